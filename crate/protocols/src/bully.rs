//! **Bully** (H. Garcia-Molina, "Elections in a Distributed Computing System", IEEE Transactions
//! on Computers C-31(1), 1982).
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
//! * **COORDINATOR acceptance**: the announcement is taken when the announcer's id is not below
//!   the receiver's own id, or the receiver knows no leader (`k >= me or elected == none`).
//!   Either way the receiver leaves its election. A lower announcer is ignored by a node that
//!   knows a leader, which is the classic guard against a stale announcement.
//! * **A leader hears a lower leader** (after a partition heals, both sides' leaders
//!   heartbeat everyone): a leader that receives a COORDINATOR or a HEARTBEAT from a lower id
//!   starts an election: the classic rule (after Garcia-Molina 1982, above) that a process
//!   which hears a coordinator announcement from a lower process challenges it, since a lower
//!   process cannot rightly lead while a higher one is up. Its election reaches every higher live id, so the highest
//!   live id wins and announces itself, the lower leader accepts the announcement (`k >= me`),
//!   and the split brain a partition caused ends once the network is whole again.
//! * **Crash-recovery**: all state is volatile; a recovered process knows no leader and starts
//!   an election. A recovering process above the current leader therefore takes over, with a
//!   short window (one message latency) in which two processes believe they lead.
//! * With `heartbeats: null` nothing runs by itself: elections begin only by `start`.
//!
//! Parameters (`params`): `t_out` (WAIT_OK timeout, default `2·latency_max + 1`, the smallest
//! value above a round trip `2·d_max` plus the handling time, as Garcia-Molina's synchronous model
//! requires), `t_coord` (WAIT_COORD timeout, default
//! `3·t_out`).

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
pub struct Bully {
    pub t_out: Time,
    pub t_coord: Time,
}

pub const ALGORITHM: Algorithm = Algorithm {
    id: "bully",
    title: k::BULLY_TITLE,
    citation:
        "H. Garcia-Molina, Elections in a Distributed Computing System, IEEE Transactions on Computers C-31(1), 1982",
    summary: k::BULLY_SUMMARY,
    card: k::BULLY_CARD,
    topology: Topology::Complete,
    kinds: KINDS,
    roles: &[
        LEADER_ROLE,
        FOLLOWER_ROLE,
        CANDIDATE_ROLE,
        Role::new("waiting-coord", Look::Waiting, k::BULLY_ROLE_WAITING_COORD),
    ],
    formulas: &[Formula::new("N²−N−1", k::BULLY_FORMULA_1, &["ELECTION", "OK", "COORDINATOR"], |n| {
        (n * n).saturating_sub(n + 1)
    })],
    properties: &[single_leader(Faults::CrashStop)],
    presets: PRESETS,
    build: run::build::<Bully>,
};

