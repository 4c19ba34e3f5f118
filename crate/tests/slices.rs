//! A run computed in slices (`Engine::advance_some`, `Engine::seek_some`: what the page does for
//! a scripted algorithm, between frames) is the run computed at once: the cursor stays put
//! until the step asked for is ready, and every step reached, the head and the trace hash are
//! the same as with `Engine::seek`, with faults made in between too.
#![cfg(feature = "script")]

mod common;

use election_lab::protocols::script;
use election_lab::{presets, Action, Engine};

const BULLY: &str = include_str!("../scripts/bully.rhai");
const RAFT: &str = include_str!("../scripts/raft.rhai");

/// What a cursor shows, compared between the two ways of getting there.
fn at(e: &Engine) -> (u64, u64, u64, Vec<u32>, String) {
    (e.cursor(), e.now(), e.trace_hash(), e.leaders(), e.summary().to_string())
}

fn scenarios() -> Vec<(&'static str, election_lab::Scenario)> {
    let bully = script::load(BULLY).unwrap();
    let raft = script::load(RAFT).unwrap();
    let mut out = Vec::new();
    for (preset, id) in [("bully-worst-8", Some(bully.id)), ("bully-worst-8", None), ("raft-cold", Some(raft.id))] {
        let mut s = presets::find(preset).unwrap_or_else(|| panic!("{preset}")).scenario();
        if let Some(id) = id {
            s.algorithm = id.to_string();
        }
        out.push((preset, s));
    }
    out
}

/// Slices `advance_some` until done, checking that the cursor never moves; returns the slices.
fn advance(e: &mut Engine, target: u64, budget: u64) -> u32 {
    let cursor = at(e);
    let mut slices = 0;
    while !e.advance_some(target, budget) {
        slices += 1;
        assert_eq!(at(e), cursor, "computing ahead moved the cursor");
        assert!(slices < 100_000, "no end");
    }
    assert_eq!(at(e), cursor, "computing ahead moved the cursor");
    slices
}

fn seek(e: &mut Engine, target: u64, budget: u64) {
    let cursor = at(e);
    let mut slices = 0;
    while !e.seek_some(target, budget) {
        slices += 1;
        assert_eq!(at(e), cursor, "the cursor moved before its step was ready");
        assert!(slices < 100_000, "no end");
    }
}

#[test]
fn a_run_computed_in_slices_is_the_run_computed_at_once() {
    for (preset, scenario) in scenarios() {
        let mut whole = Engine::new(scenario.clone()).unwrap();
        whole.run_to_end();
        let (head, hash) = (whole.head(), whole.trace_hash());
        assert!(head > 40, "{preset}: a run long enough to slice ({head} steps)");
        for budget in [1, 3, 64] {
            let mut e = Engine::new(scenario.clone()).unwrap();
            let slices = advance(&mut e, u64::MAX, budget);
            assert!(slices as u64 >= head / budget, "{preset}: {slices} slices of {budget}");
            assert_eq!((e.cursor(), e.head()), (0, head), "{preset}: the whole run computed, the cursor at 0");
            // Back and forth, each step reached in slices equals the step reached at once.
            for target in [head, 7, head / 2, 1, head - 3, 0, head / 3 + 5] {
                seek(&mut e, target, budget);
                whole.seek(target);
                assert_eq!(at(&e), at(&whole), "{preset}: step {target}, slices of {budget}");
            }
            seek(&mut e, head, budget);
            assert_eq!(e.trace_hash(), hash, "{preset}");
        }
    }
}

#[test]
fn a_fault_made_while_the_run_is_computed_ahead_is_kept() {
    for (preset, scenario) in scenarios() {
        let mut e = Engine::new(scenario.clone()).unwrap();
        let mut whole = Engine::new(scenario).unwrap();
        advance(&mut e, 30, 4);
        seek(&mut e, 12, 4);
        // The work slot (past the cursor) is a future the crash discards.
        e.apply(Action::Crash(1)).unwrap();
        advance(&mut e, u64::MAX, 5);
        seek(&mut e, 20, 2);
        whole.seek(30);
        whole.seek(12);
        whole.apply(Action::Crash(1)).unwrap();
        whole.run_to_end();
        whole.seek(20);
        assert_eq!(at(&e), at(&whole), "{preset}");
        assert_eq!(e.head(), whole.head(), "{preset}");
        let head = e.head();
        seek(&mut e, head, 7);
        whole.seek(whole.head());
        assert_eq!(at(&e), at(&whole), "{preset}");
    }
}

#[test]
fn a_scripted_run_keeps_denser_checkpoints() {
    let (_, scripted) = &scenarios()[0];
    let (_, builtin) = &scenarios()[1];
    let count = |s: &election_lab::Scenario| {
        let mut e = Engine::new(s.clone()).unwrap();
        e.run_to_end();
        (e.head(), e.checkpoint_count())
    };
    let ((h1, c1), (h2, c2)) = (count(scripted), count(builtin));
    assert_eq!(h1, h2, "the template's run is the built-in's");
    // One every 32 steps (or world size), against one every 256, plus the first.
    assert!(c1 as u64 >= h1 / 64 && c1 > c2, "scripted {c1} checkpoints, built-in {c2}, over {h1} steps");
}

