//! When a calling window next opens for a number: the first instant, at or
//! after a given time, at which the window holds on the wall clock of every
//! one of the number's time zones.

use chrono::{DateTime, Utc, Weekday};
use jiff::tz::TimeZone;
use jiff::{SignedDuration, Timestamp};

use super::{CallingWindow, LocalTime, Zone};

/// How far ahead one pass of the search looks.
const CHUNK: SignedDuration = SignedDuration::from_hours(8 * 24);
/// How many passes before a window is declared never to open: a year and a
/// few days, so every weekday under every daylight-saving rule of the year
/// has been tried (two zones whose offsets differ by an hour in summer may
/// coincide in winter).
const CHUNKS: u32 = 47;

/// The first instant `t >= after` at which `window` holds in every zone,
/// or `None` if it never does within the next year (an empty `days`, hours
/// that never coincide in all zones, no zones at all, or a zone the
/// time-zone database does not know: local time cannot be checked, so the
/// call may not ring).
///
/// Exact, not sampled: the window can only start to hold in a zone when its
/// wall clock reaches `start` (both passes of a repeated hour count) or
/// jumps (a daylight-saving or offset transition), so those instants are
/// the only candidates besides `after` itself.
///
/// ```
/// use agentcall::schedule::{next_opening, time_zones, CallingWindow};
/// use chrono::{DateTime, Utc};
///
/// let window = CallingWindow::US_DEFAULT; // 08:00-21:00
/// // 21:30 in New York (EST, UTC-5) is 02:30 UTC the next day.
/// let late: DateTime<Utc> = "2026-12-02T02:30:00Z".parse()?;
/// let opens = next_opening(&window, time_zones("+12125550123"), late);
/// assert_eq!(opens, Some("2026-12-02T13:00:00Z".parse()?)); // 08:00 EST
/// # Ok::<(), chrono::ParseError>(())
/// ```
pub fn next_opening(
    window: &CallingWindow,
    zones: impl IntoIterator<Item = Zone>,
    after: DateTime<Utc>,
) -> Option<DateTime<Utc>> {
    next_opening_before(window, zones, after, None)
}

/// [`next_opening`], searching no further than `until` (when given) nor a
/// year: the work is bounded by the nearer of the two.
fn next_opening_before(
    window: &CallingWindow,
    zones: impl IntoIterator<Item = Zone>,
    after: DateTime<Utc>,
    until: Option<DateTime<Utc>>,
) -> Option<DateTime<Utc>> {
    if window.days().is_empty() {
        return None;
    }
    let zones: Vec<&TimeZone> = zones
        .into_iter()
        .map(Zone::time_zone)
        .collect::<Option<_>>()?;
    if zones.is_empty() {
        return None;
    }
    let after = to_timestamp(after)?;
    if holds_everywhere(window, &zones, after) {
        return from_timestamp(after);
    }
    let mut from = after;
    let mut candidates = Vec::new();
    let horizon = match until {
        Some(until) => Some(to_timestamp(until)?),
        None => None,
    };
    for _ in 0..CHUNKS {
        if horizon.is_some_and(|horizon| from >= horizon) {
            return None;
        }
        let until = from.checked_add(CHUNK).ok()?;
        candidates.clear();
        for zone in &zones {
            starts_between(window, zone, from, until, &mut candidates);
            candidates.extend(
                zone.following(from)
                    .map(|transition| transition.timestamp())
                    .take_while(|&at| at <= until),
            );
        }
        candidates.retain(|&at| from < at && at <= until);
        candidates.sort_unstable();
        candidates.dedup();
        if let Some(&opens) = candidates
            .iter()
            .find(|&&at| holds_everywhere(window, &zones, at))
        {
            return from_timestamp(opens);
        }
        from = until;
    }
    None
}

/// The first instant `t >= after` from which the window holds in every
/// zone for `room` as well (at `t` and at `t + room`): a call started then
/// can ring for `room` without ringing outside the window. `None` when no
/// such instant comes within the search of [`next_opening`] (a window
/// shorter than `room` never has room).
///
/// ```
/// use agentcall::schedule::{opening_with_room, time_zones, CallingWindow};
/// use chrono::{DateTime, Utc};
///
/// // 20:58 in New York: too late to ring for five minutes before 21:00.
/// let late: DateTime<Utc> = "2026-12-02T01:58:00Z".parse()?;
/// let room = std::time::Duration::from_secs(300);
/// let opens = opening_with_room(&CallingWindow::US_DEFAULT, time_zones("+12125550123"), late, room);
/// assert_eq!(opens, Some("2026-12-02T13:00:00Z".parse()?));
/// # Ok::<(), chrono::ParseError>(())
/// ```
pub fn opening_with_room(
    window: &CallingWindow,
    zones: impl IntoIterator<Item = Zone> + Clone,
    after: DateTime<Utc>,
    room: std::time::Duration,
) -> Option<DateTime<Utc>> {
    search_with_room(window, zones, after, room, None)
}

