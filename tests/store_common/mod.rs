//! Builders and scenarios shared by the SQLite and PostgreSQL store tests.
#![allow(dead_code)]

use std::collections::BTreeMap;

use agentcall::domain::{ApiKey, CallAttempt, CallId, CallRecord, CallStatus, EventKind, KeyId};
use agentcall::store::{CallLease, InstanceId, LeaseClaim, NewEvent, StoredCall};
use bytes::Bytes;
use chrono::{DateTime, Duration, Utc};

/// A fixed instant with sub-microsecond digits, so precision loss shows.
pub fn t0() -> DateTime<Utc> {
    DateTime::parse_from_rfc3339("2026-03-04T05:06:07.123456789Z")
        .expect("valid literal")
        .to_utc()
}

/// A key id no other test (or earlier run) uses.
pub fn fresh_key() -> KeyId {
    ApiKey::new(uuid::Uuid::new_v4().to_string()).id()
}

/// A unique account id.
pub fn fresh_account() -> agentcall::domain::AccountId {
    format!("acct_{}", uuid::Uuid::new_v4().simple())
        .parse()
        .expect("valid account id")
}

/// A queued call of `key` created at `at`, with every optional part set.
pub fn call(key: &KeyId, at: DateTime<Utc>) -> StoredCall {
    let mut record = CallRecord::queued(CallId::generate(), "+14155550123", "Confirm Friday");
    record.started_at = Some(at + Duration::nanoseconds(1_234_567));
    let account_id = "acct_stores".parse().expect("valid account id");
    let mut call = StoredCall::new(record, account_id, key.clone(), at, "+14155550100");
    call.context = Some("context".into());
    call.fields = vec![agentcall::domain::FieldDefinition::new(
        "confirmed",
        agentcall::domain::FieldType::Boolean,
    )];
    call.webhook_url = Some("https://example.com/hook".into());
    call.reserved_minutes = 5;
    call.extraction_notes = BTreeMap::from([("confirmed".into(), "not said".into())]);
    call
}

/// The event a move of `call` into `status` emits at `at`.
pub fn event(call: &StoredCall, status: CallStatus, at: DateTime<Utc>) -> NewEvent {
    let kind = EventKind::for_status(status).expect("status emits an event");
    NewEvent::new(
        format!("{}:{}:{}", call.record.id, kind, at.timestamp_millis()),
        call.record.id.clone(),
        call.account_id.clone(),
        kind,
        "https://example.com/hook",
        Bytes::from(format!("{{\"event\":\"{kind}\",\"n\":\"\u{e9}\"}}")),
        at,
    )
}

/// `call` moved to `status` (same version: ready for `update`).
pub fn moved(call: &StoredCall, status: CallStatus) -> StoredCall {
    let mut next = call.clone();
    next.record.status = status;
    next
}

use std::collections::BTreeSet;
use std::sync::Arc;
use std::time::Duration as Std;

use agentcall::guardrails::{ReserveError, Usage, UsageLedger};
use agentcall::store::{
    AttemptOutcome, CallStore, ClaimToken, DeliveryStatus, EventOutbox, HoldToken,
    IdempotencyBegin, IdempotencyStore, ListQuery, RecordedAttempt, Recording, StoreError,
    StoredResponse,
};
use tokio::task::JoinSet;

const TTL: Std = Std::from_secs(86_400);
const LEASE: Std = Std::from_secs(60);

/// What [`populate`] wrote, for [`verify`] to find again.
#[derive(Debug)]
pub struct Written {
    call: StoredCall,
    first: NewEvent,
    second: NewEvent,
    retry_at: DateTime<Utc>,
    recording: Recording,
    response: StoredResponse,
    account: agentcall::domain::AccountId,
}

