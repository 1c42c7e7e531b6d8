//! The OpenAPI 3.1 document of the API, served at `GET /v1/openapi.json`.
//!
//! Schemas are derived (utoipa) from the very types the API serializes;
//! operations, parameters and the error tokens each status can carry are
//! described here, next to the routes they document.

use std::sync::OnceLock;

use bytes::Bytes;
use serde_json::{Value, json};
use utoipa::OpenApi;

use crate::domain::{
    AttemptOutcome, CallError, CallRecord, CallStatus, ErrorToken, EventKind, FieldDefinition,
    FieldType, PlacementRequest,
};
use crate::service::Placed;
use crate::webhook::EventPayload;

use super::{ErrorBody, EvidenceResponse, ListResponse};
use crate::extract::Evidence;
use crate::schedule::{RetryFields, RetryOn, WindowFields};
use crate::transcript::Speaker;

#[derive(OpenApi)]
#[openapi(components(schemas(
    CallRecord,
    CallStatus,
    CallError,
    EventKind,
    EventPayload,
    FieldDefinition,
    FieldType,
    ListResponse,
    PlacementRequest,
    Placed,
    ErrorBody,
    EvidenceResponse,
    Evidence,
    Speaker,
    WindowFields,
    RetryFields,
    RetryOn,
    AttemptOutcome
)))]
struct Schemas;

/// Tokens a placement can answer with, by status.
const PLACEMENT_400: [ErrorToken; 19] = [
    ErrorToken::InvalidJson,
    ErrorToken::InvalidIdempotencyKey,
    ErrorToken::UnknownField,
    ErrorToken::ToRequired,
    ErrorToken::ObjectiveRequired,
    ErrorToken::ObjectiveTooLong,
    ErrorToken::InvalidNumber,
    ErrorToken::InvalidContext,
    ErrorToken::ContextTooLong,
    ErrorToken::InvalidFields,
    ErrorToken::InvalidCallerId,
    ErrorToken::InvalidWebhookUrl,
    ErrorToken::InvalidMetadata,
    ErrorToken::InvalidScheduledAt,
    ErrorToken::InvalidCallingWindow,
    ErrorToken::InvalidRetry,
    ErrorToken::OutsideCallingWindow,
    ErrorToken::DestinationBlocked,
    ErrorToken::CallerIdNotOwned,
];

/// The document, serialized once.
pub fn document_bytes() -> Bytes {
    static DOCUMENT: OnceLock<Bytes> = OnceLock::new();
    DOCUMENT
        .get_or_init(|| Bytes::from(serde_json::to_vec(&document()).unwrap_or_default()))
        .clone()
}

/// The whole document as JSON.
pub fn document() -> Value {
    let mut doc = serde_json::to_value(Schemas::openapi()).unwrap_or_else(|_| json!({}));
    doc["openapi"] = json!("3.1.0");
    doc["info"] = json!({
        "title": "Outbound AI Calling Service API",
        "version": env!("CARGO_PKG_VERSION"),
        "description": "Place outbound phone calls that an AI agent carries out toward an objective; read call records; receive signed webhook events.",
    });
    doc["security"] = json!([{ "bearer": [] }]);
    doc["components"]["securitySchemes"] = json!({
        "bearer": { "type": "http", "scheme": "bearer", "description": "An agent API key: `Authorization: Bearer <API_KEY>`." },
        "webhookSignature": {
            "type": "apiKey", "in": "header", "name": "X-SVC-Signature",
            "description": "Sent on webhook requests: `t=<unix seconds>,v1=<hex>`, the lowercase hex HMAC-SHA256 keyed with the account's webhook secret over `t`, a dot and the raw body. Reject when it does not match or when the age is 300 seconds or more."
        }
    });
    doc["paths"] = paths();
    doc["webhooks"] = webhooks();
    doc
}

fn error(description: &str, tokens: &[ErrorToken]) -> Value {
    let tokens: Vec<&str> = tokens.iter().map(|token| token.as_str()).collect();
    json!({
        "description": description,
        "content": { "application/json": { "schema": {
            "type": "object",
            "required": ["error"],
            "properties": {
                "error": { "type": "string", "enum": tokens },
                "field": { "type": "string", "description": "With `unknown_field`: the path of the key the API does not know." }
            }
        }}}
    })
}

