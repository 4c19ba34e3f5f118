//! The real systems whose logs make recorded runs: each one's puppet flavour (its message kinds,
//! roles and narrations), its recorded algorithm (`ID`, `ALGORITHM`, with the preset of a
//! committed real run) and the textbook algorithm that replays it (`MODEL`). Their logs are read
//! by the shipped mappings (`events/etcd.json`, `events/zookeeper.json`, `events/sentinel.json`):
//! see [`super::SOURCES`].

/// etcd 3.4, whose Raft follows Ongaro & Ousterhout 2014 (Redis Sentinel's vote per epoch is
/// drawn in the same words).
pub mod etcd {
    use super::super::Flavor;
    use crate::algorithm::Algorithm;
    use crate::meta::k;
    use crate::meta::{single_leader, CANDIDATE_ROLE, FOLLOWER_ROLE, LEADER_ROLE};
    use crate::meta::{Faults, Kind, Look, Preset, Role, Text, Topology, Visual, ONE_LEADER_PER_TERM};

    pub const ID: &str = "etcd-log";
    /// The textbook algorithm that replays an etcd run.
    pub const MODEL: &str = "raft";

    #[derive(Clone, Debug)]
    pub struct Etcd;

    pub const KINDS: &[Kind] = &[
        Kind::new("REQUEST_VOTE", "RV", Visual::Request, k::ETCD_LOG_KIND_REQUEST_VOTE),
        Kind::new("VOTE_GRANT", "✓", Visual::Answer, k::ETCD_LOG_KIND_VOTE_GRANT),
        Kind::new("VOTE_DENY", "✗", Visual::Refusal, k::ETCD_LOG_KIND_VOTE_DENY),
        Kind::new("PRE_VOTE", "PV", Visual::Request, k::ETCD_LOG_KIND_PRE_VOTE),
        Kind::new("PRE_VOTE_GRANT", "p✓", Visual::Answer, k::ETCD_LOG_KIND_PRE_VOTE_GRANT),
        Kind::new("PRE_VOTE_DENY", "p✗", Visual::Refusal, k::ETCD_LOG_KIND_PRE_VOTE_DENY),
    ];

    const PRE_CANDIDATE: Role = Role::new("pre-candidate", Look::Candidate, k::ETCD_LOG_ROLE_PRE_CANDIDATE);

    impl Flavor for Etcd {
        const KINDS: &'static [Kind] = KINDS;
        const INITIAL_ROLE: &'static str = "follower";
        const ROLES: &'static [&'static str] = &["leader", "follower", "candidate", "pre-candidate"];
        const TERM_WORD: Option<&'static Text> = None;
        const VOTE_KIND: Option<usize> = Some(1);
        const SAYS: &'static [(&'static str, Text)] = &[
            ("follower", k::ETCD_LOG_MEMBER_0_BECAME_FOLLOWER_AT),
            ("pre-candidate", k::ETCD_LOG_MEMBER_0_BECAME_PRE_CANDIDATE),
            ("candidate", k::ETCD_LOG_MEMBER_0_BECAME_CANDIDATE_AT),
            ("leader", k::ETCD_LOG_MEMBER_0_BECAME_LEADER_AT),
            ("elected", k::ETCD_LOG_MEMBER_0_LEARNS_THAT_MEMBER),
            ("lost", k::ETCD_LOG_MEMBER_0_LOST_ITS_LEADER),
            ("starting", k::ETCD_LOG_MEMBER_0_S_ELECTION_TIMEOUT),
            ("tally", k::ETCD_LOG_MEMBER_0_HAS_1_VOTES),
            ("higher", k::ETCD_LOG_MEMBER_0_SEES_A_VOTE),
            ("self-vote", k::ETCD_LOG_MEMBER_0_COUNTS_ITS_OWN),
            ("peer-down", k::ETCD_LOG_MEMBER_0_LOST_ITS_CONNECTION),
            ("peer-up", k::ETCD_LOG_MEMBER_0_REACHES_MEMBER_1),
            ("started", k::ETCD_LOG_MEMBER_0_RE_STARTED_ITS),
        ];
        const SENT: &'static [Text] = &[
            k::ETCD_LOG_MEMBER_0_SENDS_MEMBER_1,
            k::ETCD_LOG_MEMBER_0_CASTS_ITS_VOTE,
            k::ETCD_LOG_MEMBER_0_REJECTS_MEMBER_1,
            k::ETCD_LOG_MEMBER_0_SENDS_MEMBER_1_2,
            k::ETCD_LOG_MEMBER_0_GRANTS_MEMBER_1,
            k::ETCD_LOG_MEMBER_0_REFUSES_MEMBER_1,
        ];
        const GOT: &'static [Text] = &[
            k::ETCD_LOG_MEMBER_0_GETS_MEMBER_1,
            k::ETCD_LOG_MEMBER_0_GETS_MEMBER_1_2,
            k::ETCD_LOG_MEMBER_0_GETS_MEMBER_1_3,
            k::ETCD_LOG_MEMBER_0_GETS_MEMBER_1_4,
            k::ETCD_LOG_MEMBER_0_GETS_MEMBER_1_5,
            k::ETCD_LOG_MEMBER_0_GETS_MEMBER_1_6,
        ];
        fn label(kind: usize, term: u64, _extra: u64) -> String {
            format!("{}(t{term})", KINDS.get(kind).map_or("?", |k| k.name))
        }
    }

    puppet_protocol!(EtcdLog, Etcd);

    pub const ALGORITHM: Algorithm = Algorithm {
        id: ID,
        title: k::ETCD_LOG_TITLE,
        citation: "etcd 3.4 (Raft: D. Ongaro and J. Ousterhout, In Search of an Understandable Consensus Algorithm, USENIX ATC 2014)",
        summary: k::ETCD_LOG_SUMMARY,
        card: k::ETCD_LOG_CARD,
        topology: Topology::Complete,
        kinds: KINDS,
        roles: &[LEADER_ROLE, FOLLOWER_ROLE, CANDIDATE_ROLE, PRE_CANDIDATE],
        formulas: &[],
        properties: &[single_leader(Faults::Any), ONE_LEADER_PER_TERM],
        presets: &[Preset {
            id: "etcd-leader-killed",
            title: k::ETCD_LOG_PRESET_ETCD_LEADER_KILLED_TITLE,
            hint: k::ETCD_LOG_PRESET_ETCD_LEADER_KILLED_HINT,
            json: include_str!("etcd-leader-killed.json"),
            leaders: &[2],
            // Pins the replay of a real etcd 3.4 log: the kill, the second election and its term.
            golden: "9ec3653868bfaf29",
        }],
        build: crate::run::build::<EtcdLog>,
    };
}

