//! Browser test (wasm-bindgen-test in headless Chromium): the scripted templates, interpreted in
//! wasm, replay every preset of their built-in counterparts to the same golden trace hashes the
//! native suite checks (`crate/tests/script.rs`), so a script runs the same in the page; and an
//! edited script hashes as its native test pins it (`crate/tests/script_edited.rs`).
#![cfg(target_arch = "wasm32")]

use election_lab::protocols::script;
use election_lab::{registry, Engine};
use wasm_bindgen_test::*;

wasm_bindgen_test_configure!(run_in_browser);

fn replays_to_golden(builtin: &str, source: &str) {
    let scripted = script::load(source).unwrap_or_else(|e| panic!("{builtin} template: {e}"));
    for preset in registry::find(builtin).unwrap().presets {
        let mut s = preset.scenario();
        s.algorithm = scripted.id.to_string();
        let mut e = Engine::new(s).unwrap();
        e.run_to_end();
        assert_eq!(e.halted(), None, "{}", preset.id);
        assert_eq!(format!("{:016x}", e.trace_hash()), preset.golden, "{} scripted in wasm", preset.id);
    }
}

#[wasm_bindgen_test]
fn scripted_templates_hash_like_their_builtins() {
    replays_to_golden("bully", include_str!("../../crate/scripts/bully.rhai"));
    replays_to_golden("chang-roberts", include_str!("../../crate/scripts/chang_roberts.rhai"));
    replays_to_golden("raft", include_str!("../../crate/scripts/raft.rhai"));
}

/// An edited template (one rule changed: the new leader announces itself to the higher ids too)
/// hashes in wasm as natively: the pinned hashes are those `crate/tests/script_edited.rs` checks
/// on the same fixture file.
#[wasm_bindgen_test]
fn an_edited_script_hashes_as_natively() {
    let edited = script::load(include_str!("../../crate/tests/data/scripts/edited_bully.rhai")).unwrap();
    let pinned = include_str!("../../crate/tests/data/scripts/edited_bully.hash");
    let mut checked = 0;
    for (preset, hash) in pinned.lines().filter_map(|l| l.split_once(' ')) {
        let mut s = registry::find("bully").unwrap().presets.iter().find(|p| p.id == preset).unwrap().scenario();
        s.algorithm = edited.id.to_string();
        let mut e = Engine::new(s).unwrap();
        e.run_to_end();
        assert_eq!(format!("{:016x}", e.trace_hash()), hash, "{preset}: the edited script in wasm");
        checked += 1;
    }
    assert!(checked >= 5, "every Bully preset is pinned: {checked}");
}
