//! The scripted algorithms in the exhaustive checker (`check-model --script`) and in sweeps
//! (`sweep --script`): the templates are checked and measured exactly as their built-ins.
#![cfg(feature = "script")]

use std::path::{Path, PathBuf};

mod common;

fn dir(name: &str) -> PathBuf {
    common::temp_dir(&format!("script-check-{name}"))
}

/// Raft on three nodes with heartbeats, as tests/check.rs checks it.
const RAFT_3: &str = r#"{"algorithm":"raft","nodes":[1,2,3],"seed":1,"heartbeats":{"interval":3,"timeout":12}}"#;

/// Bully on nodes 1..=n whose leader n has crashed, N1 starting the election: `bully.json` in `d`.
fn bully_leader_crashed(d: &Path, n: u32) -> PathBuf {
    let scenario = serde_json::json!({
        "algorithm": "bully", "nodes": (1..=n).collect::<Vec<_>>(), "initial_leader": n,
        "schedule": [{"at": 0, "crash": n}, {"at": 0, "start": 1}],
    });
    common::write_file(d, "bully.json", &scenario.to_string())
}

/// `check-model FILE ARGS [--script SCRIPT]`: its exit code and JSON summary.
fn check(file: &PathBuf, args: &[&str], script: Option<&str>) -> (Option<i32>, serde_json::Value) {
    let mut c = common::cli();
    c.arg("check-model").arg(file).args(args);
    if let Some(s) = script {
        c.arg("--script").arg(common::script_template(s));
    }
    let out = c.output().unwrap();
    let v =
        serde_json::from_slice(&out.stdout).unwrap_or_else(|e| panic!("{e}: {}", String::from_utf8_lossy(&out.stderr)));
    (out.status.code(), v)
}

/// `check-model --property split-brain --script SCRIPT FILE`, for a script of the test's own.
fn split_brain_with(script: &Path, file: &Path) -> std::process::Output {
    common::cli().args(["check-model", "--property", "split-brain", "--script"]).arg(script).arg(file).output().unwrap()
}

/// The parts of a checker's summary that say what was explored and found.
fn outcome(v: &serde_json::Value) -> serde_json::Value {
    serde_json::json!({
        "verdict": v["verdict"], "states": v["states"], "transitions": v["transitions"], "depth": v["depth"],
        "moves": v["counterexample"]["moves"], "step": v["counterexample"]["step"],
        "nodes": v["counterexample"]["nodes"], "replayed": v["counterexample"]["replayed"],
    })
}

#[test]
fn the_scripted_bully_is_checked_like_the_builtin() {
    let d = dir("bully");
    let file = bully_leader_crashed(&d, 4);
    for args in [
        &["--property", "split-brain"][..],
        &["--property", "split-brain", "--depth", "4", "--crashes", "1", "--partitions", "1"],
        &["--property", "split-brain", "--crashes", "1", "--recoveries", "1", "--unordered"],
    ] {
        let (code, builtin) = check(&file, args, None);
        let (scode, scripted) = check(&file, args, Some("bully.rhai"));
        assert_eq!(code, scode, "{args:?}");
        assert_eq!(outcome(&builtin), outcome(&scripted), "{args:?}: the same worlds, state for state");
        assert!(scripted["states"].as_u64().unwrap() > 1, "{scripted}");
    }
    // The split brain is found, with a trace that replays it on the script's algorithm.
    let (code, v) = check(&file, &["--property", "split-brain"], Some("bully.rhai"));
    assert_eq!(code, Some(1), "{v}");
    assert_eq!(v["verdict"], "violated");
    assert_eq!(v["counterexample"]["replayed"], true);
    assert_eq!(v["counterexample"]["trace"]["scenario"]["algorithm"], "bully-script");
    // A swarm task explores the script too.
    let (code, v) = check(&file, &["--property", "split-brain", "--swarm", "1/2"], Some("bully.rhai"));
    assert_eq!(code, Some(1), "{v}");
    assert_eq!(v["swarm"]["task"], 1);
}

