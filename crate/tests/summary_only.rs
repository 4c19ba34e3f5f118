//! Summary-only mode (`Engine::summary_only`, `election-lab run --no-trace`, every sweep): a run
//! that keeps no history ends exactly where the full run ends — the same summary, counts,
//! elections, violations and trace hash — while keeping only the messages that may still be in
//! flight.

mod common;

use common::engine;
use election_lab::experiment::Sweep;
use election_lab::{presets, Action, Engine, Scenario};
use serde_json::{json, Value};

fn both(s: &Scenario) -> (Engine, Engine) {
    let full = Engine::new(s.clone()).expect("engine");
    let lean = Engine::summary_only(s.clone()).expect("engine");
    assert!(!full.is_summary_only() && lean.is_summary_only());
    (full, lean)
}

/// Every preset of every algorithm: the same summary (which holds the trace hash, leaders,
/// views, counts, elections, violations and the fenced store) either way.
#[test]
fn every_preset_ends_the_same_without_history() {
    let mut n = 0;
    for p in presets::all() {
        let (mut full, mut lean) = both(&p.scenario());
        full.run_to_end();
        lean.run_to_end();
        assert_eq!(lean.summary(), full.summary(), "preset {}", p.id);
        assert_eq!(format!("{:016x}", lean.trace_hash()), p.golden, "preset {}: its golden hash", p.id);
        assert_eq!(lean.head(), lean.cursor(), "preset {}: nothing beyond the cursor", p.id);
        if lean.cursor() > 0 {
            assert!(lean.record(1).is_none() && lean.narrate(1, Default::default()).is_none(), "{}", p.id);
        }
        n += 1;
    }
    assert!(n >= 16, "every algorithm has presets ({n} seen)");
}

/// Interventions made while running (a crash, a partition line, dropping a message in flight,
/// a heal) land the same in both modes, with random latency, loss and FIFO links.
#[test]
fn interventions_land_the_same_without_history() {
    for algorithm in ["bully", "raft", "paxos", "zookeeper", "chang-roberts", "gossip", "lease"] {
        let v = json!({
            "algorithm": algorithm, "nodes": [1, 2, 3, 4, 5, 6, 7], "seed": 11,
            "network": {"latency": [1, 4], "loss": 0.03, "fifo": true},
            "initial_leader": 7, "heartbeats": {"interval": 3, "timeout": 15},
            "schedule": [{"at": 30, "crash": 7}, {"at": 200, "recover": 7}],
            "stop": {"max_time": 600},
        });
        let (mut full, mut lean) = both(&Scenario::from_value(&v).unwrap());
        for e in [&mut full, &mut lean] {
            e.run_until(50);
            e.apply(Action::Partition { groups: vec![vec![1, 2], vec![3, 4, 5, 6, 7]], lines: vec![] }).unwrap();
            e.run(40);
            // The first message in flight (the same one in both runs) is dropped by hand.
            if let Some(m) = e.frame().messages.first().map(|m| m.id) {
                e.apply(Action::Drop(m)).unwrap();
            }
            e.run_until(300);
            e.apply(Action::Heal).unwrap();
            e.run_to_end();
        }
        assert_eq!(lean.summary(), full.summary(), "{algorithm}");
        assert_eq!(lean.interventions(), full.interventions(), "{algorithm}");
    }
}

/// A long run keeps a handful of message entries (those that may be in flight), where the full
/// run keeps every message ever sent; and it cannot go back.
#[test]
fn memory_follows_the_messages_in_flight_not_the_length_of_the_run() {
    let v = json!({
        "algorithm": "raft", "nodes": [1, 2, 3, 4, 5], "seed": 7,
        "network": {"latency": [1, 3], "loss": 0.01},
        "heartbeats": {"interval": 2, "timeout": 12},
        "schedule": [{"at": 500, "crash": 5}, {"at": 900, "recover": 5}],
        "stop": {"max_time": 100_000_000, "max_steps": 50_000},
    });
    let (mut full, mut lean) = both(&Scenario::from_value(&v).unwrap());
    full.run_to_end();
    lean.run_to_end();
    assert_eq!(lean.summary(), full.summary());
    let sent = full.metrics().total;
    assert!(sent > 30_000, "a long run: {sent} messages");
    assert_eq!(full.kept_messages(), sent, "the full run keeps every message");
    // Five nodes, a latency of at most 3 ticks: what was sent in the last few ticks.
    assert!(lean.kept_messages() < 100, "summary-only keeps {} entries of {sent}", lean.kept_messages());
    let end = lean.cursor();
    lean.seek(end / 2);
    assert_eq!(lean.cursor(), end, "a summary-only run does not go back");
}

