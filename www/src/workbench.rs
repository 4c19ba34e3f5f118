//! The player and the workbench: one app in two builds. The player (the first load: a run, its
//! controls and panels, lessons, links, embeds) is this crate without the `workbench` feature;
//! the workbench is the same crate with it, adding the experiments view, the counterexample
//! search, importing files and the lesson recorder. A tool of the workbench used in the player
//! becomes a *handoff* (what to open, and the page's query as it stands); the player fetches and
//! compiles the workbench's wasm meanwhile showing that it loads, and once both files have
//! arrived it takes itself down and starts the workbench in the same page, which opens the same
//! run from the same query and then the tool asked for. A load that fails is named in an alert
//! and the player goes on as it was.
//!
//! The handoff crosses from one wasm to the other as JSON text in `window.electionLabHandoff`
//! (and the files to import, as the browser's `File` objects, in `window.electionLabFiles`);
//! the loader is the small script of `index.html` (`window.electionLabWorkbench`).

use crate::state::handoff::{arrival, Arrival};
use crate::state::Action;
use std::cell::RefCell;
use std::rc::Rc;
use wasm_bindgen::{JsCast, JsValue};
use yew::prelude::*;

thread_local! {
    /// The app mounted by `start`, taken down when the workbench replaces it.
    static APP: RefCell<Option<Box<dyn FnOnce()>>> = const { RefCell::new(None) };
    /// The handoff to give the workbench when it has loaded (the latest asked for), and
    /// whether a load is under way.
    static WANTED: RefCell<(Option<Rc<String>>, bool)> = const { RefCell::new((None, false)) };
}

/// Keeps the way to take down the app mounted by `start`.
pub fn keep(destroy: Box<dyn FnOnce()>) {
    APP.with(|a| *a.borrow_mut() = Some(destroy));
}

fn window_get(name: &str) -> JsValue {
    web_sys::window()
        .map_or(JsValue::UNDEFINED, |w| js_sys::Reflect::get(&w, &name.into()).unwrap_or(JsValue::UNDEFINED))
}

fn window_set(name: &str, value: &JsValue) {
    if let Some(w) = web_sys::window() {
        let _ = js_sys::Reflect::set(&w, &name.into(), value);
    }
}

/// Hands the files chosen or dropped in the player to the workbench (read there).
pub fn stash_files(files: &[web_sys::File]) {
    window_set("electionLabFiles", &files.iter().collect::<js_sys::Array>());
}

/// The handoff the player left, read once by the workbench (and the files it names).
pub fn arrived() -> Option<(Arrival, Vec<web_sys::File>)> {
    let text = window_get("electionLabHandoff").as_string()?;
    window_set("electionLabHandoff", &JsValue::UNDEFINED);
    let files: Vec<web_sys::File> = match window_get("electionLabFiles").dyn_into::<js_sys::Array>() {
        Ok(list) => list.iter().filter_map(|f| f.dyn_into::<web_sys::File>().ok()).collect(),
        Err(_) => Vec::new(),
    };
    window_set("electionLabFiles", &JsValue::UNDEFINED);
    Some((arrival(&text)?, files))
}

/// What a rejected promise said, in one line.
pub(crate) fn why(e: JsValue) -> String {
    e.dyn_ref::<js_sys::Error>()
        .map_or_else(|| e.as_string().unwrap_or_else(|| format!("{e:?}")), |e| e.message().into())
}

/// Fetches and compiles the workbench; resolves to the function that starts it.
async fn load() -> Result<js_sys::Function, String> {
    let loader: js_sys::Function =
        window_get("electionLabWorkbench").dyn_into().map_err(|_| "no loader in this page".to_string())?;
    let promise: js_sys::Promise = loader.call0(&JsValue::NULL).map_err(why)?.dyn_into().map_err(why)?;
    let start = wasm_bindgen_futures::JsFuture::from(promise).await.map_err(why)?;
    start.dyn_into().map_err(why)
}

/// The player takes itself down and starts the workbench on `handoff`'s query.
fn swap(start: &js_sys::Function, handoff: &str) {
    if let (Some(a), Ok(history)) = (arrival(handoff), web_sys::window().map_or(Err(JsValue::NULL), |w| w.history())) {
        let _ = history.replace_state_with_url(&JsValue::NULL, "", Some(&a.query));
    }
    window_set("electionLabHandoff", &JsValue::from_str(handoff));
    if let Some(destroy) = APP.with(|a| a.borrow_mut().take()) {
        destroy();
    }
    if let Err(e) = start.call0(&JsValue::NULL) {
        web_sys::console::error_1(&e);
    }
}

/// In the player: loads the workbench when a handoff is asked for and starts it on the latest;
/// a failed load is reported with `Action::WorkbenchFailed`. Does nothing in the workbench.
#[hook]
pub fn use_workbench(handoff: Option<Rc<String>>, on: Callback<Action>) {
    use_effect_with(handoff, move |handoff| {
        let Some(h) = handoff.clone().filter(|_| !crate::WORKBENCH) else { return };
        let busy = WANTED.with(|w| std::mem::replace(&mut *w.borrow_mut(), (Some(h), true)).1);
        if busy {
            return;
        }
        wasm_bindgen_futures::spawn_local(async move {
            let loaded = load().await;
            let (wanted, _) = WANTED.with(|w| std::mem::take(&mut *w.borrow_mut()));
            match (loaded, wanted) {
                (Ok(start), Some(h)) => swap(&start, &h),
                (Err(e), _) => on.emit(Action::WorkbenchFailed(e)),
                (Ok(_), None) => {}
            }
        });
    });
}
