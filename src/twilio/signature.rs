//! `X-Twilio-Signature`: how Twilio signs every request it sends us, and how
//! we check it.
//!
//! The signature is the base64 HMAC-SHA1, keyed with the account's auth
//! token, of the full URL Twilio requested followed, for a form-encoded POST,
//! by every parameter's name and value with no delimiters, sorted by name
//! (then value). A JSON body is not signed directly: Twilio adds
//! `bodySHA256=<hex SHA-256 of the body>` to the URL's query and signs the
//! URL alone.
//!
//! Twilio's own libraries (twilio-python's `RequestValidator`, twilio-node)
//! define the details followed here:
//!
//! - Twilio is inconsistent about the default port, so the URL is tried both
//!   without its port and with one: a URL with a port is also tried without
//!   it, a URL without one is also tried with its scheme's default (443 for
//!   `https`, 80 for `http`).
//! - Parameters sort by name, then by value, in code point order; a
//!   parameter repeated with the same value counts once.
//! - Signatures are compared in constant time.
//!
//! ```
//! use agentcall::twilio::signature::{AuthToken, SignatureError, TwilioSignature};
//!
//! let twilio = TwilioSignature::new(&AuthToken::new("12345"));
//! let url = "https://mycompany.com/myapp.php?foo=1&bar=2";
//! let params = [("CallSid", "CA1234567890ABCDE"), ("Digits", "1234")];
//!
//! let header = twilio.sign(url, &params);
//! assert_eq!(twilio.verify_form(url, &params, Some(&header)), Ok(()));
//!
//! // The same request through the explicit default port verifies too.
//! let with_port = "https://mycompany.com:443/myapp.php?foo=1&bar=2";
//! assert_eq!(twilio.verify_form(with_port, &params, Some(&header)), Ok(()));
//!
//! // A changed parameter does not.
//! let forged = [("CallSid", "CA1234567890ABCDE"), ("Digits", "9999")];
//! assert_eq!(
//!     twilio.verify_form(url, &forged, Some(&header)),
//!     Err(SignatureError::Mismatch)
//! );
//! ```

use std::fmt;

use base64::Engine as _;
use base64::engine::general_purpose::STANDARD as BASE64;
use hmac::{Hmac, Mac};
use sha1::Sha1;
use sha2::{Digest, Sha256};
use subtle::ConstantTimeEq;

/// Name of the HTTP header carrying Twilio's signature.
pub const SIGNATURE_HEADER: &str = "X-Twilio-Signature";

/// The query parameter in which Twilio puts the SHA-256 of a JSON body.
const BODY_HASH_PARAM: &str = "bodySHA256";

type HmacSha1 = Hmac<Sha1>;

/// A Twilio account's auth token: it keys `X-Twilio-Signature` and is the
/// password of the REST API's Basic authentication.
///
/// Redacted in `Debug`, without `Display`, never serialized.
#[derive(Clone)]
pub struct AuthToken(String);

impl AuthToken {
    /// Wraps a token.
    pub fn new(token: impl Into<String>) -> Self {
        Self(token.into())
    }

    /// The token's text, for the rare place that must send it.
    pub fn expose_secret(&self) -> &str {
        &self.0
    }
}

impl fmt::Debug for AuthToken {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("AuthToken([redacted])")
    }
}

/// Why a request from Twilio was not accepted.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum SignatureError {
    /// The request has no (or an empty) `X-Twilio-Signature` header.
    #[error("the X-Twilio-Signature header is missing")]
    Missing,
    /// The signature is not the one the auth token gives for this URL and
    /// these parameters.
    #[error("the X-Twilio-Signature does not match the request")]
    Mismatch,
    /// The signature is authentic, but the JSON body is not the one whose
    /// SHA-256 the signed URL carries (or the URL carries no well-formed
    /// `bodySHA256`).
    #[error("the body does not match the signed bodySHA256")]
    BodyHashMismatch,
    /// The URL is not an absolute `http`, `https`, `ws` or `wss` URL with a valid host
    /// and port, so it cannot be the one Twilio signed.
    #[error("the URL is not an absolute http(s) URL")]
    MalformedUrl,
}

/// Signs and verifies `X-Twilio-Signature` with one account's auth token.
///
/// The keyed HMAC state is derived once and cloned per message. `Debug`
/// never prints the token.
#[derive(Clone)]
pub struct TwilioSignature {
    keyed: HmacSha1,
}

impl fmt::Debug for TwilioSignature {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("TwilioSignature")
            .field("auth_token", &"[redacted]")
            .finish()
    }
}

