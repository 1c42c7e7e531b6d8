use std::collections::BTreeMap;

use proptest::prelude::*;
use serde_json::{Value, json};

use super::*;
use agentcall_english::agree;

/// [`super::check`] over a transcript's text form.
fn check(
    field_type: FieldType,
    value: &Value,
    quote: &Quote,
    transcript: &str,
) -> Result<Evidence, Unsupported> {
    super::check(field_type, value, quote, &Transcript::from_text(transcript))
}

/// [`super::ground`] over a transcript's text form.
fn ground(fields: &[FieldDefinition], extraction: &Extraction, transcript: &str) -> Grounded {
    super::ground(fields, extraction, &Transcript::from_text(transcript))
}

const CALL: &str = "\
Agent: Hi, I'm calling about the flat on Elm Road. What's the monthly rent?
Recipient: It's fourteen hundred a month.
Agent: And the deposit?
Recipient: Um, I'm not sure, maybe a month's rent.
Agent: So the viewing is on Thursday at six?
Recipient: Yes, that's right.
Agent: Do you allow pets?
Recipient: No, we don't allow pets, sorry.
Agent: How long is the lease?
Recipient: Two and a half hours… no, sorry, I mean twelve months.
Agent: And is there a fee for parking?
Recipient: No, parking is free. The landlord is Ms. O\u{2019}Brien.";

fn checked(field_type: FieldType, value: Value, quote: Quote) -> Result<Evidence, Unsupported> {
    check(field_type, &value, &quote, CALL)
}

#[test]
fn a_number_in_words_is_found_in_its_turn() {
    let evidence = checked(
        FieldType::Number,
        json!(1400),
        Quote::recipient("fourteen hundred a month"),
    )
    .unwrap();
    assert_eq!(evidence.turn, 2);
    assert_eq!(evidence.speaker, Speaker::Recipient);
    assert_eq!(evidence.quote, "fourteen hundred a month");
    assert_eq!(evidence.confirmed_in_turn, None);
}

#[test]
fn case_whitespace_typographic_quotes_and_ellipses_are_folded() {
    let evidence = checked(
        FieldType::String,
        json!("O'Brien"),
        Quote::recipient("  THE LANDLORD   is ms. o'brien. "),
    )
    .unwrap();
    assert_eq!(evidence.quote, "The landlord is Ms. O\u{2019}Brien");
    let evidence = checked(
        FieldType::Number,
        json!(12),
        Quote::recipient("two and ... I mean twelve months"),
    )
    .unwrap();
    assert_eq!(
        evidence.quote,
        "Two and a half hours… no, sorry, I mean twelve months"
    );
}

#[test]
fn words_of_the_wrong_speaker_or_nowhere_are_not_evidence() {
    assert_eq!(
        checked(
            FieldType::Number,
            json!(1400),
            Quote::agent("fourteen hundred")
        ),
        Err(Unsupported::NotSaid)
    );
    assert_eq!(
        checked(
            FieldType::Number,
            json!(1500),
            Quote::recipient("fifteen hundred")
        ),
        Err(Unsupported::NotSaid)
    );
    assert_eq!(
        checked(FieldType::Number, json!(1400), Quote::recipient(" … ")),
        Err(Unsupported::NotSaid)
    );
}

#[test]
fn the_agents_words_count_once_the_recipient_confirms_them() {
    let evidence = checked(
        FieldType::String,
        json!("Thursday"),
        Quote::agent("the viewing is on Thursday at six"),
    )
    .unwrap();
    assert_eq!((evidence.turn, evidence.confirmed_in_turn), (5, Some(6)));
    assert_eq!(evidence.speaker, Speaker::Agent);
    // "Do you allow pets?" was answered "No, …": not a confirmation.
    assert_eq!(
        checked(
            FieldType::Boolean,
            json!(true),
            Quote::agent("Do you allow pets?")
        ),
        Err(Unsupported::NotConfirmed)
    );
}

