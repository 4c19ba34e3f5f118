//! Colours: the Okabe–Ito palette, safe for the common colour-vision deficiencies. Every kind
//! also has a text label, so colour is never the only cue.

pub fn kind_colour(kind: &str) -> &'static str {
    match kind {
        "ELECTION" | "REQUEST_VOTE" => "#E69F00",
        "OK" | "APPEND_ACK" => "#56B4E9",
        "COORDINATOR" | "ELECTED" | "VOTE_GRANT" => "#009E73",
        "HEARTBEAT" => "#999999",
        "APPEND_ENTRIES" => "#0072B2",
        "VOTE_DENY" => "#D55E00",
        "APPEND_REJECT" => "#CC79A7",
        _ => "#F0E442",
    }
}

/// Short label drawn next to a moving dot.
pub fn kind_short(kind: &str) -> &'static str {
    match kind {
        "ELECTION" => "E",
        "OK" => "OK",
        "COORDINATOR" => "C",
        "HEARTBEAT" => "hb",
        "ELECTED" => "W",
        "REQUEST_VOTE" => "RV",
        "VOTE_GRANT" => "✓",
        "VOTE_DENY" => "✗",
        "APPEND_ENTRIES" => "AE",
        "APPEND_ACK" => "ack",
        "APPEND_REJECT" => "rej",
        _ => "?",
    }
}

pub const GROUP_FILLS: &[&str] = &["#56B4E9", "#E69F00", "#009E73", "#CC79A7", "#0072B2", "#D55E00", "#F0E442"];
