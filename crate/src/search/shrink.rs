//! Shrinking a violating schedule: smaller candidates are tried one at a time, and the first
//! that still breaks the property replaces the best so far, until none does (or the budget of
//! runs is spent), then a last pass of removals only ([`removals`]) until none still breaks it,
//! so that the result is 1-minimal: without any one of its faults, or with any one of its
//! choice points back in the simulator's order (or one delivery fewer deferred there), the
//! property holds. Greedy and deterministic: the same schedule always shrinks to the same one.

use super::plan::{Found, Plan, Timed};
use crate::scenario::Scenario;
use crate::Time;
use std::collections::VecDeque;

/// How small a counterexample is, compared lexicographically: faults first, then nodes, then
/// the choice points taken out of the simulator's order and how far, whether the latency range
/// and seed are the scenario's own, then the violating step, then how late the faults come.
pub type Measure = (usize, usize, usize, u64, bool, bool, u64, Time);

pub fn measure(plan: &Plan, found: &Found, base: &Scenario) -> Measure {
    (
        plan.faults.len(),
        plan.nodes.len(),
        plan.order.iter().filter(|&&c| c != 0).count(),
        plan.order.iter().map(|&c| c as u64).sum(),
        plan.latency != base.network.latency,
        plan.seed != base.seed,
        found.step,
        plan.faults.iter().map(|f| f.at).sum(),
    )
}

/// The candidates that take one thing out of `plan`: each fault (the last first), each choice
/// point's other order (back to the simulator's, or one delivery fewer deferred).
pub fn removals(plan: &Plan) -> VecDeque<Plan> {
    let mut out = VecDeque::new();
    push_fault_removals(plan, &mut out);
    push_order_removals(plan, &mut out);
    out
}

/// The candidates smaller than `plan`, in the order they are tried: drop a fault (the last
/// first), drop a node (not the initial leader), the simulator's own delivery order (at every
/// choice point, then at one), the scenario's own latency range and seed, then move each fault
/// halfway towards the one before it (or towards tick 1).
pub fn candidates(plan: &Plan, base: &Scenario) -> VecDeque<Plan> {
    let mut out = VecDeque::new();
    push_fault_removals(plan, &mut out);
    if plan.nodes.len() > 2 {
        for &n in plan.nodes.iter().rev() {
            if base.initial_leader != Some(n) {
                out.push_back(plan.without_node(n));
            }
        }
    }
    if plan.order.iter().any(|&c| c != 0) {
        out.push_back(Plan { order: vec![], ..plan.clone() });
        push_order_removals(plan, &mut out);
    }
    if plan.latency != base.network.latency {
        out.push_back(Plan { latency: base.network.latency, ..plan.clone() });
    }
    if plan.seed != base.seed {
        out.push_back(Plan { seed: base.seed, ..plan.clone() });
    }
    for i in 0..plan.faults.len() {
        let floor = if i == 0 { 1 } else { plan.faults[i - 1].at };
        let at = plan.faults[i].at;
        if at > floor {
            let mut p = plan.clone();
            p.faults[i] = Timed { at: floor + (at - floor) / 2, fault: p.faults[i].fault.clone() };
            out.push_back(p);
        }
    }
    out
}

/// Each fault taken out, the last first.
fn push_fault_removals(plan: &Plan, out: &mut VecDeque<Plan>) {
    for i in (0..plan.faults.len()).rev() {
        let mut p = plan.clone();
        p.faults.remove(i);
        out.push_back(p);
    }
}

/// Each choice point's other order: back to the simulator's, or one delivery fewer deferred.
fn push_order_removals(plan: &Plan, out: &mut VecDeque<Plan>) {
    for i in (0..plan.order.len()).rev().filter(|&i| plan.order[i] != 0) {
        let mut p = plan.clone();
        p.order[i] = 0;
        out.push_back(p);
        if plan.order[i] > 1 {
            let mut p = plan.clone();
            p.order[i] -= 1;
            out.push_back(p);
        }
    }
}
