//! The scenario format (JSON): what to run, on which nodes, with which seed, network and faults.
//!
//! The same format is used by the CLI, by the UI's share/import/export, and inside exported
//! traces. Parsing never panics: every problem is reported as a [`ScenarioError`] naming the
//! field (`network.latency`, `schedule[2].crash`, `params.t_out`, ...).
//!
//! ```json
//! { "algorithm": "bully", "nodes": [3, 5, 6, 12, 32, 80], "seed": 425,
//!   "network": { "latency": [1, 1], "loss": 0.0, "fifo": true },
//!   "initial_leader": 80, "heartbeats": { "interval": 2, "timeout": 10 },
//!   "params": {}, "schedule": [ {"at": 0, "crash": 80}, {"at": 0, "start": 3} ],
//!   "stop": { "max_time": 10000, "max_steps": 1000000 } }
//! ```

pub use crate::error::ScenarioError;
use crate::meta::{k, Lang};
use crate::protocol::{Config, Heartbeats};
use crate::{NodeId, Time};
use serde_json::{json, Map, Value};
use std::collections::BTreeSet;

mod limits;
mod read;
pub mod topology;
pub(crate) use limits::check_len;
pub use limits::{check_size, MAX_ACTIONS, MAX_BYTES, MAX_LATENCY, MAX_NODES};
pub use topology::{Graph, Shape};

/// A fault or command applied to the running cluster.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Action {
    /// Crash a node: its volatile state is lost and messages to it are dropped.
    Crash(NodeId),
    /// Recover a crashed node through the protocol's recovery path.
    Recover(NodeId),
    /// Begin an election at a node.
    Start(NodeId),
    /// Drop one message that is in flight (by message id).
    Drop(u64),
    /// Split the cluster: nodes in different groups cannot talk. Nodes listed in no group form
    /// one more group together. `lines` is display-only geometry (the UI's drawn cuts).
    Partition { groups: Vec<Vec<NodeId>>, lines: Vec<[i32; 4]> },
    /// Cut one direction of one link.
    Cut { from: NodeId, to: NodeId },
    /// Cut a node off from everyone else.
    Isolate(NodeId),
    /// Remove every partition and cut.
    Heal,
    /// Deliver one message in flight (by id) after the other events due at its tick: how the
    /// counterexample search chooses among simultaneous deliveries. Nothing else changes.
    Defer(u64),
    /// Deliver one message in flight (by id) as the next step, before every other pending
    /// event: how the exhaustive checker's schedules ([`crate::check`]) pick which message
    /// arrives next. Its fate is decided as on its own tick (a crashed receiver or a partition
    /// drops it).
    Deliver(u64),
    /// Fire a node's pending timer (named by its key, as `Deadline` or `Silent(3)`) as the next
    /// step, before every other pending event: the checker's asynchronous timers.
    Fire { node: NodeId, timer: String },
}

const ACTION_KEYS: &[&str] =
    &["crash", "recover", "start", "drop", "partition", "cut", "isolate", "heal", "defer", "deliver", "fire"];

impl Action {
    /// Whether applying it is a step of its own (a forced delivery or timer, which waits for
    /// the next step), not a change between steps.
    pub fn is_step(&self) -> bool {
        matches!(self, Action::Deliver(_) | Action::Fire { .. })
    }

    /// The node the action is about, if it is about one.
    pub fn node(&self) -> Option<NodeId> {
        match *self {
            Action::Crash(n) | Action::Recover(n) | Action::Start(n) | Action::Isolate(n) => Some(n),
            Action::Fire { node, .. } => Some(node),
            Action::Cut { from, .. } => Some(from),
            _ => None,
        }
    }

    /// A short sentence for logs: "crash N80", "partition {1,2} | {3,4,5}" (in English, as the CLI
    /// writes it).
    pub fn describe(&self) -> String {
        self.describe_in(Lang::En)
    }

