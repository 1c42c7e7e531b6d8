//! Rule-based offline extractor.
//!
//! Pipeline (one submodule per stage):
//! 1. `transcript`: parse the transcript into turns, sentences and clauses
//!    (token level, never byte slicing of caller text).
//! 2. `profile` and `value_kind`: profile each field: keywords from its name
//!    (split snake/camelCase) and description, stemmed, with a few synonyms,
//!    weighted down when several fields share a word; plus what kind of
//!    value it wants (money, weekday, person name, …). The word lists live
//!    in `lexicon`, phrase matching and negation in `phrase`.
//! 3. `relevance` and `evidence`: find the turns that raise each field (its
//!    *topic* turns) and the replies that follow until the asking side moves
//!    on (the *region*), plus sentences that mention the field outright.
//! 4. `boolean`, `number`, `string` (with `string_candidates`): read a typed
//!    value from that evidence: later answers and explicit corrections
//!    ("actually", "X, not Y") win, dodges ("I'm not sure", "let me check")
//!    and vague answers give null.
//!
//! Everything is deterministic and allocation-light; a 30-line transcript
//! takes well under a millisecond.

use serde_json::{Map, Value};

use self::evidence::Analysis;
use self::profile::{FieldIndex, ValueKind, build_profiles};
use self::transcript::Transcript;
use super::coerce::json_number;
use crate::domain::FieldDefinition;

/// A word list as a hash set, built once (the lists are scanned in hot loops).
macro_rules! set {
    ($list:expr) => {{
        static SET: std::sync::OnceLock<std::collections::HashSet<&'static str>> =
            std::sync::OnceLock::new();
        SET.get_or_init(|| $list.iter().copied().collect())
    }};
}

/// A phrase list split into words, built once.
macro_rules! phrases {
    ($list:expr) => {{
        static SPLIT: std::sync::OnceLock<Vec<Vec<&'static str>>> = std::sync::OnceLock::new();
        SPLIT
            .get_or_init(|| $list.iter().map(|p| p.split(' ').collect()).collect())
            .as_slice()
    }};
}

mod boolean;
mod evidence;
mod lexicon;
mod number;
mod phrase;
mod profile;
mod relevance;
mod string;
mod string_candidates;
#[cfg(test)]
mod tests;
#[cfg(test)]
mod trace;
mod transcript;
mod value_kind;

/// Offline, deterministic extractor: reads caller-defined fields out of a
/// speaker-labelled transcript with linguistic heuristics (no I/O, no model).
///
/// When the evidence is unclear it returns `null` for the field: a wrong
/// value is worse than none.
#[derive(Debug, Clone, Default)]
pub struct OfflineExtractor {
    _private: (),
}

impl OfflineExtractor {
    /// Creates an extractor with the default rules.
    pub fn new() -> Self {
        Self::default()
    }

    /// Extracts every field from `transcript` (lines `Agent: …` /
    /// `Recipient: …`, one turn per line). The result has one key per
    /// distinct field name, each a value of the declared type or `null`.
    /// Deterministic, no I/O.
    pub fn extract(
        &self,
        objective: &str,
        fields: &[FieldDefinition],
        transcript: &str,
    ) -> Map<String, Value> {
        let parsed = Transcript::parse(objective, transcript);
        let profiles = build_profiles(fields, &parsed);
        let analysis = Analysis::new(&parsed, &profiles);
        let mut out = Map::new();
        let mut numbers: Vec<(FieldIndex, Option<f64>)> = Vec::new();
        for field in analysis.field_indices() {
            let profile = &analysis.profiles[field];
            if out.contains_key(&profile.definition.name) {
                continue;
            }
            let value = match &profile.kind {
                ValueKind::Boolean => analysis.extract_bool(field).map(Value::Bool),
                ValueKind::Number(number_profile) => {
                    let number = analysis.extract_number(field, number_profile);
                    numbers.push((field, number));
                    number.and_then(json_number)
                }
                ValueKind::Text(string_kind) => analysis
                    .extract_string(field, string_kind)
                    .map(Value::String),
            };
            out.insert(
                profile.definition.name.clone(),
                value.unwrap_or(Value::Null),
            );
        }
        // "Same as the deposit": copy another number field's value.
        for (field, number) in &numbers {
            if number.is_none()
                && let Some(copied) = analysis.same_as_reference(*field, &numbers)
                && let Some(json) = json_number(copied)
            {
                out.insert(analysis.profiles[*field].definition.name.clone(), json);
            }
        }
        out
    }
}
