//! The reducer, driven natively by actions as the UI sends them.

use super::*;
use election_lab::sim::EventKind;

fn open(query: &str) -> Rc<State> {
    Rc::new(State::open(query))
}

/// The state after `actions`, each reduced in turn as the UI would send them (the other
/// reducer tests' too).
pub(crate) fn run(state: Rc<State>, actions: impl IntoIterator<Item = Action>) -> Rc<State> {
    actions.into_iter().fold(state, |s, a| s.reduce(a))
}

fn role(s: &State, id: u32) -> &'static str {
    let n = s.frame.nodes.iter().find(|n| n.id == id).expect("node");
    if n.up {
        n.view.role
    } else {
        "crashed"
    }
}

#[test]
fn opens_the_default_preset_and_computes_ahead() {
    let s = open("");
    assert_eq!(s.preset, Some(presets::DEFAULT));
    assert_eq!(s.cursor(), 0);
    assert!(s.head > 0, "the run ahead is computed for the scrubber");
    assert_eq!(s.positions.len(), s.scenario.nodes.len());
    assert_eq!(s.query(false), "?preset=bully-heartbeats&step=0");
}

#[test]
fn a_bad_link_falls_back_with_an_alert() {
    let s = open("?preset=nope&embed=1");
    assert_eq!(s.preset, Some(presets::DEFAULT));
    assert!(s.embed);
    assert!(s.messages.alert.as_deref().unwrap().starts_with("link: no preset named 'nope'"));
}

#[test]
fn the_selection_is_read_from_the_link() {
    assert_eq!(open("?preset=bully-heartbeats&sel=80").selection.selected, Some(80));
    assert_eq!(open("?preset=bully-heartbeats&sel=7").selection.selected, None, "not a node of this scenario");
}

#[test]
fn step_back_and_seek_move_the_cursor_and_the_frame() {
    let s = run(open("?preset=ring-worst"), [Action::StepForward, Action::StepForward, Action::StepForward]);
    assert_eq!(s.cursor(), 3);
    let f3 = s.frame.clone();
    let s = run(s, [Action::StepBack, Action::Seek(10), Action::Seek(3)]);
    assert_eq!(s.cursor(), 3);
    assert_eq!(*s.frame, *f3, "the same step draws the same frame");
    let s = run(s, [Action::Home]);
    assert_eq!(s.cursor(), 0);
    let s = run(s, [Action::End]);
    assert_eq!(s.cursor(), s.head);
}

#[test]
fn clicking_a_node_crashes_then_recovers_it() {
    let s = run(open("?preset=bully-heartbeats"), [Action::NodeClick(80)]);
    assert_eq!(role(&s, 80), "crashed");
    assert_eq!(s.selection.selected, Some(80));
    assert_eq!(s.interventions.len(), 1);
    assert!(s.query(false).contains("t=1."), "an intervention makes the link a (compressed) trace");
    assert!(s.markers.iter().any(|m| m.class == "fault" && m.title.starts_with("you: ")));
    let s = run(s, [Action::NodeClick(80)]);
    assert_eq!(role(&s, 80), "leader", "recovered with its state kept");
}

#[test]
fn crash_then_stepping_elects_the_next_highest() {
    let mut s = run(open("?preset=bully-heartbeats"), [Action::NodeClick(80)]);
    for _ in 0..400 {
        if role(&s, 32) == "leader" {
            break;
        }
        s = s.reduce(Action::StepForward);
    }
    assert_eq!(role(&s, 32), "leader");
    let s = s.reduce(Action::End);
    assert_eq!(s.frame.leaders, vec![32]);
}

#[test]
fn a_drawn_line_partitions_and_splits_the_brain() {
    // The e2e test's line from (250, 10) to (990, 650) separates {1, 2} from {3, 4, 5}.
    let s = run(open("?preset=split-brain-bully"), [Action::StepForward, Action::SetLines(vec![[250, 10, 990, 650]])]);
    assert_eq!(*s.lines, vec![[250, 10, 990, 650]]);
    match s.interventions.last() {
        Some(election_lab::Intervention { action: Intervention::Partition { groups, .. }, .. }) => {
            assert_eq!(groups.len(), 2)
        }
        other => panic!("expected a partition, got {other:?}"),
    }
    let s = s.reduce(Action::End);
    assert_eq!(s.frame.leaders, vec![2, 5]);
    assert!(s.markers.iter().any(|m| m.class == "violation"));
    // Removing every line heals.
    let s = run(s, [Action::ClearLines]);
    assert!(s.lines.is_empty());
    assert!(matches!(s.interventions.last(), Some(election_lab::Intervention { action: Intervention::Heal, .. })));
}

