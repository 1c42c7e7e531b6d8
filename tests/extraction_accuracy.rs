//! Scores `OfflineExtractor` + `conform` on the labelled transcripts in
//! `tests/data/extraction/` with the README's exact rule.
//!
//! Run with `cargo test --test extraction_accuracy -- --nocapture` to see
//! the figures and every miss.

use std::path::Path;

use agentcall::domain::{FieldDefinition, FieldType};
use agentcall::extract::{OfflineExtractor, conform};
use serde::Deserialize;
use serde_json::{Map, Value};
use unicode_general_category::{GeneralCategory, get_general_category};

/// Overall accuracy must stay at or above this. Reached: 139/141 (98.6%);
/// the floor leaves room for two more misses before it trips.
const OVERALL_FLOOR: f64 = 0.97;
/// Floor for our own held-out cases. Reached: 136/146 (93.2%).
const OWN_CASES_FLOOR: f64 = 0.9;

#[derive(Deserialize)]
struct Case {
    id: String,
    objective: String,
    fields: Vec<FieldDefinition>,
    transcript: String,
    expected: Map<String, Value>,
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
fn norm(s: &str) -> String {
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
fn is_correct(t: FieldType, e: &Value, p: &Value) -> bool {
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

fn load_cases(sub: &str) -> Vec<Case> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/data")
        .join(sub);
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

#[derive(Default)]
struct Tally {
    right: usize,
    /// Non-null predictions that are not correct: a value that would drive
    /// the caller's next action, and is wrong.
    wrong_values: usize,
    total: usize,
}

impl Tally {
    fn add(&mut self, ok: bool, predicted: &Value) {
        self.total += 1;
        if ok {
            self.right += 1;
        } else if !predicted.is_null() {
            self.wrong_values += 1;
        }
    }
    fn wrong_rate(&self) -> f64 {
        if self.total == 0 {
            0.0
        } else {
            self.wrong_values as f64 / self.total as f64
        }
    }
    fn ratio(&self) -> f64 {
        if self.total == 0 {
            1.0
        } else {
            self.right as f64 / self.total as f64
        }
    }
}

/// Scores every case; prints the figures and misses; returns overall
/// accuracy.
fn score(cases: &[Case]) -> f64 {
    score_both(cases).0
}

/// Scores every case; prints the figures and misses; returns overall
/// accuracy and the rate of wrong non-null values.
fn score_both(cases: &[Case]) -> (f64, f64) {
    let ex = OfflineExtractor::new();
    let (mut all, mut boolean, mut number, mut string) = (
        Tally::default(),
        Tally::default(),
        Tally::default(),
        Tally::default(),
    );
    let mut false_non_null = 0;
    let mut misses = Vec::new();
    for case in cases {
        let raw = ex.extract(&case.objective, &case.fields, &case.transcript);
        let got = conform(&case.fields, &raw).values;
        for f in &case.fields {
            let e = case.expected.get(&f.name).cloned().unwrap_or(Value::Null);
            let p = got.get(&f.name).cloned().unwrap_or(Value::Null);
            let ok = is_correct(f.field_type, &e, &p);
            all.add(ok, &p);
            match f.field_type {
                FieldType::Boolean => boolean.add(ok, &p),
                FieldType::Number => number.add(ok, &p),
                FieldType::String => string.add(ok, &p),
            }
            if !ok {
                if e.is_null() {
                    false_non_null += 1;
                }
                misses.push(format!(
                    "  {} {} ({:?}): expected {e}, got {p}",
                    case.id, f.name, f.field_type
                ));
            }
        }
    }
    for (name, t) in [
        ("overall", &all),
        ("boolean", &boolean),
        ("number", &number),
        ("string", &string),
    ] {
        println!(
            "{name:<8} accuracy {:.1}% ({}/{} fields), wrong non-null {:.1}% ({})",
            100.0 * t.ratio(),
            t.right,
            t.total,
            100.0 * t.wrong_rate(),
            t.wrong_values
        );
    }
    println!("false non-null (expected null, got a value): {false_non_null}");
    println!("misses ({}):", misses.len());
    for m in &misses {
        println!("{m}");
    }
    (all.ratio(), all.wrong_rate())
}

#[test]
fn offline_extraction_accuracy() {
    let cases = load_cases("extraction");
    assert_eq!(cases.len(), 30, "expected the 30 public cases");
    let acc = score(&cases);
    assert!(
        acc >= OVERALL_FLOOR,
        "overall accuracy {acc:.3} fell below {OVERALL_FLOOR}"
    );
}

/// Our own held-out transcripts (written without looking at the extractor's
/// output), as a guard against rules that only fit the public set.
#[test]
fn offline_extraction_on_own_cases() {
    let cases = load_cases("extraction_extra");
    let acc = score(&cases);
    assert!(
        acc >= OWN_CASES_FLOOR,
        "own-case accuracy {acc:.3} fell below {OWN_CASES_FLOOR}"
    );
}

/// The frozen held-out set (`tests/data/extraction-heldout/`), written
/// blind to the rules and never tuned on.
#[test]
fn offline_extraction_on_the_held_out_set() {
    let cases = load_cases("extraction-heldout");
    assert_eq!(cases.len(), 64);
    let (accuracy, wrong) = score_both(&cases);
    println!("held-out: accuracy {accuracy:.3}, wrong non-null {wrong:.3}");
}

#[test]
fn norm_matches_reference_examples() {
    assert_eq!(norm("O'Neil"), "oneil");
    assert_eq!(norm("3:45 p.m."), "345 pm");
    assert_eq!(norm("Saint-Denis"), "saintdenis");
    assert_eq!(norm("  «Hello»,\t World¡ "), "hello world");
}
