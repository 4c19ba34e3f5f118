//! Alerts and notices above the stage: errors, split brain, the latest other violation.

use crate::i18n::{tr, Lang};
use crate::nodes_text;
use crate::state::Action;
use election_lab::meta::k;
use yew::prelude::*;

#[derive(Properties, PartialEq)]
pub struct BannersProps {
    pub alert: Option<String>,
    pub notice: Option<String>,
    /// Nodes that lead at once now (split brain when two or more).
    pub leaders: Vec<u32>,
    /// The latest violation other than split brain, described.
    pub violation: Option<String>,
    pub lang: Lang,
    pub on: Callback<Action>,
}

/// "Split brain: N2, N5 each believe they lead."
pub fn split_brain_text(leaders: &[u32], lang: Lang) -> String {
    k::UI_SPLIT_BRAIN_BANNER.format(lang, &[&nodes_text(leaders)])
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
            { if p.leaders.len() >= 2 { html!{
                <div class="banner violation" role="alert" data-testid="split-brain">
                    { split_brain_text(&p.leaders, p.lang) }
                </div>
            }} else if let Some(v) = &p.violation { html!{
                <div class="banner violation" role="alert">{ v.clone() }</div>
            }} else { html!{} } }
            { for p.notice.iter().map(|n| dismiss(n, "notice", "status")) }
        </div>
    }
}
