//! The largest inputs the engine reads, checked before any other work, so that a huge file or
//! link is refused by name instead of growing memory without bound (documented in the guide,
//! docs/guide/src/scenarios.md, "Limits").

use super::ScenarioError;
use serde_json::Value;

/// Largest cluster the engine accepts (the UI offers 2–64).
pub const MAX_NODES: usize = 5000;
/// Largest scenario, trace or experiment text the engine reads, in bytes (a scenario of
/// `MAX_NODES` nodes and `MAX_ACTIONS` actions fits well inside).
pub const MAX_BYTES: usize = 4_000_000;
/// Longest a message may take, in ticks: the largest `network.latency` and the longest a
/// recorded run's message may travel (the history logs a message's latency in 32 bits).
pub const MAX_LATENCY: u64 = 1_000_000;
/// Most actions a scenario's `schedule` may hold, and most interventions a trace may hold.
pub const MAX_ACTIONS: usize = 100_000;

/// Refuses a text longer than [`MAX_BYTES`] before reading it, naming the size and the limit:
/// every reader of scenarios, traces and experiments calls it first (and the page may call it
/// on a file before anything else).
pub fn check_size(bytes: usize) -> Result<(), ScenarioError> {
    if bytes > MAX_BYTES {
        return Err(ScenarioError::new(
            "",
            format!("{bytes} bytes is more than the {MAX_BYTES} a scenario, trace or experiment may have"),
        ));
    }
    Ok(())
}

/// Refuses a list (`nodes`, `schedule`, `interventions`) longer than `max` before it is read,
/// naming it.
pub(crate) fn check_len(value: Option<&Value>, field: &str, max: usize, what: &str) -> Result<(), ScenarioError> {
    match value.and_then(Value::as_array) {
        Some(list) if list.len() > max => {
            Err(ScenarioError::new(field, format!("{} {what} is more than the {max} supported", list.len())))
        }
        _ => Ok(()),
    }
}
