//! **LeLann's ring election** (G. LeLann, "Distributed systems — towards a formal approach",
//! IFIP Congress 1977): the naive ring algorithm that Chang and Roberts improved.
//!
//! Nodes are listed clockwise; each sends only to its successor, over FIFO links. A node that
//! starts an election sends ELECTION carrying its own id. Every node forwards every id it
//! receives, except its own, and remembers it; a node woken by a foreign id first sends its own
//! (so every node takes part). When a node's own id comes back it has seen every id: FIFO links
//! and "own id first" put every other id ahead of its own on the way round. It then knows the
//! maximum, which leads. Nothing is swallowed, so every id makes the full trip: exactly N²
//! ELECTION messages per election, against Chang-Roberts' N·H_N on average.
//!
//! * **No announcement**: every node computes the leader itself, as in LeLann's paper.
//! * **Repeated elections**: a node that already knows a leader and receives an id starts a new
//!   election (its round number goes up, so an old copy of its own id cannot end the new round).
//!   The round counter survives a crash so that this holds across recoveries.
//! * **Failure detection** (only with `heartbeats`): the leader sends HEARTBEAT directly to every
//!   node (the detector is outside the ring); a node that misses it for `heartbeats.timeout`
//!   starts an election. A crashed node breaks the ring until it recovers; a recovered node
//!   starts an election.
//! * Links must be FIFO (`network.fifo`, on by default); without it a node may decide on part of
//!   the ring.
//!
//! No parameters.

use crate::algorithm::Algorithm;
use crate::error::ScenarioError;
use crate::meta::{single_leader, Faults, Formula, Kind, Preset, Text, Topology, Visual, CANDIDATE_ROLE, FOLLOWER_ROLE, LEADER_ROLE};
use crate::protocol::{fmt_node, read_params, Config, Ctx, Message, Params, Protocol, TimerKey, View, CANDIDATE, FOLLOWER, LEADER};
use crate::run;
use crate::NodeId;
use serde::Deserialize;

pub const ALGORITHM: Algorithm = Algorithm {
    id: "lelann",
    title: Text::new("LeLann ring", "LeLann 环选举"),
    citation: "G. LeLann, Distributed systems — towards a formal approach, IFIP Congress 1977",
    summary: Text::new(
        "Every id travels the whole ring and every node collects them all; when its own id returns, a node knows the maximum, which leads.",
        "每个 id 都绕环一整周，每个节点收集全部 id；当自己的 id 回来时，节点就知道了最大者，由它担任领导者。",
    ),
    card: Text::new(
        "The naive ring election that Chang and Roberts improved. The nodes form a one-way ring with FIFO links.\n\n\
         • A node that starts (or is woken by someone else's id) sends ELECTION with its own id.\n\
         • Every node passes on every id except its own, and remembers it.\n\
         • When its own id comes back, a node has seen every id: the largest one leads. No announcement is needed.\n\n\
         What to watch: nothing is ever swallowed — each of the N ids makes the full trip, so an election costs exactly N² messages.",
        "Chang 与 Roberts 改进之前的朴素环选举。节点组成单向环，链路先进先出（FIFO）。\n\n\
         • 发起的节点（或被他人 id 唤醒的节点）发送携带自己 id 的 ELECTION。\n\
         • 每个节点转发除自己之外的所有 id，并记录下来。\n\
         • 自己的 id 回来时，节点已见过所有 id：最大者成为领导者，无需再宣布。\n\n\
         观察要点：没有任何 id 被吞掉——N 个 id 都要绕环一整周，因此一次选举恰好需要 N² 条消息。",
    ),
    topology: Topology::Ring,
    kinds: KINDS,
    roles: &[LEADER_ROLE, FOLLOWER_ROLE, CANDIDATE_ROLE],
    formulas: &[Formula {
        name: "N²",
        applies: Text::new("one election: each of the N ids travels the whole ring", "一次选举：N 个 id 各自绕环一整周"),
        counts: &["ELECTION"],
        value: |n| n * n,
    }],
    properties: &[single_leader(Faults::CrashStop)],
    presets: &[Preset {
        id: "lelann-all",
        title: Text::new("LeLann: every node starts", "LeLann：所有节点都发起"),
        hint: Text::new(
            "Every id goes all the way round: 6 × 6 = N² = 36 ELECTION messages, against 17 or fewer for Chang-Roberts on the same ring.",
            "每个 id 都绕环一整周：6 × 6 = N² = 36 条 ELECTION，而同一个环上 Chang-Roberts 至多 17 条。",
        ),
        json: r#"{"algorithm":"lelann","nodes":[80,6,12,5,32,3],"seed":425,
                  "schedule":[{"at":0,"start":80},{"at":0,"start":6},{"at":0,"start":12},{"at":0,"start":5},{"at":0,"start":32},{"at":0,"start":3}]}"#,
        leaders: &[80],
        golden: "4b54afd48f321d58",
    }],
    build: run::build::<LeLann>,
};

