//! The invariants panel: exactly the safety properties the running algorithm claims, each with
//! its status and the steps of its violations, then agreement (a liveness check, for everyone).

use super::{check_every, find};
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
    /// Token algorithms: how many live tokens exist now (their agreement is "one token").
    pub tokens: Option<u32>,
    pub claims: Vec<Claim>,
    /// Latency of the last election, if one ran.
    pub latency: Option<u64>,
    /// No live node names any leader and no election has finished: nothing to agree on yet
    /// (a fresh leaderless cluster), shown as waiting rather than as a failure.
    pub waiting: bool,
    /// Since when the live nodes have not named one leader (an election in progress).
    pub electing_since: Option<u64>,
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
    /// The last check of every schedule (see `check_every`).
    #[prop_or_default]
    pub check: Option<std::rc::Rc<crate::state::ModelCheck>>,
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
            electing_since: engine.electing_since(),
            lang,
            on: Callback::noop(),
            algorithm: engine.algorithm().id,
            unclaimed_split: engine.algorithm().property(SPLIT_BRAIN).is_none(),
            search: None,
            check: None,
        }
    }
}

/// A row's status: holds (✓), broken (✗, red: only a claimed property), nothing to judge yet
/// (○), or an election in progress (…, neutral: agreement is a state, not a claim).
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Status {
    Ok,
    Bad,
    Waiting,
    Electing,
}

/// A claimed property's row: red (✗) once the run has broken it, or while it does.
pub fn claim_status(c: &Claim) -> Status {
    if c.count == 0 && !c.now {
        Status::Ok
    } else {
        Status::Bad
    }
}

/// The agreement row: a state of the run, never a broken claim (red is for claimed properties).
pub fn agreement_row(c: &Checks) -> (Status, String) {
    let lang = c.lang;
    let latency = c.latency.map(|l| k::UI_LAST_ELECTION_TOOK.format(lang, &[&l])).unwrap_or_default();
    match c.tokens {
        // A token ring agrees when one token lives: whoever holds it leads.
        Some(1) => (Status::Ok, tr(lang, k::UI_ONE_TOKEN_WHOEVER_HOLDS_IT).to_string()),
        Some(0) => (Status::Waiting, tr(lang, k::UI_NO_LIVE_TOKEN_NOW_ONE).to_string()),
        Some(n) => (Status::Electing, k::UI_TOKENS_ALIVE.format(lang, &[&n])),
        None => match c.agreement {
            Some(l) => (Status::Ok, k::UI_EVERY_NODE_NAMES.format(lang, &[&l, &latency])),
            None if c.waiting => (Status::Waiting, tr(lang, k::UI_NOBODY_NAMES_A_LEADER_YET).to_string()),
            None => {
                let since = c.electing_since.unwrap_or(0);
                (Status::Electing, format!("{}{latency}", k::UI_ELECTING_SINCE.format(lang, &[&since])))
            }
        },
    }
}

fn row(name: &str, id: &str, status: Status, text: Html, find: Html) -> Html {
    let (class, mark) = match status {
        Status::Ok => ("ok", "✓"),
        Status::Bad => ("bad", "✗"),
        Status::Waiting => ("waiting", "○"),
        Status::Electing => ("electing", "…"),
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
        return html! { { format!("{} {}", tr(lang, k::UI_NO_NOW_LEADING), nodes_text(leaders)) } };
    }
    match &c.first {
        None => html! { { format!(
            "{} — {} ({})",
            tr(lang, k::UI_HOLDS_SO_FAR),
            p.explain.get(lang),
            p.holds.describe().get(lang)
        ) } },
        Some((nodes, time)) => {
            // Each step is a button that takes the cursor there.
            let steps = c.steps.iter().enumerate().map(|(i, &s)| {
                let label = format!("{} {s}", tr(lang, k::UI_GO_TO_STEP));
                html! { <>
                    { if i > 0 { ", " } else { "" } }
                    <button class="step-link" onclick={on.reform(move |_| crate::state::Action::Seek(s))}
                            aria-label={label} data-step={s.to_string()}>{ s }</button>
                </> }
            });
            let more = if c.count > c.steps.len() { ", …" } else { "" };
            html! { <>
                { k::UI_VIOLATED_BEFORE_STEPS.format(lang, &[&c.count]) }{ for steps }
                { k::UI_VIOLATED_AFTER_STEPS.format(lang, &[&more, &time, &nodes_text(nodes)]) }
            </> }
        }
    }
}

/// The properties "Check every schedule" offers: the claimed ones, and split brain where the
/// algorithm does not claim it.
fn checkable(c: &Checks) -> std::rc::Rc<Vec<(&'static str, &'static str)>> {
    let mut out: Vec<(&'static str, &'static str)> =
        c.claims.iter().map(|cl| (cl.property.id, cl.property.title.get(c.lang))).collect();
    if c.unclaimed_split {
        out.push((SPLIT_BRAIN, crate::state::property_name(c.algorithm, SPLIT_BRAIN, c.lang)));
    }
    std::rc::Rc::new(out)
}

