//! The canvas's pieces: nodes, message dots and edges, partition lines and regions, the node menu.
//! Plain functions from data to markup; the canvas component wires them together.

use super::fmt;
use super::labels::{node_texts, DotLabel, Placed, Sizes};
use crate::geometry::{self, Line, Pt};
use crate::i18n::{tr, Lang};
use crate::meta::{kind_colour, kind_shape, kind_short, role_look};
use crate::palette::Shape;
use crate::palette::GROUP_FILLS;
use election_lab::meta::k;
use election_lab::meta::Look;
use election_lab::sim::DropReason;
use election_lab::{layout, Action as Intervention, Algorithm, Frame, MsgFrame, NodeFrame};
use wasm_bindgen::JsCast;
use yew::prelude::*;

/// What a gesture on a node asks for.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum NodeGesture {
    /// Click, Enter or Space: crash it if up, recover it if crashed.
    Toggle(u32),
    /// Right-click, Shift/Alt-click, M or a long press: its action menu.
    Menu(u32),
    /// P (or the menu): choose it for (or take it off) one side of a keyboard partition.
    Side(u32),
}

/// Pulls the endpoints back from the node centres so they start and end at the discs' rims.
pub fn edge(a: Pt, b: Pt, r: f64) -> (Pt, Pt) {
    let (dx, dy) = (b.0 - a.0, b.1 - a.1);
    let len = dx.hypot(dy);
    if len < 2.0 * r + 1.0 {
        return (a, b);
    }
    let (ux, uy) = (dx / len, dy / len);
    ((a.0 + ux * r, a.1 + uy * r), (b.0 - ux * r, b.1 - uy * r))
}

/// The edge `from → to` moved a little to its right, so that messages going opposite ways
/// between two nodes (a vote request and its answer) travel side by side instead of on top of
/// each other.
pub fn lane((a, b): (Pt, Pt)) -> (Pt, Pt) {
    let (dx, dy) = (b.0 - a.0, b.1 - a.1);
    let len = dx.hypot(dy);
    if len < 1.0 {
        return (a, b);
    }
    let (nx, ny) = (-dy / len * 7.0, dx / len * 7.0);
    ((a.0 + nx, a.1 + ny), (b.0 + nx, b.1 + ny))
}

/// A message in flight at `at`. With many messages in flight, dots are drawn bare (no label or
/// tooltip) so that painting stays within a frame. A click (or Enter/Space) on a dot that will
/// still arrive drops it, through `on_act`; a doomed dot is not a button, nor is any dot of a
/// canvas that is not `interactive` (a compare lane). Its shape is its kind's (a cue that
/// survives greyscale); its label was placed clear of nodes and other labels (`label`), and a
/// dot whose label was folded into another's names that dot in its tooltip (`folded_into`).
#[allow(clippy::too_many_arguments)]
pub fn dot(
    alg: &Algorithm,
    m: &MsgFrame,
    at: Pt,
    dense: bool,
    interactive: bool,
    folded: &str,
    sz: &Sizes,
    on_act: &Callback<Intervention>,
    lang: Lang,
) -> Html {
    let (x, y) = at;
    let id = m.id;
    let live = !m.doomed && interactive;
    let onclick = on_act.reform(move |_: MouseEvent| Intervention::Drop(id));
    let onkeydown = super::dropping::on_key(on_act, id);
    let aria = live.then(|| super::dropping::label(m, lang));
    let (shape, _) = kind_shape(alg, m.kind);
    let fill = kind_colour(alg, m.kind);
    let body = match shape {
        Shape::Circle => html! { <circle class="dot-shape" r={fmt(sz.dot_r)} fill={fill} /> },
        _ => html! { <path class="dot-shape" d={shape.path(sz.dot_r)} fill={fill} /> },
    };
    html! {
        <g key={m.id} class={classes!("dot", m.doomed.then_some("doomed"))} data-msg={m.kind} data-id={m.id.to_string()}
           data-shape={format!("{shape:?}").to_ascii_lowercase()}
           transform={format!("translate({x:.1} {y:.1})")}
           role={live.then_some("button")} tabindex={(live && !dense).then_some("0")} aria-label={aria}
           onclick={live.then_some(onclick)} onkeydown={live.then_some(onkeydown)}>
            { if dense { html!{} } else { html!{ <title>{ k::UI_DOT_TITLE.format(lang, &[&m.id, &m.label, &m.from, &m.to, &m.sent, &m.deliver, &folded]) }</title> } } }
            { if interactive { html!{ <circle class="dot-hit" r={fmt(sz.hit)} fill="transparent" /> } } else { html!{} } }
            { body }
        </g>
    }
}

