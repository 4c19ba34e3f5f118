//! Experiments: many runs over seeds, node counts and variants, each run measured the same way,
//! then summarised and plotted. The same code serves the command line (`election-lab sweep`)
//! and the browser, which advances a [`Sweep`] a few runs at a time so the page stays
//! responsive; the numbers are the same in both (no threads, no clock, one generator).
//!
//! ```text
//! let mut sweep = Sweep::from_json(spec)?;
//! while !sweep.advance(50).finished() {}          // or advance_steps(budget) per frame
//! sweep.csv(); sweep.summary_csv(); sweep.svg(Lang::En);
//! sweep.replay(k)?.trace_value();                 // run k alone, to open in the lab
//! ```
//!
//! ## The spec (JSON)
//!
//! ```json
//! { "title": "Messages for one election" ,
//!   "scenario": { "network": {"latency": [1, 1]}, "heartbeats": null, "initial_leader": "max" },
//!   "algorithms": [ {"algorithm": "bully", "formula": "N²−N−1",
//!                    "schedule": [{"at": 0, "crash": "max"}, {"at": 0, "start": "others"}]} ],
//!   "nodes": {"from": 3, "to": 64},
//!   "seeds": {"count": 100, "start": 1},
//!   "measure": "counted",
//!   "plot": {"kind": "lines", "y_log": true} }
//! ```
//!
//! * `scenario`: the base scenario, in the format `election-lab run` reads. `algorithm` and
//!   `nodes` may be left out when the spec gives them; `initial_leader` may be `"max"` or `"min"`.
//! * `algorithms`: `"all"` (every registered algorithm, in registry order), or a list whose
//!   entries are an algorithm id or an object: `algorithm`, `label` (default: the algorithm's
//!   title), `formula` (the name of a formula the algorithm declares: drawn beside the
//!   measurements, and `counted` counts its message kinds), `kinds` (what `counted` counts
//!   otherwise), `set`, `schedule`, `order`, `seeds` (as below, for this line only). Default:
//!   the scenario's algorithm.
//! * `variants`: a list of `{label, set, schedule, seeds}`; every algorithm entry runs with every
//!   variant (a line each). `set` is a JSON merge patch (RFC 7386) on the scenario:
//!   `{"params": {"election_timeout": [150, 155]}}`.
//! * `nodes`: `{"from": 3, "to": 64, "step": 1}` or a list `[8, 16, 32]`: the node-count axis
//!   (ids 1..N). Without it, the scenario's nodes are used.
//! * `order`: `"given"` (default) or `"random"`: the node order (the ring, for ring algorithms)
//!   is shuffled for every seed.
//! * `seeds`: `{"count": 1, "start": 1}` (the defaults): run k uses scenario seed `start + k`.
//!   Choices the experiment makes itself (a random node, a random partition, a shuffled ring)
//!   come from a separate stream of the same generator seeded by the run's seed.
//! * `schedule`: faults added to the scenario's own schedule, as `{"at": t, action}` or
//!   `{"after": "agreement", "delay": d, action}` (applied d ticks after every live node first
//!   agrees on a leader, or at once if they already do). Actions: `crash`, `recover`, `start`,
//!   `isolate` with a node id or `"max"`, `"min"`, `"random"`, `"all"`, `"others"` (all but the
//!   highest id; ascending), or `"leader"` (the agreed leader; with `after` only);
//!   `partition` with groups or `"random"` (two non-empty random groups); `cut` `[from, to]`;
//!   `heal: true`.
//! * `until`: `"end"` (default: quiescence or the scenario's stop limits) or `"agreement"`: stop
//!   a run as soon as an agreement is reached after the last fault (its `downtime` is then known).
//! * `measure`: the column the summary and the plot are about (see [`Measure`]); default
//!   `counted`. `divide`: the summary and plot divide it by this (ticks per gossip period, to
//!   count periods); the per-run rows keep ticks.
//! * `plot`: `kind` (`"lines"`: the mean over seeds against N, with the min–max spread as a band
//!   and the formula dashed; `"cdf"`: the cumulative distribution of the measure per line, every
//!   run counted, so runs without a value keep a line below 1; `"bars"`: the mean per line),
//!   `x_log`, `y_log`, `x_min`, `x_max`, `x_label`, `y_label`.
//! * `reference`: figures to draw on the plot: points, e.g. a paper's,
//!   `{"line": "150–155 ms", "x": 287, "y": 0.5, "label": "paper: median 287 ms"}`, or curves
//!   drawn dashed, `{"label": "log₃ N", "points": [[16, 2.52], [256, 5.05]]}`.
//!
//! Texts (`title`, `label`, axis labels) are a string or `{"en": ..., "zh": ...}`.
//!
//! ## What is measured
//!
//! Every run gives one row with the columns in [`COLUMNS`]; the summary gives one row per line
//! and node count with the columns in [`SUMMARY_COLUMNS`] (statistics of the measure: mean,
//! sample standard deviation, min, nearest-rank median and 90th percentile, max; and counts of
//! runs by how many leaders they ended with).

use crate::algorithm::Algorithm;
use crate::engine::Engine;
use crate::error::{prefixed, ScenarioError};
use crate::meta::{Faults, Formula, Lang, Monitor, Text};
use crate::plot::{Chart, ChartKind, Mark, Series};
use crate::registry;
use crate::rng::Pcg32;
use crate::scenario::{Action, Scenario, Scheduled};
use crate::{NodeId, Time};
use serde_json::{json, Map, Value};
use std::collections::BTreeMap;

/// The stream of the generator behind the experiment's own choices (the simulator uses another).
const STREAM: u64 = 0xe4_9e71;

/// Most runs one experiment may have (its rows are kept in memory).
pub const MAX_RUNS: u64 = 10_000_000;

/// The ready-made experiments (`experiments/*.json`): id and spec.
pub const READY: &[(&str, &str)] = &[
    ("messages-vs-n", include_str!("../../experiments/messages-vs-n.json")),
    ("raft-figure-16-randomness", include_str!("../../experiments/raft-figure-16-randomness.json")),
    ("raft-figure-16-scale", include_str!("../../experiments/raft-figure-16-scale.json")),
    ("raft-figure-16-network", include_str!("../../experiments/raft-figure-16-network.json")),
    ("gossip-convergence", include_str!("../../experiments/gossip-convergence.json")),
    ("one-partition", include_str!("../../experiments/one-partition.json")),
    ("split-brain-random-partitions", include_str!("../../experiments/split-brain-random-partitions.json")),
];

/// The per-run columns, in order (`election-lab sweep` prints them as the CSV header).
pub const COLUMNS: &[&str] = &[
    "line", "algorithm", "variant", "nodes", "seed", "messages", "counted", "theory", "end_time", "steps", "quiescent", "agreement",
    "leaders", "max_leaders", "violations", "elections", "downtime", "minority_leaders", "trace_hash",
];

/// The summary columns, in order (`election-lab sweep --summary`).
pub const SUMMARY_COLUMNS: &[&str] = &[
    "line", "algorithm", "variant", "nodes", "runs", "measure", "n", "mean", "sd", "min", "median", "p90", "max", "theory", "claim",
    "agreement", "ever_two", "end_two", "end_one", "end_none", "minority_leader",
];

/// A text in both languages, owned (spec texts are read from JSON).
#[derive(Clone, Debug, PartialEq, Eq, Default)]
pub struct Label {
    pub en: String,
    pub zh: String,
}

