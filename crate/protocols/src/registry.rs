//! Looking algorithms up. The list itself is [`crate::protocols::ALGORITHMS`]: adding an
//! algorithm is its own module plus one line there (and its line in the [`directory`] and its
//! family); nothing else in the engine, CLI, UI or tests names an algorithm. A family build
//! (`family-bully`) holds only its [`FAMILY`]'s algorithms; the [`directory`] lists them all.

use crate::algorithm::Algorithm;
use crate::error::ScenarioError;
pub use crate::family::FAMILY;
use crate::meta::Preset;
pub use crate::protocols::{ALGORITHMS, RECORDED};
pub use directory::{directory, family_of, family_of_preset, Listing, PresetListing};

mod directory;

/// The algorithms offered for simulation (the picker, experiments, sweeps).
pub fn all() -> &'static [&'static Algorithm] {
    ALGORITHMS
}

/// Recorded runs of real clusters (see [`crate::protocols::recorded`]): found by id and run
/// like any algorithm, but not offered for simulation.
pub fn recorded() -> &'static [&'static Algorithm] {
    RECORDED
}

/// Whether `id` is a recorded run's algorithm (in any build, held or not).
pub fn is_recorded(id: &str) -> bool {
    directory().iter().any(|l| l.recorded && l.id == id)
}

/// The algorithm `id`: a built-in one, a recorded run's, (with the `node-cmd` feature) the one
/// launched node processes declared, or (with the `script` feature) a scripted algorithm loaded
/// by [`crate::protocols::script::load`].
pub fn find(id: &str) -> Option<&'static Algorithm> {
    let found = ALGORITHMS.iter().chain(RECORDED).copied().find(|a| a.id == id);
    #[cfg(all(feature = "node-cmd", not(target_arch = "wasm32")))]
    let found = found.or_else(|| crate::protocols::process::find(id).map(|c| c.algorithm));
    #[cfg(feature = "script")]
    let found = found.or_else(|| crate::protocols::script::find(id).map(|l| l.algorithm));
    found
}

/// [`find`], or an error naming the known ids.
pub fn find_or_err(id: &str) -> Result<&'static Algorithm, ScenarioError> {
    find(id).ok_or_else(|| {
        let ids: Vec<&str> = ALGORITHMS.iter().map(|a| a.id).collect();
        ScenarioError::new("algorithm", format!("unknown algorithm '{id}' (expected one of: {})", ids.join(", ")))
    })
}