#[test]
fn raft_keeps_one_leader_across_the_same_line() {
    let s = run(
        open("?preset=split-brain-raft"),
        [Action::StepForward, Action::SetLines(vec![[250, 10, 990, 650]]), Action::End],
    );
    assert_eq!(s.frame.leaders, vec![5]);
}

#[test]
fn loading_a_preset_replaces_the_engine_and_clears_the_selection() {
    let s = run(open("?preset=bully-heartbeats"), [Action::NodeMenu(80), Action::StepForward]);
    assert_eq!((s.selection.selected, s.selection.menu), (Some(80), Some(80)));
    let gen = s.gen;
    let s = s.reduce(Action::LoadPreset("ring-best".into()));
    assert_eq!(s.preset, Some("ring-best"));
    assert_eq!((s.selection.selected, s.selection.menu, s.cursor()), (None, None, 0));
    assert!(s.gen > gen);
    assert_eq!(s.engine.get().algorithm().topology, election_lab::meta::Topology::Ring);
    let s = s.reduce(Action::LoadPreset("nope".into()));
    assert_eq!(s.preset, Some("ring-best"), "a bad preset changes nothing");
    assert!(s.messages.alert.is_some());
}

#[test]
fn a_bad_scenario_or_import_keeps_the_session() {
    let s = run(open("?preset=ring-best"), [Action::StepForward]);
    let before = s.engine.clone();
    let s = run(s, [Action::ApplyScenario(Err("nodes: 'x' is not a node id".into()))]);
    assert_eq!(s.messages.alert.as_deref(), Some("Scenario not applied: nodes: 'x' is not a node id"));
    let s = run(s, [Action::Import("{not json".into())]);
    assert!(s.messages.alert.as_deref().unwrap().starts_with("Import failed, nothing changed:"));
    assert!(s.engine == before, "same engine, same revision");
    assert_eq!(s.cursor(), 1);
    let s = run(s, [Action::Dismiss]);
    assert!(s.messages.alert.is_none());
}

#[test]
fn import_of_an_exported_trace_restores_the_step() {
    let s = run(
        open("?preset=split-brain-bully"),
        [Action::StepForward, Action::NodeClick(5), Action::StepForward, Action::StepForward],
    );
    let text = s.engine.get().trace_value().to_string();
    let t = run(open(""), [Action::Import(text)]);
    assert_eq!(t.cursor(), s.cursor());
    assert_eq!(*t.frame, *s.frame);
    assert_eq!(t.preset, None);
    assert_eq!(t.messages.notice.as_deref(), Some("Imported."));
}

/// The JSON Lines `election-lab run --trace` writes import as they are (the engine reads them
/// back against a re-run), at the step the file stopped; a hand-edited line is named.
#[test]
fn import_of_the_command_lines_json_lines_trace() {
    let s = run(open("?preset=split-brain-bully"), [Action::StepForward, Action::NodeClick(5), Action::StepForward]);
    let mut e = election_lab::Engine::from_trace_value(&s.engine.get().trace_value()).unwrap();
    e.run(40);
    let mut lines = vec![];
    e.trace_lines::<()>(&mut |v| {
        lines.push(v);
        Ok(())
    })
    .unwrap();
    let text: String = lines.iter().map(|l| format!("{l}\n")).collect();
    let t = run(open(""), [Action::Import(text)]);
    assert_eq!(t.cursor(), e.cursor());
    assert_eq!(*t.frame, e.frame());
    assert_eq!(t.messages.notice.as_deref(), Some("Imported."));
    lines[3]["time"] = serde_json::json!(999);
    let text: String = lines.iter().map(|l| format!("{l}\n")).collect();
    let t = run(t, [Action::Import(text)]);
    let alert = t.messages.alert.as_deref().unwrap();
    assert!(alert.contains("line 4: event differs from the re-run: \"time\" is 999 here"), "{alert}");
}

#[test]
fn playing_steps_only_when_an_event_is_due() {
    let s = open("?preset=raft-cold");
    let paused = s.clone().reduce(Action::PlayTo(100.0));
    assert!(Rc::ptr_eq(&paused, &s), "paused: animation frames change nothing");
    let s = s.reduce(Action::TogglePlay);
    assert!(s.playback.playing);
    let next = s.engine.get().record(1).map(|r| r.time).expect("a first event");
    let early = s.clone().reduce(Action::PlayTo(next as f64 - 0.5));
    assert!(Rc::ptr_eq(&early, &s), "no event due: same state, no re-render");
    let later = s.reduce(Action::PlayTo(next as f64));
    assert!(later.cursor() >= 1);
    assert!(later.frame.time <= next);
    let paused = later.reduce(Action::TogglePlay);
    assert!(!paused.playback.playing);
}

