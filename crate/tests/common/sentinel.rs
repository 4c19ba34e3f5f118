//! Redis Sentinel's failovers as its own logs state them, read with plain string matching
//! (independently of the shipped mapping), for the tests that check the mapping's reading.

use election_lab::observe::{Violation, SPLIT_BRAIN};
use election_lab::Engine;
use serde_json::Value;
use std::collections::BTreeMap;

/// One failover a Sentinel attempted: the log it is in (`s1.log`), its epoch, whether it was
/// elected (`+elected-leader`), whether it ended or aborted (`+failover-end`,
/// `-failover-abort-*`) in the logs, and the replica it promoted (`127.0.0.1:PORT`).
#[derive(Debug, Clone, PartialEq)]
pub struct Failover {
    pub file: String,
    pub epoch: u64,
    pub elected: bool,
    pub ended: bool,
    pub promoted: Option<String>,
}

/// Every failover each log shows, in log order.
pub fn failovers(logs: &[(String, String)]) -> Vec<Failover> {
    let mut out = Vec::new();
    for (file, text) in logs {
        let mut epoch = 0;
        let mut current: Option<Failover> = None;
        for line in text.lines() {
            if let Some(e) = line.split("# +new-epoch ").nth(1) {
                epoch = e.trim().parse().unwrap();
            } else if line.contains("# +try-failover master ") {
                out.extend(current.take());
                current = Some(Failover { file: file.clone(), epoch, elected: false, ended: false, promoted: None });
            } else if let Some(f) = current.as_mut() {
                if line.contains("# +elected-leader master ") {
                    f.elected = true;
                } else if line.contains("# +failover-end master ") || line.contains("# -failover-abort-") {
                    f.ended = true;
                } else if let Some(rest) = line.split("# +promoted-slave slave ").nth(1) {
                    f.promoted = rest.split_whitespace().next().map(str::to_string);
                }
            }
        }
        out.extend(current);
    }
    out
}

/// The member numbers of the trace by log file (`s1.log` → the member named `s1`).
pub fn node_of(scenario: &Value, file: &str) -> u32 {
    let name = file.trim_end_matches(".log");
    let members = scenario["params"]["members"].as_array().unwrap();
    members.iter().find(|m| m["name"] == name).unwrap_or_else(|| panic!("member {name} in {members:?}"))["node"]
        .as_u64()
        .unwrap() as u32
}

/// The trace's leaders by term: each member that took office in a term (`role: leader`).
pub fn trace_leaders(scenario: &Value) -> BTreeMap<u64, Vec<u32>> {
    let mut out: BTreeMap<u64, Vec<u32>> = BTreeMap::new();
    for e in scenario["params"]["events"].as_array().unwrap().iter().filter(|e| e["role"] == "leader") {
        let v = out.entry(e["term"].as_u64().unwrap()).or_default();
        let n = e["node"].as_u64().unwrap() as u32;
        if !v.contains(&n) {
            v.push(n);
        }
    }
    out
}

/// Checks the trace against the logs' failovers: the same leader per epoch (one each, Sentinel's
/// guarantee), the run ending with exactly the leaders whose failover had not ended when the logs
/// stop, no two leaders in one term, and a split brain only between leaders of different epochs
/// (a failover still finishing in an older epoch while a newer epoch's runs). Returns the
/// failovers.
pub fn check_leadership(logs: &[(String, String)], scenario: &Value, e: &Engine) -> Vec<Failover> {
    let all = failovers(logs);
    let mut from_logs: BTreeMap<u64, Vec<u32>> = BTreeMap::new();
    for f in all.iter().filter(|f| f.elected) {
        from_logs.entry(f.epoch).or_default().push(node_of(scenario, &f.file));
    }
    assert!(from_logs.values().all(|l| l.len() == 1), "one leader per epoch in the logs: {all:?}");
    assert_eq!(trace_leaders(scenario), from_logs, "the trace's leaders per epoch are the logs' ({all:?})");
    let mut leading: Vec<u32> =
        all.iter().filter(|f| f.elected && !f.ended).map(|f| node_of(scenario, &f.file)).collect();
    leading.sort_unstable();
    assert_eq!(e.frame().leaders, leading, "the leaders whose failover had not ended: {all:?}");
    // The term a member last took office in, by a time.
    let events = scenario["params"]["events"].as_array().unwrap();
    let term_of = |n: u32, t: u64| {
        events
            .iter()
            .filter(|x| x["role"] == "leader" && x["node"] == n && x["at"].as_u64() <= Some(t))
            .filter_map(|x| x["term"].as_u64())
            .max()
    };
    for v in e.violations() {
        let Violation { kind, nodes, time, .. } = v;
        assert_eq!(*kind, SPLIT_BRAIN, "{:?}", e.violations());
        let mut terms: Vec<Option<u64>> = nodes.iter().map(|&n| term_of(n, *time)).collect();
        let count = terms.len();
        terms.sort_unstable();
        terms.dedup();
        assert_eq!(terms.len(), count, "a split brain only across epochs: {v:?} {all:?}");
    }
    all
}