/// A dot's label, placed by the layout at an offset from the dot and moved with it (the
/// animation moves it by the dot's path): in a layer of its own above the dots, outside the dot's
/// button, whose accessible name already says what the message is.
pub fn dot_label_text(m: &MsgFrame, (x, y): Pt, l: &DotLabel, sz: &Sizes) -> Html {
    html! {
        <text key={m.id} class={classes!("dot-label", (l.count > 1).then_some("folded"))} data-for={m.id.to_string()} data-count={l.count.to_string()}
              transform={format!("translate({x:.1} {y:.1})")} x={fmt(l.dx)} y={fmt(l.dy)} text-anchor={l.anchor.svg()}
              style={format!("font-size:{:.1}px", sz.dot_label)}>{ l.text.clone() }</text>
    }
}

/// The dot's label: the kind's short label, followed by the id the message carries when its
/// label starts with one (`ELECTION(32)` → `E32`), so a ring shows whose id is travelling.
pub fn dot_label(alg: &Algorithm, m: &MsgFrame) -> String {
    let short = kind_short(alg, m.kind);
    let digits: String = m
        .label
        .split_once('(')
        .map(|(_, rest)| rest.chars().take_while(char::is_ascii_digit).collect())
        .unwrap_or_default();
    format!("{short}{digits}")
}

/// A faint edge under a message in flight, dashed as its kind is (the dot's shape's partner).
/// It ends in an arrowhead, so a still frame shows who sends to whom.
pub fn msg_edge(alg: &Algorithm, kind: &str, (a, b): (Pt, Pt), arrow_id: &str) -> Html {
    let (_, dash) = kind_shape(alg, kind);
    html! { <line class="msg-edge" data-msg={kind.to_string()} x1={fmt(a.0)} y1={fmt(a.1)} x2={fmt(b.0)} y2={fmt(b.1)} stroke={kind_colour(alg, kind)}
    stroke-dasharray={dash} marker-end={format!("url(#{arrow_id})")} /> }
}

/// Where a doomed message's dot stops, on its way `a → b`: at the first partition line it
/// crosses (a little before it) when cut off by a drawn line; short of the destination when the
/// destination is down; halfway for a message the network loses or that was dropped by hand (and
/// for a partition drawn by no line: a scheduled one, or a one-way cut).
pub fn doom_end(reason: DropReason, a: Pt, b: Pt, lines: &[Line]) -> Pt {
    let len = (b.0 - a.0).hypot(b.1 - a.1).max(1.0);
    let f = match reason {
        DropReason::Partition => geometry::first_crossing(lines, a, b).map_or(0.5, |t| (t - 14.0 / len).max(0.0)),
        DropReason::Crashed => (1.0 - 30.0 / len).max(0.0),
        DropReason::Lost | DropReason::Manual => 0.5,
    };
    crate::anim::lerp(a, b, f)
}

