//! Real clusters on this machine: 3 etcd members and 3 ZooKeeper servers on 127.0.0.1, started by
//! `scripts/real-cluster.sh` (which kills the leader, waits for the new election and stops every
//! process it started, also on failure), then imported. The trace must name the leader (and, for
//! etcd, the term; ZooKeeper's election lines carry no epoch) the cluster itself reported (`etcdctl endpoint status`, ZooKeeper's `srvr`),
//! show the deciding round's votes matched send → receive, and the model must elect a leader
//! among the same survivors.
//!
//! Redis Sentinel (a master, two replicas, three Sentinels; the master killed) is read through the
//! shipped Sentinel mapping: the Sentinel that led the failover must be the one whose log promoted
//! the replica every Sentinel then names as master, at the epoch Sentinel reports; a later
//! failover the logs show (under load, in a later epoch) is read as Sentinel ran it.
//!
//! Each recording must conform to its model (`election-lab conform`), and a copy of it with a
//! term lowered or a vote cast twice must be reported at that line.
//!
//! These tests need Debian's etcd-server, etcd-client, zookeeper, a JRE, redis-server and
//! redis-sentinel: `make test` installs
//! them. Without them they fail (never skip) and say so. Each cluster is bounded by the script's
//! own timeouts (60 s per wait) and by `timeout` around the script; a guard kills any process
//! the script recorded in `pids` that is still alive when the test ends, however it ends.

use election_lab::meta::Lang;
use election_lab::protocols::conform;
use election_lab::protocols::events::mapping::Mapping;
use election_lab::protocols::recorded::{self, LogFile};
use election_lab::{Engine, Scenario};
use serde_json::Value;
use std::path::{Path, PathBuf};
use std::process::Command;

mod common;

fn repo() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).parent().unwrap().to_path_buf()
}

fn have(cmd: &str) -> bool {
    Command::new("sh").arg("-c").arg(format!("command -v {cmd}")).output().is_ok_and(|o| o.status.success())
}

fn require(kind: &str) {
    let missing: Vec<&str> = match kind {
        "etcd" => ["etcd", "etcdctl"].into_iter().filter(|c| !have(c)).collect(),
        "sentinel" => ["redis-server", "redis-sentinel", "redis-cli"].into_iter().filter(|c| !have(c)).collect(),
        _ => {
            let mut m: Vec<&str> = ["java"].into_iter().filter(|c| !have(c)).collect();
            if !Path::new("/usr/share/java/zookeeper.jar").exists() {
                m.push("/usr/share/java/zookeeper.jar");
            }
            m
        }
    };
    assert!(
        missing.is_empty(),
        "{kind} is not installed (missing: {}): `make test` installs Debian's etcd-server, etcd-client, zookeeper, default-jre-headless, redis-server and redis-sentinel",
        missing.join(", ")
    );
}

/// Kills whatever the script recorded and is still alive (it stops them itself; this is for a
/// script killed by its timeout).
struct Guard(PathBuf);

impl Drop for Guard {
    fn drop(&mut self) {
        if let Ok(pids) = std::fs::read_to_string(self.0.join("pids")) {
            for pid in pids.lines().filter_map(|l| l.split_whitespace().nth(1)) {
                if pid.bytes().all(|c| c.is_ascii_digit()) {
                    let _ = Command::new("kill").arg("-KILL").arg(pid).status();
                }
            }
        }
    }
}

