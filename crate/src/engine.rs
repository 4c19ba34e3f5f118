//! The protocol-independent face of the engine: [`Engine`] runs any scenario behind one type,
//! and hands out [`Frame`]s (what to draw), step descriptions, summaries and traces.
//!
//! The UI and the CLI never see protocol types: `Engine` boxes a `Sim<P>` behind the object-safe
//! [`Run`] trait, so the hot loops stay monomorphic while everything outside is not generic.

use crate::observe::{Election, Violation};
use crate::protocol::{Message, Protocol, View};
use crate::protocols::{bully::Bully, chang_roberts::ChangRoberts, raft::Raft};
use crate::scenario::{Action, Algorithm, Scenario, ScenarioError};
use crate::sim::{EventKind, Rec, Sim};
use crate::{NodeId, Time};
use serde_json::{json, Map, Value};
use std::collections::BTreeMap;

/// One node as drawn.
#[derive(Clone, Debug, PartialEq)]
pub struct NodeFrame {
    pub id: NodeId,
    pub up: bool,
    /// The protocol's view (role, leader, term, vote, tally); for a crashed node, the last state's.
    pub view: View,
}

/// One message in flight.
#[derive(Clone, Debug, PartialEq)]
pub struct MsgFrame {
    pub id: u64,
    pub kind: &'static str,
    pub label: String,
    pub from: NodeId,
    pub to: NodeId,
    pub sent: Time,
    pub deliver: Time,
    /// Will not arrive (lost by the network or dropped by hand).
    pub doomed: bool,
}

/// Everything the UI draws for one step.
#[derive(Clone, Debug, PartialEq)]
pub struct Frame {
    pub step: u64,
    pub time: Time,
    pub nodes: Vec<NodeFrame>,
    pub messages: Vec<MsgFrame>,
    /// Partition label per node (scenario order), if partitioned.
    pub groups: Option<Vec<u32>>,
    pub cuts: Vec<(NodeId, NodeId)>,
    pub leaders: Vec<NodeId>,
    pub agreement: Option<NodeId>,
    pub quiescent: bool,
}

