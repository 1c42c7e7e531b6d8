//! The agent: the AI that speaks on a call and works toward its objective.
//!
//! Work in progress (issue 13). What exists so far is carrier- and
//! model-independent groundwork:
//!
//! - [`instructions`]: the greeting and the system instructions built from
//!   the placement ([`Brief`]);
//! - [`sse`]: an incremental server-sent-events decoder, as
//!   OpenAI-compatible servers stream completions;
//! - [`completion`]: the reassembly of streamed chat-completion chunks
//!   (text deltas, tool calls by index).
//!
//! The conversation engine that turns what the recipient said into what the
//! agent says next, and its wiring into the carriers, come next.

pub mod completion;
pub mod conversation;
pub mod instructions;
#[cfg(feature = "llm")]
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
