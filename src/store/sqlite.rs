//! The SQLite store: calls, recordings, the webhook outbox, idempotency keys
//! and minute usage in one database file, for a single-machine deployment.
//!
//! # Guarantees
//!
//! - **What survives a crash.** Every method that returns `Ok` has committed
//!   its transaction. [`SqliteStore::connect`] and [`SqliteStore::open`] run
//!   the database in WAL mode with `synchronous = FULL`, so a committed
//!   change survives a crash of the process and of the machine. A status
//!   change and the webhook events it emits commit together or not at all;
//!   events still pending (with their attempt counts and due times),
//!   idempotency records and billed or reserved minutes are all on disk.
//! - **Writers.** SQLite has one writer at a time. Within a process the
//!   store queues its writes on an async mutex, so they wait their turn
//!   instead of spinning on `SQLITE_BUSY`; every multi-statement write is a
//!   `BEGIN IMMEDIATE` transaction and the connection waits up to the busy
//!   timeout for another process's write lock, so even two processes sharing
//!   the file never interleave a read-then-write. Readers never block (WAL).
//! - **Exactness.** `update` is compare-and-set on the version; `claim_due`
//!   reads and leases events in one write transaction, so no event is handed
//!   out twice within its lease; `begin` on an idempotency key and `reserve`
//!   on the usage ledger are single transactions, so their contracts hold
//!   under any concurrency.
//! - **Listing** walks the `(key_id, created_ns, id)` index from the cursor
//!   and reads at most `limit + 1` matching rows.
//! - **Rate limits are not here.** A restart of a single-machine deployment
//!   forgets at most one minute of placements, so the
//!   [`MemoryRateLimiter`](crate::guardrails::MemoryRateLimiter) stays
//!   the right limiter for SQLite. Billed minutes must not be forgotten:
//!   use [`SqliteStore::usage_ledger`].
//!
//! The database should belong to agentcall alone: the embedded migrations
//! keep their history in sqlx's `_sqlx_migrations` table, which a host
//! application using sqlx migrations on the same file would share.

use std::fmt;
use std::path::Path;
use std::str::FromStr;
use std::sync::Arc;
use std::time::Duration;

use crate::domain::{AccountId, CallId, KeyId};
use crate::guardrails::{OverMinuteCap, Usage, UsageLedger};
use crate::store::{
    AttemptOutcome, CallStore, DeliveryState, DeliveryStatus, EventOutbox, IdempotencyBegin,
    IdempotencyStore, ListPage, ListQuery, NewEvent, PendingDelivery, Recording, StoreError,
    StoredCall, StoredResponse,
};
use async_trait::async_trait;
use bytes::Bytes;
use chrono::{DateTime, Utc};
use sqlx::migrate::Migrator;
use sqlx::sqlite::{
    SqliteConnectOptions, SqliteJournalMode, SqlitePool, SqlitePoolOptions, SqliteSynchronous,
};
use sqlx::{Sqlite, SqliteConnection, Transaction};
use tokio::sync::{Mutex, MutexGuard};

use super::sql::{
    EVENT_COLUMNS, EventRow, IdempotencyRow, UNFINISHED_SQL, corrupt, db_error, decode_call,
    delivery_status_name, duration_nanos, encode_call, from_nanos, idempotency_thresholds,
    idempotency_verdict, list_query, minutes_to_reserve, nanos, sql_int, usage_counts,
    version_column,
};

static MIGRATOR: Migrator = sqlx::migrate!("migrations/sqlite");

/// How long a connection waits for another process's write lock.
const BUSY_TIMEOUT: Duration = Duration::from_secs(10);

/// Connections in a pool the store opens itself (readers run in parallel;
/// writes take turns).
const POOL_SIZE: u32 = 8;

/// Calls, recordings, the outbox and idempotency keys in a SQLite database.
///
/// Cloning is cheap and shares the pool. See the [module docs](self) for
/// what it guarantees.
#[derive(Clone)]
pub struct SqliteStore {
    db: Db,
}

