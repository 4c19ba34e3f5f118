//! What the UI reads about the running algorithm, from its engine descriptor (`election_lab::
//! Algorithm`): colours and short labels of message kinds, how node roles look, the formulas
//! theory gives, the safety properties it claims, its topology and title. No file of `www/src`
//! names an algorithm: a newly registered one is drawn and explained with no change here.

use crate::palette::{visual_colour, Shape, DASHES, EXTRA, SHAPES};
use election_lab::meta::{k, Lang, Look, Property};
use election_lab::{registry, Algorithm, Metrics, Scenario};

/// The descriptor of a scenario's algorithm (the engine only builds scenarios it knows).
pub fn algorithm_of(scenario: &Scenario) -> &'static Algorithm {
    registry::find(&scenario.algorithm).unwrap_or(registry::all()[0])
}

/// Fill colour of a message kind (every kind also has a text label and a shape). Each kind of
/// an algorithm has its own colour: the first kind of a visual role takes the role's colour, a
/// later kind with the same role the next colour no kind of the algorithm uses yet.
pub fn kind_colour(alg: &Algorithm, kind: &str) -> &'static str {
    let Some(at) = alg.kinds.iter().position(|k| k.name == kind) else { return "#999999" };
    let mut used: Vec<&'static str> = Vec::new();
    for k in alg.kinds {
        let own = visual_colour(k.visual);
        if !used.contains(&own) {
            used.push(own);
        }
    }
    let mut taken: Vec<&'static str> = Vec::new();
    for (i, k) in alg.kinds.iter().enumerate() {
        let own = visual_colour(k.visual);
        let colour = if taken.contains(&own) {
            let c = EXTRA.iter().copied().find(|c| !used.contains(c)).unwrap_or(own);
            used.push(c);
            c
        } else {
            own
        };
        taken.push(colour);
        if i == at {
            return colour;
        }
    }
    "#999999"
}

/// The second cue of a message kind, which survives greyscale: its dot's shape and its edge's
/// dash, one per kind of the algorithm (by the kind's place in the algorithm's list). Past the
/// seventh kind the shapes come round again with the next dash, so no two kinds share both.
pub fn kind_shape(alg: &Algorithm, kind: &str) -> (Shape, Option<&'static str>) {
    let i = alg.kinds.iter().position(|k| k.name == kind).unwrap_or(0);
    (SHAPES[i % SHAPES.len()], DASHES[(i + i / SHAPES.len()) % DASHES.len()])
}

/// Short label drawn next to a moving dot.
pub fn kind_short(alg: &Algorithm, kind: &str) -> &'static str {
    alg.kind(kind).map_or("?", |k| k.short)
}

/// The CSS class of a look (style.css styles these, never protocol role names).
pub fn look_class(look: Look) -> &'static str {
    match look {
        Look::Leader => "look-leader",
        Look::Candidate => "look-candidate",
        Look::Waiting => "look-waiting",
        Look::Participant => "look-active",
        Look::Follower => "look-plain",
        Look::Store => "look-store",
    }
}

/// The visual class of a node role of `alg`.
/// The short names of the protocols' roles (the English is the role's identifier), so that a node's
/// label says "relay" / "转发者" rather than the role's whole explanation (which the legend gives).
const ROLE_NAMES: &[(&str, election_lab::meta::Text)] = &[
    ("leader", k::UI_ROLE_LEADER),
    ("follower", k::UI_ROLE_FOLLOWER),
    ("candidate", k::UI_ROLE_CANDIDATE),
    ("crashed", k::UI_ROLE_CRASHED),
    ("accepting", k::ROLE_NAME_ACCEPTING),
    ("asking", k::ROLE_NAME_ASKING),
    ("asking-next", k::ROLE_NAME_ASKING_NEXT),
    ("backing-off", k::ROLE_NAME_BACKING_OFF),
    ("following", k::ROLE_NAME_FOLLOWING),
    ("joining", k::ROLE_NAME_JOINING),
    ("listening", k::ROLE_NAME_LISTENING),
    ("looking", k::ROLE_NAME_LOOKING),
    ("observing", k::ROLE_NAME_OBSERVING),
    ("ordinary", k::ROLE_NAME_ORDINARY),
    ("participant", k::ROLE_NAME_PARTICIPANT),
    ("passing", k::ROLE_NAME_PASSING),
    ("pre-candidate", k::ROLE_NAME_PRE_CANDIDATE),
    ("preparing", k::ROLE_NAME_PREPARING),
    ("prospective", k::ROLE_NAME_PROSPECTIVE),
    ("relay", k::ROLE_NAME_RELAY),
    ("waiting", k::ROLE_NAME_WAITING),
    ("waiting-coord", k::ROLE_NAME_WAITING_COORD),
    ("waiting-delta", k::ROLE_NAME_WAITING_DELTA),
    ("store", k::ROLE_NAME_STORE),
    ("leading", k::ROLE_NAME_LEADING),
    ("flooding", k::ROLE_NAME_FLOODING),
    ("in-wave", k::ROLE_NAME_IN_WAVE),
    ("source", k::ROLE_NAME_SOURCE),
    ("internal", k::ROLE_NAME_INTERNAL),
    ("sink", k::ROLE_NAME_SINK),
    ("pruned", k::ROLE_NAME_PRUNED),
];

/// A role's short name in `lang`, if the role is one of [`ROLE_NAMES`].
pub fn role_name(role: &str, lang: election_lab::meta::Lang) -> Option<&'static str> {
    ROLE_NAMES.iter().find(|(id, _)| *id == role).map(|(_, t)| t.get(lang))
}

