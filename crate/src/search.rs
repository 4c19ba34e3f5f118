//! Counterexample search: try many schedules of faults on one scenario, stop at the first that
//! breaks a property, shrink it, and hand it back as a trace that opens at the violating step.
//!
//! * **Schedules** are drawn from a seeded [`Pcg32`] stream: each gets its own scenario seed
//!   (so random timers and latencies differ), with `delay` a wider latency range, and 1–4
//!   faults (crash, recover, partition into two random sides, heal, drop a message in flight)
//!   at random ticks of the first two thirds of the run. Faults are applied as interventions
//!   anchored by step and time, exactly as a click in the page is, so the trace replays them.
//! * **Delivery orders**: at a *choice point* two or more messages are due at the next event's
//!   tick; a plan may let the 2nd or 3rd of them go first (the ones before it are deferred
//!   with [`crate::scenario::Action::Defer`], an intervention like any other). Random plans
//!   (with `delay`) choose at their first few choice points; on small clusters every other
//!   schedule is instead the next of a **systematic** depth-first enumeration of the orders at
//!   the first [`Options::systematic_depth`] choice points of the fault-free scenario (at most
//!   [`Options::systematic_branching`] choices each), until all were tried.
//! * **The property** is one the algorithm claims (its own monitor names the violations:
//!   `split-brain`, `two-leaders-in-term`, `lease-overlap`, `duplicate-token`, `chosen-once`),
//!   `split-brain` on an algorithm that does not claim it (two live nodes believing they lead
//!   at one instant), or the bounded liveness property `no-leader-within:T` (no instant of
//!   agreement on a live leader within T ticks after the last fault).
//! * **States seen** counts distinct trace-hash prefixes: the hash of the history up to a step
//!   (every event, send, timer and fault), not of the world state, so two histories reaching the
//!   same world count twice. They are the nodes of the tree of explored histories, bounded in
//!   bytes (`search/memory.rs`, [`Options::max_memory`]): at the bound the search stops and says so.
//! * **Shrinking** ([`shrink`]): drop faults, drop nodes, go back to the scenario's own latency
//!   and seed, move faults earlier, while the property still breaks, preferring an earlier
//!   violating step.
//! * **Slices**: [`Search::advance`] does whole schedules (or shrinking runs) until a budget of
//!   simulation steps is spent, so the page can run it a few milliseconds per frame, and the
//!   same seed and step budget always give the same counterexample.

mod memory;
mod plan;
mod shrink;

pub use memory::MAX_MEMORY;
pub use plan::{Fault, FaultSet, Found, Plan, Target, Timed};

use crate::algorithm::Algorithm;
use crate::engine::Engine;
use crate::error::ScenarioError;
use crate::meta::SPLIT_BRAIN;
use crate::registry;
use crate::rng::Pcg32;
use crate::scenario::Scenario;
use crate::sim::Budget;
use crate::trace::Intervention;
use crate::{NodeId, Time};
use memory::States;
use plan::{execute, next_order};
use serde_json::{json, Value};
use std::collections::VecDeque;

/// The most faults a schedule may inject.
pub const MAX_FAULTS: u64 = 64;

/// The history one schedule's run may keep (see [`Budget`]): a schedule that would record more
/// stops there, so a huge `until` costs time, not memory.
pub const RUN_BUDGET: Budget = Budget { steps: 1_000_000, messages: 2_000_000 };

/// The prefix of the bounded liveness property's id: `no-leader-within:T`.
pub const NO_LEADER_WITHIN: &str = "no-leader-within:";

