//! Traces both ways and runs compared: the JSON Lines a run writes (with the per-node state
//! each step changed and the violations it began) read back to the same run, a hand-edited
//! line named; `diff` finds the first divergence of two runs, found here by a plain scan.

use election_lab::diff::{diff, Cause};
mod common;

use common::jsonl::{lines, text};
use election_lab::{presets, Action, Engine, Scenario};
use serde_json::{json, Value};

fn with_schedule(preset: &str, schedule: Value) -> Scenario {
    let mut v = presets::find(preset).unwrap().scenario().to_value();
    v["schedule"] = schedule;
    Scenario::from_value(&v).unwrap()
}

fn bully_split() -> Scenario {
    with_schedule("split-brain-bully", json!([{"at": 5, "partition": [[1, 2], [3, 4, 5]]}]))
}

fn raft_split() -> Scenario {
    with_schedule("split-brain-raft", json!([{"at": 20, "partition": [[1, 2], [3, 4, 5]]}]))
}

#[test]
fn a_written_trace_reads_back_to_the_same_run() {
    let mut e = Engine::new(raft_split()).unwrap();
    e.run(30);
    e.apply(Action::Crash(4)).unwrap();
    e.run_to_end();
    let ls = lines(&mut e);
    assert_eq!(ls.len() as u64, 1 + e.cursor() + 1 + 1, "header, a line per step, the intervention, the summary");
    let back = Engine::from_trace_json(&text(&ls)).unwrap();
    assert_eq!(back.cursor(), e.cursor());
    assert_eq!(back.trace_hash(), e.trace_hash());
    assert_eq!(back.summary(), e.summary());
    // The intervention line carries the crashed node's new state.
    let iv = ls.iter().find(|l| l.get("intervention_at_step").is_some()).unwrap();
    assert_eq!(iv["intervention_at_step"], json!(30));
    assert_eq!(iv["crash"], json!(4));
    assert_eq!(iv["state"]["4"]["up"], json!(false));
    // What the first writer wrote (no state, no violations, interventions without a time)
    // still reads.
    let mut old = ls.clone();
    for l in old.iter_mut() {
        let o = l.as_object_mut().unwrap();
        o.remove("state");
        o.remove("violations");
        if o.contains_key("intervention_at_step") {
            o.remove("time");
        }
    }
    assert_eq!(Engine::from_trace_json(&text(&old)).unwrap().trace_hash(), e.trace_hash());
    // A file cut short still reads (and stands where its header says).
    let cut = text(&ls[..40]);
    assert_eq!(Engine::from_trace_json(&cut).unwrap().trace_hash(), e.trace_hash());
}

#[test]
fn every_step_line_carries_the_state_it_changed() {
    let mut e = Engine::new(raft_split()).unwrap();
    e.run_to_end();
    let ls = lines(&mut e);
    // Walk a fresh run and compare each node's role and term, step by step, with the lines.
    let mut f = Engine::new(raft_split()).unwrap();
    let mut roles: Vec<(&str, Option<u64>)> = f.frame().nodes.iter().map(|n| (n.view.role, n.view.term)).collect();
    let mut changes = 0;
    for l in ls[1..].iter().filter(|l| l.get("step").is_some()) {
        assert!(f.step());
        assert_eq!(l["step"], json!(f.cursor()));
        let frame = f.frame();
        for (i, n) in frame.nodes.iter().enumerate() {
            let now = (n.view.role, n.view.term);
            let st = &l["state"][n.id.to_string()];
            if now != roles[i] {
                changes += 1;
                assert_eq!(st["role"], json!(n.view.role), "step {} N{}", f.cursor(), n.id);
                assert_eq!(st["term"], json!(n.view.term), "step {} N{}", f.cursor(), n.id);
                roles[i] = now;
            } else if !st.is_null() {
                // Listed although role and term stayed: something else changed (vote, inspector).
                assert_eq!(st["role"], json!(n.view.role));
            }
        }
    }
    assert!(changes > 5, "the minority campaigns: roles and terms change");
}

#[test]
fn the_violating_step_is_marked() {
    let mut e = Engine::new(bully_split()).unwrap();
    e.run_to_end();
    let first = e.violations()[0].clone();
    let ls = lines(&mut e);
    let marked: Vec<&Value> = ls.iter().filter(|l| l.get("violations").is_some()).collect();
    assert_eq!(marked.len(), e.violations().len());
    assert_eq!(marked[0]["step"], json!(first.step));
    assert_eq!(marked[0]["violations"][0]["kind"], json!("split-brain"));
    assert_eq!(marked[0]["violations"][0]["nodes"], json!(first.nodes));
}

