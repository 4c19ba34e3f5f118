//! Reads the English text catalog (`i18n/en.json`) and generates, in `$OUT_DIR/catalog.rs`:
//! one constant per key (`k::BULLY_NOTE_START` for `bully.note.start`), so that a key that does
//! not exist is a compile error; per key that takes arguments, a function with named, typed
//! parameters returning the text with its arguments (`k::raft_note_vote(node, peer, term)`, a
//! `Note`), so that a missing, extra or wrongly typed argument is a compile error too; the
//! English strings, compiled in (English ships with the page); the keys' names and their hashes
//! (a fetched catalog is read by hash, so the page does not carry the names); and each key's
//! argument names in the order the code passes them (`@args`, or else the placeholders in order
//! of first appearance). `zh.json` is not read here: natively it is included by `meta.rs`, and
//! the page fetches it when Chinese is chosen.
//!
//! The typing rule: an argument the English template writes as `N{name}` (a node, drawn "N3")
//! is a `NodeId`; every other argument is a number, `u64`. So a term passed where the template
//! names a node, or a node where it names a number, does not compile without a cast.
//!
//! The player's texts and the workbench's: the keys listed under `keys:` in `i18n/workbench.txt`
//! are shown only by the workbench, the worker and the command line. Their constants and typed
//! functions exist in every build (both builds of the app type-check all its code), numbered
//! after the player's keys so that a key has the same number in every build; their English
//! strings, names, hashes and argument names are compiled only with the feature
//! `workbench-texts`, which the player's build does not enable (see ARCHITECTURE.md, *Texts*).
//!
//! A family's texts (the protocols crate's `src/family.rs`, included here: the table, no code of
//! that crate): a key whose first segment is an algorithm
//! id (`raft.note.vote`) belongs to that algorithm's family, except the titles every picker shows
//! (`raft.title`, `raft.preset.raft-cold.title`), which stay with the keys of no family. The
//! player's keys are numbered in parts, each sorted: the keys of no family, then each family's
//! (in `FAMILIES` order), then the workbench's, so a key has the same number in every build. A
//! family build (feature `family-bully`) compiles in the keys of no family and its family's; the
//! other families' parts are empty, as the workbench's part is in every player.

use serde::de::{Deserialize, Deserializer, MapAccess, Visitor};
use serde_json::Value;
use std::fmt::Write as _;
use std::path::Path;

#[allow(dead_code)]
#[path = "../protocols/src/family.rs"]
mod family;
#[allow(dead_code)]
#[path = "src/fnv.rs"]
mod fnv;
#[path = "src/meta/placeholders.rs"]
mod placeholders;

