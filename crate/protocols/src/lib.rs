//! # Election Lab protocols
//!
//! The election algorithms, one module each, and the one list that registers them; the registry
//! that finds them by name, their presets, and the [`Engine`] that runs any of them by name.
//! Built on `election-lab-core` alone: nothing here reaches the tools (search, checker,
//! experiments, lessons), which live in the `election-lab` crate above.
//!
//! Every module opens with the algorithm, the paper it follows and the readings it chose, and
//! declares its `ALGORITHM` descriptor (see `election_lab_core::algorithm`). Adding an algorithm
//! is one new file here, its `pub mod` line and its entry in [`ALGORITHMS`], in the order the UI
//! offers algorithms.
//!
//! ```compile_fail
//! // The protocols do not depend on the tools: this import does not compile.
//! use election_lab::search::Search;
//! ```

// The core's modules, at the paths the algorithms have always used (`crate::protocol::Ctx`).
pub(crate) use election_lab_core::{
    algorithm, error, field, fnv, meta, observe, parse_json, protocol, read, run, scenario, sim, sort, trace, NodeId,
    Time,
};
#[cfg(test)]
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
pub(crate) mod testkit;

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
/// like any algorithm, but are not offered in the picker, experiments or generic sweeps.
pub static RECORDED: &[&Algorithm] = &[&recorded::systems::etcd::ALGORITHM, &recorded::systems::zookeeper::ALGORITHM];

/// Every algorithm, in the order the UI offers them.
pub static ALGORITHMS: &[&Algorithm] = &[
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