#[test]
fn a_hand_edited_line_is_named() {
    let mut e = Engine::new(raft_split()).unwrap();
    e.run_to_end();
    let mut ls = lines(&mut e);
    // Line 57 of the file is ls[56]: a step line (the header is line 1).
    assert_eq!(ls[56]["step"], json!(56));
    let was = ls[56]["time"].clone();
    ls[56]["time"] = json!(9999);
    let err = Engine::from_trace_json(&text(&ls)).unwrap_err().to_string();
    assert_eq!(err, format!("line 57: event differs from the re-run: \"time\" is 9999 here, {was} in the re-run"));
    ls[56]["time"] = was;
    ls[56]["state"] = json!({"1": {"role": "leader"}});
    let err = Engine::from_trace_json(&text(&ls)).unwrap_err().to_string();
    assert!(err.starts_with("line 57: event differs from the re-run: \"state"), "{err}");
    // A line past the re-run's end.
    let mut ls = lines(&mut e);
    ls.push(json!({"step": 99999}));
    let err = Engine::from_trace_json(&text(&ls)).unwrap_err().to_string();
    assert!(err.starts_with(&format!("line {}: the re-run has no such line", ls.len())), "{err}");
    // A damaged line.
    let mut t = text(&lines(&mut e)[..5]);
    t.push_str("{not json\n");
    assert!(Engine::from_trace_json(&t).unwrap_err().to_string().starts_with("line 6: not valid JSON"));
}

#[test]
fn breakpoints_travel_in_the_trace() {
    let mut e = Engine::new(bully_split()).unwrap();
    e.set_until(vec!["violation".into(), "role:3=leader".into()]);
    e.run(20);
    let v = e.trace_value();
    assert_eq!(v["until"], json!(["violation", "role:3=leader"]));
    let back = Engine::from_trace_value(&v).unwrap();
    assert_eq!(back.until(), e.until());
    // A trace without them (every trace written before) still loads.
    let mut old = v.clone();
    old.as_object_mut().unwrap().remove("until");
    assert!(Engine::from_trace_value(&old).unwrap().until().is_empty());
    let mut bad = v;
    bad["until"] = json!("violation");
    assert!(Engine::from_trace_value(&bad).unwrap_err().to_string().starts_with("until: expected a list"));
}

/// Each tick of a run: its events (sorted texts) and the leaders after them, by a plain
/// walk of the frames and step descriptions.
fn ticks(s: &Scenario) -> Vec<(u64, Vec<String>, Vec<u32>)> {
    let mut e = Engine::new(s.clone()).unwrap();
    let mut out: Vec<(u64, Vec<String>, Vec<u32>)> = vec![];
    while e.step() {
        let i = e.step_info(e.cursor()).unwrap();
        if out.last().is_none_or(|x| x.0 != i.time) {
            out.push((i.time, vec![], vec![]));
        }
        let last = out.last_mut().unwrap();
        last.1.push(i.text);
        last.2 = e.frame().leaders;
    }
    for t in &mut out {
        t.1.sort();
    }
    out
}

/// The first tick where two runs' events or leaders differ.
fn scan_first_difference(a: &Scenario, b: &Scenario) -> Option<u64> {
    let (x, y) = (ticks(a), ticks(b));
    (0..x.len().max(y.len())).find(|&k| x.get(k) != y.get(k)).map(|k| match (x.get(k), y.get(k)) {
        (Some(p), Some(q)) => p.0.min(q.0),
        (Some(p), None) | (None, Some(p)) => p.0,
        (None, None) => unreachable!(),
    })
}

#[test]
fn diff_finds_the_first_divergence_of_two_seeds() {
    let mut a = bully_split();
    a.network.latency = (1, 3);
    let mut b = a.clone();
    b.seed += 1;
    let want = scan_first_difference(&a, &b).expect("two seeds differ");
    let (mut x, mut y) = (Engine::new(a).unwrap(), Engine::new(b).unwrap());
    x.run_to_end();
    y.run_to_end();
    let d = diff(&x, &y);
    let f = d.first.clone().expect("a divergence");
    assert_eq!(f.time, want);
    // The steps named are events of that tick, in each run, that the other run lacks.
    for (e, step, other) in [(&x, f.step_a, &y), (&y, f.step_b, &x)] {
        let i = e.step_info(step).unwrap();
        assert_eq!(i.time, want);
        let theirs: Vec<String> = (1..=other.cursor())
            .filter_map(|k| other.step_info(k))
            .filter(|o| o.time == want)
            .map(|o| o.text)
            .collect();
        assert!(!theirs.contains(&i.text), "{} is in both runs at t={want}", i.text);
    }
    assert!(!d.identical());
    assert_eq!(d.to_value()["first"]["time"], json!(want));
}

