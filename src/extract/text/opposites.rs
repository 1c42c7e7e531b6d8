//! Opposite ways to ask one yes/no question ("Is a helmet provided?",
//! "Does she need to bring her own helmet?"): a yes to one is a no to the
//! other. Used by the offline extractor to read the answer and by the
//! evidence check to accept it.

use crate::domain::FieldDefinition;
use crate::extract::text::identifier::split_identifier;

/// Pairs of opposite sides of one yes/no question: the business provides
/// it or the customer brings their own; it is included or extra; it is
/// required or optional; open or closed.
#[rustfmt::skip]
const OPPOSITES: &[(&[&str], &[&str])] = &[
    (
        &["provided", "provide", "provides", "supplied", "supply", "supplies", "lend", "lends",
          "loan", "loans", "borrow", "loaner", "loaners"],
        &["bring", "own"],
    ),
    (
        &["included", "include", "includes", "inclusive", "complimentary"],
        &["extra", "separate", "separately", "additional", "surcharge"],
    ),
    (&["required", "mandatory", "compulsory"], &["optional"]),
    (&["open"], &["closed", "shut"]),
];

/// The field's name and description, as lower-case words.
fn field_words(field: &FieldDefinition) -> Vec<String> {
    let mut words: Vec<String> = split_identifier(&field.name)
        .into_iter()
        .map(|w| w.to_lowercase())
        .collect();
    if let Some(description) = &field.description {
        words.extend(
            description
                .split(|c: char| !(c.is_alphanumeric() || c == '-' || c == '\''))
                .filter(|w| !w.is_empty())
                .map(str::to_lowercase),
        );
    }
    words
}

/// Whether a question of lower-case `asked` words asks `field`'s yes/no
/// question from the opposite side ("Does she need to bring her own
/// helmet?" for "whether a helmet is provided", "Is breakfast extra?" for
/// "whether breakfast is included"): the question's words are of one side
/// of an opposite pair only, the field's of the other side only.
pub(crate) fn asks_the_other_side(field: &FieldDefinition, asked: &[&str]) -> bool {
    let words = field_words(field);
    let field_words: Vec<&str> = words.iter().map(String::as_str).collect();
    let names = |words: &[&str], side: &[&str]| words.iter().any(|w| side.contains(w));
    OPPOSITES.iter().any(|(one, other)| {
        let (field_one, field_other) = (names(&field_words, one), names(&field_words, other));
        let (asked_one, asked_other) = (names(asked, one), names(asked, other));
        (field_one && !field_other && asked_other && !asked_one)
            || (field_other && !field_one && asked_one && !asked_other)
    })
}

#[cfg(test)]
mod tests {
    use super::asks_the_other_side;
    use crate::domain::{FieldDefinition, FieldType};

    fn field(name: &str, description: &str) -> FieldDefinition {
        FieldDefinition {
            name: name.into(),
            field_type: FieldType::Boolean,
            description: Some(description.into()),
        }
    }

    fn words(question: &str) -> Vec<String> {
        question
            .split(|c: char| !(c.is_alphanumeric() || c == '\''))
            .filter(|w| !w.is_empty())
            .map(str::to_lowercase)
            .collect()
    }

    fn other_side(field: &FieldDefinition, question: &str) -> bool {
        let asked = words(question);
        let asked: Vec<&str> = asked.iter().map(String::as_str).collect();
        asks_the_other_side(field, &asked)
    }

    #[test]
    fn opposite_sides_of_one_question() {
        let helmet = field("helmet_provided", "Whether the stable provides a helmet");
        assert!(other_side(
            &helmet,
            "Does she need to bring her own helmet?"
        ));
        assert!(!other_side(&helmet, "Do you provide helmets?"));
        assert!(!other_side(
            &helmet,
            "Do you lend helmets, or does she bring her own?"
        ));
        let breakfast = field("breakfastIncluded", "Whether breakfast is included");
        assert!(other_side(&breakfast, "Is breakfast extra?"));
        assert!(!other_side(&breakfast, "Is breakfast included?"));
        let own = field("bring_own_towel", "Whether he must bring his own towel");
        assert!(other_side(&own, "Do you supply towels?"));
    }
}
