//! The agent: the AI that speaks on a call and works toward its objective,
//! independent of any carrier and any model.
//!
//! - [`Conversation`]: the engine. A carrier feeds it what it heard
//!   ([`Heard`]: an utterance, an interruption, keys, a silence) and
//!   carries out what it does ([`Act`]: words as they are produced, end of
//!   turn, keys, hang up); it keeps the [`Transcript`](crate::Transcript).
//! - [`Mind`]: what decides each turn. [`ScriptedMind`] asks about each
//!   field in turn and needs no model; [`llm::LlmMind`] (feature `llm`)
//!   streams an OpenAI-compatible model.
//! - [`Agent`]: the mind with its limits, greeting and voicemail policy, set
//!   on the service's builder ([`AgentCallBuilder::agent`](crate::AgentCallBuilder::agent))
//!   and handed to carriers through their link.
//! - [`instructions`]: the greeting and the system instructions built from
//!   the placement ([`Brief`]); [`sse`] and [`completion`]: reading a
//!   model's streamed answer.

pub mod completion;
pub mod conversation;
pub mod instructions;
#[cfg(feature = "llm")]
#[cfg_attr(docsrs, doc(cfg(feature = "llm")))]
pub mod llm;
pub mod mind;
mod setup;
pub mod sse;

pub use conversation::{
    Act, Acts, AgentLimits, Conversation, Heard, VoicemailPolicy, speaking_time,
};
pub use instructions::Brief;
pub use mind::{Decision, Mind, MindError, ScriptedMind, Words};
pub use setup::{Agent, GreetingError};
