use super::RingLiveSet;
use crate::meta::k;
use crate::meta::{Lang, SPLIT_BRAIN};
use crate::protocols::testkit::run_finished as run;
use crate::protocols::testkit::{random_ring as ring, sent, sim_of};
use crate::rng::Pcg32;
use crate::sim::Typed;
use crate::{Engine, NodeId, Scenario};
use serde_json::{json, Value};

fn scenario(ring: &[NodeId], schedule: Vec<Value>, seed: u64, latency: [u64; 2]) -> Value {
    json!({"algorithm": "ring-live-set", "nodes": ring, "seed": seed, "network": {"latency": latency},
               "schedule": schedule, "stop": {"max_steps": 10_000_000u64, "max_time": 1_000_000u64}})
}

fn sim(v: &Value) -> Typed<RingLiveSet> {
    let mut sim = sim_of(v, super::ALGORITHM.properties);
    sim.run(u64::MAX);
    sim
}

#[test]
fn the_highest_live_id_leads_whatever_crashed_and_the_counts_are_n_and_l() {
    let mut r = Pcg32::new(2002, 1);
    for trial in 0..150 {
        let n = r.range_inclusive(2, 40) as usize;
        let ids = ring(&mut r, n);
        // A random crashed subset, leaving at least one node up.
        let mut down: Vec<NodeId> = ids.iter().copied().filter(|_| r.range_inclusive(0, 2) == 0).collect();
        if down.len() == n {
            down.pop();
        }
        let live: Vec<NodeId> = ids.iter().copied().filter(|x| !down.contains(x)).collect();
        let starter = r.pick(&live);
        let mut schedule: Vec<Value> = down.iter().map(|d| json!({"at": 0, "crash": d})).collect();
        schedule.push(json!({"at": 1, "start": starter}));
        let e = run(&scenario(&ids, schedule, trial, [1, 3]));
        let max = *live.iter().max().unwrap();
        let f = e.frame();
        assert_eq!(f.leaders, vec![max], "ring {ids:?}, down {down:?}, N{starter} starts");
        assert_eq!(f.agreement, Some(max), "every live node knows N{max} leads");
        let l = live.len() as u64;
        if l >= 2 {
            assert_eq!(sent(&e, "ELECTION"), n as u64, "each live node sends once, each down node costs one try");
            assert_eq!(sent(&e, "COORDINATOR"), l);
            assert_eq!(sent(&e, "ACK"), 2 * l);
        } else {
            assert_eq!(sent(&e, "ELECTION"), n as u64 - 1, "alone: it tries every other node once");
        }
        assert!(e.violations().is_empty());
    }
}

#[test]
fn several_initiators_agree_on_the_highest_live_id() {
    let mut r = Pcg32::new(2002, 2);
    for trial in 0..60 {
        let n = r.range_inclusive(3, 30) as usize;
        let ids = ring(&mut r, n);
        let down: Vec<NodeId> = ids.iter().copied().filter(|_| r.range_inclusive(0, 3) == 0).take(n - 2).collect();
        let live: Vec<NodeId> = ids.iter().copied().filter(|x| !down.contains(x)).collect();
        let mut schedule: Vec<Value> = down.iter().map(|d| json!({"at": 0, "crash": d})).collect();
        for &x in &live {
            if r.range_inclusive(0, 2) == 0 {
                schedule.push(json!({"at": r.range_inclusive(1, 6), "start": x}));
            }
        }
        schedule.push(json!({"at": 1, "start": live[0]}));
        let e = run(&scenario(&ids, schedule, trial, [1, 4]));
        let max = *live.iter().max().unwrap();
        assert_eq!(e.frame().leaders, vec![max], "ring {ids:?}, down {down:?}");
        assert_eq!(e.frame().agreement, Some(max));
        assert!(e.violations().is_empty());
    }
}

