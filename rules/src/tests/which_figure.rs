//! The offline extractor on invented calls: which figure of a reply is
//! the field's, when the reply names other options, conditions, sizes or
//! days, corrects itself, or is pushed back on.

use super::numbers::number;
use super::{field, run, run_for};
use agentcall::domain::FieldType;
use serde_json::{Value, json};

/// A price for other days is no price for the day the field names.
#[test]
fn a_price_for_other_days_is_none_for_the_day_the_field_names() {
    assert_eq!(
        number(
            "saturday_fee",
            "Hire fee for a Saturday, in dollars",
            "What's the fee on a Saturday?",
            "Fridays and Sundays are six hundred."
        ),
        Value::Null
    );
    assert_eq!(
        number(
            "saturday_fee",
            "Hire fee for a Saturday, in dollars",
            "What's the fee on a Saturday?",
            "Thursday to Saturday it's seven hundred."
        ),
        json!(700)
    );
}

/// The field names what its price is per.
#[test]
fn a_price_per_what_the_field_names_fits() {
    assert_eq!(
        number(
            "price_per_child",
            "Price per child for the whole course, in dollars",
            "What's the price per child?",
            "It's sixty-eight per child for the course. Public skating is nine dollars."
        ),
        json!(68)
    );
}

/// "Just so you know" is an aside, not a correction.
#[test]
fn an_aside_is_no_correction() {
    assert_eq!(
        number(
            "price_per_child",
            "Price per child for the whole course, in dollars",
            "What's the price per child?",
            "For groups it's sixty-eight per child for the whole course. Just so you know, public skating is nine dollars."
        ),
        json!(68)
    );
}

/// The normal rate is no holiday rate, a partial board no full board.
#[test]
fn a_normal_or_partial_option_is_not_the_holiday_or_full_one() {
    assert_eq!(
        number(
            "holiday_nightly_rate",
            "Nightly rate per dog during holiday weeks, in dollars",
            "What's the nightly rate over the holiday?",
            "Our normal rate is forty-five a night. The holiday surcharge isn't posted yet."
        ),
        Value::Null
    );
    assert_eq!(
        number(
            "monthly_full_board",
            "Monthly cost of full board, in dollars",
            "How much is full board a month?",
            "Partial board's eight hundred."
        ),
        Value::Null
    );
}

/// An ambiguous amount is settled by the same amount said plainly before.
#[test]
fn an_ambiguous_amount_is_settled_by_the_same_amount_said_plainly_before() {
    assert_eq!(
        run(
            &[field(
                "monthly_full_board",
                FieldType::Number,
                "Monthly cost of full board, in dollars"
            )],
            "Agent: The website lists full board at eleven hundred and fifty a month. Is that still current?\n\
             Recipient: Yep, eleven-fifty is still right.\n\
             Agent: Thanks."
        )["monthly_full_board"],
        json!(1150)
    );
}

/// A "so" of consequence revises nothing.
#[test]
fn a_so_of_consequence_revises_nothing() {
    assert_eq!(
        number(
            "min_age",
            "Youngest age taught, in years",
            "Her daughter is nine. What's the youngest age you take?",
            "We start kids at seven, so nine is great."
        ),
        // The seven and the nine both stand, so neither is read; without
        // the rule the nine would be taken as a revision.
        Value::Null
    );
}

/// "I read you the mini price before": a retraction, and what follows
/// it answers the field.
#[test]
fn a_retraction_hands_the_field_to_what_follows() {
    assert_eq!(
        run(
            &[field(
                "full_groom_price",
                FieldType::Number,
                "Price of a full groom for a standard poodle, in dollars"
            )],
            "Agent: What's a full groom for a standard poodle?\n\
             Recipient: Full groom for a poodle is ninety-five.\n\
             Agent: And how long does that take?\n\
             Recipient: About two hours. Oh, and sorry, I read you the mini price before. \
             Standard poodles are a hundred and ten.\n\
             Agent: Thanks."
        )["full_groom_price"],
        json!(110)
    );
}

/// A week is five business days; a day of work is no twenty-four hours.
#[test]
fn a_week_is_five_business_days() {
    assert_eq!(
        number(
            "labour_hours",
            "Labour time for the job, in hours",
            "How long will the work take?",
            "It's a two-day job."
        ),
        Value::Null
    );
    assert_eq!(
        number(
            "print_business_days",
            "Business days needed to print after the proof is approved",
            "How long does printing take?",
            "Two weeks."
        ),
        json!(10)
    );
}

