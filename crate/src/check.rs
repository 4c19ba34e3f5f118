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
}

impl Default for Bounds {
    fn default() -> Self {
        Bounds { crashes: 0, recoveries: 0, partitions: 0, drops: 0, depth: None, max_states: 2_000_000 }
    }
}

impl Bounds {
    /// "depth ≤ 12, ≤ 2 crashes, ≤ 1 partition" (only the bounds that allow something, and the
    /// depth if there is one).
    pub fn describe(&self) -> String {
        let mut parts = Vec::new();
        if let Some(d) = self.depth {
            parts.push(format!("depth ≤ {d}"));
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
        } else {
            parts.join(", ")
        }
    }
}

/// One move of a schedule. Messages are named by ends and payload fingerprint, timers by node
/// and key fingerprint: the same in the checker's worlds and in a replay.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Move {
    Deliver { from: NodeId, to: NodeId, payload: u64 },
    Fire { node: NodeId, key: u64 },
    Lose { from: NodeId, to: NodeId, payload: u64 },
    Crash(NodeId),
    Recover(NodeId),
    /// Split into the nodes of `side` and the rest.
    Partition(Vec<NodeId>),
    Heal,
    /// The scenario's schedule entry `k`.
    Scheduled(usize),
}

/// The checker's world (node states shared between states that did not change them).
#[derive(Clone)]
struct World {
    nodes: Rc<dyn Stash>,
    /// Per node, the fingerprint of its state and timers.
    node_h: Rc<[u64]>,
    up: u32,
    /// Live nodes that believe they lead (the observers' view, to tell who *became* leader).
    leaders: u32,
    /// Partition label per node (empty: whole).
    labels: Vec<u8>,
    /// (from, to, payload id), canonically ordered.
    msgs: Vec<(u8, u8, u32)>,
    used: [u32; 4],
    sched: u16,
    /// Which node led each term (for `two-leaders-in-term`).
    terms: Vec<(u64, NodeId)>,
    depth: u32,
    /// Index in the parent table.
    id: u32,
}

const CRASH: usize = 0;
const RECOVER: usize = 1;
const PARTITION: usize = 2;
const DROP: usize = 3;

/// A hasher for keys that are fingerprints already.
#[derive(Default)]
struct Id(u64);
impl Hasher for Id {
    fn write(&mut self, b: &[u8]) {
        for &x in b {
            self.0 = self.0.rotate_left(8) ^ x as u64;
        }
    }
    fn write_u64(&mut self, x: u64) {
        self.0 = x;
    }
    fn finish(&self) -> u64 {
        self.0
    }
}
type Seen = HashMap<u64, (), BuildHasherDefault<Id>>;

/// What a handler did, as the checker's sink records it.
#[derive(Default)]
struct Out {
    /// (destination index, message id).
    sends: Vec<(u8, u64)>,
    notes: Vec<Note>,
    reports: Vec<&'static str>,
    token: u64,
    ids: Vec<NodeId>,
}