fn main() {
    let dir = std::env::var("CARGO_MANIFEST_DIR").unwrap();
    let en_path = Path::new(&dir).join("../i18n/en.json");
    println!("cargo:rerun-if-changed=../i18n/en.json");
    println!("cargo:rerun-if-changed=../i18n/workbench.txt");
    println!("cargo:rerun-if-changed=build.rs");
    println!("cargo:rerun-if-changed=src/fnv.rs");
    println!("cargo:rerun-if-changed=../protocols/src/family.rs");
    println!("cargo:rerun-if-changed=src/meta/placeholders.rs");
    let text = std::fs::read_to_string(&en_path).unwrap_or_else(|e| panic!("{}: {e}", en_path.display()));
    let Entries(entries) = serde_json::from_str(&text).unwrap_or_else(|e| panic!("i18n/en.json: {e}"));
    let mut texts: Vec<(String, String)> = Vec::new();
    let mut declared: Vec<(String, Vec<String>)> = Vec::new();
    for (key, v) in entries {
        match (key.as_str(), v) {
            ("@args", Value::Object(list)) => {
                for (k, names) in list {
                    let Value::Array(names) = names else { panic!("i18n/en.json: @args.{k}: not a list") };
                    let names = names
                        .into_iter()
                        .map(|n| match n {
                            Value::String(s) => s,
                            _ => panic!("i18n/en.json: @args.{k}: not a list of names"),
                        })
                        .collect();
                    declared.push((k, names));
                }
            }
            (_, Value::String(s)) => texts.push((key, s)),
            _ => panic!("i18n/en.json: {key}: not a string"),
        }
    }
    texts.sort();
    for w in texts.windows(2) {
        assert!(w[0].0 != w[1].0, "i18n/en.json: key {} twice", w[0].0);
    }
    // The player's keys first, then the workbench's, each part sorted.
    let list_path = Path::new(&dir).join("../i18n/workbench.txt");
    let list = std::fs::read_to_string(&list_path).unwrap_or_else(|e| panic!("{}: {e}", list_path.display()));
    let workbench = workbench_keys(&list);
    for key in &workbench {
        assert!(
            texts.binary_search_by(|(t, _)| t.as_str().cmp(key)).is_ok(),
            "i18n/workbench.txt: {key} is not in en.json"
        );
    }
    // The parts, in key order: the keys every player has, each family's (see `family_of_key`),
    // the workbench's; each part sorted.
    let part_of = |key: &str| match family::family_of_key(key) {
        _ if workbench.contains(key) => family::FAMILIES.len() + 1,
        None => 0,
        Some(f) => 1 + family::FAMILIES.iter().position(|x| x.id == f).unwrap(),
    };
    texts.sort_by_key(|(key, _)| part_of(key));
    let player = texts.len() - workbench.len();
    let family = family::of_build_script();
    for (k, _) in &declared {
        assert!(texts.iter().any(|(t, _)| t == k), "i18n/en.json: @args names the unknown key {k}");
    }
    assert!(texts.len() < u16::MAX as usize, "too many keys for a u16");

    let mut out = String::new();
    out.push_str("/// The catalog keys, one constant each (generated from `crate/i18n/en.json`).\n");
    out.push_str("pub mod k {\n    use super::{Note, Text};\n    use crate::NodeId;\n");
    let mut consts = std::collections::BTreeSet::new();
    for (i, (key, en)) in texts.iter().enumerate() {
        let name: String =
            key.chars().map(|c| if c.is_ascii_alphanumeric() { c.to_ascii_uppercase() } else { '_' }).collect();
        assert!(consts.insert(name.clone()), "i18n/en.json: two keys give the constant {name}");
        let doc: String = en.chars().take(100).collect::<String>().replace('\n', " ");
        writeln!(out, "    /// `{key}`: {}", doc.replace('`', "'")).unwrap();
        writeln!(out, "    pub const {name}: Text = Text({i});").unwrap();
    }
    // The typed texts: one function per key that takes arguments, `k::raft_note_vote(node,
    // peer, term)`, returning the text with its arguments (a `Note`).
    let most = texts.iter().map(|(key, en)| arg_names(key, en, &declared).len()).max().unwrap_or(0);
    for (i, (key, en)) in texts.iter().enumerate() {
        let names = arg_names(key, en, &declared);
        if names.is_empty() {
            continue;
        }
        let name: String =
            key.chars().map(|c| if c.is_ascii_alphanumeric() { c.to_ascii_lowercase() } else { '_' }).collect();
        assert!(consts.insert(name.clone()), "i18n/en.json: two keys give the function {name}");
        let params: Vec<String> =
            names.iter().map(|n| format!("{}: {}", ident(n), if is_node(en, n) { "NodeId" } else { "u64" })).collect();
        let values: Vec<String> =
            names.iter().map(|n| if is_node(en, n) { format!("{} as u64", ident(n)) } else { ident(n) }).collect();
        writeln!(out, "    /// `{key}` with its arguments ({}).", names.join(", ")).unwrap();
        writeln!(out, "    #[inline(always)]").unwrap();
        if names.len() > 6 {
            writeln!(out, "    #[allow(clippy::too_many_arguments)]").unwrap();
        }
        writeln!(out, "    pub fn {name}({}) -> Note {{", params.join(", ")).unwrap();
        writeln!(out, "        Note::with{}(Text({i}), {})", names.len(), values.join(", ")).unwrap();
        out.push_str("    }\n");
    }
    out.push_str("}\n\n");
    // One constructor per number of arguments, not inlined: a call site passes its arguments
    // in registers instead of writing every slot of the note (the page's code stays small).
    out.push_str("impl Note {\n");
    for n in 1..=most {
        let params: Vec<String> = (0..n).map(|j| format!("a{j}: u64")).collect();
        let mut slots: Vec<String> = (0..n).map(|j| format!("a{j}")).collect();
        slots.resize(most, "0".to_string());
        let allow = if n > 6 { "    #[allow(clippy::too_many_arguments)]\n" } else { "" };
        writeln!(out, "    #[inline(never)]\n{allow}    fn with{n}(text: Text, {}) -> Note {{", params.join(", "))
            .unwrap();
        writeln!(out, "        Note {{ text, args: [{}] }}\n    }}", slots.join(", ")).unwrap();
    }
    out.push_str("}\n\n");
    writeln!(out, "/// The most arguments a key of the catalog takes: the room a `Note` has.").unwrap();
    writeln!(out, "pub const MAX_ARGS: usize = {most};").unwrap();
    // The tables by key index, in two parts: the player's (always compiled in) and the
    // workbench's (only with the feature `workbench-texts`; empty without it).
    writeln!(out, "/// The number of the player's keys; the workbench's are numbered after them.").unwrap();
    writeln!(out, "pub const PLAYER_KEYS: usize = {player};").unwrap();
    let mut hashes = std::collections::BTreeSet::new();
    for (key, _) in &texts {
        let h = key_hash(key);
        assert!(hashes.insert(h), "i18n/en.json: two keys share the hash {h:#x}; change key_hash's offset");
    }
    let mut parts: Vec<Part> = Vec::new();
    let mut start = 0;
    for p in 0..=family::FAMILIES.len() + 1 {
        let end = start + texts[start..].iter().take_while(|(key, _)| part_of(key) == p).count();
        let (suffix, held) = match p {
            0 => (String::new(), Some(true)),
            _ if p > family::FAMILIES.len() => ("_WORKBENCH".to_string(), None),
            _ => {
                let id = family::FAMILIES[p - 1].id;
                (format!("_{}", id.to_ascii_uppercase().replace('-', "_")), Some(family.is_none_or(|f| f == id)))
            }
        };
        parts.push(Part { suffix, keys: &texts[start..end], held });
        start = end;
    }
    assert_eq!(start, texts.len());
    writeln!(out, "/// Where each part of the catalog starts, by key index: the keys every player has, each family's, the workbench's.").unwrap();
    let starts: Vec<String> =
        parts.iter().scan(0, |at, p| Some((std::mem::replace(at, *at + p.keys.len())).to_string())).collect();
    writeln!(out, "const STARTS: [usize; {}] = [{}];", parts.len(), starts.join(", ")).unwrap();
    let tables: [(&str, &str, &str, Item); 4] = [
        ("KEY_NAMES", "&str", "The key names, sorted within each part", |k, _, _| format!("{k:?}")),
        (
            "KEY_HASHES",
            "u32",
            "Each key's hash (`meta::key_hash`): how a fetched catalog finds its keys, so that the page does not carry the key names",
            |k, _, _| format!("{:#010x}", key_hash(k)),
        ),
        ("EN", "&str", "The English texts", |_, en, _| format!("{en:?}")),
        ("ARGS", "&[&str]", "Each key's argument names, in the order the code passes them", |k, en, d| {
            format!("&{:?}", arg_names(k, en, d))
        }),
    ];
    let mut all_parts = String::new();
    for (name, ty, doc, item) in tables {
        let list: Vec<String> = parts.iter().map(|p| format!("&{name}{}", p.suffix)).collect();
        writeln!(all_parts, "/// {doc}: the parts.").unwrap();
        writeln!(all_parts, "static {name}_PARTS: [&[{ty}]; {}] = [{}];", parts.len(), list.join(", ")).unwrap();
        for Part { suffix, keys, held } in &parts {
            writeln!(
                out,
                "/// {doc}, by key index less its part's start ({}).",
                if suffix.is_empty() { "every player's keys" } else { &suffix[1..] }
            )
            .unwrap();
            match held {
                Some(false) => {
                    writeln!(out, "static {name}{suffix}: [{ty}; 0] = [];").unwrap();
                    continue;
                }
                Some(true) => {}
                None => {
                    writeln!(out, "#[cfg(not(feature = \"workbench-texts\"))]\nstatic {name}{suffix}: [{ty}; 0] = [];")
                        .unwrap();
                    writeln!(out, "#[cfg(feature = \"workbench-texts\")]").unwrap();
                }
            }
            writeln!(out, "static {name}{suffix}: [{ty}; {}] = [", keys.len()).unwrap();
            for (key, en) in keys.iter() {
                writeln!(out, "    {},", item(key, en, &declared)).unwrap();
            }
            out.push_str("];\n");
        }
    }
    out.push_str(&all_parts);
    out.push_str(CATALOG_FNS);
    let dest = Path::new(&std::env::var("OUT_DIR").unwrap()).join("catalog.rs");
    std::fs::write(dest, out).unwrap();
}

