//! Putting a run's interventions back in place in slices: [`Replay`] is the work left (the
//! interventions not yet applied, then the step to stand at), and [`Engine::replay_some`] does at
//! most a given number of steps of it per call. A page that opens a slow algorithm's run (a
//! script whose handlers each take many operations) with faults late in it calls it between
//! frames and stays responsive. Calls until it is done apply the same interventions after the
//! same steps as [`Engine::replay_by_time`] or [`Engine::from_trace`] (which are this job done in
//! one call), so the run, its hash and its summary are the same.

use super::jsonl::Walk;
// A JSON Lines trace read in slices: only where scripts run (the player reads none).
#[cfg(feature = "script")]
use super::jsonl::{check_line, header_trace, Stop};
use super::Engine;
use crate::error::ScenarioError;
use crate::scenario::{Action, Scenario};
use crate::trace::{Intervention, Trace};
#[cfg(feature = "script")]
use serde_json::Value;

/// The interventions still to put on a run, each anchored by step (a trace's) or by virtual
/// time (faults carried over from another run), and the step to stand at once they are in.
#[derive(Clone, Debug)]
pub struct Replay {
    /// (index in the list it was read from, for error paths; step or time; action).
    ivs: Vec<(usize, Anchor, Action)>,
    next: usize,
    /// The next one's run up to its time has begun (it goes on even once the clock is there:
    /// more events may fall at that very tick).
    running: bool,
    then: Option<u64>,
    /// Each intervention by time after every event up to its time, even one at the time the
    /// run stands at (see [`Replay::each_after_its_tick`]).
    eager: bool,
    /// A JSON Lines trace's later lines, checked against the re-run once the header's run is in
    /// place (what [`Engine::from_jsonl`] does after [`Engine::from_trace`]).
    lines: Option<Box<Lines>>,
}

/// The checking of a JSON Lines trace's lines, in slices.
#[derive(Clone, Debug)]
#[cfg_attr(not(feature = "script"), allow(dead_code))]
struct Lines {
    /// The header's line number.
    header: usize,
    /// The lines after the header (blank ones left out), and the next to check.
    rest: Vec<(usize, String)>,
    next: usize,
    /// The step the header's run stands at (set when the walk begins) and the walk over it.
    walk: Option<(u64, Walk)>,
    walked: bool,
    /// Back at the header's step; then the step asked for instead of the header's (a link's).
    back: bool,
    after: Option<u64>,
}

#[derive(Clone, Copy, Debug)]
enum Anchor {
    /// At this step, at this time if given (a trace's entry).
    Step(u64, Option<crate::Time>),
    /// Once every event up to this time has run.
    Time(crate::Time),
    /// A fault made at this time while the work goes on: where a run computed at once would
    /// take it, at its last event at or before the time (going back if the run is past it, and
    /// what followed discarded, as acting at a past step does).
    Made(crate::Time),
}

impl Replay {
    /// Interventions recorded on another run, applied by virtual time (see
    /// [`Engine::replay_by_time`]; those that name the other run's messages or timers are left
    /// out).
    pub fn by_time(interventions: &[Intervention]) -> Replay {
        let ivs = interventions
            .iter()
            .enumerate()
            .filter(|(_, iv)| {
                !matches!(iv.action, Action::Drop(_) | Action::Defer(_) | Action::Deliver(_) | Action::Fire { .. })
            })
            .map(|(i, iv)| (i, Anchor::Time(iv.time), iv.action.clone()))
            .collect();
        Replay { ivs, next: 0, running: false, then: None, eager: false, lines: None }
    }

    /// Then stand at step `step` (or the run's last step before it); for a JSON Lines trace,
    /// once its lines are checked at the header's step.
    pub fn then_seek(mut self, step: Option<u64>) -> Replay {
        match &mut self.lines {
            Some(lines) => lines.after = step,
            None => self.then = step,
        }
        self
    }

    /// Then `action`, a fault made at virtual time `time` while this work goes on: once the
    /// interventions before it are in place, the run goes to its last event at or before
    /// `time` (back, if it is already past it) and takes the fault there, as
    /// [`Engine::seek_time`] then [`Engine::apply_at`] on the run computed at once do; the run
    /// then stands at it (the step asked for before no longer holds).
    pub fn and_at(&mut self, time: crate::Time, action: Action) {
        self.ivs.push((self.ivs.len(), Anchor::Made(time), action));
        self.then = None;
    }

    /// Puts each intervention by time after every event up to its time has run, even when the
    /// run already stands at that time (as compare lanes put a fault on: `run_until`, then
    /// `apply_at`), where [`Engine::replay_by_time`] applies it at once.
    pub fn each_after_its_tick(mut self) -> Replay {
        self.eager = true;
        self
    }