impl Sink for Out {
    fn send(&mut self, to: NodeId, _kind: usize, _fixed: Option<Time>, logged: u64) -> bool {
        match self.ids.iter().position(|&x| x == to) {
            Some(t) => {
                self.sends.push((t as u8, logged));
                true
            }
            None => false,
        }
    }
    fn set_timer(&mut self, _name: &'static str, _lo: Time, _hi: Time, _replaced: bool) -> u64 {
        self.token += 1;
        self.token
    }
    fn cancel_timer(&mut self, _name: &'static str) {}
    fn note(&mut self, note: Note) {
        self.notes.push(note);
    }
    fn report(&mut self, property: &'static str, _nodes: Vec<NodeId>) {
        self.reports.push(property);
    }
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
    /// Whether replaying the schedule in the simulator showed the violation (it must).
    pub replayed: bool,
}

/// What a finished (or stopped) exploration says.
#[derive(Clone, Debug)]
pub struct Report {
    pub property: &'static str,
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
    /// How often each narration rule fired over all moves explored, by key, and the
    /// algorithm's own rules that never did.
    pub coverage: Vec<(&'static str, u64)>,
    pub never: Vec<&'static str>,
}

impl Report {
    /// One line saying exactly what was proved.
    pub fn sentence(&self) -> String {
        let bounds = self.bounds.describe();
        match &self.verdict {
            Verdict::Holds { complete: true } => format!(
                "{}: exhausted: the whole reachable space is {} states ({bounds}, asynchronous time); no violation",
                self.property, self.states
            ),
            Verdict::Holds { complete: false } => format!(
                "{}: no violation: all {} unique states ({bounds}, asynchronous time)",
                self.property, self.states
            ),
            Verdict::Limit => format!(
                "{}: no violation in the first {} unique states (state limit reached; {bounds}, depth {} reached): nothing is proved beyond them",
                self.property, self.states, self.depth
            ),
            Verdict::Violated(c) => format!(
                "{}: violated after {} moves (a shortest schedule; {} unique states explored, {bounds}): step {} t={} nodes {:?}{}",
                self.property,
                c.moves.len(),
                self.states,
                c.step,
                c.time,
                c.nodes,
                if c.replayed { "" } else { " — NOT reproduced by the replay" }
            ),
        }
    }
}

/// The exploration of one scenario.
pub struct Checker {
    /// The scenario a counterexample replays on (none for a protocol checked on its own).
    scenario: Option<Scenario>,
    m: Box<dyn Machine>,
    cfg: Config,
    n: usize,
    property: &'static Property,
    bounds: Bounds,
    fifo: bool,
    schedule: Vec<Action>,
    rules: Vec<&'static str>,
    /// Payload fingerprint by payload id; payload id by fingerprint.
    phash: Vec<u64>,
    pid: HashMap<u64, u32, BuildHasherDefault<Id>>,
    seen: Seen,
    /// Per state: its parent and the move that reached it.
    parents: Vec<(u32, Move)>,
    queue: VecDeque<World>,
    coverage: HashMap<&'static str, u64>,
    transitions: u64,
    depth: u32,
    cut: bool,
    found: Option<(u32, Vec<NodeId>)>,
    limit: bool,
    timers: Vec<(u64, u64)>,
}

/// The property named `id` that the algorithm claims (or split brain, which every leader
/// election can be asked about).
fn property_of(scenario: &Scenario, id: &str) -> Result<&'static Property, ScenarioError> {
    let alg = registry::find(&scenario.algorithm)
        .ok_or_else(|| ScenarioError::new("algorithm", format!("unknown algorithm '{}'", scenario.algorithm)))?;
    if let Some(p) = alg.property(id) {
        if p.monitor == Monitor::OneToken {
            return Err(ScenarioError::new(
                "property",
                format!("{id}: the token monitor is not modelled by the exhaustive checker"),
            ));
        }
        return Ok(p);
    }
    if id == SPLIT_BRAIN {
        static SPLIT: Property = crate::meta::single_leader(crate::meta::Faults::Any);
        return Ok(&SPLIT);
    }
    let claimed: Vec<&str> = alg.properties.iter().map(|p| p.id).collect();
    Err(ScenarioError::new(
        "property",
        format!("{}: {id} is not a property it claims (it claims: {})", alg.id, claimed.join(", ")),
    ))
}

impl Checker {
    /// A checker of `property` on the scenario's algorithm, nodes, parameters and schedule.
    pub fn new(scenario: &Scenario, property: &str, bounds: Bounds) -> Result<Checker, ScenarioError> {
        let property = property_of(scenario, property)?;
        let alg = registry::find(&scenario.algorithm).expect("checked");
        if crate::protocols::RECORDED.iter().any(|a| a.id == alg.id) {
            return Err(ScenarioError::new("algorithm", "a recorded run replays a log: there is nothing to explore"));
        }
        let n = scenario.nodes.len();
        if n > MAX_NODES {
            return Err(ScenarioError::new("nodes", format!("the checker explores at most {MAX_NODES} nodes")));
        }
        if scenario.fencing.is_some() {
            return Err(ScenarioError::new("fencing", "the fenced store is not modelled by the exhaustive checker"));
        }
        let mut schedule = Vec::new();
        for (i, s) in scenario.schedule.iter().enumerate() {
            match &s.action {
                Action::Crash(_) | Action::Recover(_) | Action::Start(_) | Action::Heal | Action::Isolate(_) => {}
                Action::Partition { .. } => {}
                other => {
                    return Err(ScenarioError::new(
                        format!("schedule[{i}]"),
                        format!("{}: not modelled by the exhaustive checker", other.describe()),
                    ))
                }
            }
            schedule.push(s.action.clone());
        }
        let sim = (alg.build)(scenario, alg.properties)?;
        let (mut m, cfg) = sim.into_machine();
        m.reset();
        let prefix = format!("{}.note.", alg.id.replace('-', "_"));
        let rules = crate::meta::Text::all().map(|t| t.key()).filter(|k| k.starts_with(&prefix)).collect();
        let (lo, hi) = scenario.network.latency;
        Ok(Checker {
            scenario: Some(scenario.clone()),
            m,
            cfg,
            n,
            property,
            bounds,
            fifo: scenario.network.fifo || lo == hi,
            schedule,
            rules,
            phash: Vec::new(),
            pid: HashMap::default(),
            seen: Seen::default(),
            parents: Vec::new(),
            queue: VecDeque::new(),
            coverage: HashMap::new(),
            transitions: 0,
            depth: 0,
            cut: false,
            found: None,
            limit: false,
            timers: Vec::new(),
        })
    }

