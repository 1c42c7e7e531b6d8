//! Helpers for applications that receive webhooks.
//!
//! * [`Deduplicator`] / [`SharedDeduplicator`]: remember recently handled
//!   `eventId`s so redelivered events are processed once. Handling is two
//!   phases: [`begin`](Deduplicator::begin) claims an id, then
//!   [`complete`](Deduplicator::complete) marks it handled once the handler
//!   succeeded, or [`release`](Deduplicator::release) forgets the claim when
//!   it failed, so the sender's redelivery is processed again instead of
//!   being dropped as a duplicate.
//! * [`order_by_timestamp`]: sort a batch of event payloads by their ISO 8601
//!   `timestamp` field, since deliveries may arrive out of order.
//!
//! Deduplicate only after the request's signature has been verified, so
//! unauthenticated traffic cannot fill the table.
//!
//! ```
//! use std::time::Duration;
//! use agentcall::webhook::receiver::{Claim, SharedDeduplicator};
//!
//! let seen = SharedDeduplicator::new(10_000, Duration::from_secs(3600));
//! let now = 1_700_000_000;
//! // The handler fails: release the claim and answer 5xx; the sender retries.
//! assert_eq!(seen.begin("evt_1", now), Claim::New);
//! seen.release("evt_1");
//! // The redelivery is handled; complete it once the work is done.
//! assert_eq!(seen.begin("evt_1", now + 5), Claim::New);
//! seen.complete("evt_1", now + 6);
//! assert_eq!(seen.begin("evt_1", now + 10), Claim::Duplicate); // answer 2xx, skip it
//! ```

use std::collections::{HashMap, VecDeque};
use std::fmt;
use std::sync::{Arc, Mutex, PoisonError};
use std::time::Duration;

use chrono::{DateTime, Utc};
use serde_json::Value;

/// What [`Deduplicator::begin`] found for an event id.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Claim {
    /// Not handled yet: the caller now holds the claim and must end it with
    /// [`Deduplicator::complete`] or [`Deduplicator::release`].
    New,
    /// Handled already: acknowledge (2xx) without handling it again.
    Duplicate,
    /// Another handler holds the claim right now: answer a retryable error
    /// (e.g. 409) so the sender tries again; acknowledging would lose the
    /// event if that handler fails.
    InProgress,
}

/// How long a claim is held without `complete` or `release` before it counts
/// as abandoned (a handler that crashed), by default.
pub const DEFAULT_CLAIM_TIMEOUT: Duration = Duration::from_secs(60);

/// Remembers handled event ids for a time-to-live, with bounded memory.
///
/// Time is passed in as Unix seconds (`now`), keeping the type pure and
/// testable; it should not go backwards (if it does, entries merely live
/// longer). An id counts as handled for `ttl` after it was completed; later
/// sightings do not extend it. A claim ([`begin`](Self::begin)) not ended
/// within the claim timeout ([`DEFAULT_CLAIM_TIMEOUT`]) is treated as
/// abandoned. When more than `capacity` ids are live the oldest are
/// forgotten first. All operations are O(1) amortized.
///
/// This type takes `&mut self`; for sharing between request handlers use
/// [`SharedDeduplicator`].
#[derive(Clone)]
pub struct Deduplicator {
    capacity: usize,
    ttl: Duration,
    claim_timeout: Duration,
    /// Live ids, with the time first seen and the sequence number of the
    /// queue entry that owns them.
    seen: HashMap<Arc<str>, Entry>,
    /// Ids in insertion order. An entry whose `seq` differs from the map's is
    /// stale (the id was re-inserted) and is dropped when reached.
    order: VecDeque<QueueEntry>,
    next_seq: u64,
}

#[derive(Clone, Copy)]
struct Entry {
    seen_at: i64,
    seq: u64,
    /// Completed; otherwise claimed and still being handled.
    handled: bool,
}

#[derive(Clone)]
struct QueueEntry {
    id: Arc<str>,
    seen_at: i64,
    seq: u64,
}

