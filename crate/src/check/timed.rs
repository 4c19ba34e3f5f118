//! The timed model: discrete ticks up to a horizon, time part of the world.
//!
//! * **Time** is a bounded clock `now` in `0..=horizon`, kept in the world as it is: handlers
//!   that store clock readings (a lease's expiry, a detector's last heartbeat) would need every
//!   protocol to say which of its fields are times before worlds could be shifted to `now`, and
//!   the bounded clock is sound for every protocol without that.
//! * **Pending events** carry the window in which they may happen: a message sent at `t` with
//!   latency `[lo, hi]` arrives at any tick of `[t + lo, t + hi]` (a fixed latency: that tick),
//!   a timer armed at `t` for `[lo, hi]` fires at any tick of `[t + lo, t + hi]`, and the
//!   scenario's schedule entry at `at` happens at `at`. A window is the same as a delay drawn
//!   from the range when the event was made: the handler learns the delay only when it happens.
//! * **Moves** at `now`: deliver a message whose window has opened (on a FIFO link only the
//!   oldest), fire a live node's timer whose window has opened, the next schedule entry once its
//!   time has come, the faults within their bounds (as in the asynchronous model, at any tick),
//!   and *tick*: `now + 1`, allowed only while `now < horizon` and no pending event's window
//!   closes at `now` (what is due must happen before time goes on). Events in one tick happen in
//!   any order.
//! * **Drifting clocks** (`Bounds::max_drift`, `check-model --max-drift ρ`): a timer armed
//!   for `d` ticks of its node's clock fires at any real tick of `[⌊d/(1 + ρ)⌋, ⌈d/(1 − ρ)⌉]`
//!   (widened per timer: a clock whose rate may vary within `1 ± ρ`); message latency is real
//!   time and stays as it is. Without it a node's clock keeps real time except as the
//!   algorithm's own parameters say (the lease's `params.drift`). A counterexample that needs a
//!   timer outside its undrifted range cannot replay in the simulator, which has no drift: it is
//!   reported with its moves and marked as not replayed.
//! * Of two copies of one message in flight, a delivery or a loss takes the copy whose window
//!   closes first: the copy left can then still arrive whenever the other could, so no behaviour
//!   is lost.
//! * **Every schedule** means: every order of events and every delay in every range, with every
//!   event at or before the horizon. Breadth-first over moves (each tick one move), so the first
//!   violation found is one of the fewest events plus ticks.
//! * A counterexample replays on the scenario with `network.latest` (every delay the top of its
//!   range), each move forced at its tick ([`super::replay::replay_at`]).

use super::*;

/// The real ticks a timer armed for `[lo, hi]` ticks of its node's clock may take when that
/// clock runs at any rate within `1 ± drift/1000` of real time: `[⌊lo/(1 + ρ)⌋, ⌈hi/(1 − ρ)⌉]`,
/// at least a tick when the timer asked for one. Each timer is widened on its own, as for a clock
/// whose rate may change at any moment within the bound (the usual bounded-drift clock); two
/// timers of one node may then fire out of the order of their lengths, an over-approximation.
fn drifted(lo: Time, hi: Time, drift: u32) -> (Time, Time) {
    if drift == 0 {
        return (lo, hi);
    }
    let d = u64::from(drift);
    let early = (lo * 1000 / (1000 + d)).max(lo.min(1));
    let late = (hi * 1000).div_ceil(1000 - d);
    (early, late)
}

/// A world of the timed model: the asynchronous world, the clock, and the windows.
#[derive(Clone)]
struct Timed {
    w: World,
    now: Time,
    /// Per message in flight (beside `w.msgs`): its arrival window.
    win: Vec<(Time, Time)>,
    /// Per node: its pending timers as (key fingerprint, window), by key.
    timers: Vec<Vec<(u64, Time, Time)>>,
}

/// One move of the timed model: a move of the asynchronous model (with the message copy it
/// takes, for a delivery or a loss), or a tick.
#[derive(Clone)]
enum Step {
    Move(Move, Option<usize>),
    Tick,
}

/// A timed exploration under way: the frontier, and per state its parent and the move (none:
/// a tick) and time that reached it.
pub(super) struct TimedRun {
    frontier: VecDeque<Timed>,
    parents: Vec<(u32, Option<Move>, Time)>,
    /// The scenario's schedule entries' times, in the order they apply.
    at: Vec<Time>,
    horizon: Time,
}

impl Checker {
    /// [`Checker::advance`] in the timed model (`bounds.horizon` is set).
    pub(super) fn advance_timed(&mut self, states: u64) -> bool {
        let mut run = match self.timed.take() {
            Some(run) => run,
            None => {
                let horizon = self.bounds.horizon.expect("the timed model");
                let at = self
                    .scenario
                    .as_ref()
                    .map_or(Vec::new(), |s| schedule_order(s).iter().map(|(_, x)| x.at).collect());
                let (root, bad) = self.timed_initial();
                self.seen.insert(self.timed_key(&root), 0);
                self.parents.push((u32::MAX, 0));
                let mut frontier = VecDeque::new();
                match bad {
                    Some(nodes) => self.found = Some((0, nodes)),
                    None => frontier.push_back(root),
                }
                Box::new(TimedRun { frontier, parents: vec![(u32::MAX, None, 0)], at, horizon })
            }
        };
        let done = self.expand_timed(&mut run, states);
        self.timed = Some(run);
        done
    }

