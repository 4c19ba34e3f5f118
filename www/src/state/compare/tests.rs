//! Compare mode's reducer, tested natively: lanes, the shared clock, faults in every lane, links.

use super::*;
use crate::geometry::Line;
use crate::state::{Action, State};
use yew::Reducible;

/// The line the browser test drags: {1,2} on one side, {3,4,5} on the other.
const CUT: Line = [250, 10, 990, 650];

fn open(query: &str) -> Rc<State> {
    Rc::new(State::open(query))
}

use crate::state::tests::run;

fn lanes(s: &State) -> &Compare {
    s.compare().expect("compare mode")
}

/// Each lane is at its last step at or before the shared time.
fn assert_in_sync(c: &Compare) {
    for l in &c.lanes {
        let e = l.engine.get();
        assert!(e.now() <= c.time, "{}: at t={} past the clock {}", l.algorithm.id, e.now(), c.time);
        if let Some(next) = e.record(e.cursor() + 1) {
            assert!(
                next.time > c.time,
                "{}: step {} at t={} is due by the clock {}",
                l.algorithm.id,
                e.cursor() + 1,
                next.time,
                c.time
            );
        }
        assert_eq!(l.frame.step, e.cursor());
        assert_eq!(l.frame.time, c.time, "every lane is drawn at the shared time");
    }
}

#[test]
fn compare_lists_name_what_is_wrong() {
    assert_eq!(parse_ids("bully, raft").unwrap().iter().map(|a| a.id).collect::<Vec<_>>(), ["bully", "raft"]);
    assert!(parse_ids("bully,nope").unwrap_err().starts_with("compare: no algorithm named 'nope' (known: bully,"));
    assert!(parse_ids("bully").unwrap_err().contains("1 algorithm(s) given ('bully'); compare mode shows 2 to 4"));
    assert!(parse_ids("bully,raft,invitation,lelann,token-ring").unwrap_err().contains("5 algorithm(s)"));
    assert_eq!(parse_ids("raft,bully,raft").unwrap_err(), "compare: 'raft' is listed twice");
    assert!(parse_ids("").unwrap_err().contains("0 algorithm(s)"));
}

#[test]
fn the_split_brain_preset_takes_the_course_pair_and_what_else_fits() {
    let base = preset_scenario(&SPLIT_BRAIN).unwrap();
    let lanes: Vec<&str> = preset_lanes(&base).iter().map(|a| a.id).collect();
    assert!(lanes.contains(&"bully") && lanes.contains(&"raft"), "the course's pair: {lanes:?}");
    // Those that declare this very scenario as a preset of their own come first.
    let declaring =
        registry::all().iter().filter(|a| a.presets.iter().any(|p| same_world(&p.scenario(), &base))).count();
    assert!(declaring >= 2);
    for (k, id) in lanes.iter().enumerate() {
        let declares = registry::find(id).unwrap().presets.iter().any(|p| same_world(&p.scenario(), &base));
        assert_eq!(declares, k < declaring, "{id} at lane {k}: {lanes:?}");
    }
    assert!(lanes.len() <= MAX_LANES && lanes.len() >= 2);
    for id in &lanes {
        let a = registry::find(id).unwrap();
        assert!(!a.topology.is_ring(), "{id}: a ring does not fit a complete graph");
    }
    // Every complete-graph algorithm fits; the lanes hold as many as there is room for.
    let fitting = registry::all().iter().filter(|a| fits(&base, a)).count();
    assert_eq!(lanes.len(), fitting.min(MAX_LANES));
    assert!(registry::all().iter().filter(|a| a.topology.is_ring()).all(|a| !fits(&base, a)));
    assert!(presets::find(PICKER_VALUE).is_none(), "the picker's value for the compare preset is no preset's id");
}

#[test]
fn opening_a_compare_link_builds_one_lane_per_algorithm() {
    let s = open("?compare=bully,raft&preset=split-brain-bully");
    assert_eq!(s.messages.alert, None);
    let c = lanes(&s);
    assert_eq!(c.algorithms().iter().map(|a| a.id).collect::<Vec<_>>(), ["bully", "raft"]);
    assert_eq!(c.time, 0);
    for l in &c.lanes {
        let e = l.engine.get();
        assert_eq!(e.scenario().nodes, [1, 2, 3, 4, 5]);
        assert_eq!(e.scenario().seed, 425);
        assert_eq!(l.row.leaders, [5]);
    }
    assert_eq!(s.query(false), "?compare=bully,raft&preset=split-brain-bully&time=0");
}

