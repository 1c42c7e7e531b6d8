//! The webhook outbox: events wait here until they are delivered or given up.

use std::time::Duration;

use chrono::{DateTime, Utc};

use super::codec::{
    EVENT_COLUMNS, EventRow, claim_column, db_error, delivery_status_name, duration_nanos,
    from_nanos, lease_sql, nanos, sql_int,
};
use super::{Db, RowsAffected, shared};
use crate::domain::CallId;
use crate::store::{
    AttemptOutcome, ClaimToken, DeliveryState, DeliveryStatus, PendingDelivery, RecordedAttempt,
    StoreError,
};

/// Events leased by one statement at most: keeps a claim of any size
/// within both drivers' limits on bound parameters.
const LEASE_BATCH: usize = 500;

/// The due events a claim hands out, in the order of the `EventOutbox`
/// contract (`$1` is `now`, `$2` the limit). Ranks are walked, never
/// computed over every due row, so the cost does not grow with a backlog:
///
/// - `accounts`: the accounts with pending events, found by skipping from
///   one to the next on `outbox_account_due` (one probe each);
/// - `firsts`: each one's oldest claimable due event (one probe, plus the
///   earlier-sibling check on `outbox_by_call`);
/// - `heads`: the `limit` accounts whose first event ranks best, its rank
///   raised by the account's live claims, counted on `outbox_claimed` up to
///   `limit`. An account outside them cannot make the claim: `limit` first
///   events rank before all of its events;
/// - `walk`: each head account's next claimable due events, one probe per
///   step, `limit` deep at most (a deeper rank can never make the claim);
/// - `picked`: the best `limit` of them.
///
/// So a claim costs O(P + min(P, limit) × limit) index probes, P being the
/// accounts with pending events (due or not), instead of O(limit) for
/// oldest-first. That is the price of fairness we accept: with 500
/// accounts holding 100 000 due events between them, PostgreSQL 15 on two
/// cores claims in about 15 ms with `limit` 1 and 150 ms with `limit` 64
/// (0.5 ms oldest-first); with a handful of accounts, under a millisecond.
/// The delivery worker claims as many events as it has free slots, so large
/// claims are rare under load. Events whose earlier sibling has no attempt
/// yet are skipped, as before, one probe each.
///
/// The outer query locks what it hands out (PostgreSQL allows no row locks
/// in the ranking queries, which need `UNION`, aggregates and `LIMIT`s per
/// account; they lock nothing), so with `SKIP LOCKED` a row that
/// another instance is claiming is skipped, not waited for, and a row
/// claimed and committed meanwhile is re-checked against
/// `next_attempt_ns <= now` and dropped; such a claim comes back short, and
/// the next claim picks up what it left.
const CLAIM_DUE: &str = "WITH RECURSIVE \
    accounts (account_id) AS ( \
        SELECT MIN(account_id) FROM outbox WHERE next_attempt_ns IS NOT NULL \
        UNION ALL \
        SELECT (SELECT MIN(n.account_id) FROM outbox n \
                WHERE n.next_attempt_ns IS NOT NULL AND n.account_id > a.account_id) \
        FROM accounts a WHERE a.account_id IS NOT NULL), \
    firsts (account_id, first_seq) AS MATERIALIZED ( \
        SELECT a.account_id, (SELECT p.seq FROM outbox p \
            WHERE p.account_id = a.account_id \
            AND p.next_attempt_ns IS NOT NULL AND p.next_attempt_ns <= $1 \
            AND NOT EXISTS (SELECT 1 FROM outbox q \
                WHERE q.call_id = p.call_id AND q.seq < p.seq AND q.attempts = 0) \
            ORDER BY p.next_attempt_ns, p.seq LIMIT 1) \
        FROM accounts a WHERE a.account_id IS NOT NULL), \
    heads (account_id, head_seq, head_rank) AS ( \
        SELECT f.account_id, f.first_seq, 1 + (SELECT COUNT(*) FROM ( \
            SELECT 1 FROM outbox c WHERE c.account_id = f.account_id \
            AND c.claim_token IS NOT NULL AND c.next_attempt_ns > $1 LIMIT $2) live) \
        FROM firsts f WHERE f.first_seq IS NOT NULL \
        ORDER BY 3, (SELECT c.next_attempt_ns FROM outbox c WHERE c.seq = f.first_seq), 2 \
        LIMIT $2), \
    walk (account_id, walk_seq, walk_depth, walk_rank) AS ( \
        SELECT account_id, head_seq, 1, head_rank FROM heads \
        UNION ALL \
        SELECT w.account_id, (SELECT p.seq FROM outbox p \
            WHERE p.account_id = w.account_id \
            AND p.next_attempt_ns IS NOT NULL AND p.next_attempt_ns <= $1 \
            AND (p.next_attempt_ns, p.seq) > \
                ((SELECT c.next_attempt_ns FROM outbox c WHERE c.seq = w.walk_seq), w.walk_seq) \
            AND NOT EXISTS (SELECT 1 FROM outbox q \
                WHERE q.call_id = p.call_id AND q.seq < p.seq AND q.attempts = 0) \
            ORDER BY p.next_attempt_ns, p.seq LIMIT 1), w.walk_depth + 1, w.walk_rank + 1 \
        FROM walk w WHERE w.walk_seq IS NOT NULL AND w.walk_depth < $2), \
    picked (pick_seq, pick_rank, pick_ns) AS ( \
        SELECT w.walk_seq, w.walk_rank, \
            (SELECT c.next_attempt_ns FROM outbox c WHERE c.seq = w.walk_seq) \
        FROM walk w WHERE w.walk_seq IS NOT NULL \
        ORDER BY 2, 3, 1 LIMIT $2) \
    SELECT ";

