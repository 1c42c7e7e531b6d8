//! Reading a placement body (a JSON object): which keys it may have, and
//! each value's JSON type, before the rules [`Guardrails::check`] shares
//! with typed requests apply.
//!
//! [`Guardrails::check`]: super::Guardrails::check

use std::collections::BTreeMap;

use serde_json::{Map, Value};

use super::{Rejection, check_fields, check_metadata};
use crate::domain::{
    FieldDefinition, FieldType, MAX_FIELDS, MAX_METADATA_KEYS, MAX_METADATA_VALUE_CHARS,
};

/// The keys a placement body may have.
const PLACEMENT_KEYS: [&str; 10] = [
    "to",
    "objective",
    "context",
    "fields",
    "webhookUrl",
    "callerId",
    "metadata",
    "scheduledAt",
    "callingWindow",
    "retry",
];

/// The objects of a placement body whose keys the API fixes, with them.
const NESTED_KEYS: [(&str, &[&str]); 2] = [
    ("callingWindow", &["start", "end", "days"]),
    ("retry", &["maxAttempts", "on", "delayMinutes"]),
];

/// The keys a field definition may have.
const FIELD_KEYS: [&str; 3] = ["name", "type", "description"];

/// Rejects the first key, top level or inside a field definition, a
/// calling window or a retry policy, that the API does not know.
/// `metadata` holds the caller's own keys and is not checked here.
pub(super) fn check_known_keys(body: &Map<String, Value>) -> Result<(), Rejection> {
    if let Some(key) = body
        .keys()
        .find(|key| !PLACEMENT_KEYS.contains(&key.as_str()))
    {
        return Err(Rejection::UnknownField(key.clone()));
    }
    for (name, known) in NESTED_KEYS {
        if let Some(Value::Object(nested)) = body.get(name)
            && let Some(key) = nested.keys().find(|key| !known.contains(&key.as_str()))
        {
            return Err(Rejection::UnknownField(format!("{name}.{key}")));
        }
    }
    let Some(Value::Array(items)) = body.get("fields") else {
        return Ok(());
    };
    for (index, item) in items.iter().enumerate() {
        let Value::Object(definition) = item else {
            continue; // not an object: `invalid_fields` says so in its turn
        };
        if let Some(key) = definition
            .keys()
            .find(|key| !FIELD_KEYS.contains(&key.as_str()))
        {
            return Err(Rejection::UnknownField(format!("fields[{index}].{key}")));
        }
    }
    Ok(())
}

/// A JSON object read as `T` (serde would also take an array of the
/// values in order, which the API does not).
pub(super) fn object_as<T: serde::de::DeserializeOwned>(value: &Value) -> Result<T, String> {
    if !value.is_object() {
        return Err("not an object".into());
    }
    serde_json::from_value(value.clone()).map_err(|error| error.to_string())
}

/// `scheduledAt` from JSON: RFC 3339 with an explicit offset (`Z` or
/// `±HH:MM`); how far ahead it may be is the service's check.
pub(super) fn parse_scheduled_at(
    text: &str,
) -> Result<chrono::DateTime<chrono::FixedOffset>, Rejection> {
    let malformed = || {
        Rejection::InvalidScheduledAt(format!(
            "{text:?} is not an RFC 3339 time with an offset (e.g. 2026-12-01T09:30:00-05:00)"
        ))
    };
    let at = chrono::DateTime::parse_from_rfc3339(text).map_err(|_| malformed())?;
    // A leap second (`23:59:60`) names no instant a clock can wait for.
    if at.timestamp_subsec_nanos() >= 1_000_000_000 {
        return Err(malformed());
    }
    Ok(at)
}

/// `metadata` from JSON: an object of strings, then the shared rules.
pub(super) fn parse_metadata(value: &Value) -> Result<BTreeMap<String, String>, String> {
    let object = value.as_object().ok_or("not an object")?;
    if object.len() > MAX_METADATA_KEYS {
        return Err(format!("more than {MAX_METADATA_KEYS} keys"));
    }
    let metadata = object
        .iter()
        .map(|(key, value)| match value {
            Value::String(text) => Ok((key.clone(), text.clone())),
            _ => Err(format!(
                "values must be strings of at most {MAX_METADATA_VALUE_CHARS} characters"
            )),
        })
        .collect::<Result<_, String>>()?;
    check_metadata(&metadata)?;
    Ok(metadata)
}

/// `fields` from JSON: an array of objects with the right JSON types, then
/// the shared rules.
pub(super) fn parse_fields(value: &Value) -> Result<Vec<FieldDefinition>, String> {
    let items = value.as_array().ok_or("not an array")?;
    if items.len() > MAX_FIELDS {
        return Err(format!("more than {MAX_FIELDS} items"));
    }
    let fields = items
        .iter()
        .enumerate()
        .map(|(index, item)| {
            let object = item
                .as_object()
                .ok_or(format!("item {index} is not an object"))?;
            let Some(Value::String(name)) = object.get("name") else {
                return Err(format!("item {index} has no name"));
            };
            let field_type = match object.get("type") {
                None | Some(Value::Null) => FieldType::String,
                Some(Value::String(t)) if t == "string" => FieldType::String,
                Some(Value::String(t)) if t == "boolean" => FieldType::Boolean,
                Some(Value::String(t)) if t == "number" => FieldType::Number,
                Some(_) => {
                    return Err(format!(
                        "item {index}: type is not string, boolean or number"
                    ));
                }
            };
            let description = match object.get("description") {
                None | Some(Value::Null) => None,
                Some(Value::String(d)) => Some(d.clone()),
                Some(_) => return Err(format!("item {index}: description is not a string")),
            };
            Ok(FieldDefinition {
                name: name.clone(),
                field_type,
                description,
            })
        })
        .collect::<Result<Vec<_>, String>>()?;
    check_fields(&fields)?;
    Ok(fields)
}
