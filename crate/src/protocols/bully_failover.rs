//! **Bully with next-in-line failover** (M. Gholipour, M. S. Kordafshari, M. Jahanshahi and
//! A. M. Rahmani, "A New Approach for Election Algorithm in Distributed Systems", Second
//! International Conference on Communication Theory, Reliability, and Quality of Service (CTRQ),
//! IEEE 2009, pp. 70–74), an optimization of the Bully algorithm of H. Garcia-Molina, "Elections
//! in a Distributed Computing System", IEEE Transactions on Computers C-31(1), 1982. The reading
//! here follows the textbook treatment in A. Petrov, *Database Internals*, O'Reilly 2019, ch. 10.
//!
//! Every elected leader publishes, with its COORDINATOR message, an ordered **failover list**:
//! the ids just below its own, highest first (`N6` publishes `5, 4`). A node that detects the
//! leader's failure does not start a full election: it sends FAILOVER to the first listed node
//! above it and waits `t_out` ticks for ALIVE. A listed node that is up answers ALIVE — which
//! stops the detector from walking further down the list — and takes over; the detector then
//! waits `t_coord` ticks for its COORDINATOR. A silent listed node is taken as crashed and the
//! detector asks the next one. A detector that is itself next in line — listed, with no listed
//! node above it left to ask — takes over at once, asking nobody below it. When no listed node
//! above a detector that is not listed answers (or it knows no list), it falls back to a full
//! Bully election. Everything else is Bully: ELECTION to
//! every higher id, OK from each live one (which then runs its own election), COORDINATOR to
//! every lower id, heartbeats as the failure detector.
//!
//! Readings chosen:
//!
//! * **Taking over checks upward, as Bully does.** A node that takes over (on a FAILOVER, or
//!   because it is first in line itself) announces only after sending ELECTION to the ids above
//!   it and hearing no OK within `t_out` — in the usual case that is one message, to the crashed
//!   leader. The textbook's figure shows no such message: there the next in line trusts the
//!   detector. That trust is only as good as the detector: a node that suspects a live leader
//!   (a `start` while the leader is up, a heartbeat lost) would crown a second leader. With the
//!   check, a live leader answers OK and re-announces itself, and the variant keeps Bully's
//!   guarantee — the live node with the highest id leads — for one message more than the figure.
//! * **The list** is the `failover` ids just below the leader (default 2, as in the figure),
//!   fixed by the leader's id; it travels in COORDINATOR. With `initial_leader`, every node starts
//!   knowing that leader's list, as if it had been announced.
//! * **A listed node that is already in an election** answers ALIVE and goes on with it; its
//!   result reaches the detector, which is below it, in COORDINATOR. A detector that got ALIVE but
//!   no COORDINATOR within `t_coord` (the next in line crashed meanwhile, or found the leader
//!   alive) runs a full Bully election.
//! * **COORDINATOR acceptance, crash-recovery and heartbeats** are as in Bully: a lower announcer
//!   is ignored by a node that knows a leader; all state is volatile (a recovered node knows no
//!   leader and no list, and runs a full election); with `heartbeats: null` elections begin only
//!   by `start`, which makes the node treat its leader as failed.
//!
//! Parameters (`params`): `t_out` (wait for ALIVE or OK, default `2·latency_max + 1`, just above a
//! round trip), `t_coord` (wait for COORDINATOR, default `3·t_out`), `failover` (length of the
//! published list, default 2, at least 1).

use crate::algorithm::Algorithm;
use crate::error::ScenarioError;
use crate::meta::{single_leader, Faults, Formula, Kind, Look, Preset, Role, Text, Topology, Visual, CANDIDATE_ROLE, FOLLOWER_ROLE, LEADER_ROLE};
use crate::protocol::{fmt_node, ParamReader, Config, Ctx, Message, Params, Protocol, TimerKey, View, CANDIDATE, FOLLOWER, LEADER};
use crate::run;
use crate::{NodeId, Time};

#[derive(Clone, Debug)]
pub struct BullyFailover {
    pub t_out: Time,
    pub t_coord: Time,
    /// How many next-in-line ids a leader publishes.
    pub failover: usize,
}

