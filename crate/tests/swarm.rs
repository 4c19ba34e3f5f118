//! Swarm verification across machines: `check-model --swarm K/N` tasks, each with its own
//! search order, and `--merge-swarm` reporting their union honestly.

use election_lab::check::{check, Bounds, Verdict};
use election_lab::Scenario;
use serde_json::Value;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

mod common;

const BIN: &str = env!("CARGO_BIN_EXE_election-lab");
const BULLY3: &str =
    r#"{"algorithm":"bully","nodes":[1,2,3],"seed":1,"initial_leader":3,"heartbeats":{"interval":2,"timeout":10}}"#;
const RAFT3: &str = r#"{"algorithm":"raft","nodes":[1,2,3],"seed":1,"heartbeats":{"interval":3,"timeout":12}}"#;

fn dir(name: &str) -> PathBuf {
    common::temp_dir(&format!("swarm-{name}"))
}

fn run(args: &[&str]) -> Output {
    Command::new(BIN).args(args).env_remove("SLURM_ARRAY_TASK_ID").output().unwrap()
}

/// Runs task k/n of a swarm on `scenario` and writes its output to `dir/pK.json`.
fn task(dir: &Path, scenario: &str, extra: &[&str], k: u64, n: u64) -> (PathBuf, Output) {
    let file = dir.join("scenario.json");
    std::fs::write(&file, scenario).unwrap();
    let swarm = format!("{k}/{n}");
    let mut args = vec!["check-model", file.to_str().unwrap(), "--swarm", &swarm];
    args.extend_from_slice(extra);
    let out = run(&args);
    let part = dir.join(format!("p{k}.json"));
    std::fs::write(&part, &out.stdout).unwrap();
    (part, out)
}

fn json(out: &Output) -> Value {
    serde_json::from_slice(&out.stdout).unwrap_or_else(|e| panic!("{e}: {}", String::from_utf8_lossy(&out.stderr)))
}

fn merge(parts: &[&Path]) -> Output {
    let mut args = vec!["check-model", "--merge-swarm"];
    args.extend(parts.iter().map(|p| p.to_str().unwrap()));
    run(&args)
}

#[test]
fn a_bully_swarm_of_four_finds_split_brain_and_the_merge_reports_the_shortest() {
    let d = dir("bully");
    let extra = ["--property", "split-brain", "--seed", "7", "--max-states", "50"];
    let parts: Vec<PathBuf> = (1..=4)
        .map(|k| {
            let (p, out) = task(&d, BULLY3, &extra, k, 4);
            assert_eq!(out.status.code(), Some(1), "task {k} found the violation");
            let v = json(&out);
            assert_eq!(v["swarm"]["task"], k);
            assert_eq!(v["swarm"]["of"], 4);
            assert_eq!(v["swarm"]["seed"], 7);
            assert_eq!(v["verdict"], "violated");
            p
        })
        .collect();
    // Breadth-first in every order: each task's counterexample is as short as the one-machine
    // checker's.
    let whole = check(&Scenario::from_json(BULLY3).unwrap(), "split-brain", Bounds::default(), false).unwrap();
    let Verdict::Violated(c) = whole.verdict else { panic!("the whole check finds it") };
    let refs: Vec<&Path> = parts.iter().map(|p| p.as_path()).collect();
    let out = merge(&refs);
    assert_eq!(out.status.code(), Some(1));
    let m = json(&out);
    assert_eq!(m["verdict"], "violated");
    assert_eq!(m["found"].as_array().unwrap().len(), 4);
    assert_eq!(m["shortest"]["counterexample"]["moves"], c.moves.len() as u64);
    assert!(m["shortest"]["counterexample"]["trace"]["interventions"].is_array());
    // Make task 1's counterexample longer: the merge must pick another task's.
    let mut p1: Value = serde_json::from_slice(&std::fs::read(&parts[0]).unwrap()).unwrap();
    p1["counterexample"]["moves"] = Value::from(9);
    std::fs::write(&parts[0], p1.to_string()).unwrap();
    let m = json(&merge(&refs));
    assert_eq!(m["shortest"]["task"], 2);
    assert_eq!(m["shortest"]["part"], parts[1].to_str().unwrap());
    assert_eq!(m["found"][0]["moves"], 9);
    // The merge's trace is the part's, as it gave it.
    let p2: Value = serde_json::from_slice(&std::fs::read(&parts[1]).unwrap()).unwrap();
    assert_eq!(m["shortest"]["counterexample"], p2["counterexample"]);
}

