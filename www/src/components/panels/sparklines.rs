//! The watch panel's sparklines (`watch.rs`): a value of the inspector drawn for every node over
//! the computed run, with the cursor. The workbench's: the player lists the values and hands the
//! one chosen to it, and its build leaves this drawing out.

use super::super::fmt;
use crate::i18n::{tr, Lang};
use crate::state::watch::{value_at, Change, Series};
use election_lab::meta::k;
use election_lab::Time;
use yew::prelude::*;

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

/// The sparklines of series `s` at the cursor's step `step` (time `time`), with their legend.
pub fn rows(s: &Series, step: u64, time: Time, l: Lang) -> Html {
    let legend = match s.range() {
        Some((lo, hi)) if s.levels.is_empty() => format!("{} {lo} … {hi}", tr(l, k::UI_LOW_TO_HIGH)),
        _ => format!("{} {}", tr(l, k::UI_LEVELS_LOW_TO_HIGH), s.levels.join(" < ")),
    };
    html! {
        <>
            <ul class="spark-rows">
                { for s.nodes.iter().map(|(id, values)| {
                    let now = at(values, step);
                    let label = format!("N{id} · {}: {now} {} t = {}", s.key.get(l), tr(l, k::UI_AT), time);
                    html!{
                        <li class="spark-row" data-node-watch={id.to_string()} data-value={now.clone()} role="img" aria-label={label}>
                            <span class="spark-id">{ format!("N{id}") }</span>
                            { sparkline(s, values, time) }
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
