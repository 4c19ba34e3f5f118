use super::{Lease, ALGORITHM};
use crate::meta::Lang;
use crate::protocols::testkit::{engine, preset};
use crate::protocols::testkit::{random_faults, random_ring as ring, random_sides, sent};
use crate::rng::Pcg32;
use crate::{Action, Engine, Scenario};
use serde_json::{json, Value};

fn overlaps(e: &Engine) -> usize {
    e.violations().iter().filter(|v| v.kind == "lease-overlap").count()
}

#[test]
fn clocks_convert_in_whole_ticks() {
    let p = Lease { store: 1, ttl: 60, period: 4, margin: 2, rates: [(5, 800)].into_iter().collect() };
    assert_eq!((p.own(5, 100), p.own(2, 100)), (80, 100));
    // The first real tick at which N5's clock reads 58 is 72.5, rounded up.
    assert_eq!(p.real(5, 58), 73);
    assert_eq!(p.own(5, p.real(5, 58)), 58);
    assert_eq!(p.own(5, p.real(5, 58) - 1), 57);
}

#[test]
fn bad_parameters_name_their_field() {
    let field = |params: Value| {
        let v = json!({"algorithm": "lease", "nodes": [1, 2, 3], "params": params});
        Engine::new(Scenario::from_value(&v).unwrap()).err().map(|e| e.field)
    };
    assert_eq!(field(json!({"ttl": 10, "margin": 2, "period": 8})), Some("params.period".into()));
    assert_eq!(field(json!({"ttl": 10, "margin": 10})), Some("params.margin".into()));
    assert_eq!(field(json!({"store": 9})), Some("params.store".into()));
    assert_eq!(field(json!({"drift": {"9": 0.5}})), Some("params.drift.9".into()));
    assert_eq!(field(json!({"drift": {"2": 0}})), Some("params.drift.2".into()));
    assert_eq!(field(json!({"ttl": 10, "margin": 2, "period": 7, "drift": {"2": 1.1}})), None);
}

/// From cold, the competitors race for the free key and exactly one wins; when it crashes,
/// the key expires in the store's clock and the next create takes it over.
#[test]
fn a_race_elects_one_holder_and_a_crash_hands_the_key_over() {
    let mut takeover = Vec::new();
    for seed in 0..100u64 {
        let mut r = Pcg32::new(seed, 1989);
        let n = r.range_inclusive(3, 8) as usize;
        let ids = ring(&mut r, n);
        let hi = r.range_inclusive(1, 3);
        let (ttl, period) = (r.range_inclusive(12, 40), r.range_inclusive(2, 5));
        let v = json!({"algorithm": "lease", "nodes": ids, "seed": seed, "network": {"latency": [1, hi]},
                           "params": {"ttl": ttl, "period": period, "margin": 2}, "stop": {"max_time": 100_000}});
        let store = *ids.iter().min().unwrap();
        let mut e = engine(&v);
        e.run_until(period + 2 * hi + 1);
        let first = e.frame().leaders.clone();
        assert_eq!(first.len(), 1, "seed {seed}: one holder after one period");
        assert_ne!(first[0], store, "seed {seed}: the store never leads");
        e.run_until(period + 2 * hi + 60);
        assert_eq!(e.frame().leaders, first, "seed {seed}: the holder keeps refreshing");
        let crash = e.now();
        e.apply(Action::Crash(first[0])).unwrap();
        // The key lives at most one TTL after the last refresh; the next create comes within
        // a period, and its answer one round trip later.
        e.run_until(crash + ttl + period + 2 * hi + 1);
        let next = e.frame().leaders.clone();
        assert_eq!(next.len(), 1, "seed {seed}: a new holder");
        assert!(!next.contains(&first[0]));
        let el = e.elections().last().unwrap();
        assert_eq!(el.leader, next[0]);
        takeover.push((el.to - crash) as f64 / ttl as f64);
        assert!(e.violations().is_empty(), "seed {seed}: {:?}", e.violations());
    }
    let mean = takeover.iter().sum::<f64>() / takeover.len() as f64;
    assert!(mean > 0.7 && mean < 1.5, "a takeover takes about one TTL after the crash (mean {mean:.2} TTL)");
}