#[test]
fn playing_to_the_end_pauses_with_a_notice() {
    let s = run(open("?preset=ring-best"), [Action::TogglePlay, Action::PlayTo(1e9)]);
    assert!(!s.playback.playing);
    assert_eq!(s.messages.notice.as_deref(), Some("The run has ended."));
    let s = run(s, [Action::TogglePlay]);
    assert!(!s.playback.playing, "nothing left to play");
    assert!(s.messages.notice.as_deref().unwrap().starts_with("The run has ended: nothing left to play."));
}

#[test]
fn speed_keys_walk_the_list_and_stop_at_its_ends() {
    let s = run(open(""), [Action::Faster, Action::Faster]);
    assert_eq!(s.playback.speed, 10.0);
    let s = run(s, [Action::Faster, Action::Faster]);
    assert_eq!(s.playback.speed, 30.0);
    let s = run(s, (0..9).map(|_| Action::Slower));
    assert_eq!(s.playback.speed, 0.5);
}

#[test]
fn escape_closes_dialogs_and_menus() {
    let s = run(
        open(""),
        [Action::ToggleHelp, Action::NodeMenu(3), Action::ShowShare { title: "Link".into(), text: "x".into() }],
    );
    assert!(s.dialogs.help && s.selection.menu.is_some() && s.dialogs.share.is_some());
    let c = s.cancel;
    let s = s.reduce(Action::Escape);
    assert!(!s.dialogs.help && s.selection.menu.is_none() && s.dialogs.share.is_none());
    assert_ne!(s.cancel, c);
}

#[test]
fn non_engine_actions_keep_the_derived_data() {
    let s = open("?preset=bully-heartbeats");
    let t = run(s.clone(), [Action::ToggleHelp, Action::Speed(5.0), Action::NodeMenu(3), Action::CloseMenu]);
    assert!(t.engine == s.engine);
    assert!(
        Rc::ptr_eq(&t.frame, &s.frame) && Rc::ptr_eq(&t.markers, &s.markers) && Rc::ptr_eq(&t.scenario, &s.scenario)
    );
    assert_ne!(t.url_key(), s.url_key(), "the selection is part of the URL");
}

#[test]
fn markers_are_kept_until_the_head_moves() {
    let s = open("?preset=bully-heartbeats");
    let t = run(s.clone(), [Action::StepForward, Action::StepForward, Action::StepBack]);
    assert_eq!(t.head, s.head);
    assert!(Rc::ptr_eq(&t.markers, &s.markers), "no recomputation while the head stays");
    assert!(Rc::ptr_eq(&t.scenario, &s.scenario), "the editor's input is unchanged by stepping");
}

#[test]
fn markers_match_a_full_scan_of_the_records() {
    for p in presets::all() {
        let s = open(&format!("?preset={}", p.id));
        let first = s.scenario.nodes[0];
        let s = run(s, [Action::StepForward, Action::NodeClick(first), Action::End]);
        let e = s.engine.get();
        let mut expected: Vec<(u64, &str)> = Vec::new();
        for step in 1..=e.head() {
            if let Some(r) = e.record(step).filter(|r| r.kind == EventKind::Fault) {
                let start = matches!(e.scenario().schedule[r.aux as usize].action, Intervention::Start(_));
                expected.push((step, if start { "start" } else { "fault" }));
            }
        }
        expected.extend(
            e.interventions()
                .iter()
                .map(|iv| (iv.step, if matches!(iv.action, Intervention::Start(_)) { "start" } else { "fault" })),
        );
        expected.extend(e.all_elections().iter().map(|x| (x.step, "elected")));
        expected.extend(e.all_violations().iter().map(|v| (v.step, "violation")));
        expected.sort_unstable();
        let mut got: Vec<(u64, &str)> = s.markers.iter().map(|m| (m.step, m.class)).collect();
        got.sort_unstable();
        assert_eq!(got, expected, "preset {}", p.id);
    }
}

#[test]
fn reset_drops_interventions_and_keeps_the_preset() {
    let s = run(open("?preset=split-brain-bully"), [Action::NodeClick(5), Action::StepForward, Action::Reset]);
    assert!(s.interventions.is_empty());
    assert_eq!(s.cursor(), 0);
    assert_eq!(s.query(true), "?preset=split-brain-bully&step=0&embed=1");
}

