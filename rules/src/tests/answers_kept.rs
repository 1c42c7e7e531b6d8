//! The tenth round's rules for yes/no fields: an answer given in words is
//! kept against a detail added after it or a guess at a detail, an echo
//! of the question asks nothing back, and "no extra" is no extra charge.

use super::{field, one_exchange, run};
use agentcall::domain::FieldType;
use serde_json::{Value, json};

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

/// "and no need to" after a yes is no detail ruled out: it answers.
#[test]
fn and_no_need_still_answers() {
    assert_eq!(
        yes_no(
            "booking_required",
            "Whether a booking is required for the tour",
            "Do I need to book ahead for the tour?",
            "Yeah you can, and no need to though, there's loads of space midweek."
        ),
        json!(false)
    );
}
