//! Browser effects, in one place: the URL, the clipboard, file download and upload, and the
//! animation loop. The reducer never calls the browser; these functions and hooks do, and talk
//! back to it by dispatching actions.

use crate::anim::{Dots, FrameLoop};
use crate::state::{Action, State};
use election_lab::meta::k;
use std::cell::Cell;
use std::rc::Rc;
use wasm_bindgen::JsCast;
use yew::prelude::*;

fn window() -> web_sys::Window {
    web_sys::window().expect("window")
}

/// The page's query string (`?…`).
pub fn location_query() -> String {
    if cfg!(not(target_arch = "wasm32")) {
        return NATIVE_PAGE.with(|p| p.borrow().0.clone());
    }
    window().location().search().unwrap_or_default()
}

/// The browser's preferred language tag (`en-US`, `zh-CN`, ...).
pub fn browser_lang() -> Option<String> {
    if cfg!(not(target_arch = "wasm32")) {
        return NATIVE_PAGE.with(|p| p.borrow().1.clone());
    }
    window().navigator().language()
}

/// The scale (viewBox units per pixel) a canvas draws its first render at, before it has measured
/// itself: the first frame's, if `index.html` showed one (`window.electionLabUnit`: a frame drawn
/// for a phone's canvas is larger), else 1, the scale of every other first frame.
pub fn first_unit() -> f64 {
    if cfg!(not(target_arch = "wasm32")) {
        return NATIVE_PAGE.with(|p| p.borrow().2);
    }
    let unit = js_sys::Reflect::get(&window(), &wasm_bindgen::JsValue::from_str("electionLabUnit"));
    unit.ok().and_then(|u| u.as_f64()).filter(|u| u.is_finite() && *u > 0.0).unwrap_or(1.0)
}

thread_local! {
    /// The query, browser language and canvas scale a page drawn natively opens with (the first
    /// frames, `first_frames.rs`): there is no browser to ask.
    static NATIVE_PAGE: std::cell::RefCell<(String, Option<String>, f64)> = const { std::cell::RefCell::new((String::new(), None, 1.0)) };
}

/// Sets what [`location_query`], [`browser_lang`] and [`first_unit`] answer outside a browser.
pub fn set_native_page(query: &str, lang: Option<&str>, unit: f64) {
    NATIVE_PAGE.with(|p| *p.borrow_mut() = (query.to_string(), lang.map(str::to_string), unit));
}

/// False until the page has painted its first frame, then true. What that frame does not need
/// (the side panels) is drawn after it, so that the nodes appear sooner. A frame callback runs
/// before its frame is painted, so the switch waits for a timeout queued from it; a second
/// timeout stands in where frames do not come (a hidden tab, an off-screen frame).
#[hook]
pub fn use_painted() -> bool {
    let painted = use_state_eq(|| false);
    {
        let painted = painted.clone();
        use_effect_with((), move |_| {
            let p = painted.clone();
            let after = wasm_bindgen::closure::Closure::once_into_js(move || {
                gloo_timers::callback::Timeout::new(0, move || p.set(true)).forget();
            });
            let _ = window().request_animation_frame(after.unchecked_ref());
            gloo_timers::callback::Timeout::new(250, move || painted.set(true)).forget();
        });
    }
    *painted
}

/// Keeps `<html lang>` and the document title in the page's language.
#[hook]
pub fn use_document_lang(lang: crate::i18n::Lang) {
    use_effect_with(lang, |&lang| {
        if let Some(doc) = window().document() {
            if let Some(root) = doc.document_element() {
                let _ = root.set_attribute("lang", if lang == crate::i18n::Lang::Zh { "zh-CN" } else { "en" });
            }
            doc.set_title(crate::i18n::tr(lang, k::UI_ELECTION_LAB));
        }
    });
}

/// Fetches the catalog of `pending` (a language asked for whose texts are not compiled in:
/// `zh.json`, next to the page), installs it, and tells the reducer, which then switches. An
/// English page never asks for it.
#[hook]
pub fn use_catalog(pending: Option<crate::i18n::Lang>, on: Callback<Action>) {
    use_effect_with(pending, move |&pending| {
        if let Some(lang) = pending {
            wasm_bindgen_futures::spawn_local(async move {
                let result = match early_catalog().await {
                    Some(text) => Ok(text),
                    None => fetch_text(&format!("{}.json", lang.tag())).await.inspect(|text| keep_catalog(text)),
                }
                .and_then(|text| election_lab::meta::install(lang, &text));
                if let Err(e) = &result {
                    web_sys::console::error_1(&format!("{}.json: {e}", lang.tag()).into());
                }
                on.emit(Action::CatalogArrived(lang, result));
            });
        }
    });
}

