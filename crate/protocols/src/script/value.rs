//! Script values as the engine needs them: hashed canonically (so that a node state or a payload
//! hashes the same natively and in wasm, today and after an upgrade of the interpreter), read
//! as node ids and numbers, and shown in the inspector.

use crate::NodeId;
use rhai::{Dynamic, Map};
use std::fmt::Display;
use std::hash::Hasher;

/// Feeds `v` to `h` by its content: a tag per type, then the value (integers as little-endian
/// 64 bits, strings as length + UTF-8, arrays as length + items, maps as length + entries in key
/// order — a Rhai map is ordered by key). Nothing depends on addresses, the interpreter's own
/// hashing or the platform.
pub fn hash_dynamic(v: &Dynamic, h: &mut dyn Hasher) {
    if v.is_unit() {
        h.write_u8(0);
    } else if let Ok(b) = v.as_bool() {
        h.write_u8(1);
        h.write_u8(b as u8);
    } else if let Ok(i) = v.as_int() {
        h.write_u8(2);
        h.write(&i.to_le_bytes());
    } else if let Ok(c) = v.as_char() {
        h.write_u8(3);
        h.write(&(c as u32).to_le_bytes());
    } else if v.is_string() {
        match v.as_immutable_string_ref() {
            Ok(s) => hash_str(s.as_str(), h),
            Err(_) => hash_str("", h),
        }
    } else if v.is_array() {
        let a = v.read_lock::<rhai::Array>();
        let a = a.as_deref().map(|a| a.as_slice()).unwrap_or(&[]);
        h.write_u8(5);
        h.write(&(a.len() as u64).to_le_bytes());
        for x in a {
            hash_dynamic(x, h);
        }
    } else if v.is_map() {
        match v.read_lock::<Map>() {
            Some(m) => hash_map(&m, h),
            None => h.write_u8(6),
        }
    } else {
        // Function pointers and the like: only their type counts.
        h.write_u8(7);
        hash_str(v.type_name(), h);
    }
}

fn hash_str(s: &str, h: &mut dyn Hasher) {
    h.write_u8(4);
    h.write(&(s.len() as u64).to_le_bytes());
    h.write(s.as_bytes());
}

/// [`hash_dynamic`] of a map.
pub fn hash_map(m: &Map, h: &mut dyn Hasher) {
    h.write_u8(6);
    h.write(&(m.len() as u64).to_le_bytes());
    for (k, x) in m {
        hash_str(k.as_str(), h);
        hash_dynamic(x, h);
    }
}

/// Whether `a` and `b` hold the same value, by the content [`hash_dynamic`] reads (a map's
/// entries in key order). Values of other types (function pointers and the like) are never the
/// same, so nothing that compares them is ever taken for unchanged.
pub fn same(a: &Dynamic, b: &Dynamic) -> bool {
    // One test of `a`'s variant and a direct read of both sides: this runs after most handler
    // calls (see `view`), so no conversion or type-name lookup on the way.
    if a.is_int() {
        return b.is_int() && a.as_int() == b.as_int();
    }
    if a.is_unit() {
        return b.is_unit();
    }
    if a.is_bool() {
        return b.is_bool() && a.as_bool() == b.as_bool();
    }
    if a.is_string() {
        return match (a.as_immutable_string_ref(), b.as_immutable_string_ref()) {
            // Most strings of a state are the script's literals, shared: no need to read them.
            (Ok(x), Ok(y)) => x.ptr_eq(&y) || *x == *y,
            _ => false,
        };
    }
    if a.is_map() {
        return match (a.as_map_ref(), b.as_map_ref()) {
            (Ok(x), Ok(y)) => x.len() == y.len() && x.iter().zip(y.iter()).all(|((k, p), (l, q))| k == l && same(p, q)),
            _ => false,
        };
    }
    if a.is_array() {
        return match (a.as_array_ref(), b.as_array_ref()) {
            (Ok(x), Ok(y)) => x.len() == y.len() && x.iter().zip(y.iter()).all(|(p, q)| same(p, q)),
            _ => false,
        };
    }
    if a.is_char() {
        return b.is_char() && a.as_char() == b.as_char();
    }
    false
}

/// A node id (a whole number below 2³²), or `None` for `()`; an error otherwise.
pub fn node_or_unit(v: &Dynamic, what: impl Display) -> Result<Option<u32>, String> {
    if v.is_unit() {
        return Ok(None);
    }
    match v.as_int() {
        Ok(i) => u32::try_from(i).map(Some).map_err(|_| format!("{what}: {i} is not a node id")),
        Err(t) => Err(format!("{what}: expected a node id or (), found {t}")),
    }
}

/// A whole number from 0 up, or `None` for `()`.
pub fn uint_or_unit(v: &Dynamic, what: impl Display) -> Result<Option<u64>, String> {
    if v.is_unit() {
        return Ok(None);
    }
    match v.as_int() {
        Ok(i) => u64::try_from(i).map(Some).map_err(|_| format!("{what}: {i} is negative")),
        Err(t) => Err(format!("{what}: expected a whole number or (), found {t}")),
    }
}

/// `[held, needed]` (two whole numbers below 2³²), or `None` for `()`.
pub fn pair_or_unit(v: &Dynamic, what: impl Display) -> Result<Option<(u32, u32)>, String> {
    if v.is_unit() {
        return Ok(None);
    }
    let bad = || format!("{what}: expected [a, b] (two whole numbers) or (), found {v}");
    let a = v.read_lock::<rhai::Array>().ok_or_else(bad)?;
    match a.as_slice() {
        [x, y] => {
            let n = |d: &Dynamic| d.as_int().ok().and_then(|i| u32::try_from(i).ok());
            Ok(Some((n(x).ok_or_else(bad)?, n(y).ok_or_else(bad)?)))
        }
        _ => Err(bad()),
    }
}

