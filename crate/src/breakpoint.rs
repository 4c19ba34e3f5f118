//! Breakpoints ("run until"): predicates over a run, evaluated after every step, that stop it
//! where something interesting happens. The same text is read by the command line
//! (`election-lab run FILE --until 'role:3=leader'`), carried in traces and links (the trace's
//! `until` list), and evaluated by the page on its [`Engine`].
//!
//! | text | hits at the step where |
//! |---|---|
//! | `violation`, `violation:<property>` | a claimed property is violated (any, or the one named: `split-brain`, `two-leaders-in-term`, ...) |
//! | `leaders-change` | the set of live self-declared leaders changes |
//! | `role:3=leader` | node 3 takes the role (one of the algorithm's roles) |
//! | `send:ELECTION`, `send:ELECTION:from=5`, `send:OK:to=2:from=4` | a message of that kind is sent (by / to a node) |
//! | `deliver:VOTE_GRANT`, `deliver:VOTE_GRANT:to=3` | a message of that kind is delivered (to / from a node) |
//! | `drop:COORDINATOR` | a message of that kind is dropped (lost, cut off, or sent to a crashed node) |
//! | `timer:5`, `timer:5:election` | a timer fires at node 5 (any, or the one named) |
//! | `term:3>=5` | a numeric field of node 3 passes the value: it did not hold before the step and holds after it (`>=`, `>`, `<=`, `<`, `=`) |
//! | `time>=200` | virtual time reaches 200 ticks |
//!
//! Fields are the node view's `term` (or what the algorithm calls it: `ballot`, `round`,
//! `epoch`, ...), `vote`, `leader`, `votes` (a candidate's tally), `zxid`, `group`, `reach`,
//! and every key of the algorithm's inspector whose value is a number (`current-term`, with `-`
//! or `_` for spaces). Several breakpoints are combined with "or": the first that hits, in list
//! order, is the one reported. A parse error names what is wrong: an unknown message kind,
//! node, role, property or field for this algorithm.
//!
//! [`Watch`] evaluates a list step by step; [`run_until`] steps an engine to the next hit and
//! [`previous_hit`] finds the last hit before the cursor (by replaying from step 0).

use crate::engine::Engine;
use crate::error::ScenarioError;
use crate::meta::Lang;
use crate::sim::EventKind;
use crate::{NodeId, Time};
use serde_json::{json, Value};
use std::fmt;

/// The most breakpoints one run, trace or link may carry.
pub const MAX_BREAKPOINTS: usize = 64;
/// The longest breakpoint text read.
pub const MAX_TEXT: usize = 200;

/// A comparison.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Op {
    Ge,
    Gt,
    Le,
    Lt,
    Eq,
}

impl Op {
    pub fn holds(self, a: i64, b: i64) -> bool {
        match self {
            Op::Ge => a >= b,
            Op::Gt => a > b,
            Op::Le => a <= b,
            Op::Lt => a < b,
            Op::Eq => a == b,
        }
    }
    pub fn text(self) -> &'static str {
        match self {
            Op::Ge => ">=",
            Op::Gt => ">",
            Op::Le => "<=",
            Op::Lt => "<",
            Op::Eq => "=",
        }
    }
    /// Splits `left<op>right` at its first operator.
    fn split(text: &str) -> Option<(&str, Op, &str)> {
        let at = text.find(['>', '<', '='])?;
        let rest = &text[at..];
        let (op, len) = if rest.starts_with(">=") {
            (Op::Ge, 2)
        } else if rest.starts_with("<=") {
            (Op::Le, 2)
        } else if rest.starts_with("==") {
            (Op::Eq, 2)
        } else if rest.starts_with('>') {
            (Op::Gt, 1)
        } else if rest.starts_with('<') {
            (Op::Lt, 1)
        } else {
            (Op::Eq, 1)
        };
        Some((&text[..at], op, &rest[len..]))
    }
}

/// What happens to a message.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum MsgEvent {
    Send,
    Deliver,
    Drop,
}

impl MsgEvent {
    pub fn name(self) -> &'static str {
        match self {
            MsgEvent::Send => "send",
            MsgEvent::Deliver => "deliver",
            MsgEvent::Drop => "drop",
        }
    }
}

