//! Watch: one per-node value of the inspector (term, vote, role, round, ballot — whatever the
//! algorithm's inspector shows) sampled over the computed run, for the sparklines drawn under
//! the space-time diagram.

use super::EngineRef;
use crate::markers::first_step_at;
use election_lab::meta::{Lang, Text};
use election_lab::{NodeId, Time};

/// At most this many samples per node (the run is walked forward once to take them).
pub const SAMPLES: usize = 240;

/// One value of every node, sampled at `times` over the computed run.
#[derive(Clone, Debug, PartialEq)]
pub struct Series {
    /// The inspector's name of the value (its English text identifies it).
    pub key: Text,
    pub times: Vec<Time>,
    /// Per node: its value after every event up to each sample time (None: it has no such value).
    pub nodes: Vec<(NodeId, Vec<Option<String>>)>,
    /// Every value a non-numeric series takes, in order of first appearance (empty when every
    /// value is a number).
    pub levels: Vec<String>,
}

impl Series {
    /// A sample's height in [0, 1]: numbers scaled between the least and the greatest, other
    /// values by their level.
    pub fn height(&self, v: &str) -> Option<f64> {
        if self.levels.is_empty() {
            let (lo, hi) = self.range()?;
            let x: f64 = v.trim().parse().ok()?;
            return Some(if hi > lo { (x - lo) / (hi - lo) } else { 0.5 });
        }
        let i = self.levels.iter().position(|l| l == v)?;
        Some(if self.levels.len() > 1 { i as f64 / (self.levels.len() - 1) as f64 } else { 0.5 })
    }

    /// The least and greatest number taken, when every value is a number.
    pub fn range(&self) -> Option<(f64, f64)> {
        let all = self.nodes.iter().flat_map(|(_, v)| v.iter().flatten());
        let nums: Vec<f64> = all.filter_map(|v| v.trim().parse().ok()).collect();
        let lo = nums.iter().copied().fold(f64::INFINITY, f64::min);
        let hi = nums.iter().copied().fold(f64::NEG_INFINITY, f64::max);
        (!nums.is_empty()).then_some((lo, hi))
    }
}

impl EngineRef {
    /// The values the inspector shows for a node of this run (their names).
    pub fn watchable(&self) -> Vec<Text> {
        let e = self.get();
        let Some(&first) = e.scenario().nodes.first() else { return vec![] };
        e.inspect(first).into_iter().map(|(k, _)| k).collect()
    }

    /// Value `key` of every node over the computed run (the cursor is put back).
    pub fn series(&self, key: &str) -> Option<Series> {
        let key = self.watchable().into_iter().find(|k| k.get(Lang::En) == key)?;
        let mut e = self.cell.borrow_mut();
        let (cursor, head) = (e.cursor(), e.head());
        let end = e.record(head).map_or(0, |r| r.time);
        let n = (end as usize + 1).clamp(2, SAMPLES);
        let times: Vec<Time> = (0..n).map(|i| end * i as u64 / (n as u64 - 1)).collect();
        let ids = e.scenario().nodes.clone();
        let mut nodes: Vec<(NodeId, Vec<Option<String>>)> = ids.iter().map(|&id| (id, Vec::new())).collect();
        for &t in &times {
            // The state after every event at or before t (the times rise: the walk goes forward).
            let step = first_step_at(&e, t + 1) - 1;
            e.seek(step);
            for (id, values) in nodes.iter_mut() {
                values.push(e.inspect(*id).into_iter().find(|(k, _)| *k == key).map(|(_, v)| v));
            }
        }
        e.seek(cursor);
        let mut levels: Vec<String> = Vec::new();
        let numeric = nodes.iter().flat_map(|(_, v)| v.iter().flatten()).all(|v| v.trim().parse::<f64>().is_ok());
        if !numeric {
            for v in nodes.iter().flat_map(|(_, v)| v.iter().flatten()) {
                if !levels.contains(v) {
                    levels.push(v.clone());
                }
            }
        }
        Some(Series { key, times, nodes, levels })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
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
        let key = *keys.iter().find(|k| k.get(Lang::En).contains("term")).expect("Raft's inspector shows the term");
        let s = e.series(key.get(Lang::En)).expect("a series");
        assert_eq!(e.get().cursor(), 40);
        assert!(s.levels.is_empty(), "terms are numbers");
        assert_eq!(s.nodes.len(), e.get().scenario().nodes.len());
        assert!(s.times.windows(2).all(|w| w[0] <= w[1]));
        // Terms never go down at a node, and some node's term rises during the run.
        let nums = |v: &Vec<Option<String>>| v.iter().flatten().map(|x| x.parse::<u64>().unwrap()).collect::<Vec<_>>();
        for (_, v) in &s.nodes {
            assert!(nums(v).windows(2).all(|w| w[0] <= w[1]), "{v:?}");
        }
        assert!(s.nodes.iter().any(|(_, v)| nums(v).first() < nums(v).last()));
        // The last sample equals what the inspector shows at the head.
        let (id, v) = &s.nodes[0];
        let mut at_end = e.cell.borrow_mut();
        let head = at_end.head();
        at_end.seek(head);
        let shown = at_end.inspect(*id).into_iter().find(|(k, _)| k == &key).map(|x| x.1);
        assert_eq!(v.last().cloned().flatten(), shown);
        let (lo, hi) = s.range().unwrap();
        assert_eq!(s.height(&hi.to_string()), Some(1.0));
        assert_eq!(s.height(&lo.to_string()), Some(0.0));
    }

    #[test]
    fn a_word_value_has_levels_and_an_unknown_key_none() {
        let e = raft();
        let key =
            *e.watchable().iter().find(|k| k.get(Lang::En).contains("role")).expect("Raft's inspector shows the role");
        let s = e.series(key.get(Lang::En)).unwrap();
        assert!(s.levels.len() >= 2, "{:?}", s.levels);
        assert_eq!(s.height(&s.levels[0]), Some(0.0));
        assert!(e.series("no such value").is_none());
    }
}
