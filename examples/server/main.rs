//! The whole service on axum over the embedded defaults.
//!
//! ```text
//! cargo run --example server                      # demo account on 127.0.0.1:8080
//! cargo run --example server -- --config FILE     # a JSON deployment file
//! ```
//!
//! Once ready it prints exactly one line, `listening on http://HOST:PORT`, on
//! stdout, and it stops cleanly on SIGINT or SIGTERM.

mod carrier;

use std::io::Write;
use std::net::SocketAddr;
use std::sync::Arc;
use std::time::Duration;

use agentcall::agent::{Agent, AgentLimits, VoicemailPolicy};
use agentcall::guardrails::{GuardrailConfig, PrefixSet, is_strict_e164};
use agentcall::store::InstanceId;
use agentcall::webhook::DeliveryConfig;
use agentcall::{
    Account, AgentCall, AgentCallBuilder, Api, ApiKey, Guardrails, RecoveryReport,
    SimulationConfig, StaticDirectory,
};
use serde::Deserialize;

/// The deployment file. Keys are camelCase; a missing optional key takes its
/// default; an unknown key is an error (it is usually a typo). It holds
/// API keys, webhook secrets and perhaps a database password, so it has no `Debug`.
#[derive(Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
struct Config {
    #[serde(default = "default_listen")]
    listen: String,
    accounts: Vec<AccountConfig>,
    #[serde(default)]
    allow_insecure_loopback_webhooks: bool,
    #[serde(default)]
    simulation: SimulationFile,
    /// Delay before each webhook attempt, in ms (the documented schedule when absent).
    #[serde(default)]
    webhook_retry_schedule_ms: Option<Vec<u64>>,
    /// Per-attempt webhook timeout, in ms (15 000 when absent).
    #[serde(default)]
    webhook_timeout_ms: Option<u64>,
    /// Extra IRSF prefixes to block, on top of the shipped list.
    #[serde(default)]
    irsf_prefixes: Vec<String>,
    /// Narrower destination allowlist (region ids).
    #[serde(default)]
    allowed_regions: Option<Vec<String>>,
    /// Base of recording URLs (defaults to the listening address).
    #[serde(default)]
    base_url: Option<String>,
    /// `memory` (default), `sqlite://PATH` or `postgres://…`.
    #[serde(default = "default_store")]
    store: String,
    /// How long the in-memory store keeps ended calls and recordings.
    #[serde(default)]
    memory_retention: RetentionFile,
    /// How long a request holds its `Idempotency-Key` between renewals, in
    /// ms (60 000 when absent).
    #[serde(default = "default_idempotency_lease_ms")]
    idempotency_lease_ms: u64,
    /// How long this instance holds each of its running calls between
    /// renewals, in ms (30 000 when absent); another instance on the same
    /// database takes a dead instance's calls over once it lapses.
    #[serde(default = "default_call_lease_ms")]
    call_lease_ms: u64,
    /// How long the carrier has to accept a call, in ms (30 000 when
    /// absent); the Twilio carrier's create request waits as long.
    #[serde(default = "default_dial_timeout_ms")]
    dial_timeout_ms: u64,
    /// This instance's name in call leases (a fresh random one when
    /// absent). Give each instance its own; keeping it across restarts lets
    /// a restarted instance take back its calls at once.
    #[serde(default)]
    instance_id: Option<String>,
    /// How calls are conducted: the built-in scripted agent when absent.
    #[serde(default)]
    agent: AgentFile,
    /// Which carrier places the calls: the simulated one when absent.
    #[serde(default)]
    carrier: carrier::CarrierFile,
    /// Whether US and CA numbers without a window keep to 08:00–21:00
    /// local; when absent, on with a real carrier and off with the
    /// simulated one.
    #[serde(default)]
    default_calling_windows: Option<bool>,
}

/// `"agent"`: the conversation engine's settings.
#[derive(Default, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
struct AgentFile {
    /// An OpenAI-compatible model to converse with (feature `llm`).
    #[serde(default)]
    llm: Option<LlmFile>,
    /// The greeting's opening; it must say that the caller is an AI.
    #[serde(default)]
    greeting: Option<String>,
    /// `leave_message` (default) or `hang_up`.
    #[serde(default)]
    voicemail: VoicemailFile,
    /// Seconds of silence before "are you still there?" (10).
    #[serde(default)]
    silence_timeout_sec: Option<u64>,
    /// Most agent turns before it says goodbye (30).
    #[serde(default)]
    max_turns: Option<u32>,
}

