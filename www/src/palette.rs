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
