//! Computing a lesson's stops and answers from the engine.
//!
//! [`answers`] runs the lesson's scenario once, from stop to stop: each stop's step, its
//! checked answer (computed on a copy of the run from the stop on, so the lesson's own run is
//! not disturbed), and each act's `do` applied where the act waits. Every problem names the
//! field (`stops[2].at: 'deliver:COORDINATOR' never hits …`), so a lesson whose question has no
//! answer in its run (no election completes, the next delivery is not among the choices) is
//! rejected rather than shown.
//!
//! Cost: a light question costs one replay of the run up to its stop plus the stretch it
//! reads. Heavy questions (see [`Question::heavy`]: `resize` above [`LIGHT_NODES`], sweeps,
//! many orders) are left [`Checked::Deferred`] unless `heavy` is asked for; the page computes
//! them with [`answer_stop`] when the student reaches the stop. `resize`, `sweep` and `orders`
//! answers are computed on whole runs from the start (of the scaled, swept or reordered
//! scenario); the stop's position and earlier acts are not carried over.

use super::{Answer, At, Check, Condition, Lesson, Question, LIGHT_NODES};
use crate::breakpoint::{run_until, Breakpoint, Watch};
use crate::engine::Engine;
use crate::error::ScenarioError;
use crate::rng::Pcg32;
use crate::scenario::{Action, Scenario};
use crate::sim::EventKind;
use crate::{NodeId, Time};
use serde_json::Value;

/// The most steps any one computed run takes (a run that needs more is reported, not hung).
pub const MAX_CHECK_STEPS: u64 = 5_000_000;

/// A question's result at its stop.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Checked {
    Answer(Answer),
    /// Heavy: computed on demand ([`answer_stop`]).
    Deferred,
}

/// Where a stop landed, and its question's answer.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct StopResult {
    pub step: u64,
    pub time: Time,
    /// `None` for a stop without a question.
    pub checked: Option<Checked>,
}

fn within(path: &str) -> impl Fn(ScenarioError) -> ScenarioError + '_ {
    move |e| e.within(path)
}

/// Every stop's step and answer (heavy answers only if `heavy`). Also checks what only the
/// engine can: breakpoints, message kinds, properties, node ids, the order of the stops.
pub fn answers(lesson: &Lesson, heavy: bool) -> Result<Vec<StopResult>, ScenarioError> {
    walk(lesson, heavy, None)
}

/// The answer of stop `index`'s question, heavy or not (None: the stop asks nothing).
pub fn answer_stop(lesson: &Lesson, index: usize) -> Result<Option<Answer>, ScenarioError> {
    let results = walk(lesson, true, Some(index))?;
    Ok(match results.get(index).and_then(|r| r.checked.clone()) {
        Some(Checked::Answer(a)) => Some(a),
        _ => None,
    })
}

fn walk(lesson: &Lesson, heavy: bool, only: Option<usize>) -> Result<Vec<StopResult>, ScenarioError> {
    let mut e = Engine::new(lesson.scenario.clone()).map_err(within("scenario"))?;
    let alg = e.algorithm();
    if let Some(c) = lesson.challenge.as_ref().filter(|c| !alg.properties.iter().any(|p| p.id == c.property)) {
        let ids: Vec<&str> = alg.properties.iter().map(|p| p.id).collect();
        return Err(ScenarioError::new(
            "challenge.property",
            format!("unknown property '{}' for {} (it claims: {})", c.property, alg.id, ids.join(", ")),
        ));
    }
    let mut out = Vec::with_capacity(lesson.stops.len());
    for (i, stop) in lesson.stops.iter().enumerate() {
        let path = format!("stops[{i}]");
        seek_to(&mut e, &stop.at, &format!("{path}.at"), i == 0)?;
        let mut result = StopResult { step: e.cursor(), time: e.now(), checked: None };
        if let Some(q) = &stop.question {
            let qpath = format!("{path}.question");
            check_names(q, &e, &qpath)?;
            let compute = only.map_or(heavy || !q.heavy(), |o| o == i);
            result.checked = Some(if compute {
                Checked::Answer(answer_on(&e, q).map_err(within(&qpath))?)
            } else {
                Checked::Deferred
            });
        }
        if let Some(act) = &stop.act {
            let apath = format!("{path}.act");
            let cond = Condition::parse(&act.until, &e).map_err(|m| ScenarioError::new(format!("{apath}.until"), m))?;
            let mut waiter = super::Waiter::new(cond, &e);
            e.apply(act.action.clone()).map_err(within(&format!("{apath}.do")))?;
            let mut met = waiter.check(&e);
            let mut steps = 0;
            while !met && steps < MAX_CHECK_STEPS && e.step() {
                steps += 1;
                met = waiter.check(&e);
            }
            if !met {
                return Err(ScenarioError::new(
                    format!("{apath}.do"),
                    format!("does not make '{}' hold (the run ends at step {})", act.until, e.cursor()),
                ));
            }
        }
        out.push(result);
        if only.is_some_and(|o| o == i) {
            break;
        }
    }
    Ok(out)
}

