//! What an algorithm says about itself, as plain data: its message kinds and their visual roles,
//! its node roles, its topology, the formulas theory gives for its message counts, the safety
//! properties it claims (and under which faults), and its presets.
//!
//! Nothing here runs anything: the engine, the CLI, the UI and the conformance tests read these
//! values, so that no code outside an algorithm's own module needs to know which algorithm runs.

/// How the nodes are connected, which decides how they are drawn.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Topology {
    /// Everyone may talk to everyone (Bully, Raft, ...).
    Complete,
    /// A ring in scenario order; messages go clockwise to the successor only.
    Ring,
    /// A ring in scenario order; messages go both ways, to either neighbour.
    BidirectionalRing,
    /// A complete graph plus one distinguished node (a store or a shared resource), drawn apart.
    WithResource,
}

impl Topology {
    pub fn is_ring(self) -> bool {
        matches!(self, Topology::Ring | Topology::BidirectionalRing)
    }
}

/// What a message kind does, from which its colour and legend entry follow.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Visual {
    /// Asks for something: ELECTION, REQUEST_VOTE, PREPARE.
    Request,
    /// A positive answer: OK, VOTE_GRANT, PROMISE, acks.
    Answer,
    /// Tells everyone the outcome: COORDINATOR, ELECTED.
    Announcement,
    /// Periodic proof of life.
    Heartbeat,
    /// A negative answer: VOTE_DENY, a rejected write.
    Refusal,
    /// Carries data or log entries: APPEND_ENTRIES, a write.
    Data,
}

impl Visual {
    pub const ALL: &'static [Visual] = &[Visual::Request, Visual::Answer, Visual::Announcement, Visual::Heartbeat, Visual::Refusal, Visual::Data];

    pub fn name(self) -> &'static str {
        match self {
            Visual::Request => "request",
            Visual::Answer => "answer",
            Visual::Announcement => "announcement",
            Visual::Heartbeat => "heartbeat",
            Visual::Refusal => "refusal",
            Visual::Data => "data",
        }
    }
}

/// One message kind of an algorithm.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Kind {
    /// In capitals, as the literature names it: `ELECTION`, `REQUEST_VOTE`.
    pub name: &'static str,
    /// Up to three characters drawn next to a moving dot.
    pub short: &'static str,
    pub visual: Visual,
}

impl Kind {
    pub const fn new(name: &'static str, short: &'static str, visual: Visual) -> Kind {
        Kind { name, short, visual }
    }
}

/// How a node role is drawn. Protocols name their roles freely (`waiting-coord`,
/// `participant`); each maps to one of these looks.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Look {
    Leader,
    Follower,
    /// Actively campaigning.
    Candidate,
    /// Waiting for someone else's announcement.
    Waiting,
    /// Taking part in an election without campaigning.
    Participant,
}

impl Look {
    pub fn name(self) -> &'static str {
        match self {
            Look::Leader => "leader",
            Look::Follower => "follower",
            Look::Candidate => "candidate",
            Look::Waiting => "waiting",
            Look::Participant => "participant",
        }
    }
}

/// One node role (the `role` of a [`crate::protocol::View`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Role {
    pub name: &'static str,
    pub look: Look,
    /// A few words for the legend: "waiting for COORDINATOR".
    pub explain: &'static str,
}

impl Role {
    pub const fn new(name: &'static str, look: Look, explain: &'static str) -> Role {
        Role { name, look, explain }
    }
}

pub const LEADER_ROLE: Role = Role::new("leader", Look::Leader, "believes it leads");
pub const FOLLOWER_ROLE: Role = Role::new("follower", Look::Follower, "follows a leader or waits");
pub const CANDIDATE_ROLE: Role = Role::new("candidate", Look::Candidate, "campaigning");

/// A message count that theory gives, to show beside the measured one.
#[derive(Clone, Copy, Debug)]
pub struct Formula {
    /// The formula as written: `N²−N−1`.
    pub name: &'static str,
    /// When it applies: "worst case: the top id crashed and every other node starts at once".
    pub applies: &'static str,
    /// The message kinds it counts.
    pub counts: &'static [&'static str],
    /// Its value for N nodes.
    pub value: fn(u64) -> u64,
}

/// The faults under which a property is claimed to hold.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Faults {
    /// Any crash, recovery, partition, one-way cut, message loss and random latency.
    Any,
    /// Nodes may crash and stay down; the network loses nothing, never partitions, and delivers
    /// within a known bound (the synchronous model of the classic algorithms).
    CrashStop,
}

impl Faults {
    pub fn describe(self) -> &'static str {
        match self {
            Faults::Any => "under any crash, recovery, partition, loss or delay",
            Faults::CrashStop => "while the network is synchronous and never partitioned (nodes may crash)",
        }
    }
}

/// How a property's violations are found.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Monitor {
    /// Two or more live nodes believe they lead at the same time.
    SplitBrain,
    /// Two different nodes lead the same term or epoch.
    TwoLeadersInTerm,
    /// The protocol reports violations itself (e.g. a fenced store accepting an old token).
    Reported,
}

/// A safety property an algorithm claims.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Property {
    /// Also the `kind` of its violations: `split-brain`, `two-leaders-in-term`.
    pub id: &'static str,
    pub title: &'static str,
    pub explain: &'static str,
    pub holds: Faults,
    pub monitor: Monitor,
}

pub const SPLIT_BRAIN: &str = "split-brain";
pub const TWO_LEADERS_IN_TERM: &str = "two-leaders-in-term";

/// At most one live node believes it leads at any moment.
pub const fn single_leader(holds: Faults) -> Property {
    Property {
        id: SPLIT_BRAIN,
        title: "Single leader",
        explain: "at most one live node believes it leads at any moment",
        holds,
        monitor: Monitor::SplitBrain,
    }
}

/// No two nodes lead the same term.
pub const ONE_LEADER_PER_TERM: Property = Property {
    id: TWO_LEADERS_IN_TERM,
    title: "One leader per term",
    explain: "no two nodes ever lead the same term",
    holds: Faults::Any,
    monitor: Monitor::TwoLeadersInTerm,
};

/// A ready scenario of an algorithm, with the trace hash it must replay to.
#[derive(Clone, Copy, Debug)]
pub struct Preset {
    pub id: &'static str,
    pub title: &'static str,
    /// One or two sentences shown under the picker: what to watch or try.
    pub hint: &'static str,
    /// The scenario, as JSON.
    pub json: &'static str,
    /// The trace hash of a run to the end (hex), identical natively and in wasm.
    pub golden: &'static str,
}
