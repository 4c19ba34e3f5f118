//! Random connected networks for the tests of the elections on general graphs: distinct ids and
//! a `topology` of each generator, drawn from one seeded stream so that a failure names its run.

use election_lab::rng::Pcg32;
use election_lab::{Engine, NodeId};
use serde_json::{json, Value};

/// The generators of undirected connected graphs a scenario's `topology` may name.
pub const UNDIRECTED: &[&str] = &["bidirectional-ring", "complete", "line", "star", "grid", "tree", "random"];

/// `n` distinct ids from 1..=3n in random order.
pub fn ids(r: &mut Pcg32, n: usize) -> Vec<NodeId> {
    let mut ids: Vec<NodeId> = (1..=3 * n as NodeId).collect();
    for i in (1..ids.len()).rev() {
        ids.swap(i, r.range_inclusive(0, i as u64) as usize);
    }
    ids.truncate(n);
    ids
}

/// A random `topology` value of generator `name` for `n` nodes: a grid of any shape with `n`
/// places, a tree of fan-out 1 to 4, a random graph of average degree 1 to 6 and any seed.
pub fn topology(r: &mut Pcg32, name: &str, n: usize) -> Value {
    match name {
        "grid" => {
            let divisors: Vec<usize> = (1..=n).filter(|d| n % d == 0).collect();
            let rows = r.pick(&divisors);
            json!({"generate": "grid", "rows": rows, "cols": n / rows})
        }
        "tree" => json!({"generate": "tree", "fanout": r.range_inclusive(1, 4).min(n as u64)}),
        "random" => {
            json!({"generate": "random", "degree": r.range_inclusive(1, 6).min(n as u64), "seed": r.next_u32()})
        }
        other => json!(other),
    }
}

/// Runs scenario `v` to its end, which must come by itself: nothing left in flight or pending.
pub fn run_finished(v: &Value) -> Engine {
    let e = super::run(v);
    assert!(e.quiescent(), "{v} did not finish");
    e
}