/// A part of the catalog: its tables' suffix (`_BULLY`), its keys, and whether this build
/// compiles them in (`None`: with the feature `workbench-texts`).
struct Part<'a> {
    suffix: String,
    keys: &'a [(String, String)],
    held: Option<bool>,
}

/// How one table writes a key's entry: from its name, English text and the `@args` lists.
type Item = fn(&str, &str, &[(String, Vec<String>)]) -> String;

/// The keys listed under `keys:` in `i18n/workbench.txt` (one a line; `#` starts a comment).
fn workbench_keys(list: &str) -> std::collections::BTreeSet<&str> {
    let lines = list.lines().map(|l| l.split('#').next().unwrap_or("").trim());
    lines.skip_while(|l| *l != "keys:").skip(1).filter(|l| !l.is_empty()).collect()
}

/// The catalog's lookups by key index over its parts (a key whose part this build did not
/// compile in reads as the marker `NOT_IN_PLAYER`).
const CATALOG_FNS: &str = r#"
/// The number of keys this build knows: the player's, and the workbench's with its feature.
pub const KEYS_LEN: usize = PLAYER_KEYS + EN_WORKBENCH.len();

/// Entry `i` of a table in parts: `None` where this build did not compile its part in.
fn by_index<T: Copy>(parts: &[&[T]], i: usize) -> Option<T> {
    let part = STARTS.partition_point(|&start| start <= i) - 1;
    parts[part].get(i - STARTS[part]).copied()
}
fn name_of(i: usize) -> &'static str {
    by_index(&KEY_NAMES_PARTS, i).unwrap_or("")
}
/// What a key reads as in a build without its text: a workbench key in the player's build, or
/// another family's in a family's (`family-…`). A marker the browser tests fail on wherever the
/// player shows it (`www/tests/e2e/harness.mjs`), never an empty text that no one notices.
pub const NOT_IN_PLAYER: &str = "\u{27e6}?\u{27e7}";
fn en_of(i: usize) -> &'static str {
    by_index(&EN_PARTS, i).unwrap_or(NOT_IN_PLAYER)
}
fn args_of(i: usize) -> &'static [&'static str] {
    by_index(&ARGS_PARTS, i).unwrap_or(&[])
}
/// Whether this build compiled key `i`'s text in.
fn has(i: usize) -> bool {
    by_index(&KEY_HASHES_PARTS, i).is_some()
}
fn index_of_hash(h: u32) -> Option<usize> {
    KEY_HASHES_PARTS.iter().zip(STARTS).find_map(|(part, start)| part.iter().position(|&x| x == h).map(|i| start + i))
}
fn index_of_name(name: &str) -> Option<usize> {
    KEY_NAMES_PARTS.iter().zip(STARTS).find_map(|(part, start)| part.binary_search(&name).ok().map(|i| start + i))
}
"#;

