//! A sweep on a real Slurm cluster: a one-node cluster on this machine (munge, slurmctld and
//! slurmd on 127.0.0.1, every file under a temporary directory; `scripts/slurm-local.sh`), and
//! `scripts/slurm-sweep.sh` submitting a ready-made experiment as an array of 4 tasks and a
//! dependent merge job. The merged rows, summary, Markdown summary and plot must be byte for byte
//! what `election-lab sweep` writes for the same spec on one machine. Then again with a task that
//! fails once: the merge job must not run (Slurm cancels it), the failure must name its slice,
//! and `--resubmit` must run that slice alone and merge the same output.
//!
//! Needs Debian's slurm-wlm and munge, and root (slurmd starts the jobs): `make test` installs
//! them; without them the test fails (never skips) and says so. Every wait polls for its
//! condition within a generous bound; a guard cancels the jobs and stops the three daemons by
//! their pid files when the test ends, however it ends.

use std::net::TcpListener;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use std::time::{Duration, Instant};

const BIN: &str = env!("CARGO_BIN_EXE_election-lab");
/// The ready-made experiment submitted (250 runs: seconds, even in a debug build).
const SPEC: &str = "experiments/gossip-convergence.json";

fn repo() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).parent().unwrap().to_path_buf()
}

fn have(cmd: &str) -> bool {
    Command::new("sh").arg("-c").arg(format!("command -v {cmd}")).output().is_ok_and(|o| o.status.success())
}

fn text(o: &Output) -> String {
    format!("{}{}", String::from_utf8_lossy(&o.stdout), String::from_utf8_lossy(&o.stderr))
}

/// Cancels what is left of the cluster's jobs and stops its daemons by their pid files (the
/// script's `stop`, then SIGKILL for any pid it recorded that is still alive).
struct Cluster {
    dir: PathBuf,
    conf: PathBuf,
}

impl Cluster {
    fn start(dir: &Path) -> Cluster {
        let missing: Vec<&str> = ["munged", "slurmctld", "slurmd", "sbatch", "squeue", "scontrol", "scancel"]
            .into_iter()
            .filter(|c| !have(c))
            .collect();
        assert!(
            missing.is_empty(),
            "Slurm is not installed (missing: {}): `make test` installs Debian's slurm-wlm and munge",
            missing.join(", ")
        );
        // Two free ports on loopback, so that the cluster clashes with nothing else running.
        let port = || TcpListener::bind("127.0.0.1:0").unwrap();
        let (a, b) = (port(), port());
        let ports = format!("{} {}", a.local_addr().unwrap().port(), b.local_addr().unwrap().port());
        drop((a, b));
        let cluster = Cluster { dir: dir.to_path_buf(), conf: dir.join("slurm.conf") };
        let o = Command::new("timeout")
            .args(["--kill-after=10", "120", "bash"])
            .arg(repo().join("scripts/slurm-local.sh"))
            .arg("start")
            .arg(dir)
            .env("SLURM_LOCAL_PORTS", &ports)
            .output()
            .expect("bash and timeout");
        assert!(o.status.success(), "scripts/slurm-local.sh start failed ({}):\n{}", o.status, text(&o));
        cluster
    }

    fn command(&self, program: &str) -> Command {
        let mut c = Command::new(program);
        c.env("SLURM_CONF", &self.conf).current_dir(repo());
        c
    }

    /// The state of job `id` (`COMPLETED`, `CANCELLED`, ...), polled until it has ended.
    fn wait(&self, id: &str, what: &str, out: &Path) -> String {
        let bound = Duration::from_secs(600);
        let start = Instant::now();
        loop {
            let o = self.command("scontrol").args(["show", "job", "-o", id]).output().unwrap();
            let line = String::from_utf8_lossy(&o.stdout).into_owned();
            let state = line.split_whitespace().find_map(|w| w.strip_prefix("JobState=")).unwrap_or("").to_string();
            if ["COMPLETED", "FAILED", "CANCELLED", "TIMEOUT", "NODE_FAIL", "OUT_OF_MEMORY", "BOOT_FAIL", "DEADLINE"]
                .contains(&state.as_str())
            {
                return line;
            }
            if start.elapsed() > bound {
                let status =
                    self.command("bash").arg("scripts/slurm-sweep.sh").arg("--status").arg(out).output().unwrap();
                panic!("{what} (job {id}) has not ended after {bound:?}: {line}\n{}", text(&status));
            }
            std::thread::sleep(Duration::from_millis(200));
        }
    }
}

impl Drop for Cluster {
    fn drop(&mut self) {
        let _ = self.command("timeout").args(["10", "scancel", "--partition=local"]).status();
        let _ = Command::new("timeout")
            .args(["--kill-after=5", "60", "bash"])
            .arg(repo().join("scripts/slurm-local.sh"))
            .arg("stop")
            .arg(&self.dir)
            .status();
        if let Ok(pids) = std::fs::read_to_string(self.dir.join("pids")) {
            for pid in pids.lines().filter_map(|l| l.split_whitespace().nth(1)) {
                if pid.bytes().all(|c| c.is_ascii_digit()) {
                    let _ = Command::new("kill").arg("-KILL").arg(pid).stderr(Stdio::null()).status();
                }
            }
        }
    }
}

/// The job ids `slurm-sweep.sh` recorded: the last array job and merge job.
fn jobs(out: &Path) -> (String, String) {
    let jobs = std::fs::read_to_string(out.join("jobs")).unwrap();
    let last = |kind: &str| {
        jobs.lines()
            .rev()
            .find_map(|l| l.strip_prefix(kind))
            .and_then(|rest| rest.split_whitespace().next())
            .unwrap_or_else(|| panic!("no {kind} job in {jobs}"))
            .to_string()
    };
    (last("array "), last("merge "))
}

