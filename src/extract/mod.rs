//! Post-call field extraction.
//!
//! After a call, the caller-defined fields (see
//! [`FieldDefinition`](crate::domain::FieldDefinition)) are read out of the
//! transcript. This module provides:
//!
//! * [`OfflineExtractor`]: a deterministic, rule-based extractor (no I/O, no
//!   model; about 0.3 ms for a 20-line transcript in a release build). It
//!   finds the turns where each field was raised (name and description
//!   words, stemmed, with a few synonyms), reads the reply, and prefers
//!   later answers and explicit corrections ("actually", "X, not Y"). Dodges
//!   ("I'm not sure", "let me get back to you", "maybe") and fields never
//!   discussed give `null`: when unsure it returns `null`.
//! * [`coerce`] and [`conform`]: the guard the service applies to *any*
//!   extractor's output, so the stored object always has exactly the
//!   requested keys with values of the declared types (or `null`), plus a
//!   reason for every value it had to null. Extra keys are dropped (logged
//!   at debug level); log lines carry field names and reasons, never value
//!   text.
//! * [`summarize`]: a short deterministic plain-English call summary.
//!
//! Numbers are returned in the unit the field's description names: amounts
//! said with another unit are converted only between minutes/hours,
//! days/weeks and months/years, and amounts in an incompatible unit (a
//! duration for a price) are ignored. A range ("six to eight hours") gives
//! the end the description asks for ("upper end", "maximum"), otherwise
//! `null`.

//!
//! The [`Extractor`] trait is how the service asks for values; any
//! implementation's output goes through [`conform`]. The LLM-backed
//! extractor lives behind the `llm` feature.

mod coerce;
mod contract;
pub mod grounding;
#[cfg(feature = "llm")]
pub mod llm;
mod offline;
mod summary;
mod text;

pub use coerce::{CoercionError, Conformed, coerce, conform};
pub use contract::{ExtractError, Extraction, ExtractionInput, Extractor};
pub use grounding::{
    Evidence, Grounded, Party, Quote, UNSUPPORTED_BY_TRANSCRIPT, Unsupported, check, ground,
};
pub use offline::OfflineExtractor;
pub use summary::summarize;

#[async_trait::async_trait]
impl Extractor for OfflineExtractor {
    async fn extract(&self, input: ExtractionInput<'_>) -> Result<Extraction, ExtractError> {
        // The service writes the summary from the checked values.
        Ok(OfflineExtractor::extract(
            self,
            input.objective,
            input.fields,
            input.transcript,
        ))
    }
}
