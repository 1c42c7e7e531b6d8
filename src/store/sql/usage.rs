//! Minute usage: billed and reserved minutes per account and period.

use chrono::{DateTime, Utc};

use super::codec::{db_error, nanos, sql_int, stored_int, usage_counts};
use super::{Db, RowsAffected, shared};
use crate::domain::{AccountId, CallAttempt};
use crate::guardrails::{ReserveError, Usage};
use crate::store::StoreError;

shared! {
impl Db<D> {
    /// `UsageLedger::reserve`: a database failure is
    /// [`ReserveError::Unavailable`], never a reached cap.
    pub(crate) async fn reserve(
        &self,
        account: &AccountId,
        period: DateTime<Utc>,
        cap: u64,
        max_minutes: u64,
    ) -> Result<u64, ReserveError> {
        match self.try_reserve(account, period, cap, max_minutes).await {
            Ok(0) => Err(ReserveError::OverCap),
            Ok(grant) => Ok(grant),
            Err(error) => Err(ReserveError::Unavailable(error)),
        }
    }

    /// Raises the period's row by the grant in one statement, the grant
    /// computed from the row as locked (where the dialect locks rows), so
    /// `billed + reserved` never exceeds the cap: two round trips in all
    /// (the row is made to exist first), and the row lock held for one
    /// statement, not across a transaction's several.
    async fn try_reserve(
        &self,
        account: &AccountId,
        period: DateTime<Utc>,
        cap: u64,
        max_minutes: u64,
    ) -> Result<u64, StoreError> {
        let period = nanos(period);
        // Two statements, each atomic on its own: no transaction around
        // them (whose round trips and held lock were most of a placement's
        // time in the ledger).
        let _turn = self.turn().await;
        // The row must exist for a row lock to serialise first reservations.
        sqlx::query(
            "INSERT INTO usage (account_id, period_ns) VALUES ($1, $2) \
             ON CONFLICT (account_id, period_ns) DO NOTHING",
        )
        .bind(account.as_str())
        .bind(period)
        .execute(&self.pool)
        .await
        .map_err(db_error)?;
        let sql = format!(
            "WITH held AS MATERIALIZED (SELECT {least}($4, {greatest}($3 - billed - reserved, 0)) AS grant_minutes \
             FROM usage WHERE account_id = $1 AND period_ns = $2{lock}) \
             UPDATE usage SET reserved = reserved + (SELECT grant_minutes FROM held) \
             WHERE account_id = $1 AND period_ns = $2 AND (SELECT grant_minutes FROM held) > 0 \
             RETURNING (SELECT grant_minutes FROM held)",
            least = D::LEAST,
            greatest = D::GREATEST,
            lock = D::ROW_LOCK,
        );
        let granted: Option<(i64,)> = sqlx::query_as(&sql)
            .bind(account.as_str())
            .bind(period)
            .bind(sql_int(cap))
            .bind(sql_int(max_minutes))
            .fetch_optional(&self.pool)
            .await
            .map_err(db_error)?;
        match granted {
            Some((grant,)) => stored_int(grant, "usage grant"),
            None => Ok(0),
        }
    }

    /// `UsageLedger::settle`: records the attempt as settled and, the first
    /// time only, releases the reservation and bills what was used, in one
    /// write transaction; nothing changes when it fails.
    pub(crate) async fn settle(
        &self,
        account: &AccountId,
        attempt: &CallAttempt,
        period: DateTime<Utc>,
        reserved: u64,
        billed: u64,
    ) -> Result<(), StoreError> {
        let mut tx = self.write().await?;
        let first = sqlx::query(
            "INSERT INTO settlements (call_id, attempt, account_id, period_ns) \
             VALUES ($1, $2, $3, $4) ON CONFLICT (call_id, attempt) DO NOTHING",
        )
        .bind(attempt.call.as_str())
        .bind(i64::from(attempt.attempt))
        .bind(account.as_str())
        .bind(nanos(period))
        .execute(tx.conn())
        .await
        .map_err(db_error)?;
        if first.changed() == 0 {
            // Settled before (by this or another instance): nothing more.
            tx.rollback().await?;
            return Ok(());
        }
        let sql = format!(
            "INSERT INTO usage (account_id, period_ns, billed, reserved) VALUES ($1, $2, $3, 0) \
             ON CONFLICT (account_id, period_ns) DO UPDATE SET \
                 reserved = {}(usage.reserved - $4, 0), billed = usage.billed + $3",
            D::GREATEST
        );
        sqlx::query(&sql)
            .bind(account.as_str())
            .bind(nanos(period))
            .bind(sql_int(billed.min(reserved)))
            .bind(sql_int(reserved))
            .execute(tx.conn())
            .await
            .map_err(db_error)?;
        tx.commit().await
    }

    /// `UsageLedger::release`: the reservation given back, the attempt not
    /// recorded as settled.
    pub(crate) async fn release(
        &self,
        account: &AccountId,
        period: DateTime<Utc>,
        reserved: u64,
    ) -> Result<(), StoreError> {
        let sql = format!(
            "UPDATE usage SET reserved = {}(reserved - $3, 0) \
             WHERE account_id = $1 AND period_ns = $2",
            D::GREATEST
        );
        let mut tx = self.write().await?;
        sqlx::query(&sql)
            .bind(account.as_str())
            .bind(nanos(period))
            .bind(sql_int(reserved))
            .execute(tx.conn())
            .await
            .map_err(db_error)?;
        tx.commit().await
    }

    /// `UsageLedger::usage`.
    pub(crate) async fn usage(
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
}
