//! A scenario's network graph (`topology`): which nodes share a link, given as a list of links
//! or by one of the engine's generators, and where the nodes stand on the canvas.
//!
//! ```json
//! "topology": {"generate": "grid", "rows": 4, "cols": 4}
//! "topology": {"generate": "tree", "fanout": 2}
//! "topology": {"generate": "random", "degree": 3, "seed": 7}
//! "topology": {"links": [[1, 2], [2, 3]], "directed": false, "positions": [[100, 500], …]}
//! ```
//!
//! Generators (`ring`, `bidirectional-ring`, `complete`, `line`, `star`, `grid`, `tree`,
//! `random`) link the nodes in scenario order; `random` draws its links from the engine's own
//! generator ([`crate::rng`]) seeded by its `seed`, so the same scenario always gives the same
//! graph. A scenario without `topology` keeps the network its algorithm assumes (complete or a
//! ring), exactly as before. Positions are in the 1000 × 1000 box of [`crate::layout`]: given
//! ones are kept, `grid`, `tree`, `line` and `star` place the nodes themselves, the others leave
//! the circle.

use crate::error::ScenarioError;
use crate::read::{kind, Obj};
use crate::rng::Pcg32;
use crate::NodeId;
use serde_json::{json, Map, Value};
use std::collections::{BTreeSet, VecDeque};

/// How the links were given.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Shape {
    /// An explicit list of links.
    Links,
    /// A unidirectional ring in scenario order (directed links to the successor).
    Ring,
    BidirectionalRing,
    Complete,
    Line,
    /// The first node in the centre, linked to every other.
    Star,
    Grid {
        rows: u32,
        cols: u32,
    },
    /// Node k's parent is node (k − 1) / fanout, in scenario order.
    Tree {
        fanout: u32,
    },
    /// A random spanning tree plus random links up to an average degree.
    Random {
        degree: u32,
        seed: u64,
    },
}

/// The generators' names, as `generate` reads them.
pub const GENERATORS: &[&str] = &["ring", "bidirectional-ring", "complete", "line", "star", "grid", "tree", "random"];

/// The network graph of a scenario, on node positions (indices in scenario order).
#[derive(Clone, Debug, PartialEq)]
pub struct Graph {
    pub shape: Shape,
    /// Links carry messages one way only.
    pub directed: bool,
    /// Each link once: `(a, b)` with `a < b` when undirected, `a → b` when directed; sorted.
    pub edges: Vec<(u32, u32)>,
    /// Where each node stands, if the scenario or the generator says.
    pub positions: Option<Vec<[i32; 2]>>,
    /// Whether `positions` came from the scenario (written back) or the generator.
    given_positions: bool,
}

impl Shape {
    /// The name a scenario gives it (`links` for an explicit list).
    pub fn name(&self) -> &'static str {
        match self {
            Shape::Links => "links",
            Shape::Ring => "ring",
            Shape::BidirectionalRing => "bidirectional-ring",
            Shape::Complete => "complete",
            Shape::Line => "line",
            Shape::Star => "star",
            Shape::Grid { .. } => "grid",
            Shape::Tree { .. } => "tree",
            Shape::Random { .. } => "random",
        }
    }
}

