//! The shape of the code, checked: the engine's crates depend only downward (Cargo enforces the
//! rest: an upward import does not compile); what Cargo cannot say — no code outside the
//! protocols crate names an algorithm (everything else reads the registry's descriptors) or
//! reaches the simulator behind the `Engine`, the app's modules (`www/src`, one crate) import
//! each other without a circle, and no source file is above 600 lines.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

fn rust_files(dir: &Path, out: &mut Vec<PathBuf>) {
    for entry in std::fs::read_dir(dir).unwrap() {
        let p = entry.unwrap().path();
        if p.is_dir() {
            rust_files(&p, out);
        } else if p.extension().is_some_and(|e| e == "rs") {
            out.push(p);
        }
    }
}

/// The code of a file: before its test module, without comment lines.
fn code_of(text: &str) -> String {
    let before_tests = text.split("#[cfg(test)]").next().unwrap();
    before_tests.lines().filter(|l| !l.trim_start().starts_with("//")).collect::<Vec<_>>().join("\n")
}

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).parent().unwrap().to_path_buf()
}

/// The engine's sources: the three crates' `src` folders.
const ENGINE_SOURCES: [&str; 3] = ["crate/core/src", "crate/protocols/src", "crate/src"];

/// The workspace's crates depend only downward — core, then protocols, then the tools (with the
/// CLI), then the app — as Cargo itself reads the manifests (`cargo metadata`): an import that
/// goes up would need a dependency that is not there, and does not compile.
#[test]
fn the_crates_are_the_layers_and_depend_only_downward() {
    let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".into());
    let out = std::process::Command::new(cargo)
        .args(["metadata", "--offline", "--format-version", "1", "--no-deps"])
        .current_dir(root())
        .output()
        .unwrap();
    assert!(out.status.success(), "cargo metadata: {}", String::from_utf8_lossy(&out.stderr));
    let meta: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let ours: BTreeSet<&str> =
        meta["packages"].as_array().unwrap().iter().map(|p| p["name"].as_str().unwrap()).collect();
    let mut deps: BTreeMap<&str, BTreeSet<&str>> = BTreeMap::new();
    for p in meta["packages"].as_array().unwrap() {
        let name = p["name"].as_str().unwrap();
        let entry = deps.entry(name).or_default();
        for d in p["dependencies"].as_array().unwrap() {
            let dep = d["name"].as_str().unwrap();
            // Dev-dependencies serve tests only; the layers are what the libraries may use.
            if ours.contains(dep) && d["kind"].is_null() {
                entry.insert(dep);
            }
        }
    }
    let layers = ["election-lab-core", "election-lab-protocols", "election-lab", "election-lab-www"];
    assert_eq!(ours, layers.iter().copied().collect(), "the workspace's packages");
    for (i, name) in layers.iter().enumerate() {
        let below: BTreeSet<&str> = layers[..i].iter().copied().collect();
        let up: Vec<_> = deps[name].difference(&below).collect();
        assert!(up.is_empty(), "{name} depends on {up:?}, which is not below it");
    }
    assert!(deps["election-lab-core"].is_empty(), "the core depends on no other crate of ours");
    assert!(deps["election-lab-protocols"].contains("election-lab-core"), "the scan read the dependencies");
}

/// No file outside the protocols crate names an algorithm id as a string (a `match` on the
/// algorithm would have to): the registry's descriptors carry everything.
#[test]
fn no_code_outside_the_protocols_names_an_algorithm() {
    let mut files = Vec::new();
    for dir in ["crate/core/src", "crate/src", "www/src"] {
        rust_files(&root().join(dir), &mut files);
    }
    assert!(files.len() > 100, "the walk found the sources: {}", files.len());
    // A `tests.rs` file is a test module (`#[cfg(test)] mod tests;`), exempt like inline tests.
    let mut named = Vec::new();
    for f in files.iter().filter(|f| !f.ends_with("tests.rs")) {
        let code = code_of(&std::fs::read_to_string(f).unwrap());
        for a in election_lab::registry::all() {
            let quoted = format!("\"{}\"", a.id);
            if code.contains(&quoted) {
                named.push(format!("{} names {quoted}", f.strip_prefix(root()).unwrap().display()));
            }
        }
    }
    assert!(named.is_empty(), "read the registry instead: {named:?}");
}

