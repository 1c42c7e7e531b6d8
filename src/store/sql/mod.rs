//! The SQL store, written once for SQLite and PostgreSQL.
//!
//! [`Db`] holds a pool and does everything the stores do: calls and
//! recordings (`calls`), the webhook outbox (`outbox`), idempotency keys
//! (`idempotency`) and minute usage (`usage`). It is generic over a
//! [`Dialect`], which names the few things the backends do differently:
//!
//! - how writes are serialised: SQLite has one writer at a time, so a
//!   process queues its writes on an async mutex and begins its write
//!   transactions with `BEGIN IMMEDIATE`; PostgreSQL writers run in
//!   parallel and serialise on row locks;
//! - the row locks themselves (`FOR UPDATE`, `FOR UPDATE … SKIP LOCKED`),
//!   which SQLite has no use for;
//! - spelling (`GREATEST` versus SQLite's scalar `MAX`).
//!
//! Everything else — every statement, the order they run in, how rows
//! decode ([`codec`]), opening pools and applying migrations — is shared.
//! The backend modules ([`sqlite`](crate::store::sqlite),
//! [`postgres`](crate::store::postgres)) keep what is theirs alone: their
//! [`Dialect`], the public types and their constructors, connect options,
//! the embedded migrations and, for PostgreSQL, the rate limiter.
//!
//! Statements number their parameters `$1, $2, …`, which both drivers
//! accept, so placeholders need no dialect (statements written at run time
//! number theirs too: [`codec::Statement`]).
//!
//! A column added to a table is written in one place: the statements here
//! and, for calls, [`codec::CallColumns`] (bound by one function for both
//! `insert` and `update`). Only the migrations exist once per backend.
//!
//! # Bounds
//!
//! Rust does not carry a trait's where-clauses over to the code that uses
//! the trait, so the bounds the shared code needs of `D::Db` (which values
//! it binds and decodes, that its connections execute queries) cannot live
//! on [`Dialect`]. They are written once, in the `shared!` macro, and every
//! generic `impl` block of this module is written through it.
//!
//! # Public types
//!
//! The public store and ledger types of each backend wrap a [`Db`]. The
//! store traits, the accessors both backends offer (`pool`, `usage_ledger`,
//! `close`) and `Debug` are written once, in `delegate_store!`, which hands
//! each call to the [`Db`]: the traits' impls must be on the public types,
//! and a generic public type would put the dialect in the public API.

mod calls;
pub(crate) mod codec;
mod idempotency;
mod outbox;
#[cfg(feature = "sqlite")]
mod rate;
mod usage;

use std::sync::Arc;

use sqlx::migrate::{Migrate, Migrator};
use sqlx::pool::{PoolConnection, PoolOptions};
use sqlx::{Connection, Database, Pool, Transaction};
use tokio::sync::{Mutex, MutexGuard};

use crate::store::StoreError;
use codec::{db_error, migrate_error};

