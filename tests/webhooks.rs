//! Webhook delivery against real receivers on loopback sockets: retries
//! through every kind of failure, ordering, isolation from dead endpoints,
//! and fairness between tenants.

mod common;

use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use agentcall::store::DeliveryStatus;
use agentcall::webhook::{DeliveryConfig, Verifier};
use agentcall::{Api, ApiKey, CallId};
use common::*;
use serde_json::{Value, json};

fn patient_delivery() -> DeliveryConfig {
    DeliveryConfig {
        schedule: vec![Duration::ZERO]
            .into_iter()
            .chain(std::iter::repeat_n(Duration::from_millis(100), 11))
            .collect(),
        timeout: Duration::from_millis(300),
        // These tests follow each event's own retries through failures that
        // every event meets in turn; the per-endpoint breaker (unit-tested
        // in the crate) would rightly hold them all back for a minute.
        breaker_threshold: u32::MAX,
        ..DeliveryConfig::default()
    }
}

/// Fails the first attempts of every event in a different way each time:
/// 500, then a redirect, then a hang past the timeout; then accepts.
fn flaky() -> Behaviour {
    let attempts: Arc<Mutex<HashMap<String, usize>>> = Arc::default();
    Arc::new(move |_, event: &Value| {
        let id = event["eventId"].as_str().unwrap_or_default().to_owned();
        let mut attempts = attempts.lock().unwrap();
        let n = attempts.entry(id).or_default();
        *n += 1;
        match *n {
            1 => Answer::Status(500),
            2 => Answer::Redirect,
            3 => Answer::Hang(Duration::from_secs(2)),
            _ => Answer::Status(200),
        }
    })
}

#[tokio::test]
async fn every_event_is_delivered_through_refusals_errors_redirects_and_timeouts() {
    // The receiver's port is closed at first: early attempts are refused.
    let probe = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let address = probe.local_addr().unwrap();
    drop(probe);
    let url = format!("http://{address}/hooks");

    let service = builder().delivery(patient_delivery()).build().unwrap();
    let api = Api::new(service.clone());
    let mut calls = Vec::new();
    for to in [
        "+14155550121",
        "+14155550122",
        "+14155550123",
        "+14155550124",
        "+14155550125",
    ] {
        let id = place(
            &api,
            KEY_A1,
            json!({"to": to, "objective": "Check in", "webhookUrl": url}),
        )
        .await;
        calls.push(id);
    }
    for id in &calls {
        wait_terminal(&api, KEY_A1, id).await;
    }
    let principal = service
        .authenticate(&ApiKey::new(KEY_A1))
        .await
        .unwrap()
        .unwrap();
    let refused = async {
        for _ in 0..500 {
            let states = service
                .deliveries(&principal, &calls[4].parse::<CallId>().unwrap())
                .await
                .unwrap();
            if states.iter().any(|s| s.attempts > 0) {
                return states;
            }
            tokio::time::sleep(Duration::from_millis(5)).await;
        }
        panic!("no attempt was made");
    };
    let states = refused.await;
    assert!(
        states
            .iter()
            .any(|s| s.last_error.as_deref().is_some_and(|e| !e.is_empty())),
        "{states:?}"
    );

    let receiver = Receiver::start_on(address, flaky()).await;
    // One terminal event each, and in_progress for the connected calls
    // (voicemail and completed; issue 12 made voicemail a connected call).
    let expected = 1 + 2 + 1 + 1 + 2;
    receiver
        .wait_for(|r| {
            r.iter()
                .filter(|x| x.json()["eventId"].is_string())
                .map(|x| x.json()["eventId"].as_str().unwrap().to_owned())
                .collect::<std::collections::HashSet<_>>()
                .len()
                == expected
                && {
                    // every event has reached its successful (4th) attempt
                    let mut counts: HashMap<String, usize> = HashMap::new();
                    for x in r {
                        *counts
                            .entry(x.json()["eventId"].as_str().unwrap().to_owned())
                            .or_default() += 1;
                    }
                    counts.values().all(|n| *n >= 4)
                }
        })
        .await;

    let verifier = Verifier::new([SECRET_A.into()]);
    let mut bodies: HashMap<String, Vec<u8>> = HashMap::new();
    for request in receiver.requests() {
        verifier
            .verify(
                &request.body,
                Some(&request.signature),
                chrono::Utc::now().timestamp(),
            )
            .expect("every attempt is signed");
        let event_id = request.json()["eventId"].as_str().unwrap().to_owned();
        let body = bodies
            .entry(event_id)
            .or_insert_with(|| request.body.to_vec());
        assert_eq!(
            body,
            &request.body.to_vec(),
            "a retry resends the same bytes"
        );
    }
    // The receiver answers the last attempt before the service records
    // it: wait (boundedly) for every delivery to be recorded as such.
    for id in &calls {
        let call: CallId = id.parse().unwrap();
        let mut states = Vec::new();
        for _ in 0..2_000 {
            states = service.deliveries(&principal, &call).await.unwrap();
            if !states.is_empty()
                && states
                    .iter()
                    .all(|state| state.status == DeliveryStatus::Delivered)
            {
                break;
            }
            tokio::time::sleep(Duration::from_millis(5)).await;
        }
        assert!(!states.is_empty());
        for state in states {
            assert_eq!(state.status, DeliveryStatus::Delivered, "{state:?}");
            assert!(state.attempts >= 4, "{state:?}");
        }
    }
}