pub const ALGORITHM: Algorithm = Algorithm {
    id: "bully-failover",
    title: Text::new("Bully with next-in-line failover", "带接班名单的 Bully 算法"),
    citation: "M. Gholipour, M. S. Kordafshari, M. Jahanshahi, A. M. Rahmani, A New Approach for Election Algorithm in Distributed Systems, CTRQ 2009 (IEEE), pp. 70–74; on H. Garcia-Molina, Elections in a Distributed Computing System, IEEE Transactions on Computers C-31(1), 1982",
    summary: Text::new(
        "Each leader names its successors in advance: when it fails, the first of them that is still up takes over, with no cascade of elections.",
        "每个领导者预先指定接班人：它失效时，名单上第一个仍存活的节点直接接任，无需逐级的选举级联。",
    ),
    card: Text::new(
        "Bully, with a shortcut. Every leader announces, together with COORDINATOR, a failover list: the ids just below its own, highest first.\n\n\
         • A node that suspects the leader sends FAILOVER to the first listed node above it and waits for ALIVE.\n\
         • A listed node that is up answers ALIVE, which stops the detector walking the list, and takes over: it only checks, with ELECTION, that nobody above it is alive, then sends COORDINATOR with its own list.\n\
         • A listed node that stays silent is taken as crashed: the detector asks the next one. A detector that is itself next in line takes over at once.\n\
         • If nobody on the list answers, the detector falls back to a full Bully election.\n\n\
         What to watch: with the next in line alive, the election costs N+1 messages instead of Bully's cascade; crash the next in line too and see the detector walk down the list.",
        "在 Bully 的基础上走一条捷径。每个领导者在发送 COORDINATOR 时一并公布接班名单：紧挨在它下面的几个 id，从大到小排列。\n\n\
         • 怀疑领导者失效的节点，向名单上第一个比自己大的节点发送 FAILOVER，并等待 ALIVE。\n\
         • 名单上存活的节点回复 ALIVE（检测者因此不再往下问），然后接任：它只用 ELECTION 确认比自己大的节点都已不在，随即发送 COORDINATOR 及自己的接班名单。\n\
         • 名单上没有回音的节点被视为已崩溃：检测者转而询问下一个。若检测者自己就是下一顺位，它立即接任。\n\
         • 若名单上无人回应，检测者退回完整的 Bully 选举。\n\n\
         观察要点：下一顺位存活时，一次选举只需 N+1 条消息，没有 Bully 的级联；再让下一顺位也崩溃，看检测者沿名单逐个往下问。",
    ),
    topology: Topology::Complete,
    kinds: KINDS,
    roles: &[
        LEADER_ROLE,
        FOLLOWER_ROLE,
        CANDIDATE_ROLE,
        Role::new("asking-next", Look::Participant, Text::new("asking the next in line to take over", "正在请名单上的下一顺位接任")),
        Role::new("waiting-coord", Look::Waiting, Text::new("waiting for COORDINATOR", "等待 COORDINATOR")),
    ],
    formulas: &[Formula {
        name: "N+1",
        applies: Text::new(
            "the top id crashed, a node below the next in line notices, the next in line is alive: 1 FAILOVER, 1 ALIVE, 1 ELECTION to the crashed leader, COORDINATOR to the N−2 others",
            "最大 id 崩溃，下一顺位之下的某个节点察觉，且下一顺位存活：1 条 FAILOVER、1 条 ALIVE、1 条发往已崩溃领导者的 ELECTION，以及发给其余 N−2 个节点的 COORDINATOR",
        ),
        counts: &["FAILOVER", "ALIVE", "ELECTION", "OK", "COORDINATOR"],
        value: |n| n + 1,
    }],
    properties: &[single_leader(Faults::CrashStop)],
    presets: PRESETS,
    build: run::build::<BullyFailover>,
};

