//! Breakpoints: every predicate kind stops a run at the step a plain scan of the run finds by
//! other means (the frame, the step descriptions), "or" stops at the earlier of two, the back
//! search finds the last hit before the cursor, texts round-trip, and parse errors name what
//! is wrong.

use election_lab::breakpoint::{previous_hit, run_until, Breakpoint, Watch};
use election_lab::{presets, Engine, Scenario};

/// Bully, N5 leading, partitioned {1,2} | {3,4,5} at t=5: N2 takes over the minority (split brain).
fn bully_split() -> Scenario {
    let mut s = presets::find("split-brain-bully").unwrap().scenario();
    let mut v = s.to_value();
    v["schedule"] = serde_json::json!([{"at": 5, "partition": [[1, 2], [3, 4, 5]]}]);
    s = Scenario::from_value(&v).unwrap();
    s
}

/// Raft, N5 leading term 1, the same partition at t=20: the minority campaigns term after term.
fn raft_split() -> Scenario {
    let s = presets::find("split-brain-raft").unwrap().scenario();
    let mut v = s.to_value();
    v["schedule"] = serde_json::json!([{"at": 20, "partition": [[1, 2], [3, 4, 5]]}]);
    Scenario::from_value(&v).unwrap()
}

/// The first step (from 0) after which `pred` holds, found by stepping a fresh run and looking
/// at it through the frame and step descriptions — not through the breakpoint code.
fn first_step(s: &Scenario, mut pred: impl FnMut(&Engine, u64) -> bool) -> Option<u64> {
    let mut e = Engine::new(s.clone()).unwrap();
    while e.step() {
        if pred(&e, e.cursor()) {
            return Some(e.cursor());
        }
    }
    None
}

/// Where `texts` (or-ed) stop a fresh run, with the hit's breakpoint index.
fn hit_at(s: &Scenario, texts: &[&str]) -> Option<(u64, usize, Vec<u32>)> {
    let mut e = Engine::new(s.clone()).unwrap();
    let bps: Vec<Breakpoint> = texts.iter().map(|t| Breakpoint::parse(t, &e).unwrap()).collect();
    let mut w = Watch::new(bps, &e);
    let h = run_until(&mut e, &mut w, u64::MAX)?;
    assert_eq!(e.cursor(), h.step, "the engine stands at the hit");
    Some((h.step, h.index, h.nodes))
}

fn role(e: &Engine, id: u32) -> Option<&'static str> {
    e.frame().nodes.iter().find(|n| n.id == id).filter(|n| n.up).map(|n| n.view.role)
}

#[test]
fn violation_stops_where_two_leaders_first_show_in_the_frame() {
    let s = bully_split();
    let want = first_step(&s, |e, _| e.frame().leaders.len() >= 2).expect("split brain happens");
    let (step, _, nodes) = hit_at(&s, &["violation"]).unwrap();
    assert_eq!(step, want);
    assert_eq!(nodes, vec![2, 5]);
    assert_eq!(hit_at(&s, &["violation:split-brain"]).unwrap().0, want);
}

#[test]
fn a_named_property_waits_for_its_own_violation() {
    // Raft claims two properties; the partition breaks neither here, so neither hits.
    let s = raft_split();
    assert!(first_step(&s, |e, _| e.frame().leaders.len() >= 2).is_none());
    assert_eq!(hit_at(&s, &["violation:two-leaders-in-term"]), None);
}

#[test]
fn leaders_change_stops_at_the_first_change_of_the_leader_set() {
    let s = bully_split();
    let start = Engine::new(s.clone()).unwrap().frame().leaders;
    let want = first_step(&s, |e, _| e.frame().leaders != start).unwrap();
    assert_eq!(hit_at(&s, &["leaders-change"]).unwrap().0, want);
}

#[test]
fn role_stops_when_the_node_takes_the_role() {
    let s = raft_split();
    let want = first_step(&s, |e, _| role(e, 2) == Some("candidate")).expect("N2 campaigns");
    let (step, _, nodes) = hit_at(&s, &["role:2=candidate"]).unwrap();
    assert_eq!((step, nodes), (want, vec![2]));
    let s = bully_split();
    let want = first_step(&s, |e, _| role(e, 2) == Some("leader")).unwrap();
    assert_eq!(hit_at(&s, &["role:2=leader"]).unwrap().0, want);
}

#[test]
fn message_breakpoints_stop_at_the_matching_send_delivery_or_drop() {
    let s = raft_split();
    let want = first_step(&s, |e, k| {
        let i = e.step_info(k).unwrap();
        i.event == "deliver" && i.kind == Some("VOTE_DENY") && i.node == 2
    });
    assert!(want.is_some(), "N2 hears a refusal");
    assert_eq!(hit_at(&s, &["deliver:VOTE_DENY:to=2"]).map(|h| h.0), want);
    let want = first_step(&s, |e, k| {
        let i = e.step_info(k).unwrap();
        i.node == 1 && i.sends.iter().any(|x| x.2 == "REQUEST_VOTE")
    });
    assert!(want.is_some());
    assert_eq!(hit_at(&s, &["send:REQUEST_VOTE:from=1"]).map(|h| h.0), want);
    let want = first_step(&s, |e, k| {
        let i = e.step_info(k).unwrap();
        i.event == "drop" && i.kind == Some("APPEND_ENTRIES")
    });
    assert!(want.is_some(), "the partition drops heartbeats");
    assert_eq!(hit_at(&s, &["drop:append_entries"]).map(|h| h.0), want);
}

