//! "Find a counterexample", a concern of the state with its own reducer: which search runs (or
//! ran), its progress, and its outcome. The search itself runs in a Web Worker
//! (`crate::worker`); the reducer only makes the job, reads the worker's replies
//! (`crate::search_job::Reply`, as text) and, when a counterexample comes back, hands its trace's
//! run to the one-run reducer, which opens it at the violating step.
//!
//! [`Search::reduce`] is pure and takes no engine: a job is made from the scenario shown (passed
//! in), and a counterexample's run is built from its trace alone; only opening it replaces the
//! store's engine, which `State::search_apply` does.

use super::{property_name, State};
use crate::i18n::Lang;
use crate::search_job::{Job, Reply, Tried};
use election_lab::meta::k;
use election_lab::{registry, Engine, Scenario};
use std::rc::Rc;

/// The search sub-state of [`State`].
#[derive(Clone, Default)]
pub struct Search {
    /// The last search asked for (running, or how it ended).
    pub current: Option<Rc<Finding>>,
}

#[derive(Clone, Debug, PartialEq)]
pub enum SearchAction {
    /// Search for a schedule of faults that breaks this property (an id the engine's search
    /// reads), in the worker.
    Find(String),
    /// A reply of the search's worker, as its JSON text.
    Reply(String),
    Cancel,
}

/// Where a search stands.
#[derive(Clone, Debug, PartialEq)]
pub enum SearchStatus {
    Running(Tried),
    /// Found, shrunk and opened at `step`; what the shrunk schedule changed of the scenario
    /// (from the trace's `search`), to be said.
    Found {
        step: u64,
        tried: Tried,
        ms: f64,
        changes: Option<election_lab::search::Changes>,
    },
    /// The budget was spent without a violation.
    NoneFound {
        tried: Tried,
        ms: f64,
    },
    Failed(String),
    Cancelled(Tried),
}

/// One search asked for from the invariants panel.
#[derive(Clone, Debug, PartialEq)]
pub struct Finding {
    /// Numbers the searches of this page: a reply to an earlier one is ignored.
    pub id: u32,
    /// The algorithm searched and the property's id (see `election_lab::search`).
    pub algorithm: &'static str,
    pub property: String,
    /// The job as posted to the worker.
    pub job: Rc<String>,
    pub status: SearchStatus,
}

impl Finding {
    pub fn running(&self) -> bool {
        matches!(self.status, SearchStatus::Running(_))
    }

    /// The property's name in `lang`: its title where the algorithm claims it, else (split brain
    /// on an algorithm that does not claim a single leader) "two leaders at once".
    pub fn name(&self, lang: Lang) -> &'static str {
        property_name(self.algorithm, &self.property, lang)
    }

    /// What the worker effect must do: `(id, running, cancelled)` changes exactly when it must
    /// start a job or stop the worker.
    pub fn key(&self) -> (u32, bool, bool) {
        (self.id, self.running(), matches!(self.status, SearchStatus::Cancelled(_)))
    }
}

impl Search {
    pub fn running(&self) -> bool {
        self.current.as_ref().is_some_and(|s| s.running())
    }

    /// Returns the counterexample's run when a reply brings one (to be opened as the run shown).
    pub fn reduce(&mut self, action: SearchAction, scenario: &Scenario) -> Option<Engine> {
        match action {
            SearchAction::Find(property) => self.find(property, scenario),
            SearchAction::Cancel => self.cancel(),
            SearchAction::Reply(text) => return self.reply(&text),
        }
        None
    }

    /// Starts a search for a counterexample to `property` on `scenario` (its own schedule of
    /// faults included; the interventions made by hand are not: the search makes its own). One
    /// search at a time: the buttons wait while one runs.
    fn find(&mut self, property: String, scenario: &Scenario) {
        if self.running() {
            return;
        }
        let id = self.current.as_ref().map_or(1, |s| s.id.wrapping_add(1));
        let job = Job::new(id, scenario, &property);
        let algorithm = registry::find(&scenario.algorithm).map_or("", |a| a.id);
        let tried = Tried { budget_steps: job.budget_steps, ..Tried::default() };
        self.current = Some(Rc::new(Finding {
            id,
            algorithm,
            property,
            job: Rc::new(job.to_json()),
            status: SearchStatus::Running(tried),
        }));
    }

