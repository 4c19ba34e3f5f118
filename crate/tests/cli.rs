//! The `election-lab` command line, run as a built binary on temporary files: the documented
//! output keys (`election-lab run --help`), the `--trace` JSON Lines layout, presets, standard
//! input, and exit code 2 with a message naming the field or argument for bad input.

use serde_json::{json, Value};
use std::path::PathBuf;
use std::process::{Command, Output};
use std::sync::atomic::{AtomicU32, Ordering};

const BIN: &str = env!("CARGO_BIN_EXE_election-lab");

mod common;

/// The keys `run --help` promises in `run`'s output.
const SUMMARY_KEYS: &[&str] = &[
    "algorithm",
    "seed",
    "end_time",
    "steps",
    "quiescent",
    "leaders",
    "views",
    "agreement",
    "messages",
    "total_messages",
    "max_simultaneous_leaders",
    "violations",
    "elections",
    "trace_hash",
    "halted",
];

/// A file in the temp directory, removed when dropped.
struct Temp(PathBuf);

impl Temp {
    fn new(name: &str, contents: &str) -> Temp {
        static NEXT: AtomicU32 = AtomicU32::new(0);
        let k = NEXT.fetch_add(1, Ordering::Relaxed);
        let path = std::env::temp_dir().join(format!("election-lab-cli-{}-{k}-{name}", std::process::id()));
        std::fs::write(&path, contents).unwrap();
        Temp(path)
    }
    fn path(&self) -> &str {
        self.0.to_str().unwrap()
    }
}

impl Drop for Temp {
    fn drop(&mut self) {
        let _ = std::fs::remove_file(&self.0);
    }
}

fn cli(args: &[&str]) -> Output {
    Command::new(BIN).args(args).output().expect("run the binary")
}

fn cli_stdin(args: &[&str], input: &str) -> Output {
    use std::io::Write;
    let mut child = common::piped_cli(args);
    child.stdin.take().unwrap().write_all(input.as_bytes()).unwrap();
    child.wait_with_output().unwrap()
}

fn stdout(o: &Output) -> String {
    String::from_utf8(o.stdout.clone()).unwrap()
}
fn stderr(o: &Output) -> String {
    String::from_utf8(o.stderr.clone()).unwrap()
}

fn run_json(o: &Output) -> Value {
    assert!(o.status.success(), "exit {:?}, stderr: {}", o.status.code(), stderr(o));
    serde_json::from_str(stdout(o).trim())
        .unwrap_or_else(|e| panic!("output is not one JSON object ({e}): {}", stdout(o)))
}

/// Bully's worst case for N = 5 (19 election messages) — small and exact.
fn worst5() -> Value {
    json!({
        "algorithm": "bully", "nodes": [1, 2, 3, 4, 5], "seed": 425, "initial_leader": 5,
        "schedule": [{"at": 0, "crash": 5}, {"at": 0, "start": 1}, {"at": 0, "start": 2},
                     {"at": 0, "start": 3}, {"at": 0, "start": 4}],
    })
}

/// `run` prints one JSON object with every key its help lists, and the values are right.
#[test]
fn run_prints_every_documented_key() {
    let f = Temp::new("worst5.json", &worst5().to_string());
    let out = run_json(&cli(&["run", f.path()]));
    let obj = out.as_object().unwrap();
    for k in SUMMARY_KEYS {
        assert!(obj.contains_key(*k), "missing key {k}: {out}");
    }
    assert_eq!(obj.len(), SUMMARY_KEYS.len(), "undocumented keys: {out}");
    assert_eq!(out["algorithm"], "bully");
    assert_eq!(out["seed"], 425);
    assert_eq!(out["messages"], json!({"ELECTION": 10, "OK": 6, "COORDINATOR": 3}));
    assert_eq!(out["total_messages"], 19);
    assert_eq!(out["leaders"], json!([4]));
    assert_eq!(out["views"], json!({"1": 4, "2": 4, "3": 4, "4": 4}));
    assert_eq!(out["agreement"], true);
    assert_eq!(out["quiescent"], true);
    assert_eq!(out["violations"], json!([]));
    // Everyone agreed on N5 at t = 0; its crash at t = 0 opened a stretch that N4's
    // COORDINATOR closed at t = 4.
    assert_eq!(out["elections"], json!([{"from": 0, "to": 4, "leader": 4, "latency": 4}]));
    let hash = out["trace_hash"].as_str().unwrap();
    assert!(hash.len() == 16 && hash.chars().all(|c| c.is_ascii_hexdigit()), "{hash}");
    // The same file twice: the same output, byte for byte.
    assert_eq!(stdout(&cli(&["run", f.path()])), stdout(&cli(&["run", f.path()])));
}

