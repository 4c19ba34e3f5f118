//! The space-time diagram: a lifeline per node and the messages of the last ~30 ticks.

use super::super::fmt;
use crate::meta::kind_colour;
use crate::state::{Action, EngineRef};
use election_lab::meta::k;
use election_lab::Frame;
use std::collections::BTreeMap;
use std::rc::Rc;
use yew::prelude::*;

#[derive(Properties, PartialEq)]
pub struct SpaceTimeProps {
    pub engine: EngineRef,
    pub frame: Rc<Frame>,
    pub lang: crate::i18n::Lang,
    pub on: Callback<Action>,
}

#[function_component]
pub fn SpaceTime(p: &SpaceTimeProps) -> Html {
    let engine = p.engine.get();
    let frame = &p.frame;
    let n = frame.nodes.len().max(1);
    let now = frame.time;
    let span: u64 = 30;
    let t0 = now.saturating_sub(span * 3 / 4);
    let t1 = t0 + span;
    let (w, h) = (320.0, 260.0);
    let col = |i: usize| 20.0 + (w - 40.0) * (i as f64 + 0.5) / n as f64;
    let row = |t: f64| 16.0 + (h - 24.0) * (t - t0 as f64) / span as f64;
    let mut index: BTreeMap<u32, usize> = BTreeMap::new();
    for (i, nd) in frame.nodes.iter().enumerate() {
        index.insert(nd.id, i);
    }
    // Column headers need about 26 units each: with many nodes, every k-th is labelled (the
    // lifeline's tooltip names every node).
    let widest = frame.nodes.iter().map(|nd| format!("N{}", nd.id).len()).max().unwrap_or(2) as f64;
    let stride = ((widest * 7.0 + 4.0) / ((w - 40.0) / n as f64)).ceil().max(1.0) as usize;
    // Steps whose events fall in [t0, t1], up to the head.
    let mut arrows = Vec::new();
    let mut step = engine.first_step_at(t0);
    let head = engine.head();
    while step <= head && arrows.len() < 400 {
        let Some(info) = engine.step_info_in(step, p.lang) else { break };
        if info.time > t1 {
            break;
        }
        let s = step;
        let onclick = p.on.reform(move |_| Action::Seek(s));
        let future = step > frame.step;
        match (info.peer, info.sent, index.get(&info.node)) {
            (Some(peer), Some(sent), Some(&ti)) => {
                if let Some(&fi) = index.get(&peer) {
                    let colour = kind_colour(engine.algorithm(), info.kind.unwrap_or(""));
                    let class = classes!("st-msg", future.then_some("future"), (info.event == "drop").then_some("dropped"));
                    arrows.push(html! {
                        <line class={class} x1={fmt(col(fi))} y1={fmt(row(sent as f64))} x2={fmt(col(ti))} y2={fmt(row(info.time as f64))}
                              stroke={colour} {onclick}><title>{ k::UI_SPACETIME_STEP.format(p.lang, &[&step, &info.text]) }</title></line>
                    });
                }
            }
            (_, _, Some(&i)) => arrows.push(html! {
                <circle class={classes!("st-event", info.event, future.then_some("future"))} cx={fmt(col(i))} cy={fmt(row(info.time as f64))} r="4" {onclick}>
                    <title>{ k::UI_SPACETIME_STEP.format(p.lang, &[&step, &info.text]) }</title>
                </circle>
            }),
            _ => {}
        }
        step += 1;
    }
    // A recorded crash's evidence interval: from the victim's last line to its peers' first
    // report of the loss (the importer writes it in the scenario's params).
    let bands: Vec<Html> = engine
        .scenario()
        .params
        .get("evidence")
        .and_then(|v| v.as_array())
        .into_iter()
        .flatten()
        .filter_map(|b| {
            let (node, from, to) = (b["node"].as_u64()?, b["from"].as_u64()?, b["to"].as_u64()?);
            let &i = index.get(&(node as u32))?;
            let (a, z) = (from.max(t0), to.min(t1));
            (a <= z).then(|| {
                let title = k::UI_SPACETIME_EVIDENCE.format(p.lang, &[&node, &b["last"].as_str().unwrap_or(""), &from, &b["lost"].as_str().unwrap_or(""), &to]);
                html! { <rect class="st-evidence" data-node={node.to_string()} x={fmt(col(i) - 6.0)} width="12" y={fmt(row(a as f64))} height={fmt((row(z as f64) - row(a as f64)).max(2.0))}><title>{ title }</title></rect> }
            })
        })
        .collect();
    let legend = (!bands.is_empty()).then(|| html! { <p class="st-legend"><span class="st-evidence-key"></span>{ crate::i18n::tr(p.lang, k::UI_SPACETIME_EVIDENCE_LEGEND) }</p> });
    html! {
        <section class="panel" aria-label={crate::i18n::tr(p.lang, k::UI_SPACE_TIME_DIAGRAM)}>
            <h2>{ crate::i18n::tr(p.lang, k::UI_SPACE_TIME_DIAGRAM) }</h2>
            <svg class="spacetime" viewBox={format!("0 0 {w} {h}")} role="img" aria-label={k::UI_SPACETIME_LABEL.format(p.lang, &[&t0, &t1])}>
                { for frame.nodes.iter().enumerate().map(|(i, nd)| html!{
                    <>
                        <line class={classes!("lifeline", (!nd.up).then_some("down"))} x1={fmt(col(i))} y1="14" x2={fmt(col(i))} y2={fmt(h)}><title>{ format!("N{}", nd.id) }</title></line>
                        { if i % stride == 0 { html!{ <text class="st-head" x={fmt(col(i))} y="10" text-anchor="middle">{ format!("N{}", nd.id) }</text> } } else { html!{} } }
                    </>
                }) }
                { for bands }
                { for arrows }
                <line class="st-now" x1="0" x2={fmt(w)} y1={fmt(row(now as f64))} y2={fmt(row(now as f64))} />
                <text class="st-time" x="2" y={fmt(row(now as f64) - 3.0)}>{ format!("t={now}") }</text>
            </svg>
            { legend }
        </section>
    }
}