    /// Whether nothing is left to do.
    pub fn done(&self) -> bool {
        self.next >= self.ivs.len() && self.then.is_none() && self.lines.is_none()
    }
}

impl Engine {
    /// A trace's run, built but with none of its interventions applied yet: they, and the seek
    /// to the trace's step, are the [`Replay`] returned.
    pub fn from_trace_later(trace: Trace) -> Result<(Engine, Replay), ScenarioError> {
        Engine::from_trace_later_with(trace, Engine::new)
    }

    pub(super) fn from_trace_later_with(
        trace: Trace,
        build: impl FnOnce(Scenario) -> Result<Engine, ScenarioError>,
    ) -> Result<(Engine, Replay), ScenarioError> {
        let prefix = if trace.bare { "" } else { "scenario" };
        let mut engine = build(trace.scenario).map_err(|e| e.within(prefix))?;
        engine.until = trace.until;
        let ivs = trace
            .interventions
            .into_iter()
            .enumerate()
            .map(|(i, iv)| (i, Anchor::Step(iv.step, iv.time), iv.action))
            .collect::<Vec<_>>();
        // No step asked for: where the last intervention leaves the cursor.
        let last = ivs.last().map_or(0, |(_, a, _)| match a {
            Anchor::Step(s, _) => *s,
            Anchor::Time(_) | Anchor::Made(_) => 0,
        });
        Ok((
            engine,
            Replay { ivs, next: 0, running: false, then: Some(trace.step.unwrap_or(last)), eager: false, lines: None },
        ))
    }

    /// [`Engine::from_jsonl`] left to [`Engine::replay_some`]: the header's run, built, and the
    /// rest (its interventions, then every later line checked against the re-run) as the
    /// [`Replay`] returned. The same run and the same errors as reading it at once.
    #[cfg(feature = "script")]
    pub fn from_jsonl_later(text: &str) -> Result<(Engine, Replay), ScenarioError> {
        let mut lines = text.lines().enumerate().map(|(i, l)| (i + 1, l)).filter(|(_, l)| !l.trim().is_empty());
        let Some((h, header)) = lines.next() else {
            return Err(ScenarioError::new("", "empty trace"));
        };
        let trace = header_trace(h, header)?;
        let (engine, mut replay) =
            Engine::from_trace_later(trace).map_err(|e| ScenarioError::new(format!("line {h}"), e.to_string()))?;
        let rest = lines.map(|(n, l)| (n, l.to_string())).collect();
        replay.lines =
            Some(Box::new(Lines { header: h, rest, next: 0, walk: None, walked: false, back: false, after: None }));
        Ok((engine, replay))
    }

    /// [`Engine::run_until`] for at most `budget` steps: whether every event up to `t` has run.
    pub fn run_until_some(&mut self, t: crate::Time, budget: u64) -> bool {
        self.sim.run_until_some(t, budget)
    }

    /// The first step computed whose event is at or after virtual time `t` (the head + 1 if
    /// there is none).
    pub fn first_step_at(&self, t: crate::Time) -> u64 {
        let (mut lo, mut hi) = (1u64, self.head() + 1);
        while lo < hi {
            let mid = lo + (hi - lo) / 2;
            match self.record(mid) {
                Some(r) if r.time < t => lo = mid + 1,
                _ => hi = mid,
            }
        }
        lo
    }

    /// The cursor to the last event at or before virtual time `t`: back within the run
    /// computed, or on up to `t` (what a compare lane does at the shared clock).
    pub fn seek_time(&mut self, t: crate::Time) {
        self.seek_time_some(t, u64::MAX);
    }

    /// [`Engine::seek_time`] for at most `budget` steps forward (back, or within what is
    /// computed, is at once: bounded by a checkpoint); whether it got there.
    pub fn seek_time_some(&mut self, t: crate::Time, budget: u64) -> bool {
        let head = self.head();
        if self.record(head).is_some_and(|r| r.time > t) {
            self.seek(self.first_step_at(t + 1) - 1);
            return true;
        }
        if self.cursor() < head {
            self.seek(head);
        }
        self.run_until_some(t, budget)
    }

    /// Does at most `budget` steps of `replay`'s work: `Ok(true)` once every intervention is in
    /// place and the cursor stands where asked; an intervention that cannot be applied is an
    /// error naming it, as [`Engine::from_trace`] and [`Engine::replay_by_time`] say it.
    pub fn replay_some(&mut self, replay: &mut Replay, budget: u64) -> Result<bool, ScenarioError> {
        let mut left = budget;
        match self.replay_interventions(replay, &mut left) {
            Ok(true) => {}
            Ok(false) => return Ok(false),
            // A JSON Lines trace's header holds them: its line is named, as reading it at once does.
            Err(e) => match &replay.lines {
                Some(lines) => return Err(ScenarioError::new(format!("line {}", lines.header), e.to_string())),
                None => return Err(e),
            },
        }
        #[cfg(feature = "script")]
        if let Some(lines) = replay.lines.as_deref_mut() {
            if !self.check_lines(lines, &mut left)? {
                return Ok(false);
            }
            replay.lines = None;
        }
        Ok(true)
    }

