//! Counter-examples a review of the tenth round's rules found (invented
//! phrasings, not labelled calls); each was a wrong value or a lost right
//! one before the rule was narrowed.

use super::{field, run};
use crate::domain::FieldType;
use serde_json::{Value, json};

fn value(name: &str, field_type: FieldType, desc: &str, call: &str) -> Value {
    run(&[field(name, field_type, desc)], call)[name].clone()
}

/// A read-back of the other option's figure, or of a duration, settles
/// nothing.
#[test]
fn a_read_back_of_another_figure_settles_nothing() {
    assert_eq!(
        value(
            "first_hour_rate",
            FieldType::Number,
            "Labour charge for the first hour, in dollars",
            "Agent: How do you charge for labour?\n\
             Recipient: Ninety for the first hour, then sixty for every hour after that.\n\
             Agent: Sixty an hour after, got it. Do you work weekends?\n\
             Recipient: Saturdays, yeah."
        ),
        json!(90)
    );
    assert_eq!(
        value(
            "single_room",
            FieldType::Number,
            "Nightly rate for a single room, in pounds",
            "Agent: What are your rates?\n\
             Recipient: Singles are sixty-five, doubles are ninety.\n\
             Agent: Ninety for a double?\n\
             Recipient: Yes, with breakfast."
        ),
        json!(65)
    );
    assert_ne!(
        value(
            "haircut_price",
            FieldType::Number,
            "Price of a men's haircut, in dollars",
            "Agent: How much is a men's cut?\n\
             Recipient: A cut is twenty-five, or with a beard trim it's thirty-five.\n\
             Agent: Great, and that takes about thirty-five minutes?\n\
             Recipient: Yeah, roughly."
        ),
        json!(35)
    );
}

/// A surname said alone is completed only when spelt out: "Ryan" may be
/// another person than Sarah Ryan.
#[test]
fn a_surname_alone_completes_only_when_spelt_out() {
    assert_eq!(
        value(
            "installer_name",
            FieldType::String,
            "Name of the technician doing the install",
            "Agent: Who's the manager I should speak to?\n\
             Recipient: That'd be Sarah Ryan.\n\
             Agent: And who will do the install?\n\
             Recipient: Ryan. He's one of our lads.\n\
             Agent: Thanks."
        ),
        json!("Ryan")
    );
}

/// A charge named in other words ("damage deposit", "weekend rate") is
/// still the field's; only one asked on top of it is another.
#[test]
fn a_charge_in_other_words_is_still_the_fields() {
    assert_eq!(
        value(
            "security_deposit",
            FieldType::Number,
            "Security deposit for the rental",
            "Agent: Is there a damage deposit?\nRecipient: Two hundred, refundable.\nAgent: Thanks."
        ),
        json!(200)
    );
    assert_eq!(
        value(
            "saturday_rate",
            FieldType::Number,
            "Hourly rate for work on a Saturday",
            "Agent: What's your weekend rate?\nRecipient: Weekends are eighty an hour.\nAgent: Thanks."
        ),
        json!(80)
    );
}
