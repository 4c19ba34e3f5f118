use super::{State, TokenRing, ALGORITHM};
use crate::protocols::testkit::{random_faults, random_ring as ring, sim_of};
use crate::rng::Pcg32;
use crate::sim::Typed;
use crate::{Action, Scenario};
use serde_json::{json, Value};

fn sim(v: &Value) -> Typed<TokenRing> {
    sim_of(v, ALGORITHM.properties)
}

fn states(s: &Typed<TokenRing>) -> Vec<&State> {
    (0..s.cfg.n()).map(|i| s.state(i)).collect()
}

fn live(s: &Typed<TokenRing>) -> Vec<&State> {
    (0..s.cfg.n()).filter(|&i| s.is_up(i)).map(|i| s.state(i)).collect()
}

fn regenerations(s: &Typed<TokenRing>) -> u64 {
    states(s).iter().map(|x| x.regenerated).sum()
}

#[test]
fn a_healthy_ring_never_regenerates() {
    for seed in 0..120u64 {
        let mut r = Pcg32::new(seed, 1977);
        let n = r.range_inclusive(2, 10) as usize;
        let ids = ring(&mut r, n);
        let lo = r.range_inclusive(1, 3);
        let hi = lo + r.range_inclusive(0, 3);
        let first = if r.range_inclusive(0, 1) == 0 { Value::Null } else { json!(r.pick(&ids)) };
        let v = json!({"algorithm": "token-ring", "nodes": ids, "seed": seed, "initial_leader": first,
                           "network": {"latency": [lo, hi], "fifo": r.range_inclusive(0, 1) == 0}, "stop": {"max_time": 3000}});
        let mut s = sim(&v);
        let mut held = vec![false; n];
        while s.step() {
            for (i, st) in states(&s).iter().enumerate() {
                held[i] |= st.holding.is_some();
            }
        }
        assert_eq!(regenerations(&s), 0, "seed {seed}: {v}");
        assert!(s.violations().is_empty(), "seed {seed}: {:?}", s.violations());
        assert!(held.iter().all(|&h| h), "seed {seed}: every node held the token");
        assert!(states(&s).iter().all(|x| x.seen.unwrap().generation.counter == 1), "seed {seed}");
    }
}

/// Crash the holder (and sometimes another node, even the lowest id): exactly one token is
/// regenerated, by the lowest live id, and never two holders at once.
#[test]
fn a_crashed_holder_gives_exactly_one_regenerated_token() {
    for seed in 0..120u64 {
        let mut r = Pcg32::new(seed, 1978);
        let n = r.range_inclusive(3, 9) as usize;
        let ids = ring(&mut r, n);
        let hi = r.range_inclusive(1, 3);
        let v = json!({"algorithm": "token-ring", "nodes": ids, "seed": seed, "network": {"latency": [1, hi]},
                           "stop": {"max_time": 1_000_000}});
        let mut s = sim(&v);
        s.run_until(r.range_inclusive(5, 80));
        while !states(&s).iter().any(|x| x.holding.is_some()) {
            assert!(s.step());
        }
        let holder = states(&s).iter().find(|x| x.holding.is_some()).unwrap().me;
        s.apply(Action::Crash(holder)).unwrap();
        if r.range_inclusive(0, 1) == 0 {
            let other = if r.range_inclusive(0, 1) == 0 { s.cfg.sorted[0] } else { r.pick(&ids) };
            s.apply(Action::Crash(other)).unwrap();
        }
        let lowest_live = live(&s).iter().map(|x| x.me).min().unwrap();
        let until = s.now() + (n as u64 + 2) * s.proto().silence;
        let mut most = 0;
        while s.now() <= until && s.step() {
            most = most.max(live(&s).iter().filter(|x| x.holding.is_some()).count());
        }
        assert_eq!(most, 1, "seed {seed}: one holder at a time, and a token again");
        assert_eq!(regenerations(&s), 1, "seed {seed}: exactly one regeneration\n{v}");
        let regenerator = states(&s).iter().find(|x| x.regenerated == 1).unwrap().me;
        assert_eq!(regenerator, lowest_live, "seed {seed}: the lowest live id regenerates");
        assert!(s.violations().is_empty(), "seed {seed}");
        assert!(
            live(&s).iter().all(|x| x.seen.unwrap().generation.counter == 2),
            "seed {seed}: the new token reached everyone"
        );
    }
}

/// Many crashes (crash-stop: nobody recovers) at any moment, with bounded latency and no
/// loss, watched long enough for every regeneration: never two holders, and in the end
/// every live node has seen the same, newest generation.
#[test]
fn crash_stop_runs_never_hold_two_tokens() {
    for seed in 0..120u64 {
        let mut r = Pcg32::new(seed, 1979);
        let n = r.range_inclusive(3, 9) as usize;
        let ids = ring(&mut r, n);
        let hi = r.range_inclusive(1, 3);
        let mut crashed = Vec::new();
        let (schedule, t) = random_faults(&mut r, &ids, 1..=n as u64 - 1, 1..=150, |_, t, node| {
            (!crashed.contains(&node)).then(|| {
                crashed.push(node);
                json!({"at": t, "crash": node})
            })
        });
        let v = json!({"algorithm": "token-ring", "nodes": ids, "seed": seed, "network": {"latency": [1, hi]},
                           "schedule": schedule, "stop": {"max_time": 1_000_000}});
        let mut s = sim(&v);
        let until = t + (n as u64 + 3) * s.proto().silence;
        while s.now() <= until && s.step() {}
        assert!(s.violations().is_empty(), "seed {seed}: {:?}\n{v}", s.violations());
        let newest: Vec<_> = live(&s).iter().map(|x| x.seen.unwrap().generation).collect();
        assert!(newest.windows(2).all(|w| w[0] == w[1]), "seed {seed}: {newest:?}\n{v}");
    }
}

