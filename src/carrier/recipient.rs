//! The person the simulated carrier puts on the line: scripted from the
//! call's fields, answering the agent's questions with plausible values,
//! and, like people do, sometimes asking to hear a question again, staying
//! quiet, dodging, correcting an answer or answering before the agent has
//! finished. Each recipient keeps what it finally told about each field, so
//! tests can hold extraction to it.

use std::collections::HashMap;

use serde_json::Value;

use crate::agent::Heard;
use crate::agent::conversation::STILL_THERE;
use crate::agent::instructions::field_question;
use crate::domain::{FieldDefinition, FieldType};

use super::DialRequest;

/// What the recipient says after the greeting.
pub(crate) const GO_AHEAD: &str = "Sure, go ahead.";
/// What the recipient says when it did not catch a question.
pub(crate) const REPEAT_PLEASE: &str = "Sorry, could you repeat that?";
/// What the recipient says when asked whether it is still there.
pub(crate) const STILL_HERE: &str = "Yes, sorry, I'm still here.";
/// What the recipient says to a question it will not answer.
pub(crate) const DODGE: &str = "I'd rather not say, sorry.";

/// A simulated recipient; deterministic for a given call id.
#[derive(Debug)]
pub(crate) struct SimulatedRecipient {
    fields: Vec<FieldDefinition>,
    seed: u64,
    /// How often each field was asked about.
    asked: HashMap<usize, u32>,
    /// Agent turns heard so far.
    turns: u32,
    /// The last answer given per field (`None`: none given, or declined).
    told: Vec<Option<Value>>,
}

impl SimulatedRecipient {
    pub(crate) fn new(request: &DialRequest) -> Self {
        let seed = request
            .call_id
            .as_str()
            .bytes()
            .fold(0u64, |h, b| h.wrapping_mul(31).wrapping_add(u64::from(b)));
        Self {
            fields: request.fields.clone(),
            seed,
            asked: HashMap::new(),
            turns: 0,
            told: vec![None; request.fields.len()],
        }
    }

    /// What the recipient finally told about each field, in field order.
    pub(crate) fn told(&self) -> &[Option<Value>] {
        &self.told
    }

    /// The recipient's reaction to one whole agent turn; nothing at all is
    /// a silence.
    pub(crate) fn react(&mut self, agent_turn: &str) -> Vec<Heard> {
        self.turns += 1;
        if self.turns == 1 {
            return vec![Heard::Said(GO_AHEAD.into())];
        }
        if agent_turn.trim() == STILL_THERE {
            return vec![Heard::Said(STILL_HERE.into())];
        }
        let Some(index) = self.field_asked(agent_turn) else {
            return vec![Heard::Said(
                if agent_turn.trim_end().ends_with('?') {
                    "I'm not sure, sorry."
                } else {
                    "Okay."
                }
                .into(),
            )];
        };
        let times = self.asked.entry(index).or_default();
        *times += 1;
        let pick = self.seed.wrapping_add(index as u64 * 7919);
        if *times == 1 && pick.is_multiple_of(5) {
            return vec![Heard::Said(REPEAT_PLEASE.into())];
        }
        if *times == 1 && pick % 7 == 3 {
            return Vec::new();
        }
        let field = &self.fields[index];
        let (said, told) = if pick % 11 == 5 {
            (DODGE.to_owned(), None)
        } else {
            let (said, value) = answer(field, pick);
            (said, Some(value))
        };
        self.told[index] = told;
        let answer = Heard::Said(said);
        // Some recipients answer once the question itself is out.
        match first_sentence(agent_turn) {
            Some(heard) if pick % 4 == 1 => vec![
                Heard::Interrupted {
                    heard: heard.to_owned(),
                },
                answer,
            ],
            _ => vec![answer],
        }
    }

