//! **DHT-based election**: consistent hashing on a ring, as in I. Stoica, R. Morris, D. Karger,
//! M. F. Kaashoek and H. Balakrishnan, "Chord: A Scalable Peer-to-peer Lookup Service for
//! Internet Applications", ACM SIGCOMM 2001.
//!
//! Every node id and one election key are hashed onto the same ring of 2^32 positions. The
//! leader is the node responsible for the key: nobody votes, each node looks the key up in its
//! own membership view and names the node it finds. A node believes it leads when it finds
//! itself. The readings this module chose:
//!
//! * **"Closest to the key"** is Chord's `successor(key)`: the first node at or clockwise after
//!   the key's position (ties, which need two equal 32-bit hashes, go to the lower id). When it
//!   fails, the "next closest" is the next node clockwise. A plain numeric distance |node − key|
//!   would not wrap round the ring and would give no natural next node.
//! * **The hash** is the finalizer of SplitMix64 (G. L. Steele, D. Lea and C. H. Flood, "Fast
//!   splittable pseudorandom number generators", OOPSLA 2014) applied to the id, keeping the top
//!   32 bits. A string key is first folded to 64 bits by FNV-1a over its UTF-8 bytes; a numeric
//!   key `k` is hashed like the id `k`, so `"key": 5` lands exactly on N5.
//! * **Lookups are local** (a one-hop DHT): every node keeps the whole membership, so a lookup
//!   sends nothing, where Chord routes it through O(log N) fingers. The membership view is kept
//!   by heartbeats: every node sends HEARTBEAT to all every `heartbeats.interval`; a node drops
//!   a peer it has not heard for `heartbeats.timeout` and puts it back at its next heartbeat.
//!   A failure therefore costs no election message at all; the steady cost is N(N−1)
//!   heartbeats per interval.
//! * **What it claims.** The answer is a function of the view, so nodes with the same view
//!   agree. On a synchronous network that never partitions, with a timeout above the interval
//!   plus the largest latency, no live node is ever dropped: every view holds every live node,
//!   and two live nodes cannot each be the other's successor — at most one leads (single
//!   leader, crash-stop). A partition makes each side drop the other, and each side's view finds
//!   its own successor: split brain by design, until heartbeats cross again after healing.
//! * With `heartbeats: null` views never change: the leader is the key's successor among all
//!   configured nodes, crashed or not.
//! * `initial_leader` is ignored: the key decides. `start` makes a node announce itself at once
//!   (a heartbeat to all) and say what its lookup finds.
//! * All state is volatile. A recovered node starts, like a booting one, from the configured
//!   membership, sends a heartbeat at once, and drops whoever stays silent.
//!
//! Parameters (`params`): `key` (a string or a number, default `"leader"`).

use crate::algorithm::Algorithm;
use crate::error::ScenarioError;
use crate::field::{Field, FieldValue as V};
use crate::meta::k;
use crate::meta::{single_leader, Faults, Formula, Kind, Preset, Topology, Visual, FOLLOWER_ROLE, LEADER_ROLE};
use crate::protocol::{Config, Ctx, Decoration, Message, ParamReader, Params, Protocol, View, FOLLOWER, LEADER};
use crate::run;
use crate::NodeId;
use serde_json::Value;

#[derive(Clone, Debug)]
pub struct Dht {
    /// The key's position on the ring.
    pub key: u32,
}

/// The finalizer of SplitMix64: a fixed bijective mix of 64 bits.
pub fn mix64(x: u64) -> u64 {
    let mut z = x.wrapping_add(0x9e37_79b9_7f4a_7c15);
    z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    z ^ (z >> 31)
}

/// A node's (or a numeric key's) position on the ring: the top 32 bits of its mixed id.
pub fn position(id: u64) -> u32 {
    (mix64(id) >> 32) as u32
}

/// A string key's position: FNV-1a over its bytes, then the same mix.
pub fn key_position(key: &str) -> u32 {
    let h = crate::fnv::fnv1a_64(key.as_bytes());
    (mix64(h) >> 32) as u32
}

/// Chord's `successor(key)` among `members`: the first at or clockwise after the key.
pub fn successor(key: u32, members: impl IntoIterator<Item = NodeId>) -> Option<NodeId> {
    members.into_iter().min_by_key(|&id| (position(id as u64).wrapping_sub(key), id))
}

