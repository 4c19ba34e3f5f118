//! Finds Stateright's own Raft example (`examples/raft.rs` of the fetched crate, which Cargo
//! has unpacked under `$CARGO_HOME/registry/src`) and writes it to `OUT_DIR` without its `main`
//! (the command line, whose crates are the example's own dev-dependencies): the benchmark
//! includes the rest, the model, as it ships. No Stateright code is kept in this repository.

use std::path::{Path, PathBuf};

fn find(registry: &Path) -> Option<PathBuf> {
    let mut found = Vec::new();
    for index in std::fs::read_dir(registry).ok()?.flatten() {
        for package in std::fs::read_dir(index.path()).ok()?.flatten() {
            let name = package.file_name().to_string_lossy().to_string();
            if name.starts_with("stateright-0.31.") {
                found.push(package.path().join("examples/raft.rs"));
            }
        }
    }
    found.sort();
    found.into_iter().rev().find(|p| p.is_file())
}

fn main() {
    let home = std::env::var_os("CARGO_HOME")
        .map(PathBuf::from)
        .or_else(|| std::env::var_os("HOME").map(|h| PathBuf::from(h).join(".cargo")))
        .expect("CARGO_HOME or HOME");
    let out = PathBuf::from(std::env::var_os("OUT_DIR").expect("OUT_DIR")).join("raft.rs");
    let text = match find(&home.join("registry/src")) {
        Some(path) => {
            println!("cargo:rerun-if-changed={}", path.display());
            let text = std::fs::read_to_string(&path).expect("the example reads");
            // The model is everything before the command line.
            let cut = text.find("\nfn main(").expect("the example has a main");
            text[..cut].to_string()
        }
        None => panic!(
            "Stateright 0.31's source is not under {}: run `cargo fetch` in bench/stateright (make bench-stateright does)",
            home.join("registry/src").display()
        ),
    };
    std::fs::write(out, text).expect("OUT_DIR is writable");
}
