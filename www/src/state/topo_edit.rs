//! The network editor's draft (the workbench's *edit network* mode): the nodes, where they stand
//! and the links between them as the user draws them, with undo and redo of every edit. Pure, so
//! it is tested natively; `components/topology_editor.rs` draws it and turns gestures and keys
//! into [`Edit`]s. The draft becomes the scenario's `topology` (explicit two-way links and the
//! nodes' positions), which the page then runs, and which links and exports carry.

use crate::i18n::Lang;
use election_lab::meta::{k, Topology};
use election_lab::scenario::Graph;
use election_lab::{NodeId, Scenario};
use serde_json::json;
use std::rc::Rc;

/// The most nodes the editor makes (the page's own limit).
pub const MAX_NODES: usize = super::limits::MAX_NODES;
/// How far an arrow key moves a node (Shift: four times as far), in canvas units (the box is 1000).
pub const NUDGE: i32 = 25;
/// Nodes are kept this far from the box's edges.
const MARGIN: i32 = 40;

/// The graph drawn: node ids in scenario order, each one's place, the links (each once, the
/// smaller id first, sorted).
#[derive(Clone, Debug, PartialEq, Default)]
pub struct Sketch {
    pub nodes: Vec<NodeId>,
    pub pos: Vec<[i32; 2]>,
    pub links: Vec<(NodeId, NodeId)>,
}

/// What is chosen: a node, or a link.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Chosen {
    Node(NodeId),
    Link(NodeId, NodeId),
}

/// What the user does to the draft.
#[derive(Clone, Debug, PartialEq)]
pub enum Edit {
    /// Start editing `scenario`, its nodes standing at `pos` (as the canvas drew them). A draft
    /// that already gives this very scenario is kept with its history.
    Open(Rc<Scenario>, Vec<[i32; 2]>),
    /// A new node at this place (a click on empty space); `None`: at a free place (a key).
    Add(Option<[i32; 2]>),
    /// Remove what is chosen (a node with its links, or a link).
    Remove,
    RemoveNode(NodeId),
    RemoveLink(NodeId, NodeId),
    /// Link two nodes (dragged from one to the other); linked already: nothing changes.
    Link(NodeId, NodeId),
    Move(NodeId, [i32; 2]),
    /// Move the chosen node by this much (arrow keys).
    Nudge(i32, i32),
    Choose(Option<Chosen>),
    /// Link mode: the next node picked is linked to the chosen one (or unlinked if they are).
    StartLink,
    /// A node picked by Enter, Space or a tap: in link mode it links (or unlinks) it with the
    /// node link mode started from, else it becomes the chosen one.
    Pick(NodeId),
    Undo,
    Redo,
    /// Leave link mode, else forget the choice.
    Cancel,
}

/// Why the draft is not run (yet): the graph is kept, the run stays on the last one applied.
#[derive(Clone, Debug, PartialEq)]
pub enum Refusal {
    /// The algorithm runs on its own network (complete, a ring) and takes no drawn one.
    NotOnGraphs,
    /// Some nodes cannot reach each other.
    Disconnected,
    /// What the scenario reader said.
    Invalid(String),
}

#[derive(Clone, Debug, PartialEq, Default)]
pub struct Draft {
    /// The scenario edited (everything but its nodes and network graph comes from it).
    pub base: Option<Rc<Scenario>>,
    pub now: Sketch,
    undo: Vec<Sketch>,
    redo: Vec<Sketch>,
    pub chosen: Option<Chosen>,
    /// In link mode, the node the link starts from.
    pub linking: Option<NodeId>,
    /// Bumped by every change to the graph (edits, undo, redo): the page applies it then.
    pub rev: u64,
}

impl Sketch {
    /// The graph `scenario` runs on, its nodes at `pos`: its `topology`'s links, else the
    /// network its algorithm assumes (a ring in scenario order, else complete).
    pub fn of(scenario: &Scenario, pos: Vec<[i32; 2]>) -> Sketch {
        let nodes = scenario.nodes.clone();
        let n = nodes.len();
        let index: Vec<(u32, u32)> = match &scenario.topology {
            Some(g) => g.edges.clone(),
            None => match crate::meta::algorithm_of(scenario).topology {
                Topology::Ring | Topology::BidirectionalRing if n > 2 => {
                    (0..n as u32).map(|i| (i, (i + 1) % n as u32)).collect()
                }
                _ => (0..n as u32).flat_map(|i| (i + 1..n as u32).map(move |j| (i, j))).collect(),
            },
        };
        let mut s = Sketch { nodes, pos, links: Vec::new() };
        for (a, b) in index {
            if let (Some(&a), Some(&b)) = (s.nodes.get(a as usize), s.nodes.get(b as usize)) {
                s.insert_link(a, b);
            }
        }
        s
    }

