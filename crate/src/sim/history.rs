//! The history and seeking: the logs a run keeps up to its head (records, messages, timers,
//! notes, writes, interventions), the checkpoints seeking replays from, forks, and the budget
//! that bounds them.

use super::*;

/// One message ever sent. Immutable once logged. (Its payload is kept by the protocol's
/// [`Machine`]; [`Sim::label`] reads it.)
#[derive(Clone, Copy, Debug)]
pub struct MsgEntry {
    pub from: NodeId,
    pub to: NodeId,
    pub sent: Time,
    pub deliver: Time,
    /// Number of steps applied when it was sent.
    pub sent_step: u64,
    /// The network will lose it (decided when it was sent).
    pub lost: bool,
    /// Index of its kind in the protocol's kinds.
    pub kind: usize,
}

/// A timer being set (`at` = when it fires) or cancelled (`at` = None).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TimerRec {
    pub node: NodeId,
    pub name: &'static str,
    pub at: Option<Time>,
}

/// Smallest number of steps between checkpoints.
const CHECKPOINT_MIN: u64 = 256;

/// How much history one run may keep: about 250 bytes a step, so the default budget stays near
/// a gigabyte, natively and in a browser tab. A run that would record more stops there with
/// [`Sim::halted`] saying why, instead of growing until the allocator aborts.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Budget {
    pub steps: u64,
    pub messages: u64,
}

impl Default for Budget {
    fn default() -> Self {
        Budget { steps: 4_000_000, messages: 6_000_000 }
    }
}

/// The logs up to the head and the checkpoints.
///
/// In **summary-only** mode (`lean`, [`Sim::summary_only`]) none of it is kept: no records,
/// timer log, notes or checkpoints, and the message log is a window holding only the messages
/// that may still be in flight (the payloads likewise, in the protocol's machine), so memory
/// follows the nodes and the messages in flight, not the length of the run. Such a run only
/// goes forward; what it found (violations, elections, counts, the trace hash) is the same.
#[derive(Default)]
pub(super) struct History {
    pub(super) lean: bool,
    /// Messages `msg_base..` (all of them, from 0, unless `lean`).
    pub(super) msgs: VecDeque<MsgEntry>,
    pub(super) msg_base: u64,
    pub(super) recs: Vec<Rec>,
    pub(super) timer_log: Vec<TimerRec>,
    pub(super) notes: Vec<Note>,
    pub(super) ivs: Vec<Intervention>,
    pub(super) checkpoints: Vec<World>,
    pub(super) writes: Vec<WriteEntry>,
    pub(super) verdicts: Vec<Verdict>,
    pub(super) budget: Budget,
}

impl History {
    /// Message `id`, if it is still kept.
    #[inline]
    pub(super) fn msg(&self, id: u64) -> Option<&MsgEntry> {
        self.msgs.get(id.checked_sub(self.msg_base)? as usize)
    }
    /// The number of messages logged (the next id).
    #[inline]
    pub(super) fn msgs_end(&self) -> u64 {
        self.msg_base + self.msgs.len() as u64
    }
}

impl Sim {
    /// Turns this fresh run (no step taken yet) into a summary-only run: no history kept,
    /// memory for the nodes and the messages in flight only. It cannot seek back.
    pub fn summary_only(&mut self) {
        debug_assert_eq!(self.w.steps, 0, "summary-only from the start");
        self.h.lean = true;
        self.h.checkpoints.clear();
    }
    /// How many messages' entries are kept (all, unless summary-only).
    pub fn kept_messages(&self) -> u64 {
        self.h.msgs.len() as u64
    }
    /// Whether the run keeps no history ([`Sim::summary_only`]).
    pub fn is_summary_only(&self) -> bool {
        self.h.lean
    }
    /// Summary-only: forgets the messages delivered before tick `t` (every event before the
    /// current tick has been applied, so they are no longer in flight).
    #[inline]
    pub(super) fn release_before(&mut self, t: Time) {
        let before = self.h.msg_base;
        while self.h.msgs.front().is_some_and(|m| m.deliver < t) {
            self.h.msgs.pop_front();
            self.h.msg_base += 1;
        }
        if self.h.msg_base != before {
            self.machine.release(self.h.msg_base);
        }
    }
    pub(super) fn log_timer(&mut self, rec: TimerRec) {
        if !self.h.lean && self.w.n_timers as usize == self.h.timer_log.len() {
            self.h.timer_log.push(rec);
        }
        self.w.n_timers += 1;
    }

    /// At the head and out of history budget: the run stops here.
    #[inline]
    pub(super) fn over_budget(&self) -> bool {
        if self.h.lean {
            // No history: only what is in flight takes memory.
            return self.w.obs.in_flight >= self.h.budget.messages;
        }
        self.w.steps >= self.h.budget.steps || self.w.n_msgs >= self.h.budget.messages
    }

