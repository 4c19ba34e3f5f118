//! **Hirschberg-Sinclair** election on a bidirectional ring (D. S. Hirschberg and J. B. Sinclair,
//! "Decentralized extrema-finding in circular configurations of processors", Communications of
//! the ACM 23(11), 1980): the first O(N log N) ring election.
//!
//! Every node may talk to both neighbours. A candidate works in phases k = 0, 1, 2, ...: in phase
//! k it sends PROBE carrying its id both ways round the ring, to reach 2^k hops (its *radius*).
//! A node that a probe reaches compares ids:
//! * a **larger** id swallows the probe (the sender cannot be the maximum);
//! * a **smaller** id passes it on, or, if it is the 2^k-th node, turns it back as REPLY, which
//!   the nodes in between pass back to the candidate;
//! * the sender's **own** id means the probe has come all the way round the ring.
//!
//! A candidate that gets REPLY from both sides is the largest id within 2^k hops either way and
//! goes on to phase k+1 with twice the radius. A candidate whose probes come all the way round
//! (once 2^k ≥ N) has passed every node without being swallowed: it is the maximum, leads, and
//! announces itself with ELECTED, sent once round the ring. Two candidates that both survive
//! phase k are more than 2^k apart, so at most ⌊N/(2^k+1)⌋ < N/2^k survive it; a phase costs at
//! most 4·2^k messages per candidate, hence at most 4N in phase 0, 8N in each later phase, and
//! PROBE + REPLY ≤ 8N(1 + ⌈log₂N⌉) in all (the bound of N. A. Lynch's analysis in *Distributed
//! Algorithms*, Morgan Kaufmann, 1996; Hirschberg and Sinclair give 8N + 8⌈N log N⌉ for their
//! variant with negative replies).
//!
//! "The candidates halve every phase" holds for that bound, not for the count itself: the
//! survivors of phase k are fewer than N/2^k, but from one phase to the next their number may
//! fall by less than half, or not at all (three peaks evenly spread on a ring of 12, each the
//! largest within 3 hops, all survive phases 0 and 1). On random rings the count fell by half or
//! more in about half the phases only; the module's tests check the bound.
//!
//! Readings chosen:
//!
//! * **Which id stops a probe.** A probe is passed on only by smaller ids and stopped by a larger
//!   one, as in the paper (the pseudocode of the course notes has this comparison the other way
//!   round in one place; their prose and proof use the paper's reading, which is taken here).
//! * **Swallowing, no negative reply.** A larger node simply drops a smaller probe, as in the
//!   textbook presentation of the algorithm (Lynch, *Distributed Algorithms*, 1996); the paper
//!   instead answers it with a "no" reply. A candidate whose probe was swallowed just never goes
//!   on to the next phase.
//! * **Losing.** As in the paper, a candidate that passes on a larger id's probe knows it cannot
//!   be the maximum and withdraws (role `relay`): it does not start another phase even if its
//!   own replies come back.
//! * **Nodes that did not start.** A node that is not taking part and is reached by a smaller
//!   id's probe swallows it and becomes a candidate itself (so the maximum always joins and
//!   wins, whoever starts); one reached by a larger id's probe just relays from then on.
//! * **Winning.** A probe that comes all the way round proves the maximum; the node still waits
//!   for its probe sent the other way (it is coming round too) before it announces, so that, with
//!   FIFO links, no older probe of another candidate is still on its way to wake a node up after
//!   the announcement.
//! * **Repeated elections.** A node starts a new candidacy (its election number goes up, and
//!   survives a crash, so that its older probes and replies are recognised and ignored). A leader
//!   reached by a smaller id's probe campaigns again like any other node (the election in course
//!   re-elects it); a node that believes it leads and passes on a larger id's probe stops
//!   believing it (this only matters for a scenario whose initial leader is not the maximum).
//! * **Failure detection** (only with `heartbeats`): the leader sends HEARTBEAT directly to every
//!   node; a node that misses it for `heartbeats.timeout` starts an election. A candidate with no
//!   leader after `retry` ticks without progress starts again (a message was lost). A recovered
//!   node starts an election.
//!
//! Safety under any fault: a probe that comes all the way round has been passed on by every
//! other node, and only smaller ids pass a probe on (a crashed or cut-off node passes nothing), so
//! only the maximum id can ever win, and at most one node believes it leads. The price is
//! liveness: while any node is down or out of reach, nobody can win.
//!
//! Parameters (`params`): `retry` (ticks a candidate waits for progress before starting again,
//! with heartbeats only; default `10·N·latency_max + heartbeats.timeout`).

