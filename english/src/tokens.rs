//! The tokenizer and sentence splitter.

/// What a token is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TokenKind {
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
pub struct Token {
    /// Surface text (apostrophes normalised to `'`).
    pub text: String,
    /// Lower-cased text.
    pub lower: String,
    /// Kind of token.
    pub kind: TokenKind,
    /// Whether whitespace preceded the token.
    pub space_before: bool,
    /// For numbers written `12th`, `3rd`.
    pub ordinal: bool,
    /// The chars of the tokenized text it was read from (a number and the
    /// word glued to it share theirs).
    pub chars: std::ops::Range<usize>,
}

impl Token {
    /// A token with its lower-case form precomputed.
    pub fn new(text: String, kind: TokenKind, space_before: bool) -> Self {
        let lower = text.to_lowercase();
        Token {
            text,
            lower,
            kind,
            space_before,
            ordinal: false,
            chars: 0..0,
        }
    }

    /// True for word tokens.
    pub fn is_word(&self) -> bool {
        self.kind == TokenKind::Word
    }

    /// True when the token is the punctuation `c`.
    pub fn is_punct(&self, c: char) -> bool {
        self.kind == TokenKind::Punct(c)
    }

    /// True when the first character is upper-case.
    pub fn is_capitalized(&self) -> bool {
        self.text.chars().next().is_some_and(char::is_uppercase)
    }
}

/// Folds typographic apostrophes and quotes to ASCII, dashes to one em
/// dash and no-break spaces to spaces, so later rules see one form.
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
pub fn tokenize(s: &str) -> Vec<Token> {
    let chars: Vec<char> = s.chars().map(norm_char).collect();
    let n = chars.len();
    let at = |i: usize| chars.get(i).copied().unwrap_or(' ');
    let mut out: Vec<Token> = Vec::new();
    let mut i = 0;
    let mut space = true;
    while i < n {
        let (first_new, start) = (out.len(), i);
        'step: {
            let c = chars[i];
            if c.is_whitespace() {
                space = true;
                i += 1;
                break 'step;
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
                let mut tok = Token::new(text, TokenKind::Num, sb);
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
                        out.push(Token::new(suffix, TokenKind::Word, false));
                    }
                } else {
                    out.push(tok);
                }
                break 'step;
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
                    out.push(Token::new(text, TokenKind::Word, sb));
                    break 'step;
                }
                // Trailing apostrophe of a plural possessive ("days'").
                if at(i) == '\'' && !at(i + 1).is_alphanumeric() {
                    i += 1;
                }
                out.push(Token::new(text, TokenKind::Word, sb));
                if at(i) == '.' && ABBREVIATIONS.contains(&lower.as_str()) && at(i + 1) != '.' {
                    // "No." only abbreviates before a number ("No. 5").
                    if lower != "no" || at(i + 2).is_ascii_digit() {
                        i += 1;
                    }
                }
                break 'step;
            }
            match c {
                '$' | '£' | '€' | '¥' => {
                    out.push(Token::new(c.to_string(), TokenKind::Currency(c), sb))
                }
                '%' => out.push(Token::new("%".into(), TokenKind::Percent, sb)),
                '.' if at(i + 1) == '.' => {
                    while at(i) == '.' {
                        i += 1;
                    }
                    out.push(Token::new("…".into(), TokenKind::Punct('…'), sb));
                    break 'step;
                }
                '-' if at(i + 1) == '-' => {
                    while at(i) == '-' {
                        i += 1;
                    }
                    out.push(Token::new("—".into(), TokenKind::Punct('—'), sb));
                    break 'step;
                }
                '-' if sb && at(i + 1).is_whitespace() => {
                    out.push(Token::new("—".into(), TokenKind::Punct('—'), sb));
                }
                _ => out.push(Token::new(c.to_string(), TokenKind::Punct(c), sb)),
            }
            i += 1;
        }
        // Where the tokens of this step came from, for quoting the source.
        for token in &mut out[first_new..] {
            token.chars = start..i;
        }
    }
    out
}

/// Splits a token list into sentences (on `.`, `?`, `!`; a closing quote
/// stays with its sentence).
pub fn split_sentences(toks: Vec<Token>) -> Vec<Vec<Token>> {
    let mut out = Vec::new();
    let mut cur: Vec<Token> = Vec::new();
    let mut iter = toks.into_iter().peekable();
    while let Some(t) = iter.next() {
        let end = matches!(t.kind, TokenKind::Punct('.' | '?' | '!'));
        cur.push(t);
        if end {
            while let Some(nx) = iter.peek() {
                if matches!(
                    nx.kind,
                    TokenKind::Punct('"' | '\'' | ')' | '?' | '!' | '.')
                ) && !nx.space_before
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
                .any(|t| matches!(t.kind, TokenKind::Word | TokenKind::Num))
            {
                out.push(std::mem::take(&mut cur));
            } else {
                cur.clear();
            }
        }
    }
    if cur
        .iter()
        .any(|t| matches!(t.kind, TokenKind::Word | TokenKind::Num))
    {
        out.push(cur);
    }
    out
}
