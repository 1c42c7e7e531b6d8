//! A bounded soak of the example server on loopback: with the in-memory
//! store's retention on, resident memory levels off instead of growing with
//! the number of ended calls.

mod common;

use std::time::Duration;

use common::process::start;
use serde_json::{Value, json};

const BATCHES: usize = 6;
const CALLS_PER_BATCH: usize = 1_500;
const CONCURRENCY: usize = 16;

fn config(retention: Value) -> Value {
    json!({
        "listen": "127.0.0.1:0",
        "accounts": [
            {"id": "acct_soak", "apiKeys": ["key_soak"], "numbers": ["+14155550100"],
             "defaultCallerId": "+14155550100", "callsPerMinute": 1_000_000,
             "minuteCap": 1_000_000_000u64, "webhookSecret": "whsec_soak"}
        ],
        "simulation": {"ringMs": 1, "talkMs": 5},
        "memoryRetention": retention
    })
}

/// Resident memory of a process, in KiB (Linux `/proc`).
fn resident_kib(pid: u32) -> Option<u64> {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).ok()?;
    status
        .lines()
        .find_map(|line| line.strip_prefix("VmRSS:"))
        .and_then(|rest| rest.split_whitespace().next())
        .and_then(|kib| kib.parse().ok())
}

/// Places `count` completed calls with `CONCURRENCY` requests in flight.
async fn place_batch(client: &reqwest::Client, base: &str, count: usize) {
    let mut tasks = tokio::task::JoinSet::new();
    for worker in 0..CONCURRENCY {
        let (client, url) = (client.clone(), format!("{base}/v1/agent/calls"));
        let share = count / CONCURRENCY + usize::from(worker < count % CONCURRENCY);
        tasks.spawn(async move {
            for _ in 0..share {
                let response = client
                    .post(&url)
                    .bearer_auth("key_soak")
                    .json(&json!({"to": "+14155550125", "objective": "Soak"}))
                    .send()
                    .await
                    .expect("server answers");
                assert_eq!(response.status(), 201, "{:?}", response.text().await);
            }
        });
    }
    while let Some(done) = tasks.join_next().await {
        done.expect("placement task");
    }
}

/// Resident memory after each batch, once the batch's calls have ended.
async fn soak(retention: Value) -> Option<Vec<u64>> {
    let (server, _file) = start(&config(retention));
    let pid = server.child.id();
    resident_kib(pid)?;
    let client = reqwest::Client::new();
    let mut resident = Vec::with_capacity(BATCHES);
    for _ in 0..BATCHES {
        place_batch(&client, &server.base, CALLS_PER_BATCH).await;
        // Calls take ~6 ms; give the last of them time to end.
        tokio::time::sleep(Duration::from_millis(300)).await;
        resident.push(resident_kib(pid)?);
    }
    Some(resident)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn resident_memory_levels_off_once_retention_applies() {
    // Ended calls and recordings are dropped a second after they end.
    let Some(kept_briefly) = soak(json!({"endedCallsSec": 1, "recordingsSec": 1})).await else {
        eprintln!("no /proc on this system: soak skipped");
        return;
    };
    let Some(kept_forever) = soak(json!({"endedCallsSec": null, "recordingsSec": null})).await
    else {
        return;
    };
    // Growth over the second half of the run (the first batches warm up
    // the allocator, the runtime and the number automata).
    let growth = |resident: &[u64]| resident[BATCHES - 1].saturating_sub(resident[BATCHES / 2 - 1]);
    let (bounded, unbounded) = (growth(&kept_briefly), growth(&kept_forever));
    eprintln!("resident KiB per batch: retention {kept_briefly:?}, none {kept_forever:?}");
    let calls = (BATCHES - BATCHES / 2) * CALLS_PER_BATCH;
    // Keeping every call costs kilobytes per call; with retention the
    // second half may grow by no more than a quarter of that.
    assert!(
        unbounded >= calls as u64,
        "keeping {calls} calls should cost at least 1 KiB each, grew {unbounded} KiB"
    );
    assert!(
        bounded * 4 <= unbounded,
        "with retention memory grew {bounded} KiB over {calls} calls (without: {unbounded} KiB)"
    );
}
