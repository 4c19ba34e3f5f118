//! Experiments (sweeps): deterministic, the same numbers however they are chunked, the
//! documented columns, and the statistics the papers give: Chang and Roberts' N·H_N average over
//! random rings, Garcia-Molina's N²−N−1 worst case for Bully, and the time Raft takes to replace
//! a crashed leader (Ongaro & Ousterhout 2014, Figure 16).

use election_lab::experiment::{Format, Measure, Sweep, COLUMNS, READY, SUMMARY_COLUMNS};
use election_lab::registry;
use serde_json::{json, Value};

fn sweep(spec: &Value) -> Sweep {
    let mut s = Sweep::from_value(spec).unwrap_or_else(|e| panic!("bad spec: {e}"));
    while !s.advance(1000).finished() {}
    s
}

fn ready(id: &str) -> Value {
    serde_json::from_str(READY.iter().find(|r| r.0 == id).expect("ready-made experiment").1).unwrap()
}

/// Raft's Figure 16 experiment reduced to `lines` (by label) and `seeds` runs each.
fn figure_16(lines: &[&str], seeds: u64) -> Value {
    let mut spec = ready("raft-figure-16-randomness");
    let variants: Vec<Value> = spec["variants"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|v| lines.contains(&v["label"].as_str().unwrap()))
        .cloned()
        .collect();
    assert_eq!(variants.len(), lines.len());
    spec["variants"] = Value::Array(variants);
    spec["seeds"] = json!({"count": seeds});
    spec["reference"] = json!([]);
    spec
}

fn harmonic(n: u64) -> f64 {
    (1..=n).map(|k| 1.0 / k as f64).sum()
}

/// A small spec mixing random choices of every sort: shuffled rings, a random partition, timer
/// jitter, a fault after the first agreement.
fn mixed() -> Value {
    json!({
        "scenario": {"network": {"latency": [1, 3]}, "heartbeats": {"interval": 2, "timeout": 10}, "stop": {"max_time": 300}},
        "algorithms": [
            {"algorithm": "chang-roberts", "order": "random", "schedule": [{"at": 0, "start": "all"}]},
            {"algorithm": "raft", "schedule": [{"after": "agreement", "delay": 3, "crash": "leader"}, {"at": 150, "partition": "random"}]},
            {"algorithm": "bully", "schedule": [{"at": 5, "crash": "random"}, {"at": 6, "start": "min"}]}
        ],
        "nodes": [4, 7],
        "seeds": {"count": 9, "start": 40},
        "measure": "messages"
    })
}

#[test]
fn a_sweep_is_deterministic() {
    let (a, b) = (sweep(&mixed()), sweep(&mixed()));
    assert_eq!(a.rows().len(), 3 * 2 * 9);
    assert_eq!(a.csv(), b.csv());
    assert_eq!(a.summary_csv(), b.summary_csv());
    // Seeds matter: the runs of one line at one N are not all the same run.
    let hashes: std::collections::BTreeSet<u64> =
        a.rows().iter().filter(|r| r.line == 1 && r.nodes == 7).map(|r| r.trace_hash).collect();
    assert!(hashes.len() > 5, "{hashes:?}");
    // Another start seed gives other runs.
    let mut other = mixed();
    other["seeds"]["start"] = json!(41);
    let c = sweep(&other);
    assert_ne!(a.csv(), c.csv());
    // Run k of a sweep is the same whichever sweep it is part of (seed 41 is run 1 above).
    assert_eq!(a.rows()[1].trace_hash, c.rows()[0].trace_hash);
}

#[test]
fn chunked_advance_equals_one_shot() {
    let whole = sweep(&mixed());
    for chunk in [1, 7] {
        let mut s = Sweep::from_value(&mixed()).unwrap();
        let mut last = s.progress();
        assert_eq!(last.done, 0);
        while !s.progress().finished() {
            let p = s.advance(chunk);
            assert!(p.done > last.done && p.done - last.done <= chunk && p.total == whole.rows().len() as u64);
            last = p;
        }
        assert_eq!(s.csv(), whole.csv(), "chunks of {chunk}");
    }
    let mut s = Sweep::from_value(&mixed()).unwrap();
    let mut calls = 0;
    while !s.advance_steps(500).finished() {
        calls += 1;
    }
    assert!(calls > 2, "a step budget cuts the sweep into several chunks");
    assert_eq!(s.csv(), whole.csv());
    assert_eq!(s.steps(), whole.steps());
    assert_eq!(s.svg(election_lab::meta::Lang::En), whole.svg(election_lab::meta::Lang::En));
}

