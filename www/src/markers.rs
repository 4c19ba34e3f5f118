//! Timeline markers, computed from what the engine already keeps: elections, violations and
//! interventions, plus the records of the scenario's scheduled faults (found by a binary search
//! on time, not by reading every recorded step).

use crate::i18n::{k, tr, Lang};
use crate::nodes_text;
use election_lab::sim::EventKind;
use election_lab::{Action, Engine};

/// Eq lets `Rc<Vec<Marker>>` props compare by pointer first.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Marker {
    pub step: u64,
    /// "fault", "start" (an election started by the scenario or by you), "elected" or
    /// "violation" (a CSS class).
    pub class: &'static str,
    pub title: String,
}

/// Steps at which the scenario's scheduled actions ran, up to the head.
pub fn scheduled_fault_steps(engine: &Engine) -> Vec<u64> {
    scheduled_steps(engine).into_iter().map(|(step, _)| step).collect()
}

/// (step, schedule index) of each scheduled action that ran, up to the head.
fn scheduled_steps(engine: &Engine) -> Vec<(u64, usize)> {
    let head = engine.head();
    let mut out = Vec::new();
    for (i, s) in engine.scenario().schedule.iter().enumerate() {
        let mut step = engine.first_step_at(s.at);
        // Only the steps of that one tick are read.
        while step <= head {
            let Some(r) = engine.record(step) else { break };
            if r.time != s.at {
                break;
            }
            if r.kind == EventKind::Fault && r.aux == i as u64 {
                out.push((step, i));
                break;
            }
            step += 1;
        }
    }
    out
}

/// Every marker up to the head, in step order.
pub fn compute(engine: &Engine, lang: Lang) -> Vec<Marker> {
    let mut m = Vec::new();
    for (step, i) in scheduled_steps(engine) {
        if let Some(info) = engine.step_info_in(step, lang) {
            let start = matches!(engine.scenario().schedule[i].action, Action::Start(_));
            m.push(Marker { step, class: if start { "start" } else { "fault" }, title: info.text });
        }
    }
    for iv in engine.interventions() {
        let class = if matches!(iv.action, Action::Start(_)) { "start" } else { "fault" };
        m.push(Marker {
            step: iv.step,
            class,
            title: format!("{}{}", tr(lang, k::UI_MARKER_YOU), iv.action.describe_in(lang)),
        });
    }
    for e in engine.all_elections() {
        m.push(Marker {
            step: e.step,
            class: "elected",
            title: k::ui_marker_elected(e.to, e.leader, e.latency()).render(lang),
        });
    }
    for v in engine.all_violations() {
        m.push(Marker {
            step: v.step,
            class: "violation",
            title: format!("t={} {} {}", v.time, v.kind, nodes_text(&v.nodes)),
        });
    }
    election_lab::sort::sort_by_key(&mut m, |x| x.step);
    m
}

#[cfg(test)]
mod tests {
    use super::*;
    use election_lab::presets;

    /// The old way: read every record up to the head.
    fn fault_steps_by_scan(engine: &Engine) -> Vec<u64> {
        (1..=engine.head()).filter(|&s| engine.record(s).is_some_and(|r| r.kind == EventKind::Fault)).collect()
    }

    #[test]
    fn scheduled_faults_are_found_without_a_scan() {
        for p in presets::all() {
            let mut e = Engine::new(p.scenario()).unwrap();
            e.run(5_000);
            let mut found = scheduled_fault_steps(&e);
            found.sort_unstable();
            assert_eq!(found, fault_steps_by_scan(&e), "preset {}", p.id);
        }
    }
}
