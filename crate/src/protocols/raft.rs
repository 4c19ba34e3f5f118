//! **Raft-style quorum election** (D. Ongaro and J. Ousterhout, "In Search of an Understandable
//! Consensus Algorithm", USENIX ATC 2014: §5.2 for elections, §5.4.1 for the election
//! restriction).
//!
//! Terms are a logical clock: any message with a higher term makes the receiver adopt it, forget
//! its vote and become a follower. A follower whose randomized election timer (a tick range,
//! drawn by the simulator) expires becomes a candidate: term + 1, votes for itself, sends
//! REQUEST_VOTE(term, last log index, last log term). A node grants at most one vote per term,
//! and only to a candidate whose log is at least as up to date as its own (last term first, then
//! index). A candidate with ⌊N/2⌋+1 votes leads and announces itself with APPEND_ENTRIES, which
//! it repeats every `heartbeats.interval`; followers answer APPEND_ACK and reset their timer.
//! A leader that has not heard ⌊N/2⌋+1 acknowledgements (itself included) within its ack
//! window steps down. `currentTerm`, `votedFor` and the log survive a crash.
//!
//! * Replies: a refused vote is VOTE_DENY and a refused append is APPEND_REJECT (the paper's
//!   `voteGranted = false` / `success = false` replies), so both can be told apart in a drawing.
//! * `initial_leader`: every node starts in term 1 having voted for it, and it starts as leader.
//! * With `heartbeats: null` no timer runs: elections begin only by `start`, and a leader
//!   announces itself once.
//!
//! Parameters (`params`): `election_timeout` `[lo, hi]` (default `[T, 2T]` with
//! `T = heartbeats.timeout`, the usual `random(T, 2T)`), `ack_window` (default
//! `3 × heartbeats.interval`, but at least `interval + 2·latency_max + 1`: three intervals
//! assume a round trip far shorter than a heartbeat interval, and a window that
//! cannot hold a round trip makes a healthy, fully connected leader miss its quorum of acks and
//! step down again and again), `log`: `{ "<id>": [last_index, last_term] }` (default `[0, 0]`
//! for every node).

use crate::algorithm::Algorithm;
use crate::error::ScenarioError;
use crate::meta::{single_leader, Faults, Formula, Kind, Preset, Text, Topology, Visual, CANDIDATE_ROLE, FOLLOWER_ROLE, LEADER_ROLE, ONE_LEADER_PER_TERM};
use crate::protocol::{fmt_node, pair, ParamReader, Config, Ctx, Message, Params, Protocol, TimerKey, View, CANDIDATE, FOLLOWER, LEADER};
use crate::run;
use crate::{NodeId, Time};
use std::collections::BTreeMap;

#[derive(Clone, Debug)]
pub struct Raft {
    pub election_timeout: (Time, Time),
    pub ack_window: Time,
    /// (last log index, last log term) per node id.
    pub logs: BTreeMap<NodeId, (u64, u64)>,
}

