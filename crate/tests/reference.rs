//! The reference numbers of the course's worked examples (Bully, Chang-Roberts, Raft-style
//! election, and the split-brain experiment), checked exactly against the engine.
//!
//! Every test says in its comment which section or property it checks. The fencing demo of
//! The fencing part of the split-brain experiment is left to a later issue (no storage layer yet).

mod common;

use common::{all_agree_on, engine, run, sent, views};
use election_lab::observe::{SPLIT_BRAIN, TWO_LEADERS_IN_TERM};
use election_lab::sim::EventKind;
use election_lab::{Action, Engine, NodeId, Scenario};
use serde_json::{json, Value};

// ---------------------------------------------------------------------------------------------
// Bully (Garcia-Molina 1982): worked runs and the complexity table
// ---------------------------------------------------------------------------------------------

/// Nodes 1..=n, n is the known leader and crashes at t=0; `starters` start at t=0.
fn bully_top_crashed(n: u32, starters: &[u32]) -> Value {
    let mut schedule = vec![json!({"at": 0, "crash": n})];
    schedule.extend(starters.iter().map(|&i| json!({"at": 0, "start": i})));
    json!({
        "algorithm": "bully", "nodes": (1..=n).collect::<Vec<_>>(), "seed": 425,
        "initial_leader": n, "heartbeats": null, "schedule": schedule,
    })
}

/// Bully's worst case (Garcia-Molina 1982): the top id crashed and the other N-1 start at once:
/// N(N-1)/2 ELECTION, (N-1)(N-2)/2 OK, N-2 COORDINATOR, N²-N-1 in all (5, 19, 55, 131), and
/// the next-highest id wins.
#[test]
fn bully_worst_case_counts_match_the_seed_table() {
    for (n, total) in [(3u64, 5u64), (5, 19), (8, 55), (12, 131)] {
        let starters: Vec<u32> = (1..n as u32).collect();
        let e = run(&bully_top_crashed(n as u32, &starters));
        assert_eq!(sent(&e, "ELECTION"), n * (n - 1) / 2, "ELECTION, N = {n}");
        assert_eq!(sent(&e, "OK"), (n - 1) * (n - 2) / 2, "OK, N = {n}");
        assert_eq!(sent(&e, "COORDINATOR"), n - 2, "COORDINATOR, N = {n}");
        assert_eq!(sent(&e, "HEARTBEAT"), 0, "no heartbeats configured, N = {n}");
        assert_eq!(e.metrics().total, total, "total, N = {n}");
        assert_eq!(e.metrics().total, n * n - n - 1);
        assert!(e.quiescent(), "N = {n}: the run must settle");
        assert!(all_agree_on(&e, n as u32 - 1), "N = {n}: {:?}", views(&e));
        assert!(e.violations().is_empty(), "N = {n}: {:?}", e.violations());
    }
}

/// "The lowest id notices first" (worked example, runs ii and iii): the cascade started by
/// the lowest id alone fills the same triangle, so the totals are the same N²-N-1.
#[test]
fn bully_lowest_id_starting_alone_gives_the_same_totals() {
    for (n, total) in [(3u64, 5u64), (5, 19), (8, 55), (12, 131)] {
        let e = run(&bully_top_crashed(n as u32, &[1]));
        assert_eq!(sent(&e, "ELECTION"), n * (n - 1) / 2, "ELECTION, N = {n}");
        assert_eq!(sent(&e, "OK"), (n - 1) * (n - 2) / 2, "OK, N = {n}");
        assert_eq!(sent(&e, "COORDINATOR"), n - 2, "COORDINATOR, N = {n}");
        assert_eq!(e.metrics().total, total, "N = {n}");
        assert!(all_agree_on(&e, n as u32 - 1), "N = {n}: {:?}", views(&e));
    }
}

