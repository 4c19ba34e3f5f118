//! "Check every schedule", a concern of the state with its own reducer: which check runs (or
//! ran), its progress and its verdict. The checker runs in the Web Worker (`crate::worker`,
//! built with the `check` feature); the reducer makes the job (`crate::check_job`), reads the
//! replies and, for a counterexample, hands its trace's run to the one-run reducer, which opens
//! it at the violating step.
//!
//! [`Check::reduce`] is pure and takes no engine, as the search's does (`search.rs`): the job is
//! made from the scenario shown, passed in; only opening a counterexample replaces the store's
//! engine, which `State::check_apply` does.

use super::State;
use crate::check_job::{Job, Reply, MAX_STATES};
use election_lab::meta::k;
use election_lab::{registry, Engine, Scenario};
use std::rc::Rc;

/// The check sub-state of [`State`].
#[derive(Clone, Default)]
pub struct Check {
    /// The last check of every schedule asked for (running, or its verdict).
    pub current: Option<Rc<ModelCheck>>,
}

#[derive(Clone, Debug, PartialEq)]
pub enum CheckAction {
    /// Check every schedule of the scenario for this property within these bounds, in the
    /// worker (`crate::check_job`).
    Start(String, CheckBounds),
    /// A reply of the check's worker, as its JSON text.
    Reply(String),
    Cancel,
}

/// The bounds the panel asks for.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct CheckBounds {
    pub crashes: u32,
    pub partitions: u32,
    pub depth: u32,
    /// The timed model up to this tick (none: asynchronous time).
    pub horizon: Option<u64>,
}

impl Default for CheckBounds {
    fn default() -> Self {
        CheckBounds { crashes: 0, partitions: 0, depth: 8, horizon: None }
    }
}

/// Where a check stands.
#[derive(Clone, Debug, PartialEq)]
pub enum CheckStatus {
    Running {
        states: u64,
        depth: u32,
    },
    Holds {
        states: u64,
        complete: bool,
    },
    /// A shortest counterexample, opened at `step`.
    Violated {
        step: u64,
        moves: u64,
        states: u64,
    },
    Limit {
        states: u64,
    },
    Failed(String),
    Cancelled {
        states: u64,
    },
}

/// One check asked for from the invariants panel.
#[derive(Clone, Debug, PartialEq)]
pub struct ModelCheck {
    /// Numbers the checks of this page: a reply to an earlier one is ignored.
    pub id: u32,
    pub algorithm: &'static str,
    pub property: String,
    pub bounds: CheckBounds,
    /// The job as posted to the worker.
    pub job: Rc<String>,
    pub status: CheckStatus,
    /// The rule coverage of the finished check: (rule key, times fired), and the rules never fired.
    pub coverage: Option<Rc<Coverage>>,
}

/// How often each narration rule (a catalog key) fired, and the algorithm's rules that never did.
#[derive(Clone, Debug, PartialEq, Default)]
pub struct Coverage {
    pub fired: Vec<(String, u64)>,
    pub never: Vec<String>,
}

impl ModelCheck {
    pub fn running(&self) -> bool {
        matches!(self.status, CheckStatus::Running { .. })
    }

    /// `(id, running, cancelled)`: what the worker effect must do (see `Finding::key`).
    pub fn key(&self) -> (u32, bool, bool) {
        (self.id, self.running(), matches!(self.status, CheckStatus::Cancelled { .. }))
    }
}

impl Check {
    pub fn running(&self) -> bool {
        self.current.as_ref().is_some_and(|c| c.running())
    }

    /// Returns the counterexample's run when a reply brings one (to be opened as the run shown).
    pub fn reduce(&mut self, action: CheckAction, scenario: &Scenario) -> Option<Engine> {
        match action {
            CheckAction::Start(property, bounds) => self.start(property, bounds, scenario),
            CheckAction::Cancel => self.cancel(),
            CheckAction::Reply(text) => return self.reply(&text),
        }
        None
    }

    /// Starts checking every schedule of `scenario` (its own schedule included, the
    /// interventions made by hand not) for `property` within `bounds`. One check at a time.
    fn start(&mut self, property: String, bounds: CheckBounds, scenario: &Scenario) {
        if self.running() {
            return;
        }
        let id = self.current.as_ref().map_or(1, |c| c.id.wrapping_add(1));
        let job = Job {
            id,
            scenario: scenario.to_value(),
            property: property.clone(),
            crashes: bounds.crashes,
            partitions: bounds.partitions,
            depth: bounds.depth,
            horizon: bounds.horizon,
            max_states: MAX_STATES,
        };
        let algorithm = registry::find(&scenario.algorithm).map_or("", |a| a.id);
        self.current = Some(Rc::new(ModelCheck {
            id,
            algorithm,
            property,
            bounds,
            job: Rc::new(job.to_json()),
            status: CheckStatus::Running { states: 0, depth: 0 },
            coverage: None,
        }));
    }

    fn cancel(&mut self) {
        if let Some(c) = self.current.as_ref().filter(|c| c.running()) {
            let states = match c.status {
                CheckStatus::Running { states, .. } => states,
                _ => 0,
            };
            self.current = Some(Rc::new(ModelCheck { status: CheckStatus::Cancelled { states }, ..(**c).clone() }));
        }
    }

