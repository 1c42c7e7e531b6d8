//! Number mentions in a token list: spoken or written, with ranges,
//! digit-by-digit readings and alternative readings.

use super::number_pairs::{mark_ranges, merge_dollars_cents, share_durations};
use super::number_words::{NumberWord, classify_number_word, interpret};
use super::spoken_time::{fraction_at, one_unit_of_time, spoken_clock, unit_fraction};
use super::tokens::{Token, TokenKind};
use super::units::{DurationUnit, Unit, attach_rate, attach_unit};

/// A number found in a token list.
#[derive(Debug, Clone)]
pub struct NumberMention {
    /// First token index.
    pub start: usize,
    /// One past the last token index (including any unit words).
    pub end: usize,
    /// Default reading.
    pub value: f64,
    /// The other reading of an ambiguous spoken amount ("sixteen twenty":
    /// 14.50 vs 1450).
    pub alt: Option<f64>,
    /// Digit-by-digit reading, for codes and house numbers ("three fourteen" → "314").
    pub digits: Option<String>,
    /// Spoken as two groups that read as a clock time ("seven-thirty").
    pub clock: Option<(u32, u32)>,
    /// An ordinal ("third", "12th").
    pub ordinal: bool,
    /// Unit after (or currency before) the number.
    pub unit: Unit,
    /// Stem of a "per X" / "a X" / "each" rate noun.
    pub per: Option<String>,
    /// am/pm marker: Some(true) for pm.
    pub pm: Option<bool>,
    /// Preceded by a time preposition ("at", "around", "by").
    pub after_time_prep: bool,
    /// Index (into the same list) of the other end of a range.
    pub range_with: Option<usize>,
    /// Whether the mention was written with digits.
    pub written: bool,
}

/// Words that never act as the counted noun after a number.
#[rustfmt::skip]
pub const NOT_COUNT_NOUNS: &[&str] = &[
    "a", "an", "the", "and", "or", "to", "for", "of", "in", "on", "at", "by", "with", "from", "up", "off",
    "more", "less", "extra", "other", "additional", "total", "even", "flat", "tops", "max", "min", "minimum",
    "maximum", "now", "then", "so", "but", "plus", "before", "after", "ago", "is", "are", "was", "were",
    "be", "it", "that", "this", "these", "those", "if", "as", "than", "till", "until", "each", "apiece", "per",
    "every", "again", "too", "please", "right", "okay", "ok", "yeah", "yes", "no", "not", "just", "only",
    "about", "around", "or so", "give", "maybe", "probably", "i", "we", "you", "he", "she", "they", "me",
    "us", "him", "her", "them", "my", "your", "our", "their", "his", "its", "what", "which", "when", "where",
    "how", "who", "why", "there", "here", "today", "tomorrow", "tonight", "ish", "sharp", "even", "straight",
    "down", "out", "into", "through", "both", "installed", "included", "all", "pound", "key", "am", "pm",
    "thirty", "later", "earlier", "sounds", "works", "would", "will", "can", "could", "should", "did", "do",
    "does", "has", "have", "had", "got", "gets", "get", "'s", "isn't", "aren't", "with", "without",
    "instead", "either", "people's", "guys'",
    // What an amount is, not what it counts: "six fifty remaining",
    // "ninety-five including the heel".
    "remaining", "outstanding", "owing", "due", "including",
];

/// Whether "one" between these words is a pronoun, not a number.
fn one_is_pronoun(prev: Option<&str>, next: Option<&str>) -> bool {
    let det = matches!(
        prev,
        Some(
            "this"
                | "that"
                | "the"
                | "which"
                | "each"
                | "every"
                | "any"
                | "either"
                | "neither"
                | "another"
                | "no"
                | "some"
                | "a"
                | "big"
                | "little"
                | "small"
                | "round"
                | "new"
                | "old"
                | "other"
                | "last"
                | "next"
                | "only"
                | "good"
                | "blue"
                | "red"
                | "black"
                | "white"
                | "silver"
                | "right"
                | "wrong"
                | "same"
                | "first"
                | "one"
                | "better"
                | "cheaper"
                | "bigger"
                | "smaller"
                | "nice"
                | "main"
        )
    );
    let pron_next = matches!(
        next,
        Some(
            "of" | "sec"
                | "second"
                | "moment"
                | "minute"
                | "thing"
                | "day"
                | "more"
                | "another"
                | "way"
        )
    );
    // "set one up", "send one out": the object of a phrasal verb, a thing
    // and not a quantity (while "we have one on the ground floor" counts).
    let phrasal = matches!(
        prev,
        Some(
            "have"
                | "has"
                | "had"
                | "got"
                | "get"
                | "set"
                | "bring"
                | "send"
                | "pick"
                | "put"
                | "take"
                | "grab"
                | "order"
                | "find"
                | "book"
        )
    ) && matches!(next, Some("up" | "off" | "out" | "back" | "down" | "over"));
    det || pron_next || phrasal
}

