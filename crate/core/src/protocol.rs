//! The protocol interface: sans-IO state machines driven by the simulator.
//!
//! A protocol never sends, sleeps or draws randomness itself. Each handler gets the node's state
//! and a [`Ctx`] (who am I, what time is it, who is in the cluster) and *returns effects* by
//! pushing them into the context: send a message, set a timer with a tick range, cancel a timer.
//! Only the simulator applies effects, so every run can be replayed, drawn and checked.

use crate::error::ScenarioError;
use crate::meta::{k, Kind, Note};
use crate::{NodeId, Time};
use serde_json::{Map, Value};
use std::collections::VecDeque;
use std::fmt;

/// The largest time, delay or count a scenario may give, in ticks (31 years of milliseconds):
/// small sums and multiples of such values, and of the time they are added to, never overflow.
/// The scenario's heartbeats and stop time and every algorithm parameter are refused above it.
pub const MAX_TICKS: u64 = 1_000_000_000_000;

/// A protocol's own part of the scenario: the `params` object.
pub type Params = Map<String, Value>;

mod params;
mod view;
pub use params::{pair, ParamReader};
pub use view::{Decoration, DecorationKind, Decorations, View, MAX_DECORATIONS};

/// A message's kind: its index in [`Protocol::KINDS`]. Implemented by the `kinds!` macro of
/// `crate::protocols`, which declares the kinds and this index together.
pub trait MessageKind {
    /// The kinds this message type has, in the order `kind()` indexes them (none when they are
    /// known only at run time, as a script's are).
    const KINDS: &'static [Kind] = &[];
    fn kind(&self) -> usize;
}

/// What every protocol message tells the simulator and the UI about itself.
/// `Hash` lets the exhaustive checker ([`crate::check`]) fingerprint messages in flight by value;
/// it must hash equal payloads equally (derive it).
pub trait Message: Clone + fmt::Debug + MessageKind + std::hash::Hash {
    /// A short readable label, e.g. `ELECTION(12)` or `REQUEST_VOTE(t3)`.
    fn label(&self) -> String;
}

/// A protocol's timer: a small key. Setting a timer replaces the pending one with the same key.
pub trait TimerKey: Copy + Eq + fmt::Debug + std::hash::Hash {
    /// Every name [`TimerKey::name`] gives, in the protocol's order (what breakpoints accept).
    const NAMES: &'static [&'static str];
    fn name(&self) -> &'static str;
}

/// Failure-detector settings shared by the protocols that use heartbeats.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Heartbeats {
    pub interval: Time,
    pub timeout: Time,
}

/// Fixed facts of a run that every handler may read.
#[derive(Clone, Debug)]
pub struct Config {
    /// Node ids in scenario order (ring order for ring algorithms).
    pub ids: Vec<NodeId>,
    /// The same ids, ascending.
    pub sorted: Vec<NodeId>,
    pub initial_leader: Option<NodeId>,
    pub heartbeats: Option<Heartbeats>,
    /// Message latency range `[min, max]` in ticks.
    pub latency: (Time, Time),
    /// Synchronous rounds (`network.model: "rounds"`): a round is a tick, and a message sent in
    /// round r arrives at the start of round r + 1.
    pub rounds: bool,
    /// The scenario's network graph, if it gives one: each node's neighbours (ids, ascending),
    /// in scenario order. Messages travel only along these links; `None`: the algorithm's own
    /// network (complete, or a ring).
    pub links: Option<Vec<Vec<NodeId>>>,
}