/// What to look for and how hard.
#[derive(Clone, Debug)]
pub struct Options {
    /// A property id (see the module doc).
    pub property: String,
    pub faults: FaultSet,
    /// Seeds the stream the schedules are drawn from.
    pub seed: u64,
    /// Simulation steps the search may spend on schedules before giving up (shrinking has its
    /// own budget, `shrink_runs`).
    pub budget_steps: u64,
    /// How many faults a schedule injects: uniform in this range.
    pub faults_per_schedule: (u64, u64),
    /// Faults come at ticks `1..=horizon` (default: the first two thirds of the run).
    pub horizon: Option<Time>,
    /// Each schedule runs until this tick (default: the scenario's `stop.max_time`, at most 1000).
    pub until: Option<Time>,
    /// Schedules run while shrinking, at most.
    pub shrink_runs: u64,
    /// Distinct states remembered, at most, and their memory in bytes at most (default
    /// [`MAX_MEMORY`]): reaching either stops the search ([`Phase::Capped`]).
    pub max_states: usize,
    pub max_memory: usize,
    /// Clusters of at most this many nodes also get the systematic exploration of delivery
    /// orders (0: never).
    pub systematic_nodes: usize,
    /// Choice points it enumerates, and choices at each.
    pub systematic_depth: usize,
    pub systematic_branching: u32,
    /// A scripted handler's failure breaks the property too, at its step (the grader's choice).
    pub handler_errors: bool,
}

impl Default for Options {
    fn default() -> Self {
        Options {
            property: SPLIT_BRAIN.to_string(),
            faults: FaultSet::default(),
            seed: 0,
            budget_steps: 1_000_000,
            faults_per_schedule: (1, 4),
            horizon: None,
            until: None,
            shrink_runs: 400,
            max_states: 4_000_000,
            max_memory: MAX_MEMORY,
            systematic_nodes: 5,
            systematic_depth: 8,
            systematic_branching: 3,
            handler_errors: false,
        }
    }
}

/// Where a search stands.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Phase {
    Searching,
    Shrinking,
    /// A counterexample was found and shrunk: see [`Search::result`].
    Found,
    /// The budget is spent without a violation.
    Exhausted,
    /// The tree of explored histories reached its cap before the budget: see [`Search::capped`].
    Capped,
}

/// What a search has done so far.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Progress {
    pub phase: Phase,
    /// Schedules tried (not counting shrinking), of which `orders` were systematic delivery orders.
    pub schedules: u64,
    pub orders: u64,
    /// Every delivery order up to the systematic depth was tried.
    pub orders_exhausted: bool,
    /// Distinct trace-hash prefixes seen while searching.
    pub states: u64,
    /// Simulation steps spent searching, and the budget.
    pub steps: u64,
    pub budget_steps: u64,
    /// Schedules run while shrinking.
    pub shrink_runs: u64,
}

impl Progress {
    pub fn finished(&self) -> bool {
        matches!(self.phase, Phase::Found | Phase::Exhausted | Phase::Capped)
    }
}

/// A shrunk counterexample.
#[derive(Clone, Debug)]
pub struct Counterexample {
    pub property: String,
    /// The violating step and time, and the nodes involved (the leaders, for split brain).
    pub step: u64,
    pub time: Time,
    pub nodes: Vec<NodeId>,
    /// The faults of the shrunk schedule, as applied (interventions by step and time).
    pub interventions: Vec<Intervention>,
    /// How many faults the schedule had when found, before shrinking.
    pub faults_found: usize,
    /// Which schedule (0-based) found it.
    pub schedule: u64,
    /// `{format, scenario, interventions, step, search}`: opens at the violating step; `search`
    /// says what the shrinker changed ([`Changes::to_value`]).
    pub trace: Value,
    pub trace_hash: u64,
    /// The shrunk schedule (the faults, seed, latency, nodes and delivery order it runs).
    pub plan: Plan,
    /// What the counterexample changed of the scenario searched, and what shrinking took out.
    pub changes: Changes,
}

