//! **Stable leader election** (M. K. Aguilera, C. Delporte-Gallet, H. Fauconnier and S. Toueg,
//! "Stable Leader Election", DISC 2001).
//!
//! Time is cut into rounds, and each round has one designated leader: round r belongs to the
//! (r mod N)-th node in id order (a rotating coordinator). The leader of the current round sends
//! OK(r) to every node every `heartbeats.interval`; a node that hears OK of its round trusts the
//! sender and restarts its timer. A node that hears no OK of its round for `heartbeats.timeout`
//! suspects that round's leader and starts round r+1: it sends START(r+1) to the leader of r+1, or
//! leads at once if that is itself. OK or START of a newer round moves the receiver to that round.
//! So the leader changes only when somebody stopped hearing it, never because a "better" node
//! shows up: unlike Bully, a recovering node with a higher id does not take over. This is the
//! paper's stability: a leader keeps its role while it is up and its messages arrive in time.
//!
//! Readings:
//! * This is the paper's basic rotating-round algorithm. After the leader crashes, a new leader is
//!   trusted by everyone within (f+1)·timeout plus three message delays, where f counts the crashed
//!   nodes met next in the rotation; the paper's refined algorithms make this a constant.
//! * OK of a newer round moves the receiver to that round and makes it trust the sender at once
//!   (the paper moves first and trusts at the next OK).
//! * Crash-recovery (the paper's processes only crash): the round is kept on disk. A recovered node
//!   trusts nobody and only *listens*: it follows the first OK of its round or a newer one, and
//!   leads only when its timer runs out or a START asks it to, never because of its id.
//! * `start` begins no round while the node trusts a leader (only a timeout replaces a leader);
//!   without a leader it repeats START to its round's leader. With `heartbeats: null` there is no
//!   timer: a round's leader sends OK once, and `start` is the suspicion the timer would raise.
//! * The demoted leader reports its demotion (property `leader-demoted`), so a run shows when a live
//!   leader was replaced — which a partition or a lossy link can cause, and a crash elsewhere cannot.

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
use crate::NodeId;

#[derive(Clone, Debug)]
pub struct StableLeader;

/// The id of the property a demoted live leader reports.
pub const LEADER_DEMOTED: &str = "leader-demoted";

pub const ALGORITHM: Algorithm = Algorithm {
    id: "stable-leader",
    title: k::STABLE_LEADER_TITLE,
    citation: "M. K. Aguilera, C. Delporte-Gallet, H. Fauconnier and S. Toueg, Stable Leader Election, DISC 2001",
    summary: k::STABLE_LEADER_SUMMARY,
    card: k::STABLE_LEADER_CARD,
    topology: Topology::Complete,
    kinds: KINDS,
    roles: &[
        LEADER_ROLE,
        FOLLOWER_ROLE,
        Role::new("waiting", Look::Waiting, k::STABLE_LEADER_ROLE_WAITING),
        Role::new("listening", Look::Participant, k::STABLE_LEADER_ROLE_LISTENING),
    ],
    formulas: &[Formula::new("N−2", k::STABLE_LEADER_FORMULA_1, &["START"], |n| n.saturating_sub(2))],
    properties: &[
        single_leader(Faults::CrashStop),
        Property {
            id: LEADER_DEMOTED,
            title: k::STABLE_LEADER_TITLE_2,
            explain: k::STABLE_LEADER_EXPLAIN,
            holds: Faults::CrashStop,
            monitor: Monitor::Reported,
        },
    ],
    presets: PRESETS,
    build: run::build::<StableLeader>,
};