const PRESETS: &[Preset] = &[
    Preset {
        id: "failover-figure",
        title: Text::new("Failover: N6 crashed, N3 notices", "接班：N6 崩溃，N3 察觉"),
        hint: Text::new(
            "N6 leads with failover list 5, 4 and crashes. N3 asks N5, N5 answers ALIVE and takes over: 7 messages (N+1), where Bully needs 13.",
            "N6 是领导者，接班名单为 5、4，随后崩溃。N3 询问 N5，N5 回复 ALIVE 并接任：共 7 条消息（N+1），而 Bully 需要 13 条。",
        ),
        json: r#"{"algorithm":"bully-failover","nodes":[1,2,3,4,5,6],"seed":425,"initial_leader":6,
                  "schedule":[{"at":0,"crash":6},{"at":1,"start":3}]}"#,
        leaders: &[5],
        golden: "ca6f91ed7635bf72",
    },
    Preset {
        id: "failover-next-down",
        title: Text::new("Failover: the next in line is down too", "接班：下一顺位也已崩溃"),
        hint: Text::new(
            "N6 and N5 crashed. N3 asks N5 and hears nothing, so it asks N4, the next on the list: N4 takes over.",
            "N6 和 N5 都已崩溃。N3 询问 N5 没有回音，于是询问名单上的下一个 N4：N4 接任。",
        ),
        json: r#"{"algorithm":"bully-failover","nodes":[1,2,3,4,5,6],"seed":425,"initial_leader":6,
                  "schedule":[{"at":0,"crash":6},{"at":0,"crash":5},{"at":1,"start":3}]}"#,
        leaders: &[4],
        golden: "d4d653aa6ab2c9d6",
    },
    Preset {
        id: "failover-heartbeats",
        title: Text::new("Failover with heartbeats", "带心跳的接班"),
        hint: Text::new(
            "N6 leads and sends heartbeats; it crashes at t = 20. Everyone notices at once: N5 is first in line and takes over, the others just ask it. Click N5 before it is done to see the list walked further.",
            "N6 是领导者并发送心跳，在 t = 20 时崩溃。所有节点同时察觉：N5 是第一顺位，直接接任，其他节点只是询问它。在它完成之前点击 N5，可以看到检测者沿名单继续往下问。",
        ),
        json: r#"{"algorithm":"bully-failover","nodes":[1,2,3,4,5,6],"seed":425,"initial_leader":6,
                  "heartbeats":{"interval":3,"timeout":12},"schedule":[{"at":20,"crash":6}],"stop":{"max_time":200}}"#,
        leaders: &[5],
        golden: "3d91b91d7b671962",
    },
];

