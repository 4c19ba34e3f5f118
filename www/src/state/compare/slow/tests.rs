//! A slow script's lanes (compare mode, a fork) computed in slices end as computed at once: the
//! same step, trace hash and summary at the shared time, whatever the steps per slice, with the
//! other lanes usable and faults made meanwhile.

use super::super::{Compare, Role};
use crate::state::slices::ONE_CALL;
use crate::state::slices_tests::{at, builtin, slow_bully};
use crate::state::{Action, State};
use election_lab::{presets, registry, Action as Intervention, Engine, Scenario, Time};

/// The slow Bully loaded under `id`, and the scenario its lanes share with the built-in.
fn slow(id: &str) -> (&'static election_lab::Algorithm, Scenario) {
    crate::state::script::from_source(&slow_bully(id)).unwrap();
    (registry::find(id).unwrap(), presets::find("bully-worst-8").unwrap().scenario())
}

/// A lane's run computed at once: its scenario, the faults put on by time, at `time`.
fn at_once(scenario: &Scenario, alg: &str, faults: &[(Time, Intervention)], time: Time) -> Engine {
    let mut e = Engine::new(super::super::lane_scenario(scenario, registry::find(alg).unwrap())).unwrap();
    for (t, a) in faults {
        e.run_until(*t);
        e.apply_at(a.clone(), *t).unwrap();
    }
    e.seek_time(time);
    e
}

/// Each lane as computed at once, at the shared time.
fn check(c: &Compare, scenario: &Scenario, what: &str) {
    let faults = c.faults();
    for lane in &c.lanes {
        assert!(!lane.computing(), "{what}");
        let once = at_once(scenario, lane.algorithm.id, &faults, c.time);
        assert_eq!(at(&lane.engine.get()), at(&once), "{what}: {} at t={}", lane.algorithm.id, c.time);
    }
}

#[test]
fn a_slow_lane_computed_in_slices_of_1_3_and_64_steps_is_the_lane_computed_at_once() {
    let (alg, scenario) = slow("bully-slow-lanes");
    let bully = registry::find(&builtin()).unwrap();
    let top = *scenario.nodes.iter().max().unwrap();
    let faults = vec![(3, Intervention::Crash(1)), (40, Intervention::Crash(top))];
    for budget in [1, 3, 64] {
        let mut c = Compare::build(&scenario, &[alg, bully], &faults, 60).unwrap();
        assert!(c.lanes[0].computing() && !c.lanes[1].computing(), "the slow lane only is left to the slices");
        assert_eq!(c.faults(), faults, "the faults, while the anchor's lane is computed");
        // A fault made while the slow lane computes is taken in turn, at its time.
        c.act(Intervention::Recover(top)).unwrap();
        assert_eq!(c.faults().len(), 3);
        let mut calls = 0;
        while !c.compute_some(budget).unwrap() {
            calls += 1;
            assert!(calls < 100_000, "no end");
        }
        assert!(calls > 8 / budget, "slices of {budget}: {calls} calls");
        check(&c, &scenario, &format!("built, slices of {budget}"));
        // The clock ahead: the slow lane follows in slices; back: at once.
        c.go_to(c.time + 300);
        assert!(c.computes(), "ahead is left to the slices");
        while !c.compute_some(budget).unwrap() {}
        check(&c, &scenario, &format!("ahead, slices of {budget}"));
        c.go_to(10);
        assert!(!c.computes(), "back is at once");
        check(&c, &scenario, &format!("back, slices of {budget}"));
    }
}

#[test]
fn compare_with_a_slow_lane_is_computed_in_slices_while_the_page_answers() {
    let (alg, scenario) = slow("bully-slow-page");
    let p = presets::find("bully-worst-8").unwrap();
    let mut s = State::new(Engine::new(p.scenario()).unwrap(), Some(p.id), false);
    s.apply(Action::Seek(12));
    s.apply(Action::Act(Intervention::Crash(2)));
    ONE_CALL.with(|o| o.set(true));
    assert!(s.apply(Action::Compare(vec![alg, registry::find(&builtin()).unwrap()])));
    let mut slices = 0;
    while s.computes() {
        let c = s.compare().expect("compare mode");
        assert!(c.lanes[0].computing(), "the slow lane says so");
        // The page answers: the language, and the clock (the other lane moves).
        let lang = s.lang;
        s.apply(Action::ToggleLang);
        assert_ne!(s.lang, lang);
        if slices == 3 {
            let before = s.compare().unwrap().lanes[1].engine.get().cursor();
            s.apply(Action::StepForward);
            assert!(s.compare().unwrap().lanes[1].engine.get().cursor() > before, "the built-in lane steps");
        }
        if s.apply(Action::Compute) {
            s.refresh();
        }
        slices += 1;
        assert!(slices < 100_000, "no end");
    }
    ONE_CALL.with(|o| o.set(false));
    assert!(slices > 4, "computed in {slices} slices");
    assert_eq!(s.messages.alert, None);
    let c = s.compare().unwrap();
    assert_eq!(c.faults().len(), 1);
    check(c, &scenario, "the page's lanes");
}

