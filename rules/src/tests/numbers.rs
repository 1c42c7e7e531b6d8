//! The offline extractor on invented calls: amounts, counts and durations.

use super::{field, one_exchange, run};
use agentcall::domain::FieldType;
use serde_json::{Value, json};

#[test]
fn reads_final_answer_after_correction() {
    let fields = [field(
        "party_size",
        FieldType::Number,
        "Number of people coming",
    )];
    let transcript = "Agent: How many people will be coming?\n\
             Recipient: Four of us. Actually, make that three, my brother can't come.\n\
             Agent: Three, got it.";
    assert_eq!(run(&fields, transcript)["party_size"], json!(3));
}

/// A field that names one option (the weekend rate) is not answered by
/// the amount for another (the weekday rate).
#[test]
fn an_amount_for_another_option_is_not_the_fields() {
    let rate = |reply: &str| {
        one_exchange(
            "weekend_rate",
            FieldType::Number,
            "Nightly rate on weekends in dollars",
            "What's your nightly rate on weekends?",
            reply,
        )
    };
    assert_eq!(rate("Weekdays are a hundred and ten a night."), Value::Null);
    assert_eq!(
        rate("Weekdays are a hundred and ten, Saturdays one forty."),
        json!(140)
    );
    assert_eq!(rate("It's one forty a night."), json!(140));
    let fields = [field(
        "child_ticket_price",
        FieldType::Number,
        "Price of one child ticket in dollars",
    )];
    let transcript = "Agent: How much is a child ticket?\n\
                      Recipient: Adults are twenty-two. Kids are fourteen ninety-nine.\n\
                      Agent: Thank you.";
    assert_eq!(run(&fields, transcript)["child_ticket_price"], json!(14.99));
}

/// An amount the agent puts in a question and the recipient plainly
/// confirms is the answer; a qualified or corrected confirmation is not.
#[test]
fn an_amount_the_recipient_confirms() {
    let fields = [field("deposit", FieldType::Number, "Deposit in dollars")];
    let reply = |words: &str| {
        let transcript = format!(
            "Agent: Your website says the deposit is two hundred dollars, is that still right?\n\
             Recipient: {words}\nAgent: Great."
        );
        run(&fields, &transcript)["deposit"].clone()
    };
    assert_eq!(reply("That's right."), json!(200));
    assert_eq!(reply("Yes, still is."), json!(200));
    assert_eq!(reply("It was, but it went up in May."), Value::Null);
    assert_eq!(reply("Not anymore, it's two fifty now."), json!(250));
}

/// Amounts read in context: a hold revises the figure before it, a price
/// for a single pen is not the shared one, and an ambiguous amount beside
/// plain ones is of their order.
#[test]
fn amounts_in_context() {
    let stock = [field(
        "quarter_size_available",
        FieldType::Number,
        "Number of quarter-size violins in stock",
    )];
    let transcript = "Agent: Do you have twelve quarter-size violins in stock?\n\
                      Recipient: Twelve quarter-size... let me look. I've got nine of those in stock.\n\
                      Agent: Thanks.";
    assert_eq!(run(&stock, transcript)["quarter_size_available"], json!(9));
    let shared = [field(
        "sharedPenRate",
        FieldType::Number,
        "Nightly rate for a shared pen in pounds",
    )];
    let transcript = "Agent: What would a shared pen cost per night?\n\
                      Recipient: Our single pens are fourteen pounds a night.\n\
                      Agent: Thanks.";
    assert_eq!(run(&shared, transcript)["sharedPenRate"], Value::Null);
    let day = [field(
        "fullDayPrice",
        FieldType::Number,
        "Price for full-day coverage in pounds",
    )];
    let transcript = "Agent: What do you charge for a full day?\n\
                      Recipient: Half day's eleven hundred, full day's nineteen fifty.\n\
                      Agent: Thanks.";
    assert_eq!(run(&day, transcript)["fullDayPrice"], json!(1950));
}

/// A count of another noun is not the field's count, and "free all
/// morning" is no price.
#[test]
fn counts_of_other_nouns_and_free_time() {
    let servings = [field(
        "servings",
        FieldType::Number,
        "Number of guests the cake serves",
    )];
    let transcript = "Agent: How many guests will the cake serve?\n\
                      Recipient: Three tiers feeds eighty, so that works.\n\
                      Agent: Lovely.";
    assert_eq!(run(&servings, transcript)["servings"], json!(80));
    let rate = [field(
        "rate_per_pupil",
        FieldType::Number,
        "Price per pupil in pounds",
    )];
    let transcript = "Agent: What's the rate per pupil, and when could they come?\n\
                      Recipient: Wednesday the sixteenth is free all morning.\n\
                      Agent: Thanks.";
    assert_eq!(run(&rate, transcript)["rate_per_pupil"], Value::Null);
}

