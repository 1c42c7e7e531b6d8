//! A fake Twilio on 127.0.0.1:0 that behaves as Twilio's documentation
//! says, for the slice the Twilio carrier uses:
//!
//! - `POST /2010-04-01/Accounts/{AccountSid}/Calls.json` (HTTP Basic
//!   `AccountSid:AuthToken`) creates a call (`201`, JSON with a `CA…` sid);
//! - `POST …/Calls/{Sid}.json` with `Status=canceled|completed` ends it,
//!   with `Twiml=` replaces what it runs (`404`, code 20404, once ended);
//! - `GET …/Calls.json?To=…&From=…` lists calls, newest first;
//! - `GET …/Recordings/{Sid}.wav` serves a recording's WAV bytes.
//!
//! The test drives each call ([`Call`]): signed status and
//! answering-machine callbacks, the ConversationRelay WebSocket ([`Relay`],
//! signed handshake, `setup`, then the recipient's frames). The fake reacts
//! on its own as Twilio would: an `end` frame closes the session, requests
//! the `<Connect action>` with `HandoffData`, then reports `completed` with
//! `CallDuration` and the recording; a REST hang-up, cancel or redirect
//! ends the call with the matching callback; `TimeLimit` ends an answered
//! call when it passes.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use agentcall::twilio::signature::{AuthToken, TwilioSignature};
use axum::body::Body;
use axum::extract::{Path, State};
use axum::http::{HeaderMap, Response, StatusCode};
use base64::Engine as _;
use bytes::Bytes;
use serde_json::{Value, json};
use tokio::sync::{mpsc, oneshot, watch};

use super::ws;

pub const ACCOUNT_SID: &str = "AC0123456789abcdef0123456789abcdef";
pub const AUTH_TOKEN: &str = "fake-twilio-auth-token-42";
/// The talk time the fake reports for a call unless told otherwise.
pub const DEFAULT_DURATION: u64 = 42;
/// How long the test waits for anything the fake or the server does.
pub const WAIT: Duration = Duration::from_secs(20);

/// Decoded form fields, in order.
pub type Form = Vec<(String, String)>;

/// The first value of `key`.
pub fn field<'a>(form: &'a [(String, String)], key: &str) -> Option<&'a str> {
    form.iter().find(|(k, _)| k == key).map(|(_, v)| v.as_str())
}

/// Every value of `key`, in order.
pub fn fields<'a>(form: &'a [(String, String)], key: &str) -> Vec<&'a str> {
    form.iter()
        .filter(|(k, _)| k == key)
        .map(|(_, v)| v.as_str())
        .collect()
}

fn parse_form(body: &[u8]) -> Form {
    url::form_urlencoded::parse(body).into_owned().collect()
}

fn owned(pairs: &[(&str, String)]) -> Form {
    pairs
        .iter()
        .map(|(k, v)| ((*k).to_owned(), v.clone()))
        .collect()
}

fn hex32() -> String {
    format!("{:032x}", fastrand::u128(..))
}