fn cluster(kind: &str, extra: &[&str]) -> (PathBuf, Guard, String) {
    require(kind);
    let dir = std::env::temp_dir().join(format!("election-lab-test-{kind}-{}-{}", std::process::id(), extra.len()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    let guard = Guard(dir.clone());
    let out = Command::new("timeout")
        .args(["--kill-after=10", "240", "bash"])
        .arg(repo().join("scripts/real-cluster.sh"))
        .arg(kind)
        .args(extra)
        .arg("--out")
        .arg(&dir)
        .env("ELECTION_LAB", "true") // the test imports the logs itself
        .output()
        .expect("bash and timeout");
    let stdout = String::from_utf8_lossy(&out.stdout).into_owned();
    assert!(
        out.status.success(),
        "scripts/real-cluster.sh {kind} failed ({}):\n{stdout}\n{}",
        out.status,
        String::from_utf8_lossy(&out.stderr)
    );
    let status = std::fs::read_to_string(dir.join("status.txt")).unwrap();
    (dir, guard, status)
}

fn import(kind: &str, dir: &Path, names: &[&str]) -> (Value, Engine) {
    let texts: Vec<(String, String)> = names
        .iter()
        .map(|n| (n.to_string(), String::from_utf8_lossy(&std::fs::read(dir.join(n)).unwrap()).into_owned()))
        .collect();
    let logs: Vec<LogFile> = texts.iter().map(|(name, text)| LogFile { name, text }).collect();
    let imp = recorded::source(kind).unwrap().import(&logs).unwrap();
    assert!(imp.report.damaged.is_empty(), "{}", imp.report.text());
    let mut e = Engine::new(Scenario::from_value(&imp.scenario).unwrap()).unwrap();
    e.run_to_end();
    let crashes = |s: &Value| -> Vec<(u64, u64)> {
        s["schedule"]
            .as_array()
            .unwrap()
            .iter()
            .filter_map(|x| Some((x["crash"].as_u64()?, x["at"].as_u64()?)))
            .collect()
    };
    let ce = crashes(&imp.scenario);
    // With the script's faults.jsonl, the kill is placed at its wall time: after the victim's
    // last line and no later than its peers' first report of the loss (the crash without it),
    // inside the interval the report names.
    let faults = std::fs::read_to_string(dir.join("faults.jsonl")).unwrap();
    let f = LogFile { name: "faults.jsonl", text: &faults };
    let stated = Mapping::read(Mapping::shipped(kind).unwrap()).unwrap().import_with(&logs, Some(f)).unwrap();
    let cs = crashes(&stated.scenario);
    assert_eq!(cs.iter().map(|c| c.0).collect::<Vec<_>>(), ce.iter().map(|c| c.0).collect::<Vec<_>>(), "{kind}");
    let last: Vec<u64> = imp
        .report
        .faults
        .iter()
        .filter_map(|f| f.split("stopped logging at ").nth(1)?.split(' ').next()?.parse().ok())
        .collect();
    assert_eq!(last.len(), cs.len(), "{kind}: {:?}", imp.report.faults);
    assert!(last.iter().zip(&cs).all(|(l, s)| s.1 + 1 >= *l), "{kind}: after the last line: {last:?} {cs:?}");
    assert!(ce.iter().zip(&cs).all(|(m, s)| s.1 <= m.1), "{kind}: before the peers saw it: {ce:?} {cs:?}");
    assert!(
        stated.report.faults.iter().any(|f| f.contains("as the events state (faults.jsonl:2)")),
        "{}",
        stated.report.text()
    );
    (imp.scenario, e)
}

/// The recording conforms to its model with every rule exercised; a copy with one term (or
/// round) lowered, and a copy with one vote cast twice in a term, are each reported at that line.
fn conforms(scenario: &Value) {
    let verdict = |s: &Value| conform::conform(&Scenario::from_value(s).unwrap(), None).unwrap();
    let v = verdict(scenario);
    assert!(v.conforms(), "{}", v.text(Lang::En));
    assert!(v.coverage.iter().all(|(_, n)| *n > 0), "{}", v.text(Lang::En));
    let events = scenario["params"]["events"].as_array().unwrap();
    let lowered = (0..events.len()).find(|&i| {
        let (e, t) = (&events[i], events[i]["term"].as_u64().unwrap_or(0));
        t >= 1
            && events[..i]
                .iter()
                .any(|x| x["node"] == e["node"] && x["term"].as_u64() >= Some(1) && x["at"].as_u64() < e["at"].as_u64())
    });
    let i = lowered.unwrap_or_else(|| panic!("no term to lower in {events:?}"));
    let mut damaged = scenario.clone();
    damaged["params"]["events"][i]["term"] = 0.into();
    let bad = verdict(&damaged)
        .violation
        .unwrap_or_else(|| panic!("a lowered term at {} is not reported", events[i]["line"]));
    assert_eq!(Value::from(bad.line.clone()), events[i]["line"], "{}", verdict(&damaged).headline(Lang::En));
    if v.model == "raft" {
        let msgs = scenario["params"]["messages"].as_array().unwrap();
        let m = msgs.iter().find(|m| m["kind"] == "VOTE_GRANT").unwrap_or_else(|| panic!("no vote in {msgs:?}"));
        let other = scenario["nodes"].as_array().unwrap().iter().find(|n| **n != m["from"] && **n != m["to"]).unwrap();
        let mut twice = m.clone();
        twice["to"] = other.clone();
        let mut damaged = scenario.clone();
        damaged["params"]["messages"].as_array_mut().unwrap().push(twice);
        let bad =
            verdict(&damaged).violation.unwrap_or_else(|| panic!("a second vote at {} is not reported", m["line"]));
        assert_eq!(Value::from(bad.line.clone()), m["line"]);
        assert_eq!(bad.rule, conform::Rule::OneVote);
    }
}

fn word_after<'a>(status: &'a str, prefix: &str, k: usize) -> &'a str {
    let line = status.lines().find(|l| l.starts_with(prefix)).unwrap_or_else(|| panic!("no '{prefix}' in {status}"));
    line.split_whitespace().nth(k).unwrap()
}