    /// A reply from the worker (JSON text).
    fn reply(&mut self, text: &str) -> Option<Engine> {
        let current = self.current.clone().filter(|c| c.running())?;
        let mut opened = None;
        let status = match Reply::from_json(text) {
            Ok((id, _)) if id != current.id && id != 0 => return None,
            Ok((_, Reply::Progress { states, depth })) => CheckStatus::Running { states, depth },
            Ok((_, Reply::Coverage { fired, never })) => {
                let coverage = Some(Rc::new(Coverage { fired, never }));
                self.current = Some(Rc::new(ModelCheck { coverage, ..(*current).clone() }));
                return None;
            }
            Ok((_, Reply::Holds { states, complete })) => CheckStatus::Holds { states, complete },
            Ok((_, Reply::Limit { states })) => CheckStatus::Limit { states },
            Ok((_, Reply::Error(e))) => CheckStatus::Failed(e),
            Err(e) => CheckStatus::Failed(e),
            Ok((_, Reply::Violated { trace, step, moves, states })) => match Engine::from_trace_value(&trace) {
                Ok(engine) => {
                    opened = Some(engine);
                    CheckStatus::Violated { step, moves, states }
                }
                Err(e) => CheckStatus::Failed(e.to_string()),
            },
        };
        self.current = Some(Rc::new(ModelCheck { status, ..(*current).clone() }));
        opened
    }
}

impl State {
    /// The check's actions; not while compare lanes are shown. Returns whether the run changed
    /// (a counterexample was opened).
    pub(super) fn check_apply(&mut self, action: CheckAction) -> bool {
        if matches!(action, CheckAction::Start(..)) && self.lanes().is_some() {
            return false;
        }
        let Some(engine) = self.check.reduce(action, &self.scenario) else { return false };
        let Some(CheckStatus::Violated { step, moves, .. }) = self.check.current.as_ref().map(|c| c.status.clone())
        else {
            return false;
        };
        let notice = k::ui_check_notice_violated(moves, step).render(self.lang);
        self.open_counterexample(engine, notice)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::state::Action;

    use crate::state::tests::run;

    #[test]
    fn the_reduce_alone_runs_one_check_at_a_time_and_keeps_its_coverage() {
        let scenario = election_lab::presets::find("split-brain-bully").unwrap().scenario();
        let mut c = Check::default();
        let bounds = CheckBounds { crashes: 1, ..CheckBounds::default() };
        assert!(c.reduce(CheckAction::Start("split-brain".into(), bounds), &scenario).is_none());
        let first = c.current.clone().unwrap();
        assert_eq!(Job::from_json(&first.job).unwrap().crashes, 1);
        c.reduce(CheckAction::Start("other".into(), CheckBounds::default()), &scenario);
        assert_eq!(c.current.as_ref().unwrap().property, "split-brain", "the first check goes on");
        let coverage = Reply::Coverage { fired: vec![], never: vec!["bully.note.start".into()] };
        c.reduce(CheckAction::Reply(coverage.to_json(first.id + 1)), &scenario);
        assert!(c.current.as_ref().unwrap().coverage.is_none(), "a stale reply is ignored");
        c.reduce(CheckAction::Reply(coverage.to_json(first.id)), &scenario);
        let holds = Reply::Holds { states: 12, complete: true };
        assert!(c.reduce(CheckAction::Reply(holds.to_json(first.id)), &scenario).is_none());
        let done = c.current.clone().unwrap();
        assert_eq!(done.status, CheckStatus::Holds { states: 12, complete: true });
        assert_eq!(done.coverage.as_ref().unwrap().never, vec!["bully.note.start".to_string()]);
        c.reduce(CheckAction::Cancel, &scenario);
        assert!(!c.running() && c.current.as_ref().unwrap().status == done.status, "nothing to cancel");
    }

    #[test]
    fn a_check_runs_reports_progress_and_is_cancelled_or_opens_its_counterexample() {
        let s = Rc::new(State::open("?preset=split-brain-bully"));
        let s = run(s, [Action::CheckEverySchedule("split-brain".into(), CheckBounds::default())]);
        let c = s.check.current.clone().unwrap();
        assert!(c.running());
        let job = Job::from_json(&c.job).unwrap();
        assert_eq!((job.property.as_str(), job.depth, job.horizon), ("split-brain", 8, None));
        // A second check waits for the first.
        let same = run(s.clone(), [Action::CheckEverySchedule("split-brain".into(), CheckBounds::default())]);
        assert_eq!(same.check.current.as_ref().unwrap().id, c.id);
        let progress = Reply::Progress { states: 40, depth: 3 };
        let s = run(s, [Action::CheckReply(progress.to_json(c.id)), Action::CheckReply(progress.to_json(c.id + 9))]);
        assert_eq!(s.check.current.as_ref().unwrap().status, CheckStatus::Running { states: 40, depth: 3 });
        // The coverage arrives before the verdict and stays with the check.
        let coverage = Reply::Coverage { fired: vec![("bully.note.start".into(), 2)], never: vec![] };
        let s = run(s, [Action::CheckReply(coverage.to_json(c.id))]);
        let kept = s.check.current.as_ref().unwrap();
        assert!(kept.running());
        assert_eq!(kept.coverage.as_ref().unwrap().fired, vec![("bully.note.start".to_string(), 2)]);
        let cancelled =
            run(s.clone(), [Action::CancelCheck, Action::CheckReply(Reply::Limit { states: 1 }.to_json(c.id))]);
        assert_eq!(cancelled.check.current.as_ref().unwrap().status, CheckStatus::Cancelled { states: 40 });
        // A counterexample (here a run of the preset itself, at its step 3) opens as the run.
        let mut e = Engine::new(s.scenario.as_ref().clone()).unwrap();
        e.run(3);
        let trace = e.trace_value();
        let opened =
            run(s, [Action::CheckReply(Reply::Violated { trace, step: 3, moves: 3, states: 9 }.to_json(c.id))]);
        assert_eq!(
            opened.check.current.as_ref().unwrap().status,
            CheckStatus::Violated { step: 3, moves: 3, states: 9 }
        );
        assert_eq!(opened.cursor(), 3);
    }
}