use crate::algorithm::Algorithm;
use crate::error::ScenarioError;
use crate::meta::{single_leader, Faults, Formula, Kind, Look, Preset, Role, Text, Topology, Visual, CANDIDATE_ROLE, FOLLOWER_ROLE, LEADER_ROLE};
use crate::protocol::{fmt_node, ParamReader, Config, Ctx, Message, Params, Protocol, TimerKey, View, CANDIDATE, FOLLOWER, LEADER};
use crate::run;
use crate::{NodeId, Time};

/// ⌈log₂ n⌉ (0 for n ≤ 1).
pub fn ceil_log2(n: u64) -> u64 {
    if n <= 1 {
        0
    } else {
        64 - (n - 1).leading_zeros() as u64
    }
}

pub const ALGORITHM: Algorithm = Algorithm {
    id: "hirschberg-sinclair",
    title: Text::new("Hirschberg-Sinclair ring", "Hirschberg-Sinclair 双向环选举"),
    citation: "D. S. Hirschberg and J. B. Sinclair, Decentralized extrema-finding in circular configurations of processors, Communications of the ACM 23(11), 1980",
    summary: Text::new(
        "On a two-way ring, candidates probe both ways to a radius that doubles every phase; a larger id swallows a probe, so fewer than N/2^k candidates survive phase k, and the one whose probes go all the way round is the maximum.",
        "在双向环上，候选人每个阶段向两个方向探测，半径逐阶段加倍；更大的 id 会吞掉探测，因此第 k 阶段后幸存的候选人少于 N/2^k 个，探测能绕环一周的那个就是最大者。",
    ),
    card: Text::new(
        "The nodes form a ring in which messages go both ways. Every candidate works in phases k = 0, 1, 2, …\n\n\
         • In phase k a candidate sends PROBE with its id both ways, to reach 2^k hops (the arc drawn round it).\n\
         • A node with a larger id swallows the probe. A smaller one passes it on, and the node 2^k hops away turns it back as REPLY.\n\
         • A candidate that gets REPLY from both sides is the largest id within 2^k hops: it doubles its radius and probes again.\n\
         • A candidate whose probes come all the way round has passed every node: it is the maximum. It leads and sends ELECTED round the ring.\n\n\
         What to watch: the arcs doubling and the candidates thinning out — two survivors of phase k are more than 2^k apart, so at most N/(2^k+1) survive. Each phase costs at most 8N messages and there are about log₂N of them: O(N log N), against N² for LeLann's ring. And a partition elects nobody: no probe can go round.",
        "节点组成消息可以双向传递的环。每个候选人按阶段 k = 0, 1, 2, … 工作。\n\n\
         • 在第 k 阶段，候选人向两个方向发送携带自己 id 的 PROBE（探测），探测半径为 2^k 跳（图中围绕它的弧）。\n\
         • id 更大的节点吞掉探测；更小的节点继续转发，距离 2^k 跳的节点把它作为 REPLY 折返。\n\
         • 两侧都收到 REPLY 的候选人是 2^k 跳范围内 id 最大的节点：它把半径加倍，进入下一阶段。\n\
         • 探测绕环一周回到自己的候选人经过了所有节点：它就是最大者。它成为领导者，并沿环发送 ELECTED。\n\n\
         观察要点：探测弧逐阶段加倍，候选人越来越少——第 k 阶段的两个幸存者相距超过 2^k 跳，因此至多 N/(2^k+1) 个幸存。每个阶段至多 8N 条消息，约 log₂N 个阶段：O(N log N)，而 LeLann 环需要 N² 条。网络分区时谁也选不出来：没有探测能绕环一周。",
    ),
    topology: Topology::BidirectionalRing,
    kinds: KINDS,
    roles: &[
        LEADER_ROLE,
        FOLLOWER_ROLE,
        CANDIDATE_ROLE,
        Role::new("relay", Look::Participant, Text::new("passed a larger id's probe on: out of the running", "转发过更大 id 的探测：已退出竞选")),
    ],
    formulas: &[Formula {
        name: "8N(1+⌈log₂N⌉)",
        applies: Text::new(
            "upper bound for one election, whoever starts: at most 4N in phase 0 and 8N in each later phase",
            "一次选举的上界（无论谁发起）：第 0 阶段至多 4N 条，此后每个阶段至多 8N 条",
        ),
        counts: &["PROBE", "REPLY"],
        value: |n| 8 * n * (1 + ceil_log2(n)),
    }],
    properties: &[single_leader(Faults::Any)],
    presets: PRESETS,
    build: run::build::<HirschbergSinclair>,
};

