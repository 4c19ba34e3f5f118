use crate::protocols::testkit::{preset_json as preset, run};
use crate::protocols::testkit::{random_ids, sent};
use crate::rng::Pcg32;
use crate::{Engine, NodeId, Scenario};
use serde_json::{json, Value};

/// Every message but heartbeats: what an election costs.
fn election_cost(e: &Engine) -> u64 {
    e.metrics().total - sent(e, "HEARTBEAT")
}

/// The same scenario under another algorithm.
fn under(v: &Value, algorithm: &str) -> Value {
    let mut v = v.clone();
    v["algorithm"] = json!(algorithm);
    v
}

/// Leader `max(ids)` crashed at t = 0, `crashed` too; `detector` notices at t = 1.
fn scenario(
    ids: &[NodeId],
    crashed: &[NodeId],
    detector: NodeId,
    seed: u64,
    latency: [u64; 2],
    params: Value,
) -> Value {
    let leader = *ids.iter().max().unwrap();
    let mut schedule = vec![json!({"at": 0, "crash": leader})];
    schedule.extend(crashed.iter().map(|c| json!({"at": 0, "crash": c})));
    schedule.push(json!({"at": 1, "start": detector}));
    json!({"algorithm": "bully-failover", "nodes": ids, "seed": seed, "initial_leader": leader,
               "network": {"latency": latency}, "params": params, "schedule": schedule})
}

#[test]
fn the_figure_costs_n_plus_1_where_bully_needs_13() {
    let v = preset("failover-figure");
    let e = run(&v);
    let counts: Vec<u64> = ["FAILOVER", "ALIVE", "ELECTION", "OK", "COORDINATOR"].iter().map(|k| sent(&e, k)).collect();
    assert_eq!(counts, vec![1, 1, 1, 0, 4], "3 asks 5, 5 answers, checks 6, announces to 1..4");
    assert_eq!(e.metrics().total, 7);
    assert_eq!((super::ALGORITHM.formulas[0].value)(6), 7);
    assert_eq!(e.frame().leaders, vec![5]);
    assert_eq!(e.frame().agreement, Some(5));
    let bully = run(&under(&v, "bully"));
    assert_eq!(bully.metrics().total, 13, "Bully's cascade from N3: 6 ELECTION, 3 OK, 4 COORDINATOR");
    assert_eq!(bully.frame().leaders, vec![5]);
    assert!(e.metrics().total < bully.metrics().total);
}

#[test]
fn with_the_next_in_line_alive_it_always_beats_bully() {
    let mut r = Pcg32::new(2009, 1);
    for trial in 0..300 {
        let n = r.range_inclusive(3, 16) as usize;
        let ids = random_ids(&mut r, n, 4);
        let mut sorted = ids.clone();
        sorted.sort_unstable();
        let next = sorted[n - 2];
        // Some nodes below the next in line crash as well; the detector is any live node.
        let crashed: Vec<NodeId> = sorted[..n - 2].iter().copied().filter(|_| r.range_inclusive(0, 3) == 0).collect();
        let live: Vec<NodeId> = sorted[..n - 1].iter().copied().filter(|x| !crashed.contains(x)).collect();
        // Mostly a node below the next in line notices; sometimes the next in line itself,
        // where Bully is already as cheap (one ELECTION to the crashed leader, then COORDINATOR).
        let detector = r.pick(&live);
        let latency = if trial % 2 == 0 { [1, 1] } else { [1, 4] };
        let v = scenario(&ids, &crashed, detector, trial, latency, json!({}));
        let f = run(&v);
        let b = run(&under(&v, "bully"));
        let what = format!("ids {ids:?}, crashed {crashed:?}, detector N{detector}, latency {latency:?}");
        assert_eq!(f.frame().leaders, vec![next], "{what}");
        assert_eq!(f.frame().agreement, Some(next), "{what}");
        assert_eq!(b.frame().leaders, vec![next], "{what}");
        let (fo, bu) = (f.metrics().total, b.metrics().total);
        if detector == next {
            assert_eq!(fo, bu, "{what}: the next in line noticing is Bully's best case already");
        } else {
            assert!(fo < bu, "{what}: failover {fo} vs Bully {bu}");
            // The figure's count: FAILOVER, ALIVE, ELECTION to the crashed leader, COORDINATOR to the N−2 others.
            assert_eq!(fo, n as u64 + 1, "{what}");
        }
    }
}

#[test]
fn a_detector_first_in_line_takes_over_without_asking() {
    let mut v = preset("failover-figure");
    v["schedule"][1] = json!({"at": 1, "start": 5});
    let e = run(&v);
    assert_eq!((sent(&e, "FAILOVER"), sent(&e, "ALIVE"), sent(&e, "ELECTION"), sent(&e, "COORDINATOR")), (0, 0, 1, 4));
    assert_eq!(e.frame().leaders, vec![5]);
}

