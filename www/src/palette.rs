//! Colours: the Okabe–Ito palette, safe for the common colour-vision deficiencies. A message's
//! colour follows from the visual role its algorithm declares for its kind.

use election_lab::meta::Visual;

pub mod okabe_ito {
    pub const ORANGE: &str = "#E69F00";
    pub const SKY_BLUE: &str = "#56B4E9";
    pub const GREEN: &str = "#009E73";
    pub const YELLOW: &str = "#F0E442";
    pub const BLUE: &str = "#0072B2";
    pub const VERMILION: &str = "#D55E00";
    pub const PURPLE: &str = "#CC79A7";
    pub const GREY: &str = "#999999";
}

pub fn visual_colour(v: Visual) -> &'static str {
    use okabe_ito as c;
    match v {
        Visual::Request => c::ORANGE,
        Visual::Answer => c::SKY_BLUE,
        Visual::Announcement => c::GREEN,
        Visual::Heartbeat => c::GREY,
        Visual::Refusal => c::VERMILION,
        Visual::Data => c::BLUE,
    }
}

/// Fills of partition groups, in order of first appearance.
pub const GROUP_FILLS: &[&str] = &["#56B4E9", "#E69F00", "#009E73", "#CC79A7", "#0072B2", "#D55E00", "#F0E442"];

/// Colours for the second, third, ... kind of one algorithm that share a visual role (each kind
/// of an algorithm gets its own colour), in order of preference: Okabe–Ito's, then black.
pub const EXTRA: &[&str] = &[
    okabe_ito::BLUE,
    okabe_ito::PURPLE,
    okabe_ito::VERMILION,
    okabe_ito::GREEN,
    okabe_ito::SKY_BLUE,
    okabe_ito::ORANGE,
    "#000000",
    okabe_ito::YELLOW,
    okabe_ito::GREY,
];

/// The second cue of a kind, which survives greyscale: the dot's shape (circle, square,
/// diamond, triangle, ...), one per kind of an algorithm, in the order it lists its kinds.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Shape {
    Circle,
    Square,
    Diamond,
    Triangle,
    TriangleDown,
    Hexagon,
    Star,
}

pub const SHAPES: &[Shape] =
    &[Shape::Circle, Shape::Square, Shape::Diamond, Shape::Triangle, Shape::TriangleDown, Shape::Hexagon, Shape::Star];

/// The dash of a kind's message edges, in the same order as [`SHAPES`] (`None`: solid).
pub const DASHES: &[Option<&str>] =
    &[None, Some("10 6"), Some("3 5"), Some("14 5 3 5"), Some("2 9"), Some("18 8"), Some("7 4 2 4 2 4")];

impl Shape {
    /// An SVG path of this shape centred on the origin, about as large as a circle of radius `r`.
    pub fn path(self, r: f64) -> String {
        let poly = |pts: &[(f64, f64)]| {
            let mut d = String::new();
            for (k, (x, y)) in pts.iter().enumerate() {
                d.push_str(&format!("{}{:.1} {:.1}", if k == 0 { "M" } else { "L" }, x * r, y * r));
            }
            d.push('Z');
            d
        };
        let round = |n: usize, turn: f64, radii: &[f64]| {
            let pts: Vec<(f64, f64)> = (0..n)
                .map(|k| {
                    let a = turn + std::f64::consts::TAU * k as f64 / n as f64;
                    let q = radii[k % radii.len()];
                    (q * a.cos(), q * a.sin())
                })
                .collect();
            poly(&pts)
        };
        let up = -std::f64::consts::FRAC_PI_2;
        match self {
            Shape::Circle => format!("M{:.1} 0A{r:.1} {r:.1} 0 1 0 {:.1} 0A{r:.1} {r:.1} 0 1 0 {:.1} 0Z", -r, r, -r),
            Shape::Square => poly(&[(-0.88, -0.88), (0.88, -0.88), (0.88, 0.88), (-0.88, 0.88)]),
            Shape::Diamond => round(4, up, &[1.3]),
            Shape::Triangle => round(3, up, &[1.35]),
            Shape::TriangleDown => round(3, -up, &[1.35]),
            Shape::Hexagon => round(6, 0.0, &[1.1]),
            Shape::Star => round(10, up, &[1.45, 0.65]),
        }
    }
}
