//! A formula's value is the one of the network a run actually has: a preset whose formula
//! claims to be exact for its scenario shows exactly the count its run makes, on a ring, the
//! complete network or a scenario's own graph; and a formula that is not written for a graph
//! is not shown on one.

use election_lab::meta::{Net, Topology};
use election_lab::{presets, registry, Engine, Scenario};
use serde_json::json;

/// (preset, formula): the presets where the formula's own words ("always", "one initiator",
/// "worst case: …") say the count is exactly its value, and the preset is that case.
const EXACT: &[(&str, &str)] = &[
    ("floodmax-grid", "diam·2|E|"),
    ("floodmax-tree", "diam·2|E|"),
    ("echo-tree", "4|E|"),
    ("bully-worst-8", "N²−N−1"),
    ("time-slice-ring", "N"),
    ("lelann-all", "N²"),
];

/// The messages of the formula's kinds a preset's run sends, and the value the lab shows.
fn shown_and_counted(preset: &str, formula: &str) -> (Option<u64>, u64) {
    let p = presets::find(preset).unwrap_or_else(|| panic!("no preset {preset}"));
    let mut e = Engine::new(p.scenario()).unwrap();
    e.run_to_end();
    assert!(e.quiescent(), "{preset} did not finish");
    let alg = e.algorithm();
    let f = alg.formulas.iter().find(|f| f.name == formula).unwrap_or_else(|| panic!("{}: no {formula}", alg.id));
    let counted = e.metrics().by_kind.iter().filter(|(k, _)| f.counts.contains(k)).map(|(_, c)| c).sum();
    (alg.theory(f, e.scenario()), counted)
}

#[test]
fn every_exact_formula_shows_its_presets_count() {
    for &(preset, formula) in EXACT {
        let (shown, counted) = shown_and_counted(preset, formula);
        assert_eq!(shown, Some(counted), "{preset}: {formula} shown, against the run's count");
    }
}

#[test]
fn an_upper_bound_on_a_graph_bounds_its_presets_count() {
    let (shown, counted) = shown_and_counted("echo-grid", "2k|E|+2|E|");
    assert!(shown.is_some_and(|v| counted <= v), "echo-grid: {counted} > {shown:?}");
    // Six initiators on the grid: more than one wave's worth, so the bound is not idle.
    let (one, _) = shown_and_counted("echo-grid", "4|E|");
    assert!(one.is_some_and(|v| counted > v), "echo-grid: {counted} ≤ {one:?}");
}

/// The figures of the network, against the graph's own definition of them.
#[test]
fn the_network_of_a_run_is_its_topology_or_the_algorithms_own() {
    let grid = json!({"algorithm": "floodmax", "nodes": (1..=12).collect::<Vec<u32>>(), "network": {"model": "rounds"},
        "topology": {"generate": "grid", "rows": 3, "cols": 4}});
    let s = Scenario::from_value(&grid).unwrap();
    let g = s.topology.as_ref().unwrap();
    let alg = registry::find("floodmax").unwrap();
    let net = alg.net(&s);
    assert_eq!(net, Net { n: 12, links: g.edges.len() as u64, diameter: g.diameter(12).unwrap() as u64, given: true });
    assert_eq!(net.links, 3 * 3 + 2 * 4, "a 3×4 grid: 3 rows of 3 links, 4 columns of 2");
    assert_eq!(net.diameter, 2 + 3, "corner to corner");
    for (topology, links, diameter) in
        [(Topology::Complete, 15, 1), (Topology::Ring, 6, 5), (Topology::BidirectionalRing, 6, 3)]
    {
        let alg = registry::all().iter().find(|a| a.topology == topology).unwrap();
        let s = Scenario::from_value(&json!({"algorithm": alg.id, "nodes": [1, 2, 3, 4, 5, 6]})).unwrap();
        assert_eq!(alg.net(&s), Net { n: 6, links, diameter, given: false }, "{}", alg.id);
    }
}

/// On a graph of the scenario's, only formulas written for graphs are shown; the algorithms
/// on general graphs write each of theirs so.
#[test]
fn a_formula_of_n_alone_is_not_shown_on_a_given_graph() {
    let given = Net { n: 16, links: 24, diameter: 6, given: true };
    for a in registry::all() {
        for f in a.formulas {
            match a.topology {
                Topology::Graph => assert!(f.graph.is_some(), "{}: {} is not written for a graph", a.id, f.name),
                _ => assert_eq!(f.at(&given), f.graph.map(|g| g(&given)), "{}: {}", a.id, f.name),
            }
        }
    }
}
