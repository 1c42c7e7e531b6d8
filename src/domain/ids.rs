//! Identifier newtypes.

use std::fmt;
use std::str::FromStr;
use std::sync::Arc;

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
///
/// Kept inline (37 bytes, no heap): a service clones and hashes call ids on
/// every step of a call, and the maps that index running calls rehash them
/// all at once as they grow.
#[derive(Clone, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(try_from = "String", into = "String")]
pub struct CallId([u8; CallId::LEN]);

impl CallId {
    const PREFIX: &'static str = "call_";
    const LEN: usize = 37;

    /// A fresh random id.
    pub fn generate() -> Self {
        let mut bytes = [0u8; Self::LEN];
        bytes[..Self::PREFIX.len()].copy_from_slice(Self::PREFIX.as_bytes());
        uuid::Uuid::new_v4()
            .simple()
            .encode_lower(&mut bytes[Self::PREFIX.len()..]);
        Self(bytes)
    }

    /// The id as text.
    pub fn as_str(&self) -> &str {
        // Only ASCII is ever stored (see `generate` and `from_str`); the
        // lowest id is all zeros and reads as "".
        match self.0[0] {
            0 => "",
            _ => std::str::from_utf8(&self.0).unwrap_or_default(),
        }
    }

    /// An id that sorts before every real one (a range bound for indexes).
    pub(crate) fn lowest() -> Self {
        Self([0; Self::LEN])
    }
}

impl fmt::Debug for CallId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_tuple("CallId").field(&self.as_str()).finish()
    }
}

impl FromStr for CallId {
    type Err = InvalidId;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        let hex = s
            .strip_prefix(Self::PREFIX)
            .ok_or(InvalidId { kind: "call" })?;
        if hex.len() == 32 && hex.bytes().all(|b| matches!(b, b'0'..=b'9' | b'a'..=b'f')) {
            let mut bytes = [0u8; Self::LEN];
            bytes.copy_from_slice(s.as_bytes());
            Ok(Self(bytes))
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
        id.as_str().to_owned()
    }
}

impl fmt::Display for CallId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// One attempt (dial) of a call: what the usage ledger reserves minutes
/// for and settles, once each. A call dialed once has only attempt 1.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct CallAttempt {
    /// The call.
    pub call: CallId,
    /// The attempt's number, 1 for the first dial.
    pub attempt: u32,
}

impl CallAttempt {
    /// Attempt `attempt` of `call`.
    pub fn new(call: CallId, attempt: u32) -> Self {
        Self { call, attempt }
    }

    /// The first dial of `call`.
    pub fn first(call: CallId) -> Self {
        Self::new(call, 1)
    }
}

impl fmt::Display for CallAttempt {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} attempt {}", self.call, self.attempt)
    }
}

/// The identifier of an account, as the host names it (any non-empty text).
/// Shared text: a clone (one per placement, per rate-limit and minute-cap
/// entry) counts a reference instead of copying.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord, Deserialize)]
#[serde(try_from = "String")]
pub struct AccountId(Arc<str>);

/// A JSON string, as before the text was shared (no copy on the way out).
impl Serialize for AccountId {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_str(&self.0)
    }
}

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
            Ok(Self(Arc::from(s)))
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
        id.0.as_ref().to_owned()
    }
}

impl fmt::Display for AccountId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

/// The identity of one API key without the key itself: the first 16 bytes of
/// its SHA-256, in hex. Calls are owned by a `KeyId`; it is safe to log and
/// to store. Shared text, like [`AccountId`].
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord, Deserialize)]
#[serde(from = "String")]
pub struct KeyId(Arc<str>);

/// A JSON string, as before the text was shared (no copy on the way out).
impl Serialize for KeyId {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_str(&self.0)
    }
}

impl KeyId {
    /// Wraps a stored key id (as produced by [`ApiKey::id`](crate::ApiKey::id)).
    pub fn from_stored(s: impl Into<String>) -> Self {
        Self(Arc::from(s.into()))
    }

    /// The id as text.
    pub fn as_str(&self) -> &str {
        &self.0
    }
}

impl From<String> for KeyId {
    fn from(s: String) -> Self {
        Self(Arc::from(s))
    }
}

impl From<KeyId> for String {
    fn from(id: KeyId) -> Self {
        id.0.as_ref().to_owned()
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

    proptest::proptest! {
        /// Account and key ids serialize as the plain JSON string of their
        /// text and read back equal; an account id that breaks the rules is
        /// refused when read, as when parsed.
        #[test]
        fn id_serde_forms_are_plain_strings(text in "\\PC{1,40}", bad in "[\\x00-\\x1f]{1,3}") {
            let plain = serde_json::to_string(&text).unwrap();
            let account: AccountId = text.parse().unwrap();
            proptest::prop_assert_eq!(serde_json::to_string(&account).unwrap(), plain.clone());
            proptest::prop_assert_eq!(serde_json::from_str::<AccountId>(&plain).unwrap(), account);
            let key = KeyId::from_stored(text.clone());
            proptest::prop_assert_eq!(serde_json::to_string(&key).unwrap(), plain.clone());
            proptest::prop_assert_eq!(serde_json::from_str::<KeyId>(&plain).unwrap(), key);
            let refused = serde_json::to_string(&bad).unwrap();
            proptest::prop_assert!(serde_json::from_str::<AccountId>(&refused).is_err());
            proptest::prop_assert!(serde_json::from_str::<AccountId>("\"\"").is_err());
        }
    }

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

    proptest::proptest! {
        /// Parsing keeps the text exactly; ids order as their text does,
        /// after the lowest one; anything else is rejected, never a panic.
        #[test]
        fn call_ids_keep_their_text_and_order(
            a in "call_[0-9a-f]{32}",
            b in "call_[0-9a-f]{32}",
            junk in "\\PC{0,40}",
        ) {
            let (x, y) = (a.parse::<CallId>().unwrap(), b.parse::<CallId>().unwrap());
            proptest::prop_assert_eq!(x.as_str(), a.as_str());
            proptest::prop_assert_eq!(x.to_string(), a.clone());
            proptest::prop_assert_eq!(String::from(x.clone()), a.clone());
            proptest::prop_assert_eq!(x.cmp(&y), a.cmp(&b));
            proptest::prop_assert!(CallId::lowest() < x);
            proptest::prop_assert!(CallId::lowest().as_str().is_empty());
            let shaped = junk.len() == 37
                && junk.starts_with("call_")
                && junk[5..].bytes().all(|c| matches!(c, b'0'..=b'9' | b'a'..=b'f'));
            proptest::prop_assert_eq!(junk.parse::<CallId>().is_ok(), shaped);
        }
    }

    #[test]
    fn generated_call_ids_are_distinct() {
        let ids: std::collections::HashSet<_> = (0..1000).map(|_| CallId::generate()).collect();
        assert_eq!(ids.len(), 1000);
    }
}