/// Writes one of everything: a call moved twice with its two events (the
/// first attempted and failed, the second pending), a recording, a completed
/// and a held idempotency key, and minute usage.
pub async fn populate<S, L>(store: &S, ledger: &L) -> Written
where
    S: CallStore + EventOutbox + IdempotencyStore,
    L: UsageLedger,
{
    let key = fresh_key();
    let created = call(&key, t0());
    store.insert(&created).await.expect("insert");
    let answered = moved(&created, CallStatus::InProgress);
    let first = event(
        &answered,
        CallStatus::InProgress,
        t0() + Duration::seconds(1),
    );
    assert_eq!(
        store
            .update(&answered, vec![first.clone()])
            .await
            .expect("update"),
        1
    );
    let claimed = store
        .claim_due(t0() + Duration::seconds(2), 100, LEASE)
        .await
        .expect("claim");
    let claim = claimed
        .iter()
        .find(|p| p.event == first)
        .expect("claimed")
        .claim;
    let retry_at = t0() + Duration::seconds(30);
    let failure = AttemptOutcome::Failed {
        status: Some(503),
        error: "HTTP 503".into(),
        retry_at: Some(retry_at),
    };
    let recorded = store
        .record_attempt(&first.event_id, claim, t0() + Duration::seconds(2), failure)
        .await
        .expect("record");
    assert_eq!(recorded, RecordedAttempt::Applied);
    let mut done = moved(&answered, CallStatus::Completed);
    done.version = 1;
    done.record.summary = Some("Confirmed.".into());
    done.record.ended_at = Some(t0() + Duration::milliseconds(2_500));
    done.record.duration_sec = Some(2);
    done.record.extracted = serde_json::json!({"confirmed": true}).as_object().cloned();
    let second = event(&done, CallStatus::Completed, t0() + Duration::seconds(3));
    assert_eq!(
        store
            .update(&done, vec![second.clone()])
            .await
            .expect("update"),
        2
    );
    let recording = Recording::new("audio/wav", Bytes::from_static(b"RIFF\x00\x01\xff"));
    store
        .put_recording(&done.record.id, recording.clone())
        .await
        .expect("recording");

    let response = StoredResponse::new(201, Bytes::from_static(b"{\"callId\":\"c\"}"));
    let mut tokens = Vec::new();
    for (name, fingerprint) in [("k-done", [1; 32]), ("k-held", [2; 32])] {
        let begin = store
            .begin(&key, name, fingerprint, t0(), TTL, LEASE)
            .await
            .expect("begin");
        let IdempotencyBegin::Started(token) = begin else {
            panic!("expected Started, got {begin:?}");
        };
        tokens.push(token);
    }
    store
        .complete(&key, "k-done", tokens[0], response.clone())
        .await
        .expect("complete");

    let account = fresh_account();
    let settled = CallAttempt::first(CallId::generate());
    assert_eq!(
        ledger.reserve(&account, &settled, t0(), 25, 10).await.ok(),
        Some(10)
    );
    ledger
        .settle(&account, &settled, t0(), 10, 3)
        .await
        .expect("settle");
    let held = CallAttempt::first(CallId::generate());
    assert_eq!(
        ledger.reserve(&account, &held, t0(), 25, 10).await.ok(),
        Some(10)
    );

    done.version = 2;
    Written {
        call: done,
        first,
        second,
        retry_at,
        recording,
        response,
        account,
    }
}