#[test]
fn a_number_must_be_in_its_quote() {
    assert_eq!(
        checked(
            FieldType::Number,
            json!(1450),
            Quote::recipient("fourteen hundred")
        ),
        Err(Unsupported::NumberNotQuoted)
    );
    // Durations convert; 0 may be said as "free".
    assert!(
        checked(
            FieldType::Number,
            json!(150),
            Quote::recipient("two and a half hours")
        )
        .is_ok()
    );
    assert!(
        checked(
            FieldType::Number,
            json!(1),
            Quote::recipient("twelve months")
        )
        .is_ok()
    );
    assert!(
        checked(
            FieldType::Number,
            json!(0),
            Quote::recipient("parking is free")
        )
        .is_ok()
    );
    assert_eq!(
        checked(
            FieldType::Number,
            json!(0),
            Quote::recipient("The landlord is")
        ),
        Err(Unsupported::NumberNotQuoted)
    );
}

#[test]
fn a_yes_or_no_must_match_its_quote() {
    let quote = || Quote::recipient("No, we don't allow pets");
    assert!(checked(FieldType::Boolean, json!(false), quote()).is_ok());
    assert_eq!(
        checked(FieldType::Boolean, json!(true), quote()),
        Err(Unsupported::OppositeAnswer)
    );
    // Without an opening yes or no, negation decides.
    assert!(
        checked(
            FieldType::Boolean,
            json!(false),
            Quote::recipient("we don't allow pets")
        )
        .is_ok()
    );
    // A plain statement can answer either way.
    assert!(
        checked(
            FieldType::Boolean,
            json!(true),
            Quote::recipient("parking is free")
        )
        .is_ok()
    );
    assert!(
        checked(
            FieldType::Boolean,
            json!(false),
            Quote::recipient("parking is free")
        )
        .is_ok()
    );
}

#[test]
fn a_dodge_supports_nothing() {
    assert_eq!(
        checked(
            FieldType::String,
            json!("a month's rent"),
            Quote::recipient("maybe a month's rent")
        ),
        Err(Unsupported::Dodge)
    );
}

#[test]
fn a_string_needs_its_words_in_the_quote() {
    assert_eq!(
        checked(
            FieldType::String,
            json!("Mr. Patel"),
            Quote::recipient("The landlord is Ms. O'Brien")
        ),
        Err(Unsupported::WordsNotQuoted)
    );
    assert!(
        checked(
            FieldType::String,
            json!("months"),
            Quote::recipient("twelve months")
        )
        .is_ok()
    );
}

#[test]
fn ground_keeps_supported_values_and_nulls_the_rest_with_a_reason() {
    let fields = [
        FieldDefinition::new("rent", FieldType::Number),
        FieldDefinition::new("pets", FieldType::Boolean),
        FieldDefinition::new("landlord", FieldType::String),
        FieldDefinition::new("deposit", FieldType::Number),
    ];
    let raw = json!({"rent": "$1,400", "pets": true, "landlord": "O'Brien", "deposit": null});
    let extraction = Extraction {
        values: raw.as_object().unwrap().clone(),
        quotes: BTreeMap::from([
            ("rent".to_owned(), Quote::recipient("fourteen hundred")),
            ("pets".to_owned(), Quote::recipient("we don't allow pets")),
        ]),
        ..Extraction::default()
    };
    let grounded = ground(&fields, &extraction, CALL);
    assert_eq!(
        Value::Object(grounded.values.clone()),
        json!({"rent": 1400, "pets": null, "landlord": null, "deposit": null})
    );
    assert_eq!(grounded.evidence.keys().collect::<Vec<_>>(), ["rent"]);
    assert_eq!(
        grounded.reasons["pets"],
        "unsupported_by_transcript: the quote answers the other way"
    );
    assert_eq!(
        grounded.reasons["landlord"],
        "unsupported_by_transcript: no quote was given for the value"
    );
    assert!(!grounded.reasons.contains_key("deposit"));
}

