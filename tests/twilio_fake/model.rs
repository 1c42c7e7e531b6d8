//! A scripted OpenAI-compatible chat-completions server on a raw socket
//! (as in `tests/agent_llm.rs`): each request is answered with the
//! server-sent events the behaviour picks, text in word-sized deltas and
//! the `end_call` tool call split across chunks.

use std::sync::{Arc, Mutex};

use serde_json::{Value, json};
use tokio::io::AsyncWriteExt;

/// A chat-completions server on 127.0.0.1:0 that streams the reply the
/// behaviour picks for each request, and keeps every request body.
pub struct ScriptedModel {
    pub base_url: String,
    requests: Arc<Mutex<Vec<Value>>>,
    task: tokio::task::JoinHandle<()>,
}

impl Drop for ScriptedModel {
    fn drop(&mut self) {
        self.task.abort();
    }
}

/// What the model answers: words, whether it then calls `end_call`, and
/// how long it thinks first.
pub struct Reply {
    pub words: String,
    pub end_call: Option<&'static str>,
    pub delay: std::time::Duration,
}

impl Reply {
    pub fn say(words: &str) -> Self {
        Self {
            words: words.to_owned(),
            end_call: None,
            delay: std::time::Duration::ZERO,
        }
    }

    pub fn end(words: &str, reason: &'static str) -> Self {
        Self {
            words: words.to_owned(),
            end_call: Some(reason),
            delay: std::time::Duration::ZERO,
        }
    }

    /// The same reply, streamed only after `delay`.
    pub fn after(self, delay: std::time::Duration) -> Self {
        Self { delay, ..self }
    }
}

impl ScriptedModel {
    pub async fn start(behaviour: impl Fn(&Value) -> Reply + Send + Sync + 'static) -> Self {
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let base_url = format!("http://{}/v1", listener.local_addr().unwrap());
        let requests = Arc::new(Mutex::new(Vec::new()));
        let seen = requests.clone();
        let behaviour = Arc::new(behaviour);
        let task = tokio::spawn(async move {
            loop {
                let Ok((mut socket, _)) = listener.accept().await else {
                    return;
                };
                let (seen, behaviour) = (seen.clone(), behaviour.clone());
                tokio::spawn(async move {
                    let Some(body) = crate::common::read_json_request(&mut socket).await else {
                        return;
                    };
                    seen.lock().unwrap().push(body.clone());
                    let reply = behaviour(&body);
                    tokio::time::sleep(reply.delay).await;
                    let mut stream = String::from(
                        "HTTP/1.1 200 OK\r\ncontent-type: text/event-stream\r\nconnection: close\r\n\r\n",
                    );
                    for word in reply.words.split_inclusive(' ') {
                        let chunk = json!({"id": "c", "object": "chat.completion.chunk",
                            "choices": [{"index": 0, "delta": {"content": word}, "finish_reason": null}]});
                        stream.push_str(&format!("data: {chunk}\n\n"));
                    }
                    if let Some(reason) = reply.end_call {
                        let arguments = json!({"reason": reason}).to_string();
                        let (a, b) = arguments.split_at(arguments.len() / 2);
                        let first = json!({"choices": [{"index": 0, "delta": {"tool_calls": [{"index": 0, "id": "call_1", "type": "function", "function": {"name": "end_call", "arguments": ""}}]}}]});
                        let second = json!({"choices": [{"index": 0, "delta": {"tool_calls": [{"index": 0, "function": {"arguments": a}}]}}]});
                        let third = json!({"choices": [{"index": 0, "delta": {"tool_calls": [{"index": 0, "function": {"arguments": b}}]}, "finish_reason": "tool_calls"}]});
                        stream.push_str(&format!(
                            "data: {first}\n\ndata: {second}\n\ndata: {third}\n\n"
                        ));
                    }
                    stream.push_str("data: [DONE]\n\n");
                    let _ = socket.write_all(stream.as_bytes()).await;
                    let _ = socket.shutdown().await;
                });
            }
        });
        Self {
            base_url,
            requests,
            task,
        }
    }

    pub fn requests(&self) -> Vec<Value> {
        self.requests.lock().unwrap().clone()
    }
}

/// The recipient's lines of a request, in order.
pub fn user_lines(request: &Value) -> Vec<String> {
    request["messages"]
        .as_array()
        .map(|messages| {
            messages
                .iter()
                .filter(|m| m["role"] == "user")
                .filter_map(|m| m["content"].as_str().map(str::to_owned))
                .collect()
        })
        .unwrap_or_default()
}
