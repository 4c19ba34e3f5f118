//! Helpers shared by the protocol modules' own tests (compiled for tests only).

use crate::meta::Property;
use crate::protocol::Protocol;
use crate::rng::Pcg32;
use crate::sim::Typed;
use crate::{Engine, NodeId, Scenario};
use serde_json::Value;

/// Messages of one kind sent so far (0 when the algorithm has no such kind).
pub fn sent(e: &Engine, kind: &str) -> u64 {
    e.metrics().by_kind.iter().find(|k| k.0 == kind).map_or(0, |k| k.1)
}

/// A random ring of `n` distinct ids, drawn from 1..=3n.
pub fn random_ring(r: &mut Pcg32, n: usize) -> Vec<NodeId> {
    let mut ids: Vec<NodeId> = (1..=n as NodeId * 3).collect();
    for i in (1..ids.len()).rev() {
        ids.swap(i, r.range_inclusive(0, i as u64) as usize);
    }
    ids.truncate(n);
    ids
}

/// A simulator of protocol `P` for scenario `v` (not run yet), for tests that read its states.
pub fn sim_of<P: Protocol>(v: &Value, claimed: &'static [Property]) -> Typed<P> {
    let s = Scenario::from_value(v).unwrap();
    let cfg = s.config();
    let proto = P::new(&cfg, &s.params).unwrap();
    Typed::new(proto, cfg, &s, claimed)
}
