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
use crate::field::{Field, FieldValue as V};
use crate::meta::k;
use crate::meta::{
    single_leader, Faults, Formula, Kind, Look, Preset, Role, Topology, Visual, FOLLOWER_ROLE, LEADER_ROLE,
};
use crate::protocol::{Config, Ctx, Decoration, Message, ParamReader, Params, Protocol, View, FOLLOWER, LEADER};
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
    title: k::BULLY_CANDIDATES_TITLE,
    citation: "M. G. Murshed, A. R. Allen, Enhanced Bully Algorithm for Leader Node Election in Synchronous Distributed Systems, Computers 1(1), 2012, pp. 3–23; on H. Garcia-Molina, Elections in a Distributed Computing System, IEEE Transactions on Computers C-31(1), 1982",
    summary: k::BULLY_CANDIDATES_SUMMARY,
    card: k::BULLY_CANDIDATES_CARD,
    topology: Topology::Complete,
    kinds: KINDS,
    roles: &[
        LEADER_ROLE,
        FOLLOWER_ROLE,
        Role::new("ordinary", Look::Follower, k::BULLY_CANDIDATES_ROLE_ORDINARY),
        Role::new("waiting-delta", Look::Waiting, k::BULLY_CANDIDATES_ROLE_WAITING_DELTA),
        Role::new("asking", Look::Participant, k::BULLY_CANDIDATES_ROLE_ASKING),
        Role::new("waiting-coord", Look::Waiting, k::BULLY_CANDIDATES_ROLE_WAITING_COORD),
    ],
    formulas: &[Formula::new("2⌈N/2⌉+N−2", k::BULLY_CANDIDATES_FORMULA_1, &["ELECTION", "ALIVE", "COORDINATOR"], |n| {
        (2 * n.div_ceil(2) + n).saturating_sub(2)
    })],
    properties: &[single_leader(Faults::CrashStop)],
    presets: PRESETS,
    build: run::build::<BullyCandidates>,
};

const PRESETS: &[Preset] = &[
    Preset {
        id: "candidates-figure",
        title: k::BULLY_CANDIDATES_PRESET_CANDIDATES_FIGURE_TITLE,
        hint: k::BULLY_CANDIDATES_PRESET_CANDIDATES_FIGURE_HINT,
        json: r#"{"algorithm":"bully-candidates","nodes":[1,2,3,4,5,6],"seed":425,"initial_leader":6,
                  "params":{"candidates":[1,2,6]},
                  "schedule":[{"at":0,"crash":6},{"at":1,"start":4}]}"#,
        leaders: &[2],
        // Pins the δ rule with three candidates: N4 asks them and announces N2 in 10 messages.
        golden: "bb3ecb1e2c1b6efc",
    },
    Preset {
        id: "candidates-heartbeats",
        title: k::BULLY_CANDIDATES_PRESET_CANDIDATES_HEARTBEATS_TITLE,
        hint: k::BULLY_CANDIDATES_PRESET_CANDIDATES_HEARTBEATS_HINT,
        json: r#"{"algorithm":"bully-candidates","nodes":[1,2,3,4,5,6],"seed":425,"initial_leader":6,
                  "params":{"candidates":[1,2,6]},
                  "heartbeats":{"interval":3,"timeout":12},"schedule":[{"at":20,"crash":6}],"stop":{"max_time":200}}"#,
        leaders: &[2],
        // Pins simultaneous detection and staggered δ waits: one announcement, N2.
        golden: "cbf58e58e204efb3",
    },
];

// Narration: one sentence per rule, in both languages. `{0}` is the acting node.

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
                        return Err(ScenarioError::new(
                            format!("params.candidates[{i}]"),
                            format!("unknown node {id}"),
                        ));
                    }
                    if c[..i].contains(id) {
                        return Err(ScenarioError::new(
                            format!("params.candidates[{i}]"),
                            format!("duplicate id {id}"),
                        ));
                    }
                }
                c.sort_unstable();
                c
            }
            None => default_candidates(cfg),
        };
        let lat_max = cfg.latency.1;
        let t_out = p.ticks("t_out", 2 * lat_max + 1)?;
        let t_coord = p.ticks("t_coord", 3 * t_out)?;
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

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Stage {
    Idle,
    /// Waiting its tiebreaker δ before acting.
    Delay,
    /// Sent ELECTION to the candidates; collecting ALIVE.
    Asking,
    /// Someone else is electing: waiting for COORDINATOR.
    WaitCoord,
}

