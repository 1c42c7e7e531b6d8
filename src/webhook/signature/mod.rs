//! Webhook request signatures (spec section 5.2).
//!
//! Every webhook request carries the header
//! `X-SVC-Signature: t=<unix_seconds>,v1=<hex>`. The `v1` value is the
//! lowercase hex HMAC-SHA256, keyed with the webhook secret's bytes, of the
//! decimal timestamp, a `.`, and the raw request body bytes.
//!
//! A [`Signer`] produces header values; a [`Verifier`] checks them against
//! one or more secrets (to allow rotation) and a replay tolerance. The core
//! API is pure: the current time is passed in as Unix seconds. The `*_now`
//! methods are thin wrappers reading [`SystemTime::now`].
//!
//! ```
//! use agentcall::WebhookSecret;
//! use agentcall::webhook::signature::{Signer, Verifier, VerifyError};
//!
//! let secret = WebhookSecret::from("whsec_example");
//! let body = br#"{"eventId":"evt_1","type":"call.completed"}"#;
//! let t = 1_700_000_000;
//!
//! let header = Signer::new(&secret).sign(t, body);
//! assert!(header.starts_with("t=1700000000,v1="));
//!
//! let verifier = Verifier::new([secret]);
//! let verified = verifier.verify(body, Some(&header), t + 5)?;
//! assert_eq!(verified.timestamp, t);
//!
//! // A modified body does not verify.
//! assert_eq!(
//!     verifier.verify(b"{}", Some(&header), t + 5),
//!     Err(VerifyError::SignatureMismatch)
//! );
//! # Ok::<(), VerifyError>(())
//! ```
//!
//! # Header parsing rules
//!
//! * The header is a comma-separated list of `key=value` items. Spaces and
//!   tabs around items and around the `=` are ignored (so `t=1, v1=…` and
//!   `t = 1 ,v1= …` are accepted). Empty items (`,,`, a trailing comma) are
//!   skipped. An entirely empty header, or a non-empty item without `=`, is
//!   [`VerifyError::Malformed`].
//! * Items may come in any order. Keys are case-sensitive.
//! * Exactly one `t` item is required; a second one is malformed. Its value
//!   must be one or more ASCII digits that fit in an `i64`. Signs (`-5`,
//!   `+5`) are rejected as malformed: the sender never produces them and a
//!   pre-1970 timestamp is never legitimate. The MAC is computed over the
//!   `t` digits exactly as they appear in the header.
//! * Every `v1` item is a candidate signature; a request is accepted when any
//!   candidate matches the MAC under any configured secret. Candidates are
//!   compared in constant time ([`subtle::ConstantTimeEq`]) after decoding
//!   to 32 bytes. Hex is accepted in either case.
//! * A `v1` value that is not 64 hex digits is a non-match and is otherwise
//!   ignored, so one bad entry does not prevent another from matching. If
//!   *no* `v1` value is well formed the header is reported as
//!   [`VerifyError::Malformed`] ([`MalformedReason::InvalidV1`]), which makes
//!   misconfigured senders easy to diagnose.
//! * Other schemes (`v0`, `v2`, any unknown key) are ignored, never trusted.
//!   A header without any `v1` item is [`VerifyError::NoV1Signature`].
//!
//! # Check order
//!
//! Header syntax is checked first, then the signature, then the timestamp.
//! [`VerifyError::TooOld`] and [`VerifyError::TooFarInFuture`] are therefore
//! only returned for authentic requests (e.g. a replayed delivery).

use std::fmt;
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use hmac::{Hmac, Mac};
use sha2::Sha256;
use subtle::ConstantTimeEq;

use crate::domain::WebhookSecret;

/// Name of the HTTP header carrying the webhook signature.
pub const SIGNATURE_HEADER: &str = "X-SVC-Signature";

/// Default replay tolerance: a request is rejected when its timestamp is
/// 300 seconds old or older, or more than 300 seconds in the future.
pub const DEFAULT_TOLERANCE: Duration = Duration::from_secs(300);

type HmacSha256 = Hmac<Sha256>;

/// Length in bytes of an HMAC-SHA256 signature.
const SIG_LEN: usize = 32;

const HEX_DIGITS: &[u8; 16] = b"0123456789abcdef";

