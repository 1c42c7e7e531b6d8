//! Unit tests of the conversation engine with scripted minds.

use super::*;
use crate::agent::mind::{Decision, MindError, ScriptedMind};
use crate::domain::{FieldDefinition, FieldType};
use crate::transcript::Turn;
use async_trait::async_trait;
use std::sync::Mutex;

fn brief() -> Brief {
    let mut brief = Brief::new("Confirm the delivery");
    brief.fields = vec![
        FieldDefinition::new("confirmed", FieldType::Boolean)
            .with_description("Whether the delivery is confirmed"),
        FieldDefinition::new("boxes", FieldType::Number),
    ];
    brief
}

/// A mind that says the next of its lines, word by word, and records what
/// history it was shown.
#[derive(Debug, Default)]
struct Lines {
    lines: Mutex<Vec<(String, Decision)>>,
    seen: Mutex<Vec<Vec<Turn>>>,
}

impl Lines {
    fn new(lines: &[(&str, Option<&str>)]) -> Arc<Self> {
        Arc::new(Self {
            lines: Mutex::new(
                lines
                    .iter()
                    .rev()
                    .map(|(text, end)| {
                        let decision = Decision {
                            end_call: end.map(str::to_owned),
                            ..Decision::default()
                        };
                        ((*text).to_owned(), decision)
                    })
                    .collect(),
            ),
            seen: Mutex::default(),
        })
    }
}

#[async_trait]
impl Mind for Lines {
    async fn next_turn(
        &self,
        _: &Brief,
        history: &[Turn],
        words: &mut dyn Words,
    ) -> Result<Decision, MindError> {
        self.seen.lock().unwrap().push(history.to_vec());
        let (text, decision) = self
            .lines
            .lock()
            .unwrap()
            .pop()
            .ok_or_else(|| MindError::new("out of lines"))?;
        for (i, word) in text.split(' ').enumerate() {
            words.say(&if i == 0 {
                word.to_owned()
            } else {
                format!(" {word}")
            });
        }
        Ok(decision)
    }
}

fn said(acts: &[Act]) -> String {
    acts.iter()
        .filter_map(|act| match act {
            Act::Say(text) => Some(text.as_str()),
            _ => None,
        })
        .collect()
}

#[tokio::test]
async fn the_greeting_comes_first_and_words_stream_before_the_end_of_turn() {
    let mind = Lines::new(&[("Is the delivery confirmed?", None)]);
    let mut conversation = Conversation::new(brief(), mind, AgentLimits::default());
    let mut acts = Vec::new();
    conversation.open(&mut acts);
    assert!(matches!(&acts[0], Act::Say(text) if text.contains("AI assistant")));
    assert_eq!(acts[1], Act::EndOfTurn);
    acts.clear();
    conversation
        .hear(Heard::Said("Hello?".into()), &mut acts)
        .await;
    assert_eq!(
        acts,
        [
            Act::Say("Is".into()),
            Act::Say(" the".into()),
            Act::Say(" delivery".into()),
            Act::Say(" confirmed?".into()),
            Act::EndOfTurn
        ]
    );
    assert!(
        conversation
            .transcript()
            .to_text()
            .ends_with("Recipient: Hello?\nAgent: Is the delivery confirmed?")
    );
}

#[tokio::test]
async fn end_call_hangs_up_only_after_the_goodbye() {
    let mind = Lines::new(&[("Great, thanks. Goodbye.", Some("objective_met"))]);
    let mut conversation = Conversation::new(brief(), mind, AgentLimits::default());
    let mut acts = Vec::new();
    conversation.open(&mut acts);
    acts.clear();
    conversation
        .hear(Heard::Said("Yes, confirmed.".into()), &mut acts)
        .await;
    assert_eq!(said(&acts), "Great, thanks. Goodbye.");
    let n = acts.len();
    assert_eq!(acts[n - 2], Act::EndOfTurn);
    assert_eq!(
        acts[n - 1],
        Act::Hangup {
            reason: "objective_met".into()
        }
    );
    assert!(conversation.is_over());
    acts.clear();
    conversation
        .hear(Heard::Said("Wait!".into()), &mut acts)
        .await;
    assert!(acts.is_empty(), "nothing after the hang-up");
}