/// ZooKeeper 3.8's fast leader election, as described by Junqueira, Reed & Serafini 2011.
pub mod zookeeper {
    use super::super::Flavor;
    use crate::algorithm::Algorithm;
    use crate::meta::k;
    use crate::meta::{single_leader, Faults, Kind, Look, Preset, Role, Text, Topology, Visual};
    use crate::protocol::LEADING;

    pub const ID: &str = "zookeeper-log";
    /// The textbook algorithm that replays a ZooKeeper run.
    pub const MODEL: &str = "zookeeper";

    #[derive(Clone, Debug)]
    pub struct Zk;

    pub const KINDS: &[Kind] = &[Kind::new("VOTE", "V", Visual::Request, k::ZOOKEEPER_LOG_KIND_VOTE)];

    static ROUND: Text = k::INSPECT_ROUND;

    impl Flavor for Zk {
        const KINDS: &'static [Kind] = KINDS;
        const INITIAL_ROLE: &'static str = "looking";
        const ROLES: &'static [&'static str] = &["looking", "following", LEADING, "observing"];
        const TERM_WORD: Option<&'static Text> = Some(&ROUND);
        const VOTE_KIND: Option<usize> = None;
        const SAYS: &'static [(&'static str, Text)] = &[
            ("looking", k::ZOOKEEPER_LOG_SERVER_0_IS_LOOKING_FOR),
            ("following", k::ZOOKEEPER_LOG_SERVER_0_IS_FOLLOWING_SERVER),
            ("leading", k::ZOOKEEPER_LOG_SERVER_0_IS_LEADING_ITS),
            ("new-election", k::ZOOKEEPER_LOG_SERVER_0_STARTS_A_NEW),
            ("round", k::ZOOKEEPER_LOG_SERVER_0_IS_IN_ELECTION),
            ("proposal", k::ZOOKEEPER_LOG_SERVER_0_NOW_PROPOSES_SERVER),
            ("peer-down", k::ZOOKEEPER_LOG_SERVER_0_LOST_ITS_CONNECTION),
            ("started", k::ZOOKEEPER_LOG_SERVER_0_RE_STARTED_ITS),
        ];
        const SENT: &'static [Text] = &[k::ZOOKEEPER_LOG_SERVER_0_SENDS_SERVER_1];
        const GOT: &'static [Text] = &[k::ZOOKEEPER_LOG_SERVER_0_GETS_SERVER_1];
        fn label(_kind: usize, round: u64, leader: u64) -> String {
            format!("VOTE(N{leader}, r{round})")
        }
    }

    puppet_protocol!(ZookeeperLog, Zk);

    pub const ALGORITHM: Algorithm = Algorithm {
        id: ID,
        title: k::ZOOKEEPER_LOG_TITLE,
        citation: "ZooKeeper 3.8 (fast leader election: F. P. Junqueira, B. C. Reed and M. Serafini, Zab: High-performance broadcast for primary-backup systems, DSN 2011)",
        summary: k::ZOOKEEPER_LOG_SUMMARY,
        card: k::ZOOKEEPER_LOG_CARD,
        topology: Topology::Complete,
        kinds: KINDS,
        roles: &[
            Role::new("looking", Look::Candidate, k::ZOOKEEPER_ROLE_LOOKING),
            Role::new("following", Look::Follower, k::ZOOKEEPER_ROLE_FOLLOWING),
            Role::new(LEADING, Look::Leader, k::ZOOKEEPER_LOG_LEADING),
            Role::new("observing", Look::Follower, k::ZOOKEEPER_LOG_ROLE_OBSERVING),
        ],
        formulas: &[],
        properties: &[single_leader(Faults::Any)],
        presets: &[Preset {
            id: "zookeeper-leader-killed",
            title: k::ZOOKEEPER_LOG_PRESET_ZOOKEEPER_LEADER_KILLED_TITLE,
            hint: k::ZOOKEEPER_LOG_PRESET_ZOOKEEPER_LEADER_KILLED_HINT,
            json: include_str!("zookeeper-leader-killed.json"),
            leaders: &[2],
            // Pins the replay of a real ZooKeeper 3.8 log: the kill and the second election.
            golden: "a0c24197afedfb06",
        }],
        build: crate::run::build::<ZookeeperLog>,
    };
}
