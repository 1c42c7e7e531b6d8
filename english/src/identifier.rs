//! Splitting field identifiers and definitions into words.

use crate::FieldText;

/// Splits a snake_case / camelCase / digit-bearing identifier into lower-case words.
pub fn split_identifier(name: &str) -> Vec<String> {
    let mut words = Vec::new();
    let mut cur = String::new();
    let mut prev: Option<char> = None;
    for c in name.chars() {
        if !c.is_alphanumeric() {
            if !cur.is_empty() {
                words.push(std::mem::take(&mut cur));
            }
            prev = None;
            continue;
        }
        if let Some(p) = prev {
            let boundary = (p.is_lowercase() && c.is_uppercase())
                || (p.is_ascii_digit() != c.is_ascii_digit());
            if boundary && !cur.is_empty() {
                words.push(std::mem::take(&mut cur));
            }
        }
        cur.extend(c.to_lowercase());
        prev = Some(c);
    }
    if !cur.is_empty() {
        words.push(cur);
    }
    words
}

/// The field's name and description, as lower-case words (hyphenated
/// and apostrophe words kept whole: "off-peak", "don't").
pub fn field_words(field: &dyn FieldText) -> Vec<String> {
    let mut words: Vec<String> = split_identifier(field.name())
        .into_iter()
        .map(|w| w.to_lowercase())
        .collect();
    if let Some(description) = field.description() {
        words.extend(
            description
                .split(|c: char| !(c.is_alphanumeric() || c == '-' || c == '\''))
                .filter(|w| !w.is_empty())
                .map(str::to_lowercase),
        );
    }
    words
}

/// Whether a field's lower-case description counts working days
/// ("Business days needed to print"): a week is five of them.
pub fn counts_working_days(description_lower: &str) -> bool {
    description_lower.contains("business day") || description_lower.contains("working day")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn identifiers() {
        assert_eq!(
            split_identifier("october_12_available"),
            vec!["october", "12", "available"]
        );
        assert_eq!(
            split_identifier("appointmentConfirmed"),
            vec!["appointment", "confirmed"]
        );
    }
}
