//! **Scripted algorithms**: an election protocol written by the user in Rhai, run by the same
//! simulator as the built-in ones.
//!
//! A script's top level ends with its declaration (id, title, message kinds with their visual
//! roles, roles with their looks, timers, parameters with defaults, claimed properties, state
//! fields, narration lines in English and Chinese), read once by [`load`] into an ordinary
//! [`Algorithm`] descriptor that [`crate::registry::find`] then finds by its id. Its handlers
//! (`init`, `on_start`, `on_message(from, msg)`, `on_timer(name)`, `on_recover`, and `view`)
//! run with the node's state as `this` and act only through the context functions this module
//! registers (`send`, `broadcast`, `set_timer`, `cancel_timer`, `note`, `set_role`, ...): each
//! call is recorded and, once the handler returns, applied to the engine's [`Ctx`] in the order
//! it was made, so a script that makes the same calls as a built-in protocol draws the same
//! latencies and timer delays from the run's one generator.
//!
//! Every handler is bounded ([`LIMITS`]: operations, call depth, string, array and map sizes).
//! A handler that fails (a runtime error, or a budget exhausted) changes nothing; the protocol
//! keeps the error ([`Protocol::fault`]), naming the node, the handler, the line and column, and
//! the run stops after that step ([`crate::sim::Sim::halted`] says why).
//!
//! The interpreter is compiled in only with the engine's `script` feature.

mod error;
mod interp;
pub mod load;
pub mod value;
mod view;

use crate::error::ScenarioError;
use crate::meta::{Kind, Property};
use crate::protocol::{Config, Ctx, Message, MessageKind, Params, Protocol, TimerKey, View, FOLLOWER};
use crate::scenario::Scenario;
use crate::sim::Sim;
use crate::{NodeId, Time};
use load::{Decl, Loaded, ParamValue};
use rhai::{CallFnOptions, Dynamic, Engine, ImmutableString, Map, Position, Scope, AST};
use std::cell::RefCell;
use std::hash::{Hash, Hasher};
use std::rc::Rc;
use std::sync::Arc;
use value::{hash_dynamic, hash_map};

pub use error::ScriptError;
use interp::{compiled, with_engine, Call, Fx, Kept, CALL, LAST_POS, TRACKER};
pub use load::{find, load};

/// The handlers a script may define, with their number of arguments.
pub const HANDLERS: [(&str, usize); 7] = [
    ("init", 0),
    ("on_start", 0),
    ("on_message", 2),
    ("on_timer", 1),
    ("on_recover", 0),
    ("view", 0),
    ("configure", 0),
];
const HANDLER_ARGS: [&str; 7] = ["none", "none", "from, msg", "name", "none", "none", "none"];
const INIT: usize = 0;
const START: usize = 1;
const MESSAGE: usize = 2;
const TIMER: usize = 3;
const RECOVER: usize = 4;
const VIEW: usize = 5;
const CONFIGURE: usize = 6;

/// The templates a user's script starts from (the page's editor offers them): the built-in
/// algorithm each one equals on that algorithm's presets, and its source.
pub const TEMPLATES: [(&str, &str); 3] = [
    ("bully", include_str!("../../scripts/bully.rhai")),
    ("chang-roberts", include_str!("../../scripts/chang_roberts.rhai")),
    ("raft", include_str!("../../scripts/raft.rhai")),
];

/// The budget of one handler call (and of the declaration's evaluation).
#[derive(Clone, Copy, Debug)]
pub struct Limits {
    /// Interpreter operations (roughly: expressions evaluated, loop turns).
    pub operations: u64,
    /// Nested function calls.
    pub call_levels: usize,
    /// Characters in one string.
    pub string: usize,
    /// Items in one array (counting nested arrays' items).
    pub array: usize,
    /// Entries in one map (counting nested maps' entries).
    pub map: usize,
}