    fn at(&self, id: NodeId) -> Option<usize> {
        self.nodes.iter().position(|&x| x == id)
    }

    pub fn place(&self, id: NodeId) -> Option<[i32; 2]> {
        self.at(id).map(|i| self.pos[i])
    }

    pub fn linked(&self, a: NodeId, b: NodeId) -> bool {
        self.links.binary_search(&(a.min(b), a.max(b))).is_ok()
    }

    fn insert_link(&mut self, a: NodeId, b: NodeId) -> bool {
        let e = (a.min(b), a.max(b));
        match self.links.binary_search(&e) {
            Err(i) if a != b && self.at(a).is_some() && self.at(b).is_some() => {
                self.links.insert(i, e);
                true
            }
            _ => false,
        }
    }

    /// A place for a new node: the first point of a coarse grid, from the centre outwards, clear
    /// of every node.
    fn free_place(&self) -> [i32; 2] {
        let clear = |p: [i32; 2]| self.pos.iter().all(|q| (p[0] - q[0]).pow(2) + (p[1] - q[1]).pow(2) >= 150 * 150);
        for ring in 0..12i32 {
            for dy in -ring..=ring {
                for dx in -ring..=ring {
                    let p = [500 + dx * 75, 500 + dy * 75];
                    if dx.abs().max(dy.abs()) == ring && (MARGIN..=1000 - MARGIN).contains(&p[0]) && clear(p) {
                        return p;
                    }
                }
            }
        }
        [500, 500]
    }

    /// The scenario `base` with this graph: its nodes, explicit two-way links and positions.
    /// Faults of the schedule, an initial leader and fenced writes naming a removed node go.
    pub fn scenario(&self, base: &Scenario) -> Result<Scenario, Refusal> {
        let mut s = base.clone();
        s.nodes = self.nodes.clone();
        s.schedule.retain(|x| x.action.validate(&s.nodes, "schedule").is_ok());
        s.initial_leader = s.initial_leader.filter(|l| s.nodes.contains(l));
        if let Some(f) = &mut s.fencing {
            f.writes.retain(|w| s.nodes.contains(&w.node));
        }
        s.fencing = s.fencing.filter(|f| f.write_every > 0 || !f.writes.is_empty());
        let topology = json!({ "links": self.links, "directed": false, "positions": self.pos });
        let g = Graph::read(&topology, &s.nodes).map_err(|e| Refusal::Invalid(e.to_string()))?;
        let connected = g.is_connected(s.nodes.len());
        s.topology = Some(Box::new(g));
        if crate::meta::algorithm_of(&s).topology != Topology::Graph {
            return Err(Refusal::NotOnGraphs);
        }
        if !connected {
            return Err(Refusal::Disconnected);
        }
        Ok(s)
    }
}

fn clamp(p: [i32; 2]) -> [i32; 2] {
    [p[0].clamp(MARGIN, 1000 - MARGIN), p[1].clamp(MARGIN, 1000 - MARGIN)]
}

impl Draft {
    /// The scenario the draft gives, or why it is not run.
    pub fn result(&self) -> Option<Result<Scenario, Refusal>> {
        self.base.as_ref().map(|b| self.now.scenario(b))
    }

    pub fn can_undo(&self) -> bool {
        !self.undo.is_empty()
    }

    pub fn can_redo(&self) -> bool {
        !self.redo.is_empty()
    }

