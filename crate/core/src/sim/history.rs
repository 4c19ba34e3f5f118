//! The history and seeking: the logs a run keeps up to its head (records, messages, timers,
//! notes, writes, interventions), the checkpoints seeking replays from, forks, and the budget
//! that bounds them.
//!
//! The logs are compact, so that a recorded step costs well under 100 bytes: a step's record is
//! 36 bytes ([`CRec`]: ids, kinds and reasons as small integers, the timer's name interned, where
//! its messages, timer changes and notes begin in their logs), a message 24 ([`CMsg`]), a note
//! 16 ([`CNote`]: its template interned and its arguments, rendered only when shown). The
//! readers ([`Sim::record`], [`Sim::message`], [`Sim::notes_of`]) rebuild the full values.

use super::*;
use crate::meta::{Text, MAX_ARGS};

const _: () = assert!(MAX_ARGS >= 3, "a logged note keeps three arguments inline");

/// One message ever sent, as read back. (Its payload is kept by the protocol's [`Machine`];
/// [`Sim::label`] reads it.)
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct MsgEntry {
    pub from: NodeId,
    pub to: NodeId,
    pub sent: Time,
    pub deliver: Time,
    /// The network will lose it (decided when it was sent).
    pub lost: bool,
    /// Index of its kind in the protocol's kinds.
    pub kind: usize,
}

/// A message as logged: 24 bytes. Immutable once logged.
#[derive(Clone, Copy, Debug)]
pub(super) struct CMsg {
    pub(super) deliver: Time,
    pub(super) from: NodeId,
    pub(super) to: NodeId,
    /// `deliver − sent`: at most [`crate::scenario::MAX_LATENCY`], which every reader checks
    /// (the scenario's `network.latency`, a recorded run's messages); a search's delay doubles it.
    latency: u32,
    kind: u16,
    pub(super) lost: bool,
}

impl CMsg {
    pub(super) fn new(from: NodeId, to: NodeId, sent: Time, deliver: Time, lost: bool, kind: usize) -> CMsg {
        let latency = u32::try_from(deliver - sent).expect("latency within the scenario's limit");
        CMsg { deliver, from, to, latency, kind: kind as u16, lost }
    }
    pub(super) fn entry(&self) -> MsgEntry {
        MsgEntry {
            from: self.from,
            to: self.to,
            sent: self.deliver - self.latency as Time,
            deliver: self.deliver,
            lost: self.lost,
            kind: self.kind as usize,
        }
    }
}

/// A step's record as logged: 36 bytes. [`Sim::record`] rebuilds the [`Rec`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) struct CRec {
    time: [u32; 2],
    node: NodeId,
    peer: NodeId,
    aux: u32,
    /// Where this step's messages, timer changes and notes begin in their logs (they end where
    /// the next step's begin, or where the interventions made after this step begin).
    msgs: u32,
    timers: u32,
    notes: u32,
    /// The event: 0 deliver, 1 drop, 2 timer, 3 fault, 4 write, 5 store.
    kind: u8,
    /// The drop's reason, the timer's name (interned) or the store's verdict.
    sub: u8,
}

/// A narration note as logged: 16 bytes, its template interned. A note with more than three
/// arguments, or one that does not fit 32 bits, is kept aside (`wide`), which few need.
#[derive(Clone, Copy, Debug)]
pub(super) struct CNote {
    text: u16,
    wide: bool,
    args: [u32; 3],
}

/// A timer being set (`at` = when it fires) or cancelled (`at` = None).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TimerRec {
    pub node: NodeId,
    pub name: &'static str,
    pub at: Option<Time>,
}

/// A timer change as logged: 16 bytes (`at` = `Time::MAX` for a cancellation).
#[derive(Clone, Copy, Debug)]
pub(super) struct CTimer {
    at: Time,
    node: NodeId,
    name: u8,
}