#[tokio::test]
async fn barge_in_cuts_the_turn_to_what_was_heard_in_history_and_transcript() {
    let mind = Lines::new(&[
        ("Could you confirm the delivery for Friday at three?", None),
        ("Of course, I'll wait.", None),
    ]);
    let mut conversation = Conversation::new(brief(), mind.clone(), AgentLimits::default());
    let mut acts = Vec::new();
    conversation.open(&mut acts);
    // The greeting cannot be interrupted: it stays whole.
    conversation
        .hear(
            Heard::Interrupted {
                heard: "Hello, this".into(),
            },
            &mut acts,
        )
        .await;
    assert!(conversation.history()[0].text.contains("AI assistant"));
    conversation
        .hear(Heard::Said("Hi.".into()), &mut acts)
        .await;
    conversation
        .hear(
            Heard::Interrupted {
                heard: "Could you confirm".into(),
            },
            &mut acts,
        )
        .await;
    conversation
        .hear(Heard::Said("Hold on a second.".into()), &mut acts)
        .await;
    let transcript = conversation.transcript().to_text();
    assert!(
        transcript.contains("Agent: Could you confirm…\nRecipient: Hold on a second."),
        "{transcript}"
    );
    assert!(!transcript.contains("Friday"));
    let seen = mind.seen.lock().unwrap();
    let last = seen.last().unwrap();
    assert!(last.iter().any(|t| t.text == "Could you confirm…"));
    assert!(
        !last.iter().any(|t| t.text.contains("Friday")),
        "the model sees what was heard"
    );
}

#[tokio::test]
async fn silence_asks_once_then_ends_politely() {
    let mind = Lines::new(&[]);
    let mut conversation = Conversation::new(brief(), mind, AgentLimits::default());
    let mut acts = Vec::new();
    conversation.open(&mut acts);
    acts.clear();
    conversation.hear(Heard::Silence, &mut acts).await;
    assert_eq!(acts, [Act::Say(STILL_THERE.into()), Act::EndOfTurn]);
    acts.clear();
    conversation.hear(Heard::Silence, &mut acts).await;
    assert_eq!(
        acts,
        [
            Act::Say(SILENT_GOODBYE.into()),
            Act::EndOfTurn,
            Act::Hangup {
                reason: "silence".into()
            }
        ]
    );
}

#[tokio::test]
async fn speech_between_silences_resets_the_count() {
    let mind = Lines::new(&[("Thanks.", None)]);
    let mut conversation = Conversation::new(brief(), mind, AgentLimits::default());
    let mut acts = Vec::new();
    conversation.open(&mut acts);
    conversation.hear(Heard::Silence, &mut acts).await;
    conversation
        .hear(Heard::Said("Yes, I'm here.".into()), &mut acts)
        .await;
    acts.clear();
    conversation.hear(Heard::Silence, &mut acts).await;
    assert_eq!(acts, [Act::Say(STILL_THERE.into()), Act::EndOfTurn]);
}

#[tokio::test]
async fn a_failing_mind_apologises_and_ends_never_hangs() {
    let mind = Lines::new(&[]);
    let mut conversation = Conversation::new(brief(), mind, AgentLimits::default());
    let mut acts = Vec::new();
    conversation.open(&mut acts);
    acts.clear();
    conversation
        .hear(Heard::Said("Hello?".into()), &mut acts)
        .await;
    assert_eq!(
        acts,
        [
            Act::Say(ERROR_GOODBYE.into()),
            Act::EndOfTurn,
            Act::Hangup {
                reason: "agent_error".into()
            }
        ]
    );
}

/// A mind that says a few words and then never finishes.
#[derive(Debug)]
struct Stalls;

#[async_trait]
impl Mind for Stalls {
    async fn next_turn(
        &self,
        _: &Brief,
        _: &[Turn],
        words: &mut dyn Words,
    ) -> Result<Decision, MindError> {
        words.say("Let me");
        std::future::pending().await
    }
}

