//! **Bully with candidates and ordinary nodes** (M. G. Murshed and A. R. Allen, "Enhanced Bully
//! Algorithm for Leader Node Election in Synchronous Distributed Systems", Computers 1(1),
//! pp. 3–23, 2012), a modification of the Bully algorithm of H. Garcia-Molina, "Elections in a
//! Distributed Computing System", IEEE Transactions on Computers C-31(1), 1982. The reading here
//! follows the textbook treatment in A. Petrov, *Database Internals*, O'Reilly 2019, ch. 10.
//!
//! The nodes are split in two sets: **candidates**, which may lead, and **ordinary** nodes, which
//! never do. A node that detects the leader's failure first waits its own tiebreaker delay δ —
//! the higher its id, the shorter — and stands down if, meanwhile, a COORDINATOR arrives or (for
//! a candidate) someone's ELECTION does. When its δ runs out it sends ELECTION to the candidates
//! (an ordinary node to all of them, a candidate only to those above it), collects their ALIVE
//! answers for `t_out` ticks and announces the highest live candidate — itself, if it is a
//! candidate and nobody above it answered — to every node with COORDINATOR. The leader sends
//! HEARTBEAT; missing heartbeats is the detection.
//!
//! Readings chosen:
//!
//! * **The candidates** are `params.candidates`; by default the upper half of the ids (the
//!   ⌈N/2⌉ highest), so that the highest id, the classic leader, is one of them.
//! * **The δ rule**: δ = (number of higher ids) · `delta`. The top id waits nothing; each step
//!   down the ids waits one more `delta`, which by default is `t_out + latency_max + 1`: the time
//!   one node needs to ask, hear the answers and have its COORDINATOR land, so that when two
//!   nodes detect at the same moment the lower one hears the result before its own δ runs out
//!   (this is "δ above a round trip"). Detections that are not simultaneous — heartbeats arrive
//!   with different latencies — can still overlap; then two nodes announce, the same leader in
//!   a synchronous network. The module's tests measure how often. A `start` is a detection and
//!   waits δ too.
//! * **The suspected leader is asked too.** The detector cannot know that the leader is dead, so
//!   it asks every candidate, the leader included; in the textbook's figure only the remaining
//!   candidates are asked. A live leader answers, is the highest live candidate, and is simply
//!   announced again — a false suspicion does not crown a second leader.
//! * **Who learns what**: the winner learns it leads from the announcer's COORDINATOR (it is not
//!   the winner that announces, as in Bully). Every node takes the latest COORDINATOR it
//!   receives. A candidate asked by ELECTION answers ALIVE and waits `t_coord` for the
//!   announcement; if none comes (the announcer crashed), it detects again. An ordinary node
//!   that hears from no candidate announces nothing: no node may lead until a candidate recovers
//!   (a recovered node detects, so a recovered candidate elects itself if it is the highest).
//! * All state is volatile; with `heartbeats: null` elections begin only by `start`.
//!
//! Parameters (`params`): `candidates` (ids, default the ⌈N/2⌉ highest), `t_out` (wait for ALIVE,
//! default `2·latency_max + 1`), `t_coord` (wait for COORDINATOR after answering, default
//! `3·t_out`), `delta` (the δ step between consecutive ids, default `t_out + latency_max + 1`).

use crate::algorithm::Algorithm;
use crate::error::ScenarioError;
use crate::meta::{single_leader, Faults, Formula, Kind, Look, Preset, Role, Text, Topology, Visual, FOLLOWER_ROLE, LEADER_ROLE};
use crate::protocol::{fmt_node, ParamReader, Config, Ctx, Message, Params, Protocol, TimerKey, View, FOLLOWER, LEADER};
use crate::run;
use crate::{NodeId, Time};

#[derive(Clone, Debug)]
pub struct BullyCandidates {
    /// The nodes that may lead, ascending.
    pub candidates: Vec<NodeId>,
    pub t_out: Time,
    pub t_coord: Time,
    /// The δ step: a node waits (number of higher ids) · `delta` before acting.
    pub delta: Time,
}

