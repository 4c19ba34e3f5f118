//! **Node processes**: an election protocol written in any language, each node a child process
//! that reads events and writes its effects as JSON Lines (`election-lab run --node-cmd`; the
//! guide's chapter "Nodes in any language" documents the lines).
//!
//! [`launch`] starts one process per node and asks each for its declaration (`hello`), in the
//! vocabulary of a script's declaration (id, kinds with their visual roles, roles, timers,
//! parameters, claims, fields, notes), read by the same code ([`script::load::declare`]) into an
//! [`Algorithm`] descriptor that [`crate::registry::find`] then finds by its id. The simulator
//! owns time and delivery: each event (`init`, `start`, `message`, `timer`, `recover`) is one
//! line written to the node's process, whose one-line answer lists its effects (send,
//! broadcast, set or cancel a timer, a narration note) and its view (role, leader, term). The
//! effects are applied to the [`Ctx`] in the order given, exactly as a script's are, so the
//! latencies and timer delays come from the run's one generator: the run is as deterministic as
//! the nodes' own code.
//!
//! A process cannot be rewound, but the engine replays steps (seeking, writing a trace), forks,
//! and a search runs many schedules: every answer is kept in a tree of each node's histories
//! ([`history`]), and an event met before at that point of a history is answered from there,
//! without the process. A new event in another history than the one the process lived through
//! starts a new process for the node, given that history's events again (their answers must be
//! the same: the run is as deterministic as the node's code, and a node that is not is named).
//!
//! A process that exits, does not answer within the time limit, or writes a line that is not a
//! valid answer is stopped; the protocol keeps the fault ([`Protocol::fault`]) naming the node,
//! the event and what went wrong, with the end of its standard error, and the run stops after
//! that step. Every process is killed when the [`Launched`] guard is dropped.
//!
//! Native only, with the engine's `node-cmd` feature (the command line's).

mod child;
mod history;
pub mod wire;

use crate::algorithm::Algorithm;
use crate::error::ScenarioError;
use crate::meta::{Kind, Property};
use crate::protocol::{Config, Ctx, Message, MessageKind, Params, Protocol, View, FOLLOWER};
use crate::protocols::script::{self, load::ParamValue, Timer};
use crate::scenario::Scenario;
use crate::sim::Sim;
use crate::NodeId;
use child::Child;
use history::History;
use script::load::Decl;
use serde_json::{Map, Value};
use std::cell::RefCell;
use std::collections::BTreeMap;
use std::hash::{Hash, Hasher};
use std::sync::{Arc, Mutex};
use std::time::Duration;
use wire::Fx;

pub use child::words;

/// The default time a process has to answer one event (`--node-timeout`).
pub const DEFAULT_TIMEOUT_MS: u64 = 5000;
/// The time a process has for its declaration (an interpreter may be slow to start), at least.
pub const HELLO_TIMEOUT_MS: u64 = 10_000;

/// The processes of one `--node-cmd` run, their declaration and every answer they gave.
pub struct Cluster {
    pub decl: Decl,
    pub algorithm: &'static Algorithm,
    timeout: Duration,
    /// Each node's command, to start it again in another history.
    commands: BTreeMap<NodeId, String>,
    nodes: Mutex<BTreeMap<NodeId, Child>>,
    /// Per node, every event written to its processes and the answers.
    answers: Mutex<BTreeMap<NodeId, History>>,
    /// The first failure of a process in any run on this cluster (a search runs many).
    first_fault: Mutex<Option<String>>,
}

static RUNNING: Mutex<Vec<Arc<Cluster>>> = Mutex::new(Vec::new());

/// The launched cluster whose algorithm id is `id`.
pub fn find(id: &str) -> Option<Arc<Cluster>> {
    RUNNING.lock().unwrap_or_else(|e| e.into_inner()).iter().rev().find(|c| c.decl.id == id).cloned()
}

/// The launched processes: dropping it kills every one and forgets the cluster.
pub struct Launched {
    cluster: Arc<Cluster>,
}

impl Launched {
    /// The id the processes declared: the algorithm a scenario names to run on them.
    pub fn id(&self) -> &'static str {
        self.cluster.decl.id
    }

    /// The first failure of a process in any run on these processes, naming the node, the time,
    /// the event and what went wrong.
    pub fn fault(&self) -> Option<String> {
        self.cluster.first_fault.lock().unwrap_or_else(|e| e.into_inner()).clone()
    }
}

impl Drop for Launched {
    fn drop(&mut self) {
        for child in self.cluster.nodes.lock().unwrap_or_else(|e| e.into_inner()).values_mut() {
            child.stop();
        }
        RUNNING.lock().unwrap_or_else(|e| e.into_inner()).retain(|c| !Arc::ptr_eq(c, &self.cluster));
    }
}

