//! Recorded runs: an election read from a real cluster's logs, replayed as it happened.
//!
//! A recorded run is a scenario of a *puppet* protocol ([`Puppet`]) whose `params` hold a script
//! made by an importer ([`super::etcd_log`], [`super::zookeeper_log`]) from the log lines: per
//! member, timed events (became candidate at term 3, LOOKING, FOLLOWING, ...) and messages (kind,
//! sender, receiver, the times the two logs show). The puppet does exactly what the script says:
//! each event is a step at its logged time, each message is sent at its logged send time and
//! arrives at its logged receive time ([`crate::protocol::Ctx::send_timed`]); a member that
//! stopped logging is crashed by the scenario's schedule, and one that logged again recovers.
//! One tick is one real millisecond. Its [`View`] reports what the log said (role, term, leader,
//! vote, tally), so the split-brain and two-leaders-in-a-term monitors run on the real run, and
//! every step is narrated from the line that caused it.
//!
//! The importers share [`Builder`]: records per member in, matched messages (a send in one log
//! and its receive in another become one arrow, the nearest in time with the same sender,
//! receiver, kind and term, as ShiViz does), crashes and the scenario JSON out, with a
//! [`Report`] of what was read, skipped and damaged.
//!
//! Recorded algorithms are not in [`super::ALGORITHMS`] (the picker, experiments and the generic
//! sweeps have nothing to do with them) but in [`super::RECORDED`]; [`SOURCES`] says which log
//! kind makes which recorded algorithm and which textbook algorithm replays it.

use crate::error::ScenarioError;
use crate::meta::k;
use crate::meta::{Kind, Text};
use crate::protocol::{Config, Ctx, Message, MessageKind, Params, TimerKey, View};
use crate::{NodeId, Time};
use serde::Deserialize;
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
#[derive(Clone, Debug, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct Member {
    pub node: NodeId,
    #[serde(default)]
    pub name: String,
    #[serde(default)]
    pub id: String,
    #[serde(default)]
    pub addr: String,
}

/// One timed event of one member: the fields it sets, and what to say.
#[derive(Clone, Debug, Deserialize, PartialEq, Default)]
#[serde(deny_unknown_fields)]
pub struct Event {
    pub at: Time,
    pub node: NodeId,
    #[serde(default)]
    pub role: Option<String>,
    #[serde(default)]
    pub term: Option<u64>,
    /// The leader this member now knows (0: none).
    #[serde(default)]
    pub leader: Option<NodeId>,
    #[serde(default)]
    pub vote: Option<NodeId>,
    #[serde(default)]
    pub tally: Option<[u32; 2]>,
    #[serde(default)]
    pub zxid: Option<u64>,
    pub say: String,
    #[serde(default)]
    pub args: [u64; 2],
    /// Where the line is: `a.log:12`.
    #[serde(default)]
    pub line: String,
}

/// One message: sent at `sent` by `from`, received at `received` by `to`.
#[derive(Clone, Debug, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct Msg {
    pub from: NodeId,
    pub to: NodeId,
    pub kind: String,
    pub sent: Time,
    pub received: Time,
    #[serde(default)]
    pub term: u64,
    #[serde(default)]
    pub extra: u64,
    /// `clamped` (the receive was logged before the send), `no-receive`, `no-send`, or empty.
    #[serde(default)]
    pub flag: String,
    #[serde(default)]
    pub line: String,
}

/// The script: the `params` of a recorded run.
#[derive(Clone, Debug, Deserialize, PartialEq, Default)]
#[serde(deny_unknown_fields)]
pub struct Script {
    #[serde(default)]
    pub members: Vec<Member>,
    #[serde(default)]
    pub events: Vec<Event>,
    #[serde(default)]
    pub messages: Vec<Msg>,
    /// The wall-clock time of tick 0 (ms since 1970).
    #[serde(default)]
    pub t0: u64,
}

/// Largest script accepted (events + messages): bounded memory for any input.
pub const MAX_SCRIPT: usize = 200_000;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
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
#[derive(Clone, Debug, PartialEq)]
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

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Timer {
    /// The member's next log line.
    Next,
}

impl TimerKey for Timer {
    fn name(&self) -> &'static str {
        "log line"
    }
}

