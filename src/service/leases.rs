//! Call leases on the service's side: which calls this process follows,
//! the keeper that renews this instance's leases, and the takeover of
//! calls whose holder died (see [`crate::store::CallLease`]).
//!
//! Every call this instance places, resumes or finishes carries its lease.
//! The keeper renews them every third of the lease and, on the same beat,
//! takes over calls whose lease lapsed (their holder died or lost the
//! store for a whole lease) and resolves them as [`AgentCall::recover`]
//! does. So a crashed instance's calls are ended or resumed by the others
//! within about a lease and a third, with nobody calling `recover`.

use std::sync::Weak;
use std::sync::atomic::Ordering;
use std::time::Duration;

use chrono::{DateTime, Utc};
use tokio::sync::watch;
use tokio::task::JoinHandle;

use super::journal::Actor;
use super::{AgentCall, Inner, RecoveryReport};
use crate::carrier::ProgressHandle;
use crate::domain::{CallAttempt, CallError, CallId, CallStatus};
use crate::schedule::{opening_with_room, time_zones};
use crate::state::Ending;
use crate::store::{CallLease, InstanceId, LeaseClaim, StoreError, StoredCall};

/// Calls taken over per store round trip.
const CLAIM_BATCH: usize = 100;

impl AgentCall {
    /// A lease of this instance, from `now` for the configured lease.
    pub(super) fn fresh_lease(&self, now: DateTime<Utc>) -> CallLease {
        let lease = chrono::Duration::from_std(self.inner.timing.call_lease)
            .unwrap_or(chrono::Duration::MAX);
        let until = now
            .checked_add_signed(lease)
            .unwrap_or(DateTime::<Utc>::MAX_UTC);
        CallLease::new(self.inner.instance.clone(), until)
    }

    /// Whether this instance holds `call` (a call without a lease is
    /// nobody's, so anyone may act on it).
    pub(super) fn holds(&self, call: &StoredCall) -> bool {
        call.lease
            .as_ref()
            .is_none_or(|lease| lease.holder == self.inner.instance)
    }

