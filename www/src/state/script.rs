//! The editor of users' own algorithms, the reducer's side (workbench only): the script's text,
//! its last error placed at a line and column, and Run, which puts the script in place of the
//! algorithm of the run shown while keeping its scenario and its faults. A script travels in the
//! page's links (`&script=1.<lz-string, base64url>`, the trace's codec), so a link opens the same
//! run. The interpreter is the engine's `script` feature, compiled in only with the `workbench`
//! feature (and in the unit tests): the player's first load has no interpreter, and its
//! "Write your own…" hands off to the workbench.

use super::slices::Then;
use super::State;
use crate::i18n::tr;
use election_lab::engine::Replay;
use election_lab::meta::k;
use election_lab::{Algorithm, Engine};
use std::rc::Rc;

/// The picker's value for "Write your own…".
pub const WRITE_YOUR_OWN: &str = "__script__";

/// What the editor asks of the reducer.
#[derive(Clone, Debug, PartialEq)]
pub enum ScriptAction {
    /// Open the editor: on the script running, else the one last edited, else a template.
    Open,
    /// Replace the text by a template's (an id of [`TEMPLATES`]).
    Template(String),
    /// The text as typed.
    Edit(String),
    /// Run the script on the scenario and faults shown.
    Run,
    Close,
}

/// A script's error: line and column (1-based; 0 when the interpreter did not say) and what.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Placed {
    pub line: usize,
    pub column: usize,
    pub message: String,
}

/// The editor's state.
#[derive(Clone, Debug, PartialEq)]
pub struct ScriptEdit {
    pub source: Rc<String>,
    /// The template the text started from.
    pub template: &'static str,
    /// Why the text last run could not be loaded.
    pub error: Option<Rc<Placed>>,
}

impl ScriptEdit {
    fn on(template: &'static str, source: String) -> ScriptEdit {
        ScriptEdit { source: Rc::new(source), template, error: None }
    }
}

/// The interpreter, in the builds that have it.
#[cfg(any(feature = "workbench", test))]
mod interp {
    use super::Placed;
    use election_lab::protocols::script;

    /// The templates: (the built-in algorithm each equals, its source).
    pub fn templates() -> &'static [(&'static str, &'static str)] {
        &script::TEMPLATES
    }

    pub fn load(source: &str) -> Result<&'static election_lab::Algorithm, Placed> {
        script::load(source).map_err(|e| Placed {
            line: e.line.unwrap_or(0),
            column: e.column.unwrap_or(0),
            message: e.message,
        })
    }

    /// The source of the loaded script whose algorithm id is `id`.
    pub fn source_of(id: &str) -> Option<String> {
        script::find(id).map(|l| l.source.clone())
    }

    pub fn is_script(id: &str) -> bool {
        script::find(id).is_some()
    }
}

/// The player has no interpreter: it hands the editor and scripts' links to the workbench.
#[cfg(not(any(feature = "workbench", test)))]
mod interp {
    use super::Placed;

    pub fn templates() -> &'static [(&'static str, &'static str)] {
        &[]
    }
    pub fn load(_: &str) -> Result<&'static election_lab::Algorithm, Placed> {
        Err(Placed { line: 0, column: 0, message: String::new() })
    }
    pub fn source_of(_: &str) -> Option<String> {
        None
    }
    pub fn is_script(_: &str) -> bool {
        false
    }
}

std::thread_local! {
    /// The scripts run in this page, the last run last: offered beside the built-ins in the
    /// compare picker.
    static RAN: std::cell::RefCell<Vec<&'static Algorithm>> = const { std::cell::RefCell::new(Vec::new()) };
}

fn ran(algorithm: &'static Algorithm) {
    RAN.with(|r| {
        let mut r = r.borrow_mut();
        r.retain(|a| a.id != algorithm.id);
        r.push(algorithm);
    });
}

/// The algorithms the compare picker offers: the built-ins, then the scripts run in this page
/// (the last loaded under each id).
pub fn offered() -> Vec<&'static Algorithm> {
    let mut all = election_lab::registry::all().to_vec();
    RAN.with(|r| all.extend(r.borrow().iter().filter_map(|a| election_lab::registry::find(a.id))));
    all
}

