//! The webhook outbox: events in order, fair claims, claim tokens.

use chrono::{DateTime, Duration, Utc};

use super::fixtures::*;
use agentcall::domain::{CallStatus, EventKind};
use agentcall::store::{
    AttemptOutcome, CallStore, ClaimToken, DeliveryStatus, EventOutbox, NewEvent, PendingDelivery,
    RecordedAttempt,
};

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

/// A claim handed back unattempted counts no attempt, makes the event due
/// at the given time, and is used up.
pub async fn postponed_claims_count_no_attempt<S: CallStore + EventOutbox + ?Sized>(store: &S) {
    let now = base_time() + Duration::days(5 * 3650);
    let lease = std::time::Duration::from_secs(60);
    let later = now + Duration::seconds(2);
    let event = ended_call_with_event(store, &fresh_account(), now).await;
    let held = claim_one(store, &event, now, lease).await.expect("due");
    let postpone = AttemptOutcome::Postponed { retry_at: later };
    assert_eq!(
        store
            .record_attempt(&event.event_id, held.claim, now, postpone.clone())
            .await
            .expect("record"),
        RecordedAttempt::Applied
    );
    let state = state_of(store, &event).await;
    assert_eq!(
        (state.status, state.attempts, state.next_attempt_at),
        (DeliveryStatus::Pending, 0, Some(later))
    );
    assert_eq!(
        store
            .record_attempt(&event.event_id, held.claim, now, postpone)
            .await
            .expect("record"),
        RecordedAttempt::Stale,
        "the claim was used up"
    );
    assert!(
        claim_one(store, &event, now, lease).await.is_none(),
        "not due before the time it was postponed to"
    );
    let again = claim_one(store, &event, later, lease)
        .await
        .expect("due again");
    assert_eq!(again.attempts, 0);
    assert_eq!(
        store
            .record_attempt(&event.event_id, again.claim, later, delivered_200())
            .await
            .expect("record"),
        RecordedAttempt::Applied
    );
    assert_eq!(state_of(store, &event).await.attempts, 1);
}
