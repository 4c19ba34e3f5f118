//! Traces as JSON Lines, both ways: what `election-lab run --trace` writes and what `run`,
//! `check` and the page's Import read back.
//!
//! * line 1, the header: the trace (`{format, scenario, interventions, step, until?}`), which
//!   alone rebuilds the run;
//! * one line per step: `step, time, event, ...` as [`Engine::trace_line`], plus `state` — the
//!   nodes whose state the step changed, each with `up, role, leader`, its term (named as the
//!   algorithm names it: `term`, `ballot`, `round`, ...), `vote`, `votes`, `zxid`, `group` where
//!   it has them, and `fields` (the inspector's fields by id, typed: see
//!   `election_lab_core::field`) — and `violations`, those that began at that step;
//! * after step k's line, a line `{"intervention_at_step": k, ...}` per intervention applied
//!   there (the last one carries the `state` it changed);
//! * a last line `{"summary": ...}`.
//!
//! Reading: the header rebuilds the run; every later line is checked against a re-run, and the
//! first that disagrees is named (`line 57: event differs from the re-run: "kind" is "OK" here,
//! "ELECTION" in the re-run`). A file cut short (`head -n 100`) is still read; lines written
//! before the per-node state existed (no `state`, no `violations`, interventions without
//! `time`) are still read, and so are nodes' states written before fields had ids (`inspect`:
//! English labels to shown values, in place of `fields`; not compared).

use super::Engine;
use crate::error::ScenarioError;
use crate::meta::Lang;
use crate::sim::EventKind;
use crate::trace::Trace;
use crate::NodeId;
use election_lab_core::{parse_json, write_json};
use serde_json::{json, Map, Value};

/// One node's state as a trace line shows it.
pub fn node_state(e: &Engine, id: NodeId) -> Value {
    let up = e.is_up(id) == Some(true);
    let v = e.node_view(id).unwrap_or_default();
    let mut o = Map::new();
    o.insert("up".into(), json!(up));
    o.insert("role".into(), json!(v.role));
    o.insert("leader".into(), json!(v.leader));
    if let Some(t) = v.term {
        o.insert(v.term_word.map_or("term", |w| w.get(Lang::En)).into(), json!(t));
    }
    if let Some(x) = v.vote {
        o.insert("vote".into(), json!(x));
    }
    if let Some((held, needed)) = v.tally {
        o.insert("votes".into(), json!([held, needed]));
    }
    if let Some(x) = v.zxid() {
        o.insert("zxid".into(), json!(x));
    }
    if let Some(x) = v.group() {
        o.insert("group".into(), json!(x));
    }
    // Filled by inserts: collecting into a map compiles a sort of its own into the page.
    let mut fields = Map::new();
    for f in e.inspect(id) {
        fields.insert(f.id.into_owned(), f.value.json());
    }
    o.insert("fields".into(), Value::Object(fields));
    Value::Object(o)
}

/// Compares the nodes at positions `which` with `last`, updating it; the changed ones as
/// `{"<id>": state}`.
fn changed(e: &Engine, ids: &[NodeId], which: &[usize], last: &mut [Value]) -> Map<String, Value> {
    let mut out = Map::new();
    for &i in which {
        let now = node_state(e, ids[i]);
        if now != last[i] {
            out.insert(ids[i].to_string(), now.clone());
            last[i] = now;
        }
    }
    out
}

/// Why [`Engine::trace_lines`] stopped early.
pub enum Stop<E> {
    /// The consumer asked to stop (e.g. a file read back is shorter than the run).
    Enough,
    Err(E),
}

impl Engine {
    /// The run up to the cursor as JSON Lines values, in order: header, step lines (with the
    /// per-node state each step changed and the violations it began), intervention lines,
    /// summary. Replays the run from step 0 to read the states; the cursor is back where it
    /// was afterwards.
    pub fn trace_lines<E>(&mut self, emit: &mut dyn FnMut(Value) -> Result<(), Stop<E>>) -> Result<(), E> {
        let end = self.cursor();
        let result = self.walk_lines(end, emit);
        self.seek(end);
        match result {
            Ok(()) | Err(Stop::Enough) => Ok(()),
            Err(Stop::Err(e)) => Err(e),
        }
    }

