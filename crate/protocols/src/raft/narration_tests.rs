use crate::meta::Lang;
use crate::protocols::testkit::preset;
use crate::{Engine, Scenario, StepInfo};

/// The first step matching `pred`.
fn step_where(e: &Engine, what: &str, pred: impl Fn(&StepInfo) -> bool) -> u64 {
    (1..=e.cursor()).find(|&s| pred(&e.step_info(s).unwrap())).unwrap_or_else(|| panic!("no step where {what}"))
}

fn both(e: &Engine, step: u64) -> (String, String) {
    (e.narrate(step, Lang::En).unwrap(), e.narrate(step, Lang::Zh).unwrap())
}

#[test]
fn the_winning_vote_and_a_refused_vote_say_which_rule_acted() {
    let e = preset("raft-cold");
    // The vote that gives N4 its majority: the step where N4 starts sending APPEND_ENTRIES.
    let win = step_where(&e, "N4 wins", |i| {
        i.event == "deliver"
            && i.node == 4
            && i.kind == Some("VOTE_GRANT")
            && i.sends.iter().any(|s| s.2 == "APPEND_ENTRIES")
    });
    let (en, zh) = both(&e, win);
    assert!(en.contains("With 3 of 5 votes N4 has a majority"), "{en}");
    assert!(zh.contains("5 票中的 3 票") && zh.contains("多数派"), "{zh}");
    // N1 voted for N4 before N5 asked: one vote per term.
    let deny = step_where(&e, "N1 answers N5", |i| {
        i.event == "deliver" && i.text.ends_with("N5 → N1 REQUEST_VOTE(t1, log 0@0)")
    });
    let (en, zh) = both(&e, deny);
    assert!(en.starts_with("N1 denies N5 its vote: it already voted for N4 in this term."), "{en}");
    assert!(en.contains("two leaders in one term impossible"), "{en}");
    assert!(zh.contains("已经投给了 N4"), "{zh}");
}

#[test]
fn a_vote_refused_for_an_older_log_says_which_log_is_behind() {
    let v = serde_json::json!({"algorithm": "raft", "nodes": [1, 2, 3, 4], "seed": 1,
            "params": {"log": {"1": [5, 2], "2": [3, 1], "3": [5, 1], "4": [3, 1]}},
            "schedule": [{"at": 0, "start": 2}]});
    let mut e = Engine::new(Scenario::from_value(&v).unwrap()).unwrap();
    e.run_to_end();
    let answer = |to: u32| {
        step_where(&e, "a vote request arrives", |i| {
            i.event == "deliver" && i.node == to && i.kind == Some("REQUEST_VOTE")
        })
    };
    let en = e.narrate(answer(1), Lang::En).unwrap();
    assert!(en.contains("N1 denies N2 its vote: N2's log ends in term 1, older than N1's last entry."), "{en}");
    let en = e.narrate(answer(3), Lang::En).unwrap();
    assert!(en.contains("N3 denies N2 its vote: both logs end in the same term, but N2's stops at index 3"), "{en}");
    let en = e.narrate(answer(4), Lang::En).unwrap();
    assert!(en.contains("N4 votes for N2 in term 1"), "{en}");
}
