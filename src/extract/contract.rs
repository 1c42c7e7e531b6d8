//! The [`Extractor`] trait: how fields and a summary come out of a transcript.

use std::collections::BTreeMap;
use std::fmt::Debug;

use async_trait::async_trait;
use serde_json::{Map, Value};

use super::Quote;
use crate::domain::{CallStatus, FieldDefinition};
use crate::transcript::Transcript;

/// What an extractor reads.
#[derive(Debug, Clone, Copy)]
pub struct ExtractionInput<'a> {
    /// The call's objective.
    pub objective: &'a str,
    /// The fields requested at placement (possibly none).
    pub fields: &'a [FieldDefinition],
    /// The conversation ([`Transcript::to_text`] for the text form).
    pub transcript: &'a Transcript,
    /// How the call ended (always `completed` today).
    pub outcome: CallStatus,
}

/// What an extractor found. Values are raw: the service conforms them to the
/// declared types itself ([`conform`](super::conform)), so an extractor may
/// return `"yes"` for a boolean or `"$1,350"` for a number.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Extraction {
    /// Values by field name; a missing key or `null` means "not stated".
    pub values: Map<String, Value>,
    /// Where each value was read, by field name. The service keeps a value
    /// only when its quote holds up against the transcript
    /// ([`ground`](super::ground)); a value without one becomes `null`.
    pub quotes: BTreeMap<String, Quote>,
    /// A plain-English summary, if the extractor writes one; the service's
    /// summarizer ([`summarize`](super::summarize)) fills in when it does not.
    pub summary: Option<String>,
    /// Why a field is `null`, by field name, when the extractor can say
    /// (the model refused, the field was never discussed…); kept on the
    /// call beside the service's own reasons.
    pub reasons: BTreeMap<String, String>,
}

crate::reason_error::reason_error! {
    /// Why an extractor produced nothing: the call still completes, with every
    /// field null and this error recorded per field.
    ExtractError, "extraction failed: "
}

/// Pulls field values and a summary out of a finished conversation.
///
/// # Contract
///
/// - Return `null` (or omit the key) for anything the conversation did not
///   state; never guess.
/// - Give every non-null value a [`Quote`]: the words it was read from and
///   who said them. The service checks each quote against the transcript
///   ([`ground`](super::ground)) and nulls, with the reason
///   `unsupported_by_transcript`, any value without a quote or whose quote
///   does not hold it up.
/// - Values need not be of the declared type: the service coerces them once,
///   and anything that cannot be coerced becomes `null` with a recorded reason.
/// - Extra keys are ignored. An `Err` never fails the call.
/// - Implementations bound their own time (network timeouts, retries).
#[async_trait]
pub trait Extractor: Send + Sync + Debug {
    /// Extracts values (and optionally a summary) from one call.
    async fn extract(&self, input: ExtractionInput<'_>) -> Result<Extraction, ExtractError>;
}