    /// A checker of protocol `proto` on its own (not registered, no scenario: a counterexample
    /// has moves but no trace), its nodes in `cfg`, on FIFO links.
    pub fn for_protocol<P: crate::protocol::Protocol>(
        proto: P,
        cfg: Config,
        property: &'static Property,
        bounds: Bounds,
    ) -> Checker {
        Checker {
            scenario: None,
            m: Box::new(crate::machine::Core::new(proto)),
            n: cfg.n(),
            cfg,
            property,
            bounds,
            fifo: true,
            schedule: Vec::new(),
            rules: Vec::new(),
            phash: Vec::new(),
            pid: HashMap::default(),
            seen: Seen::default(),
            parents: Vec::new(),
            queue: VecDeque::new(),
            coverage: HashMap::new(),
            transitions: 0,
            depth: 0,
            cut: false,
            found: None,
            limit: false,
            timers: Vec::new(),
        }
    }

    /// Lets links deliver out of send order even on a FIFO network.
    pub fn unordered(&mut self) {
        self.fifo = false;
    }

    fn out(&self) -> Out {
        Out { ids: self.cfg.ids.clone(), token: 1 << 40, ..Out::default() }
    }

    fn node_hash(&self, i: usize) -> u64 {
        let mut h = Fnv64::default();
        self.m.hash_node(i, &mut h);
        h.finish()
    }

    /// Keeps one copy of each distinct payload sent from `mark` on; the sends' payload ids.
    fn intern(&mut self, mark: u64, sends: &[(u8, u64)]) -> Vec<u32> {
        let mut keep = Vec::with_capacity(sends.len());
        let mut ids = Vec::with_capacity(sends.len());
        let mut next = mark as u32;
        for &(_, id) in sends {
            let mut h = Fnv64::default();
            self.m.hash_payload(id, &mut h);
            let fp = h.finish();
            match self.pid.get(&fp) {
                Some(&p) => {
                    keep.push(false);
                    ids.push(p);
                }
                None => {
                    keep.push(true);
                    self.pid.insert(fp, next);
                    self.phash.push(fp);
                    ids.push(next);
                    next += 1;
                }
            }
        }
        self.m.retain_payloads(mark, &keep);
        debug_assert_eq!(self.m.payloads_end(), next as u64);
        ids
    }

    fn fingerprint(&self, w: &World) -> u64 {
        let mut h = Fnv64::default();
        w.node_h.hash(&mut h);
        w.up.hash(&mut h);
        w.labels.hash(&mut h);
        for &(f, t, p) in &w.msgs {
            (f, t, self.phash[p as usize]).hash(&mut h);
        }
        w.used.hash(&mut h);
        w.sched.hash(&mut h);
        w.terms.hash(&mut h);
        h.finish()
    }

    fn canon(&self, w: &mut World) {
        if self.fifo {
            w.msgs.sort_by_key(|&(f, t, _)| (f, t)); // stable: each link keeps its order
        } else {
            w.msgs.sort_unstable_by_key(|&(f, t, p)| (f, t, self.phash[p as usize]));
        }
        if !w.labels.is_empty() {
            let mut map = [u8::MAX; 256];
            let mut next = 0u8;
            for l in &mut w.labels {
                if map[*l as usize] == u8::MAX {
                    map[*l as usize] = next;
                    next += 1;
                }
                *l = map[*l as usize];
            }
            if next <= 1 {
                w.labels.clear();
            }
        }
    }

