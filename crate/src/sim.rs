//! The deterministic simulator: one world, one event queue, one random generator.
//!
//! * **Time** is integer ticks. Events are totally ordered by (time, insertion order): the queue
//!   is a `BTreeMap` from tick to a FIFO of events, so equal-time events keep the order they were
//!   scheduled in. No hash map is iterated anywhere.
//! * **Randomness**: every latency, loss and timer value is drawn from one [`Pcg32`] seeded by
//!   the scenario, in the order effects are applied.
//! * **Protocols** are sans-IO: handlers push effects, which only [`Sim::apply_effects`]
//!   turns into messages and timers. The simulator is compiled once for every protocol: it sees
//!   a protocol through the type-erased [`Machine`] (see [`crate::machine`]).
//! * **Stepping**: [`Sim::step`] applies exactly one event (a delivery, a drop, a timer firing or
//!   a scheduled fault) and appends one [`Rec`] to the trace.
//! * **Time travel**: the trace (records, messages, timers, violations) is an append-only log
//!   up to the *head*; the world sits at a *cursor*. Seeking restores the nearest checkpoint and
//!   replays; since replay is deterministic, the logs are not rewritten (debug builds check that
//!   they come out the same). Acting at a past step forks: the future logs are cut off and the
//!   intervention is recorded with the step it was applied at.

use crate::error::ScenarioError;
use crate::machine::{At, Core, Machine, Stash};
use crate::meta::{Lang, Note, Property};
use crate::observe::{Election, Findings, Observers, Violation};
use crate::protocol::{Config, Effect, Protocol};
use crate::rng::Pcg32;
use crate::scenario::{Action, FencingSpec, NetworkSpec, Scenario, Scheduled, StopSpec};
use crate::trace::Intervention;
use crate::{NodeId, Time};
use std::collections::{BTreeMap, BTreeSet, VecDeque};

mod fencing;
mod typed;
pub use fencing::{Store, Verdict, WriteEntry};
pub use typed::Typed;

/// Why a message was not handed to its destination.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum DropReason {
    /// Lost by the network (the scenario's loss probability).
    Lost,
    /// The destination was crashed when the message arrived.
    Crashed,
    /// The link was cut (partition or one-way cut) when the message arrived.
    Partition,
    /// Dropped by an intervention.
    Manual,
}

impl DropReason {
    pub fn name(self) -> &'static str {
        match self {
            DropReason::Lost => "lost",
            DropReason::Crashed => "crashed",
            DropReason::Partition => "partition",
            DropReason::Manual => "manual",
        }
    }
    pub fn name_in(self, lang: Lang) -> &'static str {
        match (lang, self) {
            (Lang::En, _) => self.name(),
            (Lang::Zh, DropReason::Lost) => "网络丢失",
            (Lang::Zh, DropReason::Crashed) => "接收方已崩溃",
            (Lang::Zh, DropReason::Partition) => "链路被切断",
            (Lang::Zh, DropReason::Manual) => "手动丢弃",
        }
    }
}

/// What a step did.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum EventKind {
    Deliver,
    Drop(DropReason),
    /// A timer fired (its name).
    Timer(&'static str),
    /// A scheduled action from the scenario ran.
    Fault,
    /// Leaders wrote to the fenced store (the writes are `Rec::writes`); `node` is the first
    /// writer, or 0 when nobody believed it led.
    Write,
    /// A write reached the fenced store, which accepted or rejected it (`aux` = write id).
    Store {
        accepted: bool,
    },
}

/// The record of one step. Messages sent during the step are `msgs.0 .. msgs.1` (ids are
/// consecutive), timer changes are `timers.0 .. timers.1` in the timer log.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Rec {
    /// 1-based step number.
    pub step: u64,
    pub time: Time,
    pub kind: EventKind,
    /// The node the event happened at (destination, timer owner, fault target).
    pub node: NodeId,
    /// The sender, for deliveries and drops.
    pub peer: NodeId,
    /// Message id (deliveries and drops) or schedule index (faults).
    pub aux: u64,
    pub msgs: (u64, u64),
    pub timers: (u64, u64),
    /// Narration notes the handlers attached to this step, in the note log.
    pub notes: (u64, u64),
    /// Writes to the fenced store issued during the step, in the write log.
    pub writes: (u64, u64),
}

/// One message ever sent. Immutable once logged. (Its payload is kept by the protocol's
/// [`Machine`]; [`Sim::label`] reads it.)
#[derive(Clone, Copy, Debug)]
pub struct MsgEntry {
    pub from: NodeId,
    pub to: NodeId,
    pub sent: Time,
    pub deliver: Time,
    /// Number of steps applied when it was sent.
    pub sent_step: u64,
    /// The network will lose it (decided when it was sent).
    pub lost: bool,
    /// Index of its kind in the protocol's kinds.
    pub kind: usize,
}