/// A key's argument names in the order the code passes them: its `@args` entry, or else its
/// placeholders in order of first appearance.
fn arg_names(key: &str, en: &str, declared: &[(String, Vec<String>)]) -> Vec<String> {
    match declared.iter().find(|(k, _)| k == key) {
        Some((_, names)) => names.clone(),
        None => placeholders::placeholders(en),
    }
}

/// The naming rule of the typed texts: an argument is a node id (`NodeId`) when the English
/// template writes it as `N{name}` somewhere; any other argument is a number (`u64`).
fn is_node(en: &str, name: &str) -> bool {
    en.contains(&format!("N{{{name}}}")) || en.contains(&format!("N{{{name}:"))
}

/// A parameter's name: the argument's, raw when it is a Rust keyword.
fn ident(name: &str) -> String {
    const KEYWORDS: [&str; 38] = [
        "as", "async", "await", "box", "break", "const", "continue", "dyn", "else", "enum", "extern", "false", "fn",
        "for", "if", "impl", "in", "let", "loop", "match", "mod", "move", "mut", "pub", "ref", "return", "static",
        "struct", "trait", "true", "try", "type", "unsafe", "use", "where", "while", "yield", "gen",
    ];
    if KEYWORDS.contains(&name) {
        format!("r#{name}")
    } else {
        name.to_string()
    }
}

/// FNV-1a over the key's bytes (the same function as `meta::key_hash`).
fn key_hash(key: &str) -> u32 {
    fnv::fnv1a_32(key.as_bytes())
}

/// A JSON object's entries in file order, duplicates kept (serde_json's own maps would keep only
/// the last of two equal keys, and the catalog must refuse them).
struct Entries(Vec<(String, Value)>);

impl<'de> Deserialize<'de> for Entries {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = Entries;
            fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
                f.write_str("an object")
            }
            fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Entries, A::Error> {
                let mut out = Vec::new();
                while let Some(entry) = map.next_entry::<String, Value>()? {
                    out.push(entry);
                }
                Ok(Entries(out))
            }
        }
        d.deserialize_map(V)
    }
}
