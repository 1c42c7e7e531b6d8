//! Word-level helpers shared by coercion and the offline extractor:
//! a small tokenizer, a light stemmer, and spoken/written number parsing.
//!
//! Everything here works on `char`s or owned tokens, never on byte offsets
//! of caller text, so non-ASCII input cannot split a UTF-8 sequence.

/// What a token is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum TokKind {
    /// Letters (possibly with digits or inner apostrophes).
    Word,
    /// Digits, possibly with inner `,` `.` `:` (e.g. `1,350.00`, `7:30`).
    Num,
    /// A currency symbol.
    Currency(char),
    /// `%`.
    Percent,
    /// Any other punctuation; dashes become `—`, ellipses `…`, quotes `"`.
    Punct(char),
}

/// One token of a sentence.
#[derive(Debug, Clone)]
pub(crate) struct Token {
    /// Surface text (apostrophes normalised to `'`).
    pub(crate) text: String,
    /// Lower-cased text.
    pub(crate) lower: String,
    /// Kind of token.
    pub(crate) kind: TokKind,
    /// Whether whitespace preceded the token.
    pub(crate) space_before: bool,
    /// For numbers written `12th`, `3rd`.
    pub(crate) ordinal: bool,
}

impl Token {
    fn new(text: String, kind: TokKind, space_before: bool) -> Self {
        let lower = text.to_lowercase();
        Token {
            text,
            lower,
            kind,
            space_before,
            ordinal: false,
        }
    }

    /// True for word tokens.
    pub(crate) fn is_word(&self) -> bool {
        self.kind == TokKind::Word
    }

    /// True when the token is the punctuation `c`.
    pub(crate) fn is_punct(&self, c: char) -> bool {
        self.kind == TokKind::Punct(c)
    }

    /// True when the first character is upper-case.
    pub(crate) fn is_capitalized(&self) -> bool {
        self.text.chars().next().is_some_and(char::is_uppercase)
    }
}

fn norm_char(c: char) -> char {
    match c {
        '\u{2019}' | '\u{2018}' | '\u{02bc}' | '`' => '\'',
        '\u{201c}' | '\u{201d}' | '\u{00ab}' | '\u{00bb}' => '"',
        '\u{2013}' | '\u{2014}' | '\u{2015}' => '—',
        '\u{00a0}' => ' ',
        _ => c,
    }
}

/// Abbreviations whose trailing period does not end a sentence.
#[rustfmt::skip]
const ABBREVIATIONS: &[&str] = &[
    "mr", "ms", "mrs", "dr", "st", "vs", "jr", "sr", "approx", "no",
];

