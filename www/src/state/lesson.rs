//! The lesson player: a reducer of its own beside the lab's.
//!
//! A lesson ([`election_lab::lesson::Lesson`]) is walked stop by stop on the student's own run,
//! the lab's engine: the player finds where the next stop is on that run (a step, a breakpoint's
//! next hit, found on a copy of the run), plays or jumps there, and at the stop computes the
//! question's answer from the run as it is ([`election_lab::lesson::answer_on`]), so an answer
//! always matches what the canvas shows. An act stop waits until the run shows its condition:
//! a state (`down:7`) is checked after every change; a breakpoint is searched for on a copy of
//! the run after each intervention the student makes, then played to.
//!
//! The player never changes the lab itself: what it needs done there (play, pause, seek, load
//! the lesson's scenario, apply "show me") it puts in its `outbox`, which the page sends to the
//! lab's reducer in order. Everything here is pure and tested natively.
//!
//! A concern with its own reducer, as the lab's sub-states are (`LessonState`, [`LessonAction`]
//! and [`LessonState::reduce`]), but held by a reducer of its own in the page (`lesson_io.rs`)
//! rather than on `State`: the lab and the player talk through the outbox and [`LabView`], and
//! `State` keeps only the lesson's link (`State::lesson`, for the links it writes). The reduce
//! needs the lab's engine, passed explicitly in [`LabView`] (the store's `EngineRef`, read only):
//! where the next stop is and a question's answer are computed on the student's run, on a copy.

use crate::state::{Action, EngineRef};
use election_lab::breakpoint::{run_until, Breakpoint, Watch};
use election_lab::lesson::check::Job;
use election_lab::lesson::{answer_on, Answer, At, Condition, Lesson};
use election_lab::Engine;
use std::cell::RefCell;
use std::collections::BTreeMap;
use std::rc::Rc;
use yew::Reducible;

/// The most steps searched ahead for a stop's breakpoint or an act's.
const SEARCH_STEPS: u64 = 2_000_000;

#[derive(Clone, Debug, PartialEq)]
pub enum Phase {
    /// Nothing open.
    Idle,
    /// The lesson's scenario is being loaded into the lab; then the walk starts (at `resume`'s
    /// stop, from its saved run, when there is one).
    Opening,
    /// On the way to the current stop, at step `target` (playing, or jumping). `act` when the
    /// way there is the run showing an act's condition.
    Travel { target: u64, act: bool },
    /// At the current stop: its caption, its question (answered or not), or its act (met).
    At,
    /// At an act stop, waiting for the run to show its condition.
    Waiting,
    /// Past the last stop: the challenge.
    Done,
}

/// A student's answer and the engine's.
#[derive(Clone, Debug, PartialEq)]
pub struct Verdict {
    pub given: Answer,
    pub expected: Answer,
    pub right: bool,
}

/// Simulation steps a heavy answer computes per slice (the page runs one slice per task, so it
/// keeps drawing: a few milliseconds each).
pub const COMPUTE_SLICE: u64 = 20_000;

/// A heavy answer being computed (see [`LessonAction::Compute`]); equal only to itself.
#[derive(Clone)]
pub struct Computing(Rc<RefCell<Job>>);

impl PartialEq for Computing {
    fn eq(&self, other: &Self) -> bool {
        Rc::ptr_eq(&self.0, &other.0)
    }
}

/// What a host page hears (see `embed_api`): a stop reached, an answer given.
#[derive(Clone, Debug, PartialEq)]
pub enum Event {
    Stop { stop: usize, step: u64 },
    Answer { stop: usize, given: String, right: bool },
    Done,
}

/// Where a student is in each lesson: the stop reached, the run there (trace JSON, so a lesson
/// resumes with the student's own interventions), and whether it was finished.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Progress {
    pub lessons: BTreeMap<String, Saved>,
}

#[derive(Clone, Debug, Default, PartialEq)]
pub struct Saved {
    pub stop: usize,
    pub trace: Option<String>,
    pub done: bool,
}

impl Progress {
    pub fn to_json(&self) -> String {
        let map: serde_json::Map<String, serde_json::Value> = self
            .lessons
            .iter()
            .map(|(id, s)| (id.clone(), serde_json::json!({"stop": s.stop, "trace": s.trace, "done": s.done})))
            .collect();
        election_lab::write_json(&serde_json::Value::Object(map))
    }

