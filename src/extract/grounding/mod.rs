//! Evidence for extracted values, and the check the service applies to it
//! whichever extractor produced them.
//!
//! An extractor returns, with each value, a [`Quote`]: the words it read the
//! value from and who said them. [`ground`] conforms the values to their
//! declared types ([`conform`](super::conform())) and keeps a value only when
//! its quote holds up against the transcript:
//!
//! - The quoted words occur in one turn of the stated speaker (case and
//!   whitespace folded, typographic quotes made plain; an ellipsis in the
//!   quote may skip words of the turn).
//! - Words of the agent count only when the recipient's next turn confirms
//!   them: it opens with a yes ("Yes", "That's right") and takes nothing
//!   back ("yes, but …", "right, actually …").
//! - The quote does not dodge or hedge ("I'm not sure", "maybe", "I'd rather
//!   not say").
//! - A number appears in the quote, in digits or words (a duration may be
//!   converted: "two and a half hours" carries 150 minutes; 0 may be "free" or
//!   "no fee"). A boolean matches the quote's answer: its opening yes or no
//!   word, or else a no when it is negated ("we don't deliver"); a plain
//!   statement ("we're fully booked") can answer either way, so for it only
//!   the words are checked. Every content word of a string is in the quote.
//!
//! A value that fails becomes `null`, with the reason
//! `unsupported_by_transcript: …` recorded for the field; one that holds
//! keeps its [`Evidence`]: the turn, the speaker and the transcript's own
//! words.
//!
//! ```
//! use agentcall::domain::{FieldDefinition, FieldType};
//! use agentcall::extract::{Extraction, Quote, ground};
//! use agentcall::Transcript;
//! use serde_json::json;
//!
//! let transcript = Transcript::from_text(
//!     "Agent: What's the deposit?\nRecipient: It's four fifty, due on signing.",
//! );
//! let fields = [
//!     FieldDefinition::new("deposit", FieldType::Number),
//!     FieldDefinition::new("pets_allowed", FieldType::Boolean),
//! ];
//! let mut extraction = Extraction::default();
//! extraction.values.insert("deposit".into(), json!(450));
//! extraction.quotes.insert("deposit".into(), Quote::recipient("four fifty"));
//! // An invented answer with an invented quote.
//! extraction.values.insert("pets_allowed".into(), json!(true));
//! extraction.quotes.insert("pets_allowed".into(), Quote::recipient("Pets are welcome"));
//!
//! let grounded = ground(&fields, &extraction, &transcript);
//! assert_eq!(grounded.values["deposit"], json!(450));
//! assert_eq!(grounded.evidence["deposit"].turn, 2);
//! assert_eq!(grounded.evidence["deposit"].quote, "four fifty");
//! assert!(grounded.values["pets_allowed"].is_null());
//! assert!(grounded.reasons["pets_allowed"].starts_with("unsupported_by_transcript"));
//! ```

mod english;
mod locate;
#[cfg(test)]
mod tests;
mod value_check;

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

use self::locate::{Turn, span_of, turns};
use super::{Extraction, conform};
use crate::domain::{FieldDefinition, FieldType};
use crate::transcript::{Speaker, Transcript};

pub use english::English;
pub use value_check::{Claim, LanguageNeutral, ValueCheck};

/// The reason token recorded for a value its evidence does not support.
pub const UNSUPPORTED_BY_TRANSCRIPT: &str = "unsupported_by_transcript";

/// Where an extractor says it read a value: words of the transcript and who
/// said them. Checked by [`ground`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Quote {
    /// Who said the words.
    pub speaker: Speaker,
    /// The words, as said (case, whitespace and surrounding punctuation do
    /// not matter; `…` may stand for skipped words).
    pub text: String,
    /// The turn the words were read in, when the extractor knows it (1 for
    /// the transcript's first `Agent:`/`Recipient:` line). Short words such
    /// as "Yes." recur; the turn named is checked first, and when the words
    /// do not hold up there the latest turn where they do is taken.
    pub turn: Option<usize>,
}