/// What sets one SQL backend apart from the other; everything else is
/// shared (see the [module docs](self)).
///
/// The defaults are standard SQL as PostgreSQL speaks it, for a backend
/// whose writers run in parallel and serialise on row locks; a backend
/// overrides what it does differently.
pub(crate) trait Dialect: Send + Sync + 'static {
    /// The sqlx driver.
    type Db: Database<QueryResult: RowsAffected, Connection: Migrate>;

    /// Whether this process queues its writes on an async mutex.
    ///
    /// True for SQLite, which has one writer at a time: queued writers wait
    /// their turn instead of spinning on `SQLITE_BUSY`. Where it is true, a
    /// sequence of statements that would tolerate other writers in between
    /// (idempotency `begin`) runs as one write transaction, since the turn
    /// serialises it anyway; where it is false, it runs as separate
    /// statements, so it holds no locks between them.
    const QUEUE_WRITES: bool = false;

    /// The statement that begins a write transaction.
    const BEGIN_WRITE: &'static str = "BEGIN";

    /// Appended to the query that selects due events for a claim (alias
    /// `o`; the ranking runs in `WITH` queries before it, which lock
    /// nothing), so instances claiming at once skip each other's rows
    /// instead of waiting for them. Empty, or starting with a space.
    const CLAIM_LOCK: &'static str = " FOR UPDATE OF o SKIP LOCKED";

    /// Appended to a subquery that picks rows for an update, so instances
    /// picking at once skip each other's rows. Empty, or starting with a
    /// space.
    const SKIP_LOCKED: &'static str = " FOR UPDATE SKIP LOCKED";

    /// Appended to a read whose row the transaction then updates, to lock
    /// the row against other writers until the commit. Empty, or starting
    /// with a space.
    const ROW_LOCK: &'static str = " FOR UPDATE";

    /// The scalar function for the larger of two values.
    const GREATEST: &'static str = "GREATEST";

    /// The scalar function for the smaller of two values.
    const LEAST: &'static str = "LEAST";

    /// Run first in the outbox claim's transaction, if any. PostgreSQL
    /// estimates the claim (a recursive walk over accounts) costly enough to
    /// JIT-compile it on every run: 1.2 s instead of 0.2 s per claim of 64
    /// events from a 3,000-event backlog. Set per transaction, so it needs
    /// no connection option (which PgBouncer and other poolers refuse) and
    /// applies to pools a host passes in too.
    const CLAIM_SETUP: Option<&'static str> = Some("SET LOCAL jit = off");
}

/// How many rows a statement changed: sqlx has no backend-neutral way to
/// ask.
pub(crate) trait RowsAffected {
    /// Rows inserted, updated or deleted.
    fn changed(&self) -> u64;
}

#[cfg(feature = "sqlite")]
impl RowsAffected for sqlx::sqlite::SqliteQueryResult {
    fn changed(&self) -> u64 {
        self.rows_affected()
    }
}

#[cfg(feature = "postgres")]
impl RowsAffected for sqlx::postgres::PgQueryResult {
    fn changed(&self) -> u64 {
        self.rows_affected()
    }
}

/// Writes `impl<D: Dialect> <type> where <bounds> { … }` with the bounds the
/// shared statements need of `D::Db`; see the [module docs](self) for why
/// they are not on [`Dialect`].
macro_rules! shared {
    (impl $ty:ty { $($item:tt)* }) => {
        impl<D: $crate::store::sql::Dialect> $ty
        where
            for<'c> &'c mut <D::Db as sqlx::Database>::Connection:
                sqlx::Executor<'c, Database = D::Db>,
            for<'q> <D::Db as sqlx::Database>::Arguments<'q>: sqlx::IntoArguments<'q, D::Db>,
            for<'q> i64: sqlx::Encode<'q, D::Db> + sqlx::Decode<'q, D::Db> + sqlx::Type<D::Db>,
            for<'q> String:
                sqlx::Encode<'q, D::Db> + sqlx::Decode<'q, D::Db> + sqlx::Type<D::Db>,
            for<'q> &'q str: sqlx::Encode<'q, D::Db> + sqlx::Type<D::Db>,
            for<'q> Option<i64>: sqlx::Encode<'q, D::Db>,
            for<'q> Option<&'q str>: sqlx::Encode<'q, D::Db>,
            for<'q> Option<String>: sqlx::Encode<'q, D::Db>,
            for<'q> &'q [u8]: sqlx::Encode<'q, D::Db> + sqlx::Type<D::Db>,
            for<'q> Vec<u8>: sqlx::Decode<'q, D::Db> + sqlx::Type<D::Db>,
            usize: sqlx::ColumnIndex<<D::Db as sqlx::Database>::Row>,
            for<'r> &'r str: sqlx::ColumnIndex<<D::Db as sqlx::Database>::Row>,
        {
            $($item)*
        }
    };
}
use shared;

/// The pool and, where the dialect queues writes, this process's write
/// queue; shared by a store and the usage ledger made from it.
pub(crate) struct Db<D: Dialect> {
    pub(crate) pool: Pool<D::Db>,
    /// `Some` where [`Dialect::QUEUE_WRITES`]: a write holds the lock.
    writer: Option<Arc<Mutex<()>>>,
}