/// Whether the words just before token `one` are a determiner and one or
/// two modifiers ("an easy one", "the really old one", "your cheapest
/// one"): a noun phrase whose head is "one", the pronoun. Number words
/// between break it ("a hundred and one").
fn follows_determiner(toks: &[Token], one: usize) -> bool {
    const DETERMINERS: [&str; 14] = [
        "a", "an", "the", "this", "that", "which", "each", "every", "another", "your", "my", "our",
        "his", "her",
    ];
    (2..=3).any(|back| {
        one >= back
            && word_at(toks, one - back).is_some_and(|w| DETERMINERS.contains(&w))
            && (one - back + 1..one).all(|i| {
                word_at(toks, i).is_some_and(|w| classify_number_word(w).is_none() && w != "and")
            })
    })
}

/// Finds number mentions in a token list.
pub fn find_numbers(toks: &[Token]) -> Vec<NumberMention> {
    let mut out: Vec<NumberMention> = Vec::new();
    let mut i = 0;
    while i < toks.len() {
        if let Some(m) = parse_at(toks, i) {
            i = m.end.max(i + 1);
            out.push(m);
        } else {
            i += 1;
        }
    }
    merge_dollars_cents(&mut out, toks);
    mark_ranges(&mut out, toks);
    share_durations(&mut out, toks);
    out
}

/// The lower-case word at token `i`, if it is a word.
pub fn word_at(toks: &[Token], position: usize) -> Option<&str> {
    toks.get(position)
        .filter(|t| t.is_word())
        .map(|t| t.lower.as_str())
}

/// "a pound eighty", "a dollar fifty", "a buck twenty" at token `j`: one
/// whole unit of money and the cents after it (1.80).
fn one_unit_and_cents(toks: &[Token], j: usize) -> Option<NumberMention> {
    if word_at(toks, j)? != "a"
        || !matches!(
            word_at(toks, j + 1)?,
            "pound" | "dollar" | "buck" | "quid" | "euro"
        )
    {
        return None;
    }
    let cents = parse_words(toks, j + 2)?;
    let whole_cents =
        cents.alt.is_none() && cents.value.fract() == 0.0 && (10.0..=99.0).contains(&cents.value);
    if !whole_cents {
        return None;
    }
    let mut m = simple_mention(j, cents.end, 1.0 + cents.value / 100.0);
    m.unit = Unit::Money;
    Some(m)
}

