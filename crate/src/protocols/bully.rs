//! **Bully** (H. Garcia-Molina, "Elections in a Distributed Computing System", IEEE Transactions
//! on Computers C-31(1), 1982).
//!
//! The live process with the highest id wins. A process that starts an election sends ELECTION
//! only to higher ids and waits `t_out` ticks (stage WAIT_OK). Every higher process that receives
//! it answers OK (suppressing the sender) and, unless it is already electing, starts its own
//! election: this cascade is what makes the worst case O(N²). A process that hears no OK before
//! its deadline declares itself leader and sends COORDINATOR to every lower id; one that heard
//! an OK waits `t_coord` more ticks (stage WAIT_COORD) for the announcement and starts over if
//! none comes. A leader broadcasts HEARTBEAT every `heartbeats.interval`; a process that hears no
//! heartbeat from its leader for `heartbeats.timeout` starts an election (the failure detector).
//!
//! * **COORDINATOR acceptance**: the announcement is taken when the announcer's id is not below
//!   the receiver's own id, or the receiver knows no leader (`k >= me or elected == none`).
//!   Either way the receiver leaves its election. A lower announcer is ignored by a node that
//!   knows a leader, which is the classic guard against a stale announcement.
//! * **A leader hears a lower leader** (after a partition heals, both sides' leaders
//!   heartbeat everyone): a leader that receives a COORDINATOR or a HEARTBEAT from a lower id
//!   starts an election: the classic rule (after Garcia-Molina 1982, above) that a process
//!   which hears a coordinator announcement from a lower process challenges it, since a lower
//!   process cannot rightly lead while a higher one is up. Its election reaches every higher live id, so the highest
//!   live id wins and announces itself, the lower leader accepts the announcement (`k >= me`),
//!   and the split brain a partition caused ends once the network is whole again.
//! * **Crash-recovery**: all state is volatile; a recovered process knows no leader and starts
//!   an election. A recovering process above the current leader therefore takes over, with a
//!   short window (one message latency) in which two processes believe they lead.
//! * With `heartbeats: null` nothing runs by itself: elections begin only by `start`.
//!
//! Parameters (`params`): `t_out` (WAIT_OK timeout, default `2·latency_max + 1`, the smallest
//! value above a round trip `2·d_max` plus the handling time, as Garcia-Molina's synchronous model
//! requires), `t_coord` (WAIT_COORD timeout, default
//! `3·t_out`).

use crate::algorithm::Algorithm;
use crate::error::ScenarioError;
use crate::meta::{single_leader, Faults, Formula, Kind, Look, Preset, Role, Text, Topology, Visual, CANDIDATE_ROLE, FOLLOWER_ROLE, LEADER_ROLE};
use crate::protocol::{fmt_node, ParamReader, Config, Ctx, Message, Params, Protocol, TimerKey, View, CANDIDATE, FOLLOWER, LEADER};
use crate::run;
use crate::{NodeId, Time};

#[derive(Clone, Debug)]
pub struct Bully {
    pub t_out: Time,
    pub t_coord: Time,
}

