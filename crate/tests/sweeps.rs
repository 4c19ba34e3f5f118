//! Randomized sweeps: many seeds per protocol, each with a random schedule of faults and a
//! random latency range, drawn from `Pcg32` seeded by the loop index (so a failure names the
//! seed that reproduces it: rerun with `SWEEP_ONLY=<index>` to print its scenario).
//! `SWEEP_SEEDS=<n>` runs more seeds than the default 500 (e.g. 20000 before a release).
//!
//! Properties checked (the theorem each comes from in brackets):
//! * every run: no panic (debug assertions on, including the replay check of `seek`), the
//!   message accounting adds up, and self-declared leaders are live nodes;
//! * Raft: never two leaders in one term, whatever the faults (Raft's election safety, Ongaro & Ousterhout 2014);
//! * no partition and faults that stop: Bully ends with every live node agreeing on the highest
//!   live id, a node may stay crashed (Garcia-Molina 1982); Chang-Roberts, where every crashed
//!   node recovers before the end (a plain ring cannot survive a permanent crash, the classic
//!   model), ends agreeing on the maximum (Chang & Roberts 1979); Raft with a live majority ends
//!   agreeing on one live leader (Raft's liveness under a stable majority).

mod common;

use common::{engine, violations_of};
use election_lab::observe::TWO_LEADERS_IN_TERM;
use election_lab::rng::Pcg32;
use election_lab::{Engine, NodeId, Time};
use serde_json::{json, Value};

const SEEDS: u64 = 500;

#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Class {
    /// Crashes, recoveries, partitions, heals, cuts, isolation, starts, loss; faults may never
    /// stop; one run in eight has no failure detector (heartbeats null).
    Chaos,
    /// Crashes and recoveries only, no loss, then a long quiet stretch.
    Settling,
}

struct Plan {
    scenario: Value,
    heartbeat_timeout: Time,
    last_fault: Time,
}

fn pick(rng: &mut Pcg32, lo: u64, hi: u64) -> u64 {
    rng.range_inclusive(lo, hi)
}

