//! **Bully** (Garcia-Molina 1982), as in seed 003 §16.3.1 and §16.2.4.
//!
//! The live process with the highest id wins. A process that starts an election sends ELECTION
//! only to higher ids and waits `t_out` ticks (stage WAIT_OK). Every higher process that receives
//! it answers OK (suppressing the sender) and, unless it is already electing, starts its own
//! election: this cascade is what makes the worst case O(N²). A process that hears no OK before
//! its deadline declares itself leader and sends COORDINATOR to every lower id; one that heard
//! an OK waits `t_coord` more ticks (stage WAIT_COORD) for the announcement and starts over if
//! none comes. A leader broadcasts HEARTBEAT every `heartbeats.interval`; a process that hears no
//! heartbeat from its leader for `heartbeats.timeout` starts an election (the failure detector).
//!
//! * **COORDINATOR acceptance** (§16.7 pitfall 4): the announcement is taken when the announcer's
//!   id is not below the receiver's own id, or the receiver knows no leader — the seed's
//!   pseudocode reads `id_k >= id_i or elected == Null` with `id_i` the receiver, and that is
//!   the reading implemented here. Either way the receiver leaves its election.
//! * **Crash-recovery**: all state is volatile; a recovered process knows no leader and starts
//!   an election (§16.2.4). A recovering process above the current leader therefore takes over,
//!   with the short two-leader window the seed's corollary to Theorem 1 describes.
//! * With `heartbeats: null` nothing runs by itself: elections begin only by `start`.
//!
//! Parameters (`params`): `t_out` (WAIT_OK timeout, default `2·latency_max + 1`, the smallest
//! value satisfying the seed's `T_out > 2·d_max + t_max`), `t_coord` (WAIT_COORD timeout, default
//! `3·t_out`).

use super::read_params;
use crate::protocol::{fmt_node, Config, Ctx, Message, Protocol, TimerKey, View, CANDIDATE, FOLLOWER, LEADER};
use crate::scenario::{Scenario, ScenarioError};
use crate::{NodeId, Time};
use serde::Deserialize;

#[derive(Deserialize, Default)]
#[serde(deny_unknown_fields)]
struct Params {
    t_out: Option<Time>,
    t_coord: Option<Time>,
}

#[derive(Clone, Debug)]
pub struct Bully {
    pub t_out: Time,
    pub t_coord: Time,
}

