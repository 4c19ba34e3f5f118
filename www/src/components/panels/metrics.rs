//! The messages panel: sent messages per kind, totals, and the algorithm's textbook formula.

use crate::i18n::tr;
use crate::meta::Formula;
use election_lab::meta::k;
use election_lab::{Algorithm, Metrics};
use std::rc::Rc;
use yew::prelude::*;

#[derive(Properties, PartialEq)]
pub struct MetricsProps {
    pub metrics: Rc<Metrics>,
    pub algorithm: &'static Algorithm,
    pub formulas: Vec<Formula>,
    pub lang: crate::i18n::Lang,
}

#[function_component]
pub fn MetricsPanel(p: &MetricsProps) -> Html {
    crate::probe::rendered("metrics");
    let m = &p.metrics;
    let l = p.lang;
    html! {
        <section class="panel" aria-label={tr(l, k::UI_METRICS)}>
            <h2>{ tr(l, k::UI_MESSAGES) }</h2>
            <table class="metrics">
                <tbody>
                    { for m.by_kind.iter().map(|&(k, c)| html!{
                        <tr><td>{ crate::components::teach::kind_swatch(p.algorithm, k) }{ k }</td><td class="num" data-kind={k}>{ c }</td></tr>
                    }) }
                    <tr class="total"><td>{ tr(l, k::UI_TOTAL_SENT) }</td><td class="num" data-testid="total-messages">{ m.total }</td></tr>
                    <tr><td>{ tr(l, k::UI_DELIVERED_DROPPED_IN_FLIGHT) }</td><td class="num">{ format!("{} / {} / {}", m.delivered, m.dropped, m.in_flight) }</td></tr>
                </tbody>
            </table>
            { for p.formulas.iter().map(|f| html!{
                <p class="formula" title={f.citation}>
                    <b>{ tr(l, k::UI_THEORY_2) }</b>{ format!("{} = {} ({}); {} {}.", f.name, f.value, f.applies, tr(l, k::UI_COUNTED_HERE), f.counted) }
                </p>
            }) }
        </section>
    }
}
