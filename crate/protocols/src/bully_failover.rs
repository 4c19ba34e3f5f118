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
use crate::field::{Field, FieldValue as V};
use crate::meta::k;
use crate::meta::{
    single_leader, Faults, Formula, Kind, Look, Note, Preset, Role, Topology, Visual, CANDIDATE_ROLE, FOLLOWER_ROLE,
    LEADER_ROLE,
};
use crate::protocol::{Config, Ctx, Message, ParamReader, Params, Protocol, View, CANDIDATE, FOLLOWER, LEADER};
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
    title: k::BULLY_FAILOVER_TITLE,
    citation: "M. Gholipour, M. S. Kordafshari, M. Jahanshahi, A. M. Rahmani, A New Approach for Election Algorithm in Distributed Systems, CTRQ 2009 (IEEE), pp. 70–74; on H. Garcia-Molina, Elections in a Distributed Computing System, IEEE Transactions on Computers C-31(1), 1982",
    summary: k::BULLY_FAILOVER_SUMMARY,
    card: k::BULLY_FAILOVER_CARD,
    topology: Topology::Complete,
    kinds: KINDS,
    roles: &[
        LEADER_ROLE,
        FOLLOWER_ROLE,
        CANDIDATE_ROLE,
        Role::new("asking-next", Look::Participant, k::BULLY_FAILOVER_ROLE_ASKING_NEXT),
        Role::new("waiting-coord", Look::Waiting, k::BULLY_FAILOVER_ROLE_WAITING_COORD),
    ],
    formulas: &[Formula::new(
        "N+1",
        k::BULLY_FAILOVER_FORMULA_1,
        &["FAILOVER", "ALIVE", "ELECTION", "OK", "COORDINATOR"],
        |n| n + 1,
    )],
    properties: &[single_leader(Faults::CrashStop)],
    presets: PRESETS,
    build: run::build::<BullyFailover>,
};

const PRESETS: &[Preset] = &[
    Preset {
        id: "failover-figure",
        title: k::BULLY_FAILOVER_PRESET_FAILOVER_FIGURE_TITLE,
        hint: k::BULLY_FAILOVER_PRESET_FAILOVER_FIGURE_HINT,
        json: r#"{"algorithm":"bully-failover","nodes":[1,2,3,4,5,6],"seed":425,"initial_leader":6,
                  "schedule":[{"at":0,"crash":6},{"at":1,"start":3}]}"#,
        leaders: &[5],
        // Pins the failover list: N3 asks N5, which takes over in N+1 = 7 messages.
        golden: "aed1da6b931736ed",
    },
    Preset {
        id: "failover-next-down",
        title: k::BULLY_FAILOVER_PRESET_FAILOVER_NEXT_DOWN_TITLE,
        hint: k::BULLY_FAILOVER_PRESET_FAILOVER_NEXT_DOWN_HINT,
        json: r#"{"algorithm":"bully-failover","nodes":[1,2,3,4,5,6],"seed":425,"initial_leader":6,
                  "schedule":[{"at":0,"crash":6},{"at":0,"crash":5},{"at":1,"start":3}]}"#,
        leaders: &[4],
        // Pins the next one down the failover list takes over when the first is silent (N4).
        golden: "351915dfdb833cae",
    },
    Preset {
        id: "failover-heartbeats",
        title: k::BULLY_FAILOVER_PRESET_FAILOVER_HEARTBEATS_TITLE,
        hint: k::BULLY_FAILOVER_PRESET_FAILOVER_HEARTBEATS_HINT,
        json: r#"{"algorithm":"bully-failover","nodes":[1,2,3,4,5,6],"seed":425,"initial_leader":6,
                  "heartbeats":{"interval":3,"timeout":12},"schedule":[{"at":20,"crash":6}],"stop":{"max_time":200}}"#,
        leaders: &[5],
        // Pins heartbeat detection feeding the failover list: N5 takes over, the others only ask.
        golden: "3fcf264b4f763223",
    },
];

// Narration: one sentence per rule, in both languages. `{0}` is the acting node.

