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
//! for every node), `pre_vote` (default `false`): the pre-vote of Ongaro's thesis ("Consensus:
//! Bridging Theory and Practice", Stanford 2014, §9.6), as etcd and hashicorp/raft offer it. A
//! node whose election timer runs out first becomes a pre-candidate and asks PRE_VOTE(term + 1,
//! last log) without raising its own term; a node grants it only if it would grant the vote (the
//! candidate's log is up to date, the proposed term is above its own) and has heard from no
//! leader since its own election timer was last armed. Only with a majority of pre-votes does the
//! node raise its term and ask REQUEST_VOTE. A node cut off from the majority never gets there,
//! so its term stays where it was, and when it rejoins it does not depose a healthy leader.

use crate::algorithm::Algorithm;
use crate::error::ScenarioError;
use crate::field::{Field, FieldValue as V};
use crate::meta::k;
use crate::meta::{
    single_leader, Faults, Formula, Kind, Preset, Topology, Visual, CANDIDATE_ROLE, FOLLOWER_ROLE, LEADER_ROLE,
    ONE_LEADER_PER_TERM, PRE_CANDIDATE_ROLE,
};
use crate::protocol::{pair, Config, Ctx, Message, ParamReader, Params, Protocol, View, CANDIDATE, FOLLOWER, LEADER};
use crate::run;
use crate::{NodeId, Time};
use std::collections::BTreeMap;

#[derive(Clone, Debug)]
pub struct Raft {
    pub election_timeout: (Time, Time),
    pub ack_window: Time,
    /// (last log index, last log term) per node id.
    pub logs: BTreeMap<NodeId, (u64, u64)>,
    /// The test-only mutant that grants a second vote in a term ([`super::MUTANT`]).
    pub double_vote: bool,
    /// Ask a pre-vote before raising the term (thesis §9.6).
    pub pre_vote: bool,
}

impl Raft {
    fn from_params(cfg: &Config, params: &Params) -> Result<Self, ScenarioError> {
        let (params, double_vote) = super::mutant(params, "double-vote");
        let p = ParamReader::new(&params, &["election_timeout", "ack_window", "log", "pre_vote"])?;
        let t = cfg.heartbeats.map_or(10, |h| h.timeout);
        let (lo, hi) = p.pair("election_timeout")?.map_or((t, t.saturating_mul(2)), |[a, b]| (a, b));
        if lo == 0 || lo > hi {
            return Err(ScenarioError::new(
                "params.election_timeout",
                format!("expected [lo, hi] with 1 <= lo <= hi, found [{lo}, {hi}]"),
            ));
        }
        let interval = cfg.heartbeats.map_or(2, |h| h.interval);
        let round_trip = 2 * cfg.latency.1;
        let ack_window = p.ticks("ack_window", (3 * interval).max(interval + round_trip + 1))?;
        let mut logs = BTreeMap::new();
        for (key, [index, term]) in p.entries("log", "[index, term] (two whole numbers)", pair)? {
            let id: NodeId = key
                .parse()
                .map_err(|_| ScenarioError::new(format!("params.log.{key}"), "expected a node id as the key"))?;
            if !cfg.ids.contains(&id) {
                return Err(ScenarioError::new(format!("params.log.{key}"), format!("unknown node {id}")));
            }
            logs.insert(id, (index, term));
        }
        Ok(Raft { election_timeout: (lo, hi), ack_window, logs, double_vote, pre_vote: p.flag("pre_vote")? })
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Role {
    Follower,
    /// Asking a pre-vote, its term not raised yet (only with `pre_vote`).
    PreCandidate,
    Candidate,
    Leader,
}

#[derive(Clone, Debug, PartialEq, Eq, Hash)]
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
    /// A pre-candidate's pre-votes, itself included.
    pub pre_votes: Vec<NodeId>,
}

#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum Msg {
    RequestVote {
        term: u64,
        last_index: u64,
        last_term: u64,
    },
    VoteGrant {
        term: u64,
    },
    VoteDeny {
        term: u64,
    },
    AppendEntries {
        term: u64,
    },
    AppendAck {
        term: u64,
    },
    AppendReject {
        term: u64,
    },
    /// `term`: the term the sender would stand in (its own + 1); nobody adopts it.
    PreVote {
        term: u64,
        last_index: u64,
        last_term: u64,
    },
    PreVoteGrant {
        term: u64,
    },
    PreVoteDeny {
        term: u64,
    },
}

