//! **Chang-Roberts** election on a unidirectional ring (E. Chang and R. Roberts, "An improved
//! algorithm for decentralized extrema-finding in circular configurations of processes",
//! Communications of the ACM 22(5), 1979).
//!
//! Nodes are listed clockwise in the scenario; each talks only to its successor. An initiator
//! sends ELECTION(value = own id, init = own id). A node receiving ELECTION(v):
//! * `v == me`: its id went all the way round, so it is the maximum: it becomes coordinator
//!   (once) and sends ELECTED(me) round the ring;
//! * `v > me`: forwards it unchanged;
//! * `v < me` and it has not yet sent its own id: replaces `v` by its own id (once);
//! * otherwise discards it (it already forwarded a larger id).
//!
//! ELECTED(k) sets `elected = k` at every node and stops at k.
//!
//! Single initiator: 2N messages at best (the maximum starts), 3N−1 at worst (the node just
//! after the maximum on the ring starts); N initiators on a descending ring: (N²+3N)/2. Over
//! random rings with every node initiating, the average number of ELECTION messages is
//! N·Hₙ (Chang and Roberts' result), so O(N log N).
//!
//! * **Initiator suppression** (`params.suppress_initiators`, off by default as in the
//!   classic algorithm): each node remembers the highest initiator seen and discards ELECTION
//!   rounds started by lower initiators. The "sent my own id" flag belongs to a round: when a
//!   round of a strictly higher initiator arrives, the round this node took part in is
//!   suppressed, so the flag is cleared and the node may replace the value in the new round.
//!   Read literally (one flag for all rounds), the suppression rule can suppress every round:
//!   on the ring 80→6→12→5→32→3 with N3 and N12 starting together, N80 spends its id in N3's
//!   round, which then dies at N5 (it saw N12), while N12's round dies at N80 (already
//!   forwarded) — nobody is elected. The per-round flag gives the intended result: the
//!   highest initiator's round always completes. An initiator counts its own round as seen, so
//!   a lower round reaching a higher initiator dies there (on a descending ring the
//!   counts are then the same as without suppression, and never more). Suppression can cost
//!   more than it saves when a suppressed round already carried the maximum: with N3 and N12
//!   starting on the ring above, N3's round (carrying 80) dies at N12 and N12's round has to
//!   bring 80 round again, 19 messages instead of 17.
//! * **Repeated elections.** The classic algorithm describes one election; to run many, a node
//!   clears its per-election flags when ELECTED passes (as in Chang and Roberts' paper, where the
//!   participant mark is cleared on the elected message), and sending its own id starts a new
//!   candidacy. This does not change any count of a single election.
//! * **Failure detection** (only with `heartbeats`): the leader sends HEARTBEAT directly to every
//!   node (the detector is outside the ring); a node that misses it for `heartbeats.timeout`
//!   starts an election. A node that took part in an election that never finished (a message
//!   was lost at a crashed node) starts again after `params.retry` ticks: the timer is armed
//!   when a node sends its own id and cancelled only when an ELECTED passes it. This holds for
//!   every node that sent its id, whatever it believed before: the coordinator (its election
//!   finishes when its own ELECTED comes back, where the classic ELECTED stops) and a live leader
//!   that put its id into a recovered node's election. Otherwise a lost message leaves a node
//!   that has sent its id, so every later round dies there, and nodes that never learn the
//!   leader. A crashed node breaks
//!   the ring until it recovers (the classic crash-stop model); a recovered node starts an election.

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

#[derive(Clone, Debug)]
pub struct ChangRoberts {
    pub suppress_initiators: bool,
    /// Ticks after which an unfinished election is started again (with heartbeats only).
    pub retry: Time,
}

pub const ALGORITHM: Algorithm = Algorithm {
    id: "chang-roberts",
    title: k::CHANG_ROBERTS_TITLE,
    citation: "E. Chang and R. Roberts, An improved algorithm for decentralized extrema-finding in circular configurations of processes, Communications of the ACM 22(5), 1979",
    summary: k::CHANG_ROBERTS_SUMMARY,
    card: k::CHANG_ROBERTS_CARD,
    topology: Topology::Ring,
    kinds: KINDS,
    roles: &[LEADER_ROLE, FOLLOWER_ROLE, CANDIDATE_ROLE, Role::new("participant", Look::Participant, k::CHANG_ROBERTS_ROLE_PARTICIPANT)],
    formulas: &[
        Formula::new("2N", k::CHANG_ROBERTS_FORMULA_1, &["ELECTION", "ELECTED"], |n| 2 * n),
        Formula::new("3N−1", k::CHANG_ROBERTS_FORMULA_2, &["ELECTION", "ELECTED"], |n| (3 * n).saturating_sub(1)),
        Formula::new("N·H_N", k::CHANG_ROBERTS_FORMULA_3, &["ELECTION"], |n| {
            (n as f64 * (1..=n).map(|k| 1.0 / k as f64).sum::<f64>()).round() as u64
        }),
    ],
    properties: &[single_leader(Faults::CrashStop)],
    presets: PRESETS,
    build: run::build::<ChangRoberts>,
};