/// A world to seek from, with its node states.
pub(super) struct Checkpoint {
    pub(super) w: World,
    pub(super) states: Box<dyn Stash>,
}

/// Smallest number of steps between checkpoints.
const CHECKPOINT_MIN: u64 = 256;

/// How much history one run may keep: under 100 bytes a step. A run that would record more
/// stops there with [`Sim::halted`] saying why, instead of growing until the allocator aborts.
/// The default is [`Budget::NATIVE`] in a process and [`Budget::TAB`] in the browser (wasm32).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Budget {
    pub steps: u64,
    pub messages: u64,
}

impl Budget {
    /// A process (the command line, the tests): under half a gigabyte of history.
    pub const NATIVE: Budget = Budget { steps: 4_000_000, messages: 6_000_000 };
    /// A browser tab, which has far less memory to give than a process (and a wasm heap never
    /// shrinks): about 100 MB of history, a thousand times the longest preset. The page says
    /// so when a run stops there.
    pub const TAB: Budget = Budget { steps: 1_000_000, messages: 1_500_000 };
}

impl Default for Budget {
    fn default() -> Self {
        if cfg!(target_arch = "wasm32") {
            Budget::TAB
        } else {
            Budget::NATIVE
        }
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
    pub(super) msgs: VecDeque<CMsg>,
    pub(super) msg_base: u64,
    pub(super) recs: Vec<CRec>,
    pub(super) timer_log: Vec<CTimer>,
    pub(super) notes: Vec<CNote>,
    /// Note arguments too wide for a [`CNote`].
    wide: Vec<[u64; MAX_ARGS]>,
    /// Interned note templates and timer names.
    texts: Vec<Text>,
    last_text: usize,
    timer_names: Vec<&'static str>,
    pub(super) ivs: Vec<Intervention>,
    /// Per intervention: how long the message, timer and note logs were when it was applied
    /// (where the step before it ends).
    iv_marks: Vec<[u32; 3]>,
    /// Per write: the step that issued it.
    pub(super) write_steps: Vec<u64>,
    pub(super) checkpoints: Vec<Checkpoint>,
    /// The world a slice of work stopped at ([`Sim::seek_some`], [`Sim::advance_some`]).
    pub(super) work: Option<Checkpoint>,
    /// Smallest number of steps between checkpoints (0: [`CHECKPOINT_MIN`]).
    pub(super) spacing: u64,
    pub(super) writes: Vec<WriteEntry>,
    pub(super) verdicts: Vec<Verdict>,
    pub(super) budget: Budget,
}

impl History {
    fn spacing(&self) -> u64 {
        if self.spacing == 0 {
            CHECKPOINT_MIN
        } else {
            self.spacing
        }
    }
    /// Message `id`, if it is still kept.
    #[inline]
    pub(super) fn msg(&self, id: u64) -> Option<&CMsg> {
        self.msgs.get(id.checked_sub(self.msg_base)? as usize)
    }
    /// The number of messages logged (the next id).
    #[inline]
    pub(super) fn msgs_end(&self) -> u64 {
        self.msg_base + self.msgs.len() as u64
    }

    #[inline(always)]
    fn intern_text(&mut self, text: Text) -> u16 {
        if self.texts.get(self.last_text) == Some(&text) {
            return self.last_text as u16;
        }
        self.intern_text_slow(text)
    }

    #[inline(never)]
    fn intern_text_slow(&mut self, text: Text) -> u16 {
        let k = match self.texts.iter().position(|&t| t == text) {
            Some(k) => k,
            None => {
                self.texts.push(text);
                self.texts.len() - 1
            }
        };
        self.last_text = k;
        u16::try_from(k).expect("note templates are declared in code, far fewer than 65 536")
    }

    fn intern_timer(&mut self, name: &'static str) -> u8 {
        let k = match self.timer_names.iter().position(|&t| std::ptr::eq(t, name) || t == name) {
            Some(k) => k,
            None => {
                self.timer_names.push(name);
                self.timer_names.len() - 1
            }
        };
        u8::try_from(k).expect("a protocol's timer names are declared in code, far fewer than 256")
    }

