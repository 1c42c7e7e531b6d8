//! Placing a call (checks, reservation, record, dial) and cancelling one.

use std::sync::atomic::Ordering;
use std::time::Duration;

use chrono::{DateTime, Utc};
use serde_json::{Map, Value};

use super::journal::Actor;
use super::{AgentCall, ServiceError};
use crate::accounts::Principal;
use crate::carrier::CarrierError;
use crate::domain::CallError;
use crate::domain::{CallAttempt, CallId, CallRecord, CallStatus, PlacementRequest};
use crate::guardrails::{ApprovedPlacement, LimitError, RatePermit, Rejection, ReserveError};
use crate::schedule::{CallingWindow, opening_within, time_zones};
use crate::state::{Ending, Transition};
use crate::store::StoredCall;

/// The answer to an accepted placement.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(rename_all = "camelCase")]
pub struct Placed {
    /// The new call's id.
    #[cfg_attr(
        feature = "openapi",
        schema(value_type = String, pattern = "^call_[0-9a-f]{32}$")
    )]
    pub call_id: CallId,
    /// `queued`; `failed` when the carrier could not confirm the dial
    /// (the record's error is `dial_unconfirmed`).
    pub status: CallStatus,
}

impl AgentCall {
    /// Places a call from a typed request, checking it in the documented
    /// order (typed all the way: no JSON round trip). Returns once the
    /// carrier accepted the call; the call then runs in its own task.
    pub async fn place(
        &self,
        principal: &Principal,
        request: &PlacementRequest,
    ) -> Result<Placed, ServiceError> {
        let admission = self.admit()?;
        let approved = self
            .inner
            .guardrails
            .validate(request, &principal.account)?;
        self.place_approved(principal, approved, admission).await
    }

    /// Places a call from a request body (a JSON object), checking it in the
    /// documented order. Returns once the carrier accepted the call; the call
    /// then runs in its own task.
    pub async fn place_json(
        &self,
        principal: &Principal,
        body: &Map<String, Value>,
    ) -> Result<Placed, ServiceError> {
        let admission = self.admit()?;
        let approved = self
            .inner
            .guardrails
            .validate_json(body, &principal.account)?;
        self.place_approved(principal, approved, admission).await
    }