/// What a counterexample's schedule changes of the scenario searched, and what shrinking took
/// out of the schedule found: every difference between the scenario and the trace, said.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Changes {
    /// Faults in the schedule found, and kept.
    pub faults: (usize, usize),
    /// Deliveries deferred (taken out of the simulator's order) in the schedule found, and kept.
    pub deferrals: (usize, usize),
    /// The scenario's seed and the one the counterexample runs with, if another.
    pub seed: Option<(u64, u64)>,
    /// The scenario's latency range and the one the counterexample runs with, if another.
    pub latency: Option<((Time, Time), (Time, Time))>,
    /// The scenario's nodes the counterexample runs without.
    pub removed: Vec<NodeId>,
}

impl Changes {
    /// `{"faults": {"found", "kept"}, "deferrals": {...}, "seed"?: {"scenario", "used"},
    /// "latency"?: {...}, "nodes_removed": [...]}`.
    pub fn to_value(&self) -> Value {
        let mut o = json!({
            "faults": {"found": self.faults.0, "kept": self.faults.1},
            "deferrals": {"found": self.deferrals.0, "kept": self.deferrals.1},
            "nodes_removed": self.removed,
        });
        if let Some((a, b)) = self.seed {
            o["seed"] = json!({"scenario": a, "used": b});
        }
        if let Some((a, b)) = self.latency {
            o["latency"] = json!({"scenario": [a.0, a.1], "used": [b.0, b.1]});
        }
        o
    }

    /// Reads [`Changes::to_value`] back (the page reads it from the trace).
    pub fn from_value(v: &Value) -> Option<Changes> {
        let pair = |k: &str| -> Option<(usize, usize)> {
            let x = v.get(k)?;
            Some((x.get("found")?.as_u64()? as usize, x.get("kept")?.as_u64()? as usize))
        };
        let range = |x: &Value| -> Option<(Time, Time)> { Some((x.get(0)?.as_u64()?, x.get(1)?.as_u64()?)) };
        let seed = v.get("seed").and_then(|x| Some((x.get("scenario")?.as_u64()?, x.get("used")?.as_u64()?)));
        let latency = v.get("latency").and_then(|x| Some((range(x.get("scenario")?)?, range(x.get("used")?)?)));
        let removed = v.get("nodes_removed")?.as_array()?.iter().filter_map(|n| n.as_u64().map(|n| n as NodeId));
        Some(Changes {
            faults: pair("faults")?,
            deferrals: pair("deferrals")?,
            seed,
            latency,
            removed: removed.collect(),
        })
    }

    /// In one line, in `lang`: "faults 3 → 1, deferred deliveries 2 → 0; seed 17 (the
    /// scenario's 425); latency [1, 18] (the scenario's [1, 8])".
    pub fn describe(&self, lang: crate::meta::Lang) -> String {
        use crate::meta::k;
        let mut parts = vec![
            k::SEARCH_CHANGED_FAULTS.format(lang, &[&self.faults.0, &self.faults.1]),
            k::SEARCH_CHANGED_DEFERRALS.format(lang, &[&self.deferrals.0, &self.deferrals.1]),
        ];
        if let Some((a, b)) = self.seed {
            parts.push(k::SEARCH_CHANGED_SEED.format(lang, &[&b, &a]));
        }
        if let Some((a, b)) = self.latency {
            parts.push(k::SEARCH_CHANGED_LATENCY.format(lang, &[&b.0, &b.1, &a.0, &a.1]));
        }
        if !self.removed.is_empty() {
            let list: Vec<String> = self.removed.iter().map(|n| format!("N{n}")).collect();
            parts.push(k::SEARCH_CHANGED_NODES.format(lang, &[&list.join(", ")]));
        }
        parts.join(k::SEARCH_CHANGED_SEPARATOR.get(lang))
    }
}

/// Deliveries deferred in a run (its `Defer` interventions).
fn deferrals(e: &Engine) -> usize {
    e.interventions().iter().filter(|iv| matches!(iv.action, crate::scenario::Action::Defer(_))).count()
}

