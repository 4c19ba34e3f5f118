//! Recorded runs: an election read from a real cluster's logs, replayed as it happened.
//!
//! A recorded run is a scenario of a *puppet* protocol ([`Puppet`]) whose `params` hold a script
//! made from the log lines by a mapping ([`super::events::mapping`], the shipped ones listed in
//! [`SOURCES`]) through the event format ([`super::events`]): per
//! member, timed events (became candidate at term 3, LOOKING, FOLLOWING, ...) and messages (kind,
//! sender, receiver, the times the two logs show). The puppet does exactly what the script says:
//! each event is a step at its logged time, each message is sent at its logged send time and
//! arrives at its logged receive time ([`crate::protocol::Ctx::send_timed`]); a member that
//! stopped logging is crashed by the scenario's schedule, and one that logged again recovers.
//! One tick is one real millisecond. Its [`View`] reports what the log said (role, term, leader,
//! vote, tally), so the split-brain and two-leaders-in-a-term monitors run on the real run, and
//! every step is narrated from the line that caused it.
//!
//! The event format's import uses [`Builder`]: records per member in, matched messages (a send in one log
//! and its receive in another become one arrow, the nearest in time with the same sender,
//! receiver, kind and term, as ShiViz does), crashes and the scenario JSON out, with a
//! [`Report`] of what was read, skipped and damaged.
//!
//! Recorded algorithms are not in [`super::ALGORITHMS`] (the picker, experiments and the generic
//! sweeps have nothing to do with them) but in [`super::RECORDED`]; [`SOURCES`] says which log
//! kind makes which recorded algorithm ([`systems`]: etcd's and ZooKeeper's puppets) and which
//! textbook algorithm replays it.

use crate::error::ScenarioError;
use crate::field::{Field, FieldValue as V};
use crate::meta::k;
use crate::meta::{Kind, Note, Text};
use crate::protocol::{Config, Ctx, Decoration, Message, MessageKind, Params, View};
use crate::scenario::MAX_LATENCY;
use crate::{NodeId, Time};
use serde_json::{json, Value};
use std::collections::BTreeMap;
use std::marker::PhantomData;

/// What a flavour of recorded run (etcd, ZooKeeper) declares: its kinds, its roles and the
/// narration of its events and messages.
pub trait Flavor: Clone + std::fmt::Debug + 'static {
    const KINDS: &'static [Kind];
    /// The role a member has before its first line.
    const INITIAL_ROLE: &'static str;
    /// Role names its events may set (each must be one of the algorithm's roles).
    const ROLES: &'static [&'static str];
    /// What the view's term counts, when it is not a Raft term.
    const TERM_WORD: Option<&'static Text>;
    /// The kind whose sending records a vote for its receiver (etcd's VOTE_GRANT).
    const VOTE_KIND: Option<usize>;
    /// Event narration, by the script's `say` key; `{0}` is the member, `{1}`, `{2}` the event's args.
    const SAYS: &'static [(&'static str, Text)];
    /// Narration of a send and of an arrival, per kind (same order as `KINDS`): `{0}` the
    /// member acting, `{1}` the other member, `{2}` the message's term or round.
    const SENT: &'static [Text];
    const GOT: &'static [Text];
    /// How a message's label reads: `REQUEST_VOTE(t3)`.
    fn label(kind: usize, term: u64, extra: u64) -> String;
}

/// One member of the real cluster.
#[derive(Clone, Debug, PartialEq, Hash)]
pub struct Member {
    pub node: NodeId,
    pub name: String,
    pub id: String,
    pub addr: String,
}

/// One timed event of one member: the fields it sets, and what to say.
#[derive(Clone, Debug, PartialEq, Default, Hash)]
pub struct Event {
    pub at: Time,
    pub node: NodeId,
    pub role: Option<String>,
    pub term: Option<u64>,
    /// The leader this member now knows (0: none).
    pub leader: Option<NodeId>,
    pub vote: Option<NodeId>,
    pub tally: Option<[u32; 2]>,
    pub zxid: Option<u64>,
    pub say: String,
    pub args: [u64; 2],
    /// Where the line is: `a.log:12`.
    pub line: String,
    /// The member is paused from here (`true`) or resumes (`false`): it keeps its state.
    pub paused: Option<bool>,
}

