//! The canvas's pieces: nodes, message dots and edges, partition lines and regions, the node menu.
//! Plain functions from data to markup; the canvas component wires them together.

use super::fmt;
use crate::geometry::{self, Line, Pt};
use crate::i18n::{tr, Lang};
use crate::meta::{kind_colour, kind_short, role_look};
use crate::palette::GROUP_FILLS;
use election_lab::meta::k;
use election_lab::meta::{Look, Text};
use election_lab::{layout, Action as Intervention, Algorithm, Frame, MsgFrame, NodeFrame};
use yew::prelude::*;

/// What a gesture on a node asks for.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum NodeGesture {
    /// Click, Enter or Space: crash it if up, recover it if crashed.
    Toggle(u32),
    /// Right-click, Shift/Alt-click or M: its action menu.
    Menu(u32),
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
/// still arrive drops it, through `on_act`; a doomed dot is not a button.
pub fn dot(alg: &Algorithm, m: &MsgFrame, at: Pt, dense: bool, lang: Lang, on_act: &Callback<Intervention>) -> Html {
    let (x, y) = at;
    let id = m.id;
    let live = !m.doomed;
    let onclick = on_act.reform(move |_: MouseEvent| Intervention::Drop(id));
    let onkeydown = super::dropping::on_key(on_act, id);
    let label = super::dropping::label(m, lang);
    html! {
        <g key={m.id} class={classes!("dot", m.doomed.then_some("doomed"))} data-msg={m.kind} data-id={m.id.to_string()}
           transform={format!("translate({x:.1} {y:.1})")}
           role={live.then_some("button")} tabindex={(live && !dense).then_some("0")} aria-label={label}
           onclick={live.then_some(onclick)} onkeydown={live.then_some(onkeydown)}>
            { if dense { html!{} } else { html!{ <title>{ format!("#{} {} N{} → N{} (sent t={}, arrives t={})", m.id, m.label, m.from, m.to, m.sent, m.deliver) }</title> } } }
            <circle class="dot-hit" r="15" fill="transparent" />
            <circle r="9" fill={kind_colour(alg, m.kind)} />
            { if dense { html!{} } else { html!{ <text class="dot-label" y="-13" text-anchor="middle">{ dot_label(alg, m) }</text> } } }
        </g>
    }
}