/// A timer being set (`at` = when it fires) or cancelled (`at` = None).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TimerRec {
    pub node: NodeId,
    pub name: &'static str,
    pub at: Option<Time>,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Ev {
    Deliver(u64),
    Timer {
        node: u32,
        token: u64,
    },
    Fault(u32),
    /// Leaders write to the fenced store: the periodic round (`u32::MAX`) or scripted write k.
    Issue(u32),
    /// Write k reaches the fenced store.
    Arrive(u64),
}

/// The periodic write round's [`Ev::Issue`] index.
const PERIODIC: u32 = u32::MAX;

/// Everything that changes as the run advances; cloned for checkpoints.
#[derive(Clone)]
struct World {
    now: Time,
    steps: u64,
    up: Vec<bool>,
    /// The protocol's node states with their pending timers (see [`Machine`]).
    states: Box<dyn Stash>,
    queue: BTreeMap<Time, VecDeque<Ev>>,
    next_token: u64,
    active_timers: u64,
    pending_faults: u64,
    rng: Pcg32,
    /// Partition labels per node: nodes with different labels cannot talk.
    labels: Option<Vec<u32>>,
    cuts: BTreeSet<(NodeId, NodeId)>,
    fifo_last: BTreeMap<(u32, u32), Time>,
    manual_drops: BTreeSet<u64>,
    obs: Observers,
    hash: u64,
    // How much of each log this world has produced (the logs may run further, up to the head).
    n_msgs: u64,
    n_timers: u64,
    n_notes: u64,
    n_violations: u64,
    n_elections: u64,
    applied_ivs: usize,
    store: Store,
    /// Sequencer tokens per node (0: never handed one).
    tokens: Vec<u64>,
    /// Write rounds scheduled and writes in flight.
    pending_writes: u64,
    n_writes: u64,
    n_verdicts: u64,
}

/// Smallest number of steps between checkpoints.
const CHECKPOINT_MIN: u64 = 256;

/// How much history one run may keep: about 250 bytes a step, so the default budget stays near
/// a gigabyte, natively and in a browser tab. A run that would record more stops there with
/// [`Sim::halted`] saying why, instead of growing until the allocator aborts.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Budget {
    pub steps: u64,
    pub messages: u64,
}

impl Default for Budget {
    fn default() -> Self {
        Budget { steps: 4_000_000, messages: 6_000_000 }
    }
}

/// A run of one protocol.
pub struct Sim {
    machine: Box<dyn Machine>,
    pub cfg: Config,
    net: NetworkSpec,
    stop: StopSpec,
    schedule: Vec<Scheduled>,
    index: Vec<(NodeId, u32)>,
    /// `dense[id]` = the node's position, or `u32::MAX`; empty when ids are too sparse for a
    /// table (then `index` is searched). Every message looks its ends up, so this is hot.
    dense: Vec<u32>,
    w: World,
    msgs: Vec<MsgEntry>,
    recs: Vec<Rec>,
    timer_log: Vec<TimerRec>,
    notes: Vec<Note>,
    violations: Vec<Violation>,
    elections: Vec<Election>,
    ivs: Vec<Intervention>,
    checkpoints: Vec<World>,
    effects: Vec<Effect>,
    fencing: Option<FencingSpec>,
    writes: Vec<WriteEntry>,
    verdicts: Vec<Verdict>,
    findings: Findings,
    budget: Budget,
}

fn mix(h: u64, w: u64) -> u64 {
    (h.rotate_left(5) ^ w).wrapping_mul(0x517c_c1b7_2722_0a95)
}

fn hash_str(mut h: u64, s: &str) -> u64 {
    for chunk in s.as_bytes().chunks(8) {
        let mut b = [0u8; 8];
        b[..chunk.len()].copy_from_slice(chunk);
        h = mix(h, u64::from_le_bytes(b));
    }
    mix(h, s.len() as u64)
}

