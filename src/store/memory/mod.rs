//! The in-memory store: always compiled, the embedded default.

mod due;
mod retention;

pub use retention::MemoryRetention;

use std::collections::{BTreeSet, HashMap, HashSet};
use std::ops::Bound;
use std::sync::{RwLock, RwLockReadGuard, RwLockWriteGuard};

use async_trait::async_trait;
use chrono::{DateTime, Utc};

use super::{
    AttemptOutcome, CallLease, CallStore, ClaimToken, DeliveryState, DeliveryStatus, EventOutbox,
    HoldToken, IdempotencyBegin, IdempotencyStore, InstanceId, LeaseClaim, ListPage, ListQuery,
    NewEvent, PendingDelivery, RecordedAttempt, Recording, StoreError, StoredCall, StoredResponse,
};
use crate::domain::{CallId, KeyId};

/// Calls and events in process memory; everything is lost when the process
/// stops.
///
/// Each key's calls are indexed by (creation time, id) in a B-tree, so a page
/// costs O(log n + limit) however many calls are stored.
///
/// # What it keeps, and for how long
///
/// - Calls, their recordings and their webhook events: for the life of the
///   process by default; [`MemoryStore::with_retention`] drops ended calls
///   and recordings after a while (see [`MemoryRetention`]). Unfinished
///   calls, ended calls not yet settled (they still hold a lease) and
///   undelivered events are never dropped.
/// - Idempotency records: for their TTL (24 h in the service); a record whose
///   request was rejected is freed at once.
#[derive(Debug, Default)]
pub struct MemoryStore {
    inner: RwLock<Inner>,
    /// The limits of every service on this store (one process).
    limits: MemoryLimits,
}

/// The in-process rate limiter and usage ledger a [`MemoryStore`] hands out.
#[derive(Debug, Default)]
struct MemoryLimits {
    rate_limiter: std::sync::Arc<crate::guardrails::MemoryRateLimiter>,
    usage_ledger: std::sync::Arc<crate::guardrails::MemoryUsageLedger>,
}

impl super::Persistence for MemoryStore {
    /// The same in-process limiter and ledger for every call on this store.
    fn limits(&self) -> super::SharedLimits {
        super::SharedLimits::new(
            self.limits.rate_limiter.clone(),
            self.limits.usage_ledger.clone(),
        )
    }
}

#[derive(Debug, Default)]
struct Inner {
    retention: MemoryRetention,
    ended: retention::EndedCalls,
    /// Boxed: a `StoredCall` is ~750 bytes, and growing the map moves every
    /// value under the write lock (a ~100 MB copy at 200,000 calls).
    calls: HashMap<CallId, Box<StoredCall>>,
    /// Calls with a lease (running, or ended and not yet settled).
    leased: HashSet<CallId>,
    by_key: HashMap<KeyId, BTreeSet<(DateTime<Utc>, CallId)>>,
    recordings: HashMap<CallId, Recording>,
    events: HashMap<String, EventEntry>,
    /// Pending events by due time, overall and per account.
    due: due::DueIndex,
    by_seq: HashMap<u64, String>,
    /// Event ids per call, in emission order.
    call_events: HashMap<CallId, Vec<String>>,
    next_seq: u64,
    idempotency: HashMap<(KeyId, String), IdempotencyEntry>,
    /// Idempotency slots by creation, to drop expired ones as time passes.
    /// (Removable, so a rejected request's record is freed at once.)
    idempotency_order: BTreeSet<(DateTime<Utc>, (KeyId, String))>,
}

#[derive(Debug)]
struct IdempotencyEntry {
    fingerprint: [u8; 32],
    created_at: DateTime<Utc>,
    /// When the lease last started (`begin` or `renew`).
    renewed_at: DateTime<Utc>,
    holder: HoldToken,
    response: Option<StoredResponse>,
}

impl IdempotencyEntry {
    /// Whether the record is still held (unanswered) under `token`.
    fn held_by(&self, token: HoldToken) -> bool {
        self.response.is_none() && self.holder == token
    }
}

#[derive(Debug)]
struct EventEntry {
    event: NewEvent,
    seq: u64,
    state: DeliveryState,
    /// The latest claim, until an outcome is recorded under it or the event
    /// is redelivered.
    claim: Option<ClaimToken>,
}

impl MemoryStore {
    /// An empty store that keeps everything for the life of the process.
    pub fn new() -> Self {
        Self::default()
    }

