//! The directory: every algorithm of every family, as the picker lists it (ids, family, titles
//! and presets' titles), in every build. A family build (`family-bully`) holds only its family's
//! machines in [`super::ALGORITHMS`]; the page still lists, and links to, the others from here.
//!
//! It is a table of its own, not read from the descriptors: naming another family's `ALGORITHM`
//! would link its `build` function, and with it its whole machine, into the family's player.
//! The registry's tests (built without a family feature) check that it equals
//! [`super::ALGORITHMS`] followed by [`super::RECORDED`]: the same ids in order, the same presets
//! and the same title texts, so the two cannot drift apart.

use crate::family;
use crate::meta::{k, Text};

/// One algorithm of any family, in picker order: present in every build, holding no machine.
#[derive(Debug)]
pub struct Listing {
    pub id: &'static str,
    /// Its family ([`family::FAMILIES`]): which per-family player holds it.
    pub family: &'static str,
    pub title: Text,
    pub presets: &'static [PresetListing],
    /// A recorded run's algorithm (see `registry::recorded`): listed after the others.
    pub recorded: bool,
}

/// One preset of a [`Listing`].
#[derive(Debug)]
pub struct PresetListing {
    pub id: &'static str,
    pub title: Text,
}

/// Every algorithm, in picker order (recorded runs last), with its presets.
pub fn directory() -> &'static [Listing] {
    DIRECTORY
}

/// The family of algorithm `algorithm_id` (any build's, not only this one's).
pub fn family_of(algorithm_id: &str) -> Option<&'static str> {
    DIRECTORY.iter().find(|l| l.id == algorithm_id).map(|l| l.family)
}

/// The family of the algorithm whose preset is `preset_id`.
pub fn family_of_preset(preset_id: &str) -> Option<&'static str> {
    DIRECTORY.iter().find(|l| l.presets.iter().any(|p| p.id == preset_id)).map(|l| l.family)
}

/// The family of `id`, while compiling: an algorithm of no family does not compile.
const fn family(id: &str) -> &'static str {
    match family::family_of(id) {
        Some(f) => f,
        None => panic!("an algorithm of the directory is in no family (core's family::FAMILIES)"),
    }
}

macro_rules! directory {
    ($($($recorded:ident)? $id:literal => $title:ident { $($preset:literal => $preset_title:ident,)+ })+) => {
        &[$(Listing {
            id: $id,
            family: family($id),
            title: k::$title,
            presets: &[$(PresetListing { id: $preset, title: k::$preset_title }),+],
            recorded: directory!(@recorded $($recorded)?),
        }),+]
    };
    (@recorded) => { false };
    (@recorded recorded) => { true };
}

