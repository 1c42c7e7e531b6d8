//! The PostgreSQL store against a real server, when
//! `AGENTCALL_TEST_POSTGRES` holds a connection URL. Each test works in a
//! schema of its own, dropped at the end; "instances" are separate pools.
#![cfg(feature = "postgres")]

#[path = "common/pg.rs"]
mod pg;
mod store_common;

use pg::TestSchema;

use std::sync::Arc;

use agentcall::domain::CallStatus;
use agentcall::guardrails::{LimitError, RATE_WINDOW, RateLimited, RateLimiter};
use agentcall::store::postgres::PostgresStore;
use agentcall::store::{CallStore, EventOutbox, ListQuery, StoreError};
use chrono::Duration;
use sqlx::postgres::PgPoolOptions;
use tokio::task::JoinSet;

/// The conformance suite, one test per case, each on two instances' pools
/// in a fresh schema (left for the test database to drop: a case cannot
/// drop it asynchronously after itself).
mod conformance_suite {
    use super::*;

    async fn two_handles() -> Option<(Arc<PostgresStore>, Arc<PostgresStore>)> {
        let schema = TestSchema::create().await?;
        let (a, b) = (schema.store(4).await, schema.store(4).await);
        Some((Arc::new(a), Arc::new(b)))
    }

    agentcall_conformance::conformance_tests!(two_handles());
}

