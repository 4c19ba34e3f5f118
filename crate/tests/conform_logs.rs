//! `protocols::conform` and `election-lab conform`: every committed real recording (etcd with
//! both loggers, a frozen etcd leader, ZooKeeper, Redis Sentinel; per member and merged; read by
//! the shipped mappings) conforms to its model with every rule exercised; a hand-damaged
//! copy (a term or a round lowered, a duplicated vote) is reported at the damaged line; the CLI
//! exits 0, 3 and 2 as the other commands do.

use election_lab::meta::Lang;
use election_lab::protocols::conform::{self, Rule, Verdict};
use election_lab::protocols::events::mapping::Mapping;
use election_lab::protocols::recorded::{self, Imported, LogFile};
use election_lab::Scenario;
use std::process::Command;

mod common;
use common::real_logs;

const BIN: &str = env!("CARGO_BIN_EXE_election-lab");

fn import(how: &str, files: &[(String, String)]) -> Imported {
    let logs: Vec<LogFile> = files.iter().map(|(name, text)| LogFile { name, text }).collect();
    match how.strip_prefix("mapping:") {
        Some(m) => Mapping::read(Mapping::shipped(m).unwrap()).unwrap().import(&logs).unwrap(),
        None => recorded::source(how).unwrap().import(&logs).unwrap(),
    }
}

fn verdict(imported: &Imported) -> Verdict {
    let scenario = Scenario::from_value(&imported.scenario).unwrap();
    conform::conform(&scenario, None).unwrap()
}

const SAMPLES: &[(&str, &str, &str)] = &[
    ("etcd-zap-freeze", "mapping:etcd", "raft"),
    ("etcd-text", "mapping:etcd", "raft"),
    ("etcd-zap", "mapping:etcd", "raft"),
    ("zookeeper", "mapping:zookeeper", "zookeeper"),
    ("sentinel", "mapping:sentinel", "raft"),
    ("sentinel-two-candidates", "mapping:sentinel", "raft"),
    ("sentinel-two-epochs", "mapping:sentinel", "raft"),
];

#[test]
fn every_committed_recording_conforms_with_every_rule_exercised() {
    for (dir, how, model) in SAMPLES {
        let imported = import(how, &real_logs(dir));
        let v = verdict(&imported);
        assert!(v.conforms(), "{dir} ({how}): {}", v.text(Lang::En));
        assert_eq!(v.model, *model, "{dir} ({how})");
        let params = &imported.scenario["params"];
        let lines = params["events"].as_array().unwrap().len() + params["messages"].as_array().unwrap().len();
        assert_eq!(v.lines, lines, "{dir} ({how})");
        assert!(v.headline(Lang::En).contains(&format!("every one of {lines} election lines")), "{dir}");
        for (rule, n) in &v.coverage {
            assert!(*n > 0, "{dir} ({how}): rule {} never exercised", rule.id());
        }
        assert!(v.text(Lang::Zh).contains(&lines.to_string()), "{dir}: {}", v.text(Lang::Zh));
    }
}

/// Two Sentinels started a failover in the same epoch (a real run of `scripts/real-cluster.sh
/// sentinel`): each voted for itself, and each one's answer to the other names itself. An answer
/// naming another candidate is a refusal, not a vote: read as a grant, it had the second
/// candidate voting for the first before its own candidacy, which `conform` reported.
#[test]
fn an_answer_naming_another_candidate_is_a_refusal() {
    let imported = import("mapping:sentinel", &real_logs("sentinel-two-candidates"));
    let msgs = imported.scenario["params"]["messages"].as_array().unwrap();
    let kinds = |from: u64, to: u64| -> Vec<&str> {
        msgs.iter().filter(|m| m["from"] == from && m["to"] == to).map(|m| m["kind"].as_str().unwrap()).collect()
    };
    assert_eq!(kinds(2, 3), vec!["VOTE_DENY"], "{msgs:?}");
    assert_eq!(kinds(3, 2), vec!["VOTE_DENY"], "{msgs:?}");
    assert_eq!(kinds(1, 2), vec!["VOTE_GRANT"], "{msgs:?}");
    let v = verdict(&imported);
    assert!(v.conforms(), "{}", v.text(Lang::En));
}

#[test]
fn a_merged_log_conforms_as_the_per_member_logs_do() {
    for (dir, how) in
        [("etcd-zap", "mapping:etcd"), ("zookeeper", "mapping:zookeeper"), ("sentinel", "mapping:sentinel")]
    {
        let files = real_logs(dir);
        let merged: Vec<&str> = files.iter().flat_map(|(_, t)| t.lines()).collect();
        let one = vec![("merged.log".to_string(), merged.join("\n"))];
        let (a, b) = (verdict(&import(how, &files)), verdict(&import(how, &one)));
        assert!(b.conforms(), "{dir} merged: {}", b.text(Lang::En));
        let rules = |v: &Verdict| v.coverage.iter().map(|(r, _)| *r).collect::<Vec<Rule>>();
        assert_eq!(rules(&a), rules(&b), "{dir}");
    }
}

