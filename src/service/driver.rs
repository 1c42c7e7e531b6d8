//! Following a running call: the carrier's reports move it, deadlines end
//! a carrier that goes quiet, and shutdown stops it.

use std::sync::atomic::Ordering;
use std::time::Duration;

use chrono::{DateTime, Utc};

use super::journal::Actor;
use super::{AgentCall, ServiceError};
use crate::carrier::{CarrierError, CarrierReport, DialRequest, ProgressHandle};
use crate::domain::CallError;
use crate::domain::{CallAttempt, CallId, CallStatus};
use crate::state::{Ending, Transition};
use crate::store::StoredCall;

/// What the carrier is asked to run for a stored call; placement and
/// recovery ask for the same call the same way.
pub(super) fn dial_request(call: &StoredCall) -> DialRequest {
    DialRequest {
        call_id: call.record.id.clone(),
        attempt: call.record.attempt,
        to: call.record.to.clone(),
        caller_id: call.caller_id.clone(),
        objective: call.record.objective.clone(),
        context: call.context.clone(),
        fields: call.fields.clone(),
        max_duration: Duration::from_secs(call.reserved_minutes.saturating_mul(60)),
    }
}

/// Whether `attempt` is the call's attempt in flight: its number, and not
/// yet ended and retried.
pub(super) fn is_current(call: &StoredCall, attempt: u32) -> bool {
    call.record.attempt == attempt && !super::journal::waits_for_retry(call)
}

/// Sleeps until `deadline`, or forever without one.
async fn sleep_until(deadline: Option<tokio::time::Instant>) {
    match deadline {
        Some(deadline) => tokio::time::sleep_until(deadline).await,
        None => std::future::pending().await,
    }
}

/// A carrier's end report made legal: the moves it skipped, then the end.
#[derive(Debug, Clone, PartialEq)]
pub(super) struct PlausibleEnd {
    /// Moves the report implies but the carrier never reported, in order.
    pub(super) missed: Vec<Transition>,
    /// The terminal status the call ends with.
    pub(super) status: CallStatus,
}

/// Turns a carrier's end report into a legal end, so that a lost or
/// contradictory report never leaves a call unfinished: `completed` or
/// `voicemail` before an answer report means the answer report was lost
/// (the call is moved through `in_progress`: both are connected calls); `no_answer` or `declined` after an answer means
/// the answered call ended (`completed`); a non-terminal status is a
/// carrier error (`failed`). `current` is the stored status (`None` when it
/// could not be read: a terminal report is then taken as it is).
pub(super) fn plausible_end(current: Option<CallStatus>, reported: CallStatus) -> PlausibleEnd {
    use CallStatus::*;
    let (missed, status) = match (current, reported) {
        (_, Queued | Dialing | InProgress) => (Vec::new(), Failed),
        (Some(Queued), Completed | Voicemail) => {
            (vec![Transition::Dial, Transition::Answer], reported)
        }
        (Some(Dialing), Completed | Voicemail) => (vec![Transition::Answer], reported),
        (Some(InProgress), NoAnswer | Declined) => (Vec::new(), Completed),
        (_, reported) => (Vec::new(), reported),
    };
    PlausibleEnd { missed, status }
}

/// What the store said when a followed call was looked at.
enum Checked {
    /// Still running, held by this instance; once answered, the deadline
    /// that follows from its answer.
    Running {
        answered_deadline: Option<Option<tokio::time::Instant>>,
    },
    /// Ended (`ended`: by a cancel, or by another instance that got the
    /// carrier's end), or being finished by another instance: nothing left
    /// to follow.
    Over { ended: bool },
    /// Taken over by another instance, or the attempt followed was retried:
    /// another follower has the call now.
    TakenOver,
}

/// The deadline of an answered call: its reservation plus a minute from
/// its answer, which may be a while back (a call taken over, or answered as
/// reported to another instance).
fn answered_deadline(call: &StoredCall, now: DateTime<Utc>) -> Option<tokio::time::Instant> {
    let limit = call.reserved_minutes.saturating_mul(60).saturating_add(60);
    let limit = Duration::from_secs(limit);
    let since = call
        .record
        .started_at
        .and_then(|at| (now - at).to_std().ok())
        .unwrap_or_default();
    tokio::time::Instant::now().checked_add(limit.saturating_sub(since))
}