/// What every real run ends with: the model elects among the survivors, the recorded run
/// conforms, and its folder is removed.
fn the_run_holds_up(e: &Engine, scenario: &Value, dir: &Path) {
    model_elects_among_survivors(e);
    conforms(scenario);
    let _ = std::fs::remove_dir_all(dir);
}

fn model_elects_among_survivors(real: &Engine) {
    let mut m = Engine::new(recorded::model_scenario(real.scenario()).unwrap()).unwrap();
    m.run_to_end();
    let up: Vec<u32> = real.frame().nodes.iter().filter(|n| n.up).map(|n| n.id).collect();
    let leaders = m.frame().leaders;
    assert_eq!(leaders.len(), 1, "{}: the model elects one leader: {leaders:?}", m.algorithm().id);
    assert!(up.contains(&leaders[0]), "the model's leader {leaders:?} is a survivor {up:?}");
}

#[test]
fn etcd_leader_killed_on_a_real_cluster() {
    for extra in [&["--zap"][..], &[][..]] {
        let (dir, _guard, status) = cluster("etcd", extra);
        let (scenario, e) = import("etcd", &dir, &["a.log", "b.log", "c.log"]);
        // "after: leader b (member 2c0964c05cc38d6c) at term 3", from etcdctl endpoint status.
        let name = word_after(&status, "after: ", 2);
        let id = word_after(&status, "after: ", 4).trim_matches(')');
        let term: u64 = word_after(&status, "after: ", 7).parse().unwrap();
        let members = scenario["params"]["members"].as_array().unwrap();
        // The same id, whether written with leading zeros (etcdctl) or without (raft's own lines).
        let hex = |s: &str| u64::from_str_radix(s, 16).unwrap_or_else(|_| panic!("a member id: {s}"));
        let member = members
            .iter()
            .find(|m| m["id"].as_str().map(hex) == Some(hex(id)))
            .unwrap_or_else(|| panic!("member {id} in {members:?}"));
        assert_eq!(member["name"], name);
        let node = member["node"].as_u64().unwrap() as u32;
        let frame = e.frame();
        assert_eq!(frame.leaders, vec![node], "{extra:?}: the leader etcdctl reported");
        let view = &frame.nodes.iter().find(|n| n.id == node).unwrap().view;
        assert_eq!(view.term, Some(term), "{extra:?}: the term etcdctl reported");
        // The killed member is crashed; the new leader's vote request to the other survivor and
        // its vote back are matched arrows of that term.
        let killed = word_after(&status, "killed ", 1);
        let killed = members.iter().find(|m| m["name"] == killed).unwrap()["node"].as_u64().unwrap() as u32;
        assert!(!frame.nodes.iter().find(|n| n.id == killed).unwrap().up, "{extra:?}: the killed member is down");
        let other = (1..=3).find(|&n| n != node && n != killed).unwrap() as u64;
        let msgs = scenario["params"]["messages"].as_array().unwrap();
        for (from, to, kind) in [(node as u64, other, "REQUEST_VOTE"), (other, node as u64, "VOTE_GRANT")] {
            assert!(
                msgs.iter().any(|m| m["from"] == from
                    && m["to"] == to
                    && m["kind"] == kind
                    && m["term"] == term
                    && (m["flag"] == "" || m["flag"] == "clamped")),
                "{extra:?}: {kind} {from}→{to} at term {term} matched send → receive: {msgs:?}"
            );
        }
        the_run_holds_up(&e, &scenario, &dir);
    }
}

