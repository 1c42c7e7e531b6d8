//! Outages are answered honestly: when the rate limiter or the usage ledger
//! cannot reach its database, a placement answers `503 store_error` (retry
//! shortly), never `429 rate_limited` or `429 over_minute_cap`, and nothing
//! it took (a rate permit, a reservation) stays taken.

mod common;

use std::sync::Arc;

use common::*;
use serde_json::json;

fn body() -> String {
    json!({"to": "+14155550125", "objective": "During an outage"}).to_string()
}

/// `(status, token, Retry-After)` of one placement.
async fn place_once(api: &agentcall::Api) -> (u16, String, Option<String>) {
    let (status, headers, bytes) = send(api, post(Some(KEY_A1), body())).await;
    let token = json(&bytes)["error"]
        .as_str()
        .unwrap_or_default()
        .to_owned();
    let retry_after = headers
        .get("retry-after")
        .map(|v| v.to_str().unwrap().to_owned());
    (status.as_u16(), token, retry_after)
}

#[cfg(feature = "sqlite")]
#[tokio::test]
async fn a_usage_ledger_whose_database_is_closed_answers_503_not_over_minute_cap() {
    use agentcall::store::SqliteStore;

    let path = common::process::TempPath::unique("db");
    let store = SqliteStore::open(&path.0).await.expect("open");
    let mut account = account_a();
    // One placement a minute: a permit kept by a failed placement would
    // make the next one `rate_limited`.
    account.calls_per_minute = 1;
    let service = builder()
        .directory(Arc::new(directory_with(account, account_b())))
        .usage_ledger(Arc::new(store.usage_ledger()))
        .build()
        .unwrap();
    let api = agentcall::Api::new(service);
    store.close().await;
    for attempt in 0..3 {
        assert_eq!(
            place_once(&api).await,
            (503, "store_error".to_owned(), None),
            "attempt {attempt}"
        );
    }
}

#[cfg(feature = "postgres")]
#[path = "common/pg.rs"]
mod pg;

#[cfg(feature = "postgres")]
#[tokio::test]
async fn a_rate_limiter_whose_database_is_closed_answers_503_not_rate_limited() {
    let Some(schema) = pg::TestSchema::create().await else {
        return;
    };
    let store = schema.store(2).await;
    let service = builder()
        .rate_limiter(Arc::new(store.rate_limiter()))
        .build()
        .unwrap();
    let api = agentcall::Api::new(service);
    store.close().await;
    for attempt in 0..3 {
        assert_eq!(
            place_once(&api).await,
            (503, "store_error".to_owned(), None),
            "attempt {attempt}"
        );
    }
    schema.drop().await;
}

use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};

use agentcall::domain::{AccountId, KeyId};
use agentcall::guardrails::{
    BillingPeriod, LimitError, MemoryRateLimiter, MemoryUsageLedger, RateLimiter, RatePermit,
    ReserveError, Usage, UsageLedger,
};
use agentcall::store::StoreError;
use chrono::{DateTime, Utc};

fn down() -> StoreError {
    StoreError::Unavailable("database unreachable".into())
}

/// A rate limiter whose backend is down, or the in-memory one with its
/// acquisitions and refunds counted.
#[derive(Debug, Default)]
struct Limiter {
    down: bool,
    inner: MemoryRateLimiter,
    acquired: AtomicUsize,
    refunded: AtomicUsize,
}

#[async_trait::async_trait]
impl RateLimiter for Limiter {
    async fn try_acquire(
        &self,
        key_id: &KeyId,
        limit: u32,
        now: DateTime<Utc>,
    ) -> Result<RatePermit, LimitError> {
        if self.down {
            return Err(LimitError::Unavailable(down()));
        }
        let permit = self.inner.try_acquire(key_id, limit, now).await?;
        self.acquired.fetch_add(1, Ordering::SeqCst);
        Ok(permit)
    }

    async fn refund(&self, permit: RatePermit) -> Result<(), StoreError> {
        self.refunded.fetch_add(1, Ordering::SeqCst);
        self.inner.refund(permit).await
    }
}

/// The in-memory ledger, with `reserve` down, or with the first
/// `settle_failures` settlements failing.
#[derive(Debug, Default)]
struct Ledger {
    reserve_down: AtomicBool,
    settle_failures: AtomicUsize,
    inner: MemoryUsageLedger,
}

#[async_trait::async_trait]
impl UsageLedger for Ledger {
    async fn reserve(
        &self,
        account: &AccountId,
        attempt: &agentcall::domain::CallAttempt,
        period: DateTime<Utc>,
        cap: u64,
        max_minutes: u64,
    ) -> Result<u64, ReserveError> {
        if self.reserve_down.load(Ordering::SeqCst) {
            return Err(ReserveError::Unavailable(down()));
        }
        self.inner
            .reserve(account, attempt, period, cap, max_minutes)
            .await
    }

    async fn settle(
        &self,
        account: &AccountId,
        call: &agentcall::domain::CallAttempt,
        period: DateTime<Utc>,
        reserved: u64,
        billed: u64,
    ) -> Result<(), StoreError> {
        let failing = self
            .settle_failures
            .fetch_update(Ordering::SeqCst, Ordering::SeqCst, |n| n.checked_sub(1))
            .is_ok();
        if failing {
            return Err(down());
        }
        self.inner
            .settle(account, call, period, reserved, billed)
            .await
    }

