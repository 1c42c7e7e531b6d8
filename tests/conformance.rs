//! The embedded backends pass the contract checks of
//! `agentcall-conformance`, one test per case (SQLite and PostgreSQL run
//! theirs in `store_sqlite.rs` and `store_postgres.rs`).

use std::sync::Arc;
use std::time::Duration;

use agentcall::store::{MemoryRetention, MemoryStore};
use agentcall::{SimulatedCarrier, SimulationConfig};

mod memory_store {
    use super::*;

    agentcall_conformance::conformance_tests!(async {
        let store = Arc::new(MemoryStore::new());
        Some((store.clone(), store))
    });
}

/// The suite on a store that drops ended calls some time after their end.
mod memory_store_with_retention {
    use super::*;

    agentcall_conformance::conformance_tests!(async {
        let hour = Duration::from_secs(3600);
        let retention = MemoryRetention::new(Some(hour), Some(hour));
        let store = Arc::new(MemoryStore::with_retention(retention));
        Some((store.clone(), store))
    });
}

#[tokio::test]
async fn the_simulated_carrier_passes_the_carrier_checks() {
    let carrier = SimulatedCarrier::new(SimulationConfig::new(
        Duration::from_millis(1),
        Duration::from_millis(5),
    ));
    agentcall_conformance::carrier::run_all(&carrier, "+14155550125").await;
}
