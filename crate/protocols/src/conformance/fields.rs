//! The inspector's fields: every id is stable snake_case, unique among a node's fields, and
//! names one label throughout a run (what breakpoints, the watch, exports and links rely on).

use super::{cases, engine, ensure};
use crate::algorithm::Algorithm;
use crate::field::is_id;
use crate::meta::Text;
use std::collections::BTreeMap;

/// Steps read of each case: enough for every algorithm's presets to elect and fail over.
const STEPS: u64 = 400;

pub(super) fn inspector_fields(a: &'static Algorithm) -> Result<(), String> {
    // id → label, over every case, node and step: an id names one thing.
    let mut named: BTreeMap<String, Text> = BTreeMap::new();
    for (name, s) in cases(a)? {
        let mut e = engine(a, &s)?;
        let ids = e.scenario().nodes.clone();
        for _ in 0..STEPS {
            for &node in &ids {
                let fields = e.inspect(node);
                for (i, f) in fields.iter().enumerate() {
                    ensure!(is_id(&f.id), "{name}: field id '{}' of N{node} is not snake_case", f.id);
                    ensure!(
                        fields[..i].iter().all(|g| g.id != f.id),
                        "{name}: N{node} shows two fields with id '{}'",
                        f.id
                    );
                    let label = *named.entry(f.id.to_string()).or_insert(f.label);
                    ensure!(
                        label == f.label,
                        "{name}: field '{}' is labelled '{}' at N{node} and '{}' elsewhere",
                        f.id,
                        f.label.key(),
                        label.key()
                    );
                }
            }
            if !e.step() {
                break;
            }
        }
    }
    Ok(())
}
