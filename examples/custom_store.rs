//! A store written from scratch: `VecStore` keeps every table in plain
//! collections behind one `Mutex`, stores each call the way a database-backed
//! store would (a `CallDocument` row: indexed columns plus an opaque body),
//! passes the whole store conformance suite, and then runs a service that
//! places one call end to end.
//!
//! Run it with `cargo run --example custom_store`.
//!
//! One lock around everything makes each operation a transaction, which is
//! what the contracts' "atomically" asks for; a real backend gets the same
//! from its transactions (or row locks) and keeps the rest of this shape.

use std::collections::{BTreeSet, HashMap, HashSet};
use std::ops::Bound;
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};
use std::time::Duration;

use agentcall::domain::{AccountId, CallId, KeyId};
use agentcall::guardrails::{MemoryRateLimiter, MemoryUsageLedger};
use agentcall::store::{
    AttemptOutcome, CallDocument, CallLease, CallStore, ClaimToken, DeliveryState, DeliveryStatus,
    EventOutbox, HoldToken, IdempotencyBegin, IdempotencyStore, InstanceId, LeaseClaim, ListPage,
    ListQuery, NewEvent, PendingDelivery, Persistence, RecordedAttempt, Recording, SharedLimits,
    StoreError, StoredCall, StoredResponse,
};
use agentcall::{
    Account, AgentCall, ApiKey, PlacementRequest, ServiceError, SimulatedCarrier, SimulationConfig,
    StaticDirectory,
};
use async_trait::async_trait;
use chrono::{DateTime, Utc};

/// Calls, recordings, the webhook outbox and idempotency keys, in process.
#[derive(Debug, Default)]
struct VecStore {
    tables: Mutex<Tables>,
    // Created once: every service on this store must count against the
    // same budget and cap, so `limits()` hands out these two every time.
    rate_limiter: Arc<MemoryRateLimiter>,
    usage_ledger: Arc<MemoryUsageLedger>,
}

#[derive(Debug, Default)]
struct Tables {
    /// The calls table, keyed by the id's text like a primary key column.
    calls: HashMap<String, CallDocument>,
    /// The `(key_id, created_at, id)` index: a page walks it from its
    /// cursor, so listing costs what the page holds, not what the table
    /// holds. Ids as text, because `""` then bounds a range below every id.
    by_key: HashMap<KeyId, BTreeSet<(DateTime<Utc>, String)>>,
    recordings: HashMap<CallId, Recording>,
    /// The outbox in emission order (the index is the emission sequence).
    events: Vec<OutboxRow>,
    idempotency: HashMap<(KeyId, String), IdempotencyRow>,
}

#[derive(Debug)]
struct OutboxRow {
    event: NewEvent,
    /// `next_attempt_at` is `Some` exactly while the event is pending; a
    /// claimed event's is the end of its claim's lease.
    state: DeliveryState,
    /// The claim an outcome may still be recorded under; cleared by the
    /// outcome and by a redelivery, which is what makes older claims stale.
    claim: Option<ClaimToken>,
}

#[derive(Debug)]
struct IdempotencyRow {
    fingerprint: [u8; 32],
    created_at: DateTime<Utc>,
    /// The lease restarts here on `begin` and `renew`.
    renewed_at: DateTime<Utc>,
    token: HoldToken,
    response: Option<StoredResponse>,
}

/// How long from `from` to `to`; zero when the caller's clock went back.
fn elapsed(from: DateTime<Utc>, to: DateTime<Utc>) -> Duration {
    (to - from).to_std().unwrap_or_default()
}

/// `at + span`, saturating: a huge lease means "never", not a panic.
fn plus(at: DateTime<Utc>, span: Duration) -> DateTime<Utc> {
    chrono::Duration::from_std(span)
        .ok()
        .and_then(|span| at.checked_add_signed(span))
        .unwrap_or(DateTime::<Utc>::MAX_UTC)
}

impl VecStore {
    fn tables(&self) -> MutexGuard<'_, Tables> {
        // Every operation encodes and decodes before it writes, so a panic
        // under the lock cannot leave a write half done: the data behind a
        // poisoned lock is still sound, and the store keeps serving.
        self.tables.lock().unwrap_or_else(PoisonError::into_inner)
    }
}

