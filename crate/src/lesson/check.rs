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

use super::{Answer, At, Condition, Lesson, Question};
use crate::breakpoint::{run_until, Breakpoint, Watch};
use crate::engine::Engine;
use crate::error::ScenarioError;
use crate::scenario::{Action, Scenario};
use crate::{NodeId, Time};
use serde_json::Value;

mod job;
pub use job::Job;

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
    walk(lesson, heavy, None, &mut |_, _| {})
}

/// Walks the lesson's run as [`answers`] does (light answers only), calling `visit` with each
/// stop's index and the run at that stop (before its act).
pub fn visit(lesson: &Lesson, visit: &mut dyn FnMut(usize, &Engine)) -> Result<(), ScenarioError> {
    walk(lesson, false, None, visit).map(|_| ())
}

/// The answer of stop `index`'s question, heavy or not (None: the stop asks nothing).
pub fn answer_stop(lesson: &Lesson, index: usize) -> Result<Option<Answer>, ScenarioError> {
    let results = walk(lesson, true, Some(index), &mut |_, _| {})?;
    Ok(match results.get(index).and_then(|r| r.checked.clone()) {
        Some(Checked::Answer(a)) => Some(a),
        _ => None,
    })
}

fn walk(
    lesson: &Lesson,
    heavy: bool,
    only: Option<usize>,
    visit: &mut dyn FnMut(usize, &Engine),
) -> Result<Vec<StopResult>, ScenarioError> {
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
        visit(i, &e);
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
        At::End => {
            let mut steps = 0;
            while steps < MAX_CHECK_STEPS && e.step() {
                steps += 1;
            }
            Ok(())
        }
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
/// on a copy rebuilt from its trace. Errors name the question's field. A [`Job`] run at once.
pub fn answer_on(engine: &Engine, q: &Question) -> Result<Answer, ScenarioError> {
    let mut job = Job::new(engine, q)?;
    loop {
        if let Some(answer) = job.advance(u64::MAX) {
            return answer;
        }
    }
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
            // Scaled down below the scenario's own size, ids of the upper half meet at N1 at worst.
            n.saturating_sub(k - 1 - i).max(1) as NodeId
        }
    };
    let mut out = s.clone();
    out.nodes = (1..=n as NodeId).collect();
    out.topology = s.topology.as_ref().and_then(|g| g.resized(n as u32)).map(Box::new);
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
