//! Amounts said for one of several options or readings: sizes and times
//! of day, another day's hours, the asker's amount confirmed, the speaker
//! counted in a crew, and spoken prices per pack or per small measure.

use super::numbers::number;
use super::{field, one_exchange, run};
use agentcall::domain::FieldType;
use serde_json::{Value, json};

/// The asker's amount confirmed plainly stands, whatever question the
/// reply then asks of its own, or whatever ordinal it names.
#[test]
fn the_askers_amount_confirmed_plainly_stands() {
    let fields = [field(
        "price_per_mow",
        FieldType::Number,
        "Price per mowing visit, in dollars",
    )];
    let out = run(
        &fields,
        "Agent: He was told forty-five dollars a mow. Is that still right?\n\
         Recipient: Yeah, that's right, forty-five. Lot's about a quarter acre, isn't it?\n\
         Agent: That's right.",
    );
    assert_eq!(out["price_per_mow"], json!(45), "{out:?}");
    let fee = [field(
        "callout_fee",
        FieldType::Number,
        "Call-out fee, in pounds",
    )];
    let out = run(
        &fee,
        "Agent: Your website says the call-out fee is sixty-five pounds. Is that still right?\n\
         Recipient: Yep, that's right, and that covers the first hour.\n\
         Agent: Thanks.",
    );
    assert_eq!(out["callout_fee"], json!(65), "{out:?}");
    let out = run(
        &fee,
        "Agent: Your website says the call-out fee is sixty-five pounds. Is that still right?\n\
         Recipient: It was, but it's seventy now.\n\
         Agent: Thanks.",
    );
    assert_eq!(out["callout_fee"], json!(70), "{out:?}");
}

/// "Me and three guys" is a crew of four, and the evidence check agrees.
#[test]
fn the_speaker_counts_in_me_and_others() {
    let crew = |reply: &str| {
        number(
            "crew_size",
            "Number of people in the crew",
            "How many people would come out?",
            reply,
        )
    };
    assert_eq!(
        crew("It'll be me and three guys, plus the bucket truck."),
        json!(4)
    );
    assert_eq!(crew("It'll be three guys and the bucket truck."), json!(3));
}

/// Sizes are options: "small containers are thirty-four, and the large
/// ones are forty-two" gives the large price, and so does a compound of
/// the size and the field's noun ("large-dog suites").
#[test]
fn sizes_are_options() {
    assert_eq!(
        number(
            "large_container_weekly",
            "Weekly hire price of a large container, in dollars",
            "What's the weekly price for a large container?",
            "Our small containers are thirty-four a week, and the large ones are forty-two."
        ),
        json!(42)
    );
    assert_eq!(
        number(
            "large_dog_nightly_rate",
            "Nightly boarding rate for a large dog, in dollars",
            "What do you charge a night for him?",
            "Small dogs are thirty-eight a night, but he'd be in our large-dog suites, which are fifty-two a night."
        ),
        json!(52)
    );
    assert_eq!(
        number(
            "large_dog_groom_price",
            "Price of a groom for a large dog, in dollars",
            "What's a groom for a large dog?",
            "So small dogs start at sixty-five."
        ),
        Value::Null
    );
}

/// "You're looking at fourteen fifty" is a price, not a time; beside
/// "thirty-two hundred" it is 1,450, and so is its echo.
#[test]
fn a_price_one_is_looking_at_is_of_the_order_of_its_siblings() {
    let fields = [field(
        "quote_total",
        FieldType::Number,
        "Installed price for the gas water heater, in dollars",
    )];
    let out = run(
        &fields,
        "Agent: What would it cost to replace it?\n\
         Recipient: For a fifty-gallon gas, installed, you're looking at fourteen fifty. \
         If she wants tankless it's more like thirty-two hundred.\n\
         Agent: Fourteen fifty for the fifty-gallon tank. Thanks.",
    );
    assert_eq!(out["quote_total"], json!(1450), "{out:?}");
}

/// Times of day are options: "daytime is eighteen, and evenings it's
/// twenty-two fifty" gives an evening rate; a word beside the option
/// ("weekday evenings") can make it another's.
#[test]
fn times_of_day_are_options() {
    assert_eq!(
        number(
            "evening_hourly_rate",
            "Hire rate per hour for an evening booking, in pounds",
            "What's the hourly rate for an evening booking?",
            "So, daytime is eighteen pounds an hour, and evenings, after five, it's twenty-two fifty."
        ),
        json!(22.5)
    );
    assert_eq!(
        number(
            "saturday_evening_fee",
            "Fee to hire the hall on a Saturday evening, in dollars",
            "What would a Saturday evening cost?",
            "Weekday evenings are nine hundred and fifty dollars. Saturdays I don't know."
        ),
        Value::Null
    );
}

