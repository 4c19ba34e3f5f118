//! The suite's random scenarios, and the check that reads what random runs show.

use super::{engine, ensure};
use crate::algorithm::Algorithm;
use crate::meta::Faults;
use crate::sim::EventKind;
use crate::NodeId;
use election_lab_core::rng::Pcg32;
use serde_json::{json, Value};
use std::collections::BTreeSet;

/// A stream per algorithm, so that adding one does not change the others' scenarios.
fn stream_of(id: &str) -> u64 {
    crate::fnv::fnv1a_64(id.as_bytes())
}

/// A random scenario for `algorithm` from `seed`. With `Faults::Any`: crashes, recoveries,
/// partitions, heals, one-way cuts, isolation, starts, loss, random latency, sometimes no
/// failure detector. With `Faults::CrashStop`: a synchronous network (fixed latency, nothing
/// lost, no partition), crashes without recovery, and starts.
pub fn random_scenario(algorithm: &Algorithm, faults: Faults, seed: u64) -> Value {
    let mut r = Pcg32::new(seed, stream_of(algorithm.id) ^ faults as u64);
    let n = r.range_inclusive(3, 8) as usize;
    let mut ids: Vec<NodeId> = Vec::new();
    while ids.len() < n {
        let id = r.range_inclusive(1, 60) as NodeId;
        if !ids.contains(&id) {
            ids.push(id);
        }
    }
    let any = faults == Faults::Any;
    let (lo, hi) = if any {
        let lo = r.range_inclusive(1, 3);
        (lo, lo + r.range_inclusive(0, 5))
    } else {
        (1, 1)
    };
    let interval = r.range_inclusive(2, 4);
    let timeout = interval + 2 * hi + r.range_inclusive(4, 10);
    let max = ids.iter().copied().max().unwrap_or(1);
    let initial_leader = if r.range_inclusive(0, 3) == 0 { Value::Null } else { json!(max) };
    let loss = if any && r.range_inclusive(0, 2) == 0 { r.range_inclusive(1, 10) as f64 / 100.0 } else { 0.0 };
    let mut schedule = Vec::new();
    let mut t = 0;
    let mut crashed: Vec<NodeId> = Vec::new();
    for _ in 0..r.range_inclusive(1, 8) {
        t += r.range_inclusive(1, 40);
        let node = r.pick(&ids);
        let pick = r.range_inclusive(0, 7);
        if !any {
            // Crash-stop: crash (leaving at least one node up) or start.
            if pick < 4 && !crashed.contains(&node) && crashed.len() + 1 < n {
                crashed.push(node);
                schedule.push(json!({"at": t, "crash": node}));
            } else {
                schedule.push(json!({"at": t, "start": node}));
            }
            continue;
        }
        match pick {
            0 | 1 => schedule.push(json!({"at": t, "crash": node})),
            2 => schedule.push(json!({"at": t, "recover": node})),
            3 => {
                let (a, b): (Vec<NodeId>, Vec<NodeId>) = ids.iter().partition(|_| r.range_inclusive(0, 1) == 0);
                schedule.push(json!({"at": t, "partition": [a, b]}));
            }
            4 => schedule.push(json!({"at": t, "heal": true})),
            5 => schedule.push(json!({"at": t, "isolate": node})),
            6 => {
                let other = r.pick(&ids);
                if other != node {
                    schedule.push(json!({"at": t, "cut": [node, other]}));
                }
            }
            _ => schedule.push(json!({"at": t, "start": node})),
        }
    }
    let no_detector = any && r.range_inclusive(0, 7) == 0;
    json!({
        "algorithm": algorithm.id, "nodes": ids, "seed": seed,
        "network": {"latency": [lo, hi], "loss": loss, "fifo": !any || r.range_inclusive(0, 3) != 0},
        "initial_leader": initial_leader,
        "heartbeats": if no_detector { Value::Null } else { json!({"interval": interval, "timeout": timeout}) },
        "schedule": schedule,
        "stop": {"max_time": t + 200, "max_steps": 2_000_000},
    })
}

/// The view fields and timers an algorithm declares (what breakpoints accept) are the ones its
/// runs show: over its presets and 40 random runs with any fault, every field some node's view
/// carries and every timer that fires is declared, and each declared one shows up.
pub(super) fn declared_fields(a: &'static Algorithm) -> Result<(), String> {
    let (mut fields, mut timers) = (BTreeSet::new(), BTreeSet::new());
    let mut runs: Vec<Value> = a.presets.iter().map(|p| p.scenario().to_value()).collect();
    runs.extend((0..40).map(|s| random_scenario(a, Faults::Any, s)));
    let mut declared = (BTreeSet::new(), BTreeSet::new());
    for v in runs {
        let mut e = engine(a, &v)?;
        declared = (e.view_fields().iter().copied().collect(), e.timer_names().iter().copied().collect());
        let ids = e.scenario().nodes.clone();
        for _ in 0..3000 {
            for &id in &ids {
                let Some(w) = e.node_view(id) else { return Err(format!("no view of N{id}")) };
                let has = [
                    ("term", w.term.is_some()),
                    ("vote", w.vote.is_some()),
                    ("leader", w.leader.is_some()),
                    ("votes", w.tally.is_some()),
                    ("zxid", w.zxid().is_some()),
                    ("group", w.group().is_some()),
                    ("reach", w.reach().is_some()),
                ];
                fields.extend(has.iter().filter(|x| x.1).map(|x| x.0));
            }
            if !e.step() {
                break;
            }
            if let Some(EventKind::Timer(name)) = e.record(e.cursor()).map(|r| r.kind) {
                timers.insert(name);
            }
        }
    }
    ensure!(fields == declared.0, "view fields shown {fields:?} / declared {:?}", declared.0);
    ensure!(timers == declared.1, "timers fired {timers:?} / declared {:?}", declared.1);
    Ok(())
}
