//! Candidate extraction for text fields: names, addresses, codes, quotes,
//! modifier phrases, bare answers and choices among offered options.

use super::evidence::Analysis;
use super::lexicon::{
    ACCEPT_WORDS, CLOSINGS, DODGES, FILLERS, LEAD_PHRASES, STOPWORDS, STREET_SUFFIXES,
    TAIL_PHRASES, VERB_WORDS,
};
use super::names::join_tokens;
use super::phrase::{has_split_phrase, is_refusal_text};
use super::profile::FieldProfile;
use super::string::StringCandidate;
use super::transcript::{Sentence, SentenceIndex, Speaker, clause_text};
use agentcall_english::number_words::{NumberWord, classify_number_word};
use agentcall_english::stem::{stem, stems_match};
use agentcall_english::tokens::{Token, TokenKind};
use agentcall_english::units::{Unit, is_currency_word};
use agentcall_english::vocabulary;

/// Street addresses: a house number followed by capitalised words, or a named street.
pub(super) fn address_candidates(
    analysis: &Analysis,
    sentence: SentenceIndex,
) -> Vec<StringCandidate> {
    let sent = &analysis.transcript.sentences[sentence];
    let mut out = Vec::new();
    for (position, m) in sent.numbers.iter().enumerate() {
        // "214 Seven Sisters Road": a number word after a house number is
        // part of the street's name, not a house number of its own.
        let follows_a_number = position
            .checked_sub(1)
            .and_then(|p| sent.numbers.get(p))
            .is_some_and(|before| before.end == m.start);
        if follows_a_number {
            continue;
        }
        let Some(d) = m.digits.clone().or_else(|| {
            (m.value.fract() == 0.0 && m.value >= 1.0).then(|| format!("{}", m.value as u64))
        }) else {
            continue;
        };
        let mut j = m.end;
        // The unit attacher may have taken the street name as a count noun.
        if matches!(m.unit, Unit::Count(_)) {
            j = m.end - 1;
        }
        let mut street = Vec::new();
        // "Seven to ten business days": a number word is no street name,
        // unless a capitalised word follows it ("Seven Sisters Road").
        let named = |j: usize| {
            sent.tokens.get(j).is_some_and(|t| {
                t.is_word()
                    && t.is_capitalized()
                    && (classify_number_word(&t.lower).is_none()
                        || sent.tokens.get(j + 1).is_some_and(|n| {
                            n.is_word()
                                && n.is_capitalized()
                                && classify_number_word(&n.lower).is_none()
                        }))
            })
        };
        while let Some(t) = sent.tokens.get(j) {
            if named(j) && street.len() < 4 {
                street.push(t.text.clone());
                j += 1;
            } else {
                break;
            }
        }
        if !street.is_empty() {
            out.push(analysis.candidate_at(
                sentence,
                m.start,
                format!("{d} {}", street.join(" ")),
                0,
            ));
        }
    }
    // Without a house number: "on Maple Road".
    if out.is_empty() {
        let toks = &sent.tokens;
        for (i, t) in toks.iter().enumerate() {
            if !(t.is_word() && t.is_capitalized() && STREET_SUFFIXES.contains(&t.lower.as_str())) {
                continue;
            }
            let mut start = i;
            while start > 0
                && toks
                    .get(start - 1)
                    .is_some_and(|p| p.is_word() && p.is_capitalized())
                && i - start < 3
            {
                start -= 1;
            }
            if start < i {
                out.push(analysis.candidate_at(sentence, start, join_tokens(&toks[start..=i]), 1));
            }
        }
    }
    out
}

