//! Exhaustive checker benchmarks (`cargo bench -p election-lab --bench check`): unique world
//! states per CPU-second for Raft's election safety on 3 nodes (asynchronous time, no faults
//! and with 2 crashes + 1 partition, the latter also with symmetry reduction) to a depth, and
//! Bully's split brain with a crash on 4 nodes. CPU time is the process's user + system time
//! (Linux `/proc/self/stat`; wall-clock time elsewhere). The median of `BENCH_RUNS`
//! explorations (default 3).

use election_lab::check::{Bounds, Checker};
use election_lab::Scenario;

#[path = "support/cpu.rs"]
mod cpu;

/// The process's peak resident memory in bytes (Linux `/proc/self/status`), if the system says.
fn peak_rss() -> Option<u64> {
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    let line = status.lines().find(|l| l.starts_with("VmHWM:"))?;
    let kb: u64 = line.split_whitespace().nth(1)?.parse().ok()?;
    Some(kb * 1024)
}

fn bench(name: &str, json: &str, property: &str, bounds: Bounds, symmetry: bool, runs: usize) {
    let scenario = Scenario::from_json(json).expect("scenario");
    let mut all = Vec::new();
    for _ in 0..runs {
        let (r, cpu, wall) = cpu::timed(|| {
            let mut c = Checker::new(&scenario, property, bounds.clone()).expect("check");
            if symmetry {
                c.symmetry().expect("a symmetric algorithm");
            }
            c.run()
        });
        all.push((cpu, wall, r.states, r.transitions, r.sentence()));
    }
    all.sort_by(|a, b| a.0.total_cmp(&b.0));
    let (cpu, wall, states, transitions, sentence) = &all[all.len() / 2];
    println!(
        "check {name}: median {cpu:.2} CPU-s ({wall:.2} s wall); {states} unique states, {transitions} transitions; {:.0} unique states per CPU-second; peak RSS of the process so far {}\n  {sentence}",
        *states as f64 / cpu,
        peak_rss().map_or("unknown".to_string(), |b| format!("{:.1} MB ({:.0} bytes per unique state of this run)", b as f64 / 1e6, b as f64 / *states as f64))
    );
}

fn main() {
    // `cargo bench` passes `--bench`; `cargo test --benches` does not and only wants a smoke run.
    if !std::env::args().any(|a| a == "--bench") {
        println!("check benchmarks: run with `cargo bench -p election-lab --bench check`");
        return;
    }
    let runs = std::env::var("BENCH_RUNS").ok().and_then(|v| v.parse().ok()).unwrap_or(3).max(1);
    let raft = r#"{"algorithm":"raft","nodes":[1,2,3],"seed":1,"heartbeats":{"interval":3,"timeout":12}}"#;
    let depth10 = Bounds { depth: Some(10), ..Bounds::default() };
    bench("raft 3 nodes, depth 10", raft, "two-leaders-in-term", depth10, false, runs);
    let faults = Bounds { crashes: 2, partitions: 1, depth: Some(9), ..Bounds::default() };
    bench(
        "raft 3 nodes, depth 9, <= 2 crashes, <= 1 partition",
        raft,
        "two-leaders-in-term",
        faults.clone(),
        false,
        runs,
    );
    bench("the same up to symmetry (--symmetry)", raft, "two-leaders-in-term", faults, true, runs);
    let bully = r#"{"algorithm":"bully","nodes":[1,2,3,4],"initial_leader":4,"schedule":[{"at":0,"crash":4},{"at":1,"start":1}]}"#;
    bench("bully 4 nodes, crash of the leader, start", bully, "split-brain", Bounds::default(), false, runs);
}
