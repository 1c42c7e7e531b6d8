//! Two example-server processes on one PostgreSQL database, as a fleet runs
//! them: a restart of one instance never touches the other's live calls,
//! and when one is killed (SIGKILL: no shutdown, no flush) the other takes
//! its calls over within the call lease plus a margin, delivers every
//! terminal event and settles every minute.
//!
//! Needs `AGENTCALL_TEST_POSTGRES` (a role that may create databases); the
//! test works in a database of its own, dropped at the end.
#![cfg(feature = "postgres")]

mod common;

use std::collections::BTreeMap;
use std::str::FromStr;
use std::time::{Duration, Instant};

use agentcall::guardrails::{BillingPeriod, UsageLedger, billed_minutes};
use agentcall::store::postgres::PostgresStore;
use common::process::start;
use common::*;
use serde_json::{Value, json};
use sqlx::postgres::{PgConnectOptions, PgPool};

/// The call lease the two instances run with.
const LEASE_MS: u64 = 2_000;

/// A database of the test's own on the test server.
struct TestDatabase {
    admin: PgConnectOptions,
    name: String,
    url: String,
}

impl TestDatabase {
    async fn create() -> Option<Self> {
        let Ok(url) = std::env::var("AGENTCALL_TEST_POSTGRES") else {
            println!("skipped: set AGENTCALL_TEST_POSTGRES");
            return None;
        };
        let admin = PgConnectOptions::from_str(&url).expect("a postgres:// URL");
        let name = format!("agentcall_instances_{}", uuid::Uuid::new_v4().simple());
        let pool = PgPool::connect_with(admin.clone()).await.expect("connect");
        sqlx::query(&format!("CREATE DATABASE {name}"))
            .execute(&pool)
            .await
            .expect("create database");
        pool.close().await;
        let base = url.split('?').next().unwrap_or(&url);
        let server = base.rsplit_once('/').map_or(base, |(server, _)| server);
        Some(Self {
            admin,
            url: format!("{server}/{name}"),
            name,
        })
    }

    async fn drop(self) {
        let pool = PgPool::connect_with(self.admin).await.expect("connect");
        sqlx::query(&format!("DROP DATABASE {} WITH (FORCE)", self.name))
            .execute(&pool)
            .await
            .expect("drop database");
        pool.close().await;
    }
}

/// The record of a call as instance `base` serves it.
async fn record(client: &reqwest::Client, base: &str, id: &str) -> Value {
    client
        .get(format!("{base}/v1/agent/calls/{id}"))
        .bearer_auth(KEY_A1)
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap()
}

async fn place(client: &reqwest::Client, base: &str, webhook: &str) -> String {
    let response = client
        .post(format!("{base}/v1/agent/calls"))
        .bearer_auth(KEY_A1)
        .json(
            &json!({"to": "+14155550125", "objective": "Stay on the line", "webhookUrl": webhook}),
        )
        .send()
        .await
        .unwrap();
    assert_eq!(response.status(), 201);
    response.json::<Value>().await.unwrap()["callId"]
        .as_str()
        .unwrap()
        .to_owned()
}