fn keyed_state(secret: &WebhookSecret) -> HmacSha256 {
    // HMAC accepts keys of any length (long keys are hashed, short ones
    // padded), so `new_from_slice` cannot fail for HMAC-SHA256.
    <HmacSha256 as Mac>::new_from_slice(secret.expose_secret())
        .expect("HMAC-SHA256 accepts keys of any length")
}

/// Computes the signature using a pre-keyed state; `t` is the decimal
/// timestamp as it appears in the signed string.
fn mac_over(keyed: &HmacSha256, t: &[u8], body: &[u8]) -> [u8; SIG_LEN] {
    let mut mac = keyed.clone();
    mac.update(t);
    mac.update(b".");
    mac.update(body);
    mac.finalize().into_bytes().into()
}

/// Converts a [`SystemTime`] to Unix seconds (negative before 1970,
/// saturating at the `i64` bounds).
pub fn unix_seconds(time: SystemTime) -> i64 {
    match time.duration_since(UNIX_EPOCH) {
        Ok(after) => i64::try_from(after.as_secs()).unwrap_or(i64::MAX),
        Err(before) => {
            let secs = before.duration().as_secs();
            i64::try_from(secs).map_or(i64::MIN, |s| -s)
        }
    }
}

/// Signs outgoing webhook requests with one secret.
///
/// The keyed HMAC state is computed once in [`Signer::new`] and cloned for
/// each message, so signing does not re-derive the key. `Debug` does not
/// print the secret.
#[derive(Clone)]
pub struct Signer {
    keyed: HmacSha256,
}

impl Signer {
    /// Creates a signer for `secret`.
    pub fn new(secret: &WebhookSecret) -> Self {
        Self {
            keyed: keyed_state(secret),
        }
    }

    /// Returns the raw HMAC-SHA256 of `"{t}.{body}"`.
    pub fn signature(&self, t: i64, body: &[u8]) -> [u8; SIG_LEN] {
        let mut buf = itoa::Buffer::new();
        mac_over(&self.keyed, buf.format(t).as_bytes(), body)
    }

    /// Returns the lowercase hex HMAC-SHA256 of `"{t}.{body}"` (the `v1`
    /// value).
    pub fn signature_hex(&self, t: i64, body: &[u8]) -> String {
        let mut out = String::with_capacity(2 * SIG_LEN);
        push_hex(&mut out, &self.signature(t, body));
        out
    }

    /// Returns the full [`SIGNATURE_HEADER`] value, `t=<t>,v1=<hex>`.
    ///
    /// `t` should be the current Unix time in seconds. A negative `t` yields
    /// a header that [`Verifier`] rejects as malformed.
    pub fn sign(&self, t: i64, body: &[u8]) -> String {
        let mut buf = itoa::Buffer::new();
        let t_str = buf.format(t);
        let sig = mac_over(&self.keyed, t_str.as_bytes(), body);
        let mut out = String::with_capacity(2 + t_str.len() + 4 + 2 * SIG_LEN);
        out.push_str("t=");
        out.push_str(t_str);
        out.push_str(",v1=");
        push_hex(&mut out, &sig);
        out
    }

    /// Like [`sign`](Self::sign) with `t` taken from [`SystemTime::now`].
    pub fn sign_now(&self, body: &[u8]) -> String {
        self.sign(unix_seconds(SystemTime::now()), body)
    }
}

impl fmt::Debug for Signer {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Signer")
            .field("secret", &format_args!("[redacted]"))
            .finish()
    }
}

fn push_hex(out: &mut String, bytes: &[u8]) {
    for &b in bytes {
        out.push(char::from(HEX_DIGITS[usize::from(b >> 4)]));
        out.push(char::from(HEX_DIGITS[usize::from(b & 0x0f)]));
    }
}

/// The value of each byte as a hex digit (either case); `NOT_HEX` otherwise.
const HEX_VALUES: [u8; 256] = {
    let mut table = [NOT_HEX; 256];
    let mut i = 0;
    while i < 10 {
        table[b'0' as usize + i] = i as u8;
        i += 1;
    }
    let mut i = 0;
    while i < 6 {
        table[b'a' as usize + i] = 10 + i as u8;
        table[b'A' as usize + i] = 10 + i as u8;
        i += 1;
    }
    table
};
const NOT_HEX: u8 = 0xff;

