//! Opposite ways to ask one yes/no question ("Is a helmet provided?",
//! "Does she need to bring her own helmet?"): a yes to one is a no to the
//! other. Used by the offline extractor to read the answer and by the
//! evidence check to accept it.

use crate::FieldText;
use crate::identifier::{field_words, split_identifier};
use crate::stem::{stem, stems_match};
use crate::tokens::tokenize;

/// Pairs of opposite sides of one yes/no question: the business provides
/// it or the customer brings (arranges, collects) their own; it is
/// included or paid extra; it is required or optional; open or closed;
/// allowed or refused; included or excluded; kept or lost; given or missed; standard or special.
#[rustfmt::skip]
const OPPOSITES: &[(&[&str], &[&str])] = &[
    (
        &["provided", "provide", "provides", "supplied", "supply", "supplies", "lend", "lends",
          "loan", "loans", "borrow", "loaner", "loaners", "included", "handle", "handles",
          "handled", "deliver", "delivers", "delivered", "delivery"],
        &["bring", "own", "themselves", "herself", "himself", "yourself", "collect", "arrange",
          "buy", "purchase", "pick"],
    ),
    (
        &["included", "include", "includes", "inclusive", "complimentary", "free"],
        &["extra", "separate", "separately", "additional", "surcharge", "pay", "fee", "charge",
          "charged", "charges", "cost"],
    ),
    (&["required", "mandatory", "compulsory"], &["optional"]),
    (&["open", "accepting"], &["closed", "shut"]),
    (
        &["allowed", "permitted", "accepted", "accept", "accepts", "welcome"],
        &["refuse", "refused", "reject", "rejected", "banned", "ban", "prohibited", "forbidden",
          "against", "exclude", "excluded", "excludes", "excluding"],
    ),
    (
        &["included", "include", "includes", "inclusion"],
        &["exclude", "excluded", "excludes", "excluding", "exclusion"],
    ),
    (&["kept", "keep", "retained", "retain", "preserved"], &["lose", "lost", "discarded", "discard"]),
    (&["given", "administered"], &["missed", "skipped"]),
    (&["standard", "ordinary", "enough", "sufficient"], &["special"]),
];

/// The index in [`OPPOSITES`] of included (free) against extra (charged).
const INCLUDED_OR_EXTRA: usize = 1;

/// Words that put a field about a charge on the side of free ("Whether the
/// delivery charge is waived").
pub const WAIVED: &[&str] = &["waived", "waive", "waives", "waiving", "exempt"];

/// What a reply says right after a "no" to take the opposite side ("No,
/// we do have one."): the no denied a question asked in the negative. An
/// emphatic "do" may go on; a form of "be", "have" or "can" turns round
/// only when nothing follows it ("Oh no, it is!"): "No, we are
/// appointment only" and "No, it is free" agree with the question.
pub const TURNING_ECHOES: &[&str] = &[
    "we do", "i do", "they do", "you do", "it does", "he does", "she does",
];

/// See [`TURNING_ECHOES`]: turns round only as a whole clause.
pub const TURNING_ALONE: &[&str] = &[
    "it is",
    "we are",
    "they are",
    "there is",
    "there are",
    "we can",
    "we have",
    "it has",
    "i am",
    "you can",
    "it will",
    "we will",
];

/// Whether the words after a "no" (`rest`, lower case) turn round: see
/// [`TURNING_ECHOES`]; `clause_ends_after(n)` tells whether the clause
/// ends after the first `n` of them.
pub fn turns_round(rest: &[&str], clause_ends_after: impl Fn(usize) -> bool) -> bool {
    let starts = |echo: &str| {
        let echo: Vec<&str> = echo.split(' ').collect();
        rest.starts_with(&echo)
            && !rest
                .get(echo.len())
                .is_some_and(|w| *w == "not" || w.ends_with("n't"))
    };
    TURNING_ECHOES.iter().any(|echo| starts(echo))
        || TURNING_ALONE
            .iter()
            .any(|echo| starts(echo) && clause_ends_after(echo.split(' ').count()))
}

/// Pairs that turn one way only: a field about the first side ("whether
/// a DJ is available", "whether it is safe for pets") asked from the
/// second ("You're not already booked?", "It isn't harmful?"), never the
/// reverse ("appointment booked" asked "Anything available?" is a yes to
/// a booking, "dangerous goods allowed" asked "Is it safe to ship?" no
/// question about danger).
#[rustfmt::skip]
const ONE_WAY_OPPOSITES: &[(&[&str], &[&str])] = &[
    (
        &["available", "availability", "vacant", "vacancy"],
        &["booked", "taken", "full", "reserved", "busy", "occupied"],
    ),
    (&["safe"], &["harmful", "dangerous", "toxic", "unsafe", "hazardous"]),
];