/// Worked example, run iii: P1 alone sends 4 ELECTION and hears 3 OK (P5 is dead), ends following P4
/// and never claims leadership.
#[test]
fn bully_low_starter_is_suppressed() {
    let e = run(&bully_top_crashed(5, &[1]));
    let sent_by_1 = e.metrics().sent_by_node.iter().find(|&&(id, _)| id == 1).unwrap().1;
    assert_eq!(sent_by_1, 4);
    assert_eq!(delivered_to(&e, 1, "OK"), 3);
    assert!(e.all_violations().is_empty());
    assert!(all_agree_on(&e, 4));
}

/// Deliveries of messages of `kind` to node `to` up to the cursor (from the step records).
fn delivered_to(e: &Engine, to: NodeId, kind: &str) -> u64 {
    (1..=e.cursor())
        .filter(|&s| {
            let rec = e.record(s).unwrap();
            rec.kind == EventKind::Deliver && rec.node == to && e.step_info(s).unwrap().kind == Some(kind)
        })
        .count() as u64
}

/// Worked example, run i (an election on start-up): a from-scratch start (no known leader) elects the
/// highest id, both when the failure detector is on (every node starts by itself) and when every
/// node is started by hand without heartbeats.
#[test]
fn bully_from_scratch_elects_the_highest_id() {
    let with_heartbeats = run(&json!({
        "algorithm": "bully", "nodes": [1, 2, 3, 4, 5], "seed": 425,
        "heartbeats": {"interval": 2, "timeout": 10}, "stop": {"max_time": 200},
    }));
    assert!(all_agree_on(&with_heartbeats, 5), "{:?}", views(&with_heartbeats));
    assert!(with_heartbeats.violations().is_empty(), "{:?}", with_heartbeats.violations());

    let by_hand = run(&json!({
        "algorithm": "bully", "nodes": [3, 1, 5, 2, 4], "seed": 425, "heartbeats": null,
        "schedule": (1..=5).map(|i| json!({"at": 0, "start": i})).collect::<Vec<_>>(),
    }));
    assert!(by_hand.quiescent());
    assert!(all_agree_on(&by_hand, 5), "{:?}", views(&by_hand));
    assert!(by_hand.violations().is_empty(), "{:?}", by_hand.violations());
}

/// The worked example's crash-recovery runs: five Bully nodes led by N5, with heartbeats, the
/// crash and recovery in `schedule`, up to `max_time`.
fn crash_recovery(schedule: Value, max_time: u64) -> Engine {
    engine(&json!({
        "algorithm": "bully", "nodes": [1, 2, 3, 4, 5], "seed": 425, "initial_leader": 5,
        "heartbeats": {"interval": 2, "timeout": 10}, "schedule": schedule, "stop": {"max_time": max_time},
    }))
}

/// Crash-recovery (worked example, run iv): a recovering node below the leader starts an
/// election, is suppressed (2 ELECTION out, 2 OK back, from N4 and N5) and learns leader N5.
#[test]
fn bully_recovering_lower_node_is_suppressed_and_learns_the_leader() {
    let mut e = crash_recovery(json!([{"at": 10, "crash": 3}, {"at": 30, "recover": 3}]), 120);
    e.run_until(29);
    assert!(!e.frame().nodes[2].up);
    let sent_before = sent_by(&e, 3);
    let ok_before = delivered_to(&e, 3, "OK");
    e.run_to_end();
    assert_eq!(sent_by(&e, 3) - sent_before, 2, "N3 sends ELECTION to N4 and N5 only");
    assert_eq!(delivered_to(&e, 3, "OK") - ok_before, 2);
    assert!(all_agree_on(&e, 5), "{:?}", views(&e));
    assert!(e.violations().is_empty(), "{:?}", e.violations());
    assert_eq!(e.metrics().max_simultaneous_leaders, 1, "N3 never claims leadership");
}

fn sent_by(e: &Engine, id: NodeId) -> u64 {
    e.metrics().sent_by_node.iter().find(|&&(x, _)| x == id).unwrap().1
}

