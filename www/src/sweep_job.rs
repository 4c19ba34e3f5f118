//! An experiment's sweep as the page runs it: one job posted to the Web Worker that also runs the
//! counterexample search (`src/lab_worker.rs`), replies posted back. Both ends live here so that
//! they agree and can be tested natively. The page posts the spec (its trial count applied); the
//! worker builds the same [`Sweep`] from it, runs it run by run, posts its progress about ten
//! times a second and, at the end, every run's [`Row`]. The page builds the sweep from the same
//! spec and [`Sweep::adopt`]s the rows: its plot, table and CSVs are then those of a sweep run on
//! the page (or by `election-lab sweep`), byte for byte, since each run is deterministic.

use crate::search_job::{error_reply, kind_of, message_of, reply_of, unknown_kind, PROGRESS_EVERY_MS};
use election_lab::experiment::{Row, Sweep};
use serde_json::{json, Value};

/// What a sweep's job says it is (a search's job has no `kind`).
pub const KIND: &str = "sweep";

/// The job's text: the spec as JSON, numbered so that replies to an earlier job are ignored.
pub fn job_json(id: u32, spec: &Value) -> String {
    json!({"id": id, "kind": KIND, "spec": spec}).to_string()
}

/// Whether a job's text is a sweep's (else it is a search's).
pub fn is_sweep(job: &Value) -> bool {
    kind_of(job) == Some(KIND)
}

/// What the worker tells the page.
#[derive(Clone, Debug, PartialEq)]
pub enum Reply {
    /// Runs done out of the total.
    Progress { done: u64, total: u64 },
    /// Every run's row, in order, and the worker's time for the whole sweep (milliseconds).
    Done { rows: Vec<Row>, ms: f64 },
    /// The job was refused (a spec the engine rejects): why.
    Error(String),
}

/// A row as a JSON array: its 18 numbers in [`Row`]'s order (`null` for none, 0 or 1 for
/// `quiescent`), then its faults and its order (a text or `null`).
fn row_value(r: &Row) -> Value {
    json!([
        r.line,
        r.nodes,
        r.seed,
        r.messages,
        r.counted,
        r.theory,
        r.end_time,
        r.steps,
        u8::from(r.quiescent),
        r.agreement,
        r.leaders,
        r.max_leaders,
        r.violations,
        r.elections,
        r.downtime,
        r.minority_leaders,
        r.trace_hash,
        r.run,
        r.faults,
        r.order,
    ])
}

/// A row read back from [`row_value`]'s array; `None` if a number or the faults are missing.
/// (The numbers were a row's, so they fit their fields.)
fn row_of(v: &Value) -> Option<Row> {
    let a = v.as_array().filter(|a| a.len() == 20)?;
    let mut n = [None; 18];
    for (x, v) in n.iter_mut().zip(a) {
        *x = v.as_u64();
    }
    // Every number but the optional ones (theory, agreement, downtime, minority leaders).
    if n.iter().enumerate().any(|(i, x)| x.is_none() && ![5, 9, 14, 15].contains(&i)) {
        return None;
    }
    let at = |i: usize| n[i].unwrap_or(0);
    Some(Row {
        line: at(0) as usize,
        nodes: at(1) as u32,
        seed: at(2),
        messages: at(3),
        counted: at(4),
        theory: n[5],
        end_time: at(6),
        steps: at(7),
        quiescent: at(8) == 1,
        agreement: n[9].map(|x| x as u32),
        leaders: at(10) as u32,
        max_leaders: at(11) as u32,
        violations: at(12) as u32,
        elections: at(13) as u32,
        downtime: n[14],
        minority_leaders: n[15].map(|x| x as u32),
        trace_hash: at(16),
        run: at(17),
        faults: a[18].as_str()?.into(),
        order: a[19].as_str().map(Into::into),
    })
}

impl Reply {
    /// `{"id": …, "kind": "progress" | "done" | "error", …}`.
    pub fn to_json(&self, id: u32) -> String {
        match self {
            Reply::Progress { done, total } => json!({"id": id, "kind": "progress", "done": done, "total": total}),
            Reply::Done { rows, ms } => {
                json!({"id": id, "kind": "done", "rows": rows.iter().map(row_value).collect::<Vec<_>>(), "ms": ms})
            }
            Reply::Error(message) => error_reply(id, message),
        }
        .to_string()
    }

    /// The job's id and the reply; text that is not a reply is an error naming why.
    pub fn from_json(text: &str) -> Result<(u32, Reply), String> {
        let (id, v) = reply_of(text)?;
        let num = |k: &str| v.get(k).and_then(Value::as_u64).unwrap_or(0);
        let reply = match kind_of(&v) {
            Some("progress") => Reply::Progress { done: num("done"), total: num("total") },
            Some("done") => {
                let rows = v.get("rows").and_then(Value::as_array).ok_or("reply: no 'rows'")?;
                let mut read = Vec::new();
                for r in rows {
                    read.push(row_of(r).ok_or("reply: a row is not a run's")?);
                }
                Reply::Done { rows: read, ms: v.get("ms").and_then(Value::as_f64).unwrap_or(0.0) }
            }
            Some("error") => Reply::Error(message_of(&v)),
            other => return Err(unknown_kind(other)),
        };
        Ok((id, reply))
    }
}

