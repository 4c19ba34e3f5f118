//! Networks of any shape: the topology generators give connected graphs of the shape they
//! name, scenarios with a topology are checked by name, the round model delivers in the next
//! round, and the elections on general graphs (FloodMax in rounds, echo with extinction
//! asynchronously) elect exactly the largest id on 200 random connected graphs of each
//! generator, with FloodMax's message count equal to diam · 2|E| and the echo's fathers a
//! spanning tree rooted at the winner.

mod common;

use common::graphs::{ids, run_finished as run, topology, UNDIRECTED};
use common::sent;
use election_lab::rng::Pcg32;
use election_lab::scenario::{Graph, Shape};
use election_lab::{Engine, NodeId, Scenario};
use serde_json::{json, Value};
use std::collections::BTreeSet;

fn scenario(v: &Value) -> Scenario {
    Scenario::from_value(v).unwrap_or_else(|e| panic!("{v}: {e}"))
}

fn graph(s: &Scenario) -> &Graph {
    s.topology.as_ref().expect("a topology")
}

#[test]
fn generators_give_connected_graphs_of_the_shape_they_name() {
    let mut r = Pcg32::new(31, 1);
    for n in 2u32..=40 {
        let e = |shape: Shape| Graph::generate(shape, n);
        let nu = n as usize;
        let ring = e(Shape::Ring);
        assert!(ring.directed && ring.edges.len() == nu && ring.is_connected(nu), "ring of {n}");
        assert_eq!(ring.diameter(nu), Some(n - 1), "one-way ring of {n}");
        let two = e(Shape::BidirectionalRing);
        assert_eq!(two.edges.len(), if n == 2 { 1 } else { nu }, "two-way ring of {n}");
        assert_eq!(two.diameter(nu), Some(n / 2));
        let complete = e(Shape::Complete);
        assert_eq!(complete.edges.len(), nu * (nu - 1) / 2);
        assert_eq!(complete.diameter(nu), Some(1));
        let line = e(Shape::Line);
        assert_eq!((line.edges.len(), line.diameter(nu)), (nu - 1, Some(n - 1)), "line of {n}");
        let star = e(Shape::Star);
        assert!(star.edges.iter().all(|&(a, _)| a == 0) && star.edges.len() == nu - 1, "star of {n}");
        assert_eq!(star.diameter(nu), Some(if n == 2 { 1 } else { 2 }));
        for rows in (1..=n).filter(|d| n % d == 0) {
            let cols = n / rows;
            let grid = e(Shape::Grid { rows, cols });
            assert_eq!(grid.edges.len() as u32, rows * (cols - 1) + cols * (rows - 1), "{rows}×{cols}");
            assert_eq!(grid.diameter(nu), Some(rows + cols - 2), "{rows}×{cols}");
            // Laid out as a grid: a row shares its height, a column its abscissa.
            let p = grid.positions.clone().expect("a grid places its nodes");
            for i in 0..nu {
                assert_eq!(p[i][1], p[(i as u32 / cols * cols) as usize][1], "{rows}×{cols}: row of {i}");
                assert_eq!(p[i][0], p[(i as u32 % cols) as usize][0], "{rows}×{cols}: column of {i}");
            }
        }
        for fanout in 1..=4.min(n) {
            let tree = e(Shape::Tree { fanout });
            assert!(tree.edges.len() == nu - 1 && tree.is_connected(nu), "tree of {n}, fan-out {fanout}");
            let out = tree.out_neighbours(nu);
            for (i, nb) in out.iter().enumerate() {
                let children = nb.iter().filter(|&&j| j as usize > i).count() as u32;
                assert!(children <= fanout, "tree of {n}: node {i} has {children} children");
            }
        }
        for _ in 0..5 {
            let (degree, seed) = (r.range_inclusive(1, 8) as u32, r.next_u64());
            let g = e(Shape::Random { degree, seed });
            assert!(g.is_connected(nu), "random of {n}, degree {degree}, seed {seed}");
            let want = (nu * degree as usize / 2).clamp(nu - 1, nu * (nu - 1) / 2);
            assert_eq!(g.edges.len(), want, "random of {n}, degree {degree}: the average degree asked");
            assert_eq!(g, e(Shape::Random { degree, seed }), "the same seed, the same graph");
        }
    }
}

