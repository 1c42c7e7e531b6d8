//! The tenth round's rule for fields that ask the manner of something
//! ("How the contractor wants to be paid"): a how-question in the field's
//! words asks for it.

use super::{field, run};
use crate::domain::FieldType;
use serde_json::{Value, json};

fn paid_by(question: &str, reply: &str) -> Value {
    let fields = [field(
        "payment_method",
        FieldType::String,
        "How the contractor wants to be paid",
    )];
    let call = format!("Agent: {question}\nRecipient: {reply}\nAgent: Thanks.");
    run(&fields, &call)["payment_method"].clone()
}

#[test]
fn a_how_question_in_the_fields_words_asks_the_manner() {
    assert_eq!(
        paid_by(
            "Great. When could you do it, and how do you like to be paid?",
            "I could do Friday morning, and bank transfer's easiest, I'll send the invoice after."
        ),
        json!("bank transfer")
    );
    assert_eq!(
        paid_by(
            "How long until he gets paid back?",
            "Bank transfer's easiest, a week or so."
        ),
        Value::Null
    );
}
