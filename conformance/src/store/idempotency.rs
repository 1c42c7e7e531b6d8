//! Idempotency keys: replay, mismatch, expiry and holders.

use bytes::Bytes;
use chrono::{DateTime, Duration, Utc};

use super::fixtures::*;
use agentcall::domain::KeyId;
use agentcall::store::{HoldToken, IdempotencyBegin, IdempotencyStore, StoredResponse};

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
    let response = StoredResponse::new(201, Bytes::from_static(b"{\"callId\":\"x\"}"));
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