    /// Records what a handler of node `i` did into the successor `w` (messages, coverage,
    /// the node's new fingerprint and view, the property) and returns the nodes of a
    /// violation, if one shows.
    fn after_handler(&mut self, w: &mut World, i: usize, mark: u64, out: Out) -> Option<Vec<NodeId>> {
        let pids = self.intern(mark, &out.sends);
        for (&(to, _), p) in out.sends.iter().zip(pids) {
            w.msgs.push((i as u8, to, p));
        }
        for note in &out.notes {
            *self.coverage.entry(note.text.key()).or_insert(0) += 1;
        }
        let mut node_h = w.node_h.to_vec();
        node_h[i] = self.node_hash(i);
        w.node_h = node_h.into();
        w.nodes = Rc::from(self.m.snapshot());
        let mut bad = None;
        if out.reports.contains(&self.property.id) {
            bad = Some(vec![self.cfg.ids[i]]);
        }
        let view = self.m.view(i);
        let bit = 1u32 << i;
        let was = w.leaders & bit != 0;
        if view.is_leader() {
            w.leaders |= bit;
        } else {
            w.leaders &= !bit;
        }
        if view.is_leader() && !was {
            let me = self.cfg.ids[i];
            match self.property.monitor {
                Monitor::SplitBrain if (w.leaders & w.up).count_ones() >= 2 => {
                    bad = Some((0..self.n).filter(|&j| w.leaders & w.up & (1 << j) != 0).map(|j| self.cfg.ids[j]).collect());
                }
                Monitor::TwoLeadersInTerm => {
                    if let Some(t) = view.term {
                        match w.terms.binary_search_by_key(&t, |&(t, _)| t) {
                            Ok(k) if w.terms[k].1 != me => {
                                let other = w.terms[k].1;
                                bad = Some(vec![other.min(me), other.max(me)]);
                            }
                            Ok(_) => {}
                            Err(k) => w.terms.insert(k, (t, me)),
                        }
                    }
                }
                _ => {}
            }
        }
        bad
    }

    fn initial(&mut self) -> (World, Option<Vec<NodeId>>) {
        let mut w = World {
            nodes: Rc::from(self.m.snapshot()),
            node_h: vec![0; self.n].into(),
            up: if self.n == 32 { u32::MAX } else { (1u32 << self.n) - 1 },
            leaders: 0,
            labels: Vec::new(),
            msgs: Vec::new(),
            used: [0; 4],
            sched: 0,
            terms: Vec::new(),
            depth: 0,
            id: 0,
        };
        let mut bad = None;
        for i in 0..self.n {
            let mark = self.m.payloads_end();
            let mut out = self.out();
            let at = At { i, me: self.cfg.ids[i], now: 0, cfg: &self.cfg };
            self.m.boot(at, &mut out);
            if let Some(b) = self.after_handler(&mut w, i, mark, out) {
                bad.get_or_insert(b);
            }
        }
        self.canon(&mut w);
        (w, bad)
    }

    /// Runs the exploration to its end (or a bound) and reports.
    pub fn run(mut self) -> Report {
        let (w, bad) = self.initial();
        let fp = self.fingerprint(&w);
        self.seen.insert(fp, ());
        self.parents.push((u32::MAX, Move::Heal));
        if let Some(nodes) = bad {
            self.found = Some((0, nodes));
        } else {
            self.queue.push_back(w);
        }
        while self.found.is_none() && !self.limit {
            let Some(w) = self.queue.pop_front() else { break };
            self.expand(&w);
        }
        self.report()
    }

