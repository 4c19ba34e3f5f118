//! `election-lab run --node-cmd`: nodes as child processes speaking JSON Lines. The guide's
//! Python Bully (`crate/nodes/bully.py`) elects what the built-in elects with the same messages
//! on every Bully preset; a node process that exits, hangs or writes junk is named with the
//! event and its standard error, the run ends with exit code 3, and no process is left behind.
#![cfg(all(feature = "node-cmd", target_os = "linux"))]

use election_lab::registry;
use serde_json::Value;
use std::path::{Path, PathBuf};
use std::process::Output;

mod common;

fn dir(name: &str) -> PathBuf {
    common::temp_dir(&format!("node-cmd-{name}"))
}

fn bully_py() -> String {
    format!("python3 {}/nodes/bully.py", env!("CARGO_MANIFEST_DIR"))
}

fn json(out: &Output) -> Value {
    serde_json::from_slice(&out.stdout).unwrap_or_else(|e| {
        panic!("{e}: {}\n{}", String::from_utf8_lossy(&out.stdout), String::from_utf8_lossy(&out.stderr))
    })
}

fn run(scenario: &Path, extra: &[&str]) -> Output {
    common::cli().arg("run").arg(scenario).args(extra).output().unwrap()
}

#[test]
fn the_python_bully_gives_the_builtins_leaders_and_counts_on_every_bully_preset() {
    let d = dir("bully");
    let bully = registry::find("bully").unwrap();
    assert!(bully.presets.iter().any(|p| p.id == "bully-worst-8"), "the worst case is among them");
    for preset in bully.presets {
        let scenario = d.join(format!("{}.json", preset.id));
        std::fs::write(&scenario, preset.json).unwrap();
        let builtin = json(&run(&scenario, &[]));
        let out = run(&scenario, &["--node-cmd", &bully_py()]);
        assert!(out.status.success(), "{}: {}", preset.id, String::from_utf8_lossy(&out.stderr));
        let py = json(&out);
        assert_eq!(py["algorithm"], "bully-py");
        for key in ["leaders", "messages", "total_messages", "views", "elections", "violations", "steps", "trace_hash"]
        {
            assert_eq!(py[key], builtin[key], "{}: {key}", preset.id);
        }
        assert_eq!(py["halted"], Value::Null, "{}", preset.id);
    }
    // The worst case with a trace written (the engine replays every step from the answers it
    // kept: no process is rewound) and in summary-only mode.
    let worst = d.join("bully-worst-8.json");
    let builtin = json(&run(&worst, &[]));
    let traced = run(&worst, &["--node-cmd", &bully_py(), "--trace", d.join("py.jsonl").to_str().unwrap()]);
    assert!(traced.status.success(), "{}", String::from_utf8_lossy(&traced.stderr));
    run(&worst, &["--trace", d.join("builtin.jsonl").to_str().unwrap()]);
    let steps = |f: &str| std::fs::read_to_string(d.join(f)).unwrap().lines().count();
    assert_eq!(steps("py.jsonl"), steps("builtin.jsonl"), "one line per step, as the built-in's");
    // The trace reads back on the same node processes, every line checked against the re-run.
    let back = run(&d.join("py.jsonl"), &["--node-cmd", &bully_py()]);
    assert!(back.status.success(), "{}", String::from_utf8_lossy(&back.stderr));
    assert_eq!(json(&back)["trace_hash"], json(&traced)["trace_hash"]);
    let lean = json(&run(&worst, &["--node-cmd", &bully_py(), "--no-trace"]));
    assert_eq!(lean["messages"], builtin["messages"]);
    std::fs::remove_dir_all(&d).unwrap();
}

/// A node process that behaves until node `bad` is told `start`, then does `mode`; every
/// process writes its pid to a file first.
const BROKEN: &str = r#"
import json, os, sys, time
mode, bad, pids = sys.argv[1], int(sys.argv[2]), sys.argv[3]
with open(os.path.join(pids, str(os.getpid())), "w") as f:
    f.write("started")
me = None
for line in sys.stdin:
    event = json.loads(line)
    if event["event"] == "hello":
        print(json.dumps({"id": "broken", "title": "broken", "kinds": [{"name": "PING"}]}), flush=True)
        continue
    if event["event"] == "init":
        me = event["me"]
    if me == bad and event["event"] == "start":
        if mode == "exit":
            print("node gave up: no quorum in sight", file=sys.stderr, flush=True)
            sys.exit(7)
        if mode == "hang":
            print("thinking very hard", file=sys.stderr, flush=True)
            time.sleep(3600)
        if mode == "junk":
            print("ready!", flush=True)
            continue
    effects = [{"broadcast": {"kind": "PING"}}] if event["event"] == "start" else []
    print(json.dumps({"effects": effects, "state": {"leader": me}}), flush=True)
