//! **Ring election with a live set**: the ring algorithm of the distributed-systems textbooks
//! (A. S. Tanenbaum and M. van Steen, *Distributed Systems: Principles and Paradigms*, Prentice
//! Hall, 2002; drawn as "the ring algorithm" in A. Petrov, *Database Internals*, O'Reilly, 2019),
//! in which the election message collects the ids of the nodes that are alive, and a node whose
//! successor does not answer skips to the one after it.
//!
//! Nodes are listed clockwise and know the whole ring. A node that starts an election sends
//! ELECTION carrying the list `[me]` to its successor. A node that receives an ELECTION appends
//! its own id and passes it on clockwise. When the message is back at its initiator it has
//! collected every live node in ring order (the *live set*); the initiator picks the highest id
//! in it as the leader and starts a second pass, COORDINATOR, which carries the leader and the
//! live set round the live nodes once, so that each of them learns the outcome.
//!
//! Readings chosen (where the textbook descriptions leave things open):
//!
//! * **"The successor does not answer"** is modelled by a per-hop acknowledgement. Every node
//!   that receives an ELECTION or a COORDINATOR answers its sender with ACK at once; the sender
//!   waits `ack_timeout` ticks (default `2·latency_max + 1`, just above a round trip), and if no
//!   ACK comes it takes that node for down and sends the same message to the next node round the
//!   ring. With a synchronous network (fixed latency bound, no loss) the timeout is exact: only
//!   crashed nodes are skipped. With loss, a lost ACK skips a live node and may duplicate the
//!   message; with a partition, each side skips the other side.
//! * **Several initiators** each run their own election, as in Tanenbaum and van Steen: both
//!   messages go round and both initiators announce; on a quiet ring they pick the same leader.
//!   An initiator knows its own message by the initiator id in it, and an election number
//!   (durable across a crash) tells the current election from an older one.
//! * **COORDINATOR** travels only along the live set it carries (the "members of the new ring"
//!   of the textbook), so a down node found by ELECTION is not tried again; it still uses ACKs,
//!   and skips a member that has gone down since. It stops when it is back at the initiator.
//! * **A lost initiator**: a node that cannot reach the initiator of the ELECTION it is passing
//!   on drops it (the election cannot finish without the initiator); with heartbeats the nodes
//!   that started elections start again after `retry` ticks.
//! * **Failure detection** (only with `heartbeats`): the leader sends HEARTBEAT directly to every
//!   node; a node that misses it for `heartbeats.timeout` starts an election. A recovered node
//!   starts an election. Starting an election forgets the old leader.
//!
//! Safety: **single leader only under crash-stop faults with a synchronous network.** Skipping
//! is what lets the ring elect without its crashed nodes, and it is also what splits the brain:
//! when a partition cuts the ring, each side skips the other and elects its own highest id, as
//! the textbooks warn. The `ring-live-set-partition` preset shows it. Under crash-stop the claim
//! rests on the timeout being exact (a node skipped is down for good, so a set that leaves out a
//! higher id means that id is dead) and on the scenario's initial leader, if any, being the
//! highest id: a lower initial leader keeps believing it leads until COORDINATOR reaches it.
//!
//! Message counts with one initiator, `L` of the `N` nodes live: ELECTION `N` (each live node
//! sends once, and each down node costs one unanswered try), COORDINATOR `L`, ACK `2L`. With
//! nobody down: 2N ELECTION + COORDINATOR, 4N with the ACKs.
//!
//! Parameters (`params`): `ack_timeout` (ticks a sender waits for ACK, default
//! `2·latency_max + 1`), `retry` (ticks after which an initiator whose election has not finished
//! starts again, with heartbeats only; default `2·N·(ack_timeout + latency_max) +
//! heartbeats.timeout`).