#[test]
fn a_price_in_pounds_is_money_and_we_are_free_is_no_price() {
    let fields = [field(
        "quote_amount",
        FieldType::Number,
        "Quoted price in pounds",
    )];
    let transcript = "Agent: She'd like a quote for the third of June.\n\
             Recipient: Third of June, we're free.";
    assert_eq!(run(&fields, transcript)["quote_amount"], Value::Null);
    let transcript = "Agent: What's the price of the quote?\n\
             Recipient: Four twenty-five all in.";
    assert_eq!(run(&fields, transcript)["quote_amount"], json!(425));
}

#[test]
fn a_closing_unit_decides_over_a_duration_word() {
    let fields = [field(
        "max_group",
        FieldType::Number,
        "Maximum group size for a day visit, in people",
    )];
    let transcript = "Agent: What's the most you can take for a day visit?\n\
             Recipient: Day groups use the big studio, and that takes thirty.\n\
             Agent: And the price?\n\
             Recipient: It's sixty-five a head.";
    assert_eq!(run(&fields, transcript)["max_group"], json!(30));
}

#[test]
fn the_rest_of_a_turn_that_revises_the_field_answers_it() {
    let fields = [field(
        "hookup_cost_per_night",
        FieldType::Number,
        "Cost of electric hookup per night, in pounds",
    )];
    let transcript = "Agent: How much is the electric hookup?\n\
             Recipient: Four pound a night on top of the pitch.\n\
             Agent: Are dogs allowed?\n\
             Recipient: Yes, on a lead.\n\
             Recipient: Oh, and I told you wrong on the hookup, sorry. It went up in April. It's four fifty now.\n\
             Agent: Noted, thank you.";
    assert_eq!(
        run(&fields, transcript)["hookup_cost_per_night"],
        json!(4.5)
    );
}

/// A later turn that names the field and takes its amount back ("the old
/// sheet") corrects it in the sentences that follow, whatever that turn
/// answers; naming another field does not.
#[test]
fn a_later_turn_naming_the_field_and_taking_it_back_corrects_it() {
    let fields = [
        field(
            "min_order_kg",
            FieldType::Number,
            "Minimum weekly order, in kilograms",
        ),
        field("roast_day", FieldType::String, "Day of the week they roast"),
    ];
    let transcript = "Agent: Is there a minimum order?\n\
             Recipient: Five kilos a week for wholesale accounts.\n\
             Agent: Which day of the week do you roast?\n\
             Recipient: Tuesdays. Oh, and the minimum, sorry, I was reading off the old sheet. \
             We dropped it in the spring. It's three kilos now.\n\
             Agent: Three kilos a week, got it.";
    assert_eq!(run(&fields, transcript)["min_order_kg"], json!(3));
    // Taking back something else leaves the answer standing.
    let transcript = transcript
        .replace("the minimum, sorry", "the delivery slot, sorry")
        .replace(
            "three kilos now.\nAgent: Three kilos a week",
            "three days now.\nAgent: Three days",
        );
    assert_eq!(run(&fields, &transcript)["min_order_kg"], json!(5));
}

#[test]
fn the_askers_own_figure_does_not_compete_with_the_answer() {
    let fields = [field(
        "day_rate_per_person",
        FieldType::Number,
        "Price per person for a day visit, in pounds",
    )];
    let transcript = "Agent: What do you charge per person for a day visit?\n\
             Recipient: Depends on the sessions.\n\
             Agent: Their budget is about seventy pounds per person. Would that cover it?\n\
             Recipient: Easily, it's sixty-five a head, lunch included.";
    assert_eq!(run(&fields, transcript)["day_rate_per_person"], json!(65));
}

#[test]
fn a_time_of_day_is_no_length_and_quarters_are_read() {
    let fields = [field(
        "lesson_minutes",
        FieldType::Number,
        "Length of one lesson, in minutes",
    )];
    let transcript = "Agent: How long is each lesson?\n\
             Recipient: They run an hour and a quarter.";
    assert_eq!(run(&fields, transcript)["lesson_minutes"], json!(75));
    let transcript = "Agent: How long is each lesson?\n\
             Recipient: Forty-five minutes. So seven thirty.";
    assert_eq!(run(&fields, transcript)["lesson_minutes"], json!(45));
}

