//! The service: wires guardrails, store, dialer, extractor and webhook
//! delivery together. Hosts that bring their own HTTP framework call it
//! directly; [`api`](crate::api) exposes it as a `tower::Service`.

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::time::Duration;

use chrono::{DateTime, Utc};
use serde_json::{Map, Value};
use tokio::sync::{Notify, mpsc, watch};

/// Sleeps until `deadline`, or forever without one.
async fn sleep_until(deadline: Option<tokio::time::Instant>) {
    match deadline {
        Some(deadline) => tokio::time::sleep_until(deadline).await,
        None => std::future::pending().await,
    }
}

use crate::accounts::{AccountDirectory, DirectoryError, Principal, StaticDirectory};
use crate::dialer::{
    CarrierOutcome, CarrierReport, DialRequest, Dialer, ProgressHandle, SimulatedDialer,
};
use crate::domain::{ApiKey, CallId, CallRecord, CallStatus, PlacementRequest};
use crate::extract::{ExtractionInput, Extractor, OfflineExtractor, conform, summarize};
use crate::guardrails::{
    BillingPeriod, Guardrails, MemoryRateLimiter, MemoryUsageLedger, RateLimiter, Rejection,
    UsageLedger, billed_minutes,
};
use crate::notify::Notifier;
use crate::state::{self, Ending, Transition};
use crate::store::{
    CallStore, DeliveryState, EventOutbox, IdempotencyStore, ListPage, ListQuery, MemoryStore,
    NewEvent, Recording, StoreError, StoredCall,
};
use crate::webhook::EventPayload;
use crate::webhook::delivery::{DeliveryConfig, DeliveryWorker};

/// Error token of calls the carrier could not start (`failed` + this token,
/// and the placement answered `502 placement_failed`).
pub const PLACEMENT_FAILED_TOKEN: &str = "placement_failed";
/// Error token of calls still running when the service was stopped.
pub const SHUTDOWN_TOKEN: &str = "service_shutdown";
/// Error token of calls whose carrier stopped reporting.
pub const CARRIER_LOST_TOKEN: &str = "carrier_lost";
/// Error token of calls left running by a previous process that the carrier
/// could not resume (see [`AgentCall::recover`]).
pub const INTERRUPTED_TOKEN: &str = "interrupted";
/// How long a carrier may ring (or stay silent) before the call is hung up.
pub const RING_TIMEOUT: Duration = Duration::from_secs(300);
/// How long a carrier has to report the end after being told to hang up.
pub const HANG_UP_GRACE: Duration = Duration::from_secs(30);
/// How long a cancel of an answered call waits for the carrier to end it.
pub const CANCEL_WAIT: Duration = Duration::from_secs(10);

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
    #[error("carrier could not start the call: {0}")]
    PlacementFailed(String),
    /// The store failed (503 `store_error`).
    #[error(transparent)]
    Store(#[from] StoreError),
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

/// The answer to an accepted placement.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize, utoipa::ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct Placed {
    /// The new call's id.
    #[schema(value_type = String, pattern = "^call_[0-9a-f]{32}$")]
    pub call_id: CallId,
    /// Always `queued`.
    pub status: CallStatus,
}

/// What [`AgentCall::recover`] did.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct RecoveryReport {
    /// Calls the carrier took over.
    pub resumed: usize,
    /// Calls ended as `failed` / `interrupted`.
    pub ended: usize,
}

/// The service could not be built.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum BuildError {
    /// `build` was called outside a tokio runtime.
    #[error("AgentCall must be built inside a tokio runtime")]
    NoRuntime,
}

/// The store's three faces, usually one object.
type Backends = (
    Arc<dyn CallStore>,
    Arc<dyn EventOutbox>,
    Arc<dyn IdempotencyStore>,
);

/// Builds an [`AgentCall`]; every part has an embedded default.
#[derive(Debug)]
pub struct AgentCallBuilder {
    store: Option<Backends>,
    dialer: Arc<dyn Dialer>,
    extractor: Arc<dyn Extractor>,
    notifier: Option<Arc<dyn Notifier>>,
    directory: Arc<dyn AccountDirectory>,
    rate_limiter: Arc<dyn RateLimiter>,
    ledger: Arc<dyn UsageLedger>,
    guardrails: Option<Guardrails>,
    billing_period: BillingPeriod,
    delivery: DeliveryConfig,
    base_url: String,
}

