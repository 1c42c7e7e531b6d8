//! The one place where errors become HTTP statuses and error tokens.

use std::time::Duration;

use bytes::Bytes;
use http::{HeaderValue, Response, StatusCode, header};
use http_body_util::Full;

use crate::guardrails::Rejection;
use crate::service::ServiceError;

/// Everything the HTTP layer can answer with an error body.
#[derive(Debug)]
pub(crate) enum ApiError {
    Unauthorized,
    NotFound,
    MethodNotAllowed(&'static str),
    InvalidJson,
    PayloadTooLarge,
    InvalidLimit,
    InvalidStatusFilter,
    InvalidTimestamp,
    InvalidIdempotencyKey,
    IdempotencyKeyInUse,
    IdempotencyKeyReused,
    Service(ServiceError),
}

impl From<ServiceError> for ApiError {
    fn from(error: ServiceError) -> Self {
        Self::Service(error)
    }
}

impl ApiError {
    /// Status and token (spec 7, plus the tokens the README's decisions add).
    fn status_and_token(&self) -> (StatusCode, &'static str) {
        match self {
            Self::Unauthorized => (StatusCode::UNAUTHORIZED, "unauthorized"),
            Self::NotFound => (StatusCode::NOT_FOUND, "not_found"),
            Self::MethodNotAllowed(_) => (StatusCode::METHOD_NOT_ALLOWED, "method_not_allowed"),
            Self::InvalidJson => (StatusCode::BAD_REQUEST, "invalid_json"),
            Self::PayloadTooLarge => (StatusCode::PAYLOAD_TOO_LARGE, "payload_too_large"),
            Self::InvalidLimit => (StatusCode::BAD_REQUEST, "invalid_limit"),
            Self::InvalidStatusFilter => (StatusCode::BAD_REQUEST, "invalid_status"),
            Self::InvalidTimestamp => (StatusCode::BAD_REQUEST, "invalid_timestamp"),
            Self::InvalidIdempotencyKey => (StatusCode::BAD_REQUEST, "invalid_idempotency_key"),
            Self::IdempotencyKeyInUse => (StatusCode::CONFLICT, "idempotency_key_in_use"),
            Self::IdempotencyKeyReused => {
                (StatusCode::UNPROCESSABLE_ENTITY, "idempotency_key_reused")
            }
            Self::Service(error) => match error {
                ServiceError::Rejected(rejection) => {
                    let status = match rejection {
                        Rejection::RateLimited(_) | Rejection::OverMinuteCap => {
                            StatusCode::TOO_MANY_REQUESTS
                        }
                        _ => StatusCode::BAD_REQUEST,
                    };
                    (status, rejection.token())
                }
                ServiceError::NotFound => (StatusCode::NOT_FOUND, "not_found"),
                ServiceError::InvalidCursor => (StatusCode::BAD_REQUEST, "invalid_cursor"),
                ServiceError::AlreadyEnded => (StatusCode::CONFLICT, "call_already_ended"),
                ServiceError::PlacementFailed(_) => (StatusCode::BAD_GATEWAY, "placement_failed"),
                ServiceError::ShuttingDown => (StatusCode::SERVICE_UNAVAILABLE, "shutting_down"),
                ServiceError::Store(_) | ServiceError::Directory(_) => {
                    (StatusCode::SERVICE_UNAVAILABLE, "store_error")
                }
            },
        }
    }

    /// Whether an idempotent request that failed this way keeps its key
    /// (5xx after the placement was attempted) or frees it (rejections, and
    /// a stopping service, which attempted nothing).
    pub(crate) fn is_replayable(&self) -> bool {
        let (status, _) = self.status_and_token();
        status.is_server_error() && !matches!(self, Self::Service(ServiceError::ShuttingDown))
    }

    pub(crate) fn into_response(self) -> Response<Full<Bytes>> {
        let (status, token) = self.status_and_token();
        if status.is_server_error() {
            tracing::warn!(error = ?self, "request failed");
        }
        let body = super::ErrorBody {
            error: token.to_owned(),
        };
        let mut response = super::json_response(status, &body);
        let headers = response.headers_mut();
        match &self {
            Self::Unauthorized => {
                headers.insert(header::WWW_AUTHENTICATE, HeaderValue::from_static("Bearer"));
            }
            Self::MethodNotAllowed(allow) => {
                headers.insert(header::ALLOW, HeaderValue::from_static(allow));
            }
            Self::Service(ServiceError::Rejected(Rejection::RateLimited(wait))) => {
                headers.insert(header::RETRY_AFTER, retry_after_seconds(*wait));
            }
            _ => {}
        }
        response
    }
}

/// Whole seconds, rounded up, at least 1.
fn retry_after_seconds(wait: Duration) -> HeaderValue {
    let seconds = wait.as_millis().div_ceil(1000).max(1);
    HeaderValue::from(u64::try_from(seconds).unwrap_or(u64::MAX))
}
