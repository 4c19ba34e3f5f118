//! Tells the crate which families of algorithms this build holds (see `src/family.rs`,
//! included here): `cfg(holds = "rings")` for each, every family without a family feature, the
//! feature's own with one (`family-bully`), and then `cfg(family_build)` too. An algorithm's own unit tests are compiled where its
//! family is held: a family build has neither the other families' machines in its registry nor
//! their texts.

#[allow(dead_code)]
#[path = "src/family.rs"]
mod family;

fn main() {
    println!("cargo:rerun-if-changed=src/family.rs");
    println!("cargo:rerun-if-changed=build.rs");
    let ids: Vec<&str> = family::FAMILIES.iter().map(|f| f.id).collect();
    let values: Vec<String> = ids.iter().map(|id| format!("{id:?}")).collect();
    println!("cargo:rustc-check-cfg=cfg(holds, values({}))", values.join(", "));
    println!("cargo:rustc-check-cfg=cfg(family_build)");
    let chosen = family::of_build_script();
    if chosen.is_some() {
        println!("cargo:rustc-cfg=family_build");
    }
    for id in ids.iter().filter(|id| chosen.is_none_or(|c| c == **id)) {
        println!("cargo:rustc-cfg=holds={id:?}");
    }
}
