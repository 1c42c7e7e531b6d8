//! End-to-end checks of the offline extractor on small invented calls.

use super::OfflineExtractor;
use crate::domain::{FieldDefinition, FieldType};
use serde_json::{Map, Value};

use serde_json::json;

fn field(name: &str, field_type: FieldType, desc: &str) -> FieldDefinition {
    FieldDefinition {
        name: name.into(),
        field_type,
        description: Some(desc.into()),
    }
}

/// The extractor's values after the service's check of their evidence.
fn run(fields: &[FieldDefinition], transcript: &str) -> Map<String, Value> {
    let extraction = OfflineExtractor::new().extract("Call the shop.", fields, transcript);
    let grounded = crate::extract::ground(fields, &extraction, transcript);
    eprintln!(
        "quotes {:?}\nreasons {:?}",
        extraction.quotes, grounded.reasons
    );
    grounded.values
}

#[test]
fn undiscussed_fields_are_null_and_all_keys_present() {
    let fields = [
        field(
            "loaner_available",
            FieldType::Boolean,
            "Whether a loaner car is available",
        ),
        field("shirt_size", FieldType::String, "T-shirt size"),
        field("copay", FieldType::Number, "Copay in dollars"),
    ];
    let out = run(
        &fields,
        "Agent: Hi, is the car ready?\nRecipient: Yes, it's ready.",
    );
    assert_eq!(out.len(), 3);
    assert!(out.values().all(Value::is_null), "{out:?}");
}

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

#[test]
fn dodges_give_null_and_indirect_answers_count() {
    let fields = [
        field("will_attend", FieldType::Boolean, "Whether she will attend"),
        field("needs_ride", FieldType::Boolean, "Whether she needs a ride"),
        field(
            "can_volunteer",
            FieldType::Boolean,
            "Whether she can volunteer",
        ),
    ];
    let transcript = "Agent: Will you attend the meeting on Friday?\n\
             Recipient: I'll be there.\n\
             Agent: Do you need a ride?\n\
             Recipient: Hmm, I'm not sure yet, let me get back to you.\n\
             Agent: Could you volunteer at the desk?\n\
             Recipient: That won't work for me, sorry.";
    let out = run(&fields, transcript);
    assert_eq!(out["will_attend"], json!(true));
    assert_eq!(out["needs_ride"], Value::Null);
    assert_eq!(out["can_volunteer"], json!(false));
}

/// Precision first: a value is read only as the answer to a question about
/// its field, so a fee the agent mentions in passing is not one.
#[test]
fn only_an_answered_question_gives_a_value() {
    let fields = [field("late_fee", FieldType::Number, "Late fee in dollars")];
    let in_passing = "Recipient: Can I pay next week?\n\
             Agent: Yes, but there's a late fee of twenty-five dollars.\n\
             Recipient: Okay.";
    assert_eq!(run(&fields, in_passing)["late_fee"], Value::Null);
    let answered = "Agent: Is there a late fee if he pays next week?\n\
             Recipient: Yes, twenty-five dollars.\n\
             Agent: Thank you.";
    assert_eq!(run(&fields, answered)["late_fee"], json!(25));
}

#[test]
fn weekday_and_name() {
    let fields = [
        field(
            "pickup_day",
            FieldType::String,
            "Day of the week for pickup",
        ),
        field(
            "clerk_name",
            FieldType::String,
            "First name of the staff member on the call",
        ),
    ];
    let transcript = "Recipient: Main Street Cleaners, this is Rosa.\n\
             Agent: Hi Rosa, when can my client pick up the coat?\n\
             Recipient: Tuesday. No wait, Wednesday, the tailor's out Tuesday.\n\
             Agent: Wednesday, thank you Rosa.";
    let out = run(&fields, transcript);
    assert_eq!(out["pickup_day"], json!("Wednesday"));
    // Nobody asked for the clerk's name: never guessed from a greeting.
    assert_eq!(out["clerk_name"], Value::Null);
    let asked = "Agent: Hi, may I ask who I'm speaking with?\n\
             Recipient: This is Rosa.\n\
             Agent: Thank you, Rosa.";
    assert_eq!(run(&fields, asked)["clerk_name"], json!("Rosa"));
}

