//! The guardrails through the HTTP layer and under concurrency.

mod common;

use std::sync::{Arc, Mutex};
use std::time::Duration;

use agentcall::carrier::{Carrier, CarrierError, DialRequest, ProgressHandle};
use agentcall::guardrails::{MemoryUsageLedger, UsageLedger};
use agentcall::{Account, Api, CallId, SimulatedCarrier};
use common::*;
use http::StatusCode;
use proptest::prelude::*;
use serde_json::{Value, json};

async fn rejection(api: &Api, key: &str, body: Value) -> (StatusCode, http::HeaderMap, String) {
    let (status, headers, bytes) = send(api, post(Some(key), body.to_string())).await;
    let token = json(&bytes)["error"]
        .as_str()
        .unwrap_or("<accepted>")
        .to_owned();
    (status, headers, token)
}

fn to(number: &str) -> Value {
    json!({"to": number, "objective": "Confirm the appointment"})
}

#[tokio::test]
async fn blocked_destinations_of_every_kind() {
    let api = Api::new(service());
    let cases = [
        ("+33142685300", "a country outside the allowlist (FR)"),
        ("+4930123456", "a country outside the allowlist (DE)"),
        ("+18765238562", "Jamaica, a Caribbean +1 region"),
        ("+17872345646", "Puerto Rico, +1"),
        ("+12422250125", "the Bahamas, +1"),
        ("+447781696919", "Guernsey, +44"),
        ("+441624750992", "the Isle of Man, +44"),
        ("+19002345678", "US premium rate"),
        ("+449012345678", "GB premium rate"),
        ("+611900123456", "AU premium rate"),
        ("+64900123456", "NZ premium rate"),
        ("+9721919123456", "IL premium rate"),
        ("+12019761234", "US exchange 976"),
        ("+14169761234", "CA exchange 976"),
        ("+881612345678", "Iridium satellite"),
        ("+870773111632", "Inmarsat"),
        ("+80012345678", "international freephone (non-geographic)"),
        (
            "+447012345678",
            "an IRSF-listed prefix the host supplied (+4470123)",
        ),
    ];
    for (number, what) in cases {
        let (status, _, token) = rejection(&api, KEY_A1, to(number)).await;
        assert_eq!(
            (status, token.as_str()),
            (StatusCode::BAD_REQUEST, "destination_blocked"),
            "{what}: {number}"
        );
    }
    // The same IRSF range is fine where the host did not list it.
    let (status, _, token) = rejection(&api, KEY_A1, to("+447012999995")).await;
    assert_eq!(
        (status, token.as_str()),
        (StatusCode::CREATED, "<accepted>")
    );
    // Canada is allowed outside 976.
    let (status, _, _) = rejection(&api, KEY_A1, to("+14165550125")).await;
    assert_eq!(status, StatusCode::CREATED);
}

#[tokio::test]
async fn narrowed_allowlists_and_extra_blocked_types_apply() {
    let mut config = guardrail_config();
    config.allowed_regions = ["US".to_owned()].into();
    config.blocked_types = vec![agentcall::guardrails::NumberType::TollFree];
    let api = Api::new(
        builder()
            .guardrails(agentcall::Guardrails::new(config))
            .build()
            .unwrap(),
    );
    for number in ["+442071838750", "+18002345678"] {
        let (status, _, token) = rejection(&api, KEY_A1, to(number)).await;
        assert_eq!(
            (status, token.as_str()),
            (StatusCode::BAD_REQUEST, "destination_blocked"),
            "{number}"
        );
    }
    let (status, _, _) = rejection(&api, KEY_A1, to("+14155550125")).await;
    assert_eq!(status, StatusCode::CREATED);
}

