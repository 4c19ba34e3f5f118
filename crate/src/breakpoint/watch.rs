//! Evaluating breakpoints on a run: the watch that checks every step, what a hit says, and
//! running forward (or back) to the next hit.

use super::*;

/// Where a breakpoint hit: the step (its event), what hit, and what it names.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Hit {
    pub step: u64,
    pub time: Time,
    /// Index of the breakpoint in its list.
    pub index: usize,
    /// The breakpoint's text.
    pub breakpoint: String,
    /// What happened, in one line of English.
    pub what: String,
    /// The nodes involved (the violators, the node that took a role, a message's ends).
    pub nodes: Vec<NodeId>,
    /// The message involved, if any.
    pub msg: Option<u64>,
}

impl Hit {
    /// `{"step", "time", "breakpoint", "what", "nodes", "msg"?}`.
    pub fn to_value(&self) -> Value {
        let mut o = json!({"step": self.step, "time": self.time, "breakpoint": self.breakpoint, "what": self.what, "nodes": self.nodes});
        if let Some(m) = self.msg {
            o["msg"] = json!(m);
        }
        o
    }
}

/// Per breakpoint, what it saw at the last step (for the predicates that fire on a change).
#[derive(Clone, Debug, PartialEq)]
enum Prev {
    Nothing,
    Role(Option<&'static str>),
    Value(Option<i64>),
}

/// A list of breakpoints evaluated step by step on one engine.
#[derive(Clone, Debug)]
pub struct Watch {
    bps: Vec<Breakpoint>,
    prev: Vec<Prev>,
    step: u64,
    time: Time,
    violations: usize,
    leaders: Vec<NodeId>,
}

fn role_of(engine: &Engine, node: NodeId) -> Option<&'static str> {
    if engine.is_up(node) != Some(true) {
        return None;
    }
    engine.node_view(node).map(|v| v.role)
}

fn value_of(engine: &Engine, node: NodeId, field: &Field) -> Option<i64> {
    if engine.is_up(node) != Some(true) {
        return None;
    }
    if let Field::Inspect(key) = field {
        return engine.inspect(node).iter().find(|(k, _)| k.get(Lang::En) == *key).and_then(|(_, v)| leading_number(v));
    }
    let v = engine.node_view(node)?;
    let x = match field {
        Field::Term => v.term,
        Field::Vote => v.vote.map(u64::from),
        Field::Leader => v.leader.map(u64::from),
        Field::Votes => v.tally.map(|t| u64::from(t.0)),
        Field::Zxid => v.zxid,
        Field::Group => v.group.map(u64::from),
        Field::Reach => v.reach.map(u64::from),
        Field::Inspect(_) => None,
    };
    x.map(|x| x.min(i64::MAX as u64) as i64)
}

fn list(nodes: &[NodeId]) -> String {
    if nodes.is_empty() {
        return "none".into();
    }
    nodes.iter().map(|n| format!("N{n}")).collect::<Vec<_>>().join(", ")
}

impl Watch {
    /// Starts watching at the engine's cursor: what holds there already is not a hit.
    pub fn new(bps: Vec<Breakpoint>, engine: &Engine) -> Watch {
        let mut w = Watch { bps, prev: vec![], step: 0, time: 0, violations: 0, leaders: vec![] };
        w.reset(engine);
        w
    }

    /// Forgets what was seen and starts again at the cursor (after a seek).
    pub fn reset(&mut self, engine: &Engine) {
        self.step = engine.cursor();
        self.time = engine.now();
        self.violations = engine.violations().len();
        self.leaders = engine.leaders();
        self.prev = self.bps.iter().map(|b| Watch::current(b, engine)).collect();
    }

    pub fn breakpoints(&self) -> &[Breakpoint] {
        &self.bps
    }

    fn current(b: &Breakpoint, engine: &Engine) -> Prev {
        match (&b.predicate, b.node()) {
            (Predicate::Role { .. }, Some(n)) => Prev::Role(role_of(engine, n)),
            (Predicate::Field { field, .. }, Some(n)) => Prev::Value(value_of(engine, n, field)),
            _ => Prev::Nothing,
        }
    }

