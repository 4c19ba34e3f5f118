//! What is drawn agrees with what is said: over every step of every preset, the counters a
//! node's label shows (its tally, with the word naming what it counts) and the counts the
//! narration states for the same node must not contradict each other; and the token ring's
//! holder labels, its token count and its `duplicate-token` monitor tell one story.

use election_lab::meta::Lang;
use election_lab::{registry, Engine};

/// Every "A of B W" or "A of the B W" in `text` (A, B numbers, W the word after them).
fn counts(text: &str) -> Vec<(u32, u32, String)> {
    let words: Vec<String> =
        text.split_whitespace().map(|w| w.trim_matches(|c: char| !c.is_alphanumeric()).to_string()).collect();
    let mut out = Vec::new();
    for i in 1..words.len() {
        if words[i] != "of" {
            continue;
        }
        let Ok(a) = words[i - 1].parse::<u32>() else { continue };
        let j = if words.get(i + 1).is_some_and(|w| w == "the") { i + 2 } else { i + 1 };
        let (Some(b), Some(w)) = (words.get(j).and_then(|w| w.parse::<u32>().ok()), words.get(j + 1)) else { continue };
        out.push((a, b, w.clone()));
    }
    out
}

#[test]
fn the_count_parser_reads_the_narrations_forms() {
    assert_eq!(counts("N3 now holds 3 of the 3 promises a majority needs."), vec![(3, 3, "promises".into())]);
    assert_eq!(counts("With 2 of 3 votes N1 has a majority"), vec![(2, 3, "votes".into())]);
    assert!(counts("one of them").is_empty());
}

/// The label's tally and the narration's count of the same thing, for the node the step acted
/// on, agree at every step of every preset; and a label never calls "votes" what the narration
/// counts under another name (Paxos' promises and acceptances).
#[test]
fn labels_and_narration_agree_at_every_preset_step() {
    let mut compared = 0;
    for (a, p) in registry::presets() {
        let mut e = Engine::new(p.scenario()).unwrap();
        while e.step() {
            let step = e.cursor();
            let info = e.step_info(step).unwrap();
            let text = e.narrate(step, Lang::En).unwrap();
            let frame = e.frame();
            let Some(node) = frame.nodes.iter().find(|n| n.id == info.node && n.up) else { continue };
            let Some((held, need)) = node.view.tally else { continue };
            let word = node.view.tally_word.map_or("votes", |w| w.get(Lang::En));
            for (x, y, w) in counts(&text) {
                if w == word {
                    compared += 1;
                    assert_eq!(
                        (held, need),
                        (x, y),
                        "{} {} step {step}: the label says {word} {held} / {need}, the narration: {text}",
                        a.id,
                        p.id
                    );
                } else if matches!(w.as_str(), "votes" | "promises" | "acceptances" | "acknowledgements") {
                    assert!(
                        node.view.tally_word.is_some() || w == "votes",
                        "{} {} step {step}: the label counts 'votes' ({held} / {need}) while the narration counts {w}: {text}",
                        a.id,
                        p.id
                    );
                }
            }
        }
    }
    assert!(compared > 0, "the test compared something");
}

/// `token-ring-partition`: at every step at most one node per side of the partition names itself
/// the holder, the frame's token count is one exactly when the ring agrees on one token, and the
/// two tokens of the partition are flagged as `duplicate-token`.
#[test]
fn the_token_ring_shows_one_holder_per_side_and_counts_its_tokens() {
    let p = registry::presets().into_iter().find(|(_, p)| p.id == "token-ring-partition").unwrap().1;
    let mut e = Engine::new(p.scenario()).unwrap();
    let mut most_tokens = 0;
    while e.step() {
        let f = e.frame();
        let groups = f.groups.clone().unwrap_or_else(|| vec![0; f.nodes.len()]);
        let mut holders = std::collections::BTreeMap::new();
        for (node, g) in f.nodes.iter().zip(&groups) {
            if node.up && node.view.leader == Some(node.id) {
                *holders.entry(*g).or_insert(0) += 1;
            }
        }
        assert!(holders.values().all(|&h| h <= 1), "step {}: holders per side {holders:?}", f.step);
        let tokens = f.tokens.expect("a token algorithm counts its tokens");
        most_tokens = most_tokens.max(tokens);
    }
    assert_eq!(most_tokens, 2, "the partition makes a second token");
    assert!(e.violations().iter().any(|v| v.kind == "duplicate-token"));
}