#[test]
fn a_partition_makes_a_second_token_and_the_violation_is_reported() {
    let mut s = sim(&serde_json::from_str(ALGORITHM.preset("token-ring-partition").unwrap().json).unwrap());
    s.run_until(499);
    let v = s.violations();
    assert_eq!(v.len(), 1, "one stretch of two tokens under the partition: {v:?}");
    assert!(v.iter().all(|x| x.kind == "duplicate-token"));
    assert!(
        v.iter().all(|x| x.nodes.iter().any(|&n| n <= 3) && x.nodes.iter().any(|&n| n > 3)),
        "a token on each side: {v:?}"
    );
    assert_eq!(regenerations(&s), 1, "only the side without the token regenerated");
    assert_eq!(s.state(3).regenerated, 1, "N4, the lowest id of that side");
    // After healing the older token dies at the first node the newer one has passed.
    let before = s.violations().len();
    s.run_until(560);
    let settled = s.violations().len();
    s.run_until(700);
    assert_eq!(s.violations().len(), settled, "one token again after healing");
    assert!(settled - before <= 1);
    assert!(states(&s).iter().all(|x| x.seen.unwrap().generation.counter == 2));
}

/// Random rings of 4 to 10 nodes cut in two: the side without the token regenerates one,
/// and `duplicate-token` is flagged — whether or not two nodes ever hold at the same instant
/// (tokens in flight count) — and at most one node per side names itself the holder.
#[test]
fn every_random_partition_flags_duplicate_token() {
    for seed in 0..100u64 {
        let mut r = Pcg32::new(seed, 1980);
        let n = r.range_inclusive(4, 10) as usize;
        let ids = ring(&mut r, n);
        let hi = r.range_inclusive(1, 3);
        // Two non-empty sides, chosen at random (not necessarily arcs of the ring).
        let mut side: Vec<bool> = (0..n).map(|_| r.range_inclusive(0, 1) == 0).collect();
        side[0] = true;
        let k = 1 + r.range_inclusive(0, n as u64 - 2) as usize;
        side[k] = false;
        let (a, b): (Vec<u32>, Vec<u32>) = {
            let a = (0..n).filter(|&i| side[i]).map(|i| ids[i]).collect();
            let b = (0..n).filter(|&i| !side[i]).map(|i| ids[i]).collect();
            (a, b)
        };
        let at = r.range_inclusive(5, 60);
        let v = json!({"algorithm": "token-ring", "nodes": ids, "seed": seed, "network": {"latency": [1, hi]},
                           "schedule": [{"at": at, "partition": [a, b]}], "stop": {"max_time": 1_000_000}});
        let mut s = sim(&v);
        let until = at + (n as u64 + 2) * s.proto().silence;
        while s.now() <= until && s.step() {
            for group in [&a, &b] {
                let holders = (0..n)
                    .filter(|&i| s.is_up(i) && group.contains(&ids[i]) && s.view(i).leader == Some(ids[i]))
                    .count();
                assert!(holders <= 1, "seed {seed}: {holders} holders on one side at t={}\n{v}", s.now());
            }
        }
        let dup: Vec<_> = s.violations().iter().filter(|x| x.kind == "duplicate-token").collect();
        assert!(!dup.is_empty(), "seed {seed}: no duplicate-token flagged\n{v}");
    }
}

/// Only the holder names itself; a node that passed the token on names the node it passed it
/// to; the generation is written under the holder only.
#[test]
fn only_the_holder_is_labelled_holder() {
    let mut s = sim(&json!({"algorithm": "token-ring", "nodes": [3, 1, 2, 5], "seed": 3, "stop": {"max_time": 400}}));
    let mut saw_passing = false;
    while s.step() {
        for i in 0..4 {
            let (st, v) = (s.state(i), s.view(i));
            assert_eq!(v.leader == Some(st.me), st.holding.is_some(), "t={}: {st:?} {v:?}", s.now());
            assert_eq!(v.term.is_some(), st.holding.is_some());
            if let Some((_, to)) = st.passing {
                saw_passing = true;
                assert_eq!(v.leader, Some(to));
            }
        }
    }
    assert!(saw_passing);
}

#[test]
fn a_trip_round_the_ring_costs_two_n() {
    let ids = [4, 9, 1, 7, 3];
    let v = json!({"algorithm": "token-ring", "nodes": ids, "seed": 1, "initial_leader": 4});
    let mut s = sim(&v);
    let f = &ALGORITHM.formulas[0];
    for trip in 1..=4u64 {
        // Until N4 lets the token go, then holds it again.
        while s.state(0).holding.is_some() {
            assert!(s.step());
        }
        while s.state(0).holding.is_none() {
            assert!(s.step());
        }
        let sent: u64 = s.observers().sent_by_kind.iter().sum();
        assert_eq!(sent, trip * (f.value)(ids.len() as u64), "after {trip} trips");
    }
}

#[test]
fn params_are_checked() {
    let bad = |p: Value| {
        let v = json!({"algorithm": "token-ring", "nodes": [1, 2, 3], "params": p});
        crate::Engine::new(Scenario::from_value(&v).unwrap()).unwrap_err().field
    };
    assert_eq!(bad(json!({"hold": 0})), "params.hold");
    assert_eq!(bad(json!({"silence": 0})), "params.silence");
    assert_eq!(bad(json!({"holds": 2})), "params.holds");
}
