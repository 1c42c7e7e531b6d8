//! Scheduled calls and calling windows through the HTTP API, on a clock the
//! tests set by hand (no test waits for the time of day).
//!
//! A call that may not ring yet is stored `queued` with a waiting lease
//! that runs until it may start; whichever instance first takes over the
//! lapsed lease dials it. `recover()` runs that takeover at once (the
//! lease keeper runs it every third of a lease).

mod common;

use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use agentcall::carrier::{CarrierError, DialRequest, ProgressHandle};
use agentcall::clock::ManualClock;
use agentcall::{AgentCall, Api, CallId, CallStatus, Carrier, SimulatedCarrier};
use chrono::{DateTime, Utc};
use common::*;
use http::StatusCode;
use serde_json::{Value, json};

/// 212 is New York (America/New_York).
const NEW_YORK: &str = "+12125550170";
/// Idaho's 208 spans America/Boise (Mountain) and America/Los_Angeles.
const IDAHO: &str = "+12085550170";

fn utc(text: &str) -> DateTime<Utc> {
    text.parse().unwrap()
}

fn eight_to_nine() -> Value {
    json!({"start": "08:00", "end": "21:00"})
}

/// The simulated carrier, counting how often each call is dialed.
#[derive(Debug, Default)]
struct CountingCarrier {
    inner: SimulatedCarrier,
    dials: Mutex<HashMap<CallId, usize>>,
}

impl CountingCarrier {
    fn new() -> Self {
        Self {
            inner: SimulatedCarrier::new(fast_simulation()),
            dials: Mutex::default(),
        }
    }

    fn dials(&self, id: &str) -> usize {
        let id: CallId = id.parse().unwrap();
        self.dials.lock().unwrap().get(&id).copied().unwrap_or(0)
    }
}

#[async_trait::async_trait]
impl Carrier for CountingCarrier {
    /// A test carrier rings no one (the default calling window stays off).
    fn rings_real_phones(&self) -> bool {
        false
    }

