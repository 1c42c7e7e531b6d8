//! A real model end to end: the example server's simulated call conducted
//! by a real OpenAI-compatible server (llama.cpp serving Gemma 3 270M, from
//! `.ci/local-model.sh`), so a real server's framing, not only our scripted
//! one, drives a call to a clean end within `maxTurns`. A 270M model talks
//! nonsense; what is checked is the plumbing, never the model's wisdom.
//!
//! Needs `AGENTCALL_TEST_LLM_URL` (the server's `…/v1` base); without it the
//! test says so and passes, unless `AGENTCALL_REQUIRE_LLM=1` (as in CI).
#![cfg(feature = "llm")]

mod common;

use std::time::Duration;

use agentcall::agent::conversation::{ERROR_GOODBYE, PLAIN_GOODBYE, TURNS_GOODBYE};
use common::process::start;
use serde_json::json;

const MAX_TURNS: usize = 6;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_real_model_drives_a_simulated_call_to_a_clean_end() {
    let Ok(base_url) = std::env::var("AGENTCALL_TEST_LLM_URL") else {
        assert!(
            std::env::var("AGENTCALL_REQUIRE_LLM").is_err(),
            "AGENTCALL_REQUIRE_LLM is set but AGENTCALL_TEST_LLM_URL is not"
        );
        eprintln!("skipped: AGENTCALL_TEST_LLM_URL is not set (source .ci/local-model.sh)");
        return;
    };
    let config = json!({
        "listen": "127.0.0.1:0",
        "accounts": [{"id": "acct_a", "apiKeys": ["key_a1"], "numbers": ["+14155550100"],
                      "defaultCallerId": "+14155550100", "webhookSecret": "whsec_a"}],
        "simulation": {"ringMs": 10, "talkMs": 50},
        "agent": {"llm": {"baseUrl": base_url, "apiKey": "sk-local", "model": "gemma-3-270m"},
                  "maxTurns": MAX_TURNS}
    });
    let (server, _config) = start(&config);
    let body = json!({"to": "+14155550125", "objective": "Confirm tomorrow's delivery of the sofa",
                      "fields": [{"name": "delivery_confirmed", "type": "boolean",
                                  "description": "Whether tomorrow's delivery is confirmed"}]});
    // Bounded: each turn is bounded by the agent's turn timeout (15 s).
    let record = server
        .place_and_wait("key_a1", &body, Duration::from_millis(500), 600)
        .await;
    assert_eq!(record["status"], "completed", "{record}");
    let transcript = record["transcript"].as_str().unwrap();
    eprintln!("{transcript}");
    let lines: Vec<&str> = transcript.lines().collect();
    assert!(
        lines[0].starts_with("Agent: Hello, this is an AI assistant"),
        "{transcript}"
    );
    assert!(
        lines
            .iter()
            .all(|l| l.starts_with("Agent: ") || l.starts_with("Recipient: "))
    );
    let agent_lines: Vec<&str> = lines
        .iter()
        .filter_map(|l| l.strip_prefix("Agent: "))
        .collect();
    assert!(agent_lines.len() <= MAX_TURNS + 1, "{transcript}");
    // The model spoke: some agent turn is neither the greeting nor one of
    // the engine's own lines.
    let engine_lines = [PLAIN_GOODBYE, TURNS_GOODBYE, "Are you still there?"];
    assert!(
        agent_lines[1..]
            .iter()
            .any(|l| !engine_lines.contains(l) && !l.is_empty()),
        "{transcript}"
    );
    // A clean end: the real server's stream never failed to parse or stalled.
    assert!(!transcript.contains(ERROR_GOODBYE), "{transcript}");
    assert!(
        record["extracted"].get("delivery_confirmed").is_some(),
        "{record}"
    );
    assert!(record["summary"].as_str().is_some_and(|s| !s.is_empty()));
}