/// Installs the Chinese catalog if `index.html`'s fetch of it beside the wasm has already brought
/// its text (`window.electionLabCatalogText`), so that a Chinese page's first render is in
/// Chinese; when it has not, [`use_catalog`] waits for it.
pub fn early_catalog_now() {
    if cfg!(not(target_arch = "wasm32")) {
        return;
    }
    let text = js_sys::Reflect::get(&window(), &wasm_bindgen::JsValue::from_str("electionLabCatalogText"));
    if let Some(text) = text.ok().and_then(|t| t.as_string()) {
        // A damaged text is reported when the catalog is asked for (use_catalog).
        let _ = election_lab::meta::install(crate::i18n::Lang::Zh, &text);
    }
}

/// Keeps the Chinese catalog's text where [`early_catalog_now`] finds it, for a bundle that takes
/// over this page later (`bundle.rs`): its first render is then in Chinese too.
fn keep_catalog(text: &str) {
    let key = wasm_bindgen::JsValue::from_str("electionLabCatalogText");
    let _ = js_sys::Reflect::set(&window(), &key, &wasm_bindgen::JsValue::from_str(text));
}

/// Takes away the first frame `index.html` showed while the player loaded (`first_frames.rs`).
pub fn take_first_frame() {
    if cfg!(not(target_arch = "wasm32")) {
        return;
    }
    if let Some(frame) = window().document().and_then(|d| d.get_element_by_id("first-frame")) {
        frame.remove();
    }
}

/// The Chinese catalog as `index.html` fetched it beside the wasm (`window.electionLabCatalog`, a
/// promise of its text, or of null if that fetch failed); `None` when there is none. It is kept:
/// the full player, if the page swaps to it, takes it too (`bundle.rs`).
async fn early_catalog() -> Option<String> {
    let key = wasm_bindgen::JsValue::from_str("electionLabCatalog");
    let promise = js_sys::Reflect::get(&window(), &key).ok()?.dyn_into::<js_sys::Promise>().ok()?;
    wasm_bindgen_futures::JsFuture::from(promise).await.ok()?.as_string()
}

/// The text at `url` (relative to the page), or why not.
async fn fetch_text(url: &str) -> Result<String, String> {
    let response = wasm_bindgen_futures::JsFuture::from(window().fetch_with_str(url))
        .await
        .map_err(|e| format!("{url}: {e:?}"))?;
    let response: web_sys::Response = response.dyn_into().map_err(|_| format!("{url}: not a response"))?;
    if !response.ok() {
        return Err(format!("{url}: HTTP {}", response.status()));
    }
    let text = response.text().map_err(|e| format!("{url}: {e:?}"))?;
    let text = wasm_bindgen_futures::JsFuture::from(text).await.map_err(|e| format!("{url}: {e:?}"))?;
    text.as_string().ok_or_else(|| format!("{url}: not text"))
}

/// Keeps the address bar (and the bug report) in step with the state: the query is written, and
/// the trace serialised, once per change of what the URL carries.
#[hook]
pub fn use_url_sync(state: &State) {
    let state = state.clone();
    use_effect_with(state.url_key(), move |_| {
        let q = state.query(state.embed);
        if let Ok(h) = window().history() {
            let _ = h.replace_state_with_url(&wasm_bindgen::JsValue::NULL, "", Some(&q));
        }
        match state.lanes() {
            Some(c) => {
                let e = c.anchor().engine.get();
                crate::remember_trace(c.scenario.clone(), Rc::new(e.interventions().to_vec()), e.cursor());
            }
            None => crate::remember_trace(state.scenario.clone(), state.interventions.clone(), state.cursor()),
        }
    });
}

/// The share dialog's text for the current state (a link, or an iframe to embed), copied to the
/// clipboard; returns the action that shows it.
pub fn share(state: &State, embed: bool) -> Action {
    let loc = window().location();
    let base = format!("{}{}", loc.origin().unwrap_or_default(), loc.pathname().unwrap_or_default());
    let url = format!("{base}{}", state.query(embed));
    let text = if embed {
        format!(
            "<iframe src=\"{url}\" width=\"640\" height=\"640\" style=\"border:0\" title=\"Election Lab\"></iframe>"
        )
    } else {
        url
    };
    copy_to_clipboard(&text);
    let title =
        crate::i18n::tr(state.lang, if embed { crate::i18n::k::UI_EMBED_CODE } else { crate::i18n::k::UI_LINK });
    Action::ShowShare { title: title.into(), text }
}

/// Offers the current trace as a JSON file.
pub fn export(state: &State) {
    let text = election_lab::write_json_pretty(&state.engine.get().trace_value());
    download("election-lab-trace.json", &text);
}

/// Reads several files, in the order given: (name, bytes) each (`None` for a file the browser
/// could not read, e.g. one moved or deleted since it was picked). As bytes, not as text: the browser's text decoding would replace bytes that are not
/// UTF-8 where the command line refuses them ([`Action::ImportBytes`] decides).
pub fn read_files(files: Vec<web_sys::File>, on_bytes: Callback<Vec<(String, Option<Vec<u8>>)>>) {
    wasm_bindgen_futures::spawn_local(async move {
        let mut out = Vec::with_capacity(files.len());
        for file in files {
            let buffer = wasm_bindgen_futures::JsFuture::from(file.array_buffer()).await.ok();
            out.push((file.name(), buffer.map(|b| js_sys::Uint8Array::new(&b).to_vec())));
        }
        on_bytes.emit(out);
    });
}

