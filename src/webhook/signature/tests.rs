//! Tests of signing and verification: vectors, rotation, malformed headers
//! and properties.

use super::*;
use proptest::prelude::*;

const VECTOR_T: i64 = 1_636_936_200;
const VECTOR_BODY: &[u8] = b"hello !";
const VECTOR_SIG: &str = "1b3d69df55f1e52f05224ba94a5162abeb17ef52cd7f4948c390f810d6a87e98";

fn secret(s: &str) -> WebhookSecret {
    WebhookSecret::from(s)
}

fn vector_header() -> String {
    format!("t={VECTOR_T},v1={VECTOR_SIG}")
}

fn malformed(r: MalformedReason) -> Result<VerifiedSignature, VerifyError> {
    Err(VerifyError::Malformed(r))
}

#[test]
fn public_test_vector() {
    let signer = Signer::new(&secret("secret"));
    assert_eq!(signer.signature_hex(VECTOR_T, VECTOR_BODY), VECTOR_SIG);
    assert_eq!(hex_of(&signer.signature(VECTOR_T, VECTOR_BODY)), VECTOR_SIG);
    assert_eq!(signer.sign(VECTOR_T, VECTOR_BODY), vector_header());
    let ok = verify(VECTOR_BODY, &vector_header(), &secret("secret"), VECTOR_T).unwrap();
    assert_eq!(ok.timestamp, VECTOR_T);
    assert_eq!(ok.secret_index, 0);
}

fn hex_of(b: &[u8]) -> String {
    let mut s = String::new();
    push_hex(&mut s, b);
    s
}

#[test]
fn constants() {
    assert_eq!(SIGNATURE_HEADER, "X-SVC-Signature");
    assert_eq!(DEFAULT_TOLERANCE, Duration::from_secs(300));
}

#[test]
fn uppercase_hex_accepted() {
    let h = format!("t={VECTOR_T},v1={}", VECTOR_SIG.to_uppercase());
    assert!(verify(VECTOR_BODY, &h, &secret("secret"), VECTOR_T).is_ok());
}

#[test]
fn rotation_matches_last_secret() {
    let old = Signer::new(&secret("old"));
    let new = Signer::new(&secret("new"));
    let t = 1_700_000_000;
    let body = b"{\"eventId\":\"e\"}";
    let header = format!(
        "t={t},v1={},v1={}",
        new.signature_hex(t, body),
        old.signature_hex(t, body)
    );
    let v = Verifier::new([secret("x"), secret("y"), secret("old")]);
    let ok = v.verify(body, Some(&header), t).unwrap();
    assert_eq!(ok.secret_index, 2);
    let v = Verifier::new([secret("x"), secret("y"), secret("z")]);
    assert_eq!(
        v.verify(body, Some(&header), t),
        Err(VerifyError::SignatureMismatch)
    );
}

#[test]
fn bad_v1_entry_does_not_block_good_one() {
    let h = format!("t={VECTOR_T},v1=zz,v1={VECTOR_SIG},v1=abc");
    assert!(verify(VECTOR_BODY, &h, &secret("secret"), VECTOR_T).is_ok());
}

#[test]
fn unknown_schemes_ignored() {
    let v0_only = format!("t={VECTOR_T},v0={VECTOR_SIG}");
    assert_eq!(
        verify(VECTOR_BODY, &v0_only, &secret("secret"), VECTOR_T),
        Err(VerifyError::NoV1Signature)
    );
    let v2_only = format!("t={VECTOR_T},v2={VECTOR_SIG}");
    assert_eq!(
        verify(VECTOR_BODY, &v2_only, &secret("secret"), VECTOR_T),
        Err(VerifyError::NoV1Signature)
    );
    let mixed = format!("v0=abc,t={VECTOR_T},v2=whatever,v1={VECTOR_SIG},x=1=2");
    assert!(verify(VECTOR_BODY, &mixed, &secret("secret"), VECTOR_T).is_ok());
    // Keys are case-sensitive: V1 is an unknown scheme.
    let upper = format!("t={VECTOR_T},V1={VECTOR_SIG}");
    assert_eq!(
        verify(VECTOR_BODY, &upper, &secret("secret"), VECTOR_T),
        Err(VerifyError::NoV1Signature)
    );
}

#[test]
fn whitespace_and_ordering_variants() {
    let variants = [
        format!("v1={VECTOR_SIG},t={VECTOR_T}"),
        format!("t={VECTOR_T}, v1={VECTOR_SIG}"),
        format!("  t={VECTOR_T} ,\tv1={VECTOR_SIG}  "),
        format!("t = {VECTOR_T} , v1 = {VECTOR_SIG}"),
        format!("v1={VECTOR_SIG}, t={VECTOR_T},"),
        format!(",t={VECTOR_T},,v1={VECTOR_SIG}"),
    ];
    for h in &variants {
        assert!(
            verify(VECTOR_BODY, h, &secret("secret"), VECTOR_T).is_ok(),
            "{h:?}"
        );
    }
}

