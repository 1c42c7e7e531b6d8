//! Deterministic plain-English call summary.

use serde_json::{Map, Value};

use crate::domain::FieldDefinition;
use agentcall_english::identifier::split_identifier;

/// Longest string answer quoted in a summary, in characters.
const MAX_ANSWER_CHARS: usize = 80;

/// Builds a short plain-English summary from the objective, the call's
/// final status and the extracted answers, e.g.
///
/// "Called to confirm Maria's appointment on Thursday. The call completed.
/// The recipient answered: appointment confirmed: yes; needs parking: no.
/// Not established: insurance provider."
///
/// `outcome` is the call's final status as a short token such as
/// `completed`, `no_answer`, `busy`, `failed`, `voicemail`, `canceled` or
/// `ended_early` (case, `-` and spaces are ignored); other values are quoted
/// as given. Fields are listed in definition order (repeated names once);
/// booleans read yes/no, numbers as written, long strings are cut to 80
/// characters. Values that are missing, `null` or of an unexpected JSON kind
/// count as not established.
pub fn summarize(
    objective: &str,
    outcome: &str,
    fields: &[FieldDefinition],
    extracted: &Map<String, Value>,
) -> String {
    let mut parts: Vec<String> = Vec::new();
    let objective = objective.trim().trim_end_matches(['.', '!', ' ']);
    if !objective.is_empty() {
        parts.push(format!("Called to {}.", lower_first(objective)));
    }
    parts.push(outcome_sentence(outcome));

    let mut found: Vec<String> = Vec::new();
    let mut missing: Vec<String> = Vec::new();
    let mut seen: Vec<&str> = Vec::new();
    for f in fields {
        if seen.contains(&f.name.as_str()) {
            continue;
        }
        seen.push(&f.name);
        let label = label(&f.name);
        match extracted.get(&f.name).and_then(render) {
            Some(v) => found.push(format!("{label}: {v}")),
            None => missing.push(label),
        }
    }
    if !found.is_empty() {
        parts.push(format!("The recipient answered: {}.", found.join("; ")));
    }
    if !missing.is_empty() {
        parts.push(format!("Not established: {}.", missing.join(", ")));
    }
    parts.join(" ")
}

fn outcome_sentence(outcome: &str) -> String {
    let key: String = outcome
        .trim()
        .chars()
        .map(|c| {
            if c == '-' || c == ' ' {
                '_'
            } else {
                c.to_ascii_lowercase()
            }
        })
        .collect();
    let text = match key.as_str() {
        "completed" | "complete" | "success" | "succeeded" => "The call completed.",
        "no_answer" | "noanswer" | "unanswered" => "Nobody answered.",
        "busy" => "The line was busy.",
        "failed" | "error" => "The call failed.",
        "voicemail" | "machine" => "The call reached voicemail.",
        "canceled" | "cancelled" => "The call was canceled.",
        "ended_early" | "hung_up" | "hangup" => "The call ended early.",
        "timeout" | "timed_out" => "The call timed out.",
        "" => "The call status is unknown.",
        _ => return format!("Call status: {}.", outcome.trim()),
    };
    text.to_string()
}

/// Lower-cases the first letter of an imperative objective ("Confirm …" →
/// "confirm …") unless the first word looks like a name or acronym.
fn lower_first(s: &str) -> String {
    let mut chars = s.chars();
    let Some(first) = chars.next() else {
        return String::new();
    };
    let second_is_upper = s.chars().nth(1).is_some_and(char::is_uppercase);
    if first.is_uppercase() && !second_is_upper {
        first.to_lowercase().chain(chars).collect()
    } else {
        s.to_string()
    }
}

fn label(name: &str) -> String {
    let words = split_identifier(name);
    if words.is_empty() {
        name.to_string()
    } else {
        words.join(" ")
    }
}

fn render(v: &Value) -> Option<String> {
    match v {
        Value::Bool(true) => Some("yes".into()),
        Value::Bool(false) => Some("no".into()),
        Value::Number(n) => Some(n.to_string()),
        Value::String(s) => {
            let s = s.split_whitespace().collect::<Vec<_>>().join(" ");
            if s.is_empty() {
                return None;
            }
            if s.chars().count() > MAX_ANSWER_CHARS {
                let cut: String = s.chars().take(MAX_ANSWER_CHARS).collect();
                Some(format!("\"{}…\"", cut.trim_end()))
            } else {
                Some(format!("\"{s}\""))
            }
        }
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::domain::FieldType;
    use serde_json::json;

    fn field(name: &str, t: FieldType) -> FieldDefinition {
        FieldDefinition {
            name: name.into(),
            field_type: t,
            description: None,
        }
    }

    #[test]
    fn summary_lists_answers_and_gaps() {
        let fields = vec![
            field("appointment_confirmed", FieldType::Boolean),
            field("needs_parking", FieldType::Boolean),
            field("insurance_provider", FieldType::String),
            field("copayAmount", FieldType::Number),
        ];
        let ex = json!({"appointment_confirmed": true, "needs_parking": false, "insurance_provider": null, "copayAmount": 12.5});
        let s = summarize(
            "Confirm Maria Delgado's appointment on Thursday.",
            "completed",
            &fields,
            ex.as_object().unwrap_or(&Map::new()),
        );
        assert_eq!(
            s,
            "Called to confirm Maria Delgado's appointment on Thursday. The call completed. \
             The recipient answered: appointment confirmed: yes; needs parking: no; copay amount: 12.5. \
             Not established: insurance provider."
        );
    }

    #[test]
    fn summary_handles_empty_inputs() {
        let s = summarize("", "no-answer", &[], &Map::new());
        assert_eq!(s, "Nobody answered.");
        let s = summarize(
            "AI check",
            "weird",
            &[field("x", FieldType::String)],
            &Map::new(),
        );
        assert_eq!(
            s,
            "Called to AI check. Call status: weird. Not established: x."
        );
    }
}
