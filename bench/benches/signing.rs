//! Webhook signing and verification against the bare HMAC floor and peers.
//!
//! Run with `cargo bench --bench signing`; BENCHMARKS.md explains every row.
//!
//! * `sign/*`, `verify/*`: our [`Signer`] and [`Verifier`] (one secret, and
//!   three rotated secrets matching on the last).
//! * `floor_rustcrypto`: a bare `Hmac<Sha256>` (RustCrypto, SHA-NI when the
//!   CPU has it) keyed per message over `t` + `.` + body, the `v1` bytes.
//! * `floor_rustcrypto_prekeyed`: the same with the keyed state built once
//!   and cloned per message (what [`Signer`] does internally).
//! * `floor_ring`: `ring::hmac` keyed per message, the second floor.
//! * `standardwebhooks`: the Standard Webhooks reference verifier (the code
//!   the `svix` crate ships).
//! * `stripe`: `async-stripe-webhook`'s `Webhook::construct_event_with_timestamp`,
//!   Stripe's `t=…,v1=…` scheme (see `stripe_verify` for what is measured).
#![allow(missing_docs)]

use std::hint::black_box;
use std::time::Duration;

use agentcall::WebhookSecret;
use agentcall::webhook::signature::{Signer, Verifier};
use criterion::{BenchmarkId, Criterion, Throughput, criterion_group, criterion_main};
use hmac::{Hmac, Mac};
use sha2::Sha256;

const SIZES: [usize; 3] = [256, 1024, 16 * 1024];
const T: i64 = 1_700_000_000;
const SECRET: &str = "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw";
const OLD_SECRETS: [&str; 2] = [
    "whsec_retired_one_4b1d0e7c2f6a9d3e",
    "whsec_retired_two_8a2c5f1e7d3b6c90",
];

/// A JSON event body of exactly `len` bytes (ASCII, so valid UTF-8 for the
/// peers that want a `&str`).
fn body(len: usize) -> String {
    let head = r#"{"eventId":"evt_0f3c2a","type":"call.completed","callId":"call_5d41402abc4b2a76b9719d911017c592","data":{"pad":""#;
    let tail = r#""}}"#;
    let mut out = String::with_capacity(len);
    out.push_str(head);
    let pad = len - head.len() - tail.len();
    out.extend((0..pad).map(|i| char::from(b'a' + (i % 26) as u8)));
    out.push_str(tail);
    assert_eq!(out.len(), len);
    out
}

fn secret() -> WebhookSecret {
    WebhookSecret::from(SECRET)
}

/// The floor: key set-up plus one HMAC-SHA256 over `t.body`.
fn floor_rustcrypto(key: &[u8], t: &str, body: &[u8]) -> [u8; 32] {
    let mut mac = <Hmac<Sha256> as Mac>::new_from_slice(key).expect("any key length");
    mac.update(t.as_bytes());
    mac.update(b".");
    mac.update(body);
    mac.finalize().into_bytes().into()
}

/// The floor with the keyed state built once and cloned per message.
fn floor_prekeyed(keyed: &Hmac<Sha256>, t: &str, body: &[u8]) -> [u8; 32] {
    let mut mac = keyed.clone();
    mac.update(t.as_bytes());
    mac.update(b".");
    mac.update(body);
    mac.finalize().into_bytes().into()
}

fn floor_ring(key: &[u8], t: &str, body: &[u8]) -> ring::hmac::Tag {
    let key = ring::hmac::Key::new(ring::hmac::HMAC_SHA256, key);
    let mut ctx = ring::hmac::Context::with_key(&key);
    ctx.update(t.as_bytes());
    ctx.update(b".");
    ctx.update(body);
    ctx.sign()
}

/// Stripe's verifier: it checks the signature, then parses the payload as a
/// Stripe event. The payload is the same length as ours but starts with a
/// byte that stops the JSON parser at once, so what is timed is the
/// signature check (plus a one-byte parse attempt); `BadParse` proves the
/// signature passed.
fn stripe_verify(payload: &str, header: &str, now: i64) -> bool {
    matches!(
        stripe_webhook::Webhook::construct_event_with_timestamp(payload, header, SECRET, now),
        Err(stripe_webhook::WebhookError::BadParse(_))
    )
}

fn bench_sign(c: &mut Criterion) {
    let secret = secret();
    let signer = Signer::new(&secret);
    let key = secret.expose_secret().to_vec();
    let prekeyed = <Hmac<Sha256> as Mac>::new_from_slice(&key).expect("any key length");
    let t = T.to_string();
    let mut group = c.benchmark_group("sign");
    for size in SIZES {
        let body = body(size);
        let body = body.as_bytes();
        group.throughput(Throughput::Bytes(size as u64));
        group.bench_with_input(BenchmarkId::new("ours", size), body, |b, body| {
            b.iter(|| signer.sign(black_box(T), black_box(body)))
        });
        group.bench_with_input(
            BenchmarkId::new("floor_rustcrypto", size),
            body,
            |b, body| b.iter(|| floor_rustcrypto(black_box(&key), black_box(&t), black_box(body))),
        );
        group.bench_with_input(
            BenchmarkId::new("floor_rustcrypto_prekeyed", size),
            body,
            |b, body| {
                b.iter(|| floor_prekeyed(black_box(&prekeyed), black_box(&t), black_box(body)))
            },
        );
        group.bench_with_input(BenchmarkId::new("floor_ring", size), body, |b, body| {
            b.iter(|| floor_ring(black_box(&key), black_box(&t), black_box(body)))
        });
    }
    group.finish();
}

