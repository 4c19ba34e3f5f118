//! Tells the crate which families of algorithms this build holds (see the core's `family.rs`,
//! included here): `cfg(holds = "rings")` for each, every family without a family feature, the
//! feature's own with one (`family-bully`), and then `cfg(family_build)` too. An algorithm's own unit tests are compiled where its
//! family is held: a family build has neither the other families' machines in its registry nor
//! their texts.

#[allow(dead_code)]
#[path = "../core/src/family.rs"]
mod family;

fn main() {
    println!("cargo:rerun-if-changed=../core/src/family.rs");
    println!("cargo:rerun-if-changed=build.rs");
    let ids: Vec<&str> = family::FAMILIES.iter().map(|f| f.id).collect();
    let values: Vec<String> = ids.iter().map(|id| format!("{id:?}")).collect();
    println!("cargo:rustc-check-cfg=cfg(holds, values({}))", values.join(", "));
    println!("cargo:rustc-check-cfg=cfg(family_build)");
    let chosen: Vec<&str> = ids.iter().copied().filter(|id| feature_on(id)).collect();
    assert!(chosen.len() <= 1, "one family feature at a time, not {}", chosen.join(" and "));
    if !chosen.is_empty() {
        println!("cargo:rustc-cfg=family_build");
    }
    for id in if chosen.is_empty() { &ids } else { &chosen } {
        println!("cargo:rustc-cfg=holds={id:?}");
    }
}

/// Whether the feature `family-<id>` is on (Cargo says so as `CARGO_FEATURE_FAMILY_<ID>`).
fn feature_on(id: &str) -> bool {
    let var = format!("CARGO_FEATURE_FAMILY_{}", id.to_ascii_uppercase().replace('-', "_"));
    std::env::var_os(var).is_some()
}