    fn walk_lines<E>(&mut self, end: u64, emit: &mut dyn FnMut(Value) -> Result<(), Stop<E>>) -> Result<(), Stop<E>> {
        emit(self.trace_value())?;
        let mut all = u64::MAX;
        Walk::new(self, end).some(self, &mut all, emit).map(drop)
    }

    /// Reads the JSON Lines [`Engine::trace_lines`] writes: the header rebuilds the run, and
    /// every later line must agree with a re-run of it.
    pub fn from_jsonl(text: &str) -> Result<Engine, ScenarioError> {
        let mut lines = text.lines().enumerate().map(|(i, l)| Ok((i + 1, l.to_string())));
        Engine::from_jsonl_lines(&mut lines)
    }

    /// [`Engine::from_jsonl`] over lines read one at a time, `(line number, text)` (an error
    /// stops the reading and is returned): what the command line uses for a file of any length,
    /// so that it reads back whatever `run --trace` wrote within the history budget — memory
    /// holds one line, and the re-run stops at the budget as the run that wrote it did.
    pub fn from_jsonl_lines(
        lines: &mut dyn Iterator<Item = Result<(usize, String), ScenarioError>>,
    ) -> Result<Engine, ScenarioError> {
        let mut failed = None;
        let mut lines = std::iter::from_fn(|| loop {
            match lines.next()? {
                Ok((_, l)) if l.trim().is_empty() => continue,
                Ok(x) => return Some(x),
                Err(e) => {
                    failed = Some(e);
                    return None;
                }
            }
        });
        let result = Engine::read_lines(&mut lines);
        match failed {
            Some(e) => Err(e),
            None => result,
        }
    }

    fn read_lines(lines: &mut dyn Iterator<Item = (usize, String)>) -> Result<Engine, ScenarioError> {
        let Some((h, header)) = lines.next() else {
            return Err(ScenarioError::new("", "empty trace"));
        };
        let at = |n: usize| format!("line {n}");
        let trace = header_trace(h, &header)?;
        let mut engine = Engine::from_trace(trace).map_err(|e| ScenarioError::new(at(h), e.to_string()))?;
        let mut first = true;
        let mut check = |rerun: Value| -> Result<(), Stop<ScenarioError>> {
            if std::mem::take(&mut first) {
                return Ok(()); // the header, read above
            }
            check_line(lines.next(), &rerun)
        };
        engine.trace_lines(&mut check)?;
        if let Some((n, _)) = lines.next() {
            return Err(ScenarioError::new(
                at(n),
                format!("the re-run has no such line: it ends at step {} with its summary", engine.cursor()),
            ));
        }
        Ok(engine)
    }
}

/// [`Engine::trace_lines`]'s walk over the run after its header, resumable: [`Walk::some`] makes
/// at most a given number of steps a call (the page checks a slow script's JSON Lines in slices,
/// `engine/replay.rs`), emitting each step's lines as it goes.
#[derive(Clone, Debug)]
pub(super) struct Walk {
    end: u64,
    ids: Vec<NodeId>,
    /// Each node's state as last emitted.
    last: Vec<Value>,
    ivs: Vec<crate::trace::Intervention>,
    violations: Vec<(u64, Value)>,
    next_iv: usize,
    next_v: usize,
    /// The step whose lines are emitted next (the cursor stands there).
    step: u64,
}