impl BullyFailover {
    fn from_params(cfg: &Config, params: &Params) -> Result<Self, ScenarioError> {
        let p = ParamReader::new(params, &["t_out", "t_coord", "failover"])?;
        let t_out = p.ticks("t_out", 2 * cfg.latency.1 + 1)?;
        let t_coord = p.ticks("t_coord", 3 * t_out)?;
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

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Stage {
    Idle,
    /// Sent FAILOVER to the `i`-th listed node above this one; waiting for ALIVE.
    Asking(usize),
    /// Sent ELECTION to the higher ids; waiting for OK (Bully's WAIT_OK).
    WaitOk,
    /// Waiting for COORDINATOR (Bully's WAIT_COORD, or after ALIVE).
    WaitCoord,
}

#[derive(Clone, Debug, PartialEq, Eq, Hash)]
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

#[derive(Clone, Debug, PartialEq, Eq, Hash)]
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
    Msg::Failover(_) => Kind::new("FAILOVER", "FO", Visual::Request, k::BULLY_FAILOVER_KIND_FAILOVER),
    Msg::Alive => Kind::new("ALIVE", "AL", Visual::Answer, k::BULLY_FAILOVER_KIND_ALIVE),
    Msg::Election => Kind::new("ELECTION", "E", Visual::Request, k::COMMON_KIND_ELECTION),
    Msg::Ok => Kind::new("OK", "OK", Visual::Answer, k::COMMON_KIND_OK),
    Msg::Coordinator(..) => Kind::new(
            "COORDINATOR",
            "C",
            Visual::Announcement,
            k::BULLY_FAILOVER_KIND_COORDINATOR,
        ),
    Msg::Heartbeat => Kind::new("HEARTBEAT", "hb", Visual::Heartbeat, k::COMMON_KIND_HEARTBEAT),
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

pub use crate::timers::StageTimer as Timer;

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
        let me = ctx.me;
        // The list is the failed leader's: without a leader known to have failed, it means nothing.
        let target = s.above().nth(i);
        if let (Some(failed), Some(target)) = (s.suspected, target) {
            match i {
                0 => ctx.note(k::bully_failover_note_ask_first(me, failed, target)),
                _ => ctx.note(k::bully_failover_note_ask_next(me, s.above().nth(i - 1).unwrap_or(0), target)),
            }
            s.stage = Stage::Asking(i);
            ctx.send(target, Msg::Failover(failed));
            ctx.set_timer_after(Timer::Deadline, self.t_out);
            return;
        }
        let why = if s.list.is_empty() || s.suspected.is_none() {
            k::bully_failover_note_no_list
        } else if i == 0 || s.list.contains(&ctx.me) {
            k::bully_failover_note_first
        } else {
            k::bully_failover_note_list_silent
        };
        self.elect(s, ctx, Some(why));
    }

