//! The polarity of one clause of a reply to a yes/no question: a clear
//! yes or no word, a dodge, or what the clause implies ("We're fully
//! booked" is a no).

use super::boolean::Polarity;
use super::lexicon::{
    ACCEPT_WORDS, DETERMINERS, DODGES, NEGATIONS, NEGATIVE_STATES, PASS_ONS, SHORT_ECHOES,
    SHORT_NEGATIVE_ECHOES, STRONG_NO, STRONG_YES,
};
use super::phrase::{has_any_phrase, has_split_phrase, is_negated_text};
use super::profile::FieldProfile;
use super::transcript::Sentence;
use agentcall_english::stem::stem;
use agentcall_english::vocabulary;

/// Polarity of one clause: `(pol, strong)`.
pub(super) fn clause_polarity(
    text: &str,
    content: &[&str],
    turn_initial: bool,
    seen_informative: bool,
) -> Option<(Polarity, bool)> {
    // "… whether there'll be any space, who knows" (not "anyone who knows
    // the code").
    let who_knows = text.starts_with("who knows");
    if (has_split_phrase(text, phrases!(DODGES))
        || has_split_phrase(text, phrases!(PASS_ONS))
        || who_knows)
        && !has_any_phrase(text, &["no doubt", "definitely", "absolutely"])
    {
        // "make sure" is not a dodge either way; "not sure" is.
        return Some((Polarity::Dodge, true));
    }
    let words: Vec<&str> = text.split(' ').collect();
    // Strong markers: the last one in the clause wins.
    let mut strong: Option<(usize, Polarity)> = None;
    for (i, _) in words.iter().enumerate() {
        let rest = &words[i..];
        // The words from `i` on begin with phrase `p`.
        let starts = |p: &str| {
            let n = p.split(' ').count();
            rest.len() >= n && p.split(' ').zip(rest).all(|(a, b)| a == *b)
        };
        let starts_split = |p: &[&str]| rest.starts_with(p);
        let is_no_start = starts("no");
        // "Oh no." on its own is dismay at the news; what follows answers
        // ("Oh no. Yeah, yep, I can have a guy there within the hour.").
        if is_no_start && i == 1 && words[0] == "oh" && words.len() == 2 {
            continue;
        }
        if is_no_start {
            let next = words.get(i + 1).copied();
            if matches!(
                next,
                Some("problem" | "worries" | "worry" | "doubt" | "question" | "trouble")
            ) {
                strong = Some((i, Polarity::Yes));
                continue;
            }
            // "No point driving off for an hour": a reason, not a no.
            if next == Some("point") && words.get(i + 2).is_some_and(|w| w.ends_with("ing")) {
                continue;
            }
            // "Monday — no, sorry, Thursday": a self-correction, not an answer.
            if seen_informative
                && i == 0
                && matches!(next, Some("wait" | "sorry" | "actually" | "i"))
            {
                continue;
            }
            if i > 0 && matches!(next, Some("wait" | "sorry" | "actually")) {
                continue;
            }
        }
        // "… for anyone who can't make it in": a relative clause speaks of
        // someone else, and answers nothing.
        if i > 0
            && matches!(
                words.get(i - 1),
                Some(&("who" | "that" | "which" | "whoever"))
            )
        {
            continue;
        }
        if let Some(p) = phrases!(STRONG_NO).iter().find(|p| starts_split(p)) {
            // "not sure" was handled as a dodge; "no need"/"no parking" are no.
            let n = p.len();
            let echo = phrases!(SHORT_NEGATIVE_ECHOES).contains(p);
            if echo && words.len() > i + n + 1 {
                continue;
            }
            strong = Some((i, Polarity::No));
            continue;
        }
        let echo = phrases!(SHORT_ECHOES).iter().find(|p| starts_split(p));
        if echo.is_some() || phrases!(STRONG_YES).iter().any(|p| starts_split(p)) {
            if starts("sure")
                && i > 0
                && matches!(words.get(i - 1), Some(&("make" | "not" | "be" | "unsure")))
            {
                continue;
            }
            // "Let me correct myself": the verb, not an answer.
            if starts("correct")
                && (matches!(
                    words.get(i + 1),
                    Some(&("myself" | "that" | "this" | "it" | "me"))
                ) || (i > 0 && matches!(words.get(i - 1), Some(&("me" | "to" | "i" | "i'll")))))
            {
                continue;
            }
            // "She'll definitely need that": an adverb between a subject
            // and its verb stresses the verb, and answers nothing.
            if matches!(
                words[i],
                "definitely" | "absolutely" | "certainly" | "totally"
            ) && i > 0
                && words.get(i + 1).is_some_and(|next| {
                    !matches!(
                        *next,
                        "do" | "does"
                            | "can"
                            | "will"
                            | "would"
                            | "is"
                            | "are"
                            | "fine"
                            | "okay"
                            | "ok"
                            | "good"
                            | "free"
                            | "welcome"
                            | "allowed"
                            | "included"
                    )
                })
                && (words[i - 1].contains('\'')
                    || matches!(
                        words[i - 1],
                        "i" | "we" | "she" | "he" | "they" | "you" | "it"
                    ))
            {
                continue;
            }
            // Short echoes ("we can", "it is") only count as the whole clause.
            if let Some(p) = echo {
                let n = p.len();
                if words.len() > i + n
                    && !matches!(words.get(i + n), Some(&("yeah" | "yes" | "too")))
                {
                    continue;
                }
            }
            strong = Some((i, Polarity::Yes));
        }
    }
    if let Some((_, p)) = strong {
        return Some((p, true));
    }
    if content.is_empty() {
        // Acceptance words open a reply ("Okay, fine then."), but "okay" later is a filler.
        if turn_initial && words.iter().any(|w| ACCEPT_WORDS.contains(w)) {
            return Some((Polarity::Yes, false));
        }
        return None;
    }
    // "Almost." to "Are they finished?": not yet, however the reply goes on.
    if matches!(
        content,
        ["almost" | "nearly"] | ["almost" | "nearly", "there" | "done" | "finished" | "ready"]
    ) {
        return Some((Polarity::No, true));
    }
    if has_any_phrase(text, &["oh no"]) {
        return Some((Polarity::No, false));
    }
    if is_negated_text(text) {
        return Some((Polarity::No, false));
    }
    Some((Polarity::Yes, false))
}

