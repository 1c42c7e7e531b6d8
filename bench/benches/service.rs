//! The service on the in-memory store: placement to `queued`, `get`, and
//! `list(limit 20)` as the store grows.
//!
//! Run with `cargo bench --bench service`; BENCHMARKS.md explains every row.
//! Filling a store with a million calls through `place` would take minutes,
//! so the list and get stores are filled with synthetic calls through
//! [`CallStore::insert`].
#![allow(missing_docs)]

use std::future::Future;
use std::hint::black_box;
use std::pin::pin;
use std::sync::Arc;
use std::task::{Context, Poll, Waker};
use std::time::{Duration, Instant};

use agentcall::accounts::AccountDirectory;
use agentcall::store::{ListQuery, StoredCall};
use agentcall::{
    Account, AccountId, AgentCall, ApiKey, CallId, CallRecord, CallStore, FieldDefinition,
    FieldType, KeyId, MemoryStore, PlacementRequest, Principal, SimulatedCarrier, SimulationConfig,
    StaticDirectory, WebhookSecret,
};
use chrono::{DateTime, TimeZone, Utc};
use criterion::{BenchmarkId, Criterion, criterion_group, criterion_main};
use tokio::runtime::Runtime;

const CALLER_ID: &str = "+14155550100";
const OBJECTIVE: &str =
    "Confirm Tuesday's 3 pm appointment and ask whether the patient needs parking.";
/// Calls of the listed key when the rest of the store belongs to other keys.
const OWN_CALLS: usize = 100;
const OTHER_KEYS: usize = 999;
/// Cursors and ids the random-access benchmarks cycle through.
const RANDOM_IDS: usize = 65_536;

/// Runs an in-memory store future, which never waits.
fn ready<F: Future>(future: F) -> F::Output {
    let mut future = pin!(future);
    match future
        .as_mut()
        .poll(&mut Context::from_waker(Waker::noop()))
    {
        Poll::Ready(output) => output,
        Poll::Pending => panic!("the in-memory store never waits"),
    }
}

fn api_key() -> ApiKey {
    ApiKey::new("sk_bench_0123456789")
}

fn account() -> Account {
    let id: AccountId = "acct_bench".parse().expect("account id");
    let mut account = Account::new(id, WebhookSecret::from("whsec_bench"));
    account.numbers = vec![CALLER_ID.to_owned()];
    account.default_caller_id = Some(CALLER_ID.to_owned());
    // Limits so large that every placement passes them.
    account.calls_per_minute = u32::MAX;
    account.minute_cap = u64::MAX;
    account
}

/// A service whose calls ring for an hour, so every placed call stays
/// queued or dialing while the benchmark runs. Must run inside `rt`.
fn service(store: Arc<MemoryStore>) -> (AgentCall, Principal) {
    let account = account();
    let directory = StaticDirectory::new().with_account(account, [api_key()]);
    let principal = ready(directory.authenticate(&api_key()))
        .expect("directory")
        .expect("known key");
    let service = AgentCall::builder()
        .store(store)
        .directory(Arc::new(directory))
        .carrier(Arc::new(SimulatedCarrier::new(SimulationConfig {
            ring: Duration::from_secs(3_600),
            talk: Duration::from_secs(1),
            ..Default::default()
        })))
        .build()
        .expect("inside a runtime");
    (service, principal)
}

/// A request without a webhook URL, so no event is ever delivered.
fn request() -> PlacementRequest {
    PlacementRequest::new("+447400123456", OBJECTIVE)
        .context("Patient: Dana Levi. Clinic: Harbour Dental, 12 Pier St.")
        .field(FieldDefinition::new("confirmed", FieldType::Boolean))
        .field(FieldDefinition::new("needs_parking", FieldType::Boolean))
        .caller_id(CALLER_ID)
}

fn current_thread() -> Runtime {
    tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .expect("runtime")
}

