//! The invariants panel: single leader and agreement for every algorithm, plus whatever safety
//! properties the algorithm claims (from `meta`).

use crate::meta::{self, Claim};
use crate::nodes_text;
use election_lab::{Engine, Frame};
use yew::prelude::*;

/// What the panel shows, summarised from the engine (small, compared by value).
#[derive(Properties, Clone, Debug, PartialEq)]
pub struct Checks {
    /// Nodes that lead now.
    pub leaders: Vec<u32>,
    pub agreement: Option<u32>,
    /// Split brains seen up to the cursor.
    pub split_ever: usize,
    /// The algorithm's own claims, with how often each was violated up to the cursor.
    pub claims: Vec<(Claim, usize)>,
    /// Latency of the last election, if one ran.
    pub latency: Option<u64>,
}

impl Checks {
    pub fn of(engine: &Engine, frame: &Frame) -> Checks {
        let vs = engine.violations();
        let count = |kind: &str| vs.iter().filter(|v| v.kind == kind).count();
        Checks {
            leaders: frame.leaders.clone(),
            agreement: frame.agreement,
            split_ever: count(meta::SPLIT_BRAIN),
            claims: meta::claimed_invariants(engine.scenario().algorithm).iter().map(|c| (*c, count(c.violation))).collect(),
            latency: engine.elections().last().map(|e| e.latency()),
        }
    }
}

fn row(name: &str, ok: bool, text: String) -> Html {
    html! {
        <li class={classes!(if ok { "ok" } else { "bad" })}>
            <span class="mark" aria-hidden="true">{ if ok { "✓" } else { "✗" } }</span>
            <b>{ name.to_string() }</b>{" "}{ text }
        </li>
    }
}

#[function_component]
pub fn Invariants(c: &Checks) -> Html {
    crate::probe::rendered("invariants");
    let split_now = c.leaders.len() >= 2;
    let latency = c.latency.map(|l| format!("last election took {l} ticks")).unwrap_or_else(|| "no election has run yet".into());
    let single = if split_now {
        format!("no: {} lead now", nodes_text(&c.leaders))
    } else if c.split_ever > 0 {
        format!("now yes; split brain seen {}× before", c.split_ever)
    } else {
        "yes, at every step so far".into()
    };
    let agreement = match c.agreement {
        Some(l) => format!("every live node names N{l}; {latency}"),
        None => format!("not (yet): live nodes disagree or name a dead leader; {latency}"),
    };
    html! {
        <section class="panel" aria-label="Invariants">
            <h2>{"Invariants"}</h2>
            <ul class="invariants">
                { row("Single leader", !split_now, single) }
                { for c.claims.iter().map(|(claim, n)| row(claim.name, *n == 0, if *n == 0 { "holds".into() } else { format!("violated {n}×") })) }
                { row("Agreement", c.agreement.is_some(), agreement) }
            </ul>
        </section>
    }
}