pub const ALGORITHM: Algorithm = Algorithm {
    id: "bully",
    title: Text::new("Bully", "Bully（霸道）算法"),
    citation: "H. Garcia-Molina, Elections in a Distributed Computing System, IEEE Transactions on Computers C-31(1), 1982",
    summary: Text::new(
        "The live node with the highest id wins: a node challenges every higher id, and any live higher node answers OK and takes the election over.",
        "存活节点中 id 最大者获胜：节点向所有比自己大的 id 发起挑战，任何存活的更大节点都会回复 OK 并接管选举。",
    ),
    card: Text::new(
        "A node that suspects the leader (its heartbeats stopped) starts an election.\n\n\
         • It sends ELECTION to every node with a higher id and waits for OK.\n\
         • A higher node that receives ELECTION answers OK — it \"bullies\" the sender out — and starts its own election.\n\
         • A node that hears no OK in time knows no higher node is alive: it declares itself leader and sends COORDINATOR to every lower id.\n\
         • A node that was bullied waits for COORDINATOR, and starts over if none comes.\n\n\
         What to watch: the cascade of elections climbing the ids (N²−N−1 messages in the worst case), and what a partition does — each side elects its own highest id, so Bully splits the brain.",
        "节点怀疑领导者失效（心跳停止）时发起选举。\n\n\
         • 它向所有 id 更大的节点发送 ELECTION，并等待 OK。\n\
         • 收到 ELECTION 的更大节点回复 OK（把发送者“霸道”地压下去），并发起自己的选举。\n\
         • 超时仍未收到 OK 的节点知道没有更大的节点存活：它宣布自己为领导者，并向所有更小的 id 发送 COORDINATOR。\n\
         • 被压下的节点等待 COORDINATOR，若迟迟不来就重新选举。\n\n\
         观察要点：选举沿 id 逐级上升的级联（最坏情况 N²−N−1 条消息）；以及网络分区的后果——每一侧都选出自己最大的 id，Bully 因此产生脑裂。",
    ),
    topology: Topology::Complete,
    kinds: KINDS,
    roles: &[
        LEADER_ROLE,
        FOLLOWER_ROLE,
        CANDIDATE_ROLE,
        Role::new("waiting-coord", Look::Waiting, Text::new("bullied: waiting for COORDINATOR", "已被压下：等待 COORDINATOR")),
    ],
    formulas: &[Formula {
        name: "N²−N−1",
        applies: Text::new("worst case: the top id crashed and every other node starts at once", "最坏情况：最大 id 崩溃，其余节点同时发起选举"),
        counts: &["ELECTION", "OK", "COORDINATOR"],
        value: |n| (n * n).saturating_sub(n + 1),
    }],
    properties: &[single_leader(Faults::CrashStop)],
    presets: PRESETS,
    build: run::build::<Bully>,
};

