//! The conversation engine: what the recipient said in, what the agent does
//! out, independent of any carrier.
//!
//! A carrier drives a [`Conversation`]: it calls [`Conversation::open`] once
//! the call is answered, then [`Conversation::hear`] with each [`Heard`]
//! event, and carries out the [`Act`]s it is handed, in order. Words come
//! out piece by piece as the [`Mind`] produces them, so the carrier can start
//! speaking at once; [`Act::Hangup`] always comes after the words it follows,
//! and the carrier hangs up only once they have been spoken.

use std::sync::Arc;
use std::time::Duration;

use super::instructions::Brief;
use super::mind::{Mind, Words};
use crate::transcript::{Speaker, Transcript, Turn};

/// What the carrier heard on the call.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Heard {
    /// The recipient finished saying something.
    Said(String),
    /// The recipient spoke over the agent, having heard only `heard` of the
    /// agent's last turn (what the carrier had played). What they said
    /// follows as [`Heard::Said`].
    Interrupted {
        /// The part of the agent's turn that was spoken before the
        /// interruption.
        heard: String,
    },
    /// The recipient pressed keys.
    Digits(String),
    /// Nobody said anything for the silence timeout.
    Silence,
}

/// What the agent does on the call.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Act {
    /// The next piece of the agent's turn, to speak as it arrives.
    Say(String),
    /// The agent's turn is complete.
    EndOfTurn,
    /// Press keys (DTMF).
    SendDigits(String),
    /// End the call once everything said before has been spoken.
    Hangup {
        /// Why (`objective_met`, `silence`, `max_turns`, `agent_error`, or
        /// the model's own words).
        reason: String,
    },
}

/// Where a conversation's acts go.
pub trait Acts: Send {
    /// Carry out (or queue) one act.
    fn act(&mut self, act: Act);
}

impl Acts for Vec<Act> {
    fn act(&mut self, act: Act) {
        self.push(act);
    }
}

impl Acts for tokio::sync::mpsc::UnboundedSender<Act> {
    fn act(&mut self, act: Act) {
        // A carrier that went away no longer needs the acts.
        let _ = self.send(act);
    }
}

/// What the agent does when a call reaches a voicemail.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum VoicemailPolicy {
    /// Leave a short message (the greeting and a request to call back).
    #[default]
    LeaveMessage,
    /// Hang up without a word.
    HangUp,
}

/// Limits of a conversation.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub struct AgentLimits {
    /// Most turns the agent takes (the greeting included) before it says
    /// goodbye (default 30).
    pub max_turns: u32,
    /// How long the agent waits for the mind's turn (default 15 s); a
    /// slower mind counts as failed.
    pub turn_timeout: Duration,
    /// How long before the call's hard limit the agent is told to close
    /// (default 20 s; see [`Conversation::wrap_up`]).
    pub wrap_up_before: Duration,
    /// How long a silence lasts before the carrier reports
    /// [`Heard::Silence`] (default 10 s; the carrier keeps the clock).
    pub silence_timeout: Duration,
    /// Most bytes the mind may say in one turn (default 2,000, about two
    /// minutes of speech; at least 1): the rest of a longer turn is neither
    /// spoken nor kept, cut at a word boundary where there is one.
    pub max_turn_bytes: usize,
}

impl Default for AgentLimits {
    fn default() -> Self {
        Self {
            max_turns: 30,
            turn_timeout: Duration::from_secs(15),
            wrap_up_before: Duration::from_secs(20),
            silence_timeout: Duration::from_secs(10),
            max_turn_bytes: 2_000,
        }
    }
}

impl AgentLimits {
    /// Sets [`AgentLimits::max_turns`].
    pub fn with_max_turns(mut self, turns: u32) -> Self {
        self.max_turns = turns;
        self
    }

    /// Sets [`AgentLimits::turn_timeout`].
    pub fn with_turn_timeout(mut self, timeout: Duration) -> Self {
        self.turn_timeout = timeout;
        self
    }