#[test]
fn the_experiments_view_opens_from_its_link_and_keeps_the_session() {
    let s = Rc::new(State::open_in("?preset=ring-worst&experiment=raft-figure-16-randomness&lang=zh", None));
    assert!(s.experiments().is_some());
    assert_eq!(s.experiment, "raft-figure-16-randomness");
    assert_eq!(s.lang, Lang::Zh);
    assert_eq!(s.preset, Some("ring-worst"), "the simulator's session is there behind it");
    assert!(
        s.query(false).ends_with("&lang=zh&experiment=raft-figure-16-randomness"),
        "a reload reopens it: {}",
        s.query(false)
    );
    let key = s.url_key();
    let s = run(s, [Action::PickExperiment("one-partition")]);
    assert_eq!(s.experiment, "one-partition");
    assert_ne!(s.url_key(), key, "the address follows the chosen experiment");
    let s = run(s, [Action::PickExperiment("nope")]);
    assert_eq!(s.experiment, "one-partition", "only a ready-made experiment can be chosen");
    let s = run(s, [Action::Escape]);
    assert!(s.experiments().is_none(), "Escape goes back to the simulator");
    assert!(!s.query(false).contains("experiment="));
    assert_eq!(s.preset, Some("ring-worst"));
}

#[test]
fn an_unknown_experiment_in_a_link_is_named_and_the_simulator_opens() {
    let s = Rc::new(State::open_in("?preset=ring-worst&experiment=nope", None));
    assert!(s.experiments().is_none());
    let notice = s.messages.notice.as_deref().unwrap();
    assert!(notice.starts_with("link: no ready-made experiment named 'nope' (there are: messages-vs-n,"), "{notice}");
    assert_eq!(s.preset, Some("ring-worst"));
    let zh = Rc::new(State::open_in("?experiment=nope&lang=zh", None));
    assert!(zh.messages.notice.as_deref().unwrap().contains("“nope”"));
    let s = run(s, [Action::StepForward]);
    assert_eq!(s.cursor(), 1, "the simulator works");
    // An embed has no experiments view.
    let e = Rc::new(State::open_in("?preset=ring-worst&embed=1&experiment=one-partition", None));
    assert!(e.experiments().is_none());
    assert!(run(e, [Action::ToggleExperiments]).experiments().is_none());
}

#[test]
fn while_the_experiments_view_is_open_the_simulator_keys_wait() {
    let s = run(open("?preset=ring-worst"), [Action::StepForward, Action::TogglePlay]);
    assert!(s.playback.playing);
    let s = run(s, [Action::ToggleExperiments]);
    assert!(s.experiments().is_some());
    assert!(!s.playback.playing, "opening the view pauses the run");
    let s = run(s, [Action::StepForward, Action::TogglePlay, Action::Reset, Action::NodeClick(1), Action::ToggleCard]);
    assert_eq!(s.cursor(), 1, "the hidden simulator did not move");
    assert!(!s.playback.playing && !s.dialogs.card && s.interventions.is_empty());
    // The help opens over the view; Escape closes it first, then the view.
    let s = run(s, [Action::ToggleHelp, Action::Escape]);
    assert!(!s.dialogs.help && s.experiments().is_some());
    let s = run(s, [Action::ToggleLang, Action::ToggleExperiments]);
    assert!(s.experiments().is_none());
    assert_eq!(s.lang, Lang::Zh);
    let s = run(s, [Action::StepForward]);
    assert_eq!(s.cursor(), 2, "back in the simulator, where it was");
}

#[test]
fn a_keyboard_partition_cuts_the_chosen_nodes_off_with_one_line() {
    for preset in ["bully-heartbeats", "gossip-16", "split-brain-bully", "dht-crash"] {
        let s = open(&format!("?preset={preset}"));
        let ids = s.scenario.nodes.clone();
        // Two neighbours in drawing order (next to each other on the circle or the hash ring).
        let mut order: Vec<(u32, Pt)> = ids.iter().copied().zip(s.positions.iter().copied()).collect();
        let angle = |p: Pt| (p.1 - 500.0).atan2(p.0 - 500.0);
        order.sort_unstable_by(|a, b| angle(a.1).total_cmp(&angle(b.1)));
        let chosen = [order[0].0, order[1].0];
        let s = run(
            s,
            [Action::ToggleSide(chosen[0]), Action::ToggleSide(ids[ids.len() / 2]), Action::ToggleSide(chosen[1])],
        );
        let s = run(s, [Action::ToggleSide(ids[ids.len() / 2])]);
        assert_eq!(*s.selection.side, chosen.to_vec(), "{preset}: P toggles");
        let s = run(s, [Action::CommitSide]);
        assert!(s.selection.side.is_empty());
        assert_eq!(s.lines.len(), 1, "{preset}: one line, as if drawn");
        // The groups the engine was given: the chosen nodes, and everyone else.
        let groups = s.frame.groups.clone().expect("a partition");
        let g = |id: u32| groups[ids.iter().position(|&x| x == id).unwrap()];
        assert_eq!(g(chosen[0]), g(chosen[1]));
        for &id in ids.iter().filter(|id| !chosen.contains(id)) {
            assert_ne!(g(id), g(chosen[0]), "{preset}: N{id} is on the other side");
            assert_eq!(g(id), g(order[2].0));
        }
        // Undo takes the line back like a drawn one.
        let s = run(s, [Action::Undo]);
        assert!(s.lines.is_empty());
    }
}

