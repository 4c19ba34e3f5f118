//! Importing real clusters' logs: the committed samples in `tests/data/real/` (made by
//! `scripts/real-cluster.sh`, trimmed), both etcd loggers and ZooKeeper, checked against what the
//! cluster itself reported when the logs were made (`status.txt`, written by the script from
//! `etcdctl endpoint status` / ZooKeeper's `srvr`), and against damaged lines, reordered files, a
//! merged log and clock skew between files.

use election_lab::protocols::recorded::{self, Imported, LogFile};
use election_lab::{Engine, Scenario};
use serde_json::Value;
use std::path::Path;

mod common;
use common::real_logs;

fn status(dir: &str) -> String {
    std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/real").join(dir).join("status.txt"))
        .unwrap()
}

fn import(kind: &str, files: &[(String, String)]) -> Result<Imported, String> {
    let logs: Vec<LogFile> = files.iter().map(|(name, text)| LogFile { name, text }).collect();
    recorded::source(kind)?.import(&logs)
}

fn run(scenario: &Value) -> Engine {
    let mut e = Engine::new(Scenario::from_value(scenario).unwrap()).unwrap();
    e.run_to_end();
    e
}

/// The new leader the cluster reported after the kill: etcd's member name, or ZooKeeper's sid.
fn reported_after(dir: &str) -> String {
    let s = status(dir);
    let line = s.lines().find(|l| l.starts_with("after: leader ")).expect("an 'after' line");
    line["after: leader ".len()..].split_whitespace().next().unwrap().to_string()
}

fn reported_term(dir: &str) -> u64 {
    let s = status(dir);
    let line = s.lines().find(|l| l.starts_with("after: ")).unwrap();
    line.rsplit(' ').next().unwrap().parse().unwrap()
}

fn member_node(scenario: &Value, name: &str) -> u64 {
    scenario["params"]["members"]
        .as_array()
        .unwrap()
        .iter()
        .find(|m| m["name"] == name)
        .unwrap_or_else(|| panic!("no member named {name}"))["node"]
        .as_u64()
        .unwrap()
}

#[test]
fn etcd_samples_of_both_loggers_end_with_the_leader_and_term_the_cluster_reported() {
    for dir in ["etcd-zap", "etcd-text"] {
        let imp = import("etcd", &real_logs(dir)).unwrap();
        assert!(imp.report.damaged.is_empty(), "{dir}: {:?}", imp.report.damaged);
        let e = run(&imp.scenario);
        let leader = member_node(&imp.scenario, &reported_after(dir)) as u32;
        assert_eq!(e.frame().leaders, vec![leader], "{dir}: the cluster reported this leader");
        let frame = e.frame();
        let view = &frame.nodes.iter().find(|n| n.id == leader).unwrap().view;
        assert_eq!(view.term, Some(reported_term(dir)), "{dir}: and this term");
        assert!(e.violations().is_empty(), "{dir}: {:?}", e.violations());
        // The member killed by the script is crashed, 1 ms after its last line.
        let killed = status(dir)
            .lines()
            .find_map(|l| l.strip_prefix("killed ").map(|r| r.split(' ').next().unwrap().to_string()));
        let killed = member_node(&imp.scenario, &killed.unwrap());
        let sched = imp.scenario["schedule"].as_array().unwrap();
        assert_eq!(sched.len(), 1, "{dir}: one fault: {sched:?}");
        assert_eq!(sched[0]["crash"], killed, "{dir}");
        // The deciding round: the new leader's vote requests to the other survivor and the vote
        // back are matched send → receive.
        let term = reported_term(dir);
        let other = (1..=3).find(|&n| n != leader as u64 && n != killed).unwrap();
        let msgs = imp.scenario["params"]["messages"].as_array().unwrap();
        for (from, to, kind) in [(leader as u64, other, "REQUEST_VOTE"), (other, leader as u64, "VOTE_GRANT")] {
            let m = msgs
                .iter()
                .find(|m| m["from"] == from && m["to"] == to && m["kind"] == kind && m["term"] == term)
                .unwrap_or_else(|| panic!("{dir}: no {kind} {from}→{to} at term {term}"));
            assert!(m["flag"] == "" || m["flag"] == "clamped", "{dir}: {kind} {from}→{to} matched: {m}");
        }
        // Names, ids and addresses are kept for the inspector.
        let ins = e.inspect(leader);
        assert!(ins.iter().any(|f| f.id == "member_id" && f.shown().len() >= 8), "{dir}: {ins:?}");
        assert!(ins.iter().any(|f| f.id == "address" && f.shown().starts_with("127.0.0.1:")), "{dir}: {ins:?}");
    }
}

