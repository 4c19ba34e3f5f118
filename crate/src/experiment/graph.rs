//! Experiments over networks of any shape: a grid given without its size is made as square as
//! each node count allows, and a plot may read its x axis as the network's diameter (each line
//! has one graph per node count, so one diameter).

use super::*;

/// Fills in `rows` and `cols` of a grid topology given without them (`{"generate": "grid"}`)
/// for `n` nodes: the most square grid of n nodes (a line when n is prime).
pub(super) fn size_grid(sv: &mut Value, n: usize) {
    let Some(t) = sv.get_mut("topology").and_then(Value::as_object_mut) else { return };
    if t.get("generate").and_then(Value::as_str) != Some("grid") || t.contains_key("rows") || t.contains_key("cols") {
        return;
    }
    let rows = (1..=n).take_while(|r| r * r <= n).filter(|r| n % r == 0).last().unwrap_or(1);
    t.insert("rows".into(), json!(rows));
    t.insert("cols".into(), json!(n / rows));
}

impl Sweep {
    /// Where group `g` stands on the plot's x axis: its node count, or its network's diameter.
    pub(super) fn x_of(&self, g: &Group) -> f64 {
        let diameter = || {
            let job = self.jobs.iter().find(|j| j.line == g.line && j.scenario.nodes.len() == g.nodes as usize)?;
            Some(self.lines[g.line].algorithm.net(&job.scenario).diameter as f64)
        };
        match self.plot.x {
            XAxis::Nodes => g.nodes as f64,
            XAxis::Diameter => diameter().unwrap_or(g.nodes as f64),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::size_grid;
    use serde_json::json;

    #[test]
    fn a_grid_without_its_size_is_as_square_as_n_allows() {
        for (n, rows, cols) in [(16, 4, 4), (12, 3, 4), (7, 1, 7), (1, 1, 1)] {
            let mut v = json!({"topology": {"generate": "grid"}});
            size_grid(&mut v, n);
            assert_eq!(v["topology"], json!({"generate": "grid", "rows": rows, "cols": cols}), "N = {n}");
        }
        let mut given = json!({"topology": {"generate": "grid", "rows": 2, "cols": 8}});
        size_grid(&mut given, 16);
        assert_eq!(given["topology"]["rows"], 2, "a given size is kept");
    }
}
