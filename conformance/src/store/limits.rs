//! The shared limits of a [`Persistence`]: exact across two handles on one
//! backend (two processes on one database, or one in-memory store).

use std::sync::Arc;

use chrono::Duration;

use super::fixtures::{base_time, fresh_key};
use agentcall::domain::{AccountId, CallAttempt, CallId};
use agentcall::guardrails::{LimitError, ReserveError, Usage};
use agentcall::store::Persistence;

/// A key's budget is one budget between two handles: of many concurrent
/// acquisitions through either, exactly the limit is admitted; a refund
/// through one frees a permit for the other; the window slides.
pub async fn rate_limits_hold_across_handles<S: Persistence + ?Sized>(a: &S, b: &S) {
    let (a, b) = (a.limits().rate_limiter, b.limits().rate_limiter);
    let key = fresh_key();
    let now = base_time();
    let mut tasks = Vec::new();
    for i in 0..12 {
        let limiter = Arc::clone(if i % 2 == 0 { &a } else { &b });
        let key = key.clone();
        tasks.push(tokio::spawn(async move {
            limiter.try_acquire(&key, 4, now).await
        }));
    }
    let mut admitted = Vec::new();
    for task in tasks {
        match task.await.expect("no panic") {
            Ok(permit) => admitted.push(permit),
            Err(LimitError::Limited(limited)) => {
                assert!(limited.retry_after <= std::time::Duration::from_secs(60));
            }
            Err(error) => panic!("limiter failed: {error}"),
        }
    }
    assert_eq!(admitted.len(), 4, "exactly the budget, across both handles");
    let freed = admitted.pop().expect("a permit");
    a.refund(freed).await.expect("refund");
    let again = b.try_acquire(&key, 4, now).await;
    assert!(
        again.is_ok(),
        "a refund through one handle frees the other's"
    );
    assert!(matches!(
        a.try_acquire(&key, 4, now).await,
        Err(LimitError::Limited(_))
    ));
    let later = now + Duration::seconds(61);
    assert!(
        b.try_acquire(&key, 4, later).await.is_ok(),
        "the window slides"
    );
}

/// An account's cap is one cap between two handles: concurrent
/// reservations through either never pass it, a settlement through one is
/// seen by the other, and a settlement made twice counts once.
pub async fn minute_caps_hold_across_handles<S: Persistence + ?Sized>(a: &S, b: &S) {
    let (a, b) = (a.limits().usage_ledger, b.limits().usage_ledger);
    let account: AccountId = format!("acct_{}", CallId::generate().as_str()[5..].to_owned())
        .parse()
        .expect("an account id");
    let period = base_time();
    let mut tasks = Vec::new();
    for i in 0..10 {
        let ledger = Arc::clone(if i % 2 == 0 { &a } else { &b });
        let account = account.clone();
        tasks.push(tokio::spawn(async move {
            let attempt = CallAttempt::first(CallId::generate());
            let granted = ledger.reserve(&account, &attempt, period, 35, 10).await;
            (attempt, granted)
        }));
    }
    let mut granted = Vec::new();
    for task in tasks {
        match task.await.expect("no panic") {
            (attempt, Ok(minutes)) => granted.push((attempt, minutes)),
            (_, Err(ReserveError::OverCap)) => {}
            (_, Err(error)) => panic!("ledger failed: {error}"),
        }
    }
    let total: u64 = granted.iter().map(|(_, minutes)| minutes).sum();
    assert_eq!(total, 35, "the whole cap and no more: {granted:?}");
    assert_eq!(
        a.usage(&account, period).await.expect("usage"),
        Usage::new(0, 35)
    );
    let (attempt, reserved) = granted[0].clone();
    a.settle(&account, &attempt, period, reserved, 2)
        .await
        .expect("settle");
    b.settle(&account, &attempt, period, reserved, 2)
        .await
        .expect("a second settlement changes nothing");
    assert_eq!(
        b.usage(&account, period).await.expect("usage"),
        Usage::new(2, 35 - reserved)
    );
    let next = CallAttempt::first(CallId::generate());
    let room = b.reserve(&account, &next, period, 35, 10).await;
    assert_eq!(
        room.ok(),
        Some((reserved - 2).min(10)),
        "settled minutes free room"
    );
}
