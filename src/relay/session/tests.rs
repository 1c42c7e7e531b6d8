//! Sessions driven by a scripted carrier over in-memory frame channels,
//! with tokio's paused clock (timeouts pass instantly and in order).

use std::sync::Arc;

use async_trait::async_trait;
use serde_json::{Value, json};
use tokio::sync::mpsc;

use super::*;
use crate::agent::conversation::STILL_THERE;
use crate::agent::{Brief, Decision, Mind, MindError, ScriptedMind, Words};
use crate::domain::{FieldDefinition, FieldType};
use crate::transcript::{Transcript, Turn};

/// The carrier's side of a session: frames to send, frames received.
struct FakeCarrier {
    to_session: Option<mpsc::UnboundedSender<Result<String, String>>>,
    from_session: mpsc::UnboundedReceiver<String>,
}

impl FakeCarrier {
    fn send(&self, frame: Value) {
        let _ = self
            .to_session
            .as_ref()
            .expect("open")
            .send(Ok(frame.to_string()));
    }

    fn say(&self, words: &str) {
        self.send(json!({"type": "prompt", "voicePrompt": words, "lang": "en-US", "last": true}));
    }

    /// Frames up to and including the end of the agent's turn (or `end`).
    async fn turn(&mut self) -> Vec<Value> {
        let mut frames = Vec::new();
        while let Some(frame) = self.from_session.recv().await {
            let frame: Value = serde_json::from_str(&frame).unwrap();
            let done = frame["last"] == true || frame["type"] == "end";
            frames.push(frame);
            if done {
                break;
            }
        }
        frames
    }

    fn hang_up(&mut self) {
        self.to_session = None;
    }
}

fn words_of(frames: &[Value]) -> String {
    frames
        .iter()
        .filter(|f| f["type"] == "text")
        .map(|f| f["token"].as_str().unwrap())
        .collect()
}

fn brief() -> Brief {
    let mut brief = Brief::new("Confirm the delivery.");
    brief.fields = vec![
        FieldDefinition::new("boxes", FieldType::Number)
            .with_description("How many boxes are expected"),
    ];
    brief
}

/// Starts a session with `mind` and `limits`; the carrier speaks the greeting.
fn start(
    mind: Arc<dyn Mind>,
    limits: AgentLimits,
    max_duration: Duration,
) -> (
    FakeCarrier,
    tokio::task::JoinHandle<Result<SessionEnd, RelayError>>,
) {
    let (to_session, incoming) = mpsc::unbounded_channel::<Result<String, String>>();
    let (outgoing, from_session) = mpsc::unbounded_channel::<String>();
    let incoming = futures_util::stream::unfold(incoming, |mut rx| async move {
        rx.recv().await.map(|frame| (frame, rx))
    });
    let outgoing = futures_util::sink::unfold(outgoing, |tx, frame: String| async move {
        tx.send(frame).map_err(|_| "closed".to_owned())?;
        Ok::<_, String>(tx)
    });
    let session = tokio::spawn(async move {
        run_session(
            Box::pin(incoming),
            Box::pin(outgoing),
            move |setup: Setup| async move {
                if setup.parameters.get("callId").map(String::as_str) != Some("call_1") {
                    return Err(RelayError::UnknownCall(setup.carrier_call_id));
                }
                Ok(SessionPlan {
                    conversation: Conversation::new(brief(), mind, limits),
                    limits,
                    max_duration,
                    carrier_speaks_greeting: true,
                    on_turn: None,
                })
            },
        )
        .await
    });
    let carrier = FakeCarrier {
        to_session: Some(to_session),
        from_session,
    };
    carrier.send(json!({
        "type": "setup", "sessionId": "VX1", "callSid": "CA1",
        "customParameters": {"callId": "call_1"}
    }));
    (carrier, session)
}