    /// Counts a placement in before its checks, so `shutdown` (which stops
    /// accepting and then waits for the count) either refuses it or waits
    /// for its call; a placement can never slip past both.
    fn admit(&self) -> Result<Admission<'_>, ServiceError> {
        let admission = Admission::enter(self);
        if !self.inner.accepting.load(Ordering::SeqCst) {
            return Err(ServiceError::ShuttingDown);
        }
        Ok(admission)
    }

    /// Charges the limits, records and dials an approved placement.
    async fn place_approved(
        &self,
        principal: &Principal,
        approved: ApprovedPlacement,
        admission: Admission<'_>,
    ) -> Result<Placed, ServiceError> {
        let inner = &self.inner;
        let account = &principal.account;
        let now = self.now();
        let window = approved
            .request
            .calling_window
            .or(account.calling_window)
            .or_else(|| {
                let region = approved.destination.region;
                (inner.default_calling_windows && matches!(region, Some("US" | "CA")))
                    .then_some(CallingWindow::US_DEFAULT)
            });
        // The rate limit is charged before the window search, so every
        // search (bounded, but costlier for a crafted window on a number
        // spanning many zones) spends the key's budget.
        // An outage of either limit is a store error (503), never a 429:
        // the client should retry shortly, not back off as if over a limit.
        let permit = match inner
            .rate_limiter
            .try_acquire(&principal.key_id, principal.calls_per_minute, now)
            .await
        {
            Ok(permit) => permit,
            Err(LimitError::Limited(limited)) => {
                return Err(Rejection::RateLimited(limited.retry_after).into());
            }
            Err(LimitError::Unavailable(error)) => {
                return Err(ServiceError::LimitsUnavailable(error));
            }
        };
        let start = plan_start(&approved.request, window, inner.timing.ring_timeout, now)?;
        let period = inner.billing_period.start_of(now);
        let call_id = CallId::generate();
        let first = CallAttempt::first(call_id.clone());
        let reserved = match inner
            .ledger
            .reserve(
                &account.id,
                &first,
                period,
                account.minute_cap,
                self.max_call_minutes(),
            )
            .await
        {
            Ok(reserved) => reserved,
            Err(error) => {
                self.refund(permit).await;
                return Err(match error {
                    ReserveError::OverCap => Rejection::OverMinuteCap.into(),
                    ReserveError::Unavailable(error) => ServiceError::LimitsUnavailable(error),
                });
            }
        };
        let request = approved.request;
        let mut record = CallRecord::queued(call_id, request.to.clone(), request.objective.clone());
        record.metadata = request.metadata;
        record.scheduled_at = start.scheduled_at;
        let waits = start.at > now;
        let lease = if waits {
            // Nobody's until it may start: the first instance to claim the
            // lapsed lease then dials it (see `start_waiting`).
            crate::store::CallLease::new(crate::store::InstanceId::waiting(), start.at)
        } else {
            self.fresh_lease(now)
        };
        let call = StoredCall {
            record,
            account_id: account.id.clone(),
            key_id: principal.key_id.clone(),
            created_at: now,
            caller_id: approved.caller_id,
            context: request.context,
            fields: request.fields,
            webhook_url: request.webhook_url,
            reserved_minutes: reserved,
            reserved_in: None,
            extraction_notes: Default::default(),
            extraction_evidence: Default::default(),
            carrier_end: None,
            settled: false,
            lease: Some(lease),
            carrier_notes: Default::default(),
            calling_window: start.window,
            waiting_until: waits.then_some(start.at),
            retry: request.retry.or(account.retry),
            version: 0,
        };
        // Followed from before the insert, so a concurrent `recover` that
        // reclaims this instance's leases leaves the call to this placement.
        let following = self.follow_guard(&call.record.id);
        if let Err(error) = inner.store.insert(&call).await {
            // Nothing was placed: give back the permit and the whole
            // reservation, billing nothing. The release is retried in the
            // background (see `settle_retrying`) so the client gets its
            // answer now.
            self.refund(permit).await;
            let release = super::journal::Settlement {
                attempt: first,
                period,
                reserved,
                billed: 0,
            };
            let (service, account_id) = (self.clone(), account.id.clone());
            tokio::spawn(async move { service.settle_retrying(&account_id, release).await });
            return Err(error.into());
        }
        if waits {
            tracing::info!(call_id = %call.record.id, starts_at = %start.at, "call waits to be dialed");
            self.start_at(start.at);
            return Ok(Placed {
                call_id: call.record.id,
                status: CallStatus::Queued,
            });
        }
        let call_id = call.record.id.clone();
        let reports = match self.dial_stored(&call).await {
            Ok(reports) => reports,
            Err(error) => {
                tracing::warn!(call_id = %call_id, %error, "carrier could not start the call");
                let unconfirmed = matches!(error, CarrierError::DialUnconfirmed { .. });
                let token = if unconfirmed {
                    CallError::DialUnconfirmed
                } else {
                    CallError::PlacementFailed
                };
                let ending = Ending::failed(token);
                // A single attempt, unlike the call task's retrying end: the
                // client is still waiting and gets a store error as it is.
                let result = self
                    .apply_transition(&call_id, Transition::End(ending), None, None, Actor::Holder)
                    .await;
                drop(admission);
                result?;
                if unconfirmed {
                    self.end_unconfirmed(&call_id).await;
                    // A phone may have rung: a `502` would invite the
                    // client to ring it again. The placement was accepted
                    // and its record says what became of it.
                    return Ok(Placed {
                        call_id,
                        status: CallStatus::Failed,
                    });
                }
                return Err(ServiceError::PlacementFailed(error));
            }
        };
        // From here the call's task holds the count and uncounts it at the end.
        admission.hand_over();
        following.hand_over();
        self.spawn_follow(CallAttempt::first(call_id), reports);
        Ok(Placed {
            call_id: call.record.id,
            status: CallStatus::Queued,
        })
    }

    /// The most minutes one attempt reserves: the longest a call may last.
    pub(super) fn max_call_minutes(&self) -> u64 {
        self.inner
            .guardrails
            .config()
            .max_call_duration
            .as_secs()
            .div_ceil(60)
            .max(1)
    }

    /// Gives a rate permit back; a failure is logged (the permit then counts
    /// until it leaves the window, at most a minute).
    pub(super) async fn refund(&self, permit: RatePermit) {
        let key_id = permit.key_id.clone();
        if let Err(error) = self.inner.rate_limiter.refund(permit).await {
            tracing::warn!(%key_id, %error, "rate permit not refunded; it counts until it leaves the window");
        }
    }

    /// Cancels a call of this principal's key and returns its record.
    ///
    /// - queued or dialing: the carrier is told to abandon it and it ends at
    ///   once as `failed` with error `canceled` (`call.failed` fires, nothing
    ///   is billed);
    /// - in progress: the carrier hangs up and the call ends as `completed`
    ///   with the partial transcript, summary and extraction; this waits up
    ///   to [`AgentCallBuilder::cancel_wait`](super::AgentCallBuilder::cancel_wait)
    ///   (10 seconds by default) for that end and returns the record as it
    ///   stands;
    /// - ended: [`ServiceError::AlreadyEnded`].
    ///
    /// Repeating a cancel that is still taking effect is harmless.
    pub async fn cancel(
        &self,
        principal: &Principal,
        id: &CallId,
    ) -> Result<CallRecord, ServiceError> {
        let call = self.owned_call(principal, id).await?;
        match call.record.status {
            CallStatus::Queued | CallStatus::Dialing => {
                let canceled = self
                    .apply_transition(id, Transition::Cancel, None, None, Actor::Anyone)
                    .await?;
                if let Some(canceled) = canceled {
                    let _ = self.hang_up(id).await;
                    return Ok(canceled.record);
                }
                // It moved meanwhile (answered or ended): judge again.
                let current = self.owned_call(principal, id).await?;
                if current.record.status.is_terminal() {
                    return Ok(current.record);
                }
                self.hang_up_and_wait(principal, id).await
            }
            CallStatus::InProgress => self.hang_up_and_wait(principal, id).await,
            _ => Err(ServiceError::AlreadyEnded),
        }
    }

    /// Asks the carrier to hang up an answered call and waits, for up to the
    /// cancel wait, for the end it then reports (the call's task records it).
    /// The call is never retried after that: a machine that answered and is
    /// hung up on ends as voicemail, which a policy may otherwise retry.
    async fn hang_up_and_wait(
        &self,
        principal: &Principal,
        id: &CallId,
    ) -> Result<CallRecord, ServiceError> {
        self.stop_retries(id).await?;
        // An unknown-call answer means the carrier is already ending it.
        let _ = self.hang_up(id).await;
        // A wait too long to represent never runs out.
        let deadline = tokio::time::Instant::now().checked_add(self.inner.timing.cancel_wait);
        loop {
            let call = self.owned_call(principal, id).await?;
            let waited = deadline.is_some_and(|d| tokio::time::Instant::now() >= d);
            if call.record.status.is_terminal() || waited {
                return Ok(call.record);
            }
            tokio::time::sleep(Duration::from_millis(10)).await;
        }
    }
}

