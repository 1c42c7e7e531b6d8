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
