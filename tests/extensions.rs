//! Beyond the base API: idempotent placement, cancel, cursor pagination with
//! filters, and caller metadata.

mod common;

use std::collections::HashSet;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use agentcall::carrier::{
    Carrier, CarrierError, CarrierOutcome, CarrierReport, DialRequest, ProgressHandle,
};
use agentcall::guardrails::{BillingPeriod, MemoryUsageLedger, UsageLedger};
use agentcall::{Api, CallId, CallStatus, SimulatedCarrier, SimulationConfig};
use common::*;
use http::{Request, StatusCode};
use serde_json::{Value, json};
use tokio::sync::Notify;

fn keyed(key: &str, idempotency_key: &str, body: &Value) -> Request<String> {
    Request::post("/v1/agent/calls")
        .header("authorization", format!("Bearer {key}"))
        .header("idempotency-key", idempotency_key)
        .body(body.to_string())
        .unwrap()
}

fn body() -> Value {
    json!({"to": "+14155550125", "objective": "Confirm the order"})
}

async fn count_calls(api: &Api, key: &str) -> usize {
    let (_, _, bytes) = send(api, get(Some(key), "/v1/agent/calls?limit=100")).await;
    json(&bytes)["calls"].as_array().unwrap().len()
}

/// A carrier that holds each placement until released, like a slow trunk.
#[derive(Debug, Default)]
struct SlowCarrier {
    release: Notify,
    entered: std::sync::atomic::AtomicUsize,
    inner: SimulatedCarrier,
}

#[async_trait::async_trait]
impl Carrier for SlowCarrier {
    /// A test carrier rings no one (the default calling window stays off).
    fn rings_real_phones(&self) -> bool {
        false
    }

    async fn dial(
        &self,
        request: DialRequest,
        progress: ProgressHandle,
    ) -> Result<(), CarrierError> {
        self.entered
            .fetch_add(1, std::sync::atomic::Ordering::SeqCst);
        self.release.notified().await;
        self.inner.dial(request, progress).await
    }
    async fn hang_up(&self, id: &CallId) -> Result<(), CarrierError> {
        self.inner.hang_up(id).await
    }
}

