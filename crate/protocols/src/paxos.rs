//! **Paxos-based leader election** (L. Lamport, "The Part-Time Parliament", ACM Transactions on
//! Computer Systems 16(2), 1998; "Paxos Made Simple", ACM SIGACT News 32(4), 2001).
//!
//! Every node is proposer, acceptor and learner. Leaders are the values of a sequence of
//! single-decree Paxos instances: instance 1 chooses the first leader, instance 2 the next one,
//! and so on; a node follows the value of the latest instance it knows. A ballot is a unique
//! proposal number `round·M + id`, with `M` the first power of ten above the largest id (ballot
//! 23 is round 2 of N3), so ballots of different proposers never collide and every proposer can
//! always pick a higher one.
//!
//! * **Phase 1**: a proposer sends PREPARE(i, b) to every other node (it is its own acceptor). An
//!   acceptor that has promised nothing higher promises `b` and answers PROMISE with the value it
//!   accepted last in instance `i`, if any; otherwise it answers NACK. As in Multi-Paxos, one
//!   promise covers every instance: an acceptor keeps a single promised ballot.
//! * **Phase 2**: with promises from a majority (⌊N/2⌋+1, itself included) the proposer sends
//!   ACCEPT(i, b, v), where `v` is the value of the highest ballot among the promises, or its own
//!   id when none was accepted. An acceptor accepts unless it has promised a higher ballot, or
//!   has already accepted a value in a later instance (then instance `i` is long decided); else
//!   it answers NACK. With ACCEPTED from a majority, `v` is chosen; the proposer (the
//!   distinguished learner of Paxos Made Simple) tells everyone with CHOSEN(i, v, b).
//! * **Ballots grow with instances**: by those two acceptor rules, every ballot that gathers a
//!   majority in instance i+1 is above every ballot that gathered one in instance i (the two
//!   majorities share an acceptor, which accepted the older first and promised it). A leader's
//!   ballot is therefore its term: a fencing token that only grows.
//! * **Leadership**: the node whose id is chosen in the latest instance leads and sends HEARTBEAT(i, b)
//!   every `heartbeats.interval`. A node that hears no heartbeat for `heartbeats.timeout`
//!   suspects the leader and starts a **new instance** (no lease: a failed leader is replaced,
//!   never renewed). A leader that sees a PREPARE for a later instance stops leading at once:
//!   someone is replacing it, and it must not lead beside the next leader. A leader cut off in a
//!   minority hears no such PREPARE and goes on believing it leads until the partition heals:
//!   single leadership is claimed for crash-stop runs only, and under partitions the older
//!   ballot is what tells the stale leader apart (a fenced store refuses its writes).
//! * **Duels and backoff**: two proposers can keep pre-empting each other's ballots. A proposer
//!   refused by a NACK, or without a majority after `patience` ticks, waits a random `backoff`
//!   (a timer with a tick range, drawn by the simulator) before trying a higher ballot; a node
//!   that suspects the leader also waits a random backoff first, and a waiting node that promises
//!   someone else's ballot restarts its wait.
//! * **Catching up**: an acceptor asked to prepare an instance it already knows to be decided
//!   answers CHOSEN with the latest decision instead; a node that hears a heartbeat of an older
//!   instance tells its sender the latest decision the same way.
//! * **Durable state**: promises, accepted values, known decisions and the highest round survive
//!   a crash (Paxos requires an acceptor never to forget a promise); who leads is volatile, so a
//!   recovered node waits for a heartbeat and a recovered old leader does not resume leading.
//! * `initial_leader`: instance 1 is decided with that value before the run starts.
//! * With `heartbeats: null` nothing is suspected: elections begin only by `start`, but a ballot
//!   that fails is still retried after a backoff.
//!
//! Every node learning a decision compares it with the one it already holds for that instance
//! and reports `chosen-once` if they differ: the property "a chosen value never changes".
//!
//! Drawn: the number under a node is its term, the ballot that chose it for a leader and the
//! highest ballot it has promised for the others; a proposer's tally counts promises, then
//! acceptances.
//!
//! Parameters (`params`): `backoff` `[lo, hi]` (default `[4·latency_max + 2, 12·latency_max + 2]`:
//! at least the two round trips a rival needs to finish its ballot, and wide enough that two
//! waits rarely end within one latency of each other), `patience` (default `2·latency_max + 1`,
//! one round trip and the handling step).