fn status(record: &Value) -> &str {
    record["status"].as_str().unwrap_or("?")
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_killed_instances_calls_are_taken_over_and_a_restart_leaves_the_others_alone() {
    let Some(database) = TestDatabase::create().await else {
        return;
    };
    let receiver = Receiver::start().await;
    let config = |instance: &str| {
        json!({
            "listen": "127.0.0.1:0",
            "store": database.url,
            "instanceId": instance,
            "callLeaseMs": LEASE_MS,
            "accounts": [{"id": "acct_a", "apiKeys": [KEY_A1], "numbers": ["+14155550100"],
                          "defaultCallerId": "+14155550100", "webhookSecret": SECRET_A,
                          "minuteCap": 1000}],
            "allowInsecureLoopbackWebhooks": true,
            // Answered at once, then on the line for ten minutes: the calls
            // are in progress when the instances are restarted and killed.
            "simulation": {"ringMs": 30, "talkMs": 600000},
            "webhookRetryScheduleMs": std::iter::once(0).chain(std::iter::repeat_n(200, 40)).collect::<Vec<_>>(),
            "webhookTimeoutMs": 1000
        })
    };
    let client = reqwest::Client::new();
    let (mut a, _a_config) = start(&config("instance-a"));
    let (b, _b_config) = start(&config("instance-b"));
    let mut on_a = Vec::new();
    let mut on_b = Vec::new();
    for _ in 0..3 {
        on_a.push(place(&client, &a.base, &receiver.url).await);
        on_b.push(place(&client, &b.base, &receiver.url).await);
    }
    let all: Vec<String> = on_a.iter().chain(&on_b).cloned().collect();
    receiver
        .wait_for(|r| {
            all.iter().all(|id| {
                r.iter().any(|x| {
                    x.json()["callId"] == id.as_str() && x.json()["event"] == "call.in_progress"
                })
            })
        })
        .await;

    // Restart B (killed, then started again as the same instance): it takes
    // back its own calls at once, and leaves A's alone.
    drop(b);
    let (b, _b_config) = start(&config("instance-b"));
    for id in &on_b {
        let ended = record(&client, &b.base, id).await;
        assert_eq!(
            (status(&ended), ended["error"].as_str()),
            ("failed", Some("interrupted")),
            "B took back its own call {id} at start"
        );
    }
    // Longer than a lease: A keeps renewing, so B never takes A's calls.
    tokio::time::sleep(Duration::from_millis(LEASE_MS * 2)).await;
    for id in &on_a {
        let live = record(&client, &b.base, id).await;
        assert_eq!(
            status(&live),
            "in_progress",
            "B touched A's live call {id}: {live}"
        );
    }

    // Kill A. B takes its calls over within the lease plus a margin (a
    // third of the lease until B's next look, and a few seconds for a
    // busy machine), with nobody calling for recovery.
    a.child.kill().unwrap();
    a.child.wait().unwrap();
    let killed = Instant::now();
    let mut taken_over = BTreeMap::new();
    while taken_over.len() < on_a.len() {
        assert!(
            killed.elapsed() < Duration::from_millis(LEASE_MS * 3 + 5_000),
            "A's calls not taken over in time: {taken_over:?}"
        );
        for id in &on_a {
            let current = record(&client, &b.base, id).await;
            if !["queued", "dialing", "in_progress"].contains(&status(&current)) {
                taken_over.insert(id.clone(), current);
            }
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    for (id, ended) in &taken_over {
        // The simulated carrier dies with its process: B cannot resume the
        // call, so it ends it, billing from the answer to the takeover.
        assert_eq!(
            (status(ended), ended["error"].as_str()),
            ("failed", Some("interrupted")),
            "{id}: {ended}"
        );
        assert!(ended["startedAt"].is_string() && ended["endedAt"].is_string());
    }

    // Every terminal event is delivered (at least once), A's included.
    receiver
        .wait_for(|r| {
            all.iter().all(|id| {
                r.iter().any(|x| {
                    x.json()["callId"] == id.as_str() && x.json()["event"] == "call.failed"
                })
            })
        })
        .await;

    // Every minute is settled: nothing stays reserved, and what is billed
    // is what the six records say.
    let mut records = Vec::new();
    for id in &all {
        records.push(record(&client, &b.base, id).await);
    }
    let billed: u64 = records
        .iter()
        .map(|r| billed_minutes(r["durationSec"].as_u64().unwrap_or(0)).max(1))
        .sum();
    let store = PostgresStore::connect(&database.url)
        .await
        .expect("connect");
    let ledger = store.usage_ledger();
    let period = BillingPeriod::default().start_of(chrono::Utc::now());
    let account = "acct_a".parse().unwrap();
    let mut usage = ledger.usage(&account, period).await.expect("usage");
    for _ in 0..200 {
        if usage.reserved == 0 {
            break;
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
        usage = ledger.usage(&account, period).await.expect("usage");
    }
    assert_eq!(
        (usage.billed, usage.reserved),
        (billed, 0),
        "usage {usage:?}"
    );
    store.close().await;
    drop(b);
    database.drop().await;
}
