//! Calls run end to end on the embedded defaults, with events delivered to a
//! real receiver on a loopback socket.

mod common;

use std::sync::Arc;
use std::time::Duration;

use agentcall::store::{CallStore, InstanceId};
use agentcall::webhook::Verifier;
use agentcall::{Api, CallStatus, SimulatedCarrier, SimulationConfig};
use common::*;
use serde_json::{Value, json};

fn events_of(received: &[Received]) -> Vec<String> {
    received
        .iter()
        .map(|r| r.json()["event"].as_str().unwrap().to_owned())
        .collect()
}

#[tokio::test]
async fn every_outcome_emits_the_events_of_section_6_1() {
    let receiver = Receiver::start().await;
    let api = Api::new(service());
    let verifier = Verifier::new([SECRET_A.into()]);
    let cases = [
        ("+14155550121", CallStatus::NoAnswer, vec!["call.no_answer"]),
        // Voicemail is a connected call (issue 12): answered, then ended.
        (
            "+14155550122",
            CallStatus::Voicemail,
            vec!["call.in_progress", "call.voicemail"],
        ),
        ("+14155550123", CallStatus::Declined, vec!["call.declined"]),
        ("+14155550124", CallStatus::Failed, vec!["call.failed"]),
        (
            "+14155550125",
            CallStatus::Completed,
            vec!["call.in_progress", "call.completed"],
        ),
    ];
    for (to, status, expected) in cases {
        let body = json!({
            "to": to,
            "objective": "Confirm the appointment on Thursday",
            "webhookUrl": receiver.url,
            "fields": [{"name": "confirmed", "type": "boolean", "description": "Whether the appointment is confirmed"}],
        });
        let id = place(&api, KEY_A1, body).await;
        let record = wait_terminal(&api, KEY_A1, &id).await;
        assert_eq!(record.status, status);
        receiver
            .wait_for(|r| {
                r.iter()
                    .filter(|x| x.json()["callId"] == id.as_str())
                    .count()
                    >= expected.len()
            })
            .await;
        // Give a stray extra event a chance to show up before counting.
        tokio::time::sleep(Duration::from_millis(50)).await;
        let received = receiver.for_call(&id);
        assert_eq!(events_of(&received), expected, "{to}");
        for request in &received {
            let event = request.json();
            let now = chrono::Utc::now().timestamp();
            verifier
                .verify(&request.body, Some(&request.signature), now)
                .expect("signature verifies");
            assert_eq!(
                event.as_object().unwrap().len(),
                14,
                "the thirteen fields of 6.2 and metadata"
            );
            let kind = event["event"].as_str().unwrap();
            let event_id = event["eventId"].as_str().unwrap();
            let (prefix, millis) = event_id.rsplit_once(':').unwrap();
            assert_eq!(prefix, format!("{id}:{kind}"));
            assert!(millis.parse::<i64>().is_ok());
            assert!(
                chrono::DateTime::parse_from_rfc3339(event["timestamp"].as_str().unwrap()).is_ok()
            );
            assert_eq!(
                (event["to"].as_str(), event["callId"].as_str()),
                (Some(to), Some(id.as_str()))
            );
            if kind == "call.in_progress" {
                assert_eq!(event["status"], "in_progress");
                assert!(event["startedAt"].is_string());
                for key in ["endedAt", "durationSec", "summary", "extracted", "error"] {
                    assert!(event[key].is_null(), "{key} in in_progress");
                }
            } else {
                assert_eq!(event["status"], status.as_str());
                assert!(event["endedAt"].is_string() && event["durationSec"].is_u64());
                assert_eq!(
                    event["startedAt"].is_string(),
                    matches!(status, CallStatus::Completed | CallStatus::Voicemail)
                );
                assert_eq!(
                    event["summary"].is_string(),
                    status == CallStatus::Completed
                );
                assert_eq!(
                    event["extracted"].is_object(),
                    status == CallStatus::Completed
                );
                assert_eq!(event["error"].is_string(), status == CallStatus::Failed);
            }
        }
        // The record agrees with the events.
        assert!(record.ended_at.is_some());
        assert_eq!(
            record.error.map(|e| e.as_str()),
            (status == CallStatus::Failed).then_some("carrier_unreachable")
        );
        if status == CallStatus::Completed {
            assert!(
                record.summary.is_some()
                    && record.transcript.is_some()
                    && record.recording_url.is_some()
            );
            let extracted = record.extracted.unwrap();
            assert_eq!(extracted.keys().collect::<Vec<_>>(), ["confirmed"]);
        }
    }
}