#[test]
fn nodes_no_line_separates_are_named_and_nothing_changes() {
    let s = open("?preset=bully-worst-8");
    let ids = s.scenario.nodes.clone();
    // Opposite nodes of a circle, with others between them on both sides.
    let s = run(s, [Action::ToggleSide(ids[0]), Action::ToggleSide(ids[4])]);
    let rev = s.engine.rev;
    let s = run(s, [Action::CommitSide]);
    assert!(s.lines.is_empty());
    assert_eq!(s.engine.rev, rev);
    let notice = s.messages.notice.clone().unwrap();
    assert!(notice.contains(&format!("N{}, N{}", ids[0], ids[4])), "{notice}");
    assert_eq!(s.selection.side.len(), 2, "the choice is kept, to be changed");
    let s = run(s, [Action::ClearSide, Action::CommitSide]);
    assert!(s.messages.notice.clone().unwrap().starts_with("Choose one side first"));
}

#[test]
fn peeking_at_a_node_changes_nothing_in_the_run() {
    let s = run(open("?preset=bully-heartbeats&step=5"), []);
    let (rev, q) = (s.engine.rev, s.query(false));
    let peeked = s.scenario.nodes[1];
    let s = run(s, [Action::Peek(peeked)]);
    assert_eq!(s.selection.peek, Some(peeked));
    assert_eq!((s.engine.rev, s.query(false), s.cursor()), (rev, q, 5));
    assert!(s.interventions.is_empty());
    // A click crashes, and the inspector follows the clicked node.
    let id = s.scenario.nodes[2];
    let s = run(s, [Action::NodeClick(id)]);
    assert_eq!((s.selection.peek, s.selection.selected, role(&s, id)), (None, Some(id), "crashed"));
}

#[test]
fn on_touch_the_first_narration_names_taps_not_keys() {
    let s = open("?preset=bully-heartbeats");
    assert!(s.narration.contains("Press →"));
    let s = run(s, [Action::SetTouch(true)]);
    assert!(s.narration.contains("Tap") && !s.narration.contains("Press") && !s.narration.contains("Space"));
    let s = run(s, [Action::SetLang(Lang::Zh)]);
    assert!(s.narration.contains("轻点") && !s.narration.contains("空格"));
}

// Logs are read by the shipped mappings, which only the workbench carries.
#[cfg(feature = "mappings")]
#[test]
fn real_cluster_logs_open_as_a_recorded_run_and_replay_beside_the_model() {
    let logs = |names: [(&str, &str); 3]| names.iter().map(|(n, t)| (n.to_string(), t.to_string())).collect::<Vec<_>>();
    let etcd = logs([
        ("c.log", include_str!("../../../crate/tests/data/real/etcd-zap/c.log")),
        ("a.log", include_str!("../../../crate/tests/data/real/etcd-zap/a.log")),
        ("b.log", include_str!("../../../crate/tests/data/real/etcd-zap/b.log")),
    ]);
    let s = run(open("?preset=ring-best"), [Action::ImportFiles(etcd)]);
    assert_eq!(s.scenario.algorithm, "etcd-log");
    assert_eq!(s.scenario.nodes, vec![1, 2, 3]);
    assert!(
        s.messages
            .notice
            .as_deref()
            .unwrap()
            .starts_with("Imported 3 etcd 3.4 (read by the mapping etcd) log file(s): 5 messages matched"),
        "{:?}",
        s.messages.notice
    );
    assert!(s.messages.alert.is_none());
    let s = run(s, [Action::ReplayModel]);
    let c = s.compare().expect("compare lanes");
    let ids: Vec<&str> = c.lanes.iter().map(|l| l.algorithm.id).collect();
    assert_eq!(ids, vec!["etcd-log", "raft"]);
    assert_eq!(c.scenario.algorithm, "etcd-log", "the real run is the anchor");
    // One JSON file is still a scenario or trace; text that is neither is refused.
    let t = run(open(""), [Action::ImportFiles(vec![("x.json".into(), s.engine.get().trace_value().to_string())])]);
    assert_eq!(t.messages.notice.as_deref(), Some("Imported."));
    let u = run(open("?preset=ring-best"), [Action::ImportFiles(vec![("x.txt".into(), "hello".into())])]);
    assert!(u
        .messages
        .alert
        .as_deref()
        .unwrap()
        .starts_with("Import failed, nothing changed: these files are neither"));
    assert_eq!(u.scenario.algorithm, "chang-roberts");
}

