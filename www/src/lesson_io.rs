//! Lessons from the browser: where a lesson's JSON comes from, the progress kept in
//! localStorage, and the events a host page hears.
//!
//! The built-in course is not in the wasm (it would weigh on every first load): the page
//! fetches `course.json` (ids, files and titles, in course order) and a lesson's file under
//! `lessons/` when it is opened. The single offline file (`make offline`) carries both inlined
//! in `#election-lab-lessons` (`{"course": [...], "lessons": {id: lesson}}`), read first, since
//! a page opened from disk cannot fetch. A packed lesson (`?lesson=1.<payload>`) is decoded here.

use crate::state::lesson::{Event, Progress};
use election_lab::lesson::Lesson;
use serde_json::Value;
use wasm_bindgen::JsCast;
use yew::Callback;

/// The localStorage key of the progress.
pub const PROGRESS_KEY: &str = "election-lab-progress";

/// One lesson of the course list.
#[derive(Clone, Debug, PartialEq)]
pub struct Entry {
    pub id: String,
    pub file: String,
    pub title: (String, String),
}

/// Reads `course.json`.
pub fn read_course(v: &Value) -> Vec<Entry> {
    let text = |t: &Value, k: &str| t.get(k).and_then(Value::as_str).unwrap_or_default().to_string();
    v.as_array()
        .map(|list| {
            list.iter()
                .map(|e| Entry {
                    id: text(e, "id"),
                    file: text(e, "file"),
                    title: (text(&e["title"], "en"), text(&e["title"], "zh")),
                })
                .collect()
        })
        .unwrap_or_default()
}

/// A lesson's JSON text, read and checked against the engine (its breakpoints, kinds and
/// properties; a stop that never comes is refused here, not halfway through).
pub fn parse(text: &str) -> Result<Lesson, String> {
    Lesson::validate(text).map_err(|e| e.to_string())
}

/// A packed `?lesson=` value (`1.<lz-string, base64url>`).
pub fn unpack(value: &str) -> Result<Lesson, String> {
    let json = election_lab::link::unpack(value).map_err(|e| e.replace("trace", "lesson"))?;
    parse(&json)
}

/// Whether this page is the offline file (`make offline`), which carries the course inlined and
/// nothing else beside it (no `guide/`).
pub fn is_offline_file() -> bool {
    web_sys::window().and_then(|w| w.document()).and_then(|d| d.get_element_by_id("election-lab-lessons")).is_some()
}

/// The inlined course of the offline file, if this is it.
fn inlined() -> Option<Value> {
    let el = web_sys::window()?.document()?.get_element_by_id("election-lab-lessons")?;
    election_lab::parse_json(&el.text_content()?).ok()
}

async fn fetch_text(url: &str) -> Result<String, String> {
    use wasm_bindgen_futures::JsFuture;
    let window = web_sys::window().ok_or("no window")?;
    let resp = JsFuture::from(window.fetch_with_str(url)).await.map_err(|_| format!("{url}: cannot be fetched"))?;
    let resp: web_sys::Response = resp.dyn_into().map_err(|_| format!("{url}: no response"))?;
    if !resp.ok() {
        return Err(format!("{url}: HTTP {}", resp.status()));
    }
    let text = JsFuture::from(resp.text().map_err(|_| format!("{url}: no text"))?)
        .await
        .map_err(|_| format!("{url}: no text"))?;
    text.as_string().ok_or_else(|| format!("{url}: no text"))
}

/// The course list (from the offline file, else `course.json`).
pub fn load_course(done: Callback<Result<Vec<Entry>, String>>) {
    if let Some(v) = inlined() {
        done.emit(Ok(read_course(&v["course"])));
        return;
    }
    wasm_bindgen_futures::spawn_local(async move {
        let r = fetch_text("./course.json").await.and_then(|t| {
            election_lab::parse_json(&t).map(|v| read_course(&v)).map_err(|e| format!("course.json: {e}"))
        });
        done.emit(r);
    });
}

/// The lesson a `?lesson=` value names: packed, or a built-in id.
pub fn load(value: String, done: Callback<Result<Lesson, String>>) {
    if value.contains('.') {
        done.emit(unpack(&value));
        return;
    }
    if let Some(v) = inlined() {
        let r = match v["lessons"].get(&value) {
            Some(l) => parse(&election_lab::write_json(l)),
            None => Err(no_lesson(&value, &read_course(&v["course"]))),
        };
        done.emit(r);
        return;
    }
    wasm_bindgen_futures::spawn_local(async move {
        let course = fetch_text("./course.json")
            .await
            .and_then(|t| election_lab::parse_json(&t).map_err(|e| format!("course.json: {e}")))
            .map(|v| read_course(&v));
        let r = match course {
            Err(e) => Err(e),
            Ok(c) => match c.iter().find(|e| e.id == value) {
                None => Err(no_lesson(&value, &c)),
                Some(e) => fetch_text(&format!("./lessons/{}", e.file)).await.and_then(|t| parse(&t)),
            },
        };
        done.emit(r);
    });
}