impl Config {
    pub fn new(
        ids: Vec<NodeId>,
        initial_leader: Option<NodeId>,
        heartbeats: Option<Heartbeats>,
        latency: (Time, Time),
    ) -> Self {
        let mut sorted = ids.clone();
        sorted.sort_unstable();
        Config { ids, sorted, initial_leader, heartbeats, latency, rounds: false, links: None }
    }
    pub fn n(&self) -> usize {
        self.ids.len()
    }
    /// Strict majority: floor(N/2) + 1.
    pub fn quorum(&self) -> u32 {
        (self.ids.len() / 2 + 1) as u32
    }
    /// Ids above `me`, ascending.
    pub fn higher(&self, me: NodeId) -> &[NodeId] {
        let at = self.sorted.partition_point(|&x| x <= me);
        &self.sorted[at..]
    }
    /// Ids below `me`, ascending.
    pub fn lower(&self, me: NodeId) -> &[NodeId] {
        let at = self.sorted.partition_point(|&x| x < me);
        &self.sorted[..at]
    }
    /// Position of `id` in scenario order.
    pub fn position(&self, id: NodeId) -> Option<usize> {
        self.ids.iter().position(|&x| x == id)
    }
    /// The nodes `me` has a link to, ascending: the scenario's graph, or everyone else when it
    /// gives none.
    pub fn neighbours(&self, me: NodeId) -> Vec<NodeId> {
        match (&self.links, self.position(me)) {
            (Some(links), Some(i)) => links[i].clone(),
            _ => self.sorted.iter().copied().filter(|&x| x != me).collect(),
        }
    }
    /// Whether a message may travel from `from` to `to` along a link of the scenario's graph.
    pub fn linked(&self, from: usize, to: NodeId) -> bool {
        self.links.as_ref().is_none_or(|l| l[from].binary_search(&to).is_ok())
    }
    /// The next node clockwise in scenario (ring) order.
    pub fn successor(&self, me: NodeId) -> NodeId {
        let i = self.position(me).expect("node in ring");
        self.ids[(i + 1) % self.ids.len()]
    }
    /// The next node counter-clockwise in scenario (ring) order.
    pub fn predecessor(&self, me: NodeId) -> NodeId {
        let i = self.position(me).expect("node in ring");
        self.ids[(i + self.ids.len() - 1) % self.ids.len()]
    }
}