/// A figure in a condition on the answer ("as long as they've held a
/// licence two years") is no value of the field.
#[test]
fn a_figure_in_a_condition_is_no_value() {
    assert_eq!(
        number(
            "minDriverAge",
            "Minimum driver age, in years",
            "The drivers need to be at least twenty-five, is that right?",
            "Twenty-three, actually, as long as they've held a full licence two years."
        ),
        json!(23)
    );
}

/// "Sixty of the chairs" is how many, not a price.
#[test]
fn a_quantity_of_things_is_no_price() {
    assert_eq!(
        number(
            "chair_price",
            "Rental price per chair, in dollars",
            "How much are the chairs?",
            "Sixty of the white folding chairs, sure, they're in stock."
        ),
        Value::Null
    );
}

/// "At" a figure that is no time of day is a price.
#[test]
fn at_a_figure_that_is_no_time_of_day_is_a_price() {
    assert_eq!(
        number(
            "treatment_price",
            "Price of one quarterly treatment, in dollars",
            "What's the price of a quarterly treatment for forty units?",
            "Forty units puts you at three seventy-five."
        ),
        json!(375)
    );
}

/// A length "each" is no total.
#[test]
fn a_length_each_is_no_total() {
    assert_eq!(
        number(
            "course_total_hours",
            "Total teaching time of the course, in hours",
            "How many hours is the course in total?",
            "It's twenty sessions, an hour and a half each."
        ),
        Value::Null
    );
}

/// Pushing back on the answer's terms keeps the question open.
#[test]
fn pushing_back_on_the_terms_keeps_the_question_open() {
    assert_eq!(
        run(
            &[field(
                "session_fee",
                FieldType::Number,
                "Fee in dollars for a ninety-minute session"
            )],
            "Agent: She'd like a family photo session, about ninety minutes.\n\
             Recipient: My family session is four hundred and fifty, and that's an hour.\n\
             Agent: She mentioned ninety minutes.\n\
             Recipient: For ninety minutes it's five fifty.\n\
             Agent: Thanks."
        )["session_fee"],
        json!(550)
    );
}

/// A price for another size of the option is none of the field's.
#[test]
fn a_price_for_another_size_of_the_option_is_none_of_the_fields() {
    assert_eq!(
        number(
            "four_hour_price",
            "Price for four hours of booth hire, in dollars",
            "What's the price for four hours?",
            "Our three-hour package is five-fifty."
        ),
        Value::Null
    );
    assert_eq!(
        number(
            "four_hour_price",
            "Price for four hours of booth hire, in dollars",
            "What's the price for four hours?",
            "The four-hour package is six-fifty."
        ),
        json!(650)
    );
}

/// "For the full day" names the full-day option, a tandem the double.
#[test]
fn the_full_day_and_tandems_are_other_options() {
    assert_eq!(
        number(
            "halfDayPrice",
            "Price of a half-day single kayak rental, in dollars",
            "What do you charge for a half-day single?",
            "A single for the full day runs eighty."
        ),
        Value::Null
    );
    assert_eq!(
        number(
            "halfDayPrice",
            "Price of a half-day single kayak rental, in dollars",
            "What do you charge for a half-day single?",
            "The tandems are sixty-five for the half-day."
        ),
        Value::Null
    );
}

/// An ambiguous amount takes the order of another option's price.
#[test]
fn an_ambiguous_amount_takes_the_order_of_another_options_price() {
    assert_eq!(
        number(
            "package_price",
            "Price of the five-hour reception package, in dollars",
            "What does the five-hour package cost?",
            "Five hours is nineteen fifty. The six-hour is twenty-three hundred."
        ),
        json!(1950)
    );
}

/// "Six of the tablets" is no number of days.
#[test]
fn a_quantity_of_things_is_no_length() {
    assert_eq!(
        number(
            "medication_days_left",
            "How many days of medication are left, in days",
            "How are you doing for pain medication?",
            "I've got six of the tablets left."
        ),
        Value::Null
    );
}

/// "How many of those …?" counts a part, not the whole.
#[test]
fn how_many_of_those_counts_a_part() {
    let guests = [field(
        "guest_count",
        FieldType::Number,
        "Number of guests expected",
    )];
    let call = "Agent: How many guests are you expecting?\n\
                Recipient: Thirty-one so far.\n\
                Agent: Thirty-one guests. How many of those would need vegetarian meals?\n\
                Recipient: Eight.\n\
                Agent: Thanks.";
    assert_eq!(run(&guests, call)["guest_count"], json!(31));
    let vegetarian = [field(
        "vegetarian_meals",
        FieldType::Number,
        "Number of vegetarian meals",
    )];
    assert_eq!(run(&vegetarian, call)["vegetarian_meals"], json!(8));
}