fn bench_verify(c: &mut Criterion) {
    let secret = secret();
    let signer = Signer::new(&secret);
    let key = secret.expose_secret().to_vec();
    let one = Verifier::new([secret.clone()]);
    let rotated = Verifier::new(
        OLD_SECRETS
            .iter()
            .map(|s| WebhookSecret::from(*s))
            .chain([secret.clone()]),
    );
    let prekeyed = <Hmac<Sha256> as Mac>::new_from_slice(&key).expect("any key length");
    let standard = standardwebhooks::Webhook::from_bytes(key.clone()).expect("raw key");
    let t = T.to_string();
    let mut group = c.benchmark_group("verify");
    for size in SIZES {
        let body = body(size);
        let header = signer.sign(T, body.as_bytes());
        assert_eq!(
            one.verify(body.as_bytes(), Some(&header), T)
                .map(|v| v.secret_index),
            Ok(0)
        );
        assert_eq!(
            rotated
                .verify(body.as_bytes(), Some(&header), T)
                .map(|v| v.secret_index),
            Ok(2)
        );
        group.throughput(Throughput::Bytes(size as u64));
        group.bench_function(BenchmarkId::new("ours", size), |b| {
            b.iter(|| one.verify(black_box(body.as_bytes()), Some(black_box(&header)), T))
        });
        group.bench_function(BenchmarkId::new("ours_3_secrets_last", size), |b| {
            b.iter(|| rotated.verify(black_box(body.as_bytes()), Some(black_box(&header)), T))
        });
        group.bench_function(BenchmarkId::new("ours_oneshot_rekeyed", size), |b| {
            b.iter(|| {
                agentcall::webhook::signature::verify(
                    black_box(body.as_bytes()),
                    black_box(&header),
                    &secret,
                    T,
                )
            })
        });
        // The floors compute the MAC the verifier must compute; comparing 32
        // bytes adds nothing measurable.
        group.bench_function(BenchmarkId::new("floor_rustcrypto", size), |b| {
            b.iter(|| floor_rustcrypto(black_box(&key), black_box(&t), black_box(body.as_bytes())))
        });
        group.bench_function(BenchmarkId::new("floor_rustcrypto_prekeyed", size), |b| {
            b.iter(|| {
                floor_prekeyed(
                    black_box(&prekeyed),
                    black_box(&t),
                    black_box(body.as_bytes()),
                )
            })
        });
        group.bench_function(BenchmarkId::new("floor_ring", size), |b| {
            b.iter(|| floor_ring(black_box(&key), black_box(&t), black_box(body.as_bytes())))
        });

        // Standard Webhooks checks the timestamp against the wall clock, so
        // the message is signed now (each measurement lasts seconds).
        let now = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .expect("after 1970")
            .as_secs() as i64;
        let msg_id = "msg_2bVpQz8fPDuLJkSWyVQ3xKjHJ4m";
        let signature = standard
            .sign(msg_id, now, body.as_bytes())
            .expect("UTF-8 body");
        let mut headers = http::HeaderMap::new();
        headers.insert("webhook-id", msg_id.parse().expect("header"));
        headers.insert("webhook-signature", signature.parse().expect("header"));
        headers.insert(
            "webhook-timestamp",
            now.to_string().parse().expect("header"),
        );
        standard
            .verify(body.as_bytes(), &headers)
            .expect("verifies");
        group.bench_function(BenchmarkId::new("standardwebhooks", size), |b| {
            b.iter(|| standard.verify(black_box(body.as_bytes()), black_box(&headers)))
        });

        let payload = format!("#{}", &body[1..]);
        let stripe_header = signer.sign(T, payload.as_bytes());
        assert!(
            stripe_verify(&payload, &stripe_header, T),
            "Stripe accepts our header"
        );
        assert!(!stripe_verify(&payload, &header, T), "and checks it");
        group.bench_function(BenchmarkId::new("stripe", size), |b| {
            b.iter(|| stripe_verify(black_box(&payload), black_box(&stripe_header), T))
        });
    }
    group.finish();
}

criterion_group! {
    name = benches;
    config = Criterion::default()
        .warm_up_time(Duration::from_secs(1))
        .measurement_time(Duration::from_secs(3));
    targets = bench_sign, bench_verify
}
criterion_main!(benches);