pub const ALGORITHM: Algorithm = Algorithm {
    id: "bully-candidates",
    title: Text::new("Bully with candidates and ordinary nodes", "候选人与普通节点的 Bully 算法"),
    citation: "M. G. Murshed, A. R. Allen, Enhanced Bully Algorithm for Leader Node Election in Synchronous Distributed Systems, Computers 1(1), 2012, pp. 3–23; on H. Garcia-Molina, Elections in a Distributed Computing System, IEEE Transactions on Computers C-31(1), 1982",
    summary: Text::new(
        "Only candidates may lead: the node that notices the failure asks the candidates who is alive and announces the highest one, after a delay δ that lets higher ids act first.",
        "只有候选人可以成为领导者：察觉故障的节点询问哪些候选人存活，并宣布其中 id 最大者；它先等待一段延迟 δ，让 id 更大的节点先行动。",
    ),
    card: Text::new(
        "Bully's nodes split in two: candidates, which may lead, and ordinary nodes, which never do. Only the candidates are ever asked.\n\n\
         • A node that suspects the leader first waits its own tiebreaker δ: the higher its id, the shorter the wait. If a COORDINATOR, or someone's ELECTION, arrives meanwhile, an election is already under way and it stands down.\n\
         • When its δ runs out, it sends ELECTION to the candidates (a candidate only to those above it) and collects their ALIVE answers.\n\
         • It then announces the highest live candidate — itself, if it is a candidate and nobody above it answered — to everyone with COORDINATOR.\n\n\
         What to watch: an ordinary node crowning a candidate with a lower id than its own; the δ waits that keep nodes noticing the failure together from all announcing; and the count — C ELECTION, C−1 ALIVE and N−1 COORDINATOR for C candidates, with no cascade.",
        "Bully 的节点被分成两组：可以当领导者的候选人，以及永远不当领导者的普通节点。被询问的只有候选人。\n\n\
         • 怀疑领导者失效的节点先等待自己的决胜延迟 δ：id 越大，等待越短。若在此期间收到 COORDINATOR 或他人的 ELECTION，说明选举已在进行，它便退出。\n\
         • δ 到期后，它向候选人发送 ELECTION（候选人只发给比自己大的候选人），并收集它们的 ALIVE 回复。\n\
         • 然后它用 COORDINATOR 向所有节点宣布存活候选人中 id 最大者——如果它自己是候选人且没有更大的候选人回应，就是它自己。\n\n\
         观察要点：普通节点把 id 比自己小的候选人推举为领导者；δ 的等待使同时察觉故障的节点不会各自宣布一次；以及消息数——C 个候选人时为 C 条 ELECTION、C−1 条 ALIVE、N−1 条 COORDINATOR，没有级联。",
    ),
    topology: Topology::Complete,
    kinds: KINDS,
    roles: &[
        LEADER_ROLE,
        FOLLOWER_ROLE,
        Role::new("ordinary", Look::Follower, Text::new("an ordinary node: may run an election, never leads", "普通节点：可以主持选举，但从不当领导者")),
        Role::new("waiting-delta", Look::Waiting, Text::new("waiting its tiebreaker δ before acting", "行动前等待自己的决胜延迟 δ")),
        Role::new("asking", Look::Participant, Text::new("asking the candidates who is alive", "正在询问哪些候选人存活")),
        Role::new("waiting-coord", Look::Waiting, Text::new("an election is running: waiting for COORDINATOR", "选举进行中：等待 COORDINATOR")),
    ],
    formulas: &[Formula {
        name: "2⌈N/2⌉+N−2",
        applies: Text::new(
            "one ordinary node alone notices that the top id crashed, with C = ⌈N/2⌉ candidates (the default): C ELECTION (the crashed leader included), C−1 ALIVE, N−1 COORDINATOR",
            "只有一个普通节点察觉最大 id 崩溃，候选人数 C = ⌈N/2⌉（默认值）：C 条 ELECTION（含发往已崩溃领导者的一条）、C−1 条 ALIVE、N−1 条 COORDINATOR",
        ),
        counts: &["ELECTION", "ALIVE", "COORDINATOR"],
        value: |n| (2 * n.div_ceil(2) + n).saturating_sub(2),
    }],
    properties: &[single_leader(Faults::CrashStop)],
    presets: PRESETS,
    build: run::build::<BullyCandidates>,
};