/// Decodes exactly 64 hex digits (either case) into 32 bytes.
fn decode_sig(s: &str) -> Option<[u8; SIG_LEN]> {
    let bytes: &[u8; 2 * SIG_LEN] = s.as_bytes().try_into().ok()?;
    let mut out = [0u8; SIG_LEN];
    // OR-ing every digit's value flags any non-hex byte once, at the end.
    let mut invalid = 0u8;
    for (o, pair) in out.iter_mut().zip(bytes.chunks_exact(2)) {
        let (high, low) = (
            HEX_VALUES[usize::from(pair[0])],
            HEX_VALUES[usize::from(pair[1])],
        );
        invalid |= (high | low) & 0xf0;
        *o = (high << 4) | (low & 0x0f);
    }
    (invalid == 0).then_some(out)
}

/// Constant-time equality of two signatures: the difference is folded into
/// one word without branches, and only that word goes through `subtle`'s
/// optimisation barrier (one barrier, not one per byte).
fn same_signature(a: &[u8; SIG_LEN], b: &[u8; SIG_LEN]) -> bool {
    let mut diff = 0u64;
    for (x, y) in a.chunks_exact(8).zip(b.chunks_exact(8)) {
        let word = |c: &[u8]| u64::from_ne_bytes(c.try_into().unwrap_or_default());
        diff |= word(x) ^ word(y);
    }
    bool::from(diff.ct_eq(&0))
}

/// Why a signature header could not be parsed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum MalformedReason {
    /// The header is empty or only whitespace.
    Empty,
    /// A non-empty item has no `=`.
    ItemWithoutEquals,
    /// No `t` item.
    MissingTimestamp,
    /// More than one `t` item.
    DuplicateTimestamp,
    /// The `t` value is empty or not made only of ASCII digits (signs are
    /// rejected).
    InvalidTimestamp,
    /// The `t` value does not fit in an `i64`.
    TimestampOutOfRange,
    /// `v1` items are present but none is 64 hex digits.
    InvalidV1,
}

impl fmt::Display for MalformedReason {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Self::Empty => "header is empty",
            Self::ItemWithoutEquals => "item without '='",
            Self::MissingTimestamp => "missing 't' item",
            Self::DuplicateTimestamp => "duplicate 't' item",
            Self::InvalidTimestamp => "'t' is not an unsigned decimal integer",
            Self::TimestampOutOfRange => "'t' is out of range",
            Self::InvalidV1 => "no 'v1' value is 64 hex digits",
        })
    }
}

/// Why a webhook request failed verification.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum VerifyError {
    /// The request has no signature header.
    #[error("missing {SIGNATURE_HEADER} header")]
    MissingHeader,
    /// The signature header could not be parsed.
    #[error("malformed {SIGNATURE_HEADER} header: {0}")]
    Malformed(MalformedReason),
    /// The header has no `v1` item (only unknown schemes, if any).
    #[error("{SIGNATURE_HEADER} header has no v1 signature")]
    NoV1Signature,
    /// No `v1` signature matches any configured secret.
    #[error("webhook signature does not match")]
    SignatureMismatch,
    /// The signature is valid but the timestamp is at least the tolerance
    /// old.
    #[error("webhook timestamp is too old ({age_secs} s)")]
    TooOld {
        /// Age of the timestamp in whole seconds.
        age_secs: u64,
    },
    /// The signature is valid but the timestamp is more than the tolerance
    /// in the future.
    #[error("webhook timestamp is too far in the future ({ahead_secs} s ahead)")]
    TooFarInFuture {
        /// How far ahead of `now` the timestamp is, in whole seconds.
        ahead_secs: u64,
    },
}

/// A successfully verified signature.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub struct VerifiedSignature {
    /// The signed timestamp (`t`), in Unix seconds.
    pub timestamp: i64,
    /// Index, in the order given to [`Verifier::new`], of the secret that
    /// matched.
    pub secret_index: usize,
}

/// Verifies incoming webhook requests against one or more secrets.
///
/// Several secrets allow rotation: a request is accepted when any `v1`
/// signature in its header matches any secret. Keyed HMAC states are
/// precomputed once. `Debug` does not print secrets.
///
/// With no secrets every request fails with
/// [`VerifyError::SignatureMismatch`].
#[derive(Clone)]
pub struct Verifier {
    keys: Vec<HmacSha256>,
    tolerance: Duration,
}

