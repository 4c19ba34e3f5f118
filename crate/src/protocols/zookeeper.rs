//! **ZooKeeper-style fast leader election** (P. Hunt, M. Konar, F. P. Junqueira and B. Reed,
//! "ZooKeeper: Wait-free Coordination for Internet-scale Systems", USENIX ATC 2010; F. P.
//! Junqueira, B. C. Reed and M. Serafini, "Zab: High-performance broadcast for primary-backup
//! systems", DSN 2011).
//!
//! A node without a leader is LOOKING: it votes for itself and broadcasts VOTE (proposed leader,
//! that leader's ZXID, election round). Votes are ordered by (ZXID, SID): the newest data wins and
//! the larger id breaks a tie. A LOOKING node that gets a larger vote of its own round switches to
//! it and broadcasts again; a VOTE of a newer round makes it join that round (keeping the larger of
//! its own and the sender's vote); a VOTE of an older round is answered with its own vote so that
//! the sender catches up. It keeps the last vote of every node of its round, and when a quorum
//! (⌊N/2⌋+1) of them equal its own and no better vote arrives within `finalize_wait` ticks, it
//! decides: FOLLOWING the winner, or, if it is the winner, leading.
//!
//! Readings and simplifications:
//! * **LEADING needs a quorum of followers** (Zab's discovery phase). The winner of the vote is a
//!   *prospective* leader until a quorum, itself included, has sent FOLLOW for its round. A node
//!   promises to follow at most one node per round, and keeps its round and promise on disk (as Zab
//!   keeps its accepted epoch), so two quorums of promises share a node and at most one node ever
//!   leads a given round, under any partition, loss or delay. Votes alone promise nothing: a vote
//!   may change after another node has counted it.
//! * Only the (prospective) leader answers a LOOKING node's VOTE, with ELECTED(round). ZooKeeper's
//!   followers answer too, and a newcomer waits for a quorum of answers that includes the leader's;
//!   here the leader's own answer suffices, since a promise counts only for a leader that a quorum
//!   follows.
//! * A LOOKING node in a newer round than its leader's (it lost the leader for a while) makes the
//!   leader move up to that round: the leader PINGs at once and its followers confirm it there with
//!   FOLLOW, so the node rejoins without an election and nobody promises twice in one round.
//! * A leader PINGs every `heartbeats.interval` and followers answer FOLLOW. A follower that hears no
//!   PING for `heartbeats.timeout` goes LOOKING in the next round; a (prospective) leader with FOLLOW
//!   from fewer than a quorum within `ack_window` does the same. A LOOKING node repeats its vote
//!   every `timeout`…`2·timeout` ticks. With `heartbeats: null` none of these timers runs.
//! * Votes compare (ZXID, SID); ZooKeeper compares the peer epoch first, which is not modelled apart
//!   from the ZXID here. ZXIDs are fixed for the run (no writes happen).
//! * `initial_leader`: every node starts in round 1 following it; otherwise all boot LOOKING.
//!
//! Parameters (`params`): `zxid` `{"<id>": zxid}` (default 0), `finalize_wait` (default
//! `2·latency_max`: the notes still in flight arrive), `ack_window` (default as Raft's:
//! `3 × heartbeats.interval`, but at least `interval + 2·latency_max + 1`).

use crate::algorithm::Algorithm;
use crate::error::ScenarioError;
use crate::meta::{single_leader, Faults, Formula, Kind, Look, Monitor, Preset, Property, Role, Text, Topology, Visual, TWO_LEADERS_IN_TERM};
use crate::protocol::{fmt_node, Config, Ctx, Message, Params, Protocol, TimerKey, View, LEADING};
use crate::run;
use crate::{NodeId, Time};
use serde_json::Value;
use std::collections::BTreeMap;

#[derive(Clone, Debug)]
pub struct ZooKeeper {
    pub finalize_wait: Time,
    pub ack_window: Time,
    pub zxids: BTreeMap<NodeId, u64>,
}

/// At most one node leads each election round.
pub const ONE_LEADER_PER_ROUND: Property = Property {
    id: TWO_LEADERS_IN_TERM,
    title: Text::new("One leader per round", "每轮至多一个领导者"),
    explain: Text::new(
        "no two nodes ever lead the same election round: leading takes FOLLOW promises from a quorum",
        "同一选举轮次不会有两个节点成为领导者：成为领导者需要多数派的 FOLLOW 承诺",
    ),
    holds: Faults::Any,
    monitor: Monitor::TwoLeadersInTerm,
};

