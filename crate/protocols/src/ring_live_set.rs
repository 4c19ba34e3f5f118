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
use crate::field::{Field, FieldValue as V};
use crate::meta::k;
use crate::meta::{
    single_leader, Faults, Formula, Kind, Look, Preset, Role, Topology, Visual, CANDIDATE_ROLE, FOLLOWER_ROLE,
    LEADER_ROLE,
};
use crate::protocol::{Config, Ctx, Message, ParamReader, Params, Protocol, View, CANDIDATE, FOLLOWER, LEADER};
use crate::run;
use crate::{NodeId, Time};

pub const ALGORITHM: Algorithm = Algorithm {
    id: "ring-live-set",
    title: k::RING_LIVE_SET_TITLE,
    citation: "A. S. Tanenbaum and M. van Steen, Distributed Systems: Principles and Paradigms, Prentice Hall, 2002 (the ring algorithm); as drawn in A. Petrov, Database Internals, O'Reilly, 2019",
    summary: k::RING_LIVE_SET_SUMMARY,
    card: k::RING_LIVE_SET_CARD,
    topology: Topology::Ring,
    kinds: KINDS,
    roles: &[
        LEADER_ROLE,
        FOLLOWER_ROLE,
        CANDIDATE_ROLE,
        Role::new("participant", Look::Participant, k::RING_LIVE_SET_ROLE_PARTICIPANT),
    ],
    formulas: &[
        Formula::new("2N", k::RING_LIVE_SET_FORMULA_1, &["ELECTION", "COORDINATOR"], |n| 2 * n),
        Formula::new("4N", k::RING_LIVE_SET_FORMULA_2, &["ELECTION", "COORDINATOR", "ACK"], |n| 4 * n),
    ],
    properties: &[single_leader(Faults::CrashStop)],
    presets: PRESETS,
    build: run::build::<RingLiveSet>,
};

const PRESETS: &[Preset] = &[
    Preset {
        id: "ring-live-set-skip",
        title: k::RING_LIVE_SET_PRESET_RING_LIVE_SET_SKIP_TITLE,
        hint: k::RING_LIVE_SET_PRESET_RING_LIVE_SET_SKIP_HINT,
        json: r#"{"algorithm":"ring-live-set","nodes":[1,2,3,4,5,6],"seed":425,"initial_leader":6,
                  "schedule":[{"at":0,"crash":6},{"at":1,"start":3}]}"#,
        leaders: &[5],
        // Pins the live set growing round the ring and the skip past a crashed N6.
        golden: "930775ac59405970",
    },
    Preset {
        id: "ring-live-set-partition",
        title: k::RING_LIVE_SET_PRESET_RING_LIVE_SET_PARTITION_TITLE,
        hint: k::RING_LIVE_SET_PRESET_RING_LIVE_SET_PARTITION_HINT,
        json: r#"{"algorithm":"ring-live-set","nodes":[1,2,3,4,5,6],"seed":425,"initial_leader":6,
                  "heartbeats":{"interval":3,"timeout":12},
                  "schedule":[{"at":10,"partition":[[1,2,3],[4,5,6]]}],"stop":{"max_time":200}}"#,
        leaders: &[3, 6],
        // Pins a cut ring whose side skips unreachable nodes and elects within itself.
        golden: "49f85529fe8e2f86",
    },
];

// Narration: one sentence per rule, in both languages. `{0}` is the acting node.

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
        let ack_timeout = p.ticks("ack_timeout", 2 * lat_max + 1)?;
        let n = cfg.n() as Time;
        let retry = p.ticks("retry", 2 * n * (ack_timeout + lat_max) + cfg.heartbeats.map_or(0, |h| h.timeout))?;
        Ok(RingLiveSet { ack_timeout, retry })
    }
}

/// A message sent to the next node, waiting for its ACK.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Pending {
    pub seq: u64,
    pub to: NodeId,
    pub msg: Msg,
}

#[derive(Clone, Debug, PartialEq, Eq, Hash)]
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

#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum Msg {
    /// `live` lists the ids collected so far, in ring order from the initiator.
    Election {
        init: NodeId,
        round: u64,
        live: Vec<NodeId>,
        seq: u64,
    },
    /// The initiator's announcement, carried round the live set `live` (which starts with `init`).
    Coordinator {
        leader: NodeId,
        init: NodeId,
        round: u64,
        live: Vec<NodeId>,
        seq: u64,
    },
    /// "I have your message `seq`."
    Ack {
        seq: u64,
    },
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
    Msg::Election { .. } => Kind::new("ELECTION", "E", Visual::Request, k::RING_LIVE_SET_KIND_ELECTION),
    Msg::Coordinator { .. } => Kind::new("COORDINATOR", "C", Visual::Announcement, k::RING_LIVE_SET_KIND_COORDINATOR),
    Msg::Ack { .. } => Kind::new("ACK", "ack", Visual::Answer, k::RING_LIVE_SET_KIND_ACK),
    Msg::Heartbeat => Kind::new("HEARTBEAT", "hb", Visual::Heartbeat, k::COMMON_KIND_HEARTBEAT_2),
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

