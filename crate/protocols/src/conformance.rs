//! The conformance suite, as a library: what the engine promises for any protocol —
//! determinism, time travel, forks, trace replay, replay by time, golden presets, narration in
//! both languages, the fields and timers it declares — and the safety properties the algorithm
//! claims, over random runs under the faults each property claims to survive.
//!
//! Every registered algorithm gets it from `crate/tests/conformance.rs`; an algorithm written in
//! a crate of its own calls [`check`] on its descriptor from its own test, which need not be
//! registered anywhere (see the guide's chapter "Adding an algorithm").
//!
//! `CONFORMANCE_SEEDS=<n>` runs more random scenarios per algorithm than the default 200.
//! A failure names the algorithm and the seed; `CONFORMANCE_ONLY=<algorithm>:<seed>` prints that
//! scenario and runs only it.

use crate::algorithm::Algorithm;
use crate::engine::Engine;
use crate::meta::{Faults, Lang};
use crate::registry;
use crate::trace::Trace;
use election_lab_core::rng::Pcg32;
use election_lab_core::scenario::{Action, Scenario};
use serde_json::{json, Value};
use std::fmt;

mod fields;
mod random;
pub use random::random_scenario;

/// One check of the suite.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Check {
    /// Random runs with any fault keep the properties claimed under any fault.
    ChaosSweep,
    /// Random crash-stop runs keep the properties claimed for synchronous networks.
    CrashStopSweep,
    /// Each preset replays, twice, to its golden hash and ends with its leaders.
    GoldenPresets,
    /// The same scenario gives the same trace.
    SameTrace,
    /// Seeking back and forth equals a straight run.
    Seeking,
    /// Acting in the past forks, and the trace written replays.
    Forks,
    /// Interventions replay by virtual time on this algorithm.
    ReplayByTime,
    /// Every formula evaluates and grows with N.
    Formulas,
    /// Every step is narrated, in both languages.
    Narration,
    /// The view fields and timers declared are the ones runs show.
    DeclaredFields,
    /// The inspector's field ids are snake_case, unique at a node and name one label each.
    InspectorFields,
}

impl Check {
    /// Every check, in the order [`check`] runs them.
    pub const ALL: &'static [Check] = &[
        Check::ChaosSweep,
        Check::CrashStopSweep,
        Check::GoldenPresets,
        Check::SameTrace,
        Check::Seeking,
        Check::Forks,
        Check::ReplayByTime,
        Check::Formulas,
        Check::Narration,
        Check::DeclaredFields,
        Check::InspectorFields,
    ];

    /// The check's name, as a failure shows it.
    pub fn name(self) -> &'static str {
        match self {
            Check::ChaosSweep => "chaos-sweep",
            Check::CrashStopSweep => "crash-stop-sweep",
            Check::GoldenPresets => "golden-presets",
            Check::SameTrace => "same-trace",
            Check::Seeking => "seeking",
            Check::Forks => "forks",
            Check::ReplayByTime => "replay-by-time",
            Check::Formulas => "formulas",
            Check::Narration => "narration",
            Check::DeclaredFields => "declared-fields",
            Check::InspectorFields => "inspector-fields",
        }
    }

    /// Whether the check applies to `algorithm`: a recorded run replays its log and has only
    /// its presets, so it gets the checks over presets and none over random scenarios.
    fn applies(self, algorithm: &Algorithm) -> bool {
        !registry::is_recorded(algorithm.id)
            || matches!(
                self,
                Check::GoldenPresets
                    | Check::SameTrace
                    | Check::Seeking
                    | Check::Forks
                    | Check::Narration
                    | Check::InspectorFields
            )
    }
}

/// A check that failed: which, on which algorithm, and what went wrong.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Failure {
    pub algorithm: &'static str,
    pub check: Check,
    pub message: String,
}

impl fmt::Display for Failure {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} [{}]: {}", self.algorithm, self.check.name(), self.message)
    }
}

/// How much the sweeps run.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Options {
    /// Random scenarios per algorithm and fault class (200).
    pub seeds: u64,
    /// Only this algorithm's scenario of this seed, printed (`CONFORMANCE_ONLY=<id>:<seed>`).
    pub only: Option<(String, u64)>,
}

impl Options {
    /// 200 seeds, or `CONFORMANCE_SEEDS` and `CONFORMANCE_ONLY` from the environment.
    pub fn from_env() -> Options {
        let seeds = std::env::var("CONFORMANCE_SEEDS").ok().and_then(|s| s.parse().ok()).unwrap_or(200);
        let only = std::env::var("CONFORMANCE_ONLY").ok().and_then(|v| {
            let (a, s) = v.split_once(':')?;
            Some((a.to_string(), s.parse().ok()?))
        });
        Options { seeds, only }
    }
}