/// Polls `condition` every 10 ms until it holds; panics after [`WAIT`].
pub async fn wait_until(what: &str, mut condition: impl FnMut() -> bool) {
    let deadline = tokio::time::Instant::now() + WAIT;
    while !condition() {
        assert!(
            tokio::time::Instant::now() < deadline,
            "timed out waiting for {what}"
        );
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
}

/// How a request the fake sends is signed.
#[derive(Debug, Clone)]
pub enum Sig {
    /// As Twilio signs: the account's token over the URL and the params.
    Valid,
    /// No `X-Twilio-Signature` header.
    Missing,
    /// A header that is no signature at all.
    Garbage,
    /// Signed with another auth token.
    WrongToken,
    /// Signed over other params than the ones sent.
    OverParams(Form),
    /// Signed over another URL than the one requested.
    OverUrl(String),
}

/// One request the fake sent, and the answer.
#[derive(Debug, Clone)]
pub struct Sent {
    pub kind: &'static str,
    #[cfg_attr(not(feature = "postgres"), allow(dead_code))]
    pub url: String,
    pub params: Form,
    pub status: u16,
    pub body: String,
}

/// A recording download the fake served (or refused).
#[derive(Debug, Clone)]
pub struct Fetch {
    pub path: String,
    pub authorized: bool,
}

struct Shared {
    base: String,
    signer: TwilioSignature,
    http: reqwest::Client,
    calls: Mutex<HashMap<String, Call>>,
    new_calls: mpsc::UnboundedSender<Call>,
    hold_creates: watch::Sender<bool>,
    /// Set: each create sends `initiated` and `ringing`, then answers this
    /// much later (a slow Twilio: the phone rings meanwhile).
    ring_then_hold: Mutex<Option<Duration>>,
    /// The query of every call list request.
    lists: Mutex<Vec<String>>,
    recording: Vec<u8>,
    fetches: Mutex<Vec<Fetch>>,
    refused: Mutex<Vec<String>>,
    /// Real time per second of Twilio time (the `TimeLimit` clock).
    second: Mutex<Duration>,
    /// Whether callbacks may be retried now (a test holds retries back
    /// while it arranges what the retry meets).
    retry_gate: watch::Sender<bool>,
    /// Callbacks answered in a way their URL's overrides retry.
    retries_asked: watch::Sender<u32>,
}

/// The fake Twilio; dropping it stops the server.
pub struct FakeTwilio {
    pub base: String,
    shared: Arc<Shared>,
    calls: tokio::sync::Mutex<mpsc::UnboundedReceiver<Call>>,
    task: tokio::task::JoinHandle<()>,
}

impl Drop for FakeTwilio {
    fn drop(&mut self) {
        self.task.abort();
    }
}

impl FakeTwilio {
    pub async fn start() -> Self {
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let base = format!("http://{}", listener.local_addr().unwrap());
        let (new_calls, calls) = mpsc::unbounded_channel();
        let shared = Arc::new(Shared {
            base: base.clone(),
            signer: TwilioSignature::new(&AuthToken::new(AUTH_TOKEN)),
            http: reqwest::Client::builder()
                .timeout(Duration::from_secs(15))
                .build()
                .unwrap(),
            calls: Mutex::new(HashMap::new()),
            new_calls,
            hold_creates: watch::channel(false).0,
            ring_then_hold: Mutex::new(None),
            lists: Mutex::new(Vec::new()),
            recording: wav_bytes(),
            fetches: Mutex::new(Vec::new()),
            refused: Mutex::new(Vec::new()),
            second: Mutex::new(Duration::from_secs(1)),
            retry_gate: watch::channel(true).0,
            retries_asked: watch::channel(0).0,
        });
        let accounts = "/2010-04-01/Accounts/{account}";
        let app = axum::Router::new()
            .route(
                &format!("{accounts}/Calls.json"),
                axum::routing::post(create_call).get(list_calls),
            )
            .route(
                &format!("{accounts}/Calls/{{file}}"),
                axum::routing::post(update_call),
            )
            .route(
                &format!("{accounts}/Recordings/{{file}}"),
                axum::routing::get(recording),
            )
            .with_state(shared.clone());
        let task = tokio::spawn(async move {
            axum::serve(listener, app).await.unwrap();
        });
        Self {
            base,
            shared,
            calls: tokio::sync::Mutex::new(calls),
            task,
        }
    }

    /// Holds callback retries back (`false`) or lets them go (`true`).
    pub fn let_retries_go(&self, go: bool) {
        self.shared.retry_gate.send_replace(go);
    }

    /// Waits until `n` callbacks were answered in a way their URL's
    /// connection overrides retry (bounded wait).
    pub async fn wait_retries_asked(&self, n: u32) {
        let mut asked = self.shared.retries_asked.subscribe();
        tokio::time::timeout(WAIT, asked.wait_for(|asked| *asked >= n))
            .await
            .expect("a callback to be retried")
            .unwrap();
    }

    /// The next call created (bounded wait).
    pub async fn next_call(&self) -> Call {
        let mut calls = self.calls.lock().await;
        tokio::time::timeout(WAIT, calls.recv())
            .await
            .expect("a call is created in time")
            .expect("the fake runs")
    }

    /// Holds (or releases) the answers to create requests: a held call is
    /// known to the fake but the carrier waits for its sid.
    pub fn hold_creates(&self, hold: bool) {
        self.shared.hold_creates.send_replace(hold);
    }

    /// Makes every create ring first (signed `initiated` and `ringing`
    /// callbacks, sent while the create is unanswered) and then answer
    /// `hold` later, as a slow Twilio does.
    pub fn ring_then_hold_creates(&self, hold: Duration) {
        *self.shared.ring_then_hold.lock().unwrap() = Some(hold);
    }

    /// How many calls were created to `number`.
    pub fn creates_to(&self, number: &str) -> usize {
        self.shared
            .calls
            .lock()
            .unwrap()
            .values()
            .filter(|call| call.param("To") == Some(number))
            .count()
    }

    /// The query of each call list request so far.
    #[allow(dead_code)]
    pub fn lists(&self) -> Vec<String> {
        self.shared.lists.lock().unwrap().clone()
    }

    /// Makes Twilio time run faster: `second` of real time per second of
    /// `TimeLimit`.
    pub fn set_second(&self, second: Duration) {
        *self.shared.second.lock().unwrap() = second;
    }

    /// The WAV bytes every recording serves.
    pub fn recording_bytes(&self) -> &[u8] {
        &self.shared.recording
    }

    /// Recording downloads so far.
    pub fn fetches(&self) -> Vec<Fetch> {
        self.shared.fetches.lock().unwrap().clone()
    }

    /// REST requests refused for bad credentials.
    pub fn refused(&self) -> Vec<String> {
        self.shared.refused.lock().unwrap().clone()
    }
}

/// A small valid WAV file: 8 kHz mono 16-bit, a tenth of a second.
fn wav_bytes() -> Vec<u8> {
    let samples: Vec<u8> = (0..800u32)
        .flat_map(|i| (((i * 37) % 2000) as i16 - 1000).to_le_bytes())
        .collect();
    let mut wav = Vec::new();
    wav.extend_from_slice(b"RIFF");
    wav.extend_from_slice(&(36 + samples.len() as u32).to_le_bytes());
    wav.extend_from_slice(b"WAVEfmt ");
    wav.extend_from_slice(&16u32.to_le_bytes());
    wav.extend_from_slice(&1u16.to_le_bytes()); // PCM
    wav.extend_from_slice(&1u16.to_le_bytes()); // mono
    wav.extend_from_slice(&8000u32.to_le_bytes());
    wav.extend_from_slice(&16000u32.to_le_bytes());
    wav.extend_from_slice(&2u16.to_le_bytes());
    wav.extend_from_slice(&16u16.to_le_bytes());
    wav.extend_from_slice(b"data");
    wav.extend_from_slice(&(samples.len() as u32).to_le_bytes());
    wav.extend_from_slice(&samples);
    wav
}

fn authorized(headers: &HeaderMap) -> bool {
    let expected = format!(
        "Basic {}",
        base64::engine::general_purpose::STANDARD.encode(format!("{ACCOUNT_SID}:{AUTH_TOKEN}"))
    );
    headers
        .get("authorization")
        .and_then(|v| v.to_str().ok())
        .is_some_and(|v| v == expected)
}

fn json_response(status: StatusCode, body: Value) -> Response<Body> {
    Response::builder()
        .status(status)
        .header("content-type", "application/json")
        .body(Body::from(body.to_string()))
        .unwrap()
}

fn twilio_error(status: StatusCode, code: u32, message: &str) -> Response<Body> {
    json_response(
        status,
        json!({"code": code, "message": message,
               "more_info": format!("https://www.twilio.com/docs/errors/{code}"),
               "status": status.as_u16()}),
    )
}

/// `None` when the request may go on; otherwise the refusal.
fn check_credentials(
    shared: &Shared,
    account: &str,
    headers: &HeaderMap,
    what: &str,
) -> Option<Response<Body>> {
    if account == ACCOUNT_SID && authorized(headers) {
        return None;
    }
    shared.refused.lock().unwrap().push(what.to_owned());
    Some(twilio_error(
        StatusCode::UNAUTHORIZED,
        20003,
        "Authenticate",
    ))
}

async fn create_call(
    State(shared): State<Arc<Shared>>,
    Path(account): Path<String>,
    headers: HeaderMap,
    body: Bytes,
) -> Response<Body> {
    if let Some(refused) = check_credentials(&shared, &account, &headers, "create") {
        return refused;
    }
    let form = parse_form(&body);
    if field(&form, "To").is_none()
        || field(&form, "From").is_none()
        || field(&form, "Twiml").is_none()
    {
        return twilio_error(
            StatusCode::BAD_REQUEST,
            21201,
            "To, From and Twiml are required",
        );
    }
    let sid = format!("CA{}", hex32());
    let call = Call(Arc::new(CallInner {
        shared: shared.clone(),
        sid: sid.clone(),
        form: form.clone(),
        created: chrono::Utc::now(),
        state: Mutex::new(CallState {
            duration: DEFAULT_DURATION,
            ..CallState::default()
        }),
    }));
    shared
        .calls
        .lock()
        .unwrap()
        .insert(sid.clone(), call.clone());
    let _ = shared.new_calls.send(call.clone());
    let ring_then_hold = *shared.ring_then_hold.lock().unwrap();
    if let Some(hold) = ring_then_hold {
        call.status("initiated").await;
        call.status("ringing").await;
        tokio::time::sleep(hold).await;
    }
    let mut hold = shared.hold_creates.subscribe();
    let _ = hold.wait_for(|held| !held).await;
    json_response(
        StatusCode::CREATED,
        json!({
            "sid": sid,
            "account_sid": ACCOUNT_SID,
            "to": field(&form, "To"),
            "from": field(&form, "From"),
            "status": "queued",
            "direction": "outbound-api",
            "api_version": "2010-04-01",
            "uri": format!("/2010-04-01/Accounts/{ACCOUNT_SID}/Calls/{sid}.json"),
        }),
    )
}

/// `GET …/Calls.json`: the calls matching `To` and `From`, newest first,
/// with their status as Twilio would list it.
async fn list_calls(
    State(shared): State<Arc<Shared>>,
    Path(account): Path<String>,
    axum::extract::RawQuery(query): axum::extract::RawQuery,
    headers: HeaderMap,
) -> Response<Body> {
    if let Some(refused) = check_credentials(&shared, &account, &headers, "list") {
        return refused;
    }
    let query = query.unwrap_or_default();
    shared.lists.lock().unwrap().push(query.clone());
    let params = parse_form(query.as_bytes());
    let mut calls: Vec<Call> = shared.calls.lock().unwrap().values().cloned().collect();
    calls.retain(|call| {
        ["To", "From"]
            .iter()
            .all(|key| field(&params, key).is_none_or(|value| call.param(key) == Some(value)))
    });
    calls.sort_by_key(|call| std::cmp::Reverse(call.0.created));
    let listed: Vec<Value> = calls
        .iter()
        .map(|call| {
            let state = call.state();
            let status = match (&state.ended, state.answered) {
                (Some(ended), _) => ended.clone(),
                (None, true) => "in-progress".to_owned(),
                (None, false) => "ringing".to_owned(),
            };
            json!({"sid": call.sid(), "account_sid": ACCOUNT_SID,
                   "to": call.param("To"), "from": call.param("From"), "status": status,
                   "date_created": call.0.created.to_rfc2822(), "direction": "outbound-api"})
        })
        .collect();
    json_response(
        StatusCode::OK,
        json!({"calls": listed, "page": 0, "page_size": 20, "start": 0, "end": listed.len(),
               "uri": format!("/2010-04-01/Accounts/{ACCOUNT_SID}/Calls.json?{query}"),
               "first_page_uri": format!("/2010-04-01/Accounts/{ACCOUNT_SID}/Calls.json?{query}"),
               "next_page_uri": null, "previous_page_uri": null}),
    )
}

async fn update_call(
    State(shared): State<Arc<Shared>>,
    Path((account, file)): Path<(String, String)>,
    headers: HeaderMap,
    body: Bytes,
) -> Response<Body> {
    if let Some(refused) = check_credentials(&shared, &account, &headers, "update") {
        return refused;
    }
    let not_found = || {
        twilio_error(
            StatusCode::NOT_FOUND,
            20404,
            "The requested resource was not found",
        )
    };
    let Some(sid) = file.strip_suffix(".json") else {
        return not_found();
    };
    let Some(call) = shared.calls.lock().unwrap().get(sid).cloned() else {
        return not_found();
    };
    let form = parse_form(&body);
    let (ended, answered) = {
        let mut state = call.state();
        state.updates.push(form.clone());
        (state.ended.is_some(), state.answered)
    };
    let answer = |status: StatusCode| call.state().update_answers.push(status.as_u16());
    if ended {
        answer(StatusCode::NOT_FOUND);
        return not_found();
    }
    let end = match (field(&form, "Status"), field(&form, "Twiml")) {
        // Canceling an answered call leaves it as it is.
        (Some("canceled"), _) if answered => None,
        (Some("canceled"), _) => Some(End::RestCanceled),
        (Some("completed"), _) => Some(End::RestCompleted),
        (Some(other), _) => {
            answer(StatusCode::BAD_REQUEST);
            return twilio_error(
                StatusCode::BAD_REQUEST,
                21218,
                &format!("Invalid Status {other}"),
            );
        }
        // The new TwiML replaces the relay, is spoken, and hangs up.
        (None, Some(twiml)) if answered && twiml.contains("<Hangup/>") => Some(End::Redirect),
        (None, Some(_)) => None,
        (None, None) => {
            answer(StatusCode::BAD_REQUEST);
            return twilio_error(StatusCode::BAD_REQUEST, 21201, "Nothing to update");
        }
    };
    answer(StatusCode::OK);
    if let Some(end) = end {
        let call = call.clone();
        // Twilio answers first and reports the end afterwards.
        tokio::spawn(async move { call.finish(end).await });
    }
    json_response(
        StatusCode::OK,
        json!({"sid": sid, "account_sid": ACCOUNT_SID,
               "status": if answered { "in-progress" } else { "ringing" }}),
    )
}

async fn recording(
    State(shared): State<Arc<Shared>>,
    Path((account, file)): Path<(String, String)>,
    headers: HeaderMap,
) -> Response<Body> {
    let ok = account == ACCOUNT_SID && authorized(&headers);
    shared.fetches.lock().unwrap().push(Fetch {
        path: format!("/2010-04-01/Accounts/{account}/Recordings/{file}"),
        authorized: ok,
    });
    if let Some(refused) = check_credentials(&shared, &account, &headers, "recording") {
        return refused;
    }
    let known = file.strip_suffix(".wav").is_some_and(|sid| {
        shared
            .calls
            .lock()
            .unwrap()
            .values()
            .any(|call| call.state().recording_sid.as_deref() == Some(sid))
    });
    if !known {
        return twilio_error(
            StatusCode::NOT_FOUND,
            20404,
            "The requested resource was not found",
        );
    }
    Response::builder()
        .status(StatusCode::OK)
        .header("content-type", "audio/x-wav")
        .body(Body::from(shared.recording.clone()))
        .unwrap()
}

/// How a call ends.
#[derive(Debug, Clone)]
pub enum End {
    /// The relay session sent `end` with this `handoffData`.
    Agent(String),
    /// The recipient hung up (the WebSocket closes with a close frame).
    RecipientHangUp,
    /// The line dropped: the WebSocket closes without a close frame.
    Dropped,
    /// `TimeLimit` passed.
    TimeLimit,
    /// `Status=completed` through the REST API.
    RestCompleted,
    /// `Status=canceled` through the REST API (before an answer).
    RestCanceled,
    /// New TwiML (`<Say>…<Hangup/>`) replaced the relay.
    Redirect,
}

#[derive(Default)]
struct CallState {
    answered: bool,
    /// The last status reported (`completed`, `canceled`, …) once ended.
    ended: Option<String>,
    /// Every callback the end sends has been sent.
    finished: bool,
    sequence: u32,
    /// The relay sockets opened (a refused second one included).
    relays: Vec<mpsc::UnboundedSender<WsCmd>>,
    route_to: Option<String>,
    duration: u64,
    duplicate: bool,
    updates: Vec<Form>,
    /// The HTTP status each update was answered with.
    update_answers: Vec<u16>,
    /// The end's callbacks wait while this is set.
    hold_end: bool,
    sent: Vec<Sent>,
    recording_sid: Option<String>,
    ends: Vec<End>,
}

struct CallInner {
    shared: Arc<Shared>,
    sid: String,
    form: Form,
    /// When Twilio created it (`date_created`).
    created: chrono::DateTime<chrono::Utc>,
    state: Mutex<CallState>,
}

/// One call the fake placed; cheap to clone.
#[derive(Clone)]
pub struct Call(Arc<CallInner>);

impl Call {
    fn state(&self) -> std::sync::MutexGuard<'_, CallState> {
        self.0.state.lock().unwrap()
    }

    pub fn sid(&self) -> &str {
        &self.0.sid
    }

    /// The create request's form.
    pub fn form(&self) -> &Form {
        &self.0.form
    }

    pub fn param(&self, key: &str) -> Option<&str> {
        field(&self.0.form, key)
    }

    /// Our call id, from the status callback URL.
    pub fn call_id(&self) -> String {
        let url = url::Url::parse(self.param("StatusCallback").unwrap()).unwrap();
        url.query_pairs()
            .find(|(k, _)| k == "callId")
            .map(|(_, v)| v.into_owned())
            .expect("the status callback names the call")
    }

    /// The TwiML the call runs when answered.
    pub fn twiml(&self) -> &str {
        self.param("Twiml").unwrap()
    }

    /// The talk time reported at the end.
    pub fn set_duration(&self, seconds: u64) {
        self.state().duration = seconds;
    }

    /// Every callback of the call's end is sent twice (Twilio retries).
    pub fn duplicate_callbacks(&self) {
        self.state().duplicate = true;
    }

    /// Sends every callback and opens the relay at `origin`
    /// (`http://host:port`) instead of the host the URLs name.
    #[cfg_attr(not(feature = "postgres"), allow(dead_code))]
    pub fn route_to(&self, origin: &str) {
        self.state().route_to = Some(origin.to_owned());
    }

    /// REST updates of the call (hang-ups, cancels, redirects).
    pub fn updates(&self) -> Vec<Form> {
        self.state().updates.clone()
    }

    /// The HTTP status each REST update was answered with, in order.
    pub fn update_answers(&self) -> Vec<u16> {
        self.state().update_answers.clone()
    }

    /// Holds back (or releases) the callbacks of the call's end: the line
    /// is cut, but Twilio has not reported it yet.
    pub fn hold_end(&self, hold: bool) {
        self.state().hold_end = hold;
    }

    /// Callbacks sent so far.
    pub fn sent(&self) -> Vec<Sent> {
        self.state().sent.clone()
    }

    /// How the call ended, once it did.
    pub fn ended(&self) -> Option<String> {
        self.state().ended.clone()
    }

    /// The ends requested (the first one ended the call).
    pub fn ends(&self) -> Vec<End> {
        self.state().ends.clone()
    }

    /// Waits until a REST update matches.
    pub async fn wait_update(&self, what: &str, matches: impl Fn(&Form) -> bool) -> Form {
        let mut found = None;
        wait_until(what, || {
            found = self.state().updates.iter().find(|f| matches(f)).cloned();
            found.is_some()
        })
        .await;
        found.unwrap()
    }

    /// Waits until every callback of the call's end was sent.
    pub async fn wait_finished(&self) {
        wait_until("the fake's end callbacks", || self.state().finished).await;
    }

    /// `url` with its origin replaced when the call is routed elsewhere.
    fn route(&self, url: &str) -> String {
        let Some(origin) = self.state().route_to.clone() else {
            return url.to_owned();
        };
        let mut routed = url::Url::parse(url).unwrap();
        let origin = url::Url::parse(&origin).unwrap();
        routed.set_host(origin.host_str()).unwrap();
        routed.set_port(origin.port()).unwrap();
        routed.to_string()
    }

    fn signature(&self, url: &str, params: &Form, sig: &Sig) -> Option<String> {
        let signer = &self.0.shared.signer;
        match sig {
            Sig::Valid => Some(signer.sign(url, params)),
            Sig::Missing => None,
            Sig::Garbage => Some("bm90IGEgc2lnbmF0dXJl".into()),
            Sig::WrongToken => {
                Some(TwilioSignature::new(&AuthToken::new("another-token")).sign(url, params))
            }
            Sig::OverParams(other) => Some(signer.sign(url, other)),
            Sig::OverUrl(other) => Some(signer.sign(other, params)),
        }
    }

    /// POSTs a form to one of our callback URLs, signed as `sig` says.
    async fn post(&self, kind: &'static str, url: &str, params: Form, sig: &Sig) -> Sent {
        let url = self.route(url);
        let signature = self.signature(&url, &params, sig);
        let body = url::form_urlencoded::Serializer::new(String::new())
            .extend_pairs(&params)
            .finish();
        let mut request = self
            .0
            .shared
            .http
            .post(&url)
            .header("content-type", "application/x-www-form-urlencoded")
            .header("user-agent", "TwilioProxy/1.1")
            .body(body);
        if let Some(signature) = signature {
            request = request.header("x-twilio-signature", signature);
        }
        // Twilio's connection overrides, from the URL's fragment (never
        // sent): `rc` retries of what `rp` names (`ct` a failed
        // connection, status 0 here; `rt` no answer in time, status 1;
        // `5xx` a server error). Without them: one retry of `ct`.
        let overrides: Vec<(String, String)> = url::Url::parse(&url)
            .ok()
            .and_then(|u| u.fragment().map(str::to_owned))
            .map(|f| {
                url::form_urlencoded::parse(f.as_bytes())
                    .into_owned()
                    .collect()
            })
            .unwrap_or_default();
        let value = |key: &str| {
            overrides
                .iter()
                .find(|(k, _)| k == key)
                .map(|(_, v)| v.clone())
        };
        let retries: u32 = value("rc").and_then(|n| n.parse().ok()).unwrap_or(1).min(5);
        let policy = value("rp").unwrap_or_else(|| "ct".into());
        let retried = |status: u16| {
            policy.split(',').any(|p| match p {
                "all" => status <= 1 || status >= 400,
                "ct" => status == 0,
                "rt" => status == 1,
                "5xx" => status >= 500,
                "4xx" => (400..500).contains(&status),
                _ => false,
            })
        };
        let mut tries = 0;
        let (status, body) = loop {
            let (status, body) = match request.try_clone().unwrap().send().await {
                Ok(response) => {
                    let status = response.status().as_u16();
                    (status, response.text().await.unwrap_or_default())
                }
                Err(error) if error.is_connect() => (0, error.to_string()),
                Err(error) => (1, error.to_string()),
            };
            if tries == retries || !retried(status) {
                break (status, body);
            }
            tries += 1;
            self.0.shared.retries_asked.send_modify(|n| *n += 1);
            let mut gate = self.0.shared.retry_gate.subscribe();
            let _ = tokio::time::timeout(WAIT, gate.wait_for(|go| *go)).await;
        };
        let sent = Sent {
            kind,
            url,
            params,
            status,
            body,
        };
        self.state().sent.push(sent.clone());
        sent
    }

    fn base_params(&self) -> Vec<(&'static str, String)> {
        vec![
            ("AccountSid", ACCOUNT_SID.to_owned()),
            ("ApiVersion", "2010-04-01".to_owned()),
            ("CallSid", self.0.sid.clone()),
            ("From", self.param("From").unwrap_or_default().to_owned()),
            ("To", self.param("To").unwrap_or_default().to_owned()),
            ("Direction", "outbound-api".to_owned()),
        ]
    }

    /// The status callback for `status`, as Twilio builds it; the caller
    /// adds `extra` (e.g. `CallDuration`).
    fn status_params(&self, status: &str, extra: &[(&str, String)]) -> Form {
        let sequence = {
            let mut state = self.state();
            let sequence = state.sequence;
            state.sequence += 1;
            sequence
        };
        let mut params = self.base_params();
        params.extend([
            ("CallStatus", status.to_owned()),
            ("CallbackSource", "call-progress-events".to_owned()),
            ("SequenceNumber", sequence.to_string()),
            ("Timestamp", "Tue, 04 Mar 2025 10:00:00 +0000".to_owned()),
        ]);
        let mut params = owned(&params);
        params.extend(owned(extra));
        params
    }

    /// Twilio connects the call, but its `in-progress` callback has not
    /// been sent (yet).
    pub fn answer_silently(&self) {
        let first = !std::mem::replace(&mut self.state().answered, true);
        if first {
            self.start_time_limit();
        }
    }

    /// Sends a signed status callback and returns our HTTP status. The
    /// call's state follows: `in-progress` answers it (and starts its time
    /// limit), a final status ends it. `completed` carries `CallDuration`.
    pub async fn status(&self, status: &str) -> u16 {
        let extra = if status == "completed" {
            self.duration_params(self.state().duration)
        } else {
            Vec::new()
        };
        self.status_with(status, &extra, Sig::Valid).await
    }

    /// A status callback with `extra` params, signed as `sig` says. Only a
    /// validly signed callback moves the fake's own state.
    pub async fn status_with(&self, status: &str, extra: &[(&str, String)], sig: Sig) -> u16 {
        let params = self.status_params(status, extra);
        let valid = matches!(sig, Sig::Valid);
        if valid {
            self.note_status(status);
        }
        let url = self.param("StatusCallback").unwrap().to_owned();
        self.post("status", &url, params, &sig).await.status
    }

    /// The form a status callback would carry (to sign something else over).
    pub fn status_form(&self, status: &str) -> Form {
        self.status_params(status, &[])
    }

    fn duration_params(&self, seconds: u64) -> Vec<(&'static str, String)> {
        vec![
            ("CallDuration", seconds.to_string()),
            ("Duration", seconds.div_ceil(60).to_string()),
        ]
    }

    fn note_status(&self, status: &str) {
        let mut state = self.state();
        match status {
            "in-progress" | "answered" if !state.answered => {
                state.answered = true;
                drop(state);
                self.start_time_limit();
            }
            "completed" | "busy" | "no-answer" | "failed" | "canceled" if state.ended.is_none() => {
                state.ended = Some(status.to_owned());
            }
            _ => {}
        }
    }

    /// Ends the answered call when its `TimeLimit` passes.
    fn start_time_limit(&self) {
        let Some(limit) = self.param("TimeLimit").and_then(|t| t.parse::<u32>().ok()) else {
            return;
        };
        let second = *self.0.shared.second.lock().unwrap();
        let call = self.clone();
        tokio::spawn(async move {
            tokio::time::sleep(second * limit).await;
            call.finish(End::TimeLimit).await;
        });
    }

    /// Sends the answering-machine verdict to `AsyncAmdStatusCallback`.
    pub async fn machine(&self, answered_by: &str) -> u16 {
        let url = self
            .param("AsyncAmdStatusCallback")
            .expect("machine detection was asked for")
            .to_owned();
        let mut params = owned(&self.base_params());
        params.extend(owned(&[
            ("AnsweredBy", answered_by.to_owned()),
            ("MachineDetectionDuration", "2150".to_owned()),
        ]));
        self.post("machine", &url, params, &Sig::Valid).await.status
    }

    /// The recipient hangs up: the relay closes (with a close frame, or
    /// dropped without one), then the call's end is reported.
    pub async fn recipient_hangs_up(&self, drop_socket: bool) {
        self.finish(if drop_socket {
            End::Dropped
        } else {
            End::RecipientHangUp
        })
        .await;
    }

    /// Opens the relay WebSocket with a valid signature and sends `setup`.
    pub async fn open_relay(&self) -> Relay {
        match self.try_open_relay(Sig::Valid).await {
            Ok(relay) => relay,
            Err(status) => panic!("the relay handshake was refused with {status}"),
        }
    }

    /// Answers the call (`in-progress`) and opens its relay.
    pub async fn answer(&self) -> Relay {
        assert_eq!(self.status("in-progress").await, 204, "in-progress");
        self.open_relay().await
    }

    /// Opens the relay WebSocket, the handshake signed as `sig` says (over
    /// the TwiML's exact `url`, no params); `Err(status)` when refused.
    pub async fn try_open_relay(&self, sig: Sig) -> Result<Relay, u16> {
        let relay_url = twiml_attribute(self.twiml(), "ConversationRelay", "url")
            .expect("the TwiML names the relay URL");
        let url = self.route(&relay_url);
        let mut headers = Vec::new();
        if let Some(signature) = self.signature(&url, &Form::new(), &sig) {
            headers.push(("X-Twilio-Signature", signature));
        }
        let connection = ws::connect(&url, &headers).await?;
        let (cmds, commands) = mpsc::unbounded_channel();
        let (events_tx, events) = mpsc::unbounded_channel();
        self.state().relays.push(cmds.clone());
        tokio::spawn(run_relay(connection, commands, events_tx, self.clone()));
        let relay = Relay {
            cmds,
            events,
            frames: Vec::new(),
        };
        let parameters: serde_json::Map<String, Value> = twiml_parameters(self.twiml())
            .into_iter()
            .map(|(k, v)| (k, Value::String(v)))
            .collect();
        relay.send(json!({
            "type": "setup",
            "sessionId": format!("VX{}", hex32()),
            "accountSid": ACCOUNT_SID,
            "callSid": self.0.sid,
            "parentCallSid": "",
            "from": self.param("From"),
            "to": self.param("To"),
            "forwardedFrom": "",
            "callerName": "",
            "direction": "outbound-api",
            "callType": "PSTN",
            "callStatus": "IN-PROGRESS",
            "customParameters": parameters,
        }));
        Ok(relay)
    }

    /// Ends the call as Twilio would (once: later ends change nothing):
    /// the relay closes, then the `<Connect action>` (after `end`), the
    /// final status callback and the recording are reported.
    pub async fn finish(&self, end: End) {
        let (relays, answered, duplicate, duration) = {
            let mut state = self.state();
            state.ends.push(end.clone());
            if state.ended.is_some() {
                return;
            }
            let duration = match end {
                End::TimeLimit => self
                    .param("TimeLimit")
                    .and_then(|t| t.parse().ok())
                    .unwrap_or(state.duration),
                _ => state.duration,
            };
            state.ended = Some(
                if state.answered {
                    "completed"
                } else {
                    "canceled"
                }
                .to_owned(),
            );
            (
                std::mem::take(&mut state.relays),
                state.answered,
                state.duplicate,
                duration,
            )
        };
        let times = if duplicate { 2 } else { 1 };
        for relay in relays {
            let (done, closed) = oneshot::channel();
            let command = if matches!(end, End::Dropped) {
                WsCmd::Drop(done)
            } else {
                WsCmd::Close(done)
            };
            if relay.send(command).is_ok() {
                let _ = tokio::time::timeout(Duration::from_secs(5), closed).await;
            }
        }
        wait_until("the end's callbacks to be released", || {
            !self.state().hold_end
        })
        .await;
        if !answered {
            for _ in 0..times {
                let params = self.status_params("canceled", &[]);
                let url = self.param("StatusCallback").unwrap().to_owned();
                self.post("status", &url, params, &Sig::Valid).await;
            }
            self.state().finished = true;
            return;
        }
        if let End::Agent(handoff) = &end {
            let action = twiml_attribute(self.twiml(), "Connect", "action")
                .expect("the TwiML has a <Connect action>");
            for _ in 0..times {
                let mut params = owned(&self.base_params());
                params.extend(owned(&[
                    ("CallStatus", "in-progress".to_owned()),
                    ("SessionId", format!("VX{}", self.0.sid[2..].to_owned())),
                    ("SessionStatus", "ended".to_owned()),
                    ("SessionDuration", duration.to_string()),
                    ("HandoffData", handoff.clone()),
                ]));
                self.post("action", &action, params, &Sig::Valid).await;
            }
        }
        for _ in 0..times {
            let params = self.status_params("completed", &self.duration_params(duration));
            let url = self.param("StatusCallback").unwrap().to_owned();
            self.post("status", &url, params, &Sig::Valid).await;
        }
        if self.param("Record") == Some("true") {
            let recording_sid = format!("RE{}", hex32());
            self.state().recording_sid = Some(recording_sid.clone());
            let recording_url = format!(
                "{}/2010-04-01/Accounts/{ACCOUNT_SID}/Recordings/{recording_sid}",
                self.0.shared.base
            );
            let url = self
                .param("RecordingStatusCallback")
                .expect("a recording callback")
                .to_owned();
            for _ in 0..times {
                let mut params = owned(&[
                    ("AccountSid", ACCOUNT_SID.to_owned()),
                    ("CallSid", self.0.sid.clone()),
                    ("RecordingSid", recording_sid.clone()),
                    ("RecordingUrl", recording_url.clone()),
                    ("RecordingStatus", "completed".to_owned()),
                    ("RecordingDuration", duration.to_string()),
                    ("RecordingChannels", "1".to_owned()),
                    ("RecordingSource", "OutboundAPI".to_owned()),
                    (
                        "RecordingStartTime",
                        "Tue, 04 Mar 2025 10:00:01 +0000".to_owned(),
                    ),
                ]);
                params.push(("ErrorCode".to_owned(), "0".to_owned()));
                self.post("recording", &url, params, &Sig::Valid).await;
            }
        }
        self.state().finished = true;
    }
}

