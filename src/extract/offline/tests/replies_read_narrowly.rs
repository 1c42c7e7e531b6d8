//! The ninth round's rules: replies that a looser reading turned into a
//! value; each is read as a careful person would, or left `null`.

use super::{field, one_exchange, run};
use crate::domain::FieldType;
use serde_json::{Value, json};

fn yes_no(name: &str, desc: &str, question: &str, reply: &str) -> Value {
    one_exchange(name, FieldType::Boolean, desc, question, reply)
}

fn text(name: &str, desc: &str, question: &str, reply: &str) -> Value {
    one_exchange(name, FieldType::String, desc, question, reply)
}

/// A pronoun and its auxiliary ("They do.") contradict a question asked in
/// the negative, whatever regret or detail follows them.
#[test]
fn an_echo_contradicts_a_negative_question() {
    let question = "They don't need a food hygiene certificate as well, do they?";
    for reply in [
        "They do, I'm afraid.",
        "They do, I'm afraid. Level two minimum for everyone on the van.",
        "Yes they do, level two minimum.",
        "She does, sadly.",
    ] {
        assert_eq!(
            yes_no(
                "certificate_required",
                "Whether a food hygiene certificate is required",
                question,
                reply
            ),
            json!(true),
            "{reply}"
        );
    }
}

/// A no read by implication must name the field or open on the no
/// itself: a reason that names nothing of the field is no answer.
#[test]
fn an_implied_no_names_the_field() {
    let home = "Whether Mr. Nowak needs to be home for the inspection";
    assert_eq!(
        yes_no(
            "tenant_home_required",
            home,
            "Does Mr. Nowak need to be home for that?",
            "We don't hold keys for that block."
        ),
        Value::Null
    );
    // Still a no: opening on the no, or naming the field.
    assert_eq!(
        yes_no(
            "breakfast_included",
            "Whether breakfast is included in the rate",
            "Is breakfast included in the rate?",
            "Not at that rate."
        ),
        json!(false)
    );
    assert_eq!(
        yes_no(
            "tenant_home_required",
            home,
            "Does Mr. Nowak need to be home for that?",
            "He doesn't need to be home, we hold keys."
        ),
        json!(false)
    );
}

/// "Only Biscuit." to "Any pets?": a name after "only" may be one of the
/// field's own kind, so it says no no (what follows may still say yes);
/// a common noun still says no ("Just a rabbit." to "Any birds?").
#[test]
fn only_a_name_says_neither() {
    assert_eq!(
        yes_no(
            "has_pets",
            "Whether there are pets in the home",
            "Any pets we should know about?",
            "Only Biscuit."
        ),
        Value::Null
    );
    assert_eq!(
        yes_no(
            "has_pets",
            "Whether there are pets in the home",
            "Any pets we should know about?",
            "Only Biscuit. She'll hide under the bed the whole time."
        ),
        json!(true)
    );
    assert_eq!(
        yes_no(
            "has_birds",
            "Whether there are birds in the home",
            "Any birds in the house?",
            "Just a rabbit."
        ),
        json!(false)
    );
}