    /// Reads what `to_json` wrote; anything else (damaged, another version) is no progress.
    pub fn from_json(text: &str) -> Progress {
        let Ok(serde_json::Value::Object(map)) = election_lab::parse_json(text) else {
            return Progress::default();
        };
        let lessons = map
            .into_iter()
            .filter_map(|(id, v)| {
                Some((
                    id,
                    Saved {
                        stop: v.get("stop")?.as_u64()? as usize,
                        trace: v.get("trace").and_then(|t| t.as_str()).map(str::to_string),
                        done: v.get("done").and_then(|d| d.as_bool()).unwrap_or(false),
                    },
                ))
            })
            .collect();
        Progress { lessons }
    }
}

#[derive(Clone, PartialEq)]
pub struct LessonState {
    pub lesson: Option<Rc<Lesson>>,
    /// What `?lesson=` carries for it: a built-in id, or the packed lesson.
    pub link: Option<Rc<String>>,
    /// The current stop.
    pub stop: usize,
    pub phase: Phase,
    /// The engine's answer to the current stop's question (or why it could not be computed).
    pub expected: Option<Result<Answer, String>>,
    pub verdict: Option<Rc<Verdict>>,
    /// A heavy answer on its way, and how far it is (runs done, runs, steps).
    pub computing: Option<Computing>,
    pub computed: (u64, u64, u64),
    /// The student's answer given before the engine's was computed: checked when it is.
    pub pending: Option<Answer>,
    /// The current stop's act was shown by the run.
    pub act_met: bool,
    /// Free play: the lesson is set aside (its run kept in `snapshot`) until Resume.
    pub free: bool,
    snapshot: Option<Rc<String>>,
    pub error: Option<Rc<String>>,
    /// For the lab's reducer, in order; `seq` grows by one per batch.
    pub outbox: Rc<Vec<Action>>,
    pub seq: u64,
    /// For a host page; `events_seq` grows by one per batch.
    pub events: Rc<Vec<Event>>,
    pub events_seq: u64,
    pub progress: Rc<Progress>,
    /// Whether `progress` changed since it was stored.
    pub progress_rev: u64,
    /// The lab as last observed.
    playing: bool,
    ivs_rev: u64,
    gen: u64,
}

impl Default for LessonState {
    fn default() -> Self {
        LessonState {
            lesson: None,
            link: None,
            stop: 0,
            phase: Phase::Idle,
            expected: None,
            verdict: None,
            computing: None,
            computed: (0, 0, 0),
            pending: None,
            act_met: false,
            free: false,
            snapshot: None,
            error: None,
            outbox: Rc::new(Vec::new()),
            seq: 0,
            events: Rc::new(Vec::new()),
            events_seq: 0,
            progress: Rc::new(Progress::default()),
            progress_rev: 0,
            playing: false,
            ivs_rev: 0,
            gen: 0,
        }
    }
}

/// What the lab is now, as the player reads it.
#[derive(Clone, PartialEq)]
pub struct LabView {
    pub engine: EngineRef,
    pub playing: bool,
    /// Bumped when the interventions may have changed / the engine was replaced.
    pub ivs_rev: u64,
    pub gen: u64,
}

pub enum LessonAction {
    /// A lesson read (or why not), for the `?lesson=` value `link`.
    Open {
        link: String,
        lesson: Result<Box<Lesson>, String>,
    },
    /// The stored progress, read once at start.
    Restore(Progress),
    /// The lab changed (step, interventions, play state, engine).
    Observe(LabView),
    /// On to the next stop: played (`animate`) or at once.
    Continue(LabView, bool),
    /// The student's answer to the current question.
    Answer(Answer),
    /// Computes the heavy answer of the stop a slice further (the page sends it while
    /// `computing`, one task at a time).
    Compute(u64),
    /// Apply the act's own action ("show me").
    ShowMe,
    /// Set the lesson aside; the lab's run now (trace JSON) is where Resume comes back to.
    FreePlay(String),
    Resume,
    /// The lesson from its first stop, forgetting the saved run.
    Restart,
    Close,
    /// Forget all progress.
    ResetProgress,
}

