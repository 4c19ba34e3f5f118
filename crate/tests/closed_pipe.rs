//! The command line stops quietly when its reader goes away, as `grep` and `rg` do:
//! `election-lab run x.json --trace - | head -1` exits with 0 and prints nothing on standard
//! error. Each test reads one line, closes the pipe, and waits for the binary: the outputs are
//! several megabytes, far more than a pipe holds, so the binary is still writing when the
//! pipe closes and its next write fails with a broken pipe.

use serde_json::json;
use std::io::{BufRead, BufReader, Write};

mod common;

/// Runs the binary on `input` (its standard input), reads the first line of its output, closes
/// the pipe, and checks that it exited with 0 and wrote nothing on standard error.
fn head_1(args: &[&str], input: &str) {
    let mut child = common::piped_cli(args);
    child.stdin.take().unwrap().write_all(input.as_bytes()).unwrap();
    let mut first = String::new();
    BufReader::new(child.stdout.take().unwrap()).read_line(&mut first).unwrap();
    // The reader (and with it the pipe's only read end) is dropped here.
    assert!(first.ends_with('\n'), "{args:?}: a first line, not {first:?}");
    let out = child.wait_with_output().unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(0), "{args:?}: exit {:?}, stderr: {stderr}", out.status);
    assert_eq!(stderr, "", "{args:?}: a closed pipe is not an error");
}

/// A long run's trace (about 2 MB of JSON Lines) to a pipe closed after its header.
#[test]
fn run_trace_to_a_closed_pipe_exits_quietly() {
    let scenario = json!({
        "algorithm": "bully", "nodes": [1, 2, 3, 4, 5, 6], "seed": 7,
        "heartbeats": {"interval": 3, "timeout": 12},
        "schedule": [{"at": 100, "crash": 6}, {"at": 2000, "recover": 6}],
        "stop": {"max_time": 8000},
    });
    head_1(&["run", "-", "--trace", "-"], &scenario.to_string());
}

/// A sweep's CSV (thousands of rows) to a pipe closed after its header.
#[test]
fn sweep_to_a_closed_pipe_exits_quietly() {
    let spec = json!({
        "scenario": {"network": {"latency": [1, 1]}, "heartbeats": null},
        "algorithms": [{"algorithm": "bully", "set": {"initial_leader": "max"}, "seeds": {"count": 300},
                        "schedule": [{"at": 0, "crash": "max"}, {"at": 0, "start": "others"}]}],
        "nodes": {"from": 3, "to": 12},
    });
    head_1(&["sweep", "-"], &spec.to_string());
}
