//! The engine operations the reducer is made of: stepping, seeking, acting, replacing the run.

use super::{positions, Action, EngineRef, PlaybackAction, SelectionAction, State, LOOKAHEAD};
use crate::geometry::{self, Line, Pt};
use crate::i18n::tr;
use election_lab::meta::k;
use election_lab::trace::{Entry, Trace};
use election_lab::{Action as Intervention, Engine};
use std::rc::Rc;

impl State {
    /// Computes the run ahead of the cursor (for the scrubber), then returns to the cursor.
    pub(super) fn extend(&mut self) {
        if self.sliced() {
            return self.extend_later();
        }
        let mut e = self.engine_mut();
        let c = e.cursor();
        if e.head() < c + LOOKAHEAD {
            e.seek(c + LOOKAHEAD);
            e.seek(c);
        }
    }

    pub(super) fn step_forward(&mut self) -> bool {
        // A step asked for replaces a seek on its way (a scripted run's: `slices.rs`).
        self.sl.goal = None;
        let (moved, short) = {
            let mut e = self.engine_mut();
            let moved = e.step();
            (moved, e.head() < e.cursor() + LOOKAHEAD / 2)
        };
        if short {
            self.extend();
        }
        moved
    }

    /// The quiet stretch ahead while playing one run: `(now, next event)` when no message is in
    /// flight (nothing moves on the canvas until the next event), for the playback schedule
    /// ([`crate::anim::advance`]) to cross quickly. `None` in compare mode, at the end of the
    /// run, or while messages travel.
    pub fn quiet_stretch(&self) -> Option<(f64, f64)> {
        if self.lanes().is_some() || !self.frame.messages.is_empty() {
            return None;
        }
        if self.frame.store.as_ref().is_some_and(|st| !st.writes.is_empty()) {
            return None;
        }
        let mut e = self.engine_mut();
        let next = e.next_event_time().filter(|&n| n <= e.stop_time())?;
        let now = self.frame.time;
        (next > now).then_some((now as f64, next as f64))
    }

    /// Forward by one step, or in the round model by one round: to the end of the round the
    /// next event belongs to (Lynch's synchronous rounds are the unit a student steps through).
    pub(super) fn step_unit(&mut self) -> bool {
        let round = if self.scenario.network.rounds { self.engine_mut().next_event_time() } else { None };
        let Some(round) = round else { return self.step_forward() };
        let mut moved = false;
        while self.engine_mut().next_event_time() == Some(round) && self.step_forward() {
            moved = true;
        }
        moved
    }

    /// Back by one step, or in the round model to the end of the round before the cursor's.
    pub(super) fn back_unit(&mut self) {
        let c = self.cursor();
        let target = if self.scenario.network.rounds {
            let e = self.engine.get();
            let now = e.record(c).map_or(0, |r| r.time);
            let mut s = c;
            while s > 0 && e.record(s).is_some_and(|r| r.time >= now) {
                s -= 1;
            }
            s
        } else {
            c.saturating_sub(1)
        };
        self.seek(target, false);
    }

    /// Moves the cursor (pausing); `extend`: keep the run computed ahead of it.
    pub(super) fn seek(&mut self, step: u64, extend: bool) {
        self.playback.playing = false;
        if self.sliced() && step != self.engine.get().cursor() {
            return self.seek_later(step);
        }
        let short = {
            let mut e = self.engine_mut();
            e.seek(step);
            e.head() < step + LOOKAHEAD / 2
        };
        if extend && short {
            self.extend();
        }
    }

    pub(super) fn at_end(&self) -> bool {
        if let Some(c) = self.lanes() {
            return c.next_tick().is_none();
        }
        let mut e = self.engine_mut();
        match e.next_event_time() {
            None => true,
            Some(t) => t > e.stop_time(),
        }
    }

    pub(super) fn act(&mut self, action: Intervention) {
        let kept = self.future_kept();
        self.sl.goal = None;
        let result = self.engine_mut().apply(action);
        match result {
            Ok(()) => {
                // The future discarded is kept, to fork; the new one has not been shown yet.
                self.offer = kept.map(Rc::new);
                self.playback.furthest = self.engine.get().cursor();
                self.ivs_rev += 1;
                self.redo = Rc::new(Vec::new());
                self.extend();
            }
            Err(e) => self.messages.alert = Some(e.to_string()),
        }
    }

    pub(super) fn set_lines(&mut self, lines: Vec<Line>) {
        // Node positions depend only on the scenario order, not on the run.
        let nodes: Vec<(u32, Pt)> = self.scenario.nodes.iter().copied().zip(self.positions.iter().copied()).collect();
        let action = match (lines.is_empty(), geometry::groups(&lines, &nodes)) {
            (true, _) => Intervention::Heal,
            (false, Some(groups)) => Intervention::Partition { groups, lines },
            // Lines that separate nobody still show, as a partition with one group.
            (false, None) => Intervention::Partition { groups: vec![nodes.iter().map(|n| n.0).collect()], lines },
        };
        self.act(action);
    }

    pub(super) fn replace_engine(&mut self, engine: Engine, preset: Option<&'static str>) {
        if engine.scenario() != &*self.scenario {
            // A recording's conformance verdict is about the run it was computed on.
            self.conformance = None;
            self.scenario = Rc::new(engine.scenario().clone());
            self.positions = Rc::new(positions(&self.scenario, &engine.frame()));
        }
        self.engine = EngineRef::at(engine, self.engine.rev);
        self.gen += 1;
        self.ivs_rev += 1;
        self.preset = preset;
        self.selection.reduce(SelectionAction::NewRun);
        self.playback.reduce(PlaybackAction::NewRun);
        self.offer = None;
        self.sl.goal = None;
        self.extend();
    }