shared! {
impl Db<D> {
    /// `EventOutbox::claim_due`: reads the due events in the fair order
    /// ([`CLAIM_DUE`]) and leases them under a new claim token in one write
    /// transaction, so no event is handed out twice within its lease.
    pub(crate) async fn claim_due(
        &self,
        now: DateTime<Utc>,
        limit: usize,
        lease: Duration,
    ) -> Result<Vec<PendingDelivery>, StoreError> {
        if limit == 0 {
            return Ok(Vec::new());
        }
        let now = nanos(now);
        let until = now.saturating_add(duration_nanos(lease));
        let claim = ClaimToken::generate();
        let sql = format!(
            "{CLAIM_DUE}{EVENT_COLUMNS} FROM outbox o JOIN picked ON o.seq = pick_seq \
             WHERE o.next_attempt_ns IS NOT NULL AND o.next_attempt_ns <= $1 \
             ORDER BY pick_rank, pick_ns, pick_seq{}",
            D::CLAIM_LOCK
        );
        let mut tx = self.write().await?;
        if let Some(setup) = D::CLAIM_SETUP {
            sqlx::query(setup)
                .execute(tx.conn())
                .await
                .map_err(db_error)?;
        }
        let rows: Vec<EventRow> = sqlx::query_as(&sql)
            .bind(now)
            .bind(sql_int(limit))
            .fetch_all(tx.conn())
            .await
            .map_err(db_error)?;
        let seqs: Vec<i64> = rows.iter().map(|row| row.seq).collect();
        for batch in seqs.chunks(LEASE_BATCH) {
            let sql = lease_sql(batch.len());
            let mut lease = sqlx::query(&sql).bind(until).bind(claim_column(claim));
            for seq in batch {
                lease = lease.bind(*seq);
            }
            lease.execute(tx.conn()).await.map_err(db_error)?;
        }
        let claimed = rows
            .into_iter()
            .map(|row| row.into_pending(claim))
            .collect::<Result<Vec<_>, _>>()?;
        tx.commit().await?;
        Ok(claimed)
    }

    /// `EventOutbox::record_attempt`: one `UPDATE … WHERE claim_token = $2`,
    /// which also uses the claim up (a postponement only moves the due time).
    pub(crate) async fn record_attempt(
        &self,
        event_id: &str,
        claim: ClaimToken,
        now: DateTime<Utc>,
        outcome: AttemptOutcome,
    ) -> Result<RecordedAttempt, StoreError> {
        let query = match outcome {
            AttemptOutcome::Postponed { retry_at } => sqlx::query(
                "UPDATE outbox SET next_attempt_ns = $3, claim_token = NULL \
                 WHERE event_id = $1 AND claim_token = $2",
            )
            .bind(event_id)
            .bind(claim_column(claim))
            .bind(nanos(retry_at)),
            AttemptOutcome::Delivered { status } => sqlx::query(
                "UPDATE outbox SET attempts = attempts + 1, status = $3, \
                 last_response_status = $4, last_error = NULL, delivered_ns = $5, \
                 next_attempt_ns = NULL, claim_token = NULL \
                 WHERE event_id = $1 AND claim_token = $2",
            )
            .bind(event_id)
            .bind(claim_column(claim))
            .bind(delivery_status_name(DeliveryStatus::Delivered))
            .bind(i64::from(status))
            .bind(nanos(now)),
            AttemptOutcome::Failed {
                status,
                error,
                retry_at,
            } => sqlx::query(
                "UPDATE outbox SET attempts = attempts + 1, status = COALESCE($3, status), \
                 last_response_status = $4, last_error = $5, next_attempt_ns = $6, \
                 claim_token = NULL WHERE event_id = $1 AND claim_token = $2",
            )
            .bind(event_id)
            .bind(claim_column(claim))
            .bind(
                retry_at
                    .is_none()
                    .then_some(delivery_status_name(DeliveryStatus::GaveUp)),
            )
            .bind(status.map(i64::from))
            .bind(error)
            .bind(retry_at.map(nanos)),
        };
        let _turn = self.turn().await;
        let updated = query.execute(&self.pool).await.map_err(db_error)?;
        Ok(if updated.changed() > 0 {
            RecordedAttempt::Applied
        } else {
            RecordedAttempt::Stale
        })
    }

    /// `EventOutbox::next_due`, on the `outbox_due` index.
    pub(crate) async fn next_due(&self) -> Result<Option<DateTime<Utc>>, StoreError> {
        let due: Option<i64> = sqlx::query_scalar(
            "SELECT MIN(next_attempt_ns) FROM outbox WHERE next_attempt_ns IS NOT NULL",
        )
        .fetch_one(&self.pool)
        .await
        .map_err(db_error)?;
        Ok(due.map(from_nanos))
    }

    /// `EventOutbox::deliveries`, in emission order.
    pub(crate) async fn deliveries(
        &self,
        call_id: &CallId,
    ) -> Result<Vec<DeliveryState>, StoreError> {
        let sql = format!("SELECT {EVENT_COLUMNS} FROM outbox WHERE call_id = $1 ORDER BY seq");
        let rows: Vec<EventRow> = sqlx::query_as(&sql)
            .bind(call_id.as_str())
            .fetch_all(&self.pool)
            .await
            .map_err(db_error)?;
        rows.into_iter().map(EventRow::into_state).collect()
    }

    /// `EventOutbox::redeliver`; clearing the token invalidates any claim.
    pub(crate) async fn redeliver(
        &self,
        event_id: &str,
        now: DateTime<Utc>,
    ) -> Result<bool, StoreError> {
        let _turn = self.turn().await;
        let updated = sqlx::query(
            "UPDATE outbox SET status = $2, delivered_ns = NULL, next_attempt_ns = $3, \
             claim_token = NULL WHERE event_id = $1",
        )
        .bind(event_id)
        .bind(delivery_status_name(DeliveryStatus::Pending))
        .bind(nanos(now))
        .execute(&self.pool)
        .await
        .map_err(db_error)?;
        Ok(updated.changed() > 0)
    }
}
}