/// Without drift, and with any margin of at least a tick, leases never overlap: under
/// crashes and recoveries of any node (the store too), partitions, cuts, loss and delays.
#[test]
fn without_drift_leases_never_overlap() {
    let mut leaderships = 0;
    for seed in 0..150u64 {
        let mut r = Pcg32::new(seed, 2006);
        let n = r.range_inclusive(3, 7) as usize;
        let ids = ring(&mut r, n);
        let lo = r.range_inclusive(1, 3);
        let hi = lo + r.range_inclusive(0, 5);
        let ttl = r.range_inclusive(8, 40);
        let margin = r.range_inclusive(1, ttl / 3);
        let period = r.range_inclusive(1, ttl - margin - 1);
        let (schedule, t) = random_faults(&mut r, &ids, 2..=10, 1..=30, |r, t, node| {
            Some(match r.range_inclusive(0, 5) {
                0 | 1 => json!({"at": t, "crash": node}),
                2 => json!({"at": t, "recover": node}),
                3 => json!({"at": t, "isolate": node}),
                4 => json!({"at": t, "heal": true}),
                _ => json!({"at": t, "partition": random_sides(r, &ids)}),
            })
        });
        let first = if r.range_inclusive(0, 1) == 0 { Value::Null } else { json!(ids[0]) };
        let v = json!({"algorithm": "lease", "nodes": ids, "seed": seed, "initial_leader": first,
                           "network": {"latency": [lo, hi], "loss": 0.05, "fifo": r.range_inclusive(0, 1) == 0},
                           "params": {"store": r.pick(&ids), "ttl": ttl, "period": period, "margin": margin},
                           "schedule": schedule, "stop": {"max_time": t + 150}});
        let mut e = engine(&v);
        e.run_to_end();
        assert_eq!(overlaps(&e), 0, "seed {seed}: {v}\n{:?}", e.violations());
        leaderships += e.elections().len();
    }
    assert!(leaderships > 150, "the runs did elect and re-elect ({leaderships} elections)");
}

/// A holder whose clock runs at `r` and a store at `s`: the holder believes (ttl − margin)/r
/// real ticks, the store keeps the key ttl/s. Cut the holder off: a margin below
/// ttl·(1 − r/s) lets the next holder start while the old one still believes, one above it
/// never does.
#[test]
fn drift_beyond_the_margin_overlaps_and_a_covering_margin_does_not() {
    let e = preset("lease-drift");
    let v = &e.violations()[0];
    assert_eq!((e.violations().len(), v.kind, v.nodes.clone(), v.time), (1, "lease-overlap", vec![4, 5], 67));
    // The preset with the margin its hint names, 60 × (1 − 0.8) = 12: no overlap.
    let mut safe = ALGORITHM.preset("lease-drift").unwrap().scenario();
    safe.params.insert("margin".into(), json!(12));
    let mut safe = Engine::new(safe).unwrap();
    safe.run_to_end();
    assert_eq!((overlaps(&safe), safe.frame().leaders), (0, vec![4]));
    let (mut short, mut unsafe_runs) = (0, 0);
    let runs = 100;
    for seed in 0..runs {
        let mut r = Pcg32::new(seed, 1990);
        let n = r.range_inclusive(3, 6) as usize;
        let ids = ring(&mut r, n);
        let store = ids[0];
        let holder = ids[1];
        let ttl = r.range_inclusive(30, 80);
        let (rh, rs) = (r.range_inclusive(500, 950), r.range_inclusive(950, 1300));
        let mut drift = serde_json::Map::new();
        drift.insert(holder.to_string(), json!(rh as f64 / 1000.0));
        drift.insert(store.to_string(), json!(rs as f64 / 1000.0));
        let bound = (ttl * (rs - rh)).div_ceil(rs);
        let scenario = |margin: u64| {
            json!({"algorithm": "lease", "nodes": ids, "seed": seed, "initial_leader": holder, "network": {"latency": [1, 2]},
                       "params": {"store": store, "ttl": ttl, "period": 3, "margin": margin, "drift": drift},
                       "schedule": [{"at": 5, "isolate": holder}], "stop": {"max_time": 3 * ttl + 50}})
        };
        // One tick more than the bound covers the rounding of the clocks to whole ticks.
        let mut e = engine(&scenario(bound + 1));
        e.run_to_end();
        assert_eq!(overlaps(&e), 0, "seed {seed}: margin {} covers rates {rh}/{rs}", bound + 1);
        assert!(!e.frame().leaders.is_empty(), "seed {seed}: someone took over");
        if bound >= 8 {
            short += 1;
            let mut e = engine(&scenario(bound.saturating_sub(6).max(1)));
            e.run_to_end();
            unsafe_runs += usize::from(overlaps(&e) > 0);
        }
    }
    assert!(
        short > 50 && unsafe_runs * 10 >= short * 9,
        "a margin 6 ticks short of the drift overlapped in {unsafe_runs} of {short} runs"
    );
}

