//! Vector clocks and partitions read from logs (`events::clock`, `recorded::partition`): events
//! whose members' wall clocks are skewed are placed in happens-before order when they carry
//! clocks (a receive never before its send), and in wall-clock order without them; bad clocks are
//! refused by line and field, self-contradicting ones named at their line; any order of the same
//! lines gives the same run. A member that reports losing a peer which goes on logging, neither
//! crashed nor paused, is cut off from it until it reports it back; the committed etcd logs show
//! no such partition.

use election_lab::protocols::events::{self, mapping::Mapping};
use election_lab::protocols::recorded::{Imported, LogFile};
use serde_json::Value;

mod common;
use common::real_logs;

const HEAD: &str = r#"{"format": "election-lab-events/1", "system": "toy", "vocabulary": "raft"}"#;

/// b's wall clock runs 500 ms behind a's: b logs receiving a's request before a logs sending it.
const SKEWED: &[&str] = &[
    r#"{"time": 1490, "node": "a", "kind": "became_candidate", "term": 2, "vc": {"a": 1}}"#,
    r#"{"time": 1500, "node": "a", "kind": "send", "peer": "b", "msg": "request_vote", "term": 2, "vc": {"a": 2}}"#,
    r#"{"time": 1010, "node": "b", "kind": "receive", "peer": "a", "msg": "request_vote", "term": 2, "vc": {"a": 2, "b": 1}}"#,
    r#"{"time": 1011, "node": "b", "kind": "send", "peer": "a", "msg": "vote_grant", "term": 2, "vc": {"a": 2, "b": 2}}"#,
    r#"{"time": 1520, "node": "a", "kind": "receive", "peer": "b", "msg": "vote_grant", "term": 2, "vc": {"a": 3, "b": 2}}"#,
    r#"{"time": 1521, "node": "a", "kind": "became_leader", "term": 2, "vc": {"a": 4, "b": 2}}"#,
    r#"{"time": 1030, "node": "b", "kind": "became_follower", "term": 2, "leader": "a", "vc": {"a": 4, "b": 3}}"#,
];

fn file(lines: &[&str]) -> String {
    format!("{HEAD}\n{}\n", lines.join("\n"))
}

/// The lines without their clocks.
fn unclocked(lines: &[&str]) -> Vec<String> {
    lines
        .iter()
        .map(|l| {
            let mut v: Value = serde_json::from_str(l).unwrap();
            v.as_object_mut().unwrap().remove("vc");
            v.to_string()
        })
        .collect()
}

/// Messages as (kind, sent, received), and state changes as (at, node, role).
type Story = (Vec<(String, u64, u64)>, Vec<(u64, u64, String)>);

fn story(imp: &Imported) -> Story {
    let sc = &imp.scenario;
    let mut msgs: Vec<(String, u64, u64)> = sc["params"]["messages"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| {
            (m["kind"].as_str().unwrap().to_string(), m["sent"].as_u64().unwrap(), m["received"].as_u64().unwrap())
        })
        .collect();
    msgs.sort();
    let states = sc["params"]["events"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|e| Some((e["at"].as_u64()?, e["node"].as_u64()?, e["role"].as_str()?.to_string())))
        .collect();
    (msgs, states)
}

#[test]
fn clocks_place_a_receive_after_its_send_however_skewed_the_wall_clocks() {
    let imp = events::import("skew.jsonl", &file(SKEWED)).unwrap();
    assert_eq!(imp.report.clamped, 0, "{}", imp.report.text());
    assert_eq!(imp.report.matched, 2);
    let (msgs, states) = story(&imp);
    for (kind, sent, received) in &msgs {
        assert!(received > sent, "{kind} received at {received}, sent at {sent}");
    }
    // b's follower line comes after a became leader, as its clock says (b's wall time is earlier).
    let at = |role: &str| states.iter().find(|s| s.2 == role).unwrap().0;
    assert!(at("follower") > at("leader"), "{states:?}");
    // The report counts where wall time and happens-before disagree, with the first line.
    let note = imp.report.notes.iter().find(|n| n.starts_with("vector clocks:")).unwrap();
    assert!(
        note.contains("3 event(s)") && note.contains("the first: skew.jsonl:4, logged 490 ms before skew.jsonl:3"),
        "{note}"
    );
    assert!(!imp.report.notes.iter().any(|n| n.contains("contradicts")), "{:?}", imp.report.notes);
}

#[test]
fn without_clocks_the_same_events_keep_their_wall_clock_order() {
    let lines = unclocked(SKEWED);
    let lines: Vec<&str> = lines.iter().map(String::as_str).collect();
    let imp = events::import("skew.jsonl", &file(&lines)).unwrap();
    assert_eq!(imp.report.clamped, 1, "the request is logged received before it is sent");
    let (_, states) = story(&imp);
    let at = |role: &str| states.iter().find(|s| s.2 == role).unwrap().0;
    assert!(at("follower") < at("leader"), "{states:?}");
    assert!(!imp.report.notes.iter().any(|n| n.contains("vector clock")), "{:?}", imp.report.notes);
    // Each event keeps its wall time: tick 0 is b's first line.
    assert_eq!(imp.scenario["params"]["t0"], 1010);
}

