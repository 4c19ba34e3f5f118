//! # Election Lab protocols
//!
//! The election algorithms, one module each, and the one list that registers them; the registry
//! that finds them by name, their presets, and the [`Engine`] that runs any of them by name.
//! Built on `election-lab-core` alone: nothing here reaches the tools (search, checker,
//! experiments, lessons), which live in the `election-lab` crate above.
//!
//! Every module opens with the algorithm, the paper it follows and the readings it chose, and
//! declares its `ALGORITHM` descriptor (see `election_lab_core::algorithm`). Adding an algorithm
//! is one new file here, its `pub mod` line and its entry in `EVERY`, in the order the UI
//! offers algorithms, plus its line in the directory (`registry/directory.rs`) and its family
//! (`election_lab_core::family`); the registry's tests say when one is missing.
//!
//! ```compile_fail
//! // The protocols do not depend on the tools: this import does not compile.
//! use election_lab::search::Search;
//! ```

// The core's modules, at the paths the algorithms have always used (`crate::protocol::Ctx`).
pub(crate) use election_lab_core::{
    algorithm, error, family, field, fnv, meta, observe, parse_json, protocol, read, run, scenario, sim, sort, trace,
    NodeId, Time,
};
// A family build compiles only its family's tests (`cfg(holds = …)`, see build.rs): some of
// what the others' tests share is unused there.
#[cfg(test)]
#[cfg_attr(family_build, allow(unused_imports))]
pub(crate) use election_lab_core::{rng, Action, Scenario};
// `crate::protocols::raft` names a sibling the same way from any module of this crate.
pub(crate) use crate as protocols;

pub mod engine;
pub mod presets;
pub mod registry;

pub use engine::{Engine, Frame, Metrics, MsgFrame, NodeFrame, StepInfo};

use crate::algorithm::Algorithm;

/// Declares a protocol's message kinds once, each beside the pattern of the messages of that
/// kind: it defines `KINDS` (the table the UI, the counts and the formulas read) and the
/// message type's `kind()` (the index in `KINDS`), so the order of the two cannot drift.
///
/// ```text
/// kinds! {
///     Msg;
///     Msg::Election => Kind::new("ELECTION", "E", Visual::Request, Text::new(..)),
///     Msg::Coordinator(_) => Kind::new("COORDINATOR", "C", Visual::Announcement, Text::new(..)),
/// }
/// ```
macro_rules! kinds {
    ($msg:ident; $($pat:pat => $kind:expr),+ $(,)?) => {
        /// Message kinds with their visual roles, in the order `kind()` indexes them.
        pub const KINDS: &[Kind] = &[$($kind),+];
        impl $msg {
            /// The index of this message's kind in [`KINDS`].
            pub fn kind(&self) -> usize {
                kinds!(@index self, 0usize, [] $($pat),+)
            }
        }
        impl crate::protocol::MessageKind for $msg {
            const KINDS: &'static [Kind] = KINDS;
            fn kind(&self) -> usize {
                $msg::kind(self)
            }
        }
    };
    (@index $s:ident, $i:expr, [$($arms:tt)*] $pat:pat $(, $rest:pat)*) => {
        kinds!(@index $s, $i + 1, [$($arms)* $pat => $i,] $($rest),*)
    };
    (@index $s:ident, $i:expr, [$($arms:tt)*]) => {
        match $s {
            $($arms)*
        }
    };
}

