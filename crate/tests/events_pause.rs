//! Pauses and links (`recorded::pause`): a frozen etcd leader (`real-cluster.sh etcd --zap
//! --freeze`, committed under `tests/data/real/etcd-zap-freeze`) is recognised in its logs as a
//! pause from its last line before its silence to its first line after it, not as a crash, and
//! wakes a stale leader; per-member and merged logs (sorted or not) give the same run; the
//! harness's faults file states the pause and the resume instead; a killed leader is still a
//! crash; an events file's pause-then-resume and lost / restored links are drawn as stated; bad
//! events are refused by line and field.

use election_lab::meta::Lang;
use election_lab::protocols::events::{self, mapping::Mapping};
use election_lab::protocols::recorded::{self, Imported, LogFile};
use election_lab::{Engine, Scenario};
use serde_json::Value;
use std::path::Path;

mod common;
use common::real_logs as data;

fn dir(name: &str) -> std::path::PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/real").join(name)
}

fn logs(files: &[(String, String)]) -> Vec<LogFile<'_>> {
    files.iter().map(|(name, text)| LogFile { name, text }).collect()
}

fn etcd_mapping() -> Mapping {
    Mapping::read(Mapping::shipped("etcd").unwrap()).unwrap()
}

fn engine(imp: &Imported) -> Engine {
    Engine::new(Scenario::from_value(&imp.scenario).unwrap()).unwrap()
}

/// The node of the member named `name` (etcd's --name) in a recorded scenario.
fn node_named(imp: &Imported, name: &str) -> u64 {
    let members = imp.scenario["params"]["members"].as_array().unwrap();
    members.iter().find(|m| m["name"] == name).unwrap()["node"].as_u64().unwrap()
}

fn status_word(after: &str, k: usize) -> String {
    let status = std::fs::read_to_string(dir("etcd-zap-freeze").join("status.txt")).unwrap();
    let line = status.lines().find(|l| l.starts_with(after)).unwrap();
    line[after.len()..].split_whitespace().nth(k).unwrap().to_string()
}

/// The pause events of a recorded scenario: (node, at, paused?).
fn pauses(imp: &Imported) -> Vec<(u64, u64, bool)> {
    let events = imp.scenario["params"]["events"].as_array().unwrap();
    events.iter().filter_map(|e| Some((e["node"].as_u64()?, e["at"].as_u64()?, e.get("paused")?.as_bool()?))).collect()
}

/// What a run is, whatever file and line each event came from.
fn essence(s: &Value) -> Value {
    let strip = |list: &Value| -> Vec<Value> {
        let mut v: Vec<Value> = list
            .as_array()
            .unwrap()
            .iter()
            .map(|x| {
                let mut x = x.clone();
                x.as_object_mut().unwrap().remove("line");
                x
            })
            .collect();
        v.sort_by_key(|x| x.to_string());
        v
    };
    let members: Vec<Value> =
        s["params"]["members"].as_array().unwrap().iter().map(|m| serde_json::json!([m["id"], m["node"]])).collect();
    serde_json::json!({"members": members, "schedule": s["schedule"],
                       "events": strip(&s["params"]["events"]), "messages": strip(&s["params"]["messages"])})
}

/// Steps the run until `until` says so, or to its end.
fn step_until(e: &mut Engine, until: &dyn Fn(&Engine) -> bool) -> bool {
    loop {
        if until(e) {
            return true;
        }
        if !e.step() {
            return false;
        }
    }
}