/// The bounds of `raft_one_leader_per_term_holds_to_depth_7_with_two_crashes_and_a_partition`
/// (tests/check.rs).
#[test]
fn the_scripted_raft_keeps_one_leader_per_term_within_the_builtins_bounds() {
    let d = dir("raft");
    let file = common::write_file(&d, "raft.json", RAFT_3);
    let args = ["--property", "two-leaders-in-term", "--depth", "7", "--crashes", "2", "--partitions", "1"];
    let (code, scripted) = check(&file, &args, Some("raft.rhai"));
    assert_eq!(code, Some(0), "{scripted}");
    assert_eq!(scripted["verdict"], "no-violation", "{scripted}");
    assert_eq!(scripted["depth"], 7);
    let (_, builtin) = check(&file, &args, None);
    assert_eq!(outcome(&builtin), outcome(&scripted));
}

#[test]
fn a_script_that_cannot_load_is_bad_input_for_the_checker() {
    let d = dir("broken");
    let file = common::write_file(&d, "bully.json", r#"{"algorithm":"bully","nodes":[1,2,3]}"#);
    let script = d.join("broken.rhai");
    std::fs::write(&script, "fn init() {\n    this.x = 1 +;\n}\n").unwrap();
    let out = split_brain_with(&script, &file);
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{err}");
    assert!(err.contains("broken.rhai: line 2, column"), "{err}");
}

#[test]
fn a_sweep_on_the_scripted_bully_measures_what_the_builtin_does() {
    let d = dir("sweep");
    let spec = |alg: &str| {
        format!(
            r#"{{"scenario":{{"network":{{"latency":[1,3]}},"heartbeats":null,"initial_leader":"max"}},
                "algorithms":[{{"algorithm":"{alg}","schedule":[{{"at":0,"crash":"max"}},{{"at":0,"start":"others"}}]}}],
                "nodes":[3,5,8],"seeds":{{"count":3}}}}"#
        )
    };
    let rows = |alg: &str, script: Option<&str>| {
        let file = d.join(format!("{alg}.json"));
        std::fs::write(&file, spec(alg)).unwrap();
        let mut c = common::cli();
        c.arg("sweep").arg(&file).arg("--json");
        if let Some(s) = script {
            c.arg("--script").arg(common::script_template(s));
        }
        let out = c.output().unwrap();
        assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
        String::from_utf8_lossy(&out.stdout)
            .lines()
            .map(|l| serde_json::from_str::<serde_json::Value>(l).unwrap())
            .collect::<Vec<_>>()
    };
    let (builtin, scripted) = (rows("bully", None), rows("bully-script", Some("bully.rhai")));
    assert_eq!(builtin.len(), 9);
    assert_eq!(builtin.len(), scripted.len());
    for (b, s) in builtin.iter().zip(&scripted) {
        assert_eq!(s["algorithm"], "bully-script");
        for col in
            ["nodes", "seed", "messages", "counted", "leaders", "agreement", "max_leaders", "elections", "end_time"]
        {
            assert_eq!(b[col], s[col], "{col}: {b} / {s}");
        }
    }
    // Without the script the spec names an unknown algorithm: bad input.
    let out = common::cli().arg("sweep").arg(d.join("bully-script.json")).output().unwrap();
    assert_eq!(out.status.code(), Some(2));
}

#[test]
fn a_handler_that_fails_while_checking_is_reported() {
    let d = dir("fails");
    let file = bully_leader_crashed(&d, 3);
    let template = std::fs::read_to_string(common::script_template("bully.rhai")).unwrap();
    let from = "fn on_start() { this.start_election(); }";
    assert!(template.contains(from));
    let script = d.join("fails.rhai");
    std::fs::write(&script, template.replace(from, r#"fn on_start() { send(2, "NO_SUCH_KIND"); }"#)).unwrap();
    let out = split_brain_with(&script, &file);
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let why = v["handler_error"].as_str().unwrap_or_else(|| panic!("{v}"));
    assert!(why.contains("on_start") && why.contains("NO_SUCH_KIND"), "{why}");
    assert!(String::from_utf8_lossy(&out.stderr).contains("a handler failed"));
    // The built-in has no handler to fail.
    let (_, builtin) = check(&file, &["--property", "split-brain"], None);
    assert_eq!(builtin["handler_error"], serde_json::Value::Null);
}
