//! The counterexample search as the page runs it: one job posted to a Web Worker, replies posted
//! back. Both ends live here so that they agree and can be tested natively: the page encodes a
//! [`Job`], the worker (`src/lab_worker.rs`) hands its text to [`run`], which drives the
//! engine's [`Search`] in slices and posts [`Reply`]s as JSON text — progress about ten times a
//! second, then the counterexample's trace (the engine's trace JSON, which the page opens like an
//! imported file) or what was tried when none was found.

use election_lab::search::{Options, Phase, Search};
use election_lab::Scenario;
use serde_json::{json, Value};

/// Simulation steps the page's search spends on schedules (the CLI's default is 10⁶): a few
/// seconds in the worker, and as deterministic as the CLI's `--budget-steps` with the same seed.
pub const BUDGET_STEPS: u64 = 4_000_000;
/// Steps per call to `advance`: a few milliseconds, so that progress is posted smoothly.
pub const SLICE_STEPS: u64 = 20_000;
/// Progress is posted at most this often (milliseconds of the worker's clock).
pub const PROGRESS_EVERY_MS: f64 = 100.0;

/// What the worker posts once its handler is installed: the page posts jobs only after it (a
/// message that arrived while the wasm was still loading would find no handler).
pub const READY: &str = r#"{"id":0,"kind":"ready"}"#;

/// What the page asks the worker for.
#[derive(Clone, Debug, PartialEq)]
pub struct Job {
    /// Numbers the page's searches: replies of an earlier one are ignored.
    pub id: u32,
    pub scenario: Value,
    pub property: String,
    pub budget_steps: u64,
    pub seed: u64,
}

impl Job {
    pub fn new(id: u32, scenario: &Scenario, property: &str) -> Job {
        Job { id, scenario: scenario.to_value(), property: property.into(), budget_steps: BUDGET_STEPS, seed: 0 }
    }

    pub fn to_json(&self) -> String {
        json!({
            "id": self.id,
            "scenario": self.scenario,
            "property": self.property,
            "budget_steps": self.budget_steps,
            "seed": self.seed,
        })
        .to_string()
    }

    pub fn from_json(text: &str) -> Result<Job, String> {
        let v: Value = serde_json::from_str(text).map_err(|e| format!("job: {e}"))?;
        let num = |k: &str| v.get(k).and_then(Value::as_u64).ok_or_else(|| format!("job: '{k}' is not a number"));
        Ok(Job {
            id: u32::try_from(num("id")?).map_err(|_| "job: 'id' is too large".to_string())?,
            scenario: v.get("scenario").cloned().ok_or("job: no 'scenario'")?,
            property: v.get("property").and_then(Value::as_str).ok_or("job: no 'property'")?.to_string(),
            budget_steps: num("budget_steps")?,
            seed: num("seed")?,
        })
    }
}

/// How far a search has come (what the progress bar shows).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Tried {
    pub schedules: u64,
    pub states: u64,
    pub steps: u64,
    pub budget_steps: u64,
    /// A violation was found and is being shrunk.
    pub shrinking: bool,
    pub shrink_runs: u64,
    /// The search stopped at its memory cap for its tree of explored histories (in MiB; 0: it
    /// did not).
    pub capped_mib: u64,
}

/// What the worker tells the page.
#[derive(Clone, Debug, PartialEq)]
pub enum Reply {
    Progress(Tried),
    /// The shrunk counterexample: the trace (opens at the violating step), the step, and what
    /// was tried; `ms` is the worker's time for the whole search (for the benchmark).
    Found {
        trace: Value,
        step: u64,
        tried: Tried,
        ms: f64,
    },
    /// The budget was spent without a violation.
    None {
        tried: Tried,
        ms: f64,
    },
    /// The job was refused (an unknown property, a scenario the engine rejects).
    Error(String),
}

impl Tried {
    fn of(p: &election_lab::search::Progress) -> Tried {
        Tried {
            schedules: p.schedules,
            states: p.states,
            steps: p.steps,
            budget_steps: p.budget_steps,
            shrinking: p.phase == Phase::Shrinking,
            shrink_runs: p.shrink_runs,
            capped_mib: if p.phase == Phase::Capped { (election_lab::search::MAX_MEMORY >> 20) as u64 } else { 0 },
        }
    }

