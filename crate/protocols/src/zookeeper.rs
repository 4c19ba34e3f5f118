//! **ZooKeeper-style fast leader election** (P. Hunt, M. Konar, F. P. Junqueira and B. Reed,
//! "ZooKeeper: Wait-free Coordination for Internet-scale Systems", USENIX ATC 2010; F. P.
//! Junqueira, B. C. Reed and M. Serafini, "Zab: High-performance broadcast for primary-backup
//! systems", DSN 2011).
//!
//! A node without a leader is LOOKING: it votes for itself and broadcasts VOTE (proposed leader,
//! that leader's ZXID, election round). Votes are ordered by (ZXID, SID): the newest data wins and
//! the larger id breaks a tie. A LOOKING node that gets a larger vote of its own round switches to
//! it and broadcasts again; a VOTE of a newer round makes it join that round (keeping the larger of
//! its own and the sender's vote); a VOTE of an older round is answered with its own vote so that
//! the sender catches up. It keeps the last vote of every node of its round, and when a quorum
//! (⌊N/2⌋+1) of them equal its own and no better vote arrives within `finalize_wait` ticks, it
//! decides: FOLLOWING the winner, or, if it is the winner, leading.
//!
//! Readings and simplifications:
//! * **LEADING needs a quorum of followers** (Zab's discovery phase). The winner of the vote is a
//!   *prospective* leader until a quorum, itself included, has sent FOLLOW for its round. A node
//!   promises to follow at most one node per round, and keeps its round and promise on disk (as Zab
//!   keeps its accepted epoch), so two quorums of promises share a node and at most one node ever
//!   leads a given round, under any partition, loss or delay. Votes alone promise nothing: a vote
//!   may change after another node has counted it.
//! * Only the (prospective) leader answers a LOOKING node's VOTE, with ELECTED(round). ZooKeeper's
//!   followers answer too, and a newcomer waits for a quorum of answers that includes the leader's;
//!   here the leader's own answer suffices, since a promise counts only for a leader that a quorum
//!   follows.
//! * A LOOKING node in a newer round than its leader's (it lost the leader for a while) makes the
//!   leader move up to that round: the leader PINGs at once and its followers confirm it there with
//!   FOLLOW, so the node rejoins without an election and nobody promises twice in one round.
//! * A leader PINGs every `heartbeats.interval` and followers answer FOLLOW. A follower that hears no
//!   PING for `heartbeats.timeout` goes LOOKING in the next round; a (prospective) leader with FOLLOW
//!   from fewer than a quorum within `ack_window` does the same. A LOOKING node repeats its vote
//!   every `timeout`…`2·timeout` ticks. With `heartbeats: null` none of these timers runs.
//! * Votes compare (ZXID, SID); ZooKeeper compares the peer epoch first, which is not modelled apart
//!   from the ZXID here. ZXIDs are fixed for the run (no writes happen).
//! * `initial_leader`: every node starts in round 1 following it; otherwise all boot LOOKING.
//!
//! Parameters (`params`): `zxid` `{"<id>": zxid}` (default 0), `finalize_wait` (default
//! `2·latency_max`: the notes still in flight arrive), `ack_window` (default as Raft's:
//! `3 × heartbeats.interval`, but at least `interval + 2·latency_max + 1`).

use crate::algorithm::Algorithm;
use crate::error::ScenarioError;
use crate::field::{Field, FieldValue as V};
use crate::meta::k;
use crate::meta::{
    single_leader, Faults, Formula, Kind, Look, Monitor, Preset, Property, Role, Text, Topology, Visual,
    TWO_LEADERS_IN_TERM,
};
use crate::protocol::{Config, Ctx, Decoration, Message, Params, Protocol, View, LEADING};
use crate::run;
use crate::{NodeId, Time};
use serde_json::Value;
use std::collections::BTreeMap;

#[derive(Clone, Debug)]
pub struct ZooKeeper {
    pub finalize_wait: Time,
    pub ack_window: Time,
    pub zxids: BTreeMap<NodeId, u64>,
}

