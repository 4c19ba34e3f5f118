//! The app's state as a reducer: [`State`] + [`Action`] + `impl Reducible`.
//!
//! Reducing is pure: no DOM, no clock, no browser call (effects live in `effects`), so it is
//! unit-tested natively. The engine lives outside the cloned state, in a store (`store.rs`) the
//! state refers to with the revision it saw; every change to it bumps the revision, and what the components draw (frame, metrics, lines, markers, ...) is derived once
//! per change here, in `refresh`, into `Rc`s that are cheap to compare as props.

use crate::geometry::{Line, Pt};
use crate::i18n::{tr, Lang};
use crate::link;
use crate::markers::{self, Marker};
use crate::WORKBENCH as WB;
use election_lab::meta::k;
use election_lab::{presets, Action as Intervention, Engine, Frame, Intervention as Recorded, Metrics, Scenario};
use std::rc::Rc;
use yew::Reducible;

mod action;
pub mod assignment;
mod breakpoints;
mod check;
pub mod compare;
mod debug;
mod derived;
pub mod dialogs;
pub mod experiments;
mod fork;
pub mod handoff;
pub mod lesson;
pub mod limits;
pub mod messages;
mod mode;
mod open;
mod ops;
pub mod playback;
mod real_logs;
pub mod script;
mod search;
pub mod selection;
mod slices;
mod store;
pub mod topo_edit;
pub mod watch;
pub use action::{ready_experiment, Action, UrlKey};
pub use breakpoints::hit_text;
pub use check::{CheckAction, CheckBounds, CheckStatus, Coverage, ModelCheck};
pub use compare::{Compare, CompareAction, Lane, Row};
pub use debug::{LogFilter, LOG_TYPES};
use derived::recent_drops;
pub use derived::{lines_at, positions, property_name, DropMark};
pub use dialogs::DialogAction;
pub use experiments::Pane;
pub use fork::{Offer, OfferKind};
pub use messages::MessageAction;
pub use mode::{Lab, Mode};
pub use open::lesson_asked;
pub use playback::PlaybackAction;
pub use real_logs::{paused_leader_text, stale_term_text};
pub use search::{Finding, SearchAction, SearchStatus};
pub use selection::SelectionAction;
pub use store::EngineRef;

/// How far ahead of the cursor the run is computed, for the scrubber and its markers.
pub const LOOKAHEAD: u64 = 20_000;
/// The play speeds offered, in ticks per second (worded by `ui.speed_rate`).
pub const SPEEDS: &[f64] = &[0.5, 1.0, 2.0, 5.0, 10.0, 30.0];

