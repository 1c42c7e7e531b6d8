//! Days, units and yes/no replies a review found the rules could misread;
//! each is read as a careful person would, or left `null`.

use super::{field, one_exchange, run};
use agentcall::domain::FieldType;
use serde_json::{Value, json};

fn amount(name: &str, desc: &str, question: &str, reply: &str) -> Value {
    one_exchange(name, FieldType::Number, desc, question, reply)
}

/// One unit of time implied by an article answers only as a length said
/// plainly: not a delay, an age, a date, a break, a way of hiring, nor a
/// length denied.
#[test]
fn one_unit_of_time_only_as_an_answer() {
    let cases = [
        (
            "delivery_days",
            "Delivery lead time in days",
            "How long for delivery?",
            "We're running a week behind at the moment, sorry.",
        ),
        (
            "repair_days",
            "Repair turnaround in days",
            "How long does the repair take?",
            "Oh, it won't take a week, don't worry.",
        ),
        (
            "tour_hours",
            "How long the tour lasts, in hours",
            "How long does the tour last?",
            "We break for an hour at lunch.",
        ),
        (
            "hire_days",
            "Length of the hire in days",
            "How long is the hire?",
            "We hire it out by the day, or a week at a time.",
        ),
        (
            "warranty_years",
            "Length of the warranty in years",
            "How long is the warranty?",
            "That boiler's a year past its warranty, I'm afraid.",
        ),
        (
            "guarantee_months",
            "Guarantee length in months",
            "How long is the guarantee?",
            "It's a year old, the model, so I'd check with the maker.",
        ),
        (
            "days_to_fit",
            "Days until the fitting",
            "When could you fit it?",
            "A week Friday.",
        ),
    ];
    for (name, desc, question, reply) in cases {
        assert_eq!(amount(name, desc, question, reply), Value::Null, "{reply}");
    }
    assert_eq!(
        amount(
            "voucher_months",
            "How many months the voucher stays valid",
            "How long is it valid?",
            "They're good for a year from purchase."
        ),
        json!(12)
    );
}

/// "Costs nothing" is a zero only when said of the field and nothing
/// follows it.
#[test]
fn costing_nothing_of_something_else() {
    let cases = [
        (
            "repair_cost",
            "Estimated repair cost in dollars",
            "What would the repair cost?",
            "It costs nothing to look, then he quotes you.",
        ),
        (
            "total_price",
            "Total price of the job in dollars",
            "How much will the whole thing be?",
            "You pay nothing now, we invoice after the job.",
        ),
        (
            "class_price",
            "Price per class, in dollars",
            "How much does it cost?",
            "Membership costs nothing, you just pay per class.",
        ),
    ];
    for (name, desc, question, reply) in cases {
        assert_eq!(amount(name, desc, question, reply), Value::Null, "{reply}");
    }
}

/// An adverb before ", he's" is no name.
#[test]
fn adverbs_are_no_names() {
    let who = |reply: &str| {
        one_exchange(
            "technician_name",
            FieldType::String,
            "Name of the technician who will come",
            "Who will be doing the install?",
            reply,
        )
    };
    assert_eq!(
        who("Unfortunately, he's booked solid this week, so we'd have to see."),
        Value::Null
    );
    assert_eq!(
        who("Normally, she's in on Tuesdays, but it changes."),
        Value::Null
    );
}

/// A reply opening with the field's head gives an amount only in that
/// opening clause, said plainly.
#[test]
fn an_opening_head_said_of_nothing() {
    assert_eq!(
        amount(
            "deposit_amount",
            "Deposit in dollars",
            "What's the cancellation fee?",
            "Deposit's not refundable, and cancelling inside a week costs fifty."
        ),
        Value::Null
    );
}

/// "It was on back order, but it came in this morning": in stock.
#[test]
fn back_in_stock() {
    let stocked = one_exchange(
        "in_stock",
        FieldType::Boolean,
        "Whether the item is in stock",
        "Is it in stock?",
        "It was on back order, but it came in this morning.",
    );
    assert_ne!(stocked, json!(false));
}

/// Told what it asked back, a reply with several amounts or a condition
/// settles nothing.
#[test]
fn settling_with_several_amounts() {
    let fields = [field(
        "delivery_fee",
        FieldType::Number,
        "Delivery fee to the office, in dollars",
    )];
    let out = run(
        &fields,
        "Agent: Do you deliver, and what's the fee?\n\
         Recipient: Delivery is fifteen dollars. Where are you located?\n\
         Agent: Northgate.\n\
         Recipient: Great, then we can drop it by two, and it's free on orders over fifty anyway.\n\
         Agent: Thanks.",
    );
    assert_ne!(out["delivery_fee"], json!(0));
}

/// Hedges about something else leave a firm amount standing.
#[test]
fn hedges_about_something_else() {
    let cases = [
        (
            "deposit",
            "Deposit in dollars",
            "What's the deposit?",
            "Two hundred. The final bill depends on how many guests come.",
            200.0,
        ),
        (
            "delivery_fee",
            "Delivery fee in dollars",
            "What's the delivery fee?",
            "Delivery's twenty-five flat. When it arrives depends on the driver's route.",
            25.0,
        ),
        (
            "standard_callout_fee",
            "Standard call-out fee in dollars",
            "What's your call-out fee?",
            "Standard callout's sixty. If you want a Saturday it'll be more.",
            60.0,
        ),
        (
            "groom_price",
            "Price of a full groom in dollars",
            "How much is a full groom?",
            "Sixty-five, and I think that includes the nail trim.",
            65.0,
        ),
        (
            "price",
            "Price of the service in dollars",
            "How much is it?",
            "It's sixty-five, which I think is pretty fair.",
            65.0,
        ),
    ];
    for (name, desc, question, reply, want) in cases {
        assert_eq!(
            amount(name, desc, question, reply).as_f64(),
            Some(want),
            "{reply}"
        );
    }
}

/// A threshold said of the field's own people is the field's, and the
/// same head at a sentence's start is no other option.
#[test]
fn thresholds_and_qualifiers_of_the_field_itself() {
    assert_eq!(
        amount(
            "group_price_per_person",
            "Price per person for a group booking",
            "How much per person for a group?",
            "For groups of ten or more it's twelve a head."
        ),
        json!(12)
    );
    assert_eq!(
        amount(
            "french_bustle_price",
            "Price of adding a French bustle, in dollars",
            "How much is a French bustle?",
            "The bustle is ninety-five."
        ),
        json!(95)
    );
}

/// A night's rate is a day's; "you're at ten thirty" is a time.
#[test]
fn nights_and_times() {
    assert_eq!(
        amount(
            "daily_rate",
            "Daily rate for the room, in dollars",
            "What's the rate?",
            "It's ninety-five a night."
        ),
        json!(95)
    );
    assert_eq!(
        amount(
            "price",
            "Price of the appointment, in dollars",
            "How much is it?",
            "You're at ten thirty, and it's forty-five."
        ),
        json!(45)
    );
}

/// "How much would she pay?" asks no payment method.
#[test]
fn paying_is_no_payment_method() {
    let method = one_exchange(
        "payment_method",
        FieldType::String,
        "Payment method required",
        "How much would she pay?",
        "Sixty a month.",
    );
    assert_eq!(method, Value::Null);
}
