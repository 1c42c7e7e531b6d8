//! `"carrier"`: the simulated carrier (default) or Twilio, and the routes
//! Twilio reaches (feature `twilio`).

use std::sync::Arc;

use agentcall::{Carrier, SimulatedCarrier, SimulationConfig};
use serde::Deserialize;

/// `"carrier"`. Holds the Twilio auth token: no `Debug`.
#[cfg_attr(not(feature = "twilio"), allow(dead_code))]
#[derive(Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct CarrierFile {
    /// `simulated` (default) or `twilio`.
    #[serde(default = "default_kind")]
    pub kind: String,
    #[serde(default)]
    pub account_sid: Option<String>,
    #[serde(default)]
    pub auth_token: Option<String>,
    /// Twilio's API (`https://api.twilio.com` when absent).
    #[serde(default)]
    pub api_base: Option<String>,
    /// The base URL Twilio uses to reach this server.
    #[serde(default)]
    pub public_url: Option<String>,
    #[serde(default = "yes")]
    pub machine_detection: bool,
    #[serde(default = "yes")]
    pub record: bool,
    #[serde(default = "default_ring_timeout_sec")]
    pub ring_timeout_sec: u64,
}

impl Default for CarrierFile {
    fn default() -> Self {
        Self {
            kind: default_kind(),
            account_sid: None,
            auth_token: None,
            api_base: None,
            public_url: None,
            machine_detection: true,
            record: true,
            ring_timeout_sec: default_ring_timeout_sec(),
        }
    }
}

fn default_kind() -> String {
    "simulated".into()
}

fn yes() -> bool {
    true
}

fn default_ring_timeout_sec() -> u64 {
    30
}

impl CarrierFile {
    /// Checks what can be checked before anything starts.
    pub fn check(&self) -> Result<(), String> {
        match self.kind.as_str() {
            "simulated" => Ok(()),
            "twilio" => {
                let missing = |name: &str| format!("carrier.{name}: needed for Twilio");
                let sid = self
                    .account_sid
                    .as_deref()
                    .ok_or_else(|| missing("accountSid"))?;
                if !sid.starts_with("AC") {
                    return Err("carrier.accountSid: a Twilio account SID starts with AC".into());
                }
                if self.auth_token.as_deref().is_none_or(str::is_empty) {
                    return Err(missing("authToken"));
                }
                let public = self
                    .public_url
                    .as_deref()
                    .ok_or_else(|| missing("publicUrl"))?;
                let public =
                    url::Url::parse(public).map_err(|e| format!("carrier.publicUrl: {e}"))?;
                if !matches!(public.scheme(), "https" | "http") {
                    return Err("carrier.publicUrl: must be an https:// URL".into());
                }
                if public.path() != "/" || public.query().is_some() {
                    return Err(
                        "carrier.publicUrl: an origin without a path (Twilio's routes are at the root)"
                            .into(),
                    );
                }
                if let Some(base) = &self.api_base {
                    url::Url::parse(base).map_err(|e| format!("carrier.apiBase: {e}"))?;
                }
                if !(1..=600).contains(&self.ring_timeout_sec) {
                    return Err("carrier.ringTimeoutSec: 1 to 600".into());
                }
                Ok(())
            }
            other => Err(format!(
                "carrier.kind: {other:?} is not simulated or twilio"
            )),
        }
    }
}

/// The configured carrier and, for Twilio, the routes it needs mounted.
pub struct CarrierSetup {
    pub carrier: Arc<dyn Carrier>,
    #[cfg(feature = "twilio")]
    pub twilio: Option<agentcall::twilio::TwilioCarrier>,
}

/// Builds the carrier (the service attaches it and runs its
/// conversations with its agent).
pub fn build(file: &CarrierFile, simulation: SimulationConfig) -> Result<CarrierSetup, String> {
    match file.kind.as_str() {
        #[cfg(feature = "twilio")]
        "twilio" => {
            use agentcall::twilio::{TwilioCarrier, TwilioConfig, signature::AuthToken};
            let public = url::Url::parse(file.public_url.as_deref().unwrap_or_default())
                .map_err(|e| format!("carrier.publicUrl: {e}"))?;
            let mut config = TwilioConfig::new(
                file.account_sid.clone().unwrap_or_default(),
                AuthToken::new(file.auth_token.clone().unwrap_or_default()),
                public,
            );
            if let Some(base) = &file.api_base {
                config.api_base = url::Url::parse(base).map_err(|e| format!("carrier.apiBase: {e}"))?;
            }
            config.machine_detection = file.machine_detection;
            config.record = file.record;
            config.ring_timeout = std::time::Duration::from_secs(file.ring_timeout_sec);
            let carrier = TwilioCarrier::new(config);
            Ok(CarrierSetup {
                carrier: Arc::new(carrier.clone()),
                twilio: Some(carrier),
            })
        }
        #[cfg(not(feature = "twilio"))]
        "twilio" => Err("carrier.kind twilio needs the `twilio` feature (cargo run --features twilio --example server)".into()),
        _ => Ok(CarrierSetup {
            carrier: Arc::new(SimulatedCarrier::new(simulation)),
            #[cfg(feature = "twilio")]
            twilio: None,
        }),
    }
}

/// Mounts Twilio's callbacks and the relay WebSocket.
#[cfg(feature = "twilio")]
pub fn mount(app: axum::Router, carrier: agentcall::twilio::TwilioCarrier) -> axum::Router {
    use agentcall::twilio::{TwilioCallbacks, paths};
    use axum::extract::ws::{Message, WebSocketUpgrade};
    use futures_util::{SinkExt, StreamExt};

    let callbacks = TwilioCallbacks::new(carrier);
    let relay = {
        let callbacks = callbacks.clone();
        axum::routing::get(
            move |upgrade: WebSocketUpgrade, uri: http::Uri, headers: http::HeaderMap| async move {
                let call_id = TwilioCallbacks::relay_call_id(&uri);
                let (true, Some(call_id)) =
                    (callbacks.verify_relay_handshake(&uri, &headers), call_id)
                else {
                    return axum::response::IntoResponse::into_response(
                        http::StatusCode::FORBIDDEN,
                    );
                };
                upgrade.on_upgrade(move |socket| async move {
                    let (sink, stream) = socket.split();
                    // Text frames both ways; pings are answered by axum, and
                    // a close ends the stream.
                    let incoming = stream.filter_map(|message| async move {
                        match message {
                            Ok(Message::Text(text)) => Some(Ok(text.to_string())),
                            Ok(_) => None,
                            Err(error) => Some(Err(error)),
                        }
                    });
                    let outgoing = sink.with(|text: String| async move {
                        Ok::<_, axum::Error>(Message::Text(text.into()))
                    });
                    if let Err(error) = callbacks
                        .relay(call_id, Box::pin(incoming), Box::pin(outgoing))
                        .await
                    {
                        tracing::warn!(%error, "relay session ended with an error");
                    }
                })
            },
        )
    };
    app.route_service(paths::STATUS, callbacks.clone())
        .route_service(paths::MACHINE, callbacks.clone())
        .route_service(paths::RECORDING, callbacks.clone())
        .route_service(paths::CONNECT_ACTION, callbacks)
        .route(&format!("{}/{{call_id}}", paths::RELAY), relay)
}