/// What the relay's socket task is asked to do.
enum WsCmd {
    Send(String),
    /// Close with a close frame; told once the server's close arrived.
    Close(oneshot::Sender<()>),
    /// Drop the connection without a close frame.
    Drop(oneshot::Sender<()>),
}

/// What happened on the relay's socket.
#[derive(Debug)]
pub enum WsEvent {
    Frame(Value),
    /// The socket closed; `by_server` when our service closed it first.
    Closed {
        by_server: bool,
    },
}

/// The relay session, as the recipient's side (Twilio) plays it.
pub struct Relay {
    cmds: mpsc::UnboundedSender<WsCmd>,
    events: mpsc::UnboundedReceiver<WsEvent>,
    /// Every frame received so far.
    pub frames: Vec<Value>,
}

impl Relay {
    pub fn send(&self, frame: Value) {
        let _ = self.cmds.send(WsCmd::Send(frame.to_string()));
    }

    /// A complete utterance of the recipient.
    pub fn prompt(&self, words: &str) {
        self.send(json!({"type": "prompt", "voicePrompt": words, "lang": "en-US", "last": true}));
    }

    /// A partial transcription (`last: false`), which the agent must not act on.
    pub fn partial_prompt(&self, words: &str) {
        self.send(json!({"type": "prompt", "voicePrompt": words, "lang": "en-US", "last": false}));
    }