const PRESETS: &[Preset] = &[
    Preset {
        id: "ring-best",
        title: k::CHANG_ROBERTS_PRESET_RING_BEST_TITLE,
        hint: k::CHANG_ROBERTS_PRESET_RING_BEST_HINT,
        json: r#"{"algorithm":"chang-roberts","nodes":[80,6,12,5,32,3],"seed":425,"schedule":[{"at":0,"start":80}]}"#,
        leaders: &[80],
        // Pins Chang-Roberts' best case: 2N = 12 messages, the maximum starts.
        golden: "02c99fdb6750dd19",
    },
    Preset {
        id: "ring-worst",
        title: k::CHANG_ROBERTS_PRESET_RING_WORST_TITLE,
        hint: k::CHANG_ROBERTS_PRESET_RING_WORST_HINT,
        json: r#"{"algorithm":"chang-roberts","nodes":[80,6,12,5,32,3],"seed":425,"schedule":[{"at":0,"start":6}]}"#,
        leaders: &[80],
        // Pins Chang-Roberts' worst placement: 3N−1 = 17 messages.
        golden: "e7046cc72bc14bc8",
    },
    Preset {
        id: "ring-two",
        title: k::CHANG_ROBERTS_PRESET_RING_TWO_TITLE,
        hint: k::CHANG_ROBERTS_PRESET_RING_TWO_HINT,
        json: r#"{"algorithm":"chang-roberts","nodes":[80,6,12,5,32,3],"seed":425,"schedule":[{"at":0,"start":3},{"at":0,"start":12}]}"#,
        leaders: &[80],
        // Pins two initiators, the smaller round swallowed at N80: 11 ELECTION + 6 ELECTED.
        golden: "6e9b3423b8cd27ec",
    },
];

// Narration: one sentence per rule, in both languages. `{0}` is the acting node.

impl ChangRoberts {
    fn from_params(cfg: &Config, params: &Params) -> Result<Self, ScenarioError> {
        let p = ParamReader::new(params, &["suppress_initiators", "retry"])?;
        let n = cfg.n() as Time;
        let retry = p.ticks("retry", 3 * n * cfg.latency.1 + cfg.heartbeats.map_or(0, |h| h.timeout))?;
        Ok(ChangRoberts { suppress_initiators: p.flag("suppress_initiators")?, retry })
    }
}

#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct State {
    pub me: NodeId,
    pub elected: Option<NodeId>,
    /// Has sent ELECTION carrying its own id in this election.
    pub forwarded: bool,
    pub am_coord: bool,
    /// Highest initiator seen (suppression only).
    pub seen_init: Option<NodeId>,
    /// Largest value this node has passed on in this election (for the drawing).
    pub carried: Option<NodeId>,
}

#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum Msg {
    Election { value: NodeId, init: NodeId },
    Elected(NodeId),
    Heartbeat,
}

kinds! {
    Msg;
    Msg::Election { .. } => Kind::new("ELECTION", "E", Visual::Request, k::CHANG_ROBERTS_KIND_ELECTION),
    Msg::Elected(_) => Kind::new("ELECTED", "EL", Visual::Announcement, k::COMMON_KIND_ELECTED),
    Msg::Heartbeat => Kind::new("HEARTBEAT", "hb", Visual::Heartbeat, k::COMMON_KIND_HEARTBEAT_2),
}

impl Message for Msg {
    fn label(&self) -> String {
        match self {
            Msg::Election { value, init } => format!("ELECTION({value}, init {init})"),
            Msg::Elected(k) => format!("ELECTED({k})"),
            Msg::Heartbeat => "HEARTBEAT".into(),
        }
    }
}

pub use crate::timers::RingTimer as Timer;

type C<'a> = Ctx<'a, Msg, Timer>;