use crate::algorithm::Algorithm;
use crate::error::ScenarioError;
use crate::field::{Field, FieldValue as V};
use crate::meta::k;
use crate::meta::{
    single_leader, Faults, Formula, Kind, Look, Monitor, Preset, Property, Role, Text, Topology, Visual, FOLLOWER_ROLE,
    LEADER_ROLE,
};
use crate::protocol::{Config, Ctx, Message, ParamReader, Params, Protocol, View, FOLLOWER, LEADER};
use crate::run;
use crate::{NodeId, Time};
use std::collections::BTreeMap;

#[derive(Clone, Debug)]
pub struct Paxos {
    pub backoff: (Time, Time),
    pub patience: Time,
    /// Ballot `b` is round `b / scale` of node `b % scale`.
    pub scale: u64,
    pub quorum: u32,
    /// The test-only mutant whose acceptors accept below the ballot they promised
    /// ([`super::MUTANT`]).
    pub forget_promise: bool,
}

pub const CHOSEN_ONCE: Property = Property {
    id: "chosen-once",
    title: k::PAXOS_PROPERTY_CHOSEN_ONCE_TITLE,
    explain: k::PAXOS_EXPLAIN,
    holds: Faults::Any,
    monitor: Monitor::Reported,
};

pub const ALGORITHM: Algorithm = Algorithm {
    id: "paxos",
    title: k::PAXOS_PROPERTY_PAXOS_TITLE,
    citation: "L. Lamport, The Part-Time Parliament, ACM TOCS 16(2), 1998; L. Lamport, Paxos Made Simple, ACM SIGACT News 32(4), 2001",
    summary: k::PAXOS_SUMMARY,
    card: k::PAXOS_CARD,
    topology: Topology::Complete,
    kinds: KINDS,
    roles: &[
        LEADER_ROLE,
        FOLLOWER_ROLE,
        Role::new("preparing", Look::Candidate, k::PAXOS_ROLE_PREPARING),
        Role::new("accepting", Look::Candidate, k::PAXOS_ROLE_ACCEPTING),
        Role::new("backing-off", Look::Waiting, k::PAXOS_ROLE_BACKING_OFF),
    ],
    formulas: &[Formula::new("4(N−1)", k::PAXOS_FORMULA_1, &["PREPARE", "PROMISE", "ACCEPT", "ACCEPTED"], |n| {
        4 * n.saturating_sub(1)
    })],
    properties: &[CHOSEN_ONCE, single_leader(Faults::CrashStop)],
    presets: PRESETS,
    build: run::build::<Paxos>,
};

const PRESETS: &[Preset] = &[
    Preset {
        id: "paxos-cold",
        title: k::PAXOS_PRESET_PAXOS_COLD_TITLE,
        hint: k::PAXOS_PRESET_PAXOS_COLD_HINT,
        json: r#"{"algorithm":"paxos","nodes":[1,2,3,4,5],"seed":8,
                  "heartbeats":{"interval":3,"timeout":12},"stop":{"max_time":60}}"#,
        leaders: &[3],
        // Pins a cold start: the first backoff to end proposes and is chosen in 16 messages.
        golden: "e8e1006c625269c8",
    },
    Preset {
        id: "paxos-duel",
        title: k::PAXOS_PRESET_PAXOS_DUEL_TITLE,
        hint: k::PAXOS_PRESET_PAXOS_DUEL_HINT,
        json: r#"{"algorithm":"paxos","nodes":[1,2,3,4,5],"seed":20,"network":{"latency":[1,2]},
                  "params":{"backoff":[1,4]},"schedule":[{"at":0,"start":3},{"at":1,"start":4}]}"#,
        leaders: &[4],
        // Pins two proposers a tick apart: N4's ballot chosen while nobody knows it yet.
        golden: "a78a2826848df6d2",
    },
    Preset {
        id: "split-brain-paxos",
        title: k::PAXOS_PRESET_SPLIT_BRAIN_PAXOS_TITLE,
        hint: k::PAXOS_PRESET_SPLIT_BRAIN_PAXOS_HINT,
        json: r#"{"algorithm":"paxos","nodes":[1,2,3,4,5],"seed":425,"initial_leader":5,
                  "heartbeats":{"interval":2,"timeout":10},"stop":{"max_time":300}}"#,
        leaders: &[5],
        // Pins a minority that prepares again and again without 3 of 5 promises: one leader.
        golden: "18e20d4d1fe1803c",
    },
];

