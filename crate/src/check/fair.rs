//! The fairness analysis of an *eventually* property over the explored state graph: a schedule
//! that never reaches a goal (agreed) state and is weakly fair — every delivery or timer that
//! stays possible is eventually taken — ends in a state with no move, or loops forever in a
//! strongly connected component of non-goal states in which every move possible in all of its
//! states is taken on one of its edges (then the cycle through all of its edges is fair).

use super::*;

impl Checker {
    /// The shortest path (by the breadth-first parents) to a stuck non-goal state, or a lasso
    /// into an unfair-free component: its moves, and where the loop starts.
    pub(super) fn unfair_lasso(&mut self) -> Option<(Vec<Move>, Option<usize>)> {
        let n = self.edges.len();
        // A non-goal state with no move: the schedule stops without agreement.
        if let Some(s) = (0..n).find(|&s| !self.goal[s] && self.edges[s].is_empty()) {
            return Some((self.path(s as u32), None));
        }
        for comp in self.components() {
            let inside = |s: u32| comp.binary_search(&s).is_ok();
            let internal: Vec<(u32, u32, u32)> = comp
                .iter()
                .flat_map(|&s| self.edges[s as usize].iter().filter(|e| inside(e.0)).map(move |&(t, l)| (s, t, l)))
                .collect();
            if internal.is_empty() {
                continue; // a single state without a self-loop: no cycle
            }
            let taken: std::collections::BTreeSet<u32> = internal.iter().map(|e| e.2).collect();
            // Moves possible in every state of the component (each state's edges are all its moves).
            let mut always: Option<std::collections::BTreeSet<u32>> = None;
            for &s in &comp {
                let here: std::collections::BTreeSet<u32> = self.edges[s as usize].iter().map(|e| e.1).collect();
                always = Some(match always {
                    None => here,
                    Some(a) => a.intersection(&here).copied().collect(),
                });
            }
            if always.unwrap_or_default().is_subset(&taken) {
                return Some(self.lasso_into(&comp, &internal));
            }
        }
        None
    }

    /// The strongly connected components of the non-goal states (Tarjan's algorithm, iterative),
    /// each sorted.
    fn components(&self) -> Vec<Vec<u32>> {
        let n = self.edges.len();
        let (mut index, mut low, mut on) = (vec![u32::MAX; n], vec![0u32; n], vec![false; n]);
        let (mut stack, mut out, mut next) = (Vec::new(), Vec::new(), 0u32);
        for root in 0..n {
            if self.goal[root] || index[root] != u32::MAX {
                continue;
            }
            let mut work: Vec<(usize, usize)> = vec![(root, 0)];
            index[root] = next;
            low[root] = next;
            next += 1;
            stack.push(root);
            on[root] = true;
            while let Some(&mut (v, ref mut k)) = work.last_mut() {
                if let Some(&(w, _)) = self.edges[v].get(*k) {
                    *k += 1;
                    let w = w as usize;
                    if self.goal[w] {
                        continue;
                    }
                    if index[w] == u32::MAX {
                        index[w] = next;
                        low[w] = next;
                        next += 1;
                        stack.push(w);
                        on[w] = true;
                        work.push((w, 0));
                    } else if on[w] {
                        low[v] = low[v].min(index[w]);
                    }
                } else {
                    work.pop();
                    if let Some(&(u, _)) = work.last() {
                        low[u] = low[u].min(low[v]);
                    }
                    if low[v] == index[v] {
                        let mut comp = Vec::new();
                        while let Some(w) = stack.pop() {
                            on[w] = false;
                            comp.push(w as u32);
                            if w == v {
                                break;
                            }
                        }
                        comp.sort_unstable();
                        out.push(comp);
                    }
                }
            }
        }
        out
    }

    /// The path to the component's first-reached state, then a loop from it through every
    /// internal edge's label at least once and back.
    fn lasso_into(&mut self, comp: &[u32], internal: &[(u32, u32, u32)]) -> (Vec<Move>, Option<usize>) {
        let entry = *comp.iter().min().expect("a component has a state"); // the lowest id: reached first
        let mut moves = self.path(entry);
        let start = moves.len();
        let mut todo: std::collections::BTreeSet<u32> = internal.iter().map(|e| e.2).collect();
        let mut at = entry;
        // Shortest paths inside the component (breadth-first over its internal edges).
        let walk = |from: u32, to: &dyn Fn(u32, u32) -> bool| -> Option<Vec<(u32, u32)>> {
            let mut prev: HashMap<u32, (u32, u32)> = HashMap::new();
            let mut q = VecDeque::from([from]);
            let mut seen = std::collections::HashSet::from([from]);
            while let Some(s) = q.pop_front() {
                for &(a, b, l) in internal.iter().filter(|e| e.0 == s) {
                    if to(b, l) {
                        let mut path = vec![(b, l)];
                        let mut cur = a;
                        while cur != from {
                            let (p, pl) = prev[&cur];
                            path.push((cur, pl));
                            cur = p;
                        }
                        path.reverse();
                        return Some(path);
                    }
                    if seen.insert(b) {
                        prev.insert(b, (a, l));
                        q.push_back(b);
                    }
                }
            }
            None
        };
        while !todo.is_empty() {
            let Some(path) = walk(at, &|_, l| todo.contains(&l)) else { break };
            for &(s, l) in &path {
                todo.remove(&l);
                moves.push(self.labels[l as usize].clone());
                at = s;
            }
        }
        if at != entry || moves.len() == start {
            if let Some(path) = walk(at, &|b, _| b == entry) {
                for &(_, l) in &path {
                    moves.push(self.labels[l as usize].clone());
                }
            }
        }
        (moves, Some(start))
    }
}