/// Codes and reference numbers, spelled letter by letter or said as digits.
pub(super) fn code_candidates(
    analysis: &Analysis,
    sentence: SentenceIndex,
) -> Vec<StringCandidate> {
    let sent = &analysis.transcript.sentences[sentence];
    let mut out = Vec::new();
    // Spelled codes: "K-L-M-two-zero-nine", "B 5 3 1".
    let mut i = 0;
    while i < sent.tokens.len() {
        let mut code = String::new();
        let mut j = i;
        while let Some(t) = sent.tokens.get(j) {
            // "… eight-three, I misread it": "I" or "A" before a word is
            // the pronoun or article, not a letter of the code.
            let pronoun = matches!(t.text.as_str(), "I" | "A")
                && sent.tokens.get(j + 1).is_some_and(|next| {
                    next.is_word()
                        && next.text.chars().count() > 1
                        && classify_number_word(&next.lower).is_none()
                        && !vocabulary::is_code_bridge(&next.lower)
                        && !matches!(next.lower.as_str(), "zero" | "oh")
                });
            let single_letter = t.is_word()
                && t.text.chars().count() == 1
                && t.text.chars().all(|c| c.is_ascii_uppercase())
                && !pronoun;
            // A short capitalised prefix joined to what follows ("AB-4719",
            // "XK22"): part of the code, not a word of the sentence.
            let joined_prefix = t.is_word()
                && (2..=4).contains(&t.text.chars().count())
                && t.text.chars().all(|c| c.is_ascii_uppercase())
                && sent.tokens.get(j + 1).is_some_and(|next| {
                    !next.space_before && (next.is_punct('-') || next.kind == TokenKind::Num)
                });
            // "B7704", "XK22" written as one word: capitals and digits.
            let written_code = t.is_word()
                && t.text.chars().any(|c| c.is_ascii_digit())
                && t.text.chars().any(|c| c.is_ascii_uppercase())
                && t.text
                    .chars()
                    .all(|c| c.is_ascii_digit() || c.is_ascii_uppercase());
            // "B as in bravo", "K for kilo": a letter said with its word.
            let letter_word = code.chars().last().is_some_and(|c| c.is_ascii_alphabetic())
                && sent
                    .tokens
                    .get(j.wrapping_sub(1))
                    .is_some_and(|before| before.is_word() && before.text.chars().count() == 1);
            if letter_word
                && t.lower == "as"
                && sent
                    .tokens
                    .get(j + 1)
                    .is_some_and(|next| next.lower == "in")
                && sent.tokens.get(j + 2).is_some_and(Token::is_word)
            {
                j += 3;
                continue;
            }
            if letter_word
                && t.lower == "for"
                && sent.tokens.get(j + 1).is_some_and(|next| {
                    next.is_word() && classify_number_word(&next.lower).is_none()
                })
            {
                j += 2;
                continue;
            }
            if single_letter || joined_prefix || written_code {
                code.push_str(&t.text);
            } else if t.is_word()
                && let Some(NumberWord::Unit(v)) = classify_number_word(&t.lower)
            {
                code.push_str(&v.to_string());
            } else if t.is_word() && matches!(t.lower.as_str(), "zero" | "oh") && !code.is_empty() {
                code.push('0');
            } else if t.kind == TokenKind::Num && t.text.chars().all(|c| c.is_ascii_digit()) {
                code.push_str(&t.text);
            } else if !(t.is_punct('-') || t.is_punct(',') || vocabulary::is_code_bridge(&t.lower))
                || code.is_empty()
            {
                break;
            }
            j += 1;
        }
        // A trailing comma or "then" belongs to what follows the code.
        while j > i
            && sent.tokens.get(j - 1).is_some_and(|t| {
                t.is_punct(',') || t.is_punct('-') || vocabulary::is_code_bridge(&t.lower)
            })
        {
            j -= 1;
        }
        let has_letter = code.chars().any(|c| c.is_ascii_alphabetic());
        let has_digit = code.chars().any(|c| c.is_ascii_digit());
        let pieces = sent
            .tokens
            .get(i..j)
            .unwrap_or(&[])
            .iter()
            .filter(|t| {
                !t.is_punct('-') && !t.is_punct(',') && !vocabulary::is_code_bridge(&t.lower)
            })
            .count();
        // "KLM20931", "5 3 8 0" (digit by digit), "4B" (glued).
        let glued = pieces == 2 && sent.tokens.get(i + 1).is_some_and(|t| !t.space_before);
        let spelled = pieces >= 3 && code.len() >= 3;
        // "88-1902": digit groups joined by hyphens, written as one piece.
        let hyphenated = {
            let span = sent.tokens.get(i..j).unwrap_or(&[]);
            pieces >= 2
                && span.iter().any(|t| t.is_punct('-'))
                && span.iter().skip(1).all(|t| !t.space_before)
                && span
                    .iter()
                    .all(|t| t.kind == TokenKind::Num || t.is_punct('-'))
        };
        if has_digit
            && ((has_letter && (code.len() >= 4 || glued))
                || (!has_letter && (spelled || hyphenated)))
        {
            // Written as one piece ("AB-4719"): kept as written.
            let span = sent.tokens.get(i..j).unwrap_or(&[]);
            let written = span.iter().skip(1).all(|t| !t.space_before)
                && span.iter().all(|t| {
                    t.kind == TokenKind::Num
                        || t.is_punct('-')
                        || t.text.chars().all(|c| c.is_ascii_uppercase())
                });
            let code = if written { join_raw(span) } else { code };
            out.push(analysis.candidate_at(sentence, i, code, 0));
            i = j.max(i + 1);
        } else {
            i += 1;
        }
    }
    for m in &sent.numbers {
        if m.ordinal || m.unit != Unit::None || m.clock.is_some() && m.after_time_prep {
            continue;
        }
        let Some(d) = &m.digits else { continue };
        if d.len() >= 2 && !out.iter().any(|c| c.text.contains(d.as_str())) {
            out.push(analysis.candidate_at(sentence, m.start, d.clone(), 0));
        }
    }
    out
}

