use crate::meta::Lang;
use crate::protocols::testkit::{preset, run};
use crate::protocols::testkit::{random_faults, sent};
use crate::rng::Pcg32;
use crate::{Action, Engine, NodeId, Scenario};
use serde_json::{json, Value};

/// Whom each live node names as leader, in scenario order.
fn named(e: &Engine) -> Vec<(NodeId, Option<NodeId>)> {
    e.frame().nodes.iter().filter(|n| n.up).map(|n| (n.id, n.view.leader)).collect()
}

#[test]
fn the_course_example_elects_the_newest_data_then_the_larger_sid() {
    // ZXIDs 7, 9, 9, 8 after N5 crashed: N2 and N3 tie on ZXID 9 and the larger SID wins;
    // N4 has a larger SID than both but older data.
    let e = preset("zookeeper-leader-lost");
    assert_eq!(e.frame().leaders, vec![3]);
    assert_eq!(named(&e), vec![(1, Some(3)), (2, Some(3)), (3, Some(3)), (4, Some(3))]);
    assert!(e.violations().is_empty(), "{:?}", e.violations());
    // First round of votes: everyone votes for itself, 4 × 4 VOTEs (N5 is down but still
    // addressed); then each of N1, N2, N4 switches to a larger vote as it arrives.
    let switch = (1..=e.cursor())
        .find(|&s| e.narrate(s, Lang::En).unwrap().starts_with("N2 hears N3 vote for N3"))
        .expect("N2 switches to N3");
    let zh = e.narrate(switch, Lang::Zh).unwrap();
    assert!(e.narrate(switch, Lang::En).unwrap().contains("larger in (ZXID, SID)"));
    assert!(zh.contains("改投 N3"), "{zh}");
    let lead = (1..=e.cursor()).find(|&s| e.narrate(s, Lang::En).unwrap().contains("it is LEADING")).expect("N3 leads");
    assert_eq!(e.step_info(lead).unwrap().node, 3);
    assert!(e.narrate(lead, Lang::Zh).unwrap().contains("多数派"));
}

#[test]
fn all_booting_at_once_sends_the_vote_counts_of_the_formulas() {
    let worst = super::ALGORITHM.formulas[0].value;
    let best = super::ALGORITHM.formulas[1].value;
    for n in 3..=9u32 {
        let up: Vec<u32> = (1..=n).collect();
        let down: Vec<u32> = (1..=n).rev().collect();
        for (nodes, want) in [(up, worst(n as u64)), (down, best(n as u64))] {
            let e = run(&json!({"algorithm": "zookeeper", "nodes": nodes, "seed": 1, "heartbeats": null}));
            assert_eq!(sent(&e, "VOTE"), want, "N = {n}, nodes {nodes:?}");
            assert_eq!(e.frame().leaders, vec![n], "N = {n}: the largest SID with equal ZXIDs");
            assert_eq!(sent(&e, "FOLLOW"), n as u64 - 1, "N = {n}: one promise per follower");
        }
    }
    assert_eq!(sent(&preset("zookeeper-votes-5"), "VOTE"), 60);
    // Any order of arrival stays within the worst case.
    let mut seen_between = false;
    for seed in 0..200 {
        let mut r = Pcg32::new(seed, 76);
        let n = r.range_inclusive(3, 9);
        let ids = crate::protocols::testkit::random_ring(&mut r, n as usize);
        let hi = r.range_inclusive(1, 6);
        let v = json!({"algorithm": "zookeeper", "nodes": ids, "seed": seed, "heartbeats": null,
                           "network": {"latency": [1, hi], "fifo": r.range_inclusive(0, 1) == 0}});
        let e = run(&v);
        let votes = sent(&e, "VOTE");
        assert!(votes <= worst(n), "seed {seed}: {votes} VOTEs > (N³−N)/2 = {}", worst(n));
        assert_eq!(e.frame().leaders, vec![*ids.iter().max().unwrap()], "seed {seed}: {v}");
        seen_between |= votes > best(n) && votes < worst(n);
    }
    assert!(seen_between);
}

/// A scenario, its majority side, its minority side, and (ZXID, SID) per node.
type Case = (Value, Vec<NodeId>, Vec<NodeId>, Vec<(u64, NodeId)>);

