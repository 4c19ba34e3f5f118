//! A concatenated merged log (`cat a.log b.log c.log > merged.log`) reads as its members' own
//! files (`protocols::events::merge`): etcd's text logs (whole-second raft lines), its zap logs
//! (whose lines about a peer's connection name no member), the frozen-leader zap logs and
//! ZooKeeper's, concatenated in every order of their members, give the per-member run — the
//! whole scenario and the report's counts, all but the file and line each event came from. A
//! merge of whole-second lines sorted by time cannot be ordered and is refused, naming the file.

use election_lab::protocols::events::mapping::Mapping;
use election_lab::protocols::recorded::{Imported, LogFile};
use election_lab::{Engine, Scenario};
use serde_json::Value;

mod common;
use common::real_logs;

fn mapping(name: &str) -> Mapping {
    Mapping::read(Mapping::shipped(name).unwrap()).unwrap()
}

fn import(kind: &str, files: &[(String, String)], faults: Option<&(String, String)>) -> Result<Imported, String> {
    let logs: Vec<LogFile> = files.iter().map(|(name, text)| LogFile { name, text }).collect();
    mapping(kind).import_with(&logs, faults.map(|(name, text)| LogFile { name, text }))
}

/// Every order of `n` members (Heap's algorithm).
fn orders(n: usize) -> Vec<Vec<usize>> {
    fn go(k: usize, a: &mut Vec<usize>, out: &mut Vec<Vec<usize>>) {
        if k <= 1 {
            out.push(a.clone());
            return;
        }
        for i in 0..k {
            go(k - 1, a, out);
            let j = if k % 2 == 0 { i } else { 0 };
            a.swap(j, k - 1);
        }
    }
    let mut out = Vec::new();
    go(n, &mut (0..n).collect(), &mut out);
    out
}

/// A text with every `file:line` place (`a.log:12`, `merged.log:201`) said as `…`.
fn unplaced(s: &str) -> String {
    let mut out = String::new();
    for word in s.split_inclusive(|c: char| c.is_whitespace() || "()[],;\"".contains(c)) {
        let (body, end) =
            word.split_at(word.trim_end_matches(|c: char| c.is_whitespace() || "()[],;\"".contains(c)).len());
        let placed = body.rsplit_once(':').is_some_and(|(file, line)| {
            file.ends_with(".log") && !line.is_empty() && line.bytes().all(|b| b.is_ascii_digit())
        });
        out.push_str(if placed { "…" } else { body });
        out.push_str(end);
    }
    out
}

/// The whole scenario, but for where each event came from: `line` fields dropped, `file:line`
/// places in texts unsaid, and the members' and messages' lists compared as sets.
fn essence(v: &Value) -> Value {
    match v {
        Value::Object(o) => Value::Object(
            o.iter()
                .filter(|(k, _)| !matches!(k.as_str(), "line" | "src" | "file"))
                .map(|(k, x)| (k.clone(), essence(x)))
                .collect(),
        ),
        Value::Array(a) => Value::Array(a.iter().map(essence).collect()),
        Value::String(s) => Value::from(unplaced(s)),
        x => x.clone(),
    }
}

/// The run's outcome: leaders at the end and the violations seen.
fn outcome(imp: &Imported) -> (Vec<u32>, Vec<String>) {
    let mut e = Engine::new(Scenario::from_value(&imp.scenario).unwrap()).unwrap();
    e.run_to_end();
    (e.frame().leaders, e.violations().iter().map(|v| format!("{} {}", v.kind, v.step)).collect())
}

/// What the report says, but for the file names and places: per-file counts summed.
fn report(imp: &Imported) -> Value {
    let r = &imp.report;
    let (read, used) = r.files.iter().fold((0, 0), |a, f| (a.0 + f.1, a.1 + f.2));
    let damaged: Vec<String> = r.damaged.iter().map(|d| unplaced(d)).collect();
    let faults: Vec<String> = r.faults.iter().map(|d| unplaced(d)).collect();
    serde_json::json!({
        "read": read, "used": used, "skipped": r.skipped, "damaged": damaged, "matched": r.matched,
        "no_receive": r.no_receive, "no_send": r.no_send, "clamped": r.clamped, "faults": faults, "notes": r.notes,
    })
}

