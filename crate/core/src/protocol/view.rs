//! [`View`]: the picture of one node that observers and the UI read — a small core every
//! algorithm fills (role, leader, term, vote, tally) and a few [`Decoration`]s, the drawings
//! particular to an algorithm (a group's hull, a probe's reach, a lease bar), each drawn by one
//! generic drawing of the page whatever algorithm produced it, and listed by its legend.

use crate::meta::Text;
use crate::{NodeId, Time};

/// The protocol-independent picture of one node that observers and the UI use.
#[derive(Clone, Debug, PartialEq, Eq, Default)]
pub struct View {
    /// `"leader"` (or ZooKeeper's `"leading"`) means the node believes it is the leader. Others: `"follower"`, `"candidate"`,
    /// or a protocol role such as `"waiting-ok"`.
    pub role: &'static str,
    /// Who this node believes leads (itself included), if anyone.
    pub leader: Option<NodeId>,
    /// Term or epoch, for protocols that have one.
    pub term: Option<u64>,
    /// What `term` counts, when it is not a Raft-style term (a ballot, a round, an epoch): the
    /// UI writes "ballot 7" instead of "t7".
    pub term_word: Option<&'static Text>,
    /// Whom this node voted for in its current term.
    pub vote: Option<NodeId>,
    /// A candidate's tally: (votes held, votes needed).
    pub tally: Option<(u32, u32)>,
    /// What `tally` counts, when it is not votes (Paxos: promises, then acceptances): the UI
    /// writes "promises 2 / 3" instead of "votes 2 / 3", so that the label names what the
    /// narration counts.
    pub tally_word: Option<&'static Text>,
    /// A recorded member frozen (a stopped process, a long GC pause): it keeps its state, does nothing.
    pub paused: bool,
    /// What the algorithm draws besides the core: add them with [`View::with`].
    pub decorations: Decorations,
}

/// One drawing particular to an algorithm, which the page draws generically (one drawing per
/// variant, whatever algorithm produces it) and its legend lists. A new visual is a new variant
/// here, the algorithm's `view` producing it and the page's one drawing of it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Decoration {
    /// This node's parent in a spanning tree the algorithm builds on the scenario's graph (a
    /// wave's father, the neighbour the largest id came from): the UI draws that link bold.
    Parent(NodeId),
    /// The neighbours its links point to, for an algorithm orienting the network's links (YO-YO):
    /// the UI draws arrows, and a link neither end points along (both telling) as pruned.
    Out(Vec<NodeId>),
    /// The group this node belongs to, named by its group leader (group-merging algorithms such
    /// as Invitation): the UI draws a coloured hull round each group.
    Group(NodeId),
    /// The id whose colour this node wears (gossip: the candidate it backs), so that a value
    /// spreading through the cluster shows as a spreading colour: the UI rings the node with it.
    Tint(NodeId),
    /// How far this node's current probe reaches, in hops each way along the ring (probing ring
    /// algorithms such as Hirschberg-Sinclair): the UI draws it as an arc.
    Reach(u32),
    /// Where this node (`at`) and the key it looks up sit on a hash ring, as positions in
    /// `[0, 2^32)` (consistent-hashing algorithms such as the DHT election): the UI places the
    /// nodes round the circle in hash order and marks the key.
    HashRing { at: u32, key: u32 },
    /// A lease this node holds or keeps: the real times (simulator ticks) it runs `from` and
    /// `until`, and its length in this node's own clock `ticks` (lease algorithms): the UI draws
    /// a bar draining from `from` to `until`.
    Lease { from: Time, until: Time, ticks: u32 },
    /// The node's data version that votes compare before ids (ZooKeeper's ZXID, the last
    /// transaction it has seen): the UI writes it under the node.
    Zxid(u64),
}

/// What a [`Decoration`] draws, without its data: the legend's entries and the conformance
/// suite's "which drawings appear" name these. In the order the legend lists them.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum DecorationKind {
    Parent,
    Out,
    Group,
    Tint,
    Reach,
    HashRing,
    Lease,
    Zxid,
}

impl DecorationKind {
    /// Every kind, in the legend's order.
    pub const ALL: [DecorationKind; 8] = [
        DecorationKind::Parent,
        DecorationKind::Out,
        DecorationKind::Group,
        DecorationKind::Tint,
        DecorationKind::Reach,
        DecorationKind::HashRing,
        DecorationKind::Lease,
        DecorationKind::Zxid,
    ];
}

impl Decoration {
    pub fn kind(&self) -> DecorationKind {
        match self {
            Decoration::Parent(_) => DecorationKind::Parent,
            Decoration::Out(_) => DecorationKind::Out,
            Decoration::Group(_) => DecorationKind::Group,
            Decoration::Tint(_) => DecorationKind::Tint,
            Decoration::Reach(_) => DecorationKind::Reach,
            Decoration::HashRing { .. } => DecorationKind::HashRing,
            Decoration::Lease { .. } => DecorationKind::Lease,
            Decoration::Zxid(_) => DecorationKind::Zxid,
        }
    }
}

/// The most decorations one view carries (today's algorithms use two at most).
pub const MAX_DECORATIONS: usize = 3;

/// A view's decorations, held inline (views are built per node after every step: no
/// allocation), filled from the front, in the order the algorithm added them.
#[derive(Clone, Debug, Eq)]
pub struct Decorations([Option<Decoration>; MAX_DECORATIONS]);

