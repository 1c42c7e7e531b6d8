//! Streamed chat completions as OpenAI sends them: each event's JSON chunk
//! carries text deltas and fragments of tool calls, which are reassembled
//! by their `index` (the `id` and the function's `name` come in the first
//! fragment of a call, its `arguments` in pieces after it).
//!
//! Read tolerantly (what others send us): unknown keys are ignored, a
//! chunk without `choices` (usage, keep-alive) is nothing, `null` is as
//! good as absent. A chunk that is not JSON, or an `error` object in the
//! stream, is an error the agent answers by apologising and ending the call.

use serde_json::Value;

/// The data of the event that ends an OpenAI stream.
pub const DONE: &str = "[DONE]";

/// What one chunk adds.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ChunkEvent {
    /// Text to speak, as the model produced it.
    Text(String),
    /// The stream is over (`[DONE]`).
    Done,
}

/// Why a stream cannot be read.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum CompletionError {
    /// A chunk that is not a JSON object.
    #[error("malformed chunk in the completion stream")]
    Malformed,
    /// The server reported an error inside the stream.
    #[error("the model reported an error: {0}")]
    Model(String),
}

/// A tool call the model made, reassembled.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct ToolCall {
    /// The call's id, when the server gave one.
    pub id: Option<String>,
    /// The function's name.
    pub name: String,
    /// The arguments as the model wrote them (JSON text, possibly invalid).
    pub arguments: String,
}

/// Reassembles a streamed completion chunk by chunk.
#[derive(Debug, Default)]
pub struct CompletionAssembler {
    /// Tool calls by their stream index.
    tool_calls: std::collections::BTreeMap<u64, ToolCall>,
    finish_reason: Option<String>,
}

/// The longest error text kept from a model (it may echo anything).
const MAX_ERROR_CHARS: usize = 200;

impl CompletionAssembler {
    /// An empty assembler.
    pub fn new() -> Self {
        Self::default()
    }

    /// Reads one event's data; returns the text it adds, or the end.
    pub fn push(&mut self, data: &str) -> Result<Option<ChunkEvent>, CompletionError> {
        let data = data.trim();
        if data == DONE {
            return Ok(Some(ChunkEvent::Done));
        }
        let chunk: Value = serde_json::from_str(data).map_err(|_| CompletionError::Malformed)?;
        let Some(chunk) = chunk.as_object() else {
            return Err(CompletionError::Malformed);
        };
        if let Some(error) = chunk.get("error").filter(|e| !e.is_null()) {
            let message = error
                .get("message")
                .and_then(Value::as_str)
                .unwrap_or("unspecified");
            return Err(CompletionError::Model(
                message.chars().take(MAX_ERROR_CHARS).collect(),
            ));
        }
        let Some(choice) = chunk
            .get("choices")
            .and_then(Value::as_array)
            .and_then(|choices| choices.first())
        else {
            return Ok(None);
        };
        if let Some(reason) = choice.get("finish_reason").and_then(Value::as_str) {
            self.finish_reason = Some(reason.to_owned());
        }
        let Some(delta) = choice.get("delta") else {
            return Ok(None);
        };
        if let Some(calls) = delta.get("tool_calls").and_then(Value::as_array) {
            for (position, call) in calls.iter().enumerate() {
                self.push_tool_fragment(position, call);
            }
        }
        Ok(delta
            .get("content")
            .and_then(Value::as_str)
            .filter(|text| !text.is_empty())
            .map(|text| ChunkEvent::Text(text.to_owned())))
    }

    /// Adds one fragment of a tool call. A fragment without `index` (some
    /// servers send whole calls) counts by its position in the chunk.
    fn push_tool_fragment(&mut self, position: usize, fragment: &Value) {
        let index = fragment
            .get("index")
            .and_then(Value::as_u64)
            .unwrap_or(position as u64);
        let call = self.tool_calls.entry(index).or_default();
        if let Some(id) = fragment.get("id").and_then(Value::as_str) {
            call.id = Some(id.to_owned());
        }
        if let Some(function) = fragment.get("function") {
            if let Some(name) = function.get("name").and_then(Value::as_str) {
                call.name.push_str(name);
            }
            match function.get("arguments") {
                Some(Value::String(arguments)) => call.arguments.push_str(arguments),
                // Some servers send the arguments as an object, whole.
                Some(arguments @ Value::Object(_)) => {
                    call.arguments.push_str(&arguments.to_string())
                }
                _ => {}
            }
        }
    }

    /// The tool calls made, in index order.
    pub fn tool_calls(&self) -> impl Iterator<Item = &ToolCall> {
        self.tool_calls.values()
    }

