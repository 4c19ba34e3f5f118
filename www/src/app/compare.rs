//! Compare mode's page: the lanes, one set of controls on one clock, the table (an embed has
//! no scrubber).

use super::{draw, Gestures};
use crate::anim::Dots;
use crate::components::compare::{self as cmp, LANES};
use crate::components::timeline::Timeline;
use crate::i18n::{tr, Lang};
use crate::state::{Action, Compare, State};
use election_lab::meta::k;
use std::rc::Rc;
use yew::prelude::*;

pub struct CompareProps<'a> {
    pub state: &'a State,
    pub on: Callback<Action>,
    /// The lane whose narration is shown: the one last pointed at or focused.
    pub lane_focus: UseStateHandle<usize>,
    /// One handle per canvas: the one run's, then one per lane.
    pub dots: Rc<Vec<Dots>>,
    pub lane_gestures: Rc<Vec<Gestures>>,
    pub side_bar: Html,
    pub controls: Html,
}

/// The canvas of compare lane `k`.
fn lane_canvas(state: &State, c: &Compare, k: usize, dots: &Dots, gestures: &Gestures) -> Html {
    let l = &c.lanes[k];
    let menu = state.selection.menu.filter(|_| c.menu_lane == k);
    draw(
        state,
        l.algorithm,
        LANES[k],
        (l.frame.clone(), c.positions.clone(), c.lines.clone(), l.drops.clone()),
        menu,
        dots,
        gestures,
    )
}

/// The lanes' names, the header's subtitle (or a compare embed's title).
pub fn names(c: &Compare, lang: Lang) -> String {
    match &c.runs {
        Some(r) => r.roles.iter().map(|&x| crate::components::fork::role_name(x, lang)).collect::<Vec<_>>(),
        None => c.lanes.iter().map(|l| l.algorithm.title.get(lang)).collect::<Vec<_>>(),
    }
    .join(" · ")
}

pub fn page(props: CompareProps) -> Html {
    let CompareProps { state, on, lane_focus, dots, lane_gestures, side_bar, controls } = props;
    let lang = state.lang;
    let Some(c) = state.lanes() else { return html! {} };
    let timeline = match state.embed {
        true => html! {},
        false => html! { <>
            <p class="compare-note">{ cmp::step_note(lang) }</p>
            <Timeline cursor={c.time} head={c.end} markers={c.markers.clone()} by_time=true {lang} on={on.clone()} />
        </> },
    };
    let focus = (*lane_focus).min(c.lanes.len().saturating_sub(1));
    html! {
        <section class="compare-main" aria-label={tr(lang, k::UI_COMPARE)}>
            { crate::components::fork::divergence(c, lang, &on) }
            <div class="lanes">
                { for (0..c.lanes.len()).map(|k| {
                    let onfocus = { let f = lane_focus.clone(); Callback::from(move |_: FocusEvent| f.set(k)) };
                    let onenter = { let f = lane_focus.clone(); Callback::from(move |_: PointerEvent| f.set(k)) };
                    html!{ <div class={classes!("lane-box", (k == focus && c.lanes.len() > 1).then_some("focused"))} onfocusin={onfocus} onpointerenter={onenter}>
                        { cmp::lane(lang, k, c, lane_canvas(state, c, k, &dots[k + 1], &lane_gestures[k])) }
                    </div> }
                }) }
            </div>
            { side_bar }
            { cmp::narration(c, focus, lang) }
            { controls }
            { timeline }
            { cmp::table(c, lang) }
        </section>
    }
}
