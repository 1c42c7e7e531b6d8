//! Coercion of extractor output to the declared field types, and the
//! [`conform`] guard the service applies to whatever an extractor returned.

use std::collections::BTreeMap;

use serde_json::{Map, Number, Value};

use crate::domain::{FieldDefinition, FieldType};
use agentcall_english::number_words::{NumberWord, classify_number_word};
use agentcall_english::numbers::find_numbers;
use agentcall_english::tokens::{TokenKind, tokenize};
use agentcall_english::units::Unit;

/// Why a raw value could not be coerced to its declared type.
///
/// The messages describe the problem only; they never echo the value, which
/// may carry personal data from the call.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum CoercionError {
    /// The JSON kind cannot represent the declared type at all
    /// (an array or object, or a boolean for a number field).
    #[error("expected a {expected}, found a JSON {found}")]
    WrongKind {
        /// Declared type.
        expected: &'static str,
        /// JSON kind that was found.
        found: &'static str,
    },
    /// A string field whose text is empty after trimming.
    #[error("expected a non-empty string, found only whitespace")]
    EmptyString,
    /// Text that does not read as the declared type.
    #[error("expected a {expected}: {reason}")]
    Unreadable {
        /// Declared type.
        expected: &'static str,
        /// What went wrong, in words the host can show.
        reason: &'static str,
    },
}

fn type_name(t: FieldType) -> &'static str {
    match t {
        FieldType::String => "string",
        FieldType::Boolean => "boolean",
        FieldType::Number => "number",
    }
}

fn kind_name(v: &Value) -> &'static str {
    match v {
        Value::Null => "null",
        Value::Bool(_) => "boolean",
        Value::Number(_) => "number",
        Value::String(_) => "string",
        Value::Array(_) => "array",
        Value::Object(_) => "object",
    }
}

/// Coerces `raw` to `field_type`.
///
/// * `null` stays `null` (the extractor found nothing).
/// * **boolean**: JSON booleans; the numbers `1`/`0`; strings such as
///   "true"/"false", "yes", "yeah", "yep", "sure", "correct", "no", "nope",
///   "nah", "not really" (case and trailing punctuation ignored), or a
///   reply that starts with a clear "yes,"/"no," followed by more words.
/// * **number**: JSON numbers; strings holding exactly one quantity, written
///   with digits and separators ("1,350", "$1,350.00", "£12.50", "15%") or
///   spoken ("twenty-five", "a dozen", "two and a half", "one hundred and
///   twelve"). Up to four plain words may accompany it, so units and hedges
///   pass ("12.5 minutes" → 12.5, "about 20 people" → 20); the unit is not
///   converted. A spoken pair like "twelve fifty" is read as a price, 12.50
///   ("four eighty-five", with a one-digit first part, reads 485). "free",
///   "none", "nothing" and "zero" give 0. Ranges ("6 to 8"), several numbers,
///   clock times ("2pm") and non-finite values are errors.
/// * **string**: trimmed text (empty is an error); numbers and booleans
///   become their JSON text.
///
/// # Errors
/// [`CoercionError`] when the value cannot be read as the declared type.
pub fn coerce(field_type: FieldType, raw: &Value) -> Result<Value, CoercionError> {
    if raw.is_null() {
        return Ok(Value::Null);
    }
    match field_type {
        FieldType::Boolean => coerce_bool(raw),
        FieldType::Number => coerce_number(raw),
        FieldType::String => coerce_string(raw),
    }
}

fn wrong_kind(t: FieldType, v: &Value) -> CoercionError {
    CoercionError::WrongKind {
        expected: type_name(t),
        found: kind_name(v),
    }
}

#[rustfmt::skip]
const YES: &[&str] = &[
    "true", "yes", "y", "yeah", "yea", "ya", "yep", "yup", "sure", "correct", "affirmative", "absolutely",
    "definitely", "certainly", "of course", "indeed", "right", "that's right", "ok", "okay", "confirmed",
    "sure thing", "yes please", "uh huh", "uh-huh", "mm-hmm", "t",
];
#[rustfmt::skip]
const NO: &[&str] = &[
    "false", "no", "n", "nope", "nah", "not really", "negative", "never", "incorrect", "no way",
    "not at all", "definitely not", "absolutely not", "of course not", "no thanks", "no thank you", "f",
];

