//! The event format: any implementation's election as versioned JSON Lines
//! (`election-lab-events/1`), opened as a recorded run exactly as the etcd and ZooKeeper logs are
//! (the same puppet protocol, the same [`super::recorded::Builder`], the same report).
//!
//! The first line is a header naming the system, the vocabulary its events speak and, optionally,
//! its members; every other line is one event of one member at a wall time, with the log line it
//! came from kept as evidence (`raw`, `src`). The format is documented in the guide's chapter
//! "Any system's election" (`docs/guide/src/events.md`). Two vocabularies exist, one per puppet
//! flavour already in the page, so that an imported run opens there with nothing added to its
//! first load: `raft` (roles leader / follower / candidate / pre-candidate, terms, vote requests
//! and answers: replayed beside Raft) and `zookeeper` (LOOKING / FOLLOWING / LEADING, rounds,
//! notifications: replayed beside fast leader election).
//!
//! [`mapping`] turns any text log into this format with regular expressions (native only).

use super::recorded::systems::{etcd as etcd_log, zookeeper as zookeeper_log};
use super::recorded::{Imported, LogFile};
use serde_json::{json, Map, Value};

#[cfg(feature = "mappings")]
pub mod mapping;
#[cfg(feature = "mappings")]
mod merge;

/// The format's name and version, the header's `format`.
pub const FORMAT: &str = "election-lab-events/1";

/// The event kinds, as the `kind` field names them.
pub const KINDS: &[&str] = &[
    "became_leader",
    "became_follower",
    "became_candidate",
    "became_pre_candidate",
    "term",
    "leader",
    "vote",
    "tally",
    "timeout",
    "higher_term",
    "send",
    "receive",
    "peer_down",
    "peer_up",
    "started",
    "crash",
    "recover",
    "pause",
    "resume",
    "link_lost",
    "link_restored",
    "note",
];

/// Message kinds per vocabulary (the `msg` of a send or receive) and the puppet's kind.
const RAFT_MSGS: &[(&str, &str)] = &[
    ("request_vote", "REQUEST_VOTE"),
    ("vote_grant", "VOTE_GRANT"),
    ("vote_deny", "VOTE_DENY"),
    ("pre_vote", "PRE_VOTE"),
    ("pre_vote_grant", "PRE_VOTE_GRANT"),
    ("pre_vote_deny", "PRE_VOTE_DENY"),
];
const ZK_MSGS: &[(&str, &str)] = &[("vote", "VOTE")];

/// Which puppet an event stream is drawn by.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Vocabulary {
    Raft,
    Zookeeper,
}

impl Vocabulary {
    pub fn name(self) -> &'static str {
        match self {
            Vocabulary::Raft => "raft",
            Vocabulary::Zookeeper => "zookeeper",
        }
    }
    fn parse(s: &str) -> Option<Self> {
        match s {
            "raft" => Some(Vocabulary::Raft),
            "zookeeper" => Some(Vocabulary::Zookeeper),
            _ => None,
        }
    }
    fn msgs(self) -> &'static [(&'static str, &'static str)] {
        match self {
            Vocabulary::Raft => RAFT_MSGS,
            Vocabulary::Zookeeper => ZK_MSGS,
        }
    }
}

/// A member the header lists.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct MemberDecl {
    pub id: String,
    pub name: String,
    pub addr: String,
    /// Its first and last log line of any kind (ms since 1970), when known: a member whose log
    /// goes on after its last election line was not dead then.
    pub logged: Option<(u64, u64)>,
    /// Where its last line is (file, line from 1), when known: a crash's evidence names it.
    pub last_at: Option<(usize, usize)>,
}

/// The header line.
#[derive(Clone, Debug, PartialEq)]
pub struct Header {
    pub system: String,
    pub vocabulary: Vocabulary,
    pub members: Vec<MemberDecl>,
    /// Number members by their ids (which must then be whole numbers), not by name.
    pub number_by_id: bool,
    /// The real heartbeat interval and election timeout (ms), for the model's replay.
    pub timeouts: Option<(u64, u64)>,
    /// The earliest time in the logs (tick 0), when earlier than every event.
    pub start: Option<u64>,
}

