//! What differs between two runs (two seeds, two algorithms, before and after a change):
//! [`diff`] walks both from step 0 in lock step and reports the **first divergence** — the
//! first step where the events differ (a message delivered in one run and dropped in the
//! other, another kind or another time) or, the events being the same, the set of leaders
//! differs — and a summary of differences: leaders over time, elections, message counts by
//! kind, violations. `election-lab diff A B` prints it; the page can mark the divergence on
//! two lanes.

use crate::engine::{election_json, violation_json, Engine};
use crate::observe::{Election, Violation};
use crate::sim::EventKind;
use crate::{NodeId, Time};
use serde_json::{json, Value};
use std::collections::BTreeMap;

/// At most this many leader changes are kept per run for the summary.
const MAX_CHANGES: usize = 10_000;

/// One run's side of a comparison.
#[derive(Clone, Debug, PartialEq)]
pub struct Side {
    pub algorithm: &'static str,
    pub seed: u64,
    pub steps: u64,
    pub end_time: Time,
    pub trace_hash: u64,
    /// Every change of the set of live self-declared leaders: (time, step, leaders after).
    pub leaders: Vec<(Time, u64, Vec<NodeId>)>,
    pub elections: Vec<Election>,
    /// Messages sent, per kind (kinds with none left out).
    pub messages: BTreeMap<&'static str, u64>,
    pub violations: Vec<Violation>,
}

/// The first step where the runs differ.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct First {
    /// Virtual time of the earlier of the two differing steps.
    pub time: Time,
    /// The differing step in each run (a run that has ended: its last step + 1).
    pub step_a: u64,
    pub step_b: u64,
    /// What differs, in one line.
    pub what: String,
    /// Each run's event at that step (None: the run had ended).
    pub event_a: Option<String>,
    pub event_b: Option<String>,
    /// What differs, for a reader that names it in its own words (the page, in two languages).
    pub cause: Cause,
}

/// The kind of the first difference.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Cause {
    /// After the same events, other leaders: those of A, those of B.
    Leaders(Vec<NodeId>, Vec<NodeId>),
    /// The same message (kind, from, to) delivered in one run and dropped in the other.
    Delivered { in_a: bool, kind: &'static str, from: NodeId, to: NodeId },
    /// Another event (another kind, other ends, another time), or one run had ended.
    Event,
}

/// The result of [`diff`].
#[derive(Clone, Debug, PartialEq)]
pub struct Divergence {
    /// None when the runs are the same step for step.
    pub first: Option<First>,
    pub a: Side,
    pub b: Side,
}

/// A step as compared: what happened, where, to which message kind.
#[derive(Clone, Debug, PartialEq, Eq)]
struct Event {
    time: Time,
    event: &'static str,
    node: NodeId,
    peer: Option<NodeId>,
    kind: Option<&'static str>,
    text: String,
}

fn event_of(e: &Engine, step: u64) -> Option<Event> {
    let info = e.step_info(step)?;
    Some(Event {
        time: info.time,
        event: info.event,
        node: info.node,
        peer: info.peer,
        kind: info.kind,
        text: info.text,
    })
}

fn nodes(list: &[NodeId]) -> String {
    if list.is_empty() {
        return "none".into();
    }
    list.iter().map(|n| format!("N{n}")).collect::<Vec<_>>().join(", ")
}

/// A copy of `e`'s run at step 0, to walk.
fn fresh(e: &Engine) -> Engine {
    let mut c = Engine::from_trace_value(&e.trace_value()).expect("a run's own trace replays");
    c.seek(0);
    c
}

fn side(e: &Engine, leaders: Vec<(Time, u64, Vec<NodeId>)>) -> Side {
    Side {
        algorithm: e.algorithm().id,
        seed: e.scenario().seed,
        steps: e.cursor(),
        end_time: e.now(),
        trace_hash: e.trace_hash(),
        leaders,
        elections: e.elections().to_vec(),
        messages: e.metrics().by_kind.into_iter().filter(|&(_, c)| c > 0).collect(),
        violations: e.violations().to_vec(),
    }
}

