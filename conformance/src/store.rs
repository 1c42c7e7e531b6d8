//! The contract tests every store runs on itself.
//!
//! Each function takes a store that is empty or holds only calls of other
//! keys, exercises one part of the [`CallStore`](agentcall::store::CallStore) /
//! [`EventOutbox`](agentcall::store::EventOutbox) /
//! [`IdempotencyStore`](agentcall::store::IdempotencyStore) / [`Persistence`] contract and panics on a
//! violation; the limits' cases take two handles on one backend. A
//! backend's own tests declare one test per case with
//! [`conformance_tests!`](crate::conformance_tests), given an async block
//! that opens two handles on a fresh backend (for an in-memory store, the
//! same store twice):
//!
//! ```
//! mod memory {
//!     use std::sync::Arc;
//!     use agentcall::store::MemoryStore;
//!
//!     agentcall_conformance::conformance_tests!(async {
//!         let store = Arc::new(MemoryStore::new());
//!         Some((store.clone(), store))
//!     });
//! }
//! # fn main() {}
//! ```
//!
//! [`run_all`] runs every case in turn on one store, as a quick check.

mod calls;
mod fixtures;
mod idempotency;
mod leases;
mod limits;
mod outbox;

pub use calls::*;
pub use idempotency::*;
pub use leases::*;
pub use limits::*;
pub use outbox::*;

use agentcall::store::Persistence;

/// Declares one `#[tokio::test]` per conformance case, each on the two
/// handles `$open` (a future of `Option<(A, B)>`) gives for a fresh
/// backend: the cases of one handle take the first, and `None` skips the
/// case (a backend whose test server is not configured). Needs `tokio`
/// (with `macros` and `rt-multi-thread`) among the caller's
/// dev-dependencies.
#[macro_export]
macro_rules! conformance_tests {
    ($open:expr) => {
        $crate::conformance_tests!(@one $open;
            insert_then_get, insert_twice_fails, update_is_compare_and_set,
            concurrent_updates_from_one_version_move_once, list_is_scoped_ordered_and_limited,
            list_pages_with_cursor_and_filters, recordings_round_trip,
            leases_renew_lapse_are_claimed_once_and_fence, waiting_only_claims_take_only_due_waiting_calls,
            carrier_end_and_settlement_round_trip,
            events_enter_with_updates_and_deliver_in_order, claims_take_turns_across_accounts,
            late_outcomes_under_a_lapsed_claim_change_nothing,
            redelivery_invalidates_an_outstanding_claim, postponed_claims_count_no_attempt,
            idempotency_keys_replay_mismatch_and_expire,
            idempotency_holders_renew_and_late_holders_change_nothing);
        $crate::conformance_tests!(@two $open;
            rate_limits_hold_across_handles, minute_caps_hold_across_handles);
    };
    (@one $open:expr; $($case:ident),+) => {$(
        #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
        async fn $case() {
            let Some((store, _other)) = $open.await else {
                return;
            };
            $crate::store::$case(&*store).await;
        }
    )+};
    (@two $open:expr; $($case:ident),+) => {$(
        #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
        async fn $case() {
            let Some((one, two)) = $open.await else {
                return;
            };
            $crate::store::$case(&*one, &*two).await;
        }
    )+};
}

/// Runs every conformance case in turn on one store (the limits' cases on
/// two handles of it).
pub async fn run_all<S: Persistence>(store: &S) {
    insert_then_get(store).await;
    insert_twice_fails(store).await;
    update_is_compare_and_set(store).await;
    concurrent_updates_from_one_version_move_once(store).await;
    list_is_scoped_ordered_and_limited(store).await;
    list_pages_with_cursor_and_filters(store).await;
    recordings_round_trip(store).await;
    leases_renew_lapse_are_claimed_once_and_fence(store).await;
    waiting_only_claims_take_only_due_waiting_calls(store).await;
    carrier_end_and_settlement_round_trip(store).await;
    events_enter_with_updates_and_deliver_in_order(store).await;
    claims_take_turns_across_accounts(store).await;
    late_outcomes_under_a_lapsed_claim_change_nothing(store).await;
    redelivery_invalidates_an_outstanding_claim(store).await;
    postponed_claims_count_no_attempt(store).await;
    idempotency_keys_replay_mismatch_and_expire(store).await;
    idempotency_holders_renew_and_late_holders_change_nothing(store).await;
    rate_limits_hold_across_handles(store, store).await;
    minute_caps_hold_across_handles(store, store).await;
}
