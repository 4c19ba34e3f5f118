//! The fenced store (scenario option `fencing`): a box in the middle of the ring (below it when a
//! node sits there, as the lease's key-value store does) with the value
//! it holds and the largest token it has seen, the writes on their way to it, and this step's
//! verdict — a green tick or a red cross on the writer's edge. It sits outside the partition
//! lines on purpose: like shared storage, both sides reach it, and only the token decides.

use super::fmt;
use super::labels::{Rect, MIN_TEXT_PX};
use crate::geometry::Pt;
use crate::i18n::{tr, Lang};
use election_lab::meta::k;
use election_lab::Frame;
use std::collections::BTreeMap;
use yew::prelude::*;

const CENTRE: Pt = (500.0, 500.0);
/// Where the box goes when a node already sits at the centre (the lease's key-value store):
/// lower right, inside the ring.
const ASIDE: Pt = (690.0, 690.0);
const W: f64 = 190.0;
const H: f64 = 78.0;

/// How much the box grows on a small canvas: its texts keep their size on screen (17 px, or
/// `MIN_TEXT_PX` on screen, whichever is larger in viewBox units; see extras.css), so the box
/// and the offsets around it grow with them.
fn grow(u: f64) -> f64 {
    (MIN_TEXT_PX * u / 17.0).max(1.0)
}

fn centre(pos: &[Pt]) -> Pt {
    if pos.iter().any(|p| (p.0 - CENTRE.0).hypot(p.1 - CENTRE.1) < 90.0) {
        ASIDE
    } else {
        CENTRE
    }
}

/// The box the store is drawn in, in viewBox units (labels are placed clear of it), if the run
/// has a fenced store.
pub fn area(frame: &Frame, pos: &[Pt], u: f64) -> Option<Rect> {
    frame.store.as_ref()?;
    let (c, g) = (centre(pos), grow(u));
    Some(Rect { x0: c.0 - W * g / 2.0, y0: c.1 - H * g / 2.0, x1: c.0 + W * g / 2.0, y1: c.1 + H * g / 2.0 })
}

/// Where an edge from `p` meets the box centred on `c`, `g` times its size.
fn rim(c: Pt, p: Pt, g: f64) -> Pt {
    let (dx, dy) = (p.0 - c.0, p.1 - c.1);
    let t = ((W * g / 2.0) / dx.abs().max(1e-9)).min((H * g / 2.0) / dy.abs().max(1e-9));
    (c.0 + dx * t, c.1 + dy * t)
}

pub fn store(frame: &Frame, index: &BTreeMap<u32, usize>, pos: &[Pt], node_r: f64, u: f64, lang: Lang) -> Html {
    let Some(sf) = &frame.store else { return html! {} };
    let st = &sf.store;
    let (c, g) = (centre(pos), grow(u));
    let writes = sf.writes.iter().filter_map(|(id, w)| {
        let centre_of_writer = pos[*index.get(&w.node)?];
        let to = rim(c, centre_of_writer, g);
        // The write leaves from the writer's rim, not from under its disc.
        let len = (to.0 - centre_of_writer.0).hypot(to.1 - centre_of_writer.1).max(1e-9);
        let off = (node_r / len).min(0.5);
        let from = (
            centre_of_writer.0 + (to.0 - centre_of_writer.0) * off,
            centre_of_writer.1 + (to.1 - centre_of_writer.1) * off,
        );
        let span = w.arrive.saturating_sub(w.sent).max(1) as f64;
        let f = ((frame.time.saturating_sub(w.sent)) as f64 / span).clamp(0.0, 1.0) * 0.8 + 0.1;
        let (x, y) = (from.0 + (to.0 - from.0) * f, from.1 + (to.1 - from.1) * f);
        Some(html! {
            <g key={*id} class="store-write" data-node={w.node.to_string()}>
                <line class="store-edge" x1={fmt(from.0)} y1={fmt(from.1)} x2={fmt(to.0)} y2={fmt(to.1)} />
                <rect x={fmt(x - 8.0)} y={fmt(y - 8.0)} width="16" height="16" rx="3" />
                <text x={fmt(x)} y={fmt(y + 26.0 * g)} text-anchor="middle">{ format!("W {}@{}", w.value, w.token) }</text>
            </g>
        })
    });
    let verdict = sf.verdict.and_then(|(w, ok)| {
        let from = pos[*index.get(&w.node)?];
        let to = rim(c, from, g);
        let (mx, my) = ((from.0 + to.0) / 2.0, (from.1 + to.1) / 2.0);
        let class = if ok { "store-verdict ok" } else { "store-verdict rejected" };
        Some(html! {
            <g class={class} data-node={w.node.to_string()}>
                <line x1={fmt(from.0)} y1={fmt(from.1)} x2={fmt(to.0)} y2={fmt(to.1)} />
                <text x={fmt(mx)} y={fmt(my + 9.0 * g)} text-anchor="middle" class="mark">{ if ok { "✓" } else { "✗" } }</text>
                <text x={fmt(mx)} y={fmt(my + 30.0 * g)} text-anchor="middle">{ format!("{}@{}", w.value, w.token) }</text>
            </g>
        })
    });
    let value = st.value.map_or_else(|| "—".to_string(), |v| v.to_string());
    let (w, h) = (W * g, H * g);
    let (x, y) = (c.0 - w / 2.0, c.1 - h / 2.0);
    html! {
        <g class="store" data-testid="store" data-value={value.clone()} data-max-token={st.max_token.to_string()}
           data-accepted={st.accepted.to_string()} data-rejected={st.rejected.to_string()}>
            <title>{ tr(lang, k::UI_FENCED_STORE_ACCEPTS_A_WRITE) }</title>
            { for writes }
            { for verdict }
            <rect class="store-box" x={fmt(x)} y={fmt(y)} width={fmt(w)} height={fmt(h)} rx="10" />
            <text x={fmt(c.0)} y={fmt(y + 22.0 * g)} text-anchor="middle" class="store-title">
                { format!("{} = {value}", tr(lang, k::UI_STORE)) }
            </text>
            <text x={fmt(c.0)} y={fmt(y + 44.0 * g)} text-anchor="middle">{ format!("{} ≥ {}", tr(lang, k::UI_TOKEN), st.max_token) }</text>
            <text x={fmt(c.0)} y={fmt(y + 66.0 * g)} text-anchor="middle">{ format!("✓ {}   ✗ {}", st.accepted, st.rejected) }</text>
        </g>
    }
}