const FLAGS: &[&str] = &["", "clamped", "no-receive", "no-send"];
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
            let say = F::SAYS.iter().find(|(key, _)| *key == e.say).map(|(_, t)| t).ok_or_else(|| {
                let keys: Vec<&str> = F::SAYS.iter().map(|(k, _)| *k).collect();
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
            a.sort_by_key(|&(t, item)| (t, matches!(item, Item::Send(_))));
        }
        Ok(Puppet { script, agenda, roles, says, kinds, _f: PhantomData })
    }

    pub fn new(cfg: &Config, params: &Params) -> Result<Self, ScenarioError> {
        // The script is data an importer wrote, not a hand-set parameter: serde reads it, naming
        // the field at fault (the other protocols read their few parameters by hand).
        let value = serde_json::Value::Object(params.clone());
        let script: Script =
            serde_path_to_error::deserialize(&value).map_err(|e| crate::error::path_error(e, "params"))?;
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
                ctx.note(self.says[k as usize], &[me, e.args[0], e.args[1]]);
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
                ctx.note(&F::SENT[kind], &[me, m.to as u64, m.term]);
                if flag == 3 {
                    ctx.note(&FLAG_NOTES[2], &[]);
                }
            }
        }
        self.arm(s, ctx);
    }

    pub fn on_message(&self, from: NodeId, msg: &Rec<F>, ctx: &mut Ctx<Rec<F>, Timer>) {
        ctx.note(&F::GOT[msg.kind], &[ctx.me as u64, from as u64, msg.term]);
        if msg.flag == 1 || msg.flag == 2 {
            ctx.note(&FLAG_NOTES[msg.flag as usize - 1], &[]);
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
            zxid: s.zxid,
            ..View::default()
        }
    }

    pub fn inspect(&self, s: &St) -> Vec<(Text, String)> {
        let mut out = Vec::new();
        if let Some(m) = self.script.members.iter().find(|m| m.node == s.me) {
            for (key, value) in
                [(k::INSPECT_NAME, &m.name), (k::INSPECT_MEMBER_ID, &m.id), (k::INSPECT_ADDRESS, &m.addr)]
            {
                if !value.is_empty() {
                    out.push((key, value.clone()));
                }
            }
        }
        out.push((k::INSPECT_ROLE, s.role.to_string()));
        out.push((k::INSPECT_TERM, s.term.to_string()));
        out.push((k::UI_LEADER, crate::protocol::fmt_node(s.leader)));
        if !s.line.is_empty() {
            out.push((k::INSPECT_LOG_LINE, s.line.clone()));
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
                ctx.note(&$crate::protocols::recorded::NO_START, &[ctx.me as u64]);
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
            fn inspect(&self, s: &Self::State) -> Vec<(Text, String)> {
                self.0.inspect(s)
            }
        }
    };
}
pub(crate) use puppet_protocol;

/// Narration of a `start` on a recorded run: nothing happens, the log decides.
pub static NO_START: Text = k::RECORDED_MEMBER_0_IS_A_RECORDED;

// ------------------------------------------------------------------------------------------
// Importing: what the log parsers produce, and how it becomes a scenario.
// ------------------------------------------------------------------------------------------

/// One log file (or one merged log): its name for messages, and its text.
#[derive(Clone, Copy, Debug)]
pub struct LogFile<'a> {
    pub name: &'a str,
    pub text: &'a str,
}

/// What an import read.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Report {
    /// Per file: (name, lines read, election lines used).
    pub files: Vec<(String, usize, usize)>,
    /// Lines that are not about elections.
    pub skipped: usize,
    /// Damaged or unknown election lines: `a.log:12: why`.
    pub damaged: Vec<String>,
    /// Messages matched send → receive, sent with no receive seen, received with no send seen.
    pub matched: usize,
    pub no_receive: usize,
    pub no_send: usize,
    /// Receives logged before their sends (clock skew), clamped to 1 ms after the send.
    pub clamped: usize,
    /// Members and what became of them (crash / recover times), for the summary.
    pub faults: Vec<String>,
    /// Notes on precision (one-second timestamps, ...).
    pub notes: Vec<String>,
}

