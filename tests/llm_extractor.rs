//! The LLM extractor against local stub servers that speak the
//! chat-completions protocol: a good answer, malformed answers, a timeout,
//! retries, and whole calls through the service.
#![cfg(feature = "llm")]

use std::sync::{Arc, Mutex};
use std::time::Duration;

use agentcall::Transcript;
use agentcall::extract::llm::{LlmConfig, LlmExtractor, SCHEMA_NAME};
use agentcall::extract::{ExtractionInput, Extractor, Quote, UNSUPPORTED_BY_TRANSCRIPT};
use agentcall::{
    Account, AgentCall, ApiKey, CallStatus, FieldDefinition, FieldType, PlacementRequest,
    SimulatedCarrier, SimulationConfig, StaticDirectory,
};
use bytes::Bytes;
use http::{HeaderMap, Response, Uri};
use serde_json::{Value, json};

const LLM_KEY: &str = "sk-test-abc123";
const MODEL: &str = "test-model-1";
const TRANSCRIPT: &str = "Recipient: Hello?\nAgent: Is Friday 9 to 12 fine, and what is the price?\nRecipient: Yes, Friday works. It's $1,350.";

/// One request the stub got.
#[derive(Debug, Clone)]
struct Seen {
    path: String,
    authorization: Option<String>,
    body: Value,
}

/// What the stub does with one request.
#[derive(Debug, Clone)]
enum Reply {
    /// `200` with a chat completion whose `message.content` is this string.
    Content(String),
    /// A status with a JSON body.
    Status(u16, Value),
    /// Waits this long, then answers a good completion.
    Hang(Duration),
    /// `200` with content computed from the request's transcript.
    Quoting(fn(&str) -> String),
}

type Behaviour = Arc<dyn Fn(usize) -> Reply + Send + Sync>;

/// A chat-completions server on 127.0.0.1:0 that records every request.
struct Stub {
    base_url: String,
    seen: Arc<Mutex<Vec<Seen>>>,
    task: tokio::task::JoinHandle<()>,
}

impl Drop for Stub {
    fn drop(&mut self) {
        self.task.abort();
    }
}

impl Stub {
    async fn start(behaviour: impl Fn(usize) -> Reply + Send + Sync + 'static) -> Self {
        let behaviour: Behaviour = Arc::new(behaviour);
        let seen = Arc::new(Mutex::new(Vec::new()));
        let record = seen.clone();
        let app = axum::Router::new().fallback(move |uri: Uri, headers: HeaderMap, body: Bytes| {
            let record = record.clone();
            let behaviour = behaviour.clone();
            async move {
                let n = {
                    let mut seen = record.lock().unwrap();
                    seen.push(Seen {
                        path: uri.path().to_owned(),
                        authorization: headers
                            .get("authorization")
                            .and_then(|v| v.to_str().ok())
                            .map(str::to_owned),
                        body: serde_json::from_slice(&body).unwrap_or(Value::Null),
                    });
                    seen.len() - 1
                };
                let transcript = serde_json::from_slice::<Value>(&body)
                    .ok()
                    .and_then(|b| b["messages"][1]["content"].as_str().map(str::to_owned))
                    .and_then(|user| {
                        let (_, rest) = user.split_once("<transcript>\n")?;
                        Some(rest.split_once("\n</transcript>")?.0.to_owned())
                    })
                    .unwrap_or_default();
                let (status, body) = match behaviour(n) {
                    Reply::Quoting(answer) => (200, completion(&answer(&transcript))),
                    Reply::Content(content) => (200, completion(&content)),
                    Reply::Status(status, body) => (status, body),
                    Reply::Hang(wait) => {
                        tokio::time::sleep(wait).await;
                        (200, completion(&good_content()))
                    }
                };
                Response::builder()
                    .status(status)
                    .header("content-type", "application/json")
                    .body(axum::body::Body::from(body.to_string()))
                    .unwrap()
            }
        });
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let base_url = format!("http://{}/v1", listener.local_addr().unwrap());
        let task = tokio::spawn(async move {
            axum::serve(listener, app).await.unwrap();
        });
        Self {
            base_url,
            seen,
            task,
        }
    }

    fn seen(&self) -> Vec<Seen> {
        self.seen.lock().unwrap().clone()
    }

