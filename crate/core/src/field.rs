//! The inspector's fields, typed: what [`crate::protocol::Protocol::inspect`] returns for a node.
//!
//! A [`Field`] has a stable `id` (snake_case, unique within its algorithm: `current_term`,
//! `voted_for`), a `label` (a catalog key, shown in the page's language) and a typed
//! [`FieldValue`]. Breakpoints (`current_term:3>=5`), the watch panel, the JSON Lines export
//! (`fields`) and links name a field by its id and compare its value as a number
//! ([`FieldValue::number`]), never by reading a display string back. A name written before ids
//! existed (the English label, `current-term`) still resolves: [`find`] matches the id first,
//! then the label in English or Chinese.
//!
//! The one place a value is written for display is [`FieldValue::show`]: numbers plainly, a node
//! as `N5`, a list of nodes as `N1, N2`, a flag as `true`/`false` (the page words those), no value
//! as `-`.

use crate::meta::{Lang, Text};
use crate::NodeId;
use serde_json::{json, Value};
use std::borrow::Cow;

/// One row of the inspector.
#[derive(Clone, Debug, PartialEq)]
pub struct Field {
    /// Stable snake_case name (what breakpoints, watch, exports and links use).
    pub id: Cow<'static, str>,
    /// The text shown beside the value.
    pub label: Text,
    pub value: FieldValue,
}

/// A field's value.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum FieldValue {
    /// No value now (shown `-`).
    None,
    Num(i64),
    Node(NodeId),
    /// Nodes in the protocol's order (shown `N1, N2`; empty as nothing).
    Nodes(Vec<NodeId>),
    Flag(bool),
    /// Words or a composite the protocol writes itself (`WAIT_OK`, `cw yes / ccw no`).
    Text(String),
    /// A number the protocol shows with more around it (`3 / 5 needed: N1, N2` counts 3, `b4`
    /// is ballot 4): compared as the number, shown as the text.
    Worded(i64, String),
}

impl Field {
    pub fn new(id: &'static str, label: Text, value: FieldValue) -> Field {
        Field { id: Cow::Borrowed(id), label, value }
    }
    /// The value as the inspector shows it.
    pub fn shown(&self) -> String {
        self.value.show()
    }
}

fn clamp(v: u64) -> i64 {
    i64::try_from(v).unwrap_or(i64::MAX)
}

impl FieldValue {
    /// A number (terms, rounds and counts are `u64`; past `i64::MAX` they read as the greatest).
    pub fn num(v: u64) -> FieldValue {
        FieldValue::Num(clamp(v))
    }
    /// A node, or no value.
    pub fn node(id: Option<NodeId>) -> FieldValue {
        id.map_or(FieldValue::None, FieldValue::Node)
    }
    /// A list of nodes; an empty list is no value (shown `-`).
    pub fn nodes_or_none(ids: Vec<NodeId>) -> FieldValue {
        if ids.is_empty() {
            FieldValue::None
        } else {
            FieldValue::Nodes(ids)
        }
    }
    /// A number shown with words around it.
    pub fn worded(n: u64, shown: String) -> FieldValue {
        FieldValue::Worded(clamp(n), shown)
    }
    pub fn text(s: impl Into<String>) -> FieldValue {
        FieldValue::Text(s.into())
    }

    /// The number a breakpoint or the watch compares: a number, a node's id, a list's length,
    /// a flag as 1 or 0; None for words and no value.
    pub fn number(&self) -> Option<i64> {
        match self {
            FieldValue::Num(n) | FieldValue::Worded(n, _) => Some(*n),
            FieldValue::Node(n) => Some(i64::from(*n)),
            FieldValue::Nodes(v) => Some(v.len() as i64),
            FieldValue::Flag(b) => Some(i64::from(*b)),
            FieldValue::None | FieldValue::Text(_) => None,
        }
    }

    /// The value as the inspector shows it (the one formatter of field values).
    pub fn show(&self) -> String {
        match self {
            FieldValue::None => "-".to_string(),
            FieldValue::Num(n) => n.to_string(),
            FieldValue::Node(n) => format!("N{n}"),
            FieldValue::Nodes(v) => v.iter().map(|n| format!("N{n}")).collect::<Vec<_>>().join(", "),
            FieldValue::Flag(b) => b.to_string(),
            FieldValue::Text(s) | FieldValue::Worded(_, s) => s.clone(),
        }
    }

    /// The value in the JSON Lines export: a number, a node's id, a list of ids, a boolean, a
    /// string, null; a worded number as `{"n": 3, "text": "3 / 5 needed: N1, N2"}`.
    pub fn json(&self) -> Value {
        match self {
            FieldValue::None => Value::Null,
            FieldValue::Num(n) => json!(n),
            FieldValue::Node(n) => json!(n),
            FieldValue::Nodes(v) => json!(v),
            FieldValue::Flag(b) => json!(b),
            FieldValue::Text(s) => json!(s),
            FieldValue::Worded(n, s) => json!({ "n": n, "text": s }),
        }
    }
}

/// `current term`, `current-term` and `Current_Term` name the same thing (ASCII case: ids and
/// English labels are ASCII).
pub fn same_name(a: &str, b: &str) -> bool {
    let norm = |s: &str| s.trim().to_ascii_lowercase().replace(['-', '_'], " ");
    norm(a) == norm(b)
}

/// The field `name` names among `fields`: by its id, else (a name written before fields had ids)
/// by its English or Chinese label.
pub fn find<'a>(fields: &'a [Field], name: &str) -> Option<&'a Field> {
    fields
        .iter()
        .find(|f| same_name(&f.id, name))
        .or_else(|| fields.iter().find(|f| same_name(f.label.get(Lang::En), name)))
        .or_else(|| fields.iter().find(|f| f.label.get(Lang::Zh).trim() == name.trim()))
}

/// Whether `id` is a stable field id: lowercase ASCII letters, digits and `_`, starting with a
/// letter.
pub fn is_id(id: &str) -> bool {
    id.starts_with(|c: char| c.is_ascii_lowercase())
        && id.chars().all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '_')
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn values_show_as_the_inspector_showed_them_and_compare_as_numbers() {
        let cases = [
            (FieldValue::None, "-", None),
            (FieldValue::num(7), "7", Some(7)),
            (FieldValue::Node(5), "N5", Some(5)),
            (FieldValue::Nodes(vec![1, 2]), "N1, N2", Some(2)),
            (FieldValue::Nodes(vec![]), "", Some(0)),
            (FieldValue::Flag(true), "true", Some(1)),
            (FieldValue::text("WAIT_OK"), "WAIT_OK", None),
            (FieldValue::worded(3, "3 / 5 needed: N1".into()), "3 / 5 needed: N1", Some(3)),
        ];
        for (v, shown, n) in cases {
            assert_eq!((v.show().as_str(), v.number()), (shown, n), "{v:?}");
        }
        assert_eq!(FieldValue::num(u64::MAX).number(), Some(i64::MAX));
        assert_eq!(FieldValue::node(None), FieldValue::None);
        assert_eq!(FieldValue::nodes_or_none(vec![]).show(), "-");
    }

    #[test]
    fn ids_are_snake_case() {
        assert!(is_id("current_term") && is_id("t2"));
        assert!(!is_id("Current") && !is_id("current term") && !is_id("") && !is_id("_x") && !is_id("a-b"));
    }
}