impl Graph {
    /// Reads `topology` (a generator's name, or an object) for the nodes `nodes`.
    pub fn read(v: &Value, nodes: &[NodeId]) -> Result<Graph, ScenarioError> {
        let n = nodes.len() as u32;
        if let Some(name) = v.as_str() {
            let shape = match name {
                "ring" => Shape::Ring,
                "bidirectional-ring" => Shape::BidirectionalRing,
                "complete" => Shape::Complete,
                "line" => Shape::Line,
                "star" => Shape::Star,
                "grid" | "tree" | "random" => {
                    return Err(ScenarioError::new(
                        "topology",
                        format!("\"{name}\" needs its parameters: write {{\"generate\": \"{name}\", …}}"),
                    ))
                }
                _ => return Err(unknown_generator("topology", name)),
            };
            return Ok(Graph::generate(shape, n));
        }
        let keys = ["generate", "links", "directed", "positions", "rows", "cols", "fanout", "degree", "seed"];
        let o = Obj::new(v, "topology".into(), &keys)?;
        let mut graph = match (o.get("generate"), o.get("links")) {
            (Some(_), Some(_)) => {
                return Err(ScenarioError::new("topology", "give either links or a generator (generate), not both"))
            }
            (None, None) => return Err(ScenarioError::new("topology", "needs links or a generator (generate)")),
            (None, Some(_)) => Graph::read_links(&o, nodes)?,
            (Some(g), None) => {
                let name = o.string_of("generate", g)?;
                let allowed: &[&str] = match name.as_str() {
                    "grid" => &["generate", "rows", "cols", "positions"],
                    "tree" => &["generate", "fanout", "positions"],
                    "random" => &["generate", "degree", "seed", "positions"],
                    _ => &["generate", "positions"],
                };
                if let Some(k) = o.map.keys().find(|k| !allowed.contains(&k.as_str())) {
                    return Err(ScenarioError::new(
                        o.field(k),
                        format!("the {name} generator takes only `{}`", allowed.join("`, `")),
                    ));
                }
                let positive = |k: &str| -> Result<u32, ScenarioError> {
                    match o.uint(k)? {
                        0 => Err(ScenarioError::new(o.field(k), "must be at least 1")),
                        x if x > n.max(1) as u64 => {
                            Err(ScenarioError::new(o.field(k), format!("{x} is more than the {n} nodes")))
                        }
                        x => Ok(x as u32),
                    }
                };
                let shape = match name.as_str() {
                    "ring" => Shape::Ring,
                    "bidirectional-ring" => Shape::BidirectionalRing,
                    "complete" => Shape::Complete,
                    "line" => Shape::Line,
                    "star" => Shape::Star,
                    "grid" => {
                        let (rows, cols) = (positive("rows")?, positive("cols")?);
                        if rows * cols != n {
                            return Err(ScenarioError::new(
                                "topology.rows",
                                format!("a {rows}×{cols} grid has {} places for {n} nodes", rows * cols),
                            ));
                        }
                        Shape::Grid { rows, cols }
                    }
                    "tree" => Shape::Tree { fanout: positive("fanout")? },
                    "random" => Shape::Random { degree: positive("degree")?, seed: o.uint_or("seed", 0)? },
                    other => return Err(unknown_generator("topology.generate", other)),
                };
                Graph::generate(shape, n)
            }
        };
        if let Some(p) = o.get("positions") {
            graph.positions = Some(read_positions(p, n as usize)?);
            graph.given_positions = true;
        }
        Ok(graph)
    }

    fn read_links(o: &Obj, nodes: &[NodeId]) -> Result<Graph, ScenarioError> {
        let directed = o.bool_or("directed", false)?;
        let index = |path: &str, v: &Value| -> Result<u32, ScenarioError> {
            let id = v.as_u64().and_then(|x| NodeId::try_from(x).ok()).ok_or_else(|| {
                ScenarioError::new(path, format!("expected [from, to] (two node ids), found {}", kind(v)))
            })?;
            nodes
                .iter()
                .position(|&x| x == id)
                .map(|i| i as u32)
                .ok_or_else(|| ScenarioError::new(path, format!("unknown node {id}")))
        };
        let mut edges = BTreeSet::new();
        for (i, l) in o.list("links")?.iter().enumerate() {
            let path = format!("topology.links[{i}]");
            let [a, b] = l.as_array().map(Vec::as_slice).unwrap_or_default() else {
                return Err(ScenarioError::new(path, "expected [from, to] (two node ids)"));
            };
            let (a, b) = (index(&path, a)?, index(&path, b)?);
            if a == b {
                return Err(ScenarioError::new(path, "a link needs two different nodes"));
            }
            let e = if directed { (a, b) } else { (a.min(b), a.max(b)) };
            if !edges.insert(e) {
                return Err(ScenarioError::new(path, "this link is listed twice"));
            }
        }
        Ok(Graph {
            shape: Shape::Links,
            directed,
            edges: edges.into_iter().collect(),
            positions: None,
            given_positions: false,
        })
    }