    /// Sets [`AgentLimits::wrap_up_before`].
    pub fn with_wrap_up_before(mut self, before: Duration) -> Self {
        self.wrap_up_before = before;
        self
    }

    /// Sets [`AgentLimits::max_turn_bytes`].
    pub fn with_max_turn_bytes(mut self, bytes: usize) -> Self {
        self.max_turn_bytes = bytes.max(1);
        self
    }

    /// Sets [`AgentLimits::silence_timeout`].
    pub fn with_silence_timeout(mut self, timeout: Duration) -> Self {
        self.silence_timeout = timeout;
        self
    }
}

/// About how long saying `text` takes: 150 words a minute, and a short
/// pause before the turn. Carriers that are not told when speech ends (a
/// relay streams text to the carrier's speech synthesis) time silences and
/// goodbyes from it.
pub fn speaking_time(text: &str) -> Duration {
    let words = text.split_whitespace().count() as u64;
    Duration::from_millis(600 + 400 * words)
}

/// Said after the first silence.
pub const STILL_THERE: &str = "Are you still there?";
/// Said after the second silence in a row, before hanging up.
pub const SILENT_GOODBYE: &str = "It seems I've lost you, so I'll let you go. Goodbye.";
/// Said when the turn limit is reached, before hanging up.
pub const TURNS_GOODBYE: &str = "Thank you for your time. I need to end the call here. Goodbye.";
/// Said when the mind ends the call without a word of goodbye.
pub const PLAIN_GOODBYE: &str = "Thank you for your time. Goodbye.";
/// Said when the mind fails mid-call, before hanging up.
pub const ERROR_GOODBYE: &str =
    "I'm sorry, I'm having trouble on my end, so I'll end the call here. Goodbye.";
/// The note that tells the mind to close the call.
pub(crate) const WRAP_UP_NOTE: &str = "The call is about to reach its time limit: say a short goodbye now and call end_call with the reason \"time_limit\".";

/// One call's conversation; see the [module docs](self).
#[derive(Debug)]
pub struct Conversation {
    brief: Brief,
    mind: Arc<dyn Mind>,
    limits: AgentLimits,
    history: Vec<Turn>,
    agent_turns: u32,
    silences: u32,
    over: bool,
}

impl Conversation {
    /// A conversation about `brief`, decided by `mind`.
    pub fn new(brief: Brief, mind: Arc<dyn Mind>, limits: AgentLimits) -> Self {
        Self {
            brief,
            mind,
            limits,
            history: Vec::new(),
            agent_turns: 0,
            silences: 0,
            over: false,
        }
    }

    /// The greeting, the agent's first turn: it says it is an AI, for whom
    /// it calls and why. It cannot be interrupted.
    pub fn open(&mut self, acts: &mut dyn Acts) {
        let greeting = self.brief.greeting();
        self.speak_whole(&greeting, acts);
    }

    /// The call reached a voicemail (the carrier's answering-machine
    /// detection): the agent leaves a short message after the beep, or
    /// hangs up at once, as `policy` says.
    pub fn voicemail(&mut self, policy: VoicemailPolicy, acts: &mut dyn Acts) {
        if self.over {
            return;
        }
        self.history
            .push(Turn::new(Speaker::Recipient, "[voicemail greeting]"));
        if policy == VoicemailPolicy::LeaveMessage {
            let message = format!(
                "{} Please call us back when you can. Goodbye.",
                self.brief.greeting()
            );
            self.speak_whole(&message, acts);
        }
        self.over = true;
        acts.act(Act::Hangup {
            reason: "voicemail".into(),
        });
    }

    /// Reacts to what the carrier heard: [`Conversation::take_in`], then
    /// [`Conversation::answer`] when an answer is due. Once the
    /// conversation is over (after an [`Act::Hangup`]) nothing more
    /// happens.
    pub async fn hear(&mut self, heard: Heard, acts: &mut dyn Acts) {
        if self.take_in(heard, acts) {
            self.answer(acts).await;
        }
    }

