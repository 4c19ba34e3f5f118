//! The invariants panel: exactly the safety properties the running algorithm claims, each with
//! its status and the steps of its violations, then agreement (a liveness check, for everyone).

use crate::i18n::tr;
use crate::meta;
use crate::nodes_text;
use election_lab::meta::k;
use election_lab::meta::{Lang, Property, SPLIT_BRAIN};
use election_lab::{Engine, Frame};
use yew::prelude::*;

/// One claimed property and what the run did to it up to the cursor.
#[derive(Clone, Debug, PartialEq)]
pub struct Claim {
    pub property: Property,
    /// Steps of its violations so far (at most a few, then the count).
    pub steps: Vec<u64>,
    pub count: usize,
    /// The nodes and time of the first violation.
    pub first: Option<(Vec<u32>, u64)>,
    /// Broken at this very step (several leaders now).
    pub now: bool,
}

/// What the panel shows, summarised from the engine (small, compared by value).
#[derive(Properties, Clone, Debug, PartialEq)]
pub struct Checks {
    /// Nodes that lead now.
    pub leaders: Vec<u32>,
    pub agreement: Option<u32>,
    pub claims: Vec<Claim>,
    /// Latency of the last election, if one ran.
    pub latency: Option<u64>,
    /// No live node names any leader and no election has finished: nothing to agree on yet
    /// (a fresh leaderless cluster), shown as waiting rather than as a failure.
    pub waiting: bool,
    pub lang: Lang,
}

impl Checks {
    pub fn of(engine: &Engine, frame: &Frame, lang: Lang) -> Checks {
        let vs = engine.violations();
        let claims = meta::claimed_invariants(engine.algorithm())
            .iter()
            .map(|p| {
                let seen: Vec<_> = vs.iter().filter(|v| v.kind == p.id).collect();
                Claim {
                    property: *p,
                    steps: seen.iter().take(4).map(|v| v.step).collect(),
                    count: seen.len(),
                    first: seen.first().map(|v| (v.nodes.clone(), v.time)),
                    now: p.monitor == election_lab::meta::Monitor::SplitBrain && frame.leaders.len() >= 2,
                }
            })
            .collect();
        let latency = engine.elections().last().map(|e| e.latency());
        let waiting = latency.is_none() && frame.nodes.iter().filter(|n| n.up).all(|n| n.view.leader.is_none());
        Checks { leaders: frame.leaders.clone(), agreement: frame.agreement, claims, latency, waiting, lang }
    }
}

/// A row's status: holds (✓), broken (✗), or nothing to judge yet (○).
#[derive(Clone, Copy, PartialEq)]
enum Status {
    Ok,
    Bad,
    Waiting,
}

fn row(name: &str, id: &str, status: Status, text: String) -> Html {
    let (class, mark) = match status {
        Status::Ok => ("ok", "✓"),
        Status::Bad => ("bad", "✗"),
        Status::Waiting => ("waiting", "○"),
    };
    html! {
        <li class={class} data-property={id.to_string()}>
            <span class="mark" aria-hidden="true">{ mark }</span>
            <b>{ name.to_string() }</b>{" "}{ text }
        </li>
    }
}

fn claim_text(c: &Claim, leaders: &[u32], lang: Lang) -> String {
    let p = &c.property;
    if c.now && p.id == SPLIT_BRAIN {
        return format!("{} {}", tr(lang, k::UI_NO_NOW_LEADING), nodes_text(leaders));
    }
    match &c.first {
        None => {
            format!("{} — {} ({})", tr(lang, k::UI_HOLDS_SO_FAR), p.explain.get(lang), p.holds.describe().get(lang))
        }
        Some((nodes, time)) => {
            let steps = c.steps.iter().map(|s| s.to_string()).collect::<Vec<_>>().join(", ");
            let more = if c.count > c.steps.len() { ", …" } else { "" };
            k::UI_INVARIANT_VIOLATED.format(lang, &[&c.count, &format!("{steps}{more}"), &time, &nodes_text(nodes)])
        }
    }
}

#[function_component]
pub fn Invariants(c: &Checks) -> Html {
    crate::probe::rendered("invariants");
    let lang = c.lang;
    let latency = match c.latency {
        Some(l) => k::UI_INVARIANT_LAST_ELECTION.fill(lang, &[l]),
        None => String::new(),
    };
    let (status, agreement) = match c.agreement {
        Some(l) => (Status::Ok, k::UI_INVARIANT_AGREEMENT.format(lang, &[&l, &latency])),
        None if c.waiting => (Status::Waiting, tr(lang, k::UI_NOBODY_NAMES_A_LEADER_YET).to_string()),
        None => (Status::Bad, format!("{}{latency}", tr(lang, k::UI_NOT_NOW_LIVE_NODES_DISAGREE))),
    };
    html! {
        <section class="panel" aria-label={tr(lang, k::UI_INVARIANTS)}>
            <h2>{ tr(lang, k::UI_INVARIANTS) }</h2>
            <ul class="invariants">
                { for c.claims.iter().map(|cl| row(cl.property.title.get(c.lang), cl.property.id, if cl.count == 0 && !cl.now { Status::Ok } else { Status::Bad }, claim_text(cl, &c.leaders, c.lang))) }
                { row(tr(lang, k::UI_AGREEMENT), "agreement", status, agreement) }
            </ul>
        </section>
    }
}
