//! Election Lab in the browser: a thin Yew layer over the engine crate.
//!
//! | module | what it holds |
//! |---|---|
//! | `app` | the Lab component: state, gestures → interventions, drawing of canvas and panels |
//! | `anim` | the animation-frame loop that moves message dots between renders |
//! | `geometry` | partition lines: sides, groups, shaded regions |
//! | `link` | links that carry scenario + interventions + step |
//! | `palette` | colour-blind-safe colours per message kind |

pub mod anim;
pub mod app;
pub mod geometry;
pub mod link;
pub mod palette;

use std::cell::RefCell;
use wasm_bindgen::JsCast;

thread_local! {
    /// The latest trace (scenario + interventions + step), for the bug report after a panic.
    static LAST_TRACE: RefCell<String> = const { RefCell::new(String::new()) };
}

pub fn remember_trace(trace: String) {
    LAST_TRACE.with(|t| *t.borrow_mut() = trace);
}

/// Replaces a dead page by an error panel with a bug report to copy.
fn install_panic_hook() {
    std::panic::set_hook(Box::new(|info| {
        let report = LAST_TRACE.with(|t| t.borrow().clone());
        let message = info.to_string();
        web_sys::console::error_1(&format!("Election Lab crashed: {message}").into());
        let Some(doc) = web_sys::window().and_then(|w| w.document()) else { return };
        let Ok(panel) = doc.create_element("div") else { return };
        panel.set_class_name("crash-panel");
        let _ = panel.set_attribute("role", "alert");
        let text = format!("Election Lab hit an internal error: {message}\n\nBug report (scenario + interventions + step):\n{report}");
        panel.set_inner_html(
            "<h2>Something went wrong</h2><p>The simulation stopped because of an internal error. \
             Copy the bug report below (it replays your exact session) and reload the page.</p>\
             <textarea readonly rows=\"10\"></textarea><p><button type=\"button\">Copy bug report</button> \
             <button type=\"button\" onclick=\"location.reload()\">Reload</button></p>",
        );
        if let Ok(Some(area)) = panel.query_selector("textarea") {
            area.set_text_content(Some(&text));
        }
        if let Ok(Some(button)) = panel.query_selector("button") {
            let t = text.clone();
            let cb = wasm_bindgen::closure::Closure::<dyn FnMut()>::new(move || copy_to_clipboard(&t));
            let _ = button.add_event_listener_with_callback("click", cb.as_ref().unchecked_ref());
            // The page is dead after a panic: this listener must outlive every owner.
            cb.forget();
        }
        if let Some(body) = doc.body() {
            let _ = body.append_child(&panel);
        }
    }));
}

pub fn start() {
    install_panic_hook();
    yew::Renderer::<app::Lab>::new().render();
}

/// Mounts the app inside `root` (used by the browser tests).
pub fn mount(root: web_sys::Element) {
    yew::Renderer::<app::Lab>::with_root(root).render();
}

/// Writes `text` to the clipboard when the browser allows it (it may refuse silently).
pub fn copy_to_clipboard(text: &str) {
    if let Some(w) = web_sys::window() {
        let promise = w.navigator().clipboard().write_text(text);
        // Awaiting the promise handles a refusal, which the share dialog already covers.
        wasm_bindgen_futures::spawn_local(async move {
            let _ = wasm_bindgen_futures::JsFuture::from(promise).await;
        });
    }
}

/// Offers `text` as a file download.
pub fn download(name: &str, text: &str) {
    let Some(doc) = web_sys::window().and_then(|w| w.document()) else { return };
    let parts = js_sys::Array::of1(&text.into());
    let opts = web_sys::BlobPropertyBag::new();
    opts.set_type("application/json");
    let Ok(blob) = web_sys::Blob::new_with_str_sequence_and_options(&parts, &opts) else { return };
    let Ok(url) = web_sys::Url::create_object_url_with_blob(&blob) else { return };
    if let Ok(a) = doc.create_element("a").map(|e| e.unchecked_into::<web_sys::HtmlAnchorElement>()) {
        a.set_href(&url);
        a.set_download(name);
        a.click();
    }
    let _ = web_sys::Url::revoke_object_url(&url);
}

/// Trace hashes of the presets, checked natively and in wasm against the golden hash each
/// algorithm declares with its presets, so both builds must agree.
pub mod golden {
    use election_lab::{registry, Engine};

    /// Runs preset `id` to its end and returns its trace hash in hex.
    pub fn preset_hash(id: &str) -> String {
        let mut engine = Engine::new(election_lab::presets::find(id).expect("preset").scenario()).expect("valid");
        engine.run_to_end();
        format!("{:016x}", engine.trace_hash())
    }

    /// (preset id, its declared golden hash) for every registered preset.
    pub fn table() -> Vec<(&'static str, &'static str)> {
        registry::presets().map(|(_, p)| (p.id, p.golden)).collect()
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn native_hashes_match_the_declared_golden_hashes() {
        for (id, expected) in super::golden::table() {
            assert_eq!(super::golden::preset_hash(id), expected, "preset {id}: replays changed (update its golden hash only on purpose)");
        }
    }
}

/// Browser benchmark hook (used by `make bench`): runs the Bully worst case with `n` nodes
/// (top id crashed, all others start at once) and returns [milliseconds, messages].
#[wasm_bindgen::prelude::wasm_bindgen]
pub fn bench_bully_worst(n: u32) -> Vec<f64> {
    let schedule: Vec<serde_json::Value> = std::iter::once(serde_json::json!({"at": 0, "crash": n}))
        .chain((1..n).map(|i| serde_json::json!({"at": 0, "start": i})))
        .collect();
    let scenario = serde_json::json!({
        "algorithm": "bully", "nodes": (1..=n).collect::<Vec<_>>(), "initial_leader": n,
        "schedule": schedule, "stop": {"max_steps": 100_000_000u64, "max_time": 1_000_000u64},
    });
    let perf = web_sys::window().and_then(|w| w.performance());
    let now = || perf.as_ref().map_or(0.0, |p| p.now());
    let t0 = now();
    let mut engine = election_lab::Engine::from_trace_value(&scenario).expect("valid scenario");
    engine.run_to_end();
    let ms = now() - t0;
    vec![ms, engine.metrics().total as f64]
}