    async fn release(
        &self,
        account: &AccountId,
        attempt: &agentcall::domain::CallAttempt,
        period: DateTime<Utc>,
        reserved: u64,
    ) -> Result<(), StoreError> {
        self.inner.release(account, attempt, period, reserved).await
    }

    async fn usage(&self, account: &AccountId, period: DateTime<Utc>) -> Result<Usage, StoreError> {
        self.inner.usage(account, period).await
    }
}

fn this_period() -> DateTime<Utc> {
    BillingPeriod::default().start_of(Utc::now())
}

#[tokio::test]
async fn a_rate_limiter_outage_is_503_and_reserves_nothing() {
    let limiter = Arc::new(Limiter {
        down: true,
        ..Limiter::default()
    });
    let ledger = Arc::new(Ledger::default());
    let service = builder()
        .rate_limiter(limiter.clone())
        .usage_ledger(ledger.clone())
        .build()
        .unwrap();
    let api = agentcall::Api::new(service.clone());
    for attempt in 0..3 {
        assert_eq!(
            place_once(&api).await,
            (503, "store_error".to_owned(), None),
            "attempt {attempt}"
        );
    }
    let usage = ledger.usage(&account_a().id, this_period()).await.unwrap();
    assert_eq!(usage, Usage::default(), "nothing reserved");
    assert_eq!(service.calls_in_flight(), 0);
}

#[tokio::test]
async fn a_usage_ledger_outage_is_503_and_refunds_the_rate_permit() {
    let limiter = Arc::new(Limiter::default());
    let ledger = Arc::new(Ledger {
        reserve_down: AtomicBool::new(true),
        ..Ledger::default()
    });
    let mut account = account_a();
    account.calls_per_minute = 1;
    let service = builder()
        .directory(Arc::new(directory_with(account, account_b())))
        .rate_limiter(limiter.clone())
        .usage_ledger(ledger.clone())
        .build()
        .unwrap();
    let api = agentcall::Api::new(service.clone());
    for attempt in 0..3 {
        // With one placement a minute, a kept permit would make the next
        // attempt `rate_limited`.
        assert_eq!(
            place_once(&api).await,
            (503, "store_error".to_owned(), None),
            "attempt {attempt}"
        );
    }
    assert_eq!(limiter.acquired.load(Ordering::SeqCst), 3);
    assert_eq!(
        limiter.refunded.load(Ordering::SeqCst),
        3,
        "every permit refunded"
    );
    assert_eq!(service.calls_in_flight(), 0);
}

#[tokio::test]
async fn a_failing_settlement_is_retried_and_no_minute_is_lost() {
    let ledger = Arc::new(Ledger {
        settle_failures: AtomicUsize::new(3),
        ..Ledger::default()
    });
    let service = builder().usage_ledger(ledger.clone()).build().unwrap();
    let api = agentcall::Api::new(service.clone());
    let id = place(&api, KEY_A1, serde_json::from_str(&body()).unwrap()).await;
    let record = wait_terminal(&api, KEY_A1, &id).await;
    let billed = agentcall::guardrails::billed_minutes(record.duration_sec.unwrap_or(0));
    assert!(billed >= 1, "{record:?}");
    // Three failures take 0.2 + 0.4 + 0.8 s of backoff before the fourth
    // attempt settles.
    let mut usage = Usage::default();
    for _ in 0..500 {
        usage = ledger.usage(&account_a().id, this_period()).await.unwrap();
        if usage.reserved == 0 {
            break;
        }
        tokio::time::sleep(std::time::Duration::from_millis(10)).await;
    }
    assert_eq!(usage, Usage::new(billed, 0));
    assert_eq!(ledger.settle_failures.load(Ordering::SeqCst), 0);
    service.shutdown(std::time::Duration::from_secs(1)).await;
}

#[tokio::test]
async fn an_idempotency_key_refused_by_an_outage_is_placed_when_retried_after_it() {
    let ledger = Arc::new(Ledger {
        reserve_down: AtomicBool::new(true),
        ..Ledger::default()
    });
    let service = builder().usage_ledger(ledger.clone()).build().unwrap();
    let api = agentcall::Api::new(service.clone());
    let request = || {
        let mut request = post(Some(KEY_A1), body());
        request
            .headers_mut()
            .insert("idempotency-key", "through-the-outage".parse().unwrap());
        request
    };
    let (status, headers, bytes) = send(&api, request()).await;
    assert_eq!(status.as_u16(), 503, "{}", String::from_utf8_lossy(&bytes));
    assert_eq!(json(&bytes)["error"], "store_error");
    assert!(headers.get("idempotent-replayed").is_none());
    ledger.reserve_down.store(false, Ordering::SeqCst);
    // Not a replay of the 503: nothing was attempted, so the key was freed.
    let (status, headers, bytes) = send(&api, request()).await;
    assert_eq!(status.as_u16(), 201, "{}", String::from_utf8_lossy(&bytes));
    assert!(headers.get("idempotent-replayed").is_none());
    let (status, headers, _) = send(&api, request()).await;
    assert_eq!(status.as_u16(), 201);
    assert_eq!(headers["idempotent-replayed"], "true");
    service.shutdown(std::time::Duration::from_secs(1)).await;
}
