//! The moves enabled in a world, and the world each leads to.

use super::*;

impl Checker {
    pub(super) fn moves(&mut self, w: &World) -> Vec<Move> {
        let ids = &self.cfg.ids;
        let mut moves = Vec::new();
        let mut last: Option<(u8, u8, u32)> = None;
        for (k, &(f, t, p)) in w.msgs.iter().enumerate() {
            let first_on_link = k == 0 || (w.msgs[k - 1].0, w.msgs[k - 1].1) != (f, t);
            if self.fifo && !first_on_link {
                continue;
            }
            if last == Some((f, t, p)) {
                continue; // the same message again: the same move
            }
            last = Some((f, t, p));
            let (from, to, payload) = (ids[f as usize], ids[t as usize], self.phash[p as usize]);
            moves.push(Move::Deliver { from, to, payload });
        }
        if w.used[DROP] < self.bounds.drops {
            // Any message may be lost, not only the first of its link.
            let mut last = None;
            for &(f, t, p) in &w.msgs {
                if last != Some((f, t, p)) {
                    last = Some((f, t, p));
                    let (from, to, payload) = (ids[f as usize], ids[t as usize], self.phash[p as usize]);
                    moves.push(Move::Lose { from, to, payload });
                }
            }
        }
        self.m.restore(&*w.nodes);
        for (i, &node) in ids.iter().enumerate() {
            if w.up & (1 << i) == 0 {
                continue;
            }
            self.timers.clear();
            let mut t = std::mem::take(&mut self.timers);
            self.m.timers(i, &mut t);
            t.sort_unstable_by_key(|&(_, key)| key);
            for &(_, key) in &t {
                moves.push(Move::Fire { node, key });
            }
            self.timers = t;
        }
        if (w.sched as usize) < self.schedule.len() {
            moves.push(Move::Scheduled(w.sched as usize));
        }
        for (i, &node) in ids.iter().enumerate() {
            let up = w.up & (1 << i) != 0;
            if up && w.used[CRASH] < self.bounds.crashes {
                moves.push(Move::Crash(node));
            }
            if !up && w.used[RECOVER] < self.bounds.recoveries {
                moves.push(Move::Recover(node));
            }
        }
        if w.labels.is_empty() && w.used[PARTITION] < self.bounds.partitions && self.n >= 2 {
            // Two sides; the side without the first node names the split.
            for mask in 1u32..(1 << (self.n - 1)) {
                let side: Vec<NodeId> = (1..self.n).filter(|&j| mask & (1 << (j - 1)) != 0).map(|j| ids[j]).collect();
                moves.push(Move::Partition(side));
            }
        }
        if !w.labels.is_empty() {
            moves.push(Move::Heal);
        }
        moves
    }

    pub(super) fn expand(&mut self, w: &World) {
        let moves = self.moves(w);
        let mut order: Vec<u32> = (0..moves.len() as u32).collect();
        if let Some(rng) = &mut self.order {
            // Fisher–Yates, drawing the same values on every platform.
            for i in (1..order.len()).rev() {
                let j = rng.range_inclusive(0, i as u64) as usize;
                order.swap(i, j);
            }
        }
        if self.bounds.depth.is_some_and(|d| w.depth >= d) {
            if !moves.is_empty() {
                self.cut = true;
            }
            return;
        }
        for k in order {
            let mv = &moves[k as usize];
            self.transitions += 1;
            let (mut next, mut bad) = self.apply(w, mv);
            if self.eventually && bad.is_none() && next.sched != w.sched {
                // The schedule's last entry may make an agreed world a goal without any handler.
                self.m.restore(&*next.nodes);
                bad = self.goal_of(&next);
            }
            next.depth = w.depth + 1;
            self.canon(&mut next);
            let fp = self.key(&next);
            if self.probes > 0 && self.probe(w, mv, fp) {
                return;
            }
            if let Some(id) = self.seen.get(fp) {
                if self.eventually {
                    self.edge(w.id, id, mv);
                }
                continue;
            }
            if self.seen.len() >= self.bounds.max_states {
                self.limit = true;
                return;
            }
            next.id = self.parents.len() as u32;
            self.seen.insert(fp, next.id);
            if self.eventually {
                self.edge(w.id, next.id, mv);
                self.edges.push(Vec::new());
                self.goal.push(bad.is_some());
            }
            self.parents.push((w.id, k));
            self.depth = self.depth.max(next.depth);
            if let Some(nodes) = bad {
                if self.eventually {
                    continue; // a goal: agreed, not expanded
                }
                self.found = Some((next.id, nodes));
                return;
            }
            self.push(&next);
        }
    }