#[test]
fn a_frozen_leader_is_recognised_in_its_logs_as_a_pause_and_wakes_a_stale_leader() {
    let files = data("etcd-zap-freeze");
    let imp = etcd_mapping().import(&logs(&files)).unwrap();
    assert!(imp.report.damaged.is_empty(), "{}", imp.report.text());
    let (frozen, leader) = (node_named(&imp, &status_word("froze ", 0)), node_named(&imp, &status_word("after: ", 1)));
    // One pause of the frozen leader, resumed; no crash, no cut link.
    let p = pauses(&imp);
    assert_eq!(p.len(), 2, "{p:?}");
    assert_eq!((p[0].0, p[0].2, p[1].0, p[1].2), (frozen, true, frozen, false), "{p:?}");
    assert!(imp.scenario["schedule"].as_array().unwrap().is_empty(), "{}", imp.scenario["schedule"]);
    assert!(
        imp.report.faults.iter().any(|f| f.starts_with(&format!("member {frozen} paused from"))),
        "{:?}",
        imp.report.faults
    );
    // It was paused from just after its last line before the silence to its first line after.
    let own: Vec<u64> = imp.scenario["params"]["events"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|e| e["node"] == frozen && e.get("paused").is_none())
        .map(|e| e["at"].as_u64().unwrap())
        .collect();
    let before = own.iter().filter(|&&t| t < p[0].1).max().copied().unwrap();
    let after = own.iter().filter(|&&t| t > p[0].1).min().copied().unwrap();
    assert_eq!((p[0].1, p[1].1), (before + 1, after));
    // Drawn paused during it, leading still in its own view; the new leader elected meanwhile.
    let mut e = engine(&imp);
    let paused_while_other_leads = |e: &Engine| {
        let f = e.frame();
        let n = f.nodes.iter().find(|n| n.id as u64 == frozen).unwrap();
        n.view.paused && n.up && n.view.is_leader() && f.leaders.contains(&(leader as u32))
    };
    assert!(step_until(&mut e, &paused_while_other_leads), "the frozen leader is drawn paused while another leads");
    let rows = e.inspect(frozen as u32);
    assert!(rows.iter().any(|f| f.id == "paused_since" && f.label.get(Lang::En) == "paused since"), "{rows:?}");
    // Its resume says it wakes a stale leader.
    let woke = |e: &Engine| !e.frame().nodes.iter().find(|n| n.id as u64 == frozen).unwrap().view.paused;
    assert!(step_until(&mut e, &woke));
    let said = e.narrate(e.cursor(), Lang::En).unwrap_or_default();
    assert!(said.contains("still believing it leads at term"), "{said}");
    e.run_to_end();
    assert_eq!(e.frame().leaders, vec![leader as u32], "{}", imp.report.text());
}

#[test]
fn a_merged_freeze_log_in_any_order_gives_the_per_member_run() {
    let files = data("etcd-zap-freeze");
    let m = etcd_mapping();
    let per_member = m.import(&logs(&files)).unwrap();
    let all: Vec<&str> = files.iter().flat_map(|f| f.1.lines()).collect();
    let mut sorted = all.clone();
    sorted.sort_by_key(|l| l.split("\"ts\":\"").nth(1).map(|t| t[..23].to_string()));
    // Not sorted: one line of each member in turn, each member's own lines in their order.
    let mut turns: Vec<std::str::Lines> = files.iter().map(|(_, t)| t.lines()).collect();
    let mut dealt = Vec::new();
    while dealt.len() < all.len() {
        for l in turns.iter_mut() {
            dealt.extend(l.next());
        }
    }
    for (what, lines) in [("concatenated", all), ("sorted", sorted), ("unsorted", dealt)] {
        let text = lines.join("\n");
        let merged = [("merged.log".to_string(), text)];
        let imp = m.import(&logs(&merged)).unwrap();
        // (etcd's zap lines about a peer's connection name no member: a merged log refuses them.)
        let (a, b) = (essence(&imp.scenario), essence(&per_member.scenario));
        assert_eq!(a["events"], b["events"], "{what}");
        assert_eq!(a["schedule"], b["schedule"], "{what}");
        assert_eq!(pauses(&imp), pauses(&per_member), "{what}");
    }
}

#[test]
fn the_harness_faults_file_states_the_pause_and_the_resume() {
    let files = data("etcd-zap-freeze");
    let faults = std::fs::read_to_string(dir("etcd-zap-freeze").join("faults.jsonl")).unwrap();
    let f = LogFile { name: "faults.jsonl", text: &faults };
    let imp = etcd_mapping().import_with(&logs(&files), Some(f)).unwrap();
    let t0 = imp.scenario["params"]["t0"].as_u64().unwrap();
    let stated: Vec<u64> = faults
        .lines()
        .skip(1)
        .map(|l| serde_json::from_str::<Value>(l).unwrap()["time"].as_u64().unwrap() - t0)
        .collect();
    let p = pauses(&imp);
    assert_eq!(p.iter().map(|x| x.1).collect::<Vec<_>>(), stated, "{p:?}");
    assert!(imp.report.faults.iter().any(|f| f.contains("as the events state")), "{:?}", imp.report.faults);
    assert!(imp.scenario["schedule"].as_array().unwrap().is_empty());
    assert_eq!(
        imp.report.files.iter().map(|f| f.1).sum::<usize>(),
        imp.report.files.iter().map(|f| f.2).sum::<usize>() + imp.report.skipped + imp.report.damaged.len()
    );
}

#[test]
fn a_killed_leader_is_still_a_crash_not_a_pause() {
    let imp = etcd_mapping().import(&logs(&data("etcd-zap"))).unwrap();
    assert!(pauses(&imp).is_empty());
    let schedule = imp.scenario["schedule"].as_array().unwrap();
    assert_eq!(schedule.len(), 1, "{schedule:?}");
    assert!(schedule[0].get("crash").is_some());
}

