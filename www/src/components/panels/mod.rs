//! The side panels: invariants, inspector, messages/metrics, event log, space-time diagram.

pub mod find;
pub mod inspector;
pub mod invariants;
pub mod log;
pub mod metrics;
pub mod spacetime;

pub use inspector::{Inspected, Inspector};
pub use invariants::{Checks, Invariants};
pub use log::EventLog;
pub use metrics::MetricsPanel;
pub use spacetime::SpaceTime;