const PRESETS: &[Preset] = &[
    Preset {
        id: "stable-leader-recovery",
        title: k::STABLE_LEADER_PRESET_STABLE_LEADER_RECOVERY_TITLE,
        hint: k::STABLE_LEADER_PRESET_STABLE_LEADER_RECOVERY_HINT,
        json: r#"{"algorithm":"stable-leader","nodes":[1,2,3,4,5],"seed":425,"initial_leader":5,
                  "heartbeats":{"interval":2,"timeout":10},
                  "schedule":[{"at":10,"crash":5},{"at":50,"recover":5}],"stop":{"max_time":120}}"#,
        leaders: &[1],
        // Pins round 5 to N1 after N5 crashes, and the recovered N5 following instead of taking over.
        golden: "65a85edcd5fbd4e7",
    },
    Preset {
        id: "stable-leader-two-down",
        title: k::STABLE_LEADER_PRESET_STABLE_LEADER_TWO_DOWN_TITLE,
        hint: k::STABLE_LEADER_PRESET_STABLE_LEADER_TWO_DOWN_HINT,
        json: r#"{"algorithm":"stable-leader","nodes":[1,2,3,4,5],"seed":425,"initial_leader":5,
                  "heartbeats":{"interval":2,"timeout":10},
                  "schedule":[{"at":4,"crash":1},{"at":10,"crash":5}],"stop":{"max_time":120}}"#,
        leaders: &[2],
        // Pins two leaders down: round 5's owner silent, one more timeout, round 6 to N2.
        golden: "d5553be4ac7f500e",
    },
    Preset {
        id: "split-brain-stable-leader",
        title: k::STABLE_LEADER_PRESET_SPLIT_BRAIN_STABLE_LEADER_TITLE,
        hint: k::STABLE_LEADER_PRESET_SPLIT_BRAIN_STABLE_LEADER_HINT,
        json: r#"{"algorithm":"stable-leader","nodes":[1,2,3,4,5],"seed":425,"initial_leader":5,
                  "heartbeats":{"interval":2,"timeout":10},"stop":{"max_time":300}}"#,
        leaders: &[5],
        // Pins a minority that gives round 5 to N1: two leaders, since stability is no quorum.
        golden: "c8af6e869189f358",
    },
];

// Narration: one sentence per rule, in both languages. `{0}` is the acting node.

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Msg {
    Start { round: u64 },
    Ok { round: u64 },
}

kinds! {
    Msg;
    Msg::Start { .. } => Kind::new("START", "S", Visual::Request, k::STABLE_LEADER_KIND_START),
    Msg::Ok { .. } => Kind::new("OK", "OK", Visual::Heartbeat, k::STABLE_LEADER_KIND_OK),
}

impl Message for Msg {
    fn label(&self) -> String {
        match self {
            Msg::Start { round } | Msg::Ok { round } => format!("{}(r{round})", KINDS[self.kind()].name),
        }
    }
}

timers! {
    Timer {
        /// No OK of the current round for `heartbeats.timeout`.
        Timeout => "OK_TIMEOUT",
        /// The round leader's periodic OK.
        Beat => "OK",
    }
}

#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct State {
    pub me: NodeId,
    /// Durable.
    pub round: u64,
    /// Whom this node trusts (itself when it leads).
    pub leader: Option<NodeId>,
    /// Recovered and not yet in touch with a leader.
    pub listening: bool,
}

type C<'a> = Ctx<'a, Msg, Timer>;

/// The designated leader of `round`.
fn owner(cfg: &Config, round: u64) -> NodeId {
    cfg.sorted[(round % cfg.n() as u64) as usize]
}

impl StableLeader {
    fn arm_timeout(&self, ctx: &mut C) {
        if let Some(hb) = ctx.cfg.heartbeats {
            ctx.set_timer_after(Timer::Timeout, hb.timeout);
        }
    }

    /// Leaves a leadership it held (reporting it: a live leader is being replaced).
    fn demote(&self, s: &State, ctx: &mut C) {
        if s.leader == Some(s.me) {
            ctx.cancel_timer(Timer::Beat);
            ctx.report(LEADER_DEMOTED, vec![s.me]);
        }
    }

    /// The paper's StartRound: enter round `k`, leading it if it is this node's.
    fn start_round(&self, s: &mut State, k: u64, ctx: &mut C) {
        let me = s.me;
        let o = owner(ctx.cfg, k);
        s.round = k;
        s.listening = false;
        if o == me {
            ctx.note(k::stable_leader_note_lead(me, k));
            s.leader = Some(me);
            ctx.cancel_timer(Timer::Timeout);
            ctx.broadcast(Msg::Ok { round: k });
            ctx.arm_heartbeat(Timer::Beat);
        } else {
            ctx.note(k::stable_leader_note_ask(me, k, o));
            self.demote(s, ctx);
            s.leader = None;
            ctx.send(o, Msg::Start { round: k });
            self.arm_timeout(ctx);
        }
    }
}

/// What a node's number counts, under it on the canvas.
static ROUND: Text = k::INSPECT_ROUND;