const PRESETS: &[Preset] = &[
    Preset {
        id: "hs-all",
        title: Text::new("Hirschberg-Sinclair: every node starts", "Hirschberg-Sinclair：所有节点都发起"),
        hint: Text::new(
            "The ring of the Chang-Roberts presets, every node a candidate. Phase 0 leaves N80, N12 and N32; phase 1 leaves N80 alone, whose radius-8 probes go all the way round. 44 PROBE + 20 REPLY: on six nodes that is more than LeLann's 36 — the log N pays off on larger rings.",
            "与 Chang-Roberts 预设相同的环，所有节点都是候选人。第 0 阶段后剩下 N80、N12 和 N32；第 1 阶段后只剩 N80，它半径为 8 的探测绕环一周。共 44 条 PROBE + 20 条 REPLY：在六个节点上比 LeLann 的 36 条还多——log N 的优势要在更大的环上才显现。",
        ),
        json: r#"{"algorithm":"hirschberg-sinclair","nodes":[80,6,12,5,32,3],"seed":425,
                  "schedule":[{"at":0,"start":80},{"at":0,"start":6},{"at":0,"start":12},{"at":0,"start":5},{"at":0,"start":32},{"at":0,"start":3}]}"#,
        leaders: &[80],
        golden: "7a4732409962bcf6",
    },
    Preset {
        id: "hs-phases-16",
        title: Text::new("Hirschberg-Sinclair: 16 candidates, doubling arcs", "Hirschberg-Sinclair：16 个候选人，探测弧逐阶段加倍"),
        hint: Text::new(
            "Sixteen candidates on a bit-reversed ring: 8 survive phase 0, 4 phase 1, 2 phase 2, 1 phase 3 — here the count halves each phase. Watch the arcs double. 160 PROBE + 64 REPLY = 224, within 8N(1+⌈log₂N⌉) = 640 and below LeLann's N² = 256.",
            "16 个候选人排成按位反转顺序的环：第 0 阶段后剩 8 个，第 1 阶段后 4 个，第 2 阶段后 2 个，第 3 阶段后 1 个——这里每个阶段恰好减半。观察探测弧逐阶段加倍。共 160 条 PROBE + 64 条 REPLY = 224 条，不超过 8N(1+⌈log₂N⌉) = 640，也少于 LeLann 的 N² = 256。",
        ),
        json: r#"{"algorithm":"hirschberg-sinclair","nodes":[16,8,12,4,14,6,10,2,15,7,11,3,13,5,9,1],"seed":425,
                  "schedule":[{"at":0,"start":16},{"at":0,"start":8},{"at":0,"start":12},{"at":0,"start":4},
                              {"at":0,"start":14},{"at":0,"start":6},{"at":0,"start":10},{"at":0,"start":2},
                              {"at":0,"start":15},{"at":0,"start":7},{"at":0,"start":11},{"at":0,"start":3},
                              {"at":0,"start":13},{"at":0,"start":5},{"at":0,"start":9},{"at":0,"start":1}]}"#,
        leaders: &[16],
        golden: "92e2d00e051a526f",
    },
    Preset {
        id: "hs-partition",
        title: Text::new("Hirschberg-Sinclair under a partition: nobody wins", "分区下的 Hirschberg-Sinclair：谁也选不出来"),
        hint: Text::new(
            "N6 leads. At t=10 the ring is cut into {1,2,3} and {4,5,6}: the left side misses N6's heartbeats and probes, but no probe can go round, so no second leader appears. Heal at t=120 and N6 is elected again.",
            "N6 是领导者。t=10 时环被分成 {1,2,3} 与 {4,5,6}：左侧收不到 N6 的心跳并开始探测，但没有探测能绕环一周，因此不会出现第二个领导者。t=120 时恢复网络，N6 再次当选。",
        ),
        json: r#"{"algorithm":"hirschberg-sinclair","nodes":[1,2,3,4,5,6],"seed":425,"initial_leader":6,
                  "heartbeats":{"interval":3,"timeout":12},
                  "schedule":[{"at":10,"partition":[[1,2,3],[4,5,6]]},{"at":120,"heal":true}],"stop":{"max_time":400}}"#,
        leaders: &[6],
        golden: "32ac18a6ea42e1a4",
    },
];

