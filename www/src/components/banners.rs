//! Alerts and notices above the stage: errors, split brain, the latest other violation.

use crate::i18n::{tr, Lang};
use crate::nodes_text;
use crate::state::Action;
use election_lab::meta::k;
use election_lab::protocols::conform::Verdict;
use yew::prelude::*;

#[derive(Properties, PartialEq)]
pub struct BannersProps {
    pub alert: Option<String>,
    pub notice: Option<String>,
    /// An imported recording's conformance to its model, shown as a panel.
    #[prop_or_default]
    pub conformance: Option<std::rc::Rc<Verdict>>,
    /// Nodes that lead at once now (split brain when two or more).
    pub leaders: Vec<u32>,
    /// A paused member still believing it leads beside the acting leader, or a leader of an
    /// older epoch beside the newer epoch's (the stale-leader story, not a split brain),
    /// described. Only imported recordings have them, and importing is the workbench's: the
    /// player leaves this banner out.
    #[prop_or_default]
    pub stale: Option<String>,
    /// The latest violation other than split brain, described.
    pub violation: Option<String>,
    /// The algorithm elects a leader per group by design: several leaders are no alarm.
    #[prop_or_default]
    pub per_group: bool,
    pub lang: Lang,
    pub on: Callback<Action>,
}

/// "Split brain: N2, N5 each believe they lead."
pub fn split_brain_text(leaders: &[u32], lang: Lang) -> String {
    k::UI_SPLIT_BRAIN.format(lang, &[&nodes_text(leaders)])
}

/// "A leader per group: N2, N5 each lead their own group (by design)."
pub fn per_group_text(leaders: &[u32], lang: Lang) -> String {
    k::UI_PER_GROUP.format(lang, &[&nodes_text(leaders)])
}

/// The banner for several leaders at once: a split-brain alarm, or a neutral note when the
/// algorithm elects a leader per group by design.
pub fn leaders_banner(leaders: &[u32], per_group: bool, lang: Lang) -> Html {
    if per_group {
        html! { <div class="banner per-group" role="status" data-testid="per-group">{ per_group_text(leaders, lang) }</div> }
    } else {
        html! { <div class="banner violation" role="alert" data-testid="split-brain">{ split_brain_text(leaders, lang) }</div> }
    }
}

#[function_component]
pub fn Banners(p: &BannersProps) -> Html {
    let dismiss = |text: &String, class: &'static str, role: &'static str| {
        html! {
            <div class={classes!("banner", class)} {role}>
                <span>{ text.clone() }</span>
                <button onclick={p.on.reform(|_| Action::Dismiss)} aria-label={tr(p.lang, k::UI_DISMISS)}>{"✕"}</button>
            </div>
        }
    };
    html! {
        <div class="banners">
            { for p.alert.iter().map(|a| dismiss(a, "error", "alert")) }
            { if p.leaders.len() >= 2 { leaders_banner(&p.leaders, p.per_group, p.lang) } else if let Some(s) = p.stale.as_ref().filter(|_| crate::WORKBENCH) { html!{
                <div class="banner notice" role="status" data-testid="paused-leader">{ s.clone() }</div>
            }} else if let Some(v) = &p.violation { html!{
                <div class="banner violation" role="alert">{ v.clone() }</div>
            }} else { html!{} } }
            { for p.notice.iter().map(|n| dismiss(n, "notice", "status")) }
            // Only an import sets it, and importing is the workbench's: the player carries no panel.
            { for p.conformance.iter().filter(|_| crate::WORKBENCH).map(|v| conformance_panel(v, p.lang)) }
        </div>
    }
}

/// The conformance panel: the verdict on an imported recording, and its rules' coverage.
fn conformance_panel(v: &Verdict, lang: Lang) -> Html {
    let class = if v.conforms() { "conforms" } else { "violation" };
    html! {
        <section class={classes!("banner", "conformance", class)} role="status" data-testid="conformance"
                 aria-label={tr(lang, k::UI_CONFORMANCE)}>
            <strong>{ tr(lang, k::UI_CONFORMANCE) }</strong>{ " " }
            <span data-testid="conformance-verdict">{ v.headline(lang) }</span>
            <details>
                <summary>{ tr(lang, k::CONFORM_COVERAGE) }</summary>
                <ul>{ for v.coverage_lines(lang).into_iter().map(|l| html! { <li>{ l }</li> }) }</ul>
            </details>
        </section>
    }
}