pub const ALGORITHM: Algorithm = Algorithm {
    id: "zookeeper",
    title: Text::new("ZooKeeper fast leader election", "ZooKeeper 快速领导者选举"),
    citation: "P. Hunt, M. Konar, F. P. Junqueira and B. Reed, ZooKeeper: Wait-free Coordination for Internet-scale Systems, USENIX ATC 2010; F. P. Junqueira, B. C. Reed and M. Serafini, Zab: High-performance broadcast for primary-backup systems, DSN 2011",
    summary: Text::new(
        "LOOKING nodes exchange votes and switch to the largest (ZXID, SID) they hear; the node a quorum votes for leads, so the newest data wins and a minority never elects.",
        "LOOKING 节点互相交换投票，并改投所听到的最大 (ZXID, SID)；获得多数派投票的节点成为领导者，因此数据最新者胜出，少数派永远选不出领导者。",
    ),
    card: Text::new(
        "A node with no leader is LOOKING. A vote names a node by its (ZXID, SID): the newest data (ZXID) wins, then the larger id.\n\n\
         • A LOOKING node votes for itself and broadcasts VOTE with its election round.\n\
         • On a larger vote of its round it switches and broadcasts again; a newer round makes it join that round.\n\
         • When a quorum (⌊N/2⌋+1) of the votes it holds name the same node and nothing better comes for a short wait, it decides: FOLLOWING that node, or leading if it is that node.\n\
         • The winner leads (LEADING) once a quorum has sent FOLLOW; it PINGs its followers. A follower that hears nothing goes LOOKING in the next round.\n\n\
         What to watch: the vote arrows converging on the largest (ZXID, SID), each node's tally; under a partition the minority's tally never reaches a quorum.",
        "没有领导者的节点处于 LOOKING 状态。投票以 (ZXID, SID) 指明一个节点：数据最新（ZXID 最大）者胜出，其次比较 id。\n\n\
         • LOOKING 节点先投自己一票，并带上选举轮次广播 VOTE。\n\
         • 收到本轮更大的投票就改投并再次广播；更新的轮次则让它加入那一轮。\n\
         • 当它手中多数派（⌊N/2⌋+1）的投票指向同一节点，且短暂等待后没有更好的投票，它就做出决定：FOLLOWING 该节点；若该节点就是自己，则准备领导。\n\
         • 多数派发来 FOLLOW 后，胜者才成为领导者（LEADING），并向跟随者发送 PING（心跳）。听不到心跳的跟随者进入下一轮，重新 LOOKING。\n\n\
         观察要点：投票箭头汇聚到最大的 (ZXID, SID)，以及每个节点的计票；网络分区时，少数派的计票永远达不到多数派。",
    ),
    topology: Topology::Complete,
    kinds: KINDS,
    roles: &[
        Role::new("looking", Look::Candidate, Text::new("LOOKING: voting, no leader yet", "LOOKING：投票中")),
        Role::new("following", Look::Follower, Text::new("FOLLOWING the elected leader", "FOLLOWING：跟随中")),
        Role::new("prospective", Look::Waiting, Text::new("won the vote; leads once a quorum sends FOLLOW", "已胜选，待多数派 FOLLOW")),
        Role::new(LEADING, Look::Leader, Text::new("LEADING, followed by a quorum", "LEADING：多数派跟随")),
    ],
    formulas: &[
        Formula {
            name: "(N³−N)/2",
            applies: Text::new(
                "VOTEs when all N boot LOOKING and every vote arrives in increasing (ZXID, SID) order: N(N−1) first votes, then N−1 per change, and a node changes at most once per larger vote",
                "所有 N 个节点同时以 LOOKING 启动、且投票按 (ZXID, SID) 从小到大到达时的 VOTE 数：先是 N(N−1) 条初始投票，此后每次改投 N−1 条，而每个节点对每个更大的投票至多改投一次",
            ),
            counts: &["VOTE"],
            value: |n| (n * n * n - n) / 2,
        },
        Formula {
            name: "(2N−1)(N−1)",
            applies: Text::new(
                "VOTEs when all N boot LOOKING and the largest vote reaches everyone first: each other node changes its vote once",
                "所有 N 个节点同时以 LOOKING 启动、且最大的投票最先到达每个节点时的 VOTE 数：其余节点各改投一次",
            ),
            counts: &["VOTE"],
            value: |n| (2 * n - 1) * n.saturating_sub(1),
        },
    ],
    properties: &[ONE_LEADER_PER_ROUND, single_leader(Faults::CrashStop)],
    presets: PRESETS,
    build: run::build::<ZooKeeper>,
};

const PRESETS: &[Preset] = &[
    Preset {
        id: "zookeeper-leader-lost",
        title: Text::new("ZooKeeper: the leader is lost", "ZooKeeper：领导者失联"),
        hint: Text::new(
            "N5 leads, then crashes. Everyone goes LOOKING and votes for itself; N2 and N3 hold the newest data (ZXID 9), so the tie goes to the larger SID: N3.",
            "N5 是领导者，随后崩溃。所有节点进入 LOOKING 并先投自己；N2 与 N3 的数据最新（ZXID 9），平局时 SID 大者胜：N3。",
        ),
        json: r#"{"algorithm":"zookeeper","nodes":[1,2,3,4,5],"seed":425,"initial_leader":5,
                  "heartbeats":{"interval":2,"timeout":10},"params":{"zxid":{"1":7,"2":9,"3":9,"4":8,"5":9}},
                  "schedule":[{"at":8,"crash":5}],"stop":{"max_time":120}}"#,
        leaders: &[3],
        golden: "034ccf59d3fed9ed",
    },
    Preset {
        id: "zookeeper-votes-5",
        title: Text::new("ZooKeeper: five nodes boot at once", "ZooKeeper：五个节点同时启动"),
        hint: Text::new(
            "No leader and equal ZXIDs. Each node hears the votes in increasing order and switches at every larger one: 20 + 4·10 = 60 VOTEs = (N³−N)/2.",
            "没有领导者，ZXID 都相同。每个节点按从小到大的顺序收到投票，每遇到更大的就改投一次：20 + 4·10 = 60 条 VOTE = (N³−N)/2。",
        ),
        json: r#"{"algorithm":"zookeeper","nodes":[1,2,3,4,5],"seed":425,"heartbeats":null}"#,
        leaders: &[5],
        golden: "ac024d49fdf4e960",
    },
    Preset {
        id: "split-brain-zookeeper",
        title: Text::new("The same partition under ZooKeeper", "同样的分区，换成 ZooKeeper"),
        hint: Text::new(
            "N5 leads round 1. Cut {1,2} from {3,4,5}: the minority goes LOOKING, but its tallies never reach 3 of 5, so it never elects.",
            "N5 是第 1 轮的领导者。把 {1,2} 与 {3,4,5} 切开：少数派进入 LOOKING，但计票永远达不到 5 票中的 3 票，所以选不出领导者。",
        ),
        json: r#"{"algorithm":"zookeeper","nodes":[1,2,3,4,5],"seed":425,"initial_leader":5,
                  "heartbeats":{"interval":2,"timeout":10},"stop":{"max_time":300}}"#,
        leaders: &[5],
        golden: "e9bc0594cf0802ff",
    },
];

