//! Native sweeps on every core (`Sweep::run_parallel`, what `election-lab sweep` uses) give byte
//! for byte the output of one thread; `Sweep::shard(k, n)` runs the k-th of n consecutive slices,
//! and the slices' rows, one after the other, are the whole sweep's rows.

use election_lab::experiment::{Format, Sweep, READY};
use serde_json::{json, Value};

fn spec() -> Value {
    json!({
        "title": "t",
        "scenario": {"network": {"latency": [1, 3], "loss": 0.02}, "heartbeats": {"interval": 2, "timeout": 10},
                     "initial_leader": "max", "stop": {"max_time": 300}},
        "algorithms": ["bully", "raft", "paxos", "gossip"],
        "nodes": [4, 7],
        "seeds": {"count": 9},
        "schedule": [{"at": 20, "partition": "random"}, {"after": "agreement", "delay": 5, "crash": "leader"}],
        "measure": "downtime",
    })
}

fn one_thread(v: &Value) -> Sweep {
    let mut s = Sweep::from_value(v).unwrap();
    while !s.advance(7).finished() {}
    s
}

fn outputs(s: &Sweep) -> Vec<String> {
    vec![s.csv(), s.summary_csv(), s.json_lines(false), s.render(true, None, Format::Markdown).unwrap()]
}

#[test]
fn parallel_sweeps_print_what_one_thread_prints() {
    let mut specs = vec![spec()];
    // And a ready-made experiment, trimmed to a few seeds.
    let text = READY.iter().find(|r| r.0 == "split-brain-random-partitions").expect("ready-made").1;
    let mut v: Value = serde_json::from_str(text).unwrap();
    v["seeds"]["count"] = json!(6);
    specs.push(v);
    for v in specs {
        let seq = one_thread(&v);
        let mut par = Sweep::from_value(&v).unwrap();
        let p = par.run_parallel();
        assert!(p.finished() && p.total == seq.rows().len() as u64);
        assert!(seq.rows().len() >= 48, "enough runs to share out: {}", seq.rows().len());
        assert_eq!(outputs(&par), outputs(&seq));
        assert_eq!(par.steps(), seq.steps());
    }
}

#[test]
fn shards_concatenate_to_the_whole_sweep() {
    let whole = one_thread(&spec());
    let total = whole.rows().len();
    for n in [1, 2, 5, 7, total as u64 + 3] {
        let mut rows = Vec::new();
        let mut next = 0;
        for k in 1..=n {
            let mut s = Sweep::from_value(&spec()).unwrap();
            s.shard(k, n).unwrap();
            let (lo, hi) = s.span();
            assert_eq!(lo, next, "shard {k}/{n} starts where the previous one stopped");
            next = hi;
            if k % 2 == 0 {
                s.run_parallel();
            } else {
                while !s.advance(3).finished() {}
            }
            assert_eq!(s.rows().len() as u64, hi - lo);
            rows.extend(s.rows().iter().cloned());
        }
        assert_eq!(next, total as u64, "{n} shards cover every run");
        assert_eq!(rows, whole.rows(), "{n} shards");
    }
    let mut s = Sweep::from_value(&spec()).unwrap();
    assert!(s.shard(0, 3).is_err() && s.shard(4, 3).is_err() && s.shard(1, 0).is_err());
}

#[test]
fn rows_run_elsewhere_are_adopted_in_order_and_print_what_one_thread_prints() {
    let whole = one_thread(&spec());
    let rows = whole.rows().to_vec();
    let mut s = Sweep::from_value(&spec()).unwrap();
    // Out of order, or past the end, nothing is taken.
    assert!(s.adopt(rows[1..3].to_vec()).unwrap_err().contains("run 0 was expected"));
    let mut long = rows.clone();
    long.push(rows[0].clone());
    assert!(s.adopt(long).is_err());
    assert_eq!(s.progress().done, 0);
    // In two parts, in order: the sweep is the one that ran them.
    assert_eq!(s.adopt(rows[..5].to_vec()).unwrap().done, 5);
    let p = s.adopt(rows[5..].to_vec()).unwrap();
    assert!(p.finished());
    assert_eq!(outputs(&s), outputs(&whole));
    assert_eq!(s.steps(), whole.steps());
}
