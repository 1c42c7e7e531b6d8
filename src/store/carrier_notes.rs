//! [`CarrierNotes`]: what a callback-driven carrier learned about a call
//! before its end, kept on the stored call.

use super::{CallStore, StoreError};
use crate::domain::CallId;

/// What a carrier whose reports arrive as callbacks (at any instance)
/// learned about a call before its end: kept on the call so that the
/// instance that receives the end can put it together.
#[derive(Debug, Clone, Default, PartialEq, serde::Serialize, serde::Deserialize)]
#[non_exhaustive]
pub struct CarrierNotes {
    /// The carrier's id for the call (Twilio's `CallSid`), once it accepted it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub carrier_call_id: Option<String>,
    /// The conversation as the carrier's session last saw it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub transcript: Option<crate::transcript::Transcript>,
    /// The carrier's answering-machine verdict (`human`, `machine_start`,
    /// `fax`, …).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub answered_by: Option<String>,
    /// Whether a conversation session is running for the call (its
    /// transcript is still growing).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub session_open: bool,
    /// The highest callback sequence number applied (callbacks arrive out
    /// of order and more than once).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub last_sequence: Option<u64>,
}

/// Changes a call's [`CarrierNotes`] with compare-and-set, retried when
/// another writer updated the call meanwhile, and returns them as stored.
/// `change` may run more than once; it returns whether to write (`false`
/// leaves the call untouched). `Ok(None)` for an unknown call.
pub async fn note_carrier(
    store: &dyn CallStore,
    call_id: &CallId,
    change: impl Fn(&mut CarrierNotes) -> bool + Send,
) -> Result<Option<CarrierNotes>, StoreError> {
    loop {
        let Some(mut call) = store.get(call_id).await? else {
            return Ok(None);
        };
        if !change(&mut call.carrier_notes) {
            return Ok(Some(call.carrier_notes));
        }
        match store.update(&call, Vec::new()).await {
            Ok(_) => return Ok(Some(call.carrier_notes)),
            Err(StoreError::Conflict { .. }) => continue,
            Err(error) => return Err(error),
        }
    }
}