impl<D: Dialect> Clone for Db<D> {
    fn clone(&self) -> Self {
        Self {
            pool: self.pool.clone(),
            writer: self.writer.clone(),
        }
    }
}

/// The options a connection of `D` is opened with.
pub(crate) type ConnectOptions<D> =
    <<<D as Dialect>::Db as Database>::Connection as Connection>::Options;

impl<D: Dialect> Db<D> {
    /// Opens a pool of at most `size` connections, where an operation waits
    /// at most `acquire_timeout` for a connection (connecting included)
    /// before it fails with [`StoreError::Unavailable`]. Connections are
    /// checked before they are handed out (sqlx's default), so a connection
    /// the server dropped is replaced, and the pool works again once the
    /// database is back.
    pub(crate) async fn open_pool(
        size: u32,
        acquire_timeout: std::time::Duration,
        options: ConnectOptions<D>,
    ) -> Result<Pool<D::Db>, StoreError> {
        PoolOptions::new()
            .max_connections(size)
            .acquire_timeout(acquire_timeout)
            .test_before_acquire(true)
            .connect_with(options)
            .await
            .map_err(db_error)
    }

    /// Applies the backend's embedded migrations to `pool` (those applied
    /// already are skipped) and wraps it.
    pub(crate) async fn migrated(
        pool: Pool<D::Db>,
        migrator: &Migrator,
    ) -> Result<Self, StoreError> {
        migrator.run(&pool).await.map_err(migrate_error)?;
        Ok(Self::new(pool))
    }

    /// Wraps a pool whose migrations have been applied.
    pub(crate) fn new(pool: Pool<D::Db>) -> Self {
        Self {
            pool,
            writer: D::QUEUE_WRITES.then(|| Arc::new(Mutex::new(()))),
        }
    }

    /// Takes this process's write turn, where the dialect queues writes;
    /// a single-statement write holds it while it runs.
    async fn turn(&self) -> Option<MutexGuard<'_, ()>> {
        match &self.writer {
            Some(writer) => Some(writer.lock().await),
            None => None,
        }
    }

    /// Begins a write transaction ([`Dialect::BEGIN_WRITE`]), holding the
    /// write turn until it ends.
    async fn write(&self) -> Result<WriteTx<'_, D::Db>, StoreError> {
        let turn = self.turn().await;
        let tx = self
            .pool
            .begin_with(D::BEGIN_WRITE)
            .await
            .map_err(db_error)?;
        Ok(WriteTx { tx, _turn: turn })
    }

    /// Somewhere to run a sequence of statements that copes with other
    /// writers in between; see [`Dialect::QUEUE_WRITES`].
    async fn steps(&self) -> Result<Steps<'_, D::Db>, StoreError> {
        Ok(if self.writer.is_some() {
            Steps::Atomic(self.write().await?)
        } else {
            Steps::Each(self.pool.acquire().await.map_err(db_error)?)
        })
    }
}

/// A write transaction holding this process's write turn, if any. The
/// transaction is declared first so it ends (and releases SQLite's lock)
/// before the turn.
struct WriteTx<'a, DB: Database> {
    tx: Transaction<'static, DB>,
    _turn: Option<MutexGuard<'a, ()>>,
}

impl<DB: Database> WriteTx<'_, DB> {
    fn conn(&mut self) -> &mut DB::Connection {
        &mut self.tx
    }

    async fn commit(self) -> Result<(), StoreError> {
        self.tx.commit().await.map_err(db_error)
    }

    /// Rolls back now rather than on drop, so the write lock is released
    /// before the turn is (dropping a transaction only queues its
    /// rollback).
    async fn rollback(self) -> Result<(), StoreError> {
        self.tx.rollback().await.map_err(db_error)
    }
}

/// Where [`Db::steps`] runs its statements.
enum Steps<'a, DB: Database> {
    /// One write transaction, committed by [`finish`](Self::finish).
    Atomic(WriteTx<'a, DB>),
    /// One pooled connection; each statement commits on its own.
    Each(PoolConnection<DB>),
}