/// Whether a script runs the algorithm `id` (its run is computed in slices: `slices.rs`).
pub(super) fn is_script(id: &str) -> bool {
    interp::is_script(id)
}

/// Whether a script runs the algorithm `id`, for the link reader (a script's run is rebuilt in
/// slices).
pub fn runs_script(id: &str) -> bool {
    interp::is_script(id)
}

/// The `&script=…` part of a link to `engine`'s run when a script runs it (else empty).
pub fn link_part(engine: &Engine) -> String {
    link_part_of(engine.algorithm().id)
}

/// The `&script=…` part for the algorithm `id` if a script runs it (else empty).
pub fn link_part_of(id: &str) -> String {
    let Some(source) = interp::source_of(id) else { return String::new() };
    match election_lab::link::pack(&source) {
        Some(p) => format!("&script={p}"),
        // Too long to compress within a link's bound: the text itself, base64url.
        None => format!("&script=b.{}", election_lab::link::b64_encode(source.as_bytes())),
    }
}

/// Loads the script a link carries (`script=` value), so that its trace can name the script's
/// algorithm. `Ok(false)` in the player, which hands the link to the workbench.
pub fn from_link(value: &str) -> Result<bool, String> {
    if !crate::WORKBENCH {
        return Ok(false);
    }
    let source = match value.strip_prefix("b.") {
        Some(b) => election_lab::link::b64_decode(b)
            .ok()
            .and_then(|bytes| String::from_utf8(bytes).ok())
            .ok_or_else(|| "link: script is damaged (not base64url text)".to_string())?,
        None => election_lab::link::unpack(value).map_err(|e| e.replacen("trace", "script", 1))?,
    };
    let algorithm = interp::load(&source)
        .map_err(|p| format!("link: script: line {}, column {}: {}", p.line, p.column, p.message))?;
    ran(algorithm);
    Ok(true)
}

/// Loads a script's text so that runs of its algorithm open (a graded script's failures).
pub(super) fn from_source(source: &str) -> Result<&'static Algorithm, Placed> {
    let algorithm = interp::load(source)?;
    ran(algorithm);
    Ok(algorithm)
}

/// The templates a script starts from: the id of the built-in algorithm each one equals on its
/// presets (none in the player).
pub fn templates() -> impl Iterator<Item = &'static str> {
    interp::templates().iter().map(|t| t.0)
}

fn template(id: &str) -> Option<(&'static str, &'static str)> {
    interp::templates().iter().copied().find(|t| t.0 == id)
}

/// The title of a template (its built-in algorithm's).
pub fn template_title(id: &str, lang: crate::i18n::Lang) -> &'static str {
    election_lab::registry::find(id).map_or("", |a: &'static Algorithm| a.title.get(lang))
}

impl State {
    pub(super) fn script_apply(&mut self, action: ScriptAction) -> bool {
        match action {
            ScriptAction::Open => {
                self.dialogs.picker = false;
                let running = interp::source_of(self.engine.get().algorithm().id);
                let first = interp::templates().first().copied().unwrap_or(("", ""));
                let edit = match (running, self.script.take()) {
                    (Some(source), old) => ScriptEdit::on(old.map_or(first.0, |o| o.template), source),
                    (None, Some(old)) => (*old).clone(),
                    (None, None) => ScriptEdit::on(first.0, first.1.into()),
                };
                self.script = Some(Rc::new(edit));
                false
            }
            ScriptAction::Template(id) => {
                if let Some((id, source)) = template(&id) {
                    self.script = Some(Rc::new(ScriptEdit::on(id, source.into())));
                }
                false
            }
            ScriptAction::Edit(text) => {
                if let Some(s) = &mut self.script {
                    Rc::make_mut(s).source = Rc::new(text);
                }
                false
            }
            ScriptAction::Run => self.run_script(),
            ScriptAction::Close => {
                self.script = None;
                false
            }
        }
    }

