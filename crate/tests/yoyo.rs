//! YO-YO (Santoro 2007, §3.8.2) on 200 random connected graphs of each generator (sizes 2–40),
//! asynchronously with links that reorder and in rounds: under the default order it elects
//! exactly the largest id, with `order: "min"` (the textbook's orientation) exactly the smallest,
//! and its SETUP, VALUE and VOTE messages stay within the published bound, written out below;
//! LEADER is exactly 2|E|.

mod common;

use common::graphs::{ids, run_finished, topology, UNDIRECTED};
use common::sent;
use election_lab::meta::k;
use election_lab::rng::Pcg32;
use election_lab::{registry, Engine, NodeId, Scenario};
use serde_json::{json, Value};

/// ⌈log₂ n⌉, from its definition.
fn log2_ceil(n: u64) -> u64 {
    let mut log = 0;
    while (1u64 << log) < n {
        log += 1;
    }
    log
}

/// Santoro's bound (§3.8.2), term by term: SETUP costs 2|E| (each node tells each neighbour its
/// id); each iteration sends at most one VALUE (YO-) and one VOTE (-YO) per live link, 2|E|;
/// there are at most ⌈log₂ N⌉ + 1 iterations: the sources thin out to one in ⌈log₂ N⌉, and
/// the iteration with a single source prunes every link.
fn bound(links: u64, iterations: u64) -> u64 {
    2 * links + 2 * links * iterations
}

/// The iterations that sent messages: the leader won at the start of the one after them.
fn iterations(e: &Engine, leader: NodeId) -> u64 {
    let round = e.inspect(leader).into_iter().find(|f| f.label == k::INSPECT_ROUND).expect("the iteration shown").value;
    round.number().expect("a number") as u64 - 1
}

/// One run of YO-YO for every generator and 200 draws each, with the scenario and its run.
fn sweep(order: Option<&str>, seed: u64, mut check: impl FnMut(&Value, &Engine)) {
    let mut r = Pcg32::new(seed, 8);
    for name in UNDIRECTED {
        for trial in 0..200u64 {
            let n = r.range_inclusive(2, 40) as usize;
            let ids = ids(&mut r, n);
            let network = match trial % 2 {
                0 => json!({"latency": [1, 6], "fifo": false}),
                _ => json!({"model": "rounds"}),
            };
            let mut v = json!({"algorithm": "yoyo", "nodes": ids, "seed": trial, "network": network,
                               "topology": topology(&mut r, name, n)});
            if let Some(order) = order {
                v["params"] = json!({ "order": order });
            }
            check(&v, &run_finished(&v));
        }
    }
}

/// Checks one run: `want` elected and agreed, LEADER and SETUP once each way on every link,
/// each VALUE answered by one VOTE, the count and the iterations within the bound. Returns
/// whether the count passes the same bound granting two iterations fewer on 8 nodes or more.
fn check_run(v: &Value, e: &Engine, want: NodeId) -> bool {
    assert_eq!(e.frame().leaders, vec![want], "{v}");
    assert_eq!(e.frame().agreement, Some(want), "{v}");
    let s = e.scenario();
    let (n, links) = (s.nodes.len() as u64, s.topology.as_ref().unwrap().edges.len() as u64);
    assert_eq!(sent(e, "SETUP"), 2 * links, "{v}: SETUP once each way");
    assert_eq!(sent(e, "LEADER"), 2 * links, "{v}: LEADER once each way");
    assert_eq!(sent(e, "VALUE"), sent(e, "VOTE"), "{v}: every VALUE is answered by one VOTE");
    let counted = sent(e, "SETUP") + sent(e, "VALUE") + sent(e, "VOTE");
    let published = bound(links, log2_ceil(n) + 1);
    assert!(counted <= published, "{v}: {counted} > 2|E| + 2|E|(⌈log₂N⌉ + 1) = {published}");
    let iterations = iterations(e, want);
    assert!(iterations <= log2_ceil(n) + 1, "{v}: {iterations} iterations > ⌈log₂N⌉ + 1");
    let alg = registry::find("yoyo").unwrap();
    assert_eq!(alg.theory(&alg.formulas[0], s), Some(published), "{v}: the formula shown is the bound");
    n >= 8 && counted > bound(links, log2_ceil(n) - 1)
}

#[test]
fn by_default_it_elects_exactly_the_largest_id_within_the_published_bound_on_every_generator() {
    let mut over = 0;
    sweep(None, 67, |v, e| over += check_run(v, e, *e.scenario().nodes.iter().max().unwrap()) as u32);
    // The bound is not so loose that any bound would pass: stated with two iterations fewer, it
    // fails on some of these graphs. (With one fewer it held on all of them when this was
    // written, but Santoro proves only ⌈log₂ N⌉ + 1, so that is what the lab claims.)
    assert!(over > 0, "every run stays within 2|E| + 2|E|(⌈log₂N⌉ − 1): the check would not see a wrong count");
}

#[test]
fn with_order_min_it_elects_exactly_the_smallest_id_within_the_same_bound() {
    let mut over = 0;
    sweep(Some("min"), 71, |v, e| over += check_run(v, e, *e.scenario().nodes.iter().min().unwrap()) as u32);
    assert!(over > 0, "every run stays within 2|E| + 2|E|(⌈log₂N⌉ − 1): the check would not see a wrong count");
}

#[test]
fn its_presets_elect_their_maximum() {
    for p in registry::find("yoyo").unwrap().presets {
        let mut e = Engine::new(p.scenario()).unwrap();
        e.run_to_end();
        assert!(e.quiescent(), "{}", p.id);
        assert_eq!(e.frame().leaders, p.leaders.to_vec(), "{}", p.id);
        let max = *e.scenario().nodes.iter().max().unwrap();
        assert_eq!(e.frame().agreement, Some(max), "{}", p.id);
    }
}

#[test]
fn an_order_other_than_max_or_min_is_refused_by_name() {
    let v = json!({"algorithm": "yoyo", "nodes": [1, 2, 3], "topology": "line", "params": {"order": "largest"}});
    let err = Scenario::from_value(&v).and_then(Engine::new).map(|_| ()).expect_err("order largest");
    assert_eq!(err.field, "params.order", "{err}");
    assert!(err.to_string().contains("expected \"max\" or \"min\", found \"largest\""), "{err}");
}

/// The exhaustive checker: on a ring of four with links that reorder, and on the complete
/// graph of four with a crash, in both orders, no schedule ever gives two leaders.
#[test]
fn no_schedule_gives_two_leaders() {
    use election_lab::check::{check, Bounds, Verdict};
    for order in ["max", "min"] {
        for (topology, crashes, unordered) in [("bidirectional-ring", 0, true), ("complete", 1, false)] {
            let v = json!({"algorithm": "yoyo", "nodes": [3, 1, 4, 2], "topology": topology,
                           "params": {"order": order}});
            let s = Scenario::from_value(&v).unwrap();
            let r = check(&s, "split-brain", Bounds { crashes, ..Bounds::default() }, unordered).unwrap();
            assert!(matches!(r.verdict, Verdict::Holds { complete: true }), "{v}: {}", r.sentence());
        }
    }
}
