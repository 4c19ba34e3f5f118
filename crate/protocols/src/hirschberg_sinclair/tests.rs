use super::{ceil_log2, HirschbergSinclair};
use crate::meta::k;
use crate::protocols::testkit::run_finished as run;
use crate::protocols::testkit::{random_faults, random_ring as ring, random_sides, sent, sim_of};
use crate::rng::Pcg32;
use crate::sim::Typed;
use crate::{Engine, NodeId, Scenario};
use serde_json::{json, Value};

fn scenario(ring: &[NodeId], starters: &[NodeId], seed: u64, latency: [u64; 2]) -> Value {
    let schedule: Vec<Value> = starters.iter().map(|s| json!({"at": 0, "start": s})).collect();
    json!({"algorithm": "hirschberg-sinclair", "nodes": ring, "seed": seed, "network": {"latency": latency},
               "schedule": schedule, "stop": {"max_steps": 50_000_000u64, "max_time": 10_000_000u64}})
}

fn sim(v: &Value) -> Typed<HirschbergSinclair> {
    let mut sim = sim_of(v, super::ALGORITHM.properties);
    sim.run(u64::MAX);
    sim
}

fn bound(n: usize) -> u64 {
    (super::ALGORITHM.formulas[0].value)(n as u64)
}

/// How many candidates got both replies of each phase (the survivors of phase k), from the
/// narration notes.
fn survivors(s: &Typed<HirschbergSinclair>) -> Vec<u64> {
    let mut out = Vec::new();
    for n in s.records().flat_map(|r| s.notes_of(&r)) {
        if n.text == k::HIRSCHBERG_SINCLAIR_NOTE_NEXT {
            let k = n.args()[1] as usize;
            if out.len() <= k {
                out.resize(k + 1, 0);
            }
            out[k] += 1;
        }
    }
    out
}

#[test]
fn the_formula_is_8n_times_one_plus_ceil_log2_n() {
    assert_eq!([1, 2, 3, 4, 5, 8, 9, 256].map(ceil_log2), [0, 1, 2, 2, 3, 3, 4, 8]);
    assert_eq!(bound(6), 8 * 6 * 4);
    assert_eq!(bound(256), 8 * 256 * 9);
}

#[test]
fn the_maximum_wins_with_every_node_starting_and_probes_stay_within_the_bound() {
    let mut r = Pcg32::new(1980, 1);
    let mut sizes: Vec<usize> =
        vec![1, 2, 3, 4, 5, 6, 7, 8, 9, 15, 16, 17, 31, 32, 33, 63, 64, 65, 100, 127, 128, 129, 200, 255, 256];
    for _ in 0..25 {
        sizes.push(r.range_inclusive(2, 256) as usize);
    }
    let mut worst = 0.0f64;
    for (trial, &n) in sizes.iter().enumerate() {
        let ids = ring(&mut r, n);
        let latency = if trial % 2 == 0 { [1, 1] } else { [1, 4] };
        let e = run(&scenario(&ids, &ids, trial as u64, latency));
        let max = *ids.iter().max().unwrap();
        let f = e.frame();
        assert_eq!(f.leaders, vec![max], "N = {n}");
        assert_eq!(f.agreement, Some(max), "N = {n}: every node knows the maximum");
        let pr = sent(&e, "PROBE") + sent(&e, "REPLY");
        assert!(pr <= bound(n), "N = {n}: PROBE + REPLY = {pr} > 8N(1+⌈log₂N⌉) = {}", bound(n));
        assert_eq!(sent(&e, "ELECTED"), n as u64, "ELECTED goes once round");
        assert!(e.violations().is_empty());
        worst = worst.max(pr as f64 / bound(n) as f64);
        if n == 256 || n == 64 || n == 16 {
            eprintln!(
                "N = {n:3} ({latency:?}): PROBE {} + REPLY {} = {pr}, bound {}, {:.0}%",
                sent(&e, "PROBE"),
                sent(&e, "REPLY"),
                bound(n),
                100.0 * pr as f64 / bound(n) as f64
            );
        }
    }
    eprintln!("largest share of the bound over {} rings: {:.0}%", sizes.len(), 100.0 * worst);
}

#[test]
fn survivors_of_phase_k_are_at_most_n_over_2k_plus_1_so_below_n_over_2k() {
    let mut r = Pcg32::new(1980, 2);
    let (mut steps, mut halved) = (0, 0);
    for trial in 0..80 {
        let n = r.range_inclusive(2, 256) as usize;
        let ids = ring(&mut r, n);
        let s = sim(&scenario(&ids, &ids, trial, if trial % 2 == 0 { [1, 1] } else { [1, 5] }));
        let surv = survivors(&s);
        let mut before = n as u64;
        for (k, &c) in surv.iter().enumerate() {
            let cap = n as u64 / ((1u64 << k) + 1);
            assert!(c <= cap, "N = {n}: {c} candidates survived phase {k}, more than ⌊N/(2^k+1)⌋ = {cap}; {surv:?}");
            assert!(c >= 1, "the maximum survives every phase it runs");
            steps += 1;
            if 2 * c <= before {
                halved += 1;
            }
            before = c;
        }
        // The last phase is the one whose probes go all the way round: 2^k ≥ N.
        assert!(1u64 << surv.len() >= n as u64, "N = {n}: {surv:?}");
    }
    eprintln!("the count of candidates at least halved in {halved} of {steps} phases");
}

#[test]
fn the_count_itself_need_not_halve_from_one_phase_to_the_next() {
    // Three peaks, each the largest within 3 hops: all three survive phase 0 and phase 1.
    let ids = [100, 1, 2, 3, 101, 4, 5, 6, 102, 7, 8, 9];
    let v = scenario(&ids, &ids, 1, [1, 1]);
    let s = sim(&v);
    assert_eq!(survivors(&s), vec![3, 3, 1, 1]);
    let e = run(&v);
    assert_eq!(e.frame().leaders, vec![102]);
    assert!(sent(&e, "PROBE") + sent(&e, "REPLY") <= bound(ids.len()));
}

