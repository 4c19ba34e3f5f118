//! **Paxos-based leader election** (L. Lamport, "The Part-Time Parliament", ACM Transactions on
//! Computer Systems 16(2), 1998; "Paxos Made Simple", ACM SIGACT News 32(4), 2001).
//!
//! Every node is proposer, acceptor and learner. Leaders are the values of a sequence of
//! single-decree Paxos instances: instance 1 chooses the first leader, instance 2 the next one,
//! and so on; a node follows the value of the latest instance it knows. A ballot is a unique
//! proposal number `round·M + id`, with `M` the first power of ten above the largest id (ballot
//! 23 is round 2 of N3), so ballots of different proposers never collide and every proposer can
//! always pick a higher one.
//!
//! * **Phase 1**: a proposer sends PREPARE(i, b) to every other node (it is its own acceptor). An
//!   acceptor that has promised nothing higher promises `b` and answers PROMISE with the value it
//!   accepted last in instance `i`, if any; otherwise it answers NACK. As in Multi-Paxos, one
//!   promise covers every instance: an acceptor keeps a single promised ballot.
//! * **Phase 2**: with promises from a majority (⌊N/2⌋+1, itself included) the proposer sends
//!   ACCEPT(i, b, v), where `v` is the value of the highest ballot among the promises, or its own
//!   id when none was accepted. An acceptor accepts unless it has promised a higher ballot, or
//!   has already accepted a value in a later instance (then instance `i` is long decided); else
//!   it answers NACK. With ACCEPTED from a majority, `v` is chosen; the proposer (the
//!   distinguished learner of Paxos Made Simple) tells everyone with CHOSEN(i, v, b).
//! * **Ballots grow with instances**: by those two acceptor rules, every ballot that gathers a
//!   majority in instance i+1 is above every ballot that gathered one in instance i (the two
//!   majorities share an acceptor, which accepted the older first and promised it). A leader's
//!   ballot is therefore its term: a fencing token that only grows.
//! * **Leadership**: the node whose id is chosen in the latest instance leads and sends HEARTBEAT(i, b)
//!   every `heartbeats.interval`. A node that hears no heartbeat for `heartbeats.timeout`
//!   suspects the leader and starts a **new instance** (no lease: a failed leader is replaced,
//!   never renewed). A leader that sees a PREPARE for a later instance stops leading at once:
//!   someone is replacing it, and it must not lead beside the next leader. A leader cut off in a
//!   minority hears no such PREPARE and goes on believing it leads until the partition heals:
//!   single leadership is claimed for crash-stop runs only, and under partitions the older
//!   ballot is what tells the stale leader apart (a fenced store refuses its writes).
//! * **Duels and backoff**: two proposers can keep pre-empting each other's ballots. A proposer
//!   refused by a NACK, or without a majority after `patience` ticks, waits a random `backoff`
//!   (a timer with a tick range, drawn by the simulator) before trying a higher ballot; a node
//!   that suspects the leader also waits a random backoff first, and a waiting node that promises
//!   someone else's ballot restarts its wait.
//! * **Catching up**: an acceptor asked to prepare an instance it already knows to be decided
//!   answers CHOSEN with the latest decision instead; a node that hears a heartbeat of an older
//!   instance tells its sender the latest decision the same way.
//! * **Durable state**: promises, accepted values, known decisions and the highest round survive
//!   a crash (Paxos requires an acceptor never to forget a promise); who leads is volatile, so a
//!   recovered node waits for a heartbeat and a recovered old leader does not resume leading.
//! * `initial_leader`: instance 1 is decided with that value before the run starts.
//! * With `heartbeats: null` nothing is suspected: elections begin only by `start`, but a ballot
//!   that fails is still retried after a backoff.
//!
//! Every node learning a decision compares it with the one it already holds for that instance
//! and reports `chosen-once` if they differ: the property "a chosen value never changes".
//!
//! Drawn: the number under a node is its term, the ballot that chose it for a leader and the
//! highest ballot it has promised for the others; a proposer's tally counts promises, then
//! acceptances.
//!
//! Parameters (`params`): `backoff` `[lo, hi]` (default `[4·latency_max + 2, 12·latency_max + 2]`:
//! at least the two round trips a rival needs to finish its ballot, and wide enough that two
//! waits rarely end within one latency of each other), `patience` (default `2·latency_max + 1`,
//! one round trip and the handling step).

use crate::algorithm::Algorithm;
use crate::error::ScenarioError;
use crate::meta::{single_leader, Faults, Formula, Kind, Look, Monitor, Preset, Property, Role, Text, Topology, Visual, FOLLOWER_ROLE, LEADER_ROLE};
use crate::protocol::{fmt_node, ParamReader, Config, Ctx, Message, Params, Protocol, TimerKey, View, FOLLOWER, LEADER};
use crate::run;
use crate::{NodeId, Time};
use std::collections::BTreeMap;

#[derive(Clone, Debug)]
pub struct Paxos {
    pub backoff: (Time, Time),
    pub patience: Time,
    /// Ballot `b` is round `b / scale` of node `b % scale`.
    pub scale: u64,
    pub quorum: u32,
}

pub const CHOSEN_ONCE: Property = Property {
    id: "chosen-once",
    title: Text::new("A chosen leader stays chosen", "选定的领导者不会改变"),
    explain: Text::new(
        "no instance ever chooses two different leaders: every node that learns instance i learns the same value",
        "任何实例都不会选定两个不同的领导者：每个得知实例 i 结果的节点，得知的都是同一个值",
    ),
    holds: Faults::Any,
    monitor: Monitor::Reported,
};

