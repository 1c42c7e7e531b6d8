//! A held `Idempotency-Key`: renewed while its placement runs, and ended
//! with `complete` (kept until it is recorded) or `abandon`.

use std::sync::Arc;
use std::time::Duration;

use crate::domain::KeyId;
use crate::store::{HoldToken, IdempotencyStore, StoredResponse};

/// A key this request holds under `token`. A task renews the lease every
/// third of it until the hold is dropped, so a slow placement never loses
/// its key to a retry (which would place a second call).
pub(super) struct Hold {
    store: Arc<dyn IdempotencyStore>,
    key_id: KeyId,
    key: String,
    token: HoldToken,
    lease: Duration,
    renewer: tokio::task::JoinHandle<()>,
}

impl Hold {
    /// Starts renewing the key `begin` handed out under `token`.
    pub(super) fn start(
        store: Arc<dyn IdempotencyStore>,
        key_id: KeyId,
        key: String,
        token: HoldToken,
        lease: Duration,
    ) -> Self {
        let period = (lease / 3).max(Duration::from_millis(1));
        let renewer = {
            let (store, key_id, key) = (store.clone(), key_id.clone(), key.clone());
            tokio::spawn(async move {
                let mut ticks = tokio::time::interval(period);
                ticks.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
                ticks.tick().await; // the first tick is immediate
                loop {
                    ticks.tick().await;
                    let now = chrono::Utc::now();
                    match store.renew(&key_id, &key, token, now).await {
                        Ok(true) => {}
                        Ok(false) => {
                            tracing::error!(
                                idempotency_key = %key,
                                "lost an idempotency key while its placement ran"
                            );
                            return;
                        }
                        // The next tick tries again; the lease outlasts two misses.
                        Err(error) => {
                            tracing::warn!(%error, "could not renew an idempotency key");
                        }
                    }
                }
            })
        };
        Self {
            store,
            key_id,
            key,
            token,
            lease,
            renewer,
        }
    }

    /// Frees the key: the request changed nothing, so a retry may run.
    /// Should that fail, the key frees itself a lease later (renewal stops).
    pub(super) async fn abandon(self) {
        if let Err(error) = self
            .store
            .abandon(&self.key_id, &self.key, self.token)
            .await
        {
            tracing::warn!(%error, "could not free an idempotency key; it frees itself after its lease");
        }
    }

    /// Stores `answer` for replay. A placement whose answer cannot be
    /// recorded keeps its key held (renewed) and is retried in the
    /// background every third of the lease until it is recorded or the
    /// record's `ttl` has passed, so a retry never places the call again.
    pub(super) async fn complete(self, answer: StoredResponse, ttl: Duration) {
        let Err(error) = self.try_complete(&answer).await else {
            return;
        };
        tracing::warn!(%error, "could not record an idempotency key's answer; retrying while holding it");
        let give_up = tokio::time::Instant::now() + ttl;
        tokio::spawn(async move {
            let period = (self.lease / 3).max(Duration::from_millis(1));
            while tokio::time::Instant::now() < give_up {
                tokio::time::sleep(period).await;
                match self.try_complete(&answer).await {
                    Ok(()) => return,
                    Err(error) => {
                        tracing::warn!(%error, "still cannot record an idempotency key's answer");
                    }
                }
            }
        });
    }

    async fn try_complete(&self, answer: &StoredResponse) -> Result<(), crate::store::StoreError> {
        self.store
            .complete(&self.key_id, &self.key, self.token, answer.clone())
            .await
    }
}

impl Drop for Hold {
    fn drop(&mut self) {
        self.renewer.abort();
    }
}
