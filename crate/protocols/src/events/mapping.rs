//! Log mappings: a JSON file of regular expressions that turns any text log into the event format
//! (`election-lab-mapping/1`), line by line, instead of a parser per system. Native only (feature
//! `mappings`): the regular-expression engine is not in the page.
//!
//! A mapping says how a line gives its time (`lines`: the first pattern that matches, with a
//! `time` capture and its `time_format`, optionally the line's `node`), and which lines are which
//! events (`rules`: every rule whose pattern matches emits one event, its named captures giving
//! the event's fields: `node`, `term`, `leader`, `for`, `peer`, `zxid`, `votes`, `rejections`,
//! `text`; `set` gives fixed ones, such as a message's `msg`). Two more kinds of rule say facts,
//! not events: `member` (the member's `name` and `addr`) and `setting` (`heartbeat`, `election`
//! or ZooKeeper's `tick`). A line without a `node` belongs to the member its `process` capture
//! was seen with on a line that named one (a process id most loggers write on every line), else
//! to its file's member: the one member the file's lines name. What a pattern cannot say is a named option, not code: `coarse` (a
//! line format whose times are whole seconds, placed 1 ms apart after the file's last finer time).
//! A file that is members' logs concatenated is read as those files ([`super::merge`]).

use super::merge::{self, Scanned};
use super::{Event, Header, MemberDecl, Vocabulary, KINDS};
use crate::protocols::recorded::{self, Imported, LogFile};
use regex::Regex;
use serde_json::{Map, Value};
use std::collections::BTreeMap;

/// The mapping format's name and version.
pub const FORMAT: &str = "election-lab-mapping/1";

/// The mappings shipped with the app, by name.
pub const SHIPPED: &[(&str, &str)] = &[
    ("etcd", include_str!("etcd.json")),
    ("zookeeper", include_str!("zookeeper.json")),
    ("sentinel", include_str!("sentinel.json")),
];

struct LineFormat {
    re: Regex,
    time: TimeFormat,
    coarse: bool,
}

enum TimeFormat {
    /// `YYYY-MM-DD hh:mm:ss[.fff]`, any one-character separators.
    Iso,
    UnixMs,
    /// A pattern of `%Y %m %d %H %M %S %f %b` and literal characters.
    Pattern(String),
}

struct Rule {
    kind: &'static str,
    re: Regex,
    set: Map<String, Value>,
}

/// What a mapping made of the logs: the events' header and events, the lines read per file, the
/// lines refused (file, line, why) and notes for the report.
pub struct Applied {
    pub header: Header,
    pub events: Vec<Event>,
    pub read: Vec<usize>,
    pub damaged: Vec<(usize, usize, String)>,
    pub notes: Vec<String>,
    /// Files that cannot be read faithfully at all, each with why (their lines are left out):
    /// an import of them is refused.
    pub refused: Vec<String>,
}

/// A mapping, read and compiled.
pub struct Mapping {
    pub system: String,
    pub vocabulary: Vocabulary,
    number_by_id: bool,
    /// A member with no `name` is named after its file (`s1.log` → `s1`).
    name_from_file: bool,
    lines: Vec<LineFormat>,
    rules: Vec<Rule>,
}

const MEMBER_KINDS: &[&str] = &["member", "setting"];
const CAPTURES: &[&str] = &[
    "time",
    "node",
    "term",
    "leader",
    "for",
    "peer",
    "zxid",
    "votes",
    "rejections",
    "text",
    "name",
    "addr",
    "heartbeat",
    "election",
    "tick",
    "vc",
    "process",
];

fn regex(s: &str, at: &str) -> Result<Regex, String> {
    let re = regex::RegexBuilder::new(s)
        .size_limit(1 << 20)
        .build()
        .map_err(|e| format!("{at}.regex: not a regular expression: {e}"))?;
    for name in re.capture_names().flatten() {
        if !CAPTURES.contains(&name) {
            return Err(format!("{at}.regex: unknown capture '{name}' (expected one of: {})", CAPTURES.join(", ")));
        }
    }
    Ok(re)
}