impl Protocol for StableLeader {
    type State = State;
    type Msg = Msg;
    type Timer = Timer;
    const VIEW_FIELDS: &'static [&'static str] = &["leader", "term"];

    fn new(_cfg: &Config, params: &Params) -> Result<Self, ScenarioError> {
        ParamReader::new(params, &[])?;
        Ok(StableLeader)
    }

    fn init(&self, ctx: &mut C) -> State {
        let cfg = ctx.cfg;
        let initial = cfg.initial_leader;
        let round = initial.and_then(|l| cfg.sorted.iter().position(|&x| x == l)).unwrap_or(0) as u64;
        let mut s = State { me: ctx.me, round, leader: initial, listening: false };
        if owner(cfg, round) == ctx.me {
            s.leader = Some(ctx.me);
            if initial.is_none() {
                ctx.broadcast(Msg::Ok { round });
            }
            if let Some(hb) = cfg.heartbeats {
                ctx.set_timer_after(Timer::Beat, hb.interval);
            }
        } else {
            self.arm_timeout(ctx);
        }
        s
    }

    fn start(&self, s: &mut State, ctx: &mut C) {
        let (me, r) = (s.me, s.round);
        match s.leader {
            Some(l) if l == s.me => ctx.note(k::stable_leader_note_start_leader(me, r)),
            Some(l) if ctx.cfg.heartbeats.is_none() => {
                ctx.note(k::stable_leader_note_suspect_now(me, l));
                self.start_round(s, r + 1, ctx);
            }
            Some(l) => ctx.note(k::stable_leader_note_stable(me, l)),
            None => {
                let o = owner(ctx.cfg, r);
                if o == s.me {
                    ctx.note(k::stable_leader_note_wait(me, r));
                } else {
                    ctx.note(k::stable_leader_note_nudge(me, r, o));
                    ctx.send(o, Msg::Start { round: r });
                }
            }
        }
    }

    fn on_message(&self, s: &mut State, from: NodeId, msg: Msg, ctx: &mut C) {
        let (me, peer) = (s.me, from);
        match msg {
            Msg::Ok { round } if round < s.round || (round == s.round && s.leader == Some(s.me)) => {
                ctx.note(k::stable_leader_note_ok_stale(me, peer, s.round));
            }
            Msg::Ok { round } => {
                if round > s.round {
                    let rule = if s.leader == Some(s.me) {
                        k::stable_leader_note_demoted
                    } else {
                        k::stable_leader_note_ok_newer
                    };
                    ctx.note(rule(me, round, peer));
                    self.demote(s, ctx);
                } else {
                    ctx.note(
                        (if s.leader.is_some() { k::stable_leader_note_ok } else { k::stable_leader_note_trust })(
                            me, round, peer,
                        ),
                    );
                }
                s.round = round;
                s.leader = Some(from);
                s.listening = false;
                self.arm_timeout(ctx);
            }
            Msg::Start { round } => {
                let leading = s.leader == Some(s.me);
                if round < s.round || owner(ctx.cfg, round) != s.me {
                    ctx.note(k::stable_leader_note_start_stale(me, peer, s.round));
                } else if round == s.round && leading {
                    ctx.note(k::stable_leader_note_start_dup(me, round, peer));
                } else {
                    // A newer round, or its own round while it does not lead it (recovered).
                    ctx.note(k::stable_leader_note_start_got(me, round, peer));
                    self.start_round(s, round, ctx);
                }
            }
        }
    }

    fn on_timer(&self, s: &mut State, timer: Timer, ctx: &mut C) {
        let me = s.me;
        match timer {
            Timer::Timeout => {
                if s.leader != Some(s.me) {
                    ctx.note(k::stable_leader_note_timeout(me, s.round, ctx.cfg.heartbeats.map_or(0, |h| h.timeout)));
                    self.start_round(s, s.round + 1, ctx);
                }
            }
            Timer::Beat => {
                if s.leader == Some(s.me) {
                    ctx.heartbeat(Timer::Beat, k::stable_leader_note_beat(me, s.round), Msg::Ok { round: s.round });
                }
            }
        }
    }

    fn recover(&self, crashed: &State, ctx: &mut C) -> State {
        ctx.note(k::stable_leader_note_recover(crashed.me, crashed.round));
        self.arm_timeout(ctx);
        State { me: crashed.me, round: crashed.round, leader: None, listening: true }
    }

    fn view(&self, s: &State) -> View {
        let role = match s.leader {
            Some(l) if l == s.me => LEADER,
            Some(_) => FOLLOWER,
            None if s.listening => "listening",
            None => "waiting",
        };
        View { role, leader: s.leader, term: Some(s.round), term_word: Some(&ROUND), ..View::default() }
    }

    fn inspect(&self, s: &State) -> Vec<Field> {
        vec![
            Field::new("round", k::INSPECT_ROUND, V::num(s.round)),
            Field::new("trusts", k::INSPECT_TRUSTS, V::node(s.leader)),
            Field::new("listening", k::INSPECT_LISTENING, V::Flag(s.listening)),
        ]
    }
}