/// One message: sent at `sent` by `from`, received at `received` by `to`.
#[derive(Clone, Debug, PartialEq, Hash)]
pub struct Msg {
    pub from: NodeId,
    pub to: NodeId,
    pub kind: String,
    pub sent: Time,
    pub received: Time,
    pub term: u64,
    pub extra: u64,
    /// `clamped` (the receive was logged before the send), `no-receive`, `no-send`, or empty.
    pub flag: String,
    pub line: String,
}

/// The script: the `params` of a recorded run.
#[derive(Clone, Debug, PartialEq, Default, Hash)]
pub struct Script {
    pub members: Vec<Member>,
    pub events: Vec<Event>,
    pub messages: Vec<Msg>,
    /// The wall-clock time of tick 0 (ms since 1970).
    pub t0: u64,
}

/// Largest script accepted (events + messages): bounded memory for any input.
pub const MAX_SCRIPT: usize = 200_000;

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
enum Item {
    Event(u32),
    Send(u32),
}

/// The puppet protocol of flavour `F`.
pub struct Puppet<F: Flavor> {
    script: Script,
    /// Per node (scenario order): its agenda, sorted by time then script order.
    agenda: Vec<Vec<(Time, Item)>>,
    roles: Vec<Option<&'static str>>,
    says: Vec<&'static Text>,
    kinds: Vec<usize>,
    _f: PhantomData<F>,
}

/// A member's state: what its log said last.
#[derive(Clone, Debug, PartialEq, Hash)]
pub struct St {
    me: NodeId,
    idx: usize,
    role: &'static str,
    term: u64,
    leader: Option<NodeId>,
    vote: Option<NodeId>,
    tally: Option<(u32, u32)>,
    zxid: Option<u64>,
    /// The next agenda item.
    next: usize,
    line: String,
    /// Paused since this tick (it keeps its state and does nothing until it resumes).
    paused: Option<Time>,
}

/// A recorded message.
#[derive(Clone, Debug)]
pub struct Rec<F> {
    kind: usize,
    term: u64,
    extra: u64,
    flag: u8,
    _f: PhantomData<F>,
}

// By hand: a derive would ask the flavour marker `F` to be `Hash` too.
impl<F> std::hash::Hash for Rec<F> {
    fn hash<H: std::hash::Hasher>(&self, h: &mut H) {
        (self.kind, self.term, self.extra, self.flag).hash(h);
    }
}

impl<F: Flavor> MessageKind for Rec<F> {
    fn kind(&self) -> usize {
        self.kind
    }
}

impl<F: Flavor> Message for Rec<F> {
    fn label(&self) -> String {
        F::label(self.kind, self.term, self.extra)
    }
}

timers! {
    Timer {
        /// The member's next log line.
        Next => "log line",
    }
}

const FLAGS: &[&str] = &["", "clamped", "no-receive", "no-send"];
/// Narration of a pause, a resume and a link's loss and return, whatever the flavour (a resume of
/// a member that believes it leads is told as a stale leader's).
const PAUSE_SAYS: &[(&str, Text)] = &[
    ("paused", k::RECORDED_NOTE_PAUSED),
    ("resumed", k::RECORDED_NOTE_RESUMED),
    ("link-lost", k::RECORDED_NOTE_LINK_LOST),
    ("link-restored", k::RECORDED_NOTE_LINK_RESTORED),
];
static FLAG_NOTES: [Text; 3] =
    [k::RECORDED_ITS_RECEIVERS_LOG_SHOWS_IT, k::RECORDED_NO_LOG_LINE_SHOWS_IT, k::RECORDED_NO_LOG_LINE_SHOWS_IT_2];