    /// Logs a step compactly: its time, event, node, peer, aux, and where its messages, timer
    /// changes and notes begin in their logs.
    #[inline]
    pub(super) fn push_rec(
        &mut self,
        time: Time,
        kind: EventKind,
        node: NodeId,
        peer: NodeId,
        aux: u64,
        starts: [u64; 3],
    ) {
        let (kind, sub) = match kind {
            EventKind::Deliver => (0, 0),
            EventKind::Drop(r) => (1, r as u8),
            EventKind::Timer(name) => (2, self.intern_timer(name)),
            EventKind::Fault => (3, 0),
            EventKind::Write => (4, 0),
            EventKind::Store { accepted } => (5, accepted as u8),
        };
        self.recs.push(CRec {
            time: [time as u32, (time >> 32) as u32],
            node,
            peer,
            aux: u32::try_from(aux).expect("ids within the history budget"),
            msgs: starts[0] as u32,
            timers: starts[1] as u32,
            notes: starts[2] as u32,
            kind,
            sub,
        });
    }

    /// Step `step`'s record (1-based), rebuilt.
    pub(super) fn rec(&self, step: u64) -> Option<Rec> {
        let c = self.recs.get(step.checked_sub(1)? as usize)?;
        let kind = match (c.kind, c.sub) {
            (0, _) => EventKind::Deliver,
            (1, 0) => EventKind::Drop(DropReason::Lost),
            (1, 1) => EventKind::Drop(DropReason::Crashed),
            (1, 2) => EventKind::Drop(DropReason::Partition),
            (1, _) => EventKind::Drop(DropReason::Manual),
            (2, k) => EventKind::Timer(self.timer_names[k as usize]),
            (3, _) => EventKind::Fault,
            (4, _) => EventKind::Write,
            (_, v) => EventKind::Store { accepted: v != 0 },
        };
        // Where the step's entries end: where the interventions made after it begin, else
        // where the next step's begin, else (the head) at the end of the logs.
        let k = self.ivs.partition_point(|iv| iv.step < step);
        let end = if self.ivs.get(k).is_some_and(|iv| iv.step == step) {
            self.iv_marks[k].map(u64::from)
        } else if let Some(next) = self.recs.get(step as usize) {
            [next.msgs, next.timers, next.notes].map(u64::from)
        } else {
            [self.msgs_end(), self.timer_log.len() as u64, self.notes.len() as u64]
        };
        let w0 = self.write_steps.partition_point(|&s| s < step) as u64;
        let w1 = self.write_steps.partition_point(|&s| s <= step) as u64;
        Some(Rec {
            step,
            time: c.time[0] as u64 | (c.time[1] as u64) << 32,
            kind,
            node: c.node,
            peer: c.peer,
            aux: c.aux as u64,
            msgs: (c.msgs as u64, end[0]),
            timers: (c.timers as u64, end[1]),
            notes: (c.notes as u64, end[2]),
            writes: (w0, w1),
        })
    }

    /// Logs a note compactly.
    #[inline(always)]
    pub(super) fn push_note(&mut self, note: &Note) {
        let text = self.intern_text(note.text);
        let slots = note.slots();
        let narrow = slots[..3].iter().map(|&a| u32::try_from(a).ok());
        let mut args = [0u32; 3];
        let mut fits = slots[3..].iter().all(|&a| a == 0);
        for (slot, a) in args.iter_mut().zip(narrow) {
            match a {
                Some(a) => *slot = a,
                None => fits = false,
            }
        }
        let c = if fits {
            CNote { text, wide: false, args }
        } else {
            self.wide.push(*slots);
            CNote { text, wide: true, args: [self.wide.len() as u32 - 1, 0, 0] }
        };
        self.notes.push(c);
    }