#[cfg(all(test, holds = "consensus"))]
mod tests {
    use super::LEADER_DEMOTED;
    use crate::meta::Lang;
    use crate::protocols::testkit::{engine, preset_json as preset};
    use crate::protocols::testkit::{random_faults, sent};
    use crate::rng::Pcg32;
    use crate::{Action, Engine, NodeId, Scenario};
    use serde_json::{json, Value};

    #[test]
    fn a_recovering_higher_id_does_not_depose_the_leader() {
        let v = preset("stable-leader-recovery");
        let mut e = engine(&v);
        e.run_until(49);
        assert_eq!(e.frame().agreement, Some(1), "round 5 belongs to N1");
        e.run_to_end();
        assert_eq!(e.frame().leaders, vec![1], "N5 came back at t=50 and follows N1");
        assert_eq!(e.frame().agreement, Some(1));
        assert!(e.violations().is_empty(), "{:?}", e.violations());
        assert_eq!(sent(&e, "START"), 3, "N−2: N2, N3 and N4 ask N1 once");
        let back = (1..=e.cursor())
            .find(|&s| e.narrate(s, Lang::En).unwrap().starts_with("N5 hears OK of round 5 from N1"))
            .expect("N5 hears N1");
        assert!(e.narrate(back, Lang::En).unwrap().contains("moves to round 5 and trusts N1"));
        assert!(e.narrate(back, Lang::Zh).unwrap().contains("信任 N1"));
        // Bully on the same nodes and faults gives the lead back to the recovered highest id.
        let mut b = v.clone();
        b["algorithm"] = json!("bully");
        let mut bully = engine(&b);
        bully.run_to_end();
        assert_eq!(bully.frame().leaders, vec![5]);
    }

    #[test]
    fn recoveries_and_starts_never_replace_a_live_leader() {
        for seed in 0..200 {
            let mut r = Pcg32::new(seed, 91);
            let n = r.range_inclusive(3, 8) as usize;
            let ids = crate::protocols::testkit::random_ring(&mut r, n);
            let leader = r.pick(&ids);
            let interval = r.range_inclusive(1, 4);
            let timeout = interval + 2 + r.range_inclusive(1, 8);
            let (sched, t) = random_faults(&mut r, &ids, 2..=12, 1..=25, |r, t, node| {
                (node != leader).then(|| match r.range_inclusive(0, 2) {
                    0 => json!({"at": t, "crash": node}),
                    1 => json!({"at": t, "recover": node}),
                    _ => json!({"at": t, "start": node}),
                })
            });
            let v = json!({"algorithm": "stable-leader", "nodes": ids, "seed": seed, "initial_leader": leader,
                           "heartbeats": {"interval": interval, "timeout": timeout}, "schedule": sched,
                           "stop": {"max_time": t + 60}});
            let mut e = engine(&v);
            while e.step() {
                assert_eq!(e.frame().leaders, vec![leader], "seed {seed} t={}: {v}", e.now());
            }
            assert!(e.violations().is_empty(), "seed {seed}: {:?}", e.violations());
            assert_eq!(e.frame().agreement, Some(leader), "seed {seed}: every live node trusts N{leader}");
        }
    }

