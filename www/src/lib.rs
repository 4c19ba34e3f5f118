//! Election Lab in the browser: a thin Yew layer over the engine crate.
//!
//! The module map (each module's purpose and what it may not depend on) is `ARCHITECTURE.md` at
//! the repository's root.

pub mod anim;
pub mod app;
pub mod bundle;
pub mod check_job;
pub mod components;
pub mod effects;
pub mod embed_api;
pub mod export;
#[cfg(feature = "first-frames")]
pub mod first_frames;
pub mod geometry;
pub mod grade_job;
pub mod i18n;
pub mod keyboard;
pub mod lesson_io;
pub mod link;
pub mod markers;
pub mod meta;
pub mod notes;
pub mod palette;
pub mod placement;
pub mod probe;
pub mod request;
pub mod search_job;
pub mod state;
pub mod sweep_job;
pub mod workbench;
pub mod worker;

pub use effects::{copy_to_clipboard, download};

/// Whether this build is the workbench (the full app, feature `workbench`) or the player, whose
/// workbench tools hand off to it (`workbench.rs`). Code only the workbench runs is behind
/// `if WORKBENCH` (a constant, so the player's build leaves that code out) rather than `cfg`,
/// so that both builds type-check all of it. The unit tests test the whole app.
pub const WORKBENCH: bool = cfg!(any(feature = "workbench", test));

/// Whether this build has the lesson player (feature `lessons`, a default; the workbench brings
/// it). Without it (a per-family player) what opens a lesson is handed to the bundle that has
/// one (`State::elsewhere`, `bundle::elsewhere`). As with [`WORKBENCH`], the lesson code is cut at a few seams by
/// `if LESSONS` rather than `cfg`, so both builds type-check it and the optimizer leaves it out;
/// unlike it, the unit tests see the build's own value (those of the lesson player need the
/// feature).
pub const LESSONS: bool = cfg!(feature = "lessons");
use election_lab::{Intervention, Scenario};
use std::cell::RefCell;
use std::rc::Rc;
use wasm_bindgen::JsCast;

/// What the bug report replays: scenario + interventions + step. Kept as shared data and only
/// serialised if a panic happens.
type Trace = (Rc<Scenario>, Rc<Vec<Intervention>>, u64);

thread_local! {
    static LAST_TRACE: RefCell<Option<Trace>> = const { RefCell::new(None) };
}

pub fn remember_trace(scenario: Rc<Scenario>, interventions: Rc<Vec<Intervention>>, step: u64) {
    LAST_TRACE.with(|t| *t.borrow_mut() = Some((scenario, interventions, step)));
}

/// The remembered trace as the exported JSON (the engine's `trace_value` format).
fn last_trace_text() -> String {
    let Some((scenario, ivs, step)) = LAST_TRACE.with(|t| t.borrow().clone()) else { return String::new() };
    election_lab::write_json(&election_lab::trace::Trace::value(&scenario, &ivs, Some(step)))
}

/// "N1, N2, N3".
pub fn nodes_text(nodes: &[u32]) -> String {
    nodes.iter().map(|n| format!("N{n}")).collect::<Vec<_>>().join(", ")
}

