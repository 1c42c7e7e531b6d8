//! The service: wires guardrails, store, carrier, extractor and webhook
//! delivery together. Hosts that bring their own HTTP framework call it
//! directly; [`api`](crate::api) exposes it as a `tower::Service`.
//!
//! [`AgentCall`] is one facade; its methods live by concern:
//!
//! - `builder`: [`AgentCallBuilder`], the defaults and the timing settings;
//! - `placement`: placing and cancelling calls;
//! - `driver`: following a running call through the carrier's reports and
//!   its deadlines;
//! - `finish`: turning the carrier's end into the call's end (recording,
//!   extraction, summary);
//! - `journal`: the one path by which a call's record changes (transition,
//!   event and settlement together);
//! - `lifecycle`: recovery after a restart and graceful shutdown;
//! - this module: the facade itself and its read side.

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};

use chrono::Utc;
use tokio::sync::{Notify, watch};

use crate::accounts::{AccountDirectory, DirectoryError, Principal};
use crate::carrier::Carrier;
use crate::domain::{ApiKey, CallId, CallRecord, CallStatus};
use crate::extract::Extractor;
use crate::guardrails::{BillingPeriod, Guardrails, RateLimiter, Rejection, UsageLedger};
use crate::store::{
    CallStore, DeliveryState, EventOutbox, IdempotencyStore, InstanceId, ListPage, ListQuery,
    Recording, StoreError, StoredCall,
};
use crate::webhook::delivery::DeliveryConfig;

mod builder;
mod carrier_notes;
mod driver;
mod finish;
mod journal;
mod leases;
mod lifecycle;
mod link;
mod placement;

pub use builder::{AgentCallBuilder, BuildError};
pub use lifecycle::RecoveryReport;
pub use link::{CarrierLink, LinkedCall};
pub use placement::Placed;

