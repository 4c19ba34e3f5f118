//! **Invitation** (H. Garcia-Molina, "Elections in a Distributed Computing System", IEEE
//! Transactions on Computers C-31(1), 1982): the paper's election for asynchronous systems,
//! described beside Bully. Where Bully insists on one leader, Invitation lets every node lead
//! a *group*, and groups merge when their leaders find each other.
//!
//! Every node starts as the leader of a group of one. A leader runs invitation rounds, each
//! after a randomized delay (drawn by the simulator, so that two leaders seldom invite each
//! other at the same moment): it sends INVITE, carrying its group's size, to a node outside its
//! group. A leader that receives an INVITE compares the two groups: the larger group's leader
//! leads the merged group. If the inviter's group wins, the invitee answers ACCEPT with the list
//! of its members, and the inviter sends GROUP to each of them — only the smaller group is told,
//! the winner's own members see no change. If the invitee's group wins, it invites the inviter
//! back. A node that is not a leader answers an INVITE with REDIRECT naming its leader, so that
//! the two leaders can talk directly. A leader sends HEARTBEAT to its members, which answer
//! ACK; a member that stops hearing its leader (`heartbeats.timeout`) leaves and leads a group
//! of its own again, and a leader that stops hearing a member drops it from its group.
//!
//! Readings chosen (where the course notes leave room, or differ from the paper):
//!
//! * **Who leads a merge.** In Garcia-Molina's paper the coordinator that sends the invitations
//!   becomes the coordinator of the merged group. The course notes, like A. Petrov's *Database
//!   Internals* (O'Reilly, 2019), let the leader of the *larger* group lead, so that only the
//!   smaller group has to be told; that is the rule here. **Ties go to the lower id.** Both leaders evaluate the
//!   same total order (size first, then the lower id), so they never both give way and never
//!   both insist; and in the notes' figure, where {1,2} and {3,4} merge, it makes 1 the leader.
//! * **Whom a round invites.** The paper's coordinator asks every node whether it is a
//!   coordinator. The notes' figure shows one invitation per leader at a time (1 invites 2 while
//!   3 invites 4, then 1 contacts 3), so a round here invites *one* node: the next one, in
//!   scenario order after the last node this leader invited, that is outside its group. A dead
//!   node costs one round; the next round moves on.
//! * **Telling the smaller group.** The paper's old coordinator forwards the invitation to its
//!   members, who each accept. Here the invitee's ACCEPT carries its member list and the new
//!   leader sends GROUP to those members (the invitee included: for it GROUP is the paper's
//!   READY, the confirmation that ends its wait). A merge of a group of k into a larger one
//!   costs INVITE + ACCEPT + k GROUP.
//! * **Stale member lists.** Members move between groups without telling their old leader
//!   (a partition, a crash, a merge). The paper's members check in with their coordinator
//!   (AreYouThere); here members answer each HEARTBEAT with ACK, and a leader drops a member it
//!   has not heard from for `heartbeats.timeout` — so the sizes that decide merges count live,
//!   reachable members, and a leader cut off from part of its group starts inviting again. A
//!   node that gets HEARTBEAT or GROUP from a leader it does not follow answers REDIRECT naming
//!   its own leader; that leader drops it and invites its real leader. A leader that accepted
//!   an invitation waits for GROUP for one round trip (`2·latency_max + 1`); if none comes, or
//!   the inviter turns out to have given up its own leadership meanwhile, it leads its old
//!   group again (the paper's recovery). An invitation unanswered for a round trip is
//!   forgotten; while one is still awaited, the leader lets its next round pass.
//! * **Failure detection and crashes.** Only with `heartbeats`: a leader sends HEARTBEAT to its
//!   members every `heartbeats.interval` and runs rounds while some node is outside its group.
//!   All state is volatile; a recovered node leads a group of one. With `heartbeats: null`
//!   nothing runs by itself: `start` at a leader runs one invitation round.
//! * `initial_leader`: every node starts in that node's group.
//!
//! **What it claims: no safety property.** Several leaders at once is Invitation's normal state,
//! not a fault: at the start, after a crash, and on each side of a partition, every group has
//! its own leader (the UI draws each group as a hull, from `View.group`). What the algorithm
//! promises is progress — once the network is whole again and quiet, the groups merge into one
//! with one leader that every live node names. That is a liveness property, which the safety
//! sweeps cannot check; this module's tests check it over many random runs.
//!
//! Parameters (`params`): `invite` `[lo, hi]`, the delay between a leader's invitation rounds
//! (default `[T, 2T]` with `T = heartbeats.timeout`).

use crate::algorithm::Algorithm;
use crate::error::ScenarioError;
use crate::meta::{Formula, Kind, Look, Preset, Role, Text, Topology, Visual, FOLLOWER_ROLE, LEADER_ROLE};
use crate::protocol::{fmt_node, ParamReader, Config, Ctx, Message, Params, Protocol, TimerKey, View, FOLLOWER, LEADER};
use crate::run;
use crate::{NodeId, Time};
use std::collections::BTreeMap;

#[derive(Clone, Debug)]
pub struct Invitation {
    /// Delay range between a leader's invitation rounds.
    pub invite: (Time, Time),
    /// How long a leader that accepted an invitation waits for GROUP: one round trip.
    pub join_wait: Time,
}

