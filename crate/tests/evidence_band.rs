//! A recorded crash's evidence band (`params.evidence`, drawn on the space-time diagram) names
//! both ends by their log lines: the victim's last line, of any kind (often not an election
//! line: etcd's "cluster version is updated", ZooKeeper's connection lines), and its peers' first
//! report of the loss. The committed recorded presets carry both, and their tooltips, in both
//! languages, say where each line is; the shipped mappings name the same lines.

use election_lab::meta::{k, Lang};
use election_lab::protocols::events::mapping::Mapping;
use election_lab::protocols::recorded::LogFile;
use serde_json::Value;

mod common;
use common::real_logs;

/// The recorded presets and the committed logs they were imported from.
const PRESETS: &[(&str, &str, &str)] =
    &[("etcd-leader-killed", "etcd-zap", "etcd"), ("zookeeper-leader-killed", "zookeeper", "zookeeper")];

/// The last line of `file` in the committed logs that is not blank, as `file:line`.
fn last_line(files: &[(String, String)], file: &str) -> String {
    let text = &files.iter().find(|(n, _)| n == file).unwrap_or_else(|| panic!("{file}")).1;
    let n = text.lines().enumerate().filter(|(_, l)| !l.trim().is_empty()).map(|(i, _)| i + 1).max().unwrap();
    format!("{file}:{n}")
}

#[test]
fn the_band_names_the_victims_last_line_and_its_peers_first_report() {
    for (preset, dir, mapping) in PRESETS {
        let files = real_logs(dir);
        let p = election_lab::presets::find(preset).unwrap();
        let scenario: Value = serde_json::from_str(p.json).unwrap();
        let bands = scenario["params"]["evidence"].as_array().unwrap_or_else(|| panic!("{preset}: no evidence"));
        assert_eq!(bands.len(), 1, "{preset}: {bands:?}");
        let b = &bands[0];
        let node = b["node"].as_u64().unwrap();
        let member = scenario["params"]["members"].as_array().unwrap().iter().find(|m| m["node"] == node).unwrap();
        // Its own log: the file of the member's name (etcd) or number (ZooKeeper).
        let own = files
            .iter()
            .map(|(n, _)| n.as_str())
            .find(|n| {
                let stem = n.trim_end_matches(".log");
                member["name"] == stem || member["id"] == stem
            })
            .unwrap_or_else(|| panic!("{preset}: the log of {member}"));
        assert_eq!(b["last"].as_str().unwrap(), last_line(&files, own), "{preset}");
        let lost = b["lost"].as_str().unwrap();
        assert!(!lost.is_empty() && !lost.starts_with(own), "{preset}: {b}");
        let (from, to) = (b["from"].as_u64().unwrap(), b["to"].as_u64().unwrap());
        assert!(from < to, "{preset}: {b}");
        for lang in [Lang::En, Lang::Zh] {
            let title =
                k::UI_SPACETIME_EVIDENCE.format(lang, &[&node, &b["last"].as_str().unwrap(), &from, &lost, &to]);
            assert!(title.contains(b["last"].as_str().unwrap()), "{preset}: {title}");
            assert!(title.contains(lost), "{preset}: {title}");
            assert!(!title.contains("(,") && !title.contains("（,") && !title.contains("(，"), "{preset}: {title}");
        }
        // The shipped mapping reads the same band.
        let logs: Vec<LogFile> = files.iter().map(|(name, text)| LogFile { name, text }).collect();
        let mapped = Mapping::read(Mapping::shipped(mapping).unwrap()).unwrap().import(&logs).unwrap();
        assert_eq!(mapped.scenario["params"]["evidence"], scenario["params"]["evidence"], "{preset}");
    }
}