    /// Runs the editor's script on the scenario and faults shown; a run it stops with an error
    /// is shown at the failing step.
    fn run_script(&mut self) -> bool {
        let Some(edit) = self.script.clone() else { return false };
        let algorithm = match interp::load(&edit.source) {
            Ok(a) => a,
            Err(placed) => {
                Rc::make_mut(self.script.as_mut().expect("open")).error = Some(Rc::new(placed));
                return false;
            }
        };
        Rc::make_mut(self.script.as_mut().expect("open")).error = None;
        ran(algorithm);
        let mut scenario = (*self.scenario).clone();
        scenario.algorithm = algorithm.id.to_string();
        let (cursor, faults) = (self.cursor(), self.engine.get().interventions().to_vec());
        // The scenario's parameters were the previous algorithm's: kept if the script reads
        // them, else the script's defaults.
        let built = Engine::new(scenario.clone()).or_else(|_| {
            scenario.params.clear();
            Engine::new(scenario)
        });
        // A script's steps may be slow: its faults are put back in slices, the run shown
        // staying until it is ready (`slices.rs`).
        let later = cfg!(any(feature = "workbench", test)) && self.lanes().is_none();
        let built = match built {
            Ok(engine) if later => {
                self.rebuild_later(engine, Replay::by_time(&faults), Then::Script(cursor));
                return true;
            }
            built => built,
        };
        let result = built.and_then(|mut e| e.replay_by_time(&faults).map(|_| e)).map_err(|e| e.to_string());
        let lang = self.lang;
        if !self.load(result, None, |e| k::UI_SCRIPT_NOT_RUN.format(lang, &[&e])) {
            return false;
        }
        self.messages.alert = None;
        if self.sliced() {
            self.script_ran(cursor);
            return true;
        }
        let failed = {
            let mut e = self.engine_mut();
            let head = e.head();
            e.seek(head);
            let failed = e.fault().is_some();
            if !failed {
                e.seek(cursor.min(head));
            }
            failed
        };
        // A run the script stopped says why in the editor, at the failing step.
        self.messages.notice = (!failed).then(|| tr(lang, k::UI_SCRIPT_RUNNING).into());
        true
    }

