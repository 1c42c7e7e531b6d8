//! Read-backs, names, charges and echoes a review found (invented
//! phrasings, not labelled calls); each was a wrong value or a lost right
//! one before the rule was narrowed.

use super::{field, run};
use agentcall::domain::FieldType;
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

/// The person put on the job is read only when the turn speaks of them as
/// "he" or "she" and keeps them: no holiday, room or brand, no one of
/// alternatives, no one taken back.
#[test]
fn only_a_person_kept_on_the_job_is_assigned() {
    let plumber = |reply: &str| {
        let fields = [field(
            "plumber",
            FieldType::String,
            "Name of the plumber who will come out",
        )];
        let call = format!("Agent: Can someone come out?\nRecipient: {reply}\nAgent: Thanks.");
        super::run_for("Call the business.", &fields, &call)["plumber"].clone()
    };
    for reply in [
        "Honestly it'll be Easter before we've got anyone free.",
        "It'd be Terrence. Oh hang on, Terrence is on leave that week, so I'll let you know.",
        "It'll be Priya or Tom, whoever finishes first, she's quick.",
        "I'll book her with Lavender, that's our quiet room upstairs.",
    ] {
        assert_eq!(plumber(reply), Value::Null, "{reply}");
    }
    assert_eq!(
        plumber("It'll be Terrence, he's our best."),
        json!("Terrence")
    );
}

/// An echo is the answering side's, before a statement that does not ask
/// back: the asker's "Two hundred?" challenges, and "Deliver? Depends
/// where you are." asks.
#[test]
fn only_an_answering_echo_is_no_question() {
    assert_eq!(
        value(
            "deposit",
            FieldType::Number,
            "Deposit, in dollars",
            "Agent: What's the deposit?\n\
             Recipient: It's two hundred.\n\
             Agent: Two hundred? The website said one fifty.\n\
             Recipient: Yes, sorry, one fifty, you're right.\n\
             Agent: Thanks."
        ),
        json!(150)
    );
    assert_eq!(
        value(
            "delivers",
            FieldType::Boolean,
            "Whether they deliver",
            "Agent: Do you deliver?\n\
             Recipient: Deliver? Depends where you are.\n\
             Agent: Harrogate.\n\
             Recipient: Yes, we go out that way Thursdays.\n\
             Agent: Thanks."
        ),
        json!(true)
    );
}

/// "Not sure" with an amount still takes an answer back.
#[test]
fn not_sure_with_an_amount_still_takes_the_answer_back() {
    assert_eq!(
        value(
            "in_stock",
            FieldType::Boolean,
            "Whether the part is in stock",
            "Agent: Is the part in stock?\n\
             Recipient: Yeah we have. Well, I'm not a hundred percent sure, the system says 2 \
             but it's often wrong.\n\
             Agent: Thanks."
        ),
        Value::Null
    );
}

/// The figure a question names is dropped only beside another figure, and
/// only a figure put in the clause that names the field is deferred.
#[test]
fn a_figure_the_question_names_may_still_answer_it() {
    assert_eq!(
        value(
            "deposit",
            FieldType::Number,
            "Deposit, in dollars",
            "Agent: What's the deposit these days, still two hundred?\n\
             Recipient: Two hundred, yeah, same as before.\n\
             Agent: Thanks."
        ),
        json!(200)
    );
    assert_eq!(
        value(
            "hourly_rate",
            FieldType::Number,
            "Hourly rate, in pounds",
            "Agent: What's the hourly rate, and could she do four hours on Friday?\n\
             Recipient: Eighteen an hour. Four hours on Friday, not sure, I'll let you know.\n\
             Agent: Thanks."
        ),
        json!(18)
    );
}