// Narration: one sentence per rule, in both languages. `{0}` is the acting node.
const N_NEWER_ROUND: Text = Text::new(
    "N{0} gets a VOTE of round {1}, newer than its own: it joins round {1}, forgets the older votes and broadcasts its vote for N{2}, the larger of its own and the sender's.",
    "N{0} 收到第 {1} 轮的 VOTE，比自己的轮次新：它加入第 {1} 轮，丢弃旧的投票，并广播投给 N{2} 的一票（自己与发送者两票中较大的那个）。",
);
const N_OLDER_ROUND: Text = Text::new(
    "N{0} gets a VOTE of an older round from N{1}: it answers with its own vote of round {2}, so N{1} catches up.",
    "N{0} 收到 N{1} 来自旧轮次的 VOTE：它以自己第 {2} 轮的投票作答，让 N{1} 赶上来。",
);
const N_SWITCH: Text = Text::new(
    "N{0} hears N{2} vote for N{1}, larger in (ZXID, SID) than its own vote: it switches to N{1} and broadcasts the new vote.",
    "N{0} 听到 N{2} 投给 N{1}，按 (ZXID, SID) 比自己的投票大：它改投 N{1}，并广播新的投票。",
);
const N_KEEP: Text = Text::new(
    "N{0} notes N{1}'s vote for N{2}; its own vote is at least as large in (ZXID, SID), so it keeps it.",
    "N{0} 记下 N{1} 投给 N{2} 的一票；自己的投票按 (ZXID, SID) 不比它小，所以保持不变。",
);
const N_QUORUM: Text = Text::new(
    "{2} of the votes N{0} holds name N{1}, a quorum: it waits briefly in case a better vote is still on its way.",
    "N{0} 手中有 {2} 票投给 N{1}，已达多数派：它再稍等片刻，以防更好的投票还在路上。",
);
const N_DECIDE_FOLLOW: Text = Text::new(
    "No better vote came: a quorum votes for N{1} in round {2}, so N{0} decides to follow it and sends FOLLOW, its promise for this round.",
    "没有更好的投票到来：多数派在第 {2} 轮投给 N{1}，于是 N{0} 决定跟随它，并发送 FOLLOW 作为本轮的承诺。",
);
const N_DECIDE_LEAD: Text = Text::new(
    "No better vote came: a quorum votes for N{0} itself in round {1}. It will lead once {2} nodes, itself included, have promised FOLLOW.",
    "没有更好的投票到来：多数派在第 {1} 轮投给 N{0} 自己。等到包括自己在内的 {2} 个节点承诺 FOLLOW，它才成为领导者。",
);
const N_QUORUM_LOST: Text = Text::new(
    "N{0}'s vote for N{1} no longer has a quorum of the votes it holds: it keeps looking.",
    "N{0} 手中投给 N{1} 的票已不足多数派：它继续 LOOKING。",
);
const N_FOLLOWER_QUIET: Text = Text::new(
    "N{0} follows N{2} and leaves N{1}'s VOTE for its leader to answer.",
    "N{0} 正在跟随 N{2}，把 N{1} 的 VOTE 留给领导者答复。",
);
const N_ANSWER: Text = Text::new(
    "N{0} leads round {2} and answers N{1}'s VOTE with ELECTED: follow me.",
    "N{0} 领导第 {2} 轮，以 ELECTED 答复 N{1} 的 VOTE：请跟随我。",
);
const N_BUMP: Text = Text::new(
    "N{0} leads, but N{1} is looking in the newer round {2}: N{0} moves up to round {2} and PINGs, so its followers confirm it there and N{1} can join.",
    "N{0} 是领导者，但 N{1} 在更新的第 {2} 轮中 LOOKING：N{0} 升到第 {2} 轮并发送 PING，让跟随者在新一轮确认它，N{1} 也得以加入。",
);
const N_JOIN: Text = Text::new(
    "N{0} learns that N{1} leads round {2}, not older than its own round: it follows N{1} and sends FOLLOW, its promise for round {2}.",
    "N{0} 得知 N{1} 领导第 {2} 轮（不比自己的轮次旧）：它跟随 N{1}，并发送 FOLLOW 作为对第 {2} 轮的承诺。",
);
const N_CLAIM_OLD: Text = Text::new(
    "N{0} is looking in round {2} and ignores N{1}'s claim to lead an older round; its own VOTE will bring N{1} up to date.",
    "N{0} 正在第 {2} 轮 LOOKING，忽略 N{1} 对旧轮次的领导声明；它自己的 VOTE 会让 N{1} 跟上。",
);
const N_PING_ACK: Text = Text::new(
    "N{0} hears leader N{1}'s PING for round {2}: it answers FOLLOW and restarts its timer.",
    "N{0} 收到领导者 N{1} 第 {2} 轮的 PING（心跳）：它回复 FOLLOW，并重置定时器。",
);
const N_FOLLOW_UP: Text = Text::new(
    "N{0}'s leader N{1} has moved up to round {2}: N{0} moves with it and promises FOLLOW for round {2}.",
    "N{0} 的领导者 N{1} 已升到第 {2} 轮：N{0} 随之升级，并承诺第 {2} 轮的 FOLLOW。",
);
const N_STALE_PING: Text = Text::new(
    "N{0} ignores a late PING of an older round from N{1}; it is already in round {2}.",
    "N{0} 忽略 N{1} 迟到的旧轮次 PING；它已处于第 {2} 轮。",
);
const N_NEWER_LEADER: Text = Text::new(
    "N{0} hears N{1} lead round {2}, newer than its own leader's: it switches to follow N{1} and promises FOLLOW.",
    "N{0} 听到 N{1} 领导第 {2} 轮，比自己领导者的轮次新：它转而跟随 N{1}，并承诺 FOLLOW。",
);
const N_OTHER_LEADER: Text = Text::new(
    "N{0} follows N{2} and ignores N{1}'s claim to lead a round that is not newer.",
    "N{0} 正在跟随 N{2}，忽略 N{1} 对一个并不更新的轮次的领导声明。",
);
const N_STEP_DOWN: Text = Text::new(
    "N{0} hears N{1} lead round {2}, newer than its own: a newer round wins, so N{0} steps down and follows N{1}.",
    "N{0} 听到 N{1} 领导第 {2} 轮，比自己的轮次新：新轮次优先，于是 N{0} 退下并跟随 N{1}。",
);
const N_RIVAL: Text = Text::new(
    "N{0} ignores N{1}'s claim to lead round {2}: it is not newer than N{0}'s own round.",
    "N{0} 忽略 N{1} 对第 {2} 轮的领导声明：它并不比 N{0} 自己的轮次新。",
);
const N_FOLLOWED: Text = Text::new(
    "N{0} counts N{1}'s FOLLOW: {2} nodes, itself included, have promised to follow it in this round.",
    "N{0} 计入 N{1} 的 FOLLOW：包括自己在内，已有 {2} 个节点承诺在本轮跟随它。",
);
const N_ANSWERED: Text = Text::new(
    "N{0} counts N{1}'s FOLLOW: {2} nodes, itself included, have answered it in this window.",
    "N{0} 计入 N{1} 的 FOLLOW：本窗口内包括自己在内已有 {2} 个节点应答了它。",
);
const N_FOLLOW_AGAIN: Text = Text::new(
    "N{0} has already counted N{1}'s FOLLOW in this window.",
    "N{0} 在本窗口内已经计入过 N{1} 的 FOLLOW。",
);
const N_FOLLOW_EARLY: Text = Text::new(
    "N{1} has already decided to follow N{0}, which is still looking: N{0} counts the promise as N{1}'s vote for it.",
    "N{1} 已决定跟随 N{0}，而 N{0} 仍在 LOOKING：N{0} 把这个承诺当作 N{1} 投给自己的一票。",
);
const N_FOLLOW_IGNORED: Text = Text::new(
    "N{0} does not lead round {2}, so N{1}'s FOLLOW for it counts for nothing.",
    "N{0} 并不领导第 {2} 轮，所以 N{1} 对该轮的 FOLLOW 不起作用。",
);
const N_LEADS: Text = Text::new(
    "A quorum ({2:node:nodes}) has promised to follow N{0} in round {1}: it is LEADING. No other node can gather a quorum of promises in this round.",
    "已有多数派（{2} 个节点）承诺在第 {1} 轮跟随 N{0}：它成为领导者（LEADING）。本轮再没有别的节点能凑齐多数派的承诺。",
);
const N_RECONFIRMED: Text = Text::new(
    "A quorum ({2:node:nodes}) has confirmed N{0} in round {1}: it now leads round {1}.",
    "已有多数派（{2} 个节点）在第 {1} 轮确认了 N{0}：它现在领导第 {1} 轮。",
);
const N_RETRY: Text = Text::new(
    "N{0} is still looking in round {1}: it broadcasts its vote for N{2} again.",
    "N{0} 仍在第 {1} 轮 LOOKING：它再次广播投给 N{2} 的一票。",
);
const N_SUSPECT: Text = Text::new(
    "N{0} heard no PING from leader N{1} for {2} ticks: it goes LOOKING in the next round and votes for itself.",
    "N{0} 已有 {2} 个时间单位没有收到领导者 N{1} 的 PING：它进入下一轮 LOOKING，并先投自己一票。",
);
const N_BEAT: Text = Text::new("N{0} leads round {1}: it PINGs every node.", "N{0} 领导第 {1} 轮：它向所有节点发送 PING（心跳）。");
const N_WINDOW_OK: Text = Text::new(
    "{1} nodes, itself included, answered N{0} in this window, at least the {2} of a quorum: it keeps leading.",
    "本窗口内包括自己在内有 {1} 个节点应答了 N{0}，不少于多数派所需的 {2} 个：它继续领导。",
);
const N_LONELY: Text = Text::new(
    "Only {1} nodes, itself included, answered N{0} in this window, fewer than the {2} of a quorum: it steps down and goes LOOKING, so no minority keeps a leader.",
    "本窗口内包括自己在内只有 {1} 个节点应答了 N{0}，少于多数派所需的 {2} 个：它退下并进入 LOOKING，少数派不会保留领导者。",
);
const N_NOT_CONFIRMED: Text = Text::new(
    "Only {1} FOLLOW promises reached N{0} in time, fewer than the {2} it needs: it gives up and goes LOOKING in the next round.",
    "只有 {1} 个 FOLLOW 承诺及时到达 N{0}，少于所需的 {2} 个：它放弃，并进入下一轮 LOOKING。",
);
const N_START_LOOKING: Text = Text::new(
    "N{0} is already looking in round {1}: it broadcasts its vote for N{2} again.",
    "N{0} 已在第 {1} 轮 LOOKING：它再次广播投给 N{2} 的一票。",
);
const N_START_FOLLOWER: Text = Text::new(
    "N{0} is asked to start an election: it stops following N{1} and goes LOOKING in round {2}, voting for itself.",
    "N{0} 被要求发起选举：它不再跟随 N{1}，进入第 {2} 轮 LOOKING，并先投自己一票。",
);
const N_START_LEADER: Text = Text::new(
    "N{0} has already won round {1}, so it does not start an election.",
    "N{0} 已赢得第 {1} 轮，因此不发起选举。",
);
const N_RECOVER: Text = Text::new(
    "N{0} recovers: its round and promise are on disk, so it goes LOOKING in the next round {1} and votes for itself.",
    "N{0} 恢复：轮次与承诺保存在磁盘上，于是它进入下一轮（第 {1} 轮）LOOKING，并先投自己一票。",
);

