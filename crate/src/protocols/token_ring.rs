//! **Token ring with regeneration** (G. LeLann, "Distributed systems — towards a formal
//! approach", IFIP Congress 1977, where a token circulating on a logical ring grants mutual
//! exclusion, and a lost token has to be regenerated). LeLann regenerates the token by holding
//! a ring election (the `lelann` module runs that election); this module follows the course's
//! reading instead — a designated node, the lowest id, regenerates it — and says below how it
//! keeps that to one token.
//!
//! Leadership is not elected here: it is *held*. One TOKEN circulates clockwise round the ring
//! (scenario order). The node holding it leads — its view says `leader` — for `hold` ticks
//! (a timer: the token itself is a message, so holding is short), then passes it to its
//! successor. The receiver answers ACK; a sender that gets no ACK within a round trip
//! (`2·latency_max + 1`) takes the successor for crashed and passes the token to the next node
//! round the ring instead (the one message that goes past a successor), so a crashed node is
//! skipped and a recovered one is back in the ring on the next pass. Every other node names
//! the last holder it saw (itself when it last held the token, or the node that acknowledged
//! the token it passed on).
//!
//! **Regeneration.** A node that has not seen the token for a long silence suspects it was lost
//! (its holder crashed, or it was lost in flight) and regenerates it. Two rules keep a healthy
//! network to exactly one regeneration, and none when nothing was lost:
//!
//! * **Only the lowest live id regenerates**, without anyone knowing who is alive: the `k`-th
//!   lowest id waits `k·silence` ticks since it last saw the token.
//!   `silence` (default `2·N·(hold + 3·latency_max + 1) + 1`) is more than twice the longest a
//!   live token can take to come round — `N` hops of `hold + latency_max`, plus one ACK wait of
//!   `2·latency_max + 1` per crashed node skipped. So no node times out while the token lives;
//!   and once it is lost, the lowest live id times out first, and its new token comes round to
//!   every higher id before that id's longer wait is over (the last sightings differ by at most
//!   one trip, the waits by at least two).
//! * **Generation numbers.** A regenerated token carries generation `(k + 1, regenerator id)`,
//!   where `k` is the highest generation the regenerator has seen, and every pass counts a hop.
//!   A node discards any token that is not newer, as (generation, hop), than the newest it has
//!   seen: an old token that turns up after a regeneration dies at the first node the new one
//!   has passed, and a duplicated copy of the same token dies where the two paths meet. When
//!   two tokens reach the same node, it keeps the newer. Every node knows the first token
//!   (generation 1, held by `initial_leader` or else the lowest id), so a regeneration is
//!   always newer than it. After several losses in a row a regenerator may have missed the
//!   newest generation and make one that compares older; nodes that saw the newer discard it,
//!   which costs one more silence and one more regeneration (a higher one) — fewer tokens,
//!   never more.
//!
//! **What it claims.** `duplicate-token` — at most one live token at any moment: held by a live
//! node, in flight to a node that will keep it, or waiting at a sender that will pass it again
//! because its ACK never came (`Protocol::live_tokens`, watched after every step; two live
//! holders at once count too) — holds while the network is synchronous and never partitioned,
//! with crashes. Two tokens need not ever be *held* at the same instant to be two: on a ring
//! cut in two they can circulate in lockstep, one per side, for as long as the cut lasts.
//! A partition breaks it, by design of the timeouts: the side without the token hears nothing,
//! its lowest id regenerates, and each side has a token — the token ring's split brain (and a
//! cut that swallows an ACK makes its sender pass a copy). After healing the older generation
//! is discarded. Message loss breaks it too: a lost ACK makes the sender pass a second copy.
//! (The holding time defaults to `latency_max + 1`, longer than a hop.)
//!
//! * `initial_leader` holds the first token (generation 1); without one, the lowest id does.
//! * `heartbeats` are not used: the token itself is the sign of life, and it circulates with or
//!   without them. `start` does nothing — nobody is elected in a token ring.
//! * All state is volatile: a recovered node has seen no token, and waits for one like any
//!   other (its silence timer runs from its recovery).
//!
//! Parameters (`params`): `hold` (ticks a node keeps the token, default `latency_max + 1`),
//! `silence` (the silence step, default above).

use crate::algorithm::Algorithm;
use crate::error::ScenarioError;
use crate::meta::{Faults, Formula, Kind, Look, Monitor, Preset, Property, Role, Text, Topology, Visual, FOLLOWER_ROLE, LEADER_ROLE};
use crate::protocol::{fmt_node, ParamReader, Config, Ctx, Message, Params, Protocol, TimerKey, View, FOLLOWER, LEADER};
use crate::run;
use crate::{NodeId, Time};