    pub(super) fn load(
        &mut self,
        result: Result<Engine, String>,
        preset: Option<&'static str>,
        on_error: impl FnOnce(String) -> String,
    ) -> bool {
        // A run larger than the page can draw is refused, whatever brought it.
        let lang = self.lang;
        match result.and_then(|e| super::limits::admit(e, lang)) {
            Ok(e) => {
                self.replace_engine(e, preset);
                self.fresh_slices();
                self.redo = Rc::new(Vec::new());
                true
            }
            Err(e) => {
                self.messages.alert = Some(on_error(e));
                // A stale "Imported." must not stand beside the failure.
                self.messages.notice = None;
                false
            }
        }
    }

    /// Applies every event up to virtual time `t`; returns whether anything changed.
    pub(super) fn play_to(&mut self, t: f64) -> bool {
        if !self.playback.playing {
            return false;
        }
        let mut changed = false;
        // A scripted run's steps may be slow: a frame makes what fits in a slice.
        let sliced = self.sliced();
        let start = if sliced { super::slices::now_ms() } else { 0.0 };
        loop {
            if sliced && changed && super::slices::now_ms() - start >= super::slices::SLICE_MS {
                break;
            }
            let next = {
                let mut e = self.engine_mut();
                e.next_event_time().map(|n| (n, n <= e.stop_time()))
            };
            match next {
                Some((n, true)) if n as f64 <= t => {
                    if !self.step_forward() {
                        break;
                    }
                    changed = true;
                    if self.check_watch() {
                        break;
                    }
                }
                Some((_, true)) => break,
                _ => {
                    self.playback.playing = false;
                    // During a lesson its panel says what happens next.
                    if self.lesson.is_none() {
                        self.messages.notice = Some(tr(self.lang, k::UI_RUN_ENDED).into());
                    }
                    changed = true;
                    break;
                }
            }
        }
        changed
    }

    /// Takes back the last intervention: the run is rebuilt without it, at the step it was made.
    pub(super) fn undo(&mut self) -> bool {
        let Some(last) = self.interventions.last().cloned() else {
            self.messages.notice = Some(tr(self.lang, k::UI_NOTHING_TO_UNDO).into());
            return false;
        };
        let keep = self.interventions.len() - 1;
        let entries = self.interventions[..keep]
            .iter()
            .map(|iv| Entry { step: iv.step, time: Some(iv.time), action: iv.action.clone() })
            .collect();
        let trace = Trace {
            scenario: (*self.scenario).clone(),
            interventions: entries,
            step: Some(last.step),
            bare: false,
            until: self.engine.get().until().to_vec(),
        };
        match Engine::from_trace(trace) {
            Ok(engine) => {
                let (preset, selected, redo) = (self.preset, self.selection.selected, self.redo.clone());
                self.replace_engine(engine, preset);
                self.selection.selected = selected;
                let mut redo = (*redo).clone();
                redo.push(last);
                self.redo = Rc::new(redo);
                true
            }
            Err(e) => {
                self.messages.alert = Some(e.to_string());
                false
            }
        }
    }

    /// Puts back the intervention Undo took last, at its step and time.
    pub(super) fn redo(&mut self) -> bool {
        let Some(iv) = self.redo.last().cloned() else {
            self.messages.notice = Some(tr(self.lang, k::UI_NOTHING_TO_REDO).into());
            return false;
        };
        let result = {
            let mut e = self.engine_mut();
            e.seek(iv.step);
            e.apply_at(iv.action.clone(), iv.time)
        };
        match result {
            Ok(()) => {
                let mut redo = (*self.redo).clone();
                redo.pop();
                self.redo = Rc::new(redo);
                self.offer = None;
                self.ivs_rev += 1;
                self.extend();
                true
            }
            Err(e) => {
                self.messages.alert = Some(e.to_string());
                false
            }
        }
    }
}

impl State {
    /// Cuts the nodes chosen with P off from the others: one more partition line, placed as
    /// far from both sides as it can be, exactly as if it had been drawn. Nodes that no straight
    /// line separates from the rest are named in a notice instead.
    pub(super) fn commit_side(&mut self) -> bool {
        let (ids, pos, lines) = match self.lanes() {
            Some(c) => (c.scenario.nodes.clone(), c.positions.clone(), c.lines.clone()),
            None => (self.scenario.nodes.clone(), self.positions.clone(), self.lines.clone()),
        };
        type Placed = Vec<(u32, Pt)>;
        let (chosen, others): (Placed, Placed) =
            ids.iter().copied().zip(pos.iter().copied()).partition(|(id, _)| self.selection.side.contains(id));
        if chosen.is_empty() || others.is_empty() {
            self.messages.notice = Some(tr(self.lang, k::UI_CHOOSE_ONE_SIDE_FIRST_SOME).into());
            return false;
        }
        let pts = |v: &[(u32, Pt)]| v.iter().map(|n| n.1).collect::<Vec<Pt>>();
        match crate::geometry::separating_line(&pts(&chosen), &pts(&others)) {
            Some(line) => {
                self.selection.side = Rc::new(Vec::new());
                let mut next = (*lines).clone();
                next.push(line);
                self.apply(Action::SetLines(next))
            }
            None => {
                let names = crate::nodes_text(&chosen.iter().map(|n| n.0).collect::<Vec<_>>());
                self.messages.notice = Some(k::UI_NO_STRAIGHT_LINE.format(self.lang, &[&names]));
                false
            }
        }
    }
}