/// Steps `w` once (if it has not reached `end`), noting a change of leaders.
fn advance(w: &mut Engine, end: u64, last: &mut Vec<NodeId>, changes: &mut Vec<(Time, u64, Vec<NodeId>)>) -> bool {
    if w.cursor() >= end || !w.step() {
        return false;
    }
    let now = w.leaders();
    if now != *last {
        if changes.len() < MAX_CHANGES {
            changes.push((w.now(), w.cursor(), now.clone()));
        }
        *last = now;
    }
    true
}

/// The time of `w`'s next event, if it has not reached `end`.
fn next_time(w: &mut Engine, end: u64) -> Option<Time> {
    if w.cursor() >= end {
        return None;
    }
    w.next_event_time()
}

/// Steps `w` through every event of tick `t` (up to `end`): the events with their steps.
fn tick(
    w: &mut Engine,
    end: u64,
    t: Time,
    last: &mut Vec<NodeId>,
    changes: &mut Vec<(Time, u64, Vec<NodeId>)>,
) -> Vec<(u64, Event)> {
    let mut out = vec![];
    while next_time(w, end) == Some(t) && advance(w, end, last, changes) {
        if let Some(e) = event_of(w, w.cursor()) {
            out.push((w.cursor(), e));
        }
    }
    out
}

/// The events of `x` that `y` does not have (as a multiset: the order within a tick is not
/// compared), in `x`'s order.
fn unmatched(x: &[(u64, Event)], y: &[(u64, Event)]) -> Vec<(u64, Event)> {
    let mut used = vec![false; y.len()];
    let mut out = vec![];
    for e in x {
        match (0..y.len()).find(|&j| !used[j] && y[j].1 == e.1) {
            Some(j) => used[j] = true,
            None => out.push(e.clone()),
        }
    }
    out
}

/// Compares two runs, each up to its cursor, aligned by virtual time: tick by tick, the events
/// of each tick (in any order) and then the leaders.
pub fn diff(a: &Engine, b: &Engine) -> Divergence {
    let (end_a, end_b) = (a.cursor(), b.cursor());
    let (mut wa, mut wb) = (fresh(a), fresh(b));
    let (mut la, mut lb) = (wa.leaders(), wb.leaders());
    let (mut ca, mut cb) = (vec![(0, 0, la.clone())], vec![(0, 0, lb.clone())]);
    let mut first = None;
    if la != lb {
        first = Some(First {
            time: 0,
            step_a: 0,
            step_b: 0,
            what: format!("different leaders at the start: {} in A, {} in B", nodes(&la), nodes(&lb)),
            event_a: None,
            event_b: None,
            cause: Cause::Leaders(la.clone(), lb.clone()),
        });
    }
    let (mut done_a, mut done_b) = (false, false);
    while first.is_none() {
        let ta = if done_a { None } else { next_time(&mut wa, end_a) };
        let tb = if done_b { None } else { next_time(&mut wb, end_b) };
        let t = match (ta, tb) {
            (None, None) => break,
            (Some(x), None) => x,
            (None, Some(y)) => y,
            (Some(x), Some(y)) => x.min(y),
        };
        let xa = if ta == Some(t) { tick(&mut wa, end_a, t, &mut la, &mut ca) } else { vec![] };
        let xb = if tb == Some(t) { tick(&mut wb, end_b, t, &mut lb, &mut cb) } else { vec![] };
        // A run whose next event lies past its stop limit has ended.
        done_a |= ta == Some(t) && xa.is_empty();
        done_b |= tb == Some(t) && xb.is_empty();
        let (ua, ub) = (unmatched(&xa, &xb), unmatched(&xb, &xa));
        if !ua.is_empty() || !ub.is_empty() {
            let step_a = ua.first().map_or(wa.cursor() + 1, |e| e.0);
            let step_b = ub.first().map_or(wb.cursor() + 1, |e| e.0);
            first = Some(describe(t, ua.first().cloned(), ub.first().cloned(), step_a, step_b, &wa, &wb));
        } else if la != lb {
            first = Some(First {
                time: t,
                step_a: wa.cursor(),
                step_b: wb.cursor(),
                what: format!("after the same events, leaders differ: {} in A, {} in B", nodes(&la), nodes(&lb)),
                event_a: xa.last().map(|e| e.1.text.clone()),
                event_b: xb.last().map(|e| e.1.text.clone()),
                cause: Cause::Leaders(la.clone(), lb.clone()),
            });
        }
    }
    while advance(&mut wa, end_a, &mut la, &mut ca) {}
    while advance(&mut wb, end_b, &mut lb, &mut cb) {}
    Divergence { first, a: side(a, ca), b: side(b, cb) }
}