    fn config(&self) -> LlmConfig {
        LlmConfig::new(&self.base_url, MODEL, ApiKey::new(LLM_KEY))
            .with_timeout(Duration::from_secs(5))
            .with_backoff(Duration::from_millis(10))
    }
}

fn completion(content: &str) -> Value {
    json!({
        "id": "chatcmpl-stub",
        "object": "chat.completion",
        "created": 1_700_000_000,
        "model": MODEL,
        "choices": [{
            "index": 0,
            "message": {"role": "assistant", "content": content, "refusal": null},
            "finish_reason": "stop",
        }],
        "usage": {"prompt_tokens": 100, "completion_tokens": 20, "total_tokens": 120},
    })
}

const SUMMARY: &str = "The recipient confirmed the Friday window and quoted $1,350.";

/// What a field's answer looks like: the value, the words it was read
/// from and who said them.
fn said(value: Value, quote: &str, speaker: &str) -> Value {
    json!({"value": value, "quote": quote, "speaker": speaker})
}

fn not_said() -> Value {
    json!({"value": null, "quote": null, "speaker": null})
}

/// A faithful answer about [`TRANSCRIPT`], each value with its true quote.
fn good_content() -> String {
    json!({
        "summary": SUMMARY,
        "fields": {
            "window_confirmed": said(json!("yes"), "Yes, Friday works.", "recipient"),
            "price": said(json!("$1,350"), "It's $1,350", "recipient"),
            "notes": not_said(),
        },
    })
    .to_string()
}

/// A faithful answer about any simulated call: the recipient's last yes or
/// no and last amount, quoted from the transcript the request carried.
fn quoting_content(transcript: &str) -> String {
    let replies: Vec<&str> = transcript
        .lines()
        .filter_map(|line| line.strip_prefix("Recipient: "))
        .collect();
    let yes_or_no = replies
        .iter()
        .rev()
        .find(|line| line.starts_with("Yes, that's right.") || line.starts_with("No, not at all."));
    // A corrected amount ("That would be 4. Sorry, no, make that 7.") is
    // the one after "make that".
    let amount = replies.iter().rev().find_map(|line| {
        let lead = ["make that ", "That would be "]
            .into_iter()
            .find(|lead| line.contains(lead))?;
        let (_, rest) = line.rsplit_once(lead)?;
        let number: String = rest.chars().take_while(char::is_ascii_digit).collect();
        Some((format!("{lead}{number}"), number.parse::<u64>().ok()?))
    });
    json!({
        "summary": SUMMARY,
        "fields": {
            "window_confirmed": yes_or_no.map_or(not_said(), |line| {
                said(json!(line.starts_with("Yes")), line, "recipient")
            }),
            "price": amount.map_or(not_said(), |(quote, number)| said(json!(number), &quote, "recipient")),
            "notes": not_said(),
        },
    })
    .to_string()
}

/// A model that invents: values nobody gave, with quotes nobody said, a
/// quote given to the wrong speaker, and a yes quoted from a no.
fn inventing_content() -> String {
    json!({
        "summary": SUMMARY,
        "fields": {
            "window_confirmed": said(json!(false), "Yes, Friday works.", "recipient"),
            "price": said(json!(1200), "It's $1,200", "recipient"),
            "notes": said(json!("leave it at the back door"), "Is Friday 9 to 12 fine", "recipient"),
        },
    })
    .to_string()
}

fn fields() -> Vec<FieldDefinition> {
    vec![
        FieldDefinition::new("window_confirmed", FieldType::Boolean)
            .with_description("Whether Friday 9-12 is confirmed"),
        FieldDefinition::new("price", FieldType::Number).with_description("The quoted price"),
        FieldDefinition::new("notes", FieldType::String),
    ]
}

/// [`agentcall::extract::ground`] over a transcript's text form.
fn ground(
    fields: &[FieldDefinition],
    extraction: &agentcall::extract::Extraction,
    transcript: &str,
) -> agentcall::extract::Grounded {
    agentcall::extract::ground(fields, extraction, &Transcript::from_text(transcript))
}

async fn extract(
    extractor: &LlmExtractor,
    fields: &[FieldDefinition],
) -> Result<agentcall::extract::Extraction, agentcall::extract::ExtractError> {
    extractor
        .extract(ExtractionInput {
            objective: "Confirm Friday's delivery window and the price.",
            fields,
            transcript: &Transcript::from_text(TRANSCRIPT),
            outcome: CallStatus::Completed,
        })
        .await
}