/// One event: `file` and `line` say where it was read (the events file, or the log a mapping read).
#[derive(Clone, Debug, PartialEq)]
pub struct Event {
    pub t: u64,
    pub node: String,
    pub kind: &'static str,
    /// The other fields, as read: `term`, `leader`, `for`, `peer`, `msg`, `zxid`, `votes`, `text`.
    pub fields: Map<String, Value>,
    pub file: usize,
    pub line: usize,
    /// The log line the event was read from, when known.
    pub raw: String,
}

impl Header {
    pub fn to_json(&self) -> Value {
        let members: Vec<Value> = self
            .members
            .iter()
            .map(|m| {
                let mut o = json!({"id": m.id});
                for (k, v) in [("name", &m.name), ("addr", &m.addr)] {
                    if !v.is_empty() {
                        o[k] = json!(v);
                    }
                }
                if let Some((a, b)) = m.logged {
                    o["logged"] = json!([a, b]);
                }
                o
            })
            .collect();
        let mut h = json!({"format": FORMAT, "system": self.system, "vocabulary": self.vocabulary.name(),
                           "members": members});
        if self.number_by_id {
            h["number"] = json!("id");
        }
        if let Some(s) = self.start {
            h["start"] = json!(s);
        }
        if let Some((hb, el)) = self.timeouts {
            h["heartbeat_ms"] = json!(hb);
            h["election_timeout_ms"] = json!(el);
        }
        h
    }
}

impl Event {
    /// The event as a line of the format (`src` names the log line it came from).
    pub fn to_json(&self, src: &str) -> Value {
        let mut o = Map::new();
        o.insert("time".into(), json!(self.t));
        o.insert("node".into(), json!(self.node));
        o.insert("kind".into(), json!(self.kind));
        for (k, v) in &self.fields {
            o.insert(k.clone(), v.clone());
        }
        if !src.is_empty() {
            o.insert("src".into(), json!(src));
        }
        if !self.raw.is_empty() {
            o.insert("raw".into(), json!(self.raw));
        }
        Value::Object(o)
    }
}

/// Writes a header and events as the format's text.
pub fn write(header: &Header, events: &[Event], files: &[LogFile]) -> String {
    // The format first, for a reader that looks at the head of the file.
    let mut h = header.to_json();
    if let Some(o) = h.as_object_mut() {
        o.remove("format");
    }
    let rest = h.to_string();
    let mut out = format!("{{\"format\":\"{FORMAT}\",{}\n", &rest[1..]);
    for e in events {
        let src = files.get(e.file).map(|f| format!("{}:{}", f.name, e.line)).unwrap_or_default();
        out.push_str(&e.to_json(&src).to_string());
        out.push('\n');
    }
    out
}

/// A wall time: whole milliseconds since 1970, or a date and time `YYYY-MM-DD hh:mm:ss[.fff]`
/// (`T` or a space between, any trailing zone ignored: read as UTC).
pub fn time_of(v: &Value) -> Option<u64> {
    match v {
        Value::Number(n) => n.as_u64(),
        Value::String(s) => super::recorded::parse_stamp(s).map(|x| x.0),
        _ => None,
    }
}

/// A member id: a string, or a whole number written as one.
fn id_of(v: &Value) -> Option<String> {
    match v {
        Value::String(s) if !s.is_empty() => Some(s.clone()),
        Value::Number(n) => n.as_u64().map(|n| n.to_string()),
        _ => None,
    }
}

/// Whether a text is an events file: its first line is this format's header.
pub fn is_events(text: &str) -> bool {
    let first = text.lines().find(|l| !l.trim().is_empty()).unwrap_or("");
    let v: Option<Value> = serde_json::from_str(first).ok();
    v.and_then(|v| Some(v.get("format")?.as_str()? == FORMAT)).unwrap_or(false)
}

