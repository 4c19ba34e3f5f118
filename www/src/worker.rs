//! The page's side of the counterexample search's Web Worker (`src/search_worker.rs`): created
//! on the first search (so neither its script nor its wasm is part of the first load), sent the
//! job once it says it is ready, its replies dispatched to the reducer as they come, and
//! terminated by Cancel (the next search starts a new one).

use crate::i18n::{tr, Lang};
use crate::search_job::{error_json, READY};
use crate::state::{Action, Finding};
use election_lab::meta::k;
use std::cell::{Cell, RefCell};
use std::rc::Rc;
use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;
use web_sys::{MessageEvent, Worker};
use yew::prelude::*;

/// The worker's loader, as Trunk names it (`data-bin="search-worker"`, `data-loader-shim`),
/// beside the page: an ES module (`data-bindgen-target="web"`), so the worker is a module worker.
pub const LOADER: &str = "./search-worker_loader.js";

/// A live worker and what it needs to receive jobs.
struct Live {
    worker: Worker,
    ready: Rc<Cell<bool>>,
    /// A job waiting for the worker to be ready.
    pending: Rc<RefCell<Option<String>>>,
    _on_message: Closure<dyn FnMut(MessageEvent)>,
    _on_error: Closure<dyn FnMut(web_sys::Event)>,
}

impl Live {
    fn spawn(lang: Lang, on: Callback<Action>) -> Result<Live, JsValue> {
        let options = web_sys::WorkerOptions::new();
        options.set_type(web_sys::WorkerType::Module);
        let worker = Worker::new_with_options(LOADER, &options)?;
        let ready = Rc::new(Cell::new(false));
        let pending: Rc<RefCell<Option<String>>> = Rc::default();
        let on_message = {
            let (worker, ready, pending, on) = (worker.clone(), ready.clone(), pending.clone(), on.clone());
            Closure::<dyn FnMut(MessageEvent)>::new(move |e: MessageEvent| {
                let text = e.data().as_string().unwrap_or_default();
                if text == READY {
                    ready.set(true);
                    if let Some(job) = pending.borrow_mut().take() {
                        let _ = worker.post_message(&JsValue::from_str(&job));
                    }
                } else {
                    on.emit(Action::SearchReply(text));
                }
            })
        };
        let on_error = Closure::<dyn FnMut(web_sys::Event)>::new(move |_| {
            let why = tr(lang, k::UI_THE_SEARCHS_WORKER_COULD_NOT);
            on.emit(Action::SearchReply(error_json(why)));
        });
        worker.set_onmessage(Some(on_message.as_ref().unchecked_ref()));
        worker.set_onerror(Some(on_error.as_ref().unchecked_ref()));
        Ok(Live { worker, ready, pending, _on_message: on_message, _on_error: on_error })
    }

    fn post(&self, job: &str) {
        if self.ready.get() {
            let _ = self.worker.post_message(&JsValue::from_str(job));
        } else {
            *self.pending.borrow_mut() = Some(job.to_string());
        }
    }
}

/// Runs the state's search in the worker: starts a job when one is asked for, and terminates
/// the worker when it is cancelled.
#[hook]
pub fn use_search_worker(search: Option<Rc<Finding>>, lang: Lang, on: Callback<Action>) {
    let slot = use_mut_ref(|| None::<Live>);
    let key = search.as_ref().map(|s| s.key());
    use_effect_with(key, move |key| match (key, search) {
        (Some((_, true, _)), Some(s)) => {
            if slot.borrow().is_none() {
                match Live::spawn(lang, on.clone()) {
                    Ok(live) => *slot.borrow_mut() = Some(live),
                    Err(e) => {
                        let why = e.as_string().unwrap_or_else(|| format!("{e:?}"));
                        on.emit(Action::SearchReply(error_json(&why)));
                        return;
                    }
                }
            }
            if let Some(live) = slot.borrow().as_ref() {
                live.post(&s.job);
            }
        }
        (Some((_, false, true)), _) => {
            if let Some(live) = slot.borrow_mut().take() {
                live.worker.terminate();
            }
        }
        _ => {}
    });
}