#[test]
fn any_order_of_the_same_clocked_lines_gives_the_same_run() {
    let base = events::import("e.jsonl", &file(SKEWED)).unwrap();
    let mut reversed = SKEWED.to_vec();
    reversed.reverse();
    let mut by_member = SKEWED.to_vec();
    by_member.sort_by_key(|l| l.contains("\"node\": \"a\""));
    for lines in [reversed, by_member] {
        let imp = events::import("e.jsonl", &file(&lines)).unwrap();
        assert_eq!(story(&imp), story(&base));
        assert_eq!(imp.scenario["schedule"], base.scenario["schedule"]);
    }
}

#[test]
fn bad_clocks_are_refused_by_line_and_field() {
    for (vc, says) in [
        (r#"[1, 2]"#, "e.jsonl:2: field 'vc': expected an object of member ids to counts"),
        (r#"{"a": -1}"#, "e.jsonl:2: field 'vc': member 'a': expected a whole number, found -1"),
        (r#"{"a": "3"}"#, "e.jsonl:2: field 'vc': member 'a': expected a whole number"),
        (r#"{"b": 3}"#, "e.jsonl:2: field 'vc': needs the event's own member 'a'"),
        (r#"{"a": 0}"#, "e.jsonl:2: field 'vc': needs the event's own member 'a' with a count of 1 or more"),
        (r#"{"": 1, "a": 1}"#, "e.jsonl:2: field 'vc': a member id is empty"),
    ] {
        let text = format!("{HEAD}\n{{\"time\": 1, \"node\": \"a\", \"kind\": \"became_leader\", \"vc\": {vc}}}\n");
        let err = events::import("e.jsonl", &text).unwrap_err();
        assert!(err.starts_with(says), "{vc}: {err}");
    }
}

#[test]
fn a_clock_that_contradicts_itself_is_named_at_its_line() {
    // b's clock forgets a's events (a's entry goes down), and a's receive does not know b's send.
    let mut lines = SKEWED.to_vec();
    lines[6] =
        r#"{"time": 1030, "node": "b", "kind": "became_follower", "term": 2, "leader": "a", "vc": {"a": 1, "b": 3}}"#;
    lines[4] = r#"{"time": 1520, "node": "a", "kind": "receive", "peer": "b", "msg": "vote_grant", "term": 2, "vc": {"a": 3}}"#;
    let imp = events::import("e.jsonl", &file(&lines)).unwrap();
    let said: Vec<&String> = imp.report.notes.iter().filter(|n| n.contains("contradicts itself")).collect();
    assert_eq!(said.len(), 2, "{said:?}");
    assert!(said.iter().any(|n| n.contains("e.jsonl:8: member 'a' is 1 here, down from 2 at e.jsonl:5")), "{said:?}");
    assert!(said.iter().any(|n| n.contains("e.jsonl:6: a receive from 'b'") && n.contains("e.jsonl:5")), "{said:?}");
    // The run is still drawn.
    assert!(imp.scenario["params"]["events"].as_array().is_some_and(|e| !e.is_empty()));
}

/// A system that logs a clock on each line: `[t=1500] a {"a":2}: asks b in epoch 2`.
const CLOCK_MAPPING: &str = r#"{
 "format": "election-lab-mapping/1",
 "system": "clocked toy",
 "vocabulary": "raft",
 "lines": [{"regex": "^\\[t=(?P<time>\\d+)\\] (?P<node>\\w+) ", "time_format": "unix_ms"}],
 "rules": [
  {"kind": "became_candidate", "regex": "(?P<vc>\\{[^}]*\\}): stands in epoch (?P<term>\\d+)"},
  {"kind": "send", "regex": "(?P<vc>\\{[^}]*\\}): asks (?P<peer>\\w+) in epoch (?P<term>\\d+)", "set": {"msg": "request_vote"}},
  {"kind": "receive", "regex": "(?P<vc>\\{[^}]*\\}): asked by (?P<peer>\\w+) in epoch (?P<term>\\d+)", "set": {"msg": "request_vote"}},
  {"kind": "became_leader", "regex": "(?P<vc>\\{[^}]*\\}): leads epoch (?P<term>\\d+)"}
 ]
}"#;

#[test]
fn a_mapping_reads_a_logged_clock_and_per_member_or_merged_logs_give_one_run() {
    let a = "[t=1490] a {\"a\":1}: stands in epoch 2\n[t=1500] a {\"a\":2}: asks b in epoch 2\n\
             [t=1521] a {\"a\":3}: leads epoch 2\n";
    let b = "[t=1010] b {\"a\":2,\"b\":1}: asked by a in epoch 2\n";
    let m = Mapping::read(CLOCK_MAPPING).unwrap();
    let per = m.import(&[LogFile { name: "a.log", text: a }, LogFile { name: "b.log", text: b }]).unwrap();
    assert!(per.report.damaged.is_empty(), "{:?}", per.report.damaged);
    assert_eq!(per.report.clamped, 0, "{}", per.report.text());
    let merged_sorted = format!("{b}{a}");
    let merged_unsorted = format!("{a}{b}");
    for text in [merged_sorted, merged_unsorted] {
        let merged = m.import(&[LogFile { name: "all.log", text: &text }]).unwrap();
        assert_eq!(story(&merged), story(&per));
    }
    // A clock the mapping captured that is not one is refused by line.
    let bad = b.replace("{\"a\":2,\"b\":1}", "{\"a\":2,\"b\":x}");
    let imp = m.import(&[LogFile { name: "a.log", text: a }, LogFile { name: "b.log", text: &bad }]);
    let damaged = imp.map(|i| i.report.damaged).unwrap_or_else(|e| vec![e]);
    assert!(damaged.iter().any(|d| d.starts_with("b.log:1: field 'vc'")), "{damaged:?}");
}

/// A toy system that logs lost and reached peers.
const LINK_MAPPING: &str = r#"{
 "format": "election-lab-mapping/1",
 "system": "linked toy",
 "vocabulary": "raft",
 "lines": [{"regex": "^\\[t=(?P<time>\\d+)\\] (?P<node>\\w+): ", "time_format": "unix_ms"}],
 "rules": [
  {"kind": "became_leader", "regex": "leads term (?P<term>\\d+)"},
  {"kind": "became_follower", "regex": "follows (?P<leader>\\w+) in term (?P<term>\\d+)"},
  {"kind": "became_candidate", "regex": "stands in term (?P<term>\\d+)"},
  {"kind": "peer_down", "regex": "lost peer (?P<peer>\\w+)"},
  {"kind": "peer_up", "regex": "reached peer (?P<peer>\\w+)"}
 ]
}"#;

const LINK_LOG: &str = "[t=1000] alpha: leads term 1
[t=1001] bravo: follows alpha in term 1
[t=1001] carol: follows alpha in term 1
[t=2000] carol: lost peer alpha
[t=2100] carol: stands in term 2
[t=2500] alpha: heartbeat sent
[t=2600] bravo: heartbeat received
[t=3000] carol: reached peer alpha
[t=3001] carol: follows alpha in term 2
[t=3500] alpha: heartbeat sent
";

fn schedule(imp: &Imported) -> Vec<String> {
    imp.scenario["schedule"].as_array().unwrap().iter().map(Value::to_string).collect()
}

#[test]
fn a_lost_peer_that_goes_on_logging_is_a_partition_until_it_is_reached_again() {
    let m = Mapping::read(LINK_MAPPING).unwrap();
    let imp = m.import(&[LogFile { name: "toy.log", text: LINK_LOG }]).unwrap();
    // alpha 1, bravo 2, carol 3 (by name); carol lost alpha at 1000 ms and reached it at 2000 ms.
    assert_eq!(
        schedule(&imp),
        vec![r#"{"at":1000,"cut":[3,1]}"#, r#"{"at":1000,"cut":[1,3]}"#, r#"{"at":2000,"heal":true}"#],
        "{}",
        imp.report.text()
    );
    assert!(imp.report.faults.iter().any(|f| f.contains("which went on logging")), "{:?}", imp.report.faults);
    let said: Vec<&str> =
        imp.scenario["params"]["events"].as_array().unwrap().iter().filter_map(|e| e["say"].as_str()).collect();
    assert!(said.contains(&"link-lost") && said.contains(&"link-restored"), "{said:?}");
    // Per member or merged in any order: the same partition.
    let mut lines: Vec<&str> = LINK_LOG.lines().collect();
    lines.reverse();
    let reversed = lines.join("\n");
    let imp2 = m.import(&[LogFile { name: "all.log", text: &reversed }]).unwrap();
    assert_eq!(schedule(&imp2), schedule(&imp));
}

#[test]
fn a_lost_peer_that_stops_logging_is_a_crash_not_a_partition() {
    let m = Mapping::read(LINK_MAPPING).unwrap();
    let log: String = LINK_LOG.lines().filter(|l| !l.contains("alpha: heartbeat")).map(|l| format!("{l}\n")).collect();
    let imp = m.import(&[LogFile { name: "toy.log", text: &log }]).unwrap();
    let s = schedule(&imp);
    assert!(s.iter().any(|x| x.contains("\"crash\":1")), "{s:?}");
    assert!(!s.iter().any(|x| x.contains("cut")), "{s:?}");
}

#[test]
fn the_committed_etcd_logs_show_no_partition() {
    let m = Mapping::read(Mapping::shipped("etcd").unwrap()).unwrap();
    for dir in ["etcd-zap", "etcd-text", "etcd-zap-freeze"] {
        let files = real_logs(dir);
        let logs: Vec<LogFile> = files.iter().map(|(name, text)| LogFile { name, text }).collect();
        let imp = m.import(&logs).unwrap();
        let s = schedule(&imp);
        assert!(!s.iter().any(|x| x.contains("cut")), "{dir}: {s:?}");
        assert!(!imp.report.faults.iter().any(|f| f.starts_with("link")), "{dir}: {:?}", imp.report.faults);
    }
}