pub const ALGORITHM: Algorithm = Algorithm {
    id: "invitation",
    title: Text::new("Invitation", "邀请算法"),
    citation: "H. Garcia-Molina, Elections in a Distributed Computing System, IEEE Transactions on Computers C-31(1), 1982",
    summary: Text::new(
        "Every node starts as the leader of its own group; leaders invite nodes outside their group, and when two groups meet the larger group's leader leads them both.",
        "每个节点起初都是只含自己的组的领导者；领导者邀请组外节点加入，两个组相遇时由较大组的领导者领导合并后的组。",
    ),
    card: Text::new(
        "Garcia-Molina's election for asynchronous systems: instead of fighting over ranks, leaders gather groups. Several groups, each with its own leader, is a normal state.\n\n\
         • Every node starts as the leader of a group of one.\n\
         • Now and then (after a random delay, to avoid collisions) a leader sends INVITE, with its group's size, to the next node outside its group.\n\
         • A leader that is invited compares the groups: the larger one's leader leads; on a tie, the lower id. If the inviter wins, the invitee answers ACCEPT with its member list; otherwise it invites the inviter back.\n\
         • The winner sends GROUP to the members of the smaller group only: its own members see no change.\n\
         • A node that is not a leader answers an INVITE with REDIRECT, naming its leader, so the two leaders can talk directly.\n\
         • A leader sends HEARTBEAT to its members, which answer ACK. A member that stops hearing its leader leads a group of its own again; a leader that stops hearing a member drops it.\n\n\
         What to watch: the coloured hulls of the groups growing and merging; a partition leaves a leader on each side — by design, not by accident — and after healing the groups merge again.",
        "Garcia-Molina 为异步系统设计的选举：领导者不再比拼等级，而是把节点聚成组。同时存在多个组、各有领导者，是正常状态。\n\n\
         • 每个节点起初都是只含自己的组的领导者。\n\
         • 领导者每隔一段随机时间（随机是为了避免冲突）向组外的下一个节点发送 INVITE（邀请），其中带上本组的大小。\n\
         • 收到邀请的领导者比较两个组：较大组的领导者胜出；大小相同时，id 较小者胜出。邀请者胜出时，被邀请者回复 ACCEPT 并附上本组成员名单；否则它反过来邀请对方。\n\
         • 胜出者只向较小组的成员发送 GROUP：自己原来的成员不受影响。\n\
         • 不是领导者的节点收到 INVITE 时回复 REDIRECT，告知自己的领导者，让两个领导者直接联系。\n\
         • 领导者向组员发送 HEARTBEAT（心跳），组员回复 ACK。收不到心跳的组员重新成为只含自己的组的领导者；收不到某组员回复的领导者把它移出本组。\n\n\
         观察要点：各组彩色外框的扩大与合并；网络分区后两侧各有一个领导者——这是设计使然，而非意外——分区消除后各组再次合并。",
    ),
    topology: Topology::Complete,
    kinds: KINDS,
    roles: &[
        LEADER_ROLE,
        FOLLOWER_ROLE,
        Role::new("joining", Look::Waiting, Text::new("accepted an invitation: waiting for GROUP", "已接受邀请：等待 GROUP")),
    ],
    formulas: &[Formula {
        name: "3(N−1)",
        applies: Text::new(
            "one leader gathering N groups of one, one at a time: each of the N−1 merges costs INVITE, ACCEPT and one GROUP",
            "一个领导者逐个吸收 N 个单节点组：N−1 次合并各需一条 INVITE、一条 ACCEPT 和一条 GROUP",
        ),
        counts: &["INVITE", "ACCEPT", "GROUP"],
        value: |n| 3 * n.saturating_sub(1),
    }],
    properties: &[],
    presets: PRESETS,
    build: run::build::<Invitation>,
};

const PRESETS: &[Preset] = &[
    Preset {
        id: "invitation-figure",
        title: Text::new("Invitation: two pairs merge", "邀请算法：两对合并"),
        hint: Text::new(
            "Four groups of one. N1 invites N2 while N3 invites N4; then N1 invites N3. Both groups have two nodes, the tie goes to the lower id: N1 leads all four, and only N3 and N4 are told.",
            "四个单节点组。N1 邀请 N2，同时 N3 邀请 N4；随后 N1 邀请 N3。两组都有两个节点，平局时 id 较小者胜出：N1 领导全部四个节点，只有 N3 和 N4 收到通知。",
        ),
        json: r#"{"algorithm":"invitation","nodes":[1,2,3,4],"seed":425,
                  "schedule":[{"at":0,"start":1},{"at":0,"start":3},{"at":5,"start":1}]}"#,
        leaders: &[1],
        golden: "df1bee6d99d52ea2",
    },
    Preset {
        id: "invitation-gather",
        title: Text::new("Invitation: one leader gathers", "邀请算法：一个领导者逐个吸收"),
        hint: Text::new(
            "Only N1 invites, one node per round: each merge costs INVITE, ACCEPT and one GROUP, 3(N−1) = 15 messages for six nodes.",
            "只有 N1 发出邀请，每轮邀请一个节点：每次合并需要 INVITE、ACCEPT 和一条 GROUP，六个节点共 3(N−1) = 15 条消息。",
        ),
        json: r#"{"algorithm":"invitation","nodes":[1,2,3,4,5,6],"seed":425,
                  "schedule":[{"at":0,"start":1},{"at":4,"start":1},{"at":8,"start":1},{"at":12,"start":1},{"at":16,"start":1}]}"#,
        leaders: &[1],
        golden: "91444b655255de5f",
    },
    Preset {
        id: "invitation-partition",
        title: Text::new("Invitation: a partition and its healing", "邀请算法：分区与愈合"),
        hint: Text::new(
            "Groups form from cold and N1 ends up leading all five. At t=120 {1,2} is cut off from {3,4,5}: the far side stops hearing N1 and forms a group of its own, so each side has a leader — by design. At t=240 the network heals and the larger group's leader, N3, takes the two over.",
            "各组从零开始形成，最终 N1 领导全部五个节点。t=120 时 {1,2} 与 {3,4,5} 被切开：另一侧收不到 N1 的心跳，自行组成新组，于是两侧各有一个领导者——这是设计使然。t=240 时网络恢复，较大组的领导者 N3 接管两个组。",
        ),
        json: r#"{"algorithm":"invitation","nodes":[1,2,3,4,5],"seed":425,
                  "heartbeats":{"interval":3,"timeout":12},
                  "schedule":[{"at":120,"partition":[[1,2],[3,4,5]]},{"at":240,"heal":true}],
                  "stop":{"max_time":400}}"#,
        leaders: &[3],
        golden: "2a3097d0bc3fd079",
    },
];

