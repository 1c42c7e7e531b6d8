//! Calling at the right time: calling windows on the called party's wall
//! clock, from the time zones libphonenumber gives the number.
//!
//! - [`time_zones`]: a number's IANA zones (libphonenumber's time-zone map,
//!   compiled in at build time; NANP area codes can span several zones).
//! - [`CallingWindow`]: local hours (`start` inclusive, `end` exclusive,
//!   never across midnight) on some days of the week.
//! - [`next_opening`]: the first instant, at or after a given time, at which
//!   a window holds in every zone of a number, daylight saving included
//!   (the time-zone database is bundled with the crate, so every host
//!   answers alike).
//! - [`RetryPolicy`]: how a call that reached no one is tried again (how
//!   many dials in all, after which outcomes, and after what delay).
//!
//! ```
//! use agentcall::schedule::{next_opening, time_zones, CallingWindow};
//! use chrono::{DateTime, Utc};
//!
//! // Idaho's 208 spans Mountain and Pacific time: at 07:30 Pacific it is
//! // already 08:30 in Boise, but the call waits for 08:00 in Los Angeles.
//! let at: DateTime<Utc> = "2026-12-01T15:30:00Z".parse()?;
//! let opens = next_opening(&CallingWindow::US_DEFAULT, time_zones("+12085550123"), at);
//! assert_eq!(opens, Some("2026-12-01T16:00:00Z".parse()?));
//! # Ok::<(), chrono::ParseError>(())
//! ```

mod opening;
mod retry;
mod window;
mod zones;

pub use opening::{holds_at, next_opening, opening_with_room, opening_within};
pub use retry::{
    DEFAULT_DELAY_MINUTES, MAX_ATTEMPTS, MAX_DELAY_MINUTES, RetryError, RetryFields, RetryOn,
    RetryPolicy,
};
pub use window::{CallingWindow, Days, LocalTime, WindowError, WindowFields, day_name};
pub use zones::{Zone, time_zones};

#[cfg(test)]
mod tests;
