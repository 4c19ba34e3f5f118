//! **YO-YO** on any connected graph (N. Santoro, *Design and Analysis of Distributed
//! Algorithms*, Wiley 2007, §3.8.2): extremum finding by repeated elimination on an oriented
//! graph, with pruning. Santoro finds the minimum; the rules are symmetric in the order, and the
//! lab runs them by default on the reversed order, so that YO-YO elects the **largest** id like
//! every other election here. `params.order`: `"max"` (the default) or `"min"` (the textbook's
//! orientation, electing the smallest id). Below, a value *beats* another when it is larger
//! (`max`) or smaller (`min`).
//!
//! * **Setup.** At boot every node sends SETUP (its id) to every neighbour; each link is then
//!   oriented from the id that beats the other to the one it beats. A node with only outgoing
//!   links is a *source* (a local extremum, a candidate), one with only incoming links a *sink*,
//!   the others are *internal*. The orientation has no cycle: ids get worse along every path.
//! * **YO- (down).** A source sends its id to every out-neighbour. An internal node waits for a
//!   VALUE from every in-neighbour and sends the best it received to every out-neighbour; a
//!   sink waits for every in-neighbour's VALUE.
//! * **-YO (up).** A sink answers every in-neighbour with VOTE: *yes* to those that sent the
//!   best value it received, *no* to the others. An internal node waits for the votes of all
//!   its out-neighbours: if all said yes it answers as a sink would, otherwise *no* to every
//!   in-neighbour. A source with a *no* is no longer a candidate.
//! * **Flip.** Every link that carried a *no* is turned round, so a defeated source gets an
//!   incoming link and is a source no more. The orientation stays acyclic, and the best id is
//!   never defeated (it beats every value it meets, so it only ever hears *yes*).
//! * **Pruning.** A node that received the same value from several in-neighbours keeps one
//!   link (its in-neighbour with the smallest id) and asks the others, with its vote, to remove
//!   theirs. A node left without outgoing links at the end of the -YO (a sink, or an internal
//!   node whose every out-link was just pruned) and with a single in-neighbour is a leaf that can
//!   teach nothing more: it asks that link to be removed too and leaves the computation (role
//!   `pruned`). So pruning climbs a whole branch in one -YO, and an iteration that starts with a
//!   single source prunes everything but it.
//! * **End.** A source whose every link has been pruned is alone in what is left of the graph:
//!   no other candidate exists, so its id is the best, and it floods LEADER over the whole
//!   network (every node sends it to every neighbour once: 2|E| messages).
//!
//! Cost (Santoro §3.8.2): SETUP is 2|E|; each iteration sends at most one VALUE and one VOTE
//! per live link, 2|E|; the sources thin out to one in at most ⌈log₂ N⌉ iterations, and one more
//! prunes the graph bare: SETUP + VALUE + VOTE ≤ 2|E| + 2|E|(⌈log₂ N⌉ + 1).
//!
//! Messages carry the iteration they belong to: a neighbour that has already started the next
//! iteration may send its VALUE before this node has finished the last; it is kept until then.
//! Failures are not assumed: a crashed node stops the iteration round it, and a recovered node
//! has lost its links' state and stays silent (it never decides wrongly).
//!
//! The view: sources are drawn as candidates, sinks as waiting, pruned nodes as followers; the
//! tint is the best value the node has seen flowing through it; `out` names the links the
//! node points along, so the canvas draws the orientation as arrows and pruned links dashed.

use crate::algorithm::Algorithm;
use crate::error::ScenarioError;
use crate::field::{Field, FieldValue as V};
use crate::meta::k;
use crate::meta::{
    single_leader, Faults, Formula, Kind, Look, Net, Preset, Role, Topology, Visual, FOLLOWER_ROLE, LEADER_ROLE,
};
use crate::protocol::{
    Config, Ctx, Decoration, Message, ParamReader, Params, Protocol, TimerKey, View, FOLLOWER, LEADER,
};
use crate::run;
use crate::NodeId;

#[derive(Clone, Debug)]
pub struct YoYo {
    order: Order,
}

/// Which id wins: the largest (the default) or, as in Santoro's text, the smallest.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Order {
    Max,
    Min,
}

impl Order {
    /// Whether value `a` beats value `b`.
    pub fn beats(self, a: NodeId, b: NodeId) -> bool {
        match self {
            Order::Max => a > b,
            Order::Min => a < b,
        }
    }

