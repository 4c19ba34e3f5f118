//! Inputs that once broke the engine, each refused by the reader that the command line, the
//! page's links and Import, and the experiments view share, with a message naming the field;
//! and a sweep that writes only its summary keeps no rows.

use election_lab::experiment::Sweep;
use election_lab::{presets, Engine};
use serde_json::{json, Value};
use std::process::Command;

const BIN: &str = env!("CARGO_BIN_EXE_election-lab");

/// The recorded etcd run with its third message received 2⁶⁴−1 ticks after it was sent.
fn late_message() -> Value {
    let mut s = presets::find("etcd-leader-killed").unwrap().scenario().to_value();
    s["params"]["messages"][2]["received"] = json!(u64::MAX);
    s
}

/// Runs the binary on files holding `inputs` (in a fresh temp directory) and returns its exit
/// code and standard error.
fn cli(args: &[&str], inputs: &[(&str, &str)]) -> (Option<i32>, String) {
    let dir = std::env::temp_dir().join(format!("election-lab-robust-{}-{}", std::process::id(), args.join("-")));
    std::fs::create_dir_all(&dir).unwrap();
    for (name, text) in inputs {
        std::fs::write(dir.join(name), text).unwrap();
    }
    let out = Command::new(BIN).args(args).current_dir(&dir).output().unwrap();
    std::fs::remove_dir_all(&dir).unwrap();
    (out.status.code(), String::from_utf8_lossy(&out.stderr).into_owned())
}

/// A message's latency past what the history logs is refused when the run is built, so every
/// reader refuses it the same way: `check` accepts exactly what `run` can run.
#[test]
fn a_recorded_message_received_too_late_is_refused_by_name() {
    let s = late_message();
    let err = Engine::from_trace_value(&s).unwrap_err().to_string();
    assert!(err.starts_with("params.messages[2].received: 18446744073709551615 is "), "{err}");
    assert!(err.ends_with("more than the 1000000 a message may take"), "{err}");
    // The page's link and Import read text through the same reader.
    let err = Engine::from_trace_json(&s.to_string()).unwrap_err().to_string();
    assert!(err.starts_with("params.messages[2].received"), "{err}");
    // Just inside the limit, the run builds and runs to its end.
    let mut ok = late_message();
    let sent = ok["params"]["messages"][2]["sent"].as_u64().unwrap();
    ok["params"]["messages"][2]["received"] = json!(sent + election_lab::scenario::MAX_LATENCY);
    let mut e = Engine::from_trace_value(&ok).unwrap();
    e.run_to_end();
    let text = s.to_string();
    for args in [
        &["run", "late.json"][..],
        &["check", "late.json"],
        &["diff", "late.json", "late.json"],
        &["search", "late.json", "--property", "split-brain"],
    ] {
        let (code, stderr) = cli(args, &[("late.json", &text)]);
        assert_eq!(code, Some(2), "{args:?}: {stderr}");
        assert!(stderr.starts_with("election-lab: late.json: params.messages[2].received: "), "{args:?}: {stderr}");
        assert!(!stderr.contains("panicked"), "{args:?}: {stderr}");
    }
}

/// A line's or variant's `set` is a merge patch on the scenario: anything but an object is
/// refused by name (a string once replaced the whole scenario, and the node axis then indexed it).
#[test]
fn a_set_that_is_not_an_object_is_refused_by_name() {
    let spec = r#"{"scenario":{},"algorithms":[{"algorithm":"bully","set":"min"}],"nodes":[3]}"#;
    let err = Sweep::from_json(spec).unwrap_err().to_string();
    assert!(err.starts_with("algorithms[0].set: expected an object"), "{err}");
    let spec = json!({"scenario": {"algorithm": "bully"}, "variants": [{"label": "v", "set": [1]}], "nodes": [3]});
    let err = Sweep::from_value(&spec).unwrap_err().to_string();
    assert!(err.starts_with("variants[0].set: expected an object"), "{err}");
    let (code, stderr) = cli(
        &["sweep", "spec.json", "--summary"],
        &[("spec.json", r#"{"scenario":{},"algorithms":[{"algorithm":"bully","set":"min"}],"nodes":[3]}"#)],
    );
    assert_eq!(code, Some(2), "{stderr}");
    assert!(stderr.starts_with("election-lab: spec.json: algorithms[0].set: expected an object"), "{stderr}");
}

/// Without rows (`sweep --summary`), a sweep keeps only what its summary and plot need, and
/// they are those of the sweep that keeps every row.
#[test]
fn a_sweep_that_keeps_no_rows_writes_the_same_summary_and_plot() {
    // A plot of each kind: lines, bars, the distribution of every run.
    for (id, kind) in [("gossip-convergence", "lines"), ("one-partition", "bars"), ("one-partition", "cdf")] {
        let text = election_lab::experiment::READY.iter().find(|r| r.0 == id).unwrap().1;
        let mut spec: Value = serde_json::from_str(text).unwrap();
        spec["seeds"] = json!({"count": 3});
        spec["plot"]["kind"] = json!(kind);
        let mut rows = Sweep::from_value(&spec).unwrap();
        let mut bare = Sweep::from_value(&spec).unwrap();
        bare.keep_rows(false);
        while !rows.advance(7).finished() {}
        let p = bare.run_parallel();
        assert!(p.finished() && p.done == rows.progress().done, "{id}: {p:?}");
        assert!(bare.rows().is_empty(), "{id}: no rows kept");
        assert_eq!(bare.steps(), rows.steps(), "{id}");
        assert_eq!(bare.summary_csv(), rows.summary_csv(), "{id}");
        assert_eq!(bare.svg(election_lab::meta::Lang::En), rows.svg(election_lab::meta::Lang::En), "{id}");
        assert_eq!(bare.csv().lines().count(), 1, "{id}: the per-run table has its header only");
    }
}