    /// Runs `mv` from `w` again with the clock at another reading: whether the world it gives
    /// differs from `fp` (then the handlers read the clock, and the exploration stops).
    fn probe(&mut self, w: &World, mv: &Move, fp: u64) -> bool {
        self.probes -= 1;
        let coverage = self.coverage.clone();
        self.now = 1 << 30;
        let (mut other, _) = self.apply(w, mv);
        self.now = 0;
        self.coverage = coverage;
        other.depth = w.depth + 1;
        self.canon(&mut other);
        self.clock = self.key(&other) != fp;
        self.clock
    }

    pub(super) fn idx(&self, id: NodeId) -> usize {
        self.cfg.position(id).expect("a node of the scenario")
    }

    /// The successor of `w` by `mv`, and the nodes of a violation it shows.
    pub(super) fn apply(&mut self, w: &World, mv: &Move) -> (World, Option<Vec<NodeId>>) {
        let mut next = w.clone();
        let mut bad = None;
        match *mv {
            Move::Deliver { from, to, payload } | Move::Lose { from, to, payload } => {
                let (f, t) = (self.idx(from) as u8, self.idx(to) as u8);
                let p = self.pid[&payload];
                let k = next.msgs.iter().position(|&m| m == (f, t, p)).expect("in flight");
                next.msgs.remove(k);
                if let Move::Lose { .. } = mv {
                    next.used[DROP] += 1;
                } else {
                    let (fi, ti) = (f as usize, t as usize);
                    let linked = next.labels.is_empty() || next.labels[fi] == next.labels[ti];
                    if next.up & (1 << ti) != 0 && linked {
                        self.m.restore(&*w.nodes);
                        let mark = self.m.payloads_end();
                        let mut out = self.out();
                        let at = At { i: ti, me: self.cfg.ids[ti], now: self.now, cfg: &self.cfg };
                        self.m.deliver(at, &mut out, from, p as u64);
                        bad = self.after_handler(&mut next, ti, mark, out);
                    }
                }
            }
            Move::Fire { node, key } => {
                let i = self.idx(node);
                self.m.restore(&*w.nodes);
                self.timers.clear();
                let mut t = std::mem::take(&mut self.timers);
                self.m.timers(i, &mut t);
                let token = t.iter().find(|&&(_, k)| k == key).map(|&(tok, _)| tok).expect("pending timer");
                self.timers = t;
                let mark = self.m.payloads_end();
                let mut out = self.out();
                let at = At { i, me: self.cfg.ids[i], now: self.now, cfg: &self.cfg };
                self.m.fire(at, &mut out, token);
                bad = self.after_handler(&mut next, i, mark, out);
            }
            Move::Crash(id) => {
                next.used[CRASH] += 1;
                bad = self.crash(&mut next, w, self.idx(id));
            }
            Move::Recover(id) => {
                next.used[RECOVER] += 1;
                bad = self.recover(&mut next, w, self.idx(id));
            }
            Move::Partition(ref side) => {
                next.used[PARTITION] += 1;
                next.labels = (0..self.n).map(|j| side.contains(&self.cfg.ids[j]) as u8).collect();
            }
            Move::Heal => next.labels.clear(),
            Move::Scheduled(k) => {
                next.sched += 1;
                let action = self.schedule[k].clone();
                match action {
                    Action::Crash(id) => {
                        if let Some(i) = self.cfg.position(id) {
                            if w.up & (1 << i) != 0 {
                                bad = self.crash(&mut next, w, i);
                            }
                        }
                    }
                    Action::Recover(id) => {
                        if let Some(i) = self.cfg.position(id) {
                            if w.up & (1 << i) == 0 {
                                bad = self.recover(&mut next, w, i);
                            }
                        }
                    }
                    Action::Start(id) => {
                        if let Some(i) = self.cfg.position(id) {
                            if w.up & (1 << i) != 0 {
                                self.m.restore(&*w.nodes);
                                let mark = self.m.payloads_end();
                                let mut out = self.out();
                                let at = At { i, me: self.cfg.ids[i], now: self.now, cfg: &self.cfg };
                                self.m.start(at, &mut out);
                                bad = self.after_handler(&mut next, i, mark, out);
                            }
                        }
                    }
                    Action::Heal => next.labels.clear(),
                    Action::Isolate(id) => {
                        if let Some(i) = self.cfg.position(id) {
                            let mut labels = if next.labels.is_empty() { vec![0; self.n] } else { next.labels.clone() };
                            labels[i] = labels.iter().copied().max().unwrap_or(0) + 1;
                            next.labels = labels;
                        }
                    }
                    Action::Partition { ref groups, .. } => {
                        let mut labels = vec![0u8; self.n];
                        for (g, members) in groups.iter().enumerate() {
                            for &id in members {
                                if let Some(i) = self.cfg.position(id) {
                                    labels[i] = g as u8 + 1;
                                }
                            }
                        }
                        next.labels = labels;
                    }
                    _ => unreachable!("refused by Checker::new"),
                }
            }
        }
        (next, bad)
    }

