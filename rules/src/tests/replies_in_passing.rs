//! Yes/no replies that answer in passing: waivers and "no charge" in the
//! field's own terms, contrasts, idioms, goodbyes, pass-ons, dismay, and
//! lists that are all there is.

use super::yes_no::yes_no;
use super::{field, run};
use agentcall::domain::FieldType;
use serde_json::{Value, json};

/// Asked whether there is a fee, for a field about a waiver: waiving it
/// is a yes in the field's own terms; a plain fee is a no.
#[test]
fn waiving_answers_a_waiver_field_asked_about_the_fee() {
    let waived = |reply: &str| {
        yes_no(
            "initiation_fee_waived",
            "Whether the initiation fee is waived for new members",
            "Is there an initiation fee on top?",
            reply,
        )
    };
    assert_eq!(
        waived(
            "Normally there's a five hundred dollar initiation, but right now we're waiving it for anyone who joins."
        ),
        json!(true)
    );
    assert_eq!(waived("Yes, it's five hundred dollars."), json!(false));
}

/// For a field that claims something is included or free, "no extra
/// charge" after a yes says yes too; a charge on a condition does not.
#[test]
fn no_charge_says_yes_to_an_inclusion() {
    let haul = |reply: &str| {
        yes_no(
            "haul_away_included",
            "Whether removal of the old heater is included",
            "Does that include hauling away the old tank?",
            reply,
        )
    };
    assert_eq!(
        haul("Yep, we take the old one, no extra charge."),
        json!(true)
    );
    assert_eq!(haul("Yep, no charge at all for that."), json!(true));
    assert_eq!(haul("No, that's forty dollars extra."), json!(false));
}

/// "The studio theatre's free, though.": said of another thing in
/// contrast, it says the opposite of the field's; said of the field's
/// own thing, it says what it says.
#[test]
fn a_contrast_with_another_thing_says_the_opposite() {
    let free = |reply: &str| {
        yes_no(
            "main_hall_available",
            "Whether the main hall is free on Saturday evening",
            "Is the main hall free on Saturday evening?",
            reply,
        )
    };
    assert_eq!(
        free(
            "Let me look. Ooh, the main hall's got a wedding that night. The studio theatre's free, though."
        ),
        json!(false)
    );
    assert_eq!(
        free("Let me look. The studio's got a wedding that night. The main hall's free, though."),
        json!(true)
    );
}

/// Idioms that look negative and say yes: "we can't get enough of them".
#[test]
fn idioms_that_look_negative_say_yes() {
    assert_eq!(
        yes_no(
            "accepts_sofas",
            "Whether the shop accepts sofa donations",
            "Do you take sofas?",
            "Oh, sofas are our best sellers, we can't get enough of them."
        ),
        json!(true)
    );
    assert_eq!(
        yes_no(
            "accepts_sofas",
            "Whether the shop accepts sofa donations",
            "Do you take sofas?",
            "Sofas we can't take, sorry, fire rules."
        ),
        json!(false)
    );
}

/// A yes that says goodbye answers the goodbye, and an adverb that
/// stresses a verb ("she'll definitely need that") answers nothing;
/// "we definitely do" still does.
#[test]
fn goodbyes_and_stressed_verbs_answer_nothing() {
    let fields = [field(
        "photo_service_onsite",
        FieldType::Boolean,
        "Whether passport photos can be taken at the agency",
    )];
    let transcript = "Agent: What should she bring?\n\
             Recipient: Her birth certificate.\n\
             Agent: Birth certificate and a photo ID. Thank you, Marcus.\n\
             Recipient: Sure thing, have a good day.";
    assert_eq!(
        run(&fields, transcript)["photo_service_onsite"],
        Value::Null
    );
    let photo = |reply: &str| {
        yes_no(
            "photo_service_onsite",
            "Whether passport photos can be taken at the agency",
            "Can she get her passport photo taken there at the agency?",
            reply,
        )
    };
    assert_eq!(
        photo("Hmm, has she printed her itinerary? Because she'll definitely need that."),
        Value::Null
    );
    assert_eq!(
        photo("Oh, we definitely do, at the front desk."),
        json!(true)
    );
}