impl TwilioSignature {
    /// A signer and verifier keyed with `auth_token`.
    pub fn new(auth_token: &AuthToken) -> Self {
        let keyed = <HmacSha1 as Mac>::new_from_slice(auth_token.expose_secret().as_bytes())
            .expect("HMAC accepts keys of any length");
        Self { keyed }
    }

    /// The `X-Twilio-Signature` value for a form POST to `url` with `params`
    /// (pass no params for a GET or a JSON request), exactly as Twilio
    /// computes it: the URL is signed as given.
    pub fn sign<K, V>(&self, url: &str, params: &[(K, V)]) -> String
    where
        K: AsRef<str>,
        V: AsRef<str>,
    {
        BASE64.encode(self.mac(url, params))
    }

    /// Checks the signature of a form-encoded request (or of a GET, with no
    /// params): `url` is the full URL Twilio requested, as Twilio saw it
    /// (scheme, host and query included), and `params` the decoded form
    /// fields in any order.
    ///
    /// # Errors
    ///
    /// [`SignatureError::Missing`] without a header,
    /// [`SignatureError::MalformedUrl`] for a URL Twilio cannot have signed,
    /// [`SignatureError::Mismatch`] otherwise when the signature is wrong.
    pub fn verify_form<K, V>(
        &self,
        url: &str,
        params: &[(K, V)],
        header: Option<&str>,
    ) -> Result<(), SignatureError>
    where
        K: AsRef<str>,
        V: AsRef<str>,
    {
        let header = present(header)?;
        let variants = PortVariants::of(url)?;
        if self.matches_any(&variants, params, header) {
            Ok(())
        } else {
            Err(SignatureError::Mismatch)
        }
    }

    /// Checks the signature of a request with a JSON body: the signature
    /// covers the URL alone, and the URL's `bodySHA256` query value must be
    /// the hex SHA-256 of `body`.
    ///
    /// The signature is checked first, so [`SignatureError::BodyHashMismatch`]
    /// means an authentic URL arrived with a body that is not the signed one.
    ///
    /// # Errors
    ///
    /// As [`verify_form`](Self::verify_form), plus
    /// [`SignatureError::BodyHashMismatch`].
    pub fn verify_json(
        &self,
        url: &str,
        body: &[u8],
        header: Option<&str>,
    ) -> Result<(), SignatureError> {
        let header = present(header)?;
        let variants = PortVariants::of(url)?;
        let no_params: &[(&str, &str)] = &[];
        if !self.matches_any(&variants, no_params, header) {
            return Err(SignatureError::Mismatch);
        }
        let signed_hash = body_hash_in(url).ok_or(SignatureError::BodyHashMismatch)?;
        let actual_hash: [u8; 32] = Sha256::digest(body).into();
        if bool::from(actual_hash.ct_eq(&signed_hash)) {
            Ok(())
        } else {
            Err(SignatureError::BodyHashMismatch)
        }
    }

    fn matches_any<K, V>(&self, variants: &PortVariants, params: &[(K, V)], header: &str) -> bool
    where
        K: AsRef<str>,
        V: AsRef<str>,
    {
        // Both comparisons always run: which variant matched is not secret,
        // but there is no reason to branch on it either.
        let without = self.sign(&variants.without_port, params);
        let with = self.sign(&variants.with_port, params);
        let matched =
            without.as_bytes().ct_eq(header.as_bytes()) | with.as_bytes().ct_eq(header.as_bytes());
        matched.into()
    }

    fn mac<K, V>(&self, url: &str, params: &[(K, V)]) -> [u8; 20]
    where
        K: AsRef<str>,
        V: AsRef<str>,
    {
        let mut sorted: Vec<(&str, &str)> = params
            .iter()
            .map(|(key, value)| (key.as_ref(), value.as_ref()))
            .collect();
        // `str` orders by UTF-8 bytes, which is code point order (Python's).
        sorted.sort_unstable();
        sorted.dedup();
        let mut mac = self.keyed.clone();
        mac.update(url.as_bytes());
        for (key, value) in sorted {
            mac.update(key.as_bytes());
            mac.update(value.as_bytes());
        }
        mac.finalize().into_bytes().into()
    }
}

fn present(header: Option<&str>) -> Result<&str, SignatureError> {
    header
        .filter(|value| !value.is_empty())
        .ok_or(SignatureError::Missing)
}

