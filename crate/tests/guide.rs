//! The user guide (`docs/guide/`, an mdBook) and the Markdown beside it stay true:
//!
//! * every chapter in `SUMMARY.md` exists and every chapter file is listed;
//! * every relative link and image resolves — in the guide to a file inside `docs/guide/src/`
//!   (so that the book published under `/guide/` has it too), elsewhere (README, ARCHITECTURE,
//!   `docs/performance.md`) to a file of the repository — and every `#anchor` names a heading of
//!   its target, with mdBook's ids; files the guide includes (`{{#include}}`) have no relative
//!   links, since they would resolve elsewhere in the book;
//! * the README stays short, and its quick start is the two commands;
//! * every ```` ```sh ```` block of the guide runs. The chapters run one after the other, each in
//!   a temporary directory of its own where `crate/` and `experiments/` of the repository are
//!   reachable, with the built `election-lab` first on `PATH`. A block preceded by
//!   `<!-- file: NAME -->` is written to `NAME` instead. In a block whose lines start with `$ `
//!   those lines are the commands (the others are shown output); otherwise every line that is
//!   not a comment is one. A command must exit 0, or the status its comment states
//!   (`# exits 1`). Blocks marked `sh,ignore` (make targets, servers, the real-cluster script)
//!   and `text` blocks (synopses) are not run;
//! * every ```` ```json ```` block of the guide is JSON;
//! * ARCHITECTURE.md, the one module map, lists exactly the modules the two crates declare, and
//!   every file it names exists.

#[path = "common/markdown.rs"]
mod markdown;

use pulldown_cmark::{CodeBlockKind, Event, Parser, Tag, TagEnd};
use std::collections::{BTreeMap, HashSet};
use std::path::{Path, PathBuf};
use std::process::Command;

const BIN: &str = env!("CARGO_BIN_EXE_election-lab");

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).parent().unwrap().to_path_buf()
}

fn src() -> PathBuf {
    root().join("docs/guide/src")
}

