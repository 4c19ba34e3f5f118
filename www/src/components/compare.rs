//! Compare mode on the page: the lanes (each with its canvas, who leads and its invariant
//! status), the comparison table under them, and the picker of 2 to 4 algorithms.

use super::banners::leaders_banner;
use crate::i18n::{tr, Lang};
use crate::nodes_text;
use crate::state::compare::{self, Compare, Row, MAX_LANES, SPLIT_BRAIN};
use crate::state::{Action, State};
use election_lab::meta::k;
use election_lab::{Algorithm, Scenario};
use std::rc::Rc;
use yew::prelude::*;

/// The lanes' canvas names (element ids are prefixed with them).
pub const LANES: [&str; MAX_LANES] = ["lane-1", "lane-2", "lane-3", "lane-4"];

/// What one step is in compare mode, said under the controls and in the picker.
pub fn step_note(lang: Lang) -> &'static str {
    tr(lang, k::UI_ONE_STEP_MOVES_THE_SHARED)
}

fn side(nodes: &[u32]) -> String {
    format!("{{{}}}", nodes.iter().map(u32::to_string).collect::<Vec<_>>().join(","))
}

fn leaders(l: &[u32], lang: Lang) -> String {
    if l.is_empty() {
        tr(lang, k::UI_NONE).into()
    } else {
        nodes_text(l)
    }
}

/// One lane: the algorithm and its step count, its canvas, who leads, and its claimed
/// properties with their status.
pub fn lane(lang: Lang, k: usize, c: &Compare, canvas: Html) -> Html {
    let lane = &c.lanes[k];
    let row: &Row = &lane.row;
    let title = match &c.runs {
        Some(r) => super::fork::role_name(r.roles[k], lang),
        None => lane.algorithm.title.get(lang),
    };
    // A recorded lane's leaders of different epochs at once: a stale leader, not a split brain.
    let stale = (crate::WORKBENCH && election_lab::registry::is_recorded(lane.algorithm.id))
        .then(|| crate::state::stale_term_text(&lane.frame, lang))
        .flatten();
    let status = if let Some(s) = stale {
        html! { <p class="lane-leaders" data-testid="stale-term">{ s }</p> }
    } else if row.leaders.len() >= 2 {
        leaders_banner(&row.leaders, crate::meta::leader_per_group(lane.algorithm), lang)
    } else {
        let who = match row.leaders.first() {
            Some(&l) => format!("{} N{l}", tr(lang, k::UI_LEADER_2)),
            None => tr(lang, k::UI_NO_NODE_BELIEVES_IT_LEADS).into(),
        };
        html! { <p class="lane-leaders">{ who }</p> }
    };
    let claims = row.claims.iter().map(|(p, n)| {
        let text = if *n == 0 { String::new() } else { format!(" ×{n}") };
        html! {
            <li class={if *n == 0 { "ok" } else { "bad" }} data-property={p.id} title={p.explain.get(lang)}>
                <span class="mark" aria-hidden="true">{ if *n == 0 { "✓" } else { "✗" } }</span>{ p.title.get(lang) }{ text }
            </li>
        }
    });
    html! {
        <section class="lane" data-lane={LANES[k]} data-role={c.runs.as_ref().map(|r| format!("{:?}", r.roles[k]))} data-algorithm={lane.algorithm.id} data-leaders={row.leaders.iter().map(u32::to_string).collect::<Vec<_>>().join(",")} aria-label={title}>
            <h2 class="lane-title">{ title }<span class="lane-step">{ format!("{} {}", tr(lang, k::UI_STEP), row.step) }</span></h2>
            { if lane.computing() { html! { <p class="lane-computing" role="status" data-testid="lane-computing">{ tr(lang, k::UI_LANE_COMPUTING) }</p> } } else { html! {} } }
            { canvas }
            { super::fork::lane_strip(c, k, lang) }
            <super::teach::Legend algorithm={lane.algorithm} {lang} compact=true frame={lane.frame.clone()} />
            { status }
            <ul class="invariants lane-claims">
                { for claims }
                { if row.claims.is_empty() { html!{ <li class="muted">{ tr(lang, k::UI_CLAIMS_NO_SAFETY_PROPERTY) }</li> } } else { html!{} } }
            </ul>
        </section>
    }
}