impl Deduplicator {
    /// Creates a deduplicator holding at most `capacity` ids, each for `ttl`.
    ///
    /// A `capacity` of 0 remembers nothing: every id is reported as new.
    pub fn new(capacity: usize, ttl: Duration) -> Self {
        Self {
            capacity,
            ttl,
            claim_timeout: DEFAULT_CLAIM_TIMEOUT,
            seen: HashMap::new(),
            order: VecDeque::new(),
            next_seq: 0,
        }
    }

    /// Sets how long a claim may be held before it counts as abandoned.
    pub fn with_claim_timeout(mut self, timeout: Duration) -> Self {
        self.claim_timeout = timeout;
        self
    }

    /// Claims `event_id` for handling as of `now` (Unix seconds): see
    /// [`Claim`]. After [`Claim::New`] call [`complete`](Self::complete)
    /// when the handler succeeded, or [`release`](Self::release) when it
    /// failed.
    pub fn begin(&mut self, event_id: &str, now: i64) -> Claim {
        self.evict_expired(now);
        if let Some(entry) = self.seen.get(event_id)
            && !self.entry_expired(entry, now)
        {
            return if entry.handled {
                Claim::Duplicate
            } else {
                Claim::InProgress
            };
        }
        self.insert(event_id, now, false);
        Claim::New
    }

    /// Marks `event_id` handled as of `now`: for the TTL from now on,
    /// [`begin`](Self::begin) reports it as [`Claim::Duplicate`].
    pub fn complete(&mut self, event_id: &str, now: i64) {
        self.insert(event_id, now, true);
    }

    /// Forgets a claim whose handler failed, so a redelivery is handled
    /// again. An id already completed stays handled.
    pub fn release(&mut self, event_id: &str) {
        if self.seen.get(event_id).is_some_and(|entry| !entry.handled) {
            self.seen.remove(event_id);
        }
    }

    /// One-phase form for handlers that cannot fail: returns `true` and marks
    /// the id handled if it was neither handled nor claimed as of `now`;
    /// `false` otherwise. Prefer [`begin`](Self::begin) and
    /// [`complete`](Self::complete) when handling can fail.
    pub fn first_seen(&mut self, event_id: &str, now: i64) -> bool {
        self.evict_expired(now);
        if let Some(entry) = self.seen.get(event_id)
            && !self.entry_expired(entry, now)
        {
            return false;
        }
        self.insert(event_id, now, true);
        true
    }

    /// Records `event_id` (replacing any entry) and keeps memory bounded.
    fn insert(&mut self, event_id: &str, now: i64, handled: bool) {
        if self.capacity == 0 {
            return;
        }
        let seq = self.next_seq;
        self.next_seq += 1;
        let id: Arc<str> = Arc::from(event_id);
        let entry = Entry {
            seen_at: now,
            seq,
            handled,
        };
        self.seen.insert(Arc::clone(&id), entry);
        self.order.push_back(QueueEntry {
            id,
            seen_at: now,
            seq,
        });
        // Bound both structures; the queue may hold a few stale entries when
        // the clock went backwards, hence its looser bound.
        while self.seen.len() > self.capacity || self.order.len() > self.capacity.saturating_mul(2)
        {
            self.pop_front();
        }
    }

    /// Number of ids currently remembered (including any expired ones not yet
    /// evicted). Never exceeds the capacity.
    pub fn len(&self) -> usize {
        self.seen.len()
    }

    /// Whether no ids are remembered.
    pub fn is_empty(&self) -> bool {
        self.seen.is_empty()
    }

    /// The maximum number of ids remembered.
    pub fn capacity(&self) -> usize {
        self.capacity
    }

    /// Forgets every id.
    pub fn clear(&mut self) {
        self.seen.clear();
        self.order.clear();
    }

    fn entry_expired(&self, entry: &Entry, now: i64) -> bool {
        let lifetime = if entry.handled {
            self.ttl
        } else {
            self.claim_timeout
        };
        Self::older_than(entry.seen_at, now, lifetime)
    }