/// Whether the only negative words of `text` are states named by the
/// field itself ("booked" for a field about a booking being booked): no
/// negation, and every negative state one of the field's own words.
pub(super) fn states_the_field(profile: &FieldProfile, text: &str) -> bool {
    let words: Vec<&str> = text.split(' ').collect();
    let negation = words
        .iter()
        .any(|w| set!(NEGATIONS).contains(w) || w.ends_with("n't"));
    let states: Vec<&&str> = words
        .iter()
        .filter(|w| set!(NEGATIVE_STATES).contains(**w))
        .collect();
    // "Friday's fully booked" speaks of the diary, not of this booking.
    let diary = words.iter().any(|w| {
        matches!(*w, "fully" | "solid" | "up" | "completely" | "totally")
            || vocabulary::weekday(w).is_some()
            || w.strip_suffix("'s")
                .is_some_and(|day| vocabulary::weekday(day).is_some())
    });
    !negation
        && !diary
        && !states.is_empty()
        && states.iter().all(|w| profile.is_own_word(&stem(w)))
}

/// The reading a sentence that contrasts another thing ("The studio
/// theatre's free, though.") gives the field: the opposite of what it says
/// of its subject, when that subject names none of the field's words.
/// `None` for any other sentence.
pub(super) fn contrasted_reading(profile: &FieldProfile, sent: &Sentence) -> Option<Polarity> {
    let words: Vec<&str> = sent.word_lowers().collect();
    if words.last() != Some(&"though") || words.len() < 4 {
        return None;
    }
    // The subject: the words up to "X's" or before "is"/"are".
    let verb = words
        .iter()
        .position(|w| w.ends_with("'s") || matches!(*w, "is" | "are"))?;
    let subject: Vec<&str> = words[..=verb]
        .iter()
        .map(|w| w.strip_suffix("'s").unwrap_or(w))
        .filter(|w| !DETERMINERS.contains(w) && !matches!(*w, "is" | "are" | "oh" | "but"))
        .collect();
    if subject.is_empty() || subject.iter().any(|w| profile.is_keyword(&stem(w))) {
        return None;
    }
    let said = &words[verb + 1..words.len() - 1];
    let (polarity, _) = clause_polarity(&said.join(" "), said, false, true)?;
    match polarity {
        Polarity::Yes => Some(Polarity::No),
        Polarity::No => Some(Polarity::Yes),
        Polarity::Dodge => None,
    }
}

/// Whether clause `at` of a sentence's clause `texts` is a bare "no" of
/// a speaker correcting a figure ("… two forty… sorry, no, let me read it
/// properly"), not an answer ("Yes. Actually, no, not for cats." still is
/// one).
pub(super) fn corrects_a_figure(texts: &[&str], at: usize) -> bool {
    matches!(texts[at], "no" | "no no")
        && at
            .checked_sub(1)
            .is_some_and(|before| matches!(texts[before], "sorry" | "oh sorry"))
        && texts.get(at + 1).is_some_and(|after| {
            ["let me", "i mean", "hang on", "hold on"]
                .iter()
                .any(|opening| after.starts_with(opening))
        })
}

/// Whether a clause speaks of what would be under another choice ("with
/// breakfast it'd be …", "without the van that would cost …"); a plain
/// "it'd be free after two" still answers.
pub(super) fn is_hypothetical(text: &str) -> bool {
    const WOULD: &[&str] = &[
        "it'd",
        "that'd",
        "it would",
        "that would",
        "would be",
        "would cost",
    ];
    // "The main hall would've been thirty-five": what would have been.
    const COUNTERFACTUAL: &[&str] = &[
        "would've been",
        "would have been",
        "could've been",
        "could have been",
    ];
    ((text.starts_with("with ") || text.starts_with("without ")) && has_any_phrase(text, WOULD))
        || has_any_phrase(text, COUNTERFACTUAL)
}
