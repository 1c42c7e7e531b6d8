//! Where calls and their pending webhook events live.
//!
//! [`CallStore`] keeps call records; [`EventOutbox`] keeps the webhook events
//! that status changes emit until they are delivered. A store that supports
//! both writes an event in the same atomic step as the status change that
//! emits it ([`CallStore::update`]), so no accepted change loses its event.
//!
//! [`MemoryStore`] is always compiled. With the `sqlite` feature,
//! [`sqlite::SqliteStore`] keeps everything in one file on one machine; with
//! `postgres`, [`postgres::PostgresStore`] lets several service instances
//! share one database. The crate `agentcall-conformance` holds the
//! contract tests every implementation runs on itself.

mod carrier_notes;
mod document;
mod idempotency;
mod lease;
mod memory;
mod outbox;
#[cfg(feature = "postgres")]
#[cfg_attr(docsrs, doc(cfg(feature = "postgres")))]
pub mod postgres;
#[cfg(any(feature = "sqlite", feature = "postgres"))]
mod sql;
#[cfg(feature = "sqlite")]
#[cfg_attr(docsrs, doc(cfg(feature = "sqlite")))]
pub mod sqlite;

use crate::extract::Evidence;
use crate::guardrails::{RateLimiter, UsageLedger};
use std::collections::BTreeMap;
use std::fmt::Debug;
use std::sync::Arc;

use async_trait::async_trait;
use bytes::Bytes;
use chrono::{DateTime, Utc};

use crate::domain::{AccountId, CallError, CallId, CallRecord, CallStatus, FieldDefinition, KeyId};

pub use carrier_notes::{CarrierNotes, note_carrier};
pub use document::{CALL_DOCUMENT_VERSION, CallDocument, DocumentError};
pub use idempotency::{HoldToken, IdempotencyBegin, IdempotencyStore, StoredResponse};
pub use lease::{CallLease, InstanceId, LeaseClaim};
pub use memory::{MemoryRetention, MemoryStore};
pub use outbox::{
    AttemptOutcome, ClaimToken, DeliveryState, DeliveryStatus, EventOutbox, NewEvent,
    PendingDelivery, RecordedAttempt,
};
#[cfg(feature = "postgres")]
#[cfg_attr(docsrs, doc(cfg(feature = "postgres")))]
pub use postgres::{PostgresRateLimiter, PostgresStore, PostgresUsageLedger};
#[cfg(feature = "sqlite")]
#[cfg_attr(docsrs, doc(cfg(feature = "sqlite")))]
pub use sqlite::{SqliteRateLimiter, SqliteStore, SqliteUsageLedger};

/// A store failure. The HTTP layer answers `503 store_error` for
/// [`StoreError::Unavailable`]; the other variants are contract outcomes the
/// service handles.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum StoreError {
    /// `insert` of an id that exists.
    #[error("call {0} already exists")]
    AlreadyExists(CallId),
    /// `update` or a lookup of an id that does not exist.
    #[error("call {0} not found")]
    NotFound(CallId),
    /// `update` lost a race: the stored version is not the one read.
    #[error("call {id} changed concurrently (expected version {expected})")]
    Conflict {
        /// The call.
        id: CallId,
        /// The version the writer had read.
        expected: u64,
    },
    /// The backend failed; retrying later may succeed.
    #[error("store unavailable: {0}")]
    Unavailable(#[source] Box<dyn std::error::Error + Send + Sync>),
}