fn seek_to(e: &mut Engine, at: &At, path: &str, first: bool) -> Result<(), ScenarioError> {
    match at {
        At::Start if first => Ok(()),
        At::Start => Err(ScenarioError::new(path, "only the first stop can be at \"start\"")),
        At::Now => Ok(()),
        At::Step(k) => {
            if *k < e.cursor() {
                return Err(ScenarioError::new(
                    path,
                    format!("step {k} is before the previous stop (step {})", e.cursor()),
                ));
            }
            while e.cursor() < *k && e.step() {}
            if e.cursor() < *k {
                return Err(ScenarioError::new(path, format!("the run ends at step {}, before step {k}", e.cursor())));
            }
            Ok(())
        }
        At::When(text) => {
            let bp = Breakpoint::parse(text, e).map_err(|m| ScenarioError::new(path, m))?;
            let mut watch = Watch::new(vec![bp], e);
            match run_until(e, &mut watch, MAX_CHECK_STEPS) {
                Some(_) => Ok(()),
                None => Err(ScenarioError::new(
                    path,
                    format!("'{text}' never hits after the previous stop (the run ends at step {})", e.cursor()),
                )),
            }
        }
    }
}

/// Checks the names a question uses (kinds, property, nodes) against the run.
fn check_names(q: &Question, e: &Engine, path: &str) -> Result<(), ScenarioError> {
    let alg = e.algorithm();
    let kinds: Vec<&str> = alg.kinds.iter().map(|k| k.name).collect();
    for (field, list) in [("choices", &q.choices), ("kinds", &q.kinds)] {
        for (j, k) in list.iter().enumerate() {
            if !kinds.contains(&k.as_str()) {
                return Err(ScenarioError::new(
                    format!("{path}.{field}[{j}]"),
                    format!("unknown message kind '{k}' for {} (kinds: {})", alg.id, kinds.join(", ")),
                ));
            }
        }
    }
    if let Some(p) = &q.property {
        if !alg.properties.iter().any(|x| x.id == p) {
            let ids: Vec<&str> = alg.properties.iter().map(|x| x.id).collect();
            return Err(ScenarioError::new(
                format!("{path}.property"),
                format!("unknown property '{p}' for {} (it claims: {})", alg.id, ids.join(", ")),
            ));
        }
    }
    for (j, n) in q.nodes.iter().enumerate() {
        if !e.scenario().nodes.contains(n) {
            return Err(ScenarioError::new(format!("{path}.nodes[{j}]"), format!("unknown node {n}")));
        }
    }
    if let Some(At::When(text)) = &q.when {
        Breakpoint::parse(text, e).map_err(|m| ScenarioError::new(format!("{path}.when"), m))?;
    }
    Ok(())
}

/// The answer to `q` for the run `engine` holds, at its cursor (the page calls this on the
/// student's own run when it reached the stop). The engine is not moved: the answer is read
/// on a copy rebuilt from its trace. Errors name the question's field.
pub fn answer_on(engine: &Engine, q: &Question) -> Result<Answer, ScenarioError> {
    if let Some(s) = &q.sweep {
        let mut hits = 0;
        for (j, v) in s.values.iter().enumerate() {
            let mut value = engine.scenario().to_value();
            set_path(&mut value, &s.field, v.clone()).map_err(|m| ScenarioError::new("sweep.field", m))?;
            let sc = Scenario::from_value(&value)
                .map_err(|e| ScenarioError::new(format!("sweep.values[{j}]"), e.to_string()))?;
            let mut run = Engine::summary_only(sc)
                .map_err(|e| ScenarioError::new(format!("sweep.values[{j}]"), e.to_string()))?;
            // The interventions made so far (the student's, or the lesson's acts) at their times.
            run.replay_by_time(engine.interventions()).map_err(within(&format!("sweep.values[{j}]")))?;
            let mut steps = 0;
            while steps < MAX_CHECK_STEPS && run.step() {
                steps += 1;
            }
            if run.violations().iter().any(|v| q.property.as_deref().is_none_or(|p| p == v.kind)) {
                hits += 1;
            }
        }
        return Ok(Answer::Number(hits));
    }
    let base = match q.resize {
        Some(n) => resized(engine.scenario(), n),
        None => engine.scenario().clone(),
    };
    if q.check == Check::MeanMessagesOverOrders {
        let mut rng = Pcg32::new(base.seed, 0x6c65_7373);
        let mut total = 0u64;
        for _ in 0..q.orders {
            let mut sc = base.clone();
            for i in (1..sc.nodes.len()).rev() {
                let j = rng.range_inclusive(0, i as u64) as usize;
                sc.nodes.swap(i, j);
            }
            let mut run = Engine::summary_only(sc).map_err(within("orders"))?;
            let Answer::Number(n) = read(&mut run, q)? else { unreachable!() };
            total += n;
        }
        return Ok(Answer::Number((total + q.orders / 2) / q.orders));
    }
    let mut run = if q.resize.is_some() {
        let light = !matches!(q.check, Check::NextDeliveryKind | Check::LeaderAt);
        if light && base.nodes.len() > LIGHT_NODES { Engine::summary_only(base) } else { Engine::new(base) }
            .map_err(within("resize"))?
    } else {
        Engine::from_trace_value(&engine.trace_value())?
    };
    read(&mut run, q)
}

