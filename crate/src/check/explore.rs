//! The explorer: the checker's worlds, their fingerprints, and the breadth-first loop.

use super::*;

/// The checker's world (node states shared between states that did not change them).
#[derive(Clone)]
pub(super) struct World {
    pub(super) nodes: Rc<dyn Stash>,
    /// Per node, the fingerprint of its state and timers.
    pub(super) node_h: Rc<[u64]>,
    pub(super) up: u32,
    /// Live nodes that believe they lead (the observers' view, to tell who *became* leader).
    pub(super) leaders: u32,
    /// Partition label per node (empty: whole).
    pub(super) labels: Vec<u8>,
    /// (from, to, payload id), canonically ordered.
    pub(super) msgs: Vec<(u8, u8, u32)>,
    pub(super) used: [u32; 4],
    pub(super) sched: u16,
    /// Which node led each term (for `two-leaders-in-term`).
    pub(super) terms: Vec<(u64, NodeId)>,
    pub(super) depth: u32,
    /// Index in the parent table.
    pub(super) id: u32,
}

pub(super) const CRASH: usize = 0;
pub(super) const RECOVER: usize = 1;
pub(super) const PARTITION: usize = 2;
pub(super) const DROP: usize = 3;

/// A hasher for keys that are fingerprints already.
#[derive(Default)]
pub(super) struct Id(u64);
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

/// What a handler did, as the checker's sink records it.
#[derive(Default)]
pub(super) struct Out {
    /// (destination index, message id).
    pub(super) sends: Vec<(u8, u64)>,
    pub(super) notes: Vec<Note>,
    pub(super) reports: Vec<&'static str>,
    pub(super) token: u64,
    pub(super) ids: Vec<NodeId>,
    /// The timed model's record (`timed.rs`): each timer armed, as (token, lo, hi), and each
    /// send's fixed latency, if it has one.
    pub(super) armed: Vec<(u64, Time, Time)>,
    pub(super) fixed: Vec<Option<Time>>,
}

