//! Counterexample search benchmarks (`cargo bench -p election-lab --bench search`), timed with
//! `std::time::Instant`: schedules per second and steps per second natively, for a search that
//! finds nothing within its budget (every schedule runs to its end) and for one that finds and
//! shrinks a counterexample. The median of `BENCH_RUNS` searches (default 5).

use election_lab::presets;
use election_lab::search::{FaultSet, Options, Search};
use std::time::{Duration, Instant};

fn one(preset: &str, property: &str, budget_steps: u64) -> (Duration, u64, u64, u64, Option<usize>) {
    let scenario = presets::find(preset).expect("preset").scenario();
    let opts = Options {
        property: property.to_string(),
        faults: FaultSet::default(),
        seed: 1,
        budget_steps,
        ..Options::default()
    };
    let t0 = Instant::now();
    let mut s = Search::new(scenario, opts).expect("search");
    while !s.advance(u64::MAX).finished() {}
    let p = s.progress();
    let shrunk = s.result().map(|c| c.interventions.len());
    (t0.elapsed(), p.schedules, p.steps, p.states, shrunk)
}

fn bench(preset: &str, property: &str, budget_steps: u64, runs: usize) {
    let mut all: Vec<_> = (0..runs).map(|_| one(preset, property, budget_steps)).collect();
    all.sort_by_key(|r| r.0);
    let (t, schedules, steps, states, shrunk) = all[all.len() / 2];
    let secs = t.as_secs_f64();
    println!(
        "search {preset} --property {property} --budget-steps {budget_steps}: median {:.1} ms; {schedules} schedules ({:.0}/s), {steps} steps ({:.2} M/s), {states} distinct states{}",
        secs * 1e3,
        schedules as f64 / secs,
        steps as f64 / secs / 1e6,
        match shrunk {
            Some(k) => format!("; found, shrunk to {k} faults"),
            None => "; none found".to_string(),
        }
    );
}

fn main() {
    // `cargo bench` passes `--bench`; `cargo test --benches` does not and only wants a smoke run.
    if !std::env::args().any(|a| a == "--bench") {
        println!("search benchmarks: run with `cargo bench -p election-lab --bench search`");
        return;
    }
    let runs = std::env::var("BENCH_RUNS").ok().and_then(|v| v.parse().ok()).unwrap_or(5).max(1);
    bench("split-brain-raft", "two-leaders-in-term", 1_000_000, runs);
    bench("split-brain-zookeeper", "two-leaders-in-term", 1_000_000, runs);
    bench("paxos-duel", "chosen-once", 1_000_000, runs);
    bench("split-brain-bully", "split-brain", 1_000_000, runs);
}
