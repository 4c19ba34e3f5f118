//! `make bench-stateright`: the exhaustive checker and Stateright 0.31 side by side in one run,
//! each on one thread of this process, at the same bounds: Raft with 3 servers, at most one crash
//! (the example's `max_crashes((3 − 1)/2)`), an unordered network that neither loses nor
//! duplicates, asynchronous timers, and the same depth. Stateright counts the initial state as
//! depth 1 and expands the states below its target depth, so its `target_max_depth(D)` explores
//! schedules of up to D − 1 actions, which is the checker's `depth: D − 1`.
//!
//! Stateright's model is its own `examples/raft.rs` as the fetched crate ships it (`build.rs`
//! copies it without its command line): the two are different Raft models — Stateright's also
//! replicates a log — that reach about as many unique states. Each prints its states, unique
//! states, CPU time (user + system of this process while it ran) and unique states per
//! CPU-second; then the ratio. `BENCH_RUNS` explorations each (default 3), the median kept.
//! Usage: `cargo bench --bench side_by_side -- [DEPTH]` (Stateright's depth, default 8).

use election_lab::check::{Bounds, Checker, Verdict};
use election_lab::Scenario;
use stateright::actor::Network;
use stateright::{Checker as _, Model as _};

#[allow(dead_code, unused_imports, clippy::all)]
mod raft {
    include!(concat!(env!("OUT_DIR"), "/raft.rs"));
}

#[path = "../../../crate/benches/support/cpu.rs"]
mod cpu;

/// One side's median run: (states generated, unique states, CPU seconds, verdict).
type Side = (usize, usize, f64, String);

fn median(mut runs: Vec<Side>) -> Side {
    runs.sort_by(|a, b| a.2.total_cmp(&b.2));
    runs.swap_remove(runs.len() / 2)
}

fn stateright(depth: usize) -> Side {
    let model = raft::RaftModelCfg { server_count: 3, network: Network::new_unordered_nonduplicating([]) }.into_model();
    let (checker, cpu, _) = cpu::timed(|| model.checker().target_max_depth(depth).threads(1).spawn_bfs().join());
    let verdict = match checker.discovery("Election Safety") {
        Some(_) => "Election Safety violated".to_string(),
        None => "Election Safety holds".to_string(),
    };
    (checker.state_count(), checker.unique_state_count(), cpu, verdict)
}

fn election_lab(depth: u32) -> Side {
    let scenario = Scenario::from_json(
        r#"{"algorithm":"raft","nodes":[1,2,3],"seed":1,"heartbeats":{"interval":3,"timeout":12}}"#,
    )
    .expect("the scenario");
    let bounds = Bounds { crashes: 1, depth: Some(depth), ..Bounds::default() };
    let (r, cpu, _) = cpu::timed(|| {
        let mut c = Checker::new(&scenario, "two-leaders-in-term", bounds).expect("the checker");
        c.unordered();
        c.run()
    });
    assert!(!matches!(r.verdict, Verdict::Violated(_)), "{}", r.sentence());
    (r.transitions as usize, r.states as usize, cpu, r.sentence())
}

fn main() {
    // `cargo bench` passes `--bench`; `cargo test --benches` does not and only wants a smoke run.
    let args: Vec<String> = std::env::args().skip(1).collect();
    if !args.iter().any(|a| a == "--bench") {
        println!("side by side: run with `cargo bench --bench side_by_side`");
        return;
    }
    let depth: usize = args.iter().find_map(|a| a.parse().ok()).unwrap_or(8).max(2);
    let runs = std::env::var("BENCH_RUNS").ok().and_then(|v| v.parse().ok()).unwrap_or(3).max(1);
    let sr = median((0..runs).map(|_| stateright(depth)).collect());
    let el = median((0..runs).map(|_| election_lab(depth as u32 - 1)).collect());
    let rate = |s: &Side| s.1 as f64 / s.2.max(1e-9);
    println!(
        "Raft, 3 servers, <= 1 crash, unordered network without loss or duplication, one thread each, median of {runs}"
    );
    println!(
        "Stateright 0.31 examples/raft.rs, target depth {depth}: {} states, {} unique, {:.3} CPU-s, {:.0} unique states per CPU-second ({})",
        sr.0,
        sr.1,
        sr.2,
        rate(&sr),
        sr.3
    );
    println!(
        "election-lab check-model, depth {}: {} transitions, {} unique states, {:.3} CPU-s, {:.0} unique states per CPU-second\n  {}",
        depth - 1,
        el.0,
        el.1,
        el.2,
        rate(&el),
        el.3
    );
    println!("ratio (election-lab / Stateright, unique states per CPU-second): {:.2}x", rate(&el) / rate(&sr));
}
