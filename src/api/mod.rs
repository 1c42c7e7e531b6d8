//! The HTTP layer: a framework-neutral [`tower_service::Service`] over
//! `http::Request` / `http::Response`, mounted by axum, hyper or any tower
//! host.
//!
//! | method | path | |
//! |---|---|---|
//! | POST | `/v1/agent/calls` | place a call (`201 Created`, `{"callId", "status"}`); optional `Idempotency-Key` |
//! | GET | `/v1/agent/calls` | the key's calls, most recent first (`limit`, `startingAfter`, `status`, `createdAfter`, `createdBefore`) |
//! | GET | `/v1/agent/calls/{id}` | one call record |
//! | GET | `/v1/agent/calls/{id}/recording` | the recording (`audio/wav`) |
//! | GET | `/v1/agent/calls/{id}/evidence` | where each extracted value was read, and why each null field is null ([`EvidenceResponse`]) |
//! | POST | `/v1/agent/calls/{id}/cancel` | cancel a call; answers its record |
//!
//! Every route needs `Authorization: Bearer <key>`; errors are
//! `{"error": "<token>"}` with `Content-Type: application/json`.
//!
//! ```
//! use agentcall::{AgentCall, api::Api};
//! use tower::ServiceExt;
//!
//! # tokio::runtime::Runtime::new().unwrap().block_on(async {
//! let api = Api::new(AgentCall::builder().build().unwrap());
//! let request = http::Request::get("/v1/agent/calls").body(String::new()).unwrap();
//! let response = api.oneshot(request).await.unwrap();
//! assert_eq!(response.status(), 401);
//! # });
//! ```

mod canonical;
mod error;
mod hold;
#[cfg(feature = "openapi")]
pub mod openapi;

use std::convert::Infallible;
use std::future::Future;
use std::pin::Pin;
use std::task::{Context, Poll};

use bytes::Bytes;
use http::{HeaderValue, Method, Request, Response, StatusCode, header};
use http_body::Body;
use http_body_util::{BodyExt, Full, LengthLimitError, Limited};
use serde_json::{Map, Value};

use crate::accounts::Principal;
use crate::domain::{ApiKey, CallId, CallStatus};
use crate::service::{AgentCall, ServiceError};
use crate::store::{IdempotencyBegin, ListQuery, StoredResponse};
use error::ApiError;
use std::time::Duration;

/// Largest request body accepted.
pub const MAX_BODY_BYTES: usize = 64 * 1024;
/// `limit` when a list names none.
pub const DEFAULT_LIST_LIMIT: usize = 20;
/// The most a list returns; larger limits are clamped to it.
pub const MAX_LIST_LIMIT: usize = 100;

/// The API as a `tower::Service`. Cheap to clone.
#[derive(Debug, Clone)]
pub struct Api {
    service: AgentCall,
}

impl Api {
    /// The API over a service.
    pub fn new(service: AgentCall) -> Self {
        Self { service }
    }
}

impl<B> tower_service::Service<Request<B>> for Api
where
    B: Body + Send + 'static,
    B::Data: Send,
    B::Error: std::error::Error + Send + Sync + 'static,
{
    type Response = Response<Full<Bytes>>;
    type Error = Infallible;
    type Future = Pin<Box<dyn Future<Output = Result<Self::Response, Infallible>> + Send>>;

    fn poll_ready(&mut self, _: &mut Context<'_>) -> Poll<Result<(), Infallible>> {
        Poll::Ready(Ok(()))
    }

    fn call(&mut self, request: Request<B>) -> Self::Future {
        let service = self.service.clone();
        Box::pin(async move {
            let mut response = match handle(&service, request).await {
                Ok(response) => response,
                Err(error) => error.into_response(),
            };
            response
                .headers_mut()
                .insert(header::CACHE_CONTROL, HeaderValue::from_static("no-store"));
            Ok(response)
        })
    }
}

enum Route {
    OpenApi,
    Calls,
    Call(String),
    Recording(String),
    Evidence(String),
    Cancel(String),
}