#[test]
fn the_detector_walks_down_the_list_then_falls_back_to_bully() {
    // N5 is down too: N3 asks N5 in vain, then N4, which takes over.
    let e = run(&preset("failover-next-down"));
    assert_eq!((sent(&e, "FAILOVER"), sent(&e, "ALIVE")), (2, 1));
    assert_eq!(e.frame().leaders, vec![4]);
    assert_eq!(e.frame().agreement, Some(4));
    // The whole list (5, 4) is down: N1 asks both in vain, then runs a full Bully election.
    let ids = [1, 2, 3, 4, 5, 6];
    let e = run(&scenario(&ids, &[5, 4], 1, 1, [1, 1], json!({})));
    assert_eq!(sent(&e, "FAILOVER"), 2);
    assert_eq!(sent(&e, "ALIVE"), 0);
    assert!(sent(&e, "OK") > 0, "a full election: N2 and N3 bully N1");
    assert_eq!(e.frame().leaders, vec![3]);
    assert_eq!(e.frame().agreement, Some(3));
    // A detector listed below the silent ones takes over itself.
    let e = run(&scenario(&ids, &[5], 4, 1, [1, 1], json!({})));
    assert_eq!((sent(&e, "FAILOVER"), sent(&e, "ELECTION")), (1, 2));
    assert_eq!(e.frame().leaders, vec![4]);
    // A longer list is walked further.
    let e = run(&scenario(&ids, &[5, 4], 1, 1, [1, 1], json!({"failover": 3})));
    assert_eq!((sent(&e, "FAILOVER"), sent(&e, "ALIVE"), sent(&e, "OK")), (3, 1, 0));
    assert_eq!(e.frame().leaders, vec![3]);
}

#[test]
fn the_highest_live_node_of_the_list_leads() {
    let mut r = Pcg32::new(2009, 2);
    for trial in 0..300 {
        let n = r.range_inclusive(3, 12) as usize;
        let ids = random_ids(&mut r, n, 4);
        let mut sorted = ids.clone();
        sorted.sort_unstable();
        let len = r.range_inclusive(1, 4) as usize;
        let crashed: Vec<NodeId> = sorted[..n - 1].iter().copied().filter(|_| r.range_inclusive(0, 2) == 0).collect();
        let live: Vec<NodeId> = sorted[..n - 1].iter().copied().filter(|x| !crashed.contains(x)).collect();
        if live.is_empty() {
            continue;
        }
        let detector = r.pick(&live);
        let v = scenario(&ids, &crashed, detector, trial, [1, 3], json!({"failover": len}));
        let e = run(&v);
        let list: Vec<NodeId> = sorted[..n - 1].iter().rev().take(len).copied().collect();
        let want = list.iter().copied().find(|x| live.contains(x)).unwrap_or(*live.iter().max().unwrap());
        assert_eq!(
            e.frame().leaders,
            vec![want],
            "ids {ids:?}, list {list:?}, crashed {crashed:?}, detector N{detector}"
        );
        assert_eq!(e.frame().agreement, Some(want));
        assert!(e.violations().is_empty());
    }
}

#[test]
fn with_heartbeats_everyone_notices_and_it_still_beats_bully() {
    let v = preset("failover-heartbeats");
    let e = run(&v);
    let b = run(&under(&v, "bully"));
    assert_eq!(e.frame().leaders, vec![5]);
    assert_eq!(b.frame().leaders, vec![5]);
    // N1..N4 ask N5 (4 FAILOVER, 4 ALIVE); N5, first in line, checks N6 and announces.
    assert_eq!((sent(&e, "FAILOVER"), sent(&e, "ALIVE"), sent(&e, "ELECTION"), sent(&e, "COORDINATOR")), (4, 4, 1, 4));
    assert_eq!(election_cost(&b), 29, "Bully: everyone starts at once, N²−N−1");
    assert!(election_cost(&e) < election_cost(&b));
}

#[test]
fn a_false_suspicion_does_not_crown_a_second_leader() {
    // N3 suspects N6 while N6 is up: N5 checks upward, N6 answers and stays the only leader.
    let v = json!({"algorithm": "bully-failover", "nodes": [1, 2, 3, 4, 5, 6], "seed": 1, "initial_leader": 6,
                       "schedule": [{"at": 1, "start": 3}]});
    let e = run(&v);
    assert!(e.violations().is_empty(), "{:?}", e.violations());
    assert_eq!(e.metrics().max_simultaneous_leaders, 1);
    assert_eq!(e.frame().leaders, vec![6]);
    assert_eq!(e.frame().agreement, Some(6));
    let mut hb = v.clone();
    hb["heartbeats"] = json!({"interval": 3, "timeout": 12});
    hb["stop"] = json!({"max_time": 200});
    hb["schedule"] = json!([{"at": 7, "start": 3}, {"at": 30, "start": 5}, {"at": 50, "start": 1}]);
    let e = run(&hb);
    assert!(e.violations().is_empty(), "{:?}", e.violations());
    assert_eq!(e.frame().leaders, vec![6]);
}

#[test]
fn parameters_are_checked() {
    let v = json!({"algorithm": "bully-failover", "nodes": [1, 2, 3], "params": {"failover": 0}});
    let err = Engine::new(Scenario::from_value(&v).unwrap()).unwrap_err();
    assert_eq!(err.field, "params.failover");
    let v = json!({"algorithm": "bully-failover", "nodes": [1, 2, 3], "params": {"next": 2}});
    assert!(Engine::new(Scenario::from_value(&v).unwrap()).is_err());
}
