//! A slow script's run is rebuilt in slices on every path that used to compute it in one go
//! (Run with the faults drawn, a graded failure's link, a link to a script's run): the run shown
//! stays and every other action works until it is ready, and what it shows then is what
//! computing at once shows (the same step, hash and summary).

use super::assignment::{AssignmentAction, GradeStatus};
use super::script::ScriptAction;
use super::slices::ONE_CALL;
use super::{Action, State};
use crate::i18n::Lang;
use election_lab::{presets, Action as Intervention, Engine};
use std::rc::Rc;

/// The algorithm of `bully-worst-8`, whose template and assignment these tests take.
pub(super) fn builtin() -> String {
    presets::find("bully-worst-8").unwrap().scenario().algorithm
}

/// The Bully template under an id of its own, each message costing its handler a loop.
pub(super) fn slow_bully(id: &str) -> String {
    let template = election_lab::protocols::script::TEMPLATES.iter().find(|t| t.0 == builtin()).unwrap().1;
    let slow = template
        .replace(
            "fn on_message(from, msg) {",
            "fn on_message(from, msg) {\n    let i = 0;\n    while i < 200 { i += 1; }",
        )
        .replace("id: \"bully-script\"", &format!("id: \"{id}\""));
    assert_ne!(slow, template);
    slow
}

/// What a cursor shows, to compare with the run computed at once.
pub(super) fn at(e: &Engine) -> (u64, u64, Vec<u32>, String) {
    (e.cursor(), e.trace_hash(), e.leaders(), e.summary().to_string())
}

/// Works Compute actions until nothing is pending, checking the page meanwhile: the run shown
/// stays, the status line says how far the rebuilding got, other actions work. Returns the
/// number of slices.
fn compute_while_checking(s: &mut State, shown: &str) -> u32 {
    let mut slices = 0;
    while s.sl.pending.is_some() {
        assert_eq!(s.engine.get().algorithm().id, shown, "the run shown stays meanwhile");
        assert!(s.computing().is_some(), "the status line shows");
        assert!(s.computes(), "the page schedules the next slice");
        // The language switch takes effect, Pause and a step of the run shown work.
        let lang = s.lang;
        s.apply(Action::ToggleLang);
        assert_ne!(s.lang, lang);
        s.apply(Action::Pause);
        s.apply(Action::StepForward);
        if s.apply(Action::Compute) {
            s.refresh();
        }
        slices += 1;
        assert!(slices < 100_000, "no end");
    }
    s.lang = Lang::En;
    slices
}

#[test]
fn run_puts_a_late_fault_back_in_slices_and_ends_as_at_once() {
    let p = presets::find("bully-worst-8").unwrap();
    let mut s = State::new(Engine::new(p.scenario()).unwrap(), Some(p.id), false);
    let late = s.engine.get().head() * 3 / 4;
    // The leader the built-in elects, crashed late in its election.
    let leader = {
        let mut e = Engine::new(p.scenario()).unwrap();
        e.run_to_end();
        e.leaders()[0]
    };
    s.apply(Action::Seek(late));
    s.apply(Action::Act(Intervention::Crash(leader)));
    s.apply(Action::Script(ScriptAction::Open));
    s.apply(Action::Script(ScriptAction::Edit(slow_bully("bully-slow-run"))));
    ONE_CALL.with(|o| o.set(true));
    assert!(s.apply(Action::Script(ScriptAction::Run)));
    let slices = compute_while_checking(&mut s, &builtin());
    ONE_CALL.with(|o| o.set(false));
    assert!(slices > 4, "rebuilt in {slices} slices");
    s.settle();
    let faults = s.engine.get().interventions().to_vec();
    assert_eq!(faults.len(), 1, "the crash is kept");
    let mut once = {
        let mut scenario = (*s.scenario).clone();
        scenario.algorithm = "bully-slow-run".into();
        let mut e = Engine::new(scenario).unwrap();
        e.replay_by_time(&faults).unwrap();
        e
    };
    let mut e = s.engine_mut();
    assert_eq!(e.algorithm().id, "bully-slow-run");
    assert!(e.cursor() > 0);
    once.seek(e.cursor());
    assert_eq!(at(&e), at(&once), "the step Run returned to");
    // The end, with the leader the crash left.
    e.run_to_end();
    once.run_to_end();
    assert_eq!(at(&e), at(&once));
    assert_eq!(e.leaders().len(), 1);
    assert!(!e.leaders().contains(&leader));
}

/// A link to `id`'s run (the slow Bully loaded under it) with its leader crashed late, at `step`.
fn slow_link(id: &str) -> (String, u64, Engine) {
    let source = slow_bully(id);
    super::script::from_source(&source).unwrap();
    let mut scenario = presets::find("bully-worst-8").unwrap().scenario();
    scenario.algorithm = id.into();
    let mut e = Engine::new(scenario).unwrap();
    e.run_to_end();
    let leader = *e.scenario().nodes.iter().max().unwrap();
    e.seek(e.head() * 3 / 4);
    e.apply(Intervention::Crash(leader)).unwrap();
    e.run_to_end();
    let step = e.head() - 2;
    e.seek(step);
    (source, step, e)
}