#[test]
fn evidence_serializes_in_camel_case_without_an_empty_confirmation() {
    let evidence = checked(
        FieldType::Number,
        json!(1400),
        Quote::recipient("fourteen hundred"),
    )
    .unwrap();
    assert_eq!(
        serde_json::to_value(&evidence).unwrap(),
        json!({"turn": 2, "speaker": "recipient", "quote": "fourteen hundred"})
    );
    let evidence = checked(
        FieldType::String,
        json!("Thursday"),
        Quote::agent("on Thursday"),
    )
    .unwrap();
    assert_eq!(
        serde_json::to_value(&evidence).unwrap()["confirmedInTurn"],
        json!(6)
    );
}

/// Words of content (none of the light words a string value may skip).
fn word() -> impl Strategy<Value = String> {
    "[bcdghjklmnpqrstvxzBCDGHJKLMNPQRSTVXZ][a-zA-Z]{3,7}"
}

proptest! {
    /// Any run of whole words of a recipient turn, in any case and spacing,
    /// is found, and the evidence quotes the turn's own words.
    #[test]
    fn a_true_quote_is_always_found(
        turns in prop::collection::vec(prop::collection::vec(word(), 1..12), 1..8),
        pick in any::<prop::sample::Index>(),
        from in any::<prop::sample::Index>(),
        len in 1usize..6,
    ) {
        let transcript: String = turns
            .iter()
            .enumerate()
            .map(|(i, words)| format!("{}: {}\n", if i % 2 == 0 { "Agent" } else { "Recipient" }, words.join(" ")))
            .collect();
        let recipient: Vec<usize> = (0..turns.len()).filter(|i| i % 2 == 1).collect();
        prop_assume!(!recipient.is_empty());
        let turn = recipient[pick.index(recipient.len())];
        let words = &turns[turn];
        let start = from.index(words.len());
        let end = (start + len).min(words.len());
        let said = words[start..end].join(" ");
        let quoted = format!("  {}  ", said.to_uppercase().replace(' ', "\t "));
        let evidence = check(FieldType::String, &json!(said), &Quote::recipient(quoted), &transcript).unwrap();
        prop_assert_eq!(evidence.speaker, Speaker::Recipient);
        prop_assert!(evidence.quote.eq_ignore_ascii_case(&said));
        // The latest turn holding the words is the one named.
        let latest = recipient.iter().rev().find(|&&i| {
            format!(" {} ", turns[i].join(" ").to_lowercase()).contains(&format!(" {} ", said.to_lowercase()))
                || turns[i].join(" ").to_lowercase().contains(&said.to_lowercase())
        });
        prop_assert_eq!(Some(evidence.turn), latest.map(|i| i + 1));
    }

    /// Words that were never said are never evidence, and no input panics.
    #[test]
    fn an_invented_quote_is_never_evidence(transcript in "\\PC{0,300}", quote in "\\PC{0,40}") {
        let invented = format!("{quote} zqxjvk");
        prop_assume!(!transcript.to_lowercase().contains("zqxjvk"));
        prop_assert!(check(FieldType::String, &json!("zqxjvk"), &Quote::recipient(invented), &transcript).is_err());
        let _ = check(FieldType::Number, &json!(1), &Quote::agent(quote.clone()), &transcript);
        let _ = check(FieldType::Boolean, &json!(true), &Quote::recipient(quote), &transcript);
    }
}

#[test]
fn the_turn_an_extractor_names_is_checked_first() {
    let transcript =
        "Agent: Do you deliver?\nRecipient: Yes.\nAgent: Do you take cards?\nRecipient: Yes.";
    let latest = check(
        FieldType::Boolean,
        &json!(true),
        &Quote::recipient("Yes"),
        transcript,
    );
    assert_eq!(latest.unwrap().turn, 4);
    let named = Quote::recipient("Yes").in_turn(2);
    assert_eq!(
        check(FieldType::Boolean, &json!(true), &named, transcript)
            .unwrap()
            .turn,
        2
    );
    // A turn that does not hold the words up is only a hint.
    let wrong = Quote::recipient("Yes").in_turn(3);
    assert_eq!(
        check(FieldType::Boolean, &json!(true), &wrong, transcript)
            .unwrap()
            .turn,
        4
    );
    let beyond = Quote::recipient("Yes").in_turn(99);
    assert_eq!(
        check(FieldType::Boolean, &json!(true), &beyond, transcript)
            .unwrap()
            .turn,
        4
    );
}