// Narration: one sentence per rule, in both languages. `{0}` is the acting node.
const N_ROUND: Text = Text::new(
    "N{0} leads a group of {1}: in this invitation round it sends INVITE to N{2}, the next node outside its group.",
    "N{0} 领导一个 {1} 人的组：在这一轮邀请中，它向组外的下一个节点 N{2} 发送 INVITE。",
);
const N_ROUND_WAIT: Text = Text::new(
    "N{0}'s invitation to N{1} is still waiting for its answer: it lets this invitation round pass.",
    "N{0} 发给 N{1} 的邀请仍在等待答复：它跳过这一轮邀请。",
);
const N_ROUND_DONE: Text = Text::new(
    "N{0}'s group already holds every node: there is nobody left to invite, so its invitation rounds stop.",
    "N{0} 的组已包含所有节点：没有可邀请的节点了，因此它停止邀请。",
);
const N_START_FOLLOWER: Text = Text::new(
    "N{0} belongs to N{1}'s group: only group leaders send invitations, so it does nothing.",
    "N{0} 属于 N{1} 的组：只有组的领导者才发出邀请，所以它什么也不做。",
);
const N_ACCEPT_LARGER: Text = Text::new(
    "N{0} gets INVITE from N{1}, whose group of {2} is larger than its own: the larger group's leader leads, so N{0} accepts, sends ACCEPT with its member list and waits for GROUP.",
    "N{0} 收到 N{1} 的 INVITE，N{1} 的组有 {2} 个节点，比自己的组大：较大组的领导者领导合并后的组，所以 N{0} 接受邀请，回复附有成员名单的 ACCEPT，并等待 GROUP。",
);
const N_ACCEPT_TIE: Text = Text::new(
    "N{0} gets INVITE from N{1}: both groups have {2:node:nodes}, and a tie goes to the lower id, N{1}. N{0} accepts, sends ACCEPT with its member list and waits for GROUP.",
    "N{0} 收到 N{1} 的 INVITE：两个组都有 {2} 个节点，平局时 id 较小者 N{1} 胜出。N{0} 接受邀请，回复附有成员名单的 ACCEPT，并等待 GROUP。",
);
const N_COUNTER: Text = Text::new(
    "N{0} gets INVITE from N{1}, but its own group of {2} wins (larger, or as large with a lower id): it invites N{1} back.",
    "N{0} 收到 N{1} 的 INVITE，但自己 {2} 个节点的组胜出（更大，或同样大而 id 更小）：它反过来邀请 N{1}。",
);
const N_COUNTER_PENDING: Text = Text::new(
    "N{0} gets INVITE from N{1}, but its own group of {2} wins, and its own INVITE to N{1} is already on the way: it waits for N{1}'s answer.",
    "N{0} 收到 N{1} 的 INVITE，但自己 {2} 个节点的组胜出，而且它发给 N{1} 的 INVITE 已在途中：它等待 N{1} 的答复。",
);
const N_REDIRECT_INVITE: Text = Text::new(
    "N{0} gets INVITE from N{1} but is not a leader (its leader is N{2}): it answers REDIRECT with N{2}'s id, so the two leaders can talk directly.",
    "N{0} 收到 N{1} 的 INVITE，但它不是领导者（它的领导者是 N{2}）：它回复 REDIRECT，告知 N{2} 的 id，让两个领导者直接联系。",
);
const N_OWN_LEADER_INVITES: Text = Text::new(
    "N{0} gets INVITE from N{1}, which already leads it: it answers REDIRECT to say it is in N{1}'s group.",
    "N{0} 收到 N{1} 的 INVITE，而 N{1} 本来就是它的领导者：它回复 REDIRECT，说明自己已在 N{1} 的组中。",
);
const N_MERGE: Text = Text::new(
    "N{0} gets ACCEPT from N{1}: N{1}'s group of {2} joins N{0}'s, and only its members are told, with GROUP, that N{0} leads them now.",
    "N{0} 收到 N{1} 的 ACCEPT：N{1} 的 {2} 人组并入 N{0} 的组，只有这些成员会通过 GROUP 得知 N{0} 现在是它们的领导者。",
);
const N_ACCEPT_NOT_LEADER: Text = Text::new(
    "N{0} gets ACCEPT from N{1} but no longer leads a group (its leader is N{2}): it answers REDIRECT with N{2}'s id.",
    "N{0} 收到 N{1} 的 ACCEPT，但它已不再领导一个组（它的领导者是 N{2}）：它回复 REDIRECT，告知 N{2} 的 id。",
);
const N_JOINED: Text = Text::new(
    "N{0} gets GROUP from N{1}: the invitation it accepted is confirmed, and N{1} is its leader now.",
    "N{0} 收到 N{1} 的 GROUP：它接受的邀请得到确认，N{1} 现在是它的领导者。",
);
const N_MOVED: Text = Text::new(
    "N{0} gets GROUP from N{1}: its group (led by N{2}) has merged into N{1}'s, so N{1} is its leader now.",
    "N{0} 收到 N{1} 的 GROUP：它所在的组（由 N{2} 领导）已并入 N{1} 的组，所以 N{1} 现在是它的领导者。",
);
const N_GROUP_REFUSED: Text = Text::new(
    "N{0} gets GROUP from N{1} about a group it no longer belongs to: it answers REDIRECT with its own leader's id, N{2}.",
    "N{0} 收到 N{1} 关于一个它已不再属于的组的 GROUP：它回复 REDIRECT，告知自己的领导者 N{2}。",
);
const N_BEAT: Text = Text::new(
    "N{0} leads: it sends HEARTBEAT to the {1:other member:other members} of its group.",
    "N{0} 是领导者：它向组内其余 {1} 个成员发送 HEARTBEAT（心跳）。",
);
const N_BEAT_JOINING: Text = Text::new(
    "N{0} is joining N{1}'s group: until N{1} takes its {2:member:members} over, it keeps sending them HEARTBEAT.",
    "N{0} 正在加入 N{1} 的组：在 N{1} 接管它的 {2} 个成员之前，它继续向它们发送 HEARTBEAT。",
);
const N_ACK: Text = Text::new("N{0} gets ACK from its member N{1}: N{1} is still in the group.", "N{0} 收到组员 N{1} 的 ACK：N{1} 仍在组中。");
const N_ACK_MOOT: Text = Text::new(
    "N{0} gets ACK from N{1} but no longer leads a group: nothing to do.",
    "N{0} 收到 N{1} 的 ACK，但它已不再领导一个组：无事可做。",
);
const N_PRUNE: Text = Text::new(
    "N{0} has heard nothing from {1} of its members for over {2} ticks: it drops them from its group, which makes it smaller and sends its invitations out again.",
    "N{0} 已超过 {2} 个时间单位没有收到其中 {1} 个组员的消息：它把它们移出本组，组因此变小，它也重新开始发出邀请。",
);
const N_ALIVE: Text = Text::new(
    "N{0} hears its leader N{1}'s heartbeat: the group holds, and it answers ACK.",
    "N{0} 收到其领导者 N{1} 的心跳：组仍然完好，它回复 ACK。",
);
const N_NOT_MINE: Text = Text::new(
    "N{0} gets HEARTBEAT from N{1}, which is not its leader: it answers REDIRECT with its leader's id, N{2}.",
    "N{0} 收到 N{1} 的 HEARTBEAT，但 N{1} 不是它的领导者：它回复 REDIRECT，告知自己的领导者 N{2}。",
);
const N_REDIRECT_INVITE_LEADER: Text = Text::new(
    "N{0} learns from N{1} that N{1}'s leader is N{2}: N{1} is not in N{0}'s group, so N{0} invites N{2} directly.",
    "N{0} 从 N{1} 处得知 N{1} 的领导者是 N{2}：N{1} 不在 N{0} 的组中，所以 N{0} 直接邀请 N{2}。",
);
const N_REDIRECT_ALREADY: Text = Text::new(
    "N{0} learns from N{1} that N{1}'s leader is N{2}, which N{0} has already invited or counts in its group: it waits.",
    "N{0} 从 N{1} 处得知 N{1} 的领导者是 N{2}，而 N{0} 已邀请过 N{2} 或已把它算作组员：它继续等待。",
);
const N_REDIRECT_MINE: Text = Text::new(
    "N{0} learns from N{1} that N{1} follows it: it puts N{1} back on its member list.",
    "N{0} 从 N{1} 处得知 N{1} 在跟随自己：它把 N{1} 重新列入成员名单。",
);
const N_REDIRECT_ABORT: Text = Text::new(
    "N{0} learns that N{1}, whose invitation it accepted, no longer leads (its leader is N{2}): N{0} leads its old group again and invites N{2}.",
    "N{0} 得知它接受过邀请的 N{1} 已不再是领导者（N{1} 的领导者是 N{2}）：N{0} 重新领导原来的组，并邀请 N{2}。",
);
const N_REDIRECT_MOOT: Text = Text::new(
    "N{0} gets REDIRECT from N{1} but no longer leads a group: the answer is moot.",
    "N{0} 收到 N{1} 的 REDIRECT，但它已不再领导一个组：这条答复已无意义。",
);
const N_SUSPECT: Text = Text::new(
    "N{0} heard no heartbeat from its leader N{1} for {2} ticks: it leaves the group and leads a group of its own, itself alone.",
    "N{0} 已有 {2} 个时间单位没有收到领导者 N{1} 的心跳：它离开该组，成为只含自己的组的领导者。",
);
const N_JOIN_TIMEOUT: Text = Text::new(
    "N{0} accepted N{1}'s invitation but no GROUP came within {2} ticks: it leads its old group again.",
    "N{0} 接受了 N{1} 的邀请，但 {2} 个时间单位内没有收到 GROUP：它重新领导原来的组。",
);
const N_RECOVER: Text = Text::new(
    "N{0} recovers with no memory of any group: it leads a group of its own, itself alone.",
    "N{0} 恢复后不记得任何组：它成为只含自己的组的领导者。",
);
const N_JOINING_IDLE: Text = Text::new(
    "N{0} is waiting to join N{1}'s group: it starts nothing meanwhile.",
    "N{0} 正在等待加入 N{1} 的组：在此期间它不发起任何事。",
);
const N_STALE_ACK: Text = Text::new(
    "N{0} gets a late GROUP confirmation from N{1} but leads its own group again: it answers REDIRECT so that N{1} invites it properly.",
    "N{0} 收到 N{1} 迟到的 GROUP 确认，但它已重新领导自己的组：它回复 REDIRECT，让 N{1} 重新正式邀请它。",
);