/// Words between quotation marks.
pub(super) fn quote_candidates(
    analysis: &Analysis,
    sentence: SentenceIndex,
) -> Vec<StringCandidate> {
    let sent = &analysis.transcript.sentences[sentence];
    let mut out = Vec::new();
    let mut open: Option<usize> = None;
    for (i, t) in sent.tokens.iter().enumerate() {
        if t.is_punct('"') {
            match open {
                None => open = Some(i),
                Some(o) => {
                    let inner = sent.tokens.get(o + 1..i).unwrap_or(&[]);
                    if inner.iter().any(Token::is_word) {
                        out.push(analysis.candidate_at(sentence, o, join_raw(inner), 0));
                    }
                    open = None;
                }
            }
        }
    }
    // A quote left open at the sentence end (the closing mark went to the next sentence).
    if let Some(o) = open {
        let inner = sent.tokens.get(o + 1..).unwrap_or(&[]);
        if inner.iter().any(Token::is_word) {
            out.push(analysis.candidate_at(sentence, o, join_raw(inner), 0));
        }
    }
    out
}

/// Joins tokens back with their original spacing.
fn join_raw(toks: &[Token]) -> String {
    let mut out = String::new();
    for t in toks {
        if !out.is_empty() && t.space_before {
            out.push(' ');
        }
        out.push_str(&t.text);
    }
    out.trim_end_matches(['.', ' ']).to_string()
}