impl Label {
    pub fn get(&self, lang: Lang) -> &str {
        match lang {
            Lang::En => &self.en,
            Lang::Zh => &self.zh,
        }
    }
    fn from_text(t: &Text) -> Label {
        Label { en: t.en.into(), zh: t.zh.into() }
    }
    fn read(v: &Value, path: &str) -> Result<Label, ScenarioError> {
        match v {
            Value::String(s) => Ok(Label { en: s.clone(), zh: s.clone() }),
            Value::Object(o) => match (o.get("en").and_then(Value::as_str), o.get("zh").and_then(Value::as_str)) {
                (Some(en), Some(zh)) if o.len() == 2 => Ok(Label { en: en.into(), zh: zh.into() }),
                _ => Err(ScenarioError::new(path, "expected {\"en\": ..., \"zh\": ...}")),
            },
            _ => Err(ScenarioError::new(path, "expected a text or {\"en\": ..., \"zh\": ...}")),
        }
    }
}

/// What a summary and a plot are about: one column of the per-run rows.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Measure {
    /// Messages sent, of every kind.
    Messages,
    /// Messages of the kinds the line's formula counts (or its `kinds`; else every kind).
    Counted,
    EndTime,
    Steps,
    /// Live self-declared leaders when the run ends.
    Leaders,
    /// Most live self-declared leaders at one moment.
    MaxLeaders,
    /// Violations of the algorithm's claimed properties.
    Violations,
    /// Stretches without agreement that ended in agreement.
    Elections,
    /// Ticks from the last fault until every live node names the same live leader.
    Downtime,
    /// Leaders on the smallest side of the partition in force at the end.
    MinorityLeaders,
    /// 1 if two live nodes believed they led at the same moment, else 0.
    Split,
    /// 1 if the run ends with every live node naming the same live leader, else 0.
    Agreement,
}

const MEASURES: &[(&str, Measure, Text)] = &[
    ("messages", Measure::Messages, Text::new("messages sent", "发送的消息数")),
    ("counted", Measure::Counted, Text::new("messages (kinds the formula counts)", "消息数（公式所计的类型）")),
    ("end_time", Measure::EndTime, Text::new("end time (ticks)", "结束时间（tick）")),
    ("steps", Measure::Steps, Text::new("steps", "步数")),
    ("leaders", Measure::Leaders, Text::new("leaders at the end", "结束时的领导者数")),
    ("max_leaders", Measure::MaxLeaders, Text::new("most leaders at once", "同时存在的最多领导者数")),
    ("violations", Measure::Violations, Text::new("violations", "违反次数")),
    ("elections", Measure::Elections, Text::new("elections", "选举次数")),
    ("downtime", Measure::Downtime, Text::new("time without a leader after the fault (ms = ticks)", "故障后无领导者的时间（ms = tick）")),
    ("minority_leaders", Measure::MinorityLeaders, Text::new("leaders on the minority side", "少数派一侧的领导者数")),
    ("split", Measure::Split, Text::new("runs with two leaders at once (split brain)", "出现两个领导者同时存在（脑裂）的运行比例")),
    ("agreement", Measure::Agreement, Text::new("runs ending in agreement", "以一致结束的运行比例")),
];

impl Measure {
    pub fn name(self) -> &'static str {
        MEASURES.iter().find(|m| m.1 == self).expect("listed").0
    }
    pub fn label(self) -> Text {
        MEASURES.iter().find(|m| m.1 == self).expect("listed").2
    }
    fn parse(s: &str) -> Option<Measure> {
        MEASURES.iter().find(|m| m.0 == s).map(|m| m.1)
    }
    /// A 0/1 column: its mean is a rate.
    pub fn is_flag(self) -> bool {
        matches!(self, Measure::Split | Measure::Agreement)
    }
}

/// One run's results.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Row {
    /// Index into [`Sweep::lines`].
    pub line: usize,
    pub nodes: u32,
    pub seed: u64,
    pub messages: u64,
    pub counted: u64,
    pub theory: Option<u64>,
    pub end_time: Time,
    pub steps: u64,
    pub quiescent: bool,
    /// The leader every live node names at the end, if they agree.
    pub agreement: Option<NodeId>,
    pub leaders: u32,
    pub max_leaders: u32,
    pub violations: u32,
    pub elections: u32,
    pub downtime: Option<Time>,
    pub minority_leaders: Option<u32>,
    pub trace_hash: u64,
}

impl Row {
    pub fn value(&self, m: Measure) -> Option<f64> {
        let v = match m {
            Measure::Messages => self.messages,
            Measure::Counted => self.counted,
            Measure::EndTime => self.end_time,
            Measure::Steps => self.steps,
            Measure::Leaders => self.leaders as u64,
            Measure::MaxLeaders => self.max_leaders as u64,
            Measure::Violations => self.violations as u64,
            Measure::Elections => self.elections as u64,
            Measure::Downtime => self.downtime?,
            Measure::MinorityLeaders => self.minority_leaders? as u64,
            Measure::Split => (self.max_leaders >= 2) as u64,
            Measure::Agreement => self.agreement.is_some() as u64,
        };
        Some(v as f64)
    }
}

/// Statistics of the measure over one group of runs (those that have a value).
#[derive(Clone, Debug, PartialEq)]
pub struct Stats {
    pub n: u64,
    pub mean: f64,
    /// Sample standard deviation (0 for one value).
    pub sd: f64,
    pub min: f64,
    /// Nearest-rank median: the ⌈n/2⌉-th smallest value.
    pub median: f64,
    /// Nearest-rank 90th percentile.
    pub p90: f64,
    pub max: f64,
}

impl Stats {
    pub fn of(values: &mut [f64]) -> Option<Stats> {
        if values.is_empty() {
            return None;
        }
        values.sort_by(f64::total_cmp);
        let n = values.len();
        let mean = values.iter().sum::<f64>() / n as f64;
        let var = if n > 1 { values.iter().map(|v| (v - mean) * (v - mean)).sum::<f64>() / (n - 1) as f64 } else { 0.0 };
        let rank = |p: f64| values[((p * n as f64).ceil() as usize).clamp(1, n) - 1];
        Some(Stats { n: n as u64, mean, sd: var.sqrt(), min: values[0], median: rank(0.5), p90: rank(0.9), max: values[n - 1] })
    }
}

/// One summary row: a line at one node count.
#[derive(Clone, Debug, PartialEq)]
pub struct Group {
    pub line: usize,
    pub nodes: u32,
    pub runs: u64,
    pub stats: Option<Stats>,
    pub theory: Option<u64>,
    pub agreement: u64,
    /// Runs in which two live nodes believed they led at one moment.
    pub ever_two: u64,
    /// Runs ending with two or more, exactly one, no live leader.
    pub end_two: u64,
    pub end_one: u64,
    pub end_none: u64,
    /// Runs ending with a leader on the smallest side of a partition.
    pub minority_leader: u64,
}

/// How far a sweep has got.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Progress {
    pub done: u64,
    pub total: u64,
}

impl Progress {
    pub fn finished(self) -> bool {
        self.done >= self.total
    }
}

#[derive(Clone, Debug, PartialEq)]
enum Who {
    Id(NodeId),
    Max,
    Min,
    Random,
    All,
    Others,
    Leader,
}