    /// The graph a generator gives on `n` nodes (in scenario order), with its own positions.
    pub fn generate(shape: Shape, n: u32) -> Graph {
        let mut edges = BTreeSet::new();
        let mut link = |a: u32, b: u32| {
            if a != b {
                edges.insert((a.min(b), a.max(b)));
            }
        };
        let mut positions = None;
        let mut directed = false;
        match shape {
            Shape::Links => {}
            Shape::Ring => directed = true,
            Shape::BidirectionalRing => (0..n).for_each(|i| link(i, (i + 1) % n)),
            Shape::Complete => (0..n).for_each(|i| (i + 1..n).for_each(|j| link(i, j))),
            Shape::Line => {
                (1..n).for_each(|i| link(i - 1, i));
                positions = Some((0..n).map(|i| spread(i, n, 500)).collect());
            }
            Shape::Star => {
                (1..n).for_each(|i| link(0, i));
                positions = Some(
                    (0..n)
                        .map(|i| match i {
                            0 => [500, 500],
                            _ => circle(i - 1, n - 1),
                        })
                        .collect(),
                );
            }
            Shape::Grid { rows, cols } => {
                for r in 0..rows {
                    for c in 0..cols {
                        let i = r * cols + c;
                        if c + 1 < cols {
                            link(i, i + 1);
                        }
                        if r + 1 < rows {
                            link(i, i + cols);
                        }
                    }
                }
                positions =
                    Some((0..n).map(|i| [spread(i % cols, cols, 0)[0], spread(i / cols, rows, 0)[0]]).collect());
            }
            Shape::Tree { fanout } => {
                (1..n).for_each(|i| link((i - 1) / fanout, i));
                positions = Some(tree_positions(n, fanout));
            }
            Shape::Random { degree, seed } => random_links(n, degree, seed, &mut link),
        }
        let mut edges: Vec<(u32, u32)> = edges.into_iter().collect();
        if directed {
            edges = (0..n).filter(|_| n > 1).map(|i| (i, (i + 1) % n)).collect();
            edges.sort_unstable();
            edges.dedup();
        }
        Graph { shape, directed, edges, positions, given_positions: false }
    }

    /// The same generator on `n` nodes (for a scenario scaled to another size), if it has no
    /// fixed size: `None` for a list of links and a grid.
    pub fn resized(&self, n: u32) -> Option<Graph> {
        match self.shape {
            Shape::Links | Shape::Grid { .. } => None,
            Shape::Tree { fanout } => Some(Graph::generate(Shape::Tree { fanout: fanout.min(n.max(1)) }, n)),
            ref s => Some(Graph::generate(s.clone(), n)),
        }
    }

    /// Each node's neighbours (whom it may send to), as positions in scenario order, ascending.
    pub fn out_neighbours(&self, n: usize) -> Vec<Vec<u32>> {
        let mut out = vec![Vec::new(); n];
        for &(a, b) in &self.edges {
            out[a as usize].push(b);
            if !self.directed {
                out[b as usize].push(a);
            }
        }
        out.iter_mut().for_each(|v| v.sort_unstable());
        out
    }

    /// Each node's neighbours as ids (of `nodes`, in scenario order), ascending: what a run's
    /// [`crate::protocol::Config::links`] holds.
    pub fn neighbour_ids(&self, nodes: &[NodeId]) -> Vec<Vec<NodeId>> {
        let id = |v: Vec<u32>| {
            let mut ids: Vec<NodeId> = v.into_iter().filter_map(|i| nodes.get(i as usize).copied()).collect();
            ids.sort_unstable();
            ids
        };
        self.out_neighbours(nodes.len()).into_iter().map(id).collect()
    }

    /// Whether every node reaches every other (along links, either way when undirected).
    pub fn is_connected(&self, n: usize) -> bool {
        let out = self.out_neighbours(n);
        (0..n).all(|s| distances(&out, s).iter().all(|d| d.is_some())) || n <= 1
    }

    /// The longest shortest path in hops (`None` if some node does not reach another).
    pub fn diameter(&self, n: usize) -> Option<u32> {
        let out = self.out_neighbours(n);
        let mut diam = 0;
        for s in 0..n {
            for d in distances(&out, s) {
                diam = diam.max(d?);
            }
        }
        Some(diam)
    }

    /// The topology as JSON, in the shape [`Graph::read`] reads (generators by their
    /// parameters, so the random graph is the one its seed gives).
    pub fn to_value(&self, nodes: &[NodeId]) -> Value {
        let mut obj = Map::new();
        match &self.shape {
            Shape::Links => {
                let links: Vec<Value> =
                    self.edges.iter().map(|&(a, b)| json!([nodes[a as usize], nodes[b as usize]])).collect();
                obj.insert("links".into(), Value::Array(links));
                obj.insert("directed".into(), json!(self.directed));
            }
            s => {
                obj.insert("generate".into(), json!(s.name()));
                match *s {
                    Shape::Grid { rows, cols } => {
                        obj.insert("rows".into(), json!(rows));
                        obj.insert("cols".into(), json!(cols));
                    }
                    Shape::Tree { fanout } => {
                        obj.insert("fanout".into(), json!(fanout));
                    }
                    Shape::Random { degree, seed } => {
                        obj.insert("degree".into(), json!(degree));
                        obj.insert("seed".into(), json!(seed));
                    }
                    _ => {}
                }
            }
        }
        if let (true, Some(p)) = (self.given_positions, &self.positions) {
            obj.insert("positions".into(), json!(p));
        }
        Value::Object(obj)
    }
}

