//! A scripted run is computed in slices between frames, so that a slow script (each handler
//! within its budget, but many operations a step) never keeps the page busy: moving the cursor
//! and computing the run ahead of it become a goal that [`Action::Compute`] works toward a few
//! steps at a time (the engine's `seek_some` and `advance_some`, which move the cursor only once
//! the step is ready), the page yielding to the browser in between (`effects::use_compute`).
//! Every other action still works meanwhile. The built-in algorithms compute at once, as before,
//! except when the page opens: then only [`FIRST_WINDOW`] steps ahead are computed before the
//! first frame, and the rest of [`LOOKAHEAD`] in slices once it is painted (the scrubber and its
//! markers fill in meanwhile; the run and its markers are the same as computed at once).

use super::{State, LOOKAHEAD};
use crate::i18n::tr;
use election_lab::engine::Replay;
use election_lab::meta::k;
use election_lab::Engine;
use std::cell::RefCell;
use std::rc::Rc;

/// What the slices work toward.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Goal {
    /// The cursor to this step.
    Seek(u64),
    /// The run computed up to this step, the cursor staying.
    Ahead(u64),
}

/// A scripted run's computing in slices.
#[derive(Clone, Debug, Default)]
pub struct Slicing {
    /// What it works toward.
    pub(super) goal: Option<Goal>,
    /// Steps per engine call (follows how long the last call took).
    slice: u64,
    /// Slices worked so far (the page schedules the next one when this changes).
    pub count: u64,
    /// A script was just run: once computed, a failure is shown at its step.
    pub(super) show_fault: bool,
    /// The run computed to its end: `(gen, ivs_rev, head)` then.
    ended: Option<(u64, u64, u64)>,
    /// A scripted run being rebuilt before it replaces the run shown.
    pub(super) pending: Option<Rc<Pending>>,
}

/// A scripted run being rebuilt in slices (its faults, or a link's interventions, put back
/// with `Engine::replay_some`) before it replaces the run shown, which stays meanwhile: a
/// script's Run keeps the faults drawn, a graded failure or a link opens its run at its step.
#[derive(Debug)]
pub(super) struct Pending {
    /// The run being rebuilt (taken out when it is ready).
    engine: RefCell<Option<Engine>>,
    job: RefCell<Replay>,
    /// The run shown when it started: another one opened meanwhile cancels it.
    gen: u64,
    then: Then,
}

/// What is done once the run is rebuilt.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Then {
    /// A script's Run: back to this step (the cursor's when Run was pressed), or to the
    /// failing step if the script stopped the run.
    Script(u64),
    /// A link's or a graded failure's run, at the step the link asked for (if it did).
    Link(Option<u64>),
}

/// How long one slice may take before the page yields (milliseconds of the page's clock).
pub(super) const SLICE_MS: f64 = 12.0;
/// The steps computed ahead of the cursor before the page's first frame (`State::new`).
pub const FIRST_WINDOW: u64 = 1_000;
/// The steps of one slice of the run ahead, in the player (a built-in's: a few milliseconds).
const AHEAD_STEPS: u64 = 2_000;
/// The most steps one engine call may make.
const MAX_STEPS: u64 = 4096;

#[cfg(test)]
std::thread_local! {
    /// Tests: a slice is one engine call, as when each takes longer than [`SLICE_MS`] (natively
    /// the clock stands still, and a slice would run to its goal).
    pub(super) static ONE_CALL: std::cell::Cell<bool> = const { std::cell::Cell::new(false) };
}

fn one_call() -> bool {
    #[cfg(test)]
    return ONE_CALL.with(|o| o.get());
    #[cfg(not(test))]
    false
}

/// The page's clock (0 outside a browser: a slice then runs to its goal).
pub(super) fn now_ms() -> f64 {
    #[cfg(target_arch = "wasm32")]
    {
        web_sys::window().and_then(|w| w.performance()).map_or(0.0, |p| p.now())
    }
    #[cfg(not(target_arch = "wasm32"))]
    {
        0.0
    }
}

impl State {
    /// Whether the run shown is computed in slices: a script's, shown alone (workbench only).
    pub(super) fn sliced(&self) -> bool {
        cfg!(any(feature = "workbench", test))
            && self.lanes().is_none()
            && super::script::is_script(self.engine.get().algorithm().id)
    }

    /// Where End goes: the head, or for a run computed in slices the head that computing at
    /// once would have reached (the run ahead of the cursor, [`LOOKAHEAD`] steps).
    pub(super) fn end_step(&self) -> u64 {
        if self.sliced() {
            let e = self.engine.get();
            return e.head().max(e.cursor() + LOOKAHEAD);
        }
        let mut e = self.engine_mut();
        if let Some(Goal::Ahead(step)) = self.sl.goal {
            // The run ahead still computing since the page opened: End goes where it ends.
            e.advance_some(step, u64::MAX);
        }
        e.head()
    }