#[tokio::test]
async fn calls_without_a_webhook_url_send_nothing() {
    let receiver = Receiver::start().await;
    let api = Api::new(service());
    let silent = place(
        &api,
        KEY_A1,
        json!({"to": "+14155550125", "objective": "No hooks"}),
    )
    .await;
    wait_terminal(&api, KEY_A1, &silent).await;
    let loud = place(
        &api,
        KEY_A1,
        json!({"to": "+14155550124", "objective": "Hooks", "webhookUrl": receiver.url}),
    )
    .await;
    wait_terminal(&api, KEY_A1, &loud).await;
    receiver.wait_for(|r| !r.is_empty()).await;
    tokio::time::sleep(Duration::from_millis(100)).await;
    assert!(
        receiver
            .requests()
            .iter()
            .all(|r| r.json()["callId"] == loud.as_str())
    );
}

#[tokio::test]
async fn shutdown_refuses_new_calls_and_ends_running_ones_with_their_events() {
    let receiver = Receiver::start().await;
    let slow = SimulationConfig {
        ring: Duration::from_millis(10),
        talk: Duration::from_secs(3_600),
        ..Default::default()
    };
    let service = builder()
        .carrier(Arc::new(SimulatedCarrier::new(slow)))
        .build()
        .unwrap();
    let api = Api::new(service.clone());
    let body =
        json!({"to": "+14155550125", "objective": "A long chat", "webhookUrl": receiver.url});
    let id = place(&api, KEY_A1, body.clone()).await;
    receiver
        .wait_for(|r| r.iter().any(|x| x.json()["event"] == "call.in_progress"))
        .await;
    assert_eq!(service.calls_in_flight(), 1);
    service.shutdown(Duration::from_millis(200)).await;
    assert_eq!(service.calls_in_flight(), 0);
    let record = wait_terminal(&api, KEY_A1, &id).await;
    assert_eq!(
        (record.status, record.error.map(|e| e.as_str())),
        (CallStatus::Failed, Some("service_shutdown"))
    );
    let events: Vec<Value> = receiver.for_call(&id).iter().map(Received::json).collect();
    assert_eq!(
        events
            .iter()
            .map(|e| e["event"].as_str().unwrap())
            .collect::<Vec<_>>(),
        ["call.in_progress", "call.failed"]
    );
    let (status, _, bytes) = send(&api, post(Some(KEY_A1), body.to_string())).await;
    assert_eq!(
        (status.as_u16(), json(&bytes)["error"].as_str()),
        (503, Some("shutting_down"))
    );
}

/// A carrier that accepts calls and then goes silent, like a process that died.
#[derive(Debug, Default)]
struct SilentCarrier(std::sync::Mutex<Vec<agentcall::carrier::ProgressHandle>>);

#[async_trait::async_trait]
impl agentcall::Carrier for SilentCarrier {
    /// A test carrier rings no one (the default calling window stays off).
    fn rings_real_phones(&self) -> bool {
        false
    }

    async fn dial(
        &self,
        _: agentcall::carrier::DialRequest,
        progress: agentcall::carrier::ProgressHandle,
    ) -> Result<(), agentcall::carrier::CarrierError> {
        self.0.lock().unwrap().push(progress); // keep the channel open, report nothing
        Ok(())
    }
    async fn hang_up(
        &self,
        id: &agentcall::CallId,
    ) -> Result<(), agentcall::carrier::CarrierError> {
        Err(agentcall::carrier::CarrierError::UnknownCall(id.clone()))
    }
}

#[tokio::test]
async fn recovery_ends_calls_a_dead_process_left_running_and_sends_their_events() {
    let receiver = Receiver::start().await;
    let store = Arc::new(agentcall::MemoryStore::new());
    // A restart of the same instance (a stable instance id): its calls are
    // taken back at once, without waiting for their leases.
    let instance = InstanceId::generate();
    let crashed = builder()
        .store(store.clone())
        .carrier(Arc::new(SilentCarrier::default()))
        .instance_id(instance.clone())
        .build()
        .unwrap();
    let api = Api::new(crashed);
    let mut ids = Vec::new();
    for _ in 0..3 {
        ids.push(
            place(
                &api,
                KEY_A1,
                json!({"to": "+14155550125", "objective": "x", "webhookUrl": receiver.url}),
            )
            .await,
        );
    }
    let restarted = builder()
        .store(store)
        .instance_id(instance)
        .build()
        .unwrap();
    let report = restarted.recover().await.unwrap();
    assert_eq!((report.resumed, report.ended), (0, 3));
    let api = Api::new(restarted.clone());
    for id in &ids {
        let record = wait_terminal(&api, KEY_A1, id).await;
        assert_eq!(
            (record.status, record.error.map(|e| e.as_str())),
            (CallStatus::Failed, Some("interrupted"))
        );
    }
    receiver
        .wait_for(|r| {
            ids.iter()
                .all(|id| r.iter().any(|x| x.json()["callId"] == id.as_str()))
        })
        .await;
    assert_eq!(
        restarted.recover().await.unwrap(),
        Default::default(),
        "nothing is left to recover"
    );
}