/// Splits text into tokens.
pub(crate) fn tokenize(s: &str) -> Vec<Token> {
    let chars: Vec<char> = s.chars().map(norm_char).collect();
    let n = chars.len();
    let at = |i: usize| chars.get(i).copied().unwrap_or(' ');
    let mut out: Vec<Token> = Vec::new();
    let mut i = 0;
    let mut space = true;
    while i < n {
        let c = chars[i];
        if c.is_whitespace() {
            space = true;
            i += 1;
            continue;
        }
        let sb = space;
        space = false;
        if c.is_ascii_digit() {
            let start = i;
            while i < n {
                let d = chars[i];
                let inner = matches!(d, ',' | '.' | ':') && at(i + 1).is_ascii_digit();
                if d.is_ascii_digit() || inner {
                    i += 1;
                } else {
                    break;
                }
            }
            let text: String = chars[start..i].iter().collect();
            let mut tok = Token::new(text, TokKind::Num, sb);
            if i < n && chars[i].is_alphabetic() {
                let ws = i;
                while i < n && chars[i].is_alphanumeric() {
                    i += 1;
                }
                let suffix: String = chars[ws..i].iter().collect();
                let lower = suffix.to_lowercase();
                if matches!(lower.as_str(), "st" | "nd" | "rd" | "th") {
                    tok.ordinal = true;
                    out.push(tok);
                } else {
                    out.push(tok);
                    out.push(Token::new(suffix, TokKind::Word, false));
                }
            } else {
                out.push(tok);
            }
            continue;
        }
        if c.is_alphabetic() {
            let start = i;
            while i < n {
                let d = chars[i];
                if d.is_alphanumeric() || (d == '\'' && at(i + 1).is_alphabetic()) {
                    i += 1;
                } else {
                    break;
                }
            }
            let mut text: String = chars[start..i].iter().collect();
            let lower = text.to_lowercase();
            // "a.m." / "p.m." / "e.g." / "i.e.": fold into one word.
            if i - start == 1
                && at(i) == '.'
                && at(i + 1).is_alphabetic()
                && at(i + 2) == '.'
                && !at(i + 3).is_alphabetic()
            {
                text.push(at(i + 1));
                i += 3;
                out.push(Token::new(text, TokKind::Word, sb));
                continue;
            }
            // Trailing apostrophe of a plural possessive ("days'").
            if at(i) == '\'' && !at(i + 1).is_alphanumeric() {
                i += 1;
            }
            out.push(Token::new(text, TokKind::Word, sb));
            if at(i) == '.' && ABBREVIATIONS.contains(&lower.as_str()) && at(i + 1) != '.' {
                // "No." only abbreviates before a number ("No. 5").
                if lower != "no" || at(i + 2).is_ascii_digit() {
                    i += 1;
                }
            }
            continue;
        }
        match c {
            '$' | '£' | '€' | '¥' => {
                out.push(Token::new(c.to_string(), TokKind::Currency(c), sb))
            }
            '%' => out.push(Token::new("%".into(), TokKind::Percent, sb)),
            '.' if at(i + 1) == '.' => {
                while at(i) == '.' {
                    i += 1;
                }
                out.push(Token::new("…".into(), TokKind::Punct('…'), sb));
                continue;
            }
            '-' if at(i + 1) == '-' => {
                while at(i) == '-' {
                    i += 1;
                }
                out.push(Token::new("—".into(), TokKind::Punct('—'), sb));
                continue;
            }
            '-' if sb && at(i + 1).is_whitespace() => {
                out.push(Token::new("—".into(), TokKind::Punct('—'), sb));
            }
            _ => out.push(Token::new(c.to_string(), TokKind::Punct(c), sb)),
        }
        i += 1;
    }
    out
}

/// Splits a token list into sentences (on `.`, `?`, `!`; a closing quote
/// stays with its sentence).
pub(crate) fn split_sentences(toks: Vec<Token>) -> Vec<Vec<Token>> {
    let mut out = Vec::new();
    let mut cur: Vec<Token> = Vec::new();
    let mut iter = toks.into_iter().peekable();
    while let Some(t) = iter.next() {
        let end = matches!(t.kind, TokKind::Punct('.' | '?' | '!'));
        cur.push(t);
        if end {
            while let Some(nx) = iter.peek() {
                if matches!(nx.kind, TokKind::Punct('"' | '\'' | ')' | '?' | '!' | '.'))
                    && !nx.space_before
                {
                    if let Some(q) = iter.next() {
                        cur.push(q);
                    }
                } else {
                    break;
                }
            }
            if cur
                .iter()
                .any(|t| matches!(t.kind, TokKind::Word | TokKind::Num))
            {
                out.push(std::mem::take(&mut cur));
            } else {
                cur.clear();
            }
        }
    }
    if cur
        .iter()
        .any(|t| matches!(t.kind, TokKind::Word | TokKind::Num))
    {
        out.push(cur);
    }
    out
}

/// Splits a snake_case / camelCase / digit-bearing identifier into lower-case words.
pub(crate) fn split_identifier(name: &str) -> Vec<String> {
    let mut words = Vec::new();
    let mut cur = String::new();
    let mut prev: Option<char> = None;
    for c in name.chars() {
        if !c.is_alphanumeric() {
            if !cur.is_empty() {
                words.push(std::mem::take(&mut cur));
            }
            prev = None;
            continue;
        }
        if let Some(p) = prev {
            let boundary = (p.is_lowercase() && c.is_uppercase())
                || (p.is_ascii_digit() != c.is_ascii_digit());
            if boundary && !cur.is_empty() {
                words.push(std::mem::take(&mut cur));
            }
        }
        cur.extend(c.to_lowercase());
        prev = Some(c);
    }
    if !cur.is_empty() {
        words.push(cur);
    }
    words
}

