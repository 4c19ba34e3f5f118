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
//! * **Repeated elections** (an extension; LeLann's paper runs one election): ids carry an
//!   election *round*, shared by the whole ring. A node starting an election (a `start`, a
//!   suspected leader, a retry, a recovery) uses its round + 1; a node that sees an id of a newer
//!   round joins that round (sending its own id first), and ids of an older round are dropped.
//!   So ids of two elections never mix, and the FIFO argument holds within a round: a node whose
//!   own id returns has seen every id of its round. The round survives a crash.
//! * **Failure detection** (only with `heartbeats`): the leader sends HEARTBEAT directly to every
//!   node (the detector is outside the ring); a node that misses it for `heartbeats.timeout`
//!   starts an election. A crashed node breaks the ring until it recovers; a recovered node
//!   starts an election. An id lost on the way (at a crashed node, or by the network) would leave
//!   its owner electing forever, so with heartbeats a node that is still electing after
//!   `3·N·latency_max + heartbeats.timeout` ticks starts a new round (the `RETRY` timer, as in
//!   Chang-Roberts here); the new round number makes the old copies harmless.
//! * Links must be FIFO (`network.fifo`, on by default); without it a node may decide on part of
//!   the ring.
//!
//! No parameters.

use crate::algorithm::Algorithm;
use crate::error::ScenarioError;
use crate::meta::{single_leader, Faults, Formula, Kind, Preset, Text, Topology, Visual, CANDIDATE_ROLE, FOLLOWER_ROLE, LEADER_ROLE};
use crate::protocol::{fmt_node, ParamReader, Config, Ctx, Message, Params, Protocol, TimerKey, View, CANDIDATE, FOLLOWER, LEADER};
use crate::run;
use crate::{NodeId, Time};

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
            "Every id goes all the way round: 6 × 6 = N² = 36 ELECTION messages. Chang-Roberts, with the same ring and the same starters, sends 13 ELECTION (+ 6 ELECTED): smaller ids die early there.",
            "每个 id 都绕环一整周：6 × 6 = N² = 36 条 ELECTION。同样的环、同样的发起者，Chang-Roberts 只需 13 条 ELECTION（另加 6 条 ELECTED）：小 id 在那里会提前消亡。",
        ),
        json: r#"{"algorithm":"lelann","nodes":[80,6,12,5,32,3],"seed":425,
                  "schedule":[{"at":0,"start":80},{"at":0,"start":6},{"at":0,"start":12},{"at":0,"start":5},{"at":0,"start":32},{"at":0,"start":3}]}"#,
        leaders: &[80],
        golden: "4b54afd48f321d58",
    }],
    build: run::build::<LeLann>,
};