const PRESETS: &[Preset] = &[
    Preset {
        id: "candidates-figure",
        title: Text::new("Candidates: N6 crashed, ordinary N4 notices", "候选人：N6 崩溃，普通节点 N4 察觉"),
        hint: Text::new(
            "Candidates are N1, N2 and N6; N3, N4 and N5 are ordinary. N6 crashes, N4 waits its δ, asks the candidates, hears N1 and N2, and announces N2: 10 messages.",
            "候选人为 N1、N2、N6；N3、N4、N5 是普通节点。N6 崩溃后，N4 等待自己的 δ，询问候选人，收到 N1 和 N2 的回复，宣布 N2 当选：共 10 条消息。",
        ),
        json: r#"{"algorithm":"bully-candidates","nodes":[1,2,3,4,5,6],"seed":425,"initial_leader":6,
                  "params":{"candidates":[1,2,6]},
                  "schedule":[{"at":0,"crash":6},{"at":1,"start":4}]}"#,
        leaders: &[2],
        golden: "3198785073515b1d",
    },
    Preset {
        id: "candidates-heartbeats",
        title: Text::new("Candidates: everyone notices at once", "候选人：所有节点同时察觉"),
        hint: Text::new(
            "N6 leads with heartbeats and crashes at t = 20. All five notice together and wait their δ: N5 acts first and announces N2; the others hear it before their δ runs out.",
            "N6 是领导者并发送心跳，在 t = 20 时崩溃。五个节点同时察觉并各自等待 δ：N5 最先行动并宣布 N2 当选；其他节点在自己的 δ 到期前就收到了结果。",
        ),
        json: r#"{"algorithm":"bully-candidates","nodes":[1,2,3,4,5,6],"seed":425,"initial_leader":6,
                  "params":{"candidates":[1,2,6]},
                  "heartbeats":{"interval":3,"timeout":12},"schedule":[{"at":20,"crash":6}],"stop":{"max_time":200}}"#,
        leaders: &[2],
        golden: "d075623ba9d3521e",
    },
];

// Narration: one sentence per rule, in both languages. `{0}` is the acting node.
const N_WAIT: Text = Text::new(
    "N{0} waits its tiebreaker δ = {1} ticks before acting: the {2:node:nodes} with a higher id go first, and one of them may already be electing.",
    "N{0} 行动前先等待自己的决胜延迟 δ = {1} 个时间单位：{2} 个 id 更大的节点优先，其中可能已有节点在主持选举。",
);
const N_DELTA_UP: Text =
    Text::new("N{0}'s δ ran out and nobody has announced a leader: it runs the election itself.", "N{0} 的 δ 已到期，仍没有人宣布领导者：它亲自主持选举。");
const N_ASK_ALL: Text = Text::new(
    "N{0} is an ordinary node, so it may not lead: it asks all {1} candidates whether they are alive (ELECTION) and waits {2} ticks for ALIVE.",
    "N{0} 是普通节点，不能当领导者：它询问全部 {1} 个候选人是否存活（ELECTION），并等待 {2} 个时间单位内的 ALIVE。",
);
const N_ASK_ABOVE: Text = Text::new(
    "N{0} is a candidate: it asks the {1:candidate:candidates} above it whether they are alive (ELECTION) and waits {2} ticks for ALIVE.",
    "N{0} 是候选人：它询问 {1} 个比自己大的候选人是否存活（ELECTION），并等待 {2} 个时间单位内的 ALIVE。",
);
const N_TOP: Text = Text::new(
    "N{0} is the highest candidate, so no one can outrank it: it announces itself leader to everyone with COORDINATOR.",
    "N{0} 是 id 最大的候选人，没有节点能超过它：它用 COORDINATOR 向所有节点宣布自己当选。",
);
const N_ALIVE_LEADER: Text = Text::new(
    "N{0} leads and gets ELECTION from N{1}: it answers ALIVE, so N{1} will announce it again.",
    "N{0} 是领导者，收到 N{1} 的 ELECTION：它回复 ALIVE，N{1} 会再次宣布它当选。",
);
const N_STAND_DOWN: Text = Text::new(
    "N{0} gets ELECTION from N{1} while waiting its δ: N{1} is already electing, so N{0} answers ALIVE and stands down to wait for the COORDINATOR.",
    "N{0} 在等待 δ 时收到 N{1} 的 ELECTION：N{1} 已在主持选举，所以 N{0} 回复 ALIVE 并退出，等待 COORDINATOR。",
);
const N_ANSWER: Text = Text::new(
    "N{0} is a live candidate: it answers N{1}'s ELECTION with ALIVE and waits for the COORDINATOR.",
    "N{0} 是存活的候选人：它用 ALIVE 回复 N{1} 的 ELECTION，并等待 COORDINATOR。",
);
const N_ANSWER_BUSY: Text =
    Text::new("N{0} answers N{1}'s ELECTION with ALIVE; it is in an election already.", "N{0} 用 ALIVE 回复 N{1} 的 ELECTION；它已在选举中。");