// Narration: one sentence per rule, in both languages. `{0}` is the acting node.
const N_START: Text = Text::new(
    "N{0} starts an election as a candidate: phase 0, it sends PROBE both ways with radius 1.",
    "N{0} 作为候选人发起选举：第 0 阶段，向两个方向发送 PROBE（探测），半径为 1。",
);
const N_WAKE: Text = Text::new(
    "N{0} swallows N{1}'s PROBE ({0} > {1}, so N{1} cannot be the maximum) and, not yet in the election, joins it as a candidate: phase 0, PROBE both ways with radius 1.",
    "N{0} 吞掉 N{1} 的 PROBE（{0} > {1}，所以 N{1} 不可能是最大者）；它尚未参加选举，于是作为候选人加入：第 0 阶段，向两个方向发送半径为 1 的 PROBE。",
);
const N_LEADER_WAKE: Text = Text::new(
    "N{0} leads, but N{1}'s PROBE shows an election is running: N{0} swallows it ({0} > {1}) and campaigns again from phase 0.",
    "N{0} 是领导者，但 N{1} 的 PROBE 表明有选举正在进行：N{0} 吞掉它（{0} > {1}），并从第 0 阶段重新竞选。",
);
const N_SWALLOW: Text = Text::new(
    "N{0} swallows N{1}'s PROBE: {0} > {1}, so N{1} cannot be the maximum.",
    "N{0} 吞掉 N{1} 的 PROBE：{0} > {1}，所以 N{1} 不可能是最大者。",
);
const N_RELAY: Text = Text::new(
    "N{0} passes N{1}'s PROBE on: {1} > {0}, and {2:hop:hops} out the probe has not reached its radius yet.",
    "N{0} 继续转发 N{1} 的 PROBE：{1} > {0}，且探测才走了 {2} 跳，尚未到达其半径。",
);
const N_TURN: Text = Text::new(
    "N{0} is {2:hop:hops} from N{1}, the radius of its probe, and {1} > {0}: it turns the probe back as REPLY.",
    "N{0} 距离 N{1} 恰好 {2} 跳，正是其探测半径，且 {1} > {0}：它把探测作为 REPLY 折返。",
);
const N_WITHDRAW: Text = Text::new(
    "The probe of N{1}, a larger id, has reached N{0}, so N{0} cannot be the maximum: it withdraws from the election.",
    "更大的 N{1} 的探测到达了 N{0}，所以 N{0} 不可能是最大者：它退出竞选。",
);
const N_STEP_DOWN: Text = Text::new(
    "N{0} believed it led, but the probe of N{1}, a larger id, has reached it: N{0} stops believing it leads.",
    "N{0} 原以为自己是领导者，但更大的 N{1} 的探测到达了它：N{0} 不再认为自己是领导者。",
);
const N_REPLY_PASS: Text = Text::new("N{0} passes N{1}'s REPLY back towards N{1}.", "N{0} 把 N{1} 的 REPLY 继续传回 N{1}。");
const N_HALF: Text = Text::new(
    "N{0} gets one REPLY of phase {1}: no larger id within {2:hop:hops} on that side; it waits for the other side.",
    "N{0} 收到第 {1} 阶段的一个 REPLY：这一侧 {2} 跳以内没有更大的 id；它等待另一侧。",
);
const N_NEXT: Text = Text::new(
    "N{0} has both REPLYs of phase {1}: no id within {2:hop:hops} either way is larger, so it goes on to the next phase and probes twice as far.",
    "N{0} 收到第 {1} 阶段两侧的 REPLY：两侧 {2} 跳以内都没有更大的 id，于是进入下一阶段，探测距离加倍。",
);
const N_LATE_REPLY: Text = Text::new(
    "N{0} gets its REPLY of phase {1}, but it has withdrawn or moved on: the reply changes nothing.",
    "N{0} 收到自己第 {1} 阶段的 REPLY，但它已退出竞选或已进入后续阶段：这条回复不再起作用。",
);
const N_HOME_ONE: Text = Text::new(
    "N{0}'s PROBE has come all the way round the ring without being swallowed: no id is larger than {0}. It waits for its probe sent the other way.",
    "N{0} 的 PROBE 绕环一周回来了，没有被吞掉：没有比 {0} 更大的 id。它等待另一个方向的探测回来。",
);
const N_WIN: Text = Text::new(
    "N{0}'s probes have both come all the way round: {0} is the largest id on the ring, so N{0} leads and sends ELECTED round the ring.",
    "N{0} 的两个探测都绕环一周回来了：{0} 是环上最大的 id，所以 N{0} 成为领导者，并沿环发送 ELECTED。",
);
const N_STALE: Text = Text::new(
    "N{0} drops its own PROBE of an earlier phase or election (phase {1}): it no longer waits for it.",
    "N{0} 丢弃自己在较早阶段或较早选举中的 PROBE（第 {1} 阶段）：它已不再等待这条探测。",
);
const N_ELECTED: Text = Text::new(
    "N{0} learns from ELECTED that N{1} leads, and passes it on round the ring.",
    "N{0} 从 ELECTED 得知 N{1} 是领导者，并沿环继续转发。",
);
const N_ANNOUNCED: Text = Text::new(
    "N{0}'s ELECTED has gone all the way round: every node knows it leads.",
    "N{0} 的 ELECTED 已绕环一周：所有节点都知道它是领导者。",
);
const N_BUSY: Text = Text::new("N{0} is already a candidate in this election.", "N{0} 已是本次选举的候选人。");
const N_BUSY_RELAY: Text = Text::new(
    "N{0} has already seen a larger id campaigning, so starting a candidacy of its own would be pointless.",
    "N{0} 已看到更大的 id 在竞选，自己再参选没有意义。",
);
const N_BEAT: Text = Text::new("N{0} leads: it sends HEARTBEAT to everyone.", "N{0} 是领导者：向所有节点发送 HEARTBEAT（心跳）。");
const N_ALIVE: Text = Text::new("N{0} hears N{1}'s heartbeat: the leader is alive.", "N{0} 收到 N{1} 的心跳：领导者仍然存活。");
const N_SUSPECT: Text = Text::new(
    "N{0} heard no heartbeat from leader N{1} for {2} ticks: it suspects N{1} has crashed and starts an election as a candidate (phase 0, radius 1).",
    "N{0} 已有 {2} 个时间单位没有收到领导者 N{1} 的心跳：它怀疑 N{1} 已崩溃，于是作为候选人发起选举（第 0 阶段，半径 1）。",
);
const N_RETRY: Text = Text::new(
    "N{0} has made no progress for {1} ticks and knows no leader (a probe or reply was lost, or the ring is broken): it starts again from phase 0.",
    "N{0} 已有 {1} 个时间单位没有进展，也不知道领导者是谁（探测或回复丢失，或环已断开）：它从第 0 阶段重新开始。",
);
const N_RECOVER: Text = Text::new(
    "N{0} recovers with no memory of a leader, so it starts an election as a candidate (phase 0, radius 1).",
    "N{0} 恢复后不记得领导者是谁，于是作为候选人发起选举（第 0 阶段，半径 1）。",
);

