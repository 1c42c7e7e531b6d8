//! The PostgreSQL store, and the limits that several service instances
//! share through it: calls, recordings, the webhook outbox, idempotency keys,
//! per-key rate limits and minute usage in one database.
//!
//! # Guarantees
//!
//! - **What survives a crash.** Every method that returns `Ok` has committed
//!   its transaction, and PostgreSQL's commit is durable. A status change
//!   and the webhook events it emits commit together or not at all; pending
//!   events keep their attempt counts and due times, idempotency records and
//!   minute usage are kept, so any instance can pick up where a dead one
//!   left off.
//! - **Several instances, one database.** Each guarantee below holds across
//!   processes, not just within one:
//!   - `update` is one compare-and-set `UPDATE … WHERE version = $old`: of
//!     concurrent updates from one version exactly one succeeds.
//!   - `claim_due` ranks due events fairly across accounts, locks the ones
//!     it hands out `FOR UPDATE SKIP LOCKED` and pushes their next attempt to
//!     `now + lease` under a new claim token in the same transaction, so
//!     instances share the work without waiting on each other and never hand
//!     out one event twice within its lease. An event whose earlier sibling
//!     (same call) has no recorded attempt is not handed out, whichever
//!     instance holds the sibling.
//!   - `record_attempt` is one `UPDATE … WHERE claim_token = $token`: an
//!     instance whose lease lapsed cannot overwrite the outcome of the
//!     instance that claimed the event after it.
//!   - `begin` on an idempotency key is one `INSERT … ON CONFLICT DO UPDATE
//!     … WHERE <expired or stale>`: of concurrent `begin`s exactly one
//!     inserts or takes over the record, and the others read it.
//!   - [`PostgresRateLimiter`] serialises each key's check-and-count behind
//!     a transaction-scoped advisory lock, so of concurrent placements with a
//!     budget of `n`, exactly `n` are admitted across all instances.
//!   - [`PostgresUsageLedger`] reserves under a row lock, so `billed +
//!     reserved` never exceeds the cap across all instances.
//! - **Listing** walks the `(key_id, created_ns, id)` index from the cursor
//!   and reads at most `limit + 1` matching rows.
//!
//! Times are compared as given by the callers (`now` arguments), not by the
//! database clock; instances should keep their clocks in sync (NTP).
//!
//! Give agentcall a schema of its own, e.g. with
//! `?options=-c%20search_path%3Dagentcall` in the URL: the tables have plain
//! names (`calls`, `outbox`, …) and the embedded migrations keep their
//! history in sqlx's `_sqlx_migrations` table, which a host application
//! using sqlx migrations in the same schema would share. Migrations take an
//! advisory lock, so instances starting together apply them once.

use std::fmt;
use std::str::FromStr;
use std::time::Duration;

use crate::domain::KeyId;
use crate::guardrails::{LimitError, RATE_WINDOW, RateLimited, RateLimiter, RatePermit};
use crate::store::StoreError;
use async_trait::async_trait;
use chrono::{DateTime, Utc};
use sqlx::Postgres;
use sqlx::migrate::Migrator;
use sqlx::postgres::{PgConnectOptions, PgConnection, PgPool};

use super::sql::codec::{db_error, duration_nanos, nanos};
use super::sql::{Db, Dialect, delegate_store};

static MIGRATOR: Migrator = sqlx::migrate!("migrations/postgres");

/// Connections in a pool the store opens itself.
const POOL_SIZE: u32 = 10;

/// The first key of agentcall's advisory locks (`'agct'`), so they cannot
/// collide with a host application's single-key advisory locks.
const LOCK_CLASS: i32 = 0x6167_6374;

/// How long an operation of a store opened by [`PostgresStore::connect`]
/// waits for a pooled connection before it fails with
/// [`StoreError::Unavailable`]: an outage answers `503 store_error` within
/// about this long instead of sqlx's default of 30 seconds.
///
/// The wait includes opening a connection: sqlx bounds each connection
/// attempt (TCP connect, TLS, authentication) by what is left of it and
/// retries a refused one with backoff until it runs out, so an unreachable
/// host cannot hold a request for the operating system's TCP timeout.
pub const ACQUIRE_TIMEOUT: Duration = Duration::from_secs(3);

/// PostgreSQL's part of the shared SQL store: the [`Dialect`]'s defaults
/// (writers run in parallel and serialise on row locks).
pub(crate) struct PostgresDialect;

impl Dialect for PostgresDialect {
    type Db = Postgres;
}