/// Mixes an intervention into the trace hash: what it is and the ids it names, never its
/// display text (rewording a label must not change a golden hash).
fn hash_action(mut h: u64, a: &Action) -> u64 {
    let (what, x, y) = match a {
        Action::Crash(n) => (1, *n as u64, 0),
        Action::Recover(n) => (2, *n as u64, 0),
        Action::Start(n) => (3, *n as u64, 0),
        Action::Drop(m) => (4, *m, 0),
        Action::Partition { groups, .. } => (5, groups.len() as u64, 0),
        Action::Cut { from, to } => (6, *from as u64, *to as u64),
        Action::Isolate(n) => (7, *n as u64, 0),
        Action::Heal => (8, 0, 0),
    };
    h = mix(mix(mix(h, what), x), y);
    if let Action::Partition { groups, .. } = a {
        for g in groups {
            h = mix(h, g.len() as u64);
            for &x in g {
                h = mix(h, x as u64);
            }
        }
    }
    h
}

impl Sim {
    /// A run of `proto` on the scenario's nodes, network, schedule and stop limits. `claimed`
    /// lists the safety properties the protocol claims: only their violations are logged.
    pub fn new<P: Protocol>(proto: P, cfg: Config, scenario: &Scenario, claimed: &[Property]) -> Self {
        Sim::with_machine(Box::new(Core::new(proto)), cfg, scenario, claimed)
    }

    /// [`Sim::new`] for a protocol already behind its [`Machine`] (the only non-generic entry,
    /// so the simulator's code exists once whatever the number of protocols).
    pub fn with_machine(machine: Box<dyn Machine>, cfg: Config, scenario: &Scenario, claimed: &[Property]) -> Self {
        let mut index: Vec<(NodeId, u32)> = cfg.ids.iter().enumerate().map(|(i, &id)| (id, i as u32)).collect();
        index.sort_unstable();
        let max_id = index.last().map_or(0, |&(id, _)| id as usize);
        let mut dense = Vec::new();
        if max_id <= 4 * index.len() + 1024 {
            dense = vec![u32::MAX; max_id + 1];
            for &(id, i) in &index {
                dense[id as usize] = i;
            }
        }
        let n = cfg.n();
        let w = World {
            now: 0,
            steps: 0,
            up: vec![true; n],
            states: machine.new_stash(),
            queue: BTreeMap::new(),
            next_token: 0,
            active_timers: 0,
            pending_faults: 0,
            rng: Pcg32::for_seed(scenario.seed),
            labels: None,
            cuts: BTreeSet::new(),
            fifo_last: BTreeMap::new(),
            manual_drops: BTreeSet::new(),
            obs: Observers::new(&cfg.ids, machine.kinds().len(), claimed),
            hash: 0xcbf2_9ce4_8422_2325,
            n_msgs: 0,
            n_timers: 0,
            n_notes: 0,
            n_violations: 0,
            n_elections: 0,
            applied_ivs: 0,
            store: Store::default(),
            tokens: vec![0; n],
            pending_writes: 0,
            n_writes: 0,
            n_verdicts: 0,
        };
        let mut sim = Sim {
            machine,
            cfg,
            net: scenario.network.clone(),
            stop: scenario.stop.clone(),
            schedule: scenario.schedule.clone(),
            index,
            dense,
            w,
            msgs: Vec::new(),
            recs: Vec::new(),
            timer_log: Vec::new(),
            notes: Vec::new(),
            violations: Vec::new(),
            elections: Vec::new(),
            ivs: Vec::new(),
            checkpoints: Vec::new(),
            effects: Vec::new(),
            fencing: scenario.fencing.clone(),
            writes: Vec::new(),
            verdicts: Vec::new(),
            findings: Findings::default(),
            budget: Budget::default(),
        };
        // Scheduled faults go in first, so a fault at tick t precedes other events of tick t.
        for (i, s) in sim.schedule.iter().enumerate() {
            sim.w.queue.entry(s.at).or_default().push_back(Ev::Fault(i as u32));
            sim.w.pending_faults += 1;
        }
        if let Some(f) = &sim.fencing {
            let mut issues: Vec<(Time, u32)> = f.writes.iter().enumerate().map(|(k, w)| (w.at, k as u32)).collect();
            if f.write_every > 0 {
                issues.push((f.write_every, PERIODIC));
            }
            issues.sort_by_key(|&(at, _)| at); // stable: scripted writes keep their order
            for (at, k) in issues {
                sim.w.queue.entry(at).or_default().push_back(Ev::Issue(k));
                sim.w.pending_writes += 1;
            }
        }
        // Boot every node in scenario order.
        for i in 0..n {
            sim.run_handler(i, Handler::Boot);
        }
        for i in 0..n {
            sim.observe(i);
        }
        sim.w.obs.settle_initial();
        sim.checkpoints.push(sim.w.clone());
        sim
    }

    // ----- lookups -----