#[test]
fn age_boundaries() {
    let s = secret("secret");
    let h = vector_header();
    let at = |age: i64| verify(VECTOR_BODY, &h, &s, VECTOR_T + age);
    assert!(at(0).is_ok());
    assert!(at(299).is_ok());
    assert_eq!(at(300), Err(VerifyError::TooOld { age_secs: 300 }));
    assert_eq!(at(301), Err(VerifyError::TooOld { age_secs: 301 }));
    assert!(at(-1).is_ok());
    assert!(at(-300).is_ok());
    assert_eq!(
        at(-301),
        Err(VerifyError::TooFarInFuture { ahead_secs: 301 })
    );
}

#[test]
fn custom_tolerance() {
    let v = Verifier::new([secret("secret")]).tolerance(Duration::from_secs(10));
    let h = vector_header();
    assert!(v.verify(VECTOR_BODY, Some(&h), VECTOR_T + 9).is_ok());
    assert_eq!(
        v.verify(VECTOR_BODY, Some(&h), VECTOR_T + 10),
        Err(VerifyError::TooOld { age_secs: 10 })
    );
    assert!(v.verify(VECTOR_BODY, Some(&h), VECTOR_T - 10).is_ok());
    assert_eq!(
        v.verify(VECTOR_BODY, Some(&h), VECTOR_T - 11),
        Err(VerifyError::TooFarInFuture { ahead_secs: 11 })
    );
    let half = Verifier::new([secret("secret")]).tolerance(Duration::from_millis(10_500));
    assert!(half.verify(VECTOR_BODY, Some(&h), VECTOR_T + 10).is_ok());
    assert!(half.verify(VECTOR_BODY, Some(&h), VECTOR_T + 11).is_err());
    let zero = Verifier::new([secret("secret")]).tolerance(Duration::ZERO);
    assert_eq!(
        zero.verify(VECTOR_BODY, Some(&h), VECTOR_T),
        Err(VerifyError::TooOld { age_secs: 0 })
    );
    let huge = Verifier::new([secret("secret")]).tolerance(Duration::MAX);
    assert!(huge.verify(VECTOR_BODY, Some(&h), i64::MAX).is_ok());
    assert!(huge.verify(VECTOR_BODY, Some(&h), i64::MIN).is_ok());
}

#[test]
fn tampered_body_and_wrong_secret() {
    let h = vector_header();
    assert_eq!(
        verify(b"hello!", &h, &secret("secret"), VECTOR_T),
        Err(VerifyError::SignatureMismatch)
    );
    assert_eq!(
        verify(VECTOR_BODY, &h, &secret("Secret"), VECTOR_T),
        Err(VerifyError::SignatureMismatch)
    );
    // A different t with the same v1 must not verify either.
    let shifted = format!("t={},v1={VECTOR_SIG}", VECTOR_T + 1);
    assert_eq!(
        verify(VECTOR_BODY, &shifted, &secret("secret"), VECTOR_T),
        Err(VerifyError::SignatureMismatch)
    );
    // Leading zeros change the signed string.
    let padded = format!("t=0{VECTOR_T},v1={VECTOR_SIG}");
    assert_eq!(
        verify(VECTOR_BODY, &padded, &secret("secret"), VECTOR_T),
        Err(VerifyError::SignatureMismatch)
    );
}

#[test]
fn stale_forgery_reports_mismatch_not_age() {
    let h = format!("t=1,v1={}", "0".repeat(64));
    assert_eq!(
        verify(b"x", &h, &secret("secret"), VECTOR_T),
        Err(VerifyError::SignatureMismatch)
    );
}

#[test]
fn missing_header_and_no_secrets() {
    let v = Verifier::new([secret("secret")]);
    assert_eq!(
        v.verify(VECTOR_BODY, None, VECTOR_T),
        Err(VerifyError::MissingHeader)
    );
    let empty = Verifier::new(Vec::new());
    assert_eq!(
        empty.verify(VECTOR_BODY, Some(&vector_header()), VECTOR_T),
        Err(VerifyError::SignatureMismatch)
    );
}