/// One thing a handler asked, as a standalone context ([`Ctx::new`], for testing a handler
/// alone) records it, with the protocol's types taken out: a sent payload waits in the context's
/// outbox, a timer key in its timer list, both in order. (Inside a run the context applies each
/// effect as it is made, through the simulator's [`Sink`].)
#[derive(Clone, Debug, PartialEq)]
pub enum Effect {
    /// Send the next outbox payload to `to`; `kind` indexes [`Protocol::KINDS`].
    Send { to: NodeId, kind: usize },
    /// Like `Send`, but the message takes exactly `latency` ticks instead of a latency drawn from
    /// the network's range (a recorded run replays the delays its logs show). Partitions, cuts,
    /// crashes and manual drops still apply when it arrives; network loss does not.
    SendTimed { to: NodeId, kind: usize, latency: Time },
    /// Fire the timer at index `slot` of the timer list after a delay drawn uniformly from
    /// `[lo, hi]` ticks.
    SetTimer { slot: u32, lo: Time, hi: Time },
    /// Cancel the timer at index `slot` of the timer list.
    CancelTimer { slot: u32 },
    /// One sentence of narration for this step: which rule made the handler act.
    Note(Note),
    /// The protocol saw one of its own safety properties broken (a [`crate::meta::Monitor::Reported`]
    /// property), involving these nodes.
    Report { property: &'static str, nodes: Vec<NodeId> },
}

/// The simulator's side of a handler inside a run (its port, `crate::sim`): a context hands it
/// each effect as the handler makes it. It is not generic, so one copy serves every protocol.
pub trait Sink {
    /// A message to `to` of kind `kind` (an index into [`Protocol::KINDS`]), taking exactly
    /// `fixed` ticks if given (see [`Effect::SendTimed`]): numbered, timed, queued and hashed.
    /// `logged` is how many payloads are kept (the next one's message id); the answer is whether
    /// to keep this payload (false when a replay kept it already, or `to` is no node: then the
    /// message is not numbered).
    fn send(&mut self, to: NodeId, kind: usize, fixed: Option<Time>, logged: u64) -> bool;
    /// Arms the node's timer `name` after a delay drawn from `[lo, hi]`; `replaced`: a pending
    /// timer with the same key was dropped for it. Returns the timer's token.
    fn set_timer(&mut self, name: &'static str, lo: Time, hi: Time, replaced: bool) -> u64;
    /// The node's pending timer `name` was cancelled.
    fn cancel_timer(&mut self, name: &'static str);
    /// One sentence of narration for this step.
    fn note(&mut self, note: Note);
    /// A violation of the protocol's own property `property`, involving `nodes`.
    fn report(&mut self, property: &'static str, nodes: Vec<NodeId>);
}

/// Where a context's effects go.
enum Out<'a, M, T> {
    /// Inside a run: applied as they are made. `timers` are the node's pending timers with their
    /// queue tokens; a sent payload is kept in `payloads` (message ids from `base`) unless a
    /// replay kept it already.
    Live { port: &'a mut dyn Sink, timers: &'a mut Vec<(T, u64)>, payloads: &'a mut VecDeque<M>, base: u64 },
    /// Recorded for a test ([`Ctx::new`]).
    Record { effects: &'a mut Vec<Effect>, outbox: &'a mut Vec<M>, timers: &'a mut Vec<T> },
}

/// The handler's window on the world.
pub struct Ctx<'a, M, T> {
    pub me: NodeId,
    pub now: Time,
    pub cfg: &'a Config,
    out: Out<'a, M, T>,
}

impl<'a, M: Message, T: TimerKey> Ctx<'a, M, T> {
    /// A standalone context (to test a handler alone) whose effects are recorded in `effects`,
    /// payloads in `outbox` and timer keys in `timers`.
    pub fn new(
        me: NodeId,
        now: Time,
        cfg: &'a Config,
        effects: &'a mut Vec<Effect>,
        outbox: &'a mut Vec<M>,
        timers: &'a mut Vec<T>,
    ) -> Self {
        Ctx { me, now, cfg, out: Out::Record { effects, outbox, timers } }
    }
    /// The context of node `me`'s handler inside a run (see [`crate::machine::Core`]).
    #[inline(always)]
    pub(crate) fn live(
        me: NodeId,
        now: Time,
        cfg: &'a Config,
        port: &'a mut dyn Sink,
        timers: &'a mut Vec<(T, u64)>,
        payloads: &'a mut VecDeque<M>,
        base: u64,
    ) -> Self {
        Ctx { me, now, cfg, out: Out::Live { port, timers, payloads, base } }
    }
    #[inline]
    fn emit(&mut self, to: NodeId, msg: M, latency: Option<Time>) {
        let kind = msg.kind();
        match &mut self.out {
            Out::Live { port, payloads, base, .. } => {
                if port.send(to, kind, latency, *base + payloads.len() as u64) {
                    payloads.push_back(msg);
                }
            }
            Out::Record { effects, outbox, .. } => {
                effects.push(match latency {
                    None => Effect::Send { to, kind },
                    Some(latency) => Effect::SendTimed { to, kind, latency },
                });
                outbox.push(msg);
            }
        }
    }
    pub fn send(&mut self, to: NodeId, msg: M) {
        self.emit(to, msg, None);
    }
    /// Sends `msg` to `to`, arriving exactly `latency` ticks from now (see [`Effect::SendTimed`]).
    pub fn send_timed(&mut self, to: NodeId, msg: M, latency: Time) {
        self.emit(to, msg, Some(latency));
    }
    /// Sends `msg` to every other node, in ascending id order (on a scenario's graph, to every
    /// neighbour: messages travel only along links).
    pub fn broadcast(&mut self, msg: M) {
        let (me, cfg) = (self.me, self.cfg);
        if cfg.links.is_some() {
            for to in cfg.neighbours(me) {
                self.emit(to, msg.clone(), None);
            }
            return;
        }
        for &to in &cfg.sorted {
            if to != me {
                self.emit(to, msg.clone(), None);
            }
        }
    }
    /// Arms `timer` to fire after a delay drawn uniformly from `[lo, hi]`, replacing the pending
    /// timer with the same key.
    pub fn set_timer(&mut self, timer: T, lo: Time, hi: Time) {
        match &mut self.out {
            Out::Live { port, timers, .. } => {
                let replaced = match timers.iter().position(|&(t, _)| t == timer) {
                    Some(k) => {
                        timers.swap_remove(k);
                        true
                    }
                    None => false,
                };
                let token = port.set_timer(timer.name(), lo, hi, replaced);
                timers.push((timer, token));
            }
            Out::Record { effects, timers, .. } => {
                timers.push(timer);
                effects.push(Effect::SetTimer { slot: timers.len() as u32 - 1, lo, hi });
            }
        }
    }
    pub fn set_timer_after(&mut self, timer: T, delay: Time) {
        self.set_timer(timer, delay, delay);
    }
    /// Cancels the pending timer with key `timer`, if there is one.
    pub fn cancel_timer(&mut self, timer: T) {
        match &mut self.out {
            Out::Live { port, timers, .. } => {
                if let Some(k) = timers.iter().position(|&(t, _)| t == timer) {
                    timers.swap_remove(k);
                    port.cancel_timer(timer.name());
                }
            }
            Out::Record { effects, timers, .. } => {
                timers.push(timer);
                effects.push(Effect::CancelTimer { slot: timers.len() as u32 - 1 });
            }
        }
    }
    /// Explains this step in one sentence: a catalog text with its arguments, made by the
    /// key's typed function (`ctx.note(k::bully_note_start(ctx.me))`).
    #[inline(always)]
    pub fn note(&mut self, note: Note) {
        self.push_note(note);
    }
    fn push_note(&mut self, note: Note) {
        match &mut self.out {
            Out::Live { port, .. } => port.note(note),
            Out::Record { effects, .. } => effects.push(Effect::Note(note)),
        }
    }
    /// The leader's heartbeat, the block every leader-based protocol repeats: narrate the step
    /// with `note` (see [`Ctx::note`]), send `msg` to every other node, and re-arm `timer` for
    /// the next one, `heartbeats.interval` later.
    pub fn heartbeat(&mut self, timer: T, note: Note, msg: M) {
        self.note(note);
        self.broadcast(msg);
        self.arm_heartbeat(timer);
    }
    /// The leader's heartbeat `timer` fired: [`Ctx::heartbeat`] narrated with `says(me)` while
    /// this node is the `leader` it knows; nothing otherwise (it stopped leading).
    pub fn heartbeat_if_leader(&mut self, leader: Option<NodeId>, timer: T, says: fn(NodeId) -> Note, msg: M) {
        if leader == Some(self.me) {
            self.heartbeat(timer, says(self.me), msg);
        }
    }
    /// Arms the leader's heartbeat `timer` for `heartbeats.interval` (nothing without heartbeats).
    pub fn arm_heartbeat(&mut self, timer: T) {
        if let Some(hb) = self.cfg.heartbeats {
            self.set_timer_after(timer, hb.interval);
        }
    }
    /// Reports a violation of the protocol's own property `property` (its id).
    pub fn report(&mut self, property: &'static str, nodes: Vec<NodeId>) {
        match &mut self.out {
            Out::Live { port, .. } => port.report(property, nodes),
            Out::Record { effects, .. } => effects.push(Effect::Report { property, nodes }),
        }
    }
    /// The heartbeat failure detector: having just heard from (or about) `leader`, re-arm
    /// `timer` for `heartbeats.timeout` — unless there are no heartbeats or the leader is me.
    pub fn watch_leader(&mut self, timer: T, leader: Option<NodeId>) {
        if let (Some(hb), Some(l)) = (self.cfg.heartbeats, leader) {
            if l != self.me {
                self.set_timer_after(timer, hb.timeout);
            }
        }
    }
    /// A HEARTBEAT from `from`: from the `leader` this node follows, it narrates that the leader
    /// is alive and re-arms the failure detector `watch` (`true`); from anyone else, nothing.
    pub fn leader_heartbeat(&mut self, watch: T, leader: Option<NodeId>, from: NodeId) -> bool {
        if leader != Some(from) {
            return false;
        }
        self.note(k::common_note_alive(self.me, from));
        self.watch_leader(watch, leader);
        true
    }
    /// The failure detector fired: `true` when the `leader` this node followed is another node,
    /// narrated with `says(me, leader, heartbeats.timeout)`; `false`, and nothing said, otherwise.
    pub fn suspect(&mut self, leader: Option<NodeId>, says: fn(NodeId, NodeId, u64) -> Note) -> bool {
        let Some(l) = leader.filter(|&l| l != self.me) else { return false };
        self.note(says(self.me, l, self.cfg.heartbeats.map_or(0, |h| h.timeout)));
        true
    }
    /// A node's first timers under heartbeats, knowing `leader` at the start: the leader arms
    /// its `beat` for `heartbeats.interval`, a follower watches its leader with `watch`. `true`
    /// when heartbeats run and no leader is known: the caller starts an election.
    pub fn begin_heartbeats(&mut self, beat: T, watch: T, leader: Option<NodeId>) -> bool {
        let Some(hb) = self.cfg.heartbeats else { return false };
        match leader {
            Some(l) if l == self.me => self.set_timer_after(beat, hb.interval),
            Some(_) => self.watch_leader(watch, leader),
            None => return true,
        }
        false
    }
}

/// Every [`View`] field a breakpoint can read, by its breakpoint name.
pub const VIEW_FIELDS: &[&str] = &["term", "vote", "leader", "votes", "zxid", "group", "reach"];

pub const LEADER: &str = "leader";
/// ZooKeeper's name for the leader's state; counts as [`LEADER`] everywhere.
pub const LEADING: &str = "leading";
pub const FOLLOWER: &str = "follower";
pub const CANDIDATE: &str = "candidate";

/// A leader-election protocol as a set of pure handlers.
pub trait Protocol: Sized + 'static {
    /// `Hash` lets the exhaustive checker ([`crate::check`]) fingerprint a node by its state: it
    /// must hash every field that can change what the node does next (derive it).
    type State: Clone + fmt::Debug + std::hash::Hash;
    type Msg: Message;
    type Timer: TimerKey;

    /// Message kinds with their visual roles; `Message::kind` indexes this. The default is the
    /// message type's own (`kinds!` declares them with the type).
    const KINDS: &'static [Kind] = <Self::Msg as MessageKind>::KINDS;
    /// The [`View`] fields this protocol's views carry, by the names breakpoints use (`term`,
    /// `vote`, `leader`, `votes` for `tally`, `zxid`, `group`, `reach`): a breakpoint on another
    /// is refused. The default names them all (nothing refused).
    const VIEW_FIELDS: &'static [&'static str] = VIEW_FIELDS;

    /// Builds the protocol from the run's configuration and its own `params`, checking them
    /// (errors name the field, e.g. `params.t_out`).
    fn new(cfg: &Config, params: &Params) -> Result<Self, ScenarioError>;

    /// The message kinds of this instance: [`Protocol::KINDS`], unless the kinds are known only
    /// at run time (a scripted algorithm's, declared by its script).
    fn kinds(&self) -> &'static [Kind] {
        Self::KINDS
    }

