//! Computing a run in slices without moving the cursor: a page that runs a slow algorithm (a
//! script whose handlers each take many operations) asks for a bounded number of steps at a
//! time, between frames, and stays responsive; the cursor moves only once the step it was sent
//! to is ready. The work in progress is kept in one world (the work slot) between slices, so a
//! slice goes on where the last one stopped; what it computes is what [`Sim::seek`] would have
//! computed (the same steps, from the same checkpoints), so traces and hashes do not change.

use super::history::Checkpoint;
use super::Sim;
use crate::Time;

impl Sim {
    fn here(&self) -> Checkpoint {
        Checkpoint { w: self.w.clone(), states: self.machine.snapshot() }
    }

    fn load(&mut self, cp: Checkpoint) {
        self.w = cp.w;
        self.machine.restore(&*cp.states);
    }

    /// Puts in place the furthest known world at or before step `target`: the cursor's (kept),
    /// the work slot's or a checkpoint's.
    fn start_toward(&mut self, target: u64) {
        let cursor = Some(self.w.steps).filter(|&s| s <= target);
        let work = self.h.work.as_ref().map(|c| c.w.steps).filter(|&s| s <= target);
        let k = self.h.checkpoints.partition_point(|c| c.w.steps <= target);
        let checkpoint = k.checked_sub(1).map(|i| self.h.checkpoints[i].w.steps);
        let best = cursor.max(work).max(checkpoint);
        if best.is_none() || best == cursor {
            return;
        }
        if best == work {
            let cp = self.h.work.take().expect("work slot");
            self.load(cp);
        } else {
            let cp = &self.h.checkpoints[k - 1];
            self.w = cp.w.clone();
            self.machine.restore(&*cp.states);
        }
    }

    /// Steps toward `target` at most `budget` times; whether the target was reached or the
    /// run can go no further.
    fn run_toward(&mut self, target: u64, budget: u64) -> bool {
        for _ in 0..budget {
            if self.w.steps >= target {
                return true;
            }
            if !self.step() {
                return true;
            }
        }
        self.w.steps >= target
    }

    /// [`Sim::seek`] in slices: works toward step `target` for at most `budget` steps. When
    /// it gets there (or the run ends before it) the cursor moves there and the answer is
    /// true; otherwise the cursor stays where it was, the work is kept for the next call, and
    /// the answer is false. A summary-only run seeks at once.
    pub fn seek_some(&mut self, target: u64, budget: u64) -> bool {
        if self.h.lean || target == self.w.steps {
            self.seek(target);
            return true;
        }
        let cursor = self.here();
        self.start_toward(target);
        if self.run_toward(target, budget) {
            self.flush_interventions();
            return true;
        }
        self.h.work = Some(self.here());
        self.load(cursor);
        false
    }

    /// Computes the run ahead of the cursor, without moving it, for at most `budget` steps:
    /// true once the history reaches step `target` or the run ends before it (then
    /// [`Sim::head`] says where). A summary-only run keeps no history: true at once.
    pub fn advance_some(&mut self, target: u64, budget: u64) -> bool {
        if self.h.lean || self.head() >= target {
            return true;
        }
        let cursor = self.here();
        let head = self.head();
        self.start_toward(head);
        let done = self.run_toward(target, budget);
        self.h.work = Some(self.here());
        self.load(cursor);
        done
    }

    /// [`Sim::run_until`] for at most `budget` steps, at the cursor (which moves): true once no
    /// event at or before tick `t` is left, or the run can go no further. Calls until true make
    /// the same steps as one `run_until(t)`: how a run's faults are replayed by time in slices.
    pub fn run_until_some(&mut self, t: Time, budget: u64) -> bool {
        for _ in 0..budget {
            if !self.step_within(t) {
                self.flush_interventions();
                return true;
            }
        }
        false
    }

    /// The step the last slice of work stopped at, if it is kept.
    pub fn work_step(&self) -> Option<u64> {
        self.h.work.as_ref().map(|c| c.w.steps)
    }

    /// The step at which the protocol's own code failed, wherever the cursor is.
    pub fn fault_step(&self) -> Option<u64> {
        self.fault_at
    }

    /// Takes a checkpoint at least every `steps` steps, or every world size (nodes, messages in
    /// flight and timers) if that is more, instead of every 256 steps: a slow algorithm's seek
    /// replays fewer steps, for the memory of more checkpoints.
    pub fn set_checkpoint_spacing(&mut self, steps: u64) {
        self.h.spacing = steps.max(1);
    }
}
