//! The protocol interface: sans-IO state machines driven by the simulator.
//!
//! A protocol never sends, sleeps or draws randomness itself. Each handler gets the node's state
//! and a [`Ctx`] (who am I, what time is it, who is in the cluster) and *returns effects* by
//! pushing them into the context: send a message, set a timer with a tick range, cancel a timer.
//! Only the simulator applies effects, so every run can be replayed, drawn and checked.

use crate::error::{path_error, ScenarioError};
use crate::meta::{Kind, Note, Text};
use crate::{NodeId, Time};
use serde::de::DeserializeOwned;
use serde_json::{Map, Value};
use std::fmt;

/// A protocol's own part of the scenario: the `params` object.
pub type Params = Map<String, Value>;

/// Reads `params` into a protocol's parameter struct, naming the field on error
/// (`params.t_out: invalid type ...`).
pub fn read_params<T: DeserializeOwned>(params: &Params) -> Result<T, ScenarioError> {
    let value = Value::Object(params.clone());
    serde_path_to_error::deserialize(&value).map_err(|e| path_error(e, "params"))
}

/// What every protocol message tells the simulator and the UI about itself.
pub trait Message: Clone + fmt::Debug {
    /// Index of this message's kind in [`Protocol::KINDS`].
    fn kind(&self) -> usize;
    /// A short readable label, e.g. `ELECTION(12)` or `REQUEST_VOTE(t3)`.
    fn label(&self) -> String;
}

