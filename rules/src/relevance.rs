//! Stage 3 scoring: how strongly a sentence or turn is about a field
//! (keyword matches, the noun a question asks for, values of the wanted kind).

use super::lexicon::{
    BARE_QUESTION_WORDS, FILLERS, GENERIC_NAME_WORDS, STOPWORDS, STREET_SUFFIXES,
};
use super::profile::{FieldProfile, FieldUnit, NumberProfile, StringKind, ValueKind};
use super::transcript::{Sentence, Transcript, Turn};
use agentcall_english::stem::{stem, stems_match};
use agentcall_english::tokens::Token;
use agentcall_english::units::Unit;
use agentcall_english::vocabulary;
use agentcall_english::vocabulary::COLORS;

/// Keyword score of one stem list.
pub(super) fn keyword_score(profile: &FieldProfile, stems: &[String]) -> f64 {
    keyword_score_in(profile, &[stems])
}

/// For each keyword of `profile`, whether `stems` mention it.
pub(super) fn keyword_mask(profile: &FieldProfile, stems: &[String]) -> Vec<bool> {
    profile
        .keywords
        .iter()
        .map(|k| {
            stems
                .iter()
                .any(|s| !s.is_empty() && stems_match(&k.stem, s))
        })
        .collect()
}

/// Score of the union of several keyword masks; zero unless the field's
/// required tokens (digits of its name) are all present.
pub(super) fn mask_score(profile: &FieldProfile, masks: &[&[bool]]) -> f64 {
    let hit = |i: usize| masks.iter().any(|m| m.get(i).copied().unwrap_or(false));
    let required_ok = profile.required.iter().all(|r| {
        profile
            .keywords
            .iter()
            .enumerate()
            .any(|(i, k)| k.stem == *r && hit(i))
    });
    if !required_ok {
        return 0.0;
    }
    profile
        .keywords
        .iter()
        .enumerate()
        .filter(|(i, _)| hit(*i))
        .map(|(_, k)| k.weight)
        .sum()
}

/// Keyword score over several stem lists taken together (each keyword
/// counts once).
pub(super) fn keyword_score_in(profile: &FieldProfile, lists: &[&[String]]) -> f64 {
    let all = || {
        lists
            .iter()
            .flat_map(|l| l.iter())
            .filter(|s| !s.is_empty())
    };
    if !profile.required.iter().all(|r| all().any(|s| s == r)) {
        return 0.0;
    }
    profile
        .keywords
        .iter()
        .filter(|k| all().any(|s| stems_match(&k.stem, s)))
        .map(|k| k.weight)
        .sum()
}

/// Whether a sentence holds a value of the field's distinctive kind.
pub(super) fn type_bonus(profile: &FieldProfile, sentence: &Sentence) -> bool {
    match &profile.kind {
        ValueKind::Text(StringKind::Weekday) => sentence
            .tokens
            .iter()
            .any(|t| t.is_word() && vocabulary::weekday(&t.lower).is_some()),
        ValueKind::Text(StringKind::Month | StringKind::Date) => sentence
            .tokens
            .iter()
            .any(|t| t.is_word() && vocabulary::month(t).is_some()),
        ValueKind::Text(StringKind::Color) => sentence
            .tokens
            .iter()
            .any(|t| COLORS.contains(&t.lower.as_str())),
        ValueKind::Text(StringKind::Time { .. })
        | ValueKind::Number(NumberProfile {
            unit: FieldUnit::Clock,
            ..
        }) => sentence.numbers.iter().any(|m| m.unit == Unit::Clock),
        ValueKind::Text(StringKind::Address) => {
            sentence.numbers.iter().any(|m| {
                sentence
                    .tokens
                    .get(m.end)
                    .is_some_and(|t| t.is_word() && t.is_capitalized())
                    || matches!(m.unit, Unit::Count(_))
                        && sentence
                            .tokens
                            .get(m.end.saturating_sub(1))
                            .is_some_and(Token::is_capitalized)
            }) || sentence.tokens.iter().enumerate().any(|(i, t)| {
                i > 0
                    && t.is_capitalized()
                    && STREET_SUFFIXES.contains(&t.lower.as_str())
                    && sentence
                        .tokens
                        .get(i - 1)
                        .is_some_and(|p| p.is_word() && p.is_capitalized())
            })
        }
        ValueKind::Text(StringKind::Options(opts)) => opts.iter().any(|o| {
            o.split_whitespace()
                .last()
                .is_some_and(|last| sentence.stems.contains(&stem(last)))
        }),
        _ => false,
    }
}