    fn expand_timed(&mut self, run: &mut TimedRun, states: u64) -> bool {
        for _ in 0..states {
            if self.found.is_some() || self.limit {
                return true;
            }
            let Some(t) = run.frontier.pop_front() else { return true };
            let steps = self.timed_moves(&t, &run.at, run.horizon);
            if self.bounds.depth.is_some_and(|d| t.w.depth >= d) {
                self.cut |= !steps.is_empty();
                continue;
            }
            for step in steps {
                self.transitions += 1;
                let (mut next, bad) = self.timed_apply(&t, &step);
                next.w.depth = t.w.depth + 1;
                self.timed_canon(&mut next);
                let fp = self.timed_key(&next);
                if self.seen.get(fp).is_some() {
                    continue;
                }
                if self.seen.len() >= self.bounds.max_states {
                    self.limit = true;
                    return true;
                }
                next.w.id = run.parents.len() as u32;
                self.seen.insert(fp, next.w.id);
                run.parents.push((t.w.id, if let Step::Move(m, _) = step { Some(m) } else { None }, t.now));
                self.depth = self.depth.max(next.w.depth);
                if let Some(nodes) = bad {
                    self.found = Some((next.w.id, nodes));
                    return true;
                }
                run.frontier.push_back(next);
            }
        }
        self.found.is_some() || self.limit
    }

    /// [`Checker::finish`] in the timed model: the report, with the counterexample's moves at
    /// their ticks replayed into a trace.
    pub(super) fn finish_timed(mut self) -> Report {
        let found = self.found.take();
        let run = self.timed.take();
        let mut r = self.report();
        if let (Some((id, nodes)), Some(run)) = (found, run) {
            let (mut moves, mut times) = (Vec::new(), Vec::new());
            let mut k = id;
            while k != 0 {
                let (parent, mv, now) = &run.parents[k as usize];
                if let Some(mv) = mv {
                    moves.push(mv.clone());
                    times.push(*now);
                }
                k = *parent;
            }
            moves.reverse();
            times.reverse();
            let c = match &self.scenario {
                Some(s) => {
                    let last = times.last().copied().unwrap_or(0);
                    let mut c = replay::replay_at(s, self.property.id, moves, nodes, Some((&times, run.horizon)));
                    if !c.replayed {
                        // The model's own time of the violation (a drifted timer the simulator
                        // cannot replay), not where the replay gave up.
                        c.time = last;
                    }
                    c
                }
                None => Counterexample {
                    moves,
                    trace: Value::Null,
                    step: 0,
                    time: times.last().copied().unwrap_or(0),
                    nodes,
                    replayed: false,
                    lasso: None,
                },
            };
            r.verdict = Verdict::Violated(Box::new(c));
        }
        r
    }

    /// The nodes booted at time 0, their messages and timers with their windows.
    fn timed_initial(&mut self) -> (Timed, Option<Vec<NodeId>>) {
        self.now = 0;
        let (lo, hi) = self.cfg.latency;
        let (w, bad) = self.initial();
        // Every message of the boot was sent at 0: its window is the latency's (or its fixed one,
        // which no modelled algorithm uses at boot).
        let win = vec![(lo, hi); w.msgs.len()];
        let mut t = Timed { w, now: 0, win, timers: vec![Vec::new(); self.n] };
        self.fixed.clear();
        self.timed_timers(&mut t, None);
        self.timed_canon(&mut t);
        (t, bad)
    }

    /// Re-reads every node's pending timers (the machine holding `t`'s node states): those
    /// armed since the last call open their window now, the others keep theirs (from `before`).
    fn timed_timers(&mut self, t: &mut Timed, before: Option<&Timed>) {
        let mut pending = Vec::new();
        for i in 0..self.n {
            pending.clear();
            self.m.timers(i, &mut pending);
            let mut list: Vec<(u64, Time, Time)> = pending
                .iter()
                .map(|&(token, key)| match self.armed.iter().find(|a| a.0 == token) {
                    Some(&(_, lo, hi)) => {
                        let (lo, hi) = drifted(lo, hi, self.bounds.max_drift);
                        (key, t.now.saturating_add(lo), t.now.saturating_add(hi))
                    }
                    None => before
                        .and_then(|b| b.timers[i].iter().find(|x| x.0 == key).copied())
                        .unwrap_or((key, t.now, t.now)),
                })
                .collect();
            list.sort_unstable();
            t.timers[i] = list;
        }
        self.armed.clear();
    }

    /// Messages in canonical order with their windows (as [`Checker::canon`], the window
    /// breaking ties), the partition relabelled.
    fn timed_canon(&self, t: &mut Timed) {
        let mut idx: Vec<usize> = (0..t.w.msgs.len()).collect();
        if self.fifo {
            idx.sort_by_key(|&k| (t.w.msgs[k].0, t.w.msgs[k].1));
        } else {
            idx.sort_by_key(|&k| {
                let (f, to, p) = t.w.msgs[k];
                (f, to, self.phash[p as usize], t.win[k])
            });
        }
        t.w.msgs = idx.iter().map(|&k| t.w.msgs[k]).collect();
        t.win = idx.iter().map(|&k| t.win[k]).collect();
        relabel(&mut t.w.labels);
    }

