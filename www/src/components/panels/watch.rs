//! The watch panel, under the space-time diagram: one value of the inspector (term, vote, role,
//! round, ballot, ...) chosen from a list, drawn for every node as a small sparkline over the
//! computed run, with the cursor.

use super::super::fmt;
use crate::i18n::{tr, Lang};
use crate::state::watch::Series;
use crate::state::EngineRef;
use election_lab::Time;
use yew::prelude::*;

#[derive(Properties, PartialEq)]
pub struct WatchProps {
    pub engine: EngineRef,
    /// The run (bumped when it is replaced), its interventions and its head: the series is
    /// sampled again only when one of these changes.
    pub run: (u64, u64, u64),
    pub time: Time,
    pub lang: Lang,
}

const W: f64 = 200.0;
const H: f64 = 18.0;

/// One node's sparkline: a step line through its samples, and the cursor.
fn sparkline(s: &Series, values: &[Option<String>], now: Time) -> Html {
    let end = s.times.last().copied().unwrap_or(0).max(1) as f64;
    let x = |t: Time| t as f64 / end * W;
    let y = |h: f64| H - 2.0 - h * (H - 4.0);
    let mut d = String::new();
    let mut last: Option<f64> = None;
    for (t, v) in s.times.iter().zip(values) {
        let Some(h) = v.as_deref().and_then(|v| s.height(v)) else {
            last = None;
            continue;
        };
        match last {
            None => d.push_str(&format!("M{} {}", fmt(x(*t)), fmt(y(h)))),
            Some(_) => d.push_str(&format!(" H{} V{}", fmt(x(*t)), fmt(y(h)))),
        }
        last = Some(h);
    }
    html! {
        <svg class="spark" viewBox={format!("0 0 {W} {H}")} preserveAspectRatio="none" aria-hidden="true">
            <path class="spark-line" d={d} />
            <line class="spark-now" x1={fmt(x(now))} x2={fmt(x(now))} y1="0" y2={fmt(H)} />
        </svg>
    }
}

/// The value shown at the cursor: the last sample at or before it.
fn at(s: &Series, values: &[Option<String>], now: Time) -> String {
    let i = s.times.partition_point(|&t| t <= now).saturating_sub(1);
    values.get(i).cloned().flatten().unwrap_or_else(|| "—".into())
}

#[function_component]
pub fn Watch(p: &WatchProps) -> Html {
    let l = p.lang;
    let key = use_state(|| None::<&'static str>);
    let keys = use_memo(p.run.0, {
        let engine = p.engine.clone();
        move |_| engine.watchable()
    });
    let series = use_memo((p.run, *key), {
        let engine = p.engine.clone();
        move |(_, k)| k.and_then(|k| engine.series(k))
    });
    let onchange = {
        let (key, keys) = (key.clone(), keys.clone());
        Callback::from(move |e: Event| {
            let v = e.target_dyn_into::<web_sys::HtmlSelectElement>().map(|s| s.value()).unwrap_or_default();
            key.set(keys.iter().copied().find(|k| *k == v));
        })
    };
    let body = match &*series {
        None => {
            html! { <p class="empty">{ tr(l, "Choose a value of the inspector to follow it on every node over the run.", "选择节点详情中的一个值，即可在整个运行中跟踪每个节点的这个值。") }</p> }
        }
        Some(s) => {
            let legend = match s.range() {
                Some((lo, hi)) if s.levels.is_empty() => format!("{} {lo} … {hi}", tr(l, "low to high:", "由低到高：")),
                _ => format!("{} {}", tr(l, "levels, low to high:", "层级，由低到高："), s.levels.join(" < ")),
            };
            html! {
                <>
                    <ul class="spark-rows">
                        { for s.nodes.iter().map(|(id, values)| {
                            let now = at(s, values, p.time);
                            let label = format!("N{id} · {}: {now} {} t = {}", s.key, tr(l, "at", "于"), p.time);
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
                        <span class="swatch spark-swatch" aria-hidden="true"></span>{ format!("{} {} ", s.key, tr(l, "over the run", "在整个运行中的变化")) }
                        <span class="swatch clock" aria-hidden="true"></span>{ tr(l, "the cursor; ", "游标；") }
                        { legend }
                    </p>
                </>
            }
        }
    };
    html! {
        <section class="panel watch" aria-label={tr(l, "Watch", "跟踪")} data-testid="watch">
            <h2>{ tr(l, "Watch", "跟踪") }</h2>
            <label>{ tr(l, "Value: ", "值：") }
                <select {onchange} data-testid="watch-key">
                    <option value="" selected={key.is_none()}>{ tr(l, "— none —", "— 无 —") }</option>
                    { for keys.iter().map(|k| html!{ <option value={*k} selected={*key == Some(*k)}>{ *k }</option> }) }
                </select>
            </label>
            { body }
        </section>
    }
}
