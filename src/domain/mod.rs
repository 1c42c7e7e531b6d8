//! Domain types: identifiers, secrets, the call record, field definitions,
//! the placement request and accounts. No I/O, no async.

mod account;
mod call;
mod call_error;
mod error_token;
mod event;
mod fields;
mod ids;
mod placement;
mod secret;

pub use account::Account;
pub(crate) use call::format_timestamp;
pub use call::{AttemptOutcome, CallRecord, CallStatus, UnknownStatus};
pub use call_error::{CallError, UnknownCallError};
pub use error_token::{ErrorToken, UnknownErrorToken};
pub use event::EventKind;
pub use fields::{FieldDefinition, FieldType};
pub use ids::{AccountId, CallAttempt, CallId, InvalidId, KeyId};
pub use placement::{
    MAX_CONTEXT_CHARS, MAX_FIELD_DESCRIPTION_CHARS, MAX_FIELD_NAME_CHARS, MAX_FIELDS,
    MAX_METADATA_KEY_CHARS, MAX_METADATA_KEYS, MAX_METADATA_VALUE_CHARS, MAX_OBJECTIVE_CHARS,
    MAX_WEBHOOK_URL_LEN, PlacementRequest,
};
pub use secret::{ApiKey, WebhookSecret};
