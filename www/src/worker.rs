//! The page's side of its Web Worker (`src/lab_worker.rs`), which runs the counterexample search
//! and the experiments' sweeps: an instance per kind of job, created when its first job is asked
//! for (so neither the worker's script nor its wasm is part of the first load), sent the job once
//! it says it is ready, its replies dispatched to the reducer as they come, and terminated when
//! its job is cancelled or abandoned (the next job starts a new one).

use crate::i18n::{tr, Lang};
use crate::search_job::{error_json, READY};
use crate::state::{Action, Finding, ModelCheck};
use election_lab::meta::{k, Text};
use std::cell::{Cell, RefCell};
use std::rc::Rc;
use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;
use web_sys::{MessageEvent, Worker};
use yew::prelude::*;

/// The worker's loader, as Trunk names it (`data-bin="lab-worker"`, `data-loader-shim`),
/// beside the page: an ES module (`data-bindgen-target="web"`), so the worker is a module worker.
pub const LOADER: &str = "./lab-worker_loader.js";

/// A live worker and what it needs to receive jobs.
struct Live {
    worker: Worker,
    ready: Rc<Cell<bool>>,
    /// A job waiting for the worker to be ready.
    pending: Rc<RefCell<Option<String>>>,
    _on_message: Closure<dyn FnMut(MessageEvent)>,
    _on_error: Closure<dyn FnMut(web_sys::Event)>,
}

/// How replies reach the reducer: the action for a reply's text, and the words for a worker
/// that could not run.
#[derive(Clone, Copy)]
struct Route {
    reply: fn(String) -> Action,
    failed: Text,
}

impl Live {
    fn spawn(lang: Lang, route: Route, on: Callback<Action>) -> Result<Live, JsValue> {
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
                    on.emit((route.reply)(text));
                }
            })
        };
        let on_error = Closure::<dyn FnMut(web_sys::Event)>::new(move |_| {
            on.emit((route.reply)(error_json(tr(lang, route.failed))));
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

/// What a worker must do now.
#[derive(Clone, PartialEq)]
enum Want {
    /// Run job number `.0` (its text), starting the worker if there is none.
    Run(u32, Rc<String>),
    /// Terminate the worker, if there is one.
    Stop,
    /// Leave it as it is (a finished search's worker waits for the next).
    Keep,
}

/// One kind of job's worker, and what was last asked of it.
struct Slot {
    live: Option<Live>,
    last: Want,
    route: Route,
}

impl Slot {
    fn act(&mut self, want: &Want, lang: Lang, on: &Callback<Action>) {
        if *want == self.last {
            return;
        }
        self.last = want.clone();
        match want {
            Want::Run(_, job) => {
                if self.live.is_none() {
                    match Live::spawn(lang, self.route, on.clone()) {
                        Ok(live) => self.live = Some(live),
                        Err(e) => {
                            let why = e.as_string().unwrap_or_else(|| format!("{e:?}"));
                            return on.emit((self.route.reply)(error_json(&why)));
                        }
                    }
                }
                if let Some(live) = &self.live {
                    live.post(job);
                }
            }
            Want::Stop => {
                if let Some(live) = self.live.take() {
                    live.worker.terminate();
                }
            }
            Want::Keep => {}
        }
    }
}

/// Runs the state's jobs in workers, one for each kind: the counterexample search, the check
/// of every schedule and an assignment's grading (each started when one is asked for, terminated when it is cancelled; a
/// finished one's worker waits for the next) and the experiments view's sweep (started by Run, terminated as soon as no sweep runs:
/// cancelled, finished, another experiment chosen, or the view left).
#[hook]
pub fn use_workers(
    search: Option<Rc<Finding>>,
    check: Option<Rc<ModelCheck>>,
    sweep: Option<(u32, Rc<String>)>,
    grade: Option<Rc<crate::state::assignment::Taking>>,
    lang: Lang,
    on: Callback<Action>,
) {
    let slots = use_mut_ref(|| {
        [
            Slot {
                live: None,
                last: Want::Keep,
                route: Route { reply: Action::SearchReply, failed: k::UI_THE_SEARCHS_WORKER_COULD_NOT },
            },
            Slot {
                live: None,
                last: Want::Keep,
                route: Route { reply: Action::CheckReply, failed: k::UI_CHECK_WORKER_FAILED },
            },
            Slot {
                live: None,
                last: Want::Keep,
                route: Route { reply: Action::SweepReply, failed: k::UI_THE_SWEEPS_WORKER_COULD_NOT },
            },
            Slot {
                live: None,
                last: Want::Keep,
                route: Route {
                    reply: |t| Action::Assignment(crate::state::assignment::AssignmentAction::Reply(t)),
                    failed: k::UI_GRADE_WORKER_FAILED,
                },
            },
        ]
    });
    let search = match search.as_deref() {
        Some(s) if s.running() => Want::Run(s.id, s.job.clone()),
        Some(s) if s.key().2 => Want::Stop,
        _ => Want::Keep,
    };
    let check = match check.as_deref() {
        Some(c) if c.running() => Want::Run(c.id, c.job.clone()),
        Some(c) if c.key().2 => Want::Stop,
        _ => Want::Keep,
    };
    let sweep = sweep.map_or(Want::Stop, |(id, job)| Want::Run(id, job));
    let grade = match grade.as_deref() {
        Some(g) if g.running() => Want::Run(g.job_id, g.job.clone()),
        Some(g) if g.key().2 => Want::Stop,
        _ => Want::Keep,
    };
    use_effect_with([search, check, sweep, grade], move |wants| {
        // Only the workbench runs searches, checks and sweeps (the player hands them to it).
        for (slot, want) in slots.borrow_mut().iter_mut().zip(wants).filter(|_| crate::WORKBENCH) {
            slot.act(want, lang, &on);
        }
    });
}
