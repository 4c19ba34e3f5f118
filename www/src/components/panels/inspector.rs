//! The inspector: the selected node's protocol state and actions on it.

use crate::state::Action;
use election_lab::{Action as Intervention, Engine};
use yew::prelude::*;

/// The selected node as shown (compared by value, so an unchanged node is not redrawn).
#[derive(Clone, Debug, PartialEq)]
pub struct Inspected {
    pub id: u32,
    pub up: bool,
    pub rows: Vec<(&'static str, String)>,
}

impl Inspected {
    pub fn of(engine: &Engine, id: u32) -> Option<Inspected> {
        let up = engine.is_up(id)?;
        Some(Inspected { id, up, rows: engine.inspect(id) })
    }
}

#[derive(Properties, PartialEq)]
pub struct InspectorProps {
    pub node: Option<Inspected>,
    pub on: Callback<Action>,
}

#[function_component]
pub fn Inspector(p: &InspectorProps) -> Html {
    crate::probe::rendered("inspector");
    let body = match &p.node {
        None => html! { <p class="empty">{"Select a node (click it, or Tab to it) to see its state. Right-click or Shift-click for more actions."}</p> },
        Some(node) => {
            let id = node.id;
            html! {
                <>
                    <p><b>{ format!("N{id}") }</b>{ if node.up { " — up" } else { " — crashed (state kept for recovery)" } }</p>
                    <dl class="kv">{ for node.rows.iter().map(|(k, v)| html!{ <><dt>{ *k }</dt><dd>{ v.clone() }</dd></> }) }</dl>
                    <div class="row">
                        <button onclick={p.on.reform(move |_| Action::NodeClick(id))}>{ if node.up { "Crash" } else { "Recover" } }</button>
                        <button onclick={p.on.reform(move |_| Action::Act(Intervention::Start(id)))} disabled={!node.up}>{"Start election here"}</button>
                        <button onclick={p.on.reform(move |_| Action::Act(Intervention::Isolate(id)))}>{"Isolate"}</button>
                    </div>
                </>
            }
        }
    };
    html! { <section class="panel" aria-label="Inspector"><h2>{"Inspector"}</h2>{ body }</section> }
}
