//! **TimeSlice** on a one-way ring in synchronous rounds (N. A. Lynch, *Distributed
//! Algorithms*, Morgan Kaufmann 1996, §3.5.1): the time-versus-messages trade-off at its
//! extreme — exactly N messages, but a time that grows with the smallest id.
//!
//! Every node knows N. The run is cut into phases of N rounds; phase v is reserved for the id v.
//! A node with id u that has received nothing by the start of phase u (round (u − 1)·N) sends
//! TOKEN(u) to its successor; a node that receives a token passes it on (once) and knows who
//! leads; the token coming home makes its sender leader. The smallest id's token goes round in
//! its own phase, before any other node's phase begins, so it is the only one ever sent:
//! N messages, and the leader is known after (u_min − 1)·N + N rounds.
//!
//! * **Rounds.** Written for `network.model: "rounds"`, where a message takes exactly one round.
//!   Asynchronously the phases no longer keep the tokens apart.
//! * **Failures.** None assumed. A node that has passed a token never starts its own; a crashed
//!   node stops the token passing through it.
//!
//! Compare it with FloodMax (diam·2|E| messages in diam rounds) and Chang-Roberts in rounds
//! (O(N log N) messages on average in N rounds): the fewer messages, the longer the wait.

use crate::algorithm::Algorithm;
use crate::error::ScenarioError;
use crate::field::{Field, FieldValue as V};
use crate::meta::k;
use crate::meta::{
    single_leader, Faults, Formula, Kind, Look, Preset, Role, Topology, Visual, FOLLOWER_ROLE, LEADER_ROLE,
};
use crate::protocol::{Config, Ctx, Message, ParamReader, Params, Protocol, View, FOLLOWER, LEADER};
use crate::run;
use crate::{NodeId, Time};

#[derive(Clone, Debug)]
pub struct TimeSlice;

pub const ALGORITHM: Algorithm = Algorithm {
    id: "time-slice",
    title: k::TIME_SLICE_TITLE,
    citation: "N. A. Lynch, Distributed Algorithms, Morgan Kaufmann, 1996, §3.5.1 (TimeSlice)",
    summary: k::TIME_SLICE_SUMMARY,
    card: k::TIME_SLICE_CARD,
    topology: Topology::Ring,
    kinds: KINDS,
    roles: &[LEADER_ROLE, FOLLOWER_ROLE, Role::new(WAITING, Look::Waiting, k::TIME_SLICE_ROLE_WAITING)],
    formulas: &[Formula::new("N", k::TIME_SLICE_FORMULA_1, &["TOKEN"], |n| n)],
    properties: &[single_leader(Faults::CrashStop)],
    presets: PRESETS,
    build: run::build::<TimeSlice>,
};

const WAITING: &str = "waiting";

const PRESETS: &[Preset] = &[Preset {
    id: "time-slice-ring",
    title: k::TIME_SLICE_PRESET_RING_TITLE,
    hint: k::TIME_SLICE_PRESET_RING_HINT,
    json: r#"{"algorithm":"time-slice","nodes":[80,6,12,5,32,4],"seed":425,"network":{"model":"rounds"}}"#,
    leaders: &[4],
    // Pins TimeSlice's trade-off: N = 6 TOKEN messages, N4 leads at round (4 − 1)·6 + 6 = 24.
    golden: "cdd40608961776ad",
}];

#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct State {
    pub me: NodeId,
    /// Whose token it has seen (its own, once sent), if any.
    pub leader: Option<NodeId>,
    /// Its own token came home.
    pub elected: bool,
}

#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum Msg {
    Token(NodeId),
}

kinds! {
    Msg;
    Msg::Token(_) => Kind::new("TOKEN", "T", Visual::Announcement, k::TIME_SLICE_KIND_TOKEN),
}

impl Message for Msg {
    fn label(&self) -> String {
        match self {
            Msg::Token(v) => format!("TOKEN({v})"),
        }
    }
}

timers! {
    Timer {
        /// The start of this node's own phase.
        Phase => "PHASE",
    }
}

type C<'a> = Ctx<'a, Msg, Timer>;