#[test]
fn a_value_for_another_package_or_size_is_no_answer() {
    let fields = [field(
        "single_lesson_price",
        FieldType::Number,
        "Price of one single group lesson, in pounds",
    )];
    let transcript = "Recipient: Groups are ages eight and up.\n\
             Agent: How much is a single group lesson?\n\
             Recipient: Most families go for the five-day block, that's a hundred and fifty.";
    assert_eq!(run(&fields, transcript)["single_lesson_price"], Value::Null);
    let fields = [field(
        "day_pass_price",
        FieldType::Number,
        "Price of a single day pass in dollars",
    )];
    let transcript = "Agent: How much is a day pass?\n\
             Recipient: A day pass is thirty-five, or there's a three-day bundle for ninety.";
    assert_eq!(run(&fields, transcript)["day_pass_price"], json!(35));
    let fields = [field(
        "inspection_price",
        FieldType::Number,
        "Price of the inspection for the two-bedroom flat in pounds",
    )];
    let transcript = "Agent: What do you charge for the inspection?\n\
             Recipient: One-beds are a hundred and forty.";
    assert_eq!(run(&fields, transcript)["inspection_price"], Value::Null);
}

#[test]
fn an_amount_not_set_yet_or_said_of_something_else_is_no_answer() {
    let fields = [field(
        "next_season_fee",
        FieldType::Number,
        "Seasonal pitch fee for next year, in pounds",
    )];
    let transcript = "Agent: What will the pitch fee be next year?\n\
             Recipient: This year's was two thousand one hundred and fifty, but the owners haven't set next year's yet.";
    assert_eq!(run(&fields, transcript)["next_season_fee"], Value::Null);
}

#[test]
fn an_amount_of_what_the_description_sets_apart_is_not_the_field() {
    let fields = [field(
        "basic_salary",
        FieldType::Number,
        "Basic annual salary, excluding bonus, in pounds",
    )];
    let transcript = "Agent: What is the basic salary?\n\
             Recipient: There's a bonus on top, last year it was about four grand.";
    assert_eq!(run(&fields, transcript)["basic_salary"], Value::Null);
    let transcript = "Agent: What is the basic salary?\n\
             Recipient: The salary is fifty-two thousand, and there's a bonus on top.";
    assert_eq!(run(&fields, transcript)["basic_salary"], json!(52000));
}

#[test]
fn a_field_that_closes_on_counted_things_is_a_count() {
    let fields = [field(
        "letters_included",
        FieldType::Number,
        "Number of letters included in the base price, in letters",
    )];
    let transcript = "Agent: How many letters come with the base price?\n\
             Recipient: Any extra are one pound eighty each.";
    assert_eq!(run(&fields, transcript)["letters_included"], Value::Null);
    let transcript = "Agent: How many letters come with the base price?\n\
             Recipient: A hundred and twenty letters.";
    assert_eq!(run(&fields, transcript)["letters_included"], json!(120));
}

#[test]
fn an_amount_the_asker_put_and_the_other_side_repeated_stands() {
    let fields = [field(
        "lesson_price",
        FieldType::Number,
        "Price of the beginner lesson in pounds",
    )];
    let transcript = "Agent: The website lists the beginner session at thirty-eight pounds. Is that still right?\n\
             Recipient: Yep, still thirty-eight.";
    assert_eq!(run(&fields, transcript)["lesson_price"], json!(38));
}

#[test]
fn what_would_have_been_is_no_rival_amount() {
    let fields = [field(
        "price_per_guest",
        FieldType::Number,
        "Price per guest in pounds for the roast that was agreed",
    )];
    let transcript = "Agent: What's the price per head?\n\
             Recipient: Lamb's sixteen a head with the salads. The hog would've been thirteen, for what it's worth.";
    assert_eq!(run(&fields, transcript)["price_per_guest"], json!(16));
}

#[test]
fn option_words_after_a_comma_still_name_the_option() {
    let fields = [field(
        "block_price",
        FieldType::Number,
        "Price of a block of classes, in dollars",
    )];
    let transcript = "Agent: How much is a block of classes?\n\
             Recipient: It's twenty-five, for a drop-in.";
    assert_eq!(run(&fields, transcript)["block_price"], Value::Null);
    let fields = [field(
        "class_price",
        FieldType::Number,
        "Price of one class in dollars",
    )];
    let transcript = "Agent: How much is one class?\n\
             Recipient: It's forty-five, of course.";
    assert_eq!(run(&fields, transcript)["class_price"], json!(45));
}

