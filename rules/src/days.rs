//! Days of the week a field names and a sentence speaks of, as sets:
//! "Tuesday through Saturday" covers five days, "weekends" two, "every
//! day except Mondays" six. A field about one day ("open on Sundays",
//! "Saturday hire fee") is answered only by what is said of a set of days
//! that includes it: "We're only open Tuesday through Saturday" says no for
//! Sunday, and "Fridays and Sundays are six thousand two hundred" is no
//! Saturday price.

use chrono::Weekday;

use super::transcript::{Sentence, clause_text};
use agentcall::domain::FieldDefinition;
use agentcall::schedule::Days;
use agentcall_english::identifier::field_words;
use agentcall_english::tokens::Token;
use agentcall_english::vocabulary;

/// The day of the week `word` names ("Sundays", "Tuesday's").
fn weekday_of(word: &str) -> Option<Weekday> {
    vocabulary::weekday(word)?.parse().ok()
}

/// The days from `first` to `last`, wrapping past Sunday ("Friday to
/// Monday").
fn through(first: Weekday, last: Weekday) -> Days {
    let mut days = Days::NONE.with(first);
    let mut day = first;
    while day != last {
        day = day.succ();
        days = days.with(day);
    }
    days
}

/// The days not in `days`.
fn complement(days: Days) -> Days {
    (0..7u8)
        .filter_map(|n| Weekday::try_from(n).ok())
        .filter(|&day| !days.contains(day))
        .fold(Days::NONE, Days::with)
}

fn of(list: &[Weekday]) -> Days {
    list.iter().fold(Days::NONE, |days, &day| days.with(day))
}

/// The days one word names: a day ("Sundays"), weekdays or weekends.
pub(super) fn days_of_word(word: &str) -> Option<Days> {
    if let Some(day) = weekday_of(word) {
        return Some(of(&[day]));
    }
    match word {
        "weekday" | "weekdays" | "weeknight" | "weeknights" => Some(of(&[
            Weekday::Mon,
            Weekday::Tue,
            Weekday::Wed,
            Weekday::Thu,
            Weekday::Fri,
        ])),
        "weekend" | "weekends" => Some(of(&[Weekday::Sat, Weekday::Sun])),
        _ => None,
    }
}

/// The one day of the week the field names ("open_sunday", "Saturday
/// hire fee"), if it names exactly one.
pub(super) fn field_day(definition: &FieldDefinition) -> Option<Weekday> {
    let mut found: Option<Weekday> = None;
    for word in field_words(definition) {
        if let Some(day) = weekday_of(&word) {
            match found {
                Some(seen) if seen != day => return None,
                _ => found = Some(day),
            }
        }
    }
    found
}

/// Each mention of days in `sentence`: the token it starts at and the
/// days it covers ("Tuesday through Saturday", "weekdays", "Sundays");
/// a mention after "except", "not" or "closed" covers the other days
/// ("open every day except Mondays", "closed Mondays").
/// The last day of a span of days that the weekday at token `at` opens
/// ("Tuesday through Saturday", "Monday to Friday", "Monday-Friday").
fn span_end(tokens: &[Token], at: usize) -> Option<Weekday> {
    let word = |i: usize| {
        tokens
            .get(i)
            .filter(|t| t.is_word())
            .map(|t| t.lower.as_str())
    };
    let joined = tokens.get(at + 1).is_some_and(|t| t.is_punct('-'))
        || matches!(
            word(at + 1),
            Some("through" | "thru" | "to" | "till" | "until")
        );
    weekday_of(word(at)?)?;
    joined.then(|| word(at + 2).and_then(weekday_of)).flatten()
}

/// The token indices of both ends of every span of days in `tokens`
/// ("Monday through Wednesday"): a span gives no one day.
pub(super) fn day_span_ends(tokens: &[Token]) -> Vec<usize> {
    (0..tokens.len())
        .filter(|&at| span_end(tokens, at).is_some())
        .flat_map(|at| [at, at + 2])
        .collect()
}

