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

use crate::meta::k;
use crate::algorithm::Algorithm;
use crate::error::ScenarioError;
use crate::meta::{single_leader, Faults, Formula, Kind, Look, Preset, Role, Text, Topology, Visual, FOLLOWER_ROLE, LEADER_ROLE};
use crate::protocol::{fmt_node, ParamReader, Config, Ctx, Message, Params, Protocol, TimerKey, View, FOLLOWER, LEADER};
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
    formulas: &[Formula {
        name: "2⌈N/2⌉+N−2",
        applies: k::BULLY_CANDIDATES_FORMULA_1,
        counts: &["ELECTION", "ALIVE", "COORDINATOR"],
        value: |n| (2 * n.div_ceil(2) + n).saturating_sub(2),
    }],
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
                        return Err(ScenarioError::new(format!("params.candidates[{i}]"), format!("unknown node {id}")));
                    }
                    if c[..i].contains(id) {
                        return Err(ScenarioError::new(format!("params.candidates[{i}]"), format!("duplicate id {id}")));
                    }
                }
                c.sort_unstable();
                c
            }
            None => default_candidates(cfg),
        };
        let lat_max = cfg.latency.1;
        let t_out = p.uint("t_out")?.unwrap_or(2 * lat_max + 1);
        if t_out == 0 {
            return Err(ScenarioError::new("params.t_out", "must be at least 1 tick"));
        }
        let t_coord = p.uint("t_coord")?.unwrap_or(3 * t_out);
        if t_coord == 0 {
            return Err(ScenarioError::new("params.t_coord", "must be at least 1 tick"));
        }
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

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Stage {
    Idle,
    /// Waiting its tiebreaker δ before acting.
    Delay,
    /// Sent ELECTION to the candidates; collecting ALIVE.
    Asking,
    /// Someone else is electing: waiting for COORDINATOR.
    WaitCoord,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct State {
    pub me: NodeId,
    pub elected: Option<NodeId>,
    pub stage: Stage,
    /// While asking: the highest candidate that answered ALIVE.
    pub best: Option<NodeId>,
}

#[derive(Clone, Debug, PartialEq, Eq)]
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

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Timer {
    /// The tiebreaker δ.
    Delta,
    /// The current stage's deadline (ALIVE answers, or the COORDINATOR).
    Deadline,
    /// The failure detector: no heartbeat from the leader for `heartbeats.timeout`.
    LeaderTimeout,
    /// The leader's periodic HEARTBEAT broadcast.
    Heartbeat,
}

impl TimerKey for Timer {
    fn name(&self) -> &'static str {
        match self {
            Timer::Delta => "DELTA",
            Timer::Deadline => "DEADLINE",
            Timer::LeaderTimeout => "LEADER_TIMEOUT",
            Timer::Heartbeat => "HEARTBEAT",
        }
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
        ctx.note(&k::BULLY_CANDIDATES_NOTE_WAIT, &[ctx.me as u64, delay, ctx.cfg.higher(ctx.me).len() as u64]);
        s.stage = Stage::Delay;
        ctx.set_timer_after(Timer::Delta, delay);
    }

    fn ask(&self, s: &mut State, ctx: &mut C) {
        let targets = self.targets(ctx.me);
        if targets.is_empty() {
            // The highest candidate itself (an ordinary node always has candidates to ask).
            ctx.note(&k::BULLY_CANDIDATES_NOTE_TOP, &[ctx.me as u64]);
            self.announce(s, ctx, ctx.me);
            return;
        }
        let text = if self.is_candidate(ctx.me) { &k::BULLY_CANDIDATES_NOTE_ASK_ABOVE } else { &k::BULLY_CANDIDATES_NOTE_ASK_ALL };
        ctx.note(text, &[ctx.me as u64, targets.len() as u64, self.t_out]);
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
    const KINDS: &'static [Kind] = KINDS;

    fn new(cfg: &Config, params: &Params) -> Result<Self, ScenarioError> {
        BullyCandidates::from_params(cfg, params)
    }

    fn init(&self, ctx: &mut C) -> State {
        let mut s = State { me: ctx.me, elected: ctx.cfg.initial_leader, stage: Stage::Idle, best: None };
        if let Some(hb) = ctx.cfg.heartbeats {
            match s.elected {
                Some(l) if l == ctx.me => ctx.set_timer_after(Timer::Heartbeat, hb.interval),
                Some(_) => ctx.watch_leader(Timer::LeaderTimeout, s.elected),
                None => {
                    ctx.note(&k::BULLY_CANDIDATES_NOTE_NO_LEADER, &[ctx.me as u64]);
                    self.detect(&mut s, ctx);
                }
            }
        }
        s
    }

    fn start(&self, s: &mut State, ctx: &mut C) {
        if s.elected == Some(ctx.me) {
            ctx.note(&k::COMMON_NOTE_START_LEADER, &[ctx.me as u64]);
            return;
        }
        ctx.note(&k::BULLY_CANDIDATES_NOTE_START, &[ctx.me as u64]);
        self.detect(s, ctx);
    }

    fn on_message(&self, s: &mut State, from: NodeId, msg: Msg, ctx: &mut C) {
        let who = [ctx.me as u64, from as u64];
        match msg {
            Msg::Election => {
                ctx.send(from, Msg::Alive);
                if s.elected == Some(ctx.me) {
                    ctx.note(&k::BULLY_CANDIDATES_NOTE_ALIVE_LEADER, &who);
                } else {
                    match s.stage {
                        Stage::Delay => {
                            ctx.note(&k::BULLY_CANDIDATES_NOTE_STAND_DOWN, &who);
                            self.wait_coord(s, ctx);
                        }
                        Stage::Idle => {
                            ctx.note(&k::BULLY_CANDIDATES_NOTE_ANSWER, &who);
                            self.wait_coord(s, ctx);
                        }
                        Stage::Asking | Stage::WaitCoord => ctx.note(&k::BULLY_CANDIDATES_NOTE_ANSWER_BUSY, &who),
                    }
                }
            }
            Msg::Alive => {
                if s.stage == Stage::Asking {
                    let best = s.best.map_or(from, |b| b.max(from));
                    s.best = Some(best);
                    ctx.note(&k::BULLY_CANDIDATES_NOTE_GOT_ALIVE, &[ctx.me as u64, from as u64, best as u64]);
                }
            }
            Msg::Coordinator(k) => {
                if k == ctx.me {
                    ctx.note(&k::BULLY_CANDIDATES_NOTE_CROWNED, &who);
                } else {
                    ctx.note(&k::BULLY_CANDIDATES_NOTE_ACCEPT, &[ctx.me as u64, from as u64, k as u64]);
                }
                self.settle(s, ctx, k);
            }
            Msg::Heartbeat => {
                if s.elected == Some(from) {
                    ctx.note(&k::COMMON_NOTE_ALIVE, &who);
                    ctx.watch_leader(Timer::LeaderTimeout, s.elected);
                }
            }
        }
    }

    fn on_timer(&self, s: &mut State, timer: Timer, ctx: &mut C) {
        match timer {
            Timer::Delta => {
                if s.stage == Stage::Delay {
                    ctx.note(&k::BULLY_CANDIDATES_NOTE_DELTA_UP, &[ctx.me as u64]);
                    self.ask(s, ctx);
                }
            }
            Timer::Deadline => match s.stage {
                Stage::Asking => {
                    let me_if_candidate = Some(ctx.me).filter(|&m| self.is_candidate(m));
                    match s.best.or(me_if_candidate) {
                        Some(k) if k == ctx.me => {
                            ctx.note(&k::BULLY_CANDIDATES_NOTE_ANNOUNCE_SELF, &[ctx.me as u64, self.t_out]);
                            self.announce(s, ctx, k);
                        }
                        Some(k) => {
                            ctx.note(&k::BULLY_CANDIDATES_NOTE_ANNOUNCE, &[ctx.me as u64, k as u64, self.t_out]);
                            self.announce(s, ctx, k);
                        }
                        None => {
                            ctx.note(&k::BULLY_CANDIDATES_NOTE_NONE, &[ctx.me as u64, self.t_out]);
                            s.stage = Stage::Idle;
                        }
                    }
                }
                Stage::WaitCoord => {
                    ctx.note(&k::BULLY_CANDIDATES_NOTE_NO_COORD, &[ctx.me as u64, self.t_coord]);
                    self.detect(s, ctx);
                }
                Stage::Idle | Stage::Delay => {}
            },
            Timer::LeaderTimeout => {
                if let Some(l) = s.elected.filter(|&l| l != ctx.me) {
                    ctx.note(&k::COMMON_NOTE_SUSPECT_2, &[ctx.me as u64, l as u64, ctx.cfg.heartbeats.map_or(0, |h| h.timeout)]);
                    self.detect(s, ctx);
                }
            }
            Timer::Heartbeat => {
                if s.elected == Some(ctx.me) {
                    ctx.heartbeat(Timer::Heartbeat, &k::COMMON_NOTE_BEAT, &[ctx.me as u64], Msg::Heartbeat);
                }
            }
        }
    }

    fn recover(&self, _crashed: &State, ctx: &mut C) -> State {
        let mut s = State { me: ctx.me, elected: None, stage: Stage::Idle, best: None };
        ctx.note(&k::COMMON_NOTE_RECOVER, &[ctx.me as u64]);
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
        View { role, leader: s.elected, group, ..View::default() }
    }

    fn inspect(&self, s: &State) -> Vec<(Text, String)> {
        vec![
            (k::INSPECT_ELECTED, fmt_node(s.elected)),
            (k::INSPECT_KIND, if self.is_candidate(s.me) { "candidate" } else { "ordinary" }.to_string()),
            (
                k::INSPECT_STAGE,
                match s.stage {
                    Stage::Idle => "-",
                    Stage::Delay => "waiting δ",
                    Stage::Asking => "asking the candidates",
                    Stage::WaitCoord => "WAIT_COORD",
                }
                .to_string(),
            ),
            (k::INSPECT_HIGHEST_ALIVE, fmt_node(s.best)),
            (k::INSPECT_CANDIDATES, self.candidates.iter().map(|c| format!("N{c}")).collect::<Vec<_>>().join(", ")),
            (k::INSPECT_T_OUT_T_COORD_STEP, format!("{} / {} / {}", self.t_out, self.t_coord, self.delta)),
        ]
    }
}

#[cfg(test)]
mod tests {
    use crate::protocols::testkit::{run, preset_json as preset};
    use crate::protocols::testkit::{sent};
    use crate::rng::Pcg32;
    use crate::{Engine, NodeId, Scenario};
    use serde_json::json;

    fn random_ids(r: &mut Pcg32, n: usize) -> Vec<NodeId> {
        let mut ids: Vec<NodeId> = (1..=n as NodeId * 4).collect();
        for i in (1..ids.len()).rev() {
            ids.swap(i, r.range_inclusive(0, i as u64) as usize);
        }
        ids.truncate(n);
        ids
    }

    #[test]
    fn the_figure_ordinary_n4_crowns_n2_with_ten_messages() {
        let e = run(&preset("candidates-figure"));
        // N4 asks N1, N2 and the crashed N6; N1 and N2 answer; N4 tells the five others.
        assert_eq!((sent(&e, "ELECTION"), sent(&e, "ALIVE"), sent(&e, "COORDINATOR")), (3, 2, 5));
        assert_eq!(e.metrics().total, 10);
        assert_eq!((super::ALGORITHM.formulas[0].value)(6), 10);
        assert_eq!(e.frame().leaders, vec![2]);
        assert_eq!(e.frame().agreement, Some(2));
        // N4 waited δ = 2 · (t_out + latency_max + 1) = 10 ticks: N5 and N6 rank above it.
        let bully = {
            let mut v = preset("candidates-figure");
            v["algorithm"] = json!("bully");
            v["params"] = json!({});
            run(&v)
        };
        assert_eq!(bully.frame().leaders, vec![5], "plain Bully would crown N5, an ordinary node here");
    }

    #[test]
    fn default_candidates_are_the_upper_half() {
        for (ids, want) in [(vec![1, 2, 3, 4, 5, 6], vec![4, 5, 6]), (vec![9, 3, 7, 1, 5], vec![5, 7, 9]), (vec![4], vec![4])] {
            let v = json!({"algorithm": "bully-candidates", "nodes": ids});
            let cfg = crate::protocol::Config::new(ids.clone(), None, None, (1, 1));
            assert_eq!(super::default_candidates(&cfg), want, "{v}");
        }
        // With the defaults the formula's situation: N = 8, C = 4, an ordinary node notices.
        let v = json!({"algorithm": "bully-candidates", "nodes": [1, 2, 3, 4, 5, 6, 7, 8], "initial_leader": 8,
                       "schedule": [{"at": 0, "crash": 8}, {"at": 1, "start": 2}]});
        let e = run(&v);
        assert_eq!((sent(&e, "ELECTION"), sent(&e, "ALIVE"), sent(&e, "COORDINATOR")), (4, 3, 7));
        assert_eq!(e.metrics().total, (super::ALGORITHM.formulas[0].value)(8));
        assert_eq!(e.frame().leaders, vec![7]);
    }

    #[test]
    fn the_highest_live_candidate_wins() {
        let mut r = Pcg32::new(2012, 1);
        let mut leaderless = 0;
        for trial in 0..400 {
            let n = r.range_inclusive(2, 14) as usize;
            let ids = random_ids(&mut r, n);
            let mut candidates: Vec<NodeId> = ids.iter().copied().filter(|_| r.range_inclusive(0, 2) == 0).collect();
            let max = *ids.iter().max().unwrap();
            if !candidates.contains(&max) {
                candidates.push(max);
            }
            let crashed: Vec<NodeId> = ids.iter().copied().filter(|&x| x != max && r.range_inclusive(0, 3) == 0).collect();
            let live: Vec<NodeId> = ids.iter().copied().filter(|&x| x != max && !crashed.contains(&x)).collect();
            if live.is_empty() {
                continue;
            }
            let detectors = r.range_inclusive(1, live.len().min(3) as u64);
            let mut schedule = vec![json!({"at": 0, "crash": max})];
            schedule.extend(crashed.iter().map(|c| json!({"at": 0, "crash": c})));
            for _ in 0..detectors {
                let d = live[r.range_inclusive(0, live.len() as u64 - 1) as usize];
                schedule.push(json!({"at": r.range_inclusive(1, 6), "start": d}));
            }
            let v = json!({"algorithm": "bully-candidates", "nodes": ids, "seed": trial, "initial_leader": max,
                           "network": {"latency": [1, 1 + trial % 3]}, "params": {"candidates": candidates}, "schedule": schedule});
            let e = run(&v);
            let want = candidates.iter().copied().filter(|c| live.contains(c)).max();
            let what = format!("ids {ids:?}, candidates {candidates:?}, crashed {crashed:?} and N{max}");
            assert!(e.violations().is_empty(), "{what}: {:?}", e.violations());
            match want {
                Some(w) => {
                    assert_eq!(e.frame().leaders, vec![w], "{what}");
                    assert_eq!(e.frame().agreement, Some(w), "{what}");
                }
                None => {
                    leaderless += 1;
                    assert!(e.frame().leaders.is_empty(), "{what}: no candidate is alive");
                }
            }
        }
        assert!(leaderless > 0, "the sample includes runs where every candidate is down");
    }

    /// Heartbeats; the leader crashes; every live node notices within the heartbeats' latency
    /// spread. Returns how many runs ended with exactly one announcement, and the runs.
    fn concurrent(seeds: u64, latency: [u64; 2], delta: Option<u64>) -> (u64, u64) {
        let mut r = Pcg32::new(2012, 2);
        let mut single = 0;
        for seed in 0..seeds {
            let n = r.range_inclusive(4, 10) as usize;
            let ids = random_ids(&mut r, n);
            let max = *ids.iter().max().unwrap();
            let crash_at = r.range_inclusive(20, 40);
            let params = match delta {
                Some(d) => json!({"delta": d}),
                None => json!({}),
            };
            let v = json!({"algorithm": "bully-candidates", "nodes": ids, "seed": seed, "initial_leader": max,
                           "network": {"latency": latency}, "heartbeats": {"interval": 3, "timeout": 3 + 2 * latency[1] + 6},
                           "params": params, "schedule": [{"at": crash_at, "crash": max}], "stop": {"max_time": crash_at + 400}});
            let e = run(&v);
            let mut sorted = ids.clone();
            sorted.sort_unstable();
            let want = sorted[n - 2];
            assert!(e.violations().is_empty(), "{v}: {:?}", e.violations());
            assert_eq!(e.frame().leaders, vec![want], "{v}");
            assert_eq!(e.frame().agreement, Some(want), "{v}");
            let announcements = sent(&e, "COORDINATOR") / (n as u64 - 1);
            assert!(announcements >= 1);
            if announcements == 1 {
                single += 1;
            }
        }
        (single, seeds)
    }

    /// The leader crashes; 2 to 4 live nodes notice it by themselves (`start`) at random times
    /// within `window` ticks of each other, with no heartbeats. Same counts as [`concurrent`].
    fn scattered(seeds: u64, latency: [u64; 2], window: u64, delta: Option<u64>) -> (u64, u64) {
        let mut r = Pcg32::new(2012, 3);
        let mut single = 0;
        for seed in 0..seeds {
            let n = r.range_inclusive(4, 10) as usize;
            let ids = random_ids(&mut r, n);
            let max = *ids.iter().max().unwrap();
            let mut schedule = vec![json!({"at": 0, "crash": max})];
            let mut starters: Vec<NodeId> = Vec::new();
            let k = (r.range_inclusive(2, 4) as usize).min(n - 1);
            while starters.len() < k {
                let d = ids[r.range_inclusive(0, n as u64 - 1) as usize];
                if d != max && !starters.contains(&d) {
                    starters.push(d);
                    schedule.push(json!({"at": 1 + r.range_inclusive(0, window), "start": d}));
                }
            }
            let params = match delta {
                Some(d) => json!({"delta": d}),
                None => json!({}),
            };
            let v = json!({"algorithm": "bully-candidates", "nodes": ids, "seed": seed, "initial_leader": max,
                           "network": {"latency": latency}, "params": params, "schedule": schedule});
            let e = run(&v);
            let mut sorted = ids.clone();
            sorted.sort_unstable();
            assert!(e.violations().is_empty(), "{v}: {:?}", e.violations());
            assert_eq!(e.frame().leaders, vec![sorted[n - 2]], "{v}");
            if sent(&e, "COORDINATOR") / (n as u64 - 1) == 1 {
                single += 1;
            }
        }
        (single, seeds)
    }

    #[test]
    fn concurrent_detections_usually_leave_one_announcement() {
        // Heartbeats: every live node notices within the heartbeats' latency spread.
        let (hb, runs) = concurrent(500, [1, 3], None);
        let (hb0, _) = concurrent(500, [1, 3], Some(0));
        eprintln!("heartbeats, latency [1, 3]: one announcement in {hb} of {runs} runs with the default δ, {hb0} without δ");
        assert!(hb * 100 >= runs * 95, "one announcement in only {hb} of {runs} runs");
        assert!(hb0 < hb);
        // Independent detections scattered over up to 20 ticks.
        let (sc, runs) = scattered(500, [1, 3], 20, None);
        let (sc_rtt, _) = scattered(500, [1, 3], 20, Some(7));
        let (sc0, _) = scattered(500, [1, 3], 20, Some(0));
        eprintln!("2-4 starts within 20 ticks, latency [1, 3]: one announcement in {sc} of {runs} runs (default δ step 11), {sc_rtt} with a δ step of one round trip (7), {sc0} without δ");
        assert!(sc * 100 >= runs * 85, "one announcement in only {sc} of {runs} runs");
        assert!(sc >= sc_rtt && sc_rtt >= sc0);
    }

    #[test]
    fn a_false_suspicion_re_announces_the_live_leader() {
        let v = json!({"algorithm": "bully-candidates", "nodes": [1, 2, 3, 4, 5, 6], "seed": 1, "initial_leader": 6,
                       "params": {"candidates": [1, 2, 6]}, "heartbeats": {"interval": 3, "timeout": 12},
                       "schedule": [{"at": 5, "start": 4}, {"at": 6, "start": 2}, {"at": 40, "start": 1}], "stop": {"max_time": 200}});
        let e = run(&v);
        assert!(e.violations().is_empty(), "{:?}", e.violations());
        assert_eq!(e.metrics().max_simultaneous_leaders, 1);
        assert_eq!(e.frame().leaders, vec![6]);
        assert_eq!(e.frame().agreement, Some(6));
    }

    #[test]
    fn a_recovered_candidate_ends_a_leaderless_spell() {
        // Every candidate is down: N4 finds nobody; N2 recovers, detects, and elects itself.
        let v = json!({"algorithm": "bully-candidates", "nodes": [1, 2, 3, 4, 5, 6], "seed": 1, "initial_leader": 6,
                       "params": {"candidates": [1, 2, 6]},
                       "schedule": [{"at": 0, "crash": 6}, {"at": 0, "crash": 2}, {"at": 0, "crash": 1}, {"at": 1, "start": 4},
                                    {"at": 60, "recover": 2}]});
        let mut e = Engine::new(Scenario::from_value(&v).unwrap()).unwrap();
        e.run_until(59);
        assert!(e.frame().leaders.is_empty());
        e.run_to_end();
        assert_eq!(e.frame().leaders, vec![2]);
        assert_eq!(e.frame().agreement, Some(2));
    }

    #[test]
    fn parameters_are_checked() {
        for (params, field) in [
            (json!({"candidates": []}), "params.candidates"),
            (json!({"candidates": [1, 9]}), "params.candidates[1]"),
            (json!({"candidates": [2, 2]}), "params.candidates[1]"),
            (json!({"t_out": 0}), "params.t_out"),
        ] {
            let v = json!({"algorithm": "bully-candidates", "nodes": [1, 2, 3], "params": params});
            assert_eq!(Engine::new(Scenario::from_value(&v).unwrap()).unwrap_err().field, field);
        }
    }
}