    /// When the page opens: [`FIRST_WINDOW`] steps ahead at once, the rest of [`LOOKAHEAD`]
    /// left to the slices (`effects::use_compute`, after the first frame).
    pub(super) fn extend_first(&mut self) {
        if !self.sliced() {
            let mut e = self.engine_mut();
            let c = e.cursor();
            if e.head() < c + FIRST_WINDOW {
                e.seek(c + FIRST_WINDOW);
                e.seek(c);
            }
        }
        self.extend_later();
    }

    /// Whether slices of computing are due (the page schedules them).
    pub fn computes(&self) -> bool {
        self.sl.goal.is_some() || self.sl.pending.is_some() || self.lanes().is_some_and(|c| c.computes())
    }

    /// One slice of the run ahead, in the player (no script there, so no seek in slices and no
    /// clock: a fixed number of steps); returns whether the engine changed.
    pub(super) fn compute_ahead(&mut self) -> bool {
        let Some(Goal::Ahead(step)) = self.sl.goal else { return false };
        self.sl.count = self.sl.count.wrapping_add(1);
        if self.engine_mut().advance_some(step, AHEAD_STEPS) {
            self.sl.goal = None;
        }
        true
    }

    /// Another run: its steps per engine call are learnt anew (a built-in's run ahead grows
    /// them to thousands, which one slow script's call must not inherit).
    pub(super) fn fresh_slices(&mut self) {
        self.sl.slice = 0;
    }

    /// Sends the cursor to `step` in slices (see [`State::compute`]).
    pub(super) fn seek_later(&mut self, step: u64) {
        self.sl.goal = Some(Goal::Seek(step));
    }

    /// The run ahead of the cursor, in slices, unless the cursor is on its way somewhere.
    pub(super) fn extend_later(&mut self) {
        if matches!(self.sl.goal, Some(Goal::Seek(_))) {
            return;
        }
        let (cursor, head) = {
            let e = self.engine.get();
            (e.cursor(), e.head())
        };
        // A run already computed to its end has nothing more ahead until it changes.
        let ended = self.sl.ended == Some((self.gen, self.ivs_rev, head));
        self.sl.goal = (head < cursor + LOOKAHEAD && !ended).then_some(Goal::Ahead(cursor + LOOKAHEAD));
    }

    /// Rebuilds `engine`'s run in slices (`job`: the interventions still to put on it) before
    /// it replaces the run shown; `then` says what follows.
    pub(super) fn rebuild_later(&mut self, engine: Engine, job: Replay, then: Then) {
        self.fresh_slices();
        let engine = RefCell::new(Some(engine));
        let p = Rc::new(Pending { engine, job: RefCell::new(job), gen: self.gen, then });
        self.sl.pending = Some(p.clone());
        // A first slice at once: a quick run is ready before the page draws again.
        self.rebuild(p);
    }

    /// One slice of about [`SLICE_MS`]: calls `work` with a budget of steps until it is done
    /// or the time is up, the budget following how long the last call took; true when done.
    fn slice_of(slice: &mut u64, mut work: impl FnMut(u64) -> bool) -> bool {
        let start = now_ms();
        loop {
            let t0 = now_ms();
            let budget = (*slice).clamp(1, MAX_STEPS);
            let done = work(budget);
            let took = now_ms() - t0;
            *slice = if took < SLICE_MS / 4.0 {
                (budget * 2).min(MAX_STEPS)
            } else if took > SLICE_MS {
                (budget / 2).max(1)
            } else {
                budget
            };
            if done || now_ms() - start >= SLICE_MS || one_call() {
                break done;
            }
        }
    }

    /// One slice of rebuilding the pending run; once it is ready it replaces the run shown.
    fn rebuild(&mut self, p: Rc<Pending>) -> bool {
        self.sl.count = self.sl.count.wrapping_add(1);
        if p.gen != self.gen {
            // Another run was opened meanwhile: this one is not wanted any more.
            self.sl.pending = None;
            return false;
        }
        let mut failed = None;
        let done = State::slice_of(&mut self.sl.slice, |budget| {
            let mut engine = p.engine.borrow_mut();
            match engine.as_mut().expect("pending").replay_some(&mut p.job.borrow_mut(), budget) {
                Ok(done) => done,
                Err(e) => {
                    failed = Some(e.to_string());
                    true
                }
            }
        });
        if !done {
            return false;
        }
        self.sl.pending = None;
        let engine = p.engine.borrow_mut().take().expect("pending");
        let result = failed.map_or(Ok(engine), Err);
        let lang = self.lang;
        match p.then {
            Then::Script(cursor) => {
                if self.load(result, None, |e| k::UI_SCRIPT_NOT_RUN.format(lang, &[&e])) {
                    self.messages.alert = None;
                    self.script_ran(cursor);
                }
            }
            Then::Link(asked) => {
                if self.load(result, None, |e| format!("link: {e}")) {
                    let last = self.engine.get().cursor();
                    if let Some(asked) = asked.filter(|&s| s != last) {
                        self.messages.alert = Some(crate::link::past_end(asked, last));
                    }
                }
            }
        }
        true
    }

