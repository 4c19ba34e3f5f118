//! JSON text read into a [`Value`] the way `serde_json::from_str` reads it, except that an
//! object with a key given twice is refused, naming the key's field (`nodes`,
//! `schedule[2].at`): serde_json keeps the last value silently, so a scenario that says
//! `"seed": 1, …, "seed": 2` would run with a seed its author may not have meant. Every reader
//! of scenarios, traces, JSON Lines traces, lessons and experiment specs parses through here.

use crate::error::{prefixed, ScenarioError};
use serde::de::{DeserializeSeed, Deserializer, Error as _, MapAccess, SeqAccess, Visitor};
use serde_json::{Map, Number, Value};
use std::cell::Cell;
use std::fmt;

/// Parses `text` as one JSON value; a key given twice in one object is refused by its field.
pub fn parse_json(text: &str) -> Result<Value, ScenarioError> {
    let twice = Cell::new(None);
    let mut de = serde_json::Deserializer::from_str(text);
    let value = Seed { path: &Path::Root, twice: &twice }.deserialize(&mut de).and_then(|v| de.end().map(|()| v));
    value.map_err(|e| match twice.take() {
        Some(field) => ScenarioError::new(field, "given twice (a key may appear once in an object)"),
        None => ScenarioError::new("", format!("not valid JSON: {e}")),
    })
}

/// Where a value is, rendered only when a key is found twice.
enum Path<'a> {
    Root,
    Key(&'a Path<'a>, &'a str),
    Index(&'a Path<'a>, usize),
}

impl fmt::Display for Path<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Path::Root => Ok(()),
            Path::Key(up, k) => write!(f, "{}", prefixed(&up.to_string(), k)),
            Path::Index(up, i) => write!(f, "{up}[{i}]"),
        }
    }
}

/// Reads the value at `path`; the field of a key given twice goes to `twice`.
#[derive(Clone, Copy)]
struct Seed<'a> {
    path: &'a Path<'a>,
    twice: &'a Cell<Option<String>>,
}

impl<'de> DeserializeSeed<'de> for Seed<'_> {
    type Value = Value;
    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<Value, D::Error> {
        d.deserialize_any(self)
    }
}

impl<'de> Visitor<'de> for Seed<'_> {
    type Value = Value;
    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a JSON value")
    }
    fn visit_bool<E>(self, b: bool) -> Result<Value, E> {
        Ok(Value::Bool(b))
    }
    fn visit_i64<E>(self, n: i64) -> Result<Value, E> {
        Ok(Value::from(n))
    }
    fn visit_u64<E>(self, n: u64) -> Result<Value, E> {
        Ok(Value::from(n))
    }
    fn visit_f64<E>(self, x: f64) -> Result<Value, E> {
        Ok(Number::from_f64(x).map_or(Value::Null, Value::Number))
    }
    fn visit_str<E>(self, s: &str) -> Result<Value, E> {
        Ok(Value::String(s.to_string()))
    }
    fn visit_string<E>(self, s: String) -> Result<Value, E> {
        Ok(Value::String(s))
    }
    fn visit_unit<E>(self) -> Result<Value, E> {
        Ok(Value::Null)
    }
    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Value, A::Error> {
        let mut out = Vec::new();
        loop {
            let at = Path::Index(self.path, out.len());
            match seq.next_element_seed(Seed { path: &at, twice: self.twice })? {
                Some(v) => out.push(v),
                None => return Ok(Value::Array(out)),
            }
        }
    }
    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Value, A::Error> {
        let mut out = Map::new();
        while let Some(key) = map.next_key::<String>()? {
            let at = Path::Key(self.path, &key);
            if out.contains_key(&key) {
                self.twice.set(Some(at.to_string()));
                return Err(A::Error::custom("a key given twice"));
            }
            let v = map.next_value_seed(Seed { path: &at, twice: self.twice })?;
            out.insert(key, v);
        }
        Ok(Value::Object(out))
    }
}

#[cfg(test)]
mod tests {
    use super::parse_json;
    use serde_json::Value;

    #[test]
    fn reads_what_serde_json_reads_and_refuses_a_key_given_twice() {
        for text in [
            r#"{"a": [1, -2, 3.5, 1e300, "x", null, true, {"b": {}}], "c": 18446744073709551615}"#,
            "[]",
            " 7 ",
            r#""\u00e9\n""#,
        ] {
            assert_eq!(parse_json(text).unwrap(), serde_json::from_str::<Value>(text).unwrap(), "{text}");
        }
        let err = |t: &str| parse_json(t).unwrap_err().to_string();
        assert_eq!(err(r#"{"seed": 1, "seed": 2}"#), "seed: given twice (a key may appear once in an object)");
        assert!(err(r#"{"schedule": [{"at": 1}, {"at": 2, "crash": 1, "at": 3}]}"#)
            .starts_with("schedule[1].at: given twice"));
        assert!(err(r#"{"a": 1} x"#).starts_with("not valid JSON: trailing characters"));
        assert!(err("{").starts_with("not valid JSON: EOF while parsing"));
        // Deep nesting stops at serde_json's recursion limit, as from_str does.
        assert!(err(&"[".repeat(100_000)).starts_with("not valid JSON: recursion limit exceeded"));
    }
}
