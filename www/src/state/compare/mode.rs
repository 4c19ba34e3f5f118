//! Compare mode in the reducer: opening and closing the lanes, links, and the actions that
//! concern the shared clock and the faults.
//!
//! The compare sub-state is the mode's `Compare` (in `Mode::Compare`), with its own actions
//! ([`CompareAction`]: open, the course's preset, close) and two reducers: `compare_reduce` for
//! those, and `compare_apply`, which reads the page's other actions as they apply to lanes (a
//! step, a seek, a fault: every control of the run means the same over lanes). Neither is pure:
//! opening lanes builds their engines from the run's (the store's, read), closing them puts the
//! anchor lane's engine back in the store, and each lane owns its engine.

use super::{parse_ids, preset_lanes, preset_scenario, same_world, Compare, SPLIT_BRAIN};
use crate::geometry::{self, Pt};
use crate::i18n::tr;
use crate::link;
use crate::state::{Action, Mode, State};
use election_lab::meta::k;
use election_lab::{presets, Action as Intervention, Algorithm, Scenario, Time};
use std::rc::Rc;

/// Compare mode's own actions; the plain `Action::Compare`, `ComparePreset` and `CloseCompare`
/// are their aliases, as the components send them.
#[derive(Clone, Debug, PartialEq)]
pub enum CompareAction {
    /// Compare these algorithms side by side (2 to 4), on the scenario and faults now shown.
    Open(Vec<&'static Algorithm>),
    /// The course's split-brain experiment, on every algorithm that fits it.
    Preset,
    Close,
}

impl State {
    /// Compare mode's own actions; returns whether the run shown changed.
    pub(in crate::state) fn compare_reduce(&mut self, action: CompareAction) -> bool {
        match action {
            CompareAction::Open(algs) => self.open_compare(algs),
            CompareAction::Preset => self.compare_preset(),
            CompareAction::Close => {
                self.close_compare();
                true
            }
        }
    }

    /// Compare mode with `algs`, on the scenario, faults and time now shown (the run of one
    /// algorithm, or the lanes being compared).
    pub(in crate::state) fn open_compare(&mut self, algs: Vec<&'static Algorithm>) -> bool {
        let (base, faults, time) = match self.lanes() {
            Some(c) => ((*c.scenario).clone(), c.faults(), c.time),
            None => {
                let e = self.engine.get();
                // A dropped message belongs to one run: it is not a fault the others can meet.
                let faults = e
                    .interventions()
                    .iter()
                    .filter(|iv| !matches!(iv.action, Intervention::Drop(_)))
                    .map(|iv| (iv.time, iv.action.clone()))
                    .collect();
                (e.scenario().clone(), faults, e.now())
            }
        };
        self.start_compare(&base, &algs, &faults, time)
    }

