//! How records become rows and back, and the arithmetic both SQL backends
//! must agree on.
//!
//! # Row layout
//!
//! - Times are `BIGINT`/`INTEGER` nanoseconds since the Unix epoch (UTC), so
//!   they sort exactly and round-trip a [`DateTime<Utc>`] to the nanosecond.
//!   Times outside 1677–2262 are clamped to the representable range (see
//!   [`nanos`]).
//! - A call is a few indexed columns plus the whole [`StoredCall`] (less its
//!   version and lease, which are columns of their own: a lease renewal
//!   rewrites no document) as a JSON document. A field
//!   added to the record later needs a `#[serde(default)]` here, not a
//!   migration.
//! - Enumerations are stored by their wire names.
//!
//! A row that does not decode (corrupt JSON, an unknown status, a negative
//! count) is reported as [`StoreError::Unavailable`] naming the row; nothing
//! here panics on stored data.

use std::fmt;

use crate::domain::{CallId, EventKind};
use crate::store::{
    CallDocument, CallLease, ClaimToken, DeliveryState, DeliveryStatus, IdempotencyBegin,
    InstanceId, ListQuery, NewEvent, PendingDelivery, StoreError, StoredCall, StoredResponse,
};
use bytes::Bytes;
use chrono::{DateTime, Utc};
use serde::Deserialize;
use serde::de::IntoDeserializer;

/// Stored data that does not decode.
#[derive(Debug)]
pub(crate) struct CorruptRow(pub(crate) String);

impl fmt::Display for CorruptRow {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "corrupt stored data: {}", self.0)
    }
}

impl std::error::Error for CorruptRow {}

/// A store error for stored data that does not decode.
pub(crate) fn corrupt(what: impl Into<String>) -> StoreError {
    StoreError::Unavailable(Box::new(CorruptRow(what.into())))
}

/// A store error for a failed database operation.
pub(crate) fn db_error(error: sqlx::Error) -> StoreError {
    StoreError::Unavailable(Box::new(error))
}

/// A store error for embedded migrations that failed to apply.
pub(crate) fn migrate_error(error: sqlx::migrate::MigrateError) -> StoreError {
    StoreError::Unavailable(Box::new(error))
}

/// `at` in nanoseconds since the epoch, clamped to `i64` (years 1677–2262).
///
/// Clamping keeps the order of any two times (ties aside), which is what
/// ordering, filtering and due-time comparisons need.
pub(crate) fn nanos(at: DateTime<Utc>) -> i64 {
    at.timestamp_nanos_opt().unwrap_or(if at.timestamp() < 0 {
        i64::MIN
    } else {
        i64::MAX
    })
}

/// The inverse of [`nanos`].
pub(crate) fn from_nanos(ns: i64) -> DateTime<Utc> {
    DateTime::from_timestamp_nanos(ns)
}

/// A duration in nanoseconds, saturating.
pub(crate) fn duration_nanos(duration: std::time::Duration) -> i64 {
    i64::try_from(duration.as_nanos()).unwrap_or(i64::MAX)
}

/// A count or size as a SQL integer, saturating (databases have no `u64`).
pub(crate) fn sql_int(n: impl TryInto<i64>) -> i64 {
    n.try_into().unwrap_or(i64::MAX)
}

/// A stored integer that must fit `T` (non-negative counts, versions, statuses).
pub(crate) fn stored_int<T: TryFrom<i64>>(n: i64, what: &str) -> Result<T, StoreError> {
    T::try_from(n).map_err(|_| corrupt(format!("{what} out of range: {n}")))
}

/// A stored version: an `i64` column for a `u64` value.
pub(crate) fn version_column(version: u64, id: &CallId) -> Result<i64, StoreError> {
    i64::try_from(version).map_err(|_| corrupt(format!("call {id}: version {version} too large")))
}

/// The wire names of the statuses of calls not yet ended, as a SQL list
/// (the calls whose leases are renewed).
pub(crate) const UNFINISHED_SQL: &str = "('queued', 'dialing', 'in_progress')";

/// A value bound to a statement written at run time.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) enum Param<'a> {
    /// An integer (times, counts, cursors).
    Int(i64),
    /// A string (ids, wire names).
    Text(&'a str),
}

/// A statement written at run time, with its parameters in `$N` order
/// (both drivers take `$N` placeholders).
///
/// Not sqlx's `QueryBuilder`: running its query from generic code borrows
/// the builder for as long as the values bound to it live.
#[derive(Debug)]
pub(crate) struct Statement<'a> {
    pub(crate) sql: String,
    pub(crate) params: Vec<Param<'a>>,
}

