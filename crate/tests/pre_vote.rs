//! Raft's pre-vote (Ongaro's thesis, "Consensus: Bridging Theory and Practice", 2014, §9.6), the
//! `params.pre_vote` toggle: a node cut off from the majority does not raise its term, so when it
//! rejoins it does not depose the leader the majority elected meanwhile; without it, it does (the
//! disruption the Raft lesson shows). Off by default: every run without it is unchanged.

use election_lab::{Engine, Scenario};
use serde_json::json;

/// The Raft lesson's run: N1 leads, the partition cuts {N1, N2} off at t = 30, healed at t = 150.
fn run(pre_vote: Option<bool>, seed: u64) -> Engine {
    let mut v = json!({
        "algorithm": "raft", "nodes": [1, 2, 3, 4, 5], "seed": seed,
        "heartbeats": {"interval": 3, "timeout": 12},
        "schedule": [{"at": 0, "start": 1}, {"at": 30, "partition": [[1, 2], [3, 4, 5]]}, {"at": 150, "heal": true}],
        "stop": {"max_time": 300}
    });
    if let Some(p) = pre_vote {
        v["params"] = json!({"pre_vote": p});
    }
    Engine::new(Scenario::from_value(&v).unwrap()).unwrap()
}

/// What the run shows: the highest term on the minority side just before the heal, the majority's
/// leader and its term then, the leader and its term at the end, and the pre-votes sent.
struct Outcome {
    minority_term: u64,
    before: (Vec<u32>, u64),
    end: (Vec<u32>, u64),
    pre_votes: u64,
}

fn leader_term(e: &Engine) -> (Vec<u32>, u64) {
    let leaders = e.leaders();
    let f = e.frame();
    let term = f.nodes.iter().filter(|n| leaders.contains(&n.id)).filter_map(|n| n.view.term).max().unwrap_or(0);
    (leaders, term)
}

fn outcome(mut e: Engine) -> Outcome {
    let mut minority_term = 0;
    let mut before = (vec![], 0);
    while e.now() < 150 && e.step() {
        let f = e.frame();
        minority_term = f.nodes.iter().filter(|n| n.id <= 2).filter_map(|n| n.view.term).max().unwrap_or(0);
        before = leader_term(&e);
    }
    while e.step() {}
    let pre_votes = e.metrics().by_kind.iter().filter(|(k, _)| k.starts_with("PRE_VOTE")).map(|(_, c)| c).sum();
    assert!(
        !e.violations().iter().any(|v| v.kind == "two-leaders-in-term"),
        "one leader per term: {:?}",
        e.violations()
    );
    Outcome { minority_term, before, end: leader_term(&e), pre_votes }
}

#[test]
fn without_pre_vote_the_rejoining_minority_deposes_the_leader() {
    let o = outcome(run(None, 7));
    assert!(o.minority_term > 2, "the cut-off nodes raised their terms in vain: {}", o.minority_term);
    assert!(o.end.1 > o.before.1, "the heal forced a new term: {:?} then {:?}", o.before, o.end);
    assert_eq!(o.pre_votes, 0, "no pre-vote when it is off");
    // Off is the default: the same run, to the last step.
    let (mut a, mut b) = (run(Some(false), 7), run(None, 7));
    while a.step() && b.step() {}
    assert_eq!(a.trace_hash(), b.trace_hash());
}

#[test]
fn with_pre_vote_the_minority_keeps_its_term_and_the_leader_stays() {
    let o = outcome(run(Some(true), 7));
    assert!(o.minority_term <= 1, "a pre-vote raises no term: the minority is at term {}", o.minority_term);
    assert_eq!(o.before.0.len(), 1, "the majority elected a leader: {:?}", o.before);
    assert_eq!(o.end, o.before, "the heal deposes nobody");
    assert!(o.pre_votes > 0, "the cut-off nodes asked pre-votes");
    // Whatever the seed: one leader per term (checked in `outcome`), and the cut-off side never
    // raises its term.
    for seed in 0..40 {
        let o = outcome(run(Some(true), seed));
        assert!(o.minority_term <= 1, "seed {seed}: the minority reached term {}", o.minority_term);
        assert!(o.end.0.len() <= 1, "seed {seed}: {:?}", o.end);
    }
}

#[test]
fn a_bad_pre_vote_value_is_named() {
    let v = json!({"algorithm": "raft", "nodes": [1, 2, 3], "params": {"pre_vote": "yes"}});
    let Err(e) = Scenario::from_value(&v).and_then(Engine::new) else { panic!("a string is no flag") };
    let e = e.to_string();
    assert!(e.contains("params.pre_vote"), "{e}");
}