#[test]
fn malformed_headers() {
    use MalformedReason::*;
    let s = secret("secret");
    let sig = VECTOR_SIG;
    let cases: &[(&str, MalformedReason)] = &[
        ("", Empty),
        ("   ", Empty),
        (",", Empty),
        ("t=", InvalidTimestamp),
        ("t=abc", InvalidTimestamp),
        ("t=1,v1=zz", InvalidV1),
        ("t=1,v1=", InvalidV1),
        ("garbage", ItemWithoutEquals),
        ("t=1,v1", ItemWithoutEquals),
        ("t=99999999999999999999", TimestampOutOfRange),
        ("t=9223372036854775808", TimestampOutOfRange),
        ("t=-1", InvalidTimestamp),
        ("t=+1", InvalidTimestamp),
        ("t=1 2", InvalidTimestamp),
        ("t=1.5", InvalidTimestamp),
        ("t=１", InvalidTimestamp),
    ];
    for &(h, reason) in cases {
        assert_eq!(verify(b"", h, &s, 0), malformed(reason), "{h:?}");
    }
    let owned = [
        (format!("v1={sig}"), MissingTimestamp),
        (format!("t=1,t=1,v1={sig}"), DuplicateTimestamp),
        (format!("t=1,v1={sig},t=2"), DuplicateTimestamp),
        (format!("t=-1636936200,v1={sig}"), InvalidTimestamp),
        (
            format!("t=99999999999999999999,v1={sig}"),
            TimestampOutOfRange,
        ),
        (format!("t=1,v1={}", &sig[..63]), InvalidV1),
        (format!("t=1,v1={sig}0"), InvalidV1),
    ];
    for (h, reason) in &owned {
        assert_eq!(verify(b"", h, &s, 0), malformed(*reason), "{h:?}");
    }
}

#[test]
fn extreme_timestamps_do_not_overflow() {
    let signer = Signer::new(&secret("k"));
    let v = Verifier::new([secret("k")]);
    let h = signer.sign(i64::MAX, b"b");
    assert_eq!(
        v.verify(b"b", Some(&h), i64::MIN),
        Err(VerifyError::TooFarInFuture {
            ahead_secs: u64::MAX
        })
    );
    let h0 = signer.sign(0, b"b");
    assert_eq!(
        v.verify(b"b", Some(&h0), i64::MAX),
        Err(VerifyError::TooOld {
            age_secs: i64::MAX as u64
        })
    );
    assert!(v.verify(b"b", Some(&h), i64::MAX).is_ok());
    // A negative t from the signer is rejected by the verifier.
    let neg = signer.sign(-5, b"b");
    assert_eq!(
        v.verify(b"b", Some(&neg), -5),
        malformed(MalformedReason::InvalidTimestamp)
    );
}

#[test]
fn debug_and_display_do_not_leak() {
    let s = secret("topsecretvalue");
    let signer = Signer::new(&s);
    let v = Verifier::new([s.clone(), s]);
    for dbg in [format!("{signer:?}"), format!("{v:?}")] {
        assert!(!dbg.contains("topsecret"), "{dbg}");
        assert!(dbg.contains("redacted"), "{dbg}");
    }
    assert_eq!(
        VerifyError::Malformed(MalformedReason::DuplicateTimestamp).to_string(),
        "malformed X-SVC-Signature header: duplicate 't' item"
    );
    assert_eq!(
        VerifyError::TooOld { age_secs: 300 }.to_string(),
        "webhook timestamp is too old (300 s)"
    );
    let _: &dyn std::error::Error = &VerifyError::SignatureMismatch;
}

#[test]
fn system_time_helpers() {
    assert_eq!(unix_seconds(UNIX_EPOCH), 0);
    assert_eq!(
        unix_seconds(UNIX_EPOCH + Duration::from_secs(VECTOR_T as u64)),
        VECTOR_T
    );
    assert_eq!(unix_seconds(UNIX_EPOCH - Duration::from_secs(5)), -5);
    let s = secret("k");
    let v = Verifier::new([s.clone()]);
    let h = Signer::new(&s).sign_now(b"x");
    assert!(v.verify_now(b"x", Some(&h)).is_ok());
    let at = UNIX_EPOCH + Duration::from_secs(VECTOR_T as u64 + 1);
    let v = Verifier::new([secret("secret")]);
    assert!(v.verify_at(VECTOR_BODY, Some(&vector_header()), at).is_ok());
}

