//! The breakpoints beside the playback controls: in the workbench, the editor
//! (`breakpoints.rs`: the list, the menu, previous / next hit, the hit); in the player, their
//! heading and one button, *Set breakpoints…*, that hands the run at its step to the workbench,
//! which shows the editor (the editor's code, and Play's watching for hits, are left out of the
//! player's build). A link or a trace that carries breakpoints opens in the workbench at once.

use crate::i18n::tr;
use crate::state::{Action, State};
use election_lab::meta::k;
use election_lab::Algorithm;
use std::rc::Rc;
use yew::prelude::*;

/// The breakpoints' section for the run `state` shows, its breakpoints `until`.
pub fn breakpoints(state: &State, until: &[String], algorithm: &'static Algorithm, on: &Callback<Action>) -> Html {
    let lang = state.lang;
    if crate::WORKBENCH {
        return html! {
            <super::breakpoints::Breakpoints until={Rc::new(until.to_vec())}
                hit={state.hit_here().map(|h| Rc::new(h.clone()))} error={state.bp_error.clone()}
                {algorithm} nodes={Rc::new(state.scenario.nodes.clone())} time={state.frame.time} {lang} on={on.clone()} />
        };
    }
    let open = on.reform(|_| Action::OpenTool(crate::state::handoff::BREAKPOINTS));
    html! {
        <section class="breakpoints" aria-label={tr(lang, k::UI_BREAKPOINTS)} data-testid="breakpoints">
            <h3>{ tr(lang, k::UI_BREAKPOINTS) }</h3>
            <button class="bp-open" onclick={open} data-testid="bp-open">{ tr(lang, k::UI_BREAKPOINTS_OPEN) }</button>
        </section>
    }
}
