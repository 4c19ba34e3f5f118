//! Reading a protocol's `params` (see [`ParamReader`]).

use super::{Params, MAX_TICKS};
use crate::error::ScenarioError;
use crate::{NodeId, Time};
use serde_json::Value;

/// Reads a protocol's `params` by hand, naming the field on error (`params.t_out: expected a
/// whole number, found "3"`). One reader, compiled once, serves every protocol: a serde derive
/// per parameter struct cost each protocol its own deserializer in the wasm.
pub struct ParamReader<'a> {
    params: &'a Params,
}

impl<'a> ParamReader<'a> {
    /// Refuses a field that is not in `known`, naming it.
    pub fn new(params: &'a Params, known: &[&str]) -> Result<Self, ScenarioError> {
        if let Some(key) = params.keys().find(|k| !known.contains(&k.as_str())) {
            let message = match known {
                [] => "unknown field: this algorithm has no parameters".to_string(),
                _ => format!("unknown field `{key}`, expected one of `{}`", known.join("`, `")),
            };
            return Err(ScenarioError::new(format!("params.{key}"), message));
        }
        Ok(ParamReader { params })
    }

    /// The value of `key`, unless it is absent or `null`.
    pub fn value(&self, key: &str) -> Option<&'a Value> {
        self.params.get(key).filter(|v| !v.is_null())
    }

    fn wrong(key: &str, expected: &str, found: &Value) -> ScenarioError {
        ScenarioError::new(
            format!("params.{key}"),
            format!("expected {expected}, found {}", crate::read::write_json(found)),
        )
    }

    /// A whole number (ticks, a count) from 0 up.
    pub fn uint(&self, key: &str) -> Result<Option<u64>, ScenarioError> {
        let n = self.value(key).map(|v| v.as_u64().ok_or_else(|| Self::wrong(key, "a whole number", v))).transpose()?;
        Self::within_ticks(key, n.iter().copied())?;
        Ok(n)
    }

    /// A duration in ticks, `default` when absent; refuses 0 (a timer must wait at least one
    /// tick), naming the parameter.
    pub fn ticks(&self, key: &str, default: Time) -> Result<Time, ScenarioError> {
        let t = self.uint(key)?.unwrap_or(default);
        if t == 0 {
            return Err(ScenarioError::new(format!("params.{key}"), "must be at least 1 tick"));
        }
        Ok(t)
    }

    /// Refuses a value above [`MAX_TICKS`], naming the parameter.
    fn within_ticks(key: &str, mut values: impl Iterator<Item = u64>) -> Result<(), ScenarioError> {
        match values.find(|&n| n > MAX_TICKS) {
            Some(n) => {
                Err(ScenarioError::new(format!("params.{key}"), format!("{n} is more than the {MAX_TICKS} allowed")))
            }
            None => Ok(()),
        }
    }

    /// A node id (or any whole number below 2³²).
    pub fn id(&self, key: &str) -> Result<Option<NodeId>, ScenarioError> {
        let v = self.value(key);
        v.map(|v| v.as_u64().and_then(|n| NodeId::try_from(n).ok()).ok_or_else(|| Self::wrong(key, "a node id", v)))
            .transpose()
    }

    /// `true` or `false`; absent means `false`.
    pub fn flag(&self, key: &str) -> Result<bool, ScenarioError> {
        match self.params.get(key) {
            None => Ok(false),
            Some(v) => v.as_bool().ok_or_else(|| Self::wrong(key, "true or false", v)),
        }
    }

    /// Two whole numbers `[a, b]`.
    pub fn pair(&self, key: &str) -> Result<Option<[u64; 2]>, ScenarioError> {
        let p = self
            .value(key)
            .map(|v| pair(v).ok_or_else(|| Self::wrong(key, "[a, b] (two whole numbers)", v)))
            .transpose()?;
        Self::within_ticks(key, p.iter().flatten().copied())?;
        Ok(p)
    }

    /// A list of node ids.
    pub fn ids(&self, key: &str) -> Result<Option<Vec<NodeId>>, ScenarioError> {
        let v = self.value(key);
        let read = |v: &Value| -> Option<Vec<NodeId>> {
            v.as_array()?.iter().map(|x| x.as_u64().and_then(|n| NodeId::try_from(n).ok())).collect()
        };
        v.map(|v| read(v).ok_or_else(|| Self::wrong(key, "a list of node ids", v))).transpose()
    }

    /// An object's entries (`{}` when absent), each value read by `f` (the field is
    /// `params.key.entry` when `f` refuses it with `expected`).
    pub fn entries<T>(
        &self,
        key: &str,
        expected: &str,
        f: impl Fn(&Value) -> Option<T>,
    ) -> Result<Vec<(&'a String, T)>, ScenarioError> {
        let Some(v) = self.params.get(key) else { return Ok(Vec::new()) };
        let map = v.as_object().ok_or_else(|| Self::wrong(key, "an object", v))?;
        map.iter()
            .map(|(k, x)| f(x).map(|t| (k, t)).ok_or_else(|| Self::wrong(&format!("{key}.{k}"), expected, x)))
            .collect()
    }
}

/// `[a, b]` of two whole numbers.
pub fn pair(v: &Value) -> Option<[u64; 2]> {
    match v.as_array()?.as_slice() {
        [a, b] => Some([a.as_u64()?, b.as_u64()?]),
        _ => None,
    }
}