/// At most one node leads each election round.
pub const ONE_LEADER_PER_ROUND: Property = Property {
    id: TWO_LEADERS_IN_TERM,
    title: k::ZOOKEEPER_TITLE,
    explain: k::ZOOKEEPER_EXPLAIN,
    holds: Faults::Any,
    monitor: Monitor::TwoLeadersInTerm,
};

pub const ALGORITHM: Algorithm = Algorithm {
    id: "zookeeper",
    title: k::ZOOKEEPER_PROPERTY_ZOOKEEPER_TITLE,
    citation: "P. Hunt, M. Konar, F. P. Junqueira and B. Reed, ZooKeeper: Wait-free Coordination for Internet-scale Systems, USENIX ATC 2010; F. P. Junqueira, B. C. Reed and M. Serafini, Zab: High-performance broadcast for primary-backup systems, DSN 2011",
    summary: k::ZOOKEEPER_SUMMARY,
    card: k::ZOOKEEPER_CARD,
    topology: Topology::Complete,
    kinds: KINDS,
    roles: &[
        Role::new("looking", Look::Candidate, k::ZOOKEEPER_ROLE_LOOKING),
        Role::new("following", Look::Follower, k::ZOOKEEPER_ROLE_FOLLOWING),
        Role::new("prospective", Look::Waiting, k::ZOOKEEPER_ROLE_PROSPECTIVE),
        Role::new(LEADING, Look::Leader, k::ZOOKEEPER_LEADING_FOLLOWED_BY_A_QUORUM),
    ],
    formulas: &[
        Formula::new("(N³−N)/2", k::ZOOKEEPER_FORMULA_1, &["VOTE"], |n| (n * n * n - n) / 2),
        Formula::new("(2N−1)(N−1)", k::ZOOKEEPER_FORMULA_2, &["VOTE"], |n| (2 * n - 1) * n.saturating_sub(1)),
    ],
    properties: &[ONE_LEADER_PER_ROUND, single_leader(Faults::CrashStop)],
    presets: PRESETS,
    build: run::build::<ZooKeeper>,
};

const PRESETS: &[Preset] = &[
    Preset {
        id: "zookeeper-leader-lost",
        title: k::ZOOKEEPER_PRESET_ZOOKEEPER_LEADER_LOST_TITLE,
        hint: k::ZOOKEEPER_PRESET_ZOOKEEPER_LEADER_LOST_HINT,
        json: r#"{"algorithm":"zookeeper","nodes":[1,2,3,4,5],"seed":425,"initial_leader":5,
                  "heartbeats":{"interval":2,"timeout":10},"params":{"zxid":{"1":7,"2":9,"3":9,"4":8,"5":9}},
                  "schedule":[{"at":8,"crash":5}],"stop":{"max_time":120}}"#,
        leaders: &[3],
        // Pins fast leader election after the leader crashes: the newest ZXID, then the larger SID, N3.
        golden: "a6f08b04aa3b8d34",
    },
    Preset {
        id: "zookeeper-votes-5",
        title: k::ZOOKEEPER_PRESET_ZOOKEEPER_VOTES_5_TITLE,
        hint: k::ZOOKEEPER_PRESET_ZOOKEEPER_VOTES_5_HINT,
        json: r#"{"algorithm":"zookeeper","nodes":[1,2,3,4,5],"seed":425,"heartbeats":null}"#,
        leaders: &[5],
        // Pins votes heard in increasing order: (N³−N)/2 = 60 VOTEs.
        golden: "ac024d49fdf4e960",
    },
    Preset {
        id: "split-brain-zookeeper",
        title: k::ZOOKEEPER_PRESET_SPLIT_BRAIN_ZOOKEEPER_TITLE,
        hint: k::ZOOKEEPER_PRESET_SPLIT_BRAIN_ZOOKEEPER_HINT,
        json: r#"{"algorithm":"zookeeper","nodes":[1,2,3,4,5],"seed":425,"initial_leader":5,
                  "heartbeats":{"interval":2,"timeout":10},"stop":{"max_time":300}}"#,
        leaders: &[5],
        // Pins a minority whose tallies never reach 3 of 5: it never elects.
        golden: "e9bc0594cf0802ff",
    },
];