/// Reads the format's text: the header and the events, or the first problem found, naming the
/// line and the field (`events.jsonl:7: field 'term': expected a whole number, found "x"`).
pub fn read(name: &str, text: &str) -> Result<(Header, Vec<Event>), String> {
    if text.len() > super::recorded::MAX_INPUT {
        return Err(format!("{name}: {} bytes; at most {} are read", text.len(), super::recorded::MAX_INPUT));
    }
    let mut lines = text.lines().enumerate().filter(|(_, l)| !l.trim().is_empty());
    let Some((h, first)) = lines.next() else {
        return Err(format!("{name}: empty; the first line must be the header {{\"format\": \"{FORMAT}\", ...}}"));
    };
    let at = |n: usize| format!("{name}:{}", n + 1);
    let header = read_header(first).map_err(|e| format!("{}: {e}", at(h)))?;
    let mut events = Vec::new();
    for (n, line) in lines {
        if line.len() > super::recorded::MAX_LINE {
            return Err(format!("{}: line too long (more than {} bytes)", at(n), super::recorded::MAX_LINE));
        }
        let v: Value = serde_json::from_str(line).map_err(|e| format!("{}: not a JSON object: {e}", at(n)))?;
        let e = read_event(&v, header.vocabulary).map_err(|e| format!("{}: {e}", at(n)))?;
        events.push(Event { file: 0, line: n + 1, ..e });
        if events.len() > super::recorded::MAX_SCRIPT {
            return Err(format!("{}: more than {} events", at(n), super::recorded::MAX_SCRIPT));
        }
    }
    Ok((header, events))
}

fn wrong(field: &str, expected: &str, v: &Value) -> String {
    format!("field '{field}': expected {expected}, found {v}")
}

fn read_header(line: &str) -> Result<Header, String> {
    let v: Value = serde_json::from_str(line).map_err(|e| format!("the header is not a JSON object: {e}"))?;
    let o = v.as_object().ok_or_else(|| "the header is not a JSON object".to_string())?;
    for k in o.keys() {
        if !["format", "system", "vocabulary", "members", "number", "start", "heartbeat_ms", "election_timeout_ms"]
            .contains(&k.as_str())
        {
            return Err(format!("header: unknown field '{k}'"));
        }
    }
    match o.get("format") {
        Some(Value::String(f)) if f == FORMAT => {}
        Some(f) => return Err(format!("header: field 'format': expected \"{FORMAT}\", found {f}")),
        None => return Err(format!("the first line must be the header, with \"format\": \"{FORMAT}\"")),
    }
    let system = match o.get("system") {
        Some(Value::String(s)) => s.clone(),
        Some(x) => return Err(format!("header: {}", wrong("system", "a string", x))),
        None => return Err("header: field 'system' is missing (the system the logs come from)".into()),
    };
    let vocabulary = match o.get("vocabulary") {
        Some(Value::String(s)) => Vocabulary::parse(s)
            .ok_or_else(|| format!("header: field 'vocabulary': unknown '{s}' (expected raft or zookeeper)"))?,
        Some(x) => return Err(format!("header: {}", wrong("vocabulary", "raft or zookeeper", x))),
        None => return Err("header: field 'vocabulary' is missing (raft or zookeeper)".into()),
    };
    let mut members = Vec::new();
    if let Some(list) = o.get("members") {
        let list = list.as_array().ok_or_else(|| format!("header: {}", wrong("members", "a list", list)))?;
        for (i, m) in list.iter().enumerate() {
            let mo = m.as_object().ok_or_else(|| format!("header: members[{i}]: expected an object, found {m}"))?;
            let id = mo
                .get("id")
                .and_then(id_of)
                .ok_or_else(|| format!("header: members[{i}].id: expected a member id (a string)"))?;
            let text = |k: &str| -> Result<String, String> {
                match mo.get(k) {
                    None => Ok(String::new()),
                    Some(Value::String(s)) => Ok(s.clone()),
                    Some(x) => Err(format!("header: members[{i}].{k}: expected a string, found {x}")),
                }
            };
            let logged = match mo.get("logged") {
                None => None,
                Some(x) => match x.as_array().map(|a| a.iter().map(time_of).collect::<Vec<_>>()).as_deref() {
                    Some([Some(a), Some(b)]) if a <= b => Some((*a, *b)),
                    _ => return Err(format!("header: members[{i}].logged: expected [first, last] times, found {x}")),
                },
            };
            members.push(MemberDecl { id, name: text("name")?, addr: text("addr")?, logged, last_at: None });
        }
    }
    let number_by_id = match o.get("number") {
        None => false,
        Some(Value::String(s)) if s == "id" => true,
        Some(Value::String(s)) if s == "name" => false,
        Some(x) => return Err(format!("header: {}", wrong("number", "\"id\" or \"name\"", x))),
    };
    let ms = |k: &str| -> Result<Option<u64>, String> {
        match o.get(k) {
            None => Ok(None),
            Some(x) => x.as_u64().map(Some).ok_or_else(|| format!("header: {}", wrong(k, "whole milliseconds", x))),
        }
    };
    let timeouts = match (ms("heartbeat_ms")?, ms("election_timeout_ms")?) {
        (Some(h), Some(e)) => Some((h, e)),
        (None, None) => None,
        _ => return Err("header: give both heartbeat_ms and election_timeout_ms, or neither".into()),
    };
    let start = match o.get("start") {
        None => None,
        Some(x) => Some(time_of(x).ok_or_else(|| format!("header: {}", wrong("start", "a time", x)))?),
    };
    Ok(Header { system, vocabulary, members, number_by_id, timeouts, start })
}