#[derive(Clone, Debug)]
pub struct TokenRing {
    /// Ticks a node holds the token.
    pub hold: Time,
    /// The silence step: the k-th lowest id regenerates after k·silence ticks without seeing
    /// the token.
    pub silence: Time,
    /// How long a sender waits for ACK: one round trip.
    pub ack_wait: Time,
}

/// The token ring's split brain: two live tokens of different generations (held by live nodes
/// or in flight) exist at once, or two live nodes hold a token at the same moment.
pub const DUPLICATE_TOKEN: Property = Property {
    id: "duplicate-token",
    title: Text::new("Single token", "唯一令牌"),
    explain: Text::new(
        "at most one live token exists at any moment, held or in flight",
        "任一时刻至多存在一个有效令牌（持有中或传递中；否则令牌重复，即令牌环的脑裂）",
    ),
    holds: Faults::CrashStop,
    monitor: Monitor::OneToken,
};

pub const ALGORITHM: Algorithm = Algorithm {
    id: "token-ring",
    title: Text::new("Token ring", "令牌环"),
    citation: "G. LeLann, Distributed systems — towards a formal approach, IFIP Congress 1977",
    summary: Text::new(
        "One token circulates round the ring and whoever holds it leads; when the token is lost, the lowest live id regenerates it, and generation numbers get rid of old copies.",
        "一个令牌沿环流转，持有令牌者即为领导者；令牌丢失时由存活的最小 id 重新生成，并用代号（generation）清除旧令牌。",
    ),
    card: Text::new(
        "Nobody is elected: leadership is a token that travels clockwise round the ring. Its uniqueness, not an id comparison, makes the leader unique.\n\n\
         • The node holding the TOKEN leads for a few ticks, then passes it to its successor, which answers ACK.\n\
         • No ACK within a round trip: the successor is taken for crashed and skipped — the token goes to the next node round the ring.\n\
         • A node that has not seen the token for a long silence suspects it was lost. Lower ids wait less (the k-th lowest id waits k silences), so the lowest live id regenerates it, with a higher generation number.\n\
         • A node discards any token older than the newest it has seen: an old copy dies at the first node the new one has passed.\n\n\
         What to watch: crash the holder and the lowest live id brings back exactly one token; cut the ring with a partition and the side without the token makes its own — two tokens, the token ring's split brain — until healing lets the newer generation swallow the older.",
        "这里不做选举：领导权是一个沿环顺时针流转的令牌。领导者的唯一性来自令牌的唯一性，而不是 id 的比较。\n\n\
         • 持有 TOKEN（令牌）的节点担任领导者几个时间单位，然后把令牌传给后继节点，后继回复 ACK。\n\
         • 一个往返时间内没有收到 ACK：认为后继已崩溃并跳过它——令牌传给环上的下一个节点。\n\
         • 长时间没有见到令牌的节点怀疑令牌已丢失。id 越小等待越短（第 k 小的 id 等待 k 个静默期），因此由存活的最小 id 重新生成令牌，并使用更高的代号。\n\
         • 节点丢弃比自己见过的最新令牌更旧的令牌：旧令牌会在新令牌经过的第一个节点处消亡。\n\n\
         观察要点：让持有者崩溃，存活的最小 id 恰好生成一个新令牌；用网络分区切断环，没有令牌的一侧会自己生成一个——两个令牌，即令牌环的脑裂——直到分区消除，新一代令牌吞掉旧令牌。",
    ),
    topology: Topology::Ring,
    kinds: KINDS,
    roles: &[
        LEADER_ROLE,
        FOLLOWER_ROLE,
        Role::new("passing", Look::Participant, Text::new("passed the token on: waiting for ACK", "已传出令牌：等待 ACK")),
    ],
    formulas: &[Formula {
        name: "2N",
        applies: Text::new(
            "one trip of the token round a healthy ring: N TOKEN and N ACK",
            "令牌在无故障的环上绕行一周：N 条 TOKEN 与 N 条 ACK",
        ),
        counts: &["TOKEN", "ACK"],
        value: |n| 2 * n,
    }],
    properties: &[DUPLICATE_TOKEN],
    presets: PRESETS,
    build: run::build::<TokenRing>,
};