/// A numeric per-node value.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Field {
    /// The view's term (or ballot, round, epoch: whatever the algorithm's `term_word` says).
    Term,
    Vote,
    Leader,
    /// The votes a candidate holds.
    Votes,
    Zxid,
    Group,
    Reach,
    /// A key of the algorithm's inspector; its value is read as a number (`N5` reads as 5).
    Inspect(&'static str),
}

impl Field {
    fn name(&self) -> &'static str {
        match self {
            Field::Term => "term",
            Field::Vote => "vote",
            Field::Leader => "leader",
            Field::Votes => "votes",
            Field::Zxid => "zxid",
            Field::Group => "group",
            Field::Reach => "reach",
            Field::Inspect(k) => k,
        }
    }
}

/// One breakpoint.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Predicate {
    /// A claimed property is violated (any, or this one).
    Violation(Option<&'static str>),
    /// The set of live self-declared leaders changes.
    LeadersChange,
    /// Node `node` takes role `role`.
    Role { node: NodeId, role: &'static str },
    /// A message of kind `kind` is sent / delivered / dropped, optionally from / to a node.
    Message { event: MsgEvent, kind: &'static str, from: Option<NodeId>, to: Option<NodeId> },
    /// A timer (any, or the one named) fires at `node`.
    Timer { node: NodeId, name: Option<String> },
    /// A numeric field of `node` passes `value`.
    Field { node: NodeId, field: Field, op: Op, value: i64 },
    /// Virtual time passes `value`.
    Time { op: Op, value: Time },
}

/// A parsed breakpoint: [`Breakpoint::parse`] reads its text, `Display` writes it back.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Breakpoint {
    pub predicate: Predicate,
}

impl fmt::Display for Breakpoint {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match &self.predicate {
            Predicate::Violation(None) => write!(f, "violation"),
            Predicate::Violation(Some(p)) => write!(f, "violation:{p}"),
            Predicate::LeadersChange => write!(f, "leaders-change"),
            Predicate::Role { node, role } => write!(f, "role:{node}={role}"),
            Predicate::Message { event, kind, from, to } => {
                write!(f, "{}:{kind}", event.name())?;
                if let Some(t) = to {
                    write!(f, ":to={t}")?;
                }
                if let Some(x) = from {
                    write!(f, ":from={x}")?;
                }
                Ok(())
            }
            Predicate::Timer { node, name: None } => write!(f, "timer:{node}"),
            Predicate::Timer { node, name: Some(n) } => write!(f, "timer:{node}:{n}"),
            Predicate::Field { node, field, op, value } => {
                write!(f, "{}:{node}{}{value}", field.name().replace(' ', "-"), op.text())
            }
            Predicate::Time { op, value } => write!(f, "time{}{value}", op.text()),
        }
    }
}

/// `current term` and `current-term`, `Current_Term` name the same field.
fn same_name(a: &str, b: &str) -> bool {
    let norm = |s: &str| s.trim().to_lowercase().replace(['-', '_'], " ");
    norm(a) == norm(b)
}

/// The number an inspector value starts with: `7`, `N5` (5), `2 / 3 needed` (2); None for `-`.
fn leading_number(text: &str) -> Option<i64> {
    let t = text.trim().trim_start_matches('N');
    let (neg, t) = match t.strip_prefix('-') {
        Some(r) => (true, r),
        None => (false, t),
    };
    let digits: String = t.chars().take_while(|c| c.is_ascii_digit()).collect();
    let v: i64 = digits.parse().ok()?;
    Some(if neg { -v } else { v })
}

