use super::*;

fn fields() -> Vec<FieldDefinition> {
    vec![
        FieldDefinition::new("confirmed", FieldType::Boolean)
            .with_description("Whether the delivery window is confirmed"),
        FieldDefinition::new("price", FieldType::Number),
        FieldDefinition::new("notes", FieldType::String),
    ]
}

fn completion(content: Value) -> Vec<u8> {
    json!({
        "id": "chatcmpl-1",
        "object": "chat.completion",
        "choices": [{"index": 0, "message": {"role": "assistant", "content": content}, "finish_reason": "stop"}],
    })
    .to_string()
    .into_bytes()
}

#[test]
fn schema_has_every_field_required_and_nullable() {
    let schema = extraction_schema(&fields());
    assert_eq!(schema["type"], "object");
    assert_eq!(schema["required"], json!(["summary", "fields"]));
    assert_eq!(schema["additionalProperties"], false);
    assert_eq!(schema["properties"]["summary"]["type"], "string");
    let inner = &schema["properties"]["fields"];
    assert_eq!(inner["additionalProperties"], false);
    assert_eq!(inner["required"], json!(["confirmed", "price", "notes"]));
    let properties = inner["properties"].as_object().unwrap();
    assert_eq!(properties.len(), 3);
    let value = |name: &str| &properties[name]["properties"]["value"];
    assert_eq!(value("confirmed")["type"], json!(["boolean", "null"]));
    assert_eq!(value("price")["type"], json!(["number", "null"]));
    assert_eq!(value("notes")["type"], json!(["string", "null"]));
    assert_eq!(
        value("confirmed")["description"],
        "Whether the delivery window is confirmed"
    );
    assert!(value("price").get("description").is_none());
    for answer in properties.values() {
        assert_eq!(answer["required"], json!(["value", "quote", "speaker"]));
        assert_eq!(answer["additionalProperties"], false);
        assert_eq!(
            answer["properties"]["quote"]["type"],
            json!(["string", "null"])
        );
        assert_eq!(
            answer["properties"]["speaker"]["enum"],
            json!(["recipient", "agent", null])
        );
    }
}

#[test]
fn schema_without_fields_asks_for_the_summary_alone() {
    let schema = extraction_schema(&[]);
    assert_eq!(schema["required"], json!(["summary"]));
    assert!(schema["properties"].get("fields").is_none());
}

#[test]
fn schema_lists_a_repeated_name_once() {
    let mut list = fields();
    list.push(FieldDefinition::new("price", FieldType::String));
    let schema = extraction_schema(&list);
    let inner = &schema["properties"]["fields"];
    assert_eq!(inner["required"].as_array().unwrap().len(), 3);
    assert_eq!(
        inner["properties"]["price"]["properties"]["value"]["type"],
        json!(["number", "null"])
    );
}

#[test]
fn user_message_carries_objective_fields_and_transcript() {
    let fields = fields();
    let input = ExtractionInput {
        objective: "Confirm Friday's delivery window.",
        fields: &fields,
        transcript: &"Agent: Is Friday fine?\nRecipient: Yes.".into(),
        outcome: "completed".parse().unwrap(),
    };
    let message = user_message(&input);
    assert!(message.contains("Confirm Friday's delivery window."));
    assert!(message.contains("- \"confirmed\" (boolean): Whether the delivery window"));
    assert!(message.contains("- \"price\" (number)\n"));
    assert!(
        message.contains("<transcript>\nAgent: Is Friday fine?\nRecipient: Yes.\n</transcript>")
    );
    assert!(message.contains("Outcome: completed"));
}

#[test]
fn system_prompt_asks_for_null_and_a_summary() {
    for needle in ["null", "Do not guess", "last answer counts", "summary"] {
        assert!(SYSTEM_PROMPT.contains(needle), "{needle}");
    }
}

#[test]
fn a_good_completion_parses() {
    let content = json!({
        "summary": "  The recipient confirmed Friday.  ",
        "fields": {"confirmed": "yes", "price": 1350, "notes": null},
    });
    let extraction = parse_completion(&completion(content.to_string().into()), &fields()).unwrap();
    assert_eq!(
        extraction.summary.as_deref(),
        Some("The recipient confirmed Friday.")
    );
    assert_eq!(extraction.values["confirmed"], "yes");
    assert_eq!(extraction.values["price"], 1350);
    assert_eq!(extraction.values["notes"], Value::Null);
}