/// [`opening_with_room`], for an opening no later than `until`: `None` when
/// there is none by then. The search stops at `until`, so its cost is
/// bounded by how far ahead it looks, whatever the window and however many
/// zones the number spans (a placement looks 30 days ahead at most).
///
/// ```
/// use agentcall::schedule::{opening_within, time_zones, CallingWindow};
/// use chrono::{DateTime, Utc};
///
/// let late: DateTime<Utc> = "2026-12-02T01:58:00Z".parse()?;
/// let room = std::time::Duration::from_secs(300);
/// let zones = time_zones("+12125550123");
/// let by_morning: DateTime<Utc> = "2026-12-02T14:00:00Z".parse()?;
/// let by_midnight: DateTime<Utc> = "2026-12-02T05:00:00Z".parse()?;
/// let window = CallingWindow::US_DEFAULT;
/// assert_eq!(opening_within(&window, zones.clone(), late, room, by_morning), Some("2026-12-02T13:00:00Z".parse()?));
/// assert_eq!(opening_within(&window, zones, late, room, by_midnight), None);
/// # Ok::<(), chrono::ParseError>(())
/// ```
pub fn opening_within(
    window: &CallingWindow,
    zones: impl IntoIterator<Item = Zone> + Clone,
    after: DateTime<Utc>,
    room: std::time::Duration,
    until: DateTime<Utc>,
) -> Option<DateTime<Utc>> {
    search_with_room(window, zones, after, room, Some(until)).filter(|&at| at <= until)
}

fn search_with_room(
    window: &CallingWindow,
    zones: impl IntoIterator<Item = Zone> + Clone,
    after: DateTime<Utc>,
    room: std::time::Duration,
    until: Option<DateTime<Utc>>,
) -> Option<DateTime<Utc>> {
    let room = chrono::Duration::from_std(room).ok()?;
    let mut from = after;
    // Each miss moves past one opening's day; a year of days at most.
    for _ in 0..400 {
        if until.is_some_and(|until| from > until) {
            return None;
        }
        let opens = next_opening_before(window, zones.clone(), from, until)?;
        let rings_until = opens.checked_add_signed(room)?;
        if holds_at(window, zones.clone(), rings_until) {
            return Some(opens);
        }
        from = rings_until;
    }
    None
}

/// Whether the window holds at `at` on the wall clock of every zone.
pub fn holds_at(
    window: &CallingWindow,
    zones: impl IntoIterator<Item = Zone>,
    at: DateTime<Utc>,
) -> bool {
    let zones: Option<Vec<&TimeZone>> = zones.into_iter().map(Zone::time_zone).collect();
    match (zones, to_timestamp(at)) {
        (Some(zones), Some(at)) if !zones.is_empty() => holds_everywhere(window, &zones, at),
        _ => false,
    }
}

fn holds_everywhere(window: &CallingWindow, zones: &[&TimeZone], at: Timestamp) -> bool {
    zones.iter().all(|zone| {
        let local = zone.to_datetime(at);
        let day = Weekday::try_from(local.weekday().to_monday_zero_offset() as u8);
        let time = LocalTime::new(local.hour() as u8, local.minute() as u8);
        matches!((day, time), (Ok(day), Some(time)) if window.holds(day, time))
    })
}

/// Pushes every instant in `(from, until]`, give or take a day, at which
/// `zone`'s wall clock shows the window's start on one of its days (both,
/// when the hour repeats).
fn starts_between(
    window: &CallingWindow,
    zone: &TimeZone,
    from: Timestamp,
    until: Timestamp,
    into: &mut Vec<Timestamp>,
) {
    let start = window.start();
    let Ok(mut date) = zone.to_datetime(from).date().yesterday() else {
        return;
    };
    let last = zone.to_datetime(until).date();
    while date <= last {
        let day = Weekday::try_from(date.weekday().to_monday_zero_offset() as u8);
        if day.is_ok_and(|day| window.days().contains(day)) {
            let civil = date.at(start.hour() as i8, start.minute() as i8, 0, 0);
            let ambiguous = zone.to_ambiguous_timestamp(civil);
            into.extend(ambiguous.earlier().ok());
            into.extend(ambiguous.later().ok());
        }
        let Ok(next) = date.tomorrow() else {
            return;
        };
        date = next;
    }
}

fn to_timestamp(at: DateTime<Utc>) -> Option<Timestamp> {
    Timestamp::new(at.timestamp(), at.timestamp_subsec_nanos() as i32).ok()
}

fn from_timestamp(at: Timestamp) -> Option<DateTime<Utc>> {
    DateTime::from_timestamp(at.as_second(), at.subsec_nanosecond().try_into().ok()?)
}