use crate::algorithm::Algorithm;
use crate::error::ScenarioError;
use crate::meta::{single_leader, Faults, Formula, Kind, Look, Preset, Role, Text, Topology, Visual, CANDIDATE_ROLE, FOLLOWER_ROLE, LEADER_ROLE};
use crate::protocol::{fmt_node, ParamReader, Config, Ctx, Message, Params, Protocol, TimerKey, View, CANDIDATE, FOLLOWER, LEADER};
use crate::run;
use crate::{NodeId, Time};

pub const ALGORITHM: Algorithm = Algorithm {
    id: "ring-live-set",
    title: Text::new("Ring with live set", "带存活集合的环选举"),
    citation: "A. S. Tanenbaum and M. van Steen, Distributed Systems: Principles and Paradigms, Prentice Hall, 2002 (the ring algorithm); as drawn in A. Petrov, Database Internals, O'Reilly, 2019",
    summary: Text::new(
        "The election message goes once round the ring collecting the ids of the live nodes, skipping any node that does not answer; back at its initiator, the highest id in the set is the leader, and a second pass announces it.",
        "选举消息沿环走一圈，收集存活节点的 id，跳过不应答的节点；回到发起者时，集合中最大的 id 即为领导者，再走第二圈宣布结果。",
    ),
    card: Text::new(
        "The nodes form a ring and each knows the whole ring, so it can skip a neighbour that is down.\n\n\
         • A node that suspects the leader sends ELECTION with the live set {itself} to its successor.\n\
         • Every node answers ACK to its sender, adds its own id to the live set and passes the message on clockwise.\n\
         • A node that gets no ACK in time takes its successor for crashed and sends the message to the next node instead.\n\
         • When the message is back at its initiator, the set holds every live node: the highest id leads. The initiator sends COORDINATOR round the live set so that everyone learns it.\n\n\
         What to watch: the set growing hop by hop, the skip round a crashed node, and what a partition does — each side skips the other and elects its own highest id: split brain.",
        "节点组成环，每个节点都知道整个环，因此可以跳过已崩溃的邻居。\n\n\
         • 怀疑领导者失效的节点向后继发送 ELECTION，存活集合里只有它自己。\n\
         • 每个节点向发送者回复 ACK，把自己的 id 加入存活集合，再顺时针转发。\n\
         • 若超时仍未收到 ACK，节点就认为后继已崩溃，改发给再下一个节点。\n\
         • 消息回到发起者时，集合中包含了所有存活节点：id 最大者成为领导者。发起者沿存活集合发送 COORDINATOR，让每个节点都知道结果。\n\n\
         观察要点：存活集合逐跳增长；绕过崩溃节点的跳转；以及网络分区的后果——每一侧都跳过另一侧，各自选出自己最大的 id：脑裂。",
    ),
    topology: Topology::Ring,
    kinds: KINDS,
    roles: &[
        LEADER_ROLE,
        FOLLOWER_ROLE,
        CANDIDATE_ROLE,
        Role::new("participant", Look::Participant, Text::new("added its id to an election, waiting for COORDINATOR", "已把自己的 id 加入选举，等待 COORDINATOR")),
    ],
    formulas: &[
        Formula {
            name: "2N",
            applies: Text::new(
                "one initiator, every node up: ELECTION once round, COORDINATOR once round (each down node saves one COORDINATOR)",
                "单个发起者且所有节点存活：ELECTION 绕一圈，COORDINATOR 绕一圈（每个崩溃节点少一条 COORDINATOR）",
            ),
            counts: &["ELECTION", "COORDINATOR"],
            value: |n| 2 * n,
        },
        Formula {
            name: "4N",
            applies: Text::new("the same, with one ACK for every hop", "同上，并计入每一跳的 ACK"),
            counts: &["ELECTION", "COORDINATOR", "ACK"],
            value: |n| 4 * n,
        },
    ],
    properties: &[single_leader(Faults::CrashStop)],
    presets: PRESETS,
    build: run::build::<RingLiveSet>,
};