impl Breakpoint {
    /// Reads a breakpoint for the algorithm and nodes `engine` runs. The error says what is
    /// wrong, without the text itself (the caller names where it came from).
    pub fn parse(text: &str, engine: &Engine) -> Result<Breakpoint, String> {
        let text = text.trim();
        if text.is_empty() {
            return Err("empty breakpoint".into());
        }
        if text.len() > MAX_TEXT {
            return Err(format!("longer than {MAX_TEXT} characters"));
        }
        let alg = engine.algorithm();
        let ids = &engine.scenario().nodes;
        let node = |s: &str| -> Result<NodeId, String> {
            let s = s.trim();
            let s = s.strip_prefix(['N', 'n']).unwrap_or(s);
            let id: NodeId = s.parse().map_err(|_| format!("'{s}' is not a node id"))?;
            if ids.contains(&id) {
                Ok(id)
            } else {
                let list: Vec<String> = ids.iter().map(|x| x.to_string()).collect();
                Err(format!("unknown node {id} (nodes: {})", list.join(", ")))
            }
        };
        let number = |s: &str, what: &str| -> Result<i64, String> {
            s.trim().parse::<i64>().map_err(|_| format!("{what}: '{}' is not a whole number", s.trim()))
        };
        let predicate = if text == "violation" {
            Predicate::Violation(None)
        } else if let Some(p) = text.strip_prefix("violation:") {
            let prop = alg.properties.iter().find(|x| x.id == p.trim()).ok_or_else(|| {
                let list: Vec<&str> = alg.properties.iter().map(|x| x.id).collect();
                if list.is_empty() {
                    format!("unknown property '{}': {} claims none", p.trim(), alg.id)
                } else {
                    format!("unknown property '{}' for {} (it claims: {})", p.trim(), alg.id, list.join(", "))
                }
            })?;
            Predicate::Violation(Some(prop.id))
        } else if text == "leaders-change" {
            Predicate::LeadersChange
        } else if let Some(rest) = text.strip_prefix("role:") {
            let (n, r) = rest.split_once('=').ok_or("expected role:<node>=<role>, e.g. role:3=leader")?;
            let node = node(n)?;
            let role = alg.roles.iter().find(|x| same_name(x.name, r)).ok_or_else(|| {
                let list: Vec<&str> = alg.roles.iter().map(|x| x.name).collect();
                format!("unknown role '{}' for {} (roles: {})", r.trim(), alg.id, list.join(", "))
            })?;
            Predicate::Role { node, role: role.name }
        } else if let Some((event, rest)) =
            [("send:", MsgEvent::Send), ("deliver:", MsgEvent::Deliver), ("drop:", MsgEvent::Drop)]
                .iter()
                .find_map(|(p, e)| text.strip_prefix(p).map(|r| (*e, r)))
        {
            let mut parts = rest.split(':');
            let k = parts.next().unwrap_or_default().trim();
            let kind = alg.kinds.iter().find(|x| x.name.eq_ignore_ascii_case(k)).ok_or_else(|| {
                let list: Vec<&str> = alg.kinds.iter().map(|x| x.name).collect();
                format!("unknown message kind '{k}' for {} (kinds: {})", alg.id, list.join(", "))
            })?;
            let (mut from, mut to) = (None, None);
            for part in parts {
                match part.split_once('=') {
                    Some(("to", n)) if to.is_none() => to = Some(node(n)?),
                    Some(("from", n)) if from.is_none() => from = Some(node(n)?),
                    _ => return Err(format!("'{part}': expected to=<node> or from=<node>, once each")),
                }
            }
            Predicate::Message { event, kind: kind.name, from, to }
        } else if let Some(rest) = text.strip_prefix("timer:") {
            let (n, name) = match rest.split_once(':') {
                Some((n, name)) if !name.trim().is_empty() => (n, Some(name.trim().to_string())),
                Some(_) => return Err("expected timer:<node> or timer:<node>:<name>".into()),
                None => (rest, None),
            };
            Predicate::Timer { node: node(n)?, name }
        } else if let Some(rest) = text.strip_prefix("time").filter(|r| r.starts_with(['>', '<', '='])) {
            let (_, op, v) = Op::split(rest).ok_or("expected time>=<ticks>")?;
            let value = number(v, "time")?;
            Predicate::Time { op, value: u64::try_from(value).map_err(|_| "time: ticks are never negative")? }
        } else if let Some((name, rest)) = text.split_once(':') {
            let (n, op, v) = Op::split(rest)
                .ok_or_else(|| format!("'{text}' is not a breakpoint: a field needs a comparison, e.g. {name}:3>=5"))?;
            let node = node(n)?;
            let value = number(v, name)?;
            let term_word = engine.node_view(node).and_then(|v| v.term_word).map(|t| t.get(Lang::En));
            let field = match name.trim().to_lowercase().as_str() {
                "term" => Field::Term,
                w if term_word.is_some_and(|t| same_name(t, w)) => Field::Term,
                "vote" => Field::Vote,
                "leader" => Field::Leader,
                "votes" | "tally" => Field::Votes,
                "zxid" => Field::Zxid,
                "group" => Field::Group,
                "reach" => Field::Reach,
                _ => {
                    let keys = engine.inspect(node);
                    // Inspector fields are named by their English label (`voted-for`), in either language.
                    match keys.iter().find(|(k, _)| same_name(k.get(Lang::En), name)) {
                        Some((k, _)) => Field::Inspect(k.get(Lang::En)),
                        None => {
                            let mut list = vec!["term", "vote", "leader", "votes", "zxid", "group", "reach"];
                            if let Some(t) = term_word {
                                list.push(t);
                            }
                            let ks: Vec<String> = keys.iter().map(|(k, _)| k.get(Lang::En).replace(' ', "-")).collect();
                            return Err(format!(
                                "unknown field '{}' for {} (fields: {}; inspector: {})",
                                name.trim(),
                                alg.id,
                                list.join(", "),
                                ks.join(", ")
                            ));
                        }
                    }
                }
            };
            Predicate::Field { node, field, op, value }
        } else {
            return Err(format!(
                "'{text}' is not a breakpoint (expected violation[:<property>], leaders-change, role:<node>=<role>, \
                 send|deliver|drop:<KIND>[:to=<node>][:from=<node>], timer:<node>[:<name>], <field>:<node><op><value> \
                 or time>=<ticks>)"
            ));
        };
        Ok(Breakpoint { predicate })
    }

