//! An LLM-backed [`Mind`] for any OpenAI-compatible chat-completions
//! endpoint (feature `llm`): streamed (`stream: true`), its words handed to
//! the carrier as they arrive, and offered one function, `end_call`.
//!
//! The conversation goes to the model as the system instructions
//! ([`Brief::system_prompt`]), the agent's turns as `assistant` messages,
//! the recipient's as `user` messages, and call events (a key pressed, the
//! note to wrap up) as `system` messages. Nothing is logged but the kind of
//! a failure: neither the key nor what was said.

use async_trait::async_trait;
use serde_json::{Value, json};

use super::completion::{ChunkEvent, CompletionAssembler};
use super::instructions::Brief;
use super::mind::{Decision, Mind, MindError, Words};
use super::sse::SseDecoder;
use crate::extract::llm::LlmConfig;
use crate::transcript::{Speaker, Turn, TurnKind};

/// The function the model calls to end the call.
pub const END_CALL: &str = "end_call";

/// Default [`LlmMind::with_max_tokens`]: about a minute and a half of
/// speech, far more than a phone turn needs.
pub const DEFAULT_MAX_TURN_TOKENS: u32 = 300;
/// Default [`LlmMind::with_max_read_bytes`].
pub const DEFAULT_MAX_READ_BYTES: usize = 256 * 1024;

/// A [`Mind`] backed by a chat-completions model; see the [module docs](self).
#[derive(Debug, Clone)]
pub struct LlmMind {
    client: reqwest::Client,
    config: LlmConfig,
    endpoint: String,
    max_tokens: u32,
    max_read_bytes: usize,
}

impl LlmMind {
    /// A mind with its own HTTP client (rustls, no redirects followed). The
    /// configuration's `timeout` bounds each turn's request, connection to
    /// last byte; the conversation's turn timeout bounds it too.
    pub fn new(config: LlmConfig) -> Self {
        let client = config.http_client();
        let endpoint = config.endpoint();
        Self {
            client,
            config,
            endpoint,
            max_tokens: DEFAULT_MAX_TURN_TOKENS,
            max_read_bytes: DEFAULT_MAX_READ_BYTES,
        }
    }

    /// The most tokens the model may write in one turn, sent as
    /// `max_tokens` (default [`DEFAULT_MAX_TURN_TOKENS`]; at least 1). A
    /// model that reaches it ends its turn there.
    pub fn with_max_tokens(mut self, tokens: u32) -> Self {
        self.max_tokens = tokens.max(1);
        self
    }

    /// The most bytes of one turn's answer read from the server (default
    /// [`DEFAULT_MAX_READ_BYTES`]): a server that ignores `max_tokens` or
    /// streams without end is cut off there, and the turn ends with what
    /// was said so far. It bounds the event-stream data and the tool-call
    /// arguments too.
    pub fn with_max_read_bytes(mut self, bytes: usize) -> Self {
        self.max_read_bytes = bytes.max(1);
        self
    }

    /// The request for the next turn.
    fn request_body(&self, brief: &Brief, history: &[Turn]) -> Value {
        let mut messages = vec![json!({"role": "system", "content": brief.system_prompt()})];
        for turn in history {
            // Keys are a call event, not the recipient's words: a `system`
            // message, as docs/decisions.md says of every call event.
            let (role, content) = match (turn.kind, turn.speaker) {
                (TurnKind::Keys, _) => (
                    "system",
                    format!("The recipient pressed keys: {}", turn.text.trim()),
                ),
                (_, Speaker::Agent) => ("assistant", turn.text.clone()),
                (_, Speaker::Recipient) => ("user", turn.text.clone()),
                _ => ("system", turn.text.clone()),
            };
            messages.push(json!({"role": role, "content": content}));
        }
        let mut body = json!({
            "model": self.config.model,
            "stream": true,
            "max_tokens": self.max_tokens,
            "messages": messages,
            "tools": [{
                "type": "function",
                "function": {
                    "name": END_CALL,
                    "description": "End the call after your goodbye: the objective is met, the person refused or asked to stop, it is the wrong person, or it is a voicemail.",
                    "parameters": {
                        "type": "object",
                        "properties": {"reason": {"type": "string", "description": "Why the call ends."}},
                        "required": ["reason"],
                    },
                },
            }],
        });
        if let Some(temperature) = self.config.temperature_json() {
            body["temperature"] = temperature;
        }
        body
    }
}