    /// An embed's Reset: back to what its link opened, a script's run rebuilt in slices (the
    /// run shown stays meanwhile); whether the link was read.
    pub(super) fn reopen(&mut self, query: &str) -> bool {
        match crate::link::read_later(query) {
            Ok(Some((l, None))) => self.replace_engine(l.engine, l.preset),
            Ok(Some((l, Some(job)))) if crate::WORKBENCH => {
                let ps = crate::link::params(query);
                let asked = ps.iter().find(|(k, _)| k == "step").and_then(|(_, v)| v.trim().parse().ok());
                self.rebuild_later(l.engine, job, Then::Link(asked));
            }
            _ => return false,
        }
        true
    }

    /// A script's run is in place (computed in slices from here): its failure, if any, is
    /// shown at its step once reached, else the cursor goes back to `cursor`.
    pub(super) fn script_ran(&mut self, cursor: u64) {
        self.sl.show_fault = true;
        if cursor > 0 {
            self.seek_later(cursor);
        }
        self.messages.notice = Some(tr(self.lang, k::UI_SCRIPT_RUNNING).into());
    }

    /// One slice of work toward the goal, of about [`SLICE_MS`]; returns whether the engine
    /// changed. The number of steps per engine call follows how long the last one took.
    pub(super) fn compute(&mut self) -> bool {
        if self.lanes().is_some_and(|c| c.computes()) {
            return self.compute_lanes();
        }
        if let Some(p) = self.sl.pending.clone() {
            return self.rebuild(p);
        }
        let Some(goal) = self.sl.goal else { return false };
        self.sl.count = self.sl.count.wrapping_add(1);
        let engine = self.engine.clone();
        let done = State::slice_of(&mut self.sl.slice, |budget| {
            let mut e = engine.get_mut();
            match goal {
                Goal::Seek(step) => e.seek_some(step, budget),
                Goal::Ahead(step) => e.advance_some(step, budget),
            }
        });
        if done {
            self.sl.goal = None;
            if let Goal::Ahead(step) = goal {
                let head = self.engine.get().head();
                if head < step {
                    self.sl.ended = Some((self.gen, self.ivs_rev, head));
                }
            }
            if let Goal::Seek(_) = goal {
                self.extend_later();
            } else if std::mem::take(&mut self.sl.show_fault) {
                // A script just run that failed is shown at its failing step.
                let failed = self.engine.get().fault_step();
                if let Some(step) = failed {
                    self.messages.notice = None;
                    self.sl.goal = Some(Goal::Seek(step));
                }
            }
        }
        true
    }

    /// One slice of the lanes' work (`compare/slow.rs`): slow lanes rebuilt, or moved to the
    /// shared time; a lane that cannot be rebuilt is named in an alert.
    fn compute_lanes(&mut self) -> bool {
        self.sl.count = self.sl.count.wrapping_add(1);
        let mut slice = self.sl.slice;
        let mut failed = None;
        let Some(c) = self.lanes_mut() else { return false };
        State::slice_of(&mut slice, |budget| {
            if let Err(e) = c.compute_some(budget) {
                failed = Some(e);
            }
            !c.computes()
        });
        self.sl.slice = slice;
        if failed.is_some() {
            self.messages.alert = failed;
        }
        true
    }

    /// What the page is computing, for its status line: the goal and the step reached.
    pub fn computing(&self) -> Option<u64> {
        // The player computes nothing in slices: nothing of this in its first load.
        if !crate::WORKBENCH {
            return None;
        }
        if let Some(p) = &self.sl.pending {
            return p.engine.borrow().as_ref().map(|e| e.cursor());
        }
        // Only a script's run says so (a built-in's first slices are quick).
        let goal = self.sl.goal.filter(|_| self.sliced())?;
        let e = self.engine.get();
        Some(match goal {
            // How far the work toward the step got (the step itself when near).
            Goal::Seek(step) => e.work_step().filter(|&w| w <= step).unwrap_or(e.cursor()),
            Goal::Ahead(_) => e.head(),
        })
    }

