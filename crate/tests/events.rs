//! The event format and log mappings (`protocols::events`): the shipped etcd and ZooKeeper
//! mappings place a crash by its evidence and narrate what etcd logs of its election; the events a
//! mapping writes import back to the same run; a merged log, in any order, gives the per-member
//! run; the Sentinel mapping reads the committed Sentinel failover as Sentinel reported it; a
//! system the app does not ship imports through a mapping of its own; bad input is refused by
//! line and field.

use election_lab::protocols::events::{self, mapping::Mapping};
use election_lab::protocols::recorded::{Imported, LogFile};
use election_lab::{Engine, Scenario};
use serde_json::Value;
use std::path::Path;

mod common;
use common::real_logs;

fn logs(files: &[(String, String)]) -> Vec<LogFile<'_>> {
    files.iter().map(|(name, text)| LogFile { name, text }).collect()
}

fn mapped(name: &str, files: &[(String, String)]) -> Imported {
    let m = Mapping::read(Mapping::shipped(name).unwrap()).unwrap();
    m.import(&logs(files)).unwrap()
}

fn run(scenario: &Value) -> Engine {
    let mut e = Engine::new(Scenario::from_value(scenario).unwrap()).unwrap();
    e.run_to_end();
    e
}

/// What a run is, whatever file and line each event came from: members, faults, timeouts, the
/// state changes (time, member, role, term, leader) and the messages (ends, kind, term, times).
fn essence(s: &Value) -> Value {
    let events: Vec<Value> = s["params"]["events"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|e| e.get("role").is_some() || e.get("leader").is_some())
        .map(|e| serde_json::json!([e["at"], e["node"], e["role"], e["term"], e["leader"]]))
        .collect();
    let mut messages: Vec<Value> = s["params"]["messages"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| {
            serde_json::json!([
                m["from"],
                m["to"],
                m["kind"],
                m["term"],
                m["extra"],
                m["sent"],
                m["received"],
                m["flag"]
            ])
        })
        .collect();
    messages.sort_by_key(|m| m.to_string());
    serde_json::json!({
        "members": s["params"]["members"], "t0": s["params"]["t0"], "schedule": s["schedule"],
        "heartbeats": s["heartbeats"], "network": s["network"], "initial_leader": s["initial_leader"],
        "events": events, "messages": messages,
    })
}

#[test]
fn the_shipped_mappings_place_the_crash_by_its_evidence() {
    for (dir, kind) in [("etcd-zap", "etcd"), ("etcd-text", "etcd"), ("zookeeper", "zookeeper")] {
        let files = real_logs(dir);
        let m = mapped(kind, &files);
        assert!(m.report.damaged.is_empty(), "{dir}: {:?}", m.report.damaged);
        // One member crashed, placed at its peers' first report of the lost connection, later
        // than its last line, and the report says so.
        let sa = &m.scenario["schedule"];
        assert_eq!(sa.as_array().unwrap().len(), 1, "{dir}: {sa}");
        let crashed = sa[0]["crash"].as_u64().unwrap();
        let lost = sa[0]["at"].as_u64().unwrap();
        // Its last line of any kind, as the import reports it: no earlier than its last event.
        let last: u64 = m
            .report
            .faults
            .iter()
            .find_map(|f| f.split("stopped logging at ").nth(1)?.split(' ').next()?.parse().ok())
            .unwrap_or_else(|| panic!("{dir}: {:?}", m.report.faults));
        let last_event = m.scenario["params"]["events"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|e| e["node"] == crashed)
            .filter_map(|e| e["at"].as_u64())
            .max()
            .unwrap();
        assert!(last >= last_event, "{dir}: {last} {last_event}");
        assert!(lost > last + 1, "{dir}: {last} {lost}");
        let said = format!("crashed at {lost} ms (it crashed between {last} and {lost} ms)");
        assert!(m.report.faults.iter().any(|f| f.contains(&said)), "{dir}: {:?}", m.report.faults);
        // The evidence is a peer's first line about the lost connection after the crashed member's last.
        let first_loss = m.scenario["params"]["events"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|e| e["say"] == "peer-down" && e["args"][0] == crashed && e["at"].as_u64() > Some(last))
            .map(|e| e["at"].as_u64().unwrap())
            .min();
        assert_eq!(first_loss, Some(lost), "{dir}");
    }
}