#[derive(Clone, Debug, PartialEq)]
enum Do {
    /// crash / recover / start / isolate.
    Node(&'static str, Who),
    Partition(Vec<Vec<NodeId>>),
    RandomPartition,
    Cut(NodeId, NodeId),
    Heal,
}

/// A fault of the spec: at a time, or some ticks after the first agreement.
#[derive(Clone, Debug, PartialEq)]
struct Fault {
    at: Option<Time>,
    delay: Time,
    what: Do,
}

fn shuffle<T>(v: &mut [T], rng: &mut Pcg32) {
    for i in (1..v.len()).rev() {
        v.swap(i, rng.range_inclusive(0, i as u64) as usize);
    }
}

impl Do {
    /// The concrete actions on `nodes` (`leader`: the agreed leader, for `after` faults).
    fn resolve(&self, nodes: &[NodeId], leader: Option<NodeId>, rng: &mut Pcg32) -> Vec<Action> {
        match self {
            Do::Node(key, who) => {
                let mut sorted = nodes.to_vec();
                sorted.sort_unstable();
                let max = *sorted.last().expect("a node");
                let ids = match who {
                    Who::Id(id) => vec![*id],
                    Who::Max => vec![max],
                    Who::Min => vec![sorted[0]],
                    Who::Random => vec![nodes[rng.range_inclusive(0, nodes.len() as u64 - 1) as usize]],
                    Who::All => sorted,
                    Who::Others => sorted[..sorted.len() - 1].to_vec(),
                    Who::Leader => leader.into_iter().collect(),
                };
                ids.into_iter()
                    .map(|id| match *key {
                        "crash" => Action::Crash(id),
                        "recover" => Action::Recover(id),
                        "start" => Action::Start(id),
                        _ => Action::Isolate(id),
                    })
                    .collect()
            }
            Do::Partition(groups) => vec![Action::Partition { groups: groups.clone(), lines: vec![] }],
            Do::RandomPartition => {
                let mut ids = nodes.to_vec();
                shuffle(&mut ids, rng);
                let k = rng.range_inclusive(1, ids.len().max(2) as u64 - 1) as usize;
                let (mut a, mut b) = (ids[..k.min(ids.len())].to_vec(), ids[k.min(ids.len())..].to_vec());
                a.sort_unstable();
                b.sort_unstable();
                vec![Action::Partition { groups: vec![a, b], lines: vec![] }]
            }
            Do::Cut(from, to) => vec![Action::Cut { from: *from, to: *to }],
            Do::Heal => vec![Action::Heal],
        }
    }
}

fn read_fault(o: &Map<String, Value>, path: &str) -> Result<Fault, ScenarioError> {
    let at = match o.get("at") {
        Some(v) => Some(v.as_u64().ok_or_else(|| ScenarioError::new(format!("{path}.at"), "expected a whole number of ticks"))?),
        None => None,
    };
    match (at.is_some(), o.get("after")) {
        (false, Some(Value::String(s))) if s == "agreement" => {}
        (false, Some(_)) => return Err(ScenarioError::new(format!("{path}.after"), "expected \"agreement\"")),
        (false, None) => return Err(ScenarioError::new(path, "needs \"at\" (ticks) or \"after\": \"agreement\"")),
        (true, Some(_)) => return Err(ScenarioError::new(path, "give \"at\" or \"after\", not both")),
        (true, None) => {}
    }
    let delay = match o.get("delay") {
        Some(v) if at.is_none() => v.as_u64().ok_or_else(|| ScenarioError::new(format!("{path}.delay"), "expected a whole number of ticks"))?,
        Some(_) => return Err(ScenarioError::new(format!("{path}.delay"), "only with \"after\"")),
        None => 0,
    };
    let keys: Vec<&String> = o.keys().filter(|k| !["at", "after", "delay"].contains(&k.as_str())).collect();
    let [key] = keys[..] else {
        return Err(ScenarioError::new(path, "needs exactly one action: crash, recover, start, isolate, partition, cut or heal"));
    };
    let v = &o[key];
    let field = format!("{path}.{key}");
    let what = match key.as_str() {
        "crash" | "recover" | "start" | "isolate" => {
            let k: &'static str = match key.as_str() {
                "crash" => "crash",
                "recover" => "recover",
                "start" => "start",
                _ => "isolate",
            };
            let who = match v {
                Value::String(s) => match s.as_str() {
                    "max" => Who::Max,
                    "min" => Who::Min,
                    "random" => Who::Random,
                    "all" => Who::All,
                    "others" => Who::Others,
                    "leader" if at.is_none() => Who::Leader,
                    "leader" => return Err(ScenarioError::new(field, "\"leader\" needs \"after\": \"agreement\"")),
                    _ => return Err(ScenarioError::new(field, format!("unknown node '{s}' (expected an id, max, min, random, all, others or leader)"))),
                },
                _ => Who::Id(v.as_u64().filter(|&x| x <= u32::MAX as u64).ok_or_else(|| ScenarioError::new(field.clone(), format!("expected a node id, found {v}")))? as NodeId),
            };
            Do::Node(k, who)
        }
        "partition" if v == "random" => Do::RandomPartition,
        "partition" | "cut" | "heal" => match Action::from_object(&Map::from_iter([(key.clone(), v.clone())]), &[], path)? {
            Action::Partition { groups, .. } => Do::Partition(groups),
            Action::Cut { from, to } => Do::Cut(from, to),
            _ => Do::Heal,
        },
        _ => return Err(ScenarioError::new(field, "unknown action (expected crash, recover, start, isolate, partition, cut or heal)")),
    };
    Ok(Fault { at, delay, what })
}

/// RFC 7386 merge patch.
fn merge(target: &mut Value, patch: &Value) {
    match patch {
        Value::Object(p) => {
            if !target.is_object() {
                *target = Value::Object(Map::new());
            }
            let t = target.as_object_mut().expect("object");
            for (k, v) in p {
                if v.is_null() {
                    t.remove(k);
                } else {
                    merge(t.entry(k.clone()).or_insert(Value::Null), v);
                }
            }
        }
        _ => *target = patch.clone(),
    }
}

#[derive(Clone, Copy, Debug)]
struct Seeds {
    count: u64,
    start: u64,
}

/// A JSON object of the spec being read: unknown keys are refused, and every error names the
/// field (`algorithms[1].seeds.count`). Read by hand rather than by derived deserializers,
/// which cost the browser build several times the size.
struct Obj<'a> {
    map: &'a Map<String, Value>,
    path: String,
}

