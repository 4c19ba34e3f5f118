//! The inspector's typed fields as their consumers read them: breakpoints by id and by the
//! English (or Chinese) label an older breakpoint names, the JSON Lines export's typed `fields`
//! (and an export written before ids, with `inspect` labels, still read), and a link carrying
//! an old breakpoint.

mod common;

use common::jsonl::{lines, text};
use election_lab::breakpoint::{run_until, Breakpoint, Watch};
use election_lab::field::FieldValue;
use election_lab::meta::Lang;
use election_lab::{link, presets, Engine, Scenario};
use serde_json::{json, Map, Value};

/// Raft, N5 leading term 1, partitioned {1,2} | {3,4,5} at t=20: the minority campaigns.
fn raft_split() -> Scenario {
    let s = presets::find("split-brain-raft").unwrap().scenario();
    let mut v = s.to_value();
    v["schedule"] = json!([{"at": 20, "partition": [[1, 2], [3, 4, 5]]}]);
    Scenario::from_value(&v).unwrap()
}

fn hit(s: &Scenario, text: &str) -> Option<u64> {
    let mut e = Engine::new(s.clone()).unwrap();
    let bp = Breakpoint::parse(text, &e).unwrap();
    let mut w = Watch::new(vec![bp], &e);
    run_until(&mut e, &mut w, u64::MAX).map(|h| h.step)
}

/// The first step after which N`node`'s field `id` passes `pred`, read off the inspector.
fn first(s: &Scenario, node: u32, id: &str, pred: impl Fn(&FieldValue) -> bool) -> Option<u64> {
    let mut e = Engine::new(s.clone()).unwrap();
    while e.step() {
        if e.inspect(node).iter().any(|f| f.id == id && pred(&f.value)) {
            return Some(e.cursor());
        }
    }
    None
}

#[test]
fn raft_names_its_fields_by_stable_ids() {
    let e = Engine::new(raft_split()).unwrap();
    let ids: Vec<String> = e.inspect(1).iter().map(|f| f.id.to_string()).collect();
    assert_eq!(ids, ["role", "current_term", "voted_for", "leader", "last_log", "votes", "acks"]);
}

#[test]
fn a_breakpoint_names_a_field_by_id_or_by_its_old_label_and_is_written_back_by_id() {
    let s = raft_split();
    let want = first(&s, 1, "current_term", |v| v.number() >= Some(4)).expect("N1 reaches term 4");
    // `current-term` is how a breakpoint named the field before ids (a link from then carries it).
    for text in ["current_term:1>=4", "current-term:1>=4", "Current Term:1>=4", "当前任期:1>=4"] {
        assert_eq!(hit(&s, text), Some(want), "{text}");
        let e = Engine::new(s.clone()).unwrap();
        assert_eq!(Breakpoint::parse(text, &e).unwrap().to_string(), "current_term:1>=4", "{text}");
    }
    // A node compares as its id: N1 votes for itself when it first campaigns.
    let voted = first(&s, 1, "voted_for", |v| *v == FieldValue::Node(1)).expect("N1 votes for itself");
    assert_eq!(hit(&s, "voted_for:1=1"), Some(voted));
    assert_eq!(hit(&s, "voted-for:1=1"), Some(voted));
    // A list compares as its length.
    let acked = first(&s, 5, "acks", |v| v.number() >= Some(2)).expect("the leader hears two acks");
    assert_eq!(hit(&s, "acks:5>=2"), Some(acked));
    // An unknown name lists the ids.
    let e = Engine::new(s).unwrap();
    let err = Breakpoint::parse("no_such:1>=1", &e).unwrap_err();
    assert!(err.contains("inspector: role, current_term, voted_for"), "{err}");
}

