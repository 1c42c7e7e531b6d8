//! SQLite's per-key rate limit: an exact sliding-window log in
//! `rate_events`, shared by every process on the file.

use std::time::Duration;

use chrono::{DateTime, Utc};

use super::Db;
use super::codec::{db_error, duration_nanos, nanos};
use crate::domain::KeyId;
use crate::guardrails::{RATE_WINDOW, RateLimited, RatePermit};
use crate::store::StoreError;
use crate::store::sqlite::SqliteDialect;

impl Db<SqliteDialect> {
    /// Admits a placement of `key_id` if fewer than `limit` were admitted
    /// in the minute before `now`. One statement counts and inserts: SQLite
    /// runs it under the database's write lock, so two processes on one
    /// file never both take the last permit.
    pub(crate) async fn try_acquire_rate(
        &self,
        key_id: &KeyId,
        limit: u32,
        now: DateTime<Utc>,
    ) -> Result<Result<RatePermit, RateLimited>, StoreError> {
        let window = duration_nanos(RATE_WINDOW);
        let now_ns = nanos(now);
        let since = now_ns.saturating_sub(window);
        let _turn = self.turn().await;
        let added = sqlx::query(
            "INSERT INTO rate_events (key_id, at_ns) SELECT $1, $2 \
             WHERE (SELECT COUNT(*) FROM rate_events WHERE key_id = $1 AND at_ns > $3) < $4",
        )
        .bind(key_id.as_str())
        .bind(now_ns)
        .bind(since)
        .bind(i64::from(limit))
        .execute(&self.pool)
        .await
        .map_err(db_error)?
        .rows_affected();
        // Rows a whole window older than any that still count (the margin
        // keeps rows a process with a slower clock still counts).
        sqlx::query("DELETE FROM rate_events WHERE key_id = $1 AND at_ns <= $2")
            .bind(key_id.as_str())
            .bind(since.saturating_sub(window))
            .execute(&self.pool)
            .await
            .map_err(db_error)?;
        if added == 1 {
            return Ok(Ok(RatePermit {
                key_id: key_id.clone(),
                at: now,
            }));
        }
        let (oldest,): (Option<i64>,) =
            sqlx::query_as("SELECT MIN(at_ns) FROM rate_events WHERE key_id = $1 AND at_ns > $2")
                .bind(key_id.as_str())
                .bind(since)
                .fetch_one(&self.pool)
                .await
                .map_err(db_error)?;
        let retry_after = match oldest {
            Some(oldest) => Duration::from_nanos(
                u64::try_from(oldest.saturating_add(window).saturating_sub(now_ns)).unwrap_or(0),
            ),
            None => RATE_WINDOW,
        };
        Ok(Err(RateLimited { retry_after }))
    }

    /// Uncounts one permit (the latest row of its key and time).
    pub(crate) async fn refund_rate(&self, permit: &RatePermit) -> Result<(), StoreError> {
        let _turn = self.turn().await;
        sqlx::query(
            "DELETE FROM rate_events WHERE id = (SELECT id FROM rate_events \
             WHERE key_id = $1 AND at_ns = $2 ORDER BY id DESC LIMIT 1)",
        )
        .bind(permit.key_id.as_str())
        .bind(nanos(permit.at))
        .execute(&self.pool)
        .await
        .map_err(db_error)?;
        Ok(())
    }
}
