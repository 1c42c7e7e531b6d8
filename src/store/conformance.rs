//! The contract tests every store runs on itself.
//!
//! Each function takes a store that is empty or holds only calls of other
//! keys, exercises one part of the [`CallStore`] / [`EventOutbox`] contract
//! and panics on a violation. A backend's own test calls [`run_all`]:
//!
//! ```
//! # tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap().block_on(async {
//! agentcall::store::conformance::run_all(&agentcall::store::MemoryStore::new()).await;
//! # });
//! ```

use std::collections::BTreeMap;

use bytes::Bytes;
use chrono::{DateTime, Duration, Utc};

use super::{
    AttemptOutcome, CallLease, CallStore, CarrierEnd, ClaimToken, DeliveryState, DeliveryStatus,
    EventOutbox, HoldToken, IdempotencyBegin, IdempotencyStore, InstanceId, LeaseClaim, ListQuery,
    NewEvent, PendingDelivery, RecordedAttempt, Recording, StoreError, StoredCall, StoredResponse,
};
use crate::domain::{AccountId, ApiKey, CallId, CallRecord, CallStatus, EventKind, KeyId};

/// Runs every conformance test in turn.
pub async fn run_all<S: CallStore + EventOutbox + IdempotencyStore>(store: &S) {
    insert_then_get(store).await;
    insert_twice_fails(store).await;
    update_is_compare_and_set(store).await;
    concurrent_updates_from_one_version_move_once(store).await;
    list_is_scoped_ordered_and_limited(store).await;
    list_pages_with_cursor_and_filters(store).await;
    recordings_round_trip(store).await;
    leases_renew_lapse_are_claimed_once_and_fence(store).await;
    carrier_end_and_settlement_round_trip(store).await;
    events_enter_with_updates_and_deliver_in_order(store).await;
    claims_take_turns_across_accounts(store).await;
    late_outcomes_under_a_lapsed_claim_change_nothing(store).await;
    redelivery_invalidates_an_outstanding_claim(store).await;
    idempotency_keys_replay_mismatch_and_expire(store).await;
    idempotency_holders_renew_and_late_holders_change_nothing(store).await;
}

fn base_time() -> DateTime<Utc> {
    DateTime::parse_from_rfc3339("2026-01-01T00:00:00Z")
        .expect("valid literal")
        .to_utc()
}

/// A fresh key id no other test uses.
fn fresh_key() -> KeyId {
    ApiKey::new(CallId::generate().to_string()).id()
}

fn sample_call(key_id: &KeyId, created_at: DateTime<Utc>) -> StoredCall {
    StoredCall {
        record: CallRecord::queued(
            CallId::generate(),
            "+14155550123",
            "Confirm the appointment",
        ),
        account_id: "acct_conformance".parse().expect("valid account id"),
        key_id: key_id.clone(),
        created_at,
        caller_id: "+14155550100".into(),
        context: Some("context".into()),
        fields: Vec::new(),
        webhook_url: Some("https://example.com/hook".into()),
        reserved_minutes: 3,
        extraction_notes: BTreeMap::new(),
        carrier_end: None,
        settled: false,
        lease: None,
        version: 0,
    }
}

fn sample_event(call: &StoredCall, kind: EventKind, at: DateTime<Utc>) -> NewEvent {
    NewEvent {
        event_id: format!("{}:{}:{}", call.record.id, kind, at.timestamp_millis()),
        call_id: call.record.id.clone(),
        account_id: call.account_id.clone(),
        kind,
        url: "https://example.com/hook".into(),
        body: Bytes::from(format!("{{\"event\":\"{kind}\"}}")),
        created_at: at,
        first_attempt_at: at,
    }
}

/// A fresh account id no other test uses.
fn fresh_account() -> AccountId {
    format!("acct_{}", CallId::generate())
        .parse()
        .expect("valid account id")
}