impl Invitation {
    fn from_params(cfg: &Config, params: &Params) -> Result<Self, ScenarioError> {
        let p = ParamReader::new(params, &["invite"])?;
        let t = cfg.heartbeats.map_or(10, |h| h.timeout);
        let (lo, hi) = p.pair("invite")?.map_or((t, 2 * t), |[a, b]| (a, b));
        if lo == 0 || lo > hi {
            return Err(ScenarioError::new("params.invite", format!("expected [lo, hi] with 1 <= lo <= hi, found [{lo}, {hi}]")));
        }
        Ok(Invitation { invite: (lo, hi), join_wait: 2 * cfg.latency.1 + 1 })
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Status {
    /// Leads a group (possibly of one).
    Leader,
    /// Accepted an invitation, waiting for GROUP; still keeps its old members alive.
    Joining,
    /// A member of someone else's group.
    Follower,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct State {
    pub me: NodeId,
    pub status: Status,
    /// The group's leader: itself when leading, the inviter when joining.
    pub leader: NodeId,
    /// The group it leads (or led, while joining), itself included, ascending.
    pub members: Vec<NodeId>,
    /// When it last heard from each other member (an ACK, or the merge that brought it in).
    pub heard: BTreeMap<NodeId, Time>,
    /// Nodes it has invited and not yet heard from, with when. An invitation unanswered for
    /// a round trip is forgotten (the answer, or the invitee, was lost).
    pub pending: Vec<(NodeId, Time)>,
    /// Scenario position of the last node it invited; rounds go on from there.
    pub cursor: usize,
    hb_armed: bool,
    round_armed: bool,
}

impl State {
    fn size(&self) -> u64 {
        self.members.len() as u64
    }
    fn has(&self, id: NodeId) -> bool {
        self.members.binary_search(&id).is_ok()
    }
    fn add(&mut self, id: NodeId, now: Time) {
        if let Err(at) = self.members.binary_search(&id) {
            self.members.insert(at, id);
        }
        if id != self.me {
            self.heard.insert(id, now);
        }
    }
    fn remove(&mut self, id: NodeId) {
        if let Ok(at) = self.members.binary_search(&id) {
            self.members.remove(at);
        }
        self.heard.remove(&id);
    }
    fn invited(&self, id: NodeId) -> bool {
        self.pending.iter().any(|&(x, _)| x == id)
    }
    fn forget(&mut self, id: NodeId) {
        self.pending.retain(|&(x, _)| x != id);
    }
    fn has_outsiders(&self, cfg: &Config) -> bool {
        self.members.len() < cfg.n()
    }
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Msg {
    Invite { size: u64 },
    Accept { members: Vec<NodeId> },
    Group { old: NodeId },
    Redirect { leader: NodeId },
    Heartbeat,
    Ack,
}

kinds! {
    Msg;
    Msg::Invite { .. } => Kind::new("INVITE", "INV", Visual::Request, Text::new("a leader invites a node outside its group (with its group's size)", "领导者邀请组外节点加入（附本组大小）")),
    Msg::Accept { .. } => Kind::new("ACCEPT", "ACC", Visual::Answer, Text::new("the smaller group's leader accepts, listing its members", "较小组的领导者接受邀请，并列出其成员")),
    Msg::Group { .. } => Kind::new("GROUP", "G", Visual::Announcement, Text::new("the new leader tells the smaller group's members it leads them", "新领导者告知较小组的成员：由它来领导")),
    Msg::Redirect { .. } => Kind::new("REDIRECT", "RD", Visual::Refusal, Text::new("not my group's leader: here is who is", "我不是组的领导者：这是我的领导者")),
    Msg::Heartbeat => Kind::new("HEARTBEAT", "hb", Visual::Heartbeat, Text::new("a leader's periodic sign of life to its members", "领导者定期向组员发出的存活信号（心跳）")),
    Msg::Ack => Kind::new("ACK", "ack", Visual::Answer, Text::new("a member answers its leader's heartbeat: still here", "组员回应领导者的心跳：我还在")),
}

impl Message for Msg {
    fn label(&self) -> String {
        match self {
            Msg::Invite { size } => format!("INVITE(size {size})"),
            Msg::Accept { members } => format!("ACCEPT({} node{})", members.len(), if members.len() == 1 { "" } else { "s" }),
            Msg::Group { old } => format!("GROUP(was N{old})"),
            Msg::Redirect { leader } => format!("REDIRECT(N{leader})"),
            Msg::Heartbeat => "HEARTBEAT".into(),
            Msg::Ack => "ACK".into(),
        }
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Timer {
    /// The next invitation round.
    Round,
    /// The leader's periodic HEARTBEAT to its members.
    Heartbeat,
    /// The failure detector: no heartbeat from the leader for `heartbeats.timeout`.
    LeaderTimeout,
    /// An accepted invitation not confirmed by GROUP within a round trip.
    JoinTimeout,
}

impl TimerKey for Timer {
    fn name(&self) -> &'static str {
        match self {
            Timer::Round => "ROUND",
            Timer::Heartbeat => "HEARTBEAT",
            Timer::LeaderTimeout => "LEADER_TIMEOUT",
            Timer::JoinTimeout => "JOIN_TIMEOUT",
        }
    }
}

type C<'a> = Ctx<'a, Msg, Timer>;

/// Whether group (size `a`, leader `la`) beats group (size `b`, leader `lb`): the larger group
/// wins, a tie goes to the lower id.
fn beats(a: u64, la: NodeId, b: u64, lb: NodeId) -> bool {
    a > b || (a == b && la < lb)
}

impl Invitation {
    fn alone(me: NodeId, cfg: &Config) -> State {
        State {
            me,
            status: Status::Leader,
            leader: me,
            members: vec![me],
            heard: BTreeMap::new(),
            pending: vec![],
            cursor: cfg.position(me).unwrap_or(0),
            hb_armed: false,
            round_armed: false,
        }
    }

    /// Arms the timers a leader needs: heartbeats while it has members, rounds while some node
    /// is outside its group (only with a failure detector; otherwise `start` runs rounds).
    fn arm(&self, s: &mut State, ctx: &mut C) {
        let Some(hb) = ctx.cfg.heartbeats else { return };
        if !s.hb_armed && s.members.len() > 1 && s.status != Status::Follower {
            s.hb_armed = true;
            ctx.set_timer_after(Timer::Heartbeat, hb.interval);
        }
        if !s.round_armed && s.status == Status::Leader && s.has_outsiders(ctx.cfg) {
            s.round_armed = true;
            ctx.set_timer(Timer::Round, self.invite.0, self.invite.1);
        }
    }

    /// Leads a group of one (start, leader lost, recovery).
    fn lead_alone(&self, s: &mut State, ctx: &mut C) {
        ctx.cancel_timer(Timer::LeaderTimeout);
        ctx.cancel_timer(Timer::JoinTimeout);
        if s.hb_armed {
            ctx.cancel_timer(Timer::Heartbeat);
        }
        if s.round_armed {
            ctx.cancel_timer(Timer::Round);
        }
        *s = Invitation::alone(ctx.me, ctx.cfg);
        self.arm(s, ctx);
    }

    fn send_invite(&self, s: &mut State, ctx: &mut C, to: NodeId) {
        if to != ctx.me && !s.invited(to) {
            s.pending.push((to, ctx.now));
            ctx.send(to, Msg::Invite { size: s.size() });
        }
    }

    /// Forgets invitations unanswered for longer than a round trip.
    fn expire(&self, s: &mut State, now: Time) {
        let wait = self.join_wait;
        s.pending.retain(|&(_, t)| now.saturating_sub(t) <= wait);
    }

    /// One invitation round: INVITE to the next node outside the group, in scenario order
    /// after the last one invited — unless an invitation is still waiting for its answer.
    fn round(&self, s: &mut State, ctx: &mut C) {
        self.expire(s, ctx.now);
        if let Some(&(waiting, _)) = s.pending.first() {
            ctx.note(&N_ROUND_WAIT, &[ctx.me as u64, waiting as u64]);
            return;
        }
        let cfg: &Config = ctx.cfg;
        let n = cfg.n();
        let next = (1..=n).map(|k| (s.cursor + k) % n).find(|&i| !s.has(cfg.ids[i]));
        match next {
            Some(i) => {
                let to = cfg.ids[i];
                s.cursor = i;
                ctx.note(&N_ROUND, &[ctx.me as u64, s.size(), to as u64]);
                self.send_invite(s, ctx, to);
            }
            None => ctx.note(&N_ROUND_DONE, &[ctx.me as u64]),
        }
    }

    /// A leader accepts `from`'s invitation: it waits for GROUP, keeping its members alive.
    fn accept(&self, s: &mut State, ctx: &mut C, from: NodeId) {
        s.status = Status::Joining;
        s.leader = from;
        s.pending.clear();
        if s.round_armed {
            s.round_armed = false;
            ctx.cancel_timer(Timer::Round);
        }
        ctx.set_timer_after(Timer::JoinTimeout, self.join_wait);
        ctx.send(from, Msg::Accept { members: s.members.clone() });
    }

    /// Back to leading the group it had before accepting an invitation.
    fn resume(&self, s: &mut State, ctx: &mut C) {
        s.status = Status::Leader;
        s.leader = ctx.me;
        ctx.cancel_timer(Timer::JoinTimeout);
        self.arm(s, ctx);
    }

    /// Becomes a member of `leader`'s group.
    fn follow(&self, s: &mut State, ctx: &mut C, leader: NodeId) {
        s.status = Status::Follower;
        s.leader = leader;
        s.members.clear();
        s.heard.clear();
        s.pending.clear();
        ctx.cancel_timer(Timer::JoinTimeout);
        if s.hb_armed {
            s.hb_armed = false;
            ctx.cancel_timer(Timer::Heartbeat);
        }
        if s.round_armed {
            s.round_armed = false;
            ctx.cancel_timer(Timer::Round);
        }
        ctx.watch_leader(Timer::LeaderTimeout, Some(leader));
    }

    /// After the member list changed: rounds stop when nobody is left outside, and the
    /// timers a leader needs are armed.
    fn settle_rounds(&self, s: &mut State, ctx: &mut C) {
        if s.round_armed && !s.has_outsiders(ctx.cfg) {
            s.round_armed = false;
            ctx.cancel_timer(Timer::Round);
        }
        self.arm(s, ctx);
    }

    fn on_invite(&self, s: &mut State, from: NodeId, size: u64, ctx: &mut C) {
        let me = ctx.me;
        match s.status {
            Status::Leader => {
                // An inviter is a leader, so it is not (or no longer) in this group.
                s.remove(from);
                self.expire(s, ctx.now);
                if beats(size, from, s.size(), me) {
                    let text = if size > s.size() { &N_ACCEPT_LARGER } else { &N_ACCEPT_TIE };
                    ctx.note(text, &[me as u64, from as u64, size]);
                    self.accept(s, ctx, from);
                } else if s.invited(from) {
                    ctx.note(&N_COUNTER_PENDING, &[me as u64, from as u64, s.size()]);
                } else {
                    ctx.note(&N_COUNTER, &[me as u64, from as u64, s.size()]);
                    self.send_invite(s, ctx, from);
                    self.arm(s, ctx);
                }
            }
            Status::Joining | Status::Follower if s.leader == from => {
                ctx.note(&N_OWN_LEADER_INVITES, &[me as u64, from as u64]);
                ctx.send(from, Msg::Redirect { leader: from });
            }
            Status::Joining | Status::Follower => {
                ctx.note(&N_REDIRECT_INVITE, &[me as u64, from as u64, s.leader as u64]);
                ctx.send(from, Msg::Redirect { leader: s.leader });
            }
        }
    }

    fn on_accept(&self, s: &mut State, from: NodeId, members: Vec<NodeId>, ctx: &mut C) {
        let me = ctx.me;
        if s.status != Status::Leader {
            ctx.note(&N_ACCEPT_NOT_LEADER, &[me as u64, from as u64, s.leader as u64]);
            ctx.send(from, Msg::Redirect { leader: s.leader });
            return;
        }
        s.forget(from);
        // Only the smaller group is told (the nodes not in this group yet); for the invitee
        // itself GROUP is the confirmation it waits for.
        let mut joining: Vec<NodeId> = members.into_iter().filter(|&m| m != me && !s.has(m)).collect();
        if !joining.contains(&from) && !s.has(from) {
            joining.push(from);
        }
        ctx.note(&N_MERGE, &[me as u64, from as u64, joining.len() as u64]);
        for &m in &joining {
            s.add(m, ctx.now);
            ctx.send(m, Msg::Group { old: from });
        }
        self.settle_rounds(s, ctx);
    }

    fn on_group(&self, s: &mut State, from: NodeId, old: NodeId, ctx: &mut C) {
        let me = ctx.me;
        match s.status {
            Status::Joining if from == s.leader => {
                ctx.note(&N_JOINED, &[me as u64, from as u64]);
                self.follow(s, ctx, from);
            }
            Status::Follower if old == s.leader || from == s.leader => {
                ctx.note(&N_MOVED, &[me as u64, from as u64, old as u64]);
                self.follow(s, ctx, from);
            }
            Status::Leader if old == me => {
                ctx.note(&N_STALE_ACK, &[me as u64, from as u64]);
                ctx.send(from, Msg::Redirect { leader: me });
            }
            _ => {
                ctx.note(&N_GROUP_REFUSED, &[me as u64, from as u64, s.leader as u64]);
                ctx.send(from, Msg::Redirect { leader: s.leader });
            }
        }
    }

    fn on_redirect(&self, s: &mut State, from: NodeId, leader: NodeId, ctx: &mut C) {
        let me = ctx.me;
        s.forget(from);
        self.expire(s, ctx.now);
        match s.status {
            Status::Leader if leader == me => {
                ctx.note(&N_REDIRECT_MINE, &[me as u64, from as u64]);
                s.add(from, ctx.now);
                self.settle_rounds(s, ctx);
            }
            Status::Leader => {
                // If its leader is one of ours, `from` is on its way in (GROUP will reach it);
                // otherwise it is not ours at all.
                if !s.has(leader) {
                    s.remove(from);
                }
                if s.has(leader) || s.invited(leader) {
                    ctx.note(&N_REDIRECT_ALREADY, &[me as u64, from as u64, leader as u64]);
                } else {
                    ctx.note(&N_REDIRECT_INVITE_LEADER, &[me as u64, from as u64, leader as u64]);
                    self.send_invite(s, ctx, leader);
                }
                self.arm(s, ctx);
            }
            Status::Joining if from == s.leader => {
                ctx.note(&N_REDIRECT_ABORT, &[me as u64, from as u64, leader as u64]);
                self.resume(s, ctx);
                if leader != me {
                    s.remove(leader);
                    self.send_invite(s, ctx, leader);
                    self.arm(s, ctx);
                }
            }
            Status::Joining | Status::Follower => {
                ctx.note(&N_REDIRECT_MOOT, &[me as u64, from as u64]);
            }
        }
    }
}

impl Protocol for Invitation {
    type State = State;
    type Msg = Msg;
    type Timer = Timer;
    const KINDS: &'static [Kind] = KINDS;

    fn new(cfg: &Config, params: &Params) -> Result<Self, ScenarioError> {
        Invitation::from_params(cfg, params)
    }

    fn init(&self, ctx: &mut C) -> State {
        let mut s = Invitation::alone(ctx.me, ctx.cfg);
        match ctx.cfg.initial_leader {
            Some(l) if l == ctx.me => {
                for &m in &ctx.cfg.sorted {
                    s.add(m, 0);
                }
                self.arm(&mut s, ctx);
            }
            Some(l) => {
                s.status = Status::Follower;
                s.leader = l;
                s.members.clear();
                s.heard.clear();
                ctx.watch_leader(Timer::LeaderTimeout, Some(l));
            }
            None => self.arm(&mut s, ctx),
        }
        s
    }

    fn start(&self, s: &mut State, ctx: &mut C) {
        match s.status {
            Status::Leader => {
                self.round(s, ctx);
                self.arm(s, ctx);
            }
            Status::Joining => ctx.note(&N_JOINING_IDLE, &[ctx.me as u64, s.leader as u64]),
            Status::Follower => ctx.note(&N_START_FOLLOWER, &[ctx.me as u64, s.leader as u64]),
        }
    }

    fn on_message(&self, s: &mut State, from: NodeId, msg: Msg, ctx: &mut C) {
        match msg {
            Msg::Invite { size } => self.on_invite(s, from, size, ctx),
            Msg::Accept { members } => self.on_accept(s, from, members, ctx),
            Msg::Group { old } => self.on_group(s, from, old, ctx),
            Msg::Redirect { leader } => self.on_redirect(s, from, leader, ctx),
            Msg::Heartbeat => {
                let me = ctx.me;
                match s.status {
                    Status::Follower if s.leader == from => {
                        ctx.note(&N_ALIVE, &[me as u64, from as u64]);
                        ctx.watch_leader(Timer::LeaderTimeout, Some(from));
                        ctx.send(from, Msg::Ack);
                    }
                    // A beat from the leader it is joining: GROUP is on its way.
                    Status::Joining if s.leader == from => ctx.note(&N_JOINING_IDLE, &[me as u64, from as u64]),
                    _ => {
                        ctx.note(&N_NOT_MINE, &[me as u64, from as u64, s.leader as u64]);
                        ctx.send(from, Msg::Redirect { leader: s.leader });
                    }
                }
            }
            Msg::Ack => {
                let me = ctx.me;
                if s.status == Status::Follower {
                    ctx.note(&N_ACK_MOOT, &[me as u64, from as u64]);
                } else if s.has(from) {
                    ctx.note(&N_ACK, &[me as u64, from as u64]);
                    s.heard.insert(from, ctx.now);
                } else {
                    // It answers our heartbeat, so it follows us: a list that dropped it was wrong.
                    ctx.note(&N_REDIRECT_MINE, &[me as u64, from as u64]);
                    s.add(from, ctx.now);
                    self.settle_rounds(s, ctx);
                }
            }
        }
    }

    fn on_timer(&self, s: &mut State, timer: Timer, ctx: &mut C) {
        let me = ctx.me;
        match timer {
            Timer::Round => {
                s.round_armed = false;
                if s.status == Status::Leader {
                    self.round(s, ctx);
                    self.arm(s, ctx);
                }
            }
            Timer::Heartbeat => {
                s.hb_armed = false;
                if s.status == Status::Follower {
                    return;
                }
                let timeout = ctx.cfg.heartbeats.map_or(Time::MAX, |h| h.timeout);
                let now = ctx.now;
                let silent: Vec<NodeId> = s.heard.iter().filter(|&(_, &t)| now.saturating_sub(t) > timeout).map(|(&m, _)| m).collect();
                if !silent.is_empty() {
                    ctx.note(&N_PRUNE, &[me as u64, silent.len() as u64, timeout]);
                    for m in silent {
                        s.remove(m);
                    }
                }
                let others: Vec<NodeId> = s.members.iter().copied().filter(|&m| m != me).collect();
                if others.is_empty() {
                    self.arm(s, ctx);
                    return;
                }
                if s.status == Status::Leader {
                    ctx.note(&N_BEAT, &[me as u64, others.len() as u64]);
                } else {
                    ctx.note(&N_BEAT_JOINING, &[me as u64, s.leader as u64, others.len() as u64]);
                }
                for m in others {
                    ctx.send(m, Msg::Heartbeat);
                }
                self.arm(s, ctx);
            }
            Timer::LeaderTimeout => {
                if s.status == Status::Follower {
                    let timeout = ctx.cfg.heartbeats.map_or(0, |h| h.timeout);
                    ctx.note(&N_SUSPECT, &[me as u64, s.leader as u64, timeout]);
                    self.lead_alone(s, ctx);
                }
            }
            Timer::JoinTimeout => {
                if s.status == Status::Joining {
                    ctx.note(&N_JOIN_TIMEOUT, &[me as u64, s.leader as u64, self.join_wait]);
                    self.resume(s, ctx);
                }
            }
        }
    }

    fn recover(&self, _crashed: &State, ctx: &mut C) -> State {
        let mut s = Invitation::alone(ctx.me, ctx.cfg);
        ctx.note(&N_RECOVER, &[ctx.me as u64]);
        self.arm(&mut s, ctx);
        s
    }

    fn view(&self, s: &State) -> View {
        let role = match s.status {
            Status::Leader => LEADER,
            Status::Joining => "joining",
            Status::Follower => FOLLOWER,
        };
        View { role, leader: Some(s.leader), group: Some(s.leader), ..View::default() }
    }

    fn inspect(&self, s: &State) -> Vec<(&'static str, String)> {
        let list = |v: &[NodeId]| if v.is_empty() { "-".to_string() } else { v.iter().map(|x| format!("N{x}")).collect::<Vec<_>>().join(", ") };
        vec![
            (
                "status",
                match s.status {
                    Status::Leader => "leader",
                    Status::Joining => "joining",
                    Status::Follower => "member",
                }
                .to_string(),
            ),
            ("group leader", fmt_node(Some(s.leader))),
            ("members", list(&s.members)),
            ("invited, no answer yet", list(&s.pending.iter().map(|p| p.0).collect::<Vec<_>>())),
            ("invite delay", format!("{}..{}", self.invite.0, self.invite.1)),
        ]
    }
}

#[cfg(test)]
mod tests;
