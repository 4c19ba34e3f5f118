//! # Election Lab engine
//!
//! A deterministic simulator of distributed leader-election algorithms, with no web, clock or
//! ambient-randomness dependency: the same scenario and interventions give the same trace natively
//! and in wasm32, today and after an upgrade.
//!
//! The module map — each module's purpose, what it uses and may not use, what is deliberately
//! absent — is `ARCHITECTURE.md` at the repository's root; the user guide is `docs/guide/`.

pub mod algorithm;
pub mod breakpoint;
#[cfg(feature = "check")]
pub mod check;
pub mod diff;
pub mod engine;
pub mod error;
pub mod experiment;
pub mod fnv;
#[cfg(all(feature = "script", feature = "check"))]
pub mod grade;
pub mod layout;
pub mod lesson;
pub mod link;
pub mod machine;
pub mod meta;
pub mod observe;
pub mod plot;
pub mod presets;
pub mod protocol;
pub mod protocols;
pub(crate) mod read;
pub mod registry;
pub mod rng;
pub mod run;
pub mod scenario;
pub mod search;
pub mod sim;
pub mod sort;
pub mod trace;

/// A node's id as the scenario names it.
pub type NodeId = u32;
/// Virtual time in ticks.
pub type Time = u64;

pub use algorithm::Algorithm;
pub use engine::{Engine, Frame, Metrics, MsgFrame, NodeFrame, StepInfo};
pub use error::ScenarioError;
pub use read::parse_json;
pub use scenario::{Action, Scenario};
pub use trace::Intervention;