/// The pool and the in-process write queue, shared by the store and its ledger.
#[derive(Clone)]
struct Db {
    pool: SqlitePool,
    writer: Arc<Mutex<()>>,
}

/// A write transaction holding this process's write turn. The transaction
/// is declared first so it ends (and releases SQLite's lock) before the turn.
struct WriteTx<'a> {
    tx: Transaction<'static, Sqlite>,
    _turn: MutexGuard<'a, ()>,
}

impl WriteTx<'_> {
    fn conn(&mut self) -> &mut SqliteConnection {
        &mut self.tx
    }

    async fn commit(self) -> Result<(), StoreError> {
        self.tx.commit().await.map_err(db_error)
    }
}

impl Db {
    /// Starts a `BEGIN IMMEDIATE` transaction: the write lock is taken up
    /// front, so a read inside it cannot go stale before its write.
    async fn write(&self) -> Result<WriteTx<'_>, StoreError> {
        let turn = self.writer.lock().await;
        let tx = self
            .pool
            .begin_with("BEGIN IMMEDIATE")
            .await
            .map_err(db_error)?;
        Ok(WriteTx { tx, _turn: turn })
    }

    /// Takes this process's write turn for a single-statement write.
    async fn turn(&self) -> MutexGuard<'_, ()> {
        self.writer.lock().await
    }
}

impl SqliteStore {
    /// Opens (creating if missing) the database at a `sqlite://PATH` URL,
    /// in WAL mode with `synchronous = FULL`, foreign keys on and a busy
    /// timeout, and applies the embedded migrations.
    ///
    /// The database must be a file: `sqlite::memory:` would give each pooled
    /// connection a database of its own (use
    /// [`MemoryStore`](crate::store::MemoryStore) instead).
    pub async fn connect(url: &str) -> Result<Self, StoreError> {
        let options = SqliteConnectOptions::from_str(url).map_err(db_error)?;
        Self::connect_with_options(options).await
    }

    /// Like [`connect`](Self::connect), with a file path.
    pub async fn open(path: impl AsRef<Path>) -> Result<Self, StoreError> {
        Self::connect_with_options(SqliteConnectOptions::new().filename(path)).await
    }

    async fn connect_with_options(options: SqliteConnectOptions) -> Result<Self, StoreError> {
        let options = options
            .create_if_missing(true)
            .journal_mode(SqliteJournalMode::Wal)
            .synchronous(SqliteSynchronous::Full)
            .foreign_keys(true)
            .busy_timeout(BUSY_TIMEOUT);
        let pool = SqlitePoolOptions::new()
            .max_connections(POOL_SIZE)
            .connect_with(options)
            .await
            .map_err(db_error)?;
        Self::connect_with(pool).await
    }

    /// Uses an existing pool and applies the embedded migrations.
    ///
    /// The pool's options are the caller's: for the guarantees of the
    /// [module docs](self) they should enable WAL, `synchronous = FULL`,
    /// foreign keys and a busy timeout, as [`connect`](Self::connect) does.
    pub async fn connect_with(pool: SqlitePool) -> Result<Self, StoreError> {
        MIGRATOR
            .run(&pool)
            .await
            .map_err(|e| StoreError::Unavailable(Box::new(e)))?;
        Ok(Self {
            db: Db {
                pool,
                writer: Arc::new(Mutex::new(())),
            },
        })
    }

    /// The connection pool.
    pub fn pool(&self) -> &SqlitePool {
        &self.db.pool
    }

    /// A usage ledger in the same database, sharing the pool and the write
    /// queue, so billed and reserved minutes survive a restart.
    pub fn usage_ledger(&self) -> SqliteUsageLedger {
        SqliteUsageLedger {
            db: self.db.clone(),
        }
    }

    /// Closes the pool, waiting for connections in use to be returned.
    /// Later calls fail with [`StoreError::Unavailable`].
    pub async fn close(&self) {
        self.db.pool.close().await;
    }
}

