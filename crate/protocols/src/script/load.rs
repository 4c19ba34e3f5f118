//! Reading a script's declaration (the map its top level ends with) into an [`Algorithm`]
//! descriptor, and the list of scripts loaded in this process.
//!
//! Descriptors are `&'static` everywhere in the engine (the picker, the legend, the observers and
//! the search hold them), so a loaded script's descriptor and texts are leaked. That is bounded:
//! loading the same source again returns the same descriptor, and a process loads at most
//! [`MAX_LOADED`] different scripts.

use super::value::Show;
use super::{ScriptError, HANDLERS};
use crate::algorithm::Algorithm;
use crate::meta::{
    single_leader, Faults, Kind, Look, Property, Role, Text, Topology, Visual, CANDIDATE_ROLE, FOLLOWER_ROLE,
    LEADER_ROLE, ONE_LEADER_PER_TERM, SPLIT_BRAIN, TWO_LEADERS_IN_TERM,
};
use rhai::{Dynamic, Map, AST};
use std::sync::{Arc, Mutex};

/// The most different scripts one process loads (each keeps a descriptor of a few kilobytes).
pub const MAX_LOADED: usize = 64;

/// A parameter's default (`()`: none, the script's `configure` computes it).
#[derive(Clone, Debug, PartialEq)]
pub enum ParamValue {
    Unit,
    Int(i64),
    Bool(bool),
    Str(String),
}

impl ParamValue {
    pub fn to_dynamic(&self) -> Dynamic {
        match self {
            ParamValue::Unit => Dynamic::UNIT,
            ParamValue::Int(i) => Dynamic::from(*i),
            ParamValue::Bool(b) => Dynamic::from(*b),
            ParamValue::Str(s) => Dynamic::from(s.clone()),
        }
    }
}

/// A declared state field: shown in the inspector under `label`, kept over a crash if `durable`.
#[derive(Clone, Debug)]
pub struct Field {
    pub name: String,
    pub label: Text,
    pub show: Show,
    pub durable: bool,
}

/// What the engine keeps of a script's declaration (thread-safe: no interpreter values).
#[derive(Debug)]
pub struct Decl {
    pub id: &'static str,
    /// Message kind names, in kind order.
    pub kinds: Vec<&'static str>,
    pub timers: &'static [&'static str],
    /// Every role a node may take (the declared ones and leader, follower, candidate).
    pub roles: Vec<&'static str>,
    /// Declared narration lines by name.
    pub notes: Vec<(String, Text)>,
    pub fields: Vec<Field>,
    pub params: Vec<(String, ParamValue)>,
    /// Which handlers the script defines, by [`HANDLERS`] index.
    pub has: [bool; HANDLERS.len()],
}

impl Decl {
    pub fn kind(&self, name: &str) -> Option<usize> {
        self.kinds.iter().position(|k| *k == name)
    }
    pub fn timer(&self, name: &str) -> Option<&'static str> {
        self.timers.iter().copied().find(|t| *t == name)
    }
    pub fn role(&self, name: &str) -> Option<&'static str> {
        self.roles.iter().copied().find(|r| *r == name)
    }
    /// A declared note, or else a key of the catalogs (`common.note.recover`).
    pub fn note(&self, name: &str) -> Option<Text> {
        self.notes.iter().find(|(n, _)| n == name).map(|(_, t)| *t).or_else(|| Text::find(name))
    }
}

/// A loaded script.
#[derive(Debug)]
pub struct Loaded {
    pub source: String,
    pub decl: Decl,
    pub algorithm: &'static Algorithm,
}

static LOADED: Mutex<Vec<Arc<Loaded>>> = Mutex::new(Vec::new());

/// The loaded script whose algorithm id is `id` (the last loaded under it).
pub fn find(id: &str) -> Option<Arc<Loaded>> {
    LOADED.lock().unwrap_or_else(|e| e.into_inner()).iter().rev().find(|l| l.decl.id == id).cloned()
}

