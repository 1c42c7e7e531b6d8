//! Hour-of-day fields ("hour the doors open, on a 24-hour clock"): the
//! last clock time said in the field's evidence, and clock times as the
//! 24-hour clock reads them.

use super::days::days_of_word;
use super::evidence::{Analysis, Role, Source};
use super::options::said_for_own_option;
use super::phrase::{has_any_phrase, is_negated_text};
use super::profile::{FieldIndex, NumberProfile, RangePreference, text_words};
use super::transcript::{Sentence, SentenceIndex, TurnIndex, clause_text};
use agentcall::schedule::Days;
use agentcall_english::identifier::split_identifier;
use agentcall_english::number_pairs::{ClockTime, window_opening};
use agentcall_english::numbers::NumberMention;
use agentcall_english::stem::{stem, stems_match};
use agentcall_english::units::Unit;

impl Analysis<'_, '_> {
    /// Hour-of-day fields: the last clock time mentioned in the evidence (or
    /// anywhere, when nothing raises the field).
    pub(super) fn extract_clock_number(
        &self,
        field: FieldIndex,
        number_profile: &NumberProfile,
    ) -> Option<(f64, Source)> {
        let evidence = self.evidence(field, false);
        let sentences: Vec<SentenceIndex> = evidence
            .iter()
            .filter(|e| e.role != Role::Question)
            .map(|e| e.sentence)
            .collect();
        // "What time do you open?" "Nine.": a bare hour answering a
        // question about the time of day.
        let time_answers: Vec<SentenceIndex> = evidence
            .iter()
            .filter(|e| e.role == Role::Answer && self.asks_the_time(e.region))
            .map(|e| e.sentence)
            .collect();
        // "Five o'clock. Saturdays we're open till noon.": a time said for
        // a day that neither the field nor its questions name is another
        // day's.
        let description = self.profiles[field].description_lower();
        let asked_days: Days = evidence
            .iter()
            .filter(|e| e.role == Role::Question)
            .flat_map(|e| self.transcript.sentences[e.sentence].word_lowers())
            .chain(text_words(&description))
            .filter_map(days_of_word)
            .flat_map(Days::iter)
            .fold(Days::NONE, Days::with);
        // The nearest day said before the time counts ("We're closed
        // Mondays, weekends we open at ten"); a group covers its days.
        let another_day = |sent: &Sentence, at: usize| {
            sent.tokens[..at.min(sent.tokens.len())]
                .iter()
                .rev()
                .find_map(|t| days_of_word(&t.lower))
                .is_some_and(|days| !days.iter().any(|day| asked_days.contains(day)))
        };
        // `None` for a window ("one to five") when the field wants no end
        // of it in particular.
        let mut last: Option<(Option<ClockTime>, SentenceIndex)> = None;
        // "Doors at seven, support act's on at quarter to eight, and the
        // headliner's around nine.": within one reply, the last time whose
        // clause names the field outranks the times of other things.
        let mut named: Option<(Option<ClockTime>, SentenceIndex)> = None;
        let name_stems: Vec<String> = split_identifier(&self.profiles[field].definition.name)
            .iter()
            .map(|word| stem(&word.to_lowercase()))
            .filter(|word| {
                !matches!(
                    word.as_str(),
                    "hour" | "tim" | "time" | "clock" | "start" | "end" | "latest" | "earliest"
                )
            })
            .collect();
        for sentence in sentences {
            let sent = &self.transcript.sentences[sentence];
            if sent.question || self.is_offer(sent, |t: &Sentence| clock_values(t).len()) {
                continue;
            }
            // (One number only: "Nine on weekdays, ten on Saturdays" is two.)
            let bare_hours = time_answers.contains(&sentence) && sent.numbers.len() == 1;
            let sentence_negated = is_negated_text(&sent.lower_text());
            for (at, m) in sent
                .numbers
                .iter()
                .enumerate()
                .filter(|(_, m)| is_clock(m) || (bare_hours && is_bare_hour(m)))
            {
                let clause = sent.clause_at(m.start);
                let clause_words = clause_text(sent, clause);
                // A window ("open six to ten") names both of its ends.
                let in_window = m.range_with.is_some()
                    || window_opening(&sent.tokens, &sent.numbers, at).is_some()
                    || window_opening(&sent.tokens, &sent.numbers, at + 1).is_some();
                // "… till half five" ends a window; "from nine" opens one.
                let before = m
                    .start
                    .checked_sub(1)
                    .and_then(|at| sent.tokens.get(at))
                    .map(|t| t.lower.as_str());
                // ("Boats don't go out till eight" opens the day.)
                let other_end = !in_window
                    && !sentence_negated
                    && match number_profile.range {
                        RangePreference::Lower => matches!(before, Some("till" | "til" | "until")),
                        RangePreference::Upper => before == Some("from"),
                        RangePreference::Neither => false,
                    };
                if refuses_the_time(clause_words)
                    || other_end
                    || (!in_window && names_the_other_end(number_profile.range, clause_words))
                    || said_for_own_option(&self.profiles[field], sent, m.start) == Some(false)
                    || another_day(sent, m.start)
                {
                    continue;
                }
                let (h, mm) = m.clock.unwrap_or((m.value as u32, 0));
                let time = match (
                    window_opening(&sent.tokens, &sent.numbers, at),
                    number_profile.range,
                ) {
                    (Some(opening), RangePreference::Lower) => Some(opening),
                    (Some(_), RangePreference::Neither) => None,
                    _ => Some((h, mm, m.pm)),
                };
                let turn = sent.turn;
                if named.is_some_and(|(_, at)| self.transcript.sentences[at].turn != turn) {
                    named = None;
                }
                // Named by a word of the field's own name ("doors" of
                // "doors_open_hour"), not of its description's context.
                let clause_range = sent.clause_range(clause);
                if sent.stems[clause_range.start..clause_range.end.min(sent.stems.len())]
                    .iter()
                    .any(|st| name_stems.iter().any(|own| stems_match(own, st)))
                {
                    named = Some((time, sentence));
                }
                last = Some((time, sentence));
            }
        }
        let last_turn = last.map(|(_, at)| self.transcript.sentences[at].turn);
        let named = named.filter(|(_, at)| Some(self.transcript.sentences[*at].turn) == last_turn);
        let (time, sentence) = named.or(last)?;
        let (h, mm, pm) = time?;
        if h > 24 {
            return None;
        }
        let hour = if number_profile.hour24 {
            on_24_hour_clock(h, pm)
        } else {
            h
        };
        Some((
            f64::from(hour) + f64::from(mm) / 60.0,
            Source::sentence(sentence),
        ))
    }