impl Report {
    pub fn text(&self) -> String {
        let mut out = String::new();
        for (name, lines, used) in &self.files {
            out.push_str(&format!("{name}: {lines} lines read, {used} about the election\n"));
        }
        out.push_str(&format!("{} lines skipped (not about the election)\n", self.skipped));
        out.push_str(&format!(
            "messages: {} matched send → receive, {} with no receive in the logs, {} with no send in the logs, {} receives logged before their send (clamped to 1 ms after it)\n",
            self.matched, self.no_receive, self.no_send, self.clamped
        ));
        for f in &self.faults {
            out.push_str(&format!("fault: {f}\n"));
        }
        for n in &self.notes {
            out.push_str(&format!("note: {n}\n"));
        }
        out.push_str(&format!("{} damaged or unknown lines\n", self.damaged.len()));
        for d in self.damaged.iter().take(50) {
            out.push_str(&format!("  {d}\n"));
        }
        if self.damaged.len() > 50 {
            out.push_str(&format!("  ... and {} more\n", self.damaged.len() - 50));
        }
        out
    }
}

/// An imported run: the recorded scenario (JSON) and the report.
#[derive(Clone, Debug)]
pub struct Imported {
    pub scenario: Value,
    pub report: Report,
}

/// A member as the logs name it (etcd: a 16-hex-digit id; ZooKeeper: its myid).
pub type Key = String;

/// What one election line says.
#[derive(Clone, Debug, PartialEq)]
pub enum What {
    /// The member's state changes (fields as in [`Event`]; leader/vote as keys).
    State {
        role: Option<&'static str>,
        term: Option<u64>,
        leader: Option<Option<Key>>,
        vote: Option<Option<Key>>,
        tally: Option<[u32; 2]>,
        zxid: Option<u64>,
        say: &'static str,
        args: [u64; 2],
        /// Args that name members (by key), filled in as node numbers: (arg index, key).
        arg_member: Option<(usize, Key)>,
    },
    Send {
        to: Key,
        kind: &'static str,
        term: u64,
        extra: u64,
    },
    Recv {
        from: Key,
        kind: &'static str,
        term: u64,
        extra: u64,
    },
    /// A peer became unreachable / reachable again, as this member saw it.
    PeerDown(Key),
    PeerUp(Key),
    /// The process (re)started.
    Started,
}

/// One election line, parsed.
#[derive(Clone, Debug)]
pub struct Line {
    /// Milliseconds since 1970.
    pub t: u64,
    pub member: Key,
    pub file: usize,
    pub line: usize,
    pub what: What,
}

/// Facts about a member read from lines that are not election events.
#[derive(Clone, Debug, Default)]
pub struct MemberInfo {
    pub name: String,
    pub addr: String,
    /// Last line of any kind (ms), and first.
    pub first: u64,
    pub last: u64,
}

/// Collects parsed lines and builds the scenario.
pub struct Builder<'a> {
    pub files: &'a [LogFile<'a>],
    pub lines: Vec<Line>,
    pub members: BTreeMap<Key, MemberInfo>,
    pub report: Report,
    /// `heartbeats` for the scenario (the real interval and election timeout, when logged).
    pub heartbeats: Option<(Time, Time)>,
    /// The earliest timestamp of any line (tick 0).
    pub t_min: u64,
}

/// Ticks (ms) a run goes on after the last log line, for the model to finish its election.
pub const MODEL_MARGIN: Time = 10_000;

/// Largest input accepted, in bytes, and longest line.
pub const MAX_INPUT: usize = 64 << 20;
pub const MAX_LINE: usize = 64 << 10;

