//! Hedges, referrals and short answers a review found the rules could
//! misread; each is read as a careful person would, or left `null`.

use super::{field, one_exchange, run};
use agentcall::domain::FieldType;
use serde_json::{Value, json};

fn yes_no(name: &str, desc: &str, question: &str, reply: &str) -> Value {
    one_exchange(name, FieldType::Boolean, desc, question, reply)
}

fn text(name: &str, desc: &str, question: &str, reply: &str) -> Value {
    one_exchange(name, FieldType::String, desc, question, reply)
}

fn amount(name: &str, desc: &str, question: &str, reply: &str) -> Value {
    one_exchange(name, FieldType::Number, desc, question, reply)
}

/// "Oh dear" sympathises or stalls; what follows answers.
#[test]
fn oh_dear_answers_nothing() {
    assert_ne!(
        yes_no(
            "in_stock",
            "Whether the boots are in stock",
            "Do you have the boots in stock?",
            "Oh dear, let me look. Yes, we've got two pairs."
        ),
        json!(false)
    );
}

/// After a yes in words, a first free day said as a further choice is no
/// no; nor is an earlier day for a deadline.
#[test]
fn a_later_day_after_a_yes_is_no_no() {
    for (name, desc, question, reply) in [
        (
            "ready_by_saturday",
            "Whether the dress can be ready by Saturday",
            "Could the dress be ready by Saturday?",
            "Yes, no problem. Earliest would be Thursday, actually.",
        ),
        (
            "can_do_saturday",
            "Whether they can come on Saturday",
            "Could you come on Saturday?",
            "Yes, Saturday's fine. After that the next available is Wednesday.",
        ),
        (
            "can_come_tomorrow",
            "Whether they can come tomorrow",
            "Could you come tomorrow?",
            "Yes, tomorrow's fine. Earliest is ten, because Monday's fully booked.",
        ),
    ] {
        assert_ne!(yes_no(name, desc, question, reply), json!(false), "{reply}");
    }
}

/// "Yeah, no chance", "Yeah, no can do", "Yeah, no vacancies": a yes word
/// then a no is no list of what is ruled out.
#[test]
fn yeah_no_is_no_yes() {
    for reply in [
        "Yeah, no chance, we're completely full.",
        "Yeah, no can do.",
        "Yeah, no vacancies, sorry.",
    ] {
        assert_ne!(
            yes_no(
                "room_available",
                "Whether a room is available",
                "Is there a room available?",
                reply
            ),
            json!(true),
            "{reply}"
        );
    }
}

/// A short opening answer stands against a day said later in a clause
/// that happens to name the field.
#[test]
fn a_short_opening_answer_stands() {
    assert_eq!(
        text(
            "appointment_day",
            "Day of the week of the appointment",
            "Which day works for the appointment?",
            "Tuesday works. I see your last appointment was on a Friday."
        ),
        json!("Tuesday")
    );
}

/// A day the description names without a condition is no given: it may
/// be the answer, and other days are still other options.
#[test]
fn a_day_named_plainly_is_not_given() {
    assert_ne!(
        text(
            "pickup_day",
            "Day the order can be picked up, ideally Saturday",
            "Which day can she pick it up?",
            "Saturday works, or Monday if that's easier."
        ),
        json!("Monday")
    );
    assert_eq!(
        text(
            "confirmed_day",
            "Day the plumber confirmed, after the customer asked for Saturday",
            "Can he come Saturday?",
            "Saturday is fine, yes."
        ),
        json!("Saturday")
    );
}

/// A hold, then a reply that cannot find it and hands the question on,
/// names no one.
#[test]
fn a_hold_then_a_referral_names_no_one() {
    assert_eq!(
        text(
            "technician_name",
            "Name of the technician who will come",
            "Who's the technician?",
            "Let me check. I can't see it here, you'd have to ask Sarah in dispatch."
        ),
        Value::Null
    );
}

/// A short question about another thing ("Monday for the old one?") is no
/// change to the day agreed.
#[test]
fn a_question_about_another_thing_changes_nothing() {
    let fields = [field(
        "delivery_day",
        FieldType::String,
        "Day of the week of the delivery",
    )];
    let call = "Agent: Which day can you deliver?\n\
                Recipient: Thursday.\n\
                Agent: Hang on. Monday for the old one?\n\
                Recipient: Yes, Monday's fine for the collection.\n\
                Agent: Thanks.";
    assert_ne!(run(&fields, call)["delivery_day"], json!("Monday"));
}

/// "Mine, I think.", "Pass, sorry.": no name.
#[test]
fn pronouns_and_passes_are_no_names() {
    for reply in [
        "Mine, I think. Or maybe my husband's.",
        "Pass, sorry. The office would know.",
    ] {
        assert_eq!(
            text(
                "contact_name",
                "Name of the contact person",
                "Whose name should it go under?",
                reply
            ),
            Value::Null,
            "{reply}"
        );
    }
}

/// A small amount said alone is still the price; "check in" is no hedge;
/// "or forty cash" is another option, not another guess.
#[test]
fn amounts_said_plainly_still_count() {
    assert_eq!(
        amount(
            "coffee_price",
            "Price of a large coffee, in dollars",
            "How much is a large coffee?",
            "Four."
        ),
        json!(4)
    );
    assert_eq!(
        amount(
            "nightly_rate",
            "Nightly rate, in dollars",
            "What's the nightly rate?",
            "It's one twenty a night. You just have to check in before ten."
        ),
        json!(120)
    );
    assert_eq!(
        amount(
            "fee",
            "Fee, in dollars",
            "What's the fee?",
            "Fifty dollars. Or forty cash."
        ),
        json!(50)
    );
    assert_eq!(
        amount(
            "lesson_price",
            "Price of the first lesson, in dollars",
            "How much is the first lesson?",
            "Just a second, that's forty-five dollars."
        ),
        json!(45)
    );
}

/// A fee per hour after a time, a count of hours before one, and a
/// minimum wait are amounts, not times of day.
#[test]
fn hours_before_and_per_hour_are_amounts() {
    assert_eq!(
        amount(
            "late_fee_per_hour",
            "Fee charged per hour after the nursery closes, in dollars",
            "What's the late fee?",
            "Ten dollars an hour."
        ),
        json!(10)
    );
    assert_eq!(
        amount(
            "min_wait",
            "Minimum wait time in the queue, in minutes",
            "How long is the wait?",
            "About thirty minutes."
        ),
        json!(30)
    );
}

/// "Yep, so that's fine, ten o'clock": after a search, a "so" that
/// accepts still answers.
#[test]
fn yep_so_fine_accepts() {
    assert_eq!(
        yes_no(
            "slot_available",
            "Whether the ten o'clock slot is available",
            "Is the ten o'clock slot free?",
            "Let me check the book. Yep, so that's fine, ten o'clock."
        ),
        json!(true)
    );
}
