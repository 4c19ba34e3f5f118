//! The cluster canvas: one engine frame drawn as an SVG, with gestures reported as callbacks.
//!
//! Everything it draws comes from its props (a frame, node positions, partition lines, drawing
//! options); everything it knows of the outside are its callbacks and its [`Dots`] handle. It
//! holds no global state and its element ids carry its `lane`, so two canvases can share a page.

use super::canvas_parts::{self as parts, NodeGesture};
use super::fmt;
use super::labels::{self, Sizes};
use crate::anim::{DotPath, Dots};
use crate::geometry::{self, Line, Pt};
use crate::i18n::tr;
use crate::state::DropMark;
use election_lab::meta::k;
use election_lab::{layout, Action as Intervention, Frame};
use std::cell::RefCell;
use std::collections::BTreeMap;
use std::rc::Rc;
use wasm_bindgen::JsCast;
use web_sys::Element;
use yew::prelude::*;

/// How the canvas draws, besides the frame.
#[derive(Clone, Debug, PartialEq)]
pub struct DrawOptions {
    /// The running algorithm's descriptor: colours, labels and looks come from it.
    pub algorithm: &'static election_lab::Algorithm,
    /// Draw the ring's edges with their direction.
    pub ring: bool,
    /// The ring is bidirectional: its edges point both ways.
    pub two_way: bool,
    pub lang: crate::i18n::Lang,
    /// The algorithm's name, for the accessible label.
    pub title: AttrValue,
    pub selected: Option<u32>,
    /// The node whose action menu is open.
    pub menu: Option<u32>,
    /// Playing: dots follow the animation clock of the [`Dots`] handle after each render.
    pub animate: bool,
    /// Changing this drops a gesture in progress (Escape).
    pub cancel: u32,
    /// A small canvas (a compare lane): texts start a size up, and a message dot is no drop
    /// button (drops are for one run).
    pub bare: bool,
    /// Nodes chosen for one side of a keyboard partition (drawn with a dashed ring).
    pub chosen: Rc<Vec<u32>>,
    /// The presenter view: the canvas is drawn again (and measured) when it is entered or left.
    pub present: bool,
    /// The links of the scenario's network graph (node positions in scenario order), drawn under
    /// the nodes; empty when the scenario gives no `topology`.
    pub links: Rc<Vec<(u32, u32)>>,
}

impl Default for DrawOptions {
    fn default() -> Self {
        DrawOptions {
            algorithm: election_lab::registry::all()[0],
            ring: false,
            two_way: false,
            lang: crate::i18n::Lang::En,
            title: AttrValue::default(),
            selected: None,
            menu: None,
            animate: false,
            cancel: 0,
            present: false,
            bare: false,
            chosen: Rc::new(Vec::new()),
            links: Rc::new(Vec::new()),
        }
    }
}

#[derive(Properties, PartialEq)]
pub struct CanvasProps {
    /// Names this canvas on the page: its element ids are prefixed with it. Unique per page.
    pub lane: AttrValue,
    pub frame: Rc<Frame>,
    /// Node positions in scenario order (the frame's node order), in viewBox units.
    pub positions: Rc<Vec<Pt>>,
    #[prop_or_default]
    pub lines: Rc<Vec<Line>>,
    /// Messages dropped during this tick (drawn fading where they were lost).
    #[prop_or_default]
    pub drops: Rc<Vec<DropMark>>,
    #[prop_or_default]
    pub options: DrawOptions,
    #[prop_or_default]
    pub dots: Dots,
    /// A click, key or menu gesture on a node.
    #[prop_or_default]
    pub on_node: Callback<NodeGesture>,
    /// An intervention chosen from the node menu (or S on a node).
    #[prop_or_default]
    pub on_act: Callback<Intervention>,
    #[prop_or_default]
    pub on_close_menu: Callback<()>,
    /// The partition lines after a draw, move or removal.
    #[prop_or_default]
    pub on_lines: Callback<Vec<Line>>,
    /// Hover, focus or a long press on a node: show it in the inspector (the run is unchanged).
    #[prop_or_default]
    pub on_peek: Callback<u32>,
}

