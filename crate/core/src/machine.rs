//! A protocol with its types erased, so that one simulator serves every algorithm.
//!
//! The simulator ([`crate::sim::Sim`]) is not generic: the event queue, the network, faults,
//! checkpoints, observers and logs are compiled once. What is specific to a protocol — its node
//! states, its message payloads, its timer keys and its handlers — sits behind the object-safe
//! [`Machine`], implemented once for every protocol by [`Core<P>`]. This keeps the browser build
//! small (one copy of the simulator instead of one per algorithm) at the price of one indirect
//! call per handler.
//!
//! The contract between the two halves:
//! * Node states (and each node's pending timers, with their typed keys) live in the core, typed,
//!   so that no handler downcasts them; the simulator's checkpoints keep a [`Stash`] of them
//!   ([`Machine::snapshot`], [`Machine::restore`]).
//! * A handler's effects are applied as it makes them: its typed context ([`Ctx`]) keeps a sent
//!   payload, arms or cancels a typed timer key, and hands the rest (numbering, latency, queue,
//!   logs, hash) to the simulator's non-generic [`Sink`].
//! * Payloads are kept per message id, so labels and deliveries can be looked up at any step.

use crate::meta::Kind;
use crate::protocol::{Config, Ctx, Message, Protocol, Sink, TimerKey, View};
use crate::NodeId;
use crate::Time;
use std::any::Any;
use std::collections::VecDeque;
#[cfg(feature = "check")]
use std::hash::{Hash, Hasher};

pub use crate::fnv::{fnv, Fnv64};

/// Type-erased, cloneable storage (a snapshot of a protocol's node states, in a checkpoint).
pub trait Stash: Any {
    fn clone_box(&self) -> Box<dyn Stash>;
    fn as_any(&self) -> &dyn Any;
    fn as_any_mut(&mut self) -> &mut dyn Any;
}

impl<T: Any + Clone> Stash for T {
    fn clone_box(&self) -> Box<dyn Stash> {
        Box::new(self.clone())
    }
    fn as_any(&self) -> &dyn Any {
        self
    }
    fn as_any_mut(&mut self) -> &mut dyn Any {
        self
    }
}

impl Clone for Box<dyn Stash> {
    fn clone(&self) -> Self {
        (**self).clone_box()
    }
}

/// Where and when a handler runs.
#[derive(Clone, Copy)]
pub struct At<'a> {
    pub i: usize,
    pub me: NodeId,
    pub now: Time,
    pub cfg: &'a Config,
}