/// Violations appear in the output with kind, time, step and nodes (the split-brain experiment).
#[test]
fn run_reports_violations() {
    let split = json!({
        "algorithm": "bully", "nodes": [1, 2, 3, 4, 5], "seed": 425, "initial_leader": 5,
        "heartbeats": {"interval": 2, "timeout": 10},
        "schedule": [{"at": 5, "partition": [[1, 2], [3, 4, 5]]}], "stop": {"max_time": 300},
    });
    let f = Temp::new("split.json", &split.to_string());
    let out = run_json(&cli(&["run", f.path()]));
    assert_eq!(out["leaders"], json!([2, 5]));
    let v = &out["violations"][0];
    assert_eq!(v["kind"], "split-brain");
    assert_eq!(v["nodes"], json!([2, 5]));
    assert!(v["time"].as_u64().unwrap() > 5 && v["step"].as_u64().unwrap() > 0, "{v}");
}

/// `--trace OUT.jsonl` writes a header line, one line per step, and a summary line.
#[test]
fn trace_writes_header_steps_and_summary() {
    let f = Temp::new("worst5.json", &worst5().to_string());
    let out = Temp::new("worst5.jsonl", "");
    let summary = run_json(&cli(&["run", f.path(), "--trace", out.path()]));
    let text = std::fs::read_to_string(out.path()).unwrap();
    let lines: Vec<Value> = text.lines().map(|l| serde_json::from_str(l).expect("each line is JSON")).collect();
    let steps = summary["steps"].as_u64().unwrap();
    assert_eq!(lines.len() as u64, steps + 2, "header + {steps} steps + summary");

    let header = &lines[0];
    assert_eq!(header["format"], "election-lab-trace/2");
    assert_eq!(header["scenario"]["algorithm"], "bully");
    assert_eq!(header["scenario"]["nodes"], json!([1, 2, 3, 4, 5]));
    assert_eq!(header["interventions"], json!([]));

    for (k, line) in lines[1..=steps as usize].iter().enumerate() {
        assert_eq!(line["step"], k as u64 + 1, "{line}");
        assert!(line["time"].is_u64() && line["text"].is_string(), "{line}");
        match line["event"].as_str().unwrap() {
            "deliver" | "drop" => {
                for key in ["msg", "kind", "from", "to"] {
                    assert!(!line[key].is_null(), "{key} in {line}");
                }
            }
            "timer" => assert!(line["node"].is_u64() && line["timer"].is_string(), "{line}"),
            "fault" => assert!(line["action"].is_object(), "{line}"),
            other => panic!("unknown event {other}: {line}"),
        }
    }
    // The five faults come first (t = 0), the last step is a delivery.
    assert_eq!(lines[1]["action"], json!({"crash": 5}));
    assert_eq!(lines[2]["action"], json!({"start": 1}));
    let sends: usize = lines[1..=steps as usize].iter().map(|l| l["sends"].as_array().map_or(0, |a| a.len())).sum();
    assert_eq!(sends, 19, "every message sent appears once in a step's sends");
    let drops = lines.iter().filter(|l| l["event"] == "drop").count();
    assert_eq!(drops, 4, "the four ELECTIONs to the crashed N5 are dropped");
    assert!(lines.iter().filter(|l| l["event"] == "drop").all(|l| l["reason"] == "crashed" && l["to"] == 5));

    assert_eq!(lines.last().unwrap()["summary"], summary);
}

/// An exported trace (scenario + interventions) runs like a scenario, and its `--trace` file
/// marks where each intervention was applied.
#[test]
fn run_accepts_an_exported_trace_with_interventions() {
    let trace = json!({
        "format": "election-lab-trace/1",
        "scenario": {"algorithm": "bully", "nodes": [1, 2, 3, 4, 5], "seed": 1, "initial_leader": 5,
                     "heartbeats": {"interval": 2, "timeout": 10}, "stop": {"max_time": 100}},
        "interventions": [{"step": 3, "crash": 5}],
    });
    let f = Temp::new("trace.json", &trace.to_string());
    let out = Temp::new("trace.jsonl", "");
    let summary = run_json(&cli(&["run", f.path(), "--trace", out.path()]));
    assert_eq!(summary["leaders"], json!([4]), "{summary}");
    let text = std::fs::read_to_string(out.path()).unwrap();
    let lines: Vec<Value> = text.lines().map(|l| serde_json::from_str(l).unwrap()).collect();
    // A format-1 trace has no times; the replay anchors each intervention to its virtual time.
    let at_step_3 = lines.iter().find(|l| l["step"] == 3).unwrap()["time"].clone();
    assert_eq!(lines[0]["interventions"], json!([{"step": 3, "time": at_step_3, "crash": 5}]));
    let marks: Vec<(usize, &Value)> =
        lines.iter().enumerate().filter(|(_, l)| l.get("intervention_at_step").is_some()).collect();
    assert_eq!(marks.len(), 1);
    let (at, mark) = marks[0];
    assert_eq!(mark["crash"], 5);
    assert_eq!(lines[at - 1]["step"], 3, "the mark follows step 3");
    assert_eq!(lines[at + 1]["step"], 4);
    assert_eq!(lines.len() as u64, summary["steps"].as_u64().unwrap() + 3);
}

