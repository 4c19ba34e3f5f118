//! The interpreter, one per thread, and the context functions a handler calls: each call is
//! checked and recorded in the running handler's [`Call`], applied once the handler returns.

use super::load::Loaded;
use super::value::{node_or_unit, uint_or_unit};
use super::{ScriptError, LIMITS};
use crate::meta::{Note, Text};
use crate::protocol::Config;
use crate::{NodeId, Time};
use rhai::{Caches, Dynamic, Engine, EvalAltResult, EvalContext, FuncArgs, GlobalRuntimeState, Map, Position, Scope};
use rhai::{ImmutableString, StaticVec, AST};
use std::cell::RefCell;
use std::rc::Rc;
use std::sync::Arc;

/// One context-function call a handler made, applied to the real context once it returns.
pub(super) enum Fx {
    Send { to: NodeId, kind: usize, body: Map },
    Broadcast { kind: usize, body: Map },
    SetTimer { name: &'static str, lo: Time, hi: Time },
    CancelTimer(&'static str),
    Note(Note),
}

/// The handler running now on this thread: what its context functions read and record.
pub(super) struct Call {
    pub(super) me: NodeId,
    pub(super) now: Time,
    pub(super) cfg: Rc<Config>,
    pub(super) decl: Arc<Loaded>,
    pub(super) params: Rc<Map>,
    pub(super) fx: Vec<Fx>,
    pub(super) role: &'static str,
    pub(super) leader: Option<NodeId>,
    pub(super) term: Option<u64>,
    /// Nothing but the node and `this` counted: no clock read, no role, leader or term set (a
    /// `view()` that was pure can be remembered, see [`super::view`]).
    pub(super) pure: bool,
}

thread_local! {
    pub(super) static ENGINE: Engine = new_engine();
    /// The interpreter that runs handlers through [`Kept`]: [`ENGINE`]'s functions and budgets,
    /// and two more call levels for the two that its entry counts before a handler's body (so
    /// that a handler may nest calls exactly as deep as through `call_fn`).
    static RUNNER: Engine = {
        let mut e = new_engine();
        e.set_max_call_levels(LIMITS.call_levels + 2);
        e
    };
    /// The same interpreter with a tracker of the position being evaluated, to re-run a handler
    /// that ran out of its budget and name the line where it did.
    pub(super) static TRACKER: Engine = tracking_engine();
    pub(super) static LAST_POS: std::cell::Cell<Position> = const { std::cell::Cell::new(Position::NONE) };
    pub(super) static CALL: RefCell<Option<Call>> = const { RefCell::new(None) };
    /// Compiled scripts, by source (an [`AST`] is not thread-safe, so each thread compiles its own).
    static COMPILED: RefCell<Vec<(Arc<Loaded>, Rc<AST>)>> = const { RefCell::new(Vec::new()) };
    /// Narration lines already found, by script and name (see [`note_text`]).
    static NOTES: RefCell<Vec<(Arc<Loaded>, ImmutableString, Text)>> = const { RefCell::new(Vec::new()) };
}

/// The most lines [`NOTES`] keeps (a script that makes its names at run time refills it).
const NOTES_KEPT: usize = 64;

/// The narration line `name` of the running script. The name a handler passes is nearly always
/// one of its literals, the same shared string at every call, so a line found once is found
/// again by the string's pointer instead of among the script's lines and the catalogs' keys.
/// A kept string stays alive, so its pointer cannot come to stand for another string.
fn note_text(c: &Call, name: &ImmutableString) -> Option<Text> {
    NOTES.with(|n| {
        let mut n = n.borrow_mut();
        if let Some((.., t)) = n.iter().find(|(l, s, _)| s.ptr_eq(name) && Arc::ptr_eq(l, &c.decl)) {
            return Some(*t);
        }
        let t = c.decl.decl.note(name)?;
        if n.len() >= NOTES_KEPT {
            n.clear();
        }
        n.push((c.decl.clone(), name.clone(), t));
        Some(t)
    })
}

pub(super) fn with_engine<R>(f: impl FnOnce(&Engine) -> R) -> R {
    ENGINE.with(f)
}

type Res<T> = Result<T, Box<EvalAltResult>>;

fn fail<T>(message: String) -> Res<T> {
    Err(message.into())
}

/// Runs `f` on the handler running now (an error outside a handler: in the declaration).
fn call<T>(what: &str, f: impl FnOnce(&mut Call) -> Res<T>) -> Res<T> {
    CALL.with(|c| match c.borrow_mut().as_mut() {
        Some(call) => f(call),
        None => fail(format!("{what}() is for handlers; the declaration cannot call it")),
    })
}

fn int(x: u64) -> i64 {
    i64::try_from(x).unwrap_or(i64::MAX)
}

fn ids(v: &[NodeId]) -> rhai::Array {
    v.iter().map(|&i| Dynamic::from(i as i64)).collect()
}

fn node_arg(v: i64, what: &str) -> Res<NodeId> {
    NodeId::try_from(v).or_else(|_| fail(format!("{what}: {v} is not a node id")))
}

fn kind_arg(c: &Call, kind: &str) -> Res<usize> {
    c.decl
        .decl
        .kind(kind)
        .map_or_else(|| fail(format!("unknown message kind `{kind}` (declared: {})", c.decl.decl.kinds.join(", "))), Ok)
}

fn timer_arg(c: &Call, name: &str) -> Res<&'static str> {
    c.decl.decl.timer(name).map_or_else(
        || fail(format!("unknown timer `{name}` (declared in `timers`: {})", c.decl.decl.timers.join(", "))),
        Ok,
    )
}

fn tick_arg(v: i64, what: &str) -> Res<Time> {
    u64::try_from(v).or_else(|_| fail(format!("{what}: {v} ticks is negative")))
}

fn note_fx(c: &mut Call, name: &ImmutableString, args: &Map) -> Res<()> {
    let Some(text) = note_text(c, name) else {
        let names: Vec<&str> = c.decl.decl.notes.iter().map(|(n, _)| n.as_str()).collect();
        return fail(format!("unknown note `{name}` (declared in `notes`: {})", names.join(", ")));
    };
    let names = text.args();
    let mut a = [0u64; crate::meta::MAX_ARGS];
    for (i, arg) in names.iter().enumerate().take(crate::meta::MAX_ARGS) {
        let Some(v) = args.get(*arg) else {
            return fail(format!("note `{name}` needs the argument `{arg}`"));
        };
        a[i] = match uint_or_unit(v, format_args!("note `{name}`, argument `{arg}`")) {
            Ok(x) => x.unwrap_or(0),
            Err(e) => return fail(e),
        };
    }
    if let Some(extra) = args.keys().find(|k| !names.contains(&k.as_str())) {
        return fail(format!("note `{name}` has no argument `{extra}` (it takes: {})", names.join(", ")));
    }
    // A scripted algorithm's narration is data read at run time: the one untyped note.
    #[allow(clippy::disallowed_methods)]
    c.fx.push(Fx::Note(Note::untyped(text, &a)));
    Ok(())
}

fn new_engine() -> Engine {
    let mut e = Engine::new();
    e.set_max_operations(LIMITS.operations)
        .set_max_call_levels(LIMITS.call_levels)
        .set_max_expr_depths(64, 32)
        .set_max_string_size(LIMITS.string)
        .set_max_array_size(LIMITS.array)
        .set_max_map_size(LIMITS.map)
        .set_max_variables(256)
        .set_max_functions(256)
        .set_strict_variables(true)
        .set_fail_on_invalid_map_property(true);
    // No output of any kind, and no evaluating strings as code.
    e.on_print(|_| {});
    e.on_debug(|_, _, _| {});
    e.disable_symbol("eval");

    e.register_fn("me", || call("me", |c| Ok(c.me as i64)));
    e.register_fn("now", || {
        call("now", |c| {
            c.pure = false;
            Ok(int(c.now))
        })
    });
    e.register_fn("nodes", || call("nodes", |c| Ok(ids(&c.cfg.ids))));
    e.register_fn("sorted_nodes", || call("sorted_nodes", |c| Ok(ids(&c.cfg.sorted))));
    e.register_fn("n", || call("n", |c| Ok(c.cfg.n() as i64)));
    e.register_fn("quorum", || call("quorum", |c| Ok(c.cfg.quorum() as i64)));
    e.register_fn("higher", || call("higher", |c| Ok(ids(c.cfg.higher(c.me)))));
    e.register_fn("lower", || call("lower", |c| Ok(ids(c.cfg.lower(c.me)))));
    e.register_fn("successor", || call("successor", |c| Ok(c.cfg.successor(c.me) as i64)));
    e.register_fn("predecessor", || call("predecessor", |c| Ok(c.cfg.predecessor(c.me) as i64)));
    e.register_fn("initial_leader", || {
        call("initial_leader", |c| Ok(c.cfg.initial_leader.map_or(Dynamic::UNIT, |l| Dynamic::from(l as i64))))
    });
    e.register_fn("heartbeats", || {
        call("heartbeats", |c| {
            Ok(c.cfg.heartbeats.map_or(Dynamic::UNIT, |h| {
                let mut m = Map::new();
                m.insert("interval".into(), Dynamic::from(int(h.interval)));
                m.insert("timeout".into(), Dynamic::from(int(h.timeout)));
                Dynamic::from_map(m)
            }))
        })
    });
    e.register_fn("latency_min", || call("latency_min", |c| Ok(int(c.cfg.latency.0))));
    e.register_fn("latency_max", || call("latency_max", |c| Ok(int(c.cfg.latency.1))));
    e.register_fn("param", |name: &str| {
        call("param", |c| match c.params.get(name) {
            Some(v) => Ok(v.clone()),
            None => fail(format!("unknown parameter `{name}` (declare it in `params`)")),
        })
    });

    e.register_fn("send", |to: i64, kind: &str| send(to, kind, Map::new()));
    e.register_fn("send", |to: i64, kind: &str, body: Map| send(to, kind, body));
    e.register_fn("broadcast", |kind: &str| broadcast(kind, Map::new()));
    e.register_fn("broadcast", |kind: &str, body: Map| broadcast(kind, body));
    e.register_fn("set_timer", |name: &str, lo: i64, hi: i64| set_timer(name, lo, hi));
    e.register_fn("set_timer", |name: &str, delay: i64| set_timer(name, delay, delay));
    e.register_fn("cancel_timer", |name: &str| {
        call("cancel_timer", |c| {
            let t = timer_arg(c, name)?;
            c.fx.push(Fx::CancelTimer(t));
            Ok(())
        })
    });
    e.register_fn("note", |name: ImmutableString| call("note", |c| note_fx(c, &name, &Map::new())));
    e.register_fn("note", |name: ImmutableString, args: Map| call("note", |c| note_fx(c, &name, &args)));
    e.register_fn("set_role", |role: &str| {
        call("set_role", |c| {
            let Some(r) = c.decl.decl.role(role) else {
                return fail(format!("unknown role `{role}` (declared: {})", c.decl.decl.roles.join(", ")));
            };
            (c.role, c.pure) = (r, false);
            Ok(())
        })
    });
    e.register_fn("set_leader", |leader: Dynamic| {
        call("set_leader", |c| {
            c.leader = node_or_unit(&leader, "set_leader").or_else(fail)?;
            c.pure = false;
            Ok(())
        })
    });
    e.register_fn("set_term", |term: Dynamic| {
        call("set_term", |c| {
            c.term = uint_or_unit(&term, "set_term").or_else(fail)?;
            c.pure = false;
            Ok(())
        })
    });
    e
}

fn tracking_engine() -> Engine {
    use rhai::debugger::{DebuggerCommand, DebuggerEvent};
    let mut e = new_engine();
    // Rhai marks this interface as subject to change, not as going away.
    #[allow(deprecated)]
    e.register_debugger(
        |_, d| d,
        |_, event, _, _, pos| {
            // Only steps: leaving a function (with the error) reports where the function ends.
            if matches!(event, DebuggerEvent::Step) && !pos.is_none() {
                LAST_POS.with(|p| p.set(pos));
            }
            Ok(DebuggerCommand::StepInto)
        },
    );
    e
}

fn send(to: i64, kind: &str, body: Map) -> Res<()> {
    call("send", |c| {
        let to = node_arg(to, "send")?;
        let kind = kind_arg(c, kind)?;
        c.fx.push(Fx::Send { to, kind, body });
        Ok(())
    })
}

fn broadcast(kind: &str, body: Map) -> Res<()> {
    call("broadcast", |c| {
        let kind = kind_arg(c, kind)?;
        c.fx.push(Fx::Broadcast { kind, body });
        Ok(())
    })
}

fn set_timer(name: &str, lo: i64, hi: i64) -> Res<()> {
    call("set_timer", |c| {
        let name = timer_arg(c, name)?;
        let (lo, hi) = (tick_arg(lo, "set_timer")?, tick_arg(hi, "set_timer")?);
        if lo > hi {
            return fail(format!("set_timer(\"{name}\", {lo}, {hi}): the range is empty"));
        }
        c.fx.push(Fx::SetTimer { name, lo, hi });
        Ok(())
    })
}

/// The interpreter state one script's handlers run with, kept from call to call: the script's
/// functions (`global.lib`) and the function-resolution cache. Rhai's `call_fn` makes both anew
/// for every call, so each function a handler calls was looked up again in every handler.
/// Kept per script (the cache's entries point into its functions and [`RUNNER`]'s).
pub(super) struct Kept {
    global: GlobalRuntimeState,
    caches: Caches,
}

impl Kept {
    pub(super) fn new(ast: &AST) -> Kept {
        let mut global = RUNNER.with(|e| e.new_global_runtime_state());
        global.lib.push(ast.shared_lib().clone());
        Kept { global, caches: Caches::new() }
    }

