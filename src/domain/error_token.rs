//! The wire vocabulary of API errors: one table of token, HTTP status and
//! meaning, read by the guardrails, the HTTP layer, the OpenAPI document and
//! the docs (`docs/errors.md` is checked against it), so a token can never
//! mean one thing in one place and another elsewhere.

use std::fmt;

/// Declares [`ErrorToken`] and its table in one place.
macro_rules! error_tokens {
    ($($variant:ident => $token:literal, $status:literal, $meaning:literal;)+) => {
        /// An error token the API answers with, as `{"error": "<token>"}`.
        ///
        /// Each token has exactly one HTTP status and one meaning (spec
        /// section 7, plus the tokens the README's decisions add).
        ///
        /// ```
        /// use agentcall::domain::ErrorToken;
        ///
        /// assert_eq!(ErrorToken::RateLimited.as_str(), "rate_limited");
        /// assert_eq!(ErrorToken::RateLimited.http_status(), 429);
        /// assert_eq!("rate_limited".parse(), Ok(ErrorToken::RateLimited));
        /// ```
        #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
        #[non_exhaustive]
        pub enum ErrorToken {
            $(
                #[doc = $meaning]
                $variant,
            )+
        }

        impl ErrorToken {
            /// Every token, in table order (grouped by status).
            pub const ALL: &'static [ErrorToken] = &[$(ErrorToken::$variant),+];

            /// The token as it appears on the wire.
            pub const fn as_str(self) -> &'static str {
                match self {
                    $(ErrorToken::$variant => $token,)+
                }
            }

            /// The HTTP status an answer with this token carries.
            pub const fn http_status(self) -> u16 {
                match self {
                    $(ErrorToken::$variant => $status,)+
                }
            }

            /// One line saying when the token is given.
            pub const fn meaning(self) -> &'static str {
                match self {
                    $(ErrorToken::$variant => $meaning,)+
                }
            }
        }
    };
}

