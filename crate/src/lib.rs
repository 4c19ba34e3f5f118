//! # Election Lab engine
//!
//! A deterministic simulator of distributed leader-election algorithms, with no web, clock or
//! ambient-randomness dependency: the same scenario and interventions give the same trace natively
//! and in wasm32, today and after an upgrade.
//!
//! | module | what it holds |
//! |---|---|
//! | [`rng`] | PCG32, the one named, value-stable random generator |
//! | [`protocol`] | the sans-IO protocol trait, effects, the protocol-independent node view |
//! | [`sim`] | the event queue, network faults, stepping, checkpoints and time travel |
//! | [`observe`] | split brain, two leaders in a term, agreement, latency, message counts |
//! | [`scenario`] | the JSON scenario format and its validation |
//! | [`engine`] | one non-generic `Engine` over every protocol; frames, summaries, traces |
//! | [`protocols`] | Bully, Chang-Roberts, Raft-style election |
//! | [`presets`] | the seed's reference scenarios, shared by the CLI, tests and the UI |
//! | [`layout`] | node positions for drawing |

pub mod engine;
pub mod layout;
pub mod observe;
pub mod presets;
pub mod protocol;
pub mod protocols;
pub mod rng;
pub mod scenario;
pub mod sim;

/// A node's id as the scenario names it.
pub type NodeId = u32;
/// Virtual time in ticks.
pub type Time = u64;

pub use engine::{Engine, Frame, Metrics, MsgFrame, NodeFrame, StepInfo};
pub use scenario::{Action, Algorithm, Scenario, ScenarioError};