    async fn dial(
        &self,
        request: DialRequest,
        progress: ProgressHandle,
    ) -> Result<(), CarrierError> {
        *self
            .dials
            .lock()
            .unwrap()
            .entry(request.call_id.clone())
            .or_default() += 1;
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
    carrier: Arc<CountingCarrier>,
}

fn setup(now: &str) -> Setup {
    setup_with(now, |builder| builder)
}

async fn record(api: &Api, id: &str) -> Value {
    let (status, _, bytes) = send(api, get(Some(KEY_A1), &format!("/v1/agent/calls/{id}"))).await;
    assert_eq!(status, StatusCode::OK);
    json(&bytes)
}

async fn rejected(api: &Api, body: Value) -> (StatusCode, Value) {
    let (status, _, bytes) = send(api, post(Some(KEY_A1), body.to_string())).await;
    (status, json(&bytes))
}

/// Places `body`, then checks that its call is not dialed at `before` and
/// is dialed once at `after`, and runs to completion.
async fn waits_until(s: &Setup, body: Value, before: &str, after: &str) -> String {
    let id = place(&s.api, KEY_A1, body).await;
    assert_eq!(record(&s.api, &id).await["status"], "queued");
    s.clock.set(utc(before));
    assert_eq!(
        s.service.recover().await.unwrap().started,
        0,
        "started at {before}"
    );
    assert_eq!(s.carrier.dials(&id), 0);
    s.clock.set(utc(after));
    assert_eq!(
        s.service.recover().await.unwrap().started,
        1,
        "not started at {after}"
    );
    let ended = wait_terminal(&s.api, KEY_A1, &id).await;
    assert_eq!(ended.status, CallStatus::Completed);
    assert_eq!(s.carrier.dials(&id), 1);
    id
}

#[tokio::test]
async fn a_new_york_call_placed_at_half_past_nine_at_night_waits_until_eight() {
    // 2026-12-01 21:30 EST (UTC-5); 08:00 EST is 13:00Z.
    let s = setup("2026-12-02T02:30:00Z");
    let body = json!({"to": NEW_YORK, "objective": "Confirm the delivery", "callingWindow": eight_to_nine()});
    waits_until(&s, body, "2026-12-02T12:59:00Z", "2026-12-02T13:00:01Z").await;
    assert_eq!(s.service.recover().await.unwrap().started, 0);
}

#[tokio::test]
async fn a_number_spanning_two_zones_waits_for_the_later_one() {
    // 08:30 in Boise is 07:30 in Los Angeles; 08:00 there is 16:00Z.
    let s = setup("2026-12-01T15:30:00Z");
    let body = json!({"to": IDAHO, "objective": "Confirm", "callingWindow": eight_to_nine()});
    waits_until(&s, body, "2026-12-01T15:59:59Z", "2026-12-01T16:00:01Z").await;
}

#[tokio::test]
async fn the_wait_follows_daylight_saving() {
    // Midnight EST on 2027-03-14, the day New York springs forward: 08:00
    // that morning is EDT (UTC-4), 12:00Z, not 13:00Z.
    let s = setup("2027-03-14T05:00:00Z");
    let body = json!({"to": NEW_YORK, "objective": "Confirm", "callingWindow": eight_to_nine()});
    waits_until(&s, body, "2027-03-14T11:59:59Z", "2027-03-14T12:00:01Z").await;
}

#[tokio::test]
async fn a_scheduled_call_waits_for_its_time_and_shows_it() {
    let s = setup("2026-12-01T12:00:00Z");
    let body =
        json!({"to": NEW_YORK, "objective": "Confirm", "scheduledAt": "2026-12-01T09:30:00-05:00"});
    let id = waits_until(&s, body, "2026-12-01T14:29:59Z", "2026-12-01T14:30:01Z").await;
    assert_eq!(
        record(&s.api, &id).await["scheduledAt"],
        "2026-12-01T14:30:00.000Z"
    );

    // A time in the past means now; no schedule shows as null.
    let past =
        json!({"to": NEW_YORK, "objective": "Confirm", "scheduledAt": "2026-11-30T09:30:00Z"});
    let id = place(&s.api, KEY_A1, past).await;
    assert_eq!(
        wait_terminal(&s.api, KEY_A1, &id).await.status,
        CallStatus::Completed
    );
    let plain = place(
        &s.api,
        KEY_A1,
        json!({"to": NEW_YORK, "objective": "Confirm"}),
    )
    .await;
    assert_eq!(record(&s.api, &plain).await["scheduledAt"], Value::Null);
}

#[tokio::test]
async fn a_call_is_started_only_with_room_to_ring_before_the_window_closes() {
    // 20:58 EST: the 5-minute ring would run past 21:00, so it waits.
    let s = setup("2026-12-02T01:58:00Z");
    let body = json!({"to": NEW_YORK, "objective": "Confirm", "callingWindow": eight_to_nine()});
    waits_until(&s, body, "2026-12-02T12:59:00Z", "2026-12-02T13:00:01Z").await;
}

#[tokio::test]
async fn an_instance_that_claims_a_waiting_call_late_puts_it_back_until_the_next_opening() {
    // Due at 08:00 EST on 2 December; nobody looks until 21:30 that night.
    let s = setup("2026-12-02T02:30:00Z");
    let body = json!({"to": NEW_YORK, "objective": "Confirm", "callingWindow": eight_to_nine()});
    let id = place(&s.api, KEY_A1, body).await;
    s.clock.set(utc("2026-12-03T02:30:00Z"));
    assert_eq!(s.service.recover().await.unwrap().started, 0);
    assert_eq!(
        (
            record(&s.api, &id).await["status"].as_str(),
            s.carrier.dials(&id)
        ),
        (Some("queued"), 0)
    );
    s.clock.set(utc("2026-12-03T12:59:00Z"));
    assert_eq!(s.service.recover().await.unwrap().started, 0);
    s.clock.set(utc("2026-12-03T13:00:01Z"));
    assert_eq!(s.service.recover().await.unwrap().started, 1);
    assert_eq!(
        wait_terminal(&s.api, KEY_A1, &id).await.status,
        CallStatus::Completed
    );
}

#[tokio::test]
async fn a_schedule_and_a_weekday_window_combine() {
    // Scheduled for Saturday 2026-12-05 10:00 EST with a weekday window:
    // it waits for Monday 09:00 EST.
    let s = setup("2026-12-01T12:00:00Z");
    let window =
        json!({"start": "09:00", "end": "17:00", "days": ["mon", "tue", "wed", "thu", "fri"]});
    let body = json!({"to": NEW_YORK, "objective": "Confirm", "scheduledAt": "2026-12-05T10:00:00-05:00", "callingWindow": window});
    waits_until(&s, body, "2026-12-07T13:59:59Z", "2026-12-07T14:00:01Z").await;
}

#[tokio::test]
async fn bad_schedules_and_windows_are_rejected_with_their_tokens() {
    let s = setup("2026-12-01T12:00:00Z");
    let base = |extra: Value| {
        let mut body = json!({"to": NEW_YORK, "objective": "Confirm"});
        for (key, value) in extra.as_object().unwrap() {
            body[key] = value.clone();
        }
        body
    };
    let cases = [
        (
            json!({"scheduledAt": "2026-12-01T09:30:00"}),
            "invalid_scheduled_at",
        ),
        (json!({"scheduledAt": "tomorrow"}), "invalid_scheduled_at"),
        (
            json!({"scheduledAt": 1_800_000_000}),
            "invalid_scheduled_at",
        ),
        (
            json!({"scheduledAt": "2027-01-01T12:00:01Z"}),
            "invalid_scheduled_at",
        ),
        (
            json!({"callingWindow": {"start": "9:00", "end": "17:00"}}),
            "invalid_calling_window",
        ),
        (
            json!({"callingWindow": {"start": "17:00", "end": "09:00"}}),
            "invalid_calling_window",
        ),
        (
            json!({"callingWindow": {"start": "09:00", "end": "17:00", "days": ["monday"]}}),
            "invalid_calling_window",
        ),
        (
            json!({"callingWindow": {"start": "09:00"}}),
            "invalid_calling_window",
        ),
        (
            json!({"callingWindow": "09:00-17:00"}),
            "invalid_calling_window",
        ),
        (
            json!({"callingWindow": {"start": "09:00", "end": "17:00", "days": []}}),
            "outside_calling_window",
        ),
    ];
    for (extra, token) in cases {
        let (status, body) = rejected(&s.api, base(extra.clone())).await;
        assert_eq!(
            (status, body["error"].as_str()),
            (StatusCode::BAD_REQUEST, Some(token)),
            "{extra}"
        );
    }
    // Strict bodies: a misspelt key, top level or inside the window.
    let (status, body) = rejected(&s.api, base(json!({"callingWindo": eight_to_nine()}))).await;
    assert_eq!(status, StatusCode::BAD_REQUEST);
    assert_eq!(
        (body["error"].as_str(), body["field"].as_str()),
        (Some("unknown_field"), Some("callingWindo"))
    );
    let window = json!({"start": "08:00", "end": "21:00", "dayz": ["mon"]});
    let (_, body) = rejected(&s.api, base(json!({"callingWindow": window}))).await;
    assert_eq!(
        (body["error"].as_str(), body["field"].as_str()),
        (Some("unknown_field"), Some("callingWindow.dayz"))
    );
    // Thirty days ahead is still accepted.
    place(
        &s.api,
        KEY_A1,
        base(json!({"scheduledAt": "2026-12-31T12:00:00Z"})),
    )
    .await;
}

#[tokio::test]
async fn a_call_cancelled_while_it_waits_is_never_dialed() {
    let s = setup("2026-12-02T02:30:00Z");
    let body = json!({"to": NEW_YORK, "objective": "Confirm", "callingWindow": eight_to_nine()});
    let id = place(&s.api, KEY_A1, body).await;
    let (status, _, bytes) = send(&s.api, post_to(&format!("/v1/agent/calls/{id}/cancel"))).await;
    assert_eq!(
        status,
        StatusCode::OK,
        "{}",
        String::from_utf8_lossy(&bytes)
    );
    let canceled = json(&bytes);
    assert_eq!(
        (canceled["status"].as_str(), canceled["error"].as_str()),
        (Some("failed"), Some("canceled"))
    );
    s.clock.set(utc("2026-12-02T13:00:01Z"));
    assert_eq!(s.service.recover().await.unwrap().started, 0);
    assert_eq!(s.carrier.dials(&id), 0);
    assert_eq!(record(&s.api, &id).await["status"], "failed");
}

#[tokio::test]
async fn the_lease_keeper_starts_a_waiting_call_on_its_own() {
    let s = setup_with("2026-12-02T02:30:00Z", |builder| {
        builder.call_lease(Duration::from_secs(1))
    });
    let body = json!({"to": NEW_YORK, "objective": "Confirm", "callingWindow": eight_to_nine()});
    let id = place(&s.api, KEY_A1, body).await;
    s.clock.set(utc("2026-12-02T13:00:01Z"));
    // No `recover()`: the keeper's next takeover dials it.
    assert_eq!(
        wait_terminal(&s.api, KEY_A1, &id).await.status,
        CallStatus::Completed
    );
    assert_eq!(s.carrier.dials(&id), 1);
}

/// The counting carrier, saying it rings real phones (the trait's default).
#[derive(Debug)]
struct RealPhones(Arc<CountingCarrier>);

#[async_trait::async_trait]
impl Carrier for RealPhones {
    async fn dial(
        &self,
        request: DialRequest,
        progress: ProgressHandle,
    ) -> Result<(), CarrierError> {
        self.0.dial(request, progress).await
    }