const PRESETS: &[Preset] = &[
    Preset {
        id: "token-ring-crash",
        title: Text::new("Token ring: the holder crashes", "令牌环：持有者崩溃"),
        hint: Text::new(
            "N8 holds the token when it crashes at t=7. Silence follows; N1, the lowest id, waits least and regenerates the token as generation 2 — once. The others see it come round before their longer waits end.",
            "N8 在 t=7 持有令牌时崩溃。随后环上一片静默；id 最小的 N1 等待时间最短，它重新生成第 2 代令牌——只生成一次。其他节点在各自更长的等待结束前就看到新令牌转了过来。",
        ),
        json: r#"{"algorithm":"token-ring","nodes":[5,2,8,1,6],"seed":425,"initial_leader":5,
                  "schedule":[{"at":7,"crash":8}],"stop":{"max_time":300}}"#,
        leaders: &[],
        golden: "96e637afb45b6e0a",
    },
    Preset {
        id: "token-ring-partition",
        title: Text::new("Token ring: a partition makes a second token", "令牌环：分区造出第二个令牌"),
        hint: Text::new(
            "At t=22 the ring is cut into {1,2,3} and {4,5,6} while N2 holds the token. The other side hears nothing; its lowest id, N4 (the fourth-lowest id, so it waits four silence steps), regenerates one: two holders at once, a duplicate token. After healing at t=500 the older token is discarded.",
            "t=22 时，N2 正持有令牌，环被切成 {1,2,3} 和 {4,5,6}。另一侧一片静默，其中 id 最小的 N4（全环第 4 小的 id，需等待四个静默期）重新生成令牌：同时出现两个持有者，即令牌重复。t=500 分区消除后，旧令牌被丢弃。",
        ),
        json: r#"{"algorithm":"token-ring","nodes":[1,2,3,4,5,6],"seed":425,"initial_leader":1,
                  "schedule":[{"at":22,"partition":[[1,2,3],[4,5,6]]},{"at":500,"heal":true}],"stop":{"max_time":700}}"#,
        leaders: &[5],
        golden: "d48ec2b472e0d1d2",
    },
];

// Narration: one sentence per rule, in both languages. `{0}` is the acting node.
const N_PASS: Text = Text::new(
    "N{0} has held the token for {1} ticks: it passes it on to its successor N{2} and waits for ACK.",
    "N{0} 已持有令牌 {1} 个时间单位：它把令牌传给后继 N{2}，并等待 ACK。",
);
const N_SKIP: Text = Text::new(
    "No ACK from N{1} within {2} ticks: N{0} takes N{1} for crashed and passes the token to the next node round the ring.",
    "N{0} 在 {2} 个时间单位内没有收到 N{1} 的 ACK：它认为 N{1} 已崩溃，把令牌传给环上的下一个节点。",
);
const N_KEEP: Text = Text::new(
    "No other node answered N{0}: it keeps the token and holds it for another {1} ticks.",
    "没有其他节点回应 N{0}：它留下令牌，再持有 {1} 个时间单位。",
);
const N_TAKE: Text = Text::new(
    "N{0} receives the token from N{1} and answers ACK: holding it, N{0} leads for the next {2} ticks.",
    "N{0} 收到 N{1} 传来的令牌并回复 ACK：持有令牌期间，N{0} 在接下来 {2} 个时间单位内担任领导者。",
);
const N_STALE: Text = Text::new(
    "N{0} receives a token from N{1} that is no newer than one it has already seen (generation {2}): it answers ACK and destroys this old copy.",
    "N{0} 收到 N{1} 传来的令牌，但它并不比自己见过的令牌（第 {2} 代）更新：它回复 ACK，并销毁这个旧副本。",
);
const N_MEET: Text = Text::new(
    "A second token reaches N{0} from N{1} while it holds one: it keeps the newer (generation {2}) and destroys the other.",
    "N{0} 持有令牌时又从 N{1} 收到第二个令牌：它保留较新的一个（第 {2} 代），销毁另一个。",
);
const N_TAKE_OVER_PASSING: Text = Text::new(
    "N{0} receives a newer token (generation {2}) from N{1} while still waiting for ACK for an older one: it holds the newer and stops caring about the older.",
    "N{0} 还在等待旧令牌的 ACK 时，从 N{1} 收到更新的令牌（第 {2} 代）：它持有新令牌，不再理会旧令牌。",
);
const N_ACKED: Text = Text::new(
    "N{0} gets ACK from N{1}: the token has arrived, and N{1} holds it now.",
    "N{0} 收到 N{1} 的 ACK：令牌已送达，现在由 N{1} 持有。",
);
const N_ACK_LATE: Text = Text::new(
    "N{0} gets a late ACK from N{1}: that pass has already been dealt with.",
    "N{0} 收到 N{1} 迟到的 ACK：那次传递已经处理过了。",
);
const N_REGENERATE: Text = Text::new(
    "N{0} has seen no token for {1} ticks. Lower ids wait less, and none of them has brought a token round, so N{0} takes the token for lost and regenerates it as generation {2}.",
    "N{0} 已有 {1} 个时间单位没有见到令牌。id 更小的节点等待更短，却没有一个把令牌送过来，所以 N{0} 认为令牌已丢失，重新生成第 {2} 代令牌。",
);
const N_SILENCE_BUSY: Text = Text::new(
    "N{0}'s silence timer runs out while it has the token itself: nothing is lost; it waits again.",
    "N{0} 的静默定时器到期，但令牌就在它自己手上：没有丢失；它重新等待。",
);
const N_START: Text = Text::new(
    "Nobody is elected in a token ring: whoever holds the token leads, and it comes round to N{0} in turn.",
    "令牌环中不进行选举：持有令牌者即为领导者，令牌会轮流转到 N{0}。",
);
const N_RECOVER: Text = Text::new(
    "N{0} recovers having seen no token: it waits for one to come round (or regenerates after {1} ticks of silence).",
    "N{0} 恢复后没有见过令牌：它等待令牌转过来（或在静默 {1} 个时间单位后重新生成）。",
);