/// Starts `commands` (one per node id, in the scenario's order), asks each process for its
/// declaration, and registers the algorithm the first one declares (the others must declare the
/// same id). `timeout` bounds each answer. Errors name the node.
pub fn launch(commands: &[(NodeId, String)], timeout: Duration) -> Result<Launched, String> {
    let mut nodes = BTreeMap::new();
    for (id, cmd) in commands {
        let child = Child::spawn(cmd).map_err(|e| format!("node N{id}: {e}"))?;
        nodes.insert(*id, child);
    }
    let hello_timeout = timeout.max(Duration::from_millis(HELLO_TIMEOUT_MS));
    let mut declared: Option<(Decl, &'static Algorithm)> = None;
    for (id, _) in commands {
        let child = nodes.get_mut(id).expect("spawned above");
        let what = |e: String| format!("node N{id}, asked for its declaration (hello): {e}");
        let line = child.ask(&wire::hello(*id), hello_timeout).map_err(what)?;
        let value: Value = serde_json::from_str(&line).map_err(|e| what(child.fail(&junk(&line, &e.to_string()))))?;
        match &declared {
            None => {
                let map = script::value::from_json(&value)
                    .ok()
                    .and_then(|d| d.read_lock::<rhai::Map>().map(|m| m.clone()))
                    .ok_or_else(|| what(child.fail(&junk(&line, "not a declaration object {\"id\": ...}"))))?;
                let has = [true; script::HANDLERS.len()];
                let d = script::load::declare(&map, has, build).map_err(|e| what(child.fail(&e.to_string())))?;
                declared = Some(d);
            }
            Some((decl, _)) => {
                if value.get("id").and_then(Value::as_str) != Some(decl.id) {
                    return Err(what(format!(
                        "it declares the id {}, and the first node `{}`: every node runs the same algorithm",
                        value["id"], decl.id
                    )));
                }
            }
        }
    }
    let (decl, algorithm) = declared.ok_or("no node to run")?;
    let commands = commands.iter().cloned().collect();
    let (nodes, answers) = (Mutex::new(nodes), Mutex::new(BTreeMap::new()));
    let first_fault = Mutex::new(None);
    let cluster = Arc::new(Cluster { decl, algorithm, timeout, commands, nodes, answers, first_fault });
    RUNNING.lock().unwrap_or_else(|e| e.into_inner()).push(cluster.clone());
    Ok(Launched { cluster })
}

fn junk(line: &str, why: &str) -> String {
    let shown: String = line.chars().take(200).collect();
    let more = if shown.len() < line.len() { "…" } else { "" };
    format!("the process wrote `{shown}{more}`: {why}")
}

/// A node's view of itself, as its process last reported it, the number of events it has
/// handled, and where its history is in the tree of answers kept (not part of its value: two
/// runs reaching the same state hash alike, whatever else this process's cluster ran before).
#[derive(Clone, Debug)]
pub struct State {
    pub handled: u32,
    pub at: u32,
    pub role: &'static str,
    pub leader: Option<NodeId>,
    pub term: Option<u64>,
    pub vote: Option<NodeId>,
    /// Declared fields, typed as the process gave them.
    pub fields: Vec<crate::field::FieldValue>,
}

/// What a state's value is made of (all but [`State::at`]).
type Key<'a> = (u32, &'a str, Option<NodeId>, Option<u64>, Option<NodeId>, &'a [crate::field::FieldValue]);

impl State {
    fn key(&self) -> Key<'_> {
        (self.handled, self.role, self.leader, self.term, self.vote, &self.fields)
    }
}

impl PartialEq for State {
    fn eq(&self, other: &Self) -> bool {
        self.key() == other.key()
    }
}

impl Eq for State {}

impl Hash for State {
    fn hash<H: Hasher>(&self, h: &mut H) {
        self.key().hash(h);
    }
}

/// A message: its kind and its fields (the compact JSON object its sender gave).
#[derive(Clone, Debug)]
pub struct Msg {
    pub kind: usize,
    pub fields: Arc<str>,
    name: &'static str,
}

impl Hash for Msg {
    fn hash<H: Hasher>(&self, h: &mut H) {
        h.write_u64(self.kind as u64);
        h.write(self.fields.as_bytes());
    }
}

impl MessageKind for Msg {
    fn kind(&self) -> usize {
        self.kind
    }
}

impl Message for Msg {
    /// `COORDINATOR(id=5)`: the kind and its fields.
    fn label(&self) -> String {
        let fields: Map<String, Value> = serde_json::from_str(&self.fields).unwrap_or_default();
        if fields.is_empty() {
            return self.name.to_string();
        }
        let shown: Vec<String> = fields.iter().map(|(k, v)| format!("{k}={v}")).collect();
        format!("{}({})", self.name, shown.join(", "))
    }
}