/// What etcd's importer narrated beyond roles and messages, the etcd mapping narrates too: an
/// election timeout, a vote request with a higher term seen, and the leader a member lost.
#[test]
fn the_etcd_mapping_narrates_timeouts_higher_terms_and_the_leader_lost() {
    for dir in ["etcd-zap", "etcd-text"] {
        let m = mapped("etcd", &real_logs(dir));
        let events = m.scenario["params"]["events"].as_array().unwrap();
        let said = |say: &str| events.iter().filter(|e| e["say"] == say).collect::<Vec<_>>();
        // Member 1 (a) led term 2 and was killed; the others then time out, and the one that
        // starts the election of term 3 is seen by the other with that higher term.
        assert!(said("starting").iter().any(|e| e["args"][0] == 2), "{dir}: {:?}", said("starting"));
        assert!(said("starting").iter().any(|e| e["args"][0] == 3), "{dir}: {:?}", said("starting"));
        assert!(said("higher").iter().any(|e| e["args"][1] == 3 && e["args"][0] != 0), "{dir}: {:?}", said("higher"));
        let lost = said("lost");
        assert_eq!(lost.len(), 2, "{dir}: {lost:?}");
        assert!(
            lost.iter().all(|e| e["args"][0] == 1 && e["args"][1] == 3),
            "{dir}: the leader lost is member 1: {lost:?}"
        );
    }
}

#[test]
fn the_events_a_mapping_writes_import_back_to_the_same_run() {
    for (dir, kind) in [("etcd-zap", "etcd"), ("zookeeper", "zookeeper"), ("sentinel", "sentinel")] {
        let files = real_logs(dir);
        let m = Mapping::read(Mapping::shipped(kind).unwrap()).unwrap();
        let applied = m.apply(&logs(&files));
        let text = events::write(&applied.header, &applied.events, &logs(&files));
        let back = events::import("events.jsonl", &text).unwrap();
        let direct = m.import(&logs(&files)).unwrap();
        let strip = |s: &Value| {
            let mut e = essence(s);
            // The events file is the evidence now: its line numbers, not the logs'.
            e["messages"] = Value::Null;
            e
        };
        assert_eq!(strip(&back.scenario), strip(&direct.scenario), "{dir}");
        assert_eq!(run(&back.scenario).frame().leaders, run(&direct.scenario).frame().leaders, "{dir}");
        // Every event keeps the line it was read from.
        assert!(text.lines().skip(1).all(|l| l.contains("\"raw\":") && l.contains("\"src\":")), "{dir}");
    }
}

#[test]
fn a_merged_log_sorted_or_not_gives_the_per_member_run() {
    for (dir, kind) in [("zookeeper", "zookeeper"), ("etcd-zap", "etcd")] {
        let files = real_logs(dir);
        let per_member = mapped(kind, &files);
        let lines: Vec<&str> = files.iter().flat_map(|(_, t)| t.lines()).collect();
        let concatenated = lines.join("\n");
        // Sorted by time (stably: a member's lines of the same millisecond keep their order).
        let stamp = |l: &&str| l.find("2026-").map(|i| l[i..].chars().take(23).collect::<String>());
        let mut by_time = lines.clone();
        by_time.sort_by_key(stamp);
        let sorted = by_time.join("\n");
        // Not sorted: one line of each member in turn, each member's own lines in their order.
        let mut turns: Vec<std::str::Lines> = files.iter().map(|(_, t)| t.lines()).collect();
        let mut dealt = Vec::new();
        while dealt.len() < lines.len() {
            for l in turns.iter_mut() {
                dealt.extend(l.next());
            }
        }
        let unsorted = dealt.join("\n");
        for (how, text) in [("concatenated", concatenated), ("sorted", sorted), ("unsorted", unsorted)] {
            let merged = mapped(kind, &[("merged.log".to_string(), text)]);
            let (a, b) = (run(&merged.scenario), run(&per_member.scenario));
            assert_eq!(a.frame().leaders, b.frame().leaders, "{dir} {how}");
            let e = |s: &Value| {
                let mut x = essence(s);
                x["messages"] = Value::Null;
                x
            };
            if kind == "zookeeper" {
                // Every ZooKeeper line names its server: nothing is lost in the merge.
                assert_eq!(e(&merged.scenario), e(&per_member.scenario), "{dir} {how}");
            } else {
                // etcd's zap lines about a peer's connection do not name their member: in an
                // interleaved merge they are refused by line, and the election itself is the same
                // (concatenated, they go with the log they stand in: `events_merge.rs`).
                assert_eq!(e(&merged.scenario)["events"], e(&per_member.scenario)["events"], "{dir} {how}");
                assert!(merged.report.damaged.iter().all(|d| d.contains("names no member")), "{dir} {how}");
            }
        }
    }
}