/// Runs the whole suite on `algorithm` (registered or not) with [`Options::from_env`]: every
/// failed check, or `Ok`.
pub fn check(algorithm: &'static Algorithm) -> Result<(), Vec<Failure>> {
    let options = Options::from_env();
    let failures: Vec<Failure> = Check::ALL.iter().filter_map(|&c| check_one(algorithm, c, &options).err()).collect();
    if failures.is_empty() {
        Ok(())
    } else {
        Err(failures)
    }
}

/// Runs one check on `algorithm`. A panic in the algorithm's code is a failure too.
pub fn check_one(algorithm: &'static Algorithm, check: Check, options: &Options) -> Result<(), Failure> {
    if !check.applies(algorithm) {
        return Ok(());
    }
    let run = || match check {
        Check::ChaosSweep => sweep(algorithm, Faults::Any, options),
        Check::CrashStopSweep => sweep(algorithm, Faults::CrashStop, options),
        Check::GoldenPresets => golden_presets(algorithm),
        Check::SameTrace => same_trace(algorithm),
        Check::Seeking => seeking(algorithm),
        Check::Forks => forks(algorithm),
        Check::ReplayByTime => replay_by_time(algorithm),
        Check::Formulas => formulas(algorithm),
        Check::Narration => narration(algorithm),
        Check::DeclaredFields => random::declared_fields(algorithm),
        Check::InspectorFields => fields::inspector_fields(algorithm),
    };
    let result = std::panic::catch_unwind(std::panic::AssertUnwindSafe(run)).unwrap_or_else(|panic| {
        let what =
            panic.downcast_ref::<String>().cloned().or_else(|| panic.downcast_ref::<&str>().map(|s| s.to_string()));
        Err(format!("panicked: {}", what.unwrap_or_default()))
    });
    result.map_err(|message| Failure { algorithm: algorithm.id, check, message })
}

/// `Err(message)` unless `cond` holds (the suite's `assert!`).
macro_rules! ensure {
    ($cond:expr, $($arg:tt)+) => {
        if !$cond {
            return Err(format!($($arg)+));
        }
    };
}
use ensure;

/// A run of `algorithm` on the scenario `v`.
fn engine(algorithm: &'static Algorithm, v: &Value) -> Result<Engine, String> {
    let scenario = Scenario::from_value(v).map_err(|e| format!("bad scenario {v}: {e}"))?;
    Engine::with_algorithm(algorithm, scenario).map_err(|e| format!("{v}: {e}"))
}

/// What must hold after any run of any algorithm.
fn accounting(e: &Engine, what: &str) -> Result<(), String> {
    let m = e.metrics();
    ensure!(
        m.total == m.delivered + m.dropped + m.in_flight,
        "{what}: every message sent is delivered, dropped or in flight ({} ≠ {} + {} + {})",
        m.total,
        m.delivered,
        m.dropped,
        m.in_flight
    );
    ensure!(m.by_kind.iter().map(|k| k.1).sum::<u64>() == m.total, "{what}: the counts by kind add up to the total");
    let f = e.frame();
    for l in &f.leaders {
        ensure!(f.nodes.iter().any(|n| n.id == *l && n.up), "{what}: leader N{l} is live");
    }
    for v in e.violations() {
        ensure!(
            e.algorithm().property(v.kind).is_some(),
            "{what}: violation {} of a property the algorithm does not claim",
            v.kind
        );
    }
    Ok(())
}

/// Runs the random scenarios of one fault class and checks the properties claimed under it.
fn sweep(a: &'static Algorithm, faults: Faults, options: &Options) -> Result<(), String> {
    let claimed: Vec<&str> =
        a.properties.iter().filter(|p| p.holds == faults || p.holds == Faults::Any).map(|p| p.id).collect();
    for seed in 0..options.seeds {
        if let Some((id, s)) = &options.only {
            if id != a.id || *s != seed {
                continue;
            }
        }
        let scenario = random_scenario(a, faults, seed);
        if options.only.is_some() {
            eprintln!("{}", serde_json::to_string_pretty(&scenario).unwrap_or_default());
        }
        let mut e = engine(a, &scenario)?;
        e.run_to_end();
        let what = format!("{faults:?} seed {seed} (rerun with CONFORMANCE_ONLY={}:{seed})", a.id);
        accounting(&e, &what)?;
        for v in e.violations() {
            ensure!(
                !claimed.contains(&v.kind),
                "{what}: claimed property {} violated at step {} (t={}) by {:?}",
                v.kind,
                v.step,
                v.time,
                v.nodes
            );
        }
    }
    Ok(())
}