impl LessonState {
    /// No lesson open, with the progress stored before.
    pub fn with_progress(progress: Progress) -> LessonState {
        LessonState { progress: Rc::new(progress), ..LessonState::default() }
    }

    pub fn current(&self) -> Option<&election_lab::lesson::Stop> {
        self.lesson.as_ref()?.stops.get(self.stop)
    }

    pub fn active(&self) -> bool {
        crate::LESSONS && self.lesson.is_some()
    }

    /// The node click answers the question now (instead of crashing the node).
    pub fn wants_node(&self) -> bool {
        !self.free
            && self.phase == Phase::At
            && self.verdict.is_none()
            && self
                .current()
                .and_then(|s| s.question.as_ref())
                .is_some_and(|q| q.check.answer_kind() == election_lab::lesson::AnswerKind::Node)
    }

    fn send(&mut self, actions: Vec<Action>) {
        if !actions.is_empty() {
            self.outbox = Rc::new(actions);
            self.seq += 1;
        }
    }

    fn tell(&mut self, events: Vec<Event>) {
        self.events = Rc::new(events);
        self.events_seq += 1;
    }

    fn save(&mut self, f: impl FnOnce(&mut Saved)) {
        let Some(l) = &self.lesson else { return };
        let mut p = (*self.progress).clone();
        f(p.lessons.entry(l.id.clone()).or_default());
        self.progress = Rc::new(p);
        self.progress_rev += 1;
    }

    fn open(&mut self, link: String, lesson: Result<Box<Lesson>, String>) {
        match lesson {
            Ok(l) => {
                let load = match &l.preset {
                    Some(p) => Action::LoadPreset(p.clone()),
                    None => Action::ApplyScenario(Ok(l.scenario.clone())),
                };
                self.lesson = Some(Rc::new(*l));
                self.link = Some(Rc::new(link.clone()));
                self.stop = 0;
                self.phase = Phase::Opening;
                self.free = false;
                self.error = None;
                self.clear_stop();
                self.send(vec![Action::Pause, load, Action::SetLessonLink(Some(link))]);
            }
            Err(e) => self.error = Some(Rc::new(e)),
        }
    }

    fn clear_stop(&mut self) {
        self.expected = None;
        self.verdict = None;
        self.computing = None;
        self.pending = None;
        self.act_met = false;
    }

    /// Where stop `k` is on the run `e` holds, from its cursor: `None` when the run never gets
    /// there (a breakpoint that does not hit).
    fn target(&self, k: usize, e: &Engine) -> Option<u64> {
        let stop = self.lesson.as_ref()?.stops.get(k)?;
        match &stop.at {
            At::Start => Some(0),
            At::Now => Some(e.cursor()),
            At::End => {
                let mut copy = Engine::from_trace_value(&e.trace_value()).ok()?;
                copy.seek(e.cursor());
                let mut n = 0;
                while n < SEARCH_STEPS && copy.step() {
                    n += 1;
                }
                Some(copy.cursor())
            }
            At::Step(n) => Some((*n).max(e.cursor())),
            At::When(text) => next_hit(e, Breakpoint::parse(text, e).ok()?),
        }
    }

    /// Heads for stop `k` (past the last: the challenge).
    fn travel(&mut self, k: usize, lab: &LabView, animate: bool) {
        self.clear_stop();
        let Some(lesson) = self.lesson.clone() else { return };
        self.stop = k;
        if k >= lesson.stops.len() {
            self.phase = Phase::Done;
            self.save(|s| {
                s.done = true;
                s.stop = 0;
                s.trace = None;
            });
            self.tell(vec![Event::Done]);
            return;
        }
        let e = lab.engine.get();
        let cursor = e.cursor();
        let Some(target) = self.target(k, &e) else {
            drop(e);
            self.error = Some(Rc::new(format!("stop {}: the run never gets there", k + 1)));
            self.arrive(lab);
            return;
        };
        drop(e);
        self.phase = Phase::Travel { target, act: false };
        if target == cursor {
            if lab.playing {
                self.send(vec![Action::Pause]);
            }
            self.arrive(lab);
        } else if animate && target > cursor {
            if !lab.playing {
                self.send(vec![Action::TogglePlay]);
            }
        } else {
            self.send(vec![Action::Seek(target)]);
        }
    }

