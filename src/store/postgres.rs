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
//!   - `claim_due` selects due events `FOR UPDATE SKIP LOCKED` and pushes
//!     their next attempt to `now + lease` in the same transaction, so
//!     instances share the work without waiting on each other and never hand
//!     out one event twice within its lease. An event whose earlier sibling
//!     (same call) has no recorded attempt is not handed out, whichever
//!     instance holds the sibling.
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
use std::time::Duration;

use crate::domain::{AccountId, CallId, KeyId};
use crate::guardrails::{
    OverMinuteCap, RATE_WINDOW, RateLimited, RateLimiter, RatePermit, Usage, UsageLedger,
};
use crate::store::{
    AttemptOutcome, CallStore, DeliveryState, DeliveryStatus, EventOutbox, IdempotencyBegin,
    IdempotencyStore, ListPage, ListQuery, NewEvent, PendingDelivery, Recording, StoreError,
    StoredCall, StoredResponse,
};
use async_trait::async_trait;
use bytes::Bytes;
use chrono::{DateTime, Utc};
use sqlx::Postgres;
use sqlx::migrate::Migrator;
use sqlx::postgres::{PgConnection, PgPool, PgPoolOptions};

use super::sql::{
    EVENT_COLUMNS, EventRow, IdempotencyRow, UNFINISHED_SQL, corrupt, db_error, decode_call,
    delivery_status_name, duration_nanos, encode_call, from_nanos, idempotency_thresholds,
    idempotency_verdict, list_query, minutes_to_reserve, nanos, sql_int, usage_counts,
    version_column,
};

static MIGRATOR: Migrator = sqlx::migrate!("migrations/postgres");

/// Connections in a pool the store opens itself.
const POOL_SIZE: u32 = 10;

/// The first key of agentcall's advisory locks (`'agct'`), so they cannot
/// collide with a host application's single-key advisory locks.
const LOCK_CLASS: i32 = 0x6167_6374;

/// How often `begin` retries when the record it found vanished before it
/// could be read (a concurrent `abandon`).
const BEGIN_ATTEMPTS: usize = 8;

/// Calls, recordings, the outbox and idempotency keys in PostgreSQL, shared
/// by any number of service instances.
///
/// Cloning is cheap and shares the pool. See the [module docs](self) for
/// what it guarantees.
#[derive(Clone)]
pub struct PostgresStore {
    pool: PgPool,
}

impl PostgresStore {
    /// Connects to a `postgres://` URL with a pool of ten connections and
    /// applies the embedded migrations.
    pub async fn connect(url: &str) -> Result<Self, StoreError> {
        let pool = PgPoolOptions::new()
            .max_connections(POOL_SIZE)
            .connect(url)
            .await
            .map_err(db_error)?;
        Self::connect_with(pool).await
    }

    /// Uses an existing pool and applies the embedded migrations.
    pub async fn connect_with(pool: PgPool) -> Result<Self, StoreError> {
        MIGRATOR
            .run(&pool)
            .await
            .map_err(|e| StoreError::Unavailable(Box::new(e)))?;
        Ok(Self { pool })
    }

    /// The connection pool.
    pub fn pool(&self) -> &PgPool {
        &self.pool
    }

    /// A rate limiter on the same pool, exact across every instance sharing
    /// the database.
    pub fn rate_limiter(&self) -> PostgresRateLimiter {
        PostgresRateLimiter {
            pool: self.pool.clone(),
        }
    }

    /// A usage ledger on the same pool, shared by every instance.
    pub fn usage_ledger(&self) -> PostgresUsageLedger {
        PostgresUsageLedger {
            pool: self.pool.clone(),
        }
    }

    /// Closes the pool, waiting for connections in use to be returned.
    /// Later calls fail with [`StoreError::Unavailable`].
    pub async fn close(&self) {
        self.pool.close().await;
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

impl fmt::Debug for PostgresStore {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        debug_pool(f, "PostgresStore", &self.pool)
    }
}

async fn insert_event(conn: &mut PgConnection, event: &NewEvent) -> Result<(), StoreError> {
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
impl CallStore for PostgresStore {
    async fn insert(&self, call: &StoredCall) -> Result<(), StoreError> {
        let c = encode_call(call)?;
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
        .execute(&self.pool)
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
                .fetch_optional(&self.pool)
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
        let mut tx = self.pool.begin().await.map_err(db_error)?;
        // A concurrent update of the row waits for this one's commit, then
        // re-checks `version` against the committed row and matches nothing.
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
        .execute(&mut *tx)
        .await
        .map_err(db_error)?;
        if updated.rows_affected() == 0 {
            let exists = sqlx::query_scalar::<_, i32>("SELECT 1 FROM calls WHERE id = $1")
                .bind(&c.id)
                .fetch_optional(&mut *tx)
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
            insert_event(&mut tx, event).await?;
        }
        tx.commit().await.map_err(db_error)?;
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
                .fetch_optional(&self.pool)
                .await
                .map_err(db_error)?;
                let created_ns = created_ns.ok_or_else(|| StoreError::NotFound(cursor.clone()))?;
                Some((created_ns, cursor.as_str()))
            }
            None => None,
        };
        let mut builder = list_query::<Postgres>(query, cursor);
        let rows: Vec<(String, i64, String)> = builder
            .build_query_as()
            .fetch_all(&self.pool)
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
            .fetch_all(&self.pool)
            .await
            .map_err(db_error)?;
        decode_calls(rows)
    }

