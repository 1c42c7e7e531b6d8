//! Days of the week a field names and a sentence speaks of, as sets:
//! "Tuesday through Saturday" covers five days, "weekends" two. A field
//! about one day ("open on Sundays", "Saturday hire fee") is answered
//! only by what is said of a set of days that includes it: "We're only
//! open Tuesday through Saturday" says no for Sunday, and "Fridays and
//! Sundays are six thousand two hundred" is no Saturday price.

use super::profile::FieldProfile;
use super::transcript::Sentence;
use crate::extract::text::identifier::field_words;
use crate::extract::text::vocabulary;

/// A set of days of the week, Monday as bit 0.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) struct Days(u8);

impl Days {
    const WEEKDAYS: Days = Days(0b001_1111);
    const WEEKEND: Days = Days(0b110_0000);

    fn day(word: &str) -> Option<Days> {
        let name = vocabulary::weekday(word)?;
        let index = [
            "Monday",
            "Tuesday",
            "Wednesday",
            "Thursday",
            "Friday",
            "Saturday",
            "Sunday",
        ]
        .iter()
        .position(|d| *d == name)?;
        Some(Days(1 << index))
    }

    /// The days from `self` to `last`, both single days, wrapping past
    /// Sunday ("Friday to Monday").
    fn through(self, last: Days) -> Days {
        let (from, to) = (self.0.trailing_zeros(), last.0.trailing_zeros());
        let mut covered = 0u8;
        let mut day = from;
        loop {
            covered |= 1 << day;
            if day == to {
                break;
            }
            day = (day + 1) % 7;
        }
        Days(covered)
    }

    pub(super) fn includes(self, other: Days) -> bool {
        self.0 & other.0 == other.0
    }
}

/// The one day of the week the field names ("open_sunday", "Saturday
/// hire fee"), if it names exactly one.
pub(super) fn field_day(profile: &FieldProfile) -> Option<Days> {
    let mut found: Option<Days> = None;
    for word in field_words(profile.definition) {
        if let Some(day) = Days::day(&word) {
            match found {
                Some(seen) if seen != day => return None,
                _ => found = Some(day),
            }
        }
    }
    found
}

/// Each mention of days in `sentence`: the token it starts at and the
/// days it covers ("Tuesday through Saturday", "weekdays", "Sundays").
pub(super) fn day_mentions(sentence: &Sentence) -> Vec<(usize, Days)> {
    let tokens = &sentence.tokens;
    let word = |i: usize| {
        tokens
            .get(i)
            .filter(|t| t.is_word())
            .map(|t| t.lower.as_str())
    };
    let mut mentions = Vec::new();
    let mut i = 0;
    while i < tokens.len() {
        let Some(w) = word(i) else {
            i += 1;
            continue;
        };
        if let Some(first) = Days::day(w) {
            // "Tuesday through Saturday", "Monday to Friday", "Mon-Fri".
            let joined = tokens.get(i + 1).is_some_and(|t| t.is_punct('-'))
                || matches!(
                    word(i + 1),
                    Some("through" | "thru" | "to" | "till" | "until")
                );
            if joined && let Some(last) = word(i + 2).and_then(Days::day) {
                mentions.push((i, first.through(last)));
                i += 3;
                continue;
            }
            mentions.push((i, first));
        } else if matches!(w, "weekday" | "weekdays" | "weeknight" | "weeknights") {
            mentions.push((i, Days::WEEKDAYS));
        } else if matches!(w, "weekend" | "weekends") {
            mentions.push((i, Days::WEEKEND));
        }
        i += 1;
    }
    mentions
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::extract::offline::transcript::Transcript;

    fn covered(text: &str) -> Vec<u8> {
        let parsed = Transcript::parse("", &format!("Recipient: {text}"));
        day_mentions(&parsed.sentences[0])
            .into_iter()
            .map(|(_, days)| days.0)
            .collect()
    }

    #[test]
    fn a_range_of_days_covers_the_days_between() {
        assert_eq!(
            covered("We're open Tuesday through Saturday."),
            [0b011_1110]
        );
        assert_eq!(covered("Friday to Monday is the long shift."), [0b111_0001]);
        assert_eq!(
            covered("Fridays and Sundays are dearer."),
            [0b001_0000, 0b100_0000]
        );
        assert_eq!(covered("Weekends only, I'm afraid."), [0b110_0000]);
        assert_eq!(covered("We close at six."), Vec::<u8>::new());
    }
}
