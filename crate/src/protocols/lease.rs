//! **Lease election through a key-value store.** Leases as in C. Gray and D. Cheriton, "Leases:
//! An Efficient Fault-Tolerant Mechanism for Distributed File Cache Consistency", SOSP 1989; a
//! leader chosen by who holds a key with a time to live in a lock service, as in M. Burrows,
//! "The Chubby lock service for loosely-coupled distributed systems", OSDI 2006.
//!
//! One node is the **store** (`params.store`, default the lowest id). It keeps one key,
//! `leader`, with a TTL, answers requests, and never competes. Every other node, every `period`
//! ticks of its own clock (shorter than the TTL), sends the store one compare-and-set: *create*
//! the key with its token when it holds no lease (expected value: none), or *refresh* it when it
//! holds one (expected value: its own token). The store compares the key — an expired key counts
//! as absent — with the expected value: if they match it writes the token and starts a new TTL
//! (OK), otherwise it refuses and names the current holder (FAIL). When the holder crashes or
//! loses the store, nobody refreshes the key, the store deletes it when its TTL runs out, and the
//! next create takes it over. The token is the node's id.
//!
//! **Clocks.** Node `i`'s clock reads `rate_i × real time`, real time being the simulator's
//! (`params.drift`, e.g. `{"5": 0.8}`: N5's clock runs 20% slow; default 1; rates are kept in
//! thousandths so that every computation is in integers). The TTL is measured in the store's
//! clock. A node believes it leads while *its own* clock says its lease is valid, and, as Gray
//! and Cheriton require of a lease holder, it counts the lease from when it *sent* the request,
//! minus a safety margin: it leads until `sent + ttl − margin` on its own clock.
//!
//! **What it claims.** `lease-overlap`: no two nodes believe they hold a valid lease at the same
//! real time. Without drift it holds under any crash, loss, delay or partition: a holder stops
//! believing at most `ttl − margin` after it sent its last granted request, while the store
//! keeps the key for `ttl` from the later moment it granted it, and only then can grant it to
//! another node, whose belief starts at the answer, later still. With drift the holder believes
//! `(ttl − margin)/r` real ticks while the store keeps the key `ttl/s`, `r` and `s` being the
//! holder's and the store's rates: it is safe once `margin ≥ ttl·(1 − r/s)`, plus a tick for
//! the clocks' rounding to whole ticks (latency only adds slack). A slower
//! holder clock, or a faster store clock, than the margin covers gives two leaders at once.
//! A store is no quorum: on the side of a partition without it, nobody can lead.
//!
//! * The store's key and expiry are durable (the store's own log); it re-arms its expiry when
//!   it recovers. The competitors' state is volatile: a recovered node holds no lease.
//! * A node whose request is refused while it still believes (possible only with drift) stops
//!   believing at once.
//! * `initial_leader` (unless it is the store): the store starts with its token, granted at
//!   time 0, and it believes from time 0. `heartbeats` are not used: the renewal period is the
//!   lease's own sign of life. `start` sends a CAS at once.
//!
//! Parameters (`params`): `store` (default the lowest id), `ttl` (store ticks, default
//! `4·(period + latency_max)`), `period` (own-clock ticks between requests, default 4, below
//! `ttl − margin`), `margin` (default `max(1, ttl/10)`, below the TTL), `drift`
//! (`{"<id>": rate}`, rates in (0, 10]).

use crate::algorithm::Algorithm;
use crate::error::ScenarioError;
use crate::meta::{Faults, Formula, Kind, Look, Monitor, Preset, Property, Role, Text, Topology, Visual, FOLLOWER_ROLE, LEADER_ROLE};
use crate::protocol::{fmt_node, ParamReader, Config, Ctx, Message, Params, Protocol, TimerKey, View, FOLLOWER, LEADER};
use crate::run;
use crate::{NodeId, Time};
use serde_json::Value;
use std::collections::BTreeMap;

#[derive(Clone, Debug)]
pub struct Lease {
    pub store: NodeId,
    /// The key's time to live, in store ticks.
    pub ttl: u64,
    /// Own-clock ticks between two requests of a competitor.
    pub period: u64,
    /// How much sooner than the TTL a holder stops believing, in its own ticks.
    pub margin: u64,
    /// Clock rates in thousandths, by node (absent: 1000).
    pub rates: BTreeMap<NodeId, u64>,
}

pub const STORE: &str = "store";

