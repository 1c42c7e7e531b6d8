//! Builders and helpers the conformance tests share.

use bytes::Bytes;
use chrono::{DateTime, Utc};

use agentcall::domain::{AccountId, ApiKey, CallId, CallRecord, CallStatus, EventKind, KeyId};
use agentcall::store::{
    CallStore, DeliveryState, EventOutbox, NewEvent, PendingDelivery, StoredCall,
};

pub(super) fn base_time() -> DateTime<Utc> {
    DateTime::parse_from_rfc3339("2026-01-01T00:00:00Z")
        .expect("valid literal")
        .to_utc()
}

/// A fresh key id no other test uses.
pub(super) fn fresh_key() -> KeyId {
    ApiKey::new(CallId::generate().to_string()).id()
}

pub(super) fn sample_call(key_id: &KeyId, created_at: DateTime<Utc>) -> StoredCall {
    let record = CallRecord::queued(
        CallId::generate(),
        "+14155550123",
        "Confirm the appointment",
    );
    let account = "acct_conformance".parse().expect("valid account id");
    let mut call = StoredCall::new(record, account, key_id.clone(), created_at, "+14155550100");
    call.context = Some("context".into());
    call.webhook_url = Some("https://example.com/hook".into());
    call.reserved_minutes = 3;
    call
}

pub(super) fn sample_event(call: &StoredCall, kind: EventKind, at: DateTime<Utc>) -> NewEvent {
    NewEvent::new(
        format!("{}:{}:{}", call.record.id, kind, at.timestamp_millis()),
        call.record.id.clone(),
        call.account_id.clone(),
        kind,
        "https://example.com/hook",
        Bytes::from(format!("{{\"event\":\"{kind}\"}}")),
        at,
    )
}

/// A fresh account id no other test uses.
pub(super) fn fresh_account() -> AccountId {
    format!("acct_{}", CallId::generate())
        .parse()
        .expect("valid account id")
}

/// A new call of `account` that ended at `due` with one event,
/// `call.no_answer`, due then. (Ended then, so a store that drops ended
/// calls some time after their end keeps it while the test runs.)
pub(super) async fn ended_call_with_event<S: CallStore + ?Sized>(
    store: &S,
    account: &AccountId,
    due: DateTime<Utc>,
) -> NewEvent {
    let mut call = sample_call(&fresh_key(), base_time());
    call.account_id = account.clone();
    store.insert(&call).await.expect("insert");
    let event = sample_event(&call, EventKind::NoAnswer, due);
    let mut ended = call;
    ended.record.status = CallStatus::NoAnswer;
    ended.record.ended_at = Some(due);
    store
        .update(&ended, vec![event.clone()])
        .await
        .expect("update");
    event
}

/// Leases away every event due at `now` (those earlier tests left), so a
/// test sees only its own events due.
pub(super) async fn drain<S: EventOutbox + ?Sized>(
    store: &S,
    now: DateTime<Utc>,
    lease: std::time::Duration,
) {
    while !store
        .claim_due(now, 1000, lease)
        .await
        .expect("claim")
        .is_empty()
    {}
}

/// `event`'s claim at `now`, if it is handed out (with whatever else is
/// due: an event of a fresh account ranks first, so 1000 is plenty).
pub(super) async fn claim_one<S: EventOutbox + ?Sized>(
    store: &S,
    event: &NewEvent,
    now: DateTime<Utc>,
    lease: std::time::Duration,
) -> Option<PendingDelivery> {
    store
        .claim_due(now, 1000, lease)
        .await
        .expect("claim")
        .into_iter()
        .find(|p| p.event.event_id == event.event_id)
}

/// The delivery state of the only event of `event`'s call.
pub(super) async fn state_of<S: EventOutbox + ?Sized>(
    store: &S,
    event: &NewEvent,
) -> DeliveryState {
    let mut states = store.deliveries(&event.call_id).await.expect("deliveries");
    assert_eq!(states.len(), 1);
    states.remove(0)
}