    /// The recipient speaks over the agent once `heard` has been played.
    pub fn interrupt(&self, heard: &str) {
        self.send(
            json!({"type": "interrupt", "utteranceUntilInterrupt": heard,
                         "durationUntilInterruptMs": "1530"}),
        );
    }

    pub fn dtmf(&self, digit: &str) {
        self.send(json!({"type": "dtmf", "digit": digit}));
    }

    /// The next event (bounded wait).
    pub async fn next_event(&mut self) -> WsEvent {
        let event = tokio::time::timeout(WAIT, self.events.recv())
            .await
            .expect("the relay session goes on in time")
            .unwrap_or(WsEvent::Closed { by_server: false });
        if let WsEvent::Frame(frame) = &event {
            self.frames.push(frame.clone());
        }
        event
    }

    /// One whole agent turn: its `text` tokens up to the one with `last: true`.
    pub async fn agent_turn(&mut self) -> String {
        let mut said = String::new();
        loop {
            match self.next_event().await {
                WsEvent::Frame(frame) if frame["type"] == "text" => {
                    said.push_str(frame["token"].as_str().unwrap_or_default());
                    if frame["last"] == true {
                        return said;
                    }
                }
                other => panic!("expected the agent's words, got {other:?} after {said:?}"),
            }
        }
    }

