//! "Check every schedule" on the invariants panel: a property, the bounds (crashes, partitions,
//! depth, and the timed model's horizon), the button, then the progress line with Cancel and
//! the verdict — what was proved within the bounds, or the shortest counterexample, which the
//! reducer opens as the run. The checker itself runs in the Web Worker (`crate::check_job`).

use crate::i18n::{tr, Lang};
use crate::state::{Action, CheckBounds, CheckStatus, Coverage, ModelCheck};
use election_lab::meta::k;
use std::rc::Rc;
use web_sys::{HtmlInputElement, HtmlSelectElement};
use yew::prelude::*;

#[derive(Properties, Clone, PartialEq)]
pub struct Props {
    /// The properties that can be checked: (id, name).
    pub properties: Rc<Vec<(&'static str, &'static str)>>,
    pub check: Option<Rc<ModelCheck>>,
    /// A counterexample search runs: one job at a time.
    pub busy: bool,
    pub lang: Lang,
    pub on: Callback<Action>,
}

/// The bounds in the page's words.
fn bounds_text(b: &CheckBounds, lang: Lang) -> String {
    let time = match b.horizon {
        Some(h) => k::ui_check_timed(h).render(lang),
        None => tr(lang, k::UI_CHECK_ASYNCHRONOUS).to_string(),
    };
    format!("{}, {time}", k::ui_check_bounds(b.depth as u64, b.crashes as u64, b.partitions as u64).render(lang))
}

/// A number input of the bounds, clamped to `0..=max`.
fn number(label: &str, id: &'static str, value: u64, max: u64, set: Callback<u64>) -> Html {
    let onchange = Callback::from(move |e: Event| {
        let input: HtmlInputElement = e.target_unchecked_into();
        set.emit(input.value().trim().parse::<u64>().unwrap_or(0).min(max));
    });
    html! {
        <label>{ label }
            <input type="number" min="0" max={max.to_string()} value={value.to_string()}
                   data-testid={format!("check-{id}")} {onchange} />
        </label>
    }
}

/// A narration rule (a catalog key) by its text in the page's language, each argument an
/// ellipsis; a rule the catalog lacks (a script's own) by its key.
fn rule_text(key: &str, lang: Lang) -> String {
    match election_lab::meta::Text::find(key) {
        Some(t) => {
            let dots: Vec<&dyn std::fmt::Display> = t.args().iter().map(|_| &"…" as &dyn std::fmt::Display).collect();
            t.format(lang, &dots)
        }
        None => key.to_string(),
    }
}

/// The check's rule coverage, as the CLI reports it: each rule that fired and how often, then
/// the algorithm's rules that never did.
fn coverage(c: &Coverage, lang: Lang) -> Html {
    let (fired, rules) = (c.fired.len() as u64, (c.fired.len() + c.never.len()) as u64);
    html! {
        <details class="check-coverage" data-testid="check-coverage" data-fired={fired.to_string()} data-never={c.never.len().to_string()}>
            <summary>{ k::UI_CHECK_COVERAGE.fill(lang, &[fired, rules]) }</summary>
            <ul data-testid="check-coverage-fired">
                { for c.fired.iter().map(|(key, n)| html! {
                    <li data-rule={key.clone()}>{ k::UI_CHECK_COVERAGE_TIMES.format(lang, &[&rule_text(key, lang), n]) }</li>
                }) }
            </ul>
            if !c.never.is_empty() {
                <p>{ k::UI_CHECK_COVERAGE_NEVER.fill(lang, &[c.never.len() as u64]) }</p>
                <ul data-testid="check-coverage-never">
                    { for c.never.iter().map(|key| html! { <li data-rule={key.clone()}>{ rule_text(key, lang) }</li> }) }
                </ul>
            }
        </details>
    }
}