/// A random partition with a majority side, drawn at boot, random ZXIDs with ties.
fn partitioned(seed: u64) -> Case {
    let mut r = Pcg32::new(seed, 77);
    let n = r.range_inclusive(3, 9) as usize;
    let ids = crate::protocols::testkit::random_ring(&mut r, n);
    let zxid: Vec<(u64, NodeId)> = ids.iter().map(|&i| (r.range_inclusive(0, 3), i)).collect();
    let k = r.range_inclusive(n as u64 / 2 + 1, n as u64) as usize;
    let (major, minor) = (ids[..k].to_vec(), ids[k..].to_vec());
    let lo = r.range_inclusive(1, 3);
    let hi = lo + r.range_inclusive(0, 3);
    let params: serde_json::Map<String, Value> = zxid.iter().map(|&(z, i)| (i.to_string(), json!(z))).collect();
    let mut schedule = vec![];
    if !minor.is_empty() {
        schedule.push(json!({"at": 0, "partition": [major, minor]}));
    }
    let v = json!({"algorithm": "zookeeper", "nodes": ids, "seed": seed, "network": {"latency": [lo, hi]},
                       "heartbeats": {"interval": 3, "timeout": 3 + 2 * hi + 6}, "params": {"zxid": params},
                       "schedule": schedule, "stop": {"max_time": 400}});
    (v, major, minor, zxid)
}

#[test]
fn the_largest_zxid_sid_of_a_quorum_connected_group_wins_and_a_minority_never_elects() {
    for seed in 0..300 {
        let (v, major, minor, zxid) = partitioned(seed);
        let mut e = Engine::new(Scenario::from_value(&v).unwrap()).unwrap();
        while e.step() {
            let leaders = e.frame().leaders;
            assert!(
                leaders.iter().all(|l| major.contains(l)),
                "seed {seed}: a leader {leaders:?} in the minority {minor:?}"
            );
        }
        let best = zxid.iter().filter(|(_, i)| major.contains(i)).max().unwrap().1;
        assert_eq!(e.frame().leaders, vec![best], "seed {seed}: {v}");
        for n in e.frame().nodes {
            if major.contains(&n.id) {
                assert_eq!(n.view.leader, Some(best), "seed {seed}: N{} names the winner", n.id);
            } else {
                assert_eq!((n.view.role, n.view.leader), ("looking", None), "seed {seed}: N{} in the minority", n.id);
                assert!(n.view.tally.unwrap().0 <= minor.len() as u32, "seed {seed}");
            }
        }
        assert!(e.violations().is_empty(), "seed {seed}: {:?}", e.violations());
    }
}

#[test]
fn the_split_brain_partition_leaves_the_minority_without_a_leader() {
    let p = super::ALGORITHM.presets.iter().find(|p| p.id == "split-brain-zookeeper").unwrap();
    let mut e = Engine::new(p.scenario()).unwrap();
    e.run_until(7);
    e.apply(Action::Partition { groups: vec![vec![1, 2], vec![3, 4, 5]], lines: vec![] }).unwrap();
    e.run_until(150);
    let f = e.frame();
    assert_eq!(f.leaders, vec![5]);
    for n in &f.nodes[..2] {
        assert_eq!(n.view.role, "looking", "N{} keeps looking", n.id);
        assert_eq!(n.view.tally, Some((2, 3)), "N{}: two votes for N2, three needed", n.id);
    }
    assert_eq!(e.metrics().max_simultaneous_leaders, 1);
    // Healed: the minority, one round ahead, makes N5 move up to its round and rejoins it
    // without an election.
    e.apply(Action::Heal).unwrap();
    e.run_until(200);
    assert_eq!(e.frame().leaders, vec![5]);
    assert_eq!(e.frame().agreement, Some(5));
    assert!(e.violations().is_empty());
}

#[test]
fn a_recovering_larger_vote_joins_the_established_leader() {
    let mut v: Value = serde_json::from_str(super::ALGORITHM.presets[0].json).unwrap();
    v["schedule"].as_array_mut().unwrap().push(json!({"at": 60, "recover": 5}));
    let e = run(&v);
    assert_eq!(e.frame().leaders, vec![3], "N5 (ZXID 9, SID 5) comes back as a follower");
    assert_eq!(e.frame().agreement, Some(3));
}

