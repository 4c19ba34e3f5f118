//! What makes the page explain itself: the narration of the current step, the legend of node
//! looks and message kinds, and the algorithm's "how it works" card. All of it comes from the
//! running algorithm's descriptor, in the page's language.

use crate::i18n::{tr, Lang};
use crate::meta::{kind_colour, look_class};
use crate::state::Action;
use election_lab::meta::k;
use election_lab::Algorithm;
use std::rc::Rc;
use yew::prelude::*;

#[derive(Properties, PartialEq)]
pub struct NarrationProps {
    pub step: u64,
    pub text: Rc<String>,
    pub lang: Lang,
}

/// One or two plain sentences under the canvas: what this step did and which rule made it.
#[function_component]
pub fn Narration(p: &NarrationProps) -> Html {
    html! {
        <p class="narration" data-testid="narration" aria-live="polite">
            <span class="narration-step">{ format!("{} {}", tr(p.lang, k::UI_NARRATION_STEP), p.step) }{ tr(p.lang, k::UI_NARRATION_COLON) }</span>
            { p.text.to_string() }
        </p>
    }
}

#[derive(Properties, PartialEq)]
pub struct LegendProps {
    pub algorithm: &'static Algorithm,
    pub lang: Lang,
    /// The compact embed legend shows the message kinds only.
    #[prop_or_default]
    pub compact: bool,
}

/// The legend: how each node role looks, and each message kind's colour, label and meaning.
#[function_component]
pub fn Legend(p: &LegendProps) -> Html {
    let a = p.algorithm;
    let roles = a.roles.iter().map(|r| {
        html! {
            <li class="legend-role" title={r.explain.get(p.lang)}>
                <svg class="legend-node" viewBox="0 0 24 24" width="18" height="18" aria-hidden="true">
                    <g class={classes!("node", "up", look_class(r.look))}><circle class="disc" cx="12" cy="12" r="8" /></g>
                </svg>
                <span>{ crate::meta::role_label(a, r.name, p.lang) }{ if p.compact || p.lang == Lang::Zh && !matches!(r.name, "leader" | "follower" | "candidate") { String::new() } else { format!(" — {}", r.explain.get(p.lang)) } }</span>
            </li>
        }
    });
    let crashed = html! {
        <li class="legend-role">
            <svg class="legend-node" viewBox="0 0 24 24" width="18" height="18" aria-hidden="true">
                <g class="node crashed"><circle class="disc" cx="12" cy="12" r="8" /><path class="cross" d="M8 8L16 16M16 8L8 16" /></g>
            </svg>
            <span>{ tr(p.lang, k::UI_CRASHED) }</span>
        </li>
    };
    let kinds = a.kinds.iter().map(|k| {
        html! {
            <li class="legend-kind" title={k.explain.get(p.lang)}>
                <span class="swatch" style={format!("background:{}", kind_colour(a, k.name))}></span>
                <b>{ k.short }</b>{" "}{ k.name }
                { if p.compact { html!{} } else { html!{ <span class="legend-explain">{ format!(" — {}", k.explain.get(p.lang)) }</span> } } }
            </li>
        }
    });
    html! {
        <section class={classes!("legend-panel", p.compact.then_some("compact"))} aria-label={tr(p.lang, k::UI_LEGEND)}>
            { if p.compact { html!{} } else { html!{ <h2>{ tr(p.lang, k::UI_LEGEND) }</h2> } } }
            <ul class="legend-list">
                { if p.compact { html!{} } else { html!{ <>{ for roles }{ crashed }</> } } }
                { for kinds }
            </ul>
        </section>
    }
}

#[derive(Properties, PartialEq)]
pub struct CardProps {
    pub open: bool,
    pub algorithm: &'static Algorithm,
    pub lang: Lang,
    pub on: Callback<Action>,
}

/// The running algorithm's "how it works" card: its idea, rules, what to watch, the paper.
#[function_component]
pub fn CardDialog(p: &CardProps) -> Html {
    if !p.open {
        return html! {};
    }
    let a = p.algorithm;
    let paragraphs = a.card.get(p.lang).split("\n\n").map(|para| {
        let lines: Vec<&str> = para.lines().map(str::trim).filter(|l| !l.is_empty()).collect();
        if lines.iter().all(|l| l.starts_with("• ")) {
            html! { <ul>{ for lines.iter().map(|l| html!{ <li>{ l.trim_start_matches("• ").to_string() }</li> }) }</ul> }
        } else {
            html! { <p>{ lines.join(" ") }</p> }
        }
    });
    let title = format!("{} — {}", a.title.get(p.lang), tr(p.lang, k::UI_HOW_IT_WORKS_2));
    html! {
        <div class="overlay" role="dialog" aria-modal="true" aria-label={title.clone()} onclick={p.on.reform(|_| Action::ToggleCard)}>
            <div class="dialog card" data-testid="card" onclick={Callback::from(|e: MouseEvent| e.stop_propagation())}>
                <h2>{ title }</h2>
                <p class="summary">{ a.summary.get(p.lang) }</p>
                { for paragraphs }
                <Legend algorithm={a} lang={p.lang} />
                <p class="citation" lang="en">{ tr(p.lang, k::UI_ORIGINAL_WORK) }{ a.citation }</p>
                <button onclick={p.on.reform(|_| Action::ToggleCard)}>{ tr(p.lang, k::UI_CLOSE) }</button>
            </div>
        </div>
    }
}