/// "lemon icing", "a beginner pottery course": the words before a
/// head noun of the field name.
pub(super) fn modifier_candidates(
    analysis: &Analysis,
    profile: &FieldProfile,
    sentence: SentenceIndex,
    from_question: bool,
) -> Vec<StringCandidate> {
    let sent = &analysis.transcript.sentences[sentence];
    let mut out = Vec::new();
    for (i, st) in sent.stems.iter().enumerate() {
        if st.is_empty() || !profile.heads.iter().any(|h| stems_match(h, st)) {
            continue;
        }
        let mut j = i;
        let mut mods: Vec<&Token> = Vec::new();
        while j > 0 && mods.len() < 3 {
            j -= 1;
            let Some(t) = sent.tokens.get(j) else { break };
            let l = t.lower.as_str();
            if !t.is_word()
                || set!(STOPWORDS).contains(l)
                || set!(FILLERS).contains(l)
                || classify_number_word(l).is_some()
                || matches!(
                    l,
                    "any"
                        | "some"
                        | "extra"
                        | "new"
                        | "same"
                        | "food"
                        | "another"
                        | "other"
                        | "few"
                        | "several"
                        | "many"
                        | "couple"
                        | "lot"
                        | "lots"
                        | "various"
                        | "different"
                        | "multiple"
                        | "both"
                        | "all"
                        | "every"
                        | "each"
                        | "more"
                        | "less"
                        | "additional"
                        | "certain"
                        | "usual"
                        | "whole"
                )
                || profile.is_keyword(&sent.stems[j])
            {
                break;
            }
            // "is also running evening classes": a verb, not a modifier.
            let verb_like = (l.ends_with("ing") || l.ends_with("ed"))
                && (1..=2).any(|b| {
                    j.checked_sub(b)
                        .and_then(|k| sent.tokens.get(k))
                        .is_some_and(|p| {
                            matches!(
                                p.lower.as_str(),
                                "is" | "are"
                                    | "was"
                                    | "were"
                                    | "be"
                                    | "been"
                                    | "am"
                                    | "i'm"
                                    | "we're"
                                    | "they're"
                                    | "it's"
                                    | "he's"
                                    | "she's"
                            )
                        })
                });
            if verb_like {
                break;
            }
            mods.push(t);
        }
        if mods.is_empty() {
            continue;
        }
        // Questions only lend a value through "a/the X <head>", not "any X <head>".
        if from_question {
            let det = sent.tokens.get(j).map(|t| t.lower.as_str());
            if !matches!(det, Some("a" | "an" | "the")) {
                continue;
            }
        }
        mods.reverse();
        // With the head noun: "the toddler room" answers "which room" as
        // "toddler room", and a label of either form is inside it. Not in
        // the agent's words: those only echo what the recipient said
        // ("Peanut allergy, got it." after "Peanuts.").
        let recipient = analysis.transcript.turns[sent.turn].speaker != Speaker::Agent;
        if recipient && let Some(head) = sent.tokens.get(i) {
            mods.push(head);
        }
        let text = mods
            .iter()
            .map(|t| t.text.as_str())
            .collect::<Vec<_>>()
            .join(" ");
        out.push(analysis.candidate_at(sentence, i, text, 1));
    }
    out
}

/// Bare answers: "Geometry.", "Tofu for me.", "Mia's is shellfish."
/// Whether a text field's own words ask for something a figure may name
/// ("size", "room number", "code").
fn asks_for_a_figure(profile: &FieldProfile) -> bool {
    [
        "number",
        "size",
        "code",
        "digits",
        "id",
        "extension",
        "room",
        "unit",
        "lot",
        "gate",
        "flight",
        "model",
        "version",
        "zip",
        "postcode",
        "reference",
        "amount",
        "count",
        "score",
    ]
    .iter()
    .any(|word| profile.is_own_word(&stem(word)))
}

/// Whether `word` makes a figure money ("fifty bucks", "two grand").
fn is_money_word(word: &str) -> bool {
    is_currency_word(word) || matches!(word, "pounds" | "pound" | "grand" | "cents" | "pence")
}