impl fmt::Debug for SqliteStore {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        debug_db(f, "SqliteStore", &self.db)
    }
}

fn debug_db(f: &mut fmt::Formatter<'_>, name: &str, db: &Db) -> fmt::Result {
    f.debug_struct(name)
        .field("file", &db.pool.connect_options().get_filename())
        .field("connections", &db.pool.size())
        .finish_non_exhaustive()
}

async fn insert_event(conn: &mut SqliteConnection, event: &NewEvent) -> Result<(), StoreError> {
    sqlx::query(
        "INSERT INTO outbox (event_id, call_id, account_id, kind, url, body, created_ns, \
         first_attempt_ns, next_attempt_ns) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $8) \
         ON CONFLICT (event_id) DO NOTHING",
    )
    .bind(&event.event_id)
    .bind(event.call_id.as_str())
    .bind(event.account_id.as_str())
    .bind(event.kind.as_str())
    .bind(&event.url)
    .bind(event.body.as_ref())
    .bind(nanos(event.created_at))
    .bind(nanos(event.first_attempt_at))
    .execute(conn)
    .await
    .map_err(db_error)?;
    Ok(())
}

fn decode_calls(rows: Vec<(String, i64, String)>) -> Result<Vec<StoredCall>, StoreError> {
    rows.iter()
        .map(|(id, version, doc)| decode_call(id, *version, doc))
        .collect()
}

#[async_trait]
impl CallStore for SqliteStore {
    async fn insert(&self, call: &StoredCall) -> Result<(), StoreError> {
        let c = encode_call(call)?;
        let _turn = self.db.turn().await;
        let inserted = sqlx::query(
            "INSERT INTO calls (id, key_id, account_id, created_ns, status, version, doc) \
             VALUES ($1, $2, $3, $4, $5, $6, $7) ON CONFLICT (id) DO NOTHING",
        )
        .bind(&c.id)
        .bind(&c.key_id)
        .bind(&c.account_id)
        .bind(c.created_ns)
        .bind(c.status)
        .bind(c.version)
        .bind(&c.doc)
        .execute(&self.db.pool)
        .await
        .map_err(db_error)?;
        if inserted.rows_affected() == 0 {
            return Err(StoreError::AlreadyExists(call.record.id.clone()));
        }
        Ok(())
    }

    async fn get(&self, id: &CallId) -> Result<Option<StoredCall>, StoreError> {
        let row: Option<(String, i64, String)> =
            sqlx::query_as("SELECT id, version, doc FROM calls WHERE id = $1")
                .bind(id.as_str())
                .fetch_optional(&self.db.pool)
                .await
                .map_err(db_error)?;
        row.map(|(id, version, doc)| decode_call(&id, version, &doc))
            .transpose()
    }

    async fn update(&self, call: &StoredCall, events: Vec<NewEvent>) -> Result<u64, StoreError> {
        let id = &call.record.id;
        let next_version = call
            .version
            .checked_add(1)
            .ok_or_else(|| corrupt(format!("call {id}: version overflow")))?;
        let mut c = encode_call(call)?;
        c.version = version_column(next_version, id)?;
        let expected = version_column(call.version, id)?;
        let mut tx = self.db.write().await?;
        let updated = sqlx::query(
            "UPDATE calls SET key_id = $1, account_id = $2, created_ns = $3, status = $4, \
             version = $5, doc = $6 WHERE id = $7 AND version = $8",
        )
        .bind(&c.key_id)
        .bind(&c.account_id)
        .bind(c.created_ns)
        .bind(c.status)
        .bind(c.version)
        .bind(&c.doc)
        .bind(&c.id)
        .bind(expected)
        .execute(tx.conn())
        .await
        .map_err(db_error)?;
        if updated.rows_affected() == 0 {
            let exists = sqlx::query_scalar::<_, i64>("SELECT 1 FROM calls WHERE id = $1")
                .bind(&c.id)
                .fetch_optional(tx.conn())
                .await
                .map_err(db_error)?;
            return Err(match exists {
                Some(_) => StoreError::Conflict {
                    id: id.clone(),
                    expected: call.version,
                },
                None => StoreError::NotFound(id.clone()),
            });
        }
        for event in &events {
            insert_event(tx.conn(), event).await?;
        }
        tx.commit().await?;
        Ok(next_version)
    }

