//! The recorded run's script (the scenario's `params`) read by hand (see [`crate::read`]): the
//! members, events and messages an importer wrote, each wrong field named
//! (`params.events[3].term: expected a whole number, found a string`).

use super::{Event, Member, Msg, Script};
use crate::error::ScenarioError;
use crate::protocol::Params;
use crate::read::Obj;
use serde_json::Value;

impl Script {
    pub(crate) fn read(params: &Params) -> Result<Script, ScenarioError> {
        let value = Value::Object(params.clone());
        let o = Obj::new(&value, "params".into(), &["members", "events", "messages", "t0", "evidence"])?;
        let each = |k: &str, keys: &[&str]| -> Result<Vec<Obj>, ScenarioError> {
            let list = o.list(k)?;
            list.iter().enumerate().map(|(i, v)| Obj::new(v, format!("params.{k}[{i}]"), keys)).collect()
        };
        let mut members = Vec::new();
        for m in each("members", &["node", "name", "id", "addr"])? {
            members.push(Member {
                node: m.id_of("node", m.need("node")?)?,
                name: string_or_empty(&m, "name")?,
                id: string_or_empty(&m, "id")?,
                addr: string_or_empty(&m, "addr")?,
            });
        }
        let keys = ["at", "node", "role", "term", "leader", "vote", "tally", "zxid", "say", "args", "line", "paused"];
        let mut events = Vec::new();
        for e in each("events", &keys)? {
            let id = |k: &str| e.get(k).map(|v| e.id_of(k, v)).transpose();
            let tally = match e.pair("tally")? {
                Some([a, b]) => {
                    let small = |n: u64| u32::try_from(n).map_err(|_| e.wrong("tally", "two counts", &e.map["tally"]));
                    Some([small(a)?, small(b)?])
                }
                None => None,
            };
            events.push(Event {
                at: e.uint("at")?,
                node: e.id_of("node", e.need("node")?)?,
                role: e.opt_string("role")?,
                term: e.opt_u64("term")?,
                leader: id("leader")?,
                vote: id("vote")?,
                tally,
                zxid: e.opt_u64("zxid")?,
                say: e.string("say")?,
                args: e.pair("args")?.unwrap_or([0, 0]),
                line: string_or_empty(&e, "line")?,
                paused: e.map.get("paused").map(|_| e.bool_or("paused", false)).transpose()?,
            });
        }
        let keys = ["from", "to", "kind", "sent", "received", "term", "extra", "flag", "line"];
        let mut messages = Vec::new();
        for m in each("messages", &keys)? {
            messages.push(Msg {
                from: m.id_of("from", m.need("from")?)?,
                to: m.id_of("to", m.need("to")?)?,
                kind: m.string("kind")?,
                sent: m.uint("sent")?,
                received: m.uint("received")?,
                term: m.uint_or("term", 0)?,
                extra: m.uint_or("extra", 0)?,
                flag: string_or_empty(&m, "flag")?,
                line: string_or_empty(&m, "line")?,
            });
        }
        Ok(Script { members, events, messages, t0: o.uint_or("t0", 0)? })
    }
}

/// A string field that defaults to empty.
fn string_or_empty(o: &Obj, k: &str) -> Result<String, ScenarioError> {
    match o.map.get(k) {
        None => Ok(String::new()),
        Some(_) => o.string(k),
    }
}
