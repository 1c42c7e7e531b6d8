//! Runs the rules extractor (`agentcall-rules`) and the summarizer on one
//! conversation.
//!
//! ```text
//! cargo run --example extract -- --transcript call.txt --fields fields.json
//! cargo run --example extract -- --case rules/tests/data/extraction/public-01.json
//! ```
//!
//! Prints `{"extracted": {...}, "summary": "...", "evidence": {...}}`:
//! `extracted` holds plain values by field name, as a call record does, and
//! `evidence` where each non-null one was read (turn, speaker, quote), as
//! `GET /v1/agent/calls/{id}/evidence` shows it. Every value goes through the
//! check the service applies ([`ground`]). The transcript file holds
//! `Agent: …` / `Recipient: …` lines; the fields file a JSON array of field
//! definitions (spec 2.2); a case file is one labelled case as in
//! `rules/tests/data/extraction/` (its `expected` is not read).

use agentcall::FieldDefinition;
use agentcall::extract::{ground, summarize};
use agentcall_rules::RulesExtractor;
use serde::Deserialize;

#[derive(Deserialize)]
struct Case {
    #[serde(default)]
    objective: String,
    fields: Vec<FieldDefinition>,
    transcript: agentcall::Transcript,
}

fn read(path: &str) -> Result<String, String> {
    std::fs::read_to_string(path).map_err(|e| format!("cannot read {path}: {e}"))
}

fn load(args: &[String]) -> Result<Case, String> {
    let mut transcript = None;
    let mut fields = None;
    let mut objective = String::new();
    let mut iter = args.iter();
    while let Some(flag) = iter.next() {
        let value = iter.next().ok_or(format!("{flag} needs a value"))?;
        match flag.as_str() {
            "--case" => {
                let text = read(value)?;
                return serde_json::from_str(&text).map_err(|e| format!("{value}: {e}"));
            }
            "--transcript" => transcript = Some(agentcall::Transcript::from_text(&read(value)?)),
            "--fields" => {
                let text = read(value)?;
                fields = Some(serde_json::from_str(&text).map_err(|e| format!("{value}: {e}"))?);
            }
            "--objective" => objective = value.clone(),
            other => return Err(format!("unknown option {other}")),
        }
    }
    match (transcript, fields) {
        (Some(transcript), Some(fields)) => Ok(Case { objective, fields, transcript }),
        _ => Err("usage: extract --transcript FILE --fields FILE.json [--objective TEXT] | --case FILE.json".into()),
    }
}

fn main() -> std::process::ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let case = match load(&args) {
        Ok(case) => case,
        Err(message) => {
            eprintln!("error: {message}");
            return std::process::ExitCode::from(2);
        }
    };
    let extraction = RulesExtractor::new().extract(&case.objective, &case.fields, &case.transcript);
    let grounded = ground(&case.fields, &extraction, &case.transcript);
    let summary = summarize(&case.objective, "completed", &case.fields, &grounded.values);
    for (field, reason) in &grounded.reasons {
        eprintln!("{field}: null ({reason})");
    }
    let output = serde_json::json!({
        "extracted": grounded.values,
        "summary": summary,
        "evidence": grounded.evidence,
    });
    println!(
        "{}",
        serde_json::to_string_pretty(&output).unwrap_or_default()
    );
    std::process::ExitCode::SUCCESS
}
