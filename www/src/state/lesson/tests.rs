//! The player walks lessons on the lab's own reducer, as the page does (the outbox sent to the
//! lab, the lab observed after every change, play advanced a tick at a time).

use super::*;
use crate::state::State;
use election_lab::lesson::{check, course, Checked};

fn view(s: &State) -> LabView {
    LabView { engine: s.engine.clone(), playing: s.playing, ivs_rev: s.ivs_rev, gen: s.gen }
}

struct Page {
    lab: Rc<State>,
    player: Rc<LessonState>,
}

impl Page {
    fn new() -> Page {
        Page { lab: Rc::new(State::open("")), player: Rc::new(LessonState::default()) }
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
        self.settle();
    }

    fn deliver(&mut self) {
        for a in self.player.outbox.clone().iter() {
            self.lab = self.lab.clone().reduce(a.clone());
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
            if self.lab.playing {
                let t = self.lab.frame.time as f64 + 1.0;
                self.lab = self.lab.clone().reduce(Action::PlayTo(t));
                continue;
            }
            return;
        }
        panic!("the page never settled");
    }

    fn cursor(&self) -> u64 {
        self.lab.cursor()
    }
}

fn bully() -> Lesson {
    Lesson::from_json(course::source("bully").unwrap()).unwrap()
}

#[test]
fn the_bully_lesson_walks_to_every_stop_the_engine_computed() {
    let lesson = bully();
    let expected = check::answers(&lesson, false).unwrap();
    let mut page = Page::new();
    page.player(LessonAction::Open { link: "bully".into(), lesson: Ok(Box::new(lesson.clone())) });
    assert_eq!(page.lab.lesson.as_deref().map(String::as_str), Some("bully"));
    assert!(page.lab.query(false).contains("lesson=bully"));
    for (k, stop) in lesson.stops.iter().enumerate() {
        assert_eq!(page.player.stop, k);
        assert_eq!(page.cursor(), expected[k].step, "stop {k} at the computed step");
        if let Some(q) = &stop.question {
            assert_eq!(page.player.phase, Phase::At);
            let right = page.player.expected.clone().unwrap().unwrap();
            if let Some(Checked::Answer(a)) = &expected[k].checked {
                assert_eq!(&right, a, "stop {k}: the answer on the student's run is the lesson's");
            }
            // A wrong answer first (where there is one), then the right one is not taken.
            let wrong = match &right {
                Answer::Number(n) => Answer::Number(n + 1),
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
    assert_eq!(page.player.phase, Phase::Done);
    assert!(page.player.progress.lessons["bully"].done);
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
    let ids: Vec<&str> = course::ids().collect();
    assert_eq!(list.iter().map(|e| e.id.as_str()).collect::<Vec<_>>(), ids);
    for e in &list {
        let path = format!("{}/../crate/lessons/{}", env!("CARGO_MANIFEST_DIR"), e.file);
        let text = std::fs::read_to_string(&path).unwrap();
        assert_eq!(Some(text.as_str()), course::source(&e.id), "{} is the file of lesson {}", e.file, e.id);
        let l = Lesson::from_json(&text).unwrap();
        assert_eq!((l.title.en.as_str(), l.title.zh.as_str()), (e.title.0.as_str(), e.title.1.as_str()));
    }
}
