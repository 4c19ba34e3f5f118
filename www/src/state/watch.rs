//! Watch: one per-node field of the inspector (term, vote, role, round, ballot — whatever the
//! algorithm's inspector shows), named by its id and sampled typed over the computed run, for
//! the sparklines drawn under the space-time diagram.

use super::EngineRef;
use election_lab::field::FieldValue;
use election_lab::meta::Text;
use election_lab::sim::EventKind;
use election_lab::{NodeId, Time};

/// One value of every node over the computed run, at every step: each node's value at step 0
/// and at each step where it changed, so that the value shown at a step is the inspector's there.
#[derive(Clone, Debug, PartialEq)]
pub struct Series {
    /// The field's id.
    pub id: String,
    /// The field's label.
    pub key: Text,
    /// The time of the last computed step (the width of the sparklines).
    pub end: Time,
    /// Per node: `(step, time, value)` at step 0 and at every step where the value changed
    /// (None: it has no such value then).
    pub nodes: Vec<(NodeId, Vec<Change>)>,
    /// Every value a non-numeric series takes, as shown, in order of first appearance (empty
    /// when every value is a number).
    pub levels: Vec<String>,
}

/// A node's value from a step on.
pub type Change = (u64, Time, Option<FieldValue>);

/// The value of a node's changes at `step`: the last change at or before it.
pub fn value_at(changes: &[Change], step: u64) -> Option<&FieldValue> {
    let i = changes.partition_point(|c| c.0 <= step).checked_sub(1)?;
    changes[i].2.as_ref()
}

impl Series {
    /// A sample's height in [0, 1]: numbers scaled between the least and the greatest, other
    /// values by their level.
    pub fn height(&self, v: &FieldValue) -> Option<f64> {
        if self.levels.is_empty() {
            let (lo, hi) = self.range()?;
            let x = v.number()? as f64;
            return Some(if hi > lo { (x - lo) / (hi - lo) } else { 0.5 });
        }
        let shown = v.show();
        let i = self.levels.iter().position(|l| *l == shown)?;
        Some(if self.levels.len() > 1 { i as f64 / (self.levels.len() - 1) as f64 } else { 0.5 })
    }

    /// The least and greatest number taken, when every value is a number.
    pub fn range(&self) -> Option<(f64, f64)> {
        let all = self.nodes.iter().flat_map(|(_, v)| v.iter().filter_map(|c| c.2.as_ref()));
        let nums: Vec<f64> = all.filter_map(|v| Some(v.number()? as f64)).collect();
        let lo = nums.iter().copied().fold(f64::INFINITY, f64::min);
        let hi = nums.iter().copied().fold(f64::NEG_INFINITY, f64::max);
        (!nums.is_empty()).then_some((lo, hi))
    }
}

impl EngineRef {
    /// The fields the inspector shows for a node of this run: their ids and labels.
    pub fn watchable(&self) -> Vec<(String, Text)> {
        let e = self.get();
        let Some(&first) = e.scenario().nodes.first() else { return vec![] };
        e.inspect(first).into_iter().map(|f| (f.id.into_owned(), f.label)).collect()
    }