    /// Reads a list; an error names the entry (`{what}[2]: unknown node 9 ...`).
    pub fn parse_all(texts: &[String], engine: &Engine, what: &str) -> Result<Vec<Breakpoint>, ScenarioError> {
        if texts.len() > MAX_BREAKPOINTS {
            return Err(ScenarioError::new(what, format!("more than {MAX_BREAKPOINTS} breakpoints")));
        }
        texts
            .iter()
            .enumerate()
            .map(|(i, t)| Breakpoint::parse(t, engine).map_err(|e| ScenarioError::new(format!("{what}[{i}]"), e)))
            .collect()
    }

    /// The node whose state this breakpoint reads, if any.
    fn node(&self) -> Option<NodeId> {
        match &self.predicate {
            Predicate::Role { node, .. } | Predicate::Field { node, .. } => Some(*node),
            _ => None,
        }
    }
}

/// Where a breakpoint hit: the step (its event), what hit, and what it names.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Hit {
    pub step: u64,
    pub time: Time,
    /// Index of the breakpoint in its list.
    pub index: usize,
    /// The breakpoint's text.
    pub breakpoint: String,
    /// What happened, in one line of English.
    pub what: String,
    /// The nodes involved (the violators, the node that took a role, a message's ends).
    pub nodes: Vec<NodeId>,
    /// The message involved, if any.
    pub msg: Option<u64>,
}

impl Hit {
    /// `{"step", "time", "breakpoint", "what", "nodes", "msg"?}`.
    pub fn to_value(&self) -> Value {
        let mut o = json!({"step": self.step, "time": self.time, "breakpoint": self.breakpoint, "what": self.what, "nodes": self.nodes});
        if let Some(m) = self.msg {
            o["msg"] = json!(m);
        }
        o
    }
}

/// Per breakpoint, what it saw at the last step (for the predicates that fire on a change).
#[derive(Clone, Debug, PartialEq)]
enum Prev {
    Nothing,
    Role(Option<&'static str>),
    Value(Option<i64>),
}

/// A list of breakpoints evaluated step by step on one engine.
#[derive(Clone, Debug)]
pub struct Watch {
    bps: Vec<Breakpoint>,
    prev: Vec<Prev>,
    step: u64,
    time: Time,
    violations: usize,
    leaders: Vec<NodeId>,
}

fn role_of(engine: &Engine, node: NodeId) -> Option<&'static str> {
    if engine.is_up(node) != Some(true) {
        return None;
    }
    engine.node_view(node).map(|v| v.role)
}

fn value_of(engine: &Engine, node: NodeId, field: &Field) -> Option<i64> {
    if engine.is_up(node) != Some(true) {
        return None;
    }
    if let Field::Inspect(key) = field {
        return engine.inspect(node).iter().find(|(k, _)| k.get(Lang::En) == *key).and_then(|(_, v)| leading_number(v));
    }
    let v = engine.node_view(node)?;
    let x = match field {
        Field::Term => v.term,
        Field::Vote => v.vote.map(u64::from),
        Field::Leader => v.leader.map(u64::from),
        Field::Votes => v.tally.map(|t| u64::from(t.0)),
        Field::Zxid => v.zxid,
        Field::Group => v.group.map(u64::from),
        Field::Reach => v.reach.map(u64::from),
        Field::Inspect(_) => None,
    };
    x.map(|x| x.min(i64::MAX as u64) as i64)
}