    /// The best of `values`.
    fn best(self, values: impl Iterator<Item = NodeId>) -> Option<NodeId> {
        match self {
            Order::Max => values.max(),
            Order::Min => values.min(),
        }
    }

    fn read(p: &ParamReader) -> Result<Order, ScenarioError> {
        match p.value("order") {
            None => Ok(Order::Max),
            Some(v) => match v.as_str() {
                Some("max") => Ok(Order::Max),
                Some("min") => Ok(Order::Min),
                _ => Err(ScenarioError::new(
                    "params.order",
                    format!("expected \"max\" or \"min\", found {}", election_lab_core::write_json(v)),
                )),
            },
        }
    }
}

pub const ALGORITHM: Algorithm = Algorithm {
    id: "yoyo",
    title: k::YOYO_TITLE,
    citation: "N. Santoro, Design and Analysis of Distributed Algorithms, Wiley, 2007, §3.8.2 (YO-YO)",
    summary: k::YOYO_SUMMARY,
    card: k::YOYO_CARD,
    topology: Topology::Graph,
    kinds: KINDS,
    roles: &[
        LEADER_ROLE,
        FOLLOWER_ROLE,
        Role::new(SOURCE, Look::Candidate, k::YOYO_ROLE_SOURCE),
        Role::new(INTERNAL, Look::Participant, k::YOYO_ROLE_INTERNAL),
        Role::new(SINK, Look::Waiting, k::YOYO_ROLE_SINK),
        Role::new(PRUNED, Look::Follower, k::YOYO_ROLE_PRUNED),
    ],
    formulas: &[Formula::new("2|E|(⌈log₂N⌉+2)", k::YOYO_FORMULA_1, &["SETUP", "VALUE", "VOTE"], |n| {
        n * n.saturating_sub(1) * (log2_ceil(n) + 2)
    })
    .on_graph(bound)],
    properties: &[single_leader(Faults::CrashStop)],
    presets: PRESETS,
    build: run::build::<YoYo>,
};

/// SETUP on every link both ways (2|E|), then at most one VALUE and one VOTE per live link in
/// each of at most ⌈log₂ N⌉ + 1 iterations (Santoro §3.8.2): 2|E| + 2|E|(⌈log₂ N⌉ + 1).
pub fn bound(g: &Net) -> u64 {
    2 * g.links * (log2_ceil(g.n) + 2)
}

/// ⌈log₂ n⌉ (0 for n ≤ 1).
fn log2_ceil(n: u64) -> u64 {
    u64::from(64 - n.saturating_sub(1).leading_zeros())
}

const SOURCE: &str = "source";
const INTERNAL: &str = "internal";
const SINK: &str = "sink";
const PRUNED: &str = "pruned";

const PRESETS: &[Preset] = &[
    Preset {
        id: "yoyo-grid",
        title: k::YOYO_PRESET_GRID_TITLE,
        hint: k::YOYO_PRESET_GRID_HINT,
        json: r#"{"algorithm":"yoyo","nodes":[12,3,41,7,25,9,38,16,5,30,21,44,14,2,33,19],"seed":31,"network":{"latency":[1,3]},"topology":{"generate":"grid","rows":4,"cols":4}}"#,
        leaders: &[44],
        // Pins six sources on a 4×4 grid: N44 alone after iteration 1, bare after iteration 2.
        golden: "6d9d65db26ccbb97",
    },
    Preset {
        id: "yoyo-random",
        title: k::YOYO_PRESET_RANDOM_TITLE,
        hint: k::YOYO_PRESET_RANDOM_HINT,
        json: r#"{"algorithm":"yoyo","nodes":[17,4,29,11,8,23,15,2,26,9,31,6],"seed":5,"network":{"model":"rounds"},"topology":{"generate":"random","degree":3,"seed":12}}"#,
        leaders: &[31],
        // Pins five sources on a random graph of 12 in rounds: four defeated at once, N31 bare after 2.
        golden: "c7f2c663b804a7d4",
    },
];

/// Where a node is in the current iteration.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Phase {
    /// Learning its neighbours' ids.
    Setup,
    /// Waiting for a VALUE from every in-neighbour.
    Down,
    /// Waiting for a VOTE from every out-neighbour.
    Up,
    /// Left the computation: every link of its pruned.
    Out,
    /// Knows the leader.
    Done,
    /// Lost its state in a crash.
    Lost,
}