    /// [`Action::describe`] in `lang`.
    pub fn describe_in(&self, lang: Lang) -> String {
        match self {
            Action::Crash(n) => k::action_crash(*n).render(lang),
            Action::Recover(n) => k::action_recover(*n).render(lang),
            Action::Start(n) => k::action_start(*n).render(lang),
            Action::Drop(m) => k::action_drop(*m).render(lang),
            Action::Partition { groups, .. } => {
                let parts: Vec<String> = groups
                    .iter()
                    .map(|g| format!("{{{}}}", g.iter().map(|x| x.to_string()).collect::<Vec<_>>().join(",")))
                    .collect();
                k::ACTION_PARTITION.format(lang, &[&parts.join(" | ")])
            }
            Action::Cut { from, to } => k::action_cut(*from, *to).render(lang),
            Action::Isolate(n) => k::action_isolate(*n).render(lang),
            Action::Heal => k::ACTION_HEAL.get(lang).to_string(),
            Action::Defer(m) => k::action_defer(*m).render(lang),
            Action::Deliver(m) => k::action_deliver(*m).render(lang),
            Action::Fire { node, timer } => k::ACTION_FIRE.format(lang, &[node, timer]),
        }
    }

    /// The action's JSON keys, merged into `obj`.
    pub fn write_json(&self, obj: &mut Map<String, Value>) {
        let (k, v) = match self {
            Action::Crash(n) => ("crash", json!(n)),
            Action::Recover(n) => ("recover", json!(n)),
            Action::Start(n) => ("start", json!(n)),
            Action::Drop(m) => ("drop", json!(m)),
            Action::Partition { groups, lines } => {
                if !lines.is_empty() {
                    obj.insert("lines".into(), json!(lines));
                }
                ("partition", json!(groups))
            }
            Action::Cut { from, to } => ("cut", json!([from, to])),
            Action::Isolate(n) => ("isolate", json!(n)),
            Action::Heal => ("heal", json!(true)),
            Action::Defer(m) => ("defer", json!(m)),
            Action::Deliver(m) => ("deliver", json!(m)),
            Action::Fire { node, timer } => ("fire", json!([node, timer])),
        };
        obj.insert(k.into(), v);
    }

