//! The offline extractor on invented calls: amounts read in the light of
//! the field's description (an amount it states, what it sets apart) and
//! of later turns (a confirmation, a decline, a correction made while
//! answering something else).

use super::numbers::number;
use super::{field, run};
use crate::domain::FieldType;
use serde_json::{Value, json};

/// "for a household of two": a two said the way the description says it
/// is what the field is said of, not its value; a two said otherwise is.
#[test]
fn an_amount_said_as_the_description_says_it_is_no_value() {
    assert_eq!(
        number(
            "income_limit",
            "Annual income limit for a household of two, in dollars",
            "What's the income limit?",
            "For a household of two it's forty-one thousand."
        ),
        json!(41000)
    );
    assert_eq!(
        number(
            "young_driver_fee",
            "Daily fee for drivers under 25, in dollars",
            "What's the young driver fee?",
            "It's twenty-five a day."
        ),
        json!(25)
    );
}

/// A plain yes confirms what the asker said of the field, not a figure of
/// another sentence of the same turn.
#[test]
fn a_confirmation_confirms_the_sentence_about_the_field() {
    let fields = [field(
        "income_limit",
        FieldType::Number,
        "Annual household income limit, in dollars",
    )];
    let out = run(
        &fields,
        "Recipient: How many people in the household?\n\
         Agent: Just her and her son, so two. I read the income limit is fifty-two thousand a year. Is that right?\n\
         Recipient: Yes, that's correct.\n\
         Agent: Thank you.",
    );
    assert_eq!(out["income_limit"], json!(52000));
}

/// "before tax and fees" sets apart what is added on top; "plus tax"
/// after an amount names no other charge.
#[test]
fn add_ons_the_description_sets_apart_are_no_value() {
    assert_eq!(
        number(
            "group_rate",
            "Group rate per room per night before tax and fees, in dollars",
            "What would the group rate be?",
            "One forty-nine a night, plus tax and the twelve-dollar resort fee."
        ),
        json!(149)
    );
    assert_eq!(
        number(
            "listed_price",
            "Listed price in dollars before tax",
            "What's the listed price?",
            "It's eighteen four ninety-five plus tax."
        ),
        json!(18495)
    );
    // "before" sets apart only what is added on top of a price.
    assert_eq!(
        number(
            "deposit_before_wedding",
            "Deposit due before the wedding, in dollars",
            "What deposit is due before the wedding?",
            "Five hundred, due a month before the wedding."
        ),
        json!(500)
    );
}

/// "Can't quote that ahead of time" to the question asked again leaves it
/// unanswered, whatever was said before for another option.
#[test]
fn cannot_quote_declines() {
    let fields = [field(
        "level2_price",
        FieldType::Number,
        "Price of a Level 2 camera inspection, in dollars",
    )];
    let out = run(
        &fields,
        "Agent: What does an inspection cost?\n\
         Recipient: A standard sweep is one fifty and that includes a Level 1 inspection.\n\
         Agent: And a Level 2 inspection?\n\
         Recipient: It depends what the tech finds, I can't quote that ahead of time.\n\
         Agent: Understood.",
    );
    assert_eq!(out["level2_price"], Value::Null);
}

/// A later turn that names the amount again and says it was wrong gives
/// the field's amount in what follows, though it answers another
/// question; a later "instead" about something else corrects nothing.
#[test]
fn a_later_turn_that_takes_an_amount_back_corrects_it() {
    let fields = [
        field(
            "nightly_rate",
            FieldType::Number,
            "Nightly rate for the king room, in dollars",
        ),
        field(
            "king_available",
            FieldType::Boolean,
            "Whether a king room is free",
        ),
        field(
            "breakfast_included",
            FieldType::Boolean,
            "Whether breakfast is included",
        ),
    ];
    let out = run(
        &fields,
        "Agent: What's the nightly rate for the king?\n\
         Recipient: That's one seventy-nine a night.\n\
         Agent: And is breakfast included?\n\
         Recipient: It is. Oh, sorry. One seventy-nine is the queen, I was looking at the wrong line. The king's two oh nine.\n\
         Agent: Got it, thanks.",
    );
    assert_eq!(out["nightly_rate"], json!(209));

    let fields = [field(
        "max_people",
        FieldType::Number,
        "Maximum number of people the boat takes",
    )];
    let out = run(
        &fields,
        "Agent: How many people can the boat take?\n\
         Recipient: I can take six max.\n\
         Agent: What time do you leave?\n\
         Recipient: We go out at six. Well, on the twenty-second we'll leave at seven instead.\n\
         Agent: Thanks.",
    );
    assert_eq!(out["max_people"], json!(6));
}