/// Plays `s` with 60 animation frames a second through the playback schedule, as the play loop
/// does, until the cursor passes `step`; returns the state and the wall time it took (seconds).
fn play_until_past(mut s: Rc<State>, step: u64) -> (Rc<State>, f64) {
    let dt = 1.0 / 60.0;
    let (mut t, mut wall) = (s.frame.time as f64, 0.0);
    while s.cursor() <= step && s.playback.playing {
        t = crate::anim::advance(t, dt, s.playback.speed, s.quiet_stretch());
        s = s.reduce(Action::PlayTo(t));
        wall += dt;
        assert!(wall < 600.0, "never got past step {step}");
    }
    (s, wall)
}

#[test]
fn a_crash_then_play_does_not_sit_through_the_silent_timeout() {
    let s = run(open("?preset=bully-heartbeats"), [Action::NodeClick(80)]);
    assert_eq!(s.cursor(), 0);
    assert!(s.narration.contains("N80 crashed"), "the crash is narrated: {}", s.narration);
    assert!(!s.narration.contains("nothing has happened"), "{}", s.narration);
    let quiet = s.clone().reduce(Action::TogglePlay).quiet_stretch().expect("nothing moves before the timeouts");
    assert!(quiet.1 - quiet.0 >= 10.0, "the followers' timeout is the quiet stretch: {quiet:?}");
    let (s, wall) = play_until_past(s.reduce(Action::TogglePlay), 0);
    assert!(wall <= 0.5, "the first event came after {wall} s of wall time");
    assert!(s.frame.time as f64 >= quiet.1, "the first event is the timeout");
    // Every later quiet stretch of the run plays as quickly: walk the whole run, measuring the
    // wall time spent with no message in flight between two steps.
    let mut s = s;
    while s.playback.playing {
        let before = s.cursor();
        let quiet = s.quiet_stretch();
        let (next, wall) = play_until_past(s, before);
        if quiet.is_some() {
            assert!(wall <= 0.5, "quiet stretch {quiet:?} after step {before} took {wall} s");
        }
        s = next;
    }
}

#[test]
fn the_first_step_narration_is_not_doubled_and_a_crash_at_step_0_is_told() {
    let s = open("?preset=bully-heartbeats");
    assert!(!s.narration.starts_with("Step 0"), "the panel adds 'Step 0:' itself: {}", s.narration);
    let zh = run(Rc::new(State::open_in("?preset=bully-heartbeats&lang=zh", None)), [Action::NodeClick(3)]);
    assert!(zh.narration.contains("N3 崩溃了"), "{}", zh.narration);
}

/// Split brain under Bully with the partition {1, 2} | {3, 4, 5} made after step 1 (as the
/// e2e test draws it), and the "leaders change" breakpoint.
fn split_brain_with_breakpoint() -> Rc<State> {
    run(
        open("?preset=split-brain-bully"),
        [
            Action::StepForward,
            Action::SetLines(vec![[250, 10, 990, 650]]),
            Action::AddBreakpoint("leaders-change".into()),
        ],
    )
}

/// The first step after `from` whose leaders differ from the step before it, found by seeking
/// step by step (independently of the breakpoint module's watch).
fn first_leader_change(s: &Rc<State>, from: u64) -> u64 {
    let mut e = s.engine.get_mut();
    let back = e.cursor();
    e.seek(from);
    let mut before = e.leaders();
    let mut step = from;
    loop {
        assert!(e.step(), "the run ended before the leaders changed");
        step += 1;
        let now = e.leaders();
        if now != before {
            break;
        }
        before = now;
    }
    e.seek(back);
    step
}

#[test]
fn play_stops_at_the_step_where_the_second_leader_appears() {
    let s = split_brain_with_breakpoint();
    assert_eq!(s.engine.get().until(), ["leaders-change"]);
    let want = first_leader_change(&s, s.cursor());
    let s = run(s, [Action::Speed(30.0), Action::TogglePlay, Action::PlayTo(1e9)]);
    assert!(!s.playback.playing, "Play stopped at the hit");
    assert_eq!(s.cursor(), want);
    let hit = s.hit_here().expect("the hit is shown");
    assert_eq!(hit.breakpoint, "leaders-change");
    assert_eq!(s.frame.leaders.len(), 2, "split brain: {:?}", s.frame.leaders);
    assert_eq!(s.selection.selected, hit.nodes.first().copied(), "the node that hit is highlighted");
    assert!(hit_text(hit, crate::i18n::Lang::En).contains(&format!("step {want}")));
    assert!(hit_text(hit, crate::i18n::Lang::Zh).contains(&format!("第 {want} 步")));
    // Play again: it goes on from the hit (the hit itself does not stop it again).
    let s = run(s, [Action::TogglePlay, Action::PlayTo(1e9)]);
    assert!(s.cursor() > want);
}