#[test]
fn a_compare_link_with_a_step_opens_at_that_steps_time() {
    let mut one = Engine::new(presets::find("split-brain-bully").unwrap().scenario()).unwrap();
    one.seek(47);
    let s = open("?compare=raft,bully&preset=split-brain-bully&step=47");
    assert_eq!(lanes(&s).time, one.now(), "the step is the scenario's own algorithm's");
    assert_in_sync(lanes(&s));
}

#[test]
fn one_step_moves_the_clock_to_the_next_tick_of_any_lane() {
    let mut s = open("?compare=bully,raft&preset=split-brain-bully");
    let mut times = vec![0];
    for _ in 0..40 {
        let next = lanes(&s).next_tick().unwrap();
        s = s.reduce(Action::StepForward);
        assert_eq!(lanes(&s).time, next);
        assert_in_sync(lanes(&s));
        times.push(next);
    }
    assert!(times.windows(2).all(|w| w[0] < w[1]));
    // Back, step by step, through the same ticks, drawing the same frames.
    let frames: Vec<Rc<Frame>> = lanes(&s).lanes.iter().map(|l| l.frame.clone()).collect();
    let ahead = run(s.clone(), [Action::StepBack, Action::StepBack, Action::StepForward, Action::StepForward]);
    assert_eq!(lanes(&ahead).time, *times.last().unwrap());
    for (l, f) in lanes(&ahead).lanes.iter().zip(&frames) {
        assert_eq!(*l.frame, **f, "{}: back and forth draws the same frame", l.algorithm.id);
    }
    // On from the newest state (the engines are the store's: an old state no longer acts).
    let mut s = ahead;
    for want in times.iter().rev().skip(1).take(10) {
        s = s.reduce(Action::StepBack);
        assert_eq!(lanes(&s).time, *want);
        assert_in_sync(lanes(&s));
    }
}

#[test]
fn playing_moves_every_lane_on_one_clock() {
    let mut s = run(open("?compare=bully,raft&preset=split-brain-bully"), [Action::TogglePlay]);
    assert!(s.playback.playing);
    let key = s.url_key();
    for i in 1..=61 {
        s = s.reduce(Action::PlayTo(i as f64 * 0.5));
    }
    assert_eq!(lanes(&s).time, 30);
    assert_eq!(s.url_key(), key, "the address is not rewritten at every tick while playing");
    let s = s.reduce(Action::Pause);
    assert_ne!(s.url_key(), key);
    assert!(s.query(false).ends_with("&time=30"));
    assert_in_sync(lanes(&s));
    let seek = run(open("?compare=bully,raft&preset=split-brain-bully"), [Action::Seek(30)]);
    for (a, b) in lanes(&s).lanes.iter().zip(&lanes(&seek).lanes) {
        assert_eq!(*a.frame, *b.frame, "{}: playing to t=30 draws what seeking to it draws", a.algorithm.id);
        assert_eq!(a.row, b.row);
    }
}

#[test]
fn seeking_puts_every_lane_at_its_last_step_at_or_before_the_time() {
    let mut s = open("?compare=bully,raft,invitation&preset=split-brain-bully");
    for t in [57, 3, 150, 0, 299, 120] {
        s = s.reduce(Action::Seek(t));
        assert_eq!(lanes(&s).time, t);
        assert_in_sync(lanes(&s));
    }
}