const EVENTS: &str = r#"{"format": "election-lab-events/1", "system": "toy", "vocabulary": "raft", "members": [{"id": "a"}, {"id": "b"}, {"id": "c"}]}
{"time": 1000, "node": "a", "kind": "became_leader", "term": 1}
{"time": 1001, "node": "b", "kind": "became_follower", "term": 1, "leader": "a"}
{"time": 1001, "node": "c", "kind": "became_follower", "term": 1, "leader": "a"}
{"time": 1100, "node": "a", "kind": "pause"}
{"time": 1200, "node": "b", "kind": "link_lost", "peer": "c"}
{"time": 1300, "node": "b", "kind": "link_restored", "peer": "c"}
{"time": 1400, "node": "a", "kind": "resume"}
{"time": 1401, "node": "a", "kind": "became_follower", "term": 1, "leader": "a"}
"#;

#[test]
fn an_events_file_pause_then_resume_and_links_are_drawn_as_stated() {
    let imp = events::import("toy.jsonl", EVENTS).unwrap();
    assert_eq!(pauses(&imp), vec![(1, 100, true), (1, 400, false)]);
    let schedule: Vec<String> = imp.scenario["schedule"].as_array().unwrap().iter().map(Value::to_string).collect();
    assert_eq!(
        schedule,
        vec![r#"{"at":200,"cut":[2,3]}"#, r#"{"at":200,"cut":[3,2]}"#, r#"{"at":300,"heal":true}"#],
        "{}",
        imp.report.text()
    );
    let mut e = engine(&imp);
    let paused = |e: &Engine| e.frame().nodes.iter().any(|n| n.view.paused);
    assert!(step_until(&mut e, &paused));
    assert!(e.frame().nodes.iter().all(|n| n.up), "a pause is no crash");
    e.run_to_end();
    assert!(!paused(&e));
    assert_eq!(imp.report.damaged.len(), 0);
}

#[test]
fn bad_pause_and_link_events_are_refused_by_line_and_field() {
    let head = r#"{"format": "election-lab-events/1", "system": "toy", "vocabulary": "raft"}"#;
    for (line, says) in [
        (r#"{"time": 1, "node": "a", "kind": "link_lost"}"#, "toy:2: a link_lost event needs field 'peer'"),
        (
            r#"{"time": 1, "node": "a", "kind": "link_restored", "peer": "a"}"#,
            "toy:2: field 'peer': a link_restored event names the other end",
        ),
        (
            r#"{"time": 1, "node": "a", "kind": "pause", "term": 3}"#,
            "toy:2: field 'term' is not one of a pause event's",
        ),
    ] {
        let err = events::read("toy", &format!("{head}\n{line}\n")).unwrap_err();
        assert!(err.starts_with(says), "{err}");
    }
    let faults = format!("{head}\n{}\n", r#"{"time": 1, "node": "a", "kind": "became_leader", "term": 1}"#);
    let err = events::read_faults("f", &faults, 1).unwrap_err();
    assert!(err.contains("pause, resume") && err.ends_with("not became_leader"), "{err}");
}

#[test]
fn a_crash_placed_by_evidence_carries_its_interval_for_the_page() {
    {
        let imp = etcd_mapping().import(&logs(&data("etcd-zap"))).unwrap();
        let ev = imp.scenario["params"]["evidence"].as_array().unwrap_or_else(|| panic!("{}", imp.report.text()));
        assert_eq!(ev.len(), 1, "{ev:?}");
        let crash = &imp.scenario["schedule"][0];
        assert_eq!((&ev[0]["node"], &ev[0]["to"]), (&crash["crash"], &crash["at"]));
        assert!(ev[0]["from"].as_u64() < ev[0]["to"].as_u64(), "{ev:?}");
        assert!(ev[0]["lost"].as_str().unwrap().contains(".log:"), "{ev:?}");
        // The puppet reads the scenario with it.
        engine(&imp).run_to_end();
    }
}

#[test]
fn the_model_replays_a_pause_as_a_crash_and_a_recovery_from_the_leader_before_it() {
    let imp = etcd_mapping().import(&logs(&data("etcd-zap-freeze"))).unwrap();
    let frozen = node_named(&imp, &status_word("froze ", 0));
    let sc = Scenario::from_value(&imp.scenario).unwrap();
    assert_eq!(sc.initial_leader, Some(frozen as u32), "the model starts from the leader that froze");
    let model = recorded::model_scenario(&sc).unwrap();
    let p = pauses(&imp);
    let faults: Vec<String> = model.schedule.iter().map(|s| format!("{} {:?}", s.at, s.action)).collect();
    assert_eq!(faults, vec![format!("{} Crash({frozen})", p[0].1), format!("{} Recover({frozen})", p[1].1)]);
    let mut e = Engine::new(model).unwrap();
    e.run_to_end();
    assert_eq!(e.frame().leaders.len(), 1, "the model elects one leader");
}
