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
    /// Per breakpoint, per condition: what it saw at the last step.
    prev: Vec<Vec<Prev>>,
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
    if let Field::Inspect(id) = field {
        return engine.inspect(node).iter().find(|f| f.id == id.as_str()).and_then(|f| f.value.number());
    }
    let v = engine.node_view(node)?;
    let x = match field {
        Field::Term => v.term,
        Field::Vote => v.vote.map(u64::from),
        Field::Leader => v.leader.map(u64::from),
        Field::Votes => v.tally.map(|t| u64::from(t.0)),
        Field::Zxid => v.zxid(),
        Field::Group => v.group().map(u64::from),
        Field::Reach => v.reach().map(u64::from),
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

/// What one condition says at a step.
struct Seen {
    /// It holds at this step.
    now: bool,
    /// A state condition: it held at the step before.
    before: bool,
    what: String,
    nodes: Vec<NodeId>,
    msg: Option<u64>,
}

impl Seen {
    fn no() -> Seen {
        Seen { now: false, before: false, what: String::new(), nodes: vec![], msg: None }
    }
    fn event(what: String, nodes: Vec<NodeId>, msg: Option<u64>) -> Seen {
        Seen { now: true, before: false, what, nodes, msg }
    }
}

/// What a step offers the conditions: its record and, when a message condition may need it,
/// its description.
struct At<'a> {
    engine: &'a Engine,
    time: Time,
    was_time: Time,
    /// The cursor moved on since the last check (time only passes with a step).
    new_step: bool,
    rec: Option<crate::sim::Rec>,
    info: Option<crate::run::StepInfo>,
    fresh: &'a [crate::observe::Violation],
    leaders: &'a [NodeId],
    was_leaders: &'a [NodeId],
}

fn current(p: &Predicate, engine: &Engine) -> Prev {
    match p {
        Predicate::Role { node, .. } => Prev::Role(role_of(engine, *node)),
        Predicate::Field { node, field, .. } => Prev::Value(value_of(engine, *node, field)),
        _ => Prev::Nothing,
    }
}

