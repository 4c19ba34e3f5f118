//! **Raft-style quorum election** (D. Ongaro and J. Ousterhout, "In Search of an Understandable
//! Consensus Algorithm", USENIX ATC 2014: §5.2 for elections, §5.4.1 for the election
//! restriction).
//!
//! Terms are a logical clock: any message with a higher term makes the receiver adopt it, forget
//! its vote and become a follower. A follower whose randomized election timer (a tick range,
//! drawn by the simulator) expires becomes a candidate: term + 1, votes for itself, sends
//! REQUEST_VOTE(term, last log index, last log term). A node grants at most one vote per term,
//! and only to a candidate whose log is at least as up to date as its own (last term first, then
//! index). A candidate with ⌊N/2⌋+1 votes leads and announces itself with APPEND_ENTRIES, which
//! it repeats every `heartbeats.interval`; followers answer APPEND_ACK and reset their timer.
//! A leader that has not heard ⌊N/2⌋+1 acknowledgements (itself included) within its ack
//! window steps down. `currentTerm`, `votedFor` and the log survive a crash.
//!
//! * Replies: a refused vote is VOTE_DENY and a refused append is APPEND_REJECT (the paper's
//!   `voteGranted = false` / `success = false` replies), so both can be told apart in a drawing.
//! * `initial_leader`: every node starts in term 1 having voted for it, and it starts as leader.
//! * With `heartbeats: null` no timer runs: elections begin only by `start`, and a leader
//!   announces itself once.
//!
//! Parameters (`params`): `election_timeout` `[lo, hi]` (default `[T, 2T]` with
//! `T = heartbeats.timeout`, the usual `random(T, 2T)`), `ack_window` (default
//! `3 × heartbeats.interval`, but at least `interval + 2·latency_max + 1`: three intervals
//! assume a round trip far shorter than a heartbeat interval, and a window that
//! cannot hold a round trip makes a healthy, fully connected leader miss its quorum of acks and
//! step down again and again), `log`: `{ "<id>": [last_index, last_term] }` (default `[0, 0]`
//! for every node).

use crate::algorithm::Algorithm;
use crate::error::ScenarioError;
use crate::meta::{single_leader, Faults, Formula, Kind, Preset, Text, Topology, Visual, CANDIDATE_ROLE, FOLLOWER_ROLE, LEADER_ROLE, ONE_LEADER_PER_TERM};
use crate::protocol::{fmt_node, read_params, Config, Ctx, Message, Params, Protocol, TimerKey, View, CANDIDATE, FOLLOWER, LEADER};
use crate::run;
use crate::{NodeId, Time};
use serde::Deserialize;
use std::collections::BTreeMap;

#[derive(Deserialize, Default)]
#[serde(deny_unknown_fields)]
struct RaftParams {
    election_timeout: Option<[Time; 2]>,
    ack_window: Option<Time>,
    #[serde(default)]
    log: BTreeMap<String, [u64; 2]>,
}

#[derive(Clone, Debug)]
pub struct Raft {
    pub election_timeout: (Time, Time),
    pub ack_window: Time,
    /// (last log index, last log term) per node id.
    pub logs: BTreeMap<NodeId, (u64, u64)>,
}

