//! The protocol-independent face of the engine: [`Engine`] runs any registered algorithm behind
//! one type, and hands out [`Frame`]s (what to draw), step descriptions, summaries and traces.
//!
//! The UI and the CLI never see protocol types: the registry builds a simulator over the
//! protocol's type-erased machine, behind the object-safe [`Run`] trait, and everything an algorithm says about itself is read from its
//! [`Algorithm`] descriptor.

use crate::algorithm::Algorithm;
use crate::error::ScenarioError;
use crate::meta::{Kind, Lang, Text};
use crate::observe::{Election, Violation};
use crate::registry;
pub use crate::run::{Frame, Metrics, MsgFrame, NodeFrame, Run, StepInfo};
use crate::scenario::{Action, Scenario};
use crate::sim::{Budget, EventKind, Rec};
use crate::trace::{Intervention, Trace};
use crate::{NodeId, Time};
use serde_json::{json, Map, Value};
use std::collections::BTreeMap;

/// A running scenario of any registered algorithm.
pub struct Engine {
    algorithm: &'static Algorithm,
    scenario: Scenario,
    run: Box<dyn Run>,
}

impl std::fmt::Debug for Engine {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "Engine({}, step {}/{})", self.algorithm.id, self.run.cursor(), self.run.head())
    }
}

impl Engine {
    /// Builds a run: the registry finds the scenario's algorithm, which checks its `params`.
    pub fn new(scenario: Scenario) -> Result<Engine, ScenarioError> {
        let algorithm = registry::find_or_err(&scenario.algorithm)?;
        let run = (algorithm.build)(&scenario, algorithm.properties)?;
        Ok(Engine { algorithm, scenario, run })
    }

    pub fn from_json(text: &str) -> Result<Engine, ScenarioError> {
        Engine::new(Scenario::from_json(text)?)
    }

    /// Rebuilds a run from an exported trace: `{scenario, interventions, step}` (see
    /// [`crate::trace`]). A bare scenario is accepted too.
    pub fn from_trace_json(text: &str) -> Result<Engine, ScenarioError> {
        Engine::from_trace(Trace::from_json(text)?)
    }

    pub fn from_trace_value(value: &Value) -> Result<Engine, ScenarioError> {
        Engine::from_trace(Trace::from_value(value)?)
    }

    /// Replays a trace's interventions at their steps, then seeks to its step.
    pub fn from_trace(trace: Trace) -> Result<Engine, ScenarioError> {
        let prefix = if trace.bare { "" } else { "scenario" };
        let mut engine = Engine::new(trace.scenario).map_err(|e| e.within(prefix))?;
        for (i, iv) in trace.interventions.into_iter().enumerate() {
            let path = format!("interventions[{i}]");
            engine.seek(iv.step);
            if engine.cursor() != iv.step {
                return Err(ScenarioError::new(
                    format!("{path}.step"),
                    format!("the run ends at step {}, before step {}", engine.cursor(), iv.step),
                ));
            }
            engine.run.apply_at(iv.action, iv.time).map_err(|e| ScenarioError::new(path, e.to_string()))?;
        }
        let target = trace.step.unwrap_or(engine.cursor());
        engine.seek(target);
        Ok(engine)
    }

    /// Applies interventions recorded on another run (possibly of another algorithm on the same
    /// nodes) by virtual time: each is applied once every event up to its `time` has run.
    /// Message drops name messages of the other run and are skipped. Used to put the same drawn
    /// faults on several algorithms.
    pub fn replay_by_time(&mut self, interventions: &[Intervention]) -> Result<(), ScenarioError> {
        for (i, iv) in interventions.iter().enumerate() {
            if matches!(iv.action, Action::Drop(_)) {
                continue;
            }
            if iv.time > self.now() {
                self.run_until(iv.time);
            }
            // This run may be past the time already (its events fell differently): then the
            // intervention lands at its current time.
            let at = iv.time.max(self.now());
            self.run
                .apply_at(iv.action.clone(), Some(at))
                .map_err(|e| ScenarioError::new(format!("interventions[{i}]"), e.to_string()))?;
        }
        Ok(())
    }