#[tokio::test]
async fn a_good_answer_gives_values_and_summary_from_a_well_formed_request() {
    let stub = Stub::start(|_| Reply::Content(good_content())).await;
    let extractor = LlmExtractor::new(stub.config().with_temperature(0.0));
    let fields = fields();

    let extraction = extract(&extractor, &fields).await.unwrap();
    assert_eq!(extraction.summary.as_deref(), Some(SUMMARY));
    assert_eq!(extraction.values["window_confirmed"], "yes");
    assert_eq!(extraction.values["price"], "$1,350");
    assert_eq!(extraction.values["notes"], Value::Null);
    assert_eq!(extraction.quotes["price"], Quote::recipient("It's $1,350"));
    assert!(!extraction.quotes.contains_key("notes"));
    // True values with true quotes are kept, with the transcript's words.
    let grounded = ground(&fields, &extraction, TRANSCRIPT);
    assert_eq!(grounded.values["window_confirmed"], json!(true));
    assert_eq!(grounded.values["price"], json!(1350));
    assert_eq!(grounded.evidence["price"].turn, 3);
    assert_eq!(
        grounded.evidence["price"].speaker,
        agentcall::Speaker::Recipient
    );
    assert_eq!(
        grounded.evidence["window_confirmed"].quote,
        "Yes, Friday works"
    );
    assert!(grounded.reasons.is_empty(), "{:?}", grounded.reasons);

    let seen = stub.seen();
    assert_eq!(seen.len(), 1, "one request per call");
    let request = &seen[0];
    assert_eq!(request.path, "/v1/chat/completions");
    assert_eq!(
        request.authorization.as_deref(),
        Some(format!("Bearer {LLM_KEY}").as_str())
    );
    let body = &request.body;
    assert_eq!(body["model"], MODEL);
    assert_eq!(body["temperature"], json!(0.0));

    let format = &body["response_format"];
    assert_eq!(format["type"], "json_schema");
    assert_eq!(format["json_schema"]["name"], SCHEMA_NAME);
    assert_eq!(format["json_schema"]["strict"], true);
    let schema = &format["json_schema"]["schema"];
    assert_eq!(schema["required"], json!(["summary", "fields"]));
    assert_eq!(schema["properties"]["summary"]["type"], "string");
    let field_schema = &schema["properties"]["fields"];
    assert_eq!(field_schema["additionalProperties"], false);
    let required: Vec<&str> = field_schema["required"]
        .as_array()
        .unwrap()
        .iter()
        .map(|v| v.as_str().unwrap())
        .collect();
    for field in &fields {
        assert!(required.contains(&field.name.as_str()), "{}", field.name);
        let answer = &field_schema["properties"][&field.name];
        assert_eq!(
            answer["properties"]["value"]["type"],
            json!([field.field_type.as_str(), "null"]),
            "{} is nullable",
            field.name
        );
        assert_eq!(answer["required"], json!(["value", "quote", "speaker"]));
        assert_eq!(
            answer["properties"]["quote"]["type"],
            json!(["string", "null"])
        );
        assert_eq!(answer["additionalProperties"], false);
    }

    let messages = body["messages"].as_array().unwrap();
    assert_eq!(messages[0]["role"], "system");
    let system = messages[0]["content"].as_str().unwrap();
    assert!(
        system.contains("null") && system.contains("summary"),
        "{system}"
    );
    let user = messages
        .iter()
        .filter(|m| m["role"] == "user")
        .map(|m| m["content"].as_str().unwrap())
        .collect::<String>();
    assert!(user.contains(TRANSCRIPT), "the transcript is sent: {user}");
    assert!(user.contains("Confirm Friday's delivery window and the price."));
    assert!(user.contains("Whether Friday 9-12 is confirmed"));
}

