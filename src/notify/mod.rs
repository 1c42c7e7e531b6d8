//! Webhook transport: one signed POST, one attempt.
//!
//! [`Notifier`] sends a request once and reports what happened; retries,
//! schedules and bookkeeping live in [`webhook::delivery`](crate::webhook::delivery).
//! The default transport, [`HttpNotifier`], is reqwest with rustls behind
//! the default `http-notifier` feature.

#[cfg(feature = "http-notifier")]
mod http;
mod ssrf;

use std::fmt::Debug;
use std::time::Duration;

use async_trait::async_trait;
use bytes::Bytes;

#[cfg(feature = "http-notifier")]
#[cfg_attr(docsrs, doc(cfg(feature = "http-notifier")))]
pub use http::HttpNotifier;
pub use ssrf::{SsrfPolicy, is_forbidden_target};

/// One signed webhook request.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct WebhookRequest {
    /// Target URL.
    pub url: String,
    /// JSON body, sent byte for byte.
    pub body: Bytes,
    /// Value of the `X-SVC-Signature` header.
    pub signature: String,
    /// The event's id (also sent as `X-SVC-Event-Id` by the HTTP transport).
    pub event_id: String,
    /// How long the attempt may take in all.
    pub timeout: Duration,
}

/// The receiver's answer.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct WebhookResponse {
    /// HTTP status. Only 2xx counts as delivered; 3xx is a failure and is not followed.
    pub status: u16,
    /// The `Retry-After` the receiver asked for (on 429 and 503).
    pub retry_after: Option<Duration>,
}

/// Why an attempt got no answer. Every variant is retried on the delivery
/// schedule ([`is_transient`](Self::is_transient) says which may pass by
/// themselves).
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum NotifyError {
    /// The target resolves to an address webhooks may not reach (SSRF guard).
    #[error("target refused: {0}")]
    Forbidden(String),
    /// No answer within the timeout.
    #[error("timed out")]
    Timeout,
    /// Could not connect or send.
    #[error("transport error: {0}")]
    Transport(#[source] crate::BoxError),
}

impl NotifyError {
    /// Whether trying again later may succeed on its own: a timeout or a
    /// broken connection may pass; a forbidden target stays forbidden until
    /// its address changes.
    pub fn is_transient(&self) -> bool {
        !matches!(self, Self::Forbidden(_))
    }
}

/// Sends one webhook request.
///
/// # Contract
///
/// - One attempt, no retries, bounded by `request.timeout`.
/// - Sends `body` unchanged with `Content-Type: application/json` and the
///   signature header; does not follow redirects.
/// - `Ok` for any HTTP answer (the caller judges the status); `Err` when no
///   answer came.
#[async_trait]
pub trait Notifier: Send + Sync + Debug {
    /// Sends one request; see the contract.
    async fn send(&self, request: WebhookRequest) -> Result<WebhookResponse, NotifyError>;
}
