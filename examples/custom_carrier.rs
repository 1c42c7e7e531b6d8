//! A carrier written from scratch: `LoopbackCarrier` "rings" an in-process
//! person who answers every question with a yes, runs the service's agent
//! through the carrier's link, reports progress through the dial's handle,
//! and hangs up on request. It passes the carrier conformance checks, then
//! carries one call placed through a service.
//!
//! ```text
//! cargo run --example custom_carrier
//! ```

use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use agentcall::agent::{Act, Agent, Heard};
use agentcall::carrier::{
    Carrier, CarrierError, CarrierLink, CarrierOutcome, CarrierReport, DialRequest, ProgressHandle,
};
use agentcall::domain::CallStatus;
use agentcall::{
    Account, AgentCall, ApiKey, CallId, FieldDefinition, FieldType, PlacementRequest,
    StaticDirectory,
};
use agentcall_conformance::carrier as conformance;
use tokio::sync::oneshot;

/// How long the line rings before the person answers.
const RING: Duration = Duration::from_millis(50);

/// What the person on the line says to every agent turn.
const REPLY: &str = "Yes, that works for me.";

#[derive(Debug, Clone, Default)]
struct LoopbackCarrier {
    /// The service's link, once the builder attaches the carrier.
    link: Arc<Mutex<Option<CarrierLink>>>,
    /// How to end each live call.
    live: Arc<Mutex<HashMap<CallId, oneshot::Sender<()>>>>,
}

#[async_trait::async_trait]
impl Carrier for LoopbackCarrier {
    fn attach(&self, link: CarrierLink) {
        *self.link.lock().unwrap() = Some(link);
    }

    /// Rings no real phone: the default calling window does not apply.
    fn rings_real_phones(&self) -> bool {
        false
    }

    async fn dial(
        &self,
        request: DialRequest,
        progress: ProgressHandle,
    ) -> Result<(), CarrierError> {
        // The service's agent; a carrier used on its own runs the default one.
        let link = self.link.lock().unwrap().clone();
        let mut conversation = match link {
            Some(link) => link.converse(&request).map_err(|error| {
                CarrierError::unavailable("the service is gone").with_source(error)
            })?,
            None => Agent::default().converse(&request),
        };
        let (hang_up, mut hung_up) = oneshot::channel();
        self.live
            .lock()
            .unwrap()
            .insert(request.call_id.clone(), hang_up);
        let live = Arc::clone(&self.live);
        tokio::spawn(async move {
            let _ = progress.report(CarrierReport::Dialing);
            let talk = async {
                // A phone rings a while, and people take a moment to answer.
                tokio::time::sleep(RING).await;
                let _ = progress.report(CarrierReport::Answered);
                let mut acts = Vec::new();
                conversation.open(&mut acts);
                // Every complete agent turn gets the same answer, until the
                // agent hangs up (the scripted mind does after its fields).
                while !acts.iter().any(|act| matches!(act, Act::Hangup { .. })) {
                    acts.clear();
                    conversation
                        .hear(Heard::Said(REPLY.into()), &mut acts)
                        .await;
                }
            };
            let status = tokio::select! {
                () = talk => CallStatus::Completed,
                _ = &mut hung_up => CallStatus::Completed,
            };
            live.lock().unwrap().remove(&request.call_id);
            let mut outcome = CarrierOutcome::new(status);
            outcome.transcript = Some(conversation.transcript());
            let _ = progress.report(CarrierReport::Ended(outcome));
        });
        Ok(())
    }

    async fn hang_up(&self, call_id: &CallId) -> Result<(), CarrierError> {
        match self.live.lock().unwrap().remove(call_id) {
            Some(hang_up) => {
                let _ = hang_up.send(());
                Ok(())
            }
            None => Err(CarrierError::UnknownCall(call_id.clone())),
        }
    }
}

#[tokio::main]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    conformance::run_all(&LoopbackCarrier::default(), "+14155550125").await;
    println!("LoopbackCarrier passes the carrier conformance checks");

    let mut account = Account::new("acct_demo".parse()?, "whsec_demo".into());
    account.numbers = vec!["+14155550100".into()];
    account.default_caller_id = Some("+14155550100".into());
    let key = ApiKey::new("key_demo");
    let service = AgentCall::builder()
        .directory(Arc::new(
            StaticDirectory::new().with_account(account, [key.clone()]),
        ))
        .carrier(Arc::new(LoopbackCarrier::default()))
        .build()?;
    let me = service.authenticate(&key).await?.ok_or("unknown key")?;
    let request = PlacementRequest::new("+14155550125", "Confirm Friday's delivery window.")
        .field(FieldDefinition::new("window_confirmed", FieldType::Boolean));
    let placed = service.place(&me, &request).await?;
    let record = loop {
        let record = service.get(&me, &placed.call_id).await?;
        if record.status.is_terminal() {
            break record;
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    };
    println!("{}", serde_json::to_string_pretty(&record)?);
    service.shutdown(Duration::from_secs(1)).await;
    Ok(())
}