/// A protocol's timer: a small key. Setting a timer replaces the pending one with the same key.
pub trait TimerKey: Copy + Eq + fmt::Debug {
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
        Config { ids, sorted, initial_leader, heartbeats, latency }
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

/// One thing a handler asks the simulator to do, with the protocol's types taken out: a sent
/// payload waits in the context's outbox, a timer key in its timer list, both in order.
#[derive(Clone, Debug, PartialEq)]
pub enum Effect {
    /// Send the next outbox payload to `to`; `kind` indexes [`Protocol::KINDS`].
    Send { to: NodeId, kind: usize },
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

/// The handler's window on the world.
pub struct Ctx<'a, M, T> {
    pub me: NodeId,
    pub now: Time,
    pub cfg: &'a Config,
    effects: &'a mut Vec<Effect>,
    outbox: &'a mut Vec<M>,
    timers: &'a mut Vec<T>,
}

impl<'a, M: Message, T: Copy> Ctx<'a, M, T> {
    /// A context whose effects go to `effects`, payloads to `outbox` and timer keys to `timers`.
    pub fn new(
        me: NodeId,
        now: Time,
        cfg: &'a Config,
        effects: &'a mut Vec<Effect>,
        outbox: &'a mut Vec<M>,
        timers: &'a mut Vec<T>,
    ) -> Self {
        Ctx { me, now, cfg, effects, outbox, timers }
    }
    pub fn send(&mut self, to: NodeId, msg: M) {
        self.effects.push(Effect::Send { to, kind: msg.kind() });
        self.outbox.push(msg);
    }
    /// Sends `msg` to every other node, in ascending id order.
    pub fn broadcast(&mut self, msg: M) {
        let me = self.me;
        let kind = msg.kind();
        for &to in &self.cfg.sorted {
            if to != me {
                self.effects.push(Effect::Send { to, kind });
                self.outbox.push(msg.clone());
            }
        }
    }
    pub fn set_timer(&mut self, timer: T, lo: Time, hi: Time) {
        self.timers.push(timer);
        self.effects.push(Effect::SetTimer { slot: self.timers.len() as u32 - 1, lo, hi });
    }
    pub fn set_timer_after(&mut self, timer: T, delay: Time) {
        self.set_timer(timer, delay, delay);
    }
    pub fn cancel_timer(&mut self, timer: T) {
        self.timers.push(timer);
        self.effects.push(Effect::CancelTimer { slot: self.timers.len() as u32 - 1 });
    }
    /// Explains this step in one sentence: `text` is a catalog key (`k::BULLY_NOTE_START`),
    /// `args` fill its named arguments, in the order of [`Text::args`].
    pub fn note(&mut self, text: &Text, args: &[u64]) {
        let text = *text;
        let mut a = [0u64; 3];
        for (slot, v) in a.iter_mut().zip(args) {
            *slot = *v;
        }
        self.effects.push(Effect::Note(Note { text, args: a }));
    }
    /// Reports a violation of the protocol's own property `property` (its id).
    pub fn report(&mut self, property: &'static str, nodes: Vec<NodeId>) {
        self.effects.push(Effect::Report { property, nodes });
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
}

/// The protocol-independent picture of one node that observers and the UI use.
#[derive(Clone, Debug, PartialEq, Eq, Default)]
pub struct View {
    /// `"leader"` (or ZooKeeper's `"leading"`) means the node believes it is the leader. Others: `"follower"`, `"candidate"`,
    /// or a protocol role such as `"waiting-ok"`.
    pub role: &'static str,
    /// Who this node believes leads (itself included), if anyone.
    pub leader: Option<NodeId>,
    /// Term or epoch, for protocols that have one.
    pub term: Option<u64>,
    /// What `term` counts, when it is not a Raft-style term (a ballot, a round, an epoch): the
    /// UI writes "ballot 7" instead of "t7".
    pub term_word: Option<&'static Text>,
    /// Whom this node voted for in its current term.
    pub vote: Option<NodeId>,
    /// A candidate's tally: (votes held, votes needed).
    pub tally: Option<(u32, u32)>,
    /// The group this node belongs to, named by its group leader (group-merging algorithms such
    /// as Invitation): the UI draws a coloured hull round each group.
    pub group: Option<NodeId>,
    /// How far this node's current probe reaches, in hops each way along the ring (probing ring
    /// algorithms such as Hirschberg-Sinclair): the UI draws it as an arc.
    pub reach: Option<u32>,
    /// Where this node and the key it looks up sit on a hash ring, as positions in `[0, 2^32)`
    /// (consistent-hashing algorithms such as the DHT election): the UI places the nodes round
    /// the circle in hash order and marks the key.
    pub ring: Option<(u32, u32)>,
    /// A lease this node holds or keeps: `(from, until, ticks)` — the real times (simulator
    /// ticks) it runs from and until, and its length in this node's own clock ticks (lease
    /// algorithms): the UI draws a bar draining from `from` to `until`.
    pub lease: Option<(Time, Time, u32)>,
    /// The id whose colour this node wears (gossip: the candidate it backs), so that a value
    /// spreading through the cluster shows as a spreading colour: the UI rings the node with it.
    pub tint: Option<NodeId>,
    /// The node's data version that votes compare before ids (ZooKeeper's ZXID, the last
    /// transaction it has seen): the UI writes it under the node.
    pub zxid: Option<u64>,
}

impl View {
    pub fn is_leader(&self) -> bool {
        self.role == LEADER || self.role == LEADING
    }
}

pub const LEADER: &str = "leader";
/// ZooKeeper's name for the leader's state; counts as [`LEADER`] everywhere.
pub const LEADING: &str = "leading";
pub const FOLLOWER: &str = "follower";
pub const CANDIDATE: &str = "candidate";

/// A leader-election protocol as a set of pure handlers.
pub trait Protocol: Sized + 'static {
    type State: Clone + fmt::Debug;
    type Msg: Message;
    type Timer: TimerKey;

    /// Message kinds with their visual roles; `Message::kind` indexes this.
    const KINDS: &'static [Kind];

    /// Builds the protocol from the run's configuration and its own `params`, checking them
    /// (errors name the field, e.g. `params.t_out`).
    fn new(cfg: &Config, params: &Params) -> Result<Self, ScenarioError>;

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
    /// Key/value pairs for the inspector.
    fn inspect(&self, s: &Self::State) -> Vec<(Text, String)>;
}

/// Formats an optional node id as `N5` or `-`.
pub fn fmt_node(id: Option<NodeId>) -> String {
    match id {
        Some(i) => format!("N{i}"),
        None => "-".to_string(),
    }
}