#[test]
fn the_csv_has_the_documented_columns() {
    let s = sweep(&mixed());
    for (summary, columns, rows) in [(false, COLUMNS, s.rows().len()), (true, SUMMARY_COLUMNS, 3 * 2)] {
        let csv = s.render(summary, None, Format::Csv).unwrap();
        let mut lines = csv.lines();
        assert_eq!(lines.next().unwrap(), columns.join(","));
        let body: Vec<&str> = lines.collect();
        assert_eq!(body.len(), rows);
        for l in &body {
            assert_eq!(l.split(',').count(), columns.len(), "{l}");
        }
        let json: Vec<Value> = s.json_lines(summary).lines().map(|l| serde_json::from_str(l).unwrap()).collect();
        assert_eq!(json.len(), rows);
        for (o, l) in json.iter().zip(&body) {
            let keys: Vec<&String> = o.as_object().unwrap().keys().collect();
            assert_eq!(keys.len(), columns.len());
            // The same numbers: every CSV cell is the JSON value written out.
            for (c, cell) in columns.iter().zip(l.split(',')) {
                let v = &o[*c];
                let text = match v {
                    Value::Null => String::new(),
                    Value::String(t) => t.clone(),
                    Value::Number(x) if x.is_f64() => format!("{:.3}", x.as_f64().unwrap()),
                    x => x.to_string(),
                };
                assert_eq!(text, cell, "column {c}");
            }
        }
    }
    let picked = s.render(true, Some(&["nodes".into(), "line".into()]), Format::Csv).unwrap();
    assert!(picked.starts_with("nodes,line\n4,Chang-Roberts ring\n7,Chang-Roberts ring\n"), "{picked}");
    assert!(s.render(true, Some(&["colour".into()]), Format::Csv).unwrap_err().contains("no column 'colour'"));
    let md = s.render(true, Some(&["line".into(), "runs".into()]), Format::Markdown).unwrap();
    assert!(md.starts_with("| line | runs |\n|---|---|\n| Chang-Roberts ring | 9 |\n"), "{md}");
}

/// Chang & Roberts 1979: with every node starting on a random ring, the ELECTION messages
/// average N·H_N. The spread of one ring's count is about 0.13·N·H_N, so over 500 rings the
/// mean lies within 1 % of it with high probability; 3 % would need a systematic error.
#[test]
fn chang_roberts_averages_n_h_n_over_random_rings() {
    let mut spec = ready("messages-vs-n");
    spec["algorithms"] = json!([spec["algorithms"][1]]);
    spec["algorithms"][0]["seeds"] = json!({"count": 500});
    spec["nodes"] = json!([16, 32]);
    let s = sweep(&spec);
    let groups = s.summary();
    assert_eq!(groups.len(), 2);
    for g in groups {
        let n = g.nodes as u64;
        let expected = n as f64 * harmonic(n);
        let st = g.stats.unwrap();
        assert_eq!(st.n, 500);
        let error = (st.mean - expected).abs() / expected;
        assert!(error < 0.03, "N = {n}: mean {} against N·H_N = {expected:.2} ({:.1} % off)", st.mean, error * 100.0);
        // The declared formula is N·H_N rounded, drawn beside the measurements.
        assert_eq!(g.theory, Some(expected.round() as u64));
        // Rings differ: not one ring 500 times.
        assert!(st.max > st.min + 10.0, "{st:?}");
    }
}

/// Garcia-Molina 1982: the top id crashed and every other node starts at once costs exactly
/// N²−N−1 messages (ELECTION N(N−1)/2, OK (N−1)(N−2)/2, COORDINATOR N−2).
#[test]
fn bully_worst_case_is_n2_minus_n_minus_1_exactly() {
    let mut spec = ready("messages-vs-n");
    spec["algorithms"] = json!([spec["algorithms"][0]]);
    spec["nodes"] = json!({"from": 3, "to": 12});
    let s = sweep(&spec);
    assert_eq!(s.rows().len(), 10);
    for r in s.rows() {
        let n = r.nodes as u64;
        assert_eq!(r.counted, n * n - n - 1, "N = {n}");
        assert_eq!(r.theory, Some(n * n - n - 1));
        assert_eq!(r.agreement, Some(r.nodes - 1), "the second highest id leads");
        assert!(r.quiescent);
    }
}