pub(super) fn generic_candidates(
    analysis: &Analysis,
    profile: &FieldProfile,
    sentence: SentenceIndex,
    offered: &mut Vec<String>,
    fragments: bool,
) -> Vec<StringCandidate> {
    let sent = &analysis.transcript.sentences[sentence];
    let mut out = Vec::new();
    // Remember offers ("I can do blue or green", "Oak, walnut,
    // or pine") so a later choice can be read.
    if let Some(list) = listed_options(sent) {
        offered.extend(list);
        return out;
    }
    for clause in sent.clause_ids() {
        let words: Vec<&Token> = sent
            .tokens
            .get(sent.clause_range(clause))
            .unwrap_or(&[])
            .iter()
            .filter(|t| t.is_word())
            .collect();
        if let Some(p) = words.iter().position(|t| t.lower == "or")
            && let (Some(a), Some(b)) = (
                p.checked_sub(1).and_then(|i| words.get(i)),
                words.get(p + 1),
            )
        {
            offered.push(a.lower.clone());
            offered.push(b.lower.clone());
            return out;
        }
    }
    out.extend(option_choice(analysis, sentence, offered));
    // "Lemon, hmm, the store's out": a value named only to be refused.
    let whole: String = sent.lower_text();
    if !fragments || is_refusal_text(&whole) || has_split_phrase(&whole, phrases!(DODGES)) {
        return out;
    }
    for clause in sent.clause_ids() {
        let text = clause_text(sent, clause);
        // "Yes, thanks so much": pleasantries carry no value.
        if text.is_empty() || text.split(' ').any(|w| set!(CLOSINGS).contains(w)) {
            continue;
        }
        let range = sent.clause_range(clause);
        let toks: Vec<&Token> = sent
            .tokens
            .get(range)
            .unwrap_or(&[])
            .iter()
            .filter(|t| t.is_word())
            .collect();
        let mut lo = 0;
        let mut hi = toks.len();
        // Strip leading fillers and lead phrases, trailing tails.
        loop {
            let rest: Vec<&str> = toks[lo..hi].iter().map(|t| t.lower.as_str()).collect();
            let joined = rest.join(" ");
            if let Some(first) = rest.first()
                && (set!(FILLERS).contains(first)
                    || matches!(*first, "sure" | "yep" | "yup" | "and" | "the" | "a" | "an"))
            {
                lo += 1;
                continue;
            }
            if let Some(p) = LEAD_PHRASES
                .iter()
                .find(|p| joined == **p || joined.starts_with(&format!("{p} ")))
            {
                lo += p.split(' ').count();
                continue;
            }
            // "Mia's is shellfish": drop a short subject before "is".
            if let Some(is) = rest.iter().position(|w| matches!(*w, "is" | "are" | "was"))
                && is <= 2
                && is + 1 < rest.len()
            {
                lo += is + 1;
                continue;
            }
            if let Some(p) = TAIL_PHRASES
                .iter()
                .find(|p| joined.ends_with(&format!(" {p}")))
            {
                hi -= p.split(' ').count();
                continue;
            }
            break;
        }
        if lo >= hi {
            continue;
        }
        // "…, I'm afraid.", "…, I think.": how it is said, no value.
        let said_how: Vec<&str> = toks[lo..hi].iter().map(|t| t.lower.as_str()).collect();
        if matches!(
            said_how.as_slice(),
            ["i'm", "afraid" | "sorry"]
                | ["i", "think" | "guess" | "believe" | "suppose" | "reckon"]
                | ["afraid", "so" | "not"]
        ) {
            continue;
        }
        let core = &toks[lo..hi];
        // "F-H, dash, zero zero eight": a word that joins the parts of a
        // spelled code is none of its value.
        if core.iter().all(|t| vocabulary::is_code_bridge(&t.lower)) {
            continue;
        }
        let n = core.len();
        let first = core[0].lower.as_str();
        let pronoun_start = matches!(
            first,
            "i" | "we"
                | "you"
                | "he"
                | "she"
                | "they"
                | "it"
                | "my"
                | "your"
                | "his"
                | "her"
                | "our"
                | "their"
                | "this"
                | "that"
                | "there"
        );
        let all_stop = core.iter().all(|t| {
            set!(STOPWORDS).contains(t.lower.as_str()) || profile.is_own_word(&stem(&t.lower))
        }) || core
            .iter()
            .any(|t| set!(CLOSINGS).contains(t.lower.as_str()));
        let verbish = core
            .iter()
            .any(|t| set!(VERB_WORDS).contains(t.lower.as_str()));
        // "Confirmed.", "Done, all booked.": a reply that settles, not a value.
        let settles = core.iter().all(|t| {
            matches!(
                t.lower.as_str(),
                "confirmed"
                    | "correct"
                    | "done"
                    | "exactly"
                    | "absolutely"
                    | "definitely"
                    | "certainly"
                    | "noted"
                    | "understood"
                    | "agreed"
                    | "booked"
                    | "settled"
                    | "all"
            )
        });
        // "Fifty bucks", "three-one-four-eight": an amount or a number
        // answers no question a generic text field asks.
        // Only money ("Fifty bucks") or a string of digits said one by one
        // ("three-one-four-eight"): "Three." or "The forty-two" may name a
        // floor or a bus.
        let figure_words = core.iter().all(|t| {
            t.kind == TokenKind::Num
                || is_money_word(&t.lower)
                || matches!(t.lower.as_str(), "percent" | "and" | "a" | "an")
                || t.lower
                    .split('-')
                    .all(|part| classify_number_word(part).is_some())
        });
        let money = core.iter().any(|t| is_money_word(&t.lower));
        let digit_parts: usize = core
            .iter()
            .map(|t| {
                t.lower
                    .split('-')
                    .filter(|part| {
                        matches!(
                            classify_number_word(part),
                            Some(NumberWord::Zero | NumberWord::Unit(_))
                        )
                    })
                    .count()
            })
            .sum();
        // "Seven yards." for the type of fabric: a quantity of something
        // is no kind of it.
        let asks_a_kind = ["type", "kind", "material", "brand", "make", "style", "sort"]
            .iter()
            .any(|word| profile.is_own_word(&stem(word)));
        let quantity = core.len() <= 2
            && (core.len() == 2 || asks_a_kind)
            && (core[0].kind == TokenKind::Num
                || core[0].lower.split('-').all(|part| {
                    // ("Second floor" is a place, no quantity.)
                    !matches!(
                        classify_number_word(part),
                        None | Some(NumberWord::Ordinal(_))
                    )
                }))
            && !asks_for_a_figure(profile);
        let amount_only = quantity
            || (!asks_for_a_figure(profile) && figure_words && (money || digit_parts >= 3));
        if n > 4
            || pronoun_start
            || all_stop
            || verbish
            || settles
            || amount_only
            || core
                .iter()
                .any(|t| ACCEPT_WORDS.contains(&t.lower.as_str()))
        {
            continue;
        }
        let text = core
            .iter()
            .map(|t| t.text.as_str())
            .collect::<Vec<_>>()
            .join(" ");
        out.push(analysis.candidate_at(sentence, token_index(sent, core[0]), text, 2));
    }
    out
}

