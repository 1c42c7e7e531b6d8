//! At-least-once delivery: a worker claims due events from the outbox, signs
//! each attempt afresh and sends it through the [`Notifier`], then records
//! the outcome and schedules the retry.
//!
//! - Only 2xx is success; 3xx, 4xx, 5xx, timeouts and transport errors are
//!   failures. Redirects are not followed.
//! - A retry reuses the event's id and body byte for byte; the signature's
//!   `t` is renewed per attempt.
//! - The delay before attempt *n* is `schedule[n]` with ±10% jitter;
//!   after the last entry the event is given up (and can be redelivered by
//!   the host). A `Retry-After` on 429 or 503 postpones the retry to at least
//!   that long, capped at [`DeliveryConfig::max_retry_after`].
//! - Attempts run concurrently up to [`DeliveryConfig::concurrency`], each in
//!   its own task with its own timeout, and at most
//!   [`DeliveryConfig::per_endpoint_concurrency`] to any one endpoint (scheme,
//!   host and port), so a slow or dead endpoint cannot take every slot.
//! - Slots are shared fairly between accounts: the worker claims as many
//!   events as it has free slots, and the outbox hands them out in turns by
//!   account, an account with attempts in flight after one without (see
//!   [`EventOutbox`]). A tenant with thousands of due events, or with many
//!   slow endpoints, gets no more than its turn: an account with nothing in
//!   flight goes ahead of it for the next slot that frees up, at most one
//!   attempt timeout away.
//! - Each attempt's outcome is recorded under its claim's token: an attempt
//!   that outlived its lease (its event handed out again meanwhile) cannot
//!   overwrite the newer attempt's outcome.
//! - A circuit breaker per endpoint: after
//!   [`DeliveryConfig::breaker_threshold`] failures in a row the endpoint
//!   gets no attempt for [`DeliveryConfig::breaker_cool_down`], then one
//!   trial; a success closes it. Events held back this way are delayed
//!   (their claim's lease returns them to the outbox, where this or another
//!   instance claims them again), never dropped, and no attempt is counted
//!   for them.
//! - An event whose endpoint is at its cap waits in the worker, in order,
//!   and starts as soon as one of that endpoint's attempts ends; claims the
//!   worker holds this way count against its slots, so it never holds more
//!   than it could run. One held longer than [`HOLD_LIMIT`] is handed back
//!   to the outbox, due at once ([`AttemptOutcome::Postponed`]), so a slow
//!   endpoint cannot keep its claims from other accounts' events for long.

use std::collections::{HashMap, VecDeque};
use std::sync::Arc;
use std::time::Duration;

use chrono::{DateTime, Utc};
use tokio::sync::{Notify, Semaphore, watch};
use tokio::task::JoinHandle;

use super::endpoints::{AttemptResult, Endpoints, endpoint_key};
use super::signature::Signer;
use crate::accounts::AccountDirectory;
use crate::notify::{Notifier, WebhookRequest};
use crate::store::{AttemptOutcome, ClaimToken, EventOutbox, PendingDelivery, RecordedAttempt};

/// Delay before each attempt by default: immediately, 5 s, 5 min, 30 min,
/// 2 h, 5 h, 10 h, 10 h (eight attempts over about 28 hours).
pub const DEFAULT_RETRY_SCHEDULE: [Duration; 8] = [
    Duration::ZERO,
    Duration::from_secs(5),
    Duration::from_secs(5 * 60),
    Duration::from_secs(30 * 60),
    Duration::from_secs(2 * 3600),
    Duration::from_secs(5 * 3600),
    Duration::from_secs(10 * 3600),
    Duration::from_secs(10 * 3600),
];

/// How often a worker looks again at due events that could not be claimed.
const BLOCKED_POLL: Duration = Duration::from_millis(250);

/// How long the worker keeps a claimed event waiting for a slot at its
/// endpoint before it hands the claim back to the outbox.
pub const HOLD_LIMIT: Duration = Duration::from_secs(2);

/// A claimed event waiting for a slot at its endpoint.
#[derive(Debug)]
struct Held {
    pending: PendingDelivery,
    since: tokio::time::Instant,
}

