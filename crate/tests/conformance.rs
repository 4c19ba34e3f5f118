//! The conformance suite: every registered algorithm gets these tests by being in the registry,
//! with nothing else to write. They check what the engine promises for any protocol —
//! determinism, time travel, forks, trace replay, golden presets — and the safety properties
//! each algorithm declares, over random runs under the faults each property claims to survive.
//!
//! `CONFORMANCE_SEEDS=<n>` runs more random scenarios per algorithm than the default 200.
//! A failure names the algorithm and the seed; `CONFORMANCE_ONLY=<algorithm>:<seed>` prints that
//! scenario and runs only it.

use election_lab::meta::Faults;
use election_lab::registry;
use election_lab::rng::Pcg32;
use election_lab::{Action, Algorithm, Engine, NodeId, Scenario};
use serde_json::{json, Value};

fn seeds() -> u64 {
    std::env::var("CONFORMANCE_SEEDS").ok().and_then(|s| s.parse().ok()).unwrap_or(200)
}

fn only() -> Option<(String, u64)> {
    let v = std::env::var("CONFORMANCE_ONLY").ok()?;
    let (a, s) = v.split_once(':')?;
    Some((a.to_string(), s.parse().ok()?))
}

fn engine(v: &Value) -> Engine {
    Engine::new(Scenario::from_value(v).unwrap_or_else(|e| panic!("bad scenario {v}: {e}")))
        .unwrap_or_else(|e| panic!("{v}: {e}"))
}

/// A stream per algorithm, so that adding one does not change the others' scenarios.
fn stream_of(id: &str) -> u64 {
    election_lab::fnv::fnv1a_64(id.as_bytes())
}