fn describe(
    time: Time,
    ea: Option<(u64, Event)>,
    eb: Option<(u64, Event)>,
    step_a: u64,
    step_b: u64,
    wa: &Engine,
    wb: &Engine,
) -> First {
    let ends = |e: &Event| format!("N{} → N{}", e.peer.unwrap_or(0), e.node);
    let mut cause = Cause::Event;
    let what = match (&ea, &eb) {
        (Some((_, x)), Some((_, y)))
            if x.kind == y.kind && x.kind.is_some() && x.node == y.node && x.peer == y.peer && x.event != y.event =>
        {
            let m = format!("{} {}", x.kind.unwrap_or("?"), ends(x));
            let (kind, from, to) = (x.kind.unwrap_or("?"), x.peer.unwrap_or(0), x.node);
            cause = Cause::Delivered { in_a: x.event == "deliver", kind, from, to };
            let why = |e: &Engine, step: u64| match e.record(step).map(|r| r.kind) {
                Some(EventKind::Drop(r)) => format!(" ({})", r.name()),
                _ => String::new(),
            };
            if x.event == "deliver" {
                format!("{m}: delivered in A, dropped in B{}", why(wb, step_b))
            } else {
                format!("{m}: dropped in A{}, delivered in B", why(wa, step_a))
            }
        }
        (Some((_, x)), Some((_, y))) if x.kind == y.kind && x.kind.is_some() && x.event == y.event => {
            format!("{} {}: {} in A, {} in B", x.kind.unwrap_or("?"), x.event, ends(x), ends(y))
        }
        (Some((_, x)), Some((_, y))) => {
            format!("a different event: {} in A, {} in B", x.kind.unwrap_or(x.event), y.kind.unwrap_or(y.event))
        }
        (Some((_, x)), None) => {
            format!("A has {} {} here, B has no such event at t={time}", x.kind.unwrap_or(""), x.event)
        }
        (None, Some((_, y))) => {
            format!("B has {} {} here, A has no such event at t={time}", y.kind.unwrap_or(""), y.event)
        }
        (None, None) => String::new(),
    };
    First { time, step_a, step_b, what, event_a: ea.map(|e| e.1.text), event_b: eb.map(|e| e.1.text), cause }
}

impl Divergence {
    /// No divergence and the same summary.
    pub fn identical(&self) -> bool {
        self.first.is_none() && self.a == self.b
    }

    /// The message counts that differ: (kind, count in A, count in B).
    pub fn message_differences(&self) -> Vec<(&'static str, u64, u64)> {
        let mut kinds: Vec<&'static str> = self.a.messages.keys().chain(self.b.messages.keys()).copied().collect();
        kinds.sort_unstable();
        kinds.dedup();
        kinds
            .into_iter()
            .map(|k| (k, self.a.messages.get(k).copied().unwrap_or(0), self.b.messages.get(k).copied().unwrap_or(0)))
            .filter(|(_, x, y)| x != y)
            .collect()
    }