impl Counterexample {
    /// The CLI's result object (without the trace).
    pub fn summary(&self) -> Value {
        json!({
            "property": self.property,
            "step": self.step,
            "time": self.time,
            "nodes": self.nodes,
            "faults_found": self.faults_found,
            "faults": self.interventions.iter().map(Intervention::to_value).collect::<Vec<_>>(),
            "schedule": self.schedule,
            "algorithm": self.trace["scenario"]["algorithm"],
            "seed": self.trace["scenario"]["seed"],
            "trace_hash": format!("{:016x}", self.trace_hash),
            "changes": self.changes.to_value(),
        })
    }
}

struct Shrinking {
    best: Plan,
    found: Found,
    engine: Engine,
    faults_found: usize,
    deferrals_found: usize,
    queue: VecDeque<Plan>,
    runs: u64,
    /// The last pass: removals only, past the budget of runs, until none still breaks it.
    last_pass: bool,
}

/// A counterexample search over one scenario, advanced in slices.
pub struct Search {
    algorithm: &'static Algorithm,
    base: Scenario,
    opts: Options,
    target: Target,
    rng: Pcg32,
    until: Time,
    horizon: Time,
    states: States,
    schedules: u64,
    steps: u64,
    /// What the step budget was charged: every schedule at least one step, so that schedules
    /// that run no step (a window that ends before the first event) still spend it.
    charged: u64,
    /// The next systematic delivery order (None: all tried, or the cluster is too large).
    next_order: Option<Vec<u32>>,
    orders: u64,
    shrinking: Option<Shrinking>,
    found_at: u64,
    result: Option<Counterexample>,
    exhausted: bool,
}

impl Search {
    /// A search on a registered algorithm's scenario. Errors name the field (`property`,
    /// `faults`, or the scenario's own).
    pub fn new(scenario: Scenario, options: Options) -> Result<Search, ScenarioError> {
        let algorithm = registry::find_or_err(&scenario.algorithm)?;
        Search::with_algorithm(algorithm, scenario, options)
    }

    /// A search on a descriptor that need not be registered (tests search protocol mutants so).
    pub fn with_algorithm(
        algorithm: &'static Algorithm,
        scenario: Scenario,
        options: Options,
    ) -> Result<Search, ScenarioError> {
        // The scenario is read first: a damaged file is named as such, whatever it records.
        Engine::with_algorithm(algorithm, scenario.clone())?;
        if registry::is_recorded(algorithm.id) {
            // A recording replays what happened, one way: there is no other schedule to try, and
            // a fault injected into it would make the log's members do what the log says anyway.
            let model = crate::protocols::recorded::source_of(algorithm.id).map_or("", |s| s.model);
            return Err(ScenarioError::new(
                "algorithm",
                format!(
                    "{} is a recorded run: it replays its log as it happened, so there is no schedule to \
                     search; search its textbook model ({model}) instead (the page's \"Replay in the \
                     simulator\", or a scenario of that algorithm)",
                    algorithm.id
                ),
            ));
        }
        let target = target_of(algorithm, &options.property)?;
        let (lo, hi) = options.faults_per_schedule;
        if lo > hi || hi == 0 {
            return Err(ScenarioError::new("faults_per_schedule", format!("{lo}..{hi} is empty")));
        }
        if hi > MAX_FAULTS {
            return Err(ScenarioError::new("faults_per_schedule", format!("at most {MAX_FAULTS} faults per schedule")));
        }
        let mut until = options.until.unwrap_or(scenario.stop.max_time.min(1000)).max(2);
        let horizon = options.horizon.unwrap_or(until * 2 / 3).max(1);
        if let Target::NoLeaderWithin(t) = target {
            let last = scenario.schedule.iter().map(|s| s.at).max().unwrap_or(0);
            until = until.max(horizon.max(last).saturating_add(t));
        }
        let systematic = scenario.nodes.len() <= options.systematic_nodes && options.systematic_depth > 0;
        Ok(Search {
            algorithm,
            rng: Pcg32::new(options.seed, 0x5ea7c4),
            states: States::new(options.max_states, options.max_memory),
            base: scenario,
            target,
            until,
            horizon,
            opts: options,
            schedules: 0,
            steps: 0,
            charged: 0,
            next_order: systematic.then(Vec::new),
            orders: 0,
            shrinking: None,
            found_at: 0,
            result: None,
            exhausted: false,
        })
    }