/// Times `iters` placements on a fresh service and runtime, so the store
/// holds only the calls of one sample (up to a few thousand). With
/// `yield_each`, the loop yields after each placement so the call's tasks
/// run until the call is `dialing` and waits on its hour-long ring.
fn place_loop(rt: Runtime, iters: u64, yield_each: bool) -> Duration {
    let (svc, principal) = rt.block_on(async { service(Arc::new(MemoryStore::new())) });
    let req = request();
    let elapsed = rt.block_on(async move {
        // The loop runs as a task, on a worker thread when there are any.
        tokio::spawn(async move {
            let start = Instant::now();
            for _ in 0..iters {
                let placed = svc.place(&principal, black_box(&req)).await;
                black_box(placed.expect("placed"));
                if yield_each {
                    tokio::task::yield_now().await;
                }
            }
            start.elapsed()
        })
        .await
        .expect("bench task")
    });
    rt.shutdown_background();
    elapsed
}

fn multi_thread() -> Runtime {
    tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .expect("runtime")
}

fn bench_place(c: &mut Criterion) {
    let mut group = c.benchmark_group("place_to_queued");
    // The caller's cost: on a current-thread runtime the call tasks `place`
    // spawns do not run while the loop runs, so only the work done before
    // `place` returns `queued` is timed.
    group.bench_function("caller_only", |b| {
        b.iter_custom(|iters| place_loop(current_thread(), iters, false))
    });
    // All the CPU a placement costs on one thread, its call's tasks included.
    group.bench_function("with_call_tasks", |b| {
        b.iter_custom(|iters| place_loop(current_thread(), iters, true))
    });
    // As a server runs it: the loop on one worker of a two-worker runtime,
    // the call tasks (each moves its call to `dialing`) on the other.
    group.bench_function("multi_thread_2_workers", |b| {
        b.iter_custom(|iters| place_loop(multi_thread(), iters, false))
    });
    group.finish();

    // Pieces of `place` that are public.
    let mut group = c.benchmark_group("place_parts");
    group.bench_function("call_id_generate", |b| b.iter(CallId::generate));
    let (key_id, account_id) = (api_key().id(), account().id);
    group.bench_function("stored_call_build_and_insert", |b| {
        b.iter_custom(|iters| {
            let store = MemoryStore::new();
            let start = Instant::now();
            for i in 0..iters as usize {
                ready(store.insert(&stored_call(i, &key_id, &account_id))).expect("insert");
            }
            start.elapsed()
        })
    });
    group.finish();
}

/// A synthetic queued call created `i` milliseconds after a fixed instant.
fn stored_call(i: usize, key_id: &KeyId, account_id: &AccountId) -> StoredCall {
    let base: DateTime<Utc> = Utc.with_ymd_and_hms(2025, 1, 1, 0, 0, 0).unwrap();
    let id: CallId = format!("call_{i:032x}").parse().expect("call id");
    let mut call = StoredCall::new(
        CallRecord::queued(id, "+447400123456", OBJECTIVE),
        account_id.clone(),
        key_id.clone(),
        base + chrono::Duration::milliseconds(i as i64),
        CALLER_ID,
    );
    call.context = Some("Patient: Dana Levi. Clinic: Harbour Dental, 12 Pier St.".to_owned());
    call.fields = vec![
        FieldDefinition::new("confirmed", FieldType::Boolean),
        FieldDefinition::new("needs_parking", FieldType::Boolean),
    ];
    call.reserved_minutes = 10;
    call
}

/// A store of `total` calls. With `same_key`, all are the listed key's;
/// otherwise the listed key owns [`OWN_CALLS`] of them, spread over time,
/// and [`OTHER_KEYS`] other keys own the rest. Returns the store and the id
/// of one of the listed key's calls.
fn filled_store(total: usize, same_key: bool) -> (Arc<MemoryStore>, CallId) {
    let store = Arc::new(MemoryStore::new());
    let own = api_key().id();
    let others: Vec<KeyId> = (0..OTHER_KEYS)
        .map(|k| ApiKey::new(format!("sk_other_{k}")).id())
        .collect();
    let account_id: AccountId = "acct_bench".parse().expect("account id");
    let stride = total / OWN_CALLS;
    let mut some_own = None;
    for i in 0..total {
        let key = if same_key || i % stride == 0 {
            &own
        } else {
            &others[i % OTHER_KEYS]
        };
        let call = stored_call(i, key, &account_id);
        if key == &own && i >= total / 2 && some_own.is_none() {
            some_own = Some(call.record.id.clone());
        }
        ready(store.insert(&call)).expect("insert");
    }
    (store, some_own.expect("an own call"))
}

