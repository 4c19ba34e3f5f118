//! Fencing tokens (Gray & Cheriton 1989; Burrows 2006): a store that accepts a write only if its
//! token is at least the largest it has seen. The scenario option `fencing` works with every
//! algorithm: tokens are terms where the protocol has them, else the store's sequencer hands one
//! to each new leader.

use election_lab::presets::find as preset;
use election_lab::registry;
use election_lab::rng::Pcg32;
use election_lab::{Engine, Scenario};
use serde_json::{json, Value};

fn run(v: &Value) -> Engine {
    let mut e = Engine::new(Scenario::from_value(v).expect("scenario")).expect("engine");
    e.run(u64::MAX);
    e
}

fn history(e: &Engine) -> Vec<(u64, u64, u64, bool)> {
    e.summary()["store"]["history"]
        .as_array()
        .expect("a store history")
        .iter()
        .map(|h| {
            (
                h["node"].as_u64().unwrap(),
                h["token"].as_u64().unwrap(),
                h["value"].as_u64().unwrap(),
                h["accepted"].as_bool().unwrap(),
            )
        })
        .collect()
}

#[test]
fn the_worked_example_token_1_then_2_then_a_stale_1_is_rejected() {
    let p = preset("fencing-tokens").expect("preset");
    let e = run(&serde_json::from_str(p.json).unwrap());
    assert_eq!(history(&e), vec![(5, 1, 100, true), (2, 2, 999, true), (5, 1, 50, false)]);
    let st = &e.summary()["store"];
    assert_eq!(
        (st["value"].as_u64(), st["max_token"].as_u64(), st["accepted"].as_u64(), st["rejected"].as_u64()),
        (Some(999), Some(2), Some(2), Some(1))
    );
    // N5 was still sure it led when its write was refused: the fence, not the election, stopped it.
    assert_eq!(e.frame().leaders, vec![2, 5]);
}

#[test]
fn under_bully_split_brain_the_stale_leader_is_rejected_while_both_believe_they_lead() {
    let p = preset("split-brain-bully-fenced").expect("preset");
    let mut e = run(&serde_json::from_str(p.json).unwrap());
    let h = history(&e);
    let rejected: Vec<_> = h.iter().filter(|w| !w.3).collect();
    assert!(rejected.len() >= 5, "{h:?}");
    assert!(rejected.iter().all(|w| w.0 == 5 && w.1 == 1), "only N5's token-1 writes are refused: {h:?}");
    assert!(h.iter().filter(|w| w.0 == 2).all(|w| w.3 && w.1 == 2), "N2's token-2 writes all pass: {h:?}");
    // At every refusal both nodes believe they lead.
    let head = e.head();
    let mut refusals = 0;
    for step in 1..=head {
        let info = e.step_info(step).unwrap();
        if info.event == "store" && info.text.contains("rejected") {
            e.seek(step);
            assert_eq!(e.frame().leaders, vec![2, 5], "step {step}");
            refusals += 1;
        }
    }
    assert_eq!(refusals, rejected.len());
    // The narration says why, in both languages.
    let step = (1..=head).find(|&s| e.step_info(s).unwrap().text.contains("rejected")).unwrap();
    assert!(e.narrate(step, election_lab::meta::Lang::En).unwrap().contains("stale leader"));
    assert!(e.narrate(step, election_lab::meta::Lang::Zh).unwrap().contains("过期"));
}

#[test]
fn seeking_and_forking_keep_the_store_in_step() {
    let p = preset("split-brain-bully-fenced").expect("preset");
    let v: Value = serde_json::from_str(p.json).unwrap();
    let mut e = run(&v);
    let end = e.summary();
    let head = e.head();
    e.seek(head / 2);
    let mid = e.summary()["store"].clone();
    e.seek(head);
    assert_eq!(e.summary(), end);
    e.seek(head / 2);
    assert_eq!(e.summary()["store"], mid);
    // A fork: crash N2 halfway. N1 takes over the minority with a newer token, and N5 stays
    // fenced off.
    let before = history(&e).len();
    e.apply(election_lab::Action::Crash(2)).unwrap();
    e.run(u64::MAX);
    let h = history(&e);
    let after = &h[before..];
    assert!(after.iter().filter(|w| w.0 == 5).all(|w| !w.3), "N5 stays fenced off: {h:?}");
    assert!(after.iter().any(|w| w.0 == 1 && w.1 == 3 && w.3), "N1 leads with token 3: {h:?}");
    assert!(after.iter().all(|w| w.0 != 2), "a crashed node does not write: {h:?}");
}