/// The fields each kind takes (besides time, node, kind, src, raw).
fn fields_of(kind: &str) -> &'static [&'static str] {
    match kind {
        "became_leader" | "became_candidate" | "became_pre_candidate" => &["term"],
        "became_follower" => &["term", "leader"],
        "term" => &["term"],
        "leader" => &["leader", "term"],
        "vote" => &["for", "term", "zxid", "opens"],
        "tally" => &["votes", "rejections"],
        "timeout" => &["term"],
        "higher_term" => &["peer", "term"],
        "send" | "receive" => &["peer", "msg", "term", "leader"],
        "peer_down" | "peer_up" | "link_lost" | "link_restored" => &["peer"],
        "note" => &["text"],
        _ => &[],
    }
}

/// Reads one event line (its place is filled in by the caller).
pub fn read_event(v: &Value, voc: Vocabulary) -> Result<Event, String> {
    let o = v.as_object().ok_or_else(|| format!("expected an event object, found {v}"))?;
    let kind = match o.get("kind") {
        Some(Value::String(k)) => *KINDS
            .iter()
            .find(|x| **x == k.as_str())
            .ok_or_else(|| format!("field 'kind': unknown '{k}' (expected one of: {})", KINDS.join(", ")))?,
        Some(x) => return Err(wrong("kind", "a string", x)),
        None => return Err("field 'kind' is missing".into()),
    };
    let t = match o.get("time") {
        Some(x) => time_of(x).ok_or_else(|| wrong("time", "milliseconds since 1970 or YYYY-MM-DD hh:mm:ss.fff", x))?,
        None => return Err("field 'time' is missing".into()),
    };
    let node = match o.get("node") {
        Some(x) => id_of(x).ok_or_else(|| wrong("node", "a member id", x))?,
        None => return Err("field 'node' is missing".into()),
    };
    let allowed = fields_of(kind);
    let mut fields = Map::new();
    for (k, x) in o {
        if ["time", "node", "kind", "src", "raw", "vc"].contains(&k.as_str()) {
            continue;
        }
        if !allowed.contains(&k.as_str()) {
            return Err(format!("field '{k}' is not one of a {kind} event's ({})", allowed.join(", ")));
        }
        let ok = match k.as_str() {
            "term" | "zxid" | "votes" | "rejections" => x.is_u64(),
            "leader" => x.is_null() || id_of(x).is_some(),
            "for" | "peer" => id_of(x).is_some(),
            "msg" => x.as_str().is_some_and(|m| voc.msgs().iter().any(|(n, _)| *n == m)),
            "opens" => x.is_boolean(),
            _ => x.is_string(),
        };
        if !ok {
            let expected = match k.as_str() {
                "term" | "zxid" | "votes" | "rejections" => "a whole number".to_string(),
                "leader" => "a member id or null".to_string(),
                "for" | "peer" => "a member id".to_string(),
                "opens" => "true or false".to_string(),
                "msg" => {
                    let names: Vec<&str> = voc.msgs().iter().map(|x| x.0).collect();
                    format!("one of the {} vocabulary's messages: {}", voc.name(), names.join(", "))
                }
                _ => "a string".to_string(),
            };
            return Err(wrong(k, &expected, x));
        }
        let x = if matches!(k.as_str(), "for" | "peer") || (k == "leader" && !x.is_null()) {
            json!(id_of(x))
        } else {
            x.clone()
        };
        fields.insert(k.clone(), x);
    }
    for need in match kind {
        "term" => &["term"][..],
        "leader" => &["leader"][..],
        "vote" => &["for"][..],
        "tally" => &["votes"][..],
        "send" | "receive" => &["peer", "msg"][..],
        "higher_term" => &["peer", "term"][..],
        "peer_down" | "peer_up" | "link_lost" | "link_restored" => &["peer"][..],
        _ => &[][..],
    } {
        if !fields.contains_key(*need) {
            return Err(format!("a {kind} event needs field '{need}'"));
        }
    }
    if matches!(kind, "link_lost" | "link_restored") && fields.get("peer").and_then(Value::as_str) == Some(&node) {
        return Err(format!("field 'peer': a {kind} event names the other end of the link, not '{node}' itself"));
    }
    if voc == Vocabulary::Raft && kind == "term" {
        return Err(
            "kind 'term' is for the zookeeper vocabulary (its rounds); in raft, a term comes with became_* or leader"
                .into(),
        );
    }
    if voc == Vocabulary::Zookeeper
        && matches!(kind, "became_pre_candidate" | "leader" | "tally" | "timeout" | "higher_term")
    {
        return Err(format!("kind '{kind}' is for the raft vocabulary"));
    }
    if let Some(vc) = o.get("vc") {
        fields.insert("vc".into(), clock::read(vc, &node)?);
    }
    let raw = o.get("raw").and_then(Value::as_str).unwrap_or("").to_string();
    Ok(Event { t, node, kind, fields, file: 0, line: 0, raw })
}

