//! The exhaustive checker's timed model (`Bounds::horizon`, `check-model --timed`): a toy whose
//! timed state count is computed by hand, and the lease's `lease-overlap`, which holds without
//! clock drift and breaks with it, by a shortest schedule whose trace `run` reproduces.

#[path = "common/toy.rs"]
mod toy;
use election_lab::check::{check, Bounds, Checker, Verdict};
use election_lab::engine::Engine;
use election_lab::protocol::Config;
use election_lab::{NodeId, Scenario};
use toy::{Toy, TOY_PROPERTY};

fn scenario(json: &str) -> Scenario {
    Scenario::from_json(json).expect("a valid scenario")
}

/// The toy's n nodes each send one PING to every other at time 0, m = n(n−1) pings on m links,
/// each arriving at any tick of [1, L]. A timed world is the clock and which pings have arrived
/// (each node's count follows from that; the ones in flight all keep the window [1, L]):
/// - t = 0: nothing can have arrived: 1 world;
/// - t = 1 … L: any subset of the pings has arrived (each can arrive at any tick up to t, or
///   later up to L): 2^m worlds per tick;
/// - t = L+1 … H: time passes L only once every ping has arrived: 1 world per tick.
///
/// So 1 + L·2^m + (H − L) worlds, for a horizon H ≥ L.
#[test]
fn a_toy_reaches_exactly_the_hand_counted_timed_states() {
    for (n, l, h) in [(2usize, 1u64, 3u64), (2, 2, 5), (2, 3, 3), (3, 2, 4)] {
        let ids: Vec<NodeId> = (1..=n as NodeId).collect();
        let m = (n * (n - 1)) as u32;
        let cfg = Config::new(ids, None, None, (1, l));
        let bounds = Bounds { horizon: Some(h), ..Bounds::default() };
        let r = Checker::for_protocol(Toy, cfg, &TOY_PROPERTY, bounds).run();
        assert!(matches!(r.verdict, Verdict::Holds { complete: true }), "{}", r.sentence());
        assert_eq!(r.states, 1 + l * (1u64 << m) + (h - l), "n = {n}, latency [1, {l}], horizon {h}");
        // Every move is a delivery or a tick: m deliveries and H ticks on every path.
        assert_eq!(r.depth as u64, m as u64 + h, "n = {n}");
        assert!(r.sentence().contains(&format!("t ≤ {h}")), "{}", r.sentence());
    }
}

/// A store (N1) and two competitors; N2 holds the lease at first. TTL 6 store ticks, a request
/// every 2 own ticks, a margin of 1 own tick.
const LEASE: &str = r#"{"algorithm":"lease","nodes":[1,2,3],"seed":1,"initial_leader":2,"network":{"latency":[1,1]},
 "params":{"store":1,"ttl":6,"period":2,"margin":1DRIFT},"stop":{"max_time":40}}"#;

fn lease(drift: &str) -> Scenario {
    scenario(&LEASE.replace("DRIFT", drift))
}

/// Without drift a holder stops believing before the store frees the key, in every schedule of
/// the timed model, partition included: the whole space up to the horizon holds. The
/// asynchronous model cannot check a lease at all (its handlers read the clock).
#[test]
fn without_drift_leases_never_overlap_in_any_timed_schedule() {
    let bounds = Bounds { partitions: 1, horizon: Some(12), ..Bounds::default() };
    let r = check(&lease(""), "lease-overlap", bounds, false).unwrap();
    assert!(matches!(r.verdict, Verdict::Holds { complete: true }), "{}", r.sentence());
    assert!(r.sentence().contains("exhausted: the whole reachable space is"), "{}", r.sentence());
    assert!(r.sentence().contains("t ≤ 12, ≤ 1 partition, timed model"), "{}", r.sentence());
    assert!(r.coverage.iter().any(|&(k, _)| k == "lease.note.store_expire"), "the key expired in some schedule");
    let r = check(&lease(""), "lease-overlap", Bounds { partitions: 1, ..Bounds::default() }, false).unwrap();
    assert!(matches!(r.verdict, Verdict::ReadsClock), "{}", r.sentence());
}

