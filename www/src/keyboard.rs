//! Keyboard shortcuts: which key means which action (pure), and the window listener that sends
//! them. Keys typed into form fields are left alone; node-level keys (Enter, M, S on a focused
//! node) are handled by the canvas and do not reach the window.

use crate::state::Action;
use wasm_bindgen::closure::Closure;
use wasm_bindgen::JsCast;
use web_sys::{Element, KeyboardEvent};
use yew::prelude::*;

/// The shortcuts, as the help dialog lists them.
pub const HELP: &[(&str, &str)] = &[
    ("Space", "play / pause"),
    ("← / →", "step back / forward"),
    ("Home / End", "first step / last computed step"),
    ("R", "reset (drop your interventions)"),
    ("+ / −", "faster / slower"),
    ("Tab, Enter", "focus a node, crash or recover it"),
    ("M or right-click", "node menu: start election, isolate"),
    ("S (on a node)", "start an election there"),
    ("C", "remove all partition lines"),
    ("?", "this help"),
    ("Esc", "close menus and dialogs"),
];

/// The action for a key pressed on the page (`embed`: the compact view, which has no lines).
pub fn action_for(key: &str, embed: bool) -> Option<Action> {
    Some(match key {
        " " => Action::TogglePlay,
        "ArrowRight" => Action::StepForward,
        "ArrowLeft" => Action::StepBack,
        "Home" => Action::Home,
        "End" => Action::End,
        "r" | "R" => Action::Reset,
        "?" => Action::ToggleHelp,
        "c" | "C" if !embed => Action::ClearLines,
        "+" | "=" => Action::Faster,
        "-" => Action::Slower,
        "Escape" => Action::Escape,
        _ => return None,
    })
}

fn in_form_field(e: &KeyboardEvent) -> bool {
    e.target().and_then(|t| t.dyn_into::<Element>().ok()).is_some_and(|t| matches!(t.tag_name().to_lowercase().as_str(), "input" | "textarea" | "select"))
}

/// Listens for shortcuts on the window while the component is mounted.
#[hook]
pub fn use_shortcuts(embed: bool, on: Callback<Action>) {
    use_effect_with(embed, move |&embed| {
        let listener = Closure::<dyn FnMut(KeyboardEvent)>::new(move |e: KeyboardEvent| {
            if e.ctrl_key() || e.meta_key() || e.alt_key() || in_form_field(&e) {
                return;
            }
            if let Some(action) = action_for(&e.key(), embed) {
                if action != Action::Escape {
                    e.prevent_default();
                }
                on.emit(action);
            }
        });
        let window = web_sys::window().expect("window");
        let _ = window.add_event_listener_with_callback("keydown", listener.as_ref().unchecked_ref());
        move || {
            let _ = window.remove_event_listener_with_callback("keydown", listener.as_ref().unchecked_ref());
        }
    });
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keys_map_to_actions() {
        assert_eq!(action_for(" ", false), Some(Action::TogglePlay));
        assert_eq!(action_for("ArrowLeft", false), Some(Action::StepBack));
        assert_eq!(action_for("c", false), Some(Action::ClearLines));
        assert_eq!(action_for("c", true), None, "the embed view has no lines to clear");
        assert_eq!(action_for("x", false), None);
    }
}
