//! Browser benchmark (wasm-bindgen-test in headless Chromium; prints, asserts nothing on time):
//! the scripted Bully against the built-in Bully in wasm, on the worst case of the native bench
//! `crate/benches/script.rs` (N = 300: node 300 crashed, nodes 1..299 start at t = 0, no
//! heartbeats, 89 699 messages), in side-by-side pairs timed with `performance.now()`. The
//! figure is the median over the pairs of script time / built-in time (issue 26: goal at most 20).
//! Timings only mean something in an optimized build:
//!
//! ```sh
//! cargo test -p election-lab-www --target wasm32-unknown-unknown --profile wasm-release --offline --test script_bench
//! ```
//!
//! (`--profile wasm-release`, the page's own profile, gives the page's figure.) `make test-wasm`
//! runs it unoptimized as one pair, where it checks only that both make the same run.
//! `SCRIPT_BENCH_PAIRS=<n>` at build time changes the number of pairs (default 3 when optimized).
#![cfg(target_arch = "wasm32")]

use election_lab::protocols::script;
use election_lab::{Engine, Scenario};
use serde_json::json;
use wasm_bindgen_test::*;

wasm_bindgen_test_configure!(run_in_browser);

const N: u32 = 300;

fn bully_worst(algorithm: &str) -> Scenario {
    let mut schedule = vec![json!({"at": 0, "crash": N})];
    schedule.extend((1..N).map(|i| json!({"at": 0, "start": i})));
    let s = json!({
        "algorithm": algorithm, "nodes": (1..=N).collect::<Vec<_>>(), "seed": 425,
        "initial_leader": N, "heartbeats": null, "schedule": schedule,
        "stop": {"max_time": 1_000_000, "max_steps": 10_000_000},
    });
    Scenario::from_value(&s).expect("scenario")
}

fn now() -> f64 {
    web_sys::window().and_then(|w| w.performance()).map_or(0.0, |p| p.now())
}

/// Builds the engine and runs it to the end: milliseconds, messages and trace hash.
fn one(scenario: &Scenario) -> (f64, u64, u64) {
    let t0 = now();
    let mut e = Engine::new(scenario.clone()).expect("engine");
    e.run_to_end();
    let ms = now() - t0;
    assert!(e.fault().is_none(), "the script failed: {:?}", e.fault());
    (ms, e.metrics().total, e.trace_hash())
}

fn median(mut v: Vec<f64>) -> f64 {
    election_lab::sort::sort_by(&mut v, |a, b| a.total_cmp(b));
    v[v.len() / 2]
}

#[wasm_bindgen_test]
fn scripted_bully_against_the_builtin_in_wasm() {
    let pairs: usize = option_env!("SCRIPT_BENCH_PAIRS")
        .and_then(|v| v.parse().ok())
        .unwrap_or(if cfg!(debug_assertions) { 1 } else { 3 })
        .max(1);
    let algorithm = script::load(include_str!("../../crate/scripts/bully.rhai")).expect("the Bully template loads");
    let (built_in, scripted) = (bully_worst("bully"), bully_worst(algorithm.id));
    let (mut a, mut b, mut ratios) = (Vec::new(), Vec::new(), Vec::new());
    for _ in 0..pairs {
        let x = one(&built_in);
        let y = one(&scripted);
        // The same run both ways (what the native bench checks too).
        assert_eq!((x.1, x.2), (y.1, y.2), "the script must make the built-in's run");
        ratios.push(y.0 / x.0);
        a.push(x.0);
        b.push(y.0);
    }
    console_log!(
        "wasm bully worst case N={N}, full trace: built-in median {:.1} ms, script median {:.1} ms; script / built-in: median of {pairs} pairs {:.1}  [goal <= 20]",
        median(a),
        median(b),
        median(ratios),
    );
}