/// The acceptance of compare mode, natively: Bully and Raft on the split-brain preset, one
/// partition line drawn in one lane.
#[test]
fn one_partition_line_splits_bully_but_not_raft_at_the_same_time() {
    let s = run(open("?compare=bully,raft&preset=split-brain-bully"), [Action::Seek(20), Action::SetLines(vec![CUT])]);
    let c = lanes(&s);
    for l in &c.lanes {
        let e = l.engine.get();
        let iv = e.interventions().last().unwrap();
        assert_eq!(iv.time, 20, "{}: the same fault at the same virtual time", l.algorithm.id);
        assert!(
            matches!(&iv.action, Intervention::Partition { groups, .. } if *groups == vec![vec![1, 2], vec![3, 4, 5]])
        );
        assert_eq!(l.row.sides.iter().map(|s| s.0.clone()).collect::<Vec<_>>(), [vec![1, 2], vec![3, 4, 5]]);
    }
    assert_eq!(*c.lines, vec![CUT]);
    let mut s = s;
    while lanes(&s).lanes[0].row.leaders.len() < 2 {
        s = s.reduce(Action::StepForward);
        assert!(lanes(&s).time < 300, "Bully never elected a second leader");
    }
    let c = lanes(&s);
    let (bully, raft) = (&c.lanes[0].row, &c.lanes[1].row);
    assert_eq!(bully.leaders, [2, 5]);
    assert_eq!(bully.sides, [(vec![1, 2], vec![2]), (vec![3, 4, 5], vec![5])]);
    assert_eq!(bully.claims[0].1, 1, "Bully's single-leader claim is broken (it assumes no partition)");
    assert_eq!(raft.leaders, [5]);
    assert_eq!(raft.sides, [(vec![1, 2], vec![]), (vec![3, 4, 5], vec![5])]);
    assert!(raft.claims.iter().all(|(_, n)| *n == 0), "Raft breaks nothing");
    assert_eq!(bully.agreement, None);
    // To the end: Raft never gets a leader in the minority.
    let end = run(s, [Action::Seek(300)]);
    assert_eq!(lanes(&end).lanes[1].row.leaders, [5]);
    assert!(lanes(&end).lanes[1].row.messages > 0);
}

#[test]
fn a_compare_link_reopens_the_same_view() {
    let s = run(
        open("?compare=raft,bully,invitation&preset=split-brain-bully"),
        [Action::Seek(14), Action::SetLines(vec![CUT]), Action::Seek(33), Action::NodeClick(5), Action::Seek(61)],
    );
    let q = s.query(false);
    assert!(q.starts_with("?compare=raft,bully,invitation&t=1.") && q.contains("&time=61"), "{q}");
    let again = open(&q);
    assert_eq!(again.messages.alert, None);
    let (a, b) = (lanes(&s), lanes(&again));
    assert_eq!(b.time, 61);
    assert_eq!(a.faults(), b.faults());
    for (x, y) in a.lanes.iter().zip(&b.lanes) {
        assert_eq!(x.algorithm, y.algorithm);
        assert_eq!(*x.frame, *y.frame, "{}", x.algorithm.id);
        assert_eq!(x.row, y.row);
        assert_eq!(x.engine.get().trace_hash(), y.engine.get().trace_hash());
    }
    assert_eq!(*b.lines, vec![CUT]);
    // The embed form carries the same view.
    let embed = open(&s.query(true));
    assert!(embed.embed);
    assert_eq!(lanes(&embed).time, 61);
}

#[test]
fn bad_compare_links_say_what_is_wrong_and_the_page_keeps_working() {
    for (q, says) in [
        ("?compare=bully,nope&preset=split-brain-bully", "link: compare: no algorithm named 'nope'"),
        (
            "?compare=raft&preset=split-brain-bully",
            "link: compare: 1 algorithm(s) given ('raft'); compare mode shows 2 to 4",
        ),
        (
            "?compare=bully,raft,invitation,lelann,token-ring&preset=split-brain-bully",
            "link: compare: 5 algorithm(s) given",
        ),
    ] {
        let s = open(q);
        assert!(s.compare().is_none(), "{q}");
        assert!(s.messages.alert.as_deref().unwrap().starts_with(says), "{q}: {:?}", s.messages.alert);
        assert!(s.messages.alert.as_deref().unwrap().ends_with("Showing one algorithm instead."));
        assert_eq!(s.preset, Some("split-brain-bully"), "{q}: the rest of the link still opens");
        let s = run(s, [Action::StepForward]);
        assert_eq!(s.cursor(), 1);
    }
    let s = open("?compare=bully,chang-roberts&preset=split-brain-bully");
    assert!(s.compare().is_none());
    assert!(
        s.messages.alert.as_deref().unwrap().starts_with("link: compare: 'chang-roberts' does not fit this scenario"),
        "{:?}",
        s.messages.alert
    );
    let s = open("?compare=bully,raft&preset=split-brain-bully&time=soon");
    assert!(s.messages.alert.as_deref().unwrap().contains("time 'soon' is not a number of ticks"));
    assert_eq!(lanes(&s).time, 0);
    let s = open("?compare=bully,raft&preset=split-brain-bully&time=99999");
    assert_eq!(lanes(&s).time, 300);
    assert!(s.messages.alert.as_deref().unwrap().contains("past the end"));
}

