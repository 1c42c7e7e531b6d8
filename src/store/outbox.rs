//! The webhook outbox: events waiting for delivery, and what happened to them.

use std::fmt::Debug;

use async_trait::async_trait;
use bytes::Bytes;
use chrono::{DateTime, Utc};

use super::StoreError;
use crate::domain::{AccountId, CallId, EventKind};

/// An event to deliver, as a status change emits it. The body is final: every
/// attempt sends these bytes, byte for byte.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct NewEvent {
    /// `<callId>:<event>:<epoch ms>`; the same on every attempt.
    pub event_id: String,
    /// The call the event is about.
    pub call_id: CallId,
    /// The account whose secret signs it.
    pub account_id: AccountId,
    /// Which event.
    pub kind: EventKind,
    /// Where it goes.
    pub url: String,
    /// The JSON payload, serialized once.
    pub body: Bytes,
    /// When it was built.
    pub created_at: DateTime<Utc>,
    /// When its first attempt is due.
    pub first_attempt_at: DateTime<Utc>,
}

impl NewEvent {
    /// An event built at `created_at`, its first attempt due at once.
    pub fn new(
        event_id: impl Into<String>,
        call_id: CallId,
        account_id: AccountId,
        kind: EventKind,
        url: impl Into<String>,
        body: Bytes,
        created_at: DateTime<Utc>,
    ) -> Self {
        Self {
            event_id: event_id.into(),
            call_id,
            account_id,
            kind,
            url: url.into(),
            body,
            created_at,
            first_attempt_at: created_at,
        }
    }
}

/// Where an event's delivery stands.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum DeliveryStatus {
    /// Not yet delivered; another attempt is scheduled.
    Pending,
    /// A 2xx answer was received.
    Delivered,
    /// Every scheduled attempt failed.
    GaveUp,
}

/// What the host can see of one event's delivery.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct DeliveryState {
    /// The event.
    pub event_id: String,
    /// Its call.
    pub call_id: CallId,
    /// Its kind.
    pub kind: EventKind,
    /// Where it stands.
    pub status: DeliveryStatus,
    /// Attempts made so far.
    pub attempts: u32,
    /// HTTP status of the last answer, if one came.
    pub last_response_status: Option<u16>,
    /// Why the last attempt failed, if it did.
    pub last_error: Option<String>,
    /// When the next attempt is due (pending only).
    pub next_attempt_at: Option<DateTime<Utc>>,
    /// When it was delivered.
    pub delivered_at: Option<DateTime<Utc>>,
}

impl DeliveryState {
    /// The state of `event` after `attempts` attempts; the optional parts
    /// (last answer, next attempt, delivery time) start empty.
    pub fn new(event: &NewEvent, status: DeliveryStatus, attempts: u32) -> Self {
        Self {
            event_id: event.event_id.clone(),
            call_id: event.call_id.clone(),
            kind: event.kind,
            status,
            attempts,
            last_response_status: None,
            last_error: None,
            next_attempt_at: None,
            delivered_at: None,
        }
    }
}

/// Names one claim of an event: [`EventOutbox::claim_due`] hands out a new
/// one with every claim, and [`EventOutbox::record_attempt`] applies an
/// outcome only while the event's latest claim is still this one, so a
/// worker whose lease lapsed (and whose event was claimed again, by it or
/// another instance) cannot overwrite the newer claim's outcome.
///
/// A fencing token: it says which claim is current, nothing about time.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct ClaimToken(u64);

impl ClaimToken {
    /// A fresh random token (64 bits of a UUID v4): successive claims of one
    /// event get different tokens with overwhelming probability.
    pub fn generate() -> Self {
        Self(uuid::Uuid::new_v4().as_u64_pair().0)
    }

    /// The token with this value (as a store keeps it).
    pub fn from_u64(value: u64) -> Self {
        Self(value)
    }

    /// Its value.
    pub fn to_u64(self) -> u64 {
        self.0
    }
}

/// A claimed event, ready for an attempt.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct PendingDelivery {
    /// The event.
    pub event: NewEvent,
    /// Attempts made before this one.
    pub attempts: u32,
    /// This claim; the attempt's outcome is recorded under it.
    pub claim: ClaimToken,
}

impl PendingDelivery {
    /// `event`, claimed under `claim` after `attempts` earlier attempts.
    pub fn new(event: NewEvent, attempts: u32, claim: ClaimToken) -> Self {
        Self {
            event,
            attempts,
            claim,
        }
    }
}

