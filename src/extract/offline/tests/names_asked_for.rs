//! The tenth round's rules for names: a field named for a name wants one
//! whatever else its words say, and a full name asked for is completed
//! from a surname as from a first name.

use super::{field, run};
use crate::domain::FieldType;
use serde_json::{Value, json};

fn rep_name(desc: &str, call: &str) -> Value {
    let fields = [field("account_rep_name", FieldType::String, desc)];
    run(&fields, call)["account_rep_name"].clone()
}

/// "Full name of the account representative" is a person's name, not an
/// account code, so digits read out (a phone number) are no value; a
/// surname spelt out after the full name was given gives the full name.
#[test]
fn a_name_field_wants_a_name_in_letters() {
    let call = "Agent: Who should they deal with on the account going forward?\n\
                Recipient: That'd be Declan, he looks after the inner north. Declan Furey. \
                His mobile's oh-four-one-two, five-five-five, two-one-eight.\n\
                Agent: Thanks. Sorry, was that Declan Fury?\n\
                Recipient: Furey, F-U-R-E-Y. Yep.\n\
                Agent: Lovely, thanks.";
    assert_eq!(
        rep_name("Full name of the account representative", call),
        json!("Declan Furey")
    );
    let digits_only = "Agent: Who should they deal with on the account?\n\
                       Recipient: Just ring the desk, oh-four-one-two, five-five-five.\n\
                       Agent: Thanks.";
    assert_eq!(
        rep_name("Full name of the account representative", digits_only),
        Value::Null
    );
}
