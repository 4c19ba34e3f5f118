//! The event log: the steps around the cursor, with your interventions between them. Each step
//! shows its narration on hover, and the list keeps the current step in view.

use crate::i18n::{tr, Lang};
use crate::state::{Action, EngineRef, LogFilter, LOG_TYPES};
use election_lab::meta::{k, Text};
use std::rc::Rc;
use wasm_bindgen::JsCast;
use web_sys::HtmlSelectElement;
use yew::prelude::*;

#[derive(Properties, PartialEq)]
pub struct EventLogProps {
    pub engine: EngineRef,
    pub cursor: u64,
    pub interventions: Rc<Vec<election_lab::Intervention>>,
    pub filter: Rc<LogFilter>,
    pub lang: Lang,
    /// Used by touch: the empty log names the buttons to tap, not keys.
    #[prop_or_default]
    pub touch: bool,
    /// During a lesson: no steps past the cursor (the log would answer "which message comes
    /// next?" before the student does).
    #[prop_or_default]
    pub hide_future: bool,
    pub on: Callback<Action>,
}

#[function_component]
pub fn EventLog(p: &EventLogProps) -> Html {
    let list = use_node_ref();
    {
        // Follow the cursor: scroll the list (not the page) so the current step is in view.
        let list = list.clone();
        use_effect_with(p.cursor, move |_| {
            if let Some(ol) = list.cast::<web_sys::HtmlElement>() {
                if let Ok(Some(cur)) = ol.query_selector("li.current") {
                    if let Ok(li) = cur.dyn_into::<web_sys::HtmlElement>() {
                        ol.set_scroll_top((li.offset_top() - ol.client_height() / 2).max(0));
                    }
                }
            }
        });
    }
    let engine = p.engine.get();
    let (cursor, lang, f) = (p.cursor, p.lang, &*p.filter);
    // Unfiltered: the steps around the cursor. Filtered: the matching steps around it, looked
    // for over a bounded window (so a rare event far away does not cost a scan of the run).
    let (before, after, window) = if f.is_empty() { (40, 12, 52) } else { (40, 12, 5_000) };
    let after = if p.hide_future { 0 } else { after };
    let mut picked: Vec<u64> = Vec::new();
    let mut s = cursor;
    while s >= 1 && picked.len() < before && cursor - s < window {
        if engine.step_info_in(s, lang).is_some_and(|i| f.keeps(&i)) {
            picked.push(s);
        }
        s -= 1;
    }
    picked.reverse();
    let head = engine.head();
    let mut s = cursor + 1;
    let mut ahead = 0;
    while s <= head && ahead < after && s - cursor <= window {
        if engine.step_info_in(s, lang).is_some_and(|i| f.keeps(&i)) {
            picked.push(s);
            ahead += 1;
        }
        s += 1;
    }
    let notes = f.keeps_notes();
    let mut rows = Vec::new();
    let first = picked.first().copied().unwrap_or(cursor);
    if notes {
        for a in p.interventions.iter().filter(|iv| iv.step == 0 && first <= 1).map(|iv| &iv.action) {
            rows.push(html! { <li class="iv">{ format!("{} 0{}{}", tr(lang, k::UI_AFTER_STEP), tr(lang, k::UI_YOU), a.describe_in(lang)) }</li> });
        }
    }
    for step in picked.iter().copied() {
        // Step `step`'s row, then what you did after it ("after step k" sits below step k).
        if let Some(info) = (f.event != Some("note")).then(|| engine.step_info_in(step, lang)).flatten() {
            let class =
                classes!(info.event, (step == cursor).then_some("current"), (step > cursor).then_some("future"));
            let why = engine.narrate(step, lang).unwrap_or_default();
            rows.push(html! {
                <li class={class} title={why} data-ev-node={info.node.to_string()} data-ev-peer={info.peer.map(|x| x.to_string())}>
                    <button onclick={p.on.reform(move |_| Action::Seek(step))} aria-current={(step == cursor).then_some("step")}>
                        <span class="step-no">{ step }</span>{ info.text }
                    </button>
                </li>
            });
        }
        if notes {
            for a in p.interventions.iter().filter(|iv| iv.step == step).map(|iv| &iv.action) {
                rows.push(html! { <li class="iv">{ format!("{} {step}{}{}", tr(lang, k::UI_AFTER_STEP), tr(lang, k::UI_YOU), a.describe_in(lang)) }</li> });
            }
        }
    }
    let filter_bar = filter_bar(f, &engine.scenario().nodes, engine.kinds(), lang, &p.on);
    html! {
        <section class="panel log" aria-label={tr(lang, k::UI_EVENT_LOG)}>
            <h2>{ tr(lang, k::UI_EVENT_LOG) }</h2>
            { filter_bar }
            { if rows.is_empty() && !f.is_empty() {
                html!{ <p class="empty">{ tr(lang, k::UI_NO_EVENT_NEAR_THIS_STEP) }</p> }
            } else if rows.is_empty() && p.touch {
                html!{ <p class="empty">{ tr(lang, k::UI_NOTHING_HAS_HAPPENED_YET_TAP) }</p> }
            } else if rows.is_empty() {
                html!{ <p class="empty">{ tr(lang, k::UI_NOTHING_HAS_HAPPENED_YET_PRESS) }</p> }
            } else {
                html!{ <ol ref={list}>{ for rows }</ol> }
            } }
        </section>
    }
}