    /// The timers' names of this instance: [`TimerKey::NAMES`], unless they are known only at run
    /// time (a scripted algorithm's, declared by its script).
    fn timer_names(&self) -> &'static [&'static str] {
        <Self::Timer as TimerKey>::NAMES
    }

    /// The state a node boots with (effects allowed, e.g. arming timers).
    fn init(&self, ctx: &mut Ctx<Self::Msg, Self::Timer>) -> Self::State;
    /// The `start` intervention: begin an election at this node.
    fn start(&self, s: &mut Self::State, ctx: &mut Ctx<Self::Msg, Self::Timer>);
    fn on_message(&self, s: &mut Self::State, from: NodeId, msg: Self::Msg, ctx: &mut Ctx<Self::Msg, Self::Timer>);
    fn on_timer(&self, s: &mut Self::State, timer: Self::Timer, ctx: &mut Ctx<Self::Msg, Self::Timer>);
    /// Recovery after a crash: volatile state is lost; `crashed` is the state at the crash,
    /// from which only durable fields may be kept.
    fn recover(&self, crashed: &Self::State, ctx: &mut Ctx<Self::Msg, Self::Timer>) -> Self::State;
    fn view(&self, s: &Self::State) -> View;
    /// The inspector's fields, each with a stable id (see [`crate::field`]).
    fn inspect(&self, s: &Self::State) -> Vec<crate::field::Field>;
    /// Why the protocol's own code cannot go on, if it cannot (a scripted algorithm's runtime
    /// error or exhausted budget, naming the node, handler, line and column): the run stops after
    /// the step it happened in, and [`crate::sim::Sim::halted`] says why.
    fn fault(&self) -> Option<String> {
        None
    }
    /// Forgets the fault: the future in which it happened was discarded (a fork before it).
    fn clear_fault(&self) {}
    /// For protocols that circulate a token (watched by [`crate::meta::Monitor::OneToken`]): the
    /// live tokens now, one entry per token, each named by the node it stands at (its holder,
    /// the node it travels to, or a sender that will pass it again). `nodes` are the states in
    /// scenario order (`None` while crashed); `flying` the messages in flight as (from, to,
    /// payload, doomed — it will not be delivered as things stand). `None`: no tokens here.
    fn live_tokens(
        &self,
        _nodes: &[Option<&Self::State>],
        _flying: &[(NodeId, NodeId, &Self::Msg, bool)],
    ) -> Option<Vec<NodeId>> {
        None
    }