pub const ALGORITHM: Algorithm = Algorithm {
    id: "dht",
    title: k::DHT_TITLE,
    citation: "I. Stoica, R. Morris, D. Karger, M. F. Kaashoek and H. Balakrishnan, Chord: A Scalable Peer-to-peer Lookup Service for Internet Applications, ACM SIGCOMM 2001",
    summary: k::DHT_SUMMARY,
    card: k::DHT_CARD,
    topology: Topology::Complete,
    kinds: KINDS,
    roles: &[LEADER_ROLE, FOLLOWER_ROLE],
    formulas: &[Formula::new("N(N−1)", k::DHT_FORMULA_1, &["HEARTBEAT"], |n| n * n.saturating_sub(1))],
    properties: &[single_leader(Faults::CrashStop)],
    presets: PRESETS,
    build: run::build::<Dht>,
};

const PRESETS: &[Preset] = &[
    Preset {
        id: "dht-crash",
        title: k::DHT_PRESET_DHT_CRASH_TITLE,
        hint: k::DHT_PRESET_DHT_CRASH_HINT,
        json: r#"{"algorithm":"dht","nodes":[1,2,3,4,5,6],"seed":425,"params":{"key":"lock"},
                  "heartbeats":{"interval":3,"timeout":10},"schedule":[{"at":30,"crash":6}],"stop":{"max_time":80}}"#,
        leaders: &[3],
        // Pins consistent-hash leadership of key 'lock': N6 leads, then N3 after N6's crash ages out of the views.
        golden: "cc632e5d3cbd36f5",
    },
    Preset {
        id: "dht-split-brain",
        title: k::DHT_PRESET_DHT_SPLIT_BRAIN_TITLE,
        hint: k::DHT_PRESET_DHT_SPLIT_BRAIN_HINT,
        json: r#"{"algorithm":"dht","nodes":[1,2,3,4,5],"seed":425,"params":{"key":"election"},
                  "heartbeats":{"interval":2,"timeout":10},
                  "schedule":[{"at":20,"partition":[[1,2],[3,4,5]]},{"at":80,"heal":true}],"stop":{"max_time":120}}"#,
        leaders: &[5],
        // Pins views split by a partition give key 'election' two owners (N5 and N1), by design.
        golden: "6df1fe5cdc3ef0b9",
    },
];

// Narration: one sentence per rule, in both languages. `{0}` is the acting node.

#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct State {
    pub me: NodeId,
    /// The membership view: nodes believed alive, itself included, ascending.
    pub view: Vec<NodeId>,
    /// The key's successor in `view`.
    pub leader: NodeId,
}

#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum Msg {
    Heartbeat,
}

kinds! {
    Msg;
    Msg::Heartbeat => Kind::new("HEARTBEAT", "hb", Visual::Heartbeat, k::DHT_KIND_HEARTBEAT),
}

impl Message for Msg {
    fn label(&self) -> String {
        KINDS[0].name.to_string()
    }
}

timers! {
    Timer {
        /// The periodic HEARTBEAT broadcast.
        Heartbeat => "HEARTBEAT",
        /// No heartbeat from this peer for `heartbeats.timeout`.
        Silent(NodeId) => "PEER_TIMEOUT",
    }
}

type C<'a> = Ctx<'a, Msg, Timer>;

impl Dht {
    /// A node that takes every configured node for alive, watching each peer.
    fn boot(&self, ctx: &mut C) -> State {
        let view = ctx.cfg.sorted.clone();
        let leader = successor(self.key, view.iter().copied()).expect("at least one node");
        if let Some(hb) = ctx.cfg.heartbeats {
            let me = ctx.me;
            for &p in ctx.cfg.sorted.iter().filter(|&&p| p != me) {
                ctx.set_timer_after(Timer::Silent(p), hb.timeout);
            }
        }
        State { me: ctx.me, view, leader }
    }

    fn beat(&self, ctx: &mut C) {
        ctx.broadcast(Msg::Heartbeat);
        ctx.arm_heartbeat(Timer::Heartbeat);
    }

    /// Looks the key up again after the view changed, and says whether the answer moved.
    fn lookup(&self, s: &mut State, ctx: &mut C) {
        let found = successor(self.key, s.view.iter().copied()).expect("a view holds its own node");
        let me = ctx.me;
        if found == s.leader {
            ctx.note(k::dht_note_same(me, found));
        } else if found == ctx.me {
            ctx.note(k::dht_note_now_self(me));
        } else {
            ctx.note(k::dht_note_now_other(me, found));
        }
        s.leader = found;
    }
}