/// The opening words of a reply are in the unit the question asked.
#[test]
fn the_opening_figure_is_in_the_unit_asked() {
    assert_eq!(
        number(
            "years_experience",
            "Years of warehouse experience",
            "How many years of warehouse experience do you have?",
            "About two and a half. Eighteen months at Pryor, and about a year before that."
        ),
        json!(2.5)
    );
}

/// A figure said under a threshold ("Over twenty we charge …") is
/// another case's.
#[test]
fn a_figure_under_a_threshold_ranks_lower() {
    assert_eq!(
        number(
            "collectionFee",
            "Charge for collecting the computers, in pounds",
            "What would the collection cost for fourteen?",
            "For fourteen, nothing. Collection's free up to twenty units. \
             Over twenty we charge forty-five pounds."
        ),
        json!(0)
    );
}

/// Hours convert to days, days to hours.
#[test]
fn hours_and_days_convert_both_ways() {
    assert_eq!(
        number(
            "waiting_period_days",
            "Waiting period before the ceremony, in days",
            "Is there a waiting period?",
            "Seventy-two hours."
        ),
        json!(3)
    );
    assert_eq!(
        number(
            "turnaround_hours",
            "Time to deliver the report, in hours",
            "How long until the report?",
            "Two days."
        ),
        json!(48)
    );
}

/// "So we're strict about it" revises nothing.
#[test]
fn so_we_re_strict_revises_nothing() {
    assert_eq!(
        number(
            "maxCapacity",
            "Maximum number of people the room holds",
            "How many people does Galaxy hold?",
            "Twenty max. Fire code, so we're strict about it. Sixteen will fit comfortably though."
        ),
        json!(20)
    );
}

/// A date or a day that is free is open, not free of charge.
#[test]
fn a_free_date_is_open_not_free_of_charge() {
    assert_eq!(
        number(
            "hireFee",
            "Hire fee for the hall, in dollars",
            "What is the hire fee, and which dates are open?",
            "I've the 21st free, and the 28th."
        ),
        Value::Null
    );
    assert_eq!(
        number(
            "hireFee",
            "Hire fee for the hall, in dollars",
            "What is the hire fee, and which days are open?",
            "We've got Tuesday free."
        ),
        Value::Null
    );
}

/// The asker correcting the terms keeps the question open.
#[test]
fn the_asker_correcting_the_terms_keeps_the_question_open() {
    let screen = [field(
        "oem_screen_price",
        FieldType::Number,
        "Price for replacing the screen with an original (OEM) screen, in dollars",
    )];
    let call = "Agent: He dropped his iPhone 13. How much would a replacement screen be?\n\
                Recipient: For a 13, an aftermarket screen is ninety-nine, the original \
                part is one forty-nine.\n\
                Agent: Sorry, I've just seen his note, it's actually a 13 Pro, not a regular 13.\n\
                Recipient: Ah, okay. Aftermarket's one twenty-nine for that, original's one \
                seventy-nine.\n\
                Agent: Thanks.";
    assert_eq!(run(&screen, call)["oem_screen_price"], json!(179));
}

/// "Level one" names a course; it is no length.
#[test]
fn a_level_names_a_course() {
    assert_eq!(
        number(
            "course_length_days",
            "Length of the course, in days",
            "Which course would suit them?",
            "Spanish for the Workplace, level one."
        ),
        Value::Null
    );
}

#[test]
fn an_echo_that_names_the_field_picks_one_of_the_replys_amounts() {
    let fields = [field(
        "nightly_rate",
        FieldType::Number,
        "Rate per dog per night in dollars for the run they will use",
    )];
    let objective = "Book boarding for Ravi's two dogs, a beagle and a lab.";
    let call = "Agent: What's the nightly rate?\n\
                Recipient: It's forty-two a night per dog in a single run. The shared run is \
                thirty-eight each.\n\
                Agent: So thirty-eight dollars per dog in the shared run. Can he bring food?\n\
                Recipient: Sure can.\n\
                Agent: Thanks.";
    assert_eq!(run_for(objective, &fields, call)["nightly_rate"], json!(38));
}