#[test]
fn a_graded_failure_of_a_slow_script_opens_in_slices_at_its_step() {
    let (source, step, once) = slow_link("bully-slow-graded");
    let query = format!(
        "https://lab.example/?t={}&step={step}",
        election_lab::link::pack(&once.trace_value().to_string()).unwrap()
    );
    let p = presets::find("bully-worst-8").unwrap();
    let mut s = State::new(Engine::new(p.scenario()).unwrap(), Some(p.id), false);
    s.apply(Action::Assignment(AssignmentAction::Open(builtin())));
    let t = Rc::make_mut(s.assignment.as_mut().unwrap());
    t.graded = source.into();
    t.status = GradeStatus::Done(Rc::new(serde_json::json!({"checks": [{"passed": false, "link": query}]})));
    ONE_CALL.with(|o| o.set(true));
    assert!(s.apply(Action::Assignment(AssignmentAction::OpenFailure(0))));
    let slices = compute_while_checking(&mut s, &builtin());
    ONE_CALL.with(|o| o.set(false));
    assert!(slices > 4, "rebuilt in {slices} slices");
    assert_eq!(s.messages.alert, None);
    assert_eq!(s.cursor(), step);
    assert_eq!(at(&s.engine.get()), at(&once), "the failing step, as computed at once");
    // The same link read at once (the path every other algorithm takes) agrees.
    let read = crate::link::read(&query[query.find('?').unwrap()..]).unwrap().unwrap();
    assert_eq!(at(&read.engine), at(&once));
}

#[test]
fn a_link_to_a_slow_scripts_run_opens_in_slices_at_its_step() {
    let (_, step, once) = slow_link("bully-slow-link");
    let query = format!("?t={}&step={step}", election_lab::link::pack(&once.trace_value().to_string()).unwrap());
    ONE_CALL.with(|o| o.set(true));
    let mut s = State::open(&query);
    assert!(s.sl.pending.is_some(), "left to the slices");
    assert_eq!(s.cursor(), 0, "a fresh run of the scenario shown meanwhile");
    let slices = compute_while_checking(&mut s, "bully-slow-link");
    ONE_CALL.with(|o| o.set(false));
    assert!(slices > 4, "rebuilt in {slices} slices");
    assert_eq!((s.messages.alert.clone(), s.cursor()), (None, step));
    assert_eq!(at(&s.engine.get()), at(&once));
    // A step past the run's end is clamped and said, as at once.
    let past = query.replace(&format!("step={step}"), "step=99999");
    let mut s = State::open(&past);
    s.settle();
    let read = crate::link::read(&past).unwrap().unwrap();
    assert_eq!(s.messages.alert, read.clamped);
    assert_eq!(s.cursor(), read.engine.cursor());
}

/// The JSON Lines `run --trace` writes of `e`'s run up to its cursor.
#[cfg(feature = "workbench")]
fn jsonl(e: &mut Engine) -> String {
    let mut out = String::new();
    e.trace_lines::<()>(&mut |v| {
        out.push_str(&v.to_string());
        out.push('\n');
        Ok(())
    })
    .unwrap();
    out
}

/// (The player hands a JSON Lines link to the workbench, which alone reads it in slices.)
#[cfg(feature = "workbench")]
#[test]
fn a_jsonl_link_to_a_slow_scripts_run_opens_in_slices_at_its_step() {
    let (_, step, mut once) = slow_link("bully-slow-jsonl");
    let text = jsonl(&mut once);
    assert!(election_lab::engine::is_jsonl(&text));
    let query = format!("?t={}", election_lab::link::pack(&text).unwrap());
    ONE_CALL.with(|o| o.set(true));
    let mut s = State::open(&query);
    assert!(s.sl.pending.is_some(), "left to the slices");
    let slices = compute_while_checking(&mut s, "bully-slow-jsonl");
    ONE_CALL.with(|o| o.set(false));
    assert!(slices > 4, "rebuilt in {slices} slices");
    assert_eq!((s.messages.alert.clone(), s.cursor()), (None, step));
    assert_eq!(at(&s.engine.get()), at(&once));
    // A damaged line is named as reading the link at once names it.
    let damaged = text.replacen("\"step\":7,", "\"step\":8,", 1);
    let query = format!("?t={}", election_lab::link::pack(&damaged).unwrap());
    let mut s = State::open(&query);
    s.settle();
    let at_once = crate::link::read(&query).err().expect("a damaged trace");
    assert_eq!(s.messages.alert, Some(at_once.clone()));
    assert!(at_once.contains("line "), "{at_once}");
}

#[test]
fn an_embeds_reset_of_a_slow_scripts_run_is_rebuilt_in_slices() {
    let (_, step, once) = slow_link("bully-slow-embed");
    let query = format!(
        "?t={}&step={step}&embed=1{}",
        election_lab::link::pack(&once.trace_value().to_string()).unwrap(),
        super::script::link_part_of("bully-slow-embed")
    );
    let mut s = State::open_in(&query, None);
    assert!(s.origin.is_some() && s.embed);
    s.settle();
    assert_eq!(at(&s.engine.get()), at(&once));
    // Another fault, elsewhere in the run; Reset goes back to the link's run, in slices.
    s.apply(Action::Seek(4));
    s.settle();
    s.apply(Action::Act(Intervention::Crash(2)));
    s.settle();
    assert_ne!(at(&s.engine.get()), at(&once));
    ONE_CALL.with(|o| o.set(true));
    assert!(s.apply(Action::Reset));
    assert!(s.sl.pending.is_some(), "left to the slices");
    let slices = compute_while_checking(&mut s, "bully-slow-embed");
    ONE_CALL.with(|o| o.set(false));
    assert!(slices > 4, "rebuilt in {slices} slices");
    assert_eq!((s.messages.alert.clone(), s.cursor()), (None, step));
    assert_eq!(at(&s.engine.get()), at(&once));
    assert_eq!(s.engine.get().interventions(), once.interventions());
}