impl Protocol for Dht {
    type State = State;
    type Msg = Msg;
    type Timer = Timer;
    const VIEW_FIELDS: &'static [&'static str] = &["leader"];

    fn new(_cfg: &Config, params: &Params) -> Result<Self, ScenarioError> {
        let p = ParamReader::new(params, &["key"])?;
        let key = match p.value("key") {
            None => key_position("leader"),
            Some(Value::String(k)) => key_position(k),
            Some(Value::Number(n)) => match n.as_u64() {
                Some(k) => position(k),
                None => return Err(ScenarioError::new("params.key", "a numeric key must be a whole number from 0 up")),
            },
            Some(_) => return Err(ScenarioError::new("params.key", "must be a string or a number")),
        };
        Ok(Dht { key })
    }

    fn init(&self, ctx: &mut C) -> State {
        let s = self.boot(ctx);
        if let Some(hb) = ctx.cfg.heartbeats {
            // The first heartbeat at a random phase, so that the nodes do not beat in step.
            ctx.set_timer(Timer::Heartbeat, 1, hb.interval);
        }
        s
    }

    fn start(&self, s: &mut State, ctx: &mut C) {
        ctx.note(k::dht_note_start(ctx.me, s.view.len() as u64, s.leader));
        self.beat(ctx);
    }

    fn on_message(&self, s: &mut State, from: NodeId, msg: Msg, ctx: &mut C) {
        let Msg::Heartbeat = msg;
        if let Some(hb) = ctx.cfg.heartbeats {
            ctx.set_timer_after(Timer::Silent(from), hb.timeout);
        }
        match s.view.binary_search(&from) {
            Ok(_) => ctx.note(k::dht_note_alive(ctx.me, from)),
            Err(at) => {
                s.view.insert(at, from);
                ctx.note(k::dht_note_back(ctx.me, from, s.view.len() as u64));
                self.lookup(s, ctx);
            }
        }
    }

    fn on_timer(&self, s: &mut State, timer: Timer, ctx: &mut C) {
        match timer {
            Timer::Heartbeat => {
                ctx.note(k::dht_note_beat(ctx.me));
                self.beat(ctx);
            }
            Timer::Silent(p) => {
                if let Ok(at) = s.view.binary_search(&p) {
                    s.view.remove(at);
                    ctx.note(k::dht_note_drop(ctx.me, p, ctx.cfg.heartbeats.map_or(0, |h| h.timeout)));
                    self.lookup(s, ctx);
                }
            }
        }
    }

    fn recover(&self, _crashed: &State, ctx: &mut C) -> State {
        let s = self.boot(ctx);
        ctx.note(k::dht_note_recover(ctx.me, s.leader));
        self.beat(ctx);
        s
    }

    fn view(&self, s: &State) -> View {
        let role = if s.leader == s.me { LEADER } else { FOLLOWER };
        View { role, leader: Some(s.leader), ..View::default() }
            .with(Decoration::HashRing { at: position(s.me as u64), key: self.key })
    }

    fn inspect(&self, s: &State) -> Vec<Field> {
        let at = |p: u32| V::worded(p.into(), format!("{p:#010x} ({:.1}°)", p as f64 * 360.0 / 4_294_967_296.0));
        vec![
            Field::new("ring_position", k::INSPECT_RING_POSITION, at(position(s.me as u64))),
            Field::new("key_position", k::INSPECT_KEY_POSITION, at(self.key)),
            Field::new("view", k::INSPECT_VIEW, V::Nodes(s.view.to_vec())),
            Field::new("keys_successor", k::INSPECT_KEYS_SUCCESSOR, V::Node(s.leader)),
        ]
    }
}

#[cfg(all(test, holds = "graphs"))]
mod tests {
    use super::{key_position, position, successor, Dht, State, ALGORITHM};
    use crate::meta::Lang;
    use crate::protocols::testkit::preset;
    use crate::protocols::testkit::{random_faults, random_ring as ring, random_sides, sent, sim_of};
    use crate::rng::Pcg32;
    use crate::sim::Typed;
    use crate::{Action, Engine, NodeId, Scenario};
    use serde_json::{json, Value};

    fn sim(v: &Value) -> Typed<Dht> {
        sim_of(v, ALGORITHM.properties)
    }

    fn live(s: &Typed<Dht>) -> Vec<&State> {
        (0..s.cfg.n()).filter(|&i| s.is_up(i)).map(|i| s.state(i)).collect()
    }

    /// A random key: a short word or a number.
    fn random_key(r: &mut Pcg32) -> Value {
        match r.range_inclusive(0, 2) {
            0 => json!(r.range_inclusive(0, 1000)),
            _ => json!((0..r.range_inclusive(1, 8))
                .map(|_| (b'a' + r.range_inclusive(0, 25) as u8) as char)
                .collect::<String>()),
        }
    }