#[test]
fn odd_input_does_not_panic() {
    let fields = [
        field("a", FieldType::Boolean, ""),
        field("b", FieldType::Number, "(e.g. 5"),
        field("", FieldType::String, "name: x, or y"),
        field("a", FieldType::String, "duplicate name"),
    ];
    for transcript in [
        "",
        "\n\n",
        "Agent:",
        "Recipient: ???",
        "no label at all",
        "Agent: é😀 ñ — … “quoted” 12th 3:4 $",
        "Agent: - - 1,2,3 ... a.m. p.",
    ] {
        let out = run(&fields, transcript);
        assert_eq!(out.len(), 3);
    }
}

/// The evidence names the reply each value was read from, even when the
/// same words answer two questions.
#[test]
fn evidence_names_the_reply_each_value_was_read_from() {
    let fields = [
        field("delivers", FieldType::Boolean, "Whether they deliver"),
        field("takes_cards", FieldType::Boolean, "Whether they take cards"),
    ];
    let transcript = "Agent: Do you deliver?\n\
             Recipient: Yes.\n\
             Agent: Do you take cards?\n\
             Recipient: Yes.\n\
             Agent: Thanks.";
    let extraction = OfflineExtractor::new().extract("Call the shop.", &fields, transcript);
    let grounded = crate::extract::ground(&fields, &extraction, transcript);
    assert_eq!(grounded.values["delivers"], json!(true));
    assert_eq!(grounded.evidence["delivers"].turn, 2);
    assert_eq!(grounded.evidence["takes_cards"].turn, 4);
}

/// A yes/no question asked in the negative: agreeing with it is a no,
/// contradicting it is a yes, and a bare "Yep" could be either. A reply
/// that turns to another subject answers nothing.
#[test]
fn questions_asked_in_the_negative() {
    let fields = [field(
        "parking_fee_charged",
        FieldType::Boolean,
        "Whether they charge for parking",
    )];
    let answer = |reply: &str| {
        let transcript = format!(
            "Agent: You don't charge for parking, do you?\nRecipient: {reply}\nAgent: Thanks."
        );
        run(&fields, &transcript)["parking_fee_charged"].clone()
    };
    assert_eq!(answer("Correct, it's free for guests."), json!(false));
    assert_eq!(answer("That's right."), json!(false));
    assert_eq!(answer("No, we don't."), json!(false));
    assert_eq!(answer("Yeah, we don't."), json!(false));
    assert_eq!(answer("Oh, we do. Ten dollars a day."), json!(true));
    assert_eq!(answer("Yes, we do."), json!(true));
    assert_eq!(answer("Yep."), Value::Null);
    // Questions that turn twice, or on "mind", take no plain answer.
    let checked = [field(
        "background_checked",
        FieldType::Boolean,
        "Whether carers are background checked",
    )];
    let transcript = "Agent: A carer wouldn't be sent out without a background check, would they?\n\
                      Recipient: Never.\nAgent: Good.";
    assert_eq!(run(&checked, transcript)["background_checked"], Value::Null);
    let cake = [field(
        "own_cake_allowed",
        FieldType::Boolean,
        "Whether they may bring their own cake",
    )];
    let transcript = "Agent: You don't mind if they bring their own cake, do you?\n\
                      Recipient: Not at all.\nAgent: Lovely.";
    assert_eq!(run(&cake, transcript)["own_cake_allowed"], Value::Null);
    // A tag question is no negation: "Correct" agrees that it is included.
    let included = [field(
        "breakfast_included",
        FieldType::Boolean,
        "Whether breakfast is included",
    )];
    let transcript = "Agent: Breakfast is included, isn't it?\nRecipient: Correct.\nAgent: Great.";
    assert_eq!(
        run(&included, transcript)["breakfast_included"],
        json!(true)
    );
}

