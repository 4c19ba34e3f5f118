//! Assignments graded in the page, the reducer's side (workbench only): an assignment opened from
//! a link (`?assignment=<id>`, the shipped ones) or from a file (Open or drop: the assignment's
//! JSON, with its skeleton and reference scripts beside it) puts its skeleton in the script
//! editor beside its instructions (the checks and their points); Grade posts the assignment and
//! the script as typed to the Web Worker (`grade_job.rs`), which grades it check by check with the
//! engine's grader, the CLI's; the report (`election-lab-grade/1`) comes back as a checklist, and
//! a failed check opens its run at the failing step. The component is
//! `components/assignment.rs`.

use super::script::ScriptEdit;
use super::State;
use crate::grade_job::{Job, Reply};
use crate::i18n::Lang;
use election_lab::meta::k;
use serde_json::Value;
use std::rc::Rc;

/// The assignments the page ships: (the assignment file, its skeleton, its reference script).
/// Compiled into the workbench only. Each is known by the `id` its file gives.
#[cfg(any(feature = "workbench", test))]
pub const SHIPPED: &[(&str, &str, &str)] = &[(
    include_str!("../../../crate/assignments/bully.json"),
    include_str!("../../../crate/assignments/bully_skeleton.rhai"),
    include_str!("../../../crate/scripts/bully.rhai"),
)];
#[cfg(not(any(feature = "workbench", test)))]
pub const SHIPPED: &[(&str, &str, &str)] = &[];

/// The `id` an assignment file gives, if it reads as JSON.
fn id_of(text: &str) -> Option<String> {
    let v: Value = serde_json::from_str(text).ok()?;
    Some(v.get("id")?.as_str()?.to_string())
}

/// The shipped assignment whose id is `id`.
fn shipped(id: &str) -> Option<(&'static str, &'static str, &'static str)> {
    SHIPPED.iter().copied().find(|s| id_of(s.0).as_deref() == Some(id))
}

/// What the assignment panel asks of the reducer.
#[derive(Clone, Debug, PartialEq)]
pub enum AssignmentAction {
    /// Open a shipped assignment by its id.
    Open(String),
    /// Grade the editor's script; the page's address the report's links point at.
    Grade(String),
    /// A reply of the worker (JSON text).
    Reply(String),
    Cancel,
    /// Open the run of the report's check number `.0` at its failing step.
    OpenFailure(usize),
    Close,
}

/// A check as the instructions list it: its title in English and 中文, and its points.
#[derive(Clone, Debug, PartialEq)]
pub struct Item {
    pub id: String,
    pub title: (String, String),
    pub points: u64,
}

/// Where the grading stands.
#[derive(Clone, Debug, PartialEq)]
pub enum GradeStatus {
    /// Not graded yet.
    Ready,
    /// Check `done` (0-based) of `total` is being graded.
    Running {
        done: u64,
        total: u64,
    },
    Cancelled,
    /// The report (`election-lab-grade/1`).
    Done(Rc<Value>),
    /// Why it could not be graded.
    Failed(String),
}

/// The assignment being taken.
#[derive(Clone, Debug, PartialEq)]
pub struct Taking {
    pub id: String,
    pub title: (String, String),
    pub checks: Rc<Vec<Item>>,
    /// The assignment file's text and the reference script, as the worker needs them.
    pub text: Rc<String>,
    pub reference: Option<Rc<String>>,
    /// Numbers the gradings (replies of an earlier one are ignored), and the job as posted.
    pub job_id: u32,
    pub job: Rc<String>,
    pub status: GradeStatus,
    /// The script last graded: the failures' runs are runs of its algorithm.
    pub graded: Rc<String>,
}

impl Taking {
    pub fn running(&self) -> bool {
        matches!(self.status, GradeStatus::Running { .. })
    }

    /// `(id, running, cancelled)`: what the worker effect must do (see `Finding::key`).
    pub fn key(&self) -> (u32, bool, bool) {
        (self.job_id, self.running(), self.status == GradeStatus::Cancelled)
    }

    /// The title in `lang`.
    pub fn title(&self, lang: Lang) -> &str {
        pick(&self.title, lang)
    }
}

/// `(en, zh)` as `lang` reads it.
pub fn pick(t: &(String, String), lang: Lang) -> &str {
    if lang == Lang::Zh {
        &t.1
    } else {
        &t.0
    }
}

/// A text given once for all languages or as `{"en": …, "zh": …}`.
fn texts(v: Option<&Value>, default: &str) -> (String, String) {
    match v {
        Some(Value::String(s)) => (s.clone(), s.clone()),
        Some(Value::Object(o)) => {
            let en = o.get("en").and_then(Value::as_str).unwrap_or(default).to_string();
            let zh = o.get("zh").and_then(Value::as_str).map_or_else(|| en.clone(), str::to_string);
            (en, zh)
        }
        _ => (default.to_string(), default.to_string()),
    }
}

