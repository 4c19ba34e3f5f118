//! A script's errors, placed at a line and column.

use super::LIMITS;
use rhai::{EvalAltResult, Position};
use std::fmt;

/// An error of a script: where (line and column, when known) and what.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ScriptError {
    pub line: Option<usize>,
    pub column: Option<usize>,
    pub message: String,
    /// A budget ran out and the interpreter did not say where (it reports the budgets at the
    /// outermost call): a re-run with the position tracker finds the line.
    pub(super) locate: bool,
}

impl ScriptError {
    pub fn plain(message: impl Into<String>) -> Self {
        ScriptError { line: None, column: None, message: message.into(), locate: false }
    }
    pub(super) fn at(pos: Position, message: String) -> Self {
        ScriptError { line: pos.line(), column: pos.position(), message, locate: false }
    }
    pub(super) fn parse(e: rhai::ParseError) -> Self {
        ScriptError::at(e.1, format!("syntax error: {}", e.0))
    }
    /// A runtime error inside `what`, placed at the innermost position the interpreter gives.
    pub(super) fn runtime(what: &str, e: &EvalAltResult) -> Self {
        let inner = e.unwrap_inner();
        let pos = if inner.position().is_none() { e.position() } else { inner.position() };
        let message = match inner {
            EvalAltResult::ErrorTooManyOperations(..) => {
                format!("{what} ran out of its budget of {} operations (an endless loop?)", LIMITS.operations)
            }
            EvalAltResult::ErrorStackOverflow(..) => {
                format!("{what}: calls nested deeper than {} levels (endless recursion?)", LIMITS.call_levels)
            }
            EvalAltResult::ErrorDataTooLarge(what_data, ..) => format!(
                "{what}: {what_data} too large (at most {} characters a string, {} items an array, {} entries a map)",
                LIMITS.string, LIMITS.array, LIMITS.map
            ),
            EvalAltResult::ErrorRuntime(v, ..) => format!("{what}: {}", v),
            other => format!("{what}: {}", strip_position(&other.to_string())),
        };
        ScriptError { locate: pos.is_none() && inner.is_system_exception(), ..ScriptError::at(pos, message) }
    }
}

/// The interpreter's message without its own trailing " (line L, position P)".
fn strip_position(s: &str) -> &str {
    match s.rfind(" (line ") {
        Some(i) if s.ends_with(')') => &s[..i],
        _ => s,
    }
}

impl fmt::Display for ScriptError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match (self.line, self.column) {
            (Some(l), Some(c)) => write!(f, "line {l}, column {c}: {}", self.message),
            (Some(l), None) => write!(f, "line {l}: {}", self.message),
            _ => f.write_str(&self.message),
        }
    }
}

impl std::error::Error for ScriptError {}
