//! How far a world reached in each log of the history. The logs run up to the head; a world
//! (the cursor's, or a checkpoint's) has produced a prefix of each, and these marks say how
//! long. Seeking restores a world with its marks; replaying after a seek moves the marks along
//! logs that already hold the entries ([`Marks::append`]); acting in the past cuts every log
//! at the cursor's marks ([`Sim::truncate_future`]) — one type for the lot, so that a log
//! cannot be cut out of step with the others.

use super::*;

/// The length of each log a world has produced.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(super) struct Marks {
    /// Messages sent (the next message's id).
    pub(super) msgs: u64,
    pub(super) timers: u64,
    pub(super) notes: u64,
    pub(super) violations: u64,
    pub(super) elections: u64,
    pub(super) writes: u64,
    pub(super) verdicts: u64,
    /// Interventions applied.
    pub(super) ivs: usize,
}

impl Marks {
    /// Appends the entry `entry` makes at `mark` of `log`, unless the log already holds it (a
    /// replay after a seek, or nothing kept), and moves the mark on.
    #[inline(always)]
    pub(super) fn append<T>(log: &mut Vec<T>, mark: &mut u64, entry: impl FnOnce() -> T) {
        if *mark as usize == log.len() {
            log.push(entry());
        }
        *mark += 1;
    }
}

impl Sim {
    /// Cuts every log, and the protocol's payloads, at the cursor's marks: the future after the
    /// cursor is discarded (an intervention made in the past forks).
    pub(super) fn truncate_future(&mut self) {
        let (steps, at) = (self.w.steps, self.w.at);
        self.h.cut(steps, &at);
        self.machine.truncate(at.msgs);
        self.watch.violations.truncate(at.violations as usize);
        self.watch.elections.truncate(at.elections as usize);
        if self.fault_at.is_some_and(|f| f > steps) {
            // The protocol's code failed in the future just discarded.
            self.fault_at = None;
            self.machine.clear_fault();
        }
    }
}
