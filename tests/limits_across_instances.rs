//! `.store(store)` alone wires the store's shared limits: two service
//! instances on one database (separate pools, as two processes) admit
//! exactly one rate budget and reserve within one minute cap between them.
//! Runs on SQLite (two handles on one file) and, when
//! `AGENTCALL_TEST_POSTGRES` is set, on PostgreSQL.

mod common;
#[cfg(feature = "postgres")]
#[path = "common/pg.rs"]
mod pg;

use std::sync::Arc;
use std::time::Duration;

use agentcall::store::Persistence;
use agentcall::{AgentCall, Api, SimulatedCarrier, SimulationConfig};
use common::*;
use http::StatusCode;
use serde_json::{Value, json};

/// An instance on `store` whose account `acct_a` allows `per_minute`
/// placements a minute and `cap` minutes; calls ring for a minute, so none
/// ends (and gives minutes back) while the test runs.
fn instance<S: Persistence + 'static>(store: Arc<S>, per_minute: u32, cap: u64) -> AgentCall {
    let mut a = account_a();
    a.calls_per_minute = per_minute;
    a.minute_cap = cap;
    builder()
        .directory(Arc::new(directory_with(a, account_b())))
        .carrier(Arc::new(SimulatedCarrier::new(SimulationConfig::new(
            Duration::from_secs(60),
            Duration::from_secs(1),
        ))))
        .store(store)
        .build()
        .unwrap()
}

/// Places `n` calls at once, alternating between the two instances, and
/// returns the error token of each refusal (`None` for a placement).
async fn place_many(services: [&AgentCall; 2], n: usize) -> Vec<Option<String>> {
    let apis = services.map(|service| Api::new(service.clone()));
    let mut tasks = tokio::task::JoinSet::new();
    for i in 0..n {
        let api = apis[i % 2].clone();
        tasks.spawn(async move {
            let body = json!({"to": "+14155550125", "objective": "Confirm the delivery"});
            let (status, _, bytes) = send(&api, post(Some(KEY_A1), body.to_string())).await;
            match status {
                StatusCode::CREATED => None,
                _ => {
                    let answer: Value = serde_json::from_slice(&bytes).unwrap();
                    Some(answer["error"].as_str().unwrap().to_owned())
                }
            }
        });
    }
    tasks.join_all().await
}

fn count(outcomes: &[Option<String>], token: Option<&str>) -> usize {
    outcomes.iter().filter(|o| o.as_deref() == token).count()
}

/// Of 16 simultaneous placements split over two instances with a budget
/// of 5 a minute, 5 are placed and 11 are `rate_limited`.
async fn one_rate_limit<S: Persistence + 'static>(a: Arc<S>, b: Arc<S>) {
    let (one, two) = (instance(a, 5, 100_000), instance(b, 5, 100_000));
    let outcomes = place_many([&one, &two], 16).await;
    assert_eq!(count(&outcomes, None), 5, "{outcomes:?}");
    assert_eq!(count(&outcomes, Some("rate_limited")), 11, "{outcomes:?}");
    one.shutdown(Duration::from_secs(2)).await;
    two.shutdown(Duration::from_secs(2)).await;
}

/// With 35 minutes left and 10 reserved per call, simultaneous placements
/// over two instances reserve three whole calls and a five-minute one,
/// then `over_minute_cap`.
async fn one_minute_cap<S: Persistence + 'static>(a: Arc<S>, b: Arc<S>) {
    let (one, two) = (instance(a, 1_000, 35), instance(b, 1_000, 35));
    let outcomes = place_many([&one, &two], 10).await;
    assert_eq!(count(&outcomes, None), 4, "{outcomes:?}");
    assert_eq!(count(&outcomes, Some("over_minute_cap")), 6, "{outcomes:?}");
    one.shutdown(Duration::from_secs(2)).await;
    two.shutdown(Duration::from_secs(2)).await;
}

#[cfg(feature = "sqlite")]
mod sqlite {
    use super::*;
    use agentcall::store::SqliteStore;

    async fn two_handles() -> (Arc<SqliteStore>, Arc<SqliteStore>, std::path::PathBuf) {
        let path = std::env::temp_dir().join(format!(
            "agentcall-limits-{}.sqlite",
            uuid::Uuid::new_v4().simple()
        ));
        let url = format!("sqlite://{}", path.display());
        let a = SqliteStore::connect(&url).await.unwrap();
        let b = SqliteStore::connect(&url).await.unwrap();
        (Arc::new(a), Arc::new(b), path)
    }

    fn remove(path: std::path::PathBuf) {
        for suffix in ["", "-wal", "-shm"] {
            let mut file = path.clone().into_os_string();
            file.push(suffix);
            let _ = std::fs::remove_file(file);
        }
    }

    #[tokio::test(flavor = "multi_thread", worker_threads = 4)]
    async fn the_store_alone_keeps_one_rate_limit_across_two_instances() {
        let (a, b, path) = two_handles().await;
        one_rate_limit(a, b).await;
        remove(path);
    }

    #[tokio::test(flavor = "multi_thread", worker_threads = 4)]
    async fn the_store_alone_keeps_one_minute_cap_across_two_instances() {
        let (a, b, path) = two_handles().await;
        one_minute_cap(a, b).await;
        remove(path);
    }
}

#[cfg(feature = "postgres")]
mod postgres {
    use super::*;

    #[tokio::test(flavor = "multi_thread", worker_threads = 4)]
    async fn the_store_alone_keeps_one_rate_limit_across_two_instances() {
        let Some(schema) = pg::TestSchema::create().await else {
            return;
        };
        let (a, b) = (schema.store(4).await, schema.store(4).await);
        one_rate_limit(Arc::new(a), Arc::new(b)).await;
        schema.drop().await;
    }

    #[tokio::test(flavor = "multi_thread", worker_threads = 4)]
    async fn the_store_alone_keeps_one_minute_cap_across_two_instances() {
        let Some(schema) = pg::TestSchema::create().await else {
            return;
        };
        let (a, b) = (schema.store(4).await, schema.store(4).await);
        one_minute_cap(Arc::new(a), Arc::new(b)).await;
        schema.drop().await;
    }
}
