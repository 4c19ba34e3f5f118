//! One schedule the search tries: the faults it injects at chosen times, the scenario seed and
//! latency range it runs with, and the nodes it keeps — and running it through an [`Engine`],
//! watching one property after every step.

use super::memory::States;
use crate::algorithm::Algorithm;
use crate::engine::Engine;
use crate::error::ScenarioError;
use crate::rng::Pcg32;
use crate::scenario::{Action, Scenario, Scheduled};
use crate::{NodeId, Time};

/// A fault the search injects. A drop names no message id (ids change as soon as anything
/// earlier changes): it drops the `k mod m`-th of the `m` messages in flight at its time.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Fault {
    Crash(NodeId),
    Recover(NodeId),
    Partition(Vec<Vec<NodeId>>),
    Heal,
    Drop(u32),
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Timed {
    pub at: Time,
    pub fault: Fault,
}

/// A schedule: faults in time order, on the scenario with this seed, latency range and nodes,
/// and which of the simultaneous deliveries goes first at the first choice points.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Plan {
    pub seed: u64,
    pub latency: (Time, Time),
    pub nodes: Vec<NodeId>,
    pub faults: Vec<Timed>,
    /// At the i-th choice point (two or more messages due at the next event's tick), the
    /// `order[i] mod k`-th of the `k` goes first (the ones before it are deferred, as
    /// [`Action::Defer`] interventions); 0 is the simulator's own order. Later choice points
    /// keep the simulator's order.
    pub order: Vec<u32>,
}

/// Which fault kinds the search may inject (`--faults crash,recover,partition,heal,drop,delay`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct FaultSet {
    pub crash: bool,
    pub recover: bool,
    pub partition: bool,
    pub heal: bool,
    pub drop: bool,
    /// A wider latency range for the whole schedule (up to `2·max + 2`), and another order of
    /// simultaneous deliveries at a few choice points.
    pub delay: bool,
}

impl Default for FaultSet {
    fn default() -> Self {
        FaultSet { crash: true, recover: true, partition: true, heal: true, drop: true, delay: true }
    }
}

impl FaultSet {
    pub const NAMES: &'static [&'static str] = &["crash", "recover", "partition", "heal", "drop", "delay"];

    /// Reads `crash,recover,partition,heal,drop,delay` (any subset, comma-separated).
    pub fn parse(text: &str) -> Result<FaultSet, ScenarioError> {
        let mut f = FaultSet { crash: false, recover: false, partition: false, heal: false, drop: false, delay: false };
        for name in text.split(',').map(str::trim).filter(|s| !s.is_empty()) {
            match name {
                "crash" => f.crash = true,
                "recover" => f.recover = true,
                "partition" => f.partition = true,
                "heal" => f.heal = true,
                "drop" => f.drop = true,
                "delay" => f.delay = true,
                other => {
                    return Err(ScenarioError::new(
                        "faults",
                        format!("unknown fault '{other}' (expected some of {})", FaultSet::NAMES.join(", ")),
                    ))
                }
            }
        }
        if f == FaultSet::parse_none() {
            return Err(ScenarioError::new("faults", "no fault kind given"));
        }
        Ok(f)
    }

    fn parse_none() -> FaultSet {
        FaultSet { crash: false, recover: false, partition: false, heal: false, drop: false, delay: false }
    }
}

