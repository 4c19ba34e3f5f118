//! Partition lines: which side of each drawn line a node is on, the groups that follow, and the
//! shaded regions. A line is infinite (drawn across the whole canvas through its two points), so
//! "nodes on different sides of any line cannot talk" is exact and easy to predict.
//! Coordinates are the SVG viewBox's (0..1000 both ways).

pub type Pt = (f64, f64);
/// A line through two points: [x1, y1, x2, y2] in viewBox units (integers, as stored in links).
pub type Line = [i32; 4];

pub const BOX: f64 = 1000.0;
/// How far beyond the canvas square shading and partition lines reach: the drawing is centred
/// in panels that are wider (or taller) than it, and the SVG lets them spill over, so that a
/// partition's shading covers the whole panel instead of stopping in white strips.
pub const FAR: (f64, f64) = (-1500.0, 2500.0);

/// Positive on one side of the line, negative on the other.
pub fn side(line: &Line, p: Pt) -> f64 {
    let [x1, y1, x2, y2] = line.map(f64::from);
    (x2 - x1) * (p.1 - y1) - (y2 - y1) * (p.0 - x1)
}

/// Whether a drawn line is long enough to mean anything.
pub fn is_usable(line: &Line) -> bool {
    let [x1, y1, x2, y2] = line.map(f64::from);
    (x2 - x1).hypot(y2 - y1) >= 20.0
}

/// Groups of node ids that no line separates, in order of first appearance; `None` when every
/// node is on the same side of every line (no partition).
pub fn groups(lines: &[Line], nodes: &[(u32, Pt)]) -> Option<Vec<Vec<u32>>> {
    let mut sigs: Vec<Vec<bool>> = Vec::new();
    let mut out: Vec<Vec<u32>> = Vec::new();
    for &(id, p) in nodes {
        let sig: Vec<bool> = lines.iter().map(|l| side(l, p) >= 0.0).collect();
        match sigs.iter().position(|s| *s == sig) {
            Some(k) => out[k].push(id),
            None => {
                sigs.push(sig);
                out.push(vec![id]);
            }
        }
    }
    (out.len() > 1).then_some(out)
}

/// A line with every point of `a` on one side and every point of `b` on the other, as far from
/// both as a line can be (directions tried every half degree), through the canvas; `None` when
/// no straight line separates them.
pub fn separating_line(a: &[Pt], b: &[Pt]) -> Option<Line> {
    if a.is_empty() || b.is_empty() {
        return None;
    }
    let mut best: Option<(f64, f64, f64)> = None;
    for k in 0..720 {
        let t = k as f64 * std::f64::consts::PI / 360.0;
        let (ux, uy) = (t.cos(), t.sin());
        let proj = |p: &Pt| p.0 * ux + p.1 * uy;
        let a_max = a.iter().map(proj).fold(f64::MIN, f64::max);
        let b_min = b.iter().map(proj).fold(f64::MAX, f64::min);
        let gap = b_min - a_max;
        if gap > 4.0 && best.is_none_or(|(g, _, _)| gap > g) {
            best = Some((gap, t, (a_max + b_min) / 2.0));
        }
    }
    let (_, t, c) = best?;
    let (ux, uy) = (t.cos(), t.sin());
    // The line's point nearest the canvas centre, and 300 units either way along it.
    let k = c - (BOX / 2.0 * ux + BOX / 2.0 * uy);
    let (bx, by) = (BOX / 2.0 + k * ux, BOX / 2.0 + k * uy);
    let line = [
        (bx + 300.0 * uy).round() as i32,
        (by - 300.0 * ux).round() as i32,
        (bx - 300.0 * uy).round() as i32,
        (by + 300.0 * ux).round() as i32,
    ];
    let one_side = |v: &[Pt]| {
        let s: Vec<bool> = v.iter().map(|p| side(&line, *p) >= 0.0).collect();
        s.iter().all(|&x| x == s[0]).then_some(s[0])
    };
    match (one_side(a), one_side(b)) {
        (Some(x), Some(y)) if x != y => Some(line),
        _ => None,
    }
}

/// The points where the infinite line crosses the canvas border (for drawing it edge to edge).
pub fn clip_to_box(line: &Line) -> Option<(Pt, Pt)> {
    clip_to(line, 0.0, BOX)
}

/// The points where the infinite line crosses the border of the square `[lo, hi]²`.
pub fn clip_to(line: &Line, lo_edge: f64, hi_edge: f64) -> Option<(Pt, Pt)> {
    let [x1, y1, x2, y2] = line.map(f64::from);
    let (dx, dy) = (x2 - x1, y2 - y1);
    if dx == 0.0 && dy == 0.0 {
        return None;
    }
    let mut ts: Vec<f64> = Vec::new();
    if dx != 0.0 {
        for x in [lo_edge, hi_edge] {
            let t = (x - x1) / dx;
            let y = y1 + t * dy;
            if (lo_edge - 1e-9..=hi_edge + 1e-9).contains(&y) {
                ts.push(t);
            }
        }
    }
    if dy != 0.0 {
        for y in [lo_edge, hi_edge] {
            let t = (y - y1) / dy;
            let x = x1 + t * dx;
            if (lo_edge - 1e-9..=hi_edge + 1e-9).contains(&x) {
                ts.push(t);
            }
        }
    }
    let lo = ts.iter().cloned().fold(f64::INFINITY, f64::min);
    let hi = ts.iter().cloned().fold(f64::NEG_INFINITY, f64::max);
    if !lo.is_finite() || !hi.is_finite() || hi - lo < 1e-9 {
        return None;
    }
    Some(((x1 + lo * dx, y1 + lo * dy), (x1 + hi * dx, y1 + hi * dy)))
}