pub const LIMITS: Limits = Limits { operations: 1_000_000, call_levels: 48, string: 16_384, array: 10_000, map: 1_000 };

// ----- the protocol -----

/// A node's state: the script's `this` (a map of its fields) and the view its handlers set.
#[derive(Clone, Debug)]
pub struct State {
    pub this: Dynamic,
    pub role: &'static str,
    pub leader: Option<NodeId>,
    pub term: Option<u64>,
    /// Whom the node voted for, and a candidate's tally (votes held, votes needed): set only by
    /// `view()`.
    pub vote: Option<NodeId>,
    pub tally: Option<(u32, u32)>,
    /// The mark of the copy of `this` the view memory keeps, if `this` equals it (0: unknown;
    /// see [`view::Views::vouches`]). Not part of the state's value (hash, equality).
    mark: u64,
}

impl State {
    /// The view fields without the script's map (`this` is `()`).
    fn view_only(&self) -> State {
        State { this: Dynamic::UNIT, mark: 0, ..*self }
    }
}

impl Hash for State {
    fn hash<H: Hasher>(&self, h: &mut H) {
        // Explicit widths throughout: derived hashes of enums write a `usize`, whose width
        // differs between wasm32 and 64-bit hosts.
        hash_dynamic(&self.this, h);
        hash_dynamic(&Dynamic::from(self.role), h);
        h.write_u8(self.leader.is_some() as u8);
        h.write_u32(self.leader.unwrap_or(0));
        h.write_u8(self.term.is_some() as u8);
        h.write_u64(self.term.unwrap_or(0));
        h.write_u8(self.vote.is_some() as u8);
        h.write_u32(self.vote.unwrap_or(0));
        let (held, needed) = self.tally.unwrap_or((0, 0));
        h.write_u8(self.tally.is_some() as u8);
        h.write_u32(held);
        h.write_u32(needed);
    }
}

impl PartialEq for State {
    fn eq(&self, other: &Self) -> bool {
        // Values compared by their canonical form (what the hash reads).
        let key = |s: &State| {
            let mut v = Vec::new();
            hash_dynamic(&s.this, &mut Bytes(&mut v));
            (v, s.role, s.leader, s.term, s.vote, s.tally)
        };
        key(self) == key(other)
    }
}

/// A hasher that keeps the bytes it is fed (for comparing values by their canonical form).
struct Bytes<'a>(&'a mut Vec<u8>);
impl Hasher for Bytes<'_> {
    fn finish(&self) -> u64 {
        0
    }
    fn write(&mut self, bytes: &[u8]) {
        self.0.extend_from_slice(bytes);
    }
}

/// A message: its kind and its fields.
#[derive(Clone, Debug)]
pub struct Msg {
    pub kind: usize,
    pub body: Map,
    name: &'static str,
}

impl Hash for Msg {
    fn hash<H: Hasher>(&self, h: &mut H) {
        h.write_u64(self.kind as u64);
        hash_map(&self.body, h);
    }
}

impl MessageKind for Msg {
    fn kind(&self) -> usize {
        self.kind
    }
}

impl Message for Msg {
    /// `COORDINATOR(id=5)`: the kind and its fields in key order.
    fn label(&self) -> String {
        if self.body.is_empty() {
            return self.name.to_string();
        }
        let fields: Vec<String> = self.body.iter().map(|(k, v)| format!("{k}={v}")).collect();
        format!("{}({})", self.name, fields.join(", "))
    }
}

/// A timer: one of the names the script declared (hashed by its bytes).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Timer(pub &'static str);

impl TimerKey for Timer {
    /// None at compile time: a script declares its timers ([`Protocol::timer_names`]).
    const NAMES: &'static [&'static str] = &[];
    fn name(&self) -> &'static str {
        self.0
    }
}

