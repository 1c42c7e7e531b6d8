//! Lengths and times of day said in words: "an hour and a half", "half an
//! hour", "an hour", "a fortnight", "quarter past ten", "half eight",
//! "twenty to eleven".

use super::number_words::{NumberWord, classify_number_word};
use super::numbers::{NumberMention, simple_mention, word_at};
use super::tokens::{Token, TokenKind};
use super::units::{self, DurationUnit, Unit};

/// "an hour and a half" (1.5 hours) or "half an hour" / "half a day" (0.5)
/// at token `j`.
pub fn unit_fraction(toks: &[Token], j: usize) -> Option<NumberMention> {
    // "Hour and a half.", "Inch and a half, roughly.": the article dropped
    // at the start of what is said ("An hour, hour and a half" gives two).
    let opens_clause = toks[..j.min(toks.len())].iter().all(|t| !t.is_word());
    let (value, unit_at, end) = match word_at(toks, j)? {
        "a" | "an" if word_at(toks, j + 2) == Some("and") => {
            let (fraction, length) = fraction_at(toks, j + 3)?;
            (1.0 + fraction, j + 1, j + 3 + length)
        }
        unit if opens_clause
            && word_at(toks, j + 1) == Some("and")
            && (DurationUnit::parse(unit).is_some() || MEASURES.contains(&unit)) =>
        {
            let (fraction, length) = fraction_at(toks, j + 2)?;
            (1.0 + fraction, j, j + 2 + length)
        }
        "half" if matches!(word_at(toks, j + 1), Some("a" | "an")) => (0.5, j + 2, j + 3),
        // "a quarter of an hour", "three-quarters of an hour"
        _ => {
            let (fraction, length) = fraction_at(toks, j).filter(|&(f, _)| f != 0.5)?;
            let of = j + length;
            if word_at(toks, of) != Some("of") || !matches!(word_at(toks, of + 1), Some("a" | "an"))
            {
                return None;
            }
            (fraction, of + 2, of + 3)
        }
    };
    let unit_word = word_at(toks, unit_at)?;
    let mut m = simple_mention(j, end, value);
    if let Some(unit) = DurationUnit::parse(unit_word) {
        m.unit = Unit::Duration(unit);
    } else if value < 1.0 || !(MEASURES.contains(&unit_word) && units::unit_word(unit_word, &mut m))
    {
        // (Only one and a half of a measure: "a quarter of a mile" is
        // left to the words around it.)
        return None;
    }
    Some(m)
}

/// Units of measure said like units of time ("an inch and a half", "a
/// mile and a half").
const MEASURES: &[&str] = &[
    "inch", "foot", "mile", "yard", "metre", "meter", "kilo", "litre", "liter", "gallon", "ton",
    "tonne", "cup", "pint", "acre",
];

/// "an hour", "a week" at token `j`: one unit of time, when nothing before
/// it makes it a rate or a frequency ("forty an hour", "twice a week") and
/// nothing after it a range ("a day or two"). A minute is never counted
/// ("give me a minute").
pub fn one_unit_of_time(toks: &[Token], j: usize) -> Option<NumberMention> {
    if !matches!(word_at(toks, j)?, "a" | "an") {
        return None;
    }
    // "a fortnight" is two weeks.
    if word_at(toks, j + 1)? == "fortnight" {
        let mut m = simple_mention(j, j + 2, 2.0);
        m.unit = Unit::Duration(DurationUnit::Week);
        return Some(m);
    }
    let unit = match word_at(toks, j + 1)? {
        "hour" => DurationUnit::Hour,
        "day" => DurationUnit::Day,
        "week" => DurationUnit::Week,
        "month" => DurationUnit::Month,
        "year" => DurationUnit::Year,
        _ => return None,
    };
    let before = j.checked_sub(1).and_then(|at| toks.get(at));
    // "three meals a day", "a fiver a day": an amount just before, in the
    // same clause.
    let clause_start = toks[..j]
        .iter()
        .rposition(|t| t.is_punct(',') || t.is_punct('.'))
        .map_or(0, |at| at + 1);
    let amount_before = toks[j.saturating_sub(5).max(clause_start)..j]
        .iter()
        .any(|t| {
            t.kind == TokenKind::Num
                || matches!(t.kind, TokenKind::Currency(_))
                || classify_number_word(&t.lower).is_some()
                || matches!(t.lower.as_str(), "fiver" | "tenner")
        });
    // "An hour, hour and a half": one of two amounts.
    let another_after = toks.get(j + 2).is_some_and(|t| t.is_punct(','))
        && word_at(toks, j + 3)
            .is_some_and(|w| classify_number_word(w).is_some() || DurationUnit::parse(w).is_some());
    // Only as an answer says it: at the start, or after a word that
    // introduces a length ("about a week", "it takes an hour"), and not
    // as part of a date, an age or a delay ("a week Friday", "a year old",
    // "a week behind", "a year past its warranty").
    let introduced = before.is_none_or(|t| {
        t.is_punct(',')
            || matches!(
                t.lower.as_str(),
                "about"
                    | "around"
                    | "roughly"
                    | "approximately"
                    | "under"
                    | "over"
                    | "nearly"
                    | "almost"
                    | "it's"
                    | "its"
                    | "takes"
                    | "take"
                    | "is"
                    | "be"
                    | "within"
                    | "in"
                    | "just"
                    | "only"
                    | "usually"
                    | "normally"
                    | "typically"
                    | "generally"
                    | "allow"
                    | "least"
                    | "minimum"
                    | "maximum"
                    | "max"
                    | "min"
                    | "lasts"
                    | "last"
                    | "runs"
                    | "for"
                    | "us"
                    | "me"
                    | "them"
                    | "you"
            )
    });
    let denied = toks[j.saturating_sub(3)..j]
        .iter()
        .any(|t| t.lower.ends_with("n't") || t.lower == "not" || t.lower == "never");
    let qualified_after = word_at(toks, j + 2).is_some_and(|w| {
        matches!(
            w,
            "past" | "behind" | "ago" | "old" | "late" | "early" | "off" | "at" | "or"
        ) || crate::vocabulary::weekday(w).is_some()
    });
    let rate_or_frequency = amount_before
        || another_after
        || !introduced
        || denied
        || qualified_after
        || before.is_some_and(|t| {
            matches!(
                t.lower.as_str(),
                "once"
                    | "twice"
                    | "times"
                    | "per"
                    | "every"
                    | "each"
                    | "pounds"
                    | "grand"
                    | "cents"
                    | "than"
                    | "what"
                    | "good"
                    | "after"
            ) || crate::units::is_currency_word(&t.lower)
        });
    if rate_or_frequency || matches!(word_at(toks, j + 2), Some("or" | "to")) {
        return None;
    }
    let mut m = simple_mention(j, j + 2, 1.0);
    m.unit = Unit::Duration(unit);
    Some(m)
}