impl Walk {
    /// The walk of `e`'s run up to step `end`; the cursor goes to step 0.
    pub(super) fn new(e: &mut Engine, end: u64) -> Walk {
        let ids = e.scenario.nodes.clone();
        // The state every node boots with, before any intervention at step 0.
        let boot = Engine::new(e.scenario.clone()).expect("this scenario built a run already");
        let last: Vec<Value> = ids.iter().map(|&id| node_state(&boot, id)).collect();
        drop(boot);
        let ivs = e.interventions().to_vec();
        let violations: Vec<(u64, Value)> =
            e.all_violations().iter().filter(|v| v.step <= end).map(|v| (v.step, super::violation_json(v))).collect();
        e.seek(0);
        Walk { end, ids, last, ivs, violations, next_iv: 0, next_v: 0, step: 0 }
    }

    /// Emits the lines of the steps that follow, making at most `*left` steps (counted off);
    /// `Ok(true)` once the summary is emitted.
    pub(super) fn some<E>(
        &mut self,
        e: &mut Engine,
        left: &mut u64,
        emit: &mut dyn FnMut(Value) -> Result<(), Stop<E>>,
    ) -> Result<bool, Stop<E>> {
        let Walk { end, ids, last, ivs, violations, next_iv, next_v, step } = self;
        let every: Vec<usize> = (0..ids.len()).collect();
        loop {
            if *left == 0 {
                return Ok(false);
            }
            let step_now = *step;
            if step_now > 0 {
                let Some(mut line) = e.trace_line(step_now) else { break };
                let rec = e.record(step_now).expect("a step with a line has a record");
                let one;
                let which: &[usize] = match rec.kind {
                    EventKind::Deliver | EventKind::Drop(_) | EventKind::Timer(_) => {
                        one = ids.iter().position(|&x| x == rec.node).map_or(vec![], |i| vec![i]);
                        &one
                    }
                    _ => &every,
                };
                let state = changed(e, ids, which, last);
                if !state.is_empty() {
                    line["state"] = Value::Object(state);
                }
                let mut began = vec![];
                while *next_v < violations.len() && violations[*next_v].0 <= step_now {
                    if violations[*next_v].0 == step_now {
                        began.push(violations[*next_v].1.clone());
                    }
                    *next_v += 1;
                }
                if !began.is_empty() {
                    line["violations"] = Value::Array(began);
                }
                emit(line)?;
            }
            // An intervention recorded at step k was applied after step k's event: seeking to
            // the cursor applies it.
            if *next_iv < ivs.len() && ivs[*next_iv].step == step_now {
                e.seek(step_now);
                let first = *next_iv;
                while *next_iv < ivs.len() && ivs[*next_iv].step == step_now {
                    *next_iv += 1;
                }
                let state = changed(e, ids, &every, last);
                for (k, iv) in ivs[first..*next_iv].iter().enumerate() {
                    let mut o = Map::new();
                    o.insert("intervention_at_step".into(), step_now.into());
                    o.insert("time".into(), iv.time.into());
                    iv.action.write_json(&mut o);
                    if first + k + 1 == *next_iv && !state.is_empty() {
                        o.insert("state".into(), Value::Object(state.clone()));
                    }
                    emit(Value::Object(o))?;
                }
            }
            if step_now >= *end || !e.step() {
                break;
            }
            *step += 1;
            *left -= 1;
        }
        emit(json!({"summary": e.summary()}))?;
        Ok(true)
    }
}

/// The trace a JSON Lines trace's header, line `h`, holds.
pub(super) fn header_trace(h: usize, header: &str) -> Result<Trace, ScenarioError> {
    let at = || format!("line {h}");
    let value: Value = crate::parse_json(header).map_err(|e| ScenarioError::new(at(), e.to_string()))?;
    let trace = Trace::from_value(&value).map_err(|e| ScenarioError::new(at(), e.to_string()))?;
    if trace.bare {
        return Err(ScenarioError::new(
            at(),
            "the first line of a JSON Lines trace is its header: {\"scenario\": ..., \"interventions\": ...}",
        ));
    }
    Ok(trace)
}