error_tokens! {
    InvalidJson => "invalid_json", 400,
        "The body is not a JSON object (or not JSON at all).";
    InvalidIdempotencyKey => "invalid_idempotency_key", 400,
        "`Idempotency-Key` is empty, longer than 255 characters or not printable ASCII.";
    UnknownField => "unknown_field", 400,
        "A key of the body, top level or nested, is not part of the API; `field` gives its path (e.g. `fields[1].descripton`).";
    ToRequired => "to_required", 400,
        "`to` is missing.";
    ObjectiveRequired => "objective_required", 400,
        "`objective` is missing or blank.";
    ObjectiveTooLong => "objective_too_long", 400,
        "`objective` is longer than 2,000 characters.";
    InvalidNumber => "invalid_number", 400,
        "`to` is not a valid E.164 number.";
    InvalidContext => "invalid_context", 400,
        "`context` is not a string.";
    ContextTooLong => "context_too_long", 400,
        "`context` is longer than 10,000 characters.";
    InvalidFields => "invalid_fields", 400,
        "`fields` is malformed or has more than 20 items.";
    InvalidCallerId => "invalid_caller_id", 400,
        "`callerId` is not a string in E.164 format.";
    InvalidWebhookUrl => "invalid_webhook_url", 400,
        "`webhookUrl` is not a valid HTTPS URL.";
    InvalidMetadata => "invalid_metadata", 400,
        "`metadata` is not an object of at most 50 short string entries.";
    InvalidScheduledAt => "invalid_scheduled_at", 400,
        "`scheduledAt` is not an RFC 3339 time with an offset, or is more than 30 days ahead.";
    InvalidCallingWindow => "invalid_calling_window", 400,
        "`callingWindow` is malformed: `start` and `end` must be 24-hour `HH:MM` with `start` before `end`, `days` from `mon` to `sun`.";
    InvalidRetry => "invalid_retry", 400,
        "`retry` is malformed: `maxAttempts` from 1 to 5, `on` from `no_answer`, `busy_or_declined`, `voicemail`, `delayMinutes` one to four delays of 1 to 10,080 minutes.";
    OutsideCallingWindow => "outside_calling_window", 400,
        "The calling window can never open for this number (no days, or hours that never hold in all of its time zones).";
    DestinationBlocked => "destination_blocked", 400,
        "The destination is premium-rate, satellite, IRSF-listed or in a country not allowed.";
    CallerIdNotOwned => "caller_id_not_owned", 400,
        "`callerId` (or the account default) is not a number on the account.";
    InvalidLimit => "invalid_limit", 400,
        "`limit` is not a positive whole number.";
    InvalidCursor => "invalid_cursor", 400,
        "`startingAfter` is not one of the key's calls.";
    InvalidStatus => "invalid_status", 400,
        "`status` names a status that does not exist.";
    InvalidTimestamp => "invalid_timestamp", 400,
        "`createdAfter` or `createdBefore` is not an RFC 3339 time.";
    Unauthorized => "unauthorized", 401,
        "The `Authorization: Bearer` key is missing or unknown.";
    NotFound => "not_found", 404,
        "No such route, or no such call (or recording) for this key.";
    MethodNotAllowed => "method_not_allowed", 405,
        "The route exists but not for this method (see `Allow`).";
    IdempotencyKeyInUse => "idempotency_key_in_use", 409,
        "The idempotency key is held by a request still being processed.";
    CallAlreadyEnded => "call_already_ended", 409,
        "Cancel of a call that has already ended.";
    PayloadTooLarge => "payload_too_large", 413,
        "The body is larger than 64 KiB.";
    IdempotencyKeyReused => "idempotency_key_reused", 422,
        "The idempotency key was used before with a different request.";
    RateLimited => "rate_limited", 429,
        "Too many calls per minute for the key; retry after `Retry-After` seconds.";
    OverMinuteCap => "over_minute_cap", 429,
        "The account's outbound minutes for the billing period are used up.";
    PlacementFailed => "placement_failed", 502,
        "The carrier refused or failed the call; retry shortly.";
    StoreError => "store_error", 503,
        "The store or account directory is unavailable; retry shortly.";
    ShuttingDown => "shutting_down", 503,
        "The service is stopping; retry on another instance.";
}

impl ErrorToken {
    /// Renders the table as Markdown (`| token | status | meaning |`), as
    /// `docs/errors.md` shows it.
    pub fn markdown_table() -> String {
        let mut table = String::from("| token | status | meaning |\n|---|---|---|\n");
        for token in Self::ALL {
            table.push_str(&format!(
                "| `{}` | {} | {} |\n",
                token.as_str(),
                token.http_status(),
                token.meaning()
            ));
        }
        table
    }
}

impl fmt::Display for ErrorToken {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// The string is not a token of [`ErrorToken`].
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("unknown error token")]
pub struct UnknownErrorToken;

impl std::str::FromStr for ErrorToken {
    type Err = UnknownErrorToken;

    fn from_str(text: &str) -> Result<Self, Self::Err> {
        Self::ALL
            .iter()
            .copied()
            .find(|token| token.as_str() == text)
            .ok_or(UnknownErrorToken)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tokens_are_unique_snake_case_and_round_trip() {
        let mut seen = std::collections::BTreeSet::new();
        for token in ErrorToken::ALL {
            let text = token.as_str();
            assert!(seen.insert(text), "{text} twice");
            assert!(
                text.bytes().all(|b| b.is_ascii_lowercase() || b == b'_'),
                "{text}"
            );
            assert_eq!(text.parse::<ErrorToken>(), Ok(*token));
            assert!((400..600).contains(&token.http_status()));
            assert!(!token.meaning().is_empty());
        }
        assert_eq!("nope".parse::<ErrorToken>(), Err(UnknownErrorToken));
    }

    #[test]
    fn the_table_is_grouped_by_status() {
        let statuses: Vec<u16> = ErrorToken::ALL.iter().map(|t| t.http_status()).collect();
        let mut sorted = statuses.clone();
        sorted.sort_unstable();
        assert_eq!(statuses, sorted);
    }
}
