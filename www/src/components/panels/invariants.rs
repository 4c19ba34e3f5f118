//! The invariants panel: exactly the safety properties the running algorithm claims, each with
//! its status and the steps of its violations, then agreement (a liveness check, for everyone).

use crate::meta;
use crate::nodes_text;
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
        Checks { leaders: frame.leaders.clone(), agreement: frame.agreement, claims, latency: engine.elections().last().map(|e| e.latency()), lang }
    }
}

fn row(name: &str, id: &str, ok: bool, text: String) -> Html {
    html! {
        <li class={classes!(if ok { "ok" } else { "bad" })} data-property={id.to_string()}>
            <span class="mark" aria-hidden="true">{ if ok { "✓" } else { "✗" } }</span>
            <b>{ name.to_string() }</b>{" "}{ text }
        </li>
    }
}

fn claim_text(c: &Claim, leaders: &[u32], lang: Lang) -> String {
    let p = &c.property;
    if c.now && p.id == SPLIT_BRAIN {
        return format!("no: {} lead now", nodes_text(leaders));
    }
    match &c.first {
        None => format!("holds so far — {} ({})", p.explain.get(lang), p.holds.describe().get(lang)),
        Some((nodes, time)) => {
            let steps = c.steps.iter().map(|s| s.to_string()).collect::<Vec<_>>().join(", ");
            let more = if c.count > c.steps.len() { ", …" } else { "" };
            format!("violated {}× (step {steps}{more}); first at t={time}: {}", c.count, nodes_text(nodes))
        }
    }
}

#[function_component]
pub fn Invariants(c: &Checks) -> Html {
    crate::probe::rendered("invariants");
    let latency = c.latency.map(|l| format!("last election took {l} ticks")).unwrap_or_else(|| "no election has finished yet".into());
    let agreement = match c.agreement {
        Some(l) => format!("every live node names N{l}; {latency}"),
        None => format!("not (yet): live nodes disagree or name a dead leader; {latency}"),
    };
    html! {
        <section class="panel" aria-label="Invariants">
            <h2>{"Invariants"}</h2>
            <ul class="invariants">
                { for c.claims.iter().map(|cl| row(cl.property.title.get(c.lang), cl.property.id, cl.count == 0 && !cl.now, claim_text(cl, &c.leaders, c.lang))) }
                { row("Agreement", "agreement", c.agreement.is_some(), agreement) }
            </ul>
        </section>
    }
}