#[test]
fn faults_made_before_comparing_come_along_and_close_keeps_the_run() {
    let s = run(open("?preset=split-brain-bully"), [Action::Seek(30), Action::NodeClick(5), Action::Seek(40)]);
    let t = s.frame.time;
    let s = run(s, [Action::Compare(vec![registry::find("raft").unwrap(), registry::find("bully").unwrap()])]);
    let c = lanes(&s);
    assert_eq!(c.time, t);
    assert_eq!(c.scenario.algorithm, "bully", "the run's own algorithm stays the anchor");
    for l in &c.lanes {
        assert_eq!(l.engine.get().is_up(5), Some(false), "{}", l.algorithm.id);
    }
    // A dropped message is not a fault every lane can meet.
    let dot = c.lanes[0].frame.messages.first().map(|m| m.id).unwrap_or(0);
    let same = run(s.clone(), [Action::Act(Intervention::Drop(dot))]);
    assert_eq!(lanes(&same).faults(), c.faults());
    assert!(same.messages.notice.is_some());
    let single = run(s, [Action::CloseCompare]);
    assert!(single.compare().is_none());
    assert_eq!(single.engine.get().scenario().algorithm, "bully");
    assert_eq!(single.frame.time, t);
    assert_eq!(single.engine.get().is_up(5), Some(false));
}

#[test]
fn undo_and_redo_take_a_fault_back_from_every_lane() {
    let s = run(
        open("?compare=bully,raft&preset=split-brain-bully"),
        [Action::Seek(20), Action::SetLines(vec![CUT]), Action::Seek(50)],
    );
    let before: Vec<u64> = lanes(&s).lanes.iter().map(|l| l.engine.get().trace_hash()).collect();
    let s = run(s, [Action::Undo]);
    assert_eq!(lanes(&s).time, 20);
    assert!(lanes(&s).faults().is_empty());
    assert!(lanes(&s).lines.is_empty());
    let s = run(s, [Action::Redo, Action::Seek(50)]);
    let after: Vec<u64> = lanes(&s).lanes.iter().map(|l| l.engine.get().trace_hash()).collect();
    assert_eq!(before, after);
}

#[test]
fn the_compare_preset_opens_from_any_page() {
    let s = run(open("?preset=ring-worst"), [Action::ComparePreset]);
    let c = lanes(&s);
    assert_eq!(s.preset, Some(SPLIT_BRAIN.preset));
    assert!(c.lanes.len() >= 2);
    let q = s.query(false);
    assert!(
        q.starts_with("?compare=")
            && q.contains("bully")
            && q.contains("raft")
            && q.contains("&preset=split-brain-bully&time=0"),
        "{q}"
    );
}

#[test]
fn compare_modes_own_actions_are_what_their_plain_aliases_do() {
    let algs = vec![registry::find("raft").unwrap(), registry::find("bully").unwrap()];
    // Two pages (an engine changes only through its newest state).
    let plain = run(open("?preset=split-brain-bully"), [Action::Seek(30), Action::Compare(algs.clone())]);
    let own =
        run(open("?preset=split-brain-bully"), [Action::Seek(30), Action::CompareMode(CompareAction::Open(algs))]);
    assert_eq!(lanes(&own).algorithms(), lanes(&plain).algorithms());
    assert_eq!(lanes(&own).time, lanes(&plain).time);
    let closed = run(own, [Action::CompareMode(CompareAction::Close)]);
    assert!(closed.compare().is_none());
    assert_eq!(closed.scenario.algorithm, "bully");
}
