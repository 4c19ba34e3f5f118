//! The scrubber and its markers (faults, elections, violations). The markers are a component of
//! their own, so moving the cursor does not redraw them; they change only with the head.

use crate::i18n::{tr, Lang};
use crate::markers::Marker;
use crate::state::Action;
use election_lab::meta::k;
use std::rc::Rc;
use web_sys::HtmlInputElement;
use yew::prelude::*;

#[derive(Properties, PartialEq)]
pub struct TimelineProps {
    pub cursor: u64,
    pub head: u64,
    pub markers: Rc<Vec<Marker>>,
    /// Compare mode: the scrubber runs over virtual time, not steps.
    #[prop_or_default]
    pub by_time: bool,
    pub lang: Lang,
    pub on: Callback<Action>,
}

#[function_component]
pub fn Timeline(p: &TimelineProps) -> Html {
    let head = p.head.max(1);
    let cursor = p.cursor;
    let oninput = super::maybe(&p.on, |e: InputEvent| {
        let v = e.target_dyn_into::<HtmlInputElement>()?.value();
        v.parse::<u64>().ok().map(Action::Seek)
    });
    html! {
        <div class="timeline">
            <input type="range" min="0" max={head.to_string()} value={cursor.to_string()} {oninput}
                   aria-label={tr(p.lang, k::UI_TIMELINE)} aria-valuetext={format!("{} {cursor} / {head}", if p.by_time { "t =" } else { tr(p.lang, k::UI_STEP) })} />
            <Markers markers={p.markers.clone()} {head} lang={p.lang} on={p.on.clone()} />
            <div class="legend">
                <span class="marker start"></span>{ tr(p.lang, k::UI_ELECTION_STARTED) }
                <span class="marker fault"></span>{ tr(p.lang, k::UI_FAULT_OR_INTERVENTION) }
                <span class="marker elected"></span>{ tr(p.lang, k::UI_LEADER_ELECTED) }
                <span class="marker violation"></span>{ tr(p.lang, k::UI_VIOLATION) }
                { if p.markers.iter().any(|m| m.class == "diverge") {
                    html!{ <><span class="marker diverge"></span>{ tr(p.lang, k::UI_FIRST_DIFFERENCE_OF_THE_TWO) }</> }
                } else { html!{} } }
            </div>
        </div>
    }
}

#[derive(Properties, PartialEq)]
struct MarkersProps {
    markers: Rc<Vec<Marker>>,
    head: u64,
    lang: Lang,
    on: Callback<Action>,
}

#[function_component]
fn Markers(p: &MarkersProps) -> Html {
    crate::probe::rendered("markers");
    html! {
        <div class="markers">
            { for p.markers.iter().map(|m| {
                let s = m.step;
                let left = format!("left: calc({}% - 4px)", s as f64 / p.head as f64 * 100.0);
                // A violation is a target of its own: named, reachable by Tab, larger to hit.
                // The other markers stay pointer-only (the log and the scrubber reach them).
                let diverge = m.class == "diverge";
                let violation = m.class == "violation" || diverge;
                let label = match diverge {
                    true => Some(format!("{} t = {s}", tr(p.lang, k::UI_FIRST_DIFFERENCE_OF_THE_TWO_2))),
                    false => violation.then(|| format!("{} {s}: {}", tr(p.lang, k::UI_VIOLATION_AT_STEP), m.title)),
                };
                let title = label.clone().filter(|_| diverge).unwrap_or_else(|| m.title.clone());
                html!{ <button class={classes!("marker", m.class, violation.then_some("target"))} style={left} {title}
                               tabindex={if violation { "0" } else { "-1" }} aria-hidden={(!violation).then_some("true")}
                               aria-label={label} data-step={s.to_string()}
                               onclick={p.on.reform(move |_| Action::Seek(s))}></button> }
            }) }
        </div>
    }
}