impl Verifier {
    /// Creates a verifier for `secrets` with [`DEFAULT_TOLERANCE`].
    pub fn new(secrets: impl IntoIterator<Item = WebhookSecret>) -> Self {
        Self {
            keys: secrets.into_iter().map(|s| keyed_state(&s)).collect(),
            tolerance: DEFAULT_TOLERANCE,
        }
    }

    /// Sets the replay tolerance: requests whose timestamp is `tolerance` old
    /// or older, or more than `tolerance` in the future, are rejected. A zero
    /// tolerance rejects every request.
    #[must_use]
    pub fn tolerance(mut self, tolerance: Duration) -> Self {
        self.tolerance = tolerance;
        self
    }

    /// Verifies `body` against the [`SIGNATURE_HEADER`] value `header`
    /// (`None` when the request had no such header) at time `now` (Unix
    /// seconds).
    pub fn verify(
        &self,
        body: &[u8],
        header: Option<&str>,
        now: i64,
    ) -> Result<VerifiedSignature, VerifyError> {
        let header = header.ok_or(VerifyError::MissingHeader)?;
        verify_with(&self.keys, self.tolerance, body, header, now)
    }

    /// Like [`verify`](Self::verify) with `now` given as a [`SystemTime`].
    pub fn verify_at(
        &self,
        body: &[u8],
        header: Option<&str>,
        now: SystemTime,
    ) -> Result<VerifiedSignature, VerifyError> {
        self.verify(body, header, unix_seconds(now))
    }

    /// Like [`verify`](Self::verify) with `now` taken from
    /// [`SystemTime::now`].
    pub fn verify_now(
        &self,
        body: &[u8],
        header: Option<&str>,
    ) -> Result<VerifiedSignature, VerifyError> {
        self.verify_at(body, header, SystemTime::now())
    }
}

impl fmt::Debug for Verifier {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Verifier")
            .field("secrets", &format_args!("[{} redacted]", self.keys.len()))
            .field("tolerance", &self.tolerance)
            .finish()
    }
}

/// Verifies `body` against `header` with a single `secret` and
/// [`DEFAULT_TOLERANCE`] at time `now` (Unix seconds).
///
/// Prefer a long-lived [`Verifier`] when verifying many requests.
pub fn verify(
    body: &[u8],
    header: &str,
    secret: &WebhookSecret,
    now: i64,
) -> Result<VerifiedSignature, VerifyError> {
    verify_with(
        std::slice::from_ref(&keyed_state(secret)),
        DEFAULT_TOLERANCE,
        body,
        header,
        now,
    )
}

fn trim_ows(s: &str) -> &str {
    s.trim_matches(|c| c == ' ' || c == '\t')
}

/// Iterates the non-empty `(key, value)` items of a header, both trimmed.
fn items(header: &str) -> impl Iterator<Item = Result<(&str, &str), MalformedReason>> {
    header
        .split(',')
        .map(trim_ows)
        .filter(|i| !i.is_empty())
        .map(|item| {
            item.split_once('=')
                .map(|(k, v)| (trim_ows(k), trim_ows(v)))
                .ok_or(MalformedReason::ItemWithoutEquals)
        })
}

fn parse_timestamp(s: &str) -> Result<i64, MalformedReason> {
    if s.is_empty() || !s.bytes().all(|b| b.is_ascii_digit()) {
        return Err(MalformedReason::InvalidTimestamp);
    }
    // Only digits remain, so the sole possible error is overflow.
    s.parse::<i64>()
        .map_err(|_| MalformedReason::TimestampOutOfRange)
}

/// A header carries one `v1` signature per active secret of the sender;
/// rotation needs two, so up to two are decoded once onto the stack. A
/// header with more is read again for each secret (correct, only slower).
const INLINE_V1: usize = 2;

/// A signature header, read: the timestamp as written and as a number, and
/// the valid `v1` signatures (the first `INLINE_V1` of them decoded).
struct Parsed<'h> {
    t_raw: &'h str,
    t: i64,
    candidates: [[u8; SIG_LEN]; INLINE_V1],
    valid_v1: usize,
}

