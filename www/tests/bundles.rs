//! index.html's table of bundles (`#election-lab-bundles`: which player of one family shows which
//! algorithm and preset, read by the page's chooser before any wasm is fetched) against the
//! engine's directory: every algorithm and preset of a family with a player is in that player's
//! row, no other is, and the default page opens in the player of the default preset's family.
//! A row that drifts from the registry would open a link in a player that cannot show it (it
//! would then hand it on, one load later) or never in the small one.

use election_lab::registry::{directory, family_of_preset};
use serde_json::Value;
use std::collections::BTreeSet;

fn page() -> String {
    std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/../index.html")).expect("index.html")
}

/// The table of bundles of `html`: family id → its row.
fn table(html: &str) -> Result<serde_json::Map<String, Value>, String> {
    let open = r#"<script type="application/json" id="election-lab-bundles">"#;
    let start = html.find(open).ok_or("index.html has no table of bundles")? + open.len();
    let end = start + html[start..].find("</script>").ok_or("the table of bundles has no end")?;
    match serde_json::from_str(&html[start..end]).map_err(|e| format!("the table of bundles is not JSON: {e}"))? {
        Value::Object(rows) => Ok(rows),
        other => Err(format!("the table of bundles is not an object: {other}")),
    }
}

fn ids(row: &Value, field: &str) -> Result<BTreeSet<String>, String> {
    let list = row.get(field).and_then(Value::as_array).ok_or(format!("a row without {field}"))?;
    list.iter().map(|v| v.as_str().map(str::to_string).ok_or(format!("{field}: {v} is no id"))).collect()
}

/// What is wrong with the table of bundles of `html`, if anything.
fn check(html: &str) -> Result<(), String> {
    let rows = table(html)?;
    if rows.is_empty() {
        return Err("the table of bundles names no player of one family".into());
    }
    for (family, row) in &rows {
        let listed: Vec<_> = directory().iter().filter(|l| l.family == family.as_str()).collect();
        if listed.is_empty() {
            return Err(format!("bundle '{family}' is no family of the directory"));
        }
        let algorithms: BTreeSet<String> = listed.iter().map(|l| l.id.to_string()).collect();
        let presets: BTreeSet<String> =
            listed.iter().flat_map(|l| l.presets.iter().map(|p| p.id.to_string())).collect();
        for (field, want) in [("algorithms", algorithms), ("presets", presets)] {
            let have = ids(row, field)?;
            if have != want {
                let missing: Vec<_> = want.difference(&have).collect();
                let foreign: Vec<_> = have.difference(&want).collect();
                return Err(format!("bundle '{family}': {field} missing {missing:?}, not of its family {foreign:?}"));
            }
        }
        // Its build: a Trunk link with the family's feature, and the loader's files.
        if !html.contains(&format!(r#"data-cargo-features="family-{family}""#)) {
            return Err(format!("no Trunk build of bundle '{family}'"));
        }
        if !html.contains(&format!("{family}: ['election-lab-{family}.js', 'election-lab-{family}_bg.wasm']")) {
            return Err(format!("the loader has no files of bundle '{family}'"));
        }
    }
    let defaults: Vec<_> = rows.iter().filter(|(_, r)| r.get("default") == Some(&Value::Bool(true))).collect();
    let want = family_of_preset(election_lab::presets::DEFAULT).ok_or("the default preset has no family")?;
    match defaults.as_slice() {
        [(family, _)] if family.as_str() == want => Ok(()),
        _ => Err(format!("one bundle, '{want}' (the default preset's), must open a page that names no scenario")),
    }
}

#[test]
fn every_algorithm_and_preset_is_in_its_familys_bundle_and_no_other() {
    check(&page()).unwrap();
}

/// The check fails on a table that drifted from the directory.
#[test]
fn a_table_that_drifted_is_caught() {
    let html = page();
    let dropped = html.replacen(r#""bully-heartbeats", "#, "", 1);
    assert!(check(&dropped).unwrap_err().contains(r#"presets missing ["bully-heartbeats"]"#));
    let moved = html.replacen(r#""algorithms": ["bully", "#, r#""algorithms": ["raft", "bully", "#, 1);
    assert!(check(&moved).unwrap_err().contains(r#"not of its family ["raft"]"#));
    let no_default = html.replacen(r#""default": true,"#, "", 1);
    assert!(check(&no_default).unwrap_err().contains("must open a page that names no scenario"));
}