    /// At the current stop (the lab's cursor is there).
    fn arrive(&mut self, lab: &LabView) {
        let Some(stop) = self.current().cloned() else { return };
        let e = lab.engine.get();
        let step = e.cursor();
        // A heavy answer (N = 1000, a sweep) is computed in slices, so the page keeps drawing.
        match stop.question.as_ref() {
            Some(q) if q.heavy() => match Job::new(&e, q) {
                Ok(job) => {
                    self.computed = job.progress();
                    self.computing = Some(Computing(Rc::new(RefCell::new(job))));
                }
                Err(err) => self.expected = Some(Err(err.to_string())),
            },
            q => self.expected = q.map(|q| answer_on(&e, q).map_err(|err| err.to_string())),
        }
        let trace = election_lab::write_json(&e.trace_value());
        drop(e);
        self.phase = if stop.act.is_some() { Phase::Waiting } else { Phase::At };
        let k = self.stop;
        self.save(|s| {
            s.stop = k;
            s.trace = Some(trace);
        });
        self.tell(vec![Event::Stop { stop: k, step }]);
        if stop.act.is_some() {
            // The condition may hold already (the student acted on the way).
            self.check_act(lab, false);
        }
    }

    /// Whether the act's condition is shown by the run; `acted`: the student just intervened.
    fn check_act(&mut self, lab: &LabView, acted: bool) {
        let Some(act) = self.current().and_then(|s| s.act.clone()) else { return };
        let e = lab.engine.get();
        let Ok(cond) = Condition::parse(&act.until, &e) else {
            drop(e);
            self.error = Some(Rc::new(format!("stop {}: cannot read '{}'", self.stop + 1, act.until)));
            self.met();
            return;
        };
        match cond {
            Condition::Breakpoint(bp) if acted => {
                if let Some(target) = next_hit(&e, bp) {
                    drop(e);
                    self.phase = Phase::Travel { target, act: true };
                    if !lab.playing {
                        self.send(vec![Action::TogglePlay]);
                    }
                }
            }
            Condition::Breakpoint(_) => {}
            c => {
                let holds = c.holds(&e);
                drop(e);
                if holds {
                    self.met();
                }
            }
        }
    }

    fn met(&mut self) {
        self.act_met = true;
        self.phase = Phase::At;
    }

    fn observe(&mut self, lab: LabView) {
        let acted = lab.ivs_rev != self.ivs_rev;
        let replaced = lab.gen != self.gen;
        self.playing = lab.playing;
        self.ivs_rev = lab.ivs_rev;
        self.gen = lab.gen;
        if self.free {
            return;
        }
        match self.phase.clone() {
            Phase::Opening if replaced => {
                let saved = self.lesson.as_ref().and_then(|l| self.progress.lessons.get(&l.id).cloned());
                match saved {
                    Some(Saved { stop, trace: Some(t), done: false }) if stop > 0 => {
                        // Resume where the student was, on the run they had made.
                        self.stop = stop;
                        self.phase = Phase::Travel { target: u64::MAX, act: false };
                        self.send(vec![Action::Import(t), Action::Dismiss]);
                    }
                    _ => self.travel(0, &lab, false),
                }
            }
            Phase::Travel { target: u64::MAX, .. } if replaced => {
                // The saved run is back: the student is at the stop.
                self.arrive(&lab);
            }
            Phase::Travel { target, act } => {
                let cursor = lab.engine.get().cursor();
                if acted && !act && target != u64::MAX {
                    // The student changed the run on the way: find the stop again.
                    let k = self.stop;
                    self.travel(k, &lab, lab.playing);
                } else if cursor == target {
                    if lab.playing {
                        self.send(vec![Action::Pause]);
                    }
                    if act {
                        self.met();
                    } else {
                        self.arrive(&lab);
                    }
                } else if cursor > target && target != u64::MAX {
                    self.send(vec![Action::Seek(target)]);
                }
            }
            Phase::Waiting => self.check_act(&lab, acted),
            _ => {}
        }
    }