#[test]
fn a_topology_is_read_back_as_written_and_old_scenarios_do_not_change() {
    let v = json!({"algorithm": "floodmax", "nodes": [1, 2, 3, 4], "network": {"model": "rounds"},
                   "topology": {"links": [[1, 2], [2, 3], [3, 4], [4, 1]], "positions": [[100, 100], [900, 100], [900, 900], [100, 900]]}});
    let s = scenario(&v);
    assert_eq!(Scenario::from_value(&s.to_value()).unwrap(), s);
    assert_eq!(s.config().neighbours(1), vec![2, 4]);
    let g = scenario(
        &json!({"algorithm": "floodmax", "nodes": [5, 6, 7], "topology": {"generate": "random", "degree": 2, "seed": 9}}),
    );
    assert_eq!(Scenario::from_value(&g.to_value()).unwrap(), g);
    let old = scenario(&json!({"algorithm": "bully", "nodes": [1, 2, 3]})).to_value();
    assert!(old.get("topology").is_none() && old["network"].get("model").is_none(), "{old}");
}

#[test]
fn a_bad_topology_or_model_is_refused_naming_the_field() {
    let cases = [
        (
            json!({"algorithm": "bully", "nodes": [1, 2, 3], "topology": "line"}),
            "topology",
            "bully runs on a complete network",
        ),
        (
            json!({"algorithm": "chang-roberts", "nodes": [1, 2, 3], "topology": "ring"}),
            "topology",
            "a ring in the order of `nodes`",
        ),
        (json!({"algorithm": "floodmax", "nodes": [1, 2, 3], "topology": "ring"}), "topology", "two-way links"),
        (
            json!({"algorithm": "floodmax", "nodes": [1, 2, 3, 4], "topology": {"links": [[1, 2], [3, 4]]}}),
            "topology",
            "connected",
        ),
        (
            json!({"algorithm": "floodmax", "nodes": [1, 2, 3], "topology": {"generate": "grid", "rows": 2, "cols": 2}}),
            "topology.rows",
            "4 places for 3 nodes",
        ),
        (
            json!({"algorithm": "floodmax", "nodes": [1, 2, 3], "topology": "torus"}),
            "topology",
            "unknown generator \"torus\"",
        ),
        (
            json!({"algorithm": "floodmax", "nodes": [1, 2, 3], "topology": {"links": [[1, 9]]}}),
            "topology.links[0]",
            "unknown node 9",
        ),
        (
            json!({"algorithm": "floodmax", "nodes": [1, 2, 3], "topology": {"links": [[1, 1]]}}),
            "topology.links[0]",
            "two different nodes",
        ),
        (
            json!({"algorithm": "floodmax", "nodes": [1, 2], "topology": {"generate": "tree"}}),
            "topology",
            "missing field `fanout`",
        ),
        (
            json!({"algorithm": "floodmax", "nodes": [1, 2], "topology": {"generate": "line", "rows": 2}}),
            "topology.rows",
            "takes only",
        ),
        (
            json!({"algorithm": "floodmax", "nodes": [1, 2], "topology": {"links": [], "positions": [[1, 2]]}}),
            "topology.positions",
            "1 positions for 2 nodes",
        ),
        (
            json!({"algorithm": "floodmax", "nodes": [1, 2], "network": {"model": "rounds", "latency": [1, 3]}}),
            "network.latency",
            "exactly one round",
        ),
        (
            json!({"algorithm": "floodmax", "nodes": [1, 2], "network": {"model": "lockstep"}}),
            "network.model",
            "unknown model",
        ),
    ];
    for (v, field, words) in cases {
        let err = Scenario::from_value(&v).and_then(Engine::new).map(|_| ()).expect_err(&v.to_string());
        assert_eq!(err.field, field, "{v}: {err}");
        assert!(err.to_string().contains(words), "{v}: {err}");
    }
}