#[derive(Clone, Debug)]
pub struct HirschbergSinclair {
    /// Ticks a candidate waits for progress before it starts again (with heartbeats only).
    pub retry: Time,
}

impl HirschbergSinclair {
    fn from_params(cfg: &Config, params: &Params) -> Result<Self, ScenarioError> {
        let p = ParamReader::new(params, &["retry"])?;
        let n = cfg.n() as Time;
        let retry = p.uint("retry")?.unwrap_or(10 * n * cfg.latency.1 + cfg.heartbeats.map_or(0, |h| h.timeout));
        if retry == 0 {
            return Err(ScenarioError::new("params.retry", "must be at least 1 tick"));
        }
        Ok(HirschbergSinclair { retry })
    }
}

/// Which way round the ring a message travels.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Dir {
    /// Clockwise: towards the successor.
    Cw,
    /// Counter-clockwise: towards the predecessor.
    Ccw,
}

impl Dir {
    pub fn flip(self) -> Dir {
        match self {
            Dir::Cw => Dir::Ccw,
            Dir::Ccw => Dir::Cw,
        }
    }
    fn index(self) -> usize {
        self as usize
    }
}

fn neighbour(cfg: &Config, me: NodeId, dir: Dir) -> NodeId {
    match dir {
        Dir::Cw => cfg.successor(me),
        Dir::Ccw => cfg.predecessor(me),
    }
}