/// Checks the next line of a JSON Lines trace, `(line number, text)` (none: the file ends
/// there, which stops the reading), against the re-run's line.
pub(super) fn check_line(next: Option<(usize, String)>, rerun: &Value) -> Result<(), Stop<ScenarioError>> {
    let Some((n, line)) = next else { return Err(Stop::Enough) };
    let at = |n: usize| format!("line {n}");
    let file = crate::parse_json(&line).map_err(|e| Stop::Err(ScenarioError::new(at(n), e.to_string())))?;
    match difference(&file, rerun, "") {
        None => Ok(()),
        Some(d) => {
            let what = match (rerun.get("step"), rerun.get("intervention_at_step"), rerun.get("summary")) {
                (Some(_), _, _) => "event",
                (_, Some(_), _) => "intervention",
                (_, _, Some(_)) => "summary",
                _ => "line",
            };
            Err(Stop::Err(ScenarioError::new(at(n), format!("{what} differs from the re-run: {d}"))))
        }
    }
}

/// The header of a JSON Lines trace of which only the first bytes were read (a file too long to
/// read whole, as the page reads one): its first line, when that line is whole and is a trace
/// (an object with a scenario). The header alone rebuilds the run; the later lines only repeat
/// it, step by step.
pub fn header_line(prefix: &str) -> Option<&str> {
    let (first, _) = prefix.split_once('\n')?;
    let v: Value = parse_json(first).ok()?;
    v.get("scenario").is_some().then_some(first.trim_end_matches('\r'))
}

/// Whether `text` looks like JSON Lines: a first line that is a whole JSON object, and more.
pub fn is_jsonl(text: &str) -> bool {
    let mut lines = text.lines().filter(|l| !l.trim().is_empty());
    let Some(first) = lines.next() else { return false };
    first.trim_start().starts_with('{') && lines.next().is_some() && parse_json(first).is_ok_and(|v| v.is_object())
}

fn short(v: Option<&Value>) -> String {
    match v {
        None => "missing".into(),
        Some(v) => {
            let t = write_json(v);
            if t.chars().count() > 100 {
                format!("{}…", t.chars().take(100).collect::<String>())
            } else {
                t
            }
        }
    }
}

/// The first place `file` differs from `rerun`, as `"a.b" is X here, Y in the re-run`. Keys
/// an older writer did not write (`state`, `violations` at the top level, an intervention
/// line's `time`) may be missing.
fn difference(file: &Value, rerun: &Value, path: &str) -> Option<String> {
    match (file, rerun) {
        (Value::Object(f), Value::Object(r)) => {
            for (k, rv) in r {
                let p = if path.is_empty() { k.clone() } else { format!("{path}.{k}") };
                match f.get(k) {
                    None if path.is_empty() && (k == "state" || k == "violations") => {}
                    // A node's state written before fields had ids: `inspect` in their place.
                    None if k == "fields" && f.contains_key("inspect") => {}
                    // Intervention lines of the first writer had no time.
                    None if path.is_empty() && k == "time" && r.contains_key("intervention_at_step") => {}
                    None => return Some(format!("\"{p}\" is missing here, {} in the re-run", short(Some(rv)))),
                    Some(fv) => {
                        if let Some(d) = difference(fv, rv, &p) {
                            return Some(d);
                        }
                    }
                }
            }
            let old_inspect = |k: &str| k == "inspect" && r.contains_key("fields");
            f.keys().find(|k| !r.contains_key(*k) && !old_inspect(k)).map(|k| {
                let p = if path.is_empty() { k.clone() } else { format!("{path}.{k}") };
                format!("\"{p}\" is {} here, missing in the re-run", short(f.get(k)))
            })
        }
        _ if file == rerun => None,
        _ => {
            let p = if path.is_empty() { "the line".to_string() } else { format!("\"{path}\"") };
            Some(format!("{p} is {} here, {} in the re-run", short(Some(file)), short(Some(rerun))))
        }
    }
}
