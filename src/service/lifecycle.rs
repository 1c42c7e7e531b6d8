//! The service's life around its calls: recovery of calls a previous
//! process left unfinished, graceful shutdown, and the count of running
//! calls both rely on.

use std::sync::atomic::Ordering;
use std::time::Duration;

use chrono::Utc;

use super::{AgentCall, ServiceError};

/// What [`AgentCall::recover`] did.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct RecoveryReport {
    /// Calls the carrier took over.
    pub resumed: usize,
    /// Calls ended as `failed` / `interrupted`.
    pub ended: usize,
    /// Calls the carrier had ended whose finishing (extraction) was cut
    /// short; they were finished with their real outcome.
    pub finished: usize,
    /// Ended calls whose reservation had not been settled; now settled.
    pub settled: usize,
    /// Calls that waited to be dialed (scheduled, or for their calling
    /// window) whose time had come: dialed now.
    pub started: usize,
}

impl AgentCall {
    /// Resolves the calls a previous process left unfinished (after a crash
    /// or a kill), so that none stays queued forever. Call it once at start,
    /// before placing calls.
    ///
    /// It takes over every call whose lease lapsed, and every call leased to
    /// this instance's own [`InstanceId`] (a stable id names the previous
    /// process of the same instance, which is gone); calls leased to other
    /// running instances are left alone. The service's lease keeper does the
    /// same for lapsed leases every third of the call lease while it runs,
    /// so calls of an instance that dies are taken over without anyone
    /// calling this.
    ///
    /// A call the carrier had already ended ([`StoredCall::carrier_end`]:
    /// the process died during extraction) is finished with the carrier's
    /// outcome, transcript and recording: extraction runs again (in the
    /// background) and its terminal event is queued.
    ///
    /// Every other unfinished call is offered to the carrier ([`Carrier::resume`]);
    /// if the carrier takes it over, it is followed as usual. Otherwise it
    /// ends as `failed` with error `interrupted`, its reservation is
    /// settled and its terminal event is queued. A call that was never
    /// answered bills nothing; an answered one bills from its answer to the
    /// recovery (at least a minute, at most its reservation), since the
    /// carrier may have kept it running that long. Events already queued before the crash
    /// are delivered by the outbox as usual.
    ///
    /// An ended call whose minutes were not settled (a crash or a ledger
    /// failure right after its end) is settled.
    ///
    /// [`InstanceId`]: crate::store::InstanceId
    /// [`Carrier::resume`]: crate::carrier::Carrier::resume
    /// [`StoredCall::carrier_end`]: crate::store::StoredCall::carrier_end
    pub async fn recover(&self) -> Result<RecoveryReport, ServiceError> {
        Ok(self.take_over(true, false).await?)
    }

    /// Stops the service gracefully:
    ///
    /// 1. new placements are refused (`503 shutting_down`);
    /// 2. calls in flight run to their end, for up to `grace`;
    /// 3. calls still running then are hung up and recorded as `failed` with
    ///    error `service_shutdown`, and their terminal events are queued;
    /// 4. webhook delivery continues until nothing is due or `grace` has
    ///    passed, then the worker stops. Undelivered events stay in the
    ///    outbox (a durable store delivers them after a restart).
    pub async fn shutdown(&self, grace: Duration) {
        let inner = &self.inner;
        // SeqCst pairs with the placement's count-then-check (see
        // `Admission`): a placement either sees this or is counted below.
        inner.accepting.store(false, Ordering::SeqCst);
        let deadline = tokio::time::Instant::now() + grace;
        let _ = tokio::time::timeout_at(deadline, self.wait_idle()).await;
        if self.calls_in_flight() > 0 {
            // Stored even when no call task has subscribed yet.
            inner.stop_calls.send_replace(true);
            let _ = tokio::time::timeout(Duration::from_secs(5), self.wait_idle()).await;
        }
        while tokio::time::Instant::now() < deadline {
            match inner.outbox.next_due().await {
                Ok(Some(at)) if at <= Utc::now() + chrono::Duration::seconds(1) => {
                    tokio::time::sleep(Duration::from_millis(20)).await
                }
                _ => break,
            }
        }
        let _ = inner.stop_delivery.send(true);
        let task = inner
            .delivery_task
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .take();
        if let Some(task) = task {
            let _ = task.await;
        }
        // Last: the leases of calls still being finished stay renewed
        // until the very end.
        let _ = inner.stop_leases.send(true);
        let task = inner
            .lease_task
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .take();
        if let Some(task) = task {
            let _ = task.await;
        }
    }

    /// Returns once no call is running.
    async fn wait_idle(&self) {
        loop {
            // Registered before the check, so a call that ends between the
            // check and the await still wakes us.
            let notified = self.inner.idle.notified();
            if self.calls_in_flight() == 0 {
                return;
            }
            notified.await;
        }
    }

    /// Uncounts a call whose task (or failed placement) is over.
    pub(super) fn call_finished(&self) {
        if self.inner.running.fetch_sub(1, Ordering::SeqCst) == 1 {
            self.inner.idle.notify_waiters();
        }
    }
}