impl Tables {
    /// Writes a row, moving its index entry along with its columns.
    fn put(&mut self, row: CallDocument) {
        let id = row.id.as_str().to_owned();
        if let Some(old) = self.calls.get(&id)
            && let Some(index) = self.by_key.get_mut(&old.key_id)
        {
            index.remove(&(old.created_at, id.clone()));
        }
        let index = self.by_key.entry(row.key_id.clone()).or_default();
        index.insert((row.created_at, id.clone()));
        self.calls.insert(id, row);
    }

    fn enqueue(&mut self, event: NewEvent) {
        // Event ids are the dedup key: a retried update must not queue twice.
        let known = self
            .events
            .iter()
            .any(|e| e.event.event_id == event.event_id);
        if known {
            return;
        }
        let mut state = DeliveryState::new(&event, DeliveryStatus::Pending, 0);
        state.next_attempt_at = Some(event.first_attempt_at);
        self.events.push(OutboxRow {
            event,
            state,
            claim: None,
        });
    }

    /// A key's record while `token` still holds it (no answer yet): the
    /// only state a holder's `renew`, `complete` or `abandon` may touch.
    fn held(&mut self, key_id: &KeyId, key: &str, token: HoldToken) -> Option<&mut IdempotencyRow> {
        let row = self
            .idempotency
            .get_mut(&(key_id.clone(), key.to_owned()))?;
        (row.token == token && row.response.is_none()).then_some(row)
    }

    fn event_mut(&mut self, event_id: &str) -> Option<&mut OutboxRow> {
        self.events
            .iter_mut()
            .find(|e| e.event.event_id == event_id)
    }

    /// The positions of the events a claim of `limit` at `now` takes, in
    /// the fair order of the `EventOutbox` contract.
    fn claim_order(&self, now: DateTime<Utc>, limit: usize) -> Vec<usize> {
        let mut live: HashMap<&AccountId, usize> = HashMap::new();
        for row in &self.events {
            let leased = row.state.next_attempt_at.is_some_and(|at| at > now);
            if row.claim.is_some() && leased {
                *live.entry(&row.event.account_id).or_default() += 1;
            }
        }
        // One pass in emission order: once a call has shown an event with no
        // attempt yet, its later events wait for it (in_progress goes first).
        let mut unattempted: HashSet<&CallId> = HashSet::new();
        let mut due: HashMap<&AccountId, Vec<(DateTime<Utc>, usize)>> = HashMap::new();
        for (seq, row) in self.events.iter().enumerate() {
            let waits = unattempted.contains(&row.event.call_id);
            if row.state.attempts == 0 {
                unattempted.insert(&row.event.call_id);
            }
            if let Some(at) = row.state.next_attempt_at.filter(|at| *at <= now && !waits) {
                due.entry(&row.event.account_id)
                    .or_default()
                    .push((at, seq));
            }
        }
        // (rank, due time, emission order): an account's oldest due event
        // ranks 1, its next 2, and so on, each raised by its live claims.
        let mut ranked: Vec<(usize, DateTime<Utc>, usize)> = Vec::new();
        for (account, mut mine) in due {
            mine.sort();
            let offset = live.get(account).map_or(0, |&n| n.min(limit));
            let ranks = (offset + 1..).zip(mine);
            ranked.extend(ranks.map(|(rank, (at, seq))| (rank, at, seq)));
        }
        ranked.sort();
        ranked.truncate(limit);
        ranked.into_iter().map(|(_, _, seq)| seq).collect()
    }
}

#[async_trait]
impl CallStore for VecStore {
    async fn insert(&self, call: &StoredCall) -> Result<(), StoreError> {
        let row = CallDocument::encode(call)?;
        let mut tables = self.tables();
        if tables.calls.contains_key(row.id.as_str()) {
            return Err(StoreError::AlreadyExists(row.id));
        }
        tables.put(row);
        Ok(())
    }