// Narration: one sentence per rule, in both languages. `{0}` is the acting node.

impl ZooKeeper {
    /// Reads `params` by hand: three small fields do not need a serde instantiation of their own.
    fn from_params(cfg: &Config, params: &Params) -> Result<Self, ScenarioError> {
        let ticks = |key: &str, v: &Value| {
            v.as_u64().ok_or_else(|| ScenarioError::new(format!("params.{key}"), "expected a whole number of ticks"))
        };
        let interval = cfg.heartbeats.map_or(2, |h| h.interval);
        let mut zk = ZooKeeper {
            finalize_wait: 2 * cfg.latency.1,
            ack_window: (3 * interval).max(interval + 2 * cfg.latency.1 + 1),
            zxids: BTreeMap::new(),
        };
        for (key, v) in params {
            match key.as_str() {
                "finalize_wait" => zk.finalize_wait = ticks(key, v)?,
                "ack_window" => zk.ack_window = ticks(key, v)?,
                "zxid" => {
                    let map = v
                        .as_object()
                        .ok_or_else(|| ScenarioError::new("params.zxid", "expected an object {\"<id>\": zxid}"))?;
                    for (id, z) in map {
                        let at = format!("params.zxid.{id}");
                        let node: NodeId =
                            id.parse().map_err(|_| ScenarioError::new(at.clone(), "expected a node id as the key"))?;
                        if !cfg.ids.contains(&node) {
                            return Err(ScenarioError::new(at, format!("unknown node {node}")));
                        }
                        zk.zxids
                            .insert(node, z.as_u64().ok_or_else(|| ScenarioError::new(at, "expected a whole number"))?);
                    }
                }
                _ => {
                    return Err(ScenarioError::new(
                        format!("params.{key}"),
                        "unknown field (expected zxid, finalize_wait or ack_window)",
                    ))
                }
            }
        }
        if zk.ack_window == 0 {
            return Err(ScenarioError::new("params.ack_window", "must be at least 1 tick"));
        }
        Ok(zk)
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Phase {
    Looking,
    Following,
    /// Won the vote; not yet followed by a quorum.
    Prospective,
    Leading,
}

/// A vote: (ZXID of the proposed leader, proposed leader), compared in that order.
pub type Vote = (u64, NodeId);

#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct State {
    pub me: NodeId,
    pub zxid: u64,
    // Durable.
    pub round: u64,
    /// The latest promise to follow: (round, leader). At most one leader per round.
    pub promise: Option<(u64, NodeId)>,
    // Volatile.
    pub phase: Phase,
    pub vote: Vote,
    /// The last vote of each node in this round, its own included (LOOKING).
    pub votes: Vec<(NodeId, Vote)>,
    /// A quorum was seen; the finalize wait is running.
    pub finalizing: bool,
    pub leader: Option<NodeId>,
    /// FOLLOW for this round received in the current window, itself included (as leader); while
    /// LOOKING, the FOLLOW that arrived before this node decided.
    pub acks: Vec<NodeId>,
    /// The round this node leads, once a quorum confirmed it.
    pub led: Option<u64>,
    pub quorum: u32,
}

impl State {
    fn tally(&self) -> u32 {
        self.votes.iter().filter(|(_, v)| *v == self.vote).count() as u32
    }
    /// Records `who`'s vote. A node's vote only grows within a round, so the larger of two is
    /// the later one, even when the network delivered them out of order.
    fn record(&mut self, who: NodeId, v: Vote) {
        match self.votes.iter_mut().find(|(n, _)| *n == who) {
            Some(e) => e.1 = e.1.max(v),
            None => self.votes.push((who, v)),
        }
    }
    /// May this node promise to follow `leader` in `round`?
    fn can_promise(&self, round: u64, leader: NodeId) -> bool {
        self.promise.is_none_or(|(r, l)| r < round || (r == round && l == leader))
    }
    fn leads(&self) -> bool {
        matches!(self.phase, Phase::Prospective | Phase::Leading)
    }
}

#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum Msg {
    Vote { leader: NodeId, zxid: u64, round: u64 },
    Elected { round: u64 },
    Follow { round: u64 },
    Ping { round: u64 },
}