/// The Done-when of evidence: a scripted model that invents values with
/// made-up quotes gets every one of them nulled, and says why.
#[tokio::test]
async fn invented_values_with_made_up_quotes_are_all_nulled() {
    let stub = Stub::start(|_| Reply::Content(inventing_content())).await;
    let fields = fields();
    let extraction = extract(&LlmExtractor::new(stub.config()), &fields)
        .await
        .unwrap();
    let grounded = ground(&fields, &extraction, TRANSCRIPT);
    for field in &fields {
        assert_eq!(grounded.values[&field.name], Value::Null, "{}", field.name);
        assert!(
            grounded.reasons[&field.name].starts_with(UNSUPPORTED_BY_TRANSCRIPT),
            "{}: {:?}",
            field.name,
            grounded.reasons
        );
    }
    assert!(grounded.evidence.is_empty());
    assert_eq!(
        grounded.reasons["window_confirmed"],
        "unsupported_by_transcript: the quote answers the other way"
    );
    assert_eq!(
        grounded.reasons["price"],
        "unsupported_by_transcript: the quoted words are not in any turn of the stated speaker"
    );
}

#[tokio::test]
async fn an_answer_in_a_code_fence_is_accepted() {
    let stub = Stub::start(|_| Reply::Content(format!("```json\n{}\n```", good_content()))).await;
    let extraction = extract(&LlmExtractor::new(stub.config()), &fields())
        .await
        .unwrap();
    assert_eq!(extraction.values["window_confirmed"], "yes");
    assert_eq!(extraction.summary.as_deref(), Some(SUMMARY));
}

#[tokio::test]
async fn malformed_answers_are_errors_without_retry() {
    let answers = [
        "Sure! The window is confirmed and the price is $1,350.".to_owned(),
        "{\"summary\": \"cut off".to_owned(),
        json!({"summary": SUMMARY, "window_confirmed": true}).to_string(),
        json!({"summary": ["not", "a", "string"], "fields": {}}).to_string(),
        json!(["summary", "fields"]).to_string(),
    ];
    for answer in answers {
        let stub = Stub::start({
            let answer = answer.clone();
            move |_| Reply::Content(answer.clone())
        })
        .await;
        let error = extract(&LlmExtractor::new(stub.config()), &fields())
            .await
            .unwrap_err();
        let reason = error.to_string();
        assert!(
            reason.contains("malformed model output"),
            "{answer}: {reason}"
        );
        assert!(
            !reason.contains("1,350"),
            "no output in the reason: {reason}"
        );
        assert_eq!(stub.seen().len(), 1, "malformed output is not retried");
    }
}

#[tokio::test]
async fn a_body_that_is_not_a_completion_is_malformed() {
    let stub = Stub::start(|_| Reply::Status(200, json!({"object": "list", "data": []}))).await;
    let error = extract(&LlmExtractor::new(stub.config()), &fields())
        .await
        .unwrap_err();
    assert!(error.to_string().contains("malformed response"), "{error}");
}

#[tokio::test]
async fn a_refusal_is_an_error_naming_it() {
    let stub = Stub::start(|_| {
        Reply::Status(
            200,
            json!({"choices": [{"index": 0, "message": {"role": "assistant", "content": null, "refusal": "I can't help with that."}, "finish_reason": "stop"}]}),
        )
    })
    .await;
    let error = extract(&LlmExtractor::new(stub.config()), &fields())
        .await
        .unwrap_err();
    assert!(error.to_string().contains("refused"), "{error}");
}

#[tokio::test]
async fn a_timeout_is_retried_up_to_max_attempts_then_reported() {
    let stub = Stub::start(|_| Reply::Hang(Duration::from_secs(3))).await;
    let config = stub
        .config()
        .with_timeout(Duration::from_millis(200))
        .with_max_attempts(2);
    let started = std::time::Instant::now();
    let error = extract(&LlmExtractor::new(config), &fields())
        .await
        .unwrap_err();
    let reason = error.to_string();
    assert!(reason.contains("timed out after 200ms"), "{reason}");
    assert!(reason.contains("2 attempts"), "{reason}");
    assert_eq!(stub.seen().len(), 2, "exactly max_attempts requests");
    assert!(
        started.elapsed() < Duration::from_secs(2),
        "bounded by the per-attempt timeout: {:?}",
        started.elapsed()
    );
}