    /// Marks a call as followed by this process until the guard drops (or,
    /// after [`FollowGuard::hand_over`], until its task calls
    /// [`AgentCall::unfollow`]).
    pub(super) fn follow_guard(&self, id: &CallId) -> FollowGuard<'_> {
        *self.following().entry(id.clone()).or_default() += 1;
        FollowGuard {
            service: self,
            id: id.clone(),
            handed_over: false,
        }
    }

    /// One task of this process no longer follows the call; the call is
    /// no longer followed once none does.
    pub(super) fn unfollow(&self, id: &CallId) {
        let mut following = self.following();
        if let Some(count) = following.get_mut(id) {
            *count -= 1;
            if *count == 0 {
                following.remove(id);
            }
        }
    }

    /// Registers the follow task of `id`; the keeper wakes the returned
    /// [`Notify`] when a renewal skips the call. Deregistered on drop.
    pub(super) fn lookout(&self, id: &CallId) -> Lookout<'_> {
        let notify = std::sync::Arc::new(tokio::sync::Notify::new());
        self.lookouts()
            .insert(id.clone(), std::sync::Arc::clone(&notify));
        Lookout {
            service: self,
            id: id.clone(),
            notify,
        }
    }

    /// Wakes the follow task of `id` on this process, if any, to look at
    /// the store (the call was retried: its attempt's follower is done).
    pub(super) fn wake_lookout(&self, id: &CallId) {
        if let Some(lookout) = self.lookouts().get(id) {
            lookout.notify_one();
        }
    }

    fn lookouts(
        &self,
    ) -> std::sync::MutexGuard<
        '_,
        std::collections::HashMap<CallId, std::sync::Arc<tokio::sync::Notify>>,
    > {
        self.inner
            .lookouts
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
    }

    fn following(&self) -> std::sync::MutexGuard<'_, std::collections::HashMap<CallId, u32>> {
        self.inner
            .following
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
    }

    /// Starts the task that renews this instance's leases and takes over
    /// lapsed ones, every third of the lease, until `stop` or until the
    /// service is dropped.
    ///
    /// Takeovers wait until this instance has reached the store for a whole
    /// lease: after an outage that every instance saw, the holders get a
    /// lease's time to renew before anyone takes their calls.
    pub(super) fn spawn_lease_keeper(&self, mut stop: watch::Receiver<bool>) -> JoinHandle<()> {
        let service: Weak<Inner> = std::sync::Arc::downgrade(&self.inner);
        let lease = self.inner.timing.call_lease;
        let beat = lease / 3;
        tokio::spawn(async move {
            let mut ticks = tokio::time::interval_at(tokio::time::Instant::now() + beat, beat);
            ticks.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
            // Takeovers run beside the renewals (a takeover may wait on the
            // carrier or on a failing store; renewals must not), one at a time.
            let mut takeover: Option<JoinHandle<()>> = None;
            loop {
                tokio::select! {
                    _ = ticks.tick() => {}
                    _ = stop.wait_for(|stopping| *stopping) => break,
                }
                let Some(inner) = service.upgrade() else {
                    break;
                };
                let service = AgentCall { inner };
                service.renew_leases().await;
                let idle = takeover.as_ref().is_none_or(JoinHandle::is_finished);
                let accepting = service.inner.accepting.load(Ordering::SeqCst);
                if idle && accepting {
                    // Waiting calls are nobody's: they are started at their
                    // time whatever the store did lately (the fallback for
                    // those whose instance's timer is gone). Calls a running
                    // instance let lapse wait until this instance has
                    // reached the store for a whole lease, so that after an
                    // outage their holders get a lease to renew.
                    let lapsed = service.store_healthy_for(lease);
                    takeover = Some(tokio::spawn(async move {
                        if let Err(error) = service.take_over(false, !lapsed).await {
                            tracing::warn!(%error, "taking over lapsed calls failed; the next beat tries again");
                        }
                    }));
                }
            }
            if let Some(task) = takeover {
                let _ = task.await;
            }
        })
    }

    /// Renews the leases of the calls this process follows (or, with none,
    /// reads the store once), and notes whether the store answered.
    async fn renew_leases(&self) {
        let ids: Vec<CallId> = self.following().keys().cloned().collect();
        let reached = if ids.is_empty() {
            // A read of no call: only whether the store answers matters.
            self.inner.store.get(&CallId::lowest()).await.map(|_| ())
        } else {
            let until = self.fresh_lease(self.now()).until;
            let renewed = self
                .inner
                .store
                .renew_leases(&self.inner.instance, &ids, until)
                .await;
            renewed.map(|renewed| {
                // A call not renewed ended, or another instance took it:
                // its follow task looks at the store. The others are not
                // read at all, however many calls run.
                let renewed: std::collections::HashSet<&CallId> = renewed.iter().collect();
                let lookouts = self.lookouts();
                for id in ids.iter().filter(|id| !renewed.contains(id)) {
                    if let Some(lookout) = lookouts.get(id) {
                        lookout.notify_one();
                    }
                }
            })
        };
        if let Err(error) = &reached {
            tracing::warn!(%error, "renewing call leases failed; they lapse unless a later renewal succeeds");
        }
        self.note_store(reached.is_ok());
    }

    /// Records whether the store just answered the keeper.
    fn note_store(&self, reached: bool) {
        let mut health = self.store_health();
        let now = tokio::time::Instant::now();
        if reached {
            health.last_ok = Some(now);
            health.healthy_since.get_or_insert(now);
        } else {
            health.healthy_since = None;
        }
    }

    /// Whether the keeper has reached the store for at least `period` on end.
    fn store_healthy_for(&self, period: Duration) -> bool {
        self.store_health()
            .healthy_since
            .is_some_and(|since| since.elapsed() >= period)
    }

    /// Whether this instance's leases surely still hold: the keeper renewed
    /// them less than a lease ago. When they may have lapsed, another
    /// instance may follow this instance's calls, so the carrier is left
    /// alone until the store says whose they are.
    pub(super) fn leases_surely_held(&self) -> bool {
        self.store_health()
            .last_ok
            .is_some_and(|at| at.elapsed() < self.inner.timing.call_lease)
    }

    fn store_health(&self) -> std::sync::MutexGuard<'_, StoreHealth> {
        self.inner
            .store_health
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
    }

    /// Takes over every call whose lease lapsed (and with `reclaim_own`,
    /// every call leased to this instance that this process does not
    /// follow) and resolves each: finishes the ones the carrier had ended,
    /// settles ended ones, offers running ones to the carrier and ends those
    /// it cannot resume as `failed` / `interrupted`. One takeover runs at a
    /// time, and every call claimed is marked followed at once, so two
    /// takeovers never resolve one call.
    ///
    /// With `reclaim_own` (an explicit [`AgentCall::recover`]) the calls are
    /// finished before this returns; otherwise (the keeper) finishing runs
    /// in the background.
    ///
    /// With `waiting_only`, only waiting calls whose time has come.
    pub(super) async fn take_over(
        &self,
        reclaim_own: bool,
        waiting_only: bool,
    ) -> Result<RecoveryReport, StoreError> {
        let _one_at_a_time = self.inner.takeover.lock().await;
        let mut report = RecoveryReport::default();
        loop {
            let now = self.now();
            let mut claim = LeaseClaim::new(
                self.inner.instance.clone(),
                now,
                self.fresh_lease(now).until,
                CLAIM_BATCH,
            );
            claim.reclaim_own = reclaim_own;
            claim.waiting_only = waiting_only;
            let claimed = self.inner.store.claim_lapsed(&claim).await?;
            let exhausted = claimed.len() < CLAIM_BATCH;
            // Calls this process follows already were only re-leased to it.
            let ours: Vec<StoredCall> = {
                let mut following = self.following();
                claimed
                    .into_iter()
                    .filter(|call| {
                        let count = following.entry(call.record.id.clone()).or_default();
                        // A call waiting for its time is nobody's task yet
                        // (a follower of its earlier attempt may still be
                        // winding down); any other call followed already
                        // was only re-leased to this process.
                        let ours = *count == 0 || call.waiting_until.is_some();
                        if ours {
                            *count += 1;
                        }
                        ours
                    })
                    .collect()
            };
            let progressed = !ours.is_empty();
            for call in ours {
                self.resolve_taken_over(call, &mut report, reclaim_own)
                    .await;
            }
            // A reclaim that only found calls this process follows would
            // find them again: stop rather than loop.
            if exhausted || !progressed {
                break;
            }
        }
        if report != RecoveryReport::default() {
            tracing::info!(
                resumed = report.resumed,
                ended = report.ended,
                finished = report.finished,
                settled = report.settled,
                "took over calls whose lease had lapsed"
            );
        }
        Ok(report)
    }

    /// Resolves one call this instance just took over and marked followed;
    /// unmarks it unless a task of its own carries on. A call the carrier
    /// ended is finished before this returns when `wait`.
    async fn resolve_taken_over(&self, call: StoredCall, report: &mut RecoveryReport, wait: bool) {
        let call_id = call.record.id.clone();
        if call.record.status.is_terminal() {
            let settled = self.settle(call).await;
            report.settled += usize::from(settled.settled);
            self.unfollow(&call_id);
            return;
        }
        if call.waiting_until.is_some() && call.record.status == CallStatus::Queued {
            self.start_waiting(call, report).await;
            return;
        }
        if let Some(end) = call.carrier_end.clone() {
            report.finished += 1;
            if wait {
                self.finish(&call_id, end, Actor::Holder).await;
                self.unfollow(&call_id);
                return;
            }
            // Extraction may take long: it runs in a task of its own,
            // counted as a running call so shutdown waits for it.
            self.inner.running.fetch_add(1, Ordering::SeqCst);
            let service = self.clone();
            tokio::spawn(async move {
                service.finish(&call_id, end, Actor::Holder).await;
                service.unfollow(&call_id);
                service.call_finished();
            });
            return;
        }
        let (progress, reports) = ProgressHandle::channel(call_id.clone());
        let request = super::driver::dial_request(&call);
        let limit = self.inner.timing.dial_timeout;
        let resumed =
            match tokio::time::timeout(limit, self.inner.carrier.resume(request, progress)).await {
                Ok(resumed) => resumed,
                Err(_) => Err(crate::carrier::CarrierError::unavailable(format!(
                    "the carrier did not answer the resume within {limit:?}"
                ))),
            };
        match resumed {
            Ok(true) => {
                self.inner.running.fetch_add(1, Ordering::AcqRel);
                self.spawn_follow(CallAttempt::new(call_id, call.record.attempt), reports);
                report.resumed += 1;
            }
            resumed => {
                if let Err(error) = resumed {
                    tracing::warn!(call_id = %call_id, %error, "carrier could not resume a call");
                }
                // The carrier may still be running it: ask it to stop.
                let _ = self.hang_up(&call_id).await;
                let ending = Ending::failed(CallError::Interrupted);
                self.record_end(&call_id, ending, None, None, Actor::Holder)
                    .await;
                self.unfollow(&call_id);
                report.ended += 1;
            }
        }
    }
}