fn status(dir: &str) -> String {
    std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/real").join(dir).join("status.txt"))
        .unwrap()
}

#[test]
fn the_sentinel_failover_reads_as_sentinel_reported_it() {
    let imp = mapped("sentinel", &real_logs("sentinel"));
    assert!(imp.report.damaged.is_empty(), "{:?}", imp.report.damaged);
    let e = run(&imp.scenario);
    // "after: master 127.0.0.1:28702 config-epoch 1", from SENTINEL commands.
    let st = status("sentinel");
    let after: Vec<&str> = st.lines().find(|l| l.starts_with("after: ")).unwrap().split_whitespace().collect();
    let (master, epoch): (&str, u64) = (after[2], after[4].parse().unwrap());
    let leaders = e.frame().leaders;
    assert_eq!(leaders.len(), 1, "one Sentinel leads the failover");
    let frame = e.frame();
    let leader = frame.nodes.iter().find(|n| n.id == leaders[0]).unwrap();
    assert_eq!(leader.view.term, Some(epoch), "the leader's term is the epoch Sentinel reported");
    // The leader's own log promoted the replica every Sentinel now names as master.
    let id = imp.scenario["params"]["members"].as_array().unwrap().iter().find(|m| m["node"] == leaders[0]).unwrap()
        ["id"]
        .as_str()
        .unwrap()
        .to_string();
    assert!(
        imp.report.notes.iter().any(|n| n.contains(&id) && n.contains(&format!("+promoted-slave slave {master} "))),
        "{:?}",
        imp.report.notes
    );
    // Both other Sentinels' votes are arrows matched send → receive into the leader, of that epoch.
    let msgs = imp.scenario["params"]["messages"].as_array().unwrap();
    let votes: Vec<&Value> =
        msgs.iter().filter(|m| m["to"] == leaders[0] && m["kind"] == "VOTE_GRANT" && m["flag"] == "").collect();
    assert_eq!(votes.len(), 2, "{msgs:?}");
    assert!(votes.iter().all(|m| m["term"] == epoch));
    assert!(e.violations().is_empty(), "{:?}", e.violations());
}

/// A system the app does not ship: a home-grown service that logs its election in words of its own.
const TOY_LOG: &str = "\
[t=1000] alpha: booting
[t=1005] bravo: booting
[t=1010] carol: booting
[t=1200] alpha: epoch 1: standing for election
[t=1201] alpha: epoch 1: asking bravo
[t=1202] alpha: epoch 1: asking carol
[t=1210] bravo: epoch 1: ballot to alpha
[t=1212] carol: epoch 1: ballot to alpha
[t=1220] alpha: epoch 1: ballot from bravo
[t=1221] alpha: epoch 1: in charge
[t=1230] bravo: epoch 1: alpha is in charge
[t=1231] carol: epoch 1: alpha is in charge
";

