//! Retries of calls that did not reach anyone: which outcomes are tried
//! again, how many times in all, and how long to wait before each retry.

use std::fmt;
use std::time::Duration;

use crate::domain::{CallError, CallStatus};

/// The most attempts a call may have, the first dial included.
pub const MAX_ATTEMPTS: u8 = 5;

/// The longest wait before a retry, in minutes (a week).
pub const MAX_DELAY_MINUTES: u16 = 7 * 24 * 60;

/// The wait before each retry when a policy names none, in minutes.
pub const DEFAULT_DELAY_MINUTES: u16 = 60;

/// Why a retry policy is malformed (`invalid_retry` over HTTP).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum RetryError {
    /// `maxAttempts` is not a whole number from 1 to 5.
    #[error("maxAttempts must be a whole number from 1 to {MAX_ATTEMPTS}")]
    MaxAttempts,
    /// `on` is empty or names something other than `no_answer`,
    /// `busy_or_declined` and `voicemail`.
    #[error("on must list one or more of no_answer, busy_or_declined, voicemail")]
    On,
    /// `delayMinutes` is empty, longer than four, or has a delay outside
    /// 1 to 10,080 minutes.
    #[error(
        "delayMinutes must list one to four whole numbers of minutes from 1 to {MAX_DELAY_MINUTES}"
    )]
    Delays,
}

/// An attempt's outcome that a policy may retry (the names of `retry.on`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(rename_all = "snake_case")]
pub enum RetryOn {
    /// Nobody picked up (`no_answer`).
    NoAnswer,
    /// The line was busy or the call was declined (`declined`).
    BusyOrDeclined,
    /// A machine answered (`voicemail`); the message, if one was left, is
    /// billed like any connected call.
    Voicemail,
}

impl RetryOn {
    /// Every retryable outcome, in the API's order.
    pub const ALL: [RetryOn; 3] = [Self::NoAnswer, Self::BusyOrDeclined, Self::Voicemail];

    /// The API's name.
    pub fn as_str(self) -> &'static str {
        match self {
            Self::NoAnswer => "no_answer",
            Self::BusyOrDeclined => "busy_or_declined",
            Self::Voicemail => "voicemail",
        }
    }

    /// The retryable outcome a call status stands for, if any.
    pub fn of_status(status: CallStatus) -> Option<Self> {
        match status {
            CallStatus::NoAnswer => Some(Self::NoAnswer),
            CallStatus::Declined => Some(Self::BusyOrDeclined),
            CallStatus::Voicemail => Some(Self::Voicemail),
            _ => None,
        }
    }

    fn bit(self) -> u8 {
        1 << self as u8
    }

    fn from_name(name: &str) -> Option<Self> {
        Self::ALL.into_iter().find(|on| on.as_str() == name)
    }
}

/// How a call is tried again when an attempt reaches no one: at most
/// `max_attempts` dials in all, after the outcomes in `on`, waiting the
/// `n`-th delay before the `n`-th retry (the last delay repeating).
///
/// A failure that rang no phone ([`CallError::no_phone_rang`]: the
/// carrier could not be reached) is retried under any policy with attempts
/// left.
/// A completed call, any other failure and a cancelled call never are.
///
/// ```
/// use agentcall::schedule::{RetryOn, RetryPolicy};
/// use agentcall::CallStatus;
///
/// let policy = RetryPolicy::new(3, &[RetryOn::NoAnswer], &[30, 120])?;
/// assert!(policy.retries(CallStatus::NoAnswer, None));
/// assert!(!policy.retries(CallStatus::Declined, None));
/// assert_eq!(policy.delay_after(1).as_secs(), 30 * 60);
/// assert_eq!(policy.delay_after(2).as_secs(), 120 * 60);
/// assert_eq!(policy.delay_after(7).as_secs(), 120 * 60); // the last repeats
/// # Ok::<(), agentcall::schedule::RetryError>(())
/// ```
#[derive(Clone, Copy, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
#[serde(try_from = "RetryFields", into = "RetryFields")]
pub struct RetryPolicy {
    max_attempts: u8,
    /// A bit per [`RetryOn`].
    on: u8,
    /// The delays before the first, second… retry; `delay_count` are used.
    delays: [u16; MAX_ATTEMPTS as usize - 1],
    delay_count: u8,
}