kinds! {
    Msg;
    Msg::Vote { .. } => Kind::new("VOTE", "V", Visual::Request, k::ZOOKEEPER_KIND_VOTE),
    Msg::Elected { .. } => Kind::new("ELECTED", "EL", Visual::Announcement, k::ZOOKEEPER_KIND_ELECTED),
    Msg::Follow { .. } => Kind::new("FOLLOW", "F", Visual::Answer, k::ZOOKEEPER_KIND_FOLLOW),
    Msg::Ping { .. } => Kind::new("PING", "P", Visual::Heartbeat, k::ZOOKEEPER_KIND_PING),
}

impl Message for Msg {
    fn label(&self) -> String {
        match self {
            Msg::Vote { leader, zxid, round } => format!("VOTE(N{leader}, zxid {zxid}, r{round})"),
            Msg::Elected { round } | Msg::Follow { round } | Msg::Ping { round } => {
                format!("{}(r{round})", KINDS[self.kind()].name)
            }
        }
    }
}

timers! {
    Timer {
        /// The short wait after a quorum of votes, for a better vote still in flight.
        Finalize => "FINALIZE_WAIT",
        /// A LOOKING node repeats its vote.
        Retry => "VOTE_AGAIN",
        /// The follower's failure detector.
        LeaderTimeout => "LEADER_TIMEOUT",
        Ping => "PING",
        /// The (prospective) leader's window for a quorum of FOLLOW.
        AckCheck => "ACK_CHECK",
    }
}

type C<'a> = Ctx<'a, Msg, Timer>;

mod handlers;

/// What a node's number counts, under it on the canvas.
static ROUND: Text = k::INSPECT_ROUND;