#[test]
fn timer_stops_when_the_node_timer_fires() {
    let s = raft_split();
    let want = first_step(&s, |e, k| {
        let i = e.step_info(k).unwrap();
        i.event == "timer" && i.node == 1 && i.text.ends_with("ELECTION_TIMEOUT")
    });
    assert!(want.is_some());
    assert_eq!(hit_at(&s, &["timer:1:ELECTION_TIMEOUT"]).map(|h| h.0), want);
    let any = first_step(&s, |e, k| {
        let i = e.step_info(k).unwrap();
        i.event == "timer" && i.node == 1
    });
    assert_eq!(hit_at(&s, &["timer:1"]).map(|h| h.0), any);
}

#[test]
fn a_field_stops_when_it_passes_the_value() {
    let s = raft_split();
    let term = |e: &Engine, id: u32| e.frame().nodes.iter().find(|n| n.id == id).and_then(|n| n.view.term);
    let want = first_step(&s, |e, _| term(e, 1).is_some_and(|t| t >= 4)).expect("N1 reaches term 4");
    assert_eq!(hit_at(&s, &["term:1>=4"]).map(|h| h.0), Some(want));
    // The same value through the inspector's "current term".
    assert_eq!(hit_at(&s, &["current-term:1>=4"]).map(|h| h.0), Some(want));
    // Already true at the start: not a pass.
    assert_eq!(hit_at(&s, &["term:5>=1"]), None);
}

#[test]
fn time_stops_at_the_first_step_at_or_after_it() {
    let s = raft_split();
    let want = first_step(&s, |e, k| e.step_info(k).unwrap().time >= 37).unwrap();
    assert_eq!(hit_at(&s, &["time>=37"]).map(|h| h.0), Some(want));
}

#[test]
fn or_stops_at_the_earlier_breakpoint_and_names_it() {
    let s = bully_split();
    let a = hit_at(&s, &["violation"]).unwrap().0;
    let b = hit_at(&s, &["time>=3"]).unwrap().0;
    assert!(b < a);
    let (step, index, _) = hit_at(&s, &["violation", "time>=3"]).unwrap();
    assert_eq!((step, index), (b, 1));
}

#[test]
fn previous_hit_finds_the_last_hit_before_the_cursor() {
    let s = raft_split();
    // Every step where N1's timer fires, found by scanning.
    let mut fires = vec![];
    let mut e = Engine::new(s.clone()).unwrap();
    while e.step() {
        let i = e.step_info(e.cursor()).unwrap();
        if i.event == "timer" && i.node == 1 {
            fires.push(e.cursor());
        }
    }
    assert!(fires.len() >= 3);
    let bp = vec![Breakpoint::parse("timer:1", &e).unwrap()];
    let at = fires[2];
    e.seek(at);
    let h = previous_hit(&mut e, &bp).unwrap();
    assert_eq!(h.step, fires[1]);
    assert_eq!(e.cursor(), fires[1], "the engine stands at the previous hit");
    e.seek(fires[0]);
    assert_eq!(previous_hit(&mut e, &bp), None);
    assert_eq!(e.cursor(), fires[0], "no earlier hit: the engine stays");
}

#[test]
fn texts_round_trip() {
    let e = Engine::new(raft_split()).unwrap();
    for t in [
        "violation",
        "violation:two-leaders-in-term",
        "leaders-change",
        "role:3=leader",
        "deliver:VOTE_GRANT:to=3",
        "send:REQUEST_VOTE:to=2:from=5",
        "drop:APPEND_ENTRIES",
        "timer:5",
        "timer:5:ELECTION_TIMEOUT",
        "term:3>=5",
        "vote:2=5",
        "time>=200",
        "time<4",
    ] {
        let b = Breakpoint::parse(t, &e).unwrap();
        assert_eq!(b.to_string(), t);
        assert_eq!(Breakpoint::parse(&b.to_string(), &e).unwrap(), b);
    }
}