/// The corollary to Bully's correctness theorem (a recovering higher node takes over) and the
/// COORDINATOR-acceptance pitfall: the top node crashes, the failure
/// detector elects the next one, then the top node recovers, takes over (a short two-leader
/// window is allowed) and everyone ends agreeing on it.
#[test]
fn bully_recovering_higher_node_takes_over() {
    let mut e = crash_recovery(json!([{"at": 5, "crash": 5}, {"at": 80, "recover": 5}]), 200);
    e.run_until(79);
    assert!(all_agree_on(&e, 4), "before the recovery N4 leads: {:?}", views(&e));
    e.run_to_end();
    assert!(all_agree_on(&e, 5), "after the recovery N5 leads: {:?}", views(&e));
    // The takeover window: N5 announces before N4 has read the announcement.
    for v in e.violations() {
        assert_eq!(v.kind, SPLIT_BRAIN);
        assert_eq!(v.nodes, vec![4, 5]);
        assert!(v.time >= 80);
    }
}

// ---------------------------------------------------------------------------------------------
// Chang-Roberts (Chang & Roberts 1979): the worked ring [80, 6, 12, 5, 32, 3] and the complexity table
// ---------------------------------------------------------------------------------------------

const RING6: [u32; 6] = [80, 6, 12, 5, 32, 3];

fn ring(order: &[u32], starters: &[u32], suppress: bool) -> Value {
    json!({
        "algorithm": "chang-roberts", "nodes": order, "seed": 425,
        "params": {"suppress_initiators": suppress},
        "schedule": starters.iter().map(|&i| json!({"at": 0, "start": i})).collect::<Vec<_>>(),
    })
}

fn ring_counts(e: &Engine) -> (u64, u64) {
    (sent(e, "ELECTION"), sent(e, "ELECTED"))
}

/// Run (a): the maximum starts: 6 ELECTION + 6 ELECTED = 2N.
#[test]
fn ring_best_case_max_starts() {
    let e = run(&ring(&RING6, &[80], false));
    assert_eq!(ring_counts(&e), (6, 6));
    assert!(e.quiescent() && all_agree_on(&e, 80), "{:?}", views(&e));
}

/// Run (b): N6, the ring successor of N80, starts: 11 ELECTION + 6 ELECTED = 3N-1.
#[test]
fn ring_worst_case_successor_of_max_starts() {
    let e = run(&ring(&RING6, &[6], false));
    assert_eq!(ring_counts(&e), (11, 6));
    assert!(e.quiescent() && all_agree_on(&e, 80), "{:?}", views(&e));
}

/// Run (c): N3 and N12 start together: 11 ELECTION + 6 ELECTED, N80 wins.
#[test]
fn ring_two_initiators() {
    let e = run(&ring(&RING6, &[3, 12], false));
    assert_eq!(ring_counts(&e), (11, 6));
    assert!(e.quiescent() && all_agree_on(&e, 80), "{:?}", views(&e));
    assert!(e.all_violations().is_empty());
}

/// Run (d) and the complexity table: all N start at once on a descending ring
/// [N, N-1, ..., 1]: (N²+3N)/2 messages in all (14, 44, 152, 560, 2144).
#[test]
fn ring_all_initiators_on_a_descending_ring() {
    for (n, total) in [(4u64, 14u64), (8, 44), (16, 152), (32, 560), (64, 2144)] {
        let order: Vec<u32> = (1..=n as u32).rev().collect();
        let e = run(&ring(&order, &order, false));
        assert_eq!(e.metrics().total, total, "N = {n}");
        assert_eq!(total, (n * n + 3 * n) / 2);
        assert_eq!(sent(&e, "ELECTED"), n, "N = {n}");
        assert!(e.quiescent() && all_agree_on(&e, n as u32), "N = {n}: {:?}", views(&e));
    }
}