    async fn put_recording(&self, id: &CallId, recording: Recording) -> Result<(), StoreError> {
        let stored = sqlx::query(
            "INSERT INTO recordings (call_id, content_type, bytes) \
             SELECT id, $2, $3 FROM calls WHERE id = $1 \
             ON CONFLICT (call_id) DO UPDATE SET content_type = EXCLUDED.content_type, \
             bytes = EXCLUDED.bytes",
        )
        .bind(id.as_str())
        .bind(&recording.content_type)
        .bind(recording.bytes.as_ref())
        .execute(&self.pool)
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
                .fetch_optional(&self.pool)
                .await
                .map_err(db_error)?;
        Ok(row.map(|(content_type, bytes)| Recording {
            content_type,
            bytes: Bytes::from(bytes),
        }))
    }
}

#[async_trait]
impl EventOutbox for PostgresStore {
    async fn claim_due(
        &self,
        now: DateTime<Utc>,
        limit: usize,
        lease: Duration,
    ) -> Result<Vec<PendingDelivery>, StoreError> {
        let now = nanos(now);
        let until = now.saturating_add(duration_nanos(lease));
        // Rows another instance is claiming are skipped, not waited for; a
        // row claimed and committed meanwhile is re-checked against
        // `next_attempt_ns <= now` and dropped. An event waits while an
        // earlier event of its call has no attempt (spec 6.1 rule 4).
        let sql = format!(
            "SELECT {EVENT_COLUMNS} FROM outbox o \
             WHERE o.next_attempt_ns IS NOT NULL AND o.next_attempt_ns <= $1 \
             AND NOT EXISTS (SELECT 1 FROM outbox p \
                 WHERE p.call_id = o.call_id AND p.seq < o.seq AND p.attempts = 0) \
             ORDER BY o.next_attempt_ns, o.seq LIMIT $2 \
             FOR UPDATE OF o SKIP LOCKED"
        );
        let mut tx = self.pool.begin().await.map_err(db_error)?;
        let rows: Vec<EventRow> = sqlx::query_as(&sql)
            .bind(now)
            .bind(sql_int(limit))
            .fetch_all(&mut *tx)
            .await
            .map_err(db_error)?;
        if rows.is_empty() {
            return Ok(Vec::new());
        }
        let seqs: Vec<i64> = rows.iter().map(|row| row.seq).collect();
        sqlx::query("UPDATE outbox SET next_attempt_ns = $1 WHERE seq = ANY($2)")
            .bind(until)
            .bind(seqs)
            .execute(&mut *tx)
            .await
            .map_err(db_error)?;
        let claimed = rows
            .into_iter()
            .map(EventRow::into_pending)
            .collect::<Result<Vec<_>, _>>()?;
        tx.commit().await.map_err(db_error)?;
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
        query.execute(&self.pool).await.map_err(db_error)?;
        Ok(())
    }

    async fn next_due(&self) -> Result<Option<DateTime<Utc>>, StoreError> {
        let due: Option<i64> = sqlx::query_scalar(
            "SELECT MIN(next_attempt_ns) FROM outbox WHERE next_attempt_ns IS NOT NULL",
        )
        .fetch_one(&self.pool)
        .await
        .map_err(db_error)?;
        Ok(due.map(from_nanos))
    }

    async fn deliveries(&self, call_id: &CallId) -> Result<Vec<DeliveryState>, StoreError> {
        let sql = format!("SELECT {EVENT_COLUMNS} FROM outbox WHERE call_id = $1 ORDER BY seq");
        let rows: Vec<EventRow> = sqlx::query_as(&sql)
            .bind(call_id.as_str())
            .fetch_all(&self.pool)
            .await
            .map_err(db_error)?;
        rows.into_iter().map(EventRow::into_state).collect()
    }