    /// Applies `edit`; returns whether anything changed.
    pub fn edit(&mut self, edit: Edit) -> bool {
        let mut next = self.now.clone();
        match edit {
            Edit::Open(scenario, pos) => {
                let same = self.base.is_some() && self.now.scenario(&scenario).as_ref() == Ok(&*scenario);
                if !same {
                    *self = Draft { rev: self.rev, ..Draft::default() };
                    self.now = Sketch::of(&scenario, pos.into_iter().map(clamp).collect());
                }
                self.base = Some(scenario);
                self.linking = None;
                return true;
            }
            Edit::Add(at) => {
                if next.nodes.len() >= MAX_NODES {
                    return false;
                }
                let id = next.nodes.iter().max().map_or(1, |m| m + 1);
                let p = at.map_or_else(|| next.free_place(), clamp);
                next.nodes.push(id);
                next.pos.push(p);
                self.chosen = Some(Chosen::Node(id));
            }
            Edit::Remove => {
                return match self.chosen {
                    Some(Chosen::Node(id)) => self.edit(Edit::RemoveNode(id)),
                    Some(Chosen::Link(a, b)) => self.edit(Edit::RemoveLink(a, b)),
                    None => false,
                }
            }
            Edit::RemoveNode(id) => {
                let Some(i) = next.at(id).filter(|_| next.nodes.len() > 1) else { return false };
                next.nodes.remove(i);
                next.pos.remove(i);
                next.links.retain(|&(a, b)| a != id && b != id);
                self.chosen = None;
                self.linking = None;
            }
            Edit::RemoveLink(a, b) => {
                let Ok(i) = next.links.binary_search(&(a.min(b), a.max(b))) else { return false };
                next.links.remove(i);
                self.chosen = None;
            }
            Edit::Link(a, b) => {
                if !next.insert_link(a, b) {
                    return false;
                }
                self.chosen = Some(Chosen::Link(a.min(b), a.max(b)));
                self.linking = None;
            }
            Edit::Move(id, p) => {
                let Some(i) = next.at(id) else { return false };
                next.pos[i] = clamp(p);
                self.chosen = Some(Chosen::Node(id));
            }
            Edit::Nudge(dx, dy) => {
                let Some(Chosen::Node(id)) = self.chosen else { return false };
                let Some([x, y]) = next.place(id) else { return false };
                return next.place(id) != Some(clamp([x + dx, y + dy])) && self.edit(Edit::Move(id, [x + dx, y + dy]));
            }
            Edit::Choose(c) => {
                let changed = self.chosen != c;
                self.chosen = c;
                return changed;
            }
            Edit::StartLink => {
                let Some(Chosen::Node(id)) = self.chosen else { return false };
                self.linking = Some(id);
                return true;
            }
            Edit::Pick(id) => {
                return match self.linking {
                    Some(from) if from != id && next.linked(from, id) => {
                        self.linking = None;
                        let changed = self.edit(Edit::RemoveLink(from, id));
                        self.chosen = Some(Chosen::Node(id));
                        changed
                    }
                    Some(from) if from != id => self.edit(Edit::Link(from, id)),
                    _ => {
                        self.linking = None;
                        self.edit(Edit::Choose(Some(Chosen::Node(id))));
                        true
                    }
                };
            }
            Edit::Undo | Edit::Redo => {
                let (from, to) = match edit {
                    Edit::Undo => (&mut self.undo, &mut self.redo),
                    _ => (&mut self.redo, &mut self.undo),
                };
                let Some(s) = from.pop() else { return false };
                to.push(std::mem::replace(&mut self.now, s));
                self.chosen = None;
                self.linking = None;
                self.rev += 1;
                return true;
            }
            Edit::Cancel => {
                let changed = self.linking.is_some() || self.chosen.is_some();
                if self.linking.take().is_none() {
                    self.chosen = None;
                }
                return changed;
            }
        }
        if next != self.now {
            self.undo.push(std::mem::replace(&mut self.now, next));
            self.redo.clear();
            self.rev += 1;
        }
        true
    }
}

impl yew::Reducible for Draft {
    type Action = Edit;

    fn reduce(self: Rc<Self>, edit: Edit) -> Rc<Self> {
        let mut next = (*self).clone();
        match next.edit(edit) {
            true => Rc::new(next),
            false => self,
        }
    }
}

