//! The protocol-independent face of the engine: [`Engine`] runs any registered algorithm behind
//! one type, and hands out [`Frame`]s (what to draw), step descriptions, summaries and traces.
//!
//! The UI and the CLI never see protocol types: the registry builds a simulator ([`Sim`], which
//! the engine owns) over the protocol's type-erased machine, and everything an algorithm says
//! about itself is read from its [`Algorithm`] descriptor.

use crate::algorithm::Algorithm;
use crate::error::ScenarioError;
use crate::meta::{k, Kind, Lang};
use crate::observe::{Election, Violation};
use crate::protocol::View;
use crate::registry;
pub use crate::run::{Frame, Metrics, MsgFrame, NodeFrame, StepInfo};
use crate::scenario::{Action, Scenario};
use crate::sim::{Budget, EventKind, Rec, Sim};
use crate::trace::{Intervention, Trace};
use crate::{NodeId, Time};
use serde_json::{json, Map, Value};
use std::collections::BTreeMap;

mod jsonl;
mod moves;
mod replay;
pub use jsonl::{header_line, is_jsonl, node_state, Stop};
pub use replay::Replay;

/// A running scenario of any registered algorithm.
///
/// The engine owns its simulator ([`Sim`]) and hands out only what its callers need (see
/// `engine/moves.rs` for what the checker's replay reads): above this crate, nothing reaches the
/// simulator itself, so this does not compile:
///
/// ```compile_fail
/// fn world(e: &election_lab_protocols::Engine) {
///     let _ = e.sim();
/// }
/// ```
pub struct Engine {
    algorithm: &'static Algorithm,
    scenario: Scenario,
    sim: Sim,
    /// Breakpoint texts carried by the trace (see [`crate::trace::Trace::until`]).
    until: Vec<String>,
}

impl std::fmt::Debug for Engine {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "Engine({}, step {}/{})", self.algorithm.id, self.sim.cursor(), self.sim.head())
    }
}

impl Engine {
    /// Builds a run: the registry finds the scenario's algorithm, which checks its `params`.
    pub fn new(scenario: Scenario) -> Result<Engine, ScenarioError> {
        let algorithm = registry::find_or_err(&scenario.algorithm)?;
        algorithm.check_network(&scenario)?;
        let sim = (algorithm.build)(&scenario, algorithm.properties)?;
        Ok(Engine { algorithm, scenario, sim, until: vec![] })
    }

    /// Builds a run in summary-only mode: it keeps no history (no records, narration,
    /// checkpoints, nor the messages already delivered), so its memory follows the nodes and the
    /// messages in flight, not the length of the run. It runs forward only (`seek` cannot go
    /// back, `record` and `narrate` answer `None`), and ends exactly as [`Engine::new`]'s run
    /// would: the same summary, counts, elections, violations and trace hash. What
    /// `election-lab run --no-trace` and every sweep use.
    pub fn summary_only(scenario: Scenario) -> Result<Engine, ScenarioError> {
        let mut e = Engine::new(scenario)?;
        e.sim.summary_only();
        Ok(e)
    }

    /// How many messages' entries the run keeps: every message sent, or in summary-only mode
    /// only those that may still be in flight.
    pub fn kept_messages(&self) -> u64 {
        self.sim.kept_messages()
    }

    /// Whether this run keeps no history (see [`Engine::summary_only`]).
    pub fn is_summary_only(&self) -> bool {
        self.sim.is_summary_only()
    }

    /// Builds a run of `algorithm`, which need not be registered: the counterexample search's
    /// tests run protocol mutants this way, which no scenario file can name, and an algorithm
    /// written in a crate of its own runs so (see the guide's "Adding an algorithm").
    pub fn with_algorithm(algorithm: &'static Algorithm, scenario: Scenario) -> Result<Engine, ScenarioError> {
        algorithm.check_network(&scenario)?;
        let sim = (algorithm.build)(&scenario, algorithm.properties)?;
        Ok(Engine { algorithm, scenario, sim, until: vec![] })
    }

    pub fn from_json(text: &str) -> Result<Engine, ScenarioError> {
        Engine::new(Scenario::from_json(text)?)
    }

