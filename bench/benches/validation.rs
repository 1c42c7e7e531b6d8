//! Destination checks and the full placement check against the bare
//! `phonenumber` crate and `rlibphonenumber`.
//!
//! Run with `cargo bench --bench validation`; BENCHMARKS.md explains every row.
//!
//! * `ours_check_destination`: [`Guardrails::check_destination`]: strict
//!   syntax, whole-match validity, canonical form, region allowlist, premium
//!   rate, NANP 976, non-geographic codes, IRSF prefixes.
//! * `ours_placement_full`: [`Guardrails::check`] of a typed request
//!   (objective, context, two fields, webhook URL, caller ID) plus the
//!   in-memory rate limiter and minute ledger, in `AgentCall::place`'s order.
//! * `phonenumber`: `phonenumber::parse(None, s)` + `phonenumber::is_valid`
//!   (the crate whose metadata the engine compiles).
//! * `rlibphonenumber`: `PHONE_NUMBER_UTIL.parse(s, None)` +
//!   `is_valid_number`, the fastest peer.
#![allow(missing_docs)]

use std::future::Future;
use std::hint::black_box;
use std::pin::pin;
use std::sync::Barrier;
use std::task::{Context, Poll, Waker};
use std::time::{Duration, Instant};

use agentcall::domain::{CallAttempt, CallId};
use agentcall::guardrails::{
    BillingPeriod, MemoryRateLimiter, MemoryUsageLedger, NumberClassifier, RateLimiter, UsageLedger,
};
use agentcall::{
    Account, AccountId, ApiKey, FieldDefinition, FieldType, Guardrails, KeyId, PlacementRequest,
    Rejection, WebhookSecret,
};
use criterion::{
    BenchmarkId, Criterion, SamplingMode, Throughput, criterion_group, criterion_main,
};
use rlibphonenumber::PHONE_NUMBER_UTIL;

const NUMBERS_TSV: &str = include_str!(concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/../tests/data/numbers.tsv"
));
const ONE_VALID: &str = "+447400123456";
const CALLER_ID: &str = "+14155550100";

/// `(input, expected)` rows of numbers.tsv: TAB-separated, header first,
/// fields taken byte for byte (some inputs carry meaningful whitespace).
fn rows() -> Vec<(&'static str, &'static str)> {
    let mut lines: Vec<&str> = NUMBERS_TSV.split('\n').skip(1).collect();
    if lines.last() == Some(&"") {
        lines.pop();
    }
    lines
        .into_iter()
        .map(|line| {
            let mut fields = line.split('\t');
            let input = fields.next().expect("input column");
            let expected = fields.next().expect("expected column");
            (input, expected)
        })
        .collect()
}

/// 1,000 rows spread evenly over the file (every category, in file order).
fn mix_1000(rows: &[(&'static str, &'static str)]) -> Vec<&'static str> {
    (0..1000).map(|k| rows[k * rows.len() / 1000].0).collect()
}

/// Runs an in-memory limiter future, which never waits.
fn ready<F: Future>(future: F) -> F::Output {
    let mut future = pin!(future);
    match future
        .as_mut()
        .poll(&mut Context::from_waker(Waker::noop()))
    {
        Poll::Ready(output) => output,
        Poll::Pending => panic!("in-memory limiters never wait"),
    }
}

/// Everything `AgentCall::place` checks before it stores the call.
struct Placement {
    guardrails: Guardrails,
    account: Account,
    key_id: KeyId,
    limiter: MemoryRateLimiter,
    ledger: MemoryUsageLedger,
    period: BillingPeriod,
    max_minutes: u64,
    /// The attempt every reservation is for: one entry the ledger adds to,
    /// so the loop measures the reservation, not a map growing with calls
    /// that are never settled (the service settles each call's).
    attempt: CallAttempt,
}