impl Mapping {
    /// Reads a mapping, naming the field at fault (`rules[3].kind: unknown 'leeder'`).
    pub fn read(text: &str) -> Result<Mapping, String> {
        let v: Value = serde_json::from_str(text).map_err(|e| format!("not JSON: {e}"))?;
        let o = v.as_object().ok_or("expected a JSON object")?;
        for k in o.keys() {
            if !["format", "system", "vocabulary", "number", "name_from_file", "lines", "rules", "about"]
                .contains(&k.as_str())
            {
                return Err(format!("unknown field '{k}'"));
            }
        }
        if o.get("format").and_then(Value::as_str) != Some(FORMAT) {
            return Err(format!("field 'format': expected \"{FORMAT}\""));
        }
        let system = o.get("system").and_then(Value::as_str).ok_or("field 'system': expected a string")?.to_string();
        let vocabulary = match o.get("vocabulary").and_then(Value::as_str) {
            Some("raft") => Vocabulary::Raft,
            Some("zookeeper") => Vocabulary::Zookeeper,
            _ => return Err("field 'vocabulary': expected \"raft\" or \"zookeeper\"".into()),
        };
        let number_by_id = match o.get("number").and_then(Value::as_str) {
            None | Some("name") => false,
            Some("id") => true,
            Some(x) => return Err(format!("field 'number': expected \"id\" or \"name\", found \"{x}\"")),
        };
        let name_from_file = match o.get("name_from_file") {
            None => false,
            Some(Value::Bool(b)) => *b,
            Some(x) => return Err(format!("field 'name_from_file': expected true or false, found {x}")),
        };
        let list = |k: &str| -> Result<&Vec<Value>, String> {
            o.get(k).and_then(Value::as_array).ok_or_else(|| format!("field '{k}': expected a list"))
        };
        let mut lines = Vec::new();
        for (i, l) in list("lines")?.iter().enumerate() {
            let at = format!("lines[{i}]");
            let re = l.get("regex").and_then(Value::as_str).ok_or_else(|| format!("{at}.regex: expected a string"))?;
            let re = regex(re, &at)?;
            if !re.capture_names().flatten().any(|n| n == "time") {
                return Err(format!("{at}.regex: needs a (?P<time>...) capture"));
            }
            let time = match l.get("time_format").and_then(Value::as_str) {
                None | Some("iso") => TimeFormat::Iso,
                Some("unix_ms") => TimeFormat::UnixMs,
                Some(p) if p.contains('%') => TimeFormat::Pattern(p.to_string()),
                Some(p) => return Err(format!("{at}.time_format: '{p}' is not iso, unix_ms or a %-pattern")),
            };
            let coarse = l.get("coarse").and_then(Value::as_bool).unwrap_or(false);
            lines.push(LineFormat { re, time, coarse });
        }
        if lines.is_empty() {
            return Err("field 'lines': give at least one line format".into());
        }
        let mut rules = Vec::new();
        for (i, r) in list("rules")?.iter().enumerate() {
            let at = format!("rules[{i}]");
            let k = r.get("kind").and_then(Value::as_str).ok_or_else(|| format!("{at}.kind: expected a string"))?;
            let kind = KINDS.iter().chain(MEMBER_KINDS).find(|x| **x == k).ok_or_else(|| {
                format!("{at}.kind: unknown '{k}' (expected one of: {}, member, setting)", KINDS.join(", "))
            })?;
            let re = r.get("regex").and_then(Value::as_str).ok_or_else(|| format!("{at}.regex: expected a string"))?;
            let set = match r.get("set") {
                None => Map::new(),
                Some(Value::Object(m)) => m.clone(),
                Some(_) => return Err(format!("{at}.set: expected an object of fixed fields")),
            };
            rules.push(Rule { kind, re: regex(re, &at)?, set });
        }
        Ok(Mapping { system, vocabulary, number_by_id, name_from_file, lines, rules })
    }