#[tokio::test]
async fn in_progress_is_attempted_before_the_terminal_event() {
    // Every first attempt fails, so both events of the call are retried; the
    // terminal event must still not be attempted before in_progress was.
    let receiver = Receiver::with(Arc::new(|n, _| {
        if n < 2 {
            Answer::Status(503)
        } else {
            Answer::Status(204)
        }
    }))
    .await;
    let service = builder().delivery(patient_delivery()).build().unwrap();
    let api = Api::new(service);
    for _ in 0..5 {
        let id = place(
            &api,
            KEY_A1,
            json!({"to": "+14155550125", "objective": "Order", "webhookUrl": receiver.url}),
        )
        .await;
        wait_terminal(&api, KEY_A1, &id).await;
        receiver
            .wait_for(|r| {
                r.iter()
                    .filter(|x| {
                        x.json()["callId"] == id.as_str() && x.json()["event"] == "call.completed"
                    })
                    .count()
                    >= 1
            })
            .await;
        let first = receiver
            .for_call(&id)
            .first()
            .map(|r| r.json()["event"].as_str().unwrap().to_owned());
        assert_eq!(first.as_deref(), Some("call.in_progress"));
    }
}

#[tokio::test]
async fn a_dead_endpoint_does_not_delay_other_calls() {
    let dead = Receiver::with(Arc::new(|_, _| Answer::Hang(Duration::from_secs(30)))).await;
    let alive = Receiver::start().await;
    let slow_timeout = DeliveryConfig {
        timeout: Duration::from_secs(20),
        ..patient_delivery()
    };
    let service = builder().delivery(slow_timeout).build().unwrap();
    let api = Api::new(service.clone());
    let stuck = place(
        &api,
        KEY_A1,
        json!({"to": "+14155550124", "objective": "x", "webhookUrl": dead.url}),
    )
    .await;
    dead.wait_for(|r| !r.is_empty()).await; // its first attempt is now hanging
    let mut others = Vec::new();
    for _ in 0..3 {
        others.push(
            place(
                &api,
                KEY_A1,
                json!({"to": "+14155550125", "objective": "y", "webhookUrl": alive.url}),
            )
            .await,
        );
    }
    alive.wait_for(|r| r.len() >= 6).await;
    let principal = service
        .authenticate(&ApiKey::new(KEY_A1))
        .await
        .unwrap()
        .unwrap();
    let stuck_states = service
        .deliveries(&principal, &stuck.parse().unwrap())
        .await
        .unwrap();
    assert_eq!(stuck_states.len(), 1);
    assert_eq!(
        (stuck_states[0].attempts, stuck_states[0].status),
        (0, DeliveryStatus::Pending),
        "still hanging while the others were delivered"
    );
    for id in others {
        // The receiver has the requests; the outcomes are recorded just after
        // each answer, so give the last ones a moment (bounded) to land.
        let mut states = Vec::new();
        for _ in 0..200 {
            states = service
                .deliveries(&principal, &id.parse().unwrap())
                .await
                .unwrap();
            if states.iter().all(|s| s.status == DeliveryStatus::Delivered) {
                break;
            }
            tokio::time::sleep(Duration::from_millis(10)).await;
        }
        assert!(
            states.iter().all(|s| s.status == DeliveryStatus::Delivered),
            "{states:?}"
        );
    }
}