/// The path of a doomed message: a dashed edge ending where it dies, with a ✕ there (no arrow:
/// it does not arrive), titled with the reason.
pub fn doomed_edge(alg: &Algorithm, m: &MsgFrame, (a, b): (Pt, Pt), lang: Lang) -> Html {
    let why = m.doom.map_or("", |d| d.name_in(lang));
    let title = k::UI_DOOMED_TITLE.format(lang, &[&m.label, &m.from, &m.to, &why]);
    // The ✕ a little beyond where the dot stops (on the line itself), so the resting dot does
    // not hide it.
    let len = (b.0 - a.0).hypot(b.1 - a.1).max(1.0);
    let mark = (b.0 + (b.0 - a.0) / len * 16.0, b.1 + (b.1 - a.1) / len * 16.0);
    html! {
        <g class="doomed-path" data-doomed={m.id.to_string()} data-doom={m.doom.map_or("", |d| d.name())}>
            <title>{ title }</title>
            <line class="msg-edge doomed-edge" x1={fmt(a.0)} y1={fmt(a.1)} x2={fmt(b.0)} y2={fmt(b.1)} stroke={kind_colour(alg, m.kind)} />
            <text class="doom-mark" x={fmt(mark.0)} y={fmt(mark.1)} text-anchor="middle" dominant-baseline="central">{"✕"}</text>
        </g>
    }
}

/// A message dropped during this tick, fading out where it was lost.
pub fn ghost(alg: &Algorithm, kind: &'static str, (x, y): Pt, sz: &Sizes) -> Html {
    let (shape, _) = kind_shape(alg, kind);
    html! {
        <g class="ghost" data-dropped={kind} transform={format!("translate({x:.1} {y:.1})")}>
            <path d={shape.path(sz.dot_r)} fill={kind_colour(alg, kind)} />
            <text y={fmt(sz.dot_label * 0.3)} text-anchor="middle" class="ghost-x" style={format!("font-size:{:.1}px", sz.dot_label)}>{"✕"}</text>
        </g>
    }
}

/// Shaded regions: one per group of nodes that no line separates.
pub fn regions(lines: &[Line], pos: &[Pt]) -> Vec<Html> {
    let mut seen: Vec<Vec<bool>> = Vec::new();
    let mut out = Vec::new();
    if lines.is_empty() {
        return out;
    }
    for &p in pos {
        let sig = geometry::signature(lines, p);
        if !seen.contains(&sig) {
            let poly = geometry::region_in(lines, &sig, geometry::FAR.0, geometry::FAR.1);
            let pts = poly.iter().map(|(x, y)| format!("{x:.0},{y:.0}")).collect::<Vec<_>>().join(" ");
            let fill = GROUP_FILLS[seen.len() % GROUP_FILLS.len()];
            out.push(html! { <polygon class="region" points={pts} fill={fill} /> });
            seen.push(sig);
        }
    }
    out
}

/// Group halos for partitions that have no drawn lines (scheduled ones, isolate).
pub fn halos(frame: &Frame, pos: &[Pt], r: f64, no_lines: bool) -> Vec<Html> {
    match (&frame.groups, no_lines) {
        (Some(groups), true) => pos
            .iter()
            .zip(groups)
            .map(|(&(x, y), &g)| {
                let fill = GROUP_FILLS[g as usize % GROUP_FILLS.len()];
                html! { <circle class="halo" cx={fmt(x)} cy={fmt(y)} r={fmt(r * 1.55)} fill={fill} /> }
            })
            .collect(),
        _ => vec![],
    }
}

/// Group hulls (Invitation, candidate sets): the members of each group, in drawing order, joined
/// by one wide rounded stroke — a translucent band round the group, coloured by its leader.
pub fn group_hulls(frame: &Frame, pos: &[Pt], r: f64) -> Vec<Html> {
    let mut groups: Vec<(u32, Vec<Pt>)> = Vec::new();
    for (i, node) in frame.nodes.iter().enumerate().take(pos.len()) {
        let Some(g) = node.view.group().filter(|_| node.up) else { continue };
        match groups.iter_mut().find(|(id, _)| *id == g) {
            Some((_, pts)) => pts.push(pos[i]),
            None => groups.push((g, vec![pos[i]])),
        }
    }
    groups
        .into_iter()
        .map(|(g, pts)| {
            let fill = GROUP_FILLS[g as usize % GROUP_FILLS.len()];
            let d = pts.iter().enumerate().map(|(k, (x, y))| format!("{}{x:.0} {y:.0}", if k == 0 { "M" } else { "L" })).collect::<String>() + if pts.len() > 2 { "Z" } else { "" };
            html! { <path class="group-hull" data-group={g.to_string()} d={d} stroke={fill} fill={fill} stroke-width={fmt(r * 3.0)} /> }
        })
        .collect()
}