/// After a question asked in the negative, "Correct." may agree that there
/// is none: the check lets it carry either value, and a plain "No" still
/// only a no. After a plain question it stays a yes.
#[test]
fn a_yes_to_a_question_asked_in_the_negative_carries_either_value() {
    let call = "Agent: You don't charge for parking, do you?\n\
                Recipient: Correct.\n\
                Agent: Is breakfast included?\n\
                Recipient: Correct, it's included.\n\
                Agent: And there's no resort fee, right?\n\
                Recipient: No.";
    let check_at = |value: bool, words: &str, turn: usize| {
        let quote = Quote {
            speaker: Speaker::Recipient,
            text: words.into(),
            turn: Some(turn),
        };
        check(FieldType::Boolean, &json!(value), &quote, call)
    };
    assert!(check_at(false, "Correct.", 2).is_ok());
    assert!(check_at(true, "Correct.", 2).is_ok());
    assert_eq!(
        check_at(false, "Correct, it's included.", 4),
        Err(Unsupported::OppositeAnswer)
    );
    let no = Quote {
        speaker: Speaker::Recipient,
        text: "No.".into(),
        turn: Some(6),
    };
    assert!(check(FieldType::Boolean, &json!(false), &no, call).is_ok());
    assert_eq!(
        check(FieldType::Boolean, &json!(true), &no, call),
        Err(Unsupported::OppositeAnswer)
    );
    assert!(agree::asks_in_the_negative("You don't deliver, do you?"));
    assert!(agree::asks_in_the_negative("There's no fee, correct?"));
    assert!(!agree::asks_in_the_negative("It's included, isn't it?"));
    assert!(!agree::asks_in_the_negative(
        "Can you tell me whether or not it's ready?"
    ));
    assert!(!agree::asks_in_the_negative("No problem. Is it ready?"));
}

#[test]
fn a_statement_in_the_negative_is_recognised() {
    assert!(agree::states_in_the_negative(
        "So two eighty a day, and delivery isn't included."
    ));
    assert!(!agree::states_in_the_negative(
        "Delivery isn't included. Is that right?"
    ));
    assert!(!agree::states_in_the_negative(
        "No problem at all. Delivery is included."
    ));
}

/// A question asked in the negative and from the field's other side: a
/// plain "No." carries only the reversed value; "Correct." may mean
/// either; and the reading holds only in the turn the extractor named.
#[test]
fn a_negative_question_from_the_other_side() {
    let call = "Agent: She won't need to bring her own helmet, will she?\n\
                Recipient: No.\n\
                Agent: And the boots?\n\
                Recipient: Correct.";
    let helmet = FieldDefinition {
        name: "helmet_provided".into(),
        field_type: FieldType::Boolean,
        description: Some("Whether the stable provides a helmet".into()),
    };
    let extraction = |value: bool, words: &str, turn: usize| {
        let mut extraction = Extraction::default();
        extraction.values.insert(helmet.name.clone(), json!(value));
        extraction.quotes.insert(
            helmet.name.clone(),
            Quote {
                speaker: Speaker::Recipient,
                text: words.into(),
                turn: Some(turn),
            },
        );
        ground(std::slice::from_ref(&helmet), &extraction, call).values[&helmet.name].clone()
    };
    assert_eq!(extraction(true, "No.", 2), json!(true));
    assert_eq!(extraction(false, "No.", 2), Value::Null);
    // "Correct." answers "And the boots?", a plain question: a yes.
    assert_eq!(extraction(false, "Correct.", 4), Value::Null);
}