impl<'a> Statement<'a> {
    fn new(sql: &str) -> Self {
        Self {
            sql: sql.to_owned(),
            params: Vec::new(),
        }
    }

    fn push(&mut self, sql: &str) {
        self.sql.push_str(sql);
    }

    /// Appends the next placeholder, standing for `param`.
    fn push_bind(&mut self, param: Param<'a>) {
        self.params.push(param);
        self.sql.push_str(&format!("${}", self.params.len()));
    }
}

/// The page query of [`ListQuery`]: the [`CALL_SELECT`] columns of at most
/// `limit + 1` calls, newest first, so the caller can tell `has_more`.
///
/// `cursor` is the `(created_ns, id)` of the `starting_after` call. Only the
/// conditions in use are written, so the cursor is a range condition on the
/// `(key_id, created_ns, id)` index and a page costs O(limit) rows read
/// (plus those a status filter skips), however deep it is.
pub(crate) fn list_query<'a>(
    query: &'a ListQuery,
    cursor: Option<(i64, &'a str)>,
) -> Statement<'a> {
    let mut sql = Statement::new(
        "SELECT id, version, doc, holder, lease_until_ns FROM calls WHERE key_id = ",
    );
    sql.push_bind(Param::Text(query.key_id.as_str()));
    if let Some((created_ns, id)) = cursor {
        sql.push(" AND (created_ns, id) < (");
        sql.push_bind(Param::Int(created_ns));
        sql.push(", ");
        sql.push_bind(Param::Text(id));
        sql.push(")");
    }
    if let Some(after) = query.created_after {
        sql.push(" AND created_ns > ");
        sql.push_bind(Param::Int(nanos(after)));
    }
    if let Some(before) = query.created_before {
        sql.push(" AND created_ns < ");
        sql.push_bind(Param::Int(nanos(before)));
    }
    if !query.statuses.is_empty() {
        sql.push(" AND status IN (");
        for (i, status) in query.statuses.iter().enumerate() {
            if i > 0 {
                sql.push(", ");
            }
            sql.push_bind(Param::Text(status.as_str()));
        }
        sql.push(")");
    }
    sql.push(" ORDER BY created_ns DESC, id DESC LIMIT ");
    sql.push_bind(Param::Int(sql_int(query.limit).saturating_add(1)));
    sql
}

/// `UPDATE outbox SET next_attempt_ns = $1, claim_token = $2 WHERE seq IN
/// ($3, …)` with `seqs` placeholders for the `seq`s: the lease of a claim.
pub(crate) fn lease_sql(seqs: usize) -> String {
    let placeholders: Vec<String> = (3..seqs.saturating_add(3))
        .map(|n| format!("${n}"))
        .collect();
    format!(
        "UPDATE outbox SET next_attempt_ns = $1, claim_token = $2 WHERE seq IN ({})",
        placeholders.join(", ")
    )
}

/// The columns a call is read from, in the order of [`CallRow`].
pub(crate) const CALL_SELECT: &str = "id, version, doc, holder, lease_until_ns";

/// A call as read: `id, version, doc, holder, lease_until_ns`.
pub(crate) type CallRow = (String, i64, String, Option<String>, Option<i64>);
/// A claim token as stored: its 64 bits in a signed column.
pub(crate) fn claim_column(claim: ClaimToken) -> i64 {
    i64::from_ne_bytes(claim.to_u64().to_ne_bytes())
}

/// The call's columns as the stores write them.
pub(crate) struct CallColumns {
    pub(crate) id: String,
    pub(crate) key_id: String,
    pub(crate) account_id: String,
    pub(crate) created_ns: i64,
    pub(crate) status: &'static str,
    pub(crate) version: i64,
    pub(crate) doc: String,
    /// The lease's holder; `None` without a lease.
    pub(crate) holder: Option<String>,
    /// When the lease lapses; `None` without a lease.
    pub(crate) lease_until_ns: Option<i64>,
}

