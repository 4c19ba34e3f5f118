use super::ALGORITHM;
use crate::protocols::testkit::{engine, preset_engine as preset};
use crate::protocols::testkit::{random_faults, random_sides, sent};
use crate::rng::Pcg32;
use crate::{Engine, NodeId, Scenario};
use serde_json::{json, Value};

/// (node, group leader) of every live node.
fn groups(e: &Engine) -> Vec<(NodeId, NodeId)> {
    e.frame().nodes.iter().filter(|n| n.up).map(|n| (n.id, n.view.group().unwrap())).collect()
}

#[test]
fn the_figure_two_pairs_then_one_group_led_by_n1() {
    let mut e = preset("invitation-figure");
    // (a)-(b): N1 invites N2 while N3 invites N4; both pairs form.
    e.run_until(4);
    assert_eq!(groups(&e), vec![(1, 1), (2, 1), (3, 3), (4, 3)]);
    assert_eq!(e.frame().leaders, vec![1, 3], "two groups, two leaders, by design");
    // (c): N1 invites N3; the tie (2 = 2) goes to the lower id.
    e.run_to_end();
    assert_eq!(groups(&e), vec![(1, 1), (2, 1), (3, 1), (4, 1)]);
    assert_eq!(e.frame().leaders, vec![1]);
    assert_eq!(e.frame().agreement, Some(1));
    assert_eq!((sent(&e, "INVITE"), sent(&e, "ACCEPT"), sent(&e, "GROUP"), sent(&e, "REDIRECT")), (3, 3, 4, 0));
    // Only the smaller group is told: the last GROUPs go to N3 and N4, none to N2.
    let last_merge =
        (1..=e.cursor()).rev().find(|&k| e.step_info(k).unwrap().sends.iter().any(|m| m.2 == "GROUP")).unwrap();
    let told: Vec<NodeId> = e.step_info(last_merge).unwrap().sends.iter().map(|m| m.1).collect();
    assert_eq!(told, vec![3, 4]);
}

#[test]
fn gathering_singletons_one_by_one_costs_three_per_merge() {
    let mut e = preset("invitation-gather");
    e.run_to_end();
    let f = &ALGORITHM.formulas[0];
    let counted: u64 = f.counts.iter().map(|k| sent(&e, k)).sum();
    assert_eq!(counted, (f.value)(6));
    assert_eq!(counted, 15);
    assert_eq!(e.frame().agreement, Some(1));
}

#[test]
fn a_partition_leaves_one_leader_per_side_and_healing_merges_them() {
    let mut e = preset("invitation-partition");
    e.run_until(235);
    let f = e.frame();
    assert_eq!(f.leaders.len(), 2, "a leader on each side: {:?}", f.leaders);
    let side = |id: NodeId| id <= 2;
    for (id, g) in groups(&e) {
        assert_eq!(side(id), side(g), "N{id}'s group leader N{g} is on its side of the partition");
        assert!(f.leaders.contains(&g));
    }
    assert!(e.violations().is_empty(), "several leaders is no violation here");
    e.run_to_end();
    let f = e.frame();
    assert_eq!(f.leaders, vec![3], "the larger side's group leads after healing");
    assert!(groups(&e).iter().all(|&(_, g)| g == 3));
}

/// After any mix of crashes, recoveries, partitions, cuts, isolation and random latency,
/// once the network is whole, every node is up and nothing more goes wrong, the groups
/// merge into one, which every node names.
#[test]
fn after_healing_every_run_settles_into_one_group() {
    for seed in 0..200u64 {
        let mut r = Pcg32::new(seed, 1982);
        let n = r.range_inclusive(2, 9) as usize;
        let mut ids: Vec<NodeId> = Vec::new();
        while ids.len() < n {
            let id = r.range_inclusive(1, 40) as NodeId;
            if !ids.contains(&id) {
                ids.push(id);
            }
        }
        let lo = r.range_inclusive(1, 3);
        let hi = lo + r.range_inclusive(0, 4);
        let interval = r.range_inclusive(2, 5);
        let timeout = interval + 2 * hi + r.range_inclusive(2, 8);
        let (mut schedule, t) =
            random_faults(&mut r, &ids, 0..=10, 1..=40, |r, t, node| match r.range_inclusive(0, 6) {
                0 => Some(json!({"at": t, "crash": node})),
                1 => Some(json!({"at": t, "recover": node})),
                2 | 3 => Some(json!({"at": t, "partition": random_sides(r, &ids)})),
                4 => Some(json!({"at": t, "isolate": node})),
                5 => {
                    let other = r.pick(&ids);
                    (other != node).then(|| json!({"at": t, "cut": [node, other]}))
                }
                _ => Some(json!({"at": t, "start": node})),
            });
        let heal = t + 1;
        schedule.push(json!({"at": heal, "heal": true}));
        for &id in &ids {
            schedule.push(json!({"at": heal, "recover": id}));
        }
        let leader = if r.range_inclusive(0, 1) == 0 { Value::Null } else { json!(ids[0]) };
        // Measured over 600 seeds: settled within timeout·N ticks of the heal; ten times that here.
        let settle = heal + 10 * timeout * n as u64;
        let v = json!({"algorithm": "invitation", "nodes": ids, "seed": seed,
                           "network": {"latency": [lo, hi], "fifo": r.range_inclusive(0, 1) == 0},
                           "initial_leader": leader, "heartbeats": {"interval": interval, "timeout": timeout},
                           "schedule": schedule, "stop": {"max_time": settle}});
        let mut e = engine(&v);
        e.run_to_end();
        let f = e.frame();
        assert_eq!(f.leaders.len(), 1, "seed {seed}: one group in the end, leaders {:?}\n{v}", f.leaders);
        assert_eq!(f.agreement, Some(f.leaders[0]), "seed {seed}: every node names the leader\n{v}");
        assert!(groups(&e).iter().all(|&(_, g)| g == f.leaders[0]), "seed {seed}\n{v}");
        assert_eq!(groups(&e).len(), n, "seed {seed}: everyone is up");
    }
}

#[test]
fn params_are_checked() {
    let v = json!({"algorithm": "invitation", "nodes": [1, 2], "params": {"invite": [5, 2]}});
    assert_eq!(Engine::new(Scenario::from_value(&v).unwrap()).unwrap_err().field, "params.invite");
    let v = json!({"algorithm": "invitation", "nodes": [1, 2], "params": {"invite_every": 3}});
    assert!(Engine::new(Scenario::from_value(&v).unwrap()).is_err());
}
