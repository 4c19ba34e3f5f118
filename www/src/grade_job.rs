//! Grading an assignment as the page does it: one job posted to the Web Worker, replies posted
//! back, both ends here (as `check_job.rs` for the checker). The page encodes a [`Job`] (the
//! assignment's JSON, its reference script, the student's script as typed) and reads [`Reply`]s;
//! only the worker, built with the `grade` feature (the checker and the interpreter), runs one
//! ([`run`]): the reference script's counts, then each check in turn — progress before each —
//! with the engine's own grader (`election_lab::grade`, what `election-lab grade` runs), so the
//! report is the CLI's `election-lab-grade/1`, the same JSON for the same script.

use crate::search_job::{error_reply, kind_of, message_of, reply_of, unknown_kind};
use serde_json::{json, Value};

/// What the page asks the worker for.
#[derive(Clone, Debug, PartialEq)]
pub struct Job {
    /// Numbers the page's gradings: replies of an earlier one are ignored.
    pub id: u32,
    /// The assignment file's text (`election-lab-assignment/1`).
    pub assignment: String,
    /// The reference script's source, when the assignment names one.
    pub reference: Option<String>,
    /// The student's script, and the name the report gives it.
    pub source: String,
    pub student: String,
    /// `en` or `zh`: the language of the report's titles and reasons.
    pub lang: String,
    /// The page's address the failures' links point at.
    pub base: String,
}

impl Job {
    pub fn to_json(&self) -> String {
        json!({
            "id": self.id,
            "kind": "grade",
            "assignment": self.assignment,
            "reference": self.reference,
            "source": self.source,
            "student": self.student,
            "lang": self.lang,
            "base": self.base,
        })
        .to_string()
    }

    pub fn from_json(text: &str) -> Result<Job, String> {
        let v: Value = serde_json::from_str(text).map_err(|e| format!("job: {e}"))?;
        let s = |k: &str| v.get(k).and_then(Value::as_str).map(str::to_string).ok_or(format!("job: no '{k}'"));
        let id = v.get("id").and_then(Value::as_u64).and_then(|i| u32::try_from(i).ok()).ok_or("job: no 'id'")?;
        Ok(Job {
            id,
            assignment: s("assignment")?,
            reference: v.get("reference").and_then(Value::as_str).map(str::to_string),
            source: s("source")?,
            student: s("student")?,
            lang: s("lang")?,
            base: s("base")?,
        })
    }
}

/// Whether the JSON value is a grading job (the worker's dispatch).
pub fn is_grade(job: &Value) -> bool {
    kind_of(job) == Some("grade")
}

/// What the worker tells the page.
#[derive(Clone, Debug, PartialEq)]
pub enum Reply {
    /// Check `done` (0-based) of `total` starts.
    Progress { done: u64, total: u64 },
    /// The report (`election-lab-grade/1`).
    Report(Value),
    /// The job could not be graded (a damaged assignment, a reference script that fails).
    Error(String),
}

impl Reply {
    /// `{"id": …, "kind": "progress" | "report" | "error", …}`.
    pub fn to_json(&self, id: u32) -> String {
        match self {
            Reply::Progress { done, total } => json!({"id": id, "kind": "progress", "done": done, "total": total}),
            Reply::Report(r) => json!({"id": id, "kind": "report", "report": r}),
            Reply::Error(m) => error_reply(id, m),
        }
        .to_string()
    }

    /// The job's id and the reply; text that is not a reply is an error naming why.
    pub fn from_json(text: &str) -> Result<(u32, Reply), String> {
        let (id, v) = reply_of(text)?;
        let num = |k: &str| v.get(k).and_then(Value::as_u64).unwrap_or(0);
        let reply = match kind_of(&v) {
            Some("progress") => Reply::Progress { done: num("done"), total: num("total") },
            Some("report") => Reply::Report(v.get("report").cloned().ok_or("reply: no 'report'")?),
            Some("error") => Reply::Error(message_of(&v)),
            other => return Err(unknown_kind(other)),
        };
        Ok((id, reply))
    }
}