impl Quote {
    /// Words the recipient said.
    pub fn recipient(text: impl Into<String>) -> Self {
        Self {
            speaker: Speaker::Recipient,
            text: text.into(),
            turn: None,
        }
    }

    /// Words the agent said (they count only once the recipient confirms
    /// them).
    pub fn agent(text: impl Into<String>) -> Self {
        Self {
            speaker: Speaker::Agent,
            text: text.into(),
            turn: None,
        }
    }

    /// The same words, read in turn `turn` (1-based).
    pub fn in_turn(mut self, turn: usize) -> Self {
        self.turn = Some(turn);
        self
    }
}

/// Checked evidence for one value: kept on the call and shown over HTTP.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct Evidence {
    /// The turn the words were said in: the line of the transcript's text
    /// form, 1 for its first `Agent:`/`Recipient:` line
    /// ([`Transcript::lines`]).
    pub turn: usize,
    /// Who said them.
    pub speaker: Speaker,
    /// The words, exactly as they are in the transcript.
    pub quote: String,
    /// For words of the agent: the recipient's turn that confirmed them.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub confirmed_in_turn: Option<usize>,
}

/// Why a quote does not support its value.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum Unsupported {
    /// The extractor gave a value without a quote.
    #[error("no quote was given for the value")]
    NoQuote,
    /// The words are in no turn of the stated speaker.
    #[error("the quoted words are not in any turn of the stated speaker")]
    NotSaid,
    /// Words of the agent that the recipient's next turn does not confirm.
    #[error("the agent's words were not confirmed by the recipient's next turn")]
    NotConfirmed,
    /// The quote declines or hedges ("not sure", "maybe").
    #[error("the quote does not give an answer")]
    Dodge,
    /// A number that is not in its quote.
    #[error("the number does not appear in the quote")]
    NumberNotQuoted,
    /// A yes for a quote that says no, or the reverse.
    #[error("the quote answers the other way")]
    OppositeAnswer,
    /// A string with words that are not in its quote.
    #[error("the value's words are not in the quote")]
    WordsNotQuoted,
}

impl Unsupported {
    /// The per-field reason recorded for it:
    /// `unsupported_by_transcript: <why>`.
    pub fn reason(self) -> String {
        format!("{UNSUPPORTED_BY_TRANSCRIPT}: {self}")
    }
}

/// Values with the evidence that holds them up, and why the others are null.
#[derive(Debug, Clone, Default, PartialEq)]
#[non_exhaustive]
pub struct Grounded {
    /// One key per requested field: the conformed value if its evidence
    /// holds, else `null`.
    pub values: Map<String, Value>,
    /// Evidence for every non-null value, by field name.
    pub evidence: BTreeMap<String, Evidence>,
    /// Why a field is null, by field name: the conformed reasons plus
    /// `unsupported_by_transcript: …` for values the check removed.
    pub reasons: BTreeMap<String, String>,
}

/// The guard the service applies to whatever an extractor returned:
/// conforms its values to the declared types, then keeps each value whose
/// quote holds up against `transcript` (see the [module docs](self)) and
/// nulls the rest, with the reason. The value check is [`English`]; see
/// [`ground_with`] for another language.
///
/// Log lines carry the field name and the reason, never the value or quote.
pub fn ground(
    fields: &[FieldDefinition],
    extraction: &Extraction,
    transcript: &Transcript,
) -> Grounded {
    ground_with(&English, fields, extraction, transcript)
}

