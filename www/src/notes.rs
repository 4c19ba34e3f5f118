//! The lecturer's notes window: from the presenter view, a second window (`notes.html`, a static
//! page beside the app, no wasm) shows the current stop's caption and question, the expected
//! answer, the lecturer's notes of the stop (the lesson's `notes`) and the next stop, in the
//! page's language. The presenter posts what to show on a `BroadcastChannel` whenever it changes,
//! and answers the window's `hello` (sent when it opens or reloads) with the latest; so the two
//! stay in step whichever was opened first. What is shown is built here, pure and tested
//! natively; the window only places the texts it receives.

use crate::components::lesson::answer_text;
use crate::i18n::{k, tr, Lang};
use crate::state::lesson::{LessonState, Phase};
use serde_json::json;
use std::cell::RefCell;
use std::rc::Rc;
use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;

/// The channel the presenter and its notes window share (same origin).
pub const CHANNEL: &str = "election-lab-notes";
/// The notes window's page, beside the app, and its window name (one notes window at a time).
pub const PAGE: &str = "notes.html";
const NAME: &str = "election-lab-notes";

/// What the notes window shows, as the JSON text it receives: the labels and texts in `lang`.
pub fn content(lesson: &LessonState, lang: Lang) -> String {
    let t = |key| tr(lang, key);
    let labels = json!({
        "now": t(k::UI_NOTES_NOW),
        "question": t(k::UI_NOTES_QUESTION),
        "answer": t(k::UI_NOTES_ANSWER),
        "notes": t(k::UI_NOTES_NOTES),
        "next": t(k::UI_NOTES_NEXT),
    });
    // (A build without the lesson player has no lesson open: its notes say so.)
    let Some(l) = lesson.lesson.as_ref().filter(|_| crate::LESSONS) else {
        let mut v = json!({ "lang": lang.tag(), "title": t(k::UI_LECTURERS_NOTES), "empty": t(k::UI_NOTES_NO_LESSON) });
        v["labels"] = labels;
        return election_lab::write_json(&v);
    };
    let n = l.stops.len();
    let (caption, question, answer, notes) = match l.stops.get(lesson.stop).filter(|_| lesson.phase != Phase::Done) {
        Some(stop) => {
            let question =
                stop.question.as_ref().map(|q| q.prompt.get(lang)).or(stop.act.as_ref().map(|a| a.prompt.get(lang)));
            let answer = match (&stop.question, &lesson.expected) {
                (None, _) => String::new(),
                (Some(_), Some(Ok(a))) => answer_text(a, lang),
                (Some(_), Some(Err(why))) => why.clone(),
                (Some(_), None) => t(k::UI_NOTES_ANSWER_AT_THE_STOP).to_string(),
            };
            (stop.caption.get(lang).to_string(), question, answer, stop.notes.as_ref().map(|b| b.get(lang)))
        }
        None => (
            l.challenge
                .as_ref()
                .map_or_else(|| t(k::UI_NOTES_THE_END).to_string(), |c| c.caption.get(lang).to_string()),
            None,
            String::new(),
            None,
        ),
    };
    let next = match l.stops.get(lesson.stop + 1) {
        Some(s) if lesson.phase != Phase::Done => s.caption.get(lang).to_string(),
        _ => t(k::UI_NOTES_THE_END).to_string(),
    };
    // `labels` set by hand: `json!` would copy a `Value` through serde's serializer.
    let mut v = json!({
        "lang": lang.tag(),
        "title": format!("{} · {}", t(k::UI_LECTURERS_NOTES), l.title.get(lang)),
        "stop": k::ui_notes_stop_of((lesson.stop + 1).min(n) as u64, n as u64).render(lang),
        "caption": caption,
        "question": question.unwrap_or_default(),
        "answer": answer,
        "notes": notes.unwrap_or_default(),
        "next": next,
    });
    v["labels"] = labels;
    election_lab::write_json(&v)
}

#[wasm_bindgen]
extern "C" {
    /// The browser's `BroadcastChannel` (declared here: the page's web-sys has no such feature).
    type BroadcastChannel;
    #[wasm_bindgen(constructor, catch)]
    fn new(name: &str) -> Result<BroadcastChannel, JsValue>;
    #[wasm_bindgen(method, js_name = postMessage)]
    fn post_message(this: &BroadcastChannel, message: &str);
    #[wasm_bindgen(method, setter)]
    fn set_onmessage(this: &BroadcastChannel, f: &js_sys::Function);
}

