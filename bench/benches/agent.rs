//! The agent's own overhead per turn: from a final recipient utterance to
//! the first word handed to the carrier, with a mind that answers at once
//! (so the model's time to first token is zero and what is left is ours),
//! and the cost of reading one streamed chunk of a model's answer.
//!
//! Run with `cargo bench -p agentcall-bench --bench agent`; BENCHMARKS.md
//! explains every row.
#![allow(missing_docs)]

use std::hint::black_box;
use std::sync::Arc;
use std::time::{Duration, Instant};

use agentcall::agent::completion::CompletionAssembler;
use agentcall::agent::sse::SseDecoder;
use agentcall::agent::{
    Act, Acts, AgentLimits, Brief, Conversation, Decision, Heard, Mind, MindError, Words,
};
use agentcall::{FieldDefinition, FieldType, Turn};
use criterion::{BenchmarkId, Criterion, criterion_group, criterion_main};

/// A mind whose first word is ready at once: a model with no latency.
#[derive(Debug)]
struct Instant0;

#[async_trait::async_trait]
impl Mind for Instant0 {
    async fn next_turn(
        &self,
        _: &Brief,
        _: &[Turn],
        words: &mut dyn Words,
    ) -> Result<Decision, MindError> {
        words.say("Okay,");
        words.say(" and how many boxes are expected?");
        Ok(Decision::default())
    }
}

/// Notes when the first word reached the carrier.
struct FirstWord(Option<Instant>);

impl Acts for FirstWord {
    fn act(&mut self, act: Act) {
        if matches!(act, Act::Say(_)) && self.0.is_none() {
            self.0 = Some(Instant::now());
        }
    }
}

fn brief() -> Brief {
    let mut brief = Brief::new("Confirm Friday's delivery and collect the details");
    brief.context = Some("Order 8812, two pallets, gate code 4471".into());
    brief.fields = vec![
        FieldDefinition::new("confirmed", FieldType::Boolean)
            .with_description("Whether the delivery is confirmed"),
        FieldDefinition::new("boxes", FieldType::Number)
            .with_description("How many boxes are expected"),
        FieldDefinition::new("contact_name", FieldType::String),
    ];
    brief
}

/// A conversation `turns` rounds in.
fn conversation_after(runtime: &tokio::runtime::Runtime, turns: usize) -> Conversation {
    let mut conversation = Conversation::new(brief(), Arc::new(Instant0), AgentLimits::default());
    let mut sink = Vec::new();
    conversation.open(&mut sink);
    for i in 0..turns {
        let said = format!("Yes, that's right, number {i}.");
        runtime.block_on(conversation.hear(Heard::Said(said), &mut sink));
    }
    conversation
}

fn turn_overhead(c: &mut Criterion) {
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_time()
        .build()
        .expect("runtime");
    let mut group = c.benchmark_group("agent/first word after an utterance");
    for turns in [1usize, 20] {
        group.bench_with_input(BenchmarkId::from_parameter(turns), &turns, |b, &turns| {
            b.iter_custom(|iterations| {
                let mut total = Duration::ZERO;
                for _ in 0..iterations {
                    let mut conversation = conversation_after(&runtime, turns);
                    let mut first = FirstWord(None);
                    let heard = Heard::Said("Yes, Friday works for us.".into());
                    let started = Instant::now();
                    runtime.block_on(conversation.hear(heard, &mut first));
                    total += first.0.expect("a first word") - started;
                }
                total
            });
        });
    }
    // The floor: handing a ready future to the same runtime.
    group.bench_function("control: block_on(ready)", |b| {
        b.iter(|| runtime.block_on(async { black_box(1) }))
    });
    group.finish();
}

fn chunk_read(c: &mut Criterion) {
    let chunk = format!(
        "data: {}\n\n",
        serde_json::json!({
            "id": "chatcmpl-9x", "object": "chat.completion.chunk", "created": 1_700_000_000,
            "model": "gpt-4o-mini", "system_fingerprint": "fp_1",
            "choices": [{"index": 0, "delta": {"content": " boxes"}, "logprobs": null, "finish_reason": null}]
        })
    );
    let mut group = c.benchmark_group("agent/one streamed chunk");
    group.bench_function("decode + assemble", |b| {
        let mut decoder = SseDecoder::new();
        let mut assembler = CompletionAssembler::new();
        b.iter(|| {
            for data in decoder.feed(black_box(chunk.as_bytes())).expect("decodes") {
                black_box(assembler.push(&data).expect("parses"));
            }
        })
    });
    group.finish();
}

criterion_group! {
    name = benches;
    config = Criterion::default()
        .warm_up_time(Duration::from_secs(1))
        .measurement_time(Duration::from_secs(3));
    targets = turn_overhead, chunk_read
}
criterion_main!(benches);