    /// The moves enabled in `w`.
    fn moves(&mut self, w: &World) -> Vec<Move> {
        let ids = &self.cfg.ids;
        let mut moves = Vec::new();
        let mut last: Option<(u8, u8, u32)> = None;
        for (k, &(f, t, p)) in w.msgs.iter().enumerate() {
            let first_on_link = k == 0 || (w.msgs[k - 1].0, w.msgs[k - 1].1) != (f, t);
            if self.fifo && !first_on_link {
                continue;
            }
            if last == Some((f, t, p)) {
                continue; // the same message again: the same move
            }
            last = Some((f, t, p));
            let (from, to, payload) = (ids[f as usize], ids[t as usize], self.phash[p as usize]);
            moves.push(Move::Deliver { from, to, payload });
        }
        if w.used[DROP] < self.bounds.drops {
            // Any message may be lost, not only the first of its link.
            let mut last = None;
            for &(f, t, p) in &w.msgs {
                if last != Some((f, t, p)) {
                    last = Some((f, t, p));
                    let (from, to, payload) = (ids[f as usize], ids[t as usize], self.phash[p as usize]);
                    moves.push(Move::Lose { from, to, payload });
                }
            }
        }
        for i in 0..self.n {
            if w.up & (1 << i) == 0 {
                continue;
            }
            self.timers.clear();
            self.m.restore(&*w.nodes);
            let mut t = std::mem::take(&mut self.timers);
            self.m.timers(i, &mut t);
            t.sort_unstable_by_key(|&(_, key)| key);
            for &(_, key) in &t {
                moves.push(Move::Fire { node: ids[i], key });
            }
            self.timers = t;
        }
        if (w.sched as usize) < self.schedule.len() {
            moves.push(Move::Scheduled(w.sched as usize));
        }
        for i in 0..self.n {
            let up = w.up & (1 << i) != 0;
            if up && w.used[CRASH] < self.bounds.crashes {
                moves.push(Move::Crash(ids[i]));
            }
            if !up && w.used[RECOVER] < self.bounds.recoveries {
                moves.push(Move::Recover(ids[i]));
            }
        }
        if w.labels.is_empty() && w.used[PARTITION] < self.bounds.partitions && self.n >= 2 {
            // Two sides; the side without the first node names the split.
            for mask in 1u32..(1 << (self.n - 1)) {
                let side: Vec<NodeId> = (1..self.n).filter(|&j| mask & (1 << (j - 1)) != 0).map(|j| ids[j]).collect();
                moves.push(Move::Partition(side));
            }
        }
        if !w.labels.is_empty() {
            moves.push(Move::Heal);
        }
        moves
    }

    fn expand(&mut self, w: &World) {
        let moves = self.moves(w);
        if self.bounds.depth.is_some_and(|d| w.depth >= d) {
            if !moves.is_empty() {
                self.cut = true;
            }
            return;
        }
        for mv in moves {
            self.transitions += 1;
            let (mut next, bad) = self.apply(w, &mv);
            next.depth = w.depth + 1;
            self.canon(&mut next);
            let fp = self.fingerprint(&next);
            if self.seen.contains_key(&fp) {
                continue;
            }
            if self.seen.len() >= self.bounds.max_states {
                self.limit = true;
                return;
            }
            self.seen.insert(fp, ());
            next.id = self.parents.len() as u32;
            self.parents.push((w.id, mv));
            self.depth = self.depth.max(next.depth);
            if let Some(nodes) = bad {
                self.found = Some((next.id, nodes));
                return;
            }
            self.queue.push_back(next);
        }
    }

    fn idx(&self, id: NodeId) -> usize {
        self.cfg.position(id).expect("a node of the scenario")
    }

