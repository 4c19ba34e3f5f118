//! Import… of any system's logs: an events file, Redis Sentinel's logs and a merged etcd log
//! (through the shipped mapping that reads the most lines, named in the notice), a user's own
//! mapping beside the logs; each opens with its conformance verdict.

use super::*;

use crate::state::tests::run;

fn open() -> Rc<State> {
    Rc::new(State::open("?preset=ring-best"))
}

#[cfg(feature = "mappings")]
fn sample(dir: &str, names: &[&str]) -> Vec<(String, String)> {
    let root = format!("{}/../crate/tests/data/real/{dir}", env!("CARGO_MANIFEST_DIR"));
    names.iter().map(|n| (n.to_string(), std::fs::read_to_string(format!("{root}/{n}")).unwrap())).collect()
}

#[test]
fn an_events_file_opens_with_its_verdict() {
    let events = "{\"format\":\"election-lab-events/1\",\"system\":\"toy\",\"vocabulary\":\"raft\"}\n\
        {\"time\":1000,\"node\":\"a\",\"kind\":\"became_candidate\",\"term\":1}\n\
        {\"time\":1001,\"node\":\"a\",\"kind\":\"send\",\"peer\":\"b\",\"msg\":\"request_vote\",\"term\":1}\n\
        {\"time\":1002,\"node\":\"b\",\"kind\":\"send\",\"peer\":\"a\",\"msg\":\"vote_grant\",\"term\":1}\n\
        {\"time\":1003,\"node\":\"a\",\"kind\":\"became_leader\",\"term\":1}\n\
        {\"time\":1003,\"node\":\"c\",\"kind\":\"became_follower\",\"term\":1}\n";
    let s = run(open(), [Action::ImportFiles(vec![("toy.jsonl".into(), events.into())])]);
    assert!(s.messages.alert.is_none(), "{:?}", s.messages.alert);
    assert_eq!(s.scenario.algorithm, "etcd-log");
    let v = s.conformance.as_ref().expect("a verdict");
    assert!(v.conforms(), "{}", v.text(Lang::En));
    // Another run replaces the verdict's.
    let s = run(s, [Action::ImportFiles(vec![("x.txt".into(), "hello".into())])]);
    assert!(s.conformance.is_some(), "a refused import changes nothing");
}

#[cfg(feature = "mappings")]
#[test]
fn sentinel_logs_and_a_merged_etcd_log_are_read_by_the_mapping_that_fits() {
    let s = run(open(), [Action::ImportFiles(sample("sentinel", &["s1.log", "s2.log", "s3.log"]))]);
    assert!(s.messages.alert.is_none(), "{:?}", s.messages.alert);
    let notice = s.messages.notice.as_deref().unwrap();
    assert!(notice.contains("Redis Sentinel 7.0 (read by the mapping sentinel)"), "{notice}");
    assert!(s.conformance.as_ref().unwrap().conforms());
    let merged: String = sample("etcd-zap", &["a.log", "b.log", "c.log"]).into_iter().map(|f| f.1).collect();
    let s = run(s, [Action::ImportFiles(vec![("merged.log".into(), merged)])]);
    assert!(s.messages.alert.is_none(), "{:?}", s.messages.alert);
    assert!(s.messages.notice.as_deref().unwrap().contains("(read by the mapping etcd)"), "{:?}", s.messages.notice);
    let mut e = election_lab::Engine::new((*s.scenario).clone()).unwrap();
    e.run_to_end();
    assert_eq!(e.frame().leaders.len(), 1, "one leader at the end, not a split brain");
    let v = s.conformance.as_ref().unwrap();
    let model = election_lab::protocols::conform::model_of(&s.scenario.algorithm);
    assert!(v.conforms() && Some(v.model) == model, "{}", v.text(Lang::En));
}

