//! The ninth round's rules for yes/no and text fields: replies that a
//! looser reading turned into a value; each is read as a careful person
//! would, or left `null`.

use super::{field, one_exchange, run};
use agentcall::domain::FieldType;
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
        "They do, sadly.",
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

/// "Let me pull up the calendar. Hmm, yeah, so we've already got a
/// wedding": after a search, "yeah, so" is the speaker reading; "Yep, so
/// that's fine" still accepts.
#[test]
fn reading_aloud() {
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

/// "I'll call back.": putting the question off gives no value.
#[test]
fn putting_it_off_gives_no_value() {
    for reply in ["I'll call back.", "I'll ring back with that."] {
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
