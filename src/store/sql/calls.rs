//! Calls and their recordings.

use bytes::Bytes;
use sqlx::Database;
use sqlx::query::Query;

use super::codec::{
    CALL_SELECT, CallColumns, CallRow, Param, UNFINISHED_SQL, corrupt, db_error, decode_call_row,
    encode_call, list_query, nanos, sql_int, version_column,
};
use super::{Db, RowsAffected, shared};
use crate::domain::CallId;
use crate::store::{
    InstanceId, LeaseClaim, ListPage, ListQuery, NewEvent, Recording, StoreError, StoredCall,
};

/// Calls renewed per statement (well under both drivers' parameter limits).
const RENEW_BATCH: usize = 500;

/// Decodes [`CallRow`]s.
fn decode_calls(rows: Vec<CallRow>) -> Result<Vec<StoredCall>, StoreError> {
    rows.iter().map(decode_call_row).collect()
}

shared! {
impl Db<D> {
    /// Binds a call's columns as `$1` to `$9`, in the order of
    /// [`CallColumns`]' fields: `id, key_id, account_id, created_ns, status,
    /// version, doc, holder, lease_until_ns`.
    fn bind_call<'q>(
        query: Query<'q, D::Db, <D::Db as Database>::Arguments<'q>>,
        c: &'q CallColumns,
    ) -> Query<'q, D::Db, <D::Db as Database>::Arguments<'q>> {
        query
            .bind(c.id.as_str())
            .bind(c.key_id.as_str())
            .bind(c.account_id.as_str())
            .bind(c.created_ns)
            .bind(c.status)
            .bind(c.version)
            .bind(c.doc.as_str())
            .bind(c.holder.as_deref())
            .bind(c.lease_until_ns)
    }

    /// `CallStore::insert`.
    pub(crate) async fn insert(&self, call: &StoredCall) -> Result<(), StoreError> {
        let c = encode_call(call)?;
        let _turn = self.turn().await;
        let inserted = Self::bind_call(
            sqlx::query(
                "INSERT INTO calls (id, key_id, account_id, created_ns, status, version, doc, \
                 holder, lease_until_ns) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9) \
                 ON CONFLICT (id) DO NOTHING",
            ),
            &c,
        )
        .execute(&self.pool)
        .await
        .map_err(db_error)?;
        if inserted.changed() == 0 {
            return Err(StoreError::AlreadyExists(call.record.id.clone()));
        }
        Ok(())
    }

    /// `CallStore::get`.
    pub(crate) async fn get(&self, id: &CallId) -> Result<Option<StoredCall>, StoreError> {
        let sql = format!("SELECT {CALL_SELECT} FROM calls WHERE id = $1");
        let row: Option<CallRow> = sqlx::query_as(&sql)
            .bind(id.as_str())
            .fetch_optional(&self.pool)
            .await
            .map_err(db_error)?;
        row.as_ref().map(decode_call_row).transpose()
    }

    /// `CallStore::update`: compare-and-set on the version, and the events
    /// in the same transaction.
    pub(crate) async fn update(
        &self,
        call: &StoredCall,
        events: Vec<NewEvent>,
    ) -> Result<u64, StoreError> {
        let id = &call.record.id;
        let next_version = call
            .version
            .checked_add(1)
            .ok_or_else(|| corrupt(format!("call {id}: version overflow")))?;
        let mut c = encode_call(call)?;
        c.version = version_column(next_version, id)?;
        let expected = version_column(call.version, id)?;
        // On PostgreSQL a concurrent update of the row waits for this one's
        // commit, then re-checks `version` against the committed row and
        // matches nothing; on SQLite the writes take turns.
        let sql = format!(
            "UPDATE calls SET key_id = $2, account_id = $3, created_ns = $4, status = $5, \
             version = $6, doc = $7, lease_until_ns = CASE WHEN $9 IS NULL THEN NULL \
             WHEN holder = $8 AND lease_until_ns IS NOT NULL \
             THEN {}(lease_until_ns, $9) ELSE $9 END, holder = $8 \
             WHERE id = $1 AND version = $10",
            D::GREATEST
        );
        let conflict = || async {
            // Any row will do: only whether there is one matters.
            let exists = sqlx::query("SELECT 1 FROM calls WHERE id = $1")
                .bind(c.id.as_str())
                .fetch_optional(&self.pool)
                .await
                .map_err(db_error)?;
            Err(match exists {
                Some(_) => StoreError::Conflict {
                    id: id.clone(),
                    expected: call.version,
                },
                None => StoreError::NotFound(id.clone()),
            })
        };
        if events.is_empty() {
            // Most moves queue no event: the one statement is atomic on its
            // own, with no transaction's extra round trips around it.
            let _turn = self.turn().await;
            let updated = Self::bind_call(sqlx::query(&sql), &c)
                .bind(expected)
                .execute(&self.pool)
                .await
                .map_err(db_error)?;
            if updated.changed() == 0 {
                return conflict().await;
            }
            return Ok(next_version);
        }
        let mut tx = self.write().await?;
        let updated = Self::bind_call(sqlx::query(&sql), &c)
            .bind(expected)
            .execute(tx.conn())
            .await
            .map_err(db_error)?;
        if updated.changed() == 0 {
            tx.rollback().await?;
            return conflict().await;
        }
        for event in &events {
            sqlx::query(
                "INSERT INTO outbox (event_id, call_id, account_id, kind, url, body, created_ns, \
                 first_attempt_ns, next_attempt_ns) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $8) \
                 ON CONFLICT (event_id) DO NOTHING",
            )
            .bind(event.event_id.as_str())
            .bind(event.call_id.as_str())
            .bind(event.account_id.as_str())
            .bind(event.kind.as_str())
            .bind(event.url.as_str())
            .bind(event.body.as_ref())
            .bind(nanos(event.created_at))
            .bind(nanos(event.first_attempt_at))
            .execute(tx.conn())
            .await
            .map_err(db_error)?;
        }
        tx.commit().await?;
        Ok(next_version)
    }

    /// `CallStore::list`: one range scan of the `(key_id, created_ns, id)`
    /// index from the cursor.
    pub(crate) async fn list(&self, query: &ListQuery) -> Result<ListPage, StoreError> {
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
        let statement = list_query(query, cursor);
        let mut rows = sqlx::query_as(&statement.sql);
        for param in &statement.params {
            rows = match *param {
                Param::Int(value) => rows.bind(value),
                Param::Text(value) => rows.bind(value),
            };
        }
        let rows: Vec<CallRow> = rows.fetch_all(&self.pool).await.map_err(db_error)?;
        let mut calls = decode_calls(rows)?;
        let has_more = calls.len() > query.limit;
        calls.truncate(query.limit);
        Ok(ListPage { calls, has_more })
    }

    /// `CallStore::renew_leases`: one statement per batch of ids, which
    /// bumps no version, leaves the document alone and returns the ids it
    /// renewed.
    pub(crate) async fn renew_leases(
        &self,
        holder: &InstanceId,
        ids: &[CallId],
        until: chrono::DateTime<chrono::Utc>,
    ) -> Result<Vec<CallId>, StoreError> {
        let mut renewed = Vec::with_capacity(ids.len());
        for batch in ids.chunks(RENEW_BATCH) {
            let placeholders: Vec<String> = (3..batch.len() + 3).map(|n| format!("${n}")).collect();
            let sql = format!(
                "UPDATE calls SET lease_until_ns = $2 WHERE holder = $1 \
                 AND lease_until_ns IS NOT NULL AND status IN {UNFINISHED_SQL} AND id IN ({}) \
                 RETURNING id",
                placeholders.join(", ")
            );
            let mut statement = sqlx::query_scalar::<_, String>(&sql)
                .bind(holder.as_str())
                .bind(nanos(until));
            for id in batch {
                statement = statement.bind(id.as_str());
            }
            let _turn = self.turn().await;
            let done = statement.fetch_all(&self.pool).await.map_err(db_error)?;
            for id in done {
                renewed.push(id.parse().map_err(|e| corrupt(format!("call id {id:?}: {e}")))?);
            }
        }
        Ok(renewed)
    }

    /// `CallStore::claim_lapsed`: one statement on the `calls_by_lease`
    /// index. On PostgreSQL the chosen rows are locked with `SKIP LOCKED`,
    /// and a row renewed after the statement's snapshot is re-checked
    /// against the committed lease when it is locked, so a renewed call is
    /// not taken; SQLite runs the statement alone.
    pub(crate) async fn claim_lapsed(
        &self,
        claim: &LeaseClaim,
    ) -> Result<Vec<StoredCall>, StoreError> {
        let own = if claim.reclaim_own {
            " OR holder = $1"
        } else {
            ""
        };
        // Only waiting calls, when `$5` names the waiting holder.
        let waiting = " AND ($5 = '' OR holder = $5)";
        let waiting_holder = InstanceId::waiting();
        let sql = format!(
            "UPDATE calls SET holder = $1, lease_until_ns = $2, version = version + 1 \
             WHERE id IN (SELECT id FROM calls WHERE lease_until_ns IS NOT NULL \
             AND (lease_until_ns < $3{own}){waiting} ORDER BY lease_until_ns LIMIT $4{lock}) \
             RETURNING {CALL_SELECT}",
            lock = D::SKIP_LOCKED,
        );
        let _turn = self.turn().await;
        let rows: Vec<CallRow> = sqlx::query_as(&sql)
            .bind(claim.holder.as_str())
            .bind(nanos(claim.until))
            .bind(nanos(claim.now))
            .bind(sql_int(claim.limit))
            .bind(if claim.waiting_only {
                waiting_holder.as_str()
            } else {
                ""
            })
            .fetch_all(&self.pool)
            .await
            .map_err(db_error)?;
        decode_calls(rows)
    }

    /// `CallStore::put_recording`: one statement that stores nothing when
    /// the call is unknown.
    pub(crate) async fn put_recording(
        &self,
        id: &CallId,
        recording: Recording,
    ) -> Result<(), StoreError> {
        let _turn = self.turn().await;
        let stored = sqlx::query(
            "INSERT INTO recordings (call_id, content_type, bytes) \
             SELECT id, $2, $3 FROM calls WHERE id = $1 \
             ON CONFLICT (call_id) DO UPDATE SET content_type = excluded.content_type, \
             bytes = excluded.bytes",
        )
        .bind(id.as_str())
        .bind(recording.content_type.as_str())
        .bind(recording.bytes.as_ref())
        .execute(&self.pool)
        .await
        .map_err(db_error)?;
        if stored.changed() == 0 {
            return Err(StoreError::NotFound(id.clone()));
        }
        Ok(())
    }

    /// `CallStore::recording`.
    pub(crate) async fn recording(&self, id: &CallId) -> Result<Option<Recording>, StoreError> {
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
}
