//! What the page can draw and keep: a scenario of more nodes than [`MAX_NODES`] is refused
//! with a message (the command line runs it), and every run the page holds keeps at most
//! [`BUDGET`] of history, so that nothing the page accepts makes it stop answering.

use election_lab::meta::{k, Lang};
use election_lab::sim::Budget;
use election_lab::Engine;

/// The most nodes the page draws (four times the 64 its controls offer; the engine takes up
/// to 5 000, the command line runs them).
pub const MAX_NODES: usize = 256;

/// The history a run in the page keeps: a run that would record more stops there and says so
/// ([`Budget::TAB`], about 100 MB, against the engine's native default of several hundred).
pub const BUDGET: Budget = Budget::TAB;

/// Keeps `e` within the page's budget: a smaller one already set (a test's, say) stays.
pub fn cap(e: &mut Engine) {
    let b = e.budget();
    e.set_budget(Budget { steps: b.steps.min(BUDGET.steps), messages: b.messages.min(BUDGET.messages) });
}

/// Why the page will not draw `scenario_nodes` nodes, in `lang`; None if it will.
pub fn refusal(nodes: usize, lang: Lang) -> Option<String> {
    (nodes > MAX_NODES).then(|| k::UI_SCENARIO_TOO_LARGE_TO_DRAW.format(lang, &[&nodes, &MAX_NODES]))
}

/// The engine as the page keeps it (its budget set), or why the page refuses it.
pub fn admit(mut e: Engine, lang: Lang) -> Result<Engine, String> {
    if let Some(why) = refusal(e.scenario().nodes.len(), lang) {
        return Err(why);
    }
    cap(&mut e);
    Ok(e)
}

#[cfg(test)]
mod tests {
    use super::*;
    use election_lab::Scenario;
    use serde_json::json;

    fn of(n: u32) -> Engine {
        let nodes: Vec<u32> = (1..=n).collect();
        Engine::new(Scenario::from_value(&json!({"algorithm": "bully", "nodes": nodes, "seed": 1})).unwrap()).unwrap()
    }

    #[test]
    fn more_nodes_than_the_page_draws_are_refused_in_both_languages() {
        assert!(admit(of(MAX_NODES as u32), Lang::En).is_ok());
        let en = admit(of(MAX_NODES as u32 + 1), Lang::En).unwrap_err();
        assert!(en.contains(&format!("{}", MAX_NODES + 1)) && en.contains(&MAX_NODES.to_string()), "{en}");
        let zh = refusal(5000, Lang::Zh).unwrap();
        assert_ne!(zh, refusal(5000, Lang::En).unwrap());
        assert!(zh.contains("5000"), "{zh}");
    }
}

#[cfg(test)]
mod import_tests {
    use crate::state::{Action, State};
    use election_lab::Scenario;
    use serde_json::json;
    use std::rc::Rc;
    use yew::Reducible;

    #[test]
    fn a_5000_node_import_is_refused_and_the_run_shown_stays() {
        let s = Rc::new(State::open(""));
        let before = (s.scenario.clone(), s.cursor());
        let nodes: Vec<u32> = (1..=5000).collect();
        let big = Scenario::from_value(&json!({"algorithm": "bully", "nodes": nodes, "seed": 1})).unwrap();
        let s = s.reduce(Action::Import(big.to_json()));
        let alert = s.messages.alert.as_deref().expect("a message");
        assert!(alert.contains("5000 nodes") && alert.contains("at most 256"), "{alert}");
        assert_eq!((s.scenario.clone(), s.cursor()), before, "nothing changed");
        // The page goes on as before.
        let s = s.reduce(Action::StepForward);
        assert_eq!(s.cursor(), before.1 + 1);
    }
}
