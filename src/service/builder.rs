//! [`AgentCallBuilder`]: the service's parts, each with an embedded default,
//! and its timing settings.

use crate::clock::{Clock, SystemClock};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicUsize};
use std::time::Duration;

use tokio::sync::{Notify, watch};

use super::{AgentCall, Inner};
use crate::accounts::{AccountDirectory, StaticDirectory};
use crate::agent::{Agent, Mind};
use crate::carrier::{Carrier, SimulatedCarrier};
use crate::extract::{English, Extractor, NoExtractor, ValueCheck};
use crate::guardrails::{BillingPeriod, Guardrails, RateLimiter, UsageLedger};
use crate::notify::Notifier;
use crate::store::{
    CallStore, EventOutbox, IdempotencyStore, InstanceId, MemoryStore, Persistence, SharedLimits,
};
use crate::webhook::delivery::{DeliveryConfig, DeliveryWorker};

/// Default of [`AgentCallBuilder::ring_timeout`].
const RING_TIMEOUT: Duration = Duration::from_secs(300);
/// Default of [`AgentCallBuilder::hang_up_grace`].
const HANG_UP_GRACE: Duration = Duration::from_secs(30);
/// Default of [`AgentCallBuilder::cancel_wait`].
const CANCEL_WAIT: Duration = Duration::from_secs(10);
/// Default of [`AgentCallBuilder::dial_timeout`].
const DIAL_TIMEOUT: Duration = Duration::from_secs(30);
/// Default of [`AgentCallBuilder::hang_up_timeout`].
const HANG_UP_TIMEOUT: Duration = Duration::from_secs(10);
/// Default of [`AgentCallBuilder::account_lookup_timeout`].
const ACCOUNT_LOOKUP_TIMEOUT: Duration = Duration::from_secs(5);
/// Default of [`AgentCallBuilder::extraction_timeout`].
const EXTRACTION_TIMEOUT: Duration = Duration::from_secs(60);
/// Default of [`AgentCallBuilder::call_lease`].
const CALL_LEASE: Duration = Duration::from_secs(30);
/// The shortest [`AgentCallBuilder::call_lease`].
const MIN_CALL_LEASE: Duration = Duration::from_secs(1);
/// Default of [`AgentCallBuilder::idempotency_lease`].
const IDEMPOTENCY_LEASE: Duration = crate::api::IDEMPOTENCY_LEASE;

/// How long the service waits on a carrier, as the builder set it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) struct Timing {
    /// How long a carrier may ring (or stay silent) before the hang-up.
    pub(super) ring_timeout: Duration,
    /// How long a carrier has to report the end after the hang-up.
    pub(super) hang_up_grace: Duration,
    /// How long a cancel of an answered call waits for its end.
    pub(super) cancel_wait: Duration,
    /// How long the carrier has to accept a call (`Carrier::dial`).
    pub(super) dial_timeout: Duration,
    /// How long the carrier has to take a hang-up (`Carrier::hang_up`).
    pub(super) hang_up_timeout: Duration,
    /// How long an account directory lookup may take.
    pub(super) account_lookup_timeout: Duration,
    /// How long the extractor may take for one call.
    pub(super) extraction_timeout: Duration,
    /// How long an idempotent request holds its key between renewals.
    pub(super) idempotency_lease: Duration,
    /// How long an instance holds a call between renewals.
    pub(super) call_lease: Duration,
}

impl Default for Timing {
    fn default() -> Self {
        Self {
            ring_timeout: RING_TIMEOUT,
            hang_up_grace: HANG_UP_GRACE,
            cancel_wait: CANCEL_WAIT,
            dial_timeout: DIAL_TIMEOUT,
            hang_up_timeout: HANG_UP_TIMEOUT,
            account_lookup_timeout: ACCOUNT_LOOKUP_TIMEOUT,
            extraction_timeout: EXTRACTION_TIMEOUT,
            idempotency_lease: IDEMPOTENCY_LEASE,
            call_lease: CALL_LEASE,
        }
    }
}

