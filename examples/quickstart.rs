//! Places one call on the embedded defaults and follows it to the end.
//!
//! No network, no arguments: `cargo run --example quickstart`.
//! The simulated carrier completes the call (the destination ends in 5),
//! the rules extractor (`agentcall-rules`) reads the requested fields from the transcript, and
//! an in-process notifier prints each signed webhook event after verifying it.

use std::sync::{Arc, Mutex};
use std::time::Duration;

use agentcall::notify::{NotifyError, WebhookRequest, WebhookResponse};
use agentcall::webhook::Verifier;
use agentcall::{
    Account, AgentCall, ApiKey, FieldDefinition, FieldType, Notifier, PlacementRequest,
    SimulatedCarrier, SimulationConfig, StaticDirectory, WebhookSecret,
};

/// Receives webhooks in process: verifies the signature like a real receiver
/// would, then keeps the event.
#[derive(Debug)]
struct PrintingReceiver {
    verifier: Verifier,
    events: Mutex<Vec<serde_json::Value>>,
}

#[async_trait::async_trait]
impl Notifier for PrintingReceiver {
    async fn send(&self, request: WebhookRequest) -> Result<WebhookResponse, NotifyError> {
        let now = chrono::Utc::now().timestamp();
        if self
            .verifier
            .verify(&request.body, Some(&request.signature), now)
            .is_err()
        {
            return Ok(WebhookResponse {
                status: 400,
                retry_after: None,
            });
        }
        let event: serde_json::Value = serde_json::from_slice(&request.body).expect("JSON body");
        println!("webhook event (signature verified):\n{}\n", pretty(&event));
        self.events.lock().unwrap().push(event);
        Ok(WebhookResponse {
            status: 204,
            retry_after: None,
        })
    }
}

fn pretty(value: &impl serde::Serialize) -> String {
    serde_json::to_string_pretty(value).expect("serializable")
}

#[tokio::main]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    let secret = WebhookSecret::from("whsec_quickstart");
    let mut account = Account::new("acct_quickstart".parse()?, secret.clone());
    account.numbers = vec!["+14155550100".into()];
    account.default_caller_id = Some("+14155550100".into());
    let key = ApiKey::new("key_quickstart");

    let receiver = Arc::new(PrintingReceiver {
        verifier: Verifier::new([secret]),
        events: Mutex::new(Vec::new()),
    });
    let service = AgentCall::builder()
        .directory(Arc::new(
            StaticDirectory::new().with_account(account, [key.clone()]),
        ))
        .carrier(Arc::new(SimulatedCarrier::new(SimulationConfig {
            ring: Duration::from_millis(300),
            talk: Duration::from_millis(1_200),
            ..Default::default()
        })))
        // The rule-based offline extractor (crate agentcall-rules); an
        // OpenAI-compatible model plugs in the same way (extract::llm).
        .extractor(Arc::new(agentcall_rules::RulesExtractor::new()))
        .notifier(receiver.clone())
        .build()?;

    let me = service.authenticate(&key).await?.ok_or("unknown key")?;
    let request = PlacementRequest::new(
        "+14155550125",
        "Confirm Dana's dental cleaning on Thursday at 3pm and ask about parking and party size.",
    )
    .field(
        FieldDefinition::new("appointment_confirmed", FieldType::Boolean)
            .with_description("Whether the patient confirmed the appointment"),
    )
    .field(
        FieldDefinition::new("party_size", FieldType::Number)
            .with_description("How many people are coming"),
    )
    .field(
        FieldDefinition::new("preferred_day", FieldType::String)
            .with_description("Which day works best for a follow-up"),
    )
    .webhook_url("https://hooks.example.com/agentcall");
    println!("placing request:\n{}\n", pretty(&request));
    let placed = service.place(&me, &request).await?;
    println!("accepted:\n{}\n", pretty(&placed));

    let record = loop {
        let record = service.get(&me, &placed.call_id).await?;
        if record.status.is_terminal() {
            break record;
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    };
    // Both events are delivered by the background worker; wait for them.
    for _ in 0..100 {
        if receiver.events.lock().unwrap().len() == 2 {
            break;
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    println!("final call record:\n{}", pretty(&record));
    service.shutdown(Duration::from_secs(2)).await;
    Ok(())
}
