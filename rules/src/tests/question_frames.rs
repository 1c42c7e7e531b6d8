//! The offline extractor on invented calls: yes/no answers read in the
//! frame of the question they answer: a question about a problem, a
//! sign-off, a charge that is waived, a reply in the field's own words.

use super::yes_no::yes_no;
use super::{field, one_exchange, run};
use agentcall::domain::FieldType;
use serde_json::{Value, json};

#[test]
fn asked_whether_it_is_a_problem_a_statement_speaks_of_the_field() {
    // Only a yes or no word answers in the question's frame; a statement
    // about the thing itself is read as it stands.
    assert_eq!(
        yes_no(
            "dogs_allowed",
            "Whether dogs are allowed at the campground",
            "They've got a dog, a beagle. Is that a problem?",
            "Oh, half our campers bring dogs. Just keep him on a leash."
        ),
        json!(true)
    );
    assert_eq!(
        yes_no(
            "dogs_allowed",
            "Whether dogs are allowed at the campground",
            "They've got a dog, a beagle. Is that a problem?",
            "We don't allow dogs, I'm afraid."
        ),
        json!(false)
    );
    assert_eq!(
        yes_no(
            "dogs_allowed",
            "Whether dogs are allowed at the campground",
            "They've got a dog, a beagle. Is that a problem?",
            "Yes, it would be, sorry."
        ),
        json!(false)
    );
}

#[test]
fn a_yes_after_a_sign_off_answers_no_question() {
    let fields = [field(
        "pet_treatment",
        FieldType::Boolean,
        "Whether they offer a pet stain and odor treatment",
    )];
    let dodged = "Agent: Do you have a pet stain and odor treatment?\n\
                  Recipient: Hmm, that's something we've talked about. Maybe by summer?\n\
                  Agent: Okay, I'll let her know. Thanks for the quote.\n\
                  Recipient: You bet. Tell her to ask for Jamal.";
    assert_eq!(run(&fields, dodged)["pet_treatment"], Value::Null);
    // A statement that is not a sign-off may still be confirmed.
    let confirmed = "Agent: Do you have a pet stain and odor treatment?\n\
                     Recipient: Hmm, let me think.\n\
                     Agent: She'd want the pet treatment on the stairs.\n\
                     Recipient: Sure, we can do the pet treatment there.";
    assert_eq!(run(&fields, confirmed)["pet_treatment"], json!(true));
}

#[test]
fn never_inside_a_statement_is_no_outright_answer() {
    assert_eq!(
        yes_no(
            "insured",
            "Whether the company carries liability insurance",
            "Is your company insured, in case something gets damaged?",
            "We're bonded and we carry two million in liability insurance. Never had to use it."
        ),
        json!(true)
    );
    assert_eq!(
        yes_no(
            "works_weekends",
            "Whether the crew works on weekends",
            "Does the crew work weekends?",
            "Never."
        ),
        json!(false)
    );
}

#[test]
fn a_no_charge_aside_is_no_no() {
    assert_eq!(
        yes_no(
            "offers_delivery",
            "Whether the shop delivers the finished order",
            "Do you deliver, or would they need to pick up?",
            "Our van goes out Tuesdays and Fridays, anywhere within ten miles, no charge."
        ),
        json!(true)
    );
    assert_eq!(
        yes_no(
            "delivery_free",
            "Whether delivery is free",
            "Is delivery free?",
            "No, no charge within ten miles, but we're further than that."
        ),
        json!(false)
    );
}

#[test]
fn putting_it_off_to_later_is_no_answer() {
    assert_eq!(
        yes_no(
            "moves_furniture",
            "Whether the crew moves the furniture",
            "And would the crew handle moving the couch and the other furniture?",
            "Hmm, we can talk about that when I come measure."
        ),
        Value::Null
    );
}

#[test]
fn a_reply_in_the_field_s_own_words_answers_it() {
    let oven = (
        "oven_cleaning_included",
        "Whether cleaning the inside of the oven is included in the quoted price",
    );
    let asked = "And the oven isn't extra, right?";
    assert_eq!(
        yes_no(oven.0, oven.1, asked, "The oven's included."),
        json!(true)
    );
    // "Let me correct myself" is a self-correction, not "Correct".
    assert_eq!(
        yes_no(
            oven.0,
            oven.1,
            asked,
            "Hmm, actually, let me correct myself. The oven's included, but the fridge is extra."
        ),
        json!(true)
    );
}