#[test]
fn zookeeper_leader_killed_on_a_real_ensemble() {
    let (dir, _guard, status) = cluster("zookeeper", &[]);
    let (scenario, e) = import("zookeeper", &dir, &["1.log", "2.log", "3.log"]);
    // "after: leader 2 zxid 0x200000000", from the srvr four-letter command.
    let leader: u32 = word_after(&status, "after: ", 2).parse().unwrap();
    let zxid = u64::from_str_radix(word_after(&status, "after: ", 4).trim_start_matches("0x"), 16).unwrap();
    let frame = e.frame();
    assert_eq!(frame.leaders, vec![leader], "the leader srvr reported");
    for n in frame.nodes.iter().filter(|n| n.up) {
        assert_eq!(n.view.leader, Some(leader), "server {} follows it", n.id);
    }
    // srvr's zxid carries the new leader's epoch (its high 32 bits); the election lines do not
    // log epochs, so the trace is checked against the leader only. The epoch did move on.
    assert!(zxid >> 32 >= 2, "a second epoch after the kill: {zxid:#x}");
    let killed: u64 = word_after(&status, "killed ", 1).parse().unwrap();
    assert!(!frame.nodes.iter().find(|n| n.id as u64 == killed).unwrap().up);
    let crash_at = scenario["schedule"][0]["at"].as_u64().unwrap();
    let other = (1..=3u64).find(|&n| n != leader as u64 && n != killed).unwrap();
    let msgs = scenario["params"]["messages"].as_array().unwrap();
    for (from, to) in [(leader as u64, other), (other, leader as u64)] {
        assert!(
            msgs.iter()
                .any(|m| m["from"] == from && m["to"] == to && m["flag"] == "" && m["sent"].as_u64() > Some(crash_at)),
            "a VOTE {from}→{to} of the deciding round matched send → receive: {msgs:?}"
        );
    }
    the_run_holds_up(&e, &scenario, &dir);
}

#[test]
fn sentinel_master_killed_on_real_sentinels() {
    let (dir, _guard, status) = cluster("sentinel", &[]);
    let texts: Vec<(String, String)> = ["s1.log", "s2.log", "s3.log"]
        .iter()
        .map(|n| (n.to_string(), String::from_utf8_lossy(&std::fs::read(dir.join(n)).unwrap()).into_owned()))
        .collect();
    let logs: Vec<LogFile> = texts.iter().map(|(name, text)| LogFile { name, text }).collect();
    let imp = Mapping::read(Mapping::shipped("sentinel").unwrap()).unwrap().import(&logs).unwrap();
    assert!(imp.report.damaged.is_empty(), "{}", imp.report.text());
    let mut e = Engine::new(Scenario::from_value(&imp.scenario).unwrap()).unwrap();
    e.run_to_end();
    // "after: master 127.0.0.1:PORT config-epoch E", from SENTINEL get-master-addr-by-name / master,
    // read when the Sentinels first agree on a new master. The logs go on a second longer: under
    // load a later failover may start in a later epoch (the new master looked down a moment),
    // legitimately. Whatever ran, the trace has the logs' leader per epoch, ends with the leaders
    // whose failover had not ended, and never two leaders of one epoch.
    let master = word_after(&status, "after: ", 2);
    let epoch: u64 = word_after(&status, "after: ", 4).parse().unwrap();
    let failovers = common::sentinel::check_leadership(&texts, &imp.scenario, &e);
    // The epoch Sentinel reports was led by the Sentinel whose log promoted the master it names.
    let reported = failovers
        .iter()
        .find(|f| f.elected && f.epoch == epoch)
        .unwrap_or_else(|| panic!("a leader of epoch {epoch}: {failovers:?}\n{}", imp.report.text()));
    assert_eq!(reported.promoted.as_deref(), Some(master), "the leader promoted {master}: {failovers:?}");
    let leader = common::sentinel::node_of(&imp.scenario, &reported.file);
    let id = imp.scenario["params"]["members"].as_array().unwrap().iter().find(|m| m["node"] == leader).unwrap()["id"]
        .as_str()
        .unwrap()
        .to_string();
    assert!(
        imp.report.notes.iter().any(|n| n.contains(&id) && n.contains(&format!("+promoted-slave slave {master} "))),
        "the leader promoted {master}, the master every Sentinel names: {}",
        imp.report.text()
    );
    // With one failover (the usual run), it is the one leader at the end, in that epoch — unless
    // its log says the failover ended (+failover-end), which ends its leadership: then none leads.
    if failovers.iter().all(|f| f.epoch <= epoch) {
        let frame = e.frame();
        let leaders = if reported.ended { vec![] } else { vec![leader] };
        assert_eq!(frame.leaders, leaders, "the failover's leader, until it ended: {}", imp.report.text());
        let view = &frame.nodes.iter().find(|n| n.id == leader).unwrap().view;
        assert_eq!(view.term, Some(epoch), "the leader's term is the epoch Sentinel reports");
        assert!(e.violations().is_empty(), "{:?}", e.violations());
    }
    // A quorum (2 of 3) voted for it in that epoch: its own vote and at least one arrow in.
    let msgs = imp.scenario["params"]["messages"].as_array().unwrap();
    let votes = msgs.iter().filter(|m| m["to"] == leader && m["kind"] == "VOTE_GRANT" && m["term"] == epoch).count();
    assert!(votes >= 1, "{msgs:?}");
    the_run_holds_up(&e, &imp.scenario, &dir);
}

