//! Formulas: the message counts theory gives, evaluated on the network a run actually has.

use super::Text;

/// A message count that theory gives, to show beside the measured one.
#[derive(Clone, Copy, Debug)]
pub struct Formula {
    /// The formula as written: `N²−N−1`.
    pub name: &'static str,
    /// When it applies: "worst case: the top id crashed and every other node starts at once".
    pub applies: Text,
    /// The message kinds it counts.
    pub counts: &'static [&'static str],
    /// Its value for N nodes on the algorithm's own network (complete, or its ring).
    pub value: fn(u64) -> u64,
    /// Its value on the network a run actually has ([`Net`]: N, links, diameter), for a
    /// formula of the graph. `None`: the formula is about the algorithm's own network only, and
    /// does not apply to a scenario that gives another one (a `topology`).
    pub graph: Option<fn(&Net) -> u64>,
}

impl Formula {
    /// A formula about the algorithm's own network (complete, or its ring) only: it does not
    /// apply to a scenario that gives another network (`graph` is `None`).
    pub const fn new(
        name: &'static str,
        applies: Text,
        counts: &'static [&'static str],
        value: fn(u64) -> u64,
    ) -> Self {
        Formula { name, applies, counts, value, graph: None }
    }

    /// The same formula, also valid on any network a scenario gives, where `graph` computes it.
    pub const fn on_graph(self, graph: fn(&Net) -> u64) -> Self {
        Formula { graph: Some(graph), ..self }
    }

    /// Its value on network `net`, or `None` where it does not apply (a graph it does not
    /// describe): what every place that shows or compares a formula's value uses.
    pub fn at(&self, net: &Net) -> Option<u64> {
        match self.graph {
            Some(g) => Some(g(net)),
            None if net.given => None,
            None => Some((self.value)(net.n)),
        }
    }
}

/// The figures of a run's network that formulas read, computed once from its scenario
/// ([`crate::algorithm::Algorithm::net`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Net {
    /// Nodes.
    pub n: u64,
    /// Links, each counted once (|E|).
    pub links: u64,
    /// The longest shortest path in hops (0 on one node; 0 too if some node cannot reach another).
    pub diameter: u64,
    /// Whether the scenario gave the graph (`topology`) rather than the algorithm's own network.
    pub given: bool,
}
