//! The ninth round's rules for amounts: replies that a looser reading
//! turned into a number; each is read as a careful person would, or left
//! `null`.

use super::{field, one_exchange, run};
use agentcall::domain::FieldType;
use serde_json::{Value, json};

/// A price said for one-to-ones is not the group course's.
#[test]
fn single_and_group_options_are_told_apart() {
    let fields = [field(
        "course_price",
        FieldType::Number,
        "Price of the six-week group puppy course, in dollars",
    )];
    let call = "Agent: What does the six-week group course cost?\n\
                Recipient: So one-to-ones are fifty-five an hour.\n\
                Agent: Thanks.";
    assert_eq!(run(&fields, call)["course_price"], Value::Null);
}

fn amount(name: &str, desc: &str, question: &str, reply: &str) -> Value {
    one_exchange(name, FieldType::Number, desc, question, reply)
}

/// An amount the speaker would have to go and look up, or offers beside
/// another guess, is no answer; another option offered with its own
/// condition leaves the first amount standing.
#[test]
fn an_amount_to_be_looked_up_or_guessed_is_no_answer() {
    let question = "Do you know the tank size in gallons?";
    for reply in [
        "Fifty. I'd have to go look at the sticker.",
        "Forty, I think? Or fifty.",
        "Fifty, but don't quote me.",
        "Fifty some weeks, sixty on a good one.",
    ] {
        assert_eq!(
            amount("tank_gallons", "Tank size in gallons", question, reply),
            Value::Null,
            "{reply}"
        );
    }
    assert_eq!(
        amount(
            "set_menu_price",
            "Price of the set menu per person, in dollars",
            "How much is the set menu?",
            "It's one twenty-five per person. Or one sixty with the wine pairing."
        ),
        json!(125)
    );
}

/// For an expected or usual amount, "it's usually about three weeks" is the
/// answer; for this case's own amount, a usual one is not.
#[test]
fn a_usual_amount_answers_what_is_expected() {
    let reply = "Standard is up to ten weeks, but once the certificate's in, \
                 it's usually about three weeks from there.";
    assert_eq!(
        amount(
            "weeks_after_document",
            "Expected number of weeks until he receives the passport once the document arrives",
            "How long until he receives the passport?",
            reply
        ),
        json!(3)
    );
    assert_eq!(
        amount(
            "delivery_fee",
            "Delivery fee for this order, in dollars",
            "What's the delivery fee?",
            "We usually charge forty, I'd have to see the address."
        ),
        Value::Null
    );
}

/// "Before tax" after an amount restates the field's own limit (a cost
/// "before tax"); a tax named as the subject is still set apart.
#[test]
fn before_what_the_field_sets_apart_restates_its_limit() {
    let fields = [field(
        "repair_cost",
        FieldType::Number,
        "Quoted repair cost before tax, in dollars",
    )];
    let call = "Agent: What's the quote for the repair?\n\
                Recipient: Twenty-one hundred with fitting, before tax. \
                Pump on its own is sixteen hundred, so it's mostly the part.\n\
                Agent: Twenty-one hundred before tax. Will it be ready this week?\n\
                Recipient: Hard to say.";
    assert_eq!(run(&fields, call)["repair_cost"], json!(2100));
    let call = "Agent: What's the quote for the repair?\n\
                Recipient: The tax on it is two hundred and ten.\n\
                Agent: Thanks.";
    assert_eq!(run(&fields, call)["repair_cost"], Value::Null);
}

/// "Price of one eight-inch trophy": "one" is an article, so an amount
/// said for the eight-inch ones is said for the field's option.
#[test]
fn one_before_a_size_is_an_article() {
    assert_eq!(
        amount(
            "price_per_trophy",
            "Price of one eight-inch figure trophy in dollars",
            "What do the eight-inch figure trophies cost?",
            "Eight-inch are twelve fifty apiece. The ten-inch run sixteen."
        ),
        json!(12.5)
    );
}

