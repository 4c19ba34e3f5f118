//! The watch panel, under the space-time diagram: one value of the inspector (term, vote, role,
//! round, ballot, ...) chosen from a list, drawn for every node as a small sparkline over the
//! computed run, with the cursor. The player offers the values; choosing one loads the
//! workbench, which samples and draws them (the player's build leaves that code out).

use super::super::fmt;
use crate::i18n::{tr, Lang};
use crate::state::watch::{value_at, Change, Series};
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

const W: f64 = 200.0;
const H: f64 = 18.0;

/// One node's sparkline: a step line through its changes (to the end of the run), and the cursor.
fn sparkline(s: &Series, values: &[Change], now: Time) -> Html {
    let end = s.end.max(1) as f64;
    let x = |t: Time| t as f64 / end * W;
    let y = |h: f64| H - 2.0 - h * (H - 4.0);
    let mut d = String::new();
    let mut last: Option<f64> = None;
    for (_, t, v) in values {
        let Some(h) = v.as_ref().and_then(|v| s.height(v)) else {
            if last.is_some() {
                d.push_str(&format!(" H{}", fmt(x(*t))));
            }
            last = None;
            continue;
        };
        match last {
            None => d.push_str(&format!("M{} {}", fmt(x(*t)), fmt(y(h)))),
            Some(_) => d.push_str(&format!(" H{} V{}", fmt(x(*t)), fmt(y(h)))),
        }
        last = Some(h);
    }
    if last.is_some() {
        d.push_str(&format!(" H{}", fmt(W)));
    }
    html! {
        <svg class="spark" viewBox={format!("0 0 {W} {H}")} preserveAspectRatio="none" aria-hidden="true">
            <path class="spark-line" d={d} />
            <line class="spark-now" x1={fmt(x(now))} x2={fmt(x(now))} y1="0" y2={fmt(H)} />
        </svg>
    }
}

/// The value shown at the cursor's step (the inspector's there).
fn at(values: &[Change], step: u64) -> String {
    value_at(values, step).map_or_else(|| "—".to_string(), |v| v.show())
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
    let body = match &*series {
        None => {
            html! { <p class="empty">{ tr(l, k::UI_CHOOSE_A_VALUE_OF_THE) }</p> }
        }
        Some(s) => {
            let legend = match s.range() {
                Some((lo, hi)) if s.levels.is_empty() => format!("{} {lo} … {hi}", tr(l, k::UI_LOW_TO_HIGH)),
                _ => format!("{} {}", tr(l, k::UI_LEVELS_LOW_TO_HIGH), s.levels.join(" < ")),
            };
            html! {
                <>
                    <ul class="spark-rows">
                        { for s.nodes.iter().map(|(id, values)| {
                            let now = at(values, p.step);
                            let label = format!("N{id} · {}: {now} {} t = {}", s.key.get(l), tr(l, k::UI_AT), p.time);
                            html!{
                                <li class="spark-row" data-node-watch={id.to_string()} data-value={now.clone()} role="img" aria-label={label}>
                                    <span class="spark-id">{ format!("N{id}") }</span>
                                    { sparkline(s, values, p.time) }
                                    <span class="spark-value">{ now }</span>
                                </li>
                            }
                        }) }
                    </ul>
                    <p class="legend spark-legend">
                        <span class="swatch spark-swatch" aria-hidden="true"></span>{ format!("{} {} ", s.key.get(l), tr(l, k::UI_OVER_THE_RUN)) }
                        <span class="swatch clock" aria-hidden="true"></span>{ tr(l, k::UI_THE_CURSOR) }
                        { legend }
                    </p>
                </>
            }
        }
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
