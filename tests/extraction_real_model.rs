//! The LLM extractor with a real local model (llama.cpp serving Gemma 3
//! 270M, from `.ci/local-model.sh`) over the 30 public labelled cases in
//! `rules/tests/data/extraction/`, scored with the README's exact rule twice: on
//! the model's values as they come ([`conform`] only) and as the service
//! stores them ([`ground`]: conformed, then any value whose quote does not
//! hold up against the transcript is nulled).
//!
//! A 270M model invents much of what it answers; the figures show the
//! evidence check turning those inventions into nulls. What is asserted is
//! only what must hold whatever the model says: every value kept has
//! evidence, and the check never adds a wrong value.
//!
//! Needs `AGENTCALL_TEST_LLM_URL` (the server's `…/v1` base); without it the
//! test says so and passes, unless `AGENTCALL_REQUIRE_LLM=1` (as in CI).
//! Run with `cargo test --features llm --test extraction_real_model --
//! --nocapture` to see the figures.
#![cfg(feature = "llm")]

#[path = "../rules/tests/extraction_scoring/mod.rs"]
mod extraction_scoring;

use std::time::{Duration, Instant};

use agentcall::ApiKey;
use agentcall::domain::{CallStatus, FieldType};
use agentcall::extract::llm::{LlmConfig, LlmExtractor};
use agentcall::extract::{Extraction, ExtractionInput, Extractor, conform, ground};
use extraction_scoring::{Tally, is_correct, load_cases};
use serde_json::Value;

/// The model name sent (the local server serves one model whatever it is).
const MODEL: &str = "gemma-3-270m";
/// Time allowed for each case's request (one attempt, no retry).
const REQUEST_TIMEOUT: Duration = Duration::from_secs(180);
/// The run stops after this many cases.
const MAX_CASES: usize = 30;

/// Overall, then per declared type.
#[derive(Default)]
struct Tallies([Tally; 4]);

impl Tallies {
    const ROWS: [&'static str; 4] = ["overall", "boolean", "number", "string"];

    fn add(&mut self, t: FieldType, ok: bool, predicted: &Value) {
        let row = match t {
            FieldType::Boolean => 1,
            FieldType::Number => 2,
            FieldType::String => 3,
        };
        self.0[0].add(ok, predicted);
        self.0[row].add(ok, predicted);
    }

    fn overall(&self) -> Tally {
        self.0[0]
    }
}

#[tokio::test]
async fn a_real_model_with_and_without_the_evidence_check() {
    let Ok(base_url) = std::env::var("AGENTCALL_TEST_LLM_URL") else {
        assert!(
            std::env::var("AGENTCALL_REQUIRE_LLM").is_err(),
            "AGENTCALL_REQUIRE_LLM is set but AGENTCALL_TEST_LLM_URL is not"
        );
        eprintln!("skipped: AGENTCALL_TEST_LLM_URL is not set (source .ci/local-model.sh)");
        return;
    };
    let cases = load_cases("extraction");
    assert_eq!(cases.len(), 30, "expected the 30 public cases");
    let extractor = LlmExtractor::new(
        LlmConfig::new(base_url, MODEL, ApiKey::new("local"))
            .with_timeout(REQUEST_TIMEOUT)
            .with_max_attempts(1)
            .with_temperature(0.0),
    );

    let started = Instant::now();
    let (mut raw, mut checked) = (Tallies::default(), Tallies::default());
    let mut failures = Vec::new();
    // Values the check nulled, split by whether they were right before.
    let (mut nulled_wrong, mut nulled_right) = (0, 0);
    for case in cases.iter().take(MAX_CASES) {
        let case_started = Instant::now();
        let input = ExtractionInput {
            objective: &case.objective,
            fields: &case.fields,
            transcript: &case.transcript,
            outcome: CallStatus::Completed,
        };
        // A failed extraction leaves every field null, as the service does.
        let extraction = extractor.extract(input).await.unwrap_or_else(|error| {
            failures.push(format!("{}: {error}", case.id));
            Extraction::default()
        });
        let conformed = conform(&case.fields, &extraction.values).values;
        let grounded = ground(&case.fields, &extraction, &case.transcript);
        let (mut raw_values, mut kept) = (0, 0);
        for field in &case.fields {
            let name = &field.name;
            let expected = case.expected.get(name).unwrap_or(&Value::Null);
            let before = conformed.get(name).unwrap_or(&Value::Null);
            let after = grounded.values.get(name).unwrap_or(&Value::Null);
            if !after.is_null() {
                assert!(
                    grounded.evidence.contains_key(name),
                    "{} {name}: a value was kept without evidence",
                    case.id
                );
                kept += 1;
            }
            let (ok_before, ok_after) = (
                is_correct(field.field_type, expected, before),
                is_correct(field.field_type, expected, after),
            );
            raw.add(field.field_type, ok_before, before);
            checked.add(field.field_type, ok_after, after);
            if !before.is_null() {
                raw_values += 1;
                if after.is_null() {
                    if ok_before {
                        nulled_right += 1;
                    } else {
                        nulled_wrong += 1;
                    }
                }
            }
        }
        println!(
            "{}: {} fields, {raw_values} values from the model, {kept} kept by the check ({:.1}s)",
            case.id,
            case.fields.len(),
            case_started.elapsed().as_secs_f64()
        );
    }

    let n_cases = cases.len().min(MAX_CASES);
    println!(
        "\n{MODEL} over {n_cases} public cases, {} fields, in {:.0}s; \
         malformed or failed answers (scored all-null): {}",
        raw.overall().total,
        started.elapsed().as_secs_f64(),
        failures.len()
    );
    println!("{:<16}  {:<30}  with the check", "", "without the check");
    let heads = "accuracy        wrong non-null";
    println!("{:<8} {:>6}  {heads:<30}  {heads}", "type", "fields");
    for (row, name) in Tallies::ROWS.iter().enumerate() {
        println!(
            "{name:<8} {:>6}  {:<30}  {}",
            raw.0[row].total,
            raw.0[row].cells(),
            checked.0[row].cells()
        );
    }
    println!(
        "values nulled by the check: {} ({nulled_wrong} wrong, {nulled_right} right)",
        nulled_wrong + nulled_right
    );
    for failure in &failures {
        println!("  failed: {failure}");
    }

    assert!(
        checked.overall().wrong_values <= raw.overall().wrong_values,
        "the check added wrong values: {} with it, {} without",
        checked.overall().wrong_values,
        raw.overall().wrong_values
    );
}
