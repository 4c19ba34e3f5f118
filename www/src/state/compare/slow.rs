//! Lanes whose steps may each be slow (a script's) are computed in slices: building the lanes
//! (their faults put back by time, or a fork's two traces replayed) and moving the shared clock
//! ahead leave such a lane's work to a [`LaneJob`], which `State::compute` works on between
//! frames (`state/slices.rs`), the lane saying "Computing…" meanwhile. The other lanes stay
//! usable: the clock moves, faults are made (a lane still computing takes them in turn, at
//! their time), and once done the lane stands at the shared time as if computed at once.

use super::{Compare, Lane, Role};
use election_lab::engine::Replay;
use election_lab::{Action as Intervention, Engine, Intervention as Recorded, Time};
use std::cell::RefCell;
use std::rc::Rc;

/// What a slow lane still has to compute before it shows the shared time.
#[derive(Debug)]
pub struct LaneJob {
    /// The lane's run being rebuilt, which replaces the one shown once its replay is done
    /// (`None`: the work is on the lane's own run, which only has to reach the clock).
    fresh: RefCell<Option<Engine>>,
    replay: RefCell<Replay>,
    /// The faults of a run being rebuilt (the anchor's, as the page carries them meanwhile).
    faults: RefCell<Vec<(Time, Intervention)>>,
}

/// A run to rebuild in a lane: its role, the run built, its replay and its faults by time.
pub type LaterRun = (Role, Engine, Replay, Vec<(Time, Intervention)>);

/// Whether lane `alg`'s steps may be slow (a script runs it).
pub fn slow(lane: &Lane) -> bool {
    crate::state::script::is_script(lane.algorithm.id)
}

impl LaneJob {
    fn new(fresh: Option<Engine>, replay: Replay, faults: Vec<(Time, Intervention)>) -> Option<Rc<LaneJob>> {
        // Faults go on as `Compare::build` and `Compare::act` put them: after every event up to
        // their time.
        Some(Rc::new(LaneJob {
            fresh: RefCell::new(fresh),
            replay: RefCell::new(replay.each_after_its_tick()),
            faults: RefCell::new(faults),
        }))
    }
}

impl Lane {
    /// A slow lane of `scenario`, its faults (time, action) put back in slices: a fresh run is
    /// shown meanwhile.
    pub(super) fn later(
        algorithm: &'static election_lab::Algorithm,
        scenario: election_lab::Scenario,
        faults: &[(Time, Intervention)],
    ) -> Result<Lane, election_lab::ScenarioError> {
        let shown = Engine::new(scenario.clone())?;
        let fresh = Engine::new(scenario)?;
        let ivs: Vec<Recorded> =
            faults.iter().map(|(t, a)| Recorded { step: 0, time: *t, action: a.clone() }).collect();
        let mut lane = Lane::new(algorithm, shown);
        lane.job = LaneJob::new(Some(fresh), Replay::by_time(&ivs), faults.to_vec());
        Ok(lane)
    }

    /// The run this lane is rebuilding and the work left on it, taken out (the lanes close
    /// meanwhile: the one run goes on being rebuilt in slices, `State::rebuild_later`).
    pub(in crate::state) fn take_rebuild(&self) -> Option<(Engine, Replay)> {
        let job = self.job.as_ref()?;
        let engine = job.fresh.borrow_mut().take()?;
        Some((engine, job.replay.borrow().clone()))
    }

    /// Whether the lane is still computing (its run, or toward the shared time).
    pub fn computing(&self) -> bool {
        self.job.is_some()
    }
}

impl Compare {
    /// [`Compare::of_runs`] of two slow runs, each rebuilt in slices from a trace
    /// (`Engine::from_trace_later`: the run built, its replay, its faults by time): their
    /// scenario's fresh runs are shown meanwhile.
    pub fn of_runs_later(runs: [LaterRun; 2], anchor: usize, time: Time) -> Option<Compare> {
        let [(ra, a, ja, fa), (rb, b, jb, fb)] = runs;
        let shown = |e: &Engine| Engine::new(e.scenario().clone()).ok();
        let mut c = Compare::of_runs([(ra, shown(&a)?), (rb, shown(&b)?)], anchor, time)?;
        for (lane, (e, job, faults)) in c.lanes.iter_mut().zip([(a, ja, fa), (b, jb, fb)]) {
            lane.job = LaneJob::new(Some(e), job, faults);
        }
        Some(c)
    }

    /// Whether a lane has work left for the slices.
    pub fn computes(&self) -> bool {
        self.lanes.iter().any(Lane::computing)
    }

    /// The faults of the anchor lane while its run is being rebuilt.
    pub(super) fn faults_pending(&self) -> Option<Vec<(Time, Intervention)>> {
        let job = self.anchor().job.as_ref()?;
        job.fresh.borrow().is_some().then(|| job.faults.borrow().clone())
    }

    /// A slow lane to the shared time `t`: at once if that is a step or two (or back), else
    /// left to the slices.
    pub(super) fn place_slow(lane: &mut Lane, t: Time) {
        if lane.job.is_some() {
            // It goes to the clock (wherever the clock is then) once its work is done.
            return;
        }
        if !lane.engine.get_mut().seek_time_some(t, 2) {
            lane.job = LaneJob::new(None, Replay::by_time(&[]), vec![]);
        }
    }

    /// A fault for a lane still computing: it takes it in turn, at `time` however far its work
    /// got (going back to it if its run is already past it, the faults after it discarded, as
    /// a lane computed at once takes it). False if the lane has no work left (the fault is
    /// applied to its run as to any other lane's).
    pub(super) fn act_later(lane: &Lane, time: Time, action: &Intervention) -> bool {
        let Some(job) = &lane.job else { return false };
        job.replay.borrow_mut().and_at(time, action.clone());
        if job.fresh.borrow().is_some() {
            let mut faults = job.faults.borrow_mut();
            faults.retain(|(t, _)| *t <= time);
            faults.push((time, action.clone()));
        }
        true
    }

    /// At most `budget` steps of every computing lane's work; whether all of it is done.
    /// A lane's run that cannot be rebuilt (a fault it cannot take) is named in the error, the
    /// lane left as it is shown.
    pub fn compute_some(&mut self, budget: u64) -> Result<bool, String> {
        let time = self.time;
        let mut all = true;
        let mut failed = None;
        for lane in &mut self.lanes {
            let Some(job) = lane.job.clone() else { continue };
            let replayed = {
                let mut fresh = job.fresh.borrow_mut();
                let mut replay = job.replay.borrow_mut();
                match fresh.as_mut() {
                    Some(e) => e.replay_some(&mut replay, budget),
                    None => lane.engine.get_mut().replay_some(&mut replay, budget),
                }
            };
            match replayed {
                Ok(true) => {}
                Ok(false) => {
                    all = false;
                    continue;
                }
                Err(e) => {
                    failed = Some(format!("compare: {}: {e}", lane.algorithm.id));
                    lane.job = None;
                    continue;
                }
            }
            if let Some(e) = job.fresh.borrow_mut().take() {
                // Its run is ready: it replaces the one shown, then goes to the clock.
                let rest = LaneJob::new(None, Replay::by_time(&[]), vec![]);
                *lane = Lane { job: rest, ..Lane::new(lane.algorithm, e) };
            }
            if lane.engine.get_mut().seek_time_some(time, budget) {
                lane.job = None;
            } else {
                all = false;
            }
        }
        self.refresh();
        match failed {
            Some(e) => Err(e),
            None => Ok(all),
        }
    }
}

#[cfg(test)]
mod tests;