// Narration: one sentence per rule, in both languages. `{0}` is the acting node.
const N_START: Text = Text::new(
    "N{0} starts an election: it sends ELECTION({0}) with its own id to its successor N{1}; this id will travel the whole ring.",
    "N{0} 发起选举：把携带自己 id 的 ELECTION({0}) 发给后继 N{1}；这个 id 将绕环一整周。",
);
const N_START_BUSY: Text = Text::new(
    "N{0} is already taking part in an election, so it does not start another.",
    "N{0} 已经在参与一次选举，因此不再另行发起。",
);
const N_WOKEN: Text = Text::new(
    "N{0} is woken by ELECTION({1}): it sends its own id {0} first, then passes {1} on. Sending its own id first is what lets every node decide once its id comes back.",
    "N{0} 被 ELECTION({1}) 唤醒：它先发出自己的 id {0}，再转发 {1}。先发自己的 id，正是每个节点能在自己的 id 回来时做出判断的前提。",
);
const N_WOKEN_AGAIN: Text = Text::new(
    "N{0} took N{2} for the leader, but ELECTION({1}) means a new election: N{0} sends its own id {0} first, then passes {1} on.",
    "N{0} 原以为 N{2} 是领导者，但 ELECTION({1}) 说明新的选举开始了：N{0} 先发出自己的 id {0}，再转发 {1}。",
);
const N_WOKEN_LEADER: Text = Text::new(
    "N{0} was leading, but ELECTION({1}) means a new election: N{0} sends its own id {0} first, then passes {1} on.",
    "N{0} 原本是领导者，但 ELECTION({1}) 说明新的选举开始了：N{0} 先发出自己的 id {0}，再转发 {1}。",
);
const N_FORWARD: Text = Text::new(
    "N{0} records id {1} ({2} ids seen so far) and passes it on: LeLann swallows nothing, which is why an election costs N² messages.",
    "N{0} 记下 id {1}（目前已见过 {2} 个 id）并继续转发：LeLann 不吞掉任何 id，所以一次选举需要 N² 条消息。",
);
const N_DECIDE: Text = Text::new(
    "N{0}'s own id is back and N{0} has seen all {1} ids: on FIFO links every other id must arrive first, because each node sends its own id before passing others on. So N{0} knows that N{2}, the largest, leads.",
    "N{0} 的 id 回来了，它已见齐全部 {1} 个 id：在先进先出的链路上，其他 id 必然先到，因为每个节点都先发自己的 id 再转发别人的。所以 N{0} 知道最大的 N{2} 是领导者。",
);
const N_DECIDE_SELF: Text = Text::new(
    "N{0}'s own id is back and N{0} has seen all {1} ids: on FIFO links every other id must arrive first, because each node sends its own id before passing others on. Its own id is the largest, so N{0} leads.",
    "N{0} 的 id 回来了，它已见齐全部 {1} 个 id：在先进先出的链路上，其他 id 必然先到，因为每个节点都先发自己的 id 再转发别人的。它自己的 id 最大，所以 N{0} 是领导者。",
);
const N_DECIDE_PART: Text = Text::new(
    "N{0}'s own id is back, but N{0} has seen only {1} of the {2} ids (the others were lost on the way, at a crashed node or in the network, or have not arrived yet), so it decides on part of the ring.",
    "N{0} 的 id 回来了，但它只见到了 {2} 个 id 中的 {1} 个（其余的在途中丢失——丢在崩溃的节点处或网络中——或尚未到达），所以只能根据环的一部分做出判断。",
);
const N_PICK: Text = Text::new(
    "N{0} takes the largest id it saw: N{1} leads.",
    "N{0} 取它见到的最大 id：N{1} 是领导者。",
);
const N_PICK_SELF: Text = Text::new(
    "N{0}'s own id is the largest it saw, so N{0} leads.",
    "N{0} 自己的 id 是它见到的最大值，所以 N{0} 是领导者。",
);
const N_OLD_ROUND: Text = Text::new(
    "N{0} drops a copy of its own id from its old round {1}: only a copy from round {2} can end its current election.",
    "N{0} 丢弃自己 id 在旧轮次 {1} 中的副本：只有第 {2} 轮的副本才能结束它当前的选举。",
);
const N_DONE: Text = Text::new(
    "N{0} has already decided this election; the extra copy of its own id is dropped.",
    "N{0} 已经对本次选举做出判断；多出来的自己 id 的副本被丢弃。",
);
const N_SUSPECT: Text = Text::new(
    "N{0} heard no heartbeat from leader N{1} for {2} ticks: it suspects N{1} has crashed and starts a new election with its own id.",
    "N{0} 已有 {2} 个时间单位没有收到领导者 N{1} 的心跳：它怀疑 N{1} 已崩溃，于是用自己的 id 发起新的选举。",
);
const N_BEAT: Text = Text::new(
    "N{0} leads: it sends HEARTBEAT directly to every node, outside the ring.",
    "N{0} 是领导者：它不经过环，直接向每个节点发送 HEARTBEAT（心跳）。",
);
const N_ALIVE: Text = Text::new("N{0} hears N{1}'s heartbeat: its leader is alive.", "N{0} 收到 N{1} 的心跳：领导者仍然存活。");
const N_BEAT_NO_LEADER: Text = Text::new(
    "N{0} is in an election and knows no leader yet, so it ignores N{1}'s heartbeat.",
    "N{0} 正在选举中，尚不知道领导者是谁，所以忽略 N{1} 的心跳。",
);
const N_BEAT_RIVAL: Text = Text::new(
    "N{0} believes it leads itself, so it ignores N{1}'s heartbeat.",
    "N{0} 认为自己才是领导者，所以忽略 N{1} 的心跳。",
);
const N_BEAT_OTHER: Text = Text::new(
    "N{0} follows N{2}, not N{1}, so it ignores N{1}'s heartbeat.",
    "N{0} 跟随的是 N{2} 而不是 N{1}，所以忽略 N{1} 的心跳。",
);
const N_STALE: Text = Text::new(
    "N{0} drops id {1} of the finished round {2}: a newer election is under way, and mixing rounds would break the rule that every id of a round arrives before one's own.",
    "N{0} 丢弃第 {2} 轮（已结束）的 id {1}：新的选举正在进行，混入旧轮次的 id 会破坏“本轮所有 id 都先于自己的 id 到达”这一规则。",
);
const N_RETRY: Text = Text::new(
    "N{0}'s own id has not come back within {1} ticks: it was lost on the way (a crashed node or the network), so N{0} starts round {2} with a fresh copy.",
    "N{0} 的 id 在 {1} 个时间单位内没有回来：它在途中丢失了（节点崩溃或网络丢包），所以 N{0} 以第 {2} 轮重新发出自己的 id。",
);
const N_RECOVER: Text = Text::new(
    "N{0} recovers knowing no leader and starts a new election, round {1}: its round counter survived the crash, so an old copy of its id cannot end this round.",
    "N{0} 恢复后不知道领导者是谁，于是发起新的选举（第 {1} 轮）：轮次计数在崩溃后依然保留，所以旧的 id 副本无法结束这一轮。",
);

