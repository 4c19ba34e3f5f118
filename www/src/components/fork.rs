//! Two runs on the page: the offer to fork (or to compare an imported trace with the run you
//! had), the lanes' names, and their first divergence — named above the lanes and marked on
//! each lane's own strip of time.

use super::fmt;
use crate::i18n::{tr, Lang};
use crate::nodes_text;
use crate::state::compare::{Compare, Diverged, Role};
use crate::state::{Action, Offer, OfferKind};
use election_lab::diff::Cause;
use election_lab::meta::k;
use yew::prelude::*;

/// A lane's name in two runs.
pub fn role_name(r: Role, l: Lang) -> &'static str {
    match r {
        Role::OldFuture => tr(l, k::UI_OLD_FUTURE_BEFORE_YOUR_ACTION),
        Role::NewFuture => tr(l, k::UI_NEW_FUTURE_WITH_YOUR_ACTION),
        Role::Current => tr(l, k::UI_THE_RUN_YOU_HAD),
        Role::Imported => tr(l, k::UI_IMPORTED_TRACE),
    }
}

/// The bar that offers the kept run: fork, or compare the imported trace with the run you had.
pub fn offer_bar(offer: Option<&Offer>, l: Lang, on: &Callback<Action>) -> Html {
    let Some(offer) = offer else { return html! {} };
    let (text, go) = match offer.kind {
        OfferKind::Fork { at, seen } => (
            format!(
                "{} {at}{} {seen}{}",
                tr(l, k::UI_YOU_ACTED_AT_STEP),
                tr(l, k::UI_BEFORE_STEP),
                tr(l, k::UI_THE_FURTHEST_YOU_HAD_SEEN),
            ),
            tr(l, k::UI_FORK_SHOW_BOTH_FUTURES),
        ),
        OfferKind::Import => (tr(l, k::UI_THE_RUN_YOU_HAD_IS).to_string(), tr(l, k::UI_COMPARE_WITH_THE_CURRENT_RUN)),
    };
    let no = match offer.kind {
        OfferKind::Fork { .. } => tr(l, k::UI_DISCARD_THE_OLD_FUTURE),
        OfferKind::Import => tr(l, k::UI_DISCARD_THE_RUN_YOU_HAD),
    };
    html! {
        <div class="fork-bar" role="group" aria-label={tr(l, k::UI_KEEP_BOTH_RUNS)} data-testid="fork-offer">
            <span>{ text }</span>
            <button class="primary" onclick={on.reform(|_| Action::Fork)} data-testid="fork">{ go }</button>
            <button onclick={on.reform(|_| Action::DismissOffer)} data-testid="fork-discard">{ no }</button>
        </div>
    }
}

/// The first difference in words, naming the lanes.
fn named(d: &Diverged, names: [&str; 2], l: Lang) -> String {
    match &d.cause {
        Cause::Delivered { in_a, kind, from, to } => {
            let (yes, no) = if *in_a { (names[0], names[1]) } else { (names[1], names[0]) };
            format!(
                "{kind} N{from} → N{to}{}{yes}{}{no}{}",
                tr(l, k::UI_IS_DELIVERED_IN),
                tr(l, k::UI_DROPPED_IN),
                tr(l, k::UI_TEXT_2)
            )
        }
        Cause::Leaders(a, b) => {
            let who = |v: &[u32]| if v.is_empty() { tr(l, k::UI_NONE).to_string() } else { nodes_text(v) };
            format!("{}{}: {}; {}: {}", tr(l, k::UI_AFTER_THE_SAME_EVENTS_OTHER), names[0], who(a), names[1], who(b))
        }
        Cause::Fault { in_a, action } => {
            k::UI_FAULT_IN_ONE_RUN_ONLY.format(l, &[&action.describe_in(l), &names[usize::from(!*in_a)]])
        }
        Cause::Event => tr(l, k::UI_A_DIFFERENT_EVENT_SEE_EACH).to_string(),
    }
}

/// Above the lanes: where the two runs first differ, and what differs; or that they do not.
pub fn divergence(c: &Compare, l: Lang, on: &Callback<Action>) -> Html {
    let Some(runs) = &c.runs else { return html! {} };
    let names = [role_name(runs.roles[0], l), role_name(runs.roles[1], l)];
    let Some(d) = &runs.first else {
        return html! {
            <p class="divergence none" data-testid="divergence" role="status">
                { format!("{} t = {}.", tr(l, k::UI_NO_DIFFERENCE_BETWEEN_THE_TWO), runs.horizon) }
            </p>
        };
    };
    let t = d.time;
    html! {
        <div class="divergence" data-testid="divergence" data-time={t.to_string()} role="status">
            <p>
                <b>{ format!("{} t = {t}: ", tr(l, k::UI_FIRST_DIFFERENCE_AT)) }</b>
                { named(d, names, l) }
                {" "}<button onclick={on.reform(move |_| Action::Seek(t))} data-testid="divergence-go">{ tr(l, k::UI_GO_TO_IT) }</button>
            </p>
            <p class="legend">
                <span class="swatch diverge" aria-hidden="true"></span>{ tr(l, k::UI_FIRST_DIFFERENCE) }
                <span class="swatch clock" aria-hidden="true"></span>{ tr(l, k::UI_THE_CLOCK) }
            </p>
        </div>
    }
}

/// Lane `k`'s strip of time: the first difference at its step there, and the clock.
pub fn lane_strip(c: &Compare, k: usize, l: Lang) -> Html {
    let Some(runs) = &c.runs else { return html! {} };
    let end = c.end.max(1) as f64;
    let x = |t: u64| fmt(t as f64 / end * 1000.0);
    let clock = html! { <line class="clock" x1={x(c.time)} x2={x(c.time)} y1="0" y2="14" /> };
    let (mark, label, step, event) = match &runs.first {
        Some(d) => {
            let step = d.steps[k];
            let e = c.lanes[k].engine.get();
            let event = match e.step_info_in(step, l) {
                Some(i) => i.text,
                None => tr(l, k::UI_THIS_RUN_HAD_ENDED).to_string(),
            };
            let label = format!(
                "{} t = {}, {} {step}{}: {event}",
                tr(l, k::UI_FIRST_DIFFERENCE_AT),
                d.time,
                tr(l, k::UI_STEP_3),
                tr(l, k::UI_IN_THIS_LANE)
            );
            (html! { <line class="diverge" x1={x(d.time)} x2={x(d.time)} y1="0" y2="14" /> }, label, step, event)
        }
        None => (html! {}, tr(l, k::UI_NO_DIFFERENCE).to_string(), 0, String::new()),
    };
    let clock_label = format!("{} t = {}", tr(l, k::UI_THE_CLOCK_AT), c.time);
    html! {
        <div class="lane-strip" data-testid="lane-divergence" data-step={step.to_string()}>
            <svg viewBox="0 0 1000 14" preserveAspectRatio="none" role="img" aria-label={format!("{label}{clock_label}")}>
                <rect class="track" x="0" y="5" width="1000" height="4" />
                { mark }
                { clock }
            </svg>
            { if event.is_empty() { html!{} } else { html!{ <p class="lane-event">{ format!("{}{step}{}{event}", tr(l, k::UI_STEP_4), tr(l, k::UI_TEXT_3)) }</p> } } }
        </div>
    }
}
