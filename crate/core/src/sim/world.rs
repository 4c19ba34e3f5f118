//! The world and its network: the state that changes as the run advances (cloned for
//! checkpoints), the event queue, delivery and drops, scheduled faults, and running a handler
//! (whose effects become messages and timers through its port, `port.rs`).

use super::*;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Ev {
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
pub(super) const PERIODIC: u32 = u32::MAX;

/// An [`Ev`] packed into 8 bytes for the queue (and so for every checkpoint): the variant in the
/// top 3 bits; a timer's node in the next 16 and its token in the low 45.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) struct Q(u64);

const TAG: u32 = 61;
const TOKEN_BITS: u32 = 45;

impl Ev {
    #[inline]
    pub(super) fn pack(self) -> Q {
        let (tag, body) = match self {
            Ev::Deliver(id) => (0, id),
            Ev::Timer { node, token } => {
                debug_assert!(node < 1 << 16 && token < 1 << TOKEN_BITS, "timer {node}/{token} fits");
                (1, (node as u64) << TOKEN_BITS | token)
            }
            Ev::Fault(k) => (2, k as u64),
            Ev::Issue(k) => (3, k as u64),
            Ev::Arrive(id) => (4, id),
        };
        debug_assert!(body < 1 << TAG);
        Q(tag << TAG | body)
    }
}

impl Q {
    #[inline]
    pub(super) fn ev(self) -> Ev {
        let body = self.0 & ((1 << TAG) - 1);
        match self.0 >> TAG {
            0 => Ev::Deliver(body),
            1 => Ev::Timer { node: (body >> TOKEN_BITS) as u32, token: body & ((1 << TOKEN_BITS) - 1) },
            2 => Ev::Fault(body as u32),
            3 => Ev::Issue(body as u32),
            _ => Ev::Arrive(body),
        }
    }
}

/// Everything that changes as the run advances, but the node states (which the protocol's
/// [`Machine`] keeps); cloned for checkpoints.
#[derive(Clone)]
pub(super) struct World {
    pub(super) now: Time,
    pub(super) steps: u64,
    pub(super) up: Vec<bool>,
    pub(super) queue: Queue,
    pub(super) next_token: u64,
    pub(super) active_timers: u64,
    pub(super) pending_faults: u64,
    pub(super) rng: Pcg32,
    /// Partition labels per node: nodes with different labels cannot talk.
    pub(super) labels: Option<Vec<u32>>,
    pub(super) cuts: BTreeSet<(NodeId, NodeId)>,
    pub(super) fifo_last: BTreeMap<(u32, u32), Time>,
    pub(super) manual_drops: BTreeSet<u64>,
    pub(super) obs: Observers,
    pub(super) hash: u64,
    /// How much of each log this world has produced (the logs may run further, up to the head).
    pub(super) at: Marks,
    pub(super) store: Store,
    /// Sequencer tokens per node (0: never handed one).
    pub(super) tokens: Vec<u64>,
    /// Write rounds scheduled and writes in flight.
    pub(super) pending_writes: u64,
}

pub(super) fn mix(h: u64, w: u64) -> u64 {
    (h.rotate_left(5) ^ w).wrapping_mul(0x517c_c1b7_2722_0a95)
}

pub(super) fn hash_str(mut h: u64, s: &str) -> u64 {
    for chunk in s.as_bytes().chunks(8) {
        let mut b = [0u8; 8];
        b[..chunk.len()].copy_from_slice(chunk);
        h = mix(h, u64::from_le_bytes(b));
    }
    mix(h, s.len() as u64)
}

/// Mixes an intervention into the trace hash: what it is and the ids it names, never its
/// display text (rewording or translating a label must not change a golden hash).
pub(super) fn hash_action(mut h: u64, a: &Action) -> u64 {
    let (what, x, y) = match a {
        Action::Crash(n) => (1, *n as u64, 0),
        Action::Recover(n) => (2, *n as u64, 0),
        Action::Start(n) => (3, *n as u64, 0),
        Action::Drop(m) => (4, *m, 0),
        Action::Partition { groups, .. } => (5, groups.len() as u64, 0),
        Action::Cut { from, to } => (6, *from as u64, *to as u64),
        Action::Isolate(n) => (7, *n as u64, 0),
        Action::Heal => (8, 0, 0),
        Action::Defer(m) => (9, *m, 0),
        Action::Deliver(m) => (10, *m, 0),
        Action::Fire { node, .. } => (11, *node as u64, 0),
    };
    h = mix(mix(mix(h, what), x), y);
    if let Action::Fire { timer, .. } = a {
        h = hash_str(h, timer);
    }
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
    // ----- lookups -----

    #[inline]
    pub fn idx(&self, id: NodeId) -> Option<usize> {
        self.ids.get(id)
    }

    #[inline(always)]
    pub(super) fn link_ok(&self, from: usize, to: usize) -> bool {
        if self.cfg.links.is_some() && !self.cfg.linked(from, self.cfg.ids[to]) {
            return false; // no such link in the scenario's graph
        }
        if let Some(labels) = &self.w.labels {
            if labels[from] != labels[to] {
                return false;
            }
        }
        self.w.cuts.is_empty() || self.cut_ok(from, to)
    }

    #[inline(never)]
    fn cut_ok(&self, from: usize, to: usize) -> bool {
        !self.w.cuts.contains(&(self.cfg.ids[from], self.cfg.ids[to]))
    }

    /// Applies one event if there is one at or before tick `limit`.
    pub(super) fn step_within(&mut self, limit: Time) -> bool {
        self.flush_interventions();
        if self.w.steps >= self.stop.max_steps || self.over_budget() || self.faulted() {
            return false;
        }
        // A forced delivery or timer anchored here is this step.
        if self.w.at.ivs < self.h.ivs.len() && self.flush_interventions_now(true) {
            return true;
        }
        let limit = limit.min(self.stop.max_time);
        loop {
            let Some((time, q)) = self.w.queue.pop_until(limit) else {
                return false;
            };
            let ev = q.ev();
            if let Ev::Timer { node, token } = ev {
                if !self.machine.has_timer(node as usize, token) {
                    continue; // replaced or cancelled: not an event
                }
            }
            if self.h.lean && time > self.w.now {
                self.release_before(time);
            }
            self.w.now = time;
            self.apply_event(ev);
            return true;
        }
    }

    /// Whether the protocol's code failed at or before this step (then the run goes no further).
    fn faulted(&mut self) -> bool {
        if self.fault_at.is_none() && self.machine.fault().is_some() {
            self.fault_at = Some(self.w.steps);
        }
        self.fault_at.is_some_and(|at| self.w.steps >= at)
    }

    pub(super) fn apply_event(&mut self, ev: Ev) {
        self.w.steps += 1;
        let step = self.w.steps;
        let msgs_start = self.w.at.msgs;
        let timers_start = self.w.at.timers;
        let notes_start = self.w.at.notes;
        let writes_start = self.w.at.writes;
        let (kind, node, peer, aux) = match ev {
            Ev::Deliver(id) => {
                self.w.obs.in_flight -= 1;
                let (from, to, lost) = {
                    let m = self.h.msg(id).expect("in flight, so kept");
                    (m.from, m.to, m.lost)
                };
                let fi = self.idx(from).expect("sender");
                let ti = self.idx(to).expect("destination");
                let manual = !self.w.manual_drops.is_empty() && self.w.manual_drops.remove(&id);
                let reason = self.fate(manual, lost, fi, ti);
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
                let w = self.h.writes[id as usize];
                let st = &mut self.w.store;
                let accepted = w.token >= st.max_token;
                if accepted {
                    st.max_token = w.token;
                    st.value = Some(w.value);
                    st.accepted += 1;
                } else {
                    st.rejected += 1;
                }
                let verdict = Verdict { write: id, accepted, time: self.w.now };
                Marks::append(&mut self.h.verdicts, &mut self.w.at.verdicts, || verdict);
                (EventKind::Store { accepted }, w.node, 0, id)
            }
        };
        if self.w.obs.token_id.is_some() {
            self.watch_tokens();
        }
        let time = self.w.now;
        let mut h = self.w.hash;
        h = mix(h, step);
        h = mix(h, time);
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
        let starts = [msgs_start, timers_start, notes_start];
        if self.h.lean {
            // Summary-only: no record kept.
        } else if (step as usize) > self.h.recs.len() {
            // The record is logged compactly, straight from its parts (where its entries end is
            // where the next step's begin).
            self.h.push_rec(time, kind, node, peer, aux, starts);
        } else if cfg!(debug_assertions) {
            let rec = Rec {
                step,
                time,
                kind,
                node,
                peer,
                aux,
                msgs: (msgs_start, self.w.at.msgs),
                timers: (timers_start, self.w.at.timers),
                notes: (notes_start, self.w.at.notes),
                writes: (writes_start, self.w.at.writes),
            };
            assert_eq!(self.h.rec(step), Some(rec), "replay diverged at step {step}");
        }
        self.maybe_checkpoint();
    }

    /// Runs one handler of node `i` (its effects applied as it makes them, through its port, `port.rs`)
    /// and observes the node (booting nodes are observed together once all have booted). A
    /// timer handler returns the timer's name.
    pub(super) fn run_handler(&mut self, i: usize, h: Handler) -> &'static str {
        let (at, mut port, m) = self.port(i);
        let mut name = "";
        match h {
            Handler::Boot => m.boot(at, &mut port),
            Handler::Start => m.start(at, &mut port),
            Handler::Recover => m.recover(at, &mut port),
            Handler::Deliver { from, id } => m.deliver(at, &mut port, from, id),
            Handler::Timer { token } => name = m.fire(at, &mut port, token),
        }
        if !matches!(h, Handler::Boot) {
            self.observe(i);
        }
        name
    }

    pub(super) fn apply_action(&mut self, action: &Action) {
        self.w.hash = hash_action(self.w.hash, action);
        let n = self.cfg.n();
        match *action {
            Action::Crash(id) => {
                let Some(i) = self.idx(id) else { return };
                if self.w.up[i] {
                    self.w.up[i] = false;
                    self.w.active_timers -= self.machine.clear_timers(i) as u64;
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
            Action::Deliver(m) => {
                // Taken out of its tick's place in the queue and run now, as this step.
                if self.in_flight_contains(m) {
                    let Some(at) = self.h.msg(m).map(|e| e.deliver) else { return };
                    if self.w.queue.remove(at, Ev::Deliver(m).pack()) {
                        self.apply_event(Ev::Deliver(m));
                    }
                }
            }
            Action::Fire { node, ref timer } => {
                let Some(i) = self.idx(node) else { return };
                if !self.w.up[i] {
                    return;
                }
                let mut pending = Vec::new();
                self.machine.timers(i, &mut pending);
                let token =
                    pending.iter().map(|&(t, _)| t).find(|&t| self.machine.timer_key(i, t).as_deref() == Some(timer));
                if let Some(token) = token {
                    // Its queue entry goes stale (the timer is no longer pending), as a replaced
                    // timer's does.
                    self.apply_event(Ev::Timer { node: i as u32, token });
                }
            }
            Action::Defer(m) => {
                if self.in_flight_contains(m) {
                    let Some(at) = self.h.msg(m).map(|e| e.deliver) else { return };
                    if let Some(bucket) = self.w.queue.at_mut(at) {
                        if let Some(k) = bucket.iter().position(|e| e.ev() == Ev::Deliver(m)) {
                            bucket.remove(k);
                            bucket.push_back(Ev::Deliver(m).pack());
                        }
                    }
                }
            }
        }
    }

    /// Why a message from node `fi` to node `ti` is not delivered now, if it is not: dropped by
    /// hand, lost by the network, the receiver down, or the link cut — checked in this order, the
    /// same for the delivery step and for [`Sim::doom`]'s forecast.
    #[inline(always)]
    pub(super) fn fate(&self, manual: bool, lost: bool, fi: usize, ti: usize) -> Option<DropReason> {
        if manual {
            Some(DropReason::Manual)
        } else if lost {
            Some(DropReason::Lost)
        } else if !self.w.up[ti] {
            Some(DropReason::Crashed)
        } else if !self.link_ok(fi, ti) {
            Some(DropReason::Partition)
        } else {
            None
        }
    }

    pub(super) fn in_flight_contains(&self, m: u64) -> bool {
        if m >= self.w.at.msgs || self.w.manual_drops.contains(&m) {
            return false;
        }
        let Some(at) = self.h.msg(m).map(|e| e.deliver) else { return false };
        self.w.queue.at(at).is_some_and(|b| b.contains(&Ev::Deliver(m).pack()))
    }
}

/// The handler a step runs.
#[derive(Clone, Copy)]
pub(super) enum Handler {
    Boot,
    Start,
    Recover,
    Deliver { from: NodeId, id: u64 },
    Timer { token: u64 },
}
