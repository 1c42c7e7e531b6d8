//! The plan minute cap: billed minutes plus in-flight reservations never pass it.
//!
//! # The rule
//!
//! Usage in a billing period is the billed minutes of the calls placed in it
//! (each call's `durationSec` rounded up to whole minutes, at least one for
//! a connected call, one with `startedAt`). At placement a
//! call reserves the smaller of the deployment's maximum call duration and
//! the whole minutes left after usage and the reservations of calls still in
//! flight; it is dialed with that as its maximum duration. A placement that
//! finds less than one whole minute to reserve gets `over_minute_cap`. When
//! the call ends, its reservation is replaced by its billed minutes, which
//! never exceed the reservation (the carrier hangs up when it is reached).
//! A call retried after an unanswered attempt reserves again for each
//! attempt ([`CallAttempt`]), in the period it was placed in, and each
//! attempt is settled once.

use std::collections::HashMap;
use std::fmt::Debug;
use std::sync::Mutex;

use async_trait::async_trait;
use chrono::{DateTime, Datelike, Duration, TimeZone, Utc};

use crate::domain::{AccountId, CallAttempt};
use crate::store::StoreError;

/// How billing periods are cut.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum BillingPeriod {
    /// Calendar months in UTC (the default).
    #[default]
    CalendarMonthUtc,
    /// Fixed-length periods starting at `anchor`.
    Fixed {
        /// Start of one period.
        anchor: DateTime<Utc>,
        /// Length of every period (at least one second).
        length: Duration,
    },
}

impl BillingPeriod {
    /// The start of the period that contains `at`.
    pub fn start_of(&self, at: DateTime<Utc>) -> DateTime<Utc> {
        match *self {
            Self::CalendarMonthUtc => Utc
                .with_ymd_and_hms(at.year(), at.month(), 1, 0, 0, 0)
                .single()
                .unwrap_or(at),
            Self::Fixed { anchor, length } => {
                let length_ms = length.num_milliseconds().max(1_000);
                let offset = (at - anchor).num_milliseconds();
                anchor + Duration::milliseconds(offset.div_euclid(length_ms) * length_ms)
            }
        }
    }
}

/// Whole minutes billed for a call of `duration_sec` seconds.
pub fn billed_minutes(duration_sec: u64) -> u64 {
    duration_sec.div_ceil(60)
}

/// Why [`UsageLedger::reserve`] reserved nothing.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum ReserveError {
    /// The account has less than one whole minute left to reserve
    /// (`429 over_minute_cap`).
    #[error("outbound minute cap reached")]
    OverCap,
    /// The ledger could not tell: its backend failed, so what is left of
    /// the cap is unknown (`503 store_error`). Nothing was reserved.
    #[error("usage ledger unavailable: {0}")]
    Unavailable(#[source] StoreError),
}

/// Usage so far in one period.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
#[non_exhaustive]
pub struct Usage {
    /// Minutes billed for ended calls.
    pub billed: u64,
    /// Minutes reserved by calls in flight.
    pub reserved: u64,
}

impl Usage {
    /// Usage of `billed` minutes with `reserved` more held by calls in flight.
    pub fn new(billed: u64, reserved: u64) -> Self {
        Self { billed, reserved }
    }
}

/// Tracks each account's minutes per billing period.
///
/// # Contract
///
/// - `reserve` atomically reserves `min(max_minutes, cap - billed - reserved)`
///   in the period starting at `period` for one attempt of a call, or fails
///   with [`ReserveError::OverCap`] when that is below one minute. Under any
///   concurrency `billed + reserved` never exceeds `cap`.
/// - `settle` replaces an attempt's reservation by its billed minutes
///   (clamped to the reservation); settling with 0 billed releases it.
///   Each attempt is settled once: a second settlement of the same
///   [`CallAttempt`] changes nothing and succeeds (after a crash between
///   the ledger's settlement and the call's record of it, another instance
///   settles the attempt again; a cancel may race the end of an attempt).
///   The durable ledgers keep the attempts they settled;
///   [`MemoryUsageLedger`] keeps each reservation until it is settled and
///   ignores a settlement of an attempt it holds none for.
/// - `release` gives back `reserved` minutes reserved for `attempt` that it
///   never used (its start lost a race, so it never rang) without recording
///   the attempt as settled: whoever does run the attempt reserves and
///   settles its own minutes. A release is not deduplicated; the service
///   makes it once per such reservation.
/// - When the backend fails, `reserve` fails with
///   [`ReserveError::Unavailable`] and reserves nothing, `settle` with
///   [`StoreError::Unavailable`] and changes nothing (the caller may retry
///   it), and `usage` with [`StoreError::Unavailable`]. An outage is never
///   reported as a reached cap, and `usage` never reports zero for an
///   error. Each should answer within a few seconds rather than wait out
///   the outage.
#[async_trait]
pub trait UsageLedger: Send + Sync + Debug {
    /// Reserves minutes for one attempt of a call; returns how many.
    async fn reserve(
        &self,
        account: &AccountId,
        attempt: &CallAttempt,
        period: DateTime<Utc>,
        cap: u64,
        max_minutes: u64,
    ) -> Result<u64, ReserveError>;

