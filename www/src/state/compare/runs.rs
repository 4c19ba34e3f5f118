//! Two runs of one world in compare lanes, on one clock: a **fork** (the future the run had
//! before you acted at a past step, and the future your action made) or an **imported trace**
//! beside the run you had. Their first divergence comes from the engine's [`diff`] (the same
//! walk `election-lab diff A B` prints), over the stretch both lanes have computed.

use super::{Compare, Lane};
use election_lab::diff::{self, Cause};
use election_lab::{Engine, Time};
use std::rc::Rc;

/// What a lane of two runs shows.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Role {
    /// The run as it was before the action at a past step.
    OldFuture,
    /// The run with that action.
    NewFuture,
    /// The run shown when a trace was imported.
    Current,
    Imported,
}

/// The first step where the two lanes differ.
#[derive(Clone, Debug, PartialEq)]
pub struct Diverged {
    pub time: Time,
    /// Per lane: the differing step (a run that had ended: its last step + 1).
    pub steps: [u64; 2],
    pub cause: Cause,
}

/// The two runs' roles, the lane that is "the run" (its faults, its link, what Close keeps)
/// and their first divergence.
#[derive(Clone, Debug, PartialEq)]
pub struct Runs {
    pub roles: [Role; 2],
    pub anchor: usize,
    /// None: no difference up to `horizon`.
    pub first: Option<Diverged>,
    /// The last tick both lanes had computed when they were compared.
    pub horizon: Time,
    /// (heads, interventions) when compared: compared again only when these change.
    pub(super) key: (u64, usize),
}

/// The last tick whose every event both lanes have computed.
fn horizon(lanes: &[Lane]) -> Time {
    let end = |l: &Lane| {
        let e = l.engine.get();
        e.record(e.head()).map_or(0, |r| r.time)
    };
    lanes.iter().map(end).min().unwrap_or(0).saturating_sub(1)
}

/// The first divergence of two lanes up to tick `h` (each lane's cursor is put back).
pub fn divergence(a: &Lane, b: &Lane, h: Time) -> Option<Diverged> {
    let mut ea = a.engine.get_mut();
    let mut eb = b.engine.get_mut();
    let (ca, cb) = (ea.cursor(), eb.cursor());
    ea.seek_time(h);
    eb.seek_time(h);
    let d = diff::diff(&ea, &eb);
    ea.seek(ca);
    eb.seek(cb);
    d.first.map(|f| Diverged { time: f.time, steps: [f.step_a, f.step_b], cause: f.cause })
}

impl Compare {
    /// Two runs of one world (the same nodes in the same places) in two lanes, the clock at
    /// `time`; `anchor` is the lane that stays when the lanes close.
    /// None: their nodes differ, or are drawn in other places.
    pub fn of_runs(runs: [(Role, Engine); 2], anchor: usize, time: Time) -> Option<Compare> {
        let [(ra, a), (rb, b)] = runs;
        let (pa, pb) = (super::positions(a.scenario(), &a.frame()), super::positions(b.scenario(), &b.frame()));
        if a.scenario().nodes != b.scenario().nodes || pa != pb {
            return None;
        }
        let scenario = Rc::new(if anchor == 0 { a.scenario() } else { b.scenario() }.clone());
        let lanes = vec![Lane::new(a.algorithm(), a), Lane::new(b.algorithm(), b)];
        let mut c = Compare::empty(lanes, scenario, pa);
        c.runs = Some(Rc::new(Runs { roles: [ra, rb], anchor, first: None, horizon: 0, key: (u64::MAX, 0) }));
        c.go_to(time);
        Some(c)
    }

    /// Compares the two runs again when what they have computed, or their faults, changed and
    /// no divergence was found yet (or the faults changed).
    pub(super) fn compare_runs(&mut self) {
        let Some(runs) = self.runs.clone() else { return };
        let heads = self.lanes.iter().map(|l| l.engine.get().head()).sum();
        let faults = self.lanes.iter().map(|l| l.engine.get().interventions().len()).sum();
        if runs.key == (heads, faults) || (runs.first.is_some() && runs.key.1 == faults) {
            return;
        }
        let h = horizon(&self.lanes);
        let first = divergence(&self.lanes[0], &self.lanes[1], h);
        self.runs = Some(Rc::new(Runs { first, horizon: h, key: (heads, faults), ..*runs }));
    }
}