    /// The fingerprint of the asynchronous world with the clock and every window.
    fn timed_key(&self, t: &Timed) -> u64 {
        let mut h = Fnv64::default();
        self.fingerprint(&t.w).hash(&mut h);
        t.now.hash(&mut h);
        t.win.hash(&mut h);
        t.timers.hash(&mut h);
        h.finish()
    }

    /// The moves enabled at `t`.
    fn timed_moves(&mut self, t: &Timed, at: &[Time], horizon: Time) -> Vec<Step> {
        let now = t.now;
        let msgs = &t.w.msgs;
        // Per distinct message, the copy a delivery takes (open, closing first) and the copy a
        // loss takes (closing first).
        let mut deliver: Vec<usize> = Vec::new();
        let mut lose: Vec<usize> = Vec::new();
        for (k, &m) in msgs.iter().enumerate() {
            let first_on_link = k == 0 || (msgs[k - 1].0, msgs[k - 1].1) != (m.0, m.1);
            if t.win[k].0 <= now && (!self.fifo || first_on_link) {
                match deliver.iter_mut().find(|j| msgs[**j] == m) {
                    Some(j) if t.win[k].1 < t.win[*j].1 => *j = k,
                    Some(_) => {}
                    None => deliver.push(k),
                }
            }
            match lose.iter_mut().find(|j| msgs[**j] == m) {
                Some(j) if t.win[k].1 < t.win[*j].1 => *j = k,
                Some(_) => {}
                None => lose.push(k),
            }
        }
        let ids = &self.cfg.ids;
        let named = |k: usize| {
            let (f, to, p) = msgs[k];
            (ids[f as usize], ids[to as usize], self.phash[p as usize])
        };
        let mut steps: Vec<Step> = Vec::new();
        for k in deliver {
            let (from, to, payload) = named(k);
            steps.push(Step::Move(Move::Deliver { from, to, payload }, Some(k)));
        }
        if t.w.used[DROP] < self.bounds.drops {
            for k in lose {
                let (from, to, payload) = named(k);
                steps.push(Step::Move(Move::Lose { from, to, payload }, Some(k)));
            }
        }
        for (i, list) in t.timers.iter().enumerate() {
            if t.w.up & (1 << i) != 0 {
                for &(key, a, _) in list {
                    if a <= now {
                        steps.push(Step::Move(Move::Fire { node: ids[i], key }, None));
                    }
                }
            }
        }
        let sched = t.w.sched as usize;
        if sched < at.len() && at[sched] <= now {
            steps.push(Step::Move(Move::Scheduled(sched), None));
        }
        // The faults, as in the asynchronous model.
        for mv in self.moves(&t.w) {
            if matches!(mv, Move::Crash(_) | Move::Recover(_) | Move::Partition(_) | Move::Heal) {
                steps.push(Step::Move(mv, None));
            }
        }
        let due = t.win.iter().any(|w| w.1 <= now)
            || t.timers.iter().enumerate().any(|(i, l)| t.w.up & (1 << i) != 0 && l.iter().any(|x| x.2 <= now))
            || (sched < at.len() && at[sched] <= now);
        if now < horizon && !due {
            steps.push(Step::Tick);
        }
        steps
    }

    /// The world `step` leads to from `t` (not yet canonical), and a violation it shows.
    fn timed_apply(&mut self, t: &Timed, step: &Step) -> (Timed, Option<Vec<NodeId>>) {
        let Step::Move(mv, copy) = step else {
            let mut next = t.clone();
            next.now += 1;
            return (next, None);
        };
        // The copy taken goes first among its equals, where the asynchronous move looks.
        let mut from = t.clone();
        let mut removed = None;
        if let Some(k) = *copy {
            let j = from.w.msgs.iter().position(|&m| m == from.w.msgs[k]).expect("in flight");
            from.w.msgs.swap(j, k);
            from.win.swap(j, k);
            removed = Some(j);
        }
        self.now = t.now;
        self.armed.clear();
        self.fixed.clear();
        let (w, bad) = self.apply(&from.w, mv);
        let mut win = from.win.clone();
        if let Some(j) = removed {
            win.remove(j);
        }
        let (lo, hi) = self.cfg.latency;
        for f in self.fixed.drain(..) {
            win.push(match f {
                Some(d) => (t.now.saturating_add(d), t.now.saturating_add(d)),
                None => (t.now.saturating_add(lo), t.now.saturating_add(hi)),
            });
        }
        debug_assert_eq!(win.len(), w.msgs.len());
        let mut next = Timed { w, now: t.now, win, timers: Vec::new() };
        next.timers = vec![Vec::new(); self.n];
        self.m.restore(&*next.w.nodes);
        self.timed_timers(&mut next, Some(t));
        (next, bad)
    }
}