#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct State {
    pub me: NodeId,
    pub phase: Phase,
    /// The iteration (1, 2, …; 0 during setup).
    pub iter: u32,
    /// SETUP messages heard.
    pub heard: u32,
    /// Live links oriented towards this node, and away from it, ascending.
    pub ins: Vec<NodeId>,
    pub outs: Vec<NodeId>,
    /// Whether it was a source when this iteration began.
    pub source: bool,
    /// This iteration's VALUEs: (from, value).
    pub got: Vec<(NodeId, NodeId)>,
    /// VALUEs of the next iteration, sent by a neighbour already in it.
    pub early: Vec<(NodeId, NodeId)>,
    /// This iteration's VOTEs: (from, yes, prune).
    pub votes: Vec<(NodeId, bool, bool)>,
    /// The best value of this iteration.
    pub best: NodeId,
    /// Links pruned at this node so far.
    pub pruned: u32,
    pub leader: Option<NodeId>,
}

#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum Msg {
    Setup,
    Value { iter: u32, value: NodeId },
    Vote { iter: u32, yes: bool, prune: bool },
    Leader { id: NodeId },
}

kinds! {
    Msg;
    Msg::Setup => Kind::new("SETUP", "S", Visual::Data, k::YOYO_KIND_SETUP),
    Msg::Value { .. } => Kind::new("VALUE", "V", Visual::Request, k::YOYO_KIND_VALUE),
    Msg::Vote { .. } => Kind::new("VOTE", "Y", Visual::Answer, k::YOYO_KIND_VOTE),
    Msg::Leader { .. } => Kind::new("LEADER", "L", Visual::Announcement, k::YOYO_KIND_LEADER),
}

impl Message for Msg {
    fn label(&self) -> String {
        match self {
            Msg::Setup => "SETUP".into(),
            Msg::Value { iter, value } => format!("VALUE({value}, i{iter})"),
            Msg::Vote { iter, yes, prune } => {
                format!("{}{}(i{iter})", if *yes { "YES" } else { "NO" }, if *prune { "+PRUNE" } else { "" })
            }
            Msg::Leader { id } => format!("LEADER({id})"),
        }
    }
}

/// YO-YO has no timers: its iterations are counted by the messages.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Timer {}

impl TimerKey for Timer {
    const NAMES: &'static [&'static str] = &[];
    fn name(&self) -> &'static str {
        match *self {}
    }
}

type C<'a> = Ctx<'a, Msg, Timer>;

fn remove(v: &mut Vec<NodeId>, x: NodeId) {
    v.retain(|&y| y != x);
}

fn insert(v: &mut Vec<NodeId>, x: NodeId) {
    if let Err(i) = v.binary_search(&x) {
        v.insert(i, x);
    }
}

impl YoYo {
    /// Begins the next iteration: a source sends its id down, the others wait for values.
    fn next_iteration(&self, s: &mut State, ctx: &mut C) {
        s.iter += 1;
        s.got.clear();
        s.votes.clear();
        s.source = s.ins.is_empty();
        if s.source && s.outs.is_empty() {
            return self.win(s, ctx);
        }
        if s.source {
            s.best = s.me;
            s.phase = Phase::Up;
            ctx.note(k::yoyo_note_source(ctx.me, s.iter as u64, s.outs.len() as u64));
            for &to in &s.outs {
                ctx.send(to, Msg::Value { iter: s.iter, value: s.me });
            }
            return;
        }
        s.phase = Phase::Down;
        let early = std::mem::take(&mut s.early);
        s.got.extend(early.into_iter().filter(|(from, _)| s.ins.contains(from)));
        self.close_down(s, ctx);
    }

    /// Once every in-neighbour's value is in: pass the best down, or (a sink) vote.
    fn close_down(&self, s: &mut State, ctx: &mut C) {
        if s.phase != Phase::Down || s.got.len() < s.ins.len() {
            return;
        }
        s.best = self.order.best(s.got.iter().map(|g| g.1)).unwrap_or(s.me);
        if s.outs.is_empty() {
            ctx.note(k::yoyo_note_sink(ctx.me, s.best as u64, s.iter as u64));
            return self.vote(s, true, ctx);
        }
        ctx.note(k::yoyo_note_pass(ctx.me, s.best as u64, s.outs.len() as u64));
        s.phase = Phase::Up;
        for &to in &s.outs {
            ctx.send(to, Msg::Value { iter: s.iter, value: s.best });
        }
    }