    /// Field `id` of every node over the computed run, at every step (the cursor is put back).
    /// The run is walked forward once; a step reads only the node its event ran at (a
    /// delivery, a drop, a timer), other steps and interventions every node.
    pub fn series(&self, id: &str) -> Option<Series> {
        let (id, key) = self.watchable().into_iter().find(|(i, _)| i == id)?;
        let mut e = self.get_mut();
        let (cursor, head) = (e.cursor(), e.head());
        let ids = e.scenario().nodes.clone();
        let ivs: Vec<u64> = e.interventions().iter().map(|iv| iv.step).collect();
        let read =
            |e: &election_lab::Engine, node: NodeId| e.inspect(node).into_iter().find(|f| f.id == id).map(|f| f.value);
        e.seek(0);
        let mut nodes: Vec<(NodeId, Vec<Change>)> =
            ids.iter().map(|&id| (id, vec![(0, e.now(), read(&e, id))])).collect();
        while e.cursor() < head && e.step() {
            e.run(0); // the interventions made after this step, as the inspector shows them there
            let step = e.cursor();
            let one = match e.record(step).map(|r| (r.kind, r.node)) {
                Some((EventKind::Deliver | EventKind::Drop(_) | EventKind::Timer(_), n)) if !ivs.contains(&step) => {
                    ids.iter().position(|&x| x == n)
                }
                _ => None,
            };
            let which: Vec<usize> = match one {
                Some(i) => vec![i],
                None => (0..ids.len()).collect(),
            };
            for i in which {
                let v = read(&e, ids[i]);
                let changes = &mut nodes[i].1;
                if changes.last().is_none_or(|c| c.2 != v) {
                    changes.push((step, e.now(), v));
                }
            }
        }
        let end = e.now();
        e.seek(cursor);
        let mut levels: Vec<String> = Vec::new();
        let values = || nodes.iter().flat_map(|(_, v)| v.iter().filter_map(|c| c.2.as_ref()));
        if !values().all(|v| matches!(v, FieldValue::Num(_))) {
            for v in values() {
                let shown = v.show();
                if !levels.contains(&shown) {
                    levels.push(shown);
                }
            }
        }
        Some(Series { id, key, end, nodes, levels })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use election_lab::meta::Lang;
    use election_lab::{presets, Engine};

    fn raft() -> EngineRef {
        let p = presets::find("raft-cold").expect("Raft from a cold start");
        let mut e = Engine::new(p.scenario()).unwrap();
        e.seek(300);
        e.seek(40);
        EngineRef::new(e)
    }

    #[test]
    fn a_numeric_value_is_sampled_over_the_run_and_the_cursor_stays() {
        let e = raft();
        let keys = e.watchable();
        assert!(keys.iter().any(|(id, k)| id == "current_term" && k.get(Lang::En) == "current term"), "{keys:?}");
        let s = e.series("current_term").expect("a series");
        assert_eq!(e.get().cursor(), 40);
        assert!(s.levels.is_empty(), "terms are numbers");
        assert_eq!(s.nodes.len(), e.get().scenario().nodes.len());
        // Terms never go down at a node, and some node's term rises during the run.
        let nums =
            |v: &Vec<Change>| v.iter().filter_map(|c| c.2.as_ref()).map(|x| x.number().unwrap()).collect::<Vec<_>>();
        for (_, v) in &s.nodes {
            assert!(v.windows(2).all(|w| w[0].0 < w[1].0 && w[0].1 <= w[1].1), "steps and times rise: {v:?}");
            assert!(nums(v).windows(2).all(|w| w[0] <= w[1]), "{v:?}");
        }
        assert!(s.nodes.iter().any(|(_, v)| nums(v).first() < nums(v).last()));
        let (lo, hi) = s.range().unwrap();
        assert_eq!(s.height(&FieldValue::Num(hi as i64)), Some(1.0));
        assert_eq!(s.height(&FieldValue::Num(lo as i64)), Some(0.0));
    }

    /// At every step of the run (with a crash and a recovery made by hand in it), the value the
    /// watch shows for each node is the one the inspector shows there.
    #[test]
    fn the_value_at_every_step_is_the_inspectors() {
        let p = presets::find("raft-cold").expect("Raft from a cold start");
        let mut e = Engine::new(p.scenario()).unwrap();
        e.seek(120);
        let leader = e.leaders().first().copied().unwrap_or(1);
        e.apply(election_lab::Action::Crash(leader)).unwrap();
        e.seek(400);
        e.apply(election_lab::Action::Recover(leader)).unwrap();
        e.seek(853);
        let head = e.cursor();
        assert!(head > 400, "the run goes on after the recovery: {head}");
        assert_eq!(e.interventions().len(), 2);
        let e = EngineRef::new(e);
        for name in ["current_term", "role", "voted_for"] {
            let s = e.series(name).expect("Raft shows it");
            let mut run = e.get_mut();
            for step in 0..=head {
                run.seek(step);
                for (id, changes) in &s.nodes {
                    let shown = run.inspect(*id).into_iter().find(|f| f.id == name).map(|f| f.value);
                    assert_eq!(value_at(changes, step), shown.as_ref(), "N{id} {name} at step {step}");
                }
            }
        }
    }

    #[test]
    fn a_word_value_has_levels_and_an_unknown_key_none() {
        let e = raft();
        let s = e.series("role").expect("Raft's inspector shows the role");
        assert!(s.levels.len() >= 2, "{:?}", s.levels);
        assert_eq!(s.height(&FieldValue::Text(s.levels[0].clone())), Some(0.0));
        assert!(e.series("no such value").is_none());
    }
}