    /// Reads an action from an object holding exactly one action key plus the keys in `skip`
    /// (e.g. "at", or "step" and "time").
    pub fn from_object(obj: &Map<String, Value>, skip: &[&str], path: &str) -> Result<Action, ScenarioError> {
        let mut found: Option<(&str, &Value)> = None;
        for (k, v) in obj {
            if skip.contains(&k.as_str()) || k == "lines" {
                continue;
            }
            if !ACTION_KEYS.contains(&k.as_str()) {
                return Err(ScenarioError::new(
                    format!("{path}.{k}"),
                    format!("unknown action '{k}' (expected one of: {})", ACTION_KEYS.join(", ")),
                ));
            }
            if let Some((prev, _)) = found {
                return Err(ScenarioError::new(
                    path,
                    format!("has two actions ('{prev}' and '{k}'); give one per entry"),
                ));
            }
            found = Some((k.as_str(), v));
        }
        let Some((key, v)) = found else {
            return Err(ScenarioError::new(
                path,
                format!("has no action (expected one of: {})", ACTION_KEYS.join(", ")),
            ));
        };
        let field = format!("{path}.{key}");
        let node = |v: &Value| -> Result<NodeId, ScenarioError> {
            v.as_u64().filter(|&x| x <= u32::MAX as u64).map(|x| x as NodeId).ok_or_else(|| {
                ScenarioError::new(field.clone(), format!("expected a node id, found {}", crate::read::write_json(v)))
            })
        };
        let message = |v: &Value| {
            let found = || format!("expected a message id, found {}", crate::read::write_json(v));
            v.as_u64().ok_or_else(|| ScenarioError::new(field.clone(), found()))
        };
        Ok(match key {
            "crash" => Action::Crash(node(v)?),
            "recover" => Action::Recover(node(v)?),
            "start" => Action::Start(node(v)?),
            "isolate" => Action::Isolate(node(v)?),
            "drop" => Action::Drop(message(v)?),
            "defer" => Action::Defer(message(v)?),
            "deliver" => Action::Deliver(message(v)?),
            "fire" => {
                let pair = v
                    .as_array()
                    .filter(|a| a.len() == 2 && a[1].is_string())
                    .ok_or_else(|| ScenarioError::new(field.clone(), "expected [node, \"timer\"]"))?;
                Action::Fire { node: node(&pair[0])?, timer: pair[1].as_str().unwrap_or_default().to_string() }
            }
            "heal" => {
                if v != &Value::Bool(true) {
                    return Err(ScenarioError::new(field, "expected true"));
                }
                Action::Heal
            }
            "cut" => {
                let pair = v
                    .as_array()
                    .filter(|a| a.len() == 2)
                    .ok_or_else(|| ScenarioError::new(field.clone(), "expected [from, to]"))?;
                Action::Cut { from: node(&pair[0])?, to: node(&pair[1])? }
            }
            "partition" => {
                let groups = v.as_array().ok_or_else(|| {
                    ScenarioError::new(field.clone(), "expected a list of groups, e.g. [[1,2],[3,4,5]]")
                })?;
                let mut out = Vec::new();
                for (gi, g) in groups.iter().enumerate() {
                    let members = g
                        .as_array()
                        .ok_or_else(|| ScenarioError::new(format!("{field}[{gi}]"), "expected a list of node ids"))?;
                    let mut ids = Vec::new();
                    for m in members {
                        ids.push(m.as_u64().filter(|&x| x <= u32::MAX as u64).ok_or_else(|| {
                            ScenarioError::new(
                                format!("{field}[{gi}]"),
                                format!("expected a node id, found {}", crate::read::write_json(m)),
                            )
                        })? as NodeId);
                    }
                    out.push(ids);
                }
                let mut lines = Vec::new();
                if let Some(l) = obj.get("lines") {
                    lines = crate::read::segments(l, &format!("{path}.lines"))?;
                }
                Action::Partition { groups: out, lines }
            }
            _ => unreachable!(),
        })
    }

    /// Checks node ids against the cluster.
    pub fn validate(&self, nodes: &[NodeId], path: &str) -> Result<(), ScenarioError> {
        let known = |id: NodeId, f: &str| -> Result<(), ScenarioError> {
            if nodes.contains(&id) {
                Ok(())
            } else {
                Err(ScenarioError::new(format!("{path}.{f}"), format!("unknown node {id}")))
            }
        };
        match self {
            Action::Crash(n) => known(*n, "crash"),
            Action::Recover(n) => known(*n, "recover"),
            Action::Start(n) => known(*n, "start"),
            Action::Isolate(n) => known(*n, "isolate"),
            Action::Cut { from, to } => {
                known(*from, "cut")?;
                known(*to, "cut")?;
                if from == to {
                    return Err(ScenarioError::new(format!("{path}.cut"), "a link needs two different nodes"));
                }
                Ok(())
            }
            Action::Partition { groups, .. } => {
                let mut seen = BTreeSet::new();
                for g in groups {
                    for &id in g {
                        known(id, "partition")?;
                        if !seen.insert(id) {
                            return Err(ScenarioError::new(
                                format!("{path}.partition"),
                                format!("node {id} is in two groups"),
                            ));
                        }
                    }
                }
                Ok(())
            }
            Action::Fire { node, .. } => known(*node, "fire"),
            Action::Drop(_) | Action::Defer(_) | Action::Deliver(_) | Action::Heal => Ok(()),
        }
    }
}

/// A scheduled action: applied when virtual time reaches `at` (it is then a step of its own).
#[derive(Clone, Debug, PartialEq)]
pub struct Scheduled {
    pub at: Time,
    pub action: Action,
}