/// Each order of the members' logs, concatenated into one file, gives the per-member run.
fn concatenated_gives_the_per_member_run(dir: &str, kind: &str) {
    let files = real_logs(dir);
    let faults = std::fs::read_to_string(
        std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/real").join(dir).join("faults.jsonl"),
    )
    .ok()
    .map(|t| ("faults.jsonl".to_string(), t));
    let per_member = import(kind, &files, faults.as_ref()).unwrap();
    assert!(per_member.report.damaged.is_empty(), "{dir}: {:?}", per_member.report.damaged);
    let want = (essence(&per_member.scenario), report(&per_member), outcome(&per_member));
    assert!(!want.0["params"]["events"].as_array().unwrap().is_empty(), "{dir}: the election is read");
    for order in orders(files.len()) {
        // As `cat` writes them: each file whole, one after the other.
        let text: String = order.iter().map(|&i| files[i].1.as_str()).collect();
        let merged = import(kind, &[("merged.log".to_string(), text)], faults.as_ref())
            .unwrap_or_else(|e| panic!("{dir} {order:?}: {e}"));
        let got = (essence(&merged.scenario), report(&merged), outcome(&merged));
        assert_eq!(got.1, want.1, "{dir} {order:?}: the report");
        assert_eq!(got.0, want.0, "{dir} {order:?}: the scenario");
        assert_eq!(got.2, want.2, "{dir} {order:?}: the run's leaders and violations");
    }
}

#[test]
fn etcd_text_logs_concatenated_in_any_order_give_the_per_member_run() {
    concatenated_gives_the_per_member_run("etcd-text", "etcd");
}

#[test]
fn etcd_zap_logs_concatenated_keep_the_lines_about_peers() {
    // The lines about a peer's connection name no member: concatenated, each belongs to the log
    // it stands in, so the crash is placed by the same evidence as from the per-member files.
    concatenated_gives_the_per_member_run("etcd-zap", "etcd");
    concatenated_gives_the_per_member_run("etcd-zap-freeze", "etcd");
}

#[test]
fn zookeeper_logs_concatenated_in_any_order_give_the_per_member_run() {
    concatenated_gives_the_per_member_run("zookeeper", "zookeeper");
}

#[test]
fn the_members_logs_concatenated_name_no_member_after_the_merged_file() {
    // Sentinel names its members after their files: one concatenated file is no member's name.
    let files = real_logs("sentinel");
    let text: String = files.iter().map(|f| f.1.as_str()).collect();
    let imp = import("sentinel", &[("merged.log".to_string(), text)], None).unwrap();
    let members = imp.scenario["params"]["members"].as_array().unwrap();
    assert_eq!(members.len(), 3, "{members:?}");
    assert!(members.iter().all(|m| m["name"] != "merged"), "{members:?}");
}

/// A time-sorted merge of whole-second lines cannot be ordered (a member's raft line of second S
/// sorts before its own finer line of S.348 written earlier): refused by name, saying what works.
#[test]
fn a_sorted_merge_of_whole_second_lines_is_refused_naming_the_file() {
    let files = real_logs("etcd-text");
    let mut lines: Vec<&str> = files.iter().flat_map(|(_, t)| t.lines()).collect();
    // capnslog's finer lines start "2026-12-03 09:26:59.333299", its raft lines "raft2026/12/03 09:26:59".
    let stamp = |l: &&str| l.trim_start_matches("raft").replace('/', "-").chars().take(26).collect::<String>();
    lines.sort_by_key(stamp);
    let Err(err) = import("etcd", &[("sorted.log".to_string(), lines.join("\n"))], None) else {
        panic!("a sorted merge of whole-second lines was read")
    };
    assert!(err.starts_with("sorted.log: ") && err.contains("3 members") && err.contains("whole seconds"), "{err}");
    assert!(err.contains("concatenate the members' logs") && err.contains("each member's own log"), "{err}");
}