impl TokenRing {
    fn from_params(cfg: &Config, params: &Params) -> Result<Self, ScenarioError> {
        let p = ParamReader::new(params, &["hold", "silence"])?;
        let lat = cfg.latency.1;
        let hold = p.uint("hold")?.unwrap_or(lat + 1);
        if hold == 0 {
            return Err(ScenarioError::new("params.hold", "must be at least 1 tick"));
        }
        let ack_wait = 2 * lat + 1;
        let n = cfg.n() as Time;
        let silence = p.uint("silence")?.unwrap_or(2 * n * (hold + lat + ack_wait) + 1);
        if silence == 0 {
            return Err(ScenarioError::new("params.silence", "must be at least 1 tick"));
        }
        Ok(TokenRing { hold, silence, ack_wait })
    }

    /// How long node `me` waits without seeing the token before it regenerates it.
    pub fn wait_of(&self, cfg: &Config, me: NodeId) -> Time {
        let rank = cfg.sorted.partition_point(|&x| x < me) as Time;
        (rank + 1) * self.silence
    }
}

/// A token's generation: a counter, then the node that made it (so that two regenerations
/// never make the same generation).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub struct Generation {
    pub counter: u64,
    pub origin: NodeId,
}

/// A token: its generation and the number of passes it has made. Tokens are ordered by
/// generation, then by hop.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub struct Token {
    pub generation: Generation,
    pub hop: u64,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct State {
    pub me: NodeId,
    /// The token this node holds (its hold timer is running).
    pub holding: Option<Token>,
    /// The token it passed on, and to whom, while it waits for ACK.
    pub passing: Option<(Token, NodeId)>,
    /// The newest token it has seen.
    pub seen: Option<Token>,
    /// The last holder it saw.
    pub last_holder: Option<NodeId>,
    /// How many tokens this node has regenerated.
    pub regenerated: u64,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Msg {
    Token(Token),
    Ack(Token),
}

kinds! {
    Msg;
    Msg::Token(_) => Kind::new("TOKEN", "T", Visual::Data, Text::new("the token: whoever holds it leads", "令牌：持有者即领导者")),
    Msg::Ack(_) => Kind::new("ACK", "ack", Visual::Answer, Text::new("the successor confirms it has the token", "后继确认已收到令牌")),
}

impl Message for Msg {
    fn label(&self) -> String {
        match self {
            Msg::Token(t) => format!("TOKEN(gen {}·N{}, hop {})", t.generation.counter, t.generation.origin, t.hop),
            Msg::Ack(t) => format!("ACK(gen {}, hop {})", t.generation.counter, t.hop),
        }
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Timer {
    /// The holding time is over: pass the token on.
    Hold,
    /// No ACK for the token passed on: skip the successor.
    AckWait,
    /// No token seen for this node's wait: regenerate it.
    Silence,
}

impl TimerKey for Timer {
    fn name(&self) -> &'static str {
        match self {
            Timer::Hold => "HOLD",
            Timer::AckWait => "ACK_WAIT",
            Timer::Silence => "SILENCE",
        }
    }
}

type C<'a> = Ctx<'a, Msg, Timer>;

impl TokenRing {
    fn watch(&self, ctx: &mut C) {
        let wait = self.wait_of(ctx.cfg, ctx.me);
        ctx.set_timer_after(Timer::Silence, wait);
    }

    fn hold_token(&self, s: &mut State, ctx: &mut C, token: Token) {
        s.holding = Some(token);
        s.seen = Some(token);
        s.last_holder = Some(ctx.me);
        ctx.set_timer_after(Timer::Hold, self.hold);
        self.watch(ctx);
    }

    /// Passes `token` to `to` (one more hop), or keeps it when `to` is this node itself
    /// (every other node was skipped).
    fn pass(&self, s: &mut State, ctx: &mut C, token: Token, to: NodeId) {
        if to == ctx.me {
            ctx.note(&N_KEEP, &[ctx.me as u64, self.hold]);
            s.passing = None;
            self.hold_token(s, ctx, token);
            return;
        }
        let next = Token { hop: token.hop + 1, ..token };
        s.passing = Some((next, to));
        s.seen = s.seen.max(Some(next));
        ctx.send(to, Msg::Token(next));
        ctx.set_timer_after(Timer::AckWait, self.ack_wait);
    }
}

/// What a node's number counts, under it on the canvas.
static GENERATION: Text = Text::new("token gen.", "令牌代");

impl Protocol for TokenRing {
    type State = State;
    type Msg = Msg;
    type Timer = Timer;
    const KINDS: &'static [Kind] = KINDS;

    fn new(cfg: &Config, params: &Params) -> Result<Self, ScenarioError> {
        TokenRing::from_params(cfg, params)
    }

    fn init(&self, ctx: &mut C) -> State {
        // Everyone knows the rule, so everyone knows the first token exists: a regeneration
        // is always a later generation than it.
        let first = ctx.cfg.initial_leader.unwrap_or(ctx.cfg.sorted[0]);
        let token = Token { generation: Generation { counter: 1, origin: first }, hop: 0 };
        let mut s = State { me: ctx.me, holding: None, passing: None, seen: Some(token), last_holder: Some(first), regenerated: 0 };
        if first == ctx.me {
            self.hold_token(&mut s, ctx, token);
        } else {
            self.watch(ctx);
        }
        s
    }

    fn start(&self, _s: &mut State, ctx: &mut C) {
        ctx.note(&N_START, &[ctx.me as u64]);
    }

    fn on_message(&self, s: &mut State, from: NodeId, msg: Msg, ctx: &mut C) {
        let me = ctx.me as u64;
        match msg {
            Msg::Token(t) => {
                // Always acknowledged, so that the sender stops retrying, even when discarded.
                ctx.send(from, Msg::Ack(t));
                if s.seen.is_some_and(|seen| t <= seen) {
                    let g = s.seen.map_or(0, |x| x.generation.counter);
                    ctx.note(&N_STALE, &[me, from as u64, g]);
                    return;
                }
                if s.holding.is_some() {
                    // The newer token replaces the held one; the hold timer runs on.
                    ctx.note(&N_MEET, &[me, from as u64, t.generation.counter]);
                    s.holding = Some(t);
                    s.seen = Some(t);
                    self.watch(ctx);
                    return;
                }
                if s.passing.take().is_some() {
                    ctx.cancel_timer(Timer::AckWait);
                    ctx.note(&N_TAKE_OVER_PASSING, &[me, from as u64, t.generation.counter]);
                } else {
                    ctx.note(&N_TAKE, &[me, from as u64, self.hold]);
                }
                self.hold_token(s, ctx, t);
            }
            Msg::Ack(t) => match s.passing {
                Some((p, to)) if p == t && to == from => {
                    ctx.note(&N_ACKED, &[me, from as u64]);
                    s.passing = None;
                    s.last_holder = Some(from);
                    ctx.cancel_timer(Timer::AckWait);
                }
                _ => ctx.note(&N_ACK_LATE, &[me, from as u64]),
            },
        }
    }

    fn on_timer(&self, s: &mut State, timer: Timer, ctx: &mut C) {
        let me = ctx.me;
        match timer {
            Timer::Hold => {
                if let Some(t) = s.holding.take() {
                    let succ = ctx.cfg.successor(me);
                    if succ != me {
                        ctx.note(&N_PASS, &[me as u64, self.hold, succ as u64]);
                    }
                    self.pass(s, ctx, t, succ);
                }
            }
            Timer::AckWait => {
                if let Some((t, to)) = s.passing.take() {
                    let next = ctx.cfg.successor(to);
                    if next != me {
                        ctx.note(&N_SKIP, &[me as u64, to as u64, self.ack_wait]);
                    }
                    // `pass` adds a hop again: hops only need to grow.
                    self.pass(s, ctx, t, next);
                }
            }
            Timer::Silence => {
                if s.holding.is_some() || s.passing.is_some() {
                    ctx.note(&N_SILENCE_BUSY, &[me as u64]);
                    self.watch(ctx);
                    return;
                }
                let counter = s.seen.map_or(0, |t| t.generation.counter) + 1;
                ctx.note(&N_REGENERATE, &[me as u64, self.wait_of(ctx.cfg, me), counter]);
                s.regenerated += 1;
                let token = Token { generation: Generation { counter, origin: me }, hop: 0 };
                self.hold_token(s, ctx, token);
            }
        }
    }

    fn recover(&self, _crashed: &State, ctx: &mut C) -> State {
        let s = State { me: ctx.me, holding: None, passing: None, seen: None, last_holder: None, regenerated: 0 };
        ctx.note(&N_RECOVER, &[ctx.me as u64, self.wait_of(ctx.cfg, ctx.me)]);
        self.watch(ctx);
        s
    }

    fn view(&self, s: &State) -> View {
        let role = if s.holding.is_some() {
            LEADER
        } else if s.passing.is_some() {
            "passing"
        } else {
            FOLLOWER
        };
        // Only the holder names itself: a node that passed the token on names the node it
        // passed it to, and a node that last held it but has it no more names nobody. The
        // generation is the holder's only (the token's), not every node's.
        let leader = match (s.holding, s.passing) {
            (Some(_), _) => Some(s.me),
            (None, Some((_, to))) => Some(to),
            (None, None) => s.last_holder.filter(|&l| l != s.me),
        };
        let term = s.holding.map(|t| t.generation.counter);
        View { role, leader, term, term_word: term.map(|_| &GENERATION), ..View::default() }
    }

    /// One entry per live token: each live holder; each TOKEN in flight that will arrive and
    /// that its receiver will keep (newer than any it has seen); and each sender still waiting
    /// for ACK whose token neither travels on nor arrived (its message is doomed, or was
    /// dropped), since it will pass the token again. A copy made when an ACK went missing counts
    /// as a second token, as does a regenerated one.
    fn live_tokens(&self, nodes: &[Option<&State>], flying: &[(NodeId, NodeId, &Msg, bool)]) -> Option<Vec<NodeId>> {
        let seen = |id: NodeId| nodes.iter().flatten().find(|s| s.me == id).map(|s| s.seen);
        let kept = |t: Token, to: NodeId| seen(to).is_some_and(|seen| seen.is_none_or(|x| t > x));
        let mut out: Vec<NodeId> = nodes.iter().flatten().filter(|s| s.holding.is_some()).map(|s| s.me).collect();
        for &(_, to, m, doomed) in flying {
            if let Msg::Token(t) = m {
                if !doomed && kept(*t, to) {
                    out.push(to);
                }
            }
        }
        for s in nodes.iter().flatten() {
            let Some((t, to)) = s.passing else { continue };
            let travels = flying.iter().any(|&(from, dest, m, doomed)| from == s.me && dest == to && !doomed && *m == Msg::Token(t));
            // Arrived: the receiver has seen this token (or a later pass of it), or its ACK is on
            // the way back (a stale copy it destroyed is acknowledged too).
            let arrived = seen(to).flatten().is_some_and(|x| x.generation == t.generation && x >= t)
                || flying.iter().any(|&(from, dest, m, _)| from == to && dest == s.me && *m == Msg::Ack(t));
            if !travels && !arrived {
                out.push(s.me);
            }
        }
        Some(out)
    }

    fn inspect(&self, s: &State) -> Vec<(&'static str, String)> {
        let token = |t: Option<Token>| t.map_or("-".to_string(), |t| format!("gen {}·N{}, hop {}", t.generation.counter, t.generation.origin, t.hop));
        vec![
            ("holding", token(s.holding)),
            ("passing to", fmt_node(s.passing.map(|p| p.1))),
            ("newest token seen", token(s.seen)),
            ("last holder seen", fmt_node(s.last_holder)),
            ("regenerations", s.regenerated.to_string()),
            ("hold / silence step", format!("{} / {}", self.hold, self.silence)),
        ]
    }
}

#[cfg(test)]
mod tests;