    /// Works every slice to its end (tests).
    #[cfg(test)]
    pub(super) fn settle(&mut self) {
        while self.computes() {
            if self.compute() {
                self.refresh();
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::state::script::ScriptAction;
    use crate::state::Action;
    use election_lab::{presets, Engine};

    /// A state on the Bully template's run of `bully-worst-8` (a script: computed in slices).
    fn scripted() -> State {
        let p = presets::find("bully-worst-8").unwrap();
        let mut s = State::new(Engine::new(p.scenario()).unwrap(), Some(p.id), false);
        s.apply(Action::Script(ScriptAction::Open));
        assert!(s.apply(Action::Script(ScriptAction::Run)));
        s.refresh();
        s
    }

    #[test]
    fn a_scripted_run_is_computed_by_compute_actions_and_moves_the_cursor_when_ready() {
        let mut s = scripted();
        assert!(s.sliced());
        assert_eq!(s.sl.goal, Some(Goal::Ahead(LOOKAHEAD)), "the run ahead is left to the slices");
        assert_eq!(s.engine.get().head(), 0);
        s.settle();
        let head = s.engine.get().head();
        assert!(head > 8 && s.sl.goal.is_none(), "computed to the end ({head} steps)");
        // A seek waits for its slices: the cursor stays until then, and other actions work.
        s.apply(Action::Seek(head - 2));
        assert_eq!(s.sl.goal, Some(Goal::Seek(head - 2)));
        assert!(!s.apply(Action::Pause));
        assert_eq!(s.engine.get().cursor(), 0);
        assert!(s.apply(Action::Compute));
        s.refresh();
        assert_eq!(s.cursor(), head - 2);
        assert!(!matches!(s.sl.goal, Some(Goal::Seek(_))));
        // A step asked for meanwhile replaces the seek.
        s.apply(Action::Seek(3));
        s.apply(Action::StepForward);
        s.refresh();
        assert_eq!(s.cursor(), head - 1);
        assert!(!matches!(s.sl.goal, Some(Goal::Seek(_))));
        // End goes to the end, however far computing at once would have gone.
        s.apply(Action::Home);
        s.settle();
        s.apply(Action::End);
        s.settle();
        assert_eq!(s.cursor(), head);
    }

    #[test]
    fn a_builtin_run_is_computed_at_once() {
        let p = presets::find("bully-worst-8").unwrap();
        let mut s = State::new(Engine::new(p.scenario()).unwrap(), Some(p.id), false);
        s.settle();
        assert!(!s.sliced() && s.sl.goal.is_none());
        assert!(s.engine.get().head() > 8);
        // Once opened, a change computes at once.
        s.apply(Action::NodeClick(3));
        assert!(s.sl.goal.is_none());
    }

    /// The player's fixed slices (`Action::Compute` there) end where the workbench's do.
    #[test]
    fn the_players_slices_of_the_run_ahead_end_as_computed_at_once() {
        let p = presets::find("dht-split-brain").unwrap();
        let mut s = State::new(Engine::new(p.scenario()).unwrap(), Some(p.id), false);
        assert!(s.engine.get().head() <= FIRST_WINDOW, "the first window only, before the first frame");
        while s.compute_ahead() {
            s.refresh();
        }
        let mut once = Engine::new(p.scenario()).unwrap();
        crate::state::limits::cap(&mut once);
        once.seek(LOOKAHEAD);
        once.seek(0);
        assert_eq!((s.engine.get().head(), s.cursor()), (once.head(), 0));
        assert_eq!(*s.markers, crate::markers::compute(&once, s.lang));
    }

    /// The page opens on a window of the run, the rest in slices: once computed, the same run
    /// (head, trace hash) and the same markers as computing it all at once.
    #[test]
    fn a_run_opened_in_slices_ends_as_computed_at_once() {
        for p in presets::all() {
            let mut s = State::new(Engine::new(p.scenario()).unwrap(), Some(p.id), false);
            assert!(s.engine.get().head() <= FIRST_WINDOW, "{}: only the first window before the frame", p.id);
            s.settle();
            let mut once = Engine::new(p.scenario()).unwrap();
            crate::state::limits::cap(&mut once);
            once.seek(LOOKAHEAD);
            once.seek(0);
            let expected = crate::markers::compute(&once, s.lang);
            assert_eq!(*s.markers, expected, "{}", p.id);
            let mut e = s.engine_mut();
            assert_eq!((e.head(), e.cursor()), (once.head(), 0), "{}", p.id);
            let head = once.head();
            e.seek(head);
            once.seek(head);
            assert_eq!(e.trace_hash(), once.trace_hash(), "{}", p.id);
        }
    }
}