/// A sweep's rows come from summary-only runs; opening run k in the lab (`Sweep::replay`, a full
/// run) reaches the same end.
#[test]
fn sweep_rows_match_full_replays() {
    let spec: Value = json!({
        "title": "t",
        "scenario": {"network": {"latency": [1, 3], "loss": 0.02}, "heartbeats": {"interval": 2, "timeout": 10},
                     "initial_leader": "max", "stop": {"max_time": 300}},
        "algorithms": ["bully", "raft", "invitation"],
        "nodes": [5],
        "seeds": {"count": 4},
        "schedule": [{"at": 20, "partition": "random"}, {"after": "agreement", "delay": 5, "crash": "leader"}],
        "measure": "messages",
    });
    let mut sweep = Sweep::from_value(&spec).unwrap();
    while !sweep.advance(5).finished() {}
    assert_eq!(sweep.rows().len(), 12);
    for (k, row) in sweep.rows().iter().enumerate() {
        let e = sweep.replay(k as u64).unwrap();
        assert!(!e.is_summary_only());
        assert_eq!(e.trace_hash(), row.trace_hash, "run {k}");
        assert_eq!((e.cursor(), e.metrics().total), (row.steps, row.messages), "run {k}");
    }
}

/// A trace with interventions opens in summary-only mode too, and ends where the full replay ends.
#[test]
fn traces_replay_the_same_without_history() {
    let mut e = engine(&json!({
        "algorithm": "bully", "nodes": [1, 2, 3, 4, 5], "seed": 3, "initial_leader": 5,
        "network": {"latency": [1, 2]}, "heartbeats": {"interval": 2, "timeout": 10}, "stop": {"max_time": 200},
    }));
    e.run(10);
    e.apply(Action::Crash(5)).unwrap();
    e.run(30);
    e.apply(Action::Isolate(4)).unwrap();
    e.run_to_end();
    let text = e.trace_value().to_string();
    let mut full = Engine::from_trace_json(&text).unwrap();
    let mut lean = Engine::from_trace_json_summary_only(&text).unwrap();
    full.run_to_end();
    lean.run_to_end();
    assert!(lean.is_summary_only());
    assert_eq!(lean.summary(), full.summary());
    assert_eq!(lean.summary(), e.summary());
}

/// The live tokens are read from the payloads of the messages in flight, which a summary-only
/// run numbers from where it released the delivered ones: at every step of every token preset
/// (and a long token ring that releases thousands), the lean run sees the tokens the full run
/// sees.
#[test]
fn live_tokens_are_read_the_same_after_payloads_are_released() {
    let long = json!({
        "algorithm": "token-ring", "nodes": [1, 2, 3, 4, 5], "seed": 3,
        "network": {"latency": [1, 3]}, "stop": {"max_time": 3000},
    });
    let mut scenarios: Vec<Scenario> = vec![Scenario::from_value(&long).unwrap()];
    scenarios.extend(presets::all().filter(|p| p.id.contains("token")).map(|p| p.scenario()));
    assert!(scenarios.len() >= 4, "the token presets were found");
    let mut checked = 0;
    for s in &scenarios {
        let (mut full, mut lean) = both(s);
        while full.step() {
            assert!(lean.step(), "{}: the lean run ended first", s.algorithm);
            assert_eq!(lean.live_tokens(), full.live_tokens(), "{} at step {}", s.algorithm, full.cursor());
            checked += usize::from(full.live_tokens().is_some_and(|t| !t.is_empty()));
        }
    }
    assert!(checked > 1000, "steps with a live token compared: {checked}");
}