#[test]
fn a_fork_of_a_slow_scripts_run_is_rebuilt_in_slices_as_at_once() {
    let (alg, scenario) = slow("bully-slow-fork");
    let mut scenario = scenario;
    scenario.algorithm = alg.id.into();
    let mut s = State::new(Engine::new(scenario).unwrap(), None, false);
    s.settle();
    for a in [Action::Seek(40), Action::Seek(14), Action::NodeClick(3)] {
        s.apply(a);
        s.settle();
        s.refresh();
    }
    assert!(s.offer.is_some(), "an offer to fork");
    let time = s.frame.time;
    let old = s.offer.as_ref().unwrap().to_value()["old"].clone();
    let now = s.engine.get().trace_value();
    ONE_CALL.with(|o| o.set(true));
    assert!(s.apply(Action::Fork));
    let mut slices = 0;
    while s.computes() {
        assert!(s.compare().unwrap().lanes.iter().any(|l| l.computing()), "a lane says so");
        s.apply(Action::ToggleLang);
        if s.apply(Action::Compute) {
            s.refresh();
        }
        slices += 1;
        assert!(slices < 100_000, "no end");
    }
    ONE_CALL.with(|o| o.set(false));
    assert!(slices > 4, "rebuilt in {slices} slices");
    let c = s.compare().unwrap();
    let mut once = Compare::of_runs(
        [
            (Role::OldFuture, Engine::from_trace_value(&old).unwrap()),
            (Role::NewFuture, Engine::from_trace_value(&now).unwrap()),
        ],
        1,
        time,
    )
    .unwrap();
    // (Its script's lanes too go to the time in slices: all of them at once here.)
    while !once.compute_some(u64::MAX).unwrap() {}
    assert_eq!(c.time, once.time);
    for (lane, want) in c.lanes.iter().zip(&once.lanes) {
        assert_eq!(at(&lane.engine.get()), at(&want.engine.get()), "{:?}", c.runs.as_ref().map(|r| r.roles));
        assert_eq!(lane.engine.get().interventions(), want.engine.get().interventions());
    }
    assert_eq!(c.runs.as_ref().unwrap().first, once.runs.as_ref().unwrap().first, "the same divergence");
    // The clock on to the end: the lanes follow in slices, and the crash is where they part.
    s.apply(Action::End);
    s.settle();
    let c = s.compare().unwrap();
    assert!(c.runs.as_ref().unwrap().first.is_some(), "{:?}", c.runs);
}

#[test]
fn closing_the_lanes_while_a_slow_run_is_rebuilt_goes_on_rebuilding_it_in_slices() {
    let (alg, mut scenario) = slow("bully-slow-close");
    scenario.algorithm = alg.id.into();
    let mut s = State::new(Engine::new(scenario).unwrap(), None, false);
    for a in [Action::Seek(40), Action::Seek(14), Action::NodeClick(3)] {
        s.apply(a);
        s.settle();
        s.refresh();
    }
    let now = s.engine.get().trace_value();
    assert!(s.apply(Action::Fork));
    assert!(s.computes());
    s.apply(Action::CloseCompare);
    assert!(s.compare().is_none());
    s.settle();
    // The run kept: the new future, with its crash, at its step.
    let once = Engine::from_trace_value(&now).unwrap();
    assert_eq!(at(&s.engine.get()), at(&once));
    assert_eq!(s.engine.get().interventions(), once.interventions());
}

/// A fault made while a fork's lanes are still being rebuilt lands at its own time in each
/// lane, however far its rebuilding got (one already past that time goes back to it): the
/// lanes end as the fork computed at once with the same fault made at the same time.
#[test]
fn a_fault_made_while_a_fork_is_rebuilt_lands_at_its_time_as_at_once() {
    let (alg, mut scenario) = slow("bully-slow-fork-fault");
    scenario.algorithm = alg.id.into();
    let fork = || {
        let mut s = State::new(Engine::new(scenario.clone()).unwrap(), None, false);
        for a in [Action::Seek(40), Action::Seek(14), Action::NodeClick(3)] {
            s.apply(a);
            s.settle();
            s.refresh();
        }
        let old = s.offer.as_ref().unwrap().to_value()["old"].clone();
        let runs = [(Role::OldFuture, old), (Role::NewFuture, s.engine.get().trace_value())];
        let time = s.frame.time;
        (s, runs, time)
    };
    let (_, runs, fork_time) = fork();
    let early = Engine::from_trace_value(&runs[1].1).unwrap().record(6).unwrap().time;
    let mut past = false;
    for time in [fork_time, early] {
        let mut once =
            Compare::of_runs(runs.clone().map(|(r, v)| (r, Engine::from_trace_value(&v).unwrap())), 1, fork_time)
                .unwrap();
        while !once.compute_some(u64::MAX).unwrap() {}
        once.go_to(time);
        once.act(Intervention::Crash(5)).unwrap();
        while !once.compute_some(u64::MAX).unwrap() {}
        for budget in [1, 3, 64] {
            // Made before any slice, and a few and many steps into the rebuilding (one slice of
            // 64 steps rebuilds these short runs).
            for made_after in [0, 8 / budget, 24 / budget] {
                let (mut s, _, _) = fork();
                assert!(s.apply(Action::Fork));
                let c = s.lanes_mut().unwrap();
                let mut slices = 0;
                while slices < made_after && !c.compute_some(budget).unwrap() {
                    slices += 1;
                }
                assert!(c.computes(), "made mid-rebuild (slices of {budget})");
                past |= c.lanes.iter().any(|l| {
                    l.job.as_ref().and_then(|j| j.fresh.borrow().as_ref().map(|e| e.now() > time)).unwrap_or(false)
                });
                c.go_to(time);
                c.act(Intervention::Crash(5)).unwrap();
                while !c.compute_some(budget).unwrap() {}
                let what = format!("t={time}, made after {slices} slices of {budget}");
                assert_eq!((c.time, c.faults()), (once.time, once.faults()), "{what}");
                for (lane, want) in c.lanes.iter().zip(&once.lanes) {
                    assert_eq!(at(&lane.engine.get()), at(&want.engine.get()), "{what}");
                    assert_eq!(lane.engine.get().interventions(), want.engine.get().interventions(), "{what}");
                }
            }
        }
    }
    assert!(past, "a fault was made once a lane's rebuilding had passed its time");
}
