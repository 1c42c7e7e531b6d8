//! Canonical JSON (RFC 8785 style) for idempotency fingerprints: object keys
//! sorted by their UTF-16 code units, no insignificant whitespace, strings
//! and numbers as serde_json writes them. Explicit, so the fingerprint does
//! not depend on how `serde_json::Map` happens to order keys (a host that
//! enables `serde_json/preserve_order` would otherwise change it).

use std::io::{self, Write};

use serde_json::{Map, Value};

/// Writes `value` in canonical form to `out`.
pub(crate) fn write_canonical<W: Write>(value: &Value, out: &mut W) -> io::Result<()> {
    match value {
        Value::Object(object) => write_canonical_object(object, out),
        Value::Array(items) => {
            out.write_all(b"[")?;
            for (position, item) in items.iter().enumerate() {
                if position > 0 {
                    out.write_all(b",")?;
                }
                write_canonical(item, out)?;
            }
            out.write_all(b"]")
        }
        scalar => serde_json::to_writer(out, scalar).map_err(io::Error::from),
    }
}

/// Writes an object in canonical form to `out`.
pub(crate) fn write_canonical_object<W: Write>(
    object: &Map<String, Value>,
    out: &mut W,
) -> io::Result<()> {
    let mut entries: Vec<(&String, &Value)> = object.iter().collect();
    entries.sort_by(|(left, _), (right, _)| left.encode_utf16().cmp(right.encode_utf16()));
    out.write_all(b"{")?;
    for (position, (key, item)) in entries.into_iter().enumerate() {
        if position > 0 {
            out.write_all(b",")?;
        }
        serde_json::to_writer(&mut *out, key)?;
        out.write_all(b":")?;
        write_canonical(item, out)?;
    }
    out.write_all(b"}")
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;
    use serde_json::json;

    fn canonical(value: &Value) -> String {
        let mut out = Vec::new();
        write_canonical(value, &mut out).unwrap();
        String::from_utf8(out).unwrap()
    }

    #[test]
    fn keys_are_sorted_at_every_depth_without_whitespace() {
        let value = json!({"b": [ {"z": 1, "a": null} ], "a": "x", "\u{e9}": true, "B": 1.5});
        assert_eq!(
            canonical(&value),
            r#"{"B":1.5,"a":"x","b":[{"a":null,"z":1}],"é":true}"#
        );
    }

    #[test]
    fn keys_sort_by_utf16_code_units() {
        // By code point U+FF61 comes first; in UTF-16, U+1F600 is the
        // surrogate pair 0xD83D 0xDE00 and comes before 0xFF61.
        let value = json!({"\u{FF61}": 2, "\u{1F600}": 1});
        assert_eq!(canonical(&value), "{\"\u{1F600}\":1,\"\u{FF61}\":2}");
    }

    fn json_value() -> impl Strategy<Value = Value> {
        let leaf = prop_oneof![
            Just(Value::Null),
            any::<bool>().prop_map(Value::from),
            any::<i64>().prop_map(Value::from),
            "[a-zA-Z0-9 \u{e9}\u{1F600}\"\\\\]{0,8}".prop_map(Value::from),
        ];
        leaf.prop_recursive(3, 32, 4, |inner| {
            prop_oneof![
                prop::collection::vec(inner.clone(), 0..4).prop_map(Value::from),
                prop::collection::vec(("[a-zA-Z\u{e9}]{0,4}", inner), 0..4)
                    .prop_map(|entries| Value::Object(entries.into_iter().collect())),
            ]
        })
    }

    fn reversed(value: &Value) -> Value {
        match value {
            Value::Object(object) => {
                let mut entries: Vec<_> = object.iter().collect();
                entries.reverse();
                Value::Object(
                    entries
                        .into_iter()
                        .map(|(k, v)| (k.clone(), reversed(v)))
                        .collect(),
                )
            }
            Value::Array(items) => Value::Array(items.iter().map(reversed).collect()),
            other => other.clone(),
        }
    }

    proptest! {
        #[test]
        fn canonical_form_is_valid_json_of_the_same_value(value in json_value()) {
            let text = canonical(&value);
            let parsed: Value = serde_json::from_str(&text).unwrap();
            prop_assert_eq!(parsed, value);
        }

        #[test]
        fn insertion_order_never_changes_the_form(value in json_value()) {
            prop_assert_eq!(canonical(&value), canonical(&reversed(&value)));
        }
    }
}
