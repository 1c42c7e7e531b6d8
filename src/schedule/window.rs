//! A calling window: the local hours, and the days, when calls may ring.

use std::fmt;
use std::str::FromStr;

use chrono::Weekday;

/// Why a calling window is malformed (`invalid_calling_window` over HTTP).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum WindowError {
    /// `start` or `end` is not a 24-hour `HH:MM` time.
    #[error("{0:?} is not a 24-hour HH:MM time")]
    Time(String),
    /// A day is not one of `mon`, `tue`, `wed`, `thu`, `fri`, `sat`, `sun`.
    #[error("{0:?} is not a day (mon, tue, wed, thu, fri, sat, sun)")]
    Day(String),
    /// `start` is not before `end` (a window may not cross midnight).
    #[error("start {start} is not before end {end} (a window may not cross midnight)")]
    Order {
        /// The window's start.
        start: LocalTime,
        /// The window's end.
        end: LocalTime,
    },
}

/// A wall-clock time of day, to the minute (`00:00` to `23:59`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct LocalTime {
    minutes: u16,
}

impl LocalTime {
    /// Midnight, `00:00`.
    pub const MIDNIGHT: Self = Self { minutes: 0 };

    /// `hour:minute`, or `None` past `23:59`.
    pub const fn new(hour: u8, minute: u8) -> Option<Self> {
        if hour < 24 && minute < 60 {
            Some(Self {
                minutes: hour as u16 * 60 + minute as u16,
            })
        } else {
            None
        }
    }

    /// The hour, 0–23.
    pub const fn hour(self) -> u8 {
        (self.minutes / 60) as u8
    }

    /// The minute, 0–59.
    pub const fn minute(self) -> u8 {
        (self.minutes % 60) as u8
    }

    /// Minutes since midnight.
    pub const fn minutes_since_midnight(self) -> u16 {
        self.minutes
    }
}

impl FromStr for LocalTime {
    type Err = WindowError;

    /// Exactly `HH:MM`, two digits each (`9:00`, `09:00:00` and `24:00`
    /// are errors).
    fn from_str(text: &str) -> Result<Self, Self::Err> {
        let malformed = || WindowError::Time(text.to_owned());
        let &[h1, h2, b':', m1, m2] = text.as_bytes() else {
            return Err(malformed());
        };
        let digit = |byte: u8| byte.is_ascii_digit().then(|| byte - b'0');
        let (Some(h1), Some(h2), Some(m1), Some(m2)) = (digit(h1), digit(h2), digit(m1), digit(m2))
        else {
            return Err(malformed());
        };
        Self::new(h1 * 10 + h2, m1 * 10 + m2).ok_or_else(malformed)
    }
}

impl fmt::Display for LocalTime {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{:02}:{:02}", self.hour(), self.minute())
    }
}

/// A set of days of the week.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Default)]
pub struct Days {
    /// Bit `n` is the day `n` days after Monday.
    bits: u8,
}

impl Days {
    /// Every day of the week.
    pub const EVERY_DAY: Self = Self { bits: 0b111_1111 };
    /// No day: a window with no days never opens.
    pub const NONE: Self = Self { bits: 0 };

    /// The set with `day` added.
    pub const fn with(self, day: Weekday) -> Self {
        Self {
            bits: self.bits | 1 << day.num_days_from_monday(),
        }
    }

    /// Whether `day` is in the set.
    pub const fn contains(self, day: Weekday) -> bool {
        self.bits & 1 << day.num_days_from_monday() != 0
    }

    /// Whether the set has no day.
    pub const fn is_empty(self) -> bool {
        self.bits == 0
    }

    /// The days in the set, Monday first.
    pub fn iter(self) -> impl Iterator<Item = Weekday> {
        (0..7u8)
            .filter(move |n| self.bits & 1 << n != 0)
            .filter_map(|n| Weekday::try_from(n).ok())
    }

    /// Parses the API's day names (`mon` … `sun`, lower case); repeats are
    /// harmless.
    pub fn from_names<'a>(names: impl IntoIterator<Item = &'a str>) -> Result<Self, WindowError> {
        names.into_iter().try_fold(Self::NONE, |days, name| {
            Ok(days.with(day_from_name(name).ok_or_else(|| WindowError::Day(name.to_owned()))?))
        })
    }
}

