//! The offline extractor on invented calls: yes/no answers.

use super::{field, one_exchange, run, run_for};
use agentcall::domain::FieldType;
use serde_json::{Value, json};

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

/// A yes/no question asked in the negative: agreeing with it is a no,
/// contradicting it is a yes, and a bare "Yep" could be either. A reply
/// that turns to another subject answers nothing.
#[test]
fn questions_asked_in_the_negative() {
    let answer = |reply: &str| {
        one_exchange(
            "parking_fee_charged",
            FieldType::Boolean,
            "Whether they charge for parking",
            "You don't charge for parking, do you?",
            reply,
        )
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
        one_exchange(
            "helmet_provided",
            FieldType::Boolean,
            "Whether the stable provides a riding helmet",
            "Does she need to bring her own helmet?",
            reply,
        )
    };
    assert_eq!(answer("No, we have spares she can use."), json!(true));
    assert_eq!(answer("Yes, please, we don't lend them out."), json!(false));
    let transcript = "Agent: Do you provide helmets?\nRecipient: Yes.\nAgent: Thanks.";
    assert_eq!(run(&fields, transcript)["helmet_provided"], json!(true));
}

/// A clear answer that opens the reply stands against a later sentence
/// that only explains it; a revision or a qualified opener does not.
#[test]
fn an_opening_answer_stands_against_its_explanation() {
    let answer = |reply: &str| {
        one_exchange(
            "cards_required",
            FieldType::Boolean,
            "Whether vaccination cards must be shown",
            "Does he need to show the vaccination cards?",
            reply,
        )
    };
    assert_eq!(answer("Oh, he will, love. No card, no entry."), json!(true));
    assert_eq!(answer("Yes. Actually, no, not for cats."), json!(false));
    assert_eq!(
        answer("For dogs, yes. For cats, no, they're fine."),
        json!(false)
    );
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

/// "Friday's a bank holiday, the whole building is shut": an implicit yes
/// (the field's day named) then a no in one sentence is a no; "… so he
/// doesn't need to buy one" draws a consequence and answers nothing;
/// "Gas is on top" is charged extra, so not included.
#[test]
fn a_no_after_an_implicit_yes_and_extras_on_top() {
    let open = |reply: &str| {
        yes_no(
            "openFriday",
            "Whether the office is open on Friday",
            "Is the office open on Friday?",
            reply,
        )
    };
    assert_eq!(
        open("Friday's a bank holiday, the whole building is shut."),
        json!(false)
    );
    assert_eq!(open("Yes, we're open Friday from nine."), json!(true));
    assert_eq!(
        yes_no(
            "rents_bikes",
            "Whether the shop rents bikes",
            "Does she need her own bike?",
            "We rent road bikes for twenty a day, so she doesn't need to bring one.",
        ),
        json!(true)
    );
    let gas = |reply: &str| {
        yes_no(
            "gasIncluded",
            "Whether gas is included in the hire price",
            "And is gas included?",
            reply,
        )
    };
    assert_eq!(
        gas("Gas is on top, we charge for what you use."),
        json!(false)
    );
    assert_eq!(
        yes_no(
            "cleaning_included",
            "Whether cleaning is included",
            "Is cleaning included?",
            "The cleaners come weekly, we're on top of all that.",
        ),
        json!(true)
    );
}

/// A reply that passes the question on ("that'd have to go to the board",
/// "I'll have my manager email her") or only says something pleasant
/// ("Happy to help.") answers nothing.
#[test]
fn passing_the_question_on_or_a_pleasantry_is_no_answer() {
    let answer = |question: &str, reply: &str| {
        one_exchange(
            "pets_allowed",
            FieldType::Boolean,
            "Whether pets are allowed in the flat",
            question,
            reply,
        )
    };
    let asked = "Are pets allowed in the flat?";
    assert_eq!(
        answer(
            asked,
            "Hmm, that'd have to go to the board. They meet in March."
        ),
        Value::Null
    );
    assert_eq!(
        answer(
            asked,
            "Good question. The rules changed and I haven't seen the new lease. I'll have my manager email her."
        ),
        Value::Null
    );
    assert_eq!(
        answer(
            "She's moving with her cat and wants to know about pets.",
            "Happy to help. Is it an indoor cat?"
        ),
        Value::Null
    );
    assert_eq!(
        answer(asked, "Yes, cats and small dogs are fine."),
        json!(true)
    );
}

/// "Almost." is not yet; "we stopped …" is no; "a battery would add …" is
/// charged on top; what "would've been" answers nothing; a "who can't …"
/// clause speaks of someone else.
#[test]
fn not_yet_stopped_added_and_relative_clauses() {
    assert_eq!(
        yes_no(
            "repairs_finished",
            "Whether the repairs are finished",
            "Are the repairs finished?",
            "Almost. The frame's done, but the wheel still needs truing."
        ),
        json!(false)
    );
    assert_eq!(
        yes_no(
            "delivers",
            "Whether the shop delivers",
            "Do you deliver?",
            "We stopped delivering in the spring, sorry."
        ),
        json!(false)
    );
    assert_eq!(
        yes_no(
            "case_included",
            "Whether a carry case is included in the price",
            "Is a case included?",
            "That's for the scope alone, a case would add forty."
        ),
        json!(false)
    );
    assert_eq!(
        yes_no(
            "garden_room_available",
            "Whether the garden room is available on the 9th",
            "Is the garden room available on the 9th?",
            "The garden room would've been ninety."
        ),
        Value::Null
    );
    assert_eq!(
        yes_no(
            "home_visits",
            "Whether the clinic offers home visits",
            "Do you do home visits?",
            "We do, yes, a nurse goes out on Fridays for anyone who can't make it in."
        ),
        json!(true)
    );
}

/// Not vouching ("Should be, I think. I couldn't swear to it.", "don't
/// quote me") and breaking off ("someone's just walked in") answer nothing;
/// "She would, unfortunately." is a yes with an apology.
#[test]
fn unvouched_and_broken_off_replies_and_a_yes_with_an_apology() {
    let answer = |question: &str, reply: &str| {
        one_exchange(
            "uniform_required",
            FieldType::Boolean,
            "Whether she must buy the club uniform",
            question,
            reply,
        )
    };
    let asked = "Does she have to buy the club uniform?";
    assert_eq!(
        answer(
            asked,
            "Should be optional, I think. I couldn't swear to it."
        ),
        Value::Null
    );
    assert_eq!(
        answer(asked, "Some do, some don't, don't quote me on it."),
        Value::Null
    );
    assert_eq!(
        answer(
            asked,
            "Sorry, someone's just walked in. Can I ring her back later?"
        ),
        Value::Null
    );
    assert_eq!(answer(asked, "She would, unfortunately."), json!(true));
}

/// Replies a reviewer found the rules above could misread: a hand-over
/// after a clear answer, a plain no that says "haven't seen", "anyone who
/// knows", a yes limited by "but not", a no-charge restatement, "we will
/// add him", and "the leak's stopped".
#[test]
fn clear_answers_the_new_rules_leave_alone() {
    assert_eq!(
        yes_no(
            "delivers",
            "Whether the shop delivers",
            "Do you deliver?",
            "Yes, we deliver. I'll have my manager confirm the slot by email."
        ),
        json!(true)
    );
    assert_eq!(
        yes_no(
            "damp",
            "Whether there is damp in the flat",
            "Is there any damp in the flat?",
            "No, I haven't seen any damp."
        ),
        json!(false)
    );
    assert_eq!(
        yes_no(
            "side_gate_access",
            "Whether visitors can use the side gate",
            "Can visitors use the side gate?",
            "They can, anyone who knows the code."
        ),
        json!(true)
    );
    assert_eq!(
        yes_no(
            "openFriday",
            "Whether the office is open on Friday",
            "Is the office open on Friday?",
            "We're open Friday, but not after three."
        ),
        json!(true)
    );
    assert_eq!(
        yes_no(
            "breakfast_included",
            "Whether breakfast is included",
            "Is breakfast included?",
            "Breakfast comes with the room, you don't pay anything extra."
        ),
        json!(true)
    );
    assert_eq!(
        yes_no(
            "second_driver_allowed",
            "Whether her husband may drive the car too",
            "Can her husband drive the car too?",
            "We will add him at the desk when you collect."
        ),
        json!(true)
    );
    assert_eq!(
        yes_no(
            "heating_fixed",
            "Whether the heating is fixed",
            "Is the heating fixed?",
            "The engineer came this morning and the leak's stopped."
        ),
        json!(true)
    );
}

#[test]
fn a_limit_on_something_else_leaves_a_clear_answer_standing() {
    assert_eq!(
        yes_no(
            "own_cake_allowed",
            "Whether the family may bring their own birthday cake",
            "Can the family bring their own birthday cake?",
            "Cake's fine, yeah. Just no outside pizza, we do the pizza."
        ),
        json!(true)
    );
    // "No point driving off" gives a reason, not a no.
    assert_eq!(
        yes_no(
            "driver_waits",
            "Whether the driver waits during the ceremony",
            "Would the driver wait during the ceremony?",
            "He'd wait, sure. No point driving off for an hour."
        ),
        json!(true)
    );
}

#[test]
fn booked_asks_about_available_and_harmful_about_safe_from_the_other_side() {
    assert_eq!(
        yes_no(
            "dj_available",
            "Whether a DJ is available on October 11",
            "They're getting married October eleventh and need a DJ. \
             You're not already booked that Saturday, are you?",
            "Let me look. No, the eleventh is clear."
        ),
        json!(true)
    );
    assert_eq!(
        yes_no(
            "pet_safe",
            "Whether the treatment is safe for pets once dry",
            "It isn't harmful to pets once it dries, is it?",
            "Nope. Once it's dry, dogs and cats can walk right across it."
        ),
        json!(true)
    );
    assert_eq!(
        yes_no(
            "accepting_new_clients",
            "Whether the firm is taking on new clients",
            "You're not closed to new clients at the moment, are you?",
            "No, not at all, we've got capacity this quarter."
        ),
        json!(true)
    );
    // "Lock" asks about "unlocked" from the other side.
    assert_eq!(
        yes_no(
            "sideGateUnlocked",
            "Whether the side gate will be left unlocked for the team",
            "You won't need to lock the side gate, will you?",
            "Nah, I'll leave it open for you."
        ),
        json!(true)
    );
}

#[test]
fn a_speaker_correcting_a_figure_says_no_no() {
    assert_eq!(
        yes_no(
            "claimSubmitted",
            "Whether the clinic has submitted the claim to the insurer",
            "Has the claim been sent to his insurance?",
            "It was sent on the twelfth. So the balance is two forty... sorry, no, let me \
             read it properly. Two hundred and fourteen dollars."
        ),
        json!(true)
    );
}

#[test]
fn a_question_that_only_brushes_the_field_does_not_override_its_answer() {
    let fields = [field(
        "needs_bloodwork",
        FieldType::Boolean,
        "Whether bloodwork is required before the procedure",
    )];
    // The objective speaks of what comes "before the procedure", so those
    // words say little about the field.
    let objective = "Get a price for a dental cleaning for Juno, and find out what is \
                     needed before the procedure.";
    let read = |call: &str| run_for(objective, &fields, call)["needs_bloodwork"].clone();
    let call = "Agent: Does she need bloodwork beforehand?\n\
                Recipient: At her age, yes, we require a senior panel first.\n\
                Agent: Understood. Does she need to fast the night before?\n\
                Recipient: No food after ten p.m., water is fine until the morning.\n\
                Agent: Thank you.";
    assert_eq!(read(call), json!(true));
}

#[test]
fn a_follow_up_asks_the_same_again() {
    let fields = [field(
        "saturdayRedelivery",
        FieldType::Boolean,
        "Whether the parcel can be redelivered on a Saturday",
    )];
    let call = "Agent: Could the parcel be redelivered on a Saturday instead?\n\
                Recipient: We don't run Sunday vans at all, sorry.\n\
                Agent: And Saturday?\n\
                Recipient: Honestly, it depends on the driver's route that week.\n\
                Agent: Thanks.";
    assert_eq!(run(&fields, call)["saturdayRedelivery"], Value::Null);
}

#[test]
fn no_problem_is_a_yes_to_a_field_about_something_else() {
    assert_eq!(
        yes_no(
            "has_hearing_loop",
            "Whether the auditorium has a hearing loop",
            "Several residents use hearing aids. Would that be a problem?",
            "Not at all, every seat in the stalls is covered."
        ),
        json!(true)
    );
    assert_eq!(
        yes_no(
            "own_cake_allowed",
            "Whether they may bring their own cake",
            "They'd like to bring their own cake. Would that be a problem?",
            "Not at all, that's fine."
        ),
        json!(true)
    );
    assert_eq!(
        yes_no(
            "parking_problem",
            "Whether parking is a problem near the venue",
            "Is parking going to be a problem?",
            "Not at all."
        ),
        json!(false)
    );
}

#[test]
fn a_day_field_is_answered_by_the_days_a_reply_covers() {
    assert_eq!(
        yes_no(
            "open_sunday",
            "Whether the salon is open on Sundays",
            "Could she bring him in on a Sunday?",
            "Ah, we're only open Tuesday through Saturday, sorry."
        ),
        json!(false)
    );
    assert_eq!(
        yes_no(
            "open_thursday",
            "Whether the salon is open on Thursdays",
            "Could she bring him in on a Thursday?",
            "We're open Tuesday through Saturday."
        ),
        json!(true)
    );
    // Days excepted cover the others.
    assert_eq!(
        yes_no(
            "open_sunday",
            "Whether the salon is open on Sundays",
            "Are you open on Sundays?",
            "We're open every day except Mondays."
        ),
        json!(true)
    );
}

/// The yes/no answer read for field `name` after a call of one exchange (see
/// [`one_exchange`]).
pub(super) fn yes_no(name: &str, desc: &str, question: &str, reply: &str) -> Value {
    one_exchange(name, FieldType::Boolean, desc, question, reply)
}
