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
    AttemptOutcome, CallLease, CallStore, CarrierEnd, DeliveryStatus, EventOutbox, HoldToken,
    IdempotencyBegin, IdempotencyStore, InstanceId, LeaseClaim, ListQuery, NewEvent, Recording,
    StoreError, StoredCall, StoredResponse,
};
use crate::domain::{ApiKey, CallId, CallRecord, CallStatus, EventKind, KeyId};

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
    store
        .record_attempt(&first.event_id, later, failure)
        .await
        .expect("record");
    let claimed = store.claim_due(later, 10, lease).await.expect("claim");
    let mine: Vec<_> = claimed
        .iter()
        .filter(|p| p.event.call_id == call.record.id)
        .collect();
    assert_eq!(mine.len(), 1);
    assert_eq!(mine[0].event, second, "body and id are kept byte for byte");
    store
        .record_attempt(
            &second.event_id,
            later,
            AttemptOutcome::Delivered { status: 204 },
        )
        .await
        .expect("record");

    let retry = store
        .claim_due(later + Duration::seconds(5), 10, lease)
        .await
        .expect("claim");
    let again = retry
        .iter()
        .find(|p| p.event.event_id == first.event_id)
        .expect("retried");
    assert_eq!((again.attempts, &again.event), (1, &first));
    store
        .record_attempt(
            &first.event_id,
            later,
            AttemptOutcome::Delivered { status: 200 },
        )
        .await
        .expect("record");

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
    assert!(claimed.iter().any(|p| p.event.event_id == second.event_id));
    store
        .record_attempt(
            &second.event_id,
            later,
            AttemptOutcome::Delivered { status: 200 },
        )
        .await
        .expect("record");
    assert!(
        !store
            .redeliver("no-such-event", later)
            .await
            .expect("redeliver")
    );
    let give_up = AttemptOutcome::Failed {
        status: None,
        error: "refused".into(),
        retry_at: None,
    };
    store
        .record_attempt(&second.event_id, later, give_up)
        .await
        .expect("record");
    let states = store.deliveries(&call.record.id).await.expect("deliveries");
    assert_eq!(states[1].status, DeliveryStatus::GaveUp);
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