impl<'a> Builder<'a> {
    pub fn new(files: &'a [LogFile<'a>]) -> Result<Self, String> {
        if files.is_empty() {
            return Err("no log files given".into());
        }
        let total: usize = files.iter().map(|f| f.text.len()).sum();
        if total > MAX_INPUT {
            return Err(format!("the logs are {total} bytes; at most {MAX_INPUT} are read"));
        }
        Ok(Builder {
            files,
            lines: Vec::new(),
            members: BTreeMap::new(),
            report: Report::default(),
            heartbeats: None,
            t_min: u64::MAX,
        })
    }

    /// Notes a timestamp read anywhere (the earliest is tick 0).
    pub fn clock(&mut self, t: u64) {
        self.t_min = self.t_min.min(t);
    }

    /// Notes that member `key` logged something at `t` (any line).
    pub fn seen(&mut self, key: &str, t: u64) {
        let m = self.members.entry(key.to_string()).or_insert_with(|| MemberInfo {
            first: t,
            last: t,
            ..Default::default()
        });
        m.first = m.first.min(t);
        m.last = m.last.max(t);
    }

    pub fn damaged(&mut self, file: usize, line: usize, why: impl std::fmt::Display) {
        self.report.damaged.push(format!("{}:{}: {why}", self.files[file].name, line));
    }

    /// Orders members into node numbers: `number` gives a member's own number when it has one
    /// (ZooKeeper's myid), else members are numbered 1.. in the order of `order_key`.
    /// `cuts`: whether a lost connection to a member that went on logging becomes a cut link
    /// (etcd's rafthttp reports both loss and recovery; ZooKeeper logs no recovery).
    pub fn finish(
        mut self,
        algorithm: &str,
        cuts: bool,
        number: impl Fn(&Key, &MemberInfo) -> Option<NodeId>,
    ) -> Result<Imported, String> {
        if self.members.is_empty() || self.lines.is_empty() {
            let mut why = String::from("no election lines found in the logs");
            if let Some(d) = self.report.damaged.first() {
                why.push_str(&format!(" (first damaged line: {d})"));
            }
            return Err(why);
        }
        // Members named only as peers (never logging) are members too.
        let mut peers: Vec<Key> = Vec::new();
        for l in &self.lines {
            match &l.what {
                What::Send { to: k, .. } | What::Recv { from: k, .. } | What::PeerDown(k) | What::PeerUp(k) => {
                    peers.push(k.clone())
                }
                _ => {}
            }
        }
        for k in peers {
            self.members.entry(k).or_insert_with(|| MemberInfo { first: u64::MAX, last: 0, ..Default::default() });
        }
        if self.members.len() > 64 {
            return Err(format!("{} members found; at most 64 are drawn", self.members.len()));
        }
        // Node numbers.
        let mut nodes: BTreeMap<Key, NodeId> = BTreeMap::new();
        let mut own: Vec<(Key, NodeId)> =
            self.members.iter().filter_map(|(k, m)| number(k, m).map(|n| (k.clone(), n))).collect();
        own.sort_by_key(|x| x.1);
        if own.len() == self.members.len() && own.windows(2).all(|w| w[0].1 != w[1].1) && own.iter().all(|x| x.1 > 0) {
            nodes.extend(own);
        } else {
            let mut keys: Vec<(&Key, &MemberInfo)> = self.members.iter().collect();
            keys.sort_by(|a, b| (a.1.name.is_empty(), &a.1.name, a.0).cmp(&(b.1.name.is_empty(), &b.1.name, b.0)));
            for (n, (k, _)) in keys.into_iter().enumerate() {
                nodes.insert(k.clone(), n as NodeId + 1);
            }
        }
        let node = |k: &Key| nodes[k];
        let t0 = self
            .lines
            .iter()
            .map(|l| l.t)
            .chain(self.members.values().filter(|m| m.first != u64::MAX).map(|m| m.first))
            .chain([self.t_min])
            .min()
            .unwrap_or(0);
        let rel = |t: u64| t.saturating_sub(t0);

        // Matching sends and receives: by (from, to, kind, term), nearest in time.
        type SendKey<'k> = (NodeId, NodeId, &'k str, u64, u64);
        let mut sends: BTreeMap<SendKey, Vec<(u64, usize, bool)>> = BTreeMap::new();
        for (k, l) in self.lines.iter().enumerate() {
            if let What::Send { to, kind, term, extra } = &l.what {
                let from = node(&l.member);
                let to = node(to);
                if from != to {
                    sends.entry((from, to, kind, *term, *extra)).or_default().push((l.t, k, false));
                }
            }
        }
        let mut pairs: Vec<(Option<usize>, Option<usize>)> = Vec::new();
        for (k, l) in self.lines.iter().enumerate() {
            if let What::Recv { from, kind, term, extra } = &l.what {
                let from = node(from);
                let to = node(&l.member);
                if from == to {
                    continue;
                }
                let best = sends.get_mut(&(from, to, kind, *term, *extra)).and_then(|list| {
                    // The latest unmatched send at or before the receive, else the nearest after.
                    let before = list
                        .iter()
                        .enumerate()
                        .filter(|(_, s)| !s.2 && s.0 <= l.t)
                        .max_by_key(|(_, s)| s.0)
                        .map(|(i, _)| i);
                    let pick = before.or_else(|| {
                        list.iter()
                            .enumerate()
                            .filter(|(_, s)| !s.2)
                            .min_by_key(|(_, s)| s.0.abs_diff(l.t))
                            .map(|(i, _)| i)
                    });
                    pick.map(|i| {
                        list[i].2 = true;
                        list[i].1
                    })
                });
                pairs.push((best, Some(k)));
            }
        }
        for list in sends.values() {
            for s in list.iter().filter(|s| !s.2) {
                pairs.push((Some(s.1), None));
            }
        }
        // A typical delay: the median of the matched ones (at least 1 ms).
        let mut delays: Vec<u64> = pairs
            .iter()
            .filter_map(|p| match p {
                (Some(s), Some(r)) => Some(self.lines[*r].t.saturating_sub(self.lines[*s].t)),
                _ => None,
            })
            .collect();
        delays.sort_unstable();
        let typical = delays.get(delays.len() / 2).copied().unwrap_or(1).max(1);
        let mut lo_hi = (u64::MAX, 0u64);
        let mut messages = Vec::new();
        for (s, r) in &pairs {
            let (from, to, kind, term, extra, sent, mut received, mut flag, line) = match (s, r) {
                (Some(s), r) => {
                    let l = &self.lines[*s];
                    let What::Send { to, kind, term, extra } = &l.what else { unreachable!() };
                    let (received, flag) = match r {
                        Some(r) => (rel(self.lines[*r].t), ""),
                        None => (rel(l.t) + typical, "no-receive"),
                    };
                    let at = format!("{}:{}", self.files[l.file].name, l.line);
                    (node(&l.member), node(to), *kind, *term, *extra, rel(l.t), received, flag, at)
                }
                (None, Some(r)) => {
                    let l = &self.lines[*r];
                    let What::Recv { from, kind, term, extra } = &l.what else { unreachable!() };
                    let received = rel(l.t);
                    let at = format!("{}:{}", self.files[l.file].name, l.line);
                    (
                        node(from),
                        node(&l.member),
                        *kind,
                        *term,
                        *extra,
                        received.saturating_sub(typical),
                        received,
                        "no-send",
                        at,
                    )
                }
                (None, None) => continue,
            };
            if received <= sent {
                if received < sent {
                    flag = "clamped";
                    self.report.clamped += 1;
                }
                received = sent + 1;
            }
            match flag {
                "no-receive" => self.report.no_receive += 1,
                "no-send" => self.report.no_send += 1,
                _ => {
                    self.report.matched += 1;
                    lo_hi = (lo_hi.0.min(received - sent), lo_hi.1.max(received - sent));
                }
            }
            messages.push(json!({"from": from, "to": to, "kind": kind, "sent": sent, "received": received,
                                 "term": term, "extra": extra, "flag": flag, "line": line}));
        }
        messages.sort_by_key(|m| {
            let n = |k: &str| m[k].as_u64();
            (
                n("sent"),
                n("from"),
                n("to"),
                n("received"),
                m["kind"].as_str().map(str::to_string),
                n("term"),
                n("extra"),
            )
        });

        // Events.
        let mut events = Vec::new();
        let mut state_lines: BTreeMap<NodeId, Vec<u64>> = BTreeMap::new();
        for l in &self.lines {
            let n = node(&l.member);
            state_lines.entry(n).or_default().push(rel(l.t));
            let What::State { role, term, leader, vote, tally, zxid, say, args, arg_member } = &l.what else {
                continue;
            };
            let mut args = *args;
            if let Some((i, k)) = arg_member {
                args[*i] = nodes.get(k).copied().unwrap_or(0) as u64;
            }
            let mut e = json!({"at": rel(l.t), "node": n, "say": say, "args": args,
                               "line": format!("{}:{}", self.files[l.file].name, l.line)});
            if let Some(r) = role {
                e["role"] = json!(r);
            }
            if let Some(t) = term {
                e["term"] = json!(t);
            }
            if let Some(x) = leader {
                e["leader"] = json!(x.as_ref().and_then(|k| nodes.get(k)).copied().unwrap_or(0));
            }
            if let Some(x) = vote {
                e["vote"] = json!(x.as_ref().and_then(|k| nodes.get(k)).copied().unwrap_or(0));
            }
            if let Some([held, needed]) = tally {
                // A log that counts votes without naming the quorum: a majority of the members.
                let needed = if *needed == 0 { (nodes.len() / 2 + 1) as u32 } else { *needed };
                e["tally"] = json!([held, needed]);
            }
            if let Some(z) = zxid {
                e["zxid"] = json!(z);
            }
            events.push(e);
        }
        // A total order that does not depend on the order the files were given in.
        events.sort_by_key(|e| (e["at"].as_u64(), e["node"].as_u64(), e["line"].as_str().map(line_number)));

        // Faults: a member that stopped logging while another saw it go is crashed 1 ms after its
        // last line; one that logs again (a restart) recovers at its first line after that.
        let mut schedule = Vec::new();
        let end = self.lines.iter().map(|l| l.t).max().unwrap_or(t0);
        for (k, m) in &self.members {
            let n = node(k);
            let mut times: Vec<u64> = self.lines.iter().filter(|l| &l.member == k).map(|l| l.t).collect();
            times.sort_unstable();
            let starts: Vec<u64> =
                self.lines.iter().filter(|l| &l.member == k && matches!(l.what, What::Started)).map(|l| l.t).collect();
            // Restarts: a start line after earlier lines = crashed after the line before it.
            for &s in starts.iter().skip_while(|&&s| Some(&s) == times.first()) {
                let before = times.iter().filter(|&&t| t < s).max().copied();
                if let Some(b) = before {
                    schedule.push(json!({"at": rel(b) + 1, "crash": n}));
                    schedule.push(json!({"at": rel(s), "recover": n}));
                    self.report.faults.push(format!(
                        "member {n} stopped after {} ms and restarted at {} ms",
                        rel(b),
                        rel(s)
                    ));
                }
            }
            let last = m.last.max(times.last().copied().unwrap_or(0));
            // Lost by another member, which then carried on with the election or went on
            // logging for half a second: not merely everyone being stopped at the end.
            let lost_at = self
                .lines
                .iter()
                .filter(|l| matches!(&l.what, What::PeerDown(p) if p == k) && l.t >= last)
                .map(|l| (l.t, &l.member))
                .collect::<Vec<_>>();
            let carried_on = lost_at.iter().any(|(t, by)| {
                self.members.get(*by).is_some_and(|m| m.last >= t + 500)
                    || self.lines.iter().any(|l| {
                        &l.member == *by
                            && l.t >= *t
                            && matches!(l.what, What::State { .. } | What::Send { .. } | What::Recv { .. })
                    })
            });
            let seen_down = carried_on;
            let never_logged = m.first == u64::MAX;
            if (seen_down && last < end) || never_logged {
                let at = if never_logged { 0 } else { rel(last) + 1 };
                schedule.push(json!({"at": at, "crash": n}));
                self.report.faults.push(if never_logged {
                    format!("member {n} has no log here; it is drawn crashed")
                } else {
                    format!("member {n} stopped logging at {} ms and the others lost it: crashed at {at} ms", rel(last))
                });
            }
        }
        // Lost and restored connections, as each member saw them: narrated when the state of a
        // link flips; and, where the flavour allows it, a member that lost a peer which went on
        // logging (so it was not dead) is cut off from that peer until it reaches it again.
        let mut down: BTreeMap<(NodeId, NodeId), bool> = BTreeMap::new();
        let mut cut_links: Vec<(NodeId, NodeId)> = Vec::new();
        let mut order: Vec<&Line> =
            self.lines.iter().filter(|l| matches!(l.what, What::PeerDown(_) | What::PeerUp(_))).collect();
        order.sort_by_key(|l| (l.t, node(&l.member)));
        for l in order {
            let (peer, lost) = match &l.what {
                What::PeerDown(p) => (p, true),
                What::PeerUp(p) => (p, false),
                _ => continue,
            };
            let (me, them) = (node(&l.member), node(peer));
            if me == them || *down.get(&(me, them)).unwrap_or(&false) == lost {
                continue;
            }
            down.insert((me, them), lost);
            let at = rel(l.t);
            let say = if lost { "peer-down" } else { "peer-up" };
            events.push(json!({"at": at, "node": me, "say": say, "args": [them, 0],
                               "line": format!("{}:{}", self.files[l.file].name, l.line)}));
            if !cuts {
                continue;
            }
            let alive_after = self.members.get(peer).is_some_and(|m| m.last > l.t);
            if lost && alive_after {
                schedule.push(json!({"at": at, "cut": [them, me]}));
                cut_links.push((them, me));
                self.report.faults.push(format!(
                    "member {me} lost member {them}, which went on logging: link {them} → {me} cut at {at} ms"
                ));
            } else if !lost && cut_links.contains(&(them, me)) {
                cut_links.retain(|&c| c != (them, me));
                if cut_links.is_empty() {
                    schedule.push(json!({"at": at, "heal": true}));
                    self.report
                        .faults
                        .push(format!("member {me} reaches member {them} again: links restored at {at} ms"));
                }
            }
        }
        events.sort_by_key(|e| (e["at"].as_u64(), e["node"].as_u64(), e["line"].as_str().map(line_number)));
        schedule.sort_by_key(|s| s["at"].as_u64());

        let mut member_list = Vec::new();
        for (k, m) in &self.members {
            member_list.push(json!({"node": node(k), "name": m.name, "id": k, "addr": m.addr}));
        }
        member_list.sort_by_key(|m| m["node"].as_u64());
        let ids: Vec<NodeId> = member_list.iter().map(|m| m["node"].as_u64().unwrap_or(0) as NodeId).collect();
        let last_t = rel(end).max(messages.iter().filter_map(|m| m["received"].as_u64()).max().unwrap_or(0));
        // The model's delays: from the shortest matched delay to twice the median. (The longest
        // is no guide: a message sent before its connection is up waits for it, seconds at boot.)
        let latency = if lo_hi.0 == u64::MAX {
            json!([1, 1])
        } else {
            let lo = lo_hi.0.max(1);
            json!([lo, (2 * typical).clamp(lo, lo_hi.1.max(lo))])
        };
        let heartbeats = self.heartbeats.map(|(i, t)| json!({"interval": i, "timeout": t}));
        // The recorded run ends with its last line; the time after it is for the model, which
        // may take longer to elect than the real cluster did before it was stopped.
        let stop = json!({"max_time": last_t + MODEL_MARGIN, "max_steps": 1_000_000});

        // The model: the same members, faults and timeouts under the textbook algorithm, starting
        // from the leader that led just before the first fault (if one did).
        let first_fault = schedule.first().and_then(|s| s["at"].as_u64()).unwrap_or(last_t);
        let mut leading: Option<NodeId> = None;
        for e in &events {
            if e["at"].as_u64().unwrap_or(0) > first_fault {
                break;
            }
            if e["role"] == json!("leader") || e["role"] == json!("leading") {
                leading = e["node"].as_u64().map(|x| x as NodeId);
            }
        }
        // The model (see [`model_scenario`]) replays from the same start: the leader that led
        // just before the first fault, if one did. The puppet itself ignores `initial_leader`.
        let scenario = json!({
            "algorithm": algorithm, "nodes": ids, "seed": 0,
            "network": {"latency": latency, "loss": 0.0, "fifo": true},
            "initial_leader": leading, "heartbeats": heartbeats,
            "params": {"members": member_list, "events": events, "messages": messages, "t0": t0},
            "schedule": schedule, "stop": stop,
        });
        let used: Vec<usize> =
            (0..self.files.len()).map(|f| self.lines.iter().filter(|l| l.file == f).count()).collect();
        for (f, u) in self.report.files.iter_mut().zip(used) {
            f.2 = u;
        }
        Ok(Imported { scenario, report: self.report })
    }
}