const N_GOT_ALIVE: Text = Text::new(
    "N{0} hears ALIVE from candidate N{1}; the highest live candidate so far is N{2}.",
    "N{0} 收到候选人 N{1} 的 ALIVE；目前已知存活的最大候选人是 N{2}。",
);
const N_ANNOUNCE: Text = Text::new(
    "N{0}'s {2} ticks are up: the highest live candidate is N{1}, so N{0} announces it to everyone with COORDINATOR.",
    "N{0} 的 {2} 个时间单位已到：存活候选人中 id 最大的是 N{1}，于是 N{0} 用 COORDINATOR 向所有节点宣布它当选。",
);
const N_ANNOUNCE_SELF: Text = Text::new(
    "No candidate above N{0} answered within {1} ticks: N{0} is the highest live candidate, so it announces itself leader to everyone with COORDINATOR.",
    "N{0} 在 {1} 个时间单位内没有收到更大候选人的回复：它就是存活候选人中 id 最大者，于是用 COORDINATOR 向所有节点宣布自己当选。",
);
const N_NONE: Text = Text::new(
    "No candidate answered N{0} within {1} ticks: no live node may lead, so the cluster stays without a leader until a candidate recovers.",
    "N{0} 在 {1} 个时间单位内没有收到任何候选人的回复：没有存活节点能当领导者，集群将一直没有领导者，直到某个候选人恢复。",
);
const N_CROWNED: Text = Text::new(
    "N{0} gets COORDINATOR from N{1} naming N{0} itself: it is the highest live candidate and leads now.",
    "N{0} 收到 N{1} 的 COORDINATOR，当选的正是自己：它是存活候选人中 id 最大者，现在成为领导者。",
);
const N_ACCEPT: Text = Text::new("N{0} accepts COORDINATOR from N{1}: N{2} is the leader now.", "N{0} 接受 N{1} 的 COORDINATOR：N{2} 现在是领导者。");
const N_NO_COORD: Text = Text::new(
    "No COORDINATOR reached N{0} within {1} ticks (the node running the election may have crashed): it starts over.",
    "N{0} 在 {1} 个时间单位内没有等到 COORDINATOR（主持选举的节点可能已崩溃）：它重新开始。",
);
const N_SUSPECT: Text = Text::new(
    "N{0} heard no heartbeat from leader N{1} for {2} ticks: it suspects N{1} has crashed.",
    "N{0} 已有 {2} 个时间单位没有收到领导者 N{1} 的心跳：它怀疑 N{1} 已崩溃。",
);
const N_START: Text = Text::new("N{0} is asked to start an election.", "N{0} 被要求发起选举。");
const N_START_LEADER: Text =
    Text::new("N{0} is asked to start an election, but it leads already: there is nothing to elect.", "N{0} 被要求发起选举，但它已是领导者：无需选举。");
const N_NO_LEADER: Text = Text::new("N{0} knows no leader, so it starts an election.", "N{0} 不知道谁是领导者，于是发起选举。");
const N_BEAT: Text = Text::new("N{0} leads: it sends HEARTBEAT to everyone.", "N{0} 是领导者：向所有节点发送 HEARTBEAT（心跳）。");
const N_ALIVE_HB: Text = Text::new("N{0} hears N{1}'s heartbeat: the leader is alive.", "N{0} 收到 N{1} 的心跳：领导者仍然存活。");
const N_RECOVER: Text = Text::new("N{0} recovers with no memory of a leader, so it starts an election.", "N{0} 恢复后不记得领导者是谁，于是发起选举。");