/// Draws one scenario for `algorithm` from seed `index`.
fn plan(algorithm: &str, class: Class, index: u64) -> Plan {
    let stream = match (algorithm, class) {
        ("bully", Class::Chaos) => 1,
        ("bully", Class::Settling) => 2,
        ("chang-roberts", Class::Chaos) => 3,
        ("chang-roberts", Class::Settling) => 4,
        (_, Class::Chaos) => 5,
        (_, Class::Settling) => 6,
    };
    let mut rng = Pcg32::new(index, stream);
    let r = &mut rng;
    // Distinct ids in a random order (the order is the ring for Chang-Roberts).
    let n = pick(r, 3, 10) as usize;
    let mut ids: Vec<NodeId> = Vec::new();
    while ids.len() < n {
        let id = pick(r, 1, 60) as NodeId;
        if !ids.contains(&id) {
            ids.push(id);
        }
    }
    let lo = pick(r, 1, 3);
    let hi = lo + pick(r, 0, 5);
    let interval = pick(r, 2, 4);
    // Well above interval + the largest latency, so a live leader is not suspected.
    let timeout = interval + 2 * hi + pick(r, 4, 10);
    let max = *ids.iter().max().unwrap();
    let initial_leader = if pick(r, 0, 3) == 0 { Value::Null } else { json!(max) };
    let loss = if class == Class::Chaos && pick(r, 0, 2) == 0 { pick(r, 1, 10) as f64 / 100.0 } else { 0.0 };

    let mut schedule = Vec::new();
    let mut last_fault = 0;
    let faults = pick(r, 1, 6);
    let mut t = 0;
    for _ in 0..faults {
        t += pick(r, 1, 40);
        let node = ids[pick(r, 0, n as u64 - 1) as usize];
        last_fault = last_fault.max(t);
        match class {
            Class::Settling => {
                schedule.push(json!({"at": t, "crash": node}));
                // Chang-Roberts: every crash is followed by a recovery; the others recover
                // most of the time, and a node may stay down.
                if algorithm == "chang-roberts" || pick(r, 0, 2) != 0 {
                    let back = t + pick(r, 1, 60);
                    schedule.push(json!({"at": back, "recover": node}));
                    last_fault = last_fault.max(back);
                }
            }
            Class::Chaos => match pick(r, 0, 7) {
                0 | 1 => schedule.push(json!({"at": t, "crash": node})),
                2 => schedule.push(json!({"at": t, "recover": node})),
                3 => {
                    let mut a = Vec::new();
                    let mut b = Vec::new();
                    for &id in &ids {
                        if pick(r, 0, 1) == 0 {
                            a.push(id)
                        } else {
                            b.push(id)
                        }
                    }
                    schedule.push(json!({"at": t, "partition": [a, b]}));
                }
                4 => schedule.push(json!({"at": t, "heal": true})),
                5 => schedule.push(json!({"at": t, "isolate": node})),
                6 => {
                    let other = ids[pick(r, 0, n as u64 - 1) as usize];
                    if other != node {
                        schedule.push(json!({"at": t, "cut": [node, other]}));
                    }
                }
                _ => schedule.push(json!({"at": t, "start": node})),
            },
        }
    }
    let stop = match class {
        Class::Chaos => last_fault + 150,
        // The settling runs stop by themselves once they have agreed (see `settles`); this
        // is only the bound within which they must.
        Class::Settling => last_fault + 60 * timeout + 600,
    };
    let scenario = json!({
        "algorithm": algorithm, "nodes": ids, "seed": index,
        "network": {"latency": [lo, hi], "loss": loss, "fifo": pick(r, 0, 3) != 0},
        "initial_leader": initial_leader,
        "heartbeats": if class == Class::Chaos && pick(r, 0, 7) == 0 { Value::Null } else { json!({"interval": interval, "timeout": timeout}) },
        "schedule": schedule,
        "stop": {"max_time": stop, "max_steps": 2_000_000},
    });
    Plan { scenario, heartbeat_timeout: timeout, last_fault }
}

/// Checks that hold after every run, whatever happened.
fn always(e: &Engine, what: &str) {
    let m = e.metrics();
    assert_eq!(m.total, m.delivered + m.dropped + m.in_flight, "{what}: message accounting");
    let f = e.frame();
    for l in &f.leaders {
        assert!(f.nodes.iter().any(|n| n.id == *l && n.up), "{what}: leader {l} is not live");
    }
    if let Some(a) = f.agreement {
        assert!(f.nodes.iter().filter(|n| n.up).all(|n| n.view.leader == Some(a)), "{what}");
    }
}

/// Every tenth seed, time travel must agree with the straight run.
fn check_seek(e: &mut Engine, index: u64, what: &str) {
    if index % 10 != 0 || e.cursor() == 0 {
        return;
    }
    let (end, hash, frame) = (e.cursor(), e.trace_hash(), e.frame());
    let mut rng = Pcg32::new(index, 99);
    for _ in 0..3 {
        e.seek(rng.range_inclusive(0, end));
    }
    e.seek(end);
    assert_eq!(e.trace_hash(), hash, "{what}: seek changed the hash");
    assert_eq!(e.frame(), frame, "{what}: seek changed the frame");
}

/// Runs past the last fault until every live node has agreed on `want(e)` for a whole quiet
/// stretch, or the stop time. Returns whether it settled.
fn settles(e: &mut Engine, last_fault: Time, window: Time, want: impl Fn(&Engine) -> Option<NodeId>) -> bool {
    e.run_until(last_fault);
    let stop = e.stop_time();
    let mut agreed_since: Option<Time> = None;
    let mut t = last_fault;
    while t < stop {
        t = (t + window / 4).min(stop);
        e.run_until(t);
        let ok = want(e).is_some()
            && e.frame().agreement == want(e)
            && e.frame().leaders == want(e).into_iter().collect::<Vec<_>>();
        agreed_since = if ok { agreed_since.or(Some(t)) } else { None };
        if agreed_since.is_some_and(|s| t >= s + window) {
            return true;
        }
        if e.quiescent() {
            break;
        }
    }
    false
}

