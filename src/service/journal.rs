//! The transition journal: the one path by which a call's record changes.
//!
//! [`AgentCall::apply_transition`] reads the call, applies the state
//! machine's move, stores the result together with the webhook event the
//! move emits (compare-and-set, retried on conflicts), and settles the
//! call's minutes when the move ended it. Keeping the three together is
//! what makes "one terminal event" and "settled once" hold: only the
//! update that wins the compare-and-set into a terminal status does either.
//!
//! Fencing: a move made on the instance's own initiative (a deadline, a
//! shutdown, a recovery; [`Actor::Holder`]) is only written while this
//! instance holds the call's lease, judged on the very version the
//! compare-and-set writes over, so an instance whose call was taken over
//! cannot write over the new holder. Facts (the carrier's reports, a
//! cancel; [`Actor::Anyone`]) are written by whichever instance learns them.
//! The instance that ends a call takes its lease until the call is settled.
//!
//! Retries: an end that the call's retry policy retries (see
//! [`RetryPolicy`](crate::schedule::RetryPolicy)) is written as
//! [`Transition::Retry`] instead: the attempt's outcome is kept, the call
//! goes back to `queued` and waits (a lease of [`InstanceId::waiting`]) for
//! its next attempt, at the delay after the end or at the next opening of
//! its calling window after that. No event fires; the call's one terminal
//! event is its final attempt's.
//!
//! Settlement is per attempt and reconcilable: the update that ends an
//! attempt (the call, or an attempt that is retried) stores the call with
//! `settled: false`, the ledger is told (retried with backoff while it
//! fails), and only then is `settled: true` written. A crash or a ledger
//! that stays down in between leaves a terminal, unsettled call that
//! [`AgentCall::recover`] settles. A crash after the ledger accepted and
//! before `settled` was written makes recovery settle the attempt again; the
//! ledger settles each attempt once (see
//! [`UsageLedger`](crate::guardrails::UsageLedger)), so the second
//! settlement changes nothing.

use std::collections::BTreeMap;
use std::time::Duration;

use chrono::{DateTime, Utc};

use super::AgentCall;
use crate::domain::{AccountId, CallAttempt, CallId, EventKind};
use crate::extract::Evidence;
use crate::guardrails::{BillingPeriod, billed_minutes};
use crate::state::{self, Ending, Transition};
use crate::store::{CallLease, CarrierNotes, InstanceId, NewEvent, StoreError, StoredCall};
use crate::webhook::EventPayload;

/// What extraction leaves on a call besides its values: why each null
/// field is null, and the evidence of each value.
#[derive(Debug, Clone, Default)]
pub(super) struct Notes {
    pub(super) reasons: BTreeMap<String, String>,
    pub(super) evidence: BTreeMap<String, Evidence>,
}

/// How many times [`AgentCall::record_end`] tries the store.
const END_ATTEMPTS: u32 = 10;

/// How many times [`AgentCall::settle_retrying`] tries the usage ledger.
const SETTLE_ATTEMPTS: u32 = 5;

/// The wait before the second settlement attempt; it doubles after each
/// failure (0.2 + 0.4 + 0.8 + 1.6 seconds between the five attempts, plus
/// the ledger's own time, a few seconds per attempt when its database is
/// unreachable).
const SETTLE_FIRST_BACKOFF: Duration = Duration::from_millis(200);

/// On whose behalf a move is written; see the module docs.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Actor {
    /// The instance holding the call, on its own initiative: written only
    /// while it holds the call's lease.
    Holder,
    /// The follower of one attempt of the call, on its own initiative (a
    /// deadline, a shutdown): written only while this instance holds the
    /// call's lease and that attempt is the call's attempt in flight (not
    /// retried since).
    Follower(u32),
    /// Whoever learned a fact about the call (a carrier report, a cancel).
    Anyone,
}