/// Naming only other things, and saying that is all, is a no ("Cash or
/// check, that's all we do"); naming the field's own is a yes.
#[test]
fn naming_only_other_things_and_saying_that_is_all_is_a_no() {
    let cards = |reply: &str| {
        yes_no(
            "accepts_credit_card",
            "Whether the shop accepts credit cards",
            "Can he pay by credit card?",
            reply,
        )
    };
    assert_eq!(
        cards("Cash or check, that's all we do out here."),
        json!(false)
    );
    assert_eq!(
        cards("Credit card's fine, that's all we need."),
        json!(true)
    );
}

/// "We're out Saturdays till noon" is out at work; "we're out of it" is
/// out of stock.
#[test]
fn out_at_work_is_no_out_of_stock() {
    let saturdays = |reply: &str| {
        yes_no(
            "saturday_service",
            "Whether they work on Saturdays",
            "Do you ever come out on a Saturday?",
            reply,
        )
    };
    assert_eq!(
        saturdays("We're out Saturdays till noon, so mornings are fine."),
        json!(true)
    );
    let stocked = yes_no(
        "eggshell_in_stock",
        "Whether the eggshell finish is in stock",
        "Do you have it in eggshell?",
        "Sorry, we're out of the eggshell.",
    );
    assert_eq!(stocked, json!(false));
}

/// "Oh no." alone is dismay at the news: the answer that follows
/// stands; "Oh no, we're shut Sundays" is still a no.
#[test]
fn oh_no_alone_is_dismay() {
    let today = |reply: &str| {
        yes_no(
            "can_board_up_today",
            "Whether someone can board up the window today",
            "A window's been smashed. Can someone board it up today?",
            reply,
        )
    };
    assert_eq!(
        today("Oh no. Yeah, yep, I can have a guy there within the hour."),
        json!(true)
    );
    assert_eq!(today("Oh no, not today, we're fully booked."), json!(false));
}

/// Passing the question to someone who would know answers nothing,
/// whatever follows it ("she's not in until tomorrow").
#[test]
fn passing_the_question_on_answers_nothing() {
    let delivers = |reply: &str| {
        yes_no(
            "home_delivery",
            "Whether the pharmacy offers home delivery",
            "Do you offer home delivery?",
            reply,
        )
    };
    for reply in [
        "Oh, that's a question for my manager, and she's not in until tomorrow.",
        "Goodness, I wouldn't know. You'd have to ask my son.",
        "Oh, um, I don't actually know. Sometimes they do?",
    ] {
        assert_eq!(delivers(reply), Value::Null, "{reply}");
    }
    assert_eq!(delivers("We do, every weekday."), json!(true));
}

/// "Yes and no.", "Sometimes.", "It varies.": neither a yes nor a no.
#[test]
fn sometimes_is_neither_yes_nor_no() {
    for reply in ["Yes and no.", "Sometimes.", "It varies."] {
        let delivers = yes_no(
            "offers_delivery",
            "Whether the shop delivers",
            "Do you deliver?",
            reply,
        );
        assert_eq!(delivers, Value::Null, "{reply}");
    }
}

/// "It's on back order.", "I can order one in.", "Last one went
/// yesterday.": not in stock, said without a "no".
#[test]
fn not_in_stock_without_a_no() {
    for reply in [
        "It's on back order.",
        "We're waiting on a delivery.",
        "I can order one in.",
        "Last one went yesterday.",
    ] {
        let stocked = yes_no(
            "in_stock",
            "Whether the part is in stock",
            "Do you have the part in stock?",
            reply,
        );
        assert_eq!(stocked, json!(false), "{reply}");
    }
}

/// "So thirteen twenty-five, plus the permit." "Correct.": confirming a
/// statement that puts the field's thing on top confirms no inclusion.
#[test]
fn confirming_plus_the_thing_is_no_inclusion() {
    let fields = [field(
        "permit_included",
        FieldType::Boolean,
        "Whether the city permit is included in the quote",
    )];
    let out = run(
        &fields,
        "Agent: So thirteen twenty-five, plus the permit.\nRecipient: Correct.\nAgent: Thanks.",
    );
    assert_ne!(out["permit_included"], json!(true));
}
