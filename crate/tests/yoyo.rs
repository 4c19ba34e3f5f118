//! YO-YO (Santoro 2007, §3.8.2) elects exactly the smallest id on 200 random connected graphs
//! of each generator (sizes 2–40), asynchronously with links that reorder and in rounds, with
//! its SETUP, VALUE and VOTE messages within the bound the lab shows and exactly 2|E| LEADER.

use election_lab::rng::Pcg32;
use election_lab::{registry, Engine, NodeId, Scenario};
use serde_json::{json, Value};

fn run(v: &Value) -> Engine {
    let s = Scenario::from_value(v).unwrap_or_else(|e| panic!("{v}: {e}"));
    let mut e = Engine::new(s).unwrap_or_else(|err| panic!("{v}: {err}"));
    e.run_to_end();
    assert!(e.quiescent(), "{v} did not finish");
    e
}

fn sent(e: &Engine, kind: &str) -> u64 {
    e.metrics().by_kind.iter().find(|k| k.0 == kind).map_or(0, |k| k.1)
}

/// `n` distinct ids from 1..=3n in random order.
fn ids(r: &mut Pcg32, n: usize) -> Vec<NodeId> {
    let mut ids: Vec<NodeId> = (1..=3 * n as NodeId).collect();
    for i in (1..ids.len()).rev() {
        ids.swap(i, r.range_inclusive(0, i as u64) as usize);
    }
    ids.truncate(n);
    ids
}

/// A random `topology` value of generator `name` for `n` nodes.
fn topology(r: &mut Pcg32, name: &str, n: usize) -> Value {
    match name {
        "grid" => {
            let divisors: Vec<usize> = (1..=n).filter(|d| n % d == 0).collect();
            let rows = divisors[r.range_inclusive(0, divisors.len() as u64 - 1) as usize];
            json!({"generate": "grid", "rows": rows, "cols": n / rows})
        }
        "tree" => json!({"generate": "tree", "fanout": r.range_inclusive(1, 4).min(n as u64)}),
        "random" => {
            json!({"generate": "random", "degree": r.range_inclusive(1, 6).min(n as u64), "seed": r.next_u32()})
        }
        other => json!(other),
    }
}

const GENERATORS: &[&str] = &["bidirectional-ring", "complete", "line", "star", "grid", "tree", "random"];

#[test]
fn it_elects_exactly_the_smallest_id_on_every_generator() {
    let alg = registry::find("yoyo").unwrap();
    let mut r = Pcg32::new(67, 8);
    for name in GENERATORS {
        for trial in 0..200u64 {
            let n = r.range_inclusive(2, 40) as usize;
            let ids = ids(&mut r, n);
            let network = match trial % 2 {
                0 => json!({"latency": [1, 6], "fifo": false}),
                _ => json!({"model": "rounds"}),
            };
            let v = json!({"algorithm": "yoyo", "nodes": ids, "seed": trial, "network": network,
                           "topology": topology(&mut r, name, n)});
            let e = run(&v);
            let min = *ids.iter().min().unwrap();
            assert_eq!(e.frame().leaders, vec![min], "{v}");
            assert_eq!(e.frame().agreement, Some(min), "{v}");
            let links = e.scenario().topology.as_ref().unwrap().edges.len() as u64;
            assert_eq!(sent(&e, "SETUP"), 2 * links, "{v}: SETUP once each way");
            assert_eq!(sent(&e, "LEADER"), 2 * links, "{v}: LEADER once each way");
            let counted = sent(&e, "SETUP") + sent(&e, "VALUE") + sent(&e, "VOTE");
            let bound = alg.theory(&alg.formulas[0], e.scenario()).unwrap();
            assert!(counted <= bound, "{v}: {counted} > {bound}");
            assert_eq!(sent(&e, "VALUE"), sent(&e, "VOTE"), "{v}: every VALUE is answered by one VOTE");
        }
    }
}

#[test]
fn its_presets_elect_their_minimum() {
    for p in registry::find("yoyo").unwrap().presets {
        let mut e = Engine::new(p.scenario()).unwrap();
        e.run_to_end();
        assert!(e.quiescent(), "{}", p.id);
        assert_eq!(e.frame().leaders, p.leaders.to_vec(), "{}", p.id);
        let min = *e.scenario().nodes.iter().min().unwrap();
        assert_eq!(e.frame().agreement, Some(min), "{}", p.id);
    }
}

/// The exhaustive checker: on a ring of four with links that reorder, and on the complete
/// graph of four with a crash, no schedule ever gives two leaders.
#[test]
fn no_schedule_gives_two_leaders() {
    use election_lab::check::{check, Bounds, Verdict};
    for (v, crashes, unordered) in [
        (json!({"algorithm": "yoyo", "nodes": [3, 1, 4, 2], "topology": "bidirectional-ring"}), 0, true),
        (json!({"algorithm": "yoyo", "nodes": [3, 1, 4, 2], "topology": "complete"}), 1, false),
    ] {
        let s = Scenario::from_value(&v).unwrap();
        let r = check(&s, "split-brain", Bounds { crashes, ..Bounds::default() }, unordered).unwrap();
        assert!(matches!(r.verdict, Verdict::Holds { complete: true }), "{v}: {}", r.sentence());
    }
}