#[tokio::test(start_paused = true)]
async fn a_call_goes_question_answer_goodbye_then_end_with_the_reason() {
    let (mut carrier, session) = start(
        Arc::new(ScriptedMind),
        AgentLimits::default(),
        Duration::from_secs(600),
    );
    carrier.say("Sure, go ahead.");
    let question = carrier.turn().await;
    assert!(
        words_of(&question).contains("how many boxes"),
        "{question:?}"
    );
    carrier.send(json!({"type": "someFutureFrame", "x": 1}));
    carrier.say("There will be 7.");
    let goodbye = carrier.turn().await;
    assert!(words_of(&goodbye).contains("Goodbye"));
    let end = carrier.turn().await;
    assert_eq!(end[0]["type"], "end");
    let handoff: Value = serde_json::from_str(end[0]["handoffData"].as_str().unwrap()).unwrap();
    assert_eq!(handoff["reason"], "objective_met");
    carrier.hang_up();
    let ended = session.await.unwrap().unwrap();
    assert_eq!(ended.hangup_reason.as_deref(), Some("objective_met"));
    assert_eq!(ended.setup.carrier_call_id, "CA1");
    let text = ended.transcript.to_text();
    let lines: Vec<&str> = text.lines().collect();
    assert!(
        lines[0].starts_with("Agent: Hello, this is an AI"),
        "{lines:?}"
    );
    assert_eq!(lines[1], "Recipient: Sure, go ahead.");
    assert_eq!(lines[3], "Recipient: There will be 7.");
    assert!(lines[4].contains("Goodbye"));
}

#[tokio::test(start_paused = true)]
async fn the_goodbye_has_time_to_be_heard_before_end() {
    let (mut carrier, session) = start(
        Arc::new(ScriptedMind),
        AgentLimits::default(),
        Duration::from_secs(600),
    );
    carrier.say("Sure.");
    carrier.turn().await;
    carrier.say("Seven.");
    let goodbye = carrier.turn().await;
    let said_at = tokio::time::Instant::now();
    let end = carrier.turn().await;
    assert_eq!(end[0]["type"], "end");
    assert!(said_at.elapsed() >= speaking_time(&words_of(&goodbye)));
    carrier.hang_up();
    session.await.unwrap().unwrap();
}

#[tokio::test(start_paused = true)]
async fn keys_are_heard_and_the_recipient_hanging_up_ends_the_session() {
    let (mut carrier, session) = start(
        Arc::new(ScriptedMind),
        AgentLimits::default(),
        Duration::from_secs(600),
    );
    carrier.say("Go on.");
    carrier.turn().await;
    carrier.send(json!({"type": "dtmf", "digit": "5"}));
    carrier.turn().await; // the keys answered the question: goodbye
    carrier.hang_up(); // before the goodbye was over: no wait for it
    let ended = session.await.unwrap().unwrap();
    assert_eq!(ended.hangup_reason.as_deref(), Some("objective_met"));
    assert!(
        ended
            .transcript
            .to_text()
            .contains("Recipient: [pressed 5]"),
        "{}",
        ended.transcript
    );
}

#[tokio::test(start_paused = true)]
async fn a_recipient_who_hangs_up_mid_call_ends_the_session_without_a_reason() {
    let (mut carrier, session) = start(
        Arc::new(ScriptedMind),
        AgentLimits::default(),
        Duration::from_secs(600),
    );
    carrier.say("Go on.");
    carrier.turn().await;
    carrier.hang_up();
    let ended = session.await.unwrap().unwrap();
    assert_eq!(ended.hangup_reason, None);
    assert_eq!(ended.transcript.to_text().lines().count(), 3);
}