/// What the field sets apart, said after the amount to be separate,
/// restates the field's limit; said before it, the amount prices it.
#[test]
fn said_to_be_separate_after_the_amount() {
    let fields = [field(
        "quote_total",
        FieldType::Number,
        "Quoted total for the sign in dollars, excluding permit and deposit",
    )];
    let call = "Agent: What would the total come to?\n\
                Recipient: For the panel and lettering, fourteen hundred and fifty.\n\
                Agent: Fourteen hundred fifty, with the permit and deposit separate. \
                What's the panel made of?\n\
                Recipient: Yes. Aluminium composite.";
    assert_eq!(run(&fields, call)["quote_total"], json!(1450));
    let fields = [field(
        "labor_cost",
        FieldType::Number,
        "Labor cost to reupholster the chair, in dollars, not counting fabric",
    )];
    let call = "Agent: What's the labor cost?\n\
                Recipient: The fabric's separate; the moss is forty-four a yard.\n\
                Agent: Thanks.";
    assert_eq!(run(&fields, call)["labor_cost"], Value::Null);
}

/// "min" in a field's name is the minimum when the description says so,
/// not minutes.
#[test]
fn min_may_be_the_minimum() {
    assert_eq!(
        amount(
            "free_delivery_min_bags",
            "Minimum number of bags for free delivery",
            "How many bags does he need for free delivery?",
            "Twenty bags or more and it's free. Under that it's a fifteen-dollar charge."
        ),
        json!(20)
    );
}

/// "An inch and a half", "Hour and a half.": one and a half of a unit of
/// measure or time, with or without the article at the start of a reply.
#[test]
fn one_and_a_half_of_a_unit() {
    for reply in [
        "An inch and a half.",
        "Inch and a half. Enough for the sleeves.",
    ] {
        assert_eq!(
            amount(
                "shadow_box_depth_inches",
                "Depth of the shadow box in inches",
                "How deep is the shadow box?",
                reply
            ),
            json!(1.5),
            "{reply}"
        );
    }
    assert_eq!(
        amount(
            "rental_hours",
            "Length of the rental in hours",
            "How long is the rental?",
            "Hour and a half."
        ),
        json!(1.5)
    );
}

/// A small whole number said bare is a count more often than a price: it
/// is never read as the price, though it still stands against another
/// amount of the reply; zero and amounts said as money still count.
#[test]
fn a_small_bare_number_is_no_price() {
    let price = |reply: &str| {
        amount(
            "full_clean_price",
            "Price of a full clean, in dollars",
            "What would a full clean cost?",
            reply,
        )
    };
    assert_eq!(price("Three. Three bedrooms, you said?"), Value::Null);
    assert_eq!(price("Nine dollars."), json!(9));
    assert_eq!(price("Right, zero. The warranty covers it."), json!(0));
}

/// "Hour the library opens": an hour of the day, so a length of days said
/// near it is none of it.
#[test]
fn an_hour_something_opens_is_a_time_of_day() {
    let fields = [field(
        "saturday_opening_hour",
        FieldType::Number,
        "Hour the library opens on Saturdays",
    )];
    let call = "Agent: How long will you hold the book?\n\
                Recipient: We keep them seven days, so that takes her to Saturday.\n\
                Agent: What time do you open on Saturdays?\n\
                Recipient: Nine o'clock.";
    assert_eq!(run(&fields, call)["saturday_opening_hour"], json!(9));
}

/// Video and in person, the bride's and the bridesmaids', solo and group
/// are options: an amount said for one is not the other's.
#[test]
fn more_options_told_apart() {
    for (name, desc, question, reply) in [
        (
            "in_person_hourly_rate",
            "Hourly rate for in-person tutoring, in dollars",
            "What's the rate for in-person sessions?",
            "Video is sixty-five an hour.",
        ),
        (
            "bridal_bouquet_price",
            "Price of the bridal bouquet, in dollars",
            "How much is the bridal bouquet?",
            "The bridesmaids' ones are sixty-five each.",
        ),
        (
            "solo_walk_price",
            "Price of a solo dog walk, in pounds",
            "What do you charge for a solo walk?",
            "So, group walks are twelve pounds an hour.",
        ),
    ] {
        assert_eq!(amount(name, desc, question, reply), Value::Null, "{reply}");
    }
    assert_eq!(
        amount(
            "solo_walk_price",
            "Price of a solo dog walk, in pounds",
            "What do you charge for a solo walk?",
            "Solo walks are eighteen pounds, group walks are twelve."
        ),
        json!(18)
    );
}