    pub fn progress(&self) -> Progress {
        let phase = if self.result.is_some() {
            Phase::Found
        } else if self.shrinking.is_some() {
            Phase::Shrinking
        } else if self.exhausted {
            Phase::Exhausted
        } else if self.states.full() {
            Phase::Capped
        } else {
            Phase::Searching
        };
        Progress {
            phase,
            schedules: self.schedules,
            orders: self.orders,
            orders_exhausted: self.orders > 0 && self.next_order.is_none(),
            states: self.states.len() as u64,
            steps: self.steps,
            budget_steps: self.opts.budget_steps,
            shrink_runs: self.shrinking.as_ref().map_or(0, |s| s.runs),
        }
    }

    pub fn finished(&self) -> bool {
        self.progress().finished()
    }

    /// The shrunk counterexample, once found.
    pub fn result(&self) -> Option<&Counterexample> {
        self.result.as_ref()
    }

    /// Why the search stopped before its budget, if its tree of histories reached a cap: the
    /// cap and what was explored.
    pub fn capped(&self) -> Option<String> {
        let p = self.progress();
        (p.phase == Phase::Capped).then(|| memory::capped(&self.states, &p, &self.opts.property))
    }

    /// Whether `plan` breaks the property searched for, run as the search runs its schedules
    /// (to check a counterexample's schedule, or one with something taken out).
    pub fn breaks(&self, plan: &Plan) -> bool {
        execute(self.algorithm, &self.base, plan, &self.target, self.until, None, 0, self.opts.handler_errors)
            .is_ok_and(|o| o.found.is_some())
    }

    /// The tick each schedule runs until, and the last tick a fault may come at.
    pub fn window(&self) -> (Time, Time) {
        (self.until, self.horizon)
    }

    /// Runs whole schedules (searching, then shrinking) until about `budget_steps` simulation
    /// steps were spent in this call, or the search is finished.
    pub fn advance(&mut self, budget_steps: u64) -> Progress {
        let mut spent = 0;
        while spent < budget_steps.max(1) && !self.finished() {
            spent += if self.shrinking.is_some() { self.shrink_one() } else { self.search_one() };
        }
        self.progress()
    }

    fn search_one(&mut self) -> u64 {
        if self.charged >= self.opts.budget_steps {
            self.exhausted = true;
            return 0;
        }
        let systematic = self.schedules % 2 == 1 && self.next_order.is_some();
        let (plan, depth) = match &self.next_order {
            Some(order) if systematic => {
                (Plan { order: order.clone(), ..Plan::plain(&self.base) }, self.opts.systematic_depth)
            }
            _ => {
                let (lo, hi) = self.opts.faults_per_schedule;
                let count = self.rng.range_inclusive(lo, hi);
                (Plan::random(&mut self.rng, &self.base, self.opts.faults, count, self.horizon), 0)
            }
        };
        self.schedules += 1;
        let errors = self.opts.handler_errors;
        let out =
            execute(self.algorithm, &self.base, &plan, &self.target, self.until, Some(&mut self.states), depth, errors);
        let Ok(out) = out else {
            self.charged += 1;
            return 1; // a schedule the scenario cannot run (cannot happen for a full node set)
        };
        self.steps += out.steps;
        self.charged += out.steps.max(1);
        if systematic {
            self.orders += 1;
            self.next_order = next_order(&plan.order, &out.branching, self.opts.systematic_branching);
        }
        if let Some(found) = out.found {
            self.found_at = self.schedules - 1;
            let queue = shrink::candidates(&plan, &self.base);
            self.shrinking = Some(Shrinking {
                faults_found: plan.faults.len(),
                deferrals_found: deferrals(&out.engine),
                best: plan,
                found,
                engine: out.engine,
                queue,
                runs: 0,
                last_pass: false,
            });
        }
        out.steps.max(1)
    }