#[tokio::test(start_paused = true)]
async fn silence_gets_one_check_then_a_polite_end() {
    let limits = AgentLimits::default().with_silence_timeout(Duration::from_secs(5));
    let (mut carrier, session) = start(Arc::new(ScriptedMind), limits, Duration::from_secs(600));
    let check = carrier.turn().await;
    assert_eq!(words_of(&check), STILL_THERE);
    let goodbye = carrier.turn().await;
    assert!(words_of(&goodbye).contains("Goodbye"));
    let end = carrier.turn().await;
    assert!(end[0]["handoffData"].as_str().unwrap().contains("silence"));
    carrier.hang_up();
    assert_eq!(
        session.await.unwrap().unwrap().hangup_reason.as_deref(),
        Some("silence")
    );
}

#[tokio::test(start_paused = true)]
async fn near_the_time_limit_the_agent_closes_at_its_next_turn() {
    let limits = AgentLimits::default().with_wrap_up_before(Duration::from_secs(20));
    let (mut carrier, session) = start(Arc::new(ScriptedMind), limits, Duration::from_secs(30));
    tokio::time::sleep(Duration::from_secs(5)).await;
    carrier.say("Sure, go ahead.");
    carrier.turn().await; // the question, before the wrap-up point
    tokio::time::sleep(Duration::from_secs(8)).await;
    carrier.say("Hmm, let me think.");
    let closing = carrier.turn().await;
    assert!(words_of(&closing).contains("out of time"), "{closing:?}");
    carrier.turn().await;
    carrier.hang_up();
    assert_eq!(
        session.await.unwrap().unwrap().hangup_reason.as_deref(),
        Some("time_limit")
    );
}

/// A mind that says one sentence, pauses a second, then another.
#[derive(Debug)]
struct Slow;

#[async_trait]
impl Mind for Slow {
    async fn next_turn(
        &self,
        _: &Brief,
        _: &[Turn],
        words: &mut dyn Words,
    ) -> Result<Decision, MindError> {
        words.say("First part. ");
        tokio::time::sleep(Duration::from_secs(1)).await;
        words.say("Second part.");
        Ok(Decision::default())
    }
}

#[tokio::test(start_paused = true)]
async fn barge_in_stops_the_rest_of_the_turn_and_cuts_it_to_what_was_heard() {
    let (mut carrier, session) = start(
        Arc::new(Slow),
        AgentLimits::default(),
        Duration::from_secs(600),
    );
    carrier.say("Hello?");
    let first = carrier.from_session.recv().await.unwrap();
    assert!(first.contains("First part."));
    carrier.send(json!({"type": "interrupt", "utteranceUntilInterrupt": "First part.", "durationUntilInterruptMs": 900}));
    // The rest of the turn is not sent; only its end mark is.
    let rest = carrier.turn().await;
    assert_eq!(words_of(&rest), "", "{rest:?}");
    carrier.say("Wait, who is this?");
    carrier.turn().await;
    carrier.hang_up();
    let ended = session.await.unwrap().unwrap();
    let text = ended.transcript.to_text();
    let lines: Vec<&str> = text.lines().collect();
    assert_eq!(lines[2], "Agent: First part.…", "{lines:?}");
    assert_eq!(lines[3], "Recipient: Wait, who is this?");
    assert_eq!(
        lines[4], "Agent: First part. Second part.",
        "the next turn is whole"
    );
}