#[derive(Clone, Copy, PartialEq, Debug)]
enum Drag {
    /// Drawing a new line from its first point.
    Draw { from: Pt, to: Pt },
    /// Moving line `i`; `grab` is where the pointer took it.
    Move { i: usize, grab: Pt, now: Pt },
}

/// Above this many messages in flight, dots are drawn without edges and labels.
const DENSE: usize = 150;

/// How long a touch must rest on a node to open its menu instead of crashing it.
const LONG_PRESS_MS: u32 = 500;

/// ViewBox units per CSS pixel of the drawn square (the SVG keeps its aspect ratio, so the
/// square is the smaller side of its box).
fn units_per_px(svg: &NodeRef) -> Option<f64> {
    let r = svg.cast::<Element>()?.get_bounding_client_rect();
    let side = r.width().min(r.height());
    (side > 1.0).then(|| geometry::BOX / side)
}

/// The smallest text on screen the page asks of this canvas, in CSS pixels: the SVG's own font
/// size, which the style sheet sizes from the frame in an embed and in the presenter view.
fn min_text_px(svg: &NodeRef) -> f64 {
    let el = svg.cast::<Element>();
    let size = el.and_then(|e| web_sys::window()?.get_computed_style(&e).ok().flatten());
    let px = size.and_then(|s| s.get_property_value("font-size").ok()).map(|v| js_sys::Number::parse_float(&v));
    px.filter(|p| p.is_finite() && *p > 0.0).unwrap_or(labels::MIN_TEXT_PX)
}

/// The drawing's scale and its smallest text, as measured now.
fn measure(svg: &NodeRef) -> Option<(f64, f64)> {
    units_per_px(svg).map(|u| (u, min_text_px(svg)))
}

/// Converts a pointer event to viewBox coordinates.
fn svg_point(svg: &NodeRef, e: &PointerEvent) -> Option<Pt> {
    let r = svg.cast::<Element>()?.get_bounding_client_rect();
    let scale = r.width().min(r.height()) / geometry::BOX;
    if scale <= 0.0 {
        return None;
    }
    let ox = r.left() + (r.width() - geometry::BOX * scale) / 2.0;
    let oy = r.top() + (r.height() - geometry::BOX * scale) / 2.0;
    Some(((e.client_x() as f64 - ox) / scale, (e.client_y() as f64 - oy) / scale))
}

fn capture(e: &PointerEvent) {
    if let Some(t) = e.target().and_then(|t| t.dyn_into::<Element>().ok()) {
        let _ = t.set_pointer_capture(e.pointer_id());
    }
}

fn shifted(l: &Line, grab: Pt, now: Pt) -> Line {
    let (dx, dy) = ((now.0 - grab.0) as i32, (now.1 - grab.1) as i32);
    [l[0] + dx, l[1] + dy, l[2] + dx, l[3] + dy]
}