    async fn list(&self, query: &ListQuery) -> Result<ListPage, StoreError> {
        let cursor = match &query.starting_after {
            Some(cursor) => {
                let created_ns: Option<i64> = sqlx::query_scalar(
                    "SELECT created_ns FROM calls WHERE id = $1 AND key_id = $2",
                )
                .bind(cursor.as_str())
                .bind(query.key_id.as_str())
                .fetch_optional(&self.db.pool)
                .await
                .map_err(db_error)?;
                let created_ns = created_ns.ok_or_else(|| StoreError::NotFound(cursor.clone()))?;
                Some((created_ns, cursor.as_str()))
            }
            None => None,
        };
        let mut builder = list_query::<Sqlite>(query, cursor);
        let rows: Vec<(String, i64, String)> = builder
            .build_query_as()
            .fetch_all(&self.db.pool)
            .await
            .map_err(db_error)?;
        let mut calls = decode_calls(rows)?;
        let has_more = calls.len() > query.limit;
        calls.truncate(query.limit);
        Ok(ListPage { calls, has_more })
    }

    async fn unfinished(&self) -> Result<Vec<StoredCall>, StoreError> {
        let sql = format!(
            "SELECT id, version, doc FROM calls WHERE status IN {UNFINISHED_SQL} \
             ORDER BY created_ns, id"
        );
        let rows = sqlx::query_as(&sql)
            .fetch_all(&self.db.pool)
            .await
            .map_err(db_error)?;
        decode_calls(rows)
    }

    async fn put_recording(&self, id: &CallId, recording: Recording) -> Result<(), StoreError> {
        let _turn = self.db.turn().await;
        let stored = sqlx::query(
            "INSERT INTO recordings (call_id, content_type, bytes) \
             SELECT id, $2, $3 FROM calls WHERE id = $1 \
             ON CONFLICT (call_id) DO UPDATE SET content_type = excluded.content_type, \
             bytes = excluded.bytes",
        )
        .bind(id.as_str())
        .bind(&recording.content_type)
        .bind(recording.bytes.as_ref())
        .execute(&self.db.pool)
        .await
        .map_err(db_error)?;
        if stored.rows_affected() == 0 {
            return Err(StoreError::NotFound(id.clone()));
        }
        Ok(())
    }

    async fn recording(&self, id: &CallId) -> Result<Option<Recording>, StoreError> {
        let row: Option<(String, Vec<u8>)> =
            sqlx::query_as("SELECT content_type, bytes FROM recordings WHERE call_id = $1")
                .bind(id.as_str())
                .fetch_optional(&self.db.pool)
                .await
                .map_err(db_error)?;
        Ok(row.map(|(content_type, bytes)| Recording {
            content_type,
            bytes: Bytes::from(bytes),
        }))
    }
}

