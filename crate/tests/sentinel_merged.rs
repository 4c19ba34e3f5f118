//! One merged Sentinel log, in any order, gives the run of the per-member logs. A Sentinel names
//! itself (its run id) once, when it starts; every line after carries only its process id, which
//! the shipped mapping captures as `process`, so a line of a merged log belongs to the Sentinel
//! whose process announced that run id. The members' names (`s1`…) come from the per-member
//! files' names, which a merged log has not: the two runs are compared member by run id.

use election_lab::protocols::events::mapping::Mapping;
use election_lab::protocols::recorded::{Imported, LogFile};
use election_lab::{Engine, Scenario};
use serde_json::{json, Value};
use std::collections::BTreeMap;

mod common;
use common::real_logs;

fn import(files: &[(String, String)]) -> Imported {
    let logs: Vec<LogFile> = files.iter().map(|(name, text)| LogFile { name, text }).collect();
    Mapping::read(Mapping::shipped("sentinel").unwrap()).unwrap().import(&logs).unwrap()
}

/// The run with every member named by its run id instead of its number: the members' state
/// changes and messages, the leaders and the violations at the end.
fn by_run_id(s: &Value) -> Value {
    let ids: BTreeMap<u64, String> = s["params"]["members"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| (m["node"].as_u64().unwrap(), m["id"].as_str().unwrap().to_string()))
        .collect();
    // 0 is "nobody" (no leader yet, no vote).
    let id = |v: &Value| match v.as_u64() {
        None | Some(0) => v.clone(),
        Some(n) => Value::from(ids.get(&n).unwrap_or_else(|| panic!("{n} is no member: {ids:?}")).clone()),
    };
    let events: Vec<Value> = s["params"]["events"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|e| e.get("role").is_some() || e.get("leader").is_some() || e.get("vote").is_some())
        .map(|e| json!([e["at"], id(&e["node"]), e["role"], e["term"], id(&e["leader"]), id(&e["vote"])]))
        .collect();
    let mut messages: Vec<String> = s["params"]["messages"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| json!([id(&m["from"]), id(&m["to"]), m["kind"], m["term"], m["sent"], m["received"]]).to_string())
        .collect();
    messages.sort();
    let mut e = Engine::new(Scenario::from_value(s).unwrap()).unwrap();
    e.run_to_end();
    let mut leaders: Vec<Value> = e.leaders().iter().map(|&n| id(&Value::from(n))).collect();
    leaders.sort_by_key(|v| v.to_string());
    let violations: Vec<(String, u64)> = e.violations().iter().map(|v| (v.kind.to_string(), v.step)).collect();
    json!({
        "members": ids.values().collect::<Vec<_>>().len(), "t0": s["params"]["t0"],
        "initial_leader": id(&s["initial_leader"]), "events": events, "messages": messages,
        "leaders": leaders, "violations": violations,
    })
}

#[test]
fn a_merged_sentinel_log_in_any_order_gives_the_per_member_run() {
    for dir in ["sentinel", "sentinel-two-candidates", "sentinel-two-epochs"] {
        let files = real_logs(dir);
        let per_member = import(&files);
        assert!(per_member.report.damaged.is_empty(), "{dir}: {:?}", per_member.report.damaged);
        let want = by_run_id(&per_member.scenario);
        assert!(!want["events"].as_array().unwrap().is_empty(), "{dir}: the election is read");
        let lines: Vec<&str> = files.iter().flat_map(|(_, t)| t.lines()).collect();
        // Sorted by the time after the process id ("28038:X 06 Dec 2026 07:31:41.121"), stably.
        let stamp = |l: &&str| l.split_once(":X ").map(|(_, rest)| rest.chars().take(24).collect::<String>());
        let mut by_time = lines.clone();
        by_time.sort_by_key(stamp);
        // Not sorted: one line of each member in turn, each member's own lines in their order.
        let mut turns: Vec<std::str::Lines> = files.iter().map(|(_, t)| t.lines()).collect();
        let mut dealt = Vec::new();
        while dealt.len() < lines.len() {
            for l in turns.iter_mut() {
                dealt.extend(l.next());
            }
        }
        for (how, merged) in
            [("concatenated", lines.join("\n")), ("sorted", by_time.join("\n")), ("dealt", dealt.join("\n"))]
        {
            let imp = import(&[("merged.log".to_string(), merged)]);
            assert!(imp.report.damaged.is_empty(), "{dir} {how}: {:?}", imp.report.damaged);
            assert_eq!(by_run_id(&imp.scenario), want, "{dir} {how}");
        }
    }
}
