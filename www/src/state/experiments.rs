//! The experiments view in the reducer: the experiment shown, its trial count and spec as typed,
//! and its sweep — asked for, running in the Web Worker (`crate::worker`, `crate::sweep_job`),
//! cancelled, failed or finished. The reducer makes the job and reads the worker's replies; when
//! the rows come back it builds the sweep of the same spec and adopts them (`Sweep::adopt`), so
//! the plot, tables and downloads are what a sweep run on the page would give, byte for byte.

use super::{ready_experiment, Action, Mode, State};
use crate::i18n::{tr, Lang};
use crate::sweep_job::{self, Reply};
use election_lab::experiment::{Sweep, READY};
use election_lab::meta::k;
use serde_json::Value;
use std::rc::Rc;

/// Most trials per line the field accepts.
pub const MAX_TRIALS: u64 = 10_000;

/// The ready-made spec of experiment `id` (the first one if `id` is unknown).
pub fn spec_of(id: &str) -> &'static str {
    READY.iter().find(|r| r.0 == id).unwrap_or(&READY[0]).1
}

/// A spec's title in `lang` (a text or `{"en": ..., "zh": ...}`), else `id`.
pub fn title_of(spec: &Value, lang: Lang, id: &str) -> String {
    let t = &spec["title"];
    t.as_str().or_else(|| t[lang.tag()].as_str()).unwrap_or(id).to_string()
}

/// The trials a spec gives each line that does not set its own: its `seeds.count` (default 1).
pub fn trials_of(spec: &Value) -> u64 {
    spec["seeds"]["count"].as_u64().unwrap_or(1)
}

/// `spec` with `trials` random seeds for each line that does not set its own count (its
/// `seeds.count`; the first seed, `seeds.start`, is kept).
pub fn with_trials(spec: &mut Value, trials: u64) {
    if let Some(o) = spec.as_object_mut() {
        let seeds = o.entry("seeds").or_insert(Value::Null);
        if seeds.is_null() {
            *seeds = Value::Object(Default::default());
        }
        if !seeds.is_object() {
            // Left as it is: the spec's reader names the field.
            return;
        }
        seeds["count"] = trials.into();
    }
}

/// The trial count typed in the field, or why not (naming the field).
pub fn parse_trials(text: &str, lang: Lang) -> Result<u64, String> {
    match text.trim().parse::<u64>() {
        Ok(n) if (1..=MAX_TRIALS).contains(&n) => Ok(n),
        _ => Err(k::UI_TRIALS_INVALID.format(lang, &[&MAX_TRIALS, &text.trim()])),
    }
}

/// The spec the view would run (the text with the trial count applied) and its sweep, read and
/// checked (every error names its field).
pub fn plan_spec(spec: &str, trials: &str, lang: Lang) -> Result<(Value, Sweep), String> {
    let mut v: Value =
        serde_json::from_str(spec).map_err(|e| format!("{}{e}", tr(lang, k::UI_SPEC_JSON_NOT_VALID_JSON)))?;
    // A key given twice, of which serde_json keeps the last, is named as the engine's readers name it.
    election_lab::parse_json(spec).map_err(|e| format!("{}{e}", tr(lang, k::UI_SPEC_JSON)))?;
    let n = parse_trials(trials, lang)?;
    with_trials(&mut v, n);
    let sweep = Sweep::from_value(&v).map_err(|e| format!("{}{e}", tr(lang, k::UI_SPEC_JSON)))?;
    Ok((v, sweep))
}

/// The sweep the view would run (see [`plan_spec`]).
pub fn plan(spec: &str, trials: &str, lang: Lang) -> Result<Sweep, String> {
    plan_spec(spec, trials, lang).map(|p| p.1)
}

/// A finished sweep, shared; equal only to itself (cheap to compare as a prop).
#[derive(Clone)]
pub struct Finished(pub Rc<Sweep>);

impl PartialEq for Finished {
    fn eq(&self, other: &Self) -> bool {
        Rc::ptr_eq(&self.0, &other.0)
    }
}

impl std::fmt::Debug for Finished {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        self.0.fmt(f)
    }
}

/// Where the sweep stands.
#[derive(Clone, Debug, PartialEq)]
pub enum Phase {
    Idle,
    /// Job number `job` (its text as posted) runs in the worker; `spec` is what it runs.
    Running {
        job: u32,
        text: Rc<String>,
        spec: Rc<Value>,
    },
    Cancelled,
    /// Finished in `ms` milliseconds of the worker's clock.
    Done {
        ms: f64,
        sweep: Finished,
    },
    Failed(String),
}

/// The experiment shown and its sweep.
#[derive(Clone, Debug, PartialEq)]
pub struct Pane {
    /// An id of `experiment::READY`.
    pub id: &'static str,
    /// The spec and the trial count as typed.
    pub spec: Rc<String>,
    pub trials: Rc<String>,
    pub phase: Phase,
    /// Runs done, and in all (the progress bar).
    pub progress: (u64, u64),
}

