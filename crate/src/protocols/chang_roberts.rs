//! **Chang-Roberts** election on a unidirectional ring (E. Chang and R. Roberts, "An improved
//! algorithm for decentralized extrema-finding in circular configurations of processes",
//! Communications of the ACM 22(5), 1979).
//!
//! Nodes are listed clockwise in the scenario; each talks only to its successor. An initiator
//! sends ELECTION(value = own id, init = own id). A node receiving ELECTION(v):
//! * `v == me`: its id went all the way round, so it is the maximum: it becomes coordinator
//!   (once) and sends ELECTED(me) round the ring;
//! * `v > me`: forwards it unchanged;
//! * `v < me` and it has not yet sent its own id: replaces `v` by its own id (once);
//! * otherwise discards it (it already forwarded a larger id).
//!
//! ELECTED(k) sets `elected = k` at every node and stops at k.
//!
//! Single initiator: 2N messages at best (the maximum starts), 3N−1 at worst (the node just
//! after the maximum on the ring starts); N initiators on a descending ring: (N²+3N)/2. Over
//! random rings with every node initiating, the average number of ELECTION messages is
//! N·H_N (Chang and Roberts' result), so O(N log N).
//!
//! * **Initiator suppression** (`params.suppress_initiators`, off by default as in the
//!   classic algorithm): each node remembers the highest initiator seen and discards ELECTION
//!   rounds started by lower initiators. The "sent my own id" flag belongs to a round: when a
//!   round of a strictly higher initiator arrives, the round this node took part in is
//!   suppressed, so the flag is cleared and the node may replace the value in the new round.
//!   Read literally (one flag for all rounds), the suppression rule can suppress every round:
//!   on the ring 80→6→12→5→32→3 with N3 and N12 starting together, N80 spends its id in N3's
//!   round, which then dies at N5 (it saw N12), while N12's round dies at N80 (already
//!   forwarded) — nobody is elected. The per-round flag gives the intended result: the
//!   highest initiator's round always completes. An initiator counts its own round as seen, so
//!   a lower round reaching a higher initiator dies there (on a descending ring the
//!   counts are then the same as without suppression, and never more). Suppression can cost
//!   more than it saves when a suppressed round already carried the maximum: with N3 and N12
//!   starting on the ring above, N3's round (carrying 80) dies at N12 and N12's round has to
//!   bring 80 round again, 19 messages instead of 17.
//! * **Repeated elections.** The classic algorithm describes one election; to run many, a node
//!   clears its per-election flags when ELECTED passes (as in Chang and Roberts' paper, where the
//!   participant mark is cleared on the elected message), and sending its own id starts a new
//!   candidacy. This does not change any count of a single election.
//! * **Failure detection** (only with `heartbeats`): the leader sends HEARTBEAT directly to every
//!   node (the detector is outside the ring); a node that misses it for `heartbeats.timeout`
//!   starts an election. A node that took part in an election that never finished (a message
//!   was lost at a crashed node) starts again after `params.retry` ticks: the timer is armed
//!   when a node sends its own id and cancelled only when an ELECTED passes it. This holds for
//!   every node that sent its id, whatever it believed before: the coordinator (its election
//!   finishes when its own ELECTED comes back, where the classic ELECTED stops) and a live leader
//!   that put its id into a recovered node's election. Otherwise a lost message leaves a node
//!   that has sent its id, so every later round dies there, and nodes that never learn the
//!   leader. A crashed node breaks
//!   the ring until it recovers (the classic crash-stop model); a recovered node starts an election.

use crate::algorithm::Algorithm;
use crate::error::ScenarioError;
use crate::meta::{single_leader, Faults, Formula, Kind, Look, Preset, Role, Text, Topology, Visual, CANDIDATE_ROLE, FOLLOWER_ROLE, LEADER_ROLE};
use crate::protocol::{fmt_node, ParamReader, Config, Ctx, Message, Params, Protocol, TimerKey, View, CANDIDATE, FOLLOWER, LEADER};
use crate::run;
use crate::{NodeId, Time};

#[derive(Clone, Debug)]
pub struct ChangRoberts {
    pub suppress_initiators: bool,
    /// Ticks after which an unfinished election is started again (with heartbeats only).
    pub retry: Time,
}

