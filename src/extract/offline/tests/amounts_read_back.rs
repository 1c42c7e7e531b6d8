//! The tenth round's rules for amounts: money in any common currency, a
//! field measured in miles, a figure the speaker corrects in the next
//! sentence, and the one of a reply's figures that the asker reads back.

use super::one_exchange;
use crate::domain::FieldType;
use serde_json::{Value, json};

fn amount(name: &str, desc: &str, question: &str, reply: &str) -> Value {
    one_exchange(name, FieldType::Number, desc, question, reply)
}

/// Rupees, rand, yen and the other common currencies are money, so a fee
/// said in them is no count of "rupees" that loses to a figure in dollars.
#[test]
fn money_in_other_currencies_is_money() {
    for (currency, reply) in [
        (
            "rupees",
            "For one affidavit it is three hundred fifty rupees.",
        ),
        ("rand", "It's three hundred and fifty rand for the callout."),
        ("yen", "That comes to three hundred fifty yen per sheet."),
        ("pesos", "Three hundred fifty pesos, flat."),
    ] {
        assert_eq!(
            amount(
                "callout_fee",
                &format!("Call-out fee, in {currency}"),
                "What's the fee?",
                reply
            ),
            json!(350),
            "{reply}"
        );
    }
}

/// A field that closes "in miles" wants miles, whatever money word
/// ("allowance") it also uses.
#[test]
fn a_field_in_miles_wants_miles_not_money() {
    assert_eq!(
        amount(
            "daily_mileage_limit",
            "Mileage allowance per day, in miles",
            "Is there a mileage limit?",
            "Two hundred miles a day, then it's twenty pence a mile over."
        ),
        json!(200)
    );
}
