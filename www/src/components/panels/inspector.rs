//! The inspector: the selected node's protocol state and actions on it.

use crate::i18n::{tr, Lang};
use crate::state::Action;
use election_lab::meta::k;
use election_lab::{Action as Intervention, Engine};
use yew::prelude::*;

/// The selected node as shown (compared by value, so an unchanged node is not redrawn).
#[derive(Clone, Debug, PartialEq)]
pub struct Inspected {
    pub id: u32,
    pub up: bool,
    pub rows: Vec<(election_lab::meta::Text, String)>,
}

impl Inspected {
    pub fn of(engine: &Engine, id: u32) -> Option<Inspected> {
        let up = engine.is_up(id)?;
        Some(Inspected { id, up, rows: engine.inspect(id) })
    }
}

/// A value as shown: a yes or no in words of the page's language, anything else as written.
fn value(v: &str, l: Lang) -> String {
    match v {
        "true" => tr(l, k::UI_YES).to_string(),
        "false" => tr(l, k::UI_NO).to_string(),
        _ => v.to_string(),
    }
}

#[derive(Properties, PartialEq)]
pub struct InspectorProps {
    pub node: Option<Inspected>,
    pub lang: Lang,
    /// Used by touch: the hint names taps and long presses.
    #[prop_or_default]
    pub touch: bool,
    pub on: Callback<Action>,
}

#[function_component]
pub fn Inspector(p: &InspectorProps) -> Html {
    crate::probe::rendered("inspector");
    let l = p.lang;
    let body = match &p.node {
        None if p.touch => {
            html! { <p class="empty">{ tr(l, k::UI_LONG_PRESS_A_NODE_TO) }</p> }
        }
        None => {
            html! { <p class="empty">{ tr(l, k::UI_POINT_AT_A_NODE_OR) }</p> }
        }
        Some(node) => {
            let id = node.id;
            html! {
                <>
                    <p><b>{ format!("N{id}") }</b>{ if node.up { tr(l, k::UI_UP) } else { tr(l, k::UI_CRASHED_STATE_KEPT_FOR_RECOVERY) } }</p>
                    <dl class="kv">{ for node.rows.iter().map(|(key, v)| html!{ <><dt>{ tr(l, *key) }</dt><dd>{ value(v, l) }</dd></> }) }</dl>
                    <div class="row">
                        <button onclick={p.on.reform(move |_| Action::NodeClick(id))}>{ if node.up { tr(l, k::UI_CRASH) } else { tr(l, k::UI_RECOVER) } }</button>
                        <button onclick={p.on.reform(move |_| Action::Act(Intervention::Start(id)))} disabled={!node.up}>{ tr(l, k::UI_START_ELECTION_HERE) }</button>
                        <button onclick={p.on.reform(move |_| Action::Act(Intervention::Isolate(id)))}>{ tr(l, k::UI_ISOLATE) }</button>
                    </div>
                </>
            }
        }
    };
    html! { <section class="panel" aria-label={tr(l, k::UI_INSPECTOR)}><h2>{ tr(l, k::UI_INSPECTOR) }</h2>{ body }</section> }
}