mod build;
pub mod clock;
pub use build::import_events;

/// Imports the format's text (one events file) as a recorded run.
pub fn import(name: &str, text: &str) -> Result<Imported, String> {
    import_with(name, text, None)
}

/// Imports an events file, with the faults a harness wrote (see [`read_faults`]), if any.
pub fn import_with(name: &str, text: &str, faults: Option<LogFile>) -> Result<Imported, String> {
    let (header, mut events) = read(name, text)?;
    let mut files = vec![LogFile { name, text }];
    let mut lines = vec![text.lines().count()];
    if let Some(f) = faults {
        events.extend(read_faults(f.name, f.text, 1)?);
        lines.push(f.text.lines().count());
        files.push(f);
    }
    import_events(&files, &lines, &header, &events, &[])
}

/// The kinds a faults file may hold.
pub const FAULT_KINDS: &[&str] = &["crash", "recover", "pause", "resume", "link_lost", "link_restored", "note"];

/// Reads a faults file: the event format holding only faults ([`FAULT_KINDS`]) and notes, as a
/// harness writes them when it kills, freezes or resumes a member (`scripts/real-cluster.sh`
/// writes `faults.jsonl`); its events are given file index `file`.
pub fn read_faults(name: &str, text: &str, file: usize) -> Result<Vec<Event>, String> {
    let (_, events) = read(name, text)?;
    if let Some(e) = events.iter().find(|e| !FAULT_KINDS.contains(&e.kind)) {
        return Err(format!(
            "{name}:{}: a faults file holds {} events, not {}",
            e.line,
            FAULT_KINDS.join(", "),
            e.kind
        ));
    }
    Ok(events.into_iter().map(|e| Event { file, ..e }).collect())
}

/// The recorded algorithm and the textbook model of a vocabulary.
pub fn algorithm_of(voc: Vocabulary) -> (&'static str, &'static str) {
    match voc {
        Vocabulary::Raft => (etcd_log::ID, etcd_log::MODEL),
        Vocabulary::Zookeeper => (zookeeper_log::ID, zookeeper_log::MODEL),
    }
}