#[async_trait]
impl Mind for LlmMind {
    async fn next_turn(
        &self,
        brief: &Brief,
        history: &[Turn],
        words: &mut dyn Words,
    ) -> Result<Decision, MindError> {
        let body = self.request_body(brief, history).to_string();
        let mut response = self
            .client
            .post(&self.endpoint)
            .timeout(self.config.timeout)
            .bearer_auth(self.config.api_key.expose_secret())
            .header(reqwest::header::CONTENT_TYPE, "application/json")
            .header(reqwest::header::ACCEPT, "text/event-stream")
            .body(body)
            .send()
            .await
            .map_err(|e| {
                MindError::transient(format!("model request failed: {}", kind_of(&e)))
                    .with_source(e.without_url())
            })?;
        let status = response.status();
        if !status.is_success() {
            let reason = format!("model answered HTTP {}", status.as_u16());
            return Err(if status.as_u16() == 429 || status.is_server_error() {
                MindError::transient(reason)
            } else {
                MindError::new(reason)
            });
        }
        let mut decoder = SseDecoder::new();
        let mut assembler = CompletionAssembler::new();
        let mut done = false;
        let mut read = 0usize;
        while !done {
            let chunk = response.chunk().await.map_err(|e| {
                MindError::transient(format!("model stream failed: {}", kind_of(&e)))
                    .with_source(e.without_url())
            })?;
            let chunk = chunk.map(|mut bytes| {
                read += bytes.len();
                if read >= self.max_read_bytes {
                    // Cut off: the turn ends with what was said (the rest
                    // of the answer is never read; the request is dropped).
                    tracing::warn!(
                        max_read_bytes = self.max_read_bytes,
                        "the model's answer is longer than allowed; the turn ends there"
                    );
                    bytes.truncate(bytes.len() - (read - self.max_read_bytes));
                    done = true;
                }
                bytes
            });
            let events = match chunk {
                Some(bytes) => decoder
                    .feed(&bytes)
                    .map_err(|e| MindError::new(e.to_string()).with_source(e))?,
                None => {
                    // The server closed without `[DONE]`: what came is all.
                    done = true;
                    std::mem::take(&mut decoder).finish().into_iter().collect()
                }
            };
            for data in events {
                match assembler
                    .push(&data)
                    .map_err(|e| MindError::new(e.to_string()).with_source(e))?
                {
                    Some(ChunkEvent::Text(text)) => words.say(&text),
                    Some(ChunkEvent::Done) => done = true,
                    None => {}
                }
            }
        }
        let mut decision = Decision::default();
        for call in assembler.tool_calls() {
            if call.name == END_CALL {
                let reason = serde_json::from_str::<Value>(&call.arguments)
                    .ok()
                    .and_then(|arguments| {
                        arguments
                            .get("reason")
                            .and_then(Value::as_str)
                            .map(str::to_owned)
                    })
                    .filter(|reason| !reason.trim().is_empty())
                    .unwrap_or_else(|| END_CALL.to_owned());
                decision.end_call = Some(reason.chars().take(200).collect());
            }
        }
        Ok(decision)
    }
}

/// What kind of transport failure, without the URL or anything sent.
fn kind_of(error: &reqwest::Error) -> &'static str {
    if error.is_timeout() {
        "timeout"
    } else if error.is_connect() {
        "connection refused or unreachable"
    } else if error.is_body() || error.is_decode() {
        "broken body"
    } else {
        "transport error"
    }
}