fn route(path: &str) -> Option<Route> {
    // Without the `openapi` feature there is no document to serve: 404.
    if cfg!(feature = "openapi") && path == "/v1/openapi.json" {
        return Some(Route::OpenApi);
    }
    let rest = path.strip_prefix("/v1/agent/calls")?;
    if rest.is_empty() {
        return Some(Route::Calls);
    }
    let rest = rest.strip_prefix('/')?;
    match rest.split_once('/') {
        None if !rest.is_empty() => Some(Route::Call(rest.to_owned())),
        Some((id, "recording")) if !id.is_empty() => Some(Route::Recording(id.to_owned())),
        Some((id, "evidence")) if !id.is_empty() => Some(Route::Evidence(id.to_owned())),
        Some((id, "cancel")) if !id.is_empty() => Some(Route::Cancel(id.to_owned())),
        _ => None,
    }
}

async fn handle<B>(
    service: &AgentCall,
    request: Request<B>,
) -> Result<Response<Full<Bytes>>, ApiError>
where
    B: Body + Send + 'static,
    B::Data: Send,
    B::Error: std::error::Error + Send + Sync + 'static,
{
    let route = route(request.uri().path()).ok_or(ApiError::NotFound)?;
    let method = request.method().clone();
    let allow = match route {
        Route::OpenApi => "GET",
        Route::Calls => "GET, POST",
        Route::Call(_) | Route::Recording(_) | Route::Evidence(_) => "GET",
        Route::Cancel(_) => "POST",
    };
    if !allow.split(", ").any(|allowed| allowed == method.as_str()) {
        return Err(ApiError::MethodNotAllowed(allow));
    }
    #[cfg(feature = "openapi")]
    if matches!(route, Route::OpenApi) {
        let mut response = Response::new(Full::new(openapi::document_bytes()));
        let json = HeaderValue::from_static("application/json");
        response.headers_mut().insert(header::CONTENT_TYPE, json);
        return Ok(response);
    }
    let principal = authenticate(service, request.headers()).await?;
    match route {
        Route::OpenApi => Err(ApiError::NotFound),
        Route::Calls if method == Method::POST => place(service, &principal, request).await,
        Route::Calls => list(service, &principal, request.uri().query()).await,
        Route::Call(id) => {
            let record = service.get(&principal, &parse_id(&id)?).await?;
            Ok(json_response(StatusCode::OK, &record))
        }
        Route::Evidence(id) => {
            let call = service.get_stored(&principal, &parse_id(&id)?).await?;
            let body = EvidenceResponse {
                call_id: call.record.id,
                evidence: call.extraction_evidence,
                null_reasons: call.extraction_notes,
            };
            Ok(json_response(StatusCode::OK, &body))
        }
        Route::Cancel(id) => {
            let (service, id) = (service.clone(), parse_id(&id)?);
            let cancel = async move { Ok(service.cancel(&principal, &id).await?) };
            let record = detached(cancel).await?;
            Ok(json_response(StatusCode::OK, &record))
        }
        Route::Recording(id) => {
            let recording = service.recording(&principal, &parse_id(&id)?).await?;
            let mut response = Response::new(Full::new(recording.bytes));
            let content_type = HeaderValue::from_str(&recording.content_type)
                .unwrap_or(HeaderValue::from_static("application/octet-stream"));
            response
                .headers_mut()
                .insert(header::CONTENT_TYPE, content_type);
            Ok(response)
        }
    }
}

/// A malformed id cannot be anyone's call: 404, like an unknown one.
fn parse_id(text: &str) -> Result<CallId, ApiError> {
    text.parse().map_err(|_| ApiError::NotFound)
}