/// The service could not be built.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum BuildError {
    /// `build` was called outside a tokio runtime.
    #[error("AgentCall must be built inside a tokio runtime")]
    NoRuntime,
    /// The instance id is the one waiting calls' leases use
    /// ([`InstanceId::waiting`]).
    #[error("the instance id {0} is reserved")]
    ReservedInstanceId(String),
}

/// The store's faces, usually one object, and the limits it shares.
type Backends = (
    Arc<dyn CallStore>,
    Arc<dyn EventOutbox>,
    Arc<dyn IdempotencyStore>,
    SharedLimits,
);

/// Builds an [`AgentCall`]; every part has an embedded default.
#[derive(Debug)]
pub struct AgentCallBuilder {
    store: Option<Backends>,
    carrier: Arc<dyn Carrier>,
    agent: Agent,
    extractor: Arc<dyn Extractor>,
    value_check: Arc<dyn ValueCheck>,
    notifier: Option<Arc<dyn Notifier>>,
    directory: Arc<dyn AccountDirectory>,
    /// Set deliberately, over the store's.
    rate_limiter: Option<Arc<dyn RateLimiter>>,
    /// Set deliberately, over the store's.
    ledger: Option<Arc<dyn UsageLedger>>,
    guardrails: Option<Guardrails>,
    billing_period: BillingPeriod,
    delivery: DeliveryConfig,
    timing: Timing,
    base_url: String,
    instance: InstanceId,
    clock: Arc<dyn Clock>,
    default_calling_windows: Option<bool>,
    on_time_starts: bool,
}

impl AgentCall {
    /// A builder with the embedded defaults: in-memory store, simulated
    /// carrier, no extractor (fields `null`, see [`NoExtractor`]), HTTPS
    /// webhooks.
    pub fn builder() -> AgentCallBuilder {
        AgentCallBuilder {
            store: None,
            carrier: Arc::new(SimulatedCarrier::default()),
            agent: Agent::default(),
            extractor: Arc::new(NoExtractor),
            value_check: Arc::new(English),
            notifier: None,
            directory: Arc::new(StaticDirectory::new()),
            rate_limiter: None,
            ledger: None,
            guardrails: None,
            billing_period: BillingPeriod::default(),
            delivery: DeliveryConfig::default(),
            timing: Timing::default(),
            base_url: "http://127.0.0.1:8080".into(),
            instance: InstanceId::generate(),
            clock: Arc::new(SystemClock),
            default_calling_windows: None,
            on_time_starts: true,
        }
    }
}

