//! Strings read by what is around them: what the description sets apart,
//! how an answer is said, what a condition names, names called he or she,
//! and a day the question puts, confirmed.

use super::{field, one_exchange, run_for};
use agentcall::domain::FieldType;
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

/// "Marcus, he's our senior guy.": a name opening a sentence is a name
/// when the next clause calls it he or she.
#[test]
fn a_name_the_next_clause_calls_he_or_she() {
    let tech = |reply: &str| {
        one_exchange(
            "technician_name",
            FieldType::String,
            "Name of the technician who will come",
            "Who will be coming out?",
            reply,
        )
    };
    assert_eq!(tech("Marcus, he's our senior guy."), json!("Marcus"));
    assert_eq!(tech("Tuesday, he's free then."), Value::Null);
}

/// "Is collection on Tuesday?" "Yes.": the day the question puts,
/// confirmed; a question offering two puts none.
#[test]
fn a_day_the_question_puts_confirmed() {
    let day = |question: &str, reply: &str| {
        one_exchange(
            "collection_day",
            FieldType::String,
            "Day of the week for collection",
            question,
            reply,
        )
    };
    assert_eq!(day("Is collection on Tuesday?", "Yes."), json!("Tuesday"));
    assert_eq!(
        day(
            "Would the crew set it up the day before, on the Friday?",
            "That's right, usually after lunch."
        ),
        json!("Friday")
    );
    assert_eq!(
        day("Is collection on Tuesday or Wednesday?", "Yes."),
        Value::Null
    );
    assert_eq!(day("Is collection on Tuesday?", "No."), Value::Null);
}

/// "…, I'm afraid." is how the answer is said; a reply that opens by
/// asking back gives no fragment of an answer.
#[test]
fn how_to_pay_and_how_it_is_said() {
    let method = |reply: &str| {
        one_exchange(
            "payment_method",
            FieldType::String,
            "Payment method required on the tariff",
            "What payment method do you need?",
            reply,
        )
    };
    assert_eq!(method("Bank transfer."), json!("Bank transfer"));
    assert_eq!(method("Direct debit, I'm afraid."), json!("Direct debit"));
    assert_eq!(
        method("Oh, is she the one with the big dog? Lovely dog, that."),
        Value::Null
    );
}

/// "weekday_closing_time": a field whose name ends in "time" wants a time
/// of day, whatever day it is for.
#[test]
fn a_time_for_weekdays_is_a_time() {
    let closing = one_exchange(
        "weekday_closing_time",
        FieldType::String,
        "Time the depot closes on weekdays",
        "What time do you close on weekdays?",
        "Half six, Monday to Friday.",
    );
    assert_eq!(closing, json!("6:30"));
}

/// "How much fabric should she buy?" "Seven yards.": a quantity is no
/// type of fabric, nor a bare number of one.
#[test]
fn a_quantity_is_no_kind() {
    let fabric = |reply: &str| {
        one_exchange(
            "fabric_type",
            FieldType::String,
            "Type of fabric Hannah is using",
            "How much fabric should she buy?",
            reply,
        )
    };
    assert_eq!(fabric("Seven yards."), Value::Null);
    assert_eq!(fabric("If it's a big pattern, eight."), Value::Null);
}

/// "Irene, yes, the old Baxi.": the caller's client, named in the
/// objective, is no make or brand; a name something is held under may be.
#[test]
fn the_client_is_no_brand() {
    let fields = [
        field("boiler_make", FieldType::String, "Make of the boiler"),
        field(
            "hold_name",
            FieldType::String,
            "Name the parcel will be held under",
        ),
    ];
    let out = run_for(
        "Book Irene Walsh's boiler service and hold the parcel for her.",
        &fields,
        "Agent: It's about Irene Walsh's boiler. What make is it?\n\
         Recipient: Irene, yes, the old Baxi.\n\
         Agent: And whose name will the parcel be held under?\n\
         Recipient: Under Walsh.\n\
         Agent: Thanks.",
    );
    assert_eq!(out["boiler_make"], json!("Baxi"));
    assert!(
        out["hold_name"]
            .as_str()
            .is_some_and(|name| name.contains("Walsh")),
        "{out:?}"
    );
}
