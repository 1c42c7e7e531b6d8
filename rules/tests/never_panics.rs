//! Property test: the rules never panic, their values conform to the
//! declared types, and every value the evidence check keeps has evidence.

use agentcall::domain::{FieldDefinition, FieldType};
use agentcall::extract::{conform, ground};
use agentcall_rules::RulesExtractor;
use proptest::prelude::*;

fn field_type() -> impl Strategy<Value = FieldType> {
    prop_oneof![
        Just(FieldType::String),
        Just(FieldType::Boolean),
        Just(FieldType::Number)
    ]
}

/// Strings biased towards the vocabulary the parsers care about.
fn wordy() -> impl Strategy<Value = String> {
    let word = prop_oneof![
        Just("twelve".to_string()),
        Just("fifty".to_string()),
        Just("a".to_string()),
        Just("dozen".to_string()),
        Just("and".to_string()),
        Just("half".to_string()),
        Just("hundred".to_string()),
        Just("oh".to_string()),
        Just("-".to_string()),
        Just("$".to_string()),
        Just("1,350.00".to_string()),
        Just("yes".to_string()),
        Just("no".to_string()),
        Just("pm".to_string()),
        Just("point".to_string()),
        // Words the extractor's rules turn on: windows on the clock, scales,
        // durations, problem questions, who provides, free and waived,
        // sign-offs, superseded amounts, spelled codes.
        Just("to".to_string()),
        Just("between".to_string()),
        Just("thousand".to_string()),
        Just("days".to_string()),
        Just("in the afternoon".to_string()),
        Just("tomorrow morning".to_string()),
        Just("a problem?".to_string()),
        Just("she provide".to_string()),
        Just("no trip charge".to_string()),
        Just("waived".to_string()),
        Just("thanks.".to_string()),
        Just("last time it was".to_string()),
        Just("T-H-five".to_string()),
        Just("I".to_string()),
        Just("Miller's".to_string()),
        Just("double-flue".to_string()),
        // This round's: echoes and corrections, add-ons, spans of days,
        // self-introductions, streets and places, turning noes.
        Just("got it.".to_string()),
        Just("wrong".to_string()),
        Just("plus tax".to_string()),
        Just("an add-on".to_string()),
        Just("on top of that".to_string()),
        Just("Monday through".to_string()),
        Just("Fridays and".to_string()),
        Just("weeknights".to_string()),
        Just("every other week".to_string()),
        Just("speaking.".to_string()),
        Just("this is".to_string()),
        Just("near Linden Park".to_string()),
        Just("the Elm Street".to_string()),
        Just("no, we do".to_string()),
        Just("it is!".to_string()),
        Just("noon".to_string()),
        Just("if".to_string()),
        Just("a slice".to_string()),
        Just("Upload's".to_string()),
        "\\PC{0,6}",
    ];
    prop::collection::vec(word, 0..8).prop_map(|w| w.join(" "))
}

/// Field names whose words the rules read (a waived charge, a window's
/// start, a problem question's subject, an option compound).
fn field_name() -> impl Strategy<Value = &'static str> {
    prop_oneof![
        Just("field"),
        Just("trip_charge_waived"),
        Just("dogs_allowed"),
        Just("window_start_hour"),
        Just("supplies_included"),
        Just("single_flue_price"),
        Just("boxes_for_year"),
        Just("host_name"),
        Just("income_limit"),
        Just("delivery_included"),
    ]
}

proptest! {
    #[test]
    fn extraction_never_panics_and_conforms(
        lines in prop::collection::vec((prop_oneof![Just("Agent: "), Just("Recipient: "), Just("")], wordy()), 0..12),
        types in prop::collection::vec(field_type(), 1..5),
        names in prop::collection::vec(field_name(), 5),
        desc in prop_oneof![
            "\\PC{0,30}".boxed(),
            Just("Start of the arrival window, hour on a 24-hour clock".to_string()).boxed(),
            Just("Number of boxes needed for a year's supply".to_string()).boxed(),
            Just("Whether the trip charge is waived".to_string()).boxed(),
            Just("Monthly price of the single-flue plan, in dollars".to_string()).boxed(),
            Just("First name of the staff member who took the booking".to_string()).boxed(),
            Just("Income limit for a household of two, before tax and fees".to_string()).boxed(),
            Just("Whether delivery is included at no extra charge (not in a block)".to_string()).boxed(),
        ],
    ) {
        let text: String = lines.iter().map(|(l, t)| format!("{l}{t}\n")).collect();
        let transcript = agentcall::Transcript::from_text(&text);
        let fields: Vec<FieldDefinition> = types
            .iter()
            .enumerate()
                        .map(|(i, t)| FieldDefinition { name: format!("{}_{i}", names[i]), field_type: *t, description: Some(desc.clone()) })
            .collect();
        let extraction = RulesExtractor::new().extract(&desc, &fields, &transcript);
        prop_assert!(conform(&fields, &extraction.values).reasons.is_empty());
        // Every value that survives the check has evidence; every one it
        // removes says why.
        let grounded = ground(&fields, &extraction, &transcript);
        prop_assert_eq!(grounded.values.len(), fields.len());
        for (name, value) in &grounded.values {
            prop_assert_eq!(!value.is_null(), grounded.evidence.contains_key(name));
        }
        for reason in grounded.reasons.values() {
            prop_assert!(reason.starts_with("unsupported_by_transcript: "), "{}", reason);
        }
    }
}
