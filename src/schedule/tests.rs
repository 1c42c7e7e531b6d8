//! Calling windows against real time-zone rules, at chosen instants (no
//! test waits for a clock).

use chrono::{DateTime, Duration, Utc};
use proptest::prelude::*;

use super::*;

fn utc(text: &str) -> DateTime<Utc> {
    text.parse().unwrap()
}

fn window(text: &str) -> CallingWindow {
    text.parse().unwrap()
}

const NEW_YORK: &str = "+12125550123";
/// Idaho's 208: America/Boise (Mountain) and America/Los_Angeles (Pacific).
const IDAHO: &str = "+12085550123";

#[test]
fn a_new_york_number_placed_at_half_past_nine_in_the_evening_waits_until_eight() {
    // 2026-12-01 21:30 EST (UTC-5).
    let placed = utc("2026-12-02T02:30:00Z");
    assert!(!holds_at(
        &CallingWindow::US_DEFAULT,
        time_zones(NEW_YORK),
        placed
    ));
    let opens = next_opening(&CallingWindow::US_DEFAULT, time_zones(NEW_YORK), placed);
    assert_eq!(opens, Some(utc("2026-12-02T13:00:00Z")));
    // Inside the window, the answer is the time itself.
    let noon = utc("2026-12-02T17:00:00Z");
    assert_eq!(
        next_opening(&CallingWindow::US_DEFAULT, time_zones(NEW_YORK), noon),
        Some(noon)
    );
}

#[test]
fn a_number_spanning_two_zones_waits_for_the_later_one() {
    let names: Vec<&str> = time_zones(IDAHO).map(Zone::name).collect();
    assert_eq!(names, ["America/Boise", "America/Los_Angeles"]);
    // 06:30 MST = 05:30 PST: Boise opens at 08:00 MST (15:00Z), Los Angeles
    // at 08:00 PST (16:00Z); the call waits for both.
    let opens = next_opening(
        &CallingWindow::US_DEFAULT,
        time_zones(IDAHO),
        utc("2026-12-01T13:30:00Z"),
    );
    assert_eq!(opens, Some(utc("2026-12-01T16:00:00Z")));
    // And it must stop at 21:00 in Boise (04:00Z), an hour before LA.
    assert!(holds_at(
        &CallingWindow::US_DEFAULT,
        time_zones(IDAHO),
        utc("2026-12-02T03:59:00Z")
    ));
    assert!(!holds_at(
        &CallingWindow::US_DEFAULT,
        time_zones(IDAHO),
        utc("2026-12-02T04:00:00Z")
    ));
}

#[test]
fn daylight_saving_transitions_are_followed() {
    // New York springs forward on 2027-03-14: 02:00 EST becomes 03:00 EDT
    // at 07:00Z, so a 02:30-04:00 window first holds at 03:00 EDT.
    let opens = next_opening(
        &window("02:30-04:00"),
        time_zones(NEW_YORK),
        utc("2027-03-14T05:00:00Z"),
    );
    assert_eq!(opens, Some(utc("2027-03-14T07:00:00Z")));
    // The 08:00 opening moves an hour earlier in UTC across the change.
    let before = next_opening(
        &CallingWindow::US_DEFAULT,
        time_zones(NEW_YORK),
        utc("2027-03-13T03:00:00Z"),
    );
    let after = next_opening(
        &CallingWindow::US_DEFAULT,
        time_zones(NEW_YORK),
        utc("2027-03-15T03:00:00Z"),
    );
    assert_eq!(before, Some(utc("2027-03-13T13:00:00Z")));
    assert_eq!(after, Some(utc("2027-03-15T12:00:00Z")));
    // Falling back on 2026-11-01, 01:00-02:00 is lived twice: at 01:40 EDT
    // (05:40Z) a 01:00-01:30 window has closed, and holds again when the
    // clock goes back to 01:00 EST (06:00Z).
    let opens = next_opening(
        &window("01:00-01:30"),
        time_zones(NEW_YORK),
        utc("2026-11-01T05:40:00Z"),
    );
    assert_eq!(opens, Some(utc("2026-11-01T06:00:00Z")));
}

