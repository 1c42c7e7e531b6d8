//! Real calls over Twilio ConversationRelay without a Twilio account: the
//! example server process runs with its carrier pointed at a fake Twilio
//! (`twilio_fake/fake.rs`: the REST API, signed callbacks, the relay
//! WebSocket played as the recipient) and its agent at a scripted
//! OpenAI-compatible model (`twilio_fake/model.rs`). Everything goes over
//! real sockets on 127.0.0.1; every wait is bounded.
#![cfg(all(feature = "twilio", feature = "llm"))]

#[path = "common/mod.rs"]
mod common;
#[path = "twilio_fake/fake.rs"]
mod fake;
#[path = "twilio_fake/model.rs"]
mod model;
#[path = "twilio_fake/ws.rs"]
mod ws;

use std::collections::BTreeSet;
use std::time::Duration;

use agentcall::webhook::{Verifier, order_by_timestamp};
use common::process::{Server, TempPath, start};
use common::{Received, Receiver};
use fake::{
    Call, FakeTwilio, Form, Sig, WAIT, field, fields, twiml_attribute, twiml_parameters, unescape,
};
use model::{Reply, ScriptedModel, user_lines};
use serde_json::{Value, json};

const KEY: &str = "key_a1";
const SECRET: &str = "whsec_a";
const FROM: &str = "+14155550100";
const TO: &str = "+14155550125";
const RING_TIMEOUT_SEC: u64 = 25;

/// What the scripted model says.
const QUESTION: &str = "How many boxes are you expecting on Friday?";
const CONFIRM: &str = "Thank you. Please press 1 to confirm the delivery window.";
const GOODBYE: &str = "Thanks, goodbye.";

/// The agent's mind: a question, a confirmation by key press, a goodbye
/// with `end_call` once the key is pressed.
fn mind(request: &Value) -> Reply {
    let lines = user_lines(request);
    let last = lines.last().map(String::as_str).unwrap_or_default();
    // A key press is a call event: the last message, a `system` one.
    let last_message = request["messages"]
        .as_array()
        .and_then(|messages| messages.last());
    if last_message
        .is_some_and(|m| m["role"] == "system" && m["content"] == "The recipient pressed keys: 1")
    {
        Reply::end(GOODBYE, "objective_met")
    } else if last.contains("boxes") {
        Reply::say(CONFIRM)
    } else {
        Reply::say(QUESTION)
    }
}

/// How the example server is configured.
struct Options {
    minute_cap: u64,
    store: String,
    instance_id: Option<String>,
    /// `dialTimeoutMs` (the server's default, 30 s, when absent).
    dial_timeout_ms: Option<u64>,
}

impl Default for Options {
    fn default() -> Self {
        Self {
            minute_cap: 1000,
            store: "memory".into(),
            instance_id: None,
            dial_timeout_ms: None,
        }
    }
}

/// A free port on 127.0.0.1 (the server's public URL must be known before
/// it starts).
fn free_port() -> u16 {
    std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port()
}

/// One example server with the Twilio carrier.
struct Instance {
    server: Server,
    _config: TempPath,
    public: String,
}

impl Instance {
    fn start(fake: &FakeTwilio, model: &ScriptedModel, options: &Options) -> Self {
        let port = free_port();
        let public = format!("http://127.0.0.1:{port}");
        let mut config = json!({
            "listen": format!("127.0.0.1:{port}"),
            "store": options.store,
            "accounts": [{"id": "acct_a", "apiKeys": [KEY], "numbers": [FROM],
                          "defaultCallerId": FROM, "webhookSecret": SECRET,
                          "minuteCap": options.minute_cap}],
            "allowInsecureLoopbackWebhooks": true,
            "webhookRetryScheduleMs": [0, 100, 200, 400, 800, 1600],
            "agent": {"llm": {"baseUrl": model.base_url, "apiKey": "sk-scripted", "model": "scripted"},
                      "maxTurns": 8},
            "carrier": {"kind": "twilio", "accountSid": fake::ACCOUNT_SID, "authToken": fake::AUTH_TOKEN,
                        "apiBase": fake.base, "publicUrl": public, "machineDetection": true,
                        "record": true, "ringTimeoutSec": RING_TIMEOUT_SEC},
            // The fake rings no one: the same behaviour at any hour.
            "defaultCallingWindows": false,
        });
        if let Some(id) = &options.instance_id {
            config["instanceId"] = json!(id);
        }
        if let Some(ms) = options.dial_timeout_ms {
            config["dialTimeoutMs"] = json!(ms);
        }
        let (server, config) = start(&config);
        assert_eq!(server.base, public);
        Self {
            server,
            _config: config,
            public,
        }
    }
}

/// The fake Twilio, the scripted model, a webhook receiver and one example
/// server wired together.
struct Harness {
    fake: FakeTwilio,
    model: ScriptedModel,
    receiver: Receiver,
    instance: Instance,
    client: reqwest::Client,
}

impl Harness {
    async fn start(options: Options) -> Self {
        Self::start_with_mind(options, mind).await
    }

    async fn start_with_mind(
        options: Options,
        mind: impl Fn(&Value) -> Reply + Send + Sync + 'static,
    ) -> Self {
        let fake = FakeTwilio::start().await;
        let model = ScriptedModel::start(mind).await;
        let receiver = Receiver::start().await;
        let instance = Instance::start(&fake, &model, &options);
        Self {
            fake,
            model,
            receiver,
            instance,
            client: reqwest::Client::builder()
                .timeout(Duration::from_secs(30))
                .build()
                .unwrap(),
        }
    }

    fn base(&self) -> &str {
        &self.instance.server.base
    }

    fn placement(&self) -> Value {
        json!({
            "to": TO,
            "objective": "Confirm Friday's delivery",
            "webhookUrl": self.receiver.url,
            "fields": [{"name": "boxes", "type": "number", "description": "How many boxes are expected"}],
        })
    }

    /// Places a call; returns its id and the placement's answer.
    async fn place(&self) -> (String, Value) {
        place_at(&self.client, self.base(), &self.placement()).await
    }

    async fn record(&self, id: &str) -> Value {
        record_at(&self.client, self.base(), id).await
    }

    async fn wait_record(&self, id: &str, what: &str, matches: impl Fn(&Value) -> bool) -> Value {
        wait_record_at(&self.client, self.base(), id, what, matches).await
    }

    async fn wait_terminal(&self, id: &str) -> Value {
        self.wait_record(id, "a terminal status", is_terminal).await
    }

    async fn cancel(&self, id: &str) -> (u16, Value) {
        let response = self
            .client
            .post(format!("{}/v1/agent/calls/{id}/cancel", self.base()))
            .bearer_auth(KEY)
            .send()
            .await
            .unwrap();
        let status = response.status().as_u16();
        (status, response.json().await.unwrap_or(Value::Null))
    }

    /// The call's webhook events once its terminal event arrived: each
    /// signature verified, one per `eventId`, in timestamp order.
    async fn events(&self, id: &str) -> Vec<Value> {
        events_of(&self.receiver, id).await
    }
}

async fn place_at(client: &reqwest::Client, base: &str, body: &Value) -> (String, Value) {
    let response = client
        .post(format!("{base}/v1/agent/calls"))
        .bearer_auth(KEY)
        .json(body)
        .send()
        .await
        .unwrap();
    let status = response.status().as_u16();
    let answer: Value = response.json().await.unwrap();
    assert_eq!(status, 201, "{answer}");
    (answer["callId"].as_str().unwrap().to_owned(), answer)
}

