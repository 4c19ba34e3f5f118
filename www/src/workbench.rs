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
//! the loading and the swap are `bundle.rs`'s, the loader the small script of `index.html`
//! (`window.electionLabLoad`).

use crate::bundle::{window_get, window_set};
use crate::state::handoff::{arrival, Arrival};
use wasm_bindgen::{JsCast, JsValue};

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