    fn to_value(self) -> Value {
        json!({
            "schedules": self.schedules,
            "states": self.states,
            "steps": self.steps,
            "budget_steps": self.budget_steps,
            "shrinking": self.shrinking,
            "shrink_runs": self.shrink_runs,
            "capped_mib": self.capped_mib,
        })
    }

    fn from_value(v: &Value) -> Tried {
        let num = |k: &str| v.get(k).and_then(Value::as_u64).unwrap_or(0);
        Tried {
            schedules: num("schedules"),
            states: num("states"),
            steps: num("steps"),
            budget_steps: num("budget_steps"),
            shrinking: v.get("shrinking").and_then(Value::as_bool).unwrap_or(false),
            shrink_runs: num("shrink_runs"),
            capped_mib: num("capped_mib"),
        }
    }
}

/// An error reply from the page's own side (the worker could not start): cheaper than going
/// through [`Reply::to_json`], which the first load would then carry.
pub fn error_json(message: &str) -> String {
    error_reply(0, message).to_string()
}

// Every job's replies (the search's, the sweep's, the check's, the grading's) are
// `{"id": …, "kind": …, …}` and end in the same error reply: their envelope is read here once.

/// An error reply: the job `id` was refused or failed, and why.
pub(crate) fn error_reply(id: u32, message: &str) -> Value {
    json!({"id": id, "kind": "error", "message": message})
}

/// A reply's text as JSON, with the id of the job it answers; or why it is not a reply.
pub(crate) fn reply_of(text: &str) -> Result<(u32, Value), String> {
    let v: Value = serde_json::from_str(text).map_err(|e| format!("reply: {e}"))?;
    let id = v.get("id").and_then(Value::as_u64).and_then(|i| u32::try_from(i).ok()).ok_or("reply: no 'id'")?;
    Ok((id, v))
}

/// What a job or a reply says it is (`"progress"`, `"error"`, a job's `"sweep"`, …).
pub(crate) fn kind_of(v: &Value) -> Option<&str> {
    v.get("kind").and_then(Value::as_str)
}

/// An error reply's message.
pub(crate) fn message_of(v: &Value) -> String {
    v.get("message").and_then(Value::as_str).unwrap_or("?").to_string()
}

/// Why a reply of this kind is not one of the job's.
pub(crate) fn unknown_kind(kind: Option<&str>) -> String {
    format!("reply: unknown kind {kind:?}")
}

impl Reply {
    /// `{"id": …, "kind": "progress" | "found" | "none" | "error", …}`.
    pub fn to_json(&self, id: u32) -> String {
        match self {
            Reply::Progress(t) => json!({"id": id, "kind": "progress", "tried": t.to_value()}),
            Reply::Found { trace, step, tried, ms } => {
                json!({"id": id, "kind": "found", "trace": trace, "step": step, "tried": tried.to_value(), "ms": ms})
            }
            Reply::None { tried, ms } => json!({"id": id, "kind": "none", "tried": tried.to_value(), "ms": ms}),
            Reply::Error(message) => error_reply(id, message),
        }
        .to_string()
    }

    /// The job's id and the reply; text that is not a reply is an error naming why.
    pub fn from_json(text: &str) -> Result<(u32, Reply), String> {
        let (id, v) = reply_of(text)?;
        let tried = Tried::from_value(v.get("tried").unwrap_or(&Value::Null));
        let ms = v.get("ms").and_then(Value::as_f64).unwrap_or(0.0);
        let reply = match kind_of(&v) {
            Some("progress") => Reply::Progress(tried),
            Some("found") => Reply::Found {
                trace: v.get("trace").cloned().ok_or("reply: no 'trace'")?,
                step: v.get("step").and_then(Value::as_u64).unwrap_or(0),
                tried,
                ms,
            },
            Some("none") => Reply::None { tried, ms },
            Some("error") => Reply::Error(message_of(&v)),
            other => return Err(unknown_kind(other)),
        };
        Ok((id, reply))
    }
}

