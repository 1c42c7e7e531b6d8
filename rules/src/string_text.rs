//! The text of a string value: how two values are compared, and how the
//! one chosen is trimmed to what the field asks for.

use super::profile::{NamePart, StringKind};
use agentcall_english::stem::stem;

/// Whether one text contains the other, compared word stem by word stem.
pub(super) fn same_text(a: &str, b: &str) -> bool {
    let na = normalize_words(a);
    let nb = normalize_words(b);
    !na.is_empty() && !nb.is_empty() && (na.contains(&nb) || nb.contains(&na))
}

/// Stems of the words of `s`, space-joined.
pub(super) fn normalize_words(s: &str) -> String {
    s.split(|c: char| !c.is_alphanumeric())
        .filter(|w| !w.is_empty())
        .map(stem)
        .collect::<Vec<_>>()
        .join(" ")
}

/// Trims punctuation and keeps the requested name part.
pub(super) fn finish_string(string_kind: &StringKind, text: &str) -> String {
    let trimmed = text.trim().trim_matches(|c: char| {
        c.is_ascii_punctuation() && c != '\'' && c != '"' && c != ')' && c != '('
    });
    let trimmed = trimmed.trim();
    match string_kind {
        StringKind::Name { part, .. } => name_part(trimmed, *part),
        StringKind::Generic => without_a_preference(trimmed).to_string(),
        _ => trimmed.to_string(),
    }
}

/// "bank transfer's easiest" is "bank transfer": a closing "'s" and a word
/// of preference say how the value is liked, not what it is.
fn without_a_preference(text: &str) -> &str {
    let Some((value, said)) = text.rsplit_once(' ') else {
        return text;
    };
    let preference = matches!(
        said.to_lowercase().as_str(),
        "easiest" | "easier" | "best" | "better" | "simplest" | "quickest" | "preferred" | "fine"
    );
    match value
        .strip_suffix("'s")
        .or_else(|| value.strip_suffix("\u{2019}s"))
    {
        Some(value) if preference && !value.is_empty() => value,
        _ => text,
    }
}

/// The requested part of a person's name, without titles.
fn name_part(name: &str, part: NamePart) -> String {
    let ws: Vec<&str> = name
        .split_whitespace()
        .filter(|w| {
            !matches!(
                w.to_lowercase().trim_end_matches('.'),
                "mr" | "ms" | "mrs" | "dr"
            )
        })
        .collect();
    match part {
        NamePart::First => ws.first().map(|w| w.to_string()).unwrap_or_default(),
        NamePart::Last => ws.last().map(|w| w.to_string()).unwrap_or_default(),
        NamePart::Full => ws.join(" "),
    }
}
