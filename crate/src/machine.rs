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
//! * Node states (and each node's pending timers, with their typed keys) live in a [`Stash`], a
//!   cloneable box the simulator keeps in its world, so checkpoints copy them with the rest.
//! * A handler's [`Effect`]s carry no protocol type: a sent payload waits in the core's outbox
//!   until the simulator numbers it ([`Machine::log_sent`]); a timer key waits in the core's
//!   timer list until the simulator has drawn its delay and token ([`Machine::arm`]).
//! * Payloads are kept per message id, so labels and deliveries can be looked up at any step.

use crate::meta::Kind;
use crate::protocol::{Config, Ctx, Effect, Message, Protocol, TimerKey, View};
use crate::{NodeId, Time};
use std::any::Any;
use std::collections::VecDeque;

/// Type-erased, cloneable storage (a protocol's node states, in the simulator's world).
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

/// What the simulator asks of a protocol. Every method that reads or changes node states takes
/// the world's [`Stash`], which must have come from [`Machine::new_stash`] of the same machine.
pub trait Machine {
    fn kinds(&self) -> &'static [Kind];
    /// An empty set of node states.
    fn new_stash(&self) -> Box<dyn Stash>;
    /// Boots node `at.i` (which must be the next one) with the protocol's `init`.
    fn boot(&mut self, st: &mut dyn Stash, at: At, out: &mut Vec<Effect>);
    fn start(&mut self, st: &mut dyn Stash, at: At, out: &mut Vec<Effect>);
    /// Delivers message `id` from `from`.
    fn deliver(&mut self, st: &mut dyn Stash, at: At, from: NodeId, id: u64, out: &mut Vec<Effect>);
    /// Fires the pending timer with `token` (removing it) and returns its name.
    fn fire(&mut self, st: &mut dyn Stash, at: At, token: u64, out: &mut Vec<Effect>) -> &'static str;
    fn recover(&mut self, st: &mut dyn Stash, at: At, out: &mut Vec<Effect>);
    /// Whether node `i` has a pending timer with `token` (others in the queue are stale).
    fn has_timer(&self, st: &dyn Stash, i: usize, token: u64) -> bool;
    /// Arms the timer of scratch slot `slot` under `token`; returns whether a pending timer with
    /// the same key was replaced, and the timer's name.
    fn arm(&mut self, st: &mut dyn Stash, i: usize, slot: u32, token: u64) -> (bool, &'static str);
    /// Cancels the pending timer of scratch slot `slot`'s key; its name if there was one.
    fn disarm(&mut self, st: &mut dyn Stash, i: usize, slot: u32) -> Option<&'static str>;
    /// Drops every pending timer of node `i` (a crash); how many there were.
    fn clear_timers(&mut self, st: &mut dyn Stash, i: usize) -> usize;
    /// The simulator numbered the next outbox payload `id`: keep it (unless a replay already did).
    fn log_sent(&mut self, id: u64);
    /// Forgets the payloads of messages `n..` (a fork).
    fn truncate(&mut self, n: u64);
    /// Forgets the payloads of messages `..n` (a summary-only run: they are delivered).
    fn release(&mut self, n: u64);
    /// The readable label of message `id`.
    fn label(&self, id: u64) -> String;
    /// The live tokens ([`Protocol::live_tokens`]); `up` per node, `flying` as (message id,
    /// from, to, doomed).
    fn live_tokens(&self, st: &dyn Stash, up: &[bool], flying: &[(u64, NodeId, NodeId, bool)]) -> Option<Vec<NodeId>>;
    fn view(&self, st: &dyn Stash, i: usize) -> View;
    /// Whether node `i`'s view equals `old` (the observers' cached view): the check made after
    /// every handler, compiled per protocol so that the view is compared as it is built.
    fn view_is(&self, st: &dyn Stash, i: usize, old: &View) -> bool;
    fn inspect(&self, st: &dyn Stash, i: usize) -> Vec<(crate::meta::Text, String)>;
    fn as_any(&self) -> &dyn Any;
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
    /// The payloads sent so far, by message id from `base` (0 unless released).
    payloads: VecDeque<P::Msg>,
    base: u64,
    /// Payloads of the handler that just ran, waiting to be numbered (`taken` were).
    outbox: Vec<P::Msg>,
    taken: usize,
    /// Timer keys of the handler that just ran.
    scratch: Vec<P::Timer>,
}

impl<P: Protocol> Core<P> {
    pub fn new(proto: P) -> Self {
        Core { proto, payloads: VecDeque::new(), base: 0, outbox: Vec::new(), taken: 0, scratch: Vec::new() }
    }

    pub fn payload(&self, id: u64) -> Option<&P::Msg> {
        self.payloads.get(id.checked_sub(self.base)? as usize)
    }

    /// The node states of a stash made by this core.
    pub fn slots(st: &dyn Stash) -> &Vec<Slot<P>> {
        st.as_any().downcast_ref().expect("a stash of this protocol")
    }

    fn slots_mut(st: &mut dyn Stash) -> &mut Vec<Slot<P>> {
        st.as_any_mut().downcast_mut().expect("a stash of this protocol")
    }