/// Parses a number starting exactly at token `i`.
fn parse_at(toks: &[Token], position: usize) -> Option<NumberMention> {
    let tok = toks.get(position)?;
    let mut currency = false;
    let mut start = position;
    let mut j = position;
    if let TokenKind::Currency(_) = tok.kind {
        let next = toks.get(position + 1)?;
        if next.kind != TokenKind::Num
            && !(next.is_word() && classify_number_word(&next.lower).is_some())
        {
            return None;
        }
        currency = true;
        j = position + 1;
    }
    if !currency
        && let Some(v) = word_at(toks, j).and_then(|w| match w {
            "noon" | "midday" => Some(12.0),
            "midnight" => Some(0.0),
            _ => None,
        })
    {
        let mut m = simple_mention(j, j + 1, v);
        m.unit = Unit::Clock;
        m.pm = Some(v == 12.0);
        m.clock = Some((v as u32, 0));
        return Some(m);
    }
    if !currency && let Some(m) = one_unit_and_cents(toks, j) {
        return Some(m);
    }
    if !currency && let Some(m) = spoken_clock(toks, j) {
        return Some(m);
    }
    // "an hour and a half", "half a day": a fraction of one unit of time.
    if !currency && let Some(mut m) = unit_fraction(toks, j) {
        // "an hour and a half each"
        attach_rate(toks, &mut m);
        return Some(m);
    }
    if !currency && let Some(m) = one_unit_of_time(toks, j) {
        return Some(m);
    }
    let mut m = match toks.get(j)?.kind {
        TokenKind::Num => parse_digits(toks, j)?,
        TokenKind::Word => {
            // A capitalised number word inside a name ("Platform Nine") is not a quantity.
            let in_name = toks.get(j).is_some_and(Token::is_capitalized)
                && j > 0
                && toks
                    .get(j - 1)
                    .is_some_and(|p| p.is_word() && p.is_capitalized())
                && j > 1;
            if in_name {
                return None;
            }
            parse_words(toks, j)?
        }
        _ => return None,
    };
    if currency {
        m.unit = Unit::Money;
        start = position;
    }
    m.start = start;
    let prev = if start > 0 {
        word_at(toks, start - 1)
    } else {
        None
    };
    // "You're looking at fourteen fifty": an amount a price is at, not a
    // time ("it would be at ten" is one; so is "you're at ten thirty").
    let clock_hour = m.clock.is_some_and(|(hour, _)| hour <= 12);
    let price_at = prev == Some("at")
        && start >= 2
        && match word_at(toks, start - 2) {
            Some("looking" | "look" | "looks" | "priced") => true,
            Some("you're" | "you'd") => !clock_hour,
            _ => false,
        }
        // "With that you'd be at seven twenty."
        || (prev == Some("at")
            && start >= 3
            && word_at(toks, start - 2) == Some("be")
            && matches!(word_at(toks, start - 3), Some("you'd" | "you'll")));
    m.after_time_prep = !price_at
        && matches!(
            prev,
            Some(
                "at" | "around"
                    | "by"
                    | "till"
                    | "til"
                    | "until"
                    | "from"
                    | "before"
                    | "after"
                    | "since"
            )
        );
    attach_unit(toks, &mut m);
    Some(m)
}

/// Parses a number written with digits at token `j`.
fn parse_digits(toks: &[Token], start: usize) -> Option<NumberMention> {
    let tok = toks.get(start)?;
    let text = &tok.text;
    let mut clock = None;
    let value = if let Some((h, mm)) = text.split_once(':') {
        let h: u32 = h.parse().ok()?;
        let mm: u32 = mm.parse().ok()?;
        if h > 24 || mm > 59 {
            return None;
        }
        clock = Some((h, mm));
        f64::from(h) + f64::from(mm) / 60.0
    } else {
        parse_digit_string(text)?
    };
    let digits = text
        .chars()
        .all(|c| c.is_ascii_digit())
        .then(|| text.clone());
    Some(NumberMention {
        start,
        end: start + 1,
        value,
        alt: None,
        digits,
        clock,
        ordinal: tok.ordinal,
        unit: Unit::None,
        per: None,
        pm: None,
        after_time_prep: false,
        range_with: None,
        written: true,
    })
}

/// Parses "1,350", "1350.00", "12.5" (commas as thousands separators).
fn parse_digit_string(text: &str) -> Option<f64> {
    let parts: Vec<&str> = text.split(',').collect();
    if parts.len() > 1 {
        // Every group after the first must have exactly three digits.
        let ok = parts.iter().skip(1).enumerate().all(|(k, p)| {
            let digits = if k + 2 == parts.len() {
                p.split('.').next().unwrap_or("")
            } else {
                p
            };
            digits.len() == 3 && digits.chars().all(|c| c.is_ascii_digit())
        });
        if !ok {
            return None;
        }
    }
    let cleaned: String = text.chars().filter(|c| *c != ',').collect();
    if cleaned.matches('.').count() > 1 {
        return None;
    }
    let v: f64 = cleaned.parse().ok()?;
    v.is_finite().then_some(v)
}