/// A scripted algorithm, ready to run on one scenario.
pub struct Scripted {
    loaded: Arc<Loaded>,
    ast: Rc<AST>,
    cfg: Rc<Config>,
    params: Rc<Map>,
    /// The first handler error (the run stops after its step).
    fault: RefCell<Option<String>>,
    /// Each node's last `view()`, reused while `this` does not change.
    views: view::Views,
    /// The message kinds' and timers' names as script strings (`msg.kind`, `on_timer(name)`),
    /// made once.
    kind_names: Vec<ImmutableString>,
    timer_names: Vec<ImmutableString>,
    /// The interpreter's scope and an effects list, kept between handler calls (empty) so that
    /// their storage is reused.
    scope: RefCell<Scope<'static>>,
    spare_fx: std::cell::Cell<Vec<Fx>>,
    /// The interpreter state and function-resolution cache the handlers run with.
    kept: RefCell<Kept>,
}

/// Smallest number of steps between a scripted run's checkpoints (the built-ins' is 256).
pub const CHECKPOINT_SPACING: u64 = 32;

/// The descriptor's `build`: the scenario's `algorithm` names a loaded script.
pub fn build(scenario: &Scenario, claimed: &'static [Property]) -> Result<Sim, ScenarioError> {
    let Some(loaded) = find(&scenario.algorithm) else {
        return Err(ScenarioError::new("algorithm", format!("no script with id `{}` is loaded", scenario.algorithm)));
    };
    let cfg = scenario.config();
    let proto = Scripted::new_from(loaded, &cfg, &scenario.params)?;
    let mut sim = Sim::new(proto, cfg, scenario, claimed);
    // A script's steps may each be slow: seeking replays fewer of them.
    sim.set_checkpoint_spacing(CHECKPOINT_SPACING);
    Ok(sim)
}

type C<'a> = Ctx<'a, Msg, Timer>;

impl Scripted {
    fn new_from(loaded: Arc<Loaded>, cfg: &Config, given: &Params) -> Result<Self, ScenarioError> {
        let decl: &Decl = &loaded.decl;
        let mut params = Map::new();
        for (k, d) in &decl.params {
            params.insert(k.as_str().into(), d.to_dynamic());
        }
        for (k, v) in given {
            if !decl.params.iter().any(|(n, _)| n == k) {
                let known: Vec<&str> = decl.params.iter().map(|(n, _)| n.as_str()).collect();
                let message = match known.as_slice() {
                    [] => "unknown field: this algorithm has no parameters".to_string(),
                    _ => format!("unknown field `{k}`, expected one of `{}`", known.join("`, `")),
                };
                return Err(ScenarioError::new(format!("params.{k}"), message));
            }
            if v.is_null() {
                continue;
            }
            let d = value::from_json(v).map_err(|why| ScenarioError::new(format!("params.{k}"), why))?;
            params.insert(k.as_str().into(), d);
        }
        let ast = compiled(&loaded).map_err(|e| ScenarioError::new("algorithm", e.to_string()))?;
        let cfg = Rc::new(cfg.clone());
        let kind_names = loaded.decl.kinds.iter().map(|k| ImmutableString::from(*k)).collect();
        let timer_names = loaded.decl.timers.iter().map(|t| ImmutableString::from(*t)).collect();
        let (params_now, fault, views) = (Rc::new(Map::new()), RefCell::new(None), view::Views::default());
        let (scope, spare_fx) = (RefCell::new(Scope::new()), std::cell::Cell::new(Vec::new()));
        let kept = RefCell::new(Kept::new(&ast));
        let mut proto = Scripted {
            loaded,
            ast,
            cfg,
            params: params_now,
            fault,
            views,
            kind_names,
            timer_names,
            scope,
            spare_fx,
            kept,
        };
        if proto.loaded.decl.has[CONFIGURE] {
            // `configure` sees the parameters as `this`: it fills computed defaults and refuses
            // bad values with `throw "params.t_out: must be at least 1 tick"`.
            let mut this = Dynamic::from_map(params);
            let mut state = State { this: Dynamic::UNIT, ..proto.fresh() };
            let me = proto.cfg.ids.first().copied().unwrap_or(0);
            let what = || "configure".to_string();
            let _ = proto.run(CONFIGURE, &what, (), &mut this, &mut state, me, 0, false).map_err(|e| {
                let text = e.message.strip_prefix("configure: ").unwrap_or(&e.message).to_string();
                match text.split_once(": ") {
                    Some((field, why)) if field.starts_with("params.") => ScenarioError::new(field, why),
                    _ => ScenarioError::new("params", ScriptError { message: text, ..e }.to_string()),
                }
            })?;
            params = this.read_lock::<Map>().map(|m| m.clone()).unwrap_or_default();
        }
        proto.params = Rc::new(params);
        Ok(proto)
    }

