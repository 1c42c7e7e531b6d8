//! Strings that are no answer: what the description sets apart, how an
//! answer is said, and what a condition names.

use super::one_exchange;
use crate::domain::FieldType;
use serde_json::{Value, json};

/// "Vaccine required besides rabies and distemper": what the description
/// sets apart is never the value.
#[test]
fn what_the_description_sets_apart_is_no_value() {
    let vaccine = |reply: &str| {
        one_exchange(
            "required_vaccine",
            FieldType::String,
            "Vaccine required besides rabies",
            "Which vaccines does he need?",
            reply,
        )
    };
    assert_eq!(vaccine("Rabies."), Value::Null);
    // An adverb is how the answer is said, not what.
    assert_eq!(vaccine("Rabies, mainly."), Value::Null);
    assert_eq!(
        vaccine("Bordetella, within six months."),
        json!("Bordetella")
    );
}

/// "Main entrance on Carver Street, unless there's a loading bay round the
/// back you'd rather use.": what a trailing condition names is no value.
#[test]
fn a_trailing_condition_names_no_value() {
    let pickup = one_exchange(
        "pickup_point",
        FieldType::String,
        "Where the driver will pick the staff up",
        "Where would the driver pick them up?",
        "Main entrance on Carver Street, unless there's a loading bay round the back you'd rather use.",
    );
    assert_eq!(pickup, json!("Carver Street"));
}