const PRESETS: &[Preset] = &[
    Preset {
        id: "bully-heartbeats",
        title: k::BULLY_PRESET_BULLY_HEARTBEATS_TITLE,
        hint: k::BULLY_PRESET_BULLY_HEARTBEATS_HINT,
        json: r#"{"algorithm":"bully","nodes":[3,5,6,12,32,80],"seed":425,"initial_leader":80,
                  "heartbeats":{"interval":3,"timeout":12},"stop":{"max_time":400}}"#,
        leaders: &[80],
        // Pins N80's heartbeats (interval 3, timeout 12) keeping it the one leader to t = 400.
        golden: "92ee660160ffa382",
    },
    Preset {
        id: "bully-n3-notices",
        title: k::BULLY_PRESET_BULLY_N3_NOTICES_TITLE,
        hint: k::BULLY_PRESET_BULLY_N3_NOTICES_HINT,
        json: r#"{"algorithm":"bully","nodes":[3,5,6,12,32,80],"seed":425,"initial_leader":80,
                  "schedule":[{"at":0,"crash":80},{"at":1,"start":3}]}"#,
        leaders: &[32],
        // Pins one initiator after the top crashes: the N²−N−1 = 29 message cascade that elects N32.
        golden: "22d0ac57c2de5bd8",
    },
    Preset {
        id: "bully-worst-8",
        title: k::BULLY_PRESET_BULLY_WORST_8_TITLE,
        hint: k::BULLY_PRESET_BULLY_WORST_8_HINT,
        json: r#"{"algorithm":"bully","nodes":[1,2,3,4,5,6,7,8],"seed":425,"initial_leader":8,
                  "schedule":[{"at":0,"crash":8},{"at":0,"start":1},{"at":0,"start":2},{"at":0,"start":3},
                              {"at":0,"start":4},{"at":0,"start":5},{"at":0,"start":6},{"at":0,"start":7}]}"#,
        leaders: &[7],
        // Pins seven initiators at once: the worst case's 55 messages and N7 elected.
        golden: "568559445de310d1",
    },
    Preset {
        id: "split-brain-bully",
        title: k::BULLY_PRESET_SPLIT_BRAIN_BULLY_TITLE,
        hint: k::BULLY_PRESET_SPLIT_BRAIN_BULLY_HINT,
        json: r#"{"algorithm":"bully","nodes":[1,2,3,4,5],"seed":425,"initial_leader":5,
                  "heartbeats":{"interval":2,"timeout":10},"stop":{"max_time":300}}"#,
        leaders: &[5],
        // Pins the heartbeat timing that a drawn partition turns into two leaders (N5 alone until cut).
        golden: "cae8d0f7a94fbbc3",
    },
    Preset {
        id: "bully-heal",
        title: k::BULLY_PRESET_BULLY_HEAL_TITLE,
        hint: k::BULLY_PRESET_BULLY_HEAL_HINT,
        json: r#"{"algorithm":"bully","nodes":[1,2,3,4,5],"seed":425,"initial_leader":5,
                  "heartbeats":{"interval":2,"timeout":10},
                  "schedule":[{"at":20,"partition":[[1,2],[3,4,5]]},{"at":80,"heal":true}],
                  "stop":{"max_time":160}}"#,
        leaders: &[5],
        // Pins split brain at t = 20, then the challenge after the heal that leaves N5 alone leading.
        golden: "86990fbd0f580190",
    },
    Preset {
        id: "fencing-tokens",
        title: k::BULLY_PRESET_FENCING_TOKENS_TITLE,
        hint: k::BULLY_PRESET_FENCING_TOKENS_HINT,
        json: r#"{"algorithm":"bully","nodes":[1,2,3,4,5],"seed":425,"initial_leader":5,
                  "heartbeats":{"interval":2,"timeout":10},
                  "schedule":[{"at":5,"partition":[[1,2],[3,4,5]]}],
                  "fencing":{"writes":[{"at":3,"node":5,"value":100},{"at":60,"node":2,"value":999},{"at":80,"node":5,"value":50}]},
                  "stop":{"max_time":120}}"#,
        leaders: &[2, 5],
        // Pins writes with tokens 1 and 2 through a partition: 100 and 999 accepted, the stale 50 rejected.
        golden: "3cb5ceddd265b18b",
    },
    Preset {
        id: "split-brain-bully-fenced",
        title: k::BULLY_PRESET_SPLIT_BRAIN_BULLY_FENCED_TITLE,
        hint: k::BULLY_PRESET_SPLIT_BRAIN_BULLY_FENCED_HINT,
        json: r#"{"algorithm":"bully","nodes":[1,2,3,4,5],"seed":425,"initial_leader":5,
                  "heartbeats":{"interval":2,"timeout":10},
                  "schedule":[{"at":5,"partition":[[1,2],[3,4,5]]}],
                  "fencing":{"write_every":10},"stop":{"max_time":100}}"#,
        leaders: &[2, 5],
        // Pins periodic writes of two leaders: every write of the stale token 1 rejected.
        golden: "0d523d114a4b263b",
    },
];

// Narration: one sentence per rule, in both languages. `{0}` is the acting node.

impl Bully {
    fn from_params(cfg: &Config, params: &Params) -> Result<Self, ScenarioError> {
        let p = ParamReader::new(params, &["t_out", "t_coord"])?;
        let lat_max = cfg.latency.1;
        let t_out = p.ticks("t_out", 2 * lat_max + 1)?;
        let t_coord = p.ticks("t_coord", 3 * t_out)?;
        Ok(Bully { t_out, t_coord })
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Stage {
    Idle,
    WaitOk,
    WaitCoord,
}

#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct State {
    pub me: NodeId,
    pub elected: Option<NodeId>,
    pub in_elect: bool,
    pub stage: Stage,
    /// Who last answered this node's ELECTION with OK (for the drawing: "bullied by").
    pub bullied_by: Option<NodeId>,
}

#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum Msg {
    Election,
    Ok,
    Coordinator(NodeId),
    Heartbeat,
}

