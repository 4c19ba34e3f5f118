//! The exploration in slices: [`Checker::advance`] expands a number of states and says whether
//! it has finished, [`Checker::explored`] says how far it has come, [`Checker::finish`] reports;
//! [`Checker::run`] is the three at once. The page's worker advances in slices so that it can
//! post progress between them.

use super::*;

/// How far an exploration has come.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Explored {
    /// Unique states reached.
    pub states: u64,
    pub transitions: u64,
    /// The deepest state reached, in moves.
    pub depth: u32,
}

impl Checker {
    /// Runs the exploration to its end (or a bound) and reports.
    pub fn run(mut self) -> Report {
        while !self.advance(u64::MAX) {}
        self.finish()
    }

    /// Expands up to `states` more states (the first call first makes the initial one); whether
    /// the exploration has finished: nothing left to expand, a violation (or witness) found, a
    /// bound reached.
    pub fn advance(&mut self, states: u64) -> bool {
        if self.bounds.horizon.is_some() {
            return self.advance_timed(states);
        }
        if self.parents.is_empty() {
            self.start();
        }
        for _ in 0..states {
            if self.found.is_some() || self.limit || self.clock {
                return true;
            }
            let Some(w) = self.pop() else { return true };
            self.expand(&w);
        }
        self.found.is_some() || self.limit || self.clock
    }

    /// How far the exploration has come.
    pub fn explored(&self) -> Explored {
        Explored { states: self.seen.len() as u64, transitions: self.transitions, depth: self.depth }
    }

    /// The report of the exploration so far (of a finished one: what it proved).
    pub fn finish(mut self) -> Report {
        if self.bounds.horizon.is_some() {
            return self.finish_timed();
        }
        if self.eventually && !self.limit && !self.clock && !self.cut {
            self.lasso = self.unfair_lasso();
        }
        self.report()
    }

    /// The initial state: visited, and waiting to be expanded unless it is already the answer.
    fn start(&mut self) {
        let (w, bad) = self.initial();
        let fp = self.key(&w);
        self.seen.insert(fp, 0);
        self.parents.push((u32::MAX, 0));
        let mut root = Vec::new();
        self.encode(&w, &mut root);
        self.root = root;
        if self.eventually {
            self.edges.push(Vec::new());
            self.goal.push(bad.is_some());
            if bad.is_none() {
                self.push(&w);
            }
        } else if let Some(nodes) = bad {
            self.found = Some((0, nodes));
        } else {
            self.push(&w);
        }
    }
}