kinds! {
    Msg;
    Msg::RequestVote { .. } => Kind::new("REQUEST_VOTE", "RV", Visual::Request, k::RAFT_KIND_REQUEST_VOTE),
    Msg::VoteGrant { .. } => Kind::new("VOTE_GRANT", "✓", Visual::Answer, k::RAFT_KIND_VOTE_GRANT),
    Msg::VoteDeny { .. } => Kind::new("VOTE_DENY", "✗", Visual::Refusal, k::RAFT_KIND_VOTE_DENY),
    Msg::AppendEntries { .. } => Kind::new("APPEND_ENTRIES", "AE", Visual::Data, k::RAFT_KIND_APPEND_ENTRIES),
    Msg::AppendAck { .. } => Kind::new("APPEND_ACK", "ack", Visual::Answer, k::RAFT_KIND_APPEND_ACK),
    Msg::AppendReject { .. } => Kind::new("APPEND_REJECT", "rej", Visual::Refusal, k::RAFT_KIND_APPEND_REJECT),
    Msg::PreVote { .. } => Kind::new("PRE_VOTE", "PV", Visual::Request, k::RAFT_KIND_PRE_VOTE),
    Msg::PreVoteGrant { .. } => Kind::new("PRE_VOTE_GRANT", "P✓", Visual::Answer, k::RAFT_KIND_PRE_VOTE_GRANT),
    Msg::PreVoteDeny { .. } => Kind::new("PRE_VOTE_DENY", "P✗", Visual::Refusal, k::RAFT_KIND_PRE_VOTE_DENY),
}