fn read(path: &Path) -> String {
    std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

/// A chapter's text as mdBook sees it: `{{#include path}}` replaced by the file.
fn expanded(path: &Path) -> String {
    let text = read(path);
    let mut out = String::new();
    for line in text.lines() {
        match line.trim().strip_prefix("{{#include ").and_then(|l| l.strip_suffix("}}")) {
            Some(inc) => out.push_str(&read(&path.parent().unwrap().join(inc.trim()))),
            None => out.push_str(line),
        }
        out.push('\n');
    }
    out
}

/// The files a chapter includes.
fn includes(path: &Path) -> Vec<PathBuf> {
    read(path)
        .lines()
        .filter_map(|l| l.trim().strip_prefix("{{#include ").and_then(|l| l.strip_suffix("}}")))
        .map(|inc| path.parent().unwrap().join(inc.trim()))
        .collect()
}

/// mdBook's heading id: lower case, alphanumerics, `_` and `-` kept, white space to `-`, the
/// rest dropped; a repeated id gets `-1`, `-2`, ...
fn heading_ids(markdown: &str) -> HashSet<String> {
    let mut ids = HashSet::new();
    let mut text: Option<String> = None;
    for event in Parser::new(markdown) {
        match event {
            Event::Start(Tag::Heading { .. }) => text = Some(String::new()),
            Event::Text(t) | Event::Code(t) => {
                if let Some(s) = text.as_mut() {
                    s.push_str(&t);
                }
            }
            Event::End(TagEnd::Heading(_)) => {
                let content = text.take().unwrap_or_default();
                let id: String = content
                    .trim()
                    .to_lowercase()
                    .chars()
                    .filter_map(|ch| match ch {
                        c if c.is_alphanumeric() || c == '_' || c == '-' => Some(c),
                        c if c.is_whitespace() => Some('-'),
                        _ => None,
                    })
                    .collect();
                let mut unique = id.clone();
                let mut k = 1;
                while !ids.insert(unique.clone()) {
                    unique = format!("{id}-{k}");
                    k += 1;
                }
            }
            _ => {}
        }
    }
    ids
}

/// Every link and image target of a Markdown text.
fn links(markdown: &str) -> Vec<String> {
    Parser::new(markdown)
        .filter_map(|event| match event {
            Event::Start(Tag::Link { dest_url, .. }) | Event::Start(Tag::Image { dest_url, .. }) => {
                Some(dest_url.to_string())
            }
            _ => None,
        })
        .collect()
}

fn is_external(target: &str) -> bool {
    target.contains("://") || target.starts_with("mailto:")
}

/// The problems with one file's links; `inside` is where its targets must stay.
fn check_links(file: &Path, markdown: &str, inside: &Path, problems: &mut Vec<String>) {
    for target in links(markdown) {
        if is_external(&target) {
            continue;
        }
        let (path, anchor) = match target.split_once('#') {
            Some((p, a)) => (p, Some(a)),
            None => (target.as_str(), None),
        };
        let resolved = if path.is_empty() { file.to_path_buf() } else { file.parent().unwrap().join(path) };
        let Ok(canonical) = resolved.canonicalize() else {
            problems.push(format!("{}: link to {target}: no such file", file.display()));
            continue;
        };
        // The guide's own files stay inside its source (a symbolic link into docs/ counts as
        // inside: mdBook copies what it points to).
        let lexical = normalize(&resolved);
        if !lexical.starts_with(inside) {
            problems.push(format!("{}: link to {target} leaves {}", file.display(), inside.display()));
        }
        if let Some(anchor) = anchor {
            let ids = heading_ids(&expanded(&canonical));
            if !ids.contains(anchor) {
                problems.push(format!("{}: link to {target}: no heading with id {anchor:?}", file.display()));
            }
        }
    }
}

/// `a/b/../c` as `a/c`, without following symbolic links.
fn normalize(path: &Path) -> PathBuf {
    let mut out = PathBuf::new();
    for part in path.components() {
        match part {
            std::path::Component::ParentDir => {
                out.pop();
            }
            std::path::Component::CurDir => {}
            p => out.push(p),
        }
    }
    out
}

/// The chapters in SUMMARY.md's order.
fn chapters() -> Vec<PathBuf> {
    links(&read(&src().join("SUMMARY.md"))).iter().map(|l| src().join(l)).collect()
}

#[test]
fn summary_lists_every_chapter_and_only_existing_ones() {
    let listed = chapters();
    for chapter in &listed {
        assert!(chapter.is_file(), "SUMMARY.md lists {}, which does not exist", chapter.display());
    }
    for entry in std::fs::read_dir(src()).unwrap() {
        let path = entry.unwrap().path();
        if path.extension().is_some_and(|e| e == "md") && !path.ends_with("SUMMARY.md") {
            assert!(listed.contains(&path), "{} is not listed in SUMMARY.md", path.display());
        }
    }
    assert!(listed.len() >= 10, "SUMMARY.md lists {} chapters", listed.len());
}

#[test]
fn every_link_and_anchor_resolves() {
    let mut problems = Vec::new();
    let guide = normalize(&src());
    let mut included = Vec::new();
    for chapter in chapters() {
        check_links(&chapter, &read(&chapter), &guide, &mut problems);
        included.extend(includes(&chapter));
    }
    for file in &included {
        for target in links(&read(file)) {
            if !is_external(&target) && !target.starts_with('#') {
                problems.push(format!(
                    "{} is included in the guide: its link to {target} would not resolve there",
                    file.display()
                ));
            }
        }
    }
    let repo = normalize(&root());
    for file in ["README.md", "ARCHITECTURE.md", "docs/performance.md"] {
        let path = root().join(file);
        check_links(&path, &read(&path), &repo, &mut problems);
    }
    assert!(problems.is_empty(), "broken links:\n{}", problems.join("\n"));
}

#[test]
fn readme_is_short_and_its_quick_start_is_two_commands() {
    let readme = read(&root().join("README.md"));
    let lines = readme.lines().count();
    assert!(lines <= 200, "README.md has {lines} lines (at most 200)");
    let quick = readme.split("## Quick start").nth(1).expect("a Quick start section");
    let quick = quick.split("\n## ").next().unwrap();
    let block = quick.split("```sh\n").nth(1).and_then(|b| b.split("```").next()).expect("a sh block");
    let commands: Vec<&str> =
        block.lines().map(|l| l.split('#').next().unwrap().trim()).filter(|l| !l.is_empty()).collect();
    assert_eq!(commands, ["make serve", "make test"], "the quick start's commands");
}

/// One runnable thing of a chapter.
enum Item {
    File(String, String),
    Command(Cmd),
}

/// A chapter's files and commands, in order.
fn items(markdown: &str) -> Vec<Item> {
    let mut out = Vec::new();
    for block in markdown::blocks(markdown, "file:") {
        if let Some(name) = block.file {
            out.push(Item::File(name, block.body));
            continue;
        }
        let mut words = block.info.split([',', ' ']).map(str::trim).filter(|w| !w.is_empty());
        if words.next() != Some("sh") || words.any(|w| w == "ignore") {
            continue;
        }
        out.extend(commands(&block.body).into_iter().map(Item::Command));
    }
    out
}

/// A command of a `sh` block: the line, the exit status it is expected to end with, and in a
/// `$ ` block the output shown under it, when it is shown whole (no `...` or `…` in it).
struct Cmd {
    line: String,
    status: i32,
    output: Option<Vec<String>>,
}

fn commands(body: &str) -> Vec<Cmd> {
    let prompt = body.lines().any(|l| l.starts_with("$ "));
    let mut out: Vec<(String, Vec<String>)> = Vec::new();
    let mut continued = false;
    for raw in body.lines() {
        let line = match (prompt, raw.strip_prefix("$ ")) {
            (false, _) => raw,
            (true, Some(l)) => l,
            (true, None) if continued => raw,
            (true, None) => {
                if let Some((_, shown)) = out.last_mut() {
                    shown.push(raw.to_string());
                }
                continue;
            }
        };
        if line.trim().is_empty() || (!continued && line.trim_start().starts_with('#')) {
            continued = false;
            continue;
        }
        match (continued, out.last_mut()) {
            (true, Some((last, _))) => last.push_str(line),
            _ => out.push((line.to_string(), Vec::new())),
        }
        continued = line.ends_with('\\');
        if continued {
            out.last_mut().unwrap().0.pop();
        }
    }
    out.into_iter()
        .map(|(line, shown)| {
            let status =
                line.rsplit_once("# exits ").and_then(|(_, n)| n.split_whitespace().next()?.parse().ok()).unwrap_or(0);
            let whole = !shown.is_empty() && !shown.iter().any(|l| l.contains("...") || l.contains('…'));
            Cmd { line, status, output: whole.then_some(shown) }
        })
        .collect()
}

#[test]
fn every_command_the_guide_shows_runs() {
    let bin_dir = tempdir("bin");
    std::os::unix::fs::symlink(BIN, bin_dir.join("election-lab")).unwrap();
    let path = format!("{}:{}", bin_dir.display(), std::env::var("PATH").unwrap_or_default());
    let mut ran: BTreeMap<String, usize> = BTreeMap::new();
    let mut failures = Vec::new();
    for chapter in chapters() {
        let name = chapter.file_stem().unwrap().to_string_lossy().to_string();
        let dir = tempdir(&name);
        for repo_dir in ["crate", "experiments"] {
            std::os::unix::fs::symlink(root().join(repo_dir), dir.join(repo_dir)).unwrap();
        }
        for item in items(&read(&chapter)) {
            match item {
                Item::File(file, body) => std::fs::write(dir.join(file), body).unwrap(),
                Item::Command(Cmd { line: command, status: expected, output }) => {
                    *ran.entry(name.clone()).or_default() += 1;
                    let out = Command::new("timeout")
                        .args(["120", "bash", "-o", "pipefail", "-c", &command])
                        .current_dir(&dir)
                        .env("PATH", &path)
                        .output()
                        .unwrap();
                    let status = out.status.code().unwrap_or(-1);
                    if status != expected {
                        failures.push(format!(
                            "{name}.md: `{command}` exited {status}, expected {expected}\n{}",
                            String::from_utf8_lossy(&out.stderr)
                        ));
                    }
                    if let Some(shown) = output {
                        // As a terminal shows them: the progress on standard error comes first.
                        let printed =
                            format!("{}{}", String::from_utf8_lossy(&out.stderr), String::from_utf8_lossy(&out.stdout));
                        let printed: Vec<&str> = printed.lines().collect();
                        if printed != shown {
                            failures.push(format!(
                                "{name}.md: `{command}` printed\n{}\nbut the guide shows\n{}",
                                printed.join("\n"),
                                shown.join("\n")
                            ));
                        }
                    }
                }
            }
        }
        std::fs::remove_dir_all(&dir).unwrap();
    }
    std::fs::remove_dir_all(&bin_dir).unwrap();
    assert!(failures.is_empty(), "{}", failures.join("\n"));
    eprintln!("commands run per chapter: {ran:?}");
    for chapter in ["cli", "debugging", "scenarios", "experiments", "lessons", "real-clusters"] {
        assert!(ran.get(chapter).copied().unwrap_or(0) > 0, "no command of {chapter}.md ran: {ran:?}");
    }
}

fn tempdir(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("election-lab-guide-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// The modules a crate root declares (`mod x;`, `pub mod x;`, `pub(crate) mod x;`).
fn declared_modules(lib: &Path) -> Vec<String> {
    read(lib)
        .lines()
        .filter_map(|l| {
            let l = l.trim_start().trim_start_matches("pub(crate) ").trim_start_matches("pub ");
            l.strip_prefix("mod ")?.strip_suffix(';').map(str::to_string)
        })
        .collect()
}

/// The module names in the first column of the table under `heading` in ARCHITECTURE.md: the
/// backquoted plain identifiers (paths such as `sim/world.rs` are details of a row).
fn mapped_modules(architecture: &str, heading: &str) -> Vec<String> {
    let section = architecture.split(heading).nth(1).unwrap_or_else(|| panic!("no {heading:?} in ARCHITECTURE.md"));
    let section = section.split("\n## ").next().unwrap();
    let mut names = Vec::new();
    for row in section.lines().filter(|l| l.starts_with("| `")) {
        let first = row.split(" | ").next().unwrap();
        for (k, part) in first.split('`').enumerate() {
            if k % 2 == 1
                && !part.is_empty()
                && part.chars().all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '_')
            {
                names.push(part.to_string());
            }
        }
    }
    names
}

fn sorted(mut v: Vec<String>) -> Vec<String> {
    v.sort();
    v.dedup();
    v
}

#[test]
fn architecture_maps_exactly_the_modules_that_exist() {
    let architecture = read(&root().join("ARCHITECTURE.md"));
    // The engine's three crates, each with its own table.
    for (heading, lib) in [
        ("## The core crate", "crate/core/src/lib.rs"),
        ("## The protocols crate", "crate/protocols/src/lib.rs"),
        ("## The tools crate", "crate/src/lib.rs"),
    ] {
        let declared = sorted(declared_modules(&root().join(lib)));
        let mapped = sorted(mapped_modules(&architecture, heading));
        assert_eq!(mapped, declared, "ARCHITECTURE.md's table under {heading:?} against {lib}");
    }
    // The app: its library's modules and its worker binary.
    let mut app = declared_modules(&root().join("www/src/lib.rs"));
    app.push("lab_worker".into());
    let mapped = sorted(mapped_modules(&architecture, "## The app crate"));
    assert_eq!(mapped, sorted(app), "ARCHITECTURE.md's app table against www/src/lib.rs");
    // Every file it names exists somewhere in the crates.
    let mut files = Vec::new();
    for dir in ["crate", "www/src", "www/tests", "scripts"] {
        collect_files(&root().join(dir), &mut files);
    }
    let mut missing = Vec::new();
    for (k, part) in architecture.split('`').enumerate() {
        let named = ["crate/core/src/", "crate/protocols/src/", "crate/src/", "www/src/"]
            .iter()
            .fold(part, |p, prefix| p.trim_start_matches(prefix));
        let is_file = named.ends_with(".rs") || named.ends_with(".js");
        if k % 2 == 1 && is_file && !named.contains(' ') && !files.iter().any(|f| f.ends_with(named)) {
            missing.push(part.to_string());
        }
    }
    assert!(missing.is_empty(), "ARCHITECTURE.md names files that do not exist: {missing:?}");
}

fn collect_files(dir: &Path, out: &mut Vec<PathBuf>) {
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.is_dir() {
            if !path.ends_with("target") {
                collect_files(&path, out);
            }
        } else {
            out.push(path);
        }
    }
}

#[test]
fn every_json_block_of_the_guide_is_json() {
    let mut problems = Vec::new();
    let mut checked = 0;
    for chapter in chapters() {
        let mut block: Option<String> = None;
        for event in Parser::new(&read(&chapter)) {
            match event {
                Event::Start(Tag::CodeBlock(CodeBlockKind::Fenced(info))) if info.split(',').next() == Some("json") => {
                    block = Some(String::new())
                }
                Event::Text(t) => {
                    if let Some(b) = block.as_mut() {
                        b.push_str(&t);
                    }
                }
                Event::End(TagEnd::CodeBlock) => {
                    if let Some(b) = block.take() {
                        checked += 1;
                        if let Err(e) = serde_json::from_str::<serde_json::Value>(&b) {
                            problems.push(format!("{}: a json block: {e}", chapter.display()));
                        }
                    }
                }
                _ => {}
            }
        }
    }
    assert!(problems.is_empty(), "{}", problems.join("\n"));
    assert!(checked >= 3, "{checked} json blocks");
}
