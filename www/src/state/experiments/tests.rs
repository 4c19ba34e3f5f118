//! The experiments view's reducer: the spec helpers, and a sweep asked for, answered by the
//! worker's own code (`sweep_job::run`), cancelled or refused.

use super::*;
use crate::state::Action;

use crate::state::tests::run;

/// The view's pane (the view is shown).
fn pane(s: &State) -> &Pane {
    s.experiments().expect("the experiments view")
}

/// What the worker would post for the state's job.
fn worker_replies(s: &State) -> Vec<String> {
    let (_, text) = s.sweep_job().expect("a job");
    let mut out = vec![];
    crate::sweep_job::run(&serde_json::from_str(&text).unwrap(), || 0.0, |t| out.push(t));
    out
}

#[test]
fn every_ready_experiment_has_a_title_in_both_languages_and_plans() {
    for (id, text) in READY {
        let v: Value = serde_json::from_str(text).unwrap();
        assert_ne!(title_of(&v, Lang::En, id), *id, "{id}: a title");
        assert_ne!(title_of(&v, Lang::Zh, id), *id, "{id}: a Chinese title");
        let t = trials_of(&v).to_string();
        let s = plan(text, &t, Lang::En).unwrap_or_else(|e| panic!("{id}: {e}"));
        assert!(s.progress().total > 0, "{id}: runs");
    }
}

#[test]
fn the_trial_count_sets_the_default_seeds_and_lines_with_their_own_keep_them() {
    let text = spec_of("raft-figure-16-randomness");
    let v: Value = serde_json::from_str(text).unwrap();
    assert_eq!(trials_of(&v), 1000);
    // Six lines; the first sets 100 seeds of its own.
    assert_eq!(plan(text, "1000", Lang::En).unwrap().progress().total, 100 + 5 * 1000);
    assert_eq!(plan(text, " 7 ", Lang::En).unwrap().progress().total, 100 + 5 * 7);
    let mut w = v.clone();
    with_trials(&mut w, 3);
    assert_eq!(w["seeds"], serde_json::json!({"count": 3}));
    // A spec without seeds gets them, and the first seed is kept when given.
    let mut w = serde_json::json!({"seeds": {"count": 5, "start": 40}});
    with_trials(&mut w, 2);
    assert_eq!(w["seeds"], serde_json::json!({"count": 2, "start": 40}));
    let mut w = serde_json::json!({});
    with_trials(&mut w, 2);
    assert_eq!(w["seeds"]["count"], 2);
}

#[test]
fn bad_input_is_refused_naming_the_field() {
    let text = spec_of("one-partition");
    for bad in ["0", "", "abc", "-3", "10001", "2.5"] {
        let e = plan(text, bad, Lang::En).unwrap_err();
        assert!(e.starts_with("Trials per line: enter a whole number from 1 to 10000"), "{bad}: {e}");
    }
    assert!(plan(text, "x", Lang::Zh).unwrap_err().starts_with("每条数据系列的试验次数"));
    assert!(plan("{", "3", Lang::En).unwrap_err().starts_with("Spec (JSON): not valid JSON"));
    let e = plan(&text.replace("\"minority_leaders\"", "\"speed\""), "3", Lang::En).unwrap_err();
    assert!(e.starts_with("Spec (JSON): measure: unknown measure 'speed'"), "{e}");
    assert!(plan("[1]", "3", Lang::En).is_err());
    // A `set` that is not an object (it once left the view dead), a key given twice.
    let bad = r#"{"scenario":{},"algorithms":[{"algorithm":"bully","set":"min"}],"nodes":[3]}"#;
    assert!(plan(bad, "3", Lang::En).unwrap_err().starts_with("Spec (JSON): algorithms[0].set: expected an object"));
    let twice = text.replacen("{", "{\"measure\": \"messages\", ", 1);
    let e = plan(&twice, "3", Lang::En).unwrap_err();
    assert!(e.starts_with("Spec (JSON): measure: given twice"), "{e}");
    assert!(plan("{\"seeds\": 4}", "3", Lang::En).unwrap_err().contains("seeds"));
}

