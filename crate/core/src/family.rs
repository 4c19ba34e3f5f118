//! Families of algorithms: the unit a page's player is built for. A player built with a family's
//! feature (`family-bully`) holds that family's machines and texts only (see ARCHITECTURE.md,
//! *Families*); a build without any family feature holds every algorithm.
//!
//! The list lives here, below the algorithms, because two things read it: the catalog's build
//! script (`build.rs` includes this file), which leaves the other families' texts out of a family
//! build, and the protocols crate, whose directory and registry place each algorithm in its
//! family. Every algorithm, recorded runs included, is in exactly one family (the protocols'
//! tests check it against the registry).
//!
//! Adding a family: its line below, its `family-…` feature in each crate (core, protocols,
//! `election-lab`, `election-lab-www`) and its arm of [`FAMILY`].

/// One family: its id (the feature is `family-<id>`) and its algorithms' ids, in picker order.
pub struct Family {
    pub id: &'static str,
    pub algorithms: &'static [&'static str],
}

/// Every family. An algorithm's catalog keys start with its id, `-` written `_` (`bully_failover.…`).
pub const FAMILIES: &[Family] = &[
    Family { id: "bully", algorithms: &["bully", "bully-failover", "bully-candidates", "invitation"] },
    Family {
        id: "rings",
        algorithms: &["chang-roberts", "lelann", "ring-live-set", "hirschberg-sinclair", "token-ring"],
    },
    Family {
        id: "consensus",
        algorithms: &["raft", "zookeeper", "stable-leader", "paxos", "lease", "etcd-log", "zookeeper-log"],
    },
    Family { id: "graphs", algorithms: &["gossip", "dht", "floodmax", "echo-extinction", "yoyo", "time-slice"] },
];

/// The family this build holds (its `family-…` feature); `None`: every algorithm.
pub const FAMILY: Option<&str> = if cfg!(feature = "family-bully") { Some("bully") } else { None };

/// The family of algorithm `id`, or `None` for an id no family lists. A `const fn`, so that the
/// registry picks the build's algorithms while compiling (see `election_lab_protocols::ALGORITHMS`).
pub const fn family_of(id: &str) -> Option<&'static str> {
    let mut f = 0;
    while f < FAMILIES.len() {
        let mut a = 0;
        while a < FAMILIES[f].algorithms.len() {
            if same(FAMILIES[f].algorithms[a], id) {
                return Some(FAMILIES[f].id);
            }
            a += 1;
        }
        f += 1;
    }
    None
}

/// Whether this build holds algorithm `id`: every build without a family feature does, a family
/// build only its family's. An id of no family is held by the full build only.
pub const fn holds(id: &str) -> bool {
    match (FAMILY, family_of(id)) {
        (None, _) => true,
        (Some(mine), Some(its)) => same(mine, its),
        (Some(_), None) => false,
    }
}

/// String equality usable in a `const fn`.
pub const fn same(a: &str, b: &str) -> bool {
    let (a, b) = (a.as_bytes(), b.as_bytes());
    if a.len() != b.len() {
        return false;
    }
    let mut i = 0;
    while i < a.len() {
        if a[i] != b[i] {
            return false;
        }
        i += 1;
    }
    true
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_algorithm_is_in_one_family_at_most() {
        let mut seen = std::collections::BTreeSet::new();
        for f in FAMILIES {
            for a in f.algorithms {
                assert!(seen.insert(*a), "{a} is in two families");
                assert_eq!(family_of(a), Some(f.id));
            }
        }
        assert_eq!(family_of("no-such-algorithm"), None);
        assert!(same("raft", "raft") && !same("raft", "rafts") && !same("raft", "paxo"));
    }
}