/// What the usage ledger is told when an attempt of a call ends: its
/// reservation is replaced by its billed minutes, in the period it was
/// reserved in.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) struct Settlement {
    /// The attempt settled.
    pub(super) attempt: CallAttempt,
    /// The billing period the reservation was taken in.
    pub(super) period: DateTime<Utc>,
    /// Minutes reserved for the attempt, all released.
    pub(super) reserved: u64,
    /// Talk time in whole minutes, rounded up; at least 1 for a connected
    /// call (one with `startedAt`), 0 when never answered.
    pub(super) billed: u64,
}

/// The settlement of a call's current attempt, once it ended: as the
/// record shows it, or, when the attempt was retried, as kept in
/// `attempts` (a cancel while the call waits for its retry settles the same
/// attempt with the same figures). The period is the one the attempt
/// reserved in, not that of its end: `created_at`'s for the first attempt,
/// the period a retry's attempt started in for later ones.
pub(super) fn settlement(call: &StoredCall, billing_period: &BillingPeriod) -> Settlement {
    let record = &call.record;
    let retried = (record.attempt as usize)
        .checked_sub(1)
        .and_then(|index| record.attempts.get(index));
    let (started, duration) = match retried {
        Some(retried) => (retried.started_at, Some(retried.duration_sec)),
        None => (record.started_at, record.duration_sec),
    };
    let minutes = billed_minutes(duration.unwrap_or(0));
    Settlement {
        attempt: CallAttempt::new(record.id.clone(), record.attempt),
        period: call
            .reserved_in
            .unwrap_or_else(|| billing_period.start_of(call.created_at)),
        reserved: call.reserved_minutes,
        // A connected attempt is billed at least its first minute, so no
        // end (a voicemail drop, a lost answer report) is free.
        billed: if started.is_some() {
            minutes.max(1)
        } else {
            minutes
        },
    }
}

/// Whether the call's current attempt has ended and was retried: the call
/// waits in `queued` for its next attempt.
pub(super) fn waits_for_retry(call: &StoredCall) -> bool {
    call.record.status == crate::domain::CallStatus::Queued
        && call.record.attempts.len() == call.record.attempt as usize
}

/// Whether the call's last ended attempt still has a reservation to settle.
pub(super) fn unsettled(call: &StoredCall) -> bool {
    !call.settled && (call.record.status.is_terminal() || waits_for_retry(call))
}

/// The outbox row for an event the move to `call` emits, first due
/// `first_delay` after `now` (at the end of time if that overflows).
pub(super) fn new_event(
    call: &StoredCall,
    kind: EventKind,
    url: &str,
    now: DateTime<Utc>,
    first_delay: Duration,
) -> NewEvent {
    let payload = EventPayload::new(kind, &call.record, now);
    let body = serde_json::to_vec(&payload).unwrap_or_default();
    // Beware: a delay beyond chrono's range (about 292 million years)
    // becomes zero here, not the end of time.
    let first = chrono::Duration::from_std(first_delay).unwrap_or_default();
    NewEvent {
        event_id: payload.event_id,
        call_id: call.record.id.clone(),
        account_id: call.account_id.clone(),
        kind,
        url: url.to_owned(),
        body: body.into(),
        created_at: now,
        first_attempt_at: now
            .checked_add_signed(first)
            .unwrap_or(DateTime::<Utc>::MAX_UTC),
    }
}