impl<F: Flavor> Puppet<F> {
    fn check(cfg: &Config, script: Script) -> Result<Self, ScenarioError> {
        if script.events.len() + script.messages.len() > MAX_SCRIPT {
            return Err(ScenarioError::new("params.events", format!("more than {MAX_SCRIPT} events and messages")));
        }
        let known = |id: NodeId, path: String| -> Result<usize, ScenarioError> {
            cfg.position(id).ok_or_else(|| ScenarioError::new(path, format!("unknown node {id}")))
        };
        for (k, m) in script.members.iter().enumerate() {
            known(m.node, format!("params.members[{k}].node"))?;
        }
        let mut agenda: Vec<Vec<(Time, Item)>> = vec![Vec::new(); cfg.n()];
        let mut roles = Vec::with_capacity(script.events.len());
        let mut says = Vec::with_capacity(script.events.len());
        for (k, e) in script.events.iter().enumerate() {
            let i = known(e.node, format!("params.events[{k}].node"))?;
            let role = match &e.role {
                None => None,
                Some(r) => Some(*F::ROLES.iter().find(|x| **x == r.as_str()).ok_or_else(|| {
                    ScenarioError::new(
                        format!("params.events[{k}].role"),
                        format!("unknown role '{r}' (expected one of: {})", F::ROLES.join(", ")),
                    )
                })?),
            };
            if let Some(l) = e.leader.filter(|&l| l != 0) {
                known(l, format!("params.events[{k}].leader"))?;
            }
            if let Some(v) = e.vote.filter(|&v| v != 0) {
                known(v, format!("params.events[{k}].vote"))?;
            }
            let say =
                F::SAYS.iter().chain(PAUSE_SAYS).find(|(key, _)| *key == e.say).map(|(_, t)| t).ok_or_else(|| {
                    let keys: Vec<&str> = F::SAYS.iter().chain(PAUSE_SAYS).map(|(k, _)| *k).collect();
                    ScenarioError::new(
                        format!("params.events[{k}].say"),
                        format!("unknown event '{}' (expected one of: {})", e.say, keys.join(", ")),
                    )
                })?;
            roles.push(role);
            says.push(say);
            agenda[i].push((e.at, Item::Event(k as u32)));
        }
        let mut kinds = Vec::with_capacity(script.messages.len());
        for (k, m) in script.messages.iter().enumerate() {
            let i = known(m.from, format!("params.messages[{k}].from"))?;
            known(m.to, format!("params.messages[{k}].to"))?;
            if m.from == m.to {
                return Err(ScenarioError::new(format!("params.messages[{k}].to"), "a message to its own sender"));
            }
            let kind = F::KINDS.iter().position(|x| x.name == m.kind).ok_or_else(|| {
                let names: Vec<&str> = F::KINDS.iter().map(|x| x.name).collect();
                ScenarioError::new(
                    format!("params.messages[{k}].kind"),
                    format!("unknown kind '{}' (expected one of: {})", m.kind, names.join(", ")),
                )
            })?;
            if m.received <= m.sent {
                return Err(ScenarioError::new(
                    format!("params.messages[{k}].received"),
                    format!("{} is not after the send at {}", m.received, m.sent),
                ));
            }
            if m.received - m.sent > MAX_LATENCY {
                return Err(ScenarioError::new(
                    format!("params.messages[{k}].received"),
                    format!(
                        "{} is {} ticks after the send at {}: more than the {MAX_LATENCY} a message may take",
                        m.received,
                        m.received - m.sent,
                        m.sent
                    ),
                ));
            }
            if !FLAGS.contains(&m.flag.as_str()) {
                return Err(ScenarioError::new(
                    format!("params.messages[{k}].flag"),
                    format!("unknown flag '{}' (expected clamped, no-receive, no-send or none)", m.flag),
                ));
            }
            kinds.push(kind);
            agenda[i].push((m.sent, Item::Send(k as u32)));
        }
        for a in &mut agenda {
            // Stable: equal times keep script order (events before sends of the same line).
            crate::sort::sort_by_key(a, |&(t, item)| (t, matches!(item, Item::Send(_))));
        }
        Ok(Puppet { script, agenda, roles, says, kinds, _f: PhantomData })
    }

    pub fn new(cfg: &Config, params: &Params) -> Result<Self, ScenarioError> {
        // The script is data an importer wrote, not a hand-set parameter (see recorded/script.rs).
        let script = Script::read(params)?;
        Self::check(cfg, script)
    }

