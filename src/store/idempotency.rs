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

/// What [`IdempotencyStore::begin`] found.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum IdempotencyBegin {
    /// No live record: one is now held for this request, which must end with
    /// `complete` or `abandon`.
    Started,
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
///   completed nor abandoned it within `lease` may be taken over (`Started`),
///   so a crashed process does not block the key for the whole `ttl`.
/// - With a live record, `begin` answers `Mismatch` when the fingerprint
///   differs, else `Replay` for a completed record and `InProgress` for a
///   held one.
/// - `complete` stores the answer for replay; `abandon` deletes the record
///   (used for rejections, so a corrected retry may reuse the key).
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

    /// Stores the answer of a started request.
    async fn complete(
        &self,
        key_id: &KeyId,
        idempotency_key: &str,
        response: StoredResponse,
    ) -> Result<(), StoreError>;

    /// Forgets a started request.
    async fn abandon(&self, key_id: &KeyId, idempotency_key: &str) -> Result<(), StoreError>;
}
