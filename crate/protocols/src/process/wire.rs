//! The JSON Lines a node process reads and writes: the events written to it (one object a
//! line, `event` naming which) and its answers read back and checked against its declaration,
//! each problem named (`effects[2].send.kind: unknown message kind ...`).

use crate::meta::Note;
use crate::protocol::Config;
use crate::protocols::script::load::Decl;
use crate::{NodeId, Time};
use serde_json::{json, Map, Value};
use std::sync::Arc;

/// The longest a timer may be set for, in ticks.
pub const MAX_TIMER: Time = 1_000_000_000;

/// An effect the node asked for, applied to its context in the order given.
#[derive(Clone, Debug)]
pub enum Fx {
    Send { to: NodeId, kind: usize, fields: Arc<str> },
    Broadcast { kind: usize, fields: Arc<str> },
    SetTimer { name: &'static str, lo: Time, hi: Time },
    CancelTimer(&'static str),
    Note(Note),
}

/// What the answer's `state` changes (an entry absent: unchanged).
#[derive(Clone, Debug, Default)]
pub struct Update {
    pub role: Option<&'static str>,
    pub leader: Option<Option<NodeId>>,
    pub term: Option<Option<u64>>,
    pub vote: Option<Option<NodeId>>,
    /// Declared fields (by index in the declaration), typed.
    pub fields: Vec<(usize, crate::field::FieldValue)>,
}

/// One answer: its effects and the change of the node's view.
#[derive(Clone, Debug)]
pub struct Reply {
    pub fx: Vec<Fx>,
    pub update: Update,
}

/// The first line a process reads: it answers with its declaration.
pub fn hello(node: NodeId) -> String {
    json!({ "event": "hello", "node": node }).to_string()
}

/// The `init` event: who the node is and the facts of the run.
pub fn init(cfg: &Config, me: NodeId, now: Time, params: &Map<String, Value>) -> String {
    let hb = cfg.heartbeats.map(|h| json!({ "interval": h.interval, "timeout": h.timeout }));
    json!({
        "event": "init", "now": now, "me": me, "ids": cfg.ids, "initial_leader": cfg.initial_leader,
        "heartbeats": hb, "latency": [cfg.latency.0, cfg.latency.1], "params": params,
    })
    .to_string()
}

/// An event without arguments (`start`, `recover`).
pub fn bare(event: &str, now: Time) -> String {
    json!({ "event": event, "now": now }).to_string()
}

pub fn message(now: Time, from: NodeId, kind: &str, fields: &str) -> String {
    // `fields` is the compact JSON object the sender gave.
    format!(r#"{{"event":"message","now":{now},"from":{from},"kind":{},"fields":{fields}}}"#, Value::from(kind))
}

pub fn timer(now: Time, name: &str) -> String {
    json!({ "event": "timer", "now": now, "name": name }).to_string()
}

/// The process's answer `line`, checked against `decl` and the run's nodes.
pub fn reply(line: &str, decl: &Decl, cfg: &Config) -> Result<Reply, String> {
    let v: Value = serde_json::from_str(line).map_err(|e| format!("not JSON ({e})"))?;
    let Value::Object(o) = v else { return Err("not a JSON object {\"effects\": [...], \"state\": {...}}".into()) };
    if let Some(k) = o.keys().find(|k| !["effects", "state"].contains(&k.as_str())) {
        return Err(format!("unknown entry `{k}` (expected effects, state)"));
    }
    let mut fx = Vec::new();
    match o.get("effects") {
        None | Some(Value::Null) => {}
        Some(Value::Array(a)) => {
            for (i, e) in a.iter().enumerate() {
                fx.push(effect(e, decl, cfg).map_err(|m| format!("effects[{i}].{m}"))?);
            }
        }
        Some(_) => return Err("effects: expected an array".into()),
    }
    let update = match o.get("state") {
        None | Some(Value::Null) => Update::default(),
        Some(Value::Object(s)) => state(s, decl, cfg).map_err(|m| format!("state.{m}"))?,
        Some(_) => return Err("state: expected an object {\"role\": ..., \"leader\": ...}".into()),
    };
    Ok(Reply { fx, update })
}

fn effect(e: &Value, decl: &Decl, cfg: &Config) -> Result<Fx, String> {
    let o = e
        .as_object()
        .filter(|o| o.len() == 1)
        .ok_or("expected an object with one entry: send, broadcast, set_timer, cancel_timer or note".to_string())?;
    let (what, arg) = o.iter().next().expect("one entry");
    let at = |m: String| format!("{what}{m}");
    let get = |k: &str| arg.get(k).filter(|v| !v.is_null());
    match what.as_str() {
        "send" | "broadcast" => {
            let kind = get("kind").and_then(Value::as_str).ok_or(at(".kind: expected a string".into()))?;
            let kind = decl.kind(kind).ok_or_else(|| {
                at(format!(".kind: unknown message kind `{kind}` (declared: {})", decl.kinds.join(", ")))
            })?;
            let fields: Arc<str> = match get("fields") {
                None => "{}".into(),
                Some(f @ Value::Object(_)) => f.to_string().into(),
                Some(_) => return Err(at(".fields: expected an object".into())),
            };
            if what == "broadcast" {
                return Ok(Fx::Broadcast { kind, fields });
            }
            let to = node(get("to"), cfg).map_err(|m| at(format!(".to: {m}")))?;
            Ok(Fx::Send { to, kind, fields })
        }
        "set_timer" => {
            let name = timer_name(get("name"), decl).map_err(|m| at(format!(".name: {m}")))?;
            let ticks = |k: &str| match get(k) {
                None => Ok(None),
                Some(v) => match v.as_u64() {
                    Some(t) if t <= MAX_TIMER => Ok(Some(t)),
                    _ => Err(at(format!(".{k}: expected a whole number of ticks from 0 to {MAX_TIMER}"))),
                },
            };
            let (lo, hi) = match (ticks("after")?, ticks("lo")?, ticks("hi")?) {
                (Some(t), None, None) => (t, t),
                (None, Some(lo), Some(hi)) if lo <= hi => (lo, hi),
                (None, Some(lo), Some(hi)) => return Err(at(format!(": the range {lo}..{hi} is empty"))),
                _ => return Err(at(": give either `after` or both `lo` and `hi` (ticks)".into())),
            };
            Ok(Fx::SetTimer { name, lo, hi })
        }
        "cancel_timer" => {
            let name = timer_name(Some(arg).filter(|v| v.is_string()).or(get("name")), decl)
                .map_err(|m| at(format!(": {m}")))?;
            Ok(Fx::CancelTimer(name))
        }
        "note" => {
            let name = get("text").and_then(Value::as_str).ok_or(at(".text: expected a string".into()))?;
            let text = decl.note(name).ok_or_else(|| {
                let names: Vec<&str> = decl.notes.iter().map(|(n, _)| n.as_str()).collect();
                at(format!(
                    ".text: unknown note `{name}` (declared in `notes`: {}; or a key of the catalogs)",
                    names.join(", ")
                ))
            })?;
            let empty = Map::new();
            let args = match get("args") {
                None => &empty,
                Some(Value::Object(a)) => a,
                Some(_) => return Err(at(".args: expected an object".into())),
            };
            let mut a = [0u64; crate::meta::MAX_ARGS];
            for (i, arg) in text.args().iter().enumerate().take(crate::meta::MAX_ARGS) {
                let v = args.get(*arg).ok_or_else(|| at(format!(".args: the note `{name}` needs `{arg}`")))?;
                a[i] = match v {
                    Value::Null => 0,
                    v => v.as_u64().ok_or_else(|| at(format!(".args.{arg}: expected a whole number")))?,
                };
            }
            if let Some(extra) = args.keys().find(|k| !text.args().contains(&k.as_str())) {
                return Err(at(format!(
                    ".args: the note `{name}` has no argument `{extra}` (it takes: {})",
                    text.args().join(", ")
                )));
            }
            // A node process's narration is data read at run time: the one untyped note.
            #[allow(clippy::disallowed_methods)]
            Ok(Fx::Note(Note::untyped(text, &a)))
        }
        other => Err(format!("{other}: unknown effect (expected send, broadcast, set_timer, cancel_timer or note)")),
    }
}

fn timer_name(v: Option<&Value>, decl: &Decl) -> Result<&'static str, String> {
    let name = v.and_then(Value::as_str).ok_or("expected a timer's name".to_string())?;
    decl.timer(name).ok_or_else(|| format!("unknown timer `{name}` (declared in `timers`: {})", decl.timers.join(", ")))
}

fn node(v: Option<&Value>, cfg: &Config) -> Result<NodeId, String> {
    let id = v.and_then(Value::as_u64).ok_or("expected a node id".to_string())?;
    match NodeId::try_from(id) {
        Ok(id) if cfg.ids.contains(&id) => Ok(id),
        _ => Err(format!("{id} is not a node of this run")),
    }
}

fn state(s: &Map<String, Value>, decl: &Decl, cfg: &Config) -> Result<Update, String> {
    let mut u = Update::default();
    for (k, v) in s {
        let opt_node = || if v.is_null() { Ok(None) } else { node(Some(v), cfg).map(Some) };
        match k.as_str() {
            "role" => {
                let r = v.as_str().ok_or("role: expected a string".to_string())?;
                u.role = Some(
                    decl.role(r)
                        .ok_or_else(|| format!("role: unknown role `{r}` (declared: {})", decl.roles.join(", ")))?,
                );
            }
            "leader" => u.leader = Some(opt_node().map_err(|m| format!("leader: {m}"))?),
            "vote" => u.vote = Some(opt_node().map_err(|m| format!("vote: {m}"))?),
            "term" => {
                u.term = Some(match v {
                    Value::Null => None,
                    v => Some(v.as_u64().ok_or("term: expected a whole number".to_string())?),
                })
            }
            other => {
                let Some(i) = decl.fields.iter().position(|f| f.name == other) else {
                    let names: Vec<&str> = decl.fields.iter().map(|f| f.name.as_str()).collect();
                    return Err(format!(
                        "{other}: unknown entry (expected role, leader, term, vote or a declared field: {})",
                        names.join(", ")
                    ));
                };
                use crate::field::FieldValue as V;
                let node = |n: &serde_json::Number| n.as_u64().and_then(|n| NodeId::try_from(n).ok());
                let typed = match (v, decl.fields[i].show) {
                    (Value::Null, _) => V::None,
                    (Value::Number(n), crate::protocols::script::value::Show::Node) if node(n).is_some() => {
                        V::node(node(n))
                    }
                    (Value::Number(n), crate::protocols::script::value::Show::Node) => V::Text(format!("N{n}")),
                    (Value::Number(n), _) if n.as_i64().is_some() => V::Num(n.as_i64().unwrap_or_default()),
                    (Value::Bool(b), _) => V::Flag(*b),
                    (Value::String(s), _) => V::Text(s.clone()),
                    (v, _) => V::Text(v.to_string()),
                };
                u.fields.push((i, typed));
            }
        }
    }
    Ok(u)
}