const PRESETS: &[Preset] = &[
    Preset {
        id: "ring-live-set-skip",
        title: Text::new("Ring with live set: N6 failed, N3 starts", "带存活集合的环：N6 已崩溃，N3 发起"),
        hint: Text::new(
            "Leader N6 has crashed and N3 starts. Watch the live set grow {3} → {3,4} → {3,4,5}; N5 gets no ACK from N6 and skips to N1. Back at N3 the highest id, 5, leads and COORDINATOR goes round the five live nodes.",
            "领导者 N6 已崩溃，N3 发起选举。观察存活集合逐步增长 {3} → {3,4} → {3,4,5}；N5 等不到 N6 的 ACK，于是跳到 N1。回到 N3 时最大的 id 5 成为领导者，COORDINATOR 沿五个存活节点走一圈。",
        ),
        json: r#"{"algorithm":"ring-live-set","nodes":[1,2,3,4,5,6],"seed":425,"initial_leader":6,
                  "schedule":[{"at":0,"crash":6},{"at":1,"start":3}]}"#,
        leaders: &[5],
        golden: "a985e6219a67c1cc",
    },
    Preset {
        id: "ring-live-set-partition",
        title: Text::new("Ring with live set: a partition splits the brain", "带存活集合的环：分区导致脑裂"),
        hint: Text::new(
            "N6 leads and sends heartbeats. At t=10 the ring is cut into {1,2,3} and {4,5,6}: the left side stops hearing N6, skips the nodes it cannot reach, and elects N3. Two leaders.",
            "N6 是领导者并发送心跳。t=10 时环被分成 {1,2,3} 与 {4,5,6}：左侧收不到 N6 的心跳，跳过无法到达的节点，选出 N3。出现两个领导者。",
        ),
        json: r#"{"algorithm":"ring-live-set","nodes":[1,2,3,4,5,6],"seed":425,"initial_leader":6,
                  "heartbeats":{"interval":3,"timeout":12},
                  "schedule":[{"at":10,"partition":[[1,2,3],[4,5,6]]}],"stop":{"max_time":200}}"#,
        leaders: &[3, 6],
        golden: "fcbec37f5f5e289b",
    },
];