    /// Once every out-neighbour has voted: flip the links that said no, drop the pruned ones,
    /// then vote up (or, a source, go on or stop being one).
    fn close_up(&self, s: &mut State, ctx: &mut C) {
        if s.phase != Phase::Up || s.votes.len() < s.outs.len() {
            return;
        }
        let all_yes = s.votes.iter().all(|v| v.1);
        for (from, yes, prune) in std::mem::take(&mut s.votes) {
            if prune {
                remove(&mut s.outs, from);
                s.pruned += 1;
            } else if !yes {
                remove(&mut s.outs, from);
                insert(&mut s.ins, from);
            }
        }
        if s.source {
            if all_yes {
                ctx.note(k::yoyo_note_survive(ctx.me, s.iter as u64));
            } else {
                ctx.note(k::yoyo_note_defeated(ctx.me, s.iter as u64));
            }
            return self.next_iteration(s, ctx);
        }
        self.vote(s, all_yes, ctx)
    }

    /// Answers every in-neighbour: yes to those that sent the best value (if `all_yes`), no to
    /// the others; asks duplicates to be pruned, and a leaf's last link: a node left with no
    /// outgoing link (none in this iteration, or every one pruned just now) and one in-neighbour.
    fn vote(&self, s: &mut State, all_yes: bool, ctx: &mut C) {
        let mut got = std::mem::take(&mut s.got);
        got.sort_unstable();
        let mut kept: Vec<NodeId> = Vec::new();
        let mut answers: Vec<(NodeId, bool, bool)> = Vec::new();
        for &(from, value) in &got {
            let dup = got.iter().any(|&(f, v)| v == value && f < from);
            if !dup {
                kept.push(from);
            }
            answers.push((from, all_yes && value == s.best, dup));
        }
        // A link turned round by a no is an in-link that sent no value: then it is no leaf.
        let leaf = s.outs.is_empty() && kept.len() == 1 && s.ins.len() == got.len();
        for &(from, yes, dup) in &answers {
            let prune = dup || leaf;
            ctx.send(from, Msg::Vote { iter: s.iter, yes, prune });
            if prune {
                remove(&mut s.ins, from);
                s.pruned += 1;
                ctx.note(k::yoyo_note_prune(ctx.me, from));
            } else if !yes {
                remove(&mut s.ins, from);
                insert(&mut s.outs, from);
                ctx.note(k::yoyo_note_flip(ctx.me, from));
            }
        }
        if s.ins.is_empty() && s.outs.is_empty() {
            ctx.note(k::yoyo_note_out(ctx.me));
            s.phase = Phase::Out;
            return;
        }
        self.next_iteration(s, ctx);
    }

    fn win(&self, s: &mut State, ctx: &mut C) {
        // It finds itself bare at the start of an iteration: the last one was the one before.
        let last = s.iter.saturating_sub(1) as u64;
        ctx.note(match self.order {
            Order::Max => k::yoyo_note_win_max(ctx.me, last),
            Order::Min => k::yoyo_note_win_min(ctx.me, last),
        });
        self.decide(s, s.me, ctx);
    }

    fn decide(&self, s: &mut State, leader: NodeId, ctx: &mut C) {
        s.leader = Some(leader);
        s.phase = Phase::Done;
        for to in ctx.cfg.neighbours(ctx.me) {
            ctx.send(to, Msg::Leader { id: leader });
        }
    }
}

