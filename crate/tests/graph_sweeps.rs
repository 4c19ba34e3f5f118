//! Experiments over topologies: the shipped sweeps of FloodMax and echo with extinction on
//! rings, grids, trees and random graphs show each formula evaluated on the run's own graph
//! (and it is exact there), and a plot can read its x axis as the network's diameter.

use election_lab::experiment::{Sweep, READY};
use election_lab::meta::Lang;
use election_lab::scenario::Scenario;
use serde_json::json;

fn sweep(id: &str) -> Sweep {
    let text = READY.iter().find(|r| r.0 == id).unwrap_or_else(|| panic!("no experiment {id}")).1;
    let mut s = Sweep::from_json(text).unwrap_or_else(|e| panic!("{id}: {e}"));
    while !s.advance(64).finished() {}
    s
}

#[test]
fn on_every_shape_the_formula_shown_is_the_count_on_that_graph() {
    let s = sweep("graphs");
    let groups = s.summary();
    assert!(groups.len() >= 8 * 5, "two algorithms on four shapes, at several N");
    for g in &groups {
        let mean = g.stats.as_ref().map(|x| x.mean).unwrap();
        assert_eq!(g.theory.map(|t| t as f64), Some(mean), "{} at N = {}", s.lines()[g.line].label.en, g.nodes);
    }
}

/// Against the diameter, each point of a line sits at the diameter of that line's graph at
/// that N, computed here from the generated graph itself.
#[test]
fn a_plot_against_the_diameter_places_each_point_at_its_graphs_diameter() {
    let s = sweep("graphs-rounds");
    let chart = s.chart(Lang::En);
    let groups = s.summary();
    for (i, line) in s.lines().iter().enumerate() {
        let series = chart.series.iter().find(|x| x.label == line.label.en && !x.dashed).unwrap();
        let mine: Vec<_> = groups.iter().filter(|g| g.line == i).collect();
        assert_eq!(series.points.len(), mine.len(), "{}", line.label.en);
        for (g, &(x, y)) in mine.iter().zip(&series.points) {
            let topology = match line.label.en.rsplit(", ").next().unwrap() {
                "ring" => json!("bidirectional-ring"),
                "grid" => json!({"generate": "grid"}),
                _ => json!({"generate": "tree", "fanout": 2}),
            };
            let mut v =
                json!({"algorithm": "floodmax", "nodes": (1..=g.nodes).collect::<Vec<u32>>(), "topology": topology});
            if line.label.en.ends_with("grid") {
                let side = (1..=g.nodes).find(|r| r * r == g.nodes).expect("square N in the spec");
                v["topology"] = json!({"generate": "grid", "rows": side, "cols": side});
            }
            let graph = Scenario::from_value(&v).unwrap().topology.unwrap();
            let diameter = graph.diameter(g.nodes as usize).unwrap() as f64;
            assert_eq!(x, diameter, "{} at N = {}", line.label.en, g.nodes);
            if line.algorithm.id == "floodmax" {
                assert_eq!(y, diameter, "{}: FloodMax ends after diam rounds", line.label.en);
            }
        }
    }
}

#[test]
fn a_bad_x_axis_is_refused_by_name() {
    let spec = json!({"scenario": {"algorithm": "floodmax", "nodes": [1, 2, 3]}, "plot": {"x": "links"}});
    let err = Sweep::from_json(&spec.to_string()).err().unwrap().to_string();
    assert!(err.starts_with("plot.x"), "{err}");
}