    fn shrink_one(&mut self) -> u64 {
        let s = self.shrinking.as_mut().expect("shrinking");
        let mut next = if s.runs < self.opts.shrink_runs || s.last_pass { s.queue.pop_front() } else { None };
        if next.is_none() && !s.last_pass {
            // Whatever stopped the shrinking (its budget, or nothing smaller breaks it), the
            // result is made 1-minimal: each removal, tried until none still breaks it. Each
            // removal that breaks it takes a fault or a deferral out, so this ends.
            s.last_pass = true;
            s.queue = shrink::removals(&s.best);
            next = s.queue.pop_front();
        }
        let Some(cand) = next else {
            let s = self.shrinking.take().expect("shrinking");
            self.result = Some(self.finish(s));
            return 1;
        };
        s.runs += 1;
        let Ok(out) =
            execute(self.algorithm, &self.base, &cand, &self.target, self.until, None, 0, self.opts.handler_errors)
        else {
            return 1;
        };
        if let Some(found) = out.found {
            let better = shrink::measure(&cand, &found, &self.base) < shrink::measure(&s.best, &s.found, &self.base);
            if better {
                s.queue = if s.last_pass { shrink::removals(&cand) } else { shrink::candidates(&cand, &self.base) };
                s.best = cand;
                s.found = found;
                s.engine = out.engine;
            }
        }
        out.steps.max(1)
    }

    fn finish(&self, s: Shrinking) -> Counterexample {
        let mut engine = s.engine;
        engine.seek(s.found.step);
        let (base, plan) = (&self.base, &s.best);
        let changes = Changes {
            faults: (s.faults_found, plan.faults.len()),
            deferrals: (s.deferrals_found, deferrals(&engine)),
            seed: (plan.seed != base.seed).then_some((base.seed, plan.seed)),
            latency: (plan.latency != base.network.latency).then_some((base.network.latency, plan.latency)),
            removed: base.nodes.iter().copied().filter(|n| !plan.nodes.contains(n)).collect(),
        };
        let mut trace = engine.trace_value();
        trace["search"] = json!({"property": self.opts.property, "changes": changes.to_value()});
        Counterexample {
            property: self.opts.property.clone(),
            step: s.found.step,
            time: s.found.time,
            nodes: s.found.nodes,
            interventions: engine.interventions().to_vec(),
            faults_found: s.faults_found,
            schedule: self.found_at,
            trace,
            trace_hash: engine.trace_hash(),
            plan: s.best,
            changes,
        }
    }
}

/// Reads a property id against what `algorithm` claims.
fn target_of(algorithm: &'static Algorithm, id: &str) -> Result<Target, ScenarioError> {
    if let Some(t) = id.strip_prefix(NO_LEADER_WITHIN) {
        let t: Time = t.parse().ok().filter(|&t| t > 0).ok_or_else(|| {
            ScenarioError::new("property", format!("'{id}': expected a positive number of ticks after the colon"))
        })?;
        return Ok(Target::NoLeaderWithin(t));
    }
    if let Some(p) = algorithm.property(id) {
        return Ok(Target::Claimed(p.id));
    }
    if id == SPLIT_BRAIN {
        return Ok(Target::TwoLeaders);
    }
    Err(ScenarioError::new("property", format!("'{id}' is not a property {} has: {}", algorithm.id, known(algorithm))))
}

/// The property ids a search on `algorithm` accepts.
pub fn known(algorithm: &Algorithm) -> String {
    let mut ids: Vec<String> = algorithm.properties.iter().map(|p| p.id.to_string()).collect();
    if !ids.iter().any(|i| i == SPLIT_BRAIN) {
        ids.push(SPLIT_BRAIN.to_string());
    }
    ids.push(format!("{NO_LEADER_WITHIN}T"));
    ids.join(", ")
}