impl<'a> Obj<'a> {
    fn new(v: &'a Value, path: &str, keys: &[&str]) -> Result<Obj<'a>, ScenarioError> {
        let map = v.as_object().ok_or_else(|| ScenarioError::new(path, "expected an object"))?;
        if let Some(k) = map.keys().find(|k| !keys.contains(&k.as_str())) {
            return Err(ScenarioError::new(prefixed(path, k), format!("unknown field `{k}`, expected one of: {}", keys.join(", "))));
        }
        Ok(Obj { map, path: path.to_string() })
    }
    fn field(&self, k: &str) -> String {
        prefixed(&self.path, k)
    }
    fn get(&self, k: &str) -> Option<&'a Value> {
        self.map.get(k).filter(|v| !v.is_null())
    }
    fn read<T>(&self, k: &str, what: &str, f: impl Fn(&'a Value) -> Option<T>) -> Result<Option<T>, ScenarioError> {
        self.get(k).map(|v| f(v).ok_or_else(|| ScenarioError::new(self.field(k), format!("expected {what}, found {v}")))).transpose()
    }
    fn u64(&self, k: &str) -> Result<Option<u64>, ScenarioError> {
        self.read(k, "a whole number", Value::as_u64)
    }
    fn f64(&self, k: &str) -> Result<Option<f64>, ScenarioError> {
        self.read(k, "a number", Value::as_f64)
    }
    fn bool(&self, k: &str) -> Result<bool, ScenarioError> {
        Ok(self.read(k, "true or false", Value::as_bool)?.unwrap_or(false))
    }
    fn str(&self, k: &str) -> Result<Option<&'a str>, ScenarioError> {
        self.read(k, "a string", Value::as_str)
    }
    fn list(&self, k: &str) -> Result<&'a [Value], ScenarioError> {
        Ok(self.read(k, "a list", |v| v.as_array().map(Vec::as_slice))?.unwrap_or(&[]))
    }
    fn label(&self, k: &str) -> Result<Option<Label>, ScenarioError> {
        self.get(k).map(|v| Label::read(v, &self.field(k))).transpose()
    }
    fn strings(&self, k: &str) -> Result<Option<Vec<String>>, ScenarioError> {
        self.read(k, "a list of strings", |v| v.as_array()?.iter().map(|x| x.as_str().map(String::from)).collect())
    }
    fn seeds(&self, k: &str) -> Result<Option<Seeds>, ScenarioError> {
        let Some(v) = self.get(k) else { return Ok(None) };
        let o = Obj::new(v, &self.field(k), &["count", "start"])?;
        Ok(Some(Seeds { count: o.u64("count")?.unwrap_or(1), start: o.u64("start")?.unwrap_or(1) }))
    }
    fn order(&self, k: &str) -> Result<Option<bool>, ScenarioError> {
        match self.str(k)? {
            None => Ok(None),
            Some("given") => Ok(Some(false)),
            Some("random") => Ok(Some(true)),
            Some(x) => Err(ScenarioError::new(self.field(k), format!("expected \"given\" or \"random\", found \"{x}\""))),
        }
    }
    fn faults(&self, k: &str) -> Result<Vec<Fault>, ScenarioError> {
        let path = self.field(k);
        self.list(k)?
            .iter()
            .enumerate()
            .map(|(i, v)| {
                let p = format!("{path}[{i}]");
                read_fault(v.as_object().ok_or_else(|| ScenarioError::new(&p, "expected an object"))?, &p)
            })
            .collect()
    }
}

/// One entry of `algorithms`.
struct LineSpec<'a> {
    path: String,
    algorithm: &'static Algorithm,
    label: Option<Label>,
    formula: Option<&'static Formula>,
    kinds: Option<Vec<&'static str>>,
    set: Option<&'a Value>,
    faults: Vec<Fault>,
    order: Option<bool>,
    seeds: Option<Seeds>,
}

impl<'a> LineSpec<'a> {
    /// An algorithm with every setting from the spec.
    fn plain(algorithm: &'static Algorithm, path: String) -> LineSpec<'a> {
        LineSpec { path, algorithm, label: None, formula: None, kinds: None, set: None, faults: vec![], order: None, seeds: None }
    }

    fn read(v: &'a Value, path: String) -> Result<LineSpec<'a>, ScenarioError> {
        let o = match v {
            Value::String(id) => return Ok(LineSpec::plain(registry::find_or_err(id).map_err(|e| e.within(&path))?, path)),
            _ => Obj::new(v, &path, &["algorithm", "label", "formula", "kinds", "set", "schedule", "order", "seeds"])?,
        };
        let id = o.str("algorithm")?.ok_or_else(|| ScenarioError::new(o.field("algorithm"), "missing (an algorithm id)"))?;
        let algorithm = registry::find_or_err(id).map_err(|e| e.within(&path))?;
        let formula = match o.str("formula")? {
            None => None,
            Some(name) => Some(algorithm.formulas.iter().find(|f| f.name == name).ok_or_else(|| {
                let names: Vec<&str> = algorithm.formulas.iter().map(|f| f.name).collect();
                ScenarioError::new(o.field("formula"), format!("{} declares no formula '{name}' (it declares: {})", algorithm.id, names.join(", ")))
            })?),
        };
        let kinds = o.strings("kinds")?.map(|k| read_kinds(algorithm, &k, &o.field("kinds"))).transpose()?;
        Ok(LineSpec {
            label: o.label("label")?,
            kinds,
            set: o.get("set"),
            faults: o.faults("schedule")?,
            order: o.order("order")?,
            seeds: o.seeds("seeds")?,
            path,
            algorithm,
            formula,
        })
    }
}

/// What the spec gives every line unless the line says otherwise.
struct Defaults {
    shuffle: bool,
    seeds: Seeds,
    faults: Vec<Fault>,
    kinds: Option<Vec<String>>,
    /// The node-count axis, if any.
    sizes: Option<Vec<u32>>,
}

fn read_sizes(v: Option<&Value>) -> Result<Option<Vec<u32>>, ScenarioError> {
    let max = crate::scenario::MAX_NODES as u64;
    match v {
        None => Ok(None),
        Some(Value::Array(a)) => a
            .iter()
            .map(|x| x.as_u64().filter(|&n| (1..=max).contains(&n)).map(|n| n as u32))
            .collect::<Option<Vec<u32>>>()
            .map(Some)
            .ok_or_else(|| ScenarioError::new("nodes", format!("expected node counts from 1 to {max}"))),
        Some(v) => {
            let o = Obj::new(v, "nodes", &["from", "to", "step"])?;
            match (o.u64("from")?, o.u64("to")?, o.u64("step")?.unwrap_or(1)) {
                (Some(from), Some(to), step) if from >= 1 && from <= to && to <= max && step >= 1 => Ok(Some((from..=to).step_by(step as usize).map(|n| n as u32).collect())),
                _ => Err(ScenarioError::new("nodes", format!("expected {{\"from\": a, \"to\": b, \"step\": s}} with 1 <= a <= b <= {max}, s >= 1, or a list"))),
            }
        }
    }
}

/// One line of the experiment: an algorithm, perhaps in a variant.
#[derive(Debug)]
pub struct Line {
    pub label: Label,
    pub algorithm: &'static Algorithm,
    pub variant: Option<Label>,
    pub formula: Option<&'static Formula>,
    /// The message kinds `counted` counts (empty: every kind).
    pub kinds: Vec<&'static str>,
    seeds: Seeds,
    shuffle: bool,
    faults: Vec<Fault>,
}

/// A line at one node count: the scenario every seed starts from.
struct Job {
    line: usize,
    scenario: Scenario,
    /// Index of this job's first run.
    first: u64,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Until {
    End,
    Agreement,
}

/// How the experiment is drawn.
#[derive(Clone, Debug, Default)]
pub struct PlotSpec {
    pub kind: Option<ChartKind>,
    pub x_log: bool,
    pub y_log: bool,
    pub x_min: Option<f64>,
    pub x_max: Option<f64>,
    pub x_label: Option<Label>,
    pub y_label: Option<Label>,
}

/// Figures from elsewhere drawn on the plot: a labelled point (a paper's figure), or a curve
/// (theory, e.g. log₃ N periods) drawn dashed and listed in the legend.
#[derive(Clone, Debug)]
pub struct Reference {
    /// The line it belongs with (its colour), if any.
    pub line: Option<usize>,
    pub label: Label,
    /// One point for a mark; several for a curve.
    pub points: Vec<(f64, f64)>,
    pub curve: bool,
}

/// A running experiment: built from a spec, advanced in chunks, then read.
pub struct Sweep {
    pub title: Label,
    pub measure: Measure,
    /// The measure is divided by this in the summary and the plot (e.g. ticks per gossip period,
    /// to count periods); the per-run rows keep ticks.
    pub divide: f64,
    pub plot: PlotSpec,
    pub references: Vec<Reference>,
    lines: Vec<Line>,
    jobs: Vec<Job>,
    until: Until,
    total: u64,
    rows: Vec<Row>,
    steps: u64,
}

impl std::fmt::Debug for Sweep {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "Sweep({} lines, {}/{} runs)", self.lines.len(), self.rows.len(), self.total)
    }
}

fn read_kinds(a: &Algorithm, kinds: &[String], path: &str) -> Result<Vec<&'static str>, ScenarioError> {
    kinds
        .iter()
        .map(|k| a.kind(k).map(|k| k.name).ok_or_else(|| ScenarioError::new(path, format!("{} has no message kind '{k}'", a.id))))
        .collect()
}