#[tokio::test(start_paused = true)]
async fn a_mind_that_stalls_times_out_and_what_it_said_stays_said() {
    let limits = AgentLimits {
        turn_timeout: Duration::from_secs(5),
        ..AgentLimits::default()
    };
    let mut conversation = Conversation::new(brief(), Arc::new(Stalls), limits);
    let mut acts = Vec::new();
    conversation.open(&mut acts);
    acts.clear();
    conversation
        .hear(Heard::Said("Hello?".into()), &mut acts)
        .await;
    assert_eq!(said(&acts), format!("Let me {ERROR_GOODBYE}"));
    assert_eq!(
        acts.last(),
        Some(&Act::Hangup {
            reason: "agent_error".into()
        })
    );
    assert!(
        conversation
            .transcript()
            .to_text()
            .ends_with(&format!("Agent: Let me {ERROR_GOODBYE}"))
    );
}

#[tokio::test]
async fn the_turn_cap_ends_the_call() {
    let limits = AgentLimits {
        max_turns: 2,
        ..AgentLimits::default()
    };
    let mind = Lines::new(&[("One?", None), ("Two?", None)]);
    let mut conversation = Conversation::new(brief(), mind, limits);
    let mut acts = Vec::new();
    conversation.open(&mut acts);
    conversation.hear(Heard::Said("a".into()), &mut acts).await;
    acts.clear();
    conversation.hear(Heard::Said("b".into()), &mut acts).await;
    assert_eq!(
        acts.last(),
        Some(&Act::Hangup {
            reason: "max_turns".into()
        })
    );
    assert!(said(&acts).contains(TURNS_GOODBYE));
}

#[tokio::test]
async fn wrap_up_and_digits_reach_the_mind_and_digits_the_transcript() {
    let mind = Lines::new(&[("Got it.", None), ("Goodbye.", Some("time_limit"))]);
    let mut conversation = Conversation::new(brief(), mind.clone(), AgentLimits::default());
    let mut acts = Vec::new();
    conversation.open(&mut acts);
    conversation
        .hear(Heard::Digits("5".into()), &mut acts)
        .await;
    conversation.wrap_up();
    conversation.hear(Heard::Said("ok".into()), &mut acts).await;
    assert!(
        conversation
            .transcript()
            .to_text()
            .contains("Recipient: [pressed 5]")
    );
    assert!(
        !conversation.transcript().to_text().contains("time limit"),
        "notes are not speech"
    );
    let seen = mind.seen.lock().unwrap();
    assert!(
        seen[1]
            .iter()
            .any(|t| t.speaker == Speaker::System && t.text.contains("end_call"))
    );
    assert_eq!(
        acts.last(),
        Some(&Act::Hangup {
            reason: "time_limit".into()
        })
    );
}

#[tokio::test]
async fn the_built_in_mind_asks_each_field_then_ends() {
    let mut conversation =
        Conversation::new(brief(), Arc::new(ScriptedMind), AgentLimits::default());
    let mut acts = Vec::new();
    conversation.open(&mut acts);
    for answer in ["Hello?", "Yes.", "Three."] {
        conversation
            .hear(Heard::Said(answer.into()), &mut acts)
            .await;
    }
    let transcript = conversation.transcript().to_text();
    let lines: Vec<&str> = transcript.lines().collect();
    assert_eq!(lines.len(), 7, "{transcript}");
    assert_eq!(
        lines[2],
        "Agent: Could you tell me whether the delivery is confirmed?"
    );
    assert_eq!(
        lines[4],
        "Agent: Could you tell me the boxes? What number should I note?"
    );
    assert!(lines[6].ends_with("Goodbye."));
    assert_eq!(
        acts.last(),
        Some(&Act::Hangup {
            reason: "objective_met".into()
        })
    );
}

#[tokio::test]
async fn a_turn_with_line_breaks_stays_one_transcript_line() {
    let mut conversation = Conversation::new(
        Brief::new("Confirm the delivery."),
        Lines::new(&[("First line.\nSecond  line.\r\n", None)]),
        AgentLimits::default(),
    );
    let mut acts = Vec::new();
    conversation.open(&mut acts);
    conversation
        .hear(Heard::Said("Sure,\ngo ahead.".into()), &mut acts)
        .await;
    let lines: Vec<String> = conversation
        .transcript()
        .to_text()
        .lines()
        .map(str::to_owned)
        .collect();
    assert_eq!(lines.len(), 3, "{lines:?}");
    assert_eq!(lines[1], "Recipient: Sure, go ahead.");
    assert_eq!(lines[2], "Agent: First line. Second line.");
}