#[test]
fn identical_runs_report_no_difference() {
    let mut x = Engine::new(bully_split()).unwrap();
    let mut y = Engine::new(bully_split()).unwrap();
    x.run_to_end();
    y.run_to_end();
    let d = diff(&x, &y);
    assert_eq!(d.first, None);
    assert!(d.identical());
    assert!(d.text().contains("no difference"));
    assert_eq!(d.to_value()["identical"], json!(true));
}

#[test]
fn diff_names_a_dropped_message_at_the_step_it_was_dropped_by_hand() {
    let mut a = Engine::new(raft_split()).unwrap();
    a.run(10);
    let m = a.frame().messages.iter().find(|m| !m.doomed).cloned().expect("a message in flight");
    let mut b = Engine::new(raft_split()).unwrap();
    b.run(10);
    let at = b.now();
    b.apply(Action::Drop(m.id)).unwrap();
    a.run_to_end();
    b.run_to_end();
    let d = diff(&a, &b);
    let f = d.first.unwrap();
    // The drop is a difference where it was made, as the same drop scheduled there would be,
    // not where the message would have arrived.
    assert_eq!((f.time, f.step_b), (at, 10));
    let named = format!("drop message #{} ({} N{} → N{})", m.id, m.kind, m.from, m.to);
    assert_eq!(f.what, format!("B has {named} here, A has no such event at t={at}"));
    // The same, for a reader that names it in its own words (the page).
    assert_eq!(f.cause, Cause::Fault { in_a: false, action: Action::Drop(m.id) });
    // And the other way round.
    let f = diff(&b, &a).first.unwrap();
    assert_eq!(f.cause, Cause::Fault { in_a: true, action: Action::Drop(m.id) });
    assert_eq!(f.step_a, 10);
}

/// A Raft run with a leader, stopped at a step whose next event is at least two ticks away:
/// (the run there, the leader, a tick strictly between that step and the next event).
fn raft_with_a_gap() -> (Engine, u32, u64) {
    let scenario = Scenario::from_value(&json!({"algorithm": "raft", "nodes": [1, 2, 3], "seed": 3,
        "network": {"latency": [1, 2]}, "heartbeats": {"interval": 6, "timeout": 20}, "stop": {"max_time": 300}}))
    .unwrap();
    let mut e = Engine::new(scenario).unwrap();
    loop {
        assert!(e.step(), "the run ends without a quiet tick after a leader");
        let next = e.next_event_time().expect("more events");
        if let (Some(&leader), true) = (e.leaders().first(), next > e.now() + 1) {
            let t = e.now() + 1;
            return (e, leader, t);
        }
    }
}

#[test]
fn diff_reports_an_intervention_at_its_own_step_and_time_like_a_scheduled_fault() {
    let (mut b, leader, t) = raft_with_a_gap();
    let at = b.cursor();
    b.apply_at(Action::Crash(leader), t).unwrap();
    b.run_to_end();
    let mut a = Engine::new(b.scenario().clone()).unwrap();
    a.run_to_end();
    let d = diff(&a, &b);
    let f = d.first.clone().expect("a crash changes the run");
    assert_eq!((f.time, f.step_b), (t, at), "{}", d.text());
    assert_eq!(f.cause, Cause::Fault { in_a: false, action: Action::Crash(leader) });
    assert_eq!(f.what, format!("B has crash N{leader} here, A has no such event at t={t}"));
    // A is not over: the report names its next step, not "(ended)".
    assert_eq!(f.event_a, None);
    assert_eq!(f.step_a, at + 1);
    let next = a.step_info(at + 1).unwrap().text;
    assert_eq!(f.next_a.as_deref(), Some(next.as_str()));
    let text = d.text();
    assert!(text.contains(&format!("  A: nothing differing at t={t}; its next step ({}): {next}\n", at + 1)), "{text}");
    assert!(text.contains(&format!("  B: t={t} crash N{leader}\n")), "{text}");
    assert!(!text.contains("(ended"), "{text}");
    assert_eq!(d.to_value()["first"]["next_a"], json!(next));

    // The same crash scheduled at that time: reported at the same time, and as the same event as
    // the intervention (the two runs then go the same way, one step apart).
    let mut v = b.scenario().to_value();
    v["schedule"].as_array_mut().unwrap().push(json!({"at": t, "crash": leader}));
    let mut c = Engine::new(Scenario::from_value(&v).unwrap()).unwrap();
    c.run_to_end();
    let f = diff(&a, &c).first.expect("a crash changes the run");
    assert_eq!((f.time, f.step_b), (t, at + 1));
    assert_eq!(f.cause, Cause::Fault { in_a: false, action: Action::Crash(leader) });
    let d = diff(&b, &c);
    assert_eq!(d.first, None, "{}", d.text());
    assert_eq!(d.a.steps + 1, d.b.steps);
}

