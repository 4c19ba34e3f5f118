//! The event log: the steps around the cursor, with your interventions between them.

use crate::state::{Action, EngineRef};
use std::rc::Rc;
use yew::prelude::*;

#[derive(Properties, PartialEq)]
pub struct EventLogProps {
    pub engine: EngineRef,
    pub cursor: u64,
    pub interventions: Rc<Vec<election_lab::Intervention>>,
    pub on: Callback<Action>,
}

#[function_component]
pub fn EventLog(p: &EventLogProps) -> Html {
    let engine = p.engine.get();
    let cursor = p.cursor;
    let first = cursor.saturating_sub(40).max(1);
    let last = (cursor + 12).min(engine.head());
    let mut rows = Vec::new();
    for step in first.saturating_sub(1)..=last {
        for a in p.interventions.iter().filter(|iv| iv.step == step).map(|iv| &iv.action) {
            rows.push(html! { <li class="iv">{ format!("after step {step}: you — {}", a.describe()) }</li> });
        }
        if step == 0 {
            continue;
        }
        if let Some(info) = engine.step_info(step) {
            let class = classes!(info.event, (step == cursor).then_some("current"), (step > cursor).then_some("future"));
            rows.push(html! {
                <li class={class}>
                    <button onclick={p.on.reform(move |_| Action::Seek(step))} aria-current={(step == cursor).then_some("step")}>
                        <span class="step-no">{ step }</span>{ info.text }
                    </button>
                </li>
            });
        }
    }
    html! {
        <section class="panel log" aria-label="Event log">
            <h2>{"Event log"}</h2>
            { if rows.is_empty() { html!{ <p class="empty">{"Nothing has happened yet. Press Step forward (→) or Play (Space)."}</p> } } else { html!{ <ol>{ for rows }</ol> } } }
        </section>
    }
}
