//! Retries of calls that reached no one, through the HTTP API, on a clock
//! the tests set by hand: an attempt the policy retries goes back to
//! `queued`, waits (a waiting lease, like a scheduled call) and is dialed
//! again by whichever instance takes the lapsed lease over; `recover()`
//! runs that takeover at once.

mod common;
#[path = "common/pausing_store.rs"]
mod pausing_store;

use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use agentcall::carrier::{CarrierError, DialRequest, ProgressHandle};
use agentcall::clock::ManualClock;
use agentcall::domain::{CallAttempt, CallId};
use agentcall::guardrails::{BillingPeriod, MemoryUsageLedger, Usage, UsageLedger};
use agentcall::{AgentCall, Api, CallStatus, Carrier, SimulatedCarrier};
use chrono::{DateTime, Utc};
use common::*;
use http::StatusCode;
use serde_json::{Value, json};

/// 212 is New York (America/New_York).
const NEW_YORK: &str = "+12125550170";

fn utc(text: &str) -> DateTime<Utc> {
    text.parse().unwrap()
}

/// The simulated carrier, with the outcome of each dial of a call set by
/// the test: the `n`-th dial of a call gets the `n`-th outcome of the
/// script (the last repeating), by handing the simulated carrier a
/// destination whose last digit picks that outcome (see the README's test
/// numbers). A completed dial is a whole simulated conversation.
#[derive(Debug)]
struct ScriptedCarrier {
    inner: SimulatedCarrier,
    script: Vec<CallStatus>,
    dials: Mutex<HashMap<CallId, Vec<u32>>>,
}

impl ScriptedCarrier {
    fn new(script: &[CallStatus]) -> Self {
        Self {
            inner: SimulatedCarrier::new(fast_simulation()),
            script: script.to_vec(),
            dials: Mutex::default(),
        }
    }

    /// The attempt numbers the carrier was asked to dial, in order.
    fn dials(&self, id: &str) -> Vec<u32> {
        let id: CallId = id.parse().unwrap();
        self.dials
            .lock()
            .unwrap()
            .get(&id)
            .cloned()
            .unwrap_or_default()
    }
}

#[async_trait::async_trait]
impl Carrier for ScriptedCarrier {
    fn rings_real_phones(&self) -> bool {
        false
    }

    async fn dial(
        &self,
        mut request: DialRequest,
        progress: ProgressHandle,
    ) -> Result<(), CarrierError> {
        let dialed = {
            let mut dials = self.dials.lock().unwrap();
            let dials = dials.entry(request.call_id.clone()).or_default();
            dials.push(request.attempt);
            dials.len()
        };
        let outcome = self.script[(dialed - 1).min(self.script.len() - 1)];
        let digit = match outcome {
            CallStatus::NoAnswer => '1',
            CallStatus::Voicemail => '2',
            CallStatus::Declined => '3',
            CallStatus::Failed => '4',
            _ => '5',
        };
        request.to.pop();
        request.to.push(digit);
        self.inner.dial(request, progress).await
    }

    async fn hang_up(&self, id: &CallId) -> Result<(), CarrierError> {
        self.inner.hang_up(id).await
    }
}

struct Setup {
    service: AgentCall,
    api: Api,
    clock: Arc<ManualClock>,
    carrier: Arc<ScriptedCarrier>,
    ledger: Arc<MemoryUsageLedger>,
}

fn setup(now: &str, script: &[CallStatus]) -> Setup {
    setup_with(now, script, |builder| builder)
}

fn setup_with(
    now: &str,
    script: &[CallStatus],
    configure: impl FnOnce(agentcall::AgentCallBuilder) -> agentcall::AgentCallBuilder,
) -> Setup {
    let clock = Arc::new(ManualClock::new(utc(now)));
    let carrier = Arc::new(ScriptedCarrier::new(script));
    let ledger = Arc::new(MemoryUsageLedger::new());
    let service = configure(
        builder()
            .clock(clock.clone())
            .carrier(carrier.clone())
            .usage_ledger(ledger.clone()),
    )
    .build()
    .unwrap();
    Setup {
        api: Api::new(service.clone()),
        service,
        clock,
        carrier,
        ledger,
    }
}

/// A service on a clock at 2026-12-01 15:00 UTC whose carrier is
/// `carrier`, set up further by `configure`, and its HTTP API.
fn on_carrier(
    carrier: Arc<dyn Carrier>,
    configure: impl FnOnce(agentcall::AgentCallBuilder) -> agentcall::AgentCallBuilder,
) -> (AgentCall, Api, Arc<ManualClock>) {
    let clock = Arc::new(ManualClock::new(utc("2026-12-01T15:00:00Z")));
    let service = configure(builder().clock(clock.clone()).carrier(carrier))
        .build()
        .unwrap();
    (service.clone(), Api::new(service), clock)
}

async fn record(api: &Api, id: &str) -> Value {
    let (status, _, bytes) = send(api, get(Some(KEY_A1), &format!("/v1/agent/calls/{id}"))).await;
    assert_eq!(status, StatusCode::OK);
    json(&bytes)
}