/// A light English stemmer: folds plurals, -ing, -ed, -er, -ly, -ion and a
/// final -e so that related forms ("tuner"/"tuning", "located"/"location")
/// meet. Small number words become digits so "ten" meets "10".
pub(crate) fn stem(word: &str) -> String {
    let mut w: String = if word.bytes().any(|b| b.is_ascii_uppercase()) || !word.is_ascii() {
        word.to_lowercase()
    } else {
        word.to_string()
    };
    if let Some(s) = w.strip_suffix("'s") {
        w = s.to_string();
    }
    w.retain(|c| c != '\'');
    if let Some(v) = small_number_word(&w) {
        return v.to_string();
    }
    let irregular = match w.as_str() {
        "people" | "persons" => Some("person"),
        "children" => Some("child"),
        "daily" => Some("day"),
        "men" => Some("man"),
        "women" => Some("woman"),
        "lbs" | "lb" => Some("pound"),
        "mins" => Some("minut"),
        "hrs" => Some("hour"),
        "yrs" => Some("year"),
        _ => None,
    };
    if let Some(s) = irregular {
        return s.to_string();
    }
    let len = |s: &str| s.chars().count();
    if len(&w) > 4 {
        if let Some(s) = w.strip_suffix("ies") {
            w = format!("{s}y");
        } else if let Some(s) = w.strip_suffix("sses") {
            w = format!("{s}ss");
        } else if w.ends_with('s') && !w.ends_with("ss") && !w.ends_with("us") && !w.ends_with("is")
        {
            w.pop();
        }
    } else if len(&w) > 3 && w.ends_with('s') && !w.ends_with("ss") && !w.ends_with("us") {
        w.pop();
    }
    for suf in ["ing", "ed"] {
        if let Some(s) = w.strip_suffix(suf)
            && len(s) >= 3
            && s.chars().any(is_vowel)
        {
            w = s.to_string();
            let cs: Vec<char> = w.chars().collect();
            if let [.., a, b] = cs.as_slice()
                && a == b
                && !is_vowel(*a)
                && !matches!(a, 'l' | 's' | 'z')
                && cs.len() > 3
            {
                w.pop();
            }
            break;
        }
    }
    if let Some(s) = w.strip_suffix("ion")
        && len(s) >= 3
    {
        w = s.to_string();
    }
    if let Some(s) = w.strip_suffix("ly")
        && len(s) >= 3
    {
        w = s.to_string();
    }
    if let Some(s) = w.strip_suffix("er")
        && len(s) >= 3
    {
        w = s.to_string();
    }
    if len(&w) >= 4
        && let Some(s) = w.strip_suffix('e')
    {
        w = s.to_string();
    }
    w
}

fn is_vowel(c: char) -> bool {
    matches!(c, 'a' | 'e' | 'i' | 'o' | 'u' | 'y')
}

/// Whether two stems should be treated as the same word: equal, or sharing a
/// long common prefix ("satisfact"/"satisfi").
pub(crate) fn stems_match(a: &str, b: &str) -> bool {
    if a == b {
        return true;
    }
    // Byte-wise: a common byte prefix of UTF-8 text is a common char prefix
    // (up to a partial last char), which is all this ratio needs.
    let (a, b) = (a.as_bytes(), b.as_bytes());
    let min = a.len().min(b.len());
    if min < 5 || a[0] != b[0] {
        return false;
    }
    let common = a.iter().zip(b).take_while(|(x, y)| x == y).count();
    common >= 5 && common * 5 >= min * 4
}

fn small_number_word(w: &str) -> Option<u32> {
    match classify_number_word(w)? {
        NumWord::Unit(v) | NumWord::Teen(v) | NumWord::Tens(v) => Some(v),
        NumWord::Zero if w == "zero" => Some(0),
        _ => None,
    }
}