impl AgentCall {
    /// Asks the carrier to start a stored call, waiting at most the dial
    /// timeout for it to accept (the carrier bounds its own request by the
    /// same setting, [`CarrierLink::dial_timeout`](crate::carrier::CarrierLink::dial_timeout));
    /// returns the call's progress reports. On a timeout the carrier may
    /// still start the call after we gave up on it: the dial's outcome is
    /// unknown ([`CarrierError::DialUnconfirmed`]), never "nothing rang".
    /// The caller records the call's end and then hangs up
    /// ([`end_unconfirmed`](Self::end_unconfirmed)), so the carrier's
    /// reports about what it ends are not taken for the call's own end.
    /// Placement and the start of a waiting call dial this way.
    pub(super) async fn dial_stored(
        &self,
        call: &StoredCall,
    ) -> Result<crate::carrier::ProgressReports, CarrierError> {
        let call_id = &call.record.id;
        let (progress, reports) = ProgressHandle::channel(call_id.clone());
        let limit = self.inner.timing.dial_timeout;
        let dialed = self.inner.carrier.dial(dial_request(call), progress);
        match tokio::time::timeout(limit, dialed).await {
            Ok(dialed) => dialed.map(|()| reports),
            Err(_) => Err(CarrierError::unconfirmed(format!(
                "the carrier did not accept the call within {limit:?}"
            ))),
        }
    }

    /// Has the carrier end whatever an unconfirmed dial may have started,
    /// once the call's end (`dial_unconfirmed`) is recorded; a failure is
    /// logged (a later callback about a call that is over here ends it).
    pub(super) async fn end_unconfirmed(&self, call_id: &CallId) {
        match self.hang_up(call_id).await {
            Ok(()) | Err(CarrierError::UnknownCall(_)) => {}
            Err(error) => {
                tracing::warn!(call_id = %call_id, %error, "could not end an unconfirmed dial at the carrier");
            }
        }
    }

    /// Runs [`AgentCall::follow`] in a task of its own. The caller has
    /// counted the call in `running` and marked it followed already; the
    /// task undoes both.
    pub(super) fn spawn_follow(
        &self,
        attempt: CallAttempt,
        reports: crate::carrier::ProgressReports,
    ) {
        let service = self.clone();
        let fut = async move {
            let call_id = attempt.call.clone();
            service.follow(&attempt, reports).await;
            service.unfollow(&call_id);
            service.call_finished();
        };
        tokio::spawn(fut);
    }

    /// Applies a carrier's report about an attempt of a call, read from and
    /// written to the store, on whichever instance receives it: a carrier
    /// whose reports arrive as HTTP callbacks (at any instance behind a load
    /// balancer) hands them here, with the attempt its dial was for
    /// ([`DialRequest::attempt`]). A report about a call that already ended,
    /// that another instance is finishing, or about an earlier attempt of
    /// a call that was retried, changes nothing.
    ///
    /// Returns once the report is stored. For an end, that is once the
    /// carrier's outcome is kept on the call ([`StoredCall::carrier_end`]);
    /// extraction and the terminal move then run in the background on this
    /// instance, which takes the call's lease for them.
    ///
    /// [`StoredCall::carrier_end`]: crate::store::StoredCall::carrier_end
    pub(crate) async fn carrier_report(
        &self,
        attempt: &CallAttempt,
        report: CarrierReport,
    ) -> Result<(), ServiceError> {
        let call_id = &attempt.call;
        let call = self
            .inner
            .store
            .get(call_id)
            .await?
            .ok_or(ServiceError::NotFound)?;
        if call.record.status.is_terminal()
            || call.carrier_end.is_some()
            || !is_current(&call, attempt.attempt)
        {
            return Ok(());
        }
        let status = call.record.status;
        match report {
            CarrierReport::Dialing => {
                self.apply_transition(call_id, Transition::Dial, None, None, Actor::Anyone)
                    .await?;
            }
            CarrierReport::Answered => {
                if status == CallStatus::Queued {
                    self.apply_transition(call_id, Transition::Dial, None, None, Actor::Anyone)
                        .await?;
                }
                self.apply_transition(call_id, Transition::Answer, None, None, Actor::Anyone)
                    .await?;
            }
            CarrierReport::Ended(outcome) => {
                // Marked followed first, so this instance's own takeover of
                // a lapsed lease leaves the finishing to this report.
                let following = self.follow_guard(call_id);
                let Some((end, actor)) =
                    self.take_carrier_end(call_id, outcome, Some(status)).await
                else {
                    return Ok(());
                };
                if end.status != CallStatus::Completed
                    || !self.inner.accepting.load(Ordering::SeqCst)
                {
                    // Nothing slow to run (no extraction), or shutting
                    // down: finish before answering, so the end is recorded
                    // before the carrier lets go of the call (its follower
                    // would take an unrecorded end for a lost carrier), and
                    // whatever shutdown has stopped waiting for.
                    self.finish(call_id, end, actor).await;
                    return Ok(());
                }
                following.hand_over();
                self.inner.running.fetch_add(1, Ordering::SeqCst);
                let (service, call_id) = (self.clone(), call_id.clone());
                tokio::spawn(async move {
                    service.finish(&call_id, end, actor).await;
                    service.unfollow(&call_id);
                    service.call_finished();
                });
            }
        }
        Ok(())
    }

