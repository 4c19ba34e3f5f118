//! Assignments with autograding: an instructor's checks run on a student's scripted algorithm,
//! each worth points, each failure with a reason (in English and 中文, from the catalogs) and a
//! link that opens the run at the failing step. `election-lab grade` runs it on a folder of
//! submissions; the page can read the same report.
//!
//! An assignment (JSON, see the guide's "Assignments" chapter) names a skeleton and a reference
//! script (paths beside it, read by the caller) and its checks:
//!
//! * `leaders`: run `scenario`; the run must end with exactly the `leaders` given, break none of
//!   the algorithm's claimed properties on the way, and never stop on a script error;
//! * `messages`: run `scenario`; the messages sent, by kind, must be the reference script's
//!   (`"reference": true`), or their total over the formula's kinds must be the value at N of
//!   `formula`, a formula some algorithm of the lab declares (`"N²−N−1"`);
//! * `search`: the counterexample search ([`crate::search`]) must not break `property` on
//!   `scenario` within `budget_steps` (with `faults`, `seed`, `max_faults`);
//! * `check`: the exhaustive checker ([`crate::check`]) must find no violation of `property`
//!   within `bounds` (a *sometimes* property must be witnessed).
//!
//! Every check first runs its scenario once: a script that fails there (a runtime error, or a
//! handler over its budget: an endless loop) fails the check with the script's own message.

use crate::check::{Bounds, Checker, Verdict};
use crate::engine::Engine;
use crate::error::ScenarioError;
use crate::meta::{k, Lang, Text};
use crate::registry;
use crate::scenario::Scenario;
use crate::search::{FaultSet, Options, Search};
use serde_json::{json, Map, Value};
use std::collections::BTreeMap;

/// The `format` of an assignment file and of a report.
pub const FORMAT: &str = "election-lab-assignment/1";
pub const REPORT_FORMAT: &str = "election-lab-grade/1";

/// A text given in one language for all, or as `{"en": …, "zh": …}`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Texts {
    pub en: String,
    pub zh: String,
}

impl Texts {
    fn read(v: Option<&Value>, field: &str, default: &str) -> Result<Texts, ScenarioError> {
        match v {
            None => Ok(Texts { en: default.into(), zh: default.into() }),
            Some(Value::String(s)) => Ok(Texts { en: s.clone(), zh: s.clone() }),
            Some(Value::Object(o)) => {
                let en = o.get("en").and_then(Value::as_str);
                let en = en.ok_or_else(|| ScenarioError::new(format!("{field}.en"), "missing (a string)"))?;
                let zh = o.get("zh").and_then(Value::as_str).unwrap_or(en);
                Ok(Texts { en: en.into(), zh: zh.into() })
            }
            Some(_) => Err(ScenarioError::new(field, "expected a string or {\"en\": ..., \"zh\": ...}")),
        }
    }
    pub fn get(&self, lang: Lang) -> &str {
        if lang == Lang::Zh {
            &self.zh
        } else {
            &self.en
        }
    }
}

