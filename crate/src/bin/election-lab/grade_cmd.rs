//! `election-lab grade ASSIGNMENT FILE_OR_DIR...`: grades a batch of scripts against an
//! assignment (see `election_lab::grade` and the guide's "Assignments" chapter). Each script is
//! graded in a child process of its own (`--single`), so that a script that crashes the grader,
//! exhausts memory or runs past `--timeout` scores 0 with a reason and the batch goes on.

use super::*;
use election_lab::grade::{self, Assignment};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

pub(super) const GRADE_HELP: &str = "\
ASSIGNMENT is a JSON file (format election-lab-assignment/1: its checks, a skeleton and a
reference script beside it); FILE_OR_DIR are students' scripts (.rhai) or folders of them. Each
script is graded in a process of its own: a check it fails scores 0 with a reason (in --lang),
and a script that does not load, stops on an error or an endless loop, or takes longer than
--timeout scores 0 on the checks concerned, with the reason; the batch goes on.
Standard output: a CSV, one row per script: student,score,max,reasons (each failed check as
`id: reason`, separated by ` | `). With --out DIR, one JSON report per script (DIR/NAME.json:
{format, assignment, title, student, lang, algorithm, score, max, checks: [{id, title, points,
max, passed, reason, reason_key, step, link}]}); a failed check's link opens its run at the
failing step. Exit code 0 when every script was graded; 2: a bad assignment or argument.";

#[derive(clap::Args)]
pub(super) struct Grade {
    /// The assignment (JSON)
    #[arg(value_name = "ASSIGNMENT.json")]
    assignment: String,
    /// Students' scripts, or folders of them (every .rhai file inside, in name order)
    #[arg(value_name = "FILE_OR_DIR", required = true)]
    scripts: Vec<String>,
    /// Language of the reasons and titles
    #[arg(long, default_value = "en", value_parser = PossibleValuesParser::new(["en", "zh"]))]
    lang: String,
    /// Write one JSON report per script into DIR
    #[arg(long, value_name = "DIR")]
    out: Option<String>,
    /// The page's address the reports' links point at
    #[arg(long, value_name = "URL", default_value = DEFAULT_BASE)]
    base: String,
    /// Seconds one script may take in all before it scores 0
    #[arg(long, value_name = "SECONDS", default_value_t = 600)]
    timeout: u64,
    /// Grade this one script in this process and write its report to --report (what the batch
    /// runs for each script)
    #[arg(long, value_name = "FILE", hide = true, requires = "report")]
    single: Option<String>,
    #[arg(long, value_name = "FILE", hide = true)]
    report: Option<String>,
}

fn read_assignment(path: &str) -> Result<(Assignment, Option<String>), String> {
    let a = Assignment::from_json(&read(path)?).map_err(|e| format!("{path}: {e}"))?;
    let dir = Path::new(path).parent().unwrap_or(Path::new("."));
    let reference = match &a.reference {
        Some(r) => Some(read(&dir.join(r).to_string_lossy())?),
        None => None,
    };
    Ok((a, reference))
}

/// The scripts named: files as given, folders' `.rhai` files in name order.
fn scripts(args: &[String]) -> Result<Vec<PathBuf>, String> {
    let mut out = Vec::new();
    for a in args {
        let p = PathBuf::from(a);
        if p.is_dir() {
            let mut files: Vec<PathBuf> = std::fs::read_dir(&p)
                .map_err(|e| format!("cannot read {a}: {e}"))?
                .filter_map(|e| e.ok().map(|e| e.path()))
                .filter(|f| f.is_file() && f.extension().is_some_and(|x| x == "rhai"))
                .collect();
            files.sort();
            out.extend(files);
        } else if p.is_file() {
            out.push(p);
        } else {
            return Err(format!("cannot read {a}: no such file or folder"));
        }
    }
    if out.is_empty() {
        return Err("no .rhai script to grade".to_string());
    }
    Ok(out)
}

fn student_name(p: &Path) -> String {
    p.file_name().map_or_else(|| p.display().to_string(), |n| n.to_string_lossy().to_string())
}