/// The header exactly as [`Signer`] writes it, `t=<digits>,v1=<64 hex>`,
/// read in one scan. Anything else (spaces, other items, several
/// signatures) goes through [`parse_header`], which gives this same result
/// for this form.
fn canonical(header: &str) -> Option<Parsed<'_>> {
    let (t_raw, signature) = header.strip_prefix("t=")?.split_once(",v1=")?;
    let t = parse_timestamp(t_raw).ok()?;
    let mut candidates = [[0u8; SIG_LEN]; INLINE_V1];
    candidates[0] = decode_sig(signature)?;
    Some(Parsed {
        t_raw,
        t,
        candidates,
        valid_v1: 1,
    })
}

/// Any header: syntax, the timestamp, and the v1 signatures, decoded once
/// and kept on the stack (see `INLINE_V1`).
fn parse_header(header: &str) -> Result<Parsed<'_>, VerifyError> {
    let mut t_raw: Option<&str> = None;
    let mut any_item = false;
    let mut any_v1 = false;
    let mut candidates = [[0u8; SIG_LEN]; INLINE_V1];
    let mut valid_v1 = 0usize;
    for item in items(header) {
        let (key, value) = item.map_err(VerifyError::Malformed)?;
        any_item = true;
        match key {
            "t" if t_raw.is_some() => {
                return Err(VerifyError::Malformed(MalformedReason::DuplicateTimestamp));
            }
            "t" => t_raw = Some(value),
            "v1" => {
                any_v1 = true;
                if let Some(signature) = decode_sig(value) {
                    if let Some(slot) = candidates.get_mut(valid_v1) {
                        *slot = signature;
                    }
                    valid_v1 += 1;
                }
            }
            _ => {}
        }
    }
    if !any_item {
        return Err(VerifyError::Malformed(MalformedReason::Empty));
    }
    let t_raw = t_raw.ok_or(VerifyError::Malformed(MalformedReason::MissingTimestamp))?;
    let t = parse_timestamp(t_raw).map_err(VerifyError::Malformed)?;
    if !any_v1 {
        return Err(VerifyError::NoV1Signature);
    }
    if valid_v1 == 0 {
        return Err(VerifyError::Malformed(MalformedReason::InvalidV1));
    }
    Ok(Parsed {
        t_raw,
        t,
        candidates,
        valid_v1,
    })
}

fn verify_with(
    keys: &[HmacSha256],
    tolerance: Duration,
    body: &[u8],
    header: &str,
    now: i64,
) -> Result<VerifiedSignature, VerifyError> {
    let Parsed {
        t_raw,
        t,
        candidates,
        valid_v1,
    } = match canonical(header) {
        Some(parsed) => parsed,
        None => parse_header(header)?,
    };

    // One MAC per secret (from its pre-keyed state), compared in constant
    // time against every v1 candidate.
    let matches = |expected: &[u8; SIG_LEN]| {
        let same = |candidate: &[u8; SIG_LEN]| same_signature(expected, candidate);
        match candidates.get(..valid_v1) {
            Some(inline) => inline.iter().any(same),
            // More signatures than fit inline: read the header again.
            None => items(header)
                .filter_map(Result::ok)
                .filter(|&(k, _)| k == "v1")
                .filter_map(|(_, v)| decode_sig(v))
                .any(|candidate| same(&candidate)),
        }
    };
    let secret_index = keys
        .iter()
        .position(|key| matches(&mac_over(key, t_raw.as_bytes(), body)))
        .ok_or(VerifyError::SignatureMismatch)?;

    // Timestamp window, in i128 nanoseconds so nothing can overflow.
    let diff_secs = i128::from(now) - i128::from(t);
    let tolerance_nanos = i128::try_from(tolerance.as_nanos()).unwrap_or(i128::MAX);
    let to_u64 = |secs: i128| u64::try_from(secs).unwrap_or(u64::MAX);
    if diff_secs >= 0 && diff_secs * 1_000_000_000 >= tolerance_nanos {
        return Err(VerifyError::TooOld {
            age_secs: to_u64(diff_secs),
        });
    }
    if diff_secs < 0 && -diff_secs * 1_000_000_000 > tolerance_nanos {
        return Err(VerifyError::TooFarInFuture {
            ahead_secs: to_u64(-diff_secs),
        });
    }
    Ok(VerifiedSignature {
        timestamp: t,
        secret_index,
    })
}

#[cfg(test)]
mod tests;
