//! The embedded carrier: outcomes chosen by the destination's last digit.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use async_trait::async_trait;
use tokio::sync::oneshot;

use super::recipient::SimulatedRecipient;
use super::{
    Carrier, CarrierError, CarrierLink, CarrierOutcome, CarrierReport, DialRequest, ProgressHandle,
    sine_wav,
};
use crate::agent::{Act, Agent, AgentLimits, Conversation, Heard, speaking_time};
use crate::domain::{CallError, CallId, CallStatus};
use crate::store::Recording;
use crate::transcript::Transcript;

/// Ring, talk and dial times of the simulated carrier.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SimulationConfig {
    /// From dialing to the outcome (answer, or no_answer/declined/…).
    pub ring: Duration,
    /// From answer to hang-up of a completed call.
    pub talk: Duration,
    /// How long the carrier takes to accept a call: `dial` returns after
    /// it (default 0).
    pub dial_delay: Duration,
}

impl SimulationConfig {
    /// The given ring and talk times, accepting calls at once.
    pub fn new(ring: Duration, talk: Duration) -> Self {
        Self {
            ring,
            talk,
            dial_delay: Duration::ZERO,
        }
    }

    /// The same, with the carrier taking `delay` to accept each call.
    pub fn with_dial_delay(mut self, delay: Duration) -> Self {
        self.dial_delay = delay;
        self
    }
}

impl Default for SimulationConfig {
    fn default() -> Self {
        Self::new(Duration::from_millis(1_500), Duration::from_secs(4))
    }
}

/// A carrier that places no real call. The destination's last digit picks
/// the outcome, like card-number test values:
///
/// | last digit | outcome |
/// |---|---|
/// | 1 | `no_answer` |
/// | 2 | `voicemail` |
/// | 3 | `declined` |
/// | 4 | `failed` with error `carrier_unreachable` |
/// | any other | `completed`, with a transcript that answers every requested field |
///
/// Answered calls are conducted by the conversation engine with the
/// service's [`Agent`] ([`AgentCallBuilder::agent`](crate::AgentCallBuilder::agent):
/// the built-in scripted mind by default, or a model) talking with a
/// simulated recipient who
/// answers the agent's questions about the call's fields, sometimes asks to
/// hear a question again and sometimes answers before the agent is done.
/// They carry the conversation's transcript and a small WAV recording.
#[derive(Debug, Clone, Default)]
pub struct SimulatedCarrier {
    config: SimulationConfig,
    /// The service's link, once attached: how calls are conducted.
    link: Arc<Mutex<Option<CarrierLink>>>,
    hang_ups: Arc<Mutex<HashMap<CallId, oneshot::Sender<()>>>>,
}

impl SimulatedCarrier {
    /// A carrier with the given timings.
    pub fn new(config: SimulationConfig) -> Self {
        Self {
            config,
            link: Arc::default(),
            hang_ups: Arc::default(),
        }
    }

    /// The agent of the service this carrier is attached to (the default
    /// agent before it is).
    fn agent(&self) -> Agent {
        let link = self.link.lock().unwrap_or_else(|p| p.into_inner()).clone();
        link.and_then(|link| link.agent().ok()).unwrap_or_default()
    }

    /// The outcome the last digit of `to` selects.
    pub fn outcome_for(to: &str) -> CallStatus {
        match to.as_bytes().last() {
            Some(b'1') => CallStatus::NoAnswer,
            Some(b'2') => CallStatus::Voicemail,
            Some(b'3') => CallStatus::Declined,
            Some(b'4') => CallStatus::Failed,
            _ => CallStatus::Completed,
        }
    }

    fn hang_ups(&self) -> std::sync::MutexGuard<'_, HashMap<CallId, oneshot::Sender<()>>> {
        self.hang_ups
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
    }
}