impl AgentCallBuilder {
    /// The store for calls and the webhook outbox (default [`MemoryStore`]).
    pub fn store<S: CallStore + EventOutbox + IdempotencyStore + 'static>(
        mut self,
        store: Arc<S>,
    ) -> Self {
        let outbox: Arc<dyn EventOutbox> = store.clone();
        let idempotency: Arc<dyn IdempotencyStore> = store.clone();
        self.store = Some((store, outbox, idempotency));
        self
    }

    /// The carrier (default [`SimulatedDialer`]).
    pub fn dialer(mut self, dialer: Arc<dyn Dialer>) -> Self {
        self.dialer = dialer;
        self
    }

    /// The extractor (default [`OfflineExtractor`]).
    pub fn extractor(mut self, extractor: Arc<dyn Extractor>) -> Self {
        self.extractor = extractor;
        self
    }

    /// The webhook transport (default: HTTPS with the SSRF guard, with the
    /// `http-notifier` feature).
    pub fn notifier(mut self, notifier: Arc<dyn Notifier>) -> Self {
        self.notifier = Some(notifier);
        self
    }

    /// Where API keys and accounts come from (default: empty).
    pub fn directory(mut self, directory: Arc<dyn AccountDirectory>) -> Self {
        self.directory = directory;
        self
    }

    /// The per-key rate limiter (default: in memory).
    pub fn rate_limiter(mut self, limiter: Arc<dyn RateLimiter>) -> Self {
        self.rate_limiter = limiter;
        self
    }

    /// The minute-cap ledger (default: in memory).
    pub fn usage_ledger(mut self, ledger: Arc<dyn UsageLedger>) -> Self {
        self.ledger = ledger;
        self
    }

    /// The guardrail engine (default: [`Guardrails::default`]).
    pub fn guardrails(mut self, guardrails: Guardrails) -> Self {
        self.guardrails = Some(guardrails);
        self
    }

    /// How billing periods are cut (default: calendar months, UTC).
    pub fn billing_period(mut self, period: BillingPeriod) -> Self {
        self.billing_period = period;
        self
    }

    /// Webhook retry schedule and timeout.
    pub fn delivery(mut self, config: DeliveryConfig) -> Self {
        self.delivery = config;
        self
    }

    /// The base of recording URLs, e.g. `https://calls.example.com`
    /// (default `http://127.0.0.1:8080`).
    pub fn base_url(mut self, base_url: impl Into<String>) -> Self {
        self.base_url = base_url.into().trim_end_matches('/').to_owned();
        self
    }

    /// Builds the service and starts its webhook worker. Must run inside a
    /// tokio runtime. The guardrails' number metadata is compiled here, not
    /// on the first request.
    pub fn build(self) -> Result<AgentCall, BuildError> {
        tokio::runtime::Handle::try_current().map_err(|_| BuildError::NoRuntime)?;
        let guardrails = self.guardrails.unwrap_or_default();
        let (store, outbox, idempotency) = self.store.unwrap_or_else(|| {
            let memory = Arc::new(MemoryStore::new());
            (memory.clone(), memory.clone(), memory)
        });
        let notifier = self
            .notifier
            .unwrap_or_else(|| default_notifier(&guardrails));
        let wake = Arc::new(Notify::new());
        let (stop_delivery, stop_rx) = watch::channel(false);
        let (stop_calls, _) = watch::channel(false);
        let worker = DeliveryWorker {
            outbox: outbox.clone(),
            notifier,
            directory: self.directory.clone(),
            config: self.delivery.clone(),
            wake: wake.clone(),
        };
        let delivery_task = worker.spawn(stop_rx);
        Ok(AgentCall {
            inner: Arc::new(Inner {
                store,
                outbox,
                idempotency,
                dialer: self.dialer,
                extractor: self.extractor,
                directory: self.directory,
                rate_limiter: self.rate_limiter,
                ledger: self.ledger,
                guardrails,
                billing_period: self.billing_period,
                delivery: self.delivery,
                base_url: self.base_url,
                wake,
                accepting: AtomicBool::new(true),
                running: AtomicUsize::new(0),
                idle: Notify::new(),
                stop_calls,
                stop_delivery,
                delivery_task: std::sync::Mutex::new(Some(delivery_task)),
            }),
        })
    }
}