/// The narration of lane `k` (the one last pointed at or focused) at its current step, named.
pub fn narration(c: &Compare, k: usize, lang: Lang) -> Html {
    let Some(lane) = c.lanes.get(k) else { return html! {} };
    let step = lane.frame.step;
    let text = match step {
        0 => tr(lang, k::UI_NOTHING_HAS_HAPPENED_YET).to_string(),
        s => lane.engine.get().narrate(s, lang).unwrap_or_default(),
    };
    html! {
        <p class="narration lane-narration" data-testid="lane-narration" data-lane={LANES[k]} aria-live="polite" tabindex="0">
            <span class="narration-step">{ format!("{} · {} {}{}", lane.algorithm.title.get(lang), tr(lang, k::UI_STEP_3), step, tr(lang, k::UI_NARRATION_COLON)) }</span>
            { text }
        </p>
    }
}

/// The comparison table: per lane, who leads on each side, violations, messages, agreement.
pub fn table(c: &Compare, lang: Lang) -> Html {
    let rows = c.lanes.iter().map(|lane| {
        let r = &lane.row;
        let sides = r
            .sides
            .iter()
            .map(|(nodes, l)| format!("{}: {}", side(nodes), leaders(l, lang)))
            .collect::<Vec<_>>()
            .join(" · ");
        let broken: Vec<String> =
            r.claims.iter().filter(|(_, n)| *n > 0).map(|(p, n)| format!("{} ×{n}", p.title.get(lang))).collect();
        let violations = match (r.claims.is_empty(), broken.is_empty()) {
            (true, _) => tr(lang, k::UI_CLAIMS_NONE).to_string(),
            (false, true) => "0".into(),
            (false, false) => broken.join(", "),
        };
        let agreement = match r.agreement {
            None => tr(lang, k::UI_NONE).to_string(),
            Some((l, None)) => format!("N{l} {}", tr(lang, k::UI_FROM_THE_START)),
            Some((l, Some((ticks, at)))) => k::UI_AGREEMENT_AFTER.format(lang, &[&l, &ticks, &at]),
        };
        html! {
            <tr data-lane={lane.algorithm.id}>
                <th scope="row">{ lane.algorithm.title.get(lang) }</th>
                <td data-col="sides">{ sides }</td>
                <td data-col="violations" class={classes!((!broken.is_empty()).then_some("bad"))}>{ violations }</td>
                <td data-col="messages" class="num">{ r.messages }</td>
                <td data-col="agreement">{ agreement }</td>
            </tr>
        }
    });
    html! {
        <div class="compare-table-wrap" tabindex="0" role="region" aria-label={tr(lang, k::UI_SIDE_BY_SIDE)}>
            <table class="compare-table" data-testid="compare-table">
                <caption>{ format!("{} t = {}", tr(lang, k::UI_SIDE_BY_SIDE_AT), c.time) }</caption>
                <thead><tr>
                    <th scope="col">{ tr(lang, k::UI_ALGORITHM) }</th>
                    <th scope="col">{ tr(lang, k::UI_LEADERS_PER_SIDE) }</th>
                    <th scope="col">{ tr(lang, k::UI_VIOLATIONS) }</th>
                    <th scope="col">{ tr(lang, k::UI_MESSAGES_SENT) }</th>
                    <th scope="col" title={tr(lang, k::UI_EVERY_LIVE_NODE_NAMES_ONE)}>{ tr(lang, k::UI_TIME_TO_AGREEMENT) }</th>
                </tr></thead>
                <tbody>{ for rows }</tbody>
            </table>
        </div>
    }
}

