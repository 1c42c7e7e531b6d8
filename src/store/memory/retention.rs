//! How long the in-memory store keeps what it no longer needs, so a
//! long-running process's memory levels off instead of growing with every
//! call it ever placed.

use std::collections::VecDeque;
use std::time::Duration;

use chrono::{DateTime, Utc};

use super::Inner;
use crate::domain::CallId;
use crate::store::DeliveryStatus;

/// What [`MemoryStore`](super::MemoryStore) keeps, and for how long. `None`
/// keeps it for the life of the process (the default of
/// [`MemoryStore::new`](super::MemoryStore::new)).
///
/// Times count from the call's end (`endedAt`), measured against the newest
/// time the store has been shown (the times it is given by its callers), and
/// are applied as the store is written to.
///
/// - `ended_calls`: an ended call, its recording and its webhook events are
///   dropped this long after the end, once every event is delivered or given
///   up (a call with events still pending is looked at again one period
///   later). A dropped call
///   reads as unknown (`404 not_found` over HTTP).
/// - `recordings`: a recording is dropped this long after the end, even
///   while its call is kept; recordings are most of a call's memory.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
#[non_exhaustive]
pub struct MemoryRetention {
    /// How long ended calls (with their events) are kept.
    pub ended_calls: Option<Duration>,
    /// How long recordings are kept.
    pub recordings: Option<Duration>,
}

impl MemoryRetention {
    /// Keeps ended calls for `ended_calls` and recordings for `recordings`.
    pub fn new(ended_calls: Option<Duration>, recordings: Option<Duration>) -> Self {
        Self {
            ended_calls,
            recordings,
        }
    }
}

/// Ended calls in the order they ended, waiting for their retention to run
/// out.
///
/// Each queue holds only what it will drop: `calls` one entry per ended
/// call (plus one per call looked at again while its events are pending),
/// `recordings` one per ended call that has a recording. So both are
/// bounded by what the store keeps, never by the calls it ever placed (an
/// entry per ended call under the default one-hour recording retention grew
/// by ~52 bytes per call placed, whether or not it had a recording).
#[derive(Debug, Default)]
pub(super) struct EndedCalls {
    /// (ended at, call), oldest first; for the call retention.
    calls: VecDeque<(DateTime<Utc>, CallId)>,
    /// (ended at, call) of ended calls with a recording, roughly oldest
    /// first (see [`EndedCalls::recorded`]); for the recording retention.
    recordings: VecDeque<(DateTime<Utc>, CallId)>,
    /// The newest time the store has been shown.
    pub(super) clock: Option<DateTime<Utc>>,
}

impl EndedCalls {
    /// Notes a time the store was shown; the store's clock never goes back.
    pub(super) fn observe(&mut self, at: DateTime<Utc>) {
        if self.clock.is_none_or(|clock| at > clock) {
            self.clock = Some(at);
        }
    }

    /// Notes that `id` ended at `ended_at`.
    pub(super) fn ended(
        &mut self,
        id: CallId,
        ended_at: DateTime<Utc>,
        retention: MemoryRetention,
    ) {
        self.observe(ended_at);
        if retention.ended_calls.is_some() {
            self.calls.push_back((ended_at, id));
        }
    }

    /// Notes that `id`, which ended at `ended_at`, has a recording: once the
    /// call has ended and its recording is stored, whichever comes second.
    ///
    /// A recording stored after the queue has moved past `ended_at` sits
    /// behind newer entries, so it may be dropped later than its time (by
    /// at most how late it arrived), never earlier.
    pub(super) fn recorded(
        &mut self,
        id: CallId,
        ended_at: DateTime<Utc>,
        retention: MemoryRetention,
    ) {
        if retention.recordings.is_some() {
            self.recordings.push_back((ended_at, id));
        }
    }

    /// How many entries each queue holds (calls, recordings).
    #[cfg(test)]
    pub(super) fn queued(&self) -> (usize, usize) {
        (self.calls.len(), self.recordings.len())
    }
}

/// Whether `since + keep` has passed by `clock`.
fn expired(since: DateTime<Utc>, keep: Duration, clock: DateTime<Utc>) -> bool {
    chrono::Duration::from_std(keep)
        .ok()
        .and_then(|keep| since.checked_add_signed(keep))
        .is_some_and(|until| until <= clock)
}

impl Inner {
    /// Drops what the retention no longer keeps. Amortized O(1) per ended
    /// call: each is looked at once when it expires, and once more per
    /// retention period while its events are still pending.
    pub(super) fn apply_retention(&mut self) {
        let retention = self.retention;
        let Some(clock) = self.ended.clock else {
            return;
        };
        if let Some(keep) = retention.recordings {
            while let Some((ended_at, _)) = self.ended.recordings.front() {
                if !expired(*ended_at, keep, clock) {
                    break;
                }
                if let Some((_, id)) = self.ended.recordings.pop_front() {
                    self.recordings.remove(&id);
                }
            }
        }
        let Some(keep) = retention.ended_calls else {
            return;
        };
        let mut waiting = Vec::new();
        while let Some((ended_at, _)) = self.ended.calls.front() {
            if !expired(*ended_at, keep, clock) {
                break;
            }
            let Some((_, id)) = self.ended.calls.pop_front() else {
                break;
            };
            // An unsettled call still holds its lease: its minutes are owed.
            let leased = self.leased.contains(&id);
            if self.events_settled(&id) && !leased {
                self.forget_call(&id);
            } else {
                waiting.push(id);
            }
        }
        // A call whose events are still pending (or not yet settled) is looked at again one
        // retention period from now, not on every write.
        for id in waiting {
            self.ended.calls.push_back((clock, id));
        }
    }

    /// Whether every event of `id` is delivered or given up.
    fn events_settled(&self, id: &CallId) -> bool {
        self.call_events.get(id).is_none_or(|ids| {
            ids.iter().all(|event_id| {
                self.events
                    .get(event_id)
                    .is_none_or(|entry| entry.state.status != DeliveryStatus::Pending)
            })
        })
    }

    /// Removes a call with its index entry, recording and events.
    fn forget_call(&mut self, id: &CallId) {
        self.leased.remove(id);
        if let Some(call) = self.calls.remove(id)
            && let Some(index) = self.by_key.get_mut(&call.key_id)
        {
            index.remove(&(call.created_at, id.clone()));
            if index.is_empty() {
                self.by_key.remove(&call.key_id);
            }
        }
        self.recordings.remove(id);
        for event_id in self.call_events.remove(id).unwrap_or_default() {
            if let Some(entry) = self.events.remove(&event_id) {
                self.by_seq.remove(&entry.seq);
                if let Some(at) = entry.state.next_attempt_at {
                    self.due.remove(&entry.event.account_id, at, entry.seq);
                }
            }
        }
    }
}