/// Loads `source`: compiles it, runs its top level within the budget, reads its declaration and
/// registers its algorithm, found from then on by [`crate::registry::find`] under its `id`.
pub fn load(source: &str) -> Result<&'static Algorithm, ScriptError> {
    {
        // Loaded before: it becomes the last loaded again, so that its id finds it even if
        // another script of the same id was loaded since (a grader loads many).
        let mut loaded = LOADED.lock().unwrap_or_else(|e| e.into_inner());
        if let Some(i) = loaded.iter().position(|l| l.source == source) {
            let l = loaded.remove(i);
            let algorithm = l.algorithm;
            loaded.push(l);
            return Ok(algorithm);
        }
    }
    let (ast, value) = super::with_engine(|engine| {
        let ast = engine.compile(source).map_err(ScriptError::parse)?;
        let value: Dynamic =
            engine.eval_ast(&ast).map_err(|e| ScriptError::runtime("the declaration (the script's top level)", &e))?;
        Ok::<_, ScriptError>((ast, value))
    })?;
    let Some(map) = value.read_lock::<Map>().map(|m| m.clone()) else {
        return Err(ScriptError::plain(format!(
            "the script's top level must end with its declaration, a map #{{ id: ..., title: ..., kinds: [...] }}; it ends with {}",
            value.type_name()
        )));
    };
    let mut loaded = LOADED.lock().unwrap_or_else(|e| e.into_inner());
    if loaded.len() >= MAX_LOADED {
        return Err(ScriptError::plain(format!("at most {MAX_LOADED} different scripts can be loaded in one session")));
    }
    let (decl, algorithm) = declare(&map, handlers(&ast)?, super::build)?;
    loaded.push(Arc::new(Loaded { source: source.to_string(), decl, algorithm }));
    Ok(algorithm)
}

fn leak(s: &str) -> &'static str {
    Box::leak(s.to_string().into_boxed_str())
}

fn err<T>(field: &str, message: impl std::fmt::Display) -> Result<T, ScriptError> {
    Err(ScriptError::plain(format!("declaration `{field}`: {message}")))
}

fn string(v: &Dynamic, field: &str) -> Result<String, ScriptError> {
    match v.clone().into_immutable_string() {
        Ok(s) => Ok(s.to_string()),
        Err(t) => err(field, format!("expected a string, found {t}")),
    }
}

fn get<'a>(m: &'a Map, key: &str) -> Option<&'a Dynamic> {
    m.get(key).filter(|v| !v.is_unit())
}

fn list(m: &Map, key: &str) -> Result<Vec<Dynamic>, ScriptError> {
    match get(m, key) {
        None => Ok(Vec::new()),
        Some(v) => match v.read_lock::<rhai::Array>() {
            Some(a) => Ok(a.clone()),
            None => err(key, format!("expected an array, found {}", v.type_name())),
        },
    }
}

fn map_of(v: &Dynamic, field: &str) -> Result<Map, ScriptError> {
    match v.read_lock::<Map>() {
        Some(m) => Ok(m.clone()),
        None => err(field, format!("expected a map #{{...}}, found {}", v.type_name())),
    }
}

/// A text: a key of the catalogs, one string for both languages, or `#{ en: "...", zh: "..." }`.
fn text(v: Option<&Dynamic>, field: &str, key: &str) -> Result<Text, ScriptError> {
    let Some(v) = v else { return err(field, "missing") };
    let (en, zh) = if v.is_string() {
        let s = string(v, field)?;
        if let Some(t) = Text::find(&s) {
            return Ok(t);
        }
        (s.clone(), s)
    } else {
        let m = map_of(v, field)?;
        let en = string(
            get(&m, "en").ok_or_else(|| ScriptError::plain(format!("declaration `{field}.en`: missing")))?,
            field,
        )?;
        let zh = match get(&m, "zh") {
            Some(z) => string(z, &format!("{field}.zh"))?,
            None => en.clone(),
        };
        (en, zh)
    };
    Text::runtime(key, &en, &zh).map_err(ScriptError::plain)
}

/// A kind's, role's or field's own text: its `explain` (or `label`), else `en`/`zh` beside its
/// name, else `fallback`.
fn own_text(m: &Map, field: &str, key: &str, fallback: &str) -> Result<Text, ScriptError> {
    for k in ["explain", "label"] {
        if let Some(v) = get(m, k) {
            return text(Some(v), &format!("{field}.{k}"), key);
        }
    }
    if get(m, "en").is_some() {
        let mut t = Map::new();
        for k in ["en", "zh"] {
            if let Some(v) = get(m, k) {
                t.insert(k.into(), v.clone());
            }
        }
        return text(Some(&Dynamic::from_map(t)), field, key);
    }
    Text::runtime(key, fallback, fallback).map_err(ScriptError::plain)
}

fn name_of(m: &Map, field: &str) -> Result<String, ScriptError> {
    let n = string(
        get(m, "name").ok_or_else(|| ScriptError::plain(format!("declaration `{field}.name`: missing")))?,
        field,
    )?;
    if n.is_empty() || n.len() > 40 {
        return err(&format!("{field}.name"), "must be 1 to 40 characters");
    }
    Ok(n)
}

/// Which handlers the script defines, by [`HANDLERS`] index (each with its number of arguments).
fn handlers(ast: &AST) -> Result<[bool; HANDLERS.len()], ScriptError> {
    let mut has = [false; HANDLERS.len()];
    for f in ast.iter_functions() {
        if let Some(h) = HANDLERS.iter().position(|(n, _)| *n == f.name) {
            let arity = HANDLERS[h].1;
            if f.params.len() != arity {
                return Err(ScriptError::plain(format!(
                    "the handler `{}` takes {arity} argument(s) ({}), not {}",
                    f.name,
                    super::HANDLER_ARGS[h],
                    f.params.len()
                )));
            }
            has[h] = true;
        }
    }
    Ok(has)
}