/// Totals at the cursor.
#[derive(Clone, Debug, PartialEq)]
pub struct Metrics {
    /// Sent messages per kind, in the protocol's kind order.
    pub by_kind: Vec<(&'static str, u64)>,
    pub total: u64,
    pub delivered: u64,
    pub dropped: u64,
    pub in_flight: u64,
    pub max_simultaneous_leaders: u32,
    pub sent_by_node: Vec<(NodeId, u64)>,
}

/// A step, described for logs and the space-time diagram.
#[derive(Clone, Debug, PartialEq)]
pub struct StepInfo {
    pub step: u64,
    pub time: Time,
    /// "deliver", "drop", "timer" or "fault".
    pub event: &'static str,
    pub node: NodeId,
    pub peer: Option<NodeId>,
    pub kind: Option<&'static str>,
    pub text: String,
    /// For deliveries and drops: when the message was sent.
    pub sent: Option<Time>,
    /// Messages this step sent: (id, to, kind, deliver time).
    pub sends: Vec<(u64, NodeId, &'static str, Time)>,
}

/// The run behind an [`Engine`]: `Sim<P>` for every protocol.
pub trait Run {
    fn step(&mut self) -> bool;
    fn run(&mut self, max_steps: u64) -> u64;
    fn run_until(&mut self, t: Time);
    fn seek(&mut self, step: u64);
    fn apply(&mut self, action: Action) -> Result<(), ScenarioError>;
    fn cursor(&self) -> u64;
    fn head(&self) -> u64;
    fn now(&self) -> Time;
    fn quiescent(&self) -> bool;
    fn hash(&self) -> u64;
    fn frame(&self) -> Frame;
    fn metrics(&self) -> Metrics;
    fn inspect(&self, id: NodeId) -> Vec<(&'static str, String)>;
    fn step_info(&self, step: u64) -> Option<StepInfo>;
    fn record(&self, step: u64) -> Option<Rec>;
    fn kinds(&self) -> &'static [&'static str];
    fn violations(&self) -> &[Violation];
    fn all_violations(&self) -> &[Violation];
    fn elections(&self) -> &[Election];
    fn all_elections(&self) -> &[Election];
    fn next_event_time(&mut self) -> Option<Time>;
    fn stop_time(&self) -> Time;
    fn interventions(&self) -> &[(u64, Action)];
    fn max_tally(&self) -> Vec<(NodeId, u32)>;
    fn is_up(&self, id: NodeId) -> Option<bool>;
}

impl<P: Protocol> Run for Sim<P> {
    fn step(&mut self) -> bool {
        Sim::step(self)
    }
    fn run(&mut self, max_steps: u64) -> u64 {
        Sim::run(self, max_steps)
    }
    fn run_until(&mut self, t: Time) {
        Sim::run_until(self, t)
    }
    fn seek(&mut self, step: u64) {
        Sim::seek(self, step)
    }
    fn apply(&mut self, action: Action) -> Result<(), ScenarioError> {
        Sim::apply(self, action)
    }
    fn cursor(&self) -> u64 {
        Sim::cursor(self)
    }
    fn head(&self) -> u64 {
        Sim::head(self)
    }
    fn now(&self) -> Time {
        Sim::now(self)
    }
    fn quiescent(&self) -> bool {
        Sim::quiescent(self)
    }
    fn hash(&self) -> u64 {
        Sim::hash(self)
    }
    fn frame(&self) -> Frame {
        let obs = self.observers();
        let nodes = (0..self.cfg.n())
            .map(|i| NodeFrame {
                id: self.cfg.ids[i],
                up: self.is_up(i),
                view: obs.views[i].clone().unwrap_or_else(|| self.proto.view(self.state(i))),
            })
            .collect();
        let messages = self
            .in_flight()
            .map(|(id, m)| MsgFrame {
                id,
                kind: P::KINDS[m.msg.kind()],
                label: m.msg.label(),
                from: m.from,
                to: m.to,
                sent: m.sent,
                deliver: m.deliver,
                doomed: m.lost || self.is_manually_dropped(id),
            })
            .collect();
        Frame {
            step: self.cursor(),
            time: self.now(),
            nodes,
            messages,
            groups: self.labels().map(|l| l.to_vec()),
            cuts: self.cuts().collect(),
            leaders: obs.leaders.iter().copied().collect(),
            agreement: obs.agreed,
            quiescent: self.quiescent(),
        }
    }
    fn metrics(&self) -> Metrics {
        let obs = self.observers();
        Metrics {
            by_kind: P::KINDS.iter().copied().zip(obs.sent_by_kind.iter().copied()).collect(),
            total: obs.total_sent(),
            delivered: obs.delivered,
            dropped: obs.dropped,
            in_flight: obs.in_flight,
            max_simultaneous_leaders: obs.max_simultaneous,
            sent_by_node: self.cfg.ids.iter().copied().zip(obs.sent_by_node.iter().copied()).collect(),
        }
    }
    fn inspect(&self, id: NodeId) -> Vec<(&'static str, String)> {
        match self.idx(id) {
            Some(i) => self.proto.inspect(self.state(i)),
            None => vec![],
        }
    }
    fn step_info(&self, step: u64) -> Option<StepInfo> {
        let rec = *self.records().get(step.checked_sub(1)? as usize)?;
        let sends = (rec.msgs.0..rec.msgs.1)
            .filter_map(|id| self.message(id).map(|m| (id, m.to, P::KINDS[m.msg.kind()], m.deliver)))
            .collect();
        let t = rec.time;
        let sent = match rec.kind {
            EventKind::Deliver | EventKind::Drop(_) => self.message(rec.aux).map(|m| m.sent),
            _ => None,
        };
        let (event, peer, kind, text) = match rec.kind {
            EventKind::Deliver | EventKind::Drop(_) => {
                let m = self.message(rec.aux)?;
                let kind = P::KINDS[m.msg.kind()];
                let (event, tail) = match rec.kind {
                    EventKind::Drop(r) => ("drop", format!(" dropped ({})", r.name())),
                    _ => ("deliver", String::new()),
                };
                (event, Some(rec.peer), Some(kind), format!("t={t} N{} → N{} {}{tail}", rec.peer, rec.node, m.msg.label()))
            }
            EventKind::Timer(name) => ("timer", None, None, format!("t={t} N{} timer {name}", rec.node)),
            EventKind::Fault => {
                let action = &self.schedule()[rec.aux as usize].action;
                ("fault", None, None, format!("t={t} {}", action.describe()))
            }
        };
        Some(StepInfo { step, time: t, event, node: rec.node, peer, kind, text, sent, sends })
    }
    fn record(&self, step: u64) -> Option<Rec> {
        self.records().get(step.checked_sub(1)? as usize).copied()
    }
    fn kinds(&self) -> &'static [&'static str] {
        P::KINDS
    }
    fn violations(&self) -> &[Violation] {
        Sim::violations(self)
    }
    fn all_violations(&self) -> &[Violation] {
        Sim::all_violations(self)
    }
    fn elections(&self) -> &[Election] {
        Sim::elections(self)
    }
    fn all_elections(&self) -> &[Election] {
        Sim::all_elections(self)
    }
    fn next_event_time(&mut self) -> Option<Time> {
        Sim::next_event_time(self)
    }
    fn stop_time(&self) -> Time {
        self.stop().max_time
    }
    fn interventions(&self) -> &[(u64, Action)] {
        Sim::interventions(self)
    }
    fn max_tally(&self) -> Vec<(NodeId, u32)> {
        self.cfg.ids.iter().copied().zip(self.observers().max_tally.iter().copied()).collect()
    }
    fn is_up(&self, id: NodeId) -> Option<bool> {
        self.idx(id).map(|i| Sim::is_up(self, i))
    }
}

/// Checks a scenario's protocol parameters (called by `Scenario::from_value`).
pub fn check_params(s: &Scenario) -> Result<(), ScenarioError> {
    match s.algorithm {
        Algorithm::Bully => Bully::from_scenario(s).map(|_| ()),
        Algorithm::ChangRoberts => ChangRoberts::from_scenario(s).map(|_| ()),
        Algorithm::Raft => Raft::from_scenario(s).map(|_| ()),
    }
}

/// A running scenario of any algorithm.
pub struct Engine {
    scenario: Scenario,
    run: Box<dyn Run>,
}

impl std::fmt::Debug for Engine {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "Engine({}, step {}/{})", self.scenario.algorithm.name(), self.run.cursor(), self.run.head())
    }
}