    fn expired(&self, seen_at: i64, now: i64) -> bool {
        Self::older_than(seen_at, now, self.ttl.max(self.claim_timeout))
    }

    fn older_than(seen_at: i64, now: i64, lifetime: Duration) -> bool {
        let age_secs = i128::from(now) - i128::from(seen_at);
        let lifetime_nanos = i128::try_from(lifetime.as_nanos()).unwrap_or(i128::MAX);
        age_secs >= 0 && age_secs * 1_000_000_000 >= lifetime_nanos
    }

    fn evict_expired(&mut self, now: i64) {
        while let Some(front) = self.order.front() {
            if !self.expired(front.seen_at, now) {
                break;
            }
            self.pop_front();
        }
    }

    fn pop_front(&mut self) {
        if let Some(front) = self.order.pop_front()
            && self.seen.get(&front.id).is_some_and(|e| e.seq == front.seq)
        {
            self.seen.remove(&front.id);
        }
    }
}

impl fmt::Debug for Deduplicator {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Deduplicator")
            .field("len", &self.seen.len())
            .field("capacity", &self.capacity)
            .field("ttl", &self.ttl)
            .finish()
    }
}

/// A thread-safe [`Deduplicator`] with a `&self` API, for sharing between
/// request handlers (e.g. in an `Arc` or as web-framework state).
///
/// A panic in another thread while holding the lock does not disable it: the
/// inner state is always consistent between operations, so a poisoned lock
/// is simply reused.
#[derive(Debug)]
pub struct SharedDeduplicator(Mutex<Deduplicator>);

impl SharedDeduplicator {
    /// Creates a shared deduplicator; see [`Deduplicator::new`].
    pub fn new(capacity: usize, ttl: Duration) -> Self {
        Self(Mutex::new(Deduplicator::new(capacity, ttl)))
    }

    /// See [`Deduplicator::begin`].
    pub fn begin(&self, event_id: &str, now: i64) -> Claim {
        self.lock().begin(event_id, now)
    }

    /// See [`Deduplicator::complete`].
    pub fn complete(&self, event_id: &str, now: i64) {
        self.lock().complete(event_id, now);
    }

    /// See [`Deduplicator::release`].
    pub fn release(&self, event_id: &str) {
        self.lock().release(event_id);
    }

    /// See [`Deduplicator::first_seen`].
    pub fn first_seen(&self, event_id: &str, now: i64) -> bool {
        self.lock().first_seen(event_id, now)
    }

    /// See [`Deduplicator::len`].
    pub fn len(&self) -> usize {
        self.lock().len()
    }

    /// See [`Deduplicator::is_empty`].
    pub fn is_empty(&self) -> bool {
        self.lock().is_empty()
    }

