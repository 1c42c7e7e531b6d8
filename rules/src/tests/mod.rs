//! End-to-end checks of the offline extractor on small invented calls,
//! one file per kind of value.

mod amounts_in_context;
mod amounts_of_options;
mod amounts_read_back;
mod amounts_read_narrowly;
mod answers_kept;
mod field_kinds;
mod implied_amounts;
mod misread_days_units_and_yes_no;
mod misread_hedges_and_referrals;
mod misread_read_backs_names_and_echoes;
mod misreadings_of_replies;
mod names_asked_for;
mod numbers;
mod preferences_said;
mod question_frames;
mod replies_in_passing;
mod replies_read_narrowly;
mod strings;
mod strings_set_apart;
mod which_figure;
mod yes_no;

use super::RulesExtractor;
use agentcall::domain::{FieldDefinition, FieldType};
use serde_json::{Map, Value};

use serde_json::json;

pub(super) fn field(name: &str, field_type: FieldType, desc: &str) -> FieldDefinition {
    FieldDefinition {
        name: name.into(),
        field_type,
        description: Some(desc.into()),
    }
}

/// The extractor's values after the service's check of their evidence.
pub(super) fn run(fields: &[FieldDefinition], transcript: &str) -> Map<String, Value> {
    run_for("Call the shop.", fields, transcript)
}

/// [`run`] for a call placed towards `objective` (whose words say little
/// about a field).
pub(super) fn run_for(
    objective: &str,
    fields: &[FieldDefinition],
    transcript: &str,
) -> Map<String, Value> {
    let transcript = &agentcall::Transcript::from_text(transcript);
    let extraction = RulesExtractor::new().extract(objective, fields, transcript);
    let grounded = agentcall::extract::ground(fields, &extraction, transcript);
    eprintln!(
        "quotes {:?}\nreasons {:?}",
        extraction.quotes, grounded.reasons
    );
    grounded.values
}

/// The value of field `name` after a call of one exchange: the agent asks
/// `question`, the recipient gives `reply`, the agent thanks them.
pub(super) fn one_exchange(
    name: &str,
    field_type: FieldType,
    desc: &str,
    question: &str,
    reply: &str,
) -> Value {
    let fields = [field(name, field_type, desc)];
    let transcript = format!("Agent: {question}\nRecipient: {reply}\nAgent: Thanks.");
    run(&fields, &transcript)[name].clone()
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
    let transcript = &agentcall::Transcript::from_text(transcript);
    let extraction = RulesExtractor::new().extract("Call the shop.", &fields, transcript);
    let grounded = agentcall::extract::ground(&fields, &extraction, transcript);
    assert_eq!(grounded.values["delivers"], json!(true));
    assert_eq!(grounded.evidence["delivers"].turn, 2);
    assert_eq!(grounded.evidence["takes_cards"].turn, 4);
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
