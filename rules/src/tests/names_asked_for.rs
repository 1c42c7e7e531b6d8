//! The tenth round's rules for names: a field named for a name wants one
//! whatever else its words say, and a full name asked for is completed
//! from a surname as from a first name.

use super::{field, run, run_for};
use agentcall::domain::FieldType;
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

fn assigned(name: &str, desc: &str, reply: &str) -> Value {
    let fields = [field(name, FieldType::String, desc)];
    let call = format!(
        "Agent: Hi, I'm calling for Jess Nguyen about the job at her house.\n\
         Recipient: {reply}\n\
         Agent: Thanks very much."
    );
    run_for("Book a job for Jess Nguyen.", &fields, &call)[name].clone()
}

/// For a field asking who will do the job, the person the other side puts
/// on it in so many words, and then speaks of as he or she, is the answer,
/// asked or not; not the caller's client, not a name said otherwise, and
/// not for a field about someone else.
#[test]
fn the_person_put_on_the_job_answers_who_will_do_it() {
    let desc = "Name of the cleaner who would be assigned";
    for (reply, expected) in [
        (
            "Sixteen fifty an hour. And he'd have Ewa, she does all our Clapham flats.",
            json!("Ewa"),
        ),
        (
            "Okay, I'll book her with Meenal then, she's lovely.",
            json!("Meenal"),
        ),
        ("Okay, I'll book her with Meenal then.", Value::Null),
        ("It'll be Terrence, he's our best.", json!("Terrence")),
        ("It'll be Terrence, he's our best, or Sam.", Value::Null),
        ("Ewa and Priya both work Thursdays.", Value::Null),
        (
            "It'll be Jess herself who lets you in, I suppose.",
            Value::Null,
        ),
    ] {
        assert_eq!(assigned("cleaner_name", desc, reply), expected, "{reply}");
    }
    assert_eq!(
        assigned(
            "plumber_name",
            "Full name of the plumber being sent",
            "I'll put her down for Wednesday. It'll be Terrence. Terrence Boateng, he's great."
        ),
        json!("Terrence Boateng")
    );
    assert_eq!(
        assigned(
            "manager_name",
            "Name of the branch manager",
            "It'll be Terrence, he's our best."
        ),
        Value::Null
    );
}