fn list(nodes: &[NodeId]) -> String {
    if nodes.is_empty() {
        return "none".into();
    }
    nodes.iter().map(|n| format!("N{n}")).collect::<Vec<_>>().join(", ")
}

impl Watch {
    /// Starts watching at the engine's cursor: what holds there already is not a hit.
    pub fn new(bps: Vec<Breakpoint>, engine: &Engine) -> Watch {
        let mut w = Watch { bps, prev: vec![], step: 0, time: 0, violations: 0, leaders: vec![] };
        w.reset(engine);
        w
    }

    /// Forgets what was seen and starts again at the cursor (after a seek).
    pub fn reset(&mut self, engine: &Engine) {
        self.step = engine.cursor();
        self.time = engine.now();
        self.violations = engine.violations().len();
        self.leaders = engine.leaders();
        self.prev = self.bps.iter().map(|b| Watch::current(b, engine)).collect();
    }

    pub fn breakpoints(&self) -> &[Breakpoint] {
        &self.bps
    }

    fn current(b: &Breakpoint, engine: &Engine) -> Prev {
        match (&b.predicate, b.node()) {
            (Predicate::Role { .. }, Some(n)) => Prev::Role(role_of(engine, n)),
            (Predicate::Field { field, .. }, Some(n)) => Prev::Value(value_of(engine, n, field)),
            _ => Prev::Nothing,
        }
    }

