//! The rules on calls the agent made with the simulated carrier's
//! recipient, who keeps what it finally told about each field.

use std::time::Duration;

use agentcall::agent::Agent;
use agentcall::carrier::{DialRequest, rehearse};
use agentcall::domain::{CallId, FieldDefinition, FieldType};
use agentcall::extract::ground;
use agentcall_rules::RulesExtractor;
use serde_json::Value;

fn request(fields: Vec<FieldDefinition>) -> DialRequest {
    DialRequest {
        call_id: CallId::generate(),
        attempt: 1,
        to: "+14155550109".into(),
        caller_id: "+14155550100".into(),
        objective: "Confirm the delivery and collect the details.".into(),
        context: None,
        fields,
        max_duration: Duration::from_secs(600),
    }
}

/// Over many recipients (with their repeats, silences, dodges,
/// corrections and interruptions), the rules never report a value the
/// recipient did not finally give, and recover most.
#[tokio::test]
async fn extraction_holds_to_what_each_simulated_recipient_finally_told() {
    let fields = vec![
        FieldDefinition::new("delivery_confirmed", FieldType::Boolean)
            .with_description("Whether the delivery is confirmed"),
        FieldDefinition::new("boxes", FieldType::Number)
            .with_description("How many boxes are expected"),
        FieldDefinition::new("contact_name", FieldType::String)
            .with_description("Name of the person receiving it"),
        FieldDefinition::new("gate_code", FieldType::String),
    ];
    let extractor = RulesExtractor::new();
    let (mut given, mut recovered, mut wrong) = (0, 0, Vec::new());
    for _ in 0..200 {
        let request = request(fields.clone());
        let rehearsal = rehearse(&Agent::default(), &request).await;
        assert!(rehearsal.ended_by_agent, "the agent ends the call itself");
        let transcript = &rehearsal.transcript;
        let extraction = extractor.extract(&request.objective, &request.fields, transcript);
        let extracted = ground(&fields, &extraction, transcript).values;
        for (field, told) in fields.iter().zip(&rehearsal.told) {
            let got = extracted.get(&field.name).cloned().unwrap_or(Value::Null);
            given += usize::from(told.is_some());
            match told {
                Some(told) if same_answer(&got, told) => recovered += 1,
                _ if got.is_null() => {}
                _ => wrong.push(format!("{}: {got} for {told:?}\n{transcript}", field.name)),
            }
        }
    }
    assert!(wrong.is_empty(), "{} wrong values: {wrong:#?}", wrong.len());
    assert!(
        recovered * 10 >= given * 9,
        "recovered {recovered} of {given}"
    );
}

/// The labelled sets' scoring rule: numbers equal; a string holds the
/// told one, letters and digits compared case-folded.
fn same_answer(got: &Value, told: &Value) -> bool {
    let norm = |s: &str| -> String {
        s.chars()
            .filter(|c| c.is_alphanumeric() || c.is_whitespace())
            .flat_map(char::to_lowercase)
            .collect::<String>()
            .split_whitespace()
            .collect::<Vec<_>>()
            .join(" ")
    };
    match (got, told) {
        (Value::Number(a), Value::Number(b)) => a.as_f64() == b.as_f64(),
        (Value::String(a), Value::String(b)) => norm(a).contains(&norm(b)),
        _ => got == told,
    }
}