timers! {
    Timer {
        /// Waiting for the ACK of hop `seq`.
        Ack(u64) => "ACK_TIMEOUT",
        /// The failure detector: no heartbeat from the leader for `heartbeats.timeout`.
        LeaderTimeout => "LEADER_TIMEOUT",
        /// The leader's periodic HEARTBEAT broadcast.
        Heartbeat => "HEARTBEAT",
        /// The initiator's election has not finished in time.
        Retry => "RETRY",
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
            ctx.note(k::ring_live_set_note_alone(ctx.me));
            self.decide(s, vec![ctx.me], ctx);
            return;
        }
        ctx.note(k::ring_live_set_note_start(ctx.me, succ));
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
    const VIEW_FIELDS: &'static [&'static str] = &["leader"];

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
        if ctx.begin_heartbeats(Timer::Heartbeat, Timer::LeaderTimeout, s.leader) {
            self.begin(&mut s, ctx);
        }
        s
    }

    fn start(&self, s: &mut State, ctx: &mut C) {
        if s.waiting {
            ctx.note(k::ring_live_set_note_busy(ctx.me));
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
                        ctx.note(k::ring_live_set_note_decide(me, live.len() as u64, leader));
                        self.decide(s, live, ctx);
                    } else {
                        ctx.note(k::ring_live_set_note_stale(me, round));
                    }
                    return;
                }
                s.participant = true;
                live.push(me);
                let succ = ctx.cfg.successor(me);
                ctx.note(k::ring_live_set_note_forward(me, init, succ));
                let msg = Msg::Election { init, round, live, seq: 0 };
                self.hop(s, succ, &msg, ctx);
            }
            Msg::Coordinator { leader, init, round, live, seq } => {
                ctx.send(from, Msg::Ack { seq });
                if init == me {
                    if round == s.round {
                        ctx.note(k::ring_live_set_note_coord_home(me, leader));
                    } else {
                        ctx.note(k::ring_live_set_note_coord_stale(me, round));
                    }
                    return;
                }
                self.follow(s, leader, ctx);
                let Some(p) = live.iter().position(|&x| x == me) else {
                    ctx.note(k::ring_live_set_note_coord_lost(me, leader));
                    return;
                };
                let next = live[(p + 1) % live.len()];
                ctx.note(if leader == me {
                    k::ring_live_set_note_coord_me(me, next)
                } else {
                    k::ring_live_set_note_coord(me, leader, next)
                });
                let msg = Msg::Coordinator { leader, init, round, live: live.clone(), seq: 0 };
                s.members = live;
                self.hop(s, next, &msg, ctx);
            }
            Msg::Ack { seq } => {
                if let Some(k) = s.pending.iter().position(|p| p.seq == seq) {
                    s.pending.remove(k);
                    ctx.cancel_timer(Timer::Ack(seq));
                    ctx.note(k::ring_live_set_note_acked(me, from));
                } else {
                    ctx.note(k::ring_live_set_note_late_ack(me, from));
                }
            }
            Msg::Heartbeat => {
                ctx.leader_heartbeat(Timer::LeaderTimeout, s.leader, from);
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
                        ctx.note(k::ring_live_set_note_skip(me, skipped, next));
                        self.hop(s, next, &msg, ctx);
                    }
                    Next::BackHome => match msg {
                        Msg::Election { round, live, .. } if s.waiting && round == s.round => {
                            ctx.note(k::ring_live_set_note_alone(me));
                            self.decide(s, live, ctx);
                        }
                        Msg::Election { round, .. } => ctx.note(k::ring_live_set_note_stale(me, round)),
                        Msg::Coordinator { leader, .. } => ctx.note(k::ring_live_set_note_coord_home(me, leader)),
                        _ => {}
                    },
                    Next::InitiatorGone(init) => {
                        let text = if matches!(msg, Msg::Coordinator { .. }) {
                            k::ring_live_set_note_coord_end
                        } else {
                            k::ring_live_set_note_init_gone
                        };
                        ctx.note(text(me, init));
                    }
                }
            }
            Timer::LeaderTimeout => {
                if ctx.suspect(s.leader, k::common_note_suspect) {
                    self.begin(s, ctx);
                }
            }
            Timer::Heartbeat => {
                ctx.heartbeat_if_leader(s.leader, Timer::Heartbeat, k::common_note_beat, Msg::Heartbeat)
            }
            Timer::Retry => {
                if s.waiting || s.leader.is_none() {
                    ctx.note(k::ring_live_set_note_retry(me, self.retry));
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
        ctx.note(k::common_note_recover(ctx.me));
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

    fn inspect(&self, s: &State) -> Vec<Field> {
        let live_set = if s.members.is_empty() { V::None } else { V::text(format!("{{{}}}", fmt_ids(&s.members))) };
        let timeouts = format!("{} / {}", self.ack_timeout, self.retry);
        vec![
            Field::new("leader", k::UI_LEADER, V::node(s.leader)),
            Field::new("waiting", k::INSPECT_WAITING_FOR_OWN_ELECTION, V::Flag(s.waiting)),
            Field::new("participant", k::INSPECT_PARTICIPANT, V::Flag(s.participant)),
            Field::new("election_number", k::INSPECT_ELECTION_NUMBER, V::num(s.round)),
            Field::new(
                "waiting_for_ack",
                k::INSPECT_WAITING_FOR_ACK_FROM,
                V::nodes_or_none(s.pending.iter().map(|p| p.to).collect()),
            ),
            Field::new("last_live_set", k::INSPECT_LAST_LIVE_SET, live_set),
            Field::new("timeouts", k::INSPECT_ACK_TIMEOUT_RETRY, V::text(timeouts)),
        ]
    }
}

#[cfg(all(test, holds = "rings"))]
mod tests;