    /// Evaluates every breakpoint at the engine's cursor against what was seen at the last
    /// call; returns the first that hits (in list order). Call it after every step.
    pub fn check(&mut self, engine: &Engine) -> Option<Hit> {
        let step = engine.cursor();
        if step < self.step {
            self.reset(engine);
            return None;
        }
        let new_step = step > self.step;
        let time = engine.now();
        let all = engine.violations();
        let fresh = all.get(self.violations..).unwrap_or(&[]);
        let need_leaders = self.bps.iter().any(|b| b.predicate == Predicate::LeadersChange);
        let leaders = if need_leaders { engine.leaders() } else { vec![] };
        let rec = if new_step { engine.record(step) } else { None };
        // The step's description (message kinds, what it sent) costs a formatted label: only
        // read it when a message breakpoint may need it.
        let wants = |e: MsgEvent| {
            self.bps.iter().any(|b| matches!(b.predicate, Predicate::Message { event, .. } if event == e))
        };
        let info = match rec {
            Some(r)
                if (matches!(r.kind, EventKind::Deliver) && wants(MsgEvent::Deliver))
                    || (matches!(r.kind, EventKind::Drop(_)) && wants(MsgEvent::Drop))
                    || (r.msgs.1 > r.msgs.0 && wants(MsgEvent::Send)) =>
            {
                engine.step_info(step)
            }
            _ => None,
        };
        let hit = |index: usize, what: String, nodes: Vec<NodeId>, msg: Option<u64>| Hit {
            step,
            time,
            index,
            breakpoint: self.bps[index].to_string(),
            what,
            nodes,
            msg,
        };
        let mut found = None;
        let mut now_prev = Vec::with_capacity(self.bps.len());
        for (i, b) in self.bps.iter().enumerate() {
            let cur = Watch::current(b, engine);
            if found.is_none() {
                found = match &b.predicate {
                    Predicate::Violation(p) => fresh.iter().find(|v| p.is_none_or(|p| p == v.kind)).map(|v| {
                        let term = v.term.map_or(String::new(), |t| format!(" in term {t}"));
                        hit(i, format!("violation {}: {}{term}", v.kind, list(&v.nodes)), v.nodes.clone(), None)
                    }),
                    Predicate::LeadersChange => (leaders != self.leaders).then(|| {
                        let mut nodes: Vec<NodeId> =
                            leaders.iter().filter(|x| !self.leaders.contains(x)).copied().collect();
                        nodes.extend(self.leaders.iter().filter(|x| !leaders.contains(x)));
                        hit(i, format!("leaders {} -> {}", list(&self.leaders), list(&leaders)), nodes, None)
                    }),
                    Predicate::Role { node, role } => match (&self.prev[i], &cur) {
                        (Prev::Role(was), Prev::Role(Some(r))) if r == role && *was != Some(r) => Some(hit(
                            i,
                            format!("N{node} becomes {role} (was {})", was.unwrap_or("down")),
                            vec![*node],
                            None,
                        )),
                        _ => None,
                    },
                    Predicate::Field { node, field, op, value } => match (&self.prev[i], &cur) {
                        (Prev::Value(was), Prev::Value(Some(x)))
                            if op.holds(*x, *value) && !was.is_some_and(|w| op.holds(w, *value)) =>
                        {
                            let was = was.map_or("-".to_string(), |w| w.to_string());
                            Some(hit(i, format!("N{node} {} {was} -> {x}", field.name()), vec![*node], None))
                        }
                        _ => None,
                    },
                    Predicate::Time { op, value } => {
                        let (a, b) = (self.time.min(i64::MAX as u64) as i64, time.min(i64::MAX as u64) as i64);
                        let v = (*value).min(i64::MAX as u64) as i64;
                        (new_step && op.holds(b, v) && !op.holds(a, v))
                            .then(|| hit(i, format!("time {time}"), vec![], None))
                    }
                    Predicate::Timer { node, name } => match rec {
                        Some(r) => match r.kind {
                            EventKind::Timer(t) if r.node == *node && name.as_deref().is_none_or(|n| n == t) => {
                                Some(hit(i, format!("N{node}'s {t} timer fires"), vec![*node], None))
                            }
                            _ => None,
                        },
                        None => None,
                    },
                    Predicate::Message { event, kind, from, to } => match (rec, &info) {
                        (Some(r), Some(info)) => match event {
                            MsgEvent::Deliver | MsgEvent::Drop => {
                                let ok = matches!(
                                    (event, r.kind),
                                    (MsgEvent::Deliver, EventKind::Deliver) | (MsgEvent::Drop, EventKind::Drop(_))
                                );
                                (ok && info.kind == Some(*kind)
                                    && to.is_none_or(|t| t == r.node)
                                    && from.is_none_or(|f| f == r.peer))
                                .then(|| {
                                    let verb = if *event == MsgEvent::Deliver { "delivers" } else { "drops" };
                                    hit(
                                        i,
                                        format!("{verb} {kind} #{} N{} -> N{}", r.aux, r.peer, r.node),
                                        vec![r.peer, r.node],
                                        Some(r.aux),
                                    )
                                })
                            }
                            MsgEvent::Send => {
                                let sender = r.node;
                                if from.is_some_and(|f| f != sender) {
                                    None
                                } else {
                                    info.sends.iter().find(|s| s.2 == *kind && to.is_none_or(|t| t == s.1)).map(|s| {
                                        hit(
                                            i,
                                            format!("N{sender} sends {kind} #{} to N{}", s.0, s.1),
                                            vec![sender, s.1],
                                            Some(s.0),
                                        )
                                    })
                                }
                            }
                        },
                        _ => None,
                    },
                };
            }
            now_prev.push(cur);
        }
        self.prev = now_prev;
        self.step = step;
        self.time = time;
        self.violations = all.len();
        if need_leaders {
            self.leaders = leaders;
        }
        found
    }
}

/// Steps `engine` until a breakpoint of `watch` hits (returned, with the engine at that step),
/// the run ends, or `max_steps` steps were taken (then `None`, and `watch` goes on from there
/// on the next call: the page runs to the next hit a frame at a time).
pub fn run_until(engine: &mut Engine, watch: &mut Watch, max_steps: u64) -> Option<Hit> {
    if engine.cursor() != watch.step {
        watch.reset(engine);
    }
    for _ in 0..max_steps {
        if !engine.step() {
            return None;
        }
        if let Some(h) = watch.check(engine) {
            return Some(h);
        }
    }
    None
}

/// The last hit strictly before the cursor (the page's "back to the previous hit"): replays
/// the run from step 0 up to the cursor, evaluating every step. The engine is left at that
/// hit, or where it was if there is none.
pub fn previous_hit(engine: &mut Engine, bps: &[Breakpoint]) -> Option<Hit> {
    let at = engine.cursor();
    engine.seek(0);
    let mut watch = Watch::new(bps.to_vec(), engine);
    let mut last = None;
    while engine.cursor() < at && engine.step() {
        if let Some(h) = watch.check(engine) {
            if h.step < at {
                last = Some(h);
            }
        }
    }
    engine.seek(last.as_ref().map_or(at, |h| h.step));
    last
}