impl<DB: Database> Steps<'_, DB> {
    fn conn(&mut self) -> &mut DB::Connection {
        match self {
            Self::Atomic(tx) => tx.conn(),
            Self::Each(conn) => conn,
        }
    }

    /// Commits what the steps wrote, where they are one transaction.
    async fn finish(self) -> Result<(), StoreError> {
        match self {
            Self::Atomic(tx) => tx.commit().await,
            Self::Each(_) => Ok(()),
        }
    }
}

/// What the public store and ledger types of both backends have in common,
/// written once: `pool`, `usage_ledger` (documented by the docs given) and
/// `close` on the store, `Debug` on both (by `$debug(f, name, pool)`), and
/// the store and ledger traits, each call handed to the [`Db`] the types
/// hold in a field named `db`.
macro_rules! delegate_store {
    ($(#[$ledger_doc:meta])* $store:ident, $ledger:ident, $pool:ty, $debug:path) => {
        impl $store {
            /// The connection pool.
            pub fn pool(&self) -> &$pool {
                &self.db.pool
            }

            $(#[$ledger_doc])*
            pub fn usage_ledger(&self) -> $ledger {
                $ledger {
                    db: self.db.clone(),
                }
            }

            /// Closes the pool, waiting for connections in use to be returned.
            /// Later calls fail with
            /// [`StoreError::Unavailable`](crate::store::StoreError::Unavailable).
            pub async fn close(&self) {
                self.db.pool.close().await;
            }
        }

        impl std::fmt::Debug for $store {
            fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                $debug(f, stringify!($store), &self.db.pool)
            }
        }

        impl std::fmt::Debug for $ledger {
            fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                $debug(f, stringify!($ledger), &self.db.pool)
            }
        }

        #[async_trait::async_trait]
        impl $crate::store::CallStore for $store {
            async fn insert(
                &self,
                call: &$crate::store::StoredCall,
            ) -> Result<(), $crate::store::StoreError> {
                self.db.insert(call).await
            }

            async fn get(
                &self,
                id: &$crate::domain::CallId,
            ) -> Result<Option<$crate::store::StoredCall>, $crate::store::StoreError> {
                self.db.get(id).await
            }

            async fn update(
                &self,
                call: &$crate::store::StoredCall,
                events: Vec<$crate::store::NewEvent>,
            ) -> Result<u64, $crate::store::StoreError> {
                self.db.update(call, events).await
            }

            async fn list(
                &self,
                query: &$crate::store::ListQuery,
            ) -> Result<$crate::store::ListPage, $crate::store::StoreError> {
                self.db.list(query).await
            }

            async fn renew_leases(
                &self,
                holder: &$crate::store::InstanceId,
                calls: &[$crate::domain::CallId],
                until: chrono::DateTime<chrono::Utc>,
            ) -> Result<Vec<$crate::domain::CallId>, $crate::store::StoreError> {
                self.db.renew_leases(holder, calls, until).await
            }

            async fn claim_lapsed(
                &self,
                claim: &$crate::store::LeaseClaim,
            ) -> Result<Vec<$crate::store::StoredCall>, $crate::store::StoreError> {
                self.db.claim_lapsed(claim).await
            }

            async fn put_recording(
                &self,
                id: &$crate::domain::CallId,
                recording: $crate::store::Recording,
            ) -> Result<(), $crate::store::StoreError> {
                self.db.put_recording(id, recording).await
            }

            async fn recording(
                &self,
                id: &$crate::domain::CallId,
            ) -> Result<Option<$crate::store::Recording>, $crate::store::StoreError> {
                self.db.recording(id).await
            }
        }

        #[async_trait::async_trait]
        impl $crate::store::EventOutbox for $store {
            async fn claim_due(
                &self,
                now: chrono::DateTime<chrono::Utc>,
                limit: usize,
                lease: std::time::Duration,
            ) -> Result<Vec<$crate::store::PendingDelivery>, $crate::store::StoreError> {
                self.db.claim_due(now, limit, lease).await
            }

            async fn record_attempt(
                &self,
                event_id: &str,
                claim: $crate::store::ClaimToken,
                now: chrono::DateTime<chrono::Utc>,
                outcome: $crate::store::AttemptOutcome,
            ) -> Result<$crate::store::RecordedAttempt, $crate::store::StoreError> {
                self.db.record_attempt(event_id, claim, now, outcome).await
            }

            async fn next_due(
                &self,
            ) -> Result<Option<chrono::DateTime<chrono::Utc>>, $crate::store::StoreError> {
                self.db.next_due().await
            }

            async fn deliveries(
                &self,
                call_id: &$crate::domain::CallId,
            ) -> Result<Vec<$crate::store::DeliveryState>, $crate::store::StoreError> {
                self.db.deliveries(call_id).await
            }

            async fn redeliver(
                &self,
                event_id: &str,
                now: chrono::DateTime<chrono::Utc>,
            ) -> Result<bool, $crate::store::StoreError> {
                self.db.redeliver(event_id, now).await
            }
        }

        #[async_trait::async_trait]
        impl $crate::store::IdempotencyStore for $store {
            async fn begin(
                &self,
                key_id: &$crate::domain::KeyId,
                idempotency_key: &str,
                fingerprint: [u8; 32],
                now: chrono::DateTime<chrono::Utc>,
                ttl: std::time::Duration,
                lease: std::time::Duration,
            ) -> Result<$crate::store::IdempotencyBegin, $crate::store::StoreError> {
                self.db
                    .begin(key_id, idempotency_key, fingerprint, now, ttl, lease)
                    .await
            }

            async fn renew(
                &self,
                key_id: &$crate::domain::KeyId,
                idempotency_key: &str,
                token: $crate::store::HoldToken,
                now: chrono::DateTime<chrono::Utc>,
            ) -> Result<bool, $crate::store::StoreError> {
                self.db.renew(key_id, idempotency_key, token, now).await
            }

            async fn complete(
                &self,
                key_id: &$crate::domain::KeyId,
                idempotency_key: &str,
                token: $crate::store::HoldToken,
                response: $crate::store::StoredResponse,
            ) -> Result<(), $crate::store::StoreError> {
                self.db.complete(key_id, idempotency_key, token, response).await
            }

            async fn abandon(
                &self,
                key_id: &$crate::domain::KeyId,
                idempotency_key: &str,
                token: $crate::store::HoldToken,
            ) -> Result<(), $crate::store::StoreError> {
                self.db.abandon(key_id, idempotency_key, token).await
            }
        }

        #[async_trait::async_trait]
        impl $crate::guardrails::UsageLedger for $ledger {
            async fn reserve(
                &self,
                account: &$crate::domain::AccountId,
                _attempt: &$crate::domain::CallAttempt,
                period: chrono::DateTime<chrono::Utc>,
                cap: u64,
                max_minutes: u64,
            ) -> Result<u64, $crate::guardrails::ReserveError> {
                self.db.reserve(account, period, cap, max_minutes).await
            }

            async fn settle(
                &self,
                account: &$crate::domain::AccountId,
                attempt: &$crate::domain::CallAttempt,
                period: chrono::DateTime<chrono::Utc>,
                reserved: u64,
                billed: u64,
            ) -> Result<(), $crate::store::StoreError> {
                self.db.settle(account, attempt, period, reserved, billed).await
            }

            async fn release(
                &self,
                account: &$crate::domain::AccountId,
                _attempt: &$crate::domain::CallAttempt,
                period: chrono::DateTime<chrono::Utc>,
                reserved: u64,
            ) -> Result<(), $crate::store::StoreError> {
                self.db.release(account, period, reserved).await
            }

            async fn usage(
                &self,
                account: &$crate::domain::AccountId,
                period: chrono::DateTime<chrono::Utc>,
            ) -> Result<$crate::guardrails::Usage, $crate::store::StoreError> {
                self.db.usage(account, period).await
            }
        }
    };
}
pub(crate) use delegate_store;
