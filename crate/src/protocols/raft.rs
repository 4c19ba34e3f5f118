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

use crate::meta::k;
use crate::algorithm::Algorithm;
use crate::error::ScenarioError;
use crate::meta::{single_leader, Faults, Formula, Kind, Preset, Text, Topology, Visual, CANDIDATE_ROLE, FOLLOWER_ROLE, LEADER_ROLE, ONE_LEADER_PER_TERM};
use crate::protocol::{fmt_node, pair, ParamReader, Config, Ctx, Message, Params, Protocol, TimerKey, View, CANDIDATE, FOLLOWER, LEADER};
use crate::run;
use crate::{NodeId, Time};
use std::collections::BTreeMap;

#[derive(Clone, Debug)]
pub struct Raft {
    pub election_timeout: (Time, Time),
    pub ack_window: Time,
    /// (last log index, last log term) per node id.
    pub logs: BTreeMap<NodeId, (u64, u64)>,
}

pub const ALGORITHM: Algorithm = Algorithm {
    id: "raft",
    title: k::RAFT_TITLE,
    citation: "D. Ongaro and J. Ousterhout, In Search of an Understandable Consensus Algorithm, USENIX ATC 2014",
    summary: k::RAFT_SUMMARY,
    card: k::RAFT_CARD,
    topology: Topology::Complete,
    kinds: KINDS,
    roles: &[LEADER_ROLE, FOLLOWER_ROLE, CANDIDATE_ROLE],
    formulas: &[
        Formula {
            name: "2(N−1)",
            applies: k::RAFT_FORMULA_1,
            counts: &["REQUEST_VOTE", "VOTE_GRANT", "VOTE_DENY"],
            value: |n| 2 * n.saturating_sub(1),
        },
        Formula {
            name: "3(N−1)",
            applies: k::RAFT_FORMULA_2,
            counts: &["REQUEST_VOTE", "VOTE_GRANT", "VOTE_DENY", "APPEND_ENTRIES"],
            value: |n| 3 * n.saturating_sub(1),
        },
    ],
    properties: &[ONE_LEADER_PER_TERM, single_leader(Faults::CrashStop)],
    presets: PRESETS,
    build: run::build::<Raft>,
};

const PRESETS: &[Preset] = &[
    Preset {
        id: "split-brain-raft",
        title: k::RAFT_PRESET_SPLIT_BRAIN_RAFT_TITLE,
        hint: k::RAFT_PRESET_SPLIT_BRAIN_RAFT_HINT,
        json: r#"{"algorithm":"raft","nodes":[1,2,3,4,5],"seed":425,"initial_leader":5,
                  "heartbeats":{"interval":2,"timeout":10},"stop":{"max_time":300}}"#,
        leaders: &[5],
        golden: "cdde8d18e09bc193",
    },
    Preset {
        id: "raft-cold",
        title: k::RAFT_PRESET_RAFT_COLD_TITLE,
        hint: k::RAFT_PRESET_RAFT_COLD_HINT,
        json: r#"{"algorithm":"raft","nodes":[1,2,3,4,5],"seed":7,
                  "heartbeats":{"interval":3,"timeout":12},"stop":{"max_time":300}}"#,
        leaders: &[4],
        golden: "1024adfc4aca0ff1",
    },
];

// Narration: one sentence per rule, in both languages. `{0}` is the acting node.

impl Raft {
    fn from_params(cfg: &Config, params: &Params) -> Result<Self, ScenarioError> {
        let p = ParamReader::new(params, &["election_timeout", "ack_window", "log"])?;
        let t = cfg.heartbeats.map_or(10, |h| h.timeout);
        let (lo, hi) = p.pair("election_timeout")?.map_or((t, t.saturating_mul(2)), |[a, b]| (a, b));
        if lo == 0 || lo > hi {
            return Err(ScenarioError::new("params.election_timeout", format!("expected [lo, hi] with 1 <= lo <= hi, found [{lo}, {hi}]")));
        }
        let interval = cfg.heartbeats.map_or(2, |h| h.interval);
        let round_trip = 2 * cfg.latency.1;
        let ack_window = p.uint("ack_window")?.unwrap_or((3 * interval).max(interval + round_trip + 1));
        if ack_window == 0 {
            return Err(ScenarioError::new("params.ack_window", "must be at least 1 tick"));
        }
        let mut logs = BTreeMap::new();
        for (key, [index, term]) in p.entries("log", "[index, term] (two whole numbers)", pair)? {
            let id: NodeId = key.parse().map_err(|_| ScenarioError::new(format!("params.log.{key}"), "expected a node id as the key"))?;
            if !cfg.ids.contains(&id) {
                return Err(ScenarioError::new(format!("params.log.{key}"), format!("unknown node {id}")));
            }
            logs.insert(id, (index, term));
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

kinds! {
    Msg;
    Msg::RequestVote { .. } => Kind::new("REQUEST_VOTE", "RV", Visual::Request, k::RAFT_KIND_REQUEST_VOTE),
    Msg::VoteGrant { .. } => Kind::new("VOTE_GRANT", "✓", Visual::Answer, k::RAFT_KIND_VOTE_GRANT),
    Msg::VoteDeny { .. } => Kind::new("VOTE_DENY", "✗", Visual::Refusal, k::RAFT_KIND_VOTE_DENY),
    Msg::AppendEntries { .. } => Kind::new("APPEND_ENTRIES", "AE", Visual::Data, k::RAFT_KIND_APPEND_ENTRIES),
    Msg::AppendAck { .. } => Kind::new("APPEND_ACK", "ack", Visual::Answer, k::RAFT_KIND_APPEND_ACK),
    Msg::AppendReject { .. } => Kind::new("APPEND_REJECT", "rej", Visual::Refusal, k::RAFT_KIND_APPEND_REJECT),
}

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
            ctx.note(&k::RAFT_NOTE_ALONE, &[ctx.me as u64, s.term]);
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
            ctx.note(&k::RAFT_NOTE_START, &[ctx.me as u64, s.term + 1, s.quorum as u64]);
            self.become_candidate(s, ctx);
        } else {
            ctx.note(&k::RAFT_NOTE_START_LEADER, &[ctx.me as u64, s.term]);
        }
    }