/// Slot by slot, but two undecorated lists (most views) are equal at their first slot: the slots
/// fill from the front, so an empty first slot means an empty list. Views are compared after
/// every handler.
impl PartialEq for Decorations {
    #[inline(always)]
    fn eq(&self, other: &Self) -> bool {
        match (&self.0[0], &other.0[0]) {
            (None, None) => true,
            (None, Some(_)) | (Some(_), None) => false,
            (Some(_), Some(_)) => self.0 == other.0,
        }
    }
}

impl Default for Decorations {
    /// Written out rather than derived: the array's derived default is a loop the compiler
    /// does not fold into a plain view, which costs every step a comparison and a drop.
    #[inline(always)]
    fn default() -> Self {
        Decorations([None, None, None])
    }
}

impl Decorations {
    /// None at all (the slots fill from the front, so the first decides).
    #[inline(always)]
    pub fn is_empty(&self) -> bool {
        self.0[0].is_none()
    }

    pub fn iter(&self) -> impl Iterator<Item = &Decoration> {
        self.0.iter().map_while(Option::as_ref)
    }

    /// Adds `d` after the others.
    ///
    /// # Panics
    /// With more than [`MAX_DECORATIONS`]: an algorithm's `view` is code, and the conformance
    /// suite builds every algorithm's views, so that raising the limit is caught there.
    #[inline(always)]
    pub fn push(&mut self, d: Decoration) {
        match self.0.iter_mut().find(|s| s.is_none()) {
            Some(slot) => *slot = Some(d),
            None => too_many(),
        }
    }
}

#[cold]
fn too_many() -> ! {
    panic!("a view carries at most {MAX_DECORATIONS} decorations (raise MAX_DECORATIONS)")
}

impl View {
    pub fn is_leader(&self) -> bool {
        self.role == super::LEADER || self.role == super::LEADING
    }

    /// This view with `d` added, if it is `Some` (a [`Decoration`] itself converts):
    /// `View { role, ..View::default() }.with(Decoration::Tint(best)).with(parent.map(Decoration::Parent))`.
    #[inline(always)]
    pub fn with(mut self, d: impl Into<Option<Decoration>>) -> View {
        if let Some(d) = d.into() {
            self.decorations.push(d);
        }
        self
    }

    /// Whether this view carries a decoration of this kind.
    pub fn has(&self, kind: DecorationKind) -> bool {
        self.decorations.iter().any(|d| d.kind() == kind)
    }

    fn find<T>(&self, f: impl Fn(&Decoration) -> Option<T>) -> Option<T> {
        self.decorations.iter().find_map(f)
    }

    /// [`Decoration::Parent`]'s node.
    pub fn parent(&self) -> Option<NodeId> {
        self.find(|d| if let Decoration::Parent(x) = d { Some(*x) } else { None })
    }
    /// [`Decoration::Out`]'s neighbours.
    pub fn out(&self) -> Option<&[NodeId]> {
        self.decorations.iter().find_map(|d| if let Decoration::Out(x) = d { Some(x.as_slice()) } else { None })
    }
    /// [`Decoration::Group`]'s group.
    pub fn group(&self) -> Option<NodeId> {
        self.find(|d| if let Decoration::Group(x) = d { Some(*x) } else { None })
    }
    /// [`Decoration::Tint`]'s id.
    pub fn tint(&self) -> Option<NodeId> {
        self.find(|d| if let Decoration::Tint(x) = d { Some(*x) } else { None })
    }
    /// [`Decoration::Reach`]'s hops.
    pub fn reach(&self) -> Option<u32> {
        self.find(|d| if let Decoration::Reach(x) = d { Some(*x) } else { None })
    }
    /// [`Decoration::HashRing`]'s (node position, key position).
    pub fn hash_ring(&self) -> Option<(u32, u32)> {
        self.find(|d| if let Decoration::HashRing { at, key } = d { Some((*at, *key)) } else { None })
    }
    /// [`Decoration::Lease`]'s (from, until, ticks).
    pub fn lease(&self) -> Option<(Time, Time, u32)> {
        self.find(
            |d| if let Decoration::Lease { from, until, ticks } = d { Some((*from, *until, *ticks)) } else { None },
        )
    }
    /// [`Decoration::Zxid`]'s version.
    pub fn zxid(&self) -> Option<u64> {
        self.find(|d| if let Decoration::Zxid(x) = d { Some(*x) } else { None })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn decorations_are_equal_exactly_when_their_lists_are() {
        let plain = View::default;
        let group = |g| View::default().with(Decoration::Group(g));
        assert_eq!(plain().decorations, plain().decorations);
        assert_ne!(plain().decorations, group(1).decorations);
        assert_ne!(group(1).decorations, plain().decorations);
        assert_ne!(group(1).decorations, group(2).decorations);
        assert_eq!(group(1).with(Decoration::Reach(3)).decorations, group(1).with(Decoration::Reach(3)).decorations);
        assert_ne!(group(1).with(Decoration::Reach(3)).decorations, group(1).with(Decoration::Reach(4)).decorations);
        assert_ne!(group(1).with(Decoration::Reach(3)).decorations, group(1).decorations);
    }
}
