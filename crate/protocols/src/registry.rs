//! Looking algorithms up. The list itself is [`crate::protocols::ALGORITHMS`]: adding an
//! algorithm is its own module plus one line there; nothing else in the engine, CLI, UI or tests
//! names an algorithm.

use crate::algorithm::Algorithm;
use crate::error::ScenarioError;
use crate::meta::Preset;
pub use crate::protocols::{ALGORITHMS, RECORDED};

/// The algorithms offered for simulation (the picker, experiments, sweeps).
pub fn all() -> &'static [&'static Algorithm] {
    ALGORITHMS
}

/// Recorded runs of real clusters (see [`crate::protocols::recorded`]): found by id and run
/// like any algorithm, but not offered for simulation.
pub fn recorded() -> &'static [&'static Algorithm] {
    RECORDED
}

/// Whether `id` is a recorded run's algorithm.
pub fn is_recorded(id: &str) -> bool {
    RECORDED.iter().any(|a| a.id == id)
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
    use crate::meta::Lang;
    use std::collections::BTreeSet;

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