proptest! {
    #[test]
    fn verify_never_panics(header in ".*", body in proptest::collection::vec(any::<u8>(), 0..64), now in any::<i64>()) {
        let v = Verifier::new([secret("a"), secret("b")]);
        let _ = v.verify(&body, Some(&header), now);
    }

    #[test]
    fn verify_never_panics_on_header_like_input(
        header in "[tv01 ,=\t-]{0,8}(t=[0-9-]{0,25})?[, ]{0,2}(v1=[0-9a-fA-Fz]{0,66})?[tv012 ,=]{0,8}",
        now in any::<i64>(),
    ) {
        let v = Verifier::new([secret("a")]);
        let _ = v.verify(b"body", Some(&header), now);
    }

    #[test]
    fn sign_verify_round_trip(
        key in proptest::collection::vec(any::<u8>(), 0..100),
        body in proptest::collection::vec(any::<u8>(), 0..512),
        t in 0..=i64::MAX,
        age in -300i64..300,
    ) {
        let s = WebhookSecret::new(key);
        let header = Signer::new(&s).sign(t, &body);
        let now = t.saturating_add(age);
        prop_assume!(now - t == age);
        let ok = Verifier::new([s.clone()]).verify(&body, Some(&header), now).unwrap();
        prop_assert_eq!(ok.timestamp, t);
        prop_assert_eq!(verify(&body, &header, &s, now), Ok(ok));
    }

    #[test]
    fn flipped_body_byte_never_verifies(
        key in proptest::collection::vec(any::<u8>(), 0..64),
        body in proptest::collection::vec(any::<u8>(), 1..256),
        idx in any::<prop::sample::Index>(),
        bit in 0u8..8,
        t in 0i64..4_000_000_000,
    ) {
        let s = WebhookSecret::new(key);
        let header = Signer::new(&s).sign(t, &body);
        let mut tampered = body.clone();
        let i = idx.index(tampered.len());
        tampered[i] ^= 1 << bit;
        prop_assert_eq!(
            verify(&tampered, &header, &s, t),
            Err(VerifyError::SignatureMismatch)
        );
    }
}

proptest! {
    /// Wherever the matching signature sits among up to eight `v1` items
    /// (beyond the two decoded inline too), verification finds it, and a
    /// header of only wrong signatures is a mismatch.
    #[test]
    fn the_matching_v1_is_found_at_any_position(count in 1usize..=8, position in 0usize..8) {
        let position = position % count;
        let signer = Signer::new(&secret("current"));
        let decoy = Signer::new(&secret("decoy"));
        let t = 1_700_000_000;
        let body = b"{\"eventId\":\"e\"}";
        let mut header = format!("t={t}");
        for index in 0..count {
            let by = if index == position { &signer } else { &decoy };
            header.push_str(&format!(",v1={}", by.signature_hex(t, body)));
        }
        let verifier = Verifier::new([secret("other"), secret("current")]);
        let verified = verifier.verify(body, Some(&header), t);
        prop_assert_eq!(verified.map(|v| v.secret_index), Ok(1));
        let only_decoys = header.replace(&signer.signature_hex(t, body), &decoy.signature_hex(t, body));
        prop_assert_eq!(
            verifier.verify(body, Some(&only_decoys), t),
            Err(VerifyError::SignatureMismatch)
        );
    }
}

proptest! {
    /// The table decoder agrees with the `hex` crate on 64-character inputs
    /// of hex digits (either case) mixed with other bytes, and on lengths.
    #[test]
    fn signature_hex_decodes_like_the_hex_crate(
        text in prop_oneof!["[0-9a-fA-F]{64}", "[0-9a-fA-F]{63}[g-z/:@`G ]", "[0-9a-fA-Fg-z/:@`G ]{60,68}"],
        a in any::<[u8; 32]>(),
        b in any::<[u8; 32]>(),
    ) {
        let reference = hex::decode(&text).ok().and_then(|v| <[u8; 32]>::try_from(v).ok());
        prop_assert_eq!(decode_sig(&text), reference);
        prop_assert_eq!(same_signature(&a, &b), a == b);
        prop_assert!(same_signature(&a, &a));
    }
}

proptest! {
    /// Whenever the one-scan reader accepts a header, the general parser
    /// reads the same timestamp and the same single signature from it.
    #[test]
    fn the_canonical_reader_agrees_with_the_general_parser(
        header in prop_oneof![
            "t=[0-9]{0,21},v1=[0-9a-fA-F]{63,65}",
            "t=[0-9 ]{1,12},v1=[0-9a-f,=v1 ]{60,70}",
            "[tv1= ,0-9a-f]{0,90}",
        ],
    ) {
        if let Some(fast) = canonical(&header) {
            let general = parse_header(&header).expect("the general parser accepts it too");
            prop_assert_eq!(fast.t_raw, general.t_raw);
            prop_assert_eq!(fast.t, general.t);
            prop_assert_eq!(fast.valid_v1, general.valid_v1);
            prop_assert_eq!(fast.candidates[0], general.candidates[0]);
        }
    }
}