    async fn hang_up(&self, id: &CallId) -> Result<(), CarrierError> {
        self.0.hang_up(id).await
    }
}

fn setup_with(
    now: &str,
    configure: impl FnOnce(agentcall::AgentCallBuilder) -> agentcall::AgentCallBuilder,
) -> Setup {
    let clock = Arc::new(ManualClock::new(utc(now)));
    let carrier = Arc::new(CountingCarrier::new());
    let service = configure(builder().clock(clock.clone()).carrier(carrier.clone()))
        .build()
        .unwrap();
    Setup {
        api: Api::new(service.clone()),
        service,
        clock,
        carrier,
    }
}

#[tokio::test]
async fn an_accounts_window_applies_unless_the_placement_gives_its_own() {
    let mut account = account_a();
    account.calling_window = Some("10:00-16:00".parse().unwrap());
    // 09:30 EST.
    let s = setup_with("2026-12-01T14:30:00Z", |builder| {
        builder.directory(Arc::new(directory_with(account, account_b())))
    });
    let own = json!({"to": NEW_YORK, "objective": "Confirm", "callingWindow": eight_to_nine()});
    let id = place(&s.api, KEY_A1, own).await;
    assert_eq!(
        wait_terminal(&s.api, KEY_A1, &id).await.status,
        CallStatus::Completed
    );
    let body = json!({"to": NEW_YORK, "objective": "Confirm"});
    waits_until(&s, body, "2026-12-01T14:59:59Z", "2026-12-01T15:00:01Z").await;
}

#[tokio::test]
async fn the_default_window_keeps_us_numbers_to_eight_to_nine_when_real_phones_ring() {
    // 21:30 EST: a US number waits for 08:00, a UK number (02:30 there, but
    // only US and CA numbers have a default window) is dialed at once.
    let s = setup_with("2026-12-02T02:30:00Z", |builder| {
        builder.default_calling_windows(true)
    });
    let uk = place(
        &s.api,
        KEY_A1,
        json!({"to": NUMBER_B, "objective": "Confirm"}),
    )
    .await;
    assert_eq!(
        wait_terminal(&s.api, KEY_A1, &uk).await.status,
        CallStatus::Completed
    );
    let us = json!({"to": NEW_YORK, "objective": "Confirm"});
    waits_until(&s, us, "2026-12-02T12:59:00Z", "2026-12-02T13:00:01Z").await;

    // A carrier that rings real phones turns it on by itself...
    let clock = Arc::new(ManualClock::new(utc("2026-12-02T02:30:00Z")));
    let counting = Arc::new(CountingCarrier::new());
    let real = builder()
        .clock(clock)
        .carrier(Arc::new(RealPhones(counting.clone())))
        .build()
        .unwrap();
    let api = Api::new(real);
    let id = place(
        &api,
        KEY_A1,
        json!({"to": NEW_YORK, "objective": "Confirm"}),
    )
    .await;
    assert_eq!(record(&api, &id).await["status"], "queued");
    assert_eq!(counting.dials(&id), 0);

    // ...and the simulated carrier, which rings no one, leaves it off.
    let off = setup("2026-12-02T02:30:00Z");
    let id = place(
        &off.api,
        KEY_A1,
        json!({"to": NEW_YORK, "objective": "Confirm"}),
    )
    .await;
    assert_eq!(
        wait_terminal(&off.api, KEY_A1, &id).await.status,
        CallStatus::Completed
    );
}

/// A POST without a body, as the cancel route takes.
fn post_to(path: &str) -> http::Request<String> {
    http::Request::post(path)
        .header("authorization", format!("Bearer {KEY_A1}"))
        .body(String::new())
        .unwrap()
}

#[cfg(feature = "sqlite")]
mod sqlite {
    use super::*;
    use agentcall::store::SqliteStore;