/// Finds everything [`populate`] wrote, as it was written.
pub async fn verify<S, L>(store: &S, ledger: &L, written: &Written)
where
    S: CallStore + EventOutbox + IdempotencyStore,
    L: UsageLedger,
{
    let call = &written.call;
    let id = &call.record.id;
    assert_eq!(store.get(id).await.expect("get").as_ref(), Some(call));
    let page = store
        .list(&ListQuery::new(call.key_id.clone(), 10))
        .await
        .expect("list");
    assert_eq!((page.calls, page.has_more), (vec![call.clone()], false));
    // An ended, settled call holds no lease: no takeover ever takes it.
    let far = t0() + Duration::days(36_500);
    let claim = LeaseClaim::new(InstanceId::generate(), far, far, 100);
    assert!(
        store
            .claim_lapsed(&claim)
            .await
            .expect("claim")
            .iter()
            .all(|c| c.record.id != *id)
    );
    assert_eq!(
        store.recording(id).await.expect("recording").as_ref(),
        Some(&written.recording)
    );

    let states = store.deliveries(id).await.expect("deliveries");
    assert_eq!(states.len(), 2);
    assert_eq!(states[0].event_id, written.first.event_id);
    assert_eq!(
        (
            states[0].status,
            states[0].attempts,
            states[0].last_response_status,
            states[0].last_error.as_deref(),
            states[0].next_attempt_at
        ),
        (
            DeliveryStatus::Pending,
            1,
            Some(503),
            Some("HTTP 503"),
            Some(written.retry_at)
        )
    );
    assert_eq!(
        (
            states[1].status,
            states[1].attempts,
            states[1].next_attempt_at
        ),
        (
            DeliveryStatus::Pending,
            0,
            Some(written.second.first_attempt_at)
        )
    );
    let due = store
        .claim_due(written.retry_at, 100, LEASE)
        .await
        .expect("claim");
    let mine: Vec<_> = due.iter().filter(|p| p.event.call_id == *id).collect();
    assert_eq!(mine.len(), 2, "both events are due: {mine:?}");
    // Oldest due first: the second event has been due since its creation.
    assert_eq!((mine[0].attempts, &mine[0].event), (0, &written.second));
    assert_eq!((mine[1].attempts, &mine[1].event), (1, &written.first));

    let begin = |name: &'static str, fingerprint: [u8; 32]| {
        store.begin(
            &call.key_id,
            name,
            fingerprint,
            t0() + Duration::seconds(1),
            TTL,
            LEASE,
        )
    };
    assert_eq!(
        begin("k-done", [1; 32]).await.expect("begin"),
        IdempotencyBegin::Replay(written.response.clone())
    );
    assert_eq!(
        begin("k-held", [2; 32]).await.expect("begin"),
        IdempotencyBegin::InProgress
    );
    assert_eq!(
        ledger.usage(&written.account, t0()).await.expect("usage"),
        Usage::new(3, 10)
    );
}

const EMITTING: [CallStatus; 6] = [
    CallStatus::InProgress,
    CallStatus::Completed,
    CallStatus::NoAnswer,
    CallStatus::Voicemail,
    CallStatus::Declined,
    CallStatus::Failed,
];

/// 64 concurrent updates from one version, alternating between two handles
/// on one database: exactly one wins, and only its event enters the outbox.
pub async fn concurrent_updates_move_once<S>(stores: [Arc<S>; 2])
where
    S: CallStore + EventOutbox + 'static,
{
    let original = call(&fresh_key(), t0());
    stores[0].insert(&original).await.expect("insert");
    let mut tasks = JoinSet::new();
    for i in 0..64 {
        let store = Arc::clone(&stores[i % 2]);
        let status = EMITTING[i % EMITTING.len()];
        let next = moved(&original, status);
        let emitted = event(&next, status, t0() + Duration::milliseconds(i as i64));
        tasks.spawn(async move { (status, store.update(&next, vec![emitted]).await) });
    }
    let results = tasks.join_all().await;
    let winners: Vec<_> = results.iter().filter(|(_, r)| r.is_ok()).collect();
    assert_eq!(winners.len(), 1, "exactly one update wins: {results:?}");
    assert!(
        results
            .iter()
            .all(|(_, r)| matches!(r, Ok(1) | Err(StoreError::Conflict { expected: 0, .. })))
    );
    let stored = stores[1]
        .get(&original.record.id)
        .await
        .expect("get")
        .expect("present");
    assert_eq!((stored.version, stored.record.status), (1, winners[0].0));
    let states = stores[0]
        .deliveries(&original.record.id)
        .await
        .expect("deliveries");
    assert_eq!(states.len(), 1, "only the winner's event is queued");
    assert_eq!(Some(states[0].kind), EventKind::for_status(winners[0].0));
}