// Narration: one sentence per rule, in both languages. `{0}` is the acting node.

impl Paxos {
    fn from_params(cfg: &Config, params: &Params) -> Result<Self, ScenarioError> {
        let (params, forget_promise) = super::mutant(params, "forget-promise");
        let p = ParamReader::new(&params, &["backoff", "patience"])?;
        let lat = cfg.latency.1;
        let (lo, hi) = p.pair("backoff")?.map_or((4 * lat + 2, 12 * lat + 2), |[a, b]| (a, b));
        if lo == 0 || lo > hi {
            return Err(ScenarioError::new(
                "params.backoff",
                format!("expected [lo, hi] with 1 <= lo <= hi, found [{lo}, {hi}]"),
            ));
        }
        let patience = p.ticks("patience", 2 * lat + 1)?;
        let top = cfg.sorted.last().copied().unwrap_or(0) as u64;
        let mut scale = 10;
        while scale <= top {
            scale *= 10;
        }
        Ok(Paxos { backoff: (lo, hi), patience, scale, quorum: cfg.quorum(), forget_promise })
    }

    fn ballot(&self, round: u64, me: NodeId) -> u64 {
        round * self.scale + me as u64
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Phase {
    Prepare,
    Accept,
}

/// A proposer's ballot under way.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Proposal {
    pub inst: u64,
    pub ballot: u64,
    pub phase: Phase,
    /// The highest-ballot accepted value reported by the promises so far.
    pub carried: Option<(u64, NodeId)>,
    pub value: NodeId,
    /// Promises (phase 1) or acceptances (phase 2), itself included.
    pub yes: Vec<NodeId>,
}

#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct State {
    pub me: NodeId,
    // Durable.
    /// The highest ballot promised, for every instance.
    pub promised: u64,
    /// Per instance, the (ballot, value) accepted last.
    pub accepted: BTreeMap<u64, (u64, NodeId)>,
    /// Decisions known: instance → chosen leader.
    pub learned: BTreeMap<u64, NodeId>,
    /// The ballot that decided the latest known instance (0 for an `initial_leader`).
    pub decided_by: u64,
    /// The highest round seen or used.
    pub round: u64,
    // Volatile.
    pub leader: Option<NodeId>,
    pub proposal: Option<Proposal>,
    /// A random backoff is pending, after which this node proposes.
    pub waiting: bool,
}

impl State {
    /// The latest decided instance and its leader ((0, 0) when none is known).
    pub fn latest(&self) -> (u64, NodeId) {
        self.learned.last_key_value().map_or((0, 0), |(&i, &v)| (i, v))
    }
    fn leading(&self) -> bool {
        self.leader == Some(self.me)
    }
    /// Whether this acceptor must refuse ACCEPT(inst, ballot): a higher ballot promised, or a
    /// value accepted in a later instance.
    fn refuses(&self, inst: u64, ballot: u64) -> bool {
        ballot < self.promised || self.accepted.last_key_value().is_some_and(|(&i, _)| i > inst)
    }
}

#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum Msg {
    Prepare { inst: u64, ballot: u64 },
    Promise { inst: u64, ballot: u64, accepted: Option<(u64, NodeId)> },
    Accept { inst: u64, ballot: u64, value: NodeId },
    Accepted { inst: u64, ballot: u64 },
    Nack { inst: u64, ballot: u64, promised: u64 },
    Chosen { inst: u64, value: NodeId, ballot: u64 },
    Heartbeat { inst: u64, ballot: u64 },
}

kinds! {
    Msg;
    Msg::Prepare { .. } => Kind::new("PREPARE", "1a", Visual::Request, k::PAXOS_KIND_PREPARE),
    Msg::Promise { .. } => Kind::new("PROMISE", "1b", Visual::Answer, k::PAXOS_KIND_PROMISE),
    Msg::Accept { .. } => Kind::new("ACCEPT", "2a", Visual::Data, k::PAXOS_KIND_ACCEPT),
    Msg::Accepted { .. } => Kind::new("ACCEPTED", "2b", Visual::Answer, k::PAXOS_KIND_ACCEPTED),
    Msg::Nack { .. } => Kind::new("NACK", "✗", Visual::Refusal, k::PAXOS_KIND_NACK),
    Msg::Chosen { .. } => Kind::new("CHOSEN", "C", Visual::Announcement, k::PAXOS_KIND_CHOSEN),
    Msg::Heartbeat { .. } => Kind::new("HEARTBEAT", "hb", Visual::Heartbeat, k::COMMON_KIND_HEARTBEAT),
}

