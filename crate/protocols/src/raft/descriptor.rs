//! Raft's descriptor (what the page, the CLI and the tests read about it) and its messages' names.

use super::*;

pub const ALGORITHM: Algorithm = Algorithm {
    id: "raft",
    title: k::RAFT_TITLE,
    citation: "D. Ongaro and J. Ousterhout, In Search of an Understandable Consensus Algorithm, USENIX ATC 2014",
    summary: k::RAFT_SUMMARY,
    card: k::RAFT_CARD,
    topology: Topology::Complete,
    kinds: KINDS,
    roles: &[LEADER_ROLE, FOLLOWER_ROLE, CANDIDATE_ROLE, PRE_CANDIDATE_ROLE],
    formulas: &[
        Formula::new("2(N−1)", k::RAFT_FORMULA_1, &["REQUEST_VOTE", "VOTE_GRANT", "VOTE_DENY"], |n| {
            2 * n.saturating_sub(1)
        }),
        Formula::new(
            "3(N−1)",
            k::RAFT_FORMULA_2,
            &["REQUEST_VOTE", "VOTE_GRANT", "VOTE_DENY", "APPEND_ENTRIES"],
            |n| 3 * n.saturating_sub(1),
        ),
    ],
    properties: &[ONE_LEADER_PER_TERM, single_leader(Faults::CrashStop)],
    presets: PRESETS,
    build: run::build::<Raft>,
};

const PRESETS: &[Preset] = &[
    Preset {
        id: "split-brain-raft",
        title: k::RAFT_PRESET_SPLIT_BRAIN_RAFT_TITLE,
        hint: k::RAFT_PRESET_SPLIT_BRAIN_RAFT_HINT,
        json: r#"{"algorithm":"raft","nodes":[1,2,3,4,5],"seed":425,"initial_leader":5,
                  "heartbeats":{"interval":2,"timeout":10},"stop":{"max_time":300}}"#,
        leaders: &[5],
        // Pins a minority that campaigns term after term without 3 of 5 votes: one leader per term.
        golden: "cdde8d18e09bc193",
    },
    Preset {
        id: "raft-cold",
        title: k::RAFT_PRESET_RAFT_COLD_TITLE,
        hint: k::RAFT_PRESET_RAFT_COLD_HINT,
        json: r#"{"algorithm":"raft","nodes":[1,2,3,4,5],"seed":7,
                  "heartbeats":{"interval":3,"timeout":12},"stop":{"max_time":300}}"#,
        leaders: &[4],
        // Pins randomized timeouts from cold: the first candidate wins with 3 of 5 votes.
        golden: "1024adfc4aca0ff1",
    },
];

impl Msg {
    pub(super) fn term(&self) -> u64 {
        match *self {
            Msg::RequestVote { term, .. }
            | Msg::VoteGrant { term }
            | Msg::VoteDeny { term }
            | Msg::AppendEntries { term }
            | Msg::AppendAck { term }
            | Msg::AppendReject { term }
            | Msg::PreVote { term, .. }
            | Msg::PreVoteGrant { term }
            | Msg::PreVoteDeny { term } => term,
        }
    }

    /// A pre-vote and its replies carry a term nobody adopts (thesis §9.6).
    pub(super) fn binding(&self) -> bool {
        !matches!(self, Msg::PreVote { .. } | Msg::PreVoteGrant { .. } | Msg::PreVoteDeny { .. })
    }
}

impl Message for Msg {
    fn label(&self) -> String {
        match self {
            Msg::RequestVote { term, last_index, last_term } => {
                format!("REQUEST_VOTE(t{term}, log {last_index}@{last_term})")
            }
            Msg::PreVote { term, last_index, last_term } => format!("PRE_VOTE(t{term}, log {last_index}@{last_term})"),
            m => format!("{}(t{})", KINDS[m.kind()].name, m.term()),
        }
    }
}