/// A role's short name as shown, in `lang`: from [`ROLE_NAMES`]; a role without one (a protocol
/// added later) shows its identifier in English and its explanation in Chinese.
pub fn role_label(alg: &Algorithm, role: &str, lang: election_lab::meta::Lang) -> String {
    use election_lab::meta::Lang;
    if let Some((_, text)) = ROLE_NAMES.iter().find(|(id, _)| *id == role) {
        return text.get(lang).to_string();
    }
    match lang {
        Lang::En => role.replace('-', " "),
        _ => alg.role(role).map_or_else(|| role.replace('-', " "), |r| r.explain.get(lang).to_string()),
    }
}

pub fn role_look(alg: &Algorithm, role: &str) -> &'static str {
    alg.role(role).map_or("look-plain", |r| look_class(r.look))
}

/// A message-count formula from theory next to what this run counted.
#[derive(Clone, Debug, PartialEq)]
pub struct Formula {
    pub name: &'static str,
    /// When it applies.
    pub applies: &'static str,
    pub value: u64,
    /// Messages sent so far of the kinds the formula counts.
    pub counted: u64,
    pub citation: &'static str,
}

/// The algorithm's formulas evaluated on the scenario's network (its `topology`, or the
/// algorithm's own); one that does not describe that network is left out.
pub fn formulas(alg: &Algorithm, scenario: &Scenario, metrics: &Metrics, lang: Lang) -> Vec<Formula> {
    let net = alg.net(scenario);
    alg.formulas
        .iter()
        .filter_map(|f| {
            Some(Formula {
                name: f.name,
                applies: f.applies.get(lang),
                value: f.at(&net)?,
                counted: metrics.by_kind.iter().filter(|(k, _)| f.counts.contains(k)).map(|(_, c)| c).sum(),
                citation: alg.citation,
            })
        })
        .collect()
}

/// The safety properties the algorithm claims.
pub fn claimed_invariants(alg: &Algorithm) -> &'static [Property] {
    alg.properties
}

/// Whether the algorithm elects a leader per group by design (it claims no single leader, as
/// Invitation and gossip): several leaders at once are then shown as a neutral note, not as a
/// split-brain alarm.
pub fn leader_per_group(alg: &Algorithm) -> bool {
    !alg.properties.iter().any(|p| p.monitor.is_single_leader())
}

/// Ring algorithms draw the ring's edges and direction.
pub fn is_ring(alg: &Algorithm) -> bool {
    alg.topology.is_ring()
}

/// The algorithm picker's choices: (value, label).
pub fn algorithm_choices(lang: Lang) -> Vec<(&'static str, &'static str)> {
    registry::all().iter().map(|a| (a.id, a.title.get(lang))).collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use election_lab::{presets, Engine};

    #[test]
    fn formulas_count_the_kinds_they_name() {
        let mut e = Engine::new(presets::find("bully-worst-8").unwrap().scenario()).unwrap();
        e.run_to_end();
        let fs = formulas(e.algorithm(), e.scenario(), &e.metrics(), Lang::En);
        assert_eq!(fs[0].value, 8 * 8 - 8 - 1);
        assert_eq!(fs[0].counted, fs[0].value, "the preset is the worst case");
    }

    #[test]
    fn a_graph_formula_is_shown_for_the_runs_own_graph() {
        let mut e = Engine::new(presets::find("floodmax-grid").unwrap().scenario()).unwrap();
        e.run_to_end();
        let fs = formulas(e.algorithm(), e.scenario(), &e.metrics(), Lang::En);
        let net = e.algorithm().net(e.scenario());
        assert_eq!((net.n, net.links, net.diameter), (16, 24, 6), "a 4×4 grid");
        assert_eq!(fs[0].value, net.diameter * 2 * net.links);
        assert_eq!(fs[0].counted, fs[0].value, "FloodMax sends exactly diam·2|E|");
    }

    #[test]
    fn every_role_of_every_algorithm_has_a_short_name_in_both_languages() {
        for alg in registry::all() {
            for r in alg.roles {
                assert!(
                    ROLE_NAMES.iter().any(|(id, _)| *id == r.name),
                    "{}: role {} has no short name",
                    alg.id,
                    r.name
                );
                assert_eq!(role_label(alg, r.name, Lang::En), r.name.replace('-', " "), "{}", alg.id);
                let zh = role_label(alg, r.name, Lang::Zh);
                assert!(zh.chars().count() <= 6, "{}: {zh} is not short", alg.id);
            }
        }
    }

    #[test]
    fn every_role_and_kind_of_every_algorithm_has_a_look_and_colour() {
        for a in registry::all() {
            for r in a.roles {
                assert!(role_look(a, r.name).starts_with("look-"));
            }
            for k in a.kinds {
                assert!(kind_colour(a, k.name).starts_with('#'));
            }
        }
        assert_eq!(algorithm_choices(Lang::En).len(), registry::all().len());
    }

    #[test]
    fn every_kind_of_an_algorithm_has_its_own_colour_and_shape() {
        for a in registry::all() {
            for (i, k) in a.kinds.iter().enumerate() {
                for j in a.kinds.iter().skip(i + 1) {
                    assert_ne!(kind_colour(a, k.name), kind_colour(a, j.name), "{}: {} and {}", a.id, k.name, j.name);
                    assert_ne!(kind_shape(a, k.name), kind_shape(a, j.name), "{}: {} and {}", a.id, k.name, j.name);
                }
            }
        }
        // The cases: kinds that shared a visual role used to share a colour.
        let raft = registry::find("raft").unwrap();
        let grant = kind_colour(raft, "VOTE_GRANT");
        assert!(raft.kinds.iter().filter(|k| k.name != "VOTE_GRANT").all(|k| kind_colour(raft, k.name) != grant));
        assert_eq!(
            kind_colour(raft, raft.kinds[0].name),
            visual_colour(raft.kinds[0].visual),
            "the first keeps its role's colour"
        );
    }
}