#[derive(Clone, Debug, PartialEq)]
pub struct NetworkSpec {
    pub latency: (Time, Time),
    pub loss: f64,
    pub fifo: bool,
    /// Every latency and every timer delay is the top of its range, drawn from no generator
    /// (`"latest": true`): the timed checker's replays, whose forced steps then always come
    /// first (`crate::check`).
    pub latest: bool,
    /// `network.model: "rounds"`: synchronous rounds (Lynch, *Distributed Algorithms*, ch. 2):
    /// a round is one tick, every message sent in round r arrives at the start of round r + 1
    /// (latency exactly 1), so the nodes step together, round after round. Otherwise the
    /// asynchronous model (`"async"`, the default), with latencies drawn from `latency`.
    pub rounds: bool,
}

impl crate::meta::Preset {
    /// The preset's scenario (a preset's JSON is checked by the tests, so it always reads).
    pub fn scenario(&self) -> Scenario {
        Scenario::from_json(self.json).unwrap_or_else(|e| panic!("preset {} is invalid: {e}", self.id))
    }
}

impl Default for NetworkSpec {
    fn default() -> Self {
        NetworkSpec { latency: (1, 1), loss: 0.0, fifo: true, latest: false, rounds: false }
    }
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct StopSpec {
    pub max_time: Time,
    pub max_steps: u64,
}

impl Default for StopSpec {
    fn default() -> Self {
        StopSpec { max_time: 10_000, max_steps: 1_000_000 }
    }
}

/// Fencing tokens (Gray & Cheriton 1989; Burrows 2006; Kleppmann 2016): a store outside the
/// cluster that accepts a write only if its token is at least the largest token it has seen.
/// Every node that believes it leads writes through it, with its term (or epoch, ballot) as the
/// token, or, for algorithms without one, a token the store's sequencer handed it when it
/// became leader.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct FencingSpec {
    /// Every leader writes every `write_every` ticks (0: only the scripted writes).
    pub write_every: Time,
    /// Scripted writes: at tick `at`, node `node` writes `value` if it believes it leads.
    pub writes: Vec<ScriptedWrite>,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ScriptedWrite {
    pub at: Time,
    pub node: NodeId,
    pub value: u64,
}

/// A validated scenario.
#[derive(Clone, Debug, PartialEq)]
pub struct Scenario {
    /// The algorithm's id (checked against the registry when an engine is built).
    pub algorithm: String,
    /// Node ids; for ring algorithms, clockwise order.
    pub nodes: Vec<NodeId>,
    pub seed: u64,
    pub network: NetworkSpec,
    pub initial_leader: Option<NodeId>,
    pub heartbeats: Option<Heartbeats>,
    /// Protocol-specific parameters, checked by the protocol (see each protocol's docs).
    pub params: Map<String, Value>,
    pub schedule: Vec<Scheduled>,
    pub stop: StopSpec,
    /// Writes through a fenced store, if asked for.
    pub fencing: Option<FencingSpec>,
    /// The network graph, if the scenario gives one (else the algorithm's own: complete or a
    /// ring). Only algorithms on general graphs accept one ([`crate::meta::Topology::Graph`]).
    pub topology: Option<Box<Graph>>,
}

impl Scenario {
    /// The run configuration every protocol is built from.
    pub fn config(&self) -> Config {
        let mut cfg = Config::new(self.nodes.clone(), self.initial_leader, self.heartbeats, self.network.latency);
        cfg.rounds = self.network.rounds;
        cfg.links = self.topology.as_ref().map(|g| g.neighbour_ids(&self.nodes));
        cfg
    }

    /// Parses and checks the format of a scenario from JSON text. Whether the algorithm exists
    /// and accepts the `params` is checked when an engine is built from it
    /// ([`crate::Engine::new`]).
    pub fn from_json(text: &str) -> Result<Scenario, ScenarioError> {
        check_size(text.len())?;
        let value: Value = crate::parse_json(text)?;
        Scenario::from_value(&value)
    }