/// What a check asks.
#[derive(Clone, Debug)]
pub enum Kind {
    Leaders(Vec<u32>),
    /// The reference script's counts by kind.
    ReferenceCounts,
    /// A formula's value at N, over its kinds.
    Formula(&'static crate::meta::Formula),
    Search {
        property: String,
        faults: FaultSet,
        budget_steps: u64,
        seed: u64,
        max_faults: u64,
    },
    Check {
        property: String,
        bounds: Bounds,
    },
}

#[derive(Clone, Debug)]
pub struct Check {
    pub id: String,
    pub title: Texts,
    pub points: u64,
    /// The scenario as written (its `algorithm` is replaced by the script's).
    pub scenario: Value,
    pub kind: Kind,
}

#[derive(Clone, Debug)]
pub struct Assignment {
    pub id: String,
    pub title: Texts,
    /// Paths of the skeleton and reference scripts, relative to the assignment file.
    pub skeleton: Option<String>,
    pub reference: Option<String>,
    pub checks: Vec<Check>,
}

fn keys(o: &Map<String, Value>, path: &str, known: &[&str]) -> Result<(), ScenarioError> {
    match o.keys().find(|k| !known.contains(&k.as_str())) {
        Some(k) => Err(ScenarioError::new(
            format!("{path}{k}"),
            format!("unknown field, expected one of: {}", known.join(", ")),
        )),
        None => Ok(()),
    }
}

fn uint(o: &Map<String, Value>, field: &str, path: &str, default: u64) -> Result<u64, ScenarioError> {
    match o.get(field) {
        None => Ok(default),
        Some(v) => v.as_u64().ok_or_else(|| ScenarioError::new(format!("{path}{field}"), "expected a whole number")),
    }
}

fn string(o: &Map<String, Value>, field: &str, path: &str) -> Result<String, ScenarioError> {
    o.get(field)
        .and_then(Value::as_str)
        .map(str::to_string)
        .ok_or_else(|| ScenarioError::new(format!("{path}{field}"), "missing (a string)"))
}

impl Assignment {
    pub fn from_json(text: &str) -> Result<Assignment, ScenarioError> {
        let v: Value = serde_json::from_str(text).map_err(|e| ScenarioError::new("assignment", e.to_string()))?;
        let o = v.as_object().ok_or_else(|| ScenarioError::new("assignment", "expected a JSON object"))?;
        keys(o, "", &["format", "id", "title", "skeleton", "reference", "checks"])?;
        if let Some(f) = o.get("format") {
            if f.as_str() != Some(FORMAT) {
                return Err(ScenarioError::new("format", format!("expected \"{FORMAT}\"")));
            }
        }
        let id = string(o, "id", "")?;
        let title = Texts::read(o.get("title"), "title", &id)?;
        let path = |f: &str| o.get(f).and_then(Value::as_str).map(str::to_string);
        let list = o.get("checks").and_then(Value::as_array);
        let list = list.ok_or_else(|| ScenarioError::new("checks", "missing (a list of checks)"))?;
        if list.is_empty() {
            return Err(ScenarioError::new("checks", "at least one check"));
        }
        let mut checks: Vec<Check> = Vec::new();
        for (i, c) in list.iter().enumerate() {
            let check = Check::read(c, &format!("checks[{i}]."))?;
            if checks.iter().any(|d| d.id == check.id) {
                return Err(ScenarioError::new(format!("checks[{i}].id"), format!("`{}` twice", check.id)));
            }
            checks.push(check);
        }
        let reference = path("reference");
        if reference.is_none() && checks.iter().any(|c| matches!(c.kind, Kind::ReferenceCounts)) {
            return Err(ScenarioError::new("reference", "missing: a check compares with the reference script"));
        }
        Ok(Assignment { id, title, skeleton: path("skeleton"), reference, checks })
    }