    /// Rebuilds a run from an exported trace: `{scenario, interventions, step}` (see
    /// [`crate::trace`]), or the JSON Lines `election-lab run --trace` writes (checked line by
    /// line against a re-run: see [`Engine::from_jsonl`]). A bare scenario is accepted too.
    pub fn from_trace_json(text: &str) -> Result<Engine, ScenarioError> {
        if is_jsonl(text) {
            return Engine::from_jsonl(text);
        }
        Engine::from_trace(Trace::from_json(text)?)
    }

    pub fn from_trace_value(value: &Value) -> Result<Engine, ScenarioError> {
        Engine::from_trace(Trace::from_value(value)?)
    }

    /// [`Engine::from_trace_json`] in summary-only mode (see [`Engine::summary_only`]).
    pub fn from_trace_json_summary_only(text: &str) -> Result<Engine, ScenarioError> {
        Engine::from_trace_in(Trace::from_json(text)?, true)
    }

    /// Replays a trace's interventions at their steps, then seeks to its step.
    pub fn from_trace(trace: Trace) -> Result<Engine, ScenarioError> {
        Engine::from_trace_in(trace, false)
    }

    /// [`Engine::from_trace`] for `algorithm`, which need not be registered (an algorithm of a
    /// crate of its own, checked by [`crate::conformance`]).
    pub fn from_trace_with(algorithm: &'static Algorithm, trace: Trace) -> Result<Engine, ScenarioError> {
        Engine::from_trace_built(trace, |s| Engine::with_algorithm(algorithm, s))
    }

    fn from_trace_in(trace: Trace, summary_only: bool) -> Result<Engine, ScenarioError> {
        Engine::from_trace_built(trace, if summary_only { Engine::summary_only } else { Engine::new })
    }

    fn from_trace_built(
        trace: Trace,
        build: impl FnOnce(Scenario) -> Result<Engine, ScenarioError>,
    ) -> Result<Engine, ScenarioError> {
        // The same work as `from_trace_later` and `replay_some` (`engine/replay.rs`, which
        // `crate/tests/slices.rs` checks against this), kept in one go here: the player's first
        // load has none of the slices' code.
        let prefix = if trace.bare { "" } else { "scenario" };
        let mut engine = build(trace.scenario).map_err(|e| e.within(prefix))?;
        engine.until = trace.until;
        for (i, iv) in trace.interventions.into_iter().enumerate() {
            let path = format!("interventions[{i}]");
            engine.seek(iv.step);
            if engine.cursor() != iv.step {
                return Err(ScenarioError::new(
                    format!("{path}.step"),
                    format!("the run ends at step {}, before step {}", engine.cursor(), iv.step),
                ));
            }
            engine.sim.apply_at(iv.action, iv.time).map_err(|e| ScenarioError::new(path, e.to_string()))?;
        }
        let target = trace.step.unwrap_or(engine.cursor());
        engine.seek(target);
        Ok(engine)
    }

    /// Applies interventions recorded on another run (possibly of another algorithm on the same
    /// nodes) by virtual time: each is applied once every event up to its `time` has run.
    /// Message drops, deferrals, forced deliveries and forced timers name messages and timers of the other run and are skipped. Used to put the same drawn
    /// faults on several algorithms.
    pub fn replay_by_time(&mut self, interventions: &[Intervention]) -> Result<(), ScenarioError> {
        for (i, iv) in interventions.iter().enumerate() {
            if matches!(iv.action, Action::Drop(_) | Action::Defer(_) | Action::Deliver(_) | Action::Fire { .. }) {
                continue;
            }
            if iv.time > self.now() {
                self.run_until(iv.time);
            }
            // This run may be past the time already (its events fell differently): then the
            // intervention lands at its current time.
            let at = iv.time.max(self.now());
            self.sim
                .apply_at(iv.action.clone(), Some(at))
                .map_err(|e| ScenarioError::new(format!("interventions[{i}]"), e.to_string()))?;
        }
        Ok(())
    }

    /// The trace as the UI and CLI export it: scenario + interventions + the cursor.
    pub fn trace_value(&self) -> Value {
        let mut v = Trace::value(&self.scenario, self.sim.interventions(), Some(self.sim.cursor()));
        if !self.until.is_empty() {
            v["until"] = json!(self.until);
        }
        v
    }

    /// The breakpoint texts this run carries in its trace (see `election_lab::breakpoint`; this
    /// engine stores them, the breakpoint module reads them).
    pub fn until(&self) -> &[String] {
        &self.until
    }
    pub fn set_until(&mut self, until: Vec<String>) {
        self.until = until;
    }

