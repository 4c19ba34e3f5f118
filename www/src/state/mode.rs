//! What the page shows, one at a time: one run, lanes compared, or the experiments view. Each
//! mode's state lives in its variant and each has its reducer: the one-run reducer
//! (`State::single_apply`, which also holds what every mode shares: the language, the dialogs,
//! the search), compare mode's (`compare/mode.rs`, which hands back what is not its own) and the
//! experiments view's (`experiments.rs`, which lets the shared actions through and holds the
//! simulator's keys back).

use super::compare::Compare;
use super::experiments::Pane;
use super::{Action, State};

#[derive(Clone)]
pub enum Mode {
    /// One run: the engine and what is derived from it (`State::engine`, `frame`, ...).
    Single,
    /// 2 to 4 lanes on one clock (or two runs of one algorithm).
    Compare(Compare),
    /// The experiments view, in place of the simulator.
    Experiments(Lab),
}

/// The experiments view's state.
#[derive(Clone)]
pub struct Lab {
    /// The experiment shown and its sweep.
    pub pane: Pane,
    /// The lanes that were compared when the view was opened: the simulator goes back to them
    /// when it closes (the one run waits in `State` as it always does).
    pub(super) behind: Option<Compare>,
}

impl State {
    /// The lanes compared, if in compare mode.
    pub fn compare(&self) -> Option<&Compare> {
        if !crate::WORKBENCH {
            return None;
        }
        match &self.mode {
            Mode::Compare(c) => Some(c),
            _ => None,
        }
    }

    /// The experiments view's pane, if it is shown.
    pub fn experiments(&self) -> Option<&Pane> {
        if !crate::WORKBENCH {
            return None;
        }
        match &self.mode {
            Mode::Experiments(lab) => Some(&lab.pane),
            _ => None,
        }
    }

    /// The simulator's lanes: those compared, or those waiting behind the experiments view.
    pub fn lanes(&self) -> Option<&Compare> {
        if !crate::WORKBENCH {
            return None;
        }
        match &self.mode {
            Mode::Compare(c) | Mode::Experiments(Lab { behind: Some(c), .. }) => Some(c),
            _ => None,
        }
    }

    pub(super) fn lanes_mut(&mut self) -> Option<&mut Compare> {
        if !crate::WORKBENCH {
            return None;
        }
        match &mut self.mode {
            Mode::Compare(c) | Mode::Experiments(Lab { behind: Some(c), .. }) => Some(c),
            _ => None,
        }
    }

    /// Takes the simulator's lanes away (compare mode becomes one run; the experiments view
    /// goes back to one run when it closes).
    pub(super) fn take_lanes(&mut self) -> Option<Compare> {
        match std::mem::replace(&mut self.mode, Mode::Single) {
            Mode::Compare(c) => Some(c),
            Mode::Experiments(mut lab) => {
                let c = lab.behind.take();
                self.mode = Mode::Experiments(lab);
                c
            }
            Mode::Single => None,
        }
    }

    /// Gives the simulator these lanes: compare mode, or the lanes the experiments view goes
    /// back to.
    pub(super) fn set_lanes(&mut self, c: Compare) {
        match &mut self.mode {
            Mode::Experiments(lab) => lab.behind = Some(c),
            mode => *mode = Mode::Compare(c),
        }
    }

    /// Shows the experiments view on experiment `id`, fresh; the simulator waits behind it.
    pub(super) fn open_experiments(&mut self, id: &'static str) {
        self.experiment = id;
        if !matches!(self.mode, Mode::Experiments(_)) {
            let behind = self.take_lanes();
            self.mode = Mode::Experiments(Lab { pane: Pane::new(id), behind });
        }
    }

    /// Back to the simulator as it was left: the view's sweep stops (its worker is terminated).
    pub(super) fn leave_experiments(&mut self) {
        if let Mode::Experiments(lab) = std::mem::replace(&mut self.mode, Mode::Single) {
            self.mode = lab.behind.map_or(Mode::Single, Mode::Compare);
        }
    }

    /// Applies `action` in the mode shown; returns whether the engine (or the selection) changed.
    pub(super) fn apply(&mut self, action: Action) -> bool {
        let action = match self.mode {
            Mode::Single => action,
            Mode::Compare(_) if crate::WORKBENCH => match self.compare_apply(action) {
                Ok(changed) => return changed,
                Err(action) => action,
            },
            Mode::Compare(_) => action,
            Mode::Experiments(_) if crate::WORKBENCH => match self.experiments_apply(action) {
                Ok(changed) => return changed,
                Err(action) => action,
            },
            Mode::Experiments(_) => action,
        };
        self.single_apply(action)
    }
}
