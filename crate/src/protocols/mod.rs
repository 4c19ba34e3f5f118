//! The election protocols, one module each, and the one list that registers them.
//!
//! Every module opens with the algorithm, the paper it follows and the readings it chose, and
//! declares its `ALGORITHM` descriptor (see [`crate::algorithm`]). Adding an algorithm is one new
//! file here and one line in the list below: the line declares the module and registers it, in
//! the order the UI offers algorithms.

use crate::algorithm::Algorithm;

macro_rules! register {
    ($($module:ident),* $(,)?) => {
        $(pub mod $module;)*
        /// Every algorithm, in the order the UI offers them.
        pub static ALGORITHMS: &[&Algorithm] = &[$(&$module::ALGORITHM),*];
    };
}

#[cfg(test)]
pub(crate) mod testkit;

pub mod etcd_log;
pub mod recorded;
pub mod zookeeper_log;

/// Recorded runs: real clusters' elections read from their logs (see [`recorded`]). They run
/// like any algorithm, but are not offered in the picker, experiments or generic sweeps.
pub static RECORDED: &[&Algorithm] = &[&etcd_log::ALGORITHM, &zookeeper_log::ALGORITHM];

register! {
    bully,
    bully_failover,
    bully_candidates,
    invitation,
    chang_roberts,
    lelann,
    ring_live_set,
    hirschberg_sinclair,
    raft,
    zookeeper,
    stable_leader,
    paxos,
    gossip,
    token_ring,
    dht,
    lease,
}