/// The line number of `file:line`.
fn line_number(at: &str) -> u64 {
    at.rsplit(':').next().and_then(|n| n.parse().ok()).unwrap_or(0)
}

/// Days since 1970-01-01 of a civil date (proleptic Gregorian).
pub fn days_from_civil(y: i64, m: u32, d: u32) -> i64 {
    let y = if m <= 2 { y - 1 } else { y };
    let era = if y >= 0 { y } else { y - 399 } / 400;
    let yoe = y - era * 400;
    let mp = (m as i64 + 9) % 12;
    let doy = (153 * mp + 2) / 5 + d as i64 - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    era * 146097 + doe - 719468
}

/// Reads `YYYY?MM?DD?hh:mm:ss` (any one-character separators) and an optional fraction after
/// `.` or `,` from the start of `s`: milliseconds since 1970, and whether the fraction was there.
pub fn parse_stamp(s: &str) -> Option<(u64, bool)> {
    let b = s.as_bytes();
    if b.len() < 19 {
        return None;
    }
    let num = |r: std::ops::Range<usize>| -> Option<u64> {
        let t = s.get(r)?;
        if t.bytes().all(|c| c.is_ascii_digit()) {
            t.parse().ok()
        } else {
            None
        }
    };
    let (y, mo, d) = (num(0..4)?, num(5..7)?, num(8..10)?);
    let (h, mi, se) = (num(11..13)?, num(14..16)?, num(17..19)?);
    if !(1..=12).contains(&mo)
        || !(1..=31).contains(&d)
        || h > 23
        || mi > 59
        || se > 60
        || b[13] != b':'
        || b[16] != b':'
    {
        return None;
    }
    let mut ms =
        (days_from_civil(y as i64, mo as u32, d as u32).max(0) as u64 * 86_400 + h * 3600 + mi * 60 + se) * 1000;
    let mut precise = false;
    if b.len() > 20 && (b[19] == b'.' || b[19] == b',') {
        let digits: String = s[20..].chars().take_while(|c| c.is_ascii_digit()).collect();
        if !digits.is_empty() {
            let mut frac = digits.chars().take(3).collect::<String>();
            while frac.len() < 3 {
                frac.push('0');
            }
            ms += frac.parse::<u64>().ok()?;
            precise = true;
        }
    }
    Some((ms, precise))
}