/// A message in flight as one circle: the least to create and move (compare lanes).
pub fn bare_dot(alg: &Algorithm, m: &MsgFrame, (x, y): Pt) -> Html {
    html! {
        <circle key={m.id} class={classes!("dot", m.doomed.then_some("doomed"))} data-msg={m.kind} r="9"
                fill={kind_colour(alg, m.kind)} transform={format!("translate({x:.1} {y:.1})")} />
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

/// A faint edge under a message in flight.
/// It ends in an arrowhead, so a still frame shows who sends to whom.
pub fn msg_edge(alg: &Algorithm, kind: &str, (a, b): (Pt, Pt), arrow_id: &str) -> Html {
    html! { <line class="msg-edge" x1={fmt(a.0)} y1={fmt(a.1)} x2={fmt(b.0)} y2={fmt(b.1)} stroke={kind_colour(alg, kind)} marker-end={format!("url(#{arrow_id})")} /> }
}

/// A message dropped during this tick, fading out where it was lost.
pub fn ghost(alg: &Algorithm, kind: &'static str, (x, y): Pt) -> Html {
    html! {
        <g class="ghost" data-dropped={kind} transform={format!("translate({x:.1} {y:.1})")}>
            <circle r="9" fill={kind_colour(alg, kind)} />
            <text y="4" text-anchor="middle" class="ghost-x">{"✕"}</text>
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
        let Some(g) = node.view.group.filter(|_| node.up) else { continue };
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
    let radius = layout::radius(n);
    let (cx, cy) = (layout::CENTRE, layout::CENTRE);
    frame
        .nodes
        .iter()
        .enumerate()
        .take(n)
        .filter_map(|(i, node)| {
            let k = node.view.reach.filter(|_| node.up)? as usize;
            let span = k.min(n / 2);
            let angle = |j: f64| -std::f64::consts::FRAC_PI_2 + 2.0 * std::f64::consts::PI * j / n as f64;
            let (a0, a1) = (angle(i as f64 - span as f64), angle(i as f64 + span as f64));
            let (x0, y0) = (cx + radius * 1.12 * a0.cos(), cy + radius * 1.12 * a0.sin());
            let (x1, y1) = (cx + radius * 1.12 * a1.cos(), cy + radius * 1.12 * a1.sin());
            let large = if 2 * span > n / 2 { 1 } else { 0 };
            let d = format!("M{x0:.1} {y0:.1} A{:.1} {:.1} 0 {large} 1 {x1:.1} {y1:.1}", radius * 1.12, radius * 1.12);
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
                <title>{ format!("N{id}: {k} vote(s)") }</title>
                <circle cx={fmt(x)} cy={fmt(y)} r="15" />
                <text x={fmt(x)} y={fmt(y)} text-anchor="middle" dominant-baseline="central">{ k }</text>
            </g>
        });
    }
    out
}

/// The ring's edges, each pointing to the next node (marker `arrow_id` of this canvas).
pub fn ring_edges(pos: &[Pt], r: f64, arrow_id: &str) -> Vec<Html> {
    let n = pos.len();
    let marker = format!("url(#{arrow_id})");
    (0..n)
        .map(|i| {
            let (a, b) = edge(pos[i], pos[(i + 1) % n], r + 4.0);
            html! { <line class="ring-edge" x1={fmt(a.0)} y1={fmt(a.1)} x2={fmt(b.0)} y2={fmt(b.1)} marker-end={marker.clone()} /> }
        })
        .collect()
}

/// The colour of value `t`: hues a golden angle apart, so that nearby ids look different (a
/// short palette repeats every few ids), and a darker shade for even ids, since the hues that
/// come close again are those of ids 13 or 21 apart.
fn tint_colour(t: u32) -> String {
    format!("hsl({:.0}, 70%, {}%)", (t as f64 * 137.508) % 360.0, if t % 2 == 0 { 36 } else { 56 })
}

/// A node: disc, id, what it believes, and its protocol details; clicks and keys go to `on_node`.
#[allow(clippy::too_many_arguments)]
pub fn node(
    alg: &Algorithm,
    lang: Lang,
    detail: bool,
    node: &NodeFrame,
    (x, y): Pt,
    r: f64,
    selected: bool,
    on_node: &Callback<NodeGesture>,
    on_act: &Callback<Intervention>,
) -> Html {
    let id = node.id;
    let v = &node.view;
    let status = if node.up { "up" } else { "crashed" };
    let role = if node.up { v.role } else { "crashed" };
    let onclick =
        on_node.reform(
            move |e: MouseEvent| {
                if e.shift_key() || e.alt_key() {
                    NodeGesture::Menu(id)
                } else {
                    NodeGesture::Toggle(id)
                }
            },
        );
    let oncontextmenu = on_node.reform(move |e: MouseEvent| {
        e.prevent_default();
        NodeGesture::Menu(id)
    });
    let onkeydown = {
        let (on_node, on_act) = (on_node.clone(), on_act.clone());
        Callback::from(move |e: KeyboardEvent| match e.key().as_str() {
            // Space is left to the page (play / pause), so "click a node, then press Space"
            // plays instead of undoing the click.
            "Enter" => {
                e.prevent_default();
                e.stop_propagation();
                on_node.emit(NodeGesture::Toggle(id));
            }
            "m" | "ContextMenu" => {
                e.stop_propagation();
                on_node.emit(NodeGesture::Menu(id));
            }
            "s" => {
                e.stop_propagation();
                on_act.emit(Intervention::Start(id));
            }
            _ => {}
        })
    };
    let onpointerdown = Callback::from(|e: PointerEvent| e.stop_propagation());
    let leader_text = match (node.up, v.leader) {
        (false, _) => tr(lang, k::UI_CRASHED).to_string(),
        (true, Some(l)) if l == id => tr(lang, k::UI_LEADER).to_string(),
        (true, Some(l)) => format!("→ N{l}"),
        (true, None) => tr(lang, k::UI_NO_LEADER).to_string(),
    };
    let mut sub = Vec::new();
    if let Some(t) = v.term {
        let t = v.term_word.map_or_else(|| format!("t{t}"), |w| format!("{} {t}", w.get(lang)));
        sub.push(format!("{t}{}", v.vote.map(|x| format!(" · {} N{x}", tr(lang, k::UI_VOTED))).unwrap_or_default()));
    }
    if let Some((held, need)) = v.tally {
        sub.push(format!("{} {held} / {need}", tr(lang, k::UI_VOTES)));
    }
    let zxid = v.zxid.map(|z| format!("zxid {z}"));
    if node.up && v.role != "leader" && v.role != "follower" {
        let role = crate::meta::role_label(alg, v.role, lang);
        sub.push(zxid.as_ref().map_or(role.clone(), |z| format!("{role} · {z}")));
    } else if let Some(z) = zxid {
        sub.push(z);
    }
    let label = (if node.up { k::UI_NODE_LABEL_UP } else { k::UI_NODE_LABEL_DOWN }).format(
        lang,
        &[
            &id,
            &leader_text,
            &if sub.is_empty() {
                String::new()
            } else {
                format!("{}{}", tr(lang, k::UI_LIST_SEPARATOR), sub.join(tr(lang, k::UI_LIST_SEPARATOR)))
            },
        ],
    );
    let below = y > layout::CENTRE + 1.0 || (y - layout::CENTRE).abs() < 1.0 && x > layout::CENTRE;
    // Above the disc the lines stack upwards, so that none runs into it; where that would leave
    // the picture (the top node with many lines) they go beside the disc instead.
    let stacked = y - r - 34.0 - 22.0 * sub.len() as f64;
    let (tx, anchor, ty) = match () {
        _ if below => (x, "middle", y + r + 26.0),
        _ if stacked >= 16.0 => (x, "middle", stacked),
        _ => (x + r + 12.0, "start", y - 11.0 * sub.len() as f64 + 6.0),
    };
    let look = if node.up { role_look(alg, v.role) } else { "crashed" };
    html! {
        <g class={classes!("node", status, look, selected.then_some("selected"))} data-node={id.to_string()}
           data-status={status} data-role={role} role="button" tabindex="0" aria-label={label}
           {onclick} {oncontextmenu} {onkeydown} {onpointerdown}>
            // The colour of the value it holds (gossip: the candidate it backs).
            { match v.tint.filter(|_| node.up) {
                Some(t) => html!{ <circle class="tint" data-tint={t.to_string()} cx={fmt(x)} cy={fmt(y)} r={fmt(r + 9.0)} stroke={tint_colour(t)} /> },
                None => html!{},
            } }
            <circle class="disc" cx={fmt(x)} cy={fmt(y)} r={fmt(r)} />
            { if !node.up { html!{ <path class="cross" d={format!("M{} {}L{} {}M{} {}L{} {}", x - r*0.5, y - r*0.5, x + r*0.5, y + r*0.5, x + r*0.5, y - r*0.5, x - r*0.5, y + r*0.5)} /> } } else { html!{} } }
            <text class="id" x={fmt(x)} y={fmt(y)} text-anchor="middle" dominant-baseline="central">{ format!("N{id}") }</text>
            // With many nodes, the labels under each node would pile up: they show for the
            // selected node only (the aria-label and the inspector carry them for every node).
            { if detail || selected { html!{ <>
                <text class="view" x={fmt(tx)} y={fmt(ty)} text-anchor={anchor}>{ leader_text.clone() }</text>
                { for sub.iter().enumerate().map(|(k, s)| html!{ <text class="sub" x={fmt(tx)} y={fmt(ty + 22.0 * (k as f64 + 1.0))} text-anchor={anchor}>{ s.clone() }</text> }) }
            </> } } else { html!{} } }
        </g>
    }
}

/// The user's partition lines: a wide invisible hit line to drag, the dashed line, a ✕ to remove.
pub fn cut_lines(lines: &[Line], on_down: &Callback<(usize, PointerEvent)>, on_remove: &Callback<usize>) -> Vec<Html> {
    lines
        .iter()
        .enumerate()
        .filter_map(|(i, l)| {
            let (a, b) = geometry::clip_to(l, geometry::FAR.0, geometry::FAR.1)?;
            let ondown = on_down.reform(move |e: PointerEvent| (i, e));
            let ondbl = on_remove.reform(move |_: MouseEvent| i);
            let (mx, my) = ((l[0] + l[2]) as f64 / 2.0, (l[1] + l[3]) as f64 / 2.0);
            let onremove = on_remove.reform(move |e: MouseEvent| {
                e.stop_propagation();
                i
            });
            Some(html! {
                <g class="cut" data-partition={i.to_string()}>
                    <line class="cut-hit" x1={fmt(a.0)} y1={fmt(a.1)} x2={fmt(b.0)} y2={fmt(b.1)} onpointerdown={ondown} ondblclick={ondbl} />
                    <line class="cut-line" x1={fmt(a.0)} y1={fmt(a.1)} x2={fmt(b.0)} y2={fmt(b.1)} />
                    <g class="cut-remove" role="button" aria-label={format!("Remove partition line {}", i + 1)} tabindex="0"
                       onclick={onremove} onpointerdown={Callback::from(|e: PointerEvent| e.stop_propagation())}
                       transform={format!("translate({mx:.0} {my:.0})")}>
                        <circle r="16" />
                        <text y="6" text-anchor="middle">{"✕"}</text>
                    </g>
                </g>
            })
        })
        .collect()
}

/// The action menu next to a node.
pub fn node_menu(
    node: &NodeFrame,
    (x, y): Pt,
    r: f64,
    lang: Lang,
    on_act: &Callback<Intervention>,
    on_close: &Callback<()>,
) -> Html {
    let id = node.id;
    let up = node.up;
    let items: Vec<(Text, Intervention)> = vec![
        (
            if up { k::UI_CRASH } else { k::UI_RECOVER },
            if up { Intervention::Crash(id) } else { Intervention::Recover(id) },
        ),
        (k::UI_START_ELECTION_HERE, Intervention::Start(id)),
        (k::UI_ISOLATE, Intervention::Isolate(id)),
    ];
    let (mx, my) = ((x + r + 8.0).min(640.0), (y - 20.0).clamp(10.0, 800.0));
    let style = format!("left: {:.1}%; top: {:.1}%", mx / 10.0, my / 10.0);
    html! {
        <div class="node-menu" role="menu" aria-label={k::UI_MENU_ACTIONS_FOR.fill(lang, &[id as u64])} {style}>
            <div class="menu-title">{ format!("N{id}") }</div>
            { for items.into_iter().map(|(text, a)| {
                let cb = on_act.reform(move |_: MouseEvent| a.clone());
                let disabled = !up && text != k::UI_RECOVER;
                html!{ <button role="menuitem" onclick={cb} {disabled}>{ tr(lang, text) }</button> }
            }) }
            <button role="menuitem" onclick={on_close.reform(|_: MouseEvent| ())}>{ tr(lang, k::UI_CLOSE) }</button>
        </div>
    }
}