#[test]
fn the_figure_n6_down_n3_starts_n5_skips_n6() {
    let p = super::ALGORITHM.presets[0];
    let v: Value = serde_json::from_str(p.json).unwrap();
    let e = run(&v);
    assert_eq!(e.frame().leaders, vec![5]);
    assert_eq!(e.frame().agreement, Some(5));
    assert_eq!((sent(&e, "ELECTION"), sent(&e, "COORDINATOR"), sent(&e, "ACK")), (6, 5, 10));
    assert_eq!(sent(&e, "ELECTION") + sent(&e, "COORDINATOR"), 6 + 5, "N + L, against 2N = 12 with nobody down");
    // The live set grows hop by hop, and N5 skips N6 for N1.
    let s = sim(&v);
    let elections: Vec<(NodeId, NodeId, String)> = (0..)
        .map_while(|id| s.message(id).map(|m| (id, m)))
        .filter(|(_, m)| m.kind == 0)
        .map(|(id, m)| (m.from, m.to, s.label(id)))
        .collect();
    let want = [
        (3, 4, "ELECTION{3}"),
        (4, 5, "ELECTION{3,4}"),
        (5, 6, "ELECTION{3,4,5}"),
        (5, 1, "ELECTION{3,4,5}"),
        (1, 2, "ELECTION{3,4,5,1}"),
        (2, 3, "ELECTION{3,4,5,1,2}"),
    ];
    let want: Vec<(NodeId, NodeId, String)> = want.iter().map(|&(a, b, l)| (a, b, l.to_string())).collect();
    assert_eq!(elections, want);
    let skips: Vec<Vec<u64>> = s
        .records()
        .flat_map(|r| s.notes_of(&r))
        .filter(|n| n.text == k::RING_LIVE_SET_NOTE_SKIP)
        .map(|n| n.args().to_vec())
        .collect();
    assert_eq!(skips, vec![vec![5, 6, 1]], "one skip: N5 past N6 to N1");
    let step = (1..=e.cursor())
        .find(|&k| e.narrate(k, Lang::En).unwrap().contains("skips to the next node, N1"))
        .expect("the skip is narrated");
    let zh = e.narrate(step, Lang::Zh).unwrap();
    assert!(zh.contains("跳过") && zh.contains("N1"), "{zh}");
}

#[test]
fn a_partition_splits_the_ring_and_each_part_elects_its_own() {
    // Two arcs of the ring, one initiator in each: both elect, skipping the other arc.
    let ids: Vec<NodeId> = (1..=8).collect();
    let schedule = vec![
        json!({"at": 0, "partition": [[1, 2, 3, 4], [5, 6, 7, 8]]}),
        json!({"at": 1, "start": 2}),
        json!({"at": 1, "start": 7}),
    ];
    let e = run(&scenario(&ids, schedule, 7, [1, 2]));
    assert_eq!(e.frame().leaders, vec![4, 8]);
    assert!(e.violations().iter().any(|v| v.kind == SPLIT_BRAIN && v.nodes == vec![4, 8]), "{:?}", e.violations());
    // Random groups (not arcs): every group with an initiator elects its own highest id.
    let mut r = Pcg32::new(2002, 3);
    for trial in 0..40 {
        let n = r.range_inclusive(4, 20) as usize;
        let ids = ring(&mut r, n);
        let (a, b): (Vec<NodeId>, Vec<NodeId>) = ids.iter().partition(|_| r.range_inclusive(0, 1) == 0);
        if a.is_empty() || b.is_empty() {
            continue;
        }
        let sa = r.pick(&a);
        let sb = r.pick(&b);
        let schedule =
            vec![json!({"at": 0, "partition": [a, b]}), json!({"at": 1, "start": sa}), json!({"at": 1, "start": sb})];
        let e = run(&scenario(&ids, schedule, trial, [1, 3]));
        let mut want = vec![*a.iter().max().unwrap(), *b.iter().max().unwrap()];
        want.sort_unstable();
        assert_eq!(e.frame().leaders, want, "ring {ids:?}, groups {a:?} | {b:?}");
        assert!(e.violations().iter().any(|v| v.kind == SPLIT_BRAIN), "reported as split brain");
    }
}

#[test]
fn the_partition_preset_ends_with_two_leaders() {
    let p = super::ALGORITHM.presets[1];
    let mut e = Engine::new(p.scenario()).unwrap();
    e.run_to_end();
    assert_eq!(e.frame().leaders, vec![3, 6]);
    assert!(e.violations().iter().any(|v| v.kind == SPLIT_BRAIN));
}

#[test]
fn heartbeats_notice_a_crashed_leader_and_the_next_highest_takes_over() {
    let mut r = Pcg32::new(2002, 4);
    for trial in 0..30 {
        let n = r.range_inclusive(3, 12) as usize;
        let ids = ring(&mut r, n);
        let mut sorted = ids.clone();
        sorted.sort_unstable();
        let (top, second) = (sorted[n - 1], sorted[n - 2]);
        let v = json!({"algorithm": "ring-live-set", "nodes": ids, "seed": trial, "initial_leader": top,
                           "heartbeats": {"interval": 3, "timeout": 12}, "schedule": [{"at": 20, "crash": top}],
                           "stop": {"max_time": 400}});
        let mut e = Engine::new(Scenario::from_value(&v).unwrap()).unwrap();
        e.run_to_end();
        assert_eq!(e.frame().leaders, vec![second], "ring {ids:?}");
        assert_eq!(e.frame().agreement, Some(second));
        assert!(e.violations().is_empty(), "{:?}", e.violations());
    }
}
