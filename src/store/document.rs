//! [`CallDocument`]: the one form a call is stored in, whatever the
//! store. A store persists the few columns it must index or compare (id,
//! key, account, creation time, status, version, lease) and the rest as one
//! opaque, versioned JSON body; a field added to [`StoredCall`] later changes
//! the body, not the stores. The built-in SQL stores use it; a third-party
//! store should too.
//!
//! ```
//! use agentcall::domain::{CallId, CallRecord};
//! use agentcall::store::{CallDocument, StoredCall};
//!
//! let record = CallRecord::queued(CallId::generate(), "+14155550123", "Confirm the delivery");
//! let created = "2026-12-01T09:30:00.123456789Z".parse()?;
//! let call = StoredCall::new(record, "acct_1".parse()?, agentcall::ApiKey::new("k").id(), created, "+14155550100");
//! let stored = CallDocument::encode(&call)?;
//! assert_eq!((stored.status, stored.created_at), (call.record.status, created));
//! assert_eq!(stored.decode()?, call);
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

use std::collections::BTreeMap;

use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};

use super::{CallLease, CarrierEnd, CarrierNotes, StoreError, StoredCall};
use crate::domain::{AccountId, CallError, CallId, CallRecord, CallStatus, FieldDefinition, KeyId};
use crate::extract::Evidence;

/// The body format this release writes: 2 keeps the transcript as typed
/// turns and names its version (1, unnamed, kept it as text).
pub const CALL_DOCUMENT_VERSION: u32 = 2;

fn first_version() -> u32 {
    1
}

/// A call as a store keeps it: the columns a store indexes or compares,
/// and the rest as an opaque, versioned JSON [`body`](Self::body).
///
/// A store writes all of it and gives it back unchanged: [`decode`](Self::decode)
/// rebuilds the [`StoredCall`] to the nanosecond. The columns are the
/// call's own values, copied out so that a store need not read the body to
/// list by key and time, filter by status, compare versions or renew leases.
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub struct CallDocument {
    /// The call's id (primary key).
    pub id: CallId,
    /// The key that placed it (listing is per key).
    pub key_id: KeyId,
    /// Its account.
    pub account_id: AccountId,
    /// When it was placed (lists order by it, then by id).
    pub created_at: DateTime<Utc>,
    /// Its status (recovery and renewals look at unfinished ones).
    pub status: CallStatus,
    /// The compare-and-set version.
    pub version: u64,
    /// Who follows it, until when (renewed without rewriting the body).
    pub lease: Option<CallLease>,
    /// Everything else, as JSON of [`CALL_DOCUMENT_VERSION`]. Opaque: store
    /// it as text and hand it back.
    pub body: String,
}

/// A call that cannot be stored or read back.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum DocumentError {
    /// The body is not a call document.
    #[error("call {id}: undecodable document: {source}")]
    Undecodable {
        /// The call.
        id: String,
        /// Why.
        #[source]
        source: serde_json::Error,
    },
    /// The body is another call's.
    #[error("call {id}: the document is of call {found}")]
    OtherCall {
        /// The call asked for.
        id: String,
        /// The call the body is of.
        found: CallId,
    },
    /// The body was written by a newer release, in a format this one does
    /// not know: reading it could drop what it does not know on the next
    /// write, so it is refused.
    #[error("call {id}: document version {version} is newer than {CALL_DOCUMENT_VERSION}")]
    TooNew {
        /// The call.
        id: String,
        /// The body's version.
        version: u32,
    },
    /// The call could not be written as JSON.
    #[error("call could not be encoded: {0}")]
    Unencodable(#[source] serde_json::Error),
}

impl From<DocumentError> for StoreError {
    fn from(error: DocumentError) -> Self {
        StoreError::Unavailable(Box::new(error))
    }
}

impl CallDocument {
    /// The stored form of `call`.
    pub fn encode(call: &StoredCall) -> Result<Self, DocumentError> {
        let body = serde_json::to_string(&Body::from(call)).map_err(DocumentError::Unencodable)?;
        Ok(Self {
            id: call.record.id.clone(),
            key_id: call.key_id.clone(),
            account_id: call.account_id.clone(),
            created_at: call.created_at,
            status: call.record.status,
            version: call.version,
            lease: call.lease.clone(),
            body,
        })
    }

    /// The call back, as it was encoded.
    pub fn decode(&self) -> Result<StoredCall, DocumentError> {
        Self::decode_body(
            self.id.as_str(),
            self.version,
            self.lease.clone(),
            &self.body,
        )
    }