/// The round at which phase `id` begins on `n` nodes.
pub fn phase_start(id: NodeId, n: usize) -> Time {
    (id as Time).saturating_sub(1).saturating_mul(n as Time)
}

impl Protocol for TimeSlice {
    type State = State;
    type Msg = Msg;
    type Timer = Timer;
    const VIEW_FIELDS: &'static [&'static str] = &["leader"];

    fn new(_cfg: &Config, params: &Params) -> Result<Self, ScenarioError> {
        ParamReader::new(params, &[])?;
        Ok(TimeSlice)
    }

    fn init(&self, ctx: &mut C) -> State {
        ctx.set_timer_after(Timer::Phase, phase_start(ctx.me, ctx.cfg.n()));
        State { me: ctx.me, leader: None, elected: false }
    }

    fn start(&self, s: &mut State, ctx: &mut C) {
        let phase = phase_start(ctx.me, ctx.cfg.n());
        ctx.note(k::time_slice_note_start(ctx.me, phase));
        let _ = s;
    }

    fn on_message(&self, s: &mut State, _from: NodeId, msg: Msg, ctx: &mut C) {
        let Msg::Token(v) = msg;
        let me = ctx.me;
        if v == ctx.me {
            ctx.note(k::time_slice_note_home(me, ctx.now));
            s.elected = true;
            return;
        }
        if s.leader.is_some() {
            ctx.note(k::time_slice_note_again(me, v as u64));
            return;
        }
        let succ = ctx.cfg.successor(ctx.me);
        ctx.note(k::time_slice_note_relay(me, v, succ));
        s.leader = Some(v);
        ctx.cancel_timer(Timer::Phase);
        ctx.send(succ, Msg::Token(v));
    }

    fn on_timer(&self, s: &mut State, _timer: Timer, ctx: &mut C) {
        let succ = ctx.cfg.successor(ctx.me);
        ctx.note(k::time_slice_note_send(ctx.me, succ));
        s.leader = Some(ctx.me);
        if succ == ctx.me {
            s.elected = true;
        } else {
            ctx.send(succ, Msg::Token(ctx.me));
        }
    }

    fn recover(&self, _crashed: &State, ctx: &mut C) -> State {
        ctx.note(k::time_slice_note_recover(ctx.me));
        State { me: ctx.me, leader: None, elected: false }
    }

    fn view(&self, s: &State) -> View {
        let (role, leader) = match s.leader {
            _ if s.elected => (LEADER, Some(s.me)),
            Some(l) if l != s.me => (FOLLOWER, Some(l)),
            _ => (WAITING, None),
        };
        View { role, leader, ..View::default() }
    }

    fn inspect(&self, s: &State) -> Vec<Field> {
        vec![Field::new("elected", k::INSPECT_ELECTED, V::node(s.leader.filter(|&l| l != s.me || s.elected)))]
    }
}

#[cfg(all(test, holds = "graphs"))]
mod tests {
    use crate::protocols::testkit::{preset, run, sent};
    use crate::rng::Pcg32;
    use serde_json::json;

    #[test]
    fn exactly_n_messages_and_the_smallest_id_leads_after_its_phase() {
        let e = preset("time-slice-ring");
        assert_eq!(sent(&e, "TOKEN"), 6);
        assert_eq!(e.frame().agreement, Some(4));
        assert_eq!(e.now(), 24, "(4 − 1)·6 + 6 rounds");
        let mut r = Pcg32::new(35, 1);
        for _ in 0..200 {
            let n = r.range_inclusive(2, 40) as usize;
            let ids = crate::protocols::testkit::random_ids(&mut r, n, 3);
            let e = run(&json!({"algorithm": "time-slice", "nodes": ids, "network": {"model": "rounds"}}));
            let min = *ids.iter().min().unwrap();
            assert_eq!(sent(&e, "TOKEN"), n as u64, "{ids:?}");
            assert_eq!(e.frame().leaders, vec![min], "{ids:?}");
            assert_eq!(e.now(), super::phase_start(min, n) + n as u64, "{ids:?}");
        }
    }
}
