//! Finding quoted words in a transcript: its lines, folding, and the span
//! a quote covers.

use crate::transcript::{Speaker, Transcript};

/// One line of a transcript's text form.
#[derive(Debug)]
pub(super) struct Turn {
    /// 1-based position among the transcript's lines.
    pub(super) number: usize,
    pub(super) speaker: Speaker,
    /// The words, as the text form shows them.
    pub(super) text: String,
}

/// The transcript's lines, numbered as evidence names them.
pub(super) fn turns(transcript: &Transcript) -> Vec<Turn> {
    transcript
        .lines()
        .map(|(number, turn)| Turn {
            number,
            speaker: turn.speaker,
            text: turn.line_text(),
        })
        .collect()
}

/// Text folded for comparison: lower case, typographic quotes made plain,
/// every run of whitespace one space; with the byte offset in the original
/// of every folded char, and of the end.
struct Folded {
    chars: Vec<char>,
    /// `offsets[i]` is where `chars[i]` came from; one extra entry for the end.
    offsets: Vec<usize>,
}

fn fold(text: &str) -> Folded {
    let mut chars = Vec::with_capacity(text.len());
    let mut offsets = Vec::with_capacity(text.len() + 1);
    let mut space_pending = false;
    for (offset, c) in text.char_indices() {
        if c.is_whitespace() {
            space_pending = !chars.is_empty();
            continue;
        }
        if space_pending {
            chars.push(' ');
            offsets.push(offset);
            space_pending = false;
        }
        let plain = match c {
            '\u{2018}' | '\u{2019}' | '\u{02BC}' => '\'',
            '\u{201C}' | '\u{201D}' => '"',
            '\u{2013}' | '\u{2014}' => '-',
            other => other,
        };
        for lower in plain.to_lowercase() {
            chars.push(lower);
            offsets.push(offset);
        }
    }
    offsets.push(text.len());
    Folded { chars, offsets }
}

/// Where `needle` first occurs in `haystack` at or after `from`.
fn find_from(haystack: &[char], needle: &[char], from: usize) -> Option<usize> {
    if needle.is_empty() || needle.len() > haystack.len() {
        return None;
    }
    (from..=haystack.len() - needle.len()).find(|&start| haystack[start..].starts_with(needle))
}

/// The parts of a quote that must occur, in order: it is split at
/// ellipses ("…", "..."), which models use to skip words, and each part is
/// trimmed of the whitespace and punctuation around it. Parts without a
/// letter or digit are dropped.
fn quote_parts(quote: &str) -> Vec<Vec<char>> {
    quote
        .replace("...", "\u{2026}")
        .split('\u{2026}')
        .map(|part| {
            part.trim_matches(|c: char| {
                c.is_whitespace() || (!c.is_alphanumeric() && !matches!(c, '$' | '£' | '€' | '%'))
            })
        })
        .filter(|part| part.chars().any(char::is_alphanumeric))
        .map(|part| fold(part).chars)
        .collect()
}

/// The byte range of `text` that `quote` covers (its parts in order, from
/// the start of the first to the end of the last), if every part occurs.
pub(super) fn span_of(text: &str, quote: &str) -> Option<std::ops::Range<usize>> {
    let parts = quote_parts(quote);
    if parts.is_empty() {
        return None;
    }
    let folded = fold(text);
    // The earliest placement of every part in order; a later start of the
    // first part never helps the rest fit.
    let mut from = 0;
    let mut start = None;
    let mut end = 0;
    for part in &parts {
        let at = find_from(&folded.chars, part, from)?;
        start.get_or_insert(at);
        from = at + part.len();
        end = from;
    }
    let start = folded.offsets[start?];
    // The end offset may sit past whitespace that followed the last part.
    let end = start + text[start..folded.offsets[end]].trim_end().len();
    Some(start..end)
}
