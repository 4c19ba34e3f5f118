//! A lesson stop's checker badge (`"checked"`): "✓ checked: 3 nodes, ≤ 2 crashes, depth 8 —
//! N states". The stop names the property and the bounds and states the number of unique states;
//! the check it stands for explores the lesson's own scenario on nodes `1..=nodes`, its schedule
//! cleared (every node as the algorithm boots it), in asynchronous time. The number is never
//! taken on trust: `tests/lesson_badge.rs` runs that check natively (on [`scenario`], with the
//! badge's bounds) for every built-in lesson and requires the verdict to hold
//! with exactly the states the lesson says.
//!
//! ```json
//! "checked": {"property": "two-leaders-in-term", "nodes": 3, "crashes": 2, "depth": 8, "states": 123}
//! ```

use crate::error::ScenarioError;
use crate::read::Obj;
use crate::scenario::Scenario;
use serde_json::Value;

/// The most nodes a badge's check may explore.
pub const MAX_BADGE_NODES: u64 = 5;

/// A stop's claim that a property was checked in every schedule within bounds.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Badge {
    pub property: String,
    pub nodes: u64,
    pub crashes: u64,
    pub partitions: u64,
    pub depth: u64,
    /// Unique states the check explored (what the test pins).
    pub states: u64,
}

impl Badge {
    pub(super) fn read(v: &Value, path: String) -> Result<Badge, ScenarioError> {
        let o = Obj::new(v, path, &["property", "nodes", "crashes", "partitions", "depth", "states"])?;
        let nodes = o.uint("nodes")?;
        if !(2..=MAX_BADGE_NODES).contains(&nodes) {
            return Err(ScenarioError::new(o.field("nodes"), format!("must be 2 to {MAX_BADGE_NODES}")));
        }
        Ok(Badge {
            property: o.string("property")?,
            nodes,
            crashes: o.uint_or("crashes", 0)?,
            partitions: o.uint_or("partitions", 0)?,
            depth: o.uint("depth")?,
            states: o.uint("states")?,
        })
    }
}

/// The scenario the badge's check explores: the lesson's, on nodes `1..=nodes`, with no
/// schedule, initial leader or per-node facts beyond what its parameters say.
pub fn scenario(lesson: &Scenario, b: &Badge) -> Scenario {
    let mut s = lesson.clone();
    s.nodes = (1..=b.nodes as u32).collect();
    s.schedule.clear();
    s.initial_leader = None;
    s
}
