//! **LeLann's ring election** (G. LeLann, "Distributed systems — towards a formal approach",
//! IFIP Congress 1977): the naive ring algorithm that Chang and Roberts improved.
//!
//! Nodes are listed clockwise; each sends only to its successor, over FIFO links. A node that
//! starts an election sends ELECTION carrying its own id. Every node forwards every id it
//! receives, except its own, and remembers it; a node woken by a foreign id first sends its own
//! (so every node takes part). When a node's own id comes back it has seen every id: FIFO links
//! and "own id first" put every other id ahead of its own on the way round. It then knows the
//! maximum, which leads. Nothing is swallowed, so every id makes the full trip: exactly N²
//! ELECTION messages per election, against Chang-Roberts' N·H_N on average.
//!
//! * **No announcement**: every node computes the leader itself, as in LeLann's paper.
//! * **Repeated elections** (an extension; LeLann's paper runs one election): ids carry an
//!   election *round*, shared by the whole ring. A node starting an election (a `start`, a
//!   suspected leader, a retry, a recovery) uses its round + 1; a node that sees an id of a newer
//!   round joins that round (sending its own id first), and ids of an older round are dropped.
//!   So ids of two elections never mix, and the FIFO argument holds within a round: a node whose
//!   own id returns has seen every id of its round. The round survives a crash.
//! * **Failure detection** (only with `heartbeats`): the leader sends HEARTBEAT directly to every
//!   node (the detector is outside the ring); a node that misses it for `heartbeats.timeout`
//!   starts an election. A crashed node breaks the ring until it recovers; a recovered node
//!   starts an election. An id lost on the way (at a crashed node, or by the network) would leave
//!   its owner electing forever, so with heartbeats a node that is still electing after
//!   `3·N·latency_max + heartbeats.timeout` ticks starts a new round (the `RETRY` timer, as in
//!   Chang-Roberts here); the new round number makes the old copies harmless.
//! * Links must be FIFO (`network.fifo`, on by default); without it a node may decide on part of
//!   the ring.
//!
//! No parameters.

use crate::algorithm::Algorithm;
use crate::error::ScenarioError;
use crate::field::{Field, FieldValue as V};
use crate::meta::k;
use crate::meta::{
    single_leader, Faults, Formula, Kind, Preset, Topology, Visual, CANDIDATE_ROLE, FOLLOWER_ROLE, LEADER_ROLE,
};
use crate::protocol::{Config, Ctx, Message, ParamReader, Params, Protocol, View, CANDIDATE, FOLLOWER, LEADER};
use crate::run;
use crate::{NodeId, Time};

pub const ALGORITHM: Algorithm = Algorithm {
    id: "lelann",
    title: k::LELANN_TITLE,
    citation: "G. LeLann, Distributed systems — towards a formal approach, IFIP Congress 1977",
    summary: k::LELANN_SUMMARY,
    card: k::LELANN_CARD,
    topology: Topology::Ring,
    kinds: KINDS,
    roles: &[LEADER_ROLE, FOLLOWER_ROLE, CANDIDATE_ROLE],
    formulas: &[Formula::new("N²", k::LELANN_FORMULA_1, &["ELECTION"], |n| n * n)],
    properties: &[single_leader(Faults::CrashStop)],
    presets: &[Preset {
        id: "lelann-all",
        title: k::LELANN_PRESET_LELANN_ALL_TITLE,
        hint: k::LELANN_PRESET_LELANN_ALL_HINT,
        json: r#"{"algorithm":"lelann","nodes":[80,6,12,5,32,3],"seed":425,
                  "schedule":[{"at":0,"start":80},{"at":0,"start":6},{"at":0,"start":12},{"at":0,"start":5},{"at":0,"start":32},{"at":0,"start":3}]}"#,
        leaders: &[80],
        // Pins LeLann's N² = 36 ELECTION messages with every node starting.
        golden: "f84d622579460986",
    }],
    build: run::build::<LeLann>,
};

// Narration: one sentence per rule, in both languages. `{0}` is the acting node.

#[derive(Clone, Debug)]
pub struct LeLann {
    /// Ticks after which an unfinished election starts a new round (with heartbeats only).
    retry: Time,
}

#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct State {
    pub me: NodeId,
    /// This node's election number; its ids carry it.
    pub round: u64,
    /// Taking part in an election that has not decided yet.
    pub electing: bool,
    /// Ids seen in the current election, ascending (its own included).
    pub seen: Vec<NodeId>,
    pub leader: Option<NodeId>,
}

#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum Msg {
    Election { id: NodeId, round: u64 },
    Heartbeat,
}