/// Several initiators, and the complexity table's row "with initiator suppression": with
/// `suppress_initiators` only the highest initiator's round completes (the maximum hears its own
/// id back exactly once, in that round), the winner is still the maximum, and on
/// descending rings (run (d), "the hardest order to suppress") the counts are not higher.
///
/// Suppression is not cheaper in every run: with N3 and N12 starting on the classic ring, N3's
/// round already carries 80 when N5/N12 suppress it, so N12's round has to bring 80 round
/// again (19 messages instead of 17). Any initiator-based suppression must kill that round, so
/// the test pins the number instead of asserting "never more".
#[test]
fn ring_suppression_keeps_the_winner_and_only_the_top_round_completes() {
    let mut cases: Vec<(Vec<u32>, Vec<u32>)> = vec![
        (RING6.to_vec(), vec![3, 12]),
        (RING6.to_vec(), RING6.to_vec()),
        (RING6.to_vec(), vec![5, 3, 6]),
        (vec![1, 2, 3, 4, 5, 6, 7, 8], vec![2, 5, 7]),
    ];
    for n in [4u32, 8, 16, 32, 64] {
        let order: Vec<u32> = (1..=n).rev().collect();
        cases.push((order.clone(), order));
    }
    for (order, starters) in &cases {
        let plain = run(&ring(order, starters, false));
        let suppressed = run(&ring(order, starters, true));
        let max = *order.iter().max().unwrap();
        let top_initiator = *starters.iter().max().unwrap();
        let what = format!("ring {order:?}, starters {starters:?}");
        assert!(plain.quiescent() && all_agree_on(&plain, max), "{what}: {:?}", views(&plain));
        assert!(suppressed.quiescent() && all_agree_on(&suppressed, max), "{what}: {:?}", views(&suppressed));
        assert_eq!(sent(&suppressed, "ELECTED"), order.len() as u64, "{what}: one announcement");
        // The rounds that came back to the maximum carrying its own id: only the top initiator's.
        let own = format!("ELECTION({max}, init ");
        let completed: Vec<String> = (1..=suppressed.cursor())
            .filter_map(|s| suppressed.step_info(s))
            .filter(|i| i.event == "deliver" && i.node == max && i.text.contains(&own))
            .map(|i| i.text)
            .collect();
        assert_eq!(completed.len(), 1, "{what}: {completed:?}");
        assert!(completed[0].ends_with(&format!("init {top_initiator})")), "{what}: {completed:?}");
        if starters.len() == order.len() && order.windows(2).all(|w| w[0] > w[1]) {
            assert!(suppressed.metrics().total <= plain.metrics().total, "{what}");
        }
    }
    let plain = run(&ring(&RING6, &[3, 12], false)).metrics().total;
    let suppressed = run(&ring(&RING6, &[3, 12], true));
    assert_eq!((plain, ring_counts(&suppressed)), (17, (13, 6)));
    // Single initiators are not affected by suppression.
    for (starter, counts) in [(80, (6, 6)), (6, (11, 6))] {
        assert_eq!(ring_counts(&run(&ring(&RING6, &[starter], true))), counts);
    }
}

// ---------------------------------------------------------------------------------------------
// The partition experiment: {1,2} | {3,4,5} under Bully and under Raft (Ongaro & Ousterhout 2014)
// ---------------------------------------------------------------------------------------------

fn partitioned(algorithm: &str) -> Value {
    json!({
        "algorithm": algorithm, "nodes": [1, 2, 3, 4, 5], "seed": 425, "initial_leader": 5,
        "heartbeats": {"interval": 2, "timeout": 10},
        "schedule": [{"at": 5, "partition": [[1, 2], [3, 4, 5]]}],
        "stop": {"max_time": 300},
    })
}