/// 64 concurrent reservations through two ledgers: they add up to the cap
/// exactly, and settling them all leaves only what was billed.
pub async fn reservations_never_pass_the_cap<L: UsageLedger + 'static>(ledgers: [Arc<L>; 2]) {
    let account = fresh_account();
    let mut tasks = JoinSet::new();
    for i in 0..64 {
        let ledger = Arc::clone(&ledgers[i % 2]);
        let account = account.clone();
        let attempt = CallAttempt::first(CallId::generate());
        tasks.spawn(async move {
            let reserved = ledger.reserve(&account, &attempt, t0(), 100, 7).await;
            reserved.map(|grant| (attempt, grant))
        });
    }
    let results = tasks.join_all().await;
    assert!(
        results
            .iter()
            .all(|r| matches!(r, Ok(_) | Err(ReserveError::OverCap))),
        "only the cap refuses: {results:?}"
    );
    let grants: Vec<(CallAttempt, u64)> = results.into_iter().flatten().collect();
    assert_eq!(
        grants.iter().map(|(_, grant)| grant).sum::<u64>(),
        100,
        "grants: {grants:?}"
    );
    assert_eq!(
        ledgers[0].usage(&account, t0()).await.expect("usage"),
        Usage::new(0, 100)
    );
    // Every call settled through both handles at once (a call recovered by
    // a second instance while the first still settles it): each counts once.
    let mut tasks = JoinSet::new();
    for (call, grant) in grants.iter().cloned() {
        for ledger in &ledgers {
            let (ledger, account, call) = (Arc::clone(ledger), account.clone(), call.clone());
            tasks
                .spawn(async move { ledger.settle(&account, &call, t0(), grant, grant / 2).await });
        }
    }
    for settled in tasks.join_all().await {
        settled.expect("settle");
    }
    assert_eq!(
        ledgers[1].usage(&account, t0()).await.expect("usage"),
        Usage::new(grants.iter().map(|(_, g)| g / 2).sum(), 0),
        "each call settled once"
    );
}

/// A retried call reserves and settles each attempt on its own: both
/// attempts count, each once however often it is settled.
pub async fn each_attempt_settles_once<L: UsageLedger>(ledger: &L) {
    let account = fresh_account();
    let call = CallId::generate();
    let (first, second) = (CallAttempt::new(call.clone(), 1), CallAttempt::new(call, 2));
    assert_eq!(
        ledger.reserve(&account, &first, t0(), 100, 10).await.ok(),
        Some(10)
    );
    for _ in 0..2 {
        ledger
            .settle(&account, &first, t0(), 10, 1)
            .await
            .expect("settle");
    }
    assert_eq!(
        ledger.usage(&account, t0()).await.expect("usage"),
        Usage::new(1, 0)
    );
    assert_eq!(
        ledger.reserve(&account, &second, t0(), 100, 10).await.ok(),
        Some(10)
    );
    assert_eq!(
        ledger.usage(&account, t0()).await.expect("usage"),
        Usage::new(1, 10)
    );
    for _ in 0..2 {
        ledger
            .settle(&account, &second, t0(), 10, 4)
            .await
            .expect("settle");
    }
    assert_eq!(
        ledger.usage(&account, t0()).await.expect("usage"),
        Usage::new(5, 0)
    );
    // Two instances raced to start the third attempt: the loser releases
    // its reservation, which leaves the winner's to be settled.
    let third = CallAttempt::new(second.call.clone(), 3);
    for _ in 0..2 {
        assert_eq!(
            ledger.reserve(&account, &third, t0(), 100, 10).await.ok(),
            Some(10)
        );
    }
    ledger
        .release(&account, &third, t0(), 10)
        .await
        .expect("release");
    assert_eq!(
        ledger.usage(&account, t0()).await.expect("usage"),
        Usage::new(5, 10)
    );
    ledger
        .settle(&account, &third, t0(), 10, 2)
        .await
        .expect("settle");
    assert_eq!(
        ledger.usage(&account, t0()).await.expect("usage"),
        Usage::new(7, 0)
    );
}