/// Declares a protocol's timer keys once, each beside the name that traces and breakpoints
/// use for it: it defines the enum and its `TimerKey` (`NAMES` in declaration order and
/// `name()`), so that the list of names and the names given cannot drift apart.
///
/// ```text
/// timers! {
///     /// The leader's periodic HEARTBEAT broadcast.
///     Timer { Heartbeat => "HEARTBEAT", Ack(u64) => "ACK_TIMEOUT" }
/// }
/// ```
macro_rules! timers {
    ($(#[$doc:meta])* $name:ident { $($(#[$vdoc:meta])* $variant:ident $(($($field:ty),*))? => $label:literal),* $(,)? }) => {
        $(#[$doc])*
        #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
        pub enum $name {
            $($(#[$vdoc])* $variant $(($($field),*))?),*
        }
        impl crate::protocol::TimerKey for $name {
            const NAMES: &'static [&'static str] = &[$($label),*];
            fn name(&self) -> &'static str {
                match *self {
                    $($name::$variant { .. } => $label,)*
                }
            }
        }
    };
}

#[cfg(test)]
#[cfg_attr(family_build, allow(dead_code))]
pub(crate) mod testkit;

// A family build (`family-…`, see build.rs) is the page's player of one family: the workbench's
// tools and texts are not in it.
#[cfg(all(family_build, any(feature = "check", feature = "script", feature = "mappings")))]
compile_error!(
    "a family feature (family-…) builds the page's player: it cannot be combined with `check`, `script` or `mappings` (the app's `workbench`, `check`, `grade`)"
);

pub mod bully;
pub mod bully_candidates;
pub mod bully_failover;
pub mod chang_roberts;
pub mod conform;
pub mod conformance;
pub mod dht;
pub mod echo_extinction;
pub mod floodmax;
// In the page, only the workbench's Import calls it: the player's first load does not carry it.
pub mod events;
pub mod gossip;
pub mod hirschberg_sinclair;
pub mod invitation;
pub mod lease;
pub mod lelann;
pub mod paxos;
#[cfg(all(feature = "node-cmd", not(target_arch = "wasm32")))]
pub mod process;
pub mod raft;
pub mod recorded;
pub mod ring_live_set;
#[cfg(feature = "script")]
pub mod script;
pub mod stable_leader;
pub mod time_slice;
pub mod timers;
pub mod token_ring;
pub mod yoyo;
pub mod zookeeper;

/// The hidden parameter naming a deliberately broken variant of an algorithm (a *mutant*), for
/// the tests that show the exhaustive checker catches it: Raft's `"double-vote"` (a node grants
/// a second vote in a term), Paxos's `"forget-promise"` (an acceptor accepts below the ballot it
/// promised). No preset uses it; without it every algorithm is the one described.
pub const MUTANT: &str = "_mutant";

/// `params` without [`MUTANT`], and whether it named `which`.
pub(crate) fn mutant<'a>(
    params: &'a crate::protocol::Params,
    which: &str,
) -> (std::borrow::Cow<'a, crate::protocol::Params>, bool) {
    match params.get(MUTANT) {
        None => (std::borrow::Cow::Borrowed(params), false),
        Some(v) => {
            let mut rest = params.clone();
            rest.remove(MUTANT);
            (std::borrow::Cow::Owned(rest), v.as_str() == Some(which))
        }
    }
}

/// Recorded runs: real clusters' elections read from their logs (see [`recorded`]). They run
/// like any algorithm, but are not offered in the picker, experiments or generic sweeps. Those
/// of this build's family only (see [`ALGORITHMS`]).
pub static RECORDED: &[&Algorithm] = &HELD_RECORDED;

/// Every algorithm this build holds, in the order the UI offers them: all of them, or with a
/// family feature (`family-bully`) the family's only ([`election_lab_core::family`]). The list is
/// picked while compiling, from `EVERY`, so that the other families' descriptors, and with
/// them their machines (the `build` functions), are not linked into a family build at all.
/// [`registry::directory`] lists every algorithm in every build.
pub static ALGORITHMS: &[&Algorithm] = &HELD;

/// Every algorithm, in picker order: adding one is its line here (and its family's line in
/// [`election_lab_core::family::FAMILIES`] and [`registry::directory`]).
const EVERY: &[&Algorithm] = &[
    &bully::ALGORITHM,
    &bully_failover::ALGORITHM,
    &bully_candidates::ALGORITHM,
    &invitation::ALGORITHM,
    &chang_roberts::ALGORITHM,
    &lelann::ALGORITHM,
    &ring_live_set::ALGORITHM,
    &hirschberg_sinclair::ALGORITHM,
    &raft::ALGORITHM,
    &zookeeper::ALGORITHM,
    &stable_leader::ALGORITHM,
    &paxos::ALGORITHM,
    &gossip::ALGORITHM,
    &token_ring::ALGORITHM,
    &dht::ALGORITHM,
    &lease::ALGORITHM,
    &floodmax::ALGORITHM,
    &echo_extinction::ALGORITHM,
    &yoyo::ALGORITHM,
    &time_slice::ALGORITHM,
];

/// Every recorded run's algorithm.
const EVERY_RECORDED: &[&Algorithm] = &[&recorded::systems::etcd::ALGORITHM, &recorded::systems::zookeeper::ALGORITHM];

static HELD: [&Algorithm; held_count(EVERY)] = held(EVERY);
static HELD_RECORDED: [&Algorithm; held_count(EVERY_RECORDED)] = held(EVERY_RECORDED);

/// How many of `all` this build holds; an algorithm of no family does not compile.
const fn held_count(all: &[&Algorithm]) -> usize {
    let (mut n, mut i) = (0, 0);
    while i < all.len() {
        assert!(family::family_of(all[i].id).is_some(), "an algorithm is in no family (core's family::FAMILIES)");
        n += family::holds(all[i].id) as usize;
        i += 1;
    }
    n
}

/// The `N` algorithms of `all` this build holds, in their order.
const fn held<const N: usize>(all: &[&'static Algorithm]) -> [&'static Algorithm; N] {
    let mut out = [all[0]; N];
    let (mut n, mut i) = (0, 0);
    while i < all.len() {
        if family::holds(all[i].id) {
            out[n] = all[i];
            n += 1;
        }
        i += 1;
    }
    out
}