impl ZooKeeper {
    /// Reads `params` by hand: three small fields do not need a serde instantiation of their own.
    fn from_params(cfg: &Config, params: &Params) -> Result<Self, ScenarioError> {
        let ticks = |key: &str, v: &Value| v.as_u64().ok_or_else(|| ScenarioError::new(format!("params.{key}"), "expected a whole number of ticks"));
        let interval = cfg.heartbeats.map_or(2, |h| h.interval);
        let mut zk = ZooKeeper {
            finalize_wait: 2 * cfg.latency.1,
            ack_window: (3 * interval).max(interval + 2 * cfg.latency.1 + 1),
            zxids: BTreeMap::new(),
        };
        for (key, v) in params {
            match key.as_str() {
                "finalize_wait" => zk.finalize_wait = ticks(key, v)?,
                "ack_window" => zk.ack_window = ticks(key, v)?,
                "zxid" => {
                    let map = v.as_object().ok_or_else(|| ScenarioError::new("params.zxid", "expected an object {\"<id>\": zxid}"))?;
                    for (id, z) in map {
                        let at = format!("params.zxid.{id}");
                        let node: NodeId = id.parse().map_err(|_| ScenarioError::new(at.clone(), "expected a node id as the key"))?;
                        if !cfg.ids.contains(&node) {
                            return Err(ScenarioError::new(at, format!("unknown node {node}")));
                        }
                        zk.zxids.insert(node, z.as_u64().ok_or_else(|| ScenarioError::new(at, "expected a whole number"))?);
                    }
                }
                _ => return Err(ScenarioError::new(format!("params.{key}"), "unknown field (expected zxid, finalize_wait or ack_window)")),
            }
        }
        if zk.ack_window == 0 {
            return Err(ScenarioError::new("params.ack_window", "must be at least 1 tick"));
        }
        Ok(zk)
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Phase {
    Looking,
    Following,
    /// Won the vote; not yet followed by a quorum.
    Prospective,
    Leading,
}

/// A vote: (ZXID of the proposed leader, proposed leader), compared in that order.
pub type Vote = (u64, NodeId);

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct State {
    pub me: NodeId,
    pub zxid: u64,
    // Durable.
    pub round: u64,
    /// The latest promise to follow: (round, leader). At most one leader per round.
    pub promise: Option<(u64, NodeId)>,
    // Volatile.
    pub phase: Phase,
    pub vote: Vote,
    /// The last vote of each node in this round, its own included (LOOKING).
    pub votes: Vec<(NodeId, Vote)>,
    /// A quorum was seen; the finalize wait is running.
    pub finalizing: bool,
    pub leader: Option<NodeId>,
    /// FOLLOW for this round received in the current window, itself included (as leader); while
    /// LOOKING, the FOLLOW that arrived before this node decided.
    pub acks: Vec<NodeId>,
    /// The round this node leads, once a quorum confirmed it.
    pub led: Option<u64>,
    pub quorum: u32,
}

impl State {
    fn tally(&self) -> u32 {
        self.votes.iter().filter(|(_, v)| *v == self.vote).count() as u32
    }
    /// Records `who`'s vote. A node's vote only grows within a round, so the larger of two is
    /// the later one, even when the network delivered them out of order.
    fn record(&mut self, who: NodeId, v: Vote) {
        match self.votes.iter_mut().find(|(n, _)| *n == who) {
            Some(e) => e.1 = e.1.max(v),
            None => self.votes.push((who, v)),
        }
    }
    /// May this node promise to follow `leader` in `round`?
    fn can_promise(&self, round: u64, leader: NodeId) -> bool {
        self.promise.is_none_or(|(r, l)| r < round || (r == round && l == leader))
    }
    fn leads(&self) -> bool {
        matches!(self.phase, Phase::Prospective | Phase::Leading)
    }
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Msg {
    Vote { leader: NodeId, zxid: u64, round: u64 },
    Elected { round: u64 },
    Follow { round: u64 },
    Ping { round: u64 },
}

kinds! {
    Msg;
    Msg::Vote { .. } => Kind::new("VOTE", "V", Visual::Request, Text::new("a LOOKING node's vote: whom it proposes, that node's ZXID, and its round", "LOOKING 节点的投票：提议谁、该节点的 ZXID 以及选举轮次")),
    Msg::Elected { .. } => Kind::new("ELECTED", "EL", Visual::Announcement, Text::new("the leader answers a LOOKING node: follow me in this round", "领导者答复 LOOKING 节点：本轮请跟随我")),
    Msg::Follow { .. } => Kind::new("FOLLOW", "F", Visual::Answer, Text::new("a promise to follow this leader in this round; also the answer to PING", "承诺本轮跟随该领导者；也是对 PING 的应答")),
    Msg::Ping { .. } => Kind::new("PING", "P", Visual::Heartbeat, Text::new("the leader's heartbeat", "领导者的心跳")),
}

impl Message for Msg {
    fn label(&self) -> String {
        match self {
            Msg::Vote { leader, zxid, round } => format!("VOTE(N{leader}, zxid {zxid}, r{round})"),
            Msg::Elected { round } | Msg::Follow { round } | Msg::Ping { round } => format!("{}(r{round})", KINDS[self.kind()].name),
        }
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Timer {
    /// The short wait after a quorum of votes, for a better vote still in flight.
    Finalize,
    /// A LOOKING node repeats its vote.
    Retry,
    /// The follower's failure detector.
    LeaderTimeout,
    Ping,
    /// The (prospective) leader's window for a quorum of FOLLOW.
    AckCheck,
}

impl TimerKey for Timer {
    fn name(&self) -> &'static str {
        match self {
            Timer::Finalize => "FINALIZE_WAIT",
            Timer::Retry => "VOTE_AGAIN",
            Timer::LeaderTimeout => "LEADER_TIMEOUT",
            Timer::Ping => "PING",
            Timer::AckCheck => "ACK_CHECK",
        }
    }
}

type C<'a> = Ctx<'a, Msg, Timer>;

impl ZooKeeper {
    fn vote_msg(s: &State) -> Msg {
        Msg::Vote { leader: s.vote.1, zxid: s.vote.0, round: s.round }
    }

    fn arm_retry(&self, ctx: &mut C) {
        if let Some(hb) = ctx.cfg.heartbeats {
            ctx.set_timer(Timer::Retry, hb.timeout, 2 * hb.timeout);
        }
    }

    /// Starts the (prospective) leader's timers: PING and the window for FOLLOW.
    fn arm_leader(&self, ctx: &mut C) {
        if let Some(hb) = ctx.cfg.heartbeats {
            ctx.set_timer_after(Timer::Ping, hb.interval);
            ctx.set_timer_after(Timer::AckCheck, self.ack_window);
        }
    }

    fn stop_leading(&self, s: &mut State, ctx: &mut C) {
        if s.leads() {
            ctx.cancel_timer(Timer::Ping);
            ctx.cancel_timer(Timer::AckCheck);
        }
        s.acks.clear();
        s.led = None;
    }

    /// Goes LOOKING in `round`, voting for itself.
    fn look(&self, s: &mut State, round: u64, ctx: &mut C) {
        self.stop_leading(s, ctx);
        ctx.cancel_timer(Timer::LeaderTimeout);
        ctx.cancel_timer(Timer::Finalize);
        s.phase = Phase::Looking;
        s.round = round;
        s.leader = None;
        s.finalizing = false;
        s.vote = (s.zxid, s.me);
        s.votes = vec![(s.me, s.vote)];
        ctx.broadcast(Self::vote_msg(s));
        self.arm_retry(ctx);
        self.check_quorum(s, ctx);
    }

    /// A quorum of the held votes equal its own: start the finalize wait.
    fn check_quorum(&self, s: &mut State, ctx: &mut C) {
        let tally = s.tally();
        if !s.finalizing && tally >= s.quorum {
            s.finalizing = true;
            ctx.note(&N_QUORUM, &[s.me as u64, s.vote.1 as u64, tally as u64]);
            ctx.set_timer_after(Timer::Finalize, self.finalize_wait);
        }
    }

    /// Follows `leader` in `round`: the promise, then FOLLOW.
    fn join(&self, s: &mut State, leader: NodeId, round: u64, ctx: &mut C) {
        debug_assert!(s.can_promise(round, leader));
        self.stop_leading(s, ctx);
        ctx.cancel_timer(Timer::Retry);
        ctx.cancel_timer(Timer::Finalize);
        s.phase = Phase::Following;
        s.round = round;
        s.promise = Some((round, leader));
        s.leader = Some(leader);
        s.vote = (self.zxid_of(leader), leader);
        s.votes.clear();
        s.finalizing = false;
        ctx.send(leader, Msg::Follow { round });
        ctx.watch_leader(Timer::LeaderTimeout, Some(leader));
    }

    /// With a quorum of FOLLOW for its round, a (prospective) leader leads that round.
    fn confirm(&self, s: &mut State, ctx: &mut C) {
        if s.acks.len() as u32 >= s.quorum && s.led != Some(s.round) {
            let first = s.phase == Phase::Prospective;
            s.phase = Phase::Leading;
            s.led = Some(s.round);
            s.leader = Some(s.me);
            ctx.note(if first { &N_LEADS } else { &N_RECONFIRMED }, &[s.me as u64, s.round, s.acks.len() as u64]);
        }
    }

    fn zxid_of(&self, id: NodeId) -> u64 {
        self.zxids.get(&id).copied().unwrap_or(0)
    }

    fn fresh(&self, me: NodeId, quorum: u32) -> State {
        let zxid = self.zxid_of(me);
        State {
            me,
            zxid,
            round: 0,
            promise: None,
            phase: Phase::Looking,
            vote: (zxid, me),
            votes: vec![],
            finalizing: false,
            leader: None,
            acks: vec![],
            led: None,
            quorum,
        }
    }

    /// A node claims to lead `round` (PING or ELECTED).
    fn on_claim(&self, s: &mut State, from: NodeId, round: u64, ctx: &mut C) {
        let (me, peer) = (s.me as u64, from as u64);
        match s.phase {
            Phase::Looking => {
                if round >= s.round && s.can_promise(round, from) {
                    ctx.note(&N_JOIN, &[me, peer, round]);
                    self.join(s, from, round, ctx);
                } else {
                    ctx.note(&N_CLAIM_OLD, &[me, peer, s.round]);
                }
            }
            Phase::Following if s.leader == Some(from) => {
                if round >= s.round && s.can_promise(round, from) {
                    ctx.note(if round > s.round { &N_FOLLOW_UP } else { &N_PING_ACK }, &[me, peer, round]);
                    s.round = round;
                    s.promise = Some((round, from));
                    ctx.send(from, Msg::Follow { round });
                    ctx.watch_leader(Timer::LeaderTimeout, Some(from));
                } else {
                    ctx.note(&N_STALE_PING, &[me, peer, s.round]);
                }
            }
            Phase::Following => {
                if round > s.round {
                    ctx.note(&N_NEWER_LEADER, &[me, peer, round]);
                    self.join(s, from, round, ctx);
                } else {
                    ctx.note(&N_OTHER_LEADER, &[me, peer, s.leader.map_or(0, |l| l as u64)]);
                }
            }
            Phase::Prospective | Phase::Leading => {
                if round > s.round {
                    ctx.note(&N_STEP_DOWN, &[me, peer, round]);
                    self.join(s, from, round, ctx);
                } else {
                    ctx.note(&N_RIVAL, &[me, peer, round]);
                }
            }
        }
    }
}

/// What a node's number counts, under it on the canvas.
static ROUND: Text = Text::new("round", "轮次");

impl Protocol for ZooKeeper {
    type State = State;
    type Msg = Msg;
    type Timer = Timer;
    const KINDS: &'static [Kind] = KINDS;

    fn new(cfg: &Config, params: &Params) -> Result<Self, ScenarioError> {
        ZooKeeper::from_params(cfg, params)
    }

    fn init(&self, ctx: &mut C) -> State {
        let mut s = self.fresh(ctx.me, ctx.cfg.quorum());
        match ctx.cfg.initial_leader {
            Some(l) => {
                s.round = 1;
                s.promise = Some((1, l));
                s.leader = Some(l);
                s.vote = (self.zxid_of(l), l);
                if l == s.me {
                    s.phase = Phase::Leading;
                    s.led = Some(1);
                    s.acks = vec![s.me];
                    self.arm_leader(ctx);
                } else {
                    s.phase = Phase::Following;
                    ctx.watch_leader(Timer::LeaderTimeout, Some(l));
                }
            }
            None => self.look(&mut s, 1, ctx),
        }
        s
    }

    fn start(&self, s: &mut State, ctx: &mut C) {
        let me = s.me as u64;
        match s.phase {
            Phase::Looking => {
                ctx.note(&N_START_LOOKING, &[me, s.round, s.vote.1 as u64]);
                ctx.broadcast(Self::vote_msg(s));
            }
            Phase::Following => {
                ctx.note(&N_START_FOLLOWER, &[me, s.leader.map_or(0, |l| l as u64), s.round + 1]);
                self.look(s, s.round + 1, ctx);
            }
            Phase::Prospective | Phase::Leading => ctx.note(&N_START_LEADER, &[me, s.round]),
        }
    }

    fn on_message(&self, s: &mut State, from: NodeId, msg: Msg, ctx: &mut C) {
        let (me, peer) = (s.me as u64, from as u64);
        match msg {
            Msg::Vote { leader, zxid, round } => {
                let v = (zxid, leader);
                match s.phase {
                    Phase::Looking => {
                        if round > s.round {
                            ctx.cancel_timer(Timer::Finalize);
                            s.round = round;
                            s.finalizing = false;
                            s.acks.clear();
                            s.vote = v.max((s.zxid, s.me));
                            s.votes = vec![(s.me, s.vote), (from, v)];
                            ctx.note(&N_NEWER_ROUND, &[me, round, s.vote.1 as u64]);
                            ctx.broadcast(Self::vote_msg(s));
                        } else if round < s.round {
                            ctx.note(&N_OLDER_ROUND, &[me, peer, s.round]);
                            ctx.send(from, Self::vote_msg(s));
                            return;
                        } else if v > s.vote {
                            ctx.cancel_timer(Timer::Finalize);
                            s.finalizing = false;
                            s.vote = v;
                            s.record(s.me, v);
                            s.record(from, v);
                            ctx.note(&N_SWITCH, &[me, leader as u64, peer]);
                            ctx.broadcast(Self::vote_msg(s));
                        } else {
                            s.record(from, v);
                            ctx.note(&N_KEEP, &[me, peer, leader as u64]);
                        }
                        self.check_quorum(s, ctx);
                    }
                    Phase::Following => ctx.note(&N_FOLLOWER_QUIET, &[me, peer, s.leader.map_or(0, |l| l as u64)]),
                    Phase::Prospective | Phase::Leading => {
                        if round > s.round {
                            // Move up to the newer round: a fresh promise to itself, and a fresh
                            // window in which its followers confirm it there.
                            ctx.note(&N_BUMP, &[me, peer, round]);
                            s.round = round;
                            s.promise = Some((round, s.me));
                            s.acks = vec![s.me];
                            ctx.broadcast(Msg::Ping { round });
                            self.arm_leader(ctx);
                            self.confirm(s, ctx);
                        } else {
                            ctx.note(&N_ANSWER, &[me, peer, s.round]);
                            ctx.send(from, Msg::Elected { round: s.round });
                        }
                    }
                }
            }
            Msg::Elected { round } | Msg::Ping { round } => self.on_claim(s, from, round, ctx),
            Msg::Follow { round } if s.phase == Phase::Looking && round == s.round => {
                // Decided before this node: its promise is also its vote for this node, and it
                // counts as FOLLOW should this node win.
                ctx.note(&N_FOLLOW_EARLY, &[me, peer]);
                s.record(from, (s.zxid, s.me));
                if !s.acks.contains(&from) {
                    s.acks.push(from);
                }
                self.check_quorum(s, ctx);
            }
            Msg::Follow { round } => {
                if s.leads() && round == s.round {
                    if s.acks.contains(&from) {
                        ctx.note(&N_FOLLOW_AGAIN, &[me, peer]);
                    } else {
                        s.acks.push(from);
                        let confirmed = s.led == Some(s.round);
                        ctx.note(if confirmed { &N_ANSWERED } else { &N_FOLLOWED }, &[me, peer, s.acks.len() as u64]);
                        self.confirm(s, ctx);
                    }
                } else {
                    ctx.note(&N_FOLLOW_IGNORED, &[me, peer, round]);
                }
            }
        }
    }

    fn on_timer(&self, s: &mut State, timer: Timer, ctx: &mut C) {
        let me = s.me as u64;
        match timer {
            Timer::Finalize => {
                if s.phase != Phase::Looking || !s.finalizing {
                    return;
                }
                s.finalizing = false;
                let leader = s.vote.1;
                if s.tally() < s.quorum {
                    ctx.note(&N_QUORUM_LOST, &[me, leader as u64]);
                } else if leader == s.me {
                    ctx.note(&N_DECIDE_LEAD, &[me, s.round, s.quorum as u64]);
                    ctx.cancel_timer(Timer::Retry);
                    s.phase = Phase::Prospective;
                    s.promise = Some((s.round, s.me));
                    s.acks.insert(0, s.me);
                    s.votes.clear();
                    self.arm_leader(ctx);
                    self.confirm(s, ctx);
                } else {
                    ctx.note(&N_DECIDE_FOLLOW, &[me, leader as u64, s.round]);
                    self.join(s, leader, s.round, ctx);
                }
            }
            Timer::Retry => {
                if s.phase == Phase::Looking {
                    ctx.note(&N_RETRY, &[me, s.round, s.vote.1 as u64]);
                    ctx.broadcast(Self::vote_msg(s));
                    self.arm_retry(ctx);
                }
            }
            Timer::LeaderTimeout => {
                if let (Phase::Following, Some(l)) = (s.phase, s.leader) {
                    ctx.note(&N_SUSPECT, &[me, l as u64, ctx.cfg.heartbeats.map_or(0, |h| h.timeout)]);
                    self.look(s, s.round + 1, ctx);
                }
            }
            Timer::Ping => {
                if s.leads() {
                    ctx.heartbeat(Timer::Ping, &N_BEAT, &[me, s.round], Msg::Ping { round: s.round });
                }
            }
            Timer::AckCheck => {
                let tally = [me, s.acks.len() as u64, s.quorum as u64];
                match s.phase {
                    Phase::Leading if s.acks.len() as u32 >= s.quorum => {
                        ctx.note(&N_WINDOW_OK, &tally);
                        s.acks = vec![s.me];
                        ctx.set_timer_after(Timer::AckCheck, self.ack_window);
                    }
                    Phase::Leading | Phase::Prospective => {
                        ctx.note(if s.phase == Phase::Leading { &N_LONELY } else { &N_NOT_CONFIRMED }, &tally);
                        self.look(s, s.round + 1, ctx);
                    }
                    _ => {}
                }
            }
        }
    }

    fn recover(&self, crashed: &State, ctx: &mut C) -> State {
        let mut s = self.fresh(crashed.me, crashed.quorum);
        s.round = crashed.round;
        s.promise = crashed.promise;
        let round = s.round + 1;
        ctx.note(&N_RECOVER, &[s.me as u64, round]);
        self.look(&mut s, round, ctx);
        s
    }

    fn view(&self, s: &State) -> View {
        let (role, leader, term, tally) = match s.phase {
            Phase::Looking => ("looking", None, s.round, Some((s.tally(), s.quorum))),
            Phase::Following => ("following", s.leader, s.round, None),
            Phase::Prospective => ("prospective", None, s.round, Some((s.acks.len() as u32, s.quorum))),
            Phase::Leading => (LEADING, Some(s.me), s.led.unwrap_or(s.round), None),
        };
        View { role, leader, term: Some(term), term_word: Some(&ROUND), vote: Some(s.vote.1), tally, zxid: Some(s.zxid), ..View::default() }
    }

    fn inspect(&self, s: &State) -> Vec<(&'static str, String)> {
        let votes = s.votes.iter().map(|(n, v)| format!("N{n}→N{}", v.1)).collect::<Vec<_>>().join(", ");
        vec![
            ("state", format!("{:?}", s.phase).to_ascii_uppercase()),
            ("zxid", s.zxid.to_string()),
            ("round", s.round.to_string()),
            ("vote (zxid, sid)", format!("({}, N{})", s.vote.0, s.vote.1)),
            ("votes held", votes),
            ("promised", s.promise.map_or("-".into(), |(r, l)| format!("N{l} in round {r}"))),
            ("leader", fmt_node(s.leader)),
            ("FOLLOW this window", s.acks.iter().map(|x| format!("N{x}")).collect::<Vec<_>>().join(", ")),
        ]
    }
}

#[cfg(test)]
mod tests;