#[async_trait]
impl EventOutbox for SqliteStore {
    async fn claim_due(
        &self,
        now: DateTime<Utc>,
        limit: usize,
        lease: Duration,
    ) -> Result<Vec<PendingDelivery>, StoreError> {
        let now = nanos(now);
        let until = now.saturating_add(duration_nanos(lease));
        // An event waits while an earlier event of its call has no attempt
        // (spec 6.1 rule 4); a claimed but unattempted event still counts.
        let sql = format!(
            "SELECT {EVENT_COLUMNS} FROM outbox o \
             WHERE o.next_attempt_ns IS NOT NULL AND o.next_attempt_ns <= $1 \
             AND NOT EXISTS (SELECT 1 FROM outbox p \
                 WHERE p.call_id = o.call_id AND p.seq < o.seq AND p.attempts = 0) \
             ORDER BY o.next_attempt_ns, o.seq LIMIT $2"
        );
        let mut tx = self.db.write().await?;
        let rows: Vec<EventRow> = sqlx::query_as(&sql)
            .bind(now)
            .bind(sql_int(limit))
            .fetch_all(tx.conn())
            .await
            .map_err(db_error)?;
        for row in &rows {
            sqlx::query("UPDATE outbox SET next_attempt_ns = $1 WHERE seq = $2")
                .bind(until)
                .bind(row.seq)
                .execute(tx.conn())
                .await
                .map_err(db_error)?;
        }
        let claimed = rows
            .into_iter()
            .map(EventRow::into_pending)
            .collect::<Result<Vec<_>, _>>()?;
        tx.commit().await?;
        Ok(claimed)
    }

    async fn record_attempt(
        &self,
        event_id: &str,
        now: DateTime<Utc>,
        outcome: AttemptOutcome,
    ) -> Result<(), StoreError> {
        let query = match outcome {
            AttemptOutcome::Delivered { status } => sqlx::query(
                "UPDATE outbox SET attempts = attempts + 1, status = $2, \
                 last_response_status = $3, last_error = NULL, delivered_ns = $4, \
                 next_attempt_ns = NULL WHERE event_id = $1",
            )
            .bind(event_id)
            .bind(delivery_status_name(DeliveryStatus::Delivered))
            .bind(i64::from(status))
            .bind(nanos(now)),
            AttemptOutcome::Failed {
                status,
                error,
                retry_at,
            } => sqlx::query(
                "UPDATE outbox SET attempts = attempts + 1, status = COALESCE($2, status), \
                 last_response_status = $3, last_error = $4, next_attempt_ns = $5 \
                 WHERE event_id = $1",
            )
            .bind(event_id)
            .bind(
                retry_at
                    .is_none()
                    .then_some(delivery_status_name(DeliveryStatus::GaveUp)),
            )
            .bind(status.map(i64::from))
            .bind(error)
            .bind(retry_at.map(nanos)),
        };
        let _turn = self.db.turn().await;
        query.execute(&self.db.pool).await.map_err(db_error)?;
        Ok(())
    }

    async fn next_due(&self) -> Result<Option<DateTime<Utc>>, StoreError> {
        let due: Option<i64> = sqlx::query_scalar(
            "SELECT MIN(next_attempt_ns) FROM outbox WHERE next_attempt_ns IS NOT NULL",
        )
        .fetch_one(&self.db.pool)
        .await
        .map_err(db_error)?;
        Ok(due.map(from_nanos))
    }

    async fn deliveries(&self, call_id: &CallId) -> Result<Vec<DeliveryState>, StoreError> {
        let sql = format!("SELECT {EVENT_COLUMNS} FROM outbox WHERE call_id = $1 ORDER BY seq");
        let rows: Vec<EventRow> = sqlx::query_as(&sql)
            .bind(call_id.as_str())
            .fetch_all(&self.db.pool)
            .await
            .map_err(db_error)?;
        rows.into_iter().map(EventRow::into_state).collect()
    }

    async fn redeliver(&self, event_id: &str, now: DateTime<Utc>) -> Result<bool, StoreError> {
        let _turn = self.db.turn().await;
        let updated = sqlx::query(
            "UPDATE outbox SET status = $2, delivered_ns = NULL, next_attempt_ns = $3 \
             WHERE event_id = $1",
        )
        .bind(event_id)
        .bind(delivery_status_name(DeliveryStatus::Pending))
        .bind(nanos(now))
        .execute(&self.db.pool)
        .await
        .map_err(db_error)?;
        Ok(updated.rows_affected() > 0)
    }
}

