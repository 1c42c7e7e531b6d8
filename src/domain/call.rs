//! The call record (spec 2.1) and its statuses (spec 3).

use std::fmt;
use std::str::FromStr;

use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};

use super::{CallError, CallId};
use crate::transcript::Transcript;

/// A call's status (spec 3): three non-terminal, five terminal.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(rename_all = "snake_case")]
pub enum CallStatus {
    /// Accepted; not yet dialing.
    Queued,
    /// Dialing the destination.
    Dialing,
    /// Answered; the AI is speaking.
    InProgress,
    /// Finished normally; summary and extracted fields are available.
    Completed,
    /// The destination did not pick up.
    NoAnswer,
    /// Reached voicemail.
    Voicemail,
    /// Rejected by the recipient.
    Declined,
    /// Technical failure; the record's `error` holds a token.
    Failed,
}

impl CallStatus {
    /// Every status, non-terminal first.
    pub const ALL: [CallStatus; 8] = [
        CallStatus::Queued,
        CallStatus::Dialing,
        CallStatus::InProgress,
        CallStatus::Completed,
        CallStatus::NoAnswer,
        CallStatus::Voicemail,
        CallStatus::Declined,
        CallStatus::Failed,
    ];

    /// Whether no further move is possible.
    pub fn is_terminal(self) -> bool {
        !matches!(self, Self::Queued | Self::Dialing | Self::InProgress)
    }

    /// The wire name (`in_progress`, `no_answer`, …).
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Queued => "queued",
            Self::Dialing => "dialing",
            Self::InProgress => "in_progress",
            Self::Completed => "completed",
            Self::NoAnswer => "no_answer",
            Self::Voicemail => "voicemail",
            Self::Declined => "declined",
            Self::Failed => "failed",
        }
    }
}

impl fmt::Display for CallStatus {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// A status name that is not one of spec 3's eight.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("unknown call status")]
pub struct UnknownStatus;

impl FromStr for CallStatus {
    type Err = UnknownStatus;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        Self::ALL
            .into_iter()
            .find(|status| status.as_str() == s)
            .ok_or(UnknownStatus)
    }
}

/// The call record exactly as the API returns it (spec 2.1): all twelve
/// fields always present, camelCase, `null` when unset, plus the caller's
/// `metadata`, `scheduledAt`, `attempt` and `attempts` (extensions of this
/// crate).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(rename_all = "camelCase")]
pub struct CallRecord {
    /// The call identifier.
    #[cfg_attr(feature = "openapi", schema(value_type = String, pattern = "^call_[0-9a-f]{32}$"))]
    pub id: CallId,
    /// Current status.
    pub status: CallStatus,
    /// Destination number, E.164.
    pub to: String,
    /// The objective supplied at placement.
    pub objective: String,
    /// Plain-English summary; set on completed.
    pub summary: Option<String>,
    /// The conversation; on the wire, the full transcript as text, one
    /// `Agent: …` / `Recipient: …` turn per line ([`Transcript::to_text`]).
    #[serde(with = "crate::transcript::as_text")]
    #[cfg_attr(feature = "openapi", schema(value_type = Option<String>))]
    pub transcript: Option<Transcript>,
    /// Extracted values keyed by field name; set on completed when fields were requested.
    #[cfg_attr(feature = "openapi", schema(value_type = Option<Object>))]
    pub extracted: Option<serde_json::Map<String, serde_json::Value>>,
    /// Authenticated URL of the recording.
    pub recording_url: Option<String>,
    /// When the call was answered.
    #[serde(with = "iso8601_opt")]
    #[cfg_attr(feature = "openapi", schema(value_type = Option<String>, format = DateTime))]
    pub started_at: Option<DateTime<Utc>>,
    /// When the call ended.
    #[serde(with = "iso8601_opt")]
    #[cfg_attr(feature = "openapi", schema(value_type = Option<String>, format = DateTime))]
    pub ended_at: Option<DateTime<Utc>>,
    /// Talk time in whole seconds, rounded up: the carrier's measure when it
    /// gives one, answer to end otherwise; 0 when never answered.
    pub duration_sec: Option<u64>,
    /// Error token on failed calls.
    pub error: Option<CallError>,
    /// The caller's metadata from placement, string to string; `null` when none was given.
    #[serde(default)]
    pub metadata: Option<std::collections::BTreeMap<String, String>>,
    /// The `scheduledAt` given at placement (an extension of this crate);
    /// `null` when none was given.
    #[serde(default, with = "iso8601_opt")]
    #[cfg_attr(feature = "openapi", schema(value_type = Option<String>, format = DateTime))]
    pub scheduled_at: Option<DateTime<Utc>>,
    /// Which dial the record describes (an extension of this crate): 1 for
    /// the first, raised when a retry's dial starts.
    #[serde(default = "first_attempt")]
    #[cfg_attr(feature = "openapi", schema(minimum = 1, maximum = 5))]
    pub attempt: u32,
    /// The attempts that ended without ending the call, each one followed
    /// by a retry, oldest first (an extension of this crate); empty for a
    /// call dialed once. The record's own fields describe its last attempt.
    #[serde(default)]
    pub attempts: Vec<AttemptOutcome>,
}