/// "Check every schedule": its form in the workbench, where checks run; in the player, one button
/// that hands the run to the workbench with the form (the form's code is left out of the player).
fn check_every(c: &Checks, busy: bool) -> Html {
    let lang = c.lang;
    if crate::WORKBENCH {
        return html! {
            <check_every::CheckEvery properties={checkable(c)} check={c.check.clone()} {busy} {lang} on={c.on.clone()} />
        };
    }
    let open = c.on.reform(|_| crate::state::Action::OpenTool(crate::state::handoff::CHECK));
    html! {
        <section class="check-every" aria-label={tr(lang, k::UI_CHECK_TITLE)} data-testid="check-every">
            <h3>{ tr(lang, k::UI_CHECK_TITLE) }</h3>
            <button class="find" onclick={open} data-testid="check-open">{ tr(lang, k::UI_CHECK_OPEN) }</button>
        </section>
    }
}

#[function_component]
pub fn Invariants(c: &Checks) -> Html {
    crate::probe::rendered("invariants");
    let lang = c.lang;
    let (status, agreement) = agreement_row(c);
    let busy = c.search.as_ref().is_some_and(|s| s.running());
    let find = |id: &'static str, name: &str| find::button(id, name, busy, lang, &c.on);
    let unclaimed = match c.unclaimed_split {
        true => {
            let name = crate::state::property_name(c.algorithm, SPLIT_BRAIN, lang);
            let text = html! { { tr(lang, k::UI_NOT_CLAIMED_BY_THIS_ALGORITHM) } };
            row(name, SPLIT_BRAIN, Status::Waiting, text, find(SPLIT_BRAIN, name))
        }
        false => html! {},
    };
    html! {
        <section class="panel" aria-label={tr(lang, k::UI_INVARIANTS)}>
            <h2>{ tr(lang, k::UI_INVARIANTS) }</h2>
            <ul class="invariants">
                { for c.claims.iter().map(|cl| {
                    let name = cl.property.title.get(c.lang);
                    let status = claim_status(cl);
                    row(name, cl.property.id, status, claim_text(cl, &c.leaders, c.lang, &c.on), find(cl.property.id, name))
                }) }
                { unclaimed }
                { row(tr(lang, k::UI_AGREEMENT), "agreement", status, html!{ { agreement } }, html! {}) }
            </ul>
            <p class="invariants-key" data-testid="invariants-key">{ tr(lang, k::UI_INVARIANTS_KEY) }</p>
            { find::status(&c.search, lang, &c.on) }
            { check_every(c, busy) }
        </section>
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use election_lab::presets;

    fn engine(preset: &str) -> Engine {
        Engine::new(presets::find(preset).expect("preset").scenario()).expect("engine")
    }

    /// The first step after `from` at which `f` holds, and the checks there.
    fn first(e: &mut Engine, lang: Lang, f: impl Fn(&Checks) -> bool) -> Checks {
        for _ in 0..100_000 {
            let c = Checks::of(e, &e.frame(), lang);
            if f(&c) {
                return c;
            }
            assert!(e.step(), "the run ended first");
        }
        panic!("never");
    }

    #[test]
    fn an_election_in_progress_is_a_neutral_state_in_both_languages() {
        for (lang, word) in [(Lang::En, "electing…"), (Lang::Zh, "选举中")] {
            election_lab::meta::install(Lang::Zh, include_str!("../../../../crate/i18n/zh.json")).ok();
            let mut e = engine("bully-worst-8");
            let c = first(&mut e, lang, |c| agreement_row(c).0 == Status::Electing);
            let (_, text) = agreement_row(&c);
            assert!(text.starts_with(word), "{text}");
            assert!(text.contains(&format!("t = {}", c.electing_since.unwrap())), "{text}");
            // Nothing is red while it runs: no claimed property is broken.
            assert!(c.claims.iter().all(|cl| cl.count == 0 && !cl.now), "{:?}", c.claims);
            // It ends agreed, a ✓.
            let c = first(&mut e, lang, |c| c.agreement.is_some());
            assert_eq!(agreement_row(&c).0, Status::Ok);
            assert_eq!(c.electing_since, None);
        }
    }

    #[test]
    fn red_is_for_a_claimed_property_broken() {
        // A lease overlap (a slow clock): the claim's row turns red, agreement stays a state.
        let mut e = engine("lease-drift");
        let c = first(&mut e, Lang::En, |c| c.claims.iter().any(|cl| cl.count > 0));
        let broken: Vec<_> = c.claims.iter().filter(|cl| claim_status(cl) == Status::Bad).collect();
        assert_eq!(broken.len(), 1, "{:?}", c.claims);
        assert_eq!(broken[0].property.id, "lease-overlap");
        assert_ne!(agreement_row(&c).0, Status::Bad);
    }
}
