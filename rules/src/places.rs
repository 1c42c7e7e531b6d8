//! Text fields that ask where ("Where the technician can find the key"):
//! a place is what a locative preposition names ("a lockbox by the side
//! door"), never a time ("anytime from the first", "I work Mondays").

use super::evidence::Analysis;
use super::lexicon::DETERMINERS;
use super::names::{join_tokens, proper_spans};
use super::profile::FieldProfile;
use super::string::StringCandidate;
use super::transcript::SentenceIndex;
use agentcall_english::identifier::split_identifier;
use agentcall_english::number_words::classify_number_word;
use agentcall_english::vocabulary;

/// Prepositions that name where something is or goes.
const LOCATIVES: &[&str] = &[
    "at", "by", "to", "in", "inside", "outside", "behind", "beside", "near", "round", "around",
    "through", "under", "off", "into",
];

/// Words that end the place a preposition names.
const PLACE_ENDS: &[&str] = &[
    "and", "or", "but", "so", "then", "if", "because", "which", "that", "where", "when", "with",
    "for", "from", "of", "on", "at", "by", "to", "in", "is", "are", "it's", "just", "not",
    "around", "about", "after", "before", "until", "till", "near", "behind", "beside", "under",
];

/// Words of time: a preposition before them names no place ("from the
/// first", "by six", "in the morning").
const TIME_WORDS: &[&str] = &[
    "first",
    "second",
    "third",
    "noon",
    "midnight",
    "morning",
    "mornings",
    "afternoon",
    "afternoons",
    "evening",
    "evenings",
    "night",
    "nights",
    "week",
    "weeks",
    "weekend",
    "weekends",
    "month",
    "months",
    "year",
    "years",
    "spring",
    "summer",
    "autumn",
    "winter",
    "day",
    "days",
    "moment",
    "time",
    "anytime",
    "least",
    "most",
    "once",
    "end",
    "today",
    "tomorrow",
    "tonight",
    "hour",
    "hours",
    "minute",
    "minutes",
    "advance",
    "person",
    "phone",
    "email",
    "writing",
    "total",
    "all",
    "fact",
    "case",
    "general",
];

/// Whether `profile` asks where something is or happens: its description
/// opens with "where", or its name says location.
pub(super) fn asks_where(profile: &FieldProfile) -> bool {
    profile
        .description_lower()
        .trim_start()
        .starts_with("where ")
        || split_identifier(&profile.definition.name)
            .iter()
            .any(|word| word.eq_ignore_ascii_case("location"))
}

/// Whether the lower-case `words` name a time rather than a place: a
/// word of time or a day ("I work Mondays", "anytime from the first"), or
/// only a number ("by six"); "Gate five" and "second floor" are places.
pub(super) fn names_a_time(words: &[&str]) -> bool {
    let number = |word: &&str| {
        word.chars().any(|c| c.is_ascii_digit())
            || word
                .split('-')
                .all(|part| classify_number_word(part).is_some())
    };
    words.iter().any(|word| {
        (TIME_WORDS.contains(word) && !matches!(*word, "first" | "second" | "third"))
            || vocabulary::weekday(word).is_some()
            || vocabulary::weekday(word.trim_end_matches('s')).is_some()
    }) || (!words.is_empty() && words.iter().all(number))
        || matches!(words, ["first" | "second" | "third"])
}

impl Analysis<'_, '_> {
    /// The places `sentence` names for a where-field: the words after a
    /// locative preposition ("drop them at the north entrance" → "north
    /// entrance"), and a room named upstairs or downstairs ("the upstairs
    /// suite"). The first of a clause only.
    pub(super) fn place_candidates(&self, sentence: SentenceIndex) -> Vec<StringCandidate> {
        let sent = &self.transcript.sentences[sentence];
        let mut out = Vec::new();
        // A place named in capitals, of two words or more ("I love Bellamy
        // Park"), answers too.
        for (start, end) in proper_spans(sent, self.transcript) {
            if end - start >= 2 {
                out.push(self.candidate_at(
                    sentence,
                    start,
                    join_tokens(&sent.tokens[start..end]),
                    2,
                ));
            }
        }
        for clause in sent.clause_ids() {
            let range = sent.clause_range(clause);
            let words: Vec<(usize, &str)> = range
                .clone()
                .filter(|&at| sent.tokens[at].is_word())
                .map(|at| (at, sent.tokens[at].lower.as_str()))
                .collect();
            let found = words.iter().enumerate().find_map(|(position, &(_, word))| {
                let upstairs = matches!(word, "upstairs" | "downstairs");
                if !upstairs && !LOCATIVES.contains(&word) {
                    return None;
                }
                // "to come" is a verb, not a place.
                let to_a_verb = word == "to"
                    && words.get(position + 1).is_some_and(|&(at, next)| {
                        !DETERMINERS.contains(&next) && !sent.tokens[at].is_capitalized()
                    });
                if to_a_verb {
                    return None;
                }
                let from = if upstairs { position } else { position + 1 };
                let place: Vec<(usize, &str)> = words[from..]
                    .iter()
                    .copied()
                    .skip_while(|(_, w)| DETERMINERS.contains(w))
                    .take_while(|(_, w)| !PLACE_ENDS.contains(w))
                    .take(3)
                    .collect();
                let said: Vec<&str> = place.iter().map(|&(_, w)| w).collect();
                (!place.is_empty() && !names_a_time(&said)).then(|| {
                    let (start, _) = place[0];
                    let (end, _) = place[place.len() - 1];
                    let text = sent.tokens[start..=end]
                        .iter()
                        .filter(|t| t.is_word())
                        .map(|t| t.text.as_str())
                        .collect::<Vec<_>>()
                        .join(" ");
                    (start, text)
                })
            });
            if let Some((start, text)) = found {
                out.push(self.candidate_at(sentence, start, text, 2));
            }
        }
        out
    }
}