pub(super) fn grade(a: Grade) -> Result<(), Failure> {
    let lang = Lang::parse(&a.lang).unwrap_or_default();
    let (assignment, reference) = read_assignment(&a.assignment)?;
    if let (Some(student), Some(report)) = (&a.single, &a.report) {
        // One script, in this process: the reference first (its counts), then the student's.
        let refs = match &reference {
            Some(src) => {
                let alg = election_lab::protocols::script::load(src)
                    .map_err(|e| format!("{}: the reference script: {e}", a.assignment))?;
                grade::reference_counts(&assignment, alg.id).map_err(|e| format!("{}: {e}", a.assignment))?
            }
            None => Default::default(),
        };
        let name = student_name(Path::new(student));
        let value = match read(student) {
            Ok(source) => grade::grade(&assignment, &name, &source, &refs, lang, &a.base, &mut |_| {}),
            Err(e) => grade::unable(&assignment, &name, &e, lang),
        };
        std::fs::write(report, format!("{value}\n")).map_err(|e| format!("cannot write {report}: {e}"))?;
        return Ok(());
    }
    let files = scripts(&a.scripts)?;
    let work = std::env::temp_dir().join(format!("election-lab-grade-{}", std::process::id()));
    std::fs::create_dir_all(&work).map_err(|e| format!("cannot create {}: {e}", work.display()))?;
    if let Some(out) = &a.out {
        std::fs::create_dir_all(out).map_err(|e| format!("cannot create {out}: {e}"))?;
    }
    let exe = std::env::current_exe().map_err(|e| format!("cannot find the election-lab program: {e}"))?;
    let mut rows = vec![grade::CSV_HEADER.to_string()];
    let mut names = std::collections::BTreeSet::new();
    for (i, file) in files.iter().enumerate() {
        let name = student_name(file);
        let report_path = work.join(format!("{i}.json"));
        let errors = work.join(format!("{i}.err"));
        let value = match one(&exe, &a, file, &report_path, &errors) {
            Ok(v) => v,
            Err(why) => grade::unable(&assignment, &name, &why, lang),
        };
        eprintln!("election-lab: grade: {name}: {}/{}", value["score"], value["max"]);
        rows.push(grade::csv_row(&value));
        if let Some(out) = &a.out {
            let stem = Path::new(&name).file_stem().map_or(name.clone(), |s| s.to_string_lossy().to_string());
            let mut base = stem.clone();
            let mut k = 2;
            while !names.insert(base.clone()) {
                base = format!("{stem}-{k}");
                k += 1;
            }
            let path = Path::new(out).join(format!("{base}.json"));
            let text = serde_json::to_string_pretty(&value).unwrap_or_default();
            std::fs::write(&path, format!("{text}\n")).map_err(|e| format!("cannot write {}: {e}", path.display()))?;
        }
    }
    let _ = std::fs::remove_dir_all(&work);
    print(format!("{}\n", rows.join("\n")))?;
    Ok(())
}

/// Grades `file` in a child process within the timeout: its report, or why there is none.
fn one(exe: &Path, a: &Grade, file: &Path, report: &Path, errors: &Path) -> Result<serde_json::Value, String> {
    let err = std::fs::File::create(errors).map_err(|e| format!("cannot create {}: {e}", errors.display()))?;
    let mut child = Command::new(exe)
        .args(["grade", &a.assignment, "--lang", &a.lang, "--base", &a.base, "--single"])
        .arg(file)
        .arg("--report")
        .arg(report)
        .arg("--")
        .arg(file)
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(err)
        .spawn()
        .map_err(|e| format!("cannot start the grader: {e}"))?;
    let start = std::time::Instant::now();
    let status = loop {
        if let Some(s) = child.try_wait().map_err(|e| e.to_string())? {
            break s;
        }
        if start.elapsed().as_secs() >= a.timeout {
            let _ = child.kill();
            let _ = child.wait();
            return Err(format!("stopped after {} s (--timeout)", a.timeout));
        }
        std::thread::sleep(std::time::Duration::from_millis(20));
    };
    if !status.success() {
        let text = std::fs::read_to_string(errors).unwrap_or_default();
        let last = text.lines().rev().find(|l| !l.trim().is_empty()).unwrap_or("").trim().to_string();
        return Err(format!("the grader failed ({status}): {last}"));
    }
    let text = std::fs::read_to_string(report).map_err(|e| format!("no report: {e}"))?;
    serde_json::from_str(&text).map_err(|e| format!("a damaged report: {e}"))
}