#[test]
fn zookeeper_sample_ends_with_the_leader_the_ensemble_reported() {
    let imp = import("zookeeper", &real_logs("zookeeper")).unwrap();
    assert!(imp.report.damaged.is_empty(), "{:?}", imp.report.damaged);
    assert!(imp.report.skipped > 0, "non-election lines are skipped and counted");
    let e = run(&imp.scenario);
    let leader: u32 = reported_after("zookeeper").parse().unwrap();
    assert_eq!(e.frame().leaders, vec![leader]);
    let killed: u64 = status("zookeeper")
        .lines()
        .find_map(|l| l.strip_prefix("killed ").map(|r| r.split(' ').next().unwrap().parse().unwrap()))
        .unwrap();
    assert_eq!(imp.scenario["schedule"][0]["crash"], killed);
    // Every survivor follows (or is) the reported leader, in the log's own words.
    for n in e.frame().nodes.iter().filter(|n| n.up) {
        assert_eq!(n.view.leader, Some(leader), "server {}", n.id);
    }
    // The votes of the deciding round between the survivors are matched send → receive.
    let msgs = imp.scenario["params"]["messages"].as_array().unwrap();
    let other = (1..=3u64).find(|&n| n != leader as u64 && n != killed).unwrap();
    let crash_at = imp.scenario["schedule"][0]["at"].as_u64().unwrap();
    for (from, to) in [(leader as u64, other), (other, leader as u64)] {
        assert!(
            msgs.iter()
                .any(|m| m["from"] == from && m["to"] == to && m["flag"] == "" && m["sent"].as_u64() > Some(crash_at)),
            "a matched VOTE {from}→{to} after the crash"
        );
    }
}

#[test]
fn the_presets_are_the_committed_samples_imported() {
    for (dir, kind, preset) in
        [("etcd-zap", "etcd", "etcd-leader-killed"), ("zookeeper", "zookeeper", "zookeeper-leader-killed")]
    {
        let imp = import(kind, &real_logs(dir)).unwrap();
        let p = election_lab::presets::find(preset).unwrap();
        let committed: Value = serde_json::from_str(p.json).unwrap();
        assert_eq!(committed, imp.scenario, "{preset}: re-import {dir} to refresh it");
    }
}

#[test]
fn file_order_does_not_matter() {
    for (dir, kind) in [("etcd-zap", "etcd"), ("etcd-text", "etcd"), ("zookeeper", "zookeeper")] {
        let files = real_logs(dir);
        let mut reversed = files.clone();
        reversed.reverse();
        let a = import(kind, &files).unwrap();
        let b = import(kind, &reversed).unwrap();
        assert_eq!(run(&a.scenario).trace_hash(), run(&b.scenario).trace_hash(), "{dir}");
        assert_eq!(a.scenario["params"]["messages"], b.scenario["params"]["messages"], "{dir}");
    }
}

