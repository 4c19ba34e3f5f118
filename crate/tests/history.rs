//! The compact history (crate/core/src/sim/history.rs) reads back what was recorded: each step's
//! messages, timer changes and notes are exactly those its handlers produced — the entries an
//! intervention produced between two steps belong to neither — and the message entries carry
//! the times they were sent and delivered.

mod common;

use common::engine;
use election_lab::{Action, Engine};
use serde_json::json;

/// A run with interventions between steps (a start, a crash, a recovery) that send messages
/// and narrate, on a network with random latency.
fn run_with_interventions() -> Engine {
    let mut e = engine(&json!({
        "algorithm": "bully", "nodes": [1, 2, 3, 4, 5, 6], "seed": 5, "initial_leader": 6,
        "network": {"latency": [1, 5], "loss": 0.05, "fifo": true},
        "heartbeats": {"interval": 3, "timeout": 12}, "stop": {"max_time": 300},
    }));
    e.run(20);
    e.apply(Action::Crash(6)).unwrap();
    e.run(15);
    e.apply(Action::Start(2)).unwrap();
    e.apply(Action::Start(3)).unwrap();
    e.run(40);
    e.apply(Action::Recover(6)).unwrap();
    e.run_to_end();
    e
}

#[test]
fn steps_own_exactly_their_entries() {
    let e = run_with_interventions();
    let head = e.head();
    assert!(head > 100, "{head} steps");
    let iv_steps: Vec<u64> = e.interventions().iter().map(|iv| iv.step).collect();
    let mut gaps = 0;
    for s in 1..head {
        let (a, b) = (e.record(s).unwrap(), e.record(s + 1).unwrap());
        assert_eq!((a.step, a.time <= b.time), (s, true));
        for (end, next) in [
            (a.msgs().end, b.msgs().start),
            (a.timers().end, b.timers().start),
            (a.notes().end as u64, b.notes().start as u64),
        ] {
            if iv_steps.contains(&s) {
                assert!(end <= next, "step {s}");
                gaps += (end < next) as u32;
            } else {
                assert_eq!(end, next, "step {s}: no intervention after it, so nothing between");
            }
        }
        // What a step sent left at the step's time.
        for id in a.msgs() {
            let m = e.step_info(s).unwrap().sends.iter().find(|x| x.0 == id).copied();
            assert!(m.is_some(), "step {s} lists message {id} among its sends");
        }
    }
    assert!(gaps >= 3, "the interventions sent, armed timers and narrated between steps ({gaps} gaps)");
    // Deliveries name a message sent earlier, delivered at this step's time.
    let mut delivered = 0;
    for s in 1..=head {
        let r = e.record(s).unwrap();
        if let Some(info) = e.step_info(s).filter(|i| i.event == "deliver") {
            assert_eq!(info.sent.map(|t| t <= r.time), Some(true));
            let sender = (1..s).find(|&k| e.record(k).is_some_and(|x| x.msgs().contains(&r.aux)));
            if let Some(k) = sender {
                assert_eq!(info.sent, Some(e.record(k).unwrap().time), "step {s}: sent at its sender's step time");
            }
            delivered += 1;
        }
    }
    assert!(delivered > 50);
}

/// Seeking back and forth and forking rebuild the same records.
#[test]
fn records_survive_seeking_and_forks() {
    let mut e = run_with_interventions();
    let head = e.head();
    let before: Vec<_> = (1..=head).map(|s| (e.record(s), e.step_info(s), e.narrate(s, Default::default()))).collect();
    for target in [head / 3, 7, head, head / 2] {
        e.seek(target);
        assert_eq!(e.cursor(), target);
    }
    let after: Vec<_> = (1..=head).map(|s| (e.record(s), e.step_info(s), e.narrate(s, Default::default()))).collect();
    assert_eq!(after, before);
    // A fork at step 30: steps up to 30 keep their records, the future is recomputed.
    e.seek(30);
    e.apply(Action::Isolate(1)).unwrap();
    assert_eq!(e.head(), 30);
    for s in 1..=30 {
        assert_eq!(e.record(s), before[s as usize - 1].0, "step {s}");
    }
    e.run_to_end();
    assert!(e.head() > 30);
}
