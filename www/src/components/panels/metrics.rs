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
                    <b>{ tr(l, k::UI_THEORY_2) }</b>{ format!("{} = {} ({}); {} {}.", subscripts(f.name), f.value, f.applies, tr(l, k::UI_COUNTED_HERE), f.counted) }
                </p>
            }) }
        </section>
    }
}

/// A formula's name as read: its identifier's `_N`, `_8` drawn as subscripts (`N·H_N` is shown
/// `N·Hₙ`; the identifier stays what experiment specs name).
pub fn subscripts(name: &str) -> String {
    let mut out = String::with_capacity(name.len());
    let mut chars = name.chars().peekable();
    while let Some(c) = chars.next() {
        if c != '_' {
            out.push(c);
            continue;
        }
        let mut any = false;
        while let Some(&d) = chars.peek() {
            let sub = match d {
                '0'..='9' => char::from_u32('₀' as u32 + (d as u32 - '0' as u32)),
                'N' | 'n' => Some('ₙ'),
                _ => None,
            };
            let Some(sub) = sub else { break };
            out.push(sub);
            chars.next();
            any = true;
        }
        if !any {
            out.push('_');
        }
    }
    out
}

#[cfg(test)]
mod tests {
    #[test]
    fn formula_names_show_subscripts_not_underscores() {
        assert_eq!(super::subscripts("N·H_N"), "N·Hₙ");
        assert_eq!(super::subscripts("H_32"), "H₃₂");
        assert_eq!(super::subscripts("N(N+1)/2"), "N(N+1)/2");
        assert_eq!(super::subscripts("a_"), "a_");
    }
}