    /// Calls the script's function `name` with `this` bound (as a method call, the way
    /// `call_fn_with_options` binds it) and `args`, with a fresh budget: what
    /// `call_fn_with_options` does, without rebuilding the interpreter state. The arguments are
    /// moved in, not copied.
    pub(super) fn call(
        &mut self,
        scope: &mut Scope<'static>,
        name: &str,
        this: &mut Dynamic,
        args: impl FuncArgs,
    ) -> Res<Dynamic> {
        let mut values = StaticVec::<Dynamic>::new();
        args.parse(&mut values);
        // What a call may have left: the budget used, and (only after an error) the nesting.
        let global = &mut self.global;
        (global.num_operations, global.level, global.source) = (0, 0, None);
        global.lib.truncate(1);
        let out = RUNNER.with(|e| {
            let mut refs: StaticVec<&mut Dynamic> = std::iter::once(this).chain(values.iter_mut()).collect();
            EvalContext::new(e, global, &mut self.caches, scope, None).call_fn_raw(name, true, true, &mut refs)
        });
        out.or_else(|e| match *e {
            EvalAltResult::Exit(v, ..) => Ok(v),
            _ => Err(e),
        })
        .map_err(|e| match *e {
            // As `call_fn` reports it: the error itself, not "in function `name`".
            EvalAltResult::ErrorInFunctionCall(f, _, inner, _) if f == name => inner,
            _ => e,
        })
    }
}

/// The compiled script of `loaded` on this thread.
pub(super) fn compiled(loaded: &Arc<Loaded>) -> Result<Rc<AST>, ScriptError> {
    COMPILED.with(|c| {
        let mut c = c.borrow_mut();
        if let Some((_, ast)) = c.iter().find(|(l, _)| Arc::ptr_eq(l, loaded)) {
            return Ok(ast.clone());
        }
        let ast = Rc::new(with_engine(|e| e.compile(&loaded.source)).map_err(ScriptError::parse)?);
        c.push((loaded.clone(), ast.clone()));
        Ok(ast)
    })
}