/// Probe reach on a ring (Hirschberg-Sinclair): an arc along the ring's circle from `reach` hops
/// before a candidate to `reach` hops after it.
pub fn reach_arcs(frame: &Frame, pos: &[Pt]) -> Vec<Html> {
    let n = pos.len();
    if n < 3 {
        return vec![];
    }
    let (cx, cy) = (layout::CENTRE, layout::CENTRE);
    // Each candidate's arc on a ring of its own: candidates in ring order take the next of four
    // radii in turn, so arcs that overlap (neighbouring candidates) never merge into one circle.
    let mut level = 0usize;
    frame
        .nodes
        .iter()
        .enumerate()
        .take(n)
        .filter_map(|(i, node)| {
            let k = node.view.reach().filter(|_| node.up)? as usize;
            let rad = layout::radius(n) * (1.10 + 0.05 * (level % 4) as f64);
            level += 1;
            let span = k.min(n / 2);
            let angle = |j: f64| -std::f64::consts::FRAC_PI_2 + 2.0 * std::f64::consts::PI * j / n as f64;
            let at = |j: f64| (cx + rad * angle(j).cos(), cy + rad * angle(j).sin());
            let (x0, y0) = at(i as f64 - span as f64);
            let d = if 2 * span >= n {
                // Half the ring each way: the whole circle (an arc from a point to itself would
                // draw nothing), as two half arcs.
                let (xm, ym) = at(i as f64 + n as f64 / 2.0 - span as f64);
                format!("M{x0:.1} {y0:.1} A{rad:.1} {rad:.1} 0 1 1 {xm:.1} {ym:.1} A{rad:.1} {rad:.1} 0 1 1 {x0:.1} {y0:.1}")
            } else {
                let (x1, y1) = at(i as f64 + span as f64);
                let large = if 4 * span > n { 1 } else { 0 };
                format!("M{x0:.1} {y0:.1} A{rad:.1} {rad:.1} 0 {large} 1 {x1:.1} {y1:.1}")
            };
            Some(html! { <path class="reach-arc" data-reach={k.to_string()} data-reach-of={node.id.to_string()} d={d}><title>{ format!("N{}: probes reach {k} hops each way", node.id) }</title></path> })
        })
        .collect()
}

/// Votes being cast (vote exchanges such as ZooKeeper's): an arrow from every live node still
/// campaigning (a candidate or participant look) to the node it votes for, and on each node so
/// voted for a badge with how many campaigning nodes, itself included, vote for it now.
pub fn vote_arrows(alg: &Algorithm, frame: &Frame, pos: &[Pt], r: f64, arrow_id: &str) -> Vec<Html> {
    let voting = |node: &NodeFrame| {
        node.up && alg.role(node.view.role).is_some_and(|x| matches!(x.look, Look::Candidate | Look::Participant))
    };
    let nodes = &frame.nodes[..pos.len().min(frame.nodes.len())];
    let mut out = Vec::new();
    // (index voted for, votes, whether another node's arrow points there)
    let mut tally: Vec<(usize, u32, bool)> = Vec::new();
    for (i, node) in nodes.iter().enumerate().filter(|(_, n)| voting(n)) {
        let Some(j) = node.view.vote.and_then(|v| nodes.iter().position(|n| n.id == v)) else { continue };
        match tally.iter_mut().find(|t| t.0 == j) {
            Some(t) => {
                t.1 += 1;
                t.2 |= i != j;
            }
            None => tally.push((j, 1, i != j)),
        }
        if i != j {
            let (a, b) = edge(pos[i], pos[j], r + 6.0);
            out.push(html! { <line class="vote-arrow" data-vote-from={node.id.to_string()} data-vote-for={nodes[j].id.to_string()}
                                   x1={fmt(a.0)} y1={fmt(a.1)} x2={fmt(b.0)} y2={fmt(b.1)} marker-end={format!("url(#{arrow_id})")} /> });
        }
    }
    // A badge only where another node's arrow points: a lone vote for itself is no news.
    for (j, k, _) in tally.into_iter().filter(|t| t.2) {
        let id = nodes[j].id;
        // Beside the disc on the outer side, clear of the labels above or below it.
        // (left of a node on the vertical axis, whose labels may stand to its right).
        let side = if pos[j].0 < layout::CENTRE + 1.0 { -1.0 } else { 1.0 };
        let (x, y) = (pos[j].0 + side * (r + 20.0), pos[j].1);
        out.push(html! {
            <g class="vote-tally" data-votes-for={id.to_string()} data-votes={k.to_string()}>
                <title>{ format!("N{id}: {k} {}", if k == 1 { "vote" } else { "votes" }) }</title>
                <circle cx={fmt(x)} cy={fmt(y)} r="15" />
                <text x={fmt(x)} y={fmt(y)} text-anchor="middle" dominant-baseline="central">{ k }</text>
            </g>
        });
    }
    out
}