    /// Whether the question opening `region` asks for a time of day ("What
    /// time do you open?", "When do you close?").
    pub(super) fn asks_the_time(&self, region: TurnIndex) -> bool {
        self.transcript
            .last_question(region)
            .is_some_and(|question| {
                has_any_phrase(
                    &question.lower_text(),
                    &[
                        "what time",
                        "when do you open",
                        "when do you close",
                        "what hour",
                    ],
                )
            })
    }

    /// A sentence offering several values ("Friday at nine or Saturday at two").
    fn is_offer(&self, sentence: &Sentence, count: impl Fn(&Sentence) -> usize) -> bool {
        let has_or = sentence.word_lowers().any(|w| w == "or");
        has_or && count(sentence) >= 2
    }
}

/// Whether a clause gives the time of the other end of the day than the
/// field's ("We close at eleven" for an opening hour, "We open at six"
/// for a closing hour): it names that end and not the field's.
fn names_the_other_end(range: RangePreference, clause: &str) -> bool {
    const OPENING: &[&str] = &["open", "opens", "opening", "from"];
    const CLOSING: &[&str] = &[
        "close", "closes", "closing", "closed", "shut", "shuts", "end", "ends",
    ];
    let names = |words: &[&str]| clause.split(' ').any(|w| words.contains(&w));
    match range {
        RangePreference::Lower => names(CLOSING) && !names(OPENING),
        RangePreference::Upper => names(OPENING) && !names(CLOSING),
        RangePreference::Neither => false,
    }
}