#[derive(Clone, Debug)]
pub struct LeLann {
    /// Ticks after which an unfinished election starts a new round (with heartbeats only).
    retry: Time,
}

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

kinds! {
    Msg;
    Msg::Election { .. } => Kind::new("ELECTION", "E", Visual::Request, Text::new("carries one node's id all the way round the ring", "携带某个节点的 id 绕环一整周")),
    Msg::Heartbeat => Kind::new("HEARTBEAT", "hb", Visual::Heartbeat, Text::new("the leader's periodic sign of life, sent directly", "领导者直接发送的定期存活信号（心跳）")),
}

impl Message for Msg {
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
    Retry,
}

impl TimerKey for Timer {
    fn name(&self) -> &'static str {
        match self {
            Timer::LeaderTimeout => "LEADER_TIMEOUT",
            Timer::Heartbeat => "HEARTBEAT",
            Timer::Retry => "RETRY",
        }
    }
}

type C<'a> = Ctx<'a, Msg, Timer>;

impl LeLann {
    /// Starts (or joins) election round `round`: sends its own id first.
    fn begin(&self, s: &mut State, ctx: &mut C, round: u64) {
        s.round = round;
        s.electing = true;
        s.seen = vec![ctx.me];
        s.leader = None;
        ctx.cancel_timer(Timer::LeaderTimeout);
        ctx.cancel_timer(Timer::Heartbeat);
        let succ = ctx.cfg.successor(ctx.me);
        ctx.send(succ, Msg::Election { id: ctx.me, round: s.round });
        if ctx.cfg.heartbeats.is_some() {
            ctx.set_timer_after(Timer::Retry, self.retry);
        }
    }