kinds! {
    Msg;
    Msg::Election => Kind::new("ELECTION", "E", Visual::Request, k::COMMON_KIND_ELECTION),
    Msg::Ok => Kind::new("OK", "OK", Visual::Answer, k::COMMON_KIND_OK),
    Msg::Coordinator(_) => Kind::new("COORDINATOR", "C", Visual::Announcement, k::BULLY_KIND_COORDINATOR),
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

pub use crate::timers::StageTimer as Timer;

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
            ctx.note(k::bully_note_top(ctx.me));
            self.become_leader(s, ctx);
            return;
        }
        ctx.note(k::bully_note_start_2(ctx.me, higher.len() as u64, self.t_out));
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

    /// This leader heard a COORDINATOR or HEARTBEAT from `lower`, a lower id that leads too: it
    /// gives up its own leadership for an election, which the highest live id wins.
    fn challenge(&self, s: &mut State, ctx: &mut C, lower: NodeId) {
        ctx.note(k::bully_note_challenge(ctx.me, lower));
        ctx.cancel_timer(Timer::Heartbeat);
        s.elected = None;
        self.start_election(s, ctx);
    }
}

impl Protocol for Bully {
    type State = State;
    type Msg = Msg;
    type Timer = Timer;
    const VIEW_FIELDS: &'static [&'static str] = &["leader"];

    fn new(cfg: &Config, params: &Params) -> Result<Self, ScenarioError> {
        Bully::from_params(cfg, params)
    }

    fn init(&self, ctx: &mut C) -> State {
        let mut s = State {
            me: ctx.me,
            elected: ctx.cfg.initial_leader,
            in_elect: false,
            stage: Stage::Idle,
            bullied_by: None,
        };
        if ctx.begin_heartbeats(Timer::Heartbeat, Timer::LeaderTimeout, s.elected) {
            // Event 2: no known leader and not electing => start an election.
            self.start_election(&mut s, ctx);
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
                        ctx.note(k::common_note_bully_leader(ctx.me, from));
                        ctx.send(from, Msg::Coordinator(ctx.me));
                    } else if !s.in_elect {
                        ctx.note(k::common_note_bully(ctx.me, from));
                        self.start_election(s, ctx);
                    } else {
                        ctx.note(k::bully_note_bully_busy(ctx.me, from));
                    }
                }
            }
            Msg::Ok => {
                if s.in_elect && s.stage == Stage::WaitOk {
                    ctx.note(k::common_note_ok(ctx.me, from));
                    s.stage = Stage::WaitCoord;
                    s.bullied_by = Some(from);
                    ctx.set_timer_after(Timer::Deadline, self.t_coord);
                } else if s.in_elect && s.bullied_by.is_none() {
                    s.bullied_by = Some(from);
                }
            }
            Msg::Coordinator(k) if k < ctx.me && s.elected == Some(ctx.me) => self.challenge(s, ctx, k),
            Msg::Heartbeat if from < ctx.me && s.elected == Some(ctx.me) => self.challenge(s, ctx, from),
            Msg::Coordinator(k) => {
                let was_leader = s.elected == Some(ctx.me);
                if k >= ctx.me || s.elected.is_none() {
                    ctx.note(k::bully_note_accept(ctx.me, k));
                    s.elected = Some(k);
                } else {
                    ctx.note(k::common_note_ignore(ctx.me, k));
                }
                s.in_elect = false;
                s.stage = Stage::Idle;
                Timer::settle(ctx, was_leader, s.elected);
            }
            Msg::Heartbeat => {
                ctx.leader_heartbeat(Timer::LeaderTimeout, s.elected, from);
            }
        }
    }

    fn on_timer(&self, s: &mut State, timer: Timer, ctx: &mut C) {
        match timer {
            Timer::Deadline => {
                if s.in_elect {
                    if s.stage == Stage::WaitOk {
                        ctx.note(k::bully_note_no_ok(ctx.me, self.t_out));
                        self.become_leader(s, ctx);
                    } else {
                        ctx.note(k::bully_note_no_coord(ctx.me, self.t_coord));
                        self.start_election(s, ctx);
                    }
                }
            }
            Timer::LeaderTimeout => {
                if ctx.suspect(s.elected, k::common_note_suspect) {
                    s.elected = None;
                    self.start_election(s, ctx);
                }
            }
            Timer::Heartbeat => {
                ctx.heartbeat_if_leader(s.elected, Timer::Heartbeat, k::common_note_beat, Msg::Heartbeat)
            }
        }
    }

    fn recover(&self, _crashed: &State, ctx: &mut C) -> State {
        let mut s = State { me: ctx.me, elected: None, in_elect: false, stage: Stage::Idle, bullied_by: None };
        ctx.note(k::common_note_recover(ctx.me));
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
        View { role, leader: s.elected, ..View::default() }
    }

    fn inspect(&self, s: &State) -> Vec<Field> {
        let stage = match s.stage {
            Stage::Idle => V::None,
            Stage::WaitOk => V::text("WAIT_OK"),
            Stage::WaitCoord => V::text("WAIT_COORD"),
        };
        vec![
            Field::new("elected", k::INSPECT_ELECTED, V::node(s.elected)),
            Field::new("in_election", k::INSPECT_IN_ELECTION, V::Flag(s.in_elect)),
            Field::new("stage", k::INSPECT_STAGE, stage),
            Field::new("bullied_by", k::INSPECT_BULLIED_BY, V::node(s.bullied_by)),
            Field::new("timeouts", k::INSPECT_T_OUT_T_COORD, V::text(format!("{} / {}", self.t_out, self.t_coord))),
        ]
    }
}