    /// A shipped mapping by name, or a mapping file's text.
    pub fn shipped(name: &str) -> Option<&'static str> {
        SHIPPED.iter().find(|s| s.0 == name).map(|s| s.1)
    }

    /// The shipped mapping that reads the most events from these logs (its name and the
    /// mapping), if any reads one: how the page finds which system's logs it was given.
    pub fn best(files: &[LogFile]) -> Option<(&'static str, Mapping)> {
        let mut best: Option<(usize, &'static str, Mapping)> = None;
        for (name, text) in SHIPPED {
            let Ok(m) = Mapping::read(text) else { continue };
            let n = m.apply(files).events.len();
            if n > 0 && best.as_ref().is_none_or(|b| n > b.0) {
                best = Some((n, name, m));
            }
        }
        best.map(|(_, name, m)| (name, m))
    }

    /// Whether a text is a mapping file (its `format` is this format's).
    pub fn is_mapping(text: &str) -> bool {
        let v: Option<Value> = serde_json::from_str(text).ok();
        v.and_then(|v| Some(v.get("format")?.as_str()? == FORMAT)).unwrap_or(false)
    }

    /// Applies the mapping to the logs.
    pub fn apply(&self, files: &[LogFile]) -> Applied {
        let mut a = Applied {
            header: Header {
                system: self.system.clone(),
                vocabulary: self.vocabulary,
                members: Vec::new(),
                number_by_id: self.number_by_id,
                timeouts: None,
                start: None,
            },
            events: Vec::new(),
            read: Vec::new(),
            damaged: Vec::new(),
            notes: Vec::new(),
            refused: Vec::new(),
        };
        let mut members: BTreeMap<String, MemberDecl> = BTreeMap::new();
        let mut coarse = false;
        for (f, file) in files.iter().enumerate() {
            // The member each logging process was seen naming (its first), for lines that name none.
            let mut processes: BTreeMap<String, String> = BTreeMap::new();
            let lines = self.scan(f, file.text, &mut a, &mut processes);
            coarse |= lines.iter().any(|l| l.coarse);
            let parts = merge::parts(&lines);
            let whole = parts.len() == 1;
            let mut lines = lines.into_iter();
            for len in parts {
                let part: Vec<Scanned> = lines.by_ref().take(len).collect();
                self.read_part(f, file.name, whole, part, &processes, &mut a, &mut members);
            }
        }
        a.header.members = members.into_values().collect();
        if coarse {
            a.notes.push("some lines carry whole seconds only: they are placed 1 ms apart after their member's last finer time, so their times are approximate".to_string());
        }
        a
    }

    /// A file's lines as the mapping reads them, before their times are placed and their members
    /// known; what cannot be read is refused by line, settings are taken at once.
    fn scan(&self, f: usize, text: &str, a: &mut Applied, processes: &mut BTreeMap<String, String>) -> Vec<Scanned> {
        let mut out = Vec::new();
        let mut n = 0;
        for (k, raw) in text.lines().enumerate() {
            n += 1;
            if raw.len() > recorded::MAX_LINE {
                a.damaged.push((f, k + 1, "line too long".to_string()));
                continue;
            }
            let line = raw.trim_end();
            let Some((fmt, caps)) = self.lines.iter().find_map(|l| l.re.captures(line).map(|c| (l, c))) else {
                continue;
            };
            let stamp = caps.name("time").map_or("", |m| m.as_str());
            let Some(t) = fmt.time.read(stamp) else {
                a.damaged.push((f, k + 1, format!("a time '{stamp}' that is not a time")));
                continue;
            };
            let line_node = caps.name("node").map(|m| m.as_str().to_string());
            let process = caps.name("process").map(|m| m.as_str().to_string());
            let mut s = Scanned {
                line: k + 1,
                t,
                coarse: fmt.coarse,
                member: line_node.clone(),
                names: Vec::new(),
                process: process.clone(),
                events: Vec::new(),
                facts: Vec::new(),
            };
            for rule in &self.rules {
                let Some(c) = rule.re.captures(line) else { continue };
                let node = c.name("node").map(|m| m.as_str().to_string()).or_else(|| line_node.clone());
                if let Some(nd) = &node {
                    s.names.push(nd.clone());
                    s.member.get_or_insert_with(|| nd.clone());
                    if let Some(p) = &process {
                        processes.entry(p.clone()).or_insert_with(|| nd.clone());
                    }
                }
                let text = |k: &str| c.name(k).map(|m| m.as_str().to_string());
                match rule.kind {
                    "member" => {
                        s.facts.push((node, text("name"), text("addr")));
                        continue;
                    }
                    "setting" => {
                        let ms = |k: &str| text(k).and_then(|v| duration_ms(&v));
                        let timeouts = &mut a.header.timeouts;
                        if let Some(tick) = ms("tick") {
                            *timeouts = Some((tick, tick.saturating_mul(5)));
                        }
                        if let Some(h) = ms("heartbeat") {
                            *timeouts = Some((h, timeouts.map_or(1000, |x| x.1)));
                        }
                        if let Some(e) = ms("election") {
                            *timeouts = Some((timeouts.map_or(100, |x| x.0), e));
                        }
                        continue;
                    }
                    _ => {}
                }
                let mut fields = rule.set.clone();
                let mut whole = true;
                for name in rule.re.capture_names().flatten() {
                    let Some(m) = c.name(name) else { continue };
                    let s = m.as_str();
                    let v = match name {
                        "time" | "node" | "name" | "addr" | "heartbeat" | "election" | "tick" | "process" => continue,
                        "term" | "zxid" | "votes" | "rejections" => match number(s) {
                            Some(x) => Value::from(x),
                            None => {
                                a.damaged.push((f, k + 1, format!("{name} '{s}' is not a number")));
                                whole = false;
                                break;
                            }
                        },
                        // A vector clock, logged as a JSON object (refused by line if not).
                        "vc" => serde_json::from_str(s).unwrap_or_else(|_| Value::from(s)),
                        _ => Value::from(s),
                    };
                    fields.insert(name.to_string(), v);
                }
                let e = Event {
                    t,
                    node: String::new(),
                    kind: rule.kind,
                    fields,
                    file: f,
                    line: k + 1,
                    raw: line.to_string(),
                };
                if whole {
                    s.events.push((node, e));
                }
            }
            out.push(s);
        }
        a.read.push(n);
        out
    }

    /// Reads one member's log (a file, or one member's part of a concatenated file): places its
    /// whole-second lines after its last finer time, and gives the lines that name no member to
    /// the member their process named, else to the one member the part names.
    #[allow(clippy::too_many_arguments)]
    fn read_part(
        &self,
        f: usize,
        file: &str,
        whole: bool,
        lines: Vec<Scanned>,
        processes: &BTreeMap<String, String>,
        a: &mut Applied,
        members: &mut BTreeMap<String, MemberDecl>,
    ) {
        let mut last_t = 0u64;
        let mut coarse = false;
        let mut named: Vec<String> = Vec::new();
        let mut pending = Vec::new();
        let mut facts = Vec::new();
        let mut times = Vec::new();
        for l in lines {
            let mut t = l.t;
            if l.coarse {
                coarse = true;
                t = if t + 999 < last_t { last_t + 1 } else { t.max(last_t + 1) };
                last_t = t;
            } else {
                last_t = last_t.max(t);
            }
            for nd in l.names {
                if !named.contains(&nd) {
                    named.push(nd);
                }
            }
            for (node, mut e) in l.events {
                e.t = t;
                pending.push((node, l.process.clone(), e));
            }
            facts.extend(l.facts.into_iter().map(|(node, name, addr)| (node, l.process.clone(), name, addr)));
            a.header.start = Some(a.header.start.map_or(t, |s| s.min(t)));
            times.push((l.member, l.process, t, l.line));
        }
        if coarse && named.len() > 1 {
            // Whole seconds, placed 1 ms apart after the last finer time, order one member's
            // lines; several members' interleaved in one file would be ordered by where each
            // line happens to stand, which can invent a split brain.
            a.refused.push(format!(
                "{file}: its lines of {} members carry whole seconds only and interleave, so their order across members cannot be known: concatenate the members' logs (cat a.log b.log …) or import each member's own log",
                named.len()
            ));
            return;
        }
        // The part's member: the one member its lines name.
        let part_member = if named.len() == 1 { named.first().cloned() } else { None };
        let owner = |node: Option<String>, process: Option<String>| {
            node.or_else(|| processes.get(&process?).cloned()).or_else(|| part_member.clone())
        };
        for (node, process, mut e) in pending {
            match owner(node, process) {
                Some(nd) => {
                    e.node = nd;
                    match super::read_event(&e.to_json(""), self.vocabulary) {
                        Ok(_) => a.events.push(e),
                        Err(why) => a.damaged.push((f, e.line, why)),
                    }
                }
                None => a.damaged.push((f, e.line, "a line that names no member, in a file of several".into())),
            }
        }
        if let Some(nd) = part_member.clone().filter(|_| self.name_from_file && whole) {
            let m = decl(members, nd);
            if m.name.is_empty() {
                let stem = file.rsplit('/').next().unwrap_or(file);
                m.name = stem.split('.').next().unwrap_or(stem).to_string();
            }
        }
        for (node, process, name, addr) in facts {
            if let Some(m) = owner(node, process).map(|nd| decl(members, nd)) {
                if let Some(x) = name {
                    m.name = x;
                }
                if let Some(x) = addr {
                    m.addr = x;
                }
            }
        }
        for (node, process, t, line) in times {
            if let Some(m) = owner(node, process).map(|nd| decl(members, nd)) {
                if m.logged.is_none_or(|(_, last)| t >= last) {
                    m.last_at = Some((f, line));
                }
                m.logged = Some(m.logged.map_or((t, t), |(a, b)| (a.min(t), b.max(t))));
            }
        }
    }

    /// The logs imported through the mapping, as a recorded run.
    pub fn import(&self, files: &[LogFile]) -> Result<Imported, String> {
        self.import_with(files, None)
    }

    /// The logs imported through the mapping, with the faults a harness wrote (see
    /// [`super::read_faults`]), if any.
    pub fn import_with(&self, files: &[LogFile], faults: Option<LogFile>) -> Result<Imported, String> {
        let total: usize = files.iter().chain(&faults).map(|f| f.text.len()).sum();
        if total > recorded::MAX_INPUT {
            return Err(format!("the logs are {total} bytes; at most {} are read", recorded::MAX_INPUT));
        }
        let mut a = self.apply(files);
        if let Some(why) = a.refused.first() {
            return Err(why.clone());
        }
        let mut all = files.to_vec();
        if let Some(f) = faults {
            a.events.extend(super::read_faults(f.name, f.text, files.len())?);
            a.read.push(f.text.lines().count());
            all.push(f);
        }
        let mut imported = super::import_events(&all, &a.read, &a.header, &a.events, &a.damaged)?;
        imported.report.notes.extend(a.notes);
        Ok(imported)
    }
}