    /// Symmetry under renaming the nodes (the exhaustive checker's `--symmetry`): `Some`, one
    /// colour per node in scenario order, if what a node does depends on ids only through
    /// equality (never their order or value) and on per-node facts only through its colour (two
    /// nodes may trade ids only if their colours are equal). `None`, the default: not symmetric
    /// (Bully and the rings compare ids). A protocol that says `Some` renames every id its
    /// states, messages and timer keys hold in the three `rename_*` methods below.
    fn symmetry(&self, _cfg: &Config) -> Option<Vec<u64>> {
        None
    }
    /// Renames every node id in `s` by `to` (see [`Protocol::symmetry`]).
    fn rename_state(&self, _s: &mut Self::State, _to: &dyn Fn(NodeId) -> NodeId) {}
    /// Renames every node id in `m` by `to`.
    fn rename_msg(&self, _m: &mut Self::Msg, _to: &dyn Fn(NodeId) -> NodeId) {}
    /// Renames every node id in a timer key by `to`.
    fn rename_timer(&self, t: Self::Timer, _to: &dyn Fn(NodeId) -> NodeId) -> Self::Timer {
        t
    }
}

/// Formats an optional node id as `N5` or `-`.
pub fn fmt_node(id: Option<NodeId>) -> String {
    match id {
        Some(i) => format!("N{i}"),
        None => "-".to_string(),
    }
}