/// [`ground`] with `check` reading the values in their language.
pub fn ground_with(
    check: &dyn ValueCheck,
    fields: &[FieldDefinition],
    extraction: &Extraction,
    transcript: &Transcript,
) -> Grounded {
    let conformed = conform(fields, &extraction.values);
    let quotes = &extraction.quotes;
    let turns = turns(transcript);
    let mut grounded = Grounded {
        values: conformed.values,
        evidence: BTreeMap::new(),
        reasons: conformed.reasons,
    };
    for (name, reason) in &extraction.reasons {
        if grounded.values.get(name).is_some_and(Value::is_null) {
            grounded
                .reasons
                .entry(name.clone())
                .or_insert_with(|| reason.clone());
        }
    }
    for field in fields {
        let Some(value) = grounded.values.get_mut(&field.name) else {
            continue;
        };
        if value.is_null() || grounded.evidence.contains_key(&field.name) {
            continue;
        }
        let checked = match quotes.get(&field.name) {
            Some(quote) => check_in(check, &turns, Some(field), field.field_type, value, quote),
            None => Err(Unsupported::NoQuote),
        };
        match checked {
            Ok(evidence) => {
                grounded.evidence.insert(field.name.clone(), evidence);
            }
            Err(unsupported) => {
                *value = Value::Null;
                let reason = unsupported.reason();
                tracing::warn!(field = %field.name, %reason, "extracted field set to null");
                grounded.reasons.insert(field.name.clone(), reason);
            }
        }
    }
    grounded
}

/// Checks one value of `field_type` against its quote in `transcript`,
/// read as English.
///
/// # Errors
/// [`Unsupported`] when the quote does not hold the value up.
pub fn check(
    field_type: FieldType,
    value: &Value,
    quote: &Quote,
    transcript: &Transcript,
) -> Result<Evidence, Unsupported> {
    check_in(&English, &turns(transcript), None, field_type, value, quote)
}

/// [`check`] over parsed turns, with `check` for the language; `field`,
/// when known, lets the check read the question before the quote.
fn check_in(
    check: &dyn ValueCheck,
    turns: &[Turn],
    field: Option<&FieldDefinition>,
    field_type: FieldType,
    value: &Value,
    quote: &Quote,
) -> Result<Evidence, Unsupported> {
    // The turn the extractor named, then the latest turn that holds the
    // quote up; the first failure met is the one reported.
    let named = quote
        .turn
        .and_then(|number| number.checked_sub(1))
        .filter(|&position| position < turns.len());
    let order = named.into_iter().chain(
        (0..turns.len())
            .rev()
            .filter(|&position| Some(position) != named),
    );
    let mut failure = Unsupported::NotSaid;
    let mut seen = false;
    for position in order {
        let turn = &turns[position];
        if turn.speaker != quote.speaker {
            continue;
        }
        let Some(span) = span_of(&turn.text, &quote.text) else {
            continue;
        };
        let words = &turn.text[span];
        let confirmed_in_turn = match quote.speaker {
            Speaker::Recipient => None,
            Speaker::Agent => match turns.get(position + 1) {
                Some(next)
                    if next.speaker == Speaker::Recipient
                        && check.confirms(&turn.text, &next.text) =>
                {
                    Some(next.number)
                }
                _ => {
                    if !seen {
                        failure = Unsupported::NotConfirmed;
                        seen = true;
                    }
                    continue;
                }
            },
            _ => continue,
        };
        // The question right before, only in the turn the extractor named:
        // short words such as "Correct." recur, and another turn's question
        // says nothing of this one.
        let asked = position
            .checked_sub(1)
            .and_then(|previous| turns.get(previous))
            .filter(|asked| {
                Some(position) == named
                    && quote.speaker == Speaker::Recipient
                    && asked.speaker == Speaker::Agent
            })
            .map(|asked| asked.text.as_str());
        let claim = Claim {
            field,
            field_type,
            value,
            words,
            asked,
        };
        match check.supports(&claim) {
            Ok(()) => {
                return Ok(Evidence {
                    turn: turn.number,
                    speaker: turn.speaker,
                    quote: words.to_owned(),
                    confirmed_in_turn,
                });
            }
            Err(unsupported) if !seen => {
                failure = unsupported;
                seen = true;
            }
            Err(_) => {}
        }
    }
    Err(failure)
}