#[test]
fn a_raft_swarm_merges_per_task_counts_and_says_it_covers_not_exhausts() {
    let d = dir("raft");
    let extra = ["--property", "two-leaders-in-term", "--crashes", "1", "--max-states", "300"];
    let mut parts = Vec::new();
    let mut outs = Vec::new();
    for k in 1..=3 {
        let (p, out) = task(&d, RAFT3, &extra, k, 3);
        assert_eq!(out.status.code(), Some(0), "a task at its state limit has done its share");
        let v = json(&out);
        assert_eq!(v["verdict"], "covered");
        assert_eq!(v["states"], 300);
        let s = v["swarm"]["sentence"].as_str().unwrap();
        assert!(s.contains("no violation among the 300 states this task explored"), "{s}");
        assert!(!s.contains("all 300"), "{s}");
        parts.push(p);
        outs.push(v);
    }
    // Each task its own order: the tasks' explorations differ.
    assert!(
        outs.windows(2).any(|w| w[0]["transitions"] != w[1]["transitions"] || w[0]["coverage"] != w[1]["coverage"]),
        "the tasks explored in the same order"
    );
    let refs: Vec<&Path> = parts.iter().map(|p| p.as_path()).collect();
    let out = merge(&refs);
    assert_eq!(out.status.code(), Some(0));
    let m = json(&out);
    assert_eq!(m["verdict"], "covered");
    assert!(m["shortest"].is_null());
    let tasks = m["tasks"].as_array().unwrap();
    assert_eq!(tasks.len(), 3);
    for (k, t) in tasks.iter().enumerate() {
        assert_eq!(t["task"], k as u64 + 1);
        assert_eq!(t["states"], outs[k]["states"]);
    }
    let sum: u64 = outs.iter().map(|v| v["states"].as_u64().unwrap()).sum();
    assert_eq!(m["states_sum"], sum);
    assert!(m["states_sum_note"].as_str().unwrap().contains("counted twice"));
    assert!(m["sentence"].as_str().unwrap().contains("a swarm covers but does not exhaust"));
}

#[test]
fn the_same_task_and_seed_give_the_same_output() {
    let d = dir("same");
    let extra = ["--property", "two-leaders-in-term", "--crashes", "1", "--max-states", "200", "--seed", "3"];
    let (_, a) = task(&d, RAFT3, &extra, 2, 4);
    let (_, b) = task(&d, RAFT3, &extra, 2, 4);
    assert_eq!(a.stdout, b.stdout);
    let other = ["--property", "two-leaders-in-term", "--crashes", "1", "--max-states", "200", "--seed", "4"];
    let (_, c) = task(&d, RAFT3, &other, 2, 4);
    assert_eq!(json(&c)["swarm"]["seed"], 4);
}

fn refused(parts: &[&Path]) -> String {
    let out = merge(parts);
    assert_eq!(out.status.code(), Some(2), "{}", String::from_utf8_lossy(&out.stdout));
    String::from_utf8(out.stderr).unwrap()
}

#[test]
fn a_missing_duplicated_or_foreign_part_is_refused_by_name() {
    let d = dir("refused");
    let extra = ["--property", "split-brain", "--max-states", "50"];
    let parts: Vec<PathBuf> = (1..=3).map(|k| task(&d, BULLY3, &extra, k, 3).0).collect();
    let (p1, p2, p3) = (parts[0].as_path(), parts[1].as_path(), parts[2].as_path());
    let e = refused(&[p1, p3]);
    assert!(e.contains("task 2/3 missing"), "{e}");
    let e = refused(&[p1, p2, p2, p3]);
    assert!(e.contains("are both task 2/3") && e.contains(p2.to_str().unwrap()), "{e}");
    // Another bound: the same task number, of another swarm.
    let other = dir("refused-other");
    let (foreign, _) = task(&other, BULLY3, &["--property", "split-brain", "--max-states", "60"], 2, 3);
    let e = refused(&[p1, &foreign, p3]);
    assert!(e.contains(foreign.to_str().unwrap()) && e.contains("another swarm"), "{e}");
    // Another property.
    let (foreign, _) = task(&other, BULLY3, &["--property", "sometimes:leader-agreed", "--max-states", "50"], 3, 3);
    let e = refused(&[p1, p2, &foreign]);
    assert!(e.contains(foreign.to_str().unwrap()), "{e}");
    // Not a swarm task's output at all.
    let plain = other.join("plain.json");
    std::fs::write(
        &plain,
        run(&["check-model", d.join("scenario.json").to_str().unwrap(), "--property", "split-brain"]).stdout,
    )
    .unwrap();
    let e = refused(&[p1, &plain]);
    assert!(e.contains(plain.to_str().unwrap()) && e.contains("not the output of a check-model --swarm task"), "{e}");
}

#[test]
fn swarm_reads_the_slurm_task_through_the_shard_parser() {
    let d = dir("slurm");
    let file = d.join("scenario.json");
    std::fs::write(&file, BULLY3).unwrap();
    let f = file.to_str().unwrap();
    let out = Command::new(BIN)
        .args(["check-model", f, "--property", "split-brain", "--swarm", "slurm/4"])
        .env("SLURM_ARRAY_TASK_ID", "3")
        .output()
        .unwrap();
    let v = json(&out);
    assert_eq!(v["swarm"]["task"], 3);
    assert_eq!(v["swarm"]["of"], 4);
    let out = run(&["check-model", f, "--property", "split-brain", "--swarm", "slurm"]);
    assert_eq!(out.status.code(), Some(2));
    let e = String::from_utf8_lossy(&out.stderr);
    assert!(e.contains("--swarm slurm: SLURM_ARRAY_TASK_ID is not set"), "{e}");
}