const TOY_MAPPING: &str = r#"{
 "format": "election-lab-mapping/1",
 "system": "toy 0.1",
 "vocabulary": "raft",
 "lines": [{"regex": "^\\[t=(?P<time>\\d+)\\] (?P<node>\\w+): ", "time_format": "unix_ms"}],
 "rules": [
  {"kind": "started", "regex": ": booting$"},
  {"kind": "became_candidate", "regex": "epoch (?P<term>\\d+): standing for election"},
  {"kind": "send", "regex": "epoch (?P<term>\\d+): asking (?P<peer>\\w+)", "set": {"msg": "request_vote"}},
  {"kind": "vote", "regex": "epoch (?P<term>\\d+): ballot to (?P<for>\\w+)"},
  {"kind": "receive", "regex": "epoch (?P<term>\\d+): ballot from (?P<peer>\\w+)", "set": {"msg": "vote_grant"}},
  {"kind": "became_leader", "regex": "epoch (?P<term>\\d+): in charge"},
  {"kind": "became_follower", "regex": "epoch (?P<term>\\d+): (?P<leader>\\w+) is in charge"}
 ]
}"#;

#[test]
fn a_system_the_app_does_not_ship_imports_through_its_own_mapping() {
    let m = Mapping::read(TOY_MAPPING).unwrap();
    let files = [LogFile { name: "toy.log", text: TOY_LOG }];
    let imp = m.import(&files).unwrap();
    assert!(imp.report.damaged.is_empty(), "{:?}", imp.report.damaged);
    let e = run(&imp.scenario);
    // Members numbered by id (no names): alpha 1, bravo 2, carol 3.
    assert_eq!(e.frame().leaders, vec![1]);
    for n in e.frame().nodes {
        assert_eq!(n.view.leader, Some(1), "member {} knows alpha leads", n.id);
        assert_eq!(n.view.term, Some(1));
    }
    assert_eq!(imp.report.matched, 1, "bravo's ballot is matched to alpha's receipt");
    assert_eq!(imp.report.no_receive, 3, "two requests and carol's ballot are not seen arriving");
    // The report adds up: every line is used, skipped or damaged.
    let (read, used): (usize, usize) = imp.report.files.iter().fold((0, 0), |a, f| (a.0 + f.1, a.1 + f.2));
    assert_eq!(read, TOY_LOG.lines().count());
    assert_eq!(used + imp.report.skipped + imp.report.damaged.len(), read);
}