pub const ALGORITHM: Algorithm = Algorithm {
    id: "paxos",
    title: Text::new("Paxos-based election", "基于 Paxos 的选举"),
    citation: "L. Lamport, The Part-Time Parliament, ACM TOCS 16(2), 1998; L. Lamport, Paxos Made Simple, ACM SIGACT News 32(4), 2001",
    summary: Text::new(
        "Each leader is the value chosen by one Paxos instance: a proposer needs promises and then acceptances from a majority of acceptors, so a minority can never choose, and a chosen leader never changes.",
        "每一任领导者都是一个 Paxos 实例选定的值：提议者先要获得多数派接受者的承诺，再要获得多数派的接受，因此少数派永远无法做出选择，已选定的领导者也不会改变。",
    ),
    card: Text::new(
        "Instance i of Paxos chooses the i-th leader; the value proposed is a node id.\n\n\
         • Phase 1: a proposer picks a ballot higher than any it has seen and sends PREPARE (1a). An acceptor promises (PROMISE, 1b) to ignore lower ballots, and reports any value it already accepted.\n\
         • Phase 2: with a majority of promises the proposer sends ACCEPT (2a) — with the value of the highest ballot reported, else its own id. Acceptances (ACCEPTED, 2b) from a majority choose the value; CHOSEN tells everyone.\n\
         • An acceptor that promised a higher ballot answers NACK: the proposer backs off for a random time and tries a higher ballot.\n\
         • The chosen node leads and sends heartbeats; when they stop, a new instance elects the next leader.\n\n\
         What to watch: two proposers duelling until random backoff lets one finish; under a partition the minority prepares again and again without a majority — no split brain. There is no lease: a leader cut off in a minority goes on believing it leads, but a newer, larger ballot replaces it. The number under a node is the ballot that chose it (a leader) or the highest it has promised.",
        "Paxos 的第 i 个实例选出第 i 任领导者；提议的值是一个节点 id。\n\n\
         • 第一阶段：提议者选一个比见过的都大的提议编号（ballot），发送 PREPARE（1a）。接受者承诺（PROMISE，1b）不再理会更小的编号，并报告自己已接受过的值。\n\
         • 第二阶段：获得多数派承诺后，提议者发送 ACCEPT（2a）——值取报告中编号最大的那个，若没有则取自己的 id。多数派的接受（ACCEPTED，2b）使该值被选定；CHOSEN 通知所有节点。\n\
         • 已承诺更大编号的接受者回复 NACK：提议者随机退避一段时间，再用更大的编号重试。\n\
         • 被选中的节点成为领导者并发送心跳；心跳停止后，由新的实例选出下一任领导者。\n\n\
         观察要点：两个提议者互相抢占（决斗），直到随机退避让其中一个完成；网络分区时，少数派一次次 PREPARE 却凑不齐多数派——不会脑裂。这里没有租约：被隔离在少数派中的领导者仍以为自己在位，但会被编号更大的新领导者取代。节点下方的数字是选出它的提议编号（领导者），或它承诺过的最大提议编号。",
    ),
    topology: Topology::Complete,
    kinds: KINDS,
    roles: &[
        LEADER_ROLE,
        FOLLOWER_ROLE,
        Role::new("preparing", Look::Candidate, Text::new("phase 1: gathering promises", "第一阶段：收集承诺")),
        Role::new("accepting", Look::Candidate, Text::new("phase 2: gathering acceptances", "第二阶段：收集接受")),
        Role::new("backing-off", Look::Waiting, Text::new("waiting a random time before proposing", "随机退避，稍后再提议")),
    ],
    formulas: &[Formula {
        name: "4(N−1)",
        applies: Text::new(
            "one uncontested ballot: N−1 each of PREPARE, PROMISE, ACCEPT and ACCEPTED (the proposer is its own acceptor); N−1 CHOSEN and the heartbeats come on top",
            "一次无竞争的提议：PREPARE、PROMISE、ACCEPT、ACCEPTED 各 N−1 条（提议者自己也是接受者）；另有 N−1 条 CHOSEN 和心跳不计在内",
        ),
        counts: &["PREPARE", "PROMISE", "ACCEPT", "ACCEPTED"],
        value: |n| 4 * n.saturating_sub(1),
    }],
    properties: &[CHOSEN_ONCE, single_leader(Faults::CrashStop)],
    presets: PRESETS,
    build: run::build::<Paxos>,
};

const PRESETS: &[Preset] = &[
    Preset {
        id: "paxos-cold",
        title: Text::new("Paxos: an election from cold", "Paxos：从零开始的选举"),
        hint: Text::new(
            "Nobody leads yet. N3's random backoff ends first and it proposes itself, uncontested: 4 × 4 = 16 messages, then CHOSEN. The first proposer wins, not the highest id.",
            "还没有领导者。N3 的随机退避最先结束，它提议自己且无人竞争：4 × 4 = 16 条消息，然后是 CHOSEN。胜出的是最先提议者，而不是 id 最大者。",
        ),
        json: r#"{"algorithm":"paxos","nodes":[1,2,3,4,5],"seed":8,
                  "heartbeats":{"interval":3,"timeout":12},"stop":{"max_time":60}}"#,
        leaders: &[3],
        golden: "e8e1006c625269c8",
    },
    Preset {
        id: "paxos-duel",
        title: Text::new("Paxos: duelling proposers", "Paxos：提议者决斗"),
        hint: Text::new(
            "N3 and N4 propose a tick apart, with a short backoff (1–4 ticks). A majority accepts N4's first ballot — N4 is chosen — but nobody knows yet: three more ballots are fought (NACK), and each must carry N4.",
            "N3 和 N4 相隔一个时间单位先后提议，退避时间很短（1–4）。多数派接受了 N4 的第一个提议——N4 已被选定——但还没人知道：又争了三个提议编号（NACK），而每一个都必须沿用 N4。",
        ),
        json: r#"{"algorithm":"paxos","nodes":[1,2,3,4,5],"seed":20,"network":{"latency":[1,2]},
                  "params":{"backoff":[1,4]},"schedule":[{"at":0,"start":3},{"at":1,"start":4}]}"#,
        leaders: &[4],
        golden: "1b457f0ea9bb4bc8",
    },
    Preset {
        id: "split-brain-paxos",
        title: Text::new("The same partition under Paxos", "同样的分区，换成 Paxos"),
        hint: Text::new(
            "N5 leads instance 1. Cut {1,2} from {3,4,5}: the minority prepares instance 2 again and again but never gets 3 of 5 promises.",
            "N5 是实例 1 选出的领导者。把 {1,2} 与 {3,4,5} 切开：少数派一次次为实例 2 发送 PREPARE，却永远拿不到 5 个承诺中的 3 个。",
        ),
        json: r#"{"algorithm":"paxos","nodes":[1,2,3,4,5],"seed":425,"initial_leader":5,
                  "heartbeats":{"interval":2,"timeout":10},"stop":{"max_time":300}}"#,
        leaders: &[5],
        golden: "18e20d4d1fe1803c",
    },
];