impl AgentCallBuilder {
    /// Where everything is kept (default [`MemoryStore`]): calls, the
    /// webhook outbox, idempotency keys, and the rate limiter and usage
    /// ledger every instance on the store shares
    /// ([`Persistence::limits`]), so several instances on one database
    /// keep one rate limit and one minute cap. [`rate_limiter`](Self::rate_limiter)
    /// and [`usage_ledger`](Self::usage_ledger) override the store's, in
    /// whichever order they are called.
    pub fn store<S: Persistence + 'static>(mut self, store: Arc<S>) -> Self {
        let outbox: Arc<dyn EventOutbox> = store.clone();
        let idempotency: Arc<dyn IdempotencyStore> = store.clone();
        let limits = store.limits();
        self.store = Some((store, outbox, idempotency, limits));
        self
    }

    /// The carrier (default [`SimulatedCarrier`]).
    pub fn carrier(mut self, carrier: Arc<dyn Carrier>) -> Self {
        self.carrier = carrier;
        self
    }

    /// How calls are conducted: the mind that decides the agent's turns
    /// (a model, or the built-in [`ScriptedMind`](crate::agent::ScriptedMind)
    /// by default), its limits, greeting and voicemail policy. Every carrier
    /// runs its calls' conversations with it.
    pub fn agent(mut self, agent: Agent) -> Self {
        self.agent = agent;
        self
    }

    /// The mind that decides the agent's turns, keeping the agent's other
    /// settings: [`AgentCallBuilder::agent`] with `mind`.
    ///
    /// ```
    /// # use std::sync::Arc;
    /// use agentcall::AgentCall;
    /// use agentcall::agent::ScriptedMind;
    ///
    /// # tokio::runtime::Runtime::new().unwrap().block_on(async {
    /// let service = AgentCall::builder().mind(Arc::new(ScriptedMind)).build().unwrap();
    /// # service.shutdown(std::time::Duration::from_secs(1)).await;
    /// # });
    /// ```
    pub fn mind(mut self, mind: Arc<dyn Mind>) -> Self {
        self.agent = self.agent.with_mind(mind);
        self
    }

    /// How quoted words are read in the call's language by the evidence
    /// check every extracted value passes (default [`English`]; see
    /// [`ValueCheck`], and [`LanguageNeutral`](crate::extract::LanguageNeutral)
    /// to read no language).
    pub fn value_check(mut self, check: Arc<dyn ValueCheck>) -> Self {
        self.value_check = check;
        self
    }

    /// The extractor (default [`NoExtractor`]: every field `null` with the
    /// reason `no_extractor`). The rule-based offline one is the
    /// `agentcall-rules` crate's `RulesExtractor`.
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

    /// The per-key rate limiter, over the store's (default: the store's,
    /// [`Persistence::limits`]).
    pub fn rate_limiter(mut self, limiter: Arc<dyn RateLimiter>) -> Self {
        self.rate_limiter = Some(limiter);
        self
    }

    /// The minute-cap ledger, over the store's (default: the store's,
    /// [`Persistence::limits`]).
    pub fn usage_ledger(mut self, ledger: Arc<dyn UsageLedger>) -> Self {
        self.ledger = Some(ledger);
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

    /// How long a call may stay unanswered, counted from its placement,
    /// before the service hangs up (default 5 minutes). Once the call is
    /// answered, its limit is its reserved minutes plus one minute instead.
    pub fn ring_timeout(mut self, timeout: Duration) -> Self {
        self.timing.ring_timeout = timeout;
        self
    }

    /// How long a carrier has to report the end after the service hung up
    /// on a call past its limit (default 30 seconds); a carrier that stays
    /// silent longer ends the call as `failed` / `carrier_lost`.
    pub fn hang_up_grace(mut self, grace: Duration) -> Self {
        self.timing.hang_up_grace = grace;
        self
    }

    /// How long [`AgentCall::cancel`] of an answered call waits for the
    /// carrier to end it before returning the record as it stands (default
    /// 10 seconds).
    pub fn cancel_wait(mut self, wait: Duration) -> Self {
        self.timing.cancel_wait = wait;
        self
    }

    /// How long the carrier has to accept a call (default 30 seconds); a
    /// carrier bounds its own request by it too
    /// ([`CarrierLink::dial_timeout`](crate::carrier::CarrierLink::dial_timeout)).
    /// A dial that takes longer is given up, and its outcome is unknown (a
    /// phone may have rung): the call ends `failed` / `dial_unconfirmed`,
    /// is never retried, and the carrier is told to hang up whatever it may
    /// have started; a placement answers with the call id and status
    /// `failed`, not a retry-inviting `502`.
    pub fn dial_timeout(mut self, timeout: Duration) -> Self {
        self.timing.dial_timeout = timeout;
        self
    }

    /// How long the carrier has to take a hang-up (default 10 seconds); a
    /// hang-up that takes longer is treated as failed.
    pub fn hang_up_timeout(mut self, timeout: Duration) -> Self {
        self.timing.hang_up_timeout = timeout;
        self
    }

    /// How long an account directory lookup (authentication, or the account
    /// of a webhook delivery) may take (default 5 seconds); a slower one
    /// fails as the directory being unavailable.
    pub fn account_lookup_timeout(mut self, timeout: Duration) -> Self {
        self.timing.account_lookup_timeout = timeout;
        self
    }

    /// How long the extractor may take for one call (default 60 seconds);
    /// a slower extraction fails, leaving the fields null with the timeout
    /// as their reason.
    pub fn extraction_timeout(mut self, timeout: Duration) -> Self {
        self.timing.extraction_timeout = timeout;
        self
    }

    /// How long a request with an `Idempotency-Key` holds the key before
    /// another request may take it over (default 60 seconds). The holder
    /// renews the lease every third of it while its placement runs, so only
    /// a holder that died (or lost its store for a whole lease) loses the
    /// key. A zero lease is raised to one millisecond.
    pub fn idempotency_lease(mut self, lease: Duration) -> Self {
        self.timing.idempotency_lease = lease.max(Duration::from_millis(1));
        self
    }

    /// How long this instance holds each of its running calls between
    /// renewals (default 30 seconds). The service renews its leases every
    /// third of this while it runs; when an instance dies, another instance
    /// sharing the store takes its calls over once their leases lapse (so
    /// within about this long plus a third of it), and a call's former
    /// holder can no longer write to it. Instances' clocks must agree to
    /// well within this. A lease under one second is raised to one second:
    /// shorter ones would lapse on any scheduling hiccup.
    pub fn call_lease(mut self, lease: Duration) -> Self {
        self.timing.call_lease = lease.max(MIN_CALL_LEASE);
        self
    }

    /// This instance's name in call leases (default: a fresh random one per
    /// build). Give every running instance its own. A stable name (the same
    /// after a restart) lets [`AgentCall::recover`] take back the calls the
    /// previous process of this instance held without waiting for their
    /// leases to lapse.
    pub fn instance_id(mut self, instance: InstanceId) -> Self {
        self.instance = instance;
        self
    }

    /// The clock placements, calling windows, scheduled calls and leases
    /// judge by (default [`SystemClock`]). A
    /// [`ManualClock`](crate::clock::ManualClock) lets tests move time on
    /// instead of waiting for it; give every instance sharing a store the
    /// same time.
    pub fn clock(mut self, clock: Arc<dyn Clock>) -> Self {
        self.clock = clock;
        self
    }

    /// Whether a waiting call (scheduled, outside its window, or waiting
    /// for a retry) that this instance puts to wait is started by a timer
    /// on the service's clock at its time (default on). Off, waiting calls
    /// start at the lease keeper's beat (every third of
    /// [`call_lease`](Self::call_lease)) or an explicit
    /// [`AgentCall::recover`]: for hosts and tests that step time
    /// themselves. Waiting calls of an instance that is gone always start
    /// at a beat of another.
    pub fn on_time_starts(mut self, on: bool) -> Self {
        self.on_time_starts = on;
        self
    }

    /// Whether calls to US and Canadian numbers that neither the placement
    /// nor the account gives a `callingWindow` keep to 08:00–21:00 on the
    /// called party's clock, every day ([`CallingWindow::US_DEFAULT`], after
    /// 47 CFR § 64.1200(c)(1)); other numbers are unrestricted. By default
    /// it applies exactly when the carrier rings real phones
    /// ([`Carrier::rings_real_phones`]): on with a real carrier, off with the
    /// simulated one, so examples and tests behave alike at any hour.
    ///
    /// [`CallingWindow::US_DEFAULT`]: crate::schedule::CallingWindow::US_DEFAULT
    pub fn default_calling_windows(mut self, on: bool) -> Self {
        self.default_calling_windows = Some(on);
        self
    }

    /// The base of recording URLs, e.g. `https://calls.example.com`
    /// (default `http://127.0.0.1:8080`).
    pub fn base_url(mut self, base_url: impl Into<String>) -> Self {
        self.base_url = base_url.into().trim_end_matches('/').to_owned();
        self
    }

    /// Builds the service and starts its webhook worker. Must run inside a
    /// tokio runtime. The guardrails' number automata were compiled at build
    /// time; each calling code's load on its first number (tens of
    /// microseconds), or all at once with `NumberClassifier::preload`.
    pub fn build(self) -> Result<AgentCall, BuildError> {
        tokio::runtime::Handle::try_current().map_err(|_| BuildError::NoRuntime)?;
        let default_calling_windows = self
            .default_calling_windows
            .unwrap_or_else(|| self.carrier.rings_real_phones());
        if self.instance == InstanceId::waiting() {
            return Err(BuildError::ReservedInstanceId(self.instance.to_string()));
        }
        let guardrails = self.guardrails.unwrap_or_default();
        let (store, outbox, idempotency, limits) = self.store.unwrap_or_else(|| {
            let memory = Arc::new(MemoryStore::new());
            let limits = memory.limits();
            (memory.clone(), memory.clone(), memory, limits)
        });
        let rate_limiter = self.rate_limiter.unwrap_or(limits.rate_limiter);
        let ledger = self.ledger.unwrap_or(limits.usage_ledger);
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
            account_lookup_timeout: self.timing.account_lookup_timeout,
            config: self.delivery.clone(),
            wake: wake.clone(),
        };
        let delivery_task = worker.spawn(stop_rx);
        let (stop_leases, stop_leases_rx) = watch::channel(false);
        let service = AgentCall {
            inner: Arc::new(Inner {
                store,
                outbox,
                idempotency,
                carrier: self.carrier,
                agent: self.agent,
                extractor: self.extractor,
                value_check: self.value_check,
                directory: self.directory,
                rate_limiter,
                ledger,
                guardrails,
                billing_period: self.billing_period,
                delivery: self.delivery,
                timing: self.timing,
                base_url: self.base_url,
                wake,
                accepting: AtomicBool::new(true),
                running: AtomicUsize::new(0),
                idle: Notify::new(),
                stop_calls,
                stop_delivery,
                delivery_task: std::sync::Mutex::new(Some(delivery_task)),
                instance: self.instance,
                clock: self.clock,
                default_calling_windows,
                on_time_starts: self.on_time_starts,
                following: std::sync::Mutex::new(Default::default()),
                lookouts: std::sync::Mutex::default(),
                store_health: std::sync::Mutex::default(),
                takeover: tokio::sync::Mutex::new(()),
                stop_leases,
                lease_task: std::sync::Mutex::new(None),
            }),
        };
        service
            .inner
            .carrier
            .attach(super::CarrierLink::new(&service.inner));
        let keeper = service.spawn_lease_keeper(stop_leases_rx);
        *service
            .inner
            .lease_task
            .lock()
            .unwrap_or_else(|p| p.into_inner()) = Some(keeper);
        Ok(service)
    }
}