/// A new call of `account` that ended at `due` with one event,
/// `call.no_answer`, due then. (Ended then, so a store that drops ended
/// calls some time after their end keeps it while the test runs.)
async fn ended_call_with_event<S: CallStore + ?Sized>(
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
async fn drain<S: EventOutbox + ?Sized>(store: &S, now: DateTime<Utc>, lease: std::time::Duration) {
    while !store
        .claim_due(now, 1000, lease)
        .await
        .expect("claim")
        .is_empty()
    {}
}

/// `event`'s claim at `now`, if it is handed out (with whatever else is
/// due: an event of a fresh account ranks first, so 1000 is plenty).
async fn claim_one<S: EventOutbox + ?Sized>(
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
async fn state_of<S: EventOutbox + ?Sized>(store: &S, event: &NewEvent) -> DeliveryState {
    let mut states = store.deliveries(&event.call_id).await.expect("deliveries");
    assert_eq!(states.len(), 1);
    states.remove(0)
}

/// A stored call reads back equal.
pub async fn insert_then_get<S: CallStore + ?Sized>(store: &S) {
    let call = sample_call(&fresh_key(), base_time());
    store.insert(&call).await.expect("insert");
    assert_eq!(store.get(&call.record.id).await.expect("get"), Some(call));
    assert_eq!(
        store.get(&CallId::generate()).await.expect("get unknown"),
        None
    );
}

/// A second insert of one id is `AlreadyExists` and changes nothing.
pub async fn insert_twice_fails<S: CallStore + ?Sized>(store: &S) {
    let call = sample_call(&fresh_key(), base_time());
    store.insert(&call).await.expect("insert");
    let mut again = call.clone();
    again.record.objective = "changed".into();
    assert!(matches!(
        store.insert(&again).await,
        Err(StoreError::AlreadyExists(_))
    ));
    assert_eq!(store.get(&call.record.id).await.expect("get"), Some(call));
}

/// `update` succeeds from the stored version only.
pub async fn update_is_compare_and_set<S: CallStore + ?Sized>(store: &S) {
    let call = sample_call(&fresh_key(), base_time());
    store.insert(&call).await.expect("insert");
    let mut next = call.clone();
    next.record.status = CallStatus::Dialing;
    assert_eq!(
        store.update(&next, Vec::new()).await.expect("first update"),
        1
    );
    let stored = store
        .get(&call.record.id)
        .await
        .expect("get")
        .expect("present");
    assert_eq!(
        (stored.version, stored.record.status),
        (1, CallStatus::Dialing)
    );

    let mut stale = call.clone();
    stale.record.status = CallStatus::Failed;
    assert!(matches!(
        store.update(&stale, Vec::new()).await,
        Err(StoreError::Conflict { expected: 0, .. })
    ));
    let unchanged = store
        .get(&call.record.id)
        .await
        .expect("get")
        .expect("present");
    assert_eq!(unchanged.record.status, CallStatus::Dialing);

    let unknown = sample_call(&fresh_key(), base_time());
    assert!(matches!(
        store.update(&unknown, Vec::new()).await,
        Err(StoreError::NotFound(_))
    ));
}

/// Of eight concurrent updates from one version, exactly one wins.
pub async fn concurrent_updates_from_one_version_move_once<S: CallStore + ?Sized>(store: &S) {
    let call = sample_call(&fresh_key(), base_time());
    store.insert(&call).await.expect("insert");
    let attempt = |status: CallStatus| {
        let mut next = call.clone();
        next.record.status = status;
        async move { store.update(&next, Vec::new()).await }
    };
    use CallStatus::*;
    let results = tokio::join!(
        attempt(Dialing),
        attempt(Failed),
        attempt(NoAnswer),
        attempt(Declined),
        attempt(Voicemail),
        attempt(Dialing),
        attempt(Failed),
        attempt(NoAnswer),
    );
    let results = [
        results.0, results.1, results.2, results.3, results.4, results.5, results.6, results.7,
    ];
    let wins = results.iter().filter(|r| r.is_ok()).count();
    assert_eq!(
        wins, 1,
        "exactly one concurrent update must win: {results:?}"
    );
    assert!(
        results
            .iter()
            .all(|r| matches!(r, Ok(1) | Err(StoreError::Conflict { .. })))
    );
    let stored = store
        .get(&call.record.id)
        .await
        .expect("get")
        .expect("present");
    assert_eq!(stored.version, 1);
}

/// Lists show one key's calls, most recent first, at most `limit`.
pub async fn list_is_scoped_ordered_and_limited<S: CallStore + ?Sized>(store: &S) {
    let (mine, theirs) = (fresh_key(), fresh_key());
    let mut created = Vec::new();
    for i in 0..7 {
        let call = sample_call(&mine, base_time() + Duration::seconds(i));
        store.insert(&call).await.expect("insert");
        store
            .insert(&sample_call(&theirs, base_time() + Duration::seconds(i)))
            .await
            .expect("insert");
        created.push(call.record.id.clone());
    }
    let page = store
        .list(&ListQuery::new(mine.clone(), 5))
        .await
        .expect("list");
    let ids: Vec<_> = page.calls.iter().map(|c| c.record.id.clone()).collect();
    let newest_first: Vec<_> = created.iter().rev().take(5).cloned().collect();
    assert_eq!(ids, newest_first);
    assert!(page.has_more);
    assert!(page.calls.iter().all(|c| c.key_id == mine));
    let all = store.list(&ListQuery::new(mine, 100)).await.expect("list");
    assert_eq!((all.calls.len(), all.has_more), (7, false));
    let none = store
        .list(&ListQuery::new(fresh_key(), 10))
        .await
        .expect("list");
    assert!(none.calls.is_empty() && !none.has_more);
}

/// Walking pages with `starting_after` finds every call once; filters apply;
/// a foreign cursor is `NotFound`.
pub async fn list_pages_with_cursor_and_filters<S: CallStore + ?Sized>(store: &S) {
    let key = fresh_key();
    let mut ids = Vec::new();
    for i in 0..23 {
        // Pairs share a timestamp so ties by id are exercised.
        let mut call = sample_call(&key, base_time() + Duration::seconds(i / 2));
        if i % 3 == 0 {
            call.record.status = CallStatus::Completed;
        }
        store.insert(&call).await.expect("insert");
        ids.push(call.record.id.clone());
    }
    for page_size in [1, 4, 10, 23, 50] {
        let mut seen = Vec::new();
        let mut query = ListQuery::new(key.clone(), page_size);
        loop {
            let page = store.list(&query).await.expect("list");
            seen.extend(
                page.calls
                    .iter()
                    .map(|c| (c.created_at, c.record.id.clone())),
            );
            if !page.has_more {
                break;
            }
            query.starting_after = page.calls.last().map(|c| c.record.id.clone());
        }
        let mut expected = seen.clone();
        expected.sort();
        expected.reverse();
        assert_eq!(
            seen, expected,
            "pages are most recent first (size {page_size})"
        );
        let mut found: Vec<_> = seen.into_iter().map(|(_, id)| id).collect();
        found.sort();
        let mut all = ids.clone();
        all.sort();
        assert_eq!(found, all, "every call exactly once (size {page_size})");
    }
    let mut completed = ListQuery::new(key.clone(), 100);
    completed.statuses = vec![CallStatus::Completed];
    assert_eq!(store.list(&completed).await.expect("list").calls.len(), 8);
    let mut window = ListQuery::new(key.clone(), 100);
    window.created_after = Some(base_time() + Duration::seconds(2));
    window.created_before = Some(base_time() + Duration::seconds(6));
    let in_window = store.list(&window).await.expect("list").calls;
    assert_eq!(in_window.len(), 6, "seconds 3, 4 and 5, two calls each");
    let mut foreign = ListQuery::new(fresh_key(), 10);
    foreign.starting_after = Some(ids[0].clone());
    assert!(matches!(
        store.list(&foreign).await,
        Err(StoreError::NotFound(_))
    ));
}

/// Recordings are stored per call and replaced on a second put.
pub async fn recordings_round_trip<S: CallStore + ?Sized>(store: &S) {
    let call = sample_call(&fresh_key(), base_time());
    store.insert(&call).await.expect("insert");
    assert_eq!(store.recording(&call.record.id).await.expect("read"), None);
    for bytes in [&b"RIFF1"[..], &b"RIFF2"[..]] {
        let recording = Recording {
            content_type: "audio/wav".into(),
            bytes: Bytes::from(bytes),
        };
        store
            .put_recording(&call.record.id, recording.clone())
            .await
            .expect("put");
        assert_eq!(
            store.recording(&call.record.id).await.expect("read"),
            Some(recording)
        );
    }
}

/// Leases (run it on an empty database: its claims take any lapsed lease):
/// `renew_leases` extends the holder's named running calls only, without
/// a new version; `claim_lapsed` takes lapsed leases (and, with
/// `reclaim_own`, the claimer's own) oldest first, up to its limit, bumps
/// their versions so a former holder's write conflicts, and never takes a
/// call without a lease or one renewed in time.
pub async fn leases_renew_lapse_are_claimed_once_and_fence<S: CallStore + ?Sized>(store: &S) {
    let t = base_time();
    let secs = Duration::seconds;
    let key = fresh_key();
    let (a, b) = (InstanceId::generate(), InstanceId::generate());
    let leased = |holder: &InstanceId, until| {
        let mut call = sample_call(&key, t);
        call.lease = Some(CallLease::new(holder.clone(), until));
        call
    };
    let renewed = leased(&a, t + secs(10));
    let lapsed_b = leased(&b, t + secs(5));
    let mut ended_a = leased(&a, t + secs(10));
    ended_a.record.status = CallStatus::Voicemail;
    let unleased = sample_call(&key, t);
    for call in [&renewed, &lapsed_b, &ended_a, &unleased] {
        store.insert(call).await.expect("insert");
    }
    let read = store.get(&renewed.record.id).await.expect("get");
    assert_eq!(read.as_ref(), Some(&renewed), "leases round-trip");

    let named = [
        renewed.record.id.clone(),
        ended_a.record.id.clone(),
        lapsed_b.record.id.clone(),
    ];
    assert_eq!(
        store
            .renew_leases(&a, &named, t + secs(60))
            .await
            .expect("renew"),
        1,
        "only the holder's running call is renewed: not its ended one, not another holder's"
    );
    let read = store
        .get(&renewed.record.id)
        .await
        .expect("get")
        .expect("call");
    assert_eq!(read.lease, Some(CallLease::new(a.clone(), t + secs(60))));
    assert_eq!(read.version, renewed.version, "a renewal is not a change");
    // A write from a copy read before the renewal keeps the renewal.
    let mut stale = renewed.clone();
    stale.context = Some("changed".into());
    store.update(&stale, Vec::new()).await.expect("update");
    let read = store
        .get(&renewed.record.id)
        .await
        .expect("get")
        .expect("call");
    assert_eq!(read.lease, Some(CallLease::new(a.clone(), t + secs(60))));
    assert_eq!(read.context.as_deref(), Some("changed"));

    // Nothing has lapsed before the earliest lease ends.
    let early = LeaseClaim::new(a.clone(), t, t + secs(90), 10);
    assert!(store.claim_lapsed(&early).await.expect("claim").is_empty());

    // At t+30 the unrenewed leases (5 s and 10 s) have lapsed; oldest first.
    let claim = LeaseClaim::new(a.clone(), t + secs(30), t + secs(90), 1);
    let first = store.claim_lapsed(&claim).await.expect("claim");
    let ids: Vec<&CallId> = first.iter().map(|c| &c.record.id).collect();
    assert_eq!(ids, [&lapsed_b.record.id], "limit and order");
    assert_eq!(
        first[0].lease,
        Some(CallLease::new(a.clone(), t + secs(90)))
    );
    assert_eq!(first[0].version, lapsed_b.version + 1);
    assert_eq!(
        store.get(&lapsed_b.record.id).await.expect("get").as_ref(),
        Some(&first[0]),
        "claimed calls are returned as stored"
    );
    // The former holder is fenced: its copy is one version behind.
    assert!(matches!(
        store.update(&lapsed_b, Vec::new()).await,
        Err(StoreError::Conflict { .. })
    ));
    let claim = LeaseClaim::new(b.clone(), t + secs(30), t + secs(90), 10);
    let rest = store.claim_lapsed(&claim).await.expect("claim");
    let ids: Vec<_> = rest.iter().map(|c| c.record.id.clone()).collect();
    assert_eq!(
        ids,
        [ended_a.record.id.clone()],
        "an ended, unsettled call lapses too"
    );
    assert!(
        store.claim_lapsed(&claim).await.expect("claim").is_empty(),
        "a claimed call is not claimed again while its lease runs"
    );

    // A reclaim also takes the claimer's own calls, lapsed or not.
    let mut own = LeaseClaim::new(a.clone(), t + secs(30), t + secs(120), 10);
    own.reclaim_own = true;
    let reclaimed = store.claim_lapsed(&own).await.expect("claim");
    let ids: std::collections::BTreeSet<_> =
        reclaimed.iter().map(|c| c.record.id.clone()).collect();
    assert_eq!(
        ids,
        [renewed.record.id.clone(), lapsed_b.record.id.clone()].into(),
        "both calls now leased to the claimer, and nothing else"
    );

    // An update stores the lease it carries: releasing it makes the call
    // nobody's, and no claim takes it.
    let mut settled = store
        .get(&ended_a.record.id)
        .await
        .expect("get")
        .expect("call");
    settled.settled = true;
    settled.lease = None;
    store.update(&settled, Vec::new()).await.expect("update");
    let late = LeaseClaim::new(a.clone(), t + secs(100_000), t + secs(100_100), 10);
    let ids: Vec<_> = store
        .claim_lapsed(&late)
        .await
        .expect("claim")
        .into_iter()
        .map(|c| c.record.id)
        .collect();
    assert!(!ids.contains(&ended_a.record.id) && !ids.contains(&unleased.record.id));
    assert_eq!(
        ids.len(),
        2,
        "the two calls still leased have lapsed by then"
    );
}

/// A kept carrier end and the settlement flag read back as written.
pub async fn carrier_end_and_settlement_round_trip<S: CallStore + ?Sized>(store: &S) {
    let key = fresh_key();
    let mut open = sample_call(&key, base_time());
    let mut end = CarrierEnd::new(CallStatus::Completed, base_time());
    end.transcript = Some("Agent: hello \"settled\":false".into());
    end.duration_sec = Some(42);
    open.carrier_end = Some(end);
    let mut settled = sample_call(&key, base_time());
    settled.record.status = CallStatus::Completed;
    settled.settled = true;
    for call in [&open, &settled] {
        store.insert(call).await.expect("insert");
        let read = store.get(&call.record.id).await.expect("get");
        assert_eq!(read.as_ref(), Some(call));
    }
}

/// Events enter with the update that emits them, are claimed in order with
/// `call.in_progress` first, and record their attempts.
pub async fn events_enter_with_updates_and_deliver_in_order<S: CallStore + EventOutbox + ?Sized>(
    store: &S,
) {
    let now = base_time() + Duration::days(3650);
    let call = sample_call(&fresh_key(), base_time());
    store.insert(&call).await.expect("insert");
    let first = sample_event(&call, EventKind::InProgress, now);
    let second = sample_event(&call, EventKind::Completed, now + Duration::milliseconds(1));
    let mut next = call.clone();
    next.record.status = CallStatus::InProgress;
    store
        .update(&next, vec![first.clone()])
        .await
        .expect("update");
    next.version = 1;
    next.record.status = CallStatus::Completed;
    store
        .update(&next, vec![second.clone()])
        .await
        .expect("update");

    let lease = std::time::Duration::from_secs(60);
    let later = now + Duration::seconds(1);
    let record = |event: &NewEvent, claim: ClaimToken, outcome: AttemptOutcome| {
        let event_id = event.event_id.clone();
        async move {
            store
                .record_attempt(&event_id, claim, later, outcome)
                .await
                .expect("record")
        }
    };
    let claimed = store.claim_due(later, 10, lease).await.expect("claim");
    let mine: Vec<_> = claimed
        .iter()
        .filter(|p| p.event.call_id == call.record.id)
        .collect();
    assert_eq!(
        mine.len(),
        1,
        "the terminal event waits for in_progress's first attempt"
    );
    assert_eq!(mine[0].event, first);
    let first_claim = mine[0].claim;
    assert!(
        store
            .claim_due(later, 10, lease)
            .await
            .expect("claim")
            .iter()
            .all(|p| p.event.call_id != call.record.id),
        "a claimed event is leased"
    );
    let failure = AttemptOutcome::Failed {
        status: Some(500),
        error: "HTTP 500".into(),
        retry_at: Some(later + Duration::seconds(5)),
    };
    assert_eq!(
        record(&first, first_claim, failure).await,
        RecordedAttempt::Applied
    );
    let claimed = store.claim_due(later, 10, lease).await.expect("claim");
    let mine: Vec<_> = claimed
        .iter()
        .filter(|p| p.event.call_id == call.record.id)
        .collect();
    assert_eq!(mine.len(), 1);
    assert_eq!(mine[0].event, second, "body and id are kept byte for byte");
    let delivered = AttemptOutcome::Delivered { status: 204 };
    assert_eq!(
        record(&second, mine[0].claim, delivered).await,
        RecordedAttempt::Applied
    );

    let retry = store
        .claim_due(later + Duration::seconds(5), 10, lease)
        .await
        .expect("claim");
    let again = retry
        .iter()
        .find(|p| p.event.event_id == first.event_id)
        .expect("retried");
    assert_eq!((again.attempts, &again.event), (1, &first));
    assert_ne!(again.claim, first_claim, "every claim has its own token");
    let delivered = AttemptOutcome::Delivered { status: 200 };
    assert_eq!(
        record(&first, again.claim, delivered.clone()).await,
        RecordedAttempt::Applied
    );
    assert_eq!(
        record(&first, again.claim, delivered).await,
        RecordedAttempt::Stale,
        "a claim's outcome is recorded once"
    );

    let states = store.deliveries(&call.record.id).await.expect("deliveries");
    assert_eq!(states.len(), 2);
    assert_eq!(states[0].event_id, first.event_id);
    assert_eq!(
        (states[0].attempts, states[0].status),
        (2, DeliveryStatus::Delivered)
    );
    assert_eq!(states[1].last_response_status, Some(204));

    assert!(
        store
            .redeliver(&second.event_id, later)
            .await
            .expect("redeliver")
    );
    let states = store.deliveries(&call.record.id).await.expect("deliveries");
    assert_eq!(states[1].status, DeliveryStatus::Pending);
    let claimed = store.claim_due(later, 10, lease).await.expect("claim");
    let redelivery = claimed
        .iter()
        .find(|p| p.event.event_id == second.event_id)
        .expect("redelivered");
    let give_up = AttemptOutcome::Failed {
        status: None,
        error: "refused".into(),
        retry_at: None,
    };
    assert_eq!(
        record(&second, redelivery.claim, give_up).await,
        RecordedAttempt::Applied
    );
    assert!(
        !store
            .redeliver("no-such-event", later)
            .await
            .expect("redeliver")
    );
    let states = store.deliveries(&call.record.id).await.expect("deliveries");
    assert_eq!(
        (states[1].status, states[1].attempts),
        (DeliveryStatus::GaveUp, 2)
    );
    assert_eq!(
        store
            .record_attempt("no-such-event", redelivery.claim, later, delivered_200())
            .await
            .expect("record"),
        RecordedAttempt::Stale,
        "an unknown event changes nothing"
    );
}

fn delivered_200() -> AttemptOutcome {
    AttemptOutcome::Delivered { status: 200 }
}

/// Claims are fair across accounts: within one claim accounts take turns
/// (each one's oldest due event, then each one's second, …, ties by due
/// time), however many events one of them has queued; across claims, an
/// account's live claims count against it, so an account with attempts in
/// flight yields to one without.
pub async fn claims_take_turns_across_accounts<S: CallStore + EventOutbox + ?Sized>(store: &S) {
    let now = base_time() + Duration::days(2 * 3650);
    let lease = std::time::Duration::from_secs(3600);
    drain(store, now, lease).await;
    let (a, b, c, d) = (
        fresh_account(),
        fresh_account(),
        fresh_account(),
        fresh_account(),
    );
    // A's backlog is due first: 200 events, one a second from 1000 s ago;
    // C's three events came later, B's one later still.
    let mut a_events = Vec::new();
    for i in 0..200 {
        let due = now - Duration::seconds(1000 - i);
        a_events.push(ended_call_with_event(store, &a, due).await);
    }
    let mut c_events = Vec::new();
    for j in 0..3 {
        let due = now - Duration::seconds(100 - j);
        c_events.push(ended_call_with_event(store, &c, due).await);
    }
    let b_event = ended_call_with_event(store, &b, now - Duration::seconds(10)).await;
    let ids = |claimed: Vec<PendingDelivery>| -> Vec<String> {
        claimed.into_iter().map(|p| p.event.event_id).collect()
    };
    let id = |event: &NewEvent| event.event_id.clone();

    let first_claim = store.claim_due(now, 10, lease).await.expect("claim");
    let a_claims: Vec<PendingDelivery> = first_claim
        .iter()
        .filter(|p| p.event.account_id == a)
        .cloned()
        .collect();
    let claimed = ids(first_claim);
    let turns = vec![
        id(&a_events[0]),
        id(&c_events[0]),
        id(&b_event),
        id(&a_events[1]),
        id(&c_events[1]),
        id(&a_events[2]),
        id(&c_events[2]),
        id(&a_events[3]),
        id(&a_events[4]),
        id(&a_events[5]),
    ];
    assert_eq!(
        claimed, turns,
        "each account's oldest event first (ties by due time), then each one's second, …; \
         B's one event is not left behind A's 200 older ones"
    );

    // A now has six claims live, D none: D's two events, the newest of all,
    // go before A's seventh.
    let d_events = [
        ended_call_with_event(store, &d, now - Duration::seconds(5)).await,
        ended_call_with_event(store, &d, now - Duration::seconds(4)).await,
    ];
    let claimed = ids(store.claim_due(now, 2, lease).await.expect("claim"));
    assert_eq!(
        claimed,
        [id(&d_events[0]), id(&d_events[1])],
        "an account with claims live yields to one without"
    );

    // Once A's attempts are recorded its claims are no longer live, while
    // D's two count against D's next event: ranked 3, it ties with A's
    // third and goes after it (due later).
    for pending in a_claims {
        let recorded = store
            .record_attempt(&pending.event.event_id, pending.claim, now, delivered_200())
            .await
            .expect("record");
        assert_eq!(recorded, RecordedAttempt::Applied);
    }
    let d_third = ended_call_with_event(store, &d, now - Duration::seconds(3)).await;
    let claimed = ids(store.claim_due(now, 4, lease).await.expect("claim"));
    assert_eq!(
        claimed,
        [
            id(&a_events[6]),
            id(&a_events[7]),
            id(&a_events[8]),
            id(&d_third)
        ],
        "recorded outcomes end A's live claims; D's two live claims rank its third event 3"
    );
}

/// Claim tokens fence outcomes: once an event's lease has lapsed and it has
/// been claimed again, an outcome under the old claim changes nothing, and
/// each claim's outcome is recorded once. An outcome under a lapsed claim
/// that no one has claimed again is still applied.
pub async fn late_outcomes_under_a_lapsed_claim_change_nothing<
    S: CallStore + EventOutbox + ?Sized,
>(
    store: &S,
) {
    let now = base_time() + Duration::days(3 * 3650);
    let lease = std::time::Duration::from_secs(60);
    let at = |secs: i64| now + Duration::seconds(secs);
    let event = ended_call_with_event(store, &fresh_account(), now).await;
    let record = |claim: ClaimToken, when: DateTime<Utc>, outcome: AttemptOutcome| {
        let event_id = event.event_id.clone();
        async move {
            store
                .record_attempt(&event_id, claim, when, outcome)
                .await
                .expect("record")
        }
    };
    let failed = |retry_at: Option<DateTime<Utc>>| AttemptOutcome::Failed {
        status: Some(503),
        error: "HTTP 503".into(),
        retry_at,
    };

    let first = claim_one(store, &event, now, lease).await.expect("due");
    assert!(
        claim_one(store, &event, at(30), lease).await.is_none(),
        "leased"
    );
    // The first worker stalls past its lease; another claims the event.
    let second = claim_one(store, &event, at(61), lease)
        .await
        .expect("handed out again after the lease");
    assert_ne!(first.claim, second.claim, "a new claim, a new token");
    assert_eq!(second.attempts, 0);

    assert_eq!(
        record(first.claim, at(62), delivered_200()).await,
        RecordedAttempt::Stale,
        "the stalled worker's outcome comes too late"
    );
    let state = state_of(store, &event).await;
    assert_eq!((state.status, state.attempts), (DeliveryStatus::Pending, 0));

    assert_eq!(
        record(second.claim, at(63), failed(Some(at(120)))).await,
        RecordedAttempt::Applied
    );
    assert_eq!(
        record(second.claim, at(64), failed(Some(at(500)))).await,
        RecordedAttempt::Stale,
        "one outcome per claim: the attempt is not counted twice"
    );
    let state = state_of(store, &event).await;
    assert_eq!(
        (state.status, state.attempts, state.next_attempt_at),
        (DeliveryStatus::Pending, 1, Some(at(120)))
    );

    let third = claim_one(store, &event, at(120), lease)
        .await
        .expect("retry due");
    assert_eq!(third.attempts, 1);
    assert_eq!(
        record(third.claim, at(121), delivered_200()).await,
        RecordedAttempt::Applied
    );
    for late in [first.claim, second.claim] {
        assert_eq!(
            record(late, at(122), failed(None)).await,
            RecordedAttempt::Stale
        );
    }
    let state = state_of(store, &event).await;
    assert_eq!(
        (state.status, state.attempts, state.next_attempt_at),
        (DeliveryStatus::Delivered, 2, None),
        "a late failure neither undoes the delivery nor counts"
    );

    // Lapsed, but not claimed again: the outcome is still the latest word.
    let other = ended_call_with_event(store, &fresh_account(), now).await;
    let claim = claim_one(store, &other, now, lease).await.expect("due");
    assert_eq!(
        store
            .record_attempt(&other.event_id, claim.claim, at(600), delivered_200())
            .await
            .expect("record"),
        RecordedAttempt::Applied
    );
    assert_eq!(
        state_of(store, &other).await.status,
        DeliveryStatus::Delivered
    );
}

/// `redeliver` invalidates an outstanding claim: the attempt in flight when
/// the host asked for redelivery records nothing, and the new claim's
/// outcome counts.
pub async fn redelivery_invalidates_an_outstanding_claim<S: CallStore + EventOutbox + ?Sized>(
    store: &S,
) {
    let now = base_time() + Duration::days(4 * 3650);
    let lease = std::time::Duration::from_secs(60);
    let later = now + Duration::seconds(1);
    let event = ended_call_with_event(store, &fresh_account(), now).await;
    let in_flight = claim_one(store, &event, now, lease).await.expect("due");
    assert!(
        store
            .redeliver(&event.event_id, later)
            .await
            .expect("redeliver")
    );
    let give_up = AttemptOutcome::Failed {
        status: None,
        error: "timed out".into(),
        retry_at: None,
    };
    assert_eq!(
        store
            .record_attempt(&event.event_id, in_flight.claim, later, give_up)
            .await
            .expect("record"),
        RecordedAttempt::Stale
    );
    let state = state_of(store, &event).await;
    assert_eq!(
        (state.status, state.attempts, state.next_attempt_at),
        (DeliveryStatus::Pending, 0, Some(later))
    );
    let again = claim_one(store, &event, later, lease)
        .await
        .expect("due again at once");
    assert_ne!(again.claim, in_flight.claim);
    assert_eq!(
        store
            .record_attempt(&event.event_id, again.claim, later, delivered_200())
            .await
            .expect("record"),
        RecordedAttempt::Applied
    );
    let state = state_of(store, &event).await;
    assert_eq!(
        (state.status, state.attempts),
        (DeliveryStatus::Delivered, 1)
    );
}

/// Whether `begin` started the key (under any token).
fn is_started(begin: &IdempotencyBegin) -> bool {
    matches!(begin, IdempotencyBegin::Started(_))
}

/// The token of a `Started` answer; panics on any other.
fn token_of(begin: IdempotencyBegin, why: &str) -> HoldToken {
    match begin {
        IdempotencyBegin::Started(token) => token,
        other => panic!("{why}: expected Started, got {other:?}"),
    }
}

/// Idempotency keys: one `Started` per key, replay after `complete`,
/// `Mismatch` for another body, `InProgress` while held, and a fresh start
/// after `abandon`, after the TTL and after a stale hold.
pub async fn idempotency_keys_replay_mismatch_and_expire<S: IdempotencyStore + ?Sized>(store: &S) {
    use std::time::Duration as Std;
    let (key, other_key) = (fresh_key(), fresh_key());
    let now = base_time();
    let (ttl, lease) = (Std::from_secs(86_400), Std::from_secs(60));
    let body = [1u8; 32];
    let begin = |k: &KeyId, name: &'static str, fp: [u8; 32], at: DateTime<Utc>| {
        let k = k.clone();
        async move {
            store
                .begin(&k, name, fp, at, ttl, lease)
                .await
                .expect("begin")
        }
    };
    let k1 = token_of(begin(&key, "k1", body, now).await, "first begin");
    assert_eq!(
        begin(&key, "k1", body, now).await,
        IdempotencyBegin::InProgress
    );
    assert_eq!(
        begin(&key, "k1", [2; 32], now).await,
        IdempotencyBegin::Mismatch
    );
    let other = token_of(
        begin(&other_key, "k1", body, now).await,
        "scoped per API key",
    );
    assert_ne!(k1, other, "each start has its own token");
    let response = StoredResponse {
        status: 201,
        body: Bytes::from_static(b"{\"callId\":\"x\"}"),
    };
    store
        .complete(&key, "k1", k1, response.clone())
        .await
        .expect("complete");
    assert_eq!(
        begin(&key, "k1", body, now + Duration::hours(23)).await,
        IdempotencyBegin::Replay(response)
    );
    assert_eq!(
        begin(&key, "k1", [2; 32], now).await,
        IdempotencyBegin::Mismatch
    );
    assert!(
        is_started(&begin(&key, "k1", body, now + Duration::hours(25)).await),
        "expired"
    );

    let k2 = token_of(begin(&key, "k2", body, now).await, "k2");
    store.abandon(&key, "k2", k2).await.expect("abandon");
    token_of(
        begin(&key, "k2", [3; 32], now).await,
        "abandoned keys are free",
    );
    token_of(
        begin(&key, "k2", [3; 32], now + Duration::seconds(61)).await,
        "stale hold taken over",
    );

    let racers = tokio::join!(
        begin(&key, "race", body, now),
        begin(&key, "race", body, now),
        begin(&key, "race", body, now),
        begin(&key, "race", body, now),
    );
    let started = [racers.0, racers.1, racers.2, racers.3]
        .iter()
        .filter(|b| is_started(b))
        .count();
    assert_eq!(started, 1, "exactly one concurrent begin starts");
}

/// Holder tokens: `renew` keeps a key held past its original lease, and a
/// holder whose lease was taken over can neither complete, abandon nor
/// renew the successor's record.
pub async fn idempotency_holders_renew_and_late_holders_change_nothing<
    S: IdempotencyStore + ?Sized,
>(
    store: &S,
) {
    use std::time::Duration as Std;
    let key = fresh_key();
    let now = base_time();
    let (ttl, lease) = (Std::from_secs(86_400), Std::from_secs(60));
    let body = [7u8; 32];
    let at = |secs: i64| now + Duration::seconds(secs);
    let begin = |name: &'static str, when: DateTime<Utc>| {
        let key = key.clone();
        async move {
            store
                .begin(&key, name, body, when, ttl, lease)
                .await
                .expect("begin")
        }
    };
    let answer = |text: &'static str| StoredResponse::new(201, Bytes::from_static(text.as_bytes()));

    // Renewed every 40 s, the key stays held for 3 minutes, well past the
    // 60 s lease counted from `begin`.
    let held = token_of(begin("renewed", now).await, "renewed");
    for secs in [40, 80, 120, 160] {
        assert!(
            store
                .renew(&key, "renewed", held, at(secs))
                .await
                .expect("renew"),
            "renew at {secs}s"
        );
        assert_eq!(
            begin("renewed", at(secs + 59)).await,
            IdempotencyBegin::InProgress,
            "held {secs}+59 s after the start"
        );
    }
    // Unrenewed for a whole lease: taken over.
    let successor = token_of(begin("renewed", at(220)).await, "stale after renewals");
    assert_ne!(successor, held);
    // The late holder can no longer renew, complete or abandon.
    assert!(
        !store
            .renew(&key, "renewed", held, at(221))
            .await
            .expect("late renew"),
        "a late holder's renew answers false"
    );
    store
        .complete(&key, "renewed", held, answer("late"))
        .await
        .expect("late complete");
    assert_eq!(
        begin("renewed", at(222)).await,
        IdempotencyBegin::InProgress,
        "a late complete stores nothing"
    );
    store
        .abandon(&key, "renewed", held)
        .await
        .expect("late abandon");
    assert_eq!(
        begin("renewed", at(223)).await,
        IdempotencyBegin::InProgress,
        "a late abandon frees nothing"
    );
    store
        .complete(&key, "renewed", successor, answer("successor"))
        .await
        .expect("complete");
    // Once completed, a late abandon cannot delete the successor's answer.
    store
        .abandon(&key, "renewed", held)
        .await
        .expect("late abandon after complete");
    store
        .abandon(&key, "renewed", successor)
        .await
        .expect("abandon after complete");
    assert_eq!(
        begin("renewed", at(300)).await,
        IdempotencyBegin::Replay(answer("successor")),
        "the completed record survives late abandons and a second complete"
    );
    store
        .complete(&key, "renewed", successor, answer("again"))
        .await
        .expect("second complete");
    assert_eq!(
        begin("renewed", at(301)).await,
        IdempotencyBegin::Replay(answer("successor")),
        "a completed answer is never overwritten"
    );
    assert!(
        !store
            .renew(&key, "renewed", successor, at(302))
            .await
            .expect("renew after complete"),
        "a completed key is no longer held"
    );

    // Without renewals a hold goes stale one lease after `begin`.
    let unrenewed = token_of(begin("plain", now).await, "plain");
    assert_eq!(begin("plain", at(59)).await, IdempotencyBegin::InProgress);
    let taker = token_of(begin("plain", at(60)).await, "taken over at the lease");
    assert_ne!(taker, unrenewed);
    store
        .abandon(&key, "plain", taker)
        .await
        .expect("abandon by the holder");
    token_of(begin("plain", at(61)).await, "freed by its holder");
}