/// The scenarios the other checks run: each preset, plus one random chaos run (not for a
/// recorded run, which has only its presets).
fn cases(a: &'static Algorithm) -> Result<Vec<(String, Value)>, String> {
    let mut out = Vec::new();
    for p in a.presets {
        let v: Value = serde_json::from_str(p.json).map_err(|e| format!("preset {}: not JSON: {e}", p.id))?;
        ensure!(
            v.get("algorithm").and_then(Value::as_str) == Some(a.id),
            "preset {}: its scenario names algorithm {}, not {}",
            p.id,
            v.get("algorithm").unwrap_or(&Value::Null),
            a.id
        );
        out.push((format!("preset {}", p.id), v));
    }
    if !registry::is_recorded(a.id) {
        out.push(("chaos 7".to_string(), random_scenario(a, Faults::Any, 7)));
    }
    Ok(out)
}

fn golden_presets(a: &'static Algorithm) -> Result<(), String> {
    for p in a.presets {
        for _ in 0..2 {
            let mut e = Engine::with_algorithm(a, p.scenario()).map_err(|e| format!("preset {}: {e}", p.id))?;
            e.run_to_end();
            let hash = format!("{:016x}", e.trace_hash());
            ensure!(
                hash == p.golden,
                "preset {} no longer replays to its golden hash {} but to {hash}",
                p.id,
                p.golden
            );
            let leaders = e.frame().leaders;
            ensure!(leaders == p.leaders, "preset {} ends with leaders {leaders:?}, not {:?}", p.id, p.leaders);
        }
    }
    Ok(())
}

fn same_trace(a: &'static Algorithm) -> Result<(), String> {
    for (name, s) in cases(a)? {
        let (mut x, mut y) = (engine(a, &s)?, engine(a, &s)?);
        x.run_to_end();
        y.run_to_end();
        ensure!(x.trace_hash() == y.trace_hash(), "{name}: two runs of one scenario hash differently");
        ensure!(x.summary() == y.summary(), "{name}: two runs of one scenario sum up differently");
        ensure!(x.cursor() > 0, "{name}: the run did nothing");
    }
    Ok(())
}

fn seeking(a: &'static Algorithm) -> Result<(), String> {
    for (name, s) in cases(a)? {
        let mut straight = engine(a, &s)?;
        let mut frames = vec![straight.frame()];
        while straight.step() {
            frames.push(straight.frame());
        }
        let end = straight.cursor();
        let mut e = engine(a, &s)?;
        e.run_to_end();
        let mut r = Pcg32::new(end, 99);
        for _ in 0..30 {
            let target = r.range_inclusive(0, end);
            e.seek(target);
            ensure!(e.frame() == frames[target as usize], "{name}: the frame after a seek to step {target}");
        }
        e.seek(end);
        ensure!(e.trace_hash() == straight.trace_hash(), "{name}: the hash after seeking back to the end");
        ensure!(e.metrics() == straight.metrics(), "{name}: the counts after seeking back to the end");
    }
    Ok(())
}

fn forks(a: &'static Algorithm) -> Result<(), String> {
    for (name, s) in cases(a)? {
        let mut e = engine(a, &s)?;
        e.run_to_end();
        let at = e.cursor() / 2;
        e.seek(at);
        let Some(victim) = e.frame().nodes.iter().find(|n| n.up).map(|n| n.id) else {
            return Err(format!("{name}: no live node at step {at}"));
        };
        e.apply(Action::Crash(victim)).map_err(|err| format!("{name}: crash N{victim}: {err}"))?;
        ensure!(e.head() == at, "{name}: the old future is discarded");
        ensure!(e.interventions()[0].time == e.now(), "{name}: the intervention is anchored to virtual time");
        e.run_to_end();
        let trace = Trace::from_json(&e.trace_value().to_string()).map_err(|err| format!("{name}: {err}"))?;
        let replayed = Engine::from_trace_with(a, trace).map_err(|err| format!("{name}: {err}"))?;
        ensure!(replayed.trace_hash() == e.trace_hash(), "{name}: the trace replays to another hash");
        ensure!(replayed.frame() == e.frame(), "{name}: the trace replays to another frame");
        ensure!(replayed.interventions() == e.interventions(), "{name}: the trace replays other interventions");
    }
    Ok(())
}