const PRESETS: &[Preset] = &[
    Preset {
        id: "bully-heartbeats",
        title: Text::new("Bully: crash the leader", "Bully：让领导者崩溃"),
        hint: Text::new(
            "N80 leads and sends heartbeats. Click N80 to crash it, then step: the others time out and the cascade elects N32.",
            "N80 是领导者并发送心跳。点击 N80 使其崩溃，然后单步执行：其他节点超时，级联选举选出 N32。",
        ),
        json: r#"{"algorithm":"bully","nodes":[3,5,6,12,32,80],"seed":425,"initial_leader":80,
                  "heartbeats":{"interval":3,"timeout":12},"stop":{"max_time":400}}"#,
        leaders: &[80],
        golden: "92ee660160ffa382",
    },
    Preset {
        id: "bully-n3-notices",
        title: Text::new("Bully: N80 crashed, N3 notices", "Bully：N80 崩溃，N3 察觉"),
        hint: Text::new(
            "N3 alone starts the election after N80 crashed: 15 ELECTION, 10 OK, 4 COORDINATOR = N²−N−1 = 29.",
            "N80 崩溃后只有 N3 发起选举：15 条 ELECTION、10 条 OK、4 条 COORDINATOR，共 N²−N−1 = 29 条。",
        ),
        json: r#"{"algorithm":"bully","nodes":[3,5,6,12,32,80],"seed":425,"initial_leader":80,
                  "schedule":[{"at":0,"crash":80},{"at":1,"start":3}]}"#,
        leaders: &[32],
        golden: "fbe44067e18f090f",
    },
    Preset {
        id: "bully-worst-8",
        title: Text::new("Bully worst case, N = 8", "Bully 最坏情况，N = 8"),
        hint: Text::new(
            "N8 crashed and the other seven start at once: 28 ELECTION, 21 OK, 6 COORDINATOR = N²−N−1 = 55.",
            "N8 崩溃，其余七个节点同时发起选举：28 条 ELECTION、21 条 OK、6 条 COORDINATOR，共 N²−N−1 = 55 条。",
        ),
        json: r#"{"algorithm":"bully","nodes":[1,2,3,4,5,6,7,8],"seed":425,"initial_leader":8,
                  "schedule":[{"at":0,"crash":8},{"at":0,"start":1},{"at":0,"start":2},{"at":0,"start":3},
                              {"at":0,"start":4},{"at":0,"start":5},{"at":0,"start":6},{"at":0,"start":7}]}"#,
        leaders: &[7],
        golden: "ec9200c66a6ba383",
    },
    Preset {
        id: "split-brain-bully",
        title: Text::new("Split brain under Bully", "Bully 下的脑裂"),
        hint: Text::new(
            "N5 leads. Drag a line between {1,2} and {3,4,5}: the minority stops hearing N5 and elects N2. Two leaders.",
            "N5 是领导者。在 {1,2} 与 {3,4,5} 之间拖一条线：少数派听不到 N5 的心跳，选出 N2。出现两个领导者。",
        ),
        json: r#"{"algorithm":"bully","nodes":[1,2,3,4,5],"seed":425,"initial_leader":5,
                  "heartbeats":{"interval":2,"timeout":10},"stop":{"max_time":300}}"#,
        leaders: &[5],
        golden: "cae8d0f7a94fbbc3",
    },
    Preset {
        id: "bully-heal",
        title: Text::new("Bully: the partition heals", "Bully：分区消除"),
        hint: Text::new(
            "The line between {1,2} and {3,4,5} at t=20 splits the brain: N2 leads the minority. At t=80 the network heals; N5 hears N2's heartbeat, challenges the lower leader with an election, wins it and announces itself, and N2 gives way: one leader again.",
            "t=20 时 {1,2} 与 {3,4,5} 之间的分区造成脑裂：N2 领导少数派。t=80 时网络恢复；N5 收到 N2 的心跳，用一次选举挑战这个更小的领导者，胜出后宣布自己当选，N2 让位：重新只有一个领导者。",
        ),
        json: r#"{"algorithm":"bully","nodes":[1,2,3,4,5],"seed":425,"initial_leader":5,
                  "heartbeats":{"interval":2,"timeout":10},
                  "schedule":[{"at":20,"partition":[[1,2],[3,4,5]]},{"at":80,"heal":true}],
                  "stop":{"max_time":160}}"#,
        leaders: &[5],
        golden: "f7e267a5303dfdfe",
    },
    Preset {
        id: "fencing-tokens",
        title: Text::new("Fencing tokens stop a stale leader", "fencing 令牌拦住过期的 leader"),
        hint: Text::new(
            "N5 (token 1) writes 100; the partition at t=5 lets N2 become leader with token 2 and write 999; then N5, still sure it leads, writes 50 with token 1: the store rejects it. Final value 999.",
            "N5（令牌 1）写入 100；t=5 的网络分区让 N2 当选并拿到令牌 2，写入 999；之后仍以为自己是 leader 的 N5 用令牌 1 写入 50：存储拒绝。最终值为 999。",
        ),
        json: r#"{"algorithm":"bully","nodes":[1,2,3,4,5],"seed":425,"initial_leader":5,
                  "heartbeats":{"interval":2,"timeout":10},
                  "schedule":[{"at":5,"partition":[[1,2],[3,4,5]]}],
                  "fencing":{"writes":[{"at":3,"node":5,"value":100},{"at":60,"node":2,"value":999},{"at":80,"node":5,"value":50}]},
                  "stop":{"max_time":120}}"#,
        leaders: &[2, 5],
        golden: "81d1f1dbfcc042dc",
    },
    Preset {
        id: "split-brain-bully-fenced",
        title: Text::new("Split brain, fenced", "脑裂，但有 fencing"),
        hint: Text::new(
            "Both N2 and N5 believe they lead and write every 10 ticks, but the store has seen N2's token 2: every write of N5 (token 1) is rejected.",
            "N2 和 N5 都以为自己是 leader，每 10 个时间单位写一次；存储已见过 N2 的令牌 2，N5（令牌 1）的每次写入都被拒绝。",
        ),
        json: r#"{"algorithm":"bully","nodes":[1,2,3,4,5],"seed":425,"initial_leader":5,
                  "heartbeats":{"interval":2,"timeout":10},
                  "schedule":[{"at":5,"partition":[[1,2],[3,4,5]]}],
                  "fencing":{"write_every":10},"stop":{"max_time":100}}"#,
        leaders: &[2, 5],
        golden: "c89d20e80101edcc",
    },
];

