//! Per-key placement rate limits.

use std::collections::{HashMap, VecDeque};
use std::fmt::Debug;
use std::sync::Mutex;
use std::time::Duration;

use async_trait::async_trait;
use chrono::{DateTime, Utc};

use crate::domain::KeyId;

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

/// Counts placements per key over a sliding minute.
///
/// # Contract
///
/// - `try_acquire` admits a placement when fewer than `limit` placements of
///   the key were admitted (and not refunded) in the 60 seconds before `now`,
///   and counts it; otherwise it fails with the time until one would be
///   admitted. It is exact under concurrency: of many simultaneous calls
///   with a budget of `n`, exactly `n` succeed.
/// - `refund` uncounts a permit.
#[async_trait]
pub trait RateLimiter: Send + Sync + Debug {
    /// Charges one placement; see the contract.
    async fn try_acquire(
        &self,
        key_id: &KeyId,
        limit: u32,
        now: DateTime<Utc>,
    ) -> Result<RatePermit, RateLimited>;

    /// Uncounts a permit whose placement was rejected later.
    async fn refund(&self, permit: RatePermit);
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
    logs: HashMap<KeyId, VecDeque<DateTime<Utc>>>,
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
    ) -> Result<RatePermit, RateLimited> {
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
            return Err(RateLimited { retry_after });
        }
        log.push_back(now);
        Ok(RatePermit {
            key_id: key_id.clone(),
            at: now,
        })
    }

    async fn refund(&self, permit: RatePermit) {
        let mut windows = self.windows.lock().unwrap_or_else(|p| p.into_inner());
        if let Some(log) = windows.logs.get_mut(&permit.key_id)
            && let Some(position) = log.iter().rposition(|at| *at == permit.at)
        {
            log.remove(position);
            if log.is_empty() {
                windows.logs.remove(&permit.key_id);
            }
        }
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
        limiter.refund(refunded).await;
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
            denied,
            Err(RateLimited {
                retry_after: Duration::from_secs(40)
            })
        );
        limiter.refund(first).await;
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
