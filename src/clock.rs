//! The service's clock: what "now" is for placements, calling windows and
//! leases. Real time by default; tests and simulations set it by hand.

use std::fmt::Debug;
use std::sync::Mutex;

use chrono::{DateTime, Utc};

/// A source of the current time.
///
/// # Contract
///
/// `now` is cheap and never fails. It should not go backwards; a clock
/// that does makes leases and windows judge by the earlier time.
pub trait Clock: Send + Sync + Debug {
    /// The current time.
    fn now(&self) -> DateTime<Utc>;
}

/// The system's wall clock ([`Utc::now`]); the default.
#[derive(Debug, Clone, Copy, Default)]
pub struct SystemClock;

impl Clock for SystemClock {
    fn now(&self) -> DateTime<Utc> {
        Utc::now()
    }
}

/// A clock that only moves when told to: for tests of scheduled calls and
/// calling windows without waiting for real time.
///
/// ```
/// use agentcall::clock::{Clock, ManualClock};
///
/// let clock = ManualClock::new("2026-12-01T02:30:00Z".parse()?);
/// clock.advance(chrono::Duration::hours(11));
/// assert_eq!(clock.now(), "2026-12-01T13:30:00Z".parse::<chrono::DateTime<chrono::Utc>>()?);
/// # Ok::<(), chrono::ParseError>(())
/// ```
#[derive(Debug)]
pub struct ManualClock {
    now: Mutex<DateTime<Utc>>,
}

impl ManualClock {
    /// A clock showing `at`.
    pub fn new(at: DateTime<Utc>) -> Self {
        Self {
            now: Mutex::new(at),
        }
    }

    /// Sets the time.
    pub fn set(&self, at: DateTime<Utc>) {
        *self.now.lock().unwrap_or_else(|p| p.into_inner()) = at;
    }

    /// Moves the time on by `by`.
    pub fn advance(&self, by: chrono::Duration) {
        let mut now = self.now.lock().unwrap_or_else(|p| p.into_inner());
        *now = now.checked_add_signed(by).unwrap_or(*now);
    }
}

impl Clock for ManualClock {
    fn now(&self) -> DateTime<Utc> {
        *self.now.lock().unwrap_or_else(|p| p.into_inner())
    }
}
