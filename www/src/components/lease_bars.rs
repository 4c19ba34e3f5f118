//! Leases (`Decoration::Lease`): a bar per node that drains from the real time its lease began to the
//! real time its own clock ends it, labelled with the node's own ticks left. A node whose clock
//! runs slow drains slower than the store's bar beside it, which is what drift looks like.
//! Also the store's place: with `Topology::WithResource`, the node whose role looks like a store
//! sits apart, at the centre, so that a partition line can put it on either side.

use super::fmt;
use super::labels::Rect;
use crate::geometry::Pt;
use election_lab::{layout, Frame};
use yew::prelude::*;

/// Where node `nd`'s bar goes (its centre and width), if it holds a lease: on the side of its
/// disc facing the centre, clear of the disc.
fn place(nd: &election_lab::NodeFrame, (x, y): Pt, r: f64) -> Option<(Pt, f64)> {
    nd.view.lease()?;
    let (dx, dy) = (layout::CENTRE - x, layout::CENTRE - y);
    let len = dx.hypot(dy);
    let (ux, uy) = if len < 1.0 { (0.0, 1.0) } else { (dx / len, dy / len) };
    let w = (r * 3.0).max(90.0);
    // Clear of the disc whichever way the bar lies from it.
    let off = r + 10.0 + ux.abs() * w / 2.0 + uy.abs() * 12.0;
    Some(((x + ux * off, y + uy * off), w))
}

/// The bars' rectangles, which the labels keep clear of.
pub fn areas(frame: &Frame, pos: &[Pt], r: f64) -> Vec<Rect> {
    frame
        .nodes
        .iter()
        .zip(pos)
        .filter(|(nd, _)| nd.up)
        .filter_map(|(nd, &p)| place(nd, p, r))
        .map(|((cx, cy), w)| Rect { x0: cx - w / 2.0, y0: cy - 12.0, x1: cx + w / 2.0, y1: cy + 12.0 })
        .collect()
}

/// One bar per live node holding a lease, on the side of its disc facing the centre (below the
/// disc for a node at the centre).
pub fn bars(frame: &Frame, pos: &[Pt], r: f64, lang: crate::i18n::Lang) -> Vec<Html> {
    let now = frame.time;
    frame
        .nodes
        .iter()
        .zip(pos)
        .filter(|(nd, _)| nd.up)
        .filter_map(|(nd, &p)| {
            let (from, until, ticks) = nd.view.lease()?;
            let span = until.saturating_sub(from).max(1) as f64;
            let left = (until.saturating_sub(now) as f64 / span).clamp(0.0, 1.0);
            let ((cx, cy), w) = place(nd, p, r)?;
            let rate = ticks as f64 / span;
            let clock = if (rate - 1.0).abs() >= 0.05 { format!(" ×{rate:.1}") } else { String::new() };
            let own_left = (ticks as f64 * left).round() as u64;
            Some(html! {
                <g class={classes!("lease-bar", nd.view.is_leader().then_some("held"))} data-lease-of={nd.id.to_string()} data-left={own_left.to_string()}>
                    <title>{ election_lab::meta::k::UI_LEASE_BAR.format(lang, &[&nd.id, &own_left, &ticks, &from, &until]) }</title>
                    <rect class="lease-track" x={fmt(cx - w / 2.0)} y={fmt(cy - 12.0)} width={fmt(w)} height="24" rx="5" />
                    <rect class="lease-fill" x={fmt(cx - w / 2.0)} y={fmt(cy - 12.0)} width={fmt(w * left)} height="24" rx="5" />
                    <text class="lease-text" x={fmt(cx)} y={fmt(cy)} text-anchor="middle" dominant-baseline="central">{ format!("{own_left}/{ticks}{clock}") }</text>
                </g>
            })
        })
        .collect()
}
