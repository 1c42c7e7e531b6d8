//! Post-call field extraction.
//!
//! After a call, the caller-defined fields (see
//! [`FieldDefinition`](crate::domain::FieldDefinition)) are read out of the
//! transcript by an [`Extractor`]. This module provides:
//!
//! * the [`Extractor`] contract, and [`NoExtractor`], the default: with no
//!   extractor configured every field is `null` with the reason
//!   `no_extractor`;
//! * [`llm::LlmExtractor`] (feature `llm`): fields and summary from any
//!   OpenAI-compatible chat-completions endpoint;
//! * [`coerce`] and [`conform`]: the guard the service applies to *any*
//!   extractor's output, so the stored object always has exactly the
//!   requested keys with values of the declared types (or `null`), plus a
//!   reason for every value it had to null. Extra keys are dropped (logged
//!   at debug level); log lines carry field names and reasons, never value
//!   text;
//! * [`ground`]: the evidence check every value passes, whatever the
//!   extractor, with the language's reading pluggable ([`ValueCheck`]:
//!   [`English`] by default);
//! * [`summarize`]: a short deterministic plain-English call summary.
//!
//! The rule-based offline extractor is a crate of its own,
//! `agentcall-rules` (`RulesExtractor`): English rules, no model, for
//! tests, demos and deployments without a model.

mod coerce;
mod contract;
pub mod grounding;
#[cfg(feature = "llm")]
#[cfg_attr(docsrs, doc(cfg(feature = "llm")))]
pub mod llm;
mod none;
mod summary;

pub use coerce::{CoercionError, Conformed, coerce, conform, json_number};
pub use contract::{ExtractError, Extraction, ExtractionInput, Extractor};
pub use grounding::{
    Claim, English, Evidence, Grounded, LanguageNeutral, Quote, UNSUPPORTED_BY_TRANSCRIPT,
    Unsupported, ValueCheck, check, ground, ground_with,
};
pub use none::{NO_EXTRACTOR, NoExtractor};
pub use summary::summarize;