/// Every preset of every algorithm (recorded runs' last), with its algorithm.
pub fn presets() -> impl Iterator<Item = (&'static Algorithm, &'static Preset)> {
    ALGORITHMS.iter().chain(RECORDED).copied().flat_map(|a| a.presets.iter().map(move |p| (a, p)))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::family::FAMILIES;
    use crate::meta::Lang;
    use std::collections::BTreeSet;

    /// The directory is a table of its own (see `directory.rs`): it must say what the
    /// descriptors say, algorithm by algorithm and preset by preset.
    #[cfg(not(feature = "family-bully"))]
    #[test]
    fn the_directory_lists_the_registry() {
        let listed: Vec<_> = directory().iter().map(|l| (l.id, l.title, l.recorded)).collect();
        let registered: Vec<_> =
            ALGORITHMS.iter().map(|a| (a, false)).chain(RECORDED.iter().map(|a| (a, true))).collect();
        assert_eq!(listed, registered.iter().map(|(a, r)| (a.id, a.title, *r)).collect::<Vec<_>>());
        for (l, (a, _)) in directory().iter().zip(&registered) {
            let presets: Vec<_> = l.presets.iter().map(|p| (p.id, p.title)).collect();
            assert_eq!(presets, a.presets.iter().map(|p| (p.id, p.title)).collect::<Vec<_>>(), "{}", a.id);
            assert_eq!(family_of(a.id), Some(l.family));
            for p in a.presets {
                assert_eq!(family_of_preset(p.id), Some(l.family), "{}", p.id);
            }
        }
        assert_eq!(FAMILY, None, "a build without a family feature holds every family");
    }

    /// Every algorithm of the directory is in exactly one family, and every family's
    /// algorithms are in the directory.
    #[test]
    fn every_algorithm_is_in_one_family() {
        let mut families: Vec<&str> = FAMILIES.iter().flat_map(|f| f.algorithms.iter().copied()).collect();
        let mut listed: Vec<&str> = directory().iter().map(|l| l.id).collect();
        families.sort_unstable();
        listed.sort_unstable();
        assert_eq!(families, listed);
        for l in directory() {
            let of: Vec<_> = FAMILIES.iter().filter(|f| f.algorithms.contains(&l.id)).map(|f| f.id).collect();
            assert_eq!(of, [l.family], "{}", l.id);
        }
        assert_eq!((family_of("no-such"), family_of_preset("no-such")), (None, None));
    }

    /// A family build's registry holds exactly its family's algorithms, in directory order, and
    /// a scenario of another family's algorithm is refused as unknown.
    #[test]
    fn the_registry_holds_the_builds_family() {
        let held: Vec<&str> = ALGORITHMS.iter().chain(RECORDED).map(|a| a.id).collect();
        let expected: Vec<&str> =
            directory().iter().filter(|l| FAMILY.is_none_or(|f| f == l.family)).map(|l| l.id).collect();
        assert_eq!(held, expected);
        for l in directory() {
            let found = find(l.id).is_some();
            assert_eq!(found, FAMILY.is_none_or(|f| f == l.family), "{}", l.id);
            for p in l.presets {
                assert_eq!(crate::presets::find(p.id).is_some(), found, "{}", p.id);
            }
        }
        if let Some(family) = FAMILY {
            let mine = &FAMILIES.iter().find(|f| f.id == family).expect("the build's family is listed").algorithms;
            assert_eq!(ALGORITHMS.iter().map(|a| a.id).collect::<Vec<_>>(), **mine);
            let foreign = directory().iter().find(|l| l.family != family).expect("another family");
            let scenario =
                crate::Scenario::from_value(&serde_json::json!({"algorithm": foreign.id, "nodes": [1, 2, 3]}));
            let err = crate::Engine::new(scenario.expect("a scenario")).expect_err("a foreign algorithm");
            assert!(err.to_string().contains("unknown algorithm"), "{err}");
        }
    }

    #[test]
    fn ids_kinds_roles_properties_and_presets_are_unique() {
        let mut ids = BTreeSet::new();
        let mut preset_ids = BTreeSet::new();
        for a in ALGORITHMS.iter().chain(RECORDED) {
            assert!(ids.insert(a.id), "algorithm id {} twice", a.id);
            assert!(!a.citation.is_empty(), "{}", a.id);
            let mut texts = vec![("title", a.title), ("summary", a.summary), ("card", a.card)];
            texts.extend(a.kinds.iter().map(|k| ("kind", k.explain)));
            texts.extend(a.roles.iter().map(|r| ("role", r.explain)));
            texts.extend(a.formulas.iter().map(|f| ("formula", f.applies)));
            texts.extend(a.properties.iter().flat_map(|p| [("property", p.title), ("property", p.explain)]));
            texts.extend(a.presets.iter().flat_map(|p| [("preset", p.title), ("preset", p.hint)]));
            for (what, t) in texts {
                assert!(!t.get(Lang::En).trim().is_empty(), "{}: an empty English {what}", a.id);
                assert!(
                    t.get(Lang::Zh).chars().any(|c| ('\u{4e00}'..='\u{9fff}').contains(&c)),
                    "{}: the Chinese {what} ({}) has no Chinese: {:?}",
                    a.id,
                    t.key(),
                    t.get(Lang::Zh)
                );
            }
            let kinds: BTreeSet<_> = a.kinds.iter().map(|k| k.name).collect();
            assert_eq!(kinds.len(), a.kinds.len(), "{}: a kind twice", a.id);
            assert!(
                a.kinds.iter().all(|k| !k.short.is_empty() && k.short.chars().count() <= 3),
                "{}: short labels",
                a.id
            );
            let props: BTreeSet<_> = a.properties.iter().map(|p| p.id).collect();
            assert_eq!(props.len(), a.properties.len(), "{}: a property twice", a.id);
            for f in a.formulas {
                for k in f.counts {
                    assert!(kinds.contains(k), "{}: formula {} counts unknown kind {k}", a.id, f.name);
                }
            }
            assert!(!a.presets.is_empty(), "{} has no preset", a.id);
            for p in a.presets {
                assert!(preset_ids.insert(p.id), "preset id {} twice", p.id);
            }
        }
    }
}