async fn authenticate(
    service: &AgentCall,
    headers: &http::HeaderMap,
) -> Result<Principal, ApiError> {
    let header = headers
        .get(header::AUTHORIZATION)
        .ok_or(ApiError::Unauthorized)?;
    let text = header.to_str().map_err(|_| ApiError::Unauthorized)?;
    let (scheme, key) = text.split_once(' ').ok_or(ApiError::Unauthorized)?;
    let key = key.trim();
    if !scheme.eq_ignore_ascii_case("bearer") || key.is_empty() {
        return Err(ApiError::Unauthorized);
    }
    service
        .authenticate(&ApiKey::new(key))
        .await?
        .ok_or(ApiError::Unauthorized)
}

async fn place<B>(
    service: &AgentCall,
    principal: &Principal,
    request: Request<B>,
) -> Result<Response<Full<Bytes>>, ApiError>
where
    B: Body + Send + 'static,
    B::Data: Send,
    B::Error: std::error::Error + Send + Sync + 'static,
{
    let idempotency_key = idempotency_key(request.headers())?;
    let body = read_body(request).await?;
    let object: Map<String, Value> = match serde_json::from_slice(&body) {
        Ok(Value::Object(object)) => object,
        _ => return Err(ApiError::InvalidJson),
    };
    // From here on the work runs in a task of its own: a client that hangs
    // up mid-request must not cut a placement off between its steps (a
    // reservation taken, a record written, an idempotency key held).
    let (service, principal) = (service.clone(), principal.clone());
    detached(async move { place_object(&service, &principal, object, idempotency_key).await }).await
}

/// Runs `work` to completion even if the caller stops waiting.
async fn detached<T: Send + 'static>(
    work: impl Future<Output = Result<T, ApiError>> + Send + 'static,
) -> Result<T, ApiError> {
    match tokio::spawn(work).await {
        Ok(result) => result,
        Err(error) => {
            tracing::error!(%error, "request task failed");
            let failure = crate::store::StoreError::Unavailable("request task failed".into());
            Err(ApiError::Service(ServiceError::Store(failure)))
        }
    }
}

async fn place_object(
    service: &AgentCall,
    principal: &Principal,
    object: Map<String, Value>,
    idempotency_key: Option<String>,
) -> Result<Response<Full<Bytes>>, ApiError> {
    let Some(key) = idempotency_key else {
        let outcome = service.place_json(principal, &object).await;
        return Ok(placement_response(outcome.map_err(ApiError::from)));
    };
    let store = service.idempotency_store();
    let fingerprint = fingerprint(&object);
    let now = chrono::Utc::now();
    let lease = service.idempotency_lease();
    let begin = store
        .begin(
            &principal.key_id,
            &key,
            fingerprint,
            now,
            IDEMPOTENCY_TTL,
            lease,
        )
        .await
        .map_err(ServiceError::from)?;
    let token = match begin {
        IdempotencyBegin::Replay(stored) => return Ok(replay(stored)),
        IdempotencyBegin::InProgress => return Err(ApiError::IdempotencyKeyInUse),
        IdempotencyBegin::Mismatch => return Err(ApiError::IdempotencyKeyReused),
        IdempotencyBegin::Started(token) => token,
    };
    // Renewed while the placement runs, however long the carrier takes.
    let hold = hold::Hold::start(store.clone(), principal.key_id.clone(), key, token, lease);
    let outcome = service
        .place_json(principal, &object)
        .await
        .map_err(ApiError::from);
    let keep = match &outcome {
        Ok(_) => true,
        Err(error) => error.is_replayable(),
    };
    let response = placement_response(outcome);
    if keep {
        let body = response
            .body()
            .clone()
            .collect()
            .await
            .map(|c| c.to_bytes())
            .unwrap_or_default();
        let stored = StoredResponse::new(response.status().as_u16(), body);
        hold.complete(stored, IDEMPOTENCY_TTL).await;
    } else {
        hold.abandon().await;
    }
    Ok(response)
}

/// How long a key's answer is kept for replay.
pub const IDEMPOTENCY_TTL: Duration = Duration::from_secs(24 * 3600);
/// How long a request may hold a key without renewing it before another may
/// take it over (a crashed instance must not block the key for a whole
/// day): the default of
/// [`AgentCallBuilder::idempotency_lease`](crate::AgentCallBuilder::idempotency_lease).
/// A running placement renews it every third of the lease.
pub const IDEMPOTENCY_LEASE: Duration = Duration::from_secs(60);
/// Longest `Idempotency-Key`, in characters.
pub const MAX_IDEMPOTENCY_KEY_LEN: usize = 255;

