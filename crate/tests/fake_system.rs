//! A system the app does not ship: `tests/data/fake-system/kiln.py`, a made-up three-member
//! cluster that elects a leader per epoch and logs it in a format of its own, run here for a few
//! seeds; its logs imported by the CLI through the mapping written for it
//! (`tests/data/fake-system/kiln-mapping.json`). The trace must name the leader and epoch the
//! system reported, show the killed member down, and conform to Raft's rules.

use serde_json::Value;
use std::path::{Path, PathBuf};
use std::process::Command;

const BIN: &str = env!("CARGO_BIN_EXE_election-lab");

fn data() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/fake-system")
}

fn word_after<'a>(status: &'a str, prefix: &str, k: usize) -> &'a str {
    let line = status.lines().find(|l| l.starts_with(prefix)).unwrap_or_else(|| panic!("no '{prefix}' in {status}"));
    line.split_whitespace().nth(k).unwrap()
}

#[test]
fn a_made_up_system_imports_through_its_own_mapping_and_conforms() {
    for seed in ["7", "11", "2026"] {
        let dir = std::env::temp_dir().join(format!("election-lab-kiln-{}-{seed}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        let ran = Command::new("python3").arg(data().join("kiln.py")).arg(&dir).arg(seed).output().expect("python3");
        assert!(ran.status.success(), "kiln.py: {}", String::from_utf8_lossy(&ran.stderr));
        let status = std::fs::read_to_string(dir.join("status.txt")).unwrap();
        let logs: Vec<PathBuf> = ["ant.log", "bee.log", "cat.log"].iter().map(|n| dir.join(n)).collect();
        let trace = dir.join("trace.json");
        let out = Command::new(BIN)
            .args(["import", "--mapping"])
            .arg(data().join("kiln-mapping.json"))
            .args(&logs)
            .arg("-o")
            .arg(&trace)
            .output()
            .unwrap();
        let report = String::from_utf8_lossy(&out.stderr).into_owned();
        assert!(out.status.success(), "{report}");
        assert!(report.contains("0 damaged or unknown lines"), "{report}");
        // Members are numbered by id: ant 1, bee 2, cat 3.
        let node = |name: &str| ["ant", "bee", "cat"].iter().position(|n| *n == name).unwrap() as u64 + 1;
        let (leader, epoch) = (node(word_after(&status, "after: ", 2)), word_after(&status, "after: ", 4));
        let killed = node(word_after(&status, "killed ", 1));
        let run = Command::new(BIN).args(["run"]).arg(&trace).arg("--no-trace").output().unwrap();
        assert!(run.status.success(), "{}", String::from_utf8_lossy(&run.stderr));
        let summary: Value = serde_json::from_slice(&run.stdout).unwrap();
        assert_eq!(summary["leaders"], serde_json::json!([leader]), "seed {seed}: {status}");
        let t: Value = serde_json::from_str(&std::fs::read_to_string(&trace).unwrap()).unwrap();
        let scenario = t.get("scenario").unwrap_or(&t);
        let crashed: Vec<u64> =
            scenario["schedule"].as_array().unwrap().iter().filter_map(|x| x["crash"].as_u64()).collect();
        assert_eq!(crashed, vec![killed], "seed {seed}: the killed member is crashed");
        let leads_at = scenario["params"]["events"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|e| e["node"] == leader && e["role"] == "leader")
            .map(|e| e["term"].to_string())
            .collect::<Vec<_>>();
        assert!(leads_at.contains(&epoch.to_string()), "seed {seed}: leads at epoch {epoch}: {leads_at:?}");
        let conform = Command::new(BIN).arg("conform").arg(&trace).output().unwrap();
        let verdict = String::from_utf8_lossy(&conform.stdout);
        assert_eq!(conform.status.code(), Some(0), "seed {seed}: {verdict}");
        assert!(verdict.starts_with("conforms: every one of "), "{verdict}");
        let _ = std::fs::remove_dir_all(&dir);
    }
}
