//! The messages panel: sent messages per kind, totals, and the algorithm's textbook formula.

use crate::i18n::tr;
use crate::meta::Formula;
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
        <section class="panel" aria-label="Metrics">
            <h2>{ tr(l, "Messages", "消息") }</h2>
            <table class="metrics">
                <tbody>
                    { for m.by_kind.iter().map(|&(k, c)| html!{
                        <tr><td>{ crate::components::teach::kind_swatch(p.algorithm, k) }{ k }</td><td class="num" data-kind={k}>{ c }</td></tr>
                    }) }
                    <tr class="total"><td>{ tr(l, "total sent", "发送总数") }</td><td class="num" data-testid="total-messages">{ m.total }</td></tr>
                    <tr><td>{ tr(l, "delivered / dropped / in flight", "已送达 / 丢失 / 在途") }</td><td class="num">{ format!("{} / {} / {}", m.delivered, m.dropped, m.in_flight) }</td></tr>
                </tbody>
            </table>
            { for p.formulas.iter().map(|f| html!{
                <p class="formula" title={f.citation}>
                    <b>{ tr(l, "Theory: ", "理论值：") }</b>{ format!("{} = {} ({}); {} {}.", f.name, f.value, f.applies, tr(l, "counted here:", "本次计数："), f.counted) }
                </p>
            }) }
        </section>
    }
}
