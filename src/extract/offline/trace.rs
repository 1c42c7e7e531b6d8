//! `CASE=public-07 cargo test trace_case -- --ignored --nocapture` prints
//! how each field of a labelled case was read.

use super::OfflineExtractor;
use super::evidence::Analysis;
use super::profile::build_profiles;
use super::transcript::Transcript;
use crate::domain::FieldDefinition;
use serde_json::Value;

#[test]
#[ignore = "debugging aid"]
fn trace_case() {
    let id = std::env::var("CASE").unwrap_or_else(|_| "public-01".into());
    // Never a frozen held-out set (`h5-…`, `h6-…`): nobody tunes on them.
    let dir = if id.starts_with("extra") {
        "extraction_extra"
    } else if id.starts_with("dev") {
        "extraction-dev"
    } else if id.starts_with("heldout") {
        "extraction-heldout"
    } else if id.starts_with("h2-") {
        "extraction-heldout-2"
    } else if id.starts_with("d2-") {
        "extraction-dev-2"
    } else if id.starts_with("h3-") {
        "extraction-heldout-3"
    } else if id.starts_with("h4-") {
        "extraction-heldout-4"
    } else {
        "extraction"
    };
    let path = format!("{}/tests/data/{dir}/{id}.json", env!("CARGO_MANIFEST_DIR"));
    let Ok(text) = std::fs::read_to_string(&path) else {
        return;
    };
    let Ok(case) = serde_json::from_str::<Value>(&text) else {
        return;
    };
    let objective = case["objective"].as_str().unwrap_or_default();
    let transcript = case["transcript"].as_str().unwrap_or_default();
    let fields: Vec<FieldDefinition> =
        serde_json::from_value(case["fields"].clone()).unwrap_or_default();
    let parsed = Transcript::parse(objective, transcript);
    let profiles = build_profiles(&fields, &parsed);
    let analysis = Analysis::new(&parsed, &profiles);
    for field in analysis.field_indices() {
        let profile = &analysis.profiles[field];
        println!("== {} {:?}", profile.definition.name, profile.kind);
        println!(
            "   kw: {}",
            profile
                .keywords
                .iter()
                .map(|k| format!("{}:{:.2}", k.stem, k.weight))
                .collect::<Vec<_>>()
                .join(" ")
        );
        for turn in analysis.turn_indices() {
            if analysis.topic(field, turn) > 0.0 {
                println!(
                    "   topic t{}: {:.2} loose={:?}",
                    turn.0,
                    analysis.topic(field, turn),
                    analysis.topics(turn, 0.6)
                );
            }
        }
        for item in analysis.evidence(field, false) {
            let sentence = &parsed.sentences[item.sentence];
            let text = sentence
                .tokens
                .iter()
                .map(|t| t.text.as_str())
                .collect::<Vec<_>>()
                .join(" ");
            println!(
                "   ev s{} t{} {:?} rel={:.2}: {text}",
                item.sentence.0,
                sentence.turn.0,
                item.role,
                analysis.relevance(field, item.sentence)
            );
        }
    }
    let out = OfflineExtractor::new().extract(objective, &fields, transcript);
    println!(
        "{}",
        serde_json::to_string_pretty(&out.values).unwrap_or_default()
    );
    for (name, quote) in &out.quotes {
        println!("   quote {name}: {:?} {:?}", quote.party, quote.text);
    }
    let grounded = crate::extract::ground(&fields, &out, transcript);
    println!("grounded {}", serde_json::Value::Object(grounded.values));
    for (name, reason) in &grounded.reasons {
        println!("   reason {name}: {reason}");
    }
    println!("expected {}", case["expected"]);
}