impl Sweep {
    pub fn from_json(text: &str) -> Result<Sweep, ScenarioError> {
        let v: Value = serde_json::from_str(text).map_err(|e| ScenarioError::new("", format!("not valid JSON: {e}")))?;
        Sweep::from_value(&v)
    }

    /// Reads and checks a spec: every line at every node count is built once, so a bad
    /// parameter is reported here, naming the field, not in the middle of the sweep.
    pub fn from_value(v: &Value) -> Result<Sweep, ScenarioError> {
        if !v.is_object() {
            return Err(ScenarioError::new("", "an experiment must be a JSON object"));
        }
        const KEYS: &[&str] = &["title", "scenario", "algorithms", "variants", "nodes", "order", "seeds", "schedule", "until", "measure", "divide", "kinds", "plot", "reference"];
        let o = Obj::new(v, "", KEYS)?;
        let measure = match o.str("measure")? {
            None => Measure::Counted,
            Some(m) => Measure::parse(m).ok_or_else(|| {
                let names: Vec<&str> = MEASURES.iter().map(|m| m.0).collect();
                ScenarioError::new("measure", format!("unknown measure '{m}' (expected one of: {})", names.join(", ")))
            })?,
        };
        let until = match o.str("until")? {
            None | Some("end") => Until::End,
            Some("agreement") => Until::Agreement,
            Some(x) => return Err(ScenarioError::new("until", format!("expected \"end\" or \"agreement\", found \"{x}\""))),
        };
        let empty = Map::new();
        let scenario = match o.get("scenario") {
            None => &empty,
            Some(v) => v.as_object().ok_or_else(|| ScenarioError::new("scenario", "expected an object"))?,
        };
        let defaults = Defaults {
            shuffle: o.order("order")?.unwrap_or(false),
            seeds: o.seeds("seeds")?.unwrap_or(Seeds { count: 1, start: 1 }),
            faults: o.faults("schedule")?,
            kinds: o.strings("kinds")?,
            sizes: read_sizes(o.get("nodes"))?,
        };
        let entries: Vec<LineSpec> = match o.get("algorithms") {
            None => {
                let id = scenario.get("algorithm").ok_or_else(|| ScenarioError::new("algorithms", "give the algorithms, or an algorithm in the scenario"))?;
                vec![LineSpec::read(id, "scenario.algorithm".into())?]
            }
            Some(Value::String(s)) if s == "all" => registry::all().iter().map(|a| LineSpec::plain(a, "algorithms".into())).collect(),
            Some(Value::Array(list)) => list.iter().enumerate().map(|(i, e)| LineSpec::read(e, format!("algorithms[{i}]"))).collect::<Result<_, _>>()?,
            Some(_) => return Err(ScenarioError::new("algorithms", "expected \"all\" or a list")),
        };
        let variants = o.list("variants")?;
        let mut sweep = Sweep {
            title: Label::from_text(&measure.label()),
            measure,
            divide: match o.f64("divide")? {
                None => 1.0,
                Some(d) if d > 0.0 => d,
                Some(d) => return Err(ScenarioError::new("divide", format!("must be above 0, found {d}"))),
            },
            plot: PlotSpec::default(),
            references: Vec::new(),
            lines: Vec::new(),
            jobs: Vec::new(),
            until,
            total: 0,
            rows: Vec::new(),
            steps: 0,
        };
        for entry in &entries {
            if variants.is_empty() {
                sweep.add_line(scenario, entry, None, &defaults, entries.len())?;
            }
            for (i, v) in variants.iter().enumerate() {
                sweep.add_line(scenario, entry, Some((i, v)), &defaults, entries.len())?;
            }
        }
        if sweep.total > MAX_RUNS {
            return Err(ScenarioError::new("seeds", format!("{} runs is more than the {MAX_RUNS} an experiment may have", sweep.total)));
        }
        if let Some(t) = o.label("title")? {
            sweep.title = t;
        }
        if let Some(p) = o.get("plot") {
            let p = Obj::new(p, "plot", &["kind", "x_log", "y_log", "x_min", "x_max", "x_label", "y_label"])?;
            let kind = match p.str("kind")? {
                None => None,
                Some("lines") => Some(ChartKind::Lines),
                Some("cdf") => Some(ChartKind::Cdf),
                Some("bars") => Some(ChartKind::Bars),
                Some(x) => return Err(ScenarioError::new("plot.kind", format!("expected lines, cdf or bars, found \"{x}\""))),
            };
            sweep.plot = PlotSpec {
                kind,
                x_log: p.bool("x_log")?,
                y_log: p.bool("y_log")?,
                x_min: p.f64("x_min")?,
                x_max: p.f64("x_max")?,
                x_label: p.label("x_label")?,
                y_label: p.label("y_label")?,
            };
        }
        for (i, r) in o.list("reference")?.iter().enumerate() {
            let r = Obj::new(r, &format!("reference[{i}]"), &["line", "x", "y", "points", "label"])?;
            let line = match r.str("line")? {
                None => None,
                Some(l) => Some(sweep.lines.iter().position(|x| x.label.en == l).ok_or_else(|| ScenarioError::new(r.field("line"), format!("no line is labelled '{l}'")))?),
            };
            let label = r.label("label")?.ok_or_else(|| ScenarioError::new(r.field("label"), "missing (a text)"))?;
            let (points, curve) = match (r.get("points"), r.f64("x")?, r.f64("y")?) {
                (None, Some(x), Some(y)) => (vec![(x, y)], false),
                (Some(p), None, None) => {
                    let pair = |v: &Value| Some((v.get(0)?.as_f64()?, v.get(1)?.as_f64()?)).filter(|_| v.as_array().is_some_and(|a| a.len() == 2));
                    let pts = p.as_array().and_then(|a| a.iter().map(pair).collect::<Option<Vec<_>>>()).filter(|v| v.len() >= 2);
                    (pts.ok_or_else(|| ScenarioError::new(r.field("points"), "expected at least two [x, y] pairs"))?, true)
                }
                _ => return Err(ScenarioError::new(&r.path, "give x and y (a point) or points (a curve)")),
            };
            sweep.references.push(Reference { line, label, points, curve });
        }
        Ok(sweep)
    }