fn bench_get_and_list(c: &mut Criterion) {
    let rt = current_thread();
    for (layout, same_key) in [("same_key", true), ("other_keys", false)] {
        for total in [1_000usize, 1_000_000] {
            let started = Instant::now();
            let (store, id) = filled_store(total, same_key);
            eprintln!(
                "filled {total} calls ({layout}) in {:.1} s",
                started.elapsed().as_secs_f64()
            );
            let (svc, principal) = rt.block_on(async { service(store.clone()) });
            let query = ListQuery::new(principal.key_id.clone(), 20);
            let page = ready(store.list(&query)).expect("list");
            assert_eq!(page.calls.len(), 20);
            assert!(page.has_more);
            assert_eq!(rt.block_on(svc.get(&principal, &id)).expect("get").id, id);

            let mut group = c.benchmark_group(format!("list_limit_20/{layout}"));
            group.bench_function(BenchmarkId::new("first_page", total), |b| {
                b.iter_custom(|iters| {
                    rt.block_on(async {
                        let start = Instant::now();
                        for _ in 0..iters {
                            black_box(store.list(black_box(&query)).await.expect("list"));
                        }
                        start.elapsed()
                    })
                })
            });

            // Pages behind cursors spread over the key's calls (and gets of
            // ids spread the same way), so each iteration reads different
            // calls: caches are cold at 1,000,000 calls.
            let stride = if same_key { 1 } else { total / OWN_CALLS };
            let own = total / stride;
            let mut seed = 0x2545_f491_4f6c_dd1du64;
            let mut random_own = || {
                seed ^= seed << 13;
                seed ^= seed >> 7;
                seed ^= seed << 17;
                // At least 20 older calls of the key behind it.
                let nth = 21 + (seed % (own as u64 - 21)) as usize;
                format!("call_{:032x}", nth * stride)
                    .parse::<CallId>()
                    .expect("id")
            };
            let cursors: Vec<ListQuery> = (0..RANDOM_IDS)
                .map(|_| {
                    let mut query = query.clone();
                    query.starting_after = Some(random_own());
                    query
                })
                .collect();
            let random_ids: Vec<CallId> = (0..RANDOM_IDS).map(|_| random_own()).collect();
            assert!(cursors.iter().all(|q| {
                let page = ready(store.list(q)).expect("list");
                page.calls.len() == 20 && page.has_more
            }));
            group.bench_function(BenchmarkId::new("random_cursor", total), |b| {
                b.iter_custom(|iters| {
                    rt.block_on(async {
                        let start = Instant::now();
                        for q in cursors.iter().cycle().take(iters as usize) {
                            black_box(store.list(black_box(q)).await.expect("list"));
                        }
                        start.elapsed()
                    })
                })
            });
            group.finish();

            if same_key {
                let mut group = c.benchmark_group("get");
                group.bench_function(BenchmarkId::new("random_id", total), |b| {
                    b.iter_custom(|iters| {
                        rt.block_on(async {
                            let start = Instant::now();
                            for id in random_ids.iter().cycle().take(iters as usize) {
                                black_box(svc.get(&principal, black_box(id)).await.expect("get"));
                            }
                            start.elapsed()
                        })
                    })
                });
                group.bench_function(BenchmarkId::new("same_id", total), |b| {
                    b.iter_custom(|iters| {
                        rt.block_on(async {
                            let start = Instant::now();
                            for _ in 0..iters {
                                black_box(svc.get(&principal, black_box(&id)).await.expect("get"));
                            }
                            start.elapsed()
                        })
                    })
                });
                group.finish();
            }
            drop(svc);
            drop(store);
        }
    }
}

criterion_group! {
    name = benches;
    config = Criterion::default()
        .warm_up_time(Duration::from_secs(1))
        .measurement_time(Duration::from_secs(3));
    targets = bench_place, bench_get_and_list
}
criterion_main!(benches);