impl Protocol for ZooKeeper {
    type State = State;
    type Msg = Msg;
    type Timer = Timer;
    const VIEW_FIELDS: &'static [&'static str] = &["leader", "term", "vote", "votes", "zxid"];

    fn new(cfg: &Config, params: &Params) -> Result<Self, ScenarioError> {
        ZooKeeper::from_params(cfg, params)
    }

    fn init(&self, ctx: &mut C) -> State {
        let mut s = self.fresh(ctx.me, ctx.cfg.quorum());
        match ctx.cfg.initial_leader {
            Some(l) => {
                s.round = 1;
                s.promise = Some((1, l));
                s.leader = Some(l);
                s.vote = (self.zxid_of(l), l);
                if l == s.me {
                    s.phase = Phase::Leading;
                    s.led = Some(1);
                    s.acks = vec![s.me];
                    self.arm_leader(ctx);
                } else {
                    s.phase = Phase::Following;
                    ctx.watch_leader(Timer::LeaderTimeout, Some(l));
                }
            }
            None => self.look(&mut s, 1, ctx),
        }
        s
    }

    fn start(&self, s: &mut State, ctx: &mut C) {
        let me = s.me;
        match s.phase {
            Phase::Looking => {
                ctx.note(k::zookeeper_note_start_looking(me, s.round, s.vote.1));
                ctx.broadcast(Self::vote_msg(s));
            }
            Phase::Following => {
                ctx.note(k::zookeeper_note_start_follower(me, s.leader.unwrap_or(0), s.round + 1));
                self.look(s, s.round + 1, ctx);
            }
            Phase::Prospective | Phase::Leading => ctx.note(k::zookeeper_note_start_leader(me, s.round)),
        }
    }

    fn on_message(&self, s: &mut State, from: NodeId, msg: Msg, ctx: &mut C) {
        let (me, peer) = (s.me, from);
        match msg {
            Msg::Vote { leader, zxid, round } => {
                let v = (zxid, leader);
                match s.phase {
                    Phase::Looking => {
                        if round > s.round {
                            ctx.cancel_timer(Timer::Finalize);
                            s.round = round;
                            s.finalizing = false;
                            s.acks.clear();
                            s.vote = v.max((s.zxid, s.me));
                            s.votes = vec![(s.me, s.vote), (from, v)];
                            ctx.note(k::zookeeper_note_newer_round(me, round, s.vote.1));
                            ctx.broadcast(Self::vote_msg(s));
                        } else if round < s.round {
                            ctx.note(k::zookeeper_note_older_round(me, peer, s.round));
                            ctx.send(from, Self::vote_msg(s));
                            return;
                        } else if v > s.vote {
                            ctx.cancel_timer(Timer::Finalize);
                            s.finalizing = false;
                            s.vote = v;
                            s.record(s.me, v);
                            s.record(from, v);
                            ctx.note(k::zookeeper_note_switch(me, leader, peer));
                            ctx.broadcast(Self::vote_msg(s));
                        } else {
                            s.record(from, v);
                            ctx.note(k::zookeeper_note_keep(me, peer, leader));
                        }
                        self.check_quorum(s, ctx);
                    }
                    Phase::Following => ctx.note(k::zookeeper_note_follower_quiet(me, peer, s.leader.unwrap_or(0))),
                    Phase::Prospective | Phase::Leading => {
                        if round > s.round {
                            // Move up to the newer round: a fresh promise to itself, and a fresh
                            // window in which its followers confirm it there.
                            ctx.note(k::zookeeper_note_bump(me, peer, round));
                            s.round = round;
                            s.promise = Some((round, s.me));
                            s.acks = vec![s.me];
                            ctx.broadcast(Msg::Ping { round });
                            self.arm_leader(ctx);
                            self.confirm(s, ctx);
                        } else {
                            ctx.note(k::zookeeper_note_answer(me, peer, s.round));
                            ctx.send(from, Msg::Elected { round: s.round });
                        }
                    }
                }
            }
            Msg::Elected { round } | Msg::Ping { round } => self.on_claim(s, from, round, ctx),
            Msg::Follow { round } if s.phase == Phase::Looking && round == s.round => {
                // Decided before this node: its promise is also its vote for this node, and it
                // counts as FOLLOW should this node win.
                ctx.note(k::zookeeper_note_follow_early(me, peer));
                s.record(from, (s.zxid, s.me));
                if !s.acks.contains(&from) {
                    s.acks.push(from);
                }
                self.check_quorum(s, ctx);
            }
            Msg::Follow { round } => {
                if s.leads() && round == s.round {
                    if s.acks.contains(&from) {
                        ctx.note(k::zookeeper_note_follow_again(me, peer));
                    } else {
                        s.acks.push(from);
                        let confirmed = s.led == Some(s.round);
                        ctx.note((if confirmed { k::zookeeper_note_answered } else { k::zookeeper_note_followed })(
                            me,
                            peer,
                            s.acks.len() as u64,
                        ));
                        self.confirm(s, ctx);
                    }
                } else {
                    ctx.note(k::zookeeper_note_follow_ignored(me, peer, round));
                }
            }
        }
    }

    fn on_timer(&self, s: &mut State, timer: Timer, ctx: &mut C) {
        let me = s.me;
        match timer {
            Timer::Finalize => {
                if s.phase != Phase::Looking || !s.finalizing {
                    return;
                }
                s.finalizing = false;
                let leader = s.vote.1;
                if s.tally() < s.quorum {
                    ctx.note(k::zookeeper_note_quorum_lost(me, leader));
                } else if leader == s.me {
                    ctx.note(k::zookeeper_note_decide_lead(me, s.round, s.quorum as u64));
                    ctx.cancel_timer(Timer::Retry);
                    s.phase = Phase::Prospective;
                    s.promise = Some((s.round, s.me));
                    s.acks.insert(0, s.me);
                    s.votes.clear();
                    self.arm_leader(ctx);
                    self.confirm(s, ctx);
                } else {
                    ctx.note(k::zookeeper_note_decide_follow(me, leader, s.round));
                    self.join(s, leader, s.round, ctx);
                }
            }
            Timer::Retry => {
                if s.phase == Phase::Looking {
                    ctx.note(k::zookeeper_note_retry(me, s.round, s.vote.1));
                    ctx.broadcast(Self::vote_msg(s));
                    self.arm_retry(ctx);
                }
            }
            Timer::LeaderTimeout => {
                if let (Phase::Following, Some(l)) = (s.phase, s.leader) {
                    ctx.note(k::zookeeper_note_suspect(me, l, ctx.cfg.heartbeats.map_or(0, |h| h.timeout)));
                    self.look(s, s.round + 1, ctx);
                }
            }
            Timer::Ping => {
                if s.leads() {
                    ctx.heartbeat(Timer::Ping, k::zookeeper_note_beat(me, s.round), Msg::Ping { round: s.round });
                }
            }
            Timer::AckCheck => {
                let (acks, quorum) = (s.acks.len() as u64, s.quorum as u64);
                match s.phase {
                    Phase::Leading if s.acks.len() as u32 >= s.quorum => {
                        ctx.note(k::zookeeper_note_window_ok(me, acks, quorum));
                        s.acks = vec![s.me];
                        ctx.set_timer_after(Timer::AckCheck, self.ack_window);
                    }
                    Phase::Leading | Phase::Prospective => {
                        ctx.note(if s.phase == Phase::Leading {
                            k::zookeeper_note_lonely(me, acks, quorum)
                        } else {
                            k::zookeeper_note_not_confirmed(me, acks, quorum)
                        });
                        self.look(s, s.round + 1, ctx);
                    }
                    _ => {}
                }
            }
        }
    }

    fn recover(&self, crashed: &State, ctx: &mut C) -> State {
        let mut s = self.fresh(crashed.me, crashed.quorum);
        s.round = crashed.round;
        s.promise = crashed.promise;
        let round = s.round + 1;
        ctx.note(k::zookeeper_note_recover(s.me, round));
        self.look(&mut s, round, ctx);
        s
    }

    fn view(&self, s: &State) -> View {
        let (role, leader, term, tally) = match s.phase {
            Phase::Looking => ("looking", None, s.round, Some((s.tally(), s.quorum))),
            Phase::Following => ("following", s.leader, s.round, None),
            Phase::Prospective => ("prospective", None, s.round, Some((s.acks.len() as u32, s.quorum))),
            Phase::Leading => (LEADING, Some(s.me), s.led.unwrap_or(s.round), None),
        };
        View { role, leader, term: Some(term), term_word: Some(&ROUND), vote: Some(s.vote.1), tally, ..View::default() }
            .with(Decoration::Zxid(s.zxid))
    }

    fn inspect(&self, s: &State) -> Vec<Field> {
        let votes = s.votes.iter().map(|(n, v)| format!("N{n}→N{}", v.1)).collect::<Vec<_>>().join(", ");
        let vote = V::worded(s.vote.0, format!("({}, N{})", s.vote.0, s.vote.1));
        let promised = s.promise.map_or(V::None, |(r, l)| V::text(format!("N{l} in round {r}")));
        vec![
            Field::new("state", k::INSPECT_STATE, V::Text(format!("{:?}", s.phase).to_ascii_uppercase())),
            Field::new("zxid", k::INSPECT_ZXID, V::num(s.zxid)),
            Field::new("round", k::INSPECT_ROUND, V::num(s.round)),
            Field::new("vote", k::INSPECT_VOTE_ZXID_SID, vote),
            Field::new("votes_held", k::INSPECT_VOTES_HELD, V::worded(s.votes.len() as u64, votes)),
            Field::new("promised", k::INSPECT_PROMISED, promised),
            Field::new("leader", k::UI_LEADER, V::node(s.leader)),
            Field::new("follow", k::INSPECT_FOLLOW_THIS_WINDOW, V::Nodes(s.acks.to_vec())),
        ]
    }
}

#[cfg(all(test, holds = "consensus"))]
mod tests;
