//! The service's clock: what "now" is for placements, calling windows and
//! leases. Real time by default; tests and simulations set it by hand.

use std::fmt::Debug;
use std::time::Duration;

use async_trait::async_trait;
use chrono::{DateTime, Utc};
use tokio::sync::watch;

/// A source of the current time.
///
/// # Contract
///
/// `now` is cheap and never fails. It should not go backwards; a clock
/// that does makes leases and windows judge by the earlier time.
/// `sleep_until` returns once `now` has reached `at` (at once when it has);
/// the default checks the clock at least every second, so a clock that
/// jumps is noticed within one.
#[async_trait]
pub trait Clock: Send + Sync + Debug {
    /// The current time.
    fn now(&self) -> DateTime<Utc>;

    /// Waits until the clock shows `at` or later; see the contract.
    async fn sleep_until(&self, at: DateTime<Utc>) {
        loop {
            let left = (at - self.now()).to_std().unwrap_or(Duration::ZERO);
            if left.is_zero() {
                return;
            }
            tokio::time::sleep(left.min(Duration::from_secs(1))).await;
        }
    }
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
    /// The time, and a way to wake whoever sleeps on it when it moves.
    now: watch::Sender<DateTime<Utc>>,
}

impl ManualClock {
    /// A clock showing `at`.
    pub fn new(at: DateTime<Utc>) -> Self {
        Self {
            now: watch::Sender::new(at),
        }
    }

    /// Sets the time.
    pub fn set(&self, at: DateTime<Utc>) {
        self.now.send_replace(at);
    }

    /// Moves the time on by `by`.
    pub fn advance(&self, by: chrono::Duration) {
        self.now
            .send_modify(|now| *now = now.checked_add_signed(by).unwrap_or(*now));
    }
}

#[async_trait]
impl Clock for ManualClock {
    fn now(&self) -> DateTime<Utc> {
        *self.now.borrow()
    }

    /// Wakes as soon as the clock is set or moved to `at` or later.
    async fn sleep_until(&self, at: DateTime<Utc>) {
        let mut moves = self.now.subscribe();
        // The sender lives as long as `self`, so waiting cannot fail.
        let _ = moves.wait_for(|now| *now >= at).await;
    }
}