    fn note(&self, c: &CNote) -> Note {
        let args = if c.wide {
            self.wide[c.args[0] as usize]
        } else {
            let mut a = [0u64; MAX_ARGS];
            for (slot, &v) in a.iter_mut().zip(&c.args) {
                *slot = u64::from(v);
            }
            a
        };
        Note::from_slots(self.texts[c.text as usize], args)
    }

    /// Cuts every log at a world's marks (`steps` records): what lies beyond is a discarded
    /// future. The checkpoints past it go too.
    pub(super) fn cut(&mut self, steps: u64, at: &Marks) {
        self.msgs.truncate(at.msgs.saturating_sub(self.msg_base) as usize);
        self.recs.truncate(steps as usize);
        self.timer_log.truncate(at.timers as usize);
        self.notes.truncate(at.notes as usize);
        self.writes.truncate(at.writes as usize);
        self.write_steps.truncate(at.writes as usize);
        self.verdicts.truncate(at.verdicts as usize);
        self.ivs.truncate(at.ivs);
        self.iv_marks.truncate(at.ivs);
        self.checkpoints.retain(|c| c.w.steps <= steps);
        if self.work.as_ref().is_some_and(|c| c.w.steps >= steps) {
            self.work = None;
        }
    }

    pub(super) fn push_timer(&mut self, rec: TimerRec) {
        let name = self.intern_timer(rec.name);
        self.timer_log.push(CTimer { at: rec.at.unwrap_or(Time::MAX), node: rec.node, name });
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
    /// At the head and out of history budget: the run stops here.
    #[inline]
    pub(super) fn over_budget(&self) -> bool {
        if self.h.lean {
            // No history: only what is in flight takes memory.
            return self.w.obs.in_flight >= self.h.budget.messages;
        }
        self.w.steps >= self.h.budget.steps || self.w.at.msgs >= self.h.budget.messages
    }

    /// The failure of the protocol's own code that stopped the run here, if it did: "the
    /// algorithm failed at step K: ..." (see [`crate::protocol::Protocol::fault`]).
    pub fn fault(&self) -> Option<String> {
        let at = self.fault_at.filter(|&at| self.w.steps >= at)?;
        self.machine.fault().map(|why| format!("the algorithm failed at step {at}: {why}"))
    }

    /// Why the run stopped before its scenario's limits, if it did.
    pub fn halted(&self) -> Option<String> {
        if let Some(why) = self.fault() {
            return Some(why);
        }
        if !self.over_budget() {
            return None;
        }
        let (steps, msgs) = (self.w.steps, self.w.at.msgs);
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

    /// Whether the history budget stopped the run at its head, wherever the cursor is (the page
    /// computes ahead of its cursor).
    pub fn head_at_budget(&self) -> bool {
        !self.h.lean && (self.h.recs.len() as u64 >= self.h.budget.steps || self.h.msgs_end() >= self.h.budget.messages)
    }

    /// The history budget in force.
    pub fn budget(&self) -> Budget {
        self.h.budget
    }

    /// Sets the history budget (tests use a small one). The logs number steps and messages
    /// with 32 bits: a budget above that is lowered to it.
    pub fn set_budget(&mut self, budget: Budget) {
        let max = u32::MAX as u64 - 1;
        self.h.budget = Budget { steps: budget.steps.min(max), messages: budget.messages.min(max) };
    }

    /// Records an intervention made at the cursor (after truncating the future), with where the
    /// step before it ends in the logs.
    pub(super) fn push_intervention(&mut self, iv: Intervention) {
        let w = &self.w;
        self.h.iv_marks.push([w.at.msgs as u32, w.at.timers as u32, w.at.notes as u32]);
        self.h.ivs.push(iv);
    }
    #[inline]
    /// Applies the interventions anchored at the current step, up to the first that is a step
    /// of its own ([`Action::is_step`]: it waits for the next step).
    pub(super) fn flush_interventions(&mut self) {
        if self.w.at.ivs < self.h.ivs.len() {
            self.flush_interventions_now(false);
        }
    }

    /// [`Sim::flush_interventions`]; with `step`, also the first intervention that is a step of
    /// its own (a forced delivery or timer), which ends the flush. Returns whether it made a step.
    pub(super) fn flush_interventions_now(&mut self, step: bool) -> bool {
        let at = self.w.steps;
        while self.w.at.ivs < self.h.ivs.len() && self.h.ivs[self.w.at.ivs].step == at {
            let Intervention { time, ref action, .. } = self.h.ivs[self.w.at.ivs];
            if action.is_step() && !step {
                return false;
            }
            let action = action.clone();
            self.w.at.ivs += 1;
            // An intervention anchored later than the last event moves the clock on to its time
            // (nothing was pending in between; `apply_at` checked that).
            if time > self.w.now {
                self.w.now = time;
                self.w.hash = mix(self.w.hash, time);
            }
            self.apply_action(&action);
            if self.w.steps != at {
                return true;
            }
        }
        false
    }

    pub(super) fn maybe_checkpoint(&mut self) {
        if self.h.lean {
            return;
        }
        let last = self.h.checkpoints.last().map_or(0, |c| c.w.steps);
        let size = self.w.obs.in_flight + self.w.active_timers + self.cfg.n() as u64;
        if self.w.steps >= last + self.h.spacing().max(size) {
            self.h.checkpoints.push(Checkpoint { w: self.w.clone(), states: self.machine.snapshot() });
        }
    }

    /// Moves the cursor to `target` steps (back or forward), replaying from a checkpoint.
    pub fn seek(&mut self, target: u64) {
        if self.h.lean {
            // Summary-only: no checkpoints; forward only.
            while self.w.steps < target && self.step() {}
        } else if target != self.w.steps {
            let forward_gap = target.saturating_sub(self.w.steps);
            if target < self.w.steps || forward_gap > self.h.spacing() {
                let k = self.h.checkpoints.partition_point(|c| c.w.steps <= target);
                let cp = &self.h.checkpoints[k.max(1) - 1];
                if target < self.w.steps || cp.w.steps > self.w.steps {
                    self.w = cp.w.clone();
                    self.machine.restore(&*cp.states);
                }
            }
            while self.w.steps < target && self.step() {}
        }
        self.flush_interventions();
    }

    /// The records of steps 1..=head, rebuilt.
    pub fn records(&self) -> impl Iterator<Item = Rec> + '_ {
        (1..=self.h.recs.len() as u64).filter_map(|s| self.h.rec(s))
    }
    /// The record of step `step` (1-based, up to the head).
    pub fn record(&self, step: u64) -> Option<Rec> {
        self.h.rec(step)
    }
    pub fn message(&self, id: u64) -> Option<MsgEntry> {
        self.h.msg(id).map(CMsg::entry)
    }
    /// Message `id`'s readable label, e.g. `ELECTION(12)`.
    pub fn label(&self, id: u64) -> String {
        self.machine.label(id)
    }
    /// The narration notes of step `rec`'s handlers.
    pub fn notes_of(&self, rec: &Rec) -> Vec<Note> {
        let notes = self.h.notes.get(rec.notes()).unwrap_or(&[]);
        notes.iter().map(|c| self.h.note(c)).collect()
    }
    /// The timer changes up to the head, in order.
    pub fn timer_log(&self) -> impl Iterator<Item = TimerRec> + '_ {
        self.h.timer_log.iter().map(|c| TimerRec {
            node: c.node,
            name: self.h.timer_names[c.name as usize],
            at: (c.at != Time::MAX).then_some(c.at),
        })
    }
    pub fn interventions(&self) -> &[Intervention] {
        &self.h.ivs
    }
    pub fn checkpoint_count(&self) -> usize {
        self.h.checkpoints.len()
    }
}
