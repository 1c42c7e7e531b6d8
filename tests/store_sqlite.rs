//! The SQLite store against real database files.
#![cfg(feature = "sqlite")]

mod store_common;

use std::path::PathBuf;
use std::sync::Arc;

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

/// The conformance suite, one test per case, each on two handles (two
/// processes) on a fresh file; the file is removed when the second handle
/// is dropped.
mod conformance_suite {
    use super::*;

    /// A store that removes its file when dropped.
    struct Opened(SqliteStore, #[allow(dead_code)] Arc<TempDb>);

    impl std::ops::Deref for Opened {
        type Target = SqliteStore;
        fn deref(&self) -> &SqliteStore {
            &self.0
        }
    }

    async fn two_handles() -> Option<(Opened, Opened)> {
        let db = Arc::new(TempDb::new());
        let (a, b) = (db.open().await, db.open().await);
        Some((Opened(a, db.clone()), Opened(b, db)))
    }

    agentcall_conformance::conformance_tests!(two_handles());
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
    store_common::each_attempt_settles_once(ledgers[0].as_ref()).await;
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

/// A database written before call leases (migrations 0001 and 0002 only)
/// upgrades in place: the running call and the ended call still owed its
/// settlement get a lapsed lease, so the first instance to look takes them
/// over; a settled call gets none.
#[tokio::test]
async fn a_database_from_before_leases_upgrades_and_its_open_calls_are_taken_over() {
    use agentcall::domain::CallStatus;
    use agentcall::store::{InstanceId, LeaseClaim};
    use sqlx::sqlite::SqlitePoolOptions;

    // Rows as the current code encodes them, minus the new columns.
    let source = TempDb::new();
    let store = source.open().await;
    let key = store_common::fresh_key();
    let running = store_common::call(&key, store_common::t0());
    let mut owed = store_common::call(&key, store_common::t0());
    owed.record.status = CallStatus::Completed;
    let mut settled = owed.clone();
    settled.record.id = agentcall::CallId::generate();
    settled.settled = true;
    for call in [&running, &owed, &settled] {
        store.insert(call).await.expect("insert");
    }
    let rows: Vec<(String, String, String, i64, String, i64, String)> = sqlx::query_as(
        "SELECT id, key_id, account_id, created_ns, status, version, doc FROM calls",
    )
    .fetch_all(store.pool())
    .await
    .expect("read rows");
    store.close().await;

    // The old schema: the first two migrations, as shipped.
    let old = TempDb::new();
    let migrations = tempdir_with_migrations(&["0001_initial.sql", "0002_idempotency_holder.sql"]);
    let pool = SqlitePoolOptions::new()
        .connect_with(
            old.url()
                .parse::<sqlx::sqlite::SqliteConnectOptions>()
                .expect("url")
                .create_if_missing(true),
        )
        .await
        .expect("open old database");
    sqlx::migrate::Migrator::new(migrations.0.as_path())
        .await
        .expect("old migrations")
        .run(&pool)
        .await
        .expect("apply old migrations");
    for row in &rows {
        sqlx::query(
            "INSERT INTO calls (id, key_id, account_id, created_ns, status, version, doc) \
             VALUES ($1, $2, $3, $4, $5, $6, $7)",
        )
        .bind(&row.0)
        .bind(&row.1)
        .bind(&row.2)
        .bind(row.3)
        .bind(&row.4)
        .bind(row.5)
        .bind(&row.6)
        .execute(&pool)
        .await
        .expect("old row");
    }
    pool.close().await;

    let store = old.open().await;
    let now = chrono::Utc::now();
    let claim = LeaseClaim::new(InstanceId::generate(), now, now, 10);
    let mut taken: Vec<_> = store
        .claim_lapsed(&claim)
        .await
        .expect("claim")
        .into_iter()
        .map(|c| c.record.id)
        .collect();
    taken.sort();
    let mut expected = vec![running.record.id.clone(), owed.record.id.clone()];
    expected.sort();
    assert_eq!(taken, expected);
    let kept = store
        .get(&settled.record.id)
        .await
        .expect("get")
        .expect("call");
    assert_eq!(kept.lease, None);
    store.close().await;
}

/// A temporary directory holding copies of the named SQLite migrations.
fn tempdir_with_migrations(names: &[&str]) -> TempDir {
    let dir = TempDir(std::env::temp_dir().join(format!(
        "agentcall-migrations-{}",
        uuid::Uuid::new_v4().simple()
    )));
    std::fs::create_dir_all(&dir.0).expect("create dir");
    let source = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("migrations/sqlite");
    for name in names {
        std::fs::copy(source.join(name), dir.0.join(name)).expect("copy migration");
    }
    dir
}

/// A directory removed on drop.
struct TempDir(PathBuf);

impl Drop for TempDir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}
