//! Where nodes are drawn: on a circle, in scenario order, clockwise from the top.
//! Coordinates are in a 1000 × 1000 box (the SVG viewBox), centre (500, 500).

pub const SIZE: f64 = 1000.0;
pub const CENTRE: f64 = SIZE / 2.0;

/// Radius of the node circle for `n` nodes.
pub fn radius(n: usize) -> f64 {
    if n <= 1 {
        0.0
    } else {
        380.0
    }
}

/// Radius of one node's disc, shrinking as the circle fills.
pub fn node_radius(n: usize) -> f64 {
    let r = radius(n.max(2));
    let gap = 2.0 * std::f64::consts::PI * r / n.max(1) as f64;
    (gap * 0.36).clamp(9.0, 46.0)
}

/// Position of the `i`-th of `n` nodes.
pub fn position(i: usize, n: usize) -> (f64, f64) {
    if n <= 1 {
        return (CENTRE, CENTRE);
    }
    let angle = -std::f64::consts::FRAC_PI_2 + 2.0 * std::f64::consts::PI * i as f64 / n as f64;
    (CENTRE + radius(n) * angle.cos(), CENTRE + radius(n) * angle.sin())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn first_node_is_at_the_top_and_order_is_clockwise() {
        let (x0, y0) = position(0, 4);
        assert!((x0 - 500.0).abs() < 1e-9 && (y0 - 120.0).abs() < 1e-9);
        let (x1, y1) = position(1, 4);
        assert!(x1 > 870.0 && (y1 - 500.0).abs() < 1e-9, "second node to the right (clockwise on screen)");
    }

    #[test]
    fn nodes_do_not_overlap() {
        for n in [2usize, 5, 16, 64] {
            let (a, b) = (position(0, n), position(1, n));
            let d = ((a.0 - b.0).powi(2) + (a.1 - b.1).powi(2)).sqrt();
            assert!(d > 2.0 * node_radius(n), "n={n}");
        }
    }
}
