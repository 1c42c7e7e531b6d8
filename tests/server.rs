//! The example server over a real socket: started with `--config` on port 0,
//! driven through every route with an HTTP client, stopped with SIGTERM.

mod common;

use std::process::Command;
use std::time::Duration;

use common::process::{TempPath, config_file, server_binary, start};
use common::{Receiver, json};
use serde_json::{Value, json};

fn config(receiver_allowed: bool) -> Value {
    json!({
        "listen": "127.0.0.1:0",
        "accounts": [
            {"id": "acct_a", "apiKeys": ["key_a1", "key_a2"], "numbers": ["+14155550100"],
             "defaultCallerId": "+14155550100", "callsPerMinute": 60, "minuteCap": 1000, "webhookSecret": "whsec_a"},
            {"id": "acct_b", "apiKeys": ["key_b"], "numbers": ["+14155550199"], "defaultCallerId": "+14155550199",
             "webhookSecret": "whsec_b"}
        ],
        "allowInsecureLoopbackWebhooks": receiver_allowed,
        "simulation": {"ringMs": 20, "talkMs": 80},
        "webhookRetryScheduleMs": [0, 100, 200],
        "webhookTimeoutMs": 2000
    })
}

#[tokio::test]
async fn the_server_serves_every_route_over_a_socket_and_stops_on_sigterm() {
    let receiver = Receiver::start().await;
    let (mut server, _file) = start(&config(true));
    let client = reqwest::Client::new();
    let base = server.base.clone();
    let auth = |key: &str| format!("Bearer {key}");

    let placed = client
        .post(format!("{base}/v1/agent/calls"))
        .header("authorization", auth("key_a1"))
        .json(&json!({"to": "+14155550125", "objective": "Confirm the order", "webhookUrl": receiver.url,
                      "fields": [{"name": "confirmed", "type": "boolean"}]}))
        .send()
        .await
        .unwrap();
    assert_eq!(placed.status(), 201);
    let id = placed.json::<Value>().await.unwrap()["callId"]
        .as_str()
        .unwrap()
        .to_owned();

    let record = loop {
        let response = client
            .get(format!("{base}/v1/agent/calls/{id}"))
            .header("authorization", auth("key_a1"))
            .send()
            .await
            .unwrap();
        assert_eq!(response.status(), 200);
        let record: Value = response.json().await.unwrap();
        if record["status"] == "completed" {
            break record;
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    };
    let recording_url = record["recordingUrl"].as_str().unwrap();
    assert_eq!(
        recording_url,
        format!("{base}/v1/agent/calls/{id}/recording")
    );

    // Every extracted value has evidence: the transcript's own words, in
    // the turn it names, by the speaker it names.
    let evidence = client
        .get(format!("{base}/v1/agent/calls/{id}/evidence"))
        .header("authorization", auth("key_a1"))
        .send()
        .await
        .unwrap();
    assert_eq!(evidence.status(), 200);
    let evidence: Value = evidence.json().await.unwrap();
    assert_eq!(evidence["callId"], id.as_str());
    let turns: Vec<&str> = record["transcript"].as_str().unwrap().lines().collect();
    for (name, value) in record["extracted"].as_object().unwrap() {
        let Some(found) = evidence["evidence"].get(name) else {
            assert!(
                value.is_null(),
                "{name} = {value} without evidence: {evidence}"
            );
            continue;
        };
        let turn = turns[found["turn"].as_u64().unwrap() as usize - 1];
        let speaker = match found["speaker"].as_str().unwrap() {
            "agent" => "Agent: ",
            _ => "Recipient: ",
        };
        assert!(turn.starts_with(speaker), "{turn} / {found}");
        assert!(
            turn.contains(found["quote"].as_str().unwrap()),
            "{turn} / {found}"
        );
    }
    // The simulated recipient answers, except that about one call in eleven
    // (chosen by its id) declines: then nothing may be extracted.
    let declined = record["transcript"]
        .as_str()
        .unwrap()
        .contains("Recipient: I'd rather not say, sorry.");
    let confirmed = &record["extracted"]["confirmed"];
    assert!(
        if declined {
            confirmed.is_null()
        } else {
            confirmed.is_boolean()
        },
        "the simulated recipient answers or declines: {record}"
    );
    let foreign = client
        .get(format!("{base}/v1/agent/calls/{id}/evidence"))
        .header("authorization", auth("key_b"))
        .send()
        .await
        .unwrap();
    assert_eq!(foreign.status(), 404);

    let list: Value = client
        .get(format!("{base}/v1/agent/calls?limit=5"))
        .header("authorization", auth("key_a1"))
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    assert_eq!(list["calls"][0]["id"], id.as_str());

    let recording = client
        .get(recording_url)
        .header("authorization", auth("key_a1"))
        .send()
        .await
        .unwrap();
    assert_eq!(recording.status(), 200);
    assert_eq!(recording.headers()["content-type"], "audio/wav");
    assert_eq!(&recording.bytes().await.unwrap()[..4], b"RIFF");

    let canceled = client
        .post(format!("{base}/v1/agent/calls/{id}/cancel"))
        .header("authorization", auth("key_a1"))
        .send()
        .await
        .unwrap();
    assert_eq!(canceled.status(), 409, "the call already ended");
    assert_eq!(
        json(&canceled.bytes().await.unwrap()),
        json!({"error": "call_already_ended"})
    );
    let document = client
        .get(format!("{base}/v1/openapi.json"))
        .send()
        .await
        .unwrap();
    assert_eq!(
        document.status(),
        200,
        "the contract is served without auth"
    );
    assert_eq!(document.json::<Value>().await.unwrap()["openapi"], "3.1.0");

    // Isolation holds over the socket too.
    let foreign = client
        .get(format!("{base}/v1/agent/calls/{id}"))
        .header("authorization", auth("key_b"))
        .send()
        .await
        .unwrap();
    assert_eq!(foreign.status(), 404);
    let anonymous = client
        .get(format!("{base}/v1/agent/calls"))
        .send()
        .await
        .unwrap();
    assert_eq!(anonymous.status(), 401);
    assert_eq!(
        json(&anonymous.bytes().await.unwrap()),
        json!({"error": "unauthorized"})
    );

    receiver.wait_for(|r| r.len() >= 2).await;
    let events: Vec<String> = receiver
        .requests()
        .iter()
        .map(|r| r.json()["event"].as_str().unwrap().to_owned())
        .collect();
    assert_eq!(events, ["call.in_progress", "call.completed"]);

    let status = Command::new("kill")
        .args(["-TERM", &server.child.id().to_string()])
        .status()
        .unwrap();
    assert!(status.success());
    let mut exited = None;
    for _ in 0..500 {
        if let Some(code) = server.child.try_wait().unwrap() {
            exited = Some(code);
            break;
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    assert!(exited.expect("server stopped after SIGTERM").success());
}

#[test]
fn bad_config_files_fail_with_a_clear_message() {
    let cases = [
        (json!({"listen": "127.0.0.1:0"}), "accounts"),
        (json!({"listen": "nowhere", "accounts": []}), "listen"),
        (
            json!({"accounts": [{"id": "a", "apiKeys": ["k"], "webhookSecret": "s", "numbers": ["415"]}]}),
            "E.164",
        ),
        (
            json!({"accounts": [{"id": "a", "apiKeys": ["k"], "webhookSecret": "s"}], "webhookRetrySchedule": [1]}),
            "unknown field",
        ),
        (
            json!({"accounts": [{"id": "a", "apiKeys": [], "webhookSecret": "s"}]}),
            "apiKeys",
        ),
    ];
    for (config, needle) in cases {
        let file = config_file(&config);
        let output = Command::new(server_binary())
            .arg("--config")
            .arg(&file.0)
            .output()
            .unwrap();
        let stderr = String::from_utf8_lossy(&output.stderr);
        assert_eq!(output.status.code(), Some(2), "{config}: {stderr}");
        assert!(stderr.contains(needle), "{config}: {stderr}");
        assert!(output.stdout.is_empty());
    }
    let output = Command::new(server_binary())
        .args(["--config", "/nonexistent/agentcall.json"])
        .output()
        .unwrap();
    assert_eq!(output.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&output.stderr).contains("cannot read"));
    let file = TempPath::with_contents("{not json".into());
    let output = Command::new(server_binary())
        .arg("--config")
        .arg(&file.0)
        .output()
        .unwrap();
    assert_eq!(output.status.code(), Some(2));
}

/// `idempotencyLeaseMs` and `simulation.dialDelayMs`: a dial five times the
/// lease keeps its key, so retries over the socket are told it is in use and
/// one call is placed.
#[tokio::test]
async fn a_slow_dial_keeps_its_idempotency_key_over_a_socket() {
    let mut slow = config(false);
    slow["idempotencyLeaseMs"] = json!(200);
    slow["simulation"]["dialDelayMs"] = json!(1000);
    let (server, _file) = start(&slow);
    let client = reqwest::Client::new();
    let url = format!("{}/v1/agent/calls", server.base);
    let post = {
        let (client, url) = (client.clone(), url.clone());
        move || {
            client
                .post(&url)
                .header("authorization", "Bearer key_a1")
                .header("idempotency-key", "slow-dial")
                .json(&json!({"to": "+14155550125", "objective": "Confirm the order"}))
                .send()
        }
    };
    let first = tokio::spawn(post());
    tokio::time::sleep(Duration::from_millis(50)).await;
    let mut conflicts = 0;
    while !first.is_finished() {
        let response = post().await.unwrap();
        if response.status() == 201 {
            assert_eq!(response.headers()["idempotent-replayed"], "true");
            break;
        }
        assert_eq!(response.status(), 409);
        assert_eq!(
            response.json::<Value>().await.unwrap(),
            json!({"error": "idempotency_key_in_use"})
        );
        conflicts += 1;
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    assert!(conflicts >= 10, "retried through the dial ({conflicts})");
    assert_eq!(first.await.unwrap().unwrap().status(), 201);
    let list: Value = client
        .get(&url)
        .header("authorization", "Bearer key_a1")
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    assert_eq!(list["calls"].as_array().unwrap().len(), 1);
    drop(server);
}
