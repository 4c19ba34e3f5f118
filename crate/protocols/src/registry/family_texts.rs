//! The texts of a family build (`cargo test -p election-lab-protocols --features family-bully`;
//! without a family feature, of the build holding every family): every text its algorithms
//! show is compiled in, and the other families' texts are not (see the core's `build.rs`).

use super::{directory, ALGORITHMS, FAMILY, RECORDED};
use crate::family::family_of_key;
use crate::meta::{k, Lang, Text, NOT_IN_PLAYER};
use crate::Engine;

/// Fails naming `what` when `text` is empty or reads as the marker of a text left out.
fn shown(text: &str, what: &dyn std::fmt::Display) {
    assert!(!text.trim().is_empty(), "{what}: an empty text");
    assert!(!text.contains(NOT_IN_PLAYER), "{what}: a text this build left out: {text:?}");
}

/// What the player shows of an algorithm it holds: its descriptor's texts, and for each preset
/// run to the end, every step's narration and log line and the inspector's labels.
#[test]
fn every_text_of_the_builds_algorithms_is_in_it() {
    for a in ALGORITHMS.iter().chain(RECORDED) {
        let mut texts = vec![a.title, a.summary, a.card];
        texts.extend(a.kinds.iter().map(|x| x.explain));
        texts.extend(a.roles.iter().map(|r| r.explain));
        texts.extend(a.formulas.iter().map(|f| f.applies));
        texts.extend(a.properties.iter().flat_map(|p| [p.title, p.explain]));
        texts.extend(a.presets.iter().flat_map(|p| [p.title, p.hint]));
        for t in texts {
            shown(t.get(Lang::En), &format_args!("{} ({})", a.id, t.key()));
        }
        for p in a.presets {
            let mut e = Engine::new(p.scenario()).unwrap_or_else(|err| panic!("{}: {err}", p.id));
            e.run_to_end();
            let nodes: Vec<_> = e.scenario().nodes.clone();
            for s in 1..=e.cursor() {
                let at = format_args!("{} step {s}", p.id).to_string();
                shown(&e.narrate(s, Lang::En).unwrap_or_default(), &at);
                shown(&e.step_info_in(s, Lang::En).map(|i| i.text).unwrap_or_default(), &at);
                if let Some(said) = e.narrate_interventions(s, Lang::En) {
                    shown(&said, &at);
                }
                e.seek(s);
                for n in &nodes {
                    let view = e.node_view(*n).expect("a node of the scenario");
                    for word in view.term_word.iter().chain(&view.tally_word) {
                        shown(word.get(Lang::En), &at);
                    }
                    for f in e.inspect(*n) {
                        shown(f.label.get(Lang::En), &format_args!("{at}, N{n}'s {}", f.id));
                        assert!(!f.shown().contains(NOT_IN_PLAYER), "{at}, N{n}'s {}: {}", f.id, f.shown());
                    }
                }
            }
        }
    }
}

/// A key's English is in the build when no family owns it or the build holds its family; the
/// directory's titles are in every build; another family's text reads as the marker.
#[test]
fn the_other_families_texts_are_left_out() {
    let en: serde_json::Map<String, serde_json::Value> =
        serde_json::from_str(include_str!("../../../i18n/en.json")).expect("the English catalog");
    let list = include_str!("../../../i18n/workbench.txt").lines().map(|l| l.split('#').next().unwrap_or("").trim());
    let workbench: Vec<&str> = list.skip_while(|l| *l != "keys:").skip(1).collect();
    let workbench_texts = cfg!(any(feature = "check", feature = "script", feature = "mappings"));
    let mut left_out = 0;
    for key in en.keys().filter(|k| !k.starts_with('@')) {
        let Some(t) = Text::find(key) else {
            left_out += 1;
            let foreign = family_of_key(key).is_some_and(|f| FAMILY.is_some_and(|mine| mine != f));
            assert!(foreign || !workbench_texts && workbench.contains(&key.as_str()), "{key} is left out");
            continue;
        };
        assert_ne!(t.get(Lang::En), NOT_IN_PLAYER, "{key}");
        if let (Some(mine), Some(its)) = (FAMILY, family_of_key(key)) {
            assert_eq!(mine, its, "{key}: another family's text in this build");
        }
    }
    for l in directory() {
        shown(l.title.get(Lang::En), &l.id);
        for p in l.presets {
            shown(p.title.get(Lang::En), &p.id);
        }
    }
    let foreign = [k::RAFT_CARD, k::CHANG_ROBERTS_SUMMARY, k::GOSSIP_CARD];
    let mine = [k::BULLY_CARD, k::INVITATION_SUMMARY, k::BULLY_FAILOVER_CARD];
    match FAMILY {
        Some("bully") => {
            assert!(left_out > 500, "only {left_out} keys left out of the Bully family's build");
            assert!(foreign.iter().all(|t| t.get(Lang::En) == NOT_IN_PLAYER && t.key().is_empty()));
            assert!(mine.iter().all(|t| t.get(Lang::En) != NOT_IN_PLAYER));
        }
        None => assert!(foreign.iter().chain(&mine).all(|t| t.get(Lang::En) != NOT_IN_PLAYER)),
        Some(other) => panic!("no expectations written for the family {other}"),
    }
}