/// Faults made on a run, as the page carries them to a script's run (by time) or a link (by
/// step): a crash early, a partition and a crash late, a recovery.
fn faulted(scenario: &election_lab::Scenario) -> Engine {
    let mut e = Engine::new(scenario.clone()).unwrap();
    e.seek(5);
    e.apply(Action::Crash(1)).unwrap();
    e.run_to_end();
    let late = e.head() * 3 / 4;
    e.seek(late);
    let last = *scenario.nodes.last().unwrap();
    e.apply(Action::Crash(last)).unwrap();
    e.seek(late + 6);
    e.apply(Action::Recover(1)).unwrap();
    e
}

/// Slices `replay_some` until done, with `budget` steps each; returns the slices.
fn replay(e: &mut Engine, job: &mut election_lab::engine::Replay, budget: u64) -> u64 {
    let mut slices = 0;
    while !e.replay_some(job, budget).unwrap() {
        slices += 1;
        assert!(!job.done() && slices < 100_000, "no end");
    }
    assert!(job.done());
    slices
}

#[test]
fn faults_replayed_by_time_in_slices_give_the_run_replayed_at_once() {
    for (preset, scenario) in scenarios() {
        let faults = faulted(&scenario).interventions().to_vec();
        assert_eq!(faults.len(), 3, "{preset}");
        let mut whole = Engine::new(scenario.clone()).unwrap();
        whole.replay_by_time(&faults).unwrap();
        let mut many = 0;
        for budget in [1, 3, 64] {
            let mut e = Engine::new(scenario.clone()).unwrap();
            let slices = replay(&mut e, &mut election_lab::engine::Replay::by_time(&faults), budget);
            many = many.max(slices);
            assert_eq!(at(&e), at(&whole), "{preset}: slices of {budget}");
            assert_eq!(e.interventions(), whole.interventions(), "{preset}: slices of {budget}");
            e.run_to_end();
            let mut w = Engine::new(scenario.clone()).unwrap();
            w.replay_by_time(&faults).unwrap();
            w.run_to_end();
            assert_eq!((at(&e), e.head()), (at(&w), w.head()), "{preset}: slices of {budget}, to the end");
        }
        assert!(many > whole.cursor() / 2, "{preset}: {many} slices of one step to {}", whole.cursor());
    }
}

#[test]
fn a_trace_replayed_in_slices_opens_at_the_step_the_trace_opens_at() {
    for (preset, scenario) in scenarios() {
        let source = faulted(&scenario);
        let head = source.head();
        for step in [None, Some(3), Some(head - 2), Some(head + 50)] {
            let mut value = source.trace_value();
            match step {
                Some(s) => value["step"] = s.into(),
                None => drop(value.as_object_mut().unwrap().remove("step")),
            }
            let trace = election_lab::trace::Trace::from_value(&value).unwrap();
            let whole = Engine::from_trace(trace.clone()).unwrap();
            for budget in [1, 3, 64] {
                let (mut e, mut job) = Engine::from_trace_later(trace.clone()).unwrap();
                assert!(e.interventions().is_empty() && e.cursor() == 0, "nothing done before the slices");
                replay(&mut e, &mut job, budget);
                assert_eq!(at(&e), at(&whole), "{preset}: step {step:?}, slices of {budget}");
                assert_eq!(e.interventions(), whole.interventions(), "{preset}");
            }
        }
        // An intervention past the run's end is named, in slices as at once.
        let mut value = source.trace_value();
        value["interventions"][2]["step"] = (head + 500).into();
        let trace = election_lab::trace::Trace::from_value(&value).unwrap();
        let at_once = Engine::from_trace(trace.clone()).unwrap_err().to_string();
        let (mut e, mut job) = Engine::from_trace_later(trace).unwrap();
        let sliced = loop {
            match e.replay_some(&mut job, 4) {
                Ok(true) => panic!("{preset}: replayed past the end"),
                Ok(false) => {}
                Err(err) => break err.to_string(),
            }
        };
        assert_eq!(sliced, at_once, "{preset}");
        assert!(sliced.contains("interventions[2].step"), "{sliced}");
    }
}

/// The JSON Lines `run --trace` writes of `e`'s run up to its cursor.
fn jsonl(e: &mut Engine) -> String {
    common::jsonl::text(&common::jsonl::lines(e))
}

