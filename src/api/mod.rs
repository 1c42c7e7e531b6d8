//! The HTTP layer: a framework-neutral [`tower_service::Service`] over
//! `http::Request` / `http::Response`, mounted by axum, hyper or any tower
//! host.
//!
//! | method | path | |
//! |---|---|---|
//! | POST | `/v1/agent/calls` | place a call (`201 Created`, `{"callId", "status"}`) |
//! | GET | `/v1/agent/calls?limit=N` | the key's calls, most recent first |
//! | GET | `/v1/agent/calls/{id}` | one call record |
//! | GET | `/v1/agent/calls/{id}/recording` | the recording (`audio/wav`) |
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

mod error;

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
use crate::domain::{ApiKey, CallId};
use crate::service::AgentCall;
use crate::store::ListQuery;
use error::ApiError;

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
    Calls,
    Call(String),
    Recording(String),
}

fn route(path: &str) -> Option<Route> {
    let rest = path.strip_prefix("/v1/agent/calls")?;
    if rest.is_empty() {
        return Some(Route::Calls);
    }
    let rest = rest.strip_prefix('/')?;
    match rest.split_once('/') {
        None if !rest.is_empty() => Some(Route::Call(rest.to_owned())),
        Some((id, "recording")) if !id.is_empty() => Some(Route::Recording(id.to_owned())),
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
    let allowed = matches!(
        (&route, &method),
        (Route::Calls, &Method::GET | &Method::POST)
            | (Route::Call(_) | Route::Recording(_), &Method::GET)
    );
    if !allowed {
        let allow = if matches!(route, Route::Calls) {
            "GET, POST"
        } else {
            "GET"
        };
        return Err(ApiError::MethodNotAllowed(allow));
    }
    let principal = authenticate(service, request.headers()).await?;
    match route {
        Route::Calls if method == Method::POST => place(service, &principal, request).await,
        Route::Calls => list(service, &principal, request.uri().query()).await,
        Route::Call(id) => {
            let record = service.get(&principal, &parse_id(&id)?).await?;
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
    let body = read_body(request).await?;
    let object: Map<String, Value> = match serde_json::from_slice(&body) {
        Ok(Value::Object(object)) => object,
        _ => return Err(ApiError::InvalidJson),
    };
    let placed = service.place_json(principal, &object).await?;
    let mut response = json_response(StatusCode::CREATED, &placed);
    if let Ok(location) = HeaderValue::from_str(&format!("/v1/agent/calls/{}", placed.call_id)) {
        response.headers_mut().insert(header::LOCATION, location);
    }
    Ok(response)
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
    let mut limit = None;
    for (key, value) in url::form_urlencoded::parse(query.unwrap_or_default().as_bytes()) {
        if key == "limit" {
            if limit.is_some() {
                return Err(ApiError::InvalidLimit);
            }
            let parsed: u64 = value.parse().map_err(|_| ApiError::InvalidLimit)?;
            if parsed < 1 {
                return Err(ApiError::InvalidLimit);
            }
            limit = Some(parsed.min(MAX_LIST_LIMIT as u64) as usize);
        }
    }
    let query = ListQuery::new(
        principal.key_id.clone(),
        limit.unwrap_or(DEFAULT_LIST_LIMIT),
    );
    let page = service.list(principal, query).await?;
    let calls: Vec<_> = page.calls.into_iter().map(|call| call.record).collect();
    Ok(json_response(
        StatusCode::OK,
        &serde_json::json!({ "calls": calls, "hasMore": page.has_more }),
    ))
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