    pub fn from_value(value: &Value) -> Result<Scenario, ScenarioError> {
        if !value.is_object() {
            return Err(ScenarioError::new("", "a scenario must be a JSON object"));
        }
        check_len(value.get("nodes"), "nodes", MAX_NODES, "nodes")?;
        check_len(value.get("schedule"), "schedule", MAX_ACTIONS, "actions")?;
        let raw = read::RawScenario::read(value)?;
        if raw.algorithm.is_empty() {
            return Err(ScenarioError::new("algorithm", "must name an algorithm, e.g. \"bully\""));
        }
        let algorithm = raw.algorithm;
        if raw.nodes.is_empty() {
            return Err(ScenarioError::new("nodes", "needs at least one node"));
        }
        if raw.nodes.len() > MAX_NODES {
            return Err(ScenarioError::new(
                "nodes",
                format!("{} nodes is more than the {MAX_NODES} supported", raw.nodes.len()),
            ));
        }
        let mut seen = BTreeSet::new();
        for &id in &raw.nodes {
            if !seen.insert(id) {
                return Err(ScenarioError::new("nodes", format!("duplicate id {id}")));
            }
        }
        let nodes = raw.nodes;
        let network = match raw.network {
            None => NetworkSpec::default(),
            Some(n) => {
                let [lo, hi] = n.latency;
                if lo == 0 {
                    return Err(ScenarioError::new("network.latency", "the minimum latency must be at least 1 tick"));
                }
                if lo > hi {
                    return Err(ScenarioError::new("network.latency", format!("minimum {lo} is above maximum {hi}")));
                }
                if hi > MAX_LATENCY {
                    return Err(ScenarioError::new(
                        "network.latency",
                        format!("the maximum latency must be at most {MAX_LATENCY} ticks"),
                    ));
                }
                if !(0.0..1.0).contains(&n.loss) || n.loss.is_nan() {
                    return Err(ScenarioError::new("network.loss", format!("must be in [0, 1), found {}", n.loss)));
                }
                let rounds = n.rounds;
                if rounds && (lo, hi) != (1, 1) {
                    return Err(ScenarioError::new(
                        "network.latency",
                        format!(
                            "in rounds every message takes exactly one round: give [1, 1] (or none), not [{lo}, {hi}]"
                        ),
                    ));
                }
                NetworkSpec { latency: (lo, hi), loss: n.loss, fifo: n.fifo, latest: n.latest, rounds }
            }
        };
        if let Some(l) = raw.initial_leader {
            if !nodes.contains(&l) {
                return Err(ScenarioError::new("initial_leader", format!("unknown node {l}")));
            }
        }
        let heartbeats = match raw.heartbeats {
            None => None,
            Some(h) => {
                if h.interval == 0 {
                    return Err(ScenarioError::new("heartbeats.interval", "must be at least 1 tick"));
                }
                if h.timeout > crate::protocol::MAX_TICKS {
                    return Err(ScenarioError::new(
                        "heartbeats.timeout",
                        format!("{} is more than the {} allowed", h.timeout, crate::protocol::MAX_TICKS),
                    ));
                }
                if h.timeout <= h.interval {
                    return Err(ScenarioError::new(
                        "heartbeats.timeout",
                        format!("must be above the interval ({}), found {}", h.interval, h.timeout),
                    ));
                }
                Some(Heartbeats { interval: h.interval, timeout: h.timeout })
            }
        };
        let mut schedule = Vec::new();
        for (i, entry) in raw.schedule.iter().enumerate() {
            let path = format!("schedule[{i}]");
            let at = entry
                .get("at")
                .ok_or_else(|| ScenarioError::new(format!("{path}.at"), "missing (the time in ticks)"))?
                .as_u64()
                .ok_or_else(|| ScenarioError::new(format!("{path}.at"), "expected a whole number of ticks"))?;
            let action = Action::from_object(entry, &["at"], &path)?;
            action.validate(&nodes, &path)?;
            if action.is_step() {
                return Err(ScenarioError::new(
                    path,
                    "deliver and fire name a message or timer of a run: give them as interventions",
                ));
            }
            schedule.push(Scheduled { at, action });
        }
        let stop = match raw.stop {
            None => StopSpec::default(),
            Some(s) => {
                let d = StopSpec::default();
                let max_time = s.max_time.unwrap_or(d.max_time);
                if max_time > crate::protocol::MAX_TICKS {
                    return Err(ScenarioError::new(
                        "stop.max_time",
                        format!("{max_time} is more than the {} allowed", crate::protocol::MAX_TICKS),
                    ));
                }
                StopSpec { max_time, max_steps: s.max_steps.unwrap_or(d.max_steps) }
            }
        };
        let fencing = match raw.fencing {
            None => None,
            Some(f) => {
                if f.write_every == 0 && f.writes.is_empty() {
                    return Err(ScenarioError::new(
                        "fencing",
                        "needs write_every (ticks between a leader's writes) or scripted writes",
                    ));
                }
                let mut writes = Vec::new();
                for (i, w) in f.writes.iter().enumerate() {
                    if !nodes.contains(&w.node) {
                        return Err(ScenarioError::new(
                            format!("fencing.writes[{i}].node"),
                            format!("unknown node {}", w.node),
                        ));
                    }
                    writes.push(ScriptedWrite { at: w.at, node: w.node, value: w.value });
                }
                Some(FencingSpec { write_every: f.write_every, writes })
            }
        };
        let topology = raw.topology.as_ref().map(|v| Graph::read(v, &nodes).map(Box::new)).transpose()?;
        let scenario = Scenario {
            topology,
            fencing,
            algorithm,
            nodes,
            seed: raw.seed,
            network,
            initial_leader: raw.initial_leader,
            heartbeats,
            params: raw.params.unwrap_or_default(),
            schedule,
            stop,
        };
        Ok(scenario)
    }

