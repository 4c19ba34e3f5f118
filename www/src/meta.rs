//! Everything the UI knows about particular algorithms, in one module.
//!
//! The rest of `www/src` never names an algorithm, a message kind or a protocol role: it asks
//! these functions. When the engine declares this metadata per protocol (kinds with visual roles,
//! formula, claimed safety properties, topology), only this file changes.

use crate::palette::okabe_ito as c;
use election_lab::{Algorithm, Metrics, Scenario};

/// Fill colour of a message kind (colour-blind-safe; every kind also has a text label).
pub fn kind_colour(kind: &str) -> &'static str {
    match kind {
        "ELECTION" | "REQUEST_VOTE" => c::ORANGE,
        "OK" | "APPEND_ACK" => c::SKY_BLUE,
        "COORDINATOR" | "ELECTED" | "VOTE_GRANT" => c::GREEN,
        "HEARTBEAT" => c::GREY,
        "APPEND_ENTRIES" => c::BLUE,
        "VOTE_DENY" => c::VERMILION,
        "APPEND_REJECT" => c::PURPLE,
        _ => c::YELLOW,
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

/// The visual class of a protocol role (style.css styles these, not protocol role names).
pub fn role_look(role: &str) -> &'static str {
    match role {
        "leader" => "look-leader",
        "candidate" => "look-candidate",
        "waiting-coord" => "look-waiting",
        "participant" => "look-active",
        _ => "look-plain",
    }
}

/// A textbook message-count formula next to what this run counted.
#[derive(Clone, Debug, PartialEq)]
pub struct Formula {
    pub name: String,
    pub value: u64,
    /// Election messages sent so far, by the kinds the formula counts.
    pub counted: u64,
}

pub fn formula(scenario: &Scenario, metrics: &Metrics) -> Option<Formula> {
    let n = scenario.nodes.len() as u64;
    let count = |kinds: &[&str]| -> u64 { metrics.by_kind.iter().filter(|(k, _)| kinds.contains(k)).map(|(_, c)| c).sum() };
    let (name, value, counted) = match scenario.algorithm {
        Algorithm::Bully => ("Bully worst case N²−N−1".to_string(), (n * n).saturating_sub(n + 1), count(&["ELECTION", "OK", "COORDINATOR"])),
        Algorithm::ChangRoberts => (format!("ring single initiator: best 2N = {}, worst 3N−1", 2 * n), (3 * n).saturating_sub(1), count(&["ELECTION", "ELECTED"])),
        Algorithm::Raft => ("one Raft election ≈ 3N−2".to_string(), (3 * n).saturating_sub(2), count(&["REQUEST_VOTE", "VOTE_GRANT", "VOTE_DENY"])),
    };
    Some(Formula { name, value, counted })
}

/// A safety property an algorithm claims beyond the ones every algorithm is checked for.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Claim {
    pub name: &'static str,
    /// The engine's violation kind that breaks it.
    pub violation: &'static str,
}

pub fn claimed_invariants(algorithm: Algorithm) -> &'static [Claim] {
    match algorithm {
        Algorithm::Raft => &[Claim { name: "One leader per term", violation: "two-leaders-in-term" }],
        Algorithm::Bully | Algorithm::ChangRoberts => &[],
    }
}

/// The violation kind that means several nodes lead at once (checked for every algorithm).
pub const SPLIT_BRAIN: &str = "split-brain";

/// Ring algorithms draw the ring's edges and direction.
pub fn is_ring(algorithm: Algorithm) -> bool {
    algorithm.is_ring()
}

pub fn title(algorithm: Algorithm) -> &'static str {
    algorithm.title()
}

/// The algorithm picker's choices: (value, label).
pub fn algorithm_choices() -> Vec<(&'static str, &'static str)> {
    Algorithm::ALL.iter().map(|a| (a.name(), a.title())).collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use election_lab::{presets, Engine};

    #[test]
    fn formulas_count_the_kinds_they_name() {
        let mut e = Engine::new(presets::find("bully-worst-8").unwrap().scenario()).unwrap();
        e.run_to_end();
        let f = formula(e.scenario(), &e.metrics()).unwrap();
        assert_eq!(f.value, 8 * 8 - 8 - 1);
        assert!(f.counted > 0 && f.counted <= e.metrics().total);
    }

    #[test]
    fn only_raft_claims_one_leader_per_term() {
        assert_eq!(claimed_invariants(Algorithm::Raft).len(), 1);
        assert!(claimed_invariants(Algorithm::Bully).is_empty());
        assert_eq!(algorithm_choices().len(), Algorithm::ALL.len());
        assert_eq!(role_look("leader"), "look-leader");
    }
}