/// Why a service operation failed. The HTTP layer maps each variant to a
/// status and token in one place.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum ServiceError {
    /// The placement was rejected by validation or a guardrail (4xx).
    #[error(transparent)]
    Rejected(#[from] Rejection),
    /// No such call for this key.
    #[error("call not found")]
    NotFound,
    /// The carrier could not start the call (502 `placement_failed`).
    #[error("carrier could not start the call")]
    PlacementFailed(#[source] crate::carrier::CarrierError),
    /// The store failed (503 `store_error`).
    #[error(transparent)]
    Store(#[from] StoreError),
    /// The rate limiter or the usage ledger could not be reached, so the
    /// placement was refused before anything was counted or reserved (503
    /// `store_error`, like [`ServiceError::Store`]; never a `429`). Unlike a
    /// store failure after the placement was attempted, an `Idempotency-Key`
    /// is freed, so a retry with it is placed once the backend is back.
    #[error("limits unavailable: {0}")]
    LimitsUnavailable(#[source] StoreError),
    /// The account directory failed (503 `store_error`).
    #[error(transparent)]
    Directory(#[from] DirectoryError),
    /// The service is stopping and takes no new calls (503 `shutting_down`).
    #[error("the service is shutting down")]
    ShuttingDown,
    /// A list cursor that is not one of the key's calls (400 `invalid_cursor`).
    #[error("startingAfter is not one of this key's calls")]
    InvalidCursor,
    /// Cancelling a call that already ended (409 `call_already_ended`).
    #[error("the call already ended")]
    AlreadyEnded,
}

/// The outbound-call service. Cheap to clone; clones share everything.
///
/// Stop it with [`AgentCall::shutdown`]: dropping it leaves call tasks and
/// the webhook worker running until the runtime stops.
#[derive(Debug, Clone)]
pub struct AgentCall {
    inner: Arc<Inner>,
}

/// Everything the clones of one service share. The submodules reach the
/// fields directly: they are the service's own parts, not its clients.
#[derive(Debug)]
struct Inner {
    store: Arc<dyn CallStore>,
    outbox: Arc<dyn EventOutbox>,
    idempotency: Arc<dyn IdempotencyStore>,
    carrier: Arc<dyn Carrier>,
    agent: crate::agent::Agent,
    extractor: Arc<dyn Extractor>,
    value_check: Arc<dyn crate::extract::ValueCheck>,
    directory: Arc<dyn AccountDirectory>,
    rate_limiter: Arc<dyn RateLimiter>,
    ledger: Arc<dyn UsageLedger>,
    guardrails: Guardrails,
    billing_period: BillingPeriod,
    delivery: DeliveryConfig,
    timing: builder::Timing,
    base_url: String,
    /// Wakes the webhook worker when an event was queued.
    wake: Arc<Notify>,
    /// Cleared by shutdown: new placements are refused.
    accepting: AtomicBool,
    /// Calls counted from before their dial until their task ends.
    running: AtomicUsize,
    /// Notified when `running` drops to zero.
    idle: Notify,
    stop_calls: watch::Sender<bool>,
    stop_delivery: watch::Sender<bool>,
    delivery_task: std::sync::Mutex<Option<tokio::task::JoinHandle<()>>>,
    /// This instance's name in call leases.
    instance: InstanceId,
    /// What "now" is (see [`AgentCallBuilder::clock`]).
    clock: Arc<dyn crate::clock::Clock>,
    /// Whether US and CA numbers without a window keep to the default one
    /// (see [`AgentCallBuilder::default_calling_windows`]).
    default_calling_windows: bool,
    /// Whether waiting calls this instance puts to wait start on a timer
    /// at their time (see [`AgentCallBuilder::on_time_starts`]).
    on_time_starts: bool,
    /// The calls this process follows (placing, following or finishing),
    /// with how many of its tasks do (a call's finishing task and its
    /// follower, or the follower of an attempt that was retried and the
    /// next attempt's, may overlap):
    /// a reclaim of this instance's own leases leaves them alone.
    following: std::sync::Mutex<std::collections::HashMap<CallId, u32>>,
    /// The follow task of each call this process follows, woken when the
    /// lease keeper's renewal skips the call (it ended, or another instance
    /// holds it): the task then looks at the store.
    lookouts: std::sync::Mutex<std::collections::HashMap<CallId, Arc<Notify>>>,
    /// Whether the lease keeper reaches the store.
    store_health: std::sync::Mutex<leases::StoreHealth>,
    /// Held by the one takeover that may run at a time.
    takeover: tokio::sync::Mutex<()>,
    stop_leases: watch::Sender<bool>,
    lease_task: std::sync::Mutex<Option<tokio::task::JoinHandle<()>>>,
}

impl AgentCall {
    /// The current time on the service's clock.
    pub fn now(&self) -> chrono::DateTime<chrono::Utc> {
        self.inner.clock.now()
    }

    /// The store of idempotency keys (the HTTP layer keeps its answers there).
    pub(crate) fn idempotency_store(&self) -> &Arc<dyn IdempotencyStore> {
        &self.inner.idempotency
    }

    /// The guardrail engine, e.g. to check numbers before dialing.
    pub fn guardrails(&self) -> &Guardrails {
        &self.inner.guardrails
    }

    /// This instance's name in call leases ([`AgentCallBuilder::instance_id`]).
    pub fn instance_id(&self) -> &InstanceId {
        &self.inner.instance
    }

    /// How long an idempotent request holds its key between renewals
    /// ([`AgentCallBuilder::idempotency_lease`]).
    pub(crate) fn idempotency_lease(&self) -> std::time::Duration {
        self.inner.timing.idempotency_lease
    }

    /// Resolves an API key; `None` when unknown. A lookup slower than
    /// [`AgentCallBuilder::account_lookup_timeout`] fails as the directory
    /// being unavailable.
    pub async fn authenticate(&self, key: &ApiKey) -> Result<Option<Principal>, ServiceError> {
        let limit = self.inner.timing.account_lookup_timeout;
        match tokio::time::timeout(limit, self.inner.directory.authenticate(key)).await {
            Ok(found) => Ok(found?),
            Err(_) => Err(crate::accounts::DirectoryError(
                format!("account lookup took longer than {limit:?}").into(),
            )
            .into()),
        }
    }

    /// `Carrier::hang_up`, bounded by
    /// [`AgentCallBuilder::hang_up_timeout`]; a slower carrier counts as a
    /// failed hang-up.
    pub(crate) async fn hang_up(
        &self,
        call_id: &CallId,
    ) -> Result<(), crate::carrier::CarrierError> {
        let limit = self.inner.timing.hang_up_timeout;
        match tokio::time::timeout(limit, self.inner.carrier.hang_up(call_id)).await {
            Ok(result) => result,
            Err(_) => {
                tracing::warn!(call_id = %call_id, ?limit, "carrier did not take the hang-up in time");
                Err(crate::carrier::CarrierError::unavailable(format!(
                    "hang-up took longer than {limit:?}"
                )))
            }
        }
    }

    /// A call placed by this principal's key; [`ServiceError::NotFound`] for
    /// unknown ids and for calls of any other key, alike.
    pub async fn get(
        &self,
        principal: &Principal,
        id: &CallId,
    ) -> Result<CallRecord, ServiceError> {
        Ok(self.owned_call(principal, id).await?.record)
    }

    /// The stored call with everything the service keeps (fields, caller ID,
    /// per-field extraction notes…), same scoping as [`AgentCall::get`].
    pub async fn get_stored(
        &self,
        principal: &Principal,
        id: &CallId,
    ) -> Result<StoredCall, ServiceError> {
        self.owned_call(principal, id).await
    }

    /// A page of the key's calls, most recent first. The query's `key_id` is
    /// replaced by the principal's.
    pub async fn list(
        &self,
        principal: &Principal,
        mut query: ListQuery,
    ) -> Result<ListPage, ServiceError> {
        query.key_id = principal.key_id.clone();
        let mut page = match self.inner.store.list(&query).await {
            Err(StoreError::NotFound(_)) => return Err(ServiceError::InvalidCursor),
            other => other?,
        };
        for call in &mut page.calls {
            self.present(call);
        }
        Ok(page)
    }

    /// A call's recording; [`ServiceError::NotFound`] when there is none.
    pub async fn recording(
        &self,
        principal: &Principal,
        id: &CallId,
    ) -> Result<Recording, ServiceError> {
        self.owned_call(principal, id).await?;
        self.inner
            .store
            .recording(id)
            .await?
            .ok_or(ServiceError::NotFound)
    }

    /// The delivery state of a call's webhook events, same scoping as [`AgentCall::get`].
    pub async fn deliveries(
        &self,
        principal: &Principal,
        id: &CallId,
    ) -> Result<Vec<DeliveryState>, ServiceError> {
        self.owned_call(principal, id).await?;
        Ok(self.inner.outbox.deliveries(id).await?)
    }

    /// Schedules another delivery of an event now, with the same scoping as
    /// [`AgentCall::deliveries`]: `false` for an unknown event and for an
    /// event of a call this principal's key did not place.
    pub async fn redeliver(
        &self,
        principal: &Principal,
        event_id: &str,
    ) -> Result<bool, ServiceError> {
        // Event ids are `<callId>:<event>:<ms>`: the call says whose it is.
        let Some(call_id) = event_id
            .split_once(':')
            .and_then(|(call, _)| call.parse::<CallId>().ok())
        else {
            return Ok(false);
        };
        let events = match self.deliveries(principal, &call_id).await {
            Err(ServiceError::NotFound) => return Ok(false),
            other => other?,
        };
        if !events.iter().any(|event| event.event_id == event_id) {
            return Ok(false);
        }
        let scheduled = self.inner.outbox.redeliver(event_id, Utc::now()).await?;
        self.inner.wake.notify_one();
        Ok(scheduled)
    }

    /// Calls still running.
    pub fn calls_in_flight(&self) -> usize {
        self.inner.running.load(Ordering::SeqCst)
    }

    /// The call if this principal's key placed it: other keys' calls answer
    /// like unknown ones, so ids cannot be probed across keys.
    async fn owned_call(
        &self,
        principal: &Principal,
        id: &CallId,
    ) -> Result<StoredCall, ServiceError> {
        match self.inner.store.get(id).await? {
            Some(mut call) if call.key_id == principal.key_id => {
                self.present(&mut call);
                Ok(call)
            }
            _ => Err(ServiceError::NotFound),
        }
    }

    /// Derives what a stored call shows from this service's settings rather
    /// than from what was stored: the recording URL follows the configured
    /// base, so moving the service (or a row written by another instance)
    /// never serves a stale address.
    fn present(&self, call: &mut StoredCall) {
        if call.record.recording_url.is_some() {
            call.record.recording_url = Some(recording_url(&self.inner.base_url, &call.record.id));
        }
    }

    /// The call's status as stored; `None` when it cannot be read (the
    /// driver then treats the report as if nothing were known).
    async fn status_of(&self, id: &CallId) -> Option<CallStatus> {
        self.inner
            .store
            .get(id)
            .await
            .ok()
            .flatten()
            .map(|c| c.record.status)
    }
}

/// The authenticated address of a call's recording under `base`.
pub(crate) fn recording_url(base: &str, id: &CallId) -> String {
    format!("{base}/v1/agent/calls/{id}/recording")
}
