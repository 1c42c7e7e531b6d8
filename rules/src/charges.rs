//! Yes/no answers about paying: whether a field speaks of a charge, is on
//! the side of free ("Whether the trip charge is waived"), and what "no
//! charge" says to it ("So no trip charge for her", "…, no charge").

use super::lexicon::{CHARGE_NOUNS, STOPWORDS};
use super::profile::FieldProfile;
use agentcall_english::identifier::field_words;
use agentcall_english::opposites::WAIVED;
use agentcall_english::stem::stem;

/// Whether the field's own words speak of paying ("parking fee",
/// "whether cleaning is included"), so that "no charge" answers it.
pub(super) fn about_a_charge(profile: &FieldProfile) -> bool {
    field_words(profile.definition).iter().any(|w| {
        matches!(
            w.as_str(),
            "charge"
                | "charged"
                | "charges"
                | "fee"
                | "fees"
                | "cost"
                | "costs"
                | "price"
                | "free"
                | "extra"
                | "pay"
                | "paid"
                | "payment"
                | "included"
                | "include"
                | "includes"
        )
    })
}

/// Whether a field is on the side of free: "Whether the school group
/// gets free admission", "Whether the trip charge is waived".
pub(super) fn on_the_free_side(profile: &FieldProfile) -> bool {
    field_words(profile.definition)
        .iter()
        .any(|w| matches!(w.as_str(), "free" | "complimentary") || WAIVED.contains(&w.as_str()))
}

/// Whether the field claims something comes at no charge: it is free,
/// waived or included ("Whether removal of the old heater is included").
pub(super) fn claims_inclusion(profile: &FieldProfile) -> bool {
    on_the_free_side(profile)
        || field_words(profile.definition).iter().any(|w| {
            matches!(
                w.as_str(),
                "included" | "include" | "includes" | "covered" | "complimentary"
            )
        })
}

/// Whether a lower-case clause opens by saying there is no charge, with
/// no condition after it ("no charge at all for that", "no extra charge
/// for the inspection"; not "no charge if you book online").
pub(super) fn opens_with_no_charge(text: &str) -> bool {
    let words: Vec<&str> = text.split(' ').collect();
    let length = match words.as_slice() {
        ["no", "extra" | "additional", "charge" | "cost" | "fee", ..] => 3,
        // "…, no extra." said alone.
        ["no", "extra" | "additional"] => 2,
        ["no", "charge" | "cost" | "fee", ..] | ["free", "of", "charge", ..] => {
            if words[0] == "free" { 3 } else { 2 }
        }
        _ => return false,
    };
    !words[length..].iter().any(|w| {
        matches!(
            *w,
            "if" | "unless" | "but" | "except" | "over" | "under" | "when" | "once" | "after"
        )
    })
}

/// Whether a clause's "for …" names something other than the field ("no
/// charge for the quote" to removal included).
pub(super) fn charge_for_another(profile: &FieldProfile, text: &str) -> bool {
    let words: Vec<&str> = text.split(' ').collect();
    words.iter().position(|w| *w == "for").is_some_and(|at| {
        let named: Vec<&str> = words[at + 1..]
            .iter()
            .copied()
            .filter(|w| {
                !matches!(
                    *w,
                    "the" | "a" | "an" | "that" | "this" | "it" | "him" | "her" | "them"
                )
            })
            .collect();
        !named.is_empty() && !named.iter().any(|w| profile.is_keyword(&stem(w)))
    })
}

/// Whether lower-case `text` says there is no charge for what the field
/// names ("So no trip charge for her", "no admission charge"): "no", a
/// word of the field's, and a charge, within three words; not "no charge
/// for setup" for free delivery.
pub(super) fn denies_a_charge(profile: &FieldProfile, text: &str) -> bool {
    let charge = |w: &str| matches!(w, "charge" | "fee" | "cost" | "charges" | "fees");
    let words: Vec<&str> = text.split(' ').collect();
    words.iter().enumerate().any(|(at, w)| {
        let after = &words[at + 1..(at + 4).min(words.len())];
        *w == "no"
            && after.iter().any(|w| charge(w))
            && after
                .iter()
                .any(|w| !charge(w) && profile.is_strong_keyword(&stem(w)))
    })
}

/// Whether a clause only says that something costs nothing ("no extra
/// charge", "at no cost", "free of charge").
pub(super) fn is_no_charge_aside(text: &str) -> bool {
    let words: Vec<&str> = text
        .split(' ')
        .filter(|w| !matches!(*w, "and" | "with" | "at" | "for" | "that's" | "it's" | "of"))
        .collect();
    matches!(
        words.as_slice(),
        ["no", "extra" | "additional", "charge" | "cost" | "fee"]
            | ["no", "extra" | "additional"]
            | ["no", "charge" | "cost" | "fee"]
            | ["free", "charge"]
    )
}

/// "Is there a registration fee on top?" for the term's fee: whether a
/// question (`words`, lower case) asks of another charge: it asks of one
/// on top of the field's, names it by a word before it that is none of
/// the field's ("registration fee"), and names the field neither by a charge of its own said plainly
/// ("Would a higher deductible lower the premium?") nor by another of its
/// words ("What would installation cost, and what's monitoring?").
pub(super) fn asks_of_another_charge(profile: &FieldProfile, words: &[&str]) -> bool {
    let foreign = |modifier: &str| {
        modifier.chars().all(char::is_alphabetic)
            && !set!(STOPWORDS).contains(modifier)
            && !matches!(modifier, "your" | "their" | "his" | "her" | "our" | "any" | "a")
            // ("a higher deductible", "the usual fee": the same charge.)
            && !matches!(
                modifier,
                "higher" | "lower" | "bigger" | "smaller" | "cheaper" | "usual" | "normal"
                    | "standard" | "full" | "total" | "current" | "new" | "old"
            )
            && !profile.is_keyword(&stem(modifier))
    };
    let charge = |word: &str| set!(CHARGE_NOUNS).contains(word);
    let another = words
        .windows(2)
        .any(|pair| charge(pair[1]) && foreign(pair[0]));
    let own_said_plainly = words.iter().enumerate().any(|(at, word)| {
        charge(word) && profile.is_keyword(&stem(word)) && (at == 0 || !foreign(words[at - 1]))
    });
    let names_the_field = words
        .iter()
        .any(|word| !charge(word) && profile.is_strong_keyword(&stem(word)));
    // Only a charge asked about on top of the field's ("on top", "as
    // well", "extra"): "What's the annual fee?" or "Is there a damage
    // deposit?" may name the field's own charge in other words.
    let on_top = words
        .windows(2)
        .any(|pair| matches!(pair, ["on", "top"] | ["as", "well"]))
        || words
            .iter()
            .any(|w| matches!(*w, "extra" | "additional" | "also" | "too" | "besides"));
    on_top && another && !own_said_plainly && !names_the_field
}