#[async_trait]
impl IdempotencyStore for SqliteStore {
    async fn begin(
        &self,
        key_id: &KeyId,
        idempotency_key: &str,
        fingerprint: [u8; 32],
        now: DateTime<Utc>,
        ttl: Duration,
        lease: Duration,
    ) -> Result<IdempotencyBegin, StoreError> {
        let (expired, stale) = idempotency_thresholds(now, ttl, lease);
        let mut tx = self.db.write().await?;
        // Expired records are gone for good; dropping them keeps the table
        // bounded by the keys of one TTL.
        sqlx::query("DELETE FROM idempotency WHERE created_ns <= $1")
            .bind(expired)
            .execute(tx.conn())
            .await
            .map_err(db_error)?;
        let started: Option<i64> = sqlx::query_scalar(
            "INSERT INTO idempotency (key_id, idempotency_key, fingerprint, created_ns) \
             VALUES ($1, $2, $3, $4) \
             ON CONFLICT (key_id, idempotency_key) DO UPDATE SET \
                 fingerprint = excluded.fingerprint, created_ns = excluded.created_ns, \
                 response_status = NULL, response_body = NULL \
             WHERE idempotency.response_status IS NULL AND idempotency.created_ns <= $5 \
             RETURNING 1",
        )
        .bind(key_id.as_str())
        .bind(idempotency_key)
        .bind(fingerprint.as_slice())
        .bind(nanos(now))
        .bind(stale)
        .fetch_optional(tx.conn())
        .await
        .map_err(db_error)?;
        let verdict = match started {
            Some(_) => IdempotencyBegin::Started,
            None => {
                let row: IdempotencyRow = sqlx::query_as(
                    "SELECT fingerprint, response_status, response_body FROM idempotency \
                     WHERE key_id = $1 AND idempotency_key = $2",
                )
                .bind(key_id.as_str())
                .bind(idempotency_key)
                .fetch_one(tx.conn())
                .await
                .map_err(db_error)?;
                idempotency_verdict(row, fingerprint)?
            }
        };
        tx.commit().await?;
        Ok(verdict)
    }

    async fn complete(
        &self,
        key_id: &KeyId,
        idempotency_key: &str,
        response: StoredResponse,
    ) -> Result<(), StoreError> {
        let _turn = self.db.turn().await;
        sqlx::query(
            "UPDATE idempotency SET response_status = $3, response_body = $4 \
             WHERE key_id = $1 AND idempotency_key = $2",
        )
        .bind(key_id.as_str())
        .bind(idempotency_key)
        .bind(i64::from(response.status))
        .bind(response.body.as_ref())
        .execute(&self.db.pool)
        .await
        .map_err(db_error)?;
        Ok(())
    }

    async fn abandon(&self, key_id: &KeyId, idempotency_key: &str) -> Result<(), StoreError> {
        let _turn = self.db.turn().await;
        sqlx::query("DELETE FROM idempotency WHERE key_id = $1 AND idempotency_key = $2")
            .bind(key_id.as_str())
            .bind(idempotency_key)
            .execute(&self.db.pool)
            .await
            .map_err(db_error)?;
        Ok(())
    }
}

/// Billed and reserved minutes per account and period, in the store's
/// database, so a restart forgets neither.
///
/// Made by [`SqliteStore::usage_ledger`]. `reserve` is one write
/// transaction, so `billed + reserved` never exceeds the cap. The
/// [`UsageLedger`] trait has no error channel: when the database fails,
/// `reserve` refuses the placement ([`OverMinuteCap`]) rather than let it
/// run unmetered, and `settle` and `usage` log the error (`tracing`, level
/// error) and do nothing / report zero.
#[derive(Clone)]
pub struct SqliteUsageLedger {
    db: Db,
}

impl fmt::Debug for SqliteUsageLedger {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        debug_db(f, "SqliteUsageLedger", &self.db)
    }
}