/// Three menus (node, message kind, event type); each change sends the whole new filter.
fn filter_bar(
    f: &LogFilter,
    nodes: &[u32],
    kinds: &'static [election_lab::meta::Kind],
    lang: Lang,
    on: &Callback<Action>,
) -> Html {
    let types: [(&str, Text); 5] = [
        (LOG_TYPES[0], k::LOG_DELIVERIES),
        (LOG_TYPES[1], k::LOG_DROPS),
        (LOG_TYPES[2], k::LOG_TIMERS),
        (LOG_TYPES[3], k::LOG_FAULTS),
        (LOG_TYPES[4], k::LOG_NOTES_YOUR_ACTIONS),
    ];
    let change = |which: u8| {
        let base = f.clone();
        crate::components::maybe(on, move |e: Event| {
            let v = e.target_dyn_into::<HtmlSelectElement>()?.value();
            let mut next = base.clone();
            match which {
                0 => next.node = v.parse().ok(),
                1 => next.kind = kinds.iter().find(|k| k.name == v).map(|k| k.name.to_string()),
                _ => next.event = LOG_TYPES.iter().copied().find(|t| *t == v),
            }
            Some(Action::SetLogFilter(next))
        })
    };
    let any = tr(lang, k::UI_ALL);
    html! {
        <div class="log-filter" role="group" aria-label={tr(lang, k::UI_FILTER_THE_EVENT_LOG)}>
            <label>{ tr(lang, k::UI_NODE) }
                <select onchange={change(0)} data-testid="log-node">
                    <option value="" selected={f.node.is_none()}>{ any }</option>
                    { for nodes.iter().map(|n| html!{ <option value={n.to_string()} selected={f.node == Some(*n)}>{ format!("N{n}") }</option> }) }
                </select>
            </label>
            <label>{ tr(lang, k::UI_MESSAGE) }
                <select onchange={change(1)} data-testid="log-kind">
                    <option value="" selected={f.kind.is_none()}>{ any }</option>
                    { for kinds.iter().map(|k| html!{ <option value={k.name} selected={f.kind.as_deref() == Some(k.name)}>{ k.name }</option> }) }
                </select>
            </label>
            <label>{ tr(lang, k::UI_TYPE) }
                <select onchange={change(2)} data-testid="log-type">
                    <option value="" selected={f.event.is_none()}>{ any }</option>
                    { for types.iter().map(|(v, t)| html!{ <option value={*v} selected={f.event == Some(*v)}>{ tr(lang, *t) }</option> }) }
                </select>
            </label>
        </div>
    }
}