    /// An empty store that drops ended calls and recordings as `retention`
    /// says.
    ///
    /// ```
    /// use std::time::Duration;
    /// use agentcall::store::{MemoryRetention, MemoryStore};
    ///
    /// let day = Duration::from_secs(24 * 3600);
    /// let store = MemoryStore::with_retention(MemoryRetention::new(Some(day), Some(day / 24)));
    /// # drop(store);
    /// ```
    pub fn with_retention(retention: MemoryRetention) -> Self {
        let store = Self::default();
        store.write().retention = retention;
        store
    }

    // A poisoned lock only means another thread panicked mid-operation; every
    // operation below leaves `Inner` consistent before it can panic, so the
    // data is still sound to use.
    fn read(&self) -> RwLockReadGuard<'_, Inner> {
        self.inner
            .read()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
    }

    fn write(&self) -> RwLockWriteGuard<'_, Inner> {
        self.inner
            .write()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
    }
}

impl Inner {
    /// Forgets idempotency records older than `ttl`, so memory stays bounded
    /// by the keys of one TTL.
    fn drop_expired_idempotency(&mut self, now: DateTime<Utc>, ttl: std::time::Duration) {
        let ttl = chrono::Duration::from_std(ttl).unwrap_or(chrono::Duration::MAX);
        while let Some((created_at, _)) = self.idempotency_order.first() {
            if now.signed_duration_since(*created_at) < ttl {
                break;
            }
            let Some((created_at, slot)) = self.idempotency_order.pop_first() else {
                break;
            };
            // The slot may have been re-taken since; drop only this generation.
            if self
                .idempotency
                .get(&slot)
                .is_some_and(|e| e.created_at == created_at)
            {
                self.idempotency.remove(&slot);
            }
        }
    }

    fn enqueue(&mut self, event: NewEvent) {
        if self.events.contains_key(&event.event_id) {
            return;
        }
        let seq = self.next_seq;
        self.next_seq += 1;
        let state = DeliveryState {
            event_id: event.event_id.clone(),
            call_id: event.call_id.clone(),
            kind: event.kind,
            status: DeliveryStatus::Pending,
            attempts: 0,
            last_response_status: None,
            last_error: None,
            next_attempt_at: Some(event.first_attempt_at),
            delivered_at: None,
        };
        self.due
            .insert(&event.account_id, event.first_attempt_at, seq, false);
        self.by_seq.insert(seq, event.event_id.clone());
        self.call_events
            .entry(event.call_id.clone())
            .or_default()
            .push(event.event_id.clone());
        self.events.insert(
            event.event_id.clone(),
            EventEntry {
                event,
                seq,
                state,
                claim: None,
            },
        );
    }

    /// Whether every earlier event of the event's call has had an attempt.
    fn predecessors_attempted(&self, entry: &EventEntry) -> bool {
        let Some(ids) = self.call_events.get(&entry.event.call_id) else {
            return true;
        };
        ids.iter()
            .take_while(|id| **id != entry.event.event_id)
            .all(|id| self.events.get(id).is_none_or(|e| e.state.attempts > 0))
    }

    /// The `seq`s of the events a claim of `limit` at `now` hands out, in
    /// the order of the [`EventOutbox`] contract: each account's claimable
    /// due events ranked oldest first, each rank raised by the account's
    /// live claims (at most `limit` counted); lowest first, ties by due
    /// time, then emission order.
    ///
    /// O(accounts + limit) per claim (see [`due::DueIndex`]), plus the
    /// events skipped because an earlier event of their call waits.
    fn fair_claim_order(&self, now: DateTime<Utc>, limit: usize) -> Vec<u64> {
        if limit == 0 {
            return Vec::new();
        }
        let claimable = |seq: u64| {
            self.by_seq
                .get(&seq)
                .and_then(|id| self.events.get(id))
                .is_some_and(|entry| self.predecessors_attempted(entry))
        };
        let mut candidates: Vec<(usize, DateTime<Utc>, u64)> = self
            .due
            .accounts_at(now, limit, claimable)
            .into_iter()
            .flat_map(|view| {
                let offset = view.live.min(limit);
                view.due
                    .into_iter()
                    .enumerate()
                    .map(move |(rank, (at, seq))| (offset + rank + 1, at, seq))
            })
            .collect();
        candidates.sort_unstable();
        candidates.truncate(limit);
        candidates.into_iter().map(|(_, _, seq)| seq).collect()
    }

    fn reschedule(&mut self, event_id: &str, at: Option<DateTime<Utc>>) {
        let Some(entry) = self.events.get_mut(event_id) else {
            return;
        };
        let account = &entry.event.account_id;
        if let Some(old) = entry.state.next_attempt_at {
            self.due.remove(account, old, entry.seq);
        }
        entry.state.next_attempt_at = at;
        if let Some(at) = at {
            self.due
                .insert(account, at, entry.seq, entry.claim.is_some());
        }
    }
}