    async fn redeliver(&self, event_id: &str, now: DateTime<Utc>) -> Result<bool, StoreError> {
        let updated = sqlx::query(
            "UPDATE outbox SET status = $2, delivered_ns = NULL, next_attempt_ns = $3 \
             WHERE event_id = $1",
        )
        .bind(event_id)
        .bind(delivery_status_name(DeliveryStatus::Pending))
        .bind(nanos(now))
        .execute(&self.pool)
        .await
        .map_err(db_error)?;
        Ok(updated.rows_affected() > 0)
    }
}

#[async_trait]
impl IdempotencyStore for PostgresStore {
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
        // Expired records are gone for good; dropping them keeps the table
        // bounded by the keys of one TTL.
        sqlx::query("DELETE FROM idempotency WHERE created_ns <= $1")
            .bind(expired)
            .execute(&self.pool)
            .await
            .map_err(db_error)?;
        for _ in 0..BEGIN_ATTEMPTS {
            // Inserts, or takes over an expired or stale record; a live
            // record is left alone (the conflicting row is locked meanwhile,
            // so concurrent takeovers serialise and one wins).
            let started: Option<i32> = sqlx::query_scalar(
                "INSERT INTO idempotency (key_id, idempotency_key, fingerprint, created_ns) \
                 VALUES ($1, $2, $3, $4) \
                 ON CONFLICT (key_id, idempotency_key) DO UPDATE SET \
                     fingerprint = EXCLUDED.fingerprint, created_ns = EXCLUDED.created_ns, \
                     response_status = NULL, response_body = NULL \
                 WHERE idempotency.created_ns <= $5 \
                    OR (idempotency.response_status IS NULL AND idempotency.created_ns <= $6) \
                 RETURNING 1",
            )
            .bind(key_id.as_str())
            .bind(idempotency_key)
            .bind(fingerprint.as_slice())
            .bind(nanos(now))
            .bind(expired)
            .bind(stale)
            .fetch_optional(&self.pool)
            .await
            .map_err(db_error)?;
            if started.is_some() {
                return Ok(IdempotencyBegin::Started);
            }
            let row: Option<IdempotencyRow> = sqlx::query_as(
                "SELECT fingerprint, response_status, response_body FROM idempotency \
                 WHERE key_id = $1 AND idempotency_key = $2",
            )
            .bind(key_id.as_str())
            .bind(idempotency_key)
            .fetch_optional(&self.pool)
            .await
            .map_err(db_error)?;
            if let Some(row) = row {
                return idempotency_verdict(row, fingerprint);
            }
            // Abandoned between the two statements: try again.
        }
        Err(corrupt(format!(
            "idempotency key {idempotency_key:?} kept vanishing under concurrent abandons"
        )))
    }

    async fn complete(
        &self,
        key_id: &KeyId,
        idempotency_key: &str,
        response: StoredResponse,
    ) -> Result<(), StoreError> {
        sqlx::query(
            "UPDATE idempotency SET response_status = $3, response_body = $4 \
             WHERE key_id = $1 AND idempotency_key = $2",
        )
        .bind(key_id.as_str())
        .bind(idempotency_key)
        .bind(i64::from(response.status))
        .bind(response.body.as_ref())
        .execute(&self.pool)
        .await
        .map_err(db_error)?;
        Ok(())
    }

    async fn abandon(&self, key_id: &KeyId, idempotency_key: &str) -> Result<(), StoreError> {
        sqlx::query("DELETE FROM idempotency WHERE key_id = $1 AND idempotency_key = $2")
            .bind(key_id.as_str())
            .bind(idempotency_key)
            .execute(&self.pool)
            .await
            .map_err(db_error)?;
        Ok(())
    }
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
/// The [`RateLimiter`] trait has no error channel: when the database fails,
/// `try_acquire` refuses the placement with a one-second `retry_after`
/// rather than let it through unchecked, and `refund` logs the error
/// (`tracing`, level error).
#[derive(Clone)]
pub struct PostgresRateLimiter {
    pool: PgPool,
}

impl fmt::Debug for PostgresRateLimiter {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        debug_pool(f, "PostgresRateLimiter", &self.pool)
    }
}