#[test]
fn next_and_previous_hit_move_between_hits() {
    let s = split_brain_with_breakpoint();
    let first = first_leader_change(&s, s.cursor());
    let s = s.reduce(Action::NextHit);
    assert_eq!(s.cursor(), first);
    let s = run(s, [Action::Seek(first + 30), Action::PrevHit]);
    assert_eq!(s.cursor(), first, "back to the previous hit");
    assert_eq!(s.hit_here().map(|h| h.step), Some(first));
    let s = run(s, [Action::Seek(1), Action::PrevHit]);
    assert_eq!(s.cursor(), 1, "no hit before: the cursor stays");
    assert!(s.messages.notice.as_deref().unwrap().contains("No breakpoint hits before"));
}

#[test]
fn a_bad_breakpoint_is_named_and_not_added() {
    let s = run(open("?preset=split-brain-bully"), [Action::AddBreakpoint("role:9=leader".into())]);
    assert!(s.engine.get().until().is_empty());
    let e = s.bp_error.as_deref().expect("an error");
    assert!(e.contains("unknown node 9"), "{e}");
    let s = run(s, [Action::AddBreakpoint("deliver:NOPE".into())]);
    assert!(s.bp_error.as_deref().unwrap().contains("unknown message kind 'NOPE'"));
    let s = run(s, [Action::AddBreakpoint(" role:3=leader ".into()), Action::AddBreakpoint("time>=200".into())]);
    assert_eq!(s.bp_error, None);
    assert_eq!(s.engine.get().until(), ["role:3=leader", "time>=200"]);
    let s = run(s, [Action::RemoveBreakpoint(0)]);
    assert_eq!(s.engine.get().until(), ["time>=200"]);
}

#[test]
fn breakpoints_travel_in_links_and_traces_and_survive_reset() {
    let s = split_brain_with_breakpoint();
    let s = run(s, [Action::AddBreakpoint("time>=100".into())]);
    let q = s.query(false);
    assert!(q.contains("&until=leaders-change&until=time%3E%3D100"), "{q}");
    let back = open(&q);
    assert_eq!(back.engine.get().until(), ["leaders-change", "time>=100"]);
    assert_eq!(back.engine.get().trace_hash(), s.engine.get().trace_hash());
    // The exported trace carries them, and importing it brings them back.
    let exported = s.engine.get().trace_value().to_string();
    assert!(exported.contains("\"until\":[\"leaders-change\",\"time>=100\"]"));
    let imported = run(open("?preset=ring-worst"), [Action::Import(exported)]);
    assert_eq!(imported.engine.get().until(), ["leaders-change", "time>=100"]);
    // A preset link with a breakpoint (no interventions) keeps it too.
    let p = run(open("?preset=split-brain-bully"), [Action::AddBreakpoint("violation".into())]);
    assert_eq!(p.query(false), "?preset=split-brain-bully&step=0&until=violation");
    // Reset drops the interventions, not the breakpoints.
    let r = run(s, [Action::Reset]);
    assert!(r.interventions.is_empty());
    assert_eq!(r.engine.get().until(), ["leaders-change", "time>=100"]);
}

#[test]
fn a_link_with_a_breakpoint_this_run_cannot_have_says_so() {
    let s = open("?preset=split-brain-bully&until=role:9%3Dleader&until=violation");
    assert_eq!(s.engine.get().until(), ["violation"]);
    let a = s.messages.alert.as_deref().expect("named");
    assert!(a.contains("until[0] 'role:9=leader' left out: unknown node 9"), "{a}");
}

#[test]
fn the_json_lines_of_run_trace_import_with_the_same_hash_and_breakpoints() {
    let src = split_brain_with_breakpoint();
    let src = run(src, [Action::Seek(120)]);
    let mut text = String::new();
    src.engine
        .get_mut()
        .trace_lines::<()>(&mut |line| {
            text.push_str(&line.to_string());
            text.push('\n');
            Ok(())
        })
        .unwrap();
    assert!(text.lines().count() > 100, "a header, one line per step, a summary");
    let s = run(open("?preset=ring-worst"), [Action::Import(text)]);
    assert_eq!(s.messages.alert, None);
    assert_eq!(s.engine.get().trace_hash(), src.engine.get().trace_hash());
    assert_eq!(s.engine.get().until(), ["leaders-change"]);
    assert_eq!(*s.interventions, *src.interventions);
}

