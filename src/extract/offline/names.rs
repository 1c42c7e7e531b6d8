//! Proper names said in a reply that are no answer to a field asking for
//! a name: places and businesses for a person's name, and names said in
//! passing (the speaker introducing themselves, the person thanked, one of
//! several still open).

use super::lexicon::{BUSINESS_WORDS, STREET_SUFFIXES};
use super::profile::{FieldProfile, StringKind, ValueKind};
use super::transcript::Sentence;
use crate::extract::text::tokens::TokenKind;

/// Whether the name at tokens `start..end` of `sent` names no person: a
/// place ("his house in Pontcanna") or a business ("RoadReady Mobile
/// Repairs").
pub(super) fn no_person(sent: &Sentence, start: usize, end: usize) -> bool {
    // The last word names a business ("… Mobile Repairs", "Harbourview Inn").
    let business = end
        .checked_sub(1)
        .filter(|&last| last >= start)
        .and_then(|last| sent.tokens.get(last))
        .is_some_and(|t| set!(BUSINESS_WORDS).contains(t.lower.as_str()));
    // "the Elm Street address", "on Larch Court": a street is no person
    // ("That'd be Sarah Lane" is one).
    let street = end
        .checked_sub(1)
        .filter(|&last| last > start)
        .and_then(|last| sent.tokens.get(last))
        .is_some_and(|t| STREET_SUFFIXES.contains(&t.lower.as_str()))
        && start
            .checked_sub(1)
            .and_then(|i| sent.tokens.get(i))
            .is_some_and(|t| {
                matches!(t.lower.as_str(), "the" | "on" | "off") || t.kind == TokenKind::Num
            });
    after_place_word(sent, start) || business || street
}

/// Whether the name at token `start` of `sent` follows a word of place
/// ("near Linden Park", "at Harbour Point").
pub(super) fn after_place_word(sent: &Sentence, start: usize) -> bool {
    start
        .checked_sub(1)
        .and_then(|i| sent.tokens.get(i))
        .is_some_and(|t| {
            matches!(
                t.lower.as_str(),
                "in" | "at" | "near" | "outside" | "via" | "into"
            )
        })
}

/// Whether the name at tokens `start..end` of `sent` is the speaker's own,
/// introduced: "Sophie speaking", "Sam here." (the sentence ends after
/// "here"), "this is Gary", "my name is Ines".
pub(super) fn introduces_self(sent: &Sentence, start: usize, end: usize) -> bool {
    let word = |i: usize| {
        sent.tokens
            .get(i)
            .filter(|t| t.is_word())
            .map(|t| t.lower.as_str())
    };
    let before = |back: usize| start.checked_sub(back).and_then(word);
    let here_at_end = word(end) == Some("here")
        && sent
            .tokens
            .get(end + 1..)
            .is_none_or(|rest| rest.iter().all(|t| !t.is_word()));
    word(end) == Some("speaking")
        || here_at_end
        || (before(2) == Some("this") && before(1) == Some("is"))
        || (before(3) == Some("my") && before(2) == Some("name") && before(1) == Some("is"))
}

/// Whether a person-name field asks for the one on the other end of the
/// call ("First name of the innkeeper spoken to", "… who took the
/// reservation"): the name they introduce themselves by.
pub(super) fn asks_for_the_one_on_the_line(profile: &FieldProfile) -> bool {
    let description = profile
        .definition
        .description
        .as_deref()
        .unwrap_or_default()
        .to_lowercase();
    [
        "spoken to",
        "spoke to",
        "spoke with",
        "speaking with",
        "speaking to",
        "who took",
        "who answered",
        "answered the",
        "on the phone",
        "on the call",
        "on the line",
    ]
    .iter()
    .any(|phrase| description.contains(phrase))
}

/// Whether the name at tokens `start..end` of `sent` is said in passing
/// rather than given as an answer:
/// - for a name that is not a person's (a room, a boat), the speaker
///   introducing themselves ("Events, Sophie speaking", "this is Gary");
/// - the person spoken to, named in a greeting or thanks ("Thanks, Fran.");
/// - one of several still open ("Either me or Sam, whoever's free").
pub(super) fn name_in_passing(
    profile: &FieldProfile,
    sent: &Sentence,
    start: usize,
    end: usize,
) -> bool {
    let word = |i: usize| {
        sent.tokens
            .get(i)
            .filter(|t| t.is_word())
            .map(|t| t.lower.as_str())
    };
    let person = matches!(
        profile.kind,
        ValueKind::Text(StringKind::Name { person: true, .. })
    );
    // "Sophie speaking", "Sam here." (the sentence ends after "here"),
    // "this is Gary".
    let introduces = introduces_self(sent, start, end);
    let at_end = sent
        .tokens
        .get(end..)
        .is_none_or(|rest| rest.iter().all(|t| !t.is_word()));
    let comma_before = start
        .checked_sub(1)
        .and_then(|i| sent.tokens.get(i))
        .is_some_and(|t| t.is_punct(','));
    let addressed = at_end
        && comma_before
        && matches!(
            start.checked_sub(2).and_then(word),
            Some("thanks" | "you" | "hi" | "hello" | "hey" | "bye" | "goodbye" | "cheers")
        );
    // "Either me or Sam", "whoever's free" (not "Jules either way").
    let words: Vec<&str> = sent.word_lowers().collect();
    let open_choice = words
        .iter()
        .any(|w| matches!(*w, "whoever" | "whoever's" | "whichever"))
        || words
            .iter()
            .position(|w| *w == "either")
            .is_some_and(|at| words[at..].contains(&"or"));
    (introduces && !person) || addressed || open_choice
}
