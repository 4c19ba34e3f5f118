//! The election protocols, one module each, and the one list that registers them.
//!
//! Every module opens with the algorithm, the paper it follows and the readings it chose, and
//! declares its `ALGORITHM` descriptor (see [`crate::algorithm`]). Adding an algorithm is one new
//! file here and one line in the list below: the line declares the module and registers it, in
//! the order the UI offers algorithms.

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
#[cfg(all(feature = "node-cmd", not(target_arch = "wasm32")))]
pub mod process;
pub mod recorded;
#[cfg(feature = "script")]
pub mod script;
pub mod zookeeper_log;

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
    floodmax,
    echo_extinction,
    time_slice,
}