    /// Runs `f` with a typed context writing into `out`, the outbox and the timer list.
    fn handle<R>(&mut self, at: At, out: &mut Vec<Effect>, f: impl FnOnce(&P, &mut Ctx<P::Msg, P::Timer>) -> R) -> R {
        self.outbox.clear();
        self.taken = 0;
        self.scratch.clear();
        let mut ctx = Ctx::new(at.me, at.now, at.cfg, out, &mut self.outbox, &mut self.scratch);
        f(&self.proto, &mut ctx)
    }
}

impl<P: Protocol> Machine for Core<P> {
    fn kinds(&self) -> &'static [Kind] {
        P::KINDS
    }
    fn new_stash(&self) -> Box<dyn Stash> {
        Box::new(Vec::<Slot<P>>::new())
    }
    fn boot(&mut self, st: &mut dyn Stash, at: At, out: &mut Vec<Effect>) {
        let state = self.handle(at, out, |p, ctx| p.init(ctx));
        let slots = Self::slots_mut(st);
        debug_assert_eq!(slots.len(), at.i, "nodes boot in order");
        slots.push(Slot { state, timers: Vec::new() });
    }
    fn start(&mut self, st: &mut dyn Stash, at: At, out: &mut Vec<Effect>) {
        let s = &mut Self::slots_mut(st)[at.i].state;
        self.handle(at, out, |p, ctx| p.start(s, ctx));
    }
    fn deliver(&mut self, st: &mut dyn Stash, at: At, from: NodeId, id: u64, out: &mut Vec<Effect>) {
        let msg = self.payload(id).expect("a kept payload").clone();
        let s = &mut Self::slots_mut(st)[at.i].state;
        self.handle(at, out, |p, ctx| p.on_message(s, from, msg, ctx));
    }
    fn fire(&mut self, st: &mut dyn Stash, at: At, token: u64, out: &mut Vec<Effect>) -> &'static str {
        let slot = &mut Self::slots_mut(st)[at.i];
        let k = slot.timers.iter().position(|&(_, t)| t == token).expect("live timer");
        let (timer, _) = slot.timers.swap_remove(k);
        let s = &mut slot.state;
        self.handle(at, out, |p, ctx| p.on_timer(s, timer, ctx));
        timer.name()
    }
    fn recover(&mut self, st: &mut dyn Stash, at: At, out: &mut Vec<Effect>) {
        let slot = &mut Self::slots_mut(st)[at.i];
        let fresh = self.handle(at, out, |p, ctx| p.recover(&slot.state, ctx));
        slot.state = fresh;
    }
    fn has_timer(&self, st: &dyn Stash, i: usize, token: u64) -> bool {
        Self::slots(st)[i].timers.iter().any(|&(_, t)| t == token)
    }
    fn arm(&mut self, st: &mut dyn Stash, i: usize, slot: u32, token: u64) -> (bool, &'static str) {
        let timer = self.scratch[slot as usize];
        let timers = &mut Self::slots_mut(st)[i].timers;
        let replaced = match timers.iter().position(|&(t, _)| t == timer) {
            Some(k) => {
                timers.swap_remove(k);
                true
            }
            None => false,
        };
        timers.push((timer, token));
        (replaced, timer.name())
    }
    fn disarm(&mut self, st: &mut dyn Stash, i: usize, slot: u32) -> Option<&'static str> {
        let timer = self.scratch[slot as usize];
        let timers = &mut Self::slots_mut(st)[i].timers;
        let k = timers.iter().position(|&(t, _)| t == timer)?;
        timers.swap_remove(k);
        Some(timer.name())
    }
    fn clear_timers(&mut self, st: &mut dyn Stash, i: usize) -> usize {
        let timers = &mut Self::slots_mut(st)[i].timers;
        let n = timers.len();
        timers.clear();
        n
    }
    fn log_sent(&mut self, id: u64) {
        let k = self.taken;
        self.taken += 1;
        if id == self.base + self.payloads.len() as u64 {
            self.payloads.push_back(self.outbox[k].clone());
        }
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
    fn view(&self, st: &dyn Stash, i: usize) -> View {
        self.proto.view(&Self::slots(st)[i].state)
    }
    fn view_is(&self, st: &dyn Stash, i: usize, old: &View) -> bool {
        crate::observe::same_view(&self.proto.view(&Self::slots(st)[i].state), old)
    }
    fn live_tokens(&self, st: &dyn Stash, up: &[bool], flying: &[(u64, NodeId, NodeId, bool)]) -> Option<Vec<NodeId>> {
        let nodes: Vec<Option<&P::State>> =
            Self::slots(st).iter().zip(up).map(|(slot, &up)| up.then_some(&slot.state)).collect();
        let flying: Vec<(NodeId, NodeId, &P::Msg, bool)> = flying
            .iter()
            .filter_map(|&(id, from, to, doomed)| Some((from, to, self.payloads.get(id as usize)?, doomed)))
            .collect();
        self.proto.live_tokens(&nodes, &flying)
    }
    fn inspect(&self, st: &dyn Stash, i: usize) -> Vec<(crate::meta::Text, String)> {
        self.proto.inspect(&Self::slots(st)[i].state)
    }
    fn as_any(&self) -> &dyn Any {
        self
    }
}