#[tokio::test]
async fn a_server_error_then_success_succeeds_on_the_second_attempt() {
    let stub = Stub::start(|n| match n {
        0 => Reply::Status(
            500,
            json!({"error": {"message": "boom", "type": "server_error"}}),
        ),
        _ => Reply::Content(good_content()),
    })
    .await;
    let extraction = extract(&LlmExtractor::new(stub.config()), &fields())
        .await
        .unwrap();
    assert_eq!(extraction.summary.as_deref(), Some(SUMMARY));
    assert_eq!(stub.seen().len(), 2);
    assert_eq!(
        stub.seen()[0].body,
        stub.seen()[1].body,
        "the same request again"
    );
}

#[tokio::test]
async fn rate_limits_are_retried_and_persistent_5xx_give_up_after_max_attempts() {
    let stub = Stub::start(|n| match n {
        0 => Reply::Status(429, json!({"error": {"code": "rate_limit_exceeded"}})),
        _ => Reply::Content(good_content()),
    })
    .await;
    assert!(
        extract(&LlmExtractor::new(stub.config()), &fields())
            .await
            .is_ok()
    );
    assert_eq!(stub.seen().len(), 2);

    let stub = Stub::start(|_| Reply::Status(503, json!({}))).await;
    let error = extract(
        &LlmExtractor::new(stub.config().with_max_attempts(3)),
        &fields(),
    )
    .await
    .unwrap_err();
    assert!(error.to_string().contains("HTTP 503"), "{error}");
    assert!(error.to_string().contains("3 attempts"), "{error}");
    assert_eq!(stub.seen().len(), 3);
}

#[tokio::test]
async fn client_errors_are_not_retried() {
    for status in [401u16, 400, 404] {
        let stub = Stub::start(move |_| {
            Reply::Status(
                status,
                json!({"error": {"message": format!("Incorrect API key provided: {LLM_KEY}"), "code": "invalid_api_key"}}),
            )
        })
        .await;
        let error = extract(
            &LlmExtractor::new(stub.config().with_max_attempts(3)),
            &fields(),
        )
        .await
        .unwrap_err();
        let reason = error.to_string();
        assert!(reason.contains(&format!("HTTP {status}")), "{reason}");
        assert!(reason.contains("invalid_api_key"), "{reason}");
        assert!(!reason.contains(LLM_KEY), "the key never reaches a reason");
        assert_eq!(stub.seen().len(), 1, "{status} is not retried");
    }
}

#[tokio::test]
async fn a_refused_connection_is_retried_then_reported() {
    // Bind then drop to get a port nobody listens on.
    let port = {
        let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        listener.local_addr().unwrap().port()
    };
    let config = LlmConfig::new(
        format!("http://127.0.0.1:{port}/v1"),
        MODEL,
        ApiKey::new(LLM_KEY),
    )
    .with_backoff(Duration::from_millis(10));
    let error = extract(&LlmExtractor::new(config), &fields())
        .await
        .unwrap_err();
    let reason = error.to_string();
    assert!(reason.contains("could not reach"), "{reason}");
    assert!(reason.contains("2 attempts"), "{reason}");
}

#[tokio::test]
async fn an_empty_transcript_sends_nothing() {
    let stub = Stub::start(|_| Reply::Content(good_content())).await;
    let extraction = LlmExtractor::new(stub.config())
        .extract(ExtractionInput {
            objective: "o",
            fields: &fields(),
            transcript: &Transcript::from_text("  "),
            outcome: CallStatus::Completed,
        })
        .await
        .unwrap();
    assert!(extraction.values.is_empty() && extraction.summary.is_none());
    assert!(stub.seen().is_empty());
}

// Whole calls: the service with the simulated carrier and the LLM extractor.

const SERVICE_KEY: &str = "key_llm";

