//! Helpers shared by the protocol modules' own tests (compiled for tests only).

use crate::meta::Property;
use crate::protocol::Protocol;
use crate::rng::Pcg32;
use crate::sim::Typed;
use crate::{presets, Engine, NodeId, Scenario};
use serde_json::Value;
use std::ops::RangeInclusive;

/// An engine for scenario `v`, not run yet (a bad scenario fails the test, naming it).
pub fn engine(v: &Value) -> Engine {
    let s = Scenario::from_value(v).unwrap_or_else(|e| panic!("{v}: {e}"));
    Engine::new(s).unwrap_or_else(|e| panic!("{v}: {e}"))
}

/// An engine for scenario `v`, run until nothing is left or a stop limit.
pub fn run(v: &Value) -> Engine {
    let mut e = engine(v);
    e.run_to_end();
    e
}

/// [`run`], and the run must have finished: nothing left in flight or pending.
pub fn run_finished(v: &Value) -> Engine {
    let e = run(v);
    assert!(e.quiescent(), "{v} did not finish");
    e
}

/// Preset `id`'s scenario as JSON.
pub fn preset_json(id: &str) -> Value {
    serde_json::from_str(presets::find(id).unwrap_or_else(|| panic!("no preset {id}")).json).unwrap()
}

/// An engine for preset `id`, not run yet.
pub fn preset_engine(id: &str) -> Engine {
    Engine::new(presets::find(id).unwrap_or_else(|| panic!("no preset {id}")).scenario()).unwrap()
}

/// An engine for preset `id`, run until nothing is left or a stop limit.
pub fn preset(id: &str) -> Engine {
    let mut e = preset_engine(id);
    e.run_to_end();
    e
}

/// Messages of one kind sent so far (0 when the algorithm has no such kind).
pub fn sent(e: &Engine, kind: &str) -> u64 {
    e.metrics().by_kind.iter().find(|k| k.0 == kind).map_or(0, |k| k.1)
}

/// The step where `to` receives the message labelled `label` from `from` (the test fails when
/// there is none).
pub fn delivery(e: &Engine, from: NodeId, to: NodeId, label: &str) -> u64 {
    let tail = format!("N{from} → N{to} {label}");
    (1..=e.cursor())
        .find(|&s| e.step_info(s).is_some_and(|i| i.event == "deliver" && i.text.ends_with(&tail)))
        .unwrap_or_else(|| panic!("no delivery {tail}"))
}

/// A random ring of `n` distinct ids, drawn from 1..=3n.
pub fn random_ring(r: &mut Pcg32, n: usize) -> Vec<NodeId> {
    random_ids(r, n, 3)
}

/// `n` distinct ids in random order, drawn from 1..=spread·n (a Fisher-Yates shuffle, cut).
pub fn random_ids(r: &mut Pcg32, n: usize, spread: NodeId) -> Vec<NodeId> {
    let mut ids: Vec<NodeId> = (1..=n as NodeId * spread).collect();
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

/// A random fault schedule over `ids`, as the property tests draw it: how many events (drawn from
/// `events`), then for each one the ticks since the last (drawn from `gaps`), the node it befalls
/// (drawn from `ids`) and what `fault(r, t, node)` makes of it (`None`: nothing that time). The
/// schedule, and the last event's time.
pub fn random_faults<T: Copy>(
    r: &mut Pcg32,
    ids: &[T],
    events: RangeInclusive<u64>,
    gaps: RangeInclusive<u64>,
    mut fault: impl FnMut(&mut Pcg32, u64, T) -> Option<Value>,
) -> (Vec<Value>, u64) {
    let mut schedule = Vec::new();
    let mut t = 0;
    for _ in 0..r.range_inclusive(*events.start(), *events.end()) {
        t += r.range_inclusive(*gaps.start(), *gaps.end());
        let node = r.pick(ids);
        schedule.extend(fault(r, t, node));
    }
    (schedule, t)
}

/// The two sides of a random partition of `ids` (a coin for each), as a `partition` event's value.
pub fn random_sides<T: Copy + Into<Value>>(r: &mut Pcg32, ids: &[T]) -> Value {
    let (a, b): (Vec<T>, Vec<T>) = ids.iter().partition(|_| r.range_inclusive(0, 1) == 0);
    Value::Array(vec![a.into(), b.into()])
}
