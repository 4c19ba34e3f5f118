//! The inspector: the selected node's protocol state and actions on it.

use crate::i18n::{tr, Lang};
use crate::state::Action;
use election_lab::meta::k;
use election_lab::{Action as Intervention, Engine};
use yew::prelude::*;

/// The selected node as shown (compared by value, so an unchanged node is not redrawn).
#[derive(Clone, Debug, PartialEq)]
pub struct Inspected {
    pub id: u32,
    pub up: bool,
    pub rows: Vec<election_lab::field::Field>,
}

impl Inspected {
    pub fn of(engine: &Engine, id: u32) -> Option<Inspected> {
        let up = engine.is_up(id)?;
        Some(Inspected { id, up, rows: engine.inspect(id) })
    }
}

/// A value as shown, in words of the page's language: yes or no, a role's name, the vote tally
/// ("2 / 3 needed: N1, N2") and the lease store's key; anything else (numbers, node names) as
/// written. The engine writes these values in one form for every language (breakpoints and the
/// JSON Lines export read them), so the page words them here.
pub fn value(v: &str, l: Lang) -> String {
    match v {
        "true" => return tr(l, k::UI_YES).to_string(),
        "false" => return tr(l, k::UI_NO).to_string(),
        "free" => return tr(l, k::UI_INSPECT_KEY_FREE).to_string(),
        _ => {}
    }
    if let Some(name) = crate::meta::role_name(v, l) {
        return name.to_string();
    }
    if let Some((tally, list)) = v.split_once(" needed: ").or_else(|| v.strip_suffix(" needed:").map(|t| (t, ""))) {
        if let Some((have, quorum)) = tally.split_once(" / ") {
            return k::UI_INSPECT_VOTES_NEEDED.format(l, &[&have, &quorum, &list]).trim_end().to_string();
        }
    }
    if let Some((holder, rest)) = v.split_once(", expires at ") {
        if let Some(time) = rest.strip_suffix(" (store clock)") {
            return k::UI_INSPECT_KEY_EXPIRES.format(l, &[&holder, &time]);
        }
    }
    v.to_string()
}

#[derive(Properties, PartialEq)]
pub struct InspectorProps {
    pub node: Option<Inspected>,
    pub lang: Lang,
    /// Used by touch: the hint names taps and long presses.
    #[prop_or_default]
    pub touch: bool,
    pub on: Callback<Action>,
}

#[function_component]
pub fn Inspector(p: &InspectorProps) -> Html {
    crate::probe::rendered("inspector");
    let l = p.lang;
    let body = match &p.node {
        None if p.touch => {
            html! { <p class="empty">{ tr(l, k::UI_LONG_PRESS_A_NODE_TO) }</p> }
        }
        None => {
            html! { <p class="empty">{ tr(l, k::UI_POINT_AT_A_NODE_OR) }</p> }
        }
        Some(node) => {
            let id = node.id;
            html! {
                <>
                    <p><b>{ format!("N{id}") }</b>{ if node.up { tr(l, k::UI_UP) } else { tr(l, k::UI_CRASHED_STATE_KEPT_FOR_RECOVERY) } }</p>
                    <dl class="kv">{ for node.rows.iter().map(|f| html!{ <><dt data-field={f.id.clone()}>{ tr(l, f.label) }</dt><dd>{ value(&f.shown(), l) }</dd></> }) }</dl>
                    <div class="row">
                        <button onclick={p.on.reform(move |_| Action::NodeClick(id))}>{ if node.up { tr(l, k::UI_CRASH) } else { tr(l, k::UI_RECOVER) } }</button>
                        <button onclick={p.on.reform(move |_| Action::Act(Intervention::Start(id)))} disabled={!node.up}>{ tr(l, k::UI_START_ELECTION_HERE) }</button>
                        <button onclick={p.on.reform(move |_| Action::Act(Intervention::Isolate(id)))}>{ tr(l, k::UI_ISOLATE) }</button>
                    </div>
                </>
            }
        }
    };
    html! { <section class="panel" aria-label={tr(l, k::UI_INSPECTOR)}><h2>{ tr(l, k::UI_INSPECTOR) }</h2>{ body }</section> }
}

#[cfg(test)]
mod tests {
    use super::value;
    use crate::i18n::Lang;

    #[test]
    fn inspector_values_are_worded_in_the_page_language() {
        election_lab::meta::install(Lang::Zh, include_str!("../../../../crate/i18n/zh.json")).ok();
        assert_eq!(value("follower", Lang::En), "follower");
        assert_eq!(value("0 / 3 needed: ", Lang::En), "0 / 3 needed:");
        assert_eq!(value("2 / 3 needed: N1, N2", Lang::En), "2 / 3 needed: N1, N2");
        assert_eq!(value("N5, expires at 66 (store clock)", Lang::En), "N5, expires at 66 (store clock)");
        for (v, zh) in [
            ("follower", "跟随者"),
            ("0 / 3 needed: ", "0 / 需要 3："),
            ("2 / 3 needed: N1, N2", "2 / 需要 3：N1, N2"),
            ("N5, expires at 66 (store clock)", "N5，于 66 到期（存储的时钟）"),
            ("free", "空闲"),
            ("true", "是"),
        ] {
            let got = value(v, Lang::Zh);
            assert!(!got.chars().any(|c| c.is_ascii_lowercase()), "{v} → {got}");
            if v != "true" && v != "follower" {
                assert_eq!(got, zh, "{v}");
            }
        }
        // Numbers and node names stay as written.
        assert_eq!(value("12", Lang::Zh), "12");
        assert_eq!(value("N3", Lang::Zh), "N3");
    }
}