#[async_trait]
impl Carrier for SimulatedCarrier {
    async fn dial(
        &self,
        request: DialRequest,
        progress: ProgressHandle,
    ) -> Result<(), CarrierError> {
        if !self.config.dial_delay.is_zero() {
            tokio::time::sleep(self.config.dial_delay).await;
        }
        let (hang_up, hung_up) = oneshot::channel();
        self.hang_ups().insert(request.call_id.clone(), hang_up);
        let config = self.config;
        let agent = self.agent();
        let registry = Arc::clone(&self.hang_ups);
        tokio::spawn(async move {
            let outcome = run(config, &agent, &request, &progress, hung_up).await;
            registry
                .lock()
                .unwrap_or_else(|p| p.into_inner())
                .remove(&request.call_id);
            // The service may have stopped following the call; nothing to do then.
            let _ = progress.report(CarrierReport::Ended(outcome));
        });
        Ok(())
    }

    fn attach(&self, link: CarrierLink) {
        *self.link.lock().unwrap_or_else(|p| p.into_inner()) = Some(link);
    }

    /// It rings no one: the default calling window does not apply.
    fn rings_real_phones(&self) -> bool {
        false
    }

    async fn hang_up(&self, call_id: &CallId) -> Result<(), CarrierError> {
        let sender = self.hang_ups().remove(call_id);
        match sender {
            Some(sender) => {
                let _ = sender.send(());
                Ok(())
            }
            None => Err(CarrierError::UnknownCall(call_id.clone())),
        }
    }
}

async fn run(
    config: SimulationConfig,
    agent: &Agent,
    request: &DialRequest,
    progress: &ProgressHandle,
    mut hung_up: oneshot::Receiver<()>,
) -> CarrierOutcome {
    let _ = progress.report(CarrierReport::Dialing);
    tokio::select! {
        _ = tokio::time::sleep(config.ring) => {}
        _ = &mut hung_up => return CarrierOutcome {
            error: Some(CallError::Canceled),
            ..CarrierOutcome::new(CallStatus::Failed)
        },
    }
    // The conversation's state is large: boxed, so that a ringing call's
    // task holds only the ring's.
    Box::pin(after_ring(config, agent, request, progress, hung_up)).await
}

/// The call from the end of the ring: the outcome the number picks, and
/// the conversation when it is answered.
async fn after_ring(
    config: SimulationConfig,
    agent: &Agent,
    request: &DialRequest,
    progress: &ProgressHandle,
    mut hung_up: oneshot::Receiver<()>,
) -> CarrierOutcome {
    let status = SimulatedCarrier::outcome_for(&request.to);
    match status {
        CallStatus::Completed => {}
        CallStatus::Failed => {
            return CarrierOutcome {
                error: Some(CallError::CarrierUnreachable),
                ..CarrierOutcome::new(status)
            };
        }
        CallStatus::Voicemail => {}
        _ => return CarrierOutcome::new(status),
    }
    // Voicemail connects too: the greeting answers, the message is left.
    let _ = progress.report(CarrierReport::Answered);
    let talk = config.talk.min(request.max_duration);
    let mut conversation = agent.converse(request);
    let mut acts = Vec::new();
    if status == CallStatus::Voicemail {
        conversation.voicemail(agent.voicemail(), &mut acts);
        let _ = tokio::select! {
            _ = tokio::time::sleep(talk) => false,
            _ = &mut hung_up => true,
        };
        return CarrierOutcome {
            transcript: Some(conversation.transcript()),
            recording: Some(recording(300)),
            ..CarrierOutcome::new(status)
        };
    }
    // The conversation is spread over the talk time: the call lasts `talk`
    // (or until the hang-up), however fast the agent and recipient are.
    let started = tokio::time::Instant::now();
    let mut recipient = SimulatedRecipient::new(request);
    let interrupted = tokio::select! {
        _ = converse(&mut conversation, &mut recipient, request, agent.limits()) => {
            tokio::select! {
                _ = tokio::time::sleep_until(started + talk) => false,
                _ = &mut hung_up => true,
            }
        }
        _ = &mut hung_up => true,
    };
    let transcript = conversation.transcript();
    // A hang-up mid-call keeps what was said so far: the opening turns.
    let said = if interrupted {
        transcript.truncated(3)
    } else {
        transcript
    };
    let millis = u32::try_from(talk.as_millis())
        .unwrap_or(u32::MAX)
        .clamp(200, 2_000);
    CarrierOutcome {
        transcript: Some(said),
        recording: Some(recording(millis)),
        ..CarrierOutcome::new(CallStatus::Completed)
    }
}

