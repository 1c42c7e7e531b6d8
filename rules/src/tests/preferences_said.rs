//! The tenth round's rule for text values said with a word of preference:
//! "bank transfer's easiest" gives "bank transfer".

use super::{field, run};
use agentcall::domain::FieldType;
use serde_json::json;

#[test]
fn a_value_said_with_a_preference_is_the_thing_liked() {
    let fields = [field(
        "payment_method",
        FieldType::String,
        "Payment method the contractor prefers",
    )];
    let call = "Agent: What payment method do you prefer?\n\
                Recipient: Bank transfer's easiest, I'll send the invoice after.\n\
                Agent: Thanks.";
    assert_eq!(run(&fields, call)["payment_method"], json!("Bank transfer"));
}