#[test]
fn a_sweep_runs_in_the_worker_and_its_rows_give_what_the_page_would_have_run() {
    let s = run(Rc::new(State::open_in("?experiment=one-partition", None)), [Action::SetTrials("3".into())]);
    assert!(s.sweep_job().is_none(), "nothing runs before Run");
    let s = run(s, [Action::RunSweep]);
    let (job, _) = s.sweep_job().expect("Run posts a job");
    assert_eq!(pane(&s).progress, (0, plan(spec_of("one-partition"), "3", Lang::En).unwrap().progress().total));
    // The fields wait while it runs; a second Run is the same job.
    let s = run(s, [Action::SetTrials("9".into()), Action::RunSweep]);
    assert_eq!(*pane(&s).trials, "3");
    assert_eq!(s.sweep_job().unwrap().0, job);
    let replies = worker_replies(&s);
    let s = run(s, replies.into_iter().map(Action::SweepReply));
    let Phase::Done { sweep, .. } = &pane(&s).phase else { panic!("{:?}", pane(&s).phase) };
    assert!(s.sweep_job().is_none(), "the worker is done");
    let mut here = plan(spec_of("one-partition"), "3", Lang::En).unwrap();
    while !here.advance(4).finished() {}
    assert_eq!(sweep.0.csv(), here.csv(), "byte for byte the sweep run on the page");
    assert_eq!(sweep.0.summary_csv(), here.summary_csv());
    assert_eq!(pane(&s).progress, (here.rows().len() as u64, here.rows().len() as u64));
}

#[test]
fn cancel_and_leaving_stop_the_worker_and_stale_replies_are_ignored() {
    let s = run(
        Rc::new(State::open_in("?experiment=one-partition", None)),
        [Action::SetTrials("2".into()), Action::RunSweep],
    );
    let (job, _) = s.sweep_job().unwrap();
    let progress = |id, done| Action::SweepReply(crate::sweep_job::Reply::Progress { done, total: 10 }.to_json(id));
    let s = run(s, [progress(job, 4), progress(job + 5, 7)]);
    assert_eq!(pane(&s).progress, (4, 10));
    let s = run(s, [Action::CancelSweep, progress(job, 6)]);
    assert_eq!(pane(&s).phase, Phase::Cancelled);
    assert_eq!(pane(&s).progress, (4, 10), "nothing moves after Cancel");
    assert!(s.sweep_job().is_none(), "the worker is told to stop");
    // Run again: a new job number. Choosing another experiment, or leaving, stops it.
    let s = run(s, [Action::RunSweep]);
    assert_eq!(s.sweep_job().unwrap().0, job + 1);
    let s = run(s, [Action::PickExperiment("messages-vs-n")]);
    assert_eq!((pane(&s).id, &pane(&s).phase), ("messages-vs-n", &Phase::Idle));
    let s = run(s, [Action::RunSweep]);
    assert!(s.sweep_job().is_some());
    let s = run(s, [Action::Escape]);
    assert!(s.experiments().is_none() && s.sweep_job().is_none());
    let s = run(s, [Action::ToggleExperiments]);
    assert_eq!((pane(&s).id, &pane(&s).phase), ("messages-vs-n", &Phase::Idle), "opened again, fresh");
}

#[test]
fn a_refused_job_and_a_worker_that_could_not_run_are_shown() {
    let s = run(Rc::new(State::open_in("?experiment=one-partition", None)), [Action::RunSweep]);
    let s = run(s, [Action::SweepReply(crate::search_job::error_json("no worker"))]);
    assert_eq!(pane(&s).phase, Phase::Failed("no worker".into()));
    let spec = spec_of("one-partition").replace("\"minority_leaders\"", "\"speed\"");
    let s = run(s, [Action::SetSpec(spec), Action::RunSweep]);
    assert!(matches!(&pane(&s).phase, Phase::Failed(e) if e.contains("speed")), "{:?}", pane(&s).phase);
    let s = run(s, [Action::RestoreSpec]);
    assert_eq!(*pane(&s).spec, spec_of("one-partition"));
}

#[test]
fn one_mode_at_a_time_and_the_lanes_wait_behind_the_view() {
    let s = Rc::new(State::open_in("?compare=bully,raft&preset=split-brain-bully", None));
    let s = run(s, [Action::StepForward, Action::StepForward]);
    let time = s.compare().expect("compare mode").time;
    assert!(time > 0);
    let s = run(s, [Action::ToggleExperiments]);
    assert!(s.compare().is_none() && s.experiments().is_some(), "one mode at a time");
    let q = s.query(false);
    assert!(
        q.starts_with("?compare=bully,raft") && q.ends_with("&experiment=messages-vs-n"),
        "a reload opens both: {q}"
    );
    // A link with both opens the view with the lanes behind it.
    let again = Rc::new(State::open_in(&q, None));
    assert!(again.compare().is_none() && again.lanes().is_some_and(|c| c.time == time));
    // The lanes' keys wait; Escape goes back to them as they were left.
    let s = run(s, [Action::StepForward, Action::Escape]);
    assert_eq!(s.compare().expect("the lanes again").time, time);
    assert!(s.experiments().is_none());
}
