//! Per-key placement rate limits.

use std::collections::{HashMap, VecDeque};
use std::fmt::Debug;
use std::sync::Mutex;
use std::time::Duration;

use async_trait::async_trait;
use chrono::{DateTime, Utc};

use crate::domain::KeyId;
use crate::store::StoreError;

/// The window the per-minute limit counts over.
pub const RATE_WINDOW: Duration = Duration::from_secs(60);

/// A placement counted against a key's budget; hand it back with
/// [`RateLimiter::refund`] if the placement is then rejected.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RatePermit {
    /// The key charged.
    pub key_id: KeyId,
    /// When it was charged.
    pub at: DateTime<Utc>,
}

/// The key's budget is spent; try again after `retry_after`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
#[error("rate limited; retry after {retry_after:?}")]
pub struct RateLimited {
    /// How long until a placement would be accepted.
    pub retry_after: Duration,
}

/// Why [`RateLimiter::try_acquire`] admitted nothing.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum LimitError {
    /// The key's budget is spent (`429 rate_limited`).
    #[error(transparent)]
    Limited(#[from] RateLimited),
    /// The limiter could not count: its backend failed, so whether the key
    /// has budget left is unknown (`503 store_error`). Nothing was counted.
    #[error("rate limiter unavailable: {0}")]
    Unavailable(#[source] StoreError),
}

impl LimitError {
    /// The wait of a spent budget; `None` for an outage.
    pub fn limited(&self) -> Option<RateLimited> {
        match self {
            Self::Limited(limited) => Some(*limited),
            Self::Unavailable(_) => None,
        }
    }
}

/// Counts placements per key over a sliding minute.
///
/// # Contract
///
/// - `try_acquire` admits a placement when fewer than `limit` placements of
///   the key were admitted (and not refunded) in the 60 seconds before `now`,
///   and counts it; otherwise it fails with [`LimitError::Limited`] and the
///   time until one would be admitted. It is exact under concurrency: of
///   many simultaneous calls with a budget of `n`, exactly `n` succeed.
/// - When the limiter cannot tell (its backend is down), `try_acquire` fails
///   with [`LimitError::Unavailable`] and counts nothing. It must never turn
///   an outage into [`LimitError::Limited`]: that would tell a client to
///   retry after a made-up wait against a sick backend. It should answer
///   within a few seconds rather than wait out the outage.
/// - `refund` uncounts a permit; [`StoreError::Unavailable`] when the
///   backend failed, in which case the permit may still count until it
///   leaves the window.
#[async_trait]
pub trait RateLimiter: Send + Sync + Debug {
    /// Charges one placement; see the contract.
    async fn try_acquire(
        &self,
        key_id: &KeyId,
        limit: u32,
        now: DateTime<Utc>,
    ) -> Result<RatePermit, LimitError>;

    /// Uncounts a permit whose placement was rejected later.
    async fn refund(&self, permit: RatePermit) -> Result<(), StoreError>;
}

/// An exact sliding-window log in process memory: each key keeps the times
/// of at most `limit` recent placements.
///
/// Keys with no placement in the last minute are swept out whenever the map
/// has doubled since the last sweep, so memory follows the keys active in
/// the last minute, not every key ever seen (amortized O(1) per call).
#[derive(Debug, Default)]
pub struct MemoryRateLimiter {
    windows: Mutex<Windows>,
}

#[derive(Debug, Default)]
struct Windows {
    logs: HashMap<KeyId, VecDeque<DateTime<Utc>>, foldhash::fast::RandomState>,
    /// Sweep when the map reaches this many keys.
    sweep_at: usize,
}

/// The smallest map worth sweeping.
const MIN_SWEEP: usize = 64;

impl Windows {
    fn sweep_if_grown(&mut self, now: DateTime<Utc>, window: chrono::Duration) {
        if self.logs.len() < self.sweep_at.max(MIN_SWEEP) {
            return;
        }
        self.logs
            .retain(|_, log| log.back().is_some_and(|at| *at + window > now));
        self.sweep_at = self.logs.len().saturating_mul(2);
    }
}

impl MemoryRateLimiter {
    /// An empty limiter.
    pub fn new() -> Self {
        Self::default()
    }
}

#[async_trait]
impl RateLimiter for MemoryRateLimiter {
    async fn try_acquire(
        &self,
        key_id: &KeyId,
        limit: u32,
        now: DateTime<Utc>,
    ) -> Result<RatePermit, LimitError> {
        let window = chrono::Duration::from_std(RATE_WINDOW).unwrap_or(chrono::Duration::MAX);
        let mut windows = self.windows.lock().unwrap_or_else(|p| p.into_inner());
        windows.sweep_if_grown(now, window);
        let log = windows.logs.entry(key_id.clone()).or_default();
        while log.front().is_some_and(|at| *at + window <= now) {
            log.pop_front();
        }
        if log.len() >= limit as usize {
            let retry_after = match log.front() {
                Some(oldest) => (*oldest + window - now).to_std().unwrap_or(Duration::ZERO),
                None => RATE_WINDOW,
            };
            return Err(RateLimited { retry_after }.into());
        }
        log.push_back(now);
        Ok(RatePermit {
            key_id: key_id.clone(),
            at: now,
        })
    }

    async fn refund(&self, permit: RatePermit) -> Result<(), StoreError> {
        let mut windows = self.windows.lock().unwrap_or_else(|p| p.into_inner());
        if let Some(log) = windows.logs.get_mut(&permit.key_id)
            && let Some(position) = log.iter().rposition(|at| *at == permit.at)
        {
            log.remove(position);
            if log.is_empty() {
                windows.logs.remove(&permit.key_id);
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::domain::ApiKey;

    #[tokio::test]
    async fn keys_idle_for_a_minute_are_forgotten() {
        let limiter = MemoryRateLimiter::new();
        let t0 = DateTime::parse_from_rfc3339("2026-01-01T00:00:00Z")
            .unwrap()
            .to_utc();
        for i in 0..1_000 {
            let key = ApiKey::new(format!("old{i}")).id();
            limiter.try_acquire(&key, 5, t0).await.unwrap();
        }
        let later = t0 + chrono::Duration::seconds(61);
        for i in 0..1_000 {
            let key = ApiKey::new(format!("new{i}")).id();
            limiter.try_acquire(&key, 5, later).await.unwrap();
        }
        let keys = limiter.windows.lock().unwrap().logs.len();
        assert!(keys < 1_100, "{keys} keys kept for 1,000 active ones");
        let refunded = limiter
            .try_acquire(&ApiKey::new("once").id(), 5, later)
            .await
            .unwrap();
        limiter.refund(refunded).await.unwrap();
        let kept = limiter.windows.lock().unwrap();
        assert!(!kept.logs.contains_key(&ApiKey::new("once").id()));
    }

    #[tokio::test]
    async fn counts_a_sliding_minute_and_refunds() {
        let limiter = MemoryRateLimiter::new();
        let key = ApiKey::new("k").id();
        let t0 = DateTime::parse_from_rfc3339("2026-01-01T00:00:00Z")
            .unwrap()
            .to_utc();
        let first = limiter.try_acquire(&key, 2, t0).await.unwrap();
        limiter
            .try_acquire(&key, 2, t0 + chrono::Duration::seconds(10))
            .await
            .unwrap();
        let denied = limiter
            .try_acquire(&key, 2, t0 + chrono::Duration::seconds(20))
            .await;
        assert_eq!(
            denied.unwrap_err().limited(),
            Some(RateLimited {
                retry_after: Duration::from_secs(40)
            })
        );
        limiter.refund(first).await.unwrap();
        limiter
            .try_acquire(&key, 2, t0 + chrono::Duration::seconds(20))
            .await
            .unwrap();
        assert!(
            limiter
                .try_acquire(&key, 2, t0 + chrono::Duration::seconds(69))
                .await
                .is_err()
        );
        assert!(
            limiter
                .try_acquire(&key, 2, t0 + chrono::Duration::seconds(70))
                .await
                .is_ok()
        );
    }
}