    /// The points of every check.
    pub fn max(&self) -> u64 {
        self.checks.iter().map(|c| c.points).sum()
    }
}

impl Check {
    fn read(v: &Value, path: &str) -> Result<Check, ScenarioError> {
        let o = v.as_object().ok_or_else(|| ScenarioError::new(path.trim_end_matches('.'), "expected an object"))?;
        let id = string(o, "id", path)?;
        let kind_name = string(o, "kind", path)?;
        let common = ["id", "title", "points", "kind", "scenario"];
        let extra: &[&str] = match kind_name.as_str() {
            "leaders" => &["leaders"],
            "messages" => &["reference", "formula"],
            "search" => &["property", "faults", "budget_steps", "seed", "max_faults"],
            "check" => &["property", "bounds"],
            other => {
                return Err(ScenarioError::new(
                    format!("{path}kind"),
                    format!("unknown kind `{other}`, expected one of: leaders, messages, search, check"),
                ))
            }
        };
        keys(o, path, &[&common[..], extra].concat())?;
        let scenario =
            o.get("scenario").cloned().ok_or_else(|| ScenarioError::new(format!("{path}scenario"), "missing"))?;
        // The scenario must read as one (on its own algorithm, or on a built-in if it names none).
        let mut probe = scenario.clone();
        if let Some(m) = probe.as_object_mut() {
            m.entry("algorithm").or_insert_with(|| json!(registry::all()[0].id));
        }
        Scenario::from_value(&probe).map_err(|e| e.within(&format!("{path}scenario")))?;
        let kind = match kind_name.as_str() {
            "leaders" => {
                let l = o.get("leaders").and_then(Value::as_array);
                let l =
                    l.ok_or_else(|| ScenarioError::new(format!("{path}leaders"), "missing (a list of node ids)"))?;
                let ids = l.iter().map(|x| x.as_u64().and_then(|x| u32::try_from(x).ok())).collect::<Option<Vec<_>>>();
                Kind::Leaders(ids.ok_or_else(|| ScenarioError::new(format!("{path}leaders"), "expected node ids"))?)
            }
            "messages" => match (o.get("reference"), o.get("formula").and_then(Value::as_str)) {
                (Some(Value::Bool(true)), None) => Kind::ReferenceCounts,
                (None, Some(name)) => {
                    let f = registry::all().iter().flat_map(|a| a.formulas.iter()).find(|f| f.name == name);
                    Kind::Formula(f.ok_or_else(|| {
                        ScenarioError::new(
                            format!("{path}formula"),
                            format!("no algorithm declares the formula `{name}`"),
                        )
                    })?)
                }
                _ => {
                    return Err(ScenarioError::new(
                        format!("{path}reference"),
                        "give either \"reference\": true or \"formula\": a formula's name",
                    ))
                }
            },
            "search" => {
                let faults =
                    o.get("faults").and_then(Value::as_str).unwrap_or("crash,recover,partition,heal,drop,delay");
                Kind::Search {
                    property: string(o, "property", path)?,
                    faults: FaultSet::parse(faults).map_err(|e| e.within(path.trim_end_matches('.')))?,
                    budget_steps: uint(o, "budget_steps", path, 100_000)?.max(1),
                    seed: uint(o, "seed", path, 0)?,
                    max_faults: uint(o, "max_faults", path, 4)?.clamp(1, crate::search::MAX_FAULTS),
                }
            }
            _ => {
                let b = o.get("bounds").cloned().unwrap_or(json!({}));
                let bp = format!("{path}bounds.");
                let bo =
                    b.as_object().ok_or_else(|| ScenarioError::new(format!("{path}bounds"), "expected an object"))?;
                keys(bo, &bp, &["crashes", "recoveries", "partitions", "drops", "depth", "max_states"])?;
                let small = |f: &str| uint(bo, f, &bp, 0).map(|x| x.min(u32::MAX as u64) as u32);
                Kind::Check {
                    property: string(o, "property", path)?,
                    bounds: Bounds {
                        crashes: small("crashes")?,
                        recoveries: small("recoveries")?,
                        partitions: small("partitions")?,
                        drops: small("drops")?,
                        depth: bo.get("depth").map(|_| small("depth")).transpose()?,
                        max_states: uint(bo, "max_states", &bp, 100_000)?.clamp(1, 2_000_000) as usize,
                        horizon: None,
                        max_drift: 0,
                    },
                }
            }
        };
        Ok(Check {
            title: Texts::read(o.get("title"), &format!("{path}title"), &id)?,
            id,
            points: uint(o, "points", path, 1)?,
            scenario,
            kind,
        })
    }
}

/// A check's outcome: passed, or the reason (a catalog text with its arguments) and where it
/// shows (a trace and the step to open it at).
struct Outcome {
    reason: Option<(Text, Vec<String>)>,
    at: Option<(Value, u64)>,
}

impl Outcome {
    fn pass() -> Outcome {
        Outcome { reason: None, at: None }
    }
    fn fail(t: Text, args: Vec<String>, at: Option<(Value, u64)>) -> Outcome {
        Outcome { reason: Some((t, args)), at }
    }
}

/// The query (`?t=…&step=N`) opening `trace` at `step`.
fn query(trace: &Value, step: u64) -> String {
    let mut t = trace.clone();
    if let Some(o) = t.as_object_mut() {
        o.remove("step");
    }
    let json = t.to_string();
    match crate::link::pack(&json) {
        Some(p) => format!("?t={p}&step={step}"),
        None => format!("?trace={}&step={step}", crate::link::b64_encode(json.as_bytes())),
    }
}

fn scenario_for(check: &Check, algorithm: &str) -> Result<Scenario, ScenarioError> {
    let mut v = check.scenario.clone();
    if let Some(m) = v.as_object_mut() {
        m.insert("algorithm".into(), json!(algorithm));
    }
    Scenario::from_value(&v).map_err(|e| e.within("scenario"))
}

fn ids(v: &[u32]) -> String {
    let s: Vec<String> = v.iter().map(|n| format!("N{n}")).collect();
    if s.is_empty() {
        "—".into()
    } else {
        s.join(", ")
    }
}

fn counts(m: &BTreeMap<String, u64>) -> String {
    let s: Vec<String> = m.iter().map(|(k, c)| format!("{k} {c}")).collect();
    if s.is_empty() {
        "—".into()
    } else {
        s.join(", ")
    }
}

/// Runs `scenario` to its end; the run and its counts by kind.
fn run(scenario: Scenario) -> Result<(Engine, BTreeMap<String, u64>), ScenarioError> {
    let mut e = Engine::new(scenario)?;
    e.run_to_end();
    let by_kind = e.metrics().by_kind.iter().filter(|&&(_, c)| c > 0).map(|&(k, c)| (k.to_string(), c)).collect();
    Ok((e, by_kind))
}

/// The reference script's counts by kind for each `messages` check that asks for them: run
/// with the reference loaded (before any student's script of the same id).
pub fn reference_counts(a: &Assignment, reference_id: &str) -> Result<BTreeMap<String, BTreeMap<String, u64>>, String> {
    let mut out = BTreeMap::new();
    for c in a.checks.iter().filter(|c| matches!(c.kind, Kind::ReferenceCounts)) {
        let s = scenario_for(c, reference_id).map_err(|e| format!("checks.{}: {e}", c.id))?;
        let (e, by_kind) = run(s).map_err(|e| format!("checks.{}: {e}", c.id))?;
        if let Some(why) = e.fault() {
            return Err(format!("checks.{}: the reference script failed: {why}", c.id));
        }
        out.insert(c.id.clone(), by_kind);
    }
    Ok(out)
}

fn grade_one(c: &Check, id: &str, refs: &BTreeMap<String, BTreeMap<String, u64>>) -> Outcome {
    let scenario = match scenario_for(c, id) {
        Ok(s) => s,
        Err(e) => return Outcome::fail(k::GRADE_REASON_SCENARIO, vec![e.to_string()], None),
    };
    let (engine, by_kind) = match run(scenario.clone()) {
        Ok(r) => r,
        Err(e) => return Outcome::fail(k::GRADE_REASON_SCENARIO, vec![e.to_string()], None),
    };
    let at_end = || Some((engine.trace_value(), engine.cursor()));
    if let Some(why) = engine.fault() {
        return Outcome::fail(k::GRADE_REASON_FAULT, vec![why], at_end());
    }
    match &c.kind {
        Kind::Leaders(expected) => {
            if let Some(v) = engine.violations().first() {
                let at = Some((engine.trace_value(), v.step));
                return Outcome::fail(
                    k::GRADE_REASON_VIOLATION,
                    vec![v.kind.to_string(), v.step.to_string(), ids(&v.nodes)],
                    at,
                );
            }
            let got = engine.frame().leaders.clone();
            let mut want = expected.clone();
            want.sort_unstable();
            let mut have = got.clone();
            have.sort_unstable();
            if have != want {
                return Outcome::fail(k::GRADE_REASON_LEADERS, vec![ids(&want), ids(&have)], at_end());
            }
            Outcome::pass()
        }
        Kind::ReferenceCounts => {
            let want = refs.get(&c.id).cloned().unwrap_or_default();
            if by_kind != want {
                return Outcome::fail(k::GRADE_REASON_COUNTS, vec![counts(&want), counts(&by_kind)], at_end());
            }
            Outcome::pass()
        }
        Kind::Formula(f) => {
            let n = scenario.nodes.len() as u64;
            let Some(want) = engine.algorithm().theory(f, &scenario) else {
                return Outcome::fail(k::GRADE_REASON_FORMULA_NETWORK, vec![f.name.to_string()], at_end());
            };
            let got: u64 = f.counts.iter().map(|k| by_kind.get(*k).copied().unwrap_or(0)).sum();
            if got != want {
                let args =
                    vec![f.name.to_string(), n.to_string(), want.to_string(), f.counts.join("+"), got.to_string()];
                return Outcome::fail(k::GRADE_REASON_FORMULA, args, at_end());
            }
            Outcome::pass()
        }
        Kind::Search { property, faults, budget_steps, seed, max_faults } => {
            let opts = Options {
                property: property.clone(),
                faults: *faults,
                seed: *seed,
                budget_steps: *budget_steps,
                faults_per_schedule: (1, *max_faults),
                handler_errors: true,
                shrink_runs: 30,
                ..Options::default()
            };
            let mut s = match Search::new(scenario, opts) {
                Ok(s) => s,
                Err(e) => return Outcome::fail(k::GRADE_REASON_SCENARIO, vec![e.to_string()], None),
            };
            while !s.advance(20_000).finished() {}
            match s.result() {
                None => Outcome::pass(),
                Some(cx) => {
                    // A handler's failure under a fault: the script's error is the reason.
                    // (The engine knows a handler failed once it tries the next step.)
                    let replay = Engine::from_trace_value(&cx.trace).ok().and_then(|mut e| {
                        e.step();
                        e.fault()
                    });
                    if let Some(why) = replay {
                        return Outcome::fail(k::GRADE_REASON_FAULT, vec![why], Some((cx.trace.clone(), cx.step)));
                    }
                    Outcome::fail(
                        k::GRADE_REASON_SEARCH,
                        vec![cx.property.clone(), cx.step.to_string(), ids(&cx.nodes), cx.schedule.to_string()],
                        Some((cx.trace.clone(), cx.step)),
                    )
                }
            }
        }
        Kind::Check { property, bounds } => {
            let checker = match Checker::new(&scenario, property, bounds.clone()) {
                Ok(ch) => ch,
                Err(e) => return Outcome::fail(k::GRADE_REASON_SCENARIO, vec![e.to_string()], None),
            };
            let r = checker.run();
            if let Some(why) = &r.handler_error {
                return Outcome::fail(k::GRADE_REASON_FAULT, vec![why.clone()], None);
            }
            match (&r.verdict, r.sometimes) {
                (Verdict::Violated(_), true) | (Verdict::Holds { .. } | Verdict::Limit, false) => Outcome::pass(),
                (Verdict::Violated(cx), false) => Outcome::fail(
                    k::GRADE_REASON_CHECK,
                    vec![r.property.to_string(), cx.moves.len().to_string(), ids(&cx.nodes), r.bounds.describe()],
                    Some((cx.trace.clone(), cx.step)),
                ),
                (Verdict::ReadsClock, _) => Outcome::fail(k::GRADE_REASON_CLOCK, vec![], None),
                _ => Outcome::fail(
                    k::GRADE_REASON_NEVER,
                    vec![r.property.to_string(), r.states.to_string(), r.bounds.describe()],
                    None,
                ),
            }
        }
    }
}

/// The report of a student's script `source` (named `student`): every check's points, reason
/// and failing step in `lang`, as JSON (see the guide for its fields). `refs` is
/// [`reference_counts`]; `base` the page's address the links point at; `before(i)` is called
/// before check `i` runs (the page's worker posts its progress so). A script that does not load
/// scores 0 on every check, with the loader's message (line and column).
pub fn grade(
    a: &Assignment,
    student: &str,
    source: &str,
    refs: &BTreeMap<String, BTreeMap<String, u64>>,
    lang: Lang,
    base: &str,
    before: &mut dyn FnMut(usize),
) -> Value {
    let loaded = crate::protocols::script::load(source).map(|alg| alg.id);
    let mut checks = Vec::new();
    let mut score = 0;
    for (i, c) in a.checks.iter().enumerate() {
        before(i);
        let o = match &loaded {
            Ok(id) => grade_one(c, id, refs),
            Err(e) => Outcome::fail(k::GRADE_REASON_LOAD, vec![e.to_string()], None),
        };
        let passed = o.reason.is_none();
        score += if passed { c.points } else { 0 };
        let mut v = json!({
            "id": c.id,
            "title": c.title.get(lang),
            "points": if passed { c.points } else { 0 },
            "max": c.points,
            "passed": passed,
            "reason": Value::Null,
            "step": Value::Null,
            "link": Value::Null,
        });
        if let Some((t, args)) = &o.reason {
            let shown: Vec<&dyn std::fmt::Display> = args.iter().map(|s| s as &dyn std::fmt::Display).collect();
            v["reason"] = json!(t.format(lang, &shown));
            v["reason_key"] = json!(t.key());
        }
        if let Some((trace, step)) = &o.at {
            v["step"] = json!(step);
            v["link"] = json!(format!("{base}{}", query(trace, *step)));
        }
        checks.push(v);
    }
    json!({
        "format": REPORT_FORMAT,
        "assignment": a.id,
        "title": a.title.get(lang),
        "student": student,
        "lang": if lang == Lang::Zh { "zh" } else { "en" },
        "algorithm": loaded.as_ref().ok(),
        "score": score,
        "max": a.max(),
        "checks": checks,
    })
}

/// The report of a script that could not be graded at all (the grader's process failed or ran
/// out of time on it): 0 on every check, each with `why`.
pub fn unable(a: &Assignment, student: &str, why: &str, lang: Lang) -> Value {
    let reason = k::GRADE_REASON_CRASHED.format(lang, &[&why]);
    let checks: Vec<Value> = a
        .checks
        .iter()
        .map(|c| {
            json!({"id": c.id, "title": c.title.get(lang), "points": 0, "max": c.points, "passed": false,
                   "reason": reason, "reason_key": k::GRADE_REASON_CRASHED.key(), "step": null, "link": null})
        })
        .collect();
    json!({
        "format": REPORT_FORMAT, "assignment": a.id, "title": a.title.get(lang), "student": student,
        "lang": if lang == Lang::Zh { "zh" } else { "en" }, "algorithm": null,
        "score": 0, "max": a.max(), "checks": checks,
    })
}

/// The report's CSV row: `student,score,max,reasons` (each failed check as `id: reason`,
/// separated by ` | `), cells neutralised as the sweeps' are.
pub fn csv_row(report: &Value) -> String {
    use crate::experiment::Cell;
    let reasons: Vec<String> = report["checks"]
        .as_array()
        .map(|cs| {
            cs.iter()
                .filter(|c| c["passed"] != json!(true))
                .map(|c| format!("{}: {}", c["id"].as_str().unwrap_or(""), c["reason"].as_str().unwrap_or("")))
                .collect()
        })
        .unwrap_or_default();
    [
        Cell::Str(report["student"].as_str().unwrap_or("").to_string()),
        Cell::Int(report["score"].as_u64().unwrap_or(0)),
        Cell::Int(report["max"].as_u64().unwrap_or(0)),
        Cell::Str(reasons.join(" | ")),
    ]
    .iter()
    .map(Cell::csv)
    .collect::<Vec<_>>()
    .join(",")
}

/// The CSV's header line.
pub const CSV_HEADER: &str = "student,score,max,reasons";
