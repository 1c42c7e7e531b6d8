//! The placement request (spec 4.1).

use serde::{Deserialize, Serialize};

use super::FieldDefinition;

/// Most items in `fields` (spec 8.1).
pub const MAX_FIELDS: usize = 20;
/// Longest `objective`, in characters (the spec leaves it open; see README decisions).
pub const MAX_OBJECTIVE_CHARS: usize = 2_000;
/// Longest `context`, in characters (the spec leaves it open; see README decisions).
pub const MAX_CONTEXT_CHARS: usize = 10_000;
/// Longest field `name`, in characters.
pub const MAX_FIELD_NAME_CHARS: usize = 64;
/// Longest field `description`, in characters.
pub const MAX_FIELD_DESCRIPTION_CHARS: usize = 500;
/// Longest `webhookUrl`, in bytes.
pub const MAX_WEBHOOK_URL_LEN: usize = 2_048;
/// Most keys in `metadata`.
pub const MAX_METADATA_KEYS: usize = 50;
/// Longest `metadata` key, in characters.
pub const MAX_METADATA_KEY_CHARS: usize = 40;
/// Longest `metadata` value, in characters.
pub const MAX_METADATA_VALUE_CHARS: usize = 500;

/// A request to place a call (spec 4.1). Unknown JSON keys are an error
/// (`deny_unknown_fields`): a misspelt key must never be silently ignored.
///
/// Building one in code does not validate it; the guardrail engine does, in
/// the documented order, whether the request came as JSON or as this struct.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct PlacementRequest {
    /// Destination, E.164.
    #[cfg_attr(feature = "openapi", schema(pattern = r"^\+[1-9][0-9]{1,14}$"))]
    pub to: String,
    /// The goal of the call, as plain text.
    #[cfg_attr(feature = "openapi", schema(min_length = 1, max_length = 2000))]
    pub objective: String,
    /// Background for the AI; not shared with the recipient.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "openapi", schema(max_length = 10000))]
    pub context: Option<String>,
    /// Up to [`MAX_FIELDS`] fields to extract after the call.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    #[cfg_attr(feature = "openapi", schema(max_items = 20, nullable = true))]
    pub fields: Vec<FieldDefinition>,
    /// HTTPS URL that receives signed events.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "openapi", schema(pattern = "^https://", max_length = 2048))]
    pub webhook_url: Option<String>,
    /// Caller ID override, E.164; must be one of the account's numbers.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "openapi", schema(pattern = r"^\+[1-9][0-9]{1,14}$"))]
    pub caller_id: Option<String>,
    /// The caller's own string-to-string data, returned on the record and
    /// in every event of the call.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub metadata: Option<std::collections::BTreeMap<String, String>>,
    /// When to place the call (RFC 3339 with an offset); the call waits in
    /// `queued` until then. A past time means now; at most 30 days ahead.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "openapi", schema(value_type = Option<String>, format = DateTime))]
    pub scheduled_at: Option<chrono::DateTime<chrono::FixedOffset>>,
    /// Local hours (on the called party's wall clock, in every time zone of
    /// the number) when the call may ring; it waits in `queued` for the next
    /// opening. Overrides the account's window.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "openapi", schema(value_type = Option<crate::schedule::WindowFields>))]
    pub calling_window: Option<crate::schedule::CallingWindow>,
    /// How to try again when an attempt reaches no one (no answer, a busy
    /// line, voicemail), as a `RetryPolicy`. Overrides the account's
    /// policy; `{"maxAttempts": 1}` turns retries off.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "openapi", schema(value_type = Option<crate::schedule::RetryFields>))]
    pub retry: Option<crate::schedule::RetryPolicy>,
}

impl PlacementRequest {
    /// A request with just the two required fields.
    pub fn new(to: impl Into<String>, objective: impl Into<String>) -> Self {
        Self {
            to: to.into(),
            objective: objective.into(),
            context: None,
            fields: Vec::new(),
            webhook_url: None,
            caller_id: None,
            metadata: None,
            scheduled_at: None,
            calling_window: None,
            retry: None,
        }
    }

    /// Adds a field to extract.
    pub fn field(mut self, field: FieldDefinition) -> Self {
        self.fields.push(field);
        self
    }

    /// Sets the webhook URL.
    pub fn webhook_url(mut self, url: impl Into<String>) -> Self {
        self.webhook_url = Some(url.into());
        self
    }

    /// Sets the caller ID override.
    pub fn caller_id(mut self, number: impl Into<String>) -> Self {
        self.caller_id = Some(number.into());
        self
    }

    /// Adds a metadata entry.
    pub fn metadata(mut self, key: impl Into<String>, value: impl Into<String>) -> Self {
        self.metadata
            .get_or_insert_with(Default::default)
            .insert(key.into(), value.into());
        self
    }

    /// Sets the background context.
    pub fn context(mut self, context: impl Into<String>) -> Self {
        self.context = Some(context.into());
        self
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn unknown_keys_are_rejected_at_any_depth() {
        let top = r#"{"to":"+14155550123","objective":"hi","voice":"x"}"#;
        let error = serde_json::from_str::<PlacementRequest>(top).unwrap_err();
        assert!(
            error.to_string().contains("unknown field `voice`"),
            "{error}"
        );
        let nested = r#"{"to":"+14155550123","objective":"hi","fields":[{"name":"a","extra":1}]}"#;
        let error = serde_json::from_str::<PlacementRequest>(nested).unwrap_err();
        assert!(
            error.to_string().contains("unknown field `extra`"),
            "{error}"
        );
        let known = r#"{"to":"+14155550123","objective":"hi","fields":[{"name":"a"}]}"#;
        let request: PlacementRequest = serde_json::from_str(known).unwrap();
        assert_eq!(
            request.fields[0].field_type,
            super::super::FieldType::String
        );
    }
}
