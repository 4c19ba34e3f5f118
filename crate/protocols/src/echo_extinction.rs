//! **Echo with extinction** on any connected graph (E. J. H. Chang, "Echo algorithms: depth
//! parallel operations on general graphs", IEEE Transactions on Software Engineering SE-8(4),
//! 1982; the election as in G. Tel, *Introduction to Distributed Algorithms*, 2nd ed., Cambridge
//! University Press 2000, §7.3.1), asynchronous.
//!
//! Every initiator starts an echo wave tagged with its id: WAVE(p) to every neighbour. A node
//! keeps the wave it takes part in (`caw`, the *currently active wave*), its father in that
//! wave and how many WAVE messages of it it has received. On WAVE(r) from q:
//! * r larger than its wave (or it is in none): the smaller wave is *extinguished* here — the
//!   node joins wave r with q as its father and passes WAVE(r) to every other neighbour;
//! * r equal to its wave (the message that made it join counts too): one more received; when
//!   every neighbour has sent one, the node echoes WAVE(r) to its father — or, if r is its own
//!   wave, the wave has come home complete: it wins;
//! * r smaller: the message is ignored; that wave dies here.
//!
//! Only the wave of the largest initiator completes (every node it reaches joins it and never
//! leaves it), so the largest initiator wins. The winner sends LEADER to every neighbour, and
//! every node, on its first LEADER, sends LEADER to all of its neighbours: 2|E| LEADER messages.
//!
//! * **Start.** A node may initiate only while no wave has reached it (Tel: a non-initiator is
//!   woken by the first message); a `start` at an engaged node is refused in the narration.
//! * **Messages.** Each wave sends at most 2|E| WAVE (a node sends at most one per neighbour
//!   in a wave), the winner's exactly 2|E|: with one initiator 4|E| in all, with k initiators
//!   at most 2k|E| + 2|E| (Tel §7.3: O(N·|E|) in the worst case).
//! * **Failures.** None assumed: a crash stops the waves through the crashed node.
//!
//! The view's parent is the node's father in its wave and its tint the wave's id: when the run
//! ends the fathers form the winner's spanning tree, drawn bold.

use crate::algorithm::Algorithm;
use crate::error::ScenarioError;
use crate::field::{Field, FieldValue as V};
use crate::meta::k;
use crate::meta::{
    single_leader, Faults, Formula, Kind, Look, Preset, Role, Topology, Visual, CANDIDATE_ROLE, FOLLOWER_ROLE,
    LEADER_ROLE,
};
use crate::protocol::{
    Config, Ctx, Decoration, Message, ParamReader, Params, Protocol, View, CANDIDATE, FOLLOWER, LEADER,
};
use crate::run;
use crate::NodeId;

#[derive(Clone, Debug)]
pub struct EchoExtinction;

pub const ALGORITHM: Algorithm = Algorithm {
    id: "echo-extinction",
    title: k::ECHO_EXTINCTION_TITLE,
    citation: "E. J. H. Chang, Echo algorithms: depth parallel operations on general graphs, IEEE Transactions on Software Engineering SE-8(4), 1982; G. Tel, Introduction to Distributed Algorithms, 2nd ed., 2000, §7.3",
    summary: k::ECHO_EXTINCTION_SUMMARY,
    card: k::ECHO_EXTINCTION_CARD,
    topology: Topology::Graph,
    kinds: KINDS,
    roles: &[
        LEADER_ROLE,
        FOLLOWER_ROLE,
        CANDIDATE_ROLE,
        Role::new(IN_WAVE, Look::Participant, k::ECHO_EXTINCTION_ROLE_IN_WAVE),
    ],
    formulas: &[
        Formula::new("4|E|", k::ECHO_EXTINCTION_FORMULA_1, &["WAVE", "LEADER"], |n| 2 * n * n.saturating_sub(1))
            .on_graph(|g| 4 * g.links),
        Formula::new("2k|E|+2|E|", k::ECHO_EXTINCTION_FORMULA_2, &["WAVE", "LEADER"], |n| {
            (n + 1) * n * n.saturating_sub(1)
        })
        .on_graph(|g| 2 * (g.n + 1) * g.links),
    ],
    properties: &[single_leader(Faults::CrashStop)],
    presets: PRESETS,
    build: run::build::<EchoExtinction>,
};