/// What `election-lab sweep` writes for the spec on one machine, as the merge job's files.
fn one_machine(dir: &Path) -> Vec<(&'static str, Vec<u8>)> {
    let spec = repo().join(SPEC);
    let sweep = |args: &[&str]| {
        let o = Command::new(BIN).arg("sweep").arg(&spec).args(args).output().unwrap();
        assert!(o.status.success(), "{}", text(&o));
        o.stdout
    };
    let svg = dir.join("one-machine.svg");
    let rows = sweep(&["--svg", svg.to_str().unwrap()]);
    vec![
        ("rows.csv", rows),
        ("summary.csv", sweep(&["--summary"])),
        ("summary.md", sweep(&["--summary", "--markdown"])),
        ("plot.svg", std::fs::read(svg).unwrap()),
    ]
}

fn assert_merged(out: &Path, expected: &[(&str, Vec<u8>)]) {
    for (file, want) in expected {
        let got = std::fs::read(out.join(file)).unwrap_or_else(|e| panic!("{}: {e}", out.join(file).display()));
        assert!(&got == want, "{file} of the Slurm sweep differs from `election-lab sweep {SPEC}`'s");
    }
}

#[test]
fn a_sweep_as_a_slurm_job_array_merges_to_the_one_machine_output() {
    assert!(
        Command::new("id").arg("-u").output().is_ok_and(|o| o.stdout == b"0\n"),
        "the one-node Slurm cluster runs slurmd as root (it starts jobs as their users): run the test as root"
    );
    let dir = std::env::temp_dir().join(format!("election-lab-test-slurm-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    let cluster = Cluster::start(&dir.join("cluster"));
    let expected = one_machine(&dir);
    let submit = |out: &Path, bin: &Path| {
        let o = cluster
            .command("bash")
            .arg("scripts/slurm-sweep.sh")
            .arg(SPEC)
            .arg("4")
            .arg(out)
            .env("ELECTION_LAB", bin)
            .output()
            .unwrap();
        assert!(o.status.success(), "scripts/slurm-sweep.sh failed ({}):\n{}", o.status, text(&o));
    };

    // Four tasks, then the merge.
    let out = dir.join("sweep");
    submit(&out, Path::new(BIN));
    let (array, merge) = jobs(&out);
    let state = cluster.wait(&merge, "the merge job", &out);
    assert!(state.contains("JobState=COMPLETED"), "{state}");
    for k in 1..=4 {
        let task = cluster.wait(&format!("{array}_{k}"), "a task", &out);
        assert!(task.contains("JobState=COMPLETED"), "task {k}: {task}");
        let part = std::fs::read_to_string(out.join(format!("parts/part-{k}.csv"))).unwrap();
        assert!(part.starts_with(&format!("# election-lab sweep part {{\"slice\":\"{k}/4\"")), "{part}");
    }
    assert_merged(&out, &expected);

    // Slice 3 fails once: no merge, the failure named, then slice 3 alone and the merge again.
    let flaky = dir.join("flaky.sh");
    std::fs::write(
        &flaky,
        format!(
            "#!/bin/sh\nif [ \"$SLURM_ARRAY_TASK_ID\" = 3 ] && mkdir {0} 2>/dev/null; then echo 'failing once' >&2; exit 7; fi\nexec {1} \"$@\"\n",
            dir.join("failed-once").display(),
            BIN
        ),
    )
    .unwrap();
    assert!(Command::new("chmod").arg("+x").arg(&flaky).status().unwrap().success());
    let out = dir.join("flaky-sweep");
    submit(&out, &flaky);
    let (array, merge) = jobs(&out);
    for k in 1..=4 {
        cluster.wait(&format!("{array}_{k}"), "a task", &out);
    }
    let state = cluster.wait(&merge, "the merge job", &out);
    assert!(state.contains("JobState=CANCELLED") && state.contains("DependencyNeverSatisfied"), "{state}");
    assert!(!out.join("rows.csv").exists(), "no merge on an incomplete set");
    let status = cluster.command("bash").arg("scripts/slurm-sweep.sh").arg("--status").arg(&out).output().unwrap();
    let status = text(&status);
    assert!(status.contains("failed: slice 3/4 failed (exit 7) on "), "{status}");
    assert!(status.contains(&format!("job {array}_3")) && status.contains("3 of 4 slices done"), "{status}");
    let log = std::fs::read_to_string(out.join("logs/task-3.err")).unwrap();
    assert!(log.contains("slice 3/4 failed (exit 7)") && log.contains("--resubmit"), "{log}");
    // The merge itself refuses the incomplete set, naming the missing slice.
    let o = cluster.command("bash").arg(out.join("merge.sh")).output().unwrap();
    assert_eq!(o.status.code(), Some(2), "{}", text(&o));
    assert!(text(&o).contains("--merge: missing slice 3/4"), "{}", text(&o));

    let o = cluster.command("bash").arg("scripts/slurm-sweep.sh").arg("--resubmit").arg(&out).output().unwrap();
    assert!(o.status.success(), "--resubmit failed: {}", text(&o));
    let (again, merge) = jobs(&out);
    assert_ne!(again, array);
    assert!(
        std::fs::read_to_string(out.join("jobs")).unwrap().contains(&format!("array {again} 3\n")),
        "slice 3 alone"
    );
    let state = cluster.wait(&merge, "the new merge job", &out);
    assert!(state.contains("JobState=COMPLETED"), "{state}");
    assert_merged(&out, &expected);

    drop(cluster);
    let _ = std::fs::remove_dir_all(&dir);
}