impl RetryPolicy {
    /// A policy of at most `max_attempts` dials (1 to 5; 1 never retries)
    /// retrying the outcomes in `on` (at least one) after `delay_minutes`
    /// (one to four delays, each 1 to 10,080 minutes; the last repeats).
    pub fn new(
        max_attempts: u8,
        on: &[RetryOn],
        delay_minutes: &[u16],
    ) -> Result<Self, RetryError> {
        if !(1..=MAX_ATTEMPTS).contains(&max_attempts) {
            return Err(RetryError::MaxAttempts);
        }
        if on.is_empty() {
            return Err(RetryError::On);
        }
        let mut delays = [0; MAX_ATTEMPTS as usize - 1];
        if delay_minutes.is_empty()
            || delay_minutes.len() > delays.len()
            || delay_minutes
                .iter()
                .any(|&minutes| !(1..=MAX_DELAY_MINUTES).contains(&minutes))
        {
            return Err(RetryError::Delays);
        }
        delays[..delay_minutes.len()].copy_from_slice(delay_minutes);
        Ok(Self {
            max_attempts,
            on: on.iter().fold(0, |bits, on| bits | on.bit()),
            delays,
            delay_count: delay_minutes.len() as u8,
        })
    }

    /// The most dials the call may have, the first included.
    pub fn max_attempts(&self) -> u8 {
        self.max_attempts
    }

    /// The outcomes retried.
    pub fn on(&self) -> impl Iterator<Item = RetryOn> + '_ {
        RetryOn::ALL
            .into_iter()
            .filter(|on| self.on & on.bit() != 0)
    }

    /// The delays before each retry, in minutes.
    pub fn delay_minutes(&self) -> &[u16] {
        &self.delays[..usize::from(self.delay_count)]
    }

    /// Whether an attempt that ended as `status` (with `error`, for
    /// `failed`) is worth another one under this policy, attempts left
    /// aside.
    pub fn retries(&self, status: CallStatus, error: Option<CallError>) -> bool {
        match RetryOn::of_status(status) {
            Some(on) => self.on & on.bit() != 0,
            None => status == CallStatus::Failed && error.is_some_and(CallError::no_phone_rang),
        }
    }

    /// The wait after attempt `attempt` (1 for the first dial) before the
    /// next one: the `attempt`-th delay, or the last when there are fewer.
    pub fn delay_after(&self, attempt: u32) -> Duration {
        let delays = self.delay_minutes();
        let index = (attempt.max(1) as usize - 1).min(delays.len() - 1);
        Duration::from_secs(u64::from(delays[index]) * 60)
    }
}

impl fmt::Debug for RetryPolicy {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("RetryPolicy")
            .field("max_attempts", &self.max_attempts)
            .field("on", &self.on().map(RetryOn::as_str).collect::<Vec<_>>())
            .field("delay_minutes", &self.delay_minutes())
            .finish()
    }
}

/// The JSON form of a [`RetryPolicy`]:
/// `{"maxAttempts": 3, "on": ["no_answer", "busy_or_declined"], "delayMinutes": [30, 120]}`.
/// `on` defaults to `["no_answer", "busy_or_declined"]`, `delayMinutes` to
/// `[60]`. Unknown keys are an error.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct RetryFields {
    /// Dials in all, the first included: 1 (never retry) to 5.
    #[cfg_attr(feature = "openapi", schema(minimum = 1, maximum = 5, example = 3))]
    pub max_attempts: u64,
    /// The outcomes retried: `no_answer`, `busy_or_declined`, `voicemail`
    /// (default: the first two). A transient carrier failure
    /// (`carrier_unreachable`) is retried whatever this says.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[cfg_attr(
        feature = "openapi",
        schema(value_type = Option<Vec<RetryOn>>, nullable = true, min_items = 1)
    )]
    pub on: Option<Vec<String>>,
    /// Minutes to wait before the first, second… retry (1 to 10,080 each,
    /// one to four of them; the last repeats). Default `[60]`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[cfg_attr(
        feature = "openapi",
        schema(nullable = true, min_items = 1, max_items = 4, example = json!([30, 120]))
    )]
    pub delay_minutes: Option<Vec<u64>>,
}

impl TryFrom<RetryFields> for RetryPolicy {
    type Error = RetryError;

    fn try_from(fields: RetryFields) -> Result<Self, Self::Error> {
        let max_attempts =
            u8::try_from(fields.max_attempts).map_err(|_| RetryError::MaxAttempts)?;
        let on = match &fields.on {
            None => vec![RetryOn::NoAnswer, RetryOn::BusyOrDeclined],
            Some(names) => names
                .iter()
                .map(|name| RetryOn::from_name(name).ok_or(RetryError::On))
                .collect::<Result<_, _>>()?,
        };
        let delays = match &fields.delay_minutes {
            None => vec![DEFAULT_DELAY_MINUTES],
            Some(minutes) => minutes
                .iter()
                .map(|&m| u16::try_from(m).map_err(|_| RetryError::Delays))
                .collect::<Result<_, _>>()?,
        };
        Self::new(max_attempts, &on, &delays)
    }
}