async fn record_at(client: &reqwest::Client, base: &str, id: &str) -> Value {
    let response = client
        .get(format!("{base}/v1/agent/calls/{id}"))
        .bearer_auth(KEY)
        .send()
        .await
        .unwrap();
    assert_eq!(response.status(), 200);
    response.json().await.unwrap()
}

async fn wait_record_at(
    client: &reqwest::Client,
    base: &str,
    id: &str,
    what: &str,
    matches: impl Fn(&Value) -> bool,
) -> Value {
    let deadline = tokio::time::Instant::now() + WAIT;
    loop {
        let record = record_at(client, base, id).await;
        if matches(&record) {
            return record;
        }
        assert!(
            tokio::time::Instant::now() < deadline,
            "call {id} never reached {what}: {record:#}"
        );
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
}

fn is_terminal(record: &Value) -> bool {
    !matches!(
        record["status"].as_str(),
        Some("queued" | "dialing" | "in_progress")
    )
}

async fn events_of(receiver: &Receiver, id: &str) -> Vec<Value> {
    let terminal = |r: &Received| r.json()["event"] != "call.in_progress";
    receiver
        .wait_for(|received| {
            received
                .iter()
                .any(|r| r.json()["callId"] == id && terminal(r))
        })
        .await;
    let verifier = Verifier::new([SECRET.into()]);
    let mut seen = BTreeSet::new();
    let mut events: Vec<Value> = receiver
        .for_call(id)
        .into_iter()
        .inspect(|r| {
            verifier
                .verify_now(&r.body, Some(&r.signature))
                .unwrap_or_else(|e| panic!("webhook signature: {e:?}"));
        })
        .map(|r| r.json())
        .filter(|event| seen.insert(event["eventId"].as_str().unwrap().to_owned()))
        .collect();
    order_by_timestamp(&mut events);
    events
}

fn names(events: &[Value]) -> Vec<&str> {
    events
        .iter()
        .map(|e| e["event"].as_str().unwrap())
        .collect()
}

fn transcript_lines(record: &Value) -> Vec<String> {
    record["transcript"]
        .as_str()
        .unwrap_or_else(|| panic!("no transcript: {record:#}"))
        .lines()
        .map(str::to_owned)
        .collect()
}

fn agent(words: &str) -> String {
    format!("Agent: {words}")
}

fn recipient(words: &str) -> String {
    format!("Recipient: {words}")
}

/// The greeting the TwiML has Twilio speak.
fn greeting(call: &Call) -> String {
    twiml_attribute(call.twiml(), "ConversationRelay", "welcomeGreeting").unwrap()
}

fn assert_started_before_ended(record: &Value) {
    let at = |key: &str| {
        chrono::DateTime::parse_from_rfc3339(record[key].as_str().unwrap_or_else(|| {
            panic!("{key} is not set: {record:#}");
        }))
        .unwrap()
    };
    assert!(at("startedAt") <= at("endedAt"), "{record:#}");
}

/// Plays the recipient of the scripted conversation up to the agent's
/// `end` frame: a question (interrupted), an answer (after a partial
/// transcription), a key press, the goodbye.
async fn converse_to_the_end(relay: &mut fake::Relay) -> String {
    relay.prompt("Hello?");
    assert_eq!(relay.agent_turn().await, QUESTION);
    relay.interrupt("How many boxes");
    relay.partial_prompt("We are");
    relay.prompt("We are expecting 3 boxes.");
    assert_eq!(relay.agent_turn().await, CONFIRM);
    relay.dtmf("1");
    assert_eq!(relay.agent_turn().await, GOODBYE);
    relay.expect_end().await
}

fn full_transcript(greeting: &str) -> Vec<String> {
    vec![
        agent(greeting),
        recipient("Hello?"),
        agent("How many boxes…"),
        recipient("We are expecting 3 boxes."),
        agent(CONFIRM),
        recipient("[pressed 1]"),
        agent(GOODBYE),
    ]
}

fn callbacks<'a>(sent: &'a [fake::Sent], kind: &str) -> Vec<&'a fake::Sent> {
    sent.iter().filter(|s| s.kind == kind).collect()
}