#[cfg(feature = "http-notifier")]
fn default_notifier(guardrails: &Guardrails) -> Arc<dyn Notifier> {
    let allow_loopback = guardrails.config().allow_insecure_loopback_webhooks;
    Arc::new(crate::notify::HttpNotifier::new(
        crate::notify::SsrfPolicy { allow_loopback },
    ))
}

#[cfg(not(feature = "http-notifier"))]
fn default_notifier(_: &Guardrails) -> Arc<dyn Notifier> {
    #[derive(Debug)]
    struct NoTransport;
    #[async_trait::async_trait]
    impl Notifier for NoTransport {
        async fn send(
            &self,
            _: crate::notify::WebhookRequest,
        ) -> Result<crate::notify::WebhookResponse, crate::notify::NotifyError> {
            Err(crate::notify::NotifyError::Transport(
                "no webhook transport: enable the http-notifier feature or set one".into(),
            ))
        }
    }
    Arc::new(NoTransport)
}

/// The outbound-call service. Cheap to clone; clones share everything.
///
/// Stop it with [`AgentCall::shutdown`]: dropping it leaves call tasks and
/// the webhook worker running until the runtime stops.
#[derive(Debug, Clone)]
pub struct AgentCall {
    inner: Arc<Inner>,
}

#[derive(Debug)]
struct Inner {
    store: Arc<dyn CallStore>,
    outbox: Arc<dyn EventOutbox>,
    idempotency: Arc<dyn IdempotencyStore>,
    dialer: Arc<dyn Dialer>,
    extractor: Arc<dyn Extractor>,
    directory: Arc<dyn AccountDirectory>,
    rate_limiter: Arc<dyn RateLimiter>,
    ledger: Arc<dyn UsageLedger>,
    guardrails: Guardrails,
    billing_period: BillingPeriod,
    delivery: DeliveryConfig,
    base_url: String,
    wake: Arc<Notify>,
    accepting: AtomicBool,
    running: AtomicUsize,
    idle: Notify,
    stop_calls: watch::Sender<bool>,
    stop_delivery: watch::Sender<bool>,
    delivery_task: std::sync::Mutex<Option<tokio::task::JoinHandle<()>>>,
}

impl AgentCall {
    /// A builder with the embedded defaults: in-memory store, simulated
    /// carrier, offline extractor, HTTPS webhooks.
    pub fn builder() -> AgentCallBuilder {
        AgentCallBuilder {
            store: None,
            dialer: Arc::new(SimulatedDialer::default()),
            extractor: Arc::new(OfflineExtractor::new()),
            notifier: None,
            directory: Arc::new(StaticDirectory::new()),
            rate_limiter: Arc::new(MemoryRateLimiter::new()),
            ledger: Arc::new(MemoryUsageLedger::new()),
            guardrails: None,
            billing_period: BillingPeriod::default(),
            delivery: DeliveryConfig::default(),
            base_url: "http://127.0.0.1:8080".into(),
        }
    }

    /// The store of idempotency keys (the HTTP layer keeps its answers there).
    pub fn idempotency_store(&self) -> &Arc<dyn IdempotencyStore> {
        &self.inner.idempotency
    }

    /// The guardrail engine, e.g. to check numbers before dialing.
    pub fn guardrails(&self) -> &Guardrails {
        &self.inner.guardrails
    }

    /// Resolves an API key; `None` when unknown.
    pub async fn authenticate(&self, key: &ApiKey) -> Result<Option<Principal>, ServiceError> {
        Ok(self.inner.directory.authenticate(key).await?)
    }

    /// Places a call from a typed request.
    pub async fn place(
        &self,
        principal: &Principal,
        request: &PlacementRequest,
    ) -> Result<Placed, ServiceError> {
        let body = match serde_json::to_value(request) {
            Ok(Value::Object(body)) => body,
            _ => Map::new(),
        };
        self.place_json(principal, &body).await
    }