impl Plan {
    /// A random schedule: `count` faults at times in `[1, horizon]`, each chosen among the kinds
    /// that make sense then (recover a crashed node, heal a partitioned network, keep one node up).
    pub fn random(rng: &mut Pcg32, base: &Scenario, kinds: FaultSet, count: u64, horizon: Time) -> Plan {
        let seed = rng.next_u32() as u64;
        let (lo, hi) = base.network.latency;
        let latency = if kinds.delay { (lo, rng.range_inclusive(hi, 2 * hi + 2)) } else { (lo, hi) };
        let nodes = base.nodes.clone();
        let mut times: Vec<Time> = (0..count).map(|_| rng.range_inclusive(1, horizon.max(1))).collect();
        times.sort_unstable();
        let mut down: Vec<NodeId> = Vec::new();
        let mut partitioned = false;
        let mut faults = Vec::with_capacity(times.len());
        for at in times {
            let up: Vec<NodeId> = nodes.iter().copied().filter(|n| !down.contains(n)).collect();
            let mut choices: Vec<u8> = Vec::with_capacity(5);
            if kinds.crash && up.len() > 1 {
                choices.push(0);
            }
            if kinds.recover && !down.is_empty() {
                choices.push(1);
            }
            if kinds.partition && nodes.len() > 1 {
                choices.push(2);
            }
            if kinds.heal && partitioned {
                choices.push(3);
            }
            if kinds.drop {
                choices.push(4);
            }
            if choices.is_empty() {
                continue;
            }
            let pick = |rng: &mut Pcg32, len: usize| rng.range_inclusive(0, len as u64 - 1) as usize;
            let fault = match choices[pick(rng, choices.len())] {
                0 => {
                    let n = up[pick(rng, up.len())];
                    down.push(n);
                    Fault::Crash(n)
                }
                1 => Fault::Recover(down.remove(pick(rng, down.len()))),
                2 => {
                    partitioned = true;
                    Fault::Partition(two_sides(rng, &nodes))
                }
                3 => {
                    partitioned = false;
                    Fault::Heal
                }
                _ => Fault::Drop(rng.next_u32()),
            };
            faults.push(Timed { at, fault });
        }
        let mut order = Vec::new();
        if kinds.delay {
            let len = rng.range_inclusive(0, 6);
            order = (0..len).map(|_| rng.range_inclusive(0, 2) as u32).collect();
        }
        Plan { seed, latency, nodes, faults, order }
    }

    /// The scenario as it is, with no fault and the simulator's own order of deliveries.
    pub fn plain(base: &Scenario) -> Plan {
        Plan {
            seed: base.seed,
            latency: base.network.latency,
            nodes: base.nodes.clone(),
            faults: vec![],
            order: vec![],
        }
    }

    /// The scenario this plan runs: the base with the plan's seed, latency and nodes, and the run
    /// stopping at `until`. `None` when the nodes cannot carry the base (its initial leader removed).
    pub fn scenario(&self, base: &Scenario, until: Time) -> Option<Scenario> {
        let mut s = base.clone();
        s.seed = self.seed;
        s.network.latency = self.latency;
        s.stop.max_time = until;
        if self.nodes != base.nodes {
            if s.initial_leader.is_some_and(|l| !self.nodes.contains(&l)) || self.nodes.len() < 2 {
                return None;
            }
            s.nodes.retain(|n| self.nodes.contains(n));
            s.schedule = s
                .schedule
                .iter()
                .filter_map(|e| keep_nodes(&e.action, &self.nodes).map(|action| Scheduled { at: e.at, action }))
                .collect();
        }
        Some(s)
    }

    /// The plan without node `id` (faults that name only it are dropped).
    pub fn without_node(&self, id: NodeId) -> Plan {
        let nodes: Vec<NodeId> = self.nodes.iter().copied().filter(|&n| n != id).collect();
        let faults = self
            .faults
            .iter()
            .filter_map(|t| {
                let fault = match &t.fault {
                    Fault::Crash(n) | Fault::Recover(n) if *n == id => return None,
                    Fault::Partition(groups) => {
                        let groups: Vec<Vec<NodeId>> = groups
                            .iter()
                            .map(|g| g.iter().copied().filter(|&n| n != id).collect::<Vec<_>>())
                            .filter(|g| !g.is_empty())
                            .collect();
                        if groups.len() < 2 {
                            return None;
                        }
                        Fault::Partition(groups)
                    }
                    f => f.clone(),
                };
                Some(Timed { at: t.at, fault })
            })
            .collect();
        Plan { nodes, faults, ..self.clone() }
    }
}

/// Two non-empty sides, each in scenario order.
fn two_sides(rng: &mut Pcg32, nodes: &[NodeId]) -> Vec<Vec<NodeId>> {
    let mut side: Vec<bool> = nodes.iter().map(|_| rng.next_u32() & 1 == 1).collect();
    if side.iter().all(|&s| s) || side.iter().all(|&s| !s) {
        let k = rng.range_inclusive(0, nodes.len() as u64 - 1) as usize;
        side[k] = !side[k];
    }
    let a = nodes.iter().zip(&side).filter(|(_, &s)| s).map(|(&n, _)| n).collect();
    let b = nodes.iter().zip(&side).filter(|(_, &s)| !s).map(|(&n, _)| n).collect();
    vec![a, b]
}