"#;

const THREE: &str = r#"{"algorithm":"any","nodes":[1,2,3],"seed":1,
  "schedule":[{"at":0,"start":1},{"at":1,"start":3},{"at":2,"start":2}]}"#;

/// A fresh folder `name` holding the broken node's script and the three-node scenario (its path).
fn broken_three(name: &str) -> (PathBuf, PathBuf) {
    let d = dir(name);
    std::fs::write(d.join("broken_node.py"), BROKEN).unwrap();
    let scenario = d.join("three.json");
    std::fs::write(&scenario, THREE).unwrap();
    (d, scenario)
}

#[test]
fn a_node_that_exits_hangs_or_writes_junk_is_named_and_nothing_is_left_running() {
    let (d, scenario) = broken_three("broken");
    for (mode, says, stderr) in [
        ("exit", "the process exited (exit status: 7)", "node gave up: no quorum in sight"),
        ("hang", "did not answer within 2000 ms", "thinking very hard"),
        ("junk", "the process wrote `ready!`: not JSON", "it wrote nothing on its standard error"),
    ] {
        let (pids, cmd) = broken_node(&d, mode);
        let out = run(&scenario, &["--node-cmd", &cmd, "--node-timeout", "2000"]);
        let err = String::from_utf8_lossy(&out.stderr).to_string();
        assert_eq!(out.status.code(), Some(3), "{mode}: {err}");
        assert!(err.contains("a node process stopped the run"), "{mode}: {err}");
        assert!(err.contains("N3, t=1, on start"), "{mode}: the node and the event: {err}");
        assert!(err.contains(says) && err.contains(stderr), "{mode}: {err}");
        assert!(!err.contains("panicked"), "{mode}: {err}");
        // The summary of the run so far, saying why it stopped.
        let summary = json(&out);
        assert!(summary["halted"].as_str().is_some_and(|h| h.contains("N3")), "{mode}: {summary}");
        // Every process was started, and none is still running (the command has exited: it
        // killed and waited for them).
        assert_eq!(std::fs::read_dir(&pids).unwrap().count(), 3, "{mode}: one process per node");
        assert_eq!(still_running(&pids), Vec::<String>::new(), "{mode}: processes still running");
    }
    std::fs::remove_dir_all(&d).unwrap();
}

#[test]
fn bad_commands_and_declarations_are_bad_input() {
    let d = dir("bad");
    let scenario = d.join("three.json");
    std::fs::write(&scenario, THREE).unwrap();
    let bully = bully_py();
    let other = "3=python3 -c 'print(\"{\\\"id\\\": \\\"other\\\"}\")'".to_string();
    let junk_declaration = "python3 -c 'print(\"{\\\"id\\\": \\\"no-kinds\\\", \\\"title\\\": \\\"t\\\"}\")'";
    for (args, says) in [
        (vec!["--node-cmd", "no-such-program-here"], "node N1: cannot start `no-such-program-here`"),
        (vec!["--node-cmd", "python3 -c 'print(42)'"], "node N1, asked for its declaration"),
        (vec!["--node-cmd", junk_declaration], "declaration `kinds`"),
        (vec!["--node-cmd", "true", "--node-cmd", "9=true"], "the scenario has no node 9"),
        (vec!["--node-cmd", "2=true"], "no command for node 1"),
        (vec!["--node-cmd", "python3 'unclosed"], "is not closed"),
        (vec!["--node-cmd", bully.as_str(), "--node-cmd", other.as_str()], "every node runs the same algorithm"),
    ] {
        common::assert_refused(&run(&scenario, &args), says, &format!("{args:?}"));
    }
    std::fs::remove_dir_all(&d).unwrap();
}

fn search(scenario: &Path, extra: &[&str]) -> Output {
    common::cli().arg("search").arg(scenario).args(["--property", "split-brain"]).args(extra).output().unwrap()
}

/// The processes whose command line holds `mark`.
/// The folder where `broken_node.py` (in `d`) records its processes' ids, and the command that
/// runs it in `mode` (exit, hang, junk) on node 3.
fn broken_node(d: &Path, mode: &str) -> (PathBuf, String) {
    let pids = d.join(format!("pids-{mode}"));
    std::fs::create_dir_all(&pids).unwrap();
    let cmd = format!("python3 {} {mode} 3 {}", d.join("broken_node.py").display(), pids.display());
    (pids, cmd)
}