/// The check of a string `value` quoted from the recipient in `call`.
fn recipient_code(call: &str, value: &str, quote: &str) -> Result<Evidence, Unsupported> {
    check(
        FieldType::String,
        &json!(value),
        &Quote::recipient(quote),
        call,
    )
}

#[test]
fn a_code_spelled_out_supports_its_value() {
    let call = "Agent: And the reference number?\n\
                Recipient: For the sofa it's B W, then seven, oh, three, three, one.\n\
                Agent: And the gate code?\n\
                Recipient: Yeah, it's 4-4-1-9, then pound.\n\
                Agent: Who should we ask for?\n\
                Recipient: Ask for A J, at desk one.";
    let code = |value: &str, quote: &str| recipient_code(call, value, quote);
    assert!(code("BW70331", "B W, then seven, oh, three, three, one").is_ok());
    assert!(code("4419", "it's 4-4-1-9").is_ok());
    assert_eq!(
        code("BW70332", "B W, then seven, oh, three, three, one"),
        Err(Unsupported::WordsNotQuoted)
    );
    // Part of a code is another code.
    assert_eq!(
        code("70331", "B W, then seven, oh, three, three, one"),
        Err(Unsupported::WordsNotQuoted)
    );
    // Initials alone spell no value: a value needs a digit.
    assert_eq!(
        code("AJ", "Ask for A J, at desk one"),
        Err(Unsupported::WordsNotQuoted)
    );
}

#[test]
fn a_lovely_or_noted_confirms_what_the_agent_said() {
    let call = "Agent: Wednesday, please.\n\
                Recipient: Lovely, I've got her in.\n\
                Agent: Saturday, then?\n\
                Recipient: Lovely, but Saturday's gone.";
    let day = |quote: Quote| check(FieldType::String, &json!("Wednesday"), &quote, call);
    assert!(day(Quote::agent("Wednesday, please.")).is_ok());
    let saturday = check(
        FieldType::String,
        &json!("Saturday"),
        &Quote::agent("Saturday, then?"),
        call,
    );
    assert_eq!(saturday, Err(Unsupported::NotConfirmed));
}

#[test]
fn numbers_across_a_comma_or_an_oh_before_them_spell_no_other_code() {
    let call = "Agent: Where is it?\n\
                Recipient: Room 22, 81 Main Street.\n\
                Agent: And the gate code?\n\
                Recipient: Oh, 4 4 1 9.";
    let code = |value: &str, quote: &str| recipient_code(call, value, quote);
    assert!(code("2281", "Room 22, 81 Main Street").is_err());
    assert!(code("4419", "Oh, 4 4 1 9").is_ok());
}

#[test]
fn an_acknowledgement_that_offers_another_day_confirms_nothing() {
    let call = "Agent: Saturday at two?\n\
                Recipient: Lovely, I can do Saturday at three.";
    assert_eq!(
        check(
            FieldType::String,
            &json!("Saturday at two"),
            &Quote::agent("Saturday at two?"),
            call,
        ),
        Err(Unsupported::NotConfirmed)
    );
}

/// A time of day said in the quote supports it on the 24-hour clock, in
/// the afternoon only when it was not said in the morning.
#[test]
fn a_spoken_time_supports_its_24_hour_reading() {
    let call = "Agent: When can she come?\n\
                Recipient: Thursday at quarter past four.\n\
                Agent: And the class?\n\
                Recipient: It starts at nine am.\n\
                Agent: And the fitting?\n\
                Recipient: At eight in the morning.";
    let time = |value: &str, quote: &str| {
        check(
            FieldType::String,
            &json!(value),
            &Quote::recipient(quote),
            call,
        )
    };
    assert!(time("16:15", "Thursday at quarter past four.").is_ok());
    assert!(time("4:15", "Thursday at quarter past four.").is_ok());
    assert!(time("09:00", "It starts at nine am.").is_ok());
    assert_eq!(
        time("21:00", "It starts at nine am."),
        Err(Unsupported::WordsNotQuoted)
    );
    assert_eq!(
        time("20:00", "At eight in the morning."),
        Err(Unsupported::WordsNotQuoted)
    );
}

