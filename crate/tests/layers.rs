//! The shape of the code, checked: the modules of `crate/src` import each other without a
//! circle, and no code outside an algorithm's own module names an algorithm — everything else
//! reads the registry's descriptors.

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

/// The top-level module a file of crate/src belongs to (`protocols/bully.rs` → `protocols`).
/// The code of a file: before its test module, without comment lines.
fn code_of(text: &str) -> String {
    let before_tests = text.split("#[cfg(test)]").next().unwrap();
    before_tests.lines().filter(|l| !l.trim_start().starts_with("//")).collect::<Vec<_>>().join("\n")
}

fn module_of(src: &Path, file: &Path) -> Option<String> {
    let rel = file.strip_prefix(src).ok()?;
    let first = rel.components().next()?.as_os_str().to_str()?.trim_end_matches(".rs").to_string();
    (first != "lib" && first != "bin").then_some(first)
}

#[test]
fn crate_modules_import_each_other_without_a_circle() {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut files = Vec::new();
    rust_files(&src, &mut files);
    let mut graph: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    for f in &files {
        let Some(m) = module_of(&src, f) else { continue };
        // Test modules may use anything; comments may mention anything.
        let code = code_of(&std::fs::read_to_string(f).unwrap());
        let deps = graph.entry(m.clone()).or_default();
        for part in code.split("crate::").skip(1) {
            let name: String = part.chars().take_while(|c| c.is_alphanumeric() || *c == '_').collect();
            if name != m && !name.is_empty() && name.chars().next().unwrap().is_lowercase() {
                deps.insert(name);
            }
        }
    }
    // `protocols` is the home of every algorithm: its submodules may depend on the layers above,
    // and `registry` on it. Find a cycle by depth-first search.
    fn visit(n: &str, g: &BTreeMap<String, BTreeSet<String>>, stack: &mut Vec<String>, done: &mut BTreeSet<String>) {
        if done.contains(n) {
            return;
        }
        if let Some(at) = stack.iter().position(|s| s == n) {
            panic!("import circle: {} -> {n}", stack[at..].join(" -> "));
        }
        stack.push(n.to_string());
        for d in g.get(n).into_iter().flatten() {
            visit(d, g, stack, done);
        }
        stack.pop();
        done.insert(n.to_string());
    }
    let mut done = BTreeSet::new();
    for n in graph.keys() {
        visit(n, &graph, &mut Vec::new(), &mut done);
    }
    assert!(graph.contains_key("scenario") && graph.contains_key("engine"), "the scan found the modules");
    assert!(
        !graph["scenario"].contains("engine") && !graph["scenario"].contains("protocols"),
        "the format knows no protocol"
    );
}

/// No file outside `crate/src/protocols` names an algorithm id as a string (a `match` on the
/// algorithm would have to): the registry's descriptors carry everything.
#[test]
fn no_code_outside_the_protocols_names_an_algorithm() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).parent().unwrap().to_path_buf();
    let mut files = Vec::new();
    rust_files(&root.join("crate/src"), &mut files);
    rust_files(&root.join("www/src"), &mut files);
    let protocols = root.join("crate/src/protocols");
    // A `tests.rs` file is a test module (`#[cfg(test)] mod tests;`), exempt like inline tests.
    for f in files.iter().filter(|f| !f.starts_with(&protocols) && !f.ends_with("tests.rs")) {
        let code = code_of(&std::fs::read_to_string(f).unwrap());
        for a in election_lab::registry::all() {
            let quoted = format!("\"{}\"", a.id);
            assert!(!code.contains(&quoted), "{} names the algorithm {quoted}; read the registry instead", f.display());
        }
        assert!(!code.contains("Algorithm::Bully") && !code.contains("Algorithm::Raft"), "{}", f.display());
    }
}