/// How events are delivered.
#[derive(Debug, Clone, PartialEq)]
pub struct DeliveryConfig {
    /// The delay before each attempt; its length is the number of attempts.
    pub schedule: Vec<Duration>,
    /// The longest one attempt may take.
    pub timeout: Duration,
    /// Most attempts in flight at once.
    pub concurrency: usize,
    /// Relative jitter applied to each delay (0.1 = ±10%).
    pub jitter: f64,
    /// The longest a receiver's `Retry-After` may postpone a retry.
    pub max_retry_after: Duration,
    /// Most attempts in flight to one endpoint (scheme, host and port).
    pub per_endpoint_concurrency: usize,
    /// Failures in a row that open an endpoint's circuit breaker.
    pub breaker_threshold: u32,
    /// How long an open breaker holds an endpoint's events back before one
    /// trial attempt.
    pub breaker_cool_down: Duration,
}

impl Default for DeliveryConfig {
    fn default() -> Self {
        Self {
            schedule: DEFAULT_RETRY_SCHEDULE.to_vec(),
            timeout: Duration::from_secs(15),
            concurrency: 64,
            jitter: 0.1,
            max_retry_after: Duration::from_secs(3600),
            per_endpoint_concurrency: 8,
            breaker_threshold: 5,
            breaker_cool_down: Duration::from_secs(60),
        }
    }
}

impl DeliveryConfig {
    /// The delay before the first attempt.
    pub fn first_delay(&self) -> Duration {
        self.schedule.first().copied().unwrap_or_default()
    }

    fn jittered(&self, delay: Duration) -> Duration {
        let factor = 1.0 + self.jitter.clamp(0.0, 1.0) * (fastrand::f64() * 2.0 - 1.0);
        delay.mul_f64(factor)
    }
}

/// The background worker that drains the outbox.
#[derive(Debug)]
pub(crate) struct DeliveryWorker {
    pub(crate) outbox: Arc<dyn EventOutbox>,
    pub(crate) notifier: Arc<dyn Notifier>,
    pub(crate) directory: Arc<dyn AccountDirectory>,
    /// Bounds each account lookup.
    pub(crate) account_lookup_timeout: std::time::Duration,
    pub(crate) config: DeliveryConfig,
    pub(crate) wake: Arc<Notify>,
}