/// A call as stored: the public record plus what the service needs to run it.
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub struct StoredCall {
    /// The record the API returns.
    pub record: CallRecord,
    /// The account that placed the call.
    pub account_id: AccountId,
    /// The key that placed the call; only it may read the call.
    pub key_id: KeyId,
    /// When the placement was accepted; lists are ordered by it.
    pub created_at: DateTime<Utc>,
    /// The caller ID presented to the recipient.
    pub caller_id: String,
    /// Background for the AI.
    pub context: Option<String>,
    /// Fields to extract after the call.
    pub fields: Vec<FieldDefinition>,
    /// Where events go, if anywhere.
    pub webhook_url: Option<String>,
    /// Minutes reserved against the account's cap for the call's current
    /// attempt (each attempt of a retried call reserves its own).
    pub reserved_minutes: u64,
    /// The start of the billing period those minutes were reserved in:
    /// the period a retry's attempt started in; `None` for the first
    /// attempt, reserved in the period of `created_at`.
    pub reserved_in: Option<DateTime<Utc>>,
    /// Why an extracted field came back null, by field name (host-readable;
    /// a value its evidence did not support has a reason starting with
    /// `unsupported_by_transcript`).
    pub extraction_notes: BTreeMap<String, String>,
    /// Where each non-null extracted value was read, by field name: the
    /// turn, the speaker and the transcript's words, as checked by
    /// [`ground`](crate::extract::ground).
    pub extraction_evidence: BTreeMap<String, Evidence>,
    /// The carrier has ended the call and the service is finishing it
    /// (extraction), with what the carrier reported; the status is still
    /// the running one. Recovery finishes such a call with this outcome.
    pub carrier_end: Option<CarrierEnd>,
    /// Whether the reservation of the call's last ended attempt has been
    /// settled in the usage ledger (replaced by its billed minutes). Set
    /// after the ledger accepted the settlement of a terminal call, or of
    /// an attempt that was retried; a terminal call without it keeps its
    /// lease, which lapses, and whoever takes it over settles it.
    pub settled: bool,
    /// Which instance follows the call, and until when; `None` once the
    /// call needs no one (ended and settled). See [`CallLease`].
    pub lease: Option<CallLease>,
    /// What the carrier has told about the call so far, for whichever
    /// instance its next callback reaches.
    pub carrier_notes: CarrierNotes,
    /// The calling window the call may ring in (the placement's, else the
    /// account's or the default), on the called party's wall clock.
    pub calling_window: Option<crate::schedule::CallingWindow>,
    /// While the call waits in `queued` to be dialed: when it may start.
    /// Its lease is then held by [`InstanceId::waiting`] until that time,
    /// so whichever instance first claims the lapsed lease dials it.
    pub waiting_until: Option<DateTime<Utc>>,
    /// How the call is tried again when an attempt reaches no one (the
    /// placement's policy, else the account's); `None`: never.
    pub retry: Option<crate::schedule::RetryPolicy>,
    /// Optimistic-concurrency version; bumped by every successful update.
    pub version: u64,
}

impl StoredCall {
    /// A call of `key_id` (of `account_id`) created at `created_at` with
    /// caller ID `caller_id`; no context, fields, webhook, reservation or
    /// notes, no lease, version 0. Set the other fields as needed.
    pub fn new(
        record: CallRecord,
        account_id: AccountId,
        key_id: KeyId,
        created_at: DateTime<Utc>,
        caller_id: impl Into<String>,
    ) -> Self {
        Self {
            record,
            account_id,
            key_id,
            created_at,
            caller_id: caller_id.into(),
            context: None,
            fields: Vec::new(),
            webhook_url: None,
            reserved_minutes: 0,
            reserved_in: None,
            extraction_notes: BTreeMap::new(),
            extraction_evidence: BTreeMap::new(),
            carrier_end: None,
            settled: false,
            lease: None,
            carrier_notes: CarrierNotes::default(),
            calling_window: None,
            waiting_until: None,
            retry: None,
            version: 0,
        }
    }
}