/// Ongaro & Ousterhout 2014, §9.3: with election timeouts of 150–300 ms most elections finish
/// in the first round. The first of the four followers' timers runs out after about
/// 150 + 150·(1 − 0.5^¼) ≈ 174 ms at the median, and a vote round trip plus the new leader's
/// first APPEND_ENTRIES add about 3 one-way latencies (3 × 6 ms), so the median should be
/// near 200 ms, and far below the 300 ms at which a split vote's second round would begin.
#[test]
fn raft_figure_16_median_of_150_300_is_near_the_papers() {
    let s = sweep(&figure_16(&["150–300 ms"], 1000));
    let g = &s.summary()[0];
    assert_eq!(s.measure, Measure::Downtime);
    let st = g.stats.as_ref().unwrap();
    assert_eq!((g.runs, st.n), (1000, 1000), "every trial elects a new leader");
    assert!((180.0..=260.0).contains(&st.median), "median {}", st.median);
    assert!(st.min >= 150.0, "no election before a timeout runs out: {}", st.min);
    assert_eq!(g.end_one, 1000, "each run stops with one leader");
}

/// The paper's top graph: more randomness, fewer split votes, shorter downtime.
#[test]
fn raft_figure_16_more_randomness_elects_sooner() {
    let s = sweep(&figure_16(&["150–151 ms", "150–155 ms", "150–200 ms"], 300));
    let medians: Vec<f64> = s.summary().iter().map(|g| g.stats.as_ref().unwrap().median).collect();
    assert!(medians[0] > medians[1] && medians[1] > medians[2], "{medians:?}");
}

/// `"algorithms": "all"` takes every registered algorithm, and what each claims about a single
/// leader. The partition {1,2} | {3,4,5} with the leader N5: Bully's minority elects N2 in
/// every run (split brain), Raft's minority never reaches a majority.
#[test]
fn one_partition_covers_every_algorithm() {
    let mut spec = ready("one-partition");
    spec["seeds"] = json!({"count": 20});
    let s = sweep(&spec);
    let ids: Vec<&str> = s.lines().iter().map(|l| l.algorithm.id).collect();
    let registered: Vec<&str> = registry::all().iter().map(|a| a.id).collect();
    assert_eq!(ids, registered);
    let groups = s.summary();
    let of = |id: &str| groups.iter().find(|g| s.lines()[g.line].algorithm.id == id).unwrap();
    assert_eq!(of("bully").minority_leader, 20);
    assert_eq!(of("bully").end_two, 20);
    assert_eq!(of("raft").minority_leader, 0);
    assert_eq!(of("raft").end_one, 20);
    let line = |id: &str| s.lines().iter().position(|l| l.algorithm.id == id).unwrap();
    assert_eq!(s.claim(line("raft")), "crash-stop");
    assert_eq!(s.claim(line("hirschberg-sinclair")), "any");
}

/// `{"after": "agreement", "crash": "leader"}`: the leader elected from cold is crashed, and
/// with `until: agreement` the run stops at the next agreement, whose downtime is measured.
#[test]
fn a_fault_after_agreement_crashes_the_elected_leader() {
    let spec = json!({
        "scenario": {"algorithm": "raft", "nodes": [1, 2, 3, 4, 5], "network": {"latency": [1, 4]},
                     "heartbeats": {"interval": 5, "timeout": 40}, "stop": {"max_time": 5000}},
        "schedule": [{"after": "agreement", "delay": 10, "crash": "leader"}],
        "until": "agreement",
        "seeds": {"count": 30},
        "measure": "downtime"
    });
    let s = sweep(&spec);
    for r in s.rows() {
        assert_eq!(r.elections, 2, "the cold election and the one after the crash: {r:?}");
        assert_eq!(r.leaders, 1);
        let d = r.downtime.expect("a new leader");
        // Nobody stands before its election timeout (40–80 ticks) runs out.
        assert!(d >= 30, "{d}");
    }
    assert!(s.rows().iter().all(|r| r.agreement.is_some()));
    // Any run can be replayed alone, and its trace (with the crash as an intervention) opens
    // at the same step with the same hash.
    for k in [0, 17] {
        let e = s.replay(k).unwrap();
        assert_eq!(e.trace_hash(), s.rows()[k as usize].trace_hash);
        assert_eq!(e.interventions().len(), 1);
        let again = election_lab::Engine::from_trace_value(&e.trace_value()).unwrap();
        assert_eq!((again.cursor(), again.trace_hash()), (e.cursor(), e.trace_hash()));
    }
    assert!(s.replay(30).is_none());
    // Timer jitter and latency differ by seed, and so do the downtimes.
    let st = s.summary()[0].stats.clone().unwrap();
    assert!(st.max > st.min, "{st:?}");
}