    /// The call from the columns a store reads back (its id, version and
    /// lease) and its body.
    pub fn decode_body(
        id: &str,
        version: u64,
        lease: Option<CallLease>,
        body: &str,
    ) -> Result<StoredCall, DocumentError> {
        let body: Body =
            serde_json::from_str(body).map_err(|source| DocumentError::Undecodable {
                id: id.to_owned(),
                source,
            })?;
        if body.v > CALL_DOCUMENT_VERSION {
            return Err(DocumentError::TooNew {
                id: id.to_owned(),
                version: body.v,
            });
        }
        if body.record.id.as_str() != id {
            return Err(DocumentError::OtherCall {
                id: id.to_owned(),
                found: body.record.id,
            });
        }
        let mut call = body.into_call(version);
        call.lease = lease;
        Ok(call)
    }
}

/// The body of a [`CallDocument`]: a [`StoredCall`] less what the columns
/// hold (version and lease).
///
/// A mirror rather than the domain types' own serde: the record's public
/// serialization cuts timestamps to milliseconds and shows the transcript
/// as text, and the store must give back exactly what it was given.
#[derive(Serialize, Deserialize)]
struct Body {
    /// The body's format ([`CALL_DOCUMENT_VERSION`]); absent (1) before
    /// the format was versioned.
    #[serde(default = "first_version")]
    v: u32,
    record: RecordDocument,
    account_id: AccountId,
    key_id: KeyId,
    created_at: DateTime<Utc>,
    caller_id: String,
    context: Option<String>,
    #[serde(default)]
    fields: Vec<FieldDefinition>,
    webhook_url: Option<String>,
    reserved_minutes: u64,
    #[serde(default)]
    reserved_in: Option<DateTime<Utc>>,
    #[serde(default)]
    extraction_notes: BTreeMap<String, String>,
    #[serde(default)]
    extraction_evidence: BTreeMap<String, Evidence>,
    #[serde(default)]
    carrier_end: Option<CarrierEnd>,
    /// Rows written before the field existed were settled when they ended
    /// (or their settlement is beyond repair): they read as settled.
    #[serde(default = "settled_by_default")]
    settled: bool,
    #[serde(default)]
    carrier_notes: CarrierNotes,
    #[serde(default)]
    calling_window: Option<crate::schedule::CallingWindow>,
    #[serde(default)]
    waiting_until: Option<DateTime<Utc>>,
    #[serde(default)]
    retry: Option<crate::schedule::RetryPolicy>,
}

fn settled_by_default() -> bool {
    true
}

#[derive(Serialize, Deserialize)]
struct RecordDocument {
    id: CallId,
    status: CallStatus,
    to: String,
    objective: String,
    summary: Option<String>,
    transcript: Option<crate::transcript::Transcript>,
    extracted: Option<serde_json::Map<String, serde_json::Value>>,
    recording_url: Option<String>,
    started_at: Option<DateTime<Utc>>,
    ended_at: Option<DateTime<Utc>>,
    duration_sec: Option<u64>,
    error: Option<CallError>,
    #[serde(default)]
    metadata: Option<BTreeMap<String, String>>,
    #[serde(default)]
    scheduled_at: Option<DateTime<Utc>>,
    #[serde(default = "first_attempt")]
    attempt: u32,
    #[serde(default)]
    attempts: Vec<AttemptDocument>,
}

fn first_attempt() -> u32 {
    1
}

/// An [`AttemptOutcome`](crate::domain::AttemptOutcome) as stored, with
/// full-precision times.
#[derive(Serialize, Deserialize)]
struct AttemptDocument {
    attempt: u32,
    status: CallStatus,
    error: Option<CallError>,
    started_at: Option<DateTime<Utc>>,
    ended_at: DateTime<Utc>,
    duration_sec: u64,
}