    /// The scenario as JSON, in the same shape `from_json` reads.
    pub fn to_value(&self) -> Value {
        let schedule: Vec<Value> = self
            .schedule
            .iter()
            .map(|s| {
                let mut obj = Map::new();
                obj.insert("at".into(), json!(s.at));
                s.action.write_json(&mut obj);
                Value::Object(obj)
            })
            .collect();
        let mut obj = Map::new();
        obj.insert("algorithm".into(), json!(self.algorithm));
        obj.insert("nodes".into(), json!(self.nodes));
        obj.insert("seed".into(), json!(self.seed));
        let mut network = json!({"latency": [self.network.latency.0, self.network.latency.1], "loss": self.network.loss, "fifo": self.network.fifo});
        if self.network.latest {
            network["latest"] = json!(true);
        }
        if self.network.rounds {
            network["model"] = json!("rounds");
        }
        obj.insert("network".into(), network);
        if let Some(l) = self.initial_leader {
            obj.insert("initial_leader".into(), json!(l));
        }
        obj.insert(
            "heartbeats".into(),
            match self.heartbeats {
                Some(h) => json!({"interval": h.interval, "timeout": h.timeout}),
                None => Value::Null,
            },
        );
        obj.insert("params".into(), Value::Object(self.params.clone()));
        obj.insert("schedule".into(), Value::Array(schedule));
        obj.insert("stop".into(), json!({"max_time": self.stop.max_time, "max_steps": self.stop.max_steps}));
        if let Some(f) = &self.fencing {
            let writes: Vec<Value> =
                f.writes.iter().map(|w| json!({"at": w.at, "node": w.node, "value": w.value})).collect();
            obj.insert("fencing".into(), json!({"write_every": f.write_every, "writes": writes}));
        }
        if let Some(g) = &self.topology {
            obj.insert("topology".into(), g.to_value(&self.nodes));
        }
        Value::Object(obj)
    }

    pub fn to_json(&self) -> String {
        crate::read::write_json(&self.to_value())
    }

    pub fn to_json_pretty(&self) -> String {
        crate::read::write_json_pretty(&self.to_value())
    }
}

#[cfg(test)]
mod tests;