#[derive(Deserialize, Default)]
#[serde(deny_unknown_fields)]
struct NoParams {}

#[derive(Clone, Debug)]
pub struct LeLann;

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct State {
    pub me: NodeId,
    /// This node's election number; its ids carry it.
    pub round: u64,
    /// Taking part in an election that has not decided yet.
    pub electing: bool,
    /// Ids seen in the current election, ascending (its own included).
    pub seen: Vec<NodeId>,
    pub leader: Option<NodeId>,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Msg {
    Election { id: NodeId, round: u64 },
    Heartbeat,
}

pub const KINDS: &[Kind] = &[
    Kind::new("ELECTION", "E", Visual::Request, Text::new("carries one node's id all the way round the ring", "携带某个节点的 id 绕环一整周")),
    Kind::new("HEARTBEAT", "hb", Visual::Heartbeat, Text::new("the leader's periodic sign of life, sent directly", "领导者直接发送的定期存活信号（心跳）")),
];

impl Message for Msg {
    fn kind(&self) -> usize {
        match self {
            Msg::Election { .. } => 0,
            Msg::Heartbeat => 1,
        }
    }
    fn label(&self) -> String {
        match self {
            Msg::Election { id, .. } => format!("ELECTION({id})"),
            Msg::Heartbeat => "HEARTBEAT".into(),
        }
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Timer {
    LeaderTimeout,
    Heartbeat,
}

impl TimerKey for Timer {
    fn name(&self) -> &'static str {
        match self {
            Timer::LeaderTimeout => "LEADER_TIMEOUT",
            Timer::Heartbeat => "HEARTBEAT",
        }
    }
}

type C<'a> = Ctx<'a, Msg, Timer>;

impl LeLann {
    fn begin(&self, s: &mut State, ctx: &mut C) {
        s.round += 1;
        s.electing = true;
        s.seen = vec![ctx.me];
        s.leader = None;
        ctx.cancel_timer(Timer::LeaderTimeout);
        ctx.cancel_timer(Timer::Heartbeat);
        let succ = ctx.cfg.successor(ctx.me);
        ctx.send(succ, Msg::Election { id: ctx.me, round: s.round });
    }

    fn decide(&self, s: &mut State, ctx: &mut C) {
        s.electing = false;
        s.leader = s.seen.last().copied();
        if s.leader == Some(ctx.me) {
            if let Some(hb) = ctx.cfg.heartbeats {
                ctx.set_timer_after(Timer::Heartbeat, hb.interval);
            }
        } else {
            ctx.watch_leader(Timer::LeaderTimeout, s.leader);
        }
    }
}

impl Protocol for LeLann {
    type State = State;
    type Msg = Msg;
    type Timer = Timer;
    const KINDS: &'static [Kind] = KINDS;

    fn new(_cfg: &Config, params: &Params) -> Result<Self, ScenarioError> {
        let _: NoParams = read_params(params)?;
        Ok(LeLann)
    }

    fn init(&self, ctx: &mut C) -> State {
        let mut s = State { me: ctx.me, round: 0, electing: false, seen: vec![], leader: ctx.cfg.initial_leader };
        if let Some(hb) = ctx.cfg.heartbeats {
            match s.leader {
                Some(l) if l == ctx.me => ctx.set_timer_after(Timer::Heartbeat, hb.interval),
                Some(_) => ctx.watch_leader(Timer::LeaderTimeout, s.leader),
                None => self.begin(&mut s, ctx),
            }
        }
        s
    }

    fn start(&self, s: &mut State, ctx: &mut C) {
        if !s.electing {
            self.begin(s, ctx);
        }
    }

    fn on_message(&self, s: &mut State, from: NodeId, msg: Msg, ctx: &mut C) {
        match msg {
            Msg::Election { id, round } if id == ctx.me => {
                // Its own id came back: every other id has passed (FIFO). An old round's copy
                // is dropped.
                if s.electing && round == s.round {
                    self.decide(s, ctx);
                }
            }
            Msg::Election { id, round } => {
                if !s.electing {
                    self.begin(s, ctx);
                }
                if let Err(at) = s.seen.binary_search(&id) {
                    s.seen.insert(at, id);
                }
                let succ = ctx.cfg.successor(ctx.me);
                ctx.send(succ, Msg::Election { id, round });
            }
            Msg::Heartbeat => {
                if s.leader == Some(from) {
                    ctx.watch_leader(Timer::LeaderTimeout, s.leader);
                }
            }
        }
    }

    fn on_timer(&self, s: &mut State, timer: Timer, ctx: &mut C) {
        match timer {
            Timer::LeaderTimeout => {
                if matches!(s.leader, Some(l) if l != ctx.me) && !s.electing {
                    self.begin(s, ctx);
                }
            }
            Timer::Heartbeat => {
                if s.leader == Some(ctx.me) {
                    ctx.broadcast(Msg::Heartbeat);
                    if let Some(hb) = ctx.cfg.heartbeats {
                        ctx.set_timer_after(Timer::Heartbeat, hb.interval);
                    }
                }
            }
        }
    }

    fn recover(&self, crashed: &State, ctx: &mut C) -> State {
        let mut s = State { me: ctx.me, round: crashed.round, electing: false, seen: vec![], leader: None };
        self.begin(&mut s, ctx);
        s
    }

    fn view(&self, s: &State) -> View {
        let role = if s.leader == Some(s.me) {
            LEADER
        } else if s.electing {
            CANDIDATE
        } else {
            FOLLOWER
        };
        View { role, leader: s.leader, ..View::default() }
    }

    fn inspect(&self, s: &State) -> Vec<(&'static str, String)> {
        let seen = s.seen.iter().map(|x| x.to_string()).collect::<Vec<_>>().join(", ");
        vec![
            ("leader", fmt_node(s.leader)),
            ("electing", s.electing.to_string()),
            ("round", s.round.to_string()),
            ("ids seen", if seen.is_empty() { "-".into() } else { seen }),
        ]
    }
}

#[cfg(test)]
mod tests {
    use crate::rng::Pcg32;
    use crate::{Engine, NodeId, Scenario};
    use serde_json::json;

    fn run(algorithm: &str, ring: &[NodeId], starters: &[NodeId], seed: u64, latency: [u64; 2]) -> Engine {
        let schedule: Vec<_> = starters.iter().map(|s| json!({"at": 0, "start": s})).collect();
        let v = json!({"algorithm": algorithm, "nodes": ring, "seed": seed, "network": {"latency": latency},
                       "schedule": schedule, "stop": {"max_steps": 10_000_000u64, "max_time": 1_000_000u64}});
        let mut e = Engine::new(Scenario::from_value(&v).unwrap()).unwrap();
        e.run_to_end();
        assert!(e.quiescent(), "{algorithm} on {ring:?} did not finish");
        e
    }

    fn sent(e: &Engine, kind: &str) -> u64 {
        e.metrics().by_kind.iter().find(|k| k.0 == kind).map_or(0, |k| k.1)
    }

    /// A random ring of `n` distinct ids.
    fn ring(r: &mut Pcg32, n: usize) -> Vec<NodeId> {
        let mut ids: Vec<NodeId> = (1..=n as NodeId * 3).collect();
        for i in (1..ids.len()).rev() {
            ids.swap(i, r.range_inclusive(0, i as u64) as usize);
        }
        ids.truncate(n);
        ids
    }

    #[test]
    fn every_node_starting_costs_exactly_n_squared_and_the_maximum_leads() {
        let mut r = Pcg32::new(1977, 1);
        for n in [2usize, 3, 5, 8, 13, 21, 34, 50, 64] {
            for trial in 0..3 {
                let ids = ring(&mut r, n);
                let e = run("lelann", &ids, &ids, trial, [1, 3]);
                assert_eq!(sent(&e, "ELECTION"), (n * n) as u64, "N = {n}, ring {ids:?}");
                let max = *ids.iter().max().unwrap();
                let f = e.frame();
                assert_eq!(f.leaders, vec![max], "N = {n}");
                assert_eq!(f.agreement, Some(max), "every node computed the maximum, N = {n}");
            }
        }
    }

    #[test]
    fn one_starter_wakes_everyone_and_still_costs_n_squared() {
        let ids = [80, 6, 12, 5, 32, 3];
        let e = run("lelann", &ids, &[6], 425, [1, 1]);
        assert_eq!(sent(&e, "ELECTION"), 36);
        assert_eq!(e.frame().agreement, Some(80));
    }

    #[test]
    fn the_same_winner_as_chang_roberts_on_the_same_ring() {
        let mut r = Pcg32::new(1979, 2);
        for trial in 0..40 {
            let n = r.range_inclusive(2, 40) as usize;
            let ids = ring(&mut r, n);
            let k = r.range_inclusive(1, n as u64) as usize;
            let starters = &ids[..k];
            let a = run("lelann", &ids, starters, trial, [1, 4]);
            let b = run("chang-roberts", &ids, starters, trial, [1, 4]);
            assert_eq!(a.frame().agreement, b.frame().agreement, "ring {ids:?}, starters {starters:?}");
            assert!(sent(&a, "ELECTION") >= sent(&b, "ELECTION"), "LeLann never sends fewer ELECTION messages");
        }
    }

    #[test]
    fn the_preset_on_the_classic_ring() {
        let p = super::ALGORITHM.presets[0];
        let mut e = Engine::new(p.scenario()).unwrap();
        e.run_to_end();
        assert_eq!(sent(&e, "ELECTION"), 36);
        assert_eq!((super::ALGORITHM.formulas[0].value)(6), 36);
        assert_eq!(e.frame().agreement, Some(80));
    }
}
