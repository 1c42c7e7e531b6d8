//! The in-memory store's own tests (retention; the conformance suite is
//! `tests/conformance.rs`).

use super::*;

fn at(seconds: i64) -> DateTime<Utc> {
    DateTime::from_timestamp(1_800_000_000 + seconds, 0).unwrap()
}

/// A call of `key` created at `created`, ended at `ended` (when given).
async fn call(store: &MemoryStore, key: &KeyId, created: i64) -> StoredCall {
    use crate::domain::CallRecord;
    let record = CallRecord::queued(CallId::generate(), "+14155550123", "objective");
    let account = "acct_retention".parse().unwrap();
    let call = StoredCall::new(record, account, key.clone(), at(created), "+14155550100");
    store.insert(&call).await.unwrap();
    call
}

async fn end(store: &MemoryStore, call: &StoredCall, ended: i64, events: Vec<NewEvent>) {
    let mut next = call.clone();
    next.record.status = crate::domain::CallStatus::Completed;
    next.record.ended_at = Some(at(ended));
    store.update(&next, events).await.unwrap();
}

#[tokio::test]
async fn retention_drops_ended_calls_and_recordings_once_events_settle() {
    use crate::domain::{ApiKey, EventKind};
    let minute = std::time::Duration::from_secs(60);
    let store = MemoryStore::with_retention(MemoryRetention::new(Some(minute * 10), Some(minute)));
    let key = ApiKey::new("retention").id();
    let first = call(&store, &key, 0).await;
    let event = NewEvent::new(
        "e1",
        first.record.id.clone(),
        first.account_id.clone(),
        EventKind::Completed,
        "https://example.com/h",
        bytes::Bytes::from_static(b"{}"),
        at(10),
    );
    end(&store, &first, 10, vec![event]).await;
    let wav = Recording::new("audio/wav", bytes::Bytes::from_static(b"RIFF"));
    store.put_recording(&first.record.id, wav).await.unwrap();
    let still_open = call(&store, &key, 20).await;

    // Two minutes on: the recording is gone, the call is kept.
    let second = call(&store, &key, 130).await;
    end(&store, &second, 130, Vec::new()).await;
    assert!(store.recording(&first.record.id).await.unwrap().is_none());
    assert!(store.get(&first.record.id).await.unwrap().is_some());

    // Past the call retention, its event is still pending: kept.
    let third = call(&store, &key, 700).await;
    end(&store, &third, 700, Vec::new()).await;
    assert!(store.get(&first.record.id).await.unwrap().is_some());

    // Delivered: dropped on a later write one period on, with its events.
    let claimed = store.claim_due(at(710), 10, minute).await.unwrap();
    assert_eq!(claimed.len(), 1);
    let delivered = AttemptOutcome::Delivered { status: 200 };
    let recorded = store
        .record_attempt("e1", claimed[0].claim, at(710), delivered)
        .await
        .unwrap();
    assert_eq!(recorded, RecordedAttempt::Applied);
    let fourth = call(&store, &key, 1400).await;
    end(&store, &fourth, 1400, Vec::new()).await;
    assert!(store.get(&first.record.id).await.unwrap().is_none());
    assert!(store.deliveries(&first.record.id).await.unwrap().is_empty());
    assert!(store.get(&second.record.id).await.unwrap().is_none());
    // The third ended more than ten minutes before the newest time too.
    assert!(store.get(&third.record.id).await.unwrap().is_none());
    // Unfinished and recent calls stay; lists never show dropped ones.
    assert!(store.get(&still_open.record.id).await.unwrap().is_some());
    let page = store.list(&ListQuery::new(key.clone(), 10)).await.unwrap();
    let listed: Vec<_> = page.calls.iter().map(|c| c.record.id.clone()).collect();
    assert_eq!(listed, [fourth.record.id.clone(), still_open.record.id]);
    let inner = store.read();
    assert_eq!(
        (inner.calls.len(), inner.events.len(), inner.by_seq.len()),
        (2, 0, 0)
    );
}

#[tokio::test]
async fn a_rejected_requests_idempotency_record_is_freed_at_once() {
    let store = MemoryStore::new();
    let key = crate::domain::ApiKey::new("idem").id();
    let day = std::time::Duration::from_secs(86_400);
    for i in 0..100 {
        let name = format!("k{i}");
        let begin = store
            .begin(&key, &name, [0; 32], at(i), day, day)
            .await
            .unwrap();
        let IdempotencyBegin::Started(token) = begin else {
            panic!("{begin:?}");
        };
        store.abandon(&key, &name, token).await.unwrap();
    }
    let inner = store.read();
    assert_eq!(
        (inner.idempotency.len(), inner.idempotency_order.len()),
        (0, 0)
    );
}

/// The engine's writes for one call: placed under a lease, ended while
/// still leased, then settled (lease released) `settle_after` seconds on.
async fn run_leased_call(store: &MemoryStore, key: &KeyId, start: i64, settle_after: i64) {
    let holder = crate::store::InstanceId::new("instance-a");
    let mut placed = call(store, key, start).await;
    placed.lease = Some(CallLease::new(holder.clone(), at(start + 30)));
    placed.version = store.update(&placed, Vec::new()).await.unwrap();
    let mut ended = placed.clone();
    ended.record.status = crate::domain::CallStatus::Completed;
    ended.record.ended_at = Some(at(start));
    ended.version = store.update(&ended, Vec::new()).await.unwrap();
    ended.settled = true;
    ended.lease = None;
    if settle_after > 0 {
        // Another call's write moves the store's clock on in between.
        let other = call(store, key, start + settle_after).await;
        end(store, &other, start + settle_after, Vec::new()).await;
    }
    store.update(&ended, Vec::new()).await.unwrap();
}

#[tokio::test]
async fn retention_queues_are_bounded_by_what_the_store_keeps() {
    let key = crate::domain::ApiKey::new("bounded").id();
    let keep_calls = std::time::Duration::from_secs(10);
    let keep_recordings = std::time::Duration::from_secs(3600);
    let store = MemoryStore::with_retention(MemoryRetention::new(
        Some(keep_calls),
        Some(keep_recordings),
    ));
    // One call a second for 5,000 seconds; every 100th has a recording,
    // every 7th is settled only 15 s after it ended (still leased when its
    // retention first runs out).
    for second in 0..5_000 {
        let settle_after = if second % 7 == 0 { 15 } else { 0 };
        run_leased_call(&store, &key, second * 2, settle_after).await;
        if second % 100 == 0 {
            let last = store.list(&ListQuery::new(key.clone(), 1)).await.unwrap();
            let wav = Recording::new("audio/wav", bytes::Bytes::from_static(b"RIFF"));
            let id = &last.calls[0].record.id;
            store.put_recording(id, wav).await.unwrap();
        }
    }
    let inner = store.read();
    let (calls_queued, recordings_queued) = inner.ended.queued();
    // 10,000 s of store time: a 10 s retention keeps the calls of the last
    // ~10 s (plus the late-settled ones, kept one period more).
    assert!(inner.calls.len() <= 30, "{} calls kept", inner.calls.len());
    assert!(calls_queued <= inner.calls.len(), "{calls_queued} queued");
    // One queue entry per recording stored within the recording retention,
    // not one per ended call (there were 5,000).
    assert!(
        recordings_queued <= 20,
        "{recordings_queued} recordings queued"
    );
    assert!(inner.recordings.len() <= 1);
}
