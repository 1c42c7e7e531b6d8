//! Real calls over Twilio (feature `twilio`): the REST client that creates
//! and ends calls, the TwiML that connects an answered call to a
//! ConversationRelay WebSocket, `X-Twilio-Signature` checks for every
//! request Twilio sends us, the [`TwilioCarrier`] carrier and the
//! [`TwilioCallbacks`] that apply what Twilio reports.

mod callbacks;
mod carrier;
pub mod rest;
pub mod signature;
pub mod twiml;

pub use callbacks::TwilioCallbacks;
pub use carrier::{CALLBACK_RETRIES, TwilioCarrier, TwilioConfig, paths};