    async fn get(&self, id: &CallId) -> Result<Option<StoredCall>, StoreError> {
        let tables = self.tables();
        let row = tables.calls.get(id.as_str());
        Ok(row.map(CallDocument::decode).transpose()?)
    }

    async fn update(&self, call: &StoredCall, events: Vec<NewEvent>) -> Result<u64, StoreError> {
        let id = &call.record.id;
        let mut row = CallDocument::encode(call)?;
        row.version = call.version + 1;
        let mut tables = self.tables();
        let stored = tables
            .calls
            .get(id.as_str())
            .ok_or_else(|| StoreError::NotFound(id.clone()))?;
        if stored.version != call.version {
            let (id, expected) = (id.clone(), call.version);
            return Err(StoreError::Conflict { id, expected });
        }
        // The holder may have renewed after this writer read the call; the
        // write must not take that renewal back.
        if let (Some(kept), Some(lease)) = (&stored.lease, &mut row.lease)
            && kept.holder == lease.holder
        {
            lease.until = lease.until.max(kept.until);
        }
        tables.put(row);
        for event in events {
            tables.enqueue(event);
        }
        Ok(call.version + 1)
    }

    async fn list(&self, query: &ListQuery) -> Result<ListPage, StoreError> {
        let tables = self.tables();
        let cursor = match &query.starting_after {
            None => None,
            Some(id) => {
                let row = tables
                    .calls
                    .get(id.as_str())
                    .filter(|row| row.key_id == query.key_id)
                    .ok_or_else(|| StoreError::NotFound(id.clone()))?;
                Some((row.created_at, id.as_str().to_owned()))
            }
        };
        let before = query.created_before.map(|at| (at, String::new()));
        let upper = match cursor.into_iter().chain(before).min() {
            Some(bound) => Bound::Excluded(bound),
            None => Bound::Unbounded,
        };
        let mut page = ListPage::new(Vec::new(), false);
        let Some(index) = tables.by_key.get(&query.key_id) else {
            return Ok(page);
        };
        // Newest first: once past `created_after`, nothing further matches.
        let newest_first = index.range((Bound::Unbounded, upper)).rev();
        let in_window =
            newest_first.take_while(|(at, _)| query.created_after.is_none_or(|after| *at > after));
        for (_, id) in in_window {
            let row = &tables.calls[id];
            if !query.statuses.is_empty() && !query.statuses.contains(&row.status) {
                continue;
            }
            if page.calls.len() == query.limit {
                page.has_more = true;
                break;
            }
            page.calls.push(row.decode()?);
        }
        Ok(page)
    }

    async fn renew_leases(
        &self,
        holder: &InstanceId,
        calls: &[CallId],
        until: DateTime<Utc>,
    ) -> Result<Vec<CallId>, StoreError> {
        let mut tables = self.tables();
        let mut held = Vec::new();
        for id in calls {
            // Only the lease column moves: no new version, no new body.
            let running = tables.calls.get_mut(id.as_str());
            let running = running.filter(|row| !row.status.is_terminal());
            let lease = running.and_then(|row| row.lease.as_mut());
            if let Some(lease) = lease.filter(|lease| &lease.holder == holder) {
                lease.until = until;
                held.push(id.clone());
            }
        }
        Ok(held)
    }

    async fn claim_lapsed(&self, claim: &LeaseClaim) -> Result<Vec<StoredCall>, StoreError> {
        let mut tables = self.tables();
        let mut lapsed: Vec<(DateTime<Utc>, &String)> = tables
            .calls
            .iter()
            .filter_map(|(id, row)| {
                let lease = row.lease.as_ref()?;
                claim.takes(lease).then_some((lease.until, id))
            })
            .collect();
        lapsed.sort();
        lapsed.truncate(claim.limit);
        // Decode every row before changing any, so an unreadable body fails
        // the whole claim and leaves nothing half taken.
        let lease = CallLease::new(claim.holder.clone(), claim.until);
        let taken = lapsed
            .into_iter()
            .map(|(_, id)| {
                let row = &tables.calls[id];
                CallDocument::decode_body(id, row.version + 1, Some(lease.clone()), &row.body)
            })
            .collect::<Result<Vec<_>, _>>()?;
        for call in &taken {
            if let Some(row) = tables.calls.get_mut(call.record.id.as_str()) {
                row.version = call.version;
                row.lease = call.lease.clone();
            }
        }
        Ok(taken)
    }

