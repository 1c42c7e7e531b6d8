//! The contract tests every store runs on itself.
//!
//! Each function takes a store that is empty or holds only calls of other
//! keys, exercises one part of the [`CallStore`] / [`EventOutbox`] contract
//! and panics on a violation. A backend's own test calls [`run_all`]:
//!
//! ```
//! # tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap().block_on(async {
//! agentcall::store::conformance::run_all(&agentcall::store::MemoryStore::new()).await;
//! # });
//! ```

mod calls;
mod fixtures;
mod idempotency;
mod leases;
mod outbox;

pub use calls::*;
pub use idempotency::*;
pub use leases::*;
pub use outbox::*;

use super::{CallStore, EventOutbox, IdempotencyStore};

/// Runs every conformance test in turn.
pub async fn run_all<S: CallStore + EventOutbox + IdempotencyStore>(store: &S) {
    insert_then_get(store).await;
    insert_twice_fails(store).await;
    update_is_compare_and_set(store).await;
    concurrent_updates_from_one_version_move_once(store).await;
    list_is_scoped_ordered_and_limited(store).await;
    list_pages_with_cursor_and_filters(store).await;
    recordings_round_trip(store).await;
    leases_renew_lapse_are_claimed_once_and_fence(store).await;
    carrier_end_and_settlement_round_trip(store).await;
    events_enter_with_updates_and_deliver_in_order(store).await;
    claims_take_turns_across_accounts(store).await;
    late_outcomes_under_a_lapsed_claim_change_nothing(store).await;
    redelivery_invalidates_an_outstanding_claim(store).await;
    postponed_claims_count_no_attempt(store).await;
    idempotency_keys_replay_mismatch_and_expire(store).await;
    idempotency_holders_renew_and_late_holders_change_nothing(store).await;
}