#[test]
fn the_log_filter_is_kept_in_the_link() {
    let s = State::open_in("?preset=split-brain-bully&log=node:3&log=type:deliver&log=kind:HEARTBEAT", None);
    assert_eq!(s.messages.notice, None);
    let f = LogFilter { node: Some(3), kind: Some("HEARTBEAT".into()), event: Some("deliver") };
    assert_eq!(*s.log_filter, f);
    let q = s.query(false);
    assert!(q.ends_with("&log=node:3&log=kind:HEARTBEAT&log=type:deliver"), "{q}");
    assert_eq!(*State::open_in(&q, None).log_filter, f);
    let e = s.engine.get();
    let mut kept = 0;
    for step in 1..=200 {
        let info = e.step_info_in(step, crate::i18n::Lang::En).unwrap();
        let touches = info.node == 3 || info.peer == Some(3);
        let passes = touches && info.kind == Some("HEARTBEAT") && info.event == "deliver";
        assert_eq!(f.keeps(&info), passes, "step {step}: {info:?}");
        kept += usize::from(passes);
    }
    assert!(kept > 0, "some steps pass");
    drop(e);
    let bad = State::open_in("?preset=split-brain-bully&log=node:9&log=type:nope", None);
    let n = bad.messages.notice.as_deref().unwrap();
    assert!(n.contains("log=node:9: no such node") && n.contains("log=type:nope"), "{n}");
    let s = run(Rc::new(bad), [Action::SetLogFilter(LogFilter::default())]);
    assert!(!s.query(false).contains("log="));
}

#[test]
fn in_the_round_model_step_forward_and_back_move_a_whole_round() {
    let s = open("?preset=floodmax-grid");
    assert!(s.scenario.network.rounds);
    let start = s.frame.time;
    let s = run(s, [Action::StepForward]);
    let (one, c1) = (s.frame.time, s.cursor());
    assert!(one > start && c1 > 1, "one press crossed a round of many events: t {start} → {one}, step {c1}");
    let next = s.engine_mut().next_event_time();
    assert!(next.is_none_or(|t| t > one), "the round is over: the next event is at {next:?}");
    let s = run(s, [Action::StepForward]);
    assert!(s.frame.time > one);
    // Back: to the end of the round before, exactly where the first press stopped.
    let s = run(s, [Action::StepBack]);
    assert_eq!((s.frame.time, s.cursor()), (one, c1));
    // Outside the round model a step is one event.
    let s = run(open("?preset=ring-worst"), [Action::StepForward, Action::StepForward, Action::StepBack]);
    assert_eq!(s.cursor(), 1);
}

/// A lesson asked of a build without the lesson player (a per-family player, built without the
/// `lessons` feature) goes as its query to the bundle that has one (the app calls
/// `State::elsewhere`, a handoff to the full player), and so does the Lessons button, with the run and
/// an empty `lesson=` (the course list); the run stays as it was meanwhile. A build with the
/// player opens them itself.
#[test]
fn a_lesson_without_the_lesson_player_is_handed_to_the_bundle_that_has_one() {
    let handed = |s: &State| s.handoff.as_deref().and_then(|h| crate::state::handoff::arrival(h)).map(|a| a.query);
    for (query, asked) in [
        ("?lesson=bully", "?lesson=bully&lang=en"),
        ("lesson=bully&lang=zh", "?lesson=bully&lang=zh"),
        ("?lesson=bully&embed=1", "?lesson=bully&embed=1&lang=en"),
        ("?preset=ring-worst&lesson=", "?preset=ring-worst&lesson=&lang=en"),
    ] {
        let s = State::open_in(query, None);
        assert_eq!(handed(&s), (!crate::LESSONS).then(|| asked.to_string()), "{query}");
        assert_eq!(s.messages.alert, None, "{query}: nothing failed");
    }
    assert_eq!(handed(&open("?preset=ring-worst&step=3")), None, "a run asks for no lesson");
    let s = run(open("?preset=ring-worst"), [Action::StepForward, Action::Courses]);
    assert_eq!(handed(&s), (!crate::LESSONS).then(|| "?preset=ring-worst&step=1&lesson=&lang=en".to_string()));
    assert_eq!(s.cursor(), 1, "the run goes on meanwhile");
    // The language shown goes along, or the other bundle would open in the browser's.
    let s = run(open("?preset=ring-worst"), [Action::SetLang(Lang::Zh), Action::Courses]);
    assert_eq!(handed(&s).map(|q| q.contains("&lang=zh")), (!crate::LESSONS).then_some(true), "{:?}", handed(&s));
}