    async fn put_recording(&self, id: &CallId, recording: Recording) -> Result<(), StoreError> {
        let mut tables = self.tables();
        if !tables.calls.contains_key(id.as_str()) {
            return Err(StoreError::NotFound(id.clone()));
        }
        tables.recordings.insert(id.clone(), recording);
        Ok(())
    }

    async fn recording(&self, id: &CallId) -> Result<Option<Recording>, StoreError> {
        Ok(self.tables().recordings.get(id).cloned())
    }
}

#[async_trait]
impl EventOutbox for VecStore {
    async fn claim_due(
        &self,
        now: DateTime<Utc>,
        limit: usize,
        lease: Duration,
    ) -> Result<Vec<PendingDelivery>, StoreError> {
        let mut tables = self.tables();
        let until = plus(now, lease);
        let picked = tables.claim_order(now, limit);
        let claimed = picked.into_iter().map(|seq| {
            let row = &mut tables.events[seq];
            let claim = ClaimToken::generate();
            row.claim = Some(claim);
            // Due again when the lease ends, in case the worker dies.
            row.state.next_attempt_at = Some(until);
            PendingDelivery::new(row.event.clone(), row.state.attempts, claim)
        });
        Ok(claimed.collect())
    }

    async fn record_attempt(
        &self,
        event_id: &str,
        claim: ClaimToken,
        now: DateTime<Utc>,
        outcome: AttemptOutcome,
    ) -> Result<RecordedAttempt, StoreError> {
        let mut tables = self.tables();
        let current = tables.event_mut(event_id);
        let Some(row) = current.filter(|row| row.claim == Some(claim)) else {
            return Ok(RecordedAttempt::Stale);
        };
        row.claim = None;
        let state = &mut row.state;
        match outcome {
            // A claim handed back unattempted: only its due time changes.
            AttemptOutcome::Postponed { retry_at } => state.next_attempt_at = Some(retry_at),
            AttemptOutcome::Failed {
                status,
                error,
                retry_at,
            } => {
                state.attempts += 1;
                (state.last_response_status, state.last_error) = (status, Some(error));
                state.next_attempt_at = retry_at;
                if retry_at.is_none() {
                    state.status = DeliveryStatus::GaveUp;
                }
            }
            AttemptOutcome::Delivered { status } => {
                state.attempts += 1;
                (state.last_response_status, state.last_error) = (Some(status), None);
                state.status = DeliveryStatus::Delivered;
                (state.next_attempt_at, state.delivered_at) = (None, Some(now));
            }
        }
        Ok(RecordedAttempt::Applied)
    }

    async fn next_due(&self) -> Result<Option<DateTime<Utc>>, StoreError> {
        let tables = self.tables();
        Ok(tables
            .events
            .iter()
            .filter_map(|row| row.state.next_attempt_at)
            .min())
    }

    async fn deliveries(&self, call_id: &CallId) -> Result<Vec<DeliveryState>, StoreError> {
        let tables = self.tables();
        let of_call = tables
            .events
            .iter()
            .filter(|row| &row.event.call_id == call_id);
        Ok(of_call.map(|row| row.state.clone()).collect())
    }

    async fn redeliver(&self, event_id: &str, now: DateTime<Utc>) -> Result<bool, StoreError> {
        let mut tables = self.tables();
        let Some(row) = tables.event_mut(event_id) else {
            return Ok(false);
        };
        row.claim = None;
        row.state.status = DeliveryStatus::Pending;
        row.state.delivered_at = None;
        row.state.next_attempt_at = Some(now);
        Ok(true)
    }
}

