//! # Election Lab engine
//!
//! A deterministic simulator of distributed leader-election algorithms, with no web, clock or
//! ambient-randomness dependency: the same scenario and interventions give the same trace natively
//! and in wasm32, today and after an upgrade.
//!
//! This crate is the top of the engine's layers: the tools built on runs (breakpoints, diff,
//! links, experiments, the counterexample search, the exhaustive checker, grading, lessons) and
//! the `election-lab` CLI. It stands on `election-lab-core` (the protocol interface, simulator,
//! formats, texts) and `election-lab-protocols` (the algorithms and the [`Engine`] that runs
//! them), and re-exports their modules at the paths users have always written
//! (`election_lab::scenario`, `election_lab::Engine`).
//!
//! The module map — each module's purpose, what it uses and may not use, what is deliberately
//! absent — is `ARCHITECTURE.md` at the repository's root; the user guide is `docs/guide/`.

pub mod breakpoint;
#[cfg(feature = "check")]
pub mod check;
pub mod diff;
pub mod experiment;
#[cfg(all(feature = "script", feature = "check"))]
pub mod grade;
pub mod lesson;
pub mod link;
pub mod search;

// The layers below, at their old paths.
pub(crate) use election_lab_core::read;
pub use election_lab_core::{
    algorithm, error, field, fnv, layout, machine, meta, observe, plot, protocol, rng, run, scenario, sort, trace,
};
pub use election_lab_protocols::{self as protocols, engine, presets, registry};

/// The simulator's records and limits, as the [`Engine`] hands them out (a step's record and
/// event, why a message is dropped, a message's entry, the fenced store, the history budget).
/// The simulator itself is not here: above the protocols crate a run is reached only through
/// the [`Engine`], so this does not compile:
///
/// ```compile_fail
/// use election_lab::sim::Sim;
/// ```
pub mod sim {
    pub use election_lab_core::sim::{Budget, DropReason, EventKind, MsgEntry, Rec, Store, WriteEntry};
}

pub use election_lab_core::{
    parse_json, write_json, write_json_pretty, Action, Algorithm, Intervention, NodeId, Scenario, ScenarioError, Time,
};
pub use election_lab_protocols::{Engine, Frame, Metrics, MsgFrame, NodeFrame, StepInfo};