/// The algorithms the picker starts with: the lanes being compared, or else the running
/// algorithm and those that declare the same scenario as a preset of their own.
pub fn first_choice(state: &State) -> Vec<&'static str> {
    if let Some(c) = state.lanes() {
        return c.lanes.iter().map(|l| l.algorithm.id).collect();
    }
    let s = &state.scenario;
    let mut out: Vec<&'static str> = crate::state::script::offered()
        .into_iter()
        .filter(|a| a.id == s.algorithm || a.presets.iter().any(|p| compare::same_world(&p.scenario(), s)))
        .map(|a| a.id)
        .collect();
    out.truncate(MAX_LANES);
    out
}

#[derive(Properties, PartialEq)]
pub struct PickerProps {
    pub scenario: Rc<Scenario>,
    pub chosen: Vec<&'static str>,
    pub comparing: bool,
    pub lang: Lang,
    pub on: Callback<Action>,
}

/// The compare picker: check 2 to 4 algorithms that fit the scenario, or take the preset.
/// Mounted when opened, so it starts from `chosen` each time.
#[function_component]
pub fn Picker(p: &PickerProps) -> Html {
    let picked = use_state(|| p.chosen.clone());
    let l = p.lang;
    let n = picked.len();
    let (fit, unfit): (Vec<&'static Algorithm>, Vec<&'static Algorithm>) =
        crate::state::script::offered().into_iter().partition(|a| compare::fits(&p.scenario, a));
    let items = fit.into_iter().map(|a| {
        let on = picked.contains(&a.id);
        let onchange = {
            let (picked, id) = (picked.clone(), a.id);
            Callback::from(move |_: Event| {
                let mut v = (*picked).clone();
                match v.iter().position(|x| *x == id) {
                    Some(i) => {
                        v.remove(i);
                    }
                    None => v.push(id),
                }
                picked.set(v);
            })
        };
        html! {
            <li><label><input type="checkbox" checked={on} disabled={!on && n >= MAX_LANES} {onchange} data-algorithm={a.id} />{ a.title.get(l) }</label></li>
        }
    });
    let unfit = match unfit.is_empty() {
        true => html! {},
        false => html! {
            <p class="picker-unfit" data-testid="unfit">{ tr(l, k::UI_NOT_FOR_THESE_NODES_OR) }{ unfit.iter().map(|a| a.title.get(l)).collect::<Vec<_>>().join(tr(l, k::UI_LIST_SEPARATOR)) }</p>
        },
    };
    let go = {
        let picked = picked.clone();
        p.on.reform(move |_: MouseEvent| {
            Action::Compare(crate::state::script::offered().into_iter().filter(|a| picked.contains(&a.id)).collect())
        })
    };
    let ok = (2..=MAX_LANES).contains(&n);
    let status = k::UI_CHOOSE_LANES.format(l, &[&MAX_LANES, &n]);
    html! {
        <div class="overlay" role="dialog" aria-modal="true" aria-label={tr(l, k::UI_COMPARE_ALGORITHMS)} onclick={p.on.reform(|_| Action::TogglePicker)}>
            <div class="dialog picker" onclick={Callback::from(|e: MouseEvent| e.stop_propagation())}>
                <h2>{ tr(l, k::UI_COMPARE_ALGORITHMS_SIDE_BY_SIDE) }</h2>
                <p>{ tr(l, k::UI_THE_LANES_RUN_THIS_SCENARIO) }{" "}{ step_note(l) }</p>
                <ul class="picker-list">{ for items }</ul>
                { unfit }
                <p class={classes!("picker-status", (!ok).then_some("bad"))} role="status">{ status }</p>
                <div class="row">
                    <button onclick={go} disabled={!ok} data-testid="compare-go">{ tr(l, k::UI_COMPARE_3) }</button>
                    <button onclick={p.on.reform(|_| Action::ComparePreset)} data-testid="compare-preset" title={SPLIT_BRAIN.hint.get(l)}>{ SPLIT_BRAIN.title.get(l) }</button>
                    { if p.comparing { html!{ <button onclick={p.on.reform(|_| Action::CloseCompare)}>{ tr(l, k::UI_CLOSE_COMPARE) }</button> } } else { html!{} } }
                    <button onclick={p.on.reform(|_| Action::TogglePicker)}>{ tr(l, k::UI_CANCEL) }</button>
                </div>
            </div>
        </div>
    }
}