#[tokio::test]
async fn the_rules_extractor_recovers_what_the_simulated_recipient_said() {
    let api = Api::new(service());
    for _ in 0..10 {
        let body = json!({
            "to": "+14155550125",
            "objective": "Confirm the delivery and collect the details",
            "fields": [
                {"name": "delivery_confirmed", "type": "boolean", "description": "Whether the delivery is confirmed"},
                {"name": "boxes", "type": "number", "description": "How many boxes are expected"},
                {"name": "contact_name", "type": "string", "description": "Name of the person receiving it"},
                {"name": "gate_code", "type": "string"}
            ],
        });
        let id = place(&api, KEY_A1, body).await;
        let record = wait_terminal(&api, KEY_A1, &id).await;
        let transcript = record.transcript.unwrap().to_text();
        let extracted = record.extracted.unwrap();
        // The recipient's own record of what it told is checked against
        // extraction in the rules crate (rules/tests/simulated_calls.rs);
        // here, through the API: every key is there, and every value was
        // said on the call.
        for key in ["delivery_confirmed", "boxes", "contact_name", "gate_code"] {
            let value = &extracted[key];
            let said = match value {
                Value::Null | Value::Bool(_) => true,
                Value::Number(n) => transcript.contains(&n.to_string()),
                Value::String(s) => transcript.contains(s.as_str()),
                _ => false,
            };
            assert!(said, "{key}: {value} is not from the call:\n{transcript}");
            assert!(extracted.get(key).is_some(), "{key} missing: {extracted:?}");
        }
        assert!(record.summary.unwrap().contains("delivery"));
    }
}

/// A carrier that plays back a fixed list of reports, then goes silent.
#[derive(Debug)]
struct ScriptedCarrier(Vec<agentcall::carrier::CarrierReport>);

#[async_trait::async_trait]
impl agentcall::Carrier for ScriptedCarrier {
    /// A test carrier rings no one (the default calling window stays off).
    fn rings_real_phones(&self) -> bool {
        false
    }

    async fn dial(
        &self,
        _: agentcall::carrier::DialRequest,
        progress: agentcall::carrier::ProgressHandle,
    ) -> Result<(), agentcall::carrier::CarrierError> {
        for report in self.0.clone() {
            let _ = progress.report(report);
        }
        std::mem::forget(progress); // never closes: a carrier that stops talking
        Ok(())
    }
    async fn hang_up(&self, _: &agentcall::CallId) -> Result<(), agentcall::carrier::CarrierError> {
        Ok(()) // acknowledges, then does nothing
    }
}

#[tokio::test]
async fn contradictory_end_reports_still_end_the_call() {
    use agentcall::carrier::{CarrierOutcome, CarrierReport};
    let cases = [
        // The answer report was lost.
        (
            vec![
                CarrierReport::Dialing,
                CarrierReport::Ended(CarrierOutcome::new(CallStatus::Completed)),
            ],
            CallStatus::Completed,
        ),
        // "declined" after an answer.
        (
            vec![
                CarrierReport::Dialing,
                CarrierReport::Answered,
                CarrierReport::Ended(CarrierOutcome::new(CallStatus::Declined)),
            ],
            CallStatus::Completed,
        ),
        // A non-terminal "end".
        (
            vec![CarrierReport::Ended(CarrierOutcome::new(
                CallStatus::Dialing,
            ))],
            CallStatus::Failed,
        ),
    ];
    for (script, expected) in cases {
        let api = Api::new(
            builder()
                .carrier(Arc::new(ScriptedCarrier(script)))
                .build()
                .unwrap(),
        );
        let id = place(
            &api,
            KEY_A1,
            json!({"to": "+14155550125", "objective": "x"}),
        )
        .await;
        assert_eq!(wait_terminal(&api, KEY_A1, &id).await.status, expected);
    }
}