/// `run --no-trace` keeps no history and prints the very same summary; it cannot be combined
/// with `--trace`.
#[test]
fn no_trace_prints_the_same_summary() {
    for v in [worst5(), serde_json::from_str(election_lab::presets::find("fencing-tokens").unwrap().json).unwrap()] {
        let f = Temp::new("scenario.json", &v.to_string());
        let full = cli(&["run", f.path()]);
        let lean = cli(&["run", "--no-trace", f.path()]);
        assert!(lean.status.success(), "{}", stderr(&lean));
        assert_eq!(stdout(&lean), stdout(&full));
    }
    let f = Temp::new("scenario.json", &worst5().to_string());
    let out = Temp::new("trace.jsonl", "");
    let both = cli(&["run", "--no-trace", "--trace", out.path(), f.path()]);
    assert_eq!(both.status.code(), Some(2));
    assert!(stderr(&both).contains("--no-trace"), "{}", stderr(&both));
}

/// FILE may be `-` for standard input.
#[test]
fn run_reads_standard_input() {
    let out = run_json(&cli_stdin(&["run", "-"], &worst5().to_string()));
    assert_eq!(out["total_messages"], 19);
}

/// `preset` lists the presets; `preset NAME` prints a scenario that `run` accepts.
#[test]
fn presets_round_trip_through_run() {
    let list = cli(&["preset"]);
    assert!(list.status.success());
    let names: Vec<String> = stdout(&list).lines().map(|l| l.split_whitespace().next().unwrap().to_string()).collect();
    assert!(names.contains(&"bully-worst-8".to_string()), "{names:?}");
    for name in &names {
        let p = cli(&["preset", name]);
        assert!(p.status.success(), "{name}: {}", stderr(&p));
        let f = Temp::new("preset.json", &stdout(&p));
        assert!(cli(&["check", f.path()]).status.success(), "{name}");
        let out = run_json(&cli(&["run", f.path()]));
        if name == "bully-worst-8" {
            assert_eq!(out["total_messages"], 55, "Bully's worst case: N²-N-1 for N = 8");
            assert_eq!(out["leaders"], json!([7]));
        }
    }
}