fn no_lesson(id: &str, course: &[Entry]) -> String {
    let ids: Vec<&str> = course.iter().map(|e| e.id.as_str()).collect();
    format!("lesson: no built-in lesson '{id}' (lessons: {})", ids.join(", "))
}

fn storage() -> Option<web_sys::Storage> {
    if cfg!(not(target_arch = "wasm32")) {
        return None;
    }
    web_sys::window()?.local_storage().ok()?
}

/// The stored progress (none when storage is refused, e.g. some private modes).
pub fn read_progress() -> Progress {
    storage().and_then(|s| s.get_item(PROGRESS_KEY).ok()?).map(|t| Progress::from_json(&t)).unwrap_or_default()
}

pub fn write_progress(p: &Progress) {
    if let Some(s) = storage() {
        let _ = s.set_item(PROGRESS_KEY, &p.to_json());
    }
}

/// Tells the page that frames the lab about a lesson event:
/// `{type: "election-lab", event: "stop" | "answer" | "done", lesson, stop, step | given, right}`
/// (what a host page and a SCORM package's launch page, scripts/scorm-sco.js, listen to). Built
/// as a JS object directly, which costs the first load less than a JSON value.
pub fn post(lesson: &str, e: &Event) {
    use wasm_bindgen::JsValue;
    let Some(window) = web_sys::window() else { return };
    let Ok(Some(parent)) = window.parent() else { return };
    if js_sys::Object::is(&parent, &window) {
        return;
    }
    let o = js_sys::Object::new();
    let set = |k: &str, v: JsValue| {
        let _ = js_sys::Reflect::set(&o, &JsValue::from_str(k), &v);
    };
    set("type", crate::embed_api::TYPE.into());
    set("lesson", lesson.into());
    match e {
        Event::Stop { stop, step } => {
            set("event", "stop".into());
            set("stop", (*stop as f64).into());
            set("step", (*step as f64).into());
        }
        Event::Answer { stop, given, right } => {
            set("event", "answer".into());
            set("stop", (*stop as f64).into());
            set("given", given.as_str().into());
            set("right", (*right).into());
        }
        Event::Done => set("event", "done".into()),
    }
    let _ = parent.post_message(&o, "*");
}

/// The lesson player beside the lab: opens `?lesson=` at start, sends the player's requests to
/// the lab, tells the player what the lab does, stores progress, and posts events to a host.
#[yew::hook]
pub fn use_lesson(
    state: &crate::state::State,
    on: Callback<crate::state::Action>,
) -> yew::UseReducerHandle<crate::state::lesson::LessonState> {
    use crate::state::lesson::{LabView, LessonAction, LessonState};
    use yew::{use_effect_with, use_reducer};
    let lesson =
        use_reducer(|| LessonState::with_progress(if crate::LESSONS { read_progress() } else { Progress::default() }));
    if !crate::LESSONS {
        // No lesson player in this build: nothing opens (a lesson asked for goes to the bundle
        // that has one, `State::elsewhere`), and the code below is left out.
        return lesson;
    }
    {
        let lesson = lesson.clone();
        use_effect_with((), move |_| {
            let value = crate::state::lesson_asked(&crate::effects::location_query());
            if let Some(v) = value.filter(|v| !v.is_empty()) {
                let to = lesson.dispatcher();
                let link = v.clone();
                load(
                    v,
                    Callback::from(move |r: Result<Lesson, String>| {
                        to.dispatch(LessonAction::Open { link: link.clone(), lesson: r.map(Box::new) })
                    }),
                );
            }
        });
    }
    {
        let outbox = lesson.outbox.clone();
        use_effect_with(lesson.seq, move |_| outbox.iter().for_each(|a| on.emit(a.clone())));
    }
    {
        let lab = LabView {
            engine: state.engine.clone(),
            playing: state.playback.playing,
            ivs_rev: state.ivs_rev,
            gen: state.gen,
        };
        let to = lesson.dispatcher();
        use_effect_with((state.gen, state.ivs_rev, state.frame.step, state.playback.playing), move |_| {
            to.dispatch(LessonAction::Observe(lab))
        });
    }
    {
        let progress = lesson.progress.clone();
        use_effect_with(lesson.progress_rev, move |&rev| {
            if rev > 0 {
                write_progress(&progress);
            }
        });
    }
    {
        let (events, id) = (lesson.events.clone(), lesson.lesson.as_ref().map(|l| l.id.clone()));
        use_effect_with(lesson.events_seq, move |_| {
            if let Some(id) = id {
                events.iter().for_each(|e| post(&id, e));
            }
        });
    }
    lesson
}