impl Engine {
    pub fn new(scenario: Scenario) -> Result<Engine, ScenarioError> {
        let run: Box<dyn Run> = match scenario.algorithm {
            Algorithm::Bully => Box::new(Sim::new(Bully::from_scenario(&scenario)?, &scenario)),
            Algorithm::ChangRoberts => Box::new(Sim::new(ChangRoberts::from_scenario(&scenario)?, &scenario)),
            Algorithm::Raft => Box::new(Sim::new(Raft::from_scenario(&scenario)?, &scenario)),
        };
        Ok(Engine { scenario, run })
    }

    pub fn from_json(text: &str) -> Result<Engine, ScenarioError> {
        Engine::new(Scenario::from_json(text)?)
    }

    /// Rebuilds a run from an exported trace: `{scenario, interventions, step}`.
    /// A bare scenario is accepted too.
    pub fn from_trace_json(text: &str) -> Result<Engine, ScenarioError> {
        let value: Value = serde_json::from_str(text).map_err(|e| ScenarioError::new("", format!("not valid JSON: {e}")))?;
        Engine::from_trace_value(&value)
    }

    pub fn from_trace_value(value: &Value) -> Result<Engine, ScenarioError> {
        let Some(obj) = value.as_object() else {
            return Err(ScenarioError::new("", "a trace must be a JSON object"));
        };
        if !obj.contains_key("scenario") {
            return Engine::new(Scenario::from_value(value)?);
        }
        for k in obj.keys() {
            if !["scenario", "interventions", "step", "format"].contains(&k.as_str()) {
                return Err(ScenarioError::new(k.clone(), "unknown field (a trace has scenario, interventions, step)"));
            }
        }
        let scenario = Scenario::from_value(&obj["scenario"]).map_err(|e| ScenarioError::new(prefixed("scenario", &e.field), e.message))?;
        let mut engine = Engine::new(scenario)?;
        let ivs = match obj.get("interventions") {
            None | Some(Value::Null) => vec![],
            Some(Value::Array(a)) => a.clone(),
            Some(_) => return Err(ScenarioError::new("interventions", "expected a list")),
        };
        let mut last = 0;
        for (i, iv) in ivs.iter().enumerate() {
            let path = format!("interventions[{i}]");
            let o = iv.as_object().ok_or_else(|| ScenarioError::new(path.clone(), "expected an object like {\"step\": 4, \"crash\": 80}"))?;
            let step = o
                .get("step")
                .and_then(Value::as_u64)
                .ok_or_else(|| ScenarioError::new(format!("{path}.step"), "expected the step number it was applied at"))?;
            if step < last {
                return Err(ScenarioError::new(format!("{path}.step"), "interventions must be in step order"));
            }
            last = step;
            let action = Action::from_object(o, "step", &path)?;
            engine.seek(step);
            if engine.cursor() != step {
                return Err(ScenarioError::new(format!("{path}.step"), format!("the run ends at step {}, before step {step}", engine.cursor())));
            }
            engine.apply(action).map_err(|e| ScenarioError::new(path.clone(), e.to_string()))?;
        }
        let target = match obj.get("step") {
            None | Some(Value::Null) => engine.cursor(),
            Some(v) => v.as_u64().ok_or_else(|| ScenarioError::new("step", "expected a step number"))?,
        };
        engine.seek(target);
        Ok(engine)
    }