    /// Looks at a followed attempt of a call in the store: whether it is
    /// still this instance's to follow, and when it was answered. `None`
    /// when the store cannot be read (the caller goes on as it was).
    async fn check(&self, attempt: &CallAttempt) -> Option<Checked> {
        let call = self.inner.store.get(&attempt.call).await.ok()??;
        let ended = call.record.status.is_terminal();
        Some(if ended || call.carrier_end.is_some() {
            Checked::Over { ended }
        } else if !self.holds(&call) || !is_current(&call, attempt.attempt) {
            // Another instance's now, or the attempt was retried (the next
            // one has a follower of its own): the carrier is not ours to touch.
            Checked::TakenOver
        } else {
            Checked::Running {
                answered_deadline: call
                    .record
                    .started_at
                    .map(|_| answered_deadline(&call, self.now())),
            }
        })
    }

    /// The deadline of an answered call as stored now (`None` when it cannot
    /// be read).
    async fn answered_deadline(&self, call_id: &CallId) -> Option<tokio::time::Instant> {
        let call = self.inner.store.get(call_id).await.ok()??;
        answered_deadline(&call, self.now())
    }

    /// Drives one call from the carrier's reports until it ends, looking at
    /// the store every third of the call lease for what other instances did
    /// (a cancel, a report they received, a takeover).
    async fn follow(&self, attempt: &CallAttempt, mut reports: crate::carrier::ProgressReports) {
        let call_id = &attempt.call;
        let timing = self.inner.timing;
        let mut stop = self.inner.stop_calls.subscribe();
        let far = |after: Duration| tokio::time::Instant::now().checked_add(after);
        // Before the answer the carrier has the ring timeout; after it, the
        // reservation plus a minute. Past the deadline we hang up, and if
        // the carrier still says nothing within the hang-up grace the call
        // ends as `carrier_lost`.
        let mut deadline = far(timing.ring_timeout);
        let mut answered = false;
        let mut hung_up = false;
        if let Some(Checked::Running {
            answered_deadline: Some(from_answer),
        }) = Box::pin(self.check(attempt)).await
        {
            // Resumed after its answer: its limit runs from the answer.
            answered = true;
            deadline = from_answer;
        }
        let beat = (timing.call_lease / 3).max(Duration::from_millis(1));
        // Woken when the lease keeper's renewal (one statement for all the
        // calls this process runs) skips this call: it ended elsewhere, or
        // another instance holds it. No per-call polling of the store.
        let lookout = self.lookout(call_id);
        loop {
            let report = tokio::select! {
                report = reports.recv() => report,
                _ = sleep_until(deadline) => {
                    // The carrier is only touched by the call's holder.
                    match Box::pin(self.check(attempt)).await {
                        Some(Checked::Over { ended }) => {
                            if ended {
                                let _ = Box::pin(self.hang_up(call_id)).await;
                            }
                            return;
                        }
                        Some(Checked::TakenOver) => return,
                        Some(Checked::Running { answered_deadline: Some(from_answer) }) if !answered && !hung_up => {
                            // Answered as reported to another instance: the
                            // limit runs from the answer, not the ring.
                            answered = true;
                            deadline = from_answer;
                            continue;
                        }
                        None if !self.leases_surely_held() => {
                            // The store is out of reach and this instance's
                            // leases may have lapsed: another instance may
                            // follow the call now. Look again in a beat.
                            deadline = far(beat);
                            continue;
                        }
                        _ => {}
                    }
                    if hung_up {
                        tracing::warn!(call_id = %call_id, "carrier ignored the hang-up; ending the call");
                        Box::pin(self.record_end(call_id, Ending::failed(CallError::CarrierLost), None, None, Actor::Follower(attempt.attempt))).await;
                        return;
                    }
                    tracing::warn!(call_id = %call_id, "carrier overran the call's time limit; hanging up");
                    let _ = Box::pin(self.hang_up(call_id)).await;
                    hung_up = true;
                    deadline = far(timing.hang_up_grace);
                    continue;
                }
                _ = async { let _ = stop.wait_for(|stopping| *stopping).await; } => {
                    if matches!(Box::pin(self.check(attempt)).await, Some(Checked::TakenOver)) {
                        return;
                    }
                    let _ = Box::pin(self.hang_up(call_id)).await;
                    Box::pin(self.record_end(call_id, Ending::failed(CallError::ServiceShutdown), None, None, Actor::Follower(attempt.attempt))).await;
                    return;
                }
                _ = lookout.wanted() => {
                    match Box::pin(self.check(attempt)).await {
                        Some(Checked::Over { ended }) => {
                            // Ended elsewhere (a cancel) while the carrier
                            // may still run it; an end being finished by
                            // another instance is its business.
                            if ended {
                                let _ = Box::pin(self.hang_up(call_id)).await;
                            }
                            return;
                        }
                        Some(Checked::TakenOver) => {
                            tracing::info!(call_id = %call_id, "call taken over by another instance; no longer following it");
                            return;
                        }
                        Some(Checked::Running { answered_deadline: Some(from_answer) }) if !answered && !hung_up => {
                            // Answered as reported to another instance.
                            answered = true;
                            deadline = from_answer;
                        }
                        _ => {}
                    }
                    continue;
                }
            };
            let Some(report) = report else {
                // The carrier let go of the call. If it reported the end
                // another way (a callback, through the store: kept there
                // before `carrier_report` returned), or another instance
                // follows the call, nothing was lost, and nothing is left
                // to hang up.
                if matches!(
                    Box::pin(self.check(attempt)).await,
                    Some(Checked::Over { .. } | Checked::TakenOver)
                ) {
                    return;
                }
                Box::pin(self.record_end(
                    call_id,
                    Ending::failed(CallError::CarrierLost),
                    None,
                    None,
                    Actor::Follower(attempt.attempt),
                ))
                .await;
                return;
            };
            let status = Box::pin(self.status_of(call_id)).await;
            if status.is_some_and(CallStatus::is_terminal) {
                // Ended here (a cancel) while the carrier still runs it.
                let _ = Box::pin(self.hang_up(call_id)).await;
                return;
            }
            match report {
                CarrierReport::Dialing => Box::pin(self.step(call_id, Transition::Dial)).await,
                CarrierReport::Answered => {
                    // A carrier that skips "dialing" still moves through it.
                    if status == Some(CallStatus::Queued) {
                        Box::pin(self.step(call_id, Transition::Dial)).await;
                    }
                    Box::pin(self.step(call_id, Transition::Answer)).await;
                    if !hung_up {
                        answered = true;
                        deadline = Box::pin(self.answered_deadline(call_id)).await;
                    }
                }
                CarrierReport::Ended(outcome) => {
                    if let Some((end, actor)) =
                        Box::pin(self.take_carrier_end(call_id, outcome, status)).await
                    {
                        Box::pin(self.finish(call_id, end, actor)).await;
                    }
                    return;
                }
            }
        }
    }

    /// Applies [`plausible_end`] to a call: records the moves the carrier
    /// skipped, at `ended_at` (no later than the end, so `startedAt` never
    /// follows `endedAt`), and returns the status to end it with.
    pub(super) async fn repair_end(
        &self,
        call_id: &CallId,
        current: Option<CallStatus>,
        reported: CallStatus,
        ended_at: chrono::DateTime<chrono::Utc>,
    ) -> CallStatus {
        let repair = plausible_end(current, reported);
        for transition in repair.missed {
            if let Err(error) = self
                .apply_transition(call_id, transition, None, Some(ended_at), Actor::Anyone)
                .await
            {
                tracing::warn!(call_id = %call_id, %error, "repaired move not applied");
            }
        }
        repair.status
    }
}

#[cfg(test)]
mod tests;