/// The same interventions, by virtual time, on every algorithm with the same nodes: what the
/// comparison of algorithms relies on.
fn replay_by_time(a: &'static Algorithm) -> Result<(), String> {
    let mut base = engine(
        &crate::bully::ALGORITHM,
        &json!({"algorithm": "bully", "nodes": [1, 2, 3, 4, 5], "seed": 3, "initial_leader": 5,
                "heartbeats": {"interval": 2, "timeout": 10}, "stop": {"max_time": 200}}),
    )?;
    base.run_until(7);
    let partition = Action::Partition { groups: vec![vec![1, 2], vec![3, 4, 5]], lines: vec![] };
    base.apply(partition).map_err(|e| e.to_string())?;
    base.run_until(60);
    base.apply(Action::Crash(5)).map_err(|e| e.to_string())?;
    base.run_until(120);
    base.apply(Action::Heal).map_err(|e| e.to_string())?;
    let ivs = base.interventions().to_vec();
    let times: Vec<_> = ivs.iter().map(|i| i.time).collect();
    ensure!(times == [7, 60, 120], "the base run's faults fall at {times:?}");
    let mut s = base.scenario().clone();
    s.algorithm = a.id.to_string();
    let mut e = Engine::with_algorithm(a, s).map_err(|e| e.to_string())?;
    e.replay_by_time(&ivs).map_err(|e| e.to_string())?;
    let got: Vec<_> = e.interventions().iter().map(|i| (i.time, i.action.clone())).collect();
    let want: Vec<_> = ivs.iter().map(|i| (i.time, i.action.clone())).collect();
    ensure!(got == want, "the same faults at the same virtual times: {got:?} ≠ {want:?}");
    e.run_to_end();
    // And the trace of that lane replays by step like any other.
    let again = Engine::from_trace_with(a, Trace::from_value(&e.trace_value()).map_err(|e| e.to_string())?)
        .map_err(|e| e.to_string())?;
    ensure!(again.trace_hash() == e.trace_hash(), "the lane's trace replays to another hash");
    Ok(())
}

fn formulas(a: &'static Algorithm) -> Result<(), String> {
    for f in a.formulas {
        ensure!((f.value)(5) > 0, "{} is 0 at N = 5", f.name);
        ensure!((f.value)(64) > (f.value)(5), "{} does not grow with N", f.name);
    }
    Ok(())
}

/// Every step of every preset and of a chaos run is narrated, in both languages.
fn narration(a: &'static Algorithm) -> Result<(), String> {
    let cjk = |t: &str| t.chars().any(|c| ('\u{4e00}'..='\u{9fff}').contains(&c));
    for (name, s) in cases(a)? {
        let mut e = engine(a, &s)?;
        e.run_to_end();
        for step in 1..=e.cursor() {
            let Some(en) = e.narrate(step, Lang::En) else {
                return Err(format!("{name}: step {step} has no narration"));
            };
            let zh = e.narrate(step, Lang::Zh).unwrap_or_default();
            // A template argument left unfilled shows as its name in braces (`{node}`,
            // `{count:node:nodes}`, lowercase); a partition group `{2}` or a live set `{N3}` is no name.
            ensure!(
                en.len() > 10 && unfilled(&en).is_none(),
                "{name}: step {step}: unfilled {:?} in {en}",
                unfilled(&en)
            );
            ensure!(unfilled(&zh).is_none(), "{name}: step {step}: unfilled {:?} in {zh}", unfilled(&zh));
            ensure!(cjk(&zh), "{name}: step {step} in Chinese: {zh}");
            // The event log's line: a delivery reads the same in both languages (ids and the
            // protocol's message kinds); every other event is worded in Chinese.
            let (Some(log_en), Some(log_zh)) = (e.step_info(step), e.step_info_in(step, Lang::Zh)) else {
                return Err(format!("{name}: step {step} has no event log line"));
            };
            ensure!(
                cjk(&log_zh.text) == (log_en.event != "deliver"),
                "{name}: step {step}: log line {:?}",
                log_zh.text
            );
        }
    }
    Ok(())
}

/// The first `{name}` (a catalog argument's name, perhaps with its nouns) left in a text.
pub fn unfilled(text: &str) -> Option<&str> {
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

#[cfg(test)]
mod tests {
    use super::unfilled;

    #[test]
    fn an_unfilled_argument_is_found() {
        assert_eq!(unfilled("N3 hears {from}'s heartbeat"), Some("from"));
        assert_eq!(unfilled("{count:node:nodes} vote"), Some("count:node:nodes"));
        assert_eq!(unfilled("partition {1, 2} / {3}, the live set {N3}"), None);
        assert_eq!(unfilled("N3 hears N2's heartbeat"), None);
    }
}