/// A store is no quorum: with the store on the minority side, the minority gets the key and
/// the majority stays leaderless; on the majority side, the majority does.
#[test]
fn only_the_side_with_the_store_can_lead() {
    let e = preset("lease-partition");
    assert_eq!(e.frame().leaders, vec![2]);
    for id in [3, 4, 5] {
        let node = e.frame().nodes.into_iter().find(|n| n.id == id).unwrap();
        // Not even N5, whose lease ran out: no answer from the store for a TTL, no leader named.
        assert!(!node.view.is_leader() && node.view.leader.is_none(), "N{id} names no leader: {:?}", node.view);
    }
    let v = json!({"algorithm": "lease", "nodes": [1, 2, 3, 4, 5], "seed": 3, "initial_leader": 2,
                       "params": {"store": 4, "ttl": 20, "period": 4, "margin": 2},
                       "schedule": [{"at": 10, "partition": [[1, 2], [3, 4, 5]]}], "stop": {"max_time": 100}});
    let mut e = engine(&v);
    e.run_to_end();
    let leaders = e.frame().leaders;
    assert!(leaders.len() == 1 && [3, 5].contains(&leaders[0]), "{leaders:?}");
    assert_eq!(overlaps(&e), 0);
}

/// The drawing's numbers: a holder's bar runs from the real time its request left to the real
/// time its own clock reaches the end, and holds ttl − margin of its own ticks.
#[test]
fn lease_bars_drain_in_each_nodes_own_clock() {
    let mut e = engine(&json!({"algorithm": "lease", "nodes": [1, 2, 3], "seed": 2, "initial_leader": 3,
                                  "params": {"ttl": 40, "period": 4, "margin": 4, "drift": {"3": 0.5}}, "stop": {"max_time": 30}}));
    let at = |e: &Engine, id: u32| e.frame().nodes.into_iter().find(|n| n.id == id).unwrap().view.lease();
    assert_eq!(at(&e, 3), Some((0, 72, 36)), "36 of N3's ticks last 72 real ticks at half speed");
    assert_eq!(at(&e, 1), Some((0, 40, 40)), "the store's key: 40 store ticks");
    e.run_to_end();
    let (from, until, ticks) = at(&e, 3).unwrap();
    assert_eq!((until - from, ticks), (72, 36));
    assert!(from > 0 && at(&e, 2).is_none());
    assert_eq!(sent(&e, "CAS"), sent(&e, "OK") + sent(&e, "FAIL") + e.metrics().in_flight);
}

#[test]
fn the_overlap_is_narrated_in_both_languages() {
    let e = preset("lease-drift");
    let step = e.violations()[0].step;
    assert_eq!(
            e.narrate(step, Lang::En).unwrap(),
            "N4's CAS succeeded: it leads for 56 ticks of its own clock (the TTL minus the margin, counted from when it sent the request)."
        );
    assert!(e.narrate(step, Lang::Zh).unwrap().contains("N4 的 CAS 成功"));
    let end =
        (step..=e.cursor()).find(|&s| e.narrate(s, Lang::En).unwrap().starts_with("N5's own clock says")).unwrap();
    assert_eq!(
        e.narrate(end, Lang::En).unwrap(),
        "N5's own clock says its lease of 58 ticks has run out: it stops leading."
    );
    assert_eq!(e.narrate(end, Lang::Zh).unwrap(), "N5 自己的时钟显示 58 个时间单位的租约已到期：它不再担任领导者。");
    assert_eq!(e.step_info(end).unwrap().time, 78);
}