/// How long a retry waits when a backend it needs (the account directory,
/// the rate limiter, the usage ledger) cannot answer, before it is tried
/// again.
const RETRY_BACKEND_WAIT: chrono::Duration = chrono::Duration::minutes(1);

/// What became of charging the limits for a retry's attempt.
enum Charged {
    /// The rate permit and the minutes reserved for the attempt.
    Yes(crate::guardrails::RatePermit, u64),
    /// Not now: the call waits until then and is looked at again.
    Later(DateTime<Utc>),
    /// Never: the call ends `failed` with this error token.
    Never(CallError),
}

impl AgentCall {
    /// Starts a call that waited to be dialed (scheduled, outside its
    /// calling window, or between the attempts of a retry), now that this
    /// instance took over its lapsed waiting lease (and marked it
    /// followed). A retried attempt whose settlement did not land is
    /// settled first. If its time has not come (a requeue whose instance
    /// died) or its calling window has closed meanwhile (this instance
    /// claimed it late), it waits again; a window that will never open
    /// again ends it `failed` with `outside_calling_window`. A retry's
    /// attempt is charged like a placement: the key's rate limit (a spent
    /// budget waits) and a fresh minute reservation (a reached cap ends the
    /// call `failed` with `over_minute_cap`).
    async fn start_waiting(&self, mut call: StoredCall, report: &mut RecoveryReport) {
        let call_id = call.record.id.clone();
        // Counted before the check, as a placement is: shutdown either
        // sees this start or it is refused here.
        self.inner.running.fetch_add(1, Ordering::SeqCst);
        let done = |service: &Self| {
            service.unfollow(&call_id);
            service.call_finished();
        };
        if !self.inner.accepting.load(Ordering::SeqCst) {
            // Shutting down: back to waiting, for another instance at once.
            call.lease = Some(CallLease::new(InstanceId::waiting(), self.now()));
            if let Err(error) = self.inner.store.update(&call, Vec::new()).await {
                tracing::warn!(call_id = %call_id, %error, "could not hand a waiting call back; it is taken over once this lease lapses");
            }
            done(self);
            return;
        }
        if super::journal::unsettled(&call) {
            call = self
                .settle_keeping(call, self.fresh_lease(self.now()))
                .await;
            // Not settled (the ledger is down: the lease lapses and the
            // next taker settles it), or no longer ours to start (a cancel
            // came while it settled).
            if !call.settled || !super::journal::waits_for_retry(&call) || !self.holds(&call) {
                done(self);
                return;
            }
        }
        // The first instant from which the call has room to ring inside
        // its window: now when it has room now, later when its time has
        // not come or the window has closed (or is about to) meanwhile.
        let now = self.now();
        let earliest = call.waiting_until.map_or(now, |at| at.max(now));
        let opens = self.first_ring(&call, earliest);
        match opens {
            Some(at) if at > now => {
                self.park(&mut call, at).await;
                done(self);
                return;
            }
            None => {
                let ending = Ending::failed(CallError::OutsideCallingWindow);
                self.record_end(&call_id, ending, None, None, Actor::Holder)
                    .await;
                done(self);
                report.ended += 1;
                return;
            }
            Some(_) => {}
        }
        if super::journal::waits_for_retry(&call) && call.retry.is_none() {
            // Its policy was dropped (a cancel) after the attempt was
            // retried: the wait ends here, never in another dial.
            let _ = self
                .apply_transition(
                    &call_id,
                    crate::state::Transition::Cancel,
                    None,
                    None,
                    Actor::Holder,
                )
                .await;
            done(self);
            report.ended += 1;
            return;
        }
        let mut charged = None;
        if super::journal::waits_for_retry(&call) {
            match self.charge_retry(&call, now).await {
                Charged::Yes(permit, reserved) => {
                    let next = crate::state::apply(
                        &call.record,
                        crate::state::Transition::NextAttempt,
                        now,
                    );
                    let Ok(next) = next else {
                        // Cannot happen: the call waits for its retry.
                        done(self);
                        return;
                    };
                    call.record = next.record;
                    call.reserved_minutes = reserved;
                    call.reserved_in = Some(self.inner.billing_period.start_of(now));
                    call.settled = false;
                    charged = Some(permit);
                }
                Charged::Later(at) => {
                    self.park(&mut call, at).await;
                    done(self);
                    return;
                }
                Charged::Never(token) => {
                    let ending = Ending::failed(token);
                    self.record_end(&call_id, ending, None, None, Actor::Holder)
                        .await;
                    done(self);
                    report.ended += 1;
                    return;
                }
            }
        }
        call.waiting_until = None;
        match self.inner.store.update(&call, Vec::new()).await {
            Ok(version) => call.version = version,
            Err(error) => {
                // A cancel got there first (a conflict), or the store
                // failed: as stored, the call is ended, or still waiting
                // under this instance's lease and taken over once it lapses.
                tracing::warn!(call_id = %call_id, %error, "could not start a waiting call");
                if let Some(permit) = charged {
                    // The attempt never started here: give back what it
                    // took, without settling the attempt (whoever does
                    // start it reserves and settles its own minutes).
                    self.refund(permit).await;
                    let held = super::journal::settlement(&call, &self.inner.billing_period);
                    self.release_reservation(&call.account_id, held).await;
                }
                done(self);
                return;
            }
        }
        if call.record.attempt > 1 {
            tracing::info!(call_id = %call_id, attempt = call.record.attempt, "retrying a call");
        }
        match self.dial_stored(&call).await {
            Ok(reports) => {
                // A cancel between the start and the dial found nothing to
                // hang up yet: look again, now that the carrier has it.
                let canceled = matches!(
                    self.inner.store.get(&call_id).await,
                    Ok(Some(current)) if current.record.status.is_terminal()
                );
                if canceled {
                    let _ = self.hang_up(&call_id).await;
                }
                self.spawn_follow(CallAttempt::new(call_id, call.record.attempt), reports);
                report.started += 1;
            }
            Err(error) => {
                // Nothing rang: a transient failure, which a retry policy
                // with attempts left tries again. Unless the dial's outcome
                // is unknown: a phone may have rung, so never again.
                tracing::warn!(call_id = %call_id, %error, "carrier could not start a waiting call");
                let unconfirmed =
                    matches!(error, crate::carrier::CarrierError::DialUnconfirmed { .. });
                let token = if unconfirmed {
                    CallError::DialUnconfirmed
                } else {
                    CallError::CarrierUnreachable
                };
                let ending = Ending::failed(token);
                self.record_end(&call_id, ending, None, None, Actor::Holder)
                    .await;
                if unconfirmed {
                    self.end_unconfirmed(&call_id).await;
                }
                done(self);
                report.ended += 1;
            }
        }
    }