pub const ALGORITHM: Algorithm = Algorithm {
    id: "raft",
    title: Text::new("Raft-style quorum", "Raft 式多数派选举"),
    citation: "D. Ongaro and J. Ousterhout, In Search of an Understandable Consensus Algorithm, USENIX ATC 2014",
    summary: Text::new(
        "A node whose randomized timer runs out asks for votes in a new term; one vote per node per term, and a majority makes a leader, so a minority can never elect.",
        "随机定时器到期的节点在新任期中请求投票；每个节点每个任期只投一票，获得多数派票数才能成为领导者，因此少数派永远无法选出领导者。",
    ),
    card: Text::new(
        "Time is cut into terms, each with at most one leader.\n\n\
         • A follower that hears nothing from a leader before its randomized election timeout becomes a candidate: it starts a new term, votes for itself and sends REQUEST_VOTE.\n\
         • A node grants at most one vote per term, and only to a candidate whose log is at least as up to date as its own.\n\
         • A candidate with votes from a majority (⌊N/2⌋+1) leads, and sends APPEND_ENTRIES as its heartbeat.\n\
         • Any message with a higher term makes the receiver adopt that term and step down.\n\n\
         What to watch: randomized timeouts that usually let one candidate win; under a partition, the minority side campaigns term after term but never reaches a majority — no split brain.",
        "时间被划分为任期（term），每个任期至多一个领导者。\n\n\
         • 跟随者在随机的选举超时内没有收到领导者的消息，就成为候选人：进入新任期，投自己一票，并发送 REQUEST_VOTE。\n\
         • 每个节点每个任期至多投一票，且只投给日志至少和自己一样新的候选人。\n\
         • 获得多数派（⌊N/2⌋+1）投票的候选人成为领导者，并以 APPEND_ENTRIES 作为心跳。\n\
         • 收到更高任期的消息时，节点采用该任期并退为跟随者。\n\n\
         观察要点：随机超时通常只让一个候选人胜出；网络分区时，少数派一轮又一轮地竞选，却永远得不到多数票——不会脑裂。",
    ),
    topology: Topology::Complete,
    kinds: KINDS,
    roles: &[LEADER_ROLE, FOLLOWER_ROLE, CANDIDATE_ROLE],
    formulas: &[
        Formula {
            name: "2(N−1)",
            applies: Text::new(
                "the votes of one uncontested election: N−1 REQUEST_VOTE and N−1 replies (with the new leader's first round of N−1 APPEND_ENTRIES, the ≈ 3N−2 usually quoted)",
                "一次无竞争选举的投票：N−1 条 REQUEST_VOTE 与 N−1 条回复（加上新领导者第一轮 N−1 条 APPEND_ENTRIES，即常说的约 3N−2 条）",
            ),
            counts: &["REQUEST_VOTE", "VOTE_GRANT", "VOTE_DENY"],
            value: |n| 2 * n.saturating_sub(1),
        },
        Formula {
            name: "3(N−1)",
            applies: Text::new(
                "one uncontested election with the new leader's first round: N−1 REQUEST_VOTE, N−1 replies, N−1 APPEND_ENTRIES (quoted as about 3N−2)",
                "一次无竞争选举加上新领导者的第一轮：N−1 条 REQUEST_VOTE、N−1 条回复、N−1 条 APPEND_ENTRIES（常说约 3N−2 条）",
            ),
            counts: &["REQUEST_VOTE", "VOTE_GRANT", "VOTE_DENY", "APPEND_ENTRIES"],
            value: |n| 3 * n.saturating_sub(1),
        },
    ],
    properties: &[ONE_LEADER_PER_TERM, single_leader(Faults::CrashStop)],
    presets: PRESETS,
    build: run::build::<Raft>,
};

const PRESETS: &[Preset] = &[
    Preset {
        id: "split-brain-raft",
        title: Text::new("The same partition under Raft", "同样的分区，换成 Raft"),
        hint: Text::new(
            "N5 leads term 1. Cut {1,2} from {3,4,5}: the minority campaigns term after term but never gets 3 of 5 votes.",
            "N5 是任期 1 的领导者。把 {1,2} 与 {3,4,5} 切开：少数派一轮轮竞选，却永远拿不到 5 票中的 3 票。",
        ),
        json: r#"{"algorithm":"raft","nodes":[1,2,3,4,5],"seed":425,"initial_leader":5,
                  "heartbeats":{"interval":2,"timeout":10},"stop":{"max_time":300}}"#,
        leaders: &[5],
        golden: "cdde8d18e09bc193",
    },
    Preset {
        id: "raft-cold",
        title: Text::new("Raft: an election from cold", "Raft：从零开始的选举"),
        hint: Text::new(
            "No leader yet: randomized timeouts pick a first candidate, which needs ⌊5/2⌋+1 = 3 votes.",
            "还没有领导者：随机超时选出第一个候选人，它需要 ⌊5/2⌋+1 = 3 票。",
        ),
        json: r#"{"algorithm":"raft","nodes":[1,2,3,4,5],"seed":7,
                  "heartbeats":{"interval":3,"timeout":12},"stop":{"max_time":300}}"#,
        leaders: &[4],
        golden: "1024adfc4aca0ff1",
    },
];