// Narration: one sentence per rule, in both languages. `{0}` is the acting node.
const N_START: Text = Text::new(
    "N{0} starts an election: it sends ELECTION with the live set {N{0}} to its successor N{1} and waits for an ACK.",
    "N{0} 发起选举：向后继 N{1} 发送 ELECTION，存活集合为 {N{0}}，并等待 ACK。",
);
const N_FORWARD: Text = Text::new(
    "N{0} answers ACK, adds itself to the live set of N{1}'s ELECTION and passes it on to N{2}.",
    "N{0} 回复 ACK，把自己加入 N{1} 发起的 ELECTION 的存活集合，并转发给 N{2}。",
);
const N_ACKED: Text = Text::new("N{0} gets N{1}'s ACK: N{1} is alive and has taken the message on.", "N{0} 收到 N{1} 的 ACK：N{1} 存活，已接过这条消息。");
const N_LATE_ACK: Text = Text::new(
    "N{0} gets an ACK from N{1} for a message it no longer waits for (it had already skipped N{1}).",
    "N{0} 收到 N{1} 的 ACK，但它已不再等待这条消息（此前已跳过 N{1}）。",
);
const N_SKIP: Text = Text::new(
    "N{0} heard no ACK from N{1} in time: it takes N{1} for down (crashed or out of reach) and skips to the next node, N{2}.",
    "N{0} 在超时前没有收到 N{1} 的 ACK：它认为 N{1} 已失效（崩溃或无法到达），跳过它，改发给下一个节点 N{2}。",
);
const N_DECIDE: Text = Text::new(
    "N{0}'s ELECTION is back with a live set of {1:node:nodes}: the highest id in it is {2}, so N{2} leads; N{0} sends COORDINATOR round the live set.",
    "N{0} 的 ELECTION 带着 {1} 个节点的存活集合回来了：其中最大的 id 是 {2}，所以 N{2} 成为领导者；N{0} 沿存活集合发送 COORDINATOR。",
);
const N_ALONE: Text = Text::new(
    "No other node answered N{0}: its live set holds only itself, so N{0} leads.",
    "没有其他节点应答 N{0}：存活集合中只有它自己，所以 N{0} 成为领导者。",
);
const N_STALE: Text = Text::new(
    "N{0} answers ACK but drops its own ELECTION from an earlier election (number {1}); it is no longer waiting for it.",
    "N{0} 回复 ACK，但丢弃自己以前（第 {1} 次）发起的 ELECTION：它已不再等待这条消息。",
);
const N_INIT_GONE: Text = Text::new(
    "N{0} cannot reach N{1}, which started this ELECTION: without its initiator the election cannot finish, so N{0} drops it.",
    "N{0} 无法到达本次 ELECTION 的发起者 N{1}：没有发起者，选举无法完成，所以 N{0} 丢弃这条消息。",
);
const N_COORD: Text = Text::new(
    "N{0} answers ACK and learns from COORDINATOR that N{1} leads; it passes the news on to N{2}, the next node of the live set.",
    "N{0} 回复 ACK，从 COORDINATOR 得知 N{1} 是领导者；它把消息转发给存活集合中的下一个节点 N{2}。",
);
const N_COORD_ME: Text = Text::new(
    "N{0} answers ACK and learns from COORDINATOR that it is the leader (the highest live id); it passes the news on to N{2}.",
    "N{0} 回复 ACK，从 COORDINATOR 得知自己是领导者（存活节点中 id 最大）；它把消息转发给 N{2}。",
);
const N_COORD_HOME: Text = Text::new(
    "N{0}'s COORDINATOR is back: every node of the live set has heard that N{1} leads.",
    "N{0} 的 COORDINATOR 回来了：存活集合中的每个节点都已得知 N{1} 是领导者。",
);
const N_COORD_STALE: Text = Text::new(
    "N{0} answers ACK and drops a COORDINATOR of its own earlier election (number {1}).",
    "N{0} 回复 ACK，并丢弃自己以前（第 {1} 次）选举的 COORDINATOR。",
);
const N_COORD_END: Text = Text::new(
    "N{0} cannot reach N{1}, which started this announcement: every other live node has had it, so the pass ends here.",
    "N{0} 无法到达本次宣布的发起者 N{1}：其他存活节点都已收到，因此这一圈到此结束。",
);
const N_COORD_LOST: Text = Text::new(
    "N{0} is not in the live set of this COORDINATOR (it was skipped as down), so it does not pass it on; it takes N{1} as leader.",
    "N{0} 不在这条 COORDINATOR 的存活集合中（曾被当作崩溃而跳过），所以不再转发；它把 N{1} 当作领导者。",
);
const N_BUSY: Text = Text::new("N{0} is already waiting for its own ELECTION to come back.", "N{0} 已在等待自己的 ELECTION 回来。");
const N_BEAT: Text = Text::new("N{0} leads: it sends HEARTBEAT to everyone.", "N{0} 是领导者：向所有节点发送 HEARTBEAT（心跳）。");
const N_ALIVE: Text = Text::new("N{0} hears N{1}'s heartbeat: the leader is alive.", "N{0} 收到 N{1} 的心跳：领导者仍然存活。");
const N_SUSPECT: Text = Text::new(
    "N{0} heard no heartbeat from leader N{1} for {2} ticks: it suspects N{1} has crashed and starts an election.",
    "N{0} 已有 {2} 个时间单位没有收到领导者 N{1} 的心跳：它怀疑 N{1} 已崩溃，于是发起选举。",
);
const N_RETRY: Text = Text::new(
    "N{0}'s election has not finished after {1} ticks (a message was lost on the way): it starts again.",
    "N{0} 的选举在 {1} 个时间单位后仍未完成（消息在途中丢失）：它重新发起选举。",
);
const N_RECOVER: Text = Text::new(
    "N{0} recovers with no memory of a leader, so it starts an election.",
    "N{0} 恢复后不记得领导者是谁，于是发起选举。",
);

