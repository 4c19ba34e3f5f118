//! **Hirschberg-Sinclair** election on a bidirectional ring (D. S. Hirschberg and J. B. Sinclair,
//! "Decentralized extrema-finding in circular configurations of processors", Communications of
//! the ACM 23(11), 1980): the first O(N log N) ring election.
//!
//! Every node may talk to both neighbours. A candidate works in phases k = 0, 1, 2, ...: in phase
//! k it sends PROBE carrying its id both ways round the ring, to reach 2^k hops (its *radius*).
//! A node that a probe reaches compares ids:
//! * a **larger** id swallows the probe (the sender cannot be the maximum);
//! * a **smaller** id passes it on, or, if it is the 2^k-th node, turns it back as REPLY, which
//!   the nodes in between pass back to the candidate;
//! * the sender's **own** id means the probe has come all the way round the ring.
//!
//! A candidate that gets REPLY from both sides is the largest id within 2^k hops either way and
//! goes on to phase k+1 with twice the radius. A candidate whose probes come all the way round
//! (once 2^k ≥ N) has passed every node without being swallowed: it is the maximum, leads, and
//! announces itself with ELECTED, sent once round the ring. Two candidates that both survive
//! phase k are more than 2^k apart, so at most ⌊N/(2^k+1)⌋ < N/2^k survive it; a phase costs at
//! most 4·2^k messages per candidate, hence at most 4N in phase 0, 8N in each later phase, and
//! PROBE + REPLY ≤ 8N(1 + ⌈log₂N⌉) in all (the bound of N. A. Lynch's analysis in *Distributed
//! Algorithms*, Morgan Kaufmann, 1996; Hirschberg and Sinclair give 8N + 8⌈N log N⌉ for their
//! variant with negative replies).
//!
//! "The candidates halve every phase" holds for that bound, not for the count itself: the
//! survivors of phase k are fewer than N/2^k, but from one phase to the next their number may
//! fall by less than half, or not at all (three peaks evenly spread on a ring of 12, each the
//! largest within 3 hops, all survive phases 0 and 1). On random rings the count fell by half or
//! more in about half the phases only; the module's tests check the bound.
//!
//! Readings chosen:
//!
//! * **Which id stops a probe.** A probe is passed on only by smaller ids and stopped by a larger
//!   one, as in the paper (the pseudocode of the course notes has this comparison the other way
//!   round in one place; their prose and proof use the paper's reading, which is taken here).
//! * **Swallowing, no negative reply.** A larger node simply drops a smaller probe, as in the
//!   textbook presentation of the algorithm (Lynch, *Distributed Algorithms*, 1996); the paper
//!   instead answers it with a "no" reply. A candidate whose probe was swallowed just never goes
//!   on to the next phase.
//! * **Losing.** As in the paper, a candidate that passes on a larger id's probe knows it cannot
//!   be the maximum and withdraws (role `relay`): it does not start another phase even if its
//!   own replies come back.
//! * **Nodes that did not start.** A node that is not taking part and is reached by a smaller
//!   id's probe swallows it and becomes a candidate itself (so the maximum always joins and
//!   wins, whoever starts); one reached by a larger id's probe just relays from then on.
//! * **Winning.** A probe that comes all the way round proves the maximum; the node still waits
//!   for its probe sent the other way (it is coming round too) before it announces, so that, with
//!   FIFO links, no older probe of another candidate is still on its way to wake a node up after
//!   the announcement.
//! * **Repeated elections.** A node starts a new candidacy (its election number goes up, and
//!   survives a crash, so that its older probes and replies are recognised and ignored). A leader
//!   reached by a smaller id's probe campaigns again like any other node (the election in course
//!   re-elects it); a node that believes it leads and passes on a larger id's probe stops
//!   believing it (this only matters for a scenario whose initial leader is not the maximum).
//! * **Failure detection** (only with `heartbeats`): the leader sends HEARTBEAT directly to every
//!   node; a node that misses it for `heartbeats.timeout` starts an election. A candidate with no
//!   leader after `retry` ticks without progress starts again (a message was lost). A recovered
//!   node starts an election.
//!
//! Safety under any fault: a probe that comes all the way round has been passed on by every
//! other node, and only smaller ids pass a probe on (a crashed or cut-off node passes nothing), so
//! only the maximum id can ever win, and at most one node believes it leads. The price is
//! liveness: while any node is down or out of reach, nobody can win.
//!
//! Parameters (`params`): `retry` (ticks a candidate waits for progress before starting again,
//! with heartbeats only; default `10·N·latency_max + heartbeats.timeout`).

