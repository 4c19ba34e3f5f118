//! The player walks lessons on the lab's own reducer, as the page does (the outbox sent to the
//! lab, the lab observed after every change, play advanced a tick at a time).

use super::*;
use crate::state::State;
use election_lab::lesson::{check, course, Checked};

fn view(s: &State) -> LabView {
    LabView { engine: s.engine.clone(), playing: s.playback.playing, ivs_rev: s.ivs_rev, gen: s.gen }
}

struct Page {
    lab: Rc<State>,
    player: Rc<LessonState>,
    /// The play clock (virtual time), as the page's animation loop keeps it.
    clock: f64,
    /// Heavy answers are computed as the page does, a slice per task (off: the test does it).
    compute: bool,
}

impl Page {
    fn new() -> Page {
        Page { lab: Rc::new(State::open("")), player: Rc::new(LessonState::default()), clock: 0.0, compute: true }
    }

    /// A player action, then what the page does until nothing changes.
    fn player(&mut self, a: LessonAction) {
        let seq = self.player.seq;
        self.player = self.player.clone().reduce(a);
        if self.player.seq != seq {
            self.deliver();
        }
        self.settle();
    }

    fn lab(&mut self, a: Action) {
        self.lab = self.lab.clone().reduce(a);
        self.clock = self.lab.frame.time as f64;
        self.settle();
    }

    fn deliver(&mut self) {
        for a in self.player.outbox.clone().iter() {
            self.lab = self.lab.clone().reduce(a.clone());
        }
        if !self.lab.playback.playing {
            self.clock = self.lab.frame.time as f64;
        }
    }

    fn settle(&mut self) {
        for _ in 0..100_000 {
            let seq = self.player.seq;
            self.player = self.player.clone().reduce(LessonAction::Observe(view(&self.lab)));
            if self.player.seq != seq {
                self.deliver();
                continue;
            }
            if self.compute && self.player.computing.is_some() {
                self.player = self.player.clone().reduce(LessonAction::Compute(COMPUTE_SLICE));
                continue;
            }
            if self.lab.playback.playing {
                // A few ticks at a time (the page's frames do the same; an overshoot is sought back).
                self.clock = self.clock.max(self.lab.frame.time as f64) + 7.0;
                self.lab = self.lab.clone().reduce(Action::PlayTo(self.clock));
                continue;
            }
            return;
        }
        panic!("the page never settled: {:?} at step {}", self.player.phase, self.cursor());
    }

    fn cursor(&self) -> u64 {
        self.lab.cursor()
    }
}

fn bully() -> Lesson {
    Lesson::from_json(course::source("bully").unwrap()).unwrap()
}

#[test]
fn every_lesson_of_the_course_walks_to_every_stop_the_engine_computed() {
    for lesson in course::all() {
        walk(lesson);
    }
    assert_eq!(course::all().len(), course::ids().len(), "every built-in lesson parses");
}

