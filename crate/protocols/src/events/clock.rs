//! Vector clocks in the event format: an optional `vc` per event (member id → count, the
//! event's own member among them, as Fidge and Mattern defined them: C. Fidge, "Timestamps in
//! message-passing systems that preserve the partial ordering", 1988; F. Mattern, "Virtual time
//! and global states of distributed systems", 1989). When events carry them, they decide the
//! order: each event is placed no earlier than the events that happened before it (a receive 1 ms
//! after its send, however skewed the members' wall clocks), and otherwise at its wall time, so
//! events that are concurrent keep their wall-clock order. Without clocks nothing moves.
//!
//! Event `e` happened before `f` when `vc(e) ≤ vc(f)` entry by entry and they differ; the events
//! just before `f` are its member's previous event and, for every other member `m`, the last
//! event of `m` whose own count is at most `vc(f)[m]`. A clock that contradicts itself is named
//! at its line: one that goes down along its member's events, or a receive whose clock does not
//! know any send of its message.

use super::Event;
use serde_json::Value;
use std::cmp::Reverse;
use std::collections::{BTreeMap, BinaryHeap};

/// At most this many contradictions are named one by one in the report.
const NAMED: usize = 10;

/// Reads an event's `vc` field: an object of member ids to whole counts that gives the event's
/// own member a count of 1 or more.
pub fn read(v: &Value, node: &str) -> Result<Value, String> {
    let o =
        v.as_object().ok_or_else(|| format!("field 'vc': expected an object of member ids to counts, found {v}"))?;
    if o.len() > 64 {
        return Err(format!("field 'vc': {} members; at most 64 are drawn", o.len()));
    }
    for (k, c) in o {
        if k.is_empty() {
            return Err("field 'vc': a member id is empty".into());
        }
        if !c.is_u64() {
            return Err(format!("field 'vc': member '{k}': expected a whole number, found {c}"));
        }
    }
    match o.get(node).and_then(Value::as_u64) {
        Some(c) if c > 0 => Ok(v.clone()),
        _ => Err(format!("field 'vc': needs the event's own member '{node}' with a count of 1 or more")),
    }
}

/// The count of member `m` in an event's clock (0 when it has none for `m`).
fn count(clock: &BTreeMap<String, u64>, m: &str) -> u64 {
    clock.get(m).copied().unwrap_or(0)
}

fn msg_of(e: &Event) -> Option<&str> {
    e.fields.get("msg").and_then(Value::as_str)
}

fn term_of(e: &Event) -> Option<u64> {
    e.fields.get("term").and_then(Value::as_u64)
}

/// What placing by the clocks found, for the import report.
#[derive(Debug, Default, PartialEq)]
pub struct Placement {
    /// Events whose wall time is earlier than an event's that happened before them.
    pub disagree: usize,
    /// The first of them (in the files' order): its place, and the place of the earlier event.
    pub first: Option<(String, u64, String, u64)>,
    /// Contradictions, each named at its line.
    pub problems: Vec<String>,
}

impl Placement {
    /// The report's notes.
    pub fn notes(&self) -> Vec<String> {
        let mut out = Vec::new();
        if let Some((at, t, before, bt)) = &self.first {
            out.push(format!(
                "vector clocks: {} event(s) logged at a wall time earlier than an event that happened before them \
                 (skewed clocks), placed after it; the first: {at}, logged {} ms before {before}",
                self.disagree,
                bt - t
            ));
        } else {
            out.push("vector clocks: wall time and happens-before agree".into());
        }
        for p in self.problems.iter().take(NAMED) {
            out.push(format!("vector clock contradicts itself: {p}"));
        }
        if self.problems.len() > NAMED {
            out.push(format!("... and {} more contradictions", self.problems.len() - NAMED));
        }
        out
    }
}

