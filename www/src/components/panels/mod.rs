//! The side panels: invariants, inspector, messages/metrics, event log, space-time diagram,
//! watch.

pub mod check_every;
pub mod find;
pub mod inspector;
pub mod invariants;
pub mod log;
pub mod metrics;
pub mod spacetime;
pub mod sparklines;
pub mod watch;

pub use inspector::{Inspected, Inspector};
pub use invariants::{Checks, Invariants};
pub use log::EventLog;
pub use metrics::MetricsPanel;
pub use spacetime::SpaceTime;
pub use watch::Watch;