/// Sets the value at a dotted path of a scenario's JSON (`heartbeats.timeout`, `params.ttl`).
fn set_path(root: &mut Value, path: &str, v: Value) -> Result<(), String> {
    let mut cur = root;
    let parts: Vec<&str> = path.split('.').collect();
    for (i, p) in parts.iter().enumerate() {
        let obj = cur.as_object_mut().ok_or_else(|| format!("'{}' is not an object", parts[..i].join(".")))?;
        if i + 1 == parts.len() {
            obj.insert(p.to_string(), v);
            return Ok(());
        }
        cur = obj.entry(p.to_string()).or_insert_with(|| Value::Object(Default::default()));
    }
    Ok(())
}

/// The scenario scaled to nodes `1..=n`: the lower half of the ids by rank map to 1, 2, …, the
/// upper half to …, n − 1, n (so the lowest stays lowest and the highest highest). When every
/// node starts an election at the same tick, every node of the scaled scenario does.
pub fn resized(s: &Scenario, n: usize) -> Scenario {
    let mut sorted = s.nodes.clone();
    sorted.sort_unstable();
    let k = sorted.len();
    let map = |id: NodeId| -> NodeId {
        let i = sorted.iter().position(|x| *x == id).unwrap_or(0);
        if i < k / 2 {
            (i + 1) as NodeId
        } else {
            (n - (k - 1 - i)) as NodeId
        }
    };
    let mut out = s.clone();
    out.nodes = (1..=n as NodeId).collect();
    for sch in &mut out.schedule {
        sch.action = match &sch.action {
            Action::Crash(x) => Action::Crash(map(*x)),
            Action::Recover(x) => Action::Recover(map(*x)),
            Action::Start(x) => Action::Start(map(*x)),
            Action::Isolate(x) => Action::Isolate(map(*x)),
            Action::Cut { from, to } => Action::Cut { from: map(*from), to: map(*to) },
            Action::Partition { groups, lines } => Action::Partition {
                groups: groups.iter().map(|g| g.iter().map(|x| map(*x)).collect()).collect(),
                lines: lines.clone(),
            },
            a => a.clone(),
        };
    }
    // "Every node starts at t" stays true at the new size.
    let starts_at = |t: Time| s.schedule.iter().filter(|x| x.at == t && matches!(x.action, Action::Start(_))).count();
    let everyone =
        s.schedule.iter().find(|x| matches!(x.action, Action::Start(_))).map(|x| x.at).filter(|t| starts_at(*t) == k);
    if let Some(t) = everyone {
        out.schedule.retain(|x| !(x.at == t && matches!(x.action, Action::Start(_))));
        let mapped: Vec<NodeId> = s.nodes.iter().map(|x| map(*x)).collect();
        let extra: Vec<NodeId> = out.nodes.iter().copied().filter(|x| !mapped.contains(x)).collect();
        let pos = out.schedule.iter().position(|x| x.at > t).unwrap_or(out.schedule.len());
        for (j, id) in s.nodes.iter().map(|x| map(*x)).chain(extra).enumerate() {
            out.schedule.insert(pos + j, crate::scenario::Scheduled { at: t, action: Action::Start(id) });
        }
    }
    out.initial_leader = s.initial_leader.map(map);
    if let Some(f) = &mut out.fencing {
        for w in &mut f.writes {
            w.node = map(w.node);
        }
    }
    // The run may take longer with more nodes; keep the step cap.
    out.stop.max_steps = out.stop.max_steps.max(MAX_CHECK_STEPS);
    out
}

fn count(e: &Engine, kinds: &[String]) -> u64 {
    e.metrics().by_kind.iter().filter(|(k, _)| kinds.is_empty() || kinds.iter().any(|x| x == k)).map(|(_, c)| c).sum()
}