    /// Adds the line of `entry` in `variant` (if any): one job per node count, each checked by
    /// building it once.
    fn add_line(&mut self, scenario: &Map<String, Value>, entry: &LineSpec, variant: Option<(usize, &Value)>, d: &Defaults, entries: usize) -> Result<(), ScenarioError> {
        let a = entry.algorithm;
        let mut base = Value::Object(scenario.clone());
        base["algorithm"] = json!(a.id);
        if let Some(set) = entry.set {
            merge(&mut base, set);
        }
        let mut faults = d.faults.clone();
        faults.extend(entry.faults.iter().cloned());
        let mut seeds = entry.seeds.unwrap_or(d.seeds);
        let mut vlabel = None;
        let mut prefix = entry.path.clone();
        if let Some((vi, v)) = variant {
            prefix = format!("variants[{vi}]");
            let o = Obj::new(v, &prefix, &["label", "set", "schedule", "seeds"])?;
            if let Some(set) = o.get("set") {
                merge(&mut base, set);
            }
            faults.extend(o.faults("schedule")?);
            seeds = o.seeds("seeds")?.or(entry.seeds).unwrap_or(d.seeds);
            vlabel = Some(o.label("label")?.ok_or_else(|| ScenarioError::new(o.field("label"), "missing (a text)"))?);
        }
        let label = match (&entry.label, &vlabel) {
            (Some(l), _) => l.clone(),
            (None, Some(v)) if entries == 1 => v.clone(),
            (None, Some(v)) => Label { en: format!("{} {}", a.title.en, v.en), zh: format!("{} {}", a.title.zh, v.zh) },
            (None, None) => Label::from_text(&a.title),
        };
        let kinds = match (&entry.kinds, entry.formula, &d.kinds) {
            (Some(k), _, _) => k.clone(),
            (None, Some(f), _) => f.counts.to_vec(),
            (None, None, Some(k)) => read_kinds(a, k, "kinds")?,
            (None, None, None) => vec![],
        };
        let line = self.lines.len();
        let sizes: Vec<Option<u32>> = match &d.sizes {
            Some(s) => s.iter().copied().map(Some).collect(),
            None => vec![None],
        };
        for n in sizes {
            let mut sv = base.clone();
            if let Some(n) = n {
                sv["nodes"] = json!((1..=n).collect::<Vec<u32>>());
            }
            if let Some(Value::String(who)) = sv.get("initial_leader") {
                let ids = sv.get("nodes").and_then(Value::as_array).map(|a| a.iter().filter_map(Value::as_u64).collect::<Vec<u64>>()).unwrap_or_default();
                let pick = match who.as_str() {
                    "max" => ids.iter().max(),
                    "min" => ids.iter().min(),
                    _ => return Err(ScenarioError::new(format!("{prefix}: scenario.initial_leader"), "expected a node id, \"max\" or \"min\"")),
                };
                sv["initial_leader"] = json!(pick);
            }
            let scenario = Scenario::from_value(&sv).map_err(|e| e.within(&format!("{prefix}: scenario")))?;
            // Check the faults on these nodes, and the algorithm's params, once.
            let mut rng = Pcg32::new(seeds.start, STREAM);
            let mut probe = scenario.clone();
            for (i, f) in faults.iter().enumerate() {
                for act in f.what.resolve(&probe.nodes, probe.nodes.first().copied(), &mut rng) {
                    act.validate(&probe.nodes, &format!("{prefix}: schedule[{i}]"))?;
                    if let Some(at) = f.at {
                        probe.schedule.push(Scheduled { at, action: act });
                    }
                }
            }
            Engine::new(probe).map_err(|e| e.within(&format!("{prefix}: scenario")))?;
            self.jobs.push(Job { line, scenario, first: self.total });
            self.total = self.total.saturating_add(seeds.count);
        }
        self.lines.push(Line { label, algorithm: a, variant: vlabel, formula: entry.formula, kinds, seeds, shuffle: entry.order.unwrap_or(d.shuffle), faults });
        Ok(())
    }

    pub fn lines(&self) -> &[Line] {
        &self.lines
    }
    /// The runs done so far, in order.
    pub fn rows(&self) -> &[Row] {
        &self.rows
    }
    pub fn progress(&self) -> Progress {
        Progress { done: self.rows.len() as u64, total: self.total }
    }
    /// Simulation steps run so far (all runs together).
    pub fn steps(&self) -> u64 {
        self.steps
    }

    /// Does up to `max_runs` more runs.
    pub fn advance(&mut self, max_runs: u64) -> Progress {
        for _ in 0..max_runs {
            if !self.run_next() {
                break;
            }
        }
        self.progress()
    }

    /// Does whole runs until at least `max_steps` simulation steps have been run (at least one
    /// run): a budget that follows the work better than a run count when runs differ in size.
    pub fn advance_steps(&mut self, max_steps: u64) -> Progress {
        let start = self.steps;
        while self.run_next() && self.steps - start < max_steps {}
        self.progress()
    }

    fn run_next(&mut self) -> bool {
        let k = self.rows.len() as u64;
        if k >= self.total {
            return false;
        }
        let j = self.jobs.partition_point(|j| j.first <= k) - 1;
        let row = self.run(&self.jobs[j], k - self.jobs[j].first);
        self.steps += row.steps;
        self.rows.push(row);
        true
    }

    /// Replays run `k` (0-based, in sweep order; it need not have been run yet) and returns its
    /// engine where the sweep stopped it: `trace_value()` then opens that very run in the lab.
    pub fn replay(&self, k: u64) -> Option<Engine> {
        if k >= self.total {
            return None;
        }
        let j = self.jobs.partition_point(|j| j.first <= k) - 1;
        Some(self.play(&self.jobs[j], k - self.jobs[j].first).0)
    }

    /// Builds and runs the `k`-th seed of `job`; also returns the time of its last fault.
    fn play(&self, job: &Job, k: u64) -> (Engine, Time) {
        let line = &self.lines[job.line];
        let seed = line.seeds.start + k;
        let mut rng = Pcg32::new(seed, STREAM);
        let mut s = job.scenario.clone();
        s.seed = seed;
        if line.shuffle {
            shuffle(&mut s.nodes, &mut rng);
        }
        let mut since = s.schedule.iter().map(|x| x.at).max().unwrap_or(0);
        let mut later = Vec::new();
        for f in &line.faults {
            match f.at {
                Some(at) => {
                    let nodes = s.nodes.clone();
                    s.schedule.extend(f.what.resolve(&nodes, None, &mut rng).into_iter().map(|action| Scheduled { at, action }));
                    since = since.max(at);
                }
                None => later.push(f),
            }
        }
        let nodes = s.nodes.clone();
        let mut e = Engine::new(s).expect("checked when the sweep was built");
        for f in later {
            let Some(leader) = agreement(&mut e) else { break };
            let at = e.now() + f.delay;
            e.run_until(at);
            let at = at.max(e.now());
            for a in f.what.resolve(&nodes, Some(leader), &mut rng) {
                // Checked on these nodes when the sweep was built.
                let _ = e.apply_at(a, at);
            }
            since = since.max(at);
        }
        match self.until {
            Until::End => e.run_to_end(),
            Until::Agreement => while e.elections().last().is_none_or(|x| x.to <= since) && e.step() {},
        }
        (e, since)
    }

