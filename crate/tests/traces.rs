//! Traces both ways and runs compared: the JSON Lines a run writes (with the per-node state
//! each step changed and the violations it began) read back to the same run, a hand-edited
//! line named.

use election_lab::engine::Stop;
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

fn lines(e: &mut Engine) -> Vec<Value> {
    let mut out = vec![];
    e.trace_lines::<()>(&mut |v| {
        out.push(v);
        Ok::<(), Stop<()>>(())
    })
    .unwrap();
    out
}

fn text(lines: &[Value]) -> String {
    lines.iter().map(|l| format!("{l}\n")).collect()
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