/// Part A: under Bully the minority {1,2} elects N2 while N5 keeps leading the
/// majority: the self-declared leaders are exactly [2, 5] and a split brain is reported.
#[test]
fn bully_partition_splits_the_brain() {
    let e = run(&partitioned("bully"));
    let f = e.frame();
    assert_eq!(f.leaders, vec![2, 5]);
    assert_eq!(f.agreement, None);
    let v = views(&e);
    assert_eq!(v, vec![(1, Some(2)), (2, Some(2)), (3, Some(5)), (4, Some(5)), (5, Some(5))]);
    let split: Vec<_> = e.violations().iter().filter(|v| v.kind == SPLIT_BRAIN).collect();
    assert!(!split.is_empty(), "no split-brain violation reported");
    assert!(split.iter().any(|v| v.nodes == vec![2, 5]), "{split:?}");
    assert_eq!(e.summary()["leaders"], json!([2, 5]));
}

/// Part B, and Raft's election safety: under Raft the minority campaigns but never holds
/// more than 2 votes (its size), never leads, no term has two leaders, and N5 is the only
/// leader at the end.
#[test]
fn raft_partition_never_elects_in_the_minority() {
    let e = run(&partitioned("raft"));
    let tally = e.max_tally();
    for &(id, t) in &tally {
        if id <= 2 {
            assert!(t <= 2, "node {id} reached {t} votes: {tally:?}");
        }
    }
    assert!(tally.iter().any(|&(id, t)| id <= 2 && t >= 1), "the minority did campaign: {tally:?}");
    let minority_terms: Vec<u64> = e.frame().nodes[..2].iter().map(|n| n.view.term.unwrap()).collect();
    assert!(minority_terms.iter().all(|&t| t > 1), "the minority raised its term: {minority_terms:?}");
    for v in e.all_violations() {
        assert_ne!(v.kind, TWO_LEADERS_IN_TERM, "{v:?}");
        assert!(!v.nodes.contains(&1) && !v.nodes.contains(&2), "{v:?}");
    }
    assert_eq!(e.frame().leaders, vec![5]);
    // Never a leader in the minority at any step: replay and look at every frame.
    let mut replay = engine(&partitioned("raft"));
    while replay.step() {
        let leaders = replay.frame().leaders;
        assert!(!leaders.contains(&1) && !leaders.contains(&2), "step {}: {leaders:?}", replay.cursor());
    }
    assert_eq!(replay.trace_hash(), e.trace_hash());
}

// ---------------------------------------------------------------------------------------------
// Scenario errors name the field (scenario format; see also cli.rs for the CLI's messages)
// ---------------------------------------------------------------------------------------------

/// Errors of the format and of the algorithm's `params` both surface when an engine is built.
fn field_of(text: &str) -> String {
    match Engine::from_json(text) {
        Ok(_) => panic!("accepted: {text}"),
        Err(e) => e.field,
    }
}