#[async_trait]
impl IdempotencyStore for VecStore {
    async fn begin(
        &self,
        key_id: &KeyId,
        idempotency_key: &str,
        fingerprint: [u8; 32],
        now: DateTime<Utc>,
        ttl: Duration,
        lease: Duration,
    ) -> Result<IdempotencyBegin, StoreError> {
        let rows = &mut self.tables().idempotency;
        // Records past their TTL are gone by contract; dropping them here
        // also keeps the table to one TTL's worth of keys.
        rows.retain(|_, row| elapsed(row.created_at, now) < ttl);
        let slot = (key_id.clone(), idempotency_key.to_owned());
        if let Some(row) = rows.get(&slot) {
            // A hold nobody renewed for a whole lease is a crashed holder's.
            let stale = row.response.is_none() && elapsed(row.renewed_at, now) >= lease;
            if !stale {
                return Ok(match &row.response {
                    _ if row.fingerprint != fingerprint => IdempotencyBegin::Mismatch,
                    Some(response) => IdempotencyBegin::Replay(response.clone()),
                    None => IdempotencyBegin::InProgress,
                });
            }
        }
        let token = HoldToken::generate();
        let row = IdempotencyRow {
            fingerprint,
            created_at: now,
            renewed_at: now,
            token,
            response: None,
        };
        rows.insert(slot, row);
        Ok(IdempotencyBegin::Started(token))
    }

    async fn renew(
        &self,
        key_id: &KeyId,
        idempotency_key: &str,
        token: HoldToken,
        now: DateTime<Utc>,
    ) -> Result<bool, StoreError> {
        let mut tables = self.tables();
        let Some(row) = tables.held(key_id, idempotency_key, token) else {
            return Ok(false);
        };
        row.renewed_at = row.renewed_at.max(now);
        Ok(true)
    }

    async fn complete(
        &self,
        key_id: &KeyId,
        idempotency_key: &str,
        token: HoldToken,
        response: StoredResponse,
    ) -> Result<(), StoreError> {
        if let Some(row) = self.tables().held(key_id, idempotency_key, token) {
            row.response = Some(response);
        }
        Ok(())
    }

    async fn abandon(
        &self,
        key_id: &KeyId,
        idempotency_key: &str,
        token: HoldToken,
    ) -> Result<(), StoreError> {
        let mut tables = self.tables();
        if tables.held(key_id, idempotency_key, token).is_some() {
            let slot = (key_id.clone(), idempotency_key.to_owned());
            tables.idempotency.remove(&slot);
        }
        Ok(())
    }
}

impl Persistence for VecStore {
    fn limits(&self) -> SharedLimits {
        SharedLimits::new(self.rate_limiter.clone(), self.usage_ledger.clone())
    }
}

#[tokio::main]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    // Panics on the first contract the store breaks.
    let store = VecStore::default();
    agentcall_conformance::store::run_all(&store).await;

    // A fresh one under a service (the suite leaves calls with long-lapsed
    // leases behind, which a running service would take over).
    let mut account = Account::new("acct_custom_store".parse()?, "whsec_custom_store".into());
    account.numbers = vec!["+14155550100".into()];
    account.default_caller_id = Some("+14155550100".into());
    let key = ApiKey::new("key_custom_store");
    let fast = SimulationConfig::new(Duration::from_millis(10), Duration::from_millis(50));
    let service = AgentCall::builder()
        .directory(Arc::new(
            StaticDirectory::new().with_account(account, [key.clone()]),
        ))
        .carrier(Arc::new(SimulatedCarrier::new(fast)))
        .store(Arc::new(VecStore::default()))
        .build()?;

    let me = service.authenticate(&key).await?.ok_or("unknown key")?;
    let request = PlacementRequest::new("+14155550125", "Confirm the delivery");
    let placed = service.place(&me, &request).await?;
    let ended = tokio::time::timeout(Duration::from_secs(10), async {
        loop {
            let record = service.get(&me, &placed.call_id).await?;
            if record.status.is_terminal() {
                return Ok::<_, ServiceError>(record);
            }
            tokio::time::sleep(Duration::from_millis(10)).await;
        }
    });
    let record = ended.await??;
    println!("{}", serde_json::to_string_pretty(&record)?);
    service.shutdown(Duration::from_secs(1)).await;
    println!("VecStore passed the store conformance suite and placed a call on it");
    Ok(())
}
