//! The framework floor for the load benchmark (`bench/load/run.sh`): the
//! least an HTTP server must do to answer the same requests as agentcall's
//! example server. It checks the Bearer key, parses the JSON body and answers
//! 201 (placement) or 200 (get, list) with a small JSON body: no guardrails,
//! no store, no call. Whatever agentcall's server costs beyond this is its own.
//!
//! ```text
//! cargo run --release -p agentcall-bench --bin floor -- 127.0.0.1:0 key_load
//! ```
//!
//! Prints `listening on http://HOST:PORT` once ready.

use std::io::Write;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};

use axum::Router;
use axum::body::Bytes;
use axum::extract::{Path, State};
use axum::http::{HeaderMap, StatusCode, header};
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post};

struct Floor {
    bearer: String,
    next_id: AtomicU64,
}

impl Floor {
    fn authorized(&self, headers: &HeaderMap) -> bool {
        headers
            .get(header::AUTHORIZATION)
            .is_some_and(|value| value.as_bytes() == self.bearer.as_bytes())
    }
}

fn json(status: StatusCode, body: String) -> Response {
    (status, [(header::CONTENT_TYPE, "application/json")], body).into_response()
}

async fn place(State(floor): State<Arc<Floor>>, headers: HeaderMap, body: Bytes) -> Response {
    if !floor.authorized(&headers) {
        return json(
            StatusCode::UNAUTHORIZED,
            r#"{"error":"unauthorized"}"#.into(),
        );
    }
    let Ok(request) = serde_json::from_slice::<serde_json::Value>(&body) else {
        return json(
            StatusCode::BAD_REQUEST,
            r#"{"error":"invalid_json"}"#.into(),
        );
    };
    let to = request.get("to").and_then(|to| to.as_str()).unwrap_or("");
    let id = floor.next_id.fetch_add(1, Ordering::Relaxed);
    let answer =
        serde_json::json!({"callId": format!("call_{id:032x}"), "status": "queued", "to": to});
    json(StatusCode::CREATED, answer.to_string())
}

async fn fetch(
    State(floor): State<Arc<Floor>>,
    headers: HeaderMap,
    Path(id): Path<String>,
) -> Response {
    if !floor.authorized(&headers) {
        return json(
            StatusCode::UNAUTHORIZED,
            r#"{"error":"unauthorized"}"#.into(),
        );
    }
    json(
        StatusCode::OK,
        serde_json::json!({"callId": id, "status": "ringing"}).to_string(),
    )
}

async fn list(State(floor): State<Arc<Floor>>, headers: HeaderMap) -> Response {
    if !floor.authorized(&headers) {
        return json(
            StatusCode::UNAUTHORIZED,
            r#"{"error":"unauthorized"}"#.into(),
        );
    }
    json(StatusCode::OK, r#"{"data":[],"nextCursor":null}"#.into())
}

#[tokio::main]
async fn main() -> std::io::Result<()> {
    let mut args = std::env::args().skip(1);
    let listen = args.next().unwrap_or_else(|| "127.0.0.1:0".into());
    let key = args.next().unwrap_or_else(|| "key_load".into());
    let floor = Arc::new(Floor {
        bearer: format!("Bearer {key}"),
        next_id: AtomicU64::new(1),
    });
    let app = Router::new()
        .route("/v1/agent/calls", post(place).get(list))
        .route("/v1/agent/calls/{id}", get(fetch))
        .with_state(floor);
    let listener = tokio::net::TcpListener::bind(&listen).await?;
    let mut stdout = std::io::stdout().lock();
    writeln!(stdout, "listening on http://{}", listener.local_addr()?)?;
    stdout.flush()?;
    drop(stdout);
    axum::serve(listener, app).await
}