/// Parses a run of number words starting at `j`.
fn parse_words(toks: &[Token], start: usize) -> Option<NumberMention> {
    let mut k = start;
    let mut elems: Vec<NumberWord> = Vec::new();
    let mut fraction = 0.0;
    let mut leading_a = false;
    // "a hundred", "a dozen", "an hour"… only the first two are numbers.
    if matches!(word_at(toks, k), Some("a" | "an")) {
        match word_at(toks, k + 1).and_then(classify_number_word) {
            Some(NumberWord::Hundred | NumberWord::Thousand | NumberWord::Dozen) => {
                leading_a = true;
                k += 1;
            }
            _ if word_at(toks, k + 1) == Some("couple") => k += 1,
            _ => return None,
        }
    }
    // "a couple hundred", "a couple of thousand": two of them.
    if word_at(toks, k) == Some("couple") {
        let of = usize::from(word_at(toks, k + 1) == Some("of"));
        let value = match word_at(toks, k + 1 + of) {
            Some("hundred") => 200.0,
            Some("thousand" | "grand") => 2000.0,
            _ => return None,
        };
        return Some(simple_mention(start, k + 2 + of, value));
    }
    // "once a day", "twice a week"
    let frequency = matches!(
        word_at(toks, k + 1),
        Some("a" | "an" | "per" | "every" | "each")
    );
    if let Some(v) = word_at(toks, k).and_then(|w| match w {
        "once" => Some(1.0),
        "twice" => Some(2.0),
        "thrice" => Some(3.0),
        _ => None,
    }) && !leading_a
        && frequency
    {
        let mut m = simple_mention(start, k + 1, v);
        m.unit = Unit::Count("time".into());
        return Some(m);
    }
    // "half a dozen"
    if word_at(toks, k) == Some("half")
        && matches!(word_at(toks, k + 1), Some("a"))
        && word_at(toks, k + 2) == Some("dozen")
    {
        return Some(simple_mention(start, k + 3, 6.0));
    }
    while let Some(w) = word_at(toks, k) {
        let nw = match classify_number_word(w) {
            Some(nw) => nw,
            // "oh" is a zero digit only between number words ("four-oh-nine").
            None if matches!(w, "oh" | "o")
                && !elems.is_empty()
                && number_word_follows(toks, k + 1) =>
            {
                NumberWord::Zero
            }
            None => break,
        };
        // "second" is usually time ("one sec"); keep it only after tens ("twenty-second").
        if nw == NumberWord::Ordinal(2) && !matches!(elems.last(), Some(NumberWord::Tens(_))) {
            break;
        }
        elems.push(nw);
        k += 1;
        if matches!(nw, NumberWord::Ordinal(_)) {
            break;
        }
        // A hyphen joins number words ("twenty-five", "two-one-two").
        if toks
            .get(k)
            .is_some_and(|t| t.is_punct('-') && !t.space_before)
            && word_at(toks, k + 1)
                .is_some_and(|w| classify_number_word(w).is_some() || matches!(w, "oh" | "o"))
        {
            k += 1;
            continue;
        }
        if word_at(toks, k) == Some("and") {
            // "two and a half", "two and a quarter", "two and three-quarters"
            if let Some((part, length)) = fraction_at(toks, k + 1) {
                fraction = part;
                k += 1 + length;
                break;
            }
            // "one hundred and twelve": "and" only after a multiplier, and
            // not before another amount of that scale ("between eighteen
            // hundred and twenty-two hundred").
            let scale = elems.last().copied();
            let next_scale = toks[k + 1..]
                .iter()
                .take_while(|t| {
                    t.is_punct('-') || (t.is_word() && classify_number_word(&t.lower).is_some())
                })
                .filter_map(|t| classify_number_word(&t.lower))
                .find(|w| {
                    matches!(
                        w,
                        NumberWord::Hundred | NumberWord::Thousand | NumberWord::Million
                    )
                });
            // ("three hundred and fifty thousand" is one amount.)
            let same_scale = matches!(
                (scale, next_scale),
                (Some(NumberWord::Hundred), Some(NumberWord::Hundred))
                    | (
                        Some(NumberWord::Thousand),
                        Some(NumberWord::Thousand | NumberWord::Million)
                    )
            );
            if matches!(scale, Some(NumberWord::Hundred | NumberWord::Thousand))
                && !same_scale
                && word_at(toks, k + 1)
                    .and_then(classify_number_word)
                    .is_some()
            {
                k += 1;
                continue;
            }
        }
        if word_at(toks, k) == Some("point")
            && let Some(frac_w) = word_at(toks, k + 1)
            && let Some(NumberWord::Unit(_) | NumberWord::Zero) = classify_number_word(frac_w)
        {
            // "twelve point five": decimal digits follow.
            let whole = interpret(&elems, leading_a)?;
            let mut frac = String::new();
            let mut q = k + 1;
            while let Some(fw) = word_at(toks, q) {
                match classify_number_word(fw) {
                    Some(NumberWord::Unit(v)) => frac.push_str(&v.to_string()),
                    Some(NumberWord::Zero) => frac.push('0'),
                    _ => break,
                }
                q += 1;
            }
            let v: f64 = format!("{}.{}", whole.value as i64, frac).parse().ok()?;
            return Some(simple_mention(start, q, v));
        }
    }
    if elems.is_empty() {
        return None;
    }
    // A lone "one" is usually a pronoun ("this one", "the small red one").
    if elems == [NumberWord::Unit(1)] && !leading_a && fraction == 0.0 {
        let prev = if start > 0 {
            word_at(toks, start - 1)
        } else {
            None
        };
        // "a one-hour minimum", "the one-year warranty": one unit of time.
        let one_unit_of_time = toks.get(k).is_some_and(|t| t.is_punct('-'))
            && word_at(toks, k + 1).is_some_and(|w| DurationUnit::parse(w).is_some());
        if !one_unit_of_time
            && (one_is_pronoun(prev, word_at(toks, k)) || follows_determiner(toks, start))
        {
            return None;
        }
    }
    let mut r = interpret(&elems, leading_a)?;
    if fraction > 0.0 {
        r.value += fraction;
        r.alt = None;
        r.digits = None;
    }
    Some(NumberMention {
        start,
        end: k,
        value: r.value,
        alt: r.alt,
        digits: r.digits,
        clock: r.clock,
        ordinal: r.ordinal,
        unit: Unit::None,
        per: None,
        pm: None,
        after_time_prep: false,
        range_with: None,
        written: false,
    })
}