/// What in `code` reaches the simulator itself: the type `Sim` named (not in a comment), or a
/// descriptor's `build` called, which returns one.
fn reaches_the_simulator(code: &str) -> Vec<&'static str> {
    let code: Vec<&str> = code.lines().filter(|l| !l.trim_start().starts_with("//")).collect();
    let code = code.join("\n");
    let named = code.split(|c: char| !(c.is_alphanumeric() || c == '_')).any(|word| word == "Sim");
    let built = code.contains(".build)(");
    [(named, "names `Sim`"), (built, "calls a descriptor's `build`")].into_iter().filter(|f| f.0).map(|f| f.1).collect()
}

/// Above the protocols crate a run is reached only through the `Engine`, which owns its
/// simulator: no file of the tools, their tests and benchmarks, or the app names the `Sim` type
/// or builds one. Cargo cannot say it: the core's `Sim` is public for the protocols crate.
#[test]
fn nothing_above_the_protocols_reaches_the_simulator() {
    assert_eq!(reaches_the_simulator("use election_lab_core::sim::{Budget, Sim};"), ["names `Sim`"]);
    assert_eq!(reaches_the_simulator("let s = (a.build)(&s, a.properties)?;"), ["calls a descriptor's `build`"]);
    assert!(reaches_the_simulator("// a comment on the Sim\nlet sim = Simple;").is_empty());
    let mut files = Vec::new();
    for dir in ["crate/src", "crate/tests", "crate/benches", "www/src"] {
        rust_files(&root().join(dir), &mut files);
    }
    assert!(files.len() > 100, "the walk found the sources: {}", files.len());
    let mut found = Vec::new();
    // This file names what it looks for.
    for f in files.iter().filter(|f| !f.ends_with("tests/layers.rs")) {
        for what in reaches_the_simulator(&std::fs::read_to_string(f).unwrap()) {
            found.push(format!("{} {what}", f.strip_prefix(root()).unwrap().display()));
        }
    }
    assert!(found.is_empty(), "read the run through the `Engine` instead: {found:?}");
}

/// The module path of a file of `www/src` (`state/compare.rs` → `["state", "compare"]`,
/// `components/mod.rs` → `["components"]`); `lib.rs` and `main.rs` are the root, `[]`.
fn www_module(src: &Path, file: &Path) -> Vec<String> {
    let rel = file.strip_prefix(src).unwrap();
    let mut parts: Vec<String> = rel.components().map(|c| c.as_os_str().to_str().unwrap().to_string()).collect();
    let last = parts.pop().unwrap();
    let stem = last.trim_end_matches(".rs");
    if !matches!(stem, "mod" | "lib" | "main") {
        parts.push(stem.to_string());
    }
    parts
}

/// The modules a file's code names: `crate::a::b::Item` and `super::x` paths, resolved to the
/// longest known module path (an item's name is not a module).
fn www_imports(code: &str, me: &[String], is_mod_file: bool, known: &BTreeSet<Vec<String>>) -> BTreeSet<Vec<String>> {
    let mut out = BTreeSet::new();
    let words = |s: &str| -> Vec<String> {
        let path: String = s.chars().take_while(|c| c.is_alphanumeric() || *c == '_' || *c == ':').collect();
        path.split("::").filter(|w| !w.is_empty()).map(str::to_string).collect()
    };
    let mut candidates: Vec<Vec<String>> = Vec::new();
    for part in code.split("crate::").skip(1) {
        candidates.push(words(part));
    }
    // `super::` from `a/b.rs` is `a`; from `a/mod.rs` it is the parent of `a`.
    let base: Vec<String> = if is_mod_file { me[..me.len().saturating_sub(1)].to_vec() } else { me.to_vec() };
    for part in code.split("super::").skip(1) {
        let mut p = base[..base.len().saturating_sub(1)].to_vec();
        p.extend(words(part));
        candidates.push(p);
    }
    // A brace group (`use crate::components::{hash_ring, lease_bars}`) names each member.
    for group in code.split("crate::").skip(1).filter_map(|p| {
        let head: String = p.chars().take_while(|c| c.is_alphanumeric() || *c == '_' || *c == ':').collect();
        let n = head.len();
        p[n..].starts_with('{').then(|| (head, p[n + 1..].split('}').next().unwrap_or("").to_string()))
    }) {
        for member in group.1.split(',') {
            let mut p = words(&group.0);
            p.extend(words(member.trim()));
            candidates.push(p);
        }
    }
    for mut p in candidates {
        while !p.is_empty() && !known.contains(&p) {
            p.pop();
        }
        if !p.is_empty() && p != me {
            out.insert(p);
        }
    }
    out
}