/// Runs the job in `text` to its end, posting replies (JSON text) through `post`; `now` is a
/// clock in milliseconds. The worker calls it once per job; Cancel terminates the worker.
pub fn run(text: &str, now: impl Fn() -> f64, mut post: impl FnMut(String)) {
    let job = match Job::from_json(text) {
        Ok(job) => job,
        Err(e) => return post(Reply::Error(e).to_json(0)),
    };
    let id = job.id;
    let started = now();
    let scenario = match Scenario::from_value(&job.scenario) {
        Ok(s) => s,
        Err(e) => return post(Reply::Error(e.to_string()).to_json(id)),
    };
    let options =
        Options { property: job.property, seed: job.seed, budget_steps: job.budget_steps, ..Options::default() };
    let mut search = match Search::new(scenario, options) {
        Ok(s) => s,
        Err(e) => return post(Reply::Error(e.to_string()).to_json(id)),
    };
    post(Reply::Progress(Tried::of(&search.progress())).to_json(id));
    let mut posted = started;
    loop {
        let p = search.advance(SLICE_STEPS);
        let tried = Tried::of(&p);
        let ms = now() - started;
        match (p.finished(), search.result()) {
            (true, Some(cex)) => {
                return post(Reply::Found { trace: cex.trace.clone(), step: cex.step, tried, ms }.to_json(id))
            }
            (true, None) => return post(Reply::None { tried, ms }.to_json(id)),
            (false, _) if now() - posted >= PROGRESS_EVERY_MS => {
                posted = now();
                post(Reply::Progress(tried).to_json(id));
            }
            (false, _) => {}
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use election_lab::{presets, Engine};

    fn replies(job: &Job) -> Vec<(u32, Reply)> {
        let mut out = vec![];
        run(&job.to_json(), || 0.0, |t| out.push(Reply::from_json(&t).unwrap()));
        out
    }

    #[test]
    fn bully_split_brain_is_found_and_its_trace_opens_at_the_violation() {
        let s = presets::find("split-brain-bully").unwrap().scenario();
        let out = replies(&Job::new(7, &s, "split-brain"));
        assert!(matches!(out[0], (7, Reply::Progress(_))), "progress first: {:?}", out[0]);
        let (id, Reply::Found { trace, step, tried, .. }) = out.last().unwrap().clone() else {
            panic!("not found: {:?}", out.last())
        };
        assert_eq!(id, 7);
        assert!(tried.schedules >= 1);
        let engine = Engine::from_trace_value(&trace).unwrap();
        assert_eq!(engine.cursor(), step, "the trace opens at the violating step");
        assert!(engine.violations().iter().any(|v| v.kind == "split-brain" && v.step == step));
    }

    #[test]
    fn a_property_that_holds_reports_what_was_tried_within_the_budget() {
        let s = presets::find("split-brain-raft").unwrap().scenario();
        let job = Job { budget_steps: 20_000, ..Job::new(1, &s, "two-leaders-in-term") };
        let out = replies(&job);
        let (_, Reply::None { tried, .. }) = out.last().unwrap() else { panic!("{:?}", out.last()) };
        assert!(tried.schedules > 1 && tried.states > 0 && tried.steps >= 20_000, "{tried:?}");
        // A clock that never moves posts progress only once, at the start.
        assert_eq!(out.iter().filter(|r| matches!(r.1, Reply::Progress(_))).count(), 1);
    }

    #[test]
    fn bad_jobs_are_refused_with_a_reason() {
        let s = presets::find("split-brain-bully").unwrap().scenario();
        let out = replies(&Job::new(3, &s, "no-such-property"));
        assert!(matches!(&out[..], [(3, Reply::Error(m))] if m.contains("no-such-property")), "{out:?}");
        let mut got = vec![];
        run("{not json", || 0.0, |t| got.push(Reply::from_json(&t).unwrap()));
        assert!(matches!(&got[..], [(0, Reply::Error(m))] if m.starts_with("job:")), "{got:?}");
    }

    #[test]
    fn replies_read_back() {
        let tried = Tried {
            schedules: 3,
            states: 9,
            steps: 100,
            budget_steps: 1000,
            shrinking: true,
            shrink_runs: 2,
            capped_mib: 64,
        };
        for r in [
            Reply::Progress(tried),
            Reply::None { tried, ms: 12.5 },
            Reply::Found { trace: json!({"a": 1}), step: 4, tried, ms: 1.0 },
            Reply::Error("x".into()),
        ] {
            assert_eq!(Reply::from_json(&r.to_json(5)).unwrap(), (5, r));
        }
        assert!(Reply::from_json("{\"id\":1,\"kind\":\"what\"}").is_err());
        assert_eq!(Reply::from_json(&error_json("no")).unwrap(), (0, Reply::Error("no".into())));
    }
}