/// The SHA-256 a URL's `bodySHA256` query value names, when it names one.
fn body_hash_in(url: &str) -> Option<[u8; 32]> {
    let after_question = url.split_once('?')?.1;
    let query = after_question
        .split_once('#')
        .map_or(after_question, |(query, _)| query);
    let (_, value) =
        url::form_urlencoded::parse(query.as_bytes()).find(|(key, _)| key == BODY_HASH_PARAM)?;
    let mut hash = [0u8; 32];
    hex::decode_to_slice(value.as_bytes(), &mut hash).ok()?;
    Some(hash)
}

/// A URL without its port and with one; one of the two is the URL as given.
///
/// Built by editing the authority in the text rather than through a URL
/// parser, which would normalise the rest (percent-encoding, case, a default
/// port) and so change the bytes that were signed.
#[derive(Debug, PartialEq, Eq)]
struct PortVariants {
    without_port: String,
    with_port: String,
}

impl PortVariants {
    fn of(url: &str) -> Result<Self, SignatureError> {
        let (scheme, after_scheme) = url.split_once("://").ok_or(SignatureError::MalformedUrl)?;
        // `wss`/`ws`: the relay's WebSocket handshake is signed over the
        // URL Twilio connected to.
        let default_port =
            if scheme.eq_ignore_ascii_case("https") || scheme.eq_ignore_ascii_case("wss") {
                "443"
            } else if scheme.eq_ignore_ascii_case("http") || scheme.eq_ignore_ascii_case("ws") {
                "80"
            } else {
                return Err(SignatureError::MalformedUrl);
            };
        let authority_len = after_scheme
            .find(['/', '?', '#'])
            .unwrap_or(after_scheme.len());
        let (authority, rest) = after_scheme.split_at(authority_len);
        // Userinfo may itself contain ':' (a password), so the host and port
        // start after the last '@'.
        let host_start = authority.rfind('@').map_or(0, |at| at + 1);
        let (userinfo, host_port) = authority.split_at(host_start);
        let (host, port) = split_host_port(host_port)?;
        let prefix = format!("{scheme}://{userinfo}{host}");
        Ok(match port {
            Some(port) => Self {
                without_port: format!("{prefix}{rest}"),
                with_port: format!("{prefix}:{port}{rest}"),
            },
            None => Self {
                without_port: format!("{prefix}{rest}"),
                with_port: format!("{prefix}:{default_port}{rest}"),
            },
        })
    }
}

/// Splits `host[:port]` (the host possibly a bracketed IPv6 literal).
fn split_host_port(host_port: &str) -> Result<(&str, Option<&str>), SignatureError> {
    let host_end = if host_port.starts_with('[') {
        host_port.find(']').ok_or(SignatureError::MalformedUrl)? + 1
    } else {
        host_port.find(':').unwrap_or(host_port.len())
    };
    let (host, after_host) = host_port.split_at(host_end);
    if host.is_empty() {
        return Err(SignatureError::MalformedUrl);
    }
    let port = match after_host.strip_prefix(':') {
        None if after_host.is_empty() => None,
        None => return Err(SignatureError::MalformedUrl),
        Some(port) if is_port(port) => Some(port),
        Some(_) => return Err(SignatureError::MalformedUrl),
    };
    Ok((host, port))
}

fn is_port(text: &str) -> bool {
    !text.is_empty() && text.bytes().all(|b| b.is_ascii_digit()) && text.parse::<u16>().is_ok()
}

#[cfg(test)]
mod tests {
    use proptest::prelude::*;

    use super::*;

    // twilio-python's own test vectors (tests/unit/test_request_validator.py).
    const TOKEN: &str = "12345";
    const URL: &str = "https://mycompany.com/myapp.php?foo=1&bar=2";
    const URL_WITH_PORT: &str = "https://mycompany.com:443/myapp.php?foo=1&bar=2";
    const SIGNATURE: &str = "RSOYDt4T1cUTdK1PDd93/VVr8B8=";
    const SIGNATURE_WITH_PORT: &str = "kvajT1Ptam85bY51eRf/AJRuM3w=";
    const JSON_BODY: &[u8] = br#"{"property": "value", "boolean": true}"#;
    const JSON_URL: &str = "https://mycompany.com/myapp.php?foo=1&bar=2&bodySHA256=0a1ff7634d9ab3b95db5c9a2dfe9416e41502b283a80c7cf19632632f96e6620";
    const JSON_SIGNATURE: &str = "a9nBmqA0ju/hNViExpshrM61xv4=";

    fn twilio() -> TwilioSignature {
        TwilioSignature::new(&AuthToken::new(TOKEN))
    }

