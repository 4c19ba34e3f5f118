//! The page's Web Worker: a binary of its own (Trunk builds it with `data-type="worker"` into
//! `lab-worker_bg.wasm` and a loader), which the page starts only when a counterexample search,
//! an experiment's sweep or a figure is asked for, so the first load does not carry it. One
//! binary for all three jobs: they share the whole engine, which is most of the wasm, so a second
//! binary would be a second download of it and a second build. Each kind of job runs in an
//! instance of its own (the page's `worker.rs` and `export/job.rs`), so cancelling one does not
//! stop another.
//!
//! Each message is a job as JSON text: a sweep's (`sweep_job`, `"kind": "sweep"`), a check of
//! every schedule (`check_job`, `"kind": "check"`; the worker is built with the `check` feature),
//! a figure's (`export/job.rs`, `"kind": "figure"`: the figure writers live here, not in the page),
//! an assignment's grading (`grade_job`, `"kind": "grade"`; built with the `grade` feature, which
//! brings the interpreter of users' scripts too)
//! or else a search's (`search_job::Job`). It runs to its end inside the handler, posting progress
//! and the result; Cancel terminates the worker from the page. A figure in Chinese first fetches
//! the Chinese catalog (`zh.json`, beside the worker's loader) once.

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
        let post = |reply: String| {
            let _ = out.post_message(&JsValue::from_str(&reply));
        };
        match serde_json::from_str(&text) {
            Ok(job) if election_lab_www::sweep_job::is_sweep(&job) => election_lab_www::sweep_job::run(&job, now, post),
            #[cfg(feature = "check")]
            Ok(job) if election_lab_www::check_job::is_check(&job) => {
                election_lab_www::check_job::run(&text, now, post)
            }
            #[cfg(feature = "grade")]
            Ok(job) if election_lab_www::grade_job::is_grade(&job) => election_lab_www::grade_job::run(&text, post),
            Ok(job) if election_lab_www::export::job::is_figure(&job) => {
                let out = out.clone();
                wasm_bindgen_futures::spawn_local(async move {
                    let zh = election_lab::meta::Lang::Zh;
                    if election_lab_www::export::job::needs_chinese(&job) && !election_lab::meta::ready(zh) {
                        if let Some(text) = fetch_text(&out, "zh.json").await {
                            let _ = election_lab::meta::install(zh, &text);
                        }
                    }
                    let _ = out.post_message(&JsValue::from_str(&election_lab_www::export::job::run(&job)));
                });
            }
            _ => election_lab_www::search_job::run(&text, now, post),
        }
    });
    scope.set_onmessage(Some(on_message.as_ref().unchecked_ref()));
    on_message.forget();
    let _ = scope.post_message(&JsValue::from_str(election_lab_www::search_job::READY));
}

/// The text at `url` (relative to the worker's loader, beside the page), if it could be read.
async fn fetch_text(scope: &DedicatedWorkerGlobalScope, url: &str) -> Option<String> {
    let response = wasm_bindgen_futures::JsFuture::from(scope.fetch_with_str(url)).await.ok()?;
    let response: web_sys::Response = response.dyn_into().ok()?;
    if !response.ok() {
        return None;
    }
    wasm_bindgen_futures::JsFuture::from(response.text().ok()?).await.ok()?.as_string()
}