#[cfg(all(test, feature = "sqlite"))]
mod tests {
    use std::collections::BTreeSet;

    use bytes::Bytes;

    use super::LEASE_BATCH;
    use crate::domain::{ApiKey, CallId, CallRecord, EventKind};
    use crate::store::sqlite::SqliteStore;
    use crate::store::{CallStore, EventOutbox, NewEvent, StoredCall};

    /// A claim larger than one lease statement leases every event it hands
    /// out, once.
    #[tokio::test]
    async fn large_claims_lease_in_batches() {
        let path =
            std::env::temp_dir().join(format!("agentcall-lease-{}.sqlite", CallId::generate()));
        let store = SqliteStore::open(&path).await.expect("open");
        let at = chrono::DateTime::from_timestamp(1_800_000_000, 0).expect("a time");
        let key = ApiKey::new("lease").id();
        let events = LEASE_BATCH + 1;
        for _ in 0..events {
            let call = StoredCall::new(
                CallRecord::queued(CallId::generate(), "+14155550123", "Hi"),
                "acct".parse().expect("account id"),
                key.clone(),
                at,
                "+14155550100",
            );
            store.insert(&call).await.expect("insert");
            let event = NewEvent {
                event_id: format!("{}:completed", call.record.id),
                call_id: call.record.id.clone(),
                account_id: call.account_id.clone(),
                kind: EventKind::Completed,
                url: "https://example.com/hook".into(),
                body: Bytes::from_static(b"{}"),
                created_at: at,
                first_attempt_at: at,
            };
            store.update(&call, vec![event]).await.expect("update");
        }
        let lease = std::time::Duration::from_secs(60);
        let claimed = store
            .claim_due(at, events + 10, lease)
            .await
            .expect("claim");
        let ids: BTreeSet<_> = claimed.iter().map(|d| d.event.event_id.clone()).collect();
        assert_eq!(ids.len(), events);
        assert!(
            store
                .claim_due(at, events, lease)
                .await
                .expect("claim")
                .is_empty(),
            "every claimed event is leased"
        );
        assert_eq!(store.next_due().await.expect("next due"), Some(at + lease));
        store.close().await;
        for suffix in ["", "-wal", "-shm"] {
            let _ = std::fs::remove_file(format!("{}{suffix}", path.display()));
        }
    }
}
