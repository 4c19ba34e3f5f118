//! **FloodMax** on any connected graph (N. A. Lynch, *Distributed Algorithms*, Morgan Kaufmann
//! 1996, §4.1.2): every node knows an upper bound `diam` on the network's diameter; in each
//! round every node sends the largest id it has seen to every neighbour, and after `diam`
//! rounds the node whose own id is the largest it has seen declares itself leader (the others
//! know who leads: the largest id they have seen). An id needs at most `diam` hops to reach
//! every node, so after `diam` rounds every node holds the maximum.
//!
//! * **Rounds.** The algorithm is written for the synchronous model: run it with
//!   `network.model: "rounds"`, where every message sent in round r arrives at the start of
//!   round r + 1, and all nodes start together at round 0 (the scenario needs no `start`).
//!   Each message carries its round; a node begins round r + 1 once it has heard round r from
//!   every neighbour — in the round model that is exactly the next tick. The same rule lets it
//!   run asynchronously too (Lynch's simulation of a synchronous network, §16.1: a neighbour
//!   is at most one round ahead), with the same messages and the same result, only slower.
//! * **Messages: exactly `diam · 2|E|`.** In every one of the `diam` rounds each node sends one
//!   MAX to each of its neighbours, so every link carries two per round — whatever the ids.
//!   On the complete network the scenario gets without a `topology`, `diam = 1` and
//!   `2|E| = N(N − 1)`.
//! * **`params.diameter`** (default: the graph's true diameter) is the bound the nodes are
//!   told. A smaller one can elect a wrong leader, or two: a lesson in why the bound matters.
//! * **Failures.** FloodMax assumes none: a crashed neighbour never sends its next round, so
//!   the nodes around it wait for ever (they never decide wrongly for it); a recovered node has
//!   lost its rounds and stays silent.
//!
//! The view wears the largest id seen as its tint (the maximum spreads as a colour) and names
//! the neighbour it came from as its parent: when the run ends these links form a
//! breadth-first spanning tree rooted at the leader.

use crate::algorithm::Algorithm;
use crate::error::ScenarioError;
use crate::field::{Field, FieldValue as V};
use crate::meta::k;
use crate::meta::{
    single_leader, Faults, Formula, Kind, Look, Preset, Role, Topology, Visual, FOLLOWER_ROLE, LEADER_ROLE,
};
use crate::protocol::{Config, Ctx, Decoration, Message, ParamReader, Params, Protocol, View, FOLLOWER, LEADER};
use crate::run;
use crate::NodeId;

#[derive(Clone, Debug)]
pub struct FloodMax {
    /// The diameter bound every node is told: how many rounds it floods.
    pub diam: u32,
}

pub const ALGORITHM: Algorithm = Algorithm {
    id: "floodmax",
    title: k::FLOODMAX_TITLE,
    citation: "N. A. Lynch, Distributed Algorithms, Morgan Kaufmann, 1996, §4.1.2 (FloodMax)",
    summary: k::FLOODMAX_SUMMARY,
    card: k::FLOODMAX_CARD,
    topology: Topology::Graph,
    kinds: KINDS,
    roles: &[LEADER_ROLE, FOLLOWER_ROLE, Role::new(FLOODING, Look::Participant, k::FLOODMAX_ROLE_FLOODING)],
    // On the complete network diam = 1 and 2|E| = N(N − 1).
    formulas: &[Formula::new("diam·2|E|", k::FLOODMAX_FORMULA_1, &["MAX"], |n| n * n.saturating_sub(1))
        .on_graph(|g| g.diameter * 2 * g.links)],
    properties: &[single_leader(Faults::CrashStop)],
    presets: PRESETS,
    build: run::build::<FloodMax>,
};

const FLOODING: &str = "flooding";