    /// The first instant, from `earliest` on, at which `call` may start:
    /// `earliest` itself without a calling window, else the first instant
    /// its window leaves the ring timeout to ring in every zone of the
    /// number; `None` when the window never opens again.
    pub(super) fn first_ring(
        &self,
        call: &StoredCall,
        earliest: DateTime<Utc>,
    ) -> Option<DateTime<Utc>> {
        match &call.calling_window {
            None => Some(earliest),
            Some(window) => opening_with_room(
                window,
                time_zones(&call.record.to),
                earliest,
                self.inner.timing.ring_timeout,
            ),
        }
    }

    /// Puts a call back to wait until `at`, under a lease nobody holds
    /// until then.
    async fn park(&self, call: &mut StoredCall, at: DateTime<Utc>) {
        call.waiting_until = Some(at);
        call.lease = Some(CallLease::new(InstanceId::waiting(), at));
        match self.inner.store.update(call, Vec::new()).await {
            Ok(_) => self.start_at(at),
            Err(error) => {
                tracing::warn!(call_id = %call.record.id, %error, "could not put a call back to wait; it is taken over again");
            }
        }
    }

    /// Starts the waiting calls due at `at` then, on this instance: a timer
    /// on the service's clock, so a call this instance put to wait rings at
    /// its time rather than at the lease keeper's next beat (which remains
    /// the fallback when this instance is gone). The timer ends with the
    /// service.
    pub(super) fn start_at(&self, at: DateTime<Utc>) {
        if !self.inner.on_time_starts {
            return;
        }
        let service = std::sync::Arc::downgrade(&self.inner);
        let clock = std::sync::Arc::clone(&self.inner.clock);
        let mut stop = self.inner.stop_calls.subscribe();
        // A lease lapses once its time has passed, not at it.
        let after = at + chrono::Duration::milliseconds(1);
        tokio::spawn(async move {
            tokio::select! {
                () = clock.sleep_until(after) => {}
                _ = stop.wait_for(|stopping| *stopping) => return,
            }
            let Some(inner) = service.upgrade() else {
                return;
            };
            let service = AgentCall { inner };
            if !service.inner.accepting.load(Ordering::SeqCst) {
                return;
            }
            if let Err(error) = service.take_over(false, true).await {
                tracing::warn!(%error, "starting due waiting calls failed; the lease keeper tries again");
            }
        });
    }

