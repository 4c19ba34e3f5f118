//! What an act stop waits for: a breakpoint (something happens at a step) or a state condition
//! (something holds now: after a step, or right after the student's intervention).
//!
//! | text | holds when |
//! |---|---|
//! | `down:5` / `up:5` | node 5 is crashed / running |
//! | `isolated:5` | node 5 can reach no other node (a partition group of its own, or every link cut) |
//! | `partitioned` | the network is split |
//! | `healed` | no partition and no cut link |
//! | any breakpoint ([`crate::breakpoint`]) | it hits at a step after the wait began |

use crate::breakpoint::{Breakpoint, Watch};
use crate::engine::Engine;
use crate::NodeId;

/// A state condition, or a breakpoint.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Condition {
    Down(NodeId),
    Up(NodeId),
    Isolated(NodeId),
    Partitioned,
    Healed,
    Breakpoint(Breakpoint),
}

impl Condition {
    /// Reads a condition for the run `engine` holds; the error says what is wrong.
    pub fn parse(text: &str, engine: &Engine) -> Result<Condition, String> {
        let text = text.trim();
        let node = |s: &str| -> Result<NodeId, String> {
            let s = s.trim().trim_start_matches(['N', 'n']);
            let id: NodeId = s.parse().map_err(|_| format!("'{s}' is not a node id"))?;
            if engine.scenario().nodes.contains(&id) {
                Ok(id)
            } else {
                Err(format!("unknown node {id}"))
            }
        };
        if let Some(n) = text.strip_prefix("down:") {
            return Ok(Condition::Down(node(n)?));
        }
        if let Some(n) = text.strip_prefix("up:") {
            return Ok(Condition::Up(node(n)?));
        }
        if let Some(n) = text.strip_prefix("isolated:") {
            return Ok(Condition::Isolated(node(n)?));
        }
        match text {
            "partitioned" => Ok(Condition::Partitioned),
            "healed" => Ok(Condition::Healed),
            _ => Breakpoint::parse(text, engine)
                .map(Condition::Breakpoint)
                .map_err(|e| format!("{e} (or a state: down:<node>, up:<node>, isolated:<node>, partitioned, healed)")),
        }
    }

    /// Whether a state condition holds at the cursor (a breakpoint never "holds": it hits).
    pub fn holds(&self, engine: &Engine) -> bool {
        match self {
            Condition::Down(n) => engine.is_up(*n) == Some(false),
            Condition::Up(n) => engine.is_up(*n) == Some(true),
            Condition::Isolated(n) => isolated(engine, *n),
            Condition::Partitioned => engine.groups().is_some(),
            Condition::Healed => engine.groups().is_none() && engine.frame().cuts.is_empty(),
            Condition::Breakpoint(_) => false,
        }
    }
}

fn isolated(engine: &Engine, n: NodeId) -> bool {
    let nodes = &engine.scenario().nodes;
    let Some(me) = nodes.iter().position(|x| *x == n) else { return false };
    if let Some(groups) = engine.groups() {
        if groups.iter().enumerate().all(|(i, g)| i == me || *g != groups[me]) {
            return true;
        }
    }
    let cuts = engine.frame().cuts;
    nodes.iter().filter(|x| **x != n).all(|x| cuts.contains(&(n, *x)) && cuts.contains(&(*x, n)))
}

/// An act's condition watched over a run: call [`Waiter::check`] after every step and after
/// every intervention the student makes.
#[derive(Clone, Debug)]
pub struct Waiter {
    condition: Condition,
    watch: Option<Watch>,
}

impl Waiter {
    /// Starts waiting at the engine's cursor.
    pub fn new(condition: Condition, engine: &Engine) -> Waiter {
        let watch = match &condition {
            Condition::Breakpoint(b) => Some(Watch::new(vec![b.clone()], engine)),
            _ => None,
        };
        Waiter { condition, watch }
    }

    pub fn condition(&self) -> &Condition {
        &self.condition
    }

    /// Whether the condition is met now (a state), or hit at the steps since the last call.
    pub fn check(&mut self, engine: &Engine) -> bool {
        match &mut self.watch {
            Some(w) => w.check(engine).is_some(),
            None => self.condition.holds(engine),
        }
    }
}