/// Whether a number word starts at `k` (optionally after a joining hyphen).
fn number_word_follows(toks: &[Token], position: usize) -> bool {
    let position = if toks.get(position).is_some_and(|t| t.is_punct('-')) {
        position + 1
    } else {
        position
    };
    word_at(toks, position)
        .and_then(classify_number_word)
        .is_some()
}

/// A plain mention with no unit or reading attached yet.
pub fn simple_mention(start: usize, end: usize, value: f64) -> NumberMention {
    NumberMention {
        start,
        end,
        value,
        alt: None,
        digits: None,
        clock: None,
        ordinal: false,
        unit: Unit::None,
        per: None,
        pm: None,
        after_time_prep: false,
        range_with: None,
        written: false,
    }
}

/// Whether two amounts are equal up to rounding error: within a millionth
/// of the larger, or within a millionth outright for amounts under 1.
pub fn same_amount(a: f64, b: f64) -> bool {
    (a - b).abs() <= 1e-6 * a.abs().max(b.abs()).max(1.0)
}

#[cfg(test)]
mod tests {
    use super::find_numbers;
    use crate::tokens::tokenize;
    use crate::units::{DurationUnit, Unit};

    fn nums(s: &str) -> Vec<f64> {
        find_numbers(&tokenize(s)).iter().map(|m| m.value).collect()
    }