/// Calls, recordings, the outbox and idempotency keys in PostgreSQL, shared
/// by any number of service instances.
///
/// Cloning is cheap and shares the pool. See the [module docs](self) for
/// what it guarantees.
#[derive(Clone)]
pub struct PostgresStore {
    db: Db<PostgresDialect>,
}

impl PostgresStore {
    /// Connects to a `postgres://` URL with a pool of ten connections and
    /// applies the embedded migrations.
    ///
    /// An operation waits at most [`ACQUIRE_TIMEOUT`] for a connection, so
    /// while the database is down each one fails with
    /// [`StoreError::Unavailable`] within a few seconds. The pool checks a
    /// connection before handing it out and opens new ones as needed, so when
    /// the database is back the same store works again, without a restart.
    pub async fn connect(url: &str) -> Result<Self, StoreError> {
        let options = PgConnectOptions::from_str(url).map_err(db_error)?;
        Self::connect_with(
            Db::<PostgresDialect>::open_pool(POOL_SIZE, ACQUIRE_TIMEOUT, options).await?,
        )
        .await
    }

    /// Uses an existing pool and applies the embedded migrations.
    ///
    /// The pool's options are the caller's: give it an `acquire_timeout` of
    /// a few seconds (as [`connect`](Self::connect) does, see
    /// [`ACQUIRE_TIMEOUT`]), or an outage will hold each request for sqlx's
    /// default of 30 seconds before it answers `503 store_error`.
    pub async fn connect_with(pool: PgPool) -> Result<Self, StoreError> {
        let db = Db::migrated(pool, &MIGRATOR).await?;
        Ok(Self { db })
    }

    /// A rate limiter on the same pool, exact across every instance sharing
    /// the database.
    pub fn rate_limiter(&self) -> PostgresRateLimiter {
        PostgresRateLimiter {
            pool: self.db.pool.clone(),
        }
    }
}

impl crate::store::Persistence for PostgresStore {
    fn limits(&self) -> crate::store::SharedLimits {
        crate::store::SharedLimits::new(
            std::sync::Arc::new(self.rate_limiter()),
            std::sync::Arc::new(self.usage_ledger()),
        )
    }
}

/// Describes the pool without its password (or any other option).
fn debug_pool(f: &mut fmt::Formatter<'_>, name: &str, pool: &PgPool) -> fmt::Result {
    let options = pool.connect_options();
    f.debug_struct(name)
        .field("host", &options.get_host())
        .field("port", &options.get_port())
        .field("database", &options.get_database())
        .field("username", &options.get_username())
        .field("connections", &pool.size())
        .finish_non_exhaustive()
}

/// Per-key placement limits shared by every instance on the database: an
/// exact sliding-window log in the `rate_events` table.
///
/// Made by [`PostgresStore::rate_limiter`]. Each `try_acquire` is one
/// transaction that takes the key's advisory lock
/// (`pg_advisory_xact_lock`), counts the key's placements of the last 60
/// seconds and records the new one if the budget allows, so of concurrent
/// placements with a budget of `n`, exactly `n` are admitted across all
/// instances. `refund` deletes the permit's row under the same lock.
///
/// When the database fails, `try_acquire` fails with
/// [`LimitError::Unavailable`] (the placement answers `503 store_error`,
/// not `429`) and `refund` with [`StoreError::Unavailable`].
#[derive(Clone)]
pub struct PostgresRateLimiter {
    pool: PgPool,
}

impl fmt::Debug for PostgresRateLimiter {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        debug_pool(f, "PostgresRateLimiter", &self.pool)
    }
}

impl PostgresRateLimiter {
    async fn lock_key(conn: &mut PgConnection, key_id: &KeyId) -> Result<(), sqlx::Error> {
        sqlx::query("SELECT pg_advisory_xact_lock($1, hashtext($2))")
            .bind(LOCK_CLASS)
            .bind(key_id.as_str())
            .execute(conn)
            .await?;
        Ok(())
    }