fn unauthorized() -> Value {
    let mut response = error("Missing or invalid API key.", &[ErrorToken::Unauthorized]);
    response["headers"] = json!({ "WWW-Authenticate": { "schema": { "type": "string" } } });
    response
}

fn json_body(description: &str, schema: &str) -> Value {
    json!({
        "description": description,
        "content": { "application/json": { "schema": { "$ref": format!("#/components/schemas/{schema}") } } }
    })
}

fn id_parameter() -> Value {
    json!({
        "name": "id", "in": "path", "required": true,
        "description": "The call identifier. Ids of other keys' calls, unknown and malformed ids all answer 404.",
        "schema": { "type": "string" }
    })
}

fn store_error() -> Value {
    error(
        "Temporary service error; retry shortly.",
        &[ErrorToken::StoreError, ErrorToken::ShuttingDown],
    )
}

fn paths() -> Value {
    let mut too_many = error(
        "`rate_limited`: too many calls per minute for the key (see `Retry-After`); `over_minute_cap`: the plan's outbound minutes are used up.",
        &[ErrorToken::RateLimited, ErrorToken::OverMinuteCap],
    );
    too_many["headers"] = json!({ "Retry-After": { "description": "Whole seconds to wait.", "schema": { "type": "integer" } } });
    let mut created = json_body(
        "Accepted: the call is queued and runs asynchronously (`status` `failed` when the carrier could not confirm the dial: a phone may have rung, so the call is not to be placed again; its record says `dial_unconfirmed`).",
        "Placed",
    );
    created["headers"] = json!({ "Location": { "schema": { "type": "string" } } });
    let by_call_id = |operation: &str| json!({ "operationId": operation, "parameters": { "id": "$response.body#/callId" } });
    created["links"] = json!({
        "GetCall": by_call_id("getCall"),
        "GetRecording": by_call_id("getRecording"),
        "CancelCall": by_call_id("cancelCall"),
    });
    json!({
        "/v1/agent/calls": {
            "post": {
                "operationId": "placeCall",
                "summary": "Place a call",
                "parameters": [{
                    "name": "Idempotency-Key", "in": "header", "required": false,
                    "description": "Up to 255 printable ASCII characters. A repeat with the same key and body replays the first answer and places nothing.",
                    "schema": { "type": "string", "minLength": 1, "maxLength": 255, "pattern": "^[\\x20-\\x7E]+$" }
                }],
                "requestBody": {
                    "required": true,
                    "content": { "application/json": { "schema": { "$ref": "#/components/schemas/PlacementRequest" } } }
                },
                "responses": {
                    "201": created,
                    "400": error("The request is malformed, a field is invalid, or a guardrail blocked it (checked in the order listed).", &PLACEMENT_400),
                    "401": unauthorized(),
                    "409": error("The idempotency key is held by a request still being processed.", &[ErrorToken::IdempotencyKeyInUse]),
                    "413": error("The body is larger than 64 KiB.", &[ErrorToken::PayloadTooLarge]),
                    "422": error("The idempotency key was used with a different request.", &[ErrorToken::IdempotencyKeyReused]),
                    "429": too_many,
                    "502": error("Carrier or trunk issue; retry shortly.", &[ErrorToken::PlacementFailed]),
                    "503": store_error()
                }
            },
            "get": {
                "operationId": "listCalls",
                "summary": "List the key's calls, most recent first",
                "parameters": [
                    { "name": "limit", "in": "query", "required": false, "description": "Default 20; values above 100 are clamped to 100.", "schema": { "type": "integer", "minimum": 1 } },
                    { "name": "startingAfter", "in": "query", "required": false, "description": "A call id of this key from an earlier page: returns the calls created before it.", "schema": { "type": "string" } },
                    { "name": "status", "in": "query", "required": false, "description": "One status or several separated by commas.", "schema": { "type": "string", "pattern": "^(queued|dialing|in_progress|completed|no_answer|voicemail|declined|failed)(,(queued|dialing|in_progress|completed|no_answer|voicemail|declined|failed))*$" } },
                    { "name": "createdAfter", "in": "query", "required": false, "schema": { "type": "string", "format": "date-time" } },
                    { "name": "createdBefore", "in": "query", "required": false, "schema": { "type": "string", "format": "date-time" } }
                ],
                "responses": {
                    "200": json_body("A page of calls.", "ListResponse"),
                    "400": error("A malformed parameter, or a cursor that is not one of the key's calls.", &[ErrorToken::InvalidLimit, ErrorToken::InvalidCursor, ErrorToken::InvalidStatus, ErrorToken::InvalidTimestamp]),
                    "401": unauthorized(),
                    "503": store_error()
                }
            }
        },
        "/v1/agent/calls/{id}": {
            "get": {
                "operationId": "getCall",
                "summary": "Get a call",
                "parameters": [id_parameter()],
                "responses": {
                    "200": json_body("The call record.", "CallRecord"),
                    "401": unauthorized(),
                    "404": error("No such call for this key.", &[ErrorToken::NotFound]),
                    "503": store_error()
                }
            }
        },
        "/v1/agent/calls/{id}/recording": {
            "get": {
                "operationId": "getRecording",
                "summary": "Get a call's recording",
                "parameters": [id_parameter()],
                "responses": {
                    "200": { "description": "The audio.", "content": { "audio/wav": { "schema": { "type": "string", "format": "binary" } } } },
                    "401": unauthorized(),
                    "404": error("No such call for this key, or it has no recording.", &[ErrorToken::NotFound]),
                    "503": store_error()
                }
            }
        },
        "/v1/agent/calls/{id}/evidence": {
            "get": {
                "operationId": "getCallEvidence",
                "summary": "Where each extracted value was read",
                "description": "For every non-null value of the call's `extracted`: the turn, the speaker and the transcript's own words it was read from (a value the transcript does not support is never returned: it is null with the reason `unsupported_by_transcript: …`). For null fields with a reason: why. Both maps are empty until the call completes.",
                "parameters": [id_parameter()],
                "responses": {
                    "200": json_body("The evidence and null reasons.", "EvidenceResponse"),
                    "401": unauthorized(),
                    "404": error("No such call for this key.", &[ErrorToken::NotFound]),
                    "503": store_error()
                }
            }
        },
        "/v1/agent/calls/{id}/cancel": {
            "post": {
                "operationId": "cancelCall",
                "summary": "Cancel a call",
                "description": "A queued or dialing call ends as failed with error `canceled`; an answered call is hung up and completes with what was said.",
                "parameters": [id_parameter()],
                "responses": {
                    "200": json_body("The call record after the cancel.", "CallRecord"),
                    "401": unauthorized(),
                    "404": error("No such call for this key.", &[ErrorToken::NotFound]),
                    "409": error("The call already ended.", &[ErrorToken::CallAlreadyEnded]),
                    "503": store_error()
                }
            }
        },
        "/v1/openapi.json": {
            "get": {
                "operationId": "getOpenApi",
                "summary": "This document",
                "security": [],
                "responses": { "200": { "description": "The OpenAPI document.", "content": { "application/json": { "schema": { "type": "object" } } } } }
            }
        }
    })
}