#[test]
fn would_have_to_be_is_an_amount() {
    let fields = [field(
        "holiday_rate",
        FieldType::Number,
        "Nightly rate for the holiday weekend, in dollars",
    )];
    let transcript = "Agent: What's the nightly rate for the holiday weekend?\n\
             Recipient: Usually one fifty. For the holiday weekend it would have to be two hundred.";
    assert_eq!(run(&fields, transcript)["holiday_rate"], json!(200));
}

#[test]
fn a_per_person_limit_is_a_count_of_things_not_people() {
    let fields = [field(
        "max_tickets",
        FieldType::Number,
        "Maximum number of tickets one customer may buy",
    )];
    let transcript = "Agent: How many tickets can one customer buy?\n\
             Recipient: Four per person, and about two hundred left.";
    assert_ne!(run(&fields, transcript)["max_tickets"], json!(200));
}

/// A number that names a thing or a time of day is no amount: a model
/// code, "a 14" for a model, a closing time for a length, the object of
/// "set one up".
#[test]
fn numbers_that_name_things_or_times_are_no_amounts() {
    let fee = |reply: &str| {
        number(
            "repair_fee",
            "Repair fee, in dollars",
            "What would the repair fee be?",
            reply,
        )
    };
    assert_eq!(fee("For the ZX-9, I'd have to see it first."), Value::Null);
    assert_eq!(fee("For a 14, I'd have to order the part in."), Value::Null);
    assert_eq!(fee("For the ZX-9 it's two hundred."), json!(200));
    let warranty = |reply: &str| {
        number(
            "warranty_days",
            "Length of the warranty, in days",
            "Is there a warranty on the repair?",
            reply,
        )
    };
    assert_eq!(
        warranty("It's printed on the receipt. We close at eight."),
        Value::Null
    );
    assert_eq!(warranty("Ninety days, printed on the receipt."), json!(90));
    let discount = number(
        "member_discount_percent",
        "Member discount, in percent",
        "Does she get a member discount?",
        "Only with a card, she can set one up at the desk.",
    );
    assert_eq!(discount, Value::Null);
}

/// "Ninety an hour" is a rate, not a number of hours; "two hours each" is
/// no total; "not forty" sets a figure aside.
#[test]
fn rates_figures_for_each_and_figures_set_aside_are_not_the_fields() {
    assert_eq!(
        number(
            "minimum_hours",
            "Minimum booking length, in hours",
            "Is there a minimum booking?",
            "Sorry, I should have said, weekends are ninety an hour.",
        ),
        Value::Null
    );
    let total = |reply: &str| {
        number(
            "course_total_hours",
            "Total teaching time of the course, in hours",
            "How long is the course?",
            reply,
        )
    };
    assert_eq!(total("It's ten classes, two hours each."), Value::Null);
    assert_eq!(total("Twenty hours in all."), json!(20));
    assert_eq!(
        number(
            "deposit",
            "Deposit, in dollars",
            "What's the deposit?",
            "It's gone up, it's eighty now, not sixty.",
        ),
        json!(80)
    );
}

/// "A pound eighty a letter" is 1.80; "three forty-five a square foot" is
/// 3.45, while "four eighty-five a night" stays 485.
#[test]
fn spoken_rates_per_small_measure_are_dollars_and_cents() {
    assert_eq!(
        number(
            "cost_per_letter",
            "Engraving cost per letter, in pounds",
            "What does the engraving cost per letter?",
            "It's a pound eighty a letter."
        ),
        json!(1.8)
    );
    assert_eq!(
        number(
            "price_per_sqft",
            "Price per square foot, in dollars",
            "What's the price per square foot?",
            "Three forty-five a square foot."
        ),
        json!(3.45)
    );
    assert_eq!(
        number(
            "nightly_rate",
            "Nightly rate, in dollars",
            "What's the nightly rate?",
            "Four eighty-five a night."
        ),
        json!(485)
    );
}

/// "Pounds" are a weight when the field is in dollars.
#[test]
fn pounds_are_a_weight_for_a_field_in_dollars() {
    let total = |desc: &str| {
        let fields = [field("order_total", FieldType::Number, desc)];
        let transcript = "Agent: He'd like to order some leaflets.\n\
             Recipient: Sure. Gloss or matte?\n\
             Agent: Matte, the heavier stock.\n\
             Recipient: Right, the hundred-pound card, sure, we stock it.\n\
             Agent: Thanks.";
        run(&fields, transcript)["order_total"].clone()
    };
    assert_eq!(total("Total price of the order, in dollars"), Value::Null);
}