    /// Takes in what the carrier heard without asking the mind yet, so a
    /// carrier can keep what was heard (in its store, say) before the
    /// mind's turn, which may take up to [`AgentLimits::turn_timeout`] and
    /// may never finish if the recipient hangs up. What needs no mind (a
    /// silence's prompt or goodbye) is done at once. Returns whether the
    /// mind is to answer now ([`Conversation::answer`]).
    pub fn take_in(&mut self, heard: Heard, acts: &mut dyn Acts) -> bool {
        if self.over {
            return false;
        }
        match heard {
            Heard::Interrupted { heard } => {
                // The recipient is speaking: no silence run goes on.
                self.silences = 0;
                self.cut_last_agent_turn(&heard);
                false
            }
            Heard::Said(text) => {
                self.silences = 0;
                let text = text.trim();
                if text.is_empty() {
                    return false;
                }
                self.history.push(Turn::new(Speaker::Recipient, text));
                true
            }
            Heard::Digits(digits) => {
                self.silences = 0;
                self.history.push(Turn::keys(digits));
                true
            }
            Heard::Silence => {
                self.silences += 1;
                if self.silences == 1 {
                    self.speak_whole(STILL_THERE, acts);
                } else {
                    self.end_with(SILENT_GOODBYE, "silence", acts);
                }
                false
            }
        }
    }

    /// The agent's answer to what was taken in, from the mind. Dropping
    /// the future before it completes (the line went dead) cancels the
    /// mind's turn and leaves the history as taken in, without the
    /// unfinished turn.
    pub async fn answer(&mut self, acts: &mut dyn Acts) {
        if !self.over {
            self.respond(acts).await;
        }
    }

    /// Tells the mind to close the call at its next turn (the carrier calls
    /// this [`AgentLimits::wrap_up_before`] before the call's limit; the
    /// limit itself is the carrier's hard stop).
    pub fn wrap_up(&mut self) {
        if !self.over {
            self.history.push(Turn::new(Speaker::System, WRAP_UP_NOTE));
        }
    }

    /// Whether the agent has hung up.
    pub fn is_over(&self) -> bool {
        self.over
    }

    /// The conversation so far.
    pub fn history(&self) -> &[Turn] {
        &self.history
    }

    /// The conversation as it was said and heard, with the notes given to
    /// the mind ([`Speaker::System`] turns, not part of the text form).
    pub fn transcript(&self) -> Transcript {
        self.history.iter().cloned().collect()
    }

    /// The agent's next turn, from the mind.
    async fn respond(&mut self, acts: &mut dyn Acts) {
        if self.agent_turns >= self.limits.max_turns {
            self.end_with(TURNS_GOODBYE, "max_turns", acts);
            return;
        }
        let mut words = Spoken {
            acts: &mut *acts,
            text: String::new(),
            room: self.limits.max_turn_bytes.max(1),
        };
        let decided = tokio::time::timeout(
            self.limits.turn_timeout,
            self.mind.next_turn(&self.brief, &self.history, &mut words),
        )
        .await;
        let mut said = words.text.trim().to_owned();
        match decided {
            Ok(Ok(decision)) => {
                if said.is_empty() && decision.end_call.is_some() {
                    // Never a silent hang-up: a goodbye first.
                    said = PLAIN_GOODBYE.to_owned();
                    acts.act(Act::Say(said.clone()));
                }
                acts.act(Act::EndOfTurn);
                self.agent_turns += 1;
                self.history.push(Turn::new(Speaker::Agent, said));
                if let Some(digits) = decision.digits.filter(|d| !d.is_empty()) {
                    acts.act(Act::SendDigits(digits));
                }
                if let Some(reason) = decision.end_call {
                    self.over = true;
                    acts.act(Act::Hangup { reason });
                }
            }
            Ok(Err(error)) => {
                tracing::warn!(%error, "the agent's mind failed; ending the call");
                self.fail(said, acts);
            }
            Err(_) => {
                tracing::warn!(timeout = ?self.limits.turn_timeout, "the agent's mind timed out; ending the call");
                self.fail(said, acts);
            }
        }
    }