/// Whether a question of lower-case `asked` words asks `field`'s yes/no
/// question from the opposite side ("Does she need to bring her own
/// helmet?" for "whether a helmet is provided", "Is breakfast extra?" for
/// "whether breakfast is included"): the question's words are of one side
/// of an opposite pair only, the field's of the other side only.
pub fn asks_the_other_side(field: &dyn FieldText, asked: &[&str]) -> bool {
    let asked = &from_the_askers_side(asked);
    // The name says what the field claims ("cleaning_included"); the
    // description only when the name takes no side ("Whether dry cleaning
    // is included in the hire fee" names both sides).
    let name: Vec<String> = split_identifier(field.name())
        .into_iter()
        .map(|w| w.to_lowercase())
        .collect();
    let name_words: Vec<&str> = name.iter().map(String::as_str).collect();
    let takes_side = |words: &[&str]| {
        OPPOSITES
            .iter()
            .any(|(one, other)| words.iter().any(|w| one.contains(w) || other.contains(w)))
    };
    let words = waived_is_free(if takes_side(&name_words) {
        name.clone()
    } else {
        field_words(field)
    });
    let field_words: Vec<&str> = words.iter().map(String::as_str).collect();
    let names = |words: &[&str], side: &[&str]| words.iter().any(|w| side.contains(w));
    let paired = OPPOSITES.iter().any(|(one, other)| {
        let (field_one, field_other) = (names(&field_words, one), names(&field_words, other));
        let (asked_one, asked_other) = (names(asked, one), names(asked, other));
        (field_one && !field_other && asked_other && !asked_one)
            || (field_other && !field_one && asked_one && !asked_other)
    }) || ONE_WAY_OPPOSITES.iter().any(|(one, other)| {
        names(&field_words, one)
            && !names(&field_words, other)
            && names(asked, other)
            && !names(asked, one)
    });
    // "Isn't it unheated?" for "whether it is heated": the question's word
    // is the field's with a negative prefix.
    // "Isn't it unheated?" for "whether it is heated", and "You won't need
    // to lock the side gate?" for "whether it will be left unlocked": one
    // side's word is the other's with a negative prefix.
    let prefixed = negated_by_prefix(asked, &field_words) || negated_by_prefix(&field_words, asked);
    paired || prefixed || asks_about_a_problem(field, asked)
}

/// Whether a question of lower-case `asked` words asks whether something
/// would be a problem, for a field that is not about one ("Several
/// residents use hearing aids. Would that be a problem?" for whether there
/// is a hearing loop): "Not at all" is a yes to the field.
pub fn asks_about_a_problem(field: &dyn FieldText, asked: &[&str]) -> bool {
    let trouble = |w: &str| matches!(w, "problem" | "problems" | "issue" | "issues" | "trouble");
    asked
        .windows(2)
        .any(|pair| matches!(pair[0], "a" | "an" | "any") && trouble(pair[1]))
        && !field_words(field).iter().any(|w| trouble(w))
}

/// A field's words with a waived charge read as free: "Whether the
/// delivery charge is waived" is on the side of "free", not of "charge".
fn waived_is_free(words: Vec<String>) -> Vec<String> {
    let waived = words.iter().any(|w| WAIVED.contains(&w.as_str()));
    if !waived {
        return words;
    }
    let charge_side = OPPOSITES[INCLUDED_OR_EXTRA].1;
    words
        .into_iter()
        .filter(|w| !charge_side.contains(&w.as_str()))
        .chain(std::iter::once("free".to_string()))
        .collect()
}

/// The words of a question with "provide" (or "supply") read as "bring"
/// when the asker's side does it: "Does she need to provide any
/// supplies?" asks whether the customer brings them, not whether the
/// business provides them ("Do you provide them?").
fn from_the_askers_side<'a>(asked: &[&'a str]) -> Vec<&'a str> {
    let mut subject = None;
    asked
        .iter()
        .map(|&word| {
            // "they" is as often the business as the customer.
            if matches!(word, "she" | "he" | "i" | "we" | "they" | "you") {
                subject = Some(word);
            }
            let provides = matches!(word, "provide" | "supply" | "provides" | "supplies");
            if provides && subject.is_some_and(|s| matches!(s, "she" | "he" | "i" | "we")) {
                "bring"
            } else {
                word
            }
        })
        .collect()
}