/// The protocol of one run on launched processes.
pub struct Processes {
    cluster: Arc<Cluster>,
    cfg: Config,
    params: Map<String, Value>,
    fault: RefCell<Option<String>>,
}

type C<'a> = Ctx<'a, Msg, Timer>;

/// The descriptor's `build`: the scenario's `algorithm` names a launched cluster.
pub fn build(scenario: &Scenario, claimed: &'static [Property]) -> Result<Sim, ScenarioError> {
    let Some(cluster) = find(&scenario.algorithm) else {
        return Err(ScenarioError::new("algorithm", format!("no node processes declared `{}`", scenario.algorithm)));
    };
    let decl = &cluster.decl;
    let mut params = Map::new();
    for (k, d) in &decl.params {
        let v = match d {
            ParamValue::Unit => Value::Null,
            ParamValue::Int(i) => Value::from(*i),
            ParamValue::Bool(b) => Value::from(*b),
            ParamValue::Str(s) => Value::from(s.as_str()),
        };
        params.insert(k.clone(), v);
    }
    for (k, v) in &scenario.params {
        if !decl.params.iter().any(|(n, _)| n == k) {
            let known: Vec<&str> = decl.params.iter().map(|(n, _)| n.as_str()).collect();
            let message = match known.as_slice() {
                [] => "unknown field: the node processes declare no parameters".to_string(),
                _ => format!("unknown field `{k}`, expected one of `{}`", known.join("`, `")),
            };
            return Err(ScenarioError::new(format!("params.{k}"), message));
        }
        params.insert(k.clone(), v.clone());
    }
    let cfg = scenario.config();
    for id in &cfg.ids {
        if !cluster.nodes.lock().unwrap_or_else(|e| e.into_inner()).contains_key(id) {
            return Err(ScenarioError::new("nodes", format!("no process was started for node {id}")));
        }
    }
    let proto = Processes { cluster, cfg: cfg.clone(), params, fault: RefCell::new(None) };
    Ok(Sim::new(proto, cfg, scenario, claimed))
}

impl Processes {
    fn fresh(&self, handled: u32, at: u32) -> State {
        let fields = vec![crate::field::FieldValue::None; self.cluster.decl.fields.len()];
        State { handled, at, role: FOLLOWER, leader: None, term: None, vote: None, fields }
    }

    /// Starts node `me`'s process again and gives it the events of `hist` up to `at`, checking
    /// that it answers each as it did before.
    fn restart(&self, me: NodeId, child: &mut Child, hist: &mut History, at: u32) -> Result<(), String> {
        child.stop();
        hist.live = None;
        let cmd = self.cluster.commands.get(&me).ok_or("no command runs this node")?;
        *child = Child::spawn(cmd).map_err(|e| format!("started again for another run: {e}"))?;
        let hello_timeout = self.cluster.timeout.max(Duration::from_millis(HELLO_TIMEOUT_MS));
        child.ask(&wire::hello(me), hello_timeout).map_err(|e| format!("started again, asked hello: {e}"))?;
        for (k, (line, answer)) in hist.path(at).into_iter().enumerate() {
            let got = child.ask(line, self.cluster.timeout).map_err(|e| format!("started again: {e}"))?;
            if !History::same_answer(answer, &got) {
                return Err(child.fail(&format!(
                    "started again for another run and given the same events, it answered event {} (`{}`) \
                     otherwise than before: `{}` (is the node deterministic?)",
                    k + 1,
                    line.chars().take(200).collect::<String>(),
                    got.chars().take(200).collect::<String>()
                )));
            }
        }
        hist.live = Some(at);
        Ok(())
    }