#[test]
fn one_merged_log_reads_like_one_log_per_member() {
    for (dir, kind) in [("etcd-zap", "etcd"), ("zookeeper", "zookeeper")] {
        let files = real_logs(dir);
        let per_member = import(kind, &files).unwrap();
        // Merge by timestamp (both formats start their lines with a sortable time), stable.
        let mut lines: Vec<(String, String)> = Vec::new();
        for (_, text) in &files {
            for l in text.lines() {
                let key = if l.starts_with('{') {
                    serde_json::from_str::<Value>(l)
                        .ok()
                        .and_then(|v| v["ts"].as_str().map(str::to_string))
                        .unwrap_or_default()
                } else {
                    l.get(..23).unwrap_or("").to_string()
                };
                lines.push((key, l.to_string()));
            }
        }
        lines.sort_by(|a, b| a.0.cmp(&b.0));
        let merged: String = lines.into_iter().map(|l| l.1 + "\n").collect();
        let one = import(kind, &[("merged.log".to_string(), merged)]).unwrap();
        let (a, b) = (run(&per_member.scenario), run(&one.scenario));
        assert_eq!(a.frame().leaders, b.frame().leaders, "{dir}");
        assert_eq!(per_member.report.matched, one.report.matched, "{dir}");
        // The same member crashes; in a merged etcd log the rafthttp lines that do not name their
        // member cannot be attributed, so its last line (and the crash) may come a little earlier.
        let (s1, s2) = (&per_member.scenario["schedule"], &one.scenario["schedule"]);
        assert_eq!(s1.as_array().unwrap().len(), s2.as_array().unwrap().len(), "{dir}");
        assert_eq!(s1[0]["crash"], s2[0]["crash"], "{dir}");
        assert!(s1[0]["at"].as_u64().unwrap().abs_diff(s2[0]["at"].as_u64().unwrap()) <= 50, "{dir}: {s1} {s2}");
    }
}

/// The report's counts add up: every line read is about the election, damaged or skipped, once
/// (a line that says two things, a vote's arrival and the answer sent, is one line).
#[test]
fn the_report_counts_every_line_once() {
    let mut damaged = real_logs("etcd-zap");
    damaged[0].1 = damaged[0].1.replacen("became candidate at term ", "became candidate at term x", 1);
    for (kind, files) in [
        ("etcd", real_logs("etcd-zap")),
        ("etcd", real_logs("etcd-text")),
        ("zookeeper", real_logs("zookeeper")),
        ("etcd", damaged),
    ] {
        let r = import(kind, &files).unwrap().report;
        let read: usize = r.files.iter().map(|f| f.1).sum();
        let used: usize = r.files.iter().map(|f| f.2).sum();
        assert_eq!(read, files.iter().map(|(_, t)| t.lines().count()).sum::<usize>(), "{kind}");
        assert_eq!(used + r.skipped + r.damaged.len(), read, "{kind}: {}", r.text());
        assert!(used > 0 && r.skipped > 0, "{kind}");
    }
}

/// Several members' default text logs in one file: concatenated, each member's lines are read as
/// its own file's (`events/merge.rs`); sorted together, their raft lines' whole seconds cannot be
/// ordered across members, and the file is refused by name instead of imported with invented
/// leaders. A concatenation of zap logs, which name their member on every line, reads like the
/// members' files.
#[test]
fn a_sorted_text_log_is_refused_by_name_and_concatenated_logs_are_read() {
    let files = real_logs("etcd-text");
    let concatenated: String = files.iter().map(|(_, t)| t.as_str()).collect();
    let per_member = import("etcd", &files).unwrap();
    let cat = import("etcd", &[("merged.log".to_string(), concatenated.clone())]).unwrap();
    assert_eq!(run(&per_member.scenario).frame().leaders, run(&cat.scenario).frame().leaders);
    assert_eq!(per_member.scenario["schedule"], cat.scenario["schedule"]);
    let mut sorted: Vec<&str> = concatenated.lines().collect();
    sorted.sort();
    let err = import("etcd", &[("merged.log".to_string(), sorted.join("\n") + "\n")]).map(|_| ()).expect_err("refused");
    assert!(err.starts_with("merged.log:"), "{err}");
    assert!(err.contains("3 members") && err.contains("whole seconds"), "{err}");
    let zap = real_logs("etcd-zap");
    let per_member = import("etcd", &zap).unwrap();
    let concatenated: String = zap.iter().map(|(_, t)| t.as_str()).collect();
    let one = import("etcd", &[("merged.log".to_string(), concatenated)]).unwrap();
    assert_eq!(run(&per_member.scenario).frame().leaders, run(&one.scenario).frame().leaders);
    // (Concatenated, the start-up line naming a member's address is read as that member's.)
    assert_eq!(per_member.scenario["params"]["members"], one.scenario["params"]["members"]);
    assert_eq!(per_member.scenario["initial_leader"], one.scenario["initial_leader"]);
}

