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
use crate::field::{Field, FieldValue as V};
use crate::meta::k;
use crate::meta::{
    Faults, Formula, Kind, Look, Monitor, Preset, Property, Role, Topology, Visual, FOLLOWER_ROLE, LEADER_ROLE,
};
use crate::protocol::{
    fmt_node, Config, Ctx, Decoration, Message, ParamReader, Params, Protocol, View, FOLLOWER, LEADER,
};
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
    title: k::LEASE_PROPERTY_LEASE_OVERLAP_TITLE,
    explain: k::LEASE_EXPLAIN,
    holds: Faults::Any,
    monitor: Monitor::SplitBrain,
};

pub const ALGORITHM: Algorithm = Algorithm {
    id: "lease",
    title: k::LEASE_PROPERTY_LEASE_TITLE,
    citation: "C. Gray and D. Cheriton, Leases: An Efficient Fault-Tolerant Mechanism for Distributed File Cache Consistency, SOSP 1989; M. Burrows, The Chubby lock service for loosely-coupled distributed systems, OSDI 2006",
    summary: k::LEASE_SUMMARY,
    card: k::LEASE_CARD,
    topology: Topology::WithResource,
    kinds: KINDS,
    roles: &[
        LEADER_ROLE,
        FOLLOWER_ROLE,
        Role::new(STORE, Look::Store, k::LEASE_THE_KEY_VALUE_STORE_KEEPS),
    ],
    formulas: &[Formula::new("2(N−1)", k::LEASE_FORMULA_1, &["CAS", "OK", "FAIL"], |n| 2 * n.saturating_sub(1))],
    properties: &[LEASE_OVERLAP],
    presets: PRESETS,
    build: run::build::<Lease>,
};

const PRESETS: &[Preset] = &[
    Preset {
        id: "lease-takeover",
        title: k::LEASE_PRESET_LEASE_TAKEOVER_TITLE,
        hint: k::LEASE_PRESET_LEASE_TAKEOVER_HINT,
        json: r#"{"algorithm":"lease","nodes":[1,2,3,4,5],"seed":425,"network":{"latency":[1,3]},
                  "params":{"ttl":20,"period":4,"margin":2},"schedule":[{"at":40,"crash":4}],"stop":{"max_time":110}}"#,
        leaders: &[2],
        // Pins the CAS race for a free key (N4 first) and the takeover 20 store ticks after N4's crash.
        golden: "af4d355b2f807655",
    },
    Preset {
        id: "lease-drift",
        title: k::LEASE_PRESET_LEASE_DRIFT_TITLE,
        hint: k::LEASE_PRESET_LEASE_DRIFT_HINT,
        json: r#"{"algorithm":"lease","nodes":[1,2,3,4,5],"seed":425,"initial_leader":5,
                  "params":{"ttl":60,"period":4,"margin":2,"drift":{"5":0.8}},
                  "schedule":[{"at":10,"isolate":5},{"at":120,"heal":true}],"stop":{"max_time":150}}"#,
        leaders: &[4],
        // Pins a holder's clock at 0.8 speed: the store expires the key at t = 66 before the holder knows.
        golden: "57f84a12338c5cfb",
    },
    Preset {
        id: "lease-partition",
        title: k::LEASE_PRESET_LEASE_PARTITION_TITLE,
        hint: k::LEASE_PRESET_LEASE_PARTITION_HINT,
        json: r#"{"algorithm":"lease","nodes":[1,2,3,4,5],"seed":425,"initial_leader":5,
                  "params":{"ttl":20,"period":4,"margin":2},
                  "schedule":[{"at":10,"partition":[[1,2],[3,4,5]]}],"stop":{"max_time":100}}"#,
        leaders: &[2],
        // Pins a holder cut off from the store loses the key to N2, beside the store.
        golden: "8d9409d008cf4549",
    },
];

// Narration: one sentence per rule, in both languages. `{0}` is the acting node.

#[derive(Clone, Debug, PartialEq, Eq, Hash)]
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

#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum Msg {
    /// Compare-and-set: write my token if the key holds `expect` (none: create; me: refresh).
    /// `at` is the sender's own clock when it sent the request, echoed in the answer.
    Cas {
        expect: Option<NodeId>,
        at: u64,
    },
    Ok {
        at: u64,
    },
    /// Refused: the key holds `holder` (none: it is free).
    Fail {
        holder: Option<NodeId>,
    },
}