    #[test]
    fn spoken_numbers() {
        assert_eq!(
            nums("Tank alone is three forty-nine ninety-nine."),
            [349.99]
        );
        assert_eq!(nums("It's twelve forty-nine ninety-five."), [1249.95]);
        assert_eq!(nums("twenty-five"), vec![25.0]);
        assert_eq!(nums("a dozen"), vec![12.0]);
        // A price "a dozen" is per dozen.
        assert_eq!(nums("thirty-four a dozen"), vec![34.0]);
        assert_eq!(
            find_numbers(&tokenize("thirty-four a dozen"))[0]
                .per
                .as_deref(),
            Some("dozen")
        );
        assert_eq!(nums("two and a half hours"), vec![2.5]);
        assert_eq!(nums("an hour and a half behind the wheel"), vec![1.5]);
        assert_eq!(nums("half an hour, or half a day"), vec![0.5, 0.5]);
        // Only with a unit of time, and "a" alone is no number.
        assert_eq!(nums("a box and a half"), Vec::<f64>::new());
        assert_eq!(nums("an hour and a quarter"), vec![1.25]);
        assert_eq!(nums("an hour and three-quarters"), vec![1.75]);
        assert_eq!(nums("two and a quarter hours"), vec![2.25]);
        assert_eq!(nums("three quarters of an hour"), vec![0.75]);
        assert_eq!(nums("a quarter of an hour"), vec![0.25]);
        assert_eq!(nums("a quarter of a mile"), Vec::<f64>::new());
        // One unit implied by the article, unless a rate, a frequency or a
        // range makes it part of another amount.
        assert_eq!(nums("so it's an hour for anything towing"), vec![1.0]);
        assert_eq!(nums("about a week"), vec![1.0]);
        assert_eq!(nums("sixty-two an hour"), vec![62.0]);
        assert_eq!(nums("three plant-based meals a day"), vec![3.0]);
        assert_eq!(nums("a fiver a day"), Vec::<f64>::new());
        assert_eq!(nums("twice a week"), vec![2.0]);
        assert_eq!(nums("a day or two"), vec![2.0]);
        assert_eq!(nums("An hour, hour and a half."), Vec::<f64>::new());
        assert_eq!(nums("give me a minute"), Vec::<f64>::new());
        for said in [
            "we're running a week behind",
            "it won't take a week",
            "we break for an hour at lunch",
            "by the day, or a week at a time",
            "it's a year past its warranty",
            "it's a year old",
            "a week Friday",
        ] {
            assert_eq!(nums(said), Vec::<f64>::new(), "{said}");
        }
        assert_eq!(nums("so a one-hour minimum"), vec![1.0]);
        assert_eq!(nums("about a fortnight"), vec![2.0]);
        let clock = |said: &str| find_numbers(&tokenize(said)).first().and_then(|m| m.clock);
        assert_eq!(clock("ten past four"), Some((4, 10)));
        assert_eq!(clock("half eight"), Some((8, 30)));
        assert_eq!(clock("twenty to eleven"), Some((10, 40)));
        assert_eq!(clock("five to ten people"), None);
        assert_eq!(nums("Deposit's a couple hundred"), vec![200.0]);
        assert_eq!(nums("a couple of thousand"), vec![2000.0]);
        assert_eq!(nums("a couple of days"), Vec::<f64>::new());
        // "remaining", "including" say what an amount is, not what it counts.
        for said in ["six fifty remaining", "ninety-five including the heel"] {
            let m = &find_numbers(&tokenize(said))[0];
            assert_eq!(m.unit, Unit::None, "{said}");
        }
        // "business days" are days.
        let business = find_numbers(&tokenize("seven to ten business days"));
        assert!(
            business
                .iter()
                .all(|m| m.unit == Unit::Duration(DurationUnit::Day)),
            "{business:?}"
        );
        assert_eq!(nums("the one-time fee"), Vec::<f64>::new());
        assert_eq!(nums("after an hour they're tired"), Vec::<f64>::new());
        assert_eq!(nums("one hundred and twelve"), vec![112.0]);
        assert_eq!(nums("a hundred twenty-five"), vec![125.0]);
        assert_eq!(nums("it's twelve fifty"), vec![12.5]);
        assert_eq!(nums("four eighty-five"), vec![485.0]);
        let three_oh_nine = &find_numbers(&tokenize("three oh nine"))[0];
        assert_eq!(
            (three_oh_nine.value, three_oh_nine.alt),
            (309.0, Some(3.09))
        );
        assert_eq!(nums("forty-eight thousand five hundred"), vec![48500.0]);
        assert_eq!(nums("forty-eight five"), vec![48500.0]);
        assert_eq!(nums("$1,350 installed"), vec![1350.0]);
        assert_eq!(nums("Twelve dollars, fifty cents."), vec![12.5]);
        assert_eq!(nums("eight pounds fifty a van"), vec![8.5]);
        assert_eq!(nums("nine dollars ninety-nine"), vec![9.99]);
        assert_eq!(nums("a pound eighty a letter"), vec![1.8]);
        assert_eq!(nums("a dollar and a half"), Vec::<f64>::new());
        assert_eq!(nums("ten dollars, twenty for two"), vec![10.0, 20.0, 2.0]);
        assert_eq!(nums("after this one he's got two more"), vec![2.0]);
        assert_eq!(nums("twelve point five"), vec![12.5]);
        // "one" heading a noun phrase is the pronoun.
        assert_eq!(nums("that's an easy one to fit"), Vec::<f64>::new());
        assert_eq!(nums("your cheapest one"), Vec::<f64>::new());
        assert_eq!(nums("a hundred and one"), vec![101.0]);
        assert_eq!(nums("eighteen hundred and twenty-two"), vec![1822.0]);
        assert_eq!(
            nums("between eighteen hundred and twenty-two hundred"),
            vec![1800.0, 2200.0]
        );
        assert_eq!(
            nums("two thousand and three thousand"),
            vec![2000.0, 3000.0]
        );
        assert_eq!(nums("three hundred and fifty thousand"), vec![350_000.0]);
        assert_eq!(nums("one of them, and one more"), Vec::<f64>::new());
        assert_eq!(nums("just one, please"), vec![1.0]);
        assert_eq!(nums("have him come in and set one up"), Vec::<f64>::new());
        assert_eq!(nums("we can send one out today"), Vec::<f64>::new());
        assert_eq!(nums("we have one on the ground floor"), vec![1.0]);
        assert_eq!(nums("we have one left"), vec![1.0]);
        let clock = |s: &str| find_numbers(&tokenize(s)).first().and_then(|m| m.clock);
        assert_eq!(clock("quarter to eleven"), Some((10, 45)));
        assert_eq!(clock("half past two"), Some((2, 30)));
        assert_eq!(clock("a quarter past 9"), Some((9, 15)));
        assert_eq!(clock("quarter to one"), Some((12, 45)));
        assert_eq!(nums("a quarter of the cost"), Vec::<f64>::new());
    }

