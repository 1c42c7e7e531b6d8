//! What decides the agent's next turn: a [`Mind`]. The built-in
//! [`ScriptedMind`] asks about each field in turn and needs no model; an
//! LLM-backed mind streams a model's words.

use std::fmt::Debug;

use async_trait::async_trait;

use super::conversation::{STILL_THERE, WRAP_UP_NOTE};
use super::instructions::{Brief, field_question};
use crate::transcript::{Speaker, Turn};

/// What a mind decided besides its words.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Decision {
    /// End the call after the words are spoken, with this reason.
    pub end_call: Option<String>,
    /// Keys to press (DTMF), after the words.
    pub digits: Option<String>,
}

crate::reason_error::reason_error! {
    /// Why a mind could not produce a turn: the agent apologises and ends the
    /// call.
    MindError, ""
}

/// Where a mind's words go as it produces them.
pub trait Words: Send {
    /// The next piece of the agent's turn.
    fn say(&mut self, text: &str);
}

/// Decides the agent's next turn.
///
/// # Contract
///
/// - `next_turn` streams the turn's words through `words` as they are
///   produced (the first word should not wait for the last) and returns what
///   else the agent does. It is given the whole conversation so far; the
///   last line is what prompted the turn.
/// - Recipient lines are data from the call, never instructions.
/// - An error ends the call politely; words already streamed stay said.
#[async_trait]
pub trait Mind: Send + Sync + Debug {
    /// The agent's next turn; see the contract.
    async fn next_turn(
        &self,
        brief: &Brief,
        history: &[Turn],
        words: &mut dyn Words,
    ) -> Result<Decision, MindError>;
}

/// The field the scripted mind asks about next: one per question asked
/// after the greeting, except that a question answered with a question is
/// asked once more.
fn next_field(history: &[Turn]) -> usize {
    let spoken: Vec<&Turn> = history
        .iter()
        .filter(|turn| turn.speaker != Speaker::System)
        .collect();
    let mut field = 0;
    let mut repeating = false;
    let mut agent_turns = 0;
    for (index, turn) in spoken.iter().enumerate() {
        if turn.speaker != Speaker::Agent {
            continue;
        }
        agent_turns += 1;
        if agent_turns == 1 || turn.text == STILL_THERE {
            continue; // the greeting, or the engine's own check on a silence
        }
        // The reply is what the recipient said before the agent spoke again:
        // none (a silence the engine asked about) or a question back means
        // the question was not answered, and it is asked once more.
        let reply = spoken[index + 1..]
            .iter()
            .take_while(|t| t.speaker != Speaker::Agent)
            .find(|t| t.speaker == Speaker::Recipient);
        let unanswered = reply.is_none_or(|r| r.text.trim_end().ends_with('?'));
        if unanswered && !repeating {
            repeating = true;
        } else {
            field += 1;
            repeating = false;
        }
    }
    field
}

/// The built-in policy, with no model: after the greeting it asks about
/// each field in turn, one question per turn; when the recipient answers a
/// question with a question of their own ("sorry, could you repeat that?")
/// or with a silence, it asks once more; then it thanks the recipient and
/// ends the call as `objective_met`. Told to wrap up (the call nears its
/// limit), it says goodbye and ends the call as `time_limit`. Deterministic.
#[derive(Debug, Clone, Copy, Default)]
pub struct ScriptedMind;

#[async_trait]
impl Mind for ScriptedMind {
    async fn next_turn(
        &self,
        brief: &Brief,
        history: &[Turn],
        words: &mut dyn Words,
    ) -> Result<Decision, MindError> {
        let told_to_close = history
            .iter()
            .any(|turn| turn.speaker == Speaker::System && turn.text == WRAP_UP_NOTE);
        if told_to_close {
            words.say("I'm afraid we're out of time, so I'll let you go. Thank you, goodbye.");
            return Ok(Decision {
                end_call: Some("time_limit".into()),
                ..Decision::default()
            });
        }
        match brief.fields.get(next_field(history)) {
            Some(field) => {
                words.say(&field_question(field));
                Ok(Decision::default())
            }
            None => {
                words.say("Thank you, that's everything I needed. Have a great day. Goodbye.");
                Ok(Decision {
                    end_call: Some("objective_met".into()),
                    ..Decision::default()
                })
            }
        }
    }
}
