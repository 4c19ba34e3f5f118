//! Protocol-independent observers, updated incrementally after every step.
//!
//! They read only each node's [`View`] (role, leader view, term, tally) and so work for every
//! protocol: the live self-declared leaders, **split brain** (two or more live nodes believe they
//! lead at the same time, and act: a recorded member paused is not counted while paused), **two leaders in one term** (term/epoch protocols), agreement (every
//! live node names the same live leader), election latency, and message counts. Each update costs
//! O(log N): only the node a step touched is looked at again.

use crate::meta::{Monitor, Property};
pub use crate::meta::{SPLIT_BRAIN, TWO_LEADERS_IN_TERM};
use crate::protocol::View;
use crate::{NodeId, Time};
use std::collections::{BTreeMap, BTreeSet};

/// A safety violation, with when and where it was seen.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Violation {
    pub kind: &'static str,
    pub time: Time,
    pub step: u64,
    pub nodes: Vec<NodeId>,
    pub term: Option<u64>,
}

/// A stretch without agreement that ended with every live node naming `leader`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Election {
    pub from: Time,
    pub to: Time,
    pub step: u64,
    pub leader: NodeId,
}

impl Election {
    pub fn latency(&self) -> Time {
        self.to - self.from
    }
}

/// What an observer update reports back to the simulator.
#[derive(Default)]
pub struct Findings {
    pub violations: Vec<Violation>,
    pub election: Option<Election>,
}

#[derive(Clone, Debug)]
pub struct Observers {
    ids: Vec<NodeId>,
    /// The claimed properties watched by the built-in monitors (their ids name the violations:
    /// a token ring calls its split-brain monitor `duplicate-token`).
    split_brain_id: Option<&'static str>,
    term_id: Option<&'static str>,
    /// The claimed property watched by the token monitor ([`Monitor::OneToken`]), if any.
    pub token_id: Option<&'static str>,
    /// The token monitor saw more than one live token after the last step.
    pub duplicate_tokens: bool,
    /// Cached view per node (scenario order); `None` while the node is crashed.
    pub views: Vec<Option<View>>,
    /// Per node: its cached view is plain ([`is_plain`]).
    plain: Vec<bool>,
    pub live: u32,
    /// Live nodes that believe they are leader and act (a paused one, frozen, does not: it is
    /// counted again if it resumes still leading, a stale leader).
    pub leaders: BTreeSet<NodeId>,
    /// Live nodes per named leader.
    view_counts: BTreeMap<NodeId, u32>,
    /// Live nodes that name no leader.
    no_view: u32,
    term_leaders: BTreeMap<u64, NodeId>,
    pub max_simultaneous: u32,
    pub agreed: Option<NodeId>,
    disagree_since: Option<Time>,
    /// Highest tally each node reached as a candidate.
    pub max_tally: Vec<u32>,
    pub sent_by_kind: Vec<u64>,
    pub sent_by_node: Vec<u64>,
    pub received_by_node: Vec<u64>,
    pub delivered: u64,
    pub dropped: u64,
    pub in_flight: u64,
}

/// `x == y`, comparing the role's address before its text (roles are constants, so the
/// address nearly always decides; this runs after every step). Always inlined: where one side
/// is built by a protocol's `view` in the same function ([`crate::machine::Machine::view_is`]),
/// the compiler folds the fields that protocol leaves at their defaults and never builds the
/// view in memory.
#[inline(always)]
pub fn same_view(x: &View, y: &View) -> bool {
    // Destructured so that a new View field cannot be forgotten here.
    let View { role, leader, term, term_word, vote, tally, tally_word, paused, decorations } = x;
    *leader == y.leader
        && *paused == y.paused
        && *term == y.term
        && *vote == y.vote
        && *tally == y.tally
        && *decorations == y.decorations
        && *term_word == y.term_word
        && *tally_word == y.tally_word
        && (std::ptr::eq(*role, y.role) || *role == y.role)
}

/// Whether every field of `v` but its role and leader is at its default, as in most protocols'
/// views. Always inlined: on a view a protocol builds, the fields it never sets fold away.
#[inline(always)]
pub fn is_plain(v: &View) -> bool {
    // Destructured so that a new View field cannot be forgotten here.
    let View { role: _, leader: _, term, term_word, vote, tally, tally_word, paused, decorations } = v;
    !*paused
        && term.is_none()
        && term_word.is_none()
        && vote.is_none()
        && tally.is_none()
        && tally_word.is_none()
        && decorations.is_empty()
}

/// [`same_view`] against a cached view `y` whose plainness ([`is_plain`]) is known. Where `x` is
/// built in the same function by a protocol that sets only the role and the leader, a plain `y`
/// is checked in those two fields and the flag, instead of every field.
#[inline(always)]
pub fn same_view_as(x: &View, y: &View, y_plain: bool) -> bool {
    if y_plain {
        x.leader == y.leader && (std::ptr::eq(x.role, y.role) || x.role == y.role) && is_plain(x)
    } else {
        same_view(x, y)
    }
}

/// [`same_view`] for cached views (`None` while crashed).
fn same_cached(a: &Option<View>, b: &Option<View>) -> bool {
    match (a, b) {
        (Some(x), Some(y)) => same_view(x, y),
        (None, None) => true,
        _ => false,
    }
}