const IN_WAVE: &str = "in-wave";

const PRESETS: &[Preset] = &[
    Preset {
        id: "echo-grid",
        title: k::ECHO_EXTINCTION_PRESET_GRID_TITLE,
        hint: k::ECHO_EXTINCTION_PRESET_GRID_HINT,
        json: r#"{"algorithm":"echo-extinction","nodes":[12,3,41,7,25,9,38,16,5,30,21,44,14,2,33,19],"seed":7,"network":{"latency":[1,3]},"topology":{"generate":"grid","rows":4,"cols":4},"schedule":[{"at":0,"start":12},{"at":0,"start":41},{"at":0,"start":25},{"at":0,"start":5},{"at":0,"start":44},{"at":0,"start":33}]}"#,
        leaders: &[44],
        // Pins six waves on a 4×4 grid: the larger extinguish the smaller, 44's completes: 87 WAVE + 48 LEADER.
        golden: "27eb4ffd85dbc75f",
    },
    Preset {
        id: "echo-tree",
        title: k::ECHO_EXTINCTION_PRESET_TREE_TITLE,
        hint: k::ECHO_EXTINCTION_PRESET_TREE_HINT,
        json: r#"{"algorithm":"echo-extinction","nodes":[8,15,4,23,11,2,19,6,30,13],"seed":7,"topology":{"generate":"tree","fanout":3},"schedule":[{"at":0,"start":30}]}"#,
        leaders: &[30],
        // Pins one wave on a tree of 10: 2|E| = 18 WAVE and 18 LEADER.
        golden: "e37fdb41ab2be227",
    },
];

#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct State {
    pub me: NodeId,
    /// The wave it takes part in (an initiator's id).
    pub caw: Option<NodeId>,
    /// Its father in that wave (`None`: it started it, or none).
    pub father: Option<NodeId>,
    /// WAVE messages of `caw` received.
    pub rec: u32,
    /// The leader, once a LEADER reached it (or its own wave came home).
    pub leader: Option<NodeId>,
}

#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum Msg {
    Wave(NodeId),
    Leader(NodeId),
}

kinds! {
    Msg;
    Msg::Wave(_) => Kind::new("WAVE", "W", Visual::Request, k::ECHO_EXTINCTION_KIND_WAVE),
    Msg::Leader(_) => Kind::new("LEADER", "L", Visual::Announcement, k::ECHO_EXTINCTION_KIND_LEADER),
}

impl Message for Msg {
    fn label(&self) -> String {
        match self {
            Msg::Wave(r) => format!("WAVE({r})"),
            Msg::Leader(l) => format!("LEADER({l})"),
        }
    }
}

pub use crate::timers::NoTimer as Timer;

type C<'a> = Ctx<'a, Msg, Timer>;

impl EchoExtinction {
    fn fresh(me: NodeId) -> State {
        State { me, caw: None, father: None, rec: 0, leader: None }
    }

    /// The node's wave is complete here: echo to the father, or win.
    fn complete(&self, s: &mut State, ctx: &mut C) {
        let me = ctx.me;
        match s.father {
            None => {
                ctx.note(k::echo_extinction_note_win(me));
                self.announce(s, ctx.me, ctx);
            }
            Some(f) => {
                ctx.note(k::echo_extinction_note_echo(me, s.caw.unwrap_or(ctx.me) as u64, f));
                ctx.send(f, Msg::Wave(s.caw.unwrap_or(ctx.me)));
            }
        }
    }

    fn announce(&self, s: &mut State, leader: NodeId, ctx: &mut C) {
        s.leader = Some(leader);
        for to in ctx.cfg.neighbours(ctx.me) {
            ctx.send(to, Msg::Leader(leader));
        }
    }
}

