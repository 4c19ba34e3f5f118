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
use crate::field::{Field, FieldValue as V};
use crate::meta::k;
use crate::meta::{
    Faults, Formula, Kind, Look, Monitor, Preset, Property, Role, Text, Topology, Visual, FOLLOWER_ROLE, LEADER_ROLE,
};
use crate::protocol::{Config, Ctx, Message, ParamReader, Params, Protocol, View, FOLLOWER, LEADER};
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
    title: k::TOKEN_RING_PROPERTY_DUPLICATE_TOKEN_TITLE,
    explain: k::TOKEN_RING_EXPLAIN,
    holds: Faults::CrashStop,
    monitor: Monitor::OneToken,
};

pub const ALGORITHM: Algorithm = Algorithm {
    id: "token-ring",
    title: k::TOKEN_RING_PROPERTY_TOKEN_RING_TITLE,
    citation: "G. LeLann, Distributed systems — towards a formal approach, IFIP Congress 1977",
    summary: k::TOKEN_RING_SUMMARY,
    card: k::TOKEN_RING_CARD,
    topology: Topology::Ring,
    kinds: KINDS,
    roles: &[LEADER_ROLE, FOLLOWER_ROLE, Role::new("passing", Look::Participant, k::TOKEN_RING_ROLE_PASSING)],
    formulas: &[Formula::new("2N", k::TOKEN_RING_FORMULA_1, &["TOKEN", "ACK"], |n| 2 * n)],
    properties: &[DUPLICATE_TOKEN],
    presets: PRESETS,
    build: run::build::<TokenRing>,
};

const PRESETS: &[Preset] = &[
    Preset {
        id: "token-ring-crash",
        title: k::TOKEN_RING_PRESET_TOKEN_RING_CRASH_TITLE,
        hint: k::TOKEN_RING_PRESET_TOKEN_RING_CRASH_HINT,
        json: r#"{"algorithm":"token-ring","nodes":[5,2,8,1,6],"seed":425,"initial_leader":5,
                  "schedule":[{"at":7,"crash":8}],"stop":{"max_time":300}}"#,
        leaders: &[],
        // Pins the token lost with its holder and regenerated once, as generation 2, by N1.
        golden: "610e1b651bbf6b40",
    },
    Preset {
        id: "token-ring-partition",
        title: k::TOKEN_RING_PRESET_TOKEN_RING_PARTITION_TITLE,
        hint: k::TOKEN_RING_PRESET_TOKEN_RING_PARTITION_HINT,
        json: r#"{"algorithm":"token-ring","nodes":[1,2,3,4,5,6],"seed":425,"initial_leader":1,
                  "schedule":[{"at":22,"partition":[[1,2,3],[4,5,6]]},{"at":500,"heal":true}],"stop":{"max_time":700}}"#,
        leaders: &[5],
        // Pins a cut ring: the side without the token regenerates one (a duplicate token).
        golden: "38a5a702cacd4cd1",
    },
];

// Narration: one sentence per rule, in both languages. `{0}` is the acting node.

impl TokenRing {
    fn from_params(cfg: &Config, params: &Params) -> Result<Self, ScenarioError> {
        let p = ParamReader::new(params, &["hold", "silence"])?;
        let lat = cfg.latency.1;
        let hold = p.ticks("hold", lat + 1)?;
        let ack_wait = 2 * lat + 1;
        let n = cfg.n() as Time;
        let silence = p.ticks("silence", 2 * n * (hold + lat + ack_wait) + 1)?;
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
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Generation {
    pub counter: u64,
    pub origin: NodeId,
}

/// A token: its generation and the number of passes it has made. Tokens are ordered by
/// generation, then by hop.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Token {
    pub generation: Generation,
    pub hop: u64,
}

#[derive(Clone, Debug, PartialEq, Eq, Hash)]
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

#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum Msg {
    Token(Token),
    Ack(Token),
}

kinds! {
    Msg;
    Msg::Token(_) => Kind::new("TOKEN", "T", Visual::Data, k::TOKEN_RING_KIND_TOKEN),
    Msg::Ack(_) => Kind::new("ACK", "ack", Visual::Answer, k::TOKEN_RING_KIND_ACK),
}

impl Message for Msg {
    fn label(&self) -> String {
        match self {
            Msg::Token(t) => format!("TOKEN(gen {}·N{}, hop {})", t.generation.counter, t.generation.origin, t.hop),
            Msg::Ack(t) => format!("ACK(gen {}, hop {})", t.generation.counter, t.hop),
        }
    }
}