#[test]
fn bad_specs_name_the_field() {
    let err = |v: Value| Sweep::from_value(&v).unwrap_err().to_string();
    let base = || json!({"scenario": {"algorithm": "bully", "nodes": [1, 2, 3]}});
    let with = |k: &str, v: Value| {
        let mut b = base();
        b[k] = v;
        b
    };
    assert!(err(with("measure", json!("speed"))).starts_with("measure: unknown measure 'speed'"));
    assert!(err(with("algorithms", json!([{"algorithm": "bully", "formula": "N³"}])))
        .starts_with("algorithms[0].formula: bully declares no formula 'N³'"));
    assert!(err(with("algorithms", json!(["no-such-algorithm"]))).contains("unknown algorithm 'no-such-algorithm'"));
    assert!(err(with("schedule", json!([{"at": 0, "crash": "biggest"}])))
        .starts_with("schedule[0].crash: unknown node 'biggest'"));
    assert!(err(with("schedule", json!([{"at": 0, "crash": 9}]))).contains("schedule[0].crash: unknown node 9"));
    assert!(err(with("schedule", json!([{"at": 0, "crash": "leader"}]))).contains("\"leader\" needs \"after\""));
    assert!(err(with("nodes", json!({"from": 5, "to": 3}))).starts_with("nodes:"));
    assert!(err(with("colour", json!(1))).contains("unknown field `colour`"));
    assert!(err(with("seeds", json!({"count": 20_000_000}))).starts_with("seeds: 20000000 runs is more than"));
    let mut v = with("variants", json!([{"label": "x", "set": {"params": {"t_out": "soon"}}}]));
    v["variants"][0]["label"] = json!("x");
    assert!(err(v).contains("params.t_out"), "the protocol's own check runs when the sweep is built");
    assert!(err(with("reference", json!([{"line": "nope", "x": 1, "y": 1, "label": "p"}])))
        .starts_with("reference[0].line"));
    assert!(err(with("reference", json!([{"x": 1, "points": [[1, 2], [3, 4]], "label": "p"}])))
        .starts_with("reference[0]: give x and y"));
    assert!(err(with("reference", json!([{"points": [[1, 2]], "label": "p"}])))
        .starts_with("reference[0].points: expected at least two"));
    assert!(err(with("divide", json!(0))).starts_with("divide: must be above 0"));
}

#[test]
fn every_ready_made_experiment_builds_and_its_file_is_the_same() {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../experiments");
    let mut files: Vec<String> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().into_string().unwrap())
        .filter(|f| f.ends_with(".json"))
        .collect();
    files.sort();
    let mut ids: Vec<String> = READY.iter().map(|r| format!("{}.json", r.0)).collect();
    ids.sort();
    assert_eq!(files, ids, "every spec in experiments/ is offered, and only those");
    for (id, text) in READY {
        let s = Sweep::from_json(text).unwrap_or_else(|e| panic!("{id}: {e}"));
        assert!(s.progress().total > 0 && !s.lines().is_empty(), "{id}");
        assert_eq!(std::fs::read_to_string(dir.join(format!("{id}.json"))).unwrap(), *text);
    }
}

/// Push gossip (Demers et al. 1987) informs everyone in O(log N) periods: with two peers a
/// period the informed set about triples each period, so the mean lies above log₃ N and, with
/// the tail of the last few nodes (Pittel 1987), below log₃ N + ln N. `divide` turns ticks into
/// periods; the theory curves of the spec are drawn as dashed series.
#[test]
fn gossip_converges_in_logarithmically_many_periods() {
    let mut spec = ready("gossip-convergence");
    spec["nodes"] = json!([16, 128]);
    spec["seeds"] = json!({"count": 30});
    let s = sweep(&spec);
    assert_eq!(s.divide, 10.0);
    let groups = s.summary();
    for g in &groups {
        let n = g.nodes as f64;
        let mean = g.stats.as_ref().unwrap().mean;
        assert!(mean > n.log(3.0) && mean < n.log(3.0) + n.ln(), "N = {n}: {mean} periods");
        // The rows keep ticks.
        let ticks: f64 =
            s.rows().iter().filter(|r| r.nodes == g.nodes).map(|r| r.downtime.unwrap() as f64).sum::<f64>() / 30.0;
        assert!((ticks / 10.0 - mean).abs() < 1e-9);
    }
    assert!(
        groups[1].stats.as_ref().unwrap().mean > groups[0].stats.as_ref().unwrap().mean + 1.0,
        "eight times the nodes, more periods"
    );
    let chart = s.chart(election_lab::meta::Lang::En);
    let dashed: Vec<&str> = chart.series.iter().filter(|x| x.dashed).map(|x| x.label.as_str()).collect();
    assert_eq!(dashed, ["log₃ N", "log₃ N + ln N / 2"]);
}
