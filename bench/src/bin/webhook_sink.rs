//! The webhook side of the load benchmark (`bench/load/run.sh`).
//!
//! ```text
//! webhook_sink serve 127.0.0.1:0 [HOLD_MS]
//! webhook_sink post URL BODY_FILE SECONDS CONCURRENCY
//! ```
//!
//! `serve` answers every POST with 200 and counts it; `GET /count` returns
//! the count so far. With HOLD_MS it answers no POST before HOLD_MS after
//! its start (an endpoint that recovers), so a backlog builds up in the
//! sender's outbox meanwhile. It prints `listening on http://HOST:PORT`
//! once ready.
//!
//! `post` is the delivery floor: the HTTP client agentcall's notifier uses
//! (reqwest with rustls, one client, keep-alive) posting the same body to
//! URL in a loop from CONCURRENCY tasks for SECONDS, then printing
//! `posted N in S s: R/s`.

use std::io::Write;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, Instant};

use axum::Router;
use axum::extract::State;
use axum::routing::{get, post};

#[derive(Clone)]
struct Sink {
    count: Arc<AtomicU64>,
    open_at: tokio::time::Instant,
}

async fn serve(listen: &str, hold: Duration) -> std::io::Result<()> {
    let sink = Sink {
        count: Arc::new(AtomicU64::new(0)),
        open_at: tokio::time::Instant::now() + hold,
    };
    let app = Router::new()
        .route(
            "/",
            post(|State(sink): State<Sink>| async move {
                tokio::time::sleep_until(sink.open_at).await;
                sink.count.fetch_add(1, Ordering::Relaxed);
                "ok"
            }),
        )
        .route(
            "/count",
            get(|State(sink): State<Sink>| async move {
                sink.count.load(Ordering::Relaxed).to_string()
            }),
        )
        .with_state(sink);
    let listener = tokio::net::TcpListener::bind(listen).await?;
    let mut stdout = std::io::stdout().lock();
    writeln!(stdout, "listening on http://{}", listener.local_addr()?)?;
    stdout.flush()?;
    drop(stdout);
    axum::serve(listener, app).await
}

async fn post_loop(url: String, body: Vec<u8>, seconds: u64, concurrency: usize) {
    let client = reqwest::Client::builder()
        .redirect(reqwest::redirect::Policy::none())
        .no_proxy()
        .build()
        .expect("a rustls client builds");
    let posted = Arc::new(AtomicU64::new(0));
    let deadline = Instant::now() + Duration::from_secs(seconds);
    let started = Instant::now();
    let mut tasks = Vec::new();
    for _ in 0..concurrency {
        let (client, url, body, posted) = (
            client.clone(),
            url.clone(),
            body.clone(),
            Arc::clone(&posted),
        );
        tasks.push(tokio::spawn(async move {
            while Instant::now() < deadline {
                let sent = client
                    .post(&url)
                    .header("content-type", "application/json")
                    .header("webhook-signature", "t=0,v1=00")
                    .body(body.clone())
                    .send()
                    .await;
                if let Ok(response) = sent
                    && response.status().is_success()
                    && response.bytes().await.is_ok()
                {
                    posted.fetch_add(1, Ordering::Relaxed);
                }
            }
        }));
    }
    for task in tasks {
        let _ = task.await;
    }
    let took = started.elapsed().as_secs_f64();
    let posted = posted.load(Ordering::Relaxed);
    println!(
        "posted {posted} in {took:.1} s: {:.0}/s",
        posted as f64 / took
    );
}

#[tokio::main]
async fn main() -> std::process::ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    match args.as_slice() {
        [mode, listen, rest @ ..] if mode == "serve" && rest.len() <= 1 => {
            let Ok(hold_ms) = rest.first().map_or(Ok(0), |ms| ms.parse::<u64>()) else {
                eprintln!("serve: HOLD_MS is a number of milliseconds");
                return std::process::ExitCode::FAILURE;
            };
            match serve(listen, Duration::from_millis(hold_ms)).await {
                Ok(()) => std::process::ExitCode::SUCCESS,
                Err(error) => {
                    eprintln!("error: {error}");
                    std::process::ExitCode::FAILURE
                }
            }
        }
        [mode, url, body, seconds, concurrency] if mode == "post" => {
            let (Ok(body), Ok(seconds), Ok(concurrency)) =
                (std::fs::read(body), seconds.parse(), concurrency.parse())
            else {
                eprintln!("post: cannot read the body file or the numbers");
                return std::process::ExitCode::FAILURE;
            };
            post_loop(url.clone(), body, seconds, concurrency).await;
            std::process::ExitCode::SUCCESS
        }
        _ => {
            eprintln!(
                "usage: webhook_sink serve ADDR [HOLD_MS] | webhook_sink post URL BODY_FILE SECONDS CONCURRENCY"
            );
            std::process::ExitCode::FAILURE
        }
    }
}
