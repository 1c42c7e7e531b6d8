//! # agentcall-conformance
//!
//! The contract checks every backend of [agentcall](https://docs.rs/agentcall)
//! passes: [`store`] for stores (calls, the outbox, idempotency keys and
//! the shared limits), [`carrier`] for carriers. agentcall's own memory,
//! SQLite and PostgreSQL stores and its simulated carrier run them; a
//! third-party backend adds this crate to its dev-dependencies and runs
//! them too, one test per case:
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
#![forbid(unsafe_code)]
#![warn(missing_docs, missing_debug_implementations)]
#![deny(rustdoc::broken_intra_doc_links)]

pub mod carrier;
pub mod store;