timers! {
    Timer {
        /// The holding time is over: pass the token on.
        Hold => "HOLD",
        /// No ACK for the token passed on: skip the successor.
        AckWait => "ACK_WAIT",
        /// No token seen for this node's wait: regenerate it.
        Silence => "SILENCE",
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
            ctx.note(k::token_ring_note_keep(ctx.me, self.hold));
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
static GENERATION: Text = k::TOKEN_RING_TOKEN_GEN;

impl Protocol for TokenRing {
    type State = State;
    type Msg = Msg;
    type Timer = Timer;
    const VIEW_FIELDS: &'static [&'static str] = &["leader", "term"];

    fn new(cfg: &Config, params: &Params) -> Result<Self, ScenarioError> {
        TokenRing::from_params(cfg, params)
    }

    fn init(&self, ctx: &mut C) -> State {
        // Everyone knows the rule, so everyone knows the first token exists: a regeneration
        // is always a later generation than it.
        let first = ctx.cfg.initial_leader.unwrap_or(ctx.cfg.sorted[0]);
        let token = Token { generation: Generation { counter: 1, origin: first }, hop: 0 };
        let mut s = State {
            me: ctx.me,
            holding: None,
            passing: None,
            seen: Some(token),
            last_holder: Some(first),
            regenerated: 0,
        };
        if first == ctx.me {
            self.hold_token(&mut s, ctx, token);
        } else {
            self.watch(ctx);
        }
        s
    }

    fn start(&self, _s: &mut State, ctx: &mut C) {
        ctx.note(k::token_ring_note_start(ctx.me));
    }

    fn on_message(&self, s: &mut State, from: NodeId, msg: Msg, ctx: &mut C) {
        let me = ctx.me;
        match msg {
            Msg::Token(t) => {
                // Always acknowledged, so that the sender stops retrying, even when discarded.
                ctx.send(from, Msg::Ack(t));
                if s.seen.is_some_and(|seen| t <= seen) {
                    let g = s.seen.map_or(0, |x| x.generation.counter);
                    ctx.note(k::token_ring_note_stale(me, from, g));
                    return;
                }
                if s.holding.is_some() {
                    // The newer token replaces the held one; the hold timer runs on.
                    ctx.note(k::token_ring_note_meet(me, from, t.generation.counter));
                    s.holding = Some(t);
                    s.seen = Some(t);
                    self.watch(ctx);
                    return;
                }
                if s.passing.take().is_some() {
                    ctx.cancel_timer(Timer::AckWait);
                    ctx.note(k::token_ring_note_take_over_passing(me, from, t.generation.counter));
                } else {
                    ctx.note(k::token_ring_note_take(me, from, self.hold));
                }
                self.hold_token(s, ctx, t);
            }
            Msg::Ack(t) => match s.passing {
                Some((p, to)) if p == t && to == from => {
                    ctx.note(k::token_ring_note_acked(me, from));
                    s.passing = None;
                    s.last_holder = Some(from);
                    ctx.cancel_timer(Timer::AckWait);
                }
                _ => ctx.note(k::token_ring_note_ack_late(me, from)),
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
                        ctx.note(k::token_ring_note_pass(me, self.hold, succ));
                    }
                    self.pass(s, ctx, t, succ);
                }
            }
            Timer::AckWait => {
                if let Some((t, to)) = s.passing.take() {
                    let next = ctx.cfg.successor(to);
                    if next != me {
                        ctx.note(k::token_ring_note_skip(me, to, self.ack_wait));
                    }
                    // `pass` adds a hop again: hops only need to grow.
                    self.pass(s, ctx, t, next);
                }
            }
            Timer::Silence => {
                if s.holding.is_some() || s.passing.is_some() {
                    ctx.note(k::token_ring_note_silence_busy(me));
                    self.watch(ctx);
                    return;
                }
                let counter = s.seen.map_or(0, |t| t.generation.counter) + 1;
                ctx.note(k::token_ring_note_regenerate(me, self.wait_of(ctx.cfg, me), counter));
                s.regenerated += 1;
                let token = Token { generation: Generation { counter, origin: me }, hop: 0 };
                self.hold_token(s, ctx, token);
            }
        }
    }

    fn recover(&self, _crashed: &State, ctx: &mut C) -> State {
        let s = State { me: ctx.me, holding: None, passing: None, seen: None, last_holder: None, regenerated: 0 };
        ctx.note(k::token_ring_note_recover(ctx.me, self.wait_of(ctx.cfg, ctx.me)));
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
            let travels = flying
                .iter()
                .any(|&(from, dest, m, doomed)| from == s.me && dest == to && !doomed && *m == Msg::Token(t));
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

    fn inspect(&self, s: &State) -> Vec<Field> {
        let token = |t: Option<Token>| {
            t.map_or(V::None, |t| {
                let g = t.generation;
                V::worded(g.counter, format!("gen {}·N{}, hop {}", g.counter, g.origin, t.hop))
            })
        };
        vec![
            Field::new("holding", k::INSPECT_HOLDING, token(s.holding)),
            Field::new("passing_to", k::INSPECT_PASSING_TO, V::node(s.passing.map(|p| p.1))),
            Field::new("newest_token_seen", k::INSPECT_NEWEST_TOKEN_SEEN, token(s.seen)),
            Field::new("last_holder_seen", k::INSPECT_LAST_HOLDER_SEEN, V::node(s.last_holder)),
            Field::new("regenerations", k::INSPECT_REGENERATIONS, V::num(s.regenerated)),
            Field::new("settings", k::INSPECT_HOLD_SILENCE_STEP, V::text(format!("{} / {}", self.hold, self.silence))),
        ]
    }
}

#[cfg(all(test, holds = "rings"))]
mod tests;