#[test]
fn no_charge_is_a_yes_to_a_field_on_the_side_of_free() {
    let waived = (
        "trip_charge_waived",
        "Whether the trip charge is waived for this customer",
    );
    assert_eq!(
        yes_no(
            waived.0,
            waived.1,
            "What's the trip charge?",
            "Forty-five normally, but she's in town. So no trip charge for her."
        ),
        json!(true)
    );
    assert_eq!(
        yes_no(
            waived.0,
            waived.1,
            "Is there a trip charge?",
            "No, not for her."
        ),
        json!(true)
    );
}

#[test]
fn review_counter_examples_keep_their_answers() {
    // A negation that governs another word is no denial in the field's
    // own words.
    assert_eq!(
        yes_no(
            "dogs_allowed",
            "Whether dogs are allowed at the campground",
            "They've got a dog. Is that a problem?",
            "No, not at all. We don't charge extra for dogs."
        ),
        json!(true)
    );
    // No charge for something else is no free delivery.
    assert_eq!(
        yes_no(
            "free_delivery",
            "Whether delivery is free",
            "Do you deliver for free?",
            "No, delivery's twenty-five, but there's no charge for setup."
        ),
        json!(false)
    );
    // "they" is the business as often as the customer.
    assert_eq!(
        yes_no(
            "helmet_provided",
            "Whether the stable provides a helmet",
            "Do they provide helmets?",
            "Yes, they do."
        ),
        json!(true)
    );
    // "We can sort that out" is a yes, not a postponement.
    assert_eq!(
        yes_no(
            "hauls_carpet",
            "Whether they haul away the old carpet",
            "Can you haul away the old carpet?",
            "We can sort that out, yeah."
        ),
        json!(true)
    );
}

/// "There's no shuttle, is there?" "Oh, no, we do have one.": a no that
/// goes straight on to say the opposite denies the question's premise; a
/// no followed by a condition agrees with it.
#[test]
fn a_no_that_turns_round_denies_a_negative_questions_premise() {
    assert_eq!(
        one_exchange(
            "shuttle_available",
            FieldType::Boolean,
            "Whether the garage offers a shuttle ride",
            "There's no shuttle, is there?",
            "Oh, no, we do have one. It'll take him anywhere within five miles."
        ),
        json!(true)
    );
    assert_eq!(
        one_exchange(
            "tenant_home",
            FieldType::Boolean,
            "Whether the tenant has to be home for the inspection",
            "You wouldn't need the tenant to be home, would you?",
            "Nope, as long as we can pick the keys up, we're fine."
        ),
        json!(false)
    );
}

/// "There's no deposit, is there?" "Ah, there is, I'm afraid.": a short
/// echo opening the reply contradicts a negative question, whatever
/// regret follows; "No, there isn't, I'm afraid" is still a no.
#[test]
fn a_short_echo_contradicts_a_negative_question() {
    let deposit = |reply: &str| {
        one_exchange(
            "deposit_required",
            FieldType::Boolean,
            "Whether a deposit is required for the booking",
            "There's no deposit on top of that, is there?",
            reply,
        )
    };
    assert_eq!(
        deposit("Ah, there is, I'm afraid. Fifty pounds, and she gets it back."),
        json!(true)
    );
    assert_eq!(
        deposit("Ah, no, there isn't, I'm afraid. She pays on the day."),
        json!(false)
    );
    assert_eq!(
        one_exchange(
            "walk_ins_accepted",
            FieldType::Boolean,
            "Whether the office accepts walk-ins",
            "You don't take walk-ins, do you?",
            "Sure we do, just come in, first come first served."
        ),
        json!(true)
    );
}

/// "… and delivery isn't included." "Yep.": agreeing with a statement
/// in the negative is a no, and the evidence check keeps it; agreeing
/// with a plain one is a yes.
#[test]
fn agreeing_with_a_statement_in_the_negative_is_a_no() {
    let included = |statement: &str| {
        one_exchange(
            "delivery_included",
            FieldType::Boolean,
            "Whether delivery to site is included in the rate",
            statement,
            "Yep. If they pick it up on their own trailer, no charge.",
        )
    };
    assert_eq!(
        included("So two eighty a day, and delivery isn't included."),
        json!(false)
    );
    assert_eq!(
        included("So two eighty a day, and delivery is included."),
        json!(true)
    );
}