/// Whether a reply of `clauses` to a question about a problem denies the
/// field in its own words: a negation right before a word of the field's
/// name
/// ("We don't allow dogs" for `dogs_allowed`), so it is no answer in the
/// question's frame ("No, we don't mind dogs at all" still is one).
pub fn denies_in_its_own_words<'a>(
    field: &dyn FieldText,
    clauses: impl IntoIterator<Item = &'a str>,
) -> bool {
    let own: Vec<String> = split_identifier(field.name())
        .into_iter()
        .filter(|w| w.chars().count() >= 4)
        .map(|w| stem(&w.to_lowercase()))
        .collect();
    clauses
        .into_iter()
        .map(|clause| {
            tokenize(clause)
                .into_iter()
                .filter(|t| t.is_word())
                .map(|t| t.lower)
                .collect::<Vec<String>>()
        })
        .any(|words| {
            let own_word = |w: &String| own.iter().any(|o| stems_match(o, &stem(w)));
            let negation =
                |w: &String| matches!(w.as_str(), "not" | "never" | "no") || w.ends_with("n't");
            // The negation governs the field's word: "We don't allow
            // dogs", "no dogs", not "we don't charge extra for dogs".
            !words.iter().any(|w| w == "mind")
                && words
                    .iter()
                    .enumerate()
                    .any(|(at, w)| negation(w) && words[at + 1..].iter().take(2).any(own_word))
        })
}

/// Whether a word of `negated` is a word of `plain` (by stem) with a
/// negative prefix ("unheated" and "heated", "unlocked" and "lock"), and
/// not itself among `plain`.
fn negated_by_prefix(negated: &[&str], plain: &[&str]) -> bool {
    negated.iter().any(|word| {
        !plain.contains(word)
            && ["un", "non-", "non"].iter().any(|prefix| {
                word.strip_prefix(prefix).is_some_and(|rest| {
                    rest.chars().count() >= 4
                        && plain.iter().any(|p| stems_match(&stem(p), &stem(rest)))
                })
            })
    })
}

/// The words of the field's own side of each opposite pair that `asked`
/// asks from the other side: a reply that uses them ("It's provided")
/// speaks in the field's terms, not the question's.
pub fn field_side_words(field: &dyn FieldText, asked: &[&str]) -> Vec<&'static str> {
    let asked = &from_the_askers_side(asked);
    let words = waived_is_free(field_words(field));
    let field_words: Vec<&str> = words.iter().map(String::as_str).collect();
    let names = |words: &[&str], side: &[&str]| words.iter().any(|w| side.contains(w));
    let mut out = Vec::new();
    for (one, other) in OPPOSITES {
        let (field_one, field_other) = (names(&field_words, one), names(&field_words, other));
        let (asked_one, asked_other) = (names(asked, one), names(asked, other));
        if field_one && !field_other && asked_other && !asked_one {
            out.extend_from_slice(one);
        } else if field_other && !field_one && asked_one && !asked_other {
            out.extend_from_slice(other);
        }
    }
    for (one, other) in ONE_WAY_OPPOSITES {
        if names(&field_words, one)
            && !names(&field_words, other)
            && names(asked, other)
            && !names(asked, one)
        {
            out.extend_from_slice(one);
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::asks_the_other_side;
    use crate::{Field, FieldText};

    fn field<'a>(name: &'a str, description: &'a str) -> Field<'a> {
        Field::new(name, Some(description))
    }

    fn words(question: &str) -> Vec<String> {
        question
            .split(|c: char| !(c.is_alphanumeric() || c == '\''))
            .filter(|w| !w.is_empty())
            .map(str::to_lowercase)
            .collect()
    }

    fn other_side(field: &dyn FieldText, question: &str) -> bool {
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
        // A waived charge is on the side of free.
        let waived = field(
            "deliveryChargeWaived",
            "Whether the delivery charge is waived",
        );
        assert!(other_side(&waived, "Will there be a delivery charge?"));
        assert!(!other_side(&waived, "Is delivery free?"));
        // Who provides it: the customer providing is bringing their own.
        let supplies = field("supplies_included", "Whether the cleaners bring supplies");
        assert!(other_side(
            &supplies,
            "Does she need to provide any supplies?"
        ));
        assert!(other_side(
            &supplies,
            "Should I supply the cleaning products?"
        ));
        assert!(!other_side(
            &supplies,
            "Do you provide the supplies for her?"
        ));
        assert!(!other_side(
            &helmet,
            "Do you lend helmets, or does she bring her own?"
        ));
        let breakfast = field("breakfastIncluded", "Whether breakfast is included");
        assert!(other_side(&breakfast, "Is breakfast extra?"));
        assert!(!other_side(&breakfast, "Is breakfast included?"));
        let own = field("bring_own_towel", "Whether he must bring his own towel");
        assert!(other_side(&own, "Do you supply towels?"));
        let heated = field("climate_controlled", "Whether the depot is heated");
        assert!(other_side(&heated, "The depot isn't unheated, is it?"));
        assert!(!other_side(&heated, "Is the depot heated?"));
        let dogs = field("dogs_allowed", "Whether dogs are allowed on site");
        assert!(other_side(&dogs, "There's no rule against dogs, is there?"));
        // The name takes the side ("free"); "of charge" in the description
        // does not make it both.
        let free = field("testIsFree", "Whether the hearing test is free of charge");
        assert!(other_side(&free, "Is there a charge for the test?"));
        assert!(!other_side(&free, "Is the test free?"));
    }
}
