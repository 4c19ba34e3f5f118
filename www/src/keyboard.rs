//! Keyboard shortcuts: which key means which action (pure), and the window listener that sends
//! them. Keys typed into form fields are left alone; node-level keys (Enter, M, S on a focused
//! node) are handled by the canvas and do not reach the window.

use crate::state::Action;
use wasm_bindgen::closure::Closure;
use wasm_bindgen::JsCast;
use web_sys::{Element, KeyboardEvent};
use yew::prelude::*;

/// The shortcuts, as the help dialog lists them: (keys, English, 中文).
pub const HELP: &[(&str, &str, &str)] = &[
    (
        "Space",
        "play / pause (wherever the focus is, except in text fields)",
        "播放 / 暂停（除文本框外，焦点在哪里都可以）",
    ),
    ("← / →", "step back / forward", "后退 / 前进一步"),
    ("Home / End", "first step / last computed step", "第一步 / 已计算的最后一步"),
    ("R", "reset (an embed goes back to its link's step)", "重置（嵌入页面回到链接给出的那一步）"),
    ("Ctrl+Z / Ctrl+Shift+Z", "undo / redo your last intervention", "撤销 / 重做上一次干预"),
    ("+ / −", "faster / slower", "加快 / 放慢"),
    ("Tab, Enter", "focus a node, crash or recover it", "聚焦节点，使其崩溃或恢复"),
    ("M or right-click", "node menu: start election, isolate", "节点菜单：发起选举、隔离"),
    ("S (on a node)", "start an election there", "在该节点发起选举"),
    (
        "P (on a node)",
        "choose it for one side of a partition; then “Cut them off” draws the line",
        "选入分区的一侧；然后用“把它们分隔出去”画出分区线",
    ),
    ("↑ / ↓, Enter, Esc (in a node menu)", "move, act, close", "移动、执行、关闭"),
    ("C", "remove all partition lines", "移除所有分区线"),
    ("V", "compare algorithms side by side (2 to 4 lanes)", "并排对比算法（2 到 4 个通道）"),
    ("X", "experiments: many runs over random seeds, plotted", "实验：用许多随机种子运行并绘图"),
    ("L", "switch language (English / 中文)", "切换语言（English / 中文）"),
    ("?", "this help", "本帮助"),
    ("Esc", "close menus and dialogs (and the experiments view)", "关闭菜单和对话框（以及实验视图）"),
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

fn in_form_field(e: &KeyboardEvent) -> bool {
    e.target()
        .and_then(|t| t.dyn_into::<Element>().ok())
        .is_some_and(|t| matches!(t.tag_name().to_ascii_lowercase().as_str(), "input" | "textarea" | "select"))
}

/// Listens for shortcuts on the window while the component is mounted.
#[hook]
pub fn use_shortcuts(embed: bool, on: Callback<Action>) {
    use_effect_with(embed, move |&embed| {
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
        assert_eq!(action_for("q", false), None);
        assert_eq!(action_for("x", false), Some(Action::ToggleExperiments));
        assert_eq!(action_for("X", true), None, "an embed has no experiments view");
        assert_eq!(action_for("v", false), Some(Action::TogglePicker));
        assert_eq!(action_for("V", true), None, "an embed has no picker");
        assert_eq!(ctrl_action_for("z", false), Some(Action::Undo));
        assert_eq!(ctrl_action_for("Z", true), Some(Action::Redo));
    }
}