#[tokio::test(start_paused = true)]
async fn a_session_without_setup_or_for_an_unknown_call_ends_with_an_error() {
    let (to_session, incoming) = mpsc::unbounded_channel::<Result<String, String>>();
    let incoming = futures_util::stream::unfold(incoming, |mut rx| async move {
        rx.recv().await.map(|frame| (frame, rx))
    });
    let sink = futures_util::sink::drain().sink_map_err(|never| match never {});
    let _ = to_session.send(Ok("garbage".into()));
    let _ = to_session.send(Ok(
        json!({"type": "prompt", "voicePrompt": "hi", "last": true}).to_string(),
    ));
    let ended = run_session(Box::pin(incoming), sink, |_| async {
        Err::<SessionPlan, _>(RelayError::UnknownCall(String::new()))
    })
    .await;
    assert!(matches!(ended, Err(RelayError::NoSetup)), "{ended:?}");

    let (mut carrier, session) = start(
        Arc::new(ScriptedMind),
        AgentLimits::default(),
        Duration::from_secs(60),
    );
    carrier
        .send(json!({"type": "setup", "callSid": "CA2", "customParameters": {"callId": "call_2"}}));
    drop(carrier.to_session.take());
    // The first setup (call_1) is what counts; a second one is ignored.
    let ended = session.await.unwrap();
    assert!(ended.is_ok());
    let (carrier, session) = {
        let (to_session, incoming) = mpsc::unbounded_channel::<Result<String, String>>();
        let incoming = futures_util::stream::unfold(incoming, |mut rx| async move {
            rx.recv().await.map(|frame| (frame, rx))
        });
        let sink = futures_util::sink::drain().sink_map_err(|never| match never {});
        let session = tokio::spawn(run_session(
            Box::pin(incoming),
            sink,
            |setup: Setup| async move {
                Err::<SessionPlan, _>(RelayError::UnknownCall(setup.carrier_call_id))
            },
        ));
        (to_session, session)
    };
    let _ = carrier.send(Ok(
        json!({"type": "setup", "callSid": "CA9", "customParameters": {}}).to_string(),
    ));
    assert!(matches!(session.await.unwrap(), Err(RelayError::UnknownCall(sid)) if sid == "CA9"));
}

/// The recipient hangs up while the goodbye is going out: frames can no
/// longer be delivered, and the session still returns the conversation
/// (and told it turn by turn on the way).
#[tokio::test(start_paused = true)]
async fn a_socket_that_fails_mid_turn_keeps_the_conversation() {
    let (to_session, incoming) = mpsc::unbounded_channel::<Result<String, String>>();
    let incoming = futures_util::stream::unfold(incoming, |mut rx| async move {
        rx.recv().await.map(|frame| (frame, rx))
    });
    // Accepts two frames, then fails as a closed socket does.
    let outgoing = futures_util::sink::unfold(0u32, |sent, _frame: String| async move {
        if sent >= 2 {
            Err("socket closed".to_owned())
        } else {
            Ok(sent + 1)
        }
    });
    let told = Arc::new(std::sync::Mutex::new(Vec::<String>::new()));
    let told_by_session = Arc::clone(&told);
    let session = tokio::spawn(run_session(
        Box::pin(incoming),
        Box::pin(outgoing),
        move |_setup: Setup| async move {
            Ok(SessionPlan {
                conversation: Conversation::new(
                    brief(),
                    Arc::new(ScriptedMind),
                    AgentLimits::default(),
                ),
                limits: AgentLimits::default(),
                max_duration: Duration::from_secs(600),
                carrier_speaks_greeting: true,
                on_turn: Some(Box::new(move |transcript: Transcript| {
                    told_by_session.lock().unwrap().push(transcript.to_text());
                    Box::pin(async {})
                })),
            })
        },
    ));
    let send = |frame: Value| to_session.send(Ok(frame.to_string())).unwrap();
    send(json!({"type": "setup", "callSid": "CA1", "customParameters": {"callId": "call_1"}}));
    send(json!({"type": "prompt", "voicePrompt": "Sure.", "last": true}));
    send(json!({"type": "prompt", "voicePrompt": "Seven boxes.", "last": true}));
    tokio::time::sleep(Duration::from_secs(1)).await;
    drop(to_session);
    let ended = session
        .await
        .unwrap()
        .expect("the conversation, not a transport error");
    assert!(
        ended
            .transcript
            .to_text()
            .contains("Recipient: Seven boxes."),
        "{}",
        ended.transcript
    );
    assert!(
        ended
            .transcript
            .to_text()
            .lines()
            .last()
            .unwrap()
            .contains("Goodbye")
    );
    let told = told.lock().unwrap();
    assert_eq!(
        told.last().map(String::as_str),
        Some(ended.transcript.to_text().as_str())
    );
    assert!(told.len() >= 3, "the greeting, then each turn: {told:?}");
}