/// An assignment's id, its title in English and 中文, and its checks.
pub type Instructions = (String, (String, String), Vec<Item>);

/// What the instructions show of an assignment file: its id, title and checks. The grader in
/// the worker reads the file in full and names any field at fault.
pub fn read(text: &str) -> Result<Instructions, String> {
    let v: Value = serde_json::from_str(text).map_err(|e| e.to_string())?;
    if v.get("format").and_then(Value::as_str) != Some("election-lab-assignment/1") {
        return Err("format: expected \"election-lab-assignment/1\"".into());
    }
    let id = v.get("id").and_then(Value::as_str).ok_or("id: missing (a string)")?.to_string();
    let list = v.get("checks").and_then(Value::as_array).filter(|l| !l.is_empty());
    let list = list.ok_or("checks: missing (a list of checks)")?;
    let mut checks = Vec::new();
    for (i, c) in list.iter().enumerate() {
        let cid = c.get("id").and_then(Value::as_str).ok_or(format!("checks[{i}].id: missing (a string)"))?;
        let points = c.get("points").map_or(Some(1), Value::as_u64);
        let points = points.ok_or(format!("checks[{i}].points: expected a whole number"))?;
        checks.push(Item { id: cid.to_string(), title: texts(c.get("title"), cid), points });
    }
    Ok((id.clone(), texts(v.get("title"), &id), checks))
}

/// Whether a file's text is an assignment (what Open and drop look for).
pub fn is_assignment(text: &str) -> bool {
    text.contains("\"election-lab-assignment/1\"")
}

/// The file named like `path`'s last part among `files`.
fn named<'a>(files: &'a [(String, String)], path: Option<&str>) -> Option<&'a String> {
    let want = path?.rsplit(['/', '\\']).next()?;
    files.iter().find(|(n, _)| n.rsplit(['/', '\\']).next() == Some(want)).map(|(_, t)| t)
}

impl State {
    pub(super) fn assignment_apply(&mut self, action: AssignmentAction) -> bool {
        match action {
            AssignmentAction::Open(id) => match shipped(&id) {
                Some((text, skeleton, reference)) => {
                    self.open_assignment(text.to_string(), Some(skeleton.into()), Some(reference.into()))
                }
                None => {
                    let known: Vec<String> = SHIPPED.iter().filter_map(|s| id_of(s.0)).collect();
                    self.messages.alert = Some(k::UI_ASSIGNMENT_UNKNOWN.format(self.lang, &[&id, &known.join(", ")]));
                    false
                }
            },
            AssignmentAction::Grade(base) => self.grade(base),
            AssignmentAction::Reply(text) => self.grade_reply(&text),
            AssignmentAction::Cancel => {
                if let Some(t) = self.assignment.as_mut().filter(|t| t.running()) {
                    Rc::make_mut(t).status = GradeStatus::Cancelled;
                }
                false
            }
            AssignmentAction::OpenFailure(i) => self.open_failure(i),
            AssignmentAction::Close => {
                self.assignment = None;
                false
            }
        }
    }

    /// An assignment file among files opened or dropped, with its scripts beside it (by the
    /// names it gives them; a shipped assignment's own scripts otherwise). `None`: no assignment.
    pub(super) fn assignment_from_files(&mut self, files: &[(String, String)]) -> Option<bool> {
        let (_, text) = files.iter().find(|(_, t)| is_assignment(t))?;
        let v: Value = serde_json::from_str(text).unwrap_or(Value::Null);
        let path = |f: &str| v.get(f).and_then(Value::as_str);
        let shipped = path("id").and_then(shipped);
        let skeleton = named(files, path("skeleton")).cloned().or(shipped.map(|s| s.1.to_string()));
        let reference = named(files, path("reference")).cloned().or(shipped.map(|s| s.2.to_string()));
        if let (Some(name), None) = (path("reference"), &reference) {
            self.messages.alert = Some(k::UI_ASSIGNMENT_MISSING_FILE.format(self.lang, &[&name]));
            return Some(true);
        }
        Some(self.open_assignment(text.clone(), skeleton, reference))
    }

    /// `?assignment=<id>` opens a shipped assignment.
    pub(super) fn assignment_from_link(&mut self, ps: &[(String, String)]) {
        if let Some((_, id)) = ps.iter().find(|(k, _)| k == "assignment") {
            self.assignment_apply(AssignmentAction::Open(id.clone()));
        }
    }