impl BullyCandidates {
    fn from_params(cfg: &Config, params: &Params) -> Result<Self, ScenarioError> {
        let p = ParamReader::new(params, &["candidates", "t_out", "t_coord", "delta"])?;
        let candidates = match p.ids("candidates")? {
            Some(mut c) => {
                if c.is_empty() {
                    return Err(ScenarioError::new("params.candidates", "needs at least one candidate"));
                }
                for (i, id) in c.iter().enumerate() {
                    if !cfg.ids.contains(id) {
                        return Err(ScenarioError::new(format!("params.candidates[{i}]"), format!("unknown node {id}")));
                    }
                    if c[..i].contains(id) {
                        return Err(ScenarioError::new(format!("params.candidates[{i}]"), format!("duplicate id {id}")));
                    }
                }
                c.sort_unstable();
                c
            }
            None => default_candidates(cfg),
        };
        let lat_max = cfg.latency.1;
        let t_out = p.uint("t_out")?.unwrap_or(2 * lat_max + 1);
        if t_out == 0 {
            return Err(ScenarioError::new("params.t_out", "must be at least 1 tick"));
        }
        let t_coord = p.uint("t_coord")?.unwrap_or(3 * t_out);
        if t_coord == 0 {
            return Err(ScenarioError::new("params.t_coord", "must be at least 1 tick"));
        }
        let delta = p.uint("delta")?.unwrap_or(t_out + lat_max + 1);
        Ok(BullyCandidates { candidates, t_out, t_coord, delta })
    }

    pub fn is_candidate(&self, id: NodeId) -> bool {
        self.candidates.binary_search(&id).is_ok()
    }

    /// The node's tiebreaker delay δ: one `delta` per higher id.
    pub fn delay(&self, cfg: &Config, id: NodeId) -> Time {
        cfg.higher(id).len() as Time * self.delta
    }

    /// The candidates `id` asks: all of them for an ordinary node, those above it for a candidate.
    fn targets(&self, id: NodeId) -> &[NodeId] {
        if self.is_candidate(id) {
            let at = self.candidates.partition_point(|&x| x <= id);
            &self.candidates[at..]
        } else {
            &self.candidates
        }
    }
}