    /// Why the run stopped before its scenario's limits, if it did.
    pub fn halted(&self) -> Option<String> {
        if !self.over_budget() {
            return None;
        }
        let (steps, msgs) = (self.w.steps, self.w.n_msgs);
        if self.h.lean {
            return Some(format!(
                "the message budget ran out: stopped after {steps} steps: {} messages in flight would outgrow memory (budget {}); lower stop.max_time or stop.max_steps",
                self.w.obs.in_flight, self.h.budget.messages
            ));
        }
        let which = if steps >= self.h.budget.steps { "step" } else { "message" };
        Some(format!(
            "the {which} budget ran out: stopped after {steps} steps and {msgs} messages: keeping more history would outgrow memory (budget {} steps / {} messages); lower stop.max_time or stop.max_steps",
            self.h.budget.steps, self.h.budget.messages
        ))
    }

    /// Sets the history budget (tests use a small one).
    pub fn set_budget(&mut self, budget: Budget) {
        self.h.budget = budget;
    }
    #[inline]
    pub(super) fn flush_interventions(&mut self) {
        if self.w.applied_ivs < self.h.ivs.len() {
            self.flush_interventions_now();
        }
    }

    pub(super) fn flush_interventions_now(&mut self) {
        while self.w.applied_ivs < self.h.ivs.len() && self.h.ivs[self.w.applied_ivs].step == self.w.steps {
            let Intervention { time, ref action, .. } = self.h.ivs[self.w.applied_ivs];
            let action = action.clone();
            self.w.applied_ivs += 1;
            // An intervention anchored later than the last event moves the clock on to its time
            // (nothing was pending in between; `apply_at` checked that).
            if time > self.w.now {
                self.w.now = time;
                self.w.hash = mix(self.w.hash, time);
            }
            self.apply_action(&action);
        }
    }

    pub(super) fn maybe_checkpoint(&mut self) {
        if self.h.lean {
            return;
        }
        let last = self.h.checkpoints.last().map_or(0, |c| c.steps);
        let size = self.w.obs.in_flight + self.w.active_timers + self.cfg.n() as u64;
        if self.w.steps >= last + CHECKPOINT_MIN.max(size) {
            self.h.checkpoints.push(self.w.clone());
        }
    }

    pub(super) fn truncate_future(&mut self) {
        let w = &self.w;
        self.h.msgs.truncate((w.n_msgs - self.h.msg_base) as usize);
        self.machine.truncate(w.n_msgs);
        self.h.recs.truncate(w.steps as usize);
        self.h.timer_log.truncate(w.n_timers as usize);
        self.h.notes.truncate(w.n_notes as usize);
        self.watch.violations.truncate(w.n_violations as usize);
        self.watch.elections.truncate(w.n_elections as usize);
        self.h.writes.truncate(w.n_writes as usize);
        self.h.verdicts.truncate(w.n_verdicts as usize);
        self.h.ivs.truncate(w.applied_ivs);
        let steps = w.steps;
        self.h.checkpoints.retain(|c| c.steps <= steps);
    }

    /// Moves the cursor to `target` steps (back or forward), replaying from a checkpoint.
    pub fn seek(&mut self, target: u64) {
        if self.h.lean {
            // Summary-only: no checkpoints; forward only.
            while self.w.steps < target && self.step() {}
        } else if target != self.w.steps {
            let forward_gap = target.saturating_sub(self.w.steps);
            if target < self.w.steps || forward_gap > CHECKPOINT_MIN {
                let k = self.h.checkpoints.partition_point(|c| c.steps <= target);
                let cp = &self.h.checkpoints[k.max(1) - 1];
                if target < self.w.steps || cp.steps > self.w.steps {
                    self.w = cp.clone();
                }
            }
            while self.w.steps < target && self.step() {}
        }
        self.flush_interventions();
    }

    /// Records of steps 1..=head.
    pub fn records(&self) -> &[Rec] {
        &self.h.recs
    }
    pub fn message(&self, id: u64) -> Option<&MsgEntry> {
        self.h.msg(id)
    }
    /// Message `id`'s readable label, e.g. `ELECTION(12)`.
    pub fn label(&self, id: u64) -> String {
        self.machine.label(id)
    }
    /// The narration notes of step `step`'s handlers.
    pub fn notes_of(&self, rec: &Rec) -> &[Note] {
        self.h.notes.get(rec.notes.0 as usize..rec.notes.1 as usize).unwrap_or(&[])
    }
    pub fn timer_log(&self) -> &[TimerRec] {
        &self.h.timer_log
    }
    pub fn interventions(&self) -> &[Intervention] {
        &self.h.ivs
    }
    pub fn checkpoint_count(&self) -> usize {
        self.h.checkpoints.len()
    }
}