    #[inline]
    pub fn idx(&self, id: NodeId) -> Option<usize> {
        if !self.dense.is_empty() {
            return match self.dense.get(id as usize) {
                Some(&i) if i != u32::MAX => Some(i as usize),
                _ => None,
            };
        }
        self.index.binary_search_by_key(&id, |&(x, _)| x).ok().map(|k| self.index[k].1 as usize)
    }

    fn link_ok(&self, from: usize, to: usize) -> bool {
        if let Some(labels) = &self.w.labels {
            if labels[from] != labels[to] {
                return false;
            }
        }
        self.w.cuts.is_empty() || !self.w.cuts.contains(&(self.cfg.ids[from], self.cfg.ids[to]))
    }

    // ----- the event loop -----

    /// Applies exactly one event. Returns false when there is none left (or a stop limit is hit).
    pub fn step(&mut self) -> bool {
        self.step_within(self.stop.max_time)
    }

    /// Applies one event if there is one at or before tick `limit`.
    fn step_within(&mut self, limit: Time) -> bool {
        self.flush_interventions();
        if self.w.steps >= self.stop.max_steps || self.over_budget() {
            return false;
        }
        let limit = limit.min(self.stop.max_time);
        loop {
            let Some(mut entry) = self.w.queue.first_entry() else {
                return false;
            };
            let time = *entry.key();
            if time > limit {
                return false;
            }
            let ev = entry.get_mut().pop_front().expect("non-empty bucket");
            if entry.get().is_empty() {
                entry.remove();
            }
            if let Ev::Timer { node, token } = ev {
                if !self.machine.has_timer(&*self.w.states, node as usize, token) {
                    continue; // replaced or cancelled: not an event
                }
            }
            self.w.now = time;
            self.apply_event(ev);
            return true;
        }
    }

    fn apply_event(&mut self, ev: Ev) {
        self.w.steps += 1;
        let step = self.w.steps;
        let msgs_start = self.w.n_msgs;
        let timers_start = self.w.n_timers;
        let notes_start = self.w.n_notes;
        let writes_start = self.w.n_writes;
        let (kind, node, peer, aux) = match ev {
            Ev::Deliver(id) => {
                self.w.obs.in_flight -= 1;
                let (from, to, lost) = {
                    let m = &self.msgs[id as usize];
                    (m.from, m.to, m.lost)
                };
                let fi = self.idx(from).expect("sender");
                let ti = self.idx(to).expect("destination");
                let reason = if !self.w.manual_drops.is_empty() && self.w.manual_drops.remove(&id) {
                    Some(DropReason::Manual)
                } else if lost {
                    Some(DropReason::Lost)
                } else if !self.w.up[ti] {
                    Some(DropReason::Crashed)
                } else if !self.link_ok(fi, ti) {
                    Some(DropReason::Partition)
                } else {
                    None
                };
                match reason {
                    Some(r) => {
                        self.w.obs.dropped += 1;
                        (EventKind::Drop(r), to, from, id)
                    }
                    None => {
                        self.w.obs.delivered += 1;
                        self.w.obs.received_by_node[ti] += 1;
                        self.run_handler(ti, Handler::Deliver { from, id });
                        (EventKind::Deliver, to, from, id)
                    }
                }
            }
            Ev::Timer { node, token } => {
                let i = node as usize;
                self.w.active_timers -= 1;
                let name = self.run_handler(i, Handler::Timer { token });
                let id = self.cfg.ids[i];
                (EventKind::Timer(name), id, id, 0)
            }
            Ev::Fault(k) => {
                self.w.pending_faults -= 1;
                let action = self.schedule[k as usize].action.clone();
                self.apply_action(&action);
                (EventKind::Fault, action.node().unwrap_or(0), 0, k as u64)
            }
            Ev::Issue(k) => {
                self.w.pending_writes -= 1;
                let first = self.issue_writes(k);
                (EventKind::Write, first, 0, k as u64)
            }
            Ev::Arrive(id) => {
                self.w.pending_writes -= 1;
                let w = self.writes[id as usize];
                let st = &mut self.w.store;
                let accepted = w.token >= st.max_token;
                if accepted {
                    st.max_token = w.token;
                    st.value = Some(w.value);
                    st.accepted += 1;
                } else {
                    st.rejected += 1;
                }
                if self.w.n_verdicts as usize == self.verdicts.len() {
                    self.verdicts.push(Verdict { write: id, accepted, time: self.w.now });
                }
                self.w.n_verdicts += 1;
                (EventKind::Store { accepted }, w.node, 0, id)
            }
        };
        let rec = Rec {
            step,
            time: self.w.now,
            kind,
            node,
            peer,
            aux,
            msgs: (msgs_start, self.w.n_msgs),
            timers: (timers_start, self.w.n_timers),
            notes: (notes_start, self.w.n_notes),
            writes: (writes_start, self.w.n_writes),
        };
        let mut h = self.w.hash;
        h = mix(h, step);
        h = mix(h, rec.time);
        h = mix(
            h,
            match kind {
                EventKind::Deliver => 1,
                EventKind::Drop(r) => 2 + r as u64,
                EventKind::Timer(_) => 10,
                EventKind::Fault => 11,
                EventKind::Write => 12,
                EventKind::Store { accepted } => 13 + accepted as u64,
            },
        );
        if let EventKind::Timer(name) = kind {
            h = hash_str(h, name);
        }
        h = mix(h, ((node as u64) << 32) | peer as u64);
        self.w.hash = mix(h, aux);
        if (step as usize) > self.recs.len() {
            self.recs.push(rec);
        } else {
            debug_assert_eq!(self.recs[step as usize - 1], rec, "replay diverged at step {step}");
        }
        self.maybe_checkpoint();
    }