    /// Calls handler `h` with `args` and `this`, recording its context calls; on success the
    /// view it set goes into `s`. Returns the recorded effects, the handler's result and whether
    /// the call was pure (see [`interp::Call::pure`]). `what` names the handler in an error (made
    /// only then).
    #[allow(clippy::too_many_arguments)]
    fn run(
        &self,
        h: usize,
        what: &dyn Fn() -> String,
        args: impl rhai::FuncArgs,
        this: &mut Dynamic,
        s: &mut State,
        me: NodeId,
        now: Time,
        tracked: bool,
    ) -> Result<(Vec<Fx>, Dynamic, bool), ScriptError> {
        let call = Call {
            me,
            now,
            cfg: self.cfg.clone(),
            decl: self.loaded.clone(),
            params: self.params.clone(),
            fx: self.spare_fx.take(),
            role: s.role,
            leader: s.leader,
            term: s.term,
            pure: true,
        };
        CALL.with(|c| *c.borrow_mut() = Some(call));
        // One scope for every call (emptied after each), so that its storage is not made and
        // freed again for each handler call.
        let mut scope = self.scope.borrow_mut();
        let out = if tracked {
            LAST_POS.with(|p| p.set(Position::NONE));
            TRACKER.with(|e: &Engine| {
                e.call_fn_with_options::<Dynamic>(
                    CallFnOptions::new().eval_ast(false).rewind_scope(true).bind_this_ptr(this),
                    &mut scope,
                    &self.ast,
                    HANDLERS[h].0,
                    args,
                )
            })
        } else {
            self.kept.borrow_mut().call(&mut scope, HANDLERS[h].0, this, args)
        };
        scope.clear();
        drop(scope);
        let call = CALL.with(|c| c.borrow_mut().take()).expect("the call set above");
        let out = out.map_err(|e| {
            let mut err = ScriptError::runtime(&what(), &e);
            if tracked {
                let pos = LAST_POS.with(|p| p.get());
                (err.line, err.column, err.locate) = (pos.line(), pos.position(), false);
            }
            err
        })?;
        s.role = call.role;
        s.leader = call.leader;
        s.term = call.term;
        Ok((call.fx, out, call.pure))
    }

