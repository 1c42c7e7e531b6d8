//! Amounts said in words of their own: one unit implied by an article ("an
//! hour", "about a week"), times given with a closing verb, quid, and
//! "costs nothing".

use super::{field, one_exchange, run};
use agentcall::domain::FieldType;
use serde_json::{Value, json};

/// "An hour" answers a duration when it is the only amount of the reply;
/// beside an amount said outright it is about something else.
#[test]
fn one_unit_implied_by_an_article_answers_alone() {
    let check_in = |reply: &str| -> Value {
        one_exchange(
            "checkin_minutes",
            FieldType::Number,
            "How many minutes before departure they must check in",
            "How early should she arrive for check-in?",
            reply,
        )
    };
    assert_eq!(check_in("It's an hour for anything towing."), json!(60));
    assert_eq!(check_in("About a week, I'd say."), Value::Null);
    let fitting = |reply: &str| -> Value {
        one_exchange(
            "fitting_hours",
            FieldType::Number,
            "How long the fitting takes in hours",
            "How long does it take?",
            reply,
        )
    };
    assert_eq!(
        fitting("Two hours, then she can't drive for an hour while it sets."),
        json!(2)
    );
    assert_eq!(fitting("Give us an hour."), json!(1));
    let lead = |reply: &str| -> Value {
        one_exchange(
            "lead_time_days",
            FieldType::Number,
            "Lead time for the order, in days",
            "How long before it's ready?",
            reply,
        )
    };
    assert_eq!(lead("A week from when we get the artwork."), json!(7));
    assert_eq!(lead("Three meals a day, it's all in."), Value::Null);
}

/// "We shut the gate at four thirty": a closing verb before a time gives
/// the closing time, where "we're closed Sundays" refuses a day.
#[test]
fn a_closing_verb_gives_the_closing_time() {
    let closing = |reply: &str| -> Value {
        one_exchange(
            "saturday_closing_time",
            FieldType::String,
            "Time the farm closes on Saturdays",
            "What time do you close on Saturdays?",
            reply,
        )
    };
    assert_eq!(
        closing("Saturdays we shut the gate at four thirty."),
        json!("4:30")
    );
    assert_eq!(closing("We're closed by six on Saturdays."), json!("6"));
    assert_eq!(closing("We're not open at six, sorry."), Value::Null);
}

/// "Sixty quid" is money, as "sixty bucks" is; a second charge said on a
/// condition ("if she finds another one, it's twenty extra") is not the
/// price asked for.
#[test]
fn quid_are_money() {
    let nest = |reply: &str| -> Value {
        one_exchange(
            "nest_price",
            FieldType::Number,
            "Price to treat one wasp nest, in pounds",
            "What do you charge for a nest?",
            reply,
        )
    };
    assert_eq!(
        nest(
            "Sixty quid for the nest. If she finds another one while I'm there, it's twenty extra."
        ),
        json!(60)
    );
}

/// "Garden waste costs nothing": a zero, said in so many words.
#[test]
fn costing_nothing_is_zero() {
    let charge = |reply: &str| -> Value {
        one_exchange(
            "garden_waste_charge",
            FieldType::Number,
            "Charge for disposing of garden waste, in pounds",
            "Do you charge extra for garden waste?",
            reply,
        )
    };
    assert_eq!(
        charge(
            "Nope, garden waste costs nothing. It's only rubble we charge for, three quid a bag."
        ),
        json!(0)
    );
    assert_eq!(
        charge("It's nothing special, twelve pounds a load."),
        json!(12)
    );
}

/// "So a one-hour minimum for this video booking." "Right.": the asker's
/// check-back, said with "a one-hour", is confirmed over the amounts of
/// the reply before it.
#[test]
fn a_one_hour_check_back_confirmed_stands() {
    let fields = [field(
        "minimum_hours",
        FieldType::Number,
        "Minimum billable hours for this booking",
    )];
    let out = run(
        &fields,
        "Agent: Is there a minimum number of hours per booking?\n\
         Recipient: Two hours minimum. Oh, hold on, for video it's actually just one hour. The two-hour minimum is in-person only.\n\
         Agent: So a one-hour minimum for this video booking.\n\
         Recipient: Right.\n\
         Agent: Thank you.",
    );
    assert_eq!(out["minimum_hours"], json!(1));
}