/// The `Idempotency-Key` header: 1 to 255 printable ASCII characters.
fn idempotency_key(headers: &http::HeaderMap) -> Result<Option<String>, ApiError> {
    let mut values = headers.get_all("idempotency-key").iter();
    let Some(value) = values.next() else {
        return Ok(None);
    };
    let bytes = value.as_bytes();
    let printable = bytes.iter().all(|b| (0x20..=0x7e).contains(b));
    if values.next().is_some()
        || bytes.is_empty()
        || bytes.len() > MAX_IDEMPOTENCY_KEY_LEN
        || !printable
    {
        return Err(ApiError::InvalidIdempotencyKey);
    }
    Ok(Some(String::from_utf8_lossy(bytes).into_owned()))
}

/// SHA-256 of the body's canonical JSON (see [`canonical`]), so formatting
/// and key order do not make two equal requests differ.
fn fingerprint(object: &Map<String, Value>) -> [u8; 32] {
    use sha2::Digest;
    let mut canonical = Vec::with_capacity(256);
    // Writing into a Vec cannot fail.
    let _ = canonical::write_canonical_object(object, &mut canonical);
    sha2::Sha256::digest(&canonical).into()
}

fn placement_response(outcome: Result<crate::Placed, ApiError>) -> Response<Full<Bytes>> {
    match outcome {
        Ok(placed) => {
            let mut response = json_response(StatusCode::CREATED, &placed);
            if let Ok(location) =
                HeaderValue::from_str(&format!("/v1/agent/calls/{}", placed.call_id))
            {
                response.headers_mut().insert(header::LOCATION, location);
            }
            response
        }
        Err(error) => error.into_response(),
    }
}

/// The first answer again, marked as a replay.
fn replay(stored: StoredResponse) -> Response<Full<Bytes>> {
    let status = StatusCode::from_u16(stored.status).unwrap_or(StatusCode::OK);
    let placed: Option<crate::Placed> = serde_json::from_slice(&stored.body).ok();
    let mut response = Response::new(Full::new(stored.body));
    *response.status_mut() = status;
    let headers = response.headers_mut();
    headers.insert(
        header::CONTENT_TYPE,
        HeaderValue::from_static("application/json"),
    );
    headers.insert("idempotent-replayed", HeaderValue::from_static("true"));
    if let Some(location) =
        placed.and_then(|p| HeaderValue::from_str(&format!("/v1/agent/calls/{}", p.call_id)).ok())
    {
        headers.insert(header::LOCATION, location);
    }
    response
}

async fn read_body<B>(request: Request<B>) -> Result<Bytes, ApiError>
where
    B: Body + Send + 'static,
    B::Data: Send,
    B::Error: std::error::Error + Send + Sync + 'static,
{
    let declared = request
        .headers()
        .get(header::CONTENT_LENGTH)
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.parse::<u64>().ok());
    if declared.is_some_and(|len| len > MAX_BODY_BYTES as u64) {
        return Err(ApiError::PayloadTooLarge);
    }
    match Limited::new(request.into_body(), MAX_BODY_BYTES)
        .collect()
        .await
    {
        Ok(collected) => Ok(collected.to_bytes()),
        Err(error) if error.downcast_ref::<LengthLimitError>().is_some() => {
            Err(ApiError::PayloadTooLarge)
        }
        Err(_) => Err(ApiError::InvalidJson),
    }
}

