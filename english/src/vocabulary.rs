//! Closed word classes: weekdays, months, colours, and the words said
//! between the parts of a spelled code.

use super::tokens::Token;

/// Weekday names (canonical forms).
#[rustfmt::skip]
const WEEKDAYS: [&str; 7] = [
    "Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday",
];
/// Month names (canonical forms).
#[rustfmt::skip]
const MONTHS: [&str; 12] = [
    "January", "February", "March", "April", "May", "June", "July", "August", "September", "October",
    "November", "December",
];

/// Canonical weekday for a word ("tuesdays", "Tues" → "Tuesday").
pub fn weekday(word: &str) -> Option<&'static str> {
    let l = word.strip_suffix("'s").unwrap_or(word);
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
pub fn month(tok: &Token) -> Option<&'static str> {
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
pub const COLORS: &[&str] = &[
    "red", "blue", "green", "black", "white", "silver", "gray", "grey", "yellow", "orange", "purple",
    "brown", "gold", "beige", "maroon", "navy", "tan", "pink", "teal", "burgundy", "charcoal", "bronze",
    "cream", "ivory", "turquoise", "violet", "champagne",
];

/// Words said between the parts of a spelled code ("B W, then seven, oh…").
pub fn is_code_bridge(word: &str) -> bool {
    matches!(word, "then" | "dash" | "hyphen")
}