/// A call rehearsed without a carrier: what the agent and the simulated
/// recipient said, and what the recipient finally told about each field.
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub struct Rehearsal {
    /// The conversation, as the simulated carrier would report it.
    pub transcript: Transcript,
    /// What the recipient finally told about each of the request's fields,
    /// in field order (`None`: never told, or declined).
    pub told: Vec<Option<serde_json::Value>>,
    /// Whether the agent ended the call itself (rather than the call's
    /// time limit).
    pub ended_by_agent: bool,
}

/// Rehearses `request` with `agent` against the simulated carrier's
/// recipient, on simulated time (as [`SimulatedCarrier`] conducts its
/// answered calls, without the ring, the talk time or the reports): for
/// testing an agent or an extractor against what the recipient said.
///
/// ```
/// use std::time::Duration;
/// use agentcall::agent::Agent;
/// use agentcall::carrier::{DialRequest, rehearse};
/// use agentcall::{CallId, FieldDefinition, FieldType};
///
/// # tokio::runtime::Runtime::new().unwrap().block_on(async {
/// let request = DialRequest {
///     call_id: CallId::generate(),
///     attempt: 1,
///     to: "+14155550125".into(),
///     caller_id: "+14155550100".into(),
///     objective: "Confirm the delivery.".into(),
///     context: None,
///     fields: vec![FieldDefinition::new("boxes", FieldType::Number)],
///     max_duration: Duration::from_secs(600),
/// };
/// let rehearsal = rehearse(&Agent::default(), &request).await;
/// assert!(rehearsal.ended_by_agent);
/// assert!(rehearsal.transcript.to_text().starts_with("Agent: "));
/// assert_eq!(rehearsal.told.len(), 1);
/// # });
/// ```
pub async fn rehearse(agent: &Agent, request: &DialRequest) -> Rehearsal {
    let mut conversation = agent.converse(request);
    let mut recipient = SimulatedRecipient::new(request);
    converse(&mut conversation, &mut recipient, request, agent.limits()).await;
    Rehearsal {
        transcript: conversation.transcript(),
        told: recipient.told().to_vec(),
        ended_by_agent: conversation.is_over(),
    }
}

/// The agent and the simulated recipient talk until the agent hangs up (or
/// the recipient has nothing left to say: a bound for a mind that never
/// ends the call is the agent's own turn limit).
///
/// Time on the line is simulated from the words spoken, so limits behave as
/// on a real call however fast the simulation runs: a silence lasts the
/// silence timeout, the agent is told to wrap up
/// [`AgentLimits::wrap_up_before`] the call's limit, and at the limit the
/// carrier cuts the line, mid-conversation if need be.
async fn converse(
    conversation: &mut Conversation,
    recipient: &mut SimulatedRecipient,
    request: &DialRequest,
    limits: AgentLimits,
) {
    let wrap_up_at = request.max_duration.saturating_sub(limits.wrap_up_before);
    let mut clock = Duration::ZERO;
    let mut wrapped_up = false;
    let mut acts = Vec::new();
    conversation.open(&mut acts);
    while !conversation.is_over() {
        let turn = spoken(&acts);
        acts.clear();
        clock += speaking_time(&turn);
        if clock >= request.max_duration {
            return; // the carrier's hard stop
        }
        let reaction = recipient.react(&turn);
        clock += match reaction.as_slice() {
            [] => limits.silence_timeout,
            heard => heard
                .iter()
                .map(|heard| match heard {
                    Heard::Said(text) => speaking_time(text),
                    _ => Duration::ZERO,
                })
                .sum(),
        };
        if !wrapped_up && clock >= wrap_up_at {
            wrapped_up = true;
            conversation.wrap_up();
        }
        if reaction.is_empty() {
            conversation.hear(Heard::Silence, &mut acts).await;
        }
        for heard in reaction {
            conversation.hear(heard, &mut acts).await;
        }
    }
}

/// The words of the agent's last turn among `acts`.
fn spoken(acts: &[Act]) -> String {
    acts.iter()
        .filter_map(|act| match act {
            Act::Say(text) => Some(text.as_str()),
            _ => None,
        })
        .collect()
}