    /// For scripts (`election-lab diff --json`).
    pub fn to_value(&self) -> Value {
        let side = |s: &Side| {
            json!({
                "algorithm": s.algorithm,
                "seed": s.seed,
                "steps": s.steps,
                "end_time": s.end_time,
                "trace_hash": format!("{:016x}", s.trace_hash),
                "leaders": s.leaders.iter().map(|(t, k, l)| json!({"time": t, "step": k, "leaders": l})).collect::<Vec<_>>(),
                "elections": s.elections.iter().map(election_json).collect::<Vec<_>>(),
                "messages": s.messages,
                "violations": s.violations.iter().map(violation_json).collect::<Vec<_>>(),
            })
        };
        let first = self.first.as_ref().map_or(Value::Null, |f| {
            json!({"time": f.time, "step_a": f.step_a, "step_b": f.step_b, "what": f.what, "event_a": f.event_a, "event_b": f.event_b})
        });
        let messages: Vec<Value> =
            self.message_differences().iter().map(|(k, x, y)| json!({"kind": k, "a": x, "b": y})).collect();
        json!({"identical": self.identical(), "first": first, "messages": messages, "a": side(&self.a), "b": side(&self.b)})
    }

    /// A report for people.
    pub fn text(&self) -> String {
        let mut out = String::new();
        let run = |s: &Side| {
            format!(
                "{} seed {}: {} steps to t={}, trace_hash {:016x}",
                s.algorithm, s.seed, s.steps, s.end_time, s.trace_hash
            )
        };
        out.push_str(&format!("A: {}\nB: {}\n", run(&self.a), run(&self.b)));
        match &self.first {
            None if self.identical() => {
                out.push_str("no difference: the runs are the same step for step\n");
                return out;
            }
            None => out.push_str("the same events step for step, but the summaries differ\n"),
            Some(f) => {
                out.push_str(&format!(
                    "first divergence at t={} (A step {}, B step {}): {}\n",
                    f.time, f.step_a, f.step_b, f.what
                ));
                out.push_str(&format!("  A: {}\n", f.event_a.as_deref().unwrap_or("(ended)")));
                out.push_str(&format!("  B: {}\n", f.event_b.as_deref().unwrap_or("(ended)")));
            }
        }
        let leaders = |s: &Side| {
            let parts: Vec<String> = s.leaders.iter().map(|(t, _, l)| format!("t={t} {}", nodes(l))).collect();
            parts.join("; ")
        };
        if self.a.leaders.iter().map(|x| (x.0, &x.2)).ne(self.b.leaders.iter().map(|x| (x.0, &x.2))) {
            out.push_str(&format!("leaders over time:\n  A: {}\n  B: {}\n", leaders(&self.a), leaders(&self.b)));
        }
        let elections = |s: &Side| {
            let parts: Vec<String> = s
                .elections
                .iter()
                .map(|e| format!("t={}–{} N{} ({} ticks)", e.from, e.to, e.leader, e.latency()))
                .collect();
            format!("{} [{}]", s.elections.len(), parts.join(", "))
        };
        if self.a.elections != self.b.elections {
            out.push_str(&format!("elections:\n  A: {}\n  B: {}\n", elections(&self.a), elections(&self.b)));
        }
        let diffs = self.message_differences();
        if !diffs.is_empty() {
            out.push_str("messages (A / B):\n");
            for (k, x, y) in diffs {
                out.push_str(&format!("  {k}: {x} / {y}\n"));
            }
        }
        let violations = |s: &Side| {
            let parts: Vec<String> = s
                .violations
                .iter()
                .map(|v| format!("{} t={} step {} {}", v.kind, v.time, v.step, nodes(&v.nodes)))
                .collect();
            format!("{} [{}]", s.violations.len(), parts.join(", "))
        };
        if self.a.violations != self.b.violations {
            out.push_str(&format!("violations:\n  A: {}\n  B: {}\n", violations(&self.a), violations(&self.b)));
        }
        out
    }
}