#[tokio::test]
async fn retry_after_on_429_postpones_the_retry_within_bounds() {
    let receiver = Receiver::with(Arc::new(|_, _| Answer::RetryAfter(429, 3_600))).await;
    let config = DeliveryConfig {
        schedule: vec![Duration::ZERO, Duration::from_millis(10)],
        max_retry_after: Duration::from_secs(5),
        ..patient_delivery()
    };
    let service = builder().delivery(config).build().unwrap();
    let api = Api::new(service.clone());
    let id = place(
        &api,
        KEY_A1,
        json!({"to": "+14155550121", "objective": "x", "webhookUrl": receiver.url}),
    )
    .await;
    let principal = service
        .authenticate(&ApiKey::new(KEY_A1))
        .await
        .unwrap()
        .unwrap();
    let call: CallId = id.parse().unwrap();
    let state = loop {
        let state = service.deliveries(&principal, &call).await.unwrap().pop();
        if let Some(state) = state.filter(|s| s.attempts == 1) {
            break state;
        }
        tokio::time::sleep(Duration::from_millis(5)).await;
    };
    assert_eq!(state.last_response_status, Some(429));
    let next = state.next_attempt_at.expect("a retry is scheduled");
    let wait = (next - chrono::Utc::now()).num_milliseconds();
    // The schedule alone says 10 ms; the receiver asked for an hour, capped at 5 s.
    assert!((1_000..=5_000).contains(&wait), "next attempt in {wait} ms");
    assert_eq!(receiver.requests().len(), 1);
}

#[tokio::test]
async fn given_up_events_can_be_redelivered() {
    let receiver = Receiver::with(Arc::new(|n, _| match n {
        0 => Answer::Status(429),
        _ => Answer::Status(410),
    }))
    .await;
    let short = DeliveryConfig {
        schedule: vec![Duration::ZERO, Duration::from_millis(10)],
        timeout: Duration::from_millis(300),
        ..DeliveryConfig::default()
    };
    let service = builder().delivery(short).build().unwrap();
    let api = Api::new(service.clone());
    let id = place(
        &api,
        KEY_A1,
        json!({"to": "+14155550121", "objective": "x", "webhookUrl": receiver.url}),
    )
    .await;
    receiver.wait_for(|r| r.len() >= 2).await;
    let principal = service
        .authenticate(&ApiKey::new(KEY_A1))
        .await
        .unwrap()
        .unwrap();
    let call: CallId = id.parse().unwrap();
    let state = loop {
        let state = service
            .deliveries(&principal, &call)
            .await
            .unwrap()
            .remove(0);
        if state.status == DeliveryStatus::GaveUp {
            break state;
        }
        tokio::time::sleep(Duration::from_millis(10)).await;
    };
    assert_eq!((state.attempts, state.last_response_status), (2, Some(410)));
    // Another key (even of the same account) cannot redeliver it.
    let other = service
        .authenticate(&ApiKey::new(KEY_A2))
        .await
        .unwrap()
        .unwrap();
    assert!(!service.redeliver(&other, &state.event_id).await.unwrap());
    assert!(
        service
            .redeliver(&principal, &state.event_id)
            .await
            .unwrap()
    );
    receiver.wait_for(|r| r.len() >= 3).await;
    let bodies: Vec<_> = receiver.requests().iter().map(|r| r.body.clone()).collect();
    assert!(
        bodies.windows(2).all(|w| w[0] == w[1]),
        "redelivery resends the same event"
    );
    assert!(
        !service
            .redeliver(&principal, "no-such-event")
            .await
            .unwrap()
    );
}

