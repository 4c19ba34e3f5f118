//! The exhaustive checker: every schedule of a small cluster, breadth-first over deduplicated
//! world states, within stated bounds.
//!
//! * **World state**: every node's protocol state with the keys of its pending timers
//!   ([`Machine::hash_node`]), which nodes are up, the partition (groups, relabelled in order of
//!   first appearance), the messages in flight as a multiset of (from, to, payload) — per link in
//!   send order on FIFO links —, how much of each fault budget is used, how far the scenario's
//!   own schedule has gone, and, for `two-leaders-in-term`, which node led each term (the
//!   monitor's own memory, a history variable). A state is known by its [`Fnv64`] fingerprint;
//!   two schedules reaching the same world are one state.
//! * **Time model: asynchronous** (as in Stateright's actor model): a pending timer may fire at
//!   any moment and any message in flight may arrive next (on a FIFO link only the oldest), so
//!   handlers run with the clock at 0. Sound for properties claimed without timing assumptions
//!   (Raft's one leader per term); an algorithm that relies on timeouts being long enough
//!   (Bully) shows what those assumptions buy.
//! * **Moves** from a state: deliver a message (dropped if its receiver is down or a partition
//!   separates them), fire a timer of a live node, the next action of the scenario's schedule
//!   (in its order, at any moment), and within the bounds: crash a live node, recover a crashed
//!   one, split the cluster in two (when it is whole), heal, lose a message in flight.
//! * **Breadth-first**, so the first violating state found is one of the fewest moves; its
//!   path is replayed in an [`Engine`] as interventions (`deliver`, `fire`, crash, ...), one
//!   forced step each, and handed back as a trace opening at the violating step.
//! * **Coverage**: how often each narration rule (note key) fired over every move explored.

use crate::engine::Engine;
use crate::error::ScenarioError;
use crate::machine::{At, Fnv64, Machine, Stash};
use crate::meta::{Monitor, Note, Property, SPLIT_BRAIN};
use crate::protocol::{Config, Sink};
use crate::registry;
use crate::scenario::{Action, Scenario};
use crate::{NodeId, Time};
use serde_json::Value;
use std::collections::{BTreeMap, HashMap, VecDeque};
use std::hash::{BuildHasherDefault, Hash, Hasher};
use std::rc::Rc;

mod explore;
mod fair;
mod frontier;
mod moves;
mod replay;
mod steps;
mod symmetry;
mod timed;

pub use explore::Checker;
use explore::*;
use frontier::*;
pub use replay::replay_scenario;
pub use steps::Explored;
pub use symmetry::MAX_SYMMETRIC_NODES;
use symmetry::*;
use timed::TimedRun;

/// The *sometimes* property "a leader is agreed": some reachable state has every live node
/// naming the same live leader (the path to the first such state is its witness).
pub const LEADER_AGREED: &str = "sometimes:leader-agreed";

/// The *eventually* property "every fair schedule agrees on a leader": under weak fairness
/// (a delivery or timer that stays possible is eventually taken), every schedule reaches a state
/// where every live node names the same live leader. Broken by a lasso: a path to a loop (or to
/// a state with no move) that never agrees.
pub const EVENTUALLY_AGREED: &str = "eventually:leader-agreed";

/// The largest cluster checked (node sets are bit masks).
pub const MAX_NODES: usize = 16;

/// How far the exploration may go.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Bounds {
    pub crashes: u32,
    pub recoveries: u32,
    pub partitions: u32,
    /// Messages the network may lose.
    pub drops: u32,
    /// Moves from the initial state, at most (`None`: no bound).
    pub depth: Option<u32>,
    /// Unique states kept, at most: the exploration stops there (and says so).
    pub max_states: usize,
    /// The timed model up to this time (`check/timed.rs`): discrete ticks, every latency and
    /// timer delay any value in its range, every event at or before the horizon. `None`: the
    /// asynchronous model.
    pub horizon: Option<Time>,
    /// The timed model only: every node's clock may drift from real time by up to this many
    /// thousandths of its rate (`check/timed.rs`); 0: clocks keep real time.
    pub max_drift: u32,
}

impl Default for Bounds {
    fn default() -> Self {
        Bounds {
            crashes: 0,
            recoveries: 0,
            partitions: 0,
            drops: 0,
            depth: None,
            max_states: 2_000_000,
            horizon: None,
            max_drift: 0,
        }
    }
}