/// 2^phase hops (saturating).
fn radius(phase: u32) -> u64 {
    1u64.checked_shl(phase).unwrap_or(u64::MAX)
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Status {
    /// Not taking part in an election.
    Idle,
    /// Campaigning: probing in phase `State::phase`.
    Candidate,
    /// Has passed a larger id's probe on: out of the running until the next election.
    Relay,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct State {
    pub me: NodeId,
    pub leader: Option<NodeId>,
    /// This node's election number (durable): its probes and replies carry it.
    pub round: u64,
    pub status: Status,
    /// The candidate's current phase (probe radius 2^phase); kept after the election for the
    /// inspector.
    pub phase: u32,
    /// REPLY received from the clockwise / counter-clockwise probe of the current phase.
    pub replied: [bool; 2],
    /// The clockwise / counter-clockwise probe of the current phase came all the way round.
    pub home: [bool; 2],
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Msg {
    /// Candidate `id`'s probe of phase `phase`, `hops` hops from it, travelling `dir`.
    Probe { id: NodeId, round: u64, phase: u32, hops: u64, dir: Dir },
    /// The probe turned back at the radius, travelling `dir` (back towards `id`).
    Reply { id: NodeId, round: u64, phase: u32, dir: Dir },
    Elected(NodeId),
    Heartbeat,
}

kinds! {
    Msg;
    Msg::Probe { .. } => Kind::new("PROBE", "P", Visual::Request, Text::new("a candidate's id, sent both ways to 2^k hops", "候选人的 id，向两个方向探测 2^k 跳")),
    Msg::Reply { .. } => Kind::new("REPLY", "R", Visual::Answer, Text::new("a probe turned back at its radius: no larger id on the way", "在探测半径处折返：沿途没有更大的 id")),
    Msg::Elected(_) => Kind::new("ELECTED", "EL", Visual::Announcement, Text::new("the maximum announces itself round the ring", "最大者沿环宣布自己当选")),
    Msg::Heartbeat => Kind::new("HEARTBEAT", "hb", Visual::Heartbeat, Text::new("the leader's periodic sign of life, sent directly", "领导者直接发送的定期存活信号（心跳）")),
}

impl Message for Msg {
    fn label(&self) -> String {
        match self {
            Msg::Probe { id, phase, hops, .. } => format!("PROBE({id}, k={phase}, hop {hops})"),
            Msg::Reply { id, phase, .. } => format!("REPLY({id}, k={phase})"),
            Msg::Elected(l) => format!("ELECTED(N{l})"),
            Msg::Heartbeat => "HEARTBEAT".into(),
        }
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Timer {
    /// The failure detector: no heartbeat from the leader for `heartbeats.timeout`.
    LeaderTimeout,
    /// The leader's periodic HEARTBEAT broadcast.
    Heartbeat,
    /// No progress in the candidate's election for `retry` ticks.
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

impl HirschbergSinclair {
    /// Becomes a candidate of a new election, in phase 0. The caller narrates why.
    fn begin(&self, s: &mut State, ctx: &mut C) {
        s.round += 1;
        s.status = Status::Candidate;
        s.phase = 0;
        if s.leader == Some(ctx.me) {
            ctx.cancel_timer(Timer::Heartbeat);
        }
        s.leader = None;
        ctx.cancel_timer(Timer::LeaderTimeout);
        self.probe(s, ctx);
    }

    /// Sends the current phase's probes both ways.
    fn probe(&self, s: &mut State, ctx: &mut C) {
        s.replied = [false; 2];
        s.home = [false; 2];
        if ctx.cfg.heartbeats.is_some() {
            ctx.set_timer_after(Timer::Retry, self.retry);
        }
        for dir in [Dir::Cw, Dir::Ccw] {
            let to = neighbour(ctx.cfg, ctx.me, dir);
            ctx.send(to, Msg::Probe { id: ctx.me, round: s.round, phase: s.phase, hops: 1, dir });
        }
    }

    fn win(&self, s: &mut State, ctx: &mut C) {
        s.status = Status::Idle;
        s.leader = Some(ctx.me);
        ctx.cancel_timer(Timer::Retry);
        ctx.arm_heartbeat(Timer::Heartbeat);
        let succ = ctx.cfg.successor(ctx.me);
        ctx.send(succ, Msg::Elected(ctx.me));
    }

    fn is_current(&self, s: &State, round: u64, phase: u32) -> bool {
        s.status == Status::Candidate && round == s.round && phase == s.phase
    }
}

impl Protocol for HirschbergSinclair {
    type State = State;
    type Msg = Msg;
    type Timer = Timer;
    const KINDS: &'static [Kind] = KINDS;

    fn new(cfg: &Config, params: &Params) -> Result<Self, ScenarioError> {
        HirschbergSinclair::from_params(cfg, params)
    }

    fn init(&self, ctx: &mut C) -> State {
        let mut s = State { me: ctx.me, leader: ctx.cfg.initial_leader, round: 0, status: Status::Idle, phase: 0, replied: [false; 2], home: [false; 2] };
        if let Some(hb) = ctx.cfg.heartbeats {
            match s.leader {
                Some(l) if l == ctx.me => ctx.set_timer_after(Timer::Heartbeat, hb.interval),
                Some(_) => ctx.watch_leader(Timer::LeaderTimeout, s.leader),
                None => {
                    ctx.note(&N_START, &[ctx.me as u64]);
                    self.begin(&mut s, ctx);
                }
            }
        }
        s
    }

    fn start(&self, s: &mut State, ctx: &mut C) {
        match s.status {
            Status::Candidate => ctx.note(&N_BUSY, &[ctx.me as u64]),
            Status::Relay => ctx.note(&N_BUSY_RELAY, &[ctx.me as u64]),
            Status::Idle => {
                ctx.note(&N_START, &[ctx.me as u64]);
                self.begin(s, ctx);
            }
        }
    }

    fn on_message(&self, s: &mut State, from: NodeId, msg: Msg, ctx: &mut C) {
        let me = ctx.me;
        match msg {
            Msg::Probe { id, round, phase, dir, .. } if id == me => {
                // Its own probe came all the way round.
                if self.is_current(s, round, phase) {
                    s.home[dir.index()] = true;
                    if s.home == [true; 2] {
                        ctx.note(&N_WIN, &[me as u64]);
                        self.win(s, ctx);
                    } else {
                        ctx.note(&N_HOME_ONE, &[me as u64]);
                    }
                } else {
                    ctx.note(&N_STALE, &[me as u64, phase as u64]);
                }
            }
            Msg::Probe { id, round, phase, hops, dir } if id > me => {
                // A larger id: pass it on, or turn it back at the radius.
                if s.leader == Some(me) {
                    ctx.note(&N_STEP_DOWN, &[me as u64, id as u64]);
                    s.leader = None;
                    ctx.cancel_timer(Timer::Heartbeat);
                }
                match s.status {
                    Status::Candidate => {
                        ctx.note(&N_WITHDRAW, &[me as u64, id as u64]);
                        s.status = Status::Relay;
                    }
                    Status::Idle => s.status = Status::Relay,
                    Status::Relay => {}
                }
                let r = radius(phase);
                if hops < r {
                    ctx.note(&N_RELAY, &[me as u64, id as u64, hops]);
                    let to = neighbour(ctx.cfg, me, dir);
                    ctx.send(to, Msg::Probe { id, round, phase, hops: hops + 1, dir });
                } else {
                    ctx.note(&N_TURN, &[me as u64, id as u64, hops]);
                    let back = dir.flip();
                    ctx.send(neighbour(ctx.cfg, me, back), Msg::Reply { id, round, phase, dir: back });
                }
            }
            Msg::Probe { id, .. } => {
                // A smaller id: swallow it; a node not yet in the election joins.
                match s.status {
                    Status::Idle => {
                        let text = if s.leader == Some(me) { &N_LEADER_WAKE } else { &N_WAKE };
                        ctx.note(text, &[me as u64, id as u64]);
                        self.begin(s, ctx);
                    }
                    _ => ctx.note(&N_SWALLOW, &[me as u64, id as u64]),
                }
            }
            Msg::Reply { id, round, phase, dir } => {
                if id != me {
                    ctx.note(&N_REPLY_PASS, &[me as u64, id as u64]);
                    ctx.send(neighbour(ctx.cfg, me, dir), Msg::Reply { id, round, phase, dir });
                } else if self.is_current(s, round, phase) {
                    // The reply to the probe sent the other way from the one it travels.
                    s.replied[dir.flip().index()] = true;
                    if s.replied == [true; 2] {
                        ctx.note(&N_NEXT, &[me as u64, phase as u64, radius(phase)]);
                        s.phase += 1;
                        self.probe(s, ctx);
                    } else {
                        ctx.note(&N_HALF, &[me as u64, phase as u64, radius(phase)]);
                    }
                } else {
                    ctx.note(&N_LATE_REPLY, &[me as u64, phase as u64]);
                }
            }
            Msg::Elected(l) => {
                if l == me {
                    ctx.note(&N_ANNOUNCED, &[me as u64]);
                    return;
                }
                ctx.note(&N_ELECTED, &[me as u64, l as u64]);
                if s.leader == Some(me) {
                    ctx.cancel_timer(Timer::Heartbeat);
                }
                s.leader = Some(l);
                s.status = Status::Idle;
                ctx.cancel_timer(Timer::Retry);
                ctx.watch_leader(Timer::LeaderTimeout, s.leader);
                let succ = ctx.cfg.successor(me);
                ctx.send(succ, Msg::Elected(l));
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
                if s.leader.is_none() {
                    ctx.note(&N_RETRY, &[me as u64, self.retry]);
                    self.begin(s, ctx);
                }
            }
        }
    }

    fn recover(&self, crashed: &State, ctx: &mut C) -> State {
        let mut s = State { me: ctx.me, leader: None, round: crashed.round, status: Status::Idle, phase: 0, replied: [false; 2], home: [false; 2] };
        ctx.note(&N_RECOVER, &[ctx.me as u64]);
        self.begin(&mut s, ctx);
        s
    }

    fn view(&self, s: &State) -> View {
        let (role, reach) = match s.status {
            _ if s.leader == Some(s.me) => (LEADER, None),
            Status::Candidate => (CANDIDATE, Some(radius(s.phase).min(u32::MAX as u64) as u32)),
            Status::Relay => ("relay", None),
            Status::Idle => (FOLLOWER, None),
        };
        View { role, leader: s.leader, reach, ..View::default() }
    }

    fn inspect(&self, s: &State) -> Vec<(&'static str, String)> {
        let side = |b: [bool; 2]| format!("cw {} / ccw {}", if b[0] { "yes" } else { "no" }, if b[1] { "yes" } else { "no" });
        vec![
            ("leader", fmt_node(s.leader)),
            (
                "status",
                match s.status {
                    Status::Idle => "-",
                    Status::Candidate => "candidate",
                    Status::Relay => "relay (out of the running)",
                }
                .to_string(),
            ),
            ("phase / radius", format!("{} / {}", s.phase, radius(s.phase))),
            ("replies", side(s.replied)),
            ("probes home", side(s.home)),
            ("election number", s.round.to_string()),
            ("retry", self.retry.to_string()),
        ]
    }
}

#[cfg(test)]
mod tests;
