//! Dropping a message by hand, driven through the reducer as a click on a dot sends it: the drop
//! is recorded like any intervention, the dot is drawn doomed, and its delivery becomes a drop.
#![cfg(not(target_arch = "wasm32"))]

use election_lab::Action as Intervention;
use election_lab_www::state::{Action, State};
use std::rc::Rc;
use yew::Reducible;

#[test]
fn a_clicked_dot_is_dropped_and_recorded() {
    let s = Rc::new(State::open("?preset=ring-worst&step=3"));
    let m = s.frame.messages.iter().find(|m| !m.doomed).expect("a message in flight at step 3").clone();
    let s = s.reduce(Action::Act(Intervention::Drop(m.id)));
    assert_eq!(s.messages.alert, None);
    assert_eq!(s.cursor(), 3, "a drop does not move the cursor");
    let iv = s.interventions.last().expect("recorded");
    assert_eq!((iv.step, &iv.action), (3, &Intervention::Drop(m.id)));
    assert!(s.frame.messages.iter().any(|x| x.id == m.id && x.doomed), "still in flight, doomed");
    assert!(s.markers.iter().any(|k| k.step == 3 && k.title == format!("you: drop message #{}", m.id)));
    // The link carries it.
    assert!(s.query(false).starts_with("?t=1."));

    // Stepping to its delivery time: the step that would have delivered it is a manual drop.
    let mut s = s;
    while s.frame.messages.iter().any(|x| x.id == m.id) {
        s = s.reduce(Action::StepForward);
    }
    let info = s.engine.get().step_info(s.cursor()).unwrap();
    assert_eq!(info.event, "drop", "{}", info.text);
    assert!(info.text.contains("dropped (manual)"), "{}", info.text);
}

#[test]
fn dropping_a_message_no_longer_in_flight_alerts_and_records_nothing() {
    let s = Rc::new(State::open("?preset=ring-worst&step=3"));
    let before = s.interventions.len();
    let s = s.reduce(Action::Act(Intervention::Drop(999_999)));
    assert!(s.messages.alert.as_deref().unwrap().contains("not in flight"), "{:?}", s.messages.alert);
    assert_eq!(s.interventions.len(), before);
}