fn recording(millis: u32) -> Recording {
    Recording {
        content_type: "audio/wav".into(),
        bytes: sine_wav(440.0, millis),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::domain::{FieldDefinition, FieldType};

    #[test]
    fn last_digit_picks_the_outcome() {
        assert_eq!(
            SimulatedCarrier::outcome_for("+14155550101"),
            CallStatus::NoAnswer
        );
        assert_eq!(
            SimulatedCarrier::outcome_for("+14155550102"),
            CallStatus::Voicemail
        );
        assert_eq!(
            SimulatedCarrier::outcome_for("+14155550103"),
            CallStatus::Declined
        );
        assert_eq!(
            SimulatedCarrier::outcome_for("+14155550104"),
            CallStatus::Failed
        );
        assert_eq!(
            SimulatedCarrier::outcome_for("+14155550105"),
            CallStatus::Completed
        );
        assert_eq!(
            SimulatedCarrier::outcome_for("+14155550100"),
            CallStatus::Completed
        );
    }

    fn request(fields: Vec<FieldDefinition>, max_duration: Duration) -> DialRequest {
        DialRequest {
            call_id: CallId::generate(),
            attempt: 1,
            to: "+14155550109".into(),
            caller_id: "+14155550100".into(),
            objective: "Confirm the delivery and collect the details.".into(),
            context: None,
            fields,
            max_duration,
        }
    }

    /// A conversation between the default agent and a simulated recipient.
    async fn simulate(
        request: &DialRequest,
        limits: AgentLimits,
    ) -> (Conversation, SimulatedRecipient) {
        let agent = Agent::default().with_limits(limits);
        let mut conversation = agent.converse(request);
        let mut recipient = SimulatedRecipient::new(request);
        converse(&mut conversation, &mut recipient, request, limits).await;
        (conversation, recipient)
    }

    #[tokio::test]
    async fn near_the_limit_the_agent_is_told_to_wrap_up_and_at_it_the_line_is_cut() {
        let fields = vec![FieldDefinition::new("boxes", FieldType::Number)];
        let limits = AgentLimits::default().with_wrap_up_before(Duration::from_secs(20));
        // The greeting and the go-ahead take about ten seconds of the thirty.
        let (conversation, _) =
            simulate(&request(fields.clone(), Duration::from_secs(30)), limits).await;
        assert!(conversation.is_over());
        let transcript = conversation.transcript().to_text();
        let last = transcript.lines().last().unwrap();
        assert!(
            last.starts_with("Agent: ") && last.contains("out of time"),
            "{transcript}"
        );
        // A limit shorter than the greeting: the carrier cuts the line.
        let (conversation, _) = simulate(&request(fields, Duration::from_secs(5)), limits).await;
        assert!(!conversation.is_over());
        assert_eq!(conversation.transcript().lines().count(), 1);
    }

    #[tokio::test]
    async fn completed_calls_report_dialing_answer_and_a_transcript() {
        let carrier = SimulatedCarrier::new(SimulationConfig {
            ring: Duration::from_millis(1),
            talk: Duration::from_millis(1),
            ..Default::default()
        });
        let call_id = CallId::generate();
        let (progress, mut reports) = ProgressHandle::channel(call_id.clone());
        let request = DialRequest {
            call_id,
            attempt: 1,
            to: "+14155550109".into(),
            caller_id: "+14155550100".into(),
            objective: "Confirm the delivery window.".into(),
            context: None,
            fields: vec![FieldDefinition::new("window_ok", FieldType::Boolean)],
            max_duration: Duration::from_secs(600),
        };
        carrier.dial(request, progress).await.unwrap();
        assert_eq!(reports.recv().await, Some(CarrierReport::Dialing));
        assert_eq!(reports.recv().await, Some(CarrierReport::Answered));
        let Some(CarrierReport::Ended(outcome)) = reports.recv().await else {
            panic!("no end")
        };
        assert_eq!(outcome.status, CallStatus::Completed);
        let transcript = outcome.transcript.unwrap().to_text();
        assert!(
            transcript
                .lines()
                .all(|l| l.starts_with("Agent: ") || l.starts_with("Recipient: "))
        );
        assert!(transcript.contains("window ok"));
        assert_eq!(&outcome.recording.unwrap().bytes[..4], b"RIFF");
    }
}