/// What the simulator asks of a protocol, whose node states it keeps.
pub trait Machine {
    fn kinds(&self) -> &'static [Kind];
    /// The names of the protocol's timers.
    fn timer_names(&self) -> &'static [&'static str];
    /// The view fields the protocol's views carry ([`Protocol::VIEW_FIELDS`]).
    fn view_fields(&self) -> &'static [&'static str];
    /// A copy of every node's state and pending timers (for a checkpoint).
    fn snapshot(&self) -> Box<dyn Stash>;
    /// Puts back the node states of a [`Machine::snapshot`] of this machine.
    fn restore(&mut self, st: &dyn Stash);
    /// Boots node `at.i` (which must be the next one) with the protocol's `init`. Every handler
    /// hands its effects to `port` as it makes them.
    fn boot(&mut self, at: At, port: &mut dyn Sink);
    fn start(&mut self, at: At, port: &mut dyn Sink);
    /// Delivers message `id` from `from`.
    fn deliver(&mut self, at: At, port: &mut dyn Sink, from: NodeId, id: u64);
    /// Fires the pending timer with `token` (removing it) and returns its name.
    fn fire(&mut self, at: At, port: &mut dyn Sink, token: u64) -> &'static str;
    fn recover(&mut self, at: At, port: &mut dyn Sink);
    /// Whether node `i` has a pending timer with `token` (others in the queue are stale).
    fn has_timer(&self, i: usize, token: u64) -> bool;
    /// Drops every pending timer of node `i` (a crash); how many there were.
    fn clear_timers(&mut self, i: usize) -> usize;
    /// Forgets the payloads of messages `n..` (a fork).
    fn truncate(&mut self, n: u64);
    /// Forgets the payloads of messages `..n` (a summary-only run: they are delivered).
    fn release(&mut self, n: u64);
    /// The readable label of message `id`.
    fn label(&self, id: u64) -> String;
    /// The live tokens ([`Protocol::live_tokens`]); `up` per node, `flying` as (message id,
    /// from, to, doomed).
    fn live_tokens(&self, up: &[bool], flying: &[(u64, NodeId, NodeId, bool)]) -> Option<Vec<NodeId>>;
    fn view(&self, i: usize) -> View;
    /// Whether node `i`'s view equals `old` (the observers' cached view, `plain` if
    /// [`crate::observe::is_plain`]): the check made after every handler, compiled per protocol
    /// so that the view is compared as it is built.
    fn view_is(&self, i: usize, old: &View, plain: bool) -> bool;
    fn inspect(&self, i: usize) -> Vec<crate::field::Field>;
    /// [`Protocol::fault`].
    fn fault(&self) -> Option<String>;
    /// [`Protocol::clear_fault`].
    fn clear_fault(&self);
    fn as_any(&self) -> &dyn Any;

    // ----- for the exhaustive checker (`crate::check`) and its replays -----

    /// Feeds node `i`'s state and the keys of its pending timers to `h`: the timers as a set
    /// (not their order, not their queue tokens), so that two nodes that will act alike hash
    /// alike. With a value-stable `h` ([`Fnv64`]) the result is the same in every run.
    #[cfg(feature = "check")]
    fn hash_node(&self, i: usize, h: &mut dyn Hasher);
    /// Feeds message `id`'s payload to `h` (nothing if it is not kept).
    #[cfg(feature = "check")]
    fn hash_payload(&self, id: u64, h: &mut dyn Hasher);
    /// Node `i`'s pending timers as (queue token, [`fnv`] of the key), appended to `out`.
    fn timers(&self, i: usize, out: &mut Vec<(u64, u64)>);
    /// The key of node `i`'s pending timer `token` as the trace names it (its `Debug` text:
    /// `Deadline`, `Silent(3)`).
    fn timer_key(&self, i: usize, token: u64) -> Option<String>;
    /// The next message id: how many payloads were numbered so far.
    #[cfg(feature = "check")]
    fn payloads_end(&self) -> u64;
    /// Of the payloads from id `from` on, keeps only those whose entry of `keep` is true (in
    /// order; those past the end of `keep` are kept too): the checker keeps one copy of each
    /// distinct payload.
    #[cfg(feature = "check")]
    fn retain_payloads(&mut self, from: u64, keep: &[bool]);
    /// Forgets every node and payload, so that the nodes can boot again.
    #[cfg(feature = "check")]
    fn reset(&mut self);
    /// Node `i`'s state and pending timers, out of a [`Machine::snapshot`].
    #[cfg(feature = "check")]
    fn node_stash(&self, st: &dyn Stash, i: usize) -> Box<dyn Stash>;
    /// A [`Machine::snapshot`] made of one [`Machine::node_stash`] per node, in order.
    #[cfg(feature = "check")]
    fn join_stash(&self, nodes: &[&dyn Stash]) -> Box<dyn Stash>;
    /// [`Protocol::symmetry`].
    #[cfg(feature = "check")]
    fn symmetry(&self, cfg: &Config) -> Option<Vec<u64>>;
    /// [`Machine::hash_node`] of node `i` of the snapshot `st`, every id in it renamed by `to`.
    #[cfg(feature = "check")]
    fn hash_renamed_node(&self, st: &dyn Stash, i: usize, to: &dyn Fn(NodeId) -> NodeId, h: &mut dyn Hasher);
    /// [`Machine::hash_payload`] of message `id`, every id in it renamed by `to`.
    #[cfg(feature = "check")]
    fn hash_renamed_payload(&self, id: u64, to: &dyn Fn(NodeId) -> NodeId, h: &mut dyn Hasher);
}

/// One node's state with its pending timers (key, queue token).
#[derive(Debug)]
pub struct Slot<P: Protocol> {
    pub state: P::State,
    timers: Vec<(P::Timer, u64)>,
}

impl<P: Protocol> Clone for Slot<P> {
    fn clone(&self) -> Self {
        Slot { state: self.state.clone(), timers: self.timers.clone() }
    }
}

/// The [`Machine`] of protocol `P`.
pub struct Core<P: Protocol> {
    pub proto: P,
    /// Every node's state and pending timers, in scenario order.
    slots: Vec<Slot<P>>,
    /// The payloads sent so far, by message id from `base` (0 unless released).
    payloads: VecDeque<P::Msg>,
    base: u64,
}

