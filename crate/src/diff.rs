//! What differs between two runs (two seeds, two algorithms, before and after a change):
//! [`diff`] walks both from step 0 in lock step and reports the **first divergence** — the
//! first step where the events differ (a message delivered in one run and dropped in the
//! other, another kind or another time, a fault in one run only) or, the events being the same,
//! the set of leaders differs — and a summary of differences: leaders over time, elections, message counts by
//! kind, violations. `election-lab diff A B` prints it; the page can mark the divergence on
//! two lanes.

use crate::engine::{election_json, violation_json, Engine};
use crate::observe::{Election, Violation};
use crate::sim::EventKind;
use crate::trace::Intervention;
use crate::{Action, NodeId, Time};
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
    /// The differing step in each run: its differing event's step (an intervention: the step
    /// it was made after, as the run records it); a run without a differing event there: its
    /// next step (a run that has ended: its last step + 1).
    pub step_a: u64,
    pub step_b: u64,
    /// What differs, in one line.
    pub what: String,
    /// Each run's differing event there (None: it has none at that time).
    pub event_a: Option<String>,
    pub event_b: Option<String>,
    /// A run without a differing event there: its next step's event (None: the run had ended).
    pub next_a: Option<String>,
    pub next_b: Option<String>,
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
    /// A fault (scheduled or an intervention) in one run that the other does not have then.
    Fault { in_a: bool, action: Action },
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
#[derive(Clone, Debug)]
struct Event {
    time: Time,
    event: &'static str,
    node: NodeId,
    peer: Option<NodeId>,
    kind: Option<&'static str>,
    text: String,
    /// A fault's action (scheduled or an intervention); not compared, the text says it.
    action: Option<Action>,
    /// The message a dropped or deferred message's id names, if known: "APPEND_ENTRIES N5 → N1".
    message: Option<String>,
}

impl PartialEq for Event {
    fn eq(&self, o: &Event) -> bool {
        (self.time, self.event, self.node, self.peer, self.kind, &self.text)
            == (o.time, o.event, o.node, o.peer, o.kind, &o.text)
    }
}
impl Eq for Event {}

impl Event {
    /// What happened without its time: "crash N1", "RequestVote deliver N2 → N1".
    fn name(&self) -> String {
        let name = match (self.kind, self.peer) {
            (Some(kind), Some(peer)) => format!("{kind} {} N{peer} → N{}", self.event, self.node),
            _ => self.text.split_once(' ').map_or(self.text.clone(), |x| x.1.to_string()),
        };
        match &self.message {
            Some(m) => format!("{name} ({m})"),
            None => name,
        }
    }
}

fn event_of(e: &Engine, step: u64) -> Option<Event> {
    let info = e.step_info(step)?;
    let action = match e.record(step).map(|r| (r.kind, r.aux)) {
        Some((EventKind::Fault, k)) => e.scenario().schedule.get(k as usize).map(|f| f.action.clone()),
        _ => None,
    };
    Some(Event {
        time: info.time,
        event: info.event,
        node: info.node,
        peer: info.peer,
        kind: info.kind,
        text: info.text,
        action,
        message: None,
    })
}