/// A price said for one sweep, or for one-to-ones, is not the price of
/// both, or of the group course.
#[test]
fn single_and_group_options_are_told_apart() {
    let fields = [field(
        "two_flue_price",
        FieldType::Number,
        "Price to sweep both chimneys (both flues), in dollars",
    )];
    let call = "Agent: How much to sweep both chimneys?\n\
                Recipient: Single flue sweep is one sixty-five.\n\
                Agent: Thanks.";
    assert_eq!(run(&fields, call)["two_flue_price"], Value::Null);
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

/// A phrase of place ("on the sheet here") answers only "Where…?"; a
/// preposition before a word of time ("in the year he was born") names no
/// place.
#[test]
fn a_phrase_of_place_answers_only_where() {
    assert_eq!(
        text(
            "wood_species",
            "Wood the cabinets are made of",
            "Which wood is going into them?",
            "Yeah, she switched, it's on the sheet here."
        ),
        Value::Null
    );
    assert_eq!(
        text(
            "heater_location",
            "Where the water heater is located",
            "Where is the water heater?",
            "We put it in the year Sam was born."
        ),
        Value::Null
    );
    assert_eq!(
        text(
            "heater_location",
            "Where the water heater is located",
            "Where is the water heater?",
            "In the garage, behind the bikes."
        ),
        json!("garage")
    );
}

/// "Not before June" names the earliest month; for any other field a
/// negated month is still no value.
#[test]
fn not_before_names_the_earliest() {
    let question = "When is the earliest you could start?";
    let reply = "Not before June. I've got a cathedral job through May.";
    assert_eq!(
        text(
            "earliest_start_month",
            "Earliest month the studio can start the work",
            question,
            reply
        ),
        json!("June")
    );
    assert_eq!(
        text(
            "start_month",
            "Month the studio will start the work",
            "Which month will you start?",
            "Not June, that's for sure."
        ),
        Value::Null
    );
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

/// Excluding is the other side of including or accepting; calling the
/// thing fine speaks from the field's side.
#[test]
fn excluding_is_the_other_side_of_accepting() {
    let desc = "Whether a mattress can be included in the collection";
    for (question, reply, expected) in [
        ("Do you exclude mattresses?", "No.", true),
        (
            "Do you exclude mattresses?",
            "Yes, mattresses are excluded.",
            false,
        ),
        ("You don't exclude mattresses, do you?", "Nah.", true),
        (
            "You don't exclude mattresses, do you?",
            "Nah, mattresses are fine, as long as they're dry.",
            true,
        ),
        (
            "You don't exclude mattresses, do you?",
            "Mattresses are fine.",
            true,
        ),
    ] {
        assert_eq!(
            yes_no("mattress_accepted", desc, question, reply),
            json!(expected),
            "{question} {reply}"
        );
    }
}

/// After an answer and a detail, "No, wait, …" takes back the detail,
/// not the answer; right after the answer it takes back the answer.
#[test]
fn a_self_correction_takes_back_what_it_follows() {
    let desc = "Whether cardinal tetras are in stock";
    let question = "Do you have cardinal tetras in stock?";
    assert_eq!(
        yes_no(
            "tetras_in_stock",
            desc,
            question,
            "We do, a big batch came in last week. Wild-caught, from Colombia. \
             No, wait, that was the rummynoses. The cardinals are from Brazil."
        ),
        json!(true)
    );
    assert_ne!(
        yes_no(
            "tetras_in_stock",
            desc,
            question,
            "Yes. No, wait, sorry, they sold out this morning."
        ),
        json!(true)
    );
}

/// Asked about one day, a reply that offers another as the first free one
/// says no; offering the day asked about does not.
#[test]
fn another_first_free_day_is_a_no() {
    assert_eq!(
        yes_no(
            "can_come_tomorrow",
            "Whether the plumber can come to look at the job tomorrow",
            "Could you come and look at it tomorrow?",
            "My lad's off sick so I'm on my own this week. Earliest I can do is Monday, sorry."
        ),
        json!(false)
    );
    assert_eq!(
        yes_no(
            "available_today",
            "Whether a plumber can come today",
            "Could someone come out today?",
            "Today we're slammed. Tomorrow morning's the first opening."
        ),
        json!(false)
    );
    assert_ne!(
        yes_no(
            "can_come_monday",
            "Whether the plumber can come on Monday",
            "Could you come on Monday?",
            "Earliest I can do is Monday, first thing."
        ),
        json!(false)
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

/// Asked for a name, a capitalised word that opens the reply and stands
/// alone is the name given; a word of manner there ("Sure.", "Always.",
/// "Lovely.") is none.
#[test]
fn a_name_may_open_the_reply() {
    let brand = |reply: &str| {
        text(
            "heater_brand",
            "Brand of water heater they would install",
            "Which brand would you put in?",
            reply,
        )
    };
    assert_eq!(brand("Rheem."), json!("Rheem"));
    assert_eq!(
        brand("Rheem, nearly always. Parts are easy to get."),
        json!("Rheem")
    );
    for reply in [
        "Sure, I'll check.",
        "Always the same one.",
        "Lovely question.",
    ] {
        assert_eq!(brand(reply), Value::Null, "{reply}");
    }
    // Not said in answer to the name: no name.
    assert_eq!(
        text(
            "heater_brand",
            "Brand of water heater they would install",
            "When could you come?",
            "Rheem. Thursday, say."
        ),
        Value::Null
    );
}

/// "Shavings for all of them.": who a value holds for is a tail, not
/// part of the value.
#[test]
fn who_a_value_holds_for_is_a_tail() {
    assert_eq!(
        text(
            "bedding_type",
            "Type of bedding provided in the stables",
            "What bedding do you use?",
            "Shavings for all of them."
        ),
        json!("Shavings")
    );
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

/// A code written as one word ("B7704") or spelled with the words of its
/// letters ("B as in bravo, seven-seven-zero-four") is read whole; a word
/// that joins its parts ("dash") is none of it.
#[test]
fn codes_written_whole_or_spelled_with_words() {
    let code = |question: &str, reply: &str| {
        text("account_number", "Customer account number", question, reply)
    };
    assert_eq!(code("What's his account number?", "B7704."), json!("B7704"));
    let fields = [field(
        "account_number",
        FieldType::String,
        "Customer account number",
    )];
    let confirmed = "Agent: His account number is B as in bravo, seven-seven-zero-four.                      Is that right?
                     Recipient: B7704, Lowell, yes, that's him.
                     Agent: Thanks.";
    assert_eq!(run(&fields, confirmed)["account_number"], json!("B7704"));
    assert_ne!(
        text(
            "asset_tag",
            "Asset tag on the laptop",
            "What does the asset tag say?",
            "Hang on. It says F-H, dash, zero zero eight eight one."
        ),
        json!("dash")
    );
}

/// "Let me pull it up… B7704, yes, that's him.": a hold the turn goes on
/// past is a search, and what follows answers; a hold alone is none.
#[test]
fn a_hold_then_the_answer() {
    let question = "What's the account number?";
    assert_eq!(
        text(
            "account_number",
            "Customer account number",
            question,
            "Let me pull it up... B7704, Lowell, yes, that's him."
        ),
        json!("B7704")
    );
    assert_eq!(
        text(
            "account_number",
            "Customer account number",
            question,
            "Let me pull it up."
        ),
        Value::Null
    );
}

/// A day given, then taken back with another offered (as a bare question
/// or said outright) and accepted, is the other day.
#[test]
fn another_day_offered_and_accepted() {
    let fields = [field(
        "install_day",
        FieldType::String,
        "Day of the week the installation is booked",
    )];
    let said_outright = "Agent: Which day could you install?\n\
        Recipient: Let me look... Wednesday the ninth, morning slot.\n\
        Agent: Wednesday works for him.\n\
        Recipient: Oh, sorry, that one just got taken while I was looking. \
        Next one's Thursday, same time.\n\
        Agent: Thursday morning is fine. Please book that.\n\
        Recipient: Done.";
    assert_eq!(
        run(&fields, said_outright)["install_day"],
        json!("Thursday")
    );
    let asked = "Agent: Which day could you install?\n\
        Recipient: Let me look... I've got Saturday at eleven.\n\
        Agent: Saturday at eleven works.\n\
        Recipient: Oh wait, sorry, Saturday's gone. Friday at half five?\n\
        Agent: Friday at five thirty, that's fine.\n\
        Recipient: Lovely.";
    assert_eq!(run(&fields, asked)["install_day"], json!("Friday"));
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

/// An amount said for the second car is not the first car's.
#[test]
fn first_and_second_are_options() {
    assert_eq!(
        amount(
            "permit_cost",
            "Annual cost in pounds of a resident permit for his first car",
            "How much does a resident permit cost?",
            "Ninety-five a year first car. Second car's one forty."
        ),
        json!(95)
    );
    assert_eq!(
        amount(
            "permit_cost",
            "Annual cost in pounds of a resident permit for his first car",
            "How much does a resident permit cost?",
            "Second car's one forty."
        ),
        Value::Null
    );
}

/// "Let me pull up the calendar. Hmm, yeah, so we've already got a
/// wedding": after a search, "yeah, so" is the speaker reading; "Oh dear"
/// opens bad news.
#[test]
fn reading_aloud_and_dismay() {
    let desc = "Whether the venue is free for the wedding on Saturday, June 14";
    let question = "Is the venue free on Saturday, June fourteenth?";
    assert_eq!(
        yes_no(
            "saturday_available",
            desc,
            question,
            "Oh, June fourteenth... let me pull up the calendar. Hmm, yeah, so we've \
             actually already got a wedding on the property that day. The Friday \
             before is wide open though."
        ),
        json!(false)
    );
    assert_eq!(
        yes_no(
            "saturday_available",
            desc,
            question,
            "Let me look in the book... Oh dear, the Kellys have the 14th. I've the 21st free."
        ),
        json!(false)
    );
    // A plain "yeah" still answers.
    assert_eq!(
        yes_no(
            "saturday_available",
            desc,
            question,
            "Let me pull up the calendar. Yeah, it's free that day."
        ),
        json!(true)
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

/// "Sundays we're closed" for the day the shop is closed: a state the
/// field names is its value, not a refusal of the day.
#[test]
fn a_state_the_field_names_is_its_value() {
    assert_eq!(
        text(
            "closed_day",
            "Day of the week the shop is closed",
            "Which day are you closed?",
            "Saturdays we're nine to five. Sundays we're closed, though."
        ),
        json!("Sunday")
    );
    assert_eq!(
        text(
            "visit_day",
            "Day of the week the technician will come",
            "Which day could the technician come?",
            "Tuesdays we're closed. Wednesday, then."
        ),
        json!("Wednesday")
    );
}

/// A day taken back and another given, said back first by the other side,
/// is agreed.
#[test]
fn a_day_said_back_is_accepted() {
    let fields = [field(
        "visit_day",
        FieldType::String,
        "Day of the week the technician will come",
    )];
    let call = "Agent: When could someone come out?\n\
                Recipient: I can get someone out Tuesday.\n\
                Agent: Tuesday works. I'll put her down for Tuesday, then.\n\
                Recipient: Oh, hang on, I was looking at the wrong week. Tuesday's full. \
                Wednesday, same window, eight to noon.\n\
                Agent: Wednesday, eight to noon. I'll let her know.\n\
                Recipient: Bye now.";
    assert_eq!(run(&fields, call)["visit_day"], json!("Wednesday"));
}

/// "Day the boots would be ready if dropped off this Saturday": the day
/// the field names is given, so a reply naming it gives no answer by it.
#[test]
fn the_day_a_field_names_is_given() {
    let desc = "Day of the week the boots would be ready if dropped off this Saturday";
    let question = "If he drops them off this Saturday, which day would they be ready?";
    assert_eq!(
        text("ready_day", desc, question, "Saturday, I'd say."),
        Value::Null
    );
    assert_eq!(
        text(
            "ready_day",
            desc,
            question,
            "Following Tuesday. Call first."
        ),
        json!("Tuesday")
    );
}

/// "I'll call back.", "Her tutor will sort that out with her.": putting
/// the question off gives no value.
#[test]
fn putting_it_off_gives_no_value() {
    for reply in [
        "I'll call back.",
        "Her form tutor, Ms Carvalho, will sort that out with her.",
    ] {
        assert_eq!(
            text(
                "makeup_work_deadline",
                "When the missed work must be handed in",
                "When does the missed work need handing in?",
                reply
            ),
            Value::Null,
            "{reply}"
        );
    }
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

/// "Yeah, no sandals, no heels.": after a clear yes, what is ruled out
/// spells the yes out; a "no" that names the field still answers.
#[test]
fn what_is_ruled_out_spells_out_the_yes() {
    let desc = "Whether drivers must wear closed-toe shoes";
    let question = "Do drivers need closed-toe shoes?";
    assert_eq!(
        yes_no(
            "closed_toe_required",
            desc,
            question,
            "Yeah, no sandals, no heels."
        ),
        json!(true)
    );
    assert_eq!(
        yes_no(
            "closed_toe_required",
            desc,
            question,
            "Yeah, well, no, closed-toe shoes aren't needed."
        ),
        json!(false)
    );
}