    /// Ends after a failed turn: what was already said stays said, then the
    /// apology.
    fn fail(&mut self, said: String, acts: &mut dyn Acts) {
        let text = if said.is_empty() {
            ERROR_GOODBYE.to_owned()
        } else {
            acts.act(Act::Say(format!(" {ERROR_GOODBYE}")));
            format!("{said} {ERROR_GOODBYE}")
        };
        if said.is_empty() {
            acts.act(Act::Say(text.clone()));
        }
        acts.act(Act::EndOfTurn);
        self.agent_turns += 1;
        self.history.push(Turn::new(Speaker::Agent, text));
        self.over = true;
        acts.act(Act::Hangup {
            reason: "agent_error".into(),
        });
    }

    /// Says a whole turn of the engine's own.
    fn speak_whole(&mut self, text: &str, acts: &mut dyn Acts) {
        acts.act(Act::Say(text.to_owned()));
        acts.act(Act::EndOfTurn);
        self.agent_turns += 1;
        self.history.push(Turn::new(Speaker::Agent, text));
    }

    /// Says a goodbye of the engine's own and hangs up.
    fn end_with(&mut self, goodbye: &str, reason: &str, acts: &mut dyn Acts) {
        self.speak_whole(goodbye, acts);
        self.over = true;
        acts.act(Act::Hangup {
            reason: reason.into(),
        });
    }

    /// Barge-in: the agent's last turn becomes what the recipient heard of
    /// it, in the history the mind sees and in the transcript. The greeting
    /// cannot be interrupted, so it stays whole.
    fn cut_last_agent_turn(&mut self, heard: &str) {
        let Some(last) = self
            .history
            .iter()
            .rposition(|turn| turn.speaker == Speaker::Agent)
        else {
            return;
        };
        let is_greeting = !self.history[..last]
            .iter()
            .any(|turn| turn.speaker == Speaker::Agent);
        if is_greeting {
            return;
        }
        let turn = &mut self.history[last];
        let heard = heard.trim();
        // Only ever shorter: a carrier's count of what played cannot add words.
        if heard.len() < turn.text.len() {
            turn.text = match turn.text.get(..heard.len()) {
                Some(prefix) if prefix == heard => prefix.to_owned(),
                _ => heard.to_owned(),
            };
            if !turn.text.is_empty() {
                turn.text.push('…');
            }
            turn.interrupted = true;
        }
    }
}

/// The mind's words, forwarded as they come and kept for the history, up
/// to the turn's room ([`AgentLimits::max_turn_bytes`]).
struct Spoken<'a> {
    acts: &'a mut dyn Acts,
    text: String,
    /// Bytes the turn may still say.
    room: usize,
}

impl Words for Spoken<'_> {
    fn say(&mut self, text: &str) {
        if text.is_empty() || self.room == 0 {
            return;
        }
        let text = if text.len() <= self.room {
            self.room -= text.len();
            text
        } else {
            let mut end = self.room;
            while !text.is_char_boundary(end) {
                end -= 1;
            }
            let cut = &text[..end];
            // Not in the middle of a word, when the piece has a break.
            let mid_word = !text[end..].starts_with(char::is_whitespace);
            let cut = match cut.rfind(char::is_whitespace) {
                _ if !mid_word => cut,
                Some(space) => &cut[..space],
                // The piece is all one word: dropped if the word starts in
                // it (what was already said cannot be taken back).
                None if self.text.is_empty() || self.text.ends_with(char::is_whitespace) => "",
                None => cut,
            };
            self.room = 0;
            tracing::warn!("the mind's turn is longer than allowed; the rest is not spoken");
            cut
        };
        if text.is_empty() {
            return;
        }
        self.text.push_str(text);
        self.acts.act(Act::Say(text.to_owned()));
    }
}

#[cfg(test)]
mod tests;
