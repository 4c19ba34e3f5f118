//! The watch panel, under the space-time diagram: one value of the inspector (term, vote, role,
//! round, ballot, ...) chosen from a list, drawn for every node as a small sparkline over the
//! computed run, with the cursor. The player offers the values; choosing one loads the
//! workbench, which samples and draws them (the player's build leaves that code out).

use crate::i18n::{tr, Lang};
use crate::state::{Action, EngineRef};
use election_lab::meta::k;
use election_lab::Time;
use yew::prelude::*;

#[derive(Properties, PartialEq)]
pub struct WatchProps {
    pub engine: EngineRef,
    /// The run (bumped when it is replaced), its interventions and its head: the series is
    /// sampled again only when one of these changes.
    pub run: (u64, u64, u64),
    pub time: Time,
    /// The cursor's step: the value shown is the one there.
    pub step: u64,
    /// The chosen field's id (`State::watching`).
    pub watching: Option<String>,
    pub lang: Lang,
    pub on: Callback<Action>,
}

#[function_component]
pub fn Watch(p: &WatchProps) -> Html {
    let l = p.lang;
    let key = p.watching.clone();
    let keys = use_memo(p.run.0, {
        let engine = p.engine.clone();
        move |_| engine.watchable()
    });
    let series = use_memo((p.run, key.clone()), {
        let engine = p.engine.clone();
        // Only the workbench samples a series: in the player, choosing a value hands off.
        move |(_, k)| k.as_deref().filter(|_| crate::WORKBENCH).and_then(|k| engine.series(k))
    });
    let onchange = {
        let (on, keys) = (p.on.clone(), keys.clone());
        Callback::from(move |e: Event| {
            let v = e.target_dyn_into::<web_sys::HtmlSelectElement>().map(|s| s.value()).unwrap_or_default();
            on.emit(Action::Watch(keys.iter().any(|(id, _)| *id == v).then_some(v)));
        })
    };
    // The player's build leaves the drawing out (the workbench samples and draws).
    let body = match (*series).as_ref().filter(|_| crate::WORKBENCH) {
        None => {
            html! { <p class="empty">{ tr(l, k::UI_CHOOSE_A_VALUE_OF_THE) }</p> }
        }
        Some(s) => super::sparklines::rows(s, p.step, p.time, l),
    };
    html! {
        <section class="panel watch" aria-label={tr(l, k::UI_WATCH)} data-testid="watch">
            <h2>{ tr(l, k::UI_WATCH) }</h2>
            <label>{ tr(l, k::UI_VALUE) }
                <select {onchange} data-testid="watch-key">
                    <option value="" selected={key.is_none()}>{ tr(l, k::UI_NONE_2) }</option>
                    { for keys.iter().map(|(id, k)| html!{ <option value={id.clone()} selected={key.as_deref() == Some(id.as_str())}>{ k.get(l) }</option> }) }
                </select>
            </label>
            { body }
        </section>
    }
}