    /// The successor of `w` by `mv`, and the nodes of a violation it shows.
    fn apply(&mut self, w: &World, mv: &Move) -> (World, Option<Vec<NodeId>>) {
        let mut next = w.clone();
        let mut bad = None;
        match *mv {
            Move::Deliver { from, to, payload } | Move::Lose { from, to, payload } => {
                let (f, t) = (self.idx(from) as u8, self.idx(to) as u8);
                let p = self.pid[&payload];
                let k = next.msgs.iter().position(|&m| m == (f, t, p)).expect("in flight");
                next.msgs.remove(k);
                if let Move::Lose { .. } = mv {
                    next.used[DROP] += 1;
                } else {
                    let (fi, ti) = (f as usize, t as usize);
                    let linked = next.labels.is_empty() || next.labels[fi] == next.labels[ti];
                    if next.up & (1 << ti) != 0 && linked {
                        self.m.restore(&*w.nodes);
                        let mark = self.m.payloads_end();
                        let mut out = self.out();
                        let at = At { i: ti, me: self.cfg.ids[ti], now: 0, cfg: &self.cfg };
                        self.m.deliver(at, &mut out, from, p as u64);
                        bad = self.after_handler(&mut next, ti, mark, out);
                    }
                }
            }
            Move::Fire { node, key } => {
                let i = self.idx(node);
                self.m.restore(&*w.nodes);
                self.timers.clear();
                let mut t = std::mem::take(&mut self.timers);
                self.m.timers(i, &mut t);
                let token = t.iter().find(|&&(_, k)| k == key).map(|&(tok, _)| tok).expect("pending timer");
                self.timers = t;
                let mark = self.m.payloads_end();
                let mut out = self.out();
                let at = At { i: i, me: self.cfg.ids[i], now: 0, cfg: &self.cfg };
                self.m.fire(at, &mut out, token);
                bad = self.after_handler(&mut next, i, mark, out);
            }
            Move::Crash(id) => {
                next.used[CRASH] += 1;
                self.crash(&mut next, w, self.idx(id));
            }
            Move::Recover(id) => {
                next.used[RECOVER] += 1;
                bad = self.recover(&mut next, w, self.idx(id));
            }
            Move::Partition(ref side) => {
                next.used[PARTITION] += 1;
                next.labels = (0..self.n).map(|j| side.contains(&self.cfg.ids[j]) as u8).collect();
            }
            Move::Heal => next.labels.clear(),
            Move::Scheduled(k) => {
                next.sched += 1;
                let action = self.schedule[k].clone();
                match action {
                    Action::Crash(id) => {
                        if let Some(i) = self.cfg.position(id) {
                            if w.up & (1 << i) != 0 {
                                self.crash(&mut next, w, i);
                            }
                        }
                    }
                    Action::Recover(id) => {
                        if let Some(i) = self.cfg.position(id) {
                            if w.up & (1 << i) == 0 {
                                bad = self.recover(&mut next, w, i);
                            }
                        }
                    }
                    Action::Start(id) => {
                        if let Some(i) = self.cfg.position(id) {
                            if w.up & (1 << i) != 0 {
                                self.m.restore(&*w.nodes);
                                let mark = self.m.payloads_end();
                                let mut out = self.out();
                                let at = At { i: i, me: self.cfg.ids[i], now: 0, cfg: &self.cfg };
                                self.m.start(at, &mut out);
                                bad = self.after_handler(&mut next, i, mark, out);
                            }
                        }
                    }
                    Action::Heal => next.labels.clear(),
                    Action::Isolate(id) => {
                        if let Some(i) = self.cfg.position(id) {
                            let mut labels = if next.labels.is_empty() { vec![0; self.n] } else { next.labels.clone() };
                            labels[i] = labels.iter().copied().max().unwrap_or(0) + 1;
                            next.labels = labels;
                        }
                    }
                    Action::Partition { ref groups, .. } => {
                        let mut labels = vec![0u8; self.n];
                        for (g, members) in groups.iter().enumerate() {
                            for &id in members {
                                if let Some(i) = self.cfg.position(id) {
                                    labels[i] = g as u8 + 1;
                                }
                            }
                        }
                        next.labels = labels;
                    }
                    _ => unreachable!("refused by Checker::new"),
                }
            }
        }
        (next, bad)
    }

    fn crash(&mut self, next: &mut World, w: &World, i: usize) {
        self.m.restore(&*w.nodes);
        self.m.clear_timers(i);
        next.up &= !(1 << i);
        next.leaders &= !(1 << i);
        let mut node_h = next.node_h.to_vec();
        node_h[i] = self.node_hash(i);
        next.node_h = node_h.into();
        next.nodes = Rc::from(self.m.snapshot());
    }

    fn recover(&mut self, next: &mut World, w: &World, i: usize) -> Option<Vec<NodeId>> {
        self.m.restore(&*w.nodes);
        next.up |= 1 << i;
        next.leaders &= !(1 << i);
        let mark = self.m.payloads_end();
        let mut out = self.out();
        let at = At { i: i, me: self.cfg.ids[i], now: 0, cfg: &self.cfg };
        self.m.recover(at, &mut out);
        self.after_handler(next, i, mark, out)
    }

    fn path(&self, mut id: u32) -> Vec<Move> {
        let mut moves = Vec::new();
        while id != 0 {
            let (parent, mv) = &self.parents[id as usize];
            moves.push(mv.clone());
            id = *parent;
        }
        moves.reverse();
        moves
    }