    /// Arms the timer for the first agenda item at or after now.
    fn arm(&self, s: &mut St, ctx: &mut Ctx<Rec<F>, Timer>) {
        let agenda = &self.agenda[s.idx];
        while s.next < agenda.len() && agenda[s.next].0 < ctx.now {
            s.next += 1;
        }
        if let Some(&(at, _)) = agenda.get(s.next) {
            ctx.set_timer_after(Timer::Next, at - ctx.now);
        }
    }

    pub fn init(&self, ctx: &mut Ctx<Rec<F>, Timer>) -> St {
        let idx = ctx.cfg.position(ctx.me).expect("a node of the run");
        let mut s = St {
            me: ctx.me,
            idx,
            role: F::INITIAL_ROLE,
            term: 0,
            leader: None,
            vote: None,
            tally: None,
            zxid: None,
            next: 0,
            line: String::new(),
            paused: None,
        };
        self.arm(&mut s, ctx);
        s
    }

    pub fn on_timer(&self, s: &mut St, ctx: &mut Ctx<Rec<F>, Timer>) {
        let Some(&(_, item)) = self.agenda[s.idx].get(s.next) else { return };
        s.next += 1;
        let me = ctx.me as u64;
        match item {
            Item::Event(k) => {
                let e = &self.script.events[k as usize];
                if let Some(r) = self.roles[k as usize] {
                    s.role = r;
                }
                if let Some(t) = e.term {
                    s.term = t;
                }
                if let Some(l) = e.leader {
                    s.leader = (l != 0).then_some(l);
                }
                if let Some(v) = e.vote {
                    s.vote = (v != 0).then_some(v);
                }
                if let Some([a, b]) = e.tally {
                    s.tally = Some((a, b));
                }
                if let Some(z) = e.zxid {
                    s.zxid = Some(z);
                }
                s.line = e.line.clone();
                let mut say = *self.says[k as usize];
                let mut args = [me, e.args[0], e.args[1]];
                match e.paused {
                    Some(true) => s.paused = Some(ctx.now),
                    Some(false) => {
                        args = [me, ctx.now - s.paused.take().unwrap_or(ctx.now), s.term];
                        if s.role == crate::protocol::LEADER || s.role == crate::protocol::LEADING {
                            // It wakes believing it still leads: a stale leader until told otherwise.
                            say = k::RECORDED_NOTE_RESUMED_STALE_LEADER;
                        }
                    }
                    None => {}
                }
                ctx.note(said(say, &args));
            }
            Item::Send(k) => {
                let m = &self.script.messages[k as usize];
                let kind = self.kinds[k as usize];
                let flag = FLAGS.iter().position(|f| *f == m.flag).unwrap_or(0) as u8;
                let msg = Rec { kind, term: m.term, extra: m.extra, flag, _f: PhantomData };
                ctx.send_timed(m.to, msg, m.received - m.sent);
                if F::VOTE_KIND == Some(kind) {
                    s.vote = Some(m.to);
                }
                ctx.note(said(F::SENT[kind], &[me, m.to as u64, m.term]));
                if flag == 3 {
                    ctx.note(said(FLAG_NOTES[2], &[]));
                }
            }
        }
        self.arm(s, ctx);
    }

    pub fn on_message(&self, from: NodeId, msg: &Rec<F>, ctx: &mut Ctx<Rec<F>, Timer>) {
        ctx.note(said(F::GOT[msg.kind], &[ctx.me as u64, from as u64, msg.term]));
        if msg.flag == 1 || msg.flag == 2 {
            ctx.note(said(FLAG_NOTES[msg.flag as usize - 1], &[]));
        }
    }

    pub fn recover(&self, crashed: &St, ctx: &mut Ctx<Rec<F>, Timer>) -> St {
        let mut s = crashed.clone();
        s.tally = None;
        self.arm(&mut s, ctx);
        s
    }

    pub fn view(&self, s: &St) -> View {
        View {
            role: s.role,
            leader: s.leader,
            term: Some(s.term),
            term_word: F::TERM_WORD,
            vote: s.vote,
            tally: s.tally,
            paused: s.paused.is_some(),
            ..View::default()
        }
        .with(s.zxid.map(Decoration::Zxid))
    }

