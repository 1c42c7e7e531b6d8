//! The call-level failure tokens: the `error` of a failed call (and of a
//! failed attempt), one table of token and meaning, read by the state
//! machine, the carriers, the OpenAPI document and the docs
//! (`docs/errors.md` is checked against it), as [`ErrorToken`] is for the
//! HTTP answers.
//!
//! [`ErrorToken`]: super::ErrorToken

use std::fmt;

use serde::{Deserialize, Serialize};

/// Declares [`CallError`] and its table in one place.
macro_rules! call_errors {
    ($($variant:ident => $token:literal, $transient:literal, $meaning:literal;)+) => {
        /// Why a call (or one attempt of it) failed: the `error` of a
        /// record in status `failed`.
        ///
        /// ```
        /// use agentcall::domain::CallError;
        ///
        /// assert_eq!(CallError::CarrierUnreachable.as_str(), "carrier_unreachable");
        /// assert!(CallError::CarrierUnreachable.no_phone_rang());
        /// assert_eq!("canceled".parse(), Ok(CallError::Canceled));
        /// ```
        #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
        #[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
        #[serde(rename_all = "snake_case")]
        #[non_exhaustive]
        pub enum CallError {
            $(
                #[doc = $meaning]
                $variant,
            )+
        }

        impl CallError {
            /// Every token, in table order.
            pub const ALL: &'static [CallError] = &[$(CallError::$variant),+];

            /// The token as it appears on the wire.
            pub const fn as_str(self) -> &'static str {
                match self {
                    $(CallError::$variant => $token,)+
                }
            }

            /// Whether the failure is known to have rung no phone, so the
            /// call may be dialed again under any retry policy with
            /// attempts left.
            pub const fn no_phone_rang(self) -> bool {
                match self {
                    $(CallError::$variant => $transient,)+
                }
            }

            /// One line saying when the token is given.
            pub const fn meaning(self) -> &'static str {
                match self {
                    $(CallError::$variant => $meaning,)+
                }
            }
        }
    };
}

call_errors! {
    Canceled => "canceled", false,
        "Cancelled before it was answered (`POST …/cancel`), or the carrier reports the call cancelled.";
    CarrierUnreachable => "carrier_unreachable", true,
        "The carrier could not be reached or refused to start a scheduled call or a retry: no phone rang. Retried under any retry policy with attempts left.";
    DialUnconfirmed => "dial_unconfirmed", false,
        "The carrier did not confirm the dial within the dial timeout, so a phone may have rung: whatever the carrier started for the call was ended, and the call is never dialed again (by a retry or by a `502` inviting one).";
    PlacementFailed => "placement_failed", false,
        "The carrier refused the call at placement; the `POST` answered `502 placement_failed`. Nothing is billed.";
    CarrierFailed => "carrier_failed", false,
        "The carrier reports that the call failed.";
    CarrierError => "carrier_error", false,
        "The carrier ended the call as failed without saying why.";
    CarrierLost => "carrier_lost", false,
        "The carrier stopped reporting on the call.";
    OverMinuteCap => "over_minute_cap", false,
        "A retry found the account's outbound minutes for the billing period used up.";
    OutsideCallingWindow => "outside_calling_window", false,
        "A waiting call's calling window will never open again.";
    ServiceShutdown => "service_shutdown", false,
        "The call was still running when the service was shut down.";
    Interrupted => "interrupted", false,
        "A process that died left the call running and the carrier could not resume it.";
}

impl CallError {
    /// Renders the table as Markdown (`| token | meaning |`), as
    /// `docs/errors.md` shows it.
    pub fn markdown_table() -> String {
        let mut table = String::from("| token | meaning |\n|---|---|\n");
        for token in Self::ALL {
            table.push_str(&format!("| `{}` | {} |\n", token.as_str(), token.meaning()));
        }
        table
    }
}

impl fmt::Display for CallError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// The string is not a token of [`CallError`].
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("unknown call error token")]
pub struct UnknownCallError;

impl std::str::FromStr for CallError {
    type Err = UnknownCallError;

    fn from_str(text: &str) -> Result<Self, Self::Err> {
        Self::ALL
            .iter()
            .copied()
            .find(|token| token.as_str() == text)
            .ok_or(UnknownCallError)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tokens_are_unique_snake_case_and_round_trip_as_text_and_json() {
        let mut seen = std::collections::BTreeSet::new();
        for token in CallError::ALL {
            let text = token.as_str();
            assert!(seen.insert(text), "{text} twice");
            assert!(text.bytes().all(|b| b.is_ascii_lowercase() || b == b'_'));
            assert_eq!(text.parse::<CallError>(), Ok(*token));
            assert_eq!(serde_json::to_value(token).unwrap(), text);
            assert_eq!(
                serde_json::from_value::<CallError>(text.into()).unwrap(),
                *token
            );
            assert!(!token.meaning().is_empty());
        }
        assert_eq!("nope".parse::<CallError>(), Err(UnknownCallError));
    }

    #[test]
    fn only_carrier_unreachable_says_no_phone_rang() {
        let transient: Vec<_> = CallError::ALL
            .iter()
            .filter(|t| t.no_phone_rang())
            .collect();
        assert_eq!(transient, [&CallError::CarrierUnreachable]);
    }
}