fn webhooks() -> Value {
    json!({
        "callEvent": {
            "post": {
                "summary": "A call event, sent to the placement's webhookUrl",
                "description": "Delivered at least once; deduplicate on eventId and order by timestamp. Answer 2xx; anything else (or no answer within 15 s) is retried.",
                "security": [{ "webhookSignature": [] }],
                "requestBody": {
                    "required": true,
                    "content": { "application/json": { "schema": { "$ref": "#/components/schemas/EventPayload" } } }
                },
                "responses": { "2XX": { "description": "Received." } }
            }
        }
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every operation the API serves: (method, path). The document and the
    /// router are checked against each other in the tests.
    const OPERATIONS: [(&str, &str); 7] = [
        ("post", "/v1/agent/calls"),
        ("get", "/v1/agent/calls"),
        ("get", "/v1/agent/calls/{id}"),
        ("get", "/v1/agent/calls/{id}/recording"),
        ("get", "/v1/agent/calls/{id}/evidence"),
        ("post", "/v1/agent/calls/{id}/cancel"),
        ("get", "/v1/openapi.json"),
    ];

    #[test]
    fn the_document_describes_every_operation_and_only_those() {
        let doc = document();
        assert_eq!(doc["openapi"], "3.1.0");
        let mut described: Vec<(String, String)> = Vec::new();
        for (path, item) in doc["paths"].as_object().unwrap() {
            for method in item.as_object().unwrap().keys() {
                described.push((method.clone(), path.clone()));
            }
        }
        described.sort();
        let mut expected: Vec<(String, String)> = OPERATIONS
            .iter()
            .map(|(m, p)| ((*m).to_owned(), (*p).to_owned()))
            .collect();
        expected.sort();
        assert_eq!(described, expected);
        for schema in [
            "CallRecord",
            "PlacementRequest",
            "EventPayload",
            "ListResponse",
            "Placed",
            "EvidenceResponse",
            "Evidence",
            "RetryFields",
            "AttemptOutcome",
        ] {
            assert!(doc["components"]["schemas"][schema].is_object(), "{schema}");
        }
        assert!(doc["webhooks"]["callEvent"]["post"].is_object());
    }

    /// The `error` of a record, of an attempt and of a webhook payload is
    /// one of the call-level tokens, exactly those of [`CallError`].
    #[test]
    fn the_call_level_tokens_are_the_table() {
        let doc = document();
        let schemas = &doc["components"]["schemas"];
        let listed: Vec<&str> = schemas["CallError"]["enum"]
            .as_array()
            .expect("CallError is a string enum")
            .iter()
            .map(|token| token.as_str().unwrap())
            .collect();
        let table: Vec<&str> = CallError::ALL.iter().map(|t| t.as_str()).collect();
        assert_eq!(listed, table);
        for schema in ["CallRecord", "AttemptOutcome", "EventPayload"] {
            let error = serde_json::to_string(&schemas[schema]["properties"]["error"]).unwrap();
            assert!(
                error.contains("#/components/schemas/CallError"),
                "{schema}: {error}"
            );
        }
    }

    #[test]
    fn every_placement_rejection_token_is_documented() {
        use crate::guardrails::{BlockReason, NumberError, Rejection};
        let rejections = [
            Rejection::UnknownField(String::new()),
            Rejection::ToRequired,
            Rejection::ObjectiveRequired,
            Rejection::ObjectiveTooLong,
            Rejection::InvalidNumber(NumberError::Syntax),
            Rejection::InvalidContext,
            Rejection::ContextTooLong,
            Rejection::InvalidFields(String::new()),
            Rejection::InvalidCallerId,
            Rejection::InvalidWebhookUrl(""),
            Rejection::InvalidMetadata(String::new()),
            Rejection::InvalidScheduledAt(String::new()),
            Rejection::InvalidCallingWindow(String::new()),
            Rejection::InvalidRetry(String::new()),
            Rejection::OutsideCallingWindow,
            Rejection::DestinationBlocked(BlockReason::PremiumRate),
            Rejection::CallerIdNotOwned,
        ];
        for rejection in rejections {
            assert!(
                PLACEMENT_400.contains(&rejection.error_token()),
                "{}",
                rejection.token()
            );
        }
    }

    #[test]
    fn every_documented_token_sits_under_its_status_from_the_table() {
        let doc = document();
        let mut documented = std::collections::BTreeSet::new();
        for (path, item) in doc["paths"].as_object().unwrap() {
            for (method, operation) in item.as_object().unwrap() {
                for (status, response) in operation["responses"].as_object().unwrap() {
                    let schema = &response["content"]["application/json"]["schema"];
                    let Some(tokens) = schema["properties"]["error"]["enum"].as_array() else {
                        continue;
                    };
                    for token in tokens {
                        let token: ErrorToken = token.as_str().unwrap().parse().unwrap();
                        assert_eq!(
                            token.http_status().to_string(),
                            *status,
                            "{method} {path}: {token}"
                        );
                        documented.insert(token);
                    }
                }
            }
        }
        // Answered by the router for any path; not an operation's outcome.
        documented.insert(ErrorToken::MethodNotAllowed);
        let table: std::collections::BTreeSet<ErrorToken> =
            ErrorToken::ALL.iter().copied().collect();
        assert_eq!(documented, table, "tokens in the table but in no response");
    }
}