impl ChangRoberts {
    fn fresh(me: NodeId, elected: Option<NodeId>) -> State {
        State { me, elected, forwarded: false, am_coord: false, seen_init: None, carried: None }
    }

    fn send_own(&self, s: &mut State, init: NodeId, ctx: &mut C) {
        let succ = ctx.cfg.successor(ctx.me);
        ctx.send(succ, Msg::Election { value: ctx.me, init });
        s.forwarded = true;
        s.am_coord = false;
        s.carried = Some(ctx.me);
        if ctx.cfg.heartbeats.is_some() {
            ctx.set_timer_after(Timer::Retry, self.retry);
        }
    }

    fn start_election(&self, s: &mut State, ctx: &mut C) {
        s.elected = None;
        ctx.cancel_timer(Timer::LeaderTimeout);
        ctx.cancel_timer(Timer::Heartbeat);
        let me = ctx.me;
        if self.suppress_initiators {
            // The initiator has seen its own round.
            s.seen_init = Some(s.seen_init.map_or(me, |x| x.max(me)));
        }
        self.send_own(s, me, ctx);
    }
}

impl Protocol for ChangRoberts {
    type State = State;
    type Msg = Msg;
    type Timer = Timer;
    const VIEW_FIELDS: &'static [&'static str] = &["leader"];

    fn new(cfg: &Config, params: &Params) -> Result<Self, ScenarioError> {
        ChangRoberts::from_params(cfg, params)
    }

    fn init(&self, ctx: &mut C) -> State {
        let mut s = Self::fresh(ctx.me, ctx.cfg.initial_leader);
        s.am_coord = s.elected == Some(ctx.me);
        if ctx.begin_heartbeats(Timer::Heartbeat, Timer::LeaderTimeout, s.elected) {
            self.start_election(&mut s, ctx);
        }
        s
    }

    fn start(&self, s: &mut State, ctx: &mut C) {
        ctx.note(k::chang_roberts_note_start(ctx.me, ctx.cfg.successor(ctx.me)));
        self.start_election(s, ctx);
    }

    fn on_message(&self, s: &mut State, from: NodeId, msg: Msg, ctx: &mut C) {
        let succ = ctx.cfg.successor(ctx.me);
        match msg {
            Msg::Election { value, init } => {
                let me = ctx.me;
                if self.suppress_initiators {
                    if matches!(s.seen_init, Some(seen) if init < seen) {
                        ctx.note(k::chang_roberts_note_suppress(me, value as u64, init));
                        return;
                    }
                    if let Some(seen) = s.seen_init.filter(|&seen| init > seen) {
                        // A higher initiator's round: the one this node took part in is now
                        // suppressed, so it may put its own id into this round (once).
                        if s.forwarded && value < ctx.me {
                            ctx.note(k::chang_roberts_note_new_round(me, init, seen));
                        }
                        s.forwarded = false;
                    }
                    s.seen_init = Some(s.seen_init.map_or(init, |x| x.max(init)));
                }
                if value == ctx.me {
                    if !s.am_coord {
                        ctx.note(k::chang_roberts_note_win(me));
                        s.am_coord = true;
                        s.elected = Some(ctx.me);
                        // The Retry timer of this node's candidacy stays armed until its own
                        // ELECTED comes back: the election is not over while the announcement
                        // can still be lost at a crashed node.
                        ctx.send(succ, Msg::Elected(ctx.me));
                    } else {
                        ctx.note(k::chang_roberts_note_win_again(me));
                    }
                } else if value > ctx.me {
                    ctx.note(k::chang_roberts_note_forward(me, value as u64, succ));
                    s.carried = Some(s.carried.map_or(value, |c| c.max(value)));
                    ctx.send(succ, Msg::Election { value, init });
                } else if !s.forwarded {
                    ctx.note(k::chang_roberts_note_replace(me, value as u64));
                    self.send_own(s, init, ctx);
                } else {
                    // Discard: this node already sent a larger id round.
                    ctx.note(k::chang_roberts_note_discard(me, value as u64));
                }
            }
            Msg::Elected(k) => {
                s.elected = Some(k);
                s.forwarded = false;
                s.seen_init = None;
                s.carried = None;
                s.am_coord = k == ctx.me;
                ctx.cancel_timer(Timer::Retry);
                if k != ctx.me {
                    ctx.note(k::chang_roberts_note_pass_elected(ctx.me, k, succ));
                    ctx.send(succ, Msg::Elected(k));
                    ctx.watch_leader(Timer::LeaderTimeout, s.elected);
                } else {
                    ctx.note(k::chang_roberts_note_elected_home(k));
                    ctx.arm_heartbeat(Timer::Heartbeat);
                }
            }
            Msg::Heartbeat => {
                if !ctx.leader_heartbeat(Timer::LeaderTimeout, s.elected, from) {
                    match s.elected {
                        Some(l) if l == ctx.me => ctx.note(k::common_note_beat_rival(ctx.me, from)),
                        Some(l) => ctx.note(k::common_note_beat_other(ctx.me, from, l)),
                        None => ctx.note(k::common_note_beat_no_leader(ctx.me, from)),
                    }
                }
            }
        }
    }

    fn on_timer(&self, s: &mut State, timer: Timer, ctx: &mut C) {
        match timer {
            Timer::LeaderTimeout => {
                if ctx.suspect(s.elected, k::chang_roberts_note_suspect) {
                    self.start_election(s, ctx);
                }
            }
            Timer::Retry => {
                // Armed when this node sent its own id, cancelled when an ELECTED passes (its
                // own coming back included): the election it joined never finished.
                ctx.note(k::chang_roberts_note_retry(ctx.me, self.retry));
                s.am_coord = false;
                s.forwarded = false;
                s.seen_init = None;
                self.start_election(s, ctx);
            }
            Timer::Heartbeat => {
                ctx.heartbeat_if_leader(s.elected, Timer::Heartbeat, k::chang_roberts_note_beat, Msg::Heartbeat)
            }
        }
    }

    fn recover(&self, _crashed: &State, ctx: &mut C) -> State {
        let mut s = Self::fresh(ctx.me, None);
        ctx.note(k::chang_roberts_note_recover(ctx.me));
        self.start_election(&mut s, ctx);
        s
    }

    fn view(&self, s: &State) -> View {
        let role = if s.elected == Some(s.me) {
            LEADER
        } else if s.forwarded {
            CANDIDATE
        } else if s.carried.is_some() {
            "participant"
        } else {
            FOLLOWER
        };
        View { role, leader: s.elected, ..View::default() }
    }

    fn inspect(&self, s: &State) -> Vec<Field> {
        let initiator = if self.suppress_initiators { V::node(s.seen_init) } else { V::text("(suppression off)") };
        vec![
            Field::new("elected", k::INSPECT_ELECTED, V::node(s.elected)),
            Field::new("sent_own_id", k::INSPECT_SENT_OWN_ID, V::Flag(s.forwarded)),
            Field::new("coordinator", k::INSPECT_COORDINATOR, V::Flag(s.am_coord)),
            Field::new("largest_id_carried", k::INSPECT_LARGEST_ID_CARRIED, V::node(s.carried)),
            Field::new("highest_initiator_seen", k::INSPECT_HIGHEST_INITIATOR_SEEN, initiator),
        ]
    }
}