    fn cancel(&mut self) {
        if let Some(s) = self.current.as_ref().filter(|s| s.running()) {
            let tried = match s.status {
                SearchStatus::Running(t) => t,
                _ => Tried::default(),
            };
            self.current = Some(Rc::new(Finding { status: SearchStatus::Cancelled(tried), ..(**s).clone() }));
        }
    }

    /// A reply from the worker (JSON text).
    fn reply(&mut self, text: &str) -> Option<Engine> {
        let current = self.current.clone().filter(|s| s.running())?;
        let mut opened = None;
        let status = match Reply::from_json(text) {
            Ok((id, _)) if id != current.id && id != 0 => return None,
            Ok((_, Reply::Progress(t))) => SearchStatus::Running(t),
            Ok((_, Reply::None { tried, ms })) => SearchStatus::NoneFound { tried, ms },
            Ok((_, Reply::Error(e))) => SearchStatus::Failed(e),
            Err(e) => SearchStatus::Failed(e),
            Ok((_, Reply::Found { trace, step, tried, ms })) => match Engine::from_trace_value(&trace) {
                Ok(engine) => {
                    opened = Some(engine);
                    let changes = election_lab::search::Changes::from_value(&trace["search"]["changes"]);
                    SearchStatus::Found { step, tried, ms, changes }
                }
                Err(e) => SearchStatus::Failed(e.to_string()),
            },
        };
        self.current = Some(Rc::new(Finding { status, ..(*current).clone() }));
        opened
    }
}

impl State {
    /// The search's actions; not while compare lanes are shown. Returns whether the run changed
    /// (a counterexample was opened).
    pub(super) fn search_apply(&mut self, action: SearchAction) -> bool {
        if matches!(action, SearchAction::Find(_)) && self.lanes().is_some() {
            return false;
        }
        let Some(engine) = self.search.reduce(action, &self.scenario) else { return false };
        let Some(SearchStatus::Found { step, tried, .. }) = self.search.current.as_ref().map(|f| f.status.clone())
        else {
            return false;
        };
        let notice = k::ui_counterexample_found_after_0_schedules(tried.schedules, step).render(self.lang);
        self.open_counterexample(engine, notice)
    }