    /// The interventions and the seek of [`Engine::replay_some`].
    fn replay_interventions(&mut self, replay: &mut Replay, left: &mut u64) -> Result<bool, ScenarioError> {
        while replay.next < replay.ivs.len() {
            let (i, anchor, ref action) = replay.ivs[replay.next];
            let path = format!("interventions[{i}]");
            match anchor {
                Anchor::Time(time) => {
                    replay.running |= replay.eager || time > self.now();
                    if replay.running && !self.spend(left, |e, n| e.sim.run_until_some(time, n)) {
                        return Ok(false);
                    }
                    replay.running = false;
                    // This run may be past the time already (its events fell differently):
                    // then the intervention lands at its current time.
                    let at = time.max(self.now());
                    self.sim.apply_at(action.clone(), Some(at)).map_err(|e| ScenarioError::new(path, e.to_string()))?;
                }
                Anchor::Made(time) => {
                    if !self.spend(left, |e, n| e.seek_time_some(time, n)) {
                        return Ok(false);
                    }
                    self.sim
                        .apply_at(action.clone(), Some(time))
                        .map_err(|e| ScenarioError::new(path, e.to_string()))?;
                }
                Anchor::Step(step, time) => {
                    if !self.seek_within(step, left) {
                        return Ok(false);
                    }
                    if self.cursor() != step {
                        return Err(ScenarioError::new(
                            format!("{path}.step"),
                            format!("the run ends at step {}, before step {step}", self.cursor()),
                        ));
                    }
                    self.sim.apply_at(action.clone(), time).map_err(|e| ScenarioError::new(path, e.to_string()))?;
                }
            }
            replay.next += 1;
        }
        if let Some(step) = replay.then {
            if !self.seek_within(step, left) {
                return Ok(false);
            }
            replay.then = None;
        }
        Ok(true)
    }

    /// A JSON Lines trace's lines checked against the re-run, at most `*left` steps of it; then
    /// the cursor back at the header's step (or the one asked for); whether it is all done.
    #[cfg(feature = "script")]
    fn check_lines(&mut self, lines: &mut Lines, left: &mut u64) -> Result<bool, ScenarioError> {
        let Lines { rest, next, walk, walked, back, after, .. } = lines;
        if !*walked {
            let (_, walk) = walk.get_or_insert_with(|| {
                let end = self.cursor();
                (end, Walk::new(self, end))
            });
            let mut check = |rerun: Value| check_line(rest.get(*next).cloned().inspect(|_| *next += 1), &rerun);
            match walk.some(self, left, &mut check) {
                Ok(false) => return Ok(false),
                Ok(true) | Err(Stop::Enough) => *walked = true,
                Err(Stop::Err(e)) => return Err(e),
            }
        }
        let end = walk.as_ref().map_or(0, |w| w.0);
        if !*back {
            if !self.seek_within(end, left) {
                return Ok(false);
            }
            *back = true;
            if let Some((n, _)) = rest.get(*next) {
                return Err(ScenarioError::new(
                    format!("line {n}"),
                    format!("the re-run has no such line: it ends at step {} with its summary", self.cursor()),
                ));
            }
        }
        Ok(after.is_none_or(|step| self.seek_within(step, left)))
    }

    /// [`Engine::seek`] to `step` for at most `*left` steps forward (a step behind the cursor
    /// is sought at once: it replays from a checkpoint, a bounded number of steps); whether it
    /// got there or the run went no further.
    fn seek_within(&mut self, step: u64, left: &mut u64) -> bool {
        if step <= self.cursor() || self.cursor() < self.head() {
            // Behind the cursor, or a history already computed: what `seek` does.
            if step > self.cursor() && step - self.cursor() > *left {
                return self.spend(left, |e, n| e.seek_some(step, n));
            }
            self.seek(step);
            return true;
        }
        self.spend(left, |e, n| {
            let mut done = 0;
            while done < n && e.cursor() < step && e.step() {
                done += 1;
            }
            if done < n {
                // There, or no step left: `seek` ends by applying what is anchored here.
                let c = e.cursor();
                e.seek(c);
            }
            done < n
        })
    }

    /// Runs `work` with the steps left, then counts those it made (the cursor's moves) off.
    fn spend(&mut self, left: &mut u64, work: impl FnOnce(&mut Engine, u64) -> bool) -> bool {
        let before = self.cursor();
        let done = work(self, *left);
        *left = left.saturating_sub(self.cursor().saturating_sub(before).max(1));
        done
    }
}