// Narration: one sentence per rule, in both languages. `{0}` is the acting node.
const N_START: Text = Text::new(
    "N{0} starts an election: it sends ELECTION to the {1:node:nodes} with a higher id and waits {2} ticks for an OK.",
    "N{0} 发起选举：向 {1} 个 id 更大的节点发送 ELECTION，并等待 {2} 个时间单位内的 OK。",
);
const N_TOP: Text = Text::new(
    "N{0} has the highest id, so nobody can bully it: it declares itself leader at once and sends COORDINATOR to every lower id.",
    "N{0} 的 id 最大，没有节点能压过它：它立即宣布自己为领导者，并向所有更小的 id 发送 COORDINATOR。",
);
const N_BULLY: Text = Text::new(
    "N{0} gets ELECTION from N{1}: {0} > {1}, so it answers OK (bullying N{1} out) and runs its own election.",
    "N{0} 收到 N{1} 的 ELECTION：{0} > {1}，所以它回复 OK（把 N{1} 压下去），并发起自己的选举。",
);
const N_BULLY_BUSY: Text = Text::new(
    "N{0} gets ELECTION from N{1}: {0} > {1}, so it answers OK; it is already running an election of its own.",
    "N{0} 收到 N{1} 的 ELECTION：{0} > {1}，所以它回复 OK；它自己的选举已在进行中。",
);
const N_BULLY_LEADER: Text = Text::new(
    "N{0} already leads and gets ELECTION from N{1}: it answers OK and repeats COORDINATOR to N{1}.",
    "N{0} 已是领导者，收到 N{1} 的 ELECTION：它回复 OK，并再次向 N{1} 发送 COORDINATOR。",
);
const N_OK: Text = Text::new(
    "N{0} gets OK from N{1}: a higher node is alive, so N{0} drops out and waits for COORDINATOR.",
    "N{0} 收到 N{1} 的 OK：有更大的节点存活，所以 N{0} 退出竞选，等待 COORDINATOR。",
);
const N_ACCEPT: Text = Text::new(
    "N{0} accepts COORDINATOR from N{1}: N{1} is the leader now.",
    "N{0} 接受 N{1} 的 COORDINATOR：N{1} 现在是领导者。",
);
const N_IGNORE: Text = Text::new(
    "N{0} ignores COORDINATOR from N{1}: it already knows a leader and {1} < {0}.",
    "N{0} 忽略 N{1} 的 COORDINATOR：它已知道领导者，且 {1} < {0}。",
);
const N_NO_OK: Text = Text::new(
    "No OK reached N{0} within {1} ticks: no higher node is alive, so N{0} declares itself leader and sends COORDINATOR to the lower ids.",
    "N{0} 在 {1} 个时间单位内没有收到 OK：没有更大的节点存活，所以 N{0} 宣布自己为领导者，并向更小的 id 发送 COORDINATOR。",
);
const N_NO_COORD: Text = Text::new(
    "N{0} was bullied out but no COORDINATOR came within {1} ticks (the higher node may have crashed): it starts over.",
    "N{0} 被压下后 {1} 个时间单位内没有等到 COORDINATOR（更大的节点可能已崩溃）：它重新发起选举。",
);
const N_SUSPECT: Text = Text::new(
    "N{0} heard no heartbeat from leader N{1} for {2} ticks: it suspects N{1} has crashed and starts an election.",
    "N{0} 已有 {2} 个时间单位没有收到领导者 N{1} 的心跳：它怀疑 N{1} 已崩溃，于是发起选举。",
);
const N_BEAT: Text = Text::new("N{0} leads: it sends HEARTBEAT to everyone.", "N{0} 是领导者：向所有节点发送 HEARTBEAT（心跳）。");
const N_ALIVE: Text = Text::new("N{0} hears N{1}'s heartbeat: the leader is alive.", "N{0} 收到 N{1} 的心跳：领导者仍然存活。");
const N_CHALLENGE: Text = Text::new(
    "N{0} leads and hears N{1} announce itself as leader: {1} < {0}, so N{0} challenges the lower leader and starts an election, which the highest live id wins.",
    "N{0} 是领导者，却听到 N{1} 以领导者身份发声：{1} < {0}，所以 N{0} 向这个更小的领导者发起挑战，发起选举，由存活的最大 id 胜出。",
);
const N_RECOVER: Text = Text::new(
    "N{0} recovers with no memory of a leader, so it starts an election.",
    "N{0} 恢复后不记得领导者是谁，于是发起选举。",
);