    /// Places a call from a request body (a JSON object), checking it in the
    /// documented order. Returns once the carrier accepted the call; the call
    /// then runs in its own task.
    pub async fn place_json(
        &self,
        principal: &Principal,
        body: &Map<String, Value>,
    ) -> Result<Placed, ServiceError> {
        let inner = &self.inner;
        if !inner.accepting.load(Ordering::Acquire) {
            return Err(ServiceError::ShuttingDown);
        }
        let account = &principal.account;
        let approved = inner.guardrails.validate_json(body, account)?;
        let now = Utc::now();
        let permit = inner
            .rate_limiter
            .try_acquire(&principal.key_id, principal.calls_per_minute, now)
            .await
            .map_err(|limited| Rejection::RateLimited(limited.retry_after))?;
        let period = inner.billing_period.start_of(now);
        let max_minutes = inner
            .guardrails
            .config()
            .max_call_duration
            .as_secs()
            .div_ceil(60)
            .max(1);
        let reserved = match inner
            .ledger
            .reserve(&account.id, period, account.minute_cap, max_minutes)
            .await
        {
            Ok(reserved) => reserved,
            Err(_) => {
                inner.rate_limiter.refund(permit).await;
                return Err(Rejection::OverMinuteCap.into());
            }
        };
        let request = approved.request;
        let mut record = CallRecord::queued(
            CallId::generate(),
            request.to.clone(),
            request.objective.clone(),
        );
        record.metadata = request.metadata;
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
            extraction_notes: Default::default(),
            version: 0,
        };
        if let Err(error) = inner.store.insert(&call).await {
            inner.rate_limiter.refund(permit).await;
            inner.ledger.settle(&account.id, period, reserved, 0).await;
            return Err(error.into());
        }
        let call_id = call.record.id.clone();
        let (progress, reports) = ProgressHandle::channel(call_id.clone());
        let dial = DialRequest {
            call_id: call_id.clone(),
            to: call.record.to.clone(),
            caller_id: call.caller_id.clone(),
            objective: call.record.objective.clone(),
            context: call.context.clone(),
            fields: call.fields.clone(),
            max_duration: Duration::from_secs(reserved.saturating_mul(60)),
        };
        // Count the call before dialing so shutdown waits for it.
        inner.running.fetch_add(1, Ordering::AcqRel);
        if let Err(error) = inner.dialer.dial(dial, progress).await {
            tracing::warn!(call_id = %call_id, %error, "carrier could not start the call");
            let ending = Ending::failed(PLACEMENT_FAILED_TOKEN);
            let result = self.finish(&call_id, ending, None, None).await;
            self.call_finished();
            result?;
            return Err(ServiceError::PlacementFailed(error.to_string()));
        }
        let service = self.clone();
        tokio::spawn(async move {
            service.follow(call_id, reports).await;
            service.call_finished();
        });
        Ok(Placed {
            call_id: call.record.id,
            status: CallStatus::Queued,
        })
    }

    /// Resolves the calls a previous process left unfinished (after a crash
    /// or a kill), so that none stays queued forever. Call it once at start
    /// when the store is durable.
    ///
    /// Each unfinished call is offered to the dialer ([`Dialer::resume`]);
    /// if the carrier takes it over, it is followed as usual. Otherwise it
    /// ends as `failed` with error `interrupted`, its reservation is
    /// released (talk time, if any, was not observed and is not billed) and
    /// its terminal event is queued. Events already queued before the crash
    /// are delivered by the outbox as usual.
    ///
    /// Recovery takes every unfinished call in the store: on PostgreSQL with
    /// several instances, run it only from one instance after a full-fleet
    /// restart, never while another instance is running calls.
    pub async fn recover(&self) -> Result<RecoveryReport, ServiceError> {
        let mut report = RecoveryReport::default();
        for call in self.inner.store.unfinished().await? {
            let call_id = call.record.id.clone();
            let (progress, reports) = ProgressHandle::channel(call_id.clone());
            let request = DialRequest {
                call_id: call_id.clone(),
                to: call.record.to.clone(),
                caller_id: call.caller_id.clone(),
                objective: call.record.objective.clone(),
                context: call.context.clone(),
                fields: call.fields.clone(),
                max_duration: Duration::from_secs(call.reserved_minutes.saturating_mul(60)),
            };
            match self.inner.dialer.resume(request, progress).await {
                Ok(true) => {
                    self.inner.running.fetch_add(1, Ordering::AcqRel);
                    let service = self.clone();
                    tokio::spawn(async move {
                        service.follow(call_id, reports).await;
                        service.call_finished();
                    });
                    report.resumed += 1;
                }
                resumed => {
                    if let Err(error) = resumed {
                        tracing::warn!(call_id = %call_id, %error, "carrier could not resume a call");
                    }
                    // The carrier may still be running it: ask it to stop.
                    let _ = self.inner.dialer.hang_up(&call_id).await;
                    let ending = Ending::failed(INTERRUPTED_TOKEN);
                    self.end_or_log(&call_id, ending, None, None).await;
                    report.ended += 1;
                }
            }
        }
        if report != RecoveryReport::default() {
            tracing::info!(
                resumed = report.resumed,
                ended = report.ended,
                "recovered unfinished calls"
            );
        }
        Ok(report)
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
        match self.inner.store.list(&query).await {
            Err(StoreError::NotFound(_)) => Err(ServiceError::InvalidCursor),
            other => Ok(other?),
        }
    }

    /// Cancels a call of this principal's key and returns its record.
    ///
    /// - queued or dialing: the carrier is told to abandon it and it ends at
    ///   once as `failed` with error `canceled` (`call.failed` fires, nothing
    ///   is billed);
    /// - in progress: the carrier hangs up and the call ends as `completed`
    ///   with the partial transcript, summary and extraction; this waits up
    ///   to [`CANCEL_WAIT`] for that end and returns the record as it stands;
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
                let canceled = self.advance(id, Transition::Cancel, None, None).await?;
                if let Some(canceled) = canceled {
                    let _ = self.inner.dialer.hang_up(id).await;
                    self.settle(&canceled).await;
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

    async fn hang_up_and_wait(
        &self,
        principal: &Principal,
        id: &CallId,
    ) -> Result<CallRecord, ServiceError> {
        // An unknown-call answer means the carrier is already ending it.
        let _ = self.inner.dialer.hang_up(id).await;
        let deadline = tokio::time::Instant::now() + CANCEL_WAIT;
        loop {
            let call = self.owned_call(principal, id).await?;
            if call.record.status.is_terminal() || tokio::time::Instant::now() >= deadline {
                return Ok(call.record);
            }
            tokio::time::sleep(Duration::from_millis(10)).await;
        }
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

    /// Schedules another delivery of an event now; `false` for an unknown event.
    pub async fn redeliver(&self, event_id: &str) -> Result<bool, ServiceError> {
        let scheduled = self.inner.outbox.redeliver(event_id, Utc::now()).await?;
        self.inner.wake.notify_one();
        Ok(scheduled)
    }

    /// Calls still running.
    pub fn calls_in_flight(&self) -> usize {
        self.inner.running.load(Ordering::Acquire)
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
        inner.accepting.store(false, Ordering::Release);
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
    }

    async fn wait_idle(&self) {
        loop {
            let notified = self.inner.idle.notified();
            if self.calls_in_flight() == 0 {
                return;
            }
            notified.await;
        }
    }

    fn call_finished(&self) {
        if self.inner.running.fetch_sub(1, Ordering::AcqRel) == 1 {
            self.inner.idle.notify_waiters();
        }
    }

    async fn owned_call(
        &self,
        principal: &Principal,
        id: &CallId,
    ) -> Result<StoredCall, ServiceError> {
        match self.inner.store.get(id).await? {
            Some(call) if call.key_id == principal.key_id => Ok(call),
            _ => Err(ServiceError::NotFound),
        }
    }

    /// Drives one call from the carrier's reports until it ends.
    async fn follow(&self, call_id: CallId, mut reports: mpsc::UnboundedReceiver<CarrierReport>) {
        let mut stop = self.inner.stop_calls.subscribe();
        let far = |after: Duration| tokio::time::Instant::now().checked_add(after);
        // Before the answer the carrier has RING_TIMEOUT; after it, the
        // reservation plus a minute. Past the deadline we hang up, and if
        // the carrier still says nothing within HANG_UP_GRACE the call ends
        // as `carrier_lost`.
        let mut deadline = far(RING_TIMEOUT);
        let mut hung_up = false;
        loop {
            let report = tokio::select! {
                report = reports.recv() => report,
                _ = sleep_until(deadline) => {
                    if hung_up {
                        tracing::warn!(call_id = %call_id, "carrier ignored the hang-up; ending the call");
                        self.end_or_log(&call_id, Ending::failed(CARRIER_LOST_TOKEN), None, None).await;
                        return;
                    }
                    tracing::warn!(call_id = %call_id, "carrier overran the call's time limit; hanging up");
                    let _ = self.inner.dialer.hang_up(&call_id).await;
                    hung_up = true;
                    deadline = far(HANG_UP_GRACE);
                    continue;
                }
                _ = async { let _ = stop.wait_for(|stopping| *stopping).await; } => {
                    let _ = self.inner.dialer.hang_up(&call_id).await;
                    self.end_or_log(&call_id, Ending::failed(SHUTDOWN_TOKEN), None, None).await;
                    return;
                }
            };
            let status = self.status_of(&call_id).await;
            if status.is_some_and(CallStatus::is_terminal) {
                // Ended here (a cancel) while the carrier still runs it.
                let _ = self.inner.dialer.hang_up(&call_id).await;
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
                    self.end_or_log(&call_id, Ending::failed(CARRIER_LOST_TOKEN), None, None)
                        .await;
                    return;
                }
            }
        }
    }

    async fn status_of(&self, id: &CallId) -> Option<CallStatus> {
        self.inner
            .store
            .get(id)
            .await
            .ok()
            .flatten()
            .map(|c| c.record.status)
    }

    async fn step(&self, call_id: &CallId, transition: Transition) {
        if let Err(error) = self.advance(call_id, transition, None, None).await {
            tracing::warn!(call_id = %call_id, %error, "carrier report not applied");
        }
    }

    async fn end_from_carrier(
        &self,
        call_id: &CallId,
        outcome: CarrierOutcome,
        status: Option<CallStatus>,
    ) {
        // The end happened now, whatever extraction takes afterwards.
        let ended_at = Utc::now();
        let mut outcome = outcome;
        outcome.status = self.plausible_end(call_id, status, outcome.status).await;
        let mut recording_url = None;
        if let Some(recording) = outcome.recording {
            match self.inner.store.put_recording(call_id, recording).await {
                Ok(()) => {
                    let base = &self.inner.base_url;
                    recording_url = Some(format!("{base}/v1/agent/calls/{call_id}/recording"));
                }
                Err(error) => tracing::warn!(call_id = %call_id, %error, "recording not stored"),
            }
        }
        let mut ending = Ending {
            status: outcome.status,
            error: outcome.error,
            transcript: outcome.transcript,
            summary: None,
            extracted: None,
            recording_url,
        };
        let mut notes = None;
        if outcome.status == CallStatus::Completed
            && let Ok(Some(call)) = self.inner.store.get(call_id).await
        {
            let transcript = ending.transcript.as_deref().unwrap_or("");
            let (extracted, summary, reasons) = self.extract(&call, transcript).await;
            ending.extracted = (!call.fields.is_empty()).then_some(extracted);
            ending.summary = Some(summary);
            notes = Some(reasons);
        }
        self.end_or_log(call_id, ending, notes, Some(ended_at))
            .await;
    }

    /// Turns a carrier's end report into a legal end, so that a lost or
    /// contradictory report never leaves a call unfinished: `completed`
    /// before an answer report means the answer report was lost (the call is
    /// moved through `in_progress`); `no_answer` or `declined` after an
    /// answer means the answered call ended (`completed`); a non-terminal
    /// status is a carrier error (`failed`).
    async fn plausible_end(
        &self,
        call_id: &CallId,
        status: Option<CallStatus>,
        reported: CallStatus,
    ) -> CallStatus {
        use CallStatus::*;
        match (status, reported) {
            (_, Queued | Dialing | InProgress) => Failed,
            (Some(Queued | Dialing), Completed) => {
                if status == Some(Queued) {
                    self.step(call_id, Transition::Dial).await;
                }
                self.step(call_id, Transition::Answer).await;
                Completed
            }
            (Some(InProgress), NoAnswer | Declined) => Completed,
            (_, reported) => reported,
        }
    }

    async fn extract(
        &self,
        call: &StoredCall,
        transcript: &str,
    ) -> (
        Map<String, Value>,
        String,
        std::collections::BTreeMap<String, String>,
    ) {
        let input = ExtractionInput {
            objective: &call.record.objective,
            fields: &call.fields,
            transcript,
            outcome: CallStatus::Completed,
        };
        let (raw, summary, failure) = match self.inner.extractor.extract(input).await {
            Ok(extraction) => (extraction.values, extraction.summary, None),
            Err(error) => {
                tracing::warn!(call_id = %call.record.id, %error, "extractor failed; fields are null");
                (Map::new(), None, Some(error.to_string()))
            }
        };
        let mut conformed = conform(&call.fields, &raw);
        if let Some(failure) = failure {
            for field in &call.fields {
                conformed
                    .reasons
                    .insert(field.name.clone(), failure.clone());
            }
        }
        let summary = summary.filter(|s| !s.trim().is_empty()).unwrap_or_else(|| {
            summarize(
                &call.record.objective,
                "completed",
                &call.fields,
                &conformed.values,
            )
        });
        (conformed.values, summary, conformed.reasons)
    }

    /// Ends a call, retrying a failing store with backoff (about a minute
    /// in all) so that a passing outage does not leave the call unfinished;
    /// recovery after a restart covers a longer one.
    async fn end_or_log(
        &self,
        call_id: &CallId,
        ending: Ending,
        notes: Option<std::collections::BTreeMap<String, String>>,
        at: Option<DateTime<Utc>>,
    ) {
        let mut backoff = Duration::from_millis(100);
        for attempt in 1..=10 {
            match self
                .finish(call_id, ending.clone(), notes.clone(), at)
                .await
            {
                Ok(()) => return,
                Err(error) if attempt == 10 => {
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

    /// Ends a call and settles its minutes.
    async fn finish(
        &self,
        call_id: &CallId,
        ending: Ending,
        notes: Option<std::collections::BTreeMap<String, String>>,
        at: Option<DateTime<Utc>>,
    ) -> Result<(), ServiceError> {
        if let Some(call) = self
            .advance(call_id, Transition::End(ending), notes, at)
            .await?
        {
            self.settle(&call).await;
        }
        Ok(())
    }

    /// Replaces an ended call's reservation by its billed minutes; runs once
    /// per call, after the move that ended it.
    async fn settle(&self, call: &StoredCall) {
        let billed = billed_minutes(call.record.duration_sec.unwrap_or(0));
        let period = self.inner.billing_period.start_of(call.created_at);
        let ledger = &self.inner.ledger;
        ledger
            .settle(&call.account_id, period, call.reserved_minutes, billed)
            .await;
    }

    /// Applies a transition with compare-and-set, retrying on conflicts, and
    /// queues the event it emits in the same store update. `Ok(None)` when
    /// the move is illegal from the current status (logged).
    async fn advance(
        &self,
        call_id: &CallId,
        transition: Transition,
        notes: Option<std::collections::BTreeMap<String, String>>,
        at: Option<DateTime<Utc>>,
    ) -> Result<Option<StoredCall>, StoreError> {
        loop {
            let current = self
                .inner
                .store
                .get(call_id)
                .await?
                .ok_or_else(|| StoreError::NotFound(call_id.clone()))?;
            let now = Utc::now();
            let step = match state::apply(&current.record, transition.clone(), at.unwrap_or(now)) {
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
            if let Some(notes) = &notes {
                next.extraction_notes = notes.clone();
            }
            let events: Vec<NewEvent> = match (step.event, &next.webhook_url) {
                (Some(kind), Some(url)) => vec![self.new_event(&next, kind, url, now)],
                _ => Vec::new(),
            };
            let queued = !events.is_empty();
            match self.inner.store.update(&next, events).await {
                Ok(version) => {
                    if queued {
                        self.inner.wake.notify_one();
                    }
                    next.version = version;
                    return Ok(Some(next));
                }
                Err(StoreError::Conflict { .. }) => continue,
                Err(error) => return Err(error),
            }
        }
    }

    fn new_event(
        &self,
        call: &StoredCall,
        kind: crate::domain::EventKind,
        url: &str,
        now: DateTime<Utc>,
    ) -> NewEvent {
        let payload = EventPayload::new(kind, &call.record, now);
        let body = serde_json::to_vec(&payload).unwrap_or_default();
        let first =
            chrono::Duration::from_std(self.inner.delivery.first_delay()).unwrap_or_default();
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
}
