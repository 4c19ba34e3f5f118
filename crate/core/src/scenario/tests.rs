use super::*;

fn err(text: &str) -> ScenarioError {
    Scenario::from_json(text).unwrap_err()
}

#[test]
fn reads_the_documented_example() {
    let s = Scenario::from_json(
        r#"{ "algorithm": "bully", "nodes": [3, 5, 6, 12, 32, 80], "seed": 425,
                 "network": { "latency": [1, 1], "loss": 0.0, "fifo": true },
                 "initial_leader": 80, "heartbeats": { "interval": 2, "timeout": 10 },
                 "params": {},
                 "schedule": [ {"at": 0, "crash": 80}, {"at": 0, "start": 3},
                               {"at": 5, "partition": [[3, 5], [6, 12, 32, 80]]}, {"at": 90, "heal": true},
                               {"at": 95, "recover": 80} ],
                 "stop": { "max_time": 10000, "max_steps": 1000000 } }"#,
    )
    .unwrap();
    assert_eq!(s.nodes, vec![3, 5, 6, 12, 32, 80]);
    assert_eq!(s.schedule.len(), 5);
    assert_eq!(
        s.schedule[2].action,
        Action::Partition { groups: vec![vec![3, 5], vec![6, 12, 32, 80]], lines: vec![] }
    );
    // Round trip.
    assert_eq!(Scenario::from_json(&s.to_json()).unwrap(), s);
}

#[test]
fn errors_name_the_field() {
    // Whether the algorithm exists is the registry's question (see `Engine::new`).
    assert_eq!(err(r#"{"algorithm":"","nodes":[1]}"#).field, "algorithm");
    assert_eq!(err(r#"{"algorithm":"bully","nodes":[1,2,1]}"#).to_string(), "nodes: duplicate id 1");
    assert_eq!(err(r#"{"algorithm":"bully","nodes":[1,2],"initial_leader":7}"#).field, "initial_leader");
    assert_eq!(err(r#"{"algorithm":"bully","nodes":[1,2],"network":{"latency":[5,2]}}"#).field, "network.latency");
    assert_eq!(err(r#"{"algorithm":"bully","nodes":[1,2],"network":{"latency":[1,"x"]}}"#).field, "network.latency[1]");
    assert_eq!(err(r#"{"algorithm":"bully","nodes":[1,2],"network":{"loss":1.5}}"#).field, "network.loss");
    assert_eq!(
        err(r#"{"algorithm":"bully","nodes":[1,2],"schedule":[{"at":1,"crash":9}]}"#).field,
        "schedule[0].crash"
    );
    assert_eq!(err(r#"{"algorithm":"bully","nodes":[1,2],"schedule":[{"at":1,"crsh":1}]}"#).field, "schedule[0].crsh");
    assert_eq!(err(r#"{"algorithm":"bully","nodes":[1,2],"schedule":[{"crash":1}]}"#).field, "schedule[0].at");
    let unknown = err(r#"{"algorithm":"bully","nodes":[1,2],"colour":1}"#).message;
    assert!(unknown.contains("unknown field `colour`"), "{unknown}");
    assert_eq!(
        err(r#"{"algorithm":"bully","nodes":[1,2],"heartbeats":{"interval":5,"timeout":5}}"#).field,
        "heartbeats.timeout"
    );
    assert_eq!(err(r#"{"algorithm":"bully","nodes":[]}"#).field, "nodes");
    assert!(err("{not json").message.starts_with("not valid JSON"));
    assert_eq!(err("[1,2]").message, "a scenario must be a JSON object");
    assert_eq!(
        err(r#"{"algorithm":"bully","nodes":[1,2],"schedule":[{"at":1,"partition":[[1],[1,2]]}]}"#).message,
        "node 1 is in two groups"
    );
}