#[tokio::test(start_paused = true)]
async fn a_carrier_that_never_ends_the_call_is_hung_up_and_then_ended() {
    use agentcall::carrier::CarrierReport;
    let ring_timeout = Duration::from_secs(45);
    let hang_up_grace = Duration::from_secs(5);
    let service = builder()
        .carrier(Arc::new(ScriptedCarrier(vec![CarrierReport::Dialing])))
        .ring_timeout(ring_timeout)
        .hang_up_grace(hang_up_grace)
        .build()
        .unwrap();
    let me = service
        .authenticate(&agentcall::ApiKey::new(KEY_A1))
        .await
        .unwrap()
        .unwrap();
    let placed = service
        .place(&me, &agentcall::PlacementRequest::new("+14155550125", "x"))
        .await
        .unwrap();
    // Paused time jumps over the ring timeout and the hang-up grace.
    tokio::time::sleep(ring_timeout + hang_up_grace + Duration::from_secs(1)).await;
    for _ in 0..100 {
        tokio::task::yield_now().await;
    }
    let record = service.get(&me, &placed.call_id).await.unwrap();
    assert_eq!(
        (record.status, record.error.map(|e| e.as_str())),
        (CallStatus::Failed, Some("carrier_lost"))
    );
    assert_eq!(service.calls_in_flight(), 0);
}

#[tokio::test]
async fn a_completed_call_without_fields_has_an_empty_extracted_object() {
    let api = Api::new(service());
    let id = place(
        &api,
        KEY_A1,
        json!({"to": "+14155550125", "objective": "Say hello"}),
    )
    .await;
    let record = wait_terminal(&api, KEY_A1, &id).await;
    assert_eq!(record.status, CallStatus::Completed);
    assert_eq!(record.extracted, Some(serde_json::Map::new()));
    assert!(record.summary.is_some());
    // On the wire: `{}`, not `null`.
    let (_, _, bytes) = send(&api, get(Some(KEY_A1), &format!("/v1/agent/calls/{id}"))).await;
    assert_eq!(json(&bytes)["extracted"], json!({}));
}

#[tokio::test]
async fn recording_urls_follow_the_base_the_reading_service_is_configured_with() {
    // Two services over one store, as two deployments (or a moved one) would be.
    let store = Arc::new(agentcall::MemoryStore::new());
    let old = builder()
        .store(Arc::clone(&store))
        .base_url("https://old.example.com")
        .build()
        .unwrap();
    let id = place(
        &Api::new(old.clone()),
        KEY_A1,
        json!({"to": "+14155550125", "objective": "Record this"}),
    )
    .await;
    let record = wait_terminal(&Api::new(old.clone()), KEY_A1, &id).await;
    assert_eq!(
        record.recording_url,
        Some(format!(
            "https://old.example.com/v1/agent/calls/{id}/recording"
        ))
    );
    let new = builder()
        .store(store)
        .base_url("https://new.example.com/")
        .build()
        .unwrap();
    let api = Api::new(new.clone());
    let (_, _, bytes) = send(&api, get(Some(KEY_A1), &format!("/v1/agent/calls/{id}"))).await;
    let expected = format!("https://new.example.com/v1/agent/calls/{id}/recording");
    assert_eq!(json(&bytes)["recordingUrl"], expected.as_str());
    let (_, _, bytes) = send(&api, get(Some(KEY_A1), "/v1/agent/calls")).await;
    assert_eq!(json(&bytes)["calls"][0]["recordingUrl"], expected.as_str());
    old.shutdown(Duration::from_secs(1)).await;
    new.shutdown(Duration::from_secs(1)).await;
}

/// A rate limiter that holds the first placement until the test lets it go.
#[derive(Debug)]
struct GatedLimiter {
    entered: tokio::sync::Notify,
    gate: tokio::sync::Semaphore,
    first: std::sync::atomic::AtomicBool,
}

impl Default for GatedLimiter {
    fn default() -> Self {
        Self {
            entered: tokio::sync::Notify::new(),
            gate: tokio::sync::Semaphore::new(0),
            first: std::sync::atomic::AtomicBool::new(true),
        }
    }
}

#[async_trait::async_trait]
impl agentcall::guardrails::RateLimiter for GatedLimiter {
    async fn try_acquire(
        &self,
        key_id: &agentcall::KeyId,
        limit: u32,
        now: chrono::DateTime<chrono::Utc>,
    ) -> Result<agentcall::guardrails::RatePermit, agentcall::guardrails::LimitError> {
        if self.first.swap(false, std::sync::atomic::Ordering::SeqCst) {
            self.entered.notify_one();
            let _pass = self.gate.acquire().await.expect("gate open");
        }
        agentcall::guardrails::MemoryRateLimiter::new()
            .try_acquire(key_id, limit, now)
            .await
    }

    async fn refund(
        &self,
        _: agentcall::guardrails::RatePermit,
    ) -> Result<(), agentcall::store::StoreError> {
        Ok(())
    }
}

