//! `election-lab run --script` and `search --script`: a scripted algorithm from the command line,
//! and hostile or broken scripts reported by line and column with exit code 2 or 3, never a panic.
#![cfg(feature = "script")]

use std::path::{Path, PathBuf};
use std::process::Output;

mod common;

fn dir(name: &str) -> PathBuf {
    common::temp_dir(&format!("script-cli-{name}"))
}

const WORST_8: &str = r#"{"algorithm":"bully","nodes":[1,2,3,4,5,6,7,8],"seed":425,"initial_leader":8,
  "schedule":[{"at":0,"crash":8},{"at":0,"start":1},{"at":0,"start":2},{"at":0,"start":3},
              {"at":0,"start":4},{"at":0,"start":5},{"at":0,"start":6},{"at":0,"start":7}]}"#;

fn run(d: &Path, script: &str, extra: &[&str]) -> Output {
    let scenario = d.join("scenario.json");
    std::fs::write(&scenario, WORST_8).unwrap();
    let mut c = common::cli();
    c.arg("run").arg(&scenario).arg("--script").arg(script).args(extra);
    c.output().unwrap()
}

/// Five Bully nodes with heartbeats, where a search finds split brain.
const BULLY_HEARTBEATS: &str = r#"{"algorithm":"bully","nodes":[1,2,3,4,5],"seed":425,"initial_leader":5,
    "heartbeats":{"interval":2,"timeout":10},"stop":{"max_time":300}}"#;

/// Five Raft nodes from a cold start, where a search finds no two leaders in a term.
const RAFT_COLD: &str = r#"{"algorithm":"raft","nodes":[1,2,3,4,5],"seed":7,"heartbeats":{"interval":3,"timeout":12},"stop":{"max_time":300}}"#;

fn json(out: &Output) -> serde_json::Value {
    serde_json::from_slice(&out.stdout).unwrap_or_else(|e| panic!("{e}: {}", String::from_utf8_lossy(&out.stdout)))
}

#[test]
fn run_script_gives_the_builtins_counts() {
    let d = dir("bully");
    let scripted = run(&d, &common::script_template("bully.rhai"), &[]);
    assert!(scripted.status.success(), "{}", String::from_utf8_lossy(&scripted.stderr));
    let builtin = common::cli().arg("run").arg(d.join("scenario.json")).output().unwrap();
    let (a, b) = (json(&scripted), json(&builtin));
    assert_eq!(a["algorithm"], "bully-script");
    assert_eq!(a["leaders"], b["leaders"]);
    assert_eq!(a["messages"], b["messages"], "counts by kind");
    assert_eq!(a["total_messages"], 55, "N²−N−1 for N = 8 with the top id crashed");
    assert_eq!(a["halted"], serde_json::Value::Null);
    // Summary-only runs take the script too.
    let lean = run(&d, &common::script_template("bully.rhai"), &["--no-trace"]);
    assert_eq!(json(&lean)["total_messages"], 55);
}

fn hostile(d: &Path, name: &str, body: &str) -> (Output, String) {
    let path = d.join(format!("{name}.rhai"));
    let src = format!(
        "fn on_start() {{\n{body}\n}}\nfn deep(n) {{ deep(n + 1) }}\n#{{ id: \"cli-{name}\", title: \"t\", kinds: [#{{ name: \"X\" }}] }}\n"
    );
    std::fs::write(&path, src).unwrap();
    let out = run(d, path.to_str().unwrap(), &[]);
    let err = String::from_utf8_lossy(&out.stderr).to_string();
    (out, err)
}

#[test]
fn hostile_scripts_stop_with_a_message_and_exit_3() {
    let d = dir("hostile");
    for (name, body, says) in [
        ("loop", "  let i = 0;\n  while true { i += 1; }", "line 3"),
        ("recursion", "  deep(0);", "calls nested deeper than"),
        ("alloc", "  let s = \"xx\";\n  loop { s += s; }", "too large"),
    ] {
        let (out, err) = hostile(&d, name, body);
        assert_eq!(out.status.code(), Some(3), "{name}: {err}");
        assert!(err.contains("the script stopped the run") && err.contains(says), "{name}: {err}");
        assert!(err.contains("N1") && err.contains("on_start") && err.contains("line "), "{name}: {err}");
        assert!(!err.contains("panicked"), "{name}: {err}");
        // The summary of the run so far is still printed, saying why it stopped.
        let summary = json(&out);
        assert!(summary["halted"].as_str().is_some_and(|h| h.contains("on_start")), "{name}: {summary}");
    }
}

#[test]
fn broken_scripts_are_bad_input_with_line_and_column() {
    let d = dir("broken");
    let path = d.join("syntax.rhai");
    std::fs::write(&path, "fn init() {\n    this.x = 1 +;\n}\n").unwrap();
    let out = run(&d, path.to_str().unwrap(), &[]);
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{err}");
    assert!(err.contains("syntax.rhai: line 2, column"), "{err}");
    let out = run(&d, d.join("missing.rhai").to_str().unwrap(), &[]);
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("cannot read"));
}

#[test]
fn search_script_finds_the_split_brain_of_the_scripted_bully() {
    let d = dir("search");
    let scenario = common::write_file(&d, "hb.json", BULLY_HEARTBEATS);
    let out = common::cli()
        .args(["search", "--property", "split-brain", "--budget-steps", "400000", "--script"])
        .arg(common::script_template("bully.rhai"))
        .arg(&scenario)
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "a counterexample: {err}");
    let v = json(&out);
    assert_eq!(v["found"], true, "{v}");
    assert_eq!(v["counterexample"]["algorithm"], "bully-script", "{v}");
}

#[test]
fn search_script_finds_no_two_leaders_in_a_term_on_the_scripted_raft_like_the_builtin() {
    let d = dir("raft");
    let scenario = common::write_file(&d, "cold.json", RAFT_COLD);
    let search = |script: Option<String>| {
        let mut c = common::cli();
        c.args(["search", "--property", "two-leaders-in-term", "--budget-steps", "30000"]).arg(&scenario);
        if let Some(s) = script {
            c.arg("--script").arg(s);
        }
        let out = c.output().unwrap();
        assert_eq!(out.status.code(), Some(0), "no counterexample: {}", String::from_utf8_lossy(&out.stderr));
        json(&out)
    };
    let (builtin, scripted) = (search(None), search(Some(common::script_template("raft.rhai"))));
    assert_eq!(scripted["found"], false);
    for k in ["schedules", "states", "steps"] {
        assert_eq!(builtin[k], scripted[k], "{k}: the same search, schedule for schedule");
    }
}