    /// The `end` frame's `handoffData` (the fake then ends the call).
    pub async fn expect_end(&mut self) -> String {
        match self.next_event().await {
            WsEvent::Frame(frame) if frame["type"] == "end" => {
                frame["handoffData"].as_str().unwrap_or_default().to_owned()
            }
            other => panic!("expected the end frame, got {other:?}"),
        }
    }

    /// Waits for the socket to close, skipping frames.
    pub async fn closed(&mut self) -> bool {
        loop {
            if let WsEvent::Closed { by_server } = self.next_event().await {
                return by_server;
            }
        }
    }
}

/// Twilio's side of one relay socket: our frames out, the service's frames
/// in (an `end` frame ends the call as Twilio does).
async fn run_relay(
    connection: ws::Connection,
    mut commands: mpsc::UnboundedReceiver<WsCmd>,
    events: mpsc::UnboundedSender<WsEvent>,
    call: Call,
) {
    let ws::Connection {
        mut reader,
        mut writer,
    } = connection;
    let (incoming_tx, mut incoming) = mpsc::unbounded_channel();
    let read_task = tokio::spawn(async move {
        loop {
            let message = reader.next().await;
            let last = matches!(message, ws::Incoming::Close | ws::Incoming::Eof);
            if incoming_tx.send(message).is_err() || last {
                return;
            }
        }
    });
    let mut closing: Option<oneshot::Sender<()>> = None;
    let mut commands_open = true;
    let close_wait = tokio::time::sleep(Duration::from_secs(3600));
    tokio::pin!(close_wait);
    loop {
        tokio::select! {
            message = incoming.recv() => match message {
                Some(ws::Incoming::Text(text)) => {
                    let frame: Value = serde_json::from_str(&text).unwrap_or(Value::String(text));
                    if frame["type"] == "end" {
                        let handoff = frame["handoffData"].as_str().unwrap_or_default().to_owned();
                        let call = call.clone();
                        tokio::spawn(async move { call.finish(End::Agent(handoff)).await });
                    }
                    let _ = events.send(WsEvent::Frame(frame));
                }
                Some(ws::Incoming::Ping(payload)) => {
                    let _ = writer.pong(&payload).await;
                }
                Some(ws::Incoming::Close) => {
                    if closing.is_none() {
                        let _ = writer.close().await;
                    }
                    break;
                }
                Some(ws::Incoming::Eof) | None => break,
            },
            command = commands.recv(), if commands_open => match command {
                Some(WsCmd::Send(text)) => {
                    let _ = writer.text(&text).await;
                }
                Some(WsCmd::Close(done)) => {
                    let _ = writer.close().await;
                    closing = Some(done);
                    close_wait.as_mut().reset(tokio::time::Instant::now() + Duration::from_secs(3));
                }
                Some(WsCmd::Drop(done)) => {
                    read_task.abort();
                    drop(writer);
                    let _ = done.send(());
                    let _ = events.send(WsEvent::Closed { by_server: false });
                    return;
                }
                None => commands_open = false,
            },
            () = &mut close_wait, if closing.is_some() => break,
        }
    }
    read_task.abort();
    let _ = events.send(WsEvent::Closed {
        by_server: closing.is_none(),
    });
    if let Some(done) = closing {
        let _ = done.send(());
    }
}

