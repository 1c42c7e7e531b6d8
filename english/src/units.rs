//! Units and rates attached to number mentions.

use super::number_words::classify_number_word;
use super::numbers::{NOT_COUNT_NOUNS, NumberMention, word_at};
use super::stem::stem;
use super::tokens::{Token, TokenKind};

/// Unit attached to a number mention.
#[derive(Debug, Clone, PartialEq)]
pub enum Unit {
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
pub enum DurationUnit {
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
    pub fn parse(word: &str) -> Option<DurationUnit> {
        Some(match word {
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
    /// safe conversion (minutes/hours, hours/days, days/weeks, months/years).
    pub fn factor_to(self, to: DurationUnit) -> Option<f64> {
        use DurationUnit::*;
        if self == to {
            return Some(1.0);
        }
        Some(match (self, to) {
            (Hour, Minute) => 60.0,
            (Minute, Hour) => 1.0 / 60.0,
            (Week, Day) => 7.0,
            (Day, Week) => 1.0 / 7.0,
            (Day, Hour) => 24.0,
            (Hour, Day) => 1.0 / 24.0,
            (Year, Month) => 12.0,
            (Month, Year) => 1.0 / 12.0,
            _ => return None,
        })
    }
}

/// Reads the unit after a mention (a word, `%`, or a hyphenated unit) into it.
pub fn attach_unit(toks: &[Token], mention: &mut NumberMention) {
    // Hyphenated unit ("20-litre", "six-pack", "two-hour").
    let hyphen = toks
        .get(mention.end)
        .is_some_and(|t| t.is_punct('-') && !t.space_before);
    let mut unit_idx = if hyphen { mention.end + 1 } else { mention.end };
    // "seven to ten business days", "three working days".
    if matches!(
        word_at(toks, unit_idx),
        Some("business" | "working" | "calendar" | "school")
    ) && word_at(toks, unit_idx + 1).is_some_and(|w| DurationUnit::parse(w).is_some())
    {
        unit_idx += 1;
    }
    let found = match toks.get(unit_idx) {
        Some(t) if t.kind == TokenKind::Percent => {
            mention.unit = Unit::Percent;
            true
        }
        Some(t) if t.is_word() => unit_word(&t.lower, mention),
        _ => false,
    };
    if found {
        mention.end = unit_idx + 1;
    }
    // "nine fifteen in the morning", "eight at night", "ten tomorrow
    // morning".
    let phrase: Vec<&str> = (mention.end..mention.end + 3)
        .filter_map(|i| word_at(toks, i))
        .collect();
    let meridiem = match phrase.as_slice() {
        ["in", "the", "morning", ..] => Some((false, 3)),
        ["in", "the", "afternoon" | "evening", ..] => Some((true, 3)),
        // "eight to ten tomorrow morning", "two this afternoon"
        ["tomorrow" | "this", "morning", ..] => Some((false, 2)),
        ["tomorrow" | "this", "afternoon" | "evening", ..] => Some((true, 2)),
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
        && matches!(mention.unit, Unit::None | Unit::Clock)
        && mention.value <= 12.0
    {
        mention.unit = Unit::Clock;
        mention.pm = Some(pm);
        mention.end += len;
    }
    attach_rate(toks, mention);
}

/// Reads the rate after a mention into it: "a head", "per person", "an
/// hour", "each".
pub fn attach_rate(toks: &[Token], mention: &mut NumberMention) {
    let k = mention.end;
    match word_at(toks, k) {
        Some("a" | "an" | "per" | "every") => {
            // ("thirty-four a dozen" is per dozen.)
            // ("two fifty a pound" is per pound of weight.)
            if let Some(noun) = word_at(toks, k + 1)
                && (!NOT_COUNT_NOUNS.contains(&noun) || noun == "pound")
                && (classify_number_word(noun).is_none() || noun == "dozen")
            {
                mention.per = Some(stem(noun));
                mention.end = k + 2;
            }
        }
        Some("each" | "apiece") => {
            mention.per = Some("each".into());
            mention.end = k + 1;
        }
        _ => {}
    }
}

/// Whether `word` (lower case) names a currency after a figure ("fifty
/// dollars", "three hundred fifty rupees", "two thousand rand"): one list
/// for every reader of amounts. Not "pound" (also a weight), "cent" or
/// "pence" (fractions), nor names that are common words after a number
/// ("real", "won").
pub fn is_currency_word(word: &str) -> bool {
    matches!(
        word,
        "dollar"
            | "dollars"
            | "buck"
            | "bucks"
            | "usd"
            | "euro"
            | "euros"
            | "quid"
            | "rupee"
            | "rupees"
            | "rand"
            | "rands"
            | "yen"
            | "yuan"
            | "renminbi"
            | "peso"
            | "pesos"
            | "franc"
            | "francs"
            | "krona"
            | "kronor"
            | "krone"
            | "kroner"
            | "dirham"
            | "dirhams"
            | "dinar"
            | "dinars"
            | "ringgit"
            | "baht"
            | "naira"
            | "shilling"
            | "shillings"
            | "zloty"
            | "zlotys"
            | "lira"
            | "riyal"
            | "riyals"
            | "rial"
            | "rials"
            | "shekel"
            | "shekels"
            | "forint"
            | "koruna"
            | "ruble"
            | "rubles"
            | "rouble"
            | "roubles"
            | "rupiah"
            | "cedi"
            | "cedis"
            | "kwacha"
            | "taka"
    )
}

/// Applies a unit word to `m`; returns whether the word was consumed.
pub fn unit_word(word: &str, mention: &mut NumberMention) -> bool {
    match word {
        currency if is_currency_word(currency) => mention.unit = Unit::Money,
        "cent" | "cents" => {
            if mention.unit != Unit::Money {
                mention.value /= 100.0;
                mention.alt = None;
            }
            mention.unit = Unit::Money;
        }
        "pound" | "pounds" | "lb" | "lbs" => {
            if mention.unit != Unit::Money {
                mention.unit = Unit::Pound;
            }
        }
        "kilo" | "kilos" | "kg" | "kgs" | "kilograms" | "kilogram" => mention.unit = Unit::Weight,
        "percent" => mention.unit = Unit::Percent,
        "am" | "pm" => {
            mention.unit = Unit::Clock;
            mention.pm = Some(word == "pm");
        }
        "o'clock" | "oclock" => mention.unit = Unit::Clock,
        _ => {
            if let Some(d) = DurationUnit::parse(word) {
                if mention.unit != Unit::Money {
                    mention.unit = Unit::Duration(d);
                }
            } else if mention.unit == Unit::None
                && !NOT_COUNT_NOUNS.contains(&word)
                && classify_number_word(word).is_none()
                && word.chars().all(|c| c.is_alphabetic() || c == '\'')
            {
                mention.unit = Unit::Count(stem(word));
            } else {
                return false;
            }
        }
    }
    true
}