/// A random scenario for `algorithm` from `seed`. With `Faults::Any`: crashes, recoveries,
/// partitions, heals, one-way cuts, isolation, starts, loss, random latency, sometimes no
/// failure detector. With `Faults::CrashStop`: a synchronous network (fixed latency, nothing
/// lost, no partition), crashes without recovery, and starts.
fn random_scenario(algorithm: &Algorithm, faults: Faults, seed: u64) -> Value {
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
    let max = *ids.iter().max().unwrap();
    let initial_leader = if r.range_inclusive(0, 3) == 0 { Value::Null } else { json!(max) };
    let loss = if any && r.range_inclusive(0, 2) == 0 { r.range_inclusive(1, 10) as f64 / 100.0 } else { 0.0 };
    let mut schedule = Vec::new();
    let mut t = 0;
    let mut crashed: Vec<NodeId> = Vec::new();
    for _ in 0..r.range_inclusive(1, 8) {
        t += r.range_inclusive(1, 40);
        let node = ids[r.range_inclusive(0, n as u64 - 1) as usize];
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
                let other = ids[r.range_inclusive(0, n as u64 - 1) as usize];
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

/// What must hold after any run of any algorithm.
fn accounting(e: &Engine, what: &str) {
    let m = e.metrics();
    assert_eq!(
        m.total,
        m.delivered + m.dropped + m.in_flight,
        "{what}: every message sent is delivered, dropped or in flight"
    );
    assert_eq!(m.by_kind.iter().map(|k| k.1).sum::<u64>(), m.total, "{what}");
    let f = e.frame();
    for l in &f.leaders {
        assert!(f.nodes.iter().any(|n| n.id == *l && n.up), "{what}: leader N{l} is live");
    }
    for v in e.violations() {
        assert!(
            e.algorithm().property(v.kind).is_some(),
            "{what}: violation {} of a property the algorithm does not claim",
            v.kind
        );
    }
}

/// Runs the random scenarios of one fault class and checks the properties claimed under it.
fn sweep(faults: Faults) {
    let only = only();
    for &a in registry::all() {
        let claimed: Vec<&str> =
            a.properties.iter().filter(|p| p.holds == faults || p.holds == Faults::Any).map(|p| p.id).collect();
        for seed in 0..seeds() {
            if let Some((id, s)) = &only {
                if id != a.id || *s != seed {
                    continue;
                }
            }
            let scenario = random_scenario(a, faults, seed);
            if only.is_some() {
                eprintln!("{}", serde_json::to_string_pretty(&scenario).unwrap());
            }
            let mut e = engine(&scenario);
            e.run_to_end();
            let what = format!("{} {faults:?} seed {seed} (rerun with CONFORMANCE_ONLY={}:{seed})", a.id, a.id);
            accounting(&e, &what);
            for v in e.violations() {
                assert!(
                    !claimed.contains(&v.kind),
                    "{what}: claimed property {} violated at step {} (t={}) by {:?}",
                    v.kind,
                    v.step,
                    v.time,
                    v.nodes
                );
            }
        }
    }
}

#[test]
fn chaos_sweep_keeps_the_properties_claimed_under_any_fault() {
    sweep(Faults::Any);
}

#[test]
fn crash_stop_sweep_keeps_the_properties_claimed_for_synchronous_networks() {
    sweep(Faults::CrashStop);
}

/// The scenarios every other test runs: each preset, plus one random chaos run per algorithm.
fn cases() -> Vec<(String, Value)> {
    let mut out = Vec::new();
    for (a, p) in registry::presets() {
        out.push((format!("{} preset {}", a.id, p.id), serde_json::from_str(p.json).unwrap()));
    }
    for &a in registry::all() {
        out.push((format!("{} chaos 7", a.id), random_scenario(a, Faults::Any, 7)));
    }
    out
}

#[test]
fn every_preset_replays_to_its_golden_hash_twice() {
    for (a, p) in registry::presets() {
        for _ in 0..2 {
            let mut e = Engine::new(p.scenario()).unwrap();
            e.run_to_end();
            assert_eq!(
                format!("{:016x}", e.trace_hash()),
                p.golden,
                "{}: preset {} no longer replays to its golden hash",
                a.id,
                p.id
            );
            assert_eq!(e.frame().leaders, p.leaders, "{}: preset {} ends with these leaders", a.id, p.id);
        }
    }
}

#[test]
fn the_same_scenario_gives_the_same_trace() {
    for (name, s) in cases() {
        let mut a = engine(&s);
        let mut b = engine(&s);
        a.run_to_end();
        b.run_to_end();
        assert_eq!(a.trace_hash(), b.trace_hash(), "{name}");
        assert_eq!(a.summary(), b.summary(), "{name}");
        assert!(a.cursor() > 0, "{name}: the run did something");
    }
}

#[test]
fn seeking_back_and_forth_equals_a_straight_run() {
    for (name, s) in cases() {
        let mut straight = engine(&s);
        let mut frames = vec![straight.frame()];
        while straight.step() {
            frames.push(straight.frame());
        }
        let end = straight.cursor();
        let mut e = engine(&s);
        e.run_to_end();
        let mut r = Pcg32::new(end, 99);
        for _ in 0..30 {
            let target = r.range_inclusive(0, end);
            e.seek(target);
            assert_eq!(e.frame(), frames[target as usize], "{name}: frame at step {target}");
        }
        e.seek(end);
        assert_eq!(e.trace_hash(), straight.trace_hash(), "{name}");
        assert_eq!(e.metrics(), straight.metrics(), "{name}");
    }
}

#[test]
fn acting_in_the_past_forks_and_the_trace_replays() {
    for (name, s) in cases() {
        let mut e = engine(&s);
        e.run_to_end();
        let end = e.cursor();
        let at = end / 2;
        e.seek(at);
        let victim = e.frame().nodes.iter().find(|n| n.up).map(|n| n.id).expect("a live node");
        e.apply(Action::Crash(victim)).unwrap();
        assert_eq!(e.head(), at, "{name}: the old future is discarded");
        assert_eq!(e.interventions()[0].time, e.now(), "{name}: anchored to virtual time");
        e.run_to_end();
        let replayed = Engine::from_trace_json(&e.trace_value().to_string()).unwrap();
        assert_eq!(replayed.trace_hash(), e.trace_hash(), "{name}");
        assert_eq!(replayed.frame(), e.frame(), "{name}");
        assert_eq!(replayed.interventions(), e.interventions(), "{name}");
    }
}

/// The same interventions, by virtual time, on every algorithm with the same nodes: what the
/// comparison of algorithms relies on.
#[test]
fn interventions_replay_by_time_on_every_algorithm() {
    let mut base = engine(&json!({"algorithm": "bully", "nodes": [1, 2, 3, 4, 5], "seed": 3, "initial_leader": 5,
                                   "heartbeats": {"interval": 2, "timeout": 10}, "stop": {"max_time": 200}}));
    base.run_until(7);
    base.apply(Action::Partition { groups: vec![vec![1, 2], vec![3, 4, 5]], lines: vec![] }).unwrap();
    base.run_until(60);
    base.apply(Action::Crash(5)).unwrap();
    base.run_until(120);
    base.apply(Action::Heal).unwrap();
    let ivs = base.interventions().to_vec();
    assert_eq!(ivs.iter().map(|i| i.time).collect::<Vec<_>>(), vec![7, 60, 120]);
    for &a in registry::all() {
        let mut s = base.scenario().clone();
        s.algorithm = a.id.to_string();
        let mut e = Engine::new(s).unwrap();
        e.replay_by_time(&ivs).unwrap_or_else(|err| panic!("{}: {err}", a.id));
        let got: Vec<_> = e.interventions().iter().map(|i| (i.time, i.action.clone())).collect();
        let want: Vec<_> = ivs.iter().map(|i| (i.time, i.action.clone())).collect();
        assert_eq!(got, want, "{}: the same faults at the same virtual times", a.id);
        e.run_to_end();
        // And the trace of that lane replays by step like any other.
        let again = Engine::from_trace_value(&e.trace_value()).unwrap();
        assert_eq!(again.trace_hash(), e.trace_hash(), "{}", a.id);
    }
}

#[test]
fn every_formula_evaluates_and_counts_declared_kinds() {
    for &a in registry::all() {
        for f in a.formulas {
            assert!((f.value)(5) > 0, "{}: {} at N = 5", a.id, f.name);
            assert!((f.value)(64) > (f.value)(5), "{}: {} grows with N", a.id, f.name);
        }
    }
}

/// Every step of every preset and of a chaos run is narrated, in both languages.
#[test]
fn every_step_is_narrated_in_both_languages() {
    use election_lab::meta::Lang;
    for (name, s) in cases() {
        let mut e = engine(&s);
        e.run_to_end();
        for step in 1..=e.cursor() {
            let en = e.narrate(step, Lang::En).unwrap_or_else(|| panic!("{name}: step {step} has no narration"));
            let zh = e.narrate(step, Lang::Zh).unwrap();
            // A template argument left unfilled shows as its name in braces (`{node}`,
            // `{count:node:nodes}`, lowercase); a partition group `{2}` or a live set `{N3}` is no name.
            assert!(
                en.len() > 10 && unfilled(&en).is_none(),
                "{name}: step {step}: unfilled {:?} in {en}",
                unfilled(&en)
            );
            assert!(unfilled(&zh).is_none(), "{name}: step {step}: unfilled {:?} in {zh}", unfilled(&zh));
            assert!(zh.chars().any(|c| ('\u{4e00}'..='\u{9fff}').contains(&c)), "{name}: step {step} in Chinese: {zh}");
            // The event log's line: a delivery reads the same in both languages (ids and the
            // protocol's message kinds); every other event is worded in Chinese.
            let (log_en, log_zh) = (e.step_info(step).unwrap(), e.step_info_in(step, Lang::Zh).unwrap());
            let cjk = log_zh.text.chars().any(|c| ('\u{4e00}'..='\u{9fff}').contains(&c));
            assert_eq!(cjk, log_en.event != "deliver", "{name}: step {step}: log line {:?}", log_zh.text);
        }
    }
}

/// The view fields and timers an algorithm declares (what breakpoints accept) are the ones its
/// runs show: over its presets and 40 random runs with any fault, every field some node's view
/// carries and every timer that fires is declared, and each declared one shows up.
#[test]
fn declared_view_fields_and_timers_are_the_ones_runs_show() {
    use std::collections::BTreeSet;
    for &a in registry::all() {
        let (mut fields, mut timers) = (BTreeSet::new(), BTreeSet::new());
        let mut runs: Vec<Value> = a.presets.iter().map(|p| p.scenario().to_value()).collect();
        runs.extend((0..40).map(|s| random_scenario(a, Faults::Any, s)));
        let mut declared = (BTreeSet::new(), BTreeSet::new());
        for v in runs {
            let mut e = engine(&v);
            declared = (e.view_fields().iter().copied().collect(), e.timer_names().iter().copied().collect());
            let ids = e.scenario().nodes.clone();
            for _ in 0..3000 {
                for &id in &ids {
                    let w = e.node_view(id).unwrap();
                    let has = [
                        ("term", w.term.is_some()),
                        ("vote", w.vote.is_some()),
                        ("leader", w.leader.is_some()),
                        ("votes", w.tally.is_some()),
                        ("zxid", w.zxid.is_some()),
                        ("group", w.group.is_some()),
                        ("reach", w.reach.is_some()),
                    ];
                    fields.extend(has.iter().filter(|x| x.1).map(|x| x.0));
                }
                if !e.step() {
                    break;
                }
                if let Some(election_lab::sim::EventKind::Timer(name)) = e.record(e.cursor()).map(|r| r.kind) {
                    timers.insert(name);
                }
            }
        }
        assert_eq!(fields, declared.0, "{}: view fields shown / declared", a.id);
        assert_eq!(timers, declared.1, "{}: timers fired / declared", a.id);
    }
}

/// The first `{name}` (a catalog argument's name, perhaps with its nouns) left in a text.
fn unfilled(text: &str) -> Option<&str> {
    let mut rest = text;
    while let Some(open) = rest.find('{') {
        let after = &rest[open + 1..];
        let close = after.find('}')?;
        let inner = &after[..close];
        if inner.starts_with(|c: char| c.is_ascii_lowercase())
            && inner.chars().all(|c| c.is_ascii_alphanumeric() || c == '_' || c == ':')
        {
            return Some(inner);
        }
        rest = &after[close + 1..];
    }
    None
}

#[test]
fn an_unfilled_argument_is_found() {
    assert_eq!(unfilled("N3 hears {from}'s heartbeat"), Some("from"));
    assert_eq!(unfilled("{count:node:nodes} vote"), Some("count:node:nodes"));
    assert_eq!(unfilled("partition {1, 2} / {3}, the live set {N3}"), None);
    assert_eq!(unfilled("N3 hears N2's heartbeat"), None);
}