    /// The field a turn asks about: the one whose question it is, else the
    /// one it shares the most words of four letters or more with.
    fn field_asked(&self, turn: &str) -> Option<usize> {
        if let Some(index) = self
            .fields
            .iter()
            .position(|field| turn.contains(&field_question(field)))
        {
            return Some(index);
        }
        let said = words(turn);
        self.fields
            .iter()
            .enumerate()
            .map(|(index, field)| {
                let topic = format!(
                    "{} {}",
                    field.name.replace(['_', '-'], " "),
                    field.description.as_deref().unwrap_or_default()
                );
                let shared = words(&topic).iter().filter(|w| said.contains(w)).count();
                (shared, index)
            })
            .filter(|(shared, _)| *shared > 0)
            .max_by_key(|(shared, index)| (*shared, std::cmp::Reverse(*index)))
            .map(|(_, index)| index)
    }
}

/// The lowercase words of four letters or more.
fn words(text: &str) -> Vec<String> {
    text.split(|c: char| !c.is_alphanumeric())
        .filter(|w| w.len() >= 4)
        .map(str::to_lowercase)
        .collect()
}

/// The first sentence of a turn with more than one.
fn first_sentence(turn: &str) -> Option<&str> {
    let end = turn.find(['?', '.', '!'])? + 1;
    (end < turn.trim_end().len()).then(|| &turn[..end])
}

/// An answer of the field's type and the value it gives; some answers
/// correct themselves, and then the correction is the value. Strings fit
/// the topic where a keyword allows.
fn answer(field: &FieldDefinition, pick: u64) -> (String, Value) {
    let corrects = pick % 6 == 2;
    match field.field_type {
        FieldType::Boolean => {
            let yes = !pick.is_multiple_of(3);
            match (yes, corrects) {
                (true, false) => ("Yes, that's right.".into(), Value::Bool(true)),
                (false, false) => ("No, not at all.".into(), Value::Bool(false)),
                (true, true) => (
                    "Yes. Oh, wait, actually no, sorry.".into(),
                    Value::Bool(false),
                ),
                (false, true) => ("No. Actually, yes, it is.".into(), Value::Bool(true)),
            }
        }
        FieldType::Number => {
            let first = 2 + pick % 9;
            if corrects {
                let second = first + 3;
                (
                    format!("That would be {first}. Sorry, no, make that {second}."),
                    Value::from(second),
                )
            } else {
                (format!("That would be {first}."), Value::from(first))
            }
        }
        FieldType::String => {
            let (first, second) = string_answer(field);
            if corrects {
                (
                    format!("It's {first}. No, sorry, I mean {second}."),
                    Value::from(second),
                )
            } else {
                (format!("It's {first}."), Value::from(first))
            }
        }
    }
}

/// A plausible value for a string field, and the one a correction gives.
fn string_answer(field: &FieldDefinition) -> (&'static str, &'static str) {
    const TOPICS: [(&[&str], &str, &str); 8] = [
        (
            &["code", "reference", "id", "confirmation"],
            "AB-4719",
            "AB-4791",
        ),
        (&["day", "date"], "Tuesday", "Thursday"),
        (
            &["email"],
            "jordan.reyes@example.com",
            "j.reyes@example.com",
        ),
        (
            &["name", "who", "contact", "person"],
            "Jordan Reyes",
            "Jordan Reed",
        ),
        (
            &["insurance", "provider", "company", "brand", "carrier"],
            "Blue Cross",
            "Aetna",
        ),
        (
            &["address", "street", "location", "where"],
            "42 Maple Street",
            "24 Maple Street",
        ),
        (&["time", "hour", "when"], "3 pm", "4 pm"),
        (&["color", "colour"], "blue", "green"),
    ];
    let text = format!(
        "{} {}",
        field.name,
        field.description.as_deref().unwrap_or_default()
    )
    .to_lowercase();
    let words: Vec<&str> = text.split(|c: char| !c.is_alphanumeric()).collect();
    TOPICS
        .iter()
        .find(|(keys, _, _)| keys.iter().any(|k| words.contains(k)))
        .map_or(
            ("the standard option", "the premium option"),
            |(_, first, second)| (first, second),
        )
}