/// Algorithm id => its title { preset id => its title }, in the order of `ALGORITHMS`, then
/// the recorded runs'.
const DIRECTORY: &[Listing] = directory! {
    "bully" => BULLY_TITLE {
        "bully-heartbeats" => BULLY_PRESET_BULLY_HEARTBEATS_TITLE,
        "bully-n3-notices" => BULLY_PRESET_BULLY_N3_NOTICES_TITLE,
        "bully-worst-8" => BULLY_PRESET_BULLY_WORST_8_TITLE,
        "split-brain-bully" => BULLY_PRESET_SPLIT_BRAIN_BULLY_TITLE,
        "bully-heal" => BULLY_PRESET_BULLY_HEAL_TITLE,
        "fencing-tokens" => BULLY_PRESET_FENCING_TOKENS_TITLE,
        "split-brain-bully-fenced" => BULLY_PRESET_SPLIT_BRAIN_BULLY_FENCED_TITLE,
    }
    "bully-failover" => BULLY_FAILOVER_TITLE {
        "failover-figure" => BULLY_FAILOVER_PRESET_FAILOVER_FIGURE_TITLE,
        "failover-next-down" => BULLY_FAILOVER_PRESET_FAILOVER_NEXT_DOWN_TITLE,
        "failover-heartbeats" => BULLY_FAILOVER_PRESET_FAILOVER_HEARTBEATS_TITLE,
    }
    "bully-candidates" => BULLY_CANDIDATES_TITLE {
        "candidates-figure" => BULLY_CANDIDATES_PRESET_CANDIDATES_FIGURE_TITLE,
        "candidates-heartbeats" => BULLY_CANDIDATES_PRESET_CANDIDATES_HEARTBEATS_TITLE,
    }
    "invitation" => INVITATION_TITLE {
        "invitation-figure" => INVITATION_PRESET_INVITATION_FIGURE_TITLE,
        "invitation-gather" => INVITATION_PRESET_INVITATION_GATHER_TITLE,
        "invitation-partition" => INVITATION_PRESET_INVITATION_PARTITION_TITLE,
    }
    "chang-roberts" => CHANG_ROBERTS_TITLE {
        "ring-best" => CHANG_ROBERTS_PRESET_RING_BEST_TITLE,
        "ring-worst" => CHANG_ROBERTS_PRESET_RING_WORST_TITLE,
        "ring-two" => CHANG_ROBERTS_PRESET_RING_TWO_TITLE,
    }
    "lelann" => LELANN_TITLE {
        "lelann-all" => LELANN_PRESET_LELANN_ALL_TITLE,
    }
    "ring-live-set" => RING_LIVE_SET_TITLE {
        "ring-live-set-skip" => RING_LIVE_SET_PRESET_RING_LIVE_SET_SKIP_TITLE,
        "ring-live-set-partition" => RING_LIVE_SET_PRESET_RING_LIVE_SET_PARTITION_TITLE,
    }
    "hirschberg-sinclair" => HIRSCHBERG_SINCLAIR_TITLE {
        "hs-all" => HIRSCHBERG_SINCLAIR_PRESET_HS_ALL_TITLE,
        "hs-phases-16" => HIRSCHBERG_SINCLAIR_PRESET_HS_PHASES_16_TITLE,
        "hs-rounds" => HIRSCHBERG_SINCLAIR_PRESET_HS_ROUNDS_TITLE,
        "hs-partition" => HIRSCHBERG_SINCLAIR_PRESET_HS_PARTITION_TITLE,
    }
    "raft" => RAFT_TITLE {
        "split-brain-raft" => RAFT_PRESET_SPLIT_BRAIN_RAFT_TITLE,
        "raft-cold" => RAFT_PRESET_RAFT_COLD_TITLE,
    }
    "zookeeper" => ZOOKEEPER_PROPERTY_ZOOKEEPER_TITLE {
        "zookeeper-leader-lost" => ZOOKEEPER_PRESET_ZOOKEEPER_LEADER_LOST_TITLE,
        "zookeeper-votes-5" => ZOOKEEPER_PRESET_ZOOKEEPER_VOTES_5_TITLE,
        "split-brain-zookeeper" => ZOOKEEPER_PRESET_SPLIT_BRAIN_ZOOKEEPER_TITLE,
    }
    "stable-leader" => STABLE_LEADER_TITLE {
        "stable-leader-recovery" => STABLE_LEADER_PRESET_STABLE_LEADER_RECOVERY_TITLE,
        "stable-leader-two-down" => STABLE_LEADER_PRESET_STABLE_LEADER_TWO_DOWN_TITLE,
        "split-brain-stable-leader" => STABLE_LEADER_PRESET_SPLIT_BRAIN_STABLE_LEADER_TITLE,
    }
    "paxos" => PAXOS_PROPERTY_PAXOS_TITLE {
        "paxos-cold" => PAXOS_PRESET_PAXOS_COLD_TITLE,
        "paxos-duel" => PAXOS_PRESET_PAXOS_DUEL_TITLE,
        "split-brain-paxos" => PAXOS_PRESET_SPLIT_BRAIN_PAXOS_TITLE,
    }
    "gossip" => GOSSIP_TITLE {
        "gossip-16" => GOSSIP_PRESET_GOSSIP_16_TITLE,
        "split-brain-gossip" => GOSSIP_PRESET_SPLIT_BRAIN_GOSSIP_TITLE,
    }
    "token-ring" => TOKEN_RING_PROPERTY_TOKEN_RING_TITLE {
        "token-ring-crash" => TOKEN_RING_PRESET_TOKEN_RING_CRASH_TITLE,
        "token-ring-partition" => TOKEN_RING_PRESET_TOKEN_RING_PARTITION_TITLE,
    }
    "dht" => DHT_TITLE {
        "dht-crash" => DHT_PRESET_DHT_CRASH_TITLE,
        "dht-split-brain" => DHT_PRESET_DHT_SPLIT_BRAIN_TITLE,
    }
    "lease" => LEASE_PROPERTY_LEASE_TITLE {
        "lease-takeover" => LEASE_PRESET_LEASE_TAKEOVER_TITLE,
        "lease-drift" => LEASE_PRESET_LEASE_DRIFT_TITLE,
        "lease-partition" => LEASE_PRESET_LEASE_PARTITION_TITLE,
    }
    "floodmax" => FLOODMAX_TITLE {
        "floodmax-grid" => FLOODMAX_PRESET_GRID_TITLE,
        "floodmax-tree" => FLOODMAX_PRESET_TREE_TITLE,
    }
    "echo-extinction" => ECHO_EXTINCTION_TITLE {
        "echo-grid" => ECHO_EXTINCTION_PRESET_GRID_TITLE,
        "echo-tree" => ECHO_EXTINCTION_PRESET_TREE_TITLE,
    }
    "yoyo" => YOYO_TITLE {
        "yoyo-grid" => YOYO_PRESET_GRID_TITLE,
        "yoyo-random" => YOYO_PRESET_RANDOM_TITLE,
    }
    "time-slice" => TIME_SLICE_TITLE {
        "time-slice-ring" => TIME_SLICE_PRESET_RING_TITLE,
    }
    recorded "etcd-log" => ETCD_LOG_TITLE {
        "etcd-leader-killed" => ETCD_LOG_PRESET_ETCD_LEADER_KILLED_TITLE,
    }
    recorded "zookeeper-log" => ZOOKEEPER_LOG_TITLE {
        "zookeeper-leader-killed" => ZOOKEEPER_LOG_PRESET_ZOOKEEPER_LEADER_KILLED_TITLE,
    }
};
