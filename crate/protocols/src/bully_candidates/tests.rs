use crate::protocols::testkit::{preset_json as preset, run};
use crate::protocols::testkit::{random_ids, sent};
use crate::rng::Pcg32;
use crate::{Engine, NodeId, Scenario};
use serde_json::json;

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
    for (ids, want) in
        [(vec![1, 2, 3, 4, 5, 6], vec![4, 5, 6]), (vec![9, 3, 7, 1, 5], vec![5, 7, 9]), (vec![4], vec![4])]
    {
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
        let ids = random_ids(&mut r, n, 4);
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
            let d = r.pick(&live);
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
        let ids = random_ids(&mut r, n, 4);
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
        let ids = random_ids(&mut r, n, 4);
        let max = *ids.iter().max().unwrap();
        let mut schedule = vec![json!({"at": 0, "crash": max})];
        let mut starters: Vec<NodeId> = Vec::new();
        let k = (r.range_inclusive(2, 4) as usize).min(n - 1);
        while starters.len() < k {
            let d = r.pick(&ids);
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
    eprintln!(
        "heartbeats, latency [1, 3]: one announcement in {hb} of {runs} runs with the default δ, {hb0} without δ"
    );
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
