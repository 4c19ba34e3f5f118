//! `election-lab grade`: a folder with a correct script, a split-brain script, an endless loop
//! and a syntax error gives four scores with reasons, in English and in Chinese; the CSV and the
//! JSON reports read back, and a failed check's link opens its run at the failing step.
#![cfg(feature = "script")]

use election_lab::link;
use serde_json::Value;
use std::path::{Path, PathBuf};
use std::process::Command;

mod common;

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

fn assignment() -> PathBuf {
    root().join("assignments/bully.json")
}

/// The Bully template, and three broken copies of it.
fn submissions(dir: &Path) -> String {
    let template = std::fs::read_to_string(root().join("scripts/bully.rhai")).unwrap();
    let edit = |from: &str, to: &str| {
        assert!(template.contains(from), "the template changed: {from}");
        template.replacen(from, to, 1)
    };
    std::fs::create_dir_all(dir).unwrap();
    std::fs::write(dir.join("correct.rhai"), &template).unwrap();
    // Ignores every OK: each candidate times out and proclaims itself.
    let split = edit(r#"if this.in_elect && this.stage == "WAIT_OK" {"#, "if false {");
    std::fs::write(dir.join("split.rhai"), &split).unwrap();
    // Every election loops forever: at the start, and after a crash (which only the search's
    // faults bring about in one of the checks).
    std::fs::write(
        dir.join("loop.rhai"),
        edit("fn start_election() {\n", "fn start_election() {\n    let i = 0;\n    while true { i += 1; }\n"),
    )
    .unwrap();
    std::fs::write(dir.join("syntax.rhai"), edit("let was_leader = this.elected == me;", "let was_leader = ;"))
        .unwrap();
    split
}

fn catalog(lang: &str) -> Value {
    serde_json::from_str(&std::fs::read_to_string(root().join(format!("i18n/{lang}.json"))).unwrap()).unwrap()
}

/// The text of catalog key `key` in `lang` up to its first argument.
fn prefix(lang: &str, key: &str) -> String {
    let t = catalog(lang)[key].as_str().unwrap().to_string();
    t.split('{').next().unwrap().to_string()
}

fn grade(dir: &Path, lang: &str) -> (String, Vec<Value>) {
    let out_dir = dir.join(format!("reports-{lang}"));
    let out = Command::new(env!("CARGO_BIN_EXE_election-lab"))
        .arg("grade")
        .arg(assignment())
        .arg(dir.join("subs"))
        .args(["--lang", lang, "--out"])
        .arg(&out_dir)
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{err}");
    assert!(!err.contains("panicked"), "{err}");
    let reports = ["correct", "loop", "split", "syntax"]
        .iter()
        .map(|n| serde_json::from_str(&std::fs::read_to_string(out_dir.join(format!("{n}.json"))).unwrap()).unwrap())
        .collect();
    (String::from_utf8(out.stdout).unwrap(), reports)
}

/// A CSV row's cells (quoted cells may hold commas and doubled quotes).
fn cells(line: &str) -> Vec<String> {
    let mut out = vec![String::new()];
    let (mut quoted, mut chars) = (false, line.chars().peekable());
    while let Some(c) = chars.next() {
        match (c, quoted) {
            ('"', true) if chars.peek() == Some(&'"') => {
                chars.next();
                out.last_mut().unwrap().push('"');
            }
            ('"', _) => quoted = !quoted,
            (',', false) => out.push(String::new()),
            _ => out.last_mut().unwrap().push(c),
        }
    }
    out
}

fn failed(report: &Value) -> Vec<&Value> {
    report["checks"].as_array().unwrap().iter().filter(|c| c["passed"] != true).collect()
}

#[test]
fn four_submissions_give_four_scores_with_reasons_in_both_languages() {
    let dir = std::env::temp_dir().join(format!("election-lab-grade-{}", std::process::id()));
    let split_source = submissions(&dir.join("subs"));
    let max: u64 = serde_json::from_str::<Value>(&std::fs::read_to_string(assignment()).unwrap()).unwrap()["checks"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| c["points"].as_u64().unwrap_or(1))
        .sum();
    for lang in ["en", "zh"] {
        let (csv, reports) = grade(&dir, lang);
        let [correct, looping, split, syntax] = &reports[..] else { panic!() };
        // The CSV: a header and a row per script, agreeing with the reports.
        let lines: Vec<&str> = csv.lines().collect();
        assert_eq!(lines[0], "student,score,max,reasons");
        assert_eq!(lines.len(), 5, "{csv}");
        for (line, report) in lines[1..].iter().zip(&reports) {
            let c = cells(line);
            assert_eq!(c.len(), 4, "{line}");
            assert_eq!(c[0], report["student"].as_str().unwrap());
            assert_eq!(c[1], report["score"].to_string());
            assert_eq!(c[2], max.to_string());
            for f in failed(report) {
                assert!(c[3].contains(f["reason"].as_str().unwrap()), "{line}");
            }
        }
        // The correct script scores every point; each broken one fewer, with its reasons.
        assert_eq!(correct["score"], max, "{correct}");
        assert!(failed(correct).is_empty());
        for r in [looping, split, syntax] {
            assert!(r["score"].as_u64().unwrap() < max, "{r}");
            assert_eq!(r["lang"], lang);
            for f in failed(r) {
                assert_eq!(f["points"], 0);
                assert!(!f["reason"].as_str().unwrap().is_empty());
            }
        }
        let has = |r: &Value, key: &str| {
            let p = prefix(lang, key);
            failed(r).iter().any(|f| f["reason_key"] == key && f["reason"].as_str().unwrap().starts_with(&p))
        };
        assert!(has(split, "grade.reason.violation") && has(split, "grade.reason.search"), "{split}");
        assert!(has(looping, "grade.reason.fault"), "{looping}");
        assert_eq!(looping["score"], 0, "{looping}");
        for f in failed(looping) {
            assert_eq!(f["reason_key"], "grade.reason.fault", "{f}");
            assert!(f["reason"].as_str().unwrap().contains("budget"), "{f}");
            assert!(f["step"].is_u64() && f["link"].is_string(), "{f}");
        }
        assert_eq!(syntax["score"], 0);
        assert!(has(syntax, "grade.reason.load"));
        assert!(failed(syntax).iter().all(|f| f["reason"].as_str().unwrap().contains("line ")), "{syntax}");
        // A Chinese report speaks Chinese.
        if lang == "zh" {
            let reason = failed(split)[0]["reason"].as_str().unwrap();
            assert!(reason.chars().any(|c| ('\u{4e00}'..='\u{9fff}').contains(&c)), "{reason}");
        }
        // The split brain's link opens the run at the step where the two leaders show.
        election_lab::protocols::script::load(&split_source).unwrap();
        let broken = failed(split).into_iter().find(|f| f["reason_key"] == "grade.reason.violation").unwrap();
        let engine = link::open(broken["link"].as_str().unwrap()).unwrap();
        let step = broken["step"].as_u64().unwrap();
        assert_eq!(engine.cursor(), step);
        assert!(engine.violations().iter().any(|v| v.step == step), "the violation is at the link's step");
    }
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn a_bad_assignment_is_bad_input_naming_the_field() {
    let dir = common::temp_dir("grade-bad");
    let a = dir.join("a.json");
    std::fs::write(&a, r#"{"id":"x","checks":[{"id":"c","kind":"leaders","scenario":{"nodes":[1,2]}}]}"#).unwrap();
    let s = dir.join("s.rhai");
    std::fs::write(&s, "1").unwrap();
    let out = Command::new(env!("CARGO_BIN_EXE_election-lab")).arg("grade").arg(&a).arg(&s).output().unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{err}");
    assert!(err.contains("checks[0].leaders"), "{err}");
    std::fs::remove_dir_all(&dir).unwrap();
}