timers! {
    Timer {
        Election => "ELECTION_TIMEOUT",
        Heartbeat => "HEARTBEAT",
        AckCheck => "ACK_CHECK",
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
            s.pre_votes.clear();
            self.arm_election(ctx);
        }
    }

    /// The election timer ran out: with `pre_vote`, ask first; otherwise stand at once.
    fn stand(&self, s: &mut State, ctx: &mut C) {
        if !self.pre_vote {
            self.become_candidate(s, ctx);
            return;
        }
        s.role = Role::PreCandidate;
        s.pre_votes = vec![ctx.me];
        s.leader = None;
        self.arm_election(ctx);
        if s.pre_votes.len() as u32 >= s.quorum {
            self.become_candidate(s, ctx);
            return;
        }
        let (last_index, last_term) = s.last_log;
        ctx.broadcast(Msg::PreVote { term: s.term + 1, last_index, last_term });
    }

    fn become_candidate(&self, s: &mut State, ctx: &mut C) {
        s.role = Role::Candidate;
        s.pre_votes.clear();
        s.term += 1;
        s.voted_for = Some(ctx.me);
        s.votes = vec![ctx.me];
        s.leader = None;
        self.arm_election(ctx);
        if s.votes.len() as u32 >= s.quorum {
            ctx.note(k::raft_note_alone(ctx.me, s.term));
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
    const VIEW_FIELDS: &'static [&'static str] = &["leader", "term", "vote", "votes"];

    fn new(cfg: &Config, params: &Params) -> Result<Self, ScenarioError> {
        Raft::from_params(cfg, params)
    }

    fn init(&self, ctx: &mut C) -> State {
        let me = ctx.me;
        let last_log = self.logs.get(&me).copied().unwrap_or((0, 0));
        let quorum = ctx.cfg.quorum();
        let mut s = State {
            me,
            term: 0,
            voted_for: None,
            last_log,
            role: Role::Follower,
            leader: None,
            votes: vec![],
            acks: vec![],
            quorum,
            pre_votes: vec![],
        };
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
            ctx.note(k::raft_note_start(ctx.me, s.term + 1, s.quorum as u64));
            self.become_candidate(s, ctx);
        } else {
            ctx.note(k::raft_note_start_leader(ctx.me, s.term));
        }
    }

    fn on_message(&self, s: &mut State, from: NodeId, msg: Msg, ctx: &mut C) {
        let term = msg.term();
        let (me, peer) = (ctx.me, from);
        let adopted = term > s.term && msg.binding();
        if adopted {
            let rule = match s.role {
                Role::Leader => k::raft_note_step_down_term,
                Role::Candidate | Role::PreCandidate => k::raft_note_abandon,
                Role::Follower => k::raft_note_new_term,
            };
            ctx.note(rule(me, term, s.term));
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
                    ctx.note(k::raft_note_deny_stale(me, peer, s.term));
                    ctx.send(from, Msg::VoteDeny { term: s.term });
                    return;
                }
                let up_to_date = (last_term, last_index) >= (s.last_log.1, s.last_log.0);
                if (s.voted_for.is_none_or(|v| v == from) || self.double_vote) && up_to_date {
                    let rule = if s.voted_for.is_some() { k::raft_note_grant_again } else { k::raft_note_grant };
                    ctx.note(rule(me, peer, s.term));
                    s.voted_for = Some(from);
                    self.arm_election(ctx);
                    ctx.send(from, Msg::VoteGrant { term: s.term });
                } else {
                    match s.voted_for {
                        Some(v) if v == ctx.me => ctx.note(k::raft_note_deny_self(me, peer, s.term)),
                        Some(v) if v != from => ctx.note(k::raft_note_deny_voted(me, peer, v)),
                        // Free to vote, so the candidate's log is behind.
                        _ if last_term < s.last_log.1 => ctx.note(k::raft_note_deny_log_term(me, peer, last_term)),
                        _ => ctx.note(k::raft_note_deny_log_index(me, peer, last_index)),
                    }
                    ctx.send(from, Msg::VoteDeny { term: s.term });
                }
            }
            Msg::VoteGrant { term } => {
                if s.role == Role::Candidate && term == s.term && !s.votes.contains(&from) {
                    ctx.note(k::raft_note_vote(me, peer, term));
                    s.votes.push(from);
                    if s.votes.len() as u32 >= s.quorum {
                        ctx.note(k::raft_note_win(me, s.votes.len() as u64, ctx.cfg.n() as u64));
                        self.become_leader(s, ctx);
                    } else {
                        ctx.note(k::raft_note_tally(me, s.votes.len() as u64, s.quorum as u64));
                    }
                } else if s.role == Role::Leader && term == s.term {
                    ctx.note(k::raft_note_vote_late(me, peer, s.term));
                } else if s.role == Role::Candidate && term == s.term {
                    ctx.note(k::raft_note_vote_again(me, peer, s.term));
                } else {
                    ctx.note(k::raft_note_vote_ignored(me, peer, term));
                }
            }
            Msg::VoteDeny { term } => {
                // A refusal from a newer term was narrated as adopting it.
                if !adopted {
                    let rule = match s.role {
                        Role::Candidate if term == s.term => k::raft_note_denied,
                        Role::Leader if term == s.term => k::raft_note_denied_won,
                        _ => k::raft_note_denied_late,
                    };
                    ctx.note(rule(me, peer, term));
                }
            }
            Msg::AppendEntries { term } => {
                if term < s.term {
                    ctx.note(k::raft_note_reject(me, peer, s.term));
                    ctx.send(from, Msg::AppendReject { term: s.term });
                    return;
                }
                let rule = match s.role {
                    Role::Candidate | Role::PreCandidate => k::raft_note_yield,
                    _ if s.leader == Some(from) => k::raft_note_heartbeat_ack,
                    _ => k::raft_note_follow,
                };
                ctx.note(rule(me, peer, term));
                self.become_follower(s, ctx);
                s.leader = Some(from);
                self.arm_election(ctx);
                ctx.send(from, Msg::AppendAck { term: s.term });
            }
            Msg::AppendAck { term } => {
                if s.role == Role::Leader && term == s.term && !s.acks.contains(&from) {
                    s.acks.push(from);
                    ctx.note(k::raft_note_ack(me, peer, s.acks.len() as u64));
                } else if s.role == Role::Leader && term == s.term {
                    ctx.note(k::raft_note_ack_again(me, peer));
                } else {
                    ctx.note(k::raft_note_ack_late(me, peer));
                }
            }
            Msg::AppendReject { .. } => {
                // A rejection from a newer term was narrated as adopting it.
                if !adopted {
                    ctx.note(k::raft_note_reject_late(me, peer, s.term));
                }
            }
            Msg::PreVote { term, last_index, last_term } => {
                let up_to_date = (last_term, last_index) >= (s.last_log.1, s.last_log.0);
                // A node that hears from a leader (or is one) keeps it: the rejoining node
                // cannot depose it.
                let leader = match s.role {
                    Role::Leader => Some(ctx.me),
                    Role::Follower => s.leader,
                    _ => None,
                };
                if term <= s.term {
                    ctx.note(k::raft_note_pre_deny_stale(me, peer, s.term));
                    ctx.send(from, Msg::PreVoteDeny { term });
                } else if let Some(l) = leader {
                    ctx.note(k::raft_note_pre_deny_leader(me, peer, l));
                    ctx.send(from, Msg::PreVoteDeny { term });
                } else if !up_to_date {
                    ctx.note(k::raft_note_pre_deny_log(me, peer, term));
                    ctx.send(from, Msg::PreVoteDeny { term });
                } else {
                    ctx.note(k::raft_note_pre_grant(me, peer, term));
                    ctx.send(from, Msg::PreVoteGrant { term });
                }
            }
            Msg::PreVoteGrant { term } => {
                if s.role == Role::PreCandidate && term == s.term + 1 && !s.pre_votes.contains(&from) {
                    s.pre_votes.push(from);
                    if s.pre_votes.len() as u32 >= s.quorum {
                        ctx.note(k::raft_note_pre_win(me, s.pre_votes.len() as u64, term));
                        self.become_candidate(s, ctx);
                    } else {
                        ctx.note(k::raft_note_pre_tally(me, s.pre_votes.len() as u64, s.quorum as u64));
                    }
                } else {
                    ctx.note(k::raft_note_pre_late(me, peer, term));
                }
            }
            Msg::PreVoteDeny { term } => {
                ctx.note(k::raft_note_pre_denied(me, peer, term));
            }
        }
    }

    fn on_timer(&self, s: &mut State, timer: Timer, ctx: &mut C) {
        match timer {
            Timer::Election => {
                if s.role != Role::Leader {
                    if self.pre_vote {
                        ctx.note(k::raft_note_pre_timeout(ctx.me, s.term + 1, s.quorum as u64));
                    } else if s.role == Role::Candidate {
                        ctx.note(k::raft_note_retry(ctx.me, s.term, s.term + 1));
                    } else {
                        ctx.note(k::raft_note_timeout(ctx.me, s.term + 1, s.quorum as u64));
                    }
                    self.stand(s, ctx);
                }
            }
            Timer::Heartbeat => {
                if s.role == Role::Leader {
                    ctx.heartbeat(
                        Timer::Heartbeat,
                        k::raft_note_beat(ctx.me, s.term),
                        Msg::AppendEntries { term: s.term },
                    );
                }
            }
            Timer::AckCheck => {
                if s.role == Role::Leader {
                    if (s.acks.len() as u32) < s.quorum {
                        ctx.note(k::raft_note_lonely(ctx.me, s.acks.len() as u64, s.quorum as u64));
                        s.leader = None;
                        self.become_follower(s, ctx);
                    } else {
                        ctx.note(k::raft_note_acks_ok(ctx.me, s.acks.len() as u64, s.quorum as u64));
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
            pre_votes: vec![],
        };
        match s.voted_for {
            Some(v) if v == s.me => ctx.note(k::raft_note_recover_self(s.me, s.term)),
            Some(v) => ctx.note(k::raft_note_recover_voted(s.me, s.term, v)),
            None => ctx.note(k::raft_note_recover(s.me, s.term)),
        }
        self.arm_election(ctx);
        s
    }

    fn view(&self, s: &State) -> View {
        let role = match s.role {
            Role::Follower => FOLLOWER,
            Role::PreCandidate => "pre-candidate",
            Role::Candidate => CANDIDATE,
            Role::Leader => LEADER,
        };
        let tally = match s.role {
            Role::Candidate => Some((s.votes.len() as u32, s.quorum)),
            Role::PreCandidate => Some((s.pre_votes.len() as u32, s.quorum)),
            _ => None,
        };
        View { role, leader: s.leader, term: Some(s.term), vote: s.voted_for, tally, ..View::default() }
    }

    fn inspect(&self, s: &State) -> Vec<Field> {
        let role = match s.role {
            Role::PreCandidate => "pre-candidate".to_string(),
            r => format!("{r:?}").to_ascii_lowercase(),
        };
        let list = |v: &[NodeId]| V::Nodes(v.to_vec());
        let votes = format!("{} / {} needed: {}", s.votes.len(), s.quorum, V::Nodes(s.votes.clone()).show());
        let mut rows = vec![
            Field::new("role", k::INSPECT_ROLE, V::Text(role)),
            Field::new("current_term", k::INSPECT_CURRENT_TERM, V::num(s.term)),
            Field::new("voted_for", k::INSPECT_VOTED_FOR, V::node(s.voted_for)),
            Field::new("leader", k::UI_LEADER, V::node(s.leader)),
            Field::new(
                "last_log",
                k::INSPECT_LAST_LOG_INDEX_TERM,
                V::text(format!("{}@{}", s.last_log.0, s.last_log.1)),
            ),
            Field::new("votes", k::INSPECT_VOTES, V::worded(s.votes.len() as u64, votes)),
            Field::new("acks", k::INSPECT_ACKS_THIS_WINDOW, list(&s.acks)),
        ];
        // Only where pre-votes are asked: every other run's rows (and exports) stay as they were.
        if self.pre_vote {
            rows.push(Field::new("pre_votes", k::INSPECT_PRE_VOTES, list(&s.pre_votes)));
        }
        rows
    }

    /// Ids are identities here, only ever compared for equality: renaming the nodes renames the
    /// run. A node's log (`params.log`) sets it apart: its colour.
    fn symmetry(&self, cfg: &Config) -> Option<Vec<u64>> {
        let log = |id: &NodeId| self.logs.get(id).copied().unwrap_or((0, 0));
        let mut logs: Vec<(u64, u64)> = cfg.ids.iter().map(log).collect();
        logs.sort_unstable();
        logs.dedup();
        Some(cfg.ids.iter().map(|id| logs.partition_point(|&l| l < log(id)) as u64).collect())
    }

    fn rename_state(&self, s: &mut State, to: &dyn Fn(NodeId) -> NodeId) {
        s.me = to(s.me);
        s.voted_for = s.voted_for.map(to);
        s.leader = s.leader.map(to);
        for v in s.votes.iter_mut().chain(&mut s.acks).chain(&mut s.pre_votes) {
            *v = to(*v);
        }
    }
}

mod descriptor;
pub use descriptor::ALGORITHM;

#[cfg(all(test, holds = "consensus"))]
mod narration_tests;