    fn open_assignment(&mut self, text: String, skeleton: Option<String>, reference: Option<String>) -> bool {
        let (id, title, checks) = match read(&text) {
            Ok(r) => r,
            Err(e) => {
                self.messages.alert = Some(k::UI_ASSIGNMENT_NOT_OPENED.format(self.lang, &[&e]));
                return true;
            }
        };
        self.assignment = Some(Rc::new(Taking {
            id,
            title,
            checks: Rc::new(checks),
            text: Rc::new(text),
            reference: reference.map(Rc::new),
            job_id: self.assignment.as_ref().map_or(0, |t| t.job_id),
            job: Rc::default(),
            status: GradeStatus::Ready,
            graded: Rc::default(),
        }));
        let template = super::script::templates().next().unwrap_or("");
        let source = skeleton.unwrap_or_else(|| self.script.as_ref().map_or_else(String::new, |s| (*s.source).clone()));
        self.script = Some(Rc::new(ScriptEdit { source: Rc::new(source), template, error: None }));
        self.dialogs.picker = false;
        self.messages.alert = None;
        true
    }

    /// Grades the editor's script in the worker. One grading at a time.
    fn grade(&mut self, base: String) -> bool {
        let source = self.script.as_ref().map(|s| s.source.clone()).unwrap_or_default();
        let lang = if self.lang == Lang::Zh { "zh" } else { "en" };
        let Some(t) = self.assignment.as_mut().filter(|t| !t.running()) else { return false };
        let t = Rc::make_mut(t);
        t.job_id = t.job_id.wrapping_add(1);
        let job = Job {
            id: t.job_id,
            assignment: (*t.text).clone(),
            reference: t.reference.as_deref().cloned(),
            source: (*source).clone(),
            student: format!("{}.rhai", t.id),
            lang: lang.into(),
            base,
        };
        t.job = Rc::new(job.to_json());
        t.graded = source;
        t.status = GradeStatus::Running { done: 0, total: t.checks.len() as u64 };
        false
    }

    fn grade_reply(&mut self, text: &str) -> bool {
        let Some(t) = self.assignment.as_mut().filter(|t| t.running()) else { return false };
        let status = match Reply::from_json(text) {
            Ok((id, _)) if id != t.job_id && id != 0 => return false,
            Ok((_, Reply::Progress { done, total })) => GradeStatus::Running { done, total },
            Ok((_, Reply::Report(r))) => GradeStatus::Done(Rc::new(r)),
            Ok((_, Reply::Error(e))) | Err(e) => GradeStatus::Failed(e),
        };
        Rc::make_mut(t).status = status;
        false
    }

