//! What the state derives: node positions, lines as of the cursor,
//! the drops of the current tick.

use crate::geometry::Line;
use crate::i18n::tr;
use election_lab::meta::{k, Lang};
use election_lab::{Action as Intervention, Engine};

/// A message dropped during the cursor's tick: (from, to, kind).
/// A message dropped this tick: (from, to, kind, why).
pub type DropMark = (u32, u32, &'static str, Option<election_lab::sim::DropReason>);

pub use crate::placement::positions;

/// Lines drawn by the user, as of `cursor`: those of the last partition intervention.
pub fn lines_at(interventions: &[election_lab::Intervention], cursor: u64) -> Vec<Line> {
    let mut lines = Vec::new();
    for iv in interventions {
        if iv.step > cursor {
            break;
        }
        match &iv.action {
            Intervention::Partition { lines: l, .. } => lines = l.clone(),
            Intervention::Heal => lines.clear(),
            _ => {}
        }
    }
    lines
}

/// Drops that happened at the cursor's tick, up to the cursor.
pub(super) fn recent_drops(engine: &Engine) -> Vec<DropMark> {
    let mut out = Vec::new();
    let now = engine.now();
    let mut step = engine.cursor();
    while step > 0 {
        let Some(info) = engine.step_info(step) else { break };
        if info.time != now {
            break;
        }
        if info.event == "drop" {
            if let (Some(peer), Some(kind)) = (info.peer, info.kind) {
                let why = match engine.record(step).map(|r| r.kind) {
                    Some(election_lab::sim::EventKind::Drop(r)) => Some(r),
                    _ => None,
                };
                out.push((peer, info.node, kind, why));
            }
        }
        step -= 1;
        if out.len() > 200 {
            break;
        }
    }
    out
}

/// The cursor's step in plain words: the step's own sentence, then what was done at it (a crash,
/// a line, ...); before the first step, how to begin (by tap or by key).
pub(super) fn narration(engine: &Engine, cursor: u64, lang: Lang, touch: bool) -> String {
    let step_text = match cursor {
        0 => None,
        c => engine.narrate(c, lang),
    };
    match (step_text, engine.narrate_interventions(cursor, lang)) {
        (Some(a), Some(b)) => format!("{a}{}{b}", if lang == Lang::Zh { "" } else { " " }),
        (Some(a), None) => a,
        (None, Some(b)) => b,
        (None, None) if touch => tr(lang, k::UI_NOTHING_HAS_HAPPENED_YET_TAP_2).to_string(),
        (None, None) => tr(lang, k::UI_NOTHING_HAS_HAPPENED_YET_PRESS_2).to_string(),
    }
}

/// A property's name in `lang` on `algorithm`: the invariants panel's, and the search's
/// findings' (`Finding::name`). The player shows it, so its texts are the player's.
pub fn property_name(algorithm: &str, property: &str, lang: Lang) -> &'static str {
    match election_lab::registry::find(algorithm).and_then(|a| a.property(property)) {
        Some(p) => p.title.get(lang),
        None if property == election_lab::meta::SPLIT_BRAIN => tr(lang, k::UI_TWO_LEADERS_AT_ONCE),
        None => tr(lang, k::UI_THIS_PROPERTY),
    }
}