/// Encodes a call for storage: its columns and its document
/// ([`CallDocument`]).
pub(crate) fn encode_call(call: &StoredCall) -> Result<CallColumns, StoreError> {
    let document = CallDocument::encode(call)?;
    Ok(CallColumns {
        id: call.record.id.as_str().to_owned(),
        key_id: call.key_id.as_str().to_owned(),
        account_id: call.account_id.as_str().to_owned(),
        created_ns: nanos(call.created_at),
        status: call.record.status.as_str(),
        version: version_column(call.version, &call.record.id)?,
        doc: document.body,
        holder: call.lease.as_ref().map(|l| l.holder.as_str().to_owned()),
        lease_until_ns: call.lease.as_ref().map(|l| nanos(l.until)),
    })
}

/// Decodes a stored call from its row.
pub(crate) fn decode_call_row(row: &CallRow) -> Result<StoredCall, StoreError> {
    let (id, version, doc, holder, lease_until_ns) = row;
    let mut call = decode_call(id, *version, doc)?;
    // A lease from before leases had holders (migrated rows) has an empty
    // holder: it is lapsed, and any claim takes it.
    call.lease = lease_until_ns.map(|until| {
        let holder = InstanceId::new(holder.clone().unwrap_or_default());
        CallLease::new(holder, from_nanos(until))
    });
    Ok(call)
}

/// Decodes a stored call from its id, version and document columns (no lease).
pub(crate) fn decode_call(id: &str, version: i64, doc: &str) -> Result<StoredCall, StoreError> {
    let version = stored_int(version, &format!("call {id}: version"))?;
    Ok(CallDocument::decode_body(id, version, None, doc)?)
}

/// The stored name of a delivery status.
pub(crate) fn delivery_status_name(status: DeliveryStatus) -> &'static str {
    match status {
        DeliveryStatus::Pending => "pending",
        DeliveryStatus::Delivered => "delivered",
        DeliveryStatus::GaveUp => "gave_up",
    }
}

fn parse_delivery_status(name: &str, event_id: &str) -> Result<DeliveryStatus, StoreError> {
    [
        DeliveryStatus::Pending,
        DeliveryStatus::Delivered,
        DeliveryStatus::GaveUp,
    ]
    .into_iter()
    .find(|status| delivery_status_name(*status) == name)
    .ok_or_else(|| {
        corrupt(format!(
            "event {event_id}: unknown delivery status {name:?}"
        ))
    })
}

fn parse_kind(name: &str, event_id: &str) -> Result<EventKind, StoreError> {
    EventKind::deserialize(name.into_deserializer()).map_err(|_: serde::de::value::Error| {
        corrupt(format!("event {event_id}: unknown event kind {name:?}"))
    })
}

/// The columns of an outbox row, in the order [`EventRow`] reads them.
pub(crate) const EVENT_COLUMNS: &str = "event_id, call_id, account_id, kind, url, body, \
     created_ns, first_attempt_ns, next_attempt_ns, status, attempts, last_response_status, \
     last_error, delivered_ns, seq";

/// One outbox row as read.
#[derive(sqlx::FromRow)]
pub(crate) struct EventRow {
    event_id: String,
    call_id: String,
    account_id: String,
    kind: String,
    url: String,
    body: Vec<u8>,
    created_ns: i64,
    first_attempt_ns: i64,
    next_attempt_ns: Option<i64>,
    status: String,
    attempts: i64,
    last_response_status: Option<i64>,
    last_error: Option<String>,
    delivered_ns: Option<i64>,
    /// Emission order.
    pub(crate) seq: i64,
}

impl EventRow {
    fn call_id(&self) -> Result<CallId, StoreError> {
        self.call_id
            .parse()
            .map_err(|_| corrupt(format!("event {}: bad call id", self.event_id)))
    }

    fn attempts(&self) -> Result<u32, StoreError> {
        stored_int(self.attempts, &format!("event {}: attempts", self.event_id))
    }

    /// The event as claimed for an attempt under `claim`.
    pub(crate) fn into_pending(self, claim: ClaimToken) -> Result<PendingDelivery, StoreError> {
        let attempts = self.attempts()?;
        let event = NewEvent {
            call_id: self.call_id()?,
            account_id: self
                .account_id
                .parse()
                .map_err(|_| corrupt(format!("event {}: bad account id", self.event_id)))?,
            kind: parse_kind(&self.kind, &self.event_id)?,
            url: self.url,
            body: Bytes::from(self.body),
            created_at: from_nanos(self.created_ns),
            first_attempt_at: from_nanos(self.first_attempt_ns),
            event_id: self.event_id,
        };
        Ok(PendingDelivery::new(event, attempts, claim))
    }