    /// Runs one handler of node `i`, applies its effects and observes the node (booting nodes
    /// are observed together once all have booted). A timer handler returns the timer's name.
    fn run_handler(&mut self, i: usize, h: Handler) -> &'static str {
        let mut effects = std::mem::take(&mut self.effects);
        let at = At { i, me: self.cfg.ids[i], now: self.w.now, cfg: &self.cfg };
        let st = &mut *self.w.states;
        let m = &mut self.machine;
        let mut name = "";
        match h {
            Handler::Boot => m.boot(st, at, &mut effects),
            Handler::Start => m.start(st, at, &mut effects),
            Handler::Recover => m.recover(st, at, &mut effects),
            Handler::Deliver { from, id } => m.deliver(st, at, from, id, &mut effects),
            Handler::Timer { token } => name = m.fire(st, at, token, &mut effects),
        }
        self.apply_effects(i, &mut effects);
        self.effects = effects;
        if !matches!(h, Handler::Boot) {
            self.observe(i);
        }
        name
    }

    /// The only place effects become messages and timers.
    fn apply_effects(&mut self, i: usize, effects: &mut Vec<Effect>) {
        let from = self.cfg.ids[i];
        for effect in effects.drain(..) {
            match effect {
                Effect::Send { to, kind } => {
                    let id = self.w.n_msgs;
                    let Some(ti) = self.idx(to) else {
                        debug_assert!(false, "N{from} sent to unknown node {to}");
                        self.machine.log_sent(u64::MAX); // consumed, never numbered
                        continue;
                    };
                    self.machine.log_sent(id);
                    let (lo, hi) = self.net.latency;
                    let latency = self.w.rng.range_inclusive(lo, hi);
                    let lost = self.w.rng.chance(self.net.loss);
                    let mut deliver = self.w.now + latency;
                    if self.net.fifo && lo != hi {
                        let last = self.w.fifo_last.entry((i as u32, ti as u32)).or_insert(0);
                        deliver = deliver.max(*last);
                        *last = deliver;
                    }
                    self.w.n_msgs += 1;
                    if id as usize == self.msgs.len() {
                        self.msgs.push(MsgEntry {
                            from,
                            to,
                            sent: self.w.now,
                            deliver,
                            sent_step: self.w.steps,
                            lost,
                            kind,
                        });
                    }
                    self.w.queue.entry(deliver).or_default().push_back(Ev::Deliver(id));
                    self.w.obs.in_flight += 1;
                    self.w.obs.sent_by_kind[kind] += 1;
                    self.w.obs.sent_by_node[i] += 1;
                    let mut h = mix(self.w.hash, id);
                    h = mix(h, ((to as u64) << 16) | kind as u64);
                    self.w.hash = mix(h, (deliver << 1) | lost as u64);
                }
                Effect::SetTimer { slot, lo, hi } => {
                    let delay = self.w.rng.range_inclusive(lo, hi);
                    let at = self.w.now + delay;
                    let token = self.w.next_token;
                    self.w.next_token += 1;
                    let (replaced, name) = self.machine.arm(&mut *self.w.states, i, slot, token);
                    if !replaced {
                        self.w.active_timers += 1;
                    }
                    self.w.queue.entry(at).or_default().push_back(Ev::Timer { node: i as u32, token });
                    self.log_timer(TimerRec { node: from, name, at: Some(at) });
                    self.w.hash = mix(hash_str(self.w.hash, name), at);
                }
                Effect::Note(note) => {
                    if self.w.n_notes as usize == self.notes.len() {
                        self.notes.push(note);
                    }
                    self.w.n_notes += 1;
                }
                Effect::Report { property, nodes } => {
                    self.w.obs.report(property, nodes, self.w.now, self.w.steps, &mut self.findings);
                }
                Effect::CancelTimer { slot } => {
                    if let Some(name) = self.machine.disarm(&mut *self.w.states, i, slot) {
                        self.w.active_timers -= 1;
                        self.log_timer(TimerRec { node: from, name, at: None });
                        self.w.hash = mix(hash_str(self.w.hash, name), u64::MAX);
                    }
                }
            }
        }
    }

    fn log_timer(&mut self, rec: TimerRec) {
        if self.w.n_timers as usize == self.timer_log.len() {
            self.timer_log.push(rec);
        }
        self.w.n_timers += 1;
    }

    /// Re-reads node `i`'s view and logs what the observers found.
    fn observe(&mut self, i: usize) {
        let view = if self.w.up[i] { Some(self.machine.view(&*self.w.states, i)) } else { None };
        if self.fencing.is_some() {
            let was = self.w.obs.views[i].as_ref().is_some_and(|v| v.is_leader());
            if let Some(v) = &view {
                if v.is_leader() && !was && v.term.is_none() {
                    // A new leader without a term of its own asks the store's sequencer.
                    self.w.store.sequencer += 1;
                    self.w.tokens[i] = self.w.store.sequencer;
                    self.w.hash = mix(self.w.hash, self.w.store.sequencer);
                }
            }
        }
        let findings = &mut self.findings;
        self.w.obs.update(i, view, self.w.now, self.w.steps, findings);
        for v in findings.violations.drain(..) {
            if self.w.n_violations as usize == self.violations.len() {
                self.violations.push(v);
            }
            self.w.n_violations += 1;
        }
        if let Some(e) = findings.election.take() {
            if self.w.n_elections as usize == self.elections.len() {
                self.elections.push(e);
            }
            self.w.n_elections += 1;
        }
    }

    fn apply_action(&mut self, action: &Action) {
        self.w.hash = hash_action(self.w.hash, action);
        let n = self.cfg.n();
        match *action {
            Action::Crash(id) => {
                let Some(i) = self.idx(id) else { return };
                if self.w.up[i] {
                    self.w.up[i] = false;
                    self.w.active_timers -= self.machine.clear_timers(&mut *self.w.states, i) as u64;
                    self.observe(i);
                }
            }
            Action::Recover(id) => {
                let Some(i) = self.idx(id) else { return };
                if !self.w.up[i] {
                    self.w.up[i] = true;
                    self.run_handler(i, Handler::Recover);
                }
            }
            Action::Start(id) => {
                let Some(i) = self.idx(id) else { return };
                if self.w.up[i] {
                    self.run_handler(i, Handler::Start);
                }
            }
            Action::Drop(m) => {
                if self.in_flight_contains(m) {
                    self.w.manual_drops.insert(m);
                }
            }
            Action::Partition { ref groups, .. } => {
                let mut labels = vec![0u32; n];
                for (g, members) in groups.iter().enumerate() {
                    for &id in members {
                        if let Some(i) = self.idx(id) {
                            labels[i] = g as u32 + 1;
                        }
                    }
                }
                self.w.labels = Some(labels);
            }
            Action::Cut { from, to } => {
                self.w.cuts.insert((from, to));
            }
            Action::Isolate(id) => {
                let Some(i) = self.idx(id) else { return };
                let mut labels = self.w.labels.take().unwrap_or_else(|| vec![0; n]);
                let fresh = labels.iter().copied().max().unwrap_or(0) + 1;
                labels[i] = fresh;
                self.w.labels = Some(labels);
            }
            Action::Heal => {
                self.w.labels = None;
                self.w.cuts.clear();
            }
        }
    }

    /// At the head and out of history budget: the run stops here.
    #[inline]
    fn over_budget(&self) -> bool {
        self.w.steps >= self.budget.steps || self.w.n_msgs >= self.budget.messages
    }

    /// Why the run stopped before its scenario's limits, if it did.
    pub fn halted(&self) -> Option<String> {
        if !self.over_budget() {
            return None;
        }
        let (steps, msgs) = (self.w.steps, self.w.n_msgs);
        Some(format!(
            "stopped after {steps} steps and {msgs} messages: keeping more history would outgrow memory (budget {} steps / {} messages); lower stop.max_time or stop.max_steps",
            self.budget.steps, self.budget.messages
        ))
    }

    /// Sets the history budget (tests use a small one).
    pub fn set_budget(&mut self, budget: Budget) {
        self.budget = budget;
    }

    fn in_flight_contains(&self, m: u64) -> bool {
        if m >= self.w.n_msgs || self.w.manual_drops.contains(&m) {
            return false;
        }
        let at = self.msgs[m as usize].deliver;
        self.w.queue.get(&at).is_some_and(|b| b.contains(&Ev::Deliver(m)))
    }

    #[inline]
    fn flush_interventions(&mut self) {
        if self.w.applied_ivs < self.ivs.len() {
            self.flush_interventions_now();
        }
    }

    fn flush_interventions_now(&mut self) {
        while self.w.applied_ivs < self.ivs.len() && self.ivs[self.w.applied_ivs].step == self.w.steps {
            let Intervention { time, ref action, .. } = self.ivs[self.w.applied_ivs];
            let action = action.clone();
            self.w.applied_ivs += 1;
            // An intervention anchored later than the last event moves the clock on to its time
            // (nothing was pending in between; `apply_at` checked that).
            if time > self.w.now {
                self.w.now = time;
                self.w.hash = mix(self.w.hash, time);
            }
            self.apply_action(&action);
        }
    }

    fn maybe_checkpoint(&mut self) {
        let last = self.checkpoints.last().map_or(0, |c| c.steps);
        let size = self.w.obs.in_flight + self.w.active_timers + self.cfg.n() as u64;
        if self.w.steps >= last + CHECKPOINT_MIN.max(size) {
            self.checkpoints.push(self.w.clone());
        }
    }

    // ----- public control -----

    /// Applies an intervention now, at the cursor. If the cursor is in the past, the old future
    /// is discarded first (a fork).
    pub fn apply(&mut self, action: Action) -> Result<(), ScenarioError> {
        self.apply_at(action, None)
    }

    /// Applies an intervention at the cursor, at virtual time `time` (default: the time of the
    /// last event). A later time is allowed only up to the next pending event: the clock moves
    /// on to it, so that an intervention anchored by time lands at that time.
    pub fn apply_at(&mut self, action: Action, time: Option<Time>) -> Result<(), ScenarioError> {
        action.validate(&self.cfg.ids, "intervention")?;
        if let Action::Drop(m) = action {
            if !self.in_flight_contains(m) {
                return Err(ScenarioError::new("intervention.drop", format!("message #{m} is not in flight")));
            }
        }
        self.flush_interventions();
        let now = self.w.now;
        let time = time.unwrap_or(now);
        if time < now {
            return Err(ScenarioError::new(
                "intervention.time",
                format!("t={time} is before the current time t={now}"),
            ));
        }
        if time > now {
            if let Some(next) = self.next_event_time() {
                if time > next {
                    return Err(ScenarioError::new(
                        "intervention.time",
                        format!("t={time} is after the next event (t={next}); run up to it first"),
                    ));
                }
            }
        }
        self.truncate_future();
        self.ivs.push(Intervention { step: self.w.steps, time, action });
        self.flush_interventions();
        Ok(())
    }

    fn truncate_future(&mut self) {
        let w = &self.w;
        self.msgs.truncate(w.n_msgs as usize);
        self.machine.truncate(w.n_msgs);
        self.recs.truncate(w.steps as usize);
        self.timer_log.truncate(w.n_timers as usize);
        self.notes.truncate(w.n_notes as usize);
        self.violations.truncate(w.n_violations as usize);
        self.elections.truncate(w.n_elections as usize);
        self.writes.truncate(w.n_writes as usize);
        self.verdicts.truncate(w.n_verdicts as usize);
        self.ivs.truncate(w.applied_ivs);
        let steps = w.steps;
        self.checkpoints.retain(|c| c.steps <= steps);
    }

    /// Moves the cursor to `target` steps (back or forward), replaying from a checkpoint.
    pub fn seek(&mut self, target: u64) {
        if target != self.w.steps {
            let forward_gap = target.saturating_sub(self.w.steps);
            if target < self.w.steps || forward_gap > CHECKPOINT_MIN {
                let k = self.checkpoints.partition_point(|c| c.steps <= target);
                let cp = &self.checkpoints[k.max(1) - 1];
                if target < self.w.steps || cp.steps > self.w.steps {
                    self.w = cp.clone();
                }
            }
            while self.w.steps < target && self.step() {}
        }
        self.flush_interventions();
    }

    /// Steps until nothing is left, a stop limit is hit, or `max` steps were applied.
    pub fn run(&mut self, max: u64) -> u64 {
        let mut done = 0;
        while done < max && self.step() {
            done += 1;
        }
        self.flush_interventions();
        done
    }

    /// Runs until virtual time would pass `t`.
    pub fn run_until(&mut self, t: Time) {
        while self.step_within(t) {}
        self.flush_interventions();
    }

    // ----- reading -----

    pub fn cursor(&self) -> u64 {
        self.w.steps
    }
    /// The furthest step computed.
    pub fn head(&self) -> u64 {
        self.recs.len() as u64
    }
    pub fn now(&self) -> Time {
        self.w.now
    }
    /// No message in flight, no timer pending, no scheduled fault left.
    pub fn quiescent(&self) -> bool {
        self.w.obs.in_flight == 0
            && self.w.active_timers == 0
            && self.w.pending_faults == 0
            && self.w.pending_writes == 0
    }
    /// The fenced store at the cursor, if the scenario asked for fencing.
    pub fn hash(&self) -> u64 {
        self.w.hash
    }
    pub fn observers(&self) -> &Observers {
        &self.w.obs
    }
    pub fn is_up(&self, i: usize) -> bool {
        self.w.up[i]
    }
    /// The protocol behind this run.
    pub fn machine(&self) -> &dyn Machine {
        &*self.machine
    }
    /// Node `i`'s view as its protocol sees it now.
    pub fn view(&self, i: usize) -> crate::protocol::View {
        self.machine.view(&*self.w.states, i)
    }
    pub fn inspect_node(&self, i: usize) -> Vec<(crate::meta::Text, String)> {
        self.machine.inspect(&*self.w.states, i)
    }
    pub fn labels(&self) -> Option<&[u32]> {
        self.w.labels.as_deref()
    }
    pub fn cuts(&self) -> impl Iterator<Item = (NodeId, NodeId)> + '_ {
        self.w.cuts.iter().copied()
    }
    /// Records of steps 1..=head.
    pub fn records(&self) -> &[Rec] {
        &self.recs
    }
    pub fn message(&self, id: u64) -> Option<&MsgEntry> {
        self.msgs.get(id as usize)
    }
    /// Message `id`'s readable label, e.g. `ELECTION(12)`.
    pub fn label(&self, id: u64) -> String {
        self.machine.label(id)
    }
    /// The narration notes of step `step`'s handlers.
    pub fn notes_of(&self, rec: &Rec) -> &[Note] {
        self.notes.get(rec.notes.0 as usize..rec.notes.1 as usize).unwrap_or(&[])
    }
    pub fn timer_log(&self) -> &[TimerRec] {
        &self.timer_log
    }
    /// Violations seen up to the cursor.
    pub fn violations(&self) -> &[Violation] {
        &self.violations[..self.w.n_violations as usize]
    }
    /// Violations seen up to the head.
    pub fn all_violations(&self) -> &[Violation] {
        &self.violations
    }
    pub fn elections(&self) -> &[Election] {
        &self.elections[..self.w.n_elections as usize]
    }
    /// Elections up to the head.
    pub fn all_elections(&self) -> &[Election] {
        &self.elections
    }
    /// Tick of the next event (dropping replaced timers from the front of the queue).
    pub fn next_event_time(&mut self) -> Option<Time> {
        loop {
            let mut entry = self.w.queue.first_entry()?;
            let time = *entry.key();
            let stale = match entry.get().front() {
                Some(&Ev::Timer { node, token }) => !self.machine.has_timer(&*self.w.states, node as usize, token),
                _ => false,
            };
            if !stale {
                return Some(time);
            }
            entry.get_mut().pop_front();
            if entry.get().is_empty() {
                entry.remove();
            }
        }
    }
    pub fn interventions(&self) -> &[Intervention] {
        &self.ivs
    }
    pub fn schedule(&self) -> &[Scheduled] {
        &self.schedule
    }
    pub fn stop(&self) -> &StopSpec {
        &self.stop
    }
    /// Messages in flight at the cursor, in delivery order.
    pub fn in_flight(&self) -> impl Iterator<Item = (u64, &MsgEntry)> + '_ {
        self.w.queue.values().flat_map(|b| b.iter()).filter_map(move |ev| match *ev {
            Ev::Deliver(id) => Some((id, &self.msgs[id as usize])),
            _ => None,
        })
    }
    /// Whether message `id` is doomed by a manual drop.
    pub fn is_manually_dropped(&self, id: u64) -> bool {
        self.w.manual_drops.contains(&id)
    }
    pub fn checkpoint_count(&self) -> usize {
        self.checkpoints.len()
    }
}

/// The handler a step runs.
#[derive(Clone, Copy)]
enum Handler {
    Boot,
    Start,
    Recover,
    Deliver { from: NodeId, id: u64 },
    Timer { token: u64 },
}
