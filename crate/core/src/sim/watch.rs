//! The observers' side of a run: what they found (violations of the claimed properties,
//! elections), logged up to the head like the rest of the history.

use super::*;

/// Violations and elections up to the head.
#[derive(Default)]
pub(super) struct Watch {
    pub(super) violations: Vec<Violation>,
    pub(super) elections: Vec<Election>,
    pub(super) findings: Findings,
}

impl Sim {
    /// Re-reads node `i`'s view and logs what the observers found.
    #[inline(always)]
    pub(super) fn observe(&mut self, i: usize) {
        let up = self.w.up[i];
        let unchanged = match &self.w.obs.views[i] {
            Some(old) => up && self.machine.view_is(i, old, self.w.obs.is_plain(i)),
            None => !up,
        };
        if unchanged && self.watch.findings.violations.is_empty() {
            // Most steps: the handler changed nothing the observers read, and reported nothing.
            return;
        }
        self.observe_change(i, up);
    }

    /// [`Sim::observe`] when node `i`'s view changed or a handler reported a violation.
    #[inline(never)]
    fn observe_change(&mut self, i: usize, up: bool) {
        let view = if up { Some(self.machine.view(i)) } else { None };
        if self.fencing.is_some() {
            let was = self.w.obs.views[i].as_ref().is_some_and(|v| v.is_leader());
            if let Some(v) = &view {
                if v.is_leader() && !was && v.term.is_none() {
                    // A new leader without a term of its own asks the store's sequencer.
                    self.w.store.sequencer += 1;
                    self.w.tokens[i] = self.w.store.sequencer;
                    self.w.hash = mix(self.w.hash, self.w.store.sequencer);
                }
            }
        }
        let findings = &mut self.watch.findings;
        self.w.obs.update(i, view, self.w.now, self.w.steps, findings);
        for v in findings.violations.drain(..) {
            Marks::append(&mut self.watch.violations, &mut self.w.at.violations, || v);
        }
        if let Some(e) = findings.election.take() {
            Marks::append(&mut self.watch.elections, &mut self.w.at.elections, || e);
        }
    }
    /// Violations seen up to the cursor.
    pub fn violations(&self) -> &[Violation] {
        &self.watch.violations[..self.w.at.violations as usize]
    }
    /// Violations seen up to the head.
    pub fn all_violations(&self) -> &[Violation] {
        &self.watch.violations
    }
    pub fn elections(&self) -> &[Election] {
        &self.watch.elections[..self.w.at.elections as usize]
    }
    /// Elections up to the head.
    pub fn all_elections(&self) -> &[Election] {
        &self.watch.elections
    }
    pub fn observers(&self) -> &Observers {
        &self.w.obs
    }
}