/// Workers on two handles claim concurrently: every due event is handed out
/// exactly once per lease, and a call's second event waits for its first.
pub async fn claims_are_never_handed_out_twice<S>(stores: [Arc<S>; 2])
where
    S: CallStore + EventOutbox + 'static,
{
    let now = t0() + Duration::hours(1);
    let key = fresh_key();
    let (mut firsts, mut seconds) = (BTreeSet::new(), BTreeSet::new());
    for i in 0..40 {
        let created = call(&key, t0() + Duration::milliseconds(i));
        stores[0].insert(&created).await.expect("insert");
        let answered = moved(&created, CallStatus::InProgress);
        let first = event(
            &answered,
            CallStatus::InProgress,
            now - Duration::seconds(10),
        );
        stores[1]
            .update(&answered, vec![first.clone()])
            .await
            .expect("update");
        let mut done = moved(&answered, CallStatus::Completed);
        done.version = 1;
        let second = event(&done, CallStatus::Completed, now - Duration::seconds(5));
        stores[0]
            .update(&done, vec![second.clone()])
            .await
            .expect("update");
        firsts.insert(first.event_id);
        seconds.insert(second.event_id);
    }

    let ours: BTreeSet<String> = firsts.union(&seconds).cloned().collect();
    // What the workers claimed of ours, with each claim's token.
    let claim_all = |at: DateTime<Utc>| {
        let mut tasks = JoinSet::new();
        for worker in 0..6 {
            let store = Arc::clone(&stores[worker % 2]);
            tasks.spawn(async move {
                let mut claimed = Vec::new();
                loop {
                    let batch = store.claim_due(at, 4, LEASE).await.expect("claim");
                    if batch.is_empty() {
                        return claimed;
                    }
                    claimed.extend(batch.into_iter().map(|p| (p.event.event_id, p.claim)));
                }
            });
        }
        let ours = &ours;
        async move {
            // Events of other tests sharing the database are left aside.
            let all: Vec<(String, ClaimToken)> = tasks
                .join_all()
                .await
                .into_iter()
                .flatten()
                .filter(|(id, _)| ours.contains(id))
                .collect();
            let distinct: BTreeMap<String, ClaimToken> = all.iter().cloned().collect();
            assert_eq!(all.len(), distinct.len(), "an event was handed out twice");
            distinct
        }
    };
    let ids = |claimed: &BTreeMap<String, ClaimToken>| -> BTreeSet<String> {
        claimed.keys().cloned().collect()
    };

    let first_claims = claim_all(now).await;
    assert_eq!(
        ids(&first_claims),
        firsts,
        "second events wait for the first"
    );
    assert!(claim_all(now).await.is_empty(), "claimed events are leased");
    for (event_id, claim) in &first_claims {
        let outcome = AttemptOutcome::Failed {
            status: Some(500),
            error: "HTTP 500".into(),
            retry_at: Some(now + Duration::hours(1)),
        };
        let recorded = stores[0]
            .record_attempt(event_id, *claim, now, outcome)
            .await
            .expect("record");
        assert_eq!(recorded, RecordedAttempt::Applied);
    }
    let second_claims = claim_all(now).await;
    assert_eq!(ids(&second_claims), seconds);
    assert!(claim_all(now + Duration::seconds(59)).await.is_empty());
    let reclaimed = claim_all(now + Duration::seconds(61)).await;
    assert_eq!(
        ids(&reclaimed),
        seconds,
        "an expired lease hands the event out again, once"
    );
    for (event_id, claim) in &reclaimed {
        assert_ne!(Some(claim), second_claims.get(event_id), "a new token");
    }
}

