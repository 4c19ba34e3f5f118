//! The text catalogs (`crate/i18n/<lang>.json`): every key exists in every language, with the
//! same argument names, and every key is used by some code (the generated constant `k::…`
//! appears in the engine crates' or the app's sources). A key that does not exist does not compile.

use election_lab::meta::{placeholders, Lang, Text};
use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

/// A text's argument names, by the rule `build.rs` types the texts with.
fn names(t: &str) -> BTreeSet<String> {
    placeholders(t).into_iter().collect()
}

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).parent().unwrap().to_path_buf()
}

fn catalog(lang: &str) -> serde_json::Map<String, serde_json::Value> {
    let p = root().join("crate/i18n").join(format!("{lang}.json"));
    let text = std::fs::read_to_string(&p).unwrap();
    serde_json::from_str(&text).unwrap_or_else(|e| panic!("{}: {e}", p.display()))
}

#[test]
fn every_key_is_in_every_language_with_the_same_arguments() {
    let mut problems = Vec::new();
    // The argument order the code passes comes from the English text (build.rs), or from the
    // key's "@args" entry when that order differs: only the latter is independent of en.json,
    // so only it is compared with the English text's names.
    let en_file = catalog("en");
    let order = en_file.get("@args").and_then(|v| v.as_object()).cloned().unwrap_or_default();
    for t in Text::all() {
        let en = names(t.lookup(Lang::En).unwrap());
        if let Some(listed) = order.get(t.key()) {
            let listed: BTreeSet<String> =
                listed.as_array().unwrap().iter().map(|s| s.as_str().unwrap().to_string()).collect();
            if listed != en {
                problems.push(format!("{}: @args lists {listed:?}, en.json uses {en:?}", t.key()));
            }
        }
        match t.lookup(Lang::Zh) {
            None => problems.push(format!("{}: missing in zh.json", t.key())),
            Some(zh) if names(zh) != en => {
                problems.push(format!("{}: zh.json uses {:?}, en.json {en:?}", t.key(), names(zh)))
            }
            Some(_) => {}
        }
    }
    for (key, v) in catalog("zh") {
        if !key.starts_with('@') && Text::find(&key).is_none() {
            problems.push(format!("{key}: in zh.json but not in en.json"));
        }
        if !v.is_string() && !key.starts_with('@') {
            problems.push(format!("{key}: not a string in zh.json"));
        }
    }
    assert!(problems.is_empty(), "{} problem(s):\n{}", problems.len(), problems.join("\n"));
}

#[test]
fn the_checks_above_can_fail() {
    assert_eq!(names("N{node} and {x} {1,2} {Bad} {term}"), ["node", "term", "x"].map(String::from).into());
    assert!(Text::find("no.such.key").is_none());
}

fn sources(dir: &Path, out: &mut String) {
    for entry in std::fs::read_dir(dir).unwrap() {
        let p = entry.unwrap().path();
        if p.is_dir() {
            sources(&p, out);
        } else if p.extension().is_some_and(|e| e == "rs") {
            out.push_str(&std::fs::read_to_string(&p).unwrap());
        }
    }
}

#[test]
fn every_key_is_used_by_some_code() {
    let mut code = String::new();
    for dir in ["crate/core/src", "crate/protocols/src", "crate/src", "www/src"] {
        sources(&root().join(dir), &mut code);
    }
    let used: BTreeSet<&str> = code
        .match_indices("k::")
        .map(|(at, _)| {
            let rest = &code[at + 3..];
            &rest[..rest.find(|c: char| !(c.is_ascii_alphanumeric() || c == '_')).unwrap_or(rest.len())]
        })
        .collect();
    // A key is used by its constant (`k::BULLY_NOTE_START`) or its typed function
    // (`k::bully_note_start(..)`).
    let unused: Vec<&str> = Text::all()
        .filter(|t| {
            let name: String =
                t.key().chars().map(|c| if c.is_ascii_alphanumeric() { c.to_ascii_uppercase() } else { '_' }).collect();
            !used.contains(name.as_str()) && !used.contains(name.to_ascii_lowercase().as_str())
        })
        .map(|t| t.key())
        .collect();
    assert!(unused.is_empty(), "keys no code uses (remove them from every catalog): {unused:?}");
}
