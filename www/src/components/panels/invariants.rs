//! The invariants panel: exactly the safety properties the running algorithm claims, each with
//! its status and the steps of its violations, then agreement (a liveness check, for everyone).

use super::find;
use crate::i18n::tr;
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
    /// Token algorithms: how many live tokens exist now (their agreement is "one token").
    pub tokens: Option<u32>,
    pub claims: Vec<Claim>,
    /// Latency of the last election, if one ran.
    pub latency: Option<u64>,
    /// No live node names any leader and no election has finished: nothing to agree on yet
    /// (a fresh leaderless cluster), shown as waiting rather than as a failure.
    pub waiting: bool,
    pub lang: Lang,
    /// Where a violation's step (a button) sends the cursor.
    #[prop_or_default]
    pub on: Callback<crate::state::Action>,
    /// The algorithm's id, for the counterexample search of "two leaders at once" when it does
    /// not claim a single leader (then `unclaimed_split` is set).
    pub algorithm: &'static str,
    pub unclaimed_split: bool,
    /// The last counterexample search (see `find`).
    #[prop_or_default]
    pub search: Option<std::rc::Rc<crate::state::Finding>>,
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
                    now: match p.monitor {
                        election_lab::meta::Monitor::SplitBrain => frame.leaders.len() >= 2,
                        election_lab::meta::Monitor::OneToken => {
                            frame.tokens.is_some_and(|t| t >= 2) || frame.leaders.len() >= 2
                        }
                        _ => false,
                    },
                }
            })
            .collect();
        let latency = engine.elections().last().map(|e| e.latency());
        let waiting = latency.is_none() && frame.nodes.iter().filter(|n| n.up).all(|n| n.view.leader.is_none());
        Checks {
            leaders: frame.leaders.clone(),
            agreement: frame.agreement,
            tokens: frame.tokens,
            claims,
            latency,
            waiting,
            lang,
            on: Callback::noop(),
            algorithm: engine.algorithm().id,
            unclaimed_split: engine.algorithm().property(SPLIT_BRAIN).is_none(),
            search: None,
        }
    }
}

/// A row's status: holds (✓), broken (✗), or nothing to judge yet (○).
#[derive(Clone, Copy, PartialEq)]
enum Status {
    Ok,
    Bad,
    Waiting,
}

fn row(name: &str, id: &str, status: Status, text: Html, find: Html) -> Html {
    let (class, mark) = match status {
        Status::Ok => ("ok", "✓"),
        Status::Bad => ("bad", "✗"),
        Status::Waiting => ("waiting", "○"),
    };
    html! {
        <li class={class} data-property={id.to_string()}>
            <span class="mark" aria-hidden="true">{ mark }</span>
            <b>{ name.to_string() }</b>{" "}{ text }{ find }
        </li>
    }
}

fn claim_text(c: &Claim, leaders: &[u32], lang: Lang, on: &Callback<crate::state::Action>) -> Html {
    let p = &c.property;
    if c.now && p.id == SPLIT_BRAIN {
        return html! { { format!("{} {}", tr(lang, "no: now leading:", "否：此刻的领导者："), nodes_text(leaders)) } };
    }
    match &c.first {
        None => html! { { format!(
            "{} — {} ({})",
            tr(lang, "holds so far", "目前成立"),
            p.explain.get(lang),
            p.holds.describe().get(lang)
        ) } },
        Some((nodes, time)) => {
            // Each step is a button that takes the cursor there.
            let steps = c.steps.iter().enumerate().map(|(i, &s)| {
                let label = format!("{} {s}", tr(lang, "Go to step", "转到第"));
                html! { <>
                    { if i > 0 { ", " } else { "" } }
                    <button class="step-link" onclick={on.reform(move |_| crate::state::Action::Seek(s))}
                            aria-label={label} data-step={s.to_string()}>{ s }</button>
                </> }
            });
            let more = if c.count > c.steps.len() { ", …" } else { "" };
            match lang {
                Lang::En => html! { <>
                    { format!("violated {}× (step ", c.count) }{ for steps }{ format!("{more}); first at t={time}: {}", nodes_text(nodes)) }
                </> },
                Lang::Zh => html! { <>
                    { format!("被违反 {} 次（第 ", c.count) }{ for steps }{ format!("{more} 步）；首次在 t={time}：{}", nodes_text(nodes)) }
                </> },
            }
        }
    }
}

#[function_component]
pub fn Invariants(c: &Checks) -> Html {
    crate::probe::rendered("invariants");
    let lang = c.lang;
    let latency = match (c.latency, lang) {
        (Some(l), Lang::En) => format!("; the last election took {l} ticks"),
        (Some(l), Lang::Zh) => format!("；上一次选举用了 {l} 个时间单位"),
        (None, _) => String::new(),
    };
    let (status, agreement) = match (c.agreement, lang) {
        // A token ring agrees when one token lives: whoever holds it leads.
        _ if c.tokens.is_some() => match (c.tokens.unwrap_or(0), lang) {
            (1, _) => {
                (Status::Ok, tr(lang, "one token: whoever holds it leads", "只有一个令牌：持有者即领导者").to_string())
            }
            (0, _) => (
                Status::Waiting,
                tr(lang, "no live token now (one will be regenerated)", "此刻没有有效令牌（将被重新生成）").to_string(),
            ),
            (k, Lang::En) => (Status::Bad, format!("not now: {k} tokens are alive at once")),
            (k, Lang::Zh) => (Status::Bad, format!("此刻未达成：同时存在 {k} 个令牌")),
        },
        (Some(l), Lang::En) => (Status::Ok, format!("every live node names N{l}{latency}")),
        (Some(l), Lang::Zh) => (Status::Ok, format!("所有存活节点都认 N{l} 为领导者{latency}")),
        (None, _) if c.waiting => {
            (Status::Waiting, tr(lang, "nobody names a leader yet", "还没有节点认定领导者").to_string())
        }
        (None, _) => (
            Status::Bad,
            format!(
                "{}{latency}",
                tr(
                    lang,
                    "not now: live nodes disagree or name a dead leader",
                    "此刻未达成：存活节点意见不一，或认一个已崩溃的节点为领导者"
                )
            ),
        ),
    };
    let busy = c.search.as_ref().is_some_and(|s| s.running());
    let find = |id: &'static str, name: &str| find::button(id, name, busy, lang, &c.on);
    let unclaimed = match c.unclaimed_split {
        true => {
            let name = crate::state::property_name(c.algorithm, SPLIT_BRAIN, lang);
            let text = html! { { tr(lang, "— not claimed by this algorithm", "— 该算法并不保证这一点") } };
            row(name, SPLIT_BRAIN, Status::Waiting, text, find(SPLIT_BRAIN, name))
        }
        false => html! {},
    };
    html! {
        <section class="panel" aria-label="Invariants">
            <h2>{ tr(lang, "Invariants", "不变式") }</h2>
            <ul class="invariants">
                { for c.claims.iter().map(|cl| {
                    let name = cl.property.title.get(c.lang);
                    let status = if cl.count == 0 && !cl.now { Status::Ok } else { Status::Bad };
                    row(name, cl.property.id, status, claim_text(cl, &c.leaders, c.lang, &c.on), find(cl.property.id, name))
                }) }
                { unclaimed }
                { row(tr(lang, "Agreement", "一致"), "agreement", status, html!{ { agreement } }, html! {}) }
            </ul>
            { find::status(&c.search, lang, &c.on) }
        </section>
    }
}
