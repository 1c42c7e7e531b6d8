//! The event payload (spec 6.2).

use chrono::{DateTime, Utc};
use serde::Serialize;

use crate::domain::{CallError, CallId, CallRecord, CallStatus, EventKind, format_timestamp};

/// The JSON body of a webhook event: all thirteen fields of spec 6.2, `null`
/// when not yet available, never the transcript or the recording URL; plus
/// the caller's `metadata`.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(rename_all = "camelCase")]
pub struct EventPayload {
    /// Event name, e.g. `call.completed`.
    pub event: EventKind,
    /// `<callId>:<event>:<epoch milliseconds>`; reused by every retry.
    pub event_id: String,
    /// When the event was built, ISO 8601.
    #[cfg_attr(feature = "openapi", schema(format = DateTime))]
    pub timestamp: String,
    /// The call.
    #[cfg_attr(feature = "openapi", schema(value_type = String))]
    pub call_id: CallId,
    /// The call's status after the move.
    pub status: CallStatus,
    /// Destination, E.164.
    pub to: String,
    /// The objective.
    pub objective: String,
    /// When the call was answered.
    pub started_at: Option<String>,
    /// When it ended (terminal events only).
    pub ended_at: Option<String>,
    /// Talk time in seconds (terminal events only).
    pub duration_sec: Option<u64>,
    /// Summary (call.completed only).
    pub summary: Option<String>,
    /// Extracted fields (call.completed only).
    #[cfg_attr(feature = "openapi", schema(value_type = Option<Object>))]
    pub extracted: Option<serde_json::Map<String, serde_json::Value>>,
    /// Error token (call.failed).
    pub error: Option<CallError>,
    /// The caller's metadata from placement; `null` when none was given.
    pub metadata: Option<std::collections::BTreeMap<String, String>>,
}

/// `<callId>:<event>:<epoch milliseconds>`.
pub fn event_id(call_id: &CallId, kind: EventKind, at: DateTime<Utc>) -> String {
    format!("{call_id}:{kind}:{}", at.timestamp_millis())
}

impl EventPayload {
    /// The payload of `kind` for `record` as it stands after the move, built at `at`.
    pub fn new(kind: EventKind, record: &CallRecord, at: DateTime<Utc>) -> Self {
        let terminal = kind.is_terminal();
        let completed = kind == EventKind::Completed;
        Self {
            event: kind,
            event_id: event_id(&record.id, kind, at),
            timestamp: format_timestamp(at),
            call_id: record.id.clone(),
            status: record.status,
            to: record.to.clone(),
            objective: record.objective.clone(),
            started_at: record.started_at.map(format_timestamp),
            ended_at: record.ended_at.filter(|_| terminal).map(format_timestamp),
            duration_sec: record.duration_sec.filter(|_| terminal),
            summary: record.summary.clone().filter(|_| completed),
            extracted: record.extracted.clone().filter(|_| completed),
            error: record.error,
            metadata: record.metadata.clone(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn payload_has_the_spec_fields_plus_metadata_and_no_transcript() {
        let mut record = CallRecord::queued(CallId::generate(), "+14155550123", "hi");
        record.transcript = Some("Agent: hi".into());
        record.recording_url = Some("https://x/rec".into());
        let at = Utc::now();
        let value =
            serde_json::to_value(EventPayload::new(EventKind::Failed, &record, at)).unwrap();
        let object = value.as_object().unwrap();
        assert_eq!(object.len(), 14);
        assert!(object["metadata"].is_null());
        assert!(!object.contains_key("transcript") && !object.contains_key("recordingUrl"));
        assert_eq!(
            object["eventId"],
            format!("{}:call.failed:{}", record.id, at.timestamp_millis())
        );
        assert_eq!(object["event"], "call.failed");
    }
}