/// Takeovers racing through two handles (two "instances"), while the
/// holder renews some leases: every lapsed call is taken exactly once, and
/// a call renewed before the takeovers began is never taken.
pub async fn lease_claims_are_never_handed_out_twice<S>(stores: [Arc<S>; 2])
where
    S: CallStore + 'static,
{
    let holder = InstanceId::generate();
    let key = fresh_key();
    let lapsed_at = t0() + Duration::seconds(10);
    let mut lapsed = BTreeSet::new();
    let mut kept = BTreeSet::new();
    for i in 0..60 {
        let mut created = call(&key, t0() + Duration::milliseconds(i));
        created.lease = Some(CallLease::new(
            holder.clone(),
            lapsed_at + Duration::milliseconds(i),
        ));
        stores[i as usize % 2]
            .insert(&created)
            .await
            .expect("insert");
        lapsed.insert(created.record.id);
    }
    // Another holder's calls, renewed in time: never taken.
    let other = InstanceId::generate();
    for i in 0..10 {
        let mut created = call(&key, t0() + Duration::milliseconds(i));
        created.lease = Some(CallLease::new(other.clone(), lapsed_at));
        stores[0].insert(&created).await.expect("insert");
        kept.insert(created.record.id);
    }
    let now = t0() + Duration::seconds(60);
    let kept_ids: Vec<CallId> = kept.iter().cloned().collect();
    assert_eq!(
        stores[1]
            .renew_leases(&other, &kept_ids, now + Duration::seconds(30))
            .await
            .expect("renew")
            .len(),
        10
    );
    let mut tasks = JoinSet::new();
    for worker in 0..6 {
        let store = Arc::clone(&stores[worker % 2]);
        let taker = InstanceId::generate();
        tasks.spawn(async move {
            let mut taken = Vec::new();
            loop {
                let claim = LeaseClaim::new(taker.clone(), now, now + Duration::seconds(30), 7);
                let batch = store.claim_lapsed(&claim).await.expect("claim");
                if batch.is_empty() {
                    return taken;
                }
                for call in &batch {
                    assert_eq!(call.lease.as_ref().map(|l| &l.holder), Some(&taker));
                }
                taken.extend(batch.into_iter().map(|c| c.record.id));
            }
        });
    }
    let all: Vec<CallId> = tasks.join_all().await.into_iter().flatten().collect();
    let distinct: BTreeSet<CallId> = all.iter().cloned().collect();
    assert_eq!(all.len(), distinct.len(), "a call was taken over twice");
    assert_eq!(
        distinct, lapsed,
        "every lapsed call is taken, and only those"
    );
    assert!(distinct.is_disjoint(&kept));
}

/// Concurrent `begin`s through two handles: exactly one starts, on a fresh
/// key and on a stale hold; a different body is a mismatch for everyone.
pub async fn one_begin_starts<S: IdempotencyStore + 'static>(stores: [Arc<S>; 2]) {
    let key = fresh_key();
    let race = |at: DateTime<Utc>, fingerprint: [u8; 32]| {
        let mut tasks = JoinSet::new();
        for i in 0..32 {
            let store = Arc::clone(&stores[i % 2]);
            let key = key.clone();
            tasks.spawn(async move {
                store
                    .begin(&key, "race", fingerprint, at, TTL, LEASE)
                    .await
                    .expect("begin")
            });
        }
        tasks.join_all()
    };
    let count = |answers: &[IdempotencyBegin], wanted: &IdempotencyBegin| {
        let started = |a: &IdempotencyBegin| matches!(a, IdempotencyBegin::Started(_));
        answers
            .iter()
            .filter(|a| *a == wanted || (started(a) && started(wanted)))
            .count()
    };
    let answers = race(t0(), [7; 32]).await;
    assert_eq!(
        count(&answers, &IdempotencyBegin::Started(HoldToken::generate())),
        1,
        "{answers:?}"
    );
    assert_eq!(count(&answers, &IdempotencyBegin::InProgress), 31);
    let answers = race(t0() + Duration::seconds(61), [7; 32]).await;
    assert_eq!(
        count(&answers, &IdempotencyBegin::Started(HoldToken::generate())),
        1,
        "stale: {answers:?}"
    );
    assert_eq!(count(&answers, &IdempotencyBegin::InProgress), 31);
    let answers = race(t0() + Duration::seconds(62), [8; 32]).await;
    assert_eq!(count(&answers, &IdempotencyBegin::Mismatch), 32);
}