#[cfg(all(test, holds = "rings"))]
mod narration_tests {
    use crate::meta::Lang;
    use crate::protocols::testkit::{delivery, preset};

    #[test]
    fn n80_swallowing_a_smaller_id_says_so_with_both_ids() {
        // Worst case: 32 reaches N80, which has not sent its own id yet, so 80 replaces it.
        let e = preset("ring-worst");
        let step = delivery(&e, 3, 80, "ELECTION(32, init 6)");
        let en = e.narrate(step, Lang::En).unwrap();
        assert!(en.starts_with("N80 swallows ELECTION(32): 32 < 80, so it sends its own id 80 on instead"), "{en}");
        let zh = e.narrate(step, Lang::Zh).unwrap();
        assert!(zh.starts_with("N80 吞掉 ELECTION(32)：32 < 80"), "{zh}");

        // Two initiators: N12's round brings 32 to N80, which already sent 80 in N3's round.
        let e = preset("ring-two");
        let step = delivery(&e, 3, 80, "ELECTION(32, init 12)");
        let en = e.narrate(step, Lang::En).unwrap();
        assert!(
            en.starts_with("N80 swallows ELECTION(32): 32 < 80, and N80 has already sent its own id round"),
            "{en}"
        );
        assert!(en.contains("O(N log N)"), "{en}");

        // The maximum's id coming home.
        let e = preset("ring-best");
        let en = e.narrate(delivery(&e, 3, 80, "ELECTION(80, init 80)"), Lang::En).unwrap();
        assert!(en.starts_with("N80 gets its own id back") && en.contains("becomes coordinator"), "{en}");
    }
}
