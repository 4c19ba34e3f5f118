//! # Election Lab core
//!
//! What every algorithm and every tool stands on: the sans-IO [`protocol::Protocol`] interface
//! and its `Ctx`, the one simulator ([`sim::Sim`]), protocols with their types erased
//! ([`machine`]), the observers, the scenario and trace formats, and the texts. It names no
//! algorithm: the algorithms are the `election-lab-protocols` crate, which depends on this one,
//! and the tools (the `Engine`, search, checker, experiments, lessons) are the `election-lab`
//! crate above both. Deterministic, with no web, clock or ambient-randomness dependency.
//!
//! The module map — each crate's and module's purpose, what it may not use, what is deliberately
//! absent — is `ARCHITECTURE.md` at the repository's root.
//!
//! The layers are Cargo's to keep: the core cannot reach an algorithm or a tool.
//!
//! ```compile_fail
//! // The core does not depend on the protocols crate: this import does not compile.
//! use election_lab_protocols::bully;
//! ```

pub mod algorithm;
pub mod error;
pub mod family;
pub mod field;
pub mod fnv;
pub mod layout;
pub mod machine;
pub mod meta;
pub mod observe;
pub mod plot;
pub mod protocol;
#[doc(hidden)]
pub mod read;
pub mod rng;
pub mod run;
pub mod scenario;
pub mod sim;
pub mod sort;
pub mod trace;

/// A node's id as the scenario names it.
pub type NodeId = u32;
/// Virtual time in ticks.
pub type Time = u64;

pub use algorithm::Algorithm;
pub use error::ScenarioError;
pub use read::{parse_json, write_json, write_json_pretty};
pub use scenario::{Action, Scenario};
pub use trace::Intervention;