impl Sink for Out {
    fn send(&mut self, to: NodeId, _kind: usize, fixed: Option<Time>, logged: u64) -> bool {
        match self.ids.iter().position(|&x| x == to) {
            Some(t) => {
                self.sends.push((t as u8, logged));
                self.fixed.push(fixed);
                true
            }
            None => false,
        }
    }
    fn set_timer(&mut self, _name: &'static str, lo: Time, hi: Time, _replaced: bool) -> u64 {
        self.token += 1;
        self.armed.push((self.token, lo, hi));
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

/// Moves run twice, at two clock readings, to tell whether the handlers read the clock.
pub(super) const PROBES: u32 = 512;

/// The exploration of one scenario.
pub struct Checker {
    /// The scenario a counterexample replays on (none for a protocol checked on its own).
    pub(super) scenario: Option<Scenario>,
    pub(super) m: Box<dyn Machine>,
    pub(super) cfg: Config,
    pub(super) n: usize,
    pub(super) property: &'static Property,
    /// A *sometimes* property: the goal is reaching a state where it holds (the path found is
    /// a witness), not avoiding one.
    pub(super) sometimes: bool,
    /// An *eventually* property: agreed states are goals (not expanded), and the state graph is
    /// kept for the fairness analysis (`fair.rs`).
    pub(super) eventually: bool,
    /// Per state: its moves as (successor, label), labels indexing `labels`.
    pub(super) edges: Vec<Vec<(u32, u32)>>,
    /// Per state: whether it is a goal (agreed).
    pub(super) goal: Vec<bool>,
    pub(super) labels: Vec<Move>,
    pub(super) label_ids: HashMap<Move, u32>,
    pub(super) bounds: Bounds,
    pub(super) fifo: bool,
    pub(super) schedule: Vec<Action>,
    pub(super) rules: Vec<&'static str>,
    /// Payload fingerprint by payload id; payload id by fingerprint.
    pub(super) phash: Vec<u64>,
    pub(super) pid: HashMap<u64, u32, BuildHasherDefault<Id>>,
    pub(super) seen: Seen,
    /// Per state: its parent and which of the parent's moves ([`Checker::moves`], in their
    /// listed order) reached it; the moves themselves are found again by replaying from `root`.
    pub(super) parents: Vec<(u32, u32)>,
    /// The initial world, as the frontier writes it.
    pub(super) root: Vec<u8>,
    /// The frontier, packed (`frontier.rs`), and the distinct node states its worlds hold.
    pub(super) queue: Frontier,
    pub(super) table: NodeTable,
    pub(super) coverage: HashMap<&'static str, u64>,
    pub(super) transitions: u64,
    pub(super) depth: u32,
    pub(super) cut: bool,
    pub(super) found: Option<(u32, Vec<NodeId>)>,
    pub(super) limit: bool,
    /// An *eventually* counterexample: its moves, and where its loop starts.
    pub(super) lasso: Option<(Vec<Move>, Option<usize>)>,
    /// Where the next handler's timer tokens start.
    pub(super) tokens: u64,
    /// The clock handlers see (0; another reading while probing whether they read it).
    pub(super) now: Time,
    /// Moves still to be run a second time at another clock reading.
    pub(super) probes: u32,
    /// A probe gave another world at another clock reading.
    pub(super) clock: bool,
    pub(super) timers: Vec<(u64, u64)>,
    /// A swarm task's successor order: each state's moves shuffled by this generator (none:
    /// the moves in their listed order).
    pub(super) order: Option<crate::rng::Pcg32>,
    /// Symmetry reduction (`symmetry.rs`): states are known by their orbit's least fingerprint.
    pub(super) sym: Option<Sym>,
    /// What the last handlers armed and sent, kept for the timed model (`timed.rs`).
    pub(super) armed: Vec<(u64, Time, Time)>,
    pub(super) fixed: Vec<Option<Time>>,
    /// The timed model's frontier and paths (`timed.rs`), once started.
    pub(super) timed: Option<Box<TimedRun>>,
}

/// A world's fingerprint from its parts: node fingerprints by position, the up set, the
/// partition labels, the messages in flight as (from, to, payload fingerprint) in canonical
/// order, the fault budget used, the schedule's progress and the terms' leaders.
pub(super) fn fingerprint_of(
    node_h: &[u64],
    up: u32,
    labels: &[u8],
    msgs: impl Iterator<Item = (u8, u8, u64)>,
    used: [u32; 4],
    sched: u16,
    terms: &[(u64, NodeId)],
) -> u64 {
    let mut h = Fnv64::default();
    node_h.hash(&mut h);
    up.hash(&mut h);
    labels.hash(&mut h);
    for m in msgs {
        m.hash(&mut h);
    }
    used.hash(&mut h);
    sched.hash(&mut h);
    terms.hash(&mut h);
    h.finish()
}

/// Partition labels renumbered in order of first appearance (none if all are one group).
pub(super) fn relabel(labels: &mut Vec<u8>) {
    if labels.is_empty() {
        return;
    }
    let mut map = [u8::MAX; 256];
    let mut next = 0u8;
    for l in labels.iter_mut() {
        if map[*l as usize] == u8::MAX {
            map[*l as usize] = next;
            next += 1;
        }
        *l = map[*l as usize];
    }
    if next <= 1 {
        labels.clear();
    }
}

/// Whether booting the nodes at two different clock readings gives different states: then
/// the handlers read the clock, and running them at 0 would check another algorithm. (A
/// protocol that reads it only later is caught by the replay, which then does not reproduce.)
fn reads_clock(m: &mut dyn Machine, cfg: &Config) -> bool {
    let boot = |m: &mut dyn Machine, now: Time| -> Vec<u64> {
        m.reset();
        let mut out = Out { ids: cfg.ids.clone(), ..Out::default() };
        (0..cfg.n())
            .map(|i| {
                m.boot(At { i, me: cfg.ids[i], now, cfg }, &mut out);
                let mut h = Fnv64::default();
                m.hash_node(i, &mut h);
                h.finish()
            })
            .collect()
    };
    let late = boot(m, 1 << 30);
    let early = boot(m, 0);
    m.reset();
    early != late
}

/// The property named `id` that the algorithm claims (or split brain, which every leader
/// election can be asked about).
pub(super) fn property_of(scenario: &Scenario, id: &str) -> Result<&'static Property, ScenarioError> {
    let alg = registry::find(&scenario.algorithm)
        .ok_or_else(|| ScenarioError::new("algorithm", format!("unknown algorithm '{}'", scenario.algorithm)))?;
    /// A property the checker itself decides (no monitor of the simulator's reports it).
    const fn reported(id: &'static str) -> Property {
        Property { id, monitor: Monitor::Reported, ..crate::meta::single_leader(crate::meta::Faults::Any) }
    }
    static AGREED: Property = reported(LEADER_AGREED);
    static EVENTUALLY: Property = reported(EVENTUALLY_AGREED);
    if id == LEADER_AGREED {
        return Ok(&AGREED);
    }
    if id == EVENTUALLY_AGREED {
        return Ok(&EVENTUALLY);
    }
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
    /// With `bounds.horizon`, the timed model (`timed.rs`), in which handlers may read the clock.
    pub fn new(scenario: &Scenario, property: &str, bounds: Bounds) -> Result<Checker, ScenarioError> {
        let property = property_of(scenario, property)?;
        if bounds.horizon.is_some() && property.id == EVENTUALLY_AGREED {
            return Err(ScenarioError::new("property", "an eventually property is not offered in the timed model"));
        }
        if bounds.max_drift > 0 && bounds.horizon.is_none() {
            return Err(ScenarioError::new("max_drift", "clock drift needs the timed model (a horizon)"));
        }
        if bounds.max_drift >= 1000 {
            return Err(ScenarioError::new("max_drift", "a clock drift must be below 1 (a clock that stops)"));
        }
        let alg = registry::find(&scenario.algorithm).expect("checked");
        if crate::protocols::RECORDED.iter().any(|a| a.id == alg.id) {
            return Err(ScenarioError::new("algorithm", "a recorded run replays a log: there is nothing to explore"));
        }
        if scenario.nodes.len() > MAX_NODES {
            return Err(ScenarioError::new("nodes", format!("the checker explores at most {MAX_NODES} nodes")));
        }
        if scenario.fencing.is_some() {
            return Err(ScenarioError::new("fencing", "the fenced store is not modelled by the exhaustive checker"));
        }
        let mut schedule = Vec::new();
        for (i, s) in schedule_order(scenario) {
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
        let (mut m, cfg) = Engine::with_algorithm(alg, scenario.clone())?.into_machine();
        if bounds.horizon.is_none() && reads_clock(&mut *m, &cfg) {
            return Err(ScenarioError::new(
                "algorithm",
                format!(
                    "{}: its nodes keep clock readings, which the asynchronous time model (the clock at 0) cannot give",
                    alg.id
                ),
            ));
        }
        let prefix = format!("{}.note.", alg.id.replace('-', "_"));
        let rules = crate::meta::Text::all().map(|t| t.key()).filter(|k| k.starts_with(&prefix)).collect();
        let (lo, hi) = scenario.network.latency;
        let mut c = Checker::with_machine(m, cfg, property, bounds);
        c.scenario = Some(scenario.clone());
        c.fifo = scenario.network.fifo || lo == hi;
        c.schedule = schedule;
        c.rules = rules;
        Ok(c)
    }

    /// A checker of protocol `proto` on its own (not registered, no scenario: a counterexample
    /// has moves but no trace), its nodes in `cfg`, on FIFO links.
    pub fn for_protocol<P: crate::protocol::Protocol>(
        proto: P,
        cfg: Config,
        property: &'static Property,
        bounds: Bounds,
    ) -> Checker {
        Checker::with_machine(Box::new(crate::machine::Core::new(proto)), cfg, property, bounds)
    }

    /// A checker of any protocol behind its [`Machine`] (its nodes not booted yet, or
    /// [`Machine::reset`]), its nodes in `cfg`, on FIFO links, without a scenario (a
    /// counterexample has moves but no trace). Panics on more than [`MAX_NODES`] nodes (the
    /// scenario path refuses them by name).
    pub fn with_machine(m: Box<dyn Machine>, cfg: Config, property: &'static Property, bounds: Bounds) -> Checker {
        assert!(cfg.n() <= MAX_NODES, "the checker explores at most {MAX_NODES} nodes");
        let mut m = m;
        m.reset();
        Checker {
            scenario: None,
            m,
            n: cfg.n(),
            cfg,
            property,
            sometimes: property.id == LEADER_AGREED || property.id == EVENTUALLY_AGREED,
            eventually: property.id == EVENTUALLY_AGREED,
            edges: Vec::new(),
            goal: Vec::new(),
            labels: Vec::new(),
            label_ids: HashMap::new(),
            bounds,
            fifo: true,
            schedule: Vec::new(),
            rules: Vec::new(),
            phash: Vec::new(),
            pid: HashMap::default(),
            seen: Seen::new(property.id == EVENTUALLY_AGREED),
            parents: Vec::new(),
            root: Vec::new(),
            queue: Frontier::default(),
            table: NodeTable::default(),
            coverage: HashMap::new(),
            transitions: 0,
            depth: 0,
            cut: false,
            found: None,
            limit: false,
            lasso: None,
            tokens: 0,
            now: 0,
            probes: PROBES,
            clock: false,
            timers: Vec::new(),
            order: None,
            sym: None,
            armed: Vec::new(),
            fixed: Vec::new(),
            timed: None,
        }
    }

    /// Explores each state's moves in an order shuffled by a generator seeded with `seed` on
    /// stream `task` (swarm task `task`, Holzmann, Joshi & Groce 2008): still breadth-first, so
    /// a violation found is a shortest one, but a state limit cuts the space elsewhere than in
    /// another task's order.
    pub fn swarm(&mut self, seed: u64, task: u64) {
        self.order = Some(crate::rng::Pcg32::new(seed, task));
    }

    /// Lets links deliver out of send order even on a FIFO network.
    pub fn unordered(&mut self) {
        self.fifo = false;
    }

    /// A sink for one handler, its timer tokens from a range no other handler's uses (a node's
    /// pending timers must have distinct tokens; a handler arms far fewer than 2²⁰).
    pub(super) fn out(&mut self) -> Out {
        self.tokens += 1 << 20;
        Out { ids: self.cfg.ids.clone(), token: self.tokens, ..Out::default() }
    }

    pub(super) fn node_hash(&self, i: usize) -> u64 {
        let mut h = Fnv64::default();
        self.m.hash_node(i, &mut h);
        h.finish()
    }

    /// Keeps one copy of each distinct payload sent from `mark` on; the sends' payload ids.
    pub(super) fn intern(&mut self, mark: u64, sends: &[(u8, u64)]) -> Vec<u32> {
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

    pub(super) fn fingerprint(&self, w: &World) -> u64 {
        let msgs = w.msgs.iter().map(|&(f, t, p)| (f, t, self.phash[p as usize]));
        fingerprint_of(&w.node_h, w.up, &w.labels, msgs, w.used, w.sched, &w.terms)
    }

    pub(super) fn canon(&self, w: &mut World) {
        if self.fifo {
            w.msgs.sort_by_key(|&(f, t, _)| (f, t)); // stable: each link keeps its order
        } else {
            w.msgs.sort_unstable_by_key(|&(f, t, p)| (f, t, self.phash[p as usize]));
        }
        relabel(&mut w.labels);
    }

    /// Records what a handler of node `i` did into the successor `w` (messages, coverage,
    /// the node's new fingerprint and view, the property) and returns the nodes of a
    /// violation, if one shows.
    pub(super) fn after_handler(&mut self, w: &mut World, i: usize, mark: u64, out: Out) -> Option<Vec<NodeId>> {
        self.armed.extend_from_slice(&out.armed);
        self.fixed.extend_from_slice(&out.fixed);
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
        if self.sometimes {
            // While booting (no state recorded yet) not every node exists: `initial` asks.
            return if self.parents.is_empty() { None } else { self.goal_of(w) };
        }
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
                    bad = Some(
                        (0..self.n).filter(|&j| w.leaders & w.up & (1 << j) != 0).map(|j| self.cfg.ids[j]).collect(),
                    );
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

    /// The agreed leader (as the observers' agreement: every live node names the same live
    /// leader), from the node states the machine holds.
    /// Whether `w` (whose node states the machine holds) is what a *sometimes* property looks
    /// for, or an *eventually* property's goal: agreement, and for *eventually* only once the
    /// scenario's own schedule has run (agreeing before its crash of the leader proves nothing).
    pub(super) fn goal_of(&self, w: &World) -> Option<Vec<NodeId>> {
        if self.eventually && (w.sched as usize) < self.schedule.len() {
            return None;
        }
        self.agreed(w.up)
    }

    pub(super) fn agreed(&self, up: u32) -> Option<Vec<NodeId>> {
        let mut leader = None;
        for i in (0..self.n).filter(|&i| up & (1 << i) != 0) {
            let l = self.m.view(i).leader?;
            if leader.is_some_and(|x| x != l) {
                return None;
            }
            leader = Some(l);
        }
        let l = leader?;
        let li = self.cfg.position(l)?;
        (up & (1 << li) != 0).then(|| vec![l])
    }

    pub(super) fn initial(&mut self) -> (World, Option<Vec<NodeId>>) {
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
            let at = At { i, me: self.cfg.ids[i], now: self.now, cfg: &self.cfg };
            self.m.boot(at, &mut out);
            if let Some(b) = self.after_handler(&mut w, i, mark, out) {
                bad.get_or_insert(b);
            }
        }
        if self.sometimes {
            bad = self.goal_of(&w);
        }
        self.canon(&mut w);
        (w, bad)
    }
}