pub const ALGORITHM: Algorithm = Algorithm {
    id: "chang-roberts",
    title: Text::new("Chang-Roberts ring", "Chang-Roberts 环选举"),
    citation: "E. Chang and R. Roberts, An improved algorithm for decentralized extrema-finding in circular configurations of processes, Communications of the ACM 22(5), 1979",
    summary: Text::new(
        "Ids travel clockwise round a ring; a node swallows any id smaller than its own, so only the maximum's id comes all the way back.",
        "id 沿环顺时针传递；节点吞掉比自己小的 id，因此只有最大 id 能绕环一周回到起点。",
    ),
    card: Text::new(
        "The nodes form a one-way ring; each talks only to its clockwise successor.\n\n\
         • An initiator sends ELECTION carrying its own id.\n\
         • A node passes on an id larger than its own, and swallows a smaller one — after putting its own id into the election instead, once.\n\
         • When a node gets its own id back, it went all the way round: it is the maximum. It becomes leader and sends ELECTED round the ring.\n\n\
         What to watch: ids dying at larger nodes. One initiator costs 2N messages at best and 3N−1 at worst; with every node starting on a random ring, the ELECTION messages average N·H_N ≈ N ln N (Chang & Roberts 1979), against N² for LeLann's ring.",
        "节点组成单向环，每个节点只与顺时针方向的后继通信。\n\n\
         • 发起者发送携带自己 id 的 ELECTION。\n\
         • 节点转发比自己大的 id，吞掉比自己小的 id——并（仅一次）改为把自己的 id 送入选举。\n\
         • 节点收到自己的 id 时，说明它绕环一周没有被吞掉：它就是最大者。它成为领导者，并沿环发送 ELECTED。\n\n\
         观察要点：id 在更大的节点处消亡。单个发起者最好 2N 条消息，最坏 3N−1 条；随机环上所有节点同时发起时，ELECTION 平均 N·H_N ≈ N ln N 条（Chang 与 Roberts，1979），而 LeLann 环需要 N² 条。",
    ),
    topology: Topology::Ring,
    kinds: KINDS,
    roles: &[LEADER_ROLE, FOLLOWER_ROLE, CANDIDATE_ROLE, Role::new("participant", Look::Participant, Text::new("passed a larger id on", "转发了更大的 id"))],
    formulas: &[
        Formula {
            name: "2N",
            applies: Text::new("best case: the maximum alone starts", "最好情况：只有最大者发起"),
            counts: &["ELECTION", "ELECTED"],
            value: |n| 2 * n,
        },
        Formula {
            name: "3N−1",
            applies: Text::new("worst case of one initiator: the node just after the maximum starts", "单个发起者的最坏情况：紧随最大者之后的节点发起"),
            counts: &["ELECTION", "ELECTED"],
            value: |n| (3 * n).saturating_sub(1),
        },
        Formula {
            name: "N·H_N",
            applies: Text::new(
                "average over random rings when every node starts at once, ELECTION messages only; H_N = 1 + 1/2 + … + 1/N",
                "随机环上所有节点同时发起时的平均值，只计 ELECTION 消息；H_N = 1 + 1/2 + … + 1/N",
            ),
            counts: &["ELECTION"],
            value: |n| (n as f64 * (1..=n).map(|k| 1.0 / k as f64).sum::<f64>()).round() as u64,
        },
    ],
    properties: &[single_leader(Faults::CrashStop)],
    presets: PRESETS,
    build: run::build::<ChangRoberts>,
};

const PRESETS: &[Preset] = &[
    Preset {
        id: "ring-best",
        title: Text::new("Chang-Roberts: best case, N80 starts", "Chang-Roberts：最好情况，N80 发起"),
        hint: Text::new(
            "The maximum starts: its id goes round once, then ELECTED goes round once: 2N = 12 messages.",
            "最大者发起：它的 id 绕环一周，ELECTED 再绕一周：2N = 12 条消息。",
        ),
        json: r#"{"algorithm":"chang-roberts","nodes":[80,6,12,5,32,3],"seed":425,"schedule":[{"at":0,"start":80}]}"#,
        leaders: &[80],
        golden: "e785953362eb792d",
    },
    Preset {
        id: "ring-worst",
        title: Text::new("Chang-Roberts: worst case, N6 starts", "Chang-Roberts：最坏情况，N6 发起"),
        hint: Text::new(
            "N6 sits just after N80: 5 hops to reach N80, 6 for 80 to come back, 6 for ELECTED: 3N−1 = 17.",
            "N6 紧随 N80 之后：5 跳到达 N80，80 再用 6 跳绕回，ELECTED 6 跳：3N−1 = 17 条。",
        ),
        json: r#"{"algorithm":"chang-roberts","nodes":[80,6,12,5,32,3],"seed":425,"schedule":[{"at":0,"start":6}]}"#,
        leaders: &[80],
        golden: "536e15fba1115ab5",
    },
    Preset {
        id: "ring-two",
        title: Text::new("Chang-Roberts: N3 and N12 start together", "Chang-Roberts：N3 与 N12 同时发起"),
        hint: Text::new(
            "Two initiators; N12's round dies at N80, which already sent its own id: 11 ELECTION + 6 ELECTED.",
            "两个发起者；N12 的一轮在 N80 处消亡，因为 N80 已经送出了自己的 id：11 条 ELECTION + 6 条 ELECTED。",
        ),
        json: r#"{"algorithm":"chang-roberts","nodes":[80,6,12,5,32,3],"seed":425,"schedule":[{"at":0,"start":3},{"at":0,"start":12}]}"#,
        leaders: &[80],
        golden: "1e846ef9df024db5",
    },
];