    fn python_params() -> Vec<(String, String)> {
        [
            ("CallSid", "CA1234567890ABCDE"),
            ("Caller", "+14158675309"),
            ("Digits", "1234"),
            ("From", "+14158675309"),
            ("To", "+18005551212"),
        ]
        .into_iter()
        .map(|(k, v)| (k.to_owned(), v.to_owned()))
        .collect()
    }

    #[test]
    fn signs_like_twilio_python() {
        assert_eq!(twilio().sign(URL, &python_params()), SIGNATURE);
        assert_eq!(
            twilio().sign(URL_WITH_PORT, &python_params()),
            SIGNATURE_WITH_PORT
        );
        let no_params: &[(&str, &str)] = &[];
        assert_eq!(twilio().sign(JSON_URL, no_params), JSON_SIGNATURE);
    }

    #[test]
    fn either_port_form_verifies_either_signature() {
        let params = python_params();
        for url in [URL, URL_WITH_PORT] {
            for signature in [SIGNATURE, SIGNATURE_WITH_PORT] {
                assert_eq!(
                    twilio().verify_form(url, &params, Some(signature)),
                    Ok(()),
                    "{url} with {signature}"
                );
            }
        }
    }

    #[test]
    fn parameter_order_does_not_matter() {
        let mut params = python_params();
        params.reverse();
        assert_eq!(twilio().verify_form(URL, &params, Some(SIGNATURE)), Ok(()));
    }

    #[test]
    fn json_body_verifies_through_its_hash() {
        assert_eq!(
            twilio().verify_json(JSON_URL, JSON_BODY, Some(JSON_SIGNATURE)),
            Ok(())
        );
        let with_port = JSON_URL.replace("mycompany.com", "mycompany.com:443");
        assert_eq!(
            twilio().verify_json(&with_port, JSON_BODY, Some(JSON_SIGNATURE)),
            Ok(())
        );
    }

    #[test]
    fn json_body_that_is_not_the_signed_one_is_rejected() {
        assert_eq!(
            twilio().verify_json(JSON_URL, b"{\"property\": \"other\"}", Some(JSON_SIGNATURE)),
            Err(SignatureError::BodyHashMismatch)
        );
    }

    #[test]
    fn json_url_without_a_body_hash_is_rejected() {
        let no_params: &[(&str, &str)] = &[];
        let signature = twilio().sign(URL, no_params);
        assert_eq!(
            twilio().verify_json(URL, JSON_BODY, Some(&signature)),
            Err(SignatureError::BodyHashMismatch)
        );
    }

    #[test]
    fn json_with_a_wrong_signature_is_a_mismatch_not_a_body_error() {
        assert_eq!(
            twilio().verify_json(JSON_URL, b"tampered", Some(SIGNATURE)),
            Err(SignatureError::Mismatch)
        );
    }

    #[test]
    fn missing_or_empty_header_is_missing() {
        let params = python_params();
        assert_eq!(
            twilio().verify_form(URL, &params, None),
            Err(SignatureError::Missing)
        );
        assert_eq!(
            twilio().verify_form(URL, &params, Some("")),
            Err(SignatureError::Missing)
        );
        assert_eq!(
            twilio().verify_json(JSON_URL, JSON_BODY, None),
            Err(SignatureError::Missing)
        );
    }

    #[test]
    fn another_token_does_not_verify() {
        let other = TwilioSignature::new(&AuthToken::new("54321"));
        assert_eq!(
            other.verify_form(URL, &python_params(), Some(SIGNATURE)),
            Err(SignatureError::Mismatch)
        );
    }

    #[test]
    fn urls_twilio_cannot_have_signed_are_malformed() {
        for url in [
            "mycompany.com/myapp.php",
            "ftp://mycompany.com/file",
            "https:///path",
            "https://:443/path",
            "https://host:/path",
            "https://host:99999/path",
            "https://host:44a/path",
            "https://[::1/path",
            "https://[::1]x/path",
        ] {
            assert_eq!(
                twilio().verify_form(url, &python_params(), Some(SIGNATURE)),
                Err(SignatureError::MalformedUrl),
                "{url}"
            );
        }
    }