    /// Evaluates every breakpoint at the engine's cursor against what was seen at the last
    /// call; returns the first that hits (in list order). Call it after every step.
    pub fn check(&mut self, engine: &Engine) -> Option<Hit> {
        let step = engine.cursor();
        if step < self.step {
            self.reset(engine);
            return None;
        }
        let new_step = step > self.step;
        let time = engine.now();
        let all = engine.violations();
        let fresh = all.get(self.violations..).unwrap_or(&[]);
        let need_leaders = self.bps.iter().any(|b| b.predicate == Predicate::LeadersChange);
        let leaders = if need_leaders { engine.leaders() } else { vec![] };
        let rec = if new_step { engine.record(step) } else { None };
        // The step's description (message kinds, what it sent) costs a formatted label: only
        // read it when a message breakpoint may need it.
        let wants = |e: MsgEvent| {
            self.bps.iter().any(|b| matches!(b.predicate, Predicate::Message { event, .. } if event == e))
        };
        let info = match rec {
            Some(r)
                if (matches!(r.kind, EventKind::Deliver) && wants(MsgEvent::Deliver))
                    || (matches!(r.kind, EventKind::Drop(_)) && wants(MsgEvent::Drop))
                    || (r.msgs.1 > r.msgs.0 && wants(MsgEvent::Send)) =>
            {
                engine.step_info(step)
            }
            _ => None,
        };
        let hit = |index: usize, what: String, nodes: Vec<NodeId>, msg: Option<u64>| Hit {
            step,
            time,
            index,
            breakpoint: self.bps[index].to_string(),
            what,
            nodes,
            msg,
        };
        let mut found = None;
        let mut now_prev = Vec::with_capacity(self.bps.len());
        for (i, b) in self.bps.iter().enumerate() {
            let cur = Watch::current(b, engine);
            if found.is_none() {
                found = match &b.predicate {
                    Predicate::Violation(p) => fresh.iter().find(|v| p.is_none_or(|p| p == v.kind)).map(|v| {
                        let term = v.term.map_or(String::new(), |t| format!(" in term {t}"));
                        hit(i, format!("violation {}: {}{term}", v.kind, list(&v.nodes)), v.nodes.clone(), None)
                    }),
                    Predicate::LeadersChange => (leaders != self.leaders).then(|| {
                        let mut nodes: Vec<NodeId> =
                            leaders.iter().filter(|x| !self.leaders.contains(x)).copied().collect();
                        nodes.extend(self.leaders.iter().filter(|x| !leaders.contains(x)));
                        hit(i, format!("leaders {} -> {}", list(&self.leaders), list(&leaders)), nodes, None)
                    }),
                    Predicate::Role { node, role } => match (&self.prev[i], &cur) {
                        (Prev::Role(was), Prev::Role(Some(r))) if r == role && *was != Some(r) => Some(hit(
                            i,
                            format!("N{node} becomes {role} (was {})", was.unwrap_or("down")),
                            vec![*node],
                            None,
                        )),
                        _ => None,
                    },
                    Predicate::Field { node, field, op, value } => match (&self.prev[i], &cur) {
                        (Prev::Value(was), Prev::Value(Some(x)))
                            if op.holds(*x, *value) && !was.is_some_and(|w| op.holds(w, *value)) =>
                        {
                            let was = was.map_or("-".to_string(), |w| w.to_string());
                            Some(hit(i, format!("N{node} {} {was} -> {x}", field.name()), vec![*node], None))
                        }
                        _ => None,
                    },
                    Predicate::Time { op, value } => {
                        let (a, b) = (self.time.min(i64::MAX as u64) as i64, time.min(i64::MAX as u64) as i64);
                        let v = (*value).min(i64::MAX as u64) as i64;
                        (new_step && op.holds(b, v) && !op.holds(a, v))
                            .then(|| hit(i, format!("time {time}"), vec![], None))
                    }
                    Predicate::Timer { node, name } => match rec {
                        Some(r) => match r.kind {
                            EventKind::Timer(t) if r.node == *node && name.as_deref().is_none_or(|n| n == t) => {
                                Some(hit(i, format!("N{node}'s {t} timer fires"), vec![*node], None))
                            }
                            _ => None,
                        },
                        None => None,
                    },
                    Predicate::Message { event, kind, from, to } => match (rec, &info) {
                        (Some(r), Some(info)) => match event {
                            MsgEvent::Deliver | MsgEvent::Drop => {
                                let ok = matches!(
                                    (event, r.kind),
                                    (MsgEvent::Deliver, EventKind::Deliver) | (MsgEvent::Drop, EventKind::Drop(_))
                                );
                                (ok && info.kind == Some(*kind)
                                    && to.is_none_or(|t| t == r.node)
                                    && from.is_none_or(|f| f == r.peer))
                                .then(|| {
                                    let verb = if *event == MsgEvent::Deliver { "delivers" } else { "drops" };
                                    hit(
                                        i,
                                        format!("{verb} {kind} #{} N{} -> N{}", r.aux, r.peer, r.node),
                                        vec![r.peer, r.node],
                                        Some(r.aux),
                                    )
                                })
                            }
                            MsgEvent::Send => {
                                let sender = r.node;
                                if from.is_some_and(|f| f != sender) {
                                    None
                                } else {
                                    info.sends.iter().find(|s| s.2 == *kind && to.is_none_or(|t| t == s.1)).map(|s| {
                                        hit(
                                            i,
                                            format!("N{sender} sends {kind} #{} to N{}", s.0, s.1),
                                            vec![sender, s.1],
                                            Some(s.0),
                                        )
                                    })
                                }
                            }
                        },
                        _ => None,
                    },
                };
            }
            now_prev.push(cur);
        }
        self.prev = now_prev;
        self.step = step;
        self.time = time;
        self.violations = all.len();
        if need_leaders {
            self.leaders = leaders;
        }
        found
    }
}

/// Steps `engine` until a breakpoint of `watch` hits (returned, with the engine at that step),
/// the run ends, or `max_steps` steps were taken (then `None`, and `watch` goes on from there
/// on the next call: the page runs to the next hit a frame at a time).
pub fn run_until(engine: &mut Engine, watch: &mut Watch, max_steps: u64) -> Option<Hit> {
    if engine.cursor() != watch.step {
        watch.reset(engine);
    }
    for _ in 0..max_steps {
        if !engine.step() {
            return None;
        }
        if let Some(h) = watch.check(engine) {
            return Some(h);
        }
    }
    None
}

/// The last hit strictly before the cursor (the page's "back to the previous hit"): replays
/// the run from step 0 up to the cursor, evaluating every step. The engine is left at that
/// hit, or where it was if there is none.
pub fn previous_hit(engine: &mut Engine, bps: &[Breakpoint]) -> Option<Hit> {
    let at = engine.cursor();
    engine.seek(0);
    let mut watch = Watch::new(bps.to_vec(), engine);
    let mut last = None;
    while engine.cursor() < at && engine.step() {
        if let Some(h) = watch.check(engine) {
            if h.step < at {
                last = Some(h);
            }
        }
    }
    engine.seek(last.as_ref().map_or(at, |h| h.step));
    last
}