#[test]
fn scenario_errors_name_the_field() {
    let cases = [
        (r#"{"algorithm":"no-such-algorithm","nodes":[1,2]}"#, "algorithm"),
        (r#"{"algorithm":"raft","nodes":[1,5,5]}"#, "nodes"),
        (r#"{"algorithm":"raft","nodes":[1,2],"initial_leader":3}"#, "initial_leader"),
        (r#"{"algorithm":"raft","nodes":[1,2],"schedule":[{"at":1,"start":3}]}"#, "schedule[0].start"),
        (
            r#"{"algorithm":"raft","nodes":[1,2],"schedule":[{"at":1,"recover":1},{"at":2,"isolate":9}]}"#,
            "schedule[1].isolate",
        ),
        (r#"{"algorithm":"raft","nodes":[1,2],"schedule":[{"at":1,"cut":[1,7]}]}"#, "schedule[0].cut"),
        (r#"{"algorithm":"raft","nodes":[1,2],"schedule":[{"at":1,"cut":[1,1]}]}"#, "schedule[0].cut"),
        (r#"{"algorithm":"raft","nodes":[1,2],"schedule":[{"at":1,"partition":[[1],[4]]}]}"#, "schedule[0].partition"),
        (r#"{"algorithm":"raft","nodes":[1,2],"schedule":[{"at":1,"heal":false}]}"#, "schedule[0].heal"),
        (r#"{"algorithm":"raft","nodes":[1,2],"network":{"latency":[0,3]}}"#, "network.latency"),
        (r#"{"algorithm":"raft","nodes":[1,2],"network":{"latency":[4,3]}}"#, "network.latency"),
        (r#"{"algorithm":"raft","nodes":[1,2],"network":{"latency":[1]}}"#, "network.latency"),
        (r#"{"algorithm":"raft","nodes":[1,2],"network":{"loss":-0.1}}"#, "network.loss"),
        (r#"{"algorithm":"raft","nodes":[1,2],"heartbeats":{"interval":0,"timeout":5}}"#, "heartbeats.interval"),
        (r#"{"algorithm":"raft","nodes":[1,2],"heartbeats":{"interval":4,"timeout":3}}"#, "heartbeats.timeout"),
        (r#"{"algorithm":"raft","nodes":[1,2],"params":{"election_timeout":[9,3]}}"#, "params.election_timeout"),
        (r#"{"algorithm":"raft","nodes":[1,2],"params":{"log":{"7":[1,1]}}}"#, "params.log.7"),
        (r#"{"algorithm":"bully","nodes":[1,2],"params":{"t_out":0}}"#, "params.t_out"),
        (r#"{"algorithm":"bully","nodes":[1,2],"params":{"t_outt":3}}"#, "params.t_outt"),
        (
            r#"{"algorithm":"chang-roberts","nodes":[1,2],"params":{"suppress_initiators":"yes"}}"#,
            "params.suppress_initiators",
        ),
        (r#"{"algorithm":"bully","nodes":[1,2],"stop":{"max_time":-1}}"#, "stop.max_time"),
    ];
    for (text, field) in cases {
        assert_eq!(field_of(text), field, "{text}");
    }
    let unknown = Engine::from_json(r#"{"algorithm":"no-such-algorithm","nodes":[1,2]}"#).unwrap_err();
    assert!(unknown.message.contains("bully") && unknown.message.contains("raft"), "{unknown}");
    assert_eq!(
        Scenario::from_json(r#"{"algorithm":"raft","nodes":[1,5,5]}"#).unwrap_err().to_string(),
        "nodes: duplicate id 5"
    );
}

/// Interventions are checked like scheduled actions: an unknown node names the field.
#[test]
fn intervention_errors_name_the_field() {
    let mut e = engine(&partitioned("bully"));
    assert_eq!(e.apply(Action::Crash(9)).unwrap_err().field, "intervention.crash");
    assert_eq!(e.apply(Action::Drop(12345)).unwrap_err().field, "intervention.drop");
    assert!(e.interventions().is_empty());
}

/// A run whose history would outgrow memory stops at its budget with a message, instead of
/// growing until the allocator aborts (a heartbeating Raft told to run for 10¹² ticks).
#[test]
fn a_run_that_would_outgrow_memory_stops_with_a_message() {
    let mut e = engine(&json!({"algorithm": "raft", "nodes": [1, 2, 3, 4, 5], "initial_leader": 5,
                               "heartbeats": {"interval": 2, "timeout": 10},
                               "stop": {"max_time": 1_000_000_000_000u64, "max_steps": 1_000_000_000_000u64}}));
    e.set_budget(election_lab::sim::Budget { steps: 20_000, messages: 1_000_000 });
    e.run_to_end();
    assert_eq!(e.cursor(), 20_000);
    let why = e.halted().expect("halted");
    assert!(why.contains("stopped after 20000 steps") && why.contains("stop.max_time"), "{why}");
    assert_eq!(e.summary()["halted"], json!(why));
    // Going back and forth inside the budget works as usual.
    e.seek(100);
    assert!(e.halted().is_none());
    e.seek(20_000);
    assert!(e.halted().is_some());
}