#[cfg(feature = "http-notifier")]
fn default_notifier(guardrails: &Guardrails) -> Arc<dyn Notifier> {
    let allow_loopback = guardrails.config().allow_insecure_loopback_webhooks;
    Arc::new(crate::notify::HttpNotifier::new(
        crate::notify::SsrfPolicy { allow_loopback },
    ))
}

/// Building still works without a transport; each delivery attempt then
/// fails with an error that names the fix.
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

#[cfg(test)]
mod tests {
    use super::*;

    /// The defaults the setters' documentation states.
    #[test]
    fn timing_defaults_are_as_documented_and_each_setter_sets_its_own() {
        let secs = Duration::from_secs;
        let timing = |b: AgentCallBuilder| b.timing;
        let (ring, grace, cancel) = (secs(300), secs(30), secs(10));
        assert_eq!(
            timing(AgentCall::builder()),
            Timing {
                ring_timeout: ring,
                hang_up_grace: grace,
                cancel_wait: cancel,
                dial_timeout: secs(30),
                hang_up_timeout: secs(10),
                account_lookup_timeout: secs(5),
                extraction_timeout: secs(60),
                idempotency_lease: secs(60),
                call_lease: secs(30),
            }
        );
        let set = timing(
            AgentCall::builder()
                .dial_timeout(secs(4))
                .hang_up_timeout(secs(5))
                .account_lookup_timeout(secs(6))
                .extraction_timeout(secs(7))
                .idempotency_lease(secs(8))
                .call_lease(secs(9)),
        );
        assert_eq!(
            (
                set.dial_timeout,
                set.hang_up_timeout,
                set.account_lookup_timeout,
                set.extraction_timeout,
                set.idempotency_lease,
                set.call_lease
            ),
            (secs(4), secs(5), secs(6), secs(7), secs(8), secs(9))
        );
        let set = timing(
            AgentCall::builder()
                .ring_timeout(secs(1))
                .hang_up_grace(secs(2))
                .cancel_wait(secs(3)),
        );
        assert_eq!(
            (set.ring_timeout, set.hang_up_grace, set.cancel_wait),
            (secs(1), secs(2), secs(3))
        );
    }
}