/// The ring's edges, each pointing to the next node (marker `arrow_id` of this canvas); on a
/// bidirectional ring (`both`), pointing both ways.
pub fn ring_edges(pos: &[Pt], r: f64, arrow_id: &str, both: bool) -> Vec<Html> {
    let n = pos.len();
    let marker = format!("url(#{arrow_id})");
    (0..n)
        .map(|i| {
            let (a, b) = edge(pos[i], pos[(i + 1) % n], r + 4.0);
            html! { <line class={classes!("ring-edge", both.then_some("two-way"))} x1={fmt(a.0)} y1={fmt(a.1)} x2={fmt(b.0)} y2={fmt(b.1)}
                          marker-start={both.then(|| marker.clone())} marker-end={marker.clone()} /> }
        })
        .collect()
}

/// How the link between nodes `a` and `b` (positions in the frame) is drawn.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct LinkLook {
    /// Part of the spanning tree the algorithm builds (a node's `View::parent`): bold.
    pub tree: bool,
    /// Oriented from a to b, from b to a (`View::out`): arrow heads.
    pub ab: bool,
    pub ba: bool,
    /// Both ends orient their links and neither points along this one: dashed.
    pub pruned: bool,
}

/// The look of the link between the nodes at positions `a` and `b` of `frame`.
pub fn link_look(frame: &Frame, a: usize, b: usize) -> LinkLook {
    let (Some(na), Some(nb)) = (frame.nodes.get(a), frame.nodes.get(b)) else { return LinkLook::default() };
    let points = |from: &election_lab::NodeFrame, to: u32| from.view.out().map(|o| o.contains(&to));
    let (ab, ba) = (points(na, nb.id), points(nb, na.id));
    LinkLook {
        tree: na.view.parent() == Some(nb.id) || nb.view.parent() == Some(na.id),
        ab: ab == Some(true),
        ba: ba == Some(true),
        pruned: ab == Some(false) && ba == Some(false),
    }
}

/// The scenario's network links (`topology`), under everything else but the regions: a link
/// that is part of a spanning tree the algorithm builds (a node's `View::parent`) is drawn bold,
/// an oriented one with its arrow head (`marker`), a pruned one dashed.
pub fn graph_links(frame: &Frame, links: &[(u32, u32)], pos: &[Pt], r: f64, marker: &str) -> Vec<Html> {
    let arrow = format!("url(#{marker})");
    links
        .iter()
        .filter(|&&(a, b)| (a as usize) < pos.len() && (b as usize) < pos.len())
        .map(|&(a, b)| {
            let (a, b) = (a as usize, b as usize);
            let look = link_look(frame, a, b);
            let (p, q) = edge(pos[a], pos[b], r);
            let class = classes!(
                "graph-link",
                look.tree.then_some("tree-link"),
                (look.ab || look.ba).then_some("oriented-link"),
                look.pruned.then_some("pruned-link")
            );
            html! { <line {class} x1={fmt(p.0)} y1={fmt(p.1)} x2={fmt(q.0)} y2={fmt(q.1)}
            marker-end={look.ab.then(|| arrow.clone())} marker-start={look.ba.then(|| arrow.clone())} /> }
        })
        .collect()
}