    /// The trace as the UI and CLI export it: scenario + interventions + the cursor.
    pub fn trace_value(&self) -> Value {
        Trace::value(&self.scenario, self.run.interventions(), Some(self.run.cursor()))
    }

    /// What the algorithm says about itself (title, kinds, properties, formulas, presets).
    pub fn algorithm(&self) -> &'static Algorithm {
        self.algorithm
    }
    pub fn scenario(&self) -> &Scenario {
        &self.scenario
    }
    pub fn step(&mut self) -> bool {
        self.run.step()
    }
    pub fn run(&mut self, max_steps: u64) -> u64 {
        self.run.run(max_steps)
    }
    /// Runs until quiescent or a stop limit.
    pub fn run_to_end(&mut self) {
        while self.run.run(u64::MAX) > 0 {}
    }
    pub fn run_until(&mut self, t: Time) {
        self.run.run_until(t)
    }
    pub fn seek(&mut self, step: u64) {
        self.run.seek(step)
    }
    /// Applies an intervention at the cursor (forking if the cursor is in the past).
    pub fn apply(&mut self, action: Action) -> Result<(), ScenarioError> {
        self.run.apply_at(action, None)
    }
    /// Applies an intervention at the cursor at virtual time `time`, which may lie between the
    /// last event and the next one.
    pub fn apply_at(&mut self, action: Action, time: Time) -> Result<(), ScenarioError> {
        self.run.apply_at(action, Some(time))
    }
    pub fn cursor(&self) -> u64 {
        self.run.cursor()
    }
    pub fn head(&self) -> u64 {
        self.run.head()
    }
    pub fn now(&self) -> Time {
        self.run.now()
    }
    pub fn quiescent(&self) -> bool {
        self.run.quiescent()
    }
    pub fn trace_hash(&self) -> u64 {
        self.run.hash()
    }
    pub fn frame(&self) -> Frame {
        self.run.frame()
    }
    pub fn metrics(&self) -> Metrics {
        self.run.metrics()
    }
    pub fn inspect(&self, id: NodeId) -> Vec<(Text, String)> {
        self.run.inspect(id)
    }
    pub fn step_info(&self, step: u64) -> Option<StepInfo> {
        self.run.step_info(step)
    }
    /// [`Engine::step_info`] with its text in `lang` (the event log of the page).
    pub fn step_info_in(&self, step: u64, lang: Lang) -> Option<StepInfo> {
        self.run.step_info_in(step, lang)
    }
    /// Step `step` (1-based) explained in one or two plain sentences, in `lang`.
    pub fn narrate(&self, step: u64, lang: Lang) -> Option<String> {
        self.run.narrate(step, lang)
    }
    pub fn record(&self, step: u64) -> Option<Rec> {
        self.run.record(step)
    }
    pub fn kinds(&self) -> &'static [Kind] {
        self.run.kinds()
    }
    pub fn violations(&self) -> &[Violation] {
        self.run.violations()
    }
    pub fn all_violations(&self) -> &[Violation] {
        self.run.all_violations()
    }
    pub fn elections(&self) -> &[Election] {
        self.run.elections()
    }
    /// Elections up to the head (for timeline markers).
    pub fn all_elections(&self) -> &[Election] {
        self.run.all_elections()
    }
    /// Tick of the next event, if any (within the scenario's stop time or not).
    pub fn next_event_time(&mut self) -> Option<Time> {
        self.run.next_event_time()
    }
    pub fn stop_time(&self) -> Time {
        self.run.stop_time()
    }
    pub fn interventions(&self) -> &[Intervention] {
        self.run.interventions()
    }
    /// Highest tally each node reached as a candidate (quorum protocols).
    pub fn max_tally(&self) -> Vec<(NodeId, u32)> {
        self.run.max_tally()
    }
    /// Whether node `id` is up at the cursor (None: no such node).
    pub fn is_up(&self, id: NodeId) -> Option<bool> {
        self.run.is_up(id)
    }

    /// Why the run stopped early, if it ran out of history budget (see [`Budget`]).
    pub fn halted(&self) -> Option<String> {
        self.run.halted()
    }
    /// Replaces the history budget (the default keeps about a gigabyte).
    pub fn set_budget(&mut self, budget: Budget) {
        self.run.set_budget(budget)
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
                .run
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
                    .run
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