/// A mind that thinks for six seconds before it says anything, and tells
/// whether its turn was dropped unfinished.
#[derive(Debug, Default)]
struct Thinking {
    finished: std::sync::atomic::AtomicUsize,
    dropped: std::sync::atomic::AtomicUsize,
}

struct DropFlag<'a>(&'a std::sync::atomic::AtomicUsize, bool);

impl Drop for DropFlag<'_> {
    fn drop(&mut self) {
        if !self.1 {
            self.0.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
        }
    }
}

#[async_trait]
impl Mind for Thinking {
    async fn next_turn(
        &self,
        _: &Brief,
        _: &[Turn],
        words: &mut dyn Words,
    ) -> Result<Decision, MindError> {
        let mut flag = DropFlag(&self.dropped, false);
        tokio::time::sleep(Duration::from_secs(6)).await;
        words.say("Great, Friday it is.");
        flag.1 = true;
        self.finished
            .fetch_add(1, std::sync::atomic::Ordering::SeqCst);
        Ok(Decision::default())
    }
}

#[tokio::test(start_paused = true)]
async fn what_is_heard_is_kept_before_the_mind_answers_and_a_hang_up_cancels_the_answer() {
    let (to_session, incoming) = mpsc::unbounded_channel::<Result<String, String>>();
    let incoming = futures_util::stream::unfold(incoming, |mut rx| async move {
        rx.recv().await.map(|frame| (frame, rx))
    });
    let sink = futures_util::sink::drain().sink_map_err(|never| match never {});
    let mind = Arc::new(Thinking::default());
    let told = Arc::new(std::sync::Mutex::new(Vec::<String>::new()));
    let (session_mind, told_by_session) = (Arc::clone(&mind), Arc::clone(&told));
    let session = tokio::spawn(run_session(
        Box::pin(incoming),
        sink,
        move |_setup: Setup| async move {
            Ok(SessionPlan {
                conversation: Conversation::new(brief(), session_mind, AgentLimits::default()),
                limits: AgentLimits::default(),
                max_duration: Duration::from_secs(600),
                carrier_speaks_greeting: true,
                on_turn: Some(Box::new(move |transcript: Transcript| {
                    let told = Arc::clone(&told_by_session);
                    Box::pin(async move {
                        // A store that takes its time, within the bound.
                        tokio::time::sleep(Duration::from_millis(300)).await;
                        told.lock().unwrap().push(transcript.to_text());
                    })
                })),
            })
        },
    ));
    let send = |frame: Value| to_session.send(Ok(frame.to_string())).unwrap();
    send(json!({"type": "setup", "callSid": "CA1", "customParameters": {"callId": "call_1"}}));
    send(json!({"type": "prompt", "voicePrompt": "Yes, Friday works, bye", "last": true}));
    tokio::time::sleep(Duration::from_secs(1)).await;
    // Kept while the mind is still thinking.
    assert!(
        told.lock()
            .unwrap()
            .last()
            .is_some_and(|text| text.ends_with("Recipient: Yes, Friday works, bye")),
        "{told:?}"
    );
    // The recipient says one more thing and hangs up mid-thought.
    send(json!({"type": "prompt", "voicePrompt": "Thanks.", "last": true}));
    drop(to_session);
    let ended = session.await.unwrap().unwrap();
    assert_eq!(ended.hangup_reason, None);
    let text = ended.transcript.to_text();
    assert!(
        text.ends_with("Recipient: Yes, Friday works, bye\nRecipient: Thanks."),
        "{text}"
    );
    assert_eq!(told.lock().unwrap().last(), Some(&text));
    // The answer was dropped unfinished: nobody was there to hear it.
    assert_eq!(mind.finished.load(std::sync::atomic::Ordering::SeqCst), 0);
    assert_eq!(mind.dropped.load(std::sync::atomic::Ordering::SeqCst), 1);
}