#[cfg(feature = "mappings")]
#[test]
fn a_users_mapping_beside_the_logs_reads_them() {
    let mapping = election_lab::protocols::events::mapping::Mapping::shipped("sentinel")
        .unwrap()
        .replace("\"system\": \"Redis Sentinel 7.0\"", "\"system\": \"My Sentinel\"");
    let mut files = sample("sentinel", &["s1.log", "s2.log", "s3.log"]);
    files.insert(1, ("mine.json".into(), mapping));
    let s = run(open(), [Action::ImportFiles(files)]);
    assert!(s.messages.alert.is_none(), "{:?}", s.messages.alert);
    assert!(
        s.messages.notice.as_deref().unwrap().contains("My Sentinel (read by the mapping mine.json)"),
        "{:?}",
        s.messages.notice
    );
    assert_eq!(s.scenario.nodes, vec![1, 2, 3]);
}

/// A frozen etcd leader beside the new one: the banner tells the stale-leader story in both
/// languages (no split brain is counted while it is paused).
#[cfg(feature = "mappings")]
#[test]
fn a_paused_leader_beside_the_new_one_is_told_as_a_stale_leader() {
    let s = run(open(), [Action::ImportFiles(sample("etcd-zap-freeze", &["a.log", "b.log", "c.log"]))]);
    assert!(s.messages.alert.is_none(), "{:?}", s.messages.alert);
    let mut e = election_lab::Engine::new((*s.scenario).clone()).unwrap();
    let mut told = None;
    while told.is_none() && e.step() {
        told = paused_leader_text(&e.frame(), Lang::En).map(|en| (e.frame(), en));
    }
    let (frame, en) = told.expect("a paused leader beside the new one");
    let paused = frame.nodes.iter().find(|n| n.view.paused).unwrap().id;
    assert_eq!(en, format!("N{paused} is paused and still believes it leads; N{} leads now.", frame.leaders[0]));
    let zh = paused_leader_text(&frame, Lang::Zh).unwrap();
    assert!(zh.contains(&format!("N{paused}")) && zh.contains("暂停"), "{zh}");
    assert!(e.violations().iter().all(|v| v.kind != election_lab::observe::SPLIT_BRAIN), "{:?}", e.violations());
}

/// Redis Sentinel's two-epochs run: s2 still runs epoch 1's failover (it never logged its end)
/// when s1 is elected for epoch 2. The banner says so in both languages, not "split brain"; the
/// monitor of one leader per term flags nothing; two leaders of one term stay a split brain.
#[cfg(feature = "mappings")]
#[test]
fn a_leader_of_an_older_epoch_beside_the_newer_one_is_told_as_stale() {
    let s = run(open(), [Action::ImportFiles(sample("sentinel-two-epochs", &["s1.log", "s2.log", "s3.log"]))]);
    assert!(s.messages.alert.is_none(), "{:?}", s.messages.alert);
    let mut e = election_lab::Engine::new((*s.scenario).clone()).unwrap();
    let mut told = None;
    while told.is_none() && e.step() {
        if e.frame().leaders.len() >= 2 {
            told = Some((e.frame(), stale_term_text(&e.frame(), Lang::En).expect("leaders of different epochs")));
        }
    }
    let (frame, en) = told.expect("two leaders at once");
    let term = |n: u32| frame.nodes.iter().find(|x| x.id == n).unwrap().view.term.unwrap();
    let mut led: Vec<(u64, u32)> = frame.leaders.iter().map(|&n| (term(n), n)).collect();
    led.sort_unstable();
    let ((old, stale), (new, leader)) = (led[0], led[1]);
    assert!(old < new, "{led:?}");
    assert!(en.starts_with(&format!("N{stale} still leads the older term/epoch {old} ")), "{en}");
    assert!(
        en.contains(&format!("beside N{leader}, the leader of term/epoch {new}")) && !en.contains("plit brain"),
        "{en}"
    );
    let zh = stale_term_text(&frame, Lang::Zh).unwrap();
    assert!(zh.contains(&format!("N{stale}")) && zh.contains(&format!("N{leader}")) && zh.contains("过时"), "{zh}");
    assert!(
        e.violations().iter().all(|v| v.kind != election_lab::observe::TWO_LEADERS_IN_TERM),
        "{:?}",
        e.violations()
    );
    // Two leaders of one term are no stale leader: the split-brain banner stays.
    let mut same = frame.clone();
    for n in same.nodes.iter_mut() {
        n.view.term = Some(new);
    }
    assert_eq!(stale_term_text(&same, Lang::En), None);
}
