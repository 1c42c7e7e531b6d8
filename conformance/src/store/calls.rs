//! Calls: insert, compare-and-set updates, listing and recordings.

use bytes::Bytes;
use chrono::Duration;

use super::fixtures::*;
use agentcall::domain::{CallId, CallStatus};
use agentcall::store::{CallStore, ListQuery, Recording, StoreError};

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
        let recording = Recording::new("audio/wav", Bytes::from(bytes));
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
