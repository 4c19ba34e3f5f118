//! Where the nodes stand on the canvas: where the scenario's `topology` puts them (its positions,
//! or its generator's: a grid as a grid, a tree in layers), else round a circle in scenario order, on the hash ring in the
//! order of their hashes (consistent-hashing algorithms, `Decoration::HashRing`), or round the store set
//! apart at the centre (`Topology::WithResource`). The reducer and the drawings both read it.
//!
//! Hashes cluster, and discs on a circle must not overlap, so hash-ring nodes are placed by
//! blending their true angles with evenly spaced ones just enough to keep them apart. The cyclic
//! order — all that "first node clockwise from the key" depends on — is kept, and the key is
//! placed between its two neighbours at the fraction of the gap its hash lies at.

use crate::geometry::Pt;
use election_lab::meta::{Look, Topology};
use election_lab::{layout, Algorithm, Frame, Scenario};
use std::f64::consts::FRAC_PI_2;

/// Node positions on the canvas, in scenario order: on a circle, unless the nodes carry hash-ring
/// positions (`frame`'s views) or the algorithm sets a store apart.
pub fn positions(scenario: &Scenario, frame: &Frame) -> Vec<Pt> {
    let n = scenario.nodes.len();
    if let Some(given) = scenario.topology.as_ref().and_then(|g| g.positions.as_ref()).filter(|p| p.len() == n) {
        return given.iter().map(|&[x, y]| (x as f64, y as f64)).collect();
    }
    on_hash_ring(frame)
        .or_else(|| store_apart(crate::meta::algorithm_of(scenario), frame))
        .filter(|p| p.len() == n)
        .unwrap_or_else(|| (0..n).map(|i| layout::position(i, n)).collect())
}

/// A ring position in `[0, 2^32)` as degrees clockwise from the top.
fn degrees(p: u32) -> f64 {
    p as f64 * 360.0 / 4_294_967_296.0
}

pub fn point(deg: f64, radius: f64) -> Pt {
    let a = -FRAC_PI_2 + deg.to_radians();
    (layout::CENTRE + radius * a.cos(), layout::CENTRE + radius * a.sin())
}

/// Drawn angles (degrees) per node in frame order, and the key's, when every node is on a ring.
pub fn angles(frame: &Frame) -> Option<(Vec<f64>, f64)> {
    let n = frame.nodes.len();
    let rings: Vec<(u32, u32)> = frame.nodes.iter().map(|nd| nd.view.hash_ring()).collect::<Option<_>>()?;
    let key = degrees(rings.first()?.1);
    // Clockwise order of the true angles.
    let mut order: Vec<usize> = (0..n).collect();
    election_lab::sort::sort_by_key(&mut order, |&i| (rings[i].0, frame.nodes[i].id));
    let theta: Vec<f64> = order.iter().map(|&i| degrees(rings[i].0)).collect();
    let step = 360.0 / n as f64;
    let gap = |k: usize| if k + 1 < n { theta[k + 1] - theta[k] } else { theta[0] + 360.0 - theta[k] };
    // The smallest blend towards even spacing that keeps neighbours apart.
    let r = layout::radius(n).max(1.0);
    let want = ((2.0 * layout::node_radius(n) + 30.0) / r).to_degrees().min(0.9 * step);
    let alpha =
        (0..n).filter(|&k| gap(k) < want).map(|k| (want - gap(k)) / (step - gap(k))).fold(0.0f64, f64::max).min(1.0);
    let rho = (0..n).map(|k| theta[k] - k as f64 * step).sum::<f64>() / n as f64;
    let drawn: Vec<f64> = (0..n).map(|k| theta[k] + alpha * (rho + k as f64 * step - theta[k])).collect();
    // The key after its predecessor k and no later than its successor k+1, at the same fraction
    // of the gap, but kept clear of both discs (a key on a node's own hash is drawn just before it).
    let past = |k: usize| (key - theta[k]).rem_euclid(360.0);
    let k = (0..n).find(|&k| past(k) > 0.0 && past(k) <= gap(k)).unwrap_or(0);
    let f = if gap(k) > 0.0 { past(k) / gap(k) } else { 0.0 };
    let next = if k + 1 < n { drawn[k + 1] } else { drawn[0] + 360.0 };
    let clear = ((layout::node_radius(n) + 8.0) / r).to_degrees().min((next - drawn[k]) / 2.0);
    let key_drawn = (drawn[k] + f * (next - drawn[k])).clamp(drawn[k] + clear, next - clear);
    let mut out = vec![0.0; n];
    for (k, &i) in order.iter().enumerate() {
        out[i] = drawn[k];
    }
    Some((out, key_drawn))
}

/// Node positions on the hash ring (frame order), if the nodes carry ring positions.
pub fn on_hash_ring(frame: &Frame) -> Option<Vec<Pt>> {
    let n = frame.nodes.len();
    let (a, _) = angles(frame)?;
    Some(a.into_iter().map(|d| point(d, layout::radius(n))).collect())
}

/// The store at the centre and the other nodes round the circle in scenario order, for an
/// algorithm with a distinguished resource node.
pub fn store_apart(alg: &Algorithm, frame: &Frame) -> Option<Vec<Pt>> {
    if alg.topology != Topology::WithResource {
        return None;
    }
    let store = frame.nodes.iter().position(|nd| alg.role(nd.view.role).is_some_and(|r| r.look == Look::Store))?;
    let n = frame.nodes.len();
    let mut k = 0;
    Some(
        (0..n)
            .map(|i| {
                if i == store {
                    return (layout::CENTRE, layout::CENTRE);
                }
                k += 1;
                layout::position(k - 1, n - 1)
            })
            .collect(),
    )
}