    /// Runs handler `h` on node state `s` (atomically: on an error nothing changes and the
    /// fault is kept), then `view` if the script has one, then applies the effects to `ctx`.
    /// `args` makes the handler's arguments: once, and once more only to place an error.
    fn handle<A: rhai::FuncArgs>(
        &self,
        h: usize,
        what: impl Fn() -> String,
        args: impl Fn() -> A,
        s: &mut State,
        ctx: &mut C,
    ) {
        // No check of an earlier fault here: the simulator goes no further than the step that
        // failed, and replaying earlier steps (seeking back) must do what they did.
        if !self.loaded.decl.has[h] {
            return;
        }
        // The handler works on the state's own map, which a failed call must leave as it was:
        // copied first, unless the view memory keeps an equal copy to put back.
        let mut next = s.view_only();
        let backup = (!self.views.vouches(ctx.me, s.mark)).then(|| s.this.clone());
        let mut this = std::mem::take(&mut s.this);
        let ran = self.run(h, &what, args(), &mut this, &mut next, ctx.me, ctx.now, false);
        let fx = ran.map_err(|e| (e, true)).and_then(|(fx, _, _)| {
            next.this = this;
            self.refresh_view(&mut next, ctx.me, ctx.now).map_err(|e| (e, false))?;
            Ok(fx)
        });
        match fx {
            Ok(fx) => {
                *s = next;
                self.apply(fx, ctx);
            }
            Err((e, handler)) => {
                s.this = backup.unwrap_or_else(|| self.views.copy(ctx.me));
                // Run it again, from the same state, with the position tracker: it fails at the
                // same operation, and the tracker saw where.
                let e = match handler && e.locate {
                    true => {
                        let (mut this, mut next) = (s.this.clone(), s.view_only());
                        self.run(h, &what, args(), &mut this, &mut next, ctx.me, ctx.now, true).err().unwrap_or(e)
                    }
                    false => e,
                };
                self.fail(ctx.me, ctx.now, e)
            }
        }
    }

    fn fail(&self, me: NodeId, now: Time, e: ScriptError) {
        let mut fault = self.fault.borrow_mut();
        if fault.is_none() {
            *fault = Some(format!("N{me}, t={now}, {e}"));
        }
    }

    /// Calls the script's `view()` (if any), which returns `#{ role, leader, term }` (each
    /// optional) read from `this`, and acts not; or reuses its last result for this node if
    /// `this` has not changed since (see [`view`]).
    fn refresh_view(&self, s: &mut State, me: NodeId, now: Time) -> Result<(), ScriptError> {
        let decl = &self.loaded.decl;
        if !decl.has[VIEW] {
            return Ok(());
        }
        if self.views.reuse(me, s) {
            return Ok(());
        }
        // `view` reads the state in place (it runs on the copy a handler just made).
        let mut this = std::mem::replace(&mut s.this, Dynamic::UNIT);
        let out = self.run(VIEW, &|| "view".to_string(), (), &mut this, s, me, now, false);
        s.this = this;
        let (fx, v, pure) = out?;
        let plain = |m: String| ScriptError::plain(format!("view: {m}"));
        if !fx.is_empty() {
            return Err(plain("it only reads the state: no send, timer or note".into()));
        }
        let type_name = v.type_name();
        let Some(m) = v.try_cast::<Map>() else {
            return Err(plain(format!("it must return a map #{{ role: ..., leader: ... }}, not {type_name}")));
        };
        let patch = view::Patch::read(decl, &m)?;
        patch.apply(s);
        if pure {
            self.views.keep(me, s, patch);
        }
        Ok(())
    }

    fn apply(&self, mut fx: Vec<Fx>, ctx: &mut C) {
        let names = &self.loaded.decl.kinds;
        for f in fx.drain(..) {
            match f {
                Fx::Send { to, kind, body } => ctx.send(to, Msg { kind, body, name: names[kind] }),
                Fx::Broadcast { kind, body } => ctx.broadcast(Msg { kind, body, name: names[kind] }),
                Fx::SetTimer { name, lo, hi } => ctx.set_timer(Timer(name), lo, hi),
                Fx::CancelTimer(name) => ctx.cancel_timer(Timer(name)),
                Fx::Note(n) => ctx.note(n),
            }
        }
        self.spare_fx.set(fx);
    }

    fn fresh(&self) -> State {
        let this = Dynamic::from_map(Map::new());
        State { this, role: FOLLOWER, leader: None, term: None, vote: None, tally: None, mark: 0 }
    }
}

impl Protocol for Scripted {
    type State = State;
    type Msg = Msg;
    type Timer = Timer;
    /// Not used: a script's kinds are its descriptor's ([`Protocol::kinds`]).
    const KINDS: &'static [Kind] = &[];