#[tokio::test]
async fn caller_ids_must_be_e164_strings_owned_by_the_account() {
    let mut no_default = account_a();
    no_default.default_caller_id = Some("+14155550111".into()); // not one of its numbers
    let api = Api::new(
        builder()
            .directory(Arc::new(directory_with(no_default, account_b())))
            .build()
            .unwrap(),
    );
    let with_caller =
        |caller: Value| json!({"to": "+14155550125", "objective": "x", "callerId": caller});
    for (body, token) in [
        (with_caller(json!(14155550100u64)), "invalid_caller_id"),
        (with_caller(json!("(415) 555-0100")), "invalid_caller_id"),
        (with_caller(json!("+14155550177")), "caller_id_not_owned"),
        (with_caller(json!(NUMBER_B)), "caller_id_not_owned"), // another account's number
        (to("+14155550125"), "caller_id_not_owned"),           // the default is not owned
    ] {
        let (status, _, got) = rejection(&api, KEY_A1, body.clone()).await;
        assert_eq!(
            (status, got.as_str()),
            (StatusCode::BAD_REQUEST, token),
            "{body}"
        );
    }
    let (status, _, _) = rejection(&api, KEY_A1, with_caller(json!("+14155550199"))).await;
    assert_eq!(status, StatusCode::CREATED, "an owned override is accepted");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_rate_limit_is_exact_under_concurrency() {
    let mut account = account_a();
    account.calls_per_minute = 10;
    let api = Api::new(
        builder()
            .directory(Arc::new(directory_with(account, account_b())))
            .build()
            .unwrap(),
    );
    let mut tasks = tokio::task::JoinSet::new();
    for _ in 0..64 {
        let api = api.clone();
        tasks.spawn(async move { rejection(&api, KEY_A1, to("+14155550125")).await });
    }
    let results = tasks.join_all().await;
    let accepted = results
        .iter()
        .filter(|(s, _, _)| *s == StatusCode::CREATED)
        .count();
    assert_eq!(accepted, 10);
    for (status, headers, token) in results.iter().filter(|(s, _, _)| *s != StatusCode::CREATED) {
        assert_eq!(
            (*status, token.as_str()),
            (StatusCode::TOO_MANY_REQUESTS, "rate_limited")
        );
        let seconds: u64 = headers["retry-after"].to_str().unwrap().parse().unwrap();
        assert!((1..=60).contains(&seconds));
    }
}

/// Records the maximum duration each call was dialed with, then lets the
/// simulated carrier run it.
#[derive(Debug)]
struct RecordingCarrier {
    inner: SimulatedCarrier,
    limits: Mutex<Vec<Duration>>,
}

#[async_trait::async_trait]
impl Carrier for RecordingCarrier {
    /// A test carrier rings no one (the default calling window stays off).
    fn rings_real_phones(&self) -> bool {
        false
    }

    async fn dial(
        &self,
        request: DialRequest,
        progress: ProgressHandle,
    ) -> Result<(), CarrierError> {
        self.limits.lock().unwrap().push(request.max_duration);
        self.inner.dial(request, progress).await
    }
    async fn hang_up(&self, id: &CallId) -> Result<(), CarrierError> {
        self.inner.hang_up(id).await
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn billed_minutes_never_exceed_the_cap_with_many_calls_in_flight() {
    let mut account: Account = account_a();
    account.minute_cap = 7;
    let mut config = guardrail_config();
    config.max_call_duration = Duration::from_secs(120);
    let ledger = Arc::new(MemoryUsageLedger::new());
    let carrier = Arc::new(RecordingCarrier {
        inner: SimulatedCarrier::new(fast_simulation()),
        limits: Mutex::default(),
    });
    let service = builder()
        .directory(Arc::new(directory_with(account.clone(), account_b())))
        .guardrails(agentcall::Guardrails::new(config))
        .usage_ledger(ledger.clone())
        .carrier(carrier.clone())
        .build()
        .unwrap();
    let api = Api::new(service);
    let mut tasks = tokio::task::JoinSet::new();
    for _ in 0..40 {
        let api = api.clone();
        tasks.spawn(async move { rejection(&api, KEY_A1, to("+14155550125")).await });
    }
    let results = tasks.join_all().await;
    let accepted: Vec<_> = results
        .iter()
        .filter(|(s, _, _)| *s == StatusCode::CREATED)
        .collect();
    assert!(results.iter().all(|(s, _, t)| *s == StatusCode::CREATED
        || (*s == StatusCode::TOO_MANY_REQUESTS && t == "over_minute_cap")));
    // Reservations: 2 + 2 + 2 + 1 minutes while the first calls are still running.
    let limits = carrier.limits.lock().unwrap().clone();
    let reserved: u64 = limits.iter().map(|d| d.as_secs() / 60).sum();
    assert!(reserved <= 7, "{limits:?}");
    assert!(
        limits.iter().all(|d| *d >= Duration::from_secs(60)),
        "every call may talk at least a minute"
    );
    assert!(!accepted.is_empty());
    // Wait until every call has ended and been settled.
    let period = agentcall::guardrails::BillingPeriod::default().start_of(chrono::Utc::now());
    for _ in 0..1_000 {
        let usage = ledger.usage(&account.id, period).await.expect("usage");
        assert!(usage.billed + usage.reserved <= 7, "{usage:?}");
        if usage.reserved == 0 {
            assert!(
                usage.billed <= 7 && usage.billed as usize == accepted.len(),
                "each call bills one minute: {usage:?}"
            );
            return;
        }
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
    panic!("calls did not settle");
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]

    /// Arbitrary request bodies never panic the engine, and a body it accepts
    /// always has a strict E.164 `to`.
    #[test]
    fn arbitrary_bodies_are_judged_without_panics(
        to in prop_oneof![any::<String>(), "\\+[0-9]{1,16}", Just("+14155550125".to_owned())],
        objective in prop_oneof![any::<String>(), Just("call".to_owned())],
        context in proptest::option::of(any::<String>()),
        caller in proptest::option::of(prop_oneof![any::<String>(), Just(NUMBER_A.to_owned())]),
        url in proptest::option::of(prop_oneof![any::<String>(), Just("https://example.com/h".to_owned())]),
        field_names in proptest::collection::vec(any::<String>(), 0..25),
    ) {
        let engine = agentcall::Guardrails::new(guardrail_config());
        let mut body = serde_json::Map::new();
        body.insert("to".into(), json!(to));
        body.insert("objective".into(), json!(objective));
        if let Some(c) = context { body.insert("context".into(), json!(c)); }
        if let Some(c) = caller { body.insert("callerId".into(), json!(c)); }
        if let Some(u) = url { body.insert("webhookUrl".into(), json!(u)); }
        let fields: Vec<Value> = field_names.iter().map(|n| json!({"name": n, "type": "number"})).collect();
        body.insert("fields".into(), json!(fields));
        if let Ok(approved) = engine.validate_json(&body, &account_a()) {
            prop_assert!(agentcall::guardrails::is_strict_e164(&approved.request.to));
            prop_assert!(approved.request.fields.len() <= 20);
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]

    /// The typed paths (`check`, and `validate`, which `AgentCall::place`
    /// uses) and the JSON path give the same verdict and the same approval.
    #[test]
    fn typed_and_json_validation_agree(
        to in prop_oneof![Just("+14155550125".to_owned()), Just("+33142685300".to_owned()), "\\+[0-9]{1,16}", any::<String>()],
        objective in prop_oneof![Just("call".to_owned()), Just("  ".to_owned()), "[a-z ]{0,30}"],
        context in proptest::option::of("[a-z]{0,20}"),
        caller in proptest::option::of(prop_oneof![Just(NUMBER_A.to_owned()), Just("+14155550111".to_owned()), any::<String>()]),
        url in proptest::option::of(prop_oneof![Just("https://example.com/h".to_owned()), Just("http://example.com".to_owned()), any::<String>()]),
        names in proptest::collection::vec(
            (
                prop_oneof![Just("a".to_owned()), Just(" ".to_owned()), "[a-z]{1,70}"],
                prop_oneof![Just(agentcall::FieldType::Number), Just(agentcall::FieldType::Boolean), Just(agentcall::FieldType::String)],
                proptest::option::of("[a-z ]{0,3}|[a-z]{495,505}"),
            ),
            0..23,
        ),
        metadata in proptest::option::of(proptest::collection::btree_map("[a-z]{0,45}", "[a-z]{0,3}", 0..3)),
    ) {
        let engine = agentcall::Guardrails::new(guardrail_config());
        let mut request = agentcall::PlacementRequest::new(to, objective);
        request.context = context;
        request.caller_id = caller;
        request.webhook_url = url;
        request.metadata = metadata;
        request.fields = names
            .into_iter()
            .map(|(name, kind, description)| {
                let field = agentcall::FieldDefinition::new(name, kind);
                match description {
                    Some(d) => field.with_description(d),
                    None => field,
                }
            })
            .collect();
        let account = account_a();
        let typed = engine.check(&request, &account).map(|a| (a.destination, a.caller_id.to_owned()));
        let body = serde_json::to_value(&request).unwrap();
        let from_json = engine.validate_json(body.as_object().unwrap(), &account);
        let summary = from_json.clone().map(|a| (a.destination, a.caller_id));
        prop_assert_eq!(typed, summary);
        prop_assert_eq!(engine.validate(&request, &account), from_json);
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(128))]

    /// A destination is refused as outside the allowlist exactly when its
    /// region is not one of the configured ids, whatever else the set holds
    /// (lowercase, longer or empty entries match no region).
    #[test]
    fn the_region_allowlist_is_exact(
        allowed in proptest::collection::btree_set(
            prop_oneof![Just("US"), Just("GB"), Just("AU"), Just("FR"), Just("CA"), Just("us"), Just("USA"), Just(""), Just("G")],
            0..7,
        ),
    ) {
        let mut config = guardrail_config();
        config.allowed_regions = allowed.iter().map(|r| (*r).to_owned()).collect();
        let engine = agentcall::Guardrails::new(config);
        for (number, region) in [
            ("+14155550125", "US"),
            ("+442071838750", "GB"),
            ("+61412345678", "AU"),
            ("+33142685300", "FR"),
            ("+16135550123", "CA"),
        ] {
            let outside = matches!(
                engine.check_destination(number),
                Err(agentcall::Rejection::DestinationBlocked(
                    agentcall::guardrails::BlockReason::RegionNotAllowed(r)
                )) if r == region
            );
            prop_assert_eq!(outside, !allowed.contains(region), "{} in {:?}", number, allowed);
        }
    }

    /// The per-thread memo of the last accepted webhook URL never changes a
    /// verdict: checks interleaved on one thread, across engines with and
    /// without loopback webhooks, agree with each check made on a fresh thread.
    #[test]
    fn webhook_url_verdicts_do_not_depend_on_earlier_checks(
        checks in proptest::collection::vec(
            (
                prop_oneof![
                    Just("https://example.com/h".to_owned()),
                    Just("http://127.0.0.1:9/h".to_owned()),
                    Just("https://10.0.0.1/h".to_owned()),
                    Just("http://localhost/x".to_owned()),
                    Just(String::new()),
                    any::<String>(),
                ],
                any::<bool>(),
            ),
            1..12,
        ),
    ) {
        let engines = [false, true].map(|loopback| {
            let mut config = guardrail_config();
            config.allow_insecure_loopback_webhooks = loopback;
            agentcall::Guardrails::new(config)
        });
        let account = account_a();
        let verdict = |engine: &agentcall::Guardrails, url: &str| {
            let request = agentcall::PlacementRequest::new("+14155550125", "call").webhook_url(url);
            engine.check(&request, &account).map(|a| a.destination)
        };
        for (url, loopback) in &checks {
            let engine = &engines[usize::from(*loopback)];
            let here = verdict(engine, url);
            let fresh = std::thread::scope(|s| s.spawn(|| verdict(engine, url)).join().unwrap());
            prop_assert_eq!(here, fresh, "{:?} loopback={}", url, loopback);
        }
    }
}