/// Reads the first `bytes` bytes of `file` as text (a file too long to read whole), then calls
/// `on_text` with it.
pub fn read_head(file: web_sys::File, bytes: u32, on_text: Callback<String>) {
    wasm_bindgen_futures::spawn_local(async move {
        let head = file.slice_with_i32_and_i32(0, bytes.min(i32::MAX as u32) as i32).ok();
        let text = match head {
            Some(b) => wasm_bindgen_futures::JsFuture::from(b.text()).await.ok().and_then(|v| v.as_string()),
            None => None,
        };
        on_text.emit(text.unwrap_or_default());
    });
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

/// Offers `text` as a JSON file download.
pub fn download(name: &str, text: &str) {
    download_as(name, text, "application/json");
}

/// Offers `text` as a file download of type `mime`.
pub fn download_as(name: &str, text: &str, mime: &str) {
    let Some(doc) = web_sys::window().and_then(|w| w.document()) else { return };
    let parts = js_sys::Array::of1(&text.into());
    let opts = web_sys::BlobPropertyBag::new();
    opts.set_type(mime);
    let Ok(blob) = web_sys::Blob::new_with_str_sequence_and_options(&parts, &opts) else { return };
    let Ok(url) = web_sys::Url::create_object_url_with_blob(&blob) else { return };
    if let Ok(a) = doc.create_element("a").map(|e| e.unchecked_into::<web_sys::HtmlAnchorElement>()) {
        a.set_href(&url);
        a.set_download(name);
        a.click();
    }
    let _ = web_sys::Url::revoke_object_url(&url);
}

/// The animation clock while playing: virtual time advances by `speed` ticks per second of frame
/// time; each frame sends `PlayTo(clock)` (a re-render only when an event is due) and moves the
/// dots to the clock directly.
#[derive(Default)]
struct Clock {
    t: Cell<f64>,
    last_ts: Cell<Option<f64>>,
    running: Cell<bool>,
    /// The quiet stretch ahead, as of the last render ([`State::quiet_stretch`]).
    quiet: Cell<Option<(f64, f64)>>,
}

/// Writes the clock into the controls' time while a quiet stretch plays (no re-render: nothing
/// else changes), so that the time visibly runs on while nothing moves.
fn show_time(t: u64) {
    // The text node itself, not the element's content: replacing the node would leave the
    // renderer updating a detached one.
    let text = window()
        .document()
        .and_then(|d| d.query_selector("[data-testid=time]").ok().flatten())
        .and_then(|el| el.first_child());
    if let Some(node) = text {
        node.set_text_content(Some(&t.to_string()));
    }
}

#[hook]
pub fn use_play_loop(
    playing: bool,
    speed: f64,
    now: u64,
    quiet: Option<(f64, f64)>,
    on: Callback<Action>,
    dots: Rc<Vec<Dots>>,
) {
    let clock = use_memo((), |_| Clock::default());
    clock.quiet.set(quiet);
    let frames = use_mut_ref(FrameLoop::new);
    use_effect_with((playing, speed), move |&(playing, speed)| {
        if playing {
            if !clock.running.replace(true) {
                // Starting (not just a new speed): from the current step's time.
                clock.t.set(now as f64);
                clock.last_ts.set(None);
            }
            let clock = clock.clone();
            frames.borrow_mut().start(move |ts| {
                let dt = clock.last_ts.get().map_or(0.0, |last| ((ts - last) / 1000.0).min(0.25));
                clock.last_ts.set(Some(ts));
                let quiet = clock.quiet.get();
                let t = crate::anim::advance(clock.t.get(), dt, speed, quiet);
                clock.t.set(t);
                if quiet.is_some_and(|(from, to)| t >= from && t < to) {
                    show_time(t as u64);
                }
                on.emit(Action::PlayTo(t));
                for d in dots.iter() {
                    d.place(clock.t.get());
                }
            });
        } else {
            clock.running.set(false);
            frames.borrow_mut().stop();
            dots.iter().for_each(Dots::rest);
            if clock.quiet.get().is_some() {
                // Paused inside a quiet stretch: the time shown is the step's again.
                show_time(now);
            }
        }
        let frames: Rc<_> = frames;
        move || frames.borrow_mut().stop()
    });
}

/// Schedules the next slice of computing (`state/slices.rs`: a scripted run's, or the run ahead
/// of the cursor when the page opens) after the browser has had its turn (a zero timeout: input
/// and drawing go first), while there is one to do.
#[hook]
pub fn use_compute(computing: bool, slices: u64, on: Callback<Action>) {
    use_effect_with((computing, slices), move |&(computing, _)| {
        let timeout = computing.then(|| gloo_timers::callback::Timeout::new(0, move || on.emit(Action::Compute)));
        move || drop(timeout)
    });
}