#[test]
fn a_window_that_never_opens_is_none() {
    let at = utc("2026-12-01T12:00:00Z");
    let no_days = CallingWindow::new(
        LocalTime::new(9, 0).unwrap(),
        LocalTime::new(17, 0).unwrap(),
        Days::NONE,
    )
    .unwrap();
    assert_eq!(next_opening(&no_days, time_zones(NEW_YORK), at), None);
    // A 1-900 number has every NANP zone, from Guam (UTC+10) to Adak
    // (UTC-10): no hour is 09:00-10:00 in all of them.
    assert!(time_zones("+19005550123").count() > 30);
    assert_eq!(
        next_opening(&window("09:00-10:00"), time_zones("+19005550123"), at),
        None
    );
    // No zone at all: local time cannot be checked.
    assert_eq!(
        next_opening(&CallingWindow::US_DEFAULT, time_zones("+80012345678"), at),
        None
    );
}

#[test]
fn weekday_windows_skip_the_weekend_in_local_time() {
    let weekdays = CallingWindow::new(
        LocalTime::new(9, 0).unwrap(),
        LocalTime::new(17, 0).unwrap(),
        Days::from_names(["mon", "tue", "wed", "thu", "fri"]).unwrap(),
    )
    .unwrap();
    // Friday 2026-12-04 18:00 EST is already Saturday in UTC; the next
    // opening is Monday 09:00 EST.
    let opens = next_opening(&weekdays, time_zones(NEW_YORK), utc("2026-12-04T23:00:00Z"));
    assert_eq!(opens, Some(utc("2026-12-07T14:00:00Z")));
}

/// Numbers with one zone, two, and a zone with half-hour offsets.
const NUMBERS: [&str; 5] = [
    NEW_YORK,
    IDAHO,
    "+442079460000",
    "+61212345678",
    "+919812345678",
];

fn any_window() -> impl Strategy<Value = CallingWindow> {
    (0u16..1439, 1u16..1440, 1u8..128).prop_filter_map("start before end", |(start, end, bits)| {
        let time = |m: u16| LocalTime::new((m / 60) as u8, (m % 60) as u8).unwrap();
        let days = (0..7u8)
            .filter(|n| bits & 1 << n != 0)
            .filter_map(|n| chrono::Weekday::try_from(n).ok())
            .fold(Days::NONE, Days::with);
        CallingWindow::new(time(start), time(end), days).ok()
    })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(48))]

    /// The answer holds, and no minute between the start and it does.
    #[test]
    fn the_next_opening_is_the_first_instant_the_window_holds(
        window in any_window(),
        number in prop::sample::select(&NUMBERS[..]),
        // 2026-2028, to the second.
        offset in 0i64..(3 * 365 * 86_400),
    ) {
        let after = utc("2026-01-01T00:00:00Z") + Duration::seconds(offset);
        let opens = next_opening(&window, time_zones(number), after);
        let horizon = after + Duration::days(8);
        let end = match opens {
            Some(opens) => {
                prop_assert!(opens >= after);
                prop_assert!(holds_at(&window, time_zones(number), opens));
                opens.min(horizon)
            }
            None => horizon,
        };
        // Wall clocks move in whole minutes here, so a minute-by-minute
        // walk from `after` sees every change.
        let mut at = after;
        while at < end {
            prop_assert!(!holds_at(&window, time_zones(number), at), "holds at {at}, before {opens:?}");
            at += Duration::minutes(1);
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(48))]

    /// A search bounded at `until` finds what the unbounded one finds when
    /// that is no later than `until`, and nothing otherwise.
    #[test]
    fn a_bounded_search_agrees_with_the_unbounded_one_up_to_its_bound(
        window in any_window(),
        number in prop::sample::select(&NUMBERS[..]),
        offset in 0i64..(3 * 365 * 86_400),
        days_ahead in 0i64..40,
        ring in 0u64..7_200,
    ) {
        let after = utc("2026-01-01T00:00:00Z") + Duration::seconds(offset);
        let until = after + Duration::days(days_ahead);
        let ring = std::time::Duration::from_secs(ring);
        let unbounded = opening_with_room(&window, time_zones(number), after, ring);
        let bounded = opening_within(&window, time_zones(number), after, ring, until);
        prop_assert_eq!(bounded, unbounded.filter(|&at| at <= until));
    }
}