/// How the carrier ended a call that the service has not finished yet
/// ([`StoredCall::carrier_end`]): kept so that a crash during extraction
/// loses neither the conversation nor the outcome.
#[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
#[non_exhaustive]
pub struct CarrierEnd {
    /// The terminal status the call ends with (already repaired).
    pub status: CallStatus,
    /// Why, for `failed`.
    pub error: Option<CallError>,
    /// The conversation.
    pub transcript: Option<crate::transcript::Transcript>,
    /// Where the recording can be fetched, if one was stored.
    pub recording_url: Option<String>,
    /// When the carrier ended the call.
    pub ended_at: DateTime<Utc>,
    /// The carrier's talk time in whole seconds, if it gave one.
    pub duration_sec: Option<u64>,
}

impl CarrierEnd {
    /// An end in `status` at `ended_at`, with nothing else.
    pub fn new(status: CallStatus, ended_at: DateTime<Utc>) -> Self {
        Self {
            status,
            error: None,
            transcript: None,
            recording_url: None,
            ended_at,
            duration_sec: None,
        }
    }
}

/// A recording's media.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct Recording {
    /// MIME type, e.g. `audio/wav`.
    pub content_type: String,
    /// The audio bytes.
    pub bytes: Bytes,
}

impl Recording {
    /// Media of type `content_type`.
    pub fn new(content_type: impl Into<String>, bytes: Bytes) -> Self {
        Self {
            content_type: content_type.into(),
            bytes,
        }
    }
}

/// Which calls to list: one key's calls, most recent first.
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub struct ListQuery {
    /// Whose calls.
    pub key_id: KeyId,
    /// At most this many (callers clamp it; stores take it as given).
    pub limit: usize,
    /// Only calls created before this one (a cursor from an earlier page).
    pub starting_after: Option<CallId>,
    /// Only calls in one of these statuses (empty: any).
    pub statuses: Vec<CallStatus>,
    /// Only calls created strictly after this time.
    pub created_after: Option<DateTime<Utc>>,
    /// Only calls created strictly before this time.
    pub created_before: Option<DateTime<Utc>>,
}

impl ListQuery {
    /// The most recent `limit` calls of `key_id`.
    pub fn new(key_id: KeyId, limit: usize) -> Self {
        Self {
            key_id,
            limit,
            starting_after: None,
            statuses: Vec::new(),
            created_after: None,
            created_before: None,
        }
    }
}

/// One page of a listing.
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub struct ListPage {
    /// The calls, most recent first.
    pub calls: Vec<StoredCall>,
    /// Whether more calls match beyond this page.
    pub has_more: bool,
}

impl ListPage {
    /// A page of `calls`; `has_more` when more match beyond it.
    pub fn new(calls: Vec<StoredCall>, has_more: bool) -> Self {
        Self { calls, has_more }
    }
}

/// The limits every service instance on one store shares: the per-key
/// rate limiter and the minute-cap usage ledger
/// ([`Persistence::limits`]).
#[derive(Debug, Clone)]
#[non_exhaustive]
pub struct SharedLimits {
    /// Placements per key per minute.
    pub rate_limiter: Arc<dyn RateLimiter>,
    /// Billed and reserved minutes per account.
    pub usage_ledger: Arc<dyn UsageLedger>,
}

impl SharedLimits {
    /// The given limiter and ledger.
    pub fn new(rate_limiter: Arc<dyn RateLimiter>, usage_ledger: Arc<dyn UsageLedger>) -> Self {
        Self {
            rate_limiter,
            usage_ledger,
        }
    }
}

/// Everything the service keeps, from one backend: calls, the webhook
/// outbox and idempotency keys (the traits it extends), and the limits
/// that must count alike on every instance using the backend. Hand it to
/// [`AgentCallBuilder::store`](crate::AgentCallBuilder::store) and all five
/// are wired; [`rate_limiter`](crate::AgentCallBuilder::rate_limiter) and
/// [`usage_ledger`](crate::AgentCallBuilder::usage_ledger) on the builder
/// still override them, deliberately.
///
/// # Contract
///
/// - `limits` returns a rate limiter and a usage ledger whose counts are
///   shared by every handle on the same backend: two service instances on
///   one database admit exactly the key's budget between them and never
///   reserve past the cap together (`agentcall-conformance`'s
///   `rate_limits_hold_across_handles` and `minute_caps_hold_across_handles`
///   check it). A
///   backend that no other process can reach (in memory) returns the same
///   limits from every call on one store value.
pub trait Persistence: CallStore + EventOutbox + IdempotencyStore {
    /// The limits shared by everyone on this store; see the contract.
    fn limits(&self) -> SharedLimits;
}