fn seen(p: &Predicate, was: &Prev, cur: &Prev, at: &At) -> Seen {
    match p {
        Predicate::Violation(name) => {
            at.fresh.iter().find(|v| name.is_none_or(|n| n == v.kind)).map_or(Seen::no(), |v| {
                let term = v.term.map_or(String::new(), |t| format!(" in term {t}"));
                Seen::event(format!("violation {}: {}{term}", v.kind, list(&v.nodes)), v.nodes.clone(), None)
            })
        }
        Predicate::LeadersChange => {
            if at.leaders == at.was_leaders {
                return Seen::no();
            }
            let mut nodes: Vec<NodeId> = at.leaders.iter().filter(|x| !at.was_leaders.contains(x)).copied().collect();
            nodes.extend(at.was_leaders.iter().filter(|x| !at.leaders.contains(x)));
            Seen::event(format!("leaders {} -> {}", list(at.was_leaders), list(at.leaders)), nodes, None)
        }
        Predicate::Role { node, role } => {
            let (Prev::Role(was), Prev::Role(cur)) = (was, cur) else { return Seen::no() };
            let (now, before) = (*cur == Some(*role), *was == Some(*role));
            let what = if before {
                format!("N{node} is {role}")
            } else {
                format!("N{node} becomes {role} (was {})", was.unwrap_or("down"))
            };
            Seen { now, before, what, nodes: vec![*node], msg: None }
        }
        Predicate::Field { node, field, op, value } => {
            let (Prev::Value(was), Prev::Value(cur)) = (was, cur) else { return Seen::no() };
            let now = cur.is_some_and(|x| op.holds(x, *value));
            let before = was.is_some_and(|w| op.holds(w, *value));
            let x = cur.map_or("-".to_string(), |x| x.to_string());
            let what = if before {
                format!("N{node} {} = {x}", field.name())
            } else {
                format!("N{node} {} {} -> {x}", field.name(), was.map_or("-".to_string(), |w| w.to_string()))
            };
            Seen { now, before, what, nodes: vec![*node], msg: None }
        }
        Predicate::Time { op, value } => {
            let v = (*value).min(i64::MAX as u64) as i64;
            let t = |x: Time| x.min(i64::MAX as u64) as i64;
            let now = op.holds(t(at.time), v);
            let before = if at.new_step { op.holds(t(at.was_time), v) } else { now };
            Seen { now, before, what: format!("time {}", at.time), nodes: vec![], msg: None }
        }
        Predicate::Timer { node, name } => match at.rec.map(|r| (r.kind, r.node)) {
            Some((EventKind::Timer(t), n)) if n == *node && name.is_none_or(|x| x == t) => {
                Seen::event(format!("N{node}'s {t} timer fires"), vec![*node], None)
            }
            _ => Seen::no(),
        },
        Predicate::Message { event, kind, from, to } => {
            let (Some(r), Some(info)) = (at.rec, &at.info) else { return Seen::no() };
            match event {
                MsgEvent::Deliver | MsgEvent::Drop => {
                    let ok = matches!(
                        (event, r.kind),
                        (MsgEvent::Deliver, EventKind::Deliver) | (MsgEvent::Drop, EventKind::Drop(_))
                    );
                    if ok
                        && info.kind == Some(*kind)
                        && to.is_none_or(|t| t == r.node)
                        && from.is_none_or(|f| f == r.peer)
                    {
                        let verb = if *event == MsgEvent::Deliver { "delivers" } else { "drops" };
                        Seen::event(
                            format!("{verb} {kind} #{} N{} -> N{}", r.aux, r.peer, r.node),
                            vec![r.peer, r.node],
                            Some(r.aux),
                        )
                    } else {
                        Seen::no()
                    }
                }
                MsgEvent::Send => {
                    let sender = r.node;
                    if from.is_some_and(|f| f != sender) {
                        return Seen::no();
                    }
                    info.sends.iter().find(|s| s.2 == *kind && to.is_none_or(|t| t == s.1)).map_or(Seen::no(), |s| {
                        Seen::event(
                            format!("N{sender} sends {kind} #{} to N{}", s.0, s.1),
                            vec![sender, s.1],
                            Some(s.0),
                        )
                    })
                }
            }
        }
    }
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
        self.prev = self.bps.iter().map(|b| b.all.iter().map(|p| current(p, engine)).collect()).collect();
    }

    pub fn breakpoints(&self) -> &[Breakpoint] {
        &self.bps
    }

    fn any(&self, f: impl Fn(&Predicate) -> bool) -> bool {
        self.bps.iter().any(|b| b.all.iter().any(&f))
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
        let all = engine.violations();
        let need_leaders = self.any(|p| *p == Predicate::LeadersChange);
        let leaders = if need_leaders { engine.leaders() } else { vec![] };
        let rec = if new_step { engine.record(step) } else { None };
        // The step's description (message kinds, what it sent) costs a formatted label: only
        // read it when a message breakpoint may need it.
        let wants = |e: MsgEvent| self.any(|p| matches!(p, Predicate::Message { event, .. } if *event == e));
        let info = match rec {
            Some(r)
                if (matches!(r.kind, EventKind::Deliver) && wants(MsgEvent::Deliver))
                    || (matches!(r.kind, EventKind::Drop(_)) && wants(MsgEvent::Drop))
                    || (!r.msgs().is_empty() && wants(MsgEvent::Send)) =>
            {
                engine.step_info(step)
            }
            _ => None,
        };
        let at = At {
            engine,
            time: engine.now(),
            was_time: self.time,
            new_step,
            rec,
            info,
            fresh: all.get(self.violations..).unwrap_or(&[]),
            leaders: &leaders,
            was_leaders: &self.leaders,
        };
        let mut found = None;
        let mut now_prev = Vec::with_capacity(self.bps.len());
        for (i, b) in self.bps.iter().enumerate() {
            let cur: Vec<Prev> = b.all.iter().map(|p| current(p, at.engine)).collect();
            if found.is_none() {
                let seen: Vec<Seen> =
                    b.all.iter().zip(&self.prev[i]).zip(&cur).map(|((p, was), c)| seen(p, was, c, &at)).collect();
                // With an event among them, at every step where all hold; else where all come to
                // hold together.
                let hits = seen.iter().all(|s| s.now)
                    && (b.all.iter().any(Predicate::is_event) || !seen.iter().all(|s| s.before));
                if hits {
                    let mut nodes: Vec<NodeId> = vec![];
                    for n in seen.iter().flat_map(|s| s.nodes.iter()) {
                        if !nodes.contains(n) {
                            nodes.push(*n);
                        }
                    }
                    found = Some(Hit {
                        step,
                        time: at.time,
                        index: i,
                        breakpoint: b.to_string(),
                        what: seen.iter().map(|s| s.what.as_str()).collect::<Vec<_>>().join(" and "),
                        nodes,
                        msg: seen.iter().find_map(|s| s.msg),
                    });
                }
            }
            now_prev.push(cur);
        }
        let time = at.time;
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