    /// Replaces a reservation by what was billed. An error means nothing
    /// was changed; the service keeps the call unsettled and
    /// [`AgentCall::recover`](crate::AgentCall::recover) settles it later.
    async fn settle(
        &self,
        account: &AccountId,
        attempt: &CallAttempt,
        period: DateTime<Utc>,
        reserved: u64,
        billed: u64,
    ) -> Result<(), StoreError>;

    /// Gives back a reservation whose attempt never started; see the
    /// contract.
    async fn release(
        &self,
        account: &AccountId,
        attempt: &CallAttempt,
        period: DateTime<Utc>,
        reserved: u64,
    ) -> Result<(), StoreError>;

    /// The account's usage in a period.
    async fn usage(&self, account: &AccountId, period: DateTime<Utc>) -> Result<Usage, StoreError>;
}

/// The ledger in process memory.
///
/// Past periods with nothing still reserved are dropped once a newer period
/// is in use (their usage then reads as zero), so memory follows the
/// accounts of the current period.
#[derive(Debug, Default)]
pub struct MemoryUsageLedger {
    periods: Mutex<Periods>,
}

#[derive(Debug, Default)]
struct Periods {
    usage: HashMap<(AccountId, DateTime<Utc>), Usage, foldhash::fast::RandomState>,
    /// The reservations not yet settled: whose, in which period, how many
    /// minutes. A settlement takes its attempt's entry, so a second one
    /// finds none and changes nothing.
    held: HashMap<CallAttempt, (AccountId, DateTime<Utc>, u64), foldhash::fast::RandomState>,
    /// The newest period seen; older ones are dropped when settled.
    newest: Option<DateTime<Utc>>,
}

impl Periods {
    /// The usage entry of `account` in `period`, after dropping settled
    /// past periods when a new period starts.
    fn entry(&mut self, account: &AccountId, period: DateTime<Utc>) -> &mut Usage {
        if self.newest.is_none_or(|newest| period > newest) {
            self.newest = Some(period);
            self.usage
                .retain(|(_, kept), usage| *kept >= period || usage.reserved > 0);
        }
        self.usage.entry((account.clone(), period)).or_default()
    }
}

impl MemoryUsageLedger {
    /// An empty ledger.
    pub fn new() -> Self {
        Self::default()
    }
}

#[async_trait]
impl UsageLedger for MemoryUsageLedger {
    async fn reserve(
        &self,
        account: &AccountId,
        attempt: &CallAttempt,
        period: DateTime<Utc>,
        cap: u64,
        max_minutes: u64,
    ) -> Result<u64, ReserveError> {
        let mut periods = self.periods.lock().unwrap_or_else(|p| p.into_inner());
        let usage = periods.entry(account, period);
        let left = cap.saturating_sub(usage.billed + usage.reserved);
        let reserve = left.min(max_minutes);
        if reserve == 0 {
            return Err(ReserveError::OverCap);
        }
        usage.reserved += reserve;
        // A second reservation of one attempt (not something the service
        // does) adds to the first, so the usage stays the sum of the held.
        periods
            .held
            .entry(attempt.clone())
            .or_insert_with(|| (account.clone(), period, 0))
            .2 += reserve;
        Ok(reserve)
    }

    async fn settle(
        &self,
        _account: &AccountId,
        attempt: &CallAttempt,
        _period: DateTime<Utc>,
        _reserved: u64,
        billed: u64,
    ) -> Result<(), StoreError> {
        let mut periods = self.periods.lock().unwrap_or_else(|p| p.into_inner());
        // What was reserved is known here: the caller's figures only
        // matter to ledgers that keep no reservations.
        let Some((account, period, reserved)) = periods.held.remove(attempt) else {
            return Ok(());
        };
        let usage = periods.entry(&account, period);
        usage.reserved = usage.reserved.saturating_sub(reserved);
        usage.billed += billed.min(reserved);
        Ok(())
    }

    async fn release(
        &self,
        _account: &AccountId,
        attempt: &CallAttempt,
        _period: DateTime<Utc>,
        reserved: u64,
    ) -> Result<(), StoreError> {
        let mut periods = self.periods.lock().unwrap_or_else(|p| p.into_inner());
        let Some(held) = periods.held.get_mut(attempt) else {
            return Ok(());
        };
        let given_back = reserved.min(held.2);
        held.2 -= given_back;
        let (account, period) = (held.0.clone(), held.1);
        if held.2 == 0 {
            periods.held.remove(attempt);
        }
        let usage = periods.entry(&account, period);
        usage.reserved = usage.reserved.saturating_sub(given_back);
        Ok(())
    }