/// Asked of another day only ("Would Tuesday work instead?"), a yes
/// speaks of that day; a reply about the field's own day still answers.
#[test]
fn a_question_of_another_option_answers_for_that_one() {
    let fields = [field(
        "open_mondays",
        FieldType::Boolean,
        "Whether the alley is open on Mondays",
    )];
    let out = run(
        &fields,
        "Agent: Are you open on Mondays?\n\
         Recipient: We're closed Mondays, unfortunately.\n\
         Agent: Would Tuesday the eighteenth work instead?\n\
         Recipient: Tuesday the eighteenth, let me see... yeah, that's open.\n\
         Agent: Great.",
    );
    assert_eq!(out["open_mondays"], json!(false));
    let out = run(
        &fields,
        "Agent: Would Tuesday work?\n\
         Recipient: Tuesday's fine, and we're open Mondays too.\n\
         Agent: Great.",
    );
    assert_eq!(out["open_mondays"], json!(true));
}

/// An amount "on top of that" is charged extra: not included; "and on
/// top of that towels are included" is no charge.
#[test]
fn an_amount_on_top_is_not_included() {
    assert_eq!(
        one_exchange(
            "stump_grinding_included",
            FieldType::Boolean,
            "Whether stump grinding is included in the quote",
            "Does that include grinding the stump?",
            "Stump grinding's another one seventy-five on top of that."
        ),
        json!(false)
    );
    assert_eq!(
        one_exchange(
            "towels_included",
            FieldType::Boolean,
            "Whether towels are included",
            "Are towels included?",
            "Each room has two beds and on top of that towels and linens are included."
        ),
        json!(true)
    );
}

/// "There's no extra charge for delivery, right?" "Right." for a field
/// "included at no extra charge": the question's negation is the field's
/// own, so agreeing says yes.
#[test]
fn a_negation_the_field_shares_is_no_negative_question() {
    assert_eq!(
        one_exchange(
            "delivery_included",
            FieldType::Boolean,
            "Whether delivery to the venue is included at no extra charge",
            "And there's no extra charge for delivery, right?",
            "Right, delivery and setup are on us."
        ),
        json!(true)
    );
}

/// A no followed by a plain statement agrees with a question asked in the
/// negative ("No, we are appointment only"); "Oh no, it is!" turns round.
#[test]
fn a_no_with_a_statement_agrees_with_a_negative_question() {
    let walk_ins = |reply: &str| {
        one_exchange(
            "takes_walk_ins",
            FieldType::Boolean,
            "Whether they accept walk-ins",
            "You don't take walk-ins, do you?",
            reply,
        )
    };
    assert_eq!(walk_ins("No, we are appointment only."), json!(false));
    assert_eq!(
        one_exchange(
            "accepts_cards",
            FieldType::Boolean,
            "Whether they take cards",
            "You don't take cards, do you?",
            "No, it is cash only, sorry."
        ),
        json!(false)
    );
    assert_eq!(
        one_exchange(
            "edging_included",
            FieldType::Boolean,
            "Whether edging is included in the price",
            "And edging's not included at that price, is it?",
            "Oh no, it is! Edging and blowing off the driveway."
        ),
        json!(true)
    );
}

/// Every question of the asking turn counts: "Do you deliver on Sundays?
/// What about Saturdays?" asks of Sundays too.
#[test]
fn every_question_of_the_turn_names_its_options() {
    assert_eq!(
        one_exchange(
            "delivers_sundays",
            FieldType::Boolean,
            "Whether they deliver on Sundays",
            "Do you deliver on Sundays? What about Saturdays?",
            "Yeah, both days."
        ),
        json!(true)
    );
}

/// A bare agreement to "there's no extra charge, right?" for a field
/// "included at no extra charge" still says yes; the shared negation only
/// stops reversing a reply in its own terms.
#[test]
fn a_bare_agreement_to_a_shared_negation_still_says_yes() {
    assert_eq!(
        one_exchange(
            "delivery_included",
            FieldType::Boolean,
            "Whether delivery to the venue is included at no extra charge",
            "And there's no extra charge for delivery, right?",
            "Correct."
        ),
        json!(true)
    );
}

/// A short follow-up question about another field ("And the cost?") moves
/// on: the reply to it is not read for the question before.
#[test]
fn a_short_question_about_another_field_moves_on() {
    let fields = [
        field(
            "crew_size",
            FieldType::Number,
            "Number of cleaners in the crew",
        ),
        field(
            "quote_total",
            FieldType::Number,
            "Total quoted price, in dollars",
        ),
    ];
    let out = run(
        &fields,
        "Agent: How many people would you send?\n\
         Recipient: What's the ceiling height?\n\
         Agent: About twenty feet.\n\
         Recipient: Okay, then four.\n\
         Agent: And the cost?\n\
         Recipient: Call it two thousand two hundred.\n\
         Agent: Thanks.",
    );
    assert_eq!(out["crew_size"], json!(4), "{out:?}");
}
