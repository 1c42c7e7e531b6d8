//! Secrets: API keys and webhook signing secrets.
//!
//! Both redact themselves in `Debug`, have no `Display`, and are never
//! serialized, so they cannot reach a log line by accident.

use std::fmt;

use sha2::{Digest, Sha256};

use super::KeyId;

/// An agent API key, as presented in `Authorization: Bearer <key>`.
///
/// Equality is constant-time in the key's content, so comparing keys leaks
/// no timing about where they differ.
#[derive(Clone)]
pub struct ApiKey(String);

impl ApiKey {
    /// Wraps a key.
    pub fn new(key: impl Into<String>) -> Self {
        Self(key.into())
    }

    /// The key's text, for the rare place that must send or compare it.
    pub fn expose_secret(&self) -> &str {
        &self.0
    }

    /// The key's stable, non-secret identity (a truncated SHA-256).
    ///
    /// Directories look keys up by this digest rather than comparing key
    /// text, so lookups leak no timing about the key itself.
    pub fn id(&self) -> KeyId {
        let digest = Sha256::digest(self.0.as_bytes());
        KeyId::from_stored(hex::encode(&digest[..16]))
    }
}

impl PartialEq for ApiKey {
    fn eq(&self, other: &Self) -> bool {
        constant_time_eq(self.0.as_bytes(), other.0.as_bytes())
    }
}

impl Eq for ApiKey {}

impl PartialEq for WebhookSecret {
    fn eq(&self, other: &Self) -> bool {
        constant_time_eq(&self.0, &other.0)
    }
}

impl Eq for WebhookSecret {}

/// Compares secret bytes in time that depends only on their lengths.
fn constant_time_eq(left: &[u8], right: &[u8]) -> bool {
    use subtle::ConstantTimeEq;
    left.ct_eq(right).into()
}

impl fmt::Debug for ApiKey {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("ApiKey([redacted])")
    }
}

/// The secret that signs an account's webhook events (spec 5.2): its bytes
/// as given key the HMAC.
///
/// Equality is constant-time in the secret's content.
#[derive(Clone)]
pub struct WebhookSecret(Vec<u8>);

impl WebhookSecret {
    /// Wraps secret bytes.
    pub fn new(secret: impl Into<Vec<u8>>) -> Self {
        Self(secret.into())
    }

    /// The secret's bytes.
    pub fn expose_secret(&self) -> &[u8] {
        &self.0
    }
}

impl From<String> for WebhookSecret {
    fn from(s: String) -> Self {
        Self(s.into_bytes())
    }
}

impl From<&str> for WebhookSecret {
    fn from(s: &str) -> Self {
        Self(s.as_bytes().to_vec())
    }
}

impl fmt::Debug for WebhookSecret {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("WebhookSecret([redacted])")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn debug_output_never_shows_secrets() {
        let key = ApiKey::new("key_live_abcdef");
        let secret = WebhookSecret::from("whsec_topsecret");
        let text = format!("{key:?} {secret:?} {:?}", (key.clone(), secret.clone()));
        assert!(
            !text.contains("abcdef") && !text.contains("topsecret"),
            "{text}"
        );
    }

    #[test]
    fn key_ids_are_stable_and_distinct() {
        assert_eq!(ApiKey::new("a").id(), ApiKey::new("a").id());
        assert_ne!(ApiKey::new("a").id(), ApiKey::new("b").id());
        assert_eq!(ApiKey::new("a").id().as_str().len(), 32);
    }

    #[test]
    fn equality_compares_content() {
        assert_eq!(ApiKey::new("key_a"), ApiKey::new("key_a"));
        assert_ne!(ApiKey::new("key_a"), ApiKey::new("key_b"));
        assert_ne!(ApiKey::new("key_a"), ApiKey::new("key_a2"));
        assert_eq!(WebhookSecret::from("s"), WebhookSecret::from("s"));
        assert_ne!(WebhookSecret::from("s"), WebhookSecret::from("t"));
    }
}