    fn report(&self) -> Report {
        let mut coverage: Vec<(&'static str, u64)> = self.coverage.iter().map(|(&k, &c)| (k, c)).collect();
        coverage.sort_unstable_by(|a, b| b.1.cmp(&a.1).then(a.0.cmp(b.0)));
        let never = self.rules.iter().copied().filter(|k| !self.coverage.contains_key(k)).collect();
        let verdict = match &self.found {
            Some((id, nodes)) => {
                let moves = self.path(*id);
                Verdict::Violated(Box::new(match &self.scenario {
                    Some(s) => replay(s, self.property.id, moves, nodes.clone()),
                    None => Counterexample {
                        moves,
                        trace: Value::Null,
                        step: 0,
                        time: 0,
                        nodes: nodes.clone(),
                        replayed: false,
                    },
                }))
            }
            None if self.limit => Verdict::Limit,
            None => Verdict::Holds { complete: !self.cut },
        };
        Report {
            property: self.property.id,
            verdict,
            states: self.seen.len() as u64,
            transitions: self.transitions,
            depth: self.depth,
            bounds: self.bounds.clone(),
            fifo: self.fifo,
            coverage,
            never,
        }
    }
}

/// The scenario a counterexample replays on: the checker's schedule in interventions, so no
/// schedule of its own, and no network loss (the checker's lost messages are interventions).
pub fn replay_scenario(scenario: &Scenario) -> Scenario {
    let mut s = scenario.clone();
    s.schedule.clear();
    s.network.loss = 0.0;
    s
}

/// Replays `moves` in an engine as interventions, one forced step per delivery or timer, and
/// returns the counterexample with the trace opening where the violation shows.
fn replay(scenario: &Scenario, property: &'static str, moves: Vec<Move>, nodes: Vec<NodeId>) -> Counterexample {
    let s = replay_scenario(scenario);
    let mut e = Engine::new(s).expect("the scenario was built once already");
    let find = |e: &Engine, from: NodeId, to: NodeId, payload: u64| -> Option<u64> {
        let sim = e.sim();
        sim.in_flight()
            .filter(|(id, m)| m.from == from && m.to == to && !sim.is_manually_dropped(*id))
            .map(|(id, _)| id)
            .filter(|&id| {
                let mut h = Fnv64::default();
                sim.machine().hash_payload(id, &mut h);
                h.finish() == payload
            })
            .min()
    };
    let mut replayed = true;
    for mv in &moves {
        let action = match *mv {
            Move::Deliver { from, to, payload } => find(&e, from, to, payload).map(Action::Deliver),
            Move::Lose { from, to, payload } => find(&e, from, to, payload).map(Action::Drop),
            Move::Fire { node, key } => {
                let sim = e.sim();
                let i = sim.idx(node).expect("a node");
                let mut t = Vec::new();
                sim.machine().timers(i, &mut t);
                t.iter()
                    .find(|&&(_, k)| k == key)
                    .and_then(|&(tok, _)| sim.machine().timer_key(i, tok))
                    .map(|timer| Action::Fire { node, timer })
            }
            Move::Crash(n) => Some(Action::Crash(n)),
            Move::Recover(n) => Some(Action::Recover(n)),
            Move::Partition(ref side) => {
                let rest: Vec<NodeId> = scenario.nodes.iter().copied().filter(|x| !side.contains(x)).collect();
                Some(Action::Partition { groups: vec![rest, side.clone()], lines: vec![] })
            }
            Move::Heal => Some(Action::Heal),
            Move::Scheduled(k) => Some(scenario.schedule[k].action.clone()),
        };
        let Some(action) = action else {
            replayed = false;
            break;
        };
        let step = action.is_step();
        // A forced step happens when the next event would: time moves on as it can.
        let now = e.now();
        let next = e.next_event_time().map_or(now, |t| t.min(e.stop_time()).max(now));
        if e.apply_at(action, if step { next } else { now }).is_err() {
            replayed = false;
            break;
        }
        if step {
            let before = e.cursor();
            e.step();
            if e.cursor() != before + 1 {
                replayed = false;
                break;
            }
        }
    }
    let hit = e.violations().iter().find(|v| v.kind == property).cloned();
    replayed &= hit.is_some();
    let (step, time) = hit.as_ref().map_or((e.cursor(), e.now()), |v| (v.step, v.time));
    let mut trace = e.trace_value();
    trace["step"] = Value::from(step);
    Counterexample { moves, trace, step, time, nodes: hit.map_or(nodes, |v| v.nodes), replayed }
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
