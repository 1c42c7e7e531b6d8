//! Places one real AI phone call through Twilio and prints its record.
//!
//! ```text
//! TWILIO_ACCOUNT_SID=AC… TWILIO_AUTH_TOKEN=… \
//! PUBLIC_URL=https://your-tunnel.example.com LISTEN=127.0.0.1:8080 \
//! FROM=+1415…  TO=+1415… \
//! LLM_BASE_URL=https://api.openai.com/v1 LLM_API_KEY=sk-… LLM_MODEL=gpt-4o-mini \
//! cargo run --features twilio,llm --example twilio_call
//! ```
//!
//! `PUBLIC_URL` must reach `LISTEN` from the internet over HTTPS (a tunnel
//! such as `cloudflared tunnel --url http://127.0.0.1:8080` or `ngrok http
//! 8080` does); Twilio sends its callbacks and opens the ConversationRelay
//! WebSocket there. `FROM` must be a number of the Twilio account. Without
//! `LLM_*` the built-in scripted agent asks about the call's one field.
//! Optional: `OBJECTIVE`.

#[allow(dead_code)]
#[path = "server/carrier.rs"]
mod carrier;

use std::sync::Arc;
use std::time::Duration;

use agentcall::agent::Agent;
use agentcall::store::MemoryStore;
use agentcall::twilio::signature::AuthToken;
use agentcall::twilio::{TwilioCarrier, TwilioConfig};
use agentcall::{
    Account, AgentCall, Api, ApiKey, FieldDefinition, FieldType, PlacementRequest, StaticDirectory,
    WebhookSecret,
};

fn env(name: &str) -> Result<String, String> {
    std::env::var(name).map_err(|_| format!("{name} is not set (see the example's header)"))
}

#[tokio::main]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    tracing_subscriber::fmt()
        .with_env_filter(
            tracing_subscriber::EnvFilter::try_from_default_env().unwrap_or_else(|_| "info".into()),
        )
        .with_writer(std::io::stderr)
        .init();
    let public_url: url::Url = env("PUBLIC_URL")?.parse()?;
    let from = env("FROM")?;
    let listen = std::env::var("LISTEN").unwrap_or_else(|_| "127.0.0.1:8080".into());

    let agent = match std::env::var("LLM_BASE_URL") {
        Ok(base_url) => {
            let config = agentcall::extract::llm::LlmConfig::new(
                base_url,
                env("LLM_MODEL")?,
                ApiKey::new(env("LLM_API_KEY")?),
            );
            Agent::new(Arc::new(agentcall::agent::llm::LlmMind::new(config)))
        }
        Err(_) => Agent::default(),
    };
    let store = Arc::new(MemoryStore::new());
    let twilio = TwilioCarrier::new(TwilioConfig::new(
        env("TWILIO_ACCOUNT_SID")?,
        AuthToken::new(env("TWILIO_AUTH_TOKEN")?),
        public_url.clone(),
    ));
    let mut account = Account::new("acct_me".parse()?, WebhookSecret::from("whsec_unused"));
    account.numbers = vec![from.clone()];
    account.default_caller_id = Some(from);
    let key = ApiKey::new("key_me");
    let service = AgentCall::builder()
        .directory(Arc::new(
            StaticDirectory::new().with_account(account, [key.clone()]),
        ))
        .store(store)
        .carrier(Arc::new(twilio.clone()))
        .agent(agent)
        .base_url(public_url.as_str().trim_end_matches('/'))
        .build()?;

    let app = axum::Router::new().fallback_service(Api::new(service.clone()));
    let app = carrier::mount(app, twilio);
    let listener = tokio::net::TcpListener::bind(&listen).await?;
    tokio::spawn(async move { axum::serve(listener, app).await });
    eprintln!("listening on {listen}, reached by Twilio at {public_url}");

    let me = service.authenticate(&key).await?.ok_or("unknown key")?;
    let objective = std::env::var("OBJECTIVE")
        .unwrap_or_else(|_| "Ask whether the person can talk about their order this week.".into());
    let request = PlacementRequest::new(env("TO")?, objective).field(
        FieldDefinition::new("can_talk_this_week", FieldType::Boolean)
            .with_description("Whether they can talk about their order this week"),
    );
    let placed = service.place(&me, &request).await?;
    eprintln!("placed {}; waiting for the call to end", placed.call_id);
    let record = loop {
        let record = service.get(&me, &placed.call_id).await?;
        if record.status.is_terminal() {
            break record;
        }
        tokio::time::sleep(Duration::from_millis(500)).await;
    };
    println!("{}", serde_json::to_string_pretty(&record)?);
    service.shutdown(Duration::from_secs(10)).await;
    Ok(())
}