#[async_trait]
impl CallStore for MemoryStore {
    async fn insert(&self, call: &StoredCall) -> Result<(), StoreError> {
        let mut inner = self.write();
        let id = &call.record.id;
        if inner.calls.contains_key(id) {
            return Err(StoreError::AlreadyExists(id.clone()));
        }
        inner.ended.observe(call.created_at);
        inner
            .by_key
            .entry(call.key_id.clone())
            .or_default()
            .insert((call.created_at, id.clone()));
        if call.lease.is_some() {
            inner.leased.insert(id.clone());
        }
        inner.calls.insert(id.clone(), Box::new(call.clone()));
        Ok(())
    }

    async fn get(&self, id: &CallId) -> Result<Option<StoredCall>, StoreError> {
        Ok(self
            .read()
            .calls
            .get(id)
            .map(|call| StoredCall::clone(call)))
    }

    async fn update(&self, call: &StoredCall, events: Vec<NewEvent>) -> Result<u64, StoreError> {
        let mut inner = self.write();
        let id = &call.record.id;
        let stored = inner
            .calls
            .get_mut(id)
            .ok_or_else(|| StoreError::NotFound(id.clone()))?;
        if stored.version != call.version {
            return Err(StoreError::Conflict {
                id: id.clone(),
                expected: call.version,
            });
        }
        let version = call.version + 1;
        let ended_now = !stored.record.status.is_terminal() && call.record.status.is_terminal();
        // A renewal between the writer's read and this write is kept.
        let lease = match (&stored.lease, &call.lease) {
            (Some(kept), Some(given)) if kept.holder == given.holder => Some(CallLease::new(
                given.holder.clone(),
                kept.until.max(given.until),
            )),
            (_, given) => given.clone(),
        };
        **stored = StoredCall {
            version,
            lease,
            ..call.clone()
        };
        if call.lease.is_some() {
            inner.leased.insert(id.clone());
        } else {
            inner.leased.remove(id);
        }
        for event in events {
            inner.enqueue(event);
        }
        if ended_now {
            let ended_at = call.record.ended_at.unwrap_or(call.created_at);
            let retention = inner.retention;
            inner.ended.ended(id.clone(), ended_at, retention);
            if inner.recordings.contains_key(id) {
                inner.ended.recorded(id.clone(), ended_at, retention);
            }
            inner.apply_retention();
        }
        Ok(version)
    }

    async fn list(&self, query: &ListQuery) -> Result<ListPage, StoreError> {
        let inner = self.read();
        let Some(index) = inner.by_key.get(&query.key_id) else {
            return match &query.starting_after {
                Some(cursor) => Err(StoreError::NotFound(cursor.clone())),
                None => Ok(ListPage {
                    calls: Vec::new(),
                    has_more: false,
                }),
            };
        };
        let upper = match &query.starting_after {
            Some(cursor) => {
                let call = inner
                    .calls
                    .get(cursor)
                    .filter(|c| c.key_id == query.key_id)
                    .ok_or_else(|| StoreError::NotFound(cursor.clone()))?;
                Bound::Excluded((call.created_at, cursor.clone()))
            }
            None => Bound::Unbounded,
        };
        // `createdBefore` bounds the range too, so skipping newer calls costs nothing.
        let upper = match (upper, query.created_before) {
            (Bound::Excluded(cursor), Some(before)) if cursor.0 < before => Bound::Excluded(cursor),
            (_, Some(before)) => Bound::Excluded((before, CallId::lowest())),
            (upper, None) => upper,
        };
        let mut calls = Vec::with_capacity(query.limit.min(128));
        let mut has_more = false;
        for (created_at, id) in index.range((Bound::Unbounded, upper)).rev() {
            if query
                .created_after
                .is_some_and(|after| *created_at <= after)
            {
                break;
            }
            let Some(call) = inner.calls.get(id) else {
                continue;
            };
            if !query.statuses.is_empty() && !query.statuses.contains(&call.record.status) {
                continue;
            }
            if calls.len() == query.limit {
                has_more = true;
                break;
            }
            calls.push(StoredCall::clone(call));
        }
        Ok(ListPage { calls, has_more })
    }