/// Reads a declaration (a script's, or a node process's, see [`crate::protocols::process`])
/// into what the engine keeps and the algorithm's descriptor, built by `build`.
pub(crate) fn declare(
    m: &Map,
    has: [bool; HANDLERS.len()],
    build: crate::algorithm::Build,
) -> Result<(Decl, &'static Algorithm), ScriptError> {
    const KNOWN: &[&str] = &[
        "id", "title", "citation", "summary", "card", "topology", "kinds", "roles", "timers", "params", "claims",
        "fields", "notes",
    ];
    if let Some(k) = m.keys().find(|k| !KNOWN.contains(&k.as_str())) {
        return err(k, format!("unknown entry, expected one of {}", KNOWN.join(", ")));
    }
    let id = string(get(m, "id").ok_or_else(|| ScriptError::plain("declaration `id`: missing"))?, "id")?;
    if id.is_empty() || id.len() > 40 || !id.chars().all(|c| c.is_ascii_alphanumeric() || c == '-' || c == '_') {
        return err("id", "must be 1 to 40 letters, digits, '-' or '_'");
    }
    if crate::protocols::ALGORITHMS.iter().chain(crate::protocols::RECORDED).any(|a| a.id == id) {
        return err("id", format!("`{id}` is a built-in algorithm's id; choose another"));
    }
    let id = leak(&id);
    let key = |rest: &str| format!("script.{id}.{rest}");
    let title = text(get(m, "title"), "title", &key("title"))?;
    let summary = match get(m, "summary") {
        Some(v) => text(Some(v), "summary", &key("summary"))?,
        None => title,
    };
    let card = match get(m, "card") {
        Some(v) => text(Some(v), "card", &key("card"))?,
        None => summary,
    };
    let citation = match get(m, "citation") {
        Some(v) => leak(&string(v, "citation")?),
        None => "",
    };
    let topology = match get(m, "topology").map(|v| string(v, "topology")).transpose()?.as_deref() {
        None | Some("complete") => Topology::Complete,
        Some("ring") => Topology::Ring,
        Some("bidirectional-ring") => Topology::BidirectionalRing,
        Some(t) => return err("topology", format!("`{t}`: expected complete, ring or bidirectional-ring")),
    };

    let mut kinds = Vec::new();
    for (i, v) in list(m, "kinds")?.iter().enumerate() {
        let field = format!("kinds[{i}]");
        let k = map_of(v, &field)?;
        let name = name_of(&k, &field)?;
        if kinds.iter().any(|x: &Kind| x.name == name) {
            return err(&field, format!("the kind {name} twice"));
        }
        let short = match get(&k, "short") {
            Some(s) => string(s, &format!("{field}.short"))?,
            None => name.chars().take(3).collect(),
        };
        if short.is_empty() || short.chars().count() > 3 {
            return err(&format!("{field}.short"), "1 to 3 characters");
        }
        let visual = string(get(&k, "visual").unwrap_or(&Dynamic::from("request")), &format!("{field}.visual"))?;
        let Some(visual) = Visual::ALL.iter().copied().find(|x| x.name() == visual) else {
            let names: Vec<&str> = Visual::ALL.iter().map(|v| v.name()).collect();
            return err(&format!("{field}.visual"), format!("`{visual}`: expected one of {}", names.join(", ")));
        };
        let explain = own_text(&k, &field, &key(&format!("kind.{name}")), &name)?;
        kinds.push(Kind::new(leak(&name), leak(&short), visual, explain));
    }
    if kinds.is_empty() {
        return err("kinds", "declare at least one message kind");
    }

    let mut roles = vec![LEADER_ROLE, FOLLOWER_ROLE, CANDIDATE_ROLE];
    for (i, v) in list(m, "roles")?.iter().enumerate() {
        let field = format!("roles[{i}]");
        let r = map_of(v, &field)?;
        let name = name_of(&r, &field)?;
        let look = string(get(&r, "look").unwrap_or(&Dynamic::from("participant")), &format!("{field}.look"))?;
        const LOOKS: &[Look] = &[Look::Leader, Look::Follower, Look::Candidate, Look::Waiting, Look::Participant];
        let Some(look) = LOOKS.iter().copied().find(|l| l.name() == look) else {
            return err(
                &format!("{field}.look"),
                format!("`{look}`: expected leader, follower, candidate, waiting or participant"),
            );
        };
        let explain = own_text(&r, &field, &key(&format!("role.{name}")), &name)?;
        let role = Role::new(leak(&name), look, explain);
        match roles.iter_mut().find(|x| x.name == name) {
            Some(old) => *old = role,
            None => roles.push(role),
        }
    }

    let mut timers: Vec<&'static str> = Vec::new();
    for (i, v) in list(m, "timers")?.iter().enumerate() {
        let name = string(v, &format!("timers[{i}]"))?;
        if name.is_empty() || timers.contains(&name.as_str()) {
            return err(&format!("timers[{i}]"), "an empty name or one given twice");
        }
        timers.push(leak(&name));
    }

    let mut params = Vec::new();
    if let Some(v) = get(m, "params") {
        for (k, d) in map_of(v, "params")? {
            let value = if d.is_unit() {
                ParamValue::Unit
            } else if let Ok(i) = d.as_int() {
                ParamValue::Int(i)
            } else if let Ok(b) = d.as_bool() {
                ParamValue::Bool(b)
            } else if d.is_string() {
                ParamValue::Str(string(&d, &format!("params.{k}"))?)
            } else {
                return err(
                    &format!("params.{k}"),
                    format!("a default must be a whole number, true/false, a string or (), found {}", d.type_name()),
                );
            };
            params.push((k.to_string(), value));
        }
    }

    let mut properties: Vec<Property> = Vec::new();
    for (i, v) in list(m, "claims")?.iter().enumerate() {
        let field = format!("claims[{i}]");
        let (id, holds) = if v.is_string() {
            (string(v, &field)?, None)
        } else {
            let c = map_of(v, &field)?;
            let id = string(
                get(&c, "property")
                    .ok_or_else(|| ScriptError::plain(format!("declaration `{field}.property`: missing")))?,
                &field,
            )?;
            (id, get(&c, "holds").map(|h| string(h, &format!("{field}.holds"))).transpose()?)
        };
        let faults = match holds.as_deref() {
            None | Some("any") => Faults::Any,
            Some("crash-stop") => Faults::CrashStop,
            Some(h) => return err(&format!("{field}.holds"), format!("`{h}`: expected any or crash-stop")),
        };
        let p = match id.as_str() {
            SPLIT_BRAIN => single_leader(faults),
            TWO_LEADERS_IN_TERM => Property { holds: faults, ..ONE_LEADER_PER_TERM },
            _ => return err(&field, format!("`{id}`: expected {SPLIT_BRAIN} or {TWO_LEADERS_IN_TERM}")),
        };
        if properties.iter().any(|x| x.id == p.id) {
            return err(&field, format!("{id} claimed twice"));
        }
        properties.push(p);
    }

    let mut fields = Vec::new();
    for (i, v) in list(m, "fields")?.iter().enumerate() {
        let field = format!("fields[{i}]");
        let (name, f) = if v.is_string() {
            let n = string(v, &field)?;
            (n, Map::new())
        } else {
            let f = map_of(v, &field)?;
            (name_of(&f, &field)?, f)
        };
        let show = match get(&f, "show").map(|s| string(s, &format!("{field}.show"))).transpose()?.as_deref() {
            None | Some("plain") => Show::Plain,
            Some("node") => Show::Node,
            Some(s) => return err(&format!("{field}.show"), format!("`{s}`: expected plain or node")),
        };
        let durable = match get(&f, "durable") {
            None => false,
            Some(d) => d.as_bool().map_err(|t| {
                ScriptError::plain(format!("declaration `{field}.durable`: expected true or false, found {t}"))
            })?,
        };
        let label = own_text(&f, &field, &key(&format!("field.{name}")), &name.replace('_', " "))?;
        fields.push(Field { name, label, show, durable });
    }

    let mut notes = Vec::new();
    if let Some(v) = get(m, "notes") {
        for (name, t) in map_of(v, "notes")? {
            let field = format!("notes.{name}");
            let text = text(Some(&t), &field, &key(&format!("note.{name}")))?;
            if text.args().len() > crate::meta::MAX_ARGS {
                let most = crate::meta::MAX_ARGS;
                return err(&field, format!("at most {most} named arguments, found {}", text.args().join(", ")));
            }
            notes.push((name.to_string(), text));
        }
    }

    let decl = Decl {
        id,
        kinds: kinds.iter().map(|k| k.name).collect(),
        timers: Box::leak(timers.into_boxed_slice()),
        roles: roles.iter().map(|r| r.name).collect(),
        notes,
        fields,
        params,
        has,
    };
    let algorithm: &'static Algorithm = Box::leak(Box::new(Algorithm {
        id,
        title,
        citation,
        summary,
        card,
        topology,
        kinds: Box::leak(kinds.into_boxed_slice()),
        roles: Box::leak(roles.into_boxed_slice()),
        formulas: &[],
        properties: Box::leak(properties.into_boxed_slice()),
        presets: &[],
        build,
    }));
    Ok((decl, algorithm))
}
