//! The counterexample search's memory cap: its tree of explored histories is bounded in bytes,
//! and a search that reaches the bound stops there, naming the cap and what it explored, rather
//! than panicking or going on while forgetting histories.

use election_lab::presets;
use election_lab::search::{FaultSet, Options, Phase, Search, MAX_MEMORY};

fn options(max_memory: usize) -> Options {
    Options {
        property: "two-leaders-in-term".into(),
        faults: FaultSet::parse("crash,recover,partition,heal").unwrap(),
        seed: 7,
        budget_steps: 300_000,
        max_memory,
        ..Options::default()
    }
}

fn run(max_memory: usize) -> Search {
    let scenario = presets::find("split-brain-raft").unwrap().scenario();
    let mut s = Search::new(scenario, options(max_memory)).unwrap();
    while !s.advance(20_000).finished() {}
    s
}

#[test]
fn a_small_cap_stops_the_search_with_a_message_naming_it() {
    let s = run(64 << 10);
    let p = s.progress();
    assert_eq!(p.phase, Phase::Capped, "{p:?}");
    assert!(p.finished() && s.result().is_none());
    assert!(p.steps < p.budget_steps, "stopped before its budget: {p:?}");
    // 64 KiB of 9-byte buckets at a load of 7/8 at most: a few thousand histories, not more.
    assert!(p.states > 1000 && p.states < (64 << 10) / 9, "{p:?}");
    let why = s.capped().expect("a message");
    for part in [
        "memory cap of 64.0 KiB".to_string(),
        "65536 bytes".to_string(),
        format!("{} distinct histories", p.states),
        format!("{} schedules", p.schedules),
        format!("{} of its 300000 steps", p.steps),
        "two-leaders-in-term".to_string(),
    ] {
        assert!(why.contains(&part), "`{part}` in: {why}");
    }
    // Deterministic: the same search stops at the same place.
    assert_eq!(run(64 << 10).progress(), p);
}

#[test]
fn the_default_cap_is_not_reached_by_an_ordinary_search() {
    assert_eq!(Options::default().max_memory, MAX_MEMORY);
    let s = run(MAX_MEMORY);
    assert_eq!(s.progress().phase, Phase::Exhausted, "{:?}", s.progress());
    assert_eq!(s.capped(), None);
}