/// A scheduled action of the base scenario restricted to `nodes` (None: it no longer applies).
fn keep_nodes(action: &Action, nodes: &[NodeId]) -> Option<Action> {
    match action {
        Action::Partition { groups, .. } => {
            let groups: Vec<Vec<NodeId>> = groups
                .iter()
                .map(|g| g.iter().copied().filter(|n| nodes.contains(n)).collect::<Vec<_>>())
                .filter(|g| !g.is_empty())
                .collect();
            (groups.len() >= 2).then_some(Action::Partition { groups, lines: vec![] })
        }
        Action::Cut { from, to } => (nodes.contains(from) && nodes.contains(to)).then(|| action.clone()),
        a => match a.node() {
            Some(n) if !nodes.contains(&n) => None,
            _ => Some(a.clone()),
        },
    }
}

/// The property a search looks for a violation of.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Target {
    /// A property the algorithm claims, watched by its own monitor (violations of this kind).
    Claimed(&'static str),
    /// Two live nodes believe they lead at one instant, on an algorithm that does not claim it.
    TwoLeaders,
    /// No agreed leader within this many ticks after the last fault.
    NoLeaderWithin(Time),
}

/// Where a plan broke the property.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Found {
    pub step: u64,
    pub time: Time,
    pub nodes: Vec<NodeId>,
}

/// A plan's run: the engine at the end (or at the violation), and the steps it took.
pub struct Outcome {
    pub engine: Engine,
    pub steps: u64,
    pub found: Option<Found>,
    /// How many deliveries were simultaneous at each choice point seen (up to the plan's
    /// order and the depth asked for).
    pub branching: Vec<u32>,
}

struct Exec<'a> {
    engine: Engine,
    target: &'a Target,
    seen_violations: usize,
    steps: u64,
    states: Option<&'a mut States>,
    order: &'a [u32],
    /// Choice points to look at (at least the plan's order).
    depth: usize,
    branching: Vec<u32>,
    /// A handler's failure counts as found (see `Options::handler_errors`).
    errors: bool,
}

impl Exec<'_> {
    /// One step, after choosing among simultaneous deliveries if a choice point is due.
    fn step(&mut self) -> bool {
        let at = self.branching.len();
        if at < self.depth {
            if let Some(next) = self.engine.next_event_time() {
                let due: Vec<u64> = self
                    .engine
                    .frame()
                    .messages
                    .iter()
                    .filter(|m| m.deliver == next && !m.doomed)
                    .map(|m| m.id)
                    .collect();
                if due.len() >= 2 {
                    self.branching.push(due.len() as u32);
                    let first = self.order.get(at).map_or(0, |&c| c as usize % due.len());
                    let now = self.engine.now();
                    for &id in &due[..first] {
                        if self.engine.apply_at(Action::Defer(id), now).is_err() {
                            break;
                        }
                    }
                }
            }
        }
        self.engine.step()
    }

    /// Runs every event up to tick `t`; stops at a violation.
    fn run_to(&mut self, t: Time) -> Option<Found> {
        while self.engine.next_event_time().is_some_and(|next| next <= t) {
            if !self.step() {
                // Halted: by a handler's failure, which the engine knows once it tried to go on.
                return if self.errors { self.check() } else { None };
            }
            self.steps += 1;
            if let Some(f) = self.after_change() {
                return Some(f);
            }
        }
        None
    }

    fn after_change(&mut self) -> Option<Found> {
        if let Some(s) = self.states.as_deref_mut() {
            s.see(self.engine.trace_hash());
        }
        self.check()
    }

    fn check(&mut self) -> Option<Found> {
        if self.errors && self.engine.fault().is_some() {
            return Some(Found { step: self.engine.cursor(), time: self.engine.now(), nodes: vec![] });
        }
        match *self.target {
            Target::Claimed(id) => {
                let v = self.engine.violations();
                let new = &v[self.seen_violations.min(v.len())..];
                let hit = new.iter().find(|v| v.kind == id).map(|v| Found {
                    step: v.step,
                    time: v.time,
                    nodes: v.nodes.clone(),
                });
                self.seen_violations = v.len();
                hit
            }
            Target::TwoLeaders => (self.engine.metrics().max_simultaneous_leaders >= 2).then(|| Found {
                step: self.engine.cursor(),
                time: self.engine.now(),
                nodes: self.engine.frame().leaders,
            }),
            Target::NoLeaderWithin(_) => None,
        }
    }

    /// Applies one fault at its time (after every event up to it). False if it could not be.
    fn apply(&mut self, f: &Timed) -> bool {
        let action = match &f.fault {
            Fault::Crash(n) => Action::Crash(*n),
            Fault::Recover(n) => Action::Recover(*n),
            Fault::Partition(groups) => Action::Partition { groups: groups.clone(), lines: vec![] },
            Fault::Heal => Action::Heal,
            Fault::Drop(k) => {
                let ids: Vec<u64> = self.engine.frame().messages.iter().filter(|m| !m.doomed).map(|m| m.id).collect();
                if ids.is_empty() {
                    return true; // nothing in flight: nothing to drop
                }
                Action::Drop(ids[*k as usize % ids.len()])
            }
        };
        let at = f.at.max(self.engine.now());
        self.engine.apply_at(action, at).is_ok()
    }
}