/// "Two fifty a pound" is per pound of weight (2.50); "Groups of twenty or
/// more get two dollars" is a figure past a threshold, not the regular one.
#[test]
fn a_price_a_pound_and_a_threshold() {
    let per_pound = one_exchange(
        "price_per_pound",
        FieldType::Number,
        "Regular price of picked strawberries per pound, in dollars",
        "What's the price per pound?",
        "Okay, then it's the regular price, two fifty a pound. Groups of twenty or more get two dollars.",
    );
    assert_eq!(per_pound, json!(2.5));
}

/// "Delivery is fifteen dollars. Where are you located?" "Northgate."
/// "Oh, that's outside our zone. That'd be twenty-five then.": told what
/// it asked back, the answering side settles the amount.
#[test]
fn an_amount_settled_after_asking_back() {
    let fields = [field(
        "delivery_fee",
        FieldType::Number,
        "Delivery fee to the office, in dollars",
    )];
    let call = |settled: &str| {
        run(
            &fields,
            &format!(
                "Agent: Do you deliver, and what's the fee?\n\
                 Recipient: Delivery is fifteen dollars. Where are you located?\n\
                 Agent: Four-ten Harlow Street, in Northgate.\n\
                 Recipient: {settled}\n\
                 Agent: That's fine, thank you."
            ),
        )["delivery_fee"]
            .clone()
    };
    assert_eq!(
        call("Oh, Northgate's outside our zone. That'd be twenty-five then, sorry."),
        json!(25)
    );
    assert_eq!(call("Great, we're there Fridays."), json!(15));
}

/// "And to lock in the date?" "Deposit's a couple hundred, non-refundable.":
/// a reply that opens by naming the field as what it states gives its
/// amount, asked in those words or not.
#[test]
fn a_reply_opening_with_the_field_gives_its_amount() {
    let deposit = |reply: &str| {
        one_exchange(
            "deposit_amount",
            FieldType::Number,
            "Deposit to hold the date, in dollars",
            "And to lock in the date?",
            reply,
        )
    };
    assert_eq!(
        deposit("Deposit's a couple hundred, non-refundable, then the balance on the day."),
        json!(200)
    );
    assert_eq!(
        deposit("We'd need two hundred, then the balance on the day."),
        Value::Null
    );
}

/// "You're at fourteen fifty per apron": an amount a price is at, not a
/// time of day.
#[test]
fn youre_at_an_amount_is_a_price() {
    let apron = one_exchange(
        "price_per_apron",
        FieldType::Number,
        "Price per apron, in dollars",
        "How much per apron?",
        "You're at fourteen fifty per apron, there's a one-time digitizing fee of forty-five.",
    );
    assert_eq!(apron, json!(14.5));
}

/// Everyday ways to say an amount: "on the house" is nothing, "me and two
/// friends" are three in a party.
#[test]
fn everyday_amounts() {
    let price = one_exchange(
        "service_price",
        FieldType::Number,
        "Price of the service, in dollars",
        "How much is the service?",
        "It's on the house.",
    );
    assert_eq!(price, json!(0));
    let party = one_exchange(
        "party_size",
        FieldType::Number,
        "Number of people in the party",
        "How many people?",
        "Me and two friends.",
    );
    assert_eq!(party, json!(3));
}

/// "Three hundred a week" for a monthly rent: a rate over another period
/// is no value of it.
#[test]
fn a_rate_over_another_period_is_no_value() {
    let rent = |reply: &str| {
        one_exchange(
            "rent",
            FieldType::Number,
            "Monthly rent in dollars",
            "What's the rent?",
            reply,
        )
    };
    assert_eq!(rent("Three hundred a week."), Value::Null);
    assert_eq!(rent("Twelve hundred a month, plus utilities."), json!(1200));
}

/// "What time do you open?" "Nine.": a bare hour answers a question
/// about the time; "half eight" is half past eight; for an opening hour,
/// a time after "till" ends the day, unless the day is said not to begin
/// till then.
#[test]
fn hours_said_bare_and_the_british_way() {
    let opens = |reply: &str| -> Value {
        one_exchange(
            "opening_hour",
            FieldType::Number,
            "Hour the shop opens, on a 24-hour clock",
            "What time do you open?",
            reply,
        )
    };
    assert_eq!(opens("Nine."), json!(9));
    assert_eq!(opens("Half eight."), json!(8.5));
    assert_eq!(opens("Nine on weekdays, ten on Saturdays."), Value::Null);
    assert_eq!(
        opens("We open the doors at eight in the morning and we're there till half five."),
        json!(8)
    );
    let closes = one_exchange(
        "closing_time",
        FieldType::String,
        "Time the shop closes",
        "What time do you close?",
        "Half five.",
    );
    assert_eq!(closes, json!("5:30"));
}