// Narration: one sentence per rule, in both languages. `{0}` is the acting node.
const N_ASK_FIRST: Text = Text::new(
    "N{0} treats leader N{1} as failed and, instead of a full election, sends FAILOVER to N{2}, the first node above it on N{1}'s failover list.",
    "N{0} 认定领导者 N{1} 已失效；它不发起完整选举，而是向 N{1} 接班名单上第一个比自己大的节点 N{2} 发送 FAILOVER。",
);
const N_ASK_NEXT: Text = Text::new(
    "N{1} did not answer FAILOVER in time, so N{0} takes it as crashed and asks the next in line, N{2}.",
    "N{1} 没有及时回应 FAILOVER，N{0} 视其为已崩溃，转而询问下一顺位 N{2}。",
);
const N_FIRST: Text = Text::new(
    "N{0} is itself next in line (no listed node above it is left to ask), so it takes over at once: like Bully, it only sends ELECTION to the {1:id:ids} above it and waits {2} ticks for an OK.",
    "N{0} 自己就是下一顺位（名单上已没有比它大的节点可问），于是立即接任：和 Bully 一样，它只向 {1} 个比自己大的 id 发送 ELECTION，并等待 {2} 个时间单位内的 OK。",
);
const N_LIST_SILENT: Text = Text::new(
    "Nobody listed above N{0} answered: it falls back to a full Bully election, sending ELECTION to the {1:higher id:higher ids} and waiting {2} ticks for an OK.",
    "名单上比 N{0} 大的节点都没有回应：它退回完整的 Bully 选举，向 {1} 个更大的 id 发送 ELECTION，并等待 {2} 个时间单位内的 OK。",
);
const N_NO_LIST: Text = Text::new(
    "N{0} knows no failover list, so it runs a full Bully election: ELECTION to the {1:higher id:higher ids}, then {2} ticks to wait for an OK.",
    "N{0} 不知道接班名单，于是发起完整的 Bully 选举：向 {1} 个更大的 id 发送 ELECTION，并等待 {2} 个时间单位内的 OK。",
);
const N_TAKE_OVER: Text = Text::new(
    "N{0} gets FAILOVER from N{1}: it is next in line and up, so it answers ALIVE and takes over, after checking with ELECTION that none of the {2:id:ids} above it is alive.",
    "N{0} 收到 N{1} 的 FAILOVER：它是下一顺位且存活，于是回复 ALIVE 并接任；接任前先用 ELECTION 确认 {2} 个比它大的 id 都已不在。",
);
const N_FO_BUSY: Text = Text::new(
    "N{0} gets FAILOVER from N{1} while already in an election: it answers ALIVE, so N{1} waits for that election's COORDINATOR.",
    "N{0} 在选举进行中收到 N{1} 的 FAILOVER：它回复 ALIVE，N{1} 于是等待这次选举的 COORDINATOR。",
);
const N_FO_LEADER: Text = Text::new(
    "N{0} already leads and gets FAILOVER from N{1}: it answers ALIVE and repeats COORDINATOR to N{1}.",
    "N{0} 已是领导者，收到 N{1} 的 FAILOVER：它回复 ALIVE，并再次向 N{1} 发送 COORDINATOR。",
);
const N_ALIVE: Text = Text::new(
    "N{0} gets ALIVE from N{1}: the next in line is up and takes over, so N{0} stops walking the list and waits {2} ticks for its COORDINATOR.",
    "N{0} 收到 N{1} 的 ALIVE：下一顺位存活并将接任，所以 N{0} 不再往下问，并等待其 COORDINATOR（最多 {2} 个时间单位）。",
);
const N_TOP: Text = Text::new(
    "N{0} has the highest id, so nobody can bully it: it declares itself leader at once and sends COORDINATOR, with its failover list, to every lower id.",
    "N{0} 的 id 最大，没有节点能压过它：它立即宣布自己为领导者，并向所有更小的 id 发送附带接班名单的 COORDINATOR。",
);
const N_BULLY: Text = Text::new(
    "N{0} gets ELECTION from N{1}: {0} > {1}, so it answers OK (bullying N{1} out) and runs its own election.",
    "N{0} 收到 N{1} 的 ELECTION：{0} > {1}，所以它回复 OK（把 N{1} 压下去），并发起自己的选举。",
);
const N_BULLY_BUSY: Text = Text::new(
    "N{0} gets ELECTION from N{1}: {0} > {1}, so it answers OK; it is already in an election of its own.",
    "N{0} 收到 N{1} 的 ELECTION：{0} > {1}，所以它回复 OK；它自己已在选举中。",
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
    "N{0} accepts COORDINATOR from N{1}: N{1} is the leader now, and N{2} is first on its failover list.",
    "N{0} 接受 N{1} 的 COORDINATOR：N{1} 现在是领导者，其接班名单上的第一顺位是 N{2}。",
);
const N_ACCEPT_NO_LIST: Text = Text::new(
    "N{0} accepts COORDINATOR from N{1}: N{1} is the leader now (it has nobody below it to list).",
    "N{0} 接受 N{1} 的 COORDINATOR：N{1} 现在是领导者（它下面没有可列入名单的节点）。",
);
const N_IGNORE: Text =
    Text::new("N{0} ignores COORDINATOR from N{1}: it already knows a leader and {1} < {0}.", "N{0} 忽略 N{1} 的 COORDINATOR：它已知道领导者，且 {1} < {0}。");
