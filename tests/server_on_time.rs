//! The example server, started fresh, starts a call scheduled a few seconds
//! ahead at its time, on every store it runs on.
//!
//! The call lease is an hour, so the lease keeper (a beat every third of the
//! lease) cannot be what starts the call within the test's guard: only the
//! holding instance's timer can. The lateness is printed, not asserted (no
//! wall-clock assertions in tests); the guard only stops a hang.

mod common;

use std::time::Duration;

use chrono::{DateTime, Utc};
#[cfg(feature = "sqlite")]
use common::process::TempPath;
use common::process::start;
use serde_json::{Value, json};

fn config(store: Option<String>) -> Value {
    let mut config = json!({
        "listen": "127.0.0.1:0",
        "accounts": [{"id": "acct_a", "apiKeys": ["key_a1"], "numbers": ["+14155550100"],
                      "defaultCallerId": "+14155550100", "webhookSecret": "whsec_a"}],
        "simulation": {"ringMs": 20, "talkMs": 80},
        "callLeaseMs": 3_600_000
    });
    if let Some(store) = store {
        config["store"] = json!(store);
    }
    config
}

async fn a_call_scheduled_ahead_starts_at_its_time(config: Value) {
    let (server, _file) = start(&config);
    let client = reqwest::Client::new();
    let scheduled = Utc::now() + chrono::Duration::seconds(6);
    let placed = client
        .post(format!("{}/v1/agent/calls", server.base))
        .bearer_auth("key_a1")
        .json(
            &json!({"to": "+14155550125", "objective": "Confirm the order",
                      "scheduledAt": scheduled.to_rfc3339()}),
        )
        .send()
        .await
        .unwrap();
    assert_eq!(placed.status(), 201);
    let id = placed.json::<Value>().await.unwrap()["callId"]
        .as_str()
        .unwrap()
        .to_owned();

    // Read every 50 ms until the call leaves `queued`; a hang guard of
    // 60 s, far below the keeper's 20-minute beat.
    let mut left_queue = None;
    let mut record = Value::Null;
    for _ in 0..1200 {
        record = client
            .get(format!("{}/v1/agent/calls/{id}", server.base))
            .bearer_auth("key_a1")
            .send()
            .await
            .unwrap()
            .json()
            .await
            .unwrap();
        if record["status"] != "queued" {
            left_queue.get_or_insert_with(Utc::now);
        }
        if record["status"] == "completed" {
            break;
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    let left_queue = left_queue.unwrap_or_else(|| panic!("still queued after 60 s: {record}"));
    assert_eq!(record["status"], "completed", "{record}");
    let answered: DateTime<Utc> = record["startedAt"].as_str().unwrap().parse().unwrap();
    assert!(answered >= scheduled, "answered before its time: {record}");
    println!(
        "scheduled 6 s ahead: seen dialling {} ms after its time, answered {} ms after it",
        (left_queue - scheduled).num_milliseconds(),
        (answered - scheduled).num_milliseconds()
    );
}

#[tokio::test]
async fn a_fresh_server_starts_a_scheduled_call_at_its_time_in_memory() {
    a_call_scheduled_ahead_starts_at_its_time(config(None)).await;
}

#[cfg(feature = "sqlite")]
#[tokio::test]
async fn a_fresh_server_starts_a_scheduled_call_at_its_time_on_sqlite() {
    let database = TempPath::unique("db");
    a_call_scheduled_ahead_starts_at_its_time(config(Some(format!(
        "sqlite://{}",
        database.0.display()
    ))))
    .await;
}
