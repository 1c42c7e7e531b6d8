//! [`English`]: the default [`ValueCheck`], over `agentcall-english`.

use agentcall_english::FieldText;
use agentcall_english::agree;
use agentcall_english::identifier::counts_working_days;
use agentcall_english::opposites::denies_in_its_own_words;
use serde_json::Value;

use super::{Claim, Unsupported, ValueCheck};
use crate::domain::{FieldDefinition, FieldType};

impl FieldText for FieldDefinition {
    fn name(&self) -> &str {
        &self.name
    }

    fn description(&self) -> Option<&str> {
        self.description.as_deref()
    }
}

/// Reads quotes as English (the default check): a number in digits or
/// words (a duration may be converted: "two and a half hours" carries 150
/// minutes; 0 may be "free" or "no fee"), a yes/no by its opening yes or
/// no word, else a no when negated ("we don't deliver") while a plain
/// statement can answer either way, every content word of a string, and
/// no dodge ("I'm not sure", "maybe"). A reply confirms the agent's words
/// when it opens with a yes ("Yes", "That's right") and takes nothing back.
#[derive(Debug, Clone, Copy, Default)]
pub struct English;

impl ValueCheck for English {
    fn supports(&self, claim: &Claim<'_>) -> Result<(), Unsupported> {
        let words = claim.words;
        if agree::is_dodge(words) {
            return Err(Unsupported::Dodge);
        }
        let reading = Reading::of(claim);
        let holds = match (claim.field_type, claim.value) {
            (FieldType::Number, Value::Number(number)) => number
                .as_f64()
                .is_some_and(|number| agree::number_agrees(number, words, reading.working_days)),
            (FieldType::Boolean, Value::Bool(yes)) => agree::polarity(words).is_none_or(|raw| {
                // Reversed for a question from the field's other side; a
                // plain agreement ("Correct.") to a question asked in the
                // negative may mean either value.
                let said = raw != reading.other_side;
                said == *yes || (raw && reading.negative_question && agree::only_agrees(words))
            }),
            (FieldType::String, Value::String(text)) => agree::words_agree(text, words),
            // Conformed values always have their declared type.
            _ => false,
        };
        match (holds, claim.field_type) {
            (true, _) => Ok(()),
            (false, FieldType::Number) => Err(Unsupported::NumberNotQuoted),
            (false, FieldType::Boolean) => Err(Unsupported::OppositeAnswer),
            (false, FieldType::String) => Err(Unsupported::WordsNotQuoted),
        }
    }

    fn confirms(&self, said: &str, reply: &str) -> bool {
        agree::confirms(said, reply)
    }
}

/// How the question before a recipient's words bears on their yes or no.
#[derive(Debug, Clone, Copy, Default)]
struct Reading {
    /// Asked in the negative (or stated so, with no question): a yes word
    /// may agree that there is none ("Correct." to "You don't charge for
    /// parking, do you?").
    negative_question: bool,
    /// Asked from the field's other side ("Does she bring her own
    /// helmet?" for "helmet provided"): the plain answer is reversed (not
    /// when asked whether it would be a problem and the quote denies the
    /// field in its own words: "We don't allow dogs").
    other_side: bool,
    /// The field counts working days: a week is five of them.
    working_days: bool,
}

impl Reading {
    fn of(claim: &Claim<'_>) -> Self {
        let asked = claim.asked;
        let field = claim.field;
        Self {
            negative_question: asked.is_some_and(|asked| {
                agree::asks_in_the_negative(asked) || agree::states_in_the_negative(asked)
            }),
            other_side: asked.is_some_and(|asked| {
                field.is_some_and(|field| {
                    agree::asks_the_other_side_of(field, asked)
                        && !(agree::asks_about_a_problem_of(field, asked)
                            && denies_in_its_own_words(
                                field,
                                claim.words.split([',', '.', ';', '!', '?']),
                            ))
                })
            }),
            working_days: field.is_some_and(|field| {
                field
                    .description
                    .as_deref()
                    .is_some_and(|description| counts_working_days(&description.to_lowercase()))
            }),
        }
    }
}