/// The app's modules import each other without a circle (a module may use its own parent or
/// children; siblings and strangers may not go round), and the reducer (`state`) never imports the
/// components that draw it.
#[test]
fn www_modules_import_each_other_without_a_circle() {
    let src = root().join("www/src");
    let mut files = Vec::new();
    rust_files(&src, &mut files);
    let files: Vec<PathBuf> = files.into_iter().filter(|f| !f.ends_with("tests.rs")).collect();
    let known: BTreeSet<Vec<String>> = files.iter().map(|f| www_module(&src, f)).collect();
    let mut graph: BTreeMap<Vec<String>, BTreeSet<Vec<String>>> = BTreeMap::new();
    for f in &files {
        let me = www_module(&src, f);
        let code = code_of(&std::fs::read_to_string(f).unwrap());
        let deps = www_imports(&code, &me, f.ends_with("mod.rs"), &known);
        if me.first().is_some_and(|m| m == "state") {
            let drawn: Vec<_> = deps.iter().filter(|d| d.first().is_some_and(|m| m == "components")).collect();
            assert!(drawn.is_empty(), "{} (the reducer) imports components {drawn:?}", f.display());
        }
        // Between a module and its own ancestors or descendants, use goes both ways by nature.
        let related = |a: &[String], b: &[String]| a.starts_with(b) || b.starts_with(a);
        graph.entry(me.clone()).or_default().extend(deps.into_iter().filter(|d| !related(d, &me)));
    }
    fn visit(
        n: &Vec<String>,
        g: &BTreeMap<Vec<String>, BTreeSet<Vec<String>>>,
        stack: &mut Vec<Vec<String>>,
        done: &mut BTreeSet<Vec<String>>,
    ) {
        if done.contains(n) {
            return;
        }
        if let Some(at) = stack.iter().position(|s| s == n) {
            let names: Vec<String> = stack[at..].iter().chain([n]).map(|m| m.join("::")).collect();
            panic!("import circle in www/src: {}", names.join(" -> "));
        }
        stack.push(n.clone());
        for d in g.get(n).into_iter().flatten() {
            visit(d, g, stack, done);
        }
        stack.pop();
        done.insert(n.clone());
    }
    let mut done = BTreeSet::new();
    for n in graph.keys() {
        visit(n, &graph, &mut Vec::new(), &mut done);
    }
    let picture = vec!["components".to_string(), "picture".to_string()];
    assert!(graph.contains_key(&picture) && graph.len() > 30, "the scan found the app's modules ({})", graph.len());
    assert!(graph[&vec!["app".to_string()]].contains(&vec!["state".to_string()]), "the scan reads imports");
}

/// No source file of the engine or the app above 600 lines: a module that grows past it is
/// split by concern. Test modules in files of their own (`tests.rs`, `*_tests.rs`) are exempt.
#[test]
fn no_source_file_is_above_600_lines() {
    let root = root();
    let mut files = Vec::new();
    for dir in ENGINE_SOURCES.iter().chain(&["www/src"]) {
        rust_files(&root.join(dir), &mut files);
    }
    assert!(files.len() > 100, "the walk found the sources: {}", files.len());
    let mut long: Vec<String> = files
        .iter()
        .filter(|f| {
            let name = f.file_name().unwrap().to_string_lossy();
            name != "tests.rs" && !name.ends_with("_tests.rs")
        })
        .filter_map(|f| {
            let n = std::fs::read_to_string(f).unwrap().lines().count();
            (n > 600).then(|| format!("{} ({n} lines)", f.strip_prefix(&root).unwrap().display()))
        })
        .collect();
    long.sort();
    assert!(long.is_empty(), "source files above 600 lines: {}", long.join(", "));
}