    #[test]
    fn a_new_leader_is_trusted_within_f_plus_one_timeouts_after_the_leader_crashes() {
        let mut worst = 0f64;
        for seed in 0..300 {
            let mut r = Pcg32::new(seed, 92);
            let n = r.range_inclusive(3, 9) as usize;
            let ids = crate::protocols::testkit::random_ring(&mut r, n);
            let mut sorted = ids.clone();
            sorted.sort_unstable();
            let at = r.range_inclusive(0, n as u64 - 1) as usize;
            let leader = sorted[at];
            // Some other nodes crash first (at least one stays up).
            let mut down: Vec<NodeId> = vec![];
            for &id in &ids {
                if id != leader && down.len() + 2 < n && r.range_inclusive(0, 2) == 0 {
                    down.push(id);
                }
            }
            let (d, interval) = (r.range_inclusive(1, 3), r.range_inclusive(1, 4));
            let timeout = interval + d + r.range_inclusive(1, 8);
            let crash_at = r.range_inclusive(5, 40);
            let mut sched: Vec<Value> = down.iter().map(|&x| json!({"at": 1, "crash": x})).collect();
            sched.push(json!({"at": crash_at, "crash": leader}));
            let v = json!({"algorithm": "stable-leader", "nodes": ids, "seed": seed, "initial_leader": leader,
                           "network": {"latency": [d, d]}, "heartbeats": {"interval": interval, "timeout": timeout},
                           "schedule": sched, "stop": {"max_time": crash_at + (n as u64 + 1) * timeout + 20}});
            let mut e = engine(&v);
            e.run_to_end();
            // Crashed owners met next in the rotation.
            let f = (1..n).take_while(|k| down.contains(&sorted[(at + k) % n])).count() as u64;
            let next = sorted[(at + f as usize + 1) % n];
            let el = e
                .elections()
                .iter()
                .find(|x| x.from >= crash_at)
                .unwrap_or_else(|| panic!("seed {seed}: no election: {v}"));
            assert_eq!(el.leader, next, "seed {seed}: the first live owner after N{leader}");
            let bound = (f + 1) * timeout + 3 * d;
            assert!(el.latency() <= bound, "seed {seed}: {} ticks > (f+1)·T + 3δ = {bound} (f = {f})", el.latency());
            assert!(el.latency() > f * timeout, "seed {seed}: each crashed owner costs a timeout");
            worst = worst.max(el.latency() as f64 / bound as f64);
            assert!(e.violations().is_empty(), "seed {seed}: {:?}", e.violations());
        }
        assert!(worst > 0.8, "the bound is nearly reached: {worst}");
    }

    #[test]
    fn start_keeps_a_trusted_leader() {
        let mut e =
            engine(&json!({"algorithm": "stable-leader", "nodes": [1, 2, 3, 4], "seed": 5, "initial_leader": 2,
                                    "heartbeats": {"interval": 2, "timeout": 9}, "schedule": [{"at": 7, "start": 4}],
                                    "stop": {"max_time": 40}}));
        e.run_to_end();
        assert_eq!(e.frame().leaders, vec![2]);
        assert_eq!(sent(&e, "START"), 0);
        let s = (1..=e.cursor())
            .find(|&s| e.step_info(s).is_some_and(|i| i.event == "fault" && i.node == 4))
            .expect("the start");
        assert!(
            e.narrate(s, Lang::En).unwrap().contains("a stable leader is kept"),
            "{}",
            e.narrate(s, Lang::En).unwrap()
        );
    }

    #[test]
    fn a_partition_splits_the_brain_and_the_heal_demotes_a_live_leader() {
        let mut e = engine(&preset("split-brain-stable-leader"));
        e.run_until(7);
        e.apply(Action::Partition { groups: vec![vec![1, 2], vec![3, 4, 5]], lines: vec![] }).unwrap();
        e.run_until(100);
        assert_eq!(e.frame().leaders, vec![1, 5], "the minority gives round 5 to N1");
        assert!(e.violations().iter().any(|v| v.kind == crate::meta::SPLIT_BRAIN));
        e.apply(Action::Heal).unwrap();
        e.run_until(140);
        assert_eq!(e.frame().leaders, vec![1], "N1's newer round wins once they hear each other");
        let demoted: Vec<_> = e.violations().iter().filter(|v| v.kind == LEADER_DEMOTED).collect();
        assert_eq!(demoted.len(), 1);
        assert_eq!(demoted[0].nodes, vec![5]);
    }

    #[test]
    fn it_takes_no_params() {
        let v = json!({"algorithm": "stable-leader", "nodes": [1, 2], "params": {"t_out": 3}});
        assert_eq!(Engine::new(Scenario::from_value(&v).unwrap()).err().map(|e| e.field), Some("params.t_out".into()));
    }
}
