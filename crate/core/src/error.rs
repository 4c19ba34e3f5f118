//! The one error type of the engine: a problem with a scenario, a trace, a link or an
//! intervention, naming the field at fault (`network.latency`, `schedule[2].crash`,
//! `params.t_out`, ...). Nothing in the engine panics on bad input; it returns one of these.

use std::fmt;

/// A problem with a scenario (or trace, or link), naming the field at fault.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ScenarioError {
    pub field: String,
    pub message: String,
}

impl ScenarioError {
    pub fn new(field: impl Into<String>, message: impl Into<String>) -> Self {
        ScenarioError { field: field.into(), message: message.into() }
    }

    /// The same error seen from one level up: `nodes` inside `scenario` becomes `scenario.nodes`.
    pub fn within(self, prefix: &str) -> Self {
        ScenarioError { field: prefixed(prefix, &self.field), message: self.message }
    }
}

impl fmt::Display for ScenarioError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.field.is_empty() {
            write!(f, "{}", self.message)
        } else {
            write!(f, "{}: {}", self.field, self.message)
        }
    }
}

impl std::error::Error for ScenarioError {}

/// `prefix.field`, or just `prefix` when the field is empty.
pub fn prefixed(prefix: &str, field: &str) -> String {
    match (prefix.is_empty(), field.is_empty()) {
        (true, _) => field.to_string(),
        (false, true) => prefix.to_string(),
        (false, false) => format!("{prefix}.{field}"),
    }
}
