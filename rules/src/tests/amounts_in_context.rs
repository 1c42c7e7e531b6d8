//! The offline extractor on invented calls: amounts read in the light of
//! the field's description (an amount it states, what it sets apart) and
//! of later turns (a confirmation, a decline, a correction made while
//! answering something else).

use super::numbers::number;
use super::{field, one_exchange, run};
use agentcall::domain::FieldType;
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

/// "Depends what the sky's doing. Ten minutes on a flat day, half an hour
/// if the thermals are going.": an amount that varies is no single value,
/// unless the field asks for one end of its range.
#[test]
fn an_amount_that_depends_is_no_single_value() {
    let flight = one_exchange(
        "flight_minutes",
        FieldType::Number,
        "How long the trial flight lasts, in minutes",
        "How long does the flight last?",
        "Ah, depends what the sky's doing. Ten minutes on a flat day, half an hour if the thermals are going.",
    );
    assert_eq!(flight, Value::Null);
    let longest = one_exchange(
        "flight_minutes_max",
        FieldType::Number,
        "Upper end of the trial flight's length, in minutes",
        "How long does the flight last?",
        "Twenty to forty minutes. Depends how the thermals are.",
    );
    assert_eq!(longest, json!(40));
}

/// "The ticket says one sixty-five, but that was before he found more. It'll
/// be more. I couldn't tell you how much yet.": the amount said no longer
/// holds.
#[test]
fn an_amount_said_to_be_outgrown_is_no_value() {
    let cost = one_exchange(
        "repair_cost",
        FieldType::Number,
        "Estimated repair cost in dollars",
        "What would the repair cost?",
        "The ticket says one sixty-five, but that was before he found cracked solder joints too. It'll be more. I couldn't tell you how much yet.",
    );
    assert_eq!(cost, Value::Null);
}

/// "Price of the shared room rather than the private one": what the
/// description sets apart with "rather than" or "instead of" is another
/// thing's amount.
#[test]
fn rather_than_sets_apart() {
    let shared = |reply: &str| {
        one_exchange(
            "shared_room_price",
            FieldType::Number,
            "Price of a shared room rather than a private room, in pounds",
            "What would it cost?",
            reply,
        )
    };
    assert_eq!(shared("The private room is ninety."), Value::Null);
    assert_eq!(shared("Sixty for the shared room."), json!(60));
}

/// "Install is three forty-nine, and monitoring runs twenty-nine
/// ninety-nine a month.": a sentence with an amount for each field it
/// names answers both, each from its own clause.
#[test]
fn one_sentence_answers_two_fields_clause_by_clause() {
    let fields = [
        field(
            "install_price",
            FieldType::Number,
            "Installation price for the basic package, in dollars",
        ),
        field(
            "monthly_monitoring",
            FieldType::Number,
            "Monthly monitoring fee, in dollars",
        ),
    ];
    let out = run(
        &fields,
        "Agent: What would installation cost, and what's monitoring per month?\n\
         Recipient: For that setup, install is three forty-nine, and monitoring runs twenty-nine ninety-nine a month.\n\
         Agent: Thank you.",
    );
    assert_eq!(out["install_price"], json!(349));
    assert_eq!(out["monthly_monitoring"], json!(29.99));
}

/// "Forty-five, I think.": an amount said as a belief is no value; a
/// belief in an earlier sentence of the reply is superseded ("A couple
/// dozen, I think. … Thirty-one so far.").
#[test]
fn an_amount_said_as_a_belief() {
    let price = one_exchange(
        "service_price",
        FieldType::Number,
        "Price of the service, in dollars",
        "How much is the service?",
        "Forty-five, I think.",
    );
    assert_eq!(price, Value::Null);
    let guests = one_exchange(
        "guest_count",
        FieldType::Number,
        "Number of guests expected",
        "How many guests are you expecting?",
        "A couple dozen, I think. Let me look at the list... oh, more than I thought. Thirty-one so far.",
    );
    assert_eq!(guests, json!(31));
}

/// "What does it cost to hire the hall, and is there a deposit?": a
/// question asking two things, clause by clause, raises both fields.
#[test]
fn a_question_asking_two_things_raises_both() {
    let fields = [
        field(
            "hire_price",
            FieldType::Number,
            "Price to hire the hall, in pounds",
        ),
        field(
            "deposit",
            FieldType::Number,
            "Refundable deposit, in pounds",
        ),
    ];
    let out = run(
        &fields,
        "Agent: What does it cost to hire the hall, and is there a deposit?\n\
         Recipient: Two hundred for the evening, plus a fifty pound deposit you get back.\n\
         Agent: Thanks.",
    );
    assert_eq!(out["deposit"], json!(50));
}