/// Places events by their clocks (see the module's doc): the events with their placed times, and
/// what was found; `None` when no event carries a clock. `at` names an event's place.
pub fn place(events: &[Event], at: &dyn Fn(&Event) -> String) -> Option<(Vec<Event>, Placement)> {
    let clocks: Vec<Option<BTreeMap<String, u64>>> = events
        .iter()
        .map(|e| {
            let o = e.fields.get("vc")?.as_object()?;
            Some(o.iter().filter_map(|(k, c)| Some((k.clone(), c.as_u64()?))).collect())
        })
        .collect();
    if clocks.iter().all(Option::is_none) {
        return None;
    }
    let own = |i: usize| clocks[i].as_ref().map_or(0, |c| count(c, &events[i].node));
    let key = |i: usize| (events[i].t, events[i].node.clone(), events[i].file, events[i].line, i);
    // Each member's clocked events, in the order of its own count (then wall time, then place).
    let mut by_member: BTreeMap<&str, Vec<usize>> = BTreeMap::new();
    for (i, e) in events.iter().enumerate().filter(|(i, _)| clocks[*i].is_some()) {
        by_member.entry(&e.node).or_default().push(i);
    }
    let mut found = Placement::default();
    // The events just before each one: (event, on another member?).
    let mut preds: Vec<Vec<(usize, bool)>> = vec![Vec::new(); events.len()];
    for list in by_member.values_mut() {
        crate::sort::sort_by_key(list, |&i| (own(i), key(i)));
        for w in list.windows(2) {
            preds[w[1]].push((w[0], false));
            let (a, b) = (
                clocks[w[0]].as_ref().unwrap_or_else(|| unreachable!()),
                clocks[w[1]].as_ref().unwrap_or_else(|| unreachable!()),
            );
            if let Some((m, x)) = a.iter().find(|(m, x)| **x > count(b, m)) {
                found.problems.push(format!(
                    "{}: member '{m}' is {} here, down from {x} at {} (member '{}')",
                    at(&events[w[1]]),
                    count(b, m),
                    at(&events[w[0]]),
                    events[w[1]].node
                ));
            }
        }
    }
    for (f, clock) in clocks.iter().enumerate() {
        let Some(clock) = clock else { continue };
        for (m, &c) in clock {
            if *m == events[f].node {
                continue;
            }
            let Some(list) = by_member.get(m.as_str()) else { continue };
            let n = list.partition_point(|&i| own(i) <= c);
            if n > 0 {
                preds[f].push((list[n - 1], true));
            }
        }
    }
    // A receive knows the send of its message: some send of it has a count its clock knows.
    // The earliest send of each message (sender, receiver, kind, term), in its sender's order.
    type Message<'e> = (&'e str, &'e str, Option<&'e str>, Option<u64>);
    let mut first_send: BTreeMap<Message, usize> = BTreeMap::new();
    for list in by_member.values() {
        for &s in list.iter().filter(|&&s| events[s].kind == "send") {
            let x = &events[s];
            let Some(to) = x.fields.get("peer").and_then(Value::as_str) else { continue };
            first_send.entry((&x.node, to, msg_of(x), term_of(x))).or_insert(s);
        }
    }
    for (r, e) in events.iter().enumerate().filter(|(r, e)| e.kind == "receive" && clocks[*r].is_some()) {
        let Some(peer) = e.fields.get("peer").and_then(Value::as_str).filter(|p| *p != e.node) else { continue };
        let Some(&s) = first_send.get(&(peer, e.node.as_str(), msg_of(e), term_of(e))) else {
            continue;
        };
        let knows = clocks[r].as_ref().map_or(0, |c| count(c, peer));
        if own(s) > knows {
            found.problems.push(format!(
                "{}: a receive from '{peer}' whose clock knows {knows} of its events, but its send ({}) is its event {}",
                at(e),
                at(&events[s]),
                own(s)
            ));
        }
    }
    // A topological order, the earliest wall time first among the events ready; a cycle (clocks
    // that contradict each other) is broken at its earliest event.
    let mut waiting: Vec<usize> = preds.iter().map(Vec::len).collect();
    let mut next: Vec<Vec<usize>> = vec![Vec::new(); events.len()];
    for (f, ps) in preds.iter().enumerate() {
        for &(p, _) in ps {
            next[p].push(f);
        }
    }
    let mut ready: BinaryHeap<Reverse<_>> =
        (0..events.len()).filter(|&i| waiting[i] == 0).map(|i| Reverse(key(i))).collect();
    let mut placed: Vec<Option<u64>> = vec![None; events.len()];
    let mut left: std::collections::BTreeSet<_> = (0..events.len()).map(key).collect();
    while !left.is_empty() {
        let f = match ready.pop() {
            Some(Reverse(k)) if placed[k.4].is_none() => k.4,
            Some(_) => continue,
            None => left.first().map_or(0, |k| k.4),
        };
        left.remove(&key(f));
        let t = preds[f]
            .iter()
            .filter_map(|&(p, cross)| placed[p].map(|t| t.saturating_add(cross as u64)))
            .fold(events[f].t, u64::max);
        placed[f] = Some(t);
        for &g in &next[f] {
            waiting[g] = waiting[g].saturating_sub(1);
            if waiting[g] == 0 && placed[g].is_none() {
                ready.push(Reverse(key(g)));
            }
        }
    }
    // Where wall time and happens-before disagree.
    let mut first: Option<(usize, usize)> = None;
    for (f, ps) in preds.iter().enumerate() {
        if let Some(&(p, _)) = ps.iter().find(|&&(p, _)| events[p].t > events[f].t) {
            found.disagree += 1;
            if first.is_none_or(|(g, _)| (events[f].file, events[f].line) < (events[g].file, events[g].line)) {
                first = Some((f, p));
            }
        }
    }
    found.first = first.map(|(f, p)| (at(&events[f]), events[f].t, at(&events[p]), events[p].t));
    let out = events.iter().zip(&placed).map(|(e, t)| Event { t: t.unwrap_or(e.t), ..e.clone() }).collect();
    Some((out, found))
}
