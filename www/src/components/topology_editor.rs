//! The network editor (workbench only): the canvas in *edit network* mode. Nodes are added by a
//! click (or tap) on empty space, linked by a drag from node to node, moved by a drag to empty
//! space, chosen by a click and removed (the Remove button, Delete, or a long press on touch);
//! every key path has its key (see `topo.help_keys`). Each edit the algorithm accepts is run at
//! once (the scenario's `topology` as explicit links and positions, so links and exports carry
//! it); one it refuses is named and kept drawn. The draft and its history live in
//! `state/topo_edit.rs` and survive closing the editor. Styles are inline so that the player's
//! stylesheet does not grow.

use crate::geometry::Pt;
use crate::i18n::{tr, Lang};
use crate::state::topo_edit::{refusal_text, Chosen, Draft, Edit, NUDGE};
use crate::state::Action;
use election_lab::meta::k;
use election_lab::{NodeId, Scenario};
use std::cell::RefCell;
use std::rc::Rc;
use wasm_bindgen::JsCast;
use web_sys::{Element, KeyboardEvent, PointerEvent};
use yew::prelude::*;

thread_local! {
    /// The draft between openings of the editor (its history included).
    static KEPT: RefCell<Draft> = RefCell::new(Draft::default());
}

/// A press held this long (ms) without moving, by touch or pen, removes what it is on.
const LONG_PRESS: f64 = 550.0;
/// A pointer that moves less than this (canvas units) is a click, not a drag.
const SLOP: f64 = 10.0;

#[derive(Properties, PartialEq)]
pub struct TopologyEditorProps {
    pub scenario: Rc<Scenario>,
    /// Where the canvas drew the nodes (scenario order).
    pub positions: Rc<Vec<Pt>>,
    pub lang: Lang,
    pub touch: bool,
    pub on: Callback<Action>,
    pub on_close: Callback<()>,
}

/// A press in progress: on a node, a link or empty space, where and when it began.
#[derive(Clone, Copy)]
struct Press {
    node: Option<NodeId>,
    link: Option<(NodeId, NodeId)>,
    at: Pt,
    t0: f64,
    mouse: bool,
    moved: bool,
}

fn dist(a: Pt, b: Pt) -> f64 {
    ((a.0 - b.0).powi(2) + (a.1 - b.1).powi(2)).sqrt()
}

fn pt(p: [i32; 2]) -> Pt {
    (p[0] as f64, p[1] as f64)
}

/// Distance from `p` to the segment `a`–`b`.
fn to_segment(p: Pt, a: Pt, b: Pt) -> f64 {
    let (dx, dy) = (b.0 - a.0, b.1 - a.1);
    let len = dx * dx + dy * dy;
    let t = if len == 0.0 { 0.0 } else { (((p.0 - a.0) * dx + (p.1 - a.1) * dy) / len).clamp(0.0, 1.0) };
    dist(p, (a.0 + t * dx, a.1 + t * dy))
}

/// The pointer's place in the 1000 × 1000 box of the drawing.
fn box_point(svg: &NodeRef, e: &PointerEvent) -> Option<Pt> {
    let r = svg.cast::<Element>()?.get_bounding_client_rect();
    let scale = r.width().min(r.height()) / 1000.0;
    if scale <= 0.0 {
        return None;
    }
    let ox = r.left() + (r.width() - 1000.0 * scale) / 2.0;
    let oy = r.top() + (r.height() - 1000.0 * scale) / 2.0;
    Some(((e.client_x() as f64 - ox) / scale, (e.client_y() as f64 - oy) / scale))
}

fn node_at(d: &Draft, p: Pt, r: f64, except: Option<NodeId>) -> Option<NodeId> {
    let near = d.now.nodes.iter().zip(&d.now.pos).filter(|(&id, _)| Some(id) != except);
    near.filter(|(_, &q)| dist(p, pt(q)) <= r + 8.0).map(|(&id, _)| id).next()
}

fn link_at(d: &Draft, p: Pt) -> Option<(NodeId, NodeId)> {
    let s = &d.now;
    s.links.iter().copied().find(|&(a, b)| match (s.place(a), s.place(b)) {
        (Some(x), Some(y)) => to_segment(p, pt(x), pt(y)) <= 14.0,
        _ => false,
    })
}

fn chosen_selector(c: Chosen) -> String {
    match c {
        Chosen::Node(id) => format!("[data-edit-node=\"{id}\"]"),
        Chosen::Link(a, b) => format!("[data-edit-link=\"{a}-{b}\"]"),
    }
}

