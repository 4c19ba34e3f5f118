//! The embed's message API: a host page (lecture notes) drives an embedded lab with
//! `postMessage`, and hears where it is.
//!
//! In embed mode (`?embed=1`) the lab listens for `message` events from its parent window:
//! `{type: "election-lab", cmd: "step" | "back" | "play" | "pause" | "seek", step?: n}`. Anything
//! else (another type, an unknown command, a seek without a usable step, a message from another
//! window) is ignored; a seek is clamped to the steps computed so far. After every change of
//! step the lab posts `{type: "election-lab", event: "step", step, time, leaders}` to its parent,
//! when it has one (not when opened on its own); commands that arrive in a burst are drawn once,
//! and reported once, at the step they lead to. The step event carries nothing private (the
//! same numbers the embed shows), so it is posted to any origin.
//! See `docs/embed-example.html` for a host page.

use crate::state::Action;
use std::cell::Cell;
use std::rc::Rc;
use wasm_bindgen::closure::Closure;
use wasm_bindgen::{JsCast, JsValue};
use yew::prelude::*;

/// The `type` of every message in both directions.
pub const TYPE: &str = "election-lab";

/// A command from the host, read from the message's fields; `head` is the last computed step
/// (a seek past it is clamped to it), `playing` whether the lab plays now.
pub fn command(cmd: &str, step: Option<f64>, head: u64, playing: bool) -> Option<Action> {
    Some(match cmd {
        "step" => Action::StepForward,
        "back" => Action::StepBack,
        "play" if playing => return None,
        "play" => Action::TogglePlay,
        "pause" => Action::Pause,
        "seek" => {
            let s = step.filter(|s| s.is_finite())?;
            // A fraction is rounded down; below zero is step 0.
            Action::Seek((s.max(0.0).floor().min(head as f64)) as u64)
        }
        _ => return None,
    })
}

fn field(data: &JsValue, name: &str) -> JsValue {
    js_sys::Reflect::get(data, &JsValue::from_str(name)).unwrap_or(JsValue::UNDEFINED)
}

/// The action a message event asks for, if it is a valid command.
fn read(data: &JsValue, head: u64, playing: bool) -> Option<Action> {
    if !data.is_object() || field(data, "type").as_string().as_deref() != Some(TYPE) {
        return None;
    }
    let cmd = field(data, "cmd").as_string()?;
    command(&cmd, field(data, "step").as_f64(), head, playing)
}

/// The parent window when the page is framed.
fn parent() -> Option<web_sys::Window> {
    let window = web_sys::window()?;
    let parent = window.parent().ok()??;
    (!js_sys::Object::is(&parent, &window)).then_some(parent)
}

/// What the host hears after a step change.
fn step_event(step: u64, time: u64, leaders: &[u32]) -> JsValue {
    let o = js_sys::Object::new();
    let set = |k: &str, v: JsValue| {
        let _ = js_sys::Reflect::set(&o, &JsValue::from_str(k), &v);
    };
    set("type", TYPE.into());
    set("event", "step".into());
    set("step", (step as f64).into());
    set("time", (time as f64).into());
    set("leaders", leaders.iter().map(|&l| JsValue::from(l)).collect::<js_sys::Array>().into());
    o.into()
}

/// Wires the API while the lab is an embed: commands in, step events out.
#[hook]
pub fn use_embed_api(embed: bool, frame: Rc<election_lab::Frame>, head: u64, playing: bool, on: Callback<Action>) {
    // What the listener reads at message time: the latest head and play state.
    let live = use_memo((), |_| (Cell::new(0u64), Cell::new(false)));
    live.0.set(head);
    live.1.set(playing);
    use_effect_with(embed, {
        let live = live.clone();
        move |&embed| {
            let window = web_sys::window().filter(|_| embed);
            let listener = window.as_ref().map(|w| {
                let (live, on) = (live.clone(), on.clone());
                let from = parent();
                let cb = Closure::<dyn FnMut(web_sys::MessageEvent)>::new(move |e: web_sys::MessageEvent| {
                    // Only the page that frames the lab drives it.
                    let source_ok = match (&from, e.source()) {
                        (Some(p), Some(s)) => js_sys::Object::is(p, &s),
                        _ => false,
                    };
                    if !source_ok {
                        return;
                    }
                    if let Some(action) = read(&e.data(), live.0.get(), live.1.get()) {
                        if action == Action::TogglePlay {
                            live.1.set(true);
                        }
                        on.emit(action);
                    }
                });
                let _ = w.add_event_listener_with_callback("message", cb.as_ref().unchecked_ref());
                (w.clone(), cb)
            });
            move || {
                if let Some((w, cb)) = listener {
                    let _ = w.remove_event_listener_with_callback("message", cb.as_ref().unchecked_ref());
                }
            }
        }
    });
    let key = (embed, frame.step, frame.time, frame.leaders.clone());
    use_effect_with(key, |(embed, step, time, leaders)| {
        if let (true, Some(p)) = (*embed, parent()) {
            let _ = p.post_message(&step_event(*step, *time, leaders), "*");
        }
    });
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn commands_map_to_actions_and_steps_are_clamped() {
        assert_eq!(command("step", None, 50, false), Some(Action::StepForward));
        assert_eq!(command("back", Some(3.0), 50, false), Some(Action::StepBack));
        assert_eq!(command("play", None, 50, false), Some(Action::TogglePlay));
        assert_eq!(command("play", None, 50, true), None, "play while playing does not pause");
        assert_eq!(command("pause", None, 50, true), Some(Action::Pause));
        assert_eq!(command("seek", Some(12.0), 50, false), Some(Action::Seek(12)));
        assert_eq!(command("seek", Some(12.7), 50, false), Some(Action::Seek(12)));
        assert_eq!(command("seek", Some(-4.0), 50, false), Some(Action::Seek(0)));
        assert_eq!(command("seek", Some(1e300), 50, false), Some(Action::Seek(50)));
        assert_eq!(command("seek", Some(f64::NAN), 50, false), None);
        assert_eq!(command("seek", Some(f64::INFINITY), 50, false), None);
        assert_eq!(command("seek", None, 50, false), None);
        assert_eq!(command("crash", Some(1.0), 50, false), None);
        assert_eq!(command("", None, 50, false), None);
    }
}