/// Runs the sweep job `job` (read as JSON) to its end, posting replies (JSON text) through
/// `post`; `now` is a clock in milliseconds. The worker calls it once per job; Cancel terminates
/// the worker.
pub fn run(job: &Value, now: impl Fn() -> f64, mut post: impl FnMut(String)) {
    let id = job.get("id").and_then(Value::as_u64).and_then(|i| u32::try_from(i).ok()).unwrap_or(0);
    let spec = job.get("spec").unwrap_or(&Value::Null);
    let mut sweep = match Sweep::from_value(spec) {
        Ok(s) => s,
        Err(e) => return post(Reply::Error(e.to_string()).to_json(id)),
    };
    let started = now();
    let p = sweep.progress();
    post(Reply::Progress { done: p.done, total: p.total }.to_json(id));
    let mut posted = started;
    loop {
        let p = sweep.advance(1);
        if p.finished() {
            return post(Reply::Done { rows: sweep.rows().to_vec(), ms: now() - started }.to_json(id));
        }
        if now() - posted >= PROGRESS_EVERY_MS {
            posted = now();
            post(Reply::Progress { done: p.done, total: p.total }.to_json(id));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use election_lab::experiment::READY;
    use std::cell::Cell;

    fn spec(id: &str, trials: u64) -> Value {
        let mut v: Value = serde_json::from_str(READY.iter().find(|r| r.0 == id).unwrap().1).unwrap();
        v["seeds"]["count"] = trials.into();
        v
    }

    fn replies(job: &str, clock: impl Fn() -> f64) -> Vec<(u32, Reply)> {
        let mut out = vec![];
        run(&serde_json::from_str(job).unwrap(), clock, |t| out.push(Reply::from_json(&t).unwrap()));
        out
    }

    #[test]
    fn the_rows_posted_back_make_the_sweep_the_page_would_have_run() {
        for (id, trials) in [("split-brain-random-partitions", 3), ("raft-figure-16-randomness", 2)] {
            let v = spec(id, trials);
            let job = job_json(4, &v);
            assert!(is_sweep(&serde_json::from_str(&job).unwrap()));
            let out = replies(&job, || 0.0);
            let total = Sweep::from_value(&v).unwrap().progress().total;
            assert_eq!(out[0], (4, Reply::Progress { done: 0, total }), "{id}: progress first");
            // A clock that never moves posts no progress between the first and the rows.
            assert_eq!(out.len(), 2, "{id}");
            let (4, Reply::Done { rows, .. }) = out[1].clone() else { panic!("{id}: {:?}", out[1]) };
            let mut here = Sweep::from_value(&v).unwrap();
            while !here.advance(5).finished() {}
            let mut adopted = Sweep::from_value(&v).unwrap();
            assert!(adopted.adopt(rows).unwrap().finished());
            assert_eq!(adopted.csv(), here.csv(), "{id}: every run");
            assert_eq!(adopted.summary_csv(), here.summary_csv(), "{id}: the summary");
            assert_eq!(adopted.svg(election_lab::meta::Lang::En), here.svg(election_lab::meta::Lang::En), "{id}");
        }
    }

    #[test]
    fn progress_is_posted_as_the_clock_moves() {
        let t = Cell::new(0.0);
        let clock = || {
            t.set(t.get() + 60.0);
            t.get()
        };
        let out = replies(&job_json(2, &spec("one-partition", 4)), clock);
        let progress: Vec<u64> = out
            .iter()
            .filter_map(|r| match r.1 {
                Reply::Progress { done, .. } => Some(done),
                _ => None,
            })
            .collect();
        assert!(progress.len() > 2, "{progress:?}");
        assert!(progress.windows(2).all(|w| w[0] < w[1]), "advancing: {progress:?}");
        assert!(matches!(out.last(), Some((2, Reply::Done { .. }))));
    }

    #[test]
    fn a_bad_spec_is_refused_with_a_reason_and_bad_replies_are_named() {
        let mut v = spec("one-partition", 2);
        v["measure"] = "speed".into();
        let out = replies(&job_json(9, &v), || 0.0);
        assert!(matches!(&out[..], [(9, Reply::Error(m))] if m.contains("speed")), "{out:?}");
        assert!(Reply::from_json(r#"{"id":1,"kind":"done","rows":[[1,2]]}"#).unwrap_err().contains("a row"));
        // A run's row without its node count is refused; without a theory it is read.
        let mut row = vec![Value::from(0); 18];
        row.extend([Value::from(""), Value::Null]);
        row[5] = Value::Null;
        let text = |row: &Vec<Value>| serde_json::json!({"id": 1, "kind": "done", "rows": [row]}).to_string();
        assert!(matches!(Reply::from_json(&text(&row)), Ok((1, Reply::Done { rows, .. })) if rows[0].theory.is_none()));
        row[1] = Value::Null;
        assert!(Reply::from_json(&text(&row)).unwrap_err().contains("a row"));
        assert!(Reply::from_json(r#"{"id":1,"kind":"what"}"#).is_err());
        assert!(!is_sweep(&serde_json::json!({"id": 1, "property": "split-brain"})));
    }
}