/// "Oh, no, we do have one" to "There's no shuttle, is there?" turns
/// round: its no states no answer, so either value stands on it; "No, we
/// don't" is still a plain no.
#[test]
fn a_no_that_turns_round_is_no_plain_answer() {
    let call = "Agent: There's no shuttle, is there?\nRecipient: Oh, no, we do have one.\nAgent: Do you deliver?\nRecipient: No, we don't.";
    let check_bool = |value: bool, text: &str| {
        check(
            FieldType::Boolean,
            &json!(value),
            &Quote::recipient(text),
            call,
        )
    };
    assert!(check_bool(true, "Oh, no, we do have one.").is_ok());
    assert_eq!(
        check_bool(true, "No, we don't."),
        Err(Unsupported::OppositeAnswer)
    );
}

#[test]
fn a_count_with_the_speaker_agrees() {
    assert!(agree::number_agrees(
        4.0,
        "It'll be me and three guys.",
        false
    ));
    assert!(agree::number_agrees(
        3.0,
        "It'll be me and three guys.",
        false
    ));
    assert!(!agree::number_agrees(4.0, "It'll be three guys.", false));
}

#[test]
fn a_time_after_at_reads_on_either_half_of_the_day() {
    assert!(agree::number_agrees(19.0, "Doors at seven.", false));
    assert!(agree::number_agrees(7.0, "Doors at seven.", false));
    assert!(!agree::number_agrees(19.0, "Seven of them.", false));
}

/// A reply that opens by repeating what the agent said confirms it, and
/// "Sure, why not." or "That's the one." agree; a repetition that
/// hesitates or moves the value does not.
#[test]
fn repeating_the_agents_value_confirms_it() {
    let said = "He prefers early, so let's take eight forty.";
    assert!(agree::confirms(
        said,
        "Eight forty Saturday, two players, you're in."
    ));
    assert!(agree::confirms("Sunday instead?", "Sunday it is."));
    assert!(agree::confirms(
        "Add a deep conditioning?",
        "Sure, why not."
    ));
    assert!(agree::confirms(
        "You chose featheredge boards.",
        "That's the one."
    ));
    assert!(!agree::confirms(
        "On the second of August, a hog roast.",
        "Second of August... ah, the machine's out that weekend."
    ));
    assert!(!agree::confirms(
        "Could you collect him at nine fifteen?",
        "Nine fifteen's tight... can we say nine thirty?"
    ));
    assert!(!agree::confirms(
        "Sunday instead?",
        "Sunday we're shut, sorry."
    ));
}

#[test]
fn a_question_of_the_replys_own_neither_confirms_nor_takes_back() {
    let said = "He was told forty-five dollars a mow. Is that still right?";
    assert!(agree::confirms(
        said,
        "Yeah, that's right, forty-five. Lot's about a quarter acre, isn't it?"
    ));
    assert!(!agree::confirms(said, "Forty-five? Who told him that?"));
}

/// "The cat can't get into the boxes, so yeah, it's fine": the negation of
/// a reason a yes is drawn from does not make the quote a no.
#[test]
fn a_yes_drawn_from_a_negated_reason_is_a_yes() {
    let call = "Agent: Is it safe with a cat?\n\
                Recipient: The cat can't get into the boxes, so yeah, it's fine.";
    let quote = || Quote::recipient("The cat can't get into the boxes, so yeah, it's fine.");
    assert!(check(FieldType::Boolean, &json!(true), &quote(), call).is_ok());
    // Without the drawn yes, the negation still answers no.
    let call = "Agent: Can the cat get into the boxes?\n\
                Recipient: The cat can't get into the boxes.";
    assert_eq!(
        check(
            FieldType::Boolean,
            &json!(true),
            &Quote::recipient("The cat can't get into the boxes."),
            call
        ),
        Err(Unsupported::OppositeAnswer)
    );
}