impl From<RetryPolicy> for RetryFields {
    fn from(policy: RetryPolicy) -> Self {
        Self {
            max_attempts: u64::from(policy.max_attempts),
            on: Some(policy.on().map(|on| on.as_str().to_owned()).collect()),
            delay_minutes: Some(
                policy
                    .delay_minutes()
                    .iter()
                    .map(|&m| u64::from(m))
                    .collect(),
            ),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;
    use serde_json::json;

    fn parse(value: serde_json::Value) -> Result<RetryPolicy, String> {
        serde_json::from_value(value).map_err(|e| e.to_string())
    }

    #[test]
    fn the_json_form_has_defaults_and_rejects_the_rest() {
        let policy = parse(json!({"maxAttempts": 3})).unwrap();
        assert_eq!(
            policy.on().collect::<Vec<_>>(),
            [RetryOn::NoAnswer, RetryOn::BusyOrDeclined]
        );
        assert_eq!(policy.delay_minutes(), [60]);
        for bad in [
            json!({"maxAttempts": 0}),
            json!({"maxAttempts": 6}),
            json!({"maxAttempts": 2.5}),
            json!({"maxAttempts": "3"}),
            json!({"maxAttempts": -1}),
            json!({}),
            json!({"maxAttempts": 3, "on": []}),
            json!({"maxAttempts": 3, "on": ["busy"]}),
            json!({"maxAttempts": 3, "on": "no_answer"}),
            json!({"maxAttempts": 3, "delayMinutes": []}),
            json!({"maxAttempts": 3, "delayMinutes": [0]}),
            json!({"maxAttempts": 3, "delayMinutes": [10081]}),
            json!({"maxAttempts": 3, "delayMinutes": [70000]}),
            json!({"maxAttempts": 3, "delayMinutes": [1, 2, 3, 4, 5]}),
            json!({"maxAttempts": 3, "delayMinutes": [1.5]}),
            json!({"maxAttempts": 3, "delays": [1]}),
        ] {
            assert!(parse(bad.clone()).is_err(), "{bad}");
        }
    }

    #[test]
    fn the_wire_names_are_the_serde_names() {
        for on in RetryOn::ALL {
            assert_eq!(serde_json::to_value(on).unwrap(), on.as_str());
        }
    }

    #[test]
    fn only_the_listed_outcomes_and_transient_failures_are_retried() {
        let policy = RetryPolicy::new(2, &[RetryOn::Voicemail], &[5]).unwrap();
        assert!(policy.retries(CallStatus::Voicemail, None));
        assert!(!policy.retries(CallStatus::NoAnswer, None));
        assert!(policy.retries(CallStatus::Failed, Some(CallError::CarrierUnreachable)));
        for &error in CallError::ALL {
            if error != CallError::CarrierUnreachable {
                assert!(!policy.retries(CallStatus::Failed, Some(error)), "{error}");
            }
        }
        for status in [
            CallStatus::Completed,
            CallStatus::Queued,
            CallStatus::Dialing,
        ] {
            assert!(!policy.retries(status, None));
        }
    }

    proptest! {
        #[test]
        fn every_valid_policy_round_trips_through_json(
            max_attempts in 1u8..=5,
            on in prop::collection::vec(prop::sample::select(RetryOn::ALL.to_vec()), 1..4),
            delays in prop::collection::vec(1u16..=MAX_DELAY_MINUTES, 1..=4),
        ) {
            let policy = RetryPolicy::new(max_attempts, &on, &delays).unwrap();
            let text = serde_json::to_string(&policy).unwrap();
            prop_assert_eq!(serde_json::from_str::<RetryPolicy>(&text).unwrap(), policy);
            for attempt in 1..=8u32 {
                let index = (attempt as usize - 1).min(delays.len() - 1);
                prop_assert_eq!(policy.delay_after(attempt).as_secs(), u64::from(delays[index]) * 60);
            }
        }

        #[test]
        fn no_json_value_panics_and_only_valid_shapes_parse(
            max_attempts in prop_oneof![Just(json!(null)), (-3i64..9).prop_map(|n| json!(n)), Just(json!(2.0)), Just(json!("2"))],
            delays in prop::option::of(prop::collection::vec(-5i64..11_000, 0..6)),
        ) {
            let mut body = json!({"maxAttempts": max_attempts});
            if let Some(delays) = &delays {
                body["delayMinutes"] = json!(delays);
            }
            let valid = max_attempts.as_u64().is_some_and(|n| (1..=5).contains(&n))
                && delays.as_ref().is_none_or(|d| {
                    (1..=4).contains(&d.len()) && d.iter().all(|m| (1..=10_080).contains(m))
                });
            prop_assert_eq!(parse(body).is_ok(), valid);
        }
    }
}