/// Shifts every zap timestamp of a log by `delta` ms, leaving the rest of each line as it was
/// written (zap's field order included, which the mapping's line format reads).
fn shift_zap(text: &str, delta: i64) -> String {
    let mut out = String::new();
    for l in text.lines() {
        let v: Value = serde_json::from_str(l).unwrap();
        let ts = v["ts"].as_str().unwrap();
        // "2026-12-03T09:27:09.548Z": shift the seconds and milliseconds (the sample stays
        // within one minute of its start for these few ms).
        let (head, rest) = ts.split_at(17);
        let secs: i64 = rest[..2].parse().unwrap();
        let ms: i64 = rest[3..6].parse().unwrap();
        let total = secs * 1000 + ms + delta;
        assert!((0..60_000).contains(&total), "the shift stays within the minute");
        let shifted = format!("{head}{:02}.{:03}Z", total / 1000, total % 1000);
        out.push_str(&l.replacen(&format!("\"ts\":\"{ts}\""), &format!("\"ts\":\"{shifted}\""), 1));
        out.push('\n');
    }
    out
}

#[test]
fn a_receive_logged_before_its_send_is_clamped_and_flagged_not_dropped() {
    let files = real_logs("etcd-zap");
    let plain = import("etcd", &files).unwrap();
    assert_eq!(plain.report.clamped, 0);
    // Member b's clock runs 5 ms behind: what it logs receiving was, by its clock, before the send.
    let skewed: Vec<(String, String)> =
        files.iter().map(|(n, t)| (n.clone(), if n == "b.log" { shift_zap(t, -5) } else { t.clone() })).collect();
    let imp = import("etcd", &skewed).unwrap();
    assert!(imp.report.clamped > 0, "{}", imp.report.text());
    let msgs = imp.scenario["params"]["messages"].as_array().unwrap();
    assert_eq!(msgs.len(), plain.scenario["params"]["messages"].as_array().unwrap().len(), "nothing dropped");
    let clamped: Vec<&Value> = msgs.iter().filter(|m| m["flag"] == "clamped").collect();
    assert_eq!(clamped.len(), imp.report.clamped);
    let b = member_node(&imp.scenario, "b");
    for m in &clamped {
        assert_eq!(m["to"], b, "only arrivals at member b are early: {m}");
        assert_eq!(m["received"].as_u64().unwrap(), m["sent"].as_u64().unwrap() + 1, "{m}");
    }
    // The run still ends with the same leader, and narrates the clamping.
    let e = run(&imp.scenario);
    assert_eq!(e.frame().leaders, run(&plain.scenario).frame().leaders);
    let narrated =
        (1..=e.cursor()).filter_map(|s| e.narrate(s, election_lab::meta::Lang::En)).any(|t| t.contains("clocks"));
    assert!(narrated, "a clamped arrival says why");
}