kinds! {
    Msg;
    Msg::Election { .. } => Kind::new("ELECTION", "E", Visual::Request, k::LELANN_KIND_ELECTION),
    Msg::Heartbeat => Kind::new("HEARTBEAT", "hb", Visual::Heartbeat, k::COMMON_KIND_HEARTBEAT_2),
}

impl Message for Msg {
    fn label(&self) -> String {
        match self {
            Msg::Election { id, .. } => format!("ELECTION({id})"),
            Msg::Heartbeat => "HEARTBEAT".into(),
        }
    }
}

pub use crate::timers::RingTimer as Timer;

type C<'a> = Ctx<'a, Msg, Timer>;

impl LeLann {
    /// Starts (or joins) election round `round`: sends its own id first.
    fn begin(&self, s: &mut State, ctx: &mut C, round: u64) {
        s.round = round;
        s.electing = true;
        s.seen = vec![ctx.me];
        s.leader = None;
        ctx.cancel_timer(Timer::LeaderTimeout);
        ctx.cancel_timer(Timer::Heartbeat);
        let succ = ctx.cfg.successor(ctx.me);
        ctx.send(succ, Msg::Election { id: ctx.me, round: s.round });
        if ctx.cfg.heartbeats.is_some() {
            ctx.set_timer_after(Timer::Retry, self.retry);
        }
    }

    fn decide(&self, s: &mut State, ctx: &mut C) {
        s.electing = false;
        ctx.cancel_timer(Timer::Retry);
        s.leader = s.seen.last().copied();
        if s.leader == Some(ctx.me) {
            ctx.arm_heartbeat(Timer::Heartbeat);
        } else {
            ctx.watch_leader(Timer::LeaderTimeout, s.leader);
        }
    }
}

impl Protocol for LeLann {
    type State = State;
    type Msg = Msg;
    type Timer = Timer;
    const VIEW_FIELDS: &'static [&'static str] = &["leader"];

    fn new(cfg: &Config, params: &Params) -> Result<Self, ScenarioError> {
        ParamReader::new(params, &[])?;
        let retry = 3 * cfg.n() as Time * cfg.latency.1 + cfg.heartbeats.map_or(0, |h| h.timeout);
        Ok(LeLann { retry })
    }

    fn init(&self, ctx: &mut C) -> State {
        let mut s = State { me: ctx.me, round: 0, electing: false, seen: vec![], leader: ctx.cfg.initial_leader };
        if ctx.begin_heartbeats(Timer::Heartbeat, Timer::LeaderTimeout, s.leader) {
            self.begin(&mut s, ctx, 1);
        }
        s
    }

    fn start(&self, s: &mut State, ctx: &mut C) {
        if !s.electing {
            ctx.note(k::lelann_note_start(ctx.me, ctx.cfg.successor(ctx.me)));
            self.begin(s, ctx, s.round + 1);
        } else {
            ctx.note(k::lelann_note_start_busy(ctx.me));
        }
    }

    fn on_message(&self, s: &mut State, from: NodeId, msg: Msg, ctx: &mut C) {
        let me = ctx.me;
        match msg {
            Msg::Election { id, round } if id == ctx.me => {
                // Its own id came back: every other id has passed (FIFO). An old round's copy
                // is dropped.
                if s.electing && round == s.round {
                    self.decide(s, ctx);
                    let (seen, n) = (s.seen.len() as u64, ctx.cfg.n() as u64);
                    let leader = s.leader.unwrap_or(0);
                    if seen == n {
                        match s.leader {
                            Some(l) if l == ctx.me => ctx.note(k::lelann_note_decide_self(me, seen)),
                            _ => ctx.note(k::lelann_note_decide(me, seen, leader)),
                        }
                    } else {
                        ctx.note(k::lelann_note_decide_part(me, seen, n));
                        match s.leader {
                            Some(l) if l == ctx.me => ctx.note(k::lelann_note_pick_self(me)),
                            _ => ctx.note(k::lelann_note_pick(me, leader)),
                        }
                    }
                } else if round != s.round {
                    ctx.note(k::lelann_note_old_round(me, round, s.round));
                } else {
                    ctx.note(k::lelann_note_done(me));
                }
            }
            Msg::Election { id, round } if round < s.round => {
                ctx.note(k::lelann_note_stale(me, id as u64, round));
            }
            Msg::Election { id, round } => {
                if round > s.round {
                    match s.leader {
                        Some(l) if l == ctx.me => ctx.note(k::lelann_note_woken_leader(me, id as u64)),
                        Some(l) => ctx.note(k::lelann_note_woken_again(me, id as u64, l)),
                        None => ctx.note(k::lelann_note_woken(me, id as u64)),
                    }
                    self.begin(s, ctx, round);
                    if let Err(at) = s.seen.binary_search(&id) {
                        s.seen.insert(at, id);
                    }
                } else {
                    if let Err(at) = s.seen.binary_search(&id) {
                        s.seen.insert(at, id);
                    }
                    ctx.note(k::lelann_note_forward(me, id as u64, s.seen.len() as u64));
                }
                let succ = ctx.cfg.successor(ctx.me);
                ctx.send(succ, Msg::Election { id, round });
            }
            Msg::Heartbeat => {
                if s.leader == Some(from) {
                    ctx.note(k::lelann_note_alive(me, from));
                    ctx.watch_leader(Timer::LeaderTimeout, s.leader);
                } else {
                    match s.leader {
                        Some(l) if l == ctx.me => ctx.note(k::common_note_beat_rival(me, from)),
                        Some(l) => ctx.note(k::common_note_beat_other(me, from, l)),
                        None => ctx.note(k::common_note_beat_no_leader(me, from)),
                    }
                }
            }
        }
    }

    fn on_timer(&self, s: &mut State, timer: Timer, ctx: &mut C) {
        match timer {
            Timer::LeaderTimeout => {
                if ctx.suspect(s.leader.filter(|_| !s.electing), k::lelann_note_suspect) {
                    self.begin(s, ctx, s.round + 1);
                }
            }
            Timer::Retry => {
                if s.electing {
                    ctx.note(k::lelann_note_retry(ctx.me, self.retry, s.round + 1));
                    s.electing = false;
                    self.begin(s, ctx, s.round + 1);
                }
            }
            Timer::Heartbeat => {
                ctx.heartbeat_if_leader(s.leader, Timer::Heartbeat, k::lelann_note_beat, Msg::Heartbeat)
            }
        }
    }

    fn recover(&self, crashed: &State, ctx: &mut C) -> State {
        let mut s = State { me: ctx.me, round: crashed.round, electing: false, seen: vec![], leader: None };
        ctx.note(k::lelann_note_recover(ctx.me, crashed.round + 1));
        self.begin(&mut s, ctx, crashed.round + 1);
        s
    }

    fn view(&self, s: &State) -> View {
        let role = if s.leader == Some(s.me) {
            LEADER
        } else if s.electing {
            CANDIDATE
        } else {
            FOLLOWER
        };
        View { role, leader: s.leader, ..View::default() }
    }

    fn inspect(&self, s: &State) -> Vec<Field> {
        let seen = s.seen.iter().map(|x| x.to_string()).collect::<Vec<_>>().join(", ");
        vec![
            Field::new("leader", k::UI_LEADER, V::node(s.leader)),
            Field::new("electing", k::INSPECT_ELECTING, V::Flag(s.electing)),
            Field::new("round", k::INSPECT_ROUND, V::num(s.round)),
            Field::new("ids_seen", k::INSPECT_IDS_SEEN, if seen.is_empty() { V::None } else { V::Text(seen) }),
        ]
    }
}