pub const ALGORITHM: Algorithm = Algorithm {
    id: "raft",
    title: Text::new("Raft-style quorum", "Raft 式多数派选举"),
    citation: "D. Ongaro and J. Ousterhout, In Search of an Understandable Consensus Algorithm, USENIX ATC 2014",
    summary: Text::new(
        "A node whose randomized timer runs out asks for votes in a new term; one vote per node per term, and a majority makes a leader, so a minority can never elect.",
        "随机定时器到期的节点在新任期中请求投票；每个节点每个任期只投一票，获得多数派票数才能成为领导者，因此少数派永远无法选出领导者。",
    ),
    card: Text::new(
        "Time is cut into terms, each with at most one leader.\n\n\
         • A follower that hears nothing from a leader before its randomized election timeout becomes a candidate: it starts a new term, votes for itself and sends REQUEST_VOTE.\n\
         • A node grants at most one vote per term, and only to a candidate whose log is at least as up to date as its own.\n\
         • A candidate with votes from a majority (⌊N/2⌋+1) leads, and sends APPEND_ENTRIES as its heartbeat.\n\
         • Any message with a higher term makes the receiver adopt that term and step down.\n\n\
         What to watch: randomized timeouts that usually let one candidate win; under a partition, the minority side campaigns term after term but never reaches a majority — no split brain.",
        "时间被划分为任期（term），每个任期至多一个领导者。\n\n\
         • 跟随者在随机的选举超时内没有收到领导者的消息，就成为候选人：进入新任期，投自己一票，并发送 REQUEST_VOTE。\n\
         • 每个节点每个任期至多投一票，且只投给日志至少和自己一样新的候选人。\n\
         • 获得多数派（⌊N/2⌋+1）投票的候选人成为领导者，并以 APPEND_ENTRIES 作为心跳。\n\
         • 收到更高任期的消息时，节点采用该任期并退为跟随者。\n\n\
         观察要点：随机超时通常只让一个候选人胜出；网络分区时，少数派一轮又一轮地竞选，却永远得不到多数票——不会脑裂。",
    ),
    topology: Topology::Complete,
    kinds: KINDS,
    roles: &[LEADER_ROLE, FOLLOWER_ROLE, CANDIDATE_ROLE],
    formulas: &[Formula {
        name: "2(N−1)",
        applies: Text::new(
            "the votes of one uncontested election: N−1 REQUEST_VOTE and N−1 replies (with the new leader's first round of N−1 APPEND_ENTRIES, the ≈ 3N−2 usually quoted)",
            "一次无竞争选举的投票：N−1 条 REQUEST_VOTE 与 N−1 条回复（加上新领导者第一轮 N−1 条 APPEND_ENTRIES，即常说的约 3N−2 条）",
        ),
        counts: &["REQUEST_VOTE", "VOTE_GRANT", "VOTE_DENY"],
        value: |n| 2 * n.saturating_sub(1),
    }],
    properties: &[ONE_LEADER_PER_TERM, single_leader(Faults::CrashStop)],
    presets: PRESETS,
    build: run::build::<Raft>,
};

const PRESETS: &[Preset] = &[
    Preset {
        id: "split-brain-raft",
        title: Text::new("The same partition under Raft", "同样的分区，换成 Raft"),
        hint: Text::new(
            "N5 leads term 1. Cut {1,2} from {3,4,5}: the minority campaigns term after term but never gets 3 of 5 votes.",
            "N5 是任期 1 的领导者。把 {1,2} 与 {3,4,5} 切开：少数派一轮轮竞选，却永远拿不到 5 票中的 3 票。",
        ),
        json: r#"{"algorithm":"raft","nodes":[1,2,3,4,5],"seed":425,"initial_leader":5,
                  "heartbeats":{"interval":2,"timeout":10},"stop":{"max_time":300}}"#,
        leaders: &[5],
        golden: "cdde8d18e09bc193",
    },
    Preset {
        id: "raft-cold",
        title: Text::new("Raft: an election from cold", "Raft：从零开始的选举"),
        hint: Text::new(
            "No leader yet: randomized timeouts pick a first candidate, which needs ⌊5/2⌋+1 = 3 votes.",
            "还没有领导者：随机超时选出第一个候选人，它需要 ⌊5/2⌋+1 = 3 票。",
        ),
        json: r#"{"algorithm":"raft","nodes":[1,2,3,4,5],"seed":7,
                  "heartbeats":{"interval":3,"timeout":12},"stop":{"max_time":300}}"#,
        leaders: &[4],
        golden: "1024adfc4aca0ff1",
    },
];

