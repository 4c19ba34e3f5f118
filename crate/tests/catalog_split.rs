//! The split of the catalogs between the player and the workbench (`crate/i18n/workbench.txt`):
//! a key listed there is compiled out of the player (the page's first load), so no source the
//! player compiles may name it, and a key only workbench sources name must be listed, so that
//! the player does not carry it. The sources are those of the engine crates and the app; which
//! of them only the workbench, the worker or the command line reach is the file's `files:` list.

use election_lab::meta::{Lang, Text};
use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).parent().unwrap().to_path_buf()
}

/// The `files:` and `keys:` sections of `workbench.txt` (comments and blank lines left out).
fn split_list() -> (Vec<String>, BTreeSet<String>) {
    let text = std::fs::read_to_string(root().join("crate/i18n/workbench.txt")).unwrap();
    let (mut files, mut keys, mut section) = (Vec::new(), BTreeSet::new(), "");
    for line in text.lines().map(|l| l.split('#').next().unwrap_or("").trim()).filter(|l| !l.is_empty()) {
        match line {
            "files:" | "keys:" => section = line,
            _ if section == "files:" => files.push(line.to_string()),
            _ if section == "keys:" => assert!(keys.insert(line.to_string()), "workbench.txt lists {line} twice"),
            _ => panic!("workbench.txt: {line} comes before `files:`"),
        }
    }
    (files, keys)
}

/// Whether the source at `path` (relative to the repository) is one of `files`.
fn only_workbench(path: &str, files: &[String]) -> bool {
    files.iter().any(|f| {
        if f.ends_with(".rs") {
            path == f
        } else if f.ends_with('/') {
            path.starts_with(f.as_str())
        } else {
            path == format!("{f}.rs") || path.starts_with(&format!("{f}/"))
        }
    })
}

fn sources(dir: &Path, out: &mut Vec<(String, String)>) {
    for entry in std::fs::read_dir(dir).unwrap() {
        let p = entry.unwrap().path();
        if p.is_dir() {
            sources(&p, out);
        } else if p.extension().is_some_and(|e| e == "rs") {
            let name = p.strip_prefix(root()).unwrap().to_string_lossy().replace('\\', "/");
            out.push((name, std::fs::read_to_string(&p).unwrap()));
        }
    }
}

/// Each constant or typed function's name (upper case) → the sources that name it with `k::`.
fn named_by() -> BTreeMap<String, BTreeSet<String>> {
    let mut files = Vec::new();
    for dir in ["crate/core/src", "crate/protocols/src", "crate/src", "www/src"] {
        sources(&root().join(dir), &mut files);
    }
    let mut out: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    for (path, code) in &files {
        for (at, _) in code.match_indices("k::") {
            let rest = &code[at + 3..];
            let name = &rest[..rest.find(|c: char| !(c.is_ascii_alphanumeric() || c == '_')).unwrap_or(rest.len())];
            out.entry(name.to_ascii_uppercase()).or_default().insert(path.clone());
        }
    }
    out
}

#[test]
fn the_workbench_texts_are_those_only_the_workbench_names() {
    let (files, listed) = split_list();
    for f in &files {
        let path = root().join(f.trim_end_matches('/'));
        let exists = path.exists() || path.with_extension("rs").exists();
        assert!(exists, "workbench.txt lists {f}, which does not exist");
    }
    let named = named_by();
    let mut problems = Vec::new();
    for t in Text::all() {
        let key = t.key();
        let constant: String =
            key.chars().map(|c| if c.is_ascii_alphanumeric() { c.to_ascii_uppercase() } else { '_' }).collect();
        let Some(by) = named.get(&constant) else { continue };
        let player: Vec<&String> = by.iter().filter(|p| !only_workbench(p, &files)).collect();
        match (listed.contains(key), player.first()) {
            (true, Some(p)) => problems.push(format!("{key}: the player shows it ({p}); remove it from `keys:`")),
            (false, None) => problems.push(format!("{key}: only the workbench names it; add it under `keys:`")),
            _ => {}
        }
    }
    for key in &listed {
        if Text::find(key).is_none() {
            problems.push(format!("{key}: listed in workbench.txt, not in en.json"));
        }
    }
    assert!(problems.is_empty(), "{} problem(s) in crate/i18n/workbench.txt:\n{}", problems.len(), problems.join("\n"));
}

#[test]
fn the_command_line_and_the_tests_have_every_text() {
    let en: serde_json::Map<String, serde_json::Value> =
        serde_json::from_str(&std::fs::read_to_string(root().join("crate/i18n/en.json")).unwrap()).unwrap();
    let keys = en.keys().filter(|k| !k.starts_with('@')).count();
    assert_eq!(Text::all().count(), keys, "the feature `workbench-texts` compiles the workbench's texts in");
    let (_, listed) = split_list();
    for key in &listed {
        let t = Text::find(key).unwrap_or_else(|| panic!("{key} is not in the catalog"));
        assert!(!t.get(Lang::En).is_empty() && !t.get(Lang::Zh).is_empty(), "{key} has no text");
    }
}

#[test]
fn the_checks_above_can_fail() {
    let files = ["crate/src/check".to_string(), "www/src/export/".to_string(), "www/src/sweep_job.rs".to_string()];
    assert!(only_workbench("crate/src/check.rs", &files) && only_workbench("crate/src/check/moves.rs", &files));
    assert!(!only_workbench("crate/src/checker.rs", &files));
    assert!(only_workbench("www/src/export/tikz.rs", &files) && !only_workbench("www/src/export.rs", &files));
    assert!(only_workbench("www/src/sweep_job.rs", &files) && !only_workbench("www/src/search_job.rs", &files));
}