/// "Free on orders over three hundred dollars": the threshold of a
/// condition is not the fee.
#[test]
fn a_threshold_is_not_the_amount() {
    let fields = [field(
        "delivery_fee",
        FieldType::Number,
        "Delivery fee, in dollars",
    )];
    let transcript = "Agent: What would delivery cost?\n\
         Recipient: Delivery's free on orders over three hundred dollars, and his is well past that.\n\
         Agent: Thanks.";
    assert_eq!(run(&fields, transcript)["delivery_fee"], json!(0));
    let transcript = "Agent: What would delivery cost?\n\
         Recipient: The van's free on Tuesday, and it's eighty dollars.\n\
         Agent: Thanks.";
    assert_eq!(run(&fields, transcript)["delivery_fee"], json!(80));
}

/// An opening time ("open nine till five"), a date ("Thursday the
/// 12th") and a lead time ("twenty minutes ahead") are no lengths or
/// counts; an hour field whose question was dodged takes no time said
/// about something else.
#[test]
fn times_dates_and_lead_times_are_no_lengths_or_counts() {
    assert_eq!(
        number(
            "hire_days",
            "Length of the hire, in days",
            "How long is the standard hire?",
            "We're open eight till six, drop it back any time."
        ),
        Value::Null
    );
    assert_eq!(
        number(
            "visitors",
            "Number of visitors allowed",
            "How many visitors can come?",
            "Let me look, there's a booking on Thursday the 12th."
        ),
        Value::Null
    );
    assert_eq!(
        number(
            "window_hours",
            "Length of the arrival window, in hours",
            "How long is the arrival window?",
            "She'll ring you twenty minutes ahead."
        ),
        Value::Null
    );
    let fields = [field(
        "arrival_hour",
        FieldType::Number,
        "Hour the fitter arrives, on a 24-hour clock",
    )];
    let transcript = "Agent: What's the price?\n\
         Recipient: Two hundred, we open at eight thirty.\n\
         Agent: What time would the fitter arrive?\n\
         Recipient: That depends on the first job.\n\
         Agent: Thanks.";
    assert_eq!(run(&fields, transcript)["arrival_hour"], Value::Null);
}

/// Replies a reviewer found the rules above could misread: estimates
/// ("just over two hundred"), "we're at eight", a notice period, a length
/// per week or per lesson, a size after "a", "twelve till Easter", a price
/// per yard, and "one" that counts.
#[test]
fn amounts_the_new_rules_leave_alone() {
    assert_eq!(
        number(
            "repair_fee",
            "Repair fee, in dollars",
            "What would the repair fee be?",
            "It'd be just over two hundred."
        ),
        json!(200)
    );
    assert_eq!(
        number(
            "booked_count",
            "Number of people booked on the tour",
            "How many are booked on the tour so far?",
            "We're at eight so far."
        ),
        json!(8)
    );
    assert_eq!(
        number(
            "free_cancellation_hours",
            "Hours before the booking she can cancel for free",
            "How late can she cancel for free?",
            "Up to forty-eight hours beforehand."
        ),
        json!(48)
    );
    assert_eq!(
        number(
            "weekly_hours",
            "Hours of work per week",
            "How many hours a week is it?",
            "About thirty a week."
        ),
        json!(30)
    );
    assert_eq!(
        number(
            "shoe_size",
            "Her shoe size",
            "What shoe size is she?",
            "She's a 7."
        ),
        json!(7)
    );
    assert_eq!(
        number(
            "class_size",
            "Number of children in the class",
            "How many children are in the class?",
            "Twelve till Easter, then we split it."
        ),
        json!(12)
    );
    assert_eq!(
        number(
            "price_per_yard",
            "Price of concrete per cubic yard, in dollars",
            "What's the price per yard?",
            "It's one sixty-five a yard."
        ),
        json!(165)
    );
    assert_eq!(
        number(
            "rooms_free",
            "Number of rooms free that night",
            "How many rooms are free that night?",
            "We have one on the ground floor."
        ),
        json!(1)
    );
}

/// The amount read for field `name` after a call of one exchange (see
/// [`one_exchange`]).
pub(super) fn number(name: &str, desc: &str, question: &str, reply: &str) -> Value {
    one_exchange(name, FieldType::Number, desc, question, reply)
}