    fn on_message(&self, s: &mut State, from: NodeId, msg: Msg, ctx: &mut C) {
        let term = msg.term();
        let (me, peer) = (ctx.me as u64, from as u64);
        let adopted = term > s.term;
        if adopted {
            let rule = match s.role {
                Role::Leader => &k::RAFT_NOTE_STEP_DOWN_TERM,
                Role::Candidate => &k::RAFT_NOTE_ABANDON,
                Role::Follower => &k::RAFT_NOTE_NEW_TERM,
            };
            ctx.note(rule, &[me, term, s.term]);
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
                    ctx.note(&k::RAFT_NOTE_DENY_STALE, &[me, peer, s.term]);
                    ctx.send(from, Msg::VoteDeny { term: s.term });
                    return;
                }
                let up_to_date = (last_term, last_index) >= (s.last_log.1, s.last_log.0);
                if s.voted_for.is_none_or(|v| v == from) && up_to_date {
                    let rule = if s.voted_for.is_some() { &k::RAFT_NOTE_GRANT_AGAIN } else { &k::RAFT_NOTE_GRANT };
                    ctx.note(rule, &[me, peer, s.term]);
                    s.voted_for = Some(from);
                    self.arm_election(ctx);
                    ctx.send(from, Msg::VoteGrant { term: s.term });
                } else {
                    match s.voted_for {
                        Some(v) if v == ctx.me => ctx.note(&k::RAFT_NOTE_DENY_SELF, &[me, peer, s.term]),
                        Some(v) if v != from => ctx.note(&k::RAFT_NOTE_DENY_VOTED, &[me, peer, v as u64]),
                        // Free to vote, so the candidate's log is behind.
                        _ if last_term < s.last_log.1 => ctx.note(&k::RAFT_NOTE_DENY_LOG_TERM, &[me, peer, last_term]),
                        _ => ctx.note(&k::RAFT_NOTE_DENY_LOG_INDEX, &[me, peer, last_index]),
                    }
                    ctx.send(from, Msg::VoteDeny { term: s.term });
                }
            }
            Msg::VoteGrant { term } => {
                if s.role == Role::Candidate && term == s.term && !s.votes.contains(&from) {
                    ctx.note(&k::RAFT_NOTE_VOTE, &[me, peer, term]);
                    s.votes.push(from);
                    if s.votes.len() as u32 >= s.quorum {
                        ctx.note(&k::RAFT_NOTE_WIN, &[me, s.votes.len() as u64, ctx.cfg.n() as u64]);
                        self.become_leader(s, ctx);
                    } else {
                        ctx.note(&k::RAFT_NOTE_TALLY, &[me, s.votes.len() as u64, s.quorum as u64]);
                    }
                } else if s.role == Role::Leader && term == s.term {
                    ctx.note(&k::RAFT_NOTE_VOTE_LATE, &[me, peer, s.term]);
                } else if s.role == Role::Candidate && term == s.term {
                    ctx.note(&k::RAFT_NOTE_VOTE_AGAIN, &[me, peer, s.term]);
                } else {
                    ctx.note(&k::RAFT_NOTE_VOTE_IGNORED, &[me, peer, term]);
                }
            }
            Msg::VoteDeny { term } => {
                // A refusal from a newer term was narrated as adopting it.
                if !adopted {
                    let rule = match s.role {
                        Role::Candidate if term == s.term => &k::RAFT_NOTE_DENIED,
                        Role::Leader if term == s.term => &k::RAFT_NOTE_DENIED_WON,
                        _ => &k::RAFT_NOTE_DENIED_LATE,
                    };
                    ctx.note(rule, &[me, peer, term]);
                }
            }
            Msg::AppendEntries { term } => {
                if term < s.term {
                    ctx.note(&k::RAFT_NOTE_REJECT, &[me, peer, s.term]);
                    ctx.send(from, Msg::AppendReject { term: s.term });
                    return;
                }
                let rule = match s.role {
                    Role::Candidate => &k::RAFT_NOTE_YIELD,
                    _ if s.leader == Some(from) => &k::RAFT_NOTE_HEARTBEAT_ACK,
                    _ => &k::RAFT_NOTE_FOLLOW,
                };
                ctx.note(rule, &[me, peer, term]);
                self.become_follower(s, ctx);
                s.leader = Some(from);
                self.arm_election(ctx);
                ctx.send(from, Msg::AppendAck { term: s.term });
            }
            Msg::AppendAck { term } => {
                if s.role == Role::Leader && term == s.term && !s.acks.contains(&from) {
                    s.acks.push(from);
                    ctx.note(&k::RAFT_NOTE_ACK, &[me, peer, s.acks.len() as u64]);
                } else if s.role == Role::Leader && term == s.term {
                    ctx.note(&k::RAFT_NOTE_ACK_AGAIN, &[me, peer]);
                } else {
                    ctx.note(&k::RAFT_NOTE_ACK_LATE, &[me, peer]);
                }
            }
            Msg::AppendReject { .. } => {
                // A rejection from a newer term was narrated as adopting it.
                if !adopted {
                    ctx.note(&k::RAFT_NOTE_REJECT_LATE, &[me, peer, s.term]);
                }
            }
        }
    }

    fn on_timer(&self, s: &mut State, timer: Timer, ctx: &mut C) {
        match timer {
            Timer::Election => {
                if s.role != Role::Leader {
                    if s.role == Role::Candidate {
                        ctx.note(&k::RAFT_NOTE_RETRY, &[ctx.me as u64, s.term, s.term + 1]);
                    } else {
                        ctx.note(&k::RAFT_NOTE_TIMEOUT, &[ctx.me as u64, s.term + 1, s.quorum as u64]);
                    }
                    self.become_candidate(s, ctx);
                }
            }
            Timer::Heartbeat => {
                if s.role == Role::Leader {
                    ctx.heartbeat(Timer::Heartbeat, &k::RAFT_NOTE_BEAT, &[ctx.me as u64, s.term], Msg::AppendEntries { term: s.term });
                }
            }
            Timer::AckCheck => {
                if s.role == Role::Leader {
                    let tally = [ctx.me as u64, s.acks.len() as u64, s.quorum as u64];
                    if (s.acks.len() as u32) < s.quorum {
                        ctx.note(&k::RAFT_NOTE_LONELY, &tally);
                        s.leader = None;
                        self.become_follower(s, ctx);
                    } else {
                        ctx.note(&k::RAFT_NOTE_ACKS_OK, &tally);
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
        match s.voted_for {
            Some(v) if v == s.me => ctx.note(&k::RAFT_NOTE_RECOVER_SELF, &[s.me as u64, s.term]),
            Some(v) => ctx.note(&k::RAFT_NOTE_RECOVER_VOTED, &[s.me as u64, s.term, v as u64]),
            None => ctx.note(&k::RAFT_NOTE_RECOVER, &[s.me as u64, s.term]),
        }
        self.arm_election(ctx);
        s
    }

    fn view(&self, s: &State) -> View {
        let role = match s.role {
            Role::Follower => FOLLOWER,
            Role::Candidate => CANDIDATE,
            Role::Leader => LEADER,
        };
        let tally = (s.role == Role::Candidate).then_some((s.votes.len() as u32, s.quorum));
        View { role, leader: s.leader, term: Some(s.term), vote: s.voted_for, tally, ..View::default() }
    }

    fn inspect(&self, s: &State) -> Vec<(Text, String)> {
        let list = |v: &[NodeId]| v.iter().map(|x| format!("N{x}")).collect::<Vec<_>>().join(", ");
        vec![
            (k::INSPECT_ROLE, format!("{:?}", s.role).to_ascii_lowercase()),
            (k::INSPECT_CURRENT_TERM, s.term.to_string()),
            (k::INSPECT_VOTED_FOR, fmt_node(s.voted_for)),
            (k::UI_LEADER, fmt_node(s.leader)),
            (k::INSPECT_LAST_LOG_INDEX_TERM, format!("{}@{}", s.last_log.0, s.last_log.1)),
            (k::INSPECT_VOTES, format!("{} / {} needed: {}", s.votes.len(), s.quorum, list(&s.votes))),
            (k::INSPECT_ACKS_THIS_WINDOW, list(&s.acks)),
        ]
    }
}

#[cfg(test)]
mod narration_tests;