    #[test]
    fn digit_readings() {
        let ms = find_numbers(&tokenize("Ticket four-oh-nine."));
        assert_eq!(ms[0].digits.as_deref(), Some("409"));
        let ms = find_numbers(&tokenize("two twelve Birch Lane"));
        assert_eq!(ms[0].digits.as_deref(), Some("212"));
        let ms = find_numbers(&tokenize("four four seven one"));
        assert_eq!(ms[0].value, 4471.0);
    }

    #[test]
    fn a_bare_number_beside_a_duration_shares_its_unit() {
        let ms = find_numbers(&tokenize("Two follow-ups, at thirty and sixty days."));
        let units: Vec<&Unit> = ms.iter().map(|m| &m.unit).collect();
        assert_eq!(units[1], &Unit::Duration(DurationUnit::Day));
        assert_eq!(units[2], &Unit::Duration(DurationUnit::Day));
        // A rate keeps its own unit, and a figure before a comma is its own.
        let ms = find_numbers(&tokenize(
            "It's one seventy-five an hour, two hour minimum.",
        ));
        assert_eq!(ms[0].unit, Unit::None);
        let ms = find_numbers(&tokenize("Ninety, two hour minimum."));
        assert_eq!(ms[0].unit, Unit::None);
    }

    #[test]
    fn units_and_ranges() {
        let ms = find_numbers(&tokenize("twenty sessions, an hour and a half each"));
        assert_eq!(ms[1].value, 1.5);
        assert_eq!(ms[1].per.as_deref(), Some("each"));
        let toks = tokenize("They're two twenty-five apiece.");
        let found = find_numbers(&toks);
        assert_eq!(found[0].per.as_deref(), Some("each"));
        assert_eq!(found[0].unit, Unit::None);
        let ms = find_numbers(&tokenize("six to eight hours"));
        assert_eq!(ms.len(), 2);
        assert_eq!(ms[0].unit, Unit::Duration(DurationUnit::Hour));
        assert_eq!(ms[0].range_with, Some(1));
        let ms = find_numbers(&tokenize("$165 an hour"));
        assert_eq!(ms[0].unit, Unit::Money);
        assert_eq!(ms[0].per.as_deref(), Some("hour"));
    }
}