impl Message for Msg {
    fn label(&self) -> String {
        match *self {
            Msg::Prepare { inst, ballot } => format!("PREPARE(i{inst}, b{ballot})"),
            Msg::Promise { inst, ballot, accepted: None } => format!("PROMISE(i{inst}, b{ballot})"),
            Msg::Promise { inst, ballot, accepted: Some((b, v)) } => {
                format!("PROMISE(i{inst}, b{ballot}, had b{b}:N{v})")
            }
            Msg::Accept { inst, ballot, value } => format!("ACCEPT(i{inst}, b{ballot}, N{value})"),
            Msg::Accepted { inst, ballot } => format!("ACCEPTED(i{inst}, b{ballot})"),
            Msg::Nack { inst, ballot, promised } => format!("NACK(i{inst}, b{ballot}; b{promised})"),
            Msg::Chosen { inst, value, ballot } => format!("CHOSEN(i{inst}, N{value}, b{ballot})"),
            Msg::Heartbeat { inst, ballot } => format!("HEARTBEAT(i{inst}, b{ballot})"),
        }
    }
}

timers! {
    Timer {
        /// The failure detector: no heartbeat from the leader for `heartbeats.timeout`.
        LeaderTimeout => "LEADER_TIMEOUT",
        /// The random wait before proposing.
        Backoff => "BACKOFF",
        /// The current phase's deadline (`patience`).
        Deadline => "DEADLINE",
        /// The leader's periodic HEARTBEAT.
        Heartbeat => "HEARTBEAT",
    }
}

type C<'a> = Ctx<'a, Msg, Timer>;

mod handlers;

/// What a node's number counts, under it on the canvas.
static BALLOT: Text = k::PAXOS_BALLOT;
/// What a proposer's tally counts, in each phase.
static PROMISES: Text = k::PAXOS_PROMISES;
static ACCEPTANCES: Text = k::PAXOS_ACCEPTANCES;