    fn key_of(v: &Value) -> u32 {
        match &v["params"]["key"] {
            Value::String(k) => key_position(k),
            Value::Number(n) => position(n.as_u64().unwrap()),
            _ => key_position("leader"),
        }
    }

    #[test]
    fn the_hash_is_fixed_and_a_numeric_key_lands_on_its_node() {
        // SplitMix64's finalizer, top 32 bits: pinned, since presets and drawings depend on it.
        assert_eq!([1, 2, 3, 4, 5].map(position), [2433363436, 2539140574, 487265508, 1853088626, 1661156108]);
        assert_eq!(successor(position(4), [1, 2, 3, 4, 5]), Some(4));
        // Just past N4, the next clockwise is N1 (204.0°), not the next id.
        assert_eq!(successor(position(4) + 1, [1, 2, 3, 4, 5]), Some(1));
        // Past the last position the ring wraps round to the first.
        assert_eq!(successor(u32::MAX, [1, 2, 3, 4, 5]), Some(3));
        let e = Engine::new(
            Scenario::from_value(&json!({"algorithm": "dht", "nodes": [1, 2, 3, 4, 5], "params": {"key": 2}})).unwrap(),
        )
        .unwrap();
        assert_eq!(e.frame().leaders, vec![2]);
        let bad = Engine::new(
            Scenario::from_value(&json!({"algorithm": "dht", "nodes": [1, 2], "params": {"key": true}})).unwrap(),
        );
        assert_eq!(bad.err().unwrap().field, "params.key");
    }

    /// Whatever the faults, a node's answer is the key's successor in its own view, so two live
    /// nodes with the same view name the same leader; and after healing every view is the live
    /// set again, with one leader.
    #[test]
    fn nodes_with_the_same_view_agree() {
        let mut compared = 0u64;
        for seed in 0..60u64 {
            let mut r = Pcg32::new(seed, 2001);
            let n = r.range_inclusive(3, 8) as usize;
            let ids = ring(&mut r, n);
            let interval = r.range_inclusive(2, 4);
            let hi = r.range_inclusive(1, 3);
            let timeout = interval + 2 * hi + r.range_inclusive(1, 6);
            let (mut schedule, t) = random_faults(&mut r, &ids, 2..=6, 5..=30, |r, t, node| {
                Some(match r.range_inclusive(0, 4) {
                    0 => json!({"at": t, "crash": node}),
                    1 => json!({"at": t, "recover": node}),
                    2 => json!({"at": t, "isolate": node}),
                    3 if node != ids[0] => json!({"at": t, "cut": [node, ids[0]]}),
                    _ => json!({"at": t, "partition": random_sides(r, &ids)}),
                })
            });
            schedule.push(json!({"at": t + 5, "heal": true}));
            let end = t + 5 + timeout + 2 * interval + hi;
            let v = json!({"algorithm": "dht", "nodes": ids, "seed": seed, "params": {"key": random_key(&mut r)},
                           "network": {"latency": [1, hi], "loss": 0.02}, "heartbeats": {"interval": interval, "timeout": timeout},
                           "schedule": schedule, "stop": {"max_time": end}});
            let key = key_of(&v);
            let mut s = sim(&v);
            while s.step() {
                let nodes = live(&s);
                for a in &nodes {
                    assert!(a.view.contains(&a.me), "seed {seed}: N{} is in its own view", a.me);
                    assert_eq!(Some(a.leader), successor(key, a.view.iter().copied()), "seed {seed}");
                    for b in nodes.iter().filter(|b| b.me > a.me && b.view == a.view) {
                        assert_eq!(
                            a.leader,
                            b.leader,
                            "seed {seed} t={}: N{} and N{} share a view",
                            s.now(),
                            a.me,
                            b.me
                        );
                        compared += 1;
                    }
                }
            }
            // Healed long enough, minus the losses of the last beats: one view, the live set.
            let nodes = live(&s);
            let alive: Vec<NodeId> = nodes.iter().map(|x| x.me).collect();
            let mut alive_sorted = alive.clone();
            alive_sorted.sort_unstable();
            let want = successor(key, alive.iter().copied()).unwrap();
            let agreeing = nodes.iter().filter(|x| x.view == alive_sorted && x.leader == want).count();
            assert!(
                agreeing + 1 >= nodes.len(),
                "seed {seed}: after healing the views are the live set {alive_sorted:?}"
            );
        }
        assert!(compared > 10_000, "the check compared many pairs of equal views ({compared})");
    }

