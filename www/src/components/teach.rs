//! What makes the page explain itself: the narration of the current step, the legend of node
//! looks and message kinds, and the algorithm's "how it works" card. All of it comes from the
//! running algorithm's descriptor, in the page's language.

use crate::i18n::{tr, Lang};
use crate::meta::{kind_colour, kind_shape, look_class};
use crate::state::Action;
use election_lab::meta::{k, Text};
use election_lab::protocol::DecorationKind;
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
            <span class="narration-step">{ format!("{} {}", tr(p.lang, k::UI_NARRATION_STEP), p.step) }{ tr(p.lang, k::UI_NARRATION_COLON) }</span>
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
    /// The scenario gives a network graph, whose links the canvas draws.
    #[prop_or_default]
    pub links: bool,
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

/// The legend's lines of a decoration kind present in the frame, as (class, text): one drawing
/// per kind, whatever algorithm produces it. The links' own (a tree link, oriented and pruned
/// links) only where the scenario's links are drawn. The hash ring, the lease bars and the zxid
/// label name themselves where they are drawn (the key's mark, the bar's ticks, "zxid 3").
fn decoration_lines(kind: DecorationKind, links: bool) -> &'static [(&'static str, Text)] {
    match kind {
        DecorationKind::Parent if links => &[("tree-link", k::TEACH_TREE_LINK)],
        // An algorithm that orients its links draws arrows, and dashes the links it prunes.
        DecorationKind::Out if links => {
            &[("oriented-link", k::TEACH_ORIENTED_LINK), ("pruned-link", k::TEACH_PRUNED_LINK)]
        }
        DecorationKind::Group => &[("group-hull", k::TEACH_BAND_A_GROUP_OR_CANDIDATE)],
        DecorationKind::Tint => &[("tint", k::TEACH_COLOURED_RING_THE_VALUE_A)],
        DecorationKind::Reach => &[("reach-arc", k::TEACH_ARC_HOW_FAR_A_CANDIDATES)],
        DecorationKind::Parent
        | DecorationKind::Out
        | DecorationKind::HashRing
        | DecorationKind::Lease
        | DecorationKind::Zxid => &[],
    }
}

/// The extras a frame draws besides nodes and dots, each as (class, its legend text), `links`
/// when the scenario gives a network graph; the exported picture's legend lists them too.
pub fn extras(a: &Algorithm, frame: &election_lab::Frame, links: bool) -> Vec<(&'static str, Text)> {
    let mut out = Vec::new();
    let any = |f: &dyn Fn(&election_lab::NodeFrame) -> bool| frame.nodes.iter().any(|n| n.up && f(n));
    if links {
        out.push(("graph-link", k::TEACH_GRAPH_LINK));
    }
    for kind in DecorationKind::ALL {
        if any(&|n| n.view.has(kind)) {
            out.extend_from_slice(decoration_lines(kind, links));
        }
    }
    // Vote arrows are drawn from campaigning nodes to another node they vote for.
    let campaigning = |n: &election_lab::NodeFrame| {
        a.role(n.view.role).is_some_and(|r| {
            matches!(r.look, election_lab::meta::Look::Candidate | election_lab::meta::Look::Participant)
        })
    };
    if any(&|n| campaigning(n) && n.view.vote.is_some_and(|v| v != n.id)) {
        out.push(("vote-arrow", k::TEACH_DASHED_ARROW_WHOM_A_CAMPAIGNING));
    }
    if frame.groups.is_some() {
        out.push(("halo", k::TEACH_HALO_OR_SHADING_A_SIDE));
    }
    if any(&|n| n.view.paused) {
        out.push(("paused", k::TEACH_PAUSED));
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
                <span>{ crate::meta::role_label(a, r.name, p.lang) }{ if p.compact { String::new() } else { format!(" — {}", r.explain.get(p.lang)) } }</span>
            </li>
        }
    });
    let crashed = html! {
        <li class="legend-role">
            <svg class="legend-node" viewBox="0 0 24 24" width="18" height="18" aria-hidden="true">
                <g class="node crashed"><circle class="disc" cx="12" cy="12" r="8" /><path class="cross" d="M8 8L16 16M16 8L8 16" /></g>
            </svg>
            <span>{ tr(p.lang, k::UI_CRASHED) }</span>
        </li>
    };
    let extra = p.frame.as_ref().map(|f| extras(a, f, p.links)).unwrap_or_default();
    let extra = extra.into_iter().map(|(class, t)| {
        html! {
            <li class="legend-extra" data-extra={class}>
                <svg class="legend-node" viewBox="0 0 24 24" width="18" height="18" aria-hidden="true">{ extra_icon(class) }</svg>
                <span>{ tr(p.lang, t) }</span>
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
            <span>{ tr(p.lang, k::UI_WILL_NOT_ARRIVE_ENDS_WHERE) }</span>
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
        <section class={classes!("legend-panel", p.compact.then_some("compact"))} aria-label={tr(p.lang, k::UI_LEGEND)} tabindex={p.compact.then_some("0")}>
            { if p.compact { html!{} } else { html!{ <h2>{ tr(p.lang, k::UI_LEGEND) }</h2> } } }
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
        "graph-link" => {
            html! { <line class="legend-link" x1="2" y1="12" x2="22" y2="12" stroke="var(--line)" stroke-width="3" /> }
        }
        "tree-link" => {
            html! { <line class="legend-link" x1="2" y1="12" x2="22" y2="12" stroke="var(--ink)" stroke-width="6" /> }
        }
        "oriented-link" => html! {
            <path class="legend-link" d="M2 12 L20 12 M14 7 L21 12 L14 17" fill="none" stroke="var(--muted)" stroke-width="2.5" />
        },
        "pruned-link" => {
            html! { <line class="legend-link" x1="2" y1="12" x2="22" y2="12" stroke="var(--line)" stroke-width="3" stroke-dasharray="5 4" /> }
        }
        "halo" => html! { <circle class="legend-halo" cx="12" cy="12" r="10" fill="#E69F00" opacity="0.35" /> },
        "paused" => html! {
            <g class="legend-paused"><circle cx="12" cy="12" r="9" fill="var(--panel)" stroke="var(--muted)" stroke-width="2" stroke-dasharray="4 3" />
            <path d="M9 8v8M15 8v8" stroke="var(--ink)" stroke-width="2.5" /></g>
        },
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
    let title = format!("{} — {}", a.title.get(p.lang), tr(p.lang, k::UI_HOW_IT_WORKS_2));
    html! {
        <div class="overlay" role="dialog" aria-modal="true" aria-label={title.clone()} onclick={p.on.reform(|_| Action::ToggleCard)}>
            <div class="dialog card" data-testid="card" onclick={Callback::from(|e: MouseEvent| e.stop_propagation())}>
                <h2>{ title }</h2>
                <p class="summary">{ a.summary.get(p.lang) }</p>
                { for paragraphs }
                <Legend algorithm={a} lang={p.lang} />
                <p class="citation">{ tr(p.lang, k::UI_ORIGINAL_WORK) }<cite lang="en">{ a.citation }</cite></p>
                <button onclick={p.on.reform(|_| Action::ToggleCard)}>{ tr(p.lang, k::UI_CLOSE) }</button>
            </div>
        </div>
    }
}