/// Two nodes believe they hold a valid lease at the same real time.
pub const LEASE_OVERLAP: Property = Property {
    id: "lease-overlap",
    title: Text::new("No overlapping leases", "租约不重叠"),
    explain: Text::new(
        "no two nodes believe they hold a valid lease at the same real time, as long as the safety margin covers the clock drift",
        "任一真实时刻至多一个节点认为自己持有有效租约——前提是安全余量足以抵消时钟漂移",
    ),
    holds: Faults::Any,
    monitor: Monitor::SplitBrain,
};

pub const ALGORITHM: Algorithm = Algorithm {
    id: "lease",
    title: Text::new("Lease through a key-value store", "基于键值存储的租约选举"),
    citation: "C. Gray and D. Cheriton, Leases: An Efficient Fault-Tolerant Mechanism for Distributed File Cache Consistency, SOSP 1989; M. Burrows, The Chubby lock service for loosely-coupled distributed systems, OSDI 2006",
    summary: Text::new(
        "The nodes race to write their token into one key of a store with compare-and-set; the key expires after a TTL unless its holder refreshes it, and the holder leads while its own clock says its lease is valid.",
        "各节点用比较并交换（CAS）争相把自己的令牌写入存储中的同一个键；键在 TTL 后过期，除非持有者续约；持有者在自己的时钟认为租约有效期间担任领导者。",
    ),
    card: Text::new(
        "One node is a key-value store; the others compete for its key, which expires after a TTL.\n\n\
         • Every period (shorter than the TTL) each node sends CAS: create the key if it is absent or expired, or refresh it if it holds the node's own token.\n\
         • The store grants one (OK) and refuses the others (FAIL, naming the holder). The holder keeps refreshing.\n\
         • The holder leads while its own clock says its lease is valid: counted from when it sent the request, minus a safety margin.\n\
         • When the holder crashes or loses the store, the key expires and the next CAS takes it over.\n\n\
         What to watch: each lease bar drains in its node's own clock. Slow a holder's clock (drift) beyond what the margin covers and it still believes after the store gave the key away: two leaders at once. A store is no quorum: the side of a partition without it has no leader.",
        "一个节点充当键值存储；其余节点争夺其中的一个键，该键在 TTL 后过期。\n\n\
         • 每个周期（短于 TTL）每个节点发送 CAS：键不存在或已过期时创建它，键中是自己的令牌时续约。\n\
         • 存储只接受其中一个（OK），拒绝其余的（FAIL，并告知持有者）。持有者不断续约。\n\
         • 持有者在自己的时钟认为租约有效期间担任领导者：从发出请求时算起，再减去一个安全余量。\n\
         • 持有者崩溃或与存储失联后，键会过期，下一个 CAS 接管它。\n\n\
         观察要点：每条租约进度条按各自节点的时钟流逝。让持有者的时钟变慢（时钟漂移），超出安全余量所能抵消的范围，存储把键交给别人后它仍自认为是领导者：同时出现两个领导者。存储不是多数派：分区中没有存储的一侧没有领导者。",
    ),
    topology: Topology::WithResource,
    kinds: KINDS,
    roles: &[
        LEADER_ROLE,
        FOLLOWER_ROLE,
        Role::new(STORE, Look::Store, Text::new("the key-value store: keeps the key and its TTL, never competes", "键值存储：保存该键及其 TTL，从不参与竞争")),
    ],
    formulas: &[Formula {
        name: "2(N−1)",
        applies: Text::new(
            "one period: each of the N−1 competitors sends one CAS and gets one answer",
            "一个周期：N−1 个竞争者各发送一条 CAS 并收到一条回复",
        ),
        counts: &["CAS", "OK", "FAIL"],
        value: |n| 2 * n.saturating_sub(1),
    }],
    properties: &[LEASE_OVERLAP],
    presets: PRESETS,
    build: run::build::<Lease>,
};