#[test]
fn parse_errors_name_what_is_wrong() {
    let e = Engine::new(bully_split()).unwrap();
    let err = |t: &str| Breakpoint::parse(t, &e).unwrap_err();
    assert!(
        err("deliver:VOTE_GRANT").contains("unknown message kind 'VOTE_GRANT' for bully"),
        "{}",
        err("deliver:VOTE_GRANT")
    );
    assert!(err("role:9=leader").contains("unknown node 9"));
    assert!(err("role:3=king").contains("unknown role 'king'"));
    assert!(err("violation:two-leaders-in-term").contains("unknown property"));
    assert!(err("colour:3>=5").contains("unknown field 'colour'"));
    assert!(err("term:3>=x").contains("not a whole number"));
    assert!(err("send:OK:via=3").contains("expected to=<node> or from=<node>"));
    assert!(err("stop-here").contains("is not a breakpoint"));
    assert!(err("").contains("empty"));
    assert!(err(&"x".repeat(500)).contains("longer than"));
}

#[test]
fn timer_names_are_read_in_any_case_and_an_unknown_timer_is_refused() {
    let s = raft_split();
    let want = hit_at(&s, &["timer:1:ELECTION_TIMEOUT"]).map(|h| h.0);
    assert!(want.is_some());
    assert_eq!(hit_at(&s, &["timer:1:election_timeout"]).map(|h| h.0), want);
    assert_eq!(hit_at(&s, &["timer:1:Election-Timeout"]).map(|h| h.0), want);
    // Written back under the algorithm's own name.
    let e = Engine::new(s).unwrap();
    assert_eq!(Breakpoint::parse("timer:1:election_timeout", &e).unwrap().to_string(), "timer:1:ELECTION_TIMEOUT");
    let err = Breakpoint::parse("timer:1:NOPE", &e).unwrap_err();
    assert_eq!(err, "unknown timer 'NOPE' for raft (timers: ELECTION_TIMEOUT, HEARTBEAT, ACK_CHECK)");
}

#[test]
fn a_field_the_algorithm_lacks_is_refused_by_name() {
    let e = Engine::new(bully_split()).unwrap();
    let err = Breakpoint::parse("term:4>=1", &e).unwrap_err();
    assert!(err.starts_with("bully has no term (fields: leader;"), "{err}");
    assert!(Breakpoint::parse("vote:4=1", &e).unwrap_err().starts_with("bully has no vote"));
    assert!(Breakpoint::parse("leader:4=5", &e).is_ok());
    // Raft has a term and a vote.
    let e = Engine::new(raft_split()).unwrap();
    assert!(Breakpoint::parse("term:4>=1", &e).is_ok());
    assert!(Breakpoint::parse("vote:4=1", &e).is_ok());
    assert!(Breakpoint::parse("zxid:4>=1", &e).unwrap_err().starts_with("raft has no zxid"));
}

#[test]
fn and_hits_where_every_condition_holds_at_once() {
    let s = raft_split();
    let term = |e: &Engine, id: u32| e.frame().nodes.iter().find(|n| n.id == id).and_then(|n| n.view.term);
    // Two states: the first step where N2 is a candidate in a term of at least 3.
    let want = first_step(&s, |e, _| role(e, 2) == Some("candidate") && term(e, 2).is_some_and(|t| t >= 3));
    assert!(want.is_some(), "N2 campaigns in term 3");
    let alone = hit_at(&s, &["role:2=candidate"]).map(|h| h.0);
    assert!(alone < want, "the role alone hits earlier");
    let (step, index, nodes) = hit_at(&s, &["role:2=candidate and term:2>=3"]).unwrap();
    assert_eq!((Some(step), index, nodes), (want, 0, vec![2]));
    // An event and a state: the first refusal N2 hears in a term of at least 3.
    let want = first_step(&s, |e, k| {
        let i = e.step_info(k).unwrap();
        i.event == "deliver" && i.kind == Some("VOTE_DENY") && i.node == 2 && term(e, 2).is_some_and(|t| t >= 3)
    });
    assert!(want.is_some());
    assert!(hit_at(&s, &["deliver:VOTE_DENY:to=2"]).map(|h| h.0) < want);
    assert_eq!(hit_at(&s, &["deliver:VOTE_DENY:to=2 AND term:2>=3"]).map(|h| h.0), want);
    // "or" of "and"s: the earlier of the two.
    let (step, index, _) = hit_at(&s, &["deliver:VOTE_DENY:to=2 and term:2>=3", "role:2=candidate"]).unwrap();
    assert_eq!((Some(step), index), (alone, 1));
    // Never both at once: never hits.
    assert_eq!(hit_at(&s, &["role:2=candidate and role:2=follower"]), None);
    // Written back, and an error names the condition.
    let e = Engine::new(s).unwrap();
    let b = Breakpoint::parse("role:2=candidate  and term:2>=3", &e).unwrap();
    assert_eq!(b.to_string(), "role:2=candidate and term:2>=3");
    assert_eq!(Breakpoint::parse(&b.to_string(), &e).unwrap(), b);
    let err = Breakpoint::parse("role:2=candidate and timer:2:NOPE", &e).unwrap_err();
    assert!(err.starts_with("condition 2 of 2: unknown timer 'NOPE'"), "{err}");
    assert!(Breakpoint::parse("role:2=candidate and", &e).unwrap_err().contains("an empty condition"));
}