    pub fn inspect(&self, s: &St) -> Vec<Field> {
        let mut out = Vec::new();
        if let Some(m) = self.script.members.iter().find(|m| m.node == s.me) {
            for (id, key, value) in [
                ("name", k::INSPECT_NAME, &m.name),
                ("member_id", k::INSPECT_MEMBER_ID, &m.id),
                ("address", k::INSPECT_ADDRESS, &m.addr),
            ] {
                if !value.is_empty() {
                    out.push(Field::new(id, key, V::Text(value.clone())));
                }
            }
        }
        out.push(Field::new("role", k::INSPECT_ROLE, V::text(s.role.to_string())));
        out.push(Field::new("term", k::INSPECT_TERM, V::num(s.term)));
        out.push(Field::new("leader", k::UI_LEADER, V::node(s.leader)));
        if let Some(at) = s.paused {
            out.push(Field::new("paused_since", k::INSPECT_PAUSED_SINCE, V::worded(at, format!("{at} ms"))));
        }
        if !s.line.is_empty() {
            out.push(Field::new("log_line", k::INSPECT_LOG_LINE, V::Text(s.line.clone())));
        }
        out
    }

    /// The script this run plays.
    pub fn script(&self) -> &Script {
        &self.script
    }
}

/// Implements [`crate::protocol::Protocol`] for a puppet flavour (the trait's constants must be
/// concrete per type).
macro_rules! puppet_protocol {
    ($ty:ident, $flavor:ty) => {
        pub struct $ty(pub $crate::protocols::recorded::Puppet<$flavor>);
        impl $crate::protocol::Protocol for $ty {
            type State = $crate::protocols::recorded::St;
            type Msg = $crate::protocols::recorded::Rec<$flavor>;
            type Timer = $crate::protocols::recorded::Timer;
            const VIEW_FIELDS: &'static [&'static str] = &["leader", "term", "vote", "votes", "zxid"];
            const KINDS: &'static [$crate::meta::Kind] = <$flavor as $crate::protocols::recorded::Flavor>::KINDS;
            fn new(
                cfg: &$crate::protocol::Config,
                params: &$crate::protocol::Params,
            ) -> Result<Self, $crate::error::ScenarioError> {
                Ok($ty($crate::protocols::recorded::Puppet::new(cfg, params)?))
            }
            fn init(&self, ctx: &mut $crate::protocol::Ctx<Self::Msg, Self::Timer>) -> Self::State {
                self.0.init(ctx)
            }
            fn start(&self, _s: &mut Self::State, ctx: &mut $crate::protocol::Ctx<Self::Msg, Self::Timer>) {
                ctx.note($crate::protocols::recorded::no_start(ctx.me));
            }
            fn on_message(
                &self,
                _s: &mut Self::State,
                from: $crate::NodeId,
                msg: Self::Msg,
                ctx: &mut $crate::protocol::Ctx<Self::Msg, Self::Timer>,
            ) {
                self.0.on_message(from, &msg, ctx)
            }
            fn on_timer(
                &self,
                s: &mut Self::State,
                _t: Self::Timer,
                ctx: &mut $crate::protocol::Ctx<Self::Msg, Self::Timer>,
            ) {
                self.0.on_timer(s, ctx)
            }
            fn recover(
                &self,
                crashed: &Self::State,
                ctx: &mut $crate::protocol::Ctx<Self::Msg, Self::Timer>,
            ) -> Self::State {
                self.0.recover(crashed, ctx)
            }
            fn view(&self, s: &Self::State) -> $crate::protocol::View {
                self.0.view(s)
            }
            fn inspect(&self, s: &Self::State) -> Vec<$crate::field::Field> {
                self.0.inspect(s)
            }
        }
    };
}

/// A note of a recorded run: its text is chosen by the log's data at run time (the message's
/// kind, the event's line), so it is built untyped; the texts' arguments are the tables'.
#[allow(clippy::disallowed_methods)]
fn said(text: Text, args: &[u64]) -> Note {
    Note::untyped(text, args)
}

/// Narration of a `start` on a recorded run: nothing happens, the log decides.
pub fn no_start(me: NodeId) -> Note {
    k::recorded_member_0_is_a_recorded(me as u64)
}

mod import;
pub mod partition;
pub mod pause;
mod script;
mod sources;
pub mod systems;
pub use import::*;
pub use pause::member_nodes;
pub use sources::*;
