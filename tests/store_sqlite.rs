//! The SQLite store against real database files.
#![cfg(feature = "sqlite")]

mod store_common;

use std::path::PathBuf;
use std::sync::Arc;

#[cfg(feature = "conformance")]
use agentcall::store::conformance;
use agentcall::store::sqlite::SqliteStore;
use agentcall::store::{CallStore, EventOutbox, ListQuery, StoreError};

/// A database file under the temp dir, removed (with its WAL) on drop.
struct TempDb(PathBuf);

impl TempDb {
    fn new() -> Self {
        let name = format!("agentcall-test-{}.sqlite", uuid::Uuid::new_v4().simple());
        Self(std::env::temp_dir().join(name))
    }

    fn url(&self) -> String {
        format!("sqlite://{}", self.0.display())
    }

    async fn open(&self) -> SqliteStore {
        SqliteStore::connect(&self.url()).await.expect("open store")
    }
}

impl Drop for TempDb {
    fn drop(&mut self) {
        for suffix in ["", "-wal", "-shm", "-journal"] {
            let mut path = self.0.clone().into_os_string();
            path.push(suffix);
            let _ = std::fs::remove_file(path);
        }
    }
}

#[cfg(feature = "conformance")]
#[tokio::test]
async fn sqlite_store_passes_the_conformance_suite() {
    let db = TempDb::new();
    let store = db.open().await;
    conformance::run_all(&store).await;
    store.close().await;
}

#[tokio::test]
async fn data_survives_closing_and_reopening() {
    let db = TempDb::new();
    let store = db.open().await;
    let written = store_common::populate(&store, &store.usage_ledger()).await;
    store.close().await;
    drop(store);
    assert!(db.0.exists(), "the file was created");

    let store = db.open().await;
    store_common::verify(&store, &store.usage_ledger(), &written).await;
    store.close().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn concurrent_updates_from_one_version_move_once() {
    let db = TempDb::new();
    let store = Arc::new(db.open().await);
    store_common::concurrent_updates_move_once([Arc::clone(&store), store]).await;
}

/// Two stores on one file stand for two processes: SQLite's own locking
/// (`BEGIN IMMEDIATE` and the busy timeout) keeps the contracts between them.
#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn two_processes_on_one_file_keep_every_contract() {
    let db = TempDb::new();
    let stores = [Arc::new(db.open().await), Arc::new(db.open().await)];
    store_common::concurrent_updates_move_once(stores.clone()).await;
    store_common::claims_are_never_handed_out_twice(stores.clone()).await;
    store_common::lease_claims_are_never_handed_out_twice(stores.clone()).await;
    store_common::one_begin_starts(stores.clone()).await;
    let ledgers = stores.map(|store| Arc::new(store.usage_ledger()));
    store_common::reservations_never_pass_the_cap(ledgers).await;
}

#[tokio::test]
async fn corrupt_rows_are_errors_not_panics() {
    let db = TempDb::new();
    let store = db.open().await;
    let call = store_common::call(&store_common::fresh_key(), store_common::t0());
    store.insert(&call).await.expect("insert");
    let next = store_common::moved(&call, agentcall::domain::CallStatus::InProgress);
    let event = store_common::event(
        &next,
        agentcall::domain::CallStatus::InProgress,
        store_common::t0(),
    );
    store.update(&next, vec![event]).await.expect("update");

    sqlx::query("UPDATE calls SET doc = '{\"record\": 1' WHERE id = $1")
        .bind(call.record.id.as_str())
        .execute(store.pool())
        .await
        .expect("corrupt the document");
    assert!(matches!(
        store.get(&call.record.id).await,
        Err(StoreError::Unavailable(_))
    ));
    let listed = store.list(&ListQuery::new(call.key_id.clone(), 10)).await;
    let Err(StoreError::Unavailable(error)) = listed else {
        panic!("expected an error, got {listed:?}");
    };
    assert!(
        error.to_string().contains(call.record.id.as_str()),
        "{error}"
    );

    sqlx::query("UPDATE outbox SET kind = 'call.ringing' WHERE call_id = $1")
        .bind(call.record.id.as_str())
        .execute(store.pool())
        .await
        .expect("corrupt the event");
    assert!(matches!(
        store.deliveries(&call.record.id).await,
        Err(StoreError::Unavailable(_))
    ));
    store.close().await;
    assert!(matches!(
        store.get(&call.record.id).await,
        Err(StoreError::Unavailable(_))
    ));
}

#[tokio::test]
async fn debug_names_the_file() {
    let db = TempDb::new();
    let store = db.open().await;
    let shown = format!("{store:?} {:?}", store.usage_ledger());
    assert!(
        shown.contains("SqliteStore") && shown.contains("agentcall-test-"),
        "{shown}"
    );
    store.close().await;
}

#[tokio::test]
async fn a_bad_url_is_unavailable() {
    let result = SqliteStore::connect("sqlite:///nonexistent-dir-agentcall/x/y.sqlite").await;
    assert!(matches!(result, Err(StoreError::Unavailable(_))));
}