impl AgentCall {
    /// Applies a transition with compare-and-set, retrying on conflicts;
    /// queues the event it emits in the same store update, and settles the
    /// call's minutes if the move ended it. `notes` replace the extraction
    /// notes; `at` is when the move happened (default: now). `Ok(None)` when
    /// the move is illegal from the current status, or when `actor` is the
    /// holder and this instance no longer holds the call (both logged).
    pub(super) async fn apply_transition(
        &self,
        call_id: &CallId,
        transition: Transition,
        notes: Option<Notes>,
        at: Option<DateTime<Utc>>,
        actor: Actor,
    ) -> Result<Option<StoredCall>, StoreError> {
        loop {
            let current = self
                .inner
                .store
                .get(call_id)
                .await?
                .ok_or_else(|| StoreError::NotFound(call_id.clone()))?;
            if actor != Actor::Anyone && !self.holds(&current) {
                tracing::info!(call_id = %call_id, holder = ?current.lease.as_ref().map(|l| &l.holder), "call taken over by another instance; move not written");
                return Ok(None);
            }
            if let Actor::Follower(attempt) = actor
                && !super::driver::is_current(&current, attempt)
            {
                tracing::info!(call_id = %call_id, attempt, "the attempt was retried; its follower's move not written");
                return Ok(None);
            }
            let now = self.now();
            let ended_at = at.unwrap_or(now);
            // An end the retry policy retries is a retry instead.
            let (transition, retry_at) = match &transition {
                Transition::End(ending) => match self.retry_at(&current, ending, ended_at) {
                    Some(next) => (Transition::Retry(ending.clone()), Some(next)),
                    None => (transition.clone(), None),
                },
                other => (other.clone(), None),
            };
            let step = match state::apply(&current.record, transition, ended_at) {
                Ok(step) => step,
                Err(illegal) => {
                    tracing::warn!(call_id = %call_id, %illegal, "ignored an illegal move");
                    return Ok(None);
                }
            };
            let mut next = StoredCall {
                record: step.record,
                ..current.clone()
            };
            if next.record.status.is_terminal() || retry_at.is_some() {
                // The attempt is over: the carrier's end is now the record's,
                // and this instance holds the call until it has settled it.
                next.carrier_end = None;
                next.settled = false;
                next.lease = Some(self.fresh_lease(now));
            }
            if let Some(next_attempt) = retry_at {
                // The next attempt starts afresh with the carrier.
                next.waiting_until = Some(next_attempt);
                next.carrier_notes = CarrierNotes::default();
                next.extraction_notes.clear();
                next.extraction_evidence.clear();
            }
            if let Some(notes) = &notes {
                next.extraction_notes = notes.reasons.clone();
                next.extraction_evidence = notes.evidence.clone();
            }
            let first_delay = self.inner.delivery.first_delay();
            let events: Vec<NewEvent> = match (step.event, &next.webhook_url) {
                // The outbox runs on real time, whatever the service's clock.
                (Some(kind), Some(url)) => {
                    vec![new_event(&next, kind, url, Utc::now(), first_delay)]
                }
                _ => Vec::new(),
            };
            let queued = !events.is_empty();
            match self.inner.store.update(&next, events).await {
                Ok(version) => {
                    if queued {
                        self.inner.wake.notify_one();
                    }
                    next.version = version;
                    // Terminal statuses are final and an attempt is retried
                    // once, so this runs once per attempt.
                    if next.record.status.is_terminal() || retry_at.is_some() {
                        let settled = self.settle(next).await;
                        if let Some(at) = retry_at {
                            tracing::info!(call_id = %call_id, attempt = settled.record.attempt, next_attempt_at = %at, "attempt retried");
                            // A follower of the attempt (its carrier reports
                            // by callback) has nothing left to follow.
                            self.wake_lookout(call_id);
                        }
                        return Ok(Some(settled));
                    }
                    return Ok(Some(next));
                }
                Err(StoreError::Conflict { .. }) => continue,
                Err(error) => return Err(error),
            }
        }
    }

    /// When the next attempt of `call` may start, if its attempt that ended
    /// with `ending` at `ended_at` is retried: the policy must retry the
    /// outcome, allow another attempt, and the calling window must open
    /// again (at the policy's delay after the end, or later with room to
    /// ring). `None`: the end is the call's.
    fn retry_at(
        &self,
        call: &StoredCall,
        ending: &Ending,
        ended_at: DateTime<Utc>,
    ) -> Option<DateTime<Utc>> {
        let policy = call.retry?;
        let attempt = call.record.attempt;
        let retried = attempt < u32::from(policy.max_attempts())
            && !waits_for_retry(call)
            && policy.retries(ending.status, ending.error)
            && state::retryable(call.record.status, ending.status);
        if !retried {
            return None;
        }
        let delay = chrono::Duration::from_std(policy.delay_after(attempt)).ok()?;
        let earliest = ended_at.checked_add_signed(delay)?;
        self.first_ring(call, earliest)
    }

