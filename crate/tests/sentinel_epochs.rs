//! Redis Sentinel's leaders lead one epoch's failover each. A real run under load
//! (`tests/data/real/sentinel-two-epochs`, from `scripts/real-cluster.sh sentinel` in the
//! real-cluster test that once failed on CI) ran two failovers: epoch 1 led by s2 (the killed
//! master's replica promoted, every other Sentinel switched to it: what `status.txt` reports,
//! read when the Sentinels first agreed), then, in the second before the cluster was stopped,
//! epoch 2 led by s1 against the new master after a momentary `+sdown`/`+odown`, its odown
//! cleared (`-odown`) just before it was elected and went on promoting another replica (a
//! failover once started is not stopped by `-odown`; only `+failover-end` or a
//! `-failover-abort-*` ends it). The trace must say exactly that: one
//! leader per epoch, the epoch the cluster reported led by the Sentinel that promoted its
//! master, the run ending with the leaders whose failover had not ended, and the overlap of
//! s2's unfinished epoch-1 failover with s1's epoch-2 one counted as what it is (two Sentinels
//! each running a failover at once, in different epochs), never as two leaders of one epoch.
//!
//! A failover that ends or aborts ends its leader's leadership in the trace: the committed runs
//! were stopped before either, so the lines Sentinel writes then are added to a copy.

use election_lab::meta::Lang;
use election_lab::observe::TWO_LEADERS_IN_TERM;
use election_lab::protocols::conform;
use election_lab::protocols::events::mapping::Mapping;
use election_lab::protocols::recorded::{Imported, LogFile};
use election_lab::Scenario;
use std::path::Path;

mod common;
use common::sentinel::{check_leadership, node_of};
use common::{real_logs, run};

fn import(files: &[(String, String)]) -> Imported {
    let logs: Vec<LogFile> = files.iter().map(|(name, text)| LogFile { name, text }).collect();
    let imp = Mapping::read(Mapping::shipped("sentinel").unwrap()).unwrap().import(&logs).unwrap();
    assert!(imp.report.damaged.is_empty(), "{}", imp.report.text());
    imp
}

/// A word of the status line that starts with `prefix`.
fn status_word(dir: &str, prefix: &str, k: usize) -> String {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/real").join(dir).join("status.txt");
    let status = std::fs::read_to_string(path).unwrap();
    let line = status.lines().find(|l| l.starts_with(prefix)).unwrap();
    line.split_whitespace().nth(k).unwrap().to_string()
}

#[test]
fn a_second_failover_in_a_later_epoch_reads_as_sentinel_ran_it() {
    let files = real_logs("sentinel-two-epochs");
    let imp = import(&files);
    let e = run(&imp.scenario);
    let failovers = check_leadership(&files, &imp.scenario, &e);
    // "after: master 127.0.0.1:PORT config-epoch E", from SENTINEL get-master-addr-by-name / master.
    let (master, epoch) =
        (status_word("sentinel-two-epochs", "after: ", 2), status_word("sentinel-two-epochs", "after: ", 4));
    let epoch: u64 = epoch.parse().unwrap();
    let reported = failovers.iter().find(|f| f.elected && f.epoch == epoch).expect("a leader of the reported epoch");
    assert_eq!(reported.promoted.as_deref(), Some(master.as_str()), "{failovers:?}");
    // Every other Sentinel switched to that master, and the trace keeps their lines.
    let switched =
        imp.report.notes.iter().filter(|n| n.contains("+switch-master m ") && n.ends_with(&master.replace(':', " ")));
    assert_eq!(switched.count(), files.len() - 1, "{}", imp.report.text());
    // This run went on into a later epoch; its leader had a quorum: its own vote and a grant.
    let later: Vec<_> = failovers.iter().filter(|f| f.elected && f.epoch > epoch).collect();
    assert!(!later.is_empty(), "{failovers:?}");
    for f in &later {
        let n = node_of(&imp.scenario, &f.file);
        let msgs = imp.scenario["params"]["messages"].as_array().unwrap();
        let grants = msgs.iter().filter(|m| m["to"] == n && m["kind"] == "VOTE_GRANT" && m["term"] == f.epoch).count();
        assert!(grants >= 1, "{f:?}: {msgs:?}");
    }
    assert!(e.violations().iter().all(|v| v.kind != TWO_LEADERS_IN_TERM), "{:?}", e.violations());
    // conform: every election line a step of Raft's per-term vote.
    let v = conform::conform(&Scenario::from_value(&imp.scenario).unwrap(), None).unwrap();
    assert!(v.conforms(), "{}", v.text(Lang::En));
}

/// The logs with `line` added to `file` after its last line that contains `after`, stamped with
/// that line's prefix (pid, role and time).
fn add_after(files: &[(String, String)], file: &str, after: &str, line: &str) -> Vec<(String, String)> {
    common::edit_log(files, file, |lines| {
        let i = lines.iter().rposition(|l| l.contains(after)).unwrap_or_else(|| panic!("{after} in {file}"));
        let prefix = lines[i].split_whitespace().take(5).collect::<Vec<_>>().join(" ");
        lines.insert(i + 1, format!("{prefix} # {line}"));
    })
}

#[test]
fn a_failover_that_ends_or_aborts_ends_its_leadership() {
    // The leader's failover ends: it is a follower again in its epoch, and no member leads.
    let files = real_logs("sentinel");
    let leader_log = common::sentinel::failovers(&files).into_iter().find(|f| f.elected).unwrap().file;
    let ended = add_after(&files, &leader_log, "+promoted-slave", "+failover-end master m 127.0.0.1 1");
    let imp = import(&ended);
    let e = run(&imp.scenario);
    check_leadership(&ended, &imp.scenario, &e);
    assert!(e.frame().leaders.is_empty());
    assert!(imp.report.notes.iter().any(|n| n.contains("+failover-end master")), "{}", imp.report.text());
    let before = run(&import(&files).scenario);
    let n = node_of(&imp.scenario, &leader_log);
    assert_eq!(before.frame().leaders, vec![n], "the committed run ends with its leader");
    // A candidate not elected aborts (at its log's end): a follower again, the elected one still leads.
    let files = real_logs("sentinel-two-candidates");
    let fs = common::sentinel::failovers(&files);
    let lost = fs.iter().find(|f| !f.elected).expect("a candidate not elected");
    let aborted = add_after(&files, &lost.file, "", "-failover-abort-not-elected master m 127.0.0.1 1");
    let imp = import(&aborted);
    let e = run(&imp.scenario);
    check_leadership(&aborted, &imp.scenario, &e);
    let n = node_of(&imp.scenario, &lost.file);
    let frame = e.frame();
    let view = &frame.nodes.iter().find(|x| x.id == n).unwrap().view;
    assert!(!view.is_leader());
    assert_eq!(view.role, "follower");
}
