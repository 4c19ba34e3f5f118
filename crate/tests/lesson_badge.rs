//! The lessons' checker badges (`"checked"` on a stop, `lesson/badge.rs`) say what a check
//! really found: for every built-in lesson, each badge's check runs here natively on the
//! lesson's scenario resized to the badge's nodes, and must hold with exactly the number of
//! unique states the lesson shows. A badge cannot claim what nothing verified.

use election_lab::check::{check, Bounds, Verdict};
use election_lab::lesson::{badge, course};

#[test]
fn every_badge_states_what_its_check_finds() {
    let mut badges = 0;
    for lesson in course::all() {
        for (i, stop) in lesson.stops.iter().enumerate() {
            let Some(b) = &stop.checked else { continue };
            badges += 1;
            let s = badge::scenario(&lesson.scenario, b);
            let bounds = Bounds {
                crashes: b.crashes as u32,
                partitions: b.partitions as u32,
                depth: Some(b.depth as u32),
                ..Bounds::default()
            };
            let r = check(&s, &b.property, bounds, false).unwrap_or_else(|e| panic!("{} stop {i}: {e}", lesson.id));
            assert!(matches!(r.verdict, Verdict::Holds { .. }), "{} stop {i}: {}", lesson.id, r.sentence());
            assert_eq!(
                r.states,
                b.states,
                "{} stop {i}: the badge's states against its check: {}",
                lesson.id,
                r.sentence()
            );
        }
    }
    assert!(badges >= 1, "the Raft lesson shows a badge");
}

/// A badge is read with its fields checked, naming the one that is wrong.
#[test]
fn a_bad_badge_is_refused_by_name() {
    let lesson = course::source("raft").expect("the Raft lesson");
    let mut v: serde_json::Value = serde_json::from_str(lesson).unwrap();
    let stop = v["stops"].as_array_mut().unwrap().iter_mut().find(|s| s.get("checked").is_some()).unwrap();
    stop["checked"]["nodes"] = serde_json::json!(9);
    let e = election_lab::lesson::Lesson::from_value(&v).err().unwrap();
    assert!(e.to_string().contains("checked.nodes"), "{e}");
    stop_field(&mut v, "colour");
    let e = election_lab::lesson::Lesson::from_value(&v).err().unwrap();
    assert!(e.to_string().contains("colour"), "{e}");
}

fn stop_field(v: &mut serde_json::Value, field: &str) {
    let stop = v["stops"].as_array_mut().unwrap().iter_mut().find(|s| s.get("checked").is_some()).unwrap();
    stop["checked"]["nodes"] = serde_json::json!(3);
    stop["checked"][field] = serde_json::json!(1);
}