#[function_component]
pub fn Canvas(props: &CanvasProps) -> Html {
    crate::probe::rendered("canvas");
    let svg = use_node_ref();
    let dots_ref = use_node_ref();
    let labels_ref = use_node_ref();
    let drag: Rc<RefCell<Option<Drag>>> = use_mut_ref(|| None);
    let redraw = use_force_update();
    let wrap = use_node_ref();
    // The drawing's scale on screen, measured after each render and on resize: text, dots and
    // targets are sized from it so that they keep a minimum size in screen pixels.
    // Measured once on screen (below); drawn first at the first frame's scale, if the page showed one.
    let unit = use_state_eq(|| (crate::effects::first_unit(), labels::MIN_TEXT_PX));
    {
        let (svg, unit) = (svg.clone(), unit.clone());
        use_effect(move || {
            if let Some((u, t)) = measure(&svg) {
                if (u - unit.0).abs() > unit.0 * 0.02 || (t - unit.1).abs() > 0.25 {
                    unit.set((u, t));
                }
            }
        });
    }
    {
        let (svg, unit) = (svg.clone(), unit.clone());
        use_effect_with((), move |_| {
            let listener = wasm_bindgen::closure::Closure::<dyn FnMut()>::new(move || {
                if let Some(m) = measure(&svg) {
                    unit.set(m);
                }
            });
            let window = web_sys::window().expect("window");
            let _ = window.add_event_listener_with_callback("resize", listener.as_ref().unchecked_ref());
            move || {
                let _ = window.remove_event_listener_with_callback("resize", listener.as_ref().unchecked_ref());
            }
        });
    }
    {
        // An opened menu takes the focus, so that the keyboard can go through it.
        let wrap = wrap.clone();
        use_effect_with(props.options.menu, move |menu| {
            if menu.is_some() {
                if let Some(first) = wrap
                    .cast::<Element>()
                    .and_then(|w| w.query_selector(".node-menu button:not([disabled])").ok().flatten())
                {
                    let _ = first.unchecked_into::<web_sys::HtmlElement>().focus();
                }
            }
        });
    }
    // A touch resting on a node: after LONG_PRESS_MS its menu opens (and the tap is not a crash).
    let long_pressed = use_mut_ref(|| Rc::new(std::cell::Cell::new(false)));
    let press: Rc<RefCell<Option<gloo_timers::callback::Timeout>>> = use_mut_ref(|| None);
    let node_callbacks = {
        let long = long_pressed.borrow().clone();
        let (press_down, press_up) = (press.clone(), press.clone());
        let (on_node, on_peek) = (props.on_node.clone(), props.on_peek.clone());
        let long_set = long.clone();
        parts::NodeCallbacks {
            on_node: props.on_node.clone(),
            on_act: props.on_act.clone(),
            on_peek: props.on_peek.clone(),
            on_press: Callback::from(move |(id, _e): (u32, PointerEvent)| {
                let (on_node, on_peek, long) = (on_node.clone(), on_peek.clone(), long_set.clone());
                let t = gloo_timers::callback::Timeout::new(LONG_PRESS_MS, move || {
                    if !long.replace(true) {
                        on_peek.emit(id);
                        on_node.emit(NodeGesture::Menu(id));
                    }
                });
                *press_down.borrow_mut() = Some(t);
            }),
            on_release: Callback::from(move |_| {
                if let Some(t) = press_up.borrow_mut().take() {
                    t.cancel();
                }
            }),
            long_pressed: long,
        }
    };
    {
        let drag = drag.clone();
        let redraw = redraw.clone();
        use_effect_with(props.options.cancel, move |_| {
            if drag.borrow_mut().take().is_some() {
                redraw.force_update();
            }
        });
    }

    {
        // Unmounted (a lane closed), the loop must not move this canvas's dots any more.
        let handle = props.dots.clone();
        use_effect_with((), move |_| move || handle.bind(Vec::new()));
    }

    let frame = &props.frame;
    let alg = props.options.algorithm;
    // Above 24 nodes (8 in a small compare lane) the per-node labels are shown on selection only.
    let detail = frame.nodes.len() <= if props.options.bare { 8 } else { 24 };
    let pos = &props.positions;
    let n = frame.nodes.len().min(pos.len());
    let sz = Sizes::new(unit.0, layout::node_radius(frame.nodes.len()), props.options.bare, unit.1);
    let r = sz.node_r;
    let mut lines: Vec<Line> = (*props.lines).clone();
    let current = *drag.borrow();
    if let Some(Drag::Move { i, grab, now }) = current {
        if let Some(l) = lines.get_mut(i) {
            *l = shifted(l, grab, now);
        }
    }
    // Filled by inserts: collecting into a BTreeMap compiles a sort of its own into the page.
    let mut index: BTreeMap<u32, usize> = BTreeMap::new();
    for (i, nd) in frame.nodes.iter().take(n).enumerate() {
        index.insert(nd.id, i);
    }
    let arrow_id = format!("{}-arrow", props.lane);

    // Dots: drawn at the frame's time; their paths go to the Dots handle after the render.
    let dense = frame.messages.len() > DENSE;
    // Playing, the dots are drawn where the animation clock has them (not at the frame's tick),
    // so the loop does not have to move every one of them again after this render. Paused, a
    // step's picture is the moment just after it: half a tick on, so a message sent this tick
    // sits on its edge instead of on its sender.
    let now = props.dots.clock().filter(|_| props.options.animate).unwrap_or(frame.time as f64 + 0.5);
    let mut paths: Vec<DotPath> = Vec::with_capacity(frame.messages.len());
    let mut drawn: Vec<(&election_lab::MsgFrame, Pt)> = Vec::with_capacity(frame.messages.len());
    for m in &frame.messages {
        let (Some(&fi), Some(&ti)) = (index.get(&m.from), index.get(&m.to)) else { continue };
        let (a, b) = parts::lane(parts::edge(pos[fi], pos[ti], r));
        // A doomed message never reaches its destination: it travels to where it dies.
        let b = m.doom.map_or(b, |d| parts::doom_end(d, a, b, &lines));
        let path = DotPath { a, b, sent: m.sent as f64, deliver: m.deliver as f64 };
        paths.push(path);
        drawn.push((m, path.at(now)));
    }

    // Labels: first each node's (clear of every disc), then the dots' (clear of nodes, dots and
    // the node labels), folding those that would pile up into a count.
    let dot_texts: Vec<String> = drawn.iter().map(|(m, _)| parts::dot_label(alg, m)).collect();
    let dot_at: Vec<Pt> = drawn.iter().map(|d| d.1).collect();
    let selected = props.options.selected;
    // The store's box and the lease bars are drawn over the plane: no label goes under them.
    let mut keep_clear = super::lease_bars::areas(frame, &pos[..n], r);
    keep_clear.extend(super::store::area(frame, &pos[..n], sz.u));
    let (placed, _) = labels::layout(
        alg,
        props.options.lang,
        frame,
        &pos[..n],
        &sz,
        &|node| detail || selected == Some(node.id),
        &dot_at,
        &dot_texts,
        !dense,
        &keep_clear,
    );
    let (places, placed_dots) = (placed.nodes, placed.dots);
    let mut label_paths: Vec<DotPath> = Vec::new();
    let mut dot_labels: Vec<Html> = Vec::new();
    let dots: Vec<Html> = drawn
        .iter()
        .enumerate()
        .map(|(k, (m, at))| {
            let (label, head) = placed_dots.get(k).map_or((None, k), |(l, h)| (l.as_ref(), *h));
            let folded = if head != k {
                let h = drawn[head].0;
                format!(" — {} #{}", tr(props.options.lang, k::UI_COUNTED_IN_THE_LABEL_OF), h.id)
            } else {
                let members: Vec<String> = placed_dots
                    .iter()
                    .enumerate()
                    .filter(|(j, (_, h))| *h == k && *j != k)
                    .map(|(j, _)| {
                        format!("#{} {} N{} → N{}", drawn[j].0.id, drawn[j].0.label, drawn[j].0.from, drawn[j].0.to)
                    })
                    .collect();
                if members.is_empty() {
                    String::new()
                } else {
                    format!("\n+ {}", members.join("\n+ "))
                }
            };
            if let Some(l) = label {
                label_paths.push(paths[k]);
                dot_labels.push(parts::dot_label_text(m, *at, l, &sz));
            }
            parts::dot(alg, m, *at, dense, !props.options.bare, &folded, &sz, &props.on_act, props.options.lang)
        })
        .collect();
    {
        // The dots and their labels move along the same paths.
        let (dots_ref, labels_ref) = (dots_ref.clone(), labels_ref.clone());
        let handle = props.dots.clone();
        use_effect(move || {
            let mut bound = Vec::with_capacity(paths.len() + label_paths.len());
            for (group, paths) in [(dots_ref, paths), (labels_ref, label_paths)] {
                if let Some(group) = group.cast::<Element>() {
                    let children = group.children();
                    for (k, path) in paths.into_iter().enumerate() {
                        let Some(el) = children.item(k as u32) else { break };
                        bound.push((el, path));
                    }
                }
            }
            handle.bind(bound);
        });
    }

    let on_line_down = {
        let (svg, drag) = (svg.clone(), drag.clone());
        Callback::from(move |(i, e): (usize, PointerEvent)| {
            e.stop_propagation();
            if let Some(p) = svg_point(&svg, &e) {
                *drag.borrow_mut() = Some(Drag::Move { i, grab: p, now: p });
                capture(&e);
            }
        })
    };
    let on_remove_line = {
        let (lines, on_lines) = (props.lines.clone(), props.on_lines.clone());
        Callback::from(move |i: usize| {
            if i < lines.len() {
                let mut next = (*lines).clone();
                next.remove(i);
                on_lines.emit(next);
            }
        })
    };
    let onpointerdown = {
        let (svg, drag, redraw) = (svg.clone(), drag.clone(), redraw.clone());
        let (menu_open, close) = (props.options.menu.is_some(), props.on_close_menu.clone());
        Callback::from(move |e: PointerEvent| {
            if e.button() != 0 {
                return;
            }
            if menu_open {
                close.emit(());
            }
            let on_backdrop = e
                .target()
                .and_then(|t| t.dyn_into::<Element>().ok())
                .is_some_and(|t| t.get_attribute("class").is_some_and(|c| c.contains("backdrop")));
            if let (true, Some(p)) = (on_backdrop, svg_point(&svg, &e)) {
                *drag.borrow_mut() = Some(Drag::Draw { from: p, to: p });
                capture(&e);
                redraw.force_update();
            }
        })
    };
    let onpointermove = {
        let (svg, drag, redraw) = (svg.clone(), drag.clone(), redraw.clone());
        Callback::from(move |e: PointerEvent| {
            let mut d = drag.borrow_mut();
            let Some(cur) = d.as_mut() else { return };
            let Some(p) = svg_point(&svg, &e) else { return };
            match cur {
                Drag::Draw { to, .. } => *to = p,
                Drag::Move { now, .. } => *now = p,
            }
            drop(d);
            redraw.force_update();
        })
    };
    let onpointerup = {
        let (lines, on_lines) = (props.lines.clone(), props.on_lines.clone());
        Callback::from(move |_: PointerEvent| {
            let Some(done) = drag.borrow_mut().take() else { return };
            match done {
                Drag::Draw { from, to } => {
                    let line = [from.0 as i32, from.1 as i32, to.0 as i32, to.1 as i32];
                    if geometry::is_usable(&line) {
                        let mut next = (*lines).clone();
                        next.push(line);
                        on_lines.emit(next);
                    }
                }
                Drag::Move { i, grab, now } => {
                    let moved = (now.0 - grab.0) as i32 != 0 || (now.1 - grab.1) as i32 != 0;
                    match lines.get(i) {
                        Some(l) if moved => {
                            let mut next = (*lines).clone();
                            next[i] = shifted(l, grab, now);
                            on_lines.emit(next);
                        }
                        _ => {}
                    }
                }
            }
            redraw.force_update();
        })
    };

    let preview = match current {
        Some(Drag::Draw { from, to }) => html! {
            <line class="cut-preview" x1={fmt(from.0)} y1={fmt(from.1)} x2={fmt(to.0)} y2={fmt(to.1)} />
        },
        _ => html! {},
    };
    let menu = props.options.menu.and_then(|id| {
        let i = *index.get(&id)?;
        let chosen = props.options.chosen.contains(&id);
        Some(parts::node_menu(
            &frame.nodes[i],
            pos[i],
            r,
            props.options.lang,
            chosen,
            &props.on_act,
            &props.on_node,
            &props.on_close_menu,
        ))
    });
    let ring_edges = if props.options.ring && n > 1 {
        parts::ring_edges(&pos[..n], r, &arrow_id, props.options.two_way)
    } else {
        vec![]
    };
    let nodes = frame.nodes.iter().take(n).enumerate().map(|(i, node)| {
        parts::node(
            alg,
            props.options.lang,
            node,
            pos[i],
            &sz,
            places[i],
            props.options.selected == Some(node.id),
            props.options.chosen.contains(&node.id),
            &node_callbacks,
        )
    });
    let ghosts = props.drops.iter().filter_map(|&(from, to, kind, why)| {
        let (fi, ti) = (*index.get(&from)?, *index.get(&to)?);
        let (a, b) = parts::lane(parts::edge(pos[fi], pos[ti], r));
        // Where the doomed dot stopped: at the line, short of a crashed node, or most of the way.
        let at = why.map_or_else(|| crate::anim::lerp(a, b, 0.85), |d| parts::doom_end(d, a, b, &lines));
        Some(parts::ghost(alg, kind, at, &sz))
    });
    let edges = frame.messages.iter().filter(|_| !dense || props.options.bare).filter_map(|m| {
        let (fi, ti) = (*index.get(&m.from)?, *index.get(&m.to)?);
        let (a, b) = parts::lane(parts::edge(pos[fi], pos[ti], r));
        Some(match m.doom {
            None => parts::msg_edge(alg, m.kind, (a, b), &arrow_id),
            Some(d) => parts::doomed_edge(alg, m, (a, parts::doom_end(d, a, b, &lines)), props.options.lang),
        })
    });

    let label = election_lab::meta::k::UI_CANVAS_LABEL
        .format(props.options.lang, &[&props.options.title, &frame.nodes.len(), &frame.step]);
    html! {
        <div class="canvas-wrap" ref={wrap}>
            { for menu }
            <svg ref={svg} class="canvas" data-lane={props.lane.clone()} viewBox="0 0 1000 1000" preserveAspectRatio="xMidYMid meet"
                 role="group" aria-label={label} style={format!("--u:{:.3}", sz.u)}
                 {onpointerdown} {onpointermove} {onpointerup}>
                <defs>
                    <marker id={arrow_id.clone()} viewBox="0 0 10 10" refX="9" refY="5" markerWidth="7" markerHeight="7" orient="auto-start-reverse">
                        <path d="M 0 0 L 10 5 L 0 10 z" class="arrow-head" />
                    </marker>
                </defs>
                <rect class="backdrop" x="-1500" y="-1500" width="4000" height="4000" />
                { for parts::regions(&lines, &pos[..n]) }
                { for parts::halos(frame, &pos[..n], r, lines.is_empty()) }
                { for parts::group_hulls(frame, &pos[..n], r) }
                { for parts::reach_arcs(frame, &pos[..n]) }
                { super::hash_ring::draw(frame, props.options.lang) }
                { for parts::graph_links(frame, &props.options.links, &pos[..n], r, &arrow_id) }
                { for ring_edges }
                { for edges }
                { for parts::vote_arrows(alg, frame, &pos[..n], r, &arrow_id) }
                { for parts::cut_lines(&lines, &sz, props.options.lang, &on_line_down, &on_remove_line) }
                { super::store::store(frame, &index, &pos[..n], r, sz.u, props.options.lang) }
                { for nodes }
                { for super::lease_bars::bars(frame, &pos[..n], r, props.options.lang) }
                <g ref={dots_ref} class="dots">{ for dots }</g>
                <g ref={labels_ref} class="dot-labels" aria-hidden="true">{ for dot_labels }</g>
                { for ghosts }
                { preview }
                { if frame.nodes.is_empty() { html!{ <text x="500" y="500" text-anchor="middle">{ tr(props.options.lang, k::UI_NO_NODES) }</text> } } else { html!{} } }
            </svg>
        </div>
    }
}