    async fn renew_leases(
        &self,
        holder: &InstanceId,
        ids: &[CallId],
        until: DateTime<Utc>,
    ) -> Result<Vec<CallId>, StoreError> {
        let mut inner = self.write();
        let mut renewed = Vec::with_capacity(ids.len());
        for id in ids {
            let Some(call) = inner.calls.get_mut(id) else {
                continue;
            };
            if call.record.status.is_terminal() {
                continue;
            }
            if let Some(lease) = call.lease.as_mut().filter(|l| &l.holder == holder) {
                lease.until = until;
                renewed.push(id.clone());
            }
        }
        Ok(renewed)
    }

    async fn claim_lapsed(&self, claim: &LeaseClaim) -> Result<Vec<StoredCall>, StoreError> {
        let mut inner = self.write();
        let Inner { calls, leased, .. } = &mut *inner;
        let mut taken: Vec<(DateTime<Utc>, CallId)> = leased
            .iter()
            .filter_map(|id| {
                let lease = calls.get(id)?.lease.as_ref()?;
                claim.takes(lease).then(|| (lease.until, id.clone()))
            })
            .collect();
        taken.sort();
        taken.truncate(claim.limit);
        let mut claimed = Vec::with_capacity(taken.len());
        for (_, id) in taken {
            if let Some(call) = calls.get_mut(&id) {
                call.lease = Some(CallLease::new(claim.holder.clone(), claim.until));
                call.version += 1;
                claimed.push(StoredCall::clone(call));
            }
        }
        Ok(claimed)
    }

    async fn put_recording(&self, id: &CallId, recording: Recording) -> Result<(), StoreError> {
        let mut inner = self.write();
        let Some(call) = inner.calls.get(id) else {
            return Err(StoreError::NotFound(id.clone()));
        };
        // An ended call's recording starts its retention now; an open
        // call's starts when the call ends (in `update`).
        let ended_at = call
            .record
            .status
            .is_terminal()
            .then(|| call.record.ended_at.unwrap_or(call.created_at));
        let replaced = inner.recordings.insert(id.clone(), recording).is_some();
        if let Some(ended_at) = ended_at
            && !replaced
        {
            let retention = inner.retention;
            inner.ended.recorded(id.clone(), ended_at, retention);
        }
        Ok(())
    }

    async fn recording(&self, id: &CallId) -> Result<Option<Recording>, StoreError> {
        Ok(self.read().recordings.get(id).cloned())
    }
}

#[async_trait]
impl EventOutbox for MemoryStore {
    async fn claim_due(
        &self,
        now: DateTime<Utc>,
        limit: usize,
        lease: std::time::Duration,
    ) -> Result<Vec<PendingDelivery>, StoreError> {
        let mut inner = self.write();
        let lease = chrono::Duration::from_std(lease).unwrap_or(chrono::Duration::MAX);
        let until = now
            .checked_add_signed(lease)
            .unwrap_or(DateTime::<Utc>::MAX_UTC);
        let claim = ClaimToken::generate();
        let picked = inner.fair_claim_order(now, limit);
        let mut claimed = Vec::with_capacity(picked.len());
        for seq in picked {
            let Some(event_id) = inner.by_seq.get(&seq).cloned() else {
                continue;
            };
            let Some(entry) = inner.events.get_mut(&event_id) else {
                continue;
            };
            entry.claim = Some(claim);
            claimed.push(PendingDelivery::new(
                entry.event.clone(),
                entry.state.attempts,
                claim,
            ));
            inner.reschedule(&event_id, Some(until));
        }
        Ok(claimed)
    }

    async fn record_attempt(
        &self,
        event_id: &str,
        claim: ClaimToken,
        now: DateTime<Utc>,
        outcome: AttemptOutcome,
    ) -> Result<RecordedAttempt, StoreError> {
        let mut inner = self.write();
        inner.ended.observe(now);
        let next = {
            let Some(entry) = inner.events.get_mut(event_id) else {
                return Ok(RecordedAttempt::Stale);
            };
            if entry.claim != Some(claim) {
                return Ok(RecordedAttempt::Stale);
            }
            entry.claim = None;
            let state = &mut entry.state;
            if !matches!(outcome, AttemptOutcome::Postponed { .. }) {
                state.attempts += 1;
            }
            match outcome {
                AttemptOutcome::Postponed { retry_at } => Some(retry_at),
                AttemptOutcome::Delivered { status } => {
                    state.status = DeliveryStatus::Delivered;
                    state.last_response_status = Some(status);
                    state.last_error = None;
                    state.delivered_at = Some(now);
                    None
                }
                AttemptOutcome::Failed {
                    status,
                    error,
                    retry_at,
                } => {
                    state.last_response_status = status;
                    state.last_error = Some(error);
                    if retry_at.is_none() {
                        state.status = DeliveryStatus::GaveUp;
                    }
                    retry_at
                }
            }
        };
        inner.reschedule(event_id, next);
        inner.apply_retention();
        Ok(RecordedAttempt::Applied)
    }