#[tokio::test]
async fn a_placement_admitted_while_shutdown_starts_is_waited_for_and_ended() {
    let limiter = Arc::new(GatedLimiter::default());
    // Calls ring for an hour: only shutdown can end this one.
    let ringing = SimulationConfig {
        ring: Duration::from_secs(3600),
        talk: Duration::from_secs(1),
        ..Default::default()
    };
    let service = builder()
        .carrier(Arc::new(SimulatedCarrier::new(ringing)))
        .rate_limiter(Arc::clone(&limiter) as Arc<dyn agentcall::guardrails::RateLimiter>)
        .build()
        .unwrap();
    let me = service
        .authenticate(&agentcall::ApiKey::new(KEY_A1))
        .await
        .unwrap()
        .unwrap();
    let request = agentcall::PlacementRequest::new("+14155550125", "Admitted before the stop");
    let placing = {
        let (service, me) = (service.clone(), me.clone());
        tokio::spawn(async move { service.place(&me, &request).await })
    };
    limiter.entered.notified().await; // past admission, held in the limiter
    let mut stopping = {
        let service = service.clone();
        tokio::spawn(async move { service.shutdown(Duration::from_millis(200)).await })
    };
    // Wait (bounded) until the service refuses new placements.
    let late = agentcall::PlacementRequest::new("+14155550125", "After the stop");
    let mut refused = false;
    for _ in 0..500 {
        if let Err(agentcall::ServiceError::ShuttingDown) = service.place(&me, &late).await {
            refused = true;
            break;
        }
        tokio::time::sleep(Duration::from_millis(2)).await;
    }
    assert!(refused, "shutdown never started refusing");
    // Shutdown cannot be over while an admitted placement is still pending
    // (after its grace it waits up to 5 s more for calls to end).
    let early = tokio::time::timeout(Duration::from_millis(500), &mut stopping).await;
    assert!(
        early.is_err(),
        "shutdown returned before the admitted placement ended"
    );
    limiter.gate.add_permits(1);
    let placed = placing.await.unwrap().expect("admitted before the stop");
    stopping.await.unwrap();
    // Shutdown waited for the admitted call and ended it, with its record.
    let record = service.get(&me, &placed.call_id).await.unwrap();
    assert_eq!(
        (record.status, record.error.map(|e| e.as_str())),
        (CallStatus::Failed, Some("service_shutdown"))
    );
    assert_eq!(service.calls_in_flight(), 0);
}

/// The memory store as one instance sees it, with its link to the store
/// severable: while cut, every call operation fails (like an instance that
/// lost its database, or froze). The outbox and idempotency keys stay
/// reachable; only the calls matter here.
#[derive(Debug, Default)]
struct Severable {
    store: Arc<agentcall::MemoryStore>,
    cut: std::sync::atomic::AtomicBool,
}

impl agentcall::store::Persistence for Severable {
    fn limits(&self) -> agentcall::store::SharedLimits {
        agentcall::store::Persistence::limits(self.store.as_ref())
    }
}

impl Severable {
    fn check(&self) -> Result<(), agentcall::store::StoreError> {
        if self.cut.load(std::sync::atomic::Ordering::SeqCst) {
            return Err(agentcall::store::StoreError::Unavailable("link cut".into()));
        }
        Ok(())
    }
}

mod severable_impls {
    use super::Severable;
    use agentcall::CallId;
    use agentcall::store::*;
    use chrono::{DateTime, Utc};

    #[async_trait::async_trait]
    impl CallStore for Severable {
        async fn insert(&self, call: &StoredCall) -> Result<(), StoreError> {
            self.check()?;
            self.store.insert(call).await
        }
        async fn get(&self, id: &CallId) -> Result<Option<StoredCall>, StoreError> {
            self.check()?;
            self.store.get(id).await
        }
        async fn update(
            &self,
            call: &StoredCall,
            events: Vec<NewEvent>,
        ) -> Result<u64, StoreError> {
            self.check()?;
            self.store.update(call, events).await
        }
        async fn list(&self, query: &ListQuery) -> Result<ListPage, StoreError> {
            self.check()?;
            self.store.list(query).await
        }
        async fn renew_leases(
            &self,
            holder: &InstanceId,
            calls: &[CallId],
            until: DateTime<Utc>,
        ) -> Result<Vec<CallId>, StoreError> {
            self.check()?;
            self.store.renew_leases(holder, calls, until).await
        }
        async fn claim_lapsed(&self, claim: &LeaseClaim) -> Result<Vec<StoredCall>, StoreError> {
            self.check()?;
            self.store.claim_lapsed(claim).await
        }
        async fn put_recording(&self, id: &CallId, recording: Recording) -> Result<(), StoreError> {
            self.check()?;
            self.store.put_recording(id, recording).await
        }
        async fn recording(&self, id: &CallId) -> Result<Option<Recording>, StoreError> {
            self.check()?;
            self.store.recording(id).await
        }
    }