    /// A link that carries a script opens the editor on it.
    pub(super) fn script_from_link(&mut self, ps: &[(String, String)]) {
        if ps.iter().any(|(k, _)| k == "script") && interp::source_of(self.engine.get().algorithm().id).is_some() {
            self.script_apply(ScriptAction::Open);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::state::Action;
    use election_lab::{presets, Action as Intervention};

    fn bully_state() -> State {
        let p = presets::find("bully-worst-8").unwrap();
        State::new(Engine::new(p.scenario()).unwrap(), Some(p.id), false)
    }

    #[test]
    fn a_template_runs_like_its_builtin_with_the_faults_kept() {
        let mut s = bully_state();
        s.apply(Action::Act(Intervention::Crash(5)));
        s.apply(Action::Script(ScriptAction::Open));
        assert_eq!(s.script.as_ref().unwrap().template, "bully");
        assert!(s.apply(Action::Script(ScriptAction::Run)));
        let builtin = {
            let mut e = Engine::new(presets::find("bully-worst-8").unwrap().scenario()).unwrap();
            e.apply(Intervention::Crash(5)).unwrap();
            e.run_to_end();
            (e.leaders(), e.metrics().total)
        };
        let mut e = s.engine_mut();
        assert_ne!(e.algorithm().id, "bully");
        assert_eq!(e.interventions().len(), 1);
        e.run_to_end();
        assert_eq!((e.leaders(), e.metrics().total), builtin);
    }

    #[test]
    fn a_bully_whose_starters_hear_from_nobody_has_two_leaders() {
        let mut s = bully_state();
        s.apply(Action::Script(ScriptAction::Open));
        let template = template("bully").unwrap().1;
        // Under an id of its own: scripts are registered for the whole process, and the tests
        // running beside this one open the template's id.
        let buggy = template
            .replace("let up = higher();", "let up = [];")
            .replace("id: \"bully-script\"", "id: \"bully-buggy\"");
        assert_ne!(buggy, template);
        for (source, split) in [(template.to_string(), false), (buggy, true)] {
            s.apply(Action::Script(ScriptAction::Edit(source)));
            assert!(s.apply(Action::Script(ScriptAction::Run)));
            let mut e = s.engine_mut();
            e.run_to_end();
            assert_eq!(e.all_violations().iter().any(|v| v.kind == "split-brain"), split);
        }
    }

    #[test]
    fn a_script_is_a_compare_lane_beside_its_builtin_and_a_link_reopens_both() {
        let mut s = bully_state();
        s.apply(Action::Act(Intervention::Crash(7)));
        s.apply(Action::Script(ScriptAction::Open));
        s.apply(Action::Script(ScriptAction::Run));
        let script = s.engine.get().algorithm();
        assert!(offered().contains(&script), "the picker offers the script run");
        let bully = election_lab::registry::find("bully").unwrap();
        assert!(s.apply(Action::Compare(vec![bully, script])));
        // The script's lane is computed in slices (`compare/slow.rs`).
        s.settle();
        let ends = |s: &State| {
            let c = s.lanes().expect("lanes");
            let out: Vec<_> = c
                .lanes
                .iter()
                .map(|l| {
                    let mut e = l.engine.get_mut();
                    e.run_to_end();
                    (e.interventions().len(), e.leaders(), e.metrics().total, e.trace_hash())
                })
                .collect();
            out
        };
        let here = ends(&s);
        // The same fault in both lanes, the same leaders and messages (the template is Bully).
        assert_eq!((here[0].0, &here[0].1, here[0].2), (1, &here[1].1, here[1].2));
        let query = s.query(false);
        assert!(query.contains("compare=bully,bully-script") && query.contains("&script=1."), "{query}");
        let mut opened = State::open(&query);
        opened.settle();
        assert_eq!(opened.messages.alert, None);
        assert_eq!(ends(&opened), here);
    }

    #[test]
    fn a_syntax_error_is_placed_and_changes_nothing() {
        let mut s = bully_state();
        s.apply(Action::Script(ScriptAction::Open));
        s.apply(Action::Script(ScriptAction::Edit("let x = 1;\nlet y = ;\n".into())));
        assert!(!s.apply(Action::Script(ScriptAction::Run)));
        let err = s.script.as_ref().unwrap().error.clone().unwrap();
        assert_eq!((err.line, err.column), (2, 9), "{err:?}");
        assert_eq!(s.engine.get().algorithm().id, "bully");
    }

    #[test]
    fn an_endless_loop_stops_the_run_at_its_step_and_the_page_goes_on() {
        let mut s = bully_state();
        s.apply(Action::Script(ScriptAction::Open));
        let source = template("bully")
            .unwrap()
            .1
            .replace("fn on_start() {", "fn on_start() {\n    loop { }")
            .replace("id: \"bully-script\"", "id: \"bully-endless\"");
        s.apply(Action::Script(ScriptAction::Edit(source)));
        assert!(s.apply(Action::Script(ScriptAction::Run)));
        // Computed in slices (each Compute action one), then shown at the failing step.
        s.settle();
        let why = s.engine.get().fault().expect("the run stopped");
        assert!(why.contains("budget") && why.contains("on_start") && why.contains("line"), "{why}");
        assert_eq!(s.messages.notice, None);
        let e = s.engine.get();
        assert_eq!(e.cursor(), e.head(), "shown at the failing step");
        drop(e);
        // The run so far is still there to step through.
        s.apply(Action::Seek(0));
        s.settle();
        assert_eq!(s.cursor(), 0);
    }

    #[test]
    fn a_link_carries_the_script_and_reopens_the_same_run() {
        let mut s = bully_state();
        s.apply(Action::Act(Intervention::Crash(5)));
        s.apply(Action::Script(ScriptAction::Open));
        s.apply(Action::Script(ScriptAction::Template("raft".into())));
        s.apply(Action::Script(ScriptAction::Run));
        let query = s.query(false);
        assert!(query.contains("&script=1."), "{query}");
        let hash = |s: &State| {
            let mut e = s.engine_mut();
            e.run_to_end();
            (e.algorithm().id, e.trace_hash())
        };
        let opened = State::open(&query);
        assert_eq!(opened.messages.alert, None);
        assert_eq!(hash(&opened), hash(&s));
    }
}
