//! [`ValueCheck`]: the part of the evidence check that reads a language.

use std::fmt::Debug;

use serde_json::Value;

use super::Unsupported;
use crate::domain::{FieldDefinition, FieldType};

/// One value and the words quoted for it, as the evidence check found
/// them in the transcript.
#[derive(Debug, Clone, Copy)]
#[non_exhaustive]
pub struct Claim<'a> {
    /// The field, when the check knows it ([`check`](super::check) does not).
    pub field: Option<&'a FieldDefinition>,
    /// The field's declared type.
    pub field_type: FieldType,
    /// The value, conformed to `field_type`.
    pub value: &'a Value,
    /// The quoted words, exactly as they are in the transcript.
    pub words: &'a str,
    /// For words of the recipient in the turn the extractor named: the
    /// agent's turn just before (the question they answer).
    pub asked: Option<&'a str>,
}

/// Reads quoted words in a language: whether they carry a value, and
/// whether a reply confirms what was said to it.
///
/// The evidence check ([`ground_with`](super::ground_with)) first finds the
/// quoted words in a turn of the stated speaker, whatever the language;
/// this trait decides the rest. [`English`](super::English) is the
/// default; [`LanguageNeutral`] turns the reading off.
///
/// # Contract
///
/// - `supports` returns `Ok` only when `claim.words` carry `claim.value`
///   (a number said in digits or words, a yes or no that answers the way
///   the value says, every word of a string). A dodge or a hedge carries
///   nothing ([`Unsupported::Dodge`]). It is pure: no I/O, no clock.
/// - `confirms` says whether the recipient's `reply` agrees with the
///   agent's `said` and takes nothing back; agent words count as evidence
///   only then.
pub trait ValueCheck: Send + Sync + Debug {
    /// Whether the claim's words carry its value; see the contract.
    fn supports(&self, claim: &Claim<'_>) -> Result<(), Unsupported>;

    /// Whether `reply` confirms `said`; see the contract.
    fn confirms(&self, said: &str, reply: &str) -> bool;
}

/// No reading of the language: a value is supported once its quoted words
/// are found in a turn of the stated speaker, and the agent's words are
/// never confirmed (there is no reading of a "yes"), so only the
/// recipient's words are evidence. For a language that has no check of
/// its own yet.
#[derive(Debug, Clone, Copy, Default)]
pub struct LanguageNeutral;

impl ValueCheck for LanguageNeutral {
    fn supports(&self, _: &Claim<'_>) -> Result<(), Unsupported> {
        Ok(())
    }

    fn confirms(&self, _: &str, _: &str) -> bool {
        false
    }
}