#[function_component]
pub fn CheckEvery(p: &Props) -> Html {
    let lang = p.lang;
    let chosen = use_state(|| 0usize);
    let bounds = use_state(CheckBounds::default);
    let running = p.check.as_ref().is_some_and(|c| c.running());
    let Some(&(property, _)) = p.properties.get(*chosen).or(p.properties.first()) else { return html! {} };
    let set = |f: fn(&mut CheckBounds, u64)| {
        let bounds = bounds.clone();
        Callback::from(move |v: u64| {
            let mut b = *bounds;
            f(&mut b, v);
            bounds.set(b);
        })
    };
    let on_property = {
        let chosen = chosen.clone();
        Callback::from(move |e: Event| {
            let select: HtmlSelectElement = e.target_unchecked_into();
            chosen.set(select.selected_index().max(0) as usize);
        })
    };
    let start = {
        let (b, on) = (*bounds, p.on.clone());
        Callback::from(move |_| on.emit(Action::CheckEverySchedule(property.to_string(), b)))
    };
    // Checks run in the workbench (the player hands the bounds over), so only it draws their
    // progress and verdict: the player's build leaves that code out.
    let check = p.check.as_deref().filter(|_| crate::WORKBENCH);
    let status = match check.map(|c| (&c.status, &c.bounds)) {
        None => html! {},
        Some((CheckStatus::Running { states, depth }, _)) => html! {
            <div class="check-status running">
                <p role="status" data-testid="check-status" data-status="running" data-states={states.to_string()}>
                    { k::ui_check_running(*states, *depth as u64).render(lang) }
                </p>
                <button onclick={p.on.reform(|_| Action::CancelCheck)} data-testid="check-cancel">{ tr(lang, k::UI_CANCEL) }</button>
            </div>
        },
        Some((status, b)) => {
            let bounds = bounds_text(b, lang);
            let (class, text, states) = match status {
                CheckStatus::Holds { states, complete: true } => {
                    ("holds", k::UI_CHECK_EXHAUSTED.format(lang, &[states, &bounds]), *states)
                }
                CheckStatus::Holds { states, complete: false } => {
                    ("holds", k::UI_CHECK_HOLDS.format(lang, &[states, &bounds]), *states)
                }
                CheckStatus::Violated { step, moves, states } => {
                    ("violated", k::ui_check_violated(*moves, *step, *states).render(lang), *states)
                }
                CheckStatus::Limit { states } => ("limit", k::ui_check_limit(*states).render(lang), *states),
                CheckStatus::Cancelled { states } => {
                    ("cancelled", k::ui_check_cancelled(*states).render(lang), *states)
                }
                CheckStatus::Failed(why) => ("failed", k::UI_CHECK_FAILED.format(lang, &[why]), 0),
                CheckStatus::Running { .. } => unreachable!("shown above"),
            };
            html! { <>
                <p class={classes!("check-status", class)} role="status" data-testid="check-status" data-status={class}
                   data-states={states.to_string()}>{ text }</p>
                { for check.and_then(|c| c.coverage.as_deref()).map(|c| coverage(c, lang)) }
            </> }
        }
    };
    let b = *bounds;
    html! {
        <section class="check-every" aria-label={tr(lang, k::UI_CHECK_TITLE)} data-testid="check-every">
            <h3>{ tr(lang, k::UI_CHECK_TITLE) }</h3>
            <div class="check-bounds">
                <label>{ tr(lang, k::UI_CHECK_PROPERTY) }
                    <select data-testid="check-property" onchange={on_property}>
                        { for p.properties.iter().enumerate().map(|(i, (id, name))| html! {
                            <option value={*id} selected={i == *chosen}>{ *name }</option>
                        }) }
                    </select>
                </label>
                { number(tr(lang, k::UI_CHECK_CRASHES), "crashes", b.crashes as u64, 3, set(|b, v| b.crashes = v as u32)) }
                { number(tr(lang, k::UI_CHECK_PARTITIONS), "partitions", b.partitions as u64, 2, set(|b, v| b.partitions = v as u32)) }
                { number(tr(lang, k::UI_CHECK_DEPTH), "depth", b.depth as u64, 60, set(|b, v| b.depth = v.max(1) as u32)) }
                { number(tr(lang, k::UI_CHECK_HORIZON), "horizon", b.horizon.unwrap_or(0), 1000, set(|b, v| b.horizon = (v > 0).then_some(v))) }
            </div>
            <button class="find" disabled={p.busy || running} onclick={start} data-testid="check-run">
                { tr(lang, k::UI_CHECK_EVERY_SCHEDULE) }
            </button>
            { status }
        </section>
    }
}
