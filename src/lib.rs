//! # agentcall
//!
//! An embeddable engine for outbound AI phone calls: a Rust service places
//! calls that an AI agent carries out toward a plain-text objective, with
//! guardrails that stop fraud before a phone rings, signed webhooks that
//! arrive, and typed answers pulled from the conversation.
//!
//! ## Architecture
//!
//! Dependencies point one way, from the edges to a pure core:
//!
//! - [`domain`]: ids, secrets, the call record, field definitions, the
//!   placement request. No I/O.
//! - [`state`]: the call state machine, a pure function of (record, move, time).
//! - [`guardrails`]: number validity by libphonenumber's metadata, destination
//!   policy, and the rate-limit and minute-cap traits.
//! - [`webhook`]: the event payload, signing and verification, delivery with
//!   retries, and helpers for receivers.
//! - [`extract`]: the [`Extractor`] contract, coercion to declared types,
//!   the evidence check, and the LLM extractor (feature `llm`); the
//!   rule-based offline extractor is the `agentcall-rules` crate.
//! - [`store`], [`carrier`], [`notify`], [`accounts`]: the backend traits
//!   ([`CallStore`], [`Carrier`], [`Notifier`], [`AccountDirectory`]) with
//!   their embedded defaults.
//! - [`service`]: [`AgentCall`] wires the traits together and runs each call
//!   as a task.
//! - [`api`]: the HTTP API as a `tower::Service`, the one place where errors
//!   become statuses (the tokens are one table, [`domain::ErrorToken`]).
//! - [`manual`]: the decisions, store guarantees, receiving webhooks and the
//!   error tokens, in prose.
//!
//! Every backend is an object-safe trait used as `Arc<dyn Trait>`, so a host
//! plugs in its own database, carrier and HTTP framework. With nothing
//! plugged in, everything runs in process: [`MemoryStore`],
//! [`SimulatedCarrier`], and no extractor (fields are `null` until one is
//! plugged in).
//!
//! ## Example
//!
//! ```
//! use std::sync::Arc;
//! use std::time::Duration;
//! use agentcall::{
//!     Account, AgentCall, ApiKey, CallStatus, FieldDefinition, FieldType, PlacementRequest,
//!     SimulatedCarrier, SimulationConfig, StaticDirectory,
//! };
//!
//! # tokio::runtime::Runtime::new().unwrap().block_on(async {
//! let mut account = Account::new("acct_demo".parse().unwrap(), "whsec_demo".into());
//! account.numbers = vec!["+14155550100".into()];
//! account.default_caller_id = Some("+14155550100".into());
//! let key = ApiKey::new("key_demo");
//! let fast = SimulationConfig::new(Duration::from_millis(5), Duration::from_millis(20));
//! let service = AgentCall::builder()
//!     .directory(Arc::new(StaticDirectory::new().with_account(account, [key.clone()])))
//!     .carrier(Arc::new(SimulatedCarrier::new(fast)))
//!     .build()
//!     .unwrap();
//!
//! let me = service.authenticate(&key).await.unwrap().unwrap();
//! let request = PlacementRequest::new("+14155550125", "Confirm Friday's delivery window.")
//!     .field(FieldDefinition::new("window_confirmed", FieldType::Boolean));
//! let placed = service.place(&me, &request).await.unwrap();
//! assert_eq!(placed.status, CallStatus::Queued);
//!
//! let record = loop {
//!     let record = service.get(&me, &placed.call_id).await.unwrap();
//!     if record.status.is_terminal() { break record; }
//!     tokio::time::sleep(Duration::from_millis(5)).await;
//! };
//! assert_eq!(record.status, CallStatus::Completed);
//! assert!(record.summary.is_some() && record.transcript.is_some());
//! service.shutdown(Duration::from_secs(1)).await;
//! # });
//! ```
#![forbid(unsafe_code)]
#![cfg_attr(docsrs, feature(doc_cfg))]
#![warn(missing_docs, missing_debug_implementations, unreachable_pub)]
#![deny(rustdoc::broken_intra_doc_links)]

pub mod accounts;
pub mod agent;
pub mod api;
pub mod carrier;
pub mod clock;
pub mod domain;
pub mod extract;
pub mod guardrails;
pub mod manual;
pub mod notify;
mod reason_error;
pub mod relay;
pub mod schedule;
pub mod service;
pub mod state;
pub mod store;
pub mod transcript;
#[cfg(feature = "twilio")]
#[cfg_attr(docsrs, doc(cfg(feature = "twilio")))]
pub mod twilio;
pub mod webhook;

pub use accounts::{AccountDirectory, Principal, StaticDirectory};
pub use api::Api;
pub use carrier::{Carrier, SimulatedCarrier, SimulationConfig};
pub use domain::{
    Account, AccountId, ApiKey, CallId, CallRecord, CallStatus, EventKind, FieldDefinition,
    FieldType, KeyId, PlacementRequest, WebhookSecret,
};
pub use extract::{Extractor, NoExtractor};
pub use guardrails::{GuardrailConfig, Guardrails, Rejection};
pub use notify::Notifier;
pub use service::{AgentCall, AgentCallBuilder, Placed, RecoveryReport, ServiceError};
pub use store::{CallStore, EventOutbox, MemoryStore};
pub use transcript::{Speaker, Transcript, Turn};

/// The cause of an error, kept as its source: any error that can cross
/// threads.
pub type BoxError = Box<dyn std::error::Error + Send + Sync>;

/// The README's code blocks, compiled and run as doctests.
#[cfg(doctest)]
#[doc = include_str!("../README.md")]
pub struct ReadmeDoctests;