async fn run_call(stub: &Stub) -> (agentcall::CallRecord, agentcall::store::StoredCall) {
    let mut account = Account::new("acct_llm".parse().unwrap(), "whsec_llm".into());
    account.numbers = vec!["+14155550100".into()];
    account.default_caller_id = Some("+14155550100".into());
    let key = ApiKey::new(SERVICE_KEY);
    let fast = SimulationConfig {
        ring: Duration::from_millis(5),
        talk: Duration::from_millis(20),
        ..Default::default()
    };
    let extractor = LlmExtractor::new(stub.config().with_timeout(Duration::from_secs(2)));
    let service = AgentCall::builder()
        .directory(Arc::new(
            StaticDirectory::new().with_account(account, [key.clone()]),
        ))
        .carrier(Arc::new(SimulatedCarrier::new(fast)))
        .extractor(Arc::new(extractor))
        .build()
        .unwrap();
    let me = service.authenticate(&key).await.unwrap().unwrap();
    let mut request = PlacementRequest::new(
        "+14155550125",
        "Confirm Friday's delivery window and the price.",
    );
    for field in fields() {
        request = request.field(field);
    }
    let placed = service.place(&me, &request).await.unwrap();
    let mut record = None;
    for _ in 0..1_000 {
        let current = service.get(&me, &placed.call_id).await.unwrap();
        if current.status.is_terminal() {
            record = Some(current);
            break;
        }
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
    let record = record.expect("the call ends within 10 s");
    let stored = service.get_stored(&me, &placed.call_id).await.unwrap();
    service.shutdown(Duration::from_secs(1)).await;
    (record, stored)
}

#[tokio::test]
async fn a_malformed_answer_still_completes_the_call_with_null_fields_and_reasons() {
    let stub = Stub::start(|_| Reply::Content("Sorry, I cannot produce JSON today.".into())).await;
    let (record, stored) = run_call(&stub).await;

    assert_eq!(record.status, CallStatus::Completed);
    let extracted = record.extracted.as_ref().expect("fields were requested");
    assert_eq!(extracted.len(), fields().len());
    for field in fields() {
        assert_eq!(
            extracted.get(&field.name),
            Some(&Value::Null),
            "{}",
            field.name
        );
        let note = stored
            .extraction_notes
            .get(&field.name)
            .unwrap_or_else(|| panic!("a reason for {}", field.name));
        assert!(note.contains("malformed model output"), "{note}");
    }
    let summary = record.summary.as_deref().unwrap_or_default();
    assert!(!summary.trim().is_empty(), "the offline summary fills in");

    let seen = stub.seen();
    assert_eq!(seen.len(), 1);
    let sent = seen[0].body.to_string();
    assert!(
        sent.contains("Confirm Friday") && sent.contains("Recipient:"),
        "the simulated transcript reached the model"
    );
}

#[tokio::test]
async fn a_faithful_answer_fills_extracted_with_its_evidence_and_the_summary() {
    let stub = Stub::start(|_| Reply::Quoting(quoting_content)).await;
    let (record, stored) = run_call(&stub).await;

    assert_eq!(record.status, CallStatus::Completed);
    assert_eq!(record.summary.as_deref(), Some(SUMMARY));
    let transcript = &record.transcript.as_ref().unwrap().to_text();
    let answer: Value = serde_json::from_str(&quoting_content(transcript)).unwrap();
    let extracted = record.extracted.as_ref().expect("fields were requested");
    for field in ["window_confirmed", "price"] {
        let told = &answer["fields"][field];
        assert_eq!(extracted[field], told["value"], "{field}: {extracted:?}");
        if told["value"].is_null() {
            continue;
        }
        let evidence = &stored.extraction_evidence[field];
        assert_eq!(evidence.speaker, agentcall::Speaker::Recipient);
        // The transcript's words, without the punctuation around them.
        assert_eq!(
            evidence.quote,
            told["quote"].as_str().unwrap().trim_end_matches('.')
        );
        let line = transcript.lines().nth(evidence.turn - 1).unwrap();
        assert!(line.contains(&evidence.quote), "{line}");
    }
    assert_eq!(extracted["notes"], Value::Null);
    assert!(
        stored.extraction_notes.is_empty(),
        "{:?}",
        stored.extraction_notes
    );
}

#[tokio::test]
async fn an_inventing_model_leaves_a_whole_call_with_null_fields_and_reasons() {
    let stub = Stub::start(|_| Reply::Content(inventing_content())).await;
    let (record, stored) = run_call(&stub).await;

    assert_eq!(record.status, CallStatus::Completed);
    let extracted = record.extracted.as_ref().expect("fields were requested");
    assert!(extracted.values().all(Value::is_null), "{extracted:?}");
    assert!(stored.extraction_evidence.is_empty());
    for field in fields() {
        assert!(
            stored.extraction_notes[&field.name].starts_with(UNSUPPORTED_BY_TRANSCRIPT),
            "{:?}",
            stored.extraction_notes
        );
    }
    // The summary is prose: kept as the model wrote it (see the README).
    assert_eq!(record.summary.as_deref(), Some(SUMMARY));
}
