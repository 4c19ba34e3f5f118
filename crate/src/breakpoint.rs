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
//! | `timer:5`, `timer:5:election_timeout` | a timer fires at node 5 (any, or the one named: one of the algorithm's timers) |
//! | `term:3>=5` | a numeric field of node 3 passes the value: it did not hold before the step and holds after it (`>=`, `>`, `<=`, `<`, `=`) |
//! | `time>=200` | virtual time reaches 200 ticks |
//!
//! Fields are the node view's `term` (or what the algorithm calls it: `ballot`, `round`,
//! `epoch`, ...), `vote`, `leader`, `votes` (a candidate's tally), `zxid`, `group`, `reach` —
//! those the algorithm's views carry ([`crate::protocol::Protocol::VIEW_FIELDS`]) — and every
//! field of the algorithm's inspector, by its id (`current_term`; see [`crate::field`]), compared
//! as a number (a node as its id, a list as its length, a flag as 1 or 0). A name written before
//! fields had ids, the field's English label (`current-term`, with `-` or `_` for spaces), still
//! reads and is written back as the id. Names of kinds, roles, timers and fields are read in any
//! ASCII case.
//!
//! Several breakpoints (a list) are combined with "or": the first that hits, in list order, is
//! the one reported. Within one breakpoint, conditions joined by ` and ` must all hold at the
//! same step: an event condition (violation, leaders-change, send, deliver, drop, timer) holds at
//! the step of its event, a state condition (role, field, time) holds while its state does; the
//! conjunction hits at every step where all hold if it has an event condition, else at the step
//! where all come to hold together (as one state condition alone does). A parse error names what
//! is wrong: an unknown message kind, node, role, timer, property or field for this algorithm.
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
    /// A field of the algorithm's inspector, by its id; compared as
    /// [`crate::field::FieldValue::number`] (a node as its id, a list as its length).
    Inspect(String),
}

impl Field {
    fn name(&self) -> &str {
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
    /// A timer (any, or the one named: one of the algorithm's timers) fires at `node`.
    Timer { node: NodeId, name: Option<&'static str> },
    /// A numeric field of `node` passes `value`.
    Field { node: NodeId, field: Field, op: Op, value: i64 },
    /// Virtual time passes `value`.
    Time { op: Op, value: Time },
}

impl Predicate {
    /// Holds at the step of an event (a violation, a change of leaders, a message, a timer),
    /// rather than while a state lasts (a role, a field's value, the time).
    pub fn is_event(&self) -> bool {
        !matches!(self, Predicate::Role { .. } | Predicate::Field { .. } | Predicate::Time { .. })
    }
}

/// A parsed breakpoint: one condition, or several joined by ` and `. [`Breakpoint::parse`]
/// reads its text, `Display` writes it back.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Breakpoint {
    /// Every one must hold at the step (at least one).
    pub all: Vec<Predicate>,
}

impl fmt::Display for Breakpoint {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for (i, p) in self.all.iter().enumerate() {
            if i > 0 {
                write!(f, " and ")?;
            }
            write!(f, "{p}")?;
        }
        Ok(())
    }
}

impl fmt::Display for Predicate {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
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

// `current term` and `current-term`, `Current_Term` name the same field (ASCII case: field names
// are ASCII, and Unicode case mapping would put its tables, 11 KB, into the page).
use crate::field::same_name;

/// Splits `a and b AND c` at each whole word `and` (in any case).
fn conjuncts(text: &str) -> Vec<&str> {
    let mut out = vec![];
    let mut start = 0;
    let b = text.as_bytes();
    let mut i = 0;
    while i + 3 <= b.len() {
        let word = b[i..i + 3].eq_ignore_ascii_case(b"and");
        let before = i == 0 || b[i - 1].is_ascii_whitespace();
        let after = i + 3 == b.len() || b[i + 3].is_ascii_whitespace();
        if word && before && after {
            out.push(&text[start..i]);
            start = i + 3;
            i += 3;
        } else {
            i += 1;
        }
    }
    out.push(&text[start..]);
    out
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
        let parts = conjuncts(text);
        let mut all = Vec::with_capacity(parts.len());
        for (i, part) in parts.iter().enumerate() {
            let p = Breakpoint::parse_one(part.trim(), engine);
            all.push(match p {
                Err(e) if parts.len() > 1 => Err(format!("condition {} of {}: {e}", i + 1, parts.len()))?,
                p => p?,
            });
        }
        Ok(Breakpoint { all })
    }

    /// One condition (no ` and `).
    fn parse_one(text: &str, engine: &Engine) -> Result<Predicate, String> {
        if text.is_empty() {
            return Err("an empty condition (expected a condition on each side of 'and')".into());
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
                Some((n, name)) if !name.trim().is_empty() => (n, Some(name.trim())),
                Some(_) => return Err("expected timer:<node> or timer:<node>:<name>".into()),
                None => (rest, None),
            };
            let node = node(n)?;
            let timers = engine.timer_names();
            let name =
                match name {
                    None => None,
                    Some(t) => Some(timers.iter().copied().find(|x| same_name(x, t)).ok_or_else(|| {
                        format!("unknown timer '{t}' for {} (timers: {})", alg.id, timers.join(", "))
                    })?),
                };
            Predicate::Timer { node, name }
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
            let has = engine.view_fields();
            let view_field = match name.trim().to_ascii_lowercase().as_str() {
                "term" => Some(Field::Term),
                w if term_word.is_some_and(|t| same_name(t, w)) => Some(Field::Term),
                "vote" => Some(Field::Vote),
                "leader" => Some(Field::Leader),
                "votes" | "tally" => Some(Field::Votes),
                "zxid" => Some(Field::Zxid),
                "group" => Some(Field::Group),
                "reach" => Some(Field::Reach),
                _ => None,
            };
            let fields = engine.inspect(node);
            // Inspector fields are named by their id (`voted_for`); a name written before fields
            // had ids, their English label (`voted-for`), still finds them.
            let inspected = crate::field::find(&fields, name);
            let field = match (view_field, inspected) {
                (Some(f), _) if has.contains(&f.name()) => f,
                // The inspector may show what the view lacks under the same name.
                (_, Some(f)) => Field::Inspect(f.id.to_string()),
                (view_field, None) => {
                    let mut list: Vec<&str> = has.to_vec();
                    if let Some(t) = term_word.filter(|_| has.contains(&"term")) {
                        list.push(t);
                    }
                    let ks: Vec<&str> = fields.iter().map(|f| &*f.id).collect();
                    let lacks = match view_field {
                        Some(_) => format!("{} has no {}", alg.id, name.trim()),
                        None => format!("unknown field '{}' for {}", name.trim(), alg.id),
                    };
                    return Err(format!("{lacks} (fields: {}; inspector: {})", list.join(", "), ks.join(", ")));
                }
            };
            Predicate::Field { node, field, op, value }
        } else {
            return Err(format!(
                "'{text}' is not a breakpoint (expected violation[:<property>], leaders-change, role:<node>=<role>, \
                 send|deliver|drop:<KIND>[:to=<node>][:from=<node>], timer:<node>[:<name>], <field>:<node><op><value> \
                 or time>=<ticks>, several joined by 'and')"
            ));
        };
        Ok(predicate)
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
}

mod watch;
pub use watch::*;
