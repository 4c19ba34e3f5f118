//! Forking at a past step and comparing an imported trace, driven natively by actions.

use super::super::compare::{Diverged, Role};
use super::super::{Action, State};
use super::OfferKind;
use election_lab::diff;
use election_lab::{Action as Intervention, Engine};
use std::rc::Rc;

use crate::state::tests::run;

/// The default preset shown to step 60, then back to step 20, where N5 is crashed.
fn crashed_in_the_past() -> Rc<State> {
    let s = Rc::new(State::open(""));
    run(s, [Action::Seek(60), Action::Seek(20), Action::NodeClick(5)])
}

#[test]
fn acting_before_the_furthest_step_shown_keeps_the_old_future() {
    let s = crashed_in_the_past();
    let offer = s.offer.as_ref().expect("an offer to fork");
    assert_eq!(offer.kind, OfferKind::Fork { at: 20, seen: 60 });
    // The action happened as before: the run shown is the new future.
    assert_eq!(s.interventions.len(), 1);
    assert_eq!(s.cursor(), 20);
    // Acting again at the present (nothing shown past it since) discards no seen future.
    let s = run(s, [Action::StepForward, Action::NodeClick(12)]);
    assert!(s.offer.is_none(), "{:?} {:?} at {}", s.offer, s.messages.alert, s.cursor());
    // Nor does acting at the furthest step of a fresh run.
    let s = run(Rc::new(State::open("")), [Action::Seek(30), Action::NodeClick(5)]);
    assert!(s.offer.is_none());
}

#[test]
fn fork_shows_both_futures_with_the_engines_first_divergence() {
    let s = run(crashed_in_the_past(), [Action::Fork]);
    let c = s.compare().expect("two lanes");
    let runs = c.runs.as_ref().expect("two runs");
    assert_eq!(runs.roles, [Role::OldFuture, Role::NewFuture]);
    assert_eq!(c.lanes.len(), 2);
    assert_eq!(c.lanes[0].engine.get().interventions().len(), 0);
    assert_eq!(c.lanes[1].engine.get().interventions().len(), 1);
    assert_eq!(c.time, s.lanes_time());
    // The engine's diff of the two futures, built here on their own, over the same stretch.
    let scenario = c.scenario.as_ref().clone();
    let old = Engine::new(scenario.clone()).unwrap();
    let mut new = Engine::new(scenario).unwrap();
    new.seek(20);
    let crash_time = new.now();
    new.apply(Intervention::Crash(5)).unwrap();
    let (mut old, mut new) = (old, new);
    for e in [&mut old, &mut new] {
        e.run_until(runs.horizon);
    }
    let want = diff::diff(&old, &new).first.expect("a crash changes the run");
    let got: &Diverged = runs.first.as_ref().expect("marked");
    assert_eq!((got.time, got.steps), (want.time, [want.step_a, want.step_b]));
    // The crash itself is the first difference: at its own time and step in the new future.
    assert_eq!((got.time, got.steps[1]), (crash_time, 20), "{got:?}");
    assert_eq!(got.cause, diff::Cause::Fault { in_a: false, action: Intervention::Crash(5) });
    assert!(got.steps[0] > 20, "no difference before the fork: {got:?}");
    // Marked on the shared timeline at that time.
    assert!(c.markers.iter().any(|m| m.class == "diverge" && m.step == got.time));
    // The link opens the run kept (one algorithm), not a compare of one algorithm with itself.
    assert!(!s.query(false).contains("compare="), "{}", s.query(false));
    // Closing keeps the new future.
    let s = run(s, [Action::CloseCompare]);
    assert!(s.compare().is_none());
    assert_eq!(s.interventions.len(), 1);
}

#[test]
fn undo_in_the_fork_closes_the_lanes_and_takes_back_the_action() {
    let s = run(crashed_in_the_past(), [Action::Fork, Action::Undo]);
    assert!(s.compare().is_none());
    assert!(s.interventions.is_empty());
}

#[test]
fn an_imported_trace_of_the_same_nodes_can_be_compared_with_the_run_shown() {
    let s = run(Rc::new(State::open("")), [Action::Seek(40)]);
    // The same scenario with N5 crashed at step 10.
    let mut other = Engine::new(s.scenario.as_ref().clone()).unwrap();
    other.seek(10);
    other.apply(Intervention::Crash(5)).unwrap();
    let text = other.trace_value().to_string();
    let s = run(s, [Action::Import(text)]);
    assert_eq!(s.offer.as_ref().map(|o| o.kind), Some(OfferKind::Import));
    let s = run(s, [Action::Fork]);
    let c = s.compare().expect("two lanes");
    let runs = c.runs.as_ref().unwrap();
    assert_eq!(runs.roles, [Role::Current, Role::Imported]);
    assert_eq!(c.lanes[1].engine.get().interventions().len(), 1);
    // The crash is the first difference, marked at its own step.
    let d = runs.first.as_ref().expect("a difference");
    assert_eq!(d.steps[1], 10, "{d:?}");
    assert_eq!(d.cause, diff::Cause::Fault { in_a: false, action: Intervention::Crash(5) });
    // A scenario of other nodes is imported without an offer.
    let s = run(s, [Action::CloseCompare]);
    let mut fewer = s.scenario.as_ref().clone();
    fewer.nodes.remove(0);
    let s = run(s, [Action::Import(fewer.to_json())]);
    assert!(s.messages.alert.is_none(), "{:?}", s.messages.alert);
    assert!(s.offer.is_none());
}

#[test]
fn a_discarded_offer_is_gone() {
    let s = run(crashed_in_the_past(), [Action::DismissOffer]);
    assert!(s.offer.is_none());
    let s = run(s, [Action::Fork]);
    assert!(s.compare().is_none());
}

impl State {
    fn lanes_time(&self) -> u64 {
        self.frame.time
    }
}