/// An attribute of the first `<element …>` of a TwiML document, unescaped.
pub fn twiml_attribute(xml: &str, element: &str, name: &str) -> Option<String> {
    let start = xml.find(&format!("<{element} "))?;
    let tag = &xml[start..start + xml[start..].find('>')?];
    attribute(tag, name)
}

fn attribute(tag: &str, name: &str) -> Option<String> {
    let needle = format!(" {name}=\"");
    let from = tag.find(&needle)? + needle.len();
    let to = from + tag[from..].find('"')?;
    Some(unescape(&tag[from..to]))
}

/// The `<Parameter name value/>`s of a TwiML document.
pub fn twiml_parameters(xml: &str) -> Vec<(String, String)> {
    xml.match_indices("<Parameter ")
        .filter_map(|(start, _)| {
            let tag = &xml[start..start + xml[start..].find("/>")?];
            Some((attribute(tag, "name")?, attribute(tag, "value")?))
        })
        .collect()
}

/// XML's predefined entities and the character references TwiML uses.
pub fn unescape(text: &str) -> String {
    text.replace("&quot;", "\"")
        .replace("&apos;", "'")
        .replace("&lt;", "<")
        .replace("&gt;", ">")
        .replace("&#9;", "\t")
        .replace("&#10;", "\n")
        .replace("&#13;", "\r")
        .replace("&amp;", "&")
}