fn walk(lesson: Lesson) {
    eprintln!("walking {}", lesson.id);
    let expected = check::answers(&lesson, false).unwrap();
    let mut page = Page::new();
    let id = lesson.id.clone();
    page.player(LessonAction::Open { link: id.clone(), lesson: Ok(Box::new(lesson.clone())) });
    assert_eq!(page.lab.lesson.as_deref(), Some(&id));
    assert!(page.lab.query(false).contains(&format!("lesson={id}")));
    for (k, stop) in lesson.stops.iter().enumerate() {
        assert_eq!(page.player.stop, k);
        assert_eq!(page.cursor(), expected[k].step, "{id}: stop {k} at the computed step");
        if let Some(q) = &stop.question {
            assert_eq!(page.player.phase, Phase::At);
            let right = page.player.expected.clone().unwrap().unwrap();
            if let Some(Checked::Answer(a)) = &expected[k].checked {
                assert_eq!(&right, a, "stop {k}: the answer on the student's run is the lesson's");
            }
            // A wrong answer first (where there is one), then the right one is not taken.
            let wrong = match &right {
                // Far enough to be wrong for an "about" question too (±5 %).
                Answer::Number(n) => Answer::Number(n * 2 + 10),
                Answer::Decimal(m) => Answer::Decimal(m * 2 + 10_000),
                Answer::YesNo(b) => Answer::YesNo(!b),
                Answer::Node(_) => Answer::Node(Some(999)),
                Answer::Choice(c) => Answer::Choice(q.choices.iter().find(|x| *x != c).unwrap().clone()),
            };
            page.player(LessonAction::Answer(wrong));
            let v = page.player.verdict.clone().unwrap();
            assert!(!v.right);
            assert_eq!(v.expected, right);
            page.player(LessonAction::Answer(right));
            assert!(!page.player.verdict.as_ref().unwrap().right, "one answer per question");
        }
        if let Some(act) = &stop.act {
            assert_eq!(page.player.phase, Phase::Waiting, "stop {k} waits for '{}'", act.until);
            // The run does not move on by itself: stepping does not meet it.
            assert!(!page.player.act_met);
            page.lab(Action::Act(act.action.clone()));
            assert!(page.player.act_met, "stop {k}: '{}' shown after the student's act", act.until);
        }
        page.player(LessonAction::Continue(view(&page.lab), true));
    }
    assert_eq!(page.player.phase, Phase::Done, "{id}");
    assert!(page.player.progress.lessons[&id].done);
}

#[test]
fn a_node_click_answers_and_crashing_the_leader_meets_the_act() {
    let lesson = bully();
    let mut page = Page::new();
    page.player(LessonAction::Open { link: "bully".into(), lesson: Ok(Box::new(lesson)) });
    assert!(page.player.wants_node());
    page.player(LessonAction::Answer(Answer::Node(Some(7))));
    assert!(page.player.verdict.as_ref().unwrap().right, "N7 leads once N8 is down");
    assert!(!page.player.wants_node());
}

#[test]
fn free_play_keeps_the_lesson_and_resume_restores_its_run() {
    let mut page = Page::new();
    page.player(LessonAction::Open { link: "bully".into(), lesson: Ok(Box::new(bully())) });
    page.player(LessonAction::Continue(view(&page.lab), false));
    let (stop, step) = (page.player.stop, page.cursor());
    let trace = page.lab.engine.get().trace_value().to_string();
    page.player(LessonAction::FreePlay(trace));
    page.lab(Action::NodeClick(3));
    page.lab(Action::Seek(2));
    assert!(page.player.free);
    page.player(LessonAction::Resume);
    assert!(!page.player.free);
    assert_eq!((page.player.stop, page.cursor()), (stop, step));
    assert!(page.lab.interventions.is_empty(), "the free play's crash is not in the lesson's run");
}

#[test]
fn progress_is_saved_at_each_stop_and_a_reopened_lesson_resumes_there() {
    let mut page = Page::new();
    page.player(LessonAction::Open { link: "bully".into(), lesson: Ok(Box::new(bully())) });
    page.player(LessonAction::Continue(view(&page.lab), false));
    page.player(LessonAction::Continue(view(&page.lab), false));
    let (stop, step) = (page.player.stop, page.cursor());
    let stored = page.player.progress.to_json();
    let mut again = Page::new();
    again.player = Rc::new(LessonState::with_progress(Progress::from_json(&stored)));
    again.player(LessonAction::Open { link: "bully".into(), lesson: Ok(Box::new(bully())) });
    assert_eq!((again.player.stop, again.cursor()), (stop, step));
    again.player(LessonAction::ResetProgress);
    assert!(again.player.progress.lessons.is_empty());
    assert_eq!(Progress::from_json("not json"), Progress::default());
}

