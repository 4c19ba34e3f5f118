//! Keyboard shortcuts: which key means which action (pure), and the window listener that sends
//! them. Keys typed into form fields are left alone; node-level keys (Enter, M, S on a focused
//! node) are handled by the canvas and do not reach the window.

use crate::state::Action;
use election_lab::meta::{k, Text};
use wasm_bindgen::closure::Closure;
use wasm_bindgen::JsCast;
use web_sys::{Element, KeyboardEvent};
use yew::prelude::*;

/// The shortcuts, as the help dialog lists them: (keys, words after the keys, what they do).
pub const HELP: &[(&str, Option<Text>, Text)] = &[
    ("Space", None, k::UI_HELP_PLAY_PAUSE_WHEREVER_THE),
    ("← / →", None, k::UI_HELP_STEP_BACK_FORWARD),
    ("Home / End", None, k::UI_HELP_FIRST_STEP_LAST_COMPUTED),
    ("R", None, k::UI_HELP_RESET_AN_EMBED_GOES),
    ("Ctrl+Z / Ctrl+Shift+Z", None, k::UI_HELP_UNDO_REDO_YOUR_LAST),
    ("+ / −", None, k::UI_HELP_FASTER_SLOWER),
    ("Tab, Enter", None, k::UI_HELP_FOCUS_A_NODE_CRASH),
    ("M", Some(k::UI_HELP_OR_RIGHT_CLICK), k::UI_HELP_NODE_MENU_START_ELECTION),
    ("S", Some(k::UI_HELP_ON_A_NODE), k::UI_HELP_START_AN_ELECTION_THERE),
    ("P", Some(k::UI_HELP_ON_A_NODE), k::KEYBOARD_CHOOSE_IT_FOR_ONE_SIDE),
    ("↑ / ↓, Enter, Esc", Some(k::UI_HELP_IN_A_NODE_MENU), k::KEYBOARD_MOVE_ACT_CLOSE),
    ("C", None, k::UI_HELP_REMOVE_ALL_PARTITION_LINES),
    ("A, L, Delete, ← ↑ → ↓", Some(k::TOPO_HELP_KEYS_SHORT), k::TOPO_HELP_KEYS_WHAT),
    ("V", None, k::UI_HELP_COMPARE_ALGORITHMS_SIDE_BY),
    ("X", None, k::UI_HELP_EXPERIMENTS_MANY_RUNS_OVER),
    ("L", None, k::UI_HELP_SWITCH_LANGUAGE_ENGLISH),
    ("PageUp / PageDown", Some(k::UI_HELP_IN_THE_PRESENTER_VIEW), k::UI_HELP_STEP_BACK_FORWARD),
    ("N", Some(k::UI_HELP_IN_THE_PRESENTER_VIEW), k::UI_HELP_LECTURERS_NOTES),
    ("?", None, k::UI_HELP_THIS_HELP),
    ("Esc", None, k::UI_HELP_CLOSE_MENUS_AND_DIALOGS),
];

/// The action for Ctrl (or ⌘) + `key`: undo and redo.
pub fn ctrl_action_for(key: &str, shift: bool) -> Option<Action> {
    match (key, shift) {
        ("z" | "Z", false) => Some(Action::Undo),
        ("z" | "Z", true) | ("y" | "Y", false) => Some(Action::Redo),
        _ => None,
    }
}

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
        "l" | "L" => Action::ToggleLang,
        "v" | "V" if !embed => Action::TogglePicker,
        "x" | "X" if !embed => Action::ToggleExperiments,
        "Escape" => Action::Escape,
        _ => return None,
    })
}

/// In the presenter view, the keys a presenter's clicker sends (PageDown / PageUp) step too.
pub fn presenter_action_for(key: &str) -> Option<Action> {
    match key {
        "PageDown" => Some(Action::StepForward),
        "PageUp" => Some(Action::StepBack),
        _ => None,
    }
}

fn in_form_field(e: &KeyboardEvent) -> bool {
    e.target()
        .and_then(|t| t.dyn_into::<Element>().ok())
        .is_some_and(|t| matches!(t.tag_name().to_ascii_lowercase().as_str(), "input" | "textarea" | "select"))
}

/// Listens for shortcuts on the window while the component is mounted.
#[hook]
pub fn use_shortcuts(embed: bool, present: bool, on: Callback<Action>) {
    use_effect_with((embed, present), move |&(embed, present)| {
        let listener = Closure::<dyn FnMut(KeyboardEvent)>::new(move |e: KeyboardEvent| {
            if in_form_field(&e) || e.alt_key() {
                return;
            }
            if e.ctrl_key() || e.meta_key() {
                if let Some(action) = ctrl_action_for(&e.key(), e.shift_key()) {
                    e.prevent_default();
                    on.emit(action);
                }
                return;
            }
            let key = e.key();
            if present && matches!(key.as_str(), "n" | "N") {
                // Opened at once: the key press lets the page open a window.
                return crate::notes::open();
            }
            let action = action_for(&key, embed).or_else(|| presenter_action_for(&key).filter(|_| present));
            if let Some(action) = action {
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
        assert_eq!(action_for("q", false), None);
        assert_eq!(action_for("x", false), Some(Action::ToggleExperiments));
        assert_eq!(action_for("X", true), None, "an embed has no experiments view");
        assert_eq!(action_for("v", false), Some(Action::TogglePicker));
        assert_eq!(action_for("V", true), None, "an embed has no picker");
        assert_eq!(presenter_action_for("PageDown"), Some(Action::StepForward));
        assert_eq!(presenter_action_for("PageUp"), Some(Action::StepBack));
        assert_eq!(ctrl_action_for("z", false), Some(Action::Undo));
        assert_eq!(ctrl_action_for("Z", true), Some(Action::Redo));
    }
}
