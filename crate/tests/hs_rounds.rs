//! Hirschberg-Sinclair in synchronous rounds (N. A. Lynch, *Distributed Algorithms*, 1996,
//! §3.4), beside its asynchronous version: the same rules run with `network.model: "rounds"`,
//! every node starting at round 0 (or only some). It elects the maximum on rings of every size
//! from 2 to 40, and its PROBE and REPLY messages stay within the published bound
//! 8N(1 + ⌈log₂ N⌉), which is the formula the lab shows for it.

mod common;

use common::graphs::{ids, run_finished as run};
use common::sent;
use election_lab::rng::Pcg32;
use election_lab::{registry, Engine, NodeId};
use serde_json::{json, Value};

/// 8N(1 + ⌈log₂ N⌉), computed here from its definition.
fn bound(n: u64) -> u64 {
    let mut log = 0;
    while (1u64 << log) < n {
        log += 1;
    }
    8 * n * (1 + log)
}

#[test]
fn in_rounds_it_elects_the_maximum_within_the_published_bound_on_rings_of_2_to_40() {
    let alg = registry::find("hirschberg-sinclair").unwrap();
    let f = &alg.formulas[0];
    let mut r = Pcg32::new(59, 3);
    for n in 2..=40usize {
        for trial in 0..6u64 {
            let ids = ids(&mut r, n);
            // Lynch's setting: every node starts at round 0; on some rings only a few do.
            let starters: Vec<NodeId> = match trial {
                0..=3 => ids.clone(),
                _ => ids.iter().copied().filter(|_| r.range_inclusive(0, 2) == 0).chain([ids[0]]).collect(),
            };
            let schedule: Vec<Value> = starters.iter().map(|s| json!({"at": 0, "start": s})).collect();
            let v = json!({"algorithm": "hirschberg-sinclair", "nodes": ids, "seed": trial,
                           "network": {"model": "rounds"}, "schedule": schedule});
            let e = run(&v);
            let max = *ids.iter().max().unwrap();
            assert_eq!(e.frame().leaders, vec![max], "{v}");
            assert_eq!(e.frame().agreement, Some(max), "{v}");
            let counted = sent(&e, "PROBE") + sent(&e, "REPLY");
            assert!(counted <= bound(n as u64), "{v}: {counted} > 8N(1+⌈log N⌉)");
            assert_eq!(alg.theory(f, e.scenario()), Some(bound(n as u64)), "the formula shown is the bound");
            assert_eq!(e.frame().round, Some(e.now()), "{v}: the rounds counted");
        }
    }
}

/// The rounds are one schedule among the asynchronous ones: with every node starting at once,
/// the asynchronous run with unit latency and FIFO links takes the same steps in the same order
/// of rounds, so both send the same messages and elect the same node.
#[test]
fn in_rounds_it_sends_what_unit_latency_sends() {
    let mut r = Pcg32::new(61, 9);
    for trial in 0..60u64 {
        let n = r.range_inclusive(2, 30) as usize;
        let ids = ids(&mut r, n);
        let schedule: Vec<Value> = ids.iter().map(|s| json!({"at": 0, "start": s})).collect();
        let rounds = run(&json!({"algorithm": "hirschberg-sinclair", "nodes": ids, "network": {"model": "rounds"},
                                 "schedule": schedule}));
        let v = json!({"algorithm": "hirschberg-sinclair", "nodes": ids, "seed": trial,
                       "network": {"latency": [1, 1], "fifo": true}, "schedule": schedule});
        let unit = run(&v);
        for kind in ["PROBE", "REPLY", "ELECTED"] {
            assert_eq!(sent(&rounds, kind), sent(&unit, kind), "{v}: {kind}");
        }
        assert_eq!(rounds.frame().agreement, unit.frame().agreement, "{v}");
    }
}

#[test]
fn the_rounds_preset_elects_its_maximum_within_the_bound() {
    let p = election_lab::presets::find("hs-rounds").expect("the preset hs-rounds");
    let mut e = Engine::new(p.scenario()).unwrap();
    e.run_to_end();
    let n = e.scenario().nodes.len() as u64;
    assert!(e.scenario().config().rounds, "the preset runs in rounds");
    assert_eq!(e.frame().leaders, p.leaders.to_vec());
    assert!(sent(&e, "PROBE") + sent(&e, "REPLY") <= bound(n));
}