    /// Charges the limits for the next attempt of a retried call, as a
    /// placement is charged: a rate permit of the key that placed it (at
    /// its account's per-minute limit) and a reservation of minutes in the
    /// billing period the attempt starts in.
    async fn charge_retry(&self, call: &StoredCall, now: DateTime<Utc>) -> Charged {
        let wait = now
            .checked_add_signed(RETRY_BACKEND_WAIT)
            .unwrap_or(DateTime::<Utc>::MAX_UTC);
        let limit = self.inner.timing.account_lookup_timeout;
        let account = match tokio::time::timeout(
            limit,
            self.inner.directory.account(&call.account_id),
        )
        .await
        {
            Ok(Ok(Some(account))) => account,
            Ok(Ok(None)) => {
                tracing::warn!(call_id = %call.record.id, account = %call.account_id, "the account of a retried call is gone; not retrying");
                return Charged::Never(CallError::PlacementFailed);
            }
            Ok(Err(error)) => {
                tracing::warn!(call_id = %call.record.id, %error, "account lookup failed; the retry waits");
                return Charged::Later(wait);
            }
            Err(_) => return Charged::Later(wait),
        };
        let permit = match self
            .inner
            .rate_limiter
            .try_acquire(&call.key_id, account.calls_per_minute, now)
            .await
        {
            Ok(permit) => permit,
            Err(crate::guardrails::LimitError::Limited(limited)) => {
                let after =
                    chrono::Duration::from_std(limited.retry_after).unwrap_or(RETRY_BACKEND_WAIT);
                return Charged::Later(now.checked_add_signed(after).unwrap_or(wait));
            }
            Err(crate::guardrails::LimitError::Unavailable(error)) => {
                tracing::warn!(call_id = %call.record.id, %error, "rate limiter unavailable; the retry waits");
                return Charged::Later(wait);
            }
        };
        let next = CallAttempt::new(call.record.id.clone(), call.record.attempt + 1);
        // An attempt's minutes count in the period it starts in.
        let period = self.inner.billing_period.start_of(now);
        let reserved = self
            .inner
            .ledger
            .reserve(
                &account.id,
                &next,
                period,
                account.minute_cap,
                self.max_call_minutes(),
            )
            .await;
        match reserved {
            Ok(minutes) => Charged::Yes(permit, minutes),
            Err(error) => {
                self.refund(permit).await;
                match error {
                    crate::guardrails::ReserveError::OverCap => {
                        Charged::Never(CallError::OverMinuteCap)
                    }
                    crate::guardrails::ReserveError::Unavailable(error) => {
                        tracing::warn!(call_id = %call.record.id, %error, "usage ledger unavailable; the retry waits");
                        Charged::Later(wait)
                    }
                }
            }
        }
    }
}