impl Protocol for EchoExtinction {
    type State = State;
    type Msg = Msg;
    type Timer = Timer;
    const VIEW_FIELDS: &'static [&'static str] = &["leader"];

    fn new(_cfg: &Config, params: &Params) -> Result<Self, ScenarioError> {
        ParamReader::new(params, &[])?;
        Ok(EchoExtinction)
    }

    fn init(&self, ctx: &mut C) -> State {
        Self::fresh(ctx.me)
    }

    fn start(&self, s: &mut State, ctx: &mut C) {
        let me = ctx.me;
        if let Some(w) = s.caw {
            ctx.note(k::echo_extinction_note_engaged(me, w));
            return;
        }
        ctx.note(k::echo_extinction_note_start(me));
        s.caw = Some(ctx.me);
        s.father = None;
        s.rec = 0;
        let neighbours = ctx.cfg.neighbours(ctx.me);
        if neighbours.is_empty() {
            self.complete(s, ctx);
        }
        for to in neighbours {
            ctx.send(to, Msg::Wave(ctx.me));
        }
    }

    fn on_message(&self, s: &mut State, from: NodeId, msg: Msg, ctx: &mut C) {
        let me = ctx.me;
        match msg {
            Msg::Wave(r) => {
                if s.leader.is_some() {
                    ctx.note(k::echo_extinction_note_late(me, r as u64));
                    return;
                }
                match s.caw {
                    Some(w) if r < w => {
                        ctx.note(k::echo_extinction_note_extinct(me, r as u64, w));
                        return;
                    }
                    Some(w) if r == w => {}
                    old => {
                        match old {
                            Some(w) => ctx.note(k::echo_extinction_note_switch(me, r, w)),
                            None => ctx.note(k::echo_extinction_note_join(me, r, from)),
                        }
                        s.caw = Some(r);
                        s.father = Some(from);
                        s.rec = 0;
                        for to in ctx.cfg.neighbours(ctx.me) {
                            if to != from {
                                ctx.send(to, Msg::Wave(r));
                            }
                        }
                    }
                }
                s.rec += 1;
                let degree = ctx.cfg.neighbours(ctx.me).len() as u32;
                if s.rec == degree {
                    self.complete(s, ctx);
                } else {
                    ctx.note(k::echo_extinction_note_count(me, s.rec as u64, degree as u64));
                }
            }
            Msg::Leader(l) => {
                if s.leader.is_none() {
                    ctx.note(k::echo_extinction_note_leader(me, l));
                    self.announce(s, l, ctx);
                } else {
                    ctx.note(k::echo_extinction_note_leader_again(me, l, from));
                }
            }
        }
    }

    fn on_timer(&self, _s: &mut State, timer: Timer, _ctx: &mut C) {
        match timer {}
    }

    fn recover(&self, _crashed: &State, ctx: &mut C) -> State {
        ctx.note(k::echo_extinction_note_recover(ctx.me));
        Self::fresh(ctx.me)
    }

    fn view(&self, s: &State) -> View {
        let role = match (s.leader, s.caw) {
            (Some(l), _) if l == s.me => LEADER,
            (Some(_), _) | (None, None) => FOLLOWER,
            (None, Some(w)) if w == s.me => CANDIDATE,
            (None, Some(_)) => IN_WAVE,
        };
        View { role, leader: s.leader, ..View::default() }
            .with(s.caw.map(Decoration::Tint))
            .with(s.father.map(Decoration::Parent))
    }

    fn inspect(&self, s: &State) -> Vec<Field> {
        vec![
            Field::new("elected", k::INSPECT_ELECTED, V::node(s.leader)),
            Field::new("wave", k::INSPECT_WAVE, V::node(s.caw)),
            Field::new("parent", k::INSPECT_PARENT, V::node(s.father)),
            Field::new("replies", k::INSPECT_REPLIES, V::num(s.rec as u64)),
        ]
    }
}

#[cfg(all(test, holds = "graphs"))]
mod tests {
    use crate::protocols::testkit::{preset, run, sent};
    use serde_json::json;

    #[test]
    fn one_initiator_costs_exactly_four_times_the_links() {
        let e = preset("echo-tree");
        assert_eq!((sent(&e, "WAVE"), sent(&e, "LEADER")), (18, 18), "2|E| each, |E| = 9");
        assert_eq!(e.frame().agreement, Some(30));
    }

    #[test]
    fn a_start_at_a_node_the_wave_reached_starts_nothing() {
        let v = json!({"algorithm": "echo-extinction", "nodes": [1, 2, 3, 4], "topology": "line",
                       "schedule": [{"at": 0, "start": 1}, {"at": 5, "start": 4}]});
        let e = run(&v);
        assert_eq!(e.frame().agreement, Some(1), "N4 was already in N1's wave");
        assert_eq!(sent(&e, "WAVE"), 6);
    }
}