    #[test]
    fn port_variants_edit_only_the_port() {
        let variants = |url| PortVariants::of(url).unwrap();
        assert_eq!(
            variants("http://user:pw@Host.example/a%2Fb?x=1#f"),
            PortVariants {
                without_port: "http://user:pw@Host.example/a%2Fb?x=1#f".into(),
                with_port: "http://user:pw@Host.example:80/a%2Fb?x=1#f".into(),
            }
        );
        assert_eq!(
            variants("https://[::1]:8443?q"),
            PortVariants {
                without_port: "https://[::1]?q".into(),
                with_port: "https://[::1]:8443?q".into(),
            }
        );
        assert_eq!(
            variants("https://example.com"),
            PortVariants {
                without_port: "https://example.com".into(),
                with_port: "https://example.com:443".into(),
            }
        );
    }

    #[test]
    fn repeated_identical_parameter_counts_once() {
        // twilio-python and twilio-node both deduplicate a name's values.
        let once = [("StatusCallbackEvent", "answered")];
        let twice = [
            ("StatusCallbackEvent", "answered"),
            ("StatusCallbackEvent", "answered"),
        ];
        assert_eq!(twilio().sign(URL, &once), twilio().sign(URL, &twice));
    }

    #[test]
    fn debug_redacts_the_token() {
        let token = AuthToken::new("super-secret-token");
        assert!(!format!("{token:?}").contains("super-secret"));
        let shown = format!("{:?}", TwilioSignature::new(&token));
        assert!(!shown.contains("super-secret"), "{shown}");
    }

    /// Form parameters with distinct, non-empty names.
    fn params_strategy() -> impl Strategy<Value = Vec<(String, String)>> {
        prop::collection::btree_map(".{1,12}", ".{0,24}", 0..8)
            .prop_map(|map| map.into_iter().collect())
    }

    fn url_strategy() -> impl Strategy<Value = String> {
        (
            prop_oneof![Just("https"), Just("http")],
            "[a-z0-9.-]{1,20}",
            prop::option::of(0u16..),
            "(/[a-zA-Z0-9%._~-]{0,10}){0,3}(\\?[a-z0-9=&%]{0,20})?",
        )
            .prop_map(|(scheme, host, port, rest)| match port {
                Some(port) => format!("{scheme}://{host}:{port}{rest}"),
                None => format!("{scheme}://{host}{rest}"),
            })
    }

    proptest! {
        #[test]
        fn signed_requests_verify(url in url_strategy(), params in params_strategy()) {
            let header = twilio().sign(&url, &params);
            prop_assert_eq!(twilio().verify_form(&url, &params, Some(&header)), Ok(()));
        }

        #[test]
        fn changed_value_fails(
            url in url_strategy(),
            params in params_strategy().prop_filter("needs a param", |p| !p.is_empty()),
            index in any::<prop::sample::Index>(),
            new_value in ".{0,24}",
        ) {
            let header = twilio().sign(&url, &params);
            let mut forged = params.clone();
            let changed = index.index(forged.len());
            prop_assume!(forged[changed].1 != new_value);
            forged[changed].1 = new_value;
            prop_assert_eq!(
                twilio().verify_form(&url, &forged, Some(&header)),
                Err(SignatureError::Mismatch)
            );
        }

        #[test]
        fn added_param_fails(
            url in url_strategy(),
            params in params_strategy(),
            key in ".{1,12}",
            value in ".{0,24}",
        ) {
            prop_assume!(!params.iter().any(|(k, v)| *k == key && *v == value));
            let header = twilio().sign(&url, &params);
            let mut forged = params.clone();
            forged.push((key, value));
            prop_assert_eq!(
                twilio().verify_form(&url, &forged, Some(&header)),
                Err(SignatureError::Mismatch)
            );
        }

        #[test]
        fn changed_signature_character_fails(
            url in url_strategy(),
            params in params_strategy(),
            index in any::<prop::sample::Index>(),
            replacement in any::<char>(),
        ) {
            let header = twilio().sign(&url, &params);
            let mut chars: Vec<char> = header.chars().collect();
            let changed = index.index(chars.len());
            prop_assume!(chars[changed] != replacement);
            chars[changed] = replacement;
            let forged: String = chars.into_iter().collect();
            prop_assert_eq!(
                twilio().verify_form(&url, &params, Some(&forged)),
                Err(SignatureError::Mismatch)
            );
        }

        #[test]
        fn arbitrary_input_never_panics(
            url in prop_oneof![any::<String>(), url_strategy(), "[a-zA-Z]{0,6}://[\\[\\]@:a-z0-9]{0,16}.*"],
            header in prop::option::of(any::<String>()),
            body in prop::collection::vec(any::<u8>(), 0..64),
            params in params_strategy(),
        ) {
            let _ = twilio().verify_form(&url, &params, header.as_deref());
            let _ = twilio().verify_json(&url, &body, header.as_deref());
        }
    }
}
