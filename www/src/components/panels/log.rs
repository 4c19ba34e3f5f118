//! The event log: the steps around the cursor, with your interventions between them. Each step
//! shows its narration on hover, and the list keeps the current step in view.

use crate::i18n::{tr, Lang};
use crate::state::{Action, EngineRef};
use election_lab::meta::k;
use std::rc::Rc;
use wasm_bindgen::JsCast;
use yew::prelude::*;

#[derive(Properties, PartialEq)]
pub struct EventLogProps {
    pub engine: EngineRef,
    pub cursor: u64,
    pub interventions: Rc<Vec<election_lab::Intervention>>,
    pub lang: Lang,
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
    let (cursor, lang) = (p.cursor, p.lang);
    let first = cursor.saturating_sub(40).max(1);
    let last = (cursor + 12).min(engine.head());
    let mut rows = Vec::new();
    for step in first.saturating_sub(1)..=last {
        // Step `step`'s row, then what you did after it ("after step k" sits below step k).
        if let Some(info) = (step > 0).then(|| engine.step_info_in(step, lang)).flatten() {
            let class =
                classes!(info.event, (step == cursor).then_some("current"), (step > cursor).then_some("future"));
            let why = engine.narrate(step, lang).unwrap_or_default();
            rows.push(html! {
                <li class={class} title={why}>
                    <button onclick={p.on.reform(move |_| Action::Seek(step))} aria-current={(step == cursor).then_some("step")}>
                        <span class="step-no">{ step }</span>{ info.text }
                    </button>
                </li>
            });
        }
        for a in p.interventions.iter().filter(|iv| iv.step == step).map(|iv| &iv.action) {
            rows.push(html! { <li class="iv">{ format!("{} {step}{}{}", tr(lang, k::UI_AFTER_STEP), tr(lang, k::UI_YOU), a.describe_in(lang)) }</li> });
        }
    }
    html! {
        <section class="panel log" aria-label={tr(lang, k::UI_EVENT_LOG)}>
            <h2>{ tr(lang, k::UI_EVENT_LOG) }</h2>
            { if rows.is_empty() {
                html!{ <p class="empty">{ tr(lang, k::UI_NOTHING_HAS_HAPPENED_YET_PRESS) }</p> }
            } else {
                html!{ <ol ref={list}>{ for rows }</ol> }
            } }
        </section>
    }
}