/// Whether a clause refuses the clock time in it. "We shut the gate at
/// four thirty" and "closed by six" give the closing time: a closing word
/// followed by a time preposition is the time's own verb, not a "we're
/// closed" that refuses it.
pub(super) fn refuses_the_time(clause: &str) -> bool {
    const CLOSING_STATES: &[&str] = &["closed", "shut"];
    const TIME_PREPOSITIONS: &[&str] = &["at", "by", "till", "til", "until", "around", "about"];
    let words: Vec<&str> = clause.split(' ').collect();
    let governs_a_time = |at: usize| {
        words[at + 1..]
            .iter()
            .take(4)
            .any(|w| TIME_PREPOSITIONS.contains(w))
    };
    let kept: Vec<&str> = words
        .iter()
        .enumerate()
        .filter(|(at, w)| !(CLOSING_STATES.contains(w) && governs_a_time(*at)))
        .map(|(_, w)| *w)
        .collect();
    is_negated_text(&kept.join(" "))
}

/// A clock time: "3 pm", "ten o'clock", "at two", "seven-thirty", "7:30".
pub(super) fn is_clock(m: &NumberMention) -> bool {
    m.unit == Unit::Clock
        || (m.after_time_prep
            && m.unit == Unit::None
            && !m.ordinal
            && (1.0..=12.0).contains(&m.value)
            && m.value.fract() == 0.0)
        || (m.clock.is_some() && matches!(m.unit, Unit::None | Unit::Clock))
}

/// A whole number from one to twelve said bare ("Nine."), which a
/// question about the time makes an hour.
pub(super) fn is_bare_hour(m: &NumberMention) -> bool {
    m.unit == Unit::None
        && !m.ordinal
        && m.alt.is_none()
        && m.per.is_none()
        && (1.0..=12.0).contains(&m.value)
        && m.value.fract() == 0.0
}

/// Hour `hour` of a time said with `pm` (am/pm, or neither) on the 24-hour
/// clock; without am or pm, one to seven is in the afternoon (business
/// hours).
pub(super) fn on_24_hour_clock(hour: u32, pm: Option<bool>) -> u32 {
    match pm {
        Some(true) if hour < 12 => hour + 12,
        Some(false) if hour == 12 => 0,
        None if (1..=7).contains(&hour) => hour + 12,
        _ => hour,
    }
}

/// The hours of the clock times in a sentence.
fn clock_values(sentence: &Sentence) -> Vec<u32> {
    let mut v: Vec<u32> = sentence
        .numbers
        .iter()
        .filter(|m| is_clock(m))
        .map(|m| m.clock.map_or(m.value as u32, |c| c.0))
        .collect();
    v.dedup();
    v
}

/// A clock time as text ("3 pm", "7:30"); on the 24-hour clock when
/// `hour24` ("15:30", "09:00"), where an hour from one to seven without
/// am or pm is in the afternoon (business hours, as for hour fields).
pub(super) fn format_clock(m: &NumberMention, hour24: bool) -> String {
    let (h, mm) = m.clock.unwrap_or((m.value as u32, 0));
    if hour24 {
        return format!("{:02}:{mm:02}", on_24_hour_clock(h, m.pm));
    }
    let suffix = match m.pm {
        Some(true) => " pm",
        Some(false) => " am",
        None => "",
    };
    if mm == 0 {
        format!("{h}{suffix}")
    } else {
        format!("{h}:{mm:02}{suffix}")
    }
}
