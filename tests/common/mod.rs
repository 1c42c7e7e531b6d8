//! Shared set-up for the integration tests: a service on the embedded
//! defaults with fast simulated calls, and a real webhook receiver on a
//! loopback socket.
#![allow(dead_code, unreachable_pub)]

pub mod process;

use std::sync::{Arc, Mutex};
use std::time::Duration;

use agentcall::guardrails::{GuardrailConfig, PrefixSet};
use agentcall::webhook::DeliveryConfig;
use agentcall::{
    Account, AgentCall, AgentCallBuilder, Api, ApiKey, CallRecord, Guardrails, SimulatedCarrier,
    SimulationConfig, StaticDirectory,
};
use bytes::Bytes;
use http::{Request, Response, StatusCode};
use serde_json::Value;
use tower::ServiceExt;

pub const KEY_A1: &str = "key_a1";
pub const KEY_A2: &str = "key_a2";
pub const KEY_B: &str = "key_b";
pub const SECRET_A: &str = "whsec_a";
pub const NUMBER_A: &str = "+14155550100";
pub const NUMBER_B: &str = "+442071838750";

pub fn fast_simulation() -> SimulationConfig {
    SimulationConfig {
        ring: Duration::from_millis(20),
        talk: Duration::from_millis(60),
        ..Default::default()
    }
}

pub fn account_a() -> Account {
    let mut account = Account::new("acct_a".parse().unwrap(), SECRET_A.into());
    account.numbers = vec![NUMBER_A.into(), "+14155550199".into()];
    account.default_caller_id = Some(NUMBER_A.into());
    account.calls_per_minute = 1_000;
    account.minute_cap = 100_000;
    account
}

pub fn account_b() -> Account {
    let mut account = Account::new("acct_b".parse().unwrap(), "whsec_b".into());
    account.numbers = vec![NUMBER_B.into()];
    account.default_caller_id = Some(NUMBER_B.into());
    account.calls_per_minute = 1_000;
    account.minute_cap = 100_000;
    account
}

pub fn directory_with(a: Account, b: Account) -> StaticDirectory {
    StaticDirectory::new()
        .with_account(a, [ApiKey::new(KEY_A1), ApiKey::new(KEY_A2)])
        .with_account(b, [ApiKey::new(KEY_B)])
}

pub fn guardrail_config() -> GuardrailConfig {
    let mut irsf = PrefixSet::shipped_irsf();
    irsf.insert("+4470123").unwrap();
    GuardrailConfig {
        allow_insecure_loopback_webhooks: true,
        irsf_prefixes: irsf,
        ..GuardrailConfig::default()
    }
}

/// Webhooks retried quickly so tests run in milliseconds.
pub fn fast_delivery() -> DeliveryConfig {
    DeliveryConfig {
        schedule: vec![
            Duration::ZERO,
            Duration::from_millis(50),
            Duration::from_millis(100),
            Duration::from_millis(200),
            Duration::from_millis(300),
        ],
        timeout: Duration::from_millis(500),
        ..DeliveryConfig::default()
    }
}

pub fn builder() -> AgentCallBuilder {
    AgentCall::builder()
        .directory(Arc::new(directory_with(account_a(), account_b())))
        .carrier(Arc::new(SimulatedCarrier::new(fast_simulation())))
        .extractor(Arc::new(agentcall_rules::RulesExtractor::new()))
        .guardrails(Guardrails::new(guardrail_config()))
        .delivery(fast_delivery())
        // The tests step waiting calls with `recover()` on a manual clock;
        // `tests/scheduling.rs` checks the timers on their own.
        .on_time_starts(false)
}

pub fn service() -> AgentCall {
    builder().build().unwrap()
}

/// Sends one request through the tower service, returning status, headers and JSON (or raw) body.
pub async fn send(api: &Api, request: Request<String>) -> (StatusCode, http::HeaderMap, Bytes) {
    let response: Response<_> = api.clone().oneshot(request).await.unwrap();
    let (parts, body) = response.into_parts();
    let bytes = http_body_util::BodyExt::collect(body)
        .await
        .unwrap()
        .to_bytes();
    (parts.status, parts.headers, bytes)
}