/// A member's declaration, added if new.
fn decl(members: &mut BTreeMap<String, MemberDecl>, nd: String) -> &mut MemberDecl {
    members.entry(nd.clone()).or_insert_with(|| MemberDecl { id: nd, ..Default::default() })
}

/// A whole number, decimal or `0x` hexadecimal.
fn number(s: &str) -> Option<u64> {
    match s.strip_prefix("0x") {
        Some(h) => u64::from_str_radix(h, 16).ok(),
        None => s.parse().ok(),
    }
}

/// `100ms`, `1s`, `1.5s` or a bare number of milliseconds.
fn duration_ms(s: &str) -> Option<u64> {
    let s = s.trim();
    if let Some(v) = s.strip_suffix("ms") {
        return v.trim().parse().ok();
    }
    if let Some(v) = s.strip_suffix('s') {
        return v.trim().parse::<f64>().ok().filter(|x| x.is_finite() && *x >= 0.0).map(|x| (x * 1000.0) as u64);
    }
    s.parse().ok()
}

const MONTHS: [&str; 12] = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"];

impl TimeFormat {
    fn read(&self, s: &str) -> Option<u64> {
        match self {
            TimeFormat::Iso => recorded::parse_stamp(s).map(|x| x.0),
            TimeFormat::UnixMs => s.trim().parse().ok(),
            TimeFormat::Pattern(p) => pattern_time(p, s),
        }
    }
}