/// Runs `plan` on `base` (as [`Plan::scenario`] builds it) until `until`, watching `target`
/// after every step and fault; records every trace-hash prefix in `states` if given, and the
/// branching of the first `depth` choice points (at least those the plan's order covers);
/// with `errors`, a handler's failure is found too.
#[allow(clippy::too_many_arguments)]
pub fn execute(
    algorithm: &'static Algorithm,
    base: &Scenario,
    plan: &Plan,
    target: &Target,
    until: Time,
    states: Option<&mut States>,
    depth: usize,
    errors: bool,
) -> Result<Outcome, ScenarioError> {
    let scenario =
        plan.scenario(base, until).ok_or_else(|| ScenarioError::new("nodes", "the plan removed a needed node"))?;
    let last_scheduled = scenario.schedule.iter().map(|s| s.at).max().unwrap_or(0);
    let mut engine = Engine::with_algorithm(algorithm, scenario)?;
    engine.set_budget(super::RUN_BUDGET);
    let depth = depth.max(plan.order.len());
    let mut x = Exec {
        engine,
        target,
        seen_violations: 0,
        steps: 0,
        states,
        order: &plan.order,
        depth,
        branching: vec![],
        errors,
    };
    let done = |x: Exec, found| Ok(Outcome { engine: x.engine, steps: x.steps, found, branching: x.branching });
    if let Some(f) = x.check() {
        return done(x, Some(f));
    }
    for f in &plan.faults {
        if let Some(found) = x.run_to(f.at) {
            return done(x, Some(found));
        }
        if !x.apply(f) {
            break;
        }
        if let Some(found) = x.after_change() {
            return done(x, Some(found));
        }
    }
    match *target {
        Target::NoLeaderWithin(t) => {
            let last = plan.faults.last().map_or(0, |f| f.at).max(last_scheduled);
            let deadline = last.saturating_add(t);
            x.run_to(last);
            // Agreed right after the last fault, or agreeing within the deadline: no violation.
            if x.engine.frame().agreement.is_some() {
                return done(x, None);
            }
            let before = x.engine.elections().len();
            while x.engine.next_event_time().is_some_and(|next| next <= deadline) {
                if !x.step() {
                    break;
                }
                x.steps += 1;
                if let Some(s) = x.states.as_deref_mut() {
                    s.see(x.engine.trace_hash());
                }
                if x.engine.elections().len() > before {
                    return done(x, None);
                }
            }
            let found = Found { step: x.engine.cursor(), time: deadline, nodes: vec![] };
            done(x, Some(found))
        }
        _ => {
            let found = x.run_to(until);
            done(x, found)
        }
    }
}

/// The delivery order after `order` in depth-first order, given the branching its run saw at
/// each choice point (capped at `cap`); None when every order was tried.
pub fn next_order(order: &[u32], branching: &[u32], cap: u32) -> Option<Vec<u32>> {
    let mut o: Vec<u32> = (0..branching.len()).map(|i| order.get(i).copied().unwrap_or(0)).collect();
    for i in (0..o.len()).rev() {
        if o[i] + 1 < branching[i].min(cap) {
            o.truncate(i + 1);
            o[i] += 1;
            return Some(o);
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::next_order;

    /// Depth-first over a tree with branching 2 then 3: every one of the 6 orders, each once.
    #[test]
    fn orders_are_enumerated_depth_first_each_once() {
        let mut seen = vec![];
        let mut order = Some(vec![]);
        while let Some(o) = order {
            seen.push(o.clone());
            order = next_order(&o, &[2, 3], 3);
        }
        let full: Vec<Vec<u32>> =
            seen.iter().map(|o| (0..2).map(|i| o.get(i).copied().unwrap_or(0)).collect()).collect();
        assert_eq!(full, vec![vec![0, 0], vec![0, 1], vec![0, 2], vec![1, 0], vec![1, 1], vec![1, 2]]);
        // The cap limits the choices at each point.
        assert_eq!(next_order(&[0, 1], &[5, 5], 2), Some(vec![1]));
        assert_eq!(next_order(&[1, 1], &[5, 5], 2), None);
    }
}