    fn decide(&self, s: &mut State, ctx: &mut C) {
        s.electing = false;
        ctx.cancel_timer(Timer::Retry);
        s.leader = s.seen.last().copied();
        if s.leader == Some(ctx.me) {
            ctx.arm_heartbeat(Timer::Heartbeat);
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

    fn new(cfg: &Config, params: &Params) -> Result<Self, ScenarioError> {
        ParamReader::new(params, &[])?;
        let retry = 3 * cfg.n() as Time * cfg.latency.1 + cfg.heartbeats.map_or(0, |h| h.timeout);
        Ok(LeLann { retry })
    }

    fn init(&self, ctx: &mut C) -> State {
        let mut s = State { me: ctx.me, round: 0, electing: false, seen: vec![], leader: ctx.cfg.initial_leader };
        if let Some(hb) = ctx.cfg.heartbeats {
            match s.leader {
                Some(l) if l == ctx.me => ctx.set_timer_after(Timer::Heartbeat, hb.interval),
                Some(_) => ctx.watch_leader(Timer::LeaderTimeout, s.leader),
                None => self.begin(&mut s, ctx, 1),
            }
        }
        s
    }

    fn start(&self, s: &mut State, ctx: &mut C) {
        if !s.electing {
            ctx.note(&N_START, &[ctx.me as u64, ctx.cfg.successor(ctx.me) as u64]);
            self.begin(s, ctx, s.round + 1);
        } else {
            ctx.note(&N_START_BUSY, &[ctx.me as u64]);
        }
    }

    fn on_message(&self, s: &mut State, from: NodeId, msg: Msg, ctx: &mut C) {
        let me = ctx.me as u64;
        match msg {
            Msg::Election { id, round } if id == ctx.me => {
                // Its own id came back: every other id has passed (FIFO). An old round's copy
                // is dropped.
                if s.electing && round == s.round {
                    self.decide(s, ctx);
                    let (seen, n) = (s.seen.len() as u64, ctx.cfg.n() as u64);
                    let leader = s.leader.map_or(0, u64::from);
                    if seen == n {
                        match s.leader {
                            Some(l) if l == ctx.me => ctx.note(&N_DECIDE_SELF, &[me, seen]),
                            _ => ctx.note(&N_DECIDE, &[me, seen, leader]),
                        }
                    } else {
                        ctx.note(&N_DECIDE_PART, &[me, seen, n]);
                        match s.leader {
                            Some(l) if l == ctx.me => ctx.note(&N_PICK_SELF, &[me]),
                            _ => ctx.note(&N_PICK, &[me, leader]),
                        }
                    }
                } else if round != s.round {
                    ctx.note(&N_OLD_ROUND, &[me, round, s.round]);
                } else {
                    ctx.note(&N_DONE, &[me]);
                }
            }
            Msg::Election { id, round } if round < s.round => {
                ctx.note(&N_STALE, &[me, id as u64, round]);
            }
            Msg::Election { id, round } => {
                if round > s.round {
                    match s.leader {
                        Some(l) if l == ctx.me => ctx.note(&N_WOKEN_LEADER, &[me, id as u64]),
                        Some(l) => ctx.note(&N_WOKEN_AGAIN, &[me, id as u64, l as u64]),
                        None => ctx.note(&N_WOKEN, &[me, id as u64]),
                    }
                    self.begin(s, ctx, round);
                    if let Err(at) = s.seen.binary_search(&id) {
                        s.seen.insert(at, id);
                    }
                } else {
                    if let Err(at) = s.seen.binary_search(&id) {
                        s.seen.insert(at, id);
                    }
                    ctx.note(&N_FORWARD, &[me, id as u64, s.seen.len() as u64]);
                }
                let succ = ctx.cfg.successor(ctx.me);
                ctx.send(succ, Msg::Election { id, round });
            }
            Msg::Heartbeat => {
                if s.leader == Some(from) {
                    ctx.note(&N_ALIVE, &[me, from as u64]);
                    ctx.watch_leader(Timer::LeaderTimeout, s.leader);
                } else {
                    match s.leader {
                        Some(l) if l == ctx.me => ctx.note(&N_BEAT_RIVAL, &[me, from as u64]),
                        Some(l) => ctx.note(&N_BEAT_OTHER, &[me, from as u64, l as u64]),
                        None => ctx.note(&N_BEAT_NO_LEADER, &[me, from as u64]),
                    }
                }
            }
        }
    }

    fn on_timer(&self, s: &mut State, timer: Timer, ctx: &mut C) {
        match timer {
            Timer::LeaderTimeout => {
                if let Some(l) = s.leader.filter(|&l| l != ctx.me && !s.electing) {
                    ctx.note(&N_SUSPECT, &[ctx.me as u64, l as u64, ctx.cfg.heartbeats.map_or(0, |h| h.timeout)]);
                    self.begin(s, ctx, s.round + 1);
                }
            }
            Timer::Retry => {
                if s.electing {
                    ctx.note(&N_RETRY, &[ctx.me as u64, self.retry, s.round + 1]);
                    s.electing = false;
                    self.begin(s, ctx, s.round + 1);
                }
            }
            Timer::Heartbeat => {
                if s.leader == Some(ctx.me) {
                    ctx.heartbeat(Timer::Heartbeat, &N_BEAT, &[ctx.me as u64], Msg::Heartbeat);
                }
            }
        }
    }

    fn recover(&self, crashed: &State, ctx: &mut C) -> State {
        let mut s = State { me: ctx.me, round: crashed.round, electing: false, seen: vec![], leader: None };
        ctx.note(&N_RECOVER, &[ctx.me as u64, crashed.round + 1]);
        self.begin(&mut s, ctx, crashed.round + 1);
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
    use crate::protocols::testkit::{sent, random_ring as ring};
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

#[cfg(test)]
mod narration_tests {
    use crate::meta::Lang;
    use crate::{Engine, NodeId, Scenario};

    fn delivery(e: &Engine, from: NodeId, to: NodeId, label: &str) -> u64 {
        let tail = format!("N{from} → N{to} {label}");
        (1..=e.cursor())
            .find(|&s| e.step_info(s).is_some_and(|i| i.event == "deliver" && i.text.ends_with(&tail)))
            .unwrap_or_else(|| panic!("no delivery {tail}"))
    }

    #[test]
    fn a_returning_id_explains_why_the_node_knows_every_id() {
        let mut e = Engine::new(super::ALGORITHM.presets[0].scenario()).unwrap();
        e.run_to_end();
        let step = delivery(&e, 3, 80, "ELECTION(80)");
        let en = e.narrate(step, Lang::En).unwrap();
        assert!(en.starts_with("N80's own id is back and N80 has seen all 6 ids: on FIFO links"), "{en}");
        assert!(en.contains("so N80 leads"), "{en}");
        let zh = e.narrate(step, Lang::Zh).unwrap();
        assert!(zh.contains("先进先出") && zh.contains("全部 6 个 id"), "{zh}");
        let en = e.narrate(delivery(&e, 80, 6, "ELECTION(6)"), Lang::En).unwrap();
        assert!(en.starts_with("N6's own id is back and N6 has seen all 6 ids") && en.contains("N6 knows that N80, the largest, leads"), "{en}");
        let en = e.narrate(delivery(&e, 80, 6, "ELECTION(80)"), Lang::En).unwrap();
        assert!(en.starts_with("N6 records id 80") && en.contains("N²"), "{en}");
    }

    #[test]
    fn a_node_woken_by_a_foreign_id_sends_its_own_first() {
        let v = serde_json::json!({"algorithm": "lelann", "nodes": [80, 6, 12, 5, 32, 3], "seed": 1, "schedule": [{"at": 0, "start": 6}]});
        let mut e = Engine::new(Scenario::from_value(&v).unwrap()).unwrap();
        e.run_to_end();
        let en = e.narrate(delivery(&e, 6, 12, "ELECTION(6)"), Lang::En).unwrap();
        assert!(en.starts_with("N12 is woken by ELECTION(6): it sends its own id 12 first, then passes 6 on."), "{en}");
    }
}

#[cfg(test)]
mod liveness_tests {
    use crate::{Engine, Scenario};
    use serde_json::json;

    /// The leader crashes and recovers: ids lost at the crashed node are sent again, so every
    /// node ends up naming the same leader.
    #[test]
    fn ids_lost_at_a_crashed_node_are_sent_again_and_everyone_agrees() {
        let v = json!({"algorithm": "lelann", "nodes": [80, 6, 12, 5, 32, 3], "seed": 1, "initial_leader": 80,
                       "heartbeats": {"interval": 3, "timeout": 12},
                       "schedule": [{"at": 100, "crash": 80}, {"at": 200, "recover": 80}], "stop": {"max_time": 800}});
        let mut e = Engine::new(Scenario::from_value(&v).unwrap()).unwrap();
        e.run_to_end();
        let f = e.frame();
        assert_eq!(f.agreement, Some(80), "everyone names N80 again: {:?}", f.nodes.iter().map(|n| (n.id, n.view.leader)).collect::<Vec<_>>());
    }
}
