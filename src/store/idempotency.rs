//! Idempotency records: a retried placement with the same `Idempotency-Key`
//! replays the first answer instead of placing another call.

use std::fmt::Debug;

use async_trait::async_trait;
use bytes::Bytes;
use chrono::{DateTime, Utc};

use super::StoreError;
use crate::domain::KeyId;

/// The answer kept for replay.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct StoredResponse {
    /// HTTP status.
    pub status: u16,
    /// The body, byte for byte.
    pub body: Bytes,
}

impl StoredResponse {
    /// An answer of `status` with `body`.
    pub fn new(status: u16, body: Bytes) -> Self {
        Self { status, body }
    }
}

/// Names the holder of a key: `begin` hands one out with `Started`, and
/// `renew`, `complete` and `abandon` act only while the record is still
/// held under it, so a holder whose lease was taken over changes nothing.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct HoldToken(u128);

impl HoldToken {
    /// A fresh random token (UUID v4 bits).
    pub fn generate() -> Self {
        Self(uuid::Uuid::new_v4().as_u128())
    }

    /// The token from its 16 big-endian bytes (as a store keeps it).
    pub fn from_bytes(bytes: [u8; 16]) -> Self {
        Self(u128::from_be_bytes(bytes))
    }

    /// Its 16 big-endian bytes.
    pub fn to_bytes(self) -> [u8; 16] {
        self.0.to_be_bytes()
    }
}

/// What [`IdempotencyStore::begin`] found.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum IdempotencyBegin {
    /// No live record: one is now held for this request under this token;
    /// the request must end with `complete` or `abandon`, and `renew` the
    /// lease while it runs.
    Started(HoldToken),
    /// The key was used with the same request: replay this answer.
    Replay(StoredResponse),
    /// The key is held by a request still being processed.
    InProgress,
    /// The key was used with a different request body.
    Mismatch,
}

/// Keeps idempotency keys, scoped per API key.
///
/// # Contract
///
/// - `begin` is atomic across every process sharing the store: of many
///   concurrent `begin`s of one (key id, idempotency key), exactly one gets
///   `Started`. A record older than `ttl` (counted from its creation) is
///   gone: `begin` then starts afresh. A held record whose holder neither
///   completed, abandoned nor renewed it within `lease` (counted from the
///   last `begin` or `renew`) may be taken over (`Started` with a new
///   token), so a crashed process does not block the key for the whole
///   `ttl`.
/// - With a live record, `begin` answers `Mismatch` when the fingerprint
///   differs, else `Replay` for a completed record and `InProgress` for a
///   held one.
/// - `complete` stores the answer for replay; `abandon` deletes the record
///   (used for rejections, so a corrected retry may reuse the key); `renew`
///   restarts the lease at `now`. Each acts only while the record is held
///   (no answer stored) under the given token: a late holder, whose record
///   was taken over, completed, abandoned or expired, changes nothing.
#[async_trait]
pub trait IdempotencyStore: Send + Sync + Debug {
    /// Looks up or takes a key; see the contract.
    #[allow(clippy::too_many_arguments)]
    async fn begin(
        &self,
        key_id: &KeyId,
        idempotency_key: &str,
        fingerprint: [u8; 32],
        now: DateTime<Utc>,
        ttl: std::time::Duration,
        lease: std::time::Duration,
    ) -> Result<IdempotencyBegin, StoreError>;

    /// Restarts the lease of a held key at `now`. Answers whether the key is
    /// still held under `token` (false: it was taken over or is gone, and
    /// nothing changed).
    async fn renew(
        &self,
        key_id: &KeyId,
        idempotency_key: &str,
        token: HoldToken,
        now: DateTime<Utc>,
    ) -> Result<bool, StoreError>;

    /// Stores the answer of a started request still held under `token`.
    async fn complete(
        &self,
        key_id: &KeyId,
        idempotency_key: &str,
        token: HoldToken,
        response: StoredResponse,
    ) -> Result<(), StoreError>;

    /// Forgets a started request still held under `token`.
    async fn abandon(
        &self,
        key_id: &KeyId,
        idempotency_key: &str,
        token: HoldToken,
    ) -> Result<(), StoreError>;
}