    pub(in crate::state) fn start_compare(
        &mut self,
        base: &Scenario,
        algs: &[&'static Algorithm],
        faults: &[(Time, Intervention)],
        time: Time,
    ) -> bool {
        match Compare::build(base, algs, faults, time) {
            Ok(c) => {
                if self.preset.and_then(presets::find).is_some_and(|p| !same_world(&p.scenario(), &c.scenario)) {
                    self.preset = None;
                }
                self.show_compare(c)
            }
            Err(e) => {
                self.messages.alert = Some(e);
                false
            }
        }
    }

    /// Shows lanes just built (of several algorithms, or two runs of one), in the page's
    /// language, paused, with the menus closed and nothing to redo.
    pub(in crate::state) fn show_compare(&mut self, mut c: Compare) -> bool {
        c.lang = self.lang;
        c.refresh();
        // A slow lane's slices learn their steps per call anew.
        self.fresh_slices();
        self.set_lanes(c);
        self.playback.playing = false;
        self.dialogs.picker = false;
        self.selection.menu = None;
        self.redo = Rc::default();
        self.gen += 1;
        true
    }

    /// The course's split-brain experiment on every algorithm that fits it.
    pub(in crate::state) fn compare_preset(&mut self) -> bool {
        let Some(base) = preset_scenario(&SPLIT_BRAIN) else { return false };
        let algs = preset_lanes(&base);
        let ok = algs.len() >= 2 && self.start_compare(&base, &algs, &[], 0);
        if ok {
            self.preset = Some(SPLIT_BRAIN.preset);
        }
        ok
    }

    /// Reads `compare=` (and `time=`) of a link already opened as one run: the lanes replay that
    /// run's faults. A bad list leaves the one run, with an alert that names what is wrong.
    pub(in crate::state) fn compare_from_link(&mut self, query: &str) {
        let ps = link::params(query);
        let get = |k: &str| ps.iter().find(|(key, _)| key == k).map(|(_, v)| v.as_str());
        let Some(list) = get("compare") else { return };
        let algs = match parse_ids(list) {
            Ok(a) => a,
            Err(e) => {
                self.messages.alert = Some(format!("link: {e}. Showing one algorithm instead."));
                return;
            }
        };
        let time = match get("time").map(|t| t.trim().parse::<Time>()) {
            None => None,
            Some(Ok(t)) => Some(t),
            Some(Err(_)) => {
                self.messages.alert = Some(format!(
                    "link: time '{}' is not a number of ticks; showing t = 0",
                    get("time").unwrap_or_default()
                ));
                Some(0)
            }
        };
        if self.open_compare(algs) {
            let c = self.lanes_mut().expect("just built");
            if let Some(t) = time {
                c.go_to(t);
                if c.time < t {
                    self.messages.alert =
                        Some(format!("link: t = {t} is past the end of this run; showing t = {}", c.time));
                }
            }
        } else if let Some(e) = self.messages.alert.take() {
            self.messages.alert = Some(format!("link: {e}. Showing one algorithm instead."));
        }
    }

    /// Back to one run: the anchor lane's, with its faults, at the shared time.
    pub(in crate::state) fn close_compare(&mut self) {
        let Some(c) = self.take_lanes() else { return };
        self.engine = c.anchor().engine.newest();
        self.scenario = c.scenario.clone();
        self.positions = c.positions.clone();
        self.gen += 1;
        self.ivs_rev += 1;
        self.selection.menu = None;
        self.playback.playing = false;
        self.redo = Rc::default();
        self.extend();
        if let Some((engine, job)) = c.anchor().take_rebuild() {
            // Its run was still being rebuilt: it replaces the fresh run shown once ready.
            self.rebuild_later(engine, job, crate::state::slices::Then::Link(None));
        }
    }

    /// Whether an animation frame at clock `t` has an event to apply.
    pub(in crate::state) fn compare_due(&self, t: f64) -> Option<bool> {
        let c = self.lanes()?;
        Some(c.next_tick().is_none_or(|n| n as f64 <= t))
    }

    /// The reducer in compare mode: what concerns the clock and the faults goes to every lane;
    /// anything else is handed back (`Err`) to the one-run reducer.
    // The action handed back is the one given, moved: boxing it would cost every action.
    #[allow(clippy::result_large_err)]
    pub(in crate::state) fn compare_apply(&mut self, action: Action) -> Result<bool, Action> {
        let Mode::Compare(c) = &mut self.mode else { return Err(action) };
        if c.runs.is_some()
            && matches!(
                action,
                Action::Undo
                    | Action::Redo
                    | Action::Reset
                    | Action::LoadPreset(_)
                    | Action::Compare(_)
                    | Action::CompareMode(CompareAction::Open(_))
            )
        {
            // Two runs of one algorithm are not lanes of algorithms: these act on the run kept.
            self.close_compare();
            return Err(action);
        }
        let ended = |lang| tr(lang, k::UI_THE_RUN_HAS_ENDED).to_string();
        let mut fault = None;
        match action {
            Action::StepForward => {
                self.playback.playing = false;
                match c.next_tick() {
                    Some(t) => c.go_to(t),
                    None => self.messages.notice = Some(ended(self.lang)),
                }
            }
            Action::StepBack => {
                self.playback.playing = false;
                if let Some(t) = c.prev_tick() {
                    c.go_to(t);
                }
            }
            Action::Seek(t) => {
                self.playback.playing = false;
                c.go_to(t);
            }
            Action::End => {
                self.playback.playing = false;
                let end = c.end;
                c.go_to(end);
            }
            Action::PlayTo(t) => {
                if !self.playback.playing {
                    return Ok(false);
                }
                match c.next_tick() {
                    None => {
                        self.playback.playing = false;
                        self.messages.notice = Some(ended(self.lang));
                        c.refresh();
                    }
                    Some(n) if n as f64 <= t => {
                        c.live = true;
                        c.go_to(t.floor() as Time);
                        c.live = false;
                    }
                    Some(_) => return Ok(false),
                }
            }
            // Paused: every lane is drawn at the shared time again.
            Action::Pause | Action::TogglePlay if self.playback.playing => {
                self.playback.playing = false;
                c.refresh();
            }
            Action::Reset => {
                let (algs, base) = (c.algorithms(), c.scenario.clone());
                match self.origin.clone().and_then(|o| link::read(&o).ok().flatten().map(|l| (l, o))) {
                    // An embed goes back to what its link showed.
                    Some((l, origin)) => {
                        self.replace_engine(l.engine, l.preset);
                        self.take_lanes();
                        self.compare_from_link(&origin);
                    }
                    None => {
                        self.start_compare(&base, &algs, &[], 0);
                    }
                }
            }
            Action::NodeClick(id) => {
                self.selection.menu = None;
                self.selection.selected = Some(id);
                let up = c.anchor().engine.get().is_up(id).unwrap_or(false);
                fault = Some(if up { Intervention::Crash(id) } else { Intervention::Recover(id) });
            }
            Action::LaneMenu(k, id) => {
                self.selection.selected = Some(id);
                self.selection.menu = if self.selection.menu == Some(id) && c.menu_lane == k { None } else { Some(id) };
                c.menu_lane = k;
                return Ok(false);
            }
            Action::Act(Intervention::Drop(_)) => {
                self.messages.notice = Some(tr(self.lang, k::UI_A_DROPPED_MESSAGE_BELONGS_TO).into());
                return Ok(false);
            }
            Action::Act(a) => {
                self.selection.menu = None;
                fault = Some(a);
            }
            Action::SetLines(lines) => {
                let nodes: Vec<(u32, Pt)> = c.scenario.nodes.iter().copied().zip(c.positions.iter().copied()).collect();
                fault = Some(match (lines.is_empty(), geometry::groups(&lines, &nodes)) {
                    (true, _) => Intervention::Heal,
                    (false, Some(groups)) => Intervention::Partition { groups, lines },
                    (false, None) => {
                        Intervention::Partition { groups: vec![nodes.iter().map(|n| n.0).collect()], lines }
                    }
                });
            }
            Action::LoadPreset(id) => {
                let Some(p) = presets::find(&id) else { return Err(Action::LoadPreset(id)) };
                let algs = c.algorithms();
                if self.start_compare(&p.scenario(), &algs, &[], 0) {
                    self.preset = Some(p.id);
                }
            }
            Action::Undo => {
                let mut faults = c.faults();
                let Some(last) = faults.pop() else {
                    self.messages.notice = Some(tr(self.lang, k::UI_NOTHING_TO_UNDO).into());
                    return Ok(false);
                };
                let (algs, base) = (c.algorithms(), c.scenario.clone());
                let redo = self.redo.clone();
                if self.start_compare(&base, &algs, &faults, last.0) {
                    let mut redo = (*redo).clone();
                    redo.push(election_lab::Intervention { step: 0, time: last.0, action: last.1 });
                    self.redo = Rc::new(redo);
                }
            }
            Action::Redo => {
                let Some(iv) = self.redo.last().cloned() else {
                    self.messages.notice = Some(tr(self.lang, k::UI_NOTHING_TO_REDO).into());
                    return Ok(false);
                };
                c.go_to(iv.time);
                match c.act(iv.action) {
                    Ok(()) => {
                        let mut redo = (*self.redo).clone();
                        redo.pop();
                        self.redo = Rc::new(redo);
                    }
                    Err(e) => self.messages.alert = Some(e),
                }
            }
            // Editing or importing a scenario leaves compare mode.
            a @ (Action::ApplyScenario(_) | Action::Import(_) | Action::ImportFiles(_)) => {
                self.close_compare();
                return Err(a);
            }
            other => return Err(other),
        }
        if let (Some(a), Some(c)) = (fault, self.lanes_mut()) {
            match c.act(a) {
                Ok(()) => self.redo = Rc::default(),
                Err(e) => self.messages.alert = Some(e),
            }
        }
        Ok(true)
    }
}