/// Position of `tok` within the sentence's tokens.
fn token_index(sent: &Sentence, tok: &Token) -> usize {
    sent.tokens
        .iter()
        .position(|t| std::ptr::eq(t, tok))
        .unwrap_or(0)
}

/// The items of a short list with "or": "Oak, walnut, or pine."
fn listed_options(sent: &Sentence) -> Option<Vec<String>> {
    let ids = sent.clause_ids();
    let texts: Vec<&str> = ids
        .iter()
        .map(|&c| clause_text(sent, c))
        .filter(|t| !t.is_empty())
        .collect();
    if texts.len() < 2 || !texts.iter().any(|t| t.starts_with("or ")) {
        return None;
    }
    let items: Vec<String> = texts
        .iter()
        .map(|t| {
            t.trim_start_matches("or ")
                .trim_start_matches("and ")
                .to_string()
        })
        .collect();
    items
        .iter()
        .all(|i| i.split(' ').count() <= 2)
        .then_some(items)
}

/// A sentence naming exactly one previously offered option.
pub(super) fn option_choice(
    analysis: &Analysis,
    sentence: SentenceIndex,
    offered: &[String],
) -> Vec<StringCandidate> {
    let sent = &analysis.transcript.sentences[sentence];
    let hits: Vec<(usize, &Token)> = sent
        .tokens
        .iter()
        .enumerate()
        .filter(|(_, t)| t.is_word() && offered.contains(&t.lower))
        .collect();
    let mut distinct: Vec<&str> = hits.iter().map(|(_, t)| t.lower.as_str()).collect();
    distinct.sort_unstable();
    distinct.dedup();
    if distinct.len() != 1 {
        return Vec::new();
    }
    hits.first()
        .map(|(i, t)| analysis.candidate_at(sentence, *i, t.text.clone(), 0))
        .into_iter()
        .collect()
}