#[test]
fn diff_says_when_a_run_has_ended() {
    let (mut b, leader, t) = raft_with_a_gap();
    let mut a = Engine::new(b.scenario().clone()).unwrap();
    a.seek(b.cursor());
    b.apply_at(Action::Crash(leader), t).unwrap();
    b.run_to_end();
    let d = diff(&a, &b);
    let f = d.first.clone().unwrap();
    assert_eq!((f.event_a.as_deref(), f.next_a.as_deref()), (None, None));
    assert!(d.text().contains(&format!("  A: (ended at step {})\n", a.cursor())), "{}", d.text());
}

/// What `run --trace` writes, every command reads back, however long: a JSON Lines trace is
/// read a line at a time (each line checked against the re-run), not refused past the limit
/// on a scenario's text; a file of one JSON text past that limit still is refused.
#[test]
fn a_long_written_trace_reads_back_in_every_command() {
    let bin = env!("CARGO_BIN_EXE_election-lab");
    let dir = std::env::temp_dir().join(format!("election-lab-long-trace-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let scenario = dir.join("raft.json");
    let mut s = presets::find("split-brain-raft").unwrap().scenario();
    s.stop.max_time = 8_000;
    std::fs::write(&scenario, s.to_json()).unwrap();
    let trace = dir.join("long.jsonl");
    let cli = |args: &[&str]| std::process::Command::new(bin).args(args).output().unwrap();
    let o = cli(&["run", scenario.to_str().unwrap(), "--trace", trace.to_str().unwrap()]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let size = std::fs::metadata(&trace).unwrap().len();
    assert!(size > election_lab::scenario::MAX_BYTES as u64, "a trace longer than a scenario may be: {size}");
    let t = trace.to_str().unwrap();
    for args in [
        vec!["run", t],
        vec!["check", t],
        vec!["diff", t, t],
        vec!["search", t, "--property", "two-leaders-in-term", "--budget-steps", "2000"],
    ] {
        let o = cli(&args);
        assert_eq!(o.status.code(), Some(0), "{args:?}: {}", String::from_utf8_lossy(&o.stderr));
    }
    // The run read back is the run written.
    let summary = |o: std::process::Output| -> Value {
        let text = String::from_utf8(o.stdout).unwrap();
        serde_json::from_str(text.lines().last().unwrap()).unwrap()
    };
    let a = summary(cli(&["run", scenario.to_str().unwrap()]));
    let b = summary(cli(&["run", t]));
    assert_eq!(a["trace_hash"], b["trace_hash"]);
    // A line edited deep in the file is still named.
    let text = std::fs::read_to_string(&trace).unwrap();
    let n = text.lines().count() - 10;
    let edited: Vec<String> = text
        .lines()
        .enumerate()
        .map(|(i, l)| if i + 1 == n { l.replacen("\"time\":", "\"time\":1", 1) } else { l.into() })
        .collect();
    let bad = dir.join("edited.jsonl");
    std::fs::write(&bad, edited.join("\n")).unwrap();
    let o = cli(&["run", bad.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(2));
    assert!(
        String::from_utf8_lossy(&o.stderr).contains(&format!("line {n}: ")),
        "{}",
        String::from_utf8_lossy(&o.stderr)
    );
    // One JSON text past the limit is refused by its size.
    let big = dir.join("big.json");
    std::fs::write(&big, format!("{{\"pad\": \"{}\"\n}}", "x".repeat(election_lab::scenario::MAX_BYTES))).unwrap();
    let o = cli(&["run", big.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(2));
    assert!(
        String::from_utf8_lossy(&o.stderr).contains("bytes is more than the"),
        "{}",
        String::from_utf8_lossy(&o.stderr)
    );
    std::fs::remove_dir_all(&dir).ok();
}

/// The head of a long JSON Lines trace (what the page reads of a file too long to read whole)
/// gives its header, which alone rebuilds the run; anything else gives nothing.
#[test]
fn the_header_of_a_long_trace_is_read_from_its_first_bytes() {
    let mut e = Engine::new(raft_split()).unwrap();
    e.run_to_end();
    let text = lines(&mut e).iter().map(|v| v.to_string()).collect::<Vec<_>>().join("\n");
    let head = &text[..text.len() / 2];
    let header = election_lab::engine::header_line(head).expect("the header line is whole");
    let back = Engine::from_trace_json(header).unwrap();
    assert_eq!((back.cursor(), back.trace_hash()), (e.cursor(), e.trace_hash()));
    assert_eq!(election_lab::engine::header_line(&header[..header.len() / 2]), None, "a cut header");
    assert_eq!(election_lab::engine::header_line("{\"pad\": 1}\n{}"), None, "not a trace");
}