async fn list(
    service: &AgentCall,
    principal: &Principal,
    query: Option<&str>,
) -> Result<Response<Full<Bytes>>, ApiError> {
    let mut list = ListQuery::new(principal.key_id.clone(), DEFAULT_LIST_LIMIT);
    let mut seen = std::collections::HashSet::new();
    for (name, value) in url::form_urlencoded::parse(query.unwrap_or_default().as_bytes()) {
        let error = match name.as_ref() {
            "limit" => ApiError::InvalidLimit,
            "startingAfter" => ApiError::Service(ServiceError::InvalidCursor),
            "status" => ApiError::InvalidStatusFilter,
            "createdAfter" | "createdBefore" => ApiError::InvalidTimestamp,
            _ => continue, // unknown parameters are ignored
        };
        if !seen.insert(name.clone()) {
            return Err(error); // a parameter given twice is ambiguous
        }
        match name.as_ref() {
            "limit" => {
                // Any whole number of 1 or more; larger than 100 (however
                // large) is clamped.
                if value.is_empty() || !value.bytes().all(|b| b.is_ascii_digit()) {
                    return Err(error);
                }
                let limit: u64 = value.parse().unwrap_or(u64::MAX);
                if limit < 1 {
                    return Err(error);
                }
                list.limit = limit.min(MAX_LIST_LIMIT as u64) as usize;
            }
            "startingAfter" => list.starting_after = Some(value.parse().map_err(|_| error)?),
            "status" => {
                let statuses: Result<Vec<CallStatus>, _> =
                    value.split(',').map(|s| s.trim().parse()).collect();
                list.statuses = statuses.map_err(|_| ApiError::InvalidStatusFilter)?;
            }
            "createdAfter" => list.created_after = Some(timestamp(&value)?),
            _ => list.created_before = Some(timestamp(&value)?),
        }
    }
    let page = service.list(principal, list).await?;
    let calls = page.calls.into_iter().map(|call| call.record).collect();
    let body = ListResponse {
        calls,
        has_more: page.has_more,
    };
    Ok(json_response(StatusCode::OK, &body))
}

/// The body of `GET /v1/agent/calls`.
#[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(rename_all = "camelCase")]
pub struct ListResponse {
    /// The calls, most recent first.
    pub calls: Vec<crate::domain::CallRecord>,
    /// Whether more calls match beyond this page (pass the last id as `startingAfter`).
    pub has_more: bool,
}

/// The body of `GET /v1/agent/calls/{id}/evidence`: where each extracted
/// value was read, and why each null field is null. Both maps are empty
/// until the call completes.
#[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(rename_all = "camelCase")]
pub struct EvidenceResponse {
    /// The call.
    #[cfg_attr(feature = "openapi", schema(value_type = String, pattern = "^call_[0-9a-f]{32}$"))]
    pub call_id: crate::domain::CallId,
    /// By field name, for every non-null value of `extracted`: the turn
    /// (1 for the transcript's first line), the speaker and the
    /// transcript's own words it was read from.
    pub evidence: std::collections::BTreeMap<String, crate::extract::Evidence>,
    /// By field name, for null fields that have a reason: the extractor
    /// failed, its value could not be read as the declared type, or
    /// `unsupported_by_transcript: …` (its evidence did not hold it up). A
    /// field the conversation simply never settled has no entry.
    pub null_reasons: std::collections::BTreeMap<String, String>,
}

/// The body of every error answer.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct ErrorBody {
    /// The error token (spec 7).
    pub error: String,
    /// With `unknown_field`: the path of the key the API does not know.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub field: Option<String>,
}

fn timestamp(text: &str) -> Result<chrono::DateTime<chrono::Utc>, ApiError> {
    chrono::DateTime::parse_from_rfc3339(text)
        .map(|at| at.to_utc())
        .map_err(|_| ApiError::InvalidTimestamp)
}

pub(crate) fn json_response(
    status: StatusCode,
    value: &impl serde::Serialize,
) -> Response<Full<Bytes>> {
    let body = serde_json::to_vec(value).unwrap_or_else(|_| b"{\"error\":\"internal\"}".to_vec());
    let mut response = Response::new(Full::new(Bytes::from(body)));
    *response.status_mut() = status;
    response.headers_mut().insert(
        header::CONTENT_TYPE,
        HeaderValue::from_static("application/json"),
    );
    response
}