impl AgentCall {
    /// Drops the call's retry policy (compare-and-set, retried on
    /// conflicts): whatever its current attempt ends with ends the call. A
    /// call whose attempt already ended and was retried (it raced the
    /// cancel) is cancelled in its wait, so no later attempt dials.
    async fn stop_retries(&self, id: &CallId) -> Result<(), ServiceError> {
        loop {
            let Some(mut call) = self.inner.store.get(id).await? else {
                return Err(ServiceError::NotFound);
            };
            if call.record.status.is_terminal() {
                return Ok(());
            }
            if super::journal::waits_for_retry(&call) {
                let canceled = self
                    .apply_transition(id, Transition::Cancel, None, None, Actor::Anyone)
                    .await?;
                match canceled {
                    Some(_) => return Ok(()),
                    // It moved meanwhile (its next attempt started): again.
                    None => continue,
                }
            }
            if call.retry.is_none() {
                return Ok(());
            }
            call.retry = None;
            match self.inner.store.update(&call, Vec::new()).await {
                Ok(_) => return Ok(()),
                Err(crate::store::StoreError::Conflict { .. }) => continue,
                Err(error) => return Err(error.into()),
            }
        }
    }
}

/// When a placement may be dialed.
struct Start {
    /// The request's `scheduledAt`, in UTC.
    scheduled_at: Option<DateTime<Utc>>,
    /// The calling window the call keeps to.
    window: Option<CallingWindow>,
    /// The first instant it may ring: now, its `scheduledAt`, or the next
    /// opening of its window after that.
    at: DateTime<Utc>,
}

/// How far ahead `scheduledAt` may be.
const MAX_SCHEDULE_AHEAD: chrono::Duration = chrono::Duration::days(30);

/// Judges `scheduledAt` (a past time means now; more than 30 days ahead is
/// an error) and the calling window that applies (the placement's, else
/// the account's, else the default), after the rate limit is charged. The call
/// starts only where the window leaves it `ring` to ring; a window with no
/// such room within 30 days of the earliest start is
/// `outside_calling_window`.
fn plan_start(
    request: &PlacementRequest,
    window: Option<CallingWindow>,
    ring: std::time::Duration,
    now: DateTime<Utc>,
) -> Result<Start, Rejection> {
    let scheduled_at = request.scheduled_at.map(|at| at.with_timezone(&Utc));
    let latest = now.checked_add_signed(MAX_SCHEDULE_AHEAD);
    if let Some(at) = scheduled_at
        && latest.is_none_or(|latest| at > latest)
    {
        return Err(Rejection::InvalidScheduledAt(
            "is more than 30 days ahead".into(),
        ));
    }
    let earliest = scheduled_at.map_or(now, |at| at.max(now));
    let at = match &window {
        None => earliest,
        // The search looks no further than it could use: its cost is
        // bounded whatever the window and however many zones the number has.
        Some(window) => earliest
            .checked_add_signed(MAX_SCHEDULE_AHEAD)
            .and_then(|limit| {
                opening_within(window, time_zones(&request.to), earliest, ring, limit)
            })
            .ok_or(Rejection::OutsideCallingWindow)?,
    };
    Ok(Start {
        scheduled_at,
        window,
        at,
    })
}

/// A placement counted in the service's running calls from admission on;
/// dropping it uncounts the placement, unless it was handed over to the
/// call's task.
struct Admission<'a> {
    service: &'a AgentCall,
    handed_over: bool,
}

impl<'a> Admission<'a> {
    fn enter(service: &'a AgentCall) -> Self {
        service.inner.running.fetch_add(1, Ordering::SeqCst);
        Self {
            service,
            handed_over: false,
        }
    }

    fn hand_over(mut self) {
        self.handed_over = true;
    }
}

impl Drop for Admission<'_> {
    fn drop(&mut self) {
        if !self.handed_over {
            self.service.call_finished();
        }
    }
}