/// Lower-cases, trims, strips surrounding punctuation and collapses spaces.
fn simple_text(s: &str) -> String {
    let lower = s.to_lowercase();
    let trimmed =
        lower.trim_matches(|c: char| c.is_whitespace() || (c.is_ascii_punctuation() && c != '\''));
    trimmed.split_whitespace().collect::<Vec<_>>().join(" ")
}

fn coerce_bool(raw: &Value) -> Result<Value, CoercionError> {
    match raw {
        Value::Bool(b) => Ok(Value::Bool(*b)),
        Value::Number(n) => match n.as_f64() {
            Some(1.0) => Ok(Value::Bool(true)),
            Some(0.0) => Ok(Value::Bool(false)),
            _ => Err(CoercionError::Unreadable {
                expected: "boolean",
                reason: "only the numbers 1 and 0 read as yes/no",
            }),
        },
        Value::String(s) => {
            let t = simple_text(s);
            if YES.contains(&t.as_str()) || t == "1" {
                return Ok(Value::Bool(true));
            }
            if NO.contains(&t.as_str()) || t == "0" {
                return Ok(Value::Bool(false));
            }
            // "Yes, she confirmed." / "No, not this week."
            if let Some((head, _)) = t.split_once([',', '.', ';', '!']) {
                let head = head.trim();
                if YES.contains(&head) && head.len() > 1 && head != "right" {
                    return Ok(Value::Bool(true));
                }
                if NO.contains(&head) && head.len() > 1 {
                    return Ok(Value::Bool(false));
                }
            }
            Err(CoercionError::Unreadable {
                expected: "boolean",
                reason: "the text is not a recognizable yes or no",
            })
        }
        other => Err(wrong_kind(FieldType::Boolean, other)),
    }
}

/// Builds a JSON number, as an integer when the value is integral.
pub fn json_number(v: f64) -> Option<Value> {
    if !v.is_finite() {
        return None;
    }
    if v.fract() == 0.0 && v.abs() < 9.0e15 {
        return Some(Value::Number(Number::from(v as i64)));
    }
    // Round away binary noise from arithmetic like 12 + 50/100.
    let rounded = (v * 1e9).round() / 1e9;
    Number::from_f64(rounded).map(Value::Number)
}

fn coerce_number(raw: &Value) -> Result<Value, CoercionError> {
    match raw {
        Value::Number(n) => {
            let ok = n.as_f64().is_some_and(f64::is_finite);
            if ok {
                Ok(Value::Number(n.clone()))
            } else {
                Err(CoercionError::Unreadable {
                    expected: "number",
                    reason: "the number is not finite",
                })
            }
        }
        Value::String(s) => {
            let v = parse_number_text(s).map_err(|reason| CoercionError::Unreadable {
                expected: "number",
                reason,
            })?;
            json_number(v).ok_or(CoercionError::Unreadable {
                expected: "number",
                reason: "the number is not finite",
            })
        }
        other => Err(wrong_kind(FieldType::Number, other)),
    }
}

/// Words allowed next to a number without making the text ambiguous.
const MAX_EXTRA_WORDS: usize = 4;