// Narration: one sentence per rule, in both languages. `{0}` is the acting node.
const N_COLD: Text = Text::new(
    "N{0} knows no leader: it waits a random backoff before proposing, so that not everyone proposes at once.",
    "N{0} 不知道领导者是谁：它先随机退避一段时间再提议，以免所有节点同时提议。",
);
const N_START: Text = Text::new(
    "N{0} is asked to start an election: it proposes itself for instance {1}.",
    "N{0} 被要求发起选举：它在实例 {1} 中提议自己。",
);
const N_START_LEADER: Text = Text::new("N{0} already leads instance {1}, so it does not propose.", "N{0} 已是实例 {1} 选出的领导者，因此不再提议。");
const N_START_BUSY: Text = Text::new("N{0} is already proposing ballot {1}.", "N{0} 已在用提议编号 {1} 提议。");
const N_PREPARE: Text = Text::new(
    "N{0} opens ballot {1} in instance {2}, above any it has seen: it promises it to itself and sends PREPARE to every other node.",
    "N{0} 在实例 {2} 中发起提议编号 {1}（比见过的都大）：先向自己承诺，再向其他所有节点发送 PREPARE。",
);
const N_PROMISE: Text = Text::new(
    "N{0} promises ballot {1} to N{2}: nothing higher was promised, and lower ballots are refused from now on.",
    "N{0} 向 N{2} 承诺提议编号 {1}：此前没有更大的承诺，今后拒绝更小的编号。",
);
const N_PROMISE_ACCEPTED: Text = Text::new(
    "N{0} promises ballot {1} and reports that it already accepted N{2}: a proposer must carry that value on.",
    "N{0} 承诺提议编号 {1}，并报告它已经接受过 N{2}：提议者必须沿用这个值。",
);
const N_DEFER: Text = Text::new(
    "N{0} was about to propose itself, but someone else is already proposing: it restarts its random wait.",
    "N{0} 本来要提议自己，但已经有别的节点在提议：它重新开始随机等待。",
);
const N_STEP_DOWN: Text = Text::new(
    "N{0} led instance {1}; a PREPARE for instance {2} means it is being replaced, so it stops leading now.",
    "N{0} 是实例 {1} 的领导者；实例 {2} 的 PREPARE 说明它正被替换，于是立即停止担任领导者。",
);
const N_REFUSE: Text = Text::new(
    "N{0} refuses ballot {1} with NACK: it has already promised the higher ballot {2}.",
    "N{0} 用 NACK 拒绝提议编号 {1}：它已经承诺了更大的编号 {2}。",
);
const N_REFUSE_OLD: Text = Text::new(
    "N{0} refuses ballot {1} with NACK: it already accepted a value in the later instance {2}.",
    "N{0} 用 NACK 拒绝提议编号 {1}：它已在更新的实例 {2} 中接受过值。",
);
const N_TELL: Text = Text::new(
    "N{0} knows instance {1} is decided (the latest is instance {2}): instead of promising, it tells the sender the outcome.",
    "N{0} 知道实例 {1} 已有结果（最新为实例 {2}）：它不作承诺，而是把结果告诉发送者。",
);
const N_COUNT_PROMISE: Text = Text::new("N{0} now holds {1} of the {2} promises a majority needs.", "N{0} 现有 {1} 个承诺，多数派需要 {2} 个。");
const N_CARRY: Text = Text::new(
    "N{0} has a majority of promises, and the highest ballot among them had accepted N{1}: Paxos obliges it to propose N{1}, not itself, in ballot {2}.",
    "N{0} 获得了多数派承诺，其中编号最大的已接受值是 N{1}：Paxos 规定它必须在提议编号 {2} 中提议 N{1}，而不是自己。",
);
const N_CARRY_SELF: Text = Text::new(
    "N{0} has a majority of promises, and the highest ballot among them had accepted N{0} itself: it proposes itself again in ballot {1}.",
    "N{0} 获得了多数派承诺，其中编号最大的已接受值正是它自己：它在提议编号 {1} 中再次提议自己。",
);
const N_PHASE2: Text = Text::new(
    "N{0} has a majority of promises and none reported an accepted value: it sends ACCEPT for itself with ballot {1}.",
    "N{0} 获得了多数派承诺，且没有人报告已接受的值：它以提议编号 {1} 为自己发送 ACCEPT。",
);
const N_ACCEPT: Text = Text::new(
    "N{0} accepts N{1} in ballot {2}: it has promised no higher ballot.",
    "N{0} 在提议编号 {2} 中接受 N{1}：它没有承诺过更大的编号。",
);
const N_COUNT_ACCEPT: Text = Text::new("N{0} now holds {1} of the {2} acceptances a majority needs.", "N{0} 现有 {1} 个接受，多数派需要 {2} 个。");
const N_CHOSEN: Text = Text::new(
    "A majority accepted ballot {1}: N{2} is chosen, and N{0} announces it with CHOSEN. Any later majority overlaps this one, so the choice can never change.",
    "多数派接受了提议编号 {1}：N{2} 被选定，N{0} 用 CHOSEN 宣布结果。此后任何多数派都与这个多数派有交集，所以选择永远不会改变。",
);
const N_LATE: Text = Text::new(
    "N{0} no longer needs this answer for ballot {1}: it already has its majority, or gave the ballot up.",
    "N{0} 已不需要提议编号 {1} 的这条回复：它已凑齐多数派，或已放弃该提议。",
);
const N_DUEL: Text = Text::new(
    "N{0}'s ballot {1} lost a duel to ballot {2}: it gives it up and waits a random backoff before trying higher.",
    "N{0} 的提议编号 {1} 在决斗中输给了 {2}：它放弃该提议，随机退避后再用更大的编号重试。",
);
const N_OUTRUN: Text = Text::new(
    "N{0}'s ballot {1} is refused: the acceptors have moved on to a later instance. It backs off and will hear the outcome.",
    "N{0} 的提议编号 {1} 被拒：接受者已进入更新的实例。它退避，随后会得知结果。",
);
const N_PATIENCE: Text = Text::new(
    "No majority answered N{0}'s ballot {2} within {1} ticks (too few nodes within reach?): it backs off.",
    "N{0} 的提议编号 {2} 在 {1} 个时间单位内没有得到多数派回应（能联系到的节点太少？）：它退避。",
);
const N_LEARN: Text = Text::new("N{0} learns that instance {1} chose N{2}: N{2} leads.", "N{0} 得知实例 {1} 选定了 N{2}：N{2} 是领导者。");
const N_LEARN_SELF: Text = Text::new("N{0} learns that instance {1} chose itself: it leads.", "N{0} 得知实例 {1} 选定了自己：它成为领导者。");
const N_KNOWN: Text = Text::new("N{0} already knows that instance {1} chose N{2}.", "N{0} 已经知道实例 {1} 选定了 N{2}。");
const N_OLD_NEWS: Text = Text::new("N{0} notes that instance {1} chose N{2}; it already knows a later instance.", "N{0} 记下实例 {1} 选定了 N{2}；它已知道更新的实例。");
const N_CONFLICT: Text = Text::new(
    "N{0} hears that instance {1} chose N{2}, unlike what it had learned: a chosen value changed, which must never happen.",
    "N{0} 听说实例 {1} 选定了 N{2}，与它得知的不同：已选定的值变了，这绝不应发生。",
);
const N_BEAT: Text = Text::new("N{0} leads instance {1}: it sends HEARTBEAT to everyone.", "N{0} 是实例 {1} 的领导者：它向所有节点发送 HEARTBEAT（心跳）。");
const N_ALIVE: Text = Text::new("N{0} hears leader N{1}'s heartbeat for instance {2}: the leader is alive.", "N{0} 收到领导者 N{1} 在实例 {2} 的心跳：领导者仍然存活。");
const N_STALE_LEADER: Text = Text::new(
    "N{0} hears a heartbeat of instance {1} from N{2}, but a later instance has chosen another leader: it tells N{2} with CHOSEN.",
    "N{0} 收到 N{2} 在实例 {1} 的心跳，但更新的实例已选出另一位领导者：它用 CHOSEN 告诉 N{2}。",
);
const N_SUSPECT: Text = Text::new(
    "N{0} heard no heartbeat from leader N{1} for {2} ticks: it suspects it and, after a random backoff, will propose in a new instance.",
    "N{0} 已有 {2} 个时间单位没有收到领导者 N{1} 的心跳：它怀疑其失效，随机退避后将在新实例中提议。",
);
const N_NOBODY: Text = Text::new(
    "N{0} has heard from no leader for {1} ticks: after a random backoff it will propose itself.",
    "N{0} 已有 {1} 个时间单位没有任何领导者的消息：随机退避后它将提议自己。",
);
const N_RETRY: Text = Text::new("N{0}'s random backoff is over and nobody leads yet.", "N{0} 的随机退避结束，仍然没有领导者。");
const N_RECOVER: Text = Text::new(
    "N{0} recovers its promises, accepted values and {1:known decision:known decisions} from disk, so it cannot break a promise; it waits for a heartbeat.",
    "N{0} 恢复，承诺、已接受的值和已知的 {1} 个结果都从磁盘读回，所以不会违背承诺；它等待心跳。",
);