#[cfg(all(test, holds = "rings"))]
mod tests {
    use crate::protocols::testkit::{random_ring as ring, sent};
    use crate::rng::Pcg32;
    use crate::{Engine, NodeId, Scenario};
    use serde_json::json;

    fn run(algorithm: &str, ring: &[NodeId], starters: &[NodeId], seed: u64, latency: [u64; 2]) -> Engine {
        let schedule: Vec<_> = starters.iter().map(|s| json!({"at": 0, "start": s})).collect();
        let v = json!({"algorithm": algorithm, "nodes": ring, "seed": seed, "network": {"latency": latency},
                       "schedule": schedule, "stop": {"max_steps": 10_000_000u64, "max_time": 1_000_000u64}});
        let mut e = Engine::new(Scenario::from_value(&v).unwrap()).unwrap();
        e.run_to_end();
        assert!(e.quiescent(), "{algorithm} on {ring:?} did not finish");
        e
    }

    #[test]
    fn every_node_starting_costs_exactly_n_squared_and_the_maximum_leads() {
        let mut r = Pcg32::new(1977, 1);
        for n in [2usize, 3, 5, 8, 13, 21, 34, 50, 64] {
            for trial in 0..3 {
                let ids = ring(&mut r, n);
                let e = run("lelann", &ids, &ids, trial, [1, 3]);
                assert_eq!(sent(&e, "ELECTION"), (n * n) as u64, "N = {n}, ring {ids:?}");
                let max = *ids.iter().max().unwrap();
                let f = e.frame();
                assert_eq!(f.leaders, vec![max], "N = {n}");
                assert_eq!(f.agreement, Some(max), "every node computed the maximum, N = {n}");
            }
        }
    }