#[tokio::test]
async fn targets_outside_loopback_policy_are_refused_by_the_ssrf_guard() {
    // With the development option off, a loopback receiver is never contacted.
    let receiver = Receiver::start().await;
    let mut config = guardrail_config();
    config.allow_insecure_loopback_webhooks = false;
    // A name, not an address literal: literals the guard forbids are refused
    // at placement already; a name is judged by what it resolves to.
    let https_to_loopback = receiver
        .url
        .replace("http://127.0.0.1", "https://localhost");
    assert_ne!(https_to_loopback, receiver.url);
    let service = builder()
        .guardrails(agentcall::Guardrails::new(config))
        .delivery(DeliveryConfig {
            schedule: vec![Duration::ZERO],
            ..patient_delivery()
        })
        .build()
        .unwrap();
    let api = Api::new(service.clone());
    let id = place(
        &api,
        KEY_A1,
        json!({"to": "+14155550124", "objective": "x", "webhookUrl": https_to_loopback}),
    )
    .await;
    let principal = service
        .authenticate(&ApiKey::new(KEY_A1))
        .await
        .unwrap()
        .unwrap();
    let call: CallId = id.parse().unwrap();
    let state = loop {
        let states = service.deliveries(&principal, &call).await.unwrap();
        if let Some(state) = states
            .into_iter()
            .find(|s| s.status == DeliveryStatus::GaveUp)
        {
            break state;
        }
        tokio::time::sleep(Duration::from_millis(10)).await;
    };
    assert!(
        state.last_error.as_deref().unwrap().contains("forbidden"),
        "{state:?}"
    );
    assert!(receiver.requests().is_empty());
    // The address literal itself never gets that far.
    let literal = receiver.url.replace("http://", "https://");
    let body = json!({"to": "+14155550124", "objective": "x", "webhookUrl": literal});
    let (status, _, bytes) = send(&api, post(Some(KEY_A1), body.to_string())).await;
    assert_eq!(
        (status, json(&bytes)["error"].as_str()),
        (http::StatusCode::BAD_REQUEST, Some("invalid_webhook_url"))
    );
}

#[tokio::test]
async fn one_tenants_black_holed_endpoint_cannot_hold_back_another_tenants_events() {
    // Tenant A's endpoint accepts connections and never answers; the attempt
    // timeout is far longer than this test, so every slot it is given stays
    // taken for the whole test.
    let dead = Receiver::with(Arc::new(|_, _| Answer::Hang(Duration::from_secs(120)))).await;
    let alive = Receiver::start().await;
    let config = DeliveryConfig {
        schedule: vec![Duration::ZERO],
        timeout: Duration::from_secs(60),
        concurrency: 4,
        per_endpoint_concurrency: 2,
        ..DeliveryConfig::default()
    };
    let service = builder().delivery(config).build().unwrap();
    let api = Api::new(service.clone());
    // Hundreds of A's events pending (no_answer: one event per call).
    let mut stuck = Vec::new();
    for _ in 0..150 {
        let body = json!({"to": "+14155550121", "objective": "a", "webhookUrl": dead.url});
        stuck.push(place(&api, KEY_A1, body).await);
    }
    dead.wait_for(|r| r.len() >= 2).await; // A holds its two slots
    let b_call = place(
        &api,
        KEY_B,
        json!({"to": "+14155550125", "objective": "b", "webhookUrl": alive.url}),
    )
    .await;
    // B's events arrive while every attempt at A's endpoint is still hanging
    // (none can end before its 60 s timeout).
    alive.wait_for(|r| r.len() >= 2).await;
    assert!(alive.for_call(&b_call).len() >= 2);
    assert!(
        dead.requests().len() <= 2,
        "A never had more than its share in flight"
    );
    let a = service
        .authenticate(&ApiKey::new(KEY_A1))
        .await
        .unwrap()
        .unwrap();
    for id in stuck.iter().take(10) {
        let states = service.deliveries(&a, &id.parse().unwrap()).await.unwrap();
        assert!(
            states
                .iter()
                .all(|s| s.attempts == 0 && s.status == DeliveryStatus::Pending),
            "A's events are delayed, not dropped or counted: {states:?}"
        );
    }
    service.shutdown(Duration::from_millis(10)).await;
}