/// `files` with line `line` (1-based) of `file` replaced by what `edit` makes of it, or with
/// `edit`'s result inserted after it when `insert`.
fn damage(
    files: &[(String, String)],
    file: &str,
    line: usize,
    insert: bool,
    edit: impl Fn(&str) -> String,
) -> Vec<(String, String)> {
    common::edit_log(files, file, |lines| {
        let new = edit(&lines[line - 1]);
        assert_ne!(new, lines[line - 1], "{file}:{line} was not changed");
        if insert {
            lines.insert(line, new);
        } else {
            lines[line - 1] = new;
        }
    })
}

#[test]
fn a_damaged_copy_is_reported_at_the_damaged_line() {
    let zap = real_logs("etcd-zap");
    let text = real_logs("etcd-text");
    let zk = real_logs("zookeeper");
    let sentinel = real_logs("sentinel");
    let cases = [
        // A term lowered: b becomes candidate at term 1, having been a follower at term 2.
        (
            "etcd zap, term lowered",
            "etcd",
            damage(&zap, "b.log", 71, false, |l| l.replace("became candidate at term 3", "became candidate at term 1")),
            "b.log:71",
            Rule::TermUp,
        ),
        (
            "etcd text, term lowered",
            "mapping:etcd",
            damage(&text, "b.log", 76, false, |l| l.replace("at term 3", "at term 1")),
            "b.log:76",
            Rule::TermUp,
        ),
        // A duplicated vote: b casts its term-2 vote a second time, for another candidate.
        (
            "etcd zap, second vote",
            "etcd",
            damage(&zap, "b.log", 61, true, |l| {
                l.replace("cast MsgVote for dd8eb4b69ad0bf79", "cast MsgVote for b0689b7f7eadf9aa")
            }),
            "b.log:62",
            Rule::OneVote,
        ),
        (
            "sentinel, second vote",
            "mapping:sentinel",
            damage(&sentinel, "s1.log", 21, true, |l| {
                l.replace("617d1382602f2867fa6b444512f13ece3e252976", "969dad941d73358e85c25a37d712d9adce53c897")
            }),
            "s1.log:22",
            Rule::OneVote,
        ),
        // A round lowered: server 1 notifies itself of round 0 after round 1.
        (
            "zookeeper, round lowered",
            "zookeeper",
            damage(&zk, "1.log", 57, false, |l| l.replace("0x2 (n.round)", "0x0 (n.round)")),
            "1.log:57",
            Rule::RoundUp,
        ),
    ];
    for (what, how, files, line, rule) in cases {
        let v = verdict(&import(how, &files));
        let bad = v.violation.as_ref().unwrap_or_else(|| panic!("{what}: not reported: {}", v.text(Lang::En)));
        assert!(bad.line.ends_with(line), "{what}: reported at {} ({})", bad.line, v.headline(Lang::En));
        assert_eq!(bad.rule, rule, "{what}: {}", v.headline(Lang::En));
        assert!(v.headline(Lang::En).contains(line), "{what}: {}", v.headline(Lang::En));
    }
}

fn temp(name: &str, text: &str) -> std::path::PathBuf {
    let dir = std::env::temp_dir().join(format!("election-lab-conform-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let p = dir.join(name);
    std::fs::write(&p, text).unwrap();
    p
}

fn cli(args: &[&str]) -> (i32, String, String) {
    let out = Command::new(BIN).args(args).output().unwrap();
    let s = |b: &[u8]| String::from_utf8_lossy(b).into_owned();
    (out.status.code().unwrap_or(-1), s(&out.stdout), s(&out.stderr))
}

#[test]
fn the_cli_exits_0_when_it_conforms_3_when_not_and_2_for_bad_input() {
    let good = temp("good.json", &(import("mapping:sentinel", &real_logs("sentinel")).scenario.to_string() + "\n"));
    let (code, out, _) = cli(&["conform", good.to_str().unwrap(), "--model", "raft"]);
    assert_eq!(code, 0, "{out}");
    assert!(out.starts_with("conforms: every one of "), "{out}");
    assert!(out.contains("a member votes at most once per term: 3 observed steps"), "{out}");
    let (code, out, _) = cli(&["conform", good.to_str().unwrap(), "--lang", "zh"]);
    assert_eq!(code, 0);
    assert!(out.starts_with("符合"), "{out}");

    let files = damage(&real_logs("etcd-zap"), "b.log", 71, false, |l| l.replace("at term 3", "at term 1"));
    let bad = temp("bad.json", &(import("etcd", &files).scenario.to_string() + "\n"));
    let (code, out, _) = cli(&["conform", bad.to_str().unwrap()]);
    assert_eq!(code, 3, "{out}");
    assert!(
        out.starts_with("does not conform to the raft model at b.log:71: N2's term goes down from 2 to 1"),
        "{out}"
    );

    // A model that does not fit the recording, and a run that is not a recording.
    let (code, _, err) = cli(&["conform", good.to_str().unwrap(), "--model", "zookeeper"]);
    assert_eq!(code, 2);
    assert!(err.contains("model 'zookeeper' does not fit a recording of etcd-log"), "{err}");
    let preset = temp("preset.json", &election_lab::presets::all().next().unwrap().scenario().to_json_pretty());
    let (code, _, err) = cli(&["conform", preset.to_str().unwrap()]);
    assert_eq!(code, 2);
    assert!(err.contains("is not a recorded run"), "{err}");
    let (code, _, err) = cli(&["conform", "/nonexistent/trace.json"]);
    assert_eq!(code, 2);
    assert!(err.contains("cannot read"), "{err}");
}