pub(super) fn day_mentions(sentence: &Sentence) -> Vec<(usize, Days)> {
    let tokens = &sentence.tokens;
    let word = |i: usize| {
        tokens
            .get(i)
            .filter(|t| t.is_word())
            .map(|t| t.lower.as_str())
    };
    let negated = |i: usize| {
        (1..=2)
            .filter_map(|back| i.checked_sub(back))
            .filter_map(word)
            .any(|w| matches!(w, "except" | "not" | "closed" | "shut" | "apart"))
    };
    let mut mentions = Vec::new();
    let mut i = 0;
    while i < tokens.len() {
        let Some(w) = word(i) else {
            i += 1;
            continue;
        };
        let (days, length) = if let Some(first) = weekday_of(w) {
            match span_end(tokens, i) {
                Some(last) => (through(first, last), 3),
                None => (of(&[first]), 1),
            }
        } else if let Some(group) = days_of_word(w) {
            (group, 1)
        } else if w == "daily" || (w == "every" && word(i + 1) == Some("day")) {
            (Days::EVERY_DAY, 1)
        } else {
            i += 1;
            continue;
        };
        let days = if negated(i) { complement(days) } else { days };
        mentions.push((i, days));
        i += length;
    }
    // "Fridays and Saturdays it's eighty": days said together share what
    // is said of them.
    for at in 1..mentions.len() {
        let (before, after) = (mentions[at - 1], mentions[at]);
        let gap: Vec<&str> = tokens
            .get(before.0 + 1..after.0)
            .unwrap_or(&[])
            .iter()
            .map(|t| t.lower.as_str())
            .collect();
        let together = matches!(gap.as_slice(), ["and"] | ["&"] | [",", "and"]);
        let single = |at: usize| word(at).and_then(weekday_of).is_some() && !negated(at);
        if together && single(before.0) && single(after.0) {
            let both = before
                .1
                .iter()
                .chain(after.1.iter())
                .fold(Days::NONE, Days::with);
            mentions[at - 1].1 = both;
            mentions[at].1 = both;
        }
    }
    // "Weeknights it's fifty-five, Fridays it's eighty": a group of days
    // leaves out a day the sentence names on its own.
    let named_alone: Vec<Weekday> = mentions
        .iter()
        .filter(|(at, _)| word(*at).and_then(weekday_of).is_some() && !negated(*at))
        .flat_map(|(_, days)| days.iter())
        .collect();
    for (at, days) in &mut mentions {
        let group = word(*at).is_some_and(|w| weekday_of(w).is_none());
        if group && *days != Days::EVERY_DAY {
            *days = days
                .iter()
                .filter(|day| !named_alone.contains(day))
                .fold(Days::NONE, Days::with);
        }
    }
    mentions
}

/// "Earliest I can do is Monday", "Tomorrow morning's the first
/// opening": a sentence that offers a first free day other than the one
/// day the field asks about ("…tomorrow", "…on Saturday").
pub(super) fn offers_a_later_day(definition: &FieldDefinition, sentence: &Sentence) -> bool {
    // A day said as a weekday or as today, tonight or tomorrow.
    fn day_of(word: &str) -> Option<String> {
        let word = word.strip_suffix("'s").unwrap_or(word);
        weekday_of(word)
            .map(|day| day.to_string())
            .or_else(|| matches!(word, "today" | "tonight" | "tomorrow").then(|| word.to_owned()))
    }
    let field = field_words(definition);
    let asked: Vec<String> = field.iter().filter_map(|word| day_of(word)).collect();
    // ("ready by Saturday": an earlier day meets a deadline.)
    let deadline = field
        .iter()
        .any(|word| matches!(word.as_str(), "by" | "before" | "until"));
    if asked.is_empty() || deadline {
        return false;
    }
    // ("After that the next available is Wednesday", "Otherwise…": a
    // further choice, not the first.)
    let opening = sentence.word_lowers().next();
    if matches!(opening, Some("after" | "otherwise")) {
        return false;
    }
    sentence.clause_ids().into_iter().any(|clause| {
        let words: Vec<&str> = clause_text(sentence, clause).split(' ').collect();
        let first_free = words.iter().any(|w| matches!(*w, "earliest" | "soonest"))
            || words
                .windows(2)
                .any(|pair| matches!(pair, ["first" | "next", "available" | "slot" | "opening"]));
        first_free
            && words
                .iter()
                .filter_map(|word| day_of(word))
                .any(|day| !asked.contains(&day))
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::transcript::Transcript;

    fn covered(text: &str) -> Vec<Vec<Weekday>> {
        let parsed = Transcript::parse_text("", &format!("Recipient: {text}"));
        day_mentions(&parsed.sentences[0])
            .into_iter()
            .map(|(_, days)| days.iter().collect())
            .collect()
    }

    #[test]
    fn a_range_of_days_covers_the_days_between() {
        use Weekday::*;
        assert_eq!(
            covered("We're open Tuesday through Saturday."),
            [vec![Tue, Wed, Thu, Fri, Sat]]
        );
        assert_eq!(
            covered("Friday to Monday is the long shift."),
            [vec![Mon, Fri, Sat, Sun]]
        );
        assert_eq!(
            covered("Fridays and Sundays are dearer."),
            [vec![Fri, Sun], vec![Fri, Sun]]
        );
        assert_eq!(covered("Weekends only, I'm afraid."), [vec![Sat, Sun]]);
        assert_eq!(covered("We close at six."), Vec::<Vec<Weekday>>::new());
        assert_eq!(
            covered("Weeknights it's fifty-five, Fridays it's eighty."),
            [vec![Mon, Tue, Wed, Thu], vec![Fri]]
        );
    }

    #[test]
    fn days_said_to_be_excepted_or_closed_cover_the_others() {
        use Weekday::*;
        assert_eq!(
            covered("We're open every day except Mondays."),
            [
                vec![Mon, Tue, Wed, Thu, Fri, Sat, Sun],
                vec![Tue, Wed, Thu, Fri, Sat, Sun]
            ]
        );
        assert_eq!(
            covered("We're closed Mondays."),
            [vec![Tue, Wed, Thu, Fri, Sat, Sun]]
        );
    }
}