    /// See [`Deduplicator::clear`].
    pub fn clear(&self) {
        self.lock().clear();
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, Deduplicator> {
        self.0.lock().unwrap_or_else(PoisonError::into_inner)
    }
}

impl From<Deduplicator> for SharedDeduplicator {
    fn from(inner: Deduplicator) -> Self {
        Self(Mutex::new(inner))
    }
}

/// Parses an event payload's `timestamp` field (RFC 3339 / ISO 8601 with an
/// offset, e.g. `2024-05-01T12:00:00.250Z`) as UTC.
pub fn event_timestamp(event: &Value) -> Option<DateTime<Utc>> {
    let raw = event.get("timestamp")?.as_str()?;
    DateTime::parse_from_rfc3339(raw)
        .ok()
        .map(|t| t.with_timezone(&Utc))
}

/// Sorts event payloads by their `timestamp` (oldest first), breaking ties by
/// `eventId`.
///
/// Events whose `timestamp` is missing or unparsable go last (ordered by
/// `eventId` among themselves); an event without an `eventId` sorts before
/// ones with it at the same instant. The sort is stable, so events that
/// compare equal keep their relative order.
pub fn order_by_timestamp(events: &mut [Value]) {
    events.sort_by_cached_key(|event| {
        let ts = event_timestamp(event);
        let id = event
            .get("eventId")
            .and_then(Value::as_str)
            .map(str::to_owned);
        (ts.is_none(), ts, id)
    });
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;
    use serde_json::json;

    const HOUR: Duration = Duration::from_secs(3600);

    #[test]
    fn first_and_second_sight() {
        let mut d = Deduplicator::new(10, HOUR);
        assert!(d.is_empty());
        assert!(d.first_seen("a", 100));
        assert!(!d.first_seen("a", 100));
        assert!(!d.first_seen("a", 200));
        assert!(d.first_seen("b", 200));
        assert_eq!(d.len(), 2);
        d.clear();
        assert!(d.first_seen("a", 200));
    }

    #[test]
    fn a_failed_handler_releases_so_the_redelivery_is_handled() {
        let mut d = Deduplicator::new(10, HOUR);
        assert_eq!(d.begin("a", 100), Claim::New);
        // While the first handler runs, a concurrent redelivery must not be
        // acknowledged: it would be lost if that handler fails.
        assert_eq!(d.begin("a", 101), Claim::InProgress);
        d.release("a");
        assert_eq!(d.begin("a", 102), Claim::New);
        d.complete("a", 103);
        assert_eq!(d.begin("a", 104), Claim::Duplicate);
        // Releasing a handled id changes nothing.
        d.release("a");
        assert_eq!(d.begin("a", 105), Claim::Duplicate);
        assert!(!d.first_seen("a", 106));
    }

    #[test]
    fn an_abandoned_claim_frees_after_the_claim_timeout() {
        let mut d = Deduplicator::new(10, HOUR).with_claim_timeout(Duration::from_secs(30));
        assert_eq!(d.begin("a", 0), Claim::New);
        assert_eq!(d.begin("a", 29), Claim::InProgress);
        assert_eq!(d.begin("a", 30), Claim::New);
        d.complete("a", 31);
        // Completion counts the TTL from then, not from the claim.
        assert_eq!(d.begin("a", 31 + 3599), Claim::Duplicate);
        assert_eq!(d.begin("a", 31 + 3600), Claim::New);
    }

    #[test]
    fn ttl_expiry() {
        let mut d = Deduplicator::new(10, Duration::from_secs(60));
        assert!(d.first_seen("a", 1000));
        assert!(!d.first_seen("a", 1059));
        // Repeats do not extend the TTL.
        assert!(d.first_seen("a", 1060));
        assert!(!d.first_seen("a", 1119));
        assert!(d.first_seen("b", 1200));
        // Expired "a" was evicted.
        assert_eq!(d.len(), 1);
    }

    #[test]
    fn capacity_evicts_oldest() {
        let mut d = Deduplicator::new(3, HOUR);
        for id in ["a", "b", "c", "d"] {
            assert!(d.first_seen(id, 0));
        }
        assert_eq!(d.len(), 3);
        assert!(!d.first_seen("d", 0));
        assert!(!d.first_seen("b", 0));
        assert!(d.first_seen("a", 0)); // forgotten: was the oldest
        assert_eq!(d.capacity(), 3);
    }

    #[test]
    fn zero_capacity_remembers_nothing() {
        let mut d = Deduplicator::new(0, HOUR);
        assert!(d.first_seen("a", 0));
        assert!(d.first_seen("a", 0));
        assert!(d.is_empty());
    }

    #[test]
    fn clock_going_backwards_is_harmless() {
        let mut d = Deduplicator::new(3, Duration::from_secs(10));
        assert!(d.first_seen("x", 100));
        assert!(d.first_seen("y", 50)); // clock went backwards
        // y expired relative to 105 although x, ahead of it, has not.
        assert!(d.first_seen("y", 105));
        assert!(!d.first_seen("y", 106));
        assert!(d.first_seen("x", 111));
        // The stale queue entry for y@50 must not evict the live y@105.
        assert!(!d.first_seen("y", 112));
        assert!(d.len() <= 3);
    }

    #[test]
    fn extreme_times_do_not_overflow() {
        let mut d = Deduplicator::new(4, Duration::MAX);
        assert!(d.first_seen("a", i64::MIN));
        assert!(!d.first_seen("a", i64::MAX));
        let mut d = Deduplicator::new(4, Duration::ZERO);
        assert!(d.first_seen("a", i64::MAX));
        assert!(d.first_seen("a", i64::MAX));
    }

    #[test]
    fn shared_across_threads() {
        let shared = Arc::new(SharedDeduplicator::new(1000, HOUR));
        let handles: Vec<_> = (0..4)
            .map(|_| {
                let s = Arc::clone(&shared);
                std::thread::spawn(move || {
                    (0..100)
                        .filter(|i| s.first_seen(&format!("evt_{i}"), 0))
                        .count()
                })
            })
            .collect();
        let total: usize = handles.into_iter().map(|h| h.join().unwrap()).sum();
        assert_eq!(total, 100);
        assert_eq!(shared.len(), 100);
        assert!(!shared.is_empty());
        shared.clear();
        assert!(shared.is_empty());
        let from: SharedDeduplicator = Deduplicator::new(1, HOUR).into();
        assert!(from.first_seen("x", 0));
    }

    #[test]
    fn debug_output() {
        let d = Deduplicator::new(5, HOUR);
        assert_eq!(
            format!("{d:?}"),
            "Deduplicator { len: 0, capacity: 5, ttl: 3600s }"
        );
    }

    #[test]
    fn orders_by_timestamp_then_event_id() {
        let mut events = vec![
            json!({"eventId": "e3", "timestamp": "2024-05-01T12:00:02Z"}),
            json!({"eventId": "none"}),
            json!({"eventId": "e2", "timestamp": "2024-05-01T14:00:00+02:00"}),
            json!({"eventId": "e1", "timestamp": "2024-05-01T12:00:00Z"}),
            json!({"eventId": "bad", "timestamp": "yesterday"}),
            json!({"eventId": "e0", "timestamp": "2024-05-01T11:59:59.999Z"}),
            json!({"timestamp": "2024-05-01T12:00:00Z"}),
        ];
        order_by_timestamp(&mut events);
        let ids: Vec<_> = events
            .iter()
            .map(|e| e.get("eventId").and_then(Value::as_str).unwrap_or("-"))
            .collect();
        assert_eq!(ids, ["e0", "-", "e1", "e2", "e3", "bad", "none"]);
    }

    #[test]
    fn parses_event_timestamp() {
        let e = json!({"timestamp": "2024-05-01T12:00:00.250+00:00"});
        let t = event_timestamp(&e).unwrap();
        assert_eq!(t.timestamp_millis(), 1_714_564_800_250);
        assert_eq!(event_timestamp(&json!({"timestamp": 5})), None);
        assert_eq!(event_timestamp(&json!([])), None);
    }

    proptest! {
        #[test]
        fn len_never_exceeds_capacity(
            capacity in 0usize..8,
            ttl in 0u64..50,
            ops in proptest::collection::vec((0u8..16, -5i64..20), 0..200),
        ) {
            let mut d = Deduplicator::new(capacity, Duration::from_secs(ttl));
            let mut now = 0i64;
            for (id, step) in ops {
                now += step; // mostly forwards, sometimes backwards
                d.first_seen(&id.to_string(), now);
                prop_assert!(d.len() <= capacity);
                prop_assert!(d.order.len() <= capacity * 2);
            }
        }

        #[test]
        fn repeat_within_ttl_is_not_first(
            ids in proptest::collection::vec(0u8..32, 1..100),
        ) {
            // Capacity large enough and time fixed: exactly the first
            // occurrence of each id is reported.
            let mut d = Deduplicator::new(64, HOUR);
            let mut expected = std::collections::HashSet::new();
            for id in ids {
                let s = id.to_string();
                prop_assert_eq!(d.first_seen(&s, 7), expected.insert(s));
            }
        }
    }
}