/// An intervention as compared: exactly as the same action scheduled as a fault at that time
/// would be (the event the run records for a scheduled fault).
fn event_of_intervention(iv: &Intervention, run: &Engine) -> Event {
    let message = match iv.action {
        Action::Drop(m) | Action::Defer(m) => {
            run.frame().messages.iter().find(|x| x.id == m).map(|x| format!("{} N{} → N{}", x.kind, x.from, x.to))
        }
        _ => None,
    };
    Event {
        time: iv.time,
        event: "fault",
        node: iv.action.node().unwrap_or(0),
        peer: None,
        kind: None,
        text: format!("t={} {}", iv.time, iv.action.describe()),
        action: Some(iv.action.clone()),
        message,
    }
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

/// One run walked from step 0 up to where it was compared (`end`, its cursor), with the
/// interventions made on it (each met at its own time, as a scheduled fault is).
struct Walk {
    e: Engine,
    end: u64,
    ivs: Vec<Intervention>,
    /// The next intervention not met yet.
    k: usize,
    last: Vec<NodeId>,
    changes: Vec<(Time, u64, Vec<NodeId>)>,
}

impl Walk {
    fn new(run: &Engine) -> Walk {
        let e = fresh(run);
        let end = run.cursor();
        let ivs = run.interventions().iter().filter(|iv| iv.step <= end).cloned().collect();
        let last = e.leaders();
        Walk { e, end, ivs, k: 0, changes: vec![(0, 0, last.clone())], last }
    }

    /// Notes a change of leaders at the cursor.
    fn note_leaders(&mut self) {
        let now = self.e.leaders();
        if now != self.last {
            if self.changes.len() < MAX_CHANGES {
                self.changes.push((self.e.now(), self.e.cursor(), now.clone()));
            }
            self.last = now;
        }
    }

    /// The next intervention, if it is due at the cursor.
    fn due(&self) -> Option<&Intervention> {
        self.ivs.get(self.k).filter(|iv| iv.step == self.e.cursor())
    }

    /// Steps once (if not at `end`), noting a change of leaders.
    fn advance(&mut self) -> bool {
        if self.e.cursor() >= self.end || !self.e.step() {
            return false;
        }
        // The leaders after the step itself; the interventions made after it then apply (so
        // that the next event is read after them), their leaders noted as each is met.
        self.note_leaders();
        self.e.run(0);
        true
    }

    /// The time of the next thing to compare: an intervention due, else the next event.
    fn next_time(&mut self) -> Option<Time> {
        if let Some(iv) = self.due() {
            return Some(iv.time);
        }
        if self.e.cursor() >= self.end {
            return None;
        }
        self.e.next_event_time()
    }

    /// Every event and intervention of tick `t`, with their steps.
    fn tick(&mut self, t: Time) -> Vec<(u64, Event)> {
        let mut out = vec![];
        loop {
            if let Some(iv) = self.due() {
                if iv.time != t {
                    break;
                }
                out.push((iv.step, event_of_intervention(iv, &self.e)));
                self.k += 1;
                // Applied already (the engine applies them as its cursor reaches their step).
                self.note_leaders();
                continue;
            }
            if self.e.cursor() >= self.end || self.e.next_event_time() != Some(t) || !self.advance() {
                break;
            }
            if let Some(e) = event_of(&self.e, self.e.cursor()) {
                out.push((self.e.cursor(), e));
            }
        }
        out
    }
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
/// of each tick (in any order; an intervention counts as the same fault scheduled at its time)
/// and then the leaders.
pub fn diff(a: &Engine, b: &Engine) -> Divergence {
    let (mut wa, mut wb) = (Walk::new(a), Walk::new(b));
    let mut first = None;
    if wa.last != wb.last {
        first = Some(First {
            time: 0,
            step_a: 0,
            step_b: 0,
            what: format!("different leaders at the start: {} in A, {} in B", nodes(&wa.last), nodes(&wb.last)),
            event_a: None,
            event_b: None,
            next_a: None,
            next_b: None,
            cause: Cause::Leaders(wa.last.clone(), wb.last.clone()),
        });
    }
    let (mut done_a, mut done_b) = (false, false);
    while first.is_none() {
        let ta = if done_a { None } else { wa.next_time() };
        let tb = if done_b { None } else { wb.next_time() };
        let t = match (ta, tb) {
            (None, None) => break,
            (Some(x), None) => x,
            (None, Some(y)) => y,
            (Some(x), Some(y)) => x.min(y),
        };
        let xa = if ta == Some(t) { wa.tick(t) } else { vec![] };
        let xb = if tb == Some(t) { wb.tick(t) } else { vec![] };
        // A run whose next event lies past its stop limit has ended.
        done_a |= ta == Some(t) && xa.is_empty();
        done_b |= tb == Some(t) && xb.is_empty();
        let (ua, ub) = (unmatched(&xa, &xb), unmatched(&xb, &xa));
        if !ua.is_empty() || !ub.is_empty() {
            // A fault one run has and the other lacks is named first: what else differs at
            // that tick follows from it.
            let pick = |u: &[(u64, Event)]| u.iter().find(|e| e.1.action.is_some()).or(u.first()).cloned();
            let (ea, eb) = (pick(&ua), pick(&ub));
            let step_a = ea.as_ref().map_or(wa.e.cursor() + 1, |e| e.0);
            let step_b = eb.as_ref().map_or(wb.e.cursor() + 1, |e| e.0);
            first = Some(describe(t, ea, eb, [step_a, step_b], [a, b]));
        } else if wa.last != wb.last {
            first = Some(First {
                time: t,
                step_a: wa.e.cursor(),
                step_b: wb.e.cursor(),
                what: format!(
                    "after the same events, leaders differ: {} in A, {} in B",
                    nodes(&wa.last),
                    nodes(&wb.last)
                ),
                event_a: xa.last().map(|e| e.1.text.clone()),
                event_b: xb.last().map(|e| e.1.text.clone()),
                next_a: None,
                next_b: None,
                cause: Cause::Leaders(wa.last.clone(), wb.last.clone()),
            });
        }
    }
    while wa.advance() {}
    while wb.advance() {}
    Divergence { first, a: side(a, wa.changes), b: side(b, wb.changes) }
}

/// The first divergence at `time`: each run's first event there that the other lacks, if any.
fn describe(
    time: Time,
    ea: Option<(u64, Event)>,
    eb: Option<(u64, Event)>,
    steps: [u64; 2],
    runs: [&Engine; 2],
) -> First {
    let [step_a, step_b] = steps;
    let ends = |e: &Event| format!("N{} → N{}", e.peer.unwrap_or(0), e.node);
    let mut cause = Cause::Event;
    let fault = |e: &Option<(u64, Event)>| e.as_ref().and_then(|x| x.1.action.clone().map(|a| (a, x.1.name())));
    let faulted = fault(&ea).map(|f| (true, f)).or_else(|| fault(&eb).map(|f| (false, f)));
    let what = if let Some((in_a, (action, name))) = faulted {
        cause = Cause::Fault { in_a, action };
        let (has, lacks) = if in_a { ("A", "B") } else { ("B", "A") };
        format!("{has} has {name} here, {lacks} has no such event at t={time}")
    } else {
        match (&ea, &eb) {
            (Some((_, x)), Some((_, y)))
                if x.kind == y.kind
                    && x.kind.is_some()
                    && x.node == y.node
                    && x.peer == y.peer
                    && x.event != y.event =>
            {
                let m = format!("{} {}", x.kind.unwrap_or("?"), ends(x));
                let (kind, from, to) = (x.kind.unwrap_or("?"), x.peer.unwrap_or(0), x.node);
                cause = Cause::Delivered { in_a: x.event == "deliver", kind, from, to };
                let why = |e: &Engine, step: u64| match e.record(step).map(|r| r.kind) {
                    Some(EventKind::Drop(r)) => format!(" ({})", r.name()),
                    _ => String::new(),
                };
                if x.event == "deliver" {
                    format!("{m}: delivered in A, dropped in B{}", why(runs[1], step_b))
                } else {
                    format!("{m}: dropped in A{}, delivered in B", why(runs[0], step_a))
                }
            }
            (Some((_, x)), Some((_, y))) if x.kind == y.kind && x.kind.is_some() && x.event == y.event => {
                format!("{} {}: {} in A, {} in B", x.kind.unwrap_or("?"), x.event, ends(x), ends(y))
            }
            (Some((_, x)), Some((_, y))) => format!("a different event: {} in A, {} in B", x.name(), y.name()),
            (Some((_, x)), None) => format!("A has {} here, B has no such event at t={time}", x.name()),
            (None, Some((_, y))) => format!("B has {} here, A has no such event at t={time}", y.name()),
            (None, None) => String::new(),
        }
    };
    // A run without a differing event there: what it does next, read from the run compared.
    let next = |e: &Option<(u64, Event)>, run: &Engine, step: u64| match e {
        Some(_) => None,
        None if step <= run.cursor() => run.step_info(step).map(|i| i.text),
        None => None,
    };
    First {
        time,
        step_a,
        step_b,
        what,
        next_a: next(&ea, runs[0], step_a),
        next_b: next(&eb, runs[1], step_b),
        event_a: ea.map(|e| e.1.text),
        event_b: eb.map(|e| e.1.text),
        cause,
    }
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
            json!({
                "time": f.time, "step_a": f.step_a, "step_b": f.step_b, "what": f.what,
                "event_a": f.event_a, "event_b": f.event_b, "next_a": f.next_a, "next_b": f.next_b,
            })
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
                let has = |event: &Option<String>, next: &Option<String>, step: u64, steps: u64| match (event, next) {
                    (Some(e), _) => e.clone(),
                    (None, Some(n)) => format!("nothing differing at t={}; its next step ({step}): {n}", f.time),
                    (None, None) => format!("(ended at step {steps})"),
                };
                out.push_str(&format!("  A: {}\n", has(&f.event_a, &f.next_a, f.step_a, self.a.steps)));
                out.push_str(&format!("  B: {}\n", has(&f.event_b, &f.next_b, f.step_b, self.b.steps)));
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
