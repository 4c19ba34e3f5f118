//! Presets: ready scenarios declared by each algorithm (see [`crate::meta::Preset`]), looked up
//! here by id for the UI's picker, the CLI (`election-lab preset NAME`) and the tests.

use crate::algorithm::Algorithm;
pub use crate::meta::Preset;
use crate::registry;

/// The preset a fresh page opens.
pub const DEFAULT: &str = "bully-heartbeats";

/// Every preset, grouped by algorithm in registry order.
pub fn all() -> impl Iterator<Item = &'static Preset> {
    registry::presets().map(|(_, p)| p)
}

pub fn find(id: &str) -> Option<&'static Preset> {
    all().find(|p| p.id == id)
}

/// The algorithm a preset belongs to.
pub fn algorithm_of(id: &str) -> Option<&'static Algorithm> {
    registry::presets().find(|(_, p)| p.id == id).map(|(a, _)| a)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_preset_parses_and_belongs_to_its_algorithm() {
        for (a, p) in registry::presets() {
            assert_eq!(p.scenario().algorithm, a.id, "preset {} is declared by {}", p.id, a.id);
            (a.build)(&p.scenario(), a.properties).unwrap_or_else(|e| panic!("preset {}: {e}", p.id));
        }
        assert!(find(DEFAULT).is_some());
    }
}
