//! Helpers shared by the integration tests (each test file includes this module).
#![allow(dead_code)]

pub mod graphs;
pub mod jsonl;
pub mod sentinel;

use election_lab::{Engine, NodeId, Scenario};
use serde_json::Value;

/// Parses, builds and runs a scenario to its end (quiescence or a stop limit).
pub fn run(scenario: &Value) -> Engine {
    let mut e = engine(scenario);
    e.run_to_end();
    e
}

/// Parses and builds a scenario without running it.
pub fn engine(scenario: &Value) -> Engine {
    let s = Scenario::from_value(scenario).unwrap_or_else(|err| panic!("bad scenario {scenario}: {err}"));
    Engine::new(s).expect("engine")
}

/// Messages of one kind sent so far (0 when the summary does not list the kind).
pub fn sent(e: &Engine, kind: &str) -> u64 {
    e.metrics().by_kind.iter().find(|(k, _)| *k == kind).map_or(0, |&(_, c)| c)
}

/// Every live node's leader view, in scenario order.
pub fn views(e: &Engine) -> Vec<(NodeId, Option<NodeId>)> {
    e.frame().nodes.iter().filter(|n| n.up).map(|n| (n.id, n.view.leader)).collect()
}

/// True when every live node names `leader` and `leader` is the only self-declared leader.
pub fn all_agree_on(e: &Engine, leader: NodeId) -> bool {
    let f = e.frame();
    f.leaders == vec![leader] && f.agreement == Some(leader) && views(e).iter().all(|&(_, l)| l == Some(leader))
}

/// Violations of one kind seen up to the cursor.
pub fn violations_of<'a>(e: &'a Engine, kind: &str) -> Vec<&'a election_lab::observe::Violation> {
    e.violations().iter().filter(|v| v.kind == kind).collect()
}

/// The committed cluster logs of one folder under `tests/data/real`: (file name, text) for
/// every `.log` file, in name order.
pub fn real_logs(dir: &str) -> Vec<(String, String)> {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/real").join(dir);
    let mut out: Vec<(String, String)> = std::fs::read_dir(&root)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|x| x == "log"))
        .map(|p| (p.file_name().unwrap().to_string_lossy().into_owned(), std::fs::read_to_string(&p).unwrap()))
        .collect();
    out.sort();
    out
}

/// `files` (as [`real_logs`] reads them) with the lines of `file` changed by `edit`: the way the
/// tests damage or extend one member's log.
pub fn edit_log(files: &[(String, String)], file: &str, edit: impl Fn(&mut Vec<String>)) -> Vec<(String, String)> {
    let one = |text: &str| {
        let mut lines: Vec<String> = text.lines().map(str::to_string).collect();
        edit(&mut lines);
        lines.join("\n") + "\n"
    };
    files.iter().map(|(name, text)| (name.clone(), if name == file { one(text) } else { text.clone() })).collect()
}

/// The CLI refused its input as bad: exit 2, nothing on standard output, and a message that
/// says `says` (`case` names the call in a failure).
pub fn assert_refused(out: &std::process::Output, says: &str, case: &str) {
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{case}: {err}");
    assert!(err.contains(says), "{case}: {err}");
    assert!(out.stdout.is_empty(), "{case}");
}

/// The CLI started on `args` with its standard input, output and error piped.
pub fn piped_cli(args: &[&str]) -> std::process::Child {
    use std::process::{Command, Stdio};
    Command::new(env!("CARGO_BIN_EXE_election-lab"))
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("run the binary")
}

/// The CLI as a command, to be given its arguments.
pub fn cli() -> std::process::Command {
    std::process::Command::new(env!("CARGO_BIN_EXE_election-lab"))
}

/// A fresh, empty folder for one test's files: `election-lab-<name>-<pid>` in the system's
/// temporary folder.
pub fn temp_dir(name: &str) -> std::path::PathBuf {
    let d = std::env::temp_dir().join(format!("election-lab-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap();
    d
}

/// The path of a shipped script template (`crate/scripts/<name>`).
pub fn script_template(name: &str) -> String {
    format!("{}/scripts/{name}", env!("CARGO_MANIFEST_DIR"))
}

/// Writes `text` to the file `name` in the folder `d`; the file's path.
pub fn write_file(d: &std::path::Path, name: &str, text: &str) -> std::path::PathBuf {
    let file = d.join(name);
    std::fs::write(&file, text).unwrap();
    file
}