/// `check` validates without running.
#[test]
fn check_accepts_a_good_file() {
    let f = Temp::new("ok.json", &worst5().to_string());
    let o = cli(&["check", f.path()]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert_eq!(stdout(&o).trim(), "ok: bully with 5 nodes");
}

/// Bad input: exit code 2, nothing on stdout, and a message on stderr naming the field.
#[test]
fn malformed_files_exit_2_naming_the_field() {
    let cases: &[(&str, &str)] = &[
        (r#"{"algorithm":"bully","nodes":[1,5,5]}"#, "nodes: duplicate id 5"),
        (
            r#"{"algorithm":"bully","nodes":[1,2],"network":{"latency":[5,2]}}"#,
            "network.latency: minimum 5 is above maximum 2",
        ),
        (r#"{"algorithm":"bully","nodes":[1,2],"network":{"latency":[0,2]}}"#, "network.latency:"),
        (r#"{"algorithm":"bully","nodes":[1,2],"network":{"loss":2}}"#, "network.loss:"),
        (r#"{"algorithm":"no-such-algorithm","nodes":[1,2]}"#, "algorithm: unknown algorithm 'no-such-algorithm'"),
        (r#"{"algorithm":"bully","nodes":[]}"#, "nodes: needs at least one node"),
        (r#"{"algorithm":"bully","nodes":[1,2],"initial_leader":9}"#, "initial_leader: unknown node 9"),
        (r#"{"algorithm":"bully","nodes":[1,2],"schedule":[{"at":3,"crash":9}]}"#, "schedule[0].crash: unknown node 9"),
        (r#"{"algorithm":"bully","nodes":[1,2],"schedule":[{"crash":1}]}"#, "schedule[0].at:"),
        (r#"{"algorithm":"bully","nodes":[1,2],"heartbeats":{"interval":5,"timeout":5}}"#, "heartbeats.timeout:"),
        (r#"{"algorithm":"raft","nodes":[1,2],"params":{"election_timeout":[9,3]}}"#, "params.election_timeout:"),
        (r#"{"algorithm":"bully","nodes":[1,2],"params":{"t_out":0}}"#, "params.t_out:"),
        (r#"{"algorithm":"bully","nodes":[1,2],"colour":"red"}"#, "unknown field `colour`"),
        (r#"{"algorithm":"bully","nodes":[1,"two"]}"#, "nodes[1]:"),
        (r#"{"scenario":{"algorithm":"bully","nodes":[1,1]}}"#, "scenario.nodes: duplicate id 1"),
        (
            r#"{"scenario":{"algorithm":"bully","nodes":[1,2]},"interventions":[{"step":0,"crash":7}]}"#,
            "interventions[0]",
        ),
        ("{not json", "not valid JSON"),
        ("[1, 2]", "must be a JSON object"),
    ];
    for (text, want) in cases {
        let f = Temp::new("bad.json", text);
        for cmd in ["run", "check"] {
            let o = cli(&[cmd, f.path()]);
            assert_eq!(o.status.code(), Some(2), "{cmd} {text}: {}", stderr(&o));
            assert!(o.stdout.is_empty(), "{cmd} {text}: stdout {}", stdout(&o));
            let err = stderr(&o);
            assert!(err.contains(want), "{cmd} {text}: stderr {err:?} should contain {want:?}");
            assert!(err.starts_with("election-lab: ") && err.contains(f.path()), "{err}");
        }
    }
}

/// Bad arguments also exit with code 2, and the message names the argument.
#[test]
fn bad_arguments_exit_2() {
    let f = Temp::new("ok.json", &worst5().to_string());
    let missing = std::env::temp_dir().join("election-lab-cli-no-such-file.json");
    let cases: Vec<(Vec<&str>, &str)> = vec![
        (vec![], "Usage:"),
        (vec!["frobnicate"], "unrecognized subcommand 'frobnicate'"),
        (vec!["run"], "<FILE>"),
        (vec!["run", f.path(), "--trace"], "--trace <OUT.jsonl>"),
        (vec!["run", f.path(), "extra"], "unexpected argument 'extra'"),
        (vec!["run", f.path(), "--tarce", "x"], "unexpected argument '--tarce'"),
        (vec!["run", missing.to_str().unwrap()], "cannot read"),
        (vec!["check"], "<FILE>"),
        (vec!["preset", "no-such-preset"], "invalid value 'no-such-preset'"),
    ];
    for (args, want) in cases {
        let o = cli(&args);
        assert_eq!(o.status.code(), Some(2), "{args:?}");
        assert!(o.stdout.is_empty(), "{args:?}: stdout {}", stdout(&o));
        assert!(stderr(&o).contains(want), "{args:?}: {}", stderr(&o));
    }
    // A bad preset name lists the good ones.
    assert!(stderr(&cli(&["preset", "no-such-preset"])).contains("bully-worst-8"));
}

/// `help`, `--help` and `--version` succeed; each subcommand has its own help, and `run`'s
/// lists every key of its output.
#[test]
fn help_and_version() {
    for args in [vec!["help"], vec!["--help"], vec!["-h"]] {
        let o = cli(&args);
        assert!(o.status.success(), "{args:?}");
        for cmd in ["run", "sweep", "check", "preset", "completions"] {
            assert!(stdout(&o).contains(cmd), "{args:?} lists {cmd}: {}", stdout(&o));
        }
    }
    let v = cli(&["--version"]);
    assert!(v.status.success());
    assert_eq!(stdout(&v).trim(), format!("election-lab {}", env!("CARGO_PKG_VERSION")));
    for cmd in ["run", "sweep", "check", "preset", "completions"] {
        let o = cli(&[cmd, "--help"]);
        assert!(o.status.success() && stdout(&o).contains("Usage: election-lab"), "{cmd} --help: {}", stderr(&o));
    }
    let run_help = stdout(&cli(&["help", "run"]));
    for k in SUMMARY_KEYS {
        assert!(run_help.contains(k), "run --help documents {k}: {run_help}");
    }
    assert!(run_help.contains("--trace <OUT.jsonl>"));
}

/// `completions SHELL` prints a script that knows the subcommands.
#[test]
fn completions_name_the_subcommands() {
    let o = cli(&["completions", "bash"]);
    assert!(o.status.success(), "{}", stderr(&o));
    let script = stdout(&o);
    assert!(script.contains("election-lab") && script.contains("preset") && script.contains("--trace"), "{script}");
    assert_eq!(cli(&["completions", "tcsh"]).status.code(), Some(2));
}

/// Bully's worst case for N = 3..6, two seeds each: small, exact, and with a formula.
fn bully_sweep() -> Value {
    json!({
        "scenario": {"heartbeats": null},
        "algorithms": [{"algorithm": "bully", "formula": "N²−N−1", "set": {"initial_leader": "max"},
                        "schedule": [{"at": 0, "crash": "max"}, {"at": 0, "start": "others"}]}],
        "nodes": {"from": 3, "to": 6},
        "seeds": {"count": 2, "start": 7},
    })
}

/// `sweep SPEC` prints one CSV row per run under the documented header; `--json` prints the
/// same numbers as JSON Lines; both equal what the engine's `Sweep` (the browser's code) gives.
#[test]
fn sweep_prints_csv_and_json_lines_with_the_same_numbers() {
    use election_lab::experiment::{Sweep, COLUMNS, SUMMARY_COLUMNS};
    let f = Temp::new("sweep.json", &bully_sweep().to_string());
    let o = cli(&["sweep", f.path()]);
    assert!(o.status.success(), "{}", stderr(&o));
    let csv = stdout(&o);
    let mut lines = csv.lines();
    assert_eq!(lines.next().unwrap(), COLUMNS.join(","));
    let rows: Vec<Vec<&str>> = lines.map(|l| l.split(',').collect()).collect();
    assert_eq!(rows.len(), 8);
    let col = |name: &str| COLUMNS.iter().position(|c| *c == name).unwrap();
    for r in &rows {
        let n: u64 = r[col("nodes")].parse().unwrap();
        assert_eq!(r[col("counted")], (n * n - n - 1).to_string());
        assert_eq!(r[col("theory")], r[col("counted")]);
        assert_eq!(r[col("algorithm")], "bully");
    }
    assert_eq!(rows[1][col("seed")], "8");
    // The library gives the same text: what the browser shows for the same spec.
    let mut lib = Sweep::from_value(&bully_sweep()).unwrap();
    lib.advance(u64::MAX);
    assert_eq!(csv, lib.csv());

    let json_out = stdout(&cli(&["sweep", "--json", f.path()]));
    let objs: Vec<Value> = json_out.lines().map(|l| serde_json::from_str(l).unwrap()).collect();
    assert_eq!(objs.len(), 8);
    for (o, r) in objs.iter().zip(&rows) {
        assert_eq!(o.as_object().unwrap().len(), COLUMNS.len());
        assert_eq!(o["counted"].to_string(), r[col("counted")]);
        assert_eq!(o["trace_hash"].as_str().unwrap(), r[col("trace_hash")]);
        // The crash at t = 0 ends the agreement on the top id; the new leader's COORDINATOR
        // restores it.
        assert!(o["downtime"].as_u64().unwrap() > 0);
        assert_eq!(o["downtime"].to_string(), r[col("downtime")]);
        assert_eq!(o["minority_leaders"], Value::Null, "no partition: an empty cell, null in JSON");
        assert_eq!(r[col("minority_leaders")], "");
    }

    let summary = stdout(&cli(&["sweep", "--summary", f.path()]));
    let mut lines = summary.lines();
    assert_eq!(lines.next().unwrap(), SUMMARY_COLUMNS.join(","));
    assert_eq!(
        lines.next().unwrap().split(',').take(8).collect::<Vec<_>>(),
        ["Bully", "bully", "", "3", "2", "counted", "2", "5.000"]
    );
    let picked = stdout(&cli(&["sweep", "--summary", "--columns", "nodes,mean,theory", "--markdown", f.path()]));
    assert_eq!(picked, "| nodes | mean | theory |\n|---|---|---|\n| 3 | 5.000 | 5 |\n| 4 | 11.000 | 11 |\n| 5 | 19.000 | 19 |\n| 6 | 29.000 | 29 |\n");
}

/// `--svg OUT` writes the plot; a bad spec or column exits with 2 naming the field.
#[test]
fn sweep_writes_the_plot_and_rejects_bad_input() {
    let f = Temp::new("sweep.json", &bully_sweep().to_string());
    let svg = Temp::new("sweep.svg", "");
    let o = cli(&["sweep", f.path(), "--svg", svg.path(), "--lang", "zh"]);
    assert!(o.status.success(), "{}", stderr(&o));
    let text = std::fs::read_to_string(svg.path()).unwrap();
    assert!(text.starts_with("<svg") && text.contains("理论值: N²−N−1"), "{text}");

    let mut bad = bully_sweep();
    bad["measure"] = json!("speed");
    let b = Temp::new("bad.json", &bad.to_string());
    let o = cli(&["sweep", b.path()]);
    assert_eq!(o.status.code(), Some(2));
    assert!(stderr(&o).contains("measure: unknown measure 'speed'"), "{}", stderr(&o));
    let o = cli(&["sweep", "--columns", "nodes,colour", f.path()]);
    assert_eq!(o.status.code(), Some(2));
    assert!(stderr(&o).contains("--columns: no column 'colour'"), "{}", stderr(&o));
    let o = cli_stdin(&["sweep", "-", "--summary", "--columns", "runs"], &bully_sweep().to_string());
    assert_eq!(stdout(&o), "runs\n2\n2\n2\n2\n");
}

/// `sweep --shard K/N`: the shards' outputs, one after the other, are the whole sweep's output
/// (CSV: the header comes from shard 1; JSON Lines); bad shards and shards of a summary, a
/// Markdown table or a plot are refused naming `--shard`.
#[test]
fn sweep_shards_concatenate_to_the_whole_output() {
    let f = Temp::new("sweep.json", &bully_sweep().to_string());
    for fmt in [&[][..], &["--json"][..], &["--columns", "seed,messages,trace_hash"][..]] {
        let whole = stdout(&cli(&[&["sweep", f.path()][..], fmt].concat()));
        for n in [2, 3, 8, 11] {
            let mut joined = String::new();
            for k in 1..=n {
                let shard = format!("{k}/{n}");
                let o = cli(&[&["sweep", f.path(), "--shard", &shard][..], fmt].concat());
                assert!(o.status.success(), "{shard}: {}", stderr(&o));
                joined.push_str(&stdout(&o));
            }
            assert_eq!(joined, whole, "{n} shards, {fmt:?}");
        }
    }
    for (args, why) in [
        (&["--shard", "0/3"][..], "--shard"),
        (&["--shard", "4/3"][..], "--shard"),
        (&["--shard", "two"][..], "--shard"),
        (&["--shard", "1/2", "--summary"][..], "--shard"),
        (&["--shard", "1/2", "--markdown"][..], "--shard"),
    ] {
        let o = cli(&[&["sweep", f.path()][..], args].concat());
        assert_eq!(o.status.code(), Some(2), "{args:?}");
        assert!(stderr(&o).contains(why), "{args:?}: {}", stderr(&o));
    }
}

/// Inputs past the documented sizes are refused by name before any work (issue: a 50 MB scenario
/// of 2.7 M actions grew the CLI past 16 GB): a 50 MB file by its size, before it is read; the
/// same on standard input; a file under the byte limit with too many actions or nodes by the
/// list at fault. The big inputs are built here, in the temp directory.
#[test]
fn oversized_inputs_are_refused_by_name() {
    let limit = election_lab::scenario::MAX_BYTES;
    // 50 MB: a scenario whose schedule holds about 2.7 M crash actions.
    let mut big = String::from(r#"{"algorithm":"bully","nodes":[1,2,3],"schedule":["#);
    let action = r#"{"at":1,"crash":2},"#;
    while big.len() < 50_000_000 {
        big.push_str(action);
    }
    big.push_str(r#"{"at":1,"crash":2}]}"#);
    let f = Temp::new("big.json", &big);
    for cmd in ["run", "check"] {
        let o = cli(&[cmd, f.path()]);
        assert_eq!(o.status.code(), Some(2), "{cmd}");
        let err = stderr(&o);
        assert!(err.contains(&format!("{} bytes is more than the {limit}", big.len())), "{cmd}: {err}");
        assert!(err.contains("big.json"), "names the file: {err}");
    }
    // On standard input the CLI stops reading past the limit, so the writer may see a broken pipe.
    let mut child = common::piped_cli(&["run", "-"]);
    let mut input = child.stdin.take().unwrap();
    let writer = std::thread::spawn(move || {
        use std::io::Write;
        let _ = input.write_all(big.as_bytes());
    });
    let o = child.wait_with_output().unwrap();
    writer.join().unwrap();
    assert_eq!(o.status.code(), Some(2));
    assert!(stderr(&o).contains(&format!("more than the {limit}")), "{}", stderr(&o));
    let o = cli(&["sweep", f.path()]);
    assert_eq!(o.status.code(), Some(2));
    assert!(stderr(&o).contains(&format!("more than the {limit}")), "{}", stderr(&o));
    drop(f);

    // Under the byte limit, but one action too many: the schedule is named.
    let max = election_lab::scenario::MAX_ACTIONS;
    let schedule: Vec<Value> = (0..=max).map(|_| json!({"at": 1, "start": 1})).collect();
    let v = json!({"algorithm": "bully", "nodes": [1, 2], "schedule": schedule});
    let text = v.to_string();
    assert!(text.len() < limit, "{} bytes", text.len());
    let f = Temp::new("actions.json", &text);
    let o = cli(&["run", f.path()]);
    assert_eq!(o.status.code(), Some(2));
    assert!(stderr(&o).contains(&format!("schedule: {} actions is more than the {max}", max + 1)), "{}", stderr(&o));
    // The same in a trace's interventions.
    let ivs: Vec<Value> = (0..=max).map(|_| json!({"step": 0, "start": 1})).collect();
    let t = json!({"scenario": {"algorithm": "bully", "nodes": [1, 2]}, "interventions": ivs});
    let f = Temp::new("trace.json", &t.to_string());
    let o = cli(&["run", f.path()]);
    assert_eq!(o.status.code(), Some(2));
    assert!(
        stderr(&o).contains(&format!("interventions: {} interventions is more than the {max}", max + 1)),
        "{}",
        stderr(&o)
    );
    // Too many nodes.
    let n = election_lab::scenario::MAX_NODES;
    let f = Temp::new(
        "nodes.json",
        &json!({"algorithm": "bully", "nodes": (1..=n as u32 + 1).collect::<Vec<_>>()}).to_string(),
    );
    let o = cli(&["check", f.path()]);
    assert_eq!(o.status.code(), Some(2));
    assert!(stderr(&o).contains(&format!("nodes: {} nodes is more than the {n} supported", n + 1)), "{}", stderr(&o));
}

/// Bully, N5 leading, partitioned {1,2} | {3,4,5} at t=5: N2 takes over the minority.
fn split_scenario() -> Value {
    json!({
        "algorithm": "bully", "nodes": [1, 2, 3, 4, 5], "seed": 425, "initial_leader": 5,
        "heartbeats": {"interval": 2, "timeout": 10},
        "schedule": [{"at": 5, "partition": [[1, 2], [3, 4, 5]]}], "stop": {"max_time": 300},
    })
}

fn jsonl(path: &str) -> Vec<Value> {
    std::fs::read_to_string(path).unwrap().lines().map(|l| serde_json::from_str(l).unwrap()).collect()
}

/// `--until` stops at the first hit and names it; `--trace` ends there and carries the
/// breakpoints; the hit is where the full run's first violation is.
#[test]
fn run_until_stops_at_the_first_hit() {
    let f = Temp::new("split.json", &split_scenario().to_string());
    let full = run_json(&cli(&["run", f.path()]));
    let first = full["violations"][0]["step"].as_u64().unwrap();
    let out = Temp::new("until.jsonl", "");
    let o =
        run_json(&cli(&["run", f.path(), "--until", "violation", "--until", "role:3=leader", "--trace", out.path()]));
    assert_eq!(o["hit"]["step"], json!(first), "{o}");
    assert_eq!(o["hit"]["breakpoint"], "violation");
    assert_eq!(o["hit"]["nodes"], json!([2, 5]));
    assert_eq!(o["steps"], json!(first));
    let lines = jsonl(out.path());
    assert_eq!(lines[0]["until"], json!(["violation", "role:3=leader"]));
    assert_eq!(lines[0]["step"], json!(first));
    assert_eq!(lines[lines.len() - 2]["step"], json!(first), "the trace ends at the hit");
    assert_eq!(lines[lines.len() - 2]["violations"][0]["kind"], "split-brain");
    // The trace reads back; without --until, its breakpoints are carried, not applied.
    let back = run_json(&cli(&["run", out.path()]));
    assert_eq!(back, full, "from the hit, the run goes on to the same end");
    // No hit: null, and the run goes to its end.
    let o = run_json(&cli(&["run", f.path(), "--until", "role:3=leader"]));
    assert_eq!(o["hit"], Value::Null);
    assert_eq!(o["trace_hash"], full["trace_hash"]);
    // A bad breakpoint exits 2 naming it.
    let o = cli(&["run", f.path(), "--until", "violation", "--until", "deliver:VOTE:to=3"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(stderr(&o).contains("--until[1]: unknown message kind 'VOTE' for bully"), "{}", stderr(&o));
}

/// What `run --trace` writes, `run` and `check` read back: the same summary and trace_hash; a
/// hand-edited line is named.
#[test]
fn a_trace_file_reads_back() {
    let f = Temp::new("split.json", &split_scenario().to_string());
    let out = Temp::new("split.jsonl", "");
    let summary = run_json(&cli(&["run", f.path(), "--trace", out.path()]));
    let again = run_json(&cli(&["run", out.path()]));
    assert_eq!(again, summary);
    let o = cli(&["check", out.path()]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert_eq!(stdout(&o), "ok: bully with 5 nodes\n");
    let mut lines = jsonl(out.path());
    lines[9]["kind"] = json!("OK");
    let text: String = lines.iter().map(|l| format!("{l}\n")).collect();
    let edited = Temp::new("edited.jsonl", &text);
    let o = cli(&["run", edited.path()]);
    assert_eq!(o.status.code(), Some(2));
    assert!(
        stderr(&o).contains(&format!("{}: line 10: event differs from the re-run: \"kind\"", edited.path())),
        "{}",
        stderr(&o)
    );
}

/// `--link` opens the run at its first violation (or `--step`), in the page's link format.
#[test]
fn run_link_opens_at_the_first_violation() {
    let f = Temp::new("split.json", &split_scenario().to_string());
    let o = run_json(&cli(&["run", f.path(), "--link", "--base", "https://lab.example/"]));
    let first = o["violations"][0]["step"].as_u64().unwrap();
    let link = o["link"].as_str().unwrap();
    assert!(link.starts_with("https://lab.example/?t=1."), "{link}");
    assert!(link.ends_with(&format!("&step={first}&a=bully")), "{link}");
    let e = election_lab::link::open(link).unwrap();
    assert_eq!(e.cursor(), first);
    assert_eq!(e.violations().len(), 1);
    let o = run_json(&cli(&["run", f.path(), "--link", "--step", "12"]));
    assert!(o["link"].as_str().unwrap().starts_with("http://127.0.0.1:8080/?t=1."));
    assert_eq!(election_lab::link::open(o["link"].as_str().unwrap()).unwrap().cursor(), 12);
}

/// A run stopped by its history budget exits 3 and says which budget.
#[test]
fn a_run_out_of_budget_exits_3() {
    let f = Temp::new("split.json", &split_scenario().to_string());
    let o = cli(&["run", f.path(), "--budget", "50"]);
    assert_eq!(o.status.code(), Some(3), "{}", stderr(&o));
    assert!(stderr(&o).contains("the step budget ran out: stopped after 50 steps"), "{}", stderr(&o));
    let summary: Value = serde_json::from_str(stdout(&o).trim()).unwrap();
    assert_eq!(summary["steps"], 50);
    assert!(summary["halted"].as_str().unwrap().contains("step budget"));
    let help = stdout(&cli(&["run", "--help"]));
    assert!(help.contains("3 stopped by the history budget"), "{help}");
}

/// Every sweep row says how to replay it, and `--replay K` writes run K's trace, which shows
/// the violation the row counted and reads back to the row's trace_hash.
#[test]
fn sweep_rows_replay() {
    use election_lab::experiment::COLUMNS;
    let mut spec: Value =
        serde_json::from_str(&std::fs::read_to_string("../experiments/one-partition.json").unwrap()).unwrap();
    spec["algorithms"] = json!(["bully", "raft"]);
    spec["seeds"] = json!({"count": 3});
    let f = Temp::new("one-partition.json", &spec.to_string());
    let o = cli(&["sweep", f.path()]);
    assert!(o.status.success(), "{}", stderr(&o));
    let csv = stdout(&o);
    let col = |name: &str| COLUMNS.iter().position(|c| *c == name).unwrap();
    assert!(COLUMNS.ends_with(&["trace_hash", "run", "faults", "order"]));
    let rows: Vec<Vec<&str>> = csv.lines().skip(1).map(|l| l.split(',').collect()).collect();
    assert_eq!(rows.len(), 6);
    for (k, r) in rows.iter().enumerate() {
        assert_eq!(r.len(), COLUMNS.len(), "no quoting needed: {r:?}");
        assert_eq!(r[col("run")], k.to_string());
        assert_eq!(r[col("faults")], "", "the partition is the spec's own, not drawn");
    }
    let bully = rows.iter().position(|r| r[col("algorithm")] == "bully" && r[col("violations")] != "0").unwrap();
    let out = Temp::new("replay.jsonl", "");
    let o = cli(&["sweep", f.path(), "--replay", &bully.to_string()]);
    assert!(o.status.success(), "{}", stderr(&o));
    std::fs::write(out.path(), stdout(&o)).unwrap();
    let lines = jsonl(out.path());
    assert!(lines.iter().any(|l| l["violations"][0]["kind"] == "split-brain"), "the violation is marked");
    let back = run_json(&cli(&["run", out.path()]));
    assert_eq!(back["trace_hash"], rows[bully][col("trace_hash")]);
    assert_eq!(back["violations"].as_array().unwrap().len().to_string(), rows[bully][col("violations")]);
    let o = cli(&["sweep", f.path(), "--replay", "6"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(stderr(&o).contains("--replay: no run 6 (this sweep has 6 runs: 0 to 5)"), "{}", stderr(&o));
}

/// A random partition drawn by the sweep is in its row.
#[test]
fn sweep_rows_carry_the_drawn_partition() {
    let spec = json!({
        "scenario": {"nodes": [1, 2, 3, 4, 5], "initial_leader": 5, "heartbeats": {"interval": 2, "timeout": 10},
                     "stop": {"max_time": 100}},
        "algorithms": [{"algorithm": "bully", "schedule": [{"at": 20, "partition": "random"}, {"at": 60, "heal": true}]}],
        "seeds": {"count": 2},
    });
    let f = Temp::new("random.json", &spec.to_string());
    let o = cli(&["sweep", f.path(), "--json"]);
    assert!(o.status.success(), "{}", stderr(&o));
    for (k, line) in stdout(&o).lines().enumerate() {
        let row: Value = serde_json::from_str(line).unwrap();
        let faults = row["faults"].as_str().unwrap();
        assert!(faults.starts_with("20:partition=") && faults.ends_with(" 60:heal"), "{faults}");
        // The partition in the row is the one the replayed run applied.
        let e = run_json(&cli_stdin(&["run", "-"], &{
            let t = stdout(&cli(&["sweep", f.path(), "--replay", &k.to_string()]));
            t
        }));
        assert_eq!(e["trace_hash"], row["trace_hash"]);
        let groups = faults.trim_start_matches("20:partition=").split(' ').next().unwrap();
        let sides: Vec<Vec<u32>> =
            groups.split('/').map(|g| g.split('+').map(|x| x.parse().unwrap()).collect()).collect();
        assert_eq!(sides.iter().map(Vec::len).sum::<usize>(), 5);
    }
}

/// `diff`: identical runs exit 0 with no difference; two seeds exit 1 naming the first
/// divergence; `--json` for scripts.
#[test]
fn diff_compares_two_runs() {
    let mut a = split_scenario();
    a["network"] = json!({"latency": [1, 3]});
    let mut b = a.clone();
    b["seed"] = json!(426);
    let fa = Temp::new("a.json", &a.to_string());
    let fb = Temp::new("b.json", &b.to_string());
    let o = cli(&["diff", fa.path(), fa.path()]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    assert!(stdout(&o).contains("no difference"), "{}", stdout(&o));
    let o = cli(&["diff", fa.path(), fb.path()]);
    assert_eq!(o.status.code(), Some(1), "{}", stderr(&o));
    assert!(stdout(&o).contains("first divergence at t="), "{}", stdout(&o));
    let o = cli(&["diff", "--json", fa.path(), fb.path()]);
    assert_eq!(o.status.code(), Some(1));
    let d: Value = serde_json::from_str(stdout(&o).trim()).unwrap();
    assert_eq!(d["identical"], false);
    assert!(d["first"]["step_a"].as_u64().unwrap() > 0);
    // A trace and its scenario: the trace stands at the end, the same run.
    let t = Temp::new("a.jsonl", "");
    run_json(&cli(&["run", fa.path(), "--trace", t.path()]));
    assert_eq!(cli(&["diff", fa.path(), t.path()]).status.code(), Some(0));
    let o = cli(&["diff", fa.path(), "/nonexistent.json"]);
    assert_eq!(o.status.code(), Some(2));
}