impl Bully {
    pub fn from_scenario(s: &Scenario) -> Result<Self, ScenarioError> {
        let p: Params = read_params(s)?;
        let lat_max = s.network.latency.1;
        let t_out = p.t_out.unwrap_or(2 * lat_max + 1);
        if t_out == 0 {
            return Err(ScenarioError::new("params.t_out", "must be at least 1 tick"));
        }
        let t_coord = p.t_coord.unwrap_or(3 * t_out);
        if t_coord == 0 {
            return Err(ScenarioError::new("params.t_coord", "must be at least 1 tick"));
        }
        Ok(Bully { t_out, t_coord })
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Stage {
    Idle,
    WaitOk,
    WaitCoord,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct State {
    pub me: NodeId,
    pub elected: Option<NodeId>,
    pub in_elect: bool,
    pub stage: Stage,
    /// Who last answered this node's ELECTION with OK (for the drawing: "bullied by").
    pub bullied_by: Option<NodeId>,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Msg {
    Election,
    Ok,
    Coordinator(NodeId),
    Heartbeat,
}

pub const KINDS: &[&str] = &["ELECTION", "OK", "COORDINATOR", "HEARTBEAT"];

impl Message for Msg {
    fn kind(&self) -> usize {
        match self {
            Msg::Election => 0,
            Msg::Ok => 1,
            Msg::Coordinator(_) => 2,
            Msg::Heartbeat => 3,
        }
    }
    fn label(&self) -> String {
        match self {
            Msg::Coordinator(k) => format!("COORDINATOR(N{k})"),
            m => KINDS[m.kind()].to_string(),
        }
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Timer {
    /// The current stage's deadline (WAIT_OK or WAIT_COORD).
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

impl Bully {
    fn start_election(&self, s: &mut State, ctx: &mut C) {
        if s.elected == Some(ctx.me) {
            return;
        }
        s.in_elect = true;
        s.stage = Stage::WaitOk;
        s.elected = None;
        s.bullied_by = None;
        ctx.cancel_timer(Timer::LeaderTimeout);
        ctx.set_timer_after(Timer::Deadline, self.t_out);
        let higher = ctx.cfg.higher(ctx.me);
        if higher.is_empty() {
            self.become_leader(s, ctx);
            return;
        }
        let cfg: &Config = ctx.cfg;
        for &j in cfg.higher(ctx.me) {
            ctx.send(j, Msg::Election);
        }
    }

    fn become_leader(&self, s: &mut State, ctx: &mut C) {
        s.in_elect = false;
        s.stage = Stage::Idle;
        s.elected = Some(ctx.me);
        s.bullied_by = None;
        ctx.cancel_timer(Timer::Deadline);
        ctx.cancel_timer(Timer::LeaderTimeout);
        let cfg: &Config = ctx.cfg;
        for &j in cfg.lower(ctx.me) {
            ctx.send(j, Msg::Coordinator(ctx.me));
        }
        if let Some(hb) = cfg.heartbeats {
            ctx.set_timer_after(Timer::Heartbeat, hb.interval);
        }
    }

    /// Heard from (or about) the leader: re-arm the failure detector.
    fn leader_alive(&self, s: &State, ctx: &mut C) {
        ctx.watch_leader(Timer::LeaderTimeout, s.elected);
    }
}

impl Protocol for Bully {
    type State = State;
    type Msg = Msg;
    type Timer = Timer;
    const NAME: &'static str = "bully";
    const KINDS: &'static [&'static str] = KINDS;

    fn init(&self, ctx: &mut C) -> State {
        let mut s = State { me: ctx.me, elected: ctx.cfg.initial_leader, in_elect: false, stage: Stage::Idle, bullied_by: None };
        if let Some(hb) = ctx.cfg.heartbeats {
            match s.elected {
                Some(l) if l == ctx.me => ctx.set_timer_after(Timer::Heartbeat, hb.interval),
                Some(_) => self.leader_alive(&s, ctx),
                // Event 2: no known leader and not electing => start an election.
                None => self.start_election(&mut s, ctx),
            }
        }
        s
    }

    fn start(&self, s: &mut State, ctx: &mut C) {
        self.start_election(s, ctx);
    }

    fn on_message(&self, s: &mut State, from: NodeId, msg: Msg, ctx: &mut C) {
        match msg {
            Msg::Election => {
                if ctx.me > from {
                    ctx.send(from, Msg::Ok);
                    if s.elected == Some(ctx.me) {
                        ctx.send(from, Msg::Coordinator(ctx.me));
                    } else if !s.in_elect {
                        self.start_election(s, ctx);
                    }
                }
            }
            Msg::Ok => {
                if s.in_elect && s.stage == Stage::WaitOk {
                    s.stage = Stage::WaitCoord;
                    s.bullied_by = Some(from);
                    ctx.set_timer_after(Timer::Deadline, self.t_coord);
                } else if s.in_elect && s.bullied_by.is_none() {
                    s.bullied_by = Some(from);
                }
            }
            Msg::Coordinator(k) => {
                let was_leader = s.elected == Some(ctx.me);
                if k >= ctx.me || s.elected.is_none() {
                    s.elected = Some(k);
                }
                s.in_elect = false;
                s.stage = Stage::Idle;
                ctx.cancel_timer(Timer::Deadline);
                if was_leader && s.elected != Some(ctx.me) {
                    ctx.cancel_timer(Timer::Heartbeat);
                }
                self.leader_alive(s, ctx);
            }
            Msg::Heartbeat => {
                if s.elected == Some(from) {
                    self.leader_alive(s, ctx);
                }
            }
        }
    }

    fn on_timer(&self, s: &mut State, timer: Timer, ctx: &mut C) {
        match timer {
            Timer::Deadline => {
                if s.in_elect {
                    if s.stage == Stage::WaitOk {
                        self.become_leader(s, ctx);
                    } else {
                        self.start_election(s, ctx);
                    }
                }
            }
            Timer::LeaderTimeout => {
                if matches!(s.elected, Some(l) if l != ctx.me) {
                    s.elected = None;
                    self.start_election(s, ctx);
                }
            }
            Timer::Heartbeat => {
                if s.elected == Some(ctx.me) {
                    ctx.broadcast(Msg::Heartbeat);
                    if let Some(hb) = ctx.cfg.heartbeats {
                        ctx.set_timer_after(Timer::Heartbeat, hb.interval);
                    }
                }
            }
        }
    }

    fn recover(&self, _crashed: &State, ctx: &mut C) -> State {
        let mut s = State { me: ctx.me, elected: None, in_elect: false, stage: Stage::Idle, bullied_by: None };
        self.start_election(&mut s, ctx);
        s
    }

    fn view(&self, s: &State) -> View {
        let role = match s.stage {
            _ if s.elected == Some(s.me) => LEADER,
            Stage::WaitOk => CANDIDATE,
            Stage::WaitCoord => "waiting-coord",
            Stage::Idle => FOLLOWER,
        };
        View { role, leader: s.elected, term: None, vote: None, tally: None }
    }

    fn inspect(&self, s: &State) -> Vec<(&'static str, String)> {
        vec![
            ("elected", fmt_node(s.elected)),
            ("in election", s.in_elect.to_string()),
            (
                "stage",
                match s.stage {
                    Stage::Idle => "-",
                    Stage::WaitOk => "WAIT_OK",
                    Stage::WaitCoord => "WAIT_COORD",
                }
                .to_string(),
            ),
            ("bullied by", fmt_node(s.bullied_by)),
            ("T_out / T_coord", format!("{} / {}", self.t_out, self.t_coord)),
        ]
    }
}
