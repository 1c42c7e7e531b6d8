//! Whole-word phrase matching on space-joined lower-case text, and the
//! negation and refusal tests built on it.

use super::lexicon::{NEGATIONS, NEGATIVE_STATES, PREDICATIVE_NEGATIVES};
use agentcall_english::number_words::classify_number_word;
use agentcall_english::stem::stem;
use agentcall_english::vocabulary;

/// `hay` and `needle` are space-joined lower-case words; match whole words.
fn phrase_in(hay: &str, needle: &str) -> bool {
    let words: Vec<&str> = hay.split(' ').collect();
    phrase_words_in(&words, needle)
}

/// Whether any phrase of `list` occurs as whole words in `text`.
pub(super) fn has_any_phrase(text: &str, list: &[&str]) -> bool {
    let words: Vec<&str> = text.split(' ').collect();
    list.iter().any(|p| phrase_words_in(&words, p))
}

/// [`has_any_phrase`] for a pre-split list (see `phrases!`).
pub(super) fn has_split_phrase(text: &str, list: &[Vec<&str>]) -> bool {
    let words: Vec<&str> = text.split(' ').collect();
    list.iter()
        .any(|p| !p.is_empty() && words.windows(p.len()).any(|w| w == p.as_slice()))
}

/// Whether the words of phrase `p` occur consecutively in `words`.
fn phrase_words_in(words: &[&str], p: &str) -> bool {
    let Some(first) = p.split(' ').next() else {
        return false;
    };
    let n = p.split(' ').count();
    words.len() >= n
        && words
            .windows(n)
            .any(|w| w.first() == Some(&first) && w.iter().zip(p.split(' ')).all(|(a, b)| *a == b))
}

/// Whether `text` (split into `ws`) says something is out of stock ("the
/// store's out", "we're out of it"), not out at work ("We're out
/// Saturdays till noon", "out six days a week") nor out of doors.
fn says_out_of_stock(ws: &[&str], text: &str) -> bool {
    ws.windows(2).enumerate().any(|(i, p)| {
        p[1] == "out"
            && (p[0].ends_with("'s")
                || p[0].ends_with("'re")
                || matches!(p[0], "is" | "are" | "all" | "sold"))
            && !ws.get(i + 2).is_some_and(|next| {
                // Only the business is out at work ("the tailor's out
                // Tuesday" is away); anyone is out that way.
                (matches!(p[0], "we're" | "they're")
                    && (vocabulary::weekday(next).is_some()
                        || classify_number_word(next).is_some()
                        || matches!(
                            *next,
                            "every" | "most" | "till" | "until" | "weekdays" | "weekends"
                        )))
                    || (matches!(*next, "that" | "this")
                        && ws.get(i + 3).is_some_and(|after| *after == "way"))
            })
    }) && !has_any_phrase(text, &["out front", "out back", "out there", "out here"])
        // "It's on back order", "I can order one in", "the last one went"
        // (not "it was on back order, but it came in").
        || !has_any_phrase(text, &["was on back order", "were on back order", "came in", "arrived"])
            && has_any_phrase(
            text,
            &[
                "back order",
                "backorder",
                "backordered",
                "back ordered",
                "order one in",
                "order it in",
                "order them in",
                "order some in",
                "have to order",
                "need to order",
                "special order",
                "last one went",
                "last one sold",
                "last one's gone",
                "waiting on a delivery",
                "waiting on stock",
                "waiting for stock",
                "waiting for a delivery",
            ],
        )
}

/// Negation or a refusal ("not", "won't work", "we're out"), without the
/// softer negative states ("extra", "booked").
pub(super) fn is_refusal_text(text: &str) -> bool {
    let ws: Vec<&str> = text.split(' ').collect();
    ws.iter()
        .any(|w| set!(NEGATIONS).contains(w) || w.ends_with("n't"))
        || says_out_of_stock(&ws, text)
        || has_any_phrase(text, &["won't work"])
}

/// Negation, refusal or a negative state ("booked", predicative "full").
pub(super) fn is_negated_text(text: &str) -> bool {
    let ws: Vec<&str> = text.split(' ').collect();
    let out_of_stock = says_out_of_stock(&ws, text);
    // "full", "busy", "hard" are negative only as predicates ("we're full",
    // "evenings are hard"), not as modifiers ("a full tank").
    let predicate = |i: usize| {
        i.checked_sub(1).and_then(|j| ws.get(j)).is_some_and(|p| {
            p.ends_with("'re")
                || p.ends_with("'s")
                || matches!(
                    *p,
                    "is" | "are"
                        | "was"
                        | "were"
                        | "be"
                        | "been"
                        | "pretty"
                        | "too"
                        | "so"
                        | "very"
                        | "completely"
                        | "totally"
                        | "fully"
                        | "all"
                        | "really"
                        | "quite"
                        | "kinda"
                        | "bit"
                )
        }) || i + 1 == ws.len()
    };
    let neg_state = ws.iter().enumerate().any(|(i, w)| {
        set!(NEGATIVE_STATES).contains(w)
            && (!set!(PREDICATIVE_NEGATIVES).contains(w) || predicate(i))
    });
    // "Fuel's on top", "ninety-five on top of the sweep": charged extra
    // (not "we're on top of it").
    let on_top = ws.windows(2).enumerate().any(|(i, p)| {
        p == ["on", "top"]
            && match ws.get(i + 2) {
                None => true,
                Some(&"of") => {
                    !matches!(
                        ws.get(i + 3).copied(),
                        Some("it" | "that" | "this" | "things" | "everything" | "them" | "all")
                    ) || i.checked_sub(1).and_then(|j| ws.get(j)).is_some_and(|w| {
                        // Right after an amount: "another one seventy-five on
                        // top of that" (not "two beds and on top of that").
                        w.chars().any(|c| c.is_ascii_digit())
                            || *w == "pounds"
                            || agentcall_english::units::is_currency_word(w)
                            || w.split('-')
                                .all(|part| classify_number_word(part).is_some())
                    })
                }
                Some(_) => false,
            }
    });
    ws.iter()
        .any(|w| set!(NEGATIONS).contains(w) || w.ends_with("n't"))
        || neg_state
        || out_of_stock
        || on_top
        // "A battery would add about eight grand": charged on top.
        || has_any_phrase(
            text,
            &["would add", "it'd add", "that'd add", "that adds", "it adds"],
        )
        // "We stopped direct billing last year" (not "the leak's stopped").
        || has_any_phrase(
            text,
            &[
                "we stopped", "we've stopped", "they stopped", "they've stopped", "stopped offering",
                "stopped doing", "stopped taking",
            ],
        )
        || has_any_phrase(text, &["won't work", "doesn't work", "no good", "not good"])
        // "She's off this Tuesday": away, with a person as the subject.
        || has_any_phrase(
            text,
            &["she's off", "he's off", "i'm off", "we're off", "they're off", "is off work"],
        )
}

/// Whether `text` names option `opt` (whole phrase, or its last word stemmed).
pub(super) fn option_in(text: &str, opt: &str) -> bool {
    if phrase_in(text, opt) {
        return true;
    }
    // Match on the option's last word, stemmed ("the risotto", "mornings").
    let Some(last) = opt.split_whitespace().last() else {
        return false;
    };
    let ls = stem(last);
    text.split(' ').any(|w| stem(w) == ls)
}
