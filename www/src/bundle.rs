//! The page's bundles: the player of one family (today the Bully player, `family-bully`), the
//! full player (every family and the lesson player) and the workbench (the full app with its
//! tools). `index.html` chooses the first one from the query before any wasm is fetched (its
//! table of which preset and algorithm each bundle holds is checked against the engine's
//! directory by `tests/bundles.rs`) and holds the loader, `window.electionLabLoad(name)`.
//!
//! A bundle asked for while another runs (a workbench tool, or a query this build cannot show)
//! is a *handoff* (`state/handoff.rs`): the running app fetches and compiles the other bundle
//! while the run goes on and a label says what loads; once both its files have arrived it takes
//! itself down and starts the other in the same page on the handoff's query. A load that fails
//! is named in an alert and the running app goes on as it was.

use crate::state::handoff::arrival;
use crate::state::Action;
use std::cell::RefCell;
use std::rc::Rc;
use wasm_bindgen::{JsCast, JsValue};
use yew::prelude::*;

/// The family this build holds, and the bundles a handoff can name (defined beside the
/// handoffs, which the state writes without depending on this module).
pub use crate::state::handoff::{FAMILY, PLAYER, WORKBENCH};

thread_local! {
    /// The app mounted by `start`, taken down when another bundle replaces it.
    static APP: RefCell<Option<Box<dyn FnOnce()>>> = const { RefCell::new(None) };
    /// The latest handoff asked for, given to the bundle it names once that has loaded.
    static WANTED: RefCell<Option<Rc<String>>> = const { RefCell::new(None) };
    /// The app's dispatcher (for `elsewhere`), or the query asked for before the app was mounted.
    static ELSEWHERE: RefCell<(Option<Callback<Action>>, Option<String>)> = const { RefCell::new((None, None)) };
}

/// Keeps the way to take down the app mounted by `start`.
pub fn keep(destroy: Box<dyn FnOnce()>) {
    APP.with(|a| *a.borrow_mut() = Some(destroy));
}

/// The page asks for `query`, which this build cannot show (another family's algorithm, a
/// lesson): the full player loads while the run goes on, then starts on `query` (see the module's
/// comment). Called before the app is mounted, it is done once the app is.
pub fn elsewhere(query: &str) {
    let on = ELSEWHERE.with(|e| {
        let mut e = e.borrow_mut();
        if e.0.is_none() {
            e.1 = Some(query.to_string());
        }
        e.0.clone()
    });
    if let Some(on) = on {
        on.emit(Action::Elsewhere(query.to_string()));
    }
}

pub(crate) fn window_get(name: &str) -> JsValue {
    web_sys::window()
        .map_or(JsValue::UNDEFINED, |w| js_sys::Reflect::get(&w, &name.into()).unwrap_or(JsValue::UNDEFINED))
}

pub(crate) fn window_set(name: &str, value: &JsValue) {
    if let Some(w) = web_sys::window() {
        let _ = js_sys::Reflect::set(&w, &name.into(), value);
    }
}

/// What a rejected promise said, in one line.
pub(crate) fn why(e: JsValue) -> String {
    e.dyn_ref::<js_sys::Error>()
        .map_or_else(|| e.as_string().unwrap_or_else(|| format!("{e:?}")), |e| e.message().into())
}

/// Fetches and compiles bundle `name` (index.html's loader, which loads each bundle once);
/// resolves to the function that starts it.
async fn load(name: &str) -> Result<js_sys::Function, String> {
    let loader: js_sys::Function =
        window_get("electionLabLoad").dyn_into().map_err(|_| "no loader in this page".to_string())?;
    let promise = loader.call1(&JsValue::NULL, &name.into()).map_err(why)?;
    let promise: js_sys::Promise = promise.dyn_into().map_err(why)?;
    let start = wasm_bindgen_futures::JsFuture::from(promise).await.map_err(why)?;
    start.dyn_into().map_err(why)
}

/// The running app takes itself down and starts the loaded bundle on `handoff`'s query.
fn swap(start: &js_sys::Function, handoff: &str) {
    if let (Some(a), Ok(history)) = (arrival(handoff), web_sys::window().map_or(Err(JsValue::NULL), |w| w.history())) {
        let _ = history.replace_state_with_url(&JsValue::NULL, "", Some(&a.query));
    }
    window_set("electionLabHandoff", &JsValue::from_str(handoff));
    // The bundle started gives the focus back to its picker (`arrived_from_picker`).
    window_set(
        "electionLabFocusPicker",
        &JsValue::from_bool(crate::state::handoff::bundle_of(handoff) == Some(PLAYER)),
    );
    if let Some(destroy) = APP.with(|a| a.borrow_mut().take()) {
        destroy();
    }
    if let Err(e) = start.call0(&JsValue::NULL) {
        web_sys::console::error_1(&e);
    }
}

/// Whether this app was started by a swap away from a player of one family (another family's
/// preset chosen in its picker): its picker then takes the focus. Read once.
pub fn arrived_from_picker() -> bool {
    let yes = window_get("electionLabFocusPicker").as_bool() == Some(true);
    window_set("electionLabFocusPicker", &JsValue::UNDEFINED);
    yes
}

/// Loads the bundle a handoff names and starts it on the latest handoff asked for; a failed load
/// is reported with `Action::WorkbenchFailed`. Also takes the app's dispatcher for `elsewhere`.
#[hook]
pub fn use_bundles(handoff: Option<Rc<String>>, on: Callback<Action>) {
    use_effect_with((), {
        let on = on.clone();
        move |_| {
            let pending = ELSEWHERE.with(|e| {
                let mut e = e.borrow_mut();
                e.0 = Some(on.clone());
                e.1.take()
            });
            if let Some(query) = pending {
                on.emit(Action::Elsewhere(query));
            }
        }
    });
    use_effect_with(handoff, move |handoff| {
        let Some(h) = handoff.clone() else { return };
        let Some(name) = crate::state::handoff::bundle_of(&h) else { return };
        WANTED.with(|w| *w.borrow_mut() = Some(h));
        wasm_bindgen_futures::spawn_local(async move {
            let loaded = load(name).await;
            // The latest handoff is started (or its failure said) by the load of its own bundle.
            let latest = WANTED.with(|w| {
                let mut w = w.borrow_mut();
                let ours = w.as_deref().and_then(|h| crate::state::handoff::bundle_of(h)) == Some(name);
                if ours {
                    w.take()
                } else {
                    None
                }
            });
            match (loaded, latest) {
                (Ok(start), Some(h)) => swap(&start, &h),
                (Err(e), Some(_)) => on.emit(Action::WorkbenchFailed(e)),
                (_, None) => {}
            }
        });
    });
}