impl Observers {
    pub fn new(ids: &[NodeId], kinds: usize, claimed: &[Property]) -> Self {
        let n = ids.len();
        Observers {
            ids: ids.to_vec(),
            split_brain_id: claimed.iter().find(|p| p.monitor == Monitor::SplitBrain).map(|p| p.id),
            term_id: claimed.iter().find(|p| p.monitor == Monitor::TwoLeadersInTerm).map(|p| p.id),
            token_id: claimed.iter().find(|p| p.monitor == Monitor::OneToken).map(|p| p.id),
            duplicate_tokens: false,
            views: vec![None; n],
            plain: vec![false; n],
            live: 0,
            leaders: BTreeSet::new(),
            view_counts: BTreeMap::new(),
            no_view: 0,
            term_leaders: BTreeMap::new(),
            max_simultaneous: 0,
            agreed: None,
            disagree_since: None,
            max_tally: vec![0; n],
            sent_by_kind: vec![0; kinds],
            sent_by_node: vec![0; n],
            received_by_node: vec![0; n],
            delivered: 0,
            dropped: 0,
            in_flight: 0,
        }
    }

    /// Called once the initial states are observed: agreement at time 0 is no election.
    pub fn settle_initial(&mut self) {
        if self.agreed.is_none() {
            self.disagree_since = Some(0);
        }
    }

    /// Whether node `i`'s cached view is plain ([`is_plain`]).
    #[inline]
    pub fn is_plain(&self, i: usize) -> bool {
        self.plain[i]
    }

    pub fn total_sent(&self) -> u64 {
        self.sent_by_kind.iter().sum()
    }

    /// Records node `i`'s new view (None = crashed) and reports what it found.
    pub fn update(&mut self, i: usize, new: Option<View>, time: Time, step: u64, findings: &mut Findings) {
        if same_cached(&self.views[i], &new) {
            return;
        }
        let id = self.ids[i];
        let was_leader = self.views[i].as_ref().is_some_and(|v| v.is_leader() && !v.paused);
        if let Some(old) = self.views[i].take() {
            self.live -= 1;
            if old.is_leader() && !old.paused {
                self.leaders.remove(&id);
            }
            match old.leader {
                Some(l) => {
                    let c = self.view_counts.get_mut(&l).expect("counted view");
                    *c -= 1;
                    if *c == 0 {
                        self.view_counts.remove(&l);
                    }
                }
                None => self.no_view -= 1,
            }
        }
        if let Some(v) = &new {
            self.live += 1;
            match v.leader {
                Some(l) => *self.view_counts.entry(l).or_insert(0) += 1,
                None => self.no_view += 1,
            }
            if let Some((held, _)) = v.tally {
                self.max_tally[i] = self.max_tally[i].max(held);
            }
            if v.is_leader() && !v.paused {
                self.leaders.insert(id);
                if !was_leader {
                    if let Some(kind) = self.split_brain_id.filter(|_| self.leaders.len() >= 2) {
                        findings.violations.push(Violation {
                            kind,
                            time,
                            step,
                            nodes: self.leaders.iter().copied().collect(),
                            term: None,
                        });
                    }
                    if let (Some(t), Some(kind)) = (v.term, self.term_id) {
                        match self.term_leaders.get(&t) {
                            Some(&other) if other != id => findings.violations.push(Violation {
                                kind,
                                time,
                                step,
                                nodes: vec![other.min(id), other.max(id)],
                                term: Some(t),
                            }),
                            Some(_) => {}
                            None => {
                                self.term_leaders.insert(t, id);
                            }
                        }
                    }
                }
            }
        }
        self.plain[i] = new.as_ref().is_some_and(is_plain);
        self.views[i] = new;
        self.max_simultaneous = self.max_simultaneous.max(self.leaders.len() as u32);

        let agreed = self.compute_agreement();
        if agreed != self.agreed {
            match agreed {
                None => self.disagree_since = Some(time),
                Some(leader) => {
                    if let Some(from) = self.disagree_since.take() {
                        findings.election = Some(Election { from, to: time, step, leader });
                    }
                }
            }
            self.agreed = agreed;
        }
    }

    /// Since when the live nodes have not named one leader (an election in progress, or none
    /// finished yet), while they do not; `None` while they agree.
    pub fn disagree_since(&self) -> Option<Time> {
        self.disagree_since
    }

    /// A violation the protocol found itself (a [`Monitor::Reported`] property).
    pub fn report(
        &mut self,
        property: &'static str,
        mut nodes: Vec<NodeId>,
        time: Time,
        step: u64,
        findings: &mut Findings,
    ) {
        nodes.sort_unstable();
        findings.violations.push(Violation { kind: property, time, step, nodes, term: None });
    }

    fn compute_agreement(&self) -> Option<NodeId> {
        if self.no_view != 0 || self.view_counts.len() != 1 {
            return None;
        }
        let (&leader, &count) = self.view_counts.iter().next()?;
        if count != self.live {
            return None;
        }
        let i = self.ids.iter().position(|&x| x == leader)?;
        self.views[i].as_ref().map(|_| leader)
    }
}