/// Whether the lease keeper reaches the store.
#[derive(Debug, Default)]
pub(super) struct StoreHealth {
    /// Since when every keeper beat reached the store (`None` after a miss).
    healthy_since: Option<tokio::time::Instant>,
    /// The last beat that reached it.
    last_ok: Option<tokio::time::Instant>,
}

/// A call marked as followed by this process; see [`AgentCall::follow_guard`].
pub(super) struct FollowGuard<'a> {
    service: &'a AgentCall,
    id: CallId,
    handed_over: bool,
}

impl FollowGuard<'_> {
    /// The call's task unmarks it when it ends ([`AgentCall::unfollow`]).
    pub(super) fn hand_over(mut self) {
        self.handed_over = true;
    }
}

impl Drop for FollowGuard<'_> {
    fn drop(&mut self) {
        if !self.handed_over {
            self.service.unfollow(&self.id);
        }
    }
}

/// A follow task's registration with the lease keeper (see
/// [`AgentCall::lookout`]).
pub(super) struct Lookout<'a> {
    service: &'a AgentCall,
    id: CallId,
    notify: std::sync::Arc<tokio::sync::Notify>,
}

impl Lookout<'_> {
    /// Resolves when the keeper's renewal skipped the call.
    pub(super) async fn wanted(&self) {
        self.notify.notified().await;
    }
}

impl Drop for Lookout<'_> {
    fn drop(&mut self) {
        // Only its own registration: a later follower of the same call (the
        // next attempt of a retried call) may have replaced it.
        let mut lookouts = self.service.lookouts();
        if lookouts
            .get(&self.id)
            .is_some_and(|notify| std::sync::Arc::ptr_eq(notify, &self.notify))
        {
            lookouts.remove(&self.id);
        }
    }
}