fn ends(e: &Engine) -> String {
    format!("the run ends at step {}", e.cursor())
}

/// Reads the answer on `run`, from its cursor on.
fn read(run: &mut Engine, q: &Question) -> Result<Answer, ScenarioError> {
    let base = count(run, &q.kinds);
    let mut steps = 0u64;
    let mut step = |run: &mut Engine| {
        steps += 1;
        steps <= MAX_CHECK_STEPS && run.step()
    };
    Ok(match q.check {
        Check::LeaderAt => {
            match &q.when {
                None => while step(run) {},
                Some(At::Start | At::Now) => {}
                Some(At::Step(k)) => {
                    while run.cursor() < *k && step(run) {}
                    if run.cursor() != *k {
                        return Err(ScenarioError::new("when", format!("{} (before step {k})", ends(run))));
                    }
                }
                Some(At::When(t)) => {
                    let bp = Breakpoint::parse(t, run).map_err(|m| ScenarioError::new("when", m))?;
                    let mut w = Watch::new(vec![bp], run);
                    if run_until(run, &mut w, MAX_CHECK_STEPS).is_none() {
                        return Err(ScenarioError::new("when", format!("'{t}' never hits ({})", ends(run))));
                    }
                }
            }
            Answer::Node(run.agreement())
        }
        Check::NextDeliveryKind => loop {
            if !step(run) {
                return Err(ScenarioError::new(
                    "check",
                    format!("no message is delivered after the stop ({})", ends(run)),
                ));
            }
            let at = run.cursor();
            if run.record(at).is_some_and(|r| matches!(r.kind, EventKind::Deliver)) {
                let kind = run.step_info(at).and_then(|i| i.kind).unwrap_or("?");
                if !q.choices.iter().any(|c| c == kind) {
                    return Err(ScenarioError::new(
                        "choices",
                        format!("the next delivery (step {at}) is {kind}, which is not among the choices"),
                    ));
                }
                break Answer::Choice(kind.to_string());
            }
        },
        Check::MessagesUntilAgreement => {
            let n0 = run.elections().len();
            while run.elections().len() == n0 {
                if !step(run) {
                    return Err(ScenarioError::new(
                        "check",
                        format!("no election completes after the stop ({})", ends(run)),
                    ));
                }
            }
            Answer::Number(count(run, &q.kinds) - base)
        }
        Check::MessagesUntilEnd | Check::MeanMessagesOverOrders => {
            while step(run) {}
            Answer::Number(count(run, &q.kinds) - base)
        }
        Check::Elected => {
            let n0 = run.elections().len();
            while run.elections().len() == n0 && step(run) {}
            Answer::YesNo(run.elections().len() > n0)
        }
        Check::Violated | Check::ViolationsOverSweep => {
            let n0 = run.violations().len();
            let hit =
                |r: &Engine| r.violations()[n0..].iter().any(|v| q.property.as_deref().is_none_or(|p| p == v.kind));
            while !hit(run) && step(run) {}
            Answer::YesNo(hit(run))
        }
        Check::MaxLeaders => {
            let mut most = run.leaders().len();
            while step(run) {
                most = most.max(run.leaders().len());
            }
            Answer::Number(most as u64)
        }
        Check::WritesRejected => {
            let rejected = |r: &Engine| r.frame().store.map_or(0, |s| s.store.rejected);
            let r0 = rejected(run);
            if run.frame().store.is_none() {
                return Err(ScenarioError::new(
                    "check",
                    "the scenario writes through no fenced store (add \"fencing\")",
                ));
            }
            while step(run) {}
            Answer::Number(rejected(run) - r0)
        }
        Check::MinorityElects => {
            let led: Vec<NodeId> = run.leaders();
            let nodes = run.scenario().nodes.clone();
            let minority = |r: &Engine| -> Vec<NodeId> {
                if !q.nodes.is_empty() {
                    return q.nodes.clone();
                }
                let Some(g) = r.groups() else { return vec![] };
                let mut sizes = std::collections::BTreeMap::new();
                for l in g {
                    *sizes.entry(*l).or_insert(0usize) += 1;
                }
                let Some((&small, _)) = sizes.iter().min_by_key(|(_, c)| **c) else { return vec![] };
                nodes.iter().zip(g).filter(|(_, l)| **l == small).map(|(n, _)| *n).collect()
            };
            let elects = |r: &Engine| {
                let m = minority(r);
                r.leaders().iter().any(|l| m.contains(l) && !led.contains(l))
            };
            while !elects(run) && step(run) {}
            Answer::YesNo(elects(run))
        }
    })
}