/// Grades the job in `text`, posting progress before each check and then the report (or why
/// there is none). The worker calls it once per job; Cancel terminates the worker.
#[cfg(feature = "grade")]
pub fn run(text: &str, mut post: impl FnMut(String)) {
    use election_lab::grade::{self, Assignment};
    use election_lab::meta::Lang;
    let job = match Job::from_json(text) {
        Ok(job) => job,
        Err(e) => return post(Reply::Error(e).to_json(0)),
    };
    let id = job.id;
    let assignment = match Assignment::from_json(&job.assignment) {
        Ok(a) => a,
        Err(e) => return post(Reply::Error(e.to_string()).to_json(id)),
    };
    // The reference first (its counts), as `election-lab grade` does, then the student's script.
    let refs = match &job.reference {
        Some(src) => match election_lab::protocols::script::load(src) {
            Ok(alg) => match grade::reference_counts(&assignment, alg.id) {
                Ok(r) => r,
                Err(e) => return post(Reply::Error(e).to_json(id)),
            },
            Err(e) => return post(Reply::Error(format!("the reference script: {e}")).to_json(id)),
        },
        None => Default::default(),
    };
    let lang = Lang::parse(&job.lang).unwrap_or_default();
    let total = assignment.checks.len() as u64;
    let report = grade::grade(&assignment, &job.student, &job.source, &refs, lang, &job.base, &mut |i| {
        post(Reply::Progress { done: i as u64, total }.to_json(id))
    });
    post(Reply::Report(report).to_json(id));
}

#[cfg(all(test, feature = "grade"))]
mod tests {
    use super::*;

    const ASSIGNMENT: &str = include_str!("../../crate/assignments/bully.json");
    const SKELETON: &str = include_str!("../../crate/assignments/bully_skeleton.rhai");
    const REFERENCE: &str = include_str!("../../crate/scripts/bully.rhai");

    fn job(source: &str) -> Job {
        Job {
            id: 4,
            assignment: ASSIGNMENT.into(),
            reference: Some(REFERENCE.into()),
            source: source.into(),
            student: "mine.rhai".into(),
            lang: "en".into(),
            base: "https://lab.example/".into(),
        }
    }

    fn replies(job: &Job) -> Vec<(u32, Reply)> {
        let mut out = vec![];
        run(&job.to_json(), |t| out.push(Reply::from_json(&t).unwrap()));
        out
    }

    /// The worker's report is the grader's own (what `election-lab grade` writes) for the same
    /// script, with progress before every check.
    #[test]
    fn the_reference_scores_full_marks_and_the_skeleton_fails_as_the_cli_grades_it() {
        use election_lab::grade::{self, Assignment};
        let a = Assignment::from_json(ASSIGNMENT).unwrap();
        let reference = election_lab::protocols::script::load(REFERENCE).unwrap();
        let refs = grade::reference_counts(&a, reference.id).unwrap();
        for (source, full) in [(REFERENCE.replace("bully-script", "mine"), true), (SKELETON.to_string(), false)] {
            let out = replies(&job(&source));
            let progress = out.iter().filter(|r| matches!(r.1, Reply::Progress { .. })).count();
            assert_eq!(progress, a.checks.len());
            assert!(matches!(out[0], (4, Reply::Progress { done: 0, total: 5 })), "{:?}", out[0]);
            let (4, Reply::Report(report)) = out.last().unwrap().clone() else { panic!("{:?}", out.last()) };
            let cli = grade::grade(
                &a,
                "mine.rhai",
                &source,
                &refs,
                election_lab::meta::Lang::En,
                "https://lab.example/",
                &mut |_| {},
            );
            assert_eq!(report, cli);
            assert_eq!(report["format"], "election-lab-grade/1");
            assert_eq!(report["score"] == report["max"], full, "{report}");
        }
    }

    #[test]
    fn a_damaged_assignment_and_a_damaged_job_are_refused_with_a_reason() {
        let out = replies(&Job { assignment: "{\"id\": 3}".into(), ..job("") });
        assert!(matches!(&out[..], [(4, Reply::Error(m))] if m.contains("id")), "{out:?}");
        let mut got = vec![];
        run("{not json", |t| got.push(Reply::from_json(&t).unwrap()));
        assert!(matches!(&got[..], [(0, Reply::Error(m))] if m.starts_with("job:")), "{got:?}");
    }

    #[test]
    fn jobs_and_replies_read_back() {
        let j = job("fn init() {}");
        assert_eq!(Job::from_json(&j.to_json()).unwrap(), j);
        for r in [Reply::Progress { done: 1, total: 5 }, Reply::Report(json!({"score": 3})), Reply::Error("x".into())] {
            assert_eq!(Reply::from_json(&r.to_json(9)).unwrap(), (9, r));
        }
    }
}