impl DeliveryWorker {
    /// Runs until `stop` turns true; attempts in flight then finish on their own.
    pub(crate) fn spawn(self, mut stop: watch::Receiver<bool>) -> JoinHandle<()> {
        let worker = Arc::new(self);
        tokio::spawn(async move {
            let permits = Arc::new(Semaphore::new(worker.config.concurrency.max(1)));
            let endpoints = Arc::new(Endpoints::new(
                worker.config.per_endpoint_concurrency,
                worker.config.breaker_threshold,
                worker.config.breaker_cool_down,
            ));
            // The lease outlives an attempt, so a claim is only handed out
            // again if this process died mid-attempt.
            let lease = worker.config.timeout * 2 + Duration::from_secs(5);
            let hold_limit = HOLD_LIMIT.min(lease / 2);
            // Claims whose endpoint was at its cap, per endpoint, oldest first.
            let mut held: HashMap<String, VecDeque<Held>> = HashMap::new();
            let mut held_count = 0usize;
            while !*stop.borrow() {
                let now = tokio::time::Instant::now();
                let mut started = 0usize;
                for (endpoint, queue) in held.iter_mut() {
                    while let Some(front) = queue.front() {
                        if now.duration_since(front.since) >= hold_limit {
                            let stale = queue.pop_front().expect("a front");
                            worker.hand_back(stale.pending, Utc::now());
                        } else if endpoints.try_start(endpoint, now) {
                            let Ok(permit) = Arc::clone(&permits).try_acquire_owned() else {
                                // Cannot happen (held claims are within the
                                // slots); give the start back and wait.
                                endpoints.finish(endpoint, AttemptResult::NotMade, now);
                                break;
                            };
                            let next = queue.pop_front().expect("a front");
                            worker.start(next.pending, endpoint.clone(), permit, &endpoints);
                            started += 1;
                        } else {
                            break;
                        }
                        held_count -= 1;
                    }
                }
                held.retain(|_, queue| !queue.is_empty());
                let free = permits.available_permits().saturating_sub(held_count);
                let claimed = if free == 0 {
                    Vec::new()
                } else {
                    match worker.outbox.claim_due(Utc::now(), free, lease).await {
                        Ok(claimed) => claimed,
                        Err(error) => {
                            tracing::warn!(%error, "webhook outbox unavailable");
                            Vec::new()
                        }
                    }
                };
                let idle = claimed.is_empty() && started == 0;
                for pending in claimed {
                    let endpoint = endpoint_key(&pending.event.url);
                    let now = tokio::time::Instant::now();
                    if let Some(queue) = held.get_mut(&endpoint) {
                        // Behind the ones already waiting for this endpoint.
                        queue.push_back(Held {
                            pending,
                            since: now,
                        });
                        held_count += 1;
                    } else if endpoints.try_start(&endpoint, now) {
                        let Ok(permit) = Arc::clone(&permits).acquire_owned().await else {
                            return;
                        };
                        worker.start(pending, endpoint, permit, &endpoints);
                    } else if endpoints.is_open(&endpoint, now) {
                        // Its breaker is open: the claim's lease hands the
                        // event out again later (to any instance, whose
                        // breaker may be closed), as if this one had died.
                        tracing::debug!(event_id = %pending.event.event_id, %endpoint, "webhook attempt held back: breaker open");
                    } else {
                        held.entry(endpoint).or_default().push_back(Held {
                            pending,
                            since: now,
                        });
                        held_count += 1;
                    }
                }
                if idle {
                    let sleep = if held_count > 0 {
                        // An attempt's end wakes us; the oldest held claim
                        // may need handing back before that.
                        hold_limit
                    } else {
                        worker.until_next_due().await
                    };
                    tokio::select! {
                        _ = tokio::time::sleep(sleep) => {}
                        _ = worker.wake.notified() => {}
                        // A dropped service (its sender gone) stops the worker too.
                        changed = stop.changed() => if changed.is_err() { return },
                    }
                }
            }
            for pending in held.into_values().flatten() {
                worker.hand_back(pending.pending, Utc::now());
            }
        })
    }

    /// Starts one attempt in its own task; its end frees `permit`, tells
    /// `endpoints` and wakes the loop.
    fn start(
        self: &Arc<Self>,
        pending: PendingDelivery,
        endpoint: String,
        permit: tokio::sync::OwnedSemaphorePermit,
        endpoints: &Arc<Endpoints>,
    ) {
        let (worker, endpoints) = (Arc::clone(self), Arc::clone(endpoints));
        tokio::spawn(async move {
            let result = worker.attempt(pending).await;
            endpoints.finish(&endpoint, result, tokio::time::Instant::now());
            drop(permit);
            worker.wake.notify_one();
        });
    }

    /// Gives a claim back to the outbox unattempted, due at `due` (in the
    /// background: the loop does not wait for the store).
    fn hand_back(self: &Arc<Self>, pending: PendingDelivery, due: DateTime<Utc>) {
        let worker = Arc::clone(self);
        tokio::spawn(async move {
            let outcome = AttemptOutcome::Postponed { retry_at: due };
            worker
                .record(&pending.event.event_id, pending.claim, outcome)
                .await;
        });
    }

    async fn until_next_due(&self) -> Duration {
        match self.outbox.next_due().await {
            // Due, yet nothing was claimable: it waits behind an attempt in
            // flight (whose end wakes us) or for a free slot. Do not spin.
            Ok(Some(at)) if at <= Utc::now() => BLOCKED_POLL,
            Ok(Some(at)) => (at - Utc::now())
                .to_std()
                .unwrap_or(Duration::ZERO)
                .max(Duration::from_millis(1)),
            Ok(None) => Duration::from_secs(3600),
            Err(_) => Duration::from_secs(1),
        }
    }