impl Protocol for YoYo {
    type State = State;
    type Msg = Msg;
    type Timer = Timer;
    const VIEW_FIELDS: &'static [&'static str] = &["leader"];
    const KINDS: &'static [Kind] = KINDS;

    fn new(_cfg: &Config, params: &Params) -> Result<Self, ScenarioError> {
        let p = ParamReader::new(params, &["order"])?;
        Ok(YoYo { order: Order::read(&p)? })
    }

    /// Every node sends SETUP to every neighbour at boot.
    fn init(&self, ctx: &mut C) -> State {
        let mut s = State {
            me: ctx.me,
            phase: Phase::Setup,
            iter: 0,
            heard: 0,
            ins: Vec::new(),
            outs: Vec::new(),
            source: false,
            got: Vec::new(),
            early: Vec::new(),
            votes: Vec::new(),
            best: ctx.me,
            pruned: 0,
            leader: None,
        };
        let neighbours = ctx.cfg.neighbours(ctx.me);
        if neighbours.is_empty() {
            self.win(&mut s, ctx);
        }
        for to in neighbours {
            ctx.send(to, Msg::Setup);
        }
        s
    }

    fn start(&self, s: &mut State, ctx: &mut C) {
        ctx.note(k::yoyo_note_start(ctx.me, s.iter as u64));
    }

    fn on_message(&self, s: &mut State, from: NodeId, msg: Msg, ctx: &mut C) {
        if s.phase == Phase::Lost {
            return ctx.note(k::yoyo_note_lost(ctx.me));
        }
        match msg {
            Msg::Leader { id } => {
                if s.leader.is_none() {
                    ctx.note(k::yoyo_note_leader(ctx.me, id));
                    self.decide(s, id, ctx);
                }
            }
            Msg::Setup => {
                s.heard += 1;
                if self.order.beats(from, s.me) {
                    insert(&mut s.ins, from);
                } else {
                    insert(&mut s.outs, from);
                }
                if s.heard as usize >= ctx.cfg.neighbours(ctx.me).len() && s.phase == Phase::Setup {
                    let (ins, outs) = (s.ins.len() as u64, s.outs.len() as u64);
                    ctx.note(match self.order {
                        Order::Max => k::yoyo_note_oriented_max(ctx.me, ins, outs),
                        Order::Min => k::yoyo_note_oriented_min(ctx.me, ins, outs),
                    });
                    self.next_iteration(s, ctx);
                }
            }
            Msg::Value { iter, value } => {
                if iter == s.iter && s.phase == Phase::Down && s.ins.contains(&from) {
                    s.got.push((from, value));
                    self.close_down(s, ctx);
                } else if iter == s.iter + 1 {
                    s.early.push((from, value));
                } else {
                    ctx.note(k::yoyo_note_stale(ctx.me, from));
                }
            }
            Msg::Vote { iter, yes, prune } => {
                if iter == s.iter && s.phase == Phase::Up && s.outs.contains(&from) {
                    s.votes.push((from, yes, prune));
                    self.close_up(s, ctx);
                } else {
                    ctx.note(k::yoyo_note_stale(ctx.me, from));
                }
            }
        }
    }

    fn on_timer(&self, _s: &mut State, timer: Timer, _ctx: &mut C) {
        match timer {}
    }

    fn recover(&self, crashed: &State, ctx: &mut C) -> State {
        ctx.note(k::yoyo_note_recover(ctx.me));
        State {
            phase: Phase::Lost,
            got: Vec::new(),
            early: Vec::new(),
            votes: Vec::new(),
            leader: None,
            ..crashed.clone()
        }
    }

    fn view(&self, s: &State) -> View {
        let role = match s.phase {
            Phase::Done if s.leader == Some(s.me) => LEADER,
            Phase::Done => FOLLOWER,
            Phase::Out | Phase::Lost => PRUNED,
            _ if s.ins.is_empty() && !s.outs.is_empty() => SOURCE,
            _ if s.outs.is_empty() && !s.ins.is_empty() => SINK,
            _ => INTERNAL,
        };
        let out = match s.phase {
            Phase::Setup | Phase::Lost => None,
            _ => Some(Decoration::Out(s.outs.clone())),
        };
        View { role, leader: s.leader, ..View::default() }.with(Decoration::Tint(s.best)).with(out)
    }

    fn inspect(&self, s: &State) -> Vec<Field> {
        vec![
            Field::new("elected", k::INSPECT_ELECTED, V::node(s.leader)),
            Field::new("round", k::INSPECT_ROUND, V::num(s.iter as u64)),
            Field::new("links_in", k::YOYO_INSPECT_IN, V::Nodes(s.ins.clone())),
            Field::new("links_out", k::YOYO_INSPECT_OUT, V::Nodes(s.outs.clone())),
            Field::new("best", k::YOYO_INSPECT_BEST, V::Node(s.best)),
            Field::new("links_pruned", k::YOYO_INSPECT_PRUNED, V::num(s.pruned as u64)),
        ]
    }
}