/// N2's clock at half speed: it believes (6 − 1)/0.5 = 10 real ticks while the store keeps the
/// key 6, beyond what the margin covers. The checker finds the overlap by a shortest schedule
/// (no schedule of fewer events plus ticks breaks it), and its trace, run again, shows it.
#[test]
fn drift_beyond_the_margin_overlaps_by_a_shortest_schedule_that_run_reproduces() {
    let s = lease(r#","drift":{"2":0.5}"#);
    let bounds = Bounds { partitions: 1, horizon: Some(12), ..Bounds::default() };
    let r = check(&s, "lease-overlap", bounds.clone(), false).unwrap();
    let Verdict::Violated(c) = &r.verdict else { panic!("{}", r.sentence()) };
    assert!(c.replayed, "{}", r.sentence());
    assert_eq!(c.nodes, vec![2, 3]);
    // Its length in the search's measure: the events and the ticks up to the violation.
    let len = c.moves.len() as u32 + c.time as u32;
    let shorter = check(&s, "lease-overlap", Bounds { depth: Some(len - 1), ..bounds.clone() }, false).unwrap();
    assert!(matches!(shorter.verdict, Verdict::Holds { complete: false }), "{}", shorter.sentence());
    let same = check(&s, "lease-overlap", Bounds { depth: Some(len), ..bounds }, false).unwrap();
    assert!(matches!(same.verdict, Verdict::Violated(_)), "{}", same.sentence());
    // No partition: the holder keeps refreshing and nothing overlaps.
    let calm = check(&s, "lease-overlap", Bounds { horizon: Some(12), ..Bounds::default() }, false).unwrap();
    assert!(matches!(calm.verdict, Verdict::Holds { complete: true }), "{}", calm.sentence());

    // The trace, as `election-lab run` reads it: every delay at the top of its range, the
    // checker's moves forced at their ticks, the overlap where the checker said.
    let text = c.trace.to_string();
    assert!(c.trace["scenario"]["network"]["latest"] == true, "{text}");
    let mut e = Engine::from_trace_json(&text).unwrap();
    e.run_to_end();
    let v = e.all_violations().iter().find(|v| v.kind == "lease-overlap").expect("the overlap replays");
    assert_eq!((v.step, v.time, v.nodes.clone()), (c.step, c.time, vec![2, 3]), "{text}");
    assert_eq!(e.interventions().len(), c.moves.len());
}

/// The timed model is refused with what it cannot offer.
#[test]
fn the_timed_model_refuses_symmetry_and_eventually() {
    let raft = scenario(r#"{"algorithm":"raft","nodes":[1,2,3],"seed":1,"heartbeats":{"interval":3,"timeout":12}}"#);
    let timed = Bounds { horizon: Some(5), ..Bounds::default() };
    let e = Checker::new(&raft, "eventually:leader-agreed", timed.clone()).err().unwrap();
    assert!(e.to_string().contains("timed model"), "{e}");
    let mut c = Checker::new(&raft, "two-leaders-in-term", timed).unwrap();
    let e = c.symmetry().err().unwrap();
    assert!(e.to_string().contains("timed model"), "{e}");
}

/// Clocks that drift (`Bounds::max_drift`, `check-model --max-drift`) on the lease whose own
/// parameters give every clock real time: with no drift every timed schedule keeps the leases
/// apart; with clocks that may run half as fast or 50% faster, the holder's lease end can come
/// after the store has freed the key and granted it to the other competitor.
#[test]
fn a_drift_bound_finds_the_overlap_that_true_clocks_never_show() {
    let s = lease("");
    let bounds = Bounds { partitions: 1, horizon: Some(12), ..Bounds::default() };
    let none = check(&s, "lease-overlap", Bounds { max_drift: 0, ..bounds.clone() }, false).unwrap();
    assert!(matches!(none.verdict, Verdict::Holds { complete: true }), "{}", none.sentence());
    let r = check(&s, "lease-overlap", Bounds { max_drift: 500, ..bounds }, false).unwrap();
    let Verdict::Violated(c) = &r.verdict else { panic!("{}", r.sentence()) };
    assert_eq!(c.nodes, vec![2, 3], "{}", r.sentence());
    assert!(r.sentence().contains("clock drift ≤ 0.5"), "{}", r.sentence());
    // Drift needs the timed model.
    let e = Checker::new(&s, "lease-overlap", Bounds { max_drift: 100, ..Bounds::default() }).err().unwrap();
    assert!(e.to_string().contains("timed model"), "{e}");
}