impl Bully {
    fn from_params(cfg: &Config, params: &Params) -> Result<Self, ScenarioError> {
        let p = ParamReader::new(params, &["t_out", "t_coord"])?;
        let lat_max = cfg.latency.1;
        let t_out = p.uint("t_out")?.unwrap_or(2 * lat_max + 1);
        if t_out == 0 {
            return Err(ScenarioError::new("params.t_out", "must be at least 1 tick"));
        }
        let t_coord = p.uint("t_coord")?.unwrap_or(3 * t_out);
        if t_coord == 0 {
            return Err(ScenarioError::new("params.t_coord", "must be at least 1 tick"));
        }
        Ok(Bully { t_out, t_coord })
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Stage {
    Idle,
    WaitOk,
    WaitCoord,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct State {
    pub me: NodeId,
    pub elected: Option<NodeId>,
    pub in_elect: bool,
    pub stage: Stage,
    /// Who last answered this node's ELECTION with OK (for the drawing: "bullied by").
    pub bullied_by: Option<NodeId>,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Msg {
    Election,
    Ok,
    Coordinator(NodeId),
    Heartbeat,
}

kinds! {
    Msg;
    Msg::Election => Kind::new("ELECTION", "E", Visual::Request, Text::new("asks every higher id to take over", "请求所有更大的 id 接管选举")),
    Msg::Ok => Kind::new("OK", "OK", Visual::Answer, Text::new("a higher node is alive and takes over", "更大的节点存活并接管选举")),
    Msg::Coordinator(_) => Kind::new("COORDINATOR", "C", Visual::Announcement, Text::new("the winner announces itself to the lower ids", "获胜者向更小的 id 宣布自己当选")),
    Msg::Heartbeat => Kind::new("HEARTBEAT", "hb", Visual::Heartbeat, Text::new("the leader's periodic sign of life", "领导者定期发出的存活信号（心跳）")),
}

impl Message for Msg {
    fn label(&self) -> String {
        match self {
            Msg::Coordinator(k) => format!("COORDINATOR(N{k})"),
            m => KINDS[m.kind()].name.to_string(),
        }
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Timer {
    /// The current stage's deadline (WAIT_OK or WAIT_COORD).
    Deadline,
    /// The failure detector: no heartbeat from the leader for `heartbeats.timeout`.
    LeaderTimeout,
    /// The leader's periodic HEARTBEAT broadcast.
    Heartbeat,
}

impl TimerKey for Timer {
    fn name(&self) -> &'static str {
        match self {
            Timer::Deadline => "DEADLINE",
            Timer::LeaderTimeout => "LEADER_TIMEOUT",
            Timer::Heartbeat => "HEARTBEAT",
        }
    }
}

type C<'a> = Ctx<'a, Msg, Timer>;

impl Bully {
    fn start_election(&self, s: &mut State, ctx: &mut C) {
        if s.elected == Some(ctx.me) {
            return;
        }
        s.in_elect = true;
        s.stage = Stage::WaitOk;
        s.elected = None;
        s.bullied_by = None;
        ctx.cancel_timer(Timer::LeaderTimeout);
        ctx.set_timer_after(Timer::Deadline, self.t_out);
        let higher = ctx.cfg.higher(ctx.me);
        if higher.is_empty() {
            ctx.note(&N_TOP, &[ctx.me as u64]);
            self.become_leader(s, ctx);
            return;
        }
        ctx.note(&N_START, &[ctx.me as u64, higher.len() as u64, self.t_out]);
        let cfg: &Config = ctx.cfg;
        for &j in cfg.higher(ctx.me) {
            ctx.send(j, Msg::Election);
        }
    }

    fn become_leader(&self, s: &mut State, ctx: &mut C) {
        s.in_elect = false;
        s.stage = Stage::Idle;
        s.elected = Some(ctx.me);
        s.bullied_by = None;
        ctx.cancel_timer(Timer::Deadline);
        ctx.cancel_timer(Timer::LeaderTimeout);
        let cfg: &Config = ctx.cfg;
        for &j in cfg.lower(ctx.me) {
            ctx.send(j, Msg::Coordinator(ctx.me));
        }
        if let Some(hb) = cfg.heartbeats {
            ctx.set_timer_after(Timer::Heartbeat, hb.interval);
        }
    }

    /// This leader heard a COORDINATOR or HEARTBEAT from `lower`, a lower id that leads too: it
    /// gives up its own leadership for an election, which the highest live id wins.
    fn challenge(&self, s: &mut State, ctx: &mut C, lower: NodeId) {
        ctx.note(&N_CHALLENGE, &[ctx.me as u64, lower as u64]);
        ctx.cancel_timer(Timer::Heartbeat);
        s.elected = None;
        self.start_election(s, ctx);
    }

    /// Heard from (or about) the leader: re-arm the failure detector.
    fn leader_alive(&self, s: &State, ctx: &mut C) {
        ctx.watch_leader(Timer::LeaderTimeout, s.elected);
    }
}

impl Protocol for Bully {
    type State = State;
    type Msg = Msg;
    type Timer = Timer;
    const KINDS: &'static [Kind] = KINDS;

    fn new(cfg: &Config, params: &Params) -> Result<Self, ScenarioError> {
        Bully::from_params(cfg, params)
    }

    fn init(&self, ctx: &mut C) -> State {
        let mut s = State { me: ctx.me, elected: ctx.cfg.initial_leader, in_elect: false, stage: Stage::Idle, bullied_by: None };
        if let Some(hb) = ctx.cfg.heartbeats {
            match s.elected {
                Some(l) if l == ctx.me => ctx.set_timer_after(Timer::Heartbeat, hb.interval),
                Some(_) => self.leader_alive(&s, ctx),
                // Event 2: no known leader and not electing => start an election.
                None => self.start_election(&mut s, ctx),
            }
        }
        s
    }

    fn start(&self, s: &mut State, ctx: &mut C) {
        self.start_election(s, ctx);
    }

    fn on_message(&self, s: &mut State, from: NodeId, msg: Msg, ctx: &mut C) {
        match msg {
            Msg::Election => {
                if ctx.me > from {
                    ctx.send(from, Msg::Ok);
                    let who = [ctx.me as u64, from as u64];
                    if s.elected == Some(ctx.me) {
                        ctx.note(&N_BULLY_LEADER, &who);
                        ctx.send(from, Msg::Coordinator(ctx.me));
                    } else if !s.in_elect {
                        ctx.note(&N_BULLY, &who);
                        self.start_election(s, ctx);
                    } else {
                        ctx.note(&N_BULLY_BUSY, &who);
                    }
                }
            }
            Msg::Ok => {
                if s.in_elect && s.stage == Stage::WaitOk {
                    ctx.note(&N_OK, &[ctx.me as u64, from as u64]);
                    s.stage = Stage::WaitCoord;
                    s.bullied_by = Some(from);
                    ctx.set_timer_after(Timer::Deadline, self.t_coord);
                } else if s.in_elect && s.bullied_by.is_none() {
                    s.bullied_by = Some(from);
                }
            }
            Msg::Coordinator(k) if k < ctx.me && s.elected == Some(ctx.me) => self.challenge(s, ctx, k),
            Msg::Heartbeat if from < ctx.me && s.elected == Some(ctx.me) => self.challenge(s, ctx, from),
            Msg::Coordinator(k) => {
                let was_leader = s.elected == Some(ctx.me);
                if k >= ctx.me || s.elected.is_none() {
                    ctx.note(&N_ACCEPT, &[ctx.me as u64, k as u64]);
                    s.elected = Some(k);
                } else {
                    ctx.note(&N_IGNORE, &[ctx.me as u64, k as u64]);
                }
                s.in_elect = false;
                s.stage = Stage::Idle;
                ctx.cancel_timer(Timer::Deadline);
                if was_leader && s.elected != Some(ctx.me) {
                    ctx.cancel_timer(Timer::Heartbeat);
                }
                self.leader_alive(s, ctx);
            }
            Msg::Heartbeat => {
                if s.elected == Some(from) {
                    ctx.note(&N_ALIVE, &[ctx.me as u64, from as u64]);
                    self.leader_alive(s, ctx);
                }
            }
        }
    }

    fn on_timer(&self, s: &mut State, timer: Timer, ctx: &mut C) {
        match timer {
            Timer::Deadline => {
                if s.in_elect {
                    if s.stage == Stage::WaitOk {
                        ctx.note(&N_NO_OK, &[ctx.me as u64, self.t_out]);
                        self.become_leader(s, ctx);
                    } else {
                        ctx.note(&N_NO_COORD, &[ctx.me as u64, self.t_coord]);
                        self.start_election(s, ctx);
                    }
                }
            }
            Timer::LeaderTimeout => {
                if let Some(l) = s.elected.filter(|&l| l != ctx.me) {
                    ctx.note(&N_SUSPECT, &[ctx.me as u64, l as u64, ctx.cfg.heartbeats.map_or(0, |h| h.timeout)]);
                    s.elected = None;
                    self.start_election(s, ctx);
                }
            }
            Timer::Heartbeat => {
                if s.elected == Some(ctx.me) {
                    ctx.heartbeat(Timer::Heartbeat, &N_BEAT, &[ctx.me as u64], Msg::Heartbeat);
                }
            }
        }
    }

    fn recover(&self, _crashed: &State, ctx: &mut C) -> State {
        let mut s = State { me: ctx.me, elected: None, in_elect: false, stage: Stage::Idle, bullied_by: None };
        ctx.note(&N_RECOVER, &[ctx.me as u64]);
        self.start_election(&mut s, ctx);
        s
    }

    fn view(&self, s: &State) -> View {
        let role = match s.stage {
            _ if s.elected == Some(s.me) => LEADER,
            Stage::WaitOk => CANDIDATE,
            Stage::WaitCoord => "waiting-coord",
            Stage::Idle => FOLLOWER,
        };
        View { role, leader: s.elected, ..View::default() }
    }

    fn inspect(&self, s: &State) -> Vec<(&'static str, String)> {
        vec![
            ("elected", fmt_node(s.elected)),
            ("in election", s.in_elect.to_string()),
            (
                "stage",
                match s.stage {
                    Stage::Idle => "-",
                    Stage::WaitOk => "WAIT_OK",
                    Stage::WaitCoord => "WAIT_COORD",
                }
                .to_string(),
            ),
            ("bullied by", fmt_node(s.bullied_by)),
            ("T_out / T_coord", format!("{} / {}", self.t_out, self.t_coord)),
        ]
    }
}

#[cfg(test)]
mod tests {
    use super::{Bully, ALGORITHM};
    use crate::protocols::testkit::{random_ring, sim_of};
    use crate::rng::Pcg32;
    use crate::sim::Typed;
    use serde_json::json;

    fn leaders(s: &Typed<Bully>) -> Vec<u32> {
        (0..s.cfg.n()).filter(|&i| s.is_up(i) && s.state(i).elected == Some(s.cfg.ids[i])).map(|i| s.cfg.ids[i]).collect()
    }

    /// Random partitions of random clusters: each side elects its own highest id (split brain),
    /// and once the network heals the highest id challenges the lower leader it hears, wins, and
    /// everyone follows it: one leader, the highest id, named by every node.
    #[test]
    fn split_brain_ends_after_a_heal() {
        for seed in 0..120u64 {
            let mut r = Pcg32::new(seed, 1982);
            let n = r.range_inclusive(3, 9) as usize;
            let ids = random_ring(&mut r, n);
            let top = *ids.iter().max().unwrap();
            let mut side: Vec<bool> = (0..n).map(|_| r.range_inclusive(0, 1) == 0).collect();
            let t = ids.iter().position(|&x| x == top).unwrap();
            side[t] = true;
            let other = (t + 1 + r.range_inclusive(0, n as u64 - 2) as usize) % n;
            side[other] = false;
            let a: Vec<u32> = (0..n).filter(|&i| side[i]).map(|i| ids[i]).collect();
            let b: Vec<u32> = (0..n).filter(|&i| !side[i]).map(|i| ids[i]).collect();
            let hi = r.range_inclusive(1, 3);
            let (cut, heal) = (r.range_inclusive(10, 40), r.range_inclusive(100, 200));
            let v = json!({"algorithm": "bully", "nodes": ids, "seed": seed, "initial_leader": top,
                           "network": {"latency": [1, hi]}, "heartbeats": {"interval": 2, "timeout": 10},
                           "schedule": [{"at": cut, "partition": [a, b]}, {"at": heal, "heal": true}],
                           "stop": {"max_time": heal + 150}});
            let mut s: Typed<Bully> = sim_of(&v, ALGORITHM.properties);
            s.run_until(heal - 1);
            let before = leaders(&s);
            assert_eq!(before.len(), 2, "seed {seed}: a leader per side before the heal: {before:?}\n{v}");
            s.run_until(heal + 150);
            assert_eq!(leaders(&s), vec![top], "seed {seed}: one leader after the heal\n{v}");
            let names: Vec<_> = (0..n).map(|i| s.state(i).elected).collect();
            assert!(names.iter().all(|&x| x == Some(top)), "seed {seed}: everyone names N{top}: {names:?}");
        }
    }

    /// The `bully-heal` preset: split brain during the partition, one leader (N5) after the heal,
    /// and the narration names the challenge.
    #[test]
    fn the_preset_heals_to_one_leader_and_says_why() {
        let p = ALGORITHM.preset("bully-heal").unwrap();
        let mut e = crate::Engine::new(p.scenario()).unwrap();
        e.run_to_end();
        assert_eq!(e.frame().leaders, vec![5]);
        let challenged = (1..=e.cursor()).any(|k| {
            e.narrate(k, crate::meta::Lang::En).is_some_and(|t| t.contains("N5 leads and hears N2 announce itself as leader"))
        });
        assert!(challenged, "the challenge is narrated");
        assert!(e.all_violations().iter().any(|v| v.kind == crate::observe::SPLIT_BRAIN), "split brain before the heal");
    }
}