/// Random ZXIDs, partitions, heals, crashes and recoveries; then the network heals and stays
/// quiet: one leader per round throughout, and one leader everybody names at the end.
#[test]
fn random_zxids_and_partitions_keep_one_leader_per_round_and_settle() {
    let mut rounds_to_settle = vec![];
    for seed in 0..300 {
        let (mut v, _, _, _) = partitioned(seed);
        let mut r = Pcg32::new(seed, 78);
        let ids: Vec<NodeId> = serde_json::from_value(v["nodes"].clone()).unwrap();
        let (mut sched, mut t) = random_faults(&mut r, &ids, 1..=6, 1..=30, |r, t, node| {
            Some(match r.range_inclusive(0, 4) {
                0 => json!({"at": t, "crash": node}),
                1 => json!({"at": t, "recover": node}),
                2 => {
                    json!({"at": t, "partition": [ids.iter().filter(|_| r.range_inclusive(0, 1) == 0).collect::<Vec<_>>(), []]})
                }
                3 => json!({"at": t, "isolate": node}),
                _ => json!({"at": t, "start": node}),
            })
        });
        t += 5;
        sched.push(json!({"at": t, "heal": true}));
        for &id in &ids {
            sched.push(json!({"at": t, "recover": id}));
        }
        v["schedule"] = json!(sched);
        v["stop"] = json!({"max_time": t + 150});
        let e = run(&v);
        assert!(
            e.violations().iter().all(|x| x.kind != crate::meta::TWO_LEADERS_IN_TERM),
            "seed {seed}: {:?}",
            e.violations()
        );
        let f = e.frame();
        assert_eq!(f.leaders.len(), 1, "seed {seed}: one leader after healing: {v}");
        assert_eq!(f.agreement, Some(f.leaders[0]), "seed {seed}: everyone names it");
        rounds_to_settle.push(f.nodes.iter().filter_map(|n| n.view.term).max().unwrap());
    }
    assert!(rounds_to_settle.iter().any(|&r| r > 2), "some runs needed several rounds");
}

#[test]
fn a_node_promises_one_leader_per_round_and_the_promise_survives_a_crash() {
    let v = json!({"algorithm": "zookeeper", "nodes": [1, 2, 3], "seed": 3, "initial_leader": 3,
                       "heartbeats": {"interval": 2, "timeout": 8},
                       "schedule": [{"at": 5, "crash": 2}, {"at": 6, "recover": 2}]});
    let mut e = Engine::new(Scenario::from_value(&v).unwrap()).unwrap();
    let field = |e: &Engine, id, key| {
        e.inspect(id).into_iter().find(|f| f.label.get(crate::meta::Lang::En) == key).unwrap().shown()
    };
    e.run_until(6);
    assert_eq!(field(&e, 2, "promised"), "N3 in round 1", "kept on disk");
    assert_eq!(
        (field(&e, 2, "state"), field(&e, 2, "round")),
        ("LOOKING".into(), "2".into()),
        "LOOKING in the next round"
    );
    e.run_until(40);
    assert_eq!(field(&e, 2, "promised"), "N3 in round 2", "rejoins N3, which moved up to round 2");
    assert_eq!(e.frame().nodes[2].view.term, Some(2), "N3 leads round 2 now");
    assert_eq!(e.frame().agreement, Some(3));
    let s = super::State {
        promise: Some((4, 3)),
        ..super::ZooKeeper { finalize_wait: 1, ack_window: 1, zxids: Default::default() }.fresh(1, 2)
    };
    assert!(!s.can_promise(4, 2) && !s.can_promise(3, 3) && s.can_promise(4, 3) && s.can_promise(5, 2));
}

#[test]
fn bad_params_name_the_field() {
    let field = |params: Value| {
        let v = json!({"algorithm": "zookeeper", "nodes": [1, 2, 3], "params": params});
        Engine::new(Scenario::from_value(&v).unwrap()).err().map(|e| e.field)
    };
    assert_eq!(field(json!({"zxid": {"9": 1}})), Some("params.zxid.9".into()));
    assert_eq!(field(json!({"zxid": {"2": -1}})), Some("params.zxid.2".into()));
    assert_eq!(field(json!({"zxid": [1]})), Some("params.zxid".into()));
    assert_eq!(field(json!({"finalize": 3})), Some("params.finalize".into()));
    assert_eq!(field(json!({"ack_window": 0})), Some("params.ack_window".into()));
    assert_eq!(field(json!({"zxid": {"2": 5}, "finalize_wait": 0, "ack_window": 9})), None);
}