// 1 ---------------------------------------------------------------------

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_call_runs_end_to_end_over_conversation_relay() {
    // A 7-minute cap: the call's reservation (7 minutes) is below the
    // 10-minute maximum, so TimeLimit shows it.
    let h = Harness::start(Options {
        minute_cap: 7,
        ..Options::default()
    })
    .await;
    let (id, placed) = h.place().await;
    assert_eq!(placed["status"], "queued");
    let call = h.fake.next_call().await;
    assert_eq!(call.call_id(), id);
    assert!(call.sid().starts_with("CA") && call.sid().len() == 34);

    // The create request, as Twilio's API documents it.
    let public = &h.instance.public;
    let form: &Form = call.form();
    assert_eq!(field(form, "To"), Some(TO));
    assert_eq!(field(form, "From"), Some(FROM));
    assert_eq!(field(form, "TimeLimit"), Some("420"), "7 reserved minutes");
    assert_eq!(
        field(form, "Timeout"),
        Some(RING_TIMEOUT_SEC.to_string().as_str())
    );
    assert_eq!(
        fields(form, "StatusCallbackEvent"),
        ["initiated", "ringing", "answered", "completed"]
    );
    assert_eq!(field(form, "StatusCallbackMethod"), Some("POST"));
    assert_eq!(
        field(form, "StatusCallback"),
        Some(format!("{public}/twilio/status?callId={id}#rc=3&rp=ct,rt,5xx").as_str())
    );
    // The agent leaves messages: detection waits for the greeting's end.
    assert_eq!(field(form, "MachineDetection"), Some("DetectMessageEnd"));
    assert_eq!(field(form, "AsyncAmd"), Some("true"));
    assert_eq!(
        field(form, "AsyncAmdStatusCallback"),
        Some(format!("{public}/twilio/machine?callId={id}#rc=3&rp=ct,rt,5xx").as_str())
    );
    assert_eq!(field(form, "Record"), Some("true"));
    assert_eq!(
        field(form, "RecordingStatusCallback"),
        Some(format!("{public}/twilio/recording?callId={id}#rc=3&rp=ct,rt,5xx").as_str())
    );
    let twiml = call.twiml();
    assert!(
        twiml.contains(r#"welcomeGreetingInterruptible="none""#),
        "{twiml}"
    );
    let after = &twiml[twiml.find("</Connect>").expect(twiml) + "</Connect>".len()..];
    assert_eq!(after, "</Response>", "nothing after </Connect>: {twiml}");
    assert_eq!(
        twiml_attribute(twiml, "ConversationRelay", "url"),
        Some(format!(
            "ws://{}/twilio/relay/{id}",
            public.trim_start_matches("http://")
        ))
    );
    assert_eq!(
        twiml_attribute(twiml, "Connect", "action"),
        Some(format!(
            "{public}/twilio/connect-action?callId={id}#rc=3&rp=ct,rt,5xx"
        ))
    );
    assert_eq!(twiml_parameters(twiml), [("callId".to_owned(), id.clone())]);
    let greeting = greeting(&call);
    assert!(
        greeting.starts_with("Hello, this is an AI assistant"),
        "{greeting}"
    );

    // queued → dialing → in_progress.
    h.wait_record(&id, "dialing", |r| r["status"] == "dialing")
        .await;
    assert_eq!(call.status("initiated").await, 204);
    assert_eq!(call.status("ringing").await, 204);
    assert_eq!(h.record(&id).await["status"], "dialing");
    let mut relay = call.answer().await;
    let answered = h.record(&id).await;
    assert_eq!(answered["status"], "in_progress");
    assert!(answered["startedAt"].is_string());

    // The conversation, then the agent's end.
    let handoff = converse_to_the_end(&mut relay).await;
    assert_eq!(
        serde_json::from_str::<Value>(&handoff).unwrap(),
        json!({"reason": "objective_met"})
    );
    call.wait_finished().await;
    relay.closed().await;

    // What the fake's callbacks got: the action hangs up; all accepted.
    let sent = call.sent();
    let actions = callbacks(&sent, "action");
    assert_eq!(actions.len(), 1);
    assert_eq!(actions[0].status, 200);
    assert!(actions[0].body.contains("<Hangup/>"), "{}", actions[0].body);
    assert!(
        sent.iter().all(|s| s.kind == "action" || s.status == 204),
        "{sent:#?}"
    );
    assert_eq!(callbacks(&sent, "recording").len(), 1);

    // The record: transcript in order, fields, summary, Twilio's duration.
    let record = h
        .wait_record(&id, "completed with its recording", |r| {
            r["status"] == "completed" && r["recordingUrl"].is_string()
        })
        .await;
    assert_eq!(transcript_lines(&record), full_transcript(&greeting));
    assert_eq!(
        record["extracted"]["boxes"].as_f64(),
        Some(3.0),
        "{record:#}"
    );
    assert!(
        record["summary"].as_str().is_some_and(|s| !s.is_empty()),
        "{record:#}"
    );
    assert_eq!(record["durationSec"], fake::DEFAULT_DURATION);
    assert_eq!(record["error"], Value::Null);
    assert_started_before_ended(&record);

    // The recording: fetched from the fake with the account's credentials,
    // served by our recordingUrl with the API key.
    let fetches = h.fake.fetches();
    assert_eq!(fetches.len(), 1, "{fetches:?}");
    assert!(fetches[0].authorized);
    assert!(
        fetches[0].path.ends_with(".wav") && fetches[0].path.contains("/Recordings/RE"),
        "{fetches:?}"
    );
    let url = record["recordingUrl"].as_str().unwrap();
    let unauthenticated = h.client.get(url).send().await.unwrap();
    assert_eq!(unauthenticated.status(), 401);
    let served = h.client.get(url).bearer_auth(KEY).send().await.unwrap();
    assert_eq!(served.status(), 200);
    assert_eq!(
        served.bytes().await.unwrap().as_ref(),
        h.fake.recording_bytes()
    );

    // Both webhook events, signed.
    let events = h.events(&id).await;
    assert_eq!(names(&events), ["call.in_progress", "call.completed"]);
    let completed = &events[1];
    assert_eq!(completed["durationSec"], fake::DEFAULT_DURATION);
    assert_eq!(completed["extracted"]["boxes"].as_f64(), Some(3.0));
    assert_eq!(completed["status"], "completed");
    assert!(h.fake.refused().is_empty(), "{:?}", h.fake.refused());
    // One model request per agent turn after the greeting.
    assert_eq!(h.model.requests().len(), 3);
}

// 2 ---------------------------------------------------------------------

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn bad_or_missing_signatures_get_403_and_change_nothing() {
    let h = Harness::start(Options::default()).await;
    let (id, _) = h.place().await;
    let call = h.fake.next_call().await;
    assert_eq!(call.status("ringing").await, 204);
    let dialing = h
        .wait_record(&id, "dialing", |r| r["status"] == "dialing")
        .await;

    let status_url = call.param("StatusCallback").unwrap().to_owned();
    let bad = |status: &str| {
        vec![
            Sig::Missing,
            Sig::Garbage,
            Sig::WrongToken,
            // A signature of another callback of the call.
            Sig::OverParams(call.status_form("ringing")),
            // Over the URL of another call.
            Sig::OverUrl(status_url.replace(&id, "call_0000000000000000")),
            Sig::OverParams(call.status_form(status)),
        ]
    };
    for sig in bad("in-progress") {
        // OverParams of the same status still differs (SequenceNumber).
        assert_eq!(
            call.status_with("in-progress", &[], sig.clone()).await,
            403,
            "{sig:?}"
        );
        let duration = [("CallDuration", "42".to_owned())];
        assert_eq!(
            call.status_with("completed", &duration, sig.clone()).await,
            403,
            "{sig:?}"
        );
    }
    assert_eq!(h.record(&id).await, dialing);

    // Answered; handshakes signed wrongly are refused before the upgrade.
    assert_eq!(call.status("in-progress").await, 204);
    let answered = h.record(&id).await;
    assert_eq!(answered["status"], "in_progress");
    let relay_url = twiml_attribute(call.twiml(), "ConversationRelay", "url").unwrap();
    for sig in [
        Sig::Missing,
        Sig::Garbage,
        Sig::WrongToken,
        Sig::OverUrl(format!("{relay_url}?callId={id}")),
        Sig::OverUrl(relay_url.replace("/twilio/relay", "/twilio/status")),
        // Another call's handshake, replayed for this one.
        Sig::OverUrl(relay_url.replace(&id, "call_0000000000000000")),
        Sig::OverParams(vec![("callId".into(), id.clone())]),
    ] {
        let refused = call.try_open_relay(sig.clone()).await;
        assert_eq!(refused.err(), Some(403), "{sig:?}");
    }
    for sig in bad("completed") {
        let duration = [("CallDuration", "42".to_owned())];
        assert_eq!(
            call.status_with("completed", &duration, sig.clone()).await,
            403,
            "{sig:?}"
        );
    }
    assert_eq!(h.record(&id).await, answered);
    assert!(
        h.receiver.for_call(&id).len() <= 1,
        "only call.in_progress so far"
    );

    // A rightly signed session and end still work; a second session for
    // the call, rightly signed too, is closed at once.
    let mut relay = call.open_relay().await;
    relay.prompt("Hello?");
    assert_eq!(relay.agent_turn().await, QUESTION);
    let mut second = call.open_relay().await;
    assert!(
        second.closed().await,
        "the service closed the second session"
    );
    assert!(second.frames.is_empty(), "{:?}", second.frames);
    call.recipient_hangs_up(false).await;
    let record = h.wait_terminal(&id).await;
    assert_eq!(record["status"], "completed", "{record:#}");
    assert_eq!(
        transcript_lines(&record),
        [
            agent(&greeting(&call)),
            recipient("Hello?"),
            agent(QUESTION)
        ]
    );
}

// 3 ---------------------------------------------------------------------

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn unanswered_outcomes_map_to_their_statuses() {
    let h = Harness::start(Options::default()).await;
    let cases = [
        ("busy", "declined", Value::Null, "call.declined"),
        ("no-answer", "no_answer", Value::Null, "call.no_answer"),
        ("failed", "failed", json!("carrier_failed"), "call.failed"),
        ("canceled", "failed", json!("canceled"), "call.failed"),
    ];
    for (twilio, status, error, event) in cases {
        let (id, _) = h.place().await;
        let call = h.fake.next_call().await;
        assert_eq!(call.status("initiated").await, 204, "{twilio}");
        assert_eq!(call.status("ringing").await, 204, "{twilio}");
        assert_eq!(call.status(twilio).await, 204, "{twilio}");
        let record = h.wait_terminal(&id).await;
        assert_eq!(record["status"], status, "{twilio}: {record:#}");
        assert_eq!(record["error"], error, "{twilio}: {record:#}");
        assert_eq!(record["startedAt"], Value::Null, "{twilio}");
        assert!(record["endedAt"].is_string(), "{twilio}");
        assert_eq!(names(&h.events(&id).await), [event], "{twilio}");
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_machine_gets_the_voicemail_message_and_the_call_ends_as_voicemail() {
    let h = Harness::start(Options::default()).await;
    let (id, _) = h.place().await;
    let call = h.fake.next_call().await;
    assert_eq!(call.status("initiated").await, 204);
    assert_eq!(call.status("ringing").await, 204);
    // Answered: the TwiML runs (the relay opens) while detection goes on.
    let mut relay = call.answer().await;
    assert_eq!(call.machine("machine_end_beep").await, 204);

    let redirect = call
        .wait_update("the voicemail redirect", |f| field(f, "Twiml").is_some())
        .await;
    let twiml = field(&redirect, "Twiml").unwrap();
    let say = twiml
        .split_once("<Say>")
        .and_then(|(_, rest)| rest.split_once("</Say>"))
        .map(|(message, rest)| (unescape(message), rest))
        .unwrap_or_else(|| panic!("no <Say>: {twiml}"));
    let (message, rest) = say;
    assert_eq!(rest, "<Hangup/></Response>", "{twiml}");
    assert!(
        message.starts_with(&greeting(&call)) && message.contains("Please call us back"),
        "{message}"
    );
    // The new TwiML replaced the relay; the call then completed.
    relay.closed().await;
    call.wait_finished().await;

    let record = h.wait_terminal(&id).await;
    assert_eq!(record["status"], "voicemail", "{record:#}");
    assert_eq!(record["durationSec"], fake::DEFAULT_DURATION);
    assert_started_before_ended(&record);
    // As the simulated carrier records a voicemail: the greeting heard and
    // the message left (not the relay session's own transcript).
    assert_eq!(
        transcript_lines(&record),
        [recipient("[voicemail greeting]"), agent(&message)],
        "{record:#}"
    );
    assert_eq!(
        names(&h.events(&id).await),
        ["call.in_progress", "call.voicemail"]
    );
    // The message is left, not hung up on.
    assert_eq!(field(&call.updates()[0], "Status"), None);
}

// 4 ---------------------------------------------------------------------

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_queued_call_canceled_through_the_api_is_canceled_at_twilio() {
    let h = Harness::start(Options::default()).await;
    h.fake.hold_creates(true);
    let placing = {
        let (client, base, body) = (h.client.clone(), h.base().to_owned(), h.placement());
        tokio::spawn(async move { place_at(&client, &base, &body).await })
    };
    // Twilio has the create request but has not answered it: still queued.
    let call = h.fake.next_call().await;
    let id = call.call_id();
    assert_eq!(h.record(&id).await["status"], "queued");
    let (status, record) = h.cancel(&id).await;
    assert_eq!(status, 200, "{record:#}");
    assert_eq!(record["status"], "failed", "{record:#}");
    assert_eq!(record["error"], "canceled");

    h.fake.hold_creates(false);
    let (placed_id, _) = placing.await.unwrap();
    assert_eq!(placed_id, id);
    let cancel = call
        .wait_update("the cancel at Twilio", |f| {
            field(f, "Status") == Some("canceled")
        })
        .await;
    assert_eq!(cancel.len(), 1, "{cancel:?}");
    call.wait_finished().await;
    assert_eq!(call.ended().as_deref(), Some("canceled"));
    assert!(
        !call
            .updates()
            .iter()
            .any(|f| field(f, "Status") == Some("completed"))
    );
    let record = h.record(&id).await;
    assert_eq!(record["status"], "failed");
    assert_eq!(record["error"], "canceled");
    assert_eq!(record["startedAt"], Value::Null);
    assert_eq!(names(&h.events(&id).await), ["call.failed"]);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_ringing_call_canceled_through_the_api_is_canceled_at_twilio() {
    let h = Harness::start(Options::default()).await;
    let (id, _) = h.place().await;
    let call = h.fake.next_call().await;
    assert_eq!(call.status("initiated").await, 204);
    assert_eq!(call.status("ringing").await, 204);
    assert_eq!(h.record(&id).await["status"], "dialing");
    let (status, record) = h.cancel(&id).await;
    assert_eq!(status, 200, "{record:#}");
    assert_eq!(record["status"], "failed", "{record:#}");
    assert_eq!(record["error"], "canceled");

    call.wait_update("the cancel at Twilio", |f| {
        field(f, "Status") == Some("canceled")
    })
    .await;
    call.wait_finished().await;
    let sent = call.sent();
    let last = sent.last().unwrap();
    assert_eq!(field(&last.params, "CallStatus"), Some("canceled"));
    assert_eq!(last.status, 204);
    let record = h.record(&id).await;
    assert_eq!(
        (&record["status"], &record["error"]),
        (&json!("failed"), &json!("canceled"))
    );
    assert_eq!(names(&h.events(&id).await), ["call.failed"]);
    // Cancelling again: the call already ended.
    assert_eq!(h.cancel(&id).await.0, 409);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_answered_call_canceled_through_the_api_is_hung_up_and_completes() {
    let h = Harness::start(Options::default()).await;
    let (id, _) = h.place().await;
    let call = h.fake.next_call().await;
    assert_eq!(call.status("ringing").await, 204);
    let mut relay = call.answer().await;
    relay.prompt("Hello?");
    assert_eq!(relay.agent_turn().await, QUESTION);
    call.set_duration(19);

    let (status, record) = h.cancel(&id).await;
    assert_eq!(status, 200, "{record:#}");
    call.wait_update("the hang-up at Twilio", |f| {
        field(f, "Status") == Some("completed")
    })
    .await;
    assert!(
        !call
            .updates()
            .iter()
            .any(|f| field(f, "Status") == Some("canceled"))
    );
    assert!(!relay.closed().await, "Twilio closed the relay");
    let record = if is_terminal(&record) {
        record
    } else {
        h.wait_terminal(&id).await
    };
    assert_eq!(record["status"], "completed", "{record:#}");
    assert_eq!(record["error"], Value::Null);
    assert_eq!(
        transcript_lines(&record),
        [
            agent(&greeting(&call)),
            recipient("Hello?"),
            agent(QUESTION)
        ]
    );
    assert_eq!(record["durationSec"], 19);
    assert!(record["summary"].is_string());
    assert_started_before_ended(&record);
    assert_eq!(
        names(&h.events(&id).await),
        ["call.in_progress", "call.completed"]
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_cancel_racing_the_recipients_hang_up_completes_the_call() {
    let h = Harness::start(Options::default()).await;
    let (id, _) = h.place().await;
    let call = h.fake.next_call().await;
    let mut relay = call.answer().await;
    relay.prompt("Hello?");
    assert_eq!(relay.agent_turn().await, QUESTION);
    // The recipient hangs up; Twilio is slow to report it.
    call.hold_end(true);
    let hanging_up = {
        let call = call.clone();
        tokio::spawn(async move { call.recipient_hangs_up(false).await })
    };
    assert!(!relay.closed().await, "the recipient's side closed");
    assert_eq!(h.record(&id).await["status"], "in_progress");

    // Our hang-up finds the call over at Twilio (404): the cancel waits
    // for the end Twilio then reports.
    let cancel = {
        let (client, base, id) = (h.client.clone(), h.base().to_owned(), id.clone());
        tokio::spawn(async move {
            let response = client
                .post(format!("{base}/v1/agent/calls/{id}/cancel"))
                .bearer_auth(KEY)
                .send()
                .await
                .unwrap();
            (
                response.status().as_u16(),
                response.json::<Value>().await.unwrap(),
            )
        })
    };
    call.wait_update("the hang-up at Twilio", |f| {
        field(f, "Status") == Some("completed")
    })
    .await;
    assert_eq!(call.update_answers(), [404]);
    call.hold_end(false);
    hanging_up.await.unwrap();
    let (status, record) = cancel.await.unwrap();
    assert_eq!(status, 200, "{record:#}");
    let record = if is_terminal(&record) {
        record
    } else {
        h.wait_terminal(&id).await
    };
    assert_eq!(record["status"], "completed", "{record:#}");
    assert_eq!(record["durationSec"], fake::DEFAULT_DURATION);
    assert_eq!(
        transcript_lines(&record),
        [
            agent(&greeting(&call)),
            recipient("Hello?"),
            agent(QUESTION)
        ]
    );
    assert_eq!(
        names(&h.events(&id).await),
        ["call.in_progress", "call.completed"]
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_relay_session_for_an_ended_call_is_closed_and_changes_nothing() {
    let h = Harness::start(Options::default()).await;
    let (id, _) = h.place().await;
    let call = h.fake.next_call().await;
    assert_eq!(call.status("ringing").await, 204);
    assert_eq!(call.status("completed").await, 204);
    let ended = h.wait_terminal(&id).await;
    assert_eq!(ended["status"], "completed");
    // A (replayed) session naming the call: rightly signed, but the call
    // is over, so the service closes it at once.
    let mut relay = call.open_relay().await;
    assert!(relay.closed().await, "the service closed the session");
    assert!(relay.frames.is_empty(), "{:?}", relay.frames);
    assert_eq!(h.record(&id).await, ended);
}

/// Once the call is over, a stray hang-up of ours would show up well
/// within this.
const SETTLE: Duration = Duration::from_millis(500);

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_service_never_hangs_up_a_call_twilio_ended() {
    let h = Harness::start(Options::default()).await;

    // The agent ends the conversation.
    let (id, _) = h.place().await;
    let call = h.fake.next_call().await;
    let mut relay = call.answer().await;
    converse_to_the_end(&mut relay).await;
    call.wait_finished().await;
    assert_eq!(h.wait_terminal(&id).await["status"], "completed");
    h.events(&id).await;
    tokio::time::sleep(SETTLE).await;
    assert_eq!(call.updates(), Vec::<Form>::new(), "agent's end");

    // The recipient hangs up.
    let (id, _) = h.place().await;
    let call = h.fake.next_call().await;
    let mut relay = call.answer().await;
    relay.prompt("Hello?");
    assert_eq!(relay.agent_turn().await, QUESTION);
    call.recipient_hangs_up(false).await;
    assert_eq!(h.wait_terminal(&id).await["status"], "completed");
    h.events(&id).await;
    tokio::time::sleep(SETTLE).await;
    assert_eq!(call.updates(), Vec::<Form>::new(), "recipient's hang-up");

    // Busy.
    let (id, _) = h.place().await;
    let call = h.fake.next_call().await;
    assert_eq!(call.status("busy").await, 204);
    assert_eq!(h.wait_terminal(&id).await["status"], "declined");
    h.events(&id).await;
    tokio::time::sleep(SETTLE).await;
    assert_eq!(call.updates(), Vec::<Form>::new(), "busy");

    // Canceled through the API while ringing: one cancel, when Twilio then
    // reports the call canceled nothing more.
    let (id, _) = h.place().await;
    let call = h.fake.next_call().await;
    assert_eq!(call.status("ringing").await, 204);
    assert_eq!(h.cancel(&id).await.0, 200);
    call.wait_finished().await;
    h.events(&id).await;
    tokio::time::sleep(SETTLE).await;
    let updates = call.updates();
    assert_eq!(updates.len(), 1, "{updates:?}");
    assert_eq!(field(&updates[0], "Status"), Some("canceled"));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_cancel_reaching_a_call_just_answered_hangs_it_up() {
    let h = Harness::start(Options::default()).await;
    let (id, _) = h.place().await;
    let call = h.fake.next_call().await;
    assert_eq!(call.status("ringing").await, 204);
    // Twilio connects the call; its in-progress callback is still on the
    // way when the cancel arrives, so our record says dialing.
    call.answer_silently();
    assert_eq!(h.record(&id).await["status"], "dialing");
    let (status, record) = h.cancel(&id).await;
    assert_eq!(status, 200, "{record:#}");
    assert_eq!(record["status"], "failed", "{record:#}");
    assert_eq!(record["error"], "canceled");
    // `canceled` leaves an answered call up (Twilio answers it is still
    // in progress), so it is hung up with `completed`.
    call.wait_update("the hang-up at Twilio", |f| {
        field(f, "Status") == Some("completed")
    })
    .await;
    let statuses: Vec<Option<String>> = call
        .updates()
        .iter()
        .map(|f| field(f, "Status").map(str::to_owned))
        .collect();
    assert_eq!(
        statuses[..2],
        [Some("canceled".to_owned()), Some("completed".to_owned())]
    );
    call.wait_finished().await;
    assert_eq!(call.ended().as_deref(), Some("completed"));
    // Twilio's late reports change nothing.
    assert_eq!(call.status("in-progress").await, 204);
    let record = h.record(&id).await;
    assert_eq!(
        (&record["status"], &record["error"]),
        (&json!("failed"), &json!("canceled"))
    );
    assert_eq!(names(&h.events(&id).await), ["call.failed"]);
}

// 5 ---------------------------------------------------------------------

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn callbacks_out_of_order_or_twice_end_the_call_once() {
    let h = Harness::start(Options::default()).await;

    // completed arrives before in-progress; everything twice.
    let (id, _) = h.place().await;
    let call = h.fake.next_call().await;
    for status in ["initiated", "initiated", "ringing", "ringing"] {
        assert_eq!(call.status(status).await, 204, "{status}");
    }
    assert_eq!(call.status("completed").await, 204);
    assert_eq!(call.status("completed").await, 204);
    assert_eq!(call.status("in-progress").await, 204);
    assert_eq!(call.status("in-progress").await, 204);
    let record = h.wait_terminal(&id).await;
    assert_eq!(record["status"], "completed", "{record:#}");
    assert_eq!(record["durationSec"], fake::DEFAULT_DURATION);
    assert_started_before_ended(&record);
    let events = h.events(&id).await;
    let terminal: Vec<_> = names(&events)
        .into_iter()
        .filter(|n| *n != "call.in_progress")
        .collect();
    assert_eq!(terminal, ["call.completed"], "{events:#?}");
    assert!(names(&events).len() <= 2, "{events:#?}");

    // A conversation whose every callback Twilio sends twice.
    let (id, _) = h.place().await;
    let call = h.fake.next_call().await;
    call.duplicate_callbacks();
    for status in [
        "initiated",
        "initiated",
        "ringing",
        "ringing",
        "in-progress",
    ] {
        assert_eq!(call.status(status).await, 204, "{status}");
    }
    let mut relay = call.open_relay().await;
    assert_eq!(call.status("in-progress").await, 204);
    converse_to_the_end(&mut relay).await;
    call.wait_finished().await;
    let sent = call.sent();
    assert_eq!(callbacks(&sent, "action").len(), 2);
    assert_eq!(callbacks(&sent, "recording").len(), 2);
    assert!(
        sent.iter().all(|s| (200..300).contains(&s.status)),
        "{sent:#?}"
    );
    let record = h
        .wait_record(&id, "completed with its recording", |r| {
            r["status"] == "completed" && r["recordingUrl"].is_string()
        })
        .await;
    assert_eq!(transcript_lines(&record), full_transcript(&greeting(&call)));
    assert_started_before_ended(&record);
    let events = h.events(&id).await;
    assert_eq!(names(&events), ["call.in_progress", "call.completed"]);
    // Nothing more arrives for it.
    tokio::time::sleep(Duration::from_millis(500)).await;
    assert_eq!(h.events(&id).await.len(), 2);
}

// 6, 7 ------------------------------------------------------------------

async fn recipient_hangs_up_mid_conversation(drop_socket: bool) {
    let h = Harness::start(Options::default()).await;
    let (id, _) = h.place().await;
    let call = h.fake.next_call().await;
    assert_eq!(call.status("initiated").await, 204);
    assert_eq!(call.status("ringing").await, 204);
    let mut relay = call.answer().await;
    relay.prompt("Hello?");
    assert_eq!(relay.agent_turn().await, QUESTION);
    call.set_duration(17);
    call.recipient_hangs_up(drop_socket).await;
    call.wait_finished().await;
    let record = h
        .wait_record(&id, "completed with its recording", |r| {
            is_terminal(r) && r["recordingUrl"].is_string()
        })
        .await;
    assert_eq!(record["status"], "completed", "{record:#}");
    assert_eq!(
        transcript_lines(&record),
        [
            agent(&greeting(&call)),
            recipient("Hello?"),
            agent(QUESTION)
        ]
    );
    assert_eq!(record["durationSec"], 17);
    assert!(record["summary"].is_string());
    assert_eq!(record["extracted"]["boxes"], Value::Null);
    assert_started_before_ended(&record);
    assert_eq!(
        names(&h.events(&id).await),
        ["call.in_progress", "call.completed"]
    );
    let _ = relay.closed().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_recipient_hanging_up_completes_the_call_with_the_partial_transcript() {
    recipient_hangs_up_mid_conversation(false).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_dropped_relay_socket_completes_the_call_with_the_partial_transcript() {
    recipient_hangs_up_mid_conversation(true).await;
}

// Last words --------------------------------------------------------------

const FRIDAY_QUESTION: &str = "Does Friday work for your delivery?";

/// Asks whether Friday works; thinks for six seconds over the answer.
fn slow_mind(request: &Value) -> Reply {
    let lines = user_lines(request);
    if lines.iter().any(|line| line.contains("Friday works")) {
        Reply::end("Great, Friday it is. Goodbye.", "objective_met").after(Duration::from_secs(6))
    } else {
        Reply::say(FRIDAY_QUESTION)
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_recipients_last_words_are_kept_when_they_hang_up_while_the_model_thinks() {
    let h = Harness::start_with_mind(Options::default(), slow_mind).await;
    let body = json!({
        "to": TO,
        "objective": "Confirm that Friday works for the delivery",
        "webhookUrl": h.receiver.url,
        "fields": [{"name": "fridayWorks", "type": "boolean",
                    "description": "Whether Friday works for the delivery"}],
    });
    let (id, _) = place_at(&h.client, h.base(), &body).await;
    let call = h.fake.next_call().await;
    assert_eq!(call.status("initiated").await, 204);
    assert_eq!(call.status("ringing").await, 204);
    let mut relay = call.answer().await;
    relay.prompt("Hello?");
    assert_eq!(relay.agent_turn().await, FRIDAY_QUESTION);
    relay.prompt("Yes, Friday works, bye");
    // Twilio drops the socket and reports the end at once; the model is
    // still thinking.
    call.set_duration(9);
    call.recipient_hangs_up(true).await;
    call.wait_finished().await;
    let record = h.wait_terminal(&id).await;
    assert_eq!(record["status"], "completed", "{record:#}");
    assert_eq!(
        transcript_lines(&record),
        [
            agent(&greeting(&call)),
            recipient("Hello?"),
            agent(FRIDAY_QUESTION),
            recipient("Yes, Friday works, bye"),
        ],
        "{record:#}"
    );
    assert_eq!(record["extracted"]["fridayWorks"], true, "{record:#}");
    assert_eq!(record["durationSec"], 9);
}

// A callback that fails -------------------------------------------------

/// The store fails while Twilio's `completed` callback (CallDuration 120)
/// arrives: the callback URL asks Twilio to retry a 5xx, and the retry
/// ends the call as Twilio says, with its transcript and 2 minutes.
#[cfg(feature = "sqlite")]
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_completed_callback_that_meets_a_failing_store_is_retried_and_lands() {
    use sqlx::Connection;
    let database = TempPath::unique("db");
    let store = format!("sqlite://{}", database.0.display());
    let h = Harness::start(Options {
        store: store.clone(),
        ..Options::default()
    })
    .await;
    let (id, _) = h.place().await;
    let call = h.fake.next_call().await;
    assert_eq!(call.status("initiated").await, 204);
    assert_eq!(call.status("ringing").await, 204);
    let mut relay = call.answer().await;
    relay.prompt("Hello?");
    assert_eq!(relay.agent_turn().await, QUESTION);
    relay.prompt("Seven boxes.");
    assert_eq!(relay.agent_turn().await, CONFIRM);
    // Another process takes the database's write lock: every write of the
    // server fails once its busy timeout is up.
    let mut lock = sqlx::SqliteConnection::connect(&store).await.unwrap();
    sqlx::query("BEGIN IMMEDIATE")
        .execute(&mut lock)
        .await
        .unwrap();
    h.fake.let_retries_go(false);
    call.set_duration(120);
    let ending = call.clone();
    let hang_up = tokio::spawn(async move { ending.recipient_hangs_up(false).await });
    // The completed callback failed (503, or no answer in time) and its
    // URL asks for a retry; the retry meets the store as it is again.
    h.fake.wait_retries_asked(1).await;
    sqlx::query("ROLLBACK").execute(&mut lock).await.unwrap();
    drop(lock);
    h.fake.let_retries_go(true);
    hang_up.await.unwrap();
    let record = h.wait_terminal(&id).await;
    assert_eq!(record["status"], "completed", "{record:#}");
    assert_eq!(record["durationSec"], 120, "{record:#}");
    assert_eq!(
        transcript_lines(&record)[1..],
        [
            recipient("Hello?"),
            agent(QUESTION),
            recipient("Seven boxes."),
            agent(CONFIRM)
        ],
        "{record:#}"
    );
    assert_eq!(record["extracted"]["boxes"], 7, "{record:#}");
    let completed: Vec<u16> = callbacks(&call.sent(), "status")
        .into_iter()
        .filter(|sent| field(&sent.params, "CallStatus") == Some("completed"))
        .map(|sent| sent.status)
        .collect();
    assert_eq!(completed, [204], "{completed:?}");
}

// Time limit --------------------------------------------------------------

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn twilio_ends_a_call_at_its_time_limit() {
    // One minute reserved: TimeLimit 60, run by the fake at 20 ms a second.
    let h = Harness::start(Options {
        minute_cap: 1,
        ..Options::default()
    })
    .await;
    h.fake.set_second(Duration::from_millis(20));
    let (id, _) = h.place().await;
    let call = h.fake.next_call().await;
    assert_eq!(call.param("TimeLimit"), Some("60"));
    let mut relay = call.answer().await;
    relay.prompt("Hello?");
    assert_eq!(relay.agent_turn().await, QUESTION);
    // The line is cut when the limit passes, whatever is being said.
    assert!(!relay.closed().await, "Twilio cut the line");
    call.wait_finished().await;
    assert!(matches!(call.ends()[0], fake::End::TimeLimit));
    let record = h.wait_terminal(&id).await;
    assert_eq!(record["status"], "completed", "{record:#}");
    assert_eq!(record["durationSec"], 60);
    let lines = transcript_lines(&record);
    assert_eq!(lines[..2], [agent(&greeting(&call)), recipient("Hello?")]);
}

// 8 ---------------------------------------------------------------------

/// A database of the test's own on the server `AGENTCALL_TEST_POSTGRES`
/// names (as `tests/instances_postgres.rs` makes one).
#[cfg(feature = "postgres")]
struct TestDatabase {
    admin: sqlx::postgres::PgConnectOptions,
    name: String,
    url: String,
}

#[cfg(feature = "postgres")]
impl TestDatabase {
    async fn create() -> Option<Self> {
        use std::str::FromStr;
        let Ok(url) = std::env::var("AGENTCALL_TEST_POSTGRES") else {
            println!("skipped: set AGENTCALL_TEST_POSTGRES to run the two-instance Twilio test");
            return None;
        };
        let admin = sqlx::postgres::PgConnectOptions::from_str(&url).expect("a postgres:// URL");
        let name = format!("agentcall_twilio_{}", uuid::Uuid::new_v4().simple());
        let pool = sqlx::PgPool::connect_with(admin.clone())
            .await
            .expect("connect");
        sqlx::query(&format!("CREATE DATABASE {name}"))
            .execute(&pool)
            .await
            .expect("create database");
        pool.close().await;
        let base = url.split('?').next().unwrap_or(&url);
        let server = base.rsplit_once('/').map_or(base, |(server, _)| server);
        Some(Self {
            admin,
            url: format!("{server}/{name}"),
            name,
        })
    }

    async fn drop(self) {
        let pool = sqlx::PgPool::connect_with(self.admin)
            .await
            .expect("connect");
        sqlx::query(&format!("DROP DATABASE {} WITH (FORCE)", self.name))
            .execute(&pool)
            .await
            .expect("drop database");
        pool.close().await;
    }
}

#[cfg(feature = "postgres")]
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn callbacks_and_the_relay_may_reach_an_instance_that_did_not_place_the_call() {
    let Some(database) = TestDatabase::create().await else {
        return;
    };
    let fake = FakeTwilio::start().await;
    let model = ScriptedModel::start(mind).await;
    let receiver = Receiver::start().await;
    let options = |instance: &str| Options {
        store: database.url.clone(),
        instance_id: Some(instance.to_owned()),
        ..Options::default()
    };
    let placing = Instance::start(&fake, &model, &options("twilio-a"));
    let other = Instance::start(&fake, &model, &options("twilio-b"));
    let client = reqwest::Client::new();
    let body = json!({
        "to": TO,
        "objective": "Confirm Friday's delivery",
        "webhookUrl": receiver.url,
        "fields": [{"name": "boxes", "type": "number", "description": "How many boxes are expected"}],
    });
    let (id, _) = place_at(&client, &placing.server.base, &body).await;
    let call = fake.next_call().await;
    assert!(
        call.param("StatusCallback")
            .unwrap()
            .starts_with(&placing.public)
    );
    // Twilio's requests reach the other instance.
    call.route_to(&other.public);
    for status in ["initiated", "ringing"] {
        assert_eq!(call.status(status).await, 204, "{status}");
    }
    let mut relay = call.answer().await;
    let handoff = converse_to_the_end(&mut relay).await;
    assert!(handoff.contains("objective_met"));
    call.wait_finished().await;
    let sent = call.sent();
    assert!(sent.iter().all(|s| s.url.starts_with(&other.public)));
    assert!(
        sent.iter().all(|s| (200..300).contains(&s.status)),
        "{sent:#?}"
    );

    // Read from the instance that placed the call.
    let record = wait_record_at(
        &client,
        &placing.server.base,
        &id,
        "completed with its recording",
        |r| r["status"] == "completed" && r["recordingUrl"].is_string(),
    )
    .await;
    assert_eq!(transcript_lines(&record), full_transcript(&greeting(&call)));
    assert_eq!(record["durationSec"], fake::DEFAULT_DURATION);
    assert_eq!(record["extracted"]["boxes"].as_f64(), Some(3.0));
    let served = client
        .get(record["recordingUrl"].as_str().unwrap())
        .bearer_auth(KEY)
        .send()
        .await
        .unwrap();
    assert_eq!(served.status(), 200);
    assert_eq!(
        served.bytes().await.unwrap().as_ref(),
        fake.recording_bytes()
    );
    assert_eq!(
        names(&events_of(&receiver, &id).await),
        ["call.in_progress", "call.completed"]
    );
    drop((placing, other));
    database.drop().await;
}

// Retries -------------------------------------------------------------

/// A retried call over Twilio, in process on a hand-set clock (the example
/// server has none): the first attempt is not answered, the second is
/// created with callbacks naming attempt 2, and Twilio's late callbacks
/// about the first attempt move nothing (a late "ringing" even gets that
/// stray call ended at Twilio), while the second attempt's end ends the
/// call.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_retry_over_twilio_drops_the_first_attempts_late_callbacks() {
    use std::sync::Arc;

    use agentcall::clock::ManualClock;
    use agentcall::schedule::{RetryOn, RetryPolicy};
    use agentcall::store::MemoryStore;
    use agentcall::twilio::{
        TwilioCallbacks, TwilioCarrier, TwilioConfig, paths, signature::AuthToken,
    };
    use agentcall::{ApiKey, CallStatus, PlacementRequest};

    let fake = FakeTwilio::start().await;
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let public = format!("http://{}", listener.local_addr().unwrap());
    let store = Arc::new(MemoryStore::new());
    let mut config = TwilioConfig::new(
        fake::ACCOUNT_SID,
        AuthToken::new(fake::AUTH_TOKEN),
        url::Url::parse(&public).unwrap(),
    );
    config.api_base = url::Url::parse(&fake.base).unwrap();
    config.machine_detection = false;
    config.record = false;
    let carrier = TwilioCarrier::new(config);
    // Noon in San Francisco: inside the default calling window.
    let clock = Arc::new(ManualClock::new("2026-12-01T20:00:00Z".parse().unwrap()));
    let service = common::builder()
        .store(store)
        .carrier(Arc::new(carrier.clone()))
        .clock(clock.clone())
        .build()
        .unwrap();
    let callbacks = TwilioCallbacks::new(carrier);
    let app = axum::Router::new()
        .route_service(paths::STATUS, callbacks.clone())
        .route_service(paths::MACHINE, callbacks.clone())
        .route_service(paths::RECORDING, callbacks.clone())
        .route_service(paths::CONNECT_ACTION, callbacks);
    let server = tokio::spawn(async move { axum::serve(listener, app).await });

    let me = service
        .authenticate(&ApiKey::new(KEY))
        .await
        .unwrap()
        .unwrap();
    let mut request = PlacementRequest::new(TO, "Confirm Friday's delivery");
    request.retry =
        Some(RetryPolicy::new(2, &[RetryOn::NoAnswer, RetryOn::BusyOrDeclined], &[30]).unwrap());
    let placed = service.place(&me, &request).await.unwrap();
    let first = fake.next_call().await;
    assert!(
        !first.param("StatusCallback").unwrap().contains("attempt="),
        "the first attempt's URLs are as before retries"
    );
    assert_eq!(first.status("initiated").await, 204);
    assert_eq!(first.status("no-answer").await, 204);
    let waiting = service.get(&me, &placed.call_id).await.unwrap();
    assert_eq!(
        (waiting.status, waiting.attempt, waiting.attempts.len()),
        (CallStatus::Queued, 1, 1)
    );

    clock.set("2026-12-01T20:30:01Z".parse().unwrap());
    assert_eq!(service.recover().await.unwrap().started, 1);
    let second = fake.next_call().await;
    assert_ne!(second.sid(), first.sid());
    assert!(
        second
            .param("StatusCallback")
            .unwrap()
            .contains("&attempt=2#"),
        "{:?}",
        second.param("StatusCallback")
    );
    assert_eq!(second.status("initiated").await, 204);
    assert_eq!(second.status("ringing").await, 204);
    let ringing = service.get(&me, &placed.call_id).await.unwrap();

    // Twilio sends the first attempt's end again, late: nothing moves.
    for late in ["no-answer", "busy", "completed"] {
        assert_eq!(first.status(late).await, 204, "{late}");
        assert_eq!(service.get(&me, &placed.call_id).await.unwrap(), ringing);
    }
    // A late "ringing" of the first attempt: that stray call is ended at
    // Twilio by its CallSid, and the call is left alone.
    assert_eq!(first.status("ringing").await, 204);
    first
        .wait_update("the stray first attempt canceled at Twilio", |form| {
            field(form, "Status") == Some("canceled")
        })
        .await;
    assert_eq!(service.get(&me, &placed.call_id).await.unwrap(), ringing);
    assert!(
        second.updates().is_empty(),
        "the second attempt was not touched"
    );

    // The second attempt is busy, and it was the last: the call ends.
    assert_eq!(second.status("busy").await, 204);
    let ended = service.get(&me, &placed.call_id).await.unwrap();
    assert_eq!(
        (ended.status, ended.attempt, ended.attempts.len()),
        (CallStatus::Declined, 2, 1)
    );
    assert_eq!(ended.attempts[0].status, CallStatus::NoAnswer);
    service.shutdown(Duration::from_secs(1)).await;
    server.abort();
}

// Issue 40, defect 1 -----------------------------------------------------

/// A placement that would retry anything retryable.
fn retrying_placement(h: &Harness) -> Value {
    let mut body = h.placement();
    body["retry"] = json!({"maxAttempts": 3, "on": ["no_answer", "busy_or_declined", "voicemail"],
                           "delayMinutes": [1]});
    body
}

/// Twilio rings the phone (signed `initiated` and `ringing`) but answers
/// the create only after 16 s, past the dial timeout (15 s, the old REST
/// client's fixed bound): the dial's outcome is unknown. The stray call is
/// ended by the CallSid its callbacks gave, the record says
/// `dial_unconfirmed`, and nothing dials the number again: no `502` that
/// invites a retry, no `carrier_unreachable` that the policy retries.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_slow_twilio_create_is_ended_by_its_call_sid_and_never_dialed_again() {
    let h = Harness::start(Options {
        dial_timeout_ms: Some(15_000),
        ..Options::default()
    })
    .await;
    h.fake.ring_then_hold_creates(Duration::from_secs(16));
    let placing = {
        let (client, base, body) = (
            h.client.clone(),
            h.base().to_owned(),
            retrying_placement(&h),
        );
        tokio::spawn(async move {
            let response = client
                .post(format!("{base}/v1/agent/calls"))
                .bearer_auth(KEY)
                .json(&body)
                .send()
                .await
                .unwrap();
            let status = response.status().as_u16();
            (status, response.json::<Value>().await.unwrap())
        })
    };
    let call = h.fake.next_call().await;
    let id = call.call_id();
    // The phone rings while Twilio has not answered the create.
    h.wait_record(&id, "dialing", |r| r["status"] == "dialing")
        .await;

    let (status, answer) = placing.await.unwrap();
    assert_eq!(status, 201, "the placement invites no retry: {answer}");
    assert_eq!(answer["callId"], id.as_str());
    assert_eq!(answer["status"], "failed", "{answer}");

    // The stray call is ended at Twilio by the CallSid its callbacks gave.
    call.wait_update("the stray call canceled at Twilio", |f| {
        field(f, "Status") == Some("canceled")
    })
    .await;
    call.wait_finished().await;
    assert_eq!(call.ended().as_deref(), Some("canceled"));

    let record = h.wait_terminal(&id).await;
    assert_eq!(
        (&record["status"], &record["error"]),
        (&json!("failed"), &json!("dial_unconfirmed")),
        "{record:#}"
    );
    assert_eq!(record["attempt"], 1, "{record:#}");
    assert_eq!(record["startedAt"], Value::Null);
    assert_eq!(names(&h.events(&id).await), ["call.failed"]);
    // Terminal, with no retry waiting: one create for the number, ever.
    assert_eq!(h.fake.creates_to(TO), 1);
}

/// A scheduled call whose create Twilio never answers, with no callback
/// either: the carrier finds the call by listing the number's calls, ends
/// it, and the attempt ends `dial_unconfirmed`, which no policy retries.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_unanswered_scheduled_create_is_found_by_number_ended_and_not_retried() {
    let h = Harness::start(Options {
        dial_timeout_ms: Some(2_000),
        ..Options::default()
    })
    .await;
    h.fake.hold_creates(true);
    let mut body = retrying_placement(&h);
    let at = chrono::Utc::now() + chrono::Duration::seconds(2);
    body["scheduledAt"] = json!(at.to_rfc3339_opts(chrono::SecondsFormat::Secs, true));
    let (id, placed) = place_at(&h.client, h.base(), &body).await;
    assert_eq!(placed["status"], "queued");

    let call = h.fake.next_call().await;
    assert_eq!(call.call_id(), id);
    call.wait_update("the stray call canceled at Twilio", |f| {
        field(f, "Status") == Some("canceled")
    })
    .await;
    let lists = h.fake.lists();
    assert_eq!(lists.len(), 1, "{lists:?}");
    assert!(
        lists[0].contains("To=%2B14155550125") && lists[0].contains("From=%2B14155550100"),
        "{lists:?}"
    );
    let record = h.wait_terminal(&id).await;
    assert_eq!(
        (&record["status"], &record["error"]),
        (&json!("failed"), &json!("dial_unconfirmed")),
        "{record:#}"
    );
    assert_eq!(names(&h.events(&id).await), ["call.failed"]);
    h.fake.hold_creates(false);
    call.wait_finished().await;
    assert_eq!(h.fake.creates_to(TO), 1);
}
