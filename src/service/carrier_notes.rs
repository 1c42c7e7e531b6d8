//! For carriers whose reports arrive as callbacks and whose conversation
//! runs on whichever instance the carrier's socket reaches: notes kept on
//! the call in the store, and the call's dial request by id.

use super::driver::dial_request;
use super::{AgentCall, ServiceError};
use crate::carrier::DialRequest;
use crate::domain::{CallAttempt, CallId};
use crate::store::{CarrierNotes, Recording, note_carrier};

impl AgentCall {
    /// Changes a call's [`CarrierNotes`] with compare-and-set (retried when
    /// another instance wrote the call meanwhile) and returns them as
    /// stored. `change` may run more than once; it returns whether to
    /// write (`false` leaves the call untouched).
    ///
    /// The notes never move the call: reports do that
    /// ([`AgentCall::carrier_report`]).
    pub(crate) async fn note_carrier(
        &self,
        call_id: &CallId,
        change: impl Fn(&mut CarrierNotes) -> bool + Send,
    ) -> Result<CarrierNotes, ServiceError> {
        note_carrier(self.inner.store.as_ref(), call_id, change)
            .await?
            .ok_or(ServiceError::NotFound)
    }

    /// What the carrier runs for a call's attempt in flight, as it was given
    /// to the carrier: for a conversation session that starts on an instance
    /// other than the one that placed the call. `NotFound` for an unknown or
    /// ended call, and for one waiting for its next attempt (check the
    /// request's `attempt` against a report's).
    pub(crate) async fn dial_request(&self, call_id: &CallId) -> Result<DialRequest, ServiceError> {
        let call = self
            .inner
            .store
            .get(call_id)
            .await?
            .ok_or(ServiceError::NotFound)?;
        if call.record.status.is_terminal()
            || call.carrier_end.is_some()
            || super::journal::waits_for_retry(&call)
        {
            return Err(ServiceError::NotFound);
        }
        Ok(dial_request(&call))
    }
}

impl AgentCall {
    /// Whether `attempt` is the call's latest, and was not retried: it is
    /// running, or it ended the call. A carrier drops what it learns late
    /// about an earlier attempt (a machine verdict, a recording).
    /// `NotFound` for an unknown call.
    pub(crate) async fn is_latest_attempt(
        &self,
        attempt: &CallAttempt,
    ) -> Result<bool, ServiceError> {
        let call = self
            .inner
            .store
            .get(&attempt.call)
            .await?
            .ok_or(ServiceError::NotFound)?;
        Ok(call.record.attempt == attempt.attempt && !super::journal::waits_for_retry(&call))
    }

    /// Stores a recording that the carrier delivers on its own schedule
    /// (often after the call has ended) and points the call's
    /// `recordingUrl` at it. `NotFound` for an unknown call.
    pub(crate) async fn attach_recording(
        &self,
        call_id: &CallId,
        recording: Recording,
    ) -> Result<(), ServiceError> {
        if self.inner.store.get(call_id).await?.is_none() {
            return Err(ServiceError::NotFound);
        }
        self.inner.store.put_recording(call_id, recording).await?;
        let url = super::recording_url(&self.inner.base_url, call_id);
        loop {
            let mut call = self
                .inner
                .store
                .get(call_id)
                .await?
                .ok_or(ServiceError::NotFound)?;
            if let Some(end) = call.carrier_end.as_mut() {
                // Being finished: the end being kept carries it over.
                end.recording_url = Some(url.clone());
            }
            if call.record.recording_url.as_deref() == Some(url.as_str())
                && call
                    .carrier_end
                    .as_ref()
                    .is_none_or(|e| e.recording_url.is_some())
            {
                return Ok(());
            }
            call.record.recording_url = Some(url.clone());
            match self.inner.store.update(&call, Vec::new()).await {
                Ok(_) => return Ok(()),
                Err(crate::store::StoreError::Conflict { .. }) => continue,
                Err(error) => return Err(error.into()),
            }
        }
    }
}
