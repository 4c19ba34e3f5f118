//! "Check every schedule" as the page runs it: one job posted to the Web Worker, replies posted
//! back, both ends here (as `search_job.rs` for the search). The page encodes a [`Job`] and reads
//! [`Reply`]s; only the worker, built with the `check` feature, runs one ([`run`]): the engine's
//! exhaustive checker, advanced in slices, posting how many states it has explored about ten times
//! a second, then the verdict — the shortest counterexample's trace (opened by the page at its
//! violating step) or what was proved within the bounds. The checker's code and the state hashing
//! it needs are therefore in the worker's wasm only, never in the page's first load.

use crate::search_job::{error_reply, kind_of, message_of, reply_of, unknown_kind};
use serde_json::{json, Value};

/// Unique states the page's check keeps at most (about 64 bytes each in the worker's memory).
pub const MAX_STATES: u64 = 1_000_000;

/// What the page asks the worker for.
#[derive(Clone, Debug, PartialEq)]
pub struct Job {
    /// Numbers the page's checks: replies of an earlier one are ignored.
    pub id: u32,
    pub scenario: Value,
    pub property: String,
    pub crashes: u32,
    pub partitions: u32,
    /// Moves from the initial state, at most.
    pub depth: u32,
    /// The timed model up to this tick (none: asynchronous time).
    pub horizon: Option<u64>,
    pub max_states: u64,
}

impl Job {
    pub fn to_json(&self) -> String {
        json!({
            "id": self.id,
            "kind": "check",
            "scenario": self.scenario,
            "property": self.property,
            "crashes": self.crashes,
            "partitions": self.partitions,
            "depth": self.depth,
            "horizon": self.horizon,
            "max_states": self.max_states,
        })
        .to_string()
    }

    pub fn from_json(text: &str) -> Result<Job, String> {
        let v: Value = serde_json::from_str(text).map_err(|e| format!("job: {e}"))?;
        let num = |k: &str| v.get(k).and_then(Value::as_u64).ok_or_else(|| format!("job: '{k}' is not a number"));
        let small = |k: &str| num(k).and_then(|x| u32::try_from(x).map_err(|_| format!("job: '{k}' is too large")));
        Ok(Job {
            id: small("id")?,
            scenario: v.get("scenario").cloned().ok_or("job: no 'scenario'")?,
            property: v.get("property").and_then(Value::as_str).ok_or("job: no 'property'")?.to_string(),
            crashes: small("crashes")?,
            partitions: small("partitions")?,
            depth: small("depth")?,
            horizon: v.get("horizon").and_then(Value::as_u64),
            max_states: num("max_states")?,
        })
    }
}

/// Whether the JSON value is a check job (the worker's dispatch).
pub fn is_check(job: &Value) -> bool {
    kind_of(job) == Some("check")
}

/// What the worker tells the page.
#[derive(Clone, Debug, PartialEq)]
pub enum Reply {
    /// Unique states so far, and the deepest one's moves.
    Progress { states: u64, depth: u32 },
    /// No violation in any of `states` states; `complete`: the whole reachable space (nothing cut
    /// by the depth bound).
    Holds { states: u64, complete: bool },
    /// A shortest counterexample of `moves` moves, its trace opening at `step`.
    Violated { trace: Value, step: u64, moves: u64, states: u64 },
    /// The state limit stopped it: nothing is proved beyond `states`.
    Limit { states: u64 },
    /// The job was refused or could not be checked (a reason, in the engine's words).
    Error(String),
    /// Posted just before the verdict: how often each narration rule (a catalog key) fired
    /// over every move explored, and the algorithm's rules that never did.
    Coverage { fired: Vec<(String, u64)>, never: Vec<String> },
}