/// A window on the clock opens and closes: a field for its start takes
/// the opening hour, one for its end the closing hour, and one for
/// neither takes no hour of it.
#[test]
fn a_window_on_the_clock_gives_the_end_the_field_names() {
    let asked = "What's the arrival window tomorrow?";
    let window = "Tomorrow's one to five in the afternoon.";
    assert_eq!(
        number(
            "window_start_hour",
            "Start of the arrival window, hour on a 24-hour clock",
            asked,
            window
        ),
        json!(13)
    );
    assert_eq!(
        number(
            "window_end_hour",
            "End of the arrival window, hour on a 24-hour clock",
            asked,
            window
        ),
        json!(17)
    );
    assert_eq!(
        number(
            "arrival_hour",
            "Hour the technician arrives, on a 24-hour clock",
            asked,
            window
        ),
        Value::Null
    );
    assert_eq!(
        number(
            "window_start_hour",
            "Start of the arrival window, hour on a 24-hour clock",
            asked,
            "Between eight and ten in the morning."
        ),
        json!(8)
    );
    assert_eq!(
        number(
            "window_start_hour",
            "Start of the arrival window, hour on a 24-hour clock",
            asked,
            "Eight to ten tomorrow morning."
        ),
        json!(8)
    );
}

/// The asker asking again ("And on the weekend?") says the reply before
/// did not answer; a declined reply to that leaves the field open, and a
/// reply that answers it, or declines something else, does not.
#[test]
fn a_follow_up_declined_leaves_the_field_unanswered() {
    let fields = [field(
        "weekend_price",
        FieldType::Number,
        "Daily price of an adult package on a Saturday or Sunday, in dollars",
    )];
    let call = |follow_up: &str, reply: &str| {
        format!(
            "Agent: What's the adult package price?\n\
             Recipient: The adult package is thirty-nine a day.\n\
             Agent: {follow_up}\n\
             Recipient: {reply}\n\
             Agent: Okay, thanks."
        )
    };
    let declined = call(
        "And on the weekend?",
        "A bit higher, but I'd have to check, it changes every year.",
    );
    assert_eq!(run(&fields, &declined)["weekend_price"], Value::Null);
    let answered = call("And on the weekend?", "Same, thirty-nine.");
    assert_eq!(run(&fields, &answered)["weekend_price"], json!(39));
    let elsewhere = call(
        "And does the package include a helmet?",
        "No, we don't have helmets.",
    );
    assert_eq!(run(&fields, &elsewhere)["weekend_price"], json!(39));
}

/// What a charge comes to is money, never a count of things.
#[test]
fn an_amount_a_charge_comes_to_is_no_count() {
    assert_eq!(
        number(
            "bus_capacity",
            "Seating capacity of the bus offered, in passengers",
            "How many does the bus seat, and what's the day rate?",
            "It's a big coach, and the day rate comes out to twenty-one hundred."
        ),
        Value::Null
    );
    assert_eq!(
        number(
            "bus_capacity",
            "Seating capacity of the bus offered, in passengers",
            "How many does the bus seat?",
            "It seats fifty-six."
        ),
        json!(56)
    );
}

/// "Last time it was …" is what the amount was, not what it is.
#[test]
fn last_time_s_amount_is_superseded() {
    assert_eq!(
        number(
            "copay_dollars",
            "Copay for this refill, in dollars",
            "And what will her copay be?",
            "Last time it was eight dollars. This time it's coming up as twelve fifty."
        ),
        json!(12.5)
    );
}

/// "I forgot to ring that up": what follows replaces the total said.
#[test]
fn a_forgotten_item_revises_the_total() {
    let fields = [field(
        "total_cost",
        FieldType::Number,
        "Total repair bill including parts and labor, in dollars",
    )];
    let call = "Agent: What's the total?\n\
                Recipient: Derailleur's sixty-four, labor's thirty-five, so ninety-nine.\n\
                Agent: Ninety-nine dollars total.\n\
                Recipient: Hang on. The wheel truing is another twenty, I forgot to ring that up. So call it one nineteen.\n\
                Agent: Got it.";
    assert_eq!(run(&fields, call)["total_cost"], json!(119));
}

