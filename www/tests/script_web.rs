//! Browser test (wasm-bindgen-test in headless Chromium): the scripted templates, interpreted in
//! wasm, replay every preset of their built-in counterparts to the same golden trace hashes the
//! native suite checks (`crate/tests/script.rs`), so a script runs the same in the page.
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