#[test]
fn json_lines_write_fields_typed_and_read_an_export_written_with_labels() {
    let mut e = Engine::new(raft_split()).unwrap();
    e.run_to_end();
    let mut ls = lines(&mut e);
    let states: Vec<&Map<String, Value>> = ls
        .iter()
        .filter_map(|l| l.get("state")?.as_object())
        .flat_map(|m| m.values().filter_map(|n| n.get("fields")?.as_object()))
        .collect();
    assert!(!states.is_empty());
    for f in &states {
        assert!(f["current_term"].is_u64(), "{f:?}");
        assert!(f["voted_for"].is_u64() || f["voted_for"].is_null(), "{f:?}");
        assert!(f["acks"].is_array() && f["role"].is_string(), "{f:?}");
        assert!(f["votes"]["n"].is_u64() && f["votes"]["text"].as_str().unwrap().contains(" needed:"), "{f:?}");
    }
    // A typed value changed by hand is named.
    let mut bad = ls.clone();
    let at = bad.iter().position(|l| l.get("state").is_some()).unwrap();
    let node = bad[at]["state"].as_object().unwrap().keys().next().unwrap().clone();
    bad[at]["state"][&node]["fields"]["current_term"] = json!(99);
    let err = Engine::from_trace_json(&text(&bad)).unwrap_err().to_string();
    assert!(err.contains("fields.current_term"), "{err}");
    // The same run as the export wrote it before fields had ids: `inspect`, English labels to
    // the values shown.
    let labels: Vec<(String, String)> =
        e.inspect(1).iter().map(|f| (f.id.to_string(), f.label.get(Lang::En).to_string())).collect();
    for l in &mut ls {
        let Some(state) = l.get_mut("state").and_then(Value::as_object_mut) else { continue };
        for n in state.values_mut() {
            let fields = n.as_object_mut().unwrap().remove("fields").unwrap();
            let mut inspect = Map::new();
            for (id, label) in &labels {
                let shown = match &fields[id] {
                    Value::Null => "-".to_string(),
                    Value::String(s) => s.clone(),
                    v if id == "votes" => v["text"].as_str().unwrap().to_string(),
                    v if id == "voted_for" || id == "leader" => format!("N{v}"),
                    v => v.to_string(),
                };
                inspect.insert(label.clone(), json!(shown));
            }
            n["inspect"] = Value::Object(inspect);
        }
    }
    let old = text(&ls);
    assert!(old.contains(r#""current term":"#) && !old.contains(r#""fields""#));
    assert_eq!(Engine::from_trace_json(&old).unwrap().trace_hash(), e.trace_hash());
}

#[test]
fn a_link_with_a_breakpoint_named_by_its_old_label_opens_and_stops_there() {
    let s = raft_split();
    let want = first(&s, 1, "current_term", |v| v.number() >= Some(4)).unwrap();
    let mut e = Engine::new(s).unwrap();
    e.set_until(vec!["current-term:1>=4".to_string()]);
    e.run(10);
    let back = link::open(&link::query(&e, 10)).unwrap();
    assert_eq!(back.until(), ["current-term:1>=4"]);
    let bps = Breakpoint::parse_all(back.until(), &back, "until").unwrap();
    assert_eq!(bps[0].to_string(), "current_term:1>=4");
    let mut fresh = Engine::new(back.scenario().clone()).unwrap();
    let mut w = Watch::new(bps, &fresh);
    assert_eq!(run_until(&mut fresh, &mut w, u64::MAX).map(|h| h.step), Some(want));
}

#[test]
fn a_scripts_declared_fields_are_typed_under_their_names() {
    let a = election_lab::protocols::script::load(include_str!("../scripts/raft.rhai")).unwrap();
    let mut s = raft_split();
    s.algorithm = a.id.to_string();
    let mut e = Engine::new(s.clone()).unwrap();
    e.run_to_end();
    let fields = e.inspect(1);
    let ids: Vec<&str> = fields.iter().map(|f| &*f.id).collect();
    assert_eq!(ids, ["role", "term", "voted_for", "leader", "last_log", "votes", "acks"]);
    let get = |id: &str| fields.iter().find(|f| f.id == id).unwrap();
    assert!(matches!(get("term").value, FieldValue::Num(t) if t >= 1), "{:?}", get("term"));
    assert!(matches!(get("voted_for").value, FieldValue::Node(_) | FieldValue::None), "{:?}", get("voted_for"));
    assert!(matches!(get("role").value, FieldValue::Text(_)), "{:?}", get("role"));
    assert_eq!(get("term").label.get(Lang::En), "current term");
    // Its fields are breakpoints by name, and by the label an older breakpoint used.
    let voted = first(&s, 1, "voted_for", |v| *v == FieldValue::Node(1)).expect("N1 votes for itself");
    assert_eq!(hit(&s, "voted_for:1=1"), Some(voted));
    assert_eq!(hit(&s, "voted-for:1=1"), Some(voted));
}