#[test]
fn damaged_lines_are_reported_with_file_and_line_and_the_rest_is_read() {
    let mut files = real_logs("etcd-zap");
    let a = &mut files[0].1;
    let mut lines: Vec<String> = a.lines().map(str::to_string).collect();
    // Line 5: a JSON line cut in half; line 7: a vote line with a term that is not a number.
    lines[4] = lines[4][..lines[4].len() / 2].to_string();
    lines.insert(6, r#"{"level":"info","ts":"2026-12-03T09:27:09.250Z","caller":"raft/raft.go:719","msg":"dd8eb4b69ad0bf79 became candidate at term x"}"#.to_string());
    *a = lines.join("\n") + "\n";
    let imp = import("etcd", &files).unwrap();
    // (The cut line matches none of the mapping's rules: it is skipped, not reported.)
    assert_eq!(imp.report.damaged.len(), 1, "{:?}", imp.report.damaged);
    assert!(imp.report.damaged[0].starts_with("a.log:7: term 'x'"), "{:?}", imp.report.damaged);
    assert!(imp.report.text().contains("a.log:7"));
    let e = run(&imp.scenario);
    assert_eq!(e.frame().leaders, run(&import("etcd", &real_logs("etcd-zap")).unwrap().scenario).frame().leaders);

    let mut zk = real_logs("zookeeper");
    zk[1].1 = zk[1].1.replacen("n.sid:", "n.sid:x", 1);
    let imp = import("zookeeper", &zk).unwrap();
    // A notification whose sender is no number matches no rule of the mapping: it is skipped,
    // and the rest is read.
    assert!(imp.report.damaged.is_empty(), "{:?}", imp.report.damaged);
    let plain = import("zookeeper", &real_logs("zookeeper")).unwrap();
    assert_eq!(imp.report.skipped, plain.report.skipped + 1);
    assert_eq!(run(&imp.scenario).frame().leaders, run(&plain.scenario).frame().leaders);
}

#[test]
fn garbage_never_panics_and_says_what_is_wrong() {
    let cases: Vec<(&str, String)> = vec![
        ("empty", String::new()),
        ("text", "hello\nworld\n".into()),
        ("binary", String::from_utf8_lossy(&(0..=255u8).cycle().take(5000).collect::<Vec<_>>()).into_owned()),
        ("json", "{\"ts\":\"2026-13-99T99:99:99Z\",\"msg\":\"x became leader at term 2\"}\n".into()),
        ("long", "x".repeat(200_000)),
        ("stamps", "2026-12-03 09:27:16,579 [myid:2] INFO  [x] QuorumPeer - LOOKING\n".repeat(3)),
    ];
    for kind in ["etcd", "zookeeper"] {
        for (name, text) in &cases {
            let files = vec![(format!("{name}.log"), text.clone())];
            match import(kind, &files) {
                Err(e) => assert!(!e.is_empty()),
                Ok(imp) => {
                    // Whatever was read builds a run.
                    run(&imp.scenario);
                }
            }
        }
        assert!(import(kind, &[]).unwrap_err().contains("no log files"));
        let e = import(kind, &[("x.log".into(), "hello\n".into())]).unwrap_err();
        assert!(e.contains("no election lines"), "{e}");
    }
    assert!(recorded::source("mysql").err().unwrap().contains("etcd, zookeeper"));
}

#[test]
fn the_kind_of_log_is_detected() {
    assert_eq!(recorded::detect(&[LogFile { name: "a", text: &real_logs("etcd-zap")[0].1 }]).unwrap().name, "etcd");
    assert_eq!(recorded::detect(&[LogFile { name: "a", text: &real_logs("etcd-text")[0].1 }]).unwrap().name, "etcd");
    assert_eq!(
        recorded::detect(&[LogFile { name: "1", text: &real_logs("zookeeper")[0].1 }]).unwrap().name,
        "zookeeper"
    );
    assert_eq!(
        recorded::detect(&[LogFile { name: "s1", text: &real_logs("sentinel")[0].1 }]).unwrap().name,
        "sentinel"
    );
    assert!(recorded::detect(&[LogFile { name: "x", text: "hello" }]).is_none());
}

#[test]
fn a_bad_script_names_the_field() {
    let imp = import("zookeeper", &real_logs("zookeeper")).unwrap();
    let mut s = imp.scenario.clone();
    s["params"]["events"][0]["role"] = "king".into();
    let err = Engine::new(Scenario::from_value(&s).unwrap()).unwrap_err().to_string();
    assert!(err.starts_with("params.events[0].role: unknown role 'king'"), "{err}");
    let mut s = imp.scenario.clone();
    s["params"]["messages"][0]["to"] = 9.into();
    let err = Engine::new(Scenario::from_value(&s).unwrap()).unwrap_err().to_string();
    assert_eq!(err, "params.messages[0].to: unknown node 9");
    // The script reader names a mistyped or unknown field.
    let mut s = imp.scenario.clone();
    s["params"]["events"][1]["term"] = "three".into();
    let err = Engine::new(Scenario::from_value(&s).unwrap()).unwrap_err().to_string();
    assert_eq!(err, "params.events[1].term: expected a whole number, found a string");
    let mut s = imp.scenario.clone();
    s["params"]["messages"][0]["colour"] = 1.into();
    let err = Engine::new(Scenario::from_value(&s).unwrap()).unwrap_err().to_string();
    assert!(err.starts_with("params.messages[0].colour: unknown field `colour`"), "{err}");
}

#[test]
fn the_model_replays_the_same_faults_and_elects_among_the_same_survivors() {
    for (dir, kind) in [("etcd-zap", "etcd"), ("etcd-text", "etcd"), ("zookeeper", "zookeeper")] {
        let imp = import(kind, &real_logs(dir)).unwrap();
        let real = run(&imp.scenario);
        let model = recorded::model_scenario(&Scenario::from_value(&imp.scenario).unwrap()).unwrap();
        assert_eq!(model.algorithm, recorded::source(kind).unwrap().model);
        assert_eq!(model.schedule, real.scenario().schedule, "{dir}: the same faults at the same times");
        let mut e = Engine::new(model).unwrap();
        e.run_to_end();
        let up: Vec<u32> = real.frame().nodes.iter().filter(|n| n.up).map(|n| n.id).collect();
        let leaders = e.frame().leaders;
        assert_eq!(leaders.len(), 1, "{dir}: the model elects one leader: {leaders:?}");
        assert!(up.contains(&leaders[0]), "{dir}: among the survivors {up:?}: {leaders:?}");
    }
}

#[test]
fn a_lost_connection_to_a_member_that_goes_on_logging_is_a_partition_until_restored() {
    let mut files = real_logs("etcd-zap");
    // Member b (node 2) loses member c (node 3) for half a second while c goes on logging.
    let c_id = "b0689b7f7eadf9aa";
    let lines = [
        format!(
            r#"{{"level":"warn","ts":"2026-12-03T09:27:11.000Z","caller":"rafthttp/peer_status.go:68","msg":"peer became inactive (message send to peer failed)","peer-id":"{c_id}"}}"#
        ),
        format!(
            r#"{{"level":"info","ts":"2026-12-03T09:27:11.500Z","caller":"rafthttp/peer_status.go:51","msg":"peer became active","peer-id":"{c_id}"}}"#
        ),
    ];
    files[1].1.push_str(&(lines.join("\n") + "\n"));
    let imp = import("etcd", &files).unwrap();
    let sched = imp.scenario["schedule"].as_array().unwrap();
    let cut = sched.iter().find(|s| s.get("cut").is_some()).expect("a cut");
    // A partition: the link is lost both ways, as a stated link_lost(b, c) would be.
    let cuts: Vec<&serde_json::Value> = sched.iter().filter_map(|s| s.get("cut")).collect();
    assert_eq!(cuts, [&serde_json::json!([2, 3]), &serde_json::json!([3, 2])], "b ↔ c is cut: {sched:?}");
    let heal = sched.iter().find(|s| s.get("heal").is_some()).expect("a heal");
    assert_eq!(heal["at"].as_u64().unwrap() - cut["at"].as_u64().unwrap(), 500);
    // Both are narrated from b's log.
    let events = imp.scenario["params"]["events"].as_array().unwrap();
    assert!(events.iter().any(|e| e["say"] == "peer-down" && e["node"] == 2 && e["args"][0] == 3));
    assert!(events.iter().any(|e| e["say"] == "peer-up" && e["node"] == 2 && e["args"][0] == 3));
    let e = run(&imp.scenario);
    assert_eq!(e.frame().leaders, vec![2]);
}
