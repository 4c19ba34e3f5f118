//! The conformance suite: every registered algorithm gets these tests by being in the registry,
//! with nothing else to write. The checks themselves are a library,
//! `election_lab::protocols::conformance`, so that an algorithm written in a crate of its own
//! gets the same ones from its own test; here each check runs on every registered algorithm
//! (and the checks over presets on the recorded runs too).
//!
//! `CONFORMANCE_SEEDS=<n>` runs more random scenarios per algorithm than the default 200.
//! A failure names the algorithm and the seed; `CONFORMANCE_ONLY=<algorithm>:<seed>` prints that
//! scenario and runs only it.

use election_lab::protocols::conformance::{check_one, Check, Options};
use election_lab::registry;

/// Runs `check` on every registered algorithm and recorded run, and fails naming each failure.
fn on_every_algorithm(check: Check) {
    let options = Options::from_env();
    let failures: Vec<String> = registry::all()
        .iter()
        .chain(registry::recorded())
        .filter_map(|&a| check_one(a, check, &options).err())
        .map(|f| f.to_string())
        .collect();
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

#[test]
fn chaos_sweep_keeps_the_properties_claimed_under_any_fault() {
    on_every_algorithm(Check::ChaosSweep);
}

#[test]
fn crash_stop_sweep_keeps_the_properties_claimed_for_synchronous_networks() {
    on_every_algorithm(Check::CrashStopSweep);
}

#[test]
fn every_preset_replays_to_its_golden_hash_twice() {
    on_every_algorithm(Check::GoldenPresets);
}

#[test]
fn the_same_scenario_gives_the_same_trace() {
    on_every_algorithm(Check::SameTrace);
}

#[test]
fn seeking_back_and_forth_equals_a_straight_run() {
    on_every_algorithm(Check::Seeking);
}

#[test]
fn acting_in_the_past_forks_and_the_trace_replays() {
    on_every_algorithm(Check::Forks);
}

/// The same interventions, by virtual time, on every algorithm with the same nodes: what the
/// comparison of algorithms relies on.
#[test]
fn interventions_replay_by_time_on_every_algorithm() {
    on_every_algorithm(Check::ReplayByTime);
}

#[test]
fn every_formula_evaluates_and_counts_declared_kinds() {
    on_every_algorithm(Check::Formulas);
}

/// Every step of every preset and of a chaos run is narrated, in both languages.
#[test]
fn every_step_is_narrated_in_both_languages() {
    on_every_algorithm(Check::Narration);
}

/// The view fields and timers an algorithm declares (what breakpoints accept) are the ones its
/// runs show.
#[test]
fn declared_view_fields_and_timers_are_the_ones_runs_show() {
    on_every_algorithm(Check::DeclaredFields);
}

/// The suite catches what it claims to: a preset whose golden hash is wrong fails by name.
#[test]
fn a_wrong_golden_hash_fails_the_suite_by_name() {
    use election_lab::meta::Preset;
    let bully = registry::find("bully").unwrap();
    let wrong: &'static [Preset] = Box::leak(Box::new([Preset { golden: "0000000000000000", ..bully.presets[0] }]));
    let damaged: &'static election_lab::Algorithm =
        Box::leak(Box::new(election_lab::Algorithm { presets: wrong, ..*bully }));
    let failure = check_one(damaged, Check::GoldenPresets, &Options::from_env()).unwrap_err();
    assert!(
        failure.to_string().contains("bully [golden-presets]: preset bully-heartbeats no longer replays"),
        "{failure}"
    );
}

#[test]
fn inspector_field_ids_are_stable_snake_case_and_unique() {
    on_every_algorithm(Check::InspectorFields);
}
