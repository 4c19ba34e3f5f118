//! Two runs on the page: the offer to fork (or to compare an imported trace with the run you
//! had), the lanes' names, and their first divergence — named above the lanes and marked on
//! each lane's own strip of time.

use super::fmt;
use crate::i18n::{tr, Lang};
use crate::nodes_text;
use crate::state::compare::{Compare, Diverged, Role};
use crate::state::{Action, Offer, OfferKind};
use election_lab::diff::Cause;
use yew::prelude::*;

/// A lane's name in two runs.
pub fn role_name(r: Role, l: Lang) -> &'static str {
    match r {
        Role::OldFuture => tr(l, "Old future (before your action)", "旧的未来（你操作之前）"),
        Role::NewFuture => tr(l, "New future (with your action)", "新的未来（含你的操作）"),
        Role::Current => tr(l, "The run you had", "原来的运行"),
        Role::Imported => tr(l, "Imported trace", "导入的轨迹"),
    }
}

/// The bar that offers the kept run: fork, or compare the imported trace with the run you had.
pub fn offer_bar(offer: Option<&Offer>, l: Lang, on: &Callback<Action>) -> Html {
    let Some(offer) = offer else { return html! {} };
    let (text, go) = match offer.kind {
        OfferKind::Fork { at, seen } => (
            format!(
                "{} {at}{} {seen}{}",
                tr(l, "You acted at step", "你在第"),
                tr(l, ", before step", " 步操作，早于你已看过的第"),
                tr(l, ", the furthest you had seen: the old future is kept.", " 步：旧的未来已保留。"),
            ),
            tr(l, "Fork: show both futures", "分叉：并排显示两个未来"),
        ),
        OfferKind::Import => (
            tr(l, "The run you had is kept.", "原来的运行已保留。").to_string(),
            tr(l, "Compare with the current run", "与当前运行对比"),
        ),
    };
    let no = match offer.kind {
        OfferKind::Fork { .. } => tr(l, "Discard the old future", "丢弃旧的未来"),
        OfferKind::Import => tr(l, "Discard the run you had", "丢弃原来的运行"),
    };
    html! {
        <div class="fork-bar" role="group" aria-label={tr(l, "Keep both runs", "保留两次运行")} data-testid="fork-offer">
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
                tr(l, " is delivered in: ", " 在「"),
                tr(l, "; dropped in: ", "」中送达，在「"),
                tr(l, ".", "」中被丢弃。")
            )
        }
        Cause::Leaders(a, b) => {
            let who = |v: &[u32]| if v.is_empty() { tr(l, "none", "无").to_string() } else { nodes_text(v) };
            format!(
                "{}{}: {}; {}: {}",
                tr(l, "After the same events, other leaders — ", "同样的事件之后，领导者不同——"),
                names[0],
                who(a),
                names[1],
                who(b)
            )
        }
        Cause::Event => tr(l, "A different event (see each lane).", "事件不同（见各通道）。").to_string(),
    }
}

/// Above the lanes: where the two runs first differ, and what differs; or that they do not.
pub fn divergence(c: &Compare, l: Lang, on: &Callback<Action>) -> Html {
    let Some(runs) = &c.runs else { return html! {} };
    let names = [role_name(runs.roles[0], l), role_name(runs.roles[1], l)];
    let Some(d) = &runs.first else {
        return html! {
            <p class="divergence none" data-testid="divergence" role="status">
                { format!("{} t = {}.", tr(l, "No difference between the two runs up to", "两次运行直到此时没有差异："), runs.horizon) }
            </p>
        };
    };
    let t = d.time;
    html! {
        <div class="divergence" data-testid="divergence" data-time={t.to_string()} role="status">
            <p>
                <b>{ format!("{} t = {t}: ", tr(l, "First difference at", "第一处差异：")) }</b>
                { named(d, names, l) }
                {" "}<button onclick={on.reform(move |_| Action::Seek(t))} data-testid="divergence-go">{ tr(l, "Go to it", "跳到那里") }</button>
            </p>
            <p class="legend">
                <span class="swatch diverge" aria-hidden="true"></span>{ tr(l, "first difference ", "第一处差异 ") }
                <span class="swatch clock" aria-hidden="true"></span>{ tr(l, "the clock", "时钟") }
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
                None => tr(l, "this run had ended", "此运行已结束").to_string(),
            };
            let label = format!(
                "{} t = {}, {} {step}{}: {event}",
                tr(l, "First difference at", "第一处差异："),
                d.time,
                tr(l, "step", "第"),
                tr(l, " in this lane", " 步（本通道）")
            );
            (html! { <line class="diverge" x1={x(d.time)} x2={x(d.time)} y1="0" y2="14" /> }, label, step, event)
        }
        None => (html! {}, tr(l, "No difference", "没有差异").to_string(), 0, String::new()),
    };
    let clock_label = format!("{} t = {}", tr(l, "; the clock at", "；时钟位于"), c.time);
    html! {
        <div class="lane-strip" data-testid="lane-divergence" data-step={step.to_string()}>
            <svg viewBox="0 0 1000 14" preserveAspectRatio="none" role="img" aria-label={format!("{label}{clock_label}")}>
                <rect class="track" x="0" y="5" width="1000" height="4" />
                { mark }
                { clock }
            </svg>
            { if event.is_empty() { html!{} } else { html!{ <p class="lane-event">{ format!("{}{step}{}{event}", tr(l, "Step ", "第 "), tr(l, ": ", " 步：")) }</p> } } }
        </div>
    }
}