impl<P: Protocol> Core<P> {
    pub fn new(proto: P) -> Self {
        Core { proto, slots: Vec::new(), payloads: VecDeque::new(), base: 0 }
    }

    pub fn payload(&self, id: u64) -> Option<&P::Msg> {
        self.payloads.get(id.checked_sub(self.base)? as usize)
    }

    /// Node `i`'s state.
    pub fn state(&self, i: usize) -> &P::State {
        &self.slots[i].state
    }
}

impl<P: Protocol> Machine for Core<P> {
    fn kinds(&self) -> &'static [Kind] {
        self.proto.kinds()
    }
    fn timer_names(&self) -> &'static [&'static str] {
        self.proto.timer_names()
    }
    fn view_fields(&self) -> &'static [&'static str] {
        P::VIEW_FIELDS
    }
    fn snapshot(&self) -> Box<dyn Stash> {
        Box::new(self.slots.clone())
    }
    fn restore(&mut self, st: &dyn Stash) {
        let slots: &Vec<Slot<P>> = st.as_any().downcast_ref().expect("a snapshot of this protocol");
        self.slots.clone_from(slots);
    }
    fn boot(&mut self, at: At, port: &mut dyn Sink) {
        debug_assert_eq!(self.slots.len(), at.i, "nodes boot in order");
        let mut timers = Vec::new();
        let mut ctx = Ctx::live(at.me, at.now, at.cfg, port, &mut timers, &mut self.payloads, self.base);
        let state = self.proto.init(&mut ctx);
        self.slots.push(Slot { state, timers });
    }
    fn start(&mut self, at: At, port: &mut dyn Sink) {
        let Slot { state, timers } = &mut self.slots[at.i];
        self.proto.start(state, &mut Ctx::live(at.me, at.now, at.cfg, port, timers, &mut self.payloads, self.base));
    }
    fn deliver(&mut self, at: At, port: &mut dyn Sink, from: NodeId, id: u64) {
        let msg = self.payload(id).expect("a message in flight keeps its payload").clone();
        let Slot { state, timers } = &mut self.slots[at.i];
        let mut ctx = Ctx::live(at.me, at.now, at.cfg, port, timers, &mut self.payloads, self.base);
        self.proto.on_message(state, from, msg, &mut ctx);
    }
    fn fire(&mut self, at: At, port: &mut dyn Sink, token: u64) -> &'static str {
        let Slot { state, timers } = &mut self.slots[at.i];
        let k = timers.iter().position(|&(_, t)| t == token).expect("live timer");
        let (timer, _) = timers.swap_remove(k);
        let mut ctx = Ctx::live(at.me, at.now, at.cfg, port, timers, &mut self.payloads, self.base);
        self.proto.on_timer(state, timer, &mut ctx);
        timer.name()
    }
    fn recover(&mut self, at: At, port: &mut dyn Sink) {
        let Slot { state, timers } = &mut self.slots[at.i];
        let mut ctx = Ctx::live(at.me, at.now, at.cfg, port, timers, &mut self.payloads, self.base);
        *state = self.proto.recover(state, &mut ctx);
    }
    fn has_timer(&self, i: usize, token: u64) -> bool {
        self.slots[i].timers.iter().any(|&(_, t)| t == token)
    }
    fn clear_timers(&mut self, i: usize) -> usize {
        let timers = &mut self.slots[i].timers;
        let n = timers.len();
        timers.clear();
        n
    }
    fn truncate(&mut self, n: u64) {
        self.payloads.truncate(n.saturating_sub(self.base) as usize);
    }
    fn release(&mut self, n: u64) {
        while self.base < n && self.payloads.pop_front().is_some() {
            self.base += 1;
        }
    }
    fn label(&self, id: u64) -> String {
        self.payload(id).map(Message::label).unwrap_or_default()
    }
    fn view(&self, i: usize) -> View {
        self.proto.view(&self.slots[i].state)
    }
    fn view_is(&self, i: usize, old: &View, plain: bool) -> bool {
        crate::observe::same_view_as(&self.proto.view(&self.slots[i].state), old, plain)
    }
    fn live_tokens(&self, up: &[bool], flying: &[(u64, NodeId, NodeId, bool)]) -> Option<Vec<NodeId>> {
        let nodes: Vec<Option<&P::State>> =
            self.slots.iter().zip(up).map(|(slot, &up)| up.then_some(&slot.state)).collect();
        let flying: Vec<(NodeId, NodeId, &P::Msg, bool)> =
            flying.iter().filter_map(|&(id, from, to, doomed)| Some((from, to, self.payload(id)?, doomed))).collect();
        self.proto.live_tokens(&nodes, &flying)
    }
    fn inspect(&self, i: usize) -> Vec<crate::field::Field> {
        self.proto.inspect(&self.slots[i].state)
    }
    fn fault(&self) -> Option<String> {
        self.proto.fault()
    }
    fn clear_fault(&self) {
        self.proto.clear_fault()
    }
    fn as_any(&self) -> &dyn Any {
        self
    }
    #[cfg(feature = "check")]
    fn hash_node(&self, i: usize, mut h: &mut dyn Hasher) {
        let slot = &self.slots[i];
        slot.state.hash(&mut h);
        let mut keys: Vec<u64> = slot.timers.iter().map(|(t, _)| fnv(t)).collect();
        keys.sort_unstable();
        keys.hash(&mut h);
    }
    #[cfg(feature = "check")]
    fn hash_payload(&self, id: u64, mut h: &mut dyn Hasher) {
        if let Some(m) = self.payload(id) {
            m.hash(&mut h);
        }
    }
    fn timers(&self, i: usize, out: &mut Vec<(u64, u64)>) {
        out.extend(self.slots[i].timers.iter().map(|&(t, token)| (token, fnv(&t))));
    }
    fn timer_key(&self, i: usize, token: u64) -> Option<String> {
        let slot = self.slots.get(i)?;
        slot.timers.iter().find(|&&(_, t)| t == token).map(|(k, _)| format!("{k:?}"))
    }
    #[cfg(feature = "check")]
    fn payloads_end(&self) -> u64 {
        self.base + self.payloads.len() as u64
    }
    #[cfg(feature = "check")]
    fn retain_payloads(&mut self, from: u64, keep: &[bool]) {
        let start = from.saturating_sub(self.base) as usize;
        let mut at = 0usize;
        self.payloads.retain(|_| {
            at += 1;
            at <= start || keep.get(at - 1 - start).copied().unwrap_or(true)
        });
    }
    #[cfg(feature = "check")]
    fn reset(&mut self) {
        self.slots.clear();
        self.payloads.clear();
        self.base = 0;
    }
    #[cfg(feature = "check")]
    fn node_stash(&self, st: &dyn Stash, i: usize) -> Box<dyn Stash> {
        let slots: &Vec<Slot<P>> = st.as_any().downcast_ref().expect("a snapshot of this protocol");
        Box::new(slots[i].clone())
    }
    #[cfg(feature = "check")]
    fn join_stash(&self, nodes: &[&dyn Stash]) -> Box<dyn Stash> {
        let slots: Vec<Slot<P>> = nodes
            .iter()
            .map(|n| (**n).as_any().downcast_ref::<Slot<P>>().expect("a node of this protocol").clone())
            .collect();
        Box::new(slots)
    }
    #[cfg(feature = "check")]
    fn symmetry(&self, cfg: &Config) -> Option<Vec<u64>> {
        self.proto.symmetry(cfg)
    }
    #[cfg(feature = "check")]
    fn hash_renamed_node(&self, st: &dyn Stash, i: usize, to: &dyn Fn(NodeId) -> NodeId, mut h: &mut dyn Hasher) {
        let slots: &Vec<Slot<P>> = st.as_any().downcast_ref().expect("a snapshot of this protocol");
        let slot = &slots[i];
        let mut state = slot.state.clone();
        self.proto.rename_state(&mut state, to);
        state.hash(&mut h);
        let mut keys: Vec<u64> = slot.timers.iter().map(|&(t, _)| fnv(&self.proto.rename_timer(t, to))).collect();
        keys.sort_unstable();
        keys.hash(&mut h);
    }
    #[cfg(feature = "check")]
    fn hash_renamed_payload(&self, id: u64, to: &dyn Fn(NodeId) -> NodeId, mut h: &mut dyn Hasher) {
        if let Some(m) = self.payload(id) {
            let mut m = m.clone();
            self.proto.rename_msg(&mut m, to);
            m.hash(&mut h);
        }
    }
}