/// "a half", "a quarter", "three quarters" ("three-quarters") at token `j`:
/// the fraction and how many tokens it takes.
pub fn fraction_at(toks: &[Token], j: usize) -> Option<(f64, usize)> {
    match (word_at(toks, j)?, word_at(toks, j + 1)) {
        ("a", Some("half")) => Some((0.5, 2)),
        ("a", Some("quarter")) => Some((0.25, 2)),
        ("three", Some("quarters")) => Some((0.75, 2)),
        ("three", _)
            if toks.get(j + 1).is_some_and(|t| t.is_punct('-'))
                && word_at(toks, j + 2) == Some("quarters") =>
        {
            Some((0.75, 3))
        }
        _ => None,
    }
}

/// "quarter past ten" (10:15), "half past two" (2:30), "quarter to
/// eleven" (10:45) at token `j`: a clock time.
pub fn spoken_clock(toks: &[Token], j: usize) -> Option<NumberMention> {
    let fraction = word_at(toks, j)?;
    let relation = word_at(toks, j + 1)?;
    // "half eight" is half past eight.
    if fraction == "half"
        && let Some(NumberWord::Unit(hour) | NumberWord::Teen(hour)) =
            classify_number_word(relation)
        && (1..=12).contains(&hour)
        && word_at(toks, j + 2)
            .and_then(classify_number_word)
            .is_none()
    {
        let mut m = simple_mention(j, j + 2, f64::from(hour) + 0.5);
        m.unit = Unit::Clock;
        m.clock = Some((hour, 30));
        return Some(m);
    }
    let minutes_past: i32 = match (fraction, relation) {
        ("quarter", "past" | "after") => 15,
        ("half", "past" | "after") => 30,
        ("quarter", "to" | "till" | "of") => -15,
        // "ten past four", "twenty to eleven" (not "five to ten", a range).
        ("five", "past" | "after") => 5,
        ("ten", "past" | "after") => 10,
        ("twenty", "past" | "after") => 20,
        ("five", "to" | "till") => -5,
        ("ten", "to" | "till") => -10,
        ("twenty", "to" | "till") => -20,
        _ => return None,
    };
    let hour = match toks.get(j + 2)? {
        t if t.kind == TokenKind::Num => t.text.parse::<u32>().ok()?,
        t if t.is_word() => match classify_number_word(&t.lower)? {
            NumberWord::Unit(v) | NumberWord::Teen(v) => v,
            _ => return None,
        },
        _ => return None,
    };
    // "a quarter to nine hundred" is no time.
    if !(1..=12).contains(&hour)
        || word_at(toks, j + 3)
            .and_then(classify_number_word)
            .is_some()
    {
        return None;
    }
    // "Five to ten" counts from five to ten; "ten to four" is 3:50.
    if minutes_past < 0 && minutes_past != -15 && hour >= minutes_past.unsigned_abs() {
        return None;
    }
    let (h, mm) = if minutes_past < 0 {
        (
            if hour == 1 { 12 } else { hour - 1 },
            (60 + minutes_past) as u32,
        )
    } else {
        (hour, minutes_past as u32)
    };
    let mut m = simple_mention(j, j + 3, f64::from(h) + f64::from(mm) / 60.0);
    m.unit = Unit::Clock;
    m.clock = Some((h, mm));
    Some(m)
}
