//! Reading JSON objects by hand, naming the field at fault: the scenario, lesson and recorded-run
//! script readers.
//! One small reader over `serde_json::Value`, compiled once, where serde derives compiled a
//! deserializer per struct into the page (and `serde_path_to_error`, no longer a dependency, a
//! tracker for each).
//! Messages follow the derives' words: `unknown field `x`, expected one of `a`, `b``,
//! `missing field `x`` (at the object), `expected a string, found a number` (at the field).

use crate::error::{prefixed, ScenarioError};
use serde_json::{Map, Value};

mod json;
mod write;
pub use json::parse_json;
pub use write::{write_json, write_json_pretty};

/// What a JSON value is, for messages (never the value itself, which may be large).
pub fn kind(v: &Value) -> &'static str {
    match v {
        Value::Null => "null",
        Value::Bool(_) => "true or false",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "a list",
        Value::Object(_) => "an object",
    }
}

/// One JSON object, its fields read by name.
pub struct Obj<'a> {
    pub map: &'a Map<String, Value>,
    pub path: String,
}

impl<'a> Obj<'a> {
    /// `v` as an object with no field outside `keys`.
    pub fn new(v: &'a Value, path: String, keys: &[&str]) -> Result<Obj<'a>, ScenarioError> {
        let Some(map) = v.as_object() else {
            return Err(ScenarioError::new(path, format!("expected an object, found {}", kind(v))));
        };
        if let Some(k) = map.keys().find(|k| !keys.contains(&k.as_str())) {
            return Err(ScenarioError::new(
                prefixed(&path, k),
                format!("unknown field `{k}`, expected one of `{}`", keys.join("`, `")),
            ));
        }
        Ok(Obj { map, path })
    }

    pub fn field(&self, k: &str) -> String {
        prefixed(&self.path, k)
    }

    /// The field's value (absent or `null`: `None`).
    pub fn get(&self, k: &str) -> Option<&'a Value> {
        self.map.get(k).filter(|v| !v.is_null())
    }

    /// A field that must be there (`null` included: the reader of its value refuses it).
    pub fn need(&self, k: &str) -> Result<&'a Value, ScenarioError> {
        self.map.get(k).ok_or_else(|| ScenarioError::new(self.path.clone(), format!("missing field `{k}`")))
    }

    pub fn wrong(&self, k: &str, what: &str, v: &Value) -> ScenarioError {
        ScenarioError::new(self.field(k), format!("expected {what}, found {}", kind(v)))
    }

    pub fn string_of(&self, k: &str, v: &Value) -> Result<String, ScenarioError> {
        v.as_str().map(String::from).ok_or_else(|| self.wrong(k, "a string", v))
    }

    pub fn string(&self, k: &str) -> Result<String, ScenarioError> {
        self.string_of(k, self.need(k)?)
    }

    pub fn opt_string(&self, k: &str) -> Result<Option<String>, ScenarioError> {
        self.get(k).map(|v| self.string_of(k, v)).transpose()
    }

    pub fn opt_u64(&self, k: &str) -> Result<Option<u64>, ScenarioError> {
        self.get(k).map(|v| v.as_u64().ok_or_else(|| self.wrong(k, "a whole number", v))).transpose()
    }

    /// A list (absent: empty; `null` is refused, as a list field has no null).
    pub fn list(&self, k: &str) -> Result<&'a [Value], ScenarioError> {
        match self.map.get(k) {
            None => Ok(&[]),
            Some(v) => v.as_array().map(Vec::as_slice).ok_or_else(|| self.wrong(k, "a list", v)),
        }
    }

    pub fn strings(&self, k: &str) -> Result<Vec<String>, ScenarioError> {
        let path = self.field(k);
        self.list(k)?
            .iter()
            .enumerate()
            .map(|(i, v)| {
                v.as_str().map(String::from).ok_or_else(|| {
                    ScenarioError::new(format!("{path}[{i}]"), format!("expected a string, found {}", kind(v)))
                })
            })
            .collect()
    }

    /// A whole number that must be there.
    pub fn uint(&self, k: &str) -> Result<u64, ScenarioError> {
        let v = self.need(k)?;
        v.as_u64().ok_or_else(|| self.wrong(k, "a whole number", v))
    }

    /// A whole number, `default` when absent.
    pub fn uint_or(&self, k: &str, default: u64) -> Result<u64, ScenarioError> {
        match self.map.get(k) {
            None => Ok(default),
            Some(v) => v.as_u64().ok_or_else(|| self.wrong(k, "a whole number", v)),
        }
    }

    /// A node id (a whole number below 2³²).
    pub fn id_of(&self, k: &str, v: &Value) -> Result<u32, ScenarioError> {
        v.as_u64().and_then(|n| u32::try_from(n).ok()).ok_or_else(|| self.wrong(k, "a node id", v))
    }

    /// `true` or `false`, `default` when absent.
    pub fn bool_or(&self, k: &str, default: bool) -> Result<bool, ScenarioError> {
        match self.map.get(k) {
            None => Ok(default),
            Some(v) => v.as_bool().ok_or_else(|| self.wrong(k, "true or false", v)),
        }
    }

    /// A list of node ids (absent: empty), naming the element at fault (`nodes[2]`).
    pub fn ids(&self, k: &str) -> Result<Vec<u32>, ScenarioError> {
        let path = self.field(k);
        let id = |(i, v): (usize, &Value)| {
            v.as_u64().and_then(|n| u32::try_from(n).ok()).ok_or_else(|| {
                ScenarioError::new(format!("{path}[{i}]"), format!("expected a node id, found {}", kind(v)))
            })
        };
        self.list(k)?.iter().enumerate().map(id).collect()
    }

    /// `[a, b]`: two whole numbers, naming the element at fault (`latency[1]`).
    pub fn pair(&self, k: &str) -> Result<Option<[u64; 2]>, ScenarioError> {
        let Some(v) = self.map.get(k) else { return Ok(None) };
        let list = v.as_array().ok_or_else(|| self.wrong(k, "a list of two whole numbers", v))?;
        let [a, b] = list.as_slice() else {
            return Err(ScenarioError::new(
                self.field(k),
                format!("invalid length {}, expected two whole numbers", list.len()),
            ));
        };
        let path = self.field(k);
        let num = |i: usize, v: &Value| {
            v.as_u64().ok_or_else(|| {
                ScenarioError::new(format!("{path}[{i}]"), format!("expected a whole number, found {}", kind(v)))
            })
        };
        Ok(Some([num(0, a)?, num(1, b)?]))
    }
}

/// A list of `[x1, y1, x2, y2]` segments of whole numbers (a partition's drawn lines).
pub fn segments(v: &Value, path: &str) -> Result<Vec<[i32; 4]>, ScenarioError> {
    let bad = || ScenarioError::new(path, "expected a list of [x1, y1, x2, y2]");
    let line = |seg: &Value| {
        let seg = seg.as_array().filter(|s| s.len() == 4).ok_or_else(bad)?;
        let mut out = [0i32; 4];
        for (o, v) in out.iter_mut().zip(seg) {
            *o = v.as_i64().and_then(|n| i32::try_from(n).ok()).ok_or_else(bad)?;
        }
        Ok(out)
    };
    v.as_array().ok_or_else(bad)?.iter().map(line).collect()
}