/// Reads a single quantity out of short text.
pub(crate) fn parse_number_text(s: &str) -> Result<f64, &'static str> {
    let t = simple_text(s);
    if t.is_empty() {
        return Err("the text is empty");
    }
    if matches!(
        t.as_str(),
        "free" | "none" | "nothing" | "zero" | "no charge" | "nil"
    ) {
        return Ok(0.0);
    }
    let toks = tokenize(s);
    let negative = toks
        .iter()
        .position(|t| t.kind == TokenKind::Num || t.is_word())
        .and_then(|first| first.checked_sub(1))
        .and_then(|i| toks.get(i))
        .is_some_and(|t| t.is_punct('-') || t.text == "\u{2212}");
    let ms = find_numbers(&toks);
    match ms.as_slice() {
        [] => return Err("no number found in the text"),
        [_] => {}
        [a, _] if a.range_with.is_some() => return Err("the text gives a range, not one number"),
        _ => return Err("the text holds more than one number"),
    }
    let m = &ms[0];
    if m.unit == Unit::Clock || (m.clock.is_some() && m.after_time_prep) {
        return Err("the text is a clock time, not a quantity");
    }
    let outside = toks
        .iter()
        .enumerate()
        .filter(|(i, _)| *i < m.start || *i >= m.end)
        .map(|(_, t)| t)
        .filter(|t| t.kind == TokenKind::Word)
        .collect::<Vec<_>>();
    if outside
        .iter()
        .any(|t| classify_number_word(&t.lower).is_some_and(|w| w != NumberWord::Ordinal(2)))
    {
        return Err("the text holds more than one number");
    }
    if outside.len() > MAX_EXTRA_WORDS {
        return Err("the number is buried in too much other text");
    }
    let v = if negative { -m.value } else { m.value };
    if v.is_finite() {
        Ok(v)
    } else {
        Err("the number is not finite")
    }
}

fn coerce_string(raw: &Value) -> Result<Value, CoercionError> {
    match raw {
        Value::String(s) => {
            let t = s.trim();
            if t.is_empty() {
                Err(CoercionError::EmptyString)
            } else {
                Ok(Value::String(t.to_string()))
            }
        }
        Value::Number(n) => Ok(Value::String(n.to_string())),
        Value::Bool(b) => Ok(Value::String(b.to_string())),
        other => Err(wrong_kind(FieldType::String, other)),
    }
}

/// The result of [`conform`].
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Conformed {
    /// Exactly one key per requested field (first definition wins for a
    /// repeated name), each a value of the declared type or `null`.
    pub values: Map<String, Value>,
    /// Why a field was nulled, keyed by field name: its key was missing from
    /// the extractor output, or its value could not be coerced. An explicit
    /// `null` from the extractor ("not established") has no reason.
    pub reasons: BTreeMap<String, String>,
}