#[test]
fn fences_prose_and_content_parts_are_tolerated() {
    let answer =
        r#"{"summary": "Done.", "fields": {"confirmed": true, "price": null, "notes": "x"}}"#;
    let variants = [
        Value::from(format!("```json\n{answer}\n```")),
        Value::from(format!("```\n{answer}\n```\n")),
        Value::from(format!("Here is the JSON:\n{answer}\nThanks.")),
        json!([{"type": "text", "text": answer}]),
    ];
    for content in variants {
        let extraction = parse_completion(&completion(content.clone()), &fields())
            .unwrap_or_else(|e| panic!("{content}: {e}"));
        assert_eq!(extraction.values["confirmed"], true, "{content}");
        assert_eq!(extraction.summary.as_deref(), Some("Done."));
    }
}

#[test]
fn malformed_answers_are_errors_that_say_so() {
    let cases = [
        Value::from("I could not find any of those."),
        Value::from("[1, 2, 3]"),
        Value::from(r#"{"summary": 7, "fields": {}}"#),
        Value::from(r#"{"summary": "ok", "fields": [true]}"#),
        Value::from(r#"{"summary": "ok", "confirmed": true}"#),
        Value::from("```json\n{\"summary\": \"ok\", \"fields\": {\n```"),
        Value::Null,
    ];
    for content in cases {
        let error = parse_completion(&completion(content.clone()), &fields()).unwrap_err();
        assert_eq!(error.kind(), "malformed_output", "{content}");
        assert!(
            error.to_string().starts_with("malformed model output"),
            "{content}: {error}"
        );
        assert!(!error.retryable());
    }
}

#[test]
fn a_summary_only_answer_is_fine_without_fields() {
    let extraction = parse_completion(&completion(r#"{"summary": "Hi."}"#.into()), &[]).unwrap();
    assert!(extraction.values.is_empty());
    assert_eq!(extraction.summary.as_deref(), Some("Hi."));
}

#[test]
fn envelope_problems_refusals_and_truncation_are_named() {
    let error = parse_completion(b"<html>bad gateway</html>", &fields()).unwrap_err();
    assert_eq!(error.kind(), "malformed_response");
    let error = parse_completion(br#"{"choices": []}"#, &fields()).unwrap_err();
    assert!(error.to_string().contains("choices[0]"), "{error}");

    let refusal = json!({"choices": [{"message": {"content": null, "refusal": "I can't help with that."}, "finish_reason": "stop"}]});
    let error = parse_completion(refusal.to_string().as_bytes(), &fields()).unwrap_err();
    assert_eq!(
        error.to_string(),
        "the model refused: I can't help with that."
    );

    let cut = json!({"choices": [{"message": {"content": "{\"summary\": \"The rec"}, "finish_reason": "length"}]});
    let error = parse_completion(cut.to_string().as_bytes(), &fields()).unwrap_err();
    assert!(error.to_string().contains("token limit"), "{error}");
    // Cut off inside the fields: nothing stands.
    let cut = json!({"choices": [{"message": {"content": "{\"fields\": {\"price\": {\"value\": 4"}, "finish_reason": "length"}]});
    let error = parse_completion(cut.to_string().as_bytes(), &fields()).unwrap_err();
    assert!(error.to_string().contains("token limit"), "{error}");
}

/// A model cut off while writing its summary, after the fields: the fields
/// stand (the service still checks their evidence), and no summary.
#[test]
fn fields_complete_before_a_cut_off_summary_are_kept() {
    let content = r#"{"fields": {"confirmed": {"quote": "Yes", "speaker": "recipient", "value": true}, "price": {"quote": null, "speaker": null, "value": null}, "notes": {"quote": null, "speaker": null, "value": null}}, "summary": "The recipient said that the"#;
    let cut = json!({"choices": [{"message": {"content": content}, "finish_reason": "length"}]});
    let extraction = parse_completion(cut.to_string().as_bytes(), &fields()).unwrap();
    assert_eq!(extraction.values["confirmed"], true);
    assert_eq!(extraction.quotes["confirmed"], Quote::recipient("Yes"));
    assert_eq!(extraction.values["price"], Value::Null);
    assert_eq!(extraction.summary, None);
    // Not cut off, the same broken text is an error.
    let broken = json!({"choices": [{"message": {"content": content}, "finish_reason": "stop"}]});
    let error = parse_completion(broken.to_string().as_bytes(), &fields()).unwrap_err();
    assert!(error.to_string().contains("not JSON"), "{error}");
}

#[test]
fn only_transient_failures_are_retried() {
    let status = |code: u16| Failure::Status {
        status: reqwest::StatusCode::from_u16(code).unwrap(),
        code: None,
    };
    assert!(Failure::Timeout.retryable());
    assert!(Failure::Transport("reset".into()).retryable());
    assert!(status(500).retryable());
    assert!(status(503).retryable());
    assert!(status(429).retryable());
    for code in [400, 401, 403, 404, 422] {
        assert!(!status(code).retryable(), "{code}");
    }
}

#[test]
fn error_codes_are_kept_only_when_token_like() {
    assert_eq!(
        error_code(
            br#"{"error": {"message": "Incorrect API key sk-abc", "code": "invalid_api_key"}}"#
        ),
        Some("invalid_api_key".into())
    );
    assert_eq!(
        error_code(br#"{"error": {"code": null, "type": "server_error"}}"#),
        Some("server_error".into())
    );
    assert_eq!(
        error_code(br#"{"error": {"code": "has spaces: sk-abc"}}"#),
        None
    );
    assert_eq!(error_code(b"oops"), None);
}

#[test]
fn timeouts_name_the_limit_and_the_attempts() {
    let config =
        LlmConfig::new("http://x", "m", ApiKey::new("k")).with_timeout(Duration::from_millis(150));
    assert_eq!(
        Failure::Timeout.into_error(2, &config).reason(),
        "LLM request timed out after 150ms (gave up after 2 attempts)"
    );
    assert_eq!(
        Failure::Timeout.into_error(1, &config).reason(),
        "LLM request timed out after 150ms"
    );
    assert!(Failure::Timeout.into_error(1, &config).is_transient());
    assert!(
        !Failure::Output("not JSON".into())
            .into_error(1, &config)
            .is_transient()
    );
}

#[test]
fn config_debug_hides_the_key_and_endpoint_joins_cleanly() {
    let config = LlmConfig::new("https://api.example.com/v1/", "m", ApiKey::new("sk-secret"));
    assert!(!format!("{config:?}").contains("sk-secret"));
    assert_eq!(
        config.endpoint(),
        "https://api.example.com/v1/chat/completions"
    );
    assert_eq!(config.clone().with_max_attempts(0).attempts(), 1);
    let extractor = LlmExtractor::new(config);
    assert!(!format!("{extractor:?}").contains("sk-secret"));
}

#[test]
fn temperature_is_sent_in_its_short_form() {
    let extractor =
        LlmExtractor::new(LlmConfig::new("http://x", "m", ApiKey::new("k")).with_temperature(0.2));
    let input = ExtractionInput {
        objective: "o",
        fields: &[],
        transcript: &"Agent: t".into(),
        outcome: "completed".parse().unwrap(),
    };
    assert_eq!(extractor.request_body(&input)["temperature"], json!(0.2));
    let without = LlmExtractor::new(LlmConfig::new("http://x", "m", ApiKey::new("k")));
    assert!(without.request_body(&input).get("temperature").is_none());
}

#[test]
fn truncation_respects_characters() {
    assert_eq!(truncate("héllo", 2), "hé…");
    assert_eq!(truncate("hi", 5), "hi");
}

#[test]
fn answers_carry_their_quotes_and_are_read_tolerantly() {
    let content = json!({
        "summary": "s",
        "fields": {
            "confirmed": {"value": true, "quote": "Yes, it is", "speaker": "recipient"},
            "price": {"value": 40, "quote": "forty, right?", "speaker": "agent"},
            // No speaker, or an unknown one: the recipient.
            "notes": {"value": "gate", "quote": "the gate", "speaker": "narrator"},
            "extra": {"value": 1, "quote": "  "},
        },
    });
    let extraction = parse_completion(&completion(content.to_string().into()), &fields()).unwrap();
    assert_eq!(extraction.values["confirmed"], true);
    assert_eq!(
        extraction.quotes["confirmed"],
        Quote::recipient("Yes, it is")
    );
    assert_eq!(extraction.quotes["price"], Quote::agent("forty, right?"));
    assert_eq!(extraction.quotes["notes"], Quote::recipient("the gate"));
    // A blank quote is no quote: the service will null the value.
    assert_eq!(extraction.values["extra"], 1);
    assert!(!extraction.quotes.contains_key("extra"));
}
