use super::number_words::classify_number_word;
use super::numbers::{NOT_COUNT_NOUNS, NumberMention, word_at};
use super::stem::stem;
use super::tokens::{Token, TokenKind};

/// Unit attached to a number mention.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum Unit {
    /// Nothing recognisable.
    None,
    /// Dollars, bucks, `$`, `€`, cents.
    Money,
    /// "pounds": weight or sterling.
    Pound,
    /// kilograms.
    Weight,
    /// percent.
    Percent,
    /// A duration, in minutes per unit (minute = 1, hour = 60, ...).
    Duration(DurationUnit),
    /// Clock time (am/pm/o'clock).
    Clock,
    /// Any other noun after the number ("3 boxes", "six-pack"), stemmed.
    Count(String),
}

/// Duration units.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum DurationUnit {
    /// minutes
    Minute,
    /// hours
    Hour,
    /// days (and nights)
    Day,
    /// weeks
    Week,
    /// months
    Month,
    /// years
    Year,
}

impl DurationUnit {
    /// Parses a (lower-case) unit word.
    pub(crate) fn parse(w: &str) -> Option<DurationUnit> {
        Some(match w {
            "minute" | "minutes" | "min" | "mins" => DurationUnit::Minute,
            "hour" | "hours" | "hr" | "hrs" => DurationUnit::Hour,
            "day" | "days" | "night" | "nights" => DurationUnit::Day,
            "week" | "weeks" => DurationUnit::Week,
            "month" | "months" => DurationUnit::Month,
            "year" | "years" | "yr" | "yrs" => DurationUnit::Year,
            _ => return None,
        })
    }

    /// Factor to convert an amount in `self` into `to`, when the pair is a
    /// safe conversion (minutes/hours, days/weeks, months/years).
    pub(crate) fn factor_to(self, to: DurationUnit) -> Option<f64> {
        use DurationUnit::*;
        if self == to {
            return Some(1.0);
        }
        Some(match (self, to) {
            (Hour, Minute) => 60.0,
            (Minute, Hour) => 1.0 / 60.0,
            (Week, Day) => 7.0,
            (Day, Week) => 1.0 / 7.0,
            (Year, Month) => 12.0,
            (Month, Year) => 1.0 / 12.0,
            _ => return None,
        })
    }
}

/// Reads the unit after a mention (a word, `%`, or a hyphenated unit) into it.
pub(super) fn attach_unit(toks: &[Token], m: &mut NumberMention) {
    // Hyphenated unit ("20-litre", "six-pack", "two-hour").
    let hyphen = toks
        .get(m.end)
        .is_some_and(|t| t.is_punct('-') && !t.space_before);
    let unit_idx = if hyphen { m.end + 1 } else { m.end };
    let found = match toks.get(unit_idx) {
        Some(t) if t.kind == TokenKind::Percent => {
            m.unit = Unit::Percent;
            true
        }
        Some(t) if t.is_word() => unit_word(&t.lower, m),
        _ => false,
    };
    if found {
        m.end = unit_idx + 1;
    }
    // "nine fifteen in the morning", "eight at night".
    let phrase: Vec<&str> = (m.end..m.end + 3)
        .filter_map(|i| word_at(toks, i))
        .collect();
    let meridiem = match phrase.as_slice() {
        ["in", "the", "morning", ..] => Some((false, 3)),
        ["in", "the", "afternoon" | "evening", ..] => Some((true, 3)),
        ["at", "night", ..] | ["tonight", ..] => Some((
            true,
            phrase
                .iter()
                .position(|w| *w == "night" || *w == "tonight")
                .map_or(1, |p| p + 1),
        )),
        _ => None,
    };
    if let Some((pm, len)) = meridiem
        && matches!(m.unit, Unit::None | Unit::Clock)
        && m.value <= 12.0
    {
        m.unit = Unit::Clock;
        m.pm = Some(pm);
        m.end += len;
    }
    let k = m.end;
    // Rate: "a head", "per person", "an hour", "each".
    match word_at(toks, k) {
        Some("a" | "an" | "per" | "every") => {
            if let Some(noun) = word_at(toks, k + 1)
                && !NOT_COUNT_NOUNS.contains(&noun)
                && classify_number_word(noun).is_none()
            {
                m.per = Some(stem(noun));
                m.end = k + 2;
            }
        }
        Some("each" | "apiece") => {
            m.per = Some("each".into());
            m.end = k + 1;
        }
        _ => {}
    }
}

/// Applies a unit word to `m`; returns whether the word was consumed.
fn unit_word(w: &str, m: &mut NumberMention) -> bool {
    match w {
        "dollar" | "dollars" | "buck" | "bucks" | "usd" | "euro" | "euros" => m.unit = Unit::Money,
        "cent" | "cents" => {
            if m.unit != Unit::Money {
                m.value /= 100.0;
                m.alt = None;
            }
            m.unit = Unit::Money;
        }
        "pound" | "pounds" | "lb" | "lbs" => {
            if m.unit != Unit::Money {
                m.unit = Unit::Pound;
            }
        }
        "kilo" | "kilos" | "kg" | "kgs" | "kilograms" | "kilogram" => m.unit = Unit::Weight,
        "percent" => m.unit = Unit::Percent,
        "am" | "pm" => {
            m.unit = Unit::Clock;
            m.pm = Some(w == "pm");
        }
        "o'clock" | "oclock" => m.unit = Unit::Clock,
        _ => {
            if let Some(d) = DurationUnit::parse(w) {
                if m.unit != Unit::Money {
                    m.unit = Unit::Duration(d);
                }
            } else if m.unit == Unit::None
                && !NOT_COUNT_NOUNS.contains(&w)
                && classify_number_word(w).is_none()
                && w.chars().all(|c| c.is_alphabetic() || c == '\'')
            {
                m.unit = Unit::Count(stem(w));
            } else {
                return false;
            }
        }
    }
    true
}