const PRESETS: &[Preset] = &[
    Preset {
        id: "lease-takeover",
        title: Text::new("Lease: race, then the holder crashes", "租约：竞争，然后持有者崩溃"),
        hint: Text::new(
            "Store N1, TTL 20, period 4, margin 2. N2–N5 race for the free key and N4's CAS arrives first. N4 crashes at t=40: the key expires 20 store ticks after its last refresh, and N2's next CAS takes it.",
            "存储为 N1，TTL 20，周期 4，安全余量 2。N2–N5 争抢空闲的键，N4 的 CAS 最先到达。N4 在 t=40 崩溃：键在最后一次续约后 20 个存储时间单位过期，N2 的下一个 CAS 拿到了它。",
        ),
        json: r#"{"algorithm":"lease","nodes":[1,2,3,4,5],"seed":425,"network":{"latency":[1,3]},
                  "params":{"ttl":20,"period":4,"margin":2},"schedule":[{"at":40,"crash":4}],"stop":{"max_time":110}}"#,
        leaders: &[2],
        golden: "0a038859ec0e02c7",
    },
    Preset {
        id: "lease-drift",
        title: Text::new("Lease: a slow clock overlaps", "租约：慢时钟导致租约重叠"),
        hint: Text::new(
            "N5 holds the key; its clock runs 20% slow (drift 0.8). TTL 60, period 4, margin 2. N5 is cut off at t=10: the key expires at t=66 and N4 leads from t=67, yet N5's slow clock says its lease runs until t=78 — two leaders for 11 ticks. A margin of 12 (60 × 0.2) prevents it.",
            "N5 持有该键，它的时钟慢 20%（漂移 0.8）。TTL 60，周期 4，安全余量 2。N5 在 t=10 被隔离：键在 t=66 过期，N4 从 t=67 起成为领导者，而 N5 的慢时钟显示租约要到 t=78 才到期——两个领导者并存 11 个时间单位。安全余量取 12（60 × 0.2）即可避免。",
        ),
        json: r#"{"algorithm":"lease","nodes":[1,2,3,4,5],"seed":425,"initial_leader":5,
                  "params":{"ttl":60,"period":4,"margin":2,"drift":{"5":0.8}},
                  "schedule":[{"at":10,"isolate":5},{"at":120,"heal":true}],"stop":{"max_time":150}}"#,
        leaders: &[4],
        golden: "643adccfce633204",
    },
    Preset {
        id: "lease-partition",
        title: Text::new("Lease: the store on the minority side", "租约：存储位于少数派一侧"),
        hint: Text::new(
            "N5 holds the key in store N1. At t=10 {1,2} is cut from {3,4,5}: N5 can no longer refresh, its lease runs out, and N2 — beside the store — takes the key. The majority side has no leader: a store is not a quorum.",
            "N5 在存储 N1 中持有该键。t=10 时 {1,2} 与 {3,4,5} 被切开：N5 无法续约，租约到期，位于存储一侧的 N2 拿到该键。多数派一侧没有领导者：存储并不是多数派。",
        ),
        json: r#"{"algorithm":"lease","nodes":[1,2,3,4,5],"seed":425,"initial_leader":5,
                  "params":{"ttl":20,"period":4,"margin":2},
                  "schedule":[{"at":10,"partition":[[1,2],[3,4,5]]}],"stop":{"max_time":100}}"#,
        leaders: &[2],
        golden: "b34b2a6ec7f3f7ad",
    },
];