const PRESETS: &[Preset] = &[
    Preset {
        id: "floodmax-grid",
        title: k::FLOODMAX_PRESET_GRID_TITLE,
        hint: k::FLOODMAX_PRESET_GRID_HINT,
        json: r#"{"algorithm":"floodmax","nodes":[12,3,41,7,25,9,38,16,5,30,21,44,14,2,33,19],"seed":31,"network":{"model":"rounds"},"topology":{"generate":"grid","rows":4,"cols":4}}"#,
        leaders: &[44],
        // Pins FloodMax on a 4×4 grid: diam 6, |E| 24, so 6·48 = 288 MAX in 6 rounds.
        golden: "ae7b681582ce1e0f",
    },
    Preset {
        id: "floodmax-tree",
        title: k::FLOODMAX_PRESET_TREE_TITLE,
        hint: k::FLOODMAX_PRESET_TREE_HINT,
        json: r#"{"algorithm":"floodmax","nodes":[8,15,4,23,11,2,19,6,30,13],"seed":31,"network":{"model":"rounds"},"topology":{"generate":"tree","fanout":2}}"#,
        leaders: &[30],
        // Pins FloodMax on a binary tree of 10: diam 5, |E| 9, so 5·18 = 90 MAX.
        golden: "752871c5b7bbfb81",
    },
];

impl FloodMax {
    fn from_params(cfg: &Config, params: &Params) -> Result<Self, ScenarioError> {
        let p = ParamReader::new(params, &["diameter"])?;
        let diam = match p.uint("diameter")? {
            Some(0) if cfg.n() > 1 => {
                return Err(ScenarioError::new("params.diameter", "must be at least 1 on more than one node"))
            }
            Some(d) => d.min(u32::MAX as u64) as u32,
            None => diameter(cfg),
        };
        Ok(FloodMax { diam })
    }
}

/// The network's diameter in hops (its graph's, or 1 on the complete network).
pub fn diameter(cfg: &Config) -> u32 {
    let n = cfg.n();
    let mut diam = 0;
    for s in 0..n {
        let mut d = vec![u32::MAX; n];
        d[s] = 0;
        let mut queue = std::collections::VecDeque::from([s]);
        while let Some(u) = queue.pop_front() {
            for v in cfg.neighbours(cfg.ids[u]) {
                let j = cfg.position(v).unwrap_or(u);
                if d[j] == u32::MAX {
                    d[j] = d[u] + 1;
                    queue.push_back(j);
                }
            }
        }
        diam = diam.max(d.iter().copied().filter(|&x| x != u32::MAX).max().unwrap_or(0));
    }
    diam
}

#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct State {
    pub me: NodeId,
    /// The largest id seen.
    pub max: NodeId,
    /// The neighbour `max` came from (`None`: its own).
    pub parent: Option<NodeId>,
    /// The round whose messages it is gathering (1 ..= diam), once started.
    pub round: u32,
    /// MAX messages of `round` heard, and of the round after (a neighbour one round ahead).
    pub heard: u32,
    pub heard_next: u32,
    /// The leader, once `diam` rounds are over.
    pub decided: Option<NodeId>,
    /// Lost its rounds in a crash.
    pub out: bool,
}

#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum Msg {
    Max { value: NodeId, round: u32 },
}

kinds! {
    Msg;
    Msg::Max { .. } => Kind::new("MAX", "M", Visual::Request, k::FLOODMAX_KIND_MAX),
}

impl Message for Msg {
    fn label(&self) -> String {
        match self {
            Msg::Max { value, round } => format!("MAX({value}, r{round})"),
        }
    }
}

pub use crate::timers::NoTimer as Timer;

type C<'a> = Ctx<'a, Msg, Timer>;

impl FloodMax {
    /// Sends round `s.round`'s MAX to every neighbour.
    fn flood(&self, s: &State, ctx: &mut C) {
        for to in ctx.cfg.neighbours(ctx.me) {
            ctx.send(to, Msg::Max { value: s.max, round: s.round });
        }
    }

    /// Ends the rounds heard in full: the next round's MAX, or after `diam` rounds the decision.
    fn close_rounds(&self, s: &mut State, ctx: &mut C) {
        let degree = ctx.cfg.neighbours(ctx.me).len() as u32;
        while s.decided.is_none() && s.heard >= degree {
            if s.round >= self.diam {
                s.decided = Some(s.max);
                if s.max == ctx.me {
                    ctx.note(k::floodmax_note_lead(ctx.me, self.diam as u64));
                } else {
                    ctx.note(k::floodmax_note_follow(ctx.me, s.max, self.diam as u64));
                }
                return;
            }
            s.round += 1;
            s.heard = s.heard_next;
            s.heard_next = 0;
            ctx.note(k::floodmax_note_next(ctx.me, s.max as u64, s.round as u64));
            self.flood(s, ctx);
        }
    }
}