#[test]
fn any_set_of_starters_elects_the_maximum() {
    let mut r = Pcg32::new(1980, 3);
    for trial in 0..120 {
        let n = r.range_inclusive(1, 60) as usize;
        let ids = ring(&mut r, n);
        let mut starters: Vec<NodeId> = ids.iter().copied().filter(|_| r.range_inclusive(0, 3) == 0).collect();
        if starters.is_empty() {
            starters.push(r.pick(&ids));
        }
        let e = run(&scenario(&ids, &starters, trial, [1, 3]));
        let max = *ids.iter().max().unwrap();
        assert_eq!(e.frame().leaders, vec![max], "ring {ids:?}, starters {starters:?}");
        assert_eq!(e.frame().agreement, Some(max));
        assert!(sent(&e, "PROBE") + sent(&e, "REPLY") <= bound(n), "ring {ids:?}, starters {starters:?}");
    }
}

#[test]
fn the_view_reach_is_the_candidates_radius_and_doubles() {
    let p = super::ALGORITHM.preset("hs-phases-16").unwrap();
    let mut e = Engine::new(p.scenario()).unwrap();
    let mut reach_of_16 = vec![];
    loop {
        let f = e.frame();
        for nf in &f.nodes {
            if nf.view.role == "candidate" {
                let r = nf.view.reach().expect("a candidate has a reach");
                assert!(r.is_power_of_two() && r <= 32, "N{}: reach {r}", nf.id);
            } else {
                assert_eq!(nf.view.reach(), None);
            }
            if let Some(r) = nf.view.reach().filter(|_| nf.id == 16) {
                if reach_of_16.last() != Some(&r) {
                    reach_of_16.push(r);
                }
            }
        }
        if !e.step() {
            break;
        }
    }
    assert_eq!(reach_of_16, vec![1, 2, 4, 8, 16]);
    let s = sim(&serde_json::from_str(p.json).unwrap());
    assert_eq!(survivors(&s), vec![8, 4, 2, 1], "on the bit-reversed ring the count halves exactly");
}

#[test]
fn a_partition_elects_nobody_and_never_splits_the_brain() {
    let ids: Vec<NodeId> = (1..=8).collect();
    let mut v = scenario(&ids, &ids, 3, [1, 2]);
    v["schedule"].as_array_mut().unwrap().insert(0, json!({"at": 0, "partition": [[1, 2, 3, 4], [5, 6, 7, 8]]}));
    let e = run(&v);
    assert!(e.frame().leaders.is_empty(), "no probe can go round a cut ring");
    assert!(e.violations().is_empty());
    let p = super::ALGORITHM.preset("hs-partition").unwrap();
    let mut e = Engine::new(p.scenario()).unwrap();
    e.run_until(119);
    assert_eq!(e.frame().leaders, vec![6], "during the partition only N6 leads");
    e.run_to_end();
    assert_eq!(e.frame().leaders, vec![6]);
    assert_eq!(e.frame().agreement, Some(6));
    assert!(e.violations().is_empty());
}

/// The conformance sweep starts from the maximum as leader (or none); here any node may be
/// the initial leader, under crashes, recoveries, partitions, cuts, loss and random latency.
#[test]
fn no_split_brain_under_chaos_whoever_leads_at_first() {
    let mut r = Pcg32::new(1980, 4);
    for seed in 0..300 {
        let n = r.range_inclusive(2, 9) as usize;
        let ids = ring(&mut r, n);
        let (schedule, t) = random_faults(&mut r, &ids, 1..=10, 1..=40, |r, t, x| {
            Some(match r.range_inclusive(0, 6) {
                0 => json!({"at": t, "crash": x}),
                1 => json!({"at": t, "recover": x}),
                2 => json!({"at": t, "partition": random_sides(r, &ids)}),
                3 => json!({"at": t, "heal": true}),
                4 => {
                    let at = ids.iter().position(|&y| y == x).unwrap() + r.range_inclusive(1, n as u64 - 1) as usize;
                    json!({"at": t, "cut": [x, ids[at % n]]})
                }
                _ => json!({"at": t, "start": x}),
            })
        });
        let lo = r.range_inclusive(1, 3);
        let v = json!({"algorithm": "hirschberg-sinclair", "nodes": ids, "seed": seed, "initial_leader": r.pick(&ids),
                           "network": {"latency": [lo, lo + r.range_inclusive(0, 4)], "loss": r.range_inclusive(0, 8) as f64 / 100.0,
                                       "fifo": r.range_inclusive(0, 2) != 0},
                           "heartbeats": {"interval": 3, "timeout": 20}, "schedule": schedule, "stop": {"max_time": t + 300}});
        let mut e = Engine::new(Scenario::from_value(&v).unwrap()).unwrap();
        e.run_to_end();
        assert!(e.violations().is_empty(), "{v}: {:?}", e.violations());
        assert!(e.metrics().max_simultaneous_leaders <= 1, "{v}");
    }
}

#[test]
fn a_leader_that_is_not_the_maximum_steps_down_before_the_maximum_wins() {
    let v = json!({"algorithm": "hirschberg-sinclair", "nodes": [1, 2, 3, 4, 5, 6], "initial_leader": 3,
                       "schedule": [{"at": 0, "start": 1}]});
    let e = run(&v);
    assert_eq!(e.frame().leaders, vec![6]);
    assert!(e.violations().is_empty(), "{:?}", e.violations());
    assert_eq!(e.metrics().max_simultaneous_leaders, 1);
}
