//! Colours: the Okabe–Ito palette, safe for the common colour-vision deficiencies. Which colour a
//! message kind gets is algorithm knowledge and lives in `meta`.

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

/// Fills of partition groups, in order of first appearance.
pub const GROUP_FILLS: &[&str] = &["#56B4E9", "#E69F00", "#009E73", "#CC79A7", "#0072B2", "#D55E00", "#F0E442"];
