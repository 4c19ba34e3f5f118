//! What makes the page explain itself: the narration of the current step, the legend of node
//! looks and message kinds, and the algorithm's "how it works" card. All of it comes from the
//! running algorithm's descriptor, in the page's language.

use crate::i18n::{tr, Lang};
use crate::meta::{kind_colour, kind_shape, look_class};
use crate::state::Action;
use election_lab::Algorithm;
use std::rc::Rc;
use yew::prelude::*;

#[derive(Properties, PartialEq)]
pub struct NarrationProps {
    pub step: u64,
    pub text: Rc<String>,
    pub lang: Lang,
    /// In an embed the box shows two lines and scrolls: focusable, so a keyboard can scroll it.
    #[prop_or_default]
    pub scrolls: bool,
}

/// One or two plain sentences under the canvas: what this step did and which rule made it.
#[function_component]
pub fn Narration(p: &NarrationProps) -> Html {
    html! {
        <p class="narration" data-testid="narration" aria-live="polite" tabindex={p.scrolls.then_some("0")}>
            <span class="narration-step">{ format!("{} {}", tr(p.lang, "Step", "第"), p.step) }{ tr(p.lang, ":", " 步：") }</span>
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
    /// The frame drawn: the extras it shows (group bands, colour rings, halos, reach arcs, vote
    /// arrows, doomed messages) get a line each, so that everything drawn is in the legend.
    #[prop_or_default]
    pub frame: Option<Rc<election_lab::Frame>>,
}

/// A kind's swatch: its dot's shape in its colour over a stroke with its edge's dash.
pub fn kind_swatch(a: &Algorithm, kind: &str) -> Html {
    let (shape, dash) = kind_shape(a, kind);
    html! {
        <svg class="swatch-svg" viewBox="-20 -10 40 20" width="30" height="15" aria-hidden="true">
            <line x1="-19" y1="0" x2="19" y2="0" stroke={kind_colour(a, kind)} stroke-width="3" stroke-dasharray={dash.map(|d| d.split(' ').map(|x| format!("{:.1}", x.parse::<f64>().unwrap_or(4.0) * 0.5)).collect::<Vec<_>>().join(" "))} />
            <path d={shape.path(6.5)} fill={kind_colour(a, kind)} stroke="currentColor" stroke-width="1" />
        </svg>
    }
}

/// The extras a frame draws besides nodes and dots, each as (class, English, 中文).
fn extras(a: &Algorithm, frame: &election_lab::Frame) -> Vec<(&'static str, &'static str, &'static str)> {
    let mut out = Vec::new();
    let any = |f: &dyn Fn(&election_lab::NodeFrame) -> bool| frame.nodes.iter().any(|n| n.up && f(n));
    if any(&|n| n.view.group.is_some()) {
        out.push((
            "group-hull",
            "band: a group (or candidate set), in its leader's colour",
            "色带：一个组（或候选者集合），用其领导者的颜色",
        ));
    }
    if any(&|n| n.view.tint.is_some()) {
        out.push((
            "tint",
            "coloured ring: the value a node holds (gossip: the candidate it backs), one colour per id",
            "彩色圆环：节点持有的值（gossip：它支持的候选者），每个 id 一种颜色",
        ));
    }
    if any(&|n| n.view.reach.is_some()) {
        out.push((
            "reach-arc",
            "arc: how far a candidate's probes reach along the ring, each way",
            "弧线：候选者的探测沿环向两侧到达多远",
        ));
    }
    // Vote arrows are drawn from campaigning nodes to another node they vote for.
    let campaigning = |n: &election_lab::NodeFrame| {
        a.role(n.view.role).is_some_and(|r| {
            matches!(r.look, election_lab::meta::Look::Candidate | election_lab::meta::Look::Participant)
        })
    };
    if any(&|n| campaigning(n) && n.view.vote.is_some_and(|v| v != n.id)) {
        out.push((
            "vote-arrow",
            "dashed arrow: whom a campaigning node votes for; the badge counts the votes",
            "虚线箭头：竞选中的节点投票给谁；徽章为得票数",
        ));
    }
    if frame.groups.is_some() {
        out.push((
            "halo",
            "halo or shading: a side of a partition (one colour: can talk)",
            "光晕或阴影：分区的一侧（同色可通信）",
        ));
    }
    out
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
            <span>{ tr(p.lang, "crashed", "已崩溃") }</span>
        </li>
    };
    let extra = p.frame.as_ref().map(|f| extras(a, f)).unwrap_or_default();
    let extra = extra.into_iter().map(|(class, en, zh)| {
        html! {
            <li class="legend-extra" data-extra={class}>
                <svg class="legend-node" viewBox="0 0 24 24" width="18" height="18" aria-hidden="true">{ extra_icon(class) }</svg>
                <span>{ tr(p.lang, en, zh) }</span>
            </li>
        }
    });
    // A message that will not arrive: a dashed path ending in ✕ where it dies.
    let doomed = html! {
        <li class="legend-doomed">
            <svg viewBox="0 0 40 24" width="30" height="18" aria-hidden="true">
                <g class="doomed-path"><line class="msg-edge doomed-edge" x1="2" y1="12" x2="28" y2="12" stroke="currentColor" />
                <text class="doom-mark" x="32" y="12" text-anchor="middle" dominant-baseline="central" style="font-size:16px">{"✕"}</text></g>
            </svg>
            <span>{ tr(p.lang, "will not arrive: ends where it is lost (at the partition line, short of a crashed node)", "不会送达：在丢失处终止（分区线上，或崩溃节点之前）") }</span>
        </li>
    };
    let kinds = a.kinds.iter().map(|k| {
        html! {
            <li class="legend-kind" data-kind={k.name} title={k.explain.get(p.lang)}>
                { kind_swatch(a, k.name) }
                <b>{ k.short }</b>{" "}{ k.name }
                { if p.compact { html!{} } else { html!{ <span class="legend-explain">{ format!(" — {}", k.explain.get(p.lang)) }</span> } } }
            </li>
        }
    });
    html! {
        // Compact, it may scroll: focusable, so that a keyboard can scroll it too.
        <section class={classes!("legend-panel", p.compact.then_some("compact"))} aria-label={tr(p.lang, "Legend", "图例")} tabindex={p.compact.then_some("0")}>
            { if p.compact { html!{} } else { html!{ <h2>{ tr(p.lang, "Legend", "图例") }</h2> } } }
            <ul class="legend-list">
                { if p.compact { html!{} } else { html!{ <>{ for roles }{ crashed }</> } } }
                { for kinds }
                { for extra }
                { if !p.compact || p.frame.as_ref().is_some_and(|f| f.messages.iter().any(|m| m.doom.is_some())) { doomed } else { html!{} } }
            </ul>
        </section>
    }
}