    async fn next_due(&self) -> Result<Option<DateTime<Utc>>, StoreError> {
        Ok(self.read().due.first())
    }

    async fn deliveries(&self, call_id: &CallId) -> Result<Vec<DeliveryState>, StoreError> {
        let inner = self.read();
        let ids = inner
            .call_events
            .get(call_id)
            .map(Vec::as_slice)
            .unwrap_or_default();
        Ok(ids
            .iter()
            .filter_map(|id| inner.events.get(id))
            .map(|e| e.state.clone())
            .collect())
    }

    async fn redeliver(&self, event_id: &str, now: DateTime<Utc>) -> Result<bool, StoreError> {
        let mut inner = self.write();
        let Some(entry) = inner.events.get_mut(event_id) else {
            return Ok(false);
        };
        entry.state.status = DeliveryStatus::Pending;
        entry.state.delivered_at = None;
        entry.claim = None;
        inner.reschedule(event_id, Some(now));
        Ok(true)
    }
}

#[async_trait]
impl IdempotencyStore for MemoryStore {
    async fn begin(
        &self,
        key_id: &KeyId,
        idempotency_key: &str,
        fingerprint: [u8; 32],
        now: DateTime<Utc>,
        ttl: std::time::Duration,
        lease: std::time::Duration,
    ) -> Result<IdempotencyBegin, StoreError> {
        let mut inner = self.write();
        inner.drop_expired_idempotency(now, ttl);
        let slot = (key_id.clone(), idempotency_key.to_owned());
        let age = |entry: &IdempotencyEntry| (now - entry.created_at).to_std().unwrap_or_default();
        if let Some(entry) = inner.idempotency.get(&slot) {
            let expired = age(entry) >= ttl;
            let since_renewal = (now - entry.renewed_at).to_std().unwrap_or_default();
            let stale_hold = entry.response.is_none() && since_renewal >= lease;
            if !expired && !stale_hold {
                return Ok(if entry.fingerprint != fingerprint {
                    IdempotencyBegin::Mismatch
                } else {
                    match &entry.response {
                        Some(response) => IdempotencyBegin::Replay(response.clone()),
                        None => IdempotencyBegin::InProgress,
                    }
                });
            }
        }
        let holder = HoldToken::generate();
        let entry = IdempotencyEntry {
            fingerprint,
            created_at: now,
            renewed_at: now,
            holder,
            response: None,
        };
        inner.idempotency_order.insert((now, slot.clone()));
        if let Some(old) = inner.idempotency.insert(slot.clone(), entry) {
            // A taken-over or expired generation: its order entry goes too.
            if old.created_at != now {
                inner.idempotency_order.remove(&(old.created_at, slot));
            }
        }
        Ok(IdempotencyBegin::Started(holder))
    }

    async fn renew(
        &self,
        key_id: &KeyId,
        idempotency_key: &str,
        token: HoldToken,
        now: DateTime<Utc>,
    ) -> Result<bool, StoreError> {
        let mut inner = self.write();
        let slot = (key_id.clone(), idempotency_key.to_owned());
        match inner.idempotency.get_mut(&slot) {
            Some(entry) if entry.held_by(token) => {
                entry.renewed_at = entry.renewed_at.max(now);
                Ok(true)
            }
            _ => Ok(false),
        }
    }

    async fn complete(
        &self,
        key_id: &KeyId,
        idempotency_key: &str,
        token: HoldToken,
        response: StoredResponse,
    ) -> Result<(), StoreError> {
        let mut inner = self.write();
        let slot = (key_id.clone(), idempotency_key.to_owned());
        if let Some(entry) = inner.idempotency.get_mut(&slot)
            && entry.held_by(token)
        {
            entry.response = Some(response);
        }
        Ok(())
    }

    async fn abandon(
        &self,
        key_id: &KeyId,
        idempotency_key: &str,
        token: HoldToken,
    ) -> Result<(), StoreError> {
        let mut inner = self.write();
        let slot = (key_id.clone(), idempotency_key.to_owned());
        let held = inner
            .idempotency
            .get(&slot)
            .is_some_and(|entry| entry.held_by(token));
        if held && let Some(entry) = inner.idempotency.remove(&slot) {
            inner.idempotency_order.remove(&(entry.created_at, slot));
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests;