impl Bounds {
    /// "depth ≤ 12, ≤ 2 crashes, ≤ 1 partition" (only the bounds that allow something, and the
    /// depth if there is one).
    pub fn describe(&self) -> String {
        let mut parts = Vec::new();
        if let Some(h) = self.horizon {
            parts.push(format!("t ≤ {h}"));
        }
        if let Some(d) = self.depth {
            parts.push(format!("depth ≤ {d}"));
        }
        if self.max_drift > 0 {
            parts.push(format!("clock drift ≤ {}", self.max_drift as f64 / 1000.0));
        }
        for (k, one, many) in [
            (self.crashes, "crash", "crashes"),
            (self.recoveries, "recovery", "recoveries"),
            (self.partitions, "partition", "partitions"),
            (self.drops, "lost message", "lost messages"),
        ] {
            if k > 0 {
                parts.push(format!("≤ {k} {}", if k == 1 { one } else { many }));
            }
        }
        if parts.is_empty() {
            "no faults".to_string()
        } else if parts.len() == 1 && self.horizon.is_some() {
            format!("{}, no faults", parts[0])
        } else {
            parts.join(", ")
        }
    }
}

/// One move of a schedule. Messages are named by ends and payload fingerprint, timers by node
/// and key fingerprint: the same in the checker's worlds and in a replay.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum Move {
    Deliver {
        from: NodeId,
        to: NodeId,
        payload: u64,
    },
    Fire {
        node: NodeId,
        key: u64,
    },
    Lose {
        from: NodeId,
        to: NodeId,
        payload: u64,
    },
    Crash(NodeId),
    Recover(NodeId),
    /// Split into the nodes of `side` and the rest.
    Partition(Vec<NodeId>),
    Heal,
    /// The scenario's schedule entry `k`, in the order the simulator applies them (by time).
    Scheduled(usize),
}

/// What the exploration found.
#[derive(Clone, Debug)]
pub enum Verdict {
    /// No violation in any state explored. `complete`: no state was left unexplored (not cut
    /// off by the depth bound): the whole reachable space under the fault bounds was checked.
    Holds { complete: bool },
    /// The property breaks; the counterexample is a shortest one.
    Violated(Box<Counterexample>),
    /// The state limit was reached first: nothing is proved beyond the states counted.
    Limit,
    /// A move gave another world when the clock read otherwise: the handlers read the clock,
    /// which the asynchronous time model cannot give. Nothing is proved.
    ReadsClock,
}

/// A shortest schedule that breaks the property.
#[derive(Clone, Debug)]
pub struct Counterexample {
    pub moves: Vec<Move>,
    /// The trace (`election-lab run` or the page's Import replay it) opening at the violating
    /// step.
    pub trace: Value,
    /// The replay's step and time where the violation shows, and the nodes involved.
    pub step: u64,
    pub time: Time,
    pub nodes: Vec<NodeId>,
    /// Whether replaying the schedule in the simulator showed the violation (it must); for an
    /// *eventually* lasso, whether every move replayed.
    pub replayed: bool,
    /// For an *eventually* property: the moves from this index on are the loop that repeats
    /// forever without agreement (none: the schedule ends in a state with no move).
    pub lasso: Option<usize>,
}