    async fn try_acquire_in_db(
        &self,
        key_id: &KeyId,
        limit: u32,
        now: DateTime<Utc>,
    ) -> Result<Result<RatePermit, RateLimited>, sqlx::Error> {
        let window = duration_nanos(RATE_WINDOW);
        let now_ns = nanos(now);
        let since = now_ns.saturating_sub(window);
        let mut tx = self.pool.begin().await?;
        Self::lock_key(&mut tx, key_id).await?;
        // One statement under the key's lock: count the window, add this
        // placement if the budget allows, and drop rows a whole window older
        // than any that still count (the margin keeps rows an instance with
        // a slower clock still counts). Every part sees the rows as they
        // were when the statement began, after the lock.
        let (count, oldest, added): (i64, Option<i64>, i64) = sqlx::query_as(
            "WITH counted AS MATERIALIZED ( \
                 SELECT COUNT(*) AS n, MIN(at_ns) AS oldest FROM rate_events \
                 WHERE key_id = $1 AND at_ns > $2), \
             added AS ( \
                 INSERT INTO rate_events (key_id, at_ns) SELECT $1, $3 FROM counted WHERE n < $4 \
                 RETURNING at_ns), \
             pruned AS (DELETE FROM rate_events WHERE key_id = $1 AND at_ns <= $5) \
             SELECT n, oldest, (SELECT COUNT(*) FROM added) FROM counted",
        )
        .bind(key_id.as_str())
        .bind(since)
        .bind(now_ns)
        .bind(i64::from(limit))
        .bind(since.saturating_sub(window))
        .fetch_one(&mut *tx)
        .await?;
        if added == 0 {
            tx.commit().await?;
            let retry_after = match oldest.filter(|_| count > 0) {
                Some(oldest) => Duration::from_nanos(
                    u64::try_from(oldest.saturating_add(window).saturating_sub(now_ns))
                        .unwrap_or(0),
                ),
                None => RATE_WINDOW,
            };
            return Ok(Err(RateLimited { retry_after }));
        }
        tx.commit().await?;
        Ok(Ok(RatePermit {
            key_id: key_id.clone(),
            at: now,
        }))
    }

    async fn refund_in_db(&self, permit: &RatePermit) -> Result<(), sqlx::Error> {
        let mut tx = self.pool.begin().await?;
        Self::lock_key(&mut tx, &permit.key_id).await?;
        sqlx::query(
            "DELETE FROM rate_events WHERE id = (SELECT id FROM rate_events \
             WHERE key_id = $1 AND at_ns = $2 ORDER BY id DESC LIMIT 1)",
        )
        .bind(permit.key_id.as_str())
        .bind(nanos(permit.at))
        .execute(&mut *tx)
        .await?;
        tx.commit().await
    }
}

#[async_trait]
impl RateLimiter for PostgresRateLimiter {
    async fn try_acquire(
        &self,
        key_id: &KeyId,
        limit: u32,
        now: DateTime<Utc>,
    ) -> Result<RatePermit, LimitError> {
        match self.try_acquire_in_db(key_id, limit, now).await {
            Ok(Ok(permit)) => Ok(permit),
            Ok(Err(limited)) => Err(LimitError::Limited(limited)),
            Err(error) => Err(LimitError::Unavailable(db_error(error))),
        }
    }

    async fn refund(&self, permit: RatePermit) -> Result<(), StoreError> {
        self.refund_in_db(&permit).await.map_err(db_error)
    }
}

/// Billed and reserved minutes per account and period, shared by every
/// instance on the database.
///
/// Made by [`PostgresStore::usage_ledger`]. `reserve` reads and raises the
/// period's row under a row lock (`SELECT … FOR UPDATE`) in one
/// transaction, so `billed + reserved` never exceeds the cap across all
/// instances; `settle` is one atomic upsert.
///
/// When the database fails, `reserve` fails with
/// [`ReserveError::Unavailable`](crate::guardrails::ReserveError::Unavailable)
/// (the placement answers `503 store_error`, not `over_minute_cap`), and
/// `settle` and `usage` with [`StoreError::Unavailable`].
#[derive(Clone)]
pub struct PostgresUsageLedger {
    db: Db<PostgresDialect>,
}

delegate_store!(
    /// A usage ledger on the same pool, shared by every instance.
    PostgresStore,
    PostgresUsageLedger,
    PgPool,
    debug_pool
);

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn debug_shows_where_but_not_the_password() {
        let pool = sqlx::postgres::PgPoolOptions::new()
            .connect_lazy("postgres://someone:hunter2-secret@db.example:6543/calls")
            .expect("a valid URL");
        let store = PostgresStore { db: Db::new(pool) };
        let shown = format!(
            "{store:?} {:?} {:?}",
            store.rate_limiter(),
            store.usage_ledger()
        );
        assert!(
            shown.contains("db.example") && shown.contains("6543"),
            "{shown}"
        );
        assert!(!shown.contains("hunter2"), "{shown}");
    }
}
