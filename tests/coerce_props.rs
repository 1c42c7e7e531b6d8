//! Property tests: coercion and extraction never panic, and coercion always
//! yields the declared type (or null, or an error).

use agentcall::domain::{FieldDefinition, FieldType};
use agentcall::extract::{OfflineExtractor, coerce, conform, ground};
use proptest::prelude::*;
use serde_json::Value;

fn field_type() -> impl Strategy<Value = FieldType> {
    prop_oneof![
        Just(FieldType::String),
        Just(FieldType::Boolean),
        Just(FieldType::Number)
    ]
}

/// Strings biased towards the vocabulary the parsers care about.
fn wordy() -> impl Strategy<Value = String> {
    let word = prop_oneof![
        Just("twelve".to_string()),
        Just("fifty".to_string()),
        Just("a".to_string()),
        Just("dozen".to_string()),
        Just("and".to_string()),
        Just("half".to_string()),
        Just("hundred".to_string()),
        Just("oh".to_string()),
        Just("-".to_string()),
        Just("$".to_string()),
        Just("1,350.00".to_string()),
        Just("yes".to_string()),
        Just("no".to_string()),
        Just("pm".to_string()),
        Just("point".to_string()),
        "\\PC{0,6}",
    ];
    prop::collection::vec(word, 0..8).prop_map(|w| w.join(" "))
}

fn check(t: FieldType, raw: &Value) {
    match coerce(t, raw) {
        Ok(Value::Null) => assert!(raw.is_null()),
        Ok(v) => match t {
            FieldType::String => {
                assert!(v.as_str().is_some_and(|s| !s.is_empty() && s.trim() == s))
            }
            FieldType::Boolean => assert!(v.is_boolean()),
            FieldType::Number => assert!(v.as_f64().is_some_and(f64::is_finite)),
        },
        Err(e) => assert!(!e.to_string().is_empty()),
    }
}

proptest! {
    #[test]
    fn coerce_any_string(t in field_type(), s in "\\PC{0,40}") {
        check(t, &Value::String(s));
    }

    #[test]
    fn coerce_wordy_string(t in field_type(), s in wordy()) {
        check(t, &Value::String(s));
    }

    #[test]
    fn coerce_numbers_and_bools(t in field_type(), n in any::<f64>(), b in any::<bool>()) {
        if let Some(num) = serde_json::Number::from_f64(n) {
            check(t, &Value::Number(num));
        }
        check(t, &Value::Bool(b));
    }

    #[test]
    fn extraction_never_panics_and_conforms(
        lines in prop::collection::vec((prop_oneof![Just("Agent: "), Just("Recipient: "), Just("")], wordy()), 0..12),
        types in prop::collection::vec(field_type(), 1..5),
        desc in "\\PC{0,30}",
    ) {
        let transcript: String = lines.iter().map(|(l, t)| format!("{l}{t}\n")).collect();
        let fields: Vec<FieldDefinition> = types
            .iter()
            .enumerate()
            .map(|(i, t)| FieldDefinition { name: format!("field_{i}"), field_type: *t, description: Some(desc.clone()) })
            .collect();
        let extraction = OfflineExtractor::new().extract(&desc, &fields, &transcript);
        prop_assert!(conform(&fields, &extraction.values).reasons.is_empty());
        // Every value that survives the check has evidence; every one it
        // removes says why.
        let grounded = ground(&fields, &extraction, &transcript);
        prop_assert_eq!(grounded.values.len(), fields.len());
        for (name, value) in &grounded.values {
            prop_assert_eq!(!value.is_null(), grounded.evidence.contains_key(name));
        }
        for reason in grounded.reasons.values() {
            prop_assert!(reason.starts_with("unsupported_by_transcript: "), "{}", reason);
        }
    }
}