impl From<&StoredCall> for Body {
    fn from(call: &StoredCall) -> Self {
        let r = &call.record;
        Self {
            v: CALL_DOCUMENT_VERSION,
            record: RecordDocument {
                id: r.id.clone(),
                status: r.status,
                to: r.to.clone(),
                objective: r.objective.clone(),
                summary: r.summary.clone(),
                transcript: r.transcript.clone(),
                extracted: r.extracted.clone(),
                recording_url: r.recording_url.clone(),
                started_at: r.started_at,
                ended_at: r.ended_at,
                duration_sec: r.duration_sec,
                error: r.error,
                metadata: r.metadata.clone(),
                scheduled_at: r.scheduled_at,
                attempt: r.attempt,
                attempts: r
                    .attempts
                    .iter()
                    .map(|a| AttemptDocument {
                        attempt: a.attempt,
                        status: a.status,
                        error: a.error,
                        started_at: a.started_at,
                        ended_at: a.ended_at,
                        duration_sec: a.duration_sec,
                    })
                    .collect(),
            },
            account_id: call.account_id.clone(),
            key_id: call.key_id.clone(),
            created_at: call.created_at,
            caller_id: call.caller_id.clone(),
            context: call.context.clone(),
            fields: call.fields.clone(),
            webhook_url: call.webhook_url.clone(),
            reserved_minutes: call.reserved_minutes,
            reserved_in: call.reserved_in,
            extraction_notes: call.extraction_notes.clone(),
            extraction_evidence: call.extraction_evidence.clone(),
            carrier_end: call.carrier_end.clone(),
            settled: call.settled,
            carrier_notes: call.carrier_notes.clone(),
            calling_window: call.calling_window,
            waiting_until: call.waiting_until,
            retry: call.retry,
        }
    }
}

impl Body {
    fn into_call(self, version: u64) -> StoredCall {
        let r = self.record;
        let mut record = CallRecord::queued(r.id, r.to, r.objective);
        record.status = r.status;
        record.summary = r.summary;
        record.transcript = r.transcript;
        record.extracted = r.extracted;
        record.recording_url = r.recording_url;
        record.started_at = r.started_at;
        record.ended_at = r.ended_at;
        record.duration_sec = r.duration_sec;
        record.error = r.error;
        record.metadata = r.metadata;
        record.scheduled_at = r.scheduled_at;
        record.attempt = r.attempt;
        record.attempts = r
            .attempts
            .into_iter()
            .map(|a| crate::domain::AttemptOutcome {
                attempt: a.attempt,
                status: a.status,
                error: a.error,
                started_at: a.started_at,
                ended_at: a.ended_at,
                duration_sec: a.duration_sec,
            })
            .collect();
        StoredCall {
            record,
            account_id: self.account_id,
            key_id: self.key_id,
            created_at: self.created_at,
            caller_id: self.caller_id,
            context: self.context,
            fields: self.fields,
            webhook_url: self.webhook_url,
            reserved_minutes: self.reserved_minutes,
            reserved_in: self.reserved_in,
            extraction_notes: self.extraction_notes,
            extraction_evidence: self.extraction_evidence,
            carrier_end: self.carrier_end,
            settled: self.settled,
            lease: None,
            carrier_notes: self.carrier_notes,
            calling_window: self.calling_window,
            waiting_until: self.waiting_until,
            retry: self.retry,
            version,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn call() -> StoredCall {
        let record = CallRecord::queued(CallId::generate(), "+14155550123", "Say hi");
        StoredCall::new(
            record,
            "acct_1".parse().unwrap(),
            crate::domain::ApiKey::new("k").id(),
            "2026-12-01T09:30:00.123456789Z".parse().unwrap(),
            "+14155550100",
        )
    }

    #[test]
    fn bodies_name_their_version_and_a_newer_one_is_refused() {
        let stored = CallDocument::encode(&call()).unwrap();
        let body: serde_json::Value = serde_json::from_str(&stored.body).unwrap();
        assert_eq!(body["v"], CALL_DOCUMENT_VERSION);
        let mut newer = body.clone();
        newer["v"] = (CALL_DOCUMENT_VERSION + 1).into();
        let read = CallDocument::decode_body(stored.id.as_str(), 0, None, &newer.to_string());
        assert!(
            matches!(read, Err(DocumentError::TooNew { .. })),
            "{read:?}"
        );
    }

    #[test]
    fn a_body_from_before_versions_reads_with_its_text_transcript() {
        let mut old = call();
        old.record.transcript = Some("Agent: Hi\nRecipient: Hello".into());
        let stored = CallDocument::encode(&old).unwrap();
        let mut body: serde_json::Value = serde_json::from_str(&stored.body).unwrap();
        body.as_object_mut().unwrap().remove("v");
        body["record"]["transcript"] = "Agent: Hi\nRecipient: Hello".into();
        let read = CallDocument::decode_body(stored.id.as_str(), 0, None, &body.to_string());
        assert_eq!(read.unwrap(), old);
    }

    #[test]
    fn another_calls_body_is_refused() {
        let stored = CallDocument::encode(&call()).unwrap();
        let other = CallId::generate();
        let read = CallDocument::decode_body(other.as_str(), 0, None, &stored.body);
        assert!(matches!(read, Err(DocumentError::OtherCall { .. })));
    }
}
