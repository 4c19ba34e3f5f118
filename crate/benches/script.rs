//! Scripted algorithms against the built-in ones (`cargo bench -p election-lab --bench script`),
//! timed with `std::time::Instant`.
//!
//! The Bully worst case at N = 300 (node 300 crashed, nodes 1..299 start at t = 0, no heartbeats:
//! 89 699 messages) run by the built-in Bully and by the template `crate/scripts/bully.rhai`, in
//! side-by-side pairs (built-in, then script, each building its engine and running to the end),
//! once with the full trace recorded (as the page and `run` do) and once in summary-only mode (as
//! `run --no-trace` and sweeps do). The figure is the median over the pairs of script time /
//! built-in time: a pair runs under the same load, so the ratio is steadier than either time on a
//! shared machine. Goal: at most 20 (issue 26). Both runs must send the same messages and end
//! with the same trace hash. Also the script's time per handler call.
//!
//! `BENCH_RUNS=<n>` changes the number of pairs (default 9); `BENCH_N=<n>` the cluster size.

use election_lab::protocols::script;
use election_lab::{Engine, Scenario};
use serde_json::json;
use std::hint::black_box;
use std::time::{Duration, Instant};

fn bully_worst(algorithm: &str, n: u32) -> Scenario {
    let mut schedule = vec![json!({"at": 0, "crash": n})];
    schedule.extend((1..n).map(|i| json!({"at": 0, "start": i})));
    let s = json!({
        "algorithm": algorithm, "nodes": (1..=n).collect::<Vec<_>>(), "seed": 425,
        "initial_leader": n, "heartbeats": null, "schedule": schedule,
        "stop": {"max_time": 1_000_000, "max_steps": 10_000_000},
    });
    Scenario::from_value(&s).expect("scenario")
}

/// Builds the engine of `scenario` and runs it to the end: the time, the messages, the steps and
/// the trace hash.
fn one(scenario: &Scenario, summary_only: bool) -> (Duration, u64, u64, u64) {
    let s = scenario.clone();
    let t0 = Instant::now();
    let mut e = if summary_only { Engine::summary_only(s) } else { Engine::new(s) }.expect("engine");
    e.run_to_end();
    let t = t0.elapsed();
    assert!(e.fault().is_none(), "the script failed: {:?}", e.fault());
    assert!(e.quiescent(), "the worst case must run to the end");
    let out = (t, e.metrics().total, e.cursor(), e.trace_hash());
    drop(black_box(e));
    out
}

fn median_f(mut v: Vec<f64>) -> f64 {
    v.sort_by(f64::total_cmp);
    v[v.len() / 2]
}

fn ms(d: Duration) -> f64 {
    d.as_secs_f64() * 1e3
}

fn pairs(n: u32, runs: usize, summary_only: bool) {
    let built_in = bully_worst("bully", n);
    let scripted = bully_worst("bully-script", n);
    let (mut ratios, mut a, mut b) = (Vec::new(), Vec::new(), Vec::new());
    let mut last = None;
    for _ in 0..runs {
        let x = one(&built_in, summary_only);
        let y = one(&scripted, summary_only);
        assert_eq!((x.1, x.2, x.3), (y.1, y.2, y.3), "the script must make the built-in's run");
        ratios.push(y.0.as_secs_f64() / x.0.as_secs_f64());
        a.push(ms(x.0));
        b.push(ms(y.0));
        last = Some(y);
    }
    let (_, messages, steps, hash) = last.expect("at least one run");
    let (ta, tb) = (median_f(a), median_f(b));
    println!(
        "bully worst case N={n}, {}: built-in median {ta:.1} ms, script median {tb:.1} ms ({:.2} us a step); script / built-in: median of {runs} pairs {:.1}  [goal <= 20]; {messages} messages, {steps} steps, hash {hash:016x}",
        if summary_only { "summary-only" } else { "full trace" },
        tb * 1e3 / steps as f64,
        median_f(ratios),
    );
}

fn main() {
    // `cargo bench` passes `--bench`; `cargo test --benches` does not and only wants a smoke run.
    if !std::env::args().any(|a| a == "--bench") {
        println!("script benchmarks: run with `cargo bench -p election-lab --bench script`");
        return;
    }
    let runs = std::env::var("BENCH_RUNS").ok().and_then(|v| v.parse().ok()).unwrap_or(9).max(1);
    let n = std::env::var("BENCH_N").ok().and_then(|v| v.parse().ok()).unwrap_or(300).max(3);
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/scripts/bully.rhai");
    let source = std::fs::read_to_string(path).expect("the Bully template");
    let algorithm = script::load(&source).expect("the template loads");
    assert_eq!(algorithm.id, "bully-script");
    pairs(n, runs, false);
    pairs(n, runs, true);
}
