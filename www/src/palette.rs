//! Colours: the Okabe–Ito palette, safe for the common colour-vision deficiencies. A message's
//! colour follows from the visual role its algorithm declares for its kind (request, answer,
//! announcement, ...), so a new algorithm needs no entry here. Every kind also has a short text
//! label, so colour is never the only cue.

use election_lab::meta::Visual;
use election_lab::Algorithm;

pub fn visual_colour(v: Visual) -> &'static str {
    match v {
        Visual::Request => "#E69F00",
        Visual::Answer => "#56B4E9",
        Visual::Announcement => "#009E73",
        Visual::Heartbeat => "#999999",
        Visual::Refusal => "#D55E00",
        Visual::Data => "#0072B2",
    }
}

/// The colour of a message kind of `alg`.
pub fn kind_colour(alg: &Algorithm, kind: &str) -> &'static str {
    alg.kind(kind).map_or("#999999", |k| visual_colour(k.visual))
}

/// Short label drawn next to a moving dot.
pub fn kind_short(alg: &Algorithm, kind: &str) -> &'static str {
    alg.kind(kind).map_or("?", |k| k.short)
}

pub const GROUP_FILLS: &[&str] = &["#56B4E9", "#E69F00", "#009E73", "#CC79A7", "#0072B2", "#D55E00", "#F0E442"];