/// Opens the notes window (or brings the open one forward).
pub fn open() {
    if let Some(w) = web_sys::window() {
        let _ = w.open_with_url_and_target_and_features(PAGE, NAME, "popup,width=760,height=720");
    }
}

/// The presenter's channel, the closure answering `hello`, and the latest content posted.
type Live = (BroadcastChannel, Closure<dyn FnMut(web_sys::MessageEvent)>, Rc<RefCell<String>>);

thread_local! {
    static LIVE: RefCell<Option<Live>> = const { RefCell::new(None) };
}

/// Keeps a notes window in step, called as the page is drawn: in the presenter view, `content`
/// is posted when it differs from the last, and sent again to a window that says `hello`;
/// elsewhere the channel is closed. (A call while drawing rather than an effect hook: the same
/// result for less of the page's wasm.)
pub fn sync(present: bool, content: impl FnOnce() -> String) {
    LIVE.with(|live| {
        let mut live = live.borrow_mut();
        if !present {
            *live = None;
            return;
        }
        if live.is_none() {
            let Ok(channel) = BroadcastChannel::new(CHANNEL) else { return };
            let latest: Rc<RefCell<String>> = Rc::default();
            let on_message = {
                let (latest, answer) = (latest.clone(), BroadcastChannel::new(CHANNEL).ok());
                Closure::<dyn FnMut(web_sys::MessageEvent)>::new(move |e: web_sys::MessageEvent| {
                    if let (Some("hello"), Some(a)) = (e.data().as_string().as_deref(), &answer) {
                        a.post_message(&latest.borrow());
                    }
                })
            };
            channel.set_onmessage(on_message.as_ref().unchecked_ref());
            *live = Some((channel, on_message, latest));
        }
        if let Some((channel, _, latest)) = live.as_ref() {
            let content = content();
            if *latest.borrow() != content {
                channel.post_message(&content);
                *latest.borrow_mut() = content;
            }
        }
    });
}

#[cfg(test)]
#[cfg(feature = "lessons")]
mod tests {
    use super::*;
    use election_lab::lesson::{course, Answer};
    use serde_json::Value;

    fn at(stop: usize, expected: Option<Answer>) -> LessonState {
        let lesson = course::find("bully").unwrap();
        let mut s = LessonState::default();
        s.lesson = Some(Rc::new(lesson));
        s.stop = stop;
        s.phase = Phase::At;
        s.expected = expected.map(Ok);
        s
    }

    fn read(s: &LessonState, lang: Lang) -> Value {
        serde_json::from_str(&content(s, lang)).unwrap()
    }

    #[test]
    fn the_notes_show_the_stop_its_answer_the_lecturers_notes_and_the_next_stop() {
        let s = at(0, Some(Answer::Node(Some(7))));
        let l = s.lesson.clone().unwrap();
        let v = read(&s, Lang::En);
        assert_eq!(v["caption"], l.stops[0].caption.en.as_str());
        assert_eq!(v["question"], l.stops[0].question.as_ref().unwrap().prompt.en.as_str());
        assert_eq!(v["answer"], "N7");
        assert_eq!(v["notes"], l.stops[0].notes.as_ref().unwrap().en.as_str());
        assert_eq!(v["next"], l.stops[1].caption.en.as_str());
        assert_eq!(v["stop"], format!("Stop 1 of {}", l.stops.len()));
        assert_eq!(v["labels"]["answer"], "Expected answer");
        // In Chinese, every text is the Chinese one.
        let zh = read(&s, Lang::Zh);
        assert_eq!(zh["lang"], "zh");
        assert_eq!(zh["caption"], l.stops[0].caption.zh.as_str());
        assert_eq!(zh["notes"], l.stops[0].notes.as_ref().unwrap().zh.as_str());
        assert_ne!(zh["labels"]["answer"], v["labels"]["answer"]);
    }

    #[test]
    fn an_answer_not_yet_computed_a_stop_without_notes_the_last_stop_and_no_lesson() {
        let s = at(0, None);
        assert_eq!(read(&s, Lang::En)["answer"], "Computed when the class reaches this stop");
        let l = s.lesson.clone().unwrap();
        let plain = l.stops.iter().position(|st| st.notes.is_none() && st.question.is_none()).unwrap();
        let v = read(&at(plain, None), Lang::En);
        assert_eq!((v["notes"].as_str(), v["answer"].as_str()), (Some(""), Some("")));
        let last = read(&at(l.stops.len() - 1, None), Lang::En);
        assert_eq!(last["next"], "The end of the lesson");
        let none = read(&LessonState::default(), Lang::En);
        assert_eq!(none["empty"], "No lesson is open: open one from Lessons to see its notes here.");
    }
}