fn first_attempt() -> u32 {
    1
}

/// How one attempt of a call ended: an entry of [`CallRecord::attempts`].
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(rename_all = "camelCase")]
pub struct AttemptOutcome {
    /// The attempt's number, 1 for the first dial.
    pub attempt: u32,
    /// How it ended (`no_answer`, `declined`, `voicemail` or `failed`).
    pub status: CallStatus,
    /// Error token of a failed attempt.
    pub error: Option<CallError>,
    /// When it was answered (a machine, for voicemail).
    #[serde(with = "iso8601_opt")]
    #[cfg_attr(feature = "openapi", schema(value_type = Option<String>, format = DateTime))]
    pub started_at: Option<DateTime<Utc>>,
    /// When it ended.
    #[serde(with = "iso8601")]
    #[cfg_attr(feature = "openapi", schema(value_type = String, format = DateTime))]
    pub ended_at: DateTime<Utc>,
    /// Talk time in whole seconds (billed as for any call); 0 when never answered.
    pub duration_sec: u64,
}

impl CallRecord {
    /// A fresh record in status `queued`.
    pub fn queued(id: CallId, to: impl Into<String>, objective: impl Into<String>) -> Self {
        Self {
            id,
            status: CallStatus::Queued,
            to: to.into(),
            objective: objective.into(),
            summary: None,
            transcript: None,
            extracted: None,
            recording_url: None,
            started_at: None,
            ended_at: None,
            duration_sec: None,
            error: None,
            metadata: None,
            scheduled_at: None,
            attempt: 1,
            attempts: Vec::new(),
        }
    }
}

/// Timestamps on the wire: RFC 3339 / ISO 8601 in UTC with millisecond
/// precision and a `Z` suffix, e.g. `2026-11-22T02:11:09.123Z`.
pub(crate) fn format_timestamp(at: DateTime<Utc>) -> String {
    at.to_rfc3339_opts(chrono::SecondsFormat::Millis, true)
}

pub(crate) mod iso8601 {
    use chrono::{DateTime, Utc};
    use serde::{Deserialize, Deserializer, Serializer};

    pub(crate) fn serialize<S: Serializer>(
        at: &DateTime<Utc>,
        serializer: S,
    ) -> Result<S::Ok, S::Error> {
        serializer.serialize_str(&super::format_timestamp(*at))
    }

    pub(crate) fn deserialize<'de, D: Deserializer<'de>>(
        deserializer: D,
    ) -> Result<DateTime<Utc>, D::Error> {
        DateTime::<Utc>::deserialize(deserializer)
    }
}

pub(crate) mod iso8601_opt {
    use chrono::{DateTime, Utc};
    use serde::{Deserialize, Deserializer, Serializer};

    pub(crate) fn serialize<S: Serializer>(
        value: &Option<DateTime<Utc>>,
        serializer: S,
    ) -> Result<S::Ok, S::Error> {
        match value {
            Some(at) => serializer.serialize_str(&super::format_timestamp(*at)),
            None => serializer.serialize_none(),
        }
    }

    pub(crate) fn deserialize<'de, D: Deserializer<'de>>(
        deserializer: D,
    ) -> Result<Option<DateTime<Utc>>, D::Error> {
        Option::<DateTime<Utc>>::deserialize(deserializer)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn record_serializes_all_fields_in_camel_case() {
        let record = CallRecord::queued(CallId::generate(), "+14155550123", "Say hi");
        let value = serde_json::to_value(&record).unwrap();
        let object = value.as_object().unwrap();
        let mut keys: Vec<_> = object.keys().map(String::as_str).collect();
        keys.sort_unstable();
        assert_eq!(
            keys,
            [
                "attempt",
                "attempts",
                "durationSec",
                "endedAt",
                "error",
                "extracted",
                "id",
                "metadata",
                "objective",
                "recordingUrl",
                "scheduledAt",
                "startedAt",
                "status",
                "summary",
                "to",
                "transcript"
            ]
        );
        assert_eq!(object["status"], "queued");
        assert!(object["startedAt"].is_null() && object["durationSec"].is_null());
    }

    #[test]
    fn statuses_round_trip_through_their_names() {
        for status in CallStatus::ALL {
            assert_eq!(status.as_str().parse::<CallStatus>(), Ok(status));
            assert_eq!(serde_json::to_value(status).unwrap(), status.as_str());
        }
        assert_eq!(
            CallStatus::ALL.iter().filter(|s| s.is_terminal()).count(),
            5
        );
        assert!("ringing".parse::<CallStatus>().is_err());
    }

    #[test]
    fn timestamps_are_iso8601_utc_with_millis() {
        let at = DateTime::parse_from_rfc3339("2026-11-22T02:11:09.123456Z")
            .unwrap()
            .to_utc();
        assert_eq!(format_timestamp(at), "2026-11-22T02:11:09.123Z");
    }
}