    /// The trace as the UI and CLI export it: scenario + interventions (+ the cursor).
    pub fn trace_value(&self) -> Value {
        let ivs: Vec<Value> = self
            .run
            .interventions()
            .iter()
            .map(|(step, a)| {
                let mut o = Map::new();
                o.insert("step".into(), json!(step));
                a.write_json(&mut o);
                Value::Object(o)
            })
            .collect();
        json!({"format": "election-lab-trace/1", "scenario": self.scenario.to_value(), "interventions": ivs, "step": self.run.cursor()})
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
    pub fn apply(&mut self, action: Action) -> Result<(), ScenarioError> {
        self.run.apply(action)
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
    pub fn inspect(&self, id: NodeId) -> Vec<(&'static str, String)> {
        self.run.inspect(id)
    }
    pub fn step_info(&self, step: u64) -> Option<StepInfo> {
        self.run.step_info(step)
    }
    pub fn record(&self, step: u64) -> Option<Rec> {
        self.run.record(step)
    }
    pub fn kinds(&self) -> &'static [&'static str] {
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
    pub fn interventions(&self) -> &[(u64, Action)] {
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
        json!({
            "algorithm": self.scenario.algorithm.name(),
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
            "trace_hash": format!("{:016x}", self.trace_hash()),
        })
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
            EventKind::Fault => {
                let mut a = Map::new();
                self.scenario.schedule[rec.aux as usize].action.write_json(&mut a);
                o.insert("action".into(), Value::Object(a));
            }
        }
        o.insert("text".into(), json!(info.text));
        if !info.sends.is_empty() {
            let sends: Vec<Value> = info.sends.iter().map(|&(id, to, kind, at)| json!({"msg": id, "to": to, "kind": kind, "deliver": at})).collect();
            o.insert("sends".into(), Value::Array(sends));
        }
        Some(Value::Object(o))
    }
}

fn prefixed(prefix: &str, field: &str) -> String {
    if field.is_empty() {
        prefix.to_string()
    } else {
        format!("{prefix}.{field}")
    }
}

pub fn violation_json(v: &Violation) -> Value {
    let mut o = json!({"kind": v.kind, "time": v.time, "step": v.step, "nodes": v.nodes});
    if let Some(t) = v.term {
        o["term"] = json!(t);
    }
    o
}
