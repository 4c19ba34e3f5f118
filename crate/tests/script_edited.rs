//! An edited script hashes the same natively and in the page: the Bully template with one rule
//! changed (`tests/data/scripts/edited_bully.rhai`) is run on every Bully preset, and each trace
//! hash must be the one pinned in `edited_bully.hash` — the file the browser test
//! (`www/tests/script_web.rs`) reads too, so the two cannot drift apart.
#![cfg(feature = "script")]

use election_lab::protocols::script;
use election_lab::{registry, Engine};

const EDITED: &str = include_str!("data/scripts/edited_bully.rhai");
const PINNED: &str = include_str!("data/scripts/edited_bully.hash");

/// `(preset, hash)` of each line `preset hash` of the pinned file.
fn pinned() -> Vec<(&'static str, &'static str)> {
    PINNED.lines().filter_map(|l| l.split_once(' ')).collect()
}

#[test]
fn the_edited_script_hashes_as_pinned_on_every_bully_preset() {
    let edited = script::load(EDITED).unwrap_or_else(|e| panic!("edited_bully.rhai: {e}"));
    let mut got = Vec::new();
    for preset in registry::find("bully").unwrap().presets {
        let mut s = preset.scenario();
        s.algorithm = edited.id.to_string();
        let mut e = Engine::new(s).unwrap();
        e.run_to_end();
        assert_eq!(e.halted(), None, "{}", preset.id);
        got.push((preset.id, format!("{:016x}", e.trace_hash()), preset.golden));
    }
    let lines: Vec<String> = got.iter().map(|(p, h, _)| format!("{p} {h}")).collect();
    let want: Vec<String> = pinned().iter().map(|(p, h)| format!("{p} {h}")).collect();
    assert_eq!(lines, want, "edited_bully.hash is out of date: it should read\n{}", lines.join("\n"));
    // The edit changes behaviour: where a new leader has higher (crashed) ids to announce itself
    // to, the run differs from the template's, whose hash is the built-in's golden one.
    let worst = got.iter().find(|g| g.0 == "bully-worst-8").expect("the worst case");
    assert_ne!(worst.1, worst.2, "the edited rule changes the worst case's run");
}