    #[async_trait::async_trait]
    impl EventOutbox for Severable {
        async fn claim_due(
            &self,
            now: DateTime<Utc>,
            limit: usize,
            lease: std::time::Duration,
        ) -> Result<Vec<PendingDelivery>, StoreError> {
            self.store.claim_due(now, limit, lease).await
        }
        async fn record_attempt(
            &self,
            event_id: &str,
            claim: ClaimToken,
            now: DateTime<Utc>,
            outcome: AttemptOutcome,
        ) -> Result<RecordedAttempt, StoreError> {
            self.store
                .record_attempt(event_id, claim, now, outcome)
                .await
        }
        async fn next_due(&self) -> Result<Option<DateTime<Utc>>, StoreError> {
            self.store.next_due().await
        }
        async fn deliveries(&self, call_id: &CallId) -> Result<Vec<DeliveryState>, StoreError> {
            self.store.deliveries(call_id).await
        }
        async fn redeliver(&self, event_id: &str, now: DateTime<Utc>) -> Result<bool, StoreError> {
            self.store.redeliver(event_id, now).await
        }
    }

    #[async_trait::async_trait]
    impl IdempotencyStore for Severable {
        async fn begin(
            &self,
            key: &agentcall::domain::KeyId,
            idempotency_key: &str,
            fingerprint: [u8; 32],
            now: DateTime<Utc>,
            ttl: std::time::Duration,
            lease: std::time::Duration,
        ) -> Result<IdempotencyBegin, StoreError> {
            self.store
                .begin(key, idempotency_key, fingerprint, now, ttl, lease)
                .await
        }
        async fn renew(
            &self,
            key: &agentcall::domain::KeyId,
            idempotency_key: &str,
            holder: HoldToken,
            now: DateTime<Utc>,
        ) -> Result<bool, StoreError> {
            self.store.renew(key, idempotency_key, holder, now).await
        }
        async fn complete(
            &self,
            key: &agentcall::domain::KeyId,
            idempotency_key: &str,
            holder: HoldToken,
            response: StoredResponse,
        ) -> Result<(), StoreError> {
            self.store
                .complete(key, idempotency_key, holder, response)
                .await
        }
        async fn abandon(
            &self,
            key: &agentcall::domain::KeyId,
            idempotency_key: &str,
            holder: HoldToken,
        ) -> Result<(), StoreError> {
            self.store.abandon(key, idempotency_key, holder).await
        }
    }
}

/// A carrier that takes over calls it is asked to resume and keeps their
/// report channels, so the test can end them.
#[derive(Debug, Default)]
struct ResumingCarrier(std::sync::Mutex<Vec<agentcall::carrier::ProgressHandle>>);

#[async_trait::async_trait]
impl agentcall::Carrier for ResumingCarrier {
    /// A test carrier rings no one (the default calling window stays off).
    fn rings_real_phones(&self) -> bool {
        false
    }

    async fn dial(
        &self,
        _: agentcall::carrier::DialRequest,
        progress: agentcall::carrier::ProgressHandle,
    ) -> Result<(), agentcall::carrier::CarrierError> {
        self.0.lock().unwrap().push(progress);
        Ok(())
    }
    async fn hang_up(&self, _: &agentcall::CallId) -> Result<(), agentcall::carrier::CarrierError> {
        Ok(())
    }
    async fn resume(
        &self,
        _: agentcall::carrier::DialRequest,
        progress: agentcall::carrier::ProgressHandle,
    ) -> Result<bool, agentcall::carrier::CarrierError> {
        self.0.lock().unwrap().push(progress);
        Ok(true)
    }
}