fn describe(p: &Plan) -> String {
    format!("scenario {}", p.scenario)
}

fn only() -> Option<u64> {
    std::env::var("SWEEP_ONLY").ok().and_then(|v| v.parse().ok())
}

fn sweep(algorithm: &str, class: Class, mut check: impl FnMut(&mut Engine, &Plan, &str)) {
    let seeds = std::env::var("SWEEP_SEEDS").ok().and_then(|v| v.parse().ok()).unwrap_or(SEEDS);
    let indices: Vec<u64> = match only() {
        Some(i) => vec![i],
        None => (0..seeds).collect(),
    };
    for index in indices {
        let p = plan(algorithm, class, index);
        let what = format!("{algorithm} {class:?} seed {index}");
        if only().is_some() {
            println!("{what}: {}", describe(&p));
        }
        let mut e = engine(&p.scenario);
        check(&mut e, &p, &what);
        always(&e, &what);
        check_seek(&mut e, index, &what);
    }
}

fn highest_live(e: &Engine) -> Option<NodeId> {
    e.frame().nodes.iter().filter(|n| n.up).map(|n| n.id).max()
}

// ----- chaos: no panic; Raft safety -----

#[test]
fn bully_chaos_does_not_panic() {
    sweep("bully", Class::Chaos, |e, _, _| e.run_to_end());
}

#[test]
fn chang_roberts_chaos_does_not_panic() {
    sweep("chang-roberts", Class::Chaos, |e, _, _| e.run_to_end());
}

#[test]
fn raft_chaos_never_has_two_leaders_in_a_term() {
    sweep("raft", Class::Chaos, |e, p, what| {
        e.run_to_end();
        let bad = violations_of(e, TWO_LEADERS_IN_TERM);
        assert!(bad.is_empty(), "{what}: {bad:?}\n{}", describe(p));
    });
}

// ----- settling: agreement on the right leader -----

#[test]
fn bully_settles_on_the_highest_live_id() {
    sweep("bully", Class::Settling, |e, p, what| {
        let window = 4 * p.heartbeat_timeout;
        let ok = settles(e, p.last_fault, window, highest_live);
        if highest_live(e).is_none() {
            return; // every node ended crashed: nobody to agree
        }
        assert!(ok, "{what}: no agreement on {:?}; views {:?}\n{}", highest_live(e), common::views(e), describe(p));
    });
}

#[test]
fn chang_roberts_settles_on_the_maximum_once_every_node_is_back() {
    sweep("chang-roberts", Class::Settling, |e, p, what| {
        let window = 4 * p.heartbeat_timeout;
        let ok = settles(e, p.last_fault, window, highest_live);
        assert!(e.frame().nodes.iter().all(|n| n.up), "{what}: the plan recovers every node");
        assert!(ok, "{what}: no agreement on {:?}; views {:?}\n{}", highest_live(e), common::views(e), describe(p));
    });
}

#[test]
fn raft_settles_on_one_leader_and_stays_safe() {
    sweep("raft", Class::Settling, |e, p, what| {
        let window = 4 * p.heartbeat_timeout;
        let n = e.scenario().nodes.len();
        // Any live leader will do; the majority must be up for one to exist.
        let leader = |e: &Engine| e.frame().leaders.first().copied();
        let ok = settles(e, p.last_fault, window, leader);
        let live = e.frame().nodes.iter().filter(|n| n.up).count();
        if live > n / 2 {
            assert!(ok, "{what}: no stable leader; views {:?}\n{}", common::views(e), describe(p));
        }
        let bad = violations_of(e, TWO_LEADERS_IN_TERM);
        assert!(bad.is_empty(), "{what}: {bad:?}\n{}", describe(p));
    });
}