impl Raft {
    fn from_params(cfg: &Config, params: &Params) -> Result<Self, ScenarioError> {
        let p: RaftParams = read_params(params)?;
        let t = cfg.heartbeats.map_or(10, |h| h.timeout);
        let (lo, hi) = p.election_timeout.map_or((t, 2 * t), |[a, b]| (a, b));
        if lo == 0 || lo > hi {
            return Err(ScenarioError::new("params.election_timeout", format!("expected [lo, hi] with 1 <= lo <= hi, found [{lo}, {hi}]")));
        }
        let interval = cfg.heartbeats.map_or(2, |h| h.interval);
        let round_trip = 2 * cfg.latency.1;
        let ack_window = p.ack_window.unwrap_or((3 * interval).max(interval + round_trip + 1));
        if ack_window == 0 {
            return Err(ScenarioError::new("params.ack_window", "must be at least 1 tick"));
        }
        let mut logs = BTreeMap::new();
        for (key, [index, term]) in &p.log {
            let id: NodeId = key.parse().map_err(|_| ScenarioError::new(format!("params.log.{key}"), "expected a node id as the key"))?;
            if !cfg.ids.contains(&id) {
                return Err(ScenarioError::new(format!("params.log.{key}"), format!("unknown node {id}")));
            }
            logs.insert(id, (*index, *term));
        }
        Ok(Raft { election_timeout: (lo, hi), ack_window, logs })
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Role {
    Follower,
    Candidate,
    Leader,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct State {
    pub me: NodeId,
    // Durable.
    pub term: u64,
    pub voted_for: Option<NodeId>,
    pub last_log: (u64, u64),
    // Volatile.
    pub role: Role,
    pub leader: Option<NodeId>,
    pub votes: Vec<NodeId>,
    pub acks: Vec<NodeId>,
    pub quorum: u32,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Msg {
    RequestVote { term: u64, last_index: u64, last_term: u64 },
    VoteGrant { term: u64 },
    VoteDeny { term: u64 },
    AppendEntries { term: u64 },
    AppendAck { term: u64 },
    AppendReject { term: u64 },
}

pub const KINDS: &[Kind] = &[
    Kind::new("REQUEST_VOTE", "RV", Visual::Request, Text::new("a candidate asks for a vote in its term", "候选人在其任期内请求投票")),
    Kind::new("VOTE_GRANT", "✓", Visual::Answer, Text::new("a vote given (one per node per term)", "投出赞成票（每个节点每个任期一票）")),
    Kind::new("VOTE_DENY", "✗", Visual::Refusal, Text::new("a vote refused: already voted, stale term or older log", "拒绝投票：已投过票、任期过旧或日志更旧")),
    Kind::new("APPEND_ENTRIES", "AE", Visual::Data, Text::new("the leader's heartbeat (and log entries)", "领导者的心跳（及日志条目）")),
    Kind::new("APPEND_ACK", "ack", Visual::Answer, Text::new("a follower accepts the leader of this term", "跟随者接受本任期的领导者")),
    Kind::new("APPEND_REJECT", "rej", Visual::Refusal, Text::new("refused: the sender's term is stale", "拒绝：发送者的任期已过时")),
];

impl Msg {
    fn term(&self) -> u64 {
        match *self {
            Msg::RequestVote { term, .. }
            | Msg::VoteGrant { term }
            | Msg::VoteDeny { term }
            | Msg::AppendEntries { term }
            | Msg::AppendAck { term }
            | Msg::AppendReject { term } => term,
        }
    }
}

impl Message for Msg {
    fn kind(&self) -> usize {
        match self {
            Msg::RequestVote { .. } => 0,
            Msg::VoteGrant { .. } => 1,
            Msg::VoteDeny { .. } => 2,
            Msg::AppendEntries { .. } => 3,
            Msg::AppendAck { .. } => 4,
            Msg::AppendReject { .. } => 5,
        }
    }
    fn label(&self) -> String {
        match self {
            Msg::RequestVote { term, last_index, last_term } => format!("REQUEST_VOTE(t{term}, log {last_index}@{last_term})"),
            m => format!("{}(t{})", KINDS[m.kind()].name, m.term()),
        }
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Timer {
    Election,
    Heartbeat,
    AckCheck,
}

impl TimerKey for Timer {
    fn name(&self) -> &'static str {
        match self {
            Timer::Election => "ELECTION_TIMEOUT",
            Timer::Heartbeat => "HEARTBEAT",
            Timer::AckCheck => "ACK_CHECK",
        }
    }
}

type C<'a> = Ctx<'a, Msg, Timer>;

impl Raft {
    fn arm_election(&self, ctx: &mut C) {
        if ctx.cfg.heartbeats.is_some() {
            ctx.set_timer(Timer::Election, self.election_timeout.0, self.election_timeout.1);
        }
    }

    fn become_follower(&self, s: &mut State, ctx: &mut C) {
        if s.role == Role::Leader {
            ctx.cancel_timer(Timer::Heartbeat);
            ctx.cancel_timer(Timer::AckCheck);
        }
        if s.role != Role::Follower {
            s.role = Role::Follower;
            s.votes.clear();
            s.acks.clear();
            self.arm_election(ctx);
        }
    }

    fn become_candidate(&self, s: &mut State, ctx: &mut C) {
        s.role = Role::Candidate;
        s.term += 1;
        s.voted_for = Some(ctx.me);
        s.votes = vec![ctx.me];
        s.leader = None;
        self.arm_election(ctx);
        if s.votes.len() as u32 >= s.quorum {
            self.become_leader(s, ctx);
            return;
        }
        let (last_index, last_term) = s.last_log;
        ctx.broadcast(Msg::RequestVote { term: s.term, last_index, last_term });
    }

    fn become_leader(&self, s: &mut State, ctx: &mut C) {
        s.role = Role::Leader;
        s.leader = Some(ctx.me);
        s.acks = vec![ctx.me];
        ctx.cancel_timer(Timer::Election);
        ctx.broadcast(Msg::AppendEntries { term: s.term });
        if let Some(hb) = ctx.cfg.heartbeats {
            ctx.set_timer_after(Timer::Heartbeat, hb.interval);
            ctx.set_timer_after(Timer::AckCheck, self.ack_window);
        }
    }
}

impl Protocol for Raft {
    type State = State;
    type Msg = Msg;
    type Timer = Timer;
    const KINDS: &'static [Kind] = KINDS;

    fn new(cfg: &Config, params: &Params) -> Result<Self, ScenarioError> {
        Raft::from_params(cfg, params)
    }

    fn init(&self, ctx: &mut C) -> State {
        let me = ctx.me;
        let last_log = self.logs.get(&me).copied().unwrap_or((0, 0));
        let quorum = ctx.cfg.quorum();
        let mut s = State { me, term: 0, voted_for: None, last_log, role: Role::Follower, leader: None, votes: vec![], acks: vec![], quorum };
        match ctx.cfg.initial_leader {
            Some(l) => {
                s.term = 1;
                s.voted_for = Some(l);
                s.leader = Some(l);
                if l == me {
                    s.role = Role::Leader;
                    s.acks = vec![me];
                    if let Some(hb) = ctx.cfg.heartbeats {
                        ctx.set_timer_after(Timer::Heartbeat, hb.interval);
                        ctx.set_timer_after(Timer::AckCheck, self.ack_window);
                    }
                } else {
                    self.arm_election(ctx);
                }
            }
            None => self.arm_election(ctx),
        }
        s
    }

    fn start(&self, s: &mut State, ctx: &mut C) {
        if s.role != Role::Leader {
            self.become_candidate(s, ctx);
        }
    }

    fn on_message(&self, s: &mut State, from: NodeId, msg: Msg, ctx: &mut C) {
        let term = msg.term();
        if term > s.term {
            s.term = term;
            s.voted_for = None;
            if !matches!(msg, Msg::AppendEntries { .. }) {
                s.leader = None;
            }
            self.become_follower(s, ctx);
        }
        match msg {
            Msg::RequestVote { term, last_index, last_term } => {
                if term < s.term {
                    ctx.send(from, Msg::VoteDeny { term: s.term });
                    return;
                }
                let up_to_date = (last_term, last_index) >= (s.last_log.1, s.last_log.0);
                if s.voted_for.is_none_or(|v| v == from) && up_to_date {
                    s.voted_for = Some(from);
                    self.arm_election(ctx);
                    ctx.send(from, Msg::VoteGrant { term: s.term });
                } else {
                    ctx.send(from, Msg::VoteDeny { term: s.term });
                }
            }
            Msg::VoteGrant { term } => {
                if s.role == Role::Candidate && term == s.term && !s.votes.contains(&from) {
                    s.votes.push(from);
                    if s.votes.len() as u32 >= s.quorum {
                        self.become_leader(s, ctx);
                    }
                }
            }
            Msg::VoteDeny { .. } => {}
            Msg::AppendEntries { term } => {
                if term < s.term {
                    ctx.send(from, Msg::AppendReject { term: s.term });
                    return;
                }
                self.become_follower(s, ctx);
                s.leader = Some(from);
                self.arm_election(ctx);
                ctx.send(from, Msg::AppendAck { term: s.term });
            }
            Msg::AppendAck { term } => {
                if s.role == Role::Leader && term == s.term && !s.acks.contains(&from) {
                    s.acks.push(from);
                }
            }
            Msg::AppendReject { .. } => {}
        }
    }

    fn on_timer(&self, s: &mut State, timer: Timer, ctx: &mut C) {
        match timer {
            Timer::Election => {
                if s.role != Role::Leader {
                    self.become_candidate(s, ctx);
                }
            }
            Timer::Heartbeat => {
                if s.role == Role::Leader {
                    ctx.broadcast(Msg::AppendEntries { term: s.term });
                    if let Some(hb) = ctx.cfg.heartbeats {
                        ctx.set_timer_after(Timer::Heartbeat, hb.interval);
                    }
                }
            }
            Timer::AckCheck => {
                if s.role == Role::Leader {
                    if (s.acks.len() as u32) < s.quorum {
                        s.leader = None;
                        self.become_follower(s, ctx);
                    } else {
                        s.acks = vec![ctx.me];
                        ctx.set_timer_after(Timer::AckCheck, self.ack_window);
                    }
                }
            }
        }
    }

    fn recover(&self, crashed: &State, ctx: &mut C) -> State {
        let s = State {
            me: crashed.me,
            term: crashed.term,
            voted_for: crashed.voted_for,
            last_log: crashed.last_log,
            role: Role::Follower,
            leader: None,
            votes: vec![],
            acks: vec![],
            quorum: crashed.quorum,
        };
        self.arm_election(ctx);
        s
    }

    fn view(&self, s: &State) -> View {
        let role = match s.role {
            Role::Follower => FOLLOWER,
            Role::Candidate => CANDIDATE,
            Role::Leader => LEADER,
        };
        let tally = (s.role == Role::Candidate).then(|| (s.votes.len() as u32, s.quorum));
        View { role, leader: s.leader, term: Some(s.term), vote: s.voted_for, tally, ..View::default() }
    }

    fn inspect(&self, s: &State) -> Vec<(&'static str, String)> {
        let list = |v: &[NodeId]| v.iter().map(|x| format!("N{x}")).collect::<Vec<_>>().join(", ");
        vec![
            ("role", format!("{:?}", s.role).to_lowercase()),
            ("current term", s.term.to_string()),
            ("voted for", fmt_node(s.voted_for)),
            ("leader", fmt_node(s.leader)),
            ("last log (index@term)", format!("{}@{}", s.last_log.0, s.last_log.1)),
            ("votes", format!("{} / {} needed: {}", s.votes.len(), s.quorum, list(&s.votes))),
            ("acks this window", list(&s.acks)),
        ]
    }
}