#[test]
fn the_pages_course_list_is_the_built_in_course() {
    let list = crate::lesson_io::read_course(&serde_json::from_str(include_str!("../../../course.json")).unwrap());
    assert_eq!(
        list.iter().map(|e| e.id.clone()).collect::<Vec<_>>(),
        course::ids(),
        "www/course.json lists the course in order"
    );
    for e in &list {
        let path = format!("{}/../crate/lessons/{}", env!("CARGO_MANIFEST_DIR"), e.file);
        let text = std::fs::read_to_string(&path).unwrap();
        assert_eq!(Some(text.as_str()), course::source(&e.id), "{} is the file of lesson {}", e.file, e.id);
        let l = Lesson::from_json(&text).unwrap();
        assert_eq!((l.title.en.as_str(), l.title.zh.as_str()), (e.title.0.as_str(), e.title.1.as_str()));
    }
}

#[test]
fn the_run_ended_notice_is_left_to_the_lesson_panel() {
    let mut lab = Rc::new(State::open("?preset=ring-best"));
    for a in [Action::SetLessonLink(Some("bully".into())), Action::TogglePlay, Action::PlayTo(1e9)] {
        lab = lab.reduce(a);
    }
    assert!(!lab.playback.playing, "the run played to its end");
    for a in [Action::StepForward, Action::TogglePlay] {
        lab = lab.reduce(a);
        assert_eq!(lab.messages.notice, None, "no 'The run has ended' while a lesson is open");
    }
    // Without the lesson it is said again.
    let lab = lab.reduce(Action::SetLessonLink(None)).reduce(Action::StepForward);
    assert_eq!(lab.messages.notice.as_deref(), Some("The run has ended."));
}

#[test]
fn a_heavy_answer_is_computed_in_slices_and_an_early_answer_waits_for_it() {
    let lesson = bully();
    let heavy = lesson.stops.iter().position(|s| s.question.as_ref().is_some_and(|q| q.heavy())).unwrap();
    let mut page = Page::new();
    page.compute = false;
    page.player(LessonAction::Open { link: "bully".into(), lesson: Ok(Box::new(lesson)) });
    while page.player.stop < heavy {
        page.player(LessonAction::Continue(view(&page.lab), false));
    }
    assert_eq!(page.player.phase, Phase::At);
    assert!(page.player.computing.is_some() && page.player.expected.is_none(), "not computed on arrival");
    // The student answers first: the answer waits.
    page.player(LessonAction::Answer(Answer::Number(499_500)));
    assert_eq!(page.player.pending, Some(Answer::Number(499_500)));
    assert!(page.player.verdict.is_none());
    let mut slices = 0;
    while page.player.computing.is_some() {
        let before = page.player.computed.2;
        page.player(LessonAction::Compute(COMPUTE_SLICE));
        assert!(page.player.computed.2 > before || page.player.computing.is_none(), "each slice runs steps");
        slices += 1;
    }
    assert!(slices > 10, "{slices} slices");
    let v = page.player.verdict.clone().expect("checked once computed");
    assert!(v.right, "N(N-1)/2 ELECTION messages at N = 1000: {:?}", v.expected);
    assert_eq!(page.player.pending, None);
}

#[test]
fn the_reduce_alone_closes_a_lesson_and_asks_the_lab_to_forget_its_link() {
    let mut s = LessonState::default();
    s.reduce(LessonAction::ResetProgress);
    s.reduce(LessonAction::Compute(COMPUTE_SLICE));
    assert_eq!((s.progress_rev, s.seq, s.computed), (1, 0, (0, 0, 0)), "nothing to compute");
    s.reduce(LessonAction::FreePlay("{}".into()));
    assert!(s.free);
    s.reduce(LessonAction::Close);
    assert!(!s.free && s.phase == Phase::Idle && s.lesson.is_none());
    assert_eq!(*s.outbox, vec![Action::SetLessonLink(None)]);
    assert_eq!(s.seq, 1);
}