    /// Applies a carrier-reported move; a failure is logged, not returned,
    /// because the call's task goes on with the next report either way.
    pub(super) async fn step(&self, call_id: &CallId, transition: Transition) {
        let applied = self
            .apply_transition(call_id, transition, None, None, Actor::Anyone)
            .await;
        if let Err(error) = applied {
            tracing::warn!(call_id = %call_id, %error, "carrier report not applied");
        }
    }

    /// Ends a call, retrying a failing store with backoff (ten attempts,
    /// about 33 seconds of waiting between them, plus the store's own
    /// time) so that a passing outage does not leave the call unfinished;
    /// recovery after a restart covers a longer one.
    pub(super) async fn record_end(
        &self,
        call_id: &CallId,
        ending: Ending,
        notes: Option<Notes>,
        at: Option<DateTime<Utc>>,
        actor: Actor,
    ) {
        let mut backoff = Duration::from_millis(100);
        for attempt in 1..=END_ATTEMPTS {
            let transition = Transition::End(ending.clone());
            match self
                .apply_transition(call_id, transition, notes.clone(), at, actor)
                .await
            {
                Ok(_) => return,
                Err(error) if attempt == END_ATTEMPTS => {
                    tracing::error!(call_id = %call_id, %error, "could not record the end of a call");
                }
                Err(error) => {
                    tracing::warn!(call_id = %call_id, %error, attempt, "recording the end of a call failed; retrying");
                    tokio::time::sleep(backoff).await;
                    backoff = (backoff * 2).min(Duration::from_secs(10));
                }
            }
        }
    }

    /// Replaces the reservation of a call's last ended attempt (the call's
    /// end, or an attempt that was retried) by its billed minutes (the
    /// ledger retried with backoff, see [`AgentCall::settle_retrying`]),
    /// then records that it did: `settled`, and the lease released (an
    /// ended call needs no one any more; a retried one waits for its next
    /// attempt under [`InstanceId::waiting`]). When the ledger stays down,
    /// or the store fails, the call is returned as it was and stays
    /// unsettled, under this instance's lapsing lease, for whoever takes it
    /// over to settle.
    pub(super) async fn settle(&self, call: StoredCall) -> StoredCall {
        self.settle_then(call, None).await
    }

    /// [`AgentCall::settle`], leaving the call under `keep` instead of
    /// releasing its lease: the instance about to start its next attempt
    /// keeps the call its own meanwhile.
    pub(super) async fn settle_keeping(&self, call: StoredCall, keep: CallLease) -> StoredCall {
        self.settle_then(call, Some(keep)).await
    }

    async fn settle_then(&self, call: StoredCall, keep: Option<CallLease>) -> StoredCall {
        let settlement = settlement(&call, &self.inner.billing_period);
        // Nothing reserved, nothing to tell (a ledger settles an attempt
        // once, so even a second settlement would change nothing).
        if settlement.reserved > 0
            && !self
                .settle_retrying(&call.account_id, settlement.clone())
                .await
        {
            tracing::warn!(call_id = %call.record.id, "settlement failed; recovery settles the call");
            return call;
        }
        let mut current = call;
        loop {
            let waiting = (!current.record.status.is_terminal())
                .then_some(current.waiting_until)
                .flatten();
            let released = waiting.map(|until| CallLease::new(InstanceId::waiting(), until));
            let mut next = StoredCall {
                settled: true,
                lease: match (&keep, current.record.status.is_terminal()) {
                    (Some(keep), false) => Some(keep.clone()),
                    _ => released,
                },
                ..current.clone()
            };
            if waiting.is_some() {
                // Settled: the next attempt reserves its own minutes.
                next.reserved_minutes = 0;
            }
            match self.inner.store.update(&next, Vec::new()).await {
                Ok(version) => {
                    next.version = version;
                    if let Some(until) = waiting.filter(|_| {
                        next.lease
                            .as_ref()
                            .is_some_and(|l| l.holder == InstanceId::waiting())
                    }) {
                        // Released to wait for its next attempt: started here at its time.
                        self.start_at(until);
                    }
                    return next;
                }
                Err(StoreError::Conflict { .. }) => {
                    match self.inner.store.get(&current.record.id).await {
                        // The same attempt, still unsettled (a cancel came
                        // between): record the settlement on what is stored.
                        Ok(Some(fresh))
                            if unsettled(&fresh)
                                && fresh.record.attempt == settlement.attempt.attempt =>
                        {
                            current = fresh
                        }
                        Ok(Some(fresh)) => return fresh,
                        _ => return current,
                    }
                }
                Err(error) => {
                    tracing::warn!(call_id = %current.record.id, %error, "settled, but not recorded as settled");
                    return current;
                }
            }
        }
    }