    pub(super) fn crash(&mut self, next: &mut World, w: &World, i: usize) -> Option<Vec<NodeId>> {
        self.m.restore(&*w.nodes);
        self.m.clear_timers(i);
        next.up &= !(1 << i);
        next.leaders &= !(1 << i);
        let mut node_h = next.node_h.to_vec();
        node_h[i] = self.node_hash(i);
        next.node_h = node_h.into();
        next.nodes = Rc::from(self.m.snapshot());
        if self.sometimes {
            self.goal_of(next)
        } else {
            None
        }
    }

    pub(super) fn recover(&mut self, next: &mut World, w: &World, i: usize) -> Option<Vec<NodeId>> {
        self.m.restore(&*w.nodes);
        next.up |= 1 << i;
        next.leaders &= !(1 << i);
        let mark = self.m.payloads_end();
        let mut out = self.out();
        let at = At { i, me: self.cfg.ids[i], now: self.now, cfg: &self.cfg };
        self.m.recover(at, &mut out);
        self.after_handler(next, i, mark, out)
    }

    /// The moves from the initial world to state `id`: its ancestors' move indices, replayed
    /// from the initial world (the coverage counted once already).
    pub(super) fn path(&mut self, mut id: u32) -> Vec<Move> {
        let mut picks = Vec::new();
        while id != 0 {
            let (parent, k) = self.parents[id as usize];
            picks.push(k);
            id = parent;
        }
        picks.reverse();
        let coverage = self.coverage.clone();
        let mut w = self.decode(&self.root, &mut 0);
        let mut moves = Vec::with_capacity(picks.len());
        for k in picks {
            let mv = self.moves(&w).swap_remove(k as usize);
            let (mut next, _) = self.apply(&w, &mv);
            self.canon(&mut next);
            moves.push(mv);
            w = next;
        }
        self.coverage = coverage;
        moves
    }

    /// Records the move `mv` from state `from` to state `to` (for the fairness analysis).
    fn edge(&mut self, from: u32, to: u32, mv: &Move) {
        let label = match self.label_ids.get(mv) {
            Some(&l) => l,
            None => {
                let l = self.labels.len() as u32;
                self.labels.push(mv.clone());
                self.label_ids.insert(mv.clone(), l);
                l
            }
        };
        self.edges[from as usize].push((to, label));
    }

    pub(super) fn report(&mut self) -> Report {
        let mut coverage: Vec<(&'static str, u64)> = self.coverage.iter().map(|(&k, &c)| (k, c)).collect();
        coverage.sort_unstable_by(|a, b| b.1.cmp(&a.1).then(a.0.cmp(b.0)));
        let never = self.rules.iter().copied().filter(|k| !self.coverage.contains_key(k)).collect();
        let found = self.found.clone();
        let verdict = match &found {
            None if self.lasso.is_some() => {
                let (moves, lasso) = self.lasso.clone().expect("checked");
                let mut c = match &self.scenario {
                    Some(s) => replay::replay(s, self.property.id, moves, vec![]),
                    None => Counterexample {
                        moves,
                        trace: Value::Null,
                        step: 0,
                        time: 0,
                        nodes: vec![],
                        replayed: false,
                        lasso: None,
                    },
                };
                c.lasso = lasso;
                Verdict::Violated(Box::new(c))
            }
            Some((id, nodes)) => {
                let moves = self.path(*id);
                Verdict::Violated(Box::new(match &self.scenario {
                    Some(s) => replay::replay(s, self.property.id, moves, nodes.clone()),
                    None => Counterexample {
                        moves,
                        trace: Value::Null,
                        step: 0,
                        time: 0,
                        nodes: nodes.clone(),
                        replayed: false,
                        lasso: None,
                    },
                }))
            }
            None if self.clock => Verdict::ReadsClock,
            None if self.limit => Verdict::Limit,
            None => Verdict::Holds { complete: !self.cut },
        };
        Report {
            property: self.property.id,
            sometimes: self.sometimes && !self.eventually,
            eventually: self.eventually,
            verdict,
            states: self.seen.len() as u64,
            transitions: self.transitions,
            depth: self.depth,
            bounds: self.bounds.clone(),
            fifo: self.fifo,
            symmetry: self.sym.as_ref().map(|s| s.perms.len()),
            coverage,
            never,
            handler_error: self.m.fault(),
        }
    }
}