    /// Opens the run a failed check's link carries, at its step: the graded script is loaded
    /// first, so that the run's algorithm is known.
    fn open_failure(&mut self, i: usize) -> bool {
        let Some(t) = self.assignment.clone() else { return false };
        let GradeStatus::Done(report) = &t.status else { return false };
        let Some(link) = report["checks"][i]["link"].as_str() else { return false };
        let query = link.find('?').map_or(link, |q| &link[q..]);
        if !t.graded.is_empty() {
            // Errors were the grader's to report; a script that does not load has no link.
            let _ = super::script::from_source(&t.graded);
        }
        match crate::link::read_later(query) {
            Ok(Some((l, Some(job)))) => {
                // A script's run: rebuilt in slices, then shown at its step (`slices.rs`).
                self.rebuild_later(l.engine, job, super::slices::Then::Link(None));
                self.messages.alert = None;
                true
            }
            Ok(Some((l, None))) => {
                let step = l.engine.cursor();
                let ok = self.load(Ok(l.engine), None, |e| e);
                if ok {
                    self.engine_mut().seek(step);
                    self.messages.alert = None;
                }
                ok
            }
            Ok(None) => false,
            Err(e) => {
                self.messages.alert = Some(e);
                true
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::state::Action;
    use election_lab::presets;
    use election_lab::Engine;

    fn state() -> State {
        let p = presets::find("bully-worst-8").unwrap();
        State::new(Engine::new(p.scenario()).unwrap(), Some(p.id), false)
    }

    #[test]
    fn a_link_opens_the_shipped_assignment_in_the_editor_with_its_checks() {
        let s = State::open("?assignment=bully");
        let t = s.assignment.as_ref().expect("opened");
        assert_eq!((t.id.as_str(), t.checks.len(), t.status.clone()), ("bully", 5, GradeStatus::Ready));
        assert_eq!(t.checks.iter().map(|c| c.points).sum::<u64>(), 10);
        assert_eq!(t.title(Lang::Zh), "霸道算法");
        assert_eq!(s.script.as_ref().unwrap().source.as_str(), SHIPPED[0].1);
        let s = State::open("?assignment=nope");
        assert!(
            s.assignment.is_none() && s.messages.alert.as_deref().is_some_and(|a| a.contains("nope")),
            "{:?}",
            s.messages.alert
        );
    }

    #[test]
    fn grade_posts_the_script_as_typed_and_the_replies_make_a_checklist() {
        let mut s = state();
        s.apply(Action::Assignment(AssignmentAction::Open("bully".into())));
        s.apply(Action::Script(super::super::script::ScriptAction::Edit("fn init() {}".into())));
        s.apply(Action::Assignment(AssignmentAction::Grade("https://lab.example/".into())));
        let t = s.assignment.clone().unwrap();
        assert!(t.running());
        let job = Job::from_json(&t.job).unwrap();
        assert_eq!((job.id, job.source.as_str(), job.base.as_str()), (1, "fn init() {}", "https://lab.example/"));
        assert_eq!(job.reference.as_deref(), Some(SHIPPED[0].2));
        // Grade again while it runs: nothing new.
        s.apply(Action::Assignment(AssignmentAction::Grade(String::new())));
        assert_eq!(s.assignment.as_ref().unwrap().job_id, 1);
        // A stale reply is ignored; progress and the report are shown.
        s.apply(Action::Assignment(AssignmentAction::Reply(Reply::Progress { done: 3, total: 5 }.to_json(7))));
        assert_eq!(s.assignment.as_ref().unwrap().status, GradeStatus::Running { done: 0, total: 5 });
        s.apply(Action::Assignment(AssignmentAction::Reply(Reply::Progress { done: 3, total: 5 }.to_json(1))));
        assert_eq!(s.assignment.as_ref().unwrap().status, GradeStatus::Running { done: 3, total: 5 });
        let report = serde_json::json!({"score": 0, "max": 10, "checks": []});
        s.apply(Action::Assignment(AssignmentAction::Reply(Reply::Report(report.clone()).to_json(1))));
        assert_eq!(s.assignment.as_ref().unwrap().status, GradeStatus::Done(Rc::new(report)));
        // Cancel only stops a grading that runs.
        s.apply(Action::Assignment(AssignmentAction::Cancel));
        assert!(matches!(s.assignment.as_ref().unwrap().status, GradeStatus::Done(_)));
    }

    #[test]
    fn a_failure_opens_its_run_at_the_failing_step() {
        let mut s = state();
        s.apply(Action::Assignment(AssignmentAction::Open("bully".into())));
        let mut e = Engine::new(presets::find("bully-heartbeats").unwrap().scenario()).unwrap();
        e.run_to_end();
        e.seek(7);
        let link = format!(
            "https://lab.example/?t={}&step=7",
            election_lab::link::pack(&e.trace_value().to_string()).unwrap()
        );
        let report = serde_json::json!({"checks": [{"passed": false, "link": link}]});
        let t = Rc::make_mut(s.assignment.as_mut().unwrap());
        t.status = GradeStatus::Done(Rc::new(report));
        assert!(s.apply(Action::Assignment(AssignmentAction::OpenFailure(0))));
        assert_eq!(s.messages.alert, None);
        assert_eq!(s.engine.get().cursor(), 7);
        assert_eq!(s.scenario.algorithm, "bully");
    }

    #[test]
    fn a_dropped_assignment_file_finds_its_scripts_by_name() {
        let mut s = state();
        let (text, _, _) = SHIPPED[0];
        let other = text.replace("\"id\": \"bully\"", "\"id\": \"mine\"");
        // Without its reference beside it: named in the alert.
        assert_eq!(s.assignment_from_files(&[("a.json".into(), other.clone())]), Some(true));
        assert!(s.messages.alert.as_deref().is_some_and(|a| a.contains("bully.rhai")), "{:?}", s.messages.alert);
        let files = vec![
            ("a.json".into(), other),
            ("bully_skeleton.rhai".into(), "// mine".into()),
            ("bully.rhai".into(), "// the reference".into()),
        ];
        assert_eq!(s.assignment_from_files(&files), Some(true));
        let t = s.assignment.clone().unwrap();
        assert_eq!((t.id.as_str(), t.reference.as_deref().map(|r| r.as_str())), ("mine", Some("// the reference")));
        assert_eq!(s.script.as_ref().unwrap().source.as_str(), "// mine");
        assert_eq!(s.assignment_from_files(&[("x.json".into(), "{}".into())]), None);
        assert!(read("{\"format\": \"election-lab-assignment/1\", \"id\": \"x\"}").unwrap_err().contains("checks"));
    }
}