/// Class of a number word.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) enum NumWord {
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
pub(crate) fn classify_number_word(w: &str) -> Option<NumWord> {
    use NumWord::*;
    Some(match w {
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
    Duration(DurUnit),
    /// Clock time (am/pm/o'clock).
    Clock,
    /// Any other noun after the number ("3 movers", "ten-pack"), stemmed.
    Count(String),
}

/// Duration units.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum DurUnit {
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

impl DurUnit {
    /// Parses a (lower-case) unit word.
    pub(crate) fn parse(w: &str) -> Option<DurUnit> {
        Some(match w {
            "minute" | "minutes" | "min" | "mins" => DurUnit::Minute,
            "hour" | "hours" | "hr" | "hrs" => DurUnit::Hour,
            "day" | "days" | "night" | "nights" => DurUnit::Day,
            "week" | "weeks" => DurUnit::Week,
            "month" | "months" => DurUnit::Month,
            "year" | "years" | "yr" | "yrs" => DurUnit::Year,
            _ => return None,
        })
    }

    /// Factor to convert an amount in `self` into `to`, when the pair is a
    /// safe conversion (minutes/hours, days/weeks, months/years).
    pub(crate) fn factor_to(self, to: DurUnit) -> Option<f64> {
        use DurUnit::*;
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

/// A number found in a token list.
#[derive(Debug, Clone)]
pub(crate) struct NumMention {
    /// First token index.
    pub(crate) start: usize,
    /// One past the last token index (including any unit words).
    pub(crate) end: usize,
    /// Default reading.
    pub(crate) value: f64,
    /// The other reading of an ambiguous spoken amount ("fourteen fifty":
    /// 14.50 vs 1450).
    pub(crate) alt: Option<f64>,
    /// Digit-by-digit reading, for codes and house numbers ("two twelve" → "212").
    pub(crate) digits: Option<String>,
    /// Spoken as two groups that read as a clock time ("seven-thirty").
    pub(crate) clock: Option<(u32, u32)>,
    /// An ordinal ("third", "12th").
    pub(crate) ordinal: bool,
    /// Unit after (or currency before) the number.
    pub(crate) unit: Unit,
    /// Stem of a "per X" / "a X" / "each" rate noun.
    pub(crate) per: Option<String>,
    /// am/pm marker: Some(true) for pm.
    pub(crate) pm: Option<bool>,
    /// Preceded by a time preposition ("at", "around", "by").
    pub(crate) after_time_prep: bool,
    /// Index (into the same list) of the other end of a range.
    pub(crate) range_with: Option<usize>,
    /// Whether the mention was written with digits.
    pub(crate) written: bool,
}

/// Words that never act as the counted noun after a number.
#[rustfmt::skip]
const NOT_COUNT_NOUNS: &[&str] = &[
    "a", "an", "the", "and", "or", "to", "for", "of", "in", "on", "at", "by", "with", "from", "up", "off",
    "more", "less", "extra", "other", "additional", "total", "even", "flat", "tops", "max", "min", "minimum",
    "maximum", "now", "then", "so", "but", "plus", "before", "after", "ago", "is", "are", "was", "were",
    "be", "it", "that", "this", "these", "those", "if", "as", "than", "till", "until", "each", "per",
    "every", "again", "too", "please", "right", "okay", "ok", "yeah", "yes", "no", "not", "just", "only",
    "about", "around", "or so", "give", "maybe", "probably", "i", "we", "you", "he", "she", "they", "me",
    "us", "him", "her", "them", "my", "your", "our", "their", "his", "its", "what", "which", "when", "where",
    "how", "who", "why", "there", "here", "today", "tomorrow", "tonight", "ish", "sharp", "even", "straight",
    "down", "out", "into", "through", "both", "installed", "included", "all", "pound", "key", "am", "pm",
    "thirty", "later", "earlier", "sounds", "works", "would", "will", "can", "could", "should", "did", "do",
    "does", "has", "have", "had", "got", "gets", "get", "'s", "isn't", "aren't", "with", "without",
    "instead", "either", "people's", "guys'",
];

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
    det || pron_next
}

/// Finds number mentions in a token list.
pub(crate) fn find_numbers(toks: &[Token]) -> Vec<NumMention> {
    let mut out: Vec<NumMention> = Vec::new();
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
    out
}

fn word_at(toks: &[Token], i: usize) -> Option<&str> {
    toks.get(i)
        .filter(|t| t.is_word())
        .map(|t| t.lower.as_str())
}

/// Parses a number starting exactly at token `i`.
fn parse_at(toks: &[Token], i: usize) -> Option<NumMention> {
    let tok = toks.get(i)?;
    let mut currency = false;
    let mut start = i;
    let mut j = i;
    if let TokKind::Currency(_) = tok.kind {
        let next = toks.get(i + 1)?;
        if next.kind != TokKind::Num
            && !(next.is_word() && classify_number_word(&next.lower).is_some())
        {
            return None;
        }
        currency = true;
        j = i + 1;
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
    let mut m = match toks.get(j)?.kind {
        TokKind::Num => parse_digits(toks, j)?,
        TokKind::Word => {
            // A capitalised number word inside a name ("Studio Nine") is not a quantity.
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
        start = i;
    }
    m.start = start;
    let prev = if start > 0 {
        word_at(toks, start - 1)
    } else {
        None
    };
    m.after_time_prep = matches!(
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

fn parse_digits(toks: &[Token], j: usize) -> Option<NumMention> {
    let tok = toks.get(j)?;
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
    Some(NumMention {
        start: j,
        end: j + 1,
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
pub(crate) fn parse_digit_string(text: &str) -> Option<f64> {
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
fn parse_words(toks: &[Token], j: usize) -> Option<NumMention> {
    let mut k = j;
    let mut elems: Vec<NumWord> = Vec::new();
    let mut half = false;
    let mut leading_a = false;
    // "a hundred", "a dozen", "an hour"… only the first two are numbers.
    if matches!(word_at(toks, k), Some("a" | "an")) {
        match word_at(toks, k + 1).and_then(classify_number_word) {
            Some(NumWord::Hundred | NumWord::Thousand | NumWord::Dozen) => {
                leading_a = true;
                k += 1;
            }
            _ => return None,
        }
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
        let mut m = simple_mention(j, k + 1, v);
        m.unit = Unit::Count("time".into());
        return Some(m);
    }
    // "half a dozen"
    if word_at(toks, k) == Some("half")
        && matches!(word_at(toks, k + 1), Some("a"))
        && word_at(toks, k + 2) == Some("dozen")
    {
        return Some(simple_mention(j, k + 3, 6.0));
    }
    while let Some(w) = word_at(toks, k) {
        let nw = match classify_number_word(w) {
            Some(nw) => nw,
            // "oh" is a zero digit only between number words ("four-oh-nine").
            None if matches!(w, "oh" | "o")
                && !elems.is_empty()
                && number_word_follows(toks, k + 1) =>
            {
                NumWord::Zero
            }
            None => break,
        };
        // "second" is usually time ("one sec"); keep it only after tens ("twenty-second").
        if nw == NumWord::Ordinal(2) && !matches!(elems.last(), Some(NumWord::Tens(_))) {
            break;
        }
        elems.push(nw);
        k += 1;
        if matches!(nw, NumWord::Ordinal(_)) {
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
            if word_at(toks, k + 1) == Some("a") && word_at(toks, k + 2) == Some("half") {
                half = true;
                k += 3;
                break;
            }
            // "one hundred and twelve": "and" only after a multiplier.
            if matches!(elems.last(), Some(NumWord::Hundred | NumWord::Thousand))
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
            && let Some(NumWord::Unit(_) | NumWord::Zero) = classify_number_word(frac_w)
        {
            // "twelve point five": decimal digits follow.
            let whole = interpret(&elems, leading_a)?;
            let mut frac = String::new();
            let mut q = k + 1;
            while let Some(fw) = word_at(toks, q) {
                match classify_number_word(fw) {
                    Some(NumWord::Unit(v)) => frac.push_str(&v.to_string()),
                    Some(NumWord::Zero) => frac.push('0'),
                    _ => break,
                }
                q += 1;
            }
            let v: f64 = format!("{}.{}", whole.value as i64, frac).parse().ok()?;
            return Some(simple_mention(j, q, v));
        }
    }
    if elems.is_empty() {
        return None;
    }
    // A lone "one" is usually a pronoun ("this one", "the big round one").
    if elems == [NumWord::Unit(1)] && !leading_a && !half {
        let prev = if j > 0 { word_at(toks, j - 1) } else { None };
        if one_is_pronoun(prev, word_at(toks, k)) {
            return None;
        }
    }
    let mut r = interpret(&elems, leading_a)?;
    if half {
        r.value += 0.5;
        r.alt = None;
        r.digits = None;
    }
    Some(NumMention {
        start: j,
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
fn number_word_follows(toks: &[Token], k: usize) -> bool {
    let k = if toks.get(k).is_some_and(|t| t.is_punct('-')) {
        k + 1
    } else {
        k
    };
    word_at(toks, k).and_then(classify_number_word).is_some()
}

fn simple_mention(start: usize, end: usize, value: f64) -> NumMention {
    NumMention {
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

struct Interp {
    value: f64,
    alt: Option<f64>,
    digits: Option<String>,
    clock: Option<(u32, u32)>,
    ordinal: bool,
}

/// Interprets a run of number words.
fn interpret(elems: &[NumWord], leading_a: bool) -> Option<Interp> {
    use NumWord::*;
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
        return Some(Interp {
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
        [(v, _)] => Some(Interp {
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
                // "forty-eight five" → 48,500
                (a * 1000.0 + b * 100.0, None)
            } else {
                (digits.parse::<f64>().ok()?, None)
            };
            Some(Interp {
                value,
                alt,
                digits: Some(digits),
                clock,
                ordinal,
            })
        }
        _ => Some(Interp {
            value: digits.parse::<f64>().ok().filter(|v| v.is_finite())?,
            alt: None,
            digits: Some(digits),
            clock: None,
            ordinal,
        }),
    }
}

fn attach_unit(toks: &[Token], m: &mut NumMention) {
    // Hyphenated unit ("40-gallon", "ten-pack", "three-hour").
    let hyphen = toks
        .get(m.end)
        .is_some_and(|t| t.is_punct('-') && !t.space_before);
    let unit_idx = if hyphen { m.end + 1 } else { m.end };
    let found = match toks.get(unit_idx) {
        Some(t) if t.kind == TokKind::Percent => {
            m.unit = Unit::Percent;
            true
        }
        Some(t) if t.is_word() => unit_word(&t.lower, m),
        _ => false,
    };
    if found {
        m.end = unit_idx + 1;
    }
    // "ten thirty in the morning", "eight at night".
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
fn unit_word(w: &str, m: &mut NumMention) -> bool {
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
            if let Some(d) = DurUnit::parse(w) {
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

/// Merges "twelve dollars(,) (and) fifty cents" into one mention.
fn merge_dollars_cents(ms: &mut Vec<NumMention>, toks: &[Token]) {
    let mut idx = 0;
    while idx + 1 < ms.len() {
        let (a, b) = (&ms[idx], &ms[idx + 1]);
        let b_is_cents = toks
            .get(b.end.saturating_sub(1))
            .is_some_and(|t| matches!(t.lower.as_str(), "cent" | "cents"));
        let gap_ok = toks
            .get(a.end..b.start)
            .is_some_and(|g| g.iter().all(|t| t.is_punct(',') || t.lower == "and"));
        if a.unit == Unit::Money && b_is_cents && gap_ok && b.value < 1.0 {
            let v = a.value.trunc() + b.value;
            let end = b.end;
            let a = &mut ms[idx];
            a.value = v;
            a.alt = None;
            a.end = end;
            ms.remove(idx + 1);
        }
        idx += 1;
    }
}

/// Links "six to eight", "between $1,200 and $1,500", "6-8", "six or seven".
fn mark_ranges(ms: &mut [NumMention], toks: &[Token]) {
    for idx in 0..ms.len().saturating_sub(1) {
        let (a_end, b_start) = (ms[idx].end, ms[idx + 1].start);
        let Some(gap) = toks.get(a_end..b_start) else {
            continue;
        };
        let between = ms[idx].start > 0 && word_at(toks, ms[idx].start - 1) == Some("between");
        let is_range = match gap {
            [t] => {
                matches!(t.lower.as_str(), "to" | "or" | "-" | "—")
                    || (t.lower == "and" && between)
                    || (t.is_punct('-'))
            }
            _ => false,
        };
        let clocky = |m: &NumMention| m.clock.is_some() || m.unit == Unit::Clock;
        if !is_range || clocky(&ms[idx]) || clocky(&ms[idx + 1]) {
            continue;
        }
        // The unit of the second end applies to both ("six to eight hours").
        if ms[idx].unit == Unit::None {
            ms[idx].unit = ms[idx + 1].unit.clone();
        }
        if ms[idx + 1].unit == Unit::None {
            ms[idx + 1].unit = ms[idx].unit.clone();
        }
        if ms[idx].per.is_none() {
            ms[idx].per = ms[idx + 1].per.clone();
        }
        ms[idx].range_with = Some(idx + 1);
        ms[idx + 1].range_with = Some(idx);
    }
}

/// Weekday names (canonical forms).
#[rustfmt::skip]
pub(crate) const WEEKDAYS: [&str; 7] = [
    "Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday",
];
/// Month names (canonical forms).
#[rustfmt::skip]
pub(crate) const MONTHS: [&str; 12] = [
    "January", "February", "March", "April", "May", "June", "July", "August", "September", "October",
    "November", "December",
];

/// Canonical weekday for a word ("tuesdays", "Tues" → "Tuesday").
pub(crate) fn weekday(w: &str) -> Option<&'static str> {
    let l = w.strip_suffix("'s").unwrap_or(w);
    let l = if l.len() > 6
        && (l.ends_with('s') || l.ends_with('S'))
        && !l[..l.len() - 1].ends_with(['s', 'S'])
    {
        // "Tuesdays" (ASCII suffix, so the slice is on a char boundary).
        &l[..l.len() - 1]
    } else {
        l
    };
    WEEKDAYS.iter().copied().find(|d| l.eq_ignore_ascii_case(d))
}

/// Canonical month for a word. "May" and "March" only count when capitalised.
pub(crate) fn month(tok: &Token) -> Option<&'static str> {
    let l = tok.lower.strip_suffix("'s").unwrap_or(&tok.lower);
    let m = MONTHS.iter().copied().find(|m| {
        l.eq_ignore_ascii_case(m)
            || (m.len() > 4
                && l.len() == 3
                && m.get(..3).is_some_and(|p| l.eq_ignore_ascii_case(p))
                && tok.is_capitalized())
    })?;
    if matches!(m, "May" | "March") && !tok.is_capitalized() {
        return None;
    }
    Some(m)
}

/// Common colour words.
#[rustfmt::skip]
pub(crate) const COLORS: &[&str] = &[
    "red", "blue", "green", "black", "white", "silver", "gray", "grey", "yellow", "orange", "purple",
    "brown", "gold", "beige", "maroon", "navy", "tan", "pink", "teal", "burgundy", "charcoal", "bronze",
    "cream", "ivory", "turquoise", "violet", "champagne",
];

#[cfg(test)]
mod tests {
    use super::*;

    fn nums(s: &str) -> Vec<f64> {
        find_numbers(&tokenize(s)).iter().map(|m| m.value).collect()
    }

    #[test]
    fn spoken_numbers() {
        assert_eq!(nums("twenty-five"), vec![25.0]);
        assert_eq!(nums("a dozen"), vec![12.0]);
        assert_eq!(nums("two and a half hours"), vec![2.5]);
        assert_eq!(nums("one hundred and twelve"), vec![112.0]);
        assert_eq!(nums("a hundred twenty-five"), vec![125.0]);
        assert_eq!(nums("it's twelve fifty"), vec![12.5]);
        assert_eq!(nums("four eighty-five"), vec![485.0]);
        assert_eq!(nums("forty-eight thousand five hundred"), vec![48500.0]);
        assert_eq!(nums("forty-eight five"), vec![48500.0]);
        assert_eq!(nums("$1,350 installed"), vec![1350.0]);
        assert_eq!(nums("Twelve dollars, fifty cents."), vec![12.5]);
        assert_eq!(nums("after this one he's got two more"), vec![2.0]);
        assert_eq!(nums("twelve point five"), vec![12.5]);
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
    fn units_and_ranges() {
        let ms = find_numbers(&tokenize("six to eight hours"));
        assert_eq!(ms.len(), 2);
        assert_eq!(ms[0].unit, Unit::Duration(DurUnit::Hour));
        assert_eq!(ms[0].range_with, Some(1));
        let ms = find_numbers(&tokenize("$165 an hour"));
        assert_eq!(ms[0].unit, Unit::Money);
        assert_eq!(ms[0].per.as_deref(), Some("hour"));
    }

    #[test]
    fn stems() {
        assert_eq!(stem("tuning"), stem("tuner"));
        assert_eq!(stem("located"), stem("location"));
        assert!(stems_match(&stem("satisfied"), &stem("satisfaction")));
        assert_eq!(stem("hourly"), "hour");
        assert_eq!(
            split_identifier("october_12_available"),
            vec!["october", "12", "available"]
        );
        assert_eq!(
            split_identifier("appointmentConfirmed"),
            vec!["appointment", "confirmed"]
        );
    }
}