// Narration: one sentence per rule, in both languages. `{0}` is the acting node.
const N_TIMEOUT: Text = Text::new(
    "N{0} heard from no leader before its randomized election timer ran out: it becomes a candidate for term {1}, votes for itself and asks every node for a vote; it needs {2}.",
    "N{0} 在随机的选举超时内没有收到领导者的消息：它成为任期 {1} 的候选人，投自己一票，并向所有节点请求投票；它需要 {2} 票。",
);
const N_START: Text = Text::new(
    "N{0} is asked to start an election: it stands as candidate for term {1}, votes for itself and asks every node for a vote; it needs {2}.",
    "N{0} 被要求发起选举：它作为候选人参加任期 {1} 的选举，投自己一票，并向所有节点请求投票；它需要 {2} 票。",
);
const N_START_LEADER: Text = Text::new(
    "N{0} already leads term {1}, so it does not start an election.",
    "N{0} 已是任期 {1} 的领导者，因此不发起选举。",
);
const N_RETRY: Text = Text::new(
    "N{0}'s campaign for term {1} ran out of time without a majority (a split vote, or too few nodes within reach: a minority can never reach ⌊N/2⌋+1): it tries again in term {2}.",
    "N{0} 在任期 {1} 的竞选超时仍未获得多数票（选票被瓜分，或能联系到的节点太少：少数派永远凑不够 ⌊N/2⌋+1 票）：它进入任期 {2} 再试一次。",
);
const N_ALONE: Text = Text::new(
    "N{0}'s own vote is already a majority, so it leads term {1} at once.",
    "N{0} 自己的一票就已构成多数派，因此它立即成为任期 {1} 的领导者。",
);
const N_NEW_TERM: Text = Text::new(
    "N{0} adopts the newer term {1} (it was in term {2}), which gives it a fresh vote.",
    "N{0} 采用更新的任期 {1}（原为任期 {2}），在新任期中可以重新投票。",
);
const N_ABANDON: Text = Text::new(
    "N{0} sees term {1}, newer than its own term {2}: it abandons its candidacy, adopts term {1} and becomes a follower.",
    "N{0} 看到任期 {1}，比自己的任期 {2} 更新：它放弃竞选，采用任期 {1}，成为跟随者。",
);
const N_STEP_DOWN_TERM: Text = Text::new(
    "N{0} sees term {1}, newer than the term {2} it leads: a newer term always wins, so N{0} adopts it and steps down to follower.",
    "N{0} 看到任期 {1}，比它所领导的任期 {2} 更新：新任期总是优先，所以 N{0} 采用该任期并退为跟随者。",
);
const N_GRANT: Text = Text::new(
    "N{0} votes for N{1} in term {2}: its vote in this term is still free, and N{1}'s log is at least as up to date as its own. It restarts its election timer.",
    "N{0} 在任期 {2} 中投票给 N{1}：它本任期的票还没投出，且 N{1} 的日志至少和自己的一样新。它随即重置选举定时器。",
);
const N_GRANT_AGAIN: Text = Text::new(
    "N{0} repeats its vote for N{1} in term {2}: it is the same vote again, not a second one.",
    "N{0} 在任期 {2} 中再次确认投给 N{1} 的票：这是同一票，并不是第二票。",
);
const N_DENY_STALE: Text = Text::new(
    "N{0} denies N{1} its vote: N{1} asks in an older term, and N{0} is already in term {2}. The reply carries term {2} back, and a newer term makes a candidate give up.",
    "N{0} 拒绝给 N{1} 投票：N{1} 请求的是旧任期，而 N{0} 已处于任期 {2}。回复会把任期 {2} 带回去，候选人见到更新的任期就会放弃竞选。",
);
const N_DENY_VOTED: Text = Text::new(
    "N{0} denies N{1} its vote: it already voted for N{2} in this term. One vote per node per term is what makes two leaders in one term impossible.",
    "N{0} 拒绝给 N{1} 投票：它在本任期已经投给了 N{2}。每个节点每个任期只投一票，正是这一点使同一任期不可能出现两个领导者。",
);
const N_DENY_SELF: Text = Text::new(
    "N{0} denies N{1} its vote: it already voted for itself in term {2}, and a node votes only once per term.",
    "N{0} 拒绝给 N{1} 投票：它在任期 {2} 已经投给了自己，而每个节点每个任期只能投一票。",
);
const N_DENY_LOG_TERM: Text = Text::new(
    "N{0} denies N{1} its vote: N{1}'s log ends in term {2}, older than N{0}'s last entry. A leader must already hold every committed entry, so a candidate with an older log may not win.",
    "N{0} 拒绝给 N{1} 投票：N{1} 的日志止于任期 {2}，比 N{0} 的最后一条更旧。领导者必须已持有所有已提交的条目，所以日志更旧的候选人不能当选。",
);
const N_DENY_LOG_INDEX: Text = Text::new(
    "N{0} denies N{1} its vote: both logs end in the same term, but N{1}'s stops at index {2}, before N{0}'s. A leader must already hold every committed entry, so a shorter log may not win.",
    "N{0} 拒绝给 N{1} 投票：两者的日志止于同一任期，但 N{1} 的日志只到索引 {2}，比 N{0} 的短。领导者必须已持有所有已提交的条目，所以日志更短的候选人不能当选。",
);
const N_VOTE: Text = Text::new("N{0} counts N{1}'s vote for term {2}.", "N{0} 计入 N{1} 在任期 {2} 投给它的一票。");
const N_TALLY: Text = Text::new(
    "N{0} now holds {1} of the {2} votes it needs.",
    "N{0} 现有 {1} 票，需要 {2} 票。",
);
const N_WIN: Text = Text::new(
    "With {1} of {2} votes N{0} has a majority: it leads and sends APPEND_ENTRIES to every node. Two majorities always share a node, so no other candidate can win this term.",
    "N{0} 获得 {2} 票中的 {1} 票，达到多数派：它成为领导者，并向所有节点发送 APPEND_ENTRIES。任意两个多数派必有交集，所以本任期不会再有别的候选人胜出。",
);
const N_VOTE_LATE: Text = Text::new(
    "N{0} already leads term {2}: N{1}'s late vote changes nothing.",
    "N{0} 已是任期 {2} 的领导者：N{1} 迟到的一票不再起作用。",
);
const N_VOTE_AGAIN: Text = Text::new(
    "N{0} has already counted N{1}'s vote in term {2}: a voter counts once.",
    "N{0} 在任期 {2} 已经计入过 N{1} 的票：每个投票者只计一次。",
);
const N_VOTE_IGNORED: Text = Text::new(
    "N{0} is not a candidate in term {2}, so N{1}'s vote does not count.",
    "N{0} 在任期 {2} 并不是候选人，所以 N{1} 的票不计入。",
);
const N_DENIED: Text = Text::new(
    "N{0} is refused a vote by N{1} in term {2}: it must find its majority among the others.",
    "N{0} 在任期 {2} 被 N{1} 拒绝投票：它只能从其他节点凑齐多数票。",
);
const N_DENIED_WON: Text = Text::new(
    "N{0} already leads term {2}: N{1}'s refusal changes nothing.",
    "N{0} 已是任期 {2} 的领导者：N{1} 的拒绝不再有影响。",
);
const N_DENIED_LATE: Text = Text::new(
    "N{0} is not a candidate in term {2}, so N{1}'s refusal changes nothing.",
    "N{0} 在任期 {2} 并不是候选人，所以 N{1} 的拒绝没有影响。",
);
const N_REJECT: Text = Text::new(
    "N{0} rejects APPEND_ENTRIES from N{1}: it was sent in an older term, and N{0} is in term {2}. The reply carries term {2} back, and a newer term makes a leader step down.",
    "N{0} 拒绝 N{1} 的 APPEND_ENTRIES：它来自旧任期，而 N{0} 已处于任期 {2}。回复会把任期 {2} 带回去，领导者见到更新的任期就会退下。",
);
const N_YIELD: Text = Text::new(
    "N{0} gives up its candidacy: N{1} has already won term {2}, so N{0} follows it, acks and restarts its election timer.",
    "N{0} 放弃竞选：N{1} 已经赢得任期 {2}，所以 N{0} 跟随它、回复确认，并重置选举定时器。",
);
const N_FOLLOW: Text = Text::new(
    "N{0} accepts N{1} as the leader of term {2}: it acks and restarts its election timer.",
    "N{0} 接受 N{1} 为任期 {2} 的领导者：它回复确认，并重置选举定时器。",
);
const N_HEARTBEAT_ACK: Text = Text::new(
    "N{0} hears leader N{1}'s heartbeat for term {2}: it acks and restarts its election timer.",
    "N{0} 收到领导者 N{1} 在任期 {2} 的心跳：它回复确认，并重置选举定时器。",
);
const N_ACK: Text = Text::new(
    "N{0} counts N{1}'s ack: {2} nodes, itself included, have confirmed its leadership in this window.",
    "N{0} 计入 N{1} 的确认：本窗口内已有 {2} 个节点（含自己）确认了它的领导地位。",
);
const N_ACK_AGAIN: Text = Text::new(
    "N{0} has already counted N{1}'s ack in this window.",
    "N{0} 在本窗口内已经计入过 N{1} 的确认。",
);
const N_ACK_LATE: Text = Text::new(
    "N{0} ignores N{1}'s ack: it answers a term that N{0} does not lead now.",
    "N{0} 忽略 N{1} 的确认：它针对的任期现在并非由 N{0} 领导。",
);
const N_REJECT_LATE: Text = Text::new(
    "N{0} is already in term {2}, so N{1}'s rejection tells it nothing new.",
    "N{0} 已处于任期 {2}，所以 N{1} 的拒绝没有带来新信息。",
);
const N_BEAT: Text = Text::new(
    "N{0} leads term {1}: it sends APPEND_ENTRIES to every node as its heartbeat.",
    "N{0} 是任期 {1} 的领导者：它向所有节点发送 APPEND_ENTRIES 作为心跳。",
);
const N_LONELY: Text = Text::new(
    "N{0} heard only {1} of the {2} acks a majority needs in its window: cut off from a majority, it steps down, so it does not go on believing it leads beside a newer leader (a split brain).",
    "N{0} 在本窗口内只收到 {1} 个确认，而多数派需要 {2} 个：它与多数派失去联系，于是退下，以免在新领导者出现后仍自认为领导者（脑裂）。",
);
const N_ACKS_OK: Text = Text::new(
    "N{0} counted {1} acks in its window, itself included, at least the {2} a majority needs: it keeps leading and opens a new window.",
    "N{0} 在本窗口内收到 {1} 个确认（含自己），不少于多数派所需的 {2} 个：它继续担任领导者，并开始新的窗口。",
);
const N_RECOVER_VOTED: Text = Text::new(
    "N{0} recovers as a follower in term {1}, still remembering its vote for N{2}: term, vote and log are on disk, so a crash cannot make it vote twice in one term.",
    "N{0} 恢复为跟随者，仍处于任期 {1}，并记得自己投给了 N{2}：任期、投票和日志都保存在磁盘上，所以崩溃不会让它在同一任期投两次票。",
);
const N_RECOVER_SELF: Text = Text::new(
    "N{0} recovers as a follower in term {1}, still remembering that it voted for itself: term, vote and log are on disk, so a crash cannot make it vote twice in one term.",
    "N{0} 恢复为跟随者，仍处于任期 {1}，并记得自己投给了自己：任期、投票和日志都保存在磁盘上，所以崩溃不会让它在同一任期投两次票。",
);
const N_RECOVER: Text = Text::new(
    "N{0} recovers as a follower in term {1}: its term and log survived the crash on disk, and it waits for a leader.",
    "N{0} 恢复为跟随者，仍处于任期 {1}：任期和日志保存在磁盘上，崩溃后依然保留；它等待领导者出现。",
);