#[function_component]
pub fn TopologyEditor(p: &TopologyEditorProps) -> Html {
    let draft = use_reducer(|| KEPT.with(|d| d.borrow().clone()));
    let svg = use_node_ref();
    let press = use_mut_ref(|| None::<Press>);
    let preview = use_state_eq(|| None::<(NodeId, (i64, i64))>);
    let lang = p.lang;
    {
        // Opening: the draft of this scenario (kept, with its history, if it gave it).
        let (d, scenario, positions) = (draft.dispatcher(), p.scenario.clone(), p.positions.clone());
        use_effect_with((), move |_| {
            let pos = positions.iter().map(|&(x, y)| [x.round() as i32, y.round() as i32]).collect();
            d.dispatch(Edit::Open(scenario, pos));
        });
    }
    {
        // Each change kept; each change of the graph the algorithm accepts is run.
        let (on, scenario) = (p.on.clone(), p.scenario.clone());
        let applied = use_mut_ref(|| draft.rev);
        use_effect_with((draft.clone(), scenario), move |(d, scenario)| {
            KEPT.with(|k| *k.borrow_mut() = (**d).clone());
            if *applied.borrow() != d.rev && d.base.is_some() {
                *applied.borrow_mut() = d.rev;
                if let Some(Ok(s)) = d.result() {
                    if s != **scenario {
                        on.emit(Action::ApplyScenario(Ok(s)));
                    }
                }
            }
        });
    }
    {
        // Keys keep the focus on what they chose (a node added, the drawing after a removal).
        let (chosen, svg) = (draft.chosen, svg.clone());
        use_effect_with((chosen, draft.rev), move |(chosen, _)| {
            let Some(root) = svg.cast::<Element>() else { return };
            let doc = web_sys::window().and_then(|w| w.document());
            let active = doc.as_ref().and_then(|d| d.active_element());
            let lost =
                active.as_ref().is_none_or(|a| a.tag_name().eq_ignore_ascii_case("body") || root.contains(Some(a)));
            if !lost {
                return;
            }
            let target = chosen.and_then(|c| root.query_selector(&chosen_selector(c)).ok().flatten());
            if let Some(el) = target.or(Some(root)).and_then(|e| e.dyn_into::<web_sys::SvgElement>().ok()) {
                let _ = el.focus();
            }
        });
    }
    let n = draft.now.nodes.len();
    let r = election_lab::layout::node_radius(n).clamp(16.0, 42.0);

    let onpointerdown = {
        let (d, svg, press) = (draft.clone(), svg.clone(), press.clone());
        Callback::from(move |e: PointerEvent| {
            let Some(at) = box_point(&svg, &e) else { return };
            if e.button() > 0 {
                return;
            }
            e.prevent_default();
            if let Some(el) = svg.cast::<Element>() {
                let _ = el.set_pointer_capture(e.pointer_id());
                if let Ok(h) = el.clone().dyn_into::<web_sys::SvgElement>() {
                    let _ = h.focus();
                }
            }
            let node = node_at(&d, at, r, None);
            let link = node.is_none().then(|| link_at(&d, at)).flatten();
            let mouse = e.pointer_type() == "mouse";
            *press.borrow_mut() = Some(Press { node, link, at, t0: e.time_stamp(), mouse, moved: false });
        })
    };
    let onpointermove = {
        let (svg, press, preview) = (svg.clone(), press.clone(), preview.clone());
        Callback::from(move |e: PointerEvent| {
            let mut held = press.borrow_mut();
            let (Some(pr), Some(at)) = (held.as_mut(), box_point(&svg, &e)) else { return };
            pr.moved |= dist(at, pr.at) > SLOP;
            if let (Some(a), true) = (pr.node, pr.moved) {
                preview.set(Some((a, (at.0 as i64, at.1 as i64))));
            }
        })
    };
    let onpointerup = {
        let (d, svg, press, preview) = (draft.clone(), svg.clone(), press.clone(), preview.clone());
        Callback::from(move |e: PointerEvent| {
            preview.set(None);
            let (Some(pr), Some(at)) = (press.borrow_mut().take(), box_point(&svg, &e)) else { return };
            let long = !pr.mouse && !pr.moved && e.time_stamp() - pr.t0 >= LONG_PRESS;
            let whole = |p: Pt| [p.0.round() as i32, p.1.round() as i32];
            let edit = match (pr.node, pr.link) {
                (Some(a), _) if pr.moved => match node_at(&d, at, r, Some(a)) {
                    Some(b) => Edit::Link(a, b),
                    None => Edit::Move(a, whole(at)),
                },
                (Some(a), _) if long => Edit::RemoveNode(a),
                (Some(a), _) => Edit::Pick(a),
                (None, Some((a, b))) if long => Edit::RemoveLink(a, b),
                (None, Some((a, b))) => Edit::Choose(Some(Chosen::Link(a, b))),
                (None, None) if !pr.moved => Edit::Add(Some(whole(at))),
                (None, None) => return,
            };
            d.dispatch(edit);
        })
    };
    let onpointercancel = {
        let (press, preview) = (press.clone(), preview.clone());
        Callback::from(move |_: PointerEvent| {
            press.borrow_mut().take();
            preview.set(None);
        })
    };
    let onkeydown = {
        let (d, on_close) = (draft.clone(), p.on_close.clone());
        Callback::from(move |e: KeyboardEvent| {
            let target = e.target().and_then(|t| t.dyn_into::<Element>().ok());
            let on_button = target.as_ref().is_some_and(|t| t.tag_name().eq_ignore_ascii_case("button"));
            let key = e.key();
            let step = if e.shift_key() { 4 * NUDGE } else { NUDGE };
            let edit = match key.as_str() {
                "z" | "Z" if e.ctrl_key() || e.meta_key() => Some(if e.shift_key() { Edit::Redo } else { Edit::Undo }),
                "y" | "Y" if e.ctrl_key() || e.meta_key() => Some(Edit::Redo),
                _ if e.ctrl_key() || e.meta_key() || e.alt_key() => return,
                "Enter" | " " if on_button => return,
                "Enter" | " " => {
                    let attr = |name: &str| target.as_ref().and_then(|t| t.get_attribute(name));
                    let node = attr("data-edit-node").and_then(|v| v.parse().ok());
                    let link = attr("data-edit-link").and_then(|v| {
                        let (a, b) = v.split_once('-')?;
                        Some(Chosen::Link(a.parse().ok()?, b.parse().ok()?))
                    });
                    node.map(Edit::Pick).or(link.map(|l| Edit::Choose(Some(l))))
                }
                "a" | "A" => Some(Edit::Add(None)),
                "l" | "L" => Some(Edit::StartLink),
                "Delete" | "Backspace" => Some(Edit::Remove),
                "ArrowLeft" => Some(Edit::Nudge(-step, 0)),
                "ArrowRight" => Some(Edit::Nudge(step, 0)),
                "ArrowUp" => Some(Edit::Nudge(0, -step)),
                "ArrowDown" => Some(Edit::Nudge(0, step)),
                "Escape" if d.linking.is_none() && d.chosen.is_none() => {
                    e.stop_propagation();
                    on_close.emit(());
                    return;
                }
                "Escape" => Some(Edit::Cancel),
                "Tab" => return,
                _ => None,
            };
            // The run's own keys (Space plays, arrows step, L switches language) wait outside.
            e.stop_propagation();
            if let Some(edit) = edit {
                e.prevent_default();
                d.dispatch(edit);
            }
        })
    };

    let s = &draft.now;
    let chosen = draft.chosen;
    let ink = "var(--ink)";
    let links = s.links.iter().filter_map(|&(a, b)| {
        let (x, y) = (pt(s.place(a)?), pt(s.place(b)?));
        let on = chosen == Some(Chosen::Link(a, b));
        let label = k::TOPO_LINK_LABEL.format(lang, &[&a, &b]);
        let focus = {
            let d = draft.dispatcher();
            Callback::from(move |_: FocusEvent| d.dispatch(Edit::Choose(Some(Chosen::Link(a, b)))))
        };
        Some(html! {
            <g key={format!("l{a}-{b}")} role="button" tabindex="0" aria-label={label} aria-pressed={on.to_string()} data-edit-link={format!("{a}-{b}")} onfocus={focus}>
                <line x1={x.0.to_string()} y1={x.1.to_string()} x2={y.0.to_string()} y2={y.1.to_string()} stroke="transparent" stroke-width="28" />
                <line x1={x.0.to_string()} y1={x.1.to_string()} x2={y.0.to_string()} y2={y.1.to_string()}
                    style={format!("stroke: {}", if on { "var(--focus)" } else { "var(--muted)" })} stroke-width={if on { "9" } else { "4" }} />
            </g>
        })
    });
    let degree = |id: NodeId| s.links.iter().filter(|&&(a, b)| a == id || b == id).count();
    let nodes = s.nodes.iter().zip(&s.pos).map(|(&id, &q)| {
        let on = chosen == Some(Chosen::Node(id));
        let from = draft.linking == Some(id);
        let label = k::TOPO_NODE_LABEL.format(lang, &[&id, &degree(id)]);
        let focus = {
            let d = draft.dispatcher();
            Callback::from(move |_: FocusEvent| d.dispatch(Edit::Choose(Some(Chosen::Node(id)))))
        };
        let stroke = if on || from { "var(--focus)" } else { ink };
        html! {
            <g key={format!("n{id}")} role="button" tabindex="0" aria-label={label} aria-pressed={on.to_string()} data-edit-node={id.to_string()}
               data-x={q[0].to_string()} data-y={q[1].to_string()} onfocus={focus}>
                <circle cx={q[0].to_string()} cy={q[1].to_string()} r={r.to_string()} style={format!("fill: var(--node); stroke: {stroke}")}
                    stroke-width={if on || from { "8" } else { "3" }} stroke-dasharray={if from { "10 6" } else { "" }} />
            </g>
        }
    });
    // The ids, outside the buttons (whose names say them), so that no text is read twice.
    let ids = s.nodes.iter().zip(&s.pos).map(|(&id, &q)| {
        html! {
            <text key={format!("t{id}")} x={q[0].to_string()} y={q[1].to_string()} text-anchor="middle" dominant-baseline="central"
                style={format!("fill: var(--node-ink); font-size: {:.0}px; pointer-events: none", (r * 0.9).max(18.0))}>{ id }</text>
        }
    });
    let drawing = preview.and_then(|(a, (x, y))| {
        let from = pt(s.place(a)?);
        Some(html! { <line x1={from.0.to_string()} y1={from.1.to_string()} x2={x.to_string()} y2={y.to_string()}
        style="stroke: var(--focus)" stroke-width="4" stroke-dasharray="12 8" pointer-events="none" /> })
    });
    let algorithm = crate::meta::algorithm_of(&p.scenario).title.get(lang);
    let refusal = match draft.result() {
        Some(Err(why)) => Some(refusal_text(&why, algorithm, lang)),
        _ => None,
    };
    let status = match draft.linking {
        Some(from) => k::TOPO_LINKING.format(lang, &[&from]),
        None => k::TOPO_STATUS.format(lang, &[&n, &s.links.len()]),
    };
    let button = |text: &str, testid: &'static str, enabled: bool, edit: Edit| {
        let d = draft.dispatcher();
        html! { <button data-testid={testid} disabled={!enabled} onclick={Callback::from(move |_: MouseEvent| d.dispatch(edit.clone()))}>{ text.to_string() }</button> }
    };
    let node_chosen = matches!(chosen, Some(Chosen::Node(_)));
    let close = p.on_close.reform(|_: MouseEvent| ());
    html! {
        <section class="topo-editor" aria-label={tr(lang, k::TOPO_TITLE)} data-testid="topo-editor" {onkeydown}>
            <div role="toolbar" aria-label={tr(lang, k::TOPO_TITLE)} style="display: flex; flex-wrap: wrap; gap: 6px; margin-bottom: 6px">
                { button(tr(lang, k::TOPO_ADD_NODE), "topo-add", n < crate::state::topo_edit::MAX_NODES, Edit::Add(None)) }
                { button(tr(lang, k::TOPO_LINK), "topo-link", node_chosen, Edit::StartLink) }
                { button(tr(lang, k::UI_REMOVE), "topo-remove", chosen.is_some(), Edit::Remove) }
                { button(tr(lang, k::TOPO_UNDO), "topo-undo", draft.can_undo(), Edit::Undo) }
                { button(tr(lang, k::TOPO_REDO), "topo-redo", draft.can_redo(), Edit::Redo) }
                <button data-testid="topo-done" onclick={close}>{ tr(lang, k::TOPO_DONE) }</button>
            </div>
            <svg ref={svg} class="canvas" viewBox="0 0 1000 1000" preserveAspectRatio="xMidYMid meet" tabindex="0" role="group"
                 aria-label={format!("{} — {}", tr(lang, k::TOPO_TITLE), status)} data-testid="topo-canvas"
                 style="border: 2px dashed var(--line); border-radius: 8px"
                 {onpointerdown} {onpointermove} {onpointerup} {onpointercancel}>
                { for links }
                { for drawing }
                { for nodes }
                <g aria-hidden="true">{ for ids }</g>
            </svg>
            <p role="status" data-testid="topo-status">{ status }</p>
            { for refusal.map(|t| html! { <p role="alert" data-testid="topo-refusal" style="color: var(--bad)">{ t }</p> }) }
            <p>{ tr(lang, if p.touch { k::TOPO_HELP_TOUCH } else { k::TOPO_HELP_MOUSE }) }</p>
            <p>{ tr(lang, k::TOPO_HELP_KEYS) }</p>
            <p style="color: var(--muted)">{ tr(lang, k::TOPO_LEGEND) }</p>
        </section>
    }
}