/// Guard applied to any extractor's output: returns an object with exactly
/// the requested field names as keys, each value of its declared type or
/// `null`, plus per-field reasons for anything nulled.
///
/// Keys the extractor returned that were not requested are dropped silently
/// (they are not the caller's fields, so there is nothing to report against);
/// their count is logged at debug level. Each nulled-with-reason field logs
/// one `tracing::warn!` line carrying the field name and the reason only,
/// never the value text, which may hold personal data from the call.
pub fn conform(fields: &[FieldDefinition], raw: &Map<String, Value>) -> Conformed {
    let mut out = Conformed::default();
    for f in fields {
        if out.values.contains_key(&f.name) {
            continue;
        }
        let value = match raw.get(&f.name) {
            None => {
                out.reasons
                    .insert(f.name.clone(), "missing from the extractor output".into());
                Value::Null
            }
            Some(v) => match coerce(f.field_type, v) {
                Ok(v) => v,
                Err(e) => {
                    out.reasons.insert(f.name.clone(), e.to_string());
                    Value::Null
                }
            },
        };
        if let Some(reason) = out.reasons.get(&f.name) {
            tracing::warn!(field = %f.name, %reason, "extracted field set to null");
        }
        out.values.insert(f.name.clone(), value);
    }
    let extra = raw.keys().filter(|k| !out.values.contains_key(*k)).count();
    if extra > 0 {
        tracing::debug!(
            extra,
            "dropped keys the extractor returned for fields that were not requested"
        );
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn num(s: &str) -> Value {
        coerce(FieldType::Number, &json!(s)).unwrap_or_else(|e| panic!("{s}: {e}"))
    }

    #[test]
    fn booleans() {
        for (input, want) in [
            (json!(true), true),
            (json!(false), false),
            (json!("true"), true),
            (json!("FALSE"), false),
            (json!("Yes"), true),
            (json!("yeah"), true),
            (json!("Yep."), true),
            (json!("sure"), true),
            (json!("correct"), true),
            (json!("no"), false),
            (json!("Nope!"), false),
            (json!("nah"), false),
            (json!("not really"), false),
            (json!(1), true),
            (json!(0), false),
            (json!("Yes, she confirmed"), true),
            (json!("No, not this week"), false),
        ] {
            assert_eq!(
                coerce(FieldType::Boolean, &input),
                Ok(Value::Bool(want)),
                "{input}"
            );
        }
        for bad in [
            json!("maybe"),
            json!("blue"),
            json!(2),
            json!([true]),
            json!({}),
            json!(""),
        ] {
            assert!(coerce(FieldType::Boolean, &bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn numbers() {
        assert_eq!(num("1,350"), json!(1350));
        assert_eq!(num("$1,350.00"), json!(1350));
        assert_eq!(num("$1,350"), json!(1350));
        assert_eq!(num("£12.50"), json!(12.5));
        assert_eq!(num("12.5 minutes"), json!(12.5));
        assert_eq!(num("twenty-five"), json!(25));
        assert_eq!(num("a dozen"), json!(12));
        assert_eq!(num("two and a half"), json!(2.5));
        assert_eq!(num("one hundred and twelve"), json!(112));
        assert_eq!(num("twelve fifty"), json!(12.5));
        assert_eq!(num("twelve dollars and fifty cents"), json!(12.5));
        assert_eq!(num("four eighty-five"), json!(485));
        assert_eq!(num("15%"), json!(15));
        assert_eq!(num("-3"), json!(-3));
        assert_eq!(num("third"), json!(3));
        assert_eq!(num("free"), json!(0));
        assert_eq!(coerce(FieldType::Number, &json!(7.25)), Ok(json!(7.25)));
        for bad in [
            "",
            "lots",
            "6 to 8",
            "between 5 and 10",
            "2pm",
            "3 or 4",
            "12 and 15",
        ] {
            assert!(coerce(FieldType::Number, &json!(bad)).is_err(), "{bad}");
        }
        assert!(coerce(FieldType::Number, &json!(true)).is_err());
        assert!(coerce(FieldType::Number, &json!([1])).is_err());
    }

    #[test]
    fn strings() {
        assert_eq!(
            coerce(FieldType::String, &json!("  Marco \n")),
            Ok(json!("Marco"))
        );
        assert_eq!(coerce(FieldType::String, &json!(409)), Ok(json!("409")));
        assert_eq!(coerce(FieldType::String, &json!(true)), Ok(json!("true")));
        assert_eq!(
            coerce(FieldType::String, &json!("   ")),
            Err(CoercionError::EmptyString)
        );
        assert!(coerce(FieldType::String, &json!({"a": 1})).is_err());
        assert_eq!(coerce(FieldType::String, &Value::Null), Ok(Value::Null));
    }

    #[test]
    fn error_text_does_not_echo_value() {
        let e = coerce(FieldType::Number, &json!("secret-text")).unwrap_err();
        assert!(!e.to_string().contains("secret"));
    }

    #[test]
    fn conform_keeps_exactly_requested_keys() {
        let fields = vec![
            FieldDefinition {
                name: "a".into(),
                field_type: FieldType::Boolean,
                description: None,
            },
            FieldDefinition {
                name: "b".into(),
                field_type: FieldType::Number,
                description: None,
            },
            FieldDefinition {
                name: "c".into(),
                field_type: FieldType::String,
                description: None,
            },
            FieldDefinition {
                name: "a".into(),
                field_type: FieldType::Number,
                description: None,
            },
            FieldDefinition {
                name: "d".into(),
                field_type: FieldType::String,
                description: None,
            },
        ];
        let raw = json!({"a": "yes", "b": "lots", "c": null, "zzz": 1})
            .as_object()
            .cloned()
            .unwrap_or_default();
        let c = conform(&fields, &raw);
        let keys: Vec<&str> = c.values.keys().map(String::as_str).collect();
        assert_eq!(keys, vec!["a", "b", "c", "d"]);
        assert_eq!(c.values["a"], json!(true));
        assert_eq!(c.values["b"], Value::Null);
        assert_eq!(c.values["c"], Value::Null);
        assert_eq!(c.values["d"], Value::Null);
        assert!(c.reasons.contains_key("b"));
        assert!(c.reasons.contains_key("d"));
        assert!(!c.reasons.contains_key("c"));
        assert!(!c.reasons.contains_key("zzz"));
    }
}
