//! A webhook receiver: verifies each request's signature on the raw body,
//! drops duplicates by eventId, and prints each event.
//!
//! ```text
//! cargo run --example webhook_receiver -- --secret whsec_a [--secret whsec_old] [--listen 127.0.0.1:9090]
//! ```
//!
//! Point a placement's `webhookUrl` at `http://127.0.0.1:9090/hooks` (the
//! server needs `"allowInsecureLoopbackWebhooks": true` for plain http).

use std::sync::Arc;
use std::time::Duration;

use agentcall::webhook::{Claim, SIGNATURE_HEADER, SharedDeduplicator, Verifier};
use axum::extract::State;
use axum::http::{HeaderMap, StatusCode};
use bytes::Bytes;

struct Receiver {
    verifier: Verifier,
    seen: SharedDeduplicator,
}

async fn receive(
    State(receiver): State<Arc<Receiver>>,
    headers: HeaderMap,
    body: Bytes,
) -> StatusCode {
    let header = headers.get(SIGNATURE_HEADER).and_then(|v| v.to_str().ok());
    let now = chrono::Utc::now().timestamp();
    // Verify the bytes exactly as received: re-serialized JSON would not match.
    if let Err(error) = receiver.verifier.verify(&body, header, now) {
        eprintln!("rejected: {error}");
        return StatusCode::BAD_REQUEST;
    }
    let Ok(event) = serde_json::from_slice::<serde_json::Value>(&body) else {
        return StatusCode::BAD_REQUEST;
    };
    let event_id = event["eventId"].as_str().unwrap_or_default();
    // Two phases: claim the id, handle the event, then mark it handled. A
    // handler that fails releases the claim and answers 5xx, so the sender's
    // retry is handled again instead of being dropped as a duplicate.
    match receiver.seen.begin(event_id, now) {
        Claim::Duplicate => {
            eprintln!("duplicate {event_id}, already handled");
            return StatusCode::OK; // acknowledge, or the sender keeps retrying
        }
        Claim::InProgress => return StatusCode::CONFLICT, // being handled; retry later
        Claim::New => {}
    }
    match handle(&event) {
        Ok(()) => {
            receiver
                .seen
                .complete(event_id, chrono::Utc::now().timestamp());
            StatusCode::NO_CONTENT
        }
        Err(error) => {
            eprintln!("handler failed for {event_id}: {error}");
            receiver.seen.release(event_id);
            StatusCode::SERVICE_UNAVAILABLE
        }
    }
}

/// The application's own work for one event; here, print it.
fn handle(event: &serde_json::Value) -> std::io::Result<()> {
    use std::io::Write;
    let mut out = std::io::stdout().lock();
    writeln!(out, "{event}")?;
    out.flush()
}

#[tokio::main]
async fn main() -> std::process::ExitCode {
    let mut secrets = Vec::new();
    let mut listen = "127.0.0.1:9090".to_owned();
    let mut args = std::env::args().skip(1);
    while let Some(arg) = args.next() {
        match (arg.as_str(), args.next()) {
            ("--secret", Some(secret)) => secrets.push(secret.as_str().into()),
            ("--listen", Some(address)) => listen = address,
            _ => {
                eprintln!("usage: webhook_receiver --secret SECRET [--secret OLD] [--listen ADDR]");
                return std::process::ExitCode::from(2);
            }
        }
    }
    if secrets.is_empty() {
        eprintln!("error: give at least one --secret");
        return std::process::ExitCode::from(2);
    }
    let receiver = Arc::new(Receiver {
        verifier: Verifier::new(secrets),
        // Senders retry for about a day; remember ids a little longer.
        seen: SharedDeduplicator::new(100_000, Duration::from_secs(48 * 3600)),
    });
    let app = axum::Router::new().fallback(receive).with_state(receiver);
    let listener = match tokio::net::TcpListener::bind(&listen).await {
        Ok(listener) => listener,
        Err(error) => {
            eprintln!("error: cannot listen on {listen}: {error}");
            return std::process::ExitCode::from(2);
        }
    };
    eprintln!(
        "receiving webhooks on http://{}/hooks",
        listener
            .local_addr()
            .map(|a| a.to_string())
            .unwrap_or(listen)
    );
    match axum::serve(listener, app).await {
        Ok(()) => std::process::ExitCode::SUCCESS,
        Err(error) => {
            eprintln!("error: {error}");
            std::process::ExitCode::FAILURE
        }
    }
}
