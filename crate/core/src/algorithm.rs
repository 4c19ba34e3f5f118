//! An algorithm's descriptor: everything the engine, CLI, UI and tests need to know about it,
//! declared once in the algorithm's own module and listed in [`crate::registry`].

use crate::error::ScenarioError;
use crate::meta::{Formula, Kind, Net, Preset, Property, Role, Text, Topology};
use crate::scenario::Scenario;
use crate::sim::Sim;

/// How a descriptor builds a run of its protocol.
pub type Build = fn(&Scenario, &'static [Property]) -> Result<Sim, ScenarioError>;

/// One registered algorithm.
pub struct Algorithm {
    /// The scenario's `algorithm` value: `bully`, `chang-roberts`.
    pub id: &'static str,
    pub title: Text,
    /// The original paper: author(s), year, title, venue.
    pub citation: &'static str,
    /// One sentence: the idea of the algorithm.
    pub summary: Text,
    /// The "how it works" card: its rules, its message kinds, what to watch. Paragraphs are
    /// separated by blank lines; a line starting with "• " is a bullet.
    pub card: Text,
    pub topology: Topology,
    /// Message kinds, in the protocol's kind order.
    pub kinds: &'static [Kind],
    /// Node roles its views use (`View::role`), each with how it is drawn.
    pub roles: &'static [Role],
    /// Message counts theory gives.
    pub formulas: &'static [Formula],
    /// Safety properties it claims.
    pub properties: &'static [Property],
    pub presets: &'static [Preset],
    /// Builds a run (points to [`crate::run::build`] for the protocol type).
    pub build: Build,
}

impl Algorithm {
    pub fn kind(&self, name: &str) -> Option<&'static Kind> {
        self.kinds.iter().find(|k| k.name == name)
    }
    pub fn role(&self, name: &str) -> Option<&'static Role> {
        self.roles.iter().find(|r| r.name == name)
    }
    pub fn property(&self, id: &str) -> Option<&'static Property> {
        self.properties.iter().find(|p| p.id == id)
    }
    pub fn preset(&self, id: &str) -> Option<&'static Preset> {
        self.presets.iter().find(|p| p.id == id)
    }

    /// The network a run of `scenario` has: its `topology`, or else this algorithm's own
    /// network (complete, or a ring in scenario order).
    pub fn net(&self, scenario: &Scenario) -> Net {
        let n = scenario.nodes.len() as u64;
        if let Some(g) = &scenario.topology {
            let diameter = g.diameter(n as usize).unwrap_or(0) as u64;
            return Net { n, links: g.edges.len() as u64, diameter, given: true };
        }
        let (links, diameter) = match self.topology {
            _ if n <= 1 => (0, 0),
            Topology::Ring => (n, n - 1),
            Topology::BidirectionalRing if n == 2 => (1, 1),
            Topology::BidirectionalRing => (n, n / 2),
            _ => (n * (n - 1) / 2, 1),
        };
        Net { n, links, diameter, given: false }
    }

    /// Formula `f`'s value on the network of `scenario`, or `None` where it does not apply.
    pub fn theory(&self, f: &Formula, scenario: &Scenario) -> Option<u64> {
        f.at(&self.net(scenario))
    }

    /// Refuses a scenario whose network this algorithm cannot run on, naming the field: a
    /// `topology` is for the algorithms on general graphs ([`Topology::Graph`]), which need it
    /// undirected and connected. Every other algorithm runs on its own network (complete, or
    /// a ring in scenario order) and refuses one.
    pub fn check_network(&self, scenario: &Scenario) -> Result<(), ScenarioError> {
        let Some(g) = &scenario.topology else { return Ok(()) };
        if self.topology != Topology::Graph {
            let own = match self.topology {
                Topology::Ring => "a ring in the order of `nodes`",
                Topology::BidirectionalRing => "a two-way ring in the order of `nodes`",
                _ => "a complete network",
            };
            return Err(ScenarioError::new(
                "topology",
                format!(
                    "{} runs on {own} and takes no topology (\"{}\"); a topology is for the algorithms on general graphs",
                    self.id,
                    g.shape.name()
                ),
            ));
        }
        if g.directed {
            return Err(ScenarioError::new(
                "topology",
                format!("{} needs two-way links: \"{}\" gives one-way links", self.id, g.shape.name()),
            ));
        }
        if !g.is_connected(scenario.nodes.len()) {
            return Err(ScenarioError::new(
                "topology",
                format!("{} needs a connected graph: some nodes cannot reach each other", self.id),
            ));
        }
        Ok(())
    }
}

impl std::fmt::Debug for Algorithm {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "Algorithm({})", self.id)
    }
}

impl PartialEq for Algorithm {
    fn eq(&self, other: &Self) -> bool {
        self.id == other.id
    }
}
