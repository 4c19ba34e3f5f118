//! The inspector: the selected node's protocol state and actions on it.

use crate::i18n::{tr, Lang};
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
            html! { <p class="empty">{ tr(l, "Long-press a node to see its state here and open its menu; a tap crashes or recovers it.", "长按一个节点，可在此查看其状态并打开其菜单；轻点则使其崩溃或恢复。") }</p> }
        }
        None => {
            html! { <p class="empty">{ tr(l, "Point at a node (or Tab to it) to see its state here; a click crashes or recovers it. Right-click, Shift-click or M for more actions.", "指向一个节点（或用 Tab 聚焦）即可在此查看其状态；点击则使其崩溃或恢复。右键、Shift+点击或按 M 查看更多操作。") }</p> }
        }
        Some(node) => {
            let id = node.id;
            html! {
                <>
                    <p><b>{ format!("N{id}") }</b>{ if node.up { tr(l, " — up", " — 运行中") } else { tr(l, " — crashed (state kept for recovery)", " — 已崩溃（状态保留以便恢复）") } }</p>
                    <dl class="kv">{ for node.rows.iter().map(|(k, v)| html!{ <><dt>{ *k }</dt><dd>{ v.clone() }</dd></> }) }</dl>
                    <div class="row">
                        <button onclick={p.on.reform(move |_| Action::NodeClick(id))}>{ if node.up { tr(l, "Crash", "使其崩溃") } else { tr(l, "Recover", "恢复") } }</button>
                        <button onclick={p.on.reform(move |_| Action::Act(Intervention::Start(id)))} disabled={!node.up}>{ tr(l, "Start election here", "在此发起选举") }</button>
                        <button onclick={p.on.reform(move |_| Action::Act(Intervention::Isolate(id)))}>{ tr(l, "Isolate", "隔离") }</button>
                    </div>
                </>
            }
        }
    };
    html! { <section class="panel" aria-label={tr(l, "Inspector", "节点详情")}><h2>{ tr(l, "Inspector", "节点详情") }</h2>{ body }</section> }
}