/// The recorded processes of `broken_node.py` (their ids, the files in `pids`) still running.
fn still_running(pids: &Path) -> Vec<String> {
    let ids = std::fs::read_dir(pids).unwrap().map(|e| e.unwrap().file_name().to_string_lossy().to_string());
    ids.filter(|pid| {
        let cmdline = std::fs::read(format!("/proc/{pid}/cmdline")).unwrap_or_default();
        String::from_utf8_lossy(&cmdline).contains("broken_node.py")
    })
    .collect()
}

fn running(mark: &str) -> Vec<String> {
    let mut out = Vec::new();
    for entry in std::fs::read_dir("/proc").unwrap().flatten() {
        let cmdline = std::fs::read(entry.path().join("cmdline")).unwrap_or_default();
        if String::from_utf8_lossy(&cmdline).contains(mark) {
            out.push(entry.file_name().to_string_lossy().into());
        }
    }
    out
}

/// `search --node-cmd`: the search runs many schedules on node processes (starting them again
/// for a schedule that goes another way than they lived through) and finds what it finds on the
/// built-in, the same counterexample, shrunk the same way; nothing is left running.
#[test]
fn the_search_finds_the_builtins_counterexample_on_the_python_bully() {
    let d = dir("search");
    let preset = registry::find("bully").unwrap().preset("split-brain-bully").unwrap();
    let scenario = d.join("split.json");
    std::fs::write(&scenario, preset.json).unwrap();
    let mark = format!("search-mark-{}", std::process::id());
    let cmd = format!("{} {mark}", bully_py());
    let out_file = d.join("found.json");
    let builtin_file = d.join("found-builtin.json");
    let builtin = search(&scenario, &["--out", builtin_file.to_str().unwrap()]);
    let py = search(&scenario, &["--node-cmd", &cmd, "--out", out_file.to_str().unwrap()]);
    assert_eq!(builtin.status.code(), Some(1), "{}", String::from_utf8_lossy(&builtin.stderr));
    assert_eq!(py.status.code(), Some(1), "{}", String::from_utf8_lossy(&py.stderr));
    let (mut b, mut p) = (json(&builtin), json(&py));
    assert_eq!(p["counterexample"]["algorithm"], "bully-py");
    assert_eq!(b["found"], true);
    for v in [&mut b, &mut p] {
        v["counterexample"].as_object_mut().unwrap().remove("algorithm");
    }
    assert_eq!(p, b, "the same search, counterexample and shrinking");
    assert!(running(&mark).is_empty(), "no node process is left running");
    // The counterexample's trace runs again on the processes as the built-in's runs.
    let again = json(&run(&out_file, &["--node-cmd", &cmd]));
    let builtin_again = json(&run(&builtin_file, &[]));
    for key in ["trace_hash", "violations", "leaders", "messages"] {
        assert_eq!(again[key], builtin_again[key], "{key}");
    }
    assert!(!again["violations"].as_array().unwrap().is_empty(), "{again}");
    assert!(running(&mark).is_empty());
    std::fs::remove_dir_all(&d).unwrap();
}

#[test]
fn a_node_that_fails_during_the_search_is_named_and_bad_input_is_refused() {
    let (d, scenario) = broken_three("search-broken");
    let (pids, cmd) = broken_node(&d, "exit");
    let out = search(&scenario, &["--node-cmd", &cmd, "--budget-steps", "2000"]);
    let err = String::from_utf8_lossy(&out.stderr).to_string();
    assert_eq!(out.status.code(), Some(3), "{err}");
    assert!(err.contains("a node process failed during the search: N3, t=1, on start"), "{err}");
    assert!(err.contains("node gave up: no quorum in sight"), "its standard error: {err}");
    assert!(json(&out)["schedules"].as_u64().is_some(), "the search's summary is printed");
    assert_eq!(still_running(&pids), Vec::<String>::new(), "processes still running");
    for (args, says) in [
        (vec!["--node-cmd", "no-such-program-here"], "node N1: cannot start `no-such-program-here`"),
        (vec!["--node-cmd", "2=true"], "no command for node 1"),
        (vec!["--node-cmd", "true", "--script", "x.rhai"], "cannot be used with"),
        (vec!["--node-timeout", "10"], "--node-cmd"),
    ] {
        common::assert_refused(&search(&scenario, &args), says, &format!("{args:?}"));
    }
    std::fs::remove_dir_all(&d).unwrap();
}
