//! The experiments view's page, in place of the simulator (whose state is kept meanwhile).

use crate::state::Action;
use crate::state::State;
use yew::prelude::*;

pub struct ExperimentsProps<'a> {
    pub state: &'a State,
    pub on: Callback<Action>,
}

pub fn page(props: ExperimentsProps) -> Html {
    let (state, on) = (&props.state, &props.on);
    let lang = state.lang;
    let Some(pane) = state.experiments() else { return html! {} };
    html! { <crate::components::experiments::Experiments pane={pane.clone()} {lang} on={on.clone()} /> }
}