#[tokio::test]
async fn data_survives_reconnecting() {
    let Some(schema) = TestSchema::create().await else {
        return;
    };
    let store = schema.store(3).await;
    let written = store_common::populate(&store, &store.usage_ledger()).await;
    store.close().await;
    // Migrations already applied are skipped on the second connect.
    let store = schema.store(3).await;
    store_common::verify(&store, &store.usage_ledger(), &written).await;
    store.close().await;
    schema.drop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn concurrent_updates_across_instances_move_once() {
    let Some(schema) = TestSchema::create().await else {
        return;
    };
    let stores = [
        Arc::new(schema.store(5).await),
        Arc::new(schema.store(5).await),
    ];
    store_common::concurrent_updates_move_once(stores.clone()).await;
    for store in stores {
        store.close().await;
    }
    schema.drop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn claims_across_instances_are_never_handed_out_twice() {
    let Some(schema) = TestSchema::create().await else {
        return;
    };
    let stores = [
        Arc::new(schema.store(4).await),
        Arc::new(schema.store(4).await),
    ];
    store_common::claims_are_never_handed_out_twice(stores.clone()).await;
    store_common::lease_claims_are_never_handed_out_twice(stores.clone()).await;
    for store in stores {
        store.close().await;
    }
    schema.drop().await;
}

/// The fair claim ranks events in `WITH` queries and locks in the outer
/// query: a row another instance holds locked is skipped, not waited for,
/// and handed out once that instance lets it go.
#[tokio::test]
async fn claims_skip_rows_another_instance_holds_locked() {
    let Some(schema) = TestSchema::create().await else {
        return;
    };
    let store = schema.store(2).await;
    let mut events = Vec::new();
    for _ in 0..2 {
        let created = store_common::call(&store_common::fresh_key(), store_common::t0());
        store.insert(&created).await.expect("insert");
        let ended = store_common::moved(&created, CallStatus::NoAnswer);
        let event = store_common::event(&ended, CallStatus::NoAnswer, store_common::t0());
        store
            .update(&ended, vec![event.clone()])
            .await
            .expect("update");
        events.push(event.event_id);
    }
    let other_instance = schema.pool(1).await;
    let mut holding = other_instance.begin().await.expect("begin");
    sqlx::query("SELECT seq FROM outbox WHERE event_id = $1 FOR UPDATE")
        .bind(&events[0])
        .fetch_one(&mut *holding)
        .await
        .expect("lock the first event");

    let now = store_common::t0() + Duration::seconds(1);
    let lease = std::time::Duration::from_secs(60);
    let claim = store.claim_due(now, 10, lease);
    let claimed = tokio::time::timeout(std::time::Duration::from_secs(10), claim)
        .await
        .expect("the claim does not wait for the locked row")
        .expect("claim");
    let ids: Vec<_> = claimed.iter().map(|p| p.event.event_id.clone()).collect();
    assert_eq!(ids, [events[1].clone()], "the locked row is skipped");

    holding.rollback().await.expect("rollback");
    let claimed = store.claim_due(now, 10, lease).await.expect("claim");
    let ids: Vec<_> = claimed.iter().map(|p| p.event.event_id.clone()).collect();
    assert_eq!(ids, [events[0].clone()], "handed out once it is free");
    other_instance.close().await;
    store.close().await;
    schema.drop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn idempotency_begin_across_instances_starts_once() {
    let Some(schema) = TestSchema::create().await else {
        return;
    };
    let stores = [
        Arc::new(schema.store(4).await),
        Arc::new(schema.store(4).await),
    ];
    store_common::one_begin_starts(stores.clone()).await;
    for store in stores {
        store.close().await;
    }
    schema.drop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn reservations_across_instances_never_pass_the_cap() {
    let Some(schema) = TestSchema::create().await else {
        return;
    };
    let stores = [schema.store(4).await, schema.store(4).await];
    let ledgers = [
        Arc::new(stores[0].usage_ledger()),
        Arc::new(stores[1].usage_ledger()),
    ];
    store_common::each_attempt_settles_once(ledgers[0].as_ref()).await;
    store_common::reservations_never_pass_the_cap(ledgers).await;
    for store in stores {
        store.close().await;
    }
    schema.drop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn rate_limits_are_exact_across_instances() {
    let Some(schema) = TestSchema::create().await else {
        return;
    };
    let stores = [schema.store(4).await, schema.store(4).await];
    let limiters = [
        Arc::new(stores[0].rate_limiter()),
        Arc::new(stores[1].rate_limiter()),
    ];
    let key = store_common::fresh_key();
    let now = store_common::t0();
    let mut tasks = JoinSet::new();
    for i in 0..64 {
        let limiter = Arc::clone(&limiters[i % 2]);
        let key = key.clone();
        tasks.spawn(async move { limiter.try_acquire(&key, 10, now).await });
    }
    let results = tasks.join_all().await;
    let permits: Vec<_> = results.iter().filter_map(|r| r.as_ref().ok()).collect();
    assert_eq!(permits.len(), 10, "exactly the budget is admitted");
    assert!(results.iter().all(|r| match r {
        Ok(_) => true,
        Err(LimitError::Limited(RateLimited { retry_after })) => *retry_after == RATE_WINDOW,
        Err(other) => panic!("{other}"),
    }));

    let later = now + Duration::seconds(20);
    assert_eq!(
        limiters[0]
            .try_acquire(&key, 10, later)
            .await
            .unwrap_err()
            .limited(),
        Some(RateLimited {
            retry_after: std::time::Duration::from_secs(40)
        })
    );
    limiters[1]
        .refund(permits[0].clone())
        .await
        .expect("refund");
    assert!(
        limiters[0].try_acquire(&key, 10, later).await.is_ok(),
        "refunded"
    );
    assert!(limiters[1].try_acquire(&key, 10, later).await.is_err());
    let next_minute = now + Duration::seconds(60);
    let admitted = [
        limiters[0].try_acquire(&key, 10, next_minute).await,
        limiters[1].try_acquire(&key, 10, next_minute).await,
    ];
    assert!(
        admitted.iter().all(Result::is_ok),
        "the window slid: {admitted:?}"
    );
    assert!(
        limiters[0]
            .try_acquire(&store_common::fresh_key(), 10, now)
            .await
            .is_ok(),
        "keys are counted apart"
    );
    assert_eq!(
        limiters[0]
            .try_acquire(&store_common::fresh_key(), 0, now)
            .await
            .unwrap_err()
            .limited(),
        Some(RateLimited {
            retry_after: RATE_WINDOW
        })
    );
    for store in stores {
        store.close().await;
    }
    schema.drop().await;
}

#[tokio::test]
async fn corrupt_rows_are_errors_not_panics() {
    let Some(schema) = TestSchema::create().await else {
        return;
    };
    let store = schema.store(2).await;
    let call = store_common::call(&store_common::fresh_key(), store_common::t0());
    store.insert(&call).await.expect("insert");
    let next = store_common::moved(&call, CallStatus::InProgress);
    let event = store_common::event(&next, CallStatus::InProgress, store_common::t0());
    store.update(&next, vec![event]).await.expect("update");

    sqlx::query("UPDATE calls SET doc = 'not json' WHERE id = $1")
        .bind(call.record.id.as_str())
        .execute(store.pool())
        .await
        .expect("corrupt the document");
    assert!(matches!(
        store.get(&call.record.id).await,
        Err(StoreError::Unavailable(_))
    ));
    assert!(matches!(
        store.list(&ListQuery::new(call.key_id.clone(), 10)).await,
        Err(StoreError::Unavailable(_))
    ));
    sqlx::query("UPDATE outbox SET attempts = -1 WHERE call_id = $1")
        .bind(call.record.id.as_str())
        .execute(store.pool())
        .await
        .expect("corrupt the event");
    assert!(matches!(
        store.deliveries(&call.record.id).await,
        Err(StoreError::Unavailable(_))
    ));
    store.close().await;
    schema.drop().await;
}

#[tokio::test]
async fn debug_output_has_no_password() {
    let Some(schema) = TestSchema::create().await else {
        return;
    };
    let store = schema.store(1).await;
    let shown = format!(
        "{store:?} {:?} {:?}",
        store.rate_limiter(),
        store.usage_ledger()
    );
    assert!(
        shown.contains("PostgresStore") && shown.contains("host"),
        "{shown}"
    );
    assert!(!shown.to_lowercase().contains("password"), "{shown}");
    store.close().await;
    schema.drop().await;
}

#[tokio::test]
async fn an_unreachable_server_is_unavailable() {
    // Port 1 on localhost refuses connections; no server is needed.
    let pool = PgPoolOptions::new()
        .acquire_timeout(std::time::Duration::from_millis(300))
        .connect_lazy("postgres://u:hunter2@127.0.0.1:1/db")
        .expect("a valid URL");
    let result = PostgresStore::connect_with(pool).await;
    let Err(error) = result else {
        panic!("connected to nothing");
    };
    assert!(matches!(error, StoreError::Unavailable(_)));
    assert!(!format!("{error} {error:?}").contains("hunter2"));
}
