//! Helpers shared by the integration tests (each test file includes this module).
#![allow(dead_code)]

pub mod graphs;

use election_lab::{Engine, NodeId, Scenario};
use serde_json::Value;

/// Parses, builds and runs a scenario to its end (quiescence or a stop limit).
pub fn run(scenario: &Value) -> Engine {
    let mut e = engine(scenario);
    e.run_to_end();
    e
}

/// Parses and builds a scenario without running it.
pub fn engine(scenario: &Value) -> Engine {
    let s = Scenario::from_value(scenario).unwrap_or_else(|err| panic!("bad scenario {scenario}: {err}"));
    Engine::new(s).expect("engine")
}

/// Messages of one kind sent so far (0 when the summary does not list the kind).
pub fn sent(e: &Engine, kind: &str) -> u64 {
    e.metrics().by_kind.iter().find(|(k, _)| *k == kind).map_or(0, |&(_, c)| c)
}

/// Every live node's leader view, in scenario order.
pub fn views(e: &Engine) -> Vec<(NodeId, Option<NodeId>)> {
    e.frame().nodes.iter().filter(|n| n.up).map(|n| (n.id, n.view.leader)).collect()
}

/// True when every live node names `leader` and `leader` is the only self-declared leader.
pub fn all_agree_on(e: &Engine, leader: NodeId) -> bool {
    let f = e.frame();
    f.leaders == vec![leader] && f.agreement == Some(leader) && views(e).iter().all(|&(_, l)| l == Some(leader))
}

/// Violations of one kind seen up to the cursor.
pub fn violations_of<'a>(e: &'a Engine, kind: &str) -> Vec<&'a election_lab::observe::Violation> {
    e.violations().iter().filter(|v| v.kind == kind).collect()
}