    /// A Bully election from this node: ELECTION to every higher id (or leadership at once if
    /// there is none). `why` narrates it (args: me, number of higher ids, t_out).
    fn elect(&self, s: &mut State, ctx: &mut C, why: Option<fn(NodeId, u64, u64) -> Note>) {
        if s.elected == Some(ctx.me) {
            return;
        }
        forget_leader(s);
        s.bullied_by = None;
        ctx.cancel_timer(Timer::LeaderTimeout);
        let higher = ctx.cfg.higher(ctx.me).len();
        if higher == 0 {
            ctx.note(k::bully_failover_note_top(ctx.me));
            self.become_leader(s, ctx);
            return;
        }
        if let Some(t) = why {
            ctx.note(t(ctx.me, higher as u64, self.t_out));
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

    fn fresh(&self, ctx: &C, elected: Option<NodeId>) -> State {
        let list = elected.map_or(Vec::new(), |l| self.list_of(ctx.cfg, l));
        State { me: ctx.me, elected, list, stage: Stage::Idle, suspected: None, bullied_by: None }
    }
}

impl Protocol for BullyFailover {
    type State = State;
    type Msg = Msg;
    type Timer = Timer;
    const VIEW_FIELDS: &'static [&'static str] = &["leader"];

    fn new(cfg: &Config, params: &Params) -> Result<Self, ScenarioError> {
        BullyFailover::from_params(cfg, params)
    }

    fn init(&self, ctx: &mut C) -> State {
        let mut s = self.fresh(ctx, ctx.cfg.initial_leader);
        if ctx.begin_heartbeats(Timer::Heartbeat, Timer::LeaderTimeout, s.elected) {
            self.elect(&mut s, ctx, Some(k::bully_failover_note_no_list));
        }
        s
    }

    fn start(&self, s: &mut State, ctx: &mut C) {
        if s.elected == Some(ctx.me) {
            ctx.note(k::common_note_start_leader(ctx.me));
            return;
        }
        self.detect(s, ctx);
    }

    fn on_message(&self, s: &mut State, from: NodeId, msg: Msg, ctx: &mut C) {
        match msg {
            Msg::Failover(failed) => {
                ctx.send(from, Msg::Alive);
                if s.elected == Some(ctx.me) {
                    ctx.note(k::bully_failover_note_fo_leader(ctx.me, from));
                    ctx.send(from, Msg::Coordinator(ctx.me, s.list.clone()));
                } else if s.stage != Stage::Idle {
                    ctx.note(k::bully_failover_note_fo_busy(ctx.me, from));
                } else {
                    let higher = ctx.cfg.higher(ctx.me).len() as u64;
                    ctx.note(k::bully_failover_note_take_over(ctx.me, from, higher));
                    s.suspected = Some(failed);
                    self.elect(s, ctx, None);
                }
            }
            Msg::Alive => {
                if let Stage::Asking(i) = s.stage {
                    if s.above().nth(i) == Some(from) {
                        ctx.note(k::bully_failover_note_alive(ctx.me, from, self.t_coord));
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
                        ctx.note(k::common_note_bully_leader(ctx.me, from));
                        ctx.send(from, Msg::Coordinator(ctx.me, s.list.clone()));
                    } else if s.stage == Stage::Idle {
                        ctx.note(k::common_note_bully(ctx.me, from));
                        self.elect(s, ctx, None);
                    } else {
                        ctx.note(k::bully_failover_note_bully_busy(ctx.me, from));
                    }
                }
            }
            Msg::Ok => {
                if s.stage == Stage::WaitOk {
                    ctx.note(k::common_note_ok(ctx.me, from));
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
                        Some(&first) => ctx.note(k::bully_failover_note_accept(ctx.me, k, first)),
                        None => ctx.note(k::bully_failover_note_accept_no_list(ctx.me, k)),
                    }
                    s.elected = Some(k);
                    s.list = list;
                } else {
                    ctx.note(k::common_note_ignore(ctx.me, k));
                }
                s.stage = Stage::Idle;
                s.suspected = None;
                Timer::settle(ctx, was_leader, s.elected);
            }
            Msg::Heartbeat => {
                ctx.leader_heartbeat(Timer::LeaderTimeout, s.elected, from);
            }
        }
    }

    fn on_timer(&self, s: &mut State, timer: Timer, ctx: &mut C) {
        match timer {
            Timer::Deadline => match s.stage {
                Stage::Asking(i) => self.ask(s, ctx, i + 1),
                Stage::WaitOk => {
                    ctx.note(k::bully_failover_note_no_ok(ctx.me, self.t_out));
                    self.become_leader(s, ctx);
                }
                Stage::WaitCoord => {
                    ctx.note(k::bully_failover_note_no_coord(ctx.me, self.t_coord));
                    s.stage = Stage::Idle;
                    self.elect(s, ctx, None);
                }
                Stage::Idle => {}
            },
            Timer::LeaderTimeout => {
                if ctx.suspect(s.elected, k::common_note_suspect_2) {
                    self.detect(s, ctx);
                }
            }
            Timer::Heartbeat => {
                ctx.heartbeat_if_leader(s.elected, Timer::Heartbeat, k::common_note_beat, Msg::Heartbeat)
            }
        }
    }

    fn recover(&self, _crashed: &State, ctx: &mut C) -> State {
        let mut s = self.fresh(ctx, None);
        ctx.note(k::bully_failover_note_recover(ctx.me));
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

    fn inspect(&self, s: &State) -> Vec<Field> {
        let stage = match s.stage {
            Stage::Idle => V::None,
            Stage::Asking(i) => V::text(format!("asking {} for ALIVE", V::node(s.above().nth(i)).show())),
            Stage::WaitOk => V::text("WAIT_OK"),
            Stage::WaitCoord => V::text("WAIT_COORD"),
        };
        vec![
            Field::new("elected", k::INSPECT_ELECTED, V::node(s.elected)),
            Field::new("failover_list", k::INSPECT_FAILOVER_LIST, V::nodes_or_none(s.list.to_vec())),
            Field::new("stage", k::INSPECT_STAGE, stage),
            Field::new("suspected_leader", k::INSPECT_SUSPECTED_LEADER, V::node(s.suspected)),
            Field::new("answered_by", k::INSPECT_ANSWERED_BY, V::node(s.bullied_by)),
            Field::new("timeouts", k::INSPECT_T_OUT_T_COORD, V::text(format!("{} / {}", self.t_out, self.t_coord))),
        ]
    }
}

#[cfg(all(test, holds = "bully"))]
mod tests;