kinds! {
    Msg;
    Msg::Cas { .. } => Kind::new("CAS", "cas", Visual::Request, k::LEASE_KIND_CAS),
    Msg::Ok { .. } => Kind::new("OK", "ok", Visual::Answer, k::LEASE_KIND_OK),
    Msg::Fail { .. } => Kind::new("FAIL", "✗", Visual::Refusal, k::LEASE_KIND_FAIL),
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

timers! {
    Timer {
        /// A competitor's next request.
        Try => "TRY",
        /// A holder's lease runs out by its own clock.
        LeaseEnd => "LEASE_END",
        /// The store's key runs out by the store's clock.
        Expire => "KEY_EXPIRE",
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
        let period = p.ticks("period", 4)?;
        let ttl = p.uint("ttl")?.unwrap_or(4 * (period + cfg.latency.1));
        let margin = p.uint("margin")?.unwrap_or((ttl / 10).max(1));
        if margin >= ttl {
            return Err(ScenarioError::new("params.margin", format!("must be below the TTL ({ttl})")));
        }
        if period >= ttl - margin {
            return Err(ScenarioError::new(
                "params.period",
                format!("must be shorter than the TTL minus the margin ({})", ttl - margin),
            ));
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
            ctx.note(k::lease_note_forget(ctx.me, self.ttl, k));
            s.known = None;
        }
        let mine = s.lease.is_some() || s.known == Some(ctx.me);
        ctx.note(if mine {
            k::lease_note_try_refresh(ctx.me, self.store)
        } else {
            k::lease_note_try_create(ctx.me, self.store)
        });
        ctx.send(self.store, Msg::Cas { expect: mine.then_some(ctx.me), at: now });
        self.at_own(Timer::Try, now + self.period, ctx);
    }

    fn store_answers(&self, s: &mut State, from: NodeId, expect: Option<NodeId>, at: u64, ctx: &mut C) {
        let now = self.own(ctx.me, ctx.now);
        let current = s.key.filter(|_| now < s.expires);
        if current == expect {
            ctx.note(if expect.is_some() {
                k::lease_note_store_refresh(ctx.me, from, self.ttl)
            } else {
                k::lease_note_store_create(ctx.me, from, self.ttl)
            });
            s.key = Some(from);
            s.expires = now + self.ttl;
            s.granted = ctx.now;
            self.at_own(Timer::Expire, s.expires, ctx);
            ctx.send(from, Msg::Ok { at });
            return;
        }
        match current {
            Some(h) if h == from => ctx.note(k::lease_note_store_own(ctx.me, from)),
            Some(h) => ctx.note(k::lease_note_store_held(ctx.me, from, h)),
            None => ctx.note(k::lease_note_store_gone(ctx.me, from)),
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
    const VIEW_FIELDS: &'static [&'static str] = &["leader"];

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
            ctx.note(k::lease_note_store_start(ctx.me));
            return;
        }
        ctx.note(k::lease_note_start(ctx.me));
        self.try_store(s, ctx);
    }

    fn on_message(&self, s: &mut State, from: NodeId, msg: Msg, ctx: &mut C) {
        let me = ctx.me;
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
                    ctx.note(k::lease_note_late(me));
                    return;
                }
                let renewed = s.lease.is_some();
                if s.lease.is_none_or(|(_, until)| until < end) {
                    s.lease = Some((at, end));
                    self.at_own(Timer::LeaseEnd, end, ctx);
                }
                s.known = Some(ctx.me);
                let left = s.lease.map_or(0, |(_, until)| until - now);
                ctx.note(if renewed { k::lease_note_renewed(me, left) } else { k::lease_note_granted(me, left) });
            }
            Msg::Fail { holder } => {
                s.known = holder;
                s.heard = self.own(ctx.me, ctx.now);
                if holder == Some(ctx.me) {
                    ctx.note(k::lease_note_own(me));
                    return;
                }
                let believed = s.lease.take().is_some();
                if believed {
                    ctx.cancel_timer(Timer::LeaseEnd);
                }
                match (believed, holder) {
                    (true, Some(h)) => ctx.note(k::lease_note_deposed(me, h)),
                    (true, None) => ctx.note(k::lease_note_deposed_free(me)),
                    (false, Some(h)) => ctx.note(k::lease_note_refused(me, h)),
                    (false, None) => ctx.note(k::lease_note_refused_free(me)),
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
                        ctx.note(k::lease_note_expired(ctx.me, until - from));
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
                        ctx.note(k::lease_note_store_expire(ctx.me, h, self.ttl));
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
            ctx.note(k::lease_note_store_recover(ctx.me));
            return s;
        }
        ctx.note(k::lease_note_recover(ctx.me));
        ctx.set_timer(Timer::Try, 1, self.real(ctx.me, self.period).max(1));
        s
    }

    fn view(&self, s: &State) -> View {
        if s.me == self.store {
            let lease = s.key.map(|_| Decoration::Lease {
                from: s.granted,
                until: self.real(s.me, s.expires),
                ticks: self.ttl as u32,
            });
            return View { role: STORE, leader: s.key, ..View::default() }.with(lease);
        }
        match s.lease {
            Some((from, until)) => {
                View { role: LEADER, leader: Some(s.me), ..View::default() }.with(Decoration::Lease {
                    from: self.real(s.me, from),
                    until: self.real(s.me, until),
                    ticks: (until - from) as u32,
                })
            }
            None => View { role: FOLLOWER, leader: s.known.filter(|&k| k != s.me), ..View::default() },
        }
    }

    fn inspect(&self, s: &State) -> Vec<Field> {
        let rate = V::text(format!("×{:.3}", self.rate(s.me) as f64 / 1000.0));
        let mut out = vec![Field::new("clock_rate", k::INSPECT_CLOCK_RATE, rate)];
        if s.me == self.store {
            let key = s.key.map_or(V::text("free"), |k| {
                V::worded(k.into(), format!("N{k}, expires at {} (store clock)", s.expires))
            });
            out.push(Field::new("key", k::UI_KEY, key));
        } else {
            let lease = s.lease.map_or(V::None, |(a, b)| V::worded(b, format!("from {a} until {b}")));
            out.push(Field::new("lease", k::INSPECT_LEASE_OWN_CLOCK, lease));
            out.push(Field::new("holder_named_by_store", k::INSPECT_HOLDER_LAST_NAMED_BY_THE_STORE, V::node(s.known)));
        }
        let settings = format!("{} / {} / {}", self.ttl, self.period, self.margin);
        out.push(Field::new("settings", k::INSPECT_TTL_PERIOD_MARGIN, V::text(settings)));
        out
    }
}

#[cfg(all(test, holds = "consensus"))]
mod tests;