/// "It depends" withholds the amount a reply goes on to give, unless it
/// is said of another charge.
#[test]
fn it_depends_withholds_the_amount_unless_said_of_another_charge() {
    assert_eq!(
        number(
            "arrive_early_minutes",
            "How many minutes before departure cars should arrive",
            "And how early should she get there with the car?",
            "Hmm, it depends on the day, really. Some people come half an hour ahead."
        ),
        Value::Null
    );
    assert_eq!(
        number(
            "fee_per_signature",
            "Notary fee per notarized signature, in dollars",
            "What's the fee per signature?",
            "Fifteen dollars a signature. The trip charge is on top of that, it depends on the mileage."
        ),
        json!(15)
    );
}

/// "single-flue" names the single option, so a double flue's price is
/// another option's.
#[test]
fn a_compound_names_the_option_of_its_first_part() {
    assert_eq!(
        number(
            "sweep_price",
            "Price of the standard single-flue sweep, in dollars",
            "Is the standard sweep still one eighty-nine?",
            "Yep, one eighty-nine, camera and all. A double flue would be two forty-nine."
        ),
        json!(189)
    );
}

/// A monthly plan's price is no quarterly plan's.
#[test]
fn a_plan_of_another_period_is_another_option() {
    let quarterly = (
        "quarterly_plan_price",
        "Price per visit of the quarterly plan, in dollars",
    );
    assert_eq!(
        number(
            quarterly.0,
            quarterly.1,
            "What does your quarterly plan cost per visit?",
            "Most folks go with our monthly plan, that's forty-nine a month."
        ),
        Value::Null
    );
    assert_eq!(
        number(
            quarterly.0,
            quarterly.1,
            "What does your quarterly plan cost per visit?",
            "The quarterly plan is ninety-five a visit."
        ),
        json!(95)
    );
}

/// "I'd need to check" after an amount leaves it unsettled.
#[test]
fn an_amount_left_to_be_checked_is_no_answer() {
    let fee = (
        "delivery_fee",
        "Delivery charge to the family's address, in dollars",
    );
    let asked = "And what's the delivery charge?";
    assert_eq!(
        number(
            fee.0,
            fee.1,
            asked,
            "Inside town it's twelve dollars. Ridgeway's out past the reservoir though, so I'd need to check with our driver."
        ),
        Value::Null
    );
    assert_eq!(
        number(
            fee.0,
            fee.1,
            asked,
            "Inside town it's twelve dollars, and Ridgeway's inside town."
        ),
        json!(12)
    );
}

/// The reply to a question about a price gives money, never a count.
#[test]
fn a_reply_about_a_price_gives_no_count() {
    let fields = [field(
        "cleaners_per_visit",
        FieldType::Number,
        "Number of cleaners who come per visit",
    )];
    let call = "Agent: What would that run per visit?\n\
                Recipient: Every other week it drops to a hundred sixty-five.\n\
                Agent: Thanks.";
    assert_eq!(run(&fields, call)["cleaners_per_visit"], Value::Null);
    let call = "Agent: How many cleaners come per visit?\n\
                Recipient: Always a team of two.\n\
                Agent: Thanks.";
    assert_eq!(run(&fields, call)["cleaners_per_visit"], json!(2));
}

/// A price question's reply gives no count, but "How many …" is no price
/// question, whatever it names.
#[test]
fn how_many_is_no_price_question() {
    let fields = [field(
        "guests_covered",
        FieldType::Number,
        "Number of guests the package price covers",
    )];
    let call = "Agent: How many guests does that price include?\n\
                Recipient: Up to twelve.\n\
                Agent: Thanks.";
    assert_eq!(run(&fields, call)["guests_covered"], json!(12));
}

/// Words after an amount that send the caller elsewhere ("find out more
/// on our website") withdraw nothing, and how long something takes
/// varying is no hedge on its price.
#[test]
fn a_pointer_elsewhere_withdraws_no_amount() {
    assert_eq!(
        number(
            "fee",
            "Consultation fee, in dollars",
            "What's the consultation fee?",
            "The fee's forty-five. You can find out more on our website."
        ),
        json!(45)
    );
    assert_eq!(
        number(
            "hourly_rate",
            "Hourly rate, in dollars",
            "What's your hourly rate?",
            "Sixty-five an hour. How long it takes varies."
        ),
        json!(65)
    );
}

/// "double-checked" names no double option.
#[test]
fn a_verb_compound_names_no_option() {
    assert_eq!(
        number(
            "single_room_rate",
            "Nightly rate of a single room, in dollars",
            "What's the single room rate?",
            "I double-checked, it's seventy-nine a night."
        ),
        json!(79)
    );
}
