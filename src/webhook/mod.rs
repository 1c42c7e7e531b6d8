//! Signed webhook events (spec 5.2 and 6): the payload, signatures, delivery
//! with retries, and helpers for the receiving side.

pub mod delivery;
mod endpoints;
mod event;
pub mod receiver;
pub mod signature;

pub use delivery::{DEFAULT_RETRY_SCHEDULE, DeliveryConfig};
pub use event::{EventPayload, event_id};
pub use receiver::{Claim, Deduplicator, SharedDeduplicator, order_by_timestamp};
pub use signature::{SIGNATURE_HEADER, Signer, Verifier, VerifyError};