#[derive(Clone)]
pub struct State {
    pub engine: EngineRef,
    /// Bumped when the engine is replaced (another scenario).
    pub gen: u64,
    /// Bumped whenever the interventions may have changed.
    pub ivs_rev: u64,
    pub preset: Option<&'static str>,
    pub embed: bool,
    /// The presenter view (`?present=1`): the canvas and the words large, side panels hidden.
    pub present: bool,
    /// The watch panel's value (an inspector label): drawn by the workbench (`state/watch.rs`).
    pub watching: Option<String>,
    pub scenario: Rc<Scenario>,
    pub positions: Rc<Vec<Pt>>,
    pub frame: Rc<Frame>,
    pub metrics: Rc<Metrics>,
    /// Lines drawn by the user, as of the cursor.
    pub lines: Rc<Vec<Line>>,
    pub drops: Rc<Vec<DropMark>>,
    /// The interventions recorded so far (step, virtual time, action).
    pub interventions: Rc<Vec<Recorded>>,
    pub head: u64,
    pub markers: Rc<Vec<Marker>>,
    markers_key: (u64, u64, u64, Lang),
    pub playback: playback::Playback,
    pub selection: selection::Selection,
    pub dialogs: dialogs::Dialogs,
    pub messages: messages::Messages,
    /// Used by touch: the narration names gestures instead of keys.
    pub touch: bool,
    /// An imported recording's conformance to its model (`protocols::conform`).
    pub conformance: Option<Rc<election_lab::protocols::conform::Verdict>>,
    /// Bumped by Escape: canvases drop a gesture in progress.
    pub cancel: u32,
    pub lang: Lang,
    /// The language was chosen (by the link or the switch), so links carry it.
    pub lang_chosen: bool,
    /// The language asked for while its catalog is on its way (`lang` stays as it was).
    pub pending_lang: Option<Lang>,
    /// The cursor's step explained in plain words.
    pub narration: Rc<String>,
    /// Interventions taken back by Undo, most recent last.
    pub redo: Rc<Vec<Recorded>>,
    /// In an embed, what the link opened: Reset goes back there (its step and interventions).
    pub origin: Option<Rc<String>>,
    /// One run, compare or experiments, with that mode's own state (see `mode.rs`).
    pub mode: Mode,
    /// The experiment the experiments view shows or opens on: the last one chosen (an id of
    /// `experiment::READY`).
    pub experiment: &'static str,
    /// Sweeps asked for on this page (numbers their jobs).
    sweeps: u32,
    /// Why the breakpoint last typed was not added.
    pub bp_error: Option<Rc<String>>,
    /// What the event log shows.
    pub log_filter: Rc<LogFilter>,
    /// The counterexample search (`search.rs`).
    pub search: search::Search,
    /// "Check every schedule" (`check.rs`).
    pub check: check::Check,
    /// The lesson open, as `?lesson=` carries it.
    pub lesson: Option<Rc<String>>,
    /// A run kept when another replaced it (a future discarded by acting in the past, or the
    /// run shown before an import), offered for comparison.
    pub offer: Option<Rc<Offer>>,
    /// In the player, the workbench asked for (`workbench::handoff`) while it loads.
    pub handoff: Option<Rc<String>>,
    /// The editor of users' own algorithms, when open (workbench only).
    pub script: Option<Rc<script::ScriptEdit>>,
    /// The assignment being taken and its grading (workbench only).
    pub assignment: Option<Rc<assignment::Taking>>,
    /// A scripted run's computing in slices between frames (`slices.rs`).
    pub sl: slices::Slicing,
}

impl State {
    pub fn new(mut engine: Engine, preset: Option<&'static str>, embed: bool) -> State {
        limits::cap(&mut engine);
        let empty = Rc::new(Vec::new());
        let mut s = State {
            scenario: Rc::new(engine.scenario().clone()),
            frame: Rc::new(engine.frame()),
            metrics: Rc::new(engine.metrics()),
            engine: EngineRef::new(engine),
            gen: 0,
            ivs_rev: 0,
            preset,
            embed,
            present: false,
            watching: None,
            positions: Rc::new(Vec::new()),
            lines: Rc::new(Vec::new()),
            drops: Rc::new(Vec::new()),
            interventions: empty,
            head: 0,
            markers: Rc::new(Vec::new()),
            markers_key: (u64::MAX, 0, 0, Lang::En),
            touch: false,
            playback: Default::default(),
            selection: Default::default(),
            dialogs: Default::default(),
            messages: Default::default(),
            conformance: None,
            cancel: 0,
            lang: Lang::En,
            lang_chosen: false,
            pending_lang: None,
            narration: Rc::new(String::new()),
            redo: Rc::new(Vec::new()),
            origin: None,
            mode: Mode::Single,
            experiment: election_lab::experiment::READY[0].0,
            sweeps: 0,
            bp_error: None,
            log_filter: Rc::new(LogFilter::default()),
            search: Default::default(),
            check: Default::default(),
            lesson: None,
            offer: None,
            handoff: None,
            script: None,
            assignment: None,
            sl: Default::default(),
        };
        s.positions = Rc::new(positions(&s.scenario, &s.frame));
        s.extend_first();
        s.refresh();
        s
    }

    pub fn cursor(&self) -> u64 {
        self.frame.step
    }