#[derive(Clone, Debug)]
pub struct RingLiveSet {
    /// Ticks a sender waits for ACK before it skips the node.
    pub ack_timeout: Time,
    /// Ticks after which an unfinished election is started again (with heartbeats only).
    pub retry: Time,
}

impl RingLiveSet {
    fn from_params(cfg: &Config, params: &Params) -> Result<Self, ScenarioError> {
        let p = ParamReader::new(params, &["ack_timeout", "retry"])?;
        let lat_max = cfg.latency.1;
        let ack_timeout = p.uint("ack_timeout")?.unwrap_or(2 * lat_max + 1);
        if ack_timeout == 0 {
            return Err(ScenarioError::new("params.ack_timeout", "must be at least 1 tick"));
        }
        let n = cfg.n() as Time;
        let retry = p.uint("retry")?.unwrap_or(2 * n * (ack_timeout + lat_max) + cfg.heartbeats.map_or(0, |h| h.timeout));
        if retry == 0 {
            return Err(ScenarioError::new("params.retry", "must be at least 1 tick"));
        }
        Ok(RingLiveSet { ack_timeout, retry })
    }
}

/// A message sent to the next node, waiting for its ACK.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Pending {
    pub seq: u64,
    pub to: NodeId,
    pub msg: Msg,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct State {
    pub me: NodeId,
    pub leader: Option<NodeId>,
    /// This node's election number (durable): its ELECTION and COORDINATOR carry it.
    pub round: u64,
    /// Its own ELECTION is on its way round (the initiator's stage).
    pub waiting: bool,
    /// Has added its id to someone's ELECTION and not yet heard COORDINATOR.
    pub participant: bool,
    /// Numbers the hops this node sends, so that an ACK names the message it answers (durable,
    /// so that an ACK from before a crash cannot answer a message sent after it).
    pub next_seq: u64,
    /// Messages sent and not yet acknowledged.
    pub pending: Vec<Pending>,
    /// The live set of the last COORDINATOR this node sent or passed on (for the inspector).
    pub members: Vec<NodeId>,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Msg {
    /// `live` lists the ids collected so far, in ring order from the initiator.
    Election { init: NodeId, round: u64, live: Vec<NodeId>, seq: u64 },
    /// The initiator's announcement, carried round the live set `live` (which starts with `init`).
    Coordinator { leader: NodeId, init: NodeId, round: u64, live: Vec<NodeId>, seq: u64 },
    /// "I have your message `seq`."
    Ack { seq: u64 },
    Heartbeat,
}

impl Msg {
    fn with_seq(&self, s: u64) -> Msg {
        let mut m = self.clone();
        match &mut m {
            Msg::Election { seq, .. } | Msg::Coordinator { seq, .. } => *seq = s,
            _ => {}
        }
        m
    }
}

kinds! {
    Msg;
    Msg::Election { .. } => Kind::new("ELECTION", "E", Visual::Request, Text::new("goes round the ring collecting the ids of the live nodes", "沿环收集存活节点的 id")),
    Msg::Coordinator { .. } => Kind::new("COORDINATOR", "C", Visual::Announcement, Text::new("tells every live node who leads", "告诉每个存活节点谁是领导者")),
    Msg::Ack { .. } => Kind::new("ACK", "ack", Visual::Answer, Text::new("\"I got it\": a node that does not send it in time is skipped", "“已收到”：没有及时回复的节点会被跳过")),
    Msg::Heartbeat => Kind::new("HEARTBEAT", "hb", Visual::Heartbeat, Text::new("the leader's periodic sign of life, sent directly", "领导者直接发送的定期存活信号（心跳）")),
}

fn fmt_ids(ids: &[NodeId]) -> String {
    ids.iter().map(|x| x.to_string()).collect::<Vec<_>>().join(",")
}

impl Message for Msg {
    fn label(&self) -> String {
        match self {
            Msg::Election { live, .. } => format!("ELECTION{{{}}}", fmt_ids(live)),
            Msg::Coordinator { leader, .. } => format!("COORDINATOR(N{leader})"),
            Msg::Ack { .. } => "ACK".into(),
            Msg::Heartbeat => "HEARTBEAT".into(),
        }
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Timer {
    /// Waiting for the ACK of hop `seq`.
    Ack(u64),
    /// The failure detector: no heartbeat from the leader for `heartbeats.timeout`.
    LeaderTimeout,
    /// The leader's periodic HEARTBEAT broadcast.
    Heartbeat,
    /// The initiator's election has not finished in time.
    Retry,
}

impl TimerKey for Timer {
    fn name(&self) -> &'static str {
        match self {
            Timer::Ack(_) => "ACK_TIMEOUT",
            Timer::LeaderTimeout => "LEADER_TIMEOUT",
            Timer::Heartbeat => "HEARTBEAT",
            Timer::Retry => "RETRY",
        }
    }
}

type C<'a> = Ctx<'a, Msg, Timer>;

impl RingLiveSet {
    /// Sends `msg` to `to` as one hop and waits for its ACK.
    fn hop(&self, s: &mut State, to: NodeId, msg: &Msg, ctx: &mut C) {
        let seq = s.next_seq;
        s.next_seq += 1;
        let msg = msg.with_seq(seq);
        ctx.send(to, msg.clone());
        s.pending.push(Pending { seq, to, msg });
        ctx.set_timer_after(Timer::Ack(seq), self.ack_timeout);
    }

    fn begin(&self, s: &mut State, ctx: &mut C) {
        s.round += 1;
        s.waiting = true;
        s.leader = None;
        ctx.cancel_timer(Timer::LeaderTimeout);
        ctx.cancel_timer(Timer::Heartbeat);
        if ctx.cfg.heartbeats.is_some() {
            ctx.set_timer_after(Timer::Retry, self.retry);
        }
        let succ = ctx.cfg.successor(ctx.me);
        let msg = Msg::Election { init: ctx.me, round: s.round, live: vec![ctx.me], seq: 0 };
        if succ == ctx.me {
            ctx.note(&N_ALONE, &[ctx.me as u64]);
            self.decide(s, vec![ctx.me], ctx);
            return;
        }
        ctx.note(&N_START, &[ctx.me as u64, succ as u64]);
        self.hop(s, succ, &msg, ctx);
    }

    /// The initiator's ELECTION is back with `live`: the highest id leads; announce it.
    fn decide(&self, s: &mut State, live: Vec<NodeId>, ctx: &mut C) {
        let leader = *live.iter().max().expect("the initiator is in its own live set");
        s.waiting = false;
        ctx.cancel_timer(Timer::Retry);
        self.follow(s, leader, ctx);
        if live.len() > 1 {
            let msg = Msg::Coordinator { leader, init: ctx.me, round: s.round, live: live.clone(), seq: 0 };
            self.hop(s, live[1], &msg, ctx);
        }
        s.members = live;
    }

    /// Takes `leader` as the leader: leads (heartbeats) or watches it.
    fn follow(&self, s: &mut State, leader: NodeId, ctx: &mut C) {
        let was_leader = s.leader == Some(ctx.me);
        s.leader = Some(leader);
        s.participant = false;
        if leader == ctx.me {
            ctx.cancel_timer(Timer::LeaderTimeout);
            if !was_leader {
                ctx.arm_heartbeat(Timer::Heartbeat);
            }
        } else {
            if was_leader {
                ctx.cancel_timer(Timer::Heartbeat);
            }
            ctx.watch_leader(Timer::LeaderTimeout, s.leader);
        }
    }

    /// The node after `skipped` that a message `msg` should try next, or why there is none.
    fn after_skip(&self, me: NodeId, skipped: NodeId, msg: &Msg, cfg: &Config) -> Next {
        match msg {
            Msg::Election { init, .. } => {
                if skipped == *init {
                    return Next::InitiatorGone(*init);
                }
                let next = cfg.successor(skipped);
                if next == me {
                    Next::BackHome
                } else {
                    Next::To(next)
                }
            }
            Msg::Coordinator { init, live, .. } => {
                let Some(p) = live.iter().position(|&x| x == skipped) else { return Next::InitiatorGone(*init) };
                if p == 0 {
                    return Next::InitiatorGone(*init);
                }
                let next = live[(p + 1) % live.len()];
                if next == me {
                    Next::BackHome
                } else {
                    Next::To(next)
                }
            }
            _ => Next::InitiatorGone(me),
        }
    }
}

enum Next {
    To(NodeId),
    /// Every other node was skipped: the message is back at this node.
    BackHome,
    /// The skipped node started the message: it ends here.
    InitiatorGone(NodeId),
}

impl Protocol for RingLiveSet {
    type State = State;
    type Msg = Msg;
    type Timer = Timer;
    const KINDS: &'static [Kind] = KINDS;

    fn new(cfg: &Config, params: &Params) -> Result<Self, ScenarioError> {
        RingLiveSet::from_params(cfg, params)
    }

    fn init(&self, ctx: &mut C) -> State {
        let mut s = State {
            me: ctx.me,
            leader: ctx.cfg.initial_leader,
            round: 0,
            waiting: false,
            participant: false,
            next_seq: 0,
            pending: Vec::new(),
            members: Vec::new(),
        };
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
        if s.waiting {
            ctx.note(&N_BUSY, &[ctx.me as u64]);
        } else {
            self.begin(s, ctx);
        }
    }

    fn on_message(&self, s: &mut State, from: NodeId, msg: Msg, ctx: &mut C) {
        let me = ctx.me;
        match msg {
            Msg::Election { init, round, mut live, seq } => {
                ctx.send(from, Msg::Ack { seq });
                if init == me {
                    if s.waiting && round == s.round {
                        let leader = *live.iter().max().expect("non-empty live set");
                        ctx.note(&N_DECIDE, &[me as u64, live.len() as u64, leader as u64]);
                        self.decide(s, live, ctx);
                    } else {
                        ctx.note(&N_STALE, &[me as u64, round]);
                    }
                    return;
                }
                s.participant = true;
                live.push(me);
                let succ = ctx.cfg.successor(me);
                ctx.note(&N_FORWARD, &[me as u64, init as u64, succ as u64]);
                let msg = Msg::Election { init, round, live, seq: 0 };
                self.hop(s, succ, &msg, ctx);
            }
            Msg::Coordinator { leader, init, round, live, seq } => {
                ctx.send(from, Msg::Ack { seq });
                if init == me {
                    if round == s.round {
                        ctx.note(&N_COORD_HOME, &[me as u64, leader as u64]);
                    } else {
                        ctx.note(&N_COORD_STALE, &[me as u64, round]);
                    }
                    return;
                }
                self.follow(s, leader, ctx);
                let Some(p) = live.iter().position(|&x| x == me) else {
                    ctx.note(&N_COORD_LOST, &[me as u64, leader as u64]);
                    return;
                };
                let next = live[(p + 1) % live.len()];
                let text = if leader == me { &N_COORD_ME } else { &N_COORD };
                ctx.note(text, &[me as u64, leader as u64, next as u64]);
                let msg = Msg::Coordinator { leader, init, round, live: live.clone(), seq: 0 };
                s.members = live;
                self.hop(s, next, &msg, ctx);
            }
            Msg::Ack { seq } => {
                if let Some(k) = s.pending.iter().position(|p| p.seq == seq) {
                    s.pending.remove(k);
                    ctx.cancel_timer(Timer::Ack(seq));
                    ctx.note(&N_ACKED, &[me as u64, from as u64]);
                } else {
                    ctx.note(&N_LATE_ACK, &[me as u64, from as u64]);
                }
            }
            Msg::Heartbeat => {
                if s.leader == Some(from) {
                    ctx.note(&N_ALIVE, &[me as u64, from as u64]);
                    ctx.watch_leader(Timer::LeaderTimeout, s.leader);
                }
            }
        }
    }

    fn on_timer(&self, s: &mut State, timer: Timer, ctx: &mut C) {
        let me = ctx.me;
        match timer {
            Timer::Ack(seq) => {
                let Some(k) = s.pending.iter().position(|p| p.seq == seq) else { return };
                let Pending { to: skipped, msg, .. } = s.pending.remove(k);
                match self.after_skip(me, skipped, &msg, ctx.cfg) {
                    Next::To(next) => {
                        ctx.note(&N_SKIP, &[me as u64, skipped as u64, next as u64]);
                        self.hop(s, next, &msg, ctx);
                    }
                    Next::BackHome => match msg {
                        Msg::Election { round, live, .. } if s.waiting && round == s.round => {
                            ctx.note(&N_ALONE, &[me as u64]);
                            self.decide(s, live, ctx);
                        }
                        Msg::Election { round, .. } => ctx.note(&N_STALE, &[me as u64, round]),
                        Msg::Coordinator { leader, .. } => ctx.note(&N_COORD_HOME, &[me as u64, leader as u64]),
                        _ => {}
                    },
                    Next::InitiatorGone(init) => {
                        let text = if matches!(msg, Msg::Coordinator { .. }) { &N_COORD_END } else { &N_INIT_GONE };
                        ctx.note(text, &[me as u64, init as u64]);
                    }
                }
            }
            Timer::LeaderTimeout => {
                if let Some(l) = s.leader.filter(|&l| l != me) {
                    ctx.note(&N_SUSPECT, &[me as u64, l as u64, ctx.cfg.heartbeats.map_or(0, |h| h.timeout)]);
                    self.begin(s, ctx);
                }
            }
            Timer::Heartbeat => {
                if s.leader == Some(me) {
                    ctx.heartbeat(Timer::Heartbeat, &N_BEAT, &[me as u64], Msg::Heartbeat);
                }
            }
            Timer::Retry => {
                if s.waiting || s.leader.is_none() {
                    ctx.note(&N_RETRY, &[me as u64, self.retry]);
                    s.waiting = false;
                    self.begin(s, ctx);
                }
            }
        }
    }

    fn recover(&self, crashed: &State, ctx: &mut C) -> State {
        let mut s = State {
            me: ctx.me,
            leader: None,
            round: crashed.round,
            waiting: false,
            participant: false,
            next_seq: crashed.next_seq,
            pending: Vec::new(),
            members: Vec::new(),
        };
        ctx.note(&N_RECOVER, &[ctx.me as u64]);
        self.begin(&mut s, ctx);
        s
    }

    fn view(&self, s: &State) -> View {
        let role = if s.leader == Some(s.me) {
            LEADER
        } else if s.waiting {
            CANDIDATE
        } else if s.participant {
            "participant"
        } else {
            FOLLOWER
        };
        View { role, leader: s.leader, ..View::default() }
    }

    fn inspect(&self, s: &State) -> Vec<(&'static str, String)> {
        let waiting_for = s.pending.iter().map(|p| format!("N{}", p.to)).collect::<Vec<_>>().join(", ");
        vec![
            ("leader", fmt_node(s.leader)),
            ("waiting for own ELECTION", s.waiting.to_string()),
            ("participant", s.participant.to_string()),
            ("election number", s.round.to_string()),
            ("waiting for ACK from", if waiting_for.is_empty() { "-".into() } else { waiting_for }),
            ("last live set", if s.members.is_empty() { "-".into() } else { format!("{{{}}}", fmt_ids(&s.members)) }),
            ("ACK timeout / retry", format!("{} / {}", self.ack_timeout, self.retry)),
        ]
    }
}

#[cfg(test)]
mod tests;
