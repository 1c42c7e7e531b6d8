//! Event kinds (spec 6.1).

use std::fmt;

use serde::{Deserialize, Serialize};

use super::CallStatus;

/// The six webhook event kinds (spec 6.1).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub enum EventKind {
    /// The call was answered and the AI began speaking.
    #[serde(rename = "call.in_progress")]
    InProgress,
    /// Finished normally.
    #[serde(rename = "call.completed")]
    Completed,
    /// The destination did not pick up.
    #[serde(rename = "call.no_answer")]
    NoAnswer,
    /// Reached voicemail.
    #[serde(rename = "call.voicemail")]
    Voicemail,
    /// Rejected by the recipient.
    #[serde(rename = "call.declined")]
    Declined,
    /// Technical failure.
    #[serde(rename = "call.failed")]
    Failed,
}

impl EventKind {
    /// The wire name, e.g. `call.completed`.
    pub fn as_str(self) -> &'static str {
        match self {
            Self::InProgress => "call.in_progress",
            Self::Completed => "call.completed",
            Self::NoAnswer => "call.no_answer",
            Self::Voicemail => "call.voicemail",
            Self::Declined => "call.declined",
            Self::Failed => "call.failed",
        }
    }

    /// The event a move into `status` emits, if any.
    pub fn for_status(status: CallStatus) -> Option<Self> {
        match status {
            CallStatus::Queued | CallStatus::Dialing => None,
            CallStatus::InProgress => Some(Self::InProgress),
            CallStatus::Completed => Some(Self::Completed),
            CallStatus::NoAnswer => Some(Self::NoAnswer),
            CallStatus::Voicemail => Some(Self::Voicemail),
            CallStatus::Declined => Some(Self::Declined),
            CallStatus::Failed => Some(Self::Failed),
        }
    }

    /// Whether this is one of the five terminal events.
    pub fn is_terminal(self) -> bool {
        self != Self::InProgress
    }
}

impl fmt::Display for EventKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}
