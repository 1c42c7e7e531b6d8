//! ConversationRelay: the carrier-neutral text protocol over one WebSocket
//! per call (Twilio's ConversationRelay; Telnyx speaks the same), in which
//! the carrier does speech-to-text and text-to-speech and we exchange only
//! JSON text frames with it.

mod messages;
mod session;

pub use messages::{Inbound, Outbound};
pub use session::{KEEP_TIMEOUT, OnTurn, RelayError, SessionEnd, SessionPlan, Setup, run_session};
