//! Symmetry reduction (C. N. Ip and D. L. Dill, "Better Verification Through Symmetry", Formal
//! Methods in System Design 9, 1996; E. A. Emerson and A. P. Sistla, "Symmetry and Model
//! Checking", same issue): when an algorithm acts on node ids only as identities
//! ([`crate::protocol::Protocol::symmetry`]), renaming the nodes of a reachable world gives a
//! reachable world, and one that breaks a property exactly when the first does (the properties
//! checked name no particular node). A world is then known by the least fingerprint over its
//! renamings: one state per orbit.
//!
//! A renaming π moves the node at position `i` to position `π(i)` and renames id `ids[i]` to
//! `ids[π(i)]` everywhere together: inside every node state, message and timer key (the
//! protocol's `rename_*`), the messages' ends, the up set, the partition's sides and the terms'
//! leaders. Only renamings that keep every node's colour (its per-node facts: Raft's log) and
//! fix every node the scenario names (the initial leader, the nodes of its schedule) are
//! allowed: the stabiliser of those facts.
//!
//! The breadth-first search still keeps real worlds and the real move into each, so a
//! counterexample is a real schedule and replays as one; only the visited set's key is the
//! orbit's.

use super::*;

/// The largest cluster reduced by symmetry: every state tries every allowed renaming (5! = 120).
pub const MAX_SYMMETRIC_NODES: usize = 5;

/// The renamings allowed and what they did to the node states and payloads seen so far.
pub(super) struct Sym {
    /// The renamings: position `i` goes to `perms[k][i]`; the identity first.
    pub(super) perms: Vec<Vec<u8>>,
    /// (node fingerprint, renaming) → the renamed node's fingerprint.
    nodes: HashMap<(u64, u16), u64>,
    /// (payload id, renaming) → the renamed payload's fingerprint.
    payloads: HashMap<(u32, u16), u64>,
}

/// Every permutation of `0..n` in lexicographic order, the identity first.
fn permutations(n: usize) -> Vec<Vec<u8>> {
    let mut p: Vec<u8> = (0..n as u8).collect();
    let mut all = vec![p.clone()];
    loop {
        let Some(i) = (1..n).rev().find(|&i| p[i - 1] < p[i]) else { return all };
        let j = (i..n).rev().find(|&j| p[j] > p[i - 1]).expect("one is larger");
        p.swap(i - 1, j);
        p[i..].reverse();
        all.push(p.clone());
    }
}

impl Checker {
    /// Turns on symmetry reduction, and says how many renamings of the nodes it allows (the
    /// identity included). Refused, by name, for an algorithm that does not declare it, above
    /// [`MAX_SYMMETRIC_NODES`] nodes, and for an *eventually* property (its lasso follows real
    /// moves between real states, which the reduced graph does not keep).
    pub fn symmetry(&mut self) -> Result<usize, ScenarioError> {
        let name = self.scenario.as_ref().map_or("the protocol", |s| s.algorithm.as_str()).to_string();
        if self.eventually {
            return Err(ScenarioError::new(
                "symmetry",
                "not offered for an eventually property: its lasso must follow real moves between real states",
            ));
        }
        if self.bounds.horizon.is_some() {
            return Err(ScenarioError::new("symmetry", "not offered in the timed model"));
        }
        let colours = match self.m.symmetry(&self.cfg) {
            Some(c) if c.len() == self.n => c,
            _ => {
                return Err(ScenarioError::new(
                    "symmetry",
                    format!(
                        "{name} does not declare itself symmetric: what its nodes do depends on which id they have"
                    ),
                ))
            }
        };
        if self.n > MAX_SYMMETRIC_NODES {
            return Err(ScenarioError::new(
                "symmetry",
                format!("offered up to {MAX_SYMMETRIC_NODES} nodes (every state tries each renaming), not {}", self.n),
            ));
        }
        // The nodes the scenario names stay where they are.
        let mut fixed = vec![false; self.n];
        let mut named: Vec<NodeId> = self.cfg.initial_leader.into_iter().collect();
        for a in &self.schedule {
            match a {
                Action::Crash(id) | Action::Recover(id) | Action::Start(id) | Action::Isolate(id) => named.push(*id),
                Action::Partition { groups, .. } => named.extend(groups.iter().flatten()),
                _ => {}
            }
        }
        for id in named {
            if let Some(i) = self.cfg.position(id) {
                fixed[i] = true;
            }
        }
        let perms: Vec<Vec<u8>> = permutations(self.n)
            .into_iter()
            .filter(|p| (0..self.n).all(|i| colours[p[i] as usize] == colours[i] && (!fixed[i] || p[i] as usize == i)))
            .collect();
        let count = perms.len();
        self.sym = Some(Sym { perms, nodes: HashMap::new(), payloads: HashMap::new() });
        Ok(count)
    }

    /// The key `w` is known by in the visited set: its fingerprint, or with symmetry the least
    /// fingerprint of its renamings (`w` canonical, [`Checker::canon`]).
    pub(super) fn key(&mut self, w: &World) -> u64 {
        let Some(mut sym) = self.sym.take() else { return self.fingerprint(w) };
        let mut best = self.fingerprint(w);
        let Sym { perms, nodes, payloads } = &mut sym;
        let n = self.n;
        let (mut node_h, mut labels) = (vec![0u64; n], Vec::with_capacity(n));
        let mut msgs: Vec<(u8, u8, u64)> = Vec::with_capacity(w.msgs.len());
        let mut terms = w.terms.clone();
        for (k, perm) in perms.iter().enumerate().skip(1) {
            let to = |id: NodeId| self.cfg.position(id).map_or(id, |i| self.cfg.ids[perm[i] as usize]);
            let mut up = 0u32;
            for (i, &p) in perm.iter().enumerate() {
                let p = p as usize;
                node_h[p] = *nodes.entry((w.node_h[i], k as u16)).or_insert_with(|| {
                    let mut h = Fnv64::default();
                    self.m.hash_renamed_node(&*w.nodes, i, &to, &mut h);
                    h.finish()
                });
                up |= ((w.up >> i) & 1) << p;
            }
            labels.clear();
            if !w.labels.is_empty() {
                labels.resize(n, 0);
                for (&p, &l) in perm.iter().zip(&w.labels) {
                    labels[p as usize] = l;
                }
                relabel(&mut labels);
            }
            msgs.clear();
            for &(f, t, p) in &w.msgs {
                let h = *payloads.entry((p, k as u16)).or_insert_with(|| {
                    let mut h = Fnv64::default();
                    self.m.hash_renamed_payload(p as u64, &to, &mut h);
                    h.finish()
                });
                msgs.push((perm[f as usize], perm[t as usize], h));
            }
            if self.fifo {
                msgs.sort_by_key(|&(f, t, _)| (f, t)); // stable: each link keeps its order
            } else {
                msgs.sort_unstable();
            }
            for (t, &(term, leader)) in terms.iter_mut().zip(&w.terms) {
                *t = (term, to(leader));
            }
            let fp = fingerprint_of(&node_h, up, &labels, msgs.iter().copied(), w.used, w.sched, &terms);
            best = best.min(fp);
        }
        self.sym = Some(sym);
        best
    }
}