use crate::algorithm::Algorithm;
use crate::error::ScenarioError;
use crate::field::{Field, FieldValue as V};
use crate::meta::k;
use crate::meta::{
    single_leader, Faults, Formula, Kind, Look, Preset, Role, Topology, Visual, CANDIDATE_ROLE, FOLLOWER_ROLE,
    LEADER_ROLE,
};
use crate::protocol::{
    Config, Ctx, Decoration, Message, ParamReader, Params, Protocol, View, CANDIDATE, FOLLOWER, LEADER,
};
use crate::run;
use crate::{NodeId, Time};

/// ⌈log₂ n⌉ (0 for n ≤ 1).
pub fn ceil_log2(n: u64) -> u64 {
    if n <= 1 {
        0
    } else {
        64 - (n - 1).leading_zeros() as u64
    }
}

pub const ALGORITHM: Algorithm = Algorithm {
    id: "hirschberg-sinclair",
    title: k::HIRSCHBERG_SINCLAIR_TITLE,
    citation: "D. S. Hirschberg and J. B. Sinclair, Decentralized extrema-finding in circular configurations of processors, Communications of the ACM 23(11), 1980",
    summary: k::HIRSCHBERG_SINCLAIR_SUMMARY,
    card: k::HIRSCHBERG_SINCLAIR_CARD,
    topology: Topology::BidirectionalRing,
    kinds: KINDS,
    roles: &[
        LEADER_ROLE,
        FOLLOWER_ROLE,
        CANDIDATE_ROLE,
        Role::new("relay", Look::Participant, k::HIRSCHBERG_SINCLAIR_ROLE_RELAY),
    ],
    formulas: &[Formula::new("8N(1+⌈log₂N⌉)", k::HIRSCHBERG_SINCLAIR_FORMULA_1, &["PROBE", "REPLY"], |n| {
        8 * n * (1 + ceil_log2(n))
    })],
    properties: &[single_leader(Faults::Any)],
    presets: PRESETS,
    build: run::build::<HirschbergSinclair>,
};