    /// Crash the leader again and again: within `timeout + latency_max` every live node names
    /// the next node clockwise from the key, and only heartbeats are ever sent.
    #[test]
    fn after_the_leader_fails_the_next_closest_leads() {
        let mut worst = 0;
        for seed in 0..100u64 {
            let mut r = Pcg32::new(seed, 2002);
            let n = r.range_inclusive(3, 9) as usize;
            let ids = ring(&mut r, n);
            let (interval, hi) = (r.range_inclusive(2, 4), r.range_inclusive(1, 3));
            let timeout = interval + hi + r.range_inclusive(1, 6);
            let v = json!({"algorithm": "dht", "nodes": ids, "seed": seed, "params": {"key": random_key(&mut r)},
                           "network": {"latency": [1, hi]}, "heartbeats": {"interval": interval, "timeout": timeout},
                           "stop": {"max_time": 100_000}});
            let key = key_of(&v);
            let mut e = Engine::new(Scenario::from_value(&v).unwrap()).unwrap();
            // The ring in clockwise order from the key: the order of succession.
            let mut order = ids.clone();
            order.sort_by_key(|&id| (position(id as u64).wrapping_sub(key), id));
            let mut t = r.range_inclusive(10, 30);
            e.run_until(t);
            assert_eq!(e.frame().leaders, vec![order[0]], "seed {seed}: the key's successor leads first");
            for k in 0..n - 1 {
                e.apply(Action::Crash(order[k])).unwrap();
                t += timeout + hi;
                e.run_until(t);
                let f = e.frame();
                assert_eq!(f.leaders, vec![order[k + 1]], "seed {seed}: after N{} the next clockwise leads", order[k]);
                assert_eq!(f.agreement, Some(order[k + 1]), "seed {seed}: every live node names it");
                let took = e.elections().last().map(|el| el.latency()).unwrap();
                assert!(took <= timeout + hi, "seed {seed}: took {took}");
                worst = worst.max(took * 100 / timeout);
                t += r.range_inclusive(0, 10);
                e.run_until(t);
            }
            assert!(e.violations().is_empty(), "seed {seed}: {:?}", e.violations());
            assert_eq!(e.metrics().total, sent(&e, "HEARTBEAT"), "seed {seed}: no election message at all");
        }
        assert!(worst > 100, "some failure was detected later than one timeout after the crash ({worst}%)");
    }

    /// The formula: with fixed latency and no fault, every interval costs N(N−1) heartbeats.
    #[test]
    fn the_steady_cost_is_n_times_n_minus_1_heartbeats_per_interval() {
        for n in [3usize, 5, 8] {
            let ids: Vec<NodeId> = (1..=n as NodeId).collect();
            let v = json!({"algorithm": "dht", "nodes": ids, "seed": 1, "heartbeats": {"interval": 4, "timeout": 13}, "stop": {"max_time": 1000}});
            let mut e = Engine::new(Scenario::from_value(&v).unwrap()).unwrap();
            e.run_until(100);
            let before = sent(&e, "HEARTBEAT");
            e.run_until(500);
            assert_eq!(sent(&e, "HEARTBEAT") - before, 100 * (ALGORITHM.formulas[0].value)(n as u64), "N = {n}");
        }
    }

    /// The course's partition {1,2} | {3,4,5} with leader 5: each side's view finds its own
    /// successor of the key (N1 and N5), and healing merges the views back to N5.
    #[test]
    fn a_partition_gives_each_side_its_own_leader_until_healing() {
        let e = preset("dht-split-brain");
        let v = e.violations();
        assert_eq!(v.len(), 1, "{v:?}");
        assert_eq!((v[0].kind, v[0].nodes.clone()), ("split-brain", vec![1, 5]));
        assert!(
            v[0].time > 20 && v[0].time <= 20 + 10 + 1,
            "the minority drops N5 one timeout after the cut: t={}",
            v[0].time
        );
        let mut e = preset("dht-split-brain");
        e.seek(0);
        e.run_until(60);
        assert_eq!(e.frame().leaders, vec![1, 5]);
        e.run_to_end();
        assert_eq!((e.frame().leaders, e.frame().agreement), (vec![5], Some(5)));
    }

    #[test]
    fn the_takeover_is_narrated_in_both_languages() {
        let e = preset("dht-crash");
        let step = (1..=e.cursor())
            .find(|&s| e.narrate(s, Lang::En).unwrap().contains("is now N3 itself"))
            .expect("N3 takes over");
        let en = e.narrate(step, Lang::En).unwrap();
        assert!(en.contains("N3 heard nothing from N6 for 10 ticks: it drops N6 from its view."), "{en}");
        let zh = e.narrate(step, Lang::Zh).unwrap();
        assert!(zh.contains("N3 已有 10 个时间单位没有收到 N6 的心跳") && zh.contains("它成为领导者"), "{zh}");
    }
}