/// `"agent": {"llm": …}`. Holds an API key: no `Debug`.
#[cfg_attr(not(feature = "llm"), allow(dead_code))]
#[derive(Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
struct LlmFile {
    base_url: String,
    #[serde(default)]
    api_key: String,
    model: String,
}

#[derive(Debug, Default, Clone, Copy, Deserialize)]
#[serde(rename_all = "snake_case")]
enum VoicemailFile {
    #[default]
    LeaveMessage,
    HangUp,
}

/// The agent the configuration describes.
fn build_agent(file: &AgentFile) -> Result<Agent, String> {
    let mut agent = match &file.llm {
        None => Agent::default(),
        #[cfg(feature = "llm")]
        Some(llm) => {
            let config = agentcall::extract::llm::LlmConfig::new(
                llm.base_url.clone(),
                llm.model.clone(),
                ApiKey::new(llm.api_key.clone()),
            );
            Agent::new(Arc::new(agentcall::agent::llm::LlmMind::new(config)))
        }
        #[cfg(not(feature = "llm"))]
        Some(_) => {
            return Err("agent.llm needs the `llm` feature (cargo run --features llm)".into());
        }
    };
    if let Some(greeting) = &file.greeting {
        agent = agent
            .with_greeting(greeting.clone())
            .map_err(|e| format!("agent.greeting: {e}"))?;
    }
    let mut limits = AgentLimits::default();
    if let Some(seconds) = file.silence_timeout_sec {
        limits.silence_timeout = Duration::from_secs(seconds.max(1));
    }
    if let Some(turns) = file.max_turns {
        limits.max_turns = turns.max(1);
    }
    let voicemail = match file.voicemail {
        VoicemailFile::LeaveMessage => VoicemailPolicy::LeaveMessage,
        VoicemailFile::HangUp => VoicemailPolicy::HangUp,
    };
    Ok(agent.with_limits(limits).with_voicemail(voicemail))
}

fn default_call_lease_ms() -> u64 {
    30_000
}

fn default_dial_timeout_ms() -> u64 {
    30_000
}

/// `"memoryRetention"`: seconds after a call's end; `null` keeps forever.
#[derive(Debug, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
struct RetentionFile {
    #[serde(default = "default_ended_calls_sec")]
    ended_calls_sec: Option<u64>,
    #[serde(default = "default_recordings_sec")]
    recordings_sec: Option<u64>,
}

impl Default for RetentionFile {
    fn default() -> Self {
        Self {
            ended_calls_sec: default_ended_calls_sec(),
            recordings_sec: default_recordings_sec(),
        }
    }
}

