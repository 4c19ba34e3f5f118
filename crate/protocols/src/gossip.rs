//! **Gossip-based eventual leader election**: anti-entropy push (A. Demers, D. Greene, C. Hauser,
//! W. Irish, J. Larson, S. Shenker, H. Sturgis, D. Swinehart and D. Terry, "Epidemic Algorithms
//! for Replicated Database Maintenance", PODC 1987) of a candidate `(epoch, id)`, in the reading
//! of the eventual-leader lecture notes: candidates only grow, so every live node that keeps
//! hearing gossip ends up backing the largest one; there is no quorum, so a partition elects one
//! leader per side, by design. Leader silence is detected with a heartbeat counter carried by
//! the gossip (R. van Renesse, Y. Minsky and M. Hayden, "A Gossip-Style Failure Detection
//! Service", Middleware 1998).
//!
//! * Every node backs a candidate `(epoch, id)`, compared lexicographically (epoch first), and
//!   takes the candidate's id as its leader. It starts backing `(0, itself)`, or
//!   `(0, initial_leader)`.
//! * Every `period` ticks a node pushes GOSSIP(epoch, id, beat) to `fanout` peers. A node that
//!   receives a larger candidate adopts it; a smaller one is ignored: the candidate never goes
//!   back, which is what makes the largest one spread like an epidemic.
//! * **Heartbeat counter**: the backed node itself adds one to `beat` each period before it
//!   pushes; a node hearing its own candidate with a higher `beat` has fresh news of its leader.
//!   A node that has had no fresh news for `silence` ticks suspects its leader and stands
//!   itself: `(epoch + 1, me)`, pushed at once. The notes refresh their `hb` only when a larger
//!   candidate arrives, which would make every follower stand again after each `silence`; the
//!   counter is the gossip-style failure detector that reading needs.
//! * **Peers without randomness of its own**: a protocol may not draw random numbers, so a
//!   node's `fanout` peers for a period are a hash (splitmix64) of its id, the tick the period
//!   starts at and the draw's index, mapped to distinct other nodes. The first period starts at
//!   a random tick in `[1, period]` (a timer range, drawn by the simulator), so the ticks, and
//!   with them the peers, differ from seed to seed.
//! * `relay: true` also pushes a newly adopted candidate at once to `fanout` peers (the notes'
//!   "good news spreads on"; rumour mongering in Demers et al.); by default only the periodic push
//!   spreads it, so convergence counts in periods.
//! * Candidate and counter are kept through a crash (O(1) state); a recovered node gossips again.
//! * With `heartbeats: null` there is no failure detector: nobody stands again by itself, and
//!   `start` makes a node stand.
//!
//! How fast: with push to `k` peers, the informed set grows about `k+1`-fold per period, so the
//! largest candidate reaches everyone in about `log_{k+1} N` periods plus a tail (Pittel 1987
//! gives `log₂ N + ln N` for `k = 1`). Each period costs `k·N` messages.
//!
//! Parameters (`params`): `period` (default `heartbeats.interval`, else 4), `fanout` (default 2),
//! `silence` (default `period · (2·⌈log₂ N⌉ + 4)`, several times the spreading time of a heartbeat,
//! at least `heartbeats.timeout`), `relay` (default false).

use crate::algorithm::Algorithm;
use crate::error::ScenarioError;
use crate::field::{Field, FieldValue as V};
use crate::meta::k;
use crate::meta::{Formula, Kind, Preset, Text, Topology, Visual, FOLLOWER_ROLE, LEADER_ROLE};
use crate::protocol::{Config, Ctx, Decoration, Message, ParamReader, Params, Protocol, View, FOLLOWER, LEADER};
use crate::run;
use crate::{NodeId, Time};

#[derive(Clone, Debug)]
pub struct Gossip {
    pub period: Time,
    pub fanout: usize,
    /// No fresh news of the leader for this long makes a node stand (None: no failure detector).
    pub silence: Option<Time>,
    pub relay: bool,
}