pub fn json(bytes: &[u8]) -> Value {
    serde_json::from_slice(bytes)
        .unwrap_or_else(|_| panic!("not JSON: {:?}", String::from_utf8_lossy(bytes)))
}

pub fn post(key: Option<&str>, body: impl Into<String>) -> Request<String> {
    let mut builder = Request::post("/v1/agent/calls").header("content-type", "application/json");
    if let Some(key) = key {
        builder = builder.header("authorization", format!("Bearer {key}"));
    }
    builder.body(body.into()).unwrap()
}

pub fn get(key: Option<&str>, path: &str) -> Request<String> {
    let mut builder = Request::get(path);
    if let Some(key) = key {
        builder = builder.header("authorization", format!("Bearer {key}"));
    }
    builder.body(String::new()).unwrap()
}

/// Places a call and returns its id, asserting acceptance.
pub async fn place(api: &Api, key: &str, body: Value) -> String {
    let (status, _, bytes) = send(api, post(Some(key), body.to_string())).await;
    assert_eq!(
        status,
        StatusCode::CREATED,
        "{}",
        String::from_utf8_lossy(&bytes)
    );
    json(&bytes)["callId"].as_str().unwrap().to_owned()
}

/// Polls until the call is terminal (bounded: fails after 10 s).
pub async fn wait_terminal(api: &Api, key: &str, id: &str) -> CallRecord {
    for _ in 0..1_000 {
        let (status, _, bytes) = send(api, get(Some(key), &format!("/v1/agent/calls/{id}"))).await;
        assert_eq!(status, StatusCode::OK);
        let record: CallRecord = serde_json::from_slice(&bytes).unwrap();
        if record.status.is_terminal() {
            return record;
        }
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
    panic!("call {id} did not end");
}

/// A webhook endpoint on 127.0.0.1:0 that accepts TCP connections and never
/// reads or answers: every attempt at it runs into the attempt timeout.
pub struct BlackHole {
    pub url: String,
    accepted: Arc<std::sync::atomic::AtomicUsize>,
    task: tokio::task::JoinHandle<()>,
}

impl Drop for BlackHole {
    fn drop(&mut self) {
        self.task.abort();
    }
}

impl BlackHole {
    pub async fn start() -> Self {
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let url = format!("http://{}/hooks", listener.local_addr().unwrap());
        let accepted = Arc::new(std::sync::atomic::AtomicUsize::new(0));
        let count = Arc::clone(&accepted);
        let task = tokio::spawn(async move {
            // Held open, never read, until the task is aborted.
            let mut held = Vec::new();
            while let Ok((socket, _)) = listener.accept().await {
                count.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
                held.push(socket);
            }
        });
        Self {
            url,
            accepted,
            task,
        }
    }

    /// Connections accepted so far.
    pub fn accepted(&self) -> usize {
        self.accepted.load(std::sync::atomic::Ordering::SeqCst)
    }
}

/// One request a receiver got.
#[derive(Debug, Clone)]
pub struct Received {
    pub signature: String,
    pub body: Bytes,
}

impl Received {
    pub fn json(&self) -> Value {
        json(&self.body)
    }
}

/// How the receiver answers the n-th request (0-based) it gets.
pub type Behaviour = Arc<dyn Fn(usize, &Value) -> Answer + Send + Sync>;

/// What the receiver does with one request.
#[derive(Debug, Clone, Copy)]
pub enum Answer {
    Status(u16),
    /// A status with `Retry-After: <seconds>`.
    RetryAfter(u16, u64),
    Redirect,
    Hang(Duration),
}

/// A webhook receiver on 127.0.0.1:0 that records every request.
pub struct Receiver {
    pub url: String,
    pub received: Arc<Mutex<Vec<Received>>>,
    task: tokio::task::JoinHandle<()>,
}

impl Drop for Receiver {
    fn drop(&mut self) {
        self.task.abort();
    }
}

impl Receiver {
    pub async fn start() -> Self {
        Self::with(Arc::new(|_, _| Answer::Status(204))).await
    }

    pub async fn with(behaviour: Behaviour) -> Self {
        Self::start_on("127.0.0.1:0".parse().unwrap(), behaviour).await
    }

    /// A receiver on a given address (e.g. one that refused connections until now).
    pub async fn start_on(address: std::net::SocketAddr, behaviour: Behaviour) -> Self {
        let received = Arc::new(Mutex::new(Vec::new()));
        let store = received.clone();
        let counter = Arc::new(Mutex::new(0usize));
        let app = axum::Router::new().fallback(move |headers: http::HeaderMap, body: Bytes| {
            let store = store.clone();
            let behaviour = behaviour.clone();
            let counter = counter.clone();
            async move {
                let signature = headers
                    .get("x-svc-signature")
                    .and_then(|v| v.to_str().ok())
                    .unwrap_or_default()
                    .to_owned();
                let n = {
                    let mut c = counter.lock().unwrap();
                    *c += 1;
                    *c - 1
                };
                let value: Value = serde_json::from_slice(&body).unwrap_or(Value::Null);
                store.lock().unwrap().push(Received { signature, body });
                match behaviour(n, &value) {
                    Answer::Status(code) => Response::builder()
                        .status(code)
                        .body(axum::body::Body::empty())
                        .unwrap(),
                    Answer::RetryAfter(code, seconds) => Response::builder()
                        .status(code)
                        .header("retry-after", seconds.to_string())
                        .body(axum::body::Body::empty())
                        .unwrap(),
                    Answer::Redirect => Response::builder()
                        .status(302)
                        .header("location", "/elsewhere")
                        .body(axum::body::Body::empty())
                        .unwrap(),
                    Answer::Hang(d) => {
                        tokio::time::sleep(d).await;
                        Response::builder()
                            .status(204)
                            .body(axum::body::Body::empty())
                            .unwrap()
                    }
                }
            }
        });
        let listener = tokio::net::TcpListener::bind(address).await.unwrap();
        let url = format!("http://{}/hooks", listener.local_addr().unwrap());
        let task = tokio::spawn(async move {
            axum::serve(listener, app).await.unwrap();
        });
        Self {
            url,
            received,
            task,
        }
    }

    pub fn requests(&self) -> Vec<Received> {
        self.received.lock().unwrap().clone()
    }

    /// Requests about one call.
    pub fn for_call(&self, call_id: &str) -> Vec<Received> {
        self.requests()
            .into_iter()
            .filter(|r| r.json()["callId"] == call_id)
            .collect()
    }

    /// Waits until `predicate` holds over the received requests (bounded: 10 s).
    pub async fn wait_for(&self, predicate: impl Fn(&[Received]) -> bool) {
        for _ in 0..1_000 {
            if predicate(&self.requests()) {
                return;
            }
            tokio::time::sleep(Duration::from_millis(10)).await;
        }
        panic!(
            "receiver condition not met; got {:#?}",
            self.requests()
                .iter()
                .map(Received::json)
                .collect::<Vec<_>>()
        );
    }
}

/// Reads one HTTP/1.1 request from a raw socket and returns its JSON body
/// (the scripted model servers speak HTTP by hand, to control exactly how
/// their event streams are cut and paused).
pub async fn read_json_request(socket: &mut tokio::net::TcpStream) -> Option<Value> {
    let mut buffer = Vec::new();
    let mut chunk = [0u8; 4096];
    let (head_end, length) = loop {
        let n = tokio::io::AsyncReadExt::read(socket, &mut chunk)
            .await
            .ok()?;
        if n == 0 {
            return None;
        }
        buffer.extend_from_slice(&chunk[..n]);
        if let Some(end) = buffer.windows(4).position(|w| w == b"\r\n\r\n") {
            let head = String::from_utf8_lossy(&buffer[..end]).to_lowercase();
            let length = head
                .lines()
                .find_map(|l| l.strip_prefix("content-length:"))
                .and_then(|v| v.trim().parse::<usize>().ok())
                .unwrap_or(0);
            break (end + 4, length);
        }
    };
    while buffer.len() < head_end + length {
        let n = tokio::io::AsyncReadExt::read(socket, &mut chunk)
            .await
            .ok()?;
        if n == 0 {
            return None;
        }
        buffer.extend_from_slice(&chunk[..n]);
    }
    serde_json::from_slice(&buffer[head_end..head_end + length]).ok()
}