/// Reads `s` by a `%`-pattern: `%Y` year, `%m` month, `%b` month name, `%d` day, `%H %M %S`,
/// `%f` a fraction of a second (its first three digits are the milliseconds); a space matches
/// one or more spaces; other characters match themselves. Read as UTC.
fn pattern_time(p: &str, s: &str) -> Option<u64> {
    let (mut y, mut mo, mut d, mut h, mut mi, mut se, mut ms) = (1970i64, 1u32, 1u32, 0u64, 0u64, 0u64, 0u64);
    let mut rest = s;
    let mut chars = p.chars();
    let digits = |rest: &mut &str, max: usize| -> Option<u64> {
        let n = rest.bytes().take(max).take_while(u8::is_ascii_digit).count();
        let v = rest.get(..n)?.parse().ok()?;
        *rest = &rest[n..];
        Some(v)
    };
    while let Some(c) = chars.next() {
        match c {
            '%' => match chars.next()? {
                'Y' => y = digits(&mut rest, 4)? as i64,
                'm' => mo = digits(&mut rest, 2)? as u32,
                'd' => d = digits(&mut rest, 2)? as u32,
                'H' => h = digits(&mut rest, 2)?,
                'M' => mi = digits(&mut rest, 2)?,
                'S' => se = digits(&mut rest, 2)?,
                'f' => {
                    let n = rest.bytes().take_while(u8::is_ascii_digit).count();
                    let frac = &rest[..n];
                    ms = format!("{:0<3}", &frac[..n.min(3)]).parse().ok()?;
                    rest = &rest[n..];
                }
                'b' => {
                    let i = MONTHS.iter().position(|m| rest.starts_with(m))?;
                    mo = i as u32 + 1;
                    rest = &rest[3..];
                }
                _ => return None,
            },
            ' ' => {
                let n = rest.bytes().take_while(|b| *b == b' ').count();
                if n == 0 {
                    return None;
                }
                rest = &rest[n..];
            }
            c => rest = rest.strip_prefix(c)?,
        }
    }
    if !(1..=12).contains(&mo) || !(1..=31).contains(&d) || h > 23 || mi > 59 || se > 60 {
        return None;
    }
    let days = recorded::days_from_civil(y, mo, d).max(0) as u64;
    Some((days * 86_400 + h * 3600 + mi * 60 + se) * 1000 + ms)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_times_by_pattern() {
        let t = pattern_time("%d %b %Y %H:%M:%S.%f", "06 Dec 2026 07:31:44.589").unwrap();
        assert_eq!(t, recorded::parse_stamp("2026-12-06 07:31:44.589").unwrap().0);
        assert_eq!(pattern_time("%d %b %Y", "06 Foo 2026"), None);
        assert_eq!(number("0x1f"), Some(31));
        assert_eq!(duration_ms("1s"), Some(1000));
    }

    #[test]
    fn the_shipped_mappings_read() {
        for (name, text) in SHIPPED {
            Mapping::read(text).unwrap_or_else(|e| panic!("{name}: {e}"));
        }
    }
}