/// A price per piece of goods or per head is dollars and cents from five
/// dollars up ("eight fifty a tray"), in hundreds below ("one forty
/// each"); a field priced per a small measure reads a bare amount so
/// too ("three oh nine" a gallon).
#[test]
fn a_price_per_piece_is_in_dollars_and_cents_from_five_dollars() {
    assert_eq!(
        number(
            "price_per_tray",
            "Price of a tray of eggs, in pounds",
            "What do you charge for a tray?",
            "Half-dozen boxes are two twenty, but trays are eight fifty a tray."
        ),
        json!(8.5)
    );
    assert_eq!(
        number(
            "price_per_person",
            "Price per person for the dinner, in dollars",
            "What's the price per person?",
            "It's one forty each."
        ),
        json!(140)
    );
    assert_eq!(
        number(
            "fuel_price",
            "Price per gallon, in dollars",
            "What's the price right now?",
            "For will-call he'd be at three oh nine."
        ),
        json!(3.09)
    );
    // A count said near a price per piece stays a count.
    assert_eq!(
        number(
            "max_group_size",
            "Maximum number of students in one group",
            "How big can a group be?",
            "Students are seven fifty each, and we cap groups at thirty-five."
        ),
        json!(35)
    );
}

/// A count is no spoken price: "one sixty-five" (165 or 1.65) counts
/// nothing, and the count beside it stands.
#[test]
fn a_spoken_price_counts_nothing() {
    let fields = [
        field(
            "treatment_price",
            FieldType::Number,
            "Price of a treatment, in dollars",
        ),
        field(
            "follow_up_visits",
            FieldType::Number,
            "Number of follow-up visits included",
        ),
    ];
    let out = run(
        &fields,
        "Agent: What's the price of a treatment, and how many follow-ups come with it?\n\
         Recipient: The initial service is one sixty-five, and that comes with two follow-up visits.\n\
         Agent: Thanks.",
    );
    assert_eq!(out["follow_up_visits"], json!(2), "{out:?}");
    assert_eq!(
        number(
            "follow_up_visits",
            "Number of follow-up visits included",
            "How many follow-ups come with a treatment?",
            "The initial service is one sixty-five, and that comes with a couple of follow-ups."
        ),
        Value::Null
    );
}

/// A percentage said bare is one plain number of at most a hundred: a
/// price beside it ("nineteen fifty") is none.
#[test]
fn a_bare_percentage_is_a_plain_number_up_to_a_hundred() {
    let deposit = |reply: &str| {
        number(
            "deposit_percent",
            "Deposit required to hold the date, as a percentage of the total",
            "And is there a deposit?",
            reply,
        )
    };
    assert_eq!(
        deposit("Half up front. Oh, wait, the five-hour went up, it's nineteen fifty now."),
        Value::Null
    );
    assert_eq!(
        deposit("Twenty-five up front, the rest on the day."),
        json!(25)
    );
}

/// A closing time said for a day neither the field nor its question
/// names ("Saturdays we're open till noon") is another day's; asked of
/// that day, it answers.
#[test]
fn a_time_said_for_another_day_is_that_day_s() {
    let close = |question: &str| {
        number(
            "closing_hour",
            "Time the shop closes, hour on a 24-hour clock",
            question,
            "Five o'clock. Saturdays we're open till noon, if that's easier.",
        )
    };
    assert_eq!(close("What time do you close today?"), json!(17));
    assert_eq!(close("What time do you close on Saturdays?"), json!(12));
}

/// Within one reply, the time whose clause names the field outranks the
/// times of other things ("Doors at seven, …, the headliner's around
/// nine"); a time said for weekdays is no answer for today.
#[test]
fn the_time_said_of_the_field_outranks_other_times() {
    assert_eq!(
        number(
            "doors_open_hour",
            "Hour the doors open, on a 24-hour clock",
            "What time do the doors open?",
            "Doors at seven, support act's on at quarter to eight, and the headliner's around nine."
        ),
        json!(19)
    );
    assert_eq!(
        number(
            "closing_hour",
            "Hour the shop closes today, on a 24-hour clock",
            "What time do you close today?",
            "Weekdays we're open till seven."
        ),
        Value::Null
    );
}

/// "How much is a French bustle?" "Our standard American bustle is a
/// hundred and twenty-five.": the same noun under another capitalised
/// qualifier is another option.
#[test]
fn a_named_qualifier_is_an_option() {
    let french = |reply: &str| {
        one_exchange(
            "french_bustle_price",
            FieldType::Number,
            "Price of adding a French bustle, in dollars",
            "How much is a French bustle?",
            reply,
        )
    };
    assert_eq!(
        french("So our standard American bustle is a hundred and twenty-five."),
        Value::Null
    );
    assert_eq!(french("A French bustle is ninety-five."), json!(95));
}

/// "For internal labs it's a hundred and ten per sample. External rates
/// are higher.": internal and external are options.
#[test]
fn internal_and_external_are_options() {
    let external = one_exchange(
        "external_price_per_sample",
        FieldType::Number,
        "Price per sample for external customers, in dollars",
        "What's the price per sample?",
        "For internal labs it's a hundred and ten per sample. External rates are higher, and finance is revising them.",
    );
    assert_eq!(external, Value::Null);
}