    /// The `finish_reason` the server gave last, if any.
    pub fn finish_reason(&self) -> Option<&str> {
        self.finish_reason.as_deref()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;
    use serde_json::json;

    fn text_chunk(text: &str) -> String {
        json!({"choices": [{"index": 0, "delta": {"content": text}}]}).to_string()
    }

    #[test]
    fn text_deltas_come_out_as_they_arrive_and_done_ends() {
        let mut assembler = CompletionAssembler::new();
        let role = json!({"choices": [{"delta": {"role": "assistant", "content": ""}}]});
        assert_eq!(assembler.push(&role.to_string()), Ok(None));
        assert_eq!(
            assembler.push(&text_chunk("Hello")),
            Ok(Some(ChunkEvent::Text("Hello".into())))
        );
        let usage = json!({"choices": [], "usage": {"total_tokens": 3}});
        assert_eq!(assembler.push(&usage.to_string()), Ok(None));
        assert_eq!(assembler.push(" [DONE] "), Ok(Some(ChunkEvent::Done)));
    }

    #[test]
    fn errors_in_the_stream_and_garbage_are_errors() {
        let mut assembler = CompletionAssembler::new();
        assert_eq!(assembler.push("{not json"), Err(CompletionError::Malformed));
        assert_eq!(assembler.push("[1, 2]"), Err(CompletionError::Malformed));
        let error = json!({"error": {"message": "overloaded", "type": "server_error"}});
        assert_eq!(
            assembler.push(&error.to_string()),
            Err(CompletionError::Model("overloaded".into()))
        );
    }

    #[test]
    fn whole_tool_calls_without_index_and_object_arguments_are_read() {
        let mut assembler = CompletionAssembler::new();
        let chunk = json!({"choices": [{"delta": {"tool_calls": [
            {"id": "c1", "type": "function", "function": {"name": "end_call", "arguments": {"reason": "done"}}}
        ]}, "finish_reason": "tool_calls"}]});
        assembler.push(&chunk.to_string()).unwrap();
        let calls: Vec<_> = assembler.tool_calls().cloned().collect();
        assert_eq!(calls.len(), 1);
        assert_eq!(calls[0].name, "end_call");
        assert_eq!(
            serde_json::from_str::<Value>(&calls[0].arguments).unwrap(),
            json!({"reason": "done"})
        );
        assert_eq!(assembler.finish_reason(), Some("tool_calls"));
    }

    proptest! {
        /// Tool calls split into fragments at any points, interleaved with
        /// text, reassemble by index to what the model wrote.
        #[test]
        fn fragments_reassemble_by_index(
            reason in "[ -~]{0,60}",
            cuts in proptest::collection::vec(any::<proptest::sample::Index>(), 0..8),
            second in any::<bool>(),
        ) {
            let arguments = json!({"reason": reason}).to_string();
            let mut points: Vec<usize> = cuts
                .iter()
                .map(|c| c.index(arguments.len() + 1))
                .filter(|p| arguments.is_char_boundary(*p))
                .collect();
            points.sort_unstable();
            points.dedup();
            let mut pieces = Vec::new();
            let mut start = 0;
            for point in points {
                pieces.push(&arguments[start..point]);
                start = point;
            }
            pieces.push(&arguments[start..]);
            let mut assembler = CompletionAssembler::new();
            let first = json!({"choices": [{"delta": {"tool_calls": [
                {"index": 0, "id": "call_1", "type": "function", "function": {"name": "end_call", "arguments": ""}}
            ]}}]});
            assembler.push(&first.to_string()).unwrap();
            if second {
                let other = json!({"choices": [{"delta": {"tool_calls": [
                    {"index": 1, "id": "call_2", "function": {"name": "send_digits", "arguments": "{\"digits\":"}}
                ]}}]});
                assembler.push(&other.to_string()).unwrap();
            }
            for piece in &pieces {
                let fragment = json!({"choices": [{"delta": {"tool_calls": [
                    {"index": 0, "function": {"arguments": piece}}
                ]}}]});
                assembler.push(&fragment.to_string()).unwrap();
                prop_assert_eq!(assembler.push(&text_chunk("x")).unwrap(), Some(ChunkEvent::Text("x".into())));
            }
            let calls: Vec<_> = assembler.tool_calls().cloned().collect();
            prop_assert_eq!(calls.len(), if second { 2 } else { 1 });
            prop_assert_eq!(calls[0].id.as_deref(), Some("call_1"));
            prop_assert_eq!(&calls[0].name, "end_call");
            prop_assert_eq!(&calls[0].arguments, &arguments);
        }

        /// Arbitrary data never panics.
        #[test]
        fn arbitrary_chunks_never_panic(data in "\\PC{0,200}") {
            let _ = CompletionAssembler::new().push(&data);
        }
    }
}