/// Clips a convex polygon to the half-plane where `side(line, p)` has the given sign.
fn clip(poly: &[Pt], line: &Line, positive: bool) -> Vec<Pt> {
    let inside = |p: Pt| (side(line, p) >= 0.0) == positive;
    let mut out = Vec::new();
    for i in 0..poly.len() {
        let a = poly[i];
        let b = poly[(i + 1) % poly.len()];
        let (ia, ib) = (inside(a), inside(b));
        if ia {
            out.push(a);
        }
        if ia != ib {
            let (sa, sb) = (side(line, a), side(line, b));
            let t = sa / (sa - sb);
            out.push((a.0 + t * (b.0 - a.0), a.1 + t * (b.1 - a.1)));
        }
    }
    out
}

/// The region of the canvas on the sides given by `sig` of each line (a convex polygon).
pub fn region(lines: &[Line], sig: &[bool]) -> Vec<Pt> {
    region_in(lines, sig, 0.0, BOX)
}

/// [`region`] within the square `[lo, hi]²`.
pub fn region_in(lines: &[Line], sig: &[bool], lo: f64, hi: f64) -> Vec<Pt> {
    let mut poly = vec![(lo, lo), (hi, lo), (hi, hi), (lo, hi)];
    for (l, &s) in lines.iter().zip(sig) {
        poly = clip(&poly, l, s);
        if poly.is_empty() {
            break;
        }
    }
    poly
}

/// The side signature of a point, for shading the region a node sits in.
pub fn signature(lines: &[Line], p: Pt) -> Vec<bool> {
    lines.iter().map(|l| side(l, p) >= 0.0).collect()
}

/// Distance from `p` to the infinite line (for picking a line under the pointer).
pub fn distance(line: &Line, p: Pt) -> f64 {
    let [x1, y1, x2, y2] = line.map(f64::from);
    let len = (x2 - x1).hypot(y2 - y1);
    if len == 0.0 {
        return (p.0 - x1).hypot(p.1 - y1);
    }
    side(line, p).abs() / len
}

/// Where the segment `a → b` first crosses one of `lines`, as a fraction of the way (0..1), or
/// `None` when it crosses none (a message whose ends no drawn line separates).
pub fn first_crossing(lines: &[Line], a: Pt, b: Pt) -> Option<f64> {
    lines
        .iter()
        .filter_map(|l| {
            let (sa, sb) = (side(l, a), side(l, b));
            (sa * sb < 0.0).then(|| sa / (sa - sb))
        })
        .min_by(|x, y| x.total_cmp(y))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_segment_stops_at_the_first_line_it_crosses() {
        let lines = [[600, 0, 600, 1000], [300, 0, 300, 1000]];
        let t = first_crossing(&lines, (100.0, 500.0), (900.0, 500.0)).unwrap();
        assert!((t - 0.25).abs() < 1e-9, "{t}");
        assert_eq!(first_crossing(&lines, (100.0, 500.0), (200.0, 900.0)), None);
    }

    const NODES: [(u32, Pt); 4] = [(1, (100.0, 100.0)), (2, (900.0, 100.0)), (3, (900.0, 900.0)), (4, (100.0, 900.0))];

    #[test]
    fn one_vertical_line_splits_left_from_right() {
        let g = groups(&[[500, 0, 500, 1000]], &NODES).unwrap();
        assert_eq!(g, vec![vec![1, 4], vec![2, 3]]);
    }

    #[test]
    fn two_lines_make_four_groups_and_no_line_makes_none() {
        let g = groups(&[[500, 0, 500, 1000], [0, 500, 1000, 500]], &NODES).unwrap();
        assert_eq!(g.len(), 4);
        assert_eq!(groups(&[], &NODES), None);
        // A line beside every node separates nothing.
        assert_eq!(groups(&[[990, 0, 990, 1000]], &NODES), None);
    }

    #[test]
    fn regions_tile_the_canvas() {
        let lines = [[500, 0, 500, 1000]];
        let area = |p: &[Pt]| {
            let mut a = 0.0;
            for i in 0..p.len() {
                let (x1, y1) = p[i];
                let (x2, y2) = p[(i + 1) % p.len()];
                a += x1 * y2 - x2 * y1;
            }
            (a / 2.0).abs()
        };
        let left = region(&lines, &signature(&lines, (100.0, 500.0)));
        let right = region(&lines, &signature(&lines, (900.0, 500.0)));
        assert!((area(&left) - 500_000.0).abs() < 1e-6);
        assert!((area(&right) - 500_000.0).abs() < 1e-6);
    }

    #[test]
    fn a_short_diagonal_is_extended_to_the_border() {
        let (a, b) = clip_to_box(&[400, 400, 600, 600]).unwrap();
        assert!((a.0 - 0.0).abs() < 1e-9 && (a.1 - 0.0).abs() < 1e-9);
        assert!((b.0 - 1000.0).abs() < 1e-9 && (b.1 - 1000.0).abs() < 1e-9);
        assert!((distance(&[0, 0, 1000, 1000], (1000.0, 0.0)) - 707.106).abs() < 0.01);
    }
}