impl Placement {
    fn new(guardrails: Guardrails) -> Self {
        let id: AccountId = "acct_bench".parse().expect("account id");
        let mut account = Account::new(id, WebhookSecret::from("whsec_bench"));
        account.numbers = vec![CALLER_ID.to_owned(), "+14155550101".to_owned()];
        account.default_caller_id = Some(CALLER_ID.to_owned());
        account.calls_per_minute = u32::MAX;
        account.minute_cap = u64::MAX;
        let max_minutes = guardrails
            .config()
            .max_call_duration
            .as_secs()
            .div_ceil(60)
            .max(1);
        Self {
            guardrails,
            account,
            key_id: ApiKey::new("sk_bench").id(),
            limiter: MemoryRateLimiter::new(),
            ledger: MemoryUsageLedger::new(),
            period: BillingPeriod::default(),
            max_minutes,
            attempt: CallAttempt::first(CallId::generate()),
        }
    }

    /// Validation, then the rate permit, then the minute reservation (the
    /// limits are huge, so every valid request passes).
    fn check(&self, request: &PlacementRequest) -> Result<u64, Rejection> {
        let approval = self.guardrails.check(request, &self.account)?;
        let now = chrono::Utc::now();
        ready(
            self.limiter
                .try_acquire(&self.key_id, self.account.calls_per_minute, now),
        )
        .map_err(|error| {
            let limited = error.limited().expect("the in-memory limiter never fails");
            Rejection::RateLimited(limited.retry_after)
        })?;
        let reserved = ready(self.ledger.reserve(
            &self.account.id,
            &self.attempt,
            self.period.start_of(now),
            self.account.minute_cap,
            self.max_minutes,
        ))
        .map_err(|_| Rejection::OverMinuteCap)?;
        black_box(approval);
        Ok(reserved)
    }
}

fn request(to: &str) -> PlacementRequest {
    PlacementRequest::new(
        to,
        "Confirm Tuesday's 3 pm appointment and ask whether the patient needs parking.",
    )
    .context(
        "Patient: Dana Levi. Clinic: Harbour Dental, 12 Pier St. Reschedule within the week only.",
    )
    .field(
        FieldDefinition::new("confirmed", FieldType::Boolean)
            .with_description("Whether the appointment is confirmed"),
    )
    .field(FieldDefinition::new("needs_parking", FieldType::Boolean))
    .webhook_url("https://hooks.example.com/agentcall/events")
    .caller_id(CALLER_ID)
}

/// A destination check shared by the two benchmark threads.
type Check<'a> = &'a (dyn Fn(&str) -> bool + Sync);

fn phonenumber_valid(input: &str) -> bool {
    phonenumber::parse(None, input).is_ok_and(|n| phonenumber::is_valid(&n))
}

fn rlib_valid(input: &str) -> bool {
    PHONE_NUMBER_UTIL
        .parse(input, None)
        .is_ok_and(|n| PHONE_NUMBER_UTIL.is_valid_number(&n))
}

/// A lock-free control: one SHA-256 per number. Its two-thread time shows
/// how much of a second core the machine gave the run.
fn control_sha256(input: &str) -> bool {
    use sha2::Digest;
    sha2::Sha256::digest(input.as_bytes())[0] & 1 == 0
}

fn count<'a>(numbers: &[&'a str], check: impl Fn(&'a str) -> bool) -> usize {
    numbers.iter().filter(|n| check(black_box(n))).count()
}

/// Wall time of both threads checking `mix` `iters` times. Each thread first
/// makes one untimed pass (thread start-up and its allocator arena are not
/// what is measured), then both start together.
fn two_threads(iters: u64, mix: &[&str], check: Check<'_>) -> Duration {
    let barrier = Barrier::new(2);
    std::thread::scope(|scope| {
        let threads: Vec<_> = (0..2)
            .map(|_| {
                scope.spawn(|| {
                    black_box(count(mix, check));
                    barrier.wait();
                    let start = Instant::now();
                    for _ in 0..iters {
                        black_box(count(mix, check));
                    }
                    start.elapsed()
                })
            })
            .collect();
        threads
            .into_iter()
            .map(|t| t.join().expect("bench thread"))
            .max()
            .unwrap_or_default()
    })
}

