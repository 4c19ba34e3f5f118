//! The counterexample search's Web Worker: a binary of its own (Trunk builds it with
//! `data-type="worker"` into `search-worker_bg.wasm` and a loader), which the page starts only
//! when a search is asked for, so the first load does not carry it. Each message is a job
//! (`search_job::Job` as JSON text); the search runs to its end inside the handler, posting
//! progress and the result (`search_job::Reply`). Cancel terminates the worker from the page.

use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;
use web_sys::{DedicatedWorkerGlobalScope, MessageEvent};

fn main() {
    console_error_panic_hook::set_once();
    let scope: DedicatedWorkerGlobalScope = js_sys::global().unchecked_into();
    let out = scope.clone();
    let on_message = Closure::<dyn FnMut(MessageEvent)>::new(move |e: MessageEvent| {
        let text = e.data().as_string().unwrap_or_default();
        let clock = out.performance();
        let now = || clock.as_ref().map_or_else(js_sys::Date::now, |p| p.now());
        election_lab_www::search_job::run(&text, now, |reply| {
            let _ = out.post_message(&JsValue::from_str(&reply));
        });
    });
    scope.set_onmessage(Some(on_message.as_ref().unchecked_ref()));
    on_message.forget();
    let _ = scope.post_message(&JsValue::from_str(election_lab_www::search_job::READY));
}