impl SqliteUsageLedger {
    async fn try_reserve(
        &self,
        account: &AccountId,
        period: DateTime<Utc>,
        cap: u64,
        max_minutes: u64,
    ) -> Result<u64, StoreError> {
        let mut tx = self.db.write().await?;
        let row: Option<(i64, i64)> = sqlx::query_as(
            "SELECT billed, reserved FROM usage WHERE account_id = $1 AND period_ns = $2",
        )
        .bind(account.as_str())
        .bind(nanos(period))
        .fetch_optional(tx.conn())
        .await
        .map_err(db_error)?;
        let (billed, reserved) = match row {
            Some((billed, reserved)) => usage_counts(billed, reserved)?,
            None => (0, 0),
        };
        let grant = minutes_to_reserve(billed, reserved, cap, max_minutes);
        if grant == 0 {
            return Ok(0);
        }
        sqlx::query(
            "INSERT INTO usage (account_id, period_ns, billed, reserved) VALUES ($1, $2, 0, $3) \
             ON CONFLICT (account_id, period_ns) DO UPDATE SET reserved = reserved + $3",
        )
        .bind(account.as_str())
        .bind(nanos(period))
        .bind(sql_int(grant))
        .execute(tx.conn())
        .await
        .map_err(db_error)?;
        tx.commit().await?;
        Ok(grant)
    }

    async fn try_settle(
        &self,
        account: &AccountId,
        period: DateTime<Utc>,
        reserved: u64,
        billed: u64,
    ) -> Result<(), StoreError> {
        let _turn = self.db.turn().await;
        sqlx::query(
            "INSERT INTO usage (account_id, period_ns, billed, reserved) VALUES ($1, $2, $3, 0) \
             ON CONFLICT (account_id, period_ns) DO UPDATE SET \
                 reserved = MAX(reserved - $4, 0), billed = billed + $3",
        )
        .bind(account.as_str())
        .bind(nanos(period))
        .bind(sql_int(billed.min(reserved)))
        .bind(sql_int(reserved))
        .execute(&self.db.pool)
        .await
        .map_err(db_error)?;
        Ok(())
    }

    async fn try_usage(
        &self,
        account: &AccountId,
        period: DateTime<Utc>,
    ) -> Result<Usage, StoreError> {
        let row: Option<(i64, i64)> = sqlx::query_as(
            "SELECT billed, reserved FROM usage WHERE account_id = $1 AND period_ns = $2",
        )
        .bind(account.as_str())
        .bind(nanos(period))
        .fetch_optional(&self.db.pool)
        .await
        .map_err(db_error)?;
        let (billed, reserved) = match row {
            Some((billed, reserved)) => usage_counts(billed, reserved)?,
            None => (0, 0),
        };
        Ok(Usage { billed, reserved })
    }
}

#[async_trait]
impl UsageLedger for SqliteUsageLedger {
    async fn reserve(
        &self,
        account: &AccountId,
        period: DateTime<Utc>,
        cap: u64,
        max_minutes: u64,
    ) -> Result<u64, OverMinuteCap> {
        match self.try_reserve(account, period, cap, max_minutes).await {
            Ok(0) => Err(OverMinuteCap),
            Ok(grant) => Ok(grant),
            Err(error) => {
                tracing::error!(%error, %account, "usage ledger unavailable; refusing to reserve minutes");
                Err(OverMinuteCap)
            }
        }
    }

    async fn settle(&self, account: &AccountId, period: DateTime<Utc>, reserved: u64, billed: u64) {
        if let Err(error) = self.try_settle(account, period, reserved, billed).await {
            tracing::error!(%error, %account, reserved, billed, "usage ledger unavailable; settlement lost");
        }
    }

    async fn usage(&self, account: &AccountId, period: DateTime<Utc>) -> Usage {
        self.try_usage(account, period)
            .await
            .unwrap_or_else(|error| {
                tracing::error!(%error, %account, "usage ledger unavailable; reporting no usage");
                Usage::default()
            })
    }
}