/// A scenario's parameter as a script value: numbers must be whole (below 2⁶³); arrays and
/// objects become arrays and maps.
pub fn from_json(v: &serde_json::Value) -> Result<Dynamic, String> {
    use serde_json::Value as J;
    Ok(match v {
        J::Null => Dynamic::UNIT,
        J::Bool(b) => Dynamic::from(*b),
        J::String(s) => Dynamic::from(s.clone()),
        J::Number(n) => Dynamic::from(n.as_i64().ok_or_else(|| format!("expected a whole number, found {n}"))?),
        J::Array(a) => Dynamic::from_array(a.iter().map(from_json).collect::<Result<_, _>>()?),
        J::Object(o) => {
            let mut m = Map::new();
            for (k, x) in o {
                m.insert(k.as_str().into(), from_json(x)?);
            }
            Dynamic::from_map(m)
        }
    })
}

/// How the inspector shows a field: `node` as `N5` (or `-` for `()`), anything else as Rhai
/// writes it (strings without quotes, `()` as `-`).
pub fn show(v: Option<&Dynamic>, how: Show) -> String {
    let Some(v) = v else { return "-".to_string() };
    if v.is_unit() {
        return "-".to_string();
    }
    match (how, v.as_int()) {
        (Show::Node, Ok(i)) => format!("N{i}"),
        _ => v.to_string(),
    }
}

/// A declared field's value, typed: `()` (or absent) as no value, an integer as a node (`show:
/// node`) or a number, a boolean as a flag, an array of integers shown as nodes as a list of
/// nodes; anything else as Rhai writes it ([`show`]), so that the inspector shows what it did.
pub fn typed(v: Option<&Dynamic>, how: Show) -> crate::field::FieldValue {
    use crate::field::FieldValue as V;
    let Some(d) = v.filter(|d| !d.is_unit()) else { return V::None };
    if let Ok(i) = d.as_int() {
        return match how {
            Show::Node => NodeId::try_from(i).map_or_else(|_| V::Text(show(v, how)), V::Node),
            Show::Plain => V::Num(i),
        };
    }
    if let Ok(b) = d.as_bool() {
        return V::Flag(b);
    }
    V::Text(show(v, how))
}

/// The display of a declared state field.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Show {
    Plain,
    Node,
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::fnv::Fnv64;
    use std::hash::Hasher;

    /// FNV-1a, so that the expected value does not depend on the standard library's hasher.
    fn h(v: &Dynamic) -> u64 {
        let mut f = Fnv64::default();
        hash_dynamic(v, &mut f);
        f.finish()
    }

    #[test]
    fn equal_values_hash_equal_and_types_are_told_apart() {
        let mut a = Map::new();
        a.insert("x".into(), Dynamic::from(1_i64));
        a.insert("y".into(), Dynamic::from("ok"));
        let mut b = Map::new();
        b.insert("y".into(), Dynamic::from("ok"));
        b.insert("x".into(), Dynamic::from(1_i64));
        assert_eq!(h(&Dynamic::from_map(a.clone())), h(&Dynamic::from_map(b)), "insertion order does not count");
        assert_ne!(h(&Dynamic::from(1_i64)), h(&Dynamic::from(true)));
        assert_ne!(h(&Dynamic::from("1")), h(&Dynamic::from(1_i64)));
        assert_ne!(h(&Dynamic::UNIT), h(&Dynamic::from(0_i64)));
        a.insert("x".into(), Dynamic::from(2_i64));
        let arr: rhai::Array = vec![Dynamic::from(1_i64), Dynamic::from_map(a)];
        assert_ne!(h(&Dynamic::from_array(arr.clone())), h(&Dynamic::from_array(arr[..1].to_vec())));
    }

    #[test]
    fn same_compares_by_content_and_type() {
        let map = |pairs: &[(&str, Dynamic)]| {
            let mut m = Map::new();
            for (k, v) in pairs {
                m.insert((*k).into(), v.clone());
            }
            Dynamic::from_map(m)
        };
        let a = map(&[("x", Dynamic::from(1_i64)), ("s", Dynamic::from("ok")), ("u", Dynamic::UNIT)]);
        let b = map(&[("u", Dynamic::UNIT), ("s", Dynamic::from("ok")), ("x", Dynamic::from(1_i64))]);
        assert!(same(&a, &b), "insertion order does not count");
        assert!(!same(&a, &map(&[("x", Dynamic::from(2_i64)), ("s", Dynamic::from("ok")), ("u", Dynamic::UNIT)])));
        assert!(!same(&a, &map(&[("x", Dynamic::from(1_i64)), ("s", Dynamic::from("ok"))])));
        assert!(!same(&Dynamic::from(1_i64), &Dynamic::from(true)));
        assert!(!same(&Dynamic::from("1"), &Dynamic::from(1_i64)));
        assert!(!same(&Dynamic::UNIT, &Dynamic::from(0_i64)));
        assert!(same(&Dynamic::from('c'), &Dynamic::from('c')));
        let arr = |v: &[i64]| Dynamic::from_array(v.iter().map(|&i| Dynamic::from(i)).collect());
        assert!(same(&arr(&[1, 2]), &arr(&[1, 2])));
        assert!(!same(&arr(&[1, 2]), &arr(&[1])));
    }
}