    /// A counterexample's run (a search's or a check's) opened as the run shown, in place of
    /// compare lanes if any, with `notice` said.
    pub(super) fn open_counterexample(&mut self, engine: Engine, notice: String) -> bool {
        if self.lanes().is_some() {
            self.close_compare();
        }
        self.load(Ok(engine), None, |e| e);
        self.messages.alert = None;
        self.messages.notice = Some(notice);
        true
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::state::Action;
    use election_lab::meta::SPLIT_BRAIN;

    use crate::state::tests::run;

    /// What the worker would post for the state's job.
    fn worker_replies(s: &State) -> Vec<String> {
        let mut out = vec![];
        crate::search_job::run(&s.search.current.as_ref().unwrap().job, || 0.0, |t| out.push(t));
        out
    }

    #[test]
    fn the_reduce_alone_runs_one_search_at_a_time_and_ignores_stale_replies() {
        let scenario = election_lab::presets::find("split-brain-raft").unwrap().scenario();
        let mut s = Search::default();
        assert!(s.reduce(SearchAction::Find("split-brain".into()), &scenario).is_none());
        let f = s.current.clone().unwrap();
        assert_eq!(f.algorithm, registry::find(&scenario.algorithm).unwrap().id);
        assert!(s.running());
        s.reduce(SearchAction::Find("two-leaders-in-term".into()), &scenario);
        assert_eq!(s.current.as_ref().unwrap().property, "split-brain", "the first search goes on");
        let progress = Reply::Progress(Tried { schedules: 3, ..Tried::default() });
        assert!(s.reduce(SearchAction::Reply(progress.to_json(f.id + 1)), &scenario).is_none());
        assert!(matches!(s.current.as_ref().unwrap().status, SearchStatus::Running(t) if t.schedules == 0));
        s.reduce(SearchAction::Reply(progress.to_json(f.id)), &scenario);
        assert!(matches!(s.current.as_ref().unwrap().status, SearchStatus::Running(t) if t.schedules == 3));
        assert!(s.reduce(SearchAction::Reply("not a reply".into()), &scenario).is_none());
        assert!(matches!(s.current.as_ref().unwrap().status, SearchStatus::Failed(_)));
        s.reduce(SearchAction::Cancel, &scenario);
        assert!(matches!(s.current.as_ref().unwrap().status, SearchStatus::Failed(_)), "nothing to cancel");
        s.reduce(SearchAction::Find("split-brain".into()), &scenario);
        assert_eq!(s.current.as_ref().unwrap().id, f.id + 1);
    }

    #[test]
    fn a_counterexample_opens_as_the_new_run_at_its_violating_step() {
        let s =
            run(Rc::new(State::open("?preset=split-brain-bully")), [Action::FindCounterexample("split-brain".into())]);
        let f = s.search.current.clone().unwrap();
        assert!(f.running());
        assert_eq!(f.name(Lang::En), "Single leader");
        // A second search waits for the first.
        let again = run(s.clone(), [Action::FindCounterexample("split-brain".into())]);
        assert_eq!(again.search.current.as_ref().unwrap().id, f.id);
        let s = run(s.clone(), worker_replies(&s).into_iter().map(Action::SearchReply));
        let SearchStatus::Found { step, ref changes, .. } = s.search.current.as_ref().unwrap().status else {
            panic!("{:?}", s.search.current)
        };
        assert_eq!(s.cursor(), step);
        // What the shrunk schedule runs with that the preset does not is there to be said.
        let changes = changes.as_ref().expect("the trace says what the search changed");
        let preset = election_lab::presets::find("split-brain-bully").unwrap().scenario();
        let e = s.engine.get();
        assert_eq!(
            changes.faults.1,
            e.interventions().iter().filter(|iv| !matches!(iv.action, election_lab::Action::Defer(_))).count()
        );
        assert_eq!(changes.seed.is_some(), e.scenario().seed != preset.seed);
        assert_eq!(changes.latency.is_some(), e.scenario().network.latency != preset.network.latency);
        drop(e);
        assert!(s.preset.is_none(), "a new run, not the preset");
        let e = s.engine.get();
        assert!(e.violations().iter().any(|v| v.kind == SPLIT_BRAIN && v.step == step));
        assert!(
            s.messages.notice.as_deref().unwrap().contains(&format!("violating step {step}")),
            "{:?}",
            s.messages.notice
        );
        assert!(s.frame.leaders.len() >= 2, "two leaders at the step shown");
    }

    #[test]
    fn cancel_stops_listening_and_stale_replies_are_ignored() {
        let s = run(
            Rc::new(State::open("?preset=split-brain-raft")),
            [Action::FindCounterexample("two-leaders-in-term".into())],
        );
        let id = s.search.current.as_ref().unwrap().id;
        let progress =
            Reply::Progress(Tried { schedules: 5, states: 50, steps: 900, budget_steps: 1000, ..Tried::default() });
        let s = run(s, [Action::SearchReply(progress.to_json(id)), Action::SearchReply(progress.to_json(id + 7))]);
        assert!(matches!(s.search.current.as_ref().unwrap().status, SearchStatus::Running(t) if t.schedules == 5));
        let s = run(s, [Action::CancelSearch]);
        let f = s.search.current.clone().unwrap();
        assert_eq!(f.key(), (id, false, true), "the worker is told to stop");
        let late = Reply::None { tried: Tried::default(), ms: 1.0 };
        let s = run(s, [Action::SearchReply(late.to_json(id))]);
        assert!(matches!(s.search.current.as_ref().unwrap().status, SearchStatus::Cancelled(t) if t.schedules == 5));
        // The next search gets a new id.
        let s = run(s, [Action::FindCounterexample("split-brain".into())]);
        assert_eq!(s.search.current.as_ref().unwrap().id, id + 1);
    }

    #[test]
    fn unclaimed_split_brain_is_named_and_a_refusal_is_shown() {
        assert_eq!(property_name("gossip", SPLIT_BRAIN, Lang::Zh), "同时出现两个领导者");
        let s = run(Rc::new(State::open("?preset=split-brain-bully")), [Action::FindCounterexample("nope".into())]);
        let s = run(s.clone(), worker_replies(&s).into_iter().map(Action::SearchReply));
        assert!(matches!(&s.search.current.as_ref().unwrap().status, SearchStatus::Failed(m) if m.contains("'nope'")));
    }
}
