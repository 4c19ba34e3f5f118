//! The breakpoint list beside the playback controls: add one from a short menu (which fills in
//! the text for this algorithm) or by typing the command line's `--until` text, remove each,
//! step to the previous / next hit. Play stops at the next hit; the hit is named here.
//! Every string of this panel is in this file, in both languages.

use crate::i18n::{tr, Lang};
use crate::state::{hit_text, Action};
use election_lab::breakpoint::Hit;
use election_lab::meta::{k, Text};
use election_lab::Algorithm;
use std::rc::Rc;
use web_sys::{HtmlInputElement, HtmlSelectElement};
use yew::prelude::*;

#[derive(Properties, PartialEq)]
pub struct BreakpointsProps {
    pub until: Rc<Vec<String>>,
    /// The hit the cursor stands on, if any.
    pub hit: Option<Rc<Hit>>,
    pub error: Option<Rc<String>>,
    pub algorithm: &'static Algorithm,
    pub nodes: Rc<Vec<u32>>,
    pub time: u64,
    pub lang: Lang,
    pub on: Callback<Action>,
}

/// The menu: (value, English, Chinese).
const MENU: &[(&str, Text)] = &[
    ("violation", k::BREAKPOINTS_A_PROPERTY_IS_VIOLATED),
    ("leaders-change", k::BREAKPOINTS_THE_LEADERS_CHANGE),
    ("role", k::BREAKPOINTS_NODE_X_BECOMES_R),
    ("deliver", k::BREAKPOINTS_MESSAGE_K_DELIVERED),
    ("time", k::BREAKPOINTS_TIME_T),
];

/// The text a menu entry stands for, for this algorithm (to edit before adding, for the last three).
fn template(choice: &str, alg: &Algorithm, nodes: &[u32], time: u64) -> String {
    let node = nodes.last().copied().unwrap_or(1);
    match choice {
        "role" => {
            let role = alg.roles.iter().map(|r| r.name).find(|r| *r == "leader").or(alg.roles.first().map(|r| r.name));
            format!("role:{node}={}", role.unwrap_or("leader"))
        }
        "deliver" => format!("deliver:{}:to={node}", alg.kinds.first().map_or("MSG", |k| k.name)),
        "time" => format!("time>={}", time + 50),
        other => other.to_string(),
    }
}

#[function_component]
pub fn Breakpoints(p: &BreakpointsProps) -> Html {
    let l = p.lang;
    let input = use_node_ref();
    let add = {
        let (input, on) = (input.clone(), p.on.clone());
        Callback::from(move |e: SubmitEvent| {
            e.prevent_default();
            if let Some(i) = input.cast::<HtmlInputElement>() {
                let v = i.value();
                if !v.trim().is_empty() {
                    on.emit(Action::AddBreakpoint(v));
                    i.set_value("");
                }
            }
        })
    };
    let pick = {
        let (input, on, alg, nodes, time) = (input.clone(), p.on.clone(), p.algorithm, p.nodes.clone(), p.time);
        Callback::from(move |e: Event| {
            let Some(sel) = e.target_dyn_into::<HtmlSelectElement>() else { return };
            let choice = sel.value();
            sel.set_value("");
            match choice.as_str() {
                "" => {}
                // Nothing to fill in: added at once.
                "violation" | "leaders-change" => on.emit(Action::AddBreakpoint(choice)),
                _ => {
                    if let Some(i) = input.cast::<HtmlInputElement>() {
                        i.set_value(&template(&choice, alg, &nodes, time));
                        let _ = i.focus();
                    }
                }
            }
        })
    };
    let hit_bp = p.hit.as_ref().map(|h| h.breakpoint.clone());
    html! {
        <section class="breakpoints" aria-label={tr(l, k::UI_BREAKPOINTS)} data-testid="breakpoints">
            <h3>{ tr(l, k::UI_BREAKPOINTS) }
                <span class="hint">{ tr(l, k::UI_PLAY_STOPS_AT_THE_NEXT) }</span></h3>
            { if p.until.is_empty() { html!{
                <p class="empty">{ tr(l, k::UI_NONE_YET_PLAY_RUNS_TO) }</p>
            }} else { html!{
                <ul class="bp-list">
                    { for p.until.iter().enumerate().map(|(i, t)| {
                        let hit = hit_bp.as_deref() == Some(t.as_str());
                        html!{
                            <li class={classes!(hit.then_some("hit"))} data-bp={t.clone()}>
                                <code>{ t }</code>
                                <button class="bp-remove" onclick={p.on.reform(move |_| Action::RemoveBreakpoint(i))}
                                        aria-label={format!("{} {t}", tr(l, k::UI_REMOVE_BREAKPOINT))}
                                        title={tr(l, k::UI_REMOVE)}>{ "×" }</button>
                            </li>
                        }
                    }) }
                </ul>
            }} }
            <form class="bp-add" onsubmit={add}>
                <select onchange={pick} aria-label={tr(l, k::UI_ADD_A_BREAKPOINT_STOP_WHEN)}>
                    <option value="" selected=true>{ tr(l, k::UI_STOP_WHEN) }</option>
                    { for MENU.iter().map(|(v, t)| html!{ <option value={*v}>{ tr(l, *t) }</option> }) }
                </select>
                <input ref={input} type="text" spellcheck="false" placeholder="role:3=leader"
                       aria-label={tr(l, k::UI_BREAKPOINT_TEXT_AS_THE_COMMAND)} />
                <button type="submit">{ tr(l, k::UI_ADD) }</button>
            </form>
            { match &p.error { Some(e) => html!{ <p class="bp-error" role="alert">{ e.as_str() }</p> }, None => html!{} } }
            <div class="bp-nav">
                <button onclick={p.on.reform(|_| Action::PrevHit)} disabled={p.until.is_empty()}
                        title={tr(l, k::UI_BACK_TO_THE_PREVIOUS_HIT)}>{ tr(l, k::UI_PREVIOUS_HIT) }</button>
                <button onclick={p.on.reform(|_| Action::NextHit)} disabled={p.until.is_empty()}
                        title={tr(l, k::UI_RUN_ON_TO_THE_NEXT)}>{ tr(l, k::UI_NEXT_HIT) }</button>
            </div>
            { match &p.hit { Some(h) => html!{
                <p class="bp-hit" role="status" data-testid="bp-hit">{ hit_text(h, l) }</p>
            }, None => html!{} } }
        </section>
    }
}