impl Protocol for FloodMax {
    type State = State;
    type Msg = Msg;
    type Timer = Timer;
    const VIEW_FIELDS: &'static [&'static str] = &["leader"];

    fn new(cfg: &Config, params: &Params) -> Result<Self, ScenarioError> {
        FloodMax::from_params(cfg, params)
    }

    /// Every node starts round 1 together, at boot.
    fn init(&self, ctx: &mut C) -> State {
        let mut s = State {
            me: ctx.me,
            max: ctx.me,
            parent: None,
            round: 1,
            heard: 0,
            heard_next: 0,
            decided: None,
            out: false,
        };
        if self.diam == 0 || ctx.cfg.neighbours(ctx.me).is_empty() {
            s.decided = Some(ctx.me);
        } else {
            self.flood(&s, ctx);
        }
        s
    }

    fn start(&self, s: &mut State, ctx: &mut C) {
        ctx.note(k::floodmax_note_start(ctx.me, s.round as u64));
    }

    fn on_message(&self, s: &mut State, from: NodeId, msg: Msg, ctx: &mut C) {
        let Msg::Max { value, round } = msg;
        let me = ctx.me;
        if s.out || s.decided.is_some() || (round != s.round && round != s.round + 1) {
            ctx.note(k::floodmax_note_stale(me, value as u64, round as u64));
            return;
        }
        if round == s.round {
            s.heard += 1;
        } else {
            s.heard_next += 1;
        }
        if value > s.max {
            ctx.note(k::floodmax_note_adopt(me, value as u64, from));
            s.max = value;
            s.parent = Some(from);
        } else {
            ctx.note(k::floodmax_note_keep(me, value as u64, s.max as u64));
        }
        self.close_rounds(s, ctx);
    }

    fn on_timer(&self, _s: &mut State, timer: Timer, _ctx: &mut C) {
        match timer {}
    }

    fn recover(&self, _crashed: &State, ctx: &mut C) -> State {
        ctx.note(k::floodmax_note_recover(ctx.me));
        State { me: ctx.me, max: ctx.me, parent: None, round: 0, heard: 0, heard_next: 0, decided: None, out: true }
    }

    fn view(&self, s: &State) -> View {
        let role = match s.decided {
            Some(l) if l == s.me => LEADER,
            Some(_) => FOLLOWER,
            None => FLOODING,
        };
        View { role, leader: s.decided, ..View::default() }
            .with(Decoration::Tint(s.max))
            .with(s.parent.map(Decoration::Parent))
    }

    fn inspect(&self, s: &State) -> Vec<Field> {
        vec![
            Field::new("elected", k::INSPECT_ELECTED, V::node(s.decided)),
            Field::new("largest_id_seen", k::INSPECT_LARGEST_ID_SEEN, V::Node(s.max)),
            Field::new("round", k::INSPECT_ROUND, V::worded(s.round as u64, format!("{} / {}", s.round, self.diam))),
            Field::new("parent", k::INSPECT_PARENT, V::node(s.parent)),
        ]
    }
}

#[cfg(all(test, holds = "graphs"))]
mod tests {
    use crate::protocols::testkit::{preset, run, sent};
    use serde_json::json;

    #[test]
    fn the_grid_preset_floods_diam_rounds_over_every_link_both_ways() {
        let e = preset("floodmax-grid");
        assert_eq!(sent(&e, "MAX"), 6 * 2 * 24, "diam 6, |E| 24");
        assert_eq!(e.frame().agreement, Some(44));
        assert_eq!(e.frame().round, Some(6), "decided at the start of round diam");
    }

    #[test]
    fn a_bound_below_the_diameter_can_elect_two_leaders_on_a_line() {
        let v = json!({"algorithm": "floodmax", "nodes": [9, 1, 2, 3, 8], "network": {"model": "rounds"},
                       "topology": "line", "params": {"diameter": 1}});
        let e = run(&v);
        assert_eq!(e.frame().leaders, vec![8, 9], "each end sees only its own side");
        assert_eq!(sent(&e, "MAX"), 2 * 4);
    }

    #[test]
    fn without_a_topology_it_runs_on_the_complete_network_in_one_round() {
        let v = json!({"algorithm": "floodmax", "nodes": [4, 9, 2, 7], "network": {"latency": [1, 5]}});
        let e = run(&v);
        assert_eq!(sent(&e, "MAX"), 12, "N(N − 1)");
        assert_eq!(e.frame().agreement, Some(9));
    }
}
