//! Idempotency keys: which request a key began, and its stored response.

use std::time::Duration;

use chrono::{DateTime, Utc};

use super::codec::{
    IdempotencyRow, corrupt, db_error, idempotency_thresholds, idempotency_verdict, nanos,
};
use super::{Db, shared};
use crate::domain::KeyId;
use crate::store::{HoldToken, IdempotencyBegin, StoreError, StoredResponse};

/// How often `begin` retries when the record it found vanished before it
/// could be read (a concurrent `abandon`, where the steps of `begin` are
/// not one transaction).
const BEGIN_ATTEMPTS: usize = 8;

shared! {
impl Db<D> {
    /// `IdempotencyStore::begin`: one upsert inserts the record or takes
    /// over an expired or stale one, and a live record is read instead.
    ///
    /// Where writes are queued (SQLite) the steps are one write
    /// transaction, so the record read is the one the upsert left alone.
    /// Elsewhere (PostgreSQL) each step commits on its own, holding no lock
    /// in between: of concurrent upserts one wins (the conflicting row is
    /// locked meanwhile, so takeovers serialise), and a record abandoned
    /// between the upsert and the read is begun again.
    pub(crate) async fn begin(
        &self,
        key_id: &KeyId,
        idempotency_key: &str,
        fingerprint: [u8; 32],
        now: DateTime<Utc>,
        ttl: Duration,
        lease: Duration,
    ) -> Result<IdempotencyBegin, StoreError> {
        let (expired, stale) = idempotency_thresholds(now, ttl, lease);
        let mut steps = self.steps().await?;
        // Expired records are gone for good; dropping them keeps the table
        // bounded by the keys of one TTL.
        sqlx::query("DELETE FROM idempotency WHERE created_ns <= $1")
            .bind(expired)
            .execute(steps.conn())
            .await
            .map_err(db_error)?;
        let holder = HoldToken::generate();
        for _ in 0..BEGIN_ATTEMPTS {
            // The upsert still checks for expiry: another instance may have
            // written an already expired record (its clock behind ours)
            // since the delete.
            let started = sqlx::query(
                "INSERT INTO idempotency \
                     (key_id, idempotency_key, fingerprint, created_ns, holder, renewed_ns) \
                 VALUES ($1, $2, $3, $4, $7, $4) \
                 ON CONFLICT (key_id, idempotency_key) DO UPDATE SET \
                     fingerprint = excluded.fingerprint, created_ns = excluded.created_ns, \
                     holder = excluded.holder, renewed_ns = excluded.renewed_ns, \
                     response_status = NULL, response_body = NULL \
                 WHERE idempotency.created_ns <= $5 \
                    OR (idempotency.response_status IS NULL \
                        AND COALESCE(idempotency.renewed_ns, idempotency.created_ns) <= $6) \
                 RETURNING 1",
            )
            .bind(key_id.as_str())
            .bind(idempotency_key)
            .bind(fingerprint.as_slice())
            .bind(nanos(now))
            .bind(expired)
            .bind(stale)
            .bind(holder.to_bytes().as_slice())
            .fetch_optional(steps.conn())
            .await
            .map_err(db_error)?;
            if started.is_some() {
                steps.finish().await?;
                return Ok(IdempotencyBegin::Started(holder));
            }
            let row: Option<IdempotencyRow> = sqlx::query_as(
                "SELECT fingerprint, response_status, response_body FROM idempotency \
                 WHERE key_id = $1 AND idempotency_key = $2",
            )
            .bind(key_id.as_str())
            .bind(idempotency_key)
            .fetch_optional(steps.conn())
            .await
            .map_err(db_error)?;
            if let Some(row) = row {
                let verdict = idempotency_verdict(row, fingerprint)?;
                steps.finish().await?;
                return Ok(verdict);
            }
            // Abandoned between the two statements: try again.
        }
        Err(corrupt(format!(
            "idempotency key {idempotency_key:?} kept vanishing under concurrent abandons"
        )))
    }

    /// `IdempotencyStore::renew`: the lease restarts at `now` (never moves
    /// back) while the record is held under `token`.
    pub(crate) async fn renew(
        &self,
        key_id: &KeyId,
        idempotency_key: &str,
        token: HoldToken,
        now: DateTime<Utc>,
    ) -> Result<bool, StoreError> {
        let _turn = self.turn().await;
        let renewed = sqlx::query(
            "UPDATE idempotency SET renewed_ns = \
                 CASE WHEN renewed_ns IS NULL OR renewed_ns < $4 THEN $4 ELSE renewed_ns END \
             WHERE key_id = $1 AND idempotency_key = $2 AND holder = $3 \
               AND response_status IS NULL \
             RETURNING 1",
        )
        .bind(key_id.as_str())
        .bind(idempotency_key)
        .bind(token.to_bytes().as_slice())
        .bind(nanos(now))
        .fetch_optional(&self.pool)
        .await
        .map_err(db_error)?;
        Ok(renewed.is_some())
    }

    /// `IdempotencyStore::complete`.
    pub(crate) async fn complete(
        &self,
        key_id: &KeyId,
        idempotency_key: &str,
        token: HoldToken,
        response: StoredResponse,
    ) -> Result<(), StoreError> {
        let _turn = self.turn().await;
        sqlx::query(
            "UPDATE idempotency SET response_status = $3, response_body = $4 \
             WHERE key_id = $1 AND idempotency_key = $2 AND holder = $5 \
               AND response_status IS NULL",
        )
        .bind(key_id.as_str())
        .bind(idempotency_key)
        .bind(i64::from(response.status))
        .bind(response.body.as_ref())
        .bind(token.to_bytes().as_slice())
        .execute(&self.pool)
        .await
        .map_err(db_error)?;
        Ok(())
    }

    /// `IdempotencyStore::abandon`.
    pub(crate) async fn abandon(
        &self,
        key_id: &KeyId,
        idempotency_key: &str,
        token: HoldToken,
    ) -> Result<(), StoreError> {
        let _turn = self.turn().await;
        sqlx::query(
            "DELETE FROM idempotency WHERE key_id = $1 AND idempotency_key = $2 \
             AND holder = $3 AND response_status IS NULL",
        )
        .bind(key_id.as_str())
        .bind(idempotency_key)
        .bind(token.to_bytes().as_slice())
        .execute(&self.pool)
        .await
        .map_err(db_error)?;
        Ok(())
    }
}
}