const N_NO_OK: Text = Text::new(
    "No OK reached N{0} within {1} ticks: no higher node is alive, so N{0} declares itself leader and sends COORDINATOR, with its failover list, to the lower ids.",
    "N{0} 在 {1} 个时间单位内没有收到 OK：没有更大的节点存活，所以 N{0} 宣布自己为领导者，并向更小的 id 发送附带接班名单的 COORDINATOR。",
);
const N_NO_COORD: Text = Text::new(
    "No COORDINATOR reached N{0} within {1} ticks (the node taking over may have crashed): it runs a full Bully election.",
    "N{0} 在 {1} 个时间单位内没有等到 COORDINATOR（接任的节点可能已崩溃）：它发起完整的 Bully 选举。",
);
const N_SUSPECT: Text = Text::new(
    "N{0} heard no heartbeat from leader N{1} for {2} ticks: it suspects N{1} has crashed.",
    "N{0} 已有 {2} 个时间单位没有收到领导者 N{1} 的心跳：它怀疑 N{1} 已崩溃。",
);
const N_START_LEADER: Text =
    Text::new("N{0} is asked to start an election, but it leads already: there is nothing to elect.", "N{0} 被要求发起选举，但它已是领导者：无需选举。");
const N_BEAT: Text = Text::new("N{0} leads: it sends HEARTBEAT to everyone.", "N{0} 是领导者：向所有节点发送 HEARTBEAT（心跳）。");
const N_ALIVE_HB: Text = Text::new("N{0} hears N{1}'s heartbeat: the leader is alive.", "N{0} 收到 N{1} 的心跳：领导者仍然存活。");
const N_RECOVER: Text = Text::new(
    "N{0} recovers with no memory of a leader or of a failover list, so it runs a full Bully election.",
    "N{0} 恢复后既不记得领导者，也不记得接班名单，于是发起完整的 Bully 选举。",
);

impl BullyFailover {
    fn from_params(cfg: &Config, params: &Params) -> Result<Self, ScenarioError> {
        let p = ParamReader::new(params, &["t_out", "t_coord", "failover"])?;
        let t_out = p.uint("t_out")?.unwrap_or(2 * cfg.latency.1 + 1);
        if t_out == 0 {
            return Err(ScenarioError::new("params.t_out", "must be at least 1 tick"));
        }
        let t_coord = p.uint("t_coord")?.unwrap_or(3 * t_out);
        if t_coord == 0 {
            return Err(ScenarioError::new("params.t_coord", "must be at least 1 tick"));
        }
        let failover = p.uint("failover")?.map_or(2, |n| n as usize);
        if failover == 0 {
            return Err(ScenarioError::new("params.failover", "the list needs at least 1 node"));
        }
        Ok(BullyFailover { t_out, t_coord, failover })
    }