/// A frozen leader (SIGSTOP, resumed by SIGCONT once the others elected) keeps its state: the
/// logs alone show it paused (silent while another member leads, then logging again without a
/// restart), and the script's faults.jsonl places the pause and the resume where they happened.
/// Either way it is drawn paused, not crashed, wakes a stale leader, and the run ends with the one
/// leader etcdctl reported.
#[test]
fn etcd_leader_frozen_on_a_real_cluster() {
    let (dir, _guard, status) = cluster("etcd", &["--zap", "--freeze"]);
    let texts: Vec<(String, String)> = ["a.log", "b.log", "c.log"]
        .iter()
        .map(|n| (n.to_string(), String::from_utf8_lossy(&std::fs::read(dir.join(n)).unwrap()).into_owned()))
        .collect();
    let logs: Vec<LogFile> = texts.iter().map(|(name, text)| LogFile { name, text }).collect();
    let faults = std::fs::read_to_string(dir.join("faults.jsonl")).unwrap();
    assert!(faults.contains("SIGSTOP") && faults.contains("SIGCONT"), "{faults}");
    let f = LogFile { name: "faults.jsonl", text: &faults };
    let mapping = Mapping::read(Mapping::shipped("etcd").unwrap()).unwrap();
    for imp in [mapping.import(&logs).unwrap(), mapping.import_with(&logs, Some(f)).unwrap()] {
        assert!(imp.report.damaged.is_empty(), "{}", imp.report.text());
        let mut e = Engine::new(Scenario::from_value(&imp.scenario).unwrap()).unwrap();
        let members = imp.scenario["params"]["members"].as_array().unwrap();
        let node_of = |name: &str| members.iter().find(|m| m["name"] == name).unwrap()["node"].as_u64().unwrap() as u32;
        let (frozen, leader) = (node_of(word_after(&status, "froze ", 1)), node_of(word_after(&status, "after: ", 2)));
        let pauses: Vec<&Value> =
            imp.scenario["params"]["events"].as_array().unwrap().iter().filter(|e| e.get("paused").is_some()).collect();
        assert_eq!(pauses.len(), 2, "the freeze and the resume: {}", imp.report.text());
        assert!(pauses.iter().all(|p| p["node"] == frozen), "{pauses:?}");
        // No crash (a woken member may see a connection drop and come back: a cut link healed).
        let schedule = imp.scenario["schedule"].as_array().unwrap();
        assert!(
            schedule.iter().all(|s| s.get("crash").is_none() && s.get("recover").is_none()),
            "no crash: {schedule:?}"
        );
        let mut seen_paused = false;
        while e.step() {
            seen_paused |= e.node_view(frozen).is_some_and(|v| v.paused);
        }
        assert!(seen_paused, "the frozen leader is drawn paused");
        assert_eq!(e.frame().leaders, vec![leader], "{}", imp.report.text());
        assert!(
            imp.report.faults.iter().any(|f| f.contains(&format!("member {frozen} paused from"))),
            "{}",
            imp.report.text()
        );
        conforms(&imp.scenario);
    }
    let _ = std::fs::remove_dir_all(&dir);
}