fn unknown_generator(field: &str, name: &str) -> ScenarioError {
    ScenarioError::new(field, format!("unknown generator \"{name}\" (expected one of: {})", GENERATORS.join(", ")))
}

fn read_positions(v: &Value, n: usize) -> Result<Vec<[i32; 2]>, ScenarioError> {
    let list = v.as_array().ok_or_else(|| {
        ScenarioError::new("topology.positions", format!("expected a list of [x, y], found {}", kind(v)))
    })?;
    if list.len() != n {
        return Err(ScenarioError::new(
            "topology.positions",
            format!("{} positions for {n} nodes: give one [x, y] per node, in scenario order", list.len()),
        ));
    }
    list.iter()
        .enumerate()
        .map(|(i, p)| {
            let xy: Option<Vec<i32>> = p.as_array().and_then(|a| {
                a.iter().map(|c| c.as_i64().filter(|c| (0..=1000).contains(c)).map(|c| c as i32)).collect()
            });
            match xy.as_deref() {
                Some(&[x, y]) => Ok([x, y]),
                _ => Err(ScenarioError::new(
                    format!("topology.positions[{i}]"),
                    "expected [x, y], two whole numbers from 0 to 1000",
                )),
            }
        })
        .collect()
}

/// Hop counts from node `s` (`None`: unreachable).
fn distances(out: &[Vec<u32>], s: usize) -> Vec<Option<u32>> {
    let mut d = vec![None; out.len()];
    d[s] = Some(0);
    let mut queue = VecDeque::from([s]);
    while let Some(u) = queue.pop_front() {
        for &v in &out[u] {
            if d[v as usize].is_none() {
                d[v as usize] = Some(d[u].unwrap_or(0) + 1);
                queue.push_back(v as usize);
            }
        }
    }
    d
}

/// The i-th of `n` places spread evenly across the box (at height `y`).
fn spread(i: u32, n: u32, y: i32) -> [i32; 2] {
    let x = if n <= 1 { 500 } else { 100 + (800 * i / (n - 1)) as i32 };
    [x, y]
}

fn circle(i: u32, n: u32) -> [i32; 2] {
    let (x, y) = crate::layout::position(i as usize, n as usize);
    [x.round() as i32, y.round() as i32]
}

/// A tree drawn in layers from the top, each layer's nodes spread across.
fn tree_positions(n: u32, fanout: u32) -> Vec<[i32; 2]> {
    let mut depth = vec![0u32; n as usize];
    for i in 1..n {
        depth[i as usize] = depth[((i - 1) / fanout) as usize] + 1;
    }
    let layers = depth.iter().max().copied().unwrap_or(0) + 1;
    (0..n)
        .map(|i| {
            let d = depth[i as usize];
            let first = (0..n).position(|j| depth[j as usize] == d).unwrap_or(0) as u32;
            let width = depth.iter().filter(|&&x| x == d).count() as u32;
            let x = if width == 1 { 500 } else { 100 + (800 * (i - first) / (width - 1)) as i32 };
            [x, spread(d, layers, 0)[0]]
        })
        .collect()
}

/// A connected random graph: a random spanning tree (each node after the first in a shuffled
/// order joins one already placed), then random extra links until the average degree reaches
/// `degree` (or the graph is complete).
fn random_links(n: u32, degree: u32, seed: u64, link: &mut impl FnMut(u32, u32)) {
    if n < 2 {
        return;
    }
    let mut rng = Pcg32::new(seed, 0x70_70);
    let mut order: Vec<u32> = (0..n).collect();
    for i in (1..n as usize).rev() {
        order.swap(i, rng.range_inclusive(0, i as u64) as usize);
    }
    let mut have = BTreeSet::new();
    for k in 1..n as usize {
        let (a, b) = (order[k], order[rng.range_inclusive(0, k as u64 - 1) as usize]);
        have.insert((a.min(b), a.max(b)));
    }
    let most = n as u64 * (n as u64 - 1) / 2;
    let want = (n as u64 * degree as u64 / 2).clamp(n as u64 - 1, most);
    while (have.len() as u64) < want {
        let a = rng.range_inclusive(0, n as u64 - 1) as u32;
        let b = rng.range_inclusive(0, n as u64 - 1) as u32;
        if a != b {
            have.insert((a.min(b), a.max(b)));
        }
    }
    have.into_iter().for_each(|(a, b)| link(a, b));
}