    /// What the host sees of the event's delivery.
    pub(crate) fn into_state(self) -> Result<DeliveryState, StoreError> {
        let last_response_status = self
            .last_response_status
            .map(|s| stored_int(s, &format!("event {}: response status", self.event_id)))
            .transpose()?;
        Ok(DeliveryState {
            call_id: self.call_id()?,
            kind: parse_kind(&self.kind, &self.event_id)?,
            status: parse_delivery_status(&self.status, &self.event_id)?,
            attempts: self.attempts()?,
            last_response_status,
            last_error: self.last_error,
            next_attempt_at: self.next_attempt_ns.map(from_nanos),
            delivered_at: self.delivered_ns.map(from_nanos),
            event_id: self.event_id,
        })
    }
}

/// An idempotency row as read: fingerprint, response status and body.
pub(crate) type IdempotencyRow = (Vec<u8>, Option<i64>, Option<Vec<u8>>);

/// What `begin` answers for a live record.
pub(crate) fn idempotency_verdict(
    row: IdempotencyRow,
    fingerprint: [u8; 32],
) -> Result<IdempotencyBegin, StoreError> {
    let (stored, status, body) = row;
    if stored.as_slice() != fingerprint.as_slice() {
        return Ok(IdempotencyBegin::Mismatch);
    }
    Ok(match status {
        Some(status) => IdempotencyBegin::Replay(StoredResponse {
            status: stored_int(status, "idempotency response status")?,
            body: Bytes::from(body.unwrap_or_default()),
        }),
        None => IdempotencyBegin::InProgress,
    })
}

/// The creation times at or before which an idempotency record is expired,
/// and at or before which an unanswered one may be taken over.
pub(crate) fn idempotency_thresholds(
    now: DateTime<Utc>,
    ttl: std::time::Duration,
    lease: std::time::Duration,
) -> (i64, i64) {
    let now = nanos(now);
    (
        now.saturating_sub(duration_nanos(ttl)),
        now.saturating_sub(duration_nanos(lease)),
    )
}