impl fmt::Debug for Days {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_set().entries(self.iter().map(day_name)).finish()
    }
}

/// The API's name of `day`.
pub fn day_name(day: Weekday) -> &'static str {
    match day {
        Weekday::Mon => "mon",
        Weekday::Tue => "tue",
        Weekday::Wed => "wed",
        Weekday::Thu => "thu",
        Weekday::Fri => "fri",
        Weekday::Sat => "sat",
        Weekday::Sun => "sun",
    }
}

fn day_from_name(name: &str) -> Option<Weekday> {
    Some(match name {
        "mon" => Weekday::Mon,
        "tue" => Weekday::Tue,
        "wed" => Weekday::Wed,
        "thu" => Weekday::Thu,
        "fri" => Weekday::Fri,
        "sat" => Weekday::Sat,
        "sun" => Weekday::Sun,
        _ => return None,
    })
}

/// The JSON form of a [`CallingWindow`]:
/// `{"start": "09:00", "end": "20:00", "days": ["mon", …]}`, `days`
/// optional (every day when absent or `null`). Unknown keys are an error.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(deny_unknown_fields)]
pub struct WindowFields {
    /// When calls may start ringing each day, 24-hour `HH:MM` (inclusive).
    #[cfg_attr(
        feature = "openapi",
        schema(pattern = "^([01][0-9]|2[0-3]):[0-5][0-9]$", example = "09:00")
    )]
    pub start: String,
    /// When they must stop, `HH:MM` (exclusive); after `start`.
    #[cfg_attr(
        feature = "openapi",
        schema(pattern = "^([01][0-9]|2[0-3]):[0-5][0-9]$", example = "20:00")
    )]
    pub end: String,
    /// The days calls may ring (`mon` … `sun`); every day when absent.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "openapi", schema(nullable = true))]
    pub days: Option<Vec<String>>,
}

impl TryFrom<WindowFields> for CallingWindow {
    type Error = WindowError;

    fn try_from(fields: WindowFields) -> Result<Self, Self::Error> {
        let days = match &fields.days {
            None => Days::EVERY_DAY,
            Some(names) => Days::from_names(names.iter().map(String::as_str))?,
        };
        Self::new(fields.start.parse()?, fields.end.parse()?, days)
    }
}

impl From<CallingWindow> for WindowFields {
    fn from(window: CallingWindow) -> Self {
        Self {
            start: window.start.to_string(),
            end: window.end.to_string(),
            days: (window.days != Days::EVERY_DAY).then(|| {
                window
                    .days
                    .iter()
                    .map(|day| day_name(day).to_owned())
                    .collect()
            }),
        }
    }
}

/// The local hours when calls may ring: from `start` (inclusive) to `end`
/// (exclusive) on each of `days`, on the wall clock of the called party.
///
/// ```
/// use agentcall::schedule::{CallingWindow, Days, LocalTime};
///
/// let window: CallingWindow = "09:00-20:00".parse()?;
/// assert_eq!(window.start(), LocalTime::new(9, 0).unwrap());
/// assert_eq!(window.days(), Days::EVERY_DAY);
/// assert!("21:00-08:00".parse::<CallingWindow>().is_err()); // crosses midnight
/// # Ok::<(), agentcall::schedule::WindowError>(())
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
#[serde(try_from = "WindowFields", into = "WindowFields")]
pub struct CallingWindow {
    start: LocalTime,
    end: LocalTime,
    days: Days,
}

impl CallingWindow {
    /// The US default for telephone solicitations (47 CFR § 64.1200(c)(1)):
    /// 08:00 to 21:00 local time, every day.
    pub const US_DEFAULT: Self = Self {
        start: LocalTime { minutes: 8 * 60 },
        end: LocalTime { minutes: 21 * 60 },
        days: Days::EVERY_DAY,
    };