impl Protocol for Paxos {
    type State = State;
    type Msg = Msg;
    type Timer = Timer;
    const VIEW_FIELDS: &'static [&'static str] = &["leader", "term", "votes"];

    fn new(cfg: &Config, params: &Params) -> Result<Self, ScenarioError> {
        Paxos::from_params(cfg, params)
    }

    fn init(&self, ctx: &mut C) -> State {
        let mut s = State {
            me: ctx.me,
            promised: 0,
            accepted: BTreeMap::new(),
            learned: BTreeMap::new(),
            decided_by: 0,
            round: 0,
            leader: None,
            proposal: None,
            waiting: false,
        };
        match ctx.cfg.initial_leader {
            Some(l) => {
                s.learned.insert(1, l);
                s.leader = Some(l);
                match ctx.cfg.heartbeats {
                    Some(hb) if l == ctx.me => ctx.set_timer_after(Timer::Heartbeat, hb.interval),
                    _ => ctx.watch_leader(Timer::LeaderTimeout, s.leader),
                }
            }
            None if ctx.cfg.heartbeats.is_some() => {
                ctx.note(k::paxos_note_cold(ctx.me));
                self.back_off(&mut s, ctx);
            }
            None => {}
        }
        s
    }

    fn start(&self, s: &mut State, ctx: &mut C) {
        if s.leading() {
            ctx.note(k::paxos_note_start_leader(ctx.me, s.latest().0));
        } else if let Some(p) = &s.proposal {
            ctx.note(k::paxos_note_start_busy(ctx.me, p.ballot));
        } else {
            ctx.note(k::paxos_note_start(ctx.me, s.latest().0 + 1));
            self.propose(s, ctx);
        }
    }

    fn on_message(&self, s: &mut State, from: NodeId, msg: Msg, ctx: &mut C) {
        let (me, peer) = (ctx.me, from);
        let mine = |s: &State, inst: u64, ballot: u64, phase: Phase| {
            s.proposal.as_ref().is_some_and(|p| p.inst == inst && p.ballot == ballot && p.phase == phase)
        };
        match msg {
            Msg::Prepare { inst, ballot } => {
                self.notice_ballot(s, ballot);
                let (latest, _) = s.latest();
                if inst <= latest {
                    return self.tell_latest(s, from, inst, ctx);
                }
                if ballot < s.promised {
                    let promised = s.promised;
                    ctx.note(k::paxos_note_refuse(me, ballot, promised));
                    return ctx.send(from, Msg::Nack { inst, ballot, promised });
                }
                s.promised = ballot;
                let accepted = s.accepted.get(&inst).copied();
                match accepted {
                    Some((_, v)) => ctx.note(k::paxos_note_promise_accepted(me, ballot, v)),
                    None => ctx.note(k::paxos_note_promise(me, ballot, peer)),
                }
                ctx.send(from, Msg::Promise { inst, ballot, accepted });
                if s.leading() {
                    ctx.note(k::paxos_note_step_down(me, latest, inst));
                    self.stop_leading(s, ctx);
                    s.leader = None;
                    self.arm_detector(ctx);
                } else if s.waiting {
                    ctx.note(k::paxos_note_defer(me));
                    self.back_off(s, ctx);
                }
            }
            Msg::Accept { inst, ballot, value } => {
                self.notice_ballot(s, ballot);
                let forgets = self.forget_promise && s.accepted.last_key_value().is_none_or(|(&i, _)| i <= inst);
                if s.refuses(inst, ballot) && !forgets {
                    let promised = s.promised;
                    match s.accepted.last_key_value() {
                        Some((&later, _)) if ballot >= promised => {
                            ctx.note(k::paxos_note_refuse_old(me, ballot, later))
                        }
                        _ => ctx.note(k::paxos_note_refuse(me, ballot, promised)),
                    }
                    return ctx.send(from, Msg::Nack { inst, ballot, promised });
                }
                s.promised = ballot;
                s.accepted.insert(inst, (ballot, value));
                ctx.note(k::paxos_note_accept(me, value, ballot));
                ctx.send(from, Msg::Accepted { inst, ballot });
            }
            Msg::Promise { inst, ballot, accepted } => {
                if !mine(s, inst, ballot, Phase::Prepare) {
                    return ctx.note(k::paxos_note_late(me, ballot));
                }
                let p = s.proposal.as_mut().expect("a proposal");
                if !p.yes.contains(&from) {
                    p.yes.push(from);
                    if accepted > p.carried {
                        p.carried = accepted;
                    }
                }
                let quorum = self.quorum as u64;
                ctx.note(k::paxos_note_count_promise(me, p.yes.len() as u64, quorum));
                self.progress(s, ctx);
            }
            Msg::Accepted { inst, ballot } => {
                if !mine(s, inst, ballot, Phase::Accept) {
                    return ctx.note(k::paxos_note_late(me, ballot));
                }
                let p = s.proposal.as_mut().expect("a proposal");
                if !p.yes.contains(&from) {
                    p.yes.push(from);
                }
                let quorum = self.quorum as u64;
                ctx.note(k::paxos_note_count_accept(me, p.yes.len() as u64, quorum));
                self.progress(s, ctx);
            }
            Msg::Nack { inst, ballot, promised } => {
                self.notice_ballot(s, promised);
                if !s.proposal.as_ref().is_some_and(|p| p.inst == inst && p.ballot == ballot) {
                    return ctx.note(k::paxos_note_late(me, ballot));
                }
                self.give_up(s, ballot, promised, ctx);
            }
            Msg::Chosen { inst, value, ballot } => self.learn(s, inst, value, ballot, ctx),
            Msg::Heartbeat { inst, ballot } => {
                let (latest, _) = s.latest();
                if inst < latest {
                    // The sender's decision is still checked against this node's record.
                    if !self.conflicts(s, inst, from, ctx) {
                        ctx.note(k::paxos_note_stale_leader(me, inst, peer));
                    }
                    let (latest, value) = s.latest();
                    return ctx.send(from, Msg::Chosen { inst: latest, value, ballot: s.decided_by });
                }
                if inst > latest || s.learned.get(&inst) != Some(&from) {
                    return self.learn(s, inst, from, ballot, ctx);
                }
                ctx.note(k::paxos_note_alive(me, peer, inst));
                s.leader = Some(from);
                if s.waiting {
                    s.waiting = false;
                    ctx.cancel_timer(Timer::Backoff);
                }
                ctx.watch_leader(Timer::LeaderTimeout, s.leader);
            }
        }
    }

    fn on_timer(&self, s: &mut State, timer: Timer, ctx: &mut C) {
        let me = ctx.me;
        match timer {
            Timer::LeaderTimeout => {
                let timeout = ctx.cfg.heartbeats.map_or(0, |h| h.timeout);
                match s.leader.filter(|&l| l != ctx.me) {
                    Some(l) => ctx.note(k::paxos_note_suspect(me, l, timeout)),
                    None => ctx.note(k::paxos_note_nobody(me, timeout)),
                }
                s.leader = None;
                if s.proposal.is_none() {
                    self.back_off(s, ctx);
                }
            }
            Timer::Backoff => {
                ctx.note(k::paxos_note_retry(me));
                self.propose(s, ctx);
            }
            Timer::Deadline => {
                if let Some(p) = s.proposal.take() {
                    ctx.note(k::paxos_note_patience(me, self.patience, p.ballot));
                    self.back_off(s, ctx);
                }
            }
            Timer::Heartbeat => {
                if s.leading() {
                    let inst = s.latest().0;
                    ctx.heartbeat(
                        Timer::Heartbeat,
                        k::paxos_note_beat(me, inst),
                        Msg::Heartbeat { inst, ballot: s.decided_by },
                    );
                }
            }
        }
    }

    fn recover(&self, crashed: &State, ctx: &mut C) -> State {
        let s = State { leader: None, proposal: None, waiting: false, ..crashed.clone() };
        ctx.note(k::paxos_note_recover(ctx.me, s.learned.len() as u64));
        self.arm_detector(ctx);
        s
    }

    fn view(&self, s: &State) -> View {
        let role = match (&s.proposal, s.waiting) {
            _ if s.leading() => LEADER,
            (Some(p), _) if p.phase == Phase::Prepare => "preparing",
            (Some(_), _) => "accepting",
            (None, true) => "backing-off",
            (None, false) => FOLLOWER,
        };
        // A leader's term is the ballot that chose it (its fencing token); a follower shows the
        // highest ballot it has promised, if any.
        let term = if s.leading() { Some(s.decided_by) } else { Some(s.promised).filter(|&b| b > 0) };
        let tally = s.proposal.as_ref().map(|p| (p.yes.len() as u32, self.quorum));
        let tally_word = s.proposal.as_ref().map(|p| if p.phase == Phase::Prepare { &PROMISES } else { &ACCEPTANCES });
        View { role, leader: s.leader, term, term_word: Some(&BALLOT), tally, tally_word, ..View::default() }
    }

    fn inspect(&self, s: &State) -> Vec<Field> {
        let next = s.latest().0 + 1;
        let chosen = s.learned.iter().map(|(i, v)| format!("i{i}→N{v}")).collect::<Vec<_>>().join(", ");
        let proposal = s.proposal.as_ref().map_or(V::None, |p| {
            let phase = if p.phase == Phase::Prepare { "1 (promises)" } else { "2 (acceptances)" };
            let yes = V::Nodes(p.yes.to_vec()).show();
            V::worded(p.ballot, format!("b{} for N{}, phase {phase}: {yes}", p.ballot, p.value))
        });
        let ballot = |b| V::worded(b, format!("b{b}"));
        let accepted = s.accepted.get(&next).map_or(V::None, |(b, v)| V::worded(*b, format!("b{b}: N{v}")));
        let settings = format!("{}–{} / {}", self.backoff.0, self.backoff.1, self.patience);
        vec![
            Field::new("leader", k::UI_LEADER, V::node(s.leader)),
            Field::new("chosen", k::INSPECT_CHOSEN, if chosen.is_empty() { V::None } else { V::Text(chosen) }),
            Field::new("next_instance", k::INSPECT_NEXT_INSTANCE, V::num(next)),
            Field::new("decided_by_ballot", k::INSPECT_DECIDED_BY_BALLOT, ballot(s.decided_by)),
            Field::new("promised", k::INSPECT_PROMISED, ballot(s.promised)),
            Field::new("accepted_next", k::INSPECT_ACCEPTED_NEXT_INSTANCE, accepted),
            Field::new("proposal", k::INSPECT_PROPOSAL, proposal),
            Field::new("settings", k::INSPECT_BACKOFF_PATIENCE, V::text(settings)),
        ]
    }
}

#[cfg(all(test, holds = "consensus"))]
mod tests;