    /// The engine, to change: only through the newest state (`store.rs`).
    fn engine_mut(&self) -> std::cell::RefMut<'_, Engine> {
        self.engine.get_mut()
    }

    /// Re-derives what is drawn from the engine, after any change to it.
    fn refresh(&mut self) {
        self.engine.bump();
        if self.lanes().is_some() {
            // The lanes re-derive themselves as they change.
            return;
        }
        let engine = self.engine.get();
        self.frame = Rc::new(engine.frame());
        self.metrics = Rc::new(engine.metrics());
        let was = std::mem::replace(&mut self.head, engine.head());
        if self.head != was && engine.head_at_budget() {
            // The head has just reached the tab's history budget: say where the run stops, and why.
            let b = engine.budget();
            self.messages.notice =
                Some(k::UI_HISTORY_BUDGET_REACHED.format(self.lang, &[&self.head, &b.steps, &b.messages]));
        }
        if self.interventions.as_slice() != engine.interventions() {
            self.interventions = Rc::new(engine.interventions().to_vec());
        }
        let lines = lines_at(&self.interventions, engine.cursor());
        if *self.lines != lines {
            self.lines = Rc::new(lines);
        }
        // The step's own sentence, then what was done at it (a crash, a line, ...). The panel
        // prefixes "Step N:" itself.
        let cursor = engine.cursor();
        self.playback.reduce(PlaybackAction::Shown(cursor));
        let narration = derived::narration(&engine, cursor, self.lang, self.touch);
        if *self.narration != narration {
            self.narration = Rc::new(narration);
        }
        let drops = recent_drops(&engine);
        if *self.drops != drops {
            self.drops = Rc::new(drops);
        }
        // Markers change only when the head moves or the interventions change.
        let key = (self.gen, self.ivs_rev, self.head, self.lang);
        if key != self.markers_key {
            self.markers = Rc::new(markers::compute(&engine, self.lang));
            self.markers_key = key;
        }
    }

    /// The concerns' own reducers, none of which changes the engine.
    fn playback_reduce(&mut self, action: PlaybackAction) -> bool {
        self.playback.reduce(action);
        false
    }
    fn selection_reduce(&mut self, action: SelectionAction) -> bool {
        self.selection.reduce(action);
        false
    }
    fn dialogs_reduce(&mut self, action: DialogAction) -> bool {
        self.dialogs.reduce(action);
        false
    }
    fn messages_reduce(&mut self, action: MessageAction) -> bool {
        self.messages.reduce(action);
        false
    }

    /// The one-run reducer, which also holds what every mode shares (the language, the dialogs,
    /// the search); compare mode and the experiments view hand it what is not their own.
    /// Returns whether the engine (or the selection) changed.
    fn single_apply(&mut self, action: Action) -> bool {
        match action.aliased(WB) {
            Action::TogglePlay => {
                if self.playback.playing {
                    self.playback.reduce(PlaybackAction::Pause);
                } else if self.at_end() && self.lesson.is_none() {
                    self.messages.notice = Some(tr(self.lang, k::UI_THE_RUN_HAS_ENDED_NOTHING).into());
                } else {
                    self.playback.reduce(PlaybackAction::Play);
                    self.start_watch();
                }
                false
            }
            Action::StepForward => {
                self.playback.playing = false;
                if !self.step_unit() && self.lesson.is_none() {
                    self.messages.notice = Some(tr(self.lang, k::UI_THE_RUN_HAS_ENDED).into());
                }
                true
            }
            Action::StepBack => {
                self.back_unit();
                true
            }
            Action::Seek(s) => {
                self.seek(s, true);
                true
            }
            Action::Home => self.apply(Action::Seek(0)),
            Action::End => {
                let head = self.end_step();
                self.apply(Action::Seek(head))
            }
            Action::Reset => {
                if let Some(origin) = self.origin.clone() {
                    // An embed goes back to what its link showed, interventions and step included.
                    if self.reopen(&origin) {
                        return true;
                    }
                }
                let until = self.engine.get().until().to_vec();
                let result = Engine::new((*self.scenario).clone()).map_err(|e| e.to_string()).map(|mut e| {
                    // Your breakpoints stay: they are about the scenario, not the interventions.
                    e.set_until(until);
                    e
                });
                self.load(result, self.preset, |e| e)
            }
            Action::Playback(a) => self.playback_reduce(a),
            Action::Selection(a) => self.selection_reduce(a),
            Action::Dialog(a) => self.dialogs_reduce(a),
            Action::Message(a) => self.messages_reduce(a),
            Action::PlayTo(t) => self.play_to(t),
            Action::Compute if WB => self.compute(),
            Action::Compute => self.compute_ahead(),
            Action::NodeClick(id) => {
                self.selection.reduce(SelectionAction::Select(id));
                let up = self.engine.get().is_up(id).unwrap_or(false);
                self.act(if up { Intervention::Crash(id) } else { Intervention::Recover(id) });
                true
            }
            Action::Act(a) => {
                self.selection.reduce(SelectionAction::CloseMenu);
                self.act(a);
                true
            }
            Action::SetLines(lines) => {
                self.set_lines(lines);
                true
            }
            Action::ClearLines => self.apply(Action::SetLines(vec![])),
            Action::LoadPreset(id) => match presets::find(&id) {
                Some(p) => {
                    let result = Engine::new(p.scenario()).map_err(|e| e.to_string());
                    self.load(result, Some(p.id), |e| e)
                }
                // Another family's preset, in a player of one family: the full player opens it.
                None if handoff::FAMILY.is_some() => self.elsewhere(&self.preset_query(&id)),
                None => {
                    self.messages.alert = Some(format!("no preset named '{id}'"));
                    false
                }
            },
            Action::ApplyScenario(parsed) => {
                let result = parsed.and_then(|s| Engine::new(s).map_err(|e| e.to_string()));
                let lang = self.lang;
                let ok = self.load(result, None, |e| k::UI_SCENARIO_NOT_APPLIED.format(lang, &[&e]));
                if ok {
                    self.messages.alert = None;
                }
                ok
            }
            Action::Import(text) => self.reduce_import(text),
            Action::ImportFiles(files) if WB => self.import_files(files),
            Action::ImportBytes(files) if WB => self.import_bytes(files),
            Action::ReplayModel if WB => self.replay_model(),
            Action::ImportRefused(why) => {
                self.messages.alert = Some(k::UI_IMPORT_FAILED.format(self.lang, &[&why]));
                true
            }
            Action::SetLang(lang) if !election_lab::meta::ready(lang) => {
                self.pending_lang = Some(lang);
                self.lang_chosen = true;
                false
            }
            Action::CatalogArrived(lang, result) => {
                if self.pending_lang != Some(lang) {
                    return false;
                }
                self.pending_lang = None;
                match result {
                    Ok(()) => self.apply(Action::SetLang(lang)),
                    Err(e) => {
                        self.messages.notice = Some(k::UI_CATALOG_FAILED.format(self.lang, &[&e]));
                        false
                    }
                }
            }
            Action::SetLang(lang) => {
                self.lang = lang;
                self.pending_lang = None;
                self.lang_chosen = true;
                if let Some(c) = self.lanes_mut() {
                    c.lang = lang;
                    c.refresh();
                }
                true
            }
            Action::ToggleLang => {
                let shown = self.pending_lang.unwrap_or(self.lang);
                self.apply(Action::SetLang(if shown == Lang::En { Lang::Zh } else { Lang::En }))
            }
            Action::Undo => self.undo(),
            Action::Redo => self.redo(),
            Action::CompareMode(a) if WB => self.compare_reduce(a),
            Action::LaneMenu(_, id) if WB => self.apply(Action::NodeMenu(id)),
            Action::ToggleExperiments if self.embed => false,
            Action::ToggleExperiments if WB => {
                // Paused first, as the pause button does (compare lanes redraw at the clock).
                let changed = self.playback.playing && self.apply(Action::Pause);
                self.dialogs.reduce(DialogAction::ClosePicker);
                self.selection.reduce(SelectionAction::CloseMenu);
                self.open_experiments(self.experiment);
                changed
            }
            Action::PickExperiment(id) if WB => {
                if let Some(id) = ready_experiment(id) {
                    self.experiment = id;
                }
                false
            }
            // The experiments view's own, with the view closed.
            Action::CloseExperiments
            | Action::SetTrials(_)
            | Action::SetSpec(_)
            | Action::RestoreSpec
            | Action::RunSweep
            | Action::CancelSweep
            | Action::SweepReply(_) => false,
            Action::CommitSide => self.commit_side(),
            Action::SetTouch(touch) => {
                self.touch = touch;
                true
            }
            Action::AddBreakpoint(text) => self.add_breakpoint(&text),
            Action::RemoveBreakpoint(i) => self.remove_breakpoint(i),
            Action::NextHit => self.next_hit(),
            Action::PrevHit => self.previous_hit(),
            Action::SetLogFilter(f) => {
                self.log_filter = Rc::new(f);
                true
            }
            Action::Search(a) if WB => self.search_apply(a),
            Action::Check(a) if WB => self.check_apply(a),
            Action::SetLessonLink(l) => {
                self.lesson = l.map(Rc::new);
                false
            }
            // Without the lesson player, the Lessons button: an empty `lesson=` (the course list)
            // beside the run goes to the bundle that has it.
            Action::Courses => self.elsewhere(&format!("{}&lesson=", self.query(false))),
            Action::Fork if WB => self.fork(),
            Action::Offered(offer) => self.offered(offer),
            Action::DismissOffer => {
                self.offer = None;
                false
            }
            Action::OpenRun(text) if WB => {
                self.close_compare();
                let ok = self.reduce_import(text);
                // Opened from a table, not imported beside the run: nothing to compare with.
                self.offer = None;
                if ok {
                    self.messages.notice = Some(tr(self.lang, k::UI_OPENED_THE_EXPERIMENTS_RUN).into());
                }
                ok
            }
            Action::TogglePresent => {
                self.present = !self.present && !self.embed;
                false
            }
            Action::WorkbenchFailed(why) => self.workbench_failed(why),
            Action::Elsewhere(query) => self.elsewhere(&query),
            Action::ExportFailed(why) => {
                self.messages.alert = Some(k::UI_PICTURE_EXPORT_COULD_NOT_LOAD.format(self.lang, &[&why]));
                false
            }
            Action::Watch(key) if WB || key.is_none() => {
                self.watching = key;
                false
            }
            Action::Script(a) if WB => self.script_apply(a),
            Action::Assignment(a) if WB => self.assignment_apply(a),
            Action::Escape => {
                // With nothing open to close, Escape leaves the presenter view.
                self.present &= self.dialogs.open() || self.selection.menu.is_some();
                self.dialogs.reduce(DialogAction::CloseAll);
                self.selection.reduce(SelectionAction::CloseMenu);
                self.cancel = self.cancel.wrapping_add(1);
                false
            }
            // In the player, the workbench's tools (the arms above marked `if WB`) load it; the
            // rest of what only the workbench does (its workers' replies, its lanes) is ignored.
            other => self.hand_off(other),
        }
    }
}

impl Reducible for State {
    type Action = Action;

    fn reduce(self: Rc<Self>, action: Action) -> Rc<Self> {
        debug_assert!(self.engine.is_current(), "an action reduced on a state another has replaced");
        if let Action::PlayTo(t) = action {
            // Most animation frames apply no event: keep the state (no re-render).
            let due = self.compare_due(t).unwrap_or_else(|| {
                let mut e = self.engine_mut();
                e.next_event_time().is_none_or(|n| n > e.stop_time() || n as f64 <= t)
            });
            if !self.playback.playing || !due {
                return self;
            }
        }
        let mut next = (*self).clone();
        if next.apply(action) {
            next.refresh();
        }
        Rc::new(next)
    }
}

#[cfg(test)]
mod slices_tests;
#[cfg(test)]
mod tests;
#[cfg(test)]
mod tests_import;
#[cfg(test)]
mod tests_inputs;