// Narration: one sentence per rule, in both languages. `{0}` is the acting node.
const N_START: Text = Text::new(
    "N{0} starts an election: it sends its own id in ELECTION({0}) to its successor N{1}.",
    "N{0} 发起选举：把携带自己 id 的 ELECTION({0}) 发给后继 N{1}。",
);
const N_FORWARD: Text = Text::new(
    "N{0} passes ELECTION({1}) on to N{2}: {1} > {0}, so the larger id travels on.",
    "N{0} 把 ELECTION({1}) 转发给 N{2}：{1} > {0}，更大的 id 继续前进。",
);
const N_REPLACE: Text = Text::new(
    "N{0} swallows ELECTION({1}): {1} < {0}, so it sends its own id {0} on instead (a node does this only once per election).",
    "N{0} 吞掉 ELECTION({1})：{1} < {0}，所以改为把自己的 id {0} 发出去（每个节点每次选举只这样做一次）。",
);
const N_DISCARD: Text = Text::new(
    "N{0} swallows ELECTION({1}): {1} < {0}, and N{0} has already sent its own id round, so {1} goes no further. Smaller ids dying early is what keeps Chang-Roberts at O(N log N) messages on average.",
    "N{0} 吞掉 ELECTION({1})：{1} < {0}，且 N{0} 已经送出过自己的 id，所以 {1} 到此为止。小 id 尽早消亡，正是 Chang-Roberts 平均只需 O(N log N) 条消息的原因。",
);
const N_WIN: Text = Text::new(
    "N{0} gets its own id back: it went all the way round without meeting a larger id, so {0} is the maximum. N{0} becomes coordinator and sends ELECTED({0}) round the ring.",
    "N{0} 收到了自己的 id：它绕环一周都没有遇到更大的 id，所以 {0} 就是最大值。N{0} 成为协调者，并沿环发送 ELECTED({0})。",
);
const N_WIN_AGAIN: Text = Text::new(
    "N{0} gets its own id back once more, but it is already coordinator: it does not announce itself twice.",
    "N{0} 再次收到自己的 id，但它已经是协调者：不会重复宣布。",
);
const N_SUPPRESS: Text = Text::new(
    "N{0} drops ELECTION({1}, init {2}): it has seen a round started by a higher initiator, so the round of N{2} is suppressed here; only the highest initiator's round has to finish.",
    "N{0} 丢弃 ELECTION({1}, init {2})：它已见过更大发起者的一轮选举，所以 N{2} 发起的这一轮在此被压制；只需让最大发起者的那一轮完成。",
);
const N_NEW_ROUND: Text = Text::new(
    "N{0} sees the round of initiator N{1}, higher than N{2}: the round it took part in is now suppressed, so N{0} may put its own id into this one.",
    "N{0} 看到发起者 N{1} 的一轮选举，比 N{2} 更大：它参与过的那一轮已被压制，所以 N{0} 可以在这一轮中重新送出自己的 id。",
);
const N_PASS_ELECTED: Text = Text::new(
    "N{0} learns that N{1} leads and passes ELECTED({1}) on to N{2}.",
    "N{0} 得知 N{1} 是领导者，并把 ELECTED({1}) 转发给后继 N{2}。",
);
const N_ELECTED_HOME: Text = Text::new(
    "ELECTED({0}) has come all the way back to N{0}: every node now knows it leads, so the announcement stops here.",
    "ELECTED({0}) 绕环一周回到了 N{0}：所有节点都已知道它是领导者，宣布到此结束。",
);
const N_SUSPECT: Text = Text::new(
    "N{0} heard no heartbeat from leader N{1} for {2} ticks: it suspects N{1} has crashed and starts an election with its own id.",
    "N{0} 已有 {2} 个时间单位没有收到领导者 N{1} 的心跳：它怀疑 N{1} 已崩溃，于是用自己的 id 发起选举。",
);
const N_RETRY: Text = Text::new(
    "N{0} sent its own id {1} ticks ago and no ELECTED has passed since: a message of that election was lost (at a crashed node or in the network), so N{0} starts again.",
    "N{0} 在 {1} 个时间单位前送出了自己的 id，之后却没有 ELECTED 经过：这次选举的某条消息丢失了（在崩溃的节点处或在网络中），所以 N{0} 重新发起选举。",
);
const N_BEAT: Text = Text::new(
    "N{0} leads: it sends HEARTBEAT directly to every node (the failure detector works outside the ring).",
    "N{0} 是领导者：直接向每个节点发送 HEARTBEAT（心跳；故障检测不经过环）。",
);
const N_ALIVE: Text = Text::new("N{0} hears N{1}'s heartbeat: the leader is alive.", "N{0} 收到 N{1} 的心跳：领导者仍然存活。");
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
const N_RECOVER: Text = Text::new(
    "N{0} recovers with no memory of a leader, so it starts an election with its own id.",
    "N{0} 恢复后不记得领导者是谁，于是用自己的 id 发起选举。",
);