fn default_ended_calls_sec() -> Option<u64> {
    Some(24 * 3600)
}
fn default_recordings_sec() -> Option<u64> {
    Some(3600)
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
struct AccountConfig {
    id: String,
    api_keys: Vec<String>,
    #[serde(default)]
    numbers: Vec<String>,
    #[serde(default)]
    default_caller_id: Option<String>,
    #[serde(default = "default_calls_per_minute")]
    calls_per_minute: u32,
    #[serde(default = "default_minute_cap")]
    minute_cap: u64,
    webhook_secret: String,
    /// `{"start": "09:00", "end": "20:00", "days": [...]}`: when the
    /// account's calls may ring, unless a placement gives its own.
    #[serde(default)]
    calling_window: Option<agentcall::schedule::CallingWindow>,
    /// `{"maxAttempts": 3, "on": ["no_answer"], "delayMinutes": [30]}`: how
    /// the account's calls are tried again, unless a placement says.
    #[serde(default)]
    retry: Option<agentcall::schedule::RetryPolicy>,
}

#[derive(Debug, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
struct SimulationFile {
    #[serde(default = "default_ring_ms")]
    ring_ms: u64,
    #[serde(default = "default_talk_ms")]
    talk_ms: u64,
    /// How long the simulated carrier takes to accept a call (0 when absent).
    #[serde(default)]
    dial_delay_ms: u64,
}

impl Default for SimulationFile {
    fn default() -> Self {
        Self {
            ring_ms: default_ring_ms(),
            talk_ms: default_talk_ms(),
            dial_delay_ms: 0,
        }
    }
}

fn default_store() -> String {
    "memory".into()
}

fn default_listen() -> String {
    "127.0.0.1:8080".into()
}
fn default_calls_per_minute() -> u32 {
    60
}
fn default_minute_cap() -> u64 {
    1_000
}
fn default_ring_ms() -> u64 {
    1_500
}
fn default_talk_ms() -> u64 {
    4_000
}
fn default_idempotency_lease_ms() -> u64 {
    60_000
}

fn demo_config() -> (Config, String) {
    let key = format!("key_demo_{}", &uuid_like()[..16]);
    let config = Config {
        listen: default_listen(),
        accounts: vec![AccountConfig {
            id: "acct_demo".into(),
            api_keys: vec![key.clone()],
            numbers: vec!["+14155550100".into()],
            default_caller_id: Some("+14155550100".into()),
            calls_per_minute: default_calls_per_minute(),
            minute_cap: default_minute_cap(),
            webhook_secret: "whsec_demo".into(),
            calling_window: None,
            retry: None,
        }],
        allow_insecure_loopback_webhooks: false,
        simulation: SimulationFile::default(),
        webhook_retry_schedule_ms: None,
        webhook_timeout_ms: None,
        irsf_prefixes: Vec::new(),
        allowed_regions: None,
        base_url: None,
        store: default_store(),
        memory_retention: RetentionFile::default(),
        idempotency_lease_ms: default_idempotency_lease_ms(),
        call_lease_ms: default_call_lease_ms(),
        dial_timeout_ms: default_dial_timeout_ms(),
        instance_id: None,
        agent: AgentFile::default(),
        carrier: carrier::CarrierFile::default(),
        default_calling_windows: None,
    };
    (config, key)
}

/// A random hex string for the demo key.
fn uuid_like() -> String {
    agentcall::CallId::generate()
        .as_str()
        .trim_start_matches("call_")
        .to_owned()
}

fn load_config(path: &str) -> Result<Config, String> {
    let text = std::fs::read_to_string(path).map_err(|e| format!("cannot read {path}: {e}"))?;
    let config: Config = serde_json::from_str(&text).map_err(|e| format!("{path}: {e}"))?;
    check_config(&config).map_err(|e| format!("{path}: {e}"))?;
    Ok(config)
}

fn check_config(config: &Config) -> Result<(), String> {
    config
        .listen
        .parse::<SocketAddr>()
        .map_err(|e| format!("listen {:?}: {e}", config.listen))?;
    if config.accounts.is_empty() {
        return Err("accounts: at least one account is needed".into());
    }
    let mut keys = std::collections::HashSet::new();
    for (index, account) in config.accounts.iter().enumerate() {
        let at = format!("accounts[{index}]");
        account
            .id
            .parse::<agentcall::AccountId>()
            .map_err(|e| format!("{at}.id: {e}"))?;
        if account.api_keys.is_empty() {
            return Err(format!("{at}.apiKeys: at least one key is needed"));
        }
        for key in &account.api_keys {
            if key.trim().is_empty() || key.chars().any(char::is_whitespace) {
                return Err(format!(
                    "{at}.apiKeys: keys must be non-empty without whitespace"
                ));
            }
            if !keys.insert(key) {
                return Err(format!("{at}.apiKeys: a key is used twice"));
            }
        }
        for number in account.numbers.iter().chain(&account.default_caller_id) {
            if !is_strict_e164(number) {
                return Err(format!("{at}: {number:?} is not an E.164 number"));
            }
        }
        if account.webhook_secret.is_empty() {
            return Err(format!("{at}.webhookSecret: must not be empty"));
        }
    }
    if config
        .webhook_retry_schedule_ms
        .as_ref()
        .is_some_and(Vec::is_empty)
    {
        return Err("webhookRetryScheduleMs: at least one attempt is needed".into());
    }
    let store = config.store.as_str();
    if !(store == "memory"
        || store.starts_with("sqlite:")
        || store.starts_with("postgres://")
        || store.starts_with("postgresql://"))
    {
        // The value is not echoed: it may hold a password.
        return Err("store: use \"memory\", \"sqlite://PATH\" or \"postgres://…\"".into());
    }
    if config.webhook_timeout_ms == Some(0) {
        return Err("webhookTimeoutMs: must be positive".into());
    }
    config.carrier.check()
}

/// Connects the configured store, which brings its limits (rate limit and
/// minute cap, shared by every instance on a database); says whether it
/// is durable.
async fn with_store(
    builder: AgentCallBuilder,
    store: &str,
    retention: &RetentionFile,
) -> Result<(AgentCallBuilder, bool), String> {
    if store == "memory" {
        let seconds = |s: Option<u64>| s.map(Duration::from_secs);
        let retention = agentcall::store::MemoryRetention::new(
            seconds(retention.ended_calls_sec),
            seconds(retention.recordings_sec),
        );
        let store = agentcall::store::MemoryStore::with_retention(retention);
        return Ok((builder.store(Arc::new(store)), false));
    }
    if store.starts_with("sqlite:") {
        #[cfg(feature = "sqlite")]
        {
            let store = agentcall::store::SqliteStore::connect(store)
                .await
                .map_err(|e| format!("store: {e}"))?;
            return Ok((builder.store(Arc::new(store)), true));
        }
        #[cfg(not(feature = "sqlite"))]
        return Err(
            "store: SQLite needs the sqlite feature (cargo run --features sqlite --example server)"
                .into(),
        );
    }
    #[cfg(feature = "postgres")]
    {
        let store = agentcall::store::PostgresStore::connect(store)
            .await
            .map_err(|e| format!("store: {e}"))?;
        Ok((builder.store(Arc::new(store)), true))
    }
    #[cfg(not(feature = "postgres"))]
    Err("store: PostgreSQL needs the postgres feature (cargo run --features postgres --example server)".into())
}

async fn build_service(
    config: &Config,
    base_url: String,
) -> Result<(AgentCall, carrier::CarrierSetup), String> {
    let mut directory = StaticDirectory::new();
    for entry in &config.accounts {
        let id = entry.id.parse().map_err(|e| format!("account id: {e}"))?;
        let mut account = Account::new(id, entry.webhook_secret.as_str().into());
        account.numbers = entry.numbers.clone();
        account.default_caller_id = entry.default_caller_id.clone();
        account.calls_per_minute = entry.calls_per_minute;
        account.minute_cap = entry.minute_cap;
        account.calling_window = entry.calling_window;
        account.retry = entry.retry;
        directory = directory.with_account(account, entry.api_keys.iter().map(ApiKey::new));
    }
    let mut guardrails = GuardrailConfig {
        allow_insecure_loopback_webhooks: config.allow_insecure_loopback_webhooks,
        ..GuardrailConfig::default()
    };
    let mut irsf = PrefixSet::shipped_irsf();
    for prefix in &config.irsf_prefixes {
        irsf.insert(prefix)
            .map_err(|e| format!("irsfPrefixes: {e}"))?;
    }
    guardrails.irsf_prefixes = irsf;
    if let Some(regions) = &config.allowed_regions {
        guardrails.allowed_regions = regions.iter().cloned().collect();
    }
    let mut delivery = DeliveryConfig::default();
    if let Some(schedule) = &config.webhook_retry_schedule_ms {
        delivery.schedule = schedule
            .iter()
            .map(|ms| Duration::from_millis(*ms))
            .collect();
    }
    if let Some(timeout) = config.webhook_timeout_ms {
        delivery.timeout = Duration::from_millis(timeout);
    }
    let simulation = SimulationConfig {
        ring: Duration::from_millis(config.simulation.ring_ms),
        talk: Duration::from_millis(config.simulation.talk_ms),
        dial_delay: Duration::from_millis(config.simulation.dial_delay_ms),
    };
    let builder = AgentCall::builder()
        .directory(Arc::new(directory))
        .guardrails(Guardrails::new(guardrails))
        .delivery(delivery)
        .idempotency_lease(Duration::from_millis(config.idempotency_lease_ms))
        .call_lease(Duration::from_millis(config.call_lease_ms))
        .dial_timeout(Duration::from_millis(config.dial_timeout_ms))
        .base_url(config.base_url.clone().unwrap_or(base_url));
    let builder = match config.default_calling_windows {
        Some(on) => builder.default_calling_windows(on),
        None => builder,
    };
    let builder = match &config.instance_id {
        Some(id) => builder.instance_id(InstanceId::new(id.clone())),
        None => builder,
    };
    let (builder, durable) = with_store(builder, &config.store, &config.memory_retention).await?;
    let carrier = carrier::build(&config.carrier, simulation)?;
    let service = builder
        .carrier(Arc::clone(&carrier.carrier))
        .agent(build_agent(&config.agent)?)
        // Fields are read offline by the rules (crate agentcall-rules).
        .extractor(Arc::new(agentcall_rules::RulesExtractor::new()))
        .build()
        .map_err(|e| e.to_string())?;
    if durable {
        // Calls a killed predecessor left running must not stay queued
        // forever; calls other running instances hold are left alone.
        let report = service
            .recover()
            .await
            .map_err(|e| format!("recovery: {e}"))?;
        if report != RecoveryReport::default() {
            eprintln!(
                "recovered {} unfinished calls ({} resumed, {} finished, {} settled)",
                report.resumed + report.ended + report.finished,
                report.resumed,
                report.finished,
                report.settled
            );
        }
    }
    Ok((service, carrier))
}

async fn stop_signal() {
    let ctrl_c = async {
        let _ = tokio::signal::ctrl_c().await;
    };
    #[cfg(unix)]
    let terminate = async {
        match tokio::signal::unix::signal(tokio::signal::unix::SignalKind::terminate()) {
            Ok(mut signal) => {
                signal.recv().await;
            }
            Err(_) => std::future::pending::<()>().await,
        }
    };
    #[cfg(not(unix))]
    let terminate = std::future::pending::<()>();
    tokio::select! {
        _ = ctrl_c => {}
        _ = terminate => {}
    }
}

async fn run() -> Result<(), String> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let (config, demo_key) = match args.as_slice() {
        [] => {
            let (config, key) = demo_config();
            (config, Some(key))
        }
        [flag, path] if flag == "--config" => (load_config(path)?, None),
        [flag] if flag == "--help" || flag == "-h" => {
            println!("usage: server [--config FILE]");
            return Ok(());
        }
        _ => return Err("usage: server [--config FILE]".into()),
    };
    let listener = tokio::net::TcpListener::bind(&config.listen)
        .await
        .map_err(|e| format!("cannot listen on {}: {e}", config.listen))?;
    let address = listener.local_addr().map_err(|e| e.to_string())?;
    let base_url = format!("http://{address}");
    let (service, carrier) = build_service(&config, base_url.clone()).await?;
    let app = axum::Router::new().fallback_service(Api::new(service.clone()));
    #[cfg(feature = "twilio")]
    let app = match carrier.twilio {
        Some(twilio) => carrier::mount(app, twilio),
        None => app,
    };
    #[cfg(not(feature = "twilio"))]
    let _ = carrier;

    if let Some(key) = demo_key {
        eprintln!("demo API key: {key}");
        eprintln!(
            "try: curl -s -X POST {base_url}/v1/agent/calls -H 'Authorization: Bearer {key}' \
             -H 'Content-Type: application/json' \
             -d '{{\"to\":\"+14155550125\",\"objective\":\"Confirm the delivery window\"}}'"
        );
    }
    let mut stdout = std::io::stdout().lock();
    writeln!(stdout, "listening on {base_url}")
        .and_then(|_| stdout.flush())
        .map_err(|e| e.to_string())?;
    drop(stdout);

    axum::serve(listener, app)
        .with_graceful_shutdown(stop_signal())
        .await
        .map_err(|e| format!("server error: {e}"))?;
    service.shutdown(Duration::from_secs(10)).await;
    Ok(())
}

#[tokio::main]
async fn main() -> std::process::ExitCode {
    tracing_subscriber::fmt()
        .with_env_filter(
            tracing_subscriber::EnvFilter::try_from_default_env().unwrap_or_else(|_| "warn".into()),
        )
        .with_writer(std::io::stderr)
        .init();
    match run().await {
        Ok(()) => std::process::ExitCode::SUCCESS,
        Err(message) => {
            eprintln!("error: {message}");
            std::process::ExitCode::from(2)
        }
    }
}