#[tokio::test]
async fn a_replayed_post_returns_the_identical_response_and_places_one_call() {
    let api = Api::new(service());
    let (status, headers, first) = send(&api, keyed(KEY_A1, "order-42", &body())).await;
    assert_eq!(status, StatusCode::CREATED);
    for _ in 0..3 {
        // Key order and spacing do not change the request.
        let reordered = r#"{ "objective": "Confirm the order", "to": "+14155550125" }"#;
        let request = Request::post("/v1/agent/calls")
            .header("authorization", format!("Bearer {KEY_A1}"))
            .header("idempotency-key", "order-42")
            .body(reordered.to_owned())
            .unwrap();
        let (again, replay_headers, replayed) = send(&api, request).await;
        assert_eq!((again, &replayed), (status, &first));
        assert_eq!(replay_headers["idempotent-replayed"], "true");
        assert_eq!(replay_headers["location"], headers["location"]);
    }
    assert_eq!(count_calls(&api, KEY_A1).await, 1);
    // Keys are scoped to the API key: the account's other key places its own call.
    let (status, _, other) = send(&api, keyed(KEY_A2, "order-42", &body())).await;
    assert_eq!(status, StatusCode::CREATED);
    assert_ne!(json(&other)["callId"], json(&first)["callId"]);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn twenty_racing_identical_requests_place_one_call() {
    let api = Api::new(service());
    let mut tasks = tokio::task::JoinSet::new();
    for _ in 0..20 {
        let api = api.clone();
        tasks.spawn(async move { send(&api, keyed(KEY_A1, "race", &body())).await });
    }
    let answers = tasks.join_all().await;
    let created: HashSet<_> = answers
        .iter()
        .filter(|(s, _, _)| *s == StatusCode::CREATED)
        .map(|(_, _, b)| b.clone())
        .collect();
    assert_eq!(created.len(), 1, "every 201 is the same response");
    for (status, _, bytes) in &answers {
        assert!(
            *status == StatusCode::CREATED
                || (*status == StatusCode::CONFLICT
                    && json(bytes)["error"] == "idempotency_key_in_use")
        );
    }
    let (status, _, replay) = send(&api, keyed(KEY_A1, "race", &body())).await;
    assert_eq!(
        (status, created.contains(&replay)),
        (StatusCode::CREATED, true)
    );
    assert_eq!(count_calls(&api, KEY_A1).await, 1);
}

#[tokio::test]
async fn reused_keys_in_use_keys_bad_keys_and_unstored_rejections() {
    let carrier = Arc::new(SlowCarrier::default());
    let api = Api::new(builder().carrier(carrier.clone()).build().unwrap());
    // Held while the first request is still being processed.
    let first = tokio::spawn({
        let api = api.clone();
        async move { send(&api, keyed(KEY_A1, "slow", &body())).await }
    });
    while carrier.entered.load(std::sync::atomic::Ordering::SeqCst) == 0 {
        tokio::time::sleep(Duration::from_millis(2)).await;
    }
    let mut in_use = None;
    for _ in 0..500 {
        let (status, _, bytes) = send(&api, keyed(KEY_A1, "slow", &body())).await;
        if status == StatusCode::CONFLICT {
            in_use = Some(json(&bytes));
            break;
        }
        tokio::time::sleep(Duration::from_millis(2)).await;
    }
    assert_eq!(in_use, Some(json!({"error": "idempotency_key_in_use"})));
    carrier.release.notify_one();
    let (status, _, _) = first.await.unwrap();
    assert_eq!(status, StatusCode::CREATED);
    // The same key with another body.
    let other = json!({"to": "+14155550126", "objective": "Something else"});
    let (status, _, bytes) = send(&api, keyed(KEY_A1, "slow", &other)).await;
    assert_eq!(
        (status, json(&bytes)),
        (
            StatusCode::UNPROCESSABLE_ENTITY,
            json!({"error": "idempotency_key_reused"})
        )
    );
    // A rejection is not stored: fix the request and retry with the same key.
    let broken = json!({"to": "+1415", "objective": "x"});
    let (status, _, _) = send(&api, keyed(KEY_A1, "fixable", &broken)).await;
    assert_eq!(status, StatusCode::BAD_REQUEST);
    let fixed = tokio::spawn({
        let api = api.clone();
        async move { send(&api, keyed(KEY_A1, "fixable", &body())).await }
    });
    tokio::time::sleep(Duration::from_millis(20)).await;
    carrier.release.notify_one();
    assert_eq!(fixed.await.unwrap().0, StatusCode::CREATED);
    // Malformed keys.
    for bad in ["a".repeat(256).as_str(), "tab\there"] {
        let (status, _, bytes) = send(&api, keyed(KEY_A1, bad, &body())).await;
        assert_eq!(
            (status, json(&bytes)),
            (
                StatusCode::BAD_REQUEST,
                json!({"error": "invalid_idempotency_key"})
            ),
            "{bad:?}"
        );
    }
    let non_ascii = Request::post("/v1/agent/calls")
        .header("authorization", format!("Bearer {KEY_A1}"))
        .header(
            "idempotency-key",
            http::HeaderValue::from_bytes("clé".as_bytes()).unwrap(),
        )
        .body(body().to_string())
        .unwrap();
    assert_eq!(send(&api, non_ascii).await.0, StatusCode::BAD_REQUEST);
    carrier.release.notify_one(); // let the next placement through
    let (status, _, _) = send(&api, keyed(KEY_A1, &"k".repeat(255), &body())).await;
    assert_eq!(
        status,
        StatusCode::CREATED,
        "255 printable characters is the longest key"
    );
}

/// A carrier that accepts calls but dials only when told to, so a call can
/// be observed (and cancelled) while still queued.
#[derive(Debug, Default)]
struct HeldCarrier {
    held: Mutex<Vec<ProgressHandle>>,
}

#[async_trait::async_trait]
impl Carrier for HeldCarrier {
    /// A test carrier rings no one (the default calling window stays off).
    fn rings_real_phones(&self) -> bool {
        false
    }

    async fn dial(&self, _: DialRequest, progress: ProgressHandle) -> Result<(), CarrierError> {
        self.held.lock().unwrap().push(progress);
        Ok(())
    }
    async fn hang_up(&self, id: &CallId) -> Result<(), CarrierError> {
        let mut held = self.held.lock().unwrap();
        let position = held
            .iter()
            .position(|p| p.call_id() == id)
            .ok_or(CarrierError::UnknownCall(id.clone()))?;
        let progress = held.remove(position);
        let _ = progress.report(CarrierReport::Ended(CarrierOutcome {
            error: Some(agentcall::domain::CallError::Canceled),
            ..CarrierOutcome::new(CallStatus::Failed)
        }));
        Ok(())
    }
}

async fn cancel(api: &Api, key: &str, id: &str) -> (StatusCode, Value) {
    let request = Request::post(format!("/v1/agent/calls/{id}/cancel"))
        .header("authorization", format!("Bearer {key}"))
        .body(String::new())
        .unwrap();
    let (status, _, bytes) = send(api, request).await;
    (status, json(&bytes))
}

#[tokio::test]
async fn cancel_in_each_state() {
    let receiver = Receiver::start().await;
    let hooked = |to: &str| {
        json!({"to": to, "objective": "Confirm", "webhookUrl": receiver.url,
                                   "fields": [{"name": "confirmed", "type": "boolean", "description": "Whether it is confirmed"}]})
    };
    let period = BillingPeriod::default().start_of(chrono::Utc::now());
    let account = account_a();

    // Queued: the carrier has not started dialing.
    let ledger = Arc::new(MemoryUsageLedger::new());
    let api = Api::new(
        builder()
            .carrier(Arc::new(HeldCarrier::default()))
            .usage_ledger(ledger.clone())
            .build()
            .unwrap(),
    );
    let id = place(&api, KEY_A1, hooked("+14155550125")).await;
    assert_eq!(wait_status(&api, &id).await, "queued");
    let (status, record) = cancel(&api, KEY_A1, &id).await;
    assert_eq!(
        (status, &record["status"], &record["error"]),
        (StatusCode::OK, &json!("failed"), &json!("canceled"))
    );
    assert_eq!(
        cancel(&api, KEY_A1, &id).await,
        (StatusCode::CONFLICT, json!({"error": "call_already_ended"}))
    );
    let usage = ledger.usage(&account.id, period).await.expect("usage");
    assert_eq!(
        (usage.billed, usage.reserved),
        (0, 0),
        "nothing billed, reservation released"
    );

    // Dialing: ringing for an hour.
    let ringing = SimulationConfig {
        ring: Duration::from_secs(3_600),
        talk: Duration::from_millis(10),
        ..Default::default()
    };
    let ledger = Arc::new(MemoryUsageLedger::new());
    let api = Api::new(
        builder()
            .carrier(Arc::new(SimulatedCarrier::new(ringing)))
            .usage_ledger(ledger.clone())
            .build()
            .unwrap(),
    );
    let dialing = place(&api, KEY_A1, hooked("+14155550125")).await;
    while wait_status(&api, &dialing).await != "dialing" {}
    assert_eq!(
        cancel(&api, KEY_B, &dialing).await,
        (StatusCode::NOT_FOUND, json!({"error": "not_found"})),
        "another key's call"
    );
    let (status, record) = cancel(&api, KEY_A1, &dialing).await;
    assert_eq!(
        (status, &record["status"], &record["error"]),
        (StatusCode::OK, &json!("failed"), &json!("canceled"))
    );
    assert_eq!(
        ledger
            .usage(&account.id, period)
            .await
            .expect("usage")
            .billed,
        0
    );

    // In progress: talking for an hour; cancel hangs up and completes with what was said.
    let talking = SimulationConfig {
        ring: Duration::from_millis(10),
        talk: Duration::from_secs(3_600),
        ..Default::default()
    };
    let ledger = Arc::new(MemoryUsageLedger::new());
    let api = Api::new(
        builder()
            .carrier(Arc::new(SimulatedCarrier::new(talking)))
            .usage_ledger(ledger.clone())
            .build()
            .unwrap(),
    );
    let live = place(&api, KEY_A1, hooked("+14155550125")).await;
    while wait_status(&api, &live).await != "in_progress" {}
    let (status, record) = cancel(&api, KEY_A1, &live).await;
    assert_eq!(
        (status, &record["status"], &record["error"]),
        (StatusCode::OK, &json!("completed"), &Value::Null)
    );
    assert!(
        record["transcript"].as_str().unwrap().lines().count() >= 2,
        "the partial transcript is kept"
    );
    assert!(record["summary"].is_string());
    assert!(
        record["extracted"]
            .as_object()
            .unwrap()
            .contains_key("confirmed")
    );
    assert_eq!(cancel(&api, KEY_A1, &live).await.0, StatusCode::CONFLICT);
    assert_eq!(
        ledger
            .usage(&account.id, period)
            .await
            .expect("usage")
            .billed,
        1,
        "talk time is billed"
    );

    // Events: failed for the unanswered ones, in_progress then completed for the live one.
    receiver.wait_for(|r| r.len() >= 4).await;
    for (call, expected) in [
        (&id, vec!["call.failed"]),
        (&dialing, vec!["call.failed"]),
        (&live, vec!["call.in_progress", "call.completed"]),
    ] {
        let events: Vec<Value> = receiver.for_call(call).iter().map(Received::json).collect();
        assert_eq!(
            events
                .iter()
                .map(|e| e["event"].as_str().unwrap())
                .collect::<Vec<_>>(),
            expected
        );
        if expected.len() == 1 {
            assert_eq!(events[0]["error"], "canceled");
        }
    }
}

async fn wait_status(api: &Api, id: &str) -> String {
    tokio::time::sleep(Duration::from_millis(5)).await;
    let (_, _, bytes) = send(api, get(Some(KEY_A1), &format!("/v1/agent/calls/{id}"))).await;
    json(&bytes)["status"].as_str().unwrap().to_owned()
}

async fn page(api: &Api, query: &str) -> (Vec<Value>, bool) {
    let (status, _, bytes) =
        send(api, get(Some(KEY_A1), &format!("/v1/agent/calls?{query}"))).await;
    assert_eq!(
        status,
        StatusCode::OK,
        "{query}: {}",
        String::from_utf8_lossy(&bytes)
    );
    let body = json(&bytes);
    (
        body["calls"].as_array().unwrap().clone(),
        body["hasMore"].as_bool().unwrap(),
    )
}

async fn walk(api: &Api, filters: &str, size: usize) -> Vec<String> {
    let mut seen = Vec::new();
    let mut cursor: Option<String> = None;
    loop {
        let mut query = format!("limit={size}{filters}");
        if let Some(cursor) = &cursor {
            query.push_str(&format!("&startingAfter={cursor}"));
        }
        let (calls, has_more) = page(api, &query).await;
        assert!(calls.len() <= size);
        seen.extend(calls.iter().map(|c| c["id"].as_str().unwrap().to_owned()));
        if !has_more {
            return seen;
        }
        cursor = seen.last().cloned();
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn every_page_of_250_calls_finds_each_call_once() {
    let api = Api::new(service());
    let mut placed = Vec::new();
    for i in 0..250 {
        // Last digits 1..5 give five different outcomes.
        let to = format!("+1415555012{}", 1 + i % 5);
        placed.push(place(&api, KEY_A1, json!({"to": to, "objective": "x"})).await);
    }
    place(
        &api,
        KEY_A2,
        json!({"to": "+14155550125", "objective": "another key"}),
    )
    .await;
    for id in &placed {
        wait_terminal(&api, KEY_A1, id).await;
    }
    let newest_first: Vec<String> = placed.iter().rev().cloned().collect();
    for size in [1, 7, 20, 100] {
        assert_eq!(walk(&api, "", size).await, newest_first, "page size {size}");
    }
    let records: Vec<Value> = {
        let mut all = Vec::new();
        for id in &placed {
            let (_, _, bytes) =
                send(&api, get(Some(KEY_A1), &format!("/v1/agent/calls/{id}"))).await;
            all.push(json(&bytes));
        }
        all
    };
    let completed: Vec<String> = newest_first
        .iter()
        .filter(|id| {
            records
                .iter()
                .any(|r| r["id"] == id.as_str() && r["status"] == "completed")
        })
        .cloned()
        .collect();
    assert_eq!(completed.len(), 50);
    for size in [3, 50] {
        assert_eq!(walk(&api, "&status=completed", size).await, completed);
        let two = walk(&api, "&status=no_answer,declined", size).await;
        assert_eq!(two.len(), 100);
        assert!(two.iter().all(|id| {
            records.iter().any(|r| {
                r["id"] == id.as_str() && (r["status"] == "no_answer" || r["status"] == "declined")
            })
        }));
    }
    // A time window: everything, then nothing.
    let before_all = "2000-01-01T00:00:00Z";
    let after_all = "2999-01-01T00:00:00Z";
    assert_eq!(
        walk(
            &api,
            &format!("&createdAfter={before_all}&createdBefore={after_all}"),
            40
        )
        .await,
        newest_first
    );
    assert!(
        walk(&api, &format!("&createdAfter={after_all}"), 40)
            .await
            .is_empty()
    );
    assert!(
        walk(&api, &format!("&createdBefore={before_all}"), 40)
            .await
            .is_empty()
    );

    for (query, token) in [
        ("status=ringing", "invalid_status"),
        ("status=completed,", "invalid_status"),
        ("createdAfter=yesterday", "invalid_timestamp"),
        ("createdBefore=2026-13-01T00:00:00Z", "invalid_timestamp"),
        ("startingAfter=nope", "invalid_cursor"),
        (
            "startingAfter=call_00000000000000000000000000000000",
            "invalid_cursor",
        ),
    ] {
        let (status, _, bytes) =
            send(&api, get(Some(KEY_A1), &format!("/v1/agent/calls?{query}"))).await;
        assert_eq!(
            (status, json(&bytes)["error"].as_str().unwrap()),
            (StatusCode::BAD_REQUEST, token),
            "{query}"
        );
    }
    // Another key's call is not a cursor for this key.
    let (_, _, bytes) = send(&api, get(Some(KEY_A2), "/v1/agent/calls")).await;
    let foreign = json(&bytes)["calls"][0]["id"].as_str().unwrap().to_owned();
    let (status, _, _) = send(
        &api,
        get(
            Some(KEY_A1),
            &format!("/v1/agent/calls?startingAfter={foreign}"),
        ),
    )
    .await;
    assert_eq!(status, StatusCode::BAD_REQUEST);
}

#[tokio::test]
async fn metadata_is_validated_stored_and_sent_with_every_event() {
    let receiver = Receiver::start().await;
    let api = Api::new(service());
    let with_meta = |metadata: Value| json!({"to": "+14155550125", "objective": "x", "metadata": metadata, "webhookUrl": receiver.url});
    let many: serde_json::Map<String, Value> =
        (0..51).map(|i| (format!("k{i}"), json!("v"))).collect();
    for bad in [
        json!("text"),
        json!([1]),
        Value::Object(many),
        json!({"k": 1}),
        json!({"k".repeat(41): "v"}),
        json!({"": "v"}),
        json!({"k": "v".repeat(501)}),
    ] {
        let (status, _, bytes) =
            send(&api, post(Some(KEY_A1), with_meta(bad.clone()).to_string())).await;
        assert_eq!(
            (status, json(&bytes)["error"].as_str()),
            (StatusCode::BAD_REQUEST, Some("invalid_metadata")),
            "{bad}"
        );
    }
    let ok: serde_json::Map<String, Value> = (0..50)
        .map(|i| (format!("{i:0>40}"), json!("v".repeat(500))))
        .collect();
    place(&api, KEY_A1, with_meta(Value::Object(ok))).await;

    let metadata = json!({"order": "A-1042", "customer": "Dana"});
    let id = place(&api, KEY_A1, with_meta(metadata.clone())).await;
    let record = wait_terminal(&api, KEY_A1, &id).await;
    assert_eq!(serde_json::to_value(&record.metadata).unwrap(), metadata);
    let (calls, _) = page(&api, "limit=1").await;
    assert_eq!(calls[0]["metadata"], metadata);
    receiver
        .wait_for(|r| {
            r.iter()
                .filter(|x| x.json()["callId"] == id.as_str())
                .count()
                == 2
        })
        .await;
    for event in receiver.for_call(&id) {
        assert_eq!(event.json()["metadata"], metadata);
    }
    let plain = place(
        &api,
        KEY_A1,
        json!({"to": "+14155550124", "objective": "x", "webhookUrl": receiver.url}),
    )
    .await;
    receiver
        .wait_for(|r| r.iter().any(|x| x.json()["callId"] == plain.as_str()))
        .await;
    assert!(receiver.for_call(&plain)[0].json()["metadata"].is_null());
}

/// A carrier slower to accept a call than the idempotency lease: the
/// placement renews its key, so every retry during the dial is told the key
/// is in use, and exactly one call is placed.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn retries_during_a_dial_longer_than_the_lease_place_one_call() {
    let slow = fast_simulation().with_dial_delay(Duration::from_secs(1));
    let api = Api::new(
        builder()
            .carrier(Arc::new(SimulatedCarrier::new(slow)))
            .idempotency_lease(Duration::from_millis(200))
            .build()
            .unwrap(),
    );
    let first = tokio::spawn({
        let api = api.clone();
        async move { send(&api, keyed(KEY_A1, "slow-dial", &body())).await }
    });
    // Let the first request take the key (well within the lease).
    tokio::time::sleep(Duration::from_millis(50)).await;
    let mut retries = 0;
    while !first.is_finished() {
        let (status, headers, bytes) = send(&api, keyed(KEY_A1, "slow-dial", &body())).await;
        if status == StatusCode::CREATED {
            // Only once the first was answered (between the check and the
            // retry), and then as its replay, never as a second call.
            assert_eq!(
                headers.get("idempotent-replayed").map(|v| v.as_bytes()),
                Some(&b"true"[..]),
                "retry {retries} during the dial placed a second call: {}",
                json(&bytes)
            );
            break;
        }
        assert_eq!(
            (status, json(&bytes)),
            (
                StatusCode::CONFLICT,
                json!({"error": "idempotency_key_in_use"})
            ),
            "retry {retries} during the dial"
        );
        retries += 1;
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    assert!(retries >= 10, "retried all through the dial ({retries})");
    let (status, _, created) = first.await.unwrap();
    assert_eq!(status, StatusCode::CREATED);
    let (status, headers, replayed) = send(&api, keyed(KEY_A1, "slow-dial", &body())).await;
    assert_eq!((status, &replayed), (StatusCode::CREATED, &created));
    assert_eq!(headers["idempotent-replayed"], "true");
    assert_eq!(count_calls(&api, KEY_A1).await, 1);
}

/// A carrier that does not accept a call within the dial timeout: the
/// dial's outcome is unknown (a phone may ring), so the placement answers
/// `201` with a failed record (`dial_unconfirmed`) rather than a `502`
/// that invites a second call, and that answer is replayed.
#[tokio::test]
async fn a_dial_past_its_timeout_is_unconfirmed_not_retry_inviting_and_is_replayed() {
    let slow = fast_simulation().with_dial_delay(Duration::from_secs(5));
    let api = Api::new(
        builder()
            .carrier(Arc::new(SimulatedCarrier::new(slow)))
            .dial_timeout(Duration::from_millis(100))
            .build()
            .unwrap(),
    );
    let started = tokio::time::Instant::now();
    let (status, _, bytes) = send(&api, keyed(KEY_A1, "timeout", &body())).await;
    assert_eq!(status, StatusCode::CREATED, "{}", json(&bytes));
    assert_eq!(json(&bytes)["status"], "failed");
    assert!(started.elapsed() < Duration::from_secs(2));
    let (_, _, list) = send(&api, get(Some(KEY_A1), "/v1/agent/calls")).await;
    let calls = json(&list)["calls"].as_array().unwrap().clone();
    assert_eq!(calls.len(), 1);
    assert_eq!(
        (calls[0]["status"].as_str(), calls[0]["error"].as_str()),
        (Some("failed"), Some("dial_unconfirmed"))
    );
    let (status, headers, again) = send(&api, keyed(KEY_A1, "timeout", &body())).await;
    assert_eq!((status, &again), (StatusCode::CREATED, &bytes));
    assert_eq!(headers["idempotent-replayed"], "true");
    assert_eq!(count_calls(&api, KEY_A1).await, 1);
}
