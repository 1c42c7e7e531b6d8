//! Identifier newtypes.

use std::fmt;
use std::str::FromStr;

use serde::{Deserialize, Serialize};

/// Why a string is not an identifier of the expected shape.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("not a valid {kind} identifier")]
pub struct InvalidId {
    kind: &'static str,
}

/// The identifier of a call: `call_` followed by 32 lowercase hex digits
/// (a random UUID v4), e.g. `call_3f1c…`.
///
/// Random rather than sequential so that ids reveal neither volume nor order.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(try_from = "String", into = "String")]
pub struct CallId(String);

impl CallId {
    const PREFIX: &'static str = "call_";

    /// A fresh random id.
    pub fn generate() -> Self {
        Self(format!("{}{}", Self::PREFIX, uuid::Uuid::new_v4().simple()))
    }

    /// The id as text.
    pub fn as_str(&self) -> &str {
        &self.0
    }

    /// An id that sorts before every real one (a range bound for indexes).
    pub(crate) fn lowest() -> Self {
        Self(String::new())
    }
}

impl FromStr for CallId {
    type Err = InvalidId;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        let hex = s
            .strip_prefix(Self::PREFIX)
            .ok_or(InvalidId { kind: "call" })?;
        if hex.len() == 32 && hex.bytes().all(|b| matches!(b, b'0'..=b'9' | b'a'..=b'f')) {
            Ok(Self(s.to_owned()))
        } else {
            Err(InvalidId { kind: "call" })
        }
    }
}

impl TryFrom<String> for CallId {
    type Error = InvalidId;
    fn try_from(s: String) -> Result<Self, Self::Error> {
        s.parse()
    }
}

impl From<CallId> for String {
    fn from(id: CallId) -> Self {
        id.0
    }
}

impl fmt::Display for CallId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

/// The identifier of an account, as the host names it (any non-empty text).
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(try_from = "String", into = "String")]
pub struct AccountId(String);

impl AccountId {
    /// The id as text.
    pub fn as_str(&self) -> &str {
        &self.0
    }
}

impl FromStr for AccountId {
    type Err = InvalidId;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        if s.is_empty() || s.len() > 200 || s.chars().any(char::is_control) {
            Err(InvalidId { kind: "account" })
        } else {
            Ok(Self(s.to_owned()))
        }
    }
}

impl TryFrom<String> for AccountId {
    type Error = InvalidId;
    fn try_from(s: String) -> Result<Self, Self::Error> {
        s.parse()
    }
}

impl From<AccountId> for String {
    fn from(id: AccountId) -> Self {
        id.0
    }
}

impl fmt::Display for AccountId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

/// The identity of one API key without the key itself: the first 16 bytes of
/// its SHA-256, in hex. Calls are owned by a `KeyId`; it is safe to log and
/// to store.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(transparent)]
pub struct KeyId(String);

impl KeyId {
    /// Wraps a stored key id (as produced by [`ApiKey::id`](crate::ApiKey::id)).
    pub fn from_stored(s: impl Into<String>) -> Self {
        Self(s.into())
    }

    /// The id as text.
    pub fn as_str(&self) -> &str {
        &self.0
    }
}

impl fmt::Display for KeyId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn call_ids_round_trip_and_reject_other_shapes() {
        let id = CallId::generate();
        assert_eq!(id.as_str().parse::<CallId>().unwrap(), id);
        for bad in [
            "",
            "call_",
            "call_XYZ",
            "abc",
            "call_0123456789abcdef0123456789abcdeF",
        ] {
            assert!(bad.parse::<CallId>().is_err(), "{bad}");
        }
    }

    #[test]
    fn generated_call_ids_are_distinct() {
        let ids: std::collections::HashSet<_> = (0..1000).map(|_| CallId::generate()).collect();
        assert_eq!(ids.len(), 1000);
    }
}