/// The noun a wh-question asks for: "What sizes do you stock?" →
/// size; "What's the balance?" → balance; "How much is the toll?" → toll.
pub(super) fn question_focus(toks: &[Token]) -> Vec<String> {
    let ws: Vec<&Token> = toks.iter().filter(|t| t.is_word()).collect();
    let Some(start) = ws
        .iter()
        .position(|t| !set!(FILLERS).contains(t.lower.as_str()) || t.lower == "and")
    else {
        return Vec::new();
    };
    let rest = &ws[start..];
    let skip_to = match rest
        .iter()
        .map(|t| t.lower.as_str())
        .collect::<Vec<_>>()
        .as_slice()
    {
        ["what" | "which", ..] | ["what's", ..] => 1,
        ["how", "much" | "many", ..] => 2,
        _ => return Vec::new(),
    };
    rest.iter()
        .skip(skip_to)
        .map(|t| t.lower.as_str())
        .skip_while(|w| {
            matches!(
                *w,
                "is" | "are"
                    | "was"
                    | "the"
                    | "a"
                    | "an"
                    | "your"
                    | "his"
                    | "her"
                    | "their"
                    | "kind"
                    | "of"
                    | "type"
                    | "sort"
            )
        })
        .take(2)
        .take_while(|w| !set!(STOPWORDS).contains(w))
        .map(stem)
        .collect()
}

/// Parts of a turn's topic score for one field.
#[derive(Debug, Clone, Copy, Default)]
pub(super) struct TurnParts {
    has_question: bool,
    /// Every question sentence is bare.
    bare: bool,
    /// Keyword score of the question sentences (with their type bonus).
    pub(super) question: f64,
    /// Keyword score of the whole turn.
    whole_turn: f64,
    /// The question's asked-for noun is one of the field's words.
    focus: f64,
    /// The turn holds a value of the field's distinctive kind.
    bonus: f64,
}

/// Scores the parts of `turn` for one field; `masks` holds, per sentence of
/// the transcript, which of the field's keywords it mentions.
pub(super) fn turn_parts(
    profile: &FieldProfile,
    transcript: &Transcript,
    masks: &[Vec<bool>],
    turn: &Turn,
) -> TurnParts {
    let mut question_masks: Vec<&[bool]> = Vec::new();
    let mut turn_masks: Vec<&[bool]> = Vec::new();
    let mut parts = TurnParts {
        bare: true,
        ..TurnParts::default()
    };
    let mut question_bonus = false;
    let mut any_bonus = false;
    for &sentence in &turn.sentences {
        let sent = &transcript.sentences[sentence];
        let bonus = type_bonus(profile, sent);
        if sent.question {
            parts.has_question = true;
            // The noun the question asks for weighs extra.
            if sent.focus.iter().any(|focus| {
                profile.is_own_word(focus)
                    && !GENERIC_NAME_WORDS
                        .iter()
                        .any(|generic| stem(generic) == *focus)
            }) {
                parts.focus += 1.0;
            }
            question_masks.extend(masks.get(sentence.0).map(Vec::as_slice));
            parts.bare &= is_bare_question(sent);
            question_bonus |= bonus;
        }
        turn_masks.extend(masks.get(sentence.0).map(Vec::as_slice));
        any_bonus |= bonus;
    }
    parts.question = mask_score(profile, &question_masks)
        + if question_bonus { 1.0 } else { 0.0 }
        + parts.focus.min(1.0);
    parts.whole_turn = mask_score(profile, &turn_masks);
    parts.bonus = if any_bonus { 1.0 } else { 0.0 };
    parts
}

/// Combines [`TurnParts`]. `context_question`: the question names nothing
/// any field is about, so (like a bare one) it refers to the statements
/// around it ("When could you come? He hoped for Monday.").
pub(super) fn turn_score(parts: TurnParts, context_question: bool) -> f64 {
    if !parts.has_question || parts.bare || context_question {
        return parts.whole_turn + parts.bonus;
    }
    // A real question is about what it names; the statements around it
    // ("Sam has a parrot. Are birds allowed?") only add a little.
    if parts.question <= 0.0 {
        return 0.0;
    }
    parts.question + 0.25 * (parts.whole_turn - parts.question).max(0.0)
}

/// A question with no content words of its own.
pub(super) fn is_bare_question(sentence: &Sentence) -> bool {
    sentence.word_lowers().all(|w| {
        set!(STOPWORDS).contains(w) || set!(FILLERS).contains(w) || BARE_QUESTION_WORDS.contains(&w)
    })
}
