//! The tenth round's rules for yes/no fields: an answer given in words is
//! kept against what a later reply to another question only implies, and
//! against a detail added after it.

use super::{field, one_exchange, run};
use crate::domain::FieldType;
use serde_json::{Value, json};

/// "What time do you close on Saturdays?" asks the time; "We're open nine
/// till one on Saturdays" does not take back "no, not on a Saturday" for
/// a notary on Saturdays. A reply that revises still does, and so does a
/// later yes or no said in words.
#[test]
fn a_reply_to_another_question_leaves_a_worded_answer_standing() {
    let fields = [field(
        "notary_available_saturday",
        FieldType::Boolean,
        "Whether a notary is available at the branch on Saturday",
    )];
    let call = |later: &str| {
        format!(
            "Agent: Is there a notary in on Saturdays?\n\
             Recipient: Saturdays it's just me and a teller. So, no, not on a Saturday.\n\
             Agent: What time do you close on Saturdays?\n\
             Recipient: {later}\n\
             Agent: Thanks."
        )
    };
    let kept = run(&fields, &call("We're open nine till one on Saturdays."));
    assert_eq!(kept["notary_available_saturday"], json!(false));
    let revised = run(
        &fields,
        &call("At one. Oh, actually, a notary is in on Saturdays now, sorry."),
    );
    assert_eq!(revised["notary_available_saturday"], json!(true));
}

fn yes_no(name: &str, desc: &str, question: &str, reply: &str) -> Value {
    one_exchange(name, FieldType::Boolean, desc, question, reply)
}

/// A "no <thing>" detail joined to a clear yes ("and no monthly fee") is
/// no answer against it; a bare "and no" still takes it back.
#[test]
fn a_detail_ruled_out_after_a_yes_leaves_it_standing() {
    let ask = |reply: &str| {
        yes_no(
            "offset_included",
            "Whether the variable loan comes with an offset account",
            "Does that come with an offset account?",
            reply,
        )
    };
    assert_eq!(
        ask("Yep, full offset, and no monthly fee on that product."),
        json!(true)
    );
    assert_eq!(ask("Yes, plus no fee for the first year."), json!(true));
    assert_eq!(
        ask("Yeah, and no, sorry, not on the variable, only the fixed."),
        json!(false)
    );
}

/// "…, no extra." said alone is no extra charge: for a field about what
/// is included at no extra cost, it says yes.
#[test]
fn no_extra_said_alone_is_no_extra_charge() {
    assert_eq!(
        yes_no(
            "downpipes_included",
            "Whether checking the downpipes is included at no extra cost",
            "Would he check the downpipes while he's up there?",
            "Yeah, I'll check the downpipes while I'm up there an' all, no extra."
        ),
        json!(true)
    );
}

/// "Sunday? No no, Sunday closed.": a word of the question said back
/// before the answer is an echo, not a question back, so the asker's next
/// turn ("Thank you.") answers nothing.
#[test]
fn an_echo_before_the_answer_asks_nothing_back() {
    let fields = [field(
        "open_sunday",
        FieldType::Boolean,
        "Whether the office is open on Sunday",
    )];
    let call = "Agent: You're not open on Sunday, are you?\n\
                Recipient: Sunday? No no, Sunday closed. Saturday till two we are there.\n\
                Agent: Thank you. And what is the address, please?\n\
                Recipient: Shop number 6, Laxmi Road.\n\
                Agent: Thank you very much.";
    assert_eq!(run(&fields, call)["open_sunday"], json!(false));
}

/// "Could be a fortnight" after a clear answer guesses at a detail, and
/// leaves the answer standing; a dodge with no amount still takes it back.
#[test]
fn a_guess_at_a_detail_leaves_a_clear_answer_standing() {
    let ask = |reply: &str| {
        yes_no(
            "containers_in_stock",
            "Whether the rectangular takeaway containers are currently in stock",
            "And the rectangular containers with lids, have you got those in?",
            reply,
        )
    };
    assert_eq!(
        ask(
            "Yeah, nah, we're cleaned out of those till the next shipment lands. Could be a fortnight."
        ),
        json!(false)
    );
    assert_eq!(ask("Yeah. Maybe, I'm not sure actually."), Value::Null);
}