    async fn instance(
        path: &std::path::Path,
        clock: Arc<ManualClock>,
        carrier: Arc<CountingCarrier>,
    ) -> AgentCall {
        let store = Arc::new(SqliteStore::open(path).await.expect("open"));
        builder()
            .store(store)
            .clock(clock)
            .carrier(carrier)
            .build()
            .unwrap()
    }

    #[tokio::test]
    async fn a_waiting_call_survives_a_restart() {
        let path = common::process::TempPath::unique("db");
        let clock = Arc::new(ManualClock::new(utc("2026-12-02T02:30:00Z")));
        let carrier = Arc::new(CountingCarrier::new());
        let first = instance(&path.0, clock.clone(), carrier.clone()).await;
        let body =
            json!({"to": NEW_YORK, "objective": "Confirm", "callingWindow": eight_to_nine()});
        let id = place(&Api::new(first.clone()), KEY_A1, body).await;
        first.shutdown(Duration::from_secs(5)).await;
        drop(first);

        let second = instance(&path.0, clock.clone(), carrier.clone()).await;
        assert_eq!(second.recover().await.unwrap().started, 0);
        clock.set(utc("2026-12-02T13:00:01Z"));
        assert_eq!(second.recover().await.unwrap().started, 1);
        let api = Api::new(second);
        assert_eq!(
            wait_terminal(&api, KEY_A1, &id).await.status,
            CallStatus::Completed
        );
        assert_eq!(carrier.dials(&id), 1);
    }

    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn two_instances_never_start_the_same_waiting_call_twice() {
        let path = common::process::TempPath::unique("db");
        let clock = Arc::new(ManualClock::new(utc("2026-12-02T02:30:00Z")));
        let carrier = Arc::new(CountingCarrier::new());
        let a = instance(&path.0, clock.clone(), carrier.clone()).await;
        let b = instance(&path.0, clock.clone(), carrier.clone()).await;
        race_two_instances(a, b, &clock, &carrier).await;
    }
}

/// Two instances on one store both take over 30 calls whose wait is over,
/// at once: each call is started by exactly one of them, and dialed once.
async fn race_two_instances(
    a: AgentCall,
    b: AgentCall,
    clock: &ManualClock,
    carrier: &CountingCarrier,
) {
    let api = Api::new(a.clone());
    let mut ids = Vec::new();
    for _ in 0..30 {
        let body =
            json!({"to": NEW_YORK, "objective": "Confirm", "callingWindow": eight_to_nine()});
        ids.push(place(&api, KEY_A1, body).await);
    }
    clock.set(utc("2026-12-02T13:00:01Z"));
    let (from_a, from_b) = tokio::join!(a.recover(), b.recover());
    let started = from_a.unwrap().started + from_b.unwrap().started;
    assert_eq!(started, ids.len());
    for id in &ids {
        assert_eq!(
            wait_terminal(&api, KEY_A1, id).await.status,
            CallStatus::Completed
        );
        assert_eq!(carrier.dials(id), 1, "{id}");
    }
}

#[cfg(feature = "postgres")]
#[path = "common/pg.rs"]
mod pg;

#[cfg(feature = "postgres")]
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn two_instances_on_postgresql_never_start_the_same_waiting_call_twice() {
    let Some(schema) = pg::TestSchema::create().await else {
        return;
    };
    let clock = Arc::new(ManualClock::new(utc("2026-12-02T02:30:00Z")));
    let carrier = Arc::new(CountingCarrier::new());
    let mut instances = Vec::new();
    for _ in 0..2 {
        let store = Arc::new(schema.store(4).await);
        let service = builder()
            .store(store)
            .clock(clock.clone())
            .carrier(carrier.clone())
            .build()
            .unwrap();
        instances.push(service);
    }
    let b = instances.pop().unwrap();
    let a = instances.pop().unwrap();
    race_two_instances(a.clone(), b.clone(), &clock, &carrier).await;
    a.shutdown(Duration::from_secs(5)).await;
    b.shutdown(Duration::from_secs(5)).await;
    schema.drop().await;
}

/// Waits (a hang guard, not a measure: the manual clock is what moves) until
/// `carrier` has dialed `id` `times` times.
async fn dialed(carrier: &CountingCarrier, id: &str, times: usize) {
    for _ in 0..2_000 {
        if carrier.dials(id) >= times {
            return;
        }
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
    panic!("{id} was dialed {} times, not {times}", carrier.dials(id));
}

/// With the lease keeper's beat twenty minutes away (a call lease of an
/// hour), the instance that put calls to wait starts them at their time:
/// a call scheduled 6 s ahead, and a retry due a minute after an
/// unanswered attempt, each dial as soon as the clock passes its time,
/// never before, on the memory store and on SQLite.
async fn waiting_calls_start_at_their_time(
    configure: impl FnOnce(agentcall::AgentCallBuilder) -> agentcall::AgentCallBuilder,
) {
    let s = setup_with("2026-12-01T15:00:00Z", |builder| {
        configure(
            builder
                .on_time_starts(true)
                .call_lease(Duration::from_secs(3600)),
        )
    });
    let body =
        json!({"to": NEW_YORK, "objective": "Confirm", "scheduledAt": "2026-12-01T15:00:06Z"});
    let id = place(&s.api, KEY_A1, body).await;
    s.clock.set(utc("2026-12-01T15:00:05Z"));
    tokio::time::sleep(Duration::from_millis(50)).await;
    assert_eq!(s.carrier.dials(&id), 0, "not before its time");
    s.clock.set(utc("2026-12-01T15:00:06.001Z"));
    dialed(&s.carrier, &id, 1).await;
    assert_eq!(
        wait_terminal(&s.api, KEY_A1, &id).await.status,
        CallStatus::Completed
    );

    // The simulated recipient at ...1 does not answer: retried a minute later.
    let unanswered = json!({"to": "+12125550171", "objective": "Confirm",
        "retry": {"maxAttempts": 2, "on": ["no_answer"], "delayMinutes": [1]}});
    let retried = place(&s.api, KEY_A1, unanswered).await;
    dialed(&s.carrier, &retried, 1).await;
    for _ in 0..2_000 {
        let call = record(&s.api, &retried).await;
        if call["attempts"].as_array().is_some_and(|a| a.len() == 1) {
            break;
        }
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
    s.clock.set(utc("2026-12-01T15:01:05Z"));
    tokio::time::sleep(Duration::from_millis(50)).await;
    assert_eq!(s.carrier.dials(&retried), 1, "not before its delay");
    s.clock.set(utc("2026-12-01T15:02:07Z"));
    dialed(&s.carrier, &retried, 2).await;
    s.service.shutdown(Duration::from_secs(1)).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn waiting_calls_start_at_their_time_in_memory() {
    waiting_calls_start_at_their_time(|builder| builder).await;
}

#[cfg(feature = "sqlite")]
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn waiting_calls_start_at_their_time_on_sqlite() {
    let path = common::process::TempPath::unique("db");
    let store = Arc::new(
        agentcall::store::SqliteStore::open(&path.0)
            .await
            .expect("open"),
    );
    waiting_calls_start_at_their_time(move |builder| builder.store(store)).await;
}

#[tokio::test]
async fn a_window_that_never_opens_still_spends_the_keys_rate_budget() {
    // The window search runs after the rate limit is charged: placements
    // crafted to search in vain are limited like any others.
    let mut account = account_a();
    account.calls_per_minute = 3;
    let s = setup_with("2026-12-01T14:30:00Z", |builder| {
        builder.directory(Arc::new(directory_with(account, account_b())))
    });
    let never = json!({"to": NEW_YORK, "objective": "Confirm",
                       "callingWindow": {"start": "09:00", "end": "17:00", "days": []}});
    let mut tokens = Vec::new();
    for _ in 0..4 {
        let (status, body) = rejected(&s.api, never.clone()).await;
        tokens.push((status.as_u16(), body["error"].as_str().unwrap().to_owned()));
    }
    let outside = (400, "outside_calling_window".to_owned());
    assert_eq!(
        tokens,
        [
            outside.clone(),
            outside.clone(),
            outside,
            (429, "rate_limited".to_owned())
        ]
    );
}