impl ChangRoberts {
    fn from_params(cfg: &Config, params: &Params) -> Result<Self, ScenarioError> {
        let p = ParamReader::new(params, &["suppress_initiators", "retry"])?;
        let n = cfg.n() as Time;
        let retry = p.uint("retry")?.unwrap_or(3 * n * cfg.latency.1 + cfg.heartbeats.map_or(0, |h| h.timeout));
        if retry == 0 {
            return Err(ScenarioError::new("params.retry", "must be at least 1 tick"));
        }
        Ok(ChangRoberts { suppress_initiators: p.flag("suppress_initiators")?, retry })
    }
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct State {
    pub me: NodeId,
    pub elected: Option<NodeId>,
    /// Has sent ELECTION carrying its own id in this election.
    pub forwarded: bool,
    pub am_coord: bool,
    /// Highest initiator seen (suppression only).
    pub seen_init: Option<NodeId>,
    /// Largest value this node has passed on in this election (for the drawing).
    pub carried: Option<NodeId>,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Msg {
    Election { value: NodeId, init: NodeId },
    Elected(NodeId),
    Heartbeat,
}

kinds! {
    Msg;
    Msg::Election { .. } => Kind::new("ELECTION", "E", Visual::Request, Text::new("carries the largest id seen so far round the ring", "沿环携带目前见到的最大 id")),
    Msg::Elected(_) => Kind::new("ELECTED", "W", Visual::Announcement, Text::new("the maximum announces itself round the ring", "最大者沿环宣布自己当选")),
    Msg::Heartbeat => Kind::new("HEARTBEAT", "hb", Visual::Heartbeat, Text::new("the leader's periodic sign of life, sent directly", "领导者直接发送的定期存活信号（心跳）")),
}

impl Message for Msg {
    fn label(&self) -> String {
        match self {
            Msg::Election { value, init } => format!("ELECTION({value}, init {init})"),
            Msg::Elected(k) => format!("ELECTED({k})"),
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

impl ChangRoberts {
    fn fresh(me: NodeId, elected: Option<NodeId>) -> State {
        State { me, elected, forwarded: false, am_coord: false, seen_init: None, carried: None }
    }

    fn send_own(&self, s: &mut State, init: NodeId, ctx: &mut C) {
        let succ = ctx.cfg.successor(ctx.me);
        ctx.send(succ, Msg::Election { value: ctx.me, init });
        s.forwarded = true;
        s.am_coord = false;
        s.carried = Some(ctx.me);
        if ctx.cfg.heartbeats.is_some() {
            ctx.set_timer_after(Timer::Retry, self.retry);
        }
    }

    fn start_election(&self, s: &mut State, ctx: &mut C) {
        s.elected = None;
        ctx.cancel_timer(Timer::LeaderTimeout);
        ctx.cancel_timer(Timer::Heartbeat);
        let me = ctx.me;
        if self.suppress_initiators {
            // The initiator has seen its own round.
            s.seen_init = Some(s.seen_init.map_or(me, |x| x.max(me)));
        }
        self.send_own(s, me, ctx);
    }

    fn leader_alive(&self, s: &State, ctx: &mut C) {
        ctx.watch_leader(Timer::LeaderTimeout, s.elected);
    }
}

impl Protocol for ChangRoberts {
    type State = State;
    type Msg = Msg;
    type Timer = Timer;
    const KINDS: &'static [Kind] = KINDS;

    fn new(cfg: &Config, params: &Params) -> Result<Self, ScenarioError> {
        ChangRoberts::from_params(cfg, params)
    }

    fn init(&self, ctx: &mut C) -> State {
        let mut s = Self::fresh(ctx.me, ctx.cfg.initial_leader);
        s.am_coord = s.elected == Some(ctx.me);
        if let Some(hb) = ctx.cfg.heartbeats {
            match s.elected {
                Some(l) if l == ctx.me => ctx.set_timer_after(Timer::Heartbeat, hb.interval),
                Some(_) => self.leader_alive(&s, ctx),
                None => self.start_election(&mut s, ctx),
            }
        }
        s
    }

    fn start(&self, s: &mut State, ctx: &mut C) {
        ctx.note(&N_START, &[ctx.me as u64, ctx.cfg.successor(ctx.me) as u64]);
        self.start_election(s, ctx);
    }

    fn on_message(&self, s: &mut State, from: NodeId, msg: Msg, ctx: &mut C) {
        let succ = ctx.cfg.successor(ctx.me);
        match msg {
            Msg::Election { value, init } => {
                let me = ctx.me as u64;
                if self.suppress_initiators {
                    if matches!(s.seen_init, Some(seen) if init < seen) {
                        ctx.note(&N_SUPPRESS, &[me, value as u64, init as u64]);
                        return;
                    }
                    if let Some(seen) = s.seen_init.filter(|&seen| init > seen) {
                        // A higher initiator's round: the one this node took part in is now
                        // suppressed, so it may put its own id into this round (once).
                        if s.forwarded && value < ctx.me {
                            ctx.note(&N_NEW_ROUND, &[me, init as u64, seen as u64]);
                        }
                        s.forwarded = false;
                    }
                    s.seen_init = Some(s.seen_init.map_or(init, |x| x.max(init)));
                }
                if value == ctx.me {
                    if !s.am_coord {
                        ctx.note(&N_WIN, &[me]);
                        s.am_coord = true;
                        s.elected = Some(ctx.me);
                        // The Retry timer of this node's candidacy stays armed until its own
                        // ELECTED comes back: the election is not over while the announcement
                        // can still be lost at a crashed node.
                        ctx.send(succ, Msg::Elected(ctx.me));
                    } else {
                        ctx.note(&N_WIN_AGAIN, &[me]);
                    }
                } else if value > ctx.me {
                    ctx.note(&N_FORWARD, &[me, value as u64, succ as u64]);
                    s.carried = Some(s.carried.map_or(value, |c| c.max(value)));
                    ctx.send(succ, Msg::Election { value, init });
                } else if !s.forwarded {
                    ctx.note(&N_REPLACE, &[me, value as u64]);
                    self.send_own(s, init, ctx);
                } else {
                    // Discard: this node already sent a larger id round.
                    ctx.note(&N_DISCARD, &[me, value as u64]);
                }
            }
            Msg::Elected(k) => {
                s.elected = Some(k);
                s.forwarded = false;
                s.seen_init = None;
                s.carried = None;
                s.am_coord = k == ctx.me;
                ctx.cancel_timer(Timer::Retry);
                if k != ctx.me {
                    ctx.note(&N_PASS_ELECTED, &[ctx.me as u64, k as u64, succ as u64]);
                    ctx.send(succ, Msg::Elected(k));
                    self.leader_alive(s, ctx);
                } else {
                    ctx.note(&N_ELECTED_HOME, &[k as u64]);
                    ctx.arm_heartbeat(Timer::Heartbeat);
                }
            }
            Msg::Heartbeat => {
                if s.elected == Some(from) {
                    ctx.note(&N_ALIVE, &[ctx.me as u64, from as u64]);
                    self.leader_alive(s, ctx);
                } else {
                    match s.elected {
                        Some(l) if l == ctx.me => ctx.note(&N_BEAT_RIVAL, &[ctx.me as u64, from as u64]),
                        Some(l) => ctx.note(&N_BEAT_OTHER, &[ctx.me as u64, from as u64, l as u64]),
                        None => ctx.note(&N_BEAT_NO_LEADER, &[ctx.me as u64, from as u64]),
                    }
                }
            }
        }
    }

    fn on_timer(&self, s: &mut State, timer: Timer, ctx: &mut C) {
        match timer {
            Timer::LeaderTimeout => {
                if let Some(l) = s.elected.filter(|&l| l != ctx.me) {
                    ctx.note(&N_SUSPECT, &[ctx.me as u64, l as u64, ctx.cfg.heartbeats.map_or(0, |h| h.timeout)]);
                    self.start_election(s, ctx);
                }
            }
            Timer::Retry => {
                // Armed when this node sent its own id, cancelled when an ELECTED passes (its
                // own coming back included): the election it joined never finished.
                ctx.note(&N_RETRY, &[ctx.me as u64, self.retry]);
                s.am_coord = false;
                s.forwarded = false;
                s.seen_init = None;
                self.start_election(s, ctx);
            }
            Timer::Heartbeat => {
                if s.elected == Some(ctx.me) {
                    ctx.heartbeat(Timer::Heartbeat, &N_BEAT, &[ctx.me as u64], Msg::Heartbeat);
                }
            }
        }
    }

    fn recover(&self, _crashed: &State, ctx: &mut C) -> State {
        let mut s = Self::fresh(ctx.me, None);
        ctx.note(&N_RECOVER, &[ctx.me as u64]);
        self.start_election(&mut s, ctx);
        s
    }

    fn view(&self, s: &State) -> View {
        let role = if s.elected == Some(s.me) {
            LEADER
        } else if s.forwarded {
            CANDIDATE
        } else if s.carried.is_some() {
            "participant"
        } else {
            FOLLOWER
        };
        View { role, leader: s.elected, ..View::default() }
    }

    fn inspect(&self, s: &State) -> Vec<(&'static str, String)> {
        vec![
            ("elected", fmt_node(s.elected)),
            ("sent own id", s.forwarded.to_string()),
            ("coordinator", s.am_coord.to_string()),
            ("largest id carried", fmt_node(s.carried)),
            ("highest initiator seen", if self.suppress_initiators { fmt_node(s.seen_init) } else { "(suppression off)".into() }),
        ]
    }
}

#[cfg(test)]
mod narration_tests {
    use crate::protocols::testkit::{preset};
    use crate::meta::Lang;
    use crate::{Engine, NodeId};

    /// The step where `to` receives the message labelled `label` from `from`.
    fn delivery(e: &Engine, from: NodeId, to: NodeId, label: &str) -> u64 {
        let tail = format!("N{from} → N{to} {label}");
        (1..=e.cursor())
            .find(|&s| e.step_info(s).is_some_and(|i| i.event == "deliver" && i.text.ends_with(&tail)))
            .unwrap_or_else(|| panic!("no delivery {tail}"))
    }

    #[test]
    fn n80_swallowing_a_smaller_id_says_so_with_both_ids() {
        // Worst case: 32 reaches N80, which has not sent its own id yet, so 80 replaces it.
        let e = preset("ring-worst");
        let step = delivery(&e, 3, 80, "ELECTION(32, init 6)");
        let en = e.narrate(step, Lang::En).unwrap();
        assert!(en.starts_with("N80 swallows ELECTION(32): 32 < 80, so it sends its own id 80 on instead"), "{en}");
        let zh = e.narrate(step, Lang::Zh).unwrap();
        assert!(zh.starts_with("N80 吞掉 ELECTION(32)：32 < 80"), "{zh}");

        // Two initiators: N12's round brings 32 to N80, which already sent 80 in N3's round.
        let e = preset("ring-two");
        let step = delivery(&e, 3, 80, "ELECTION(32, init 12)");
        let en = e.narrate(step, Lang::En).unwrap();
        assert!(en.starts_with("N80 swallows ELECTION(32): 32 < 80, and N80 has already sent its own id round"), "{en}");
        assert!(en.contains("O(N log N)"), "{en}");

        // The maximum's id coming home.
        let e = preset("ring-best");
        let en = e.narrate(delivery(&e, 3, 80, "ELECTION(80, init 80)"), Lang::En).unwrap();
        assert!(en.starts_with("N80 gets its own id back") && en.contains("becomes coordinator"), "{en}");
    }
}