/// What a finished (or stopped) exploration says.
#[derive(Clone, Debug)]
pub struct Report {
    pub property: &'static str,
    /// `property` is a *sometimes* property: `Violated` means it was witnessed (its
    /// counterexample is the witness path), `Holds` that no state explored has it.
    pub sometimes: bool,
    /// `property` is an *eventually* property: `Violated` holds a lasso.
    pub eventually: bool,
    pub verdict: Verdict,
    /// Unique world states reached (the initial one included).
    pub states: u64,
    /// Moves explored (each computed once per state it leaves).
    pub transitions: u64,
    /// The deepest state reached, in moves.
    pub depth: u32,
    pub bounds: Bounds,
    /// Whether links deliver in send order.
    pub fifo: bool,
    /// With symmetry reduction ([`Checker::symmetry`]): how many renamings of the nodes were
    /// allowed (the identity included); `states` then counts states up to symmetry.
    pub symmetry: Option<usize>,
    /// How often each narration rule fired over all moves explored, by key, and the
    /// algorithm's own rules that never did.
    pub coverage: Vec<(&'static str, u64)>,
    pub never: Vec<&'static str>,
    /// The first failure of the algorithm's own code in any move explored (a scripted
    /// algorithm's runtime error or exhausted budget: that move then changed nothing).
    pub handler_error: Option<String>,
}

impl Report {
    /// One line saying exactly what was proved.
    pub fn sentence(&self) -> String {
        let bounds = self.bounds.describe();
        let up = if self.symmetry.is_some() { " up to symmetry" } else { "" };
        let time = if self.bounds.horizon.is_some() { "timed model" } else { "asynchronous time" };
        if self.eventually {
            match &self.verdict {
                Verdict::Violated(c) => {
                    let how = match c.lasso {
                        Some(k) => format!("{k} moves to a loop of {} moves that repeats forever", c.moves.len() - k),
                        None => format!("{} moves to a state with no move left", c.moves.len()),
                    };
                    return format!(
                        "{}: violated: a fair schedule never agrees on a leader: {how} ({} unique states, {bounds}){}",
                        self.property,
                        self.states,
                        not_reproduced(c)
                    );
                }
                Verdict::Holds { complete: true } => {
                    return format!(
                        "{}: holds: every fair schedule of the whole reachable space ({} states; {bounds}, asynchronous time, weak fairness) agrees on a leader",
                        self.property, self.states
                    )
                }
                Verdict::Holds { complete: false } => {
                    return format!(
                        "{}: not decided: the depth bound cut the space ({} states, {bounds}); an eventually property needs the whole reachable space",
                        self.property, self.states
                    )
                }
                _ => {}
            }
        }
        if self.sometimes {
            match &self.verdict {
                Verdict::Violated(c) => return self.found(c, "witnessed", "path", "leader", up, &bounds),
                Verdict::Holds { complete } => {
                    return format!(
                        "{}: never: none of {}{} unique states{up} has it ({bounds}, {time})",
                        self.property,
                        if *complete { "the whole reachable space's " } else { "the " },
                        self.states
                    )
                }
                _ => {}
            }
        }
        let count = |n: u64, one: &str, many: &str| format!("{n} {}", if n == 1 { one } else { many });
        match &self.verdict {
            Verdict::Holds { complete: true } => format!(
                "{}: exhausted: the whole reachable space is {}{up} ({bounds}, {time}); no violation",
                self.property,
                count(self.states, "state", "states")
            ),
            Verdict::Holds { complete: false } => format!(
                "{}: no violation: all {} unique states{up} ({bounds}, {time})",
                self.property,
                self.states
            ),
            Verdict::Limit => format!(
                "{}: no violation in the first {} unique states{up} (state limit reached; {bounds}, depth {} reached): nothing is proved beyond them",
                self.property, self.states, self.depth
            ),
            Verdict::ReadsClock => format!(
                "{}: not checked: the algorithm's handlers read the clock (a move gave another state at another time), which the asynchronous time model cannot give",
                self.property
            ),
            Verdict::Violated(c) => self.found(c, "violated", "schedule", "nodes", up, &bounds),
        }
    }

    /// The sentence of a counterexample (`what`: violated) or of a *sometimes* witness
    /// (witnessed): its moves, where it shows, and whether the replay reproduced it.
    fn found(&self, c: &Counterexample, what: &str, path: &str, who: &str, up: &str, bounds: &str) -> String {
        format!(
            "{}: {what} after {} moves (a shortest {path}; {} unique states{up} explored, {bounds}): step {} t={} {who} {:?}{}",
            self.property,
            c.moves.len(),
            self.states,
            c.step,
            c.time,
            c.nodes,
            not_reproduced(c)
        )
    }
}

/// What a sentence adds when the replay did not show the counterexample (it must).
fn not_reproduced(c: &Counterexample) -> &'static str {
    if c.replayed {
        ""
    } else {
        " — NOT reproduced by the replay"
    }
}

/// The scenario's schedule in the order the simulator applies it (by time, then as listed),
/// with each entry's index in the list (which errors name).
pub(crate) fn schedule_order(scenario: &Scenario) -> Vec<(usize, &crate::scenario::Scheduled)> {
    let mut order: Vec<_> = scenario.schedule.iter().enumerate().collect();
    order.sort_by_key(|(_, s)| s.at); // stable: entries of one tick keep their order
    order
}

/// [`Checker::new`] + [`Checker::run`], with the network's link order lifted if `unordered`.
pub fn check(scenario: &Scenario, property: &str, bounds: Bounds, unordered: bool) -> Result<Report, ScenarioError> {
    let mut c = Checker::new(scenario, property, bounds)?;
    if unordered {
        c.unordered();
    }
    Ok(c.run())
}

/// How the moves of a counterexample read: "N1 delivers N2→N1 …" is left to the trace; this is
/// a count by kind, for summaries.
pub fn move_counts(moves: &[Move]) -> BTreeMap<&'static str, usize> {
    let mut m = BTreeMap::new();
    for mv in moves {
        let k = match mv {
            Move::Deliver { .. } => "deliver",
            Move::Fire { .. } => "fire",
            Move::Lose { .. } => "lose",
            Move::Crash(_) => "crash",
            Move::Recover(_) => "recover",
            Move::Partition(_) => "partition",
            Move::Heal => "heal",
            Move::Scheduled(_) => "scheduled",
        };
        *m.entry(k).or_insert(0) += 1;
    }
    m
}