/// Why the draft is not run, in words (`algorithm`: the running algorithm's title).
pub fn refusal_text(r: &Refusal, algorithm: &str, lang: Lang) -> String {
    match r {
        Refusal::NotOnGraphs => k::TOPO_NOT_ON_GRAPHS.format(lang, &[&algorithm]),
        Refusal::Disconnected => k::TOPO_DISCONNECTED.format(lang, &[&algorithm]),
        Refusal::Invalid(why) => k::UI_SCENARIO_NOT_APPLIED.format(lang, &[why]),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn floodmax() -> Rc<Scenario> {
        Rc::new(election_lab::presets::find("floodmax-tree").unwrap().scenario())
    }

    fn open(s: &Rc<Scenario>) -> Draft {
        let mut d = Draft::default();
        let pos = s.topology.as_ref().unwrap().positions.clone().unwrap();
        d.edit(Edit::Open(s.clone(), pos));
        d
    }

    #[test]
    fn a_drawn_graph_becomes_the_scenarios_topology_and_reads_back_the_same() {
        let s = floodmax();
        let mut d = open(&s);
        assert_eq!(d.now.links.len(), s.nodes.len() - 1, "a tree's links");
        assert_eq!(d.rev, 0);
        d.edit(Edit::Add(Some([950, 990])));
        let new = *d.now.nodes.last().unwrap();
        assert_eq!(new, s.nodes.iter().max().unwrap() + 1);
        assert_eq!(d.now.place(new), Some([950, 1000 - MARGIN]), "kept inside the box");
        assert_eq!(d.result(), Some(Err(Refusal::Disconnected)), "a node on its own is refused by name");
        d.edit(Edit::Link(new, s.nodes[0]));
        let out = d.result().unwrap().unwrap();
        // Through JSON (what a link and an export carry) and back: the same graph and places.
        let back = Scenario::from_json(&out.to_json()).unwrap();
        assert_eq!(back, out);
        let g = back.topology.as_ref().unwrap();
        assert_eq!(g.edges.len(), s.nodes.len());
        assert_eq!(g.positions.as_ref().unwrap().last(), Some(&[950, 960]));
        // Opened again on what it gave, the draft keeps its history.
        d.edit(Edit::Open(Rc::new(back), vec![]));
        assert!(d.can_undo());
        election_lab::Engine::new(out).expect("FloodMax runs on the drawn graph");
    }

    #[test]
    fn every_edit_undoes_and_redoes() {
        let s = floodmax();
        let mut d = open(&s);
        let start = d.now.clone();
        let (a, b) = (s.nodes[0], s.nodes[5]);
        assert!(!d.now.linked(a, b));
        for e in [
            Edit::Link(a, b),
            Edit::Move(a, [100, 100]),
            Edit::Add(None),
            Edit::Choose(Some(Chosen::Node(b))),
            Edit::Remove,
            Edit::RemoveLink(s.nodes[0], s.nodes[1]),
        ] {
            assert!(d.edit(e.clone()), "{e:?}");
        }
        assert_eq!(d.now.nodes.len(), s.nodes.len(), "one added, one removed");
        assert!(!d.now.links.iter().any(|&(x, y)| x == b || y == b), "a removed node's links go");
        let end = d.now.clone();
        while d.edit(Edit::Undo) {}
        assert_eq!(d.now, start);
        while d.edit(Edit::Redo) {}
        assert_eq!(d.now, end);
        // A new edit after undo forgets what could be redone.
        d.edit(Edit::Undo);
        d.edit(Edit::Choose(Some(Chosen::Node(s.nodes[1]))));
        assert!(d.edit(Edit::Nudge(NUDGE, 0)));
        assert!(!d.can_redo());
    }

    #[test]
    fn link_mode_links_and_unlinks_by_picking_nodes() {
        let s = floodmax();
        let mut d = open(&s);
        let (a, b) = (s.nodes[2], s.nodes[7]);
        assert!(!d.edit(Edit::StartLink), "link mode starts from a chosen node");
        d.edit(Edit::Pick(a));
        d.edit(Edit::StartLink);
        assert_eq!(d.linking, Some(a));
        d.edit(Edit::Pick(b));
        assert!(d.now.linked(a, b) && d.linking.is_none());
        d.edit(Edit::Pick(a));
        d.edit(Edit::StartLink);
        d.edit(Edit::Pick(b));
        assert!(!d.now.linked(a, b), "picking a linked node unlinks it");
        d.edit(Edit::StartLink);
        d.edit(Edit::Cancel);
        assert_eq!((d.linking, d.chosen), (None, Some(Chosen::Node(b))));
        d.edit(Edit::Cancel);
        assert_eq!(d.chosen, None);
    }

    #[test]
    fn an_algorithm_of_its_own_network_is_refused_by_name_and_the_last_node_stays() {
        let s = Rc::new(election_lab::presets::find("bully-heartbeats").unwrap().scenario());
        let mut d = Draft::default();
        d.edit(Edit::Open(s.clone(), vec![[500, 500]; s.nodes.len()]));
        assert_eq!(d.now.links.len(), s.nodes.len() * (s.nodes.len() - 1) / 2, "complete, as Bully assumes");
        assert_eq!(d.result(), Some(Err(Refusal::NotOnGraphs)));
        let text = refusal_text(&Refusal::NotOnGraphs, "Bully", Lang::En);
        assert!(text.contains("Bully"), "{text}");
        for id in s.nodes.clone() {
            d.edit(Edit::RemoveNode(id));
        }
        assert_eq!(d.now.nodes.len(), 1, "a scenario needs a node");
    }
}