    fn kinds(&self) -> &'static [Kind] {
        self.loaded.algorithm.kinds
    }

    fn timer_names(&self) -> &'static [&'static str] {
        self.loaded.decl.timers
    }

    fn new(_cfg: &Config, _params: &Params) -> Result<Self, ScenarioError> {
        Err(ScenarioError::new("algorithm", "a scripted algorithm is built from its loaded script"))
    }

    fn init(&self, ctx: &mut C) -> State {
        let mut s = self.fresh();
        if !self.loaded.decl.has[INIT] {
            if let Err(e) = self.refresh_view(&mut s, ctx.me, ctx.now) {
                self.fail(ctx.me, ctx.now, e);
            }
            return s;
        }
        self.handle(INIT, || "init".to_string(), || (), &mut s, ctx);
        s
    }

    fn start(&self, s: &mut State, ctx: &mut C) {
        self.handle(START, || "on_start".to_string(), || (), s, ctx);
    }

    fn on_message(&self, s: &mut State, from: NodeId, msg: Msg, ctx: &mut C) {
        let kind = msg.name;
        // A map passed as a `Dynamic`: given as a `Map`, the interpreter would rebuild it entry by
        // entry. Made from the message each time it is needed (an empty body, the most common,
        // costs no copy), rather than copied up front in case of a second run.
        let args = || {
            let mut m = msg.body.clone();
            m.insert("kind".into(), Dynamic::from(self.kind_names[msg.kind].clone()));
            (from as i64, Dynamic::from_map(m))
        };
        self.handle(MESSAGE, || format!("on_message({kind} from N{from})"), args, s, ctx);
    }

    fn on_timer(&self, s: &mut State, timer: Timer, ctx: &mut C) {
        let name = timer.0;
        let i = self.loaded.decl.timers.iter().position(|t| *t == name);
        let arg = i.map_or_else(|| Dynamic::from(name), |i| Dynamic::from(self.timer_names[i].clone()));
        self.handle(TIMER, || format!("on_timer(\"{name}\")"), || (arg.clone(),), s, ctx);
    }

    fn recover(&self, crashed: &State, ctx: &mut C) -> State {
        // Only the fields declared `durable` survive a crash.
        let mut kept = Map::new();
        if let Some(old) = crashed.this.read_lock::<Map>() {
            for f in self.loaded.decl.fields.iter().filter(|f| f.durable) {
                if let Some(v) = old.get(f.name.as_str()) {
                    kept.insert(f.name.as_str().into(), v.clone());
                }
            }
        }
        let mut s = State { this: Dynamic::from_map(kept), ..self.fresh() };
        let h = if self.loaded.decl.has[RECOVER] { RECOVER } else { INIT };
        self.handle(h, || HANDLERS[h].0.to_string(), || (), &mut s, ctx);
        s
    }

    fn view(&self, s: &State) -> View {
        View { role: s.role, leader: s.leader, term: s.term, vote: s.vote, tally: s.tally, ..View::default() }
    }

    fn inspect(&self, s: &State) -> Vec<crate::field::Field> {
        let this = s.this.read_lock::<Map>();
        let field = |f: &load::Field| crate::field::Field {
            id: f.name.clone().into(),
            label: f.label,
            value: value::typed(this.as_ref().and_then(|m| m.get(f.name.as_str())), f.show),
        };
        self.loaded.decl.fields.iter().map(field).collect()
    }

    fn fault(&self) -> Option<String> {
        self.fault.borrow().clone()
    }

    fn clear_fault(&self) {
        self.fault.borrow_mut().take();
    }
}

/// The default of a parameter as declared (for the guide and tests).
pub fn param_default(loaded: &Loaded, name: &str) -> Option<ParamValue> {
    loaded.decl.params.iter().find(|(n, _)| n == name).map(|(_, v)| v.clone())
}