/// An hour of the day: a window that ends at noon began in the morning;
/// a time said for the other end of the day ("We close at eleven" for an
/// opening hour) or for another option ("Saturdays it's one" for a
/// weekday) is not the field's.
#[test]
fn hours_of_the_day_in_their_context() {
    assert_eq!(
        number(
            "arrival_window_start",
            "Start of the arrival window, as an hour on a 24-hour clock",
            "When would the plumber get there?",
            "Tomorrow, arrival window nine to noon."
        ),
        json!(9)
    );
    assert_eq!(
        number(
            "weekday_open_hour",
            "Opening time on weekdays, hour on a 24-hour clock",
            "What time do you open?",
            "We open at nine on weekdays. We close at eleven every night."
        ),
        json!(9)
    );
    assert_eq!(
        number(
            "weekday_closing_hour",
            "Closing time on weekdays, hour on a 24-hour clock",
            "What time do you close on weekdays?",
            "Weekdays we close at five pm. Saturdays it's one o'clock."
        ),
        json!(17)
    );
    // A window names both its ends: "open six to ten" gives a closing hour.
    assert_eq!(
        number(
            "gate_close_hour",
            "Hour the gate closes, on a 24-hour clock",
            "What are the access hours?",
            "Gate's open six a.m. to ten p.m., every day."
        ),
        json!(22)
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

/// A price per portion of food is in dollars and cents; a price per night
/// is in whole dollars.
#[test]
fn a_price_per_portion_is_in_dollars_and_cents() {
    assert_eq!(
        number(
            "price_per_slice",
            "Price per slice of cake, in dollars",
            "How is the cake priced?",
            "It's by the slice, four seventy-five a slice."
        ),
        json!(4.75)
    );
    assert_eq!(
        number(
            "nightly_rate",
            "Nightly rate, in dollars",
            "What's the nightly rate?",
            "It's four seventy-five a night."
        ),
        json!(475)
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

/// Options in their context: weeknights leave out a Friday the reply
/// names on its own, days said together share their price, and an option
/// the description says the field is not ("not in a block") is another's.
#[test]
fn options_said_together_or_denied() {
    assert_eq!(
        number(
            "friday_hourly_rate",
            "Hourly rate for the room on a Friday night, in dollars",
            "What's the hourly rate on a Friday?",
            "Weeknights it's fifty-five an hour, Fridays and Saturdays it's eighty."
        ),
        json!(80)
    );
    assert_eq!(
        number(
            "single_lesson_price",
            "Price of one lesson booked on its own (not in a block), in dollars",
            "What does a single lesson cost?",
            "A single lesson is fifty-five. But if he books the block of ten, it's fifty each."
        ),
        json!(55)
    );
}

/// "Every other week" is its own option, beside weekly.
#[test]
fn every_other_week_is_not_weekly() {
    assert_eq!(
        number(
            "biweekly_visit_price",
            "Price per visit for every-other-week cleaning, in dollars",
            "What would it cost per visit?",
            "Weekly is a hundred and ten a visit, and every other week is a hundred and fifty a visit."
        ),
        json!(150)
    );
}

/// "A half day's thirty-two pounds" is no full-day fee.
#[test]
fn a_half_days_price_is_no_full_days() {
    assert_eq!(
        number(
            "full_day_fee",
            "Fee for one full day, in pounds",
            "What's the fee for a full day?",
            "Most of our little ones do half days, and a half day's thirty-two pounds."
        ),
        Value::Null
    );
}

/// A fee waived on a condition is still the fee; one waived outright is
/// none.
#[test]
fn a_fee_waived_on_a_condition_is_still_the_fee() {
    let fields = [field(
        "diagnostic_fee",
        FieldType::Number,
        "Service call fee, in dollars",
    )];
    let out = run(
        &fields,
        "Agent: Is there a service call fee?\n\
         Recipient: If he goes ahead with the repair, that gets waived.\n\
         Agent: Okay.",
    );
    assert_eq!(out["diagnostic_fee"], Value::Null);
    let out = run(
        &fields,
        "Agent: Is there a service call fee?\n\
         Recipient: This month it's waived.\n\
         Agent: Okay.",
    );
    assert_eq!(out["diagnostic_fee"], json!(0));
}

/// An amount said per a stretch of time counts nothing, unless the field
/// counts per one too.
#[test]
fn an_amount_per_month_is_no_count() {
    assert_eq!(
        number(
            "desks_in_office",
            "Number of desks the office holds",
            "How many desks would that office hold?",
            "Hot desks are three fifty a month each."
        ),
        Value::Null
    );
    assert_eq!(
        number(
            "classes_per_week",
            "Number of classes per week",
            "How many classes a week?",
            "Two a week."
        ),
        json!(2)
    );
}

/// Upload and download are options of one kind: a figure for one is
/// none for the other.
#[test]
fn upload_is_no_download() {
    assert_eq!(
        number(
            "download_mbps",
            "Typical download speed, in Mbps",
            "What download speed does the plan give?",
            "Upload's around a hundred and ten."
        ),
        Value::Null
    );
}

/// An amount stated of the field unasked and repeated at once by the
/// asker is given as clearly as an answer; one the asker does not repeat
/// is not.
#[test]
fn an_amount_the_asker_repeats_at_once_is_given() {
    let fields = [field(
        "price_per_visit",
        FieldType::Number,
        "Price per mowing visit, in dollars",
    )];
    let call = |echo: &str| {
        format!(
            "Recipient: How big's the lot?\n\
             Agent: About a third of an acre.\n\
             Recipient: Okay, for lots that size that'd be fifty-five a visit.\n\
             Agent: {echo} How often would you come?\n\
             Recipient: Every two weeks."
        )
    };
    assert_eq!(
        run(&fields, &call("Fifty-five, got it."))["price_per_visit"],
        json!(55)
    );
    assert_eq!(run(&fields, &call("Okay."))["price_per_visit"], Value::Null);
}

/// "Between eight and noon" is a window on the clock, no length in hours.
#[test]
fn an_hour_joined_to_a_time_of_day_is_no_length() {
    assert_eq!(
        number(
            "arrival_window_hours",
            "Length of the arrival window, in hours",
            "What time would the technician arrive?",
            "Between eight and noon."
        ),
        Value::Null
    );
}

/// Counter-examples to this round's rules, from their review: each stays
/// as it was read before them.
#[test]
fn what_the_new_rules_leave_alone() {
    // "seven to twelve o'clock" may end at midnight.
    assert_eq!(
        number(
            "event_start_hour",
            "Start time of the evening reception, hour on a 24-hour clock",
            "What time is the reception?",
            "The hall is yours from seven to twelve o'clock."
        ),
        json!(19)
    );
    // A correction about what the turn was asked speaks of that.
    let fields = [field(
        "security_deposit",
        FieldType::Number,
        "Refundable security deposit in dollars",
    )];
    let out = run(
        &fields,
        "Agent: What's the security deposit?\n\
         Recipient: Two hundred.\n\
         Agent: And the cleaning fee?\n\
         Recipient: Two hundred as well. Hmm, no, that's wrong. Cleaning is seventy-five.\n\
         Agent: Thanks.",
    );
    assert_eq!(out["security_deposit"], json!(200));
    // A day flipped by "closed" joins no other.
    assert_eq!(
        number(
            "wednesday_rate",
            "Hourly rate on Wednesdays, in dollars",
            "What's the rate on Wednesday?",
            "We're closed Monday, Tuesday it's sixty."
        ),
        Value::Null
    );
    // "starts" names no opening of the day.
    assert_eq!(
        number(
            "last_appointment_hour",
            "Latest appointment time, hour on a 24-hour clock",
            "What's the latest appointment?",
            "The latest appointment starts at four pm."
        ),
        json!(16)
    );
    // "Closed Mondays" names no other day on its own.
    assert_eq!(
        number(
            "saturday_open_hour",
            "Opening hour on Saturdays, on a 24-hour clock",
            "What time do you open on Saturdays?",
            "We're closed Mondays, weekends we open at ten."
        ),
        json!(10)
    );
    // A count per month that reads as no money still counts.
    assert_eq!(
        number(
            "classes_included",
            "Number of classes the membership includes",
            "How many classes does it include?",
            "Eight a month."
        ),
        json!(8)
    );
    // Catering per serving may run to hundreds.
    assert_eq!(
        number(
            "catering_price",
            "Catering price per serving, in dollars",
            "What's the catering price?",
            "It's one twenty-five a serving, plated."
        ),
        json!(125)
    );
    // "If you're asking about online" is no condition.
    assert_eq!(
        number(
            "online_fee",
            "Fee for booking online, in dollars",
            "Is there a fee for booking online?",
            "If you're asking about online, it's waived."
        ),
        json!(0)
    );
}

/// One amount in an unasked sentence that names the field strongly is
/// given; one in a sentence that barely touches it is not.
#[test]
fn an_amount_stated_of_the_field_unasked_is_given() {
    let fields = [field(
        "diagnostic_fee",
        FieldType::Number,
        "Diagnostic visit fee, in dollars",
    )];
    let out = run(
        &fields,
        "Agent: Her dishwasher is leaking, it's a Bosch.\n\
         Recipient: Bosch, sure. So the diagnostic visit fee is seventy-nine.\n\
         Agent: Okay, and when could someone come?\n\
         Recipient: Thursday.",
    );
    assert_eq!(out["diagnostic_fee"], json!(79));
    let out = run(
        &fields,
        "Agent: Her dishwasher is leaking, it's a Bosch.\n\
         Recipient: Bosch, sure, the visit would be Thursday, about seventy-nine minutes out.\n\
         Agent: Okay.",
    );
    assert_eq!(out["diagnostic_fee"], Value::Null);
}

/// Counter-examples to the echo and the amount stated unasked, from their
/// review: a condition, a per-unit amount or a question echo gives
/// nothing.
#[test]
fn what_the_echo_and_unasked_amounts_leave_alone() {
    let fee = [field(
        "cleaning_fee",
        FieldType::Number,
        "Cleaning fee, in dollars",
    )];
    let out = run(
        &fee,
        "Agent: She'd like to book the cabin for the weekend.\n\
         Recipient: Sure. If you bring a pet, the cleaning fee would be seventy-five.\n\
         Agent: We won't bring a pet.",
    );
    assert_eq!(out["cleaning_fee"], Value::Null);
    let total = [field(
        "total_price",
        FieldType::Number,
        "Total price of the party package, in dollars",
    )];
    let out = run(
        &total,
        "Agent: It's for twelve kids.\n\
         Recipient: The party package price is eighteen per child.\n\
         Agent: Eighteen, got it.",
    );
    assert_eq!(out["total_price"], Value::Null);
    let deposit = [field(
        "deposit_amount",
        FieldType::Number,
        "Deposit amount, in dollars",
    )];
    let out = run(
        &deposit,
        "Agent: She'd like to book the hall.\n\
         Recipient: Most people put down a deposit of two hundred, but for you it might differ.\n\
         Agent: Two hundred? Is that the same for weekdays?\n\
         Recipient: I'd need to check, honestly.",
    );
    assert_eq!(out["deposit_amount"], Value::Null);
}