/// How long a placement refused for a database failure should wait.
const RETRY_AFTER_FAILURE: Duration = Duration::from_secs(1);

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
        // Rows a whole window older than any that still count are dropped;
        // the margin keeps rows an instance with a slower clock still counts.
        sqlx::query("DELETE FROM rate_events WHERE key_id = $1 AND at_ns <= $2")
            .bind(key_id.as_str())
            .bind(since.saturating_sub(window))
            .execute(&mut *tx)
            .await?;
        let (count, oldest): (i64, Option<i64>) = sqlx::query_as(
            "SELECT COUNT(*), MIN(at_ns) FROM rate_events WHERE key_id = $1 AND at_ns > $2",
        )
        .bind(key_id.as_str())
        .bind(since)
        .fetch_one(&mut *tx)
        .await?;
        if count >= i64::from(limit) {
            tx.commit().await?;
            let retry_after = match oldest {
                Some(oldest) => Duration::from_nanos(
                    u64::try_from(oldest.saturating_add(window).saturating_sub(now_ns))
                        .unwrap_or(0),
                ),
                None => RATE_WINDOW,
            };
            return Ok(Err(RateLimited { retry_after }));
        }
        sqlx::query("INSERT INTO rate_events (key_id, at_ns) VALUES ($1, $2)")
            .bind(key_id.as_str())
            .bind(now_ns)
            .execute(&mut *tx)
            .await?;
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
    ) -> Result<RatePermit, RateLimited> {
        self.try_acquire_in_db(key_id, limit, now)
            .await
            .unwrap_or_else(|error| {
                tracing::error!(%error, %key_id, "rate limiter unavailable; refusing the placement");
                Err(RateLimited {
                    retry_after: RETRY_AFTER_FAILURE,
                })
            })
    }

    async fn refund(&self, permit: RatePermit) {
        if let Err(error) = self.refund_in_db(&permit).await {
            tracing::error!(%error, key_id = %permit.key_id, "rate limiter unavailable; refund lost");
        }
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
/// The [`UsageLedger`] trait has no error channel: when the database fails,
/// `reserve` refuses the placement ([`OverMinuteCap`]) rather than let it
/// run unmetered, and `settle` and `usage` log the error (`tracing`, level
/// error) and do nothing / report zero.
#[derive(Clone)]
pub struct PostgresUsageLedger {
    pool: PgPool,
}

impl fmt::Debug for PostgresUsageLedger {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        debug_pool(f, "PostgresUsageLedger", &self.pool)
    }
}

impl PostgresUsageLedger {
    async fn try_reserve(
        &self,
        account: &AccountId,
        period: DateTime<Utc>,
        cap: u64,
        max_minutes: u64,
    ) -> Result<u64, StoreError> {
        let period = nanos(period);
        let mut tx = self.pool.begin().await.map_err(db_error)?;
        // The row must exist for the lock below to serialise first reservations.
        sqlx::query(
            "INSERT INTO usage (account_id, period_ns) VALUES ($1, $2) \
             ON CONFLICT (account_id, period_ns) DO NOTHING",
        )
        .bind(account.as_str())
        .bind(period)
        .execute(&mut *tx)
        .await
        .map_err(db_error)?;
        let (billed, reserved): (i64, i64) = sqlx::query_as(
            "SELECT billed, reserved FROM usage WHERE account_id = $1 AND period_ns = $2 \
             FOR UPDATE",
        )
        .bind(account.as_str())
        .bind(period)
        .fetch_one(&mut *tx)
        .await
        .map_err(db_error)?;
        let (billed, reserved) = usage_counts(billed, reserved)?;
        let grant = minutes_to_reserve(billed, reserved, cap, max_minutes);
        if grant == 0 {
            return Ok(0);
        }
        sqlx::query(
            "UPDATE usage SET reserved = reserved + $3 WHERE account_id = $1 AND period_ns = $2",
        )
        .bind(account.as_str())
        .bind(period)
        .bind(sql_int(grant))
        .execute(&mut *tx)
        .await
        .map_err(db_error)?;
        tx.commit().await.map_err(db_error)?;
        Ok(grant)
    }

    async fn try_settle(
        &self,
        account: &AccountId,
        period: DateTime<Utc>,
        reserved: u64,
        billed: u64,
    ) -> Result<(), StoreError> {
        sqlx::query(
            "INSERT INTO usage (account_id, period_ns, billed, reserved) VALUES ($1, $2, $3, 0) \
             ON CONFLICT (account_id, period_ns) DO UPDATE SET \
                 reserved = GREATEST(usage.reserved - $4, 0), billed = usage.billed + $3",
        )
        .bind(account.as_str())
        .bind(nanos(period))
        .bind(sql_int(billed.min(reserved)))
        .bind(sql_int(reserved))
        .execute(&self.pool)
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
        .fetch_optional(&self.pool)
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
impl UsageLedger for PostgresUsageLedger {
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

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn debug_shows_where_but_not_the_password() {
        let pool = PgPoolOptions::new()
            .connect_lazy("postgres://someone:hunter2-secret@db.example:6543/calls")
            .expect("a valid URL");
        let store = PostgresStore { pool };
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
