//! The guide's chapter "Adding an algorithm", section "In a crate of your own", followed
//! literally: its three files (the blocks marked `<!-- crate file: PATH -->`) are written into a
//! crate beside the repository (a temporary directory holding the crate and a link
//! `election-lab` to this repository, as the chapter lays them out), the lab's lockfile is copied
//! in as the chapter says, and `cargo test --offline` must build it and pass the conformance
//! suite. Then the rule the chapter breaks is broken, and the suite must fail with the lines the
//! chapter shows.
//!
//! The crate builds in `add-algorithm/` under this workspace's target directory, so that a
//! second run (and CI's cache) rebuilds only the toy.
#![cfg(unix)]

#[path = "common/markdown.rs"]
mod markdown;

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).parent().unwrap().to_path_buf()
}

fn chapter() -> String {
    let path = root().join("docs/guide/src/add-algorithm.md");
    std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

/// The chapter's crate files (path, text) in order, and its `text` blocks.
fn blocks(markdown: &str) -> (Vec<(String, String)>, Vec<String>) {
    let (mut files, mut texts) = (Vec::new(), Vec::new());
    for block in markdown::blocks(markdown, "crate file:") {
        match block.file {
            Some(name) => files.push((name, block.body)),
            None if block.info == "text" => texts.push(block.body),
            None => {}
        }
    }
    (files, texts)
}

/// This workspace's target directory: the test binary runs from `<target>/debug/deps/`.
fn target_dir() -> PathBuf {
    let exe = std::env::current_exe().unwrap();
    exe.ancestors().nth(3).expect("the test binary lies in <target>/<profile>/deps").to_path_buf()
}

fn cargo_test(dir: &Path) -> Output {
    Command::new(std::env::var("CARGO").unwrap_or_else(|_| "cargo".into()))
        .args(["test", "--offline"])
        .current_dir(dir)
        .env("CARGO_TARGET_DIR", target_dir().join("add-algorithm"))
        .env_remove("CONFORMANCE_ONLY")
        .output()
        .unwrap()
}

fn text(out: &Output) -> String {
    format!("{}\n{}", String::from_utf8_lossy(&out.stdout), String::from_utf8_lossy(&out.stderr))
}

/// The rule the chapter breaks, as its `src/lib.rs` writes it, and as the chapter breaks it.
const RULE: &str = "if s.heard.len() + 1 == ctx.cfg.n() && highest < ctx.me {";
const BROKEN: &str = "if highest < ctx.me {";

#[test]
fn the_chapters_crate_passes_the_conformance_suite_and_its_broken_copy_fails_by_name() {
    let markdown = chapter();
    let (files, texts) = blocks(&markdown);
    let names: Vec<&str> = files.iter().map(|f| f.0.as_str()).collect();
    assert_eq!(names, ["Cargo.toml", "src/lib.rs", "tests/conformance.rs"], "the chapter's crate files");
    assert!(markdown.contains(&format!("`{BROKEN}`")), "the chapter says how it breaks the rule");

    // One directory per clone of the lab, the same on every run: the lab's crates are built at
    // the same paths each time, so a second run rebuilds only the toy.
    let clone = election_lab::fnv::fnv1a_64(root().to_string_lossy().as_bytes());
    let base = std::env::temp_dir().join(format!("election-lab-add-algorithm-{clone:016x}"));
    let _ = std::fs::remove_dir_all(&base);
    let krate = base.join("highest-wins");
    std::fs::create_dir_all(&krate).unwrap();
    std::os::unix::fs::symlink(root(), base.join("election-lab")).unwrap();
    for (name, body) in &files {
        let path = krate.join(name);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, body).unwrap();
    }
    // `cp ../election-lab/Cargo.lock .`
    std::fs::copy(base.join("election-lab/Cargo.lock"), krate.join("Cargo.lock")).unwrap();

    let out = cargo_test(&krate);
    let shown = text(&out);
    assert!(out.status.success(), "the chapter's crate fails its tests:\n{shown}");
    assert!(shown.contains("test highest_wins_passes_the_conformance_suite ... ok"), "{shown}");

    // The broken copy: a node leads as soon as every id it has heard is lower.
    let lib = &files[1].1;
    assert_eq!(lib.matches(RULE).count(), 1, "the chapter's src/lib.rs has the rule it breaks once");
    std::fs::write(krate.join("src/lib.rs"), lib.replace(RULE, BROKEN)).unwrap();
    let out = cargo_test(&krate);
    let shown = text(&out);
    assert!(!out.status.success(), "the broken copy passes the suite:\n{shown}");
    let failure = texts.iter().find(|t| t.contains("[chaos-sweep]")).expect("the chapter shows the failure");
    for line in failure.lines() {
        assert!(shown.contains(line), "the broken copy's failure lacks the chapter's line {line:?}:\n{shown}");
    }
    let _ = std::fs::remove_dir_all(&base);
}