/// A field that names one option (the weekend rate) is not answered by
/// the amount for another (the weekday rate).
#[test]
fn an_amount_for_another_option_is_not_the_fields() {
    let fields = [field(
        "weekend_rate",
        FieldType::Number,
        "Nightly rate on weekends in dollars",
    )];
    let rate = |reply: &str| {
        let transcript = format!(
            "Agent: What's your nightly rate on weekends?\nRecipient: {reply}\nAgent: Thanks."
        );
        run(&fields, &transcript)["weekend_rate"].clone()
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

/// An answer revised in a later turn without naming the field: the last
/// answer counts, and a revised amount keeps the order of the one it
/// revises.
#[test]
fn a_later_revision_replaces_the_answer() {
    let day = [field(
        "visit_day",
        FieldType::String,
        "Day of the week of the visit",
    )];
    let transcript = "Agent: What day can you come?\n\
                      Recipient: Thursday morning.\n\
                      Agent: Thursday works.\n\
                      Recipient: Oh wait, Thursday's gone now, the system just updated. We'll do Friday instead.\n\
                      Agent: Friday then, thank you.";
    assert_eq!(run(&day, transcript)["visit_day"], json!("Friday"));
    let total = [field(
        "total_quote",
        FieldType::Number,
        "Total quoted price in dollars",
    )];
    let transcript = "Agent: What would the total come to?\n\
                      Recipient: That comes to thirty-eight hundred.\n\
                      Agent: Does that include the permit?\n\
                      Recipient: Ah, no, I forgot the permit, so it's forty-two fifty all in.\n\
                      Agent: Thank you.";
    assert_eq!(run(&total, transcript)["total_quote"], json!(4250));
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

/// Small readings of what a reply means: a number that names its noun is
/// no amount, one amount is one field's, an apology after a yes keeps it,
/// and choosing the other option is a no.
#[test]
fn what_a_reply_means() {
    let floor = [field(
        "floor_number",
        FieldType::Number,
        "Floor the flat is on",
    )];
    let transcript = "Agent: Which floor is the flat on?\nRecipient: Unit 412.\nAgent: Thanks.";
    assert_eq!(run(&floor, transcript)["floor_number"], Value::Null);
    let fees = [
        field("callout_fee", FieldType::Number, "Call-out fee in dollars"),
        field(
            "repair_quote",
            FieldType::Number,
            "Estimated total cost of the repair in dollars",
        ),
    ];
    let transcript = "Agent: Is the call-out fee still eighty-five dollars?\n\
                      Recipient: That's right, eighty-five, then labour on top.\n\
                      Agent: Thank you.";
    let out = run(&fees, transcript);
    assert_eq!(out["callout_fee"], json!(85));
    assert_eq!(out["repair_quote"], Value::Null);
    let home = [field(
        "someone_home",
        FieldType::Boolean,
        "Whether someone must be home during the visit",
    )];
    let transcript = "Agent: Does someone need to be home?\n\
                      Recipient: We do, I'm afraid. The engineer has to get inside.\n\
                      Agent: Understood.";
    assert_eq!(run(&home, transcript)["someone_home"], json!(true));
    let shipping = [field(
        "expedited_shipping",
        FieldType::Boolean,
        "Whether she chose expedited shipping",
    )];
    let transcript = "Agent: Would she like expedited shipping for eighteen dollars?\n\
                      Recipient: Okay, standard it is then.\n\
                      Agent: Noted.";
    assert_eq!(
        run(&shipping, transcript)["expedited_shipping"],
        json!(false)
    );
}

/// A yes/no question asked from the field's other side ("Does she need
/// to bring her own helmet?" for "whether a helmet is provided"): its
/// answer means the opposite, and the evidence check accepts it.
#[test]
fn a_question_asked_from_the_other_side() {
    let fields = [field(
        "helmet_provided",
        FieldType::Boolean,
        "Whether the stable provides a riding helmet",
    )];
    let answer = |reply: &str| {
        let transcript = format!(
            "Agent: Does she need to bring her own helmet?\nRecipient: {reply}\nAgent: Thanks."
        );
        run(&fields, &transcript)["helmet_provided"].clone()
    };
    assert_eq!(answer("No, we have spares she can use."), json!(true));
    assert_eq!(answer("Yes, please, we don't lend them out."), json!(false));
    let transcript = "Agent: Do you provide helmets?\nRecipient: Yes.\nAgent: Thanks.";
    assert_eq!(run(&fields, transcript)["helmet_provided"], json!(true));
}

/// A code written as digit groups joined by hyphens is one code.
#[test]
fn a_hyphenated_code_is_one_value() {
    let fields = [field(
        "order_number",
        FieldType::String,
        "Order number for this order",
    )];
    let transcript = "Agent: Could I have the order number?\nRecipient: Done, order number's 88-1902.\nAgent: Thanks.";
    assert_eq!(run(&fields, transcript)["order_number"], json!("88-1902"));
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

/// A clear answer that opens the reply stands against a later sentence
/// that only explains it; a revision or a qualified opener does not.
#[test]
fn an_opening_answer_stands_against_its_explanation() {
    let fields = [field(
        "cards_required",
        FieldType::Boolean,
        "Whether vaccination cards must be shown",
    )];
    let answer = |reply: &str| {
        let transcript = format!(
            "Agent: Does he need to show the vaccination cards?\nRecipient: {reply}\nAgent: Thanks."
        );
        run(&fields, &transcript)["cards_required"].clone()
    };
    assert_eq!(answer("Oh, he will, love. No card, no entry."), json!(true));
    assert_eq!(answer("Yes. Actually, no, not for cats."), json!(false));
    assert_eq!(
        answer("For dogs, yes. For cats, no, they're fine."),
        json!(false)
    );
}

/// "Let me know by Friday" sets a deadline for someone else; "I'll send
/// the contract by Friday" names the day of the field's own action.
#[test]
fn a_deadline_day_is_not_the_day_asked_for() {
    let lesson = [field(
        "lessonDay",
        FieldType::String,
        "Day of the week of the first lesson",
    )];
    let transcript = "Agent: Which day would the first lesson be?\n\
                      Recipient: Sure, just let me know by Friday.\n\
                      Agent: Thanks.";
    assert_eq!(run(&lesson, transcript)["lessonDay"], Value::Null);
    let sent = [field(
        "contractSendDay",
        FieldType::String,
        "Day of the week the contract will be sent",
    )];
    let transcript = "Agent: When will you send the contract?\n\
                      Recipient: I'll send the contract over by Friday.\n\
                      Agent: Thanks.";
    assert_eq!(run(&sent, transcript)["contractSendDay"], json!("Friday"));
}

/// A reply to "When…?", or one that opens with a question back, answers
/// no yes/no question by implication.
#[test]
fn no_implied_yes_from_a_wh_question_or_a_question_back() {
    let stock = [field(
        "in_stock",
        FieldType::Boolean,
        "Whether the paint is in stock now",
    )];
    let transcript = "Agent: When are you expecting more of the paint?\n\
                      Recipient: It's on Tuesday's delivery, I've just checked the order.\n\
                      Agent: Thanks.";
    assert_eq!(run(&stock, transcript)["in_stock"], Value::Null);
    let film = [field(
        "own_film_allowed",
        FieldType::Boolean,
        "Whether they may screen their own film",
    )];
    let transcript = "Agent: Could they screen their own film?\n\
                      Recipient: Have they thought about catering? Most groups go for the popcorn package.\n\
                      Agent: I'll ask.";
    assert_eq!(run(&film, transcript)["own_film_allowed"], Value::Null);
    let transcript = "Agent: Could they screen their own film?\n\
                      Recipient: Their own film? Yes, that's fine.\n\
                      Agent: Great.";
    assert_eq!(run(&film, transcript)["own_film_allowed"], json!(true));
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

/// Readings that must not overreach: an explicit yes beats a mention of
/// another option; a condition stated in the field's terms is not
/// reversed; a full diary is no booking.
#[test]
fn readings_that_must_not_overreach() {
    let discount = [field(
        "student_discount",
        FieldType::Boolean,
        "Whether there is a student discount",
    )];
    let transcript = "Agent: Do you offer a student discount?\n\
                      Recipient: Yes, and for seniors too.\nAgent: Great.";
    assert_eq!(run(&discount, transcript)["student_discount"], json!(true));
    let open = [field(
        "open_on_sunday",
        FieldType::Boolean,
        "Whether they are open on Sundays",
    )];
    let transcript = "Agent: Are you closed on Sundays?\n\
                      Recipient: We're closed on Sundays.\nAgent: Thanks.";
    assert_ne!(run(&open, transcript)["open_on_sunday"], json!(true));
    let booked = [field(
        "reservation_booked",
        FieldType::Boolean,
        "Whether the reservation was booked",
    )];
    let transcript = "Agent: Could you book a table for Friday?\n\
                      Recipient: Friday's fully booked, I'm afraid.\nAgent: Oh dear.";
    assert_ne!(run(&booked, transcript)["reservation_booked"], json!(true));
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
fn not_being_able_to_go_into_it_is_no_answer() {
    let fields = [field(
        "other_offers",
        FieldType::Boolean,
        "Whether other offers have been made on the house",
    )];
    let transcript = "Agent: Have there been any other offers?\n\
             Recipient: I'm not able to go into other buyers' positions, I'm sorry.";
    assert_eq!(run(&fields, transcript)["other_offers"], Value::Null);
}

#[test]
fn a_change_asked_for_and_accepted_replaces_the_day() {
    let fields = [field(
        "viewing_day",
        FieldType::String,
        "Day of the week of the viewing",
    )];
    let transcript = "Agent: When could he view it?\n\
             Recipient: I can do Tuesday at six.\n\
             Agent: Tuesday at six works for him.\n\
             Recipient: Ah, hold on, there are cleaners in on Tuesday. Could he do Thursday instead?\n\
             Agent: Thursday at six is fine.";
    assert_eq!(run(&fields, transcript)["viewing_day"], json!("Thursday"));
    let refused = "Agent: When could he view it?\n\
             Recipient: I can do Tuesday at six.\n\
             Agent: Tuesday at six works for him.\n\
             Recipient: Ah, hold on, there are cleaners in on Tuesday. Could he do Thursday instead?\n\
             Agent: No, he can't do Thursday.";
    assert_ne!(run(&fields, refused)["viewing_day"], json!("Thursday"));
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
fn proof_of_address_asks_for_a_document_and_a_room_number_for_a_code() {
    let kind = |name: &str, desc: &str| {
        let name_words = crate::extract::text::identifier::split_identifier(name);
        let desc_lower = desc.to_lowercase();
        let text = format!("{} {}", name_words.join(" "), desc_lower);
        super::value_kind::classify_string_field(&name_words, desc, &text)
    };
    assert!(!matches!(
        kind("proof_of_address", "Document accepted as proof of address"),
        super::profile::StringKind::Address
    ));
    assert!(matches!(
        kind("delivery_address", "Street address for the delivery"),
        super::profile::StringKind::Address
    ));
    assert!(matches!(
        kind("office_room", "Room number where she has to apply"),
        super::profile::StringKind::Code
    ));
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
fn a_pleasantry_after_the_asker_spoke_again_answers_nothing() {
    let fields = [field(
        "parking_space",
        FieldType::Boolean,
        "Whether the flat comes with a parking space",
    )];
    let transcript = "Agent: And does the flat come with a parking space?\n\
             Recipient: Does she drive, then? Anyway, shall I email her the floor plan?\n\
             Agent: Yes please, to the address on her enquiry. Thanks, Marcus.\n\
             Recipient: No worries, see her Saturday.";
    assert_eq!(run(&fields, transcript)["parking_space"], Value::Null);
}

#[test]
fn an_offer_is_not_the_choice_of_the_one_it_is_offered_to() {
    let fields = [field(
        "keep_firewood",
        FieldType::Boolean,
        "Whether he wants the large log rounds left for firewood",
    )];
    let transcript = "Agent: What happens to the wood?\n\
             Recipient: We chip the branches. The big rounds we can leave for firewood if he wants.";
    assert_eq!(run(&fields, transcript)["keep_firewood"], Value::Null);
    let transcript = "Agent: Does he want the big rounds left for firewood?\n\
             Recipient: Yes, he wants them left by the shed.";
    assert_eq!(run(&fields, transcript)["keep_firewood"], json!(true));
}

#[test]
fn a_no_charge_aside_after_a_yes_keeps_the_yes() {
    let fields = [field(
        "can_write_name",
        FieldType::Boolean,
        "Whether the bakery can write the name on the cake",
    )];
    let transcript = "Agent: Can you write her daughter's name on it?\n\
             Recipient: Of course, M, I, L, A, no extra charge.";
    assert_eq!(run(&fields, transcript)["can_write_name"], json!(true));
    let fields = [field(
        "extra_charge",
        FieldType::Boolean,
        "Whether writing the name costs extra",
    )];
    let transcript = "Agent: Is there a charge for writing the name?\n\
             Recipient: No, no extra charge.";
    assert_eq!(run(&fields, transcript)["extra_charge"], json!(false));
}

#[test]
fn what_would_be_under_another_choice_answers_nothing() {
    let fields = [field(
        "breakfast_included",
        FieldType::Boolean,
        "Whether breakfast is included in the rate",
    )];
    let transcript = "Agent: Is breakfast included in the rate?\n\
             Recipient: Not at that rate. With breakfast it'd be one seventy-nine.";
    assert_eq!(run(&fields, transcript)["breakfast_included"], json!(false));
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

/// The kind of number a field wants, as the extractor reads its definition.
fn number_unit(name: &str, desc: &str) -> super::profile::FieldUnit {
    let name_words = crate::extract::text::identifier::split_identifier(name);
    let desc_lower = desc.to_lowercase();
    let text = format!("{} {}", name_words.join(" "), desc_lower);
    super::value_kind::profile_number(&name_words, &desc_lower, &text).unit
}

#[test]
fn a_field_s_unit_follows_its_closing_words_only_where_they_name_one() {
    use super::profile::FieldUnit;
    assert_eq!(
        number_unit("monthly_rent", "Monthly rent for a one-bed in Los Angeles"),
        FieldUnit::Money
    );
    assert_eq!(
        number_unit(
            "max_bag_weight",
            "Maximum bag weight in pounds before the overweight fee applies"
        ),
        FieldUnit::Weight
    );
    assert_eq!(
        number_unit("asking_price", "Current asking price in pounds"),
        FieldUnit::Money
    );
    assert_eq!(
        number_unit("min_height_cm", "Minimum driver height, in centimetres"),
        FieldUnit::Count
    );
    assert_eq!(
        number_unit("days_in_shop", "Number of days the car will be in the shop"),
        FieldUnit::Duration(crate::extract::text::units::DurationUnit::Day)
    );
}

#[test]
fn a_room_number_named_in_passing_makes_no_code_field() {
    let kind = |name: &str, desc: &str| {
        let name_words = crate::extract::text::identifier::split_identifier(name);
        let text = format!("{} {}", name_words.join(" "), desc.to_lowercase());
        super::value_kind::classify_string_field(&name_words, desc, &text)
    };
    assert!(!matches!(
        kind(
            "contact",
            "Name to ask for at reception, not the room number"
        ),
        super::profile::StringKind::Code
    ));
}

#[test]
fn a_question_in_passing_with_a_revision_cue_changes_no_day() {
    let fields = [field(
        "viewing_day",
        FieldType::String,
        "Day of the week of the viewing",
    )];
    let transcript = "Agent: When could he view it?\n\
             Recipient: I can do Tuesday at six.\n\
             Agent: Tuesday works. Actually, one more thing, is Friday your busiest day?\n\
             Recipient: Friday's always busy.";
    assert_eq!(run(&fields, transcript)["viewing_day"], json!("Tuesday"));
}

#[test]
fn a_no_charge_reply_answers_a_field_about_a_charge() {
    let fields = [field(
        "parking_charged",
        FieldType::Boolean,
        "Whether there is a fee for parking",
    )];
    let transcript = "Agent: Is there a fee for parking?\n\
             Recipient: Yep, it's round the back, no charge.";
    assert_ne!(run(&fields, transcript)["parking_charged"], json!(true));
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