#[cfg(all(test, holds = "bully"))]
mod tests {
    use super::{Bully, ALGORITHM};
    use crate::protocols::testkit::{random_ring, sim_of};
    use crate::rng::Pcg32;
    use crate::sim::Typed;
    use serde_json::json;

    fn leaders(s: &Typed<Bully>) -> Vec<u32> {
        (0..s.cfg.n())
            .filter(|&i| s.is_up(i) && s.state(i).elected == Some(s.cfg.ids[i]))
            .map(|i| s.cfg.ids[i])
            .collect()
    }

    /// Random partitions of random clusters: each side elects its own highest id (split brain),
    /// and once the network heals the highest id challenges the lower leader it hears, wins, and
    /// everyone follows it: one leader, the highest id, named by every node.
    #[test]
    fn split_brain_ends_after_a_heal() {
        for seed in 0..120u64 {
            let mut r = Pcg32::new(seed, 1982);
            let n = r.range_inclusive(3, 9) as usize;
            let ids = random_ring(&mut r, n);
            let top = *ids.iter().max().unwrap();
            let mut side: Vec<bool> = (0..n).map(|_| r.range_inclusive(0, 1) == 0).collect();
            let t = ids.iter().position(|&x| x == top).unwrap();
            side[t] = true;
            let other = (t + 1 + r.range_inclusive(0, n as u64 - 2) as usize) % n;
            side[other] = false;
            let a: Vec<u32> = (0..n).filter(|&i| side[i]).map(|i| ids[i]).collect();
            let b: Vec<u32> = (0..n).filter(|&i| !side[i]).map(|i| ids[i]).collect();
            let hi = r.range_inclusive(1, 3);
            let (cut, heal) = (r.range_inclusive(10, 40), r.range_inclusive(100, 200));
            let v = json!({"algorithm": "bully", "nodes": ids, "seed": seed, "initial_leader": top,
                           "network": {"latency": [1, hi]}, "heartbeats": {"interval": 2, "timeout": 10},
                           "schedule": [{"at": cut, "partition": [a, b]}, {"at": heal, "heal": true}],
                           "stop": {"max_time": heal + 150}});
            let mut s: Typed<Bully> = sim_of(&v, ALGORITHM.properties);
            s.run_until(heal - 1);
            let before = leaders(&s);
            assert_eq!(before.len(), 2, "seed {seed}: a leader per side before the heal: {before:?}\n{v}");
            s.run_until(heal + 150);
            assert_eq!(leaders(&s), vec![top], "seed {seed}: one leader after the heal\n{v}");
            let names: Vec<_> = (0..n).map(|i| s.state(i).elected).collect();
            assert!(names.iter().all(|&x| x == Some(top)), "seed {seed}: everyone names N{top}: {names:?}");
        }
    }

    /// The `bully-heal` preset: split brain during the partition, one leader (N5) after the heal,
    /// and the narration names the challenge.
    #[test]
    fn the_preset_heals_to_one_leader_and_says_why() {
        let p = ALGORITHM.preset("bully-heal").unwrap();
        let mut e = crate::Engine::new(p.scenario()).unwrap();
        e.run_to_end();
        assert_eq!(e.frame().leaders, vec![5]);
        let challenged = (1..=e.cursor()).any(|k| {
            e.narrate(k, crate::meta::Lang::En)
                .is_some_and(|t| t.contains("N5 leads and hears N2 announce itself as leader"))
        });
        assert!(challenged, "the challenge is narrated");
        assert!(
            e.all_violations().iter().any(|v| v.kind == crate::observe::SPLIT_BRAIN),
            "split brain before the heal"
        );
    }
}