const PRESETS: &[Preset] = &[
    Preset {
        id: "hs-all",
        title: k::HIRSCHBERG_SINCLAIR_PRESET_HS_ALL_TITLE,
        hint: k::HIRSCHBERG_SINCLAIR_PRESET_HS_ALL_HINT,
        json: r#"{"algorithm":"hirschberg-sinclair","nodes":[80,6,12,5,32,3],"seed":425,
                  "schedule":[{"at":0,"start":80},{"at":0,"start":6},{"at":0,"start":12},{"at":0,"start":5},{"at":0,"start":32},{"at":0,"start":3}]}"#,
        leaders: &[80],
        // Pins Hirschberg-Sinclair phases on the Chang-Roberts ring: N80's radius-8 probe wins.
        golden: "7d2f58c23d010e68",
    },
    Preset {
        id: "hs-phases-16",
        title: k::HIRSCHBERG_SINCLAIR_PRESET_HS_PHASES_16_TITLE,
        hint: k::HIRSCHBERG_SINCLAIR_PRESET_HS_PHASES_16_HINT,
        json: r#"{"algorithm":"hirschberg-sinclair","nodes":[16,8,12,4,14,6,10,2,15,7,11,3,13,5,9,1],"seed":425,
                  "schedule":[{"at":0,"start":16},{"at":0,"start":8},{"at":0,"start":12},{"at":0,"start":4},
                              {"at":0,"start":14},{"at":0,"start":6},{"at":0,"start":10},{"at":0,"start":2},
                              {"at":0,"start":15},{"at":0,"start":7},{"at":0,"start":11},{"at":0,"start":3},
                              {"at":0,"start":13},{"at":0,"start":5},{"at":0,"start":9},{"at":0,"start":1}]}"#,
        leaders: &[16],
        // Pins 16 candidates on a bit-reversed ring: 8, 4, 2, 1 survivors by phase.
        golden: "3f96c8c2ee2045e6",
    },
    Preset {
        id: "hs-rounds",
        title: k::HIRSCHBERG_SINCLAIR_PRESET_HS_ROUNDS_TITLE,
        hint: k::HIRSCHBERG_SINCLAIR_PRESET_HS_ROUNDS_HINT,
        json: r#"{"algorithm":"hirschberg-sinclair","nodes":[16,8,12,4,14,6,10,2,15,7,11,3,13,5,9,1],"seed":425,"network":{"model":"rounds"},
                  "schedule":[{"at":0,"start":16},{"at":0,"start":8},{"at":0,"start":12},{"at":0,"start":4},
                              {"at":0,"start":14},{"at":0,"start":6},{"at":0,"start":10},{"at":0,"start":2},
                              {"at":0,"start":15},{"at":0,"start":7},{"at":0,"start":11},{"at":0,"start":3},
                              {"at":0,"start":13},{"at":0,"start":5},{"at":0,"start":9},{"at":0,"start":1}]}"#,
        leaders: &[16],
        // Pins Lynch's synchronous Hirschberg-Sinclair: 160 PROBE + 64 REPLY + 16 ELECTED by round 62
        // (the same steps as hs-phases-16 with unit latency, hence the same hash).
        golden: "3f96c8c2ee2045e6",
    },
    Preset {
        id: "hs-partition",
        title: k::HIRSCHBERG_SINCLAIR_PRESET_HS_PARTITION_TITLE,
        hint: k::HIRSCHBERG_SINCLAIR_PRESET_HS_PARTITION_HINT,
        json: r#"{"algorithm":"hirschberg-sinclair","nodes":[1,2,3,4,5,6],"seed":425,"initial_leader":6,
                  "heartbeats":{"interval":3,"timeout":12},
                  "schedule":[{"at":10,"partition":[[1,2,3],[4,5,6]]},{"at":120,"heal":true}],"stop":{"max_time":400}}"#,
        leaders: &[6],
        // Pins a cut ring: probes cannot go round, so no second leader.
        golden: "0d6bd7a96839a694",
    },
];

// Narration: one sentence per rule, in both languages. `{0}` is the acting node.

#[derive(Clone, Debug)]
pub struct HirschbergSinclair {
    /// Ticks a candidate waits for progress before it starts again (with heartbeats only).
    pub retry: Time,
}

impl HirschbergSinclair {
    fn from_params(cfg: &Config, params: &Params) -> Result<Self, ScenarioError> {
        let p = ParamReader::new(params, &["retry"])?;
        let n = cfg.n() as Time;
        let retry = p.ticks("retry", 10 * n * cfg.latency.1 + cfg.heartbeats.map_or(0, |h| h.timeout))?;
        Ok(HirschbergSinclair { retry })
    }
}

/// Which way round the ring a message travels.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Dir {
    /// Clockwise: towards the successor.
    Cw,
    /// Counter-clockwise: towards the predecessor.
    Ccw,
}

impl Dir {
    pub fn flip(self) -> Dir {
        match self {
            Dir::Cw => Dir::Ccw,
            Dir::Ccw => Dir::Cw,
        }
    }
    fn index(self) -> usize {
        self as usize
    }
}

fn neighbour(cfg: &Config, me: NodeId, dir: Dir) -> NodeId {
    match dir {
        Dir::Cw => cfg.successor(me),
        Dir::Ccw => cfg.predecessor(me),
    }
}

