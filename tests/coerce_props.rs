//! Property tests: coercion never panics and always yields the declared
//! type (or null, or an error).

use agentcall::domain::FieldType;
use agentcall::extract::coerce;
use proptest::prelude::*;
use serde_json::Value;

fn field_type() -> impl Strategy<Value = FieldType> {
    prop_oneof![
        Just(FieldType::String),
        Just(FieldType::Boolean),
        Just(FieldType::Number)
    ]
}

/// Strings biased towards the vocabulary coercion reads.
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
        Just("free".to_string()),
        Just("minutes".to_string()),
        Just("noon".to_string()),
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
}