#[test]
fn in_rounds_a_message_arrives_in_the_next_round_and_the_frame_counts_rounds() {
    let v =
        json!({"algorithm": "floodmax", "nodes": [3, 1, 4, 5, 2], "network": {"model": "rounds"}, "topology": "line"});
    let mut e = Engine::new(scenario(&v)).unwrap();
    e.run_to_end();
    let sent_total = e.metrics().total;
    for id in 0..sent_total {
        let m = e.message(id).unwrap();
        assert_eq!(m.deliver, m.sent + 1, "{m:?}");
    }
    assert_eq!(e.frame().round, Some(4), "diam 4: decided at the start of round 4");
    assert_eq!(e.metrics().rounds, Some(4));
    let text = e.narrate(e.cursor(), election_lab::meta::Lang::En).unwrap();
    assert!(text.starts_with("Round 4: "), "{text}");
    let async_run = run(&json!({"algorithm": "floodmax", "nodes": [3, 1, 4, 5, 2], "topology": "line"}));
    assert_eq!(async_run.frame().round, None, "no rounds in the asynchronous model");
}

#[test]
fn floodmax_elects_the_maximum_with_exactly_diam_times_twice_the_links_on_every_generator() {
    let mut r = Pcg32::new(41, 4);
    for name in UNDIRECTED {
        for trial in 0..200u64 {
            let n = r.range_inclusive(2, 40) as usize;
            let ids = ids(&mut r, n);
            let v = json!({"algorithm": "floodmax", "nodes": ids, "seed": trial, "network": {"model": "rounds"},
                           "topology": topology(&mut r, name, n)});
            let e = run(&v);
            let s = e.scenario();
            let (diam, links) = (graph(s).diameter(n).unwrap() as u64, graph(s).edges.len() as u64);
            let max = *ids.iter().max().unwrap();
            assert_eq!(e.frame().leaders, vec![max], "{v}");
            assert_eq!(e.frame().agreement, Some(max), "{v}");
            // Every node sends one MAX to each neighbour in each of the diam rounds: Σ deg = 2|E|.
            assert_eq!(sent(&e, "MAX"), diam * 2 * links, "{v}");
            assert_eq!(e.frame().round, Some(diam), "{v}: decided after diam rounds");
            assert_tree(&e, max, &v);
        }
    }
}

#[test]
fn floodmax_asynchronously_sends_the_same_messages_and_elects_the_same() {
    let mut r = Pcg32::new(43, 5);
    for trial in 0..100u64 {
        let n = r.range_inclusive(2, 30) as usize;
        let ids = ids(&mut r, n);
        let topo = topology(&mut r, "random", n);
        let sync =
            run(&json!({"algorithm": "floodmax", "nodes": ids, "network": {"model": "rounds"}, "topology": topo}));
        let v = json!({"algorithm": "floodmax", "nodes": ids, "seed": trial, "network": {"latency": [1, 6], "fifo": false}, "topology": topo});
        let e = run(&v);
        assert_eq!(sent(&e, "MAX"), sent(&sync, "MAX"), "{v}");
        assert_eq!(e.frame().agreement, sync.frame().agreement, "{v}");
    }
}