/// Persistence of calls.
///
/// # Contract
///
/// - `insert` fails with [`StoreError::AlreadyExists`] for a known id and
///   stores the call with the version (and lease) it carries.
/// - `update` is compare-and-set: it succeeds only when the stored version
///   equals `call.version`, stores the call (its lease included, except
///   that while the holder stays the same the lease's `until` never moves
///   back: a renewal between the read and the write is kept) with version
///   `call.version + 1`, returns that version, and in the same
///   atomic step hands `events` to the store's outbox. Otherwise it changes
///   nothing and returns [`StoreError::Conflict`] (or
///   [`StoreError::NotFound`]). Two concurrent updates from the same version
///   can never both succeed.
/// - `list` returns the key's calls most recent first (by `created_at`, ties
///   by id descending), honouring every filter of [`ListQuery`], in time that
///   grows with `limit`, not with the number of stored calls. A
///   `starting_after` id that is not one of the key's calls yields
///   [`StoreError::NotFound`].
/// - `renew_leases` moves to `until` the lease of each of `calls` that
///   `holder` still holds and that is not yet in a terminal status, without
///   changing the calls' versions (a renewal is not a change of the call),
///   and returns the ids it renewed (in any order): a named call missing
///   from them has ended or is another holder's, which tells the holder to
///   look at it without reading every call it runs. Only the calls named are renewed, so a
///   call its holder no longer follows lapses and is taken over. Leases on
///   ended calls are not renewed: an ended call whose settlement failed
///   lapses, and is settled by whoever claims it.
/// - `claim_lapsed` atomically takes over up to `claim.limit` calls whose
///   lease [`LeaseClaim::takes`], oldest lease first: each gets the lease
///   `(claim.holder, claim.until)` and its version bumped, and is returned
///   as now stored. Concurrent claims (from any instance) never return the
///   same call, and a call whose lease was renewed meanwhile is not taken.
///   Calls without a lease are never returned.
/// - `put_recording` replaces any recording of the call.
/// - [`StoreError::Unavailable`] means nothing was written.
#[async_trait]
pub trait CallStore: Send + Sync + Debug {
    /// Stores a new call.
    async fn insert(&self, call: &StoredCall) -> Result<(), StoreError>;

    /// Reads a call by id, whoever owns it; `None` when unknown.
    async fn get(&self, id: &CallId) -> Result<Option<StoredCall>, StoreError>;

    /// Compare-and-set update; see the contract.
    async fn update(&self, call: &StoredCall, events: Vec<NewEvent>) -> Result<u64, StoreError>;

    /// A page of one key's calls; see the contract.
    async fn list(&self, query: &ListQuery) -> Result<ListPage, StoreError>;

    /// Extends the leases `holder` holds on the running `calls`; see the
    /// contract.
    async fn renew_leases(
        &self,
        holder: &InstanceId,
        calls: &[CallId],
        until: DateTime<Utc>,
    ) -> Result<Vec<CallId>, StoreError>;

    /// Takes over calls whose lease lapsed; see the contract.
    async fn claim_lapsed(&self, claim: &LeaseClaim) -> Result<Vec<StoredCall>, StoreError>;

    /// Stores a call's recording.
    async fn put_recording(&self, id: &CallId, recording: Recording) -> Result<(), StoreError>;

    /// Reads a call's recording; `None` when there is none.
    async fn recording(&self, id: &CallId) -> Result<Option<Recording>, StoreError>;
}