/// A small picture of an extra, drawn with the canvas's own classes.
fn extra_icon(class: &str) -> Html {
    // Own classes (legend-*), not the canvas's: tests and styles that count what the canvas
    // draws must not count the legend.
    match class {
        "group-hull" => {
            html! { <path class="legend-hull" d="M4 12 L20 12" stroke="#56B4E9" stroke-width="12" stroke-linecap="round" opacity="0.35" /> }
        }
        "tint" => {
            html! { <circle class="legend-tint" cx="12" cy="12" r="8" fill="none" stroke="hsl(137, 70%, 40%)" stroke-width="3" /> }
        }
        "reach-arc" => {
            html! { <path class="legend-reach" d="M3 16 A10 10 0 0 1 21 16" fill="none" stroke="var(--candidate)" stroke-width="3" stroke-linecap="round" /> }
        }
        "vote-arrow" => {
            html! { <line class="legend-vote" x1="2" y1="12" x2="22" y2="12" stroke="var(--ink)" stroke-width="2.5" stroke-dasharray="4 3" /> }
        }
        "halo" => html! { <circle class="legend-halo" cx="12" cy="12" r="10" fill="#E69F00" opacity="0.35" /> },
        _ => {
            html! { <circle class="legend-doomed" cx="12" cy="12" r="7" fill="#999999" stroke="var(--bad)" stroke-width="2" stroke-dasharray="3 2" /> }
        }
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
    let title = format!("{} — {}", a.title.get(p.lang), tr(p.lang, "how it works", "原理"));
    html! {
        <div class="overlay" role="dialog" aria-modal="true" aria-label={title.clone()} onclick={p.on.reform(|_| Action::ToggleCard)}>
            <div class="dialog card" data-testid="card" onclick={Callback::from(|e: MouseEvent| e.stop_propagation())}>
                <h2>{ title }</h2>
                <p class="summary">{ a.summary.get(p.lang) }</p>
                { for paragraphs }
                <Legend algorithm={a} lang={p.lang} />
                <p class="citation">{ tr(p.lang, "Original work: ", "原始文献：") }{ a.citation }</p>
                <button onclick={p.on.reform(|_| Action::ToggleCard)}>{ tr(p.lang, "Close", "关闭") }</button>
            </div>
        </div>
    }
}