    #[test]
    fn one_starter_wakes_everyone_and_still_costs_n_squared() {
        let ids = [80, 6, 12, 5, 32, 3];
        let e = run("lelann", &ids, &[6], 425, [1, 1]);
        assert_eq!(sent(&e, "ELECTION"), 36);
        assert_eq!(e.frame().agreement, Some(80));
    }

    #[test]
    fn the_same_winner_as_chang_roberts_on_the_same_ring() {
        let mut r = Pcg32::new(1979, 2);
        for trial in 0..40 {
            let n = r.range_inclusive(2, 40) as usize;
            let ids = ring(&mut r, n);
            let k = r.range_inclusive(1, n as u64) as usize;
            let starters = &ids[..k];
            let a = run("lelann", &ids, starters, trial, [1, 4]);
            let b = run("chang-roberts", &ids, starters, trial, [1, 4]);
            assert_eq!(a.frame().agreement, b.frame().agreement, "ring {ids:?}, starters {starters:?}");
            assert!(sent(&a, "ELECTION") >= sent(&b, "ELECTION"), "LeLann never sends fewer ELECTION messages");
        }
    }

    #[test]
    fn the_preset_on_the_classic_ring() {
        let p = super::ALGORITHM.presets[0];
        let mut e = Engine::new(p.scenario()).unwrap();
        e.run_to_end();
        assert_eq!(sent(&e, "ELECTION"), 36);
        assert_eq!((super::ALGORITHM.formulas[0].value)(6), 36);
        assert_eq!(e.frame().agreement, Some(80));
    }
}

#[cfg(all(test, holds = "rings"))]
mod narration_tests {
    use crate::meta::Lang;
    use crate::protocols::testkit::delivery;
    use crate::{Engine, Scenario};

    #[test]
    fn a_returning_id_explains_why_the_node_knows_every_id() {
        let mut e = Engine::new(super::ALGORITHM.presets[0].scenario()).unwrap();
        e.run_to_end();
        let step = delivery(&e, 3, 80, "ELECTION(80)");
        let en = e.narrate(step, Lang::En).unwrap();
        assert!(en.starts_with("N80's own id is back and N80 has seen all 6 ids: on FIFO links"), "{en}");
        assert!(en.contains("so N80 leads"), "{en}");
        let zh = e.narrate(step, Lang::Zh).unwrap();
        assert!(zh.contains("先进先出") && zh.contains("全部 6 个 id"), "{zh}");
        let en = e.narrate(delivery(&e, 80, 6, "ELECTION(6)"), Lang::En).unwrap();
        assert!(
            en.starts_with("N6's own id is back and N6 has seen all 6 ids")
                && en.contains("N6 knows that N80, the largest, leads"),
            "{en}"
        );
        let en = e.narrate(delivery(&e, 80, 6, "ELECTION(80)"), Lang::En).unwrap();
        assert!(en.starts_with("N6 records id 80") && en.contains("N²"), "{en}");
    }

    #[test]
    fn a_node_woken_by_a_foreign_id_sends_its_own_first() {
        let v = serde_json::json!({"algorithm": "lelann", "nodes": [80, 6, 12, 5, 32, 3], "seed": 1, "schedule": [{"at": 0, "start": 6}]});
        let mut e = Engine::new(Scenario::from_value(&v).unwrap()).unwrap();
        e.run_to_end();
        let en = e.narrate(delivery(&e, 6, 12, "ELECTION(6)"), Lang::En).unwrap();
        assert!(en.starts_with("N12 is woken by ELECTION(6): it sends its own id 12 first, then passes 6 on."), "{en}");
    }
}

#[cfg(all(test, holds = "rings"))]
mod liveness_tests {
    use crate::{Engine, Scenario};
    use serde_json::json;

    /// The leader crashes and recovers: ids lost at the crashed node are sent again, so every
    /// node ends up naming the same leader.
    #[test]
    fn ids_lost_at_a_crashed_node_are_sent_again_and_everyone_agrees() {
        let v = json!({"algorithm": "lelann", "nodes": [80, 6, 12, 5, 32, 3], "seed": 1, "initial_leader": 80,
                       "heartbeats": {"interval": 3, "timeout": 12},
                       "schedule": [{"at": 100, "crash": 80}, {"at": 200, "recover": 80}], "stop": {"max_time": 800}});
        let mut e = Engine::new(Scenario::from_value(&v).unwrap()).unwrap();
        e.run_to_end();
        let f = e.frame();
        assert_eq!(
            f.agreement,
            Some(80),
            "everyone names N80 again: {:?}",
            f.nodes.iter().map(|n| (n.id, n.view.leader)).collect::<Vec<_>>()
        );
    }
}