/// The default candidates: the upper half of the ids (the ⌈N/2⌉ highest).
pub fn default_candidates(cfg: &Config) -> Vec<NodeId> {
    let n = cfg.sorted.len();
    cfg.sorted[n / 2..].to_vec()
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Stage {
    Idle,
    /// Waiting its tiebreaker δ before acting.
    Delay,
    /// Sent ELECTION to the candidates; collecting ALIVE.
    Asking,
    /// Someone else is electing: waiting for COORDINATOR.
    WaitCoord,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct State {
    pub me: NodeId,
    pub elected: Option<NodeId>,
    pub stage: Stage,
    /// While asking: the highest candidate that answered ALIVE.
    pub best: Option<NodeId>,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Msg {
    Election,
    Alive,
    /// Names the new leader (sent by whoever ran the election).
    Coordinator(NodeId),
    Heartbeat,
}

kinds! {
    Msg;
    Msg::Election => Kind::new("ELECTION", "E", Visual::Request, Text::new("asks a candidate whether it is alive", "询问候选人是否存活")),
    Msg::Alive => Kind::new("ALIVE", "AL", Visual::Answer, Text::new("a candidate is up and could lead", "候选人存活，可以当领导者")),
    Msg::Coordinator(_) => Kind::new("COORDINATOR", "C", Visual::Announcement, Text::new("names the highest live candidate to everyone", "向所有节点宣布存活候选人中 id 最大者当选")),
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
    /// The tiebreaker δ.
    Delta,
    /// The current stage's deadline (ALIVE answers, or the COORDINATOR).
    Deadline,
    /// The failure detector: no heartbeat from the leader for `heartbeats.timeout`.
    LeaderTimeout,
    /// The leader's periodic HEARTBEAT broadcast.
    Heartbeat,
}

impl TimerKey for Timer {
    fn name(&self) -> &'static str {
        match self {
            Timer::Delta => "DELTA",
            Timer::Deadline => "DEADLINE",
            Timer::LeaderTimeout => "LEADER_TIMEOUT",
            Timer::Heartbeat => "HEARTBEAT",
        }
    }
}

type C<'a> = Ctx<'a, Msg, Timer>;

impl BullyCandidates {
    /// The node suspects its leader (or knows none): it waits its δ, then asks.
    fn detect(&self, s: &mut State, ctx: &mut C) {
        s.elected = None;
        s.best = None;
        ctx.cancel_timer(Timer::LeaderTimeout);
        ctx.cancel_timer(Timer::Deadline);
        let delay = self.delay(ctx.cfg, ctx.me);
        if delay == 0 {
            self.ask(s, ctx);
            return;
        }
        ctx.note(&N_WAIT, &[ctx.me as u64, delay, ctx.cfg.higher(ctx.me).len() as u64]);
        s.stage = Stage::Delay;
        ctx.set_timer_after(Timer::Delta, delay);
    }

    fn ask(&self, s: &mut State, ctx: &mut C) {
        let targets = self.targets(ctx.me);
        if targets.is_empty() {
            // The highest candidate itself (an ordinary node always has candidates to ask).
            ctx.note(&N_TOP, &[ctx.me as u64]);
            self.announce(s, ctx, ctx.me);
            return;
        }
        let text = if self.is_candidate(ctx.me) { &N_ASK_ABOVE } else { &N_ASK_ALL };
        ctx.note(text, &[ctx.me as u64, targets.len() as u64, self.t_out]);
        s.stage = Stage::Asking;
        s.best = None;
        for &c in targets {
            ctx.send(c, Msg::Election);
        }
        ctx.set_timer_after(Timer::Deadline, self.t_out);
    }

    /// Tells everyone that `k` leads.
    fn announce(&self, s: &mut State, ctx: &mut C, k: NodeId) {
        ctx.broadcast(Msg::Coordinator(k));
        self.settle(s, ctx, k);
    }

    /// The node now believes `k` leads.
    fn settle(&self, s: &mut State, ctx: &mut C, k: NodeId) {
        let was_leader = s.elected == Some(ctx.me);
        s.elected = Some(k);
        s.stage = Stage::Idle;
        s.best = None;
        ctx.cancel_timer(Timer::Delta);
        ctx.cancel_timer(Timer::Deadline);
        if k == ctx.me {
            ctx.cancel_timer(Timer::LeaderTimeout);
            if let (Some(hb), false) = (ctx.cfg.heartbeats, was_leader) {
                ctx.set_timer_after(Timer::Heartbeat, hb.interval);
            }
        } else {
            if was_leader {
                ctx.cancel_timer(Timer::Heartbeat);
            }
            ctx.watch_leader(Timer::LeaderTimeout, s.elected);
        }
    }

    /// Answered an ELECTION: an election is running; make sure it ends.
    fn wait_coord(&self, s: &mut State, ctx: &mut C) {
        s.stage = Stage::WaitCoord;
        ctx.cancel_timer(Timer::Delta);
        ctx.set_timer_after(Timer::Deadline, self.t_coord);
    }
}

impl Protocol for BullyCandidates {
    type State = State;
    type Msg = Msg;
    type Timer = Timer;
    const KINDS: &'static [Kind] = KINDS;

    fn new(cfg: &Config, params: &Params) -> Result<Self, ScenarioError> {
        BullyCandidates::from_params(cfg, params)
    }

    fn init(&self, ctx: &mut C) -> State {
        let mut s = State { me: ctx.me, elected: ctx.cfg.initial_leader, stage: Stage::Idle, best: None };
        if let Some(hb) = ctx.cfg.heartbeats {
            match s.elected {
                Some(l) if l == ctx.me => ctx.set_timer_after(Timer::Heartbeat, hb.interval),
                Some(_) => ctx.watch_leader(Timer::LeaderTimeout, s.elected),
                None => {
                    ctx.note(&N_NO_LEADER, &[ctx.me as u64]);
                    self.detect(&mut s, ctx);
                }
            }
        }
        s
    }

    fn start(&self, s: &mut State, ctx: &mut C) {
        if s.elected == Some(ctx.me) {
            ctx.note(&N_START_LEADER, &[ctx.me as u64]);
            return;
        }
        ctx.note(&N_START, &[ctx.me as u64]);
        self.detect(s, ctx);
    }

    fn on_message(&self, s: &mut State, from: NodeId, msg: Msg, ctx: &mut C) {
        let who = [ctx.me as u64, from as u64];
        match msg {
            Msg::Election => {
                ctx.send(from, Msg::Alive);
                if s.elected == Some(ctx.me) {
                    ctx.note(&N_ALIVE_LEADER, &who);
                } else {
                    match s.stage {
                        Stage::Delay => {
                            ctx.note(&N_STAND_DOWN, &who);
                            self.wait_coord(s, ctx);
                        }
                        Stage::Idle => {
                            ctx.note(&N_ANSWER, &who);
                            self.wait_coord(s, ctx);
                        }
                        Stage::Asking | Stage::WaitCoord => ctx.note(&N_ANSWER_BUSY, &who),
                    }
                }
            }
            Msg::Alive => {
                if s.stage == Stage::Asking {
                    let best = s.best.map_or(from, |b| b.max(from));
                    s.best = Some(best);
                    ctx.note(&N_GOT_ALIVE, &[ctx.me as u64, from as u64, best as u64]);
                }
            }
            Msg::Coordinator(k) => {
                if k == ctx.me {
                    ctx.note(&N_CROWNED, &who);
                } else {
                    ctx.note(&N_ACCEPT, &[ctx.me as u64, from as u64, k as u64]);
                }
                self.settle(s, ctx, k);
            }
            Msg::Heartbeat => {
                if s.elected == Some(from) {
                    ctx.note(&N_ALIVE_HB, &who);
                    ctx.watch_leader(Timer::LeaderTimeout, s.elected);
                }
            }
        }
    }

    fn on_timer(&self, s: &mut State, timer: Timer, ctx: &mut C) {
        match timer {
            Timer::Delta => {
                if s.stage == Stage::Delay {
                    ctx.note(&N_DELTA_UP, &[ctx.me as u64]);
                    self.ask(s, ctx);
                }
            }
            Timer::Deadline => match s.stage {
                Stage::Asking => {
                    let me_if_candidate = Some(ctx.me).filter(|&m| self.is_candidate(m));
                    match s.best.or(me_if_candidate) {
                        Some(k) if k == ctx.me => {
                            ctx.note(&N_ANNOUNCE_SELF, &[ctx.me as u64, self.t_out]);
                            self.announce(s, ctx, k);
                        }
                        Some(k) => {
                            ctx.note(&N_ANNOUNCE, &[ctx.me as u64, k as u64, self.t_out]);
                            self.announce(s, ctx, k);
                        }
                        None => {
                            ctx.note(&N_NONE, &[ctx.me as u64, self.t_out]);
                            s.stage = Stage::Idle;
                        }
                    }
                }
                Stage::WaitCoord => {
                    ctx.note(&N_NO_COORD, &[ctx.me as u64, self.t_coord]);
                    self.detect(s, ctx);
                }
                Stage::Idle | Stage::Delay => {}
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
        let mut s = State { me: ctx.me, elected: None, stage: Stage::Idle, best: None };
        ctx.note(&N_RECOVER, &[ctx.me as u64]);
        self.detect(&mut s, ctx);
        s
    }

    fn view(&self, s: &State) -> View {
        let role = match s.stage {
            _ if s.elected == Some(s.me) => LEADER,
            Stage::Delay => "waiting-delta",
            Stage::Asking => "asking",
            Stage::WaitCoord => "waiting-coord",
            Stage::Idle if self.is_candidate(s.me) => FOLLOWER,
            Stage::Idle => "ordinary",
        };
        // The candidates form one group, named by the highest of them: the UI draws its hull.
        let group = self.candidates.last().copied().filter(|_| self.is_candidate(s.me));
        View { role, leader: s.elected, group, ..View::default() }
    }

    fn inspect(&self, s: &State) -> Vec<(&'static str, String)> {
        vec![
            ("elected", fmt_node(s.elected)),
            ("kind", if self.is_candidate(s.me) { "candidate" } else { "ordinary" }.to_string()),
            (
                "stage",
                match s.stage {
                    Stage::Idle => "-",
                    Stage::Delay => "waiting δ",
                    Stage::Asking => "asking the candidates",
                    Stage::WaitCoord => "WAIT_COORD",
                }
                .to_string(),
            ),
            ("highest ALIVE", fmt_node(s.best)),
            ("candidates", self.candidates.iter().map(|c| format!("N{c}")).collect::<Vec<_>>().join(", ")),
            ("T_out / T_coord / δ step", format!("{} / {} / {}", self.t_out, self.t_coord, self.delta)),
        ]
    }
}

#[cfg(test)]
mod tests;
