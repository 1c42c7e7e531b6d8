//! Spoken number words: classification and reading a run of them.

/// Value of a number word below one hundred (units, teens, tens, "zero").
pub fn small_number_word(word: &str) -> Option<u32> {
    match classify_number_word(word)? {
        NumberWord::Unit(v) | NumberWord::Teen(v) | NumberWord::Tens(v) => Some(v),
        NumberWord::Zero if word == "zero" => Some(0),
        _ => None,
    }
}

/// Class of a number word.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum NumberWord {
    /// "zero", or "oh" inside a digit sequence.
    Zero,
    /// one..nine
    Unit(u32),
    /// ten..nineteen
    Teen(u32),
    /// twenty..ninety
    Tens(u32),
    /// hundred
    Hundred,
    /// thousand
    Thousand,
    /// million
    Million,
    /// dozen
    Dozen,
    /// An ordinal word with its value ("third" → 3, "twentieth" → 20).
    Ordinal(u32),
}

/// Classifies a lower-case word as a number word.
pub fn classify_number_word(word: &str) -> Option<NumberWord> {
    use NumberWord::*;
    Some(match word {
        "zero" => Zero,
        "one" => Unit(1),
        "two" => Unit(2),
        "three" => Unit(3),
        "four" => Unit(4),
        "five" => Unit(5),
        "six" => Unit(6),
        "seven" => Unit(7),
        "eight" => Unit(8),
        "nine" => Unit(9),
        "ten" => Teen(10),
        "eleven" => Teen(11),
        "twelve" => Teen(12),
        "thirteen" => Teen(13),
        "fourteen" => Teen(14),
        "fifteen" => Teen(15),
        "sixteen" => Teen(16),
        "seventeen" => Teen(17),
        "eighteen" => Teen(18),
        "nineteen" => Teen(19),
        "twenty" => Tens(20),
        "thirty" => Tens(30),
        "forty" | "fourty" => Tens(40),
        "fifty" => Tens(50),
        "sixty" => Tens(60),
        "seventy" => Tens(70),
        "eighty" => Tens(80),
        "ninety" => Tens(90),
        "hundred" => Hundred,
        "thousand" | "grand" => Thousand,
        "million" => Million,
        "dozen" => Dozen,
        "first" => Ordinal(1),
        "second" => Ordinal(2),
        "third" => Ordinal(3),
        "fourth" => Ordinal(4),
        "fifth" => Ordinal(5),
        "sixth" => Ordinal(6),
        "seventh" => Ordinal(7),
        "eighth" => Ordinal(8),
        "ninth" => Ordinal(9),
        "tenth" => Ordinal(10),
        "eleventh" => Ordinal(11),
        "twelfth" => Ordinal(12),
        "thirteenth" => Ordinal(13),
        "fourteenth" => Ordinal(14),
        "fifteenth" => Ordinal(15),
        "sixteenth" => Ordinal(16),
        "seventeenth" => Ordinal(17),
        "eighteenth" => Ordinal(18),
        "nineteenth" => Ordinal(19),
        "twentieth" => Ordinal(20),
        "thirtieth" => Ordinal(30),
        _ => return None,
    })
}

/// The reading of a run of number words.
pub struct Interpretation {
    pub value: f64,
    pub alt: Option<f64>,
    pub digits: Option<String>,
    pub clock: Option<(u32, u32)>,
    pub ordinal: bool,
}

/// Interprets a run of number words.
pub fn interpret(elems: &[NumberWord], leading_a: bool) -> Option<Interpretation> {
    use NumberWord::*;
    let ordinal = matches!(elems.last(), Some(Ordinal(_)));
    let has_mult = elems
        .iter()
        .any(|e| matches!(e, Hundred | Thousand | Million | Dozen));
    if has_mult || leading_a {
        let mut total = 0.0_f64;
        let mut cur = 0.0_f64;
        for e in elems {
            match *e {
                Zero => {}
                Unit(v) | Teen(v) | Tens(v) | Ordinal(v) => cur += f64::from(v),
                Hundred => cur = if cur == 0.0 { 100.0 } else { cur * 100.0 },
                Dozen => cur = if cur == 0.0 { 12.0 } else { cur * 12.0 },
                Thousand | Million => {
                    let m = if *e == Thousand { 1_000.0 } else { 1_000_000.0 };
                    total += if cur == 0.0 { m } else { cur * m };
                    cur = 0.0;
                }
            }
        }
        return Some(Interpretation {
            value: total + cur,
            alt: None,
            digits: None,
            clock: None,
            ordinal,
        });
    }
    // No multiplier: build spoken groups (tens + unit merge into one group).
    let mut groups: Vec<(u32, usize)> = Vec::new(); // (value, digit width)
    let mut idx = 0;
    while idx < elems.len() {
        match elems[idx] {
            Tens(t) => {
                if let Some(Unit(u) | Ordinal(u)) = elems.get(idx + 1)
                    && *u < 10
                {
                    groups.push((t + u, 2));
                    idx += 2;
                    continue;
                }
                groups.push((t, 2));
            }
            Teen(v) => groups.push((v, 2)),
            Unit(v) => groups.push((v, 1)),
            Ordinal(v) => groups.push((v, if v >= 10 { 2 } else { 1 })),
            Zero => groups.push((0, 1)),
            _ => return None,
        }
        idx += 1;
    }
    let digits: String = groups
        .iter()
        .map(|(v, w)| format!("{v:0w$}", w = *w))
        .collect();
    match groups.as_slice() {
        [] => None,
        [(v, _)] => Some(Interpretation {
            value: f64::from(*v),
            alt: None,
            digits: Some(digits),
            clock: None,
            ordinal,
        }),
        [(a, wa), (b, wb)] if !ordinal => {
            let (a, b) = (f64::from(*a), f64::from(*b));
            let clock = (a <= 12.0 && *wb == 2 && (10.0..60.0).contains(&b))
                .then_some((a as u32, b as u32));
            let (value, alt) = if *wb == 2 && b >= 10.0 {
                // "twelve fifty" reads as a price (12.50); "four eighty-five" as 485.
                if *wa == 2 {
                    (a + b / 100.0, Some(a * 100.0 + b))
                } else {
                    (a * 100.0 + b, Some(a + b / 100.0))
                }
            } else if *wa == 2 && a >= 10.0 && *wb == 1 {
                // "thirty-two five" → 32,500
                (a * 1000.0 + b * 100.0, None)
            } else {
                (digits.parse::<f64>().ok()?, None)
            };
            Some(Interpretation {
                value,
                alt,
                digits: Some(digits),
                clock,
                ordinal,
            })
        }
        // "three oh nine": 309, or dollars and cents (3.09).
        [(a, 1), (0, 1), (c, 1)] if !ordinal && *a > 0 => Some(Interpretation {
            value: f64::from(a * 100 + c),
            alt: Some(f64::from(*a) + f64::from(*c) / 100.0),
            digits: Some(digits),
            clock: None,
            ordinal,
        }),
        // "three forty-nine ninety-nine": dollars and cents (349.99).
        // Not a list of sizes ("eight ten twelve").
        [(a, _), (b, 2), (c, 2)] if !ordinal && *b >= 20 && *c >= 10 => Some(Interpretation {
            value: f64::from(a * 100 + b) + f64::from(*c) / 100.0,
            alt: digits.parse::<f64>().ok(),
            digits: Some(digits),
            clock: None,
            ordinal,
        }),
        _ => Some(Interpretation {
            value: digits.parse::<f64>().ok().filter(|v| v.is_finite())?,
            alt: None,
            digits: Some(digits),
            clock: None,
            ordinal,
        }),
    }
}
