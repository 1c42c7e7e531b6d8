//! The default webhook transport: reqwest with rustls.

use std::net::{IpAddr, SocketAddr};
use std::sync::Arc;
use std::time::Duration;

use async_trait::async_trait;
use reqwest::dns::{Addrs, Name, Resolve, Resolving};

use super::{NotifyError, SsrfPolicy, WebhookRequest, WebhookResponse};
use crate::webhook::signature::SIGNATURE_HEADER;

/// Sends webhooks over HTTPS with reqwest (rustls), following no redirects.
///
/// Every host name is resolved by a guard that checks every address it
/// resolves to against the [`SsrfPolicy`]; the connection then uses exactly
/// those checked addresses, so a DNS answer cannot change between the check
/// and the connect. IP-literal URLs are checked before sending.
#[derive(Debug, Clone)]
pub struct HttpNotifier {
    client: reqwest::Client,
    policy: SsrfPolicy,
}

impl HttpNotifier {
    /// A transport enforcing `policy`.
    ///
    /// # Panics
    ///
    /// If the TLS backend cannot be initialised (it is compiled in, so this
    /// does not happen in practice); a transport without the guard is never
    /// returned instead.
    pub fn new(policy: SsrfPolicy) -> Self {
        let client = reqwest::Client::builder()
            .redirect(reqwest::redirect::Policy::none())
            // A proxy would resolve targets itself, past the guard.
            .no_proxy()
            .dns_resolver(Arc::new(GuardedResolver { policy }))
            .user_agent(concat!("agentcall/", env!("CARGO_PKG_VERSION")))
            .connect_timeout(Duration::from_secs(10))
            .build()
            .expect("a rustls client with a custom resolver always builds");
        Self { client, policy }
    }
}

impl Default for HttpNotifier {
    fn default() -> Self {
        Self::new(SsrfPolicy::default())
    }
}

#[derive(Debug)]
struct GuardedResolver {
    policy: SsrfPolicy,
}

impl Resolve for GuardedResolver {
    fn resolve(&self, name: Name) -> Resolving {
        let policy = self.policy;
        Box::pin(async move {
            let host = name.as_str().to_owned();
            let addrs: Vec<SocketAddr> =
                tokio::net::lookup_host((host.as_str(), 0)).await?.collect();
            if addrs.is_empty() {
                return Err(format!("{host} has no addresses").into());
            }
            if let Some(bad) = addrs.iter().find(|a| !policy.permits(a.ip())) {
                return Err(format!("{host} resolves to forbidden address {}", bad.ip()).into());
            }
            Ok(Box::new(addrs.into_iter()) as Addrs)
        })
    }
}

#[async_trait]
impl super::Notifier for HttpNotifier {
    async fn send(&self, request: WebhookRequest) -> Result<WebhookResponse, NotifyError> {
        let url =
            reqwest::Url::parse(&request.url).map_err(|e| NotifyError::Forbidden(e.to_string()))?;
        if let Some(host) = url.host_str() {
            let literal = host.trim_start_matches('[').trim_end_matches(']');
            if let Ok(ip) = literal.parse::<IpAddr>()
                && !self.policy.permits(ip)
            {
                return Err(NotifyError::Forbidden(format!("forbidden address {ip}")));
            }
        }
        let response = self
            .client
            .post(url)
            .timeout(request.timeout)
            .header(reqwest::header::CONTENT_TYPE, "application/json")
            .header(SIGNATURE_HEADER, request.signature)
            .header("X-SVC-Event-Id", request.event_id)
            .body(request.body)
            .send()
            .await
            .map_err(classify)?;
        let status = response.status().as_u16();
        let retry_after = response
            .headers()
            .get(reqwest::header::RETRY_AFTER)
            .and_then(|v| v.to_str().ok())
            .and_then(parse_retry_after);
        Ok(WebhookResponse {
            status,
            retry_after,
        })
    }
}

fn classify(error: reqwest::Error) -> NotifyError {
    if error.is_timeout() {
        return NotifyError::Timeout;
    }
    // Walk the source chain: the resolver's refusal is deep inside.
    let mut source: Option<&dyn std::error::Error> = Some(&error);
    while let Some(e) = source {
        let text = e.to_string();
        if text.contains("forbidden address") {
            return NotifyError::Forbidden(text);
        }
        source = e.source();
    }
    NotifyError::Transport(Box::new(error.without_url()))
}

/// `Retry-After` as delay-seconds or an HTTP date.
fn parse_retry_after(value: &str) -> Option<Duration> {
    let value = value.trim();
    if let Ok(seconds) = value.parse::<u64>() {
        return Some(Duration::from_secs(seconds));
    }
    let at = chrono::DateTime::parse_from_rfc2822(value).ok()?;
    (at.to_utc() - chrono::Utc::now()).to_std().ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn retry_after_takes_seconds_and_dates() {
        assert_eq!(parse_retry_after("120"), Some(Duration::from_secs(120)));
        assert_eq!(parse_retry_after("soon"), None);
        assert_eq!(
            parse_retry_after("Wed, 21 Oct 2015 07:28:00 GMT"),
            None,
            "past dates give nothing"
        );
        assert!(parse_retry_after("Wed, 21 Oct 2099 07:28:00 GMT").is_some());
    }
}