/// The colour of value `t`: hues a golden angle apart, so that nearby ids look different (a
/// short palette repeats every few ids), and a darker shade for even ids, since the hues that
/// come close again are those of ids 13 or 21 apart.
fn tint_colour(t: u32) -> String {
    format!("hsl({:.0}, 70%, {}%)", (t as f64 * 137.508) % 360.0, if t % 2 == 0 { 36 } else { 56 })
}

/// A node's gesture callbacks, shared by every node of a canvas.
#[derive(Clone)]
pub struct NodeCallbacks {
    pub on_node: Callback<NodeGesture>,
    pub on_act: Callback<Intervention>,
    /// Hover or focus: show this node in the inspector (changes nothing in the run).
    pub on_peek: Callback<u32>,
    /// A touch or pen press began on a node (a long press opens its menu).
    pub on_press: Callback<(u32, PointerEvent)>,
    /// The press ended (lifted, cancelled or left the node) before it was long.
    pub on_release: Callback<()>,
    /// Set when a long press opened the menu: the click that may follow is not a crash.
    pub long_pressed: std::rc::Rc<std::cell::Cell<bool>>,
}

/// A node: disc, id, what it believes, and its protocol details (placed where `place` says, or
/// not written when no place was free: they stay in its tooltip, its accessible name and the
/// inspector); clicks and keys go to the callbacks.
#[allow(clippy::too_many_arguments)]
pub fn node(
    alg: &Algorithm,
    lang: Lang,
    node: &NodeFrame,
    (x, y): Pt,
    sz: &Sizes,
    place: Option<Placed>,
    selected: bool,
    chosen: bool,
    cb: &NodeCallbacks,
) -> Html {
    let id = node.id;
    let v = &node.view;
    let r = sz.node_r;
    let status = if node.up { "up" } else { "crashed" };
    // A recorded member frozen: up, keeping its state, doing nothing (drawn with a pause sign).
    let paused = node.up && v.paused;
    let role = if node.up { v.role } else { "crashed" };
    let onclick = {
        let (on_node, long) = (cb.on_node.clone(), cb.long_pressed.clone());
        Callback::from(move |e: MouseEvent| {
            if long.replace(false) {
                return;
            }
            on_node.emit(if e.shift_key() || e.alt_key() { NodeGesture::Menu(id) } else { NodeGesture::Toggle(id) });
        })
    };
    let oncontextmenu = {
        let (on_node, long, release) = (cb.on_node.clone(), cb.long_pressed.clone(), cb.on_release.clone());
        Callback::from(move |e: MouseEvent| {
            e.prevent_default();
            // A touch long press may fire this too: the menu opens once, and the press is done.
            release.emit(());
            if !long.replace(true) {
                on_node.emit(NodeGesture::Menu(id));
            }
        })
    };
    let onkeydown = {
        let (on_node, on_act) = (cb.on_node.clone(), cb.on_act.clone());
        Callback::from(move |e: KeyboardEvent| match e.key().as_str() {
            // Space is left to the page (play / pause), so "click a node, then press Space"
            // plays instead of undoing the click.
            "Enter" => {
                e.prevent_default();
                e.stop_propagation();
                on_node.emit(NodeGesture::Toggle(id));
            }
            "m" | "M" | "ContextMenu" => {
                e.prevent_default();
                e.stop_propagation();
                on_node.emit(NodeGesture::Menu(id));
            }
            "s" | "S" => {
                e.stop_propagation();
                on_act.emit(Intervention::Start(id));
            }
            "p" | "P" => {
                e.stop_propagation();
                on_node.emit(NodeGesture::Side(id));
            }
            _ => {}
        })
    };
    let onpointerdown = {
        let (press, long) = (cb.on_press.clone(), cb.long_pressed.clone());
        Callback::from(move |e: PointerEvent| {
            e.stop_propagation();
            long.set(false);
            if e.pointer_type() != "mouse" {
                press.emit((id, e));
            }
        })
    };
    let release = cb.on_release.reform(|_: PointerEvent| ());
    let onpointerenter = cb.on_peek.reform(move |_: PointerEvent| id);
    let onfocusin = cb.on_peek.reform(move |_: FocusEvent| id);
    let (leader_text, sub) = node_texts(alg, lang, node);
    // The accessible name starts with the text the button shows, its id (its label lines are
    // drawn beside it, outside the button), so that speech input can name it by what is seen.
    let details = if sub.is_empty() { String::new() } else { format!(", {}", sub.join(", ")) };
    let details = details.replace(", ", tr(lang, k::UI_LIST_SEPARATOR));
    let label =
        if node.up { k::UI_NODE_LABEL_UP } else { k::UI_NODE_LABEL_DOWN }.format(lang, &[&id, &leader_text, &details]);
    let look = if node.up { role_look(alg, v.role) } else { "crashed" };
    let texts = place.map(|p| {
        let anchor = p.anchor.svg();
        let mut y = p.y;
        let first = html! { <text class="view" x={fmt(p.x)} y={fmt(y)} text-anchor={anchor} style={format!("font-size:{:.1}px", sz.view)}>{ leader_text.clone() }</text> };
        let rest: Vec<Html> = sub
            .iter()
            .take(p.lines.saturating_sub(1))
            .map(|s| {
                y += sz.sub * super::labels::LINE;
                html! { <text class="sub" x={fmt(p.x)} y={fmt(y)} text-anchor={anchor} style={format!("font-size:{:.1}px", sz.sub)}>{ s.clone() }</text> }
            })
            .collect();
        html! { <>{ first }{ for rest }</> }
    });
    html! {
        <>
        <g class={classes!("node", status, look, paused.then_some("paused"), selected.then_some("selected"), chosen.then_some("chosen"))} data-node={id.to_string()}
           data-status={status} data-role={role} data-paused={paused.then_some("1")} data-labelled={place.is_some().then_some("1")} role="button" tabindex="0" aria-label={label}
           aria-pressed={chosen.then_some("true")}
           {onclick} {oncontextmenu} {onkeydown} {onpointerdown} onpointerup={release.clone()} onpointercancel={release.clone()}
           onpointerleave={release} {onpointerenter} {onfocusin}>
            // The colour of the value it holds (gossip: the candidate it backs).
            { match v.tint().filter(|_| node.up) {
                Some(t) => html!{ <circle class="tint" data-tint={t.to_string()} cx={fmt(x)} cy={fmt(y)} r={fmt(r + 9.0)} stroke={tint_colour(t)} /> },
                None => html!{},
            } }
            // Chosen for one side of a keyboard partition: a dashed ring, as a cut line is drawn.
            { if chosen { html!{ <circle class="side-ring" cx={fmt(x)} cy={fmt(y)} r={fmt(r + 16.0)} /> } } else { html!{} } }
            <circle class="disc" cx={fmt(x)} cy={fmt(y)} r={fmt(r)} />
            { if !node.up { html!{ <path class="cross" d={format!("M{} {}L{} {}M{} {}L{} {}", x - r*0.5, y - r*0.5, x + r*0.5, y + r*0.5, x + r*0.5, y - r*0.5, x - r*0.5, y + r*0.5)} /> } } else { html!{} } }
            { if paused { html!{ <path class="pause-sign" d={format!("M{} {}v{}M{} {}v{}", x - r*0.3, y - r*0.75, r*0.4, x + r*0.3, y - r*0.75, r*0.4)} /> } } else { html!{} } }
            <text class="id" x={fmt(x)} y={fmt(y)} text-anchor="middle" dominant-baseline="central" style={format!("font-size:{:.1}px", sz.id.min(r * 1.1).max(12.5 * sz.u))}>{ format!("N{id}") }</text>
        </g>
        // Its label lines: beside the button, not in it (its accessible name says them).
        { match texts {
            Some(t) => html!{ <g class={classes!("node", "node-labels", status, look)} data-labels-of={id.to_string()} aria-hidden="true">{ t }</g> },
            None => html!{},
        } }
        </>
    }
}

mod menu;
pub use menu::*;