fn bench_startup(c: &mut Criterion) {
    let mut group = c.benchmark_group("startup");
    group.sample_size(10).sampling_mode(SamplingMode::Flat);
    // Nothing loads until a calling code's first number.
    group.bench_function("ours_number_classifier_new", |b| {
        b.iter(NumberClassifier::new)
    });
    // The first number of +1 (the largest automaton) loads that code.
    group.bench_function("ours_new_then_first_us_number", |b| {
        b.iter(|| {
            NumberClassifier::new()
                .classify(black_box("+12015550123"))
                .is_ok()
        })
    });
    // Every calling code's automata validated and loaded.
    group.bench_function("ours_number_classifier_try_new", |b| {
        b.iter(|| NumberClassifier::try_new().expect("tables load"))
    });
    group.bench_function("rlibphonenumber_util_new", |b| {
        b.iter(|| rlibphonenumber::PhoneNumberUtil::new().expect("metadata"))
    });
    group.finish();
    let classifier = NumberClassifier::try_new().expect("tables load");
    eprintln!("automata: {classifier:?}");
}

fn bench_one_valid(c: &mut Criterion) {
    let placement = Placement::new(Guardrails::default());
    let req = request(ONE_VALID);
    let body = match serde_json::to_value(&req) {
        Ok(serde_json::Value::Object(map)) => map,
        _ => unreachable!("a request serializes to an object"),
    };
    assert!(placement.check(&req).is_ok());
    assert!(placement.guardrails.check_destination(ONE_VALID).is_ok());
    assert!(phonenumber_valid(ONE_VALID) && rlib_valid(ONE_VALID));

    let mut group = c.benchmark_group("one_valid");
    group.bench_function("ours_placement_full", |b| {
        b.iter(|| placement.check(black_box(&req)))
    });
    group.bench_function("ours_check_typed", |b| {
        b.iter(|| {
            placement
                .guardrails
                .check(black_box(&req), &placement.account)
        })
    });
    group.bench_function("ours_validate_typed", |b| {
        b.iter(|| {
            placement
                .guardrails
                .validate(black_box(&req), &placement.account)
        })
    });
    group.bench_function("ours_validate_json", |b| {
        b.iter(|| {
            placement
                .guardrails
                .validate_json(black_box(&body), &placement.account)
        })
    });
    group.bench_function("serde_json_to_value_of_request", |b| {
        b.iter(|| serde_json::to_value(black_box(&req)))
    });
    group.bench_function("ours_check_destination", |b| {
        b.iter(|| placement.guardrails.check_destination(black_box(ONE_VALID)))
    });
    group.bench_function("phonenumber", |b| {
        b.iter(|| phonenumber_valid(black_box(ONE_VALID)))
    });
    group.bench_function("rlibphonenumber", |b| {
        b.iter(|| rlib_valid(black_box(ONE_VALID)))
    });
    group.finish();

    // What `ours_placement_full` spends outside the number check.
    let mut group = c.benchmark_group("placement_parts");
    let url = req
        .webhook_url
        .as_deref()
        .expect("request has a webhook URL");
    group.bench_function("url_parse_webhook_url", |b| {
        b.iter(|| url::Url::parse(black_box(url)))
    });
    group.bench_function("chrono_utc_now", |b| b.iter(chrono::Utc::now));
    let now = chrono::Utc::now();
    group.bench_function("billing_period_start_of", |b| {
        b.iter(|| placement.period.start_of(black_box(now)))
    });
    group.bench_function("rate_limiter_try_acquire", |b| {
        b.iter(|| {
            ready(
                placement
                    .limiter
                    .try_acquire(&placement.key_id, u32::MAX, now),
            )
        })
    });
    let period = placement.period.start_of(now);
    group.bench_function("usage_ledger_reserve", |b| {
        b.iter(|| {
            ready(placement.ledger.reserve(
                &placement.account.id,
                &placement.attempt,
                period,
                u64::MAX,
                10,
            ))
        })
    });
    group.finish();
}

