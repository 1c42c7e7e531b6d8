//! The person the simulated carrier puts on the line: scripted from the
//! call's fields, answering the agent's questions with plausible values,
//! sometimes asking to hear a question again, sometimes answering before
//! the agent has finished.

use std::collections::HashMap;

use crate::agent::Heard;
use crate::agent::instructions::field_question;
use crate::domain::{FieldDefinition, FieldType};

use super::DialRequest;

/// What the recipient says after the greeting.
pub(crate) const GO_AHEAD: &str = "Sure, go ahead.";
/// What the recipient says when it did not catch a question.
pub(crate) const REPEAT_PLEASE: &str = "Sorry, could you repeat that?";

/// A simulated recipient; deterministic for a given call id.
#[derive(Debug)]
pub(crate) struct SimulatedRecipient {
    fields: Vec<FieldDefinition>,
    seed: u64,
    /// How often each field was asked about.
    asked: HashMap<usize, u32>,
    /// Agent turns heard so far.
    turns: u32,
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
        }
    }

    /// The recipient's reaction to one whole agent turn.
    pub(crate) fn react(&mut self, agent_turn: &str) -> Vec<Heard> {
        self.turns += 1;
        if self.turns == 1 {
            return vec![Heard::Said(GO_AHEAD.into())];
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
        let answer = Heard::Said(answer(&self.fields[index], pick));
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

/// An answer of the field's type; strings fit the topic where a keyword allows.
fn answer(field: &FieldDefinition, pick: u64) -> String {
    match field.field_type {
        FieldType::Boolean if pick.is_multiple_of(3) => "No, not at all.".to_owned(),
        FieldType::Boolean => "Yes, that's right.".to_owned(),
        FieldType::Number => format!("That would be {}.", 2 + pick % 9),
        FieldType::String => format!("It's {}.", string_answer(field)),
    }
}

fn string_answer(field: &FieldDefinition) -> &'static str {
    const TOPICS: [(&[&str], &str); 8] = [
        (&["code", "reference", "id", "confirmation"], "AB-4719"),
        (&["day", "date"], "Tuesday"),
        (&["email"], "jordan.reyes@example.com"),
        (&["name", "who", "contact", "person"], "Jordan Reyes"),
        (
            &["insurance", "provider", "company", "brand", "carrier"],
            "Blue Cross",
        ),
        (
            &["address", "street", "location", "where"],
            "42 Maple Street",
        ),
        (&["time", "hour", "when"], "3 pm"),
        (&["color", "colour"], "blue"),
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
        .find(|(keys, _)| keys.iter().any(|k| words.contains(k)))
        .map_or("the standard option", |(_, value)| value)
}