#[test]
fn every_algorithm_with_terms_or_a_sequencer_never_lets_a_smaller_token_overwrite() {
    // Whatever the algorithm and the faults, accepted tokens never decrease, and under
    // algorithms that claim one leader per term no two nodes get writes accepted with one token.
    for alg in registry::all() {
        for seed in 0..20u64 {
            let mut r = Pcg32::for_seed(seed);
            let nodes: Vec<u32> = (1..=5).collect();
            let at = r.range_inclusive(10, 80);
            let v = json!({
                "algorithm": alg.id, "nodes": nodes, "seed": seed, "initial_leader": 5,
                "heartbeats": {"interval": 2, "timeout": 10},
                "schedule": [{"at": at, "partition": [[1, 2], [3, 4, 5]]}, {"at": at + 60, "heal": true}],
                "fencing": {"write_every": 7}, "stop": {"max_time": 300},
            });
            let Ok(s) = Scenario::from_value(&v) else { continue };
            let Ok(mut e) = Engine::new(s) else { continue };
            e.run(u64::MAX);
            let h = history(&e);
            let accepted: Vec<_> = h.iter().filter(|w| w.3).collect();
            assert!(
                accepted.windows(2).all(|p| p[0].1 <= p[1].1),
                "{} seed {seed}: accepted tokens decrease: {h:?}",
                alg.id
            );
            for w in &h {
                let max_before =
                    h.iter().take_while(|x| !std::ptr::eq(*x, w)).filter(|x| x.3).map(|x| x.1).max().unwrap_or(0);
                assert_eq!(w.3, w.1 >= max_before, "{} seed {seed}: the store's rule: {h:?}", alg.id);
            }
        }
    }
}

#[test]
fn raft_terms_as_tokens_never_admit_two_writers_in_one_term() {
    for seed in 0..100u64 {
        let mut r = Pcg32::for_seed(seed);
        let at = r.range_inclusive(50, 200);
        let minority: Vec<u32> = if r.chance(0.5) { vec![1, 2] } else { vec![4, 5] };
        let majority: Vec<u32> = (1..=5).filter(|n| !minority.contains(n)).collect();
        let v = json!({
            "algorithm": "raft", "nodes": [1, 2, 3, 4, 5], "seed": seed, "initial_leader": 5,
            "heartbeats": {"interval": 2, "timeout": 10},
            "network": {"latency": [1, 3]},
            "schedule": [{"at": at, "partition": [minority, majority]}, {"at": at + 100, "heal": true}],
            "fencing": {"write_every": 5}, "stop": {"max_time": 500},
        });
        let e = run(&v);
        let h = history(&e);
        let mut by_token = std::collections::BTreeMap::new();
        for w in h.iter().filter(|w| w.3) {
            let writer = by_token.entry(w.1).or_insert(w.0);
            assert_eq!(*writer, w.0, "seed {seed}: two writers accepted with token {}: {h:?}", w.1);
        }
    }
}

#[test]
fn bad_fencing_options_name_the_field() {
    let base = json!({"algorithm": "bully", "nodes": [1, 2, 3]});
    for (fencing, field) in [
        (json!({}), "fencing"),
        (json!({"writes": [{"at": 1, "node": 9, "value": 1}]}), "fencing.writes[0].node"),
        (json!({"write_every": "often"}), "fencing.write_every"),
        (json!({"write_every": 5, "color": 1}), "fencing"),
    ] {
        let mut v = base.clone();
        v["fencing"] = fencing;
        let err = Scenario::from_value(&v).unwrap_err();
        assert!(err.to_string().starts_with(field), "{err}");
    }
    // Without the option there is no store in the summary.
    assert!(run(&base).summary().get("store").is_none());
}
