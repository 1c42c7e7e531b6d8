//! [`Agent`]: how a carrier's calls are conducted (the mind, the limits,
//! the greeting, what to do at a voicemail), shared by every call.

use std::sync::Arc;

use super::conversation::{AgentLimits, Conversation, VoicemailPolicy};
use super::instructions::Brief;
use super::mind::{Mind, ScriptedMind};
use crate::carrier::DialRequest;
use crate::transcript::Transcript;

/// A configured greeting that does not say the caller is an AI.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("the greeting must say that the caller is an AI (e.g. \"this is an AI assistant\")")]
pub struct GreetingError;

/// How calls are conducted; cheap to clone. The default converses with the
/// built-in [`ScriptedMind`].
#[derive(Debug, Clone)]
pub struct Agent {
    mind: Arc<dyn Mind>,
    limits: AgentLimits,
    greeting: Option<String>,
    voicemail: VoicemailPolicy,
}

impl Default for Agent {
    fn default() -> Self {
        Self::new(Arc::new(ScriptedMind))
    }
}

impl Agent {
    /// An agent decided by `mind`, with the default limits, greeting and
    /// voicemail policy.
    pub fn new(mind: Arc<dyn Mind>) -> Self {
        Self {
            mind,
            limits: AgentLimits::default(),
            greeting: None,
            voicemail: VoicemailPolicy::default(),
        }
    }

    /// The same agent, decided by `mind`.
    pub fn with_mind(mut self, mind: Arc<dyn Mind>) -> Self {
        self.mind = mind;
        self
    }

    /// Sets the limits (turns, silence, wrap-up, the mind's time per turn).
    pub fn with_limits(mut self, limits: AgentLimits) -> Self {
        self.limits = limits;
        self
    }

    /// Sets the greeting's opening (see [`Brief::greeting`]). It must say
    /// that the caller is an AI: the word "AI" or "artificial".
    pub fn with_greeting(mut self, opening: impl Into<String>) -> Result<Self, GreetingError> {
        let opening = opening.into();
        let says_ai = opening
            .split(|c: char| !c.is_alphanumeric())
            .any(|word| word == "AI" || word.eq_ignore_ascii_case("artificial"));
        if !says_ai {
            return Err(GreetingError);
        }
        self.greeting = Some(opening);
        Ok(self)
    }

    /// Sets what the agent does at a voicemail.
    pub fn with_voicemail(mut self, policy: VoicemailPolicy) -> Self {
        self.voicemail = policy;
        self
    }

    /// The limits.
    pub fn limits(&self) -> AgentLimits {
        self.limits
    }

    /// What the agent does at a voicemail.
    pub fn voicemail(&self) -> VoicemailPolicy {
        self.voicemail
    }

    /// A fresh conversation for a call.
    pub fn converse(&self, request: &DialRequest) -> Conversation {
        Conversation::new(self.brief(request), Arc::clone(&self.mind), self.limits)
    }

    /// The greeting a call opens with (a carrier that speaks it itself,
    /// like ConversationRelay's `welcomeGreeting`, needs it before the call).
    pub fn greeting(&self, request: &DialRequest) -> String {
        self.brief(request).greeting()
    }

    /// What the agent does at a voicemail, as the conversation engine
    /// does it ([`Conversation::voicemail`] under this agent's
    /// [`VoicemailPolicy`]): the message to leave (`None` when it hangs up
    /// without one) and the call's transcript.
    pub fn leave_voicemail(&self, request: &DialRequest) -> (Option<String>, Transcript) {
        let mut conversation = self.converse(request);
        let mut acts = Vec::new();
        conversation.voicemail(self.voicemail, &mut acts);
        let message: String = acts
            .into_iter()
            .filter_map(|act| match act {
                super::Act::Say(text) => Some(text),
                _ => None,
            })
            .collect();
        let message = (!message.is_empty()).then_some(message);
        (message, conversation.transcript())
    }

    fn brief(&self, request: &DialRequest) -> Brief {
        let mut brief = Brief::new(request.objective.clone());
        brief.context = request.context.clone();
        brief.fields = request.fields.clone();
        brief.greeting = self.greeting.clone();
        brief
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_greeting_must_say_it_is_an_ai() {
        assert_eq!(
            Agent::default()
                .with_greeting("Hi, it's Sam from Acme")
                .err(),
            Some(GreetingError)
        );
        assert!(
            Agent::default()
                .with_greeting("Hi, Acme's AI assistant here")
                .is_ok()
        );
        assert!(
            Agent::default()
                .with_greeting("an artificial voice")
                .is_ok()
        );
        assert!(
            Agent::default().with_greeting("Said by the maid").is_err(),
            "not a word match"
        );
    }
}