    /// Gives back the reservation of an attempt that never started here,
    /// without settling the attempt ([`UsageLedger::release`]), retried as
    /// a settlement is (see [`AgentCall::settle_retrying`]).
    ///
    /// [`UsageLedger::release`]: crate::guardrails::UsageLedger::release
    pub(super) async fn release_reservation(&self, account: &AccountId, held: Settlement) {
        self.tell_ledger(account, LedgerChange::Release, &held)
            .await;
    }

    /// Tells the usage ledger about a settlement, retrying a failing ledger
    /// with backoff ([`SETTLE_ATTEMPTS`] attempts, each failure logged at
    /// warn); `true` once it is applied. If every attempt fails that is
    /// logged at error level with the account, the period and the minutes
    /// reserved and billed: a stored call stays unsettled for recovery; a
    /// release without a stored call (a failed insert) is for an operator.
    pub(super) async fn settle_retrying(
        &self,
        account: &AccountId,
        settlement: Settlement,
    ) -> bool {
        self.tell_ledger(account, LedgerChange::Settle, &settlement)
            .await
    }

    /// Applies `change` for `held` in the usage ledger, [`SETTLE_ATTEMPTS`]
    /// times at most, the wait doubling between them; `true` once applied.
    async fn tell_ledger(
        &self,
        account: &AccountId,
        change: LedgerChange,
        held: &Settlement,
    ) -> bool {
        let Settlement {
            attempt: call,
            period,
            reserved,
            billed,
        } = held;
        let ledger = &self.inner.ledger;
        let mut backoff = SETTLE_FIRST_BACKOFF;
        for attempt in 1..=SETTLE_ATTEMPTS {
            let told = match change {
                LedgerChange::Settle => {
                    ledger
                        .settle(account, call, *period, *reserved, *billed)
                        .await
                }
                LedgerChange::Release => ledger.release(account, call, *period, *reserved).await,
            };
            match told {
                Ok(()) => return true,
                Err(error) if attempt == SETTLE_ATTEMPTS => {
                    tracing::error!(
                        %account, %call, %period, reserved, billed, ?change, %error,
                        "not applied: the usage ledger failed {SETTLE_ATTEMPTS} times"
                    );
                }
                Err(error) => {
                    tracing::warn!(%account, %call, %period, reserved, billed, ?change, %error, attempt, "the usage ledger failed; retrying");
                    tokio::time::sleep(backoff).await;
                    backoff *= 2;
                }
            }
        }
        false
    }
}

/// What the usage ledger is told about an attempt's reservation.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum LedgerChange {
    /// Replaced by the minutes billed ([`UsageLedger::settle`]).
    ///
    /// [`UsageLedger::settle`]: crate::guardrails::UsageLedger::settle
    Settle,
    /// Given back, the attempt not settled ([`UsageLedger::release`]).
    ///
    /// [`UsageLedger::release`]: crate::guardrails::UsageLedger::release
    Release,
}

#[cfg(test)]
mod tests;