impl Pane {
    /// Experiment `id` as it is ready-made, nothing run.
    pub fn new(id: &'static str) -> Pane {
        let spec = spec_of(id);
        let trials = trials_of(&serde_json::from_str(spec).unwrap_or_default());
        Pane {
            id,
            spec: Rc::new(spec.into()),
            trials: Rc::new(trials.to_string()),
            phase: Phase::Idle,
            progress: (0, 0),
        }
    }

    pub fn running(&self) -> bool {
        matches!(self.phase, Phase::Running { .. })
    }

    /// The job the worker must run now (its number and text), if a sweep is running.
    pub fn job(&self) -> Option<(u32, Rc<String>)> {
        match &self.phase {
            Phase::Running { job, text, .. } => Some((*job, text.clone())),
            _ => None,
        }
    }

    /// The trial count or the spec, as typed (ignored while a sweep runs: the fields wait).
    pub fn edit(&mut self, trials: Option<String>, spec: Option<String>) {
        if self.running() {
            return;
        }
        if let Some(t) = trials {
            self.trials = Rc::new(t);
        }
        if let Some(s) = spec {
            self.spec = Rc::new(s);
        }
    }

    /// Run (again): job number `job`, or why the spec cannot run.
    pub fn run(&mut self, job: u32, lang: Lang) {
        if self.running() {
            return;
        }
        match plan_spec(&self.spec, &self.trials, lang) {
            Ok((spec, sweep)) => {
                self.progress = (0, sweep.progress().total);
                let text = Rc::new(sweep_job::job_json(job, &spec));
                self.phase = Phase::Running { job, text, spec: Rc::new(spec) };
            }
            Err(e) => self.phase = Phase::Failed(e),
        }
    }

    pub fn cancel(&mut self) {
        if self.running() {
            self.phase = Phase::Cancelled;
        }
    }

    /// A reply of the worker (JSON text): progress, the rows, or why it failed.
    pub fn reply(&mut self, text: &str) {
        let Phase::Running { job, spec, .. } = &self.phase else { return };
        self.phase = match Reply::from_json(text) {
            Ok((id, _)) if id != *job && id != 0 => return,
            Ok((_, Reply::Progress { done, total })) => {
                self.progress = (done, total);
                return;
            }
            Ok((_, Reply::Done { rows, ms })) => {
                let built = Sweep::from_value(spec).map_err(|e| e.to_string());
                match built.and_then(|mut s| s.adopt(rows).map(|p| (s, p))) {
                    Ok((s, p)) => {
                        self.progress = (p.done, p.total);
                        Phase::Done { ms, sweep: Finished(Rc::new(s)) }
                    }
                    Err(e) => Phase::Failed(e),
                }
            }
            Ok((_, Reply::Error(e))) | Err(e) => Phase::Failed(e),
        };
    }
}

impl State {
    /// The job the sweep's worker must run now, if a sweep runs in the view shown.
    pub fn sweep_job(&self) -> Option<(u32, Rc<String>)> {
        self.experiments().and_then(Pane::job)
    }

    /// The experiments view's reducer: its own actions; the language, the dialogs and the
    /// search's replies go on to the one-run reducer, which shares them (`Err`); the simulator
    /// is hidden, so its keys (Space, arrows, R, ...) wait until it is back.
    // The action handed back is the one given, moved: boxing it would cost every action.
    #[allow(clippy::result_large_err)]
    pub(super) fn experiments_apply(&mut self, action: Action) -> Result<bool, Action> {
        let Mode::Experiments(lab) = &mut self.mode else { return Err(action) };
        let pane = &mut lab.pane;
        match action {
            Action::SetTrials(t) => pane.edit(Some(t), None),
            Action::SetSpec(s) => pane.edit(None, Some(s)),
            Action::RestoreSpec => pane.edit(None, Some(spec_of(pane.id).into())),
            Action::RunSweep if !pane.running() => {
                self.sweeps = self.sweeps.wrapping_add(1);
                pane.run(self.sweeps, self.lang);
            }
            Action::CancelSweep => pane.cancel(),
            Action::SweepReply(text) => pane.reply(&text),
            Action::PickExperiment(id) => {
                if let Some(id) = ready_experiment(id) {
                    self.experiment = id;
                    if pane.id != id {
                        *pane = Pane::new(id);
                    }
                }
            }
            Action::ToggleExperiments | Action::CloseExperiments => self.leave_experiments(),
            // The view's own dialogs close first; then Escape goes back to the simulator.
            Action::Escape if !(self.dialogs.help || self.dialogs.share.is_some()) => self.leave_experiments(),
            // A run of the table opens in the lab.
            Action::OpenRun(text) => {
                self.leave_experiments();
                return Err(Action::OpenRun(text));
            }
            a @ (Action::SetLang(_)
            | Action::CatalogArrived(..)
            | Action::ToggleLang
            | Action::ToggleHelp
            | Action::Dismiss
            | Action::CloseShare
            | Action::Escape
            | Action::SearchReply(_)
            | Action::CancelSearch
            | Action::CheckReply(_)
            | Action::CancelCheck) => return Err(a),
            _ => {}
        }
        Ok(false)
    }
}

#[cfg(test)]
mod tests;