pub const ALGORITHM: Algorithm = Algorithm {
    id: "gossip",
    title: k::GOSSIP_TITLE,
    citation: "A. Demers et al., Epidemic Algorithms for Replicated Database Maintenance, PODC 1987; R. van Renesse, Y. Minsky and M. Hayden, A Gossip-Style Failure Detection Service, Middleware 1998",
    summary: k::GOSSIP_SUMMARY,
    card: k::GOSSIP_CARD,
    topology: Topology::Complete,
    kinds: KINDS,
    roles: &[LEADER_ROLE, FOLLOWER_ROLE],
    formulas: &[Formula::new("2N·⌈log₃ N⌉", k::GOSSIP_FORMULA_1, &["GOSSIP"], |n| 2 * n * ceil_log(3, n))],
    properties: &[],
    presets: PRESETS,
    build: run::build::<Gossip>,
};

/// ⌈log_b n⌉ for n ≥ 1.
fn ceil_log(b: u64, n: u64) -> u64 {
    let (mut k, mut p) = (0, 1);
    while p < n {
        p *= b;
        k += 1;
    }
    k
}

const PRESETS: &[Preset] = &[
    Preset {
        id: "gossip-16",
        title: k::GOSSIP_PRESET_GOSSIP_16_TITLE,
        hint: k::GOSSIP_PRESET_GOSSIP_16_HINT,
        json: r#"{"algorithm":"gossip","nodes":[1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,16],"seed":16,
                  "heartbeats":{"interval":4,"timeout":12},"schedule":[{"at":40,"crash":16}],"stop":{"max_time":140}}"#,
        leaders: &[11],
        // Pins push gossip to 2 peers every 4 ticks: (0, N16) everywhere by t = 12, re-election after N16 crashes.
        golden: "48b7b2795ffdf0b6",
    },
    Preset {
        id: "split-brain-gossip",
        title: k::GOSSIP_PRESET_SPLIT_BRAIN_GOSSIP_TITLE,
        hint: k::GOSSIP_PRESET_SPLIT_BRAIN_GOSSIP_HINT,
        json: r#"{"algorithm":"gossip","nodes":[1,2,3,4,5],"seed":425,"initial_leader":5,
                  "heartbeats":{"interval":2,"timeout":10},
                  "schedule":[{"at":20,"partition":[[1,2],[3,4,5]]},{"at":150,"heal":true}],"stop":{"max_time":220}}"#,
        leaders: &[2],
        // Pins gossip split by a partition: two leaders in epoch 1, reconciled after the heal at t = 150.
        golden: "e5c00e52213d6feb",
    },
];

// Narration: one sentence per rule, in both languages. `{0}` is the acting node.

impl Gossip {
    fn from_params(cfg: &Config, params: &Params) -> Result<Self, ScenarioError> {
        let p = ParamReader::new(params, &["period", "fanout", "silence", "relay"])?;
        let period = p.ticks("period", cfg.heartbeats.map_or(4, |h| h.interval))?;
        let fanout = p.uint("fanout")?.unwrap_or(2) as usize;
        if fanout == 0 {
            return Err(ScenarioError::new("params.fanout", "must be at least 1"));
        }
        let log2 = ceil_log(2, cfg.n() as u64);
        let silence = match (p.uint("silence")?, cfg.heartbeats) {
            (Some(0), _) => return Err(ScenarioError::new("params.silence", "must be at least 1 tick")),
            (Some(t), Some(_)) => Some(t),
            (None, Some(hb)) => Some((period * (2 * log2 + 4)).max(hb.timeout)),
            (_, None) => None,
        };
        Ok(Gossip { period, fanout, silence, relay: p.flag("relay")? })
    }
}