    fn run(&self, job: &Job, k: u64) -> Row {
        let line = &self.lines[job.line];
        let (e, since) = self.play(job, k);
        let seed = line.seeds.start + k;
        let n = e.scenario().nodes.len() as u32;
        let m = e.metrics();
        let f = e.frame();
        let counted = if line.kinds.is_empty() { m.total } else { m.by_kind.iter().filter(|(k, _)| line.kinds.contains(k)).map(|x| x.1).sum() };
        let downtime = e.elections().iter().find(|x| x.to > since).map(|x| x.to - x.from.max(since));
        let minority_leaders = f.groups.as_ref().map(|labels| {
            let mut sizes: BTreeMap<u32, u32> = BTreeMap::new();
            for &l in labels {
                *sizes.entry(l).or_default() += 1;
            }
            let minor = sizes.iter().min_by_key(|(l, c)| (**c, **l)).map(|(l, _)| *l);
            f.nodes.iter().zip(labels).filter(|(nf, &l)| Some(l) == minor && f.leaders.contains(&nf.id)).count() as u32
        });
        Row {
            line: job.line,
            nodes: n,
            seed,
            messages: m.total,
            counted,
            theory: line.formula.map(|x| (x.value)(n as u64)),
            end_time: f.time,
            steps: f.step,
            quiescent: f.quiescent,
            agreement: f.agreement,
            leaders: f.leaders.len() as u32,
            max_leaders: m.max_simultaneous_leaders,
            violations: e.violations().len() as u32,
            elections: e.elections().len() as u32,
            downtime,
            minority_leaders,
            trace_hash: e.trace_hash(),
        }
    }

    /// Row `r`'s value of the measure, divided by `divide`.
    pub fn value(&self, r: &Row) -> Option<f64> {
        r.value(self.measure).map(|v| v / self.divide)
    }

    /// One group per line and node count, in line order then ascending N (runs done so far).
    pub fn summary(&self) -> Vec<Group> {
        let mut groups: BTreeMap<(usize, u32), Vec<&Row>> = BTreeMap::new();
        for r in &self.rows {
            groups.entry((r.line, r.nodes)).or_default().push(r);
        }
        groups
            .into_iter()
            .map(|((line, nodes), rows)| {
                let mut values: Vec<f64> = rows.iter().filter_map(|r| self.value(r)).collect();
                let count = |p: &dyn Fn(&Row) -> bool| rows.iter().filter(|r| p(r)).count() as u64;
                Group {
                    line,
                    nodes,
                    runs: rows.len() as u64,
                    stats: Stats::of(&mut values),
                    theory: self.lines[line].formula.map(|f| (f.value)(nodes as u64)),
                    agreement: count(&|r| r.agreement.is_some()),
                    ever_two: count(&|r| r.max_leaders >= 2),
                    end_two: count(&|r| r.leaders >= 2),
                    end_one: count(&|r| r.leaders == 1),
                    end_none: count(&|r| r.leaders == 0),
                    minority_leader: count(&|r| r.minority_leaders.is_some_and(|m| m > 0)),
                }
            })
            .collect()
    }