/// 2^phase hops (saturating).
fn radius(phase: u32) -> u64 {
    1u64.checked_shl(phase).unwrap_or(u64::MAX)
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Status {
    /// Not taking part in an election.
    Idle,
    /// Campaigning: probing in phase `State::phase`.
    Candidate,
    /// Has passed a larger id's probe on: out of the running until the next election.
    Relay,
}

#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct State {
    pub me: NodeId,
    pub leader: Option<NodeId>,
    /// This node's election number (durable): its probes and replies carry it.
    pub round: u64,
    pub status: Status,
    /// The candidate's current phase (probe radius 2^phase); kept after the election for the
    /// inspector.
    pub phase: u32,
    /// REPLY received from the clockwise / counter-clockwise probe of the current phase.
    pub replied: [bool; 2],
    /// The clockwise / counter-clockwise probe of the current phase came all the way round.
    pub home: [bool; 2],
}

#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum Msg {
    /// Candidate `id`'s probe of phase `phase`, `hops` hops from it, travelling `dir`.
    Probe {
        id: NodeId,
        round: u64,
        phase: u32,
        hops: u64,
        dir: Dir,
    },
    /// The probe turned back at the radius, travelling `dir` (back towards `id`).
    Reply {
        id: NodeId,
        round: u64,
        phase: u32,
        dir: Dir,
    },
    Elected(NodeId),
    Heartbeat,
}

kinds! {
    Msg;
    Msg::Probe { .. } => Kind::new("PROBE", "P", Visual::Request, k::HIRSCHBERG_SINCLAIR_KIND_PROBE),
    Msg::Reply { .. } => Kind::new("REPLY", "R", Visual::Answer, k::HIRSCHBERG_SINCLAIR_KIND_REPLY),
    Msg::Elected(_) => Kind::new("ELECTED", "EL", Visual::Announcement, k::COMMON_KIND_ELECTED),
    Msg::Heartbeat => Kind::new("HEARTBEAT", "hb", Visual::Heartbeat, k::COMMON_KIND_HEARTBEAT_2),
}

impl Message for Msg {
    fn label(&self) -> String {
        match self {
            Msg::Probe { id, phase, hops, .. } => format!("PROBE({id}, k={phase}, hop {hops})"),
            Msg::Reply { id, phase, .. } => format!("REPLY({id}, k={phase})"),
            Msg::Elected(l) => format!("ELECTED(N{l})"),
            Msg::Heartbeat => "HEARTBEAT".into(),
        }
    }
}

pub use crate::timers::RingTimer as Timer;

type C<'a> = Ctx<'a, Msg, Timer>;

impl HirschbergSinclair {
    /// Becomes a candidate of a new election, in phase 0. The caller narrates why.
    fn begin(&self, s: &mut State, ctx: &mut C) {
        s.round += 1;
        s.status = Status::Candidate;
        s.phase = 0;
        if s.leader == Some(ctx.me) {
            ctx.cancel_timer(Timer::Heartbeat);
        }
        s.leader = None;
        ctx.cancel_timer(Timer::LeaderTimeout);
        self.probe(s, ctx);
    }

    /// Sends the current phase's probes both ways.
    fn probe(&self, s: &mut State, ctx: &mut C) {
        s.replied = [false; 2];
        s.home = [false; 2];
        if ctx.cfg.heartbeats.is_some() {
            ctx.set_timer_after(Timer::Retry, self.retry);
        }
        for dir in [Dir::Cw, Dir::Ccw] {
            let to = neighbour(ctx.cfg, ctx.me, dir);
            ctx.send(to, Msg::Probe { id: ctx.me, round: s.round, phase: s.phase, hops: 1, dir });
        }
    }

    fn win(&self, s: &mut State, ctx: &mut C) {
        s.status = Status::Idle;
        s.leader = Some(ctx.me);
        ctx.cancel_timer(Timer::Retry);
        ctx.arm_heartbeat(Timer::Heartbeat);
        let succ = ctx.cfg.successor(ctx.me);
        ctx.send(succ, Msg::Elected(ctx.me));
    }