    async fn usage(&self, account: &AccountId, period: DateTime<Utc>) -> Result<Usage, StoreError> {
        let periods = self.periods.lock().unwrap_or_else(|p| p.into_inner());
        Ok(periods
            .usage
            .get(&(account.clone(), period))
            .copied()
            .unwrap_or_default())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn attempt() -> CallAttempt {
        CallAttempt::first(crate::domain::CallId::generate())
    }

    fn at(s: &str) -> DateTime<Utc> {
        DateTime::parse_from_rfc3339(s).unwrap().to_utc()
    }

    #[test]
    fn periods_are_calendar_months_by_default() {
        let p = BillingPeriod::default();
        assert_eq!(
            p.start_of(at("2026-11-22T02:11:09Z")),
            at("2026-11-01T00:00:00Z")
        );
        let fixed = BillingPeriod::Fixed {
            anchor: at("2026-01-01T00:00:00Z"),
            length: Duration::days(7),
        };
        assert_eq!(
            fixed.start_of(at("2026-01-09T00:00:00Z")),
            at("2026-01-08T00:00:00Z")
        );
        assert_eq!(
            fixed.start_of(at("2025-12-31T00:00:00Z")),
            at("2025-12-25T00:00:00Z")
        );
    }

    #[test]
    fn billing_rounds_up_to_whole_minutes() {
        assert_eq!([0, 1, 60, 61, 600].map(billed_minutes), [0, 1, 1, 2, 10]);
    }

    #[tokio::test]
    async fn settled_past_periods_are_dropped_when_a_new_one_starts() {
        let ledger = MemoryUsageLedger::new();
        let (october, november) = (at("2026-10-01T00:00:00Z"), at("2026-11-01T00:00:00Z"));
        let accounts: Vec<AccountId> = (0..50).map(|i| format!("a{i}").parse().unwrap()).collect();
        use crate::domain::CallId;
        let calls: Vec<CallAttempt> = accounts
            .iter()
            .map(|_| CallAttempt::first(CallId::generate()))
            .collect();
        for (account, call) in accounts.iter().zip(&calls) {
            assert_eq!(
                ledger.reserve(account, call, october, 100, 10).await.ok(),
                Some(10)
            );
        }
        // One call of October is still running when November starts.
        for (account, call) in accounts.iter().zip(&calls).skip(1) {
            ledger.settle(account, call, october, 10, 2).await.unwrap();
        }
        ledger
            .reserve(&accounts[1], &attempt(), november, 100, 10)
            .await
            .unwrap();
        assert_eq!(ledger.periods.lock().unwrap().usage.len(), 2);
        // Its late settlement still lands in October.
        ledger
            .settle(&accounts[0], &calls[0], october, 10, 4)
            .await
            .unwrap();
        assert_eq!(
            ledger.usage(&accounts[0], october).await.unwrap(),
            Usage::new(4, 0)
        );
    }

    #[tokio::test]
    async fn reservations_never_pass_the_cap() {
        let ledger = MemoryUsageLedger::new();
        let acct: AccountId = "a".parse().unwrap();
        let p = at("2026-11-01T00:00:00Z");
        let calls: Vec<CallAttempt> = (0..5).map(|_| attempt()).collect();
        assert_eq!(
            ledger.reserve(&acct, &calls[0], p, 25, 10).await.ok(),
            Some(10)
        );
        assert_eq!(
            ledger.reserve(&acct, &calls[1], p, 25, 10).await.ok(),
            Some(10)
        );
        assert_eq!(
            ledger.reserve(&acct, &calls[2], p, 25, 10).await.ok(),
            Some(5)
        );
        assert!(matches!(
            ledger.reserve(&acct, &calls[3], p, 25, 10).await,
            Err(ReserveError::OverCap)
        ));
        ledger.settle(&acct, &calls[0], p, 10, 3).await.unwrap();
        // Settled once: a repeat (a cancel racing the end) changes nothing.
        ledger.settle(&acct, &calls[0], p, 10, 3).await.unwrap();
        assert_eq!(
            ledger.usage(&acct, p).await.unwrap(),
            Usage {
                billed: 3,
                reserved: 15
            }
        );
        assert_eq!(
            ledger.reserve(&acct, &calls[4], p, 25, 10).await.ok(),
            Some(7)
        );
        ledger.settle(&acct, &calls[2], p, 5, 99).await.unwrap();
        // An attempt that holds no reservation settles nothing.
        ledger.settle(&acct, &attempt(), p, 5, 5).await.unwrap();
        assert_eq!(
            ledger.usage(&acct, p).await.unwrap().billed,
            8,
            "billing is clamped to the reservation"
        );
        // Two instances raced to start one attempt: the loser gives its
        // minutes back and the winner still settles its own.
        let raced = attempt();
        let usage_before = ledger.usage(&acct, p).await.unwrap();
        assert_eq!(ledger.reserve(&acct, &raced, p, 100, 3).await.ok(), Some(3));
        assert_eq!(ledger.reserve(&acct, &raced, p, 100, 3).await.ok(), Some(3));
        ledger.release(&acct, &raced, p, 3).await.unwrap();
        ledger.settle(&acct, &raced, p, 3, 2).await.unwrap();
        assert_eq!(
            ledger.usage(&acct, p).await.unwrap(),
            Usage::new(usage_before.billed + 2, usage_before.reserved)
        );
    }
}