#[tokio::test]
async fn another_tenants_event_is_not_queued_behind_a_backlog_on_black_holed_endpoints() {
    // Tenant A's two endpoints accept connections and never answer. Each
    // stays within its per-endpoint cap, yet together they can fill every
    // slot, and A has far more events due than there are slots.
    let holes = [BlackHole::start().await, BlackHole::start().await];
    let alive = Receiver::start().await;
    let timeout = Duration::from_secs(1);
    let config = DeliveryConfig {
        schedule: vec![Duration::ZERO],
        timeout,
        concurrency: 4,
        per_endpoint_concurrency: 2,
        // After a few timeouts the breaker would hold A's endpoints back and
        // free the slots by itself (it is tested on its own); here only the
        // order in which the outbox hands events out decides.
        breaker_threshold: u32::MAX,
        ..DeliveryConfig::default()
    };
    let service = builder().delivery(config).build().unwrap();
    let api = Api::new(service.clone());
    // A's backlog: 200 unanswered calls, one event each, all due before B's.
    let mut backlog = Vec::new();
    for i in 0..200 {
        let body = json!({"to": "+14155550121", "objective": "a", "webhookUrl": holes[i % 2].url});
        backlog.push(place(&api, KEY_A1, body).await);
    }
    for id in &backlog {
        wait_terminal(&api, KEY_A1, id).await;
    }
    for _ in 0..1_000 {
        if holes.iter().all(|hole| hole.accepted() >= 2) {
            break;
        }
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
    assert!(
        holes.iter().all(|hole| hole.accepted() >= 2),
        "A holds every slot"
    );
    let a = service
        .authenticate(&ApiKey::new(KEY_A1))
        .await
        .unwrap()
        .unwrap();

    let placed = tokio::time::Instant::now();
    let b_call = place(
        &api,
        KEY_B,
        json!({"to": "+14155550121", "objective": "b", "webhookUrl": alive.url}),
    )
    .await;
    // Every attempt at A's endpoints started before B's event existed, so a
    // slot frees within one attempt timeout, and a fair claim gives it to
    // B, whose account has nothing in flight. First-due-first-served would
    // give every freed slot to A's next event: B would wait for the whole
    // backlog, 200 / 4 timeouts. Bounded: one timeout plus a margin.
    let bound = timeout + Duration::from_secs(2);
    while alive.for_call(&b_call).is_empty() {
        assert!(
            placed.elapsed() < bound,
            "B's event was not delivered within {bound:?}"
        );
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
    let mut untried = 0;
    for id in &backlog {
        let states = service.deliveries(&a, &id.parse().unwrap()).await.unwrap();
        untried += states.iter().filter(|s| s.attempts == 0).count();
    }
    assert!(
        untried > 100,
        "B went ahead of A's backlog, which is still there ({untried} untried)"
    );
    service.shutdown(Duration::from_millis(10)).await;
}

#[tokio::test]
async fn a_burst_to_one_endpoint_is_delivered_at_its_cap_without_waiting_for_leases() {
    // More events at once than the worker has slots, all to one endpoint
    // (cap 8 in flight). Events claimed beyond the endpoint's cap wait in the
    // worker for a slot instead of lapsing with their lease, which here
    // (twice an hour's timeout) outlasts the test by far.
    let receiver = Receiver::start().await;
    let delivery = DeliveryConfig {
        timeout: Duration::from_secs(3600),
        ..patient_delivery()
    };
    let service = builder().delivery(delivery).build().unwrap();
    let api = Api::new(service.clone());
    let calls = 150;
    for _ in 0..calls {
        // Ends in 3: declined after the ring, one `call.declined` event each.
        place(
            &api,
            KEY_A1,
            json!({"to": "+14155550123", "objective": "x", "webhookUrl": receiver.url}),
        )
        .await;
    }
    receiver.wait_for(|r| r.len() >= calls).await;
    let delivered = receiver.requests();
    assert_eq!(delivered.len(), calls, "each event once");
    assert!(
        delivered
            .iter()
            .all(|r| r.json()["event"] == "call.declined"),
        "{:?}",
        delivered.first().map(Received::json)
    );
}
