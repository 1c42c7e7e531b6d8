//! The memory store with a hook on reads: a test arms it with a step to
//! run the next time a call is read in a chosen state, before that read
//! returns, so another task's move lands between a reader's read and its
//! next step: an interleaving chosen, not hoped for.

use std::future::Future;
use std::pin::Pin;
use std::sync::{Arc, Mutex};

use agentcall::CallId;
use agentcall::store::*;
use chrono::{DateTime, Utc};

/// What runs inside the read: the call as read, returned as it was read.
pub type Step = Box<dyn FnOnce() -> Pin<Box<dyn Future<Output = ()> + Send>> + Send>;

type Armed = Option<(Box<dyn Fn(&StoredCall) -> bool + Send>, Step)>;

/// See the [module docs](self).
#[derive(Default)]
pub struct PausingStore {
    pub store: Arc<agentcall::MemoryStore>,
    armed: Mutex<Armed>,
}

impl std::fmt::Debug for PausingStore {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("PausingStore").finish_non_exhaustive()
    }
}

impl PausingStore {
    /// Runs `step` once, inside the first read of a call `when` matches;
    /// that read then returns the call as it was before `step`.
    pub fn pause_read_when(&self, when: impl Fn(&StoredCall) -> bool + Send + 'static, step: Step) {
        *self.armed.lock().unwrap() = Some((Box::new(when), step));
    }
}

impl Persistence for PausingStore {
    fn limits(&self) -> SharedLimits {
        Persistence::limits(self.store.as_ref())
    }
}

#[async_trait::async_trait]
impl CallStore for PausingStore {
    async fn insert(&self, call: &StoredCall) -> Result<(), StoreError> {
        self.store.insert(call).await
    }
    async fn get(&self, id: &CallId) -> Result<Option<StoredCall>, StoreError> {
        let read = self.store.get(id).await?;
        let step = {
            let mut armed = self.armed.lock().unwrap();
            match (&read, armed.as_ref()) {
                (Some(call), Some((when, _))) if when(call) => armed.take().map(|(_, step)| step),
                _ => None,
            }
        };
        if let Some(step) = step {
            step().await;
        }
        Ok(read)
    }
    async fn update(&self, call: &StoredCall, events: Vec<NewEvent>) -> Result<u64, StoreError> {
        self.store.update(call, events).await
    }
    async fn list(&self, query: &ListQuery) -> Result<ListPage, StoreError> {
        self.store.list(query).await
    }
    async fn renew_leases(
        &self,
        holder: &InstanceId,
        calls: &[CallId],
        until: DateTime<Utc>,
    ) -> Result<Vec<CallId>, StoreError> {
        self.store.renew_leases(holder, calls, until).await
    }
    async fn claim_lapsed(&self, claim: &LeaseClaim) -> Result<Vec<StoredCall>, StoreError> {
        self.store.claim_lapsed(claim).await
    }
    async fn put_recording(&self, id: &CallId, recording: Recording) -> Result<(), StoreError> {
        self.store.put_recording(id, recording).await
    }
    async fn recording(&self, id: &CallId) -> Result<Option<Recording>, StoreError> {
        self.store.recording(id).await
    }
}

#[async_trait::async_trait]
impl EventOutbox for PausingStore {
    async fn claim_due(
        &self,
        now: DateTime<Utc>,
        limit: usize,
        lease: std::time::Duration,
    ) -> Result<Vec<PendingDelivery>, StoreError> {
        self.store.claim_due(now, limit, lease).await
    }
    async fn record_attempt(
        &self,
        event_id: &str,
        claim: ClaimToken,
        now: DateTime<Utc>,
        outcome: AttemptOutcome,
    ) -> Result<RecordedAttempt, StoreError> {
        self.store
            .record_attempt(event_id, claim, now, outcome)
            .await
    }
    async fn next_due(&self) -> Result<Option<DateTime<Utc>>, StoreError> {
        self.store.next_due().await
    }
    async fn deliveries(&self, call_id: &CallId) -> Result<Vec<DeliveryState>, StoreError> {
        self.store.deliveries(call_id).await
    }
    async fn redeliver(&self, event_id: &str, now: DateTime<Utc>) -> Result<bool, StoreError> {
        self.store.redeliver(event_id, now).await
    }
}

#[async_trait::async_trait]
impl IdempotencyStore for PausingStore {
    async fn begin(
        &self,
        key: &agentcall::domain::KeyId,
        idempotency_key: &str,
        fingerprint: [u8; 32],
        now: DateTime<Utc>,
        ttl: std::time::Duration,
        lease: std::time::Duration,
    ) -> Result<IdempotencyBegin, StoreError> {
        self.store
            .begin(key, idempotency_key, fingerprint, now, ttl, lease)
            .await
    }
    async fn renew(
        &self,
        key: &agentcall::domain::KeyId,
        idempotency_key: &str,
        holder: HoldToken,
        now: DateTime<Utc>,
    ) -> Result<bool, StoreError> {
        self.store.renew(key, idempotency_key, holder, now).await
    }
    async fn complete(
        &self,
        key: &agentcall::domain::KeyId,
        idempotency_key: &str,
        holder: HoldToken,
        response: StoredResponse,
    ) -> Result<(), StoreError> {
        self.store
            .complete(key, idempotency_key, holder, response)
            .await
    }
    async fn abandon(
        &self,
        key: &agentcall::domain::KeyId,
        idempotency_key: &str,
        holder: HoldToken,
    ) -> Result<(), StoreError> {
        self.store.abandon(key, idempotency_key, holder).await
    }
}