fn bench_mixes(c: &mut Criterion) {
    let rows = rows();
    let valid: Vec<&str> = rows
        .iter()
        .filter(|(_, expected)| *expected == "accepted")
        .map(|(input, _)| *input)
        .collect();
    let mix = mix_1000(&rows);
    let guardrails = Guardrails::default();
    let placement = Placement::new(guardrails.clone());
    let requests: Vec<PlacementRequest> = valid.iter().map(|to| request(to)).collect();
    // The same automata as the engine's, without the destination policy.
    let classifier = NumberClassifier::new();

    let verdicts = |numbers: &[&str]| {
        let mut counts = [0usize; 3];
        for n in numbers {
            match guardrails.check_destination(n) {
                Ok(_) => counts[0] += 1,
                Err(Rejection::DestinationBlocked(_)) => counts[1] += 1,
                Err(_) => counts[2] += 1,
            }
        }
        counts
    };
    let [ok, blocked, invalid] = verdicts(&mix);
    eprintln!(
        "mix_1000: {ok} accepted, {blocked} destination_blocked, {invalid} invalid_number; \
         phonenumber valid {}, rlibphonenumber valid {}",
        count(&mix, phonenumber_valid),
        count(&mix, rlib_valid)
    );
    assert_eq!(verdicts(&valid), [valid.len(), 0, 0]);
    assert!(requests.iter().all(|r| placement.check(r).is_ok()));
    eprintln!(
        "valid_mix: {} accepted; phonenumber valid {}, rlibphonenumber valid {}",
        valid.len(),
        count(&valid, phonenumber_valid),
        count(&valid, rlib_valid)
    );

    for (name, numbers) in [("valid_mix", &valid), ("mix_1000", &mix)] {
        let mut group = c.benchmark_group(name);
        group.throughput(Throughput::Elements(numbers.len() as u64));
        group.bench_function("ours_check_destination", |b| {
            b.iter(|| count(numbers, |n| guardrails.check_destination(n).is_ok()))
        });
        group.bench_function("ours_classify_only", |b| {
            b.iter(|| count(numbers, |n| classifier.classify(n).is_ok()))
        });
        if name == "valid_mix" {
            group.bench_function("ours_placement_full", |b| {
                b.iter(|| {
                    requests
                        .iter()
                        .filter(|r| placement.check(black_box(r)).is_ok())
                        .count()
                })
            });
        }
        if name == "mix_1000" {
            // Hundreds of milliseconds an iteration (see BENCHMARKS.md).
            group.sample_size(10).sampling_mode(SamplingMode::Flat);
        }
        group.bench_function("phonenumber", |b| {
            b.iter(|| count(numbers, phonenumber_valid))
        });
        group.sample_size(100).sampling_mode(SamplingMode::Auto);
        group.bench_function("rlibphonenumber", |b| b.iter(|| count(numbers, rlib_valid)));
        if name == "mix_1000" {
            group.bench_function("control_sha256", |b| {
                b.iter(|| count(numbers, control_sha256))
            });
        }
        group.finish();
    }

    // The same 1,000-row mix from two threads at once: one iteration is both
    // threads checking the whole mix, so perfect scaling shows the same time
    // as one thread above, and contention shows as more. The lock-free
    // control shows how much of the second core the machine had to give.
    let mut group = c.benchmark_group("mix_1000_2_threads");
    group.throughput(Throughput::Elements(2 * mix.len() as u64));
    let checks: [(&str, Check<'_>); 4] = [
        ("ours_check_destination", &|n| {
            guardrails.check_destination(n).is_ok()
        }),
        ("phonenumber", &phonenumber_valid),
        ("rlibphonenumber", &rlib_valid),
        ("control_sha256", &control_sha256),
    ];
    for (name, check) in checks {
        if name == "phonenumber" {
            group.sample_size(10).sampling_mode(SamplingMode::Flat);
        } else {
            group.sample_size(100).sampling_mode(SamplingMode::Auto);
        }
        group.bench_function(BenchmarkId::from_parameter(name), |b| {
            b.iter_custom(|iters| two_threads(iters, &mix, check))
        });
    }
    group.finish();
}

criterion_group! {
    name = benches;
    config = Criterion::default()
        .warm_up_time(Duration::from_secs(1))
        .measurement_time(Duration::from_secs(3));
    targets = bench_startup, bench_one_valid, bench_mixes
}
criterion_main!(benches);
