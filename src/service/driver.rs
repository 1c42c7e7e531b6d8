//! Following a running call: the carrier's reports move it, deadlines end
//! a carrier that goes quiet, and shutdown stops it.

use std::time::Duration;

use tokio::sync::mpsc;

use super::{AgentCall, CARRIER_LOST_TOKEN, SHUTDOWN_TOKEN};
use crate::dialer::{CarrierReport, DialRequest};
use crate::domain::{CallId, CallStatus};
use crate::state::{Ending, Transition};
use crate::store::StoredCall;

/// What the carrier is asked to run for a stored call; placement and
/// recovery ask for the same call the same way.
pub(super) fn dial_request(call: &StoredCall) -> DialRequest {
    DialRequest {
        call_id: call.record.id.clone(),
        to: call.record.to.clone(),
        caller_id: call.caller_id.clone(),
        objective: call.record.objective.clone(),
        context: call.context.clone(),
        fields: call.fields.clone(),
        max_duration: Duration::from_secs(call.reserved_minutes.saturating_mul(60)),
    }
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

impl AgentCall {
    /// Runs [`AgentCall::follow`] in a task of its own. The caller has
    /// counted the call in `running` already; the task uncounts it.
    pub(super) fn spawn_follow(
        &self,
        call_id: CallId,
        reports: mpsc::UnboundedReceiver<CarrierReport>,
    ) {
        let service = self.clone();
        tokio::spawn(async move {
            service.follow(call_id, reports).await;
            service.call_finished();
        });
    }

    /// Drives one call from the carrier's reports until it ends.
    async fn follow(&self, call_id: CallId, mut reports: mpsc::UnboundedReceiver<CarrierReport>) {
        let timing = self.inner.timing;
        let mut stop = self.inner.stop_calls.subscribe();
        let far = |after: Duration| tokio::time::Instant::now().checked_add(after);
        // Before the answer the carrier has the ring timeout; after it, the
        // reservation plus a minute. Past the deadline we hang up, and if
        // the carrier still says nothing within the hang-up grace the call
        // ends as `carrier_lost`.
        let mut deadline = far(timing.ring_timeout);
        let mut hung_up = false;
        loop {
            let report = tokio::select! {
                report = reports.recv() => report,
                _ = sleep_until(deadline) => {
                    if hung_up {
                        tracing::warn!(call_id = %call_id, "carrier ignored the hang-up; ending the call");
                        self.record_end(&call_id, Ending::failed(CARRIER_LOST_TOKEN), None, None).await;
                        return;
                    }
                    tracing::warn!(call_id = %call_id, "carrier overran the call's time limit; hanging up");
                    let _ = self.hang_up(&call_id).await;
                    hung_up = true;
                    deadline = far(timing.hang_up_grace);
                    continue;
                }
                _ = async { let _ = stop.wait_for(|stopping| *stopping).await; } => {
                    let _ = self.hang_up(&call_id).await;
                    self.record_end(&call_id, Ending::failed(SHUTDOWN_TOKEN), None, None).await;
                    return;
                }
            };
            let status = self.status_of(&call_id).await;
            if status.is_some_and(CallStatus::is_terminal) {
                // Ended here (a cancel) while the carrier still runs it.
                let _ = self.hang_up(&call_id).await;
                return;
            }
            match report {
                Some(CarrierReport::Dialing) => self.step(&call_id, Transition::Dial).await,
                Some(CarrierReport::Answered) => {
                    // A carrier that skips "dialing" still moves through it.
                    if status == Some(CallStatus::Queued) {
                        self.step(&call_id, Transition::Dial).await;
                    }
                    self.step(&call_id, Transition::Answer).await;
                    if let Ok(Some(call)) = self.inner.store.get(&call_id).await {
                        let limit = call.reserved_minutes.saturating_mul(60).saturating_add(60);
                        deadline = far(Duration::from_secs(limit));
                    }
                }
                Some(CarrierReport::Ended(outcome)) => {
                    self.end_from_carrier(&call_id, outcome, status).await;
                    return;
                }
                None => {
                    self.record_end(&call_id, Ending::failed(CARRIER_LOST_TOKEN), None, None)
                        .await;
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
                .apply_transition(call_id, transition, None, Some(ended_at))
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