#[test]
fn bad_input_is_refused_by_line_and_field() {
    let h = r#"{"format":"election-lab-events/1","system":"x","vocabulary":"raft"}"#;
    for (text, expected) in [
        ("", "empty"),
        (r#"{"format":"election-lab-events/2","system":"x","vocabulary":"raft"}"#, "e.jsonl:1: header: field 'format'"),
        (
            r#"{"format":"election-lab-events/1","system":"x","vocabulary":"paxos"}"#,
            "field 'vocabulary': unknown 'paxos'",
        ),
        (
            &format!("{h}\n{{\"time\":1,\"node\":\"a\",\"kind\":\"became_leeder\"}}"),
            "e.jsonl:2: field 'kind': unknown 'became_leeder'",
        ),
        (
            &format!("{h}\n{{\"time\":1,\"node\":\"a\",\"kind\":\"became_leader\",\"term\":\"x\"}}"),
            "e.jsonl:2: field 'term': expected a whole number",
        ),
        (&format!("{h}\n\n{{\"time\":\"yesterday\",\"node\":\"a\",\"kind\":\"started\"}}"), "e.jsonl:3: field 'time'"),
        (&format!("{h}\n{{\"time\":1,\"kind\":\"started\"}}"), "e.jsonl:2: field 'node' is missing"),
        (
            &format!("{h}\n{{\"time\":1,\"node\":\"a\",\"kind\":\"send\",\"peer\":\"b\",\"msg\":\"hello\"}}"),
            "field 'msg': expected one of the raft vocabulary's messages",
        ),
        (&format!("{h}\n{{\"time\":1,\"node\":\"a\",\"kind\":\"vote\"}}"), "e.jsonl:2: a vote event needs field 'for'"),
        (
            &format!("{h}\n{{\"time\":1,\"node\":\"a\",\"kind\":\"started\",\"term\":2}}"),
            "field 'term' is not one of a started event's",
        ),
        (&format!("{h}\nnot json"), "e.jsonl:2: not a JSON object"),
    ] {
        let err = events::import("e.jsonl", text).unwrap_err();
        assert!(err.contains(expected), "{text:?}: {err}");
    }
    for (mapping, expected) in [
        (TOY_MAPPING.replace("(?P<term>\\\\d+): in", "(?P<tern>\\\\d+): in"), "rules[5].regex: unknown capture 'tern'"),
        (TOY_MAPPING.replace("\"became_leader\"", "\"became_boss\""), "rules[5].kind: unknown 'became_boss'"),
        (TOY_MAPPING.replace("^\\\\[t=", "^\\\\[t=("), "lines[0].regex: not a regular expression"),
        (TOY_MAPPING.replace("\"unix_ms\"", "\"someday\""), "lines[0].time_format"),
    ] {
        let err = Mapping::read(&mapping).err().unwrap_or_else(|| panic!("accepted: {mapping}"));
        assert!(err.contains(expected), "{err}");
    }
    // A line whose event is wrong is refused by file and line, and the others still import.
    let bad = TOY_LOG.replace(
        "[t=1212] carol: epoch 1: ballot to alpha",
        "[t=1212] carol: epoch 99999999999999999999: ballot to alpha",
    );
    let imp = Mapping::read(TOY_MAPPING).unwrap().import(&[LogFile { name: "toy.log", text: &bad }]).unwrap();
    assert_eq!(imp.report.damaged.len(), 1, "{:?}", imp.report.damaged);
    assert!(imp.report.damaged[0].starts_with("toy.log:8: term"), "{:?}", imp.report.damaged);
}

#[test]
fn stated_crashes_replace_the_inferred_ones() {
    let text = r#"{"format":"election-lab-events/1","system":"x","vocabulary":"raft","members":[{"id":"a"},{"id":"b"},{"id":"c"}]}
{"time":"2026-12-06 08:00:00.000","node":"a","kind":"became_leader","term":1}
{"time":"2026-12-06 08:00:00.010","node":"b","kind":"became_follower","term":1,"leader":"a"}
{"time":"2026-12-06 08:00:00.010","node":"c","kind":"became_follower","term":1,"leader":"a"}
{"time":"2026-12-06 08:00:00.500","node":"a","kind":"crash","raw":"kill -9 4242"}
{"time":"2026-12-06 08:00:01.700","node":"b","kind":"peer_down","peer":"a"}
{"time":"2026-12-06 08:00:01.900","node":"b","kind":"became_candidate","term":2}
{"time":"2026-12-06 08:00:01.950","node":"b","kind":"became_leader","term":2}
{"time":"2026-12-06 08:00:02.000","node":"c","kind":"became_follower","term":2,"leader":"b"}
"#;
    let imp = events::import("e.jsonl", text).unwrap();
    assert_eq!(imp.scenario["schedule"], serde_json::json!([{"at": 500, "crash": 1}]));
    assert!(imp.report.faults.iter().any(|f| f.contains("crashed at 500 ms, as the events state (e.jsonl:5)")));
    let e = run(&imp.scenario);
    assert_eq!(e.frame().leaders, vec![2]);
}

/// etcd's default text logger writes whole seconds on its raft lines: one member's lines keep
/// their order, several members' interleaved in one file cannot be ordered, so such a file is
/// refused by name (read anyway, it showed two leaders and a split brain that never happened).
/// Concatenated, each member's lines stand together and read as its own log (`events_merge.rs`).
#[test]
fn a_merged_log_of_whole_seconds_is_refused_by_name() {
    let files = real_logs("etcd-text");
    assert!(mapped("etcd", &files).report.damaged.is_empty(), "each member's own log reads");
    // One line of each member in turn, each member's own lines in their order.
    let mut turns: Vec<std::str::Lines> = files.iter().map(|(_, t)| t.lines()).collect();
    let mut merged = Vec::new();
    while turns.iter().map(|l| l.clone().count()).sum::<usize>() > 0 {
        for l in turns.iter_mut() {
            merged.extend(l.next());
        }
    }
    let m = Mapping::read(Mapping::shipped("etcd").unwrap()).unwrap();
    let Err(err) = m.import(&logs(&[("merged.log".to_string(), merged.join("\n"))])) else { panic!("refused") };
    assert!(err.starts_with("merged.log: ") && err.contains("3 members") && err.contains("whole seconds"), "{err}");
}
