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
//!   `x_log`, `y_log`, `x_min`, `x_max`, `x_label`, `y_label`, `x` (`"nodes"`, the default, or
//!   `"diameter"`: each line's network's diameter, for a scenario with a `topology`; a `grid`
//!   given without `rows` and `cols` is made as square as each N allows).
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
use crate::meta::k;
use crate::meta::{Faults, Formula, Lang, Text};
use crate::plot::{Chart, ChartKind, Mark, Series};
use crate::registry;
use crate::rng::Pcg32;
use crate::scenario::{Action, Scenario, Scheduled};
use crate::{NodeId, Time};
use serde_json::{json, Map, Value};
use std::collections::BTreeMap;

mod graph;
mod output;
mod runs;
pub use runs::fault_text;
mod spec;
mod tally;
pub use output::{Cell, Format};
mod merge;
pub use merge::{parse_shard, Merge};

/// The stream of the generator behind the experiment's own choices (the simulator uses another).
const STREAM: u64 = 0xe4_9e71;

/// Most runs one experiment may have. Its rows are kept in memory unless only the summary is
/// written ([`Sweep::keep_rows`]): then 8 bytes a run, 80 MB at this limit.
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
    ("graphs", include_str!("../../experiments/graphs.json")),
    ("graphs-rounds", include_str!("../../experiments/graphs-rounds.json")),
];

/// The per-run columns, in order (`election-lab sweep` prints them as the CSV header).
pub const COLUMNS: &[&str] = &[
    "line",
    "algorithm",
    "variant",
    "nodes",
    "seed",
    "messages",
    "counted",
    "theory",
    "end_time",
    "steps",
    "quiescent",
    "agreement",
    "leaders",
    "max_leaders",
    "violations",
    "elections",
    "downtime",
    "minority_leaders",
    "trace_hash",
    // What replays the run: its index (`election-lab sweep SPEC --replay K`), the faults the
    // sweep drew or placed (schedule entries), the node order when the line shuffles it.
    "run",
    "faults",
    "order",
];

/// The summary columns, in order (`election-lab sweep --summary`).
pub const SUMMARY_COLUMNS: &[&str] = &[
    "line",
    "algorithm",
    "variant",
    "nodes",
    "runs",
    "measure",
    "n",
    "mean",
    "sd",
    "min",
    "median",
    "p90",
    "max",
    "theory",
    "claim",
    "agreement",
    "ever_two",
    "end_two",
    "end_one",
    "end_none",
    "minority_leader",
];

/// A text in both languages, owned (spec texts are read from JSON): the lessons' own.
pub use crate::lesson::Bilingual as Label;

impl Label {
    fn from_text(t: &Text) -> Label {
        Label { en: t.get(Lang::En).into(), zh: t.get(Lang::Zh).into() }
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
    ("messages", Measure::Messages, k::EXPERIMENT_MEASURE_MESSAGES),
    ("counted", Measure::Counted, k::EXPERIMENT_MEASURE_COUNTED),
    ("end_time", Measure::EndTime, k::EXPERIMENT_MEASURE_END_TIME),
    ("steps", Measure::Steps, k::EXPERIMENT_MEASURE_STEPS),
    ("leaders", Measure::Leaders, k::EXPERIMENT_MEASURE_LEADERS),
    ("max_leaders", Measure::MaxLeaders, k::EXPERIMENT_MEASURE_MAX_LEADERS),
    ("violations", Measure::Violations, k::EXPERIMENT_MEASURE_VIOLATIONS),
    ("elections", Measure::Elections, k::EXPERIMENT_MEASURE_ELECTIONS),
    ("downtime", Measure::Downtime, k::EXPERIMENT_MEASURE_DOWNTIME),
    ("minority_leaders", Measure::MinorityLeaders, k::EXPERIMENT_MEASURE_MINORITY_LEADERS),
    ("split", Measure::Split, k::EXPERIMENT_MEASURE_SPLIT),
    ("agreement", Measure::Agreement, k::EXPERIMENT_MEASURE_AGREEMENT),
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
    /// The run's index in the sweep (what [`Sweep::replay`] takes).
    pub run: u64,
    /// The faults this run drew or placed, `<time>:<action>` separated by spaces
    /// (`20:partition=1+2/3+4+5 250:heal`; see [`fault_text`]).
    pub faults: String,
    /// The node (ring) order, when the line shuffles it: ids separated by spaces.
    pub order: Option<String>,
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
        crate::sort::sort_by(values, f64::total_cmp);
        let n = values.len();
        let mean = values.iter().sum::<f64>() / n as f64;
        let var =
            if n > 1 { values.iter().map(|v| (v - mean) * (v - mean)).sum::<f64>() / (n - 1) as f64 } else { 0.0 };
        let rank = |p: f64| values[((p * n as f64).ceil() as usize).clamp(1, n) - 1];
        Some(Stats {
            n: n as u64,
            mean,
            sd: var.sqrt(),
            min: values[0],
            median: rank(0.5),
            p90: rank(0.9),
            max: values[n - 1],
        })
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
                    Who::Random => vec![rng.pick(nodes)],
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

#[derive(Clone, Copy, Debug)]
struct Seeds {
    count: u64,
    start: u64,
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
    /// What the x axis of a `lines` plot reads.
    pub x: XAxis,
}

/// The x axis of a `lines` plot: the node count, or the diameter of each line's network.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum XAxis {
    #[default]
    Nodes,
    Diameter,
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
    /// The runs this sweep does, `lo..hi` of `0..total` ([`Sweep::shard`]; all of them unless set).
    shard: Option<(u64, u64)>,
    /// The slice `k` of `n` that [`Sweep::shard`] kept, if any.
    slice: Option<(u64, u64)>,
    /// The spec as read (what a slice's part carries, so that the slices can be merged).
    spec: Value,
    /// The rows of the runs done, if kept ([`Sweep::keep_rows`]).
    rows: Vec<Row>,
    keep_rows: bool,
    /// Runs done (whether or not their rows are kept).
    done: u64,
    /// What the summary and the plot keep, per line and node count.
    tallies: BTreeMap<(usize, u32), tally::Tally>,
    steps: u64,
}

impl std::fmt::Debug for Sweep {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "Sweep({} lines, {}/{} runs)", self.lines.len(), self.done, self.total)
    }
}

impl Sweep {
    pub fn lines(&self) -> &[Line] {
        &self.lines
    }
    /// The runs done so far, in order (none if rows are not kept: [`Sweep::keep_rows`]).
    pub fn rows(&self) -> &[Row] {
        &self.rows
    }
    pub fn progress(&self) -> Progress {
        let (lo, hi) = self.span();
        Progress { done: self.done, total: hi - lo }
    }

    /// Simulation steps run so far (all runs together).
    pub fn steps(&self) -> u64 {
        self.steps
    }

    /// Row `r`'s value of the measure, divided by `divide`.
    pub fn value(&self, r: &Row) -> Option<f64> {
        r.value(self.measure).map(|v| v / self.divide)
    }

    /// What the line's algorithm claims about a single leader: `any` (under any fault),
    /// `crash-stop`, or `none`.
    pub fn claim(&self, line: usize) -> &'static str {
        match self.lines[line].algorithm.properties.iter().find(|p| p.monitor.is_single_leader()).map(|p| p.holds) {
            Some(Faults::Any) => "any",
            Some(Faults::CrashStop) => "crash-stop",
            None => "none",
        }
    }
}
