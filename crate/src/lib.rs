//! # Election Lab engine
//!
//! A deterministic simulator of distributed leader-election algorithms, with no web, clock or
//! ambient-randomness dependency: the same scenario and interventions give the same trace natively
//! and in wasm32, today and after an upgrade.
//!
//! Layers, each importing only those above it (no module imports one that imports it back):
//!
//! | module | what it holds |
//! |---|---|
//! | [`error`] | the one error type, naming the field at fault |
//! | [`meta`] | what an algorithm says about itself, as data: kinds, roles, formulas, properties, presets |
//! | [`rng`] | PCG32, the one named, value-stable random generator |
//! | [`protocol`] | the sans-IO protocol trait, effects, the run configuration, the node view |
//! | [`scenario`] | the JSON scenario format and its validation |
//! | [`trace`] | the trace format: scenario + time-anchored interventions + step |
//! | [`machine`] | a protocol with its types erased, so one simulator serves them all |
//! | [`observe`] | split brain, two leaders in a term, agreement, latency, message counts |
//! | [`sim`] | [`sim::Sim`]: the world and network (event queue, faults, stepping), the history and seeking (logs, checkpoints, forks), the observers' findings |
//! | [`run`] | what a [`sim::Sim`] hands out, whatever the protocol: frames, metrics, step descriptions, narration |
//! | [`algorithm`] | the [`Algorithm`] descriptor every protocol module declares |
//! | [`protocols`] | one module per algorithm, and the one list that registers them |
//! | [`registry`] | looking algorithms and presets up |
//! | [`engine`] | one non-generic [`Engine`] over every algorithm; summaries, traces |
//! | [`breakpoint`] | breakpoints ("run until"): predicates over a run evaluated at every step |
//! | [`diff`] | two runs compared: the first divergence and a summary of differences |
//! | [`presets`] | presets by id, for the CLI, the UI and the tests |
//! | [`plot`] | plots as standalone SVG (lines with a spread band, distributions, bars) |
//! | [`experiment`] | sweeps: many runs over seeds, node counts and variants, measured, summarised, plotted |
//! | [`link`] | the page's links (`?t=1.<compressed trace>&step=N`), written and read natively |
//! | [`search`] | counterexample search: fault schedules, a property watched at every step, shrinking |
//! | [`layout`] | node positions for drawing |
//! | [`lesson`] | lessons: a scenario, stops with captions, questions answered by the engine, acts, a challenge; the built-in course |

pub mod algorithm;
pub mod breakpoint;
pub mod diff;
pub mod engine;
pub mod error;
pub mod experiment;
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