    /// A window from `start` to `end` on `days`; `start` must be before
    /// `end`. An empty `days` is well formed but never opens.
    pub fn new(start: LocalTime, end: LocalTime, days: Days) -> Result<Self, WindowError> {
        if start >= end {
            return Err(WindowError::Order { start, end });
        }
        Ok(Self { start, end, days })
    }

    /// When the window opens each day (inclusive).
    pub fn start(&self) -> LocalTime {
        self.start
    }

    /// When the window closes each day (exclusive).
    pub fn end(&self) -> LocalTime {
        self.end
    }

    /// The days it opens.
    pub fn days(&self) -> Days {
        self.days
    }

    /// Whether a wall-clock time on a day of the week is inside the window.
    pub fn holds(&self, day: Weekday, time: LocalTime) -> bool {
        self.days.contains(day) && self.start <= time && time < self.end
    }
}

impl FromStr for CallingWindow {
    type Err = WindowError;

    /// `HH:MM-HH:MM`, every day (a short form for configuration and tests;
    /// the API's JSON form is `{"start", "end", "days"}`).
    fn from_str(text: &str) -> Result<Self, Self::Err> {
        let (start, end) = text
            .split_once('-')
            .ok_or_else(|| WindowError::Time(text.to_owned()))?;
        Self::new(start.parse()?, end.parse()?, Days::EVERY_DAY)
    }
}

impl fmt::Display for CallingWindow {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}-{}", self.start, self.end)?;
        if self.days != Days::EVERY_DAY {
            let days: Vec<&str> = self.days.iter().map(day_name).collect();
            write!(f, " on {}", days.join(","))?;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    proptest! {
        #[test]
        fn times_round_trip_through_text(hour in 0u8..24, minute in 0u8..60) {
            let time = LocalTime::new(hour, minute).unwrap();
            prop_assert_eq!(time.to_string().parse::<LocalTime>(), Ok(time));
        }

        #[test]
        fn only_two_digit_hours_and_minutes_parse(text in "\\PC{0,8}") {
            let strict = text.len() == 5
                && text.as_bytes()[2] == b':'
                && text[..2].bytes().chain(text[3..].bytes()).all(|b| b.is_ascii_digit())
                && text[..2].parse::<u8>().is_ok_and(|h| h < 24)
                && text[3..].parse::<u8>().is_ok_and(|m| m < 60);
            prop_assert_eq!(text.parse::<LocalTime>().is_ok(), strict);
        }

        #[test]
        fn a_window_holds_exactly_between_start_and_end_on_its_days(
            start in 0u16..1440, end in 0u16..1440, at in 0u16..1440, bits in 0u8..128, day in 0u8..7,
        ) {
            let time = |m: u16| LocalTime::new((m / 60) as u8, (m % 60) as u8).unwrap();
            let days = Days { bits };
            let day = Weekday::try_from(day).unwrap();
            match CallingWindow::new(time(start), time(end), days) {
                Ok(window) => prop_assert_eq!(
                    window.holds(day, time(at)),
                    bits & 1 << day.num_days_from_monday() != 0 && start <= at && at < end
                ),
                Err(error) => {
                    prop_assert!(start >= end);
                    prop_assert_eq!(error, WindowError::Order { start: time(start), end: time(end) });
                }
            }
        }
    }

    #[test]
    fn malformed_times_and_days_are_named() {
        for text in ["9:00", "24:00", "12:60", "12-00", "", "12:00:00", "١٢:٠٠"] {
            assert_eq!(
                text.parse::<LocalTime>(),
                Err(WindowError::Time(text.into()))
            );
        }
        assert_eq!(
            Days::from_names(["mon", "Tue"]),
            Err(WindowError::Day("Tue".into()))
        );
        let weekdays = Days::from_names(["mon", "tue", "wed", "thu", "fri", "fri"]).unwrap();
        assert_eq!(
            format!("{weekdays:?}"),
            r#"{"mon", "tue", "wed", "thu", "fri"}"#
        );
        let window = CallingWindow::new(
            LocalTime::new(9, 0).unwrap(),
            LocalTime::new(17, 30).unwrap(),
            weekdays,
        )
        .unwrap();
        assert_eq!(window.to_string(), "09:00-17:30 on mon,tue,wed,thu,fri");
    }
}