/// Polls until the call waits for its next attempt (its current attempt
/// ended and was retried), and returns the record then.
async fn wait_retried(api: &Api, id: &str, attempts: usize) -> Value {
    for _ in 0..1_000 {
        let record = record(api, id).await;
        if record["attempts"].as_array().unwrap().len() == attempts {
            assert_eq!(record["status"], "queued", "{record}");
            return record;
        }
        assert!(
            !record["status"]
                .as_str()
                .unwrap()
                .parse::<CallStatus>()
                .unwrap()
                .is_terminal(),
            "ended instead of being retried: {record}"
        );
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
    panic!("call {id} was not retried");
}

fn body(retry: Value) -> Value {
    json!({"to": NEW_YORK, "objective": "Confirm the delivery", "retry": retry})
}

fn ms(at: &str) -> i64 {
    utc(at).timestamp_millis()
}

/// The usage of account A in the period of `at`, once it is `expected`
/// (a settlement lands just after the record's change); as it is after a
/// second otherwise.
async fn usage(s: &Setup, at: &str, expected: Usage) -> Usage {
    let period = BillingPeriod::default().start_of(utc(at));
    let mut usage = Usage::default();
    for _ in 0..100 {
        usage = s
            .ledger
            .usage(&"acct_a".parse().unwrap(), period)
            .await
            .unwrap();
        if usage == expected {
            break;
        }
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
    usage
}

#[tokio::test]
async fn an_unanswered_call_is_retried_after_its_delay_and_then_completes() {
    let receiver = Receiver::start().await;
    let s = setup(
        "2026-12-01T15:00:00Z",
        &[CallStatus::NoAnswer, CallStatus::Completed],
    );
    let mut placement = body(json!({"maxAttempts": 3, "delayMinutes": [30]}));
    placement["webhookUrl"] = json!(receiver.url);
    placement["fields"] = json!([{"name": "confirmed", "type": "boolean"}]);
    let id = place(&s.api, KEY_A1, placement).await;

    let waiting = wait_retried(&s.api, &id, 1).await;
    assert_eq!(waiting["attempt"], 1);
    let first = &waiting["attempts"][0];
    assert_eq!(
        (first["attempt"].as_u64(), first["status"].as_str()),
        (Some(1), Some("no_answer"))
    );
    assert_eq!(
        (&first["startedAt"], first["durationSec"].as_u64()),
        (&Value::Null, Some(0))
    );
    assert_eq!(first["endedAt"], "2026-12-01T15:00:00.000Z");
    assert!(waiting["endedAt"].is_null() && waiting["durationSec"].is_null());
    // The unanswered attempt is settled: nothing reserved, nothing billed.
    let expected = Usage::new(0, 0);
    assert_eq!(usage(&s, "2026-12-01T15:00:00Z", expected).await, expected);

    s.clock.set(utc("2026-12-01T15:29:59Z"));
    assert_eq!(s.service.recover().await.unwrap().started, 0);
    assert_eq!(s.carrier.dials(&id), [1]);
    s.clock.set(utc("2026-12-01T15:30:01Z"));
    assert_eq!(s.service.recover().await.unwrap().started, 1);
    let ended = wait_terminal(&s.api, KEY_A1, &id).await;
    assert_eq!(ended.status, CallStatus::Completed);
    assert_eq!((ended.attempt, ended.attempts.len()), (2, 1));
    assert!(ended.transcript.is_some() && ended.summary.is_some());
    assert_eq!(s.carrier.dials(&id), [1, 2]);
    let billed = agentcall::guardrails::billed_minutes(ended.duration_sec.unwrap()).max(1);
    let expected = Usage::new(billed, 0);
    assert_eq!(usage(&s, "2026-12-01T15:00:00Z", expected).await, expected);

    // One call.in_progress and one terminal event, for the last attempt;
    // the retried attempt fired nothing.
    receiver
        .wait_for(|got| got.iter().any(|r| r.json()["event"] == "call.completed"))
        .await;
    let events: Vec<String> = receiver
        .for_call(&id)
        .iter()
        .map(|r| r.json()["event"].as_str().unwrap().to_owned())
        .collect();
    assert_eq!(events, ["call.in_progress", "call.completed"]);
    let completed = receiver
        .for_call(&id)
        .into_iter()
        .find(|r| r.json()["event"] == "call.completed")
        .unwrap()
        .json();
    assert!(completed["startedAt"].as_str().is_some());
    assert!(ms(completed["startedAt"].as_str().unwrap()) >= ms("2026-12-01T15:30:00Z"));
}

#[tokio::test]
async fn retries_stop_at_max_attempts_and_the_last_outcome_ends_the_call_once() {
    let receiver = Receiver::start().await;
    let s = setup("2026-12-01T15:00:00Z", &[CallStatus::NoAnswer]);
    let mut placement = body(json!({"maxAttempts": 3, "delayMinutes": [10, 60]}));
    placement["webhookUrl"] = json!(receiver.url);
    let id = place(&s.api, KEY_A1, placement).await;
    wait_retried(&s.api, &id, 1).await;
    // The first delay, then the second.
    s.clock.set(utc("2026-12-01T15:10:01Z"));
    assert_eq!(s.service.recover().await.unwrap().started, 1);
    wait_retried(&s.api, &id, 2).await;
    s.clock.set(utc("2026-12-01T16:10:00Z"));
    assert_eq!(s.service.recover().await.unwrap().started, 0);
    s.clock.set(utc("2026-12-01T16:10:02Z"));
    assert_eq!(s.service.recover().await.unwrap().started, 1);
    let ended = wait_terminal(&s.api, KEY_A1, &id).await;
    assert_eq!(ended.status, CallStatus::NoAnswer);
    assert_eq!(ended.attempt, 3);
    let statuses: Vec<(u32, CallStatus)> = ended
        .attempts
        .iter()
        .map(|a| (a.attempt, a.status))
        .collect();
    assert_eq!(
        statuses,
        [(1, CallStatus::NoAnswer), (2, CallStatus::NoAnswer)]
    );
    assert_eq!(s.carrier.dials(&id), [1, 2, 3]);
    s.clock.set(utc("2026-12-02T16:10:00Z"));
    assert_eq!(s.service.recover().await.unwrap().started, 0);
    receiver
        .wait_for(|got| got.iter().any(|r| r.json()["event"] == "call.no_answer"))
        .await;
    // Let any stray event arrive before counting.
    tokio::time::sleep(Duration::from_millis(200)).await;
    assert_eq!(receiver.for_call(&id).len(), 1, "one terminal event");
    let expected = Usage::new(0, 0);
    assert_eq!(usage(&s, "2026-12-01T15:00:00Z", expected).await, expected);
}

#[tokio::test]
async fn only_the_listed_outcomes_and_transient_failures_are_retried() {
    // Declined is not in `on`: the call ends at once.
    let s = setup("2026-12-01T15:00:00Z", &[CallStatus::Declined]);
    let id = place(
        &s.api,
        KEY_A1,
        body(json!({"maxAttempts": 3, "on": ["no_answer"]})),
    )
    .await;
    let ended = wait_terminal(&s.api, KEY_A1, &id).await;
    assert_eq!((ended.status, ended.attempt), (CallStatus::Declined, 1));
    assert!(ended.attempts.is_empty());

    // A completed call is never retried.
    let s = setup("2026-12-01T15:00:00Z", &[CallStatus::Completed]);
    let id = place(&s.api, KEY_A1, body(json!({"maxAttempts": 5}))).await;
    assert_eq!(
        wait_terminal(&s.api, KEY_A1, &id).await.status,
        CallStatus::Completed
    );
    s.clock.set(utc("2026-12-02T15:00:00Z"));
    assert_eq!(s.service.recover().await.unwrap().started, 0);
    assert_eq!(s.carrier.dials(&id), [1]);

    // The carrier could not be reached (`carrier_unreachable`): retried
    // whatever `on` says.
    let s = setup(
        "2026-12-01T15:00:00Z",
        &[CallStatus::Failed, CallStatus::Completed],
    );
    let id = place(
        &s.api,
        KEY_A1,
        body(json!({"maxAttempts": 2, "on": ["voicemail"], "delayMinutes": [5]})),
    )
    .await;
    let waiting = wait_retried(&s.api, &id, 1).await;
    assert_eq!(
        (
            waiting["attempts"][0]["status"].as_str(),
            waiting["attempts"][0]["error"].as_str()
        ),
        (Some("failed"), Some("carrier_unreachable"))
    );
    s.clock.set(utc("2026-12-01T15:05:01Z"));
    assert_eq!(s.service.recover().await.unwrap().started, 1);
    assert_eq!(
        wait_terminal(&s.api, KEY_A1, &id).await.status,
        CallStatus::Completed
    );
}

#[tokio::test]
async fn a_retried_voicemail_is_billed_and_the_call_is_answered_once() {
    let receiver = Receiver::start().await;
    let s = setup(
        "2026-12-01T15:00:00Z",
        &[CallStatus::Voicemail, CallStatus::Completed],
    );
    let mut placement = body(json!({"maxAttempts": 2, "on": ["voicemail"], "delayMinutes": [120]}));
    placement["webhookUrl"] = json!(receiver.url);
    let id = place(&s.api, KEY_A1, placement).await;
    let waiting = wait_retried(&s.api, &id, 1).await;
    let voicemail = &waiting["attempts"][0];
    assert_eq!(voicemail["status"], "voicemail");
    assert!(voicemail["startedAt"].is_string() && voicemail["durationSec"].as_u64().is_some());
    // A voicemail is a connected call: its minute is billed now.
    let expected = Usage::new(1, 0);
    assert_eq!(usage(&s, "2026-12-01T15:00:00Z", expected).await, expected);
    s.clock.set(utc("2026-12-01T17:00:01Z"));
    assert_eq!(s.service.recover().await.unwrap().started, 1);
    let ended = wait_terminal(&s.api, KEY_A1, &id).await;
    assert_eq!(ended.status, CallStatus::Completed);
    let billed = agentcall::guardrails::billed_minutes(ended.duration_sec.unwrap()).max(1);
    let expected = Usage::new(1 + billed, 0);
    assert_eq!(usage(&s, "2026-12-01T15:00:00Z", expected).await, expected);
    receiver
        .wait_for(|got| got.iter().any(|r| r.json()["event"] == "call.completed"))
        .await;
    let events: Vec<String> = receiver
        .for_call(&id)
        .iter()
        .map(|r| r.json()["event"].as_str().unwrap().to_owned())
        .collect();
    assert_eq!(
        events,
        ["call.in_progress", "call.completed"],
        "answered twice, in_progress once"
    );
}

#[tokio::test]
async fn a_retry_waits_for_the_calling_window() {
    // 20:40 EST; the 30-minute delay ends at 21:10, after the window.
    let s = setup(
        "2026-12-02T01:40:00Z",
        &[CallStatus::NoAnswer, CallStatus::Completed],
    );
    let mut placement = body(json!({"maxAttempts": 2, "delayMinutes": [30]}));
    placement["callingWindow"] = json!({"start": "08:00", "end": "21:00"});
    let id = place(&s.api, KEY_A1, placement).await;
    wait_retried(&s.api, &id, 1).await;
    s.clock.set(utc("2026-12-02T02:10:00Z"));
    assert_eq!(s.service.recover().await.unwrap().started, 0);
    s.clock.set(utc("2026-12-02T12:59:59Z"));
    assert_eq!(s.service.recover().await.unwrap().started, 0);
    s.clock.set(utc("2026-12-02T13:00:01Z"));
    assert_eq!(s.service.recover().await.unwrap().started, 1);
    assert_eq!(
        wait_terminal(&s.api, KEY_A1, &id).await.status,
        CallStatus::Completed
    );
}

#[tokio::test]
async fn a_cancel_while_a_retry_waits_stops_it() {
    let receiver = Receiver::start().await;
    let s = setup("2026-12-01T15:00:00Z", &[CallStatus::NoAnswer]);
    let mut placement = body(json!({"maxAttempts": 3, "delayMinutes": [30]}));
    placement["webhookUrl"] = json!(receiver.url);
    let id = place(&s.api, KEY_A1, placement).await;
    wait_retried(&s.api, &id, 1).await;
    let cancel = http::Request::post(format!("/v1/agent/calls/{id}/cancel"))
        .header("authorization", format!("Bearer {KEY_A1}"))
        .body(String::new())
        .unwrap();
    let (status, _, bytes) = send(&s.api, cancel).await;
    assert_eq!(status, StatusCode::OK);
    let canceled = json(&bytes);
    assert_eq!(
        (
            canceled["status"].as_str(),
            canceled["error"].as_str(),
            canceled["attempts"].as_array().map(Vec::len)
        ),
        (Some("failed"), Some("canceled"), Some(1))
    );
    s.clock.set(utc("2026-12-01T16:00:00Z"));
    assert_eq!(s.service.recover().await.unwrap().started, 0);
    assert_eq!(s.carrier.dials(&id), [1]);
    receiver
        .wait_for(|got| got.iter().any(|r| r.json()["event"] == "call.failed"))
        .await;
    tokio::time::sleep(Duration::from_millis(200)).await;
    assert_eq!(receiver.for_call(&id).len(), 1);
    let expected = Usage::new(0, 0);
    assert_eq!(usage(&s, "2026-12-01T15:00:00Z", expected).await, expected);
}

#[tokio::test]
async fn the_accounts_policy_applies_unless_the_placement_gives_its_own() {
    let mut account = account_a();
    account.retry = Some(
        agentcall::schedule::RetryPolicy::new(2, &[agentcall::schedule::RetryOn::NoAnswer], &[15])
            .unwrap(),
    );
    let s = setup_with("2026-12-01T15:00:00Z", &[CallStatus::NoAnswer], |builder| {
        builder.directory(Arc::new(directory_with(account, account_b())))
    });
    let by_account = place(
        &s.api,
        KEY_A1,
        json!({"to": NEW_YORK, "objective": "Confirm"}),
    )
    .await;
    wait_retried(&s.api, &by_account, 1).await;
    // `maxAttempts: 1` turns the account's retries off for one call.
    let once = place(&s.api, KEY_A1, body(json!({"maxAttempts": 1}))).await;
    let ended = wait_terminal(&s.api, KEY_A1, &once).await;
    assert_eq!((ended.status, ended.attempt), (CallStatus::NoAnswer, 1));
    s.clock.set(utc("2026-12-01T15:15:01Z"));
    assert_eq!(s.service.recover().await.unwrap().started, 1);
    let ended = wait_terminal(&s.api, KEY_A1, &by_account).await;
    assert_eq!((ended.status, ended.attempt), (CallStatus::NoAnswer, 2));
}

#[tokio::test]
async fn a_retry_is_charged_like_a_placement() {
    // Two placements a minute for the key.
    let mut account = account_a();
    account.calls_per_minute = 2;
    account.minute_cap = 30;
    let s = setup_with(
        "2026-12-01T15:00:00Z",
        &[CallStatus::NoAnswer, CallStatus::Completed],
        |builder| builder.directory(Arc::new(directory_with(account, account_b()))),
    );
    let id = place(
        &s.api,
        KEY_A1,
        body(json!({"maxAttempts": 3, "delayMinutes": [1]})),
    )
    .await;
    wait_retried(&s.api, &id, 1).await;

    // When the retry is due, two other placements have spent the minute's
    // budget: the retry waits for the budget, it does not fail.
    s.clock.set(utc("2026-12-01T15:01:30Z"));
    for _ in 0..2 {
        place(
            &s.api,
            KEY_A1,
            json!({"to": NUMBER_B, "objective": "Other"}),
        )
        .await;
    }
    assert_eq!(s.service.recover().await.unwrap().started, 0);
    assert_eq!(record(&s.api, &id).await["status"], "queued");
    s.clock.set(utc("2026-12-01T15:02:31Z"));
    assert_eq!(s.service.recover().await.unwrap().started, 1);
    assert_eq!(
        wait_terminal(&s.api, KEY_A1, &id).await.status,
        CallStatus::Completed
    );

    // A retry that finds the minute cap used up ends the call.
    let id = place(
        &s.api,
        KEY_A1,
        body(json!({"maxAttempts": 3, "delayMinutes": [1]})),
    )
    .await;
    wait_retried(&s.api, &id, 1).await;
    let period = BillingPeriod::default().start_of(utc("2026-12-01T15:00:00Z"));
    let account_id = "acct_a".parse().unwrap();
    let hog = CallAttempt::first(CallId::generate());
    while s
        .ledger
        .reserve(&account_id, &hog, period, 30, 10)
        .await
        .is_ok()
    {}
    s.clock.set(utc("2026-12-01T15:10:00Z"));
    assert_eq!(s.service.recover().await.unwrap().ended, 1);
    let ended = wait_terminal(&s.api, KEY_A1, &id).await;
    assert_eq!(
        (
            ended.status,
            ended.error.map(|e| e.as_str()),
            ended.attempts.len()
        ),
        (CallStatus::Failed, Some("over_minute_cap"), 1)
    );
}

#[tokio::test]
async fn malformed_retry_policies_are_rejected_with_their_tokens() {
    let s = setup("2026-12-01T15:00:00Z", &[CallStatus::Completed]);
    for retry in [
        json!({"maxAttempts": 0}),
        json!({"maxAttempts": 6}),
        json!({"maxAttempts": "3"}),
        json!({"maxAttempts": 2.5}),
        json!({"on": ["no_answer"]}),
        json!({"maxAttempts": 2, "on": []}),
        json!({"maxAttempts": 2, "on": ["busy"]}),
        json!({"maxAttempts": 2, "delayMinutes": []}),
        json!({"maxAttempts": 2, "delayMinutes": [0]}),
        json!({"maxAttempts": 2, "delayMinutes": [10_081]}),
        json!({"maxAttempts": 2, "delayMinutes": [1, 2, 3, 4, 5]}),
        json!([3, ["no_answer"], [30]]),
        json!(3),
    ] {
        let (status, _, bytes) =
            send(&s.api, post(Some(KEY_A1), body(retry.clone()).to_string())).await;
        assert_eq!(
            (status, json(&bytes)["error"].as_str()),
            (StatusCode::BAD_REQUEST, Some("invalid_retry")),
            "{retry}"
        );
    }
    let (status, _, bytes) = send(
        &s.api,
        post(Some(KEY_A1), body(json!({"maxAttempt": 3})).to_string()),
    )
    .await;
    assert_eq!(status, StatusCode::BAD_REQUEST);
    let error = json(&bytes);
    assert_eq!(
        (error["error"].as_str(), error["field"].as_str()),
        (Some("unknown_field"), Some("retry.maxAttempt"))
    );
    // `null` is absent, as for every optional field.
    let (status, _, _) = send(&s.api, post(Some(KEY_A1), body(Value::Null).to_string())).await;
    assert_eq!(status, StatusCode::CREATED);
    assert_eq!(s.carrier.dials.lock().unwrap().len(), 1);
}

/// A restart while a retry waits: one instance places a call whose first
/// attempt is not answered and stops; a second one, made by `instance` on
/// the same database, dials the retry when it is due, exactly once, and
/// the attempts' bill is in the ledger the instances share.
async fn a_retry_wait_survives_a_restart_on<F, Fut>(instance: F)
where
    F: Fn(Arc<ManualClock>, Arc<ScriptedCarrier>) -> Fut,
    Fut: std::future::Future<Output = (AgentCall, Arc<dyn UsageLedger>)>,
{
    let clock = Arc::new(ManualClock::new(utc("2026-12-01T15:00:00Z")));
    let carrier = Arc::new(ScriptedCarrier::new(&[
        CallStatus::NoAnswer,
        CallStatus::Completed,
    ]));
    let (first, _) = instance(clock.clone(), carrier.clone()).await;
    let id = place(
        &Api::new(first.clone()),
        KEY_A1,
        body(json!({"maxAttempts": 2, "delayMinutes": [30]})),
    )
    .await;
    wait_retried(&Api::new(first.clone()), &id, 1).await;
    first.shutdown(Duration::from_secs(5)).await;
    drop(first);

    let (second, ledger) = instance(clock.clone(), carrier.clone()).await;
    assert_eq!(second.recover().await.unwrap().started, 0);
    clock.set(utc("2026-12-01T15:30:01Z"));
    assert_eq!(second.recover().await.unwrap().started, 1);
    let api = Api::new(second.clone());
    let ended = wait_terminal(&api, KEY_A1, &id).await;
    assert_eq!((ended.status, ended.attempt), (CallStatus::Completed, 2));
    assert_eq!(carrier.dials(&id), [1, 2]);
    second.shutdown(Duration::from_secs(5)).await;
    let period = BillingPeriod::default().start_of(utc("2026-12-01T15:00:00Z"));
    let usage = ledger
        .usage(&"acct_a".parse().unwrap(), period)
        .await
        .unwrap();
    let billed = agentcall::guardrails::billed_minutes(ended.duration_sec.unwrap()).max(1);
    assert_eq!(usage, Usage::new(billed, 0));
}

#[cfg(feature = "sqlite")]
#[tokio::test]
async fn a_retry_wait_survives_a_restart() {
    use agentcall::store::SqliteStore;
    let path = common::process::TempPath::unique("db");
    a_retry_wait_survives_a_restart_on(|clock, carrier| async {
        let store = Arc::new(SqliteStore::open(&path.0).await.expect("open"));
        let ledger: Arc<dyn UsageLedger> = Arc::new(store.usage_ledger());
        let service = builder()
            .usage_ledger(ledger.clone())
            .store(store)
            .clock(clock)
            .carrier(carrier)
            .build()
            .unwrap();
        (service, ledger)
    })
    .await;
}

#[cfg(feature = "postgres")]
#[path = "common/pg.rs"]
mod pg;

#[cfg(feature = "postgres")]
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_retry_wait_survives_a_restart_on_postgresql() {
    let Some(schema) = pg::TestSchema::create().await else {
        return;
    };
    a_retry_wait_survives_a_restart_on(|clock, carrier| async {
        let store = Arc::new(schema.store(4).await);
        let ledger: Arc<dyn UsageLedger> = Arc::new(store.usage_ledger());
        let service = builder()
            .usage_ledger(ledger.clone())
            .rate_limiter(Arc::new(store.rate_limiter()))
            .store(store)
            .clock(clock)
            .carrier(carrier)
            .build()
            .unwrap();
        (service, ledger)
    })
    .await;
    schema.drop().await;
}

/// The dials a test carrier was asked for, call and attempt, in order.
#[derive(Debug, Default)]
struct Dials(Mutex<Vec<(CallId, u32)>>);

impl Dials {
    fn note(&self, request: &DialRequest) {
        let dial = (request.call_id.clone(), request.attempt);
        self.0.lock().unwrap().push(dial);
    }

    fn all(&self) -> Vec<(CallId, u32)> {
        self.0.lock().unwrap().clone()
    }
}

/// A carrier whose reports arrive as callbacks: it keeps each dial's
/// progress handle (the service's follower waits on it) and the test
/// reports through the carrier's link, naming the attempt, as a callback
/// handler does.
#[derive(Debug, Default)]
struct CallbackCarrier {
    dials: Dials,
    held: Mutex<Vec<ProgressHandle>>,
    link: Mutex<Option<agentcall::carrier::CarrierLink>>,
}

impl CallbackCarrier {
    fn link(&self) -> agentcall::carrier::CarrierLink {
        self.link.lock().unwrap().clone().expect("attached")
    }
}

#[async_trait::async_trait]
impl Carrier for CallbackCarrier {
    fn rings_real_phones(&self) -> bool {
        false
    }

    fn attach(&self, link: agentcall::carrier::CarrierLink) {
        *self.link.lock().unwrap() = Some(link);
    }

    async fn dial(
        &self,
        request: DialRequest,
        progress: ProgressHandle,
    ) -> Result<(), CarrierError> {
        self.dials.note(&request);
        self.held.lock().unwrap().push(progress);
        Ok(())
    }

    async fn hang_up(&self, _: &CallId) -> Result<(), CarrierError> {
        Ok(())
    }
}

#[tokio::test]
async fn late_reports_about_an_earlier_attempt_change_nothing() {
    use agentcall::carrier::{CarrierOutcome, CarrierReport};
    let carrier = Arc::new(CallbackCarrier::default());
    let (service, api, clock) = on_carrier(carrier.clone(), |builder| builder);
    let link = carrier.link();
    let id = place(
        &api,
        KEY_A1,
        body(json!({"maxAttempts": 2, "on": ["no_answer", "voicemail"], "delayMinutes": [5]})),
    )
    .await;
    let call: CallId = id.parse().unwrap();
    let first = CallAttempt::new(call.clone(), 1);
    let second = CallAttempt::new(call.clone(), 2);
    let ended = |status| CarrierReport::Ended(CarrierOutcome::new(status));

    link.report(&first, ended(CallStatus::NoAnswer))
        .await
        .unwrap();
    let waiting = record(&api, &id).await;
    assert_eq!(
        (
            waiting["status"].as_str(),
            waiting["attempts"].as_array().map(Vec::len)
        ),
        (Some("queued"), Some(1))
    );
    // Twilio sends its callbacks again, and late: none of them moves the
    // call that waits for its retry.
    for late in [
        CarrierReport::Dialing,
        CarrierReport::Answered,
        ended(CallStatus::NoAnswer),
        ended(CallStatus::Voicemail),
        ended(CallStatus::Completed),
    ] {
        link.report(&first, late).await.unwrap();
        assert_eq!(record(&api, &id).await, waiting);
    }
    // Nor does a report of an attempt not yet made.
    link.report(&second, ended(CallStatus::NoAnswer))
        .await
        .unwrap();
    assert_eq!(record(&api, &id).await, waiting);

    clock.set(utc("2026-12-01T15:05:01Z"));
    assert_eq!(service.recover().await.unwrap().started, 1);
    assert_eq!(carrier.dials.all(), [(call.clone(), 1), (call.clone(), 2)]);
    // The first attempt's late end does not end the second.
    link.report(&first, ended(CallStatus::NoAnswer))
        .await
        .unwrap();
    let running = record(&api, &id).await;
    assert_eq!(
        (running["status"].as_str(), running["attempt"].as_u64()),
        (Some("queued"), Some(2))
    );
    link.report(&second, CarrierReport::Answered).await.unwrap();
    let mut outcome = CarrierOutcome::new(CallStatus::Completed);
    outcome.transcript = Some("Agent: Hello, this is an AI assistant.\nRecipient: Hi.".into());
    outcome.duration = Some(Duration::from_secs(42));
    link.report(&second, CarrierReport::Ended(outcome))
        .await
        .unwrap();
    let ended = wait_terminal(&api, KEY_A1, &id).await;
    assert_eq!(
        (ended.status, ended.attempt, ended.duration_sec),
        (CallStatus::Completed, 2, Some(42))
    );
    assert_eq!(ended.attempts.len(), 1);
    service.shutdown(Duration::from_secs(1)).await;
}

/// A machine answers every dial and stays on the line; a hang-up ends the
/// attempt as the carrier would report it: voicemail.
#[derive(Debug, Default)]
struct Machine {
    dials: Dials,
    live: Mutex<HashMap<CallId, ProgressHandle>>,
}

#[async_trait::async_trait]
impl Carrier for Machine {
    fn rings_real_phones(&self) -> bool {
        false
    }

    async fn dial(
        &self,
        request: DialRequest,
        progress: ProgressHandle,
    ) -> Result<(), CarrierError> {
        use agentcall::carrier::CarrierReport;
        self.dials.note(&request);
        let _ = progress.report(CarrierReport::Dialing);
        let _ = progress.report(CarrierReport::Answered);
        self.live.lock().unwrap().insert(request.call_id, progress);
        Ok(())
    }

    async fn hang_up(&self, id: &CallId) -> Result<(), CarrierError> {
        use agentcall::carrier::{CarrierOutcome, CarrierReport};
        if let Some(progress) = self.live.lock().unwrap().remove(id) {
            let mut outcome = CarrierOutcome::new(CallStatus::Voicemail);
            outcome.duration = Some(Duration::from_secs(5));
            let _ = progress.report(CarrierReport::Ended(outcome));
        }
        Ok(())
    }
}

impl Machine {
    /// The machine ends the attempt itself (its greeting timed out): the
    /// carrier reports voicemail.
    fn hangs_up(&self, id: &CallId) {
        use agentcall::carrier::{CarrierOutcome, CarrierReport};
        if let Some(progress) = self.live.lock().unwrap().remove(id) {
            let mut outcome = CarrierOutcome::new(CallStatus::Voicemail);
            outcome.duration = Some(Duration::from_secs(5));
            let _ = progress.report(CarrierReport::Ended(outcome));
        }
    }
}

async fn cancel(api: &Api, id: &str) -> Value {
    let cancel = http::Request::post(format!("/v1/agent/calls/{id}/cancel"))
        .header("authorization", format!("Bearer {KEY_A1}"))
        .body(String::new())
        .unwrap();
    let (_, _, bytes) = send(api, cancel).await;
    json(&bytes)
}

#[tokio::test]
async fn cancelling_an_answered_voicemail_attempt_ends_the_call_for_good() {
    let carrier = Arc::new(Machine::default());
    let (service, api, clock) = on_carrier(carrier.clone(), |builder| builder);
    let id = place(
        &api,
        KEY_A1,
        body(json!({"maxAttempts": 3, "on": ["voicemail"], "delayMinutes": [5]})),
    )
    .await;
    for _ in 0..500 {
        if record(&api, &id).await["status"] == "in_progress" {
            break;
        }
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
    // The agent is at a voicemail box when the caller cancels: the hang-up
    // ends the attempt as voicemail, which the policy would retry.
    let canceled = cancel(&api, &id).await;
    assert_eq!(canceled["status"], "voicemail", "{canceled}");
    clock.set(utc("2026-12-01T15:06:00Z"));
    assert_eq!(service.recover().await.unwrap().started, 0);
    assert_eq!(carrier.dials.all().len(), 1);
    service.shutdown(Duration::from_secs(1)).await;
}

/// The cancel reads the call in progress; before its next step the
/// voicemail end lands and the policy retries it (the store pauses the
/// cancel's read until then). The cancel still stops every later attempt.
#[tokio::test]
async fn a_cancel_racing_a_voicemail_retry_stops_every_later_attempt() {
    let carrier = Arc::new(Machine::default());
    let store = Arc::new(pausing_store::PausingStore::default());
    let (service, api, clock) = on_carrier(carrier.clone(), |builder| {
        builder
            .store(store.clone())
            // Without the fix the cancel waits this long for an end.
            .cancel_wait(Duration::from_millis(300))
    });
    let id = place(
        &api,
        KEY_A1,
        body(json!({"maxAttempts": 3, "on": ["voicemail"], "delayMinutes": [5]})),
    )
    .await;
    for _ in 0..500 {
        if record(&api, &id).await["status"] == "in_progress" {
            break;
        }
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
    let call_id: CallId = id.parse().unwrap();
    let (racing_carrier, racing_store, racing_id) =
        (carrier.clone(), store.store.clone(), call_id.clone());
    store.pause_read_when(
        |call| call.record.status == CallStatus::InProgress,
        Box::new(move || {
            Box::pin(async move {
                racing_carrier.hangs_up(&racing_id);
                use agentcall::store::CallStore;
                for _ in 0..500 {
                    let call = racing_store.get(&racing_id).await.unwrap().unwrap();
                    if call.record.status == CallStatus::Queued {
                        return;
                    }
                    tokio::time::sleep(Duration::from_millis(10)).await;
                }
                panic!("the voicemail end was not retried");
            })
        }),
    );
    let canceled = cancel(&api, &id).await;
    assert_eq!(
        (canceled["status"].as_str(), canceled["error"].as_str()),
        (Some("failed"), Some("canceled")),
        "{canceled}"
    );
    assert_eq!(canceled["attempts"].as_array().map(Vec::len), Some(1));
    // Past the retry's delay: nothing dials.
    clock.set(utc("2026-12-01T15:06:00Z"));
    assert_eq!(service.recover().await.unwrap().started, 0);
    tokio::time::sleep(Duration::from_millis(200)).await;
    assert_eq!(carrier.dials.all().len(), 1);
    assert_eq!(record(&api, &id).await["status"], "failed");
    service.shutdown(Duration::from_secs(1)).await;
}

/// The carrier of every first dial reports no answer; a second dial talks
/// for two and a half minutes.
#[derive(Debug, Default)]
struct NoAnswerThenTalk {
    dials: Dials,
}

#[async_trait::async_trait]
impl Carrier for NoAnswerThenTalk {
    fn rings_real_phones(&self) -> bool {
        false
    }

    async fn dial(
        &self,
        request: DialRequest,
        progress: ProgressHandle,
    ) -> Result<(), CarrierError> {
        use agentcall::carrier::{CarrierOutcome, CarrierReport};
        self.dials.note(&request);
        let _ = progress.report(CarrierReport::Dialing);
        if request.attempt == 1 {
            let _ = progress.report(CarrierReport::Ended(CarrierOutcome::new(
                CallStatus::NoAnswer,
            )));
        } else {
            let _ = progress.report(CarrierReport::Answered);
            let mut outcome = CarrierOutcome::new(CallStatus::Completed);
            outcome.transcript =
                Some("Agent: Hello, this is an AI assistant.\nRecipient: Hi.".into());
            outcome.duration = Some(Duration::from_secs(150));
            let _ = progress.report(CarrierReport::Ended(outcome));
        }
        Ok(())
    }

    async fn hang_up(&self, _: &CallId) -> Result<(), CarrierError> {
        Ok(())
    }
}

/// Something a test runs once, inside a ledger call.
type Hook = Mutex<
    Option<
        Box<dyn FnOnce() -> std::pin::Pin<Box<dyn std::future::Future<Output = ()> + Send>> + Send>,
    >,
>;

/// A usage ledger whose settlements fail while `failing` is set (counting
/// the failures), and which runs `before_settle` once, the first time a
/// settlement passes, before it applies (to let something race it).
struct HookLedger {
    inner: Arc<dyn UsageLedger>,
    failing: std::sync::atomic::AtomicBool,
    failures: std::sync::atomic::AtomicUsize,
    before_settle: Hook,
    /// Run once, after the first reservation of attempt 2.
    after_second_reserve: Hook,
}

impl std::fmt::Debug for HookLedger {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("HookLedger")
            .field("inner", &self.inner)
            .finish()
    }
}

impl HookLedger {
    fn new(inner: Arc<dyn UsageLedger>) -> Self {
        Self {
            inner,
            failing: std::sync::atomic::AtomicBool::new(true),
            failures: Default::default(),
            before_settle: Mutex::default(),
            after_second_reserve: Mutex::default(),
        }
    }

    /// Waits until five settlements failed (the journal's attempts at one).
    async fn wait_for_failed_settlement(&self) {
        for _ in 0..2_000 {
            if self.failures.load(std::sync::atomic::Ordering::SeqCst) >= 5 {
                return;
            }
            tokio::time::sleep(Duration::from_millis(10)).await;
        }
        panic!("the settlement was not tried");
    }
}

#[async_trait::async_trait]
impl UsageLedger for HookLedger {
    async fn reserve(
        &self,
        account: &agentcall::AccountId,
        attempt: &CallAttempt,
        period: DateTime<Utc>,
        cap: u64,
        max: u64,
    ) -> Result<u64, agentcall::guardrails::ReserveError> {
        let reserved = self.inner.reserve(account, attempt, period, cap, max).await;
        if attempt.attempt == 2 {
            let hook = self.after_second_reserve.lock().unwrap().take();
            if let Some(hook) = hook {
                hook().await;
            }
        }
        reserved
    }

    async fn settle(
        &self,
        account: &agentcall::AccountId,
        attempt: &CallAttempt,
        period: DateTime<Utc>,
        reserved: u64,
        billed: u64,
    ) -> Result<(), agentcall::store::StoreError> {
        if self.failing.load(std::sync::atomic::Ordering::SeqCst) {
            self.failures
                .fetch_add(1, std::sync::atomic::Ordering::SeqCst);
            return Err(agentcall::store::StoreError::Unavailable(
                "ledger down".into(),
            ));
        }
        let hook = self.before_settle.lock().unwrap().take();
        if let Some(hook) = hook {
            hook().await;
        }
        self.inner
            .settle(account, attempt, period, reserved, billed)
            .await
    }

    async fn release(
        &self,
        account: &agentcall::AccountId,
        attempt: &CallAttempt,
        period: DateTime<Utc>,
        reserved: u64,
    ) -> Result<(), agentcall::store::StoreError> {
        self.inner.release(account, attempt, period, reserved).await
    }

    async fn usage(
        &self,
        account: &agentcall::AccountId,
        period: DateTime<Utc>,
    ) -> Result<Usage, agentcall::store::StoreError> {
        self.inner.usage(account, period).await
    }
}

/// A retried attempt whose settlement did not land is settled by the
/// instance that takes the call over; a cancel that lands meanwhile wins:
/// the cancelled call is never dialed again.
#[tokio::test]
async fn a_cancel_during_the_settlement_of_a_retried_attempt_is_never_dialed() {
    let carrier = Arc::new(NoAnswerThenTalk::default());
    let ledger = Arc::new(HookLedger::new(Arc::new(MemoryUsageLedger::new())));
    let (service, api, clock) = on_carrier(carrier.clone(), |builder| {
        builder.usage_ledger(ledger.clone())
    });
    let id = place(
        &api,
        KEY_A1,
        body(json!({"maxAttempts": 3, "delayMinutes": [30]})),
    )
    .await;
    ledger.wait_for_failed_settlement().await;
    ledger
        .failing
        .store(false, std::sync::atomic::Ordering::SeqCst);
    let (racing_api, racing_id) = (api.clone(), id.clone());
    *ledger.before_settle.lock().unwrap() = Some(Box::new(move || {
        Box::pin(async move {
            let canceled = cancel(&racing_api, &racing_id).await;
            assert_eq!(canceled["error"], "canceled", "{canceled}");
        })
    }));
    clock.set(utc("2026-12-01T15:31:00Z"));
    assert_eq!(service.recover().await.unwrap().started, 0);
    assert_eq!(carrier.dials.all().len(), 1);
    assert_eq!(record(&api, &id).await["status"], "failed");
    let period = BillingPeriod::default().start_of(utc("2026-12-01T15:00:00Z"));
    let usage = ledger
        .usage(&"acct_a".parse().unwrap(), period)
        .await
        .unwrap();
    assert_eq!(usage, Usage::new(0, 0));
    service.shutdown(Duration::from_secs(1)).await;
}

/// Two instances on one SQLite store. A retried attempt's settlement did
/// not land; instance A takes the call over when it is due and settles it,
/// and instance B's takeover runs while A charges the retry. Exactly one of
/// them dials attempt 2, and whoever loses gives its reservation back
/// without spoiling the winner's settlement: the 2½ minutes talked are
/// billed (3 minutes) and nothing stays reserved.
#[cfg(feature = "sqlite")]
#[tokio::test]
async fn two_instances_racing_to_start_a_retry_dial_it_once_and_bill_it_once() {
    use agentcall::store::SqliteStore;
    let path = common::process::TempPath::unique("db");
    let store = Arc::new(SqliteStore::open(&path.0).await.unwrap());
    let clock = Arc::new(ManualClock::new(utc("2026-12-01T15:00:00Z")));
    let carrier = Arc::new(NoAnswerThenTalk::default());
    let ledger = Arc::new(HookLedger::new(Arc::new(store.usage_ledger())));
    let instance = |name: &str| {
        builder()
            .instance_id(agentcall::store::InstanceId::new(name))
            .store(store.clone())
            .usage_ledger(ledger.clone())
            .clock(clock.clone())
            .carrier(carrier.clone())
            .build()
            .unwrap()
    };
    let (a, b) = (instance("a"), instance("b"));
    let api = Api::new(a.clone());
    let id = place(
        &api,
        KEY_A1,
        body(json!({"maxAttempts": 2, "delayMinutes": [30]})),
    )
    .await;
    ledger.wait_for_failed_settlement().await;
    ledger
        .failing
        .store(false, std::sync::atomic::Ordering::SeqCst);
    let other = b.clone();
    *ledger.after_second_reserve.lock().unwrap() = Some(Box::new(move || {
        Box::pin(async move {
            other.recover().await.unwrap();
        })
    }));
    clock.set(utc("2026-12-01T15:31:00Z"));
    a.recover().await.unwrap();
    let ended = wait_terminal(&api, KEY_A1, &id).await;
    assert_eq!((ended.status, ended.attempt), (CallStatus::Completed, 2));
    let dials = carrier.dials.all();
    assert_eq!(
        dials.iter().filter(|(_, n)| *n == 2).count(),
        1,
        "{dials:?}"
    );
    let period = BillingPeriod::default().start_of(utc("2026-12-01T15:00:00Z"));
    let mut usage = Usage::default();
    for _ in 0..200 {
        usage = ledger
            .usage(&"acct_a".parse().unwrap(), period)
            .await
            .unwrap();
        if usage == Usage::new(3, 0) {
            break;
        }
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
    assert_eq!(usage, Usage::new(3, 0));
    a.shutdown(Duration::from_secs(1)).await;
    b.shutdown(Duration::from_secs(1)).await;
}