impl Reply {
    pub fn to_json(&self, id: u32) -> String {
        match self {
            Reply::Progress { states, depth } => {
                json!({"id": id, "kind": "progress", "states": states, "depth": depth})
            }
            Reply::Holds { states, complete } => {
                json!({"id": id, "kind": "holds", "states": states, "complete": complete})
            }
            Reply::Violated { trace, step, moves, states } => {
                json!({"id": id, "kind": "violated", "trace": trace, "step": step, "moves": moves, "states": states})
            }
            Reply::Limit { states } => json!({"id": id, "kind": "limit", "states": states}),
            Reply::Error(message) => error_reply(id, message),
            Reply::Coverage { fired, never } => json!({"id": id, "kind": "coverage", "fired": fired, "never": never}),
        }
        .to_string()
    }

    /// The job's id and the reply; text that is not a reply is an error naming why.
    pub fn from_json(text: &str) -> Result<(u32, Reply), String> {
        let (id, v) = reply_of(text)?;
        let num = |k: &str| v.get(k).and_then(Value::as_u64).unwrap_or(0);
        let reply = match kind_of(&v) {
            Some("progress") => Reply::Progress { states: num("states"), depth: num("depth") as u32 },
            Some("holds") => Reply::Holds {
                states: num("states"),
                complete: v.get("complete").and_then(Value::as_bool).unwrap_or(false),
            },
            Some("violated") => Reply::Violated {
                trace: v.get("trace").cloned().ok_or("reply: no 'trace'")?,
                step: num("step"),
                moves: num("moves"),
                states: num("states"),
            },
            Some("limit") => Reply::Limit { states: num("states") },
            Some("error") => Reply::Error(message_of(&v)),
            Some("coverage") => {
                let list = |k: &str| v.get(k).and_then(Value::as_array).cloned().unwrap_or_default();
                let fired = list("fired")
                    .iter()
                    .filter_map(|p| Some((p.get(0)?.as_str()?.to_string(), p.get(1)?.as_u64()?)))
                    .collect();
                let never = list("never").iter().filter_map(|k| k.as_str().map(str::to_string)).collect();
                Reply::Coverage { fired, never }
            }
            other => return Err(unknown_kind(other)),
        };
        Ok((id, reply))
    }
}

/// States expanded per slice: a few milliseconds, so that progress is posted smoothly.
#[cfg(feature = "check")]
pub const SLICE_STATES: u64 = 2_000;