/// Replaces a dead page by an error panel with a bug report to copy.
fn install_panic_hook() {
    std::panic::set_hook(Box::new(|info| {
        let report = last_trace_text();
        let message = info.to_string();
        web_sys::console::error_1(&format!("Election Lab crashed: {message}").into());
        let Some(doc) = web_sys::window().and_then(|w| w.document()) else { return };
        let Ok(panel) = doc.create_element("div") else { return };
        panel.set_class_name("crash-panel");
        let _ = panel.set_attribute("role", "alert");
        let text = format!(
            "Election Lab hit an internal error: {message}\n\nBug report (scenario + interventions + step):\n{report}"
        );
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
    probe::mark("lab:start");
    install_panic_hook();
    let app = yew::Renderer::<app::Lab>::new().render();
    bundle::keep(Box::new(move || app.destroy()));
}

/// Mounts the app inside `root` (used by the browser tests).
pub fn mount(root: web_sys::Element) {
    yew::Renderer::<app::Lab>::with_root(root).render();
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
    fn the_bug_report_is_the_exported_trace() {
        let mut e = election_lab::Engine::new(election_lab::presets::find("ring-best").unwrap().scenario()).unwrap();
        e.run(3);
        e.apply(election_lab::Action::Crash(e.scenario().nodes[0])).unwrap();
        e.run(2);
        super::remember_trace(
            std::rc::Rc::new(e.scenario().clone()),
            std::rc::Rc::new(e.interventions().to_vec()),
            e.cursor(),
        );
        let text: serde_json::Value = serde_json::from_str(&super::last_trace_text()).unwrap();
        assert_eq!(text, e.trace_value());
    }

    #[test]
    fn sweep_csv_is_the_engines_csv_and_errors_name_the_field() {
        let catalog: serde_json::Value = serde_json::from_str(&super::experiment_catalog()).unwrap();
        let list = catalog.as_array().unwrap();
        assert_eq!(list.len(), election_lab::experiment::READY.len());
        let mut spec = list.iter().find(|e| e["id"] == "one-partition").unwrap()["spec"].clone();
        spec["seeds"] = serde_json::json!({"count": 3});
        let mut sweep = election_lab::experiment::Sweep::from_value(&spec).unwrap();
        sweep.advance(u64::MAX);
        assert_eq!(super::sweep_csv(&spec.to_string(), false).unwrap(), sweep.csv());
        assert_eq!(super::sweep_csv(&spec.to_string(), true).unwrap(), sweep.summary_csv());
        spec["measure"] = serde_json::json!("speed");
        assert!(super::sweep_csv(&spec.to_string(), false).unwrap_err().starts_with("measure: unknown measure"));
    }

    #[test]
    fn native_hashes_match_the_declared_golden_hashes() {
        for (id, expected) in super::golden::table() {
            assert_eq!(
                super::golden::preset_hash(id),
                expected,
                "preset {id}: replays changed (update its golden hash only on purpose)"
            );
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

/// The presets and the leaders each run ends with, as JSON (read by the end-to-end suite, so
/// that a newly registered algorithm's presets are opened and checked in the browser too).
#[wasm_bindgen::prelude::wasm_bindgen]
pub fn preset_catalog() -> String {
    let list: Vec<serde_json::Value> = election_lab::registry::presets()
        .map(|(a, p)| serde_json::json!({"id": p.id, "algorithm": a.id, "leaders": p.leaders}))
        .collect();
    election_lab::write_json(&serde_json::Value::Array(list))
}

/// An experiment run to its end in one call: the per-run CSV (or with `summary`, one row per line
/// and node count), the very text `election-lab sweep SPEC.json [--summary]` prints, so a
/// browser test can compare the two. A bad spec throws its error, naming the field. The page
/// itself advances an `election_lab::experiment::Sweep` a few runs per frame instead. Exported by
/// the workbench only (the player carries no sweep).
#[cfg_attr(feature = "workbench", wasm_bindgen::prelude::wasm_bindgen)]
pub fn sweep_csv(spec: &str, summary: bool) -> Result<String, String> {
    let mut sweep = election_lab::experiment::Sweep::from_json(spec).map_err(|e| e.to_string())?;
    while !sweep.advance(64).finished() {}
    Ok(if summary { sweep.summary_csv() } else { sweep.csv() })
}

/// The ready-made experiments (`experiments/*.json`) as JSON: `[{"id": ..., "spec": {...}}]`
/// (exported by the workbench only).
#[cfg_attr(feature = "workbench", wasm_bindgen::prelude::wasm_bindgen)]
pub fn experiment_catalog() -> String {
    let list: Vec<serde_json::Value> = election_lab::experiment::READY
        .iter()
        .map(|(id, text)| serde_json::json!({"id": id, "spec": serde_json::from_str::<serde_json::Value>(text).unwrap_or_default()}))
        .collect();
    serde_json::Value::Array(list).to_string()
}