    async fn attempt(&self, pending: PendingDelivery) -> AttemptResult {
        let event = &pending.event;
        let lookup = self.directory.account(&event.account_id);
        let looked_up = match tokio::time::timeout(self.account_lookup_timeout, lookup).await {
            Ok(result) => result,
            Err(_) => Err(crate::accounts::DirectoryError(
                format!(
                    "account lookup took longer than {:?}",
                    self.account_lookup_timeout
                )
                .into(),
            )),
        };
        let account = match looked_up {
            Ok(Some(account)) => account,
            Ok(None) => {
                let outcome = AttemptOutcome::Failed {
                    status: None,
                    error: "account no longer exists".into(),
                    retry_at: None,
                };
                self.record(&event.event_id, pending.claim, outcome).await;
                return AttemptResult::NotMade;
            }
            Err(error) => {
                tracing::warn!(%error, "account directory unavailable; webhook attempt postponed");
                return AttemptResult::NotMade; // the lease expires and the event is claimed again
            }
        };
        let now = Utc::now();
        let signature = Signer::new(&account.webhook_secret).sign(now.timestamp(), &event.body);
        let request = WebhookRequest {
            url: event.url.clone(),
            body: event.body.clone(),
            signature,
            event_id: event.event_id.clone(),
            timeout: self.config.timeout,
        };
        // Bound the attempt here too, whatever the transport does.
        let answer = tokio::time::timeout(self.config.timeout, self.notifier.send(request)).await;
        let attempts = pending.attempts + 1;
        let outcome = match answer {
            Ok(Ok(response)) if (200..300).contains(&response.status) => {
                AttemptOutcome::Delivered {
                    status: response.status,
                }
            }
            Ok(Ok(response)) => {
                let asked = matches!(response.status, 429 | 503)
                    .then_some(response.retry_after)
                    .flatten()
                    .map(|d| d.min(self.config.max_retry_after));
                AttemptOutcome::Failed {
                    status: Some(response.status),
                    error: format!("HTTP {}", response.status),
                    retry_at: self.retry_at(attempts, asked),
                }
            }
            Ok(Err(error)) => AttemptOutcome::Failed {
                status: None,
                error: error.to_string(),
                retry_at: self.retry_at(attempts, None),
            },
            Err(_) => AttemptOutcome::Failed {
                status: None,
                error: "timed out".into(),
                retry_at: self.retry_at(attempts, None),
            },
        };
        match &outcome {
            AttemptOutcome::Delivered { .. } => {
                tracing::debug!(event_id = %event.event_id, attempts, "webhook delivered")
            }
            AttemptOutcome::Failed {
                error, retry_at, ..
            } => tracing::info!(
                event_id = %event.event_id, attempts, %error, retry = retry_at.is_some(),
                "webhook attempt failed"
            ),
            AttemptOutcome::Postponed { .. } => {}
        }
        let result = match outcome {
            AttemptOutcome::Delivered { .. } => AttemptResult::Delivered,
            AttemptOutcome::Failed { .. } => AttemptResult::Failed,
            AttemptOutcome::Postponed { .. } => AttemptResult::NotMade,
        };
        self.record(&event.event_id, pending.claim, outcome).await;
        result
    }

    /// When attempt number `attempts + 1` is due, or `None` to give up.
    fn retry_at(&self, attempts: u32, asked: Option<Duration>) -> Option<DateTime<Utc>> {
        let delay = *self.config.schedule.get(attempts as usize)?;
        let delay = self.config.jittered(delay).max(asked.unwrap_or_default());
        let delay = chrono::Duration::from_std(delay).unwrap_or(chrono::Duration::MAX);
        Some(
            Utc::now()
                .checked_add_signed(delay)
                .unwrap_or(DateTime::<Utc>::MAX_UTC),
        )
    }

    async fn record(&self, event_id: &str, claim: ClaimToken, outcome: AttemptOutcome) {
        match self
            .outbox
            .record_attempt(event_id, claim, Utc::now(), outcome)
            .await
        {
            Ok(RecordedAttempt::Applied) => {}
            // The lease lapsed and the event was claimed again (or it was
            // redelivered): the newer claim's outcome is the one that counts.
            Ok(RecordedAttempt::Stale) => {
                tracing::info!(
                    event_id,
                    "late webhook outcome discarded: the event was claimed again"
                )
            }
            Err(error) => {
                tracing::warn!(%error, event_id, "could not record a webhook attempt; it will be retried")
            }
        }
    }
}
