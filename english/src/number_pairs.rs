//! Numbers said together: dollars and cents said as two ("twelve dollars
//! and fifty cents"), ranges ("six to eight"), windows on the clock ("one
//! to five in the afternoon") and a unit two numbers share ("thirty and
//! sixty days"). `find_numbers` links its mentions with these.

use super::numbers::{NumberMention, word_at};
use super::tokens::Token;
use super::units::Unit;

/// Merges "twelve dollars(,) (and) fifty cents" into one mention.
pub fn merge_dollars_cents(ms: &mut Vec<NumberMention>, toks: &[Token]) {
    let mut idx = 0;
    while idx + 1 < ms.len() {
        let (a, b) = (&ms[idx], &ms[idx + 1]);
        let b_is_cents = toks
            .get(b.end.saturating_sub(1))
            .is_some_and(|t| matches!(t.lower.as_str(), "cent" | "cents"));
        let gap_ok = toks
            .get(a.end..b.start)
            .is_some_and(|g| g.iter().all(|t| t.is_punct(',') || t.lower == "and"));
        // "eight pounds fifty", "nine dollars ninety-nine": the whole
        // units, then the cents as a bare number right after them.
        let spoken_cents = matches!(a.unit, Unit::Money | Unit::Pound)
            && a.end == b.start
            && b.unit == Unit::None
            && b.alt.is_none()
            && b.value.fract() == 0.0
            && (10.0..=99.0).contains(&b.value)
            && toks
                .get(a.end.saturating_sub(1))
                .is_some_and(|t| t.is_word());
        let cents = if spoken_cents {
            Some(b.value / 100.0)
        } else if a.unit == Unit::Money && b_is_cents && gap_ok && b.value < 1.0 {
            Some(b.value)
        } else {
            None
        };
        if let Some(cents) = cents {
            let (value, end) = (a.value.trunc() + cents, b.end);
            let a = &mut ms[idx];
            a.value = value;
            a.alt = None;
            a.end = end;
            ms.remove(idx + 1);
        }
        idx += 1;
    }
}

/// A time of day as said: hour, minute, and pm (`Some(true)`), am
/// (`Some(false)`) or neither.
pub type ClockTime = (u32, u32, Option<bool>);

/// The opening hour of a window on the clock that `mentions[at]` closes
/// ("one to five in the afternoon", "between eight and ten o'clock",
/// "8-10am"), with the closing time's am or pm when it is no later:
/// `(hour, minute, pm)`; `None` unless `mentions[at]` is a time of day
/// (said with am/pm, "o'clock" or minutes).
pub fn window_opening(
    tokens: &[Token],
    mentions: &[NumberMention],
    at: usize,
) -> Option<ClockTime> {
    let close = mentions.get(at)?;
    let a_time = |m: &NumberMention| m.clock.is_some() || m.unit == Unit::Clock || m.pm.is_some();
    if !a_time(close) {
        return None;
    }
    let open = mentions.get(at.checked_sub(1)?)?;
    let gap: Vec<&str> = tokens
        .get(open.end..close.start)?
        .iter()
        .map(|t| t.lower.as_str())
        .collect();
    let between =
        open.start > 0 && matches!(word_at(tokens, open.start - 1), Some("between" | "from"));
    let joined = match gap.as_slice() {
        ["to" | "till" | "until" | "-" | "—"] => true,
        ["and"] => between,
        _ => false,
    };
    let plain_hour = (1.0..=12.0).contains(&open.value) && open.value.fract() == 0.0;
    if !joined || !(a_time(open) || plain_hour) || open.ordinal {
        return None;
    }
    let (hour, minute) = open.clock.unwrap_or((open.value as u32, 0));
    let close_hour = close.clock.map_or(close.value as u32, |c| c.0);
    // "eight to noon", "ten to twelve pm": what ends at noon began
    // before it ("seven to twelve o'clock" may end at midnight).
    let pm = match open.pm {
        Some(pm) => Some(pm),
        None if close_hour == 12 && close.pm == Some(true) && hour < 12 => Some(false),
        None => close.pm.filter(|_| hour <= close_hour),
    };
    Some((hour, minute, pm))
}

/// "At thirty and sixty days": a bare number joined by "and" to a duration
/// is one of that unit too (no range: both are said).
pub fn share_durations(ms: &mut [NumberMention], toks: &[Token]) {
    for idx in (0..ms.len().saturating_sub(1)).rev() {
        let Some(gap) = toks.get(ms[idx].end..ms[idx + 1].start) else {
            continue;
        };
        // Only "and": "Ninety, two hour minimum" is a price and a length.
        let coordinated = matches!(gap, [t] if t.lower == "and");
        if coordinated
            && ms[idx].unit == Unit::None
            && ms[idx].per.is_none()
            && ms[idx].range_with.is_none()
            && ms[idx].clock.is_none()
            && matches!(ms[idx + 1].unit, Unit::Duration(_))
        {
            ms[idx].unit = ms[idx + 1].unit.clone();
        }
    }
}

/// Links "six to eight", "between $2,300 and $2,600", "6-8", "six or seven".
pub fn mark_ranges(ms: &mut [NumberMention], toks: &[Token]) {
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
        let clocky = |m: &NumberMention| m.clock.is_some() || m.unit == Unit::Clock;
        if !is_range || clocky(&ms[idx]) || clocky(&ms[idx + 1]) {
            continue;
        }
        // The unit of the second end applies to both ("two to four hours").
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