#[test]
fn echo_with_extinction_elects_the_largest_initiator_and_its_fathers_span_the_graph() {
    let mut r = Pcg32::new(47, 6);
    for name in UNDIRECTED {
        for trial in 0..200u64 {
            let n = r.range_inclusive(2, 40) as usize;
            let ids = ids(&mut r, n);
            // Every node initiates in half the runs; otherwise a random few, at random times.
            let all = trial % 2 == 0;
            let mut starters: Vec<NodeId> =
                ids.iter().copied().filter(|_| all || r.range_inclusive(0, 3) == 0).collect();
            if starters.is_empty() {
                starters.push(ids[0]);
            }
            let schedule: Vec<Value> = starters
                .iter()
                .map(|s| json!({"at": if all { 0 } else { r.range_inclusive(0, 5) }, "start": s}))
                .collect();
            let v = json!({"algorithm": "echo-extinction", "nodes": ids, "seed": trial, "network": {"latency": [1, 4]},
                           "topology": topology(&mut r, name, n), "schedule": schedule,
                           "stop": {"max_steps": 10_000_000u64}});
            let e = run(&v);
            let links = graph(e.scenario()).edges.len() as u64;
            // A start at a node a wave has reached already starts nothing, so the winner is the
            // largest id among the nodes that did initiate: with everyone starting at 0, the maximum.
            let winner = *e.frame().leaders.first().unwrap_or_else(|| panic!("{v}: no leader"));
            assert_eq!(e.frame().leaders.len(), 1, "{v}");
            assert_eq!(e.frame().agreement, Some(winner), "{v}");
            assert!(starters.contains(&winner), "{v}");
            if all {
                assert_eq!(winner, *ids.iter().max().unwrap(), "{v}");
            }
            let k = starters.len() as u64;
            let waves = sent(&e, "WAVE");
            assert!(waves >= 2 * links && waves <= 2 * k * links, "{v}: {waves} WAVE, |E| = {links}, k = {k}");
            assert_eq!(sent(&e, "LEADER"), 2 * links, "{v}");
            if k == 1 {
                assert_eq!(waves, 2 * links, "{v}: one initiator, 4|E| in all");
            }
            assert_tree(&e, winner, &v);
        }
    }
}

/// The views' parents form a spanning tree of the scenario's graph rooted at `root`: every other
/// node's parent is a neighbour, and following parents from any node reaches the root.
fn assert_tree(e: &Engine, root: NodeId, v: &Value) {
    let f = e.frame();
    let cfg = e.scenario().config();
    let parent = |id: NodeId| f.nodes.iter().find(|x| x.id == id).and_then(|x| x.view.parent());
    assert_eq!(parent(root), None, "{v}: the root has no parent");
    for node in &f.nodes {
        if node.id == root {
            continue;
        }
        let p = node.view.parent().unwrap_or_else(|| panic!("{v}: N{} has no parent", node.id));
        assert!(cfg.neighbours(node.id).contains(&p), "{v}: N{}'s parent N{p} is a neighbour", node.id);
        let mut seen = BTreeSet::new();
        let mut at = node.id;
        while let Some(up) = parent(at) {
            assert!(seen.insert(at), "{v}: a cycle through N{at}");
            at = up;
        }
        assert_eq!(at, root, "{v}: N{} reaches the root", node.id);
    }
}

#[test]
fn lcr_in_rounds_sends_as_many_messages_as_asynchronously_with_fifo_links() {
    // Chang-Roberts with every node starting at round 0 is Lynch's LCR (§3.3): each id travels
    // until a larger node swallows it, whatever the timing, so the counts agree.
    let mut r = Pcg32::new(53, 7);
    for trial in 0..60u64 {
        let n = r.range_inclusive(2, 30) as usize;
        let ids = ids(&mut r, n);
        let schedule: Vec<Value> = ids.iter().map(|s| json!({"at": 0, "start": s})).collect();
        let rounds = run(
            &json!({"algorithm": "chang-roberts", "nodes": ids, "network": {"model": "rounds"}, "schedule": schedule}),
        );
        let v = json!({"algorithm": "chang-roberts", "nodes": ids, "seed": trial, "network": {"latency": [1, 7], "fifo": true}, "schedule": schedule});
        let fifo = run(&v);
        assert_eq!(sent(&rounds, "ELECTION"), sent(&fifo, "ELECTION"), "{v}");
        assert_eq!(sent(&rounds, "ELECTED"), n as u64, "{v}");
        assert_eq!(rounds.frame().agreement, Some(*ids.iter().max().unwrap()), "{v}");
        assert_eq!(rounds.frame().round, Some(rounds.now()), "{v}: the rounds counted");
    }
}