    fn is_current(&self, s: &State, round: u64, phase: u32) -> bool {
        s.status == Status::Candidate && round == s.round && phase == s.phase
    }
}

impl Protocol for HirschbergSinclair {
    type State = State;
    type Msg = Msg;
    type Timer = Timer;
    const VIEW_FIELDS: &'static [&'static str] = &["leader", "reach"];

    fn new(cfg: &Config, params: &Params) -> Result<Self, ScenarioError> {
        HirschbergSinclair::from_params(cfg, params)
    }

    fn init(&self, ctx: &mut C) -> State {
        let mut s = State {
            me: ctx.me,
            leader: ctx.cfg.initial_leader,
            round: 0,
            status: Status::Idle,
            phase: 0,
            replied: [false; 2],
            home: [false; 2],
        };
        if ctx.begin_heartbeats(Timer::Heartbeat, Timer::LeaderTimeout, s.leader) {
            ctx.note(k::hirschberg_sinclair_note_start(ctx.me));
            self.begin(&mut s, ctx);
        }
        s
    }

    fn start(&self, s: &mut State, ctx: &mut C) {
        match s.status {
            Status::Candidate => ctx.note(k::hirschberg_sinclair_note_busy(ctx.me)),
            Status::Relay => ctx.note(k::hirschberg_sinclair_note_busy_relay(ctx.me)),
            Status::Idle => {
                ctx.note(k::hirschberg_sinclair_note_start(ctx.me));
                self.begin(s, ctx);
            }
        }
    }

    fn on_message(&self, s: &mut State, from: NodeId, msg: Msg, ctx: &mut C) {
        let me = ctx.me;
        match msg {
            Msg::Probe { id, round, phase, dir, .. } if id == me => {
                // Its own probe came all the way round.
                if self.is_current(s, round, phase) {
                    s.home[dir.index()] = true;
                    if s.home == [true; 2] {
                        ctx.note(k::hirschberg_sinclair_note_win(me));
                        self.win(s, ctx);
                    } else {
                        ctx.note(k::hirschberg_sinclair_note_home_one(me));
                    }
                } else {
                    ctx.note(k::hirschberg_sinclair_note_stale(me, phase as u64));
                }
            }
            Msg::Probe { id, round, phase, hops, dir } if id > me => {
                // A larger id: pass it on, or turn it back at the radius.
                if s.leader == Some(me) {
                    ctx.note(k::hirschberg_sinclair_note_step_down(me, id));
                    s.leader = None;
                    ctx.cancel_timer(Timer::Heartbeat);
                }
                match s.status {
                    Status::Candidate => {
                        ctx.note(k::hirschberg_sinclair_note_withdraw(me, id));
                        s.status = Status::Relay;
                    }
                    Status::Idle => s.status = Status::Relay,
                    Status::Relay => {}
                }
                let r = radius(phase);
                if hops < r {
                    ctx.note(k::hirschberg_sinclair_note_relay(me, id, hops));
                    let to = neighbour(ctx.cfg, me, dir);
                    ctx.send(to, Msg::Probe { id, round, phase, hops: hops + 1, dir });
                } else {
                    ctx.note(k::hirschberg_sinclair_note_turn(me, id, hops));
                    let back = dir.flip();
                    ctx.send(neighbour(ctx.cfg, me, back), Msg::Reply { id, round, phase, dir: back });
                }
            }
            Msg::Probe { id, .. } => {
                // A smaller id: swallow it; a node not yet in the election joins.
                match s.status {
                    Status::Idle => {
                        let text = if s.leader == Some(me) {
                            k::hirschberg_sinclair_note_leader_wake
                        } else {
                            k::hirschberg_sinclair_note_wake
                        };
                        ctx.note(text(me, id));
                        self.begin(s, ctx);
                    }
                    _ => ctx.note(k::hirschberg_sinclair_note_swallow(me, id)),
                }
            }
            Msg::Reply { id, round, phase, dir } => {
                if id != me {
                    ctx.note(k::hirschberg_sinclair_note_reply_pass(me, id));
                    ctx.send(neighbour(ctx.cfg, me, dir), Msg::Reply { id, round, phase, dir });
                } else if self.is_current(s, round, phase) {
                    // The reply to the probe sent the other way from the one it travels.
                    s.replied[dir.flip().index()] = true;
                    if s.replied == [true; 2] {
                        ctx.note(k::hirschberg_sinclair_note_next(me, phase as u64, radius(phase)));
                        s.phase += 1;
                        self.probe(s, ctx);
                    } else {
                        ctx.note(k::hirschberg_sinclair_note_half(me, phase as u64, radius(phase)));
                    }
                } else {
                    ctx.note(k::hirschberg_sinclair_note_late_reply(me, phase as u64));
                }
            }
            Msg::Elected(l) => {
                if l == me {
                    ctx.note(k::hirschberg_sinclair_note_announced(me));
                    return;
                }
                ctx.note(k::hirschberg_sinclair_note_elected(me, l));
                if s.leader == Some(me) {
                    ctx.cancel_timer(Timer::Heartbeat);
                }
                s.leader = Some(l);
                s.status = Status::Idle;
                ctx.cancel_timer(Timer::Retry);
                ctx.watch_leader(Timer::LeaderTimeout, s.leader);
                let succ = ctx.cfg.successor(me);
                ctx.send(succ, Msg::Elected(l));
            }
            Msg::Heartbeat => {
                ctx.leader_heartbeat(Timer::LeaderTimeout, s.leader, from);
            }
        }
    }

    fn on_timer(&self, s: &mut State, timer: Timer, ctx: &mut C) {
        let me = ctx.me;
        match timer {
            Timer::LeaderTimeout => {
                if ctx.suspect(s.leader, k::hirschberg_sinclair_note_suspect) {
                    self.begin(s, ctx);
                }
            }
            Timer::Heartbeat => {
                ctx.heartbeat_if_leader(s.leader, Timer::Heartbeat, k::common_note_beat, Msg::Heartbeat)
            }
            Timer::Retry => {
                if s.leader.is_none() {
                    ctx.note(k::hirschberg_sinclair_note_retry(me, self.retry));
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
            status: Status::Idle,
            phase: 0,
            replied: [false; 2],
            home: [false; 2],
        };
        ctx.note(k::hirschberg_sinclair_note_recover(ctx.me));
        self.begin(&mut s, ctx);
        s
    }

    fn view(&self, s: &State) -> View {
        let (role, reach) = match s.status {
            _ if s.leader == Some(s.me) => (LEADER, None),
            Status::Candidate => (CANDIDATE, Some(radius(s.phase).min(u32::MAX as u64) as u32)),
            Status::Relay => ("relay", None),
            Status::Idle => (FOLLOWER, None),
        };
        View { role, leader: s.leader, ..View::default() }.with(reach.map(Decoration::Reach))
    }

    fn inspect(&self, s: &State) -> Vec<Field> {
        let side = |b: [bool; 2]| {
            V::text(format!("cw {} / ccw {}", if b[0] { "yes" } else { "no" }, if b[1] { "yes" } else { "no" }))
        };
        let status = match s.status {
            Status::Idle => V::None,
            Status::Candidate => V::text("candidate"),
            Status::Relay => V::text("relay (out of the running)"),
        };
        let phase = V::worded(s.phase as u64, format!("{} / {}", s.phase, radius(s.phase)));
        vec![
            Field::new("leader", k::UI_LEADER, V::node(s.leader)),
            Field::new("status", k::INSPECT_STATUS, status),
            Field::new("phase", k::INSPECT_PHASE_RADIUS, phase),
            Field::new("replies", k::INSPECT_REPLIES, side(s.replied)),
            Field::new("probes_home", k::INSPECT_PROBES_HOME, side(s.home)),
            Field::new("election_number", k::INSPECT_ELECTION_NUMBER, V::num(s.round)),
            Field::new("retry", k::INSPECT_RETRY, V::num(self.retry)),
        ]
    }
}

#[cfg(all(test, holds = "rings"))]
mod tests;