#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct State {
    pub me: NodeId,
    pub elected: Option<NodeId>,
    pub stage: Stage,
    /// While asking: the highest candidate that answered ALIVE.
    pub best: Option<NodeId>,
}

#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum Msg {
    Election,
    Alive,
    /// Names the new leader (sent by whoever ran the election).
    Coordinator(NodeId),
    Heartbeat,
}

kinds! {
    Msg;
    Msg::Election => Kind::new("ELECTION", "E", Visual::Request, k::BULLY_CANDIDATES_KIND_ELECTION),
    Msg::Alive => Kind::new("ALIVE", "AL", Visual::Answer, k::BULLY_CANDIDATES_KIND_ALIVE),
    Msg::Coordinator(_) => Kind::new("COORDINATOR", "C", Visual::Announcement, k::BULLY_CANDIDATES_KIND_COORDINATOR),
    Msg::Heartbeat => Kind::new("HEARTBEAT", "hb", Visual::Heartbeat, k::COMMON_KIND_HEARTBEAT),
}

impl Message for Msg {
    fn label(&self) -> String {
        match self {
            Msg::Coordinator(k) => format!("COORDINATOR(N{k})"),
            m => KINDS[m.kind()].name.to_string(),
        }
    }
}

timers! {
    Timer {
        /// The tiebreaker δ.
        Delta => "DELTA",
        /// The current stage's deadline (ALIVE answers, or the COORDINATOR).
        Deadline => "DEADLINE",
        /// The failure detector: no heartbeat from the leader for `heartbeats.timeout`.
        LeaderTimeout => "LEADER_TIMEOUT",
        /// The leader's periodic HEARTBEAT broadcast.
        Heartbeat => "HEARTBEAT",
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
        ctx.note(k::bully_candidates_note_wait(ctx.me, delay, ctx.cfg.higher(ctx.me).len() as u64));
        s.stage = Stage::Delay;
        ctx.set_timer_after(Timer::Delta, delay);
    }

    fn ask(&self, s: &mut State, ctx: &mut C) {
        let targets = self.targets(ctx.me);
        if targets.is_empty() {
            // The highest candidate itself (an ordinary node always has candidates to ask).
            ctx.note(k::bully_candidates_note_top(ctx.me));
            self.announce(s, ctx, ctx.me);
            return;
        }
        let text = if self.is_candidate(ctx.me) {
            k::bully_candidates_note_ask_above
        } else {
            k::bully_candidates_note_ask_all
        };
        ctx.note(text(ctx.me, targets.len() as u64, self.t_out));
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
    const VIEW_FIELDS: &'static [&'static str] = &["leader", "group"];

    fn new(cfg: &Config, params: &Params) -> Result<Self, ScenarioError> {
        BullyCandidates::from_params(cfg, params)
    }

    fn init(&self, ctx: &mut C) -> State {
        let mut s = State { me: ctx.me, elected: ctx.cfg.initial_leader, stage: Stage::Idle, best: None };
        if ctx.begin_heartbeats(Timer::Heartbeat, Timer::LeaderTimeout, s.elected) {
            ctx.note(k::bully_candidates_note_no_leader(ctx.me));
            self.detect(&mut s, ctx);
        }
        s
    }

    fn start(&self, s: &mut State, ctx: &mut C) {
        if s.elected == Some(ctx.me) {
            ctx.note(k::common_note_start_leader(ctx.me));
            return;
        }
        ctx.note(k::bully_candidates_note_start(ctx.me));
        self.detect(s, ctx);
    }

    fn on_message(&self, s: &mut State, from: NodeId, msg: Msg, ctx: &mut C) {
        match msg {
            Msg::Election => {
                ctx.send(from, Msg::Alive);
                if s.elected == Some(ctx.me) {
                    ctx.note(k::bully_candidates_note_alive_leader(ctx.me, from));
                } else {
                    match s.stage {
                        Stage::Delay => {
                            ctx.note(k::bully_candidates_note_stand_down(ctx.me, from));
                            self.wait_coord(s, ctx);
                        }
                        Stage::Idle => {
                            ctx.note(k::bully_candidates_note_answer(ctx.me, from));
                            self.wait_coord(s, ctx);
                        }
                        Stage::Asking | Stage::WaitCoord => {
                            ctx.note(k::bully_candidates_note_answer_busy(ctx.me, from))
                        }
                    }
                }
            }
            Msg::Alive => {
                if s.stage == Stage::Asking {
                    let best = s.best.map_or(from, |b| b.max(from));
                    s.best = Some(best);
                    ctx.note(k::bully_candidates_note_got_alive(ctx.me, from, best));
                }
            }
            Msg::Coordinator(k) => {
                if k == ctx.me {
                    ctx.note(k::bully_candidates_note_crowned(ctx.me, from));
                } else {
                    ctx.note(k::bully_candidates_note_accept(ctx.me, from, k));
                }
                self.settle(s, ctx, k);
            }
            Msg::Heartbeat => {
                ctx.leader_heartbeat(Timer::LeaderTimeout, s.elected, from);
            }
        }
    }

    fn on_timer(&self, s: &mut State, timer: Timer, ctx: &mut C) {
        match timer {
            Timer::Delta => {
                if s.stage == Stage::Delay {
                    ctx.note(k::bully_candidates_note_delta_up(ctx.me));
                    self.ask(s, ctx);
                }
            }
            Timer::Deadline => match s.stage {
                Stage::Asking => {
                    let me_if_candidate = Some(ctx.me).filter(|&m| self.is_candidate(m));
                    match s.best.or(me_if_candidate) {
                        Some(k) if k == ctx.me => {
                            ctx.note(k::bully_candidates_note_announce_self(ctx.me, self.t_out));
                            self.announce(s, ctx, k);
                        }
                        Some(k) => {
                            ctx.note(k::bully_candidates_note_announce(ctx.me, k, self.t_out));
                            self.announce(s, ctx, k);
                        }
                        None => {
                            ctx.note(k::bully_candidates_note_none(ctx.me, self.t_out));
                            s.stage = Stage::Idle;
                        }
                    }
                }
                Stage::WaitCoord => {
                    ctx.note(k::bully_candidates_note_no_coord(ctx.me, self.t_coord));
                    self.detect(s, ctx);
                }
                Stage::Idle | Stage::Delay => {}
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
        let mut s = State { me: ctx.me, elected: None, stage: Stage::Idle, best: None };
        ctx.note(k::common_note_recover(ctx.me));
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
        View { role, leader: s.elected, ..View::default() }.with(group.map(Decoration::Group))
    }

    fn inspect(&self, s: &State) -> Vec<Field> {
        let stage = match s.stage {
            Stage::Idle => V::None,
            Stage::Delay => V::text("waiting δ"),
            Stage::Asking => V::text("asking the candidates"),
            Stage::WaitCoord => V::text("WAIT_COORD"),
        };
        let kind = if self.is_candidate(s.me) { "candidate" } else { "ordinary" };
        let timeouts = format!("{} / {} / {}", self.t_out, self.t_coord, self.delta);
        vec![
            Field::new("elected", k::INSPECT_ELECTED, V::node(s.elected)),
            Field::new("kind", k::INSPECT_KIND, V::text(kind)),
            Field::new("stage", k::INSPECT_STAGE, stage),
            Field::new("highest_alive", k::INSPECT_HIGHEST_ALIVE, V::node(s.best)),
            Field::new("candidates", k::INSPECT_CANDIDATES, V::Nodes(self.candidates.to_vec())),
            Field::new("timeouts", k::INSPECT_T_OUT_T_COORD_STEP, V::text(timeouts)),
        ]
    }
}

#[cfg(all(test, holds = "bully"))]
mod tests;