    /// What the algorithm says about itself (title, kinds, properties, formulas, presets).
    pub fn algorithm(&self) -> &'static Algorithm {
        self.algorithm
    }
    pub fn scenario(&self) -> &Scenario {
        &self.scenario
    }
    pub fn step(&mut self) -> bool {
        self.sim.step()
    }
    pub fn run(&mut self, max_steps: u64) -> u64 {
        self.sim.run(max_steps)
    }
    /// Runs until quiescent or a stop limit.
    pub fn run_to_end(&mut self) {
        while self.sim.run(u64::MAX) > 0 {}
    }
    pub fn run_until(&mut self, t: Time) {
        self.sim.run_until(t)
    }
    pub fn seek(&mut self, step: u64) {
        self.sim.seek(step)
    }
    /// [`Engine::seek`] in slices of at most `budget` steps: true once the cursor is at
    /// `step` (or the run ended before it); until then the cursor stays (see
    /// [`Sim::seek_some`]).
    pub fn seek_some(&mut self, step: u64, budget: u64) -> bool {
        self.sim.seek_some(step, budget)
    }
    /// The step the last slice of work stopped at (progress of [`Engine::seek_some`]).
    pub fn work_step(&self) -> Option<u64> {
        self.sim.work_step()
    }
    /// Computes the run ahead, toward step `step`, for at most `budget` steps without moving
    /// the cursor: true once the head reaches it or the run ends (see [`Sim::advance_some`]).
    pub fn advance_some(&mut self, step: u64, budget: u64) -> bool {
        self.sim.advance_some(step, budget)
    }
    /// Applies an intervention at the cursor (forking if the cursor is in the past).
    pub fn apply(&mut self, action: Action) -> Result<(), ScenarioError> {
        self.sim.apply(action)
    }
    /// Applies an intervention at the cursor at virtual time `time`, which may lie between the
    /// last event and the next one.
    pub fn apply_at(&mut self, action: Action, time: Time) -> Result<(), ScenarioError> {
        self.sim.apply_at(action, Some(time))
    }
    pub fn cursor(&self) -> u64 {
        self.sim.cursor()
    }
    pub fn head(&self) -> u64 {
        self.sim.head()
    }
    pub fn now(&self) -> Time {
        self.sim.now()
    }
    pub fn quiescent(&self) -> bool {
        self.sim.quiescent()
    }
    pub fn trace_hash(&self) -> u64 {
        self.sim.hash()
    }
    /// Live nodes that believe they lead, at the cursor (what [`Engine::frame`] lists, without
    /// drawing the rest).
    pub fn leaders(&self) -> Vec<NodeId> {
        self.sim.observers().leaders.iter().copied().collect()
    }
    /// The leader every live node names, if they agree (as in [`Engine::frame`]).
    pub fn agreement(&self) -> Option<NodeId> {
        self.sim.observers().agreed
    }
    /// Since when the live nodes have not named one leader, at the cursor (`None` while they
    /// agree): the time an election in progress started, as the invariants panel shows it.
    pub fn electing_since(&self) -> Option<u64> {
        self.sim.observers().disagree_since()
    }
    /// Partition labels per node in scenario order, if partitioned (as in [`Engine::frame`]).
    pub fn groups(&self) -> Option<&[u32]> {
        self.sim.labels()
    }
    pub fn frame(&self) -> Frame {
        self.sim.frame()
    }
    pub fn metrics(&self) -> Metrics {
        self.sim.metrics()
    }
    pub fn inspect(&self, id: NodeId) -> Vec<crate::field::Field> {
        self.sim.idx(id).map_or_else(Vec::new, |i| self.sim.inspect_node(i))
    }
    /// Node `id`'s view at the cursor (None: no such node); cheaper than a whole [`Frame`]. A
    /// crashed node keeps its last state's view, as the frame draws it.
    pub fn node_view(&self, id: NodeId) -> Option<View> {
        let i = self.sim.idx(id)?;
        Some(self.sim.observers().views[i].clone().unwrap_or_else(|| self.sim.view(i)))
    }
    pub fn step_info(&self, step: u64) -> Option<StepInfo> {
        self.sim.step_info_in(step, Lang::En)
    }
    /// [`Engine::step_info`] with its text in `lang` (the event log of the page).
    pub fn step_info_in(&self, step: u64, lang: Lang) -> Option<StepInfo> {
        self.sim.step_info_in(step, lang)
    }
    /// Step `step` (1-based) explained in one or two plain sentences, in `lang`.
    pub fn narrate(&self, step: u64, lang: Lang) -> Option<String> {
        self.sim.narrate(step, lang)
    }
    /// The interventions made at step `step` (after its event), each in one plain sentence, or
    /// `None` when none was made there. A crashed leader's followers are told to wait for their
    /// timeout, since nothing moves until it runs out.
    pub fn narrate_interventions(&self, step: u64, lang: Lang) -> Option<String> {
        let zh = lang == Lang::Zh;
        let ivs: Vec<&Intervention> = self.interventions().iter().filter(|iv| iv.step == step).collect();
        if ivs.is_empty() {
            return None;
        }
        let frame = self.frame();
        let followed = |n: NodeId| frame.nodes.iter().any(|x| x.id != n && x.up && x.view.leader == Some(n));
        let parts: Vec<String> = ivs
            .iter()
            .map(|iv| match &iv.action {
                Action::Crash(n) if followed(*n) => k::engine_crash_followed(*n).render(lang),
                Action::Crash(n) => k::engine_crash_alone(*n).render(lang),
                a => k::ENGINE_INTERVENTION_AT.format(lang, &[&iv.time, &a.describe_in(lang)]),
            })
            .collect();
        Some(parts.join(if zh { "" } else { " " }))
    }
    pub fn record(&self, step: u64) -> Option<Rec> {
        self.sim.record(step)
    }
    pub fn kinds(&self) -> &'static [Kind] {
        self.sim.kinds()
    }
    /// The names of the algorithm's timers (`ELECTION_TIMEOUT`, `HEARTBEAT`).
    pub fn timer_names(&self) -> &'static [&'static str] {
        self.sim.machine().timer_names()
    }
    /// The view fields the algorithm's views carry, by their breakpoint names (`term`, `vote`).
    pub fn view_fields(&self) -> &'static [&'static str] {
        self.sim.machine().view_fields()
    }
    pub fn violations(&self) -> &[Violation] {
        self.sim.violations()
    }
    pub fn all_violations(&self) -> &[Violation] {
        self.sim.all_violations()
    }
    pub fn elections(&self) -> &[Election] {
        self.sim.elections()
    }
    /// Elections up to the head (for timeline markers).
    pub fn all_elections(&self) -> &[Election] {
        self.sim.all_elections()
    }
    /// Tick of the next event, if any (within the scenario's stop time or not).
    pub fn next_event_time(&mut self) -> Option<Time> {
        self.sim.next_event_time()
    }
    pub fn stop_time(&self) -> Time {
        self.sim.stop().max_time
    }
    pub fn interventions(&self) -> &[Intervention] {
        self.sim.interventions()
    }
    /// Highest tally each node reached as a candidate (quorum protocols).
    pub fn max_tally(&self) -> Vec<(NodeId, u32)> {
        self.sim.max_tally()
    }
    /// Whether node `id` is up at the cursor (None: no such node).
    pub fn is_up(&self, id: NodeId) -> Option<bool> {
        self.sim.idx(id).map(|i| self.sim.is_up(i))
    }

    /// Why the run stopped early, if it ran out of history budget (see [`Budget`]) or the
    /// algorithm's own code failed.
    pub fn halted(&self) -> Option<String> {
        self.sim.halted()
    }
    /// The failure of the algorithm's own code that stopped the run, if any (a scripted
    /// algorithm's runtime error or exhausted budget: see [`crate::protocol::Protocol::fault`]).
    pub fn fault(&self) -> Option<String> {
        self.sim.fault()
    }
    /// The step at which the algorithm's own code failed, wherever the cursor is (see
    /// [`Engine::fault`], which answers at the cursor).
    pub fn fault_step(&self) -> Option<u64> {
        self.sim.fault_step()
    }
    /// Whether the history budget stopped the run at its head (wherever the cursor is).
    pub fn head_at_budget(&self) -> bool {
        self.sim.head_at_budget()
    }
    /// The history budget in force ([`Budget::default`]: [`Budget::TAB`] in a browser tab).
    pub fn budget(&self) -> Budget {
        self.sim.budget()
    }
    /// Replaces the history budget (the default keeps under half a gigabyte natively).
    pub fn set_budget(&mut self, budget: Budget) {
        self.sim.set_budget(budget)
    }

    /// The CLI's result object.
    pub fn summary(&self) -> Value {
        let f = self.frame();
        let m = self.metrics();
        let views: Map<String, Value> = f
            .nodes
            .iter()
            .filter(|n| n.up)
            .map(|n| (n.id.to_string(), n.view.leader.map_or(Value::Null, |l| json!(l))))
            .collect();
        let messages: BTreeMap<&str, u64> = m.by_kind.iter().copied().filter(|&(_, c)| c > 0).collect();
        let mut out = json!({
            "algorithm": self.algorithm.id,
            "seed": self.scenario.seed,
            "end_time": f.time,
            "steps": f.step,
            "quiescent": f.quiescent,
            "leaders": f.leaders,
            "views": views,
            "agreement": f.agreement.is_some(),
            "messages": messages,
            "total_messages": m.total,
            "max_simultaneous_leaders": m.max_simultaneous_leaders,
            "violations": self.violations().iter().map(violation_json).collect::<Vec<_>>(),
            "elections": self.elections().iter().map(election_json).collect::<Vec<_>>(),
            "trace_hash": format!("{:016x}", self.trace_hash()),
            "halted": self.halted(),
        });
        if let Some(st) = &f.store {
            let history: Vec<Value> = self
                .sim
                .store_history()
                .iter()
                .map(|(w, v)| json!({"time": v.time, "node": w.node, "token": w.token, "value": w.value, "accepted": v.accepted}))
                .collect();
            out["store"] = json!({
                "value": st.store.value,
                "max_token": st.store.max_token,
                "accepted": st.store.accepted,
                "rejected": st.store.rejected,
                "history": history,
            });
        }
        out
    }

    /// One JSON Lines record for step `step` (1-based).
    pub fn trace_line(&self, step: u64) -> Option<Value> {
        let info = self.step_info(step)?;
        let rec = self.record(step)?;
        let mut o = Map::new();
        o.insert("step".into(), json!(step));
        o.insert("time".into(), json!(info.time));
        o.insert("event".into(), json!(info.event));
        match rec.kind {
            EventKind::Deliver | EventKind::Drop(_) => {
                o.insert("msg".into(), json!(rec.aux));
                o.insert("kind".into(), json!(info.kind));
                o.insert("from".into(), json!(rec.peer));
                o.insert("to".into(), json!(rec.node));
                if let EventKind::Drop(r) = rec.kind {
                    o.insert("reason".into(), json!(r.name()));
                }
            }
            EventKind::Timer(name) => {
                o.insert("node".into(), json!(rec.node));
                o.insert("timer".into(), json!(name));
            }
            EventKind::Write => {
                let writes: Vec<Value> = self
                    .sim
                    .store_writes(&rec)
                    .iter()
                    .map(|w| json!({"node": w.node, "token": w.token, "value": w.value, "arrive": w.arrive}))
                    .collect();
                o.insert("writes".into(), Value::Array(writes));
            }
            EventKind::Store { accepted } => {
                o.insert("write".into(), json!(rec.aux));
                o.insert("node".into(), json!(rec.node));
                o.insert("accepted".into(), json!(accepted));
            }
            EventKind::Fault => {
                let mut a = Map::new();
                self.scenario.schedule[rec.aux as usize].action.write_json(&mut a);
                o.insert("action".into(), Value::Object(a));
            }
        }
        o.insert("text".into(), json!(info.text));
        if !info.sends.is_empty() {
            let sends: Vec<Value> = info
                .sends
                .iter()
                .map(|&(id, to, kind, at)| json!({"msg": id, "to": to, "kind": kind, "deliver": at}))
                .collect();
            o.insert("sends".into(), Value::Array(sends));
        }
        Some(Value::Object(o))
    }
}

/// One stretch without agreement that ended in agreement: `{from, to, leader, latency}` (ticks;
/// `latency = to − from`). A stretch still open when the run ends is not listed.
pub fn election_json(e: &Election) -> Value {
    json!({"from": e.from, "to": e.to, "leader": e.leader, "latency": e.latency()})
}

pub fn violation_json(v: &Violation) -> Value {
    let mut o = json!({"kind": v.kind, "time": v.time, "step": v.step, "nodes": v.nodes});
    if let Some(t) = v.term {
        o["term"] = json!(t);
    }
    o
}