impl Paxos {
    fn from_params(cfg: &Config, params: &Params) -> Result<Self, ScenarioError> {
        let p = ParamReader::new(params, &["backoff", "patience"])?;
        let lat = cfg.latency.1;
        let (lo, hi) = p.pair("backoff")?.map_or((4 * lat + 2, 12 * lat + 2), |[a, b]| (a, b));
        if lo == 0 || lo > hi {
            return Err(ScenarioError::new("params.backoff", format!("expected [lo, hi] with 1 <= lo <= hi, found [{lo}, {hi}]")));
        }
        let patience = p.uint("patience")?.unwrap_or(2 * lat + 1);
        if patience == 0 {
            return Err(ScenarioError::new("params.patience", "must be at least 1 tick"));
        }
        let top = cfg.sorted.last().copied().unwrap_or(0) as u64;
        let mut scale = 10;
        while scale <= top {
            scale *= 10;
        }
        Ok(Paxos { backoff: (lo, hi), patience, scale, quorum: cfg.quorum() })
    }

    fn ballot(&self, round: u64, me: NodeId) -> u64 {
        round * self.scale + me as u64
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Phase {
    Prepare,
    Accept,
}

/// A proposer's ballot under way.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Proposal {
    pub inst: u64,
    pub ballot: u64,
    pub phase: Phase,
    /// The highest-ballot accepted value reported by the promises so far.
    pub carried: Option<(u64, NodeId)>,
    pub value: NodeId,
    /// Promises (phase 1) or acceptances (phase 2), itself included.
    pub yes: Vec<NodeId>,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct State {
    pub me: NodeId,
    // Durable.
    /// The highest ballot promised, for every instance.
    pub promised: u64,
    /// Per instance, the (ballot, value) accepted last.
    pub accepted: BTreeMap<u64, (u64, NodeId)>,
    /// Decisions known: instance → chosen leader.
    pub learned: BTreeMap<u64, NodeId>,
    /// The ballot that decided the latest known instance (0 for an `initial_leader`).
    pub decided_by: u64,
    /// The highest round seen or used.
    pub round: u64,
    // Volatile.
    pub leader: Option<NodeId>,
    pub proposal: Option<Proposal>,
    /// A random backoff is pending, after which this node proposes.
    pub waiting: bool,
}

impl State {
    /// The latest decided instance and its leader ((0, 0) when none is known).
    pub fn latest(&self) -> (u64, NodeId) {
        self.learned.last_key_value().map_or((0, 0), |(&i, &v)| (i, v))
    }
    fn leading(&self) -> bool {
        self.leader == Some(self.me)
    }
    /// Whether this acceptor must refuse ACCEPT(inst, ballot): a higher ballot promised, or a
    /// value accepted in a later instance.
    fn refuses(&self, inst: u64, ballot: u64) -> bool {
        ballot < self.promised || self.accepted.last_key_value().is_some_and(|(&i, _)| i > inst)
    }
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Msg {
    Prepare { inst: u64, ballot: u64 },
    Promise { inst: u64, ballot: u64, accepted: Option<(u64, NodeId)> },
    Accept { inst: u64, ballot: u64, value: NodeId },
    Accepted { inst: u64, ballot: u64 },
    Nack { inst: u64, ballot: u64, promised: u64 },
    Chosen { inst: u64, value: NodeId, ballot: u64 },
    Heartbeat { inst: u64, ballot: u64 },
}

kinds! {
    Msg;
    Msg::Prepare { .. } => Kind::new("PREPARE", "1a", Visual::Request, Text::new("phase 1: a proposer asks for promises for its ballot", "第一阶段：提议者为自己的提议编号请求承诺")),
    Msg::Promise { .. } => Kind::new("PROMISE", "1b", Visual::Answer, Text::new("a promise to refuse lower ballots, with any value already accepted", "承诺拒绝更小的编号，并附上已接受过的值")),
    Msg::Accept { .. } => Kind::new("ACCEPT", "2a", Visual::Data, Text::new("phase 2: the proposer asks acceptors to accept its value", "第二阶段：提议者请求接受者接受它的值")),
    Msg::Accepted { .. } => Kind::new("ACCEPTED", "2b", Visual::Answer, Text::new("the value accepted under this ballot", "在该提议编号下接受了这个值")),
    Msg::Nack { .. } => Kind::new("NACK", "✗", Visual::Refusal, Text::new("refused: a higher ballot was promised, or the instance is long decided", "拒绝：已承诺更大的编号，或该实例早已有结果")),
    Msg::Chosen { .. } => Kind::new("CHOSEN", "C", Visual::Announcement, Text::new("a majority accepted: the new leader is decided", "多数派已接受：新领导者已经选定")),
    Msg::Heartbeat { .. } => Kind::new("HEARTBEAT", "hb", Visual::Heartbeat, Text::new("the leader's periodic sign of life", "领导者定期发出的存活信号（心跳）")),
}

impl Message for Msg {
    fn label(&self) -> String {
        match *self {
            Msg::Prepare { inst, ballot } => format!("PREPARE(i{inst}, b{ballot})"),
            Msg::Promise { inst, ballot, accepted: None } => format!("PROMISE(i{inst}, b{ballot})"),
            Msg::Promise { inst, ballot, accepted: Some((b, v)) } => format!("PROMISE(i{inst}, b{ballot}, had b{b}:N{v})"),
            Msg::Accept { inst, ballot, value } => format!("ACCEPT(i{inst}, b{ballot}, N{value})"),
            Msg::Accepted { inst, ballot } => format!("ACCEPTED(i{inst}, b{ballot})"),
            Msg::Nack { inst, ballot, promised } => format!("NACK(i{inst}, b{ballot}; b{promised})"),
            Msg::Chosen { inst, value, ballot } => format!("CHOSEN(i{inst}, N{value}, b{ballot})"),
            Msg::Heartbeat { inst, ballot } => format!("HEARTBEAT(i{inst}, b{ballot})"),
        }
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Timer {
    /// The failure detector: no heartbeat from the leader for `heartbeats.timeout`.
    LeaderTimeout,
    /// The random wait before proposing.
    Backoff,
    /// The current phase's deadline (`patience`).
    Deadline,
    /// The leader's periodic HEARTBEAT.
    Heartbeat,
}

impl TimerKey for Timer {
    fn name(&self) -> &'static str {
        match self {
            Timer::LeaderTimeout => "LEADER_TIMEOUT",
            Timer::Backoff => "BACKOFF",
            Timer::Deadline => "DEADLINE",
            Timer::Heartbeat => "HEARTBEAT",
        }
    }
}

type C<'a> = Ctx<'a, Msg, Timer>;

impl Paxos {
    fn back_off(&self, s: &mut State, ctx: &mut C) {
        s.waiting = true;
        ctx.set_timer(Timer::Backoff, self.backoff.0, self.backoff.1);
    }

    /// Arms the failure detector while no leader is known (a leader known is watched by
    /// [`Ctx::watch_leader`]).
    fn arm_detector(&self, ctx: &mut C) {
        if let Some(hb) = ctx.cfg.heartbeats {
            ctx.set_timer_after(Timer::LeaderTimeout, hb.timeout);
        }
    }

    fn notice_ballot(&self, s: &mut State, ballot: u64) {
        s.round = s.round.max(ballot / self.scale);
    }

    fn stop_leading(&self, s: &mut State, ctx: &mut C) {
        if s.leading() {
            ctx.cancel_timer(Timer::Heartbeat);
        }
    }

    /// Phase 1 of a fresh ballot for the next undecided instance.
    fn propose(&self, s: &mut State, ctx: &mut C) {
        let inst = s.latest().0 + 1;
        s.round += 1;
        let ballot = self.ballot(s.round, ctx.me);
        s.waiting = false;
        ctx.cancel_timer(Timer::Backoff);
        s.promised = ballot;
        let carried = s.accepted.get(&inst).copied();
        ctx.note(&N_PREPARE, &[ctx.me as u64, ballot, inst]);
        s.proposal = Some(Proposal { inst, ballot, phase: Phase::Prepare, carried, value: ctx.me, yes: vec![ctx.me] });
        ctx.set_timer_after(Timer::Deadline, self.patience);
        ctx.broadcast(Msg::Prepare { inst, ballot });
        self.progress(s, ctx);
    }

    /// Moves the proposal on when its phase has a majority.
    fn progress(&self, s: &mut State, ctx: &mut C) {
        let quorum = self.quorum as usize;
        let me = ctx.me;
        let Some(p) = s.proposal.as_mut() else { return };
        if p.yes.len() < quorum {
            return;
        }
        match p.phase {
            Phase::Prepare => {
                p.phase = Phase::Accept;
                p.value = p.carried.map_or(me, |(_, v)| v);
                p.yes = vec![me];
                let (inst, ballot, value, carried) = (p.inst, p.ballot, p.value, p.carried);
                // Its own acceptor accepts first, unless it has promised a higher ballot since.
                if s.refuses(inst, ballot) {
                    let promised = s.promised;
                    return self.give_up(s, ballot, promised, ctx);
                }
                s.accepted.insert(inst, (ballot, value));
                match carried {
                    Some((_, v)) if v == me => ctx.note(&N_CARRY_SELF, &[me as u64, ballot]),
                    Some((_, v)) => ctx.note(&N_CARRY, &[me as u64, v as u64, ballot]),
                    None => ctx.note(&N_PHASE2, &[me as u64, ballot]),
                }
                ctx.set_timer_after(Timer::Deadline, self.patience);
                ctx.broadcast(Msg::Accept { inst, ballot, value });
                self.progress(s, ctx);
            }
            Phase::Accept => {
                let (inst, ballot, value) = (p.inst, p.ballot, p.value);
                s.proposal = None;
                ctx.cancel_timer(Timer::Deadline);
                ctx.note(&N_CHOSEN, &[me as u64, ballot, value as u64]);
                ctx.broadcast(Msg::Chosen { inst, value, ballot });
                self.learn(s, inst, value, ballot, ctx);
            }
        }
    }

    /// Abandons the ballot refused (a NACK, or its own acceptor) and backs off.
    fn give_up(&self, s: &mut State, ballot: u64, promised: u64, ctx: &mut C) {
        let rule = if promised > ballot { &N_DUEL } else { &N_OUTRUN };
        ctx.note(rule, &[ctx.me as u64, ballot, promised]);
        s.proposal = None;
        ctx.cancel_timer(Timer::Deadline);
        self.back_off(s, ctx);
    }

    /// Checks a decision heard against the one this node holds for that instance, reporting a
    /// conflict (a chosen value that changed). True when they differ.
    fn conflicts(&self, s: &State, inst: u64, value: NodeId, ctx: &mut C) -> bool {
        match s.learned.get(&inst) {
            Some(&v) if v != value => {
                ctx.note(&N_CONFLICT, &[ctx.me as u64, inst, value as u64]);
                ctx.report(CHOSEN_ONCE.id, vec![ctx.me, v, value]);
                true
            }
            _ => false,
        }
    }

    /// Records that `inst` chose `value`, checking it against what this node already knew.
    fn learn(&self, s: &mut State, inst: u64, value: NodeId, ballot: u64, ctx: &mut C) {
        let me = ctx.me as u64;
        let args = [me, inst, value as u64];
        if self.conflicts(s, inst, value, ctx) {
            return;
        }
        if s.learned.contains_key(&inst) {
            return ctx.note(&N_KNOWN, &args);
        }
        let newest = inst > s.latest().0;
        s.learned.insert(inst, value);
        self.notice_ballot(s, ballot);
        if !newest {
            return ctx.note(&N_OLD_NEWS, &args);
        }
        s.decided_by = ballot;
        if s.proposal.as_ref().is_some_and(|p| p.inst <= inst) {
            s.proposal = None;
            ctx.cancel_timer(Timer::Deadline);
        }
        s.waiting = false;
        ctx.cancel_timer(Timer::Backoff);
        if value == ctx.me {
            ctx.note(&N_LEARN_SELF, &args);
            s.leader = Some(ctx.me);
            ctx.cancel_timer(Timer::LeaderTimeout);
            ctx.arm_heartbeat(Timer::Heartbeat);
        } else {
            ctx.note(&N_LEARN, &args);
            self.stop_leading(s, ctx);
            s.leader = Some(value);
            ctx.watch_leader(Timer::LeaderTimeout, s.leader);
        }
    }

    /// Answers a request for an instance already decided with the latest decision.
    fn tell_latest(&self, s: &State, to: NodeId, inst: u64, ctx: &mut C) {
        let (latest, value) = s.latest();
        ctx.note(&N_TELL, &[ctx.me as u64, inst, latest]);
        ctx.send(to, Msg::Chosen { inst: latest, value, ballot: s.decided_by });
    }
}

/// What a node's number counts, under it on the canvas.
static BALLOT: Text = Text::new("ballot", "提案号");
/// What a proposer's tally counts, in each phase.
static PROMISES: Text = Text::new("promises", "承诺");
static ACCEPTANCES: Text = Text::new("acceptances", "接受");

impl Protocol for Paxos {
    type State = State;
    type Msg = Msg;
    type Timer = Timer;
    const KINDS: &'static [Kind] = KINDS;

    fn new(cfg: &Config, params: &Params) -> Result<Self, ScenarioError> {
        Paxos::from_params(cfg, params)
    }

    fn init(&self, ctx: &mut C) -> State {
        let mut s = State {
            me: ctx.me,
            promised: 0,
            accepted: BTreeMap::new(),
            learned: BTreeMap::new(),
            decided_by: 0,
            round: 0,
            leader: None,
            proposal: None,
            waiting: false,
        };
        match ctx.cfg.initial_leader {
            Some(l) => {
                s.learned.insert(1, l);
                s.leader = Some(l);
                match ctx.cfg.heartbeats {
                    Some(hb) if l == ctx.me => ctx.set_timer_after(Timer::Heartbeat, hb.interval),
                    _ => ctx.watch_leader(Timer::LeaderTimeout, s.leader),
                }
            }
            None if ctx.cfg.heartbeats.is_some() => {
                ctx.note(&N_COLD, &[ctx.me as u64]);
                self.back_off(&mut s, ctx);
            }
            None => {}
        }
        s
    }

    fn start(&self, s: &mut State, ctx: &mut C) {
        if s.leading() {
            ctx.note(&N_START_LEADER, &[ctx.me as u64, s.latest().0]);
        } else if let Some(p) = &s.proposal {
            ctx.note(&N_START_BUSY, &[ctx.me as u64, p.ballot]);
        } else {
            ctx.note(&N_START, &[ctx.me as u64, s.latest().0 + 1]);
            self.propose(s, ctx);
        }
    }

    fn on_message(&self, s: &mut State, from: NodeId, msg: Msg, ctx: &mut C) {
        let (me, peer) = (ctx.me as u64, from as u64);
        let mine = |s: &State, inst: u64, ballot: u64, phase: Phase| s.proposal.as_ref().is_some_and(|p| p.inst == inst && p.ballot == ballot && p.phase == phase);
        match msg {
            Msg::Prepare { inst, ballot } => {
                self.notice_ballot(s, ballot);
                let (latest, _) = s.latest();
                if inst <= latest {
                    return self.tell_latest(s, from, inst, ctx);
                }
                if ballot < s.promised {
                    let promised = s.promised;
                    ctx.note(&N_REFUSE, &[me, ballot, promised]);
                    return ctx.send(from, Msg::Nack { inst, ballot, promised });
                }
                s.promised = ballot;
                let accepted = s.accepted.get(&inst).copied();
                match accepted {
                    Some((_, v)) => ctx.note(&N_PROMISE_ACCEPTED, &[me, ballot, v as u64]),
                    None => ctx.note(&N_PROMISE, &[me, ballot, peer]),
                }
                ctx.send(from, Msg::Promise { inst, ballot, accepted });
                if s.leading() {
                    ctx.note(&N_STEP_DOWN, &[me, latest, inst]);
                    self.stop_leading(s, ctx);
                    s.leader = None;
                    self.arm_detector(ctx);
                } else if s.waiting {
                    ctx.note(&N_DEFER, &[me]);
                    self.back_off(s, ctx);
                }
            }
            Msg::Accept { inst, ballot, value } => {
                self.notice_ballot(s, ballot);
                if s.refuses(inst, ballot) {
                    let promised = s.promised;
                    match s.accepted.last_key_value() {
                        Some((&later, _)) if ballot >= promised => ctx.note(&N_REFUSE_OLD, &[me, ballot, later]),
                        _ => ctx.note(&N_REFUSE, &[me, ballot, promised]),
                    }
                    return ctx.send(from, Msg::Nack { inst, ballot, promised });
                }
                s.promised = ballot;
                s.accepted.insert(inst, (ballot, value));
                ctx.note(&N_ACCEPT, &[me, value as u64, ballot]);
                ctx.send(from, Msg::Accepted { inst, ballot });
            }
            Msg::Promise { inst, ballot, accepted } => {
                if !mine(s, inst, ballot, Phase::Prepare) {
                    return ctx.note(&N_LATE, &[me, ballot]);
                }
                let p = s.proposal.as_mut().expect("a proposal");
                if !p.yes.contains(&from) {
                    p.yes.push(from);
                    if accepted > p.carried {
                        p.carried = accepted;
                    }
                }
                let quorum = self.quorum as u64;
                ctx.note(&N_COUNT_PROMISE, &[me, p.yes.len() as u64, quorum]);
                self.progress(s, ctx);
            }
            Msg::Accepted { inst, ballot } => {
                if !mine(s, inst, ballot, Phase::Accept) {
                    return ctx.note(&N_LATE, &[me, ballot]);
                }
                let p = s.proposal.as_mut().expect("a proposal");
                if !p.yes.contains(&from) {
                    p.yes.push(from);
                }
                let quorum = self.quorum as u64;
                ctx.note(&N_COUNT_ACCEPT, &[me, p.yes.len() as u64, quorum]);
                self.progress(s, ctx);
            }
            Msg::Nack { inst, ballot, promised } => {
                self.notice_ballot(s, promised);
                if !s.proposal.as_ref().is_some_and(|p| p.inst == inst && p.ballot == ballot) {
                    return ctx.note(&N_LATE, &[me, ballot]);
                }
                self.give_up(s, ballot, promised, ctx);
            }
            Msg::Chosen { inst, value, ballot } => self.learn(s, inst, value, ballot, ctx),
            Msg::Heartbeat { inst, ballot } => {
                let (latest, _) = s.latest();
                if inst < latest {
                    // The sender's decision is still checked against this node's record.
                    if !self.conflicts(s, inst, from, ctx) {
                        ctx.note(&N_STALE_LEADER, &[me, inst, peer]);
                    }
                    let (latest, value) = s.latest();
                    return ctx.send(from, Msg::Chosen { inst: latest, value, ballot: s.decided_by });
                }
                if inst > latest || s.learned.get(&inst) != Some(&from) {
                    return self.learn(s, inst, from, ballot, ctx);
                }
                ctx.note(&N_ALIVE, &[me, peer, inst]);
                s.leader = Some(from);
                if s.waiting {
                    s.waiting = false;
                    ctx.cancel_timer(Timer::Backoff);
                }
                ctx.watch_leader(Timer::LeaderTimeout, s.leader);
            }
        }
    }

    fn on_timer(&self, s: &mut State, timer: Timer, ctx: &mut C) {
        let me = ctx.me as u64;
        match timer {
            Timer::LeaderTimeout => {
                let timeout = ctx.cfg.heartbeats.map_or(0, |h| h.timeout);
                match s.leader.filter(|&l| l != ctx.me) {
                    Some(l) => ctx.note(&N_SUSPECT, &[me, l as u64, timeout]),
                    None => ctx.note(&N_NOBODY, &[me, timeout]),
                }
                s.leader = None;
                if s.proposal.is_none() {
                    self.back_off(s, ctx);
                }
            }
            Timer::Backoff => {
                ctx.note(&N_RETRY, &[me]);
                self.propose(s, ctx);
            }
            Timer::Deadline => {
                if let Some(p) = s.proposal.take() {
                    ctx.note(&N_PATIENCE, &[me, self.patience, p.ballot]);
                    self.back_off(s, ctx);
                }
            }
            Timer::Heartbeat => {
                if s.leading() {
                    let inst = s.latest().0;
                    ctx.heartbeat(Timer::Heartbeat, &N_BEAT, &[me, inst], Msg::Heartbeat { inst, ballot: s.decided_by });
                }
            }
        }
    }

    fn recover(&self, crashed: &State, ctx: &mut C) -> State {
        let s = State { leader: None, proposal: None, waiting: false, ..crashed.clone() };
        ctx.note(&N_RECOVER, &[ctx.me as u64, s.learned.len() as u64]);
        self.arm_detector(ctx);
        s
    }

    fn view(&self, s: &State) -> View {
        let role = match (&s.proposal, s.waiting) {
            _ if s.leading() => LEADER,
            (Some(p), _) if p.phase == Phase::Prepare => "preparing",
            (Some(_), _) => "accepting",
            (None, true) => "backing-off",
            (None, false) => FOLLOWER,
        };
        // A leader's term is the ballot that chose it (its fencing token); a follower shows the
        // highest ballot it has promised, if any.
        let term = if s.leading() { Some(s.decided_by) } else { Some(s.promised).filter(|&b| b > 0) };
        let tally = s.proposal.as_ref().map(|p| (p.yes.len() as u32, self.quorum));
        let tally_word = s.proposal.as_ref().map(|p| if p.phase == Phase::Prepare { &PROMISES } else { &ACCEPTANCES });
        View { role, leader: s.leader, term, term_word: Some(&BALLOT), tally, tally_word, ..View::default() }
    }

    fn inspect(&self, s: &State) -> Vec<(&'static str, String)> {
        let next = s.latest().0 + 1;
        let chosen = s.learned.iter().map(|(i, v)| format!("i{i}→N{v}")).collect::<Vec<_>>().join(", ");
        let proposal = s.proposal.as_ref().map_or("-".to_string(), |p| {
            let phase = if p.phase == Phase::Prepare { "1 (promises)" } else { "2 (acceptances)" };
            let yes = p.yes.iter().map(|x| format!("N{x}")).collect::<Vec<_>>().join(", ");
            format!("b{} for N{}, phase {phase}: {yes}", p.ballot, p.value)
        });
        vec![
            ("leader", fmt_node(s.leader)),
            ("chosen", if chosen.is_empty() { "-".to_string() } else { chosen }),
            ("next instance", next.to_string()),
            ("decided by ballot", format!("b{}", s.decided_by)),
            ("promised", format!("b{}", s.promised)),
            ("accepted (next instance)", s.accepted.get(&next).map_or("-".to_string(), |(b, v)| format!("b{b}: N{v}"))),
            ("proposal", proposal),
            ("backoff / patience", format!("{}–{} / {}", self.backoff.0, self.backoff.1, self.patience)),
        ]
    }
}

#[cfg(test)]
mod tests;