// Narration: one sentence per rule, in both languages. `{0}` is the acting node.
const S_CREATE: Text = Text::new(
    "The store N{0} grants N{1}'s CAS: the key was free, so it now holds N{1}'s token for a TTL of {2} ticks of the store's clock.",
    "存储 N{0} 接受 N{1} 的 CAS：键原本空闲，现在写入 N{1} 的令牌，TTL 为存储时钟的 {2} 个时间单位。",
);
const S_REFRESH: Text = Text::new(
    "The store N{0} grants N{1}'s refresh: the key still holds N{1}'s token, and its TTL of {2} ticks starts again.",
    "存储 N{0} 接受 N{1} 的续约：键中仍是 N{1} 的令牌，{2} 个时间单位的 TTL 重新开始计时。",
);
const S_HELD: Text = Text::new(
    "The store N{0} refuses N{1}'s CAS: the key holds N{2}'s token and has not expired.",
    "存储 N{0} 拒绝 N{1} 的 CAS：键中是 N{2} 的令牌，且尚未过期。",
);
const S_OWN: Text = Text::new(
    "The store N{0} refuses N{1}'s create: the key already holds N{1}'s own token.",
    "存储 N{0} 拒绝 N{1} 的创建请求：键中已经是 N{1} 自己的令牌。",
);
const S_GONE: Text = Text::new(
    "The store N{0} refuses N{1}'s refresh: that lease has expired and the key is free.",
    "存储 N{0} 拒绝 N{1} 的续约：该租约已过期，键现在空闲。",
);
const S_EXPIRE: Text = Text::new(
    "N{1}'s lease ran out in the store's clock ({2} ticks without a refresh): the store N{0} deletes the key.",
    "按存储的时钟，N{1} 的租约已到期（{2} 个时间单位内没有续约）：存储 N{0} 删除该键。",
);
const S_RECOVER: Text = Text::new(
    "The store N{0} recovers with its key on disk and goes on answering CAS.",
    "存储 N{0} 恢复，键保存在磁盘上，它继续响应 CAS。",
);
const S_START: Text = Text::new("The store N{0} never competes: it only answers CAS.", "存储 N{0} 从不参与竞争：它只响应 CAS。");
const N_TRY_CREATE: Text = Text::new(
    "N{0} holds no lease: it sends CAS to the store N{1}, to create the key with its token if the key is free.",
    "N{0} 没有租约：它向存储 N{1} 发送 CAS，若键空闲就写入自己的令牌。",
);
const N_TRY_REFRESH: Text = Text::new(
    "N{0} holds the key: it sends CAS to the store N{1} to refresh it before the TTL runs out.",
    "N{0} 持有该键：它向存储 N{1} 发送 CAS，在 TTL 到期前续约。",
);
const N_GRANTED: Text = Text::new(
    "N{0}'s CAS succeeded: it leads for {1} ticks of its own clock (the TTL minus the margin, counted from when it sent the request).",
    "N{0} 的 CAS 成功：按自己的时钟，它在 {1} 个时间单位内担任领导者（TTL 减去安全余量，从发出请求时算起）。",
);
const N_RENEWED: Text = Text::new(
    "N{0}'s refresh succeeded: by its own clock its lease now runs {1} more ticks.",
    "N{0} 续约成功：按自己的时钟，租约还剩 {1} 个时间单位。",
);
const N_LATE: Text = Text::new(
    "N{0}'s CAS succeeded, but the answer came too late: by its own clock that lease has already run out, so it does not lead.",
    "N{0} 的 CAS 成功了，但回复来得太晚：按自己的时钟，该租约已经到期，因此它不担任领导者。",
);
const N_REFUSED: Text = Text::new(
    "N{0}'s CAS failed: the key holds N{1}'s token, so N{0} follows N{1} and tries again next period.",
    "N{0} 的 CAS 失败：键中是 N{1} 的令牌，所以 N{0} 跟随 N{1}，下个周期再试。",
);
const N_REFUSED_FREE: Text = Text::new(
    "N{0}'s refresh failed: its lease had already expired at the store; it will try to create the key next period.",
    "N{0} 续约失败：它的租约在存储上已经过期；下个周期它会尝试重新创建该键。",
);
const N_OWN: Text = Text::new(
    "N{0}'s create failed because the key still holds its own token: it will refresh it next period.",
    "N{0} 的创建请求失败，因为键中仍是它自己的令牌：下个周期它会续约。",
);
const N_DEPOSED: Text = Text::new(
    "N{0} still believed it led, but the store says the key holds N{1}'s token: it stops leading at once.",
    "N{0} 仍以为自己是领导者，但存储表明键中是 N{1} 的令牌：它立即停止担任领导者。",
);
const N_DEPOSED_FREE: Text = Text::new(
    "N{0} still believed it led, but the store says its lease has expired: it stops leading at once.",
    "N{0} 仍以为自己是领导者，但存储表明它的租约已过期：它立即停止担任领导者。",
);
const N_EXPIRED: Text = Text::new(
    "N{0}'s own clock says its lease of {1} ticks has run out: it stops leading.",
    "N{0} 自己的时钟显示 {1} 个时间单位的租约已到期：它不再担任领导者。",
);
const N_FORGET: Text = Text::new(
    "N{0} has had no answer from the store for {1} ticks, a whole TTL: it no longer takes N{2} for the leader.",
    "N{0} 已有 {1} 个时间单位（一个完整的 TTL）没有收到存储的回复：它不再认为 N{2} 是领导者。",
);
const N_RECOVER: Text = Text::new(
    "N{0} recovers holding no lease: it competes again at its next period.",
    "N{0} 恢复后没有租约：它将在下个周期重新参与竞争。",
);
const N_START: Text = Text::new("N{0} is asked to start: it tries the store at once.", "N{0} 被要求发起选举：它立即向存储发出请求。");

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct State {
    pub me: NodeId,
    /// The store's side: the key's holder, its expiry in store ticks, and the real time of the
    /// grant (for the drawing). Durable.
    pub key: Option<NodeId>,
    pub expires: u64,
    pub granted: Time,
    /// A competitor's side: the lease it believes it holds, `(from, until)` in its own ticks.
    pub lease: Option<(u64, u64)>,
    /// The holder the store last named to it, and when (own clock) the store last answered: a
    /// node that has not heard from the store for a TTL names nobody.
    pub known: Option<NodeId>,
    pub heard: u64,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Msg {
    /// Compare-and-set: write my token if the key holds `expect` (none: create; me: refresh).
    /// `at` is the sender's own clock when it sent the request, echoed in the answer.
    Cas { expect: Option<NodeId>, at: u64 },
    Ok { at: u64 },
    /// Refused: the key holds `holder` (none: it is free).
    Fail { holder: Option<NodeId> },
}

kinds! {
    Msg;
    Msg::Cas { .. } => Kind::new("CAS", "cas", Visual::Request, Text::new("create the key if free, or refresh it if it holds my token", "键空闲时创建，键中是自己的令牌时续约")),
    Msg::Ok { .. } => Kind::new("OK", "ok", Visual::Answer, Text::new("the store wrote the token: a new TTL starts", "存储已写入令牌：新的 TTL 开始计时")),
    Msg::Fail { .. } => Kind::new("FAIL", "no", Visual::Refusal, Text::new("refused: the key holds another token", "被拒绝：键中是别的令牌")),
}

impl Message for Msg {
    fn label(&self) -> String {
        match self {
            Msg::Cas { expect: None, .. } => "CAS(create)".to_string(),
            Msg::Cas { expect: Some(_), .. } => "CAS(refresh)".to_string(),
            Msg::Ok { .. } => "OK".to_string(),
            Msg::Fail { holder } => format!("FAIL({})", fmt_node(*holder)),
        }
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Timer {
    /// A competitor's next request.
    Try,
    /// A holder's lease runs out by its own clock.
    LeaseEnd,
    /// The store's key runs out by the store's clock.
    Expire,
}

impl TimerKey for Timer {
    fn name(&self) -> &'static str {
        match self {
            Timer::Try => "TRY",
            Timer::LeaseEnd => "LEASE_END",
            Timer::Expire => "KEY_EXPIRE",
        }
    }
}

type C<'a> = Ctx<'a, Msg, Timer>;

impl Lease {
    fn from_params(cfg: &Config, params: &Params) -> Result<Self, ScenarioError> {
        let p = ParamReader::new(params, &["store", "ttl", "period", "margin", "drift"])?;
        if cfg.n() < 2 {
            return Err(ScenarioError::new("nodes", "a lease election needs a store and at least one other node"));
        }
        let store = p.id("store")?.unwrap_or(cfg.sorted[0]);
        if cfg.position(store).is_none() {
            return Err(ScenarioError::new("params.store", format!("N{store} is not one of the nodes")));
        }
        let period = p.uint("period")?.unwrap_or(4);
        if period == 0 {
            return Err(ScenarioError::new("params.period", "must be at least 1 tick"));
        }
        let ttl = p.uint("ttl")?.unwrap_or(4 * (period + cfg.latency.1));
        let margin = p.uint("margin")?.unwrap_or((ttl / 10).max(1));
        if margin >= ttl {
            return Err(ScenarioError::new("params.margin", format!("must be below the TTL ({ttl})")));
        }
        if period >= ttl - margin {
            return Err(ScenarioError::new("params.period", format!("must be shorter than the TTL minus the margin ({})", ttl - margin)));
        }
        let mut rates = BTreeMap::new();
        for (k, v) in p.entries("drift", "a clock rate (a number)", Value::as_f64)? {
            let field = format!("params.drift.{k}");
            let id: NodeId = k.parse().map_err(|_| ScenarioError::new(&field, "must name a node id"))?;
            if cfg.position(id).is_none() {
                return Err(ScenarioError::new(&field, format!("N{id} is not one of the nodes")));
            }
            if !(v > 0.0 && v <= 10.0) {
                return Err(ScenarioError::new(&field, "a clock rate must be above 0 and at most 10"));
            }
            rates.insert(id, ((v * 1000.0).round() as u64).max(1));
        }
        Ok(Lease { store, ttl, period, margin, rates })
    }

    fn rate(&self, id: NodeId) -> u64 {
        self.rates.get(&id).copied().unwrap_or(1000)
    }

    /// Node `id`'s clock at real time `t`.
    pub fn own(&self, id: NodeId, t: Time) -> u64 {
        t * self.rate(id) / 1000
    }

    /// The first real time at which node `id`'s clock reads `own`.
    pub fn real(&self, id: NodeId, own: u64) -> Time {
        let r = self.rate(id);
        (own * 1000).div_ceil(r)
    }

    /// Arms `timer` for when node `me`'s clock reads `own`.
    fn at_own(&self, timer: Timer, own: u64, ctx: &mut C) {
        let delay = self.real(ctx.me, own).saturating_sub(ctx.now).max(1);
        ctx.set_timer_after(timer, delay);
    }

    fn try_store(&self, s: &mut State, ctx: &mut C) {
        let now = self.own(ctx.me, ctx.now);
        if let Some(k) = s.known.filter(|&k| k != ctx.me && now >= s.heard + self.ttl) {
            ctx.note(&N_FORGET, &[ctx.me as u64, self.ttl, k as u64]);
            s.known = None;
        }
        let mine = s.lease.is_some() || s.known == Some(ctx.me);
        ctx.note(if mine { &N_TRY_REFRESH } else { &N_TRY_CREATE }, &[ctx.me as u64, self.store as u64]);
        ctx.send(self.store, Msg::Cas { expect: mine.then_some(ctx.me), at: now });
        self.at_own(Timer::Try, now + self.period, ctx);
    }

    fn store_answers(&self, s: &mut State, from: NodeId, expect: Option<NodeId>, at: u64, ctx: &mut C) {
        let now = self.own(ctx.me, ctx.now);
        let current = s.key.filter(|_| now < s.expires);
        let who = [ctx.me as u64, from as u64];
        if current == expect {
            ctx.note(if expect.is_some() { &S_REFRESH } else { &S_CREATE }, &[who[0], who[1], self.ttl]);
            s.key = Some(from);
            s.expires = now + self.ttl;
            s.granted = ctx.now;
            self.at_own(Timer::Expire, s.expires, ctx);
            ctx.send(from, Msg::Ok { at });
            return;
        }
        match current {
            Some(h) if h == from => ctx.note(&S_OWN, &who),
            Some(h) => ctx.note(&S_HELD, &[who[0], who[1], h as u64]),
            None => ctx.note(&S_GONE, &who),
        }
        ctx.send(from, Msg::Fail { holder: current });
    }

    fn init_state(&self, me: NodeId) -> State {
        State { me, key: None, expires: 0, granted: 0, lease: None, known: None, heard: 0 }
    }
}

impl Protocol for Lease {
    type State = State;
    type Msg = Msg;
    type Timer = Timer;
    const KINDS: &'static [Kind] = KINDS;

    fn new(cfg: &Config, params: &Params) -> Result<Self, ScenarioError> {
        Lease::from_params(cfg, params)
    }

    fn init(&self, ctx: &mut C) -> State {
        let mut s = self.init_state(ctx.me);
        let first = ctx.cfg.initial_leader.filter(|&l| l != self.store);
        if ctx.me == self.store {
            if first.is_some() {
                s.key = first;
                s.expires = self.ttl;
                self.at_own(Timer::Expire, s.expires, ctx);
            }
            return s;
        }
        s.known = first;
        if first == Some(ctx.me) {
            s.lease = Some((0, self.ttl - self.margin));
            self.at_own(Timer::LeaseEnd, self.ttl - self.margin, ctx);
        }
        // The first request at a random phase within one period, so that the nodes do not ask in step.
        ctx.set_timer(Timer::Try, 1, self.real(ctx.me, self.period).max(1));
        s
    }

    fn start(&self, s: &mut State, ctx: &mut C) {
        if ctx.me == self.store {
            ctx.note(&S_START, &[ctx.me as u64]);
            return;
        }
        ctx.note(&N_START, &[ctx.me as u64]);
        self.try_store(s, ctx);
    }

    fn on_message(&self, s: &mut State, from: NodeId, msg: Msg, ctx: &mut C) {
        let me = ctx.me as u64;
        match msg {
            Msg::Cas { expect, at } => {
                if ctx.me == self.store {
                    self.store_answers(s, from, expect, at, ctx);
                }
            }
            Msg::Ok { at } => {
                let now = self.own(ctx.me, ctx.now);
                s.heard = now;
                let end = at + self.ttl - self.margin;
                if end <= now {
                    ctx.note(&N_LATE, &[me]);
                    return;
                }
                let renewed = s.lease.is_some();
                if s.lease.is_none_or(|(_, until)| until < end) {
                    s.lease = Some((at, end));
                    self.at_own(Timer::LeaseEnd, end, ctx);
                }
                s.known = Some(ctx.me);
                let left = s.lease.map_or(0, |(_, until)| until - now);
                ctx.note(if renewed { &N_RENEWED } else { &N_GRANTED }, &[me, left]);
            }
            Msg::Fail { holder } => {
                s.known = holder;
                s.heard = self.own(ctx.me, ctx.now);
                if holder == Some(ctx.me) {
                    ctx.note(&N_OWN, &[me]);
                    return;
                }
                let believed = s.lease.take().is_some();
                if believed {
                    ctx.cancel_timer(Timer::LeaseEnd);
                }
                match (believed, holder) {
                    (true, Some(h)) => ctx.note(&N_DEPOSED, &[me, h as u64]),
                    (true, None) => ctx.note(&N_DEPOSED_FREE, &[me]),
                    (false, Some(h)) => ctx.note(&N_REFUSED, &[me, h as u64]),
                    (false, None) => ctx.note(&N_REFUSED_FREE, &[me]),
                }
            }
        }
    }

    fn on_timer(&self, s: &mut State, timer: Timer, ctx: &mut C) {
        let now = self.own(ctx.me, ctx.now);
        match timer {
            Timer::Try => self.try_store(s, ctx),
            Timer::LeaseEnd => {
                if let Some((from, until)) = s.lease {
                    if now >= until {
                        ctx.note(&N_EXPIRED, &[ctx.me as u64, until - from]);
                        s.lease = None;
                        s.known = None;
                    } else {
                        self.at_own(Timer::LeaseEnd, until, ctx);
                    }
                }
            }
            Timer::Expire => {
                if let Some(h) = s.key {
                    if now >= s.expires {
                        ctx.note(&S_EXPIRE, &[ctx.me as u64, h as u64, self.ttl]);
                        s.key = None;
                    } else {
                        self.at_own(Timer::Expire, s.expires, ctx);
                    }
                }
            }
        }
    }

    fn recover(&self, crashed: &State, ctx: &mut C) -> State {
        let mut s = self.init_state(ctx.me);
        if ctx.me == self.store {
            s.key = crashed.key;
            s.expires = crashed.expires;
            s.granted = crashed.granted;
            if s.key.is_some() {
                self.at_own(Timer::Expire, s.expires, ctx);
            }
            ctx.note(&S_RECOVER, &[ctx.me as u64]);
            return s;
        }
        ctx.note(&N_RECOVER, &[ctx.me as u64]);
        ctx.set_timer(Timer::Try, 1, self.real(ctx.me, self.period).max(1));
        s
    }

    fn view(&self, s: &State) -> View {
        if s.me == self.store {
            let lease = s.key.map(|_| (s.granted, self.real(s.me, s.expires), self.ttl as u32));
            return View { role: STORE, leader: s.key, lease, ..View::default() };
        }
        match s.lease {
            Some((from, until)) => View {
                role: LEADER,
                leader: Some(s.me),
                lease: Some((self.real(s.me, from), self.real(s.me, until), (until - from) as u32)),
                ..View::default()
            },
            None => View { role: FOLLOWER, leader: s.known.filter(|&k| k != s.me), ..View::default() },
        }
    }

    fn inspect(&self, s: &State) -> Vec<(&'static str, String)> {
        let mut out = vec![("clock rate", format!("×{:.3}", self.rate(s.me) as f64 / 1000.0))];
        if s.me == self.store {
            out.push(("key", s.key.map_or("free".to_string(), |k| format!("N{k}, expires at {} (store clock)", s.expires))));
        } else {
            out.push(("lease (own clock)", s.lease.map_or("-".to_string(), |(a, b)| format!("from {a} until {b}"))));
            out.push(("holder last named by the store", fmt_node(s.known)));
        }
        out.push(("TTL / period / margin", format!("{} / {} / {}", self.ttl, self.period, self.margin)));
        out
    }
}

#[cfg(test)]
mod tests;