    /// The failover list `leader` publishes: the `failover` ids just below it, highest first.
    pub fn list_of(&self, cfg: &Config, leader: NodeId) -> Vec<NodeId> {
        cfg.lower(leader).iter().rev().take(self.failover).copied().collect()
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Stage {
    Idle,
    /// Sent FAILOVER to the `i`-th listed node above this one; waiting for ALIVE.
    Asking(usize),
    /// Sent ELECTION to the higher ids; waiting for OK (Bully's WAIT_OK).
    WaitOk,
    /// Waiting for COORDINATOR (Bully's WAIT_COORD, or after ALIVE).
    WaitCoord,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct State {
    pub me: NodeId,
    pub elected: Option<NodeId>,
    /// The failover list of the last leader this node accepted (empty if none).
    pub list: Vec<NodeId>,
    pub stage: Stage,
    /// The leader whose failure this node is handling.
    pub suspected: Option<NodeId>,
    /// Who last answered this node with OK or ALIVE (for the drawing: "bullied by").
    pub bullied_by: Option<NodeId>,
}

impl State {
    /// The listed nodes above this one, in list order (highest first).
    fn above(&self) -> impl Iterator<Item = NodeId> + '_ {
        self.list.iter().copied().filter(move |&x| x > self.me)
    }
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Msg {
    /// "Leader `.0` failed: you are next in line, take over."
    Failover(NodeId),
    Alive,
    Election,
    Ok,
    /// The new leader and its failover list.
    Coordinator(NodeId, Vec<NodeId>),
    Heartbeat,
}

kinds! {
    Msg;
    Msg::Failover(_) => Kind::new("FAILOVER", "FO", Visual::Request, Text::new("asks the next in line to take over from the failed leader", "请名单上的下一顺位接替失效的领导者")),
    Msg::Alive => Kind::new("ALIVE", "AL", Visual::Answer, Text::new("the next in line is up and takes over", "下一顺位存活并接任")),
    Msg::Election => Kind::new("ELECTION", "E", Visual::Request, Text::new("asks every higher id to take over", "请求所有更大的 id 接管选举")),
    Msg::Ok => Kind::new("OK", "OK", Visual::Answer, Text::new("a higher node is alive and takes over", "更大的节点存活并接管选举")),
    Msg::Coordinator(..) => Kind::new(
            "COORDINATOR",
            "C",
            Visual::Announcement,
            Text::new("the new leader announces itself and its failover list to the lower ids", "新领导者向更小的 id 宣布自己当选及其接班名单"),
        ),
    Msg::Heartbeat => Kind::new("HEARTBEAT", "hb", Visual::Heartbeat, Text::new("the leader's periodic sign of life", "领导者定期发出的存活信号（心跳）")),
}

impl Message for Msg {
    fn label(&self) -> String {
        match self {
            Msg::Failover(l) => format!("FAILOVER(N{l} failed)"),
            Msg::Coordinator(k, list) => {
                let list: Vec<String> = list.iter().map(|x| x.to_string()).collect();
                format!("COORDINATOR(N{k}; next {})", if list.is_empty() { "-".to_string() } else { list.join(",") })
            }
            m => KINDS[m.kind()].name.to_string(),
        }
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Timer {
    /// The current stage's deadline (ALIVE, OK or COORDINATOR).
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

/// The node stops believing in its leader, remembering it as the one that failed.
fn forget_leader(s: &mut State) {
    if let Some(l) = s.elected.take().filter(|&l| l != s.me) {
        s.suspected = Some(l);
    }
}

impl BullyFailover {
    /// The node takes its leader as failed: it asks the first listed node above it.
    fn detect(&self, s: &mut State, ctx: &mut C) {
        forget_leader(s);
        s.bullied_by = None;
        ctx.cancel_timer(Timer::LeaderTimeout);
        self.ask(s, ctx, 0);
    }

    /// Sends FAILOVER to the `i`-th listed node above this one, or, past the end of those,
    /// takes over (if listed) or runs a full Bully election.
    fn ask(&self, s: &mut State, ctx: &mut C, i: usize) {
        let me = ctx.me as u64;
        // The list is the failed leader's: without a leader known to have failed, it means nothing.
        let target = s.above().nth(i);
        if let (Some(failed), Some(target)) = (s.suspected, target) {
            match i {
                0 => ctx.note(&N_ASK_FIRST, &[me, failed as u64, target as u64]),
                _ => ctx.note(&N_ASK_NEXT, &[me, s.above().nth(i - 1).unwrap_or(0) as u64, target as u64]),
            }
            s.stage = Stage::Asking(i);
            ctx.send(target, Msg::Failover(failed));
            ctx.set_timer_after(Timer::Deadline, self.t_out);
            return;
        }
        let why = if s.list.is_empty() || s.suspected.is_none() {
            &N_NO_LIST
        } else if i == 0 || s.list.contains(&ctx.me) {
            &N_FIRST
        } else {
            &N_LIST_SILENT
        };
        self.elect(s, ctx, Some(why));
    }

    /// A Bully election from this node: ELECTION to every higher id (or leadership at once if
    /// there is none). `why` narrates it (args: me, number of higher ids, t_out).
    fn elect(&self, s: &mut State, ctx: &mut C, why: Option<&'static Text>) {
        if s.elected == Some(ctx.me) {
            return;
        }
        forget_leader(s);
        s.bullied_by = None;
        ctx.cancel_timer(Timer::LeaderTimeout);
        let higher = ctx.cfg.higher(ctx.me).len();
        if higher == 0 {
            ctx.note(&N_TOP, &[ctx.me as u64]);
            self.become_leader(s, ctx);
            return;
        }
        if let Some(t) = why {
            ctx.note(t, &[ctx.me as u64, higher as u64, self.t_out]);
        }
        s.stage = Stage::WaitOk;
        ctx.set_timer_after(Timer::Deadline, self.t_out);
        let cfg: &Config = ctx.cfg;
        for &j in cfg.higher(ctx.me) {
            ctx.send(j, Msg::Election);
        }
    }

    fn become_leader(&self, s: &mut State, ctx: &mut C) {
        s.stage = Stage::Idle;
        s.elected = Some(ctx.me);
        s.suspected = None;
        s.bullied_by = None;
        s.list = self.list_of(ctx.cfg, ctx.me);
        ctx.cancel_timer(Timer::Deadline);
        ctx.cancel_timer(Timer::LeaderTimeout);
        let cfg: &Config = ctx.cfg;
        for &j in cfg.lower(ctx.me) {
            ctx.send(j, Msg::Coordinator(ctx.me, s.list.clone()));
        }
        if let Some(hb) = cfg.heartbeats {
            ctx.set_timer_after(Timer::Heartbeat, hb.interval);
        }
    }

    /// Heard from (or about) the leader: re-arm the failure detector.
    fn leader_alive(&self, s: &State, ctx: &mut C) {
        ctx.watch_leader(Timer::LeaderTimeout, s.elected);
    }

    fn fresh(&self, ctx: &C, elected: Option<NodeId>) -> State {
        let list = elected.map_or(Vec::new(), |l| self.list_of(ctx.cfg, l));
        State { me: ctx.me, elected, list, stage: Stage::Idle, suspected: None, bullied_by: None }
    }
}

impl Protocol for BullyFailover {
    type State = State;
    type Msg = Msg;
    type Timer = Timer;
    const KINDS: &'static [Kind] = KINDS;

    fn new(cfg: &Config, params: &Params) -> Result<Self, ScenarioError> {
        BullyFailover::from_params(cfg, params)
    }

    fn init(&self, ctx: &mut C) -> State {
        let mut s = self.fresh(ctx, ctx.cfg.initial_leader);
        if let Some(hb) = ctx.cfg.heartbeats {
            match s.elected {
                Some(l) if l == ctx.me => ctx.set_timer_after(Timer::Heartbeat, hb.interval),
                Some(_) => self.leader_alive(&s, ctx),
                None => self.elect(&mut s, ctx, Some(&N_NO_LIST)),
            }
        }
        s
    }

    fn start(&self, s: &mut State, ctx: &mut C) {
        if s.elected == Some(ctx.me) {
            ctx.note(&N_START_LEADER, &[ctx.me as u64]);
            return;
        }
        self.detect(s, ctx);
    }

    fn on_message(&self, s: &mut State, from: NodeId, msg: Msg, ctx: &mut C) {
        let who = [ctx.me as u64, from as u64];
        match msg {
            Msg::Failover(failed) => {
                ctx.send(from, Msg::Alive);
                if s.elected == Some(ctx.me) {
                    ctx.note(&N_FO_LEADER, &who);
                    ctx.send(from, Msg::Coordinator(ctx.me, s.list.clone()));
                } else if s.stage != Stage::Idle {
                    ctx.note(&N_FO_BUSY, &who);
                } else {
                    let higher = ctx.cfg.higher(ctx.me).len() as u64;
                    ctx.note(&N_TAKE_OVER, &[ctx.me as u64, from as u64, higher]);
                    s.suspected = Some(failed);
                    self.elect(s, ctx, None);
                }
            }
            Msg::Alive => {
                if let Stage::Asking(i) = s.stage {
                    if s.above().nth(i) == Some(from) {
                        ctx.note(&N_ALIVE, &[ctx.me as u64, from as u64, self.t_coord]);
                        s.stage = Stage::WaitCoord;
                        s.bullied_by = Some(from);
                        ctx.set_timer_after(Timer::Deadline, self.t_coord);
                    }
                }
            }
            Msg::Election => {
                if ctx.me > from {
                    ctx.send(from, Msg::Ok);
                    if s.elected == Some(ctx.me) {
                        ctx.note(&N_BULLY_LEADER, &who);
                        ctx.send(from, Msg::Coordinator(ctx.me, s.list.clone()));
                    } else if s.stage == Stage::Idle {
                        ctx.note(&N_BULLY, &who);
                        self.elect(s, ctx, None);
                    } else {
                        ctx.note(&N_BULLY_BUSY, &who);
                    }
                }
            }
            Msg::Ok => {
                if s.stage == Stage::WaitOk {
                    ctx.note(&N_OK, &who);
                    s.stage = Stage::WaitCoord;
                    s.bullied_by = Some(from);
                    ctx.set_timer_after(Timer::Deadline, self.t_coord);
                } else if s.stage != Stage::Idle && s.bullied_by.is_none() {
                    s.bullied_by = Some(from);
                }
            }
            Msg::Coordinator(k, list) => {
                let was_leader = s.elected == Some(ctx.me);
                if k >= ctx.me || s.elected.is_none() {
                    match list.first() {
                        Some(&first) => ctx.note(&N_ACCEPT, &[ctx.me as u64, k as u64, first as u64]),
                        None => ctx.note(&N_ACCEPT_NO_LIST, &[ctx.me as u64, k as u64]),
                    }
                    s.elected = Some(k);
                    s.list = list;
                } else {
                    ctx.note(&N_IGNORE, &[ctx.me as u64, k as u64]);
                }
                s.stage = Stage::Idle;
                s.suspected = None;
                ctx.cancel_timer(Timer::Deadline);
                if was_leader && s.elected != Some(ctx.me) {
                    ctx.cancel_timer(Timer::Heartbeat);
                }
                self.leader_alive(s, ctx);
            }
            Msg::Heartbeat => {
                if s.elected == Some(from) {
                    ctx.note(&N_ALIVE_HB, &who);
                    self.leader_alive(s, ctx);
                }
            }
        }
    }

    fn on_timer(&self, s: &mut State, timer: Timer, ctx: &mut C) {
        match timer {
            Timer::Deadline => match s.stage {
                Stage::Asking(i) => self.ask(s, ctx, i + 1),
                Stage::WaitOk => {
                    ctx.note(&N_NO_OK, &[ctx.me as u64, self.t_out]);
                    self.become_leader(s, ctx);
                }
                Stage::WaitCoord => {
                    ctx.note(&N_NO_COORD, &[ctx.me as u64, self.t_coord]);
                    s.stage = Stage::Idle;
                    self.elect(s, ctx, None);
                }
                Stage::Idle => {}
            },
            Timer::LeaderTimeout => {
                if let Some(l) = s.elected.filter(|&l| l != ctx.me) {
                    ctx.note(&N_SUSPECT, &[ctx.me as u64, l as u64, ctx.cfg.heartbeats.map_or(0, |h| h.timeout)]);
                    self.detect(s, ctx);
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
        let mut s = self.fresh(ctx, None);
        ctx.note(&N_RECOVER, &[ctx.me as u64]);
        self.elect(&mut s, ctx, None);
        s
    }

    fn view(&self, s: &State) -> View {
        let role = match s.stage {
            _ if s.elected == Some(s.me) => LEADER,
            Stage::Asking(_) => "asking-next",
            Stage::WaitOk => CANDIDATE,
            Stage::WaitCoord => "waiting-coord",
            Stage::Idle => FOLLOWER,
        };
        View { role, leader: s.elected, ..View::default() }
    }

    fn inspect(&self, s: &State) -> Vec<(&'static str, String)> {
        let list: Vec<String> = s.list.iter().map(|x| format!("N{x}")).collect();
        vec![
            ("elected", fmt_node(s.elected)),
            ("failover list", if list.is_empty() { "-".to_string() } else { list.join(", ") }),
            (
                "stage",
                match s.stage {
                    Stage::Idle => "-".to_string(),
                    Stage::Asking(i) => format!("asking {} for ALIVE", fmt_node(s.above().nth(i))),
                    Stage::WaitOk => "WAIT_OK".to_string(),
                    Stage::WaitCoord => "WAIT_COORD".to_string(),
                },
            ),
            ("suspected leader", fmt_node(s.suspected)),
            ("answered by", fmt_node(s.bullied_by)),
            ("T_out / T_coord", format!("{} / {}", self.t_out, self.t_coord)),
        ]
    }
}

#[cfg(test)]
mod tests;