/// Two instances on one store. Recovery on one never touches the live
/// calls of the other; once the other loses the store for longer than its
/// lease, the first takes its calls over by itself (no `recover` call), and
/// when the lost instance comes back its deadlines can no longer write to
/// the calls: it is fenced off.
#[tokio::test]
async fn a_live_instances_calls_are_left_alone_and_taken_over_once_it_is_gone() {
    let receiver = Receiver::start().await;
    let store = Arc::new(agentcall::MemoryStore::new());
    let link = Arc::new(Severable {
        store: store.clone(),
        cut: Default::default(),
    });
    // Long enough that a busy CI machine does not starve a renewal.
    let lease = Duration::from_millis(1000);
    let first = builder()
        .store(link.clone())
        .carrier(Arc::new(SilentCarrier::default()))
        .call_lease(lease)
        // Its deadline passes while it is cut off; when it is back, the
        // hang-up grace ends and it would end the calls as `carrier_lost`.
        .ring_timeout(Duration::from_millis(4000))
        .hang_up_grace(Duration::from_millis(100))
        .build()
        .unwrap();
    let api = Api::new(first.clone());
    let mut ids = Vec::new();
    for _ in 0..3 {
        let body = json!({"to": "+14155550125", "objective": "x", "webhookUrl": receiver.url});
        ids.push(place(&api, KEY_A1, body).await);
    }
    let carrier = Arc::new(ResumingCarrier::default());
    let second = builder()
        .store(store.clone())
        .carrier(carrier.clone())
        .call_lease(lease)
        .build()
        .unwrap();
    assert_eq!(
        second.recover().await.unwrap(),
        Default::default(),
        "a live instance's calls are not recovered"
    );
    // Several lease periods later, the first instance still holds them.
    tokio::time::sleep(lease * 3).await;
    for id in &ids {
        let call = store.get(&id.parse().unwrap()).await.unwrap().unwrap();
        assert_eq!(call.record.status, CallStatus::Queued);
        assert_eq!(call.lease.unwrap().holder, *first.instance_id());
    }

    link.cut.store(true, std::sync::atomic::Ordering::SeqCst);
    // The second instance's keeper takes the calls over and the carrier
    // resumes them: they are followed by the second instance now.
    for _ in 0..1000 {
        if carrier.0.lock().unwrap().len() == ids.len() {
            break;
        }
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
    assert_eq!(
        carrier.0.lock().unwrap().len(),
        ids.len(),
        "every call taken over"
    );
    for id in &ids {
        let call = store.get(&id.parse().unwrap()).await.unwrap().unwrap();
        assert_eq!(call.lease.unwrap().holder, *second.instance_id());
    }

    // The first instance comes back after its deadlines passed.
    tokio::time::sleep(Duration::from_millis(2500)).await;
    link.cut.store(false, std::sync::atomic::Ordering::SeqCst);
    for _ in 0..3000 {
        if first.calls_in_flight() == 0 {
            break;
        }
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
    assert_eq!(
        first.calls_in_flight(),
        0,
        "the fenced instance stopped following"
    );
    for id in &ids {
        let call = store.get(&id.parse().unwrap()).await.unwrap().unwrap();
        assert!(
            !call.record.status.is_terminal(),
            "the former holder wrote over the new one: {:?}",
            call.record
        );
    }
    // The new holder's carrier ends the calls; each has one terminal event.
    let handles: Vec<_> = carrier.0.lock().unwrap().drain(..).collect();
    for handle in &handles {
        handle
            .report(agentcall::carrier::CarrierReport::Ended(
                agentcall::carrier::CarrierOutcome::new(CallStatus::NoAnswer),
            ))
            .unwrap();
    }
    let api = Api::new(second.clone());
    for id in &ids {
        let record = wait_terminal(&api, KEY_A1, id).await;
        assert_eq!(record.status, CallStatus::NoAnswer);
    }
    receiver
        .wait_for(|r| {
            ids.iter()
                .all(|id| r.iter().any(|x| x.json()["callId"] == id.as_str()))
        })
        .await;
    tokio::time::sleep(Duration::from_millis(100)).await;
    for id in &ids {
        let events: Vec<String> = receiver
            .for_call(id)
            .iter()
            .map(|r| r.json()["event"].as_str().unwrap().to_owned())
            .collect();
        assert_eq!(
            events,
            ["call.no_answer"],
            "one terminal event, from the new holder"
        );
    }
}

/// Carrier notes: concurrent writers (two callbacks on two instances) both
/// land, through compare-and-set; a running call's dial request can be
/// read by id, and an ended call's cannot.
#[tokio::test]
async fn carrier_notes_from_concurrent_callbacks_all_land() {
    let carrier = CallbackCarrier::silent();
    let service = builder()
        .carrier(Arc::new(carrier.clone()))
        .build()
        .unwrap();
    let link = carrier.link();
    let me = service
        .authenticate(&agentcall::ApiKey::new(KEY_A1))
        .await
        .unwrap()
        .unwrap();
    let placed = service
        .place(
            &me,
            &agentcall::PlacementRequest::new("+14155550125", "Confirm the delivery"),
        )
        .await
        .unwrap();
    let id = placed.call_id.clone();
    let writers = (0..20u64).map(|n| {
        let (link, id) = (link.clone(), id.clone());
        tokio::spawn(async move {
            link.note(&id, |notes| {
                let seen = notes.last_sequence.unwrap_or(0);
                notes.last_sequence = Some(seen + 1);
                if n == 7 {
                    notes.carrier_call_id = Some("CA7".into());
                }
                true
            })
            .await
            .unwrap()
        })
    });
    for writer in writers.collect::<Vec<_>>() {
        writer.await.unwrap();
    }
    let notes = link.call(&id).await.unwrap().notes;
    assert_eq!(notes.last_sequence, Some(20), "every increment landed");
    assert_eq!(notes.carrier_call_id.as_deref(), Some("CA7"));
    let unchanged = link.note(&id, |_| false).await.unwrap();
    assert_eq!(unchanged, notes);
    let request = link.dial_request(&id).await.unwrap();
    assert_eq!(request.objective, "Confirm the delivery");
    service.cancel(&me, &id).await.unwrap();
    assert!(matches!(
        link.dial_request(&id).await,
        Err(agentcall::service::ServiceError::NotFound)
    ));
    // The link does not keep the service alive.
    service.shutdown(Duration::from_secs(1)).await;
    drop(service);
    assert!(matches!(
        link.call(&id).await,
        Err(agentcall::service::ServiceError::ShuttingDown)
    ));
}

/// A carrier whose reports arrive as callbacks, applied through the store
/// with its link, and which lets go of its progress handle as soon as the
/// end is in: the call ends as reported, not as `carrier_lost`. A silent
/// one says nothing after the dial.
#[derive(Debug, Clone, Default)]
struct CallbackCarrier {
    link: Arc<std::sync::Mutex<Option<agentcall::carrier::CarrierLink>>>,
    silent: bool,
}

impl CallbackCarrier {
    fn silent() -> Self {
        Self {
            silent: true,
            ..Self::default()
        }
    }

    fn link(&self) -> agentcall::carrier::CarrierLink {
        self.link.lock().unwrap().clone().expect("attached")
    }
}

#[async_trait::async_trait]
impl agentcall::Carrier for CallbackCarrier {
    /// A test carrier rings no one (the default calling window stays off).
    fn rings_real_phones(&self) -> bool {
        false
    }

    fn attach(&self, link: agentcall::carrier::CarrierLink) {
        *self.link.lock().unwrap() = Some(link);
    }

    async fn dial(
        &self,
        request: agentcall::carrier::DialRequest,
        progress: agentcall::carrier::ProgressHandle,
    ) -> Result<(), agentcall::carrier::CarrierError> {
        use agentcall::carrier::{CarrierOutcome, CarrierReport};
        if self.silent {
            std::mem::forget(progress); // never closes: the call waits
            return Ok(());
        }
        let service = self.link();
        // The outcome follows the destination's last digit, as in the
        // simulated carrier: 5 completed, 3 declined, 1 no answer, 2 voicemail.
        let status = agentcall::SimulatedCarrier::outcome_for(&request.to);
        tokio::spawn(async move {
            let id = agentcall::domain::CallAttempt::new(request.call_id, request.attempt);
            if matches!(status, CallStatus::Completed | CallStatus::Voicemail) {
                service.report(&id, CarrierReport::Answered).await.unwrap();
            }
            let mut outcome = CarrierOutcome::new(status);
            outcome.transcript =
                Some("Agent: Hello, this is an AI assistant.\nRecipient: Hi.".into());
            outcome.duration = Some(Duration::from_secs(42));
            service
                .report(&id, CarrierReport::Ended(outcome))
                .await
                .unwrap();
            drop(progress);
        });
        Ok(())
    }

    async fn hang_up(&self, _: &agentcall::CallId) -> Result<(), agentcall::carrier::CarrierError> {
        Ok(())
    }
}

#[tokio::test]
async fn a_carrier_that_reports_through_the_store_and_lets_go_ends_the_call_as_reported() {
    let carrier = CallbackCarrier::default();
    let service = builder()
        .carrier(Arc::new(carrier.clone()))
        .build()
        .unwrap();
    let api = Api::new(service);
    for round in 0..20 {
        let (to, status) = [
            ("+14155550125", CallStatus::Completed),
            ("+14155550123", CallStatus::Declined),
            ("+14155550121", CallStatus::NoAnswer),
            ("+14155550122", CallStatus::Voicemail),
        ][round % 4];
        let id = place(&api, KEY_A1, json!({"to": to, "objective": "Say hello"})).await;
        let record = wait_terminal(&api, KEY_A1, &id).await;
        assert_eq!(record.status, status, "{:?}", record.error);
        if status == CallStatus::Completed {
            assert_eq!(record.duration_sec, Some(42));
        }
    }
}
