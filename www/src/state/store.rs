//! The engine's one owner, outside the cloned state: a store holding the engine and the revision
//! of the newest state, which every state refers to with the revision it saw.
//!
//! A `State` is cloned by every action (`impl Reducible`), but the engine is too large to clone:
//! successive states share one store. The store knows which revision is the newest, so a state an
//! action has since replaced cannot change the engine under its successor (a debug assertion in
//! [`EngineRef::get_mut`]) and knows that what it reads may have moved on
//! ([`EngineRef::is_current`]). Each action that changes the engine bumps the revision once
//! (`State::refresh`), and two refs are equal while nothing changed the engine: a cheap
//! comparison for components' props.

use election_lab::Engine;
use std::cell::{Cell, Ref, RefCell, RefMut};
use std::rc::Rc;

/// The engine and the revision of the newest ref to it.
struct EngineStore {
    engine: RefCell<Engine>,
    rev: Cell<u64>,
}

/// A state's handle on the engine store, with the revision that state saw.
#[derive(Clone)]
pub struct EngineRef {
    store: Rc<EngineStore>,
    pub rev: u64,
}

impl PartialEq for EngineRef {
    fn eq(&self, other: &Self) -> bool {
        Rc::ptr_eq(&self.store, &other.store) && self.rev == other.rev
    }
}

impl EngineRef {
    pub fn new(engine: Engine) -> Self {
        Self::at(engine, 0)
    }

    /// A new store for `engine`, its revision `rev` (a run replacing another goes on counting).
    pub(in crate::state) fn at(engine: Engine, rev: u64) -> Self {
        EngineRef { store: Rc::new(EngineStore { engine: RefCell::new(engine), rev: Cell::new(rev) }), rev }
    }

    /// The newest ref to this ref's store (the one a lane that becomes the run hands over).
    pub(in crate::state) fn newest(&self) -> Self {
        EngineRef { store: self.store.clone(), rev: self.store.rev.get() }
    }

    /// Reading: allowed through any state, the engine being as the newest state left it.
    pub fn get(&self) -> Ref<'_, Engine> {
        self.store.engine.borrow()
    }

    /// Whether this ref is the store's newest: no action has changed the engine since.
    pub fn is_current(&self) -> bool {
        self.rev == self.store.rev.get()
    }

    /// Changing the engine: only through the newest state.
    pub(in crate::state) fn get_mut(&self) -> RefMut<'_, Engine> {
        debug_assert!(
            self.is_current(),
            "the engine changed through an old state (rev {} of {})",
            self.rev,
            self.store.rev.get()
        );
        self.store.engine.borrow_mut()
    }

    /// After an action changed the engine: this ref becomes the newest, one revision on.
    pub(in crate::state) fn bump(&mut self) {
        debug_assert!(self.is_current(), "an old state bumped the engine's revision");
        self.rev += 1;
        self.store.rev.set(self.rev);
    }
}

#[cfg(test)]
mod tests {
    use super::EngineRef;
    use crate::state::{Action, State};
    use election_lab::{presets, Engine};
    use std::rc::Rc;
    use yew::Reducible;

    fn opened() -> Rc<State> {
        Rc::new(State::open(""))
    }

    #[test]
    fn an_action_that_changes_the_engine_bumps_the_revision_once_and_leaves_the_old_state_behind() {
        let old = opened();
        assert!(old.engine.is_current());
        let next = old.clone().reduce(Action::StepForward);
        assert_eq!(next.engine.rev, old.engine.rev + 1);
        assert!(next.engine.is_current());
        // Reading through the old state is possible, and detectable.
        assert!(!old.engine.is_current());
        assert_eq!(old.engine.get().cursor(), 1, "one engine: the old state reads the newest run");
        assert!(old.engine != next.engine);
        // An action that leaves the engine alone keeps the revision (and the props equal).
        let same = next.clone().reduce(Action::ToggleHelp);
        assert!(same.engine == next.engine);
        assert!(next.engine.is_current());
    }

    #[test]
    #[cfg(debug_assertions)]
    #[should_panic(expected = "the engine changed through an old state")]
    fn an_old_state_cannot_change_the_engine() {
        let old = opened();
        let _next = old.clone().reduce(Action::StepForward);
        old.engine.get_mut().step();
    }

    #[test]
    fn a_new_store_and_the_newest_ref_of_a_store() {
        let p = presets::find(presets::DEFAULT).unwrap();
        let mut a = EngineRef::at(Engine::new(p.scenario()).unwrap(), 7);
        assert!(a.is_current() && a.rev == 7);
        let old = a.clone();
        a.bump();
        assert!(!old.is_current());
        assert!(old.newest() == a);
    }
}