/// Slices a JSON Lines trace's job until done or failed, `budget` steps each.
fn replay_jsonl(text: &str, then: Option<u64>, budget: u64) -> Result<(Engine, u64), String> {
    let (mut e, job) = Engine::from_jsonl_later(text).map_err(|e| e.to_string())?;
    let mut job = job.then_seek(then);
    assert!(e.interventions().is_empty() && e.cursor() == 0, "nothing done before the slices");
    let mut slices = 0;
    while !e.replay_some(&mut job, budget).map_err(|e| e.to_string())? {
        slices += 1;
        assert!(slices < 1_000_000, "no end");
    }
    Ok((e, slices))
}

#[test]
fn a_jsonl_trace_read_in_slices_is_the_trace_read_at_once() {
    for (preset, scenario) in scenarios() {
        let mut source = faulted(&scenario);
        let head = source.head();
        source.seek(head - 4);
        let text = jsonl(&mut source);
        let whole = Engine::from_jsonl(&text).unwrap();
        assert_eq!(at(&whole), at(&source), "{preset}: read at once");
        let mut many = 0;
        for budget in [1, 3, 64] {
            let (e, slices) = replay_jsonl(&text, None, budget).unwrap();
            many = many.max(slices);
            assert_eq!(at(&e), at(&whole), "{preset}: slices of {budget}");
            assert_eq!(e.interventions(), whole.interventions(), "{preset}");
            // A link's step, after the lines are checked: where seeking the run read at once goes.
            for step in [5, head - 1, head + 40] {
                let (e, _) = replay_jsonl(&text, Some(step), budget).unwrap();
                let mut w = Engine::from_jsonl(&text).unwrap();
                w.seek(step);
                assert_eq!(at(&e), at(&w), "{preset}: step {step}, slices of {budget}");
            }
        }
        // The re-run and the check of every line are the slices' work, not only the faults.
        assert!(many > head, "{preset}: {many} slices of one step over {head} steps");
        // A file cut short is read as at once; a damaged line, a line too many and a bad
        // intervention in the header are named as at once.
        let lines: Vec<&str> = text.lines().collect();
        let cut = lines[..lines.len() / 2].join("\n");
        let damaged = text.replacen("\"step\":7,", "\"step\":8,", 1);
        assert_ne!(damaged, text, "{preset}");
        let extra = format!("{text}{}\n", lines[lines.len() - 1]);
        let mut header: serde_json::Value = serde_json::from_str(lines[0]).unwrap();
        header["interventions"][2]["step"] = (head + 500).into();
        let bad_header = format!("{header}\n{}", lines[1..].join("\n"));
        for (what, text) in [("cut", cut), ("damaged", damaged), ("extra", extra), ("header", bad_header)] {
            let once = Engine::from_jsonl(&text).map(|e| at(&e)).map_err(|e| e.to_string());
            if what != "cut" {
                assert!(once.is_err(), "{preset}: {what}");
            }
            for budget in [1, 3, 64] {
                let sliced = replay_jsonl(&text, None, budget).map(|(e, _)| at(&e));
                assert_eq!(sliced, once, "{preset}: {what}, slices of {budget}");
            }
        }
    }
}

/// A fault made while a trace's run is being rebuilt in slices (a fork's lane, a compare lane)
/// lands at its own time however far the rebuilding got: where the run rebuilt at once, taken
/// to that time, takes it (the same step, hash, summary and interventions, and the same run on
/// to its end), even once the rebuilding is past that time.
#[test]
fn a_fault_made_mid_rebuild_lands_at_its_own_time() {
    for (preset, scenario) in scenarios() {
        let source = faulted(&scenario);
        let trace = election_lab::trace::Trace::from_value(&source.trace_value()).unwrap();
        // Between the early crash and the late faults; and before any fault.
        for time in [source.record(12).unwrap().time, source.record(3).unwrap().time] {
            let mut whole = Engine::from_trace(trace.clone()).unwrap();
            whole.seek_time(time);
            whole.apply_at(Action::Crash(2), time).unwrap();
            let mut past = false;
            for budget in [1, 3, 64] {
                for made_after in [0, 4, 40, u32::MAX] {
                    let (mut e, mut job) = Engine::from_trace_later(trace.clone()).unwrap();
                    let mut slices = 0;
                    while slices < made_after && !e.replay_some(&mut job, budget).unwrap() {
                        slices += 1;
                    }
                    past |= e.now() > time;
                    job.and_at(time, Action::Crash(2));
                    replay(&mut e, &mut job, budget);
                    let what = format!("{preset}: t={time}, made after {slices} slices of {budget}");
                    assert_eq!(at(&e), at(&whole), "{what}");
                    assert_eq!(e.interventions(), whole.interventions(), "{what}");
                    e.run_to_end();
                    let mut w = Engine::from_trace(trace.clone()).unwrap();
                    w.seek_time(time);
                    w.apply_at(Action::Crash(2), time).unwrap();
                    w.run_to_end();
                    assert_eq!((at(&e), e.head()), (at(&w), w.head()), "{what}, to the end");
                }
            }
            assert!(past, "{preset}: the fault was made once the rebuilding had passed t={time}");
        }
    }
}
