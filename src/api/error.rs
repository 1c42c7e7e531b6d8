//! The one place where errors become HTTP statuses and error tokens.

use std::time::Duration;

use bytes::Bytes;
use http::{HeaderValue, Response, StatusCode, header};
use http_body_util::Full;

use crate::domain::ErrorToken;
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
    /// The entry of the error table (`domain::ErrorToken`) this answer uses.
    pub(crate) fn token(&self) -> ErrorToken {
        match self {
            Self::Unauthorized => ErrorToken::Unauthorized,
            Self::NotFound => ErrorToken::NotFound,
            Self::MethodNotAllowed(_) => ErrorToken::MethodNotAllowed,
            Self::InvalidJson => ErrorToken::InvalidJson,
            Self::PayloadTooLarge => ErrorToken::PayloadTooLarge,
            Self::InvalidLimit => ErrorToken::InvalidLimit,
            Self::InvalidStatusFilter => ErrorToken::InvalidStatus,
            Self::InvalidTimestamp => ErrorToken::InvalidTimestamp,
            Self::InvalidIdempotencyKey => ErrorToken::InvalidIdempotencyKey,
            Self::IdempotencyKeyInUse => ErrorToken::IdempotencyKeyInUse,
            Self::IdempotencyKeyReused => ErrorToken::IdempotencyKeyReused,
            Self::Service(error) => match error {
                ServiceError::Rejected(rejection) => rejection.error_token(),
                ServiceError::NotFound => ErrorToken::NotFound,
                ServiceError::InvalidCursor => ErrorToken::InvalidCursor,
                ServiceError::AlreadyEnded => ErrorToken::CallAlreadyEnded,
                ServiceError::PlacementFailed(_) => ErrorToken::PlacementFailed,
                ServiceError::ShuttingDown => ErrorToken::ShuttingDown,
                ServiceError::Store(_)
                | ServiceError::LimitsUnavailable(_)
                | ServiceError::Directory(_) => ErrorToken::StoreError,
            },
        }
    }

    /// Status and token, both from the table.
    fn status_and_token(&self) -> (StatusCode, &'static str) {
        let token = self.token();
        let status =
            StatusCode::from_u16(token.http_status()).unwrap_or(StatusCode::INTERNAL_SERVER_ERROR);
        (status, token.as_str())
    }

    /// Whether an idempotent request that failed this way keeps its key for
    /// replay: only a failure that changed state, `502 placement_failed`
    /// (the call record exists as `failed`). Everything else frees it —
    /// rejections and a stopping service attempted nothing, and a
    /// transient `503 store_error` wrote nothing a retry could duplicate.
    pub(crate) fn is_replayable(&self) -> bool {
        matches!(self, Self::Service(ServiceError::PlacementFailed(_)))
    }

    pub(crate) fn into_response(self) -> Response<Full<Bytes>> {
        let (status, token) = self.status_and_token();
        if status.is_server_error() {
            tracing::warn!(error = ?self, "request failed");
        }
        let field = match &self {
            Self::Service(ServiceError::Rejected(Rejection::UnknownField(path))) => {
                Some(path.clone())
            }
            _ => None,
        };
        let body = super::ErrorBody {
            error: token.to_owned(),
            field,
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::store::StoreError;

    fn store_down() -> ApiError {
        let cause: Box<dyn std::error::Error + Send + Sync> = "down".into();
        ApiError::Service(ServiceError::Store(StoreError::Unavailable(cause)))
    }

    #[test]
    fn only_failures_that_changed_state_are_replayed() {
        // Kept for replay: the call record exists as failed.
        let placement_failed = ApiError::Service(ServiceError::PlacementFailed(
            crate::carrier::CarrierError::refused("busy"),
        ));
        assert!(placement_failed.is_replayable());
        // Freed: nothing was written or attempted, so a retry may go through.
        let directory_down = ApiError::Service(ServiceError::Directory(
            crate::accounts::DirectoryError("down".into()),
        ));
        let limits_down: Box<dyn std::error::Error + Send + Sync> = "down".into();
        let not_replayed = [
            store_down(),
            directory_down,
            ApiError::Service(ServiceError::ShuttingDown),
            ApiError::Service(ServiceError::LimitsUnavailable(StoreError::Unavailable(
                limits_down,
            ))),
            ApiError::Service(ServiceError::Rejected(Rejection::ToRequired)),
            ApiError::Service(ServiceError::Rejected(Rejection::OverMinuteCap)),
            ApiError::Service(ServiceError::Rejected(Rejection::RateLimited(
                Duration::from_secs(3),
            ))),
            ApiError::InvalidJson,
            ApiError::IdempotencyKeyInUse,
            ApiError::Unauthorized,
        ];
        for error in not_replayed {
            assert!(!error.is_replayable(), "{error:?}");
        }
    }

    #[test]
    fn statuses_come_from_the_token_table() {
        let cases = [
            (store_down(), StatusCode::SERVICE_UNAVAILABLE, "store_error"),
            (
                ApiError::Service(ServiceError::Rejected(Rejection::UnknownField("x".into()))),
                StatusCode::BAD_REQUEST,
                "unknown_field",
            ),
            (
                ApiError::Service(ServiceError::Rejected(Rejection::OverMinuteCap)),
                StatusCode::TOO_MANY_REQUESTS,
                "over_minute_cap",
            ),
            (
                ApiError::MethodNotAllowed("GET"),
                StatusCode::METHOD_NOT_ALLOWED,
                "method_not_allowed",
            ),
        ];
        for (error, status, token) in cases {
            assert_eq!(error.status_and_token(), (status, token));
        }
    }

    #[test]
    fn retry_after_rounds_up_to_whole_seconds() {
        assert_eq!(retry_after_seconds(Duration::ZERO), "1");
        assert_eq!(retry_after_seconds(Duration::from_millis(1_001)), "2");
        assert_eq!(retry_after_seconds(Duration::from_secs(40)), "40");
    }
}