/// A stored usage row's `(billed, reserved)`, checked non-negative.
pub(crate) fn usage_counts(billed: i64, reserved: i64) -> Result<(u64, u64), StoreError> {
    Ok((
        stored_int(billed, "usage billed")?,
        stored_int(reserved, "usage reserved")?,
    ))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::domain::{ApiKey, CallRecord, CallStatus, FieldDefinition, FieldType};
    use crate::extract::Evidence;
    use crate::store::CarrierEnd;
    use std::collections::BTreeMap;

    fn call() -> StoredCall {
        let mut record = CallRecord::queued(CallId::generate(), "+14155550123", "Say hi");
        record.status = CallStatus::Completed;
        record.started_at = Some(from_nanos(1_800_000_000_123_456_789));
        record.metadata = Some(BTreeMap::from([("order".into(), "1234".into())]));
        record.scheduled_at = Some(from_nanos(1_799_999_999_000_000_007));
        record.attempt = 2;
        record.attempts = vec![crate::domain::AttemptOutcome {
            attempt: 1,
            status: CallStatus::Voicemail,
            error: None,
            started_at: Some(from_nanos(1_799_999_999_500_000_003)),
            ended_at: from_nanos(1_799_999_999_600_000_005),
            duration_sec: 9,
        }];
        record.extracted = Some(
            serde_json::json!({"ok": true, "n": 1.5, "s": "x", "none": null})
                .as_object()
                .cloned()
                .unwrap_or_default(),
        );
        StoredCall {
            record,
            account_id: "acct".parse().expect("account id"),
            key_id: ApiKey::new("k").id(),
            created_at: from_nanos(1_800_000_000_000_000_001),
            caller_id: "+14155550100".into(),
            context: None,
            fields: vec![FieldDefinition::new("ok", FieldType::Boolean).with_description("d")],
            webhook_url: None,
            reserved_minutes: 7,
            reserved_in: Some(from_nanos(1_801_000_000_000_000_003)),
            extraction_notes: BTreeMap::from([("n".into(), "why".into())]),
            extraction_evidence: BTreeMap::from([(
                "ok".into(),
                Evidence {
                    turn: 1,
                    speaker: crate::transcript::Speaker::Agent,
                    quote: "hi".into(),
                    confirmed_in_turn: Some(2),
                },
            )]),
            carrier_end: Some(CarrierEnd {
                transcript: Some(crate::transcript::Transcript::from_text("Agent: hi")),
                duration_sec: Some(61),
                ..CarrierEnd::new(CallStatus::Completed, from_nanos(1_800_000_000_999_999_999))
            }),
            settled: false,
            lease: None,
            carrier_notes: Default::default(),
            calling_window: Some("09:00-20:00".parse().unwrap()),
            waiting_until: Some(from_nanos(1_800_000_100_000_000_001)),
            retry: Some(
                crate::schedule::RetryPolicy::new(
                    3,
                    &[crate::schedule::RetryOn::Voicemail],
                    &[30, 120],
                )
                .unwrap(),
            ),
            version: 42,
        }
    }

    #[test]
    fn calls_round_trip_to_the_nanosecond() {
        let call = call();
        let columns = encode_call(&call).expect("encode");
        assert_eq!(columns.created_ns, 1_800_000_000_000_000_001);
        assert_eq!(columns.status, "completed");
        let back = decode_call(&columns.id, columns.version, &columns.doc).expect("decode");
        assert_eq!(back, call);
    }

    #[test]
    fn documents_from_before_settlement_tracking_read_as_settled() {
        let call = call();
        let columns = encode_call(&call).expect("encode");
        let mut doc: serde_json::Value = serde_json::from_str(&columns.doc).expect("json");
        let fields = doc.as_object_mut().expect("object");
        assert!(fields.remove("settled").is_some() && fields.remove("carrier_end").is_some());
        let old = serde_json::to_string(&doc).expect("json");
        let back = decode_call(&columns.id, columns.version, &old).expect("decode");
        assert!(back.settled, "old rows are not settled again");
        assert_eq!(back.carrier_end, None);
    }

    #[test]
    fn corrupt_documents_are_errors_not_panics() {
        let call = call();
        let id = call.record.id.as_str();
        for doc in ["", "{", "{}", "[1,2]", "null"] {
            assert!(matches!(
                decode_call(id, 0, doc),
                Err(StoreError::Unavailable(_))
            ));
        }
        let columns = encode_call(&call).expect("encode");
        let other = CallId::generate();
        assert!(decode_call(other.as_str(), 0, &columns.doc).is_err());
        assert!(decode_call(id, -1, &columns.doc).is_err());
    }

    #[test]
    fn times_clamp_instead_of_failing() {
        let far = DateTime::parse_from_rfc3339("3000-01-01T00:00:00Z")
            .expect("literal")
            .to_utc();
        assert_eq!(nanos(far), i64::MAX);
        assert_eq!(nanos(DateTime::<Utc>::MIN_UTC), i64::MIN);
        assert_eq!(duration_nanos(std::time::Duration::MAX), i64::MAX);
    }

    #[test]
    fn every_kind_and_status_parses_back() {
        use EventKind::*;
        for kind in [InProgress, Completed, NoAnswer, Voicemail, Declined, Failed] {
            assert_eq!(parse_kind(kind.as_str(), "e").expect("kind"), kind);
        }
        assert!(parse_kind("call.ringing", "e").is_err());
        for status in [
            DeliveryStatus::Pending,
            DeliveryStatus::Delivered,
            DeliveryStatus::GaveUp,
        ] {
            assert_eq!(
                parse_delivery_status(delivery_status_name(status), "e").expect("status"),
                status
            );
        }
    }

    #[test]
    fn run_time_statements_number_their_parameters() {
        let key = ApiKey::new("k").id();
        let mut query = ListQuery::new(key.clone(), 10);
        query.statuses = vec![CallStatus::Queued, CallStatus::Completed];
        query.created_after = Some(from_nanos(5));
        let list = list_query(&query, Some((7, "call_x")));
        assert_eq!(
            list.sql,
            "SELECT id, version, doc, holder, lease_until_ns FROM calls WHERE key_id = $1 \
             AND (created_ns, id) < ($2, $3) AND created_ns > $4 AND status IN ($5, $6) \
             ORDER BY created_ns DESC, id DESC LIMIT $7"
        );
        assert_eq!(
            list.params,
            [
                Param::Text(key.as_str()),
                Param::Int(7),
                Param::Text("call_x"),
                Param::Int(5),
                Param::Text("queued"),
                Param::Text("completed"),
                Param::Int(11),
            ]
        );
        assert_eq!(
            lease_sql(2),
            "UPDATE outbox SET next_attempt_ns = $1, claim_token = $2 WHERE seq IN ($3, $4)"
        );
        let claim = ClaimToken::from_u64(u64::MAX);
        assert_eq!(claim_column(claim), -1, "every bit is kept");
    }
}
