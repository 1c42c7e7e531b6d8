//! `cargo run --example extract` prints plain values, a summary and the
//! evidence of each value, as the service stores them.

mod common;

use std::process::Command;

use serde_json::Value;

#[test]
fn the_extract_example_prints_values_summary_and_evidence() {
    let case = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/rules/tests/data/extraction/public-01.json"
    );
    let output = Command::new(common::process::example_binary("extract"))
        .args(["--case", case])
        .output()
        .expect("the example runs");
    assert!(output.status.success(), "{output:?}");
    let printed: Value = serde_json::from_slice(&output.stdout).expect("JSON on stdout");
    let keys: Vec<&str> = printed
        .as_object()
        .unwrap()
        .keys()
        .map(String::as_str)
        .collect();
    assert_eq!(keys, ["evidence", "extracted", "summary"]);
    assert!(printed["summary"].as_str().is_some_and(|s| !s.is_empty()));

    let case: Value = serde_json::from_str(&std::fs::read_to_string(case).unwrap()).unwrap();
    let transcript: Vec<&str> = case["transcript"].as_str().unwrap().lines().collect();
    let extracted = printed["extracted"].as_object().unwrap();
    assert_eq!(extracted.len(), case["fields"].as_array().unwrap().len());
    let mut with_values = 0;
    for (name, value) in extracted {
        // Plain values keyed by field name, as in a call record.
        assert!(!value.is_object() && !value.is_array(), "{name}: {value}");
        let evidence = &printed["evidence"][name];
        if value.is_null() {
            assert!(evidence.is_null(), "{name}: evidence without a value");
            continue;
        }
        with_values += 1;
        let line = transcript[evidence["turn"].as_u64().unwrap() as usize - 1];
        assert!(
            line.contains(evidence["quote"].as_str().unwrap()),
            "{name}: {line}"
        );
    }
    assert!(with_values > 0, "{printed}");

    let bad = Command::new(common::process::example_binary("extract"))
        .args(["--case", "/nonexistent.json"])
        .output()
        .unwrap();
    assert_eq!(bad.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&bad.stderr).contains("cannot read"));
}