    /// What the line's algorithm claims about a single leader: `any` (under any fault),
    /// `crash-stop`, or `none`.
    pub fn claim(&self, line: usize) -> &'static str {
        match self.lines[line].algorithm.properties.iter().find(|p| p.monitor == Monitor::SplitBrain).map(|p| p.holds) {
            Some(Faults::Any) => "any",
            Some(Faults::CrashStop) => "crash-stop",
            None => "none",
        }
    }

    fn row_cells(&self, r: &Row) -> Vec<Cell> {
        let line = &self.lines[r.line];
        vec![
            Cell::Str(line.label.en.clone()),
            Cell::Str(line.algorithm.id.into()),
            Cell::Str(line.variant.as_ref().map_or(String::new(), |v| v.en.clone())),
            Cell::Int(r.nodes as u64),
            Cell::Int(r.seed),
            Cell::Int(r.messages),
            Cell::Int(r.counted),
            r.theory.map_or(Cell::Empty, Cell::Int),
            Cell::Int(r.end_time),
            Cell::Int(r.steps),
            Cell::Int(r.quiescent as u64),
            r.agreement.map_or(Cell::Empty, |l| Cell::Int(l as u64)),
            Cell::Int(r.leaders as u64),
            Cell::Int(r.max_leaders as u64),
            Cell::Int(r.violations as u64),
            Cell::Int(r.elections as u64),
            r.downtime.map_or(Cell::Empty, Cell::Int),
            r.minority_leaders.map_or(Cell::Empty, |m| Cell::Int(m as u64)),
            Cell::Str(format!("{:016x}", r.trace_hash)),
        ]
    }

    fn group_cells(&self, g: &Group) -> Vec<Cell> {
        let line = &self.lines[g.line];
        let st = |f: fn(&Stats) -> f64| g.stats.as_ref().map_or(Cell::Empty, |s| Cell::Num(f(s)));
        vec![
            Cell::Str(line.label.en.clone()),
            Cell::Str(line.algorithm.id.into()),
            Cell::Str(line.variant.as_ref().map_or(String::new(), |v| v.en.clone())),
            Cell::Int(g.nodes as u64),
            Cell::Int(g.runs),
            Cell::Str(self.measure.name().into()),
            Cell::Int(g.stats.as_ref().map_or(0, |s| s.n)),
            st(|s| s.mean),
            st(|s| s.sd),
            st(|s| s.min),
            st(|s| s.median),
            st(|s| s.p90),
            st(|s| s.max),
            g.theory.map_or(Cell::Empty, Cell::Int),
            Cell::Str(self.claim(g.line).into()),
            Cell::Int(g.agreement),
            Cell::Int(g.ever_two),
            Cell::Int(g.end_two),
            Cell::Int(g.end_one),
            Cell::Int(g.end_none),
            Cell::Int(g.minority_leader),
        ]
    }

    /// The header and cells of the per-run table (`summary == false`) or the summary.
    pub fn table(&self, summary: bool) -> (&'static [&'static str], Vec<Vec<Cell>>) {
        if summary {
            (SUMMARY_COLUMNS, self.summary().iter().map(|g| self.group_cells(g)).collect())
        } else {
            (COLUMNS, self.rows.iter().map(|r| self.row_cells(r)).collect())
        }
    }

    /// The per-run table (or the summary) as text, with only `columns` if given (in that
    /// order). The command line prints exactly this, so the browser can compare.
    pub fn render(&self, summary: bool, columns: Option<&[String]>, format: Format) -> Result<String, String> {
        let (head, rows) = self.table(summary);
        let pick: Vec<usize> = match columns {
            None => (0..head.len()).collect(),
            Some(names) => names
                .iter()
                .map(|c| head.iter().position(|h| h == c).ok_or_else(|| format!("no column '{c}' (expected: {})", head.join(", "))))
                .collect::<Result<_, _>>()?,
        };
        let mut out = String::new();
        let line = |out: &mut String, cells: Vec<String>, sep: &str, ends: (&str, &str)| {
            out.push_str(ends.0);
            out.push_str(&cells.join(sep));
            out.push_str(ends.1);
            out.push('\n');
        };
        match format {
            Format::Csv => line(&mut out, pick.iter().map(|&i| head[i].to_string()).collect(), ",", ("", "")),
            Format::Markdown => {
                line(&mut out, pick.iter().map(|&i| head[i].to_string()).collect(), " | ", ("| ", " |"));
                line(&mut out, vec!["---"; pick.len()].into_iter().map(String::from).collect(), "|", ("|", "|"));
            }
            Format::JsonLines => {}
        }
        for r in rows {
            match format {
                Format::Csv => line(&mut out, pick.iter().map(|&i| r[i].csv()).collect(), ",", ("", "")),
                Format::Markdown => line(&mut out, pick.iter().map(|&i| r[i].text().replace('|', "\\|")).collect(), " | ", ("| ", " |")),
                Format::JsonLines => {
                    let o: Map<String, Value> = pick.iter().map(|&i| (head[i].to_string(), r[i].json())).collect();
                    out.push_str(&Value::Object(o).to_string());
                    out.push('\n');
                }
            }
        }
        Ok(out)
    }

    /// One CSV row per run, with a header ([`COLUMNS`]).
    pub fn csv(&self) -> String {
        self.render(false, None, Format::Csv).expect("every column")
    }
    /// One CSV row per line and node count, with a header ([`SUMMARY_COLUMNS`]).
    pub fn summary_csv(&self) -> String {
        self.render(true, None, Format::Csv).expect("every column")
    }
    /// The same as [`Sweep::csv`] / [`Sweep::summary_csv`], one JSON object a line.
    pub fn json_lines(&self, summary: bool) -> String {
        self.render(summary, None, Format::JsonLines).expect("every column")
    }

    /// The plot of what has been run so far.
    pub fn chart(&self, lang: Lang) -> Chart {
        let p = &self.plot;
        let groups = self.summary();
        let xs: Vec<u32> = {
            let mut v: Vec<u32> = groups.iter().map(|g| g.nodes).collect();
            v.sort_unstable();
            v.dedup();
            v
        };
        let kind = p.kind.unwrap_or(if xs.len() > 1 { ChartKind::Lines } else { ChartKind::Bars });
        let measure = Label::from_text(&self.measure.label());
        let (x_label, y_label) = match kind {
            ChartKind::Lines => (Label::from_text(&Text::new("nodes N", "节点数 N")), measure),
            ChartKind::Cdf => (measure, Label::from_text(&Text::new("fraction of runs", "运行次数占比"))),
            ChartKind::Bars if self.measure.is_flag() => (measure, Label::default()),
            ChartKind::Bars => (Label { en: format!("{} (mean over runs)", measure.en), zh: format!("{}（各次运行的平均值）", measure.zh) }, Label::default()),
        };
        let mut series = Vec::new();
        for (i, line) in self.lines.iter().enumerate() {
            let mine: Vec<&Group> = groups.iter().filter(|g| g.line == i).collect();
            let label = line.label.get(lang).to_string();
            match kind {
                ChartKind::Lines => {
                    let stats: Vec<(f64, &Stats)> = mine.iter().filter_map(|g| g.stats.as_ref().map(|s| (g.nodes as f64, s))).collect();
                    series.push(Series {
                        label,
                        color: i,
                        dashed: false,
                        points: stats.iter().map(|(x, s)| (*x, s.mean)).collect(),
                        band: stats.iter().filter(|(_, s)| s.max > s.min).map(|(x, s)| (*x, s.min, s.max)).collect(),
                    });
                    if let Some(f) = line.formula {
                        let theory = Text::new("theory", "理论值");
                        series.push(Series {
                            label: format!("{}: {}", theory.get(lang), f.name),
                            color: i,
                            dashed: true,
                            points: mine.iter().map(|g| (g.nodes as f64, (f.value)(g.nodes as u64) as f64)).collect(),
                            band: vec![],
                        });
                    }
                }
                ChartKind::Cdf => {
                    let mut v: Vec<f64> = self.rows.iter().filter(|r| r.line == i).filter_map(|r| self.value(r)).collect();
                    let runs = self.rows.iter().filter(|r| r.line == i).count();
                    v.sort_by(f64::total_cmp);
                    let points = v.iter().enumerate().map(|(k, &x)| (x, (k + 1) as f64 / runs.max(1) as f64)).collect();
                    series.push(Series { label, color: i, dashed: false, points, band: vec![] });
                }
                ChartKind::Bars => {
                    let mut v: Vec<f64> = self.rows.iter().filter(|r| r.line == i).filter_map(|r| self.value(r)).collect();
                    if let Some(s) = Stats::of(&mut v) {
                        series.push(Series { label, color: 0, dashed: false, points: vec![(s.mean, s.n as f64)], band: vec![] });
                    }
                }
            }
        }
        let mut marks = Vec::new();
        let mut unlined = 6;
        for r in &self.references {
            let label = r.label.get(lang).to_string();
            if r.curve && kind != ChartKind::Bars {
                let color = r.line.unwrap_or_else(|| {
                    unlined += 1;
                    unlined - 1
                });
                series.push(Series { label, color, dashed: true, points: r.points.clone(), band: vec![] });
            } else if !r.curve {
                marks.push(Mark { x: r.points[0].0, y: r.points[0].1, label, color: r.line });
            }
        }
        Chart {
            kind,
            title: self.title.get(lang).to_string(),
            x_label: p.x_label.as_ref().unwrap_or(&x_label).get(lang).to_string(),
            y_label: p.y_label.as_ref().unwrap_or(&y_label).get(lang).to_string(),
            x_log: p.x_log,
            y_log: p.y_log,
            x_min: p.x_min,
            x_max: p.x_max,
            percent: self.measure.is_flag(),
            series,
            marks,
        }
    }

    /// The plot as a standalone SVG document.
    pub fn svg(&self, lang: Lang) -> String {
        crate::plot::svg(&self.chart(lang))
    }
}

/// Every live node names the same live leader: now, or at the end of the next election.
fn agreement(e: &mut Engine) -> Option<NodeId> {
    if let Some(l) = e.frame().agreement {
        return Some(l);
    }
    let seen = e.elections().len();
    while e.step() {
        if e.elections().len() > seen {
            return e.elections().last().map(|x| x.leader);
        }
    }
    None
}

/// How [`Sweep::render`] writes a table.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Format {
    Csv,
    /// One JSON object a line, keyed by column; empty cells are null.
    JsonLines,
    Markdown,
}

/// One table cell: text, a whole number, a decimal (written with 3 places), or nothing.
#[derive(Clone, Debug, PartialEq)]
pub enum Cell {
    Str(String),
    Int(u64),
    Num(f64),
    Empty,
}

impl Cell {
    pub fn text(&self) -> String {
        match self {
            Cell::Str(s) => s.clone(),
            Cell::Int(i) => i.to_string(),
            Cell::Num(x) => format!("{x:.3}"),
            Cell::Empty => String::new(),
        }
    }
    /// The cell in a CSV file: quoted when it holds a comma, a quote or a line break.
    pub fn csv(&self) -> String {
        let t = self.text();
        if t.contains([',', '"', '\n']) {
            format!("\"{}\"", t.replace('"', "\"\""))
        } else {
            t
        }
    }
    pub fn json(&self) -> Value {
        match self {
            Cell::Str(s) => json!(s),
            Cell::Int(i) => json!(i),
            // The value the CSV shows, so both outputs carry the same numbers.
            Cell::Num(x) => json!(self.text().parse::<f64>().unwrap_or(*x)),
            Cell::Empty => Value::Null,
        }
    }
}