    /// Gives node `ctx.me`'s process the event `line` (or takes its answer from the ones kept,
    /// when the engine replays a step), then applies the answer to `s` and `ctx`. On a failure
    /// nothing changes and the fault is kept, naming the node and `what` event it was.
    fn handle(&self, what: impl Fn() -> String, line: String, s: &mut State, ctx: &mut C) {
        let me = ctx.me;
        let mut answers = self.cluster.answers.lock().unwrap_or_else(|e| e.into_inner());
        let hist = answers.entry(me).or_default();
        let (next, reply) = match hist.child(s.at, &line) {
            Some((next, reply)) => (next, reply.clone()),
            None => {
                let mut nodes = self.cluster.nodes.lock().unwrap_or_else(|e| e.into_inner());
                let Some(child) = nodes.get_mut(&me) else {
                    return self.fail(me, ctx.now, &what(), "no process runs this node".into());
                };
                if hist.live != Some(s.at) {
                    if let Err(e) = self.restart(me, child, hist, s.at) {
                        return self.fail(me, ctx.now, &what(), e);
                    }
                }
                hist.live = None;
                let answer = match child.ask(&line, self.cluster.timeout) {
                    Ok(a) => a,
                    Err(e) => return self.fail(me, ctx.now, &what(), e),
                };
                match wire::reply(&answer, &self.cluster.decl, &self.cfg) {
                    Ok(r) => {
                        let next = hist.add(s.at, line, &answer, r.clone());
                        hist.live = Some(next);
                        (next, r)
                    }
                    Err(why) => {
                        let e = child.fail(&junk(&answer, &why));
                        return self.fail(me, ctx.now, &what(), e);
                    }
                }
            }
        };
        drop(answers);
        s.handled += 1;
        s.at = next;
        let u = reply.update;
        s.role = u.role.unwrap_or(s.role);
        s.leader = u.leader.unwrap_or(s.leader);
        s.term = u.term.unwrap_or(s.term);
        s.vote = u.vote.unwrap_or(s.vote);
        for (i, shown) in u.fields {
            s.fields[i] = shown;
        }
        let names = &self.cluster.decl.kinds;
        for f in reply.fx {
            match f {
                Fx::Send { to, kind, fields } => ctx.send(to, Msg { kind, fields, name: names[kind] }),
                Fx::Broadcast { kind, fields } => ctx.broadcast(Msg { kind, fields, name: names[kind] }),
                Fx::SetTimer { name, lo, hi } => ctx.set_timer(Timer(name), lo, hi),
                Fx::CancelTimer(name) => ctx.cancel_timer(Timer(name)),
                Fx::Note(n) => ctx.note(n),
            }
        }
    }

    fn fail(&self, me: NodeId, now: crate::Time, what: &str, why: String) {
        let mut fault = self.fault.borrow_mut();
        if fault.is_none() {
            *fault = Some(format!("N{me}, t={now}, on {what}: {why}"));
            let mut first = self.cluster.first_fault.lock().unwrap_or_else(|e| e.into_inner());
            first.get_or_insert_with(|| format!("N{me}, t={now}, on {what}: {why}"));
        }
    }
}

impl Protocol for Processes {
    type State = State;
    type Msg = Msg;
    type Timer = Timer;
    /// Not used: the processes' kinds are their declaration's ([`Protocol::kinds`]).
    const KINDS: &'static [Kind] = &[];

    fn kinds(&self) -> &'static [Kind] {
        self.cluster.algorithm.kinds
    }

    fn timer_names(&self) -> &'static [&'static str] {
        self.cluster.decl.timers
    }

    fn new(_cfg: &Config, _params: &Params) -> Result<Self, ScenarioError> {
        Err(ScenarioError::new("algorithm", "node processes are built from the launched processes"))
    }

    fn init(&self, ctx: &mut C) -> State {
        let mut s = self.fresh(0, history::ROOT);
        let line = wire::init(ctx.cfg, ctx.me, ctx.now, &self.params);
        self.handle(|| "init".into(), line, &mut s, ctx);
        s
    }

    fn start(&self, s: &mut State, ctx: &mut C) {
        self.handle(|| "start".into(), wire::bare("start", ctx.now), s, ctx);
    }

    fn on_message(&self, s: &mut State, from: NodeId, msg: Msg, ctx: &mut C) {
        let line = wire::message(ctx.now, from, msg.name, &msg.fields);
        self.handle(|| format!("message {} from N{from}", msg.label()), line, s, ctx);
    }

    fn on_timer(&self, s: &mut State, timer: Timer, ctx: &mut C) {
        let name = timer.0;
        self.handle(|| format!("timer {name}"), wire::timer(ctx.now, name), s, ctx);
    }

    fn recover(&self, crashed: &State, ctx: &mut C) -> State {
        // The process keeps running through the crash (a crashed node gets no events); told
        // `recover`, it forgets its volatile state.
        let mut s = self.fresh(crashed.handled, crashed.at);
        self.handle(|| "recover".into(), wire::bare("recover", ctx.now), &mut s, ctx);
        s
    }

    fn view(&self, s: &State) -> View {
        View { role: s.role, leader: s.leader, term: s.term, vote: s.vote, ..View::default() }
    }

    fn inspect(&self, s: &State) -> Vec<crate::field::Field> {
        let field = |(f, v): (&script::load::Field, &crate::field::FieldValue)| crate::field::Field {
            id: f.name.clone().into(),
            label: f.label,
            value: v.clone(),
        };
        self.cluster.decl.fields.iter().zip(&s.fields).map(field).collect()
    }

    fn fault(&self) -> Option<String> {
        self.fault.borrow().clone()
    }

    fn clear_fault(&self) {
        self.fault.borrow_mut().take();
    }
}