/// splitmix64's finaliser: a well-mixed 64-bit hash.
fn mix(mut x: u64) -> u64 {
    x = (x ^ (x >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    x = (x ^ (x >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    x ^ (x >> 31)
}

/// `k` distinct peers of `me` (never `me`), drawn by hashing `(me, now, salt, j)`.
pub fn peers(cfg: &Config, me: NodeId, now: Time, salt: u64, k: usize) -> Vec<NodeId> {
    let others = cfg.n() - 1;
    let k = k.min(others);
    let mine = cfg.sorted.partition_point(|&x| x < me);
    // Indices into the others, ascending; draw j picks among the others - j not yet drawn.
    let mut taken: Vec<usize> = Vec::with_capacity(k);
    let mut out = Vec::with_capacity(k);
    for j in 0..k {
        let h = mix(mix((me as u64) << 32 ^ now) ^ (salt << 8 | j as u64));
        let mut at = (h % (others - j) as u64) as usize;
        let mut pos = 0;
        while pos < taken.len() && taken[pos] <= at {
            at += 1;
            pos += 1;
        }
        taken.insert(pos, at);
        out.push(cfg.sorted[at + (at >= mine) as usize]);
    }
    out
}

#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct State {
    pub me: NodeId,
    /// The backed candidate: (epoch, id).
    pub cand: (u64, NodeId),
    /// The candidate's heartbeat count as far as this node knows.
    pub beat: u64,
    /// Periods this node has gossiped.
    pub periods: u64,
    /// When it last had fresh news of its candidate.
    pub fresh_at: Time,
}

#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum Msg {
    Gossip { epoch: u64, id: NodeId, beat: u64 },
}

kinds! {
    Msg;
    Msg::Gossip { .. } => Kind::new(
        "GOSSIP",
        "g",
        Visual::Announcement,
        k::GOSSIP_KIND_GOSSIP,
),
}

impl Message for Msg {
    fn label(&self) -> String {
        let Msg::Gossip { epoch, id, beat } = self;
        format!("GOSSIP(e{epoch}, N{id}, ♥{beat})")
    }
}

timers! {
    Timer {
        /// The next gossip period.
        Period => "PERIOD",
        /// No fresh heartbeat count of the backed candidate for `silence` ticks.
        Silence => "SILENCE",
    }
}

type C<'a> = Ctx<'a, Msg, Timer>;

impl Gossip {
    fn push(&self, s: &State, salt: u64, ctx: &mut C) {
        let (epoch, id) = s.cand;
        for to in peers(ctx.cfg, ctx.me, ctx.now, salt, self.fanout) {
            ctx.send(to, Msg::Gossip { epoch, id, beat: s.beat });
        }
    }

    /// Fresh news of the backed candidate: watch it again (or stop watching: it is me).
    fn fresh(&self, s: &mut State, ctx: &mut C) {
        s.fresh_at = ctx.now;
        match self.silence {
            Some(t) if s.cand.1 != ctx.me => ctx.set_timer_after(Timer::Silence, t),
            _ => ctx.cancel_timer(Timer::Silence),
        }
    }

    fn stand(&self, s: &mut State, ctx: &mut C) {
        let old = s.cand.0;
        s.cand = (old + 1, ctx.me);
        s.beat = 0;
        ctx.note(k::gossip_note_stand(ctx.me, old + 1, old));
        self.fresh(s, ctx);
        self.push(s, 1, ctx);
    }

    fn boot(&self, s: &mut State, ctx: &mut C) {
        ctx.set_timer(Timer::Period, 1, self.period);
        self.fresh(s, ctx);
    }
}

/// What a node's number counts, under it on the canvas.
static EPOCH: Text = k::GOSSIP_EPOCH;

impl Protocol for Gossip {
    type State = State;
    type Msg = Msg;
    type Timer = Timer;
    const VIEW_FIELDS: &'static [&'static str] = &["leader", "term"];

    fn new(cfg: &Config, params: &Params) -> Result<Self, ScenarioError> {
        Gossip::from_params(cfg, params)
    }

    fn init(&self, ctx: &mut C) -> State {
        let cand = (0, ctx.cfg.initial_leader.unwrap_or(ctx.me));
        let mut s = State { me: ctx.me, cand, beat: 0, periods: 0, fresh_at: 0 };
        self.boot(&mut s, ctx);
        s
    }

    fn start(&self, s: &mut State, ctx: &mut C) {
        if s.cand.1 == ctx.me {
            ctx.note(k::gossip_note_start_leader(ctx.me, s.cand.0));
        } else {
            self.stand(s, ctx);
        }
    }

    fn on_message(&self, s: &mut State, _from: NodeId, msg: Msg, ctx: &mut C) {
        let Msg::Gossip { epoch, id, beat } = msg;
        let me = ctx.me;
        if (epoch, id) > s.cand {
            s.cand = (epoch, id);
            s.beat = beat;
            ctx.note(k::gossip_note_adopt(me, id, epoch));
            self.fresh(s, ctx);
            if self.relay {
                ctx.note(k::gossip_note_relay(me));
                self.push(s, 2, ctx);
            }
        } else if (epoch, id) == s.cand && beat > s.beat && id != ctx.me {
            s.beat = beat;
            ctx.note(k::gossip_note_fresh(me, id, beat));
            self.fresh(s, ctx);
        } else if (epoch, id) == s.cand {
            ctx.note(k::gossip_note_stale(me));
        } else {
            ctx.note(k::gossip_note_smaller(me, id, epoch));
        }
    }

    fn on_timer(&self, s: &mut State, timer: Timer, ctx: &mut C) {
        let me = ctx.me;
        match timer {
            Timer::Period => {
                s.periods += 1;
                if s.cand.1 == ctx.me {
                    s.beat += 1;
                    ctx.note(k::gossip_note_push_leader(me, s.cand.0, s.beat));
                } else {
                    ctx.note(k::gossip_note_push(me, s.cand.0, s.cand.1));
                }
                self.push(s, 0, ctx);
                ctx.set_timer_after(Timer::Period, self.period);
            }
            Timer::Silence => {
                ctx.note(k::gossip_note_silent(me, s.cand.1, ctx.now - s.fresh_at));
                self.stand(s, ctx);
            }
        }
    }

    fn recover(&self, crashed: &State, ctx: &mut C) -> State {
        let mut s = crashed.clone();
        ctx.note(k::gossip_note_recover(ctx.me, s.cand.1, s.cand.0));
        self.boot(&mut s, ctx);
        s
    }

    fn view(&self, s: &State) -> View {
        let role = if s.cand.1 == s.me { LEADER } else { FOLLOWER };
        View { role, leader: Some(s.cand.1), term: Some(s.cand.0), term_word: Some(&EPOCH), ..View::default() }
            .with(Decoration::Tint(s.cand.1))
    }

    fn inspect(&self, s: &State) -> Vec<Field> {
        let silence = self.silence.map_or("off".to_string(), |t| t.to_string());
        let settings = format!("{} / {} / {}", self.period, self.fanout, silence);
        vec![
            Field::new(
                "candidate",
                k::INSPECT_CANDIDATE_EPOCH_ID,
                V::worded(s.cand.0, format!("({}, N{})", s.cand.0, s.cand.1)),
            ),
            Field::new("heartbeat_count", k::INSPECT_HEARTBEAT_COUNT, V::num(s.beat)),
            Field::new("fresh_news_at", k::INSPECT_FRESH_NEWS_AT, V::worded(s.fresh_at, format!("t={}", s.fresh_at))),
            Field::new("periods_gossiped", k::INSPECT_PERIODS_GOSSIPED, V::num(s.periods)),
            Field::new("settings", k::INSPECT_PERIOD_FANOUT_SILENCE, V::text(settings)),
        ]
    }
}

#[cfg(all(test, holds = "graphs"))]
mod tests {
    use super::*;
    use crate::meta::Lang;
    use crate::protocols::testkit::run;
    use crate::protocols::testkit::{random_faults, sent, sim_of};
    use crate::rng::Pcg32;
    use crate::Engine;
    use serde_json::{json, Value};
    use std::collections::BTreeMap;

    /// Periods until every node backs (0, N) when N nodes start backing themselves: no failure
    /// detector, period 10 ticks, latency 1.
    fn periods_to_converge(n: u32, relay: bool, seed: u64) -> u64 {
        let ids: Vec<u32> = (1..=n).collect();
        let e =
            run(&json!({"algorithm": "gossip", "nodes": ids, "seed": seed, "params": {"period": 10, "relay": relay},
                            "stop": {"max_time": 300}}));
        let first = e.elections().first().unwrap_or_else(|| panic!("N = {n}, seed {seed}: no convergence"));
        assert_eq!(first.leader, n, "the largest candidate wins");
        assert_eq!(e.frame().agreement, Some(n), "and stays");
        first.to.div_ceil(10)
    }

    fn mean(v: &[u64]) -> f64 {
        v.iter().sum::<u64>() as f64 / v.len() as f64
    }

    #[test]
    fn periods_to_converge_grow_like_log_n() {
        // Measured over 40 seeds with fanout 2: 3.7, 5.5 and 7.3 periods on average for
        // N = 16, 64, 256 (log₃ N = 2.5, 3.8, 5.0, plus a tail of about ln N / 2).
        let mut means = vec![];
        for n in [16u32, 64, 256] {
            let runs: Vec<u64> = (0..40).map(|s| periods_to_converge(n, false, s)).collect();
            let m = mean(&runs);
            let log3 = (n as f64).ln() / 3f64.ln();
            assert!(m > log3 && m < log3 + (n as f64).ln() / 2.0 + 1.0, "N = {n}: {m:.2} periods on average");
            assert!(*runs.iter().max().unwrap() as f64 <= 2.0 * log3 + 2.0, "N = {n}: {runs:?}");
            means.push(m);
        }
        // Each fourfold N adds about the same number of periods (log₃ 4 + ln 4 / 2 ≈ 2): the
        // growth is logarithmic, not linear.
        for w in means.windows(2) {
            assert!((1.2..2.6).contains(&(w[1] - w[0])), "{means:?}");
        }
        // Relaying good news at once (rumour mongering) spreads it within a period or two.
        let relayed: Vec<u64> = (0..20).map(|s| periods_to_converge(64, true, s)).collect();
        assert!(mean(&relayed) + 2.0 < means[1], "{relayed:?} vs {means:?}");
    }

    #[test]
    fn each_period_costs_fanout_messages_per_node() {
        let ids: Vec<u32> = (1..=16).collect();
        let e = run(
            &json!({"algorithm": "gossip", "nodes": ids, "seed": 1, "params": {"period": 5, "fanout": 3}, "stop": {"max_time": 100}}),
        );
        // Every node's first period starts in [1, 5], then one every 5 ticks up to t = 100.
        let total = sent(&e, "GOSSIP");
        assert!((16 * 3 * 19..=16 * 3 * 20).contains(&total), "{total}");
        assert_eq!((ALGORITHM.formulas[0].value)(16), 2 * 16 * 3);
    }

    #[test]
    fn peers_are_distinct_others_and_spread_evenly() {
        let cfg = Config::new(vec![9, 4, 30, 7, 12], None, None, (1, 1));
        let mut count: BTreeMap<NodeId, u32> = BTreeMap::new();
        for now in 0..2000 {
            let p = peers(&cfg, 7, now, 0, 3);
            assert_eq!(p.len(), 3);
            assert!(!p.contains(&7) && p[0] != p[1] && p[1] != p[2] && p[0] != p[2], "{p:?}");
            assert_eq!(p, peers(&cfg, 7, now, 0, 3), "a function of (me, now, salt)");
            for x in p {
                *count.entry(x).or_default() += 1;
            }
        }
        // 6000 draws over the 4 others: about 1500 each.
        assert!(count.values().all(|&c| (1350..1650).contains(&c)), "{count:?}");
        assert_eq!(peers(&cfg, 30, 5, 0, 9).len(), 4, "a fanout above N−1 pushes to everyone else");
    }

    /// Random runs with crashes and recoveries, then a quiet stretch: every live node ends up
    /// backing the same live candidate, which backs itself, and no node's candidate ever went
    /// back (checked after every step, through crashes).
    #[test]
    fn live_connected_nodes_converge_and_candidates_never_go_back() {
        for seed in 0..150 {
            let mut r = Pcg32::new(seed, 1987);
            let n = r.range_inclusive(3, 12);
            let ids: Vec<u64> = (1..=n).map(|k| 5 * k - r.range_inclusive(0, 4)).collect();
            let (schedule, t) = random_faults(&mut r, &ids, 1..=8, 1..=30, |r, t, node| {
                let what = r.pick(&["crash", "recover", "start"]);
                Some(json!({"at": t, what: node}))
            });
            let leader = if r.range_inclusive(0, 1) == 0 { Value::Null } else { json!(ids[0]) };
            let v = json!({"algorithm": "gossip", "nodes": ids, "seed": seed, "initial_leader": leader,
                           "network": {"latency": [1, r.range_inclusive(1, 3)]}, "heartbeats": {"interval": 3, "timeout": 10},
                           "schedule": schedule, "stop": {"max_time": t + 400}});
            let mut sim = sim_of::<Gossip>(&v, ALGORITHM.properties);
            let size = n as usize;
            let mut last: Vec<(u64, NodeId)> = (0..size).map(|i| sim.state(i).cand).collect();
            while sim.step() {
                for (i, was) in last.iter_mut().enumerate() {
                    let now = sim.state(i).cand;
                    assert!(now >= *was, "seed {seed}: N{} went back from {was:?} to {now:?}", sim.state(i).me);
                    *was = now;
                }
            }
            let live: Vec<usize> = (0..size).filter(|&i| sim.is_up(i)).collect();
            if live.is_empty() {
                continue;
            }
            let c = sim.state(live[0]).cand;
            for &i in &live {
                assert_eq!(sim.state(i).cand, c, "seed {seed}: every live node backs the same candidate: {v}");
            }
            let at = live
                .iter()
                .find(|&&i| sim.state(i).me == c.1)
                .unwrap_or_else(|| panic!("seed {seed}: the leader N{} is live", c.1));
            assert_eq!(sim.state(*at).cand, c);
        }
    }

    #[test]
    fn a_partition_elects_one_leader_per_side_and_healing_leaves_one() {
        let (mut newcomers, mut larger_won) = (0, 0);
        for seed in 0..100 {
            let mut r = Pcg32::new(seed, 2000);
            let n = r.range_inclusive(4, 12);
            let ids: Vec<u64> = (1..=n).collect();
            let (a, b): (Vec<u64>, Vec<u64>) =
                ids.iter().partition(|&&x| x == 1 || x != n && r.range_inclusive(0, 1) == 0);
            let mut v = json!({"algorithm": "gossip", "nodes": ids, "seed": seed, "initial_leader": n,
                               "heartbeats": {"interval": 2, "timeout": 8},
                               "schedule": [{"at": 10, "partition": [a, b]}], "stop": {"max_time": 250}});
            let e = run(&v);
            let f = e.frame();
            // Each side agrees on one leader of its own: its candidate (epoch, id).
            let side = |members: &[u64]| -> (u64, NodeId) {
                let views: Vec<_> = f
                    .nodes
                    .iter()
                    .filter(|x| members.contains(&(x.id as u64)))
                    .map(|x| (x.view.term.unwrap(), x.view.leader.unwrap()))
                    .collect();
                assert!(views.iter().all(|c| *c == views[0]), "seed {seed}: one candidate per side: {views:?}");
                assert!(members.contains(&(views[0].1 as u64)), "seed {seed}: a leader from the same side: {views:?}");
                views[0]
            };
            let (ca, cb) = (side(&a), side(&b));
            newcomers += (cb.1 != n as NodeId) as u32;
            let mut two = vec![ca.1, cb.1];
            two.sort_unstable();
            assert_eq!(f.leaders, two, "seed {seed}: split brain, by design");
            // Healed right after: one leader everywhere, with a candidate at least the larger of
            // the two (usually that one; a node that stood just before the heal can top it).
            v["schedule"].as_array_mut().unwrap().push(json!({"at": 251, "heal": true}));
            v["stop"] = json!({"max_time": 450});
            let e = run(&v);
            let f = e.frame();
            assert_eq!(f.leaders.len(), 1, "seed {seed}");
            assert_eq!(f.agreement, Some(f.leaders[0]), "seed {seed}");
            let c = (f.nodes[0].view.term.unwrap(), f.leaders[0]);
            assert!(c >= ca.max(cb), "seed {seed}: {c:?} after {ca:?} and {cb:?}");
            larger_won += (c == ca.max(cb)) as u32;
        }
        // A small side that also holds the leader hears its heartbeat count seldom (most pushes
        // go across the cut and are lost), so it sometimes stands a new leader too: measured 14
        // times in 100. After healing, the larger candidate won in 99 of 100.
        assert!(newcomers < 20 && larger_won >= 95, "{newcomers} newcomers, larger won {larger_won} of 100");
    }

    #[test]
    fn the_split_brain_preset_narrates_the_stand_and_the_heal() {
        let p = ALGORITHM.preset("split-brain-gossip").unwrap();
        let mut e = Engine::new(p.scenario()).unwrap();
        e.run_until(149);
        assert_eq!(e.frame().leaders, vec![2, 5], "two leaders while cut off");
        e.run_to_end();
        assert_eq!(e.frame().leaders, vec![2]);
        let find = |needle: &str| {
            (1..=e.cursor())
                .find(|&s| e.narrate(s, Lang::En).unwrap().contains(needle))
                .unwrap_or_else(|| panic!("{needle}"))
        };
        let stand = find("N2 stands itself in epoch 1");
        assert!(e
            .narrate(stand, Lang::En)
            .unwrap()
            .starts_with("N2 has had no fresh heartbeat count of N5 for 20 ticks"));
        assert!(e.narrate(stand, Lang::Zh).unwrap().contains("推举自己"));
        let adopt = find("N5 adopts the larger candidate N2 of epoch 1");
        assert!(e.step_info(adopt).unwrap().time > 150);
    }
}