impl Raft {
    fn from_params(cfg: &Config, params: &Params) -> Result<Self, ScenarioError> {
        let p = ParamReader::new(params, &["election_timeout", "ack_window", "log"])?;
        let t = cfg.heartbeats.map_or(10, |h| h.timeout);
        let (lo, hi) = p.pair("election_timeout")?.map_or((t, 2 * t), |[a, b]| (a, b));
        if lo == 0 || lo > hi {
            return Err(ScenarioError::new("params.election_timeout", format!("expected [lo, hi] with 1 <= lo <= hi, found [{lo}, {hi}]")));
        }
        let interval = cfg.heartbeats.map_or(2, |h| h.interval);
        let round_trip = 2 * cfg.latency.1;
        let ack_window = p.uint("ack_window")?.unwrap_or((3 * interval).max(interval + round_trip + 1));
        if ack_window == 0 {
            return Err(ScenarioError::new("params.ack_window", "must be at least 1 tick"));
        }
        let mut logs = BTreeMap::new();
        for (key, [index, term]) in p.entries("log", "[index, term] (two whole numbers)", pair)? {
            let id: NodeId = key.parse().map_err(|_| ScenarioError::new(format!("params.log.{key}"), "expected a node id as the key"))?;
            if !cfg.ids.contains(&id) {
                return Err(ScenarioError::new(format!("params.log.{key}"), format!("unknown node {id}")));
            }
            logs.insert(id, (index, term));
        }
        Ok(Raft { election_timeout: (lo, hi), ack_window, logs })
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Role {
    Follower,
    Candidate,
    Leader,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct State {
    pub me: NodeId,
    // Durable.
    pub term: u64,
    pub voted_for: Option<NodeId>,
    pub last_log: (u64, u64),
    // Volatile.
    pub role: Role,
    pub leader: Option<NodeId>,
    pub votes: Vec<NodeId>,
    pub acks: Vec<NodeId>,
    pub quorum: u32,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Msg {
    RequestVote { term: u64, last_index: u64, last_term: u64 },
    VoteGrant { term: u64 },
    VoteDeny { term: u64 },
    AppendEntries { term: u64 },
    AppendAck { term: u64 },
    AppendReject { term: u64 },
}

kinds! {
    Msg;
    Msg::RequestVote { .. } => Kind::new("REQUEST_VOTE", "RV", Visual::Request, Text::new("a candidate asks for a vote in its term", "候选人在其任期内请求投票")),
    Msg::VoteGrant { .. } => Kind::new("VOTE_GRANT", "✓", Visual::Answer, Text::new("a vote given (one per node per term)", "投出赞成票（每个节点每个任期一票）")),
    Msg::VoteDeny { .. } => Kind::new("VOTE_DENY", "✗", Visual::Refusal, Text::new("a vote refused: already voted, stale term or older log", "拒绝投票：已投过票、任期过旧或日志更旧")),
    Msg::AppendEntries { .. } => Kind::new("APPEND_ENTRIES", "AE", Visual::Data, Text::new("the leader's heartbeat (and log entries)", "领导者的心跳（及日志条目）")),
    Msg::AppendAck { .. } => Kind::new("APPEND_ACK", "ack", Visual::Answer, Text::new("a follower accepts the leader of this term", "跟随者接受本任期的领导者")),
    Msg::AppendReject { .. } => Kind::new("APPEND_REJECT", "rej", Visual::Refusal, Text::new("refused: the sender's term is stale", "拒绝：发送者的任期已过时")),
}

impl Msg {
    fn term(&self) -> u64 {
        match *self {
            Msg::RequestVote { term, .. }
            | Msg::VoteGrant { term }
            | Msg::VoteDeny { term }
            | Msg::AppendEntries { term }
            | Msg::AppendAck { term }
            | Msg::AppendReject { term } => term,
        }
    }
}

impl Message for Msg {
    fn label(&self) -> String {
        match self {
            Msg::RequestVote { term, last_index, last_term } => format!("REQUEST_VOTE(t{term}, log {last_index}@{last_term})"),
            m => format!("{}(t{})", KINDS[m.kind()].name, m.term()),
        }
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Timer {
    Election,
    Heartbeat,
    AckCheck,
}

impl TimerKey for Timer {
    fn name(&self) -> &'static str {
        match self {
            Timer::Election => "ELECTION_TIMEOUT",
            Timer::Heartbeat => "HEARTBEAT",
            Timer::AckCheck => "ACK_CHECK",
        }
    }
}

type C<'a> = Ctx<'a, Msg, Timer>;

impl Raft {
    fn arm_election(&self, ctx: &mut C) {
        if ctx.cfg.heartbeats.is_some() {
            ctx.set_timer(Timer::Election, self.election_timeout.0, self.election_timeout.1);
        }
    }

    fn become_follower(&self, s: &mut State, ctx: &mut C) {
        if s.role == Role::Leader {
            ctx.cancel_timer(Timer::Heartbeat);
            ctx.cancel_timer(Timer::AckCheck);
        }
        if s.role != Role::Follower {
            s.role = Role::Follower;
            s.votes.clear();
            s.acks.clear();
            self.arm_election(ctx);
        }
    }

    fn become_candidate(&self, s: &mut State, ctx: &mut C) {
        s.role = Role::Candidate;
        s.term += 1;
        s.voted_for = Some(ctx.me);
        s.votes = vec![ctx.me];
        s.leader = None;
        self.arm_election(ctx);
        if s.votes.len() as u32 >= s.quorum {
            ctx.note(&N_ALONE, &[ctx.me as u64, s.term]);
            self.become_leader(s, ctx);
            return;
        }
        let (last_index, last_term) = s.last_log;
        ctx.broadcast(Msg::RequestVote { term: s.term, last_index, last_term });
    }

    fn become_leader(&self, s: &mut State, ctx: &mut C) {
        s.role = Role::Leader;
        s.leader = Some(ctx.me);
        s.acks = vec![ctx.me];
        ctx.cancel_timer(Timer::Election);
        ctx.broadcast(Msg::AppendEntries { term: s.term });
        if let Some(hb) = ctx.cfg.heartbeats {
            ctx.set_timer_after(Timer::Heartbeat, hb.interval);
            ctx.set_timer_after(Timer::AckCheck, self.ack_window);
        }
    }
}

impl Protocol for Raft {
    type State = State;
    type Msg = Msg;
    type Timer = Timer;
    const KINDS: &'static [Kind] = KINDS;

    fn new(cfg: &Config, params: &Params) -> Result<Self, ScenarioError> {
        Raft::from_params(cfg, params)
    }

    fn init(&self, ctx: &mut C) -> State {
        let me = ctx.me;
        let last_log = self.logs.get(&me).copied().unwrap_or((0, 0));
        let quorum = ctx.cfg.quorum();
        let mut s = State { me, term: 0, voted_for: None, last_log, role: Role::Follower, leader: None, votes: vec![], acks: vec![], quorum };
        match ctx.cfg.initial_leader {
            Some(l) => {
                s.term = 1;
                s.voted_for = Some(l);
                s.leader = Some(l);
                if l == me {
                    s.role = Role::Leader;
                    s.acks = vec![me];
                    if let Some(hb) = ctx.cfg.heartbeats {
                        ctx.set_timer_after(Timer::Heartbeat, hb.interval);
                        ctx.set_timer_after(Timer::AckCheck, self.ack_window);
                    }
                } else {
                    self.arm_election(ctx);
                }
            }
            None => self.arm_election(ctx),
        }
        s
    }

    fn start(&self, s: &mut State, ctx: &mut C) {
        if s.role != Role::Leader {
            ctx.note(&N_START, &[ctx.me as u64, s.term + 1, s.quorum as u64]);
            self.become_candidate(s, ctx);
        } else {
            ctx.note(&N_START_LEADER, &[ctx.me as u64, s.term]);
        }
    }

    fn on_message(&self, s: &mut State, from: NodeId, msg: Msg, ctx: &mut C) {
        let term = msg.term();
        let (me, peer) = (ctx.me as u64, from as u64);
        let adopted = term > s.term;
        if adopted {
            let rule = match s.role {
                Role::Leader => &N_STEP_DOWN_TERM,
                Role::Candidate => &N_ABANDON,
                Role::Follower => &N_NEW_TERM,
            };
            ctx.note(rule, &[me, term, s.term]);
            s.term = term;
            s.voted_for = None;
            if !matches!(msg, Msg::AppendEntries { .. }) {
                s.leader = None;
            }
            self.become_follower(s, ctx);
        }
        match msg {
            Msg::RequestVote { term, last_index, last_term } => {
                if term < s.term {
                    ctx.note(&N_DENY_STALE, &[me, peer, s.term]);
                    ctx.send(from, Msg::VoteDeny { term: s.term });
                    return;
                }
                let up_to_date = (last_term, last_index) >= (s.last_log.1, s.last_log.0);
                if s.voted_for.is_none_or(|v| v == from) && up_to_date {
                    let rule = if s.voted_for.is_some() { &N_GRANT_AGAIN } else { &N_GRANT };
                    ctx.note(rule, &[me, peer, s.term]);
                    s.voted_for = Some(from);
                    self.arm_election(ctx);
                    ctx.send(from, Msg::VoteGrant { term: s.term });
                } else {
                    match s.voted_for {
                        Some(v) if v == ctx.me => ctx.note(&N_DENY_SELF, &[me, peer, s.term]),
                        Some(v) if v != from => ctx.note(&N_DENY_VOTED, &[me, peer, v as u64]),
                        // Free to vote, so the candidate's log is behind.
                        _ if last_term < s.last_log.1 => ctx.note(&N_DENY_LOG_TERM, &[me, peer, last_term]),
                        _ => ctx.note(&N_DENY_LOG_INDEX, &[me, peer, last_index]),
                    }
                    ctx.send(from, Msg::VoteDeny { term: s.term });
                }
            }
            Msg::VoteGrant { term } => {
                if s.role == Role::Candidate && term == s.term && !s.votes.contains(&from) {
                    ctx.note(&N_VOTE, &[me, peer, term]);
                    s.votes.push(from);
                    if s.votes.len() as u32 >= s.quorum {
                        ctx.note(&N_WIN, &[me, s.votes.len() as u64, ctx.cfg.n() as u64]);
                        self.become_leader(s, ctx);
                    } else {
                        ctx.note(&N_TALLY, &[me, s.votes.len() as u64, s.quorum as u64]);
                    }
                } else if s.role == Role::Leader && term == s.term {
                    ctx.note(&N_VOTE_LATE, &[me, peer, s.term]);
                } else if s.role == Role::Candidate && term == s.term {
                    ctx.note(&N_VOTE_AGAIN, &[me, peer, s.term]);
                } else {
                    ctx.note(&N_VOTE_IGNORED, &[me, peer, term]);
                }
            }
            Msg::VoteDeny { term } => {
                // A refusal from a newer term was narrated as adopting it.
                if !adopted {
                    let rule = match s.role {
                        Role::Candidate if term == s.term => &N_DENIED,
                        Role::Leader if term == s.term => &N_DENIED_WON,
                        _ => &N_DENIED_LATE,
                    };
                    ctx.note(rule, &[me, peer, term]);
                }
            }
            Msg::AppendEntries { term } => {
                if term < s.term {
                    ctx.note(&N_REJECT, &[me, peer, s.term]);
                    ctx.send(from, Msg::AppendReject { term: s.term });
                    return;
                }
                let rule = match s.role {
                    Role::Candidate => &N_YIELD,
                    _ if s.leader == Some(from) => &N_HEARTBEAT_ACK,
                    _ => &N_FOLLOW,
                };
                ctx.note(rule, &[me, peer, term]);
                self.become_follower(s, ctx);
                s.leader = Some(from);
                self.arm_election(ctx);
                ctx.send(from, Msg::AppendAck { term: s.term });
            }
            Msg::AppendAck { term } => {
                if s.role == Role::Leader && term == s.term && !s.acks.contains(&from) {
                    s.acks.push(from);
                    ctx.note(&N_ACK, &[me, peer, s.acks.len() as u64]);
                } else if s.role == Role::Leader && term == s.term {
                    ctx.note(&N_ACK_AGAIN, &[me, peer]);
                } else {
                    ctx.note(&N_ACK_LATE, &[me, peer]);
                }
            }
            Msg::AppendReject { .. } => {
                // A rejection from a newer term was narrated as adopting it.
                if !adopted {
                    ctx.note(&N_REJECT_LATE, &[me, peer, s.term]);
                }
            }
        }
    }

    fn on_timer(&self, s: &mut State, timer: Timer, ctx: &mut C) {
        match timer {
            Timer::Election => {
                if s.role != Role::Leader {
                    if s.role == Role::Candidate {
                        ctx.note(&N_RETRY, &[ctx.me as u64, s.term, s.term + 1]);
                    } else {
                        ctx.note(&N_TIMEOUT, &[ctx.me as u64, s.term + 1, s.quorum as u64]);
                    }
                    self.become_candidate(s, ctx);
                }
            }
            Timer::Heartbeat => {
                if s.role == Role::Leader {
                    ctx.heartbeat(Timer::Heartbeat, &N_BEAT, &[ctx.me as u64, s.term], Msg::AppendEntries { term: s.term });
                }
            }
            Timer::AckCheck => {
                if s.role == Role::Leader {
                    let tally = [ctx.me as u64, s.acks.len() as u64, s.quorum as u64];
                    if (s.acks.len() as u32) < s.quorum {
                        ctx.note(&N_LONELY, &tally);
                        s.leader = None;
                        self.become_follower(s, ctx);
                    } else {
                        ctx.note(&N_ACKS_OK, &tally);
                        s.acks = vec![ctx.me];
                        ctx.set_timer_after(Timer::AckCheck, self.ack_window);
                    }
                }
            }
        }
    }

    fn recover(&self, crashed: &State, ctx: &mut C) -> State {
        let s = State {
            me: crashed.me,
            term: crashed.term,
            voted_for: crashed.voted_for,
            last_log: crashed.last_log,
            role: Role::Follower,
            leader: None,
            votes: vec![],
            acks: vec![],
            quorum: crashed.quorum,
        };
        match s.voted_for {
            Some(v) if v == s.me => ctx.note(&N_RECOVER_SELF, &[s.me as u64, s.term]),
            Some(v) => ctx.note(&N_RECOVER_VOTED, &[s.me as u64, s.term, v as u64]),
            None => ctx.note(&N_RECOVER, &[s.me as u64, s.term]),
        }
        self.arm_election(ctx);
        s
    }

    fn view(&self, s: &State) -> View {
        let role = match s.role {
            Role::Follower => FOLLOWER,
            Role::Candidate => CANDIDATE,
            Role::Leader => LEADER,
        };
        let tally = (s.role == Role::Candidate).then_some((s.votes.len() as u32, s.quorum));
        View { role, leader: s.leader, term: Some(s.term), vote: s.voted_for, tally, ..View::default() }
    }

    fn inspect(&self, s: &State) -> Vec<(&'static str, String)> {
        let list = |v: &[NodeId]| v.iter().map(|x| format!("N{x}")).collect::<Vec<_>>().join(", ");
        vec![
            ("role", format!("{:?}", s.role).to_ascii_lowercase()),
            ("current term", s.term.to_string()),
            ("voted for", fmt_node(s.voted_for)),
            ("leader", fmt_node(s.leader)),
            ("last log (index@term)", format!("{}@{}", s.last_log.0, s.last_log.1)),
            ("votes", format!("{} / {} needed: {}", s.votes.len(), s.quorum, list(&s.votes))),
            ("acks this window", list(&s.acks)),
        ]
    }
}

#[cfg(test)]
mod narration_tests;
