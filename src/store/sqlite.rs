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
//!   out twice within its lease, and `record_attempt` applies an outcome
//!   only under the event's current claim token; `begin` on an idempotency
//!   key and `reserve` on the usage ledger are single transactions, so their
//!   contracts hold under any concurrency.
//! - **Listing** walks the `(key_id, created_ns, id)` index from the cursor
//!   and reads at most `limit + 1` matching rows.
//! - **Limits.** The rate limiter ([`SqliteStore::rate_limiter`]) and the
//!   usage ledger ([`SqliteStore::usage_ledger`]) live in the same file, so
//!   every process on it counts against one budget and billed minutes
//!   survive a restart; `.store(sqlite)` on the builder wires both
//!   ([`Persistence`](crate::store::Persistence)).
//!
//! The database should belong to agentcall alone: the embedded migrations
//! keep their history in sqlx's `_sqlx_migrations` table, which a host
//! application using sqlx migrations on the same file would share.

use std::fmt;
use std::path::Path;
use std::str::FromStr;
use std::time::Duration;

use crate::store::StoreError;
use sqlx::Sqlite;
use sqlx::migrate::Migrator;
use sqlx::sqlite::{SqliteConnectOptions, SqliteJournalMode, SqlitePool, SqliteSynchronous};

use super::sql::codec::db_error;
use super::sql::{Db, Dialect, delegate_store};

static MIGRATOR: Migrator = sqlx::migrate!("migrations/sqlite");

/// How long a connection waits for another process's write lock.
const BUSY_TIMEOUT: Duration = Duration::from_secs(10);

/// How long an operation waits for a pooled connection before it fails
/// with [`StoreError::Unavailable`] (sqlx's default is 30 seconds). As long
/// as the busy timeout: a connection is only held that long by a statement
/// waiting for another process's write lock.
const ACQUIRE_TIMEOUT: Duration = BUSY_TIMEOUT;

/// Connections in a pool the store opens itself (readers run in parallel;
/// writes take turns).
const POOL_SIZE: u32 = 8;

/// SQLite's part of the shared SQL store: one writer at a time.
pub(crate) struct SqliteDialect;

impl Dialect for SqliteDialect {
    type Db = Sqlite;
    // Writers wait their turn in the process rather than spin on
    // `SQLITE_BUSY`.
    const QUEUE_WRITES: bool = true;
    // Takes the write lock up front, so a read inside the transaction
    // cannot go stale before its write; another process's writer is waited
    // for, up to the busy timeout.
    const BEGIN_WRITE: &'static str = "BEGIN IMMEDIATE";
    // No row locks (SQLite has no `FOR UPDATE`): a write transaction
    // already excludes every other writer.
    const CLAIM_LOCK: &'static str = "";
    // No JIT to turn off.
    const CLAIM_SETUP: Option<&'static str> = None;
    const SKIP_LOCKED: &'static str = "";
    const ROW_LOCK: &'static str = "";
    // The two-argument `MAX` is SQLite's `GREATEST`.
    const GREATEST: &'static str = "MAX";
    const LEAST: &'static str = "MIN";
}

/// Calls, recordings, the outbox and idempotency keys in a SQLite database.
///
/// Cloning is cheap and shares the pool. See the [module docs](self) for
/// what it guarantees.
#[derive(Clone)]
pub struct SqliteStore {
    db: Db<SqliteDialect>,
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
        Self::connect_with(
            Db::<SqliteDialect>::open_pool(POOL_SIZE, ACQUIRE_TIMEOUT, options).await?,
        )
        .await
    }

    /// Uses an existing pool and applies the embedded migrations.
    ///
    /// The pool's options are the caller's: for the guarantees of the
    /// [module docs](self) they should enable WAL, `synchronous = FULL`,
    /// foreign keys and a busy timeout, as [`connect`](Self::connect) does.
    pub async fn connect_with(pool: SqlitePool) -> Result<Self, StoreError> {
        Ok(Self {
            db: Db::migrated(pool, &MIGRATOR).await?,
        })
    }
}

impl SqliteStore {
    /// A rate limiter in the same database, exact across every process on
    /// the file (each admission is one statement under SQLite's write lock).
    pub fn rate_limiter(&self) -> SqliteRateLimiter {
        SqliteRateLimiter {
            db: self.db.clone(),
        }
    }
}

impl crate::store::Persistence for SqliteStore {
    fn limits(&self) -> crate::store::SharedLimits {
        crate::store::SharedLimits::new(
            std::sync::Arc::new(self.rate_limiter()),
            std::sync::Arc::new(self.usage_ledger()),
        )
    }
}

/// Per-key placement limits in the store's database: an exact
/// sliding-window log in the `rate_events` table, shared by every process
/// on the file.
///
/// Made by [`SqliteStore::rate_limiter`]. When the database fails,
/// `try_acquire` fails with
/// [`LimitError::Unavailable`](crate::guardrails::LimitError::Unavailable)
/// (the placement answers `503 store_error`, not `429`).
#[derive(Clone)]
pub struct SqliteRateLimiter {
    db: Db<SqliteDialect>,
}

impl fmt::Debug for SqliteRateLimiter {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        debug_pool(f, "SqliteRateLimiter", &self.db.pool)
    }
}

#[async_trait::async_trait]
impl crate::guardrails::RateLimiter for SqliteRateLimiter {
    async fn try_acquire(
        &self,
        key_id: &crate::domain::KeyId,
        limit: u32,
        now: chrono::DateTime<chrono::Utc>,
    ) -> Result<crate::guardrails::RatePermit, crate::guardrails::LimitError> {
        use crate::guardrails::LimitError;
        match self.db.try_acquire_rate(key_id, limit, now).await {
            Ok(Ok(permit)) => Ok(permit),
            Ok(Err(limited)) => Err(LimitError::Limited(limited)),
            Err(error) => Err(LimitError::Unavailable(error)),
        }
    }

    async fn refund(&self, permit: crate::guardrails::RatePermit) -> Result<(), StoreError> {
        self.db.refund_rate(&permit).await
    }
}

/// Names the database file (the options hold nothing secret).
fn debug_pool(f: &mut fmt::Formatter<'_>, name: &str, pool: &SqlitePool) -> fmt::Result {
    f.debug_struct(name)
        .field("file", &pool.connect_options().get_filename())
        .field("connections", &pool.size())
        .finish_non_exhaustive()
}

/// Billed and reserved minutes per account and period, in the store's
/// database, so a restart forgets neither.
///
/// Made by [`SqliteStore::usage_ledger`]. `reserve` is one write
/// transaction, so `billed + reserved` never exceeds the cap. When the
/// database fails, `reserve` fails with
/// [`ReserveError::Unavailable`](crate::guardrails::ReserveError::Unavailable)
/// (the placement answers `503 store_error`, not `over_minute_cap`), and
/// `settle` and `usage` with [`StoreError::Unavailable`].
#[derive(Clone)]
pub struct SqliteUsageLedger {
    db: Db<SqliteDialect>,
}

delegate_store!(
    /// A usage ledger in the same database, sharing the pool and the write
    /// queue, so billed and reserved minutes survive a restart.
    SqliteStore,
    SqliteUsageLedger,
    SqlitePool,
    debug_pool
);