/// Whether [`EventOutbox::record_attempt`] applied an outcome.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[must_use]
pub enum RecordedAttempt {
    /// The claim was the event's current one: the outcome is recorded and
    /// the claim is used up.
    Applied,
    /// The claim is no longer current (the event was claimed again or
    /// redelivered since, or an outcome was already recorded under it), or
    /// the event is unknown: nothing changed.
    Stale,
}

/// The result of one attempt.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum AttemptOutcome {
    /// The receiver answered 2xx.
    Delivered {
        /// Its status.
        status: u16,
    },
    /// The attempt failed.
    Failed {
        /// The receiver's status, when it answered.
        status: Option<u16>,
        /// What went wrong, for the host.
        error: String,
        /// When to try again; `None` gives up.
        retry_at: Option<DateTime<Utc>>,
    },
    /// No attempt was made: the worker handed the claim back (the event's
    /// endpoint was at its cap or its breaker was open). Nothing about the
    /// event's delivery changes but when it is next due.
    Postponed {
        /// When the event is due again.
        retry_at: DateTime<Utc>,
    },
}

/// Durable queue of webhook events.
///
/// # Contract
///
/// - Events enter through [`CallStore::update`](super::CallStore::update),
///   atomically with the status change that emits them, due at their
///   `first_attempt_at`. An event id already present is ignored.
/// - `claim_due` returns up to `limit` pending events due at `now`, pushes
///   each one's next attempt to `now + lease`, so an event whose worker dies
///   is handed out again after the lease, and gives each a new
///   [`ClaimToken`] (one claim, one token). An event is not handed out while
///   an earlier event of the same call has no recorded attempt (spec 6.1
///   rule 4: `call.in_progress` goes first).
/// - Claims are fair across accounts, so one account's backlog cannot fill
///   every claim while another account's events wait. An account's
///   claimable due events are ranked 1, 2, 3, … oldest first (by due time,
///   then emission order), each rank raised by the account's *live claims*:
///   its events claimed and still leased at `now` (at most `limit` of them
///   counted), with no outcome recorded and no redelivery since. A claim
///   takes the lowest ranks first, ties by due time, then emission order.
///   Within one claim, accounts therefore take turns (each account's oldest
///   event, then each one's second, …); across claims, an account with
///   attempts in flight yields to one without.
/// - `record_attempt` applies an outcome only under the event's current
///   claim: it counts the attempt and either marks the event delivered,
///   schedules it at `retry_at`, or gives it up, uses the claim up, and
///   returns [`RecordedAttempt::Applied`]. [`AttemptOutcome::Postponed`]
///   counts no attempt and keeps the last answer: it only makes the event
///   due at its `retry_at` and uses the claim up. Under any other token (a claim
///   whose lease lapsed and that was claimed again, redelivered, or already
///   recorded) or for an unknown event it changes nothing and returns
///   [`RecordedAttempt::Stale`]. An outcome under a lapsed claim that no one
///   has claimed again is still applied: it is the latest word on the event.
/// - `redeliver` makes a delivered or given-up event pending and due at
///   `now`, and invalidates any outstanding claim of it; it returns `false`
///   for an unknown event id.
#[async_trait]
pub trait EventOutbox: Send + Sync + Debug {
    /// Claims due events; see the contract.
    async fn claim_due(
        &self,
        now: DateTime<Utc>,
        limit: usize,
        lease: std::time::Duration,
    ) -> Result<Vec<PendingDelivery>, StoreError>;

    /// Records one attempt's outcome under the claim it was made for; see
    /// the contract.
    async fn record_attempt(
        &self,
        event_id: &str,
        claim: ClaimToken,
        now: DateTime<Utc>,
        outcome: AttemptOutcome,
    ) -> Result<RecordedAttempt, StoreError>;

    /// When the earliest pending event is due, if any is pending.
    async fn next_due(&self) -> Result<Option<DateTime<Utc>>, StoreError>;

    /// The delivery state of every event of a call, in emission order.
    async fn deliveries(&self, call_id: &CallId) -> Result<Vec<DeliveryState>, StoreError>;

    /// Schedules an event for another delivery at `now`.
    async fn redeliver(&self, event_id: &str, now: DateTime<Utc>) -> Result<bool, StoreError>;
}