/// Runs the job in `text` to its end, posting replies (JSON text) through `post`; `now` is a
/// clock in milliseconds. The worker calls it once per job; Cancel terminates the worker.
#[cfg(feature = "check")]
pub fn run(text: &str, now: impl Fn() -> f64, mut post: impl FnMut(String)) {
    use election_lab::check::{Bounds, Checker, Verdict};
    let job = match Job::from_json(text) {
        Ok(job) => job,
        Err(e) => return post(Reply::Error(e).to_json(0)),
    };
    let id = job.id;
    let scenario = match election_lab::Scenario::from_value(&job.scenario) {
        Ok(s) => s,
        Err(e) => return post(Reply::Error(e.to_string()).to_json(id)),
    };
    let bounds = Bounds {
        crashes: job.crashes,
        partitions: job.partitions,
        depth: Some(job.depth),
        max_states: job.max_states.min(MAX_STATES) as usize,
        horizon: job.horizon,
        ..Bounds::default()
    };
    let mut checker = match Checker::new(&scenario, &job.property, bounds) {
        Ok(c) => c,
        Err(e) => return post(Reply::Error(e.to_string()).to_json(id)),
    };
    let mut posted = now();
    while !checker.advance(SLICE_STATES) {
        if now() - posted >= crate::search_job::PROGRESS_EVERY_MS {
            posted = now();
            let e = checker.explored();
            post(Reply::Progress { states: e.states, depth: e.depth }.to_json(id));
        }
    }
    let r = checker.finish();
    let fired = r.coverage.iter().map(|&(k, c)| (k.to_string(), c)).collect();
    let never = r.never.iter().map(|k| k.to_string()).collect();
    post(Reply::Coverage { fired, never }.to_json(id));
    let reply = match r.verdict {
        Verdict::Holds { complete } => Reply::Holds { states: r.states, complete },
        Verdict::Violated(c) if c.replayed => {
            Reply::Violated { trace: c.trace, step: c.step, moves: c.moves.len() as u64, states: r.states }
        }
        Verdict::Violated(_) => Reply::Error(r.sentence()),
        Verdict::Limit => Reply::Limit { states: r.states },
        Verdict::ReadsClock => Reply::Error(r.sentence()),
    };
    post(reply.to_json(id));
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn jobs_and_replies_read_back() {
        let job = Job {
            id: 4,
            scenario: json!({"algorithm": "raft"}),
            property: "two-leaders-in-term".into(),
            crashes: 1,
            partitions: 0,
            depth: 6,
            horizon: Some(12),
            max_states: 1000,
        };
        assert_eq!(Job::from_json(&job.to_json()).unwrap(), job);
        assert!(is_check(&serde_json::from_str(&job.to_json()).unwrap()));
        for r in [
            Reply::Progress { states: 9, depth: 2 },
            Reply::Holds { states: 10, complete: true },
            Reply::Violated { trace: json!({"a": 1}), step: 3, moves: 2, states: 7 },
            Reply::Limit { states: 5 },
            Reply::Error("x".into()),
            Reply::Coverage { fired: vec![("raft.note.vote".into(), 3)], never: vec!["raft.note.ack".into()] },
        ] {
            assert_eq!(Reply::from_json(&r.to_json(5)).unwrap(), (5, r));
        }
        assert!(Reply::from_json("{\"id\":1,\"kind\":\"what\"}").is_err());
    }

    #[cfg(feature = "check")]
    fn replies(job: &Job) -> Vec<(u32, Reply)> {
        let mut out = vec![];
        run(&job.to_json(), || 0.0, |t| out.push(Reply::from_json(&t).unwrap()));
        out
    }

    #[cfg(feature = "check")]
    #[test]
    fn raft_holds_and_bully_breaks_with_a_trace_opening_at_the_violation() {
        use election_lab::{presets, Engine, Scenario};
        let raft =
            Scenario::from_json(r#"{"algorithm":"raft","nodes":[1,2,3],"heartbeats":{"interval":3,"timeout":12}}"#)
                .unwrap();
        let job = |s: &Scenario, p: &str| Job {
            id: 2,
            scenario: s.to_value(),
            property: p.into(),
            crashes: 0,
            partitions: 0,
            depth: 5,
            horizon: None,
            max_states: MAX_STATES,
        };
        let out = replies(&job(&raft, "two-leaders-in-term"));
        assert!(matches!(out.last(), Some((2, Reply::Holds { complete: false, states })) if *states > 10), "{out:?}");
        // The rule coverage comes just before the verdict, as the CLI reports it.
        let Some((2, Reply::Coverage { fired, never })) = out.get(out.len() - 2).cloned() else { panic!("{out:?}") };
        assert!(fired.iter().any(|(k, n)| k.starts_with("raft.note.") && *n > 0), "{fired:?}");
        assert!(!never.is_empty() && never.iter().all(|k| !fired.iter().any(|(f, _)| f == k)), "{never:?}");
        let bully = presets::find("split-brain-bully").unwrap().scenario();
        let out = replies(&job(&bully, "split-brain"));
        let Some((2, Reply::Violated { trace, step, .. })) = out.last().cloned() else { panic!("{out:?}") };
        let e = Engine::from_trace_value(&trace).unwrap();
        assert_eq!(e.cursor(), step, "the trace opens at the violating step");
        assert!(e.violations().iter().any(|v| v.kind == "split-brain" && v.step == step));
        let out = replies(&job(&bully, "no-such-property"));
        assert!(matches!(&out[..], [(2, Reply::Error(m))] if m.contains("no-such-property")), "{out:?}");
    }
}