/// Which recorded algorithm a kind of log makes, and which textbook algorithm replays it.
pub struct Source {
    /// `etcd`, `zookeeper`: the CLI's `import` argument.
    pub name: &'static str,
    pub algorithm: &'static str,
    pub model: &'static str,
    pub import: fn(&[LogFile]) -> Result<Imported, String>,
    /// Whether a text looks like this kind of log.
    pub detect: fn(&str) -> bool,
}

pub static SOURCES: &[Source] = &[
    Source {
        name: "etcd",
        algorithm: super::etcd_log::ID,
        model: super::etcd_log::MODEL,
        import: super::etcd_log::import,
        detect: super::etcd_log::detect,
    },
    Source {
        name: "zookeeper",
        algorithm: super::zookeeper_log::ID,
        model: super::zookeeper_log::MODEL,
        import: super::zookeeper_log::import,
        detect: super::zookeeper_log::detect,
    },
];

/// The source named `name`, or an error naming the known ones.
pub fn source(name: &str) -> Result<&'static Source, String> {
    SOURCES.iter().find(|s| s.name == name).ok_or_else(|| {
        let names: Vec<&str> = SOURCES.iter().map(|s| s.name).collect();
        format!("unknown log kind '{name}' (expected one of: {})", names.join(", "))
    })
}

/// The source whose logs these texts look like (the first file that any source recognises).
pub fn detect(files: &[LogFile]) -> Option<&'static Source> {
    files.iter().find_map(|f| SOURCES.iter().find(|s| (s.detect)(f.text)))
}

/// The source that made recorded algorithm `id`, if it is one.
pub fn source_of(id: &str) -> Option<&'static Source> {
    SOURCES.iter().find(|s| s.algorithm == id)
}

/// The textbook model of a recorded scenario: the same members, network, timeouts, faults and
/// starting leader, under the algorithm the real system implements, with that algorithm's
/// default parameters (what a compare lane of it runs).
pub fn model_scenario(scenario: &crate::scenario::Scenario) -> Option<crate::scenario::Scenario> {
    let source = source_of(&scenario.algorithm)?;
    let mut s = scenario.clone();
    s.algorithm = source.model.to_string();
    s.params.clear();
    Some(s)
}
