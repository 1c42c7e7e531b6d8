//! The embedded carrier: outcomes chosen by the destination's last digit.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use async_trait::async_trait;
use tokio::sync::oneshot;

use super::{
    CarrierOutcome, CarrierReport, DialError, DialRequest, Dialer, ProgressHandle, sine_wav,
};
use crate::agent::instructions::{field_question, lowercase_first};
use crate::domain::{CallId, CallStatus, FieldDefinition, FieldType};
use crate::store::Recording;

/// Error token of simulated carrier failures (test digit 4).
pub const SIMULATED_FAILURE_TOKEN: &str = "carrier_unreachable";

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
/// Answered calls carry a transcript and a small WAV recording.
#[derive(Debug, Clone, Default)]
pub struct SimulatedDialer {
    config: SimulationConfig,
    hang_ups: Arc<Mutex<HashMap<CallId, oneshot::Sender<()>>>>,
}

impl SimulatedDialer {
    /// A carrier with the given timings.
    pub fn new(config: SimulationConfig) -> Self {
        Self {
            config,
            hang_ups: Arc::default(),
        }
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
impl Dialer for SimulatedDialer {
    async fn dial(&self, request: DialRequest, progress: ProgressHandle) -> Result<(), DialError> {
        if !self.config.dial_delay.is_zero() {
            tokio::time::sleep(self.config.dial_delay).await;
        }
        let (hang_up, hung_up) = oneshot::channel();
        self.hang_ups().insert(request.call_id.clone(), hang_up);
        let config = self.config;
        let registry = Arc::clone(&self.hang_ups);
        tokio::spawn(async move {
            let outcome = run(config, &request, &progress, hung_up).await;
            registry
                .lock()
                .unwrap_or_else(|p| p.into_inner())
                .remove(&request.call_id);
            // The service may have stopped following the call; nothing to do then.
            let _ = progress.report(CarrierReport::Ended(outcome));
        });
        Ok(())
    }

    async fn hang_up(&self, call_id: &CallId) -> Result<(), DialError> {
        let sender = self.hang_ups().remove(call_id);
        match sender {
            Some(sender) => {
                let _ = sender.send(());
                Ok(())
            }
            None => Err(DialError::UnknownCall(call_id.clone())),
        }
    }
}

async fn run(
    config: SimulationConfig,
    request: &DialRequest,
    progress: &ProgressHandle,
    mut hung_up: oneshot::Receiver<()>,
) -> CarrierOutcome {
    let _ = progress.report(CarrierReport::Dialing);
    tokio::select! {
        _ = tokio::time::sleep(config.ring) => {}
        _ = &mut hung_up => return CarrierOutcome {
            error: Some("canceled".into()),
            ..CarrierOutcome::new(CallStatus::Failed)
        },
    }
    let status = SimulatedDialer::outcome_for(&request.to);
    match status {
        CallStatus::Completed => {}
        CallStatus::Failed => {
            return CarrierOutcome {
                error: Some(SIMULATED_FAILURE_TOKEN.into()),
                ..CarrierOutcome::new(status)
            };
        }
        CallStatus::Voicemail => {}
        _ => return CarrierOutcome::new(status),
    }
    // Voicemail connects too: the greeting answers, the message is left.
    let _ = progress.report(CarrierReport::Answered);
    let talk = config.talk.min(request.max_duration);
    let interrupted = tokio::select! {
        _ = tokio::time::sleep(talk) => false,
        _ = &mut hung_up => true,
    };
    if status == CallStatus::Voicemail {
        return CarrierOutcome {
            transcript: Some(format!(
                "Recipient: [voicemail greeting]\nAgent: Hello, this is an automated assistant calling about: {} Please call us back. Goodbye.",
                request.objective
            )),
            recording: Some(recording(300)),
            ..CarrierOutcome::new(status)
        };
    }
    let lines = conversation(request);
    // A hang-up mid-call keeps what was said so far: the opening turns.
    let said = if interrupted {
        &lines[..lines.len().min(3)]
    } else {
        &lines[..]
    };
    let millis = u32::try_from(talk.as_millis())
        .unwrap_or(u32::MAX)
        .clamp(200, 2_000);
    CarrierOutcome {
        transcript: Some(said.join("\n")),
        recording: Some(recording(millis)),
        ..CarrierOutcome::new(CallStatus::Completed)
    }
}

fn recording(millis: u32) -> Recording {
    Recording {
        content_type: "audio/wav".into(),
        bytes: sine_wav(440.0, millis),
    }
}

/// A two-party conversation that pursues the objective and answers each field.
fn conversation(request: &DialRequest) -> Vec<String> {
    let mut lines = vec![
        "Recipient: Hello?".to_owned(),
        format!(
            "Agent: Hi, this is an automated assistant calling on behalf of our client. I'm calling to {}",
            lowercase_first(request.objective.trim())
        ),
        "Recipient: Sure, go ahead.".to_owned(),
    ];
    let seed = request
        .call_id
        .as_str()
        .bytes()
        .fold(0u64, |h, b| h.wrapping_mul(31).wrapping_add(u64::from(b)));
    for (index, field) in request.fields.iter().enumerate() {
        let pick = seed.wrapping_add(index as u64 * 7919);
        lines.push(format!("Agent: {}", field_question(field)));
        lines.push(format!("Recipient: {}", answer(field, pick)));
    }
    lines.push("Agent: Thank you, that's everything I needed. Have a great day.".to_owned());
    lines.push("Recipient: You too, bye.".to_owned());
    lines
}

/// An answer of the field's type; strings fit the topic where a keyword allows.
fn answer(field: &FieldDefinition, pick: u64) -> String {
    match field.field_type {
        FieldType::Boolean if pick.is_multiple_of(3) => "No, not at all.".to_owned(),
        FieldType::Boolean => "Yes, that's right.".to_owned(),
        FieldType::Number => format!("That would be {}.", 2 + pick % 9),
        FieldType::String => format!("It's {}.", string_answer(field)),
    }
}

fn string_answer(field: &FieldDefinition) -> &'static str {
    const TOPICS: [(&[&str], &str); 8] = [
        (&["code", "reference", "id", "confirmation"], "AB-4719"),
        (&["day", "date"], "Tuesday"),
        (&["email"], "jordan.reyes@example.com"),
        (&["name", "who", "contact", "person"], "Jordan Reyes"),
        (
            &["insurance", "provider", "company", "brand", "carrier"],
            "Blue Cross",
        ),
        (
            &["address", "street", "location", "where"],
            "42 Maple Street",
        ),
        (&["time", "hour", "when"], "3 pm"),
        (&["color", "colour"], "blue"),
    ];
    let text = format!(
        "{} {}",
        field.name,
        field.description.as_deref().unwrap_or_default()
    )
    .to_lowercase();
    let words: Vec<&str> = text.split(|c: char| !c.is_alphanumeric()).collect();
    TOPICS
        .iter()
        .find(|(keys, _)| keys.iter().any(|k| words.contains(k)))
        .map_or("the standard option", |(_, value)| value)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn last_digit_picks_the_outcome() {
        assert_eq!(
            SimulatedDialer::outcome_for("+14155550101"),
            CallStatus::NoAnswer
        );
        assert_eq!(
            SimulatedDialer::outcome_for("+14155550102"),
            CallStatus::Voicemail
        );
        assert_eq!(
            SimulatedDialer::outcome_for("+14155550103"),
            CallStatus::Declined
        );
        assert_eq!(
            SimulatedDialer::outcome_for("+14155550104"),
            CallStatus::Failed
        );
        assert_eq!(
            SimulatedDialer::outcome_for("+14155550105"),
            CallStatus::Completed
        );
        assert_eq!(
            SimulatedDialer::outcome_for("+14155550100"),
            CallStatus::Completed
        );
    }

    #[tokio::test]
    async fn completed_calls_report_dialing_answer_and_a_transcript() {
        let dialer = SimulatedDialer::new(SimulationConfig {
            ring: Duration::from_millis(1),
            talk: Duration::from_millis(1),
            ..Default::default()
        });
        let call_id = CallId::generate();
        let (progress, mut reports) = ProgressHandle::channel(call_id.clone());
        let request = DialRequest {
            call_id,
            to: "+14155550109".into(),
            caller_id: "+14155550100".into(),
            objective: "Confirm the delivery window.".into(),
            context: None,
            fields: vec![FieldDefinition::new("window_ok", FieldType::Boolean)],
            max_duration: Duration::from_secs(600),
        };
        dialer.dial(request, progress).await.unwrap();
        assert_eq!(reports.recv().await, Some(CarrierReport::Dialing));
        assert_eq!(reports.recv().await, Some(CarrierReport::Answered));
        let Some(CarrierReport::Ended(outcome)) = reports.recv().await else {
            panic!("no end")
        };
        assert_eq!(outcome.status, CallStatus::Completed);
        let transcript = outcome.transcript.unwrap();
        assert!(
            transcript
                .lines()
                .all(|l| l.starts_with("Agent: ") || l.starts_with("Recipient: "))
        );
        assert!(transcript.contains("window ok"));
        assert_eq!(&outcome.recording.unwrap().bytes[..4], b"RIFF");
    }
}
