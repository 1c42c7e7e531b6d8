//! The labelled extraction cases and the README's scoring rule
//! (`rules/tests/data/extraction/README.md`), shared by the accuracy tests
//! of the rules and of the LLM extractor.
#![allow(dead_code)]

use std::path::Path;

use agentcall::domain::{FieldDefinition, FieldType};
use serde::Deserialize;
use serde_json::{Map, Value};
use unicode_general_category::{GeneralCategory, get_general_category};

/// One labelled case.
#[derive(Deserialize)]
pub struct Case {
    pub id: String,
    pub objective: String,
    pub fields: Vec<FieldDefinition>,
    pub transcript: agentcall::Transcript,
    pub expected: Map<String, Value>,
}

fn is_punctuation(c: char) -> bool {
    use GeneralCategory::*;
    c.is_ascii_punctuation()
        || matches!(
            get_general_category(c),
            ConnectorPunctuation
                | DashPunctuation
                | OpenPunctuation
                | ClosePunctuation
                | InitialPunctuation
                | FinalPunctuation
                | OtherPunctuation
        )
}

/// Python's `str.split()` whitespace: Unicode White_Space plus the
/// information separators U+001C..U+001F.
fn is_py_space(c: char) -> bool {
    c.is_whitespace() || ('\u{1c}'..='\u{1f}').contains(&c)
}

/// The README's `norm`: lower-case, delete punctuation, collapse whitespace.
pub fn norm(s: &str) -> String {
    let kept: String = s
        .to_lowercase()
        .chars()
        .filter(|c| !is_punctuation(*c))
        .collect();
    kept.split(is_py_space)
        .filter(|w| !w.is_empty())
        .collect::<Vec<_>>()
        .join(" ")
}

/// The README's `is_correct`.
pub fn is_correct(t: FieldType, e: &Value, p: &Value) -> bool {
    if e.is_null() {
        return p.is_null();
    }
    match t {
        FieldType::Boolean => matches!((e, p), (Value::Bool(a), Value::Bool(b)) if a == b),
        FieldType::Number => match (e.as_f64(), p) {
            (Some(ev), Value::Number(n)) => n
                .as_f64()
                .is_some_and(|pv| (pv - ev).abs() <= 1e-6 * ev.abs()),
            _ => false,
        },
        FieldType::String => match (e, p) {
            (Value::String(es), Value::String(ps)) => {
                let (ne, np) = (norm(es), norm(ps));
                np.contains(&ne) && np.chars().count() <= 4 * ne.chars().count() + 20
            }
            _ => false,
        },
    }
}

/// The labelled sets: `rules/tests/data/` of the workspace, whichever
/// member's test reads them.
pub fn data_dir() -> std::path::PathBuf {
    let here = Path::new(env!("CARGO_MANIFEST_DIR"));
    [here.join("tests/data"), here.join("rules/tests/data")]
        .into_iter()
        .find(|dir| dir.join("extraction").is_dir())
        .expect("the labelled sets are in rules/tests/data")
}

pub fn load_cases(sub: &str) -> Vec<Case> {
    let dir = data_dir().join(sub);
    let mut paths: Vec<_> = std::fs::read_dir(&dir)
        .unwrap_or_else(|e| panic!("reading {}: {e}", dir.display()))
        .filter_map(Result::ok)
        .map(|d| d.path())
        .filter(|p| p.extension().is_some_and(|x| x == "json"))
        .collect();
    paths.sort();
    paths
        .iter()
        .map(|p| {
            let text =
                std::fs::read_to_string(p).unwrap_or_else(|e| panic!("{}: {e}", p.display()));
            serde_json::from_str(&text).unwrap_or_else(|e| panic!("{}: {e}", p.display()))
        })
        .collect()
}

#[derive(Default, Clone, Copy)]
pub struct Tally {
    pub right: usize,
    /// Non-null predictions that are not correct: a value that would drive
    /// the caller's next action, and is wrong.
    pub wrong_values: usize,
    pub total: usize,
}

impl Tally {
    pub fn add(&mut self, ok: bool, predicted: &Value) {
        self.total += 1;
        if ok {
            self.right += 1;
        } else if !predicted.is_null() {
            self.wrong_values += 1;
        }
    }
    pub fn wrong_rate(&self) -> f64 {
        if self.total == 0 {
            0.0
        } else {
            self.wrong_values as f64 / self.total as f64
        }
    }
    pub fn ratio(&self) -> f64 {
        if self.total == 0 {
            1.0
        } else {
            self.right as f64 / self.total as f64
        }
    }

    fn percent(part: usize, total: usize) -> f64 {
        if total == 0 {
            0.0
        } else {
            100.0 * part as f64 / total as f64
        }
    }

    /// `accuracy (right)  wrong non-null (count)`, as table cells.
    pub fn cells(&self) -> String {
        format!(
            "{:>5.1}% ({:>3})    {:>5.1}% ({:>3})",
            Self::percent(self.right, self.total),
            self.right,
            Self::percent(self.wrong_values, self.total),
            self.wrong_values
        )
    }
}