    fn answer(&mut self, given: Answer) {
        if self.verdict.is_some() || self.phase != Phase::At {
            return;
        }
        if self.computing.is_some() {
            self.pending = Some(given);
            return;
        }
        let Some(Ok(expected)) = self.expected.clone() else { return };
        // Graded as the question says: exact, or within its tolerance (an "about" question).
        let right = match self.current().and_then(|s| s.question.as_ref()) {
            Some(q) => q.accepts(&expected, &given),
            None => expected.matches(&given),
        };
        self.tell(vec![Event::Answer { stop: self.stop, given: given.text(), right }]);
        self.verdict = Some(Rc::new(Verdict { given, expected, right }));
    }
}

/// The step where `bp` next hits on the run `e` holds, searched on a copy (the run itself is
/// not moved).
fn next_hit(e: &Engine, bp: Breakpoint) -> Option<u64> {
    let mut copy = Engine::from_trace_value(&e.trace_value()).ok()?;
    copy.seek(e.cursor());
    let mut watch = Watch::new(vec![bp], &copy);
    run_until(&mut copy, &mut watch, SEARCH_STEPS).map(|h| h.step)
}

impl Reducible for LessonState {
    type Action = LessonAction;

    fn reduce(self: Rc<Self>, action: LessonAction) -> Rc<Self> {
        if let LessonAction::Observe(lab) = &action {
            // Most renders change nothing the player watches.
            let quiet = matches!(self.phase, Phase::Idle | Phase::At | Phase::Done) || self.free;
            if quiet && lab.ivs_rev == self.ivs_rev && lab.gen == self.gen && lab.playing == self.playing {
                return self;
            }
        }
        // Without the lesson player nothing changes (and the code below is left out).
        if !crate::LESSONS || (matches!(action, LessonAction::Compute(_)) && self.computing.is_none()) {
            return self;
        }
        let mut s = (*self).clone();
        s.reduce(action);
        Rc::new(s)
    }
}

impl LessonState {
    pub fn reduce(&mut self, action: LessonAction) {
        let s = self;
        match action {
            LessonAction::Open { link, lesson } => s.open(link, lesson),
            LessonAction::Restore(p) => s.progress = Rc::new(p),
            LessonAction::Observe(lab) => s.observe(lab),
            LessonAction::Continue(lab, animate) => {
                // On the way to a stop, Continue (or Jump) heads for that same stop.
                let k = match s.phase {
                    Phase::Travel { act: false, .. } => s.stop,
                    _ => s.stop + 1,
                };
                s.travel(k, &lab, animate);
            }
            LessonAction::Answer(given) => s.answer(given),
            LessonAction::Compute(budget) => {
                let Some(Computing(job)) = s.computing.clone() else { return };
                let result = job.borrow_mut().advance(budget);
                s.computed = job.borrow().progress();
                if let Some(r) = result {
                    s.computing = None;
                    s.expected = Some(r.map_err(|e| e.to_string()));
                    if let Some(given) = s.pending.take() {
                        s.answer(given);
                    }
                }
            }
            LessonAction::ShowMe => {
                if let Some(act) = s.current().and_then(|st| st.act.clone()) {
                    s.send(vec![Action::Act(act.action)]);
                }
            }
            LessonAction::FreePlay(trace) => {
                s.free = true;
                s.snapshot = Some(Rc::new(trace));
            }
            LessonAction::Resume => {
                s.free = false;
                if let Some(t) = s.snapshot.take() {
                    s.send(vec![Action::Pause, Action::Import((*t).clone()), Action::Dismiss]);
                }
            }
            LessonAction::Restart => {
                if let (Some(l), Some(link)) = (s.lesson.clone(), s.link.clone()) {
                    s.save(|x| *x = Saved::default());
                    s.open((*link).clone(), Ok(Box::new((*l).clone())));
                }
            }
            LessonAction::Close => {
                s.lesson = None;
                s.link = None;
                s.phase = Phase::Idle;
                s.free = false;
                s.clear_stop();
                s.send(vec![Action::SetLessonLink(None)]);
            }
            LessonAction::ResetProgress => {
                s.progress = Rc::new(Progress::default());
                s.progress_rev += 1;
            }
        }
    }
}

#[cfg(test)]
#[cfg(feature = "lessons")]
mod tests;
