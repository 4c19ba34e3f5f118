//! Properties beside the golden hashes. A golden hash (`determinism.rs`, each preset's) pins one
//! run; the behaviour it protects is stated here over many seeds, for every algorithm: random
//! scenarios (the conformance suite's, with any fault) and random interventions drawn from the
//! engine's own generator, so that a failure names the algorithm and the seed to rerun.
//!
//! `PROPERTY_SEEDS=<n>` runs more seeds per algorithm than the default 6.

use election_lab::meta::{Faults, Lang};
use election_lab::protocols::conformance::random_scenario;
use election_lab::rng::Pcg32;
use election_lab::{registry, Action, Algorithm, Engine, Scenario};

fn seeds() -> u64 {
    std::env::var("PROPERTY_SEEDS").ok().and_then(|s| s.parse().ok()).unwrap_or(6)
}

/// Every registered algorithm's random scenario of each seed, named for the failure message.
fn cases() -> Vec<(String, &'static Algorithm, Scenario, u64)> {
    let mut out = Vec::new();
    for &a in registry::all() {
        for seed in 0..seeds() {
            // Another stream than the conformance sweeps' scenarios of the same seed.
            let seed = seed + 1_000;
            let v = random_scenario(a, Faults::Any, seed);
            let s = Scenario::from_value(&v).unwrap_or_else(|e| panic!("{} seed {seed}: {e}", a.id));
            out.push((format!("{} seed {seed}", a.id), a, s, seed));
        }
    }
    out
}

/// Runs `e` to its end, acting up to three times on the way at times drawn from `r`: a crash or
/// a start of a live node, a recovery of a crashed one.
fn run_acting(e: &mut Engine, r: &mut Pcg32) {
    let stop = e.stop_time();
    let mut times: Vec<u64> = (0..r.range_inclusive(0, 3)).map(|_| r.range_inclusive(0, stop)).collect();
    times.sort_unstable();
    for t in times {
        e.run_until(t);
        let nodes = e.scenario().nodes.clone();
        let node = r.pick(&nodes);
        let action = match (r.range_inclusive(0, 2), e.is_up(node) == Some(true)) {
            (_, false) => Action::Recover(node),
            (0, true) => Action::Crash(node),
            _ => Action::Start(node),
        };
        e.apply(action.clone()).unwrap_or_else(|err| panic!("{action:?} at t={t}: {err}"));
    }
    e.run_to_end();
}

/// Pins: a golden hash holds wherever the cursor travelled before. Seeking to any step shows
/// what stepping there from the start shows (frame, counts, the step's record and narration),
/// and seeking back to the end restores the hash.
#[test]
fn a_seek_to_any_step_shows_what_stepping_there_shows() {
    for (name, a, s, seed) in cases() {
        let mut straight = Engine::with_algorithm(a, s.clone()).unwrap();
        let mut seen = vec![(straight.frame(), straight.metrics())];
        while straight.step() {
            seen.push((straight.frame(), straight.metrics()));
        }
        let end = straight.cursor();
        let mut e = Engine::with_algorithm(a, s).unwrap();
        e.run_to_end();
        let mut r = Pcg32::new(seed, 1);
        for _ in 0..12 {
            let k = r.range_inclusive(0, end);
            e.seek(k);
            assert_eq!(e.cursor(), k, "{name}");
            assert_eq!((e.frame(), e.metrics()), seen[k as usize], "{name}: seek to step {k}");
            if k > 0 {
                assert_eq!(e.record(k), straight.record(k), "{name}: the record of step {k}");
                assert_eq!(e.narrate(k, Lang::En), straight.narrate(k, Lang::En), "{name}: step {k}");
            }
        }
        e.seek(end);
        assert_eq!(e.trace_hash(), straight.trace_hash(), "{name}: back at the end");
    }
}

/// Pins: acting in the past changes only the future. A fork at step k keeps the original's
/// steps 1..=k (their records, and the frames before the intervention) and starts its own
/// future from there.
#[test]
fn a_fork_at_step_k_equals_the_original_up_to_k() {
    for (name, a, s, seed) in cases() {
        let mut original = Engine::with_algorithm(a, s.clone()).unwrap();
        original.run_to_end();
        let end = original.cursor();
        let mut r = Pcg32::new(seed, 2);
        let k = r.range_inclusive(0, end);
        let mut fork = Engine::with_algorithm(a, s).unwrap();
        fork.run_to_end();
        fork.seek(k);
        let node = fork.scenario().nodes[0];
        let action = if fork.is_up(node) == Some(true) { Action::Crash(node) } else { Action::Recover(node) };
        fork.apply(action).unwrap();
        assert_eq!(fork.head(), k, "{name}: the fork at {k} discards the old future");
        fork.run_to_end();
        assert_eq!(fork.interventions()[0].step, k, "{name}");
        for step in (1..=k).rev() {
            assert_eq!(fork.record(step), original.record(step), "{name}: fork at {k}, step {step}");
        }
        // The frame at step k itself shows the intervention made there; the ones before it are
        // the original's.
        for _ in 0..k.min(6) {
            let j = r.range_inclusive(0, k - 1);
            fork.seek(j);
            original.seek(j);
            assert_eq!(fork.frame(), original.frame(), "{name}: fork at {k}, frame at step {j}");
        }
    }
}

/// Pins: a sweep's row (summary-only) is the run a link replays. With random interventions on
/// the way, a summary-only run ends with the full run's summary, trace hash and counts.
#[test]
fn a_summary_only_run_ends_as_the_full_run() {
    for (name, a, s, seed) in cases() {
        let mut full = Engine::with_algorithm(a, s.clone()).unwrap();
        let mut lean = Engine::summary_only(s).unwrap();
        run_acting(&mut full, &mut Pcg32::new(seed, 3));
        run_acting(&mut lean, &mut Pcg32::new(seed, 3));
        assert_eq!(lean.interventions(), full.interventions(), "{name}");
        assert_eq!(lean.summary(), full.summary(), "{name}");
        assert_eq!(lean.metrics(), full.metrics(), "{name}");
    }
}

/// Pins: a shared trace replays to its hash. A run with random interventions, written as JSON
/// and read back, replays to the same hash, frame, interventions and step — also when written
/// mid-run and run on from there.
#[test]
fn a_trace_written_and_read_back_replays_to_the_same_run() {
    for (name, a, s, seed) in cases() {
        let mut e = Engine::with_algorithm(a, s).unwrap();
        let mut r = Pcg32::new(seed, 4);
        run_acting(&mut e, &mut r);
        let text = e.trace_value().to_string();
        let back = Engine::from_trace_json(&text).unwrap_or_else(|err| panic!("{name}: {err}"));
        assert_eq!(back.trace_hash(), e.trace_hash(), "{name}");
        assert_eq!(back.frame(), e.frame(), "{name}");
        assert_eq!(back.interventions(), e.interventions(), "{name}");
        assert_eq!(back.cursor(), e.cursor(), "{name}");
        let mid = r.range_inclusive(0, e.cursor());
        e.seek(mid);
        let mut again = Engine::from_trace_value(&e.trace_value()).unwrap_or_else(|err| panic!("{name}: {err}"));
        assert_eq!((again.cursor(), again.frame()), (mid, e.frame()), "{name}: written at step {mid}");
        again.run_to_end();
        e.run_to_end();
        assert_eq!(again.trace_hash(), e.trace_hash(), "{name}: run on from step {mid}");
    }
}
