//! What a script's `view()` returned, read into a node's [`State`], and remembered per node so
//! that a handler that leaves `this` as it was does not run `view()` again.
//!
//! `view()` runs after every handler. Most handlers of an election change nothing a view reads
//! (a busy candidate answering one more ELECTION, a follower hearing one more heartbeat), and
//! running the interpreter once more for them was a third of a scripted run's time. A run of
//! `view()` that read no clock (`now()`) and set nothing (`set_role`, `set_leader`,
//! `set_term`) depends only on the node and `this` (the network, the node list and the
//! parameters are fixed for the protocol's life), so its result is kept beside a copy of the
//! `this` it read, and reused only for a `this` equal to that copy in content
//! ([`super::value::same`]). Keyed by content, the memory is right whatever the simulator does
//! between two calls: seeking back, forking, replaying.

use super::load::Decl;
use super::value::{node_or_unit, pair_or_unit, same, uint_or_unit};
use super::{ScriptError, State};
use crate::NodeId;
use rhai::{Dynamic, Map};
use std::cell::RefCell;
use std::collections::BTreeMap;
use std::sync::atomic::{AtomicU64, Ordering};

/// The last pure `view()` of each node: its mark, the `this` it read and what it set.
#[derive(Default)]
pub(super) struct Views(RefCell<BTreeMap<NodeId, (u64, Dynamic, Patch)>>);

/// The marks of kept copies: a new one for each, never the same twice in the process (so a
/// state from another run or protocol cannot carry a mark that means another copy here).
static MARKS: AtomicU64 = AtomicU64::new(1);

impl Views {
    /// Applies to `s` the view remembered for node `me` if it was computed from a `this` equal
    /// to `s.this`; false when there is none (then `view()` must run).
    pub(super) fn reuse(&self, me: NodeId, s: &mut State) -> bool {
        let views = self.0.borrow();
        match views.get(&me) {
            Some((mark, this, patch)) if same(this, &s.this) => {
                patch.apply(s);
                s.mark = *mark;
                true
            }
            _ => false,
        }
    }

    /// Keeps a copy of `s.this` and what its `view()` set for node `me`; `s` gets the copy's mark.
    pub(super) fn keep(&self, me: NodeId, s: &mut State, patch: Patch) {
        s.mark = MARKS.fetch_add(1, Ordering::Relaxed);
        self.0.borrow_mut().insert(me, (s.mark, s.this.clone(), patch));
    }

    /// Whether the copy kept for node `me` has the mark `mark`, so that it equals the `this` of
    /// a state carrying that mark: a handler may then work on the state's own map, and a failed
    /// one is undone from the copy ([`Views::copy`]) instead of a copy made before every call.
    pub(super) fn vouches(&self, me: NodeId, mark: u64) -> bool {
        mark != 0 && self.0.borrow().get(&me).is_some_and(|(m, ..)| *m == mark)
    }

    /// The copy of `this` kept for node `me` (`()` if none: [`Views::vouches`] says first).
    pub(super) fn copy(&self, me: NodeId) -> Dynamic {
        self.0.borrow().get(&me).map_or(Dynamic::UNIT, |(_, this, _)| this.clone())
    }
}

/// What a `view()` returned, checked: each entry it gave (`None`: not given, so the handler's
/// own `set_role`, `set_leader`, `set_term` stand).
#[derive(Clone, Copy, Debug, Default)]
pub(super) struct Patch {
    role: Option<&'static str>,
    leader: Option<Option<NodeId>>,
    term: Option<Option<u64>>,
    vote: Option<Option<NodeId>>,
    tally: Option<Option<(u32, u32)>>,
}

impl Patch {
    /// Reads the map `view()` returned (`#{ role, leader, term, vote, tally }`, each optional).
    pub(super) fn read(decl: &Decl, m: &Map) -> Result<Patch, ScriptError> {
        let plain = |m: String| ScriptError::plain(format!("view: {m}"));
        let mut p = Patch::default();
        for (k, v) in m {
            match k.as_str() {
                "role" => {
                    let r = v
                        .clone()
                        .into_immutable_string()
                        .map_err(|t| plain(format!("role: expected a string, found {t}")))?;
                    p.role =
                        Some(decl.role(&r).ok_or_else(|| {
                            plain(format!("unknown role `{r}` (declared: {})", decl.roles.join(", ")))
                        })?);
                }
                "leader" => p.leader = Some(node_or_unit(v, "leader").map_err(plain)?),
                "term" => p.term = Some(uint_or_unit(v, "term").map_err(plain)?),
                "vote" => p.vote = Some(node_or_unit(v, "vote").map_err(plain)?),
                "tally" => p.tally = Some(pair_or_unit(v, "tally").map_err(plain)?),
                other => {
                    return Err(plain(format!("unknown entry `{other}` (expected role, leader, term, vote, tally)")))
                }
            }
        }
        Ok(p)
    }

    pub(super) fn apply(&self, s: &mut State) {
        s.role = self.role.unwrap_or(s.role);
        s.leader = self.leader.unwrap_or(s.leader);
        s.term = self.term.unwrap_or(s.term);
        s.vote = self.vote.unwrap_or(s.vote);
        s.tally = self.tally.unwrap_or(s.tally);
    }
}
